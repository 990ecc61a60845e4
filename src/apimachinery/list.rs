//! Listing a key range with Kubernetes semantics: resourceVersion and
//! resourceVersionMatch, limit and continue tokens (every page at the first
//! page's revision), and expired tokens answered with a fresh one.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::options::{ListOptions, ResourceVersion, ResourceVersionMatch};
use crate::error::{Error, FieldError, Result};
use crate::storage::{KeyValue, ReadAt, Revision, Storage, StorageError};

/// How long a list waits for a resourceVersion newer than the store's.
const WAIT_FOR_REVISION: Duration = Duration::from_secs(3);

/// One page of a list: its objects, or their JSON (`list_selected`).
#[derive(Debug, Clone)]
pub struct ListPage<T = Value> {
    pub items: Vec<T>,
    pub revision: Revision,
    /// Empty when this is the last page.
    pub continue_token: String,
    /// Items left after this page, when known.
    pub remaining: Option<i64>,
}

/// A continue token, in the same shape Kubernetes' etcd3 store encodes.
#[derive(Debug, Serialize, Deserialize)]
struct ContinueToken {
    v: String,
    rv: Revision,
    start: String,
}

fn encode_continue(rv: Revision, start_after_relative: &str) -> String {
    let token = ContinueToken { v: "meta.k8s.io/v1".into(), rv, start: format!("{start_after_relative}\u{0}") };
    base64::engine::general_purpose::URL_SAFE.encode(serde_json::to_vec(&token).expect("token encodes"))
}

/// Decodes a continue token for a list of the keys under `prefix`: the key
/// the next page starts after, and the revision to read at (`<= 0`: the
/// latest). As Kubernetes' `storage.DecodeContinue`, a start key that is not
/// a clean path below the prefix (`../`, `//`, `.`) is refused, so no token
/// reaches keys outside the list's prefix; every refusal is a BadRequest
/// "invalid continue token: continue key is not valid: ...".
pub fn decode_continue(token: &str, prefix: &str) -> Result<(String, Revision)> {
    let bad = |why: String| {
        let cause = FieldError::invalid_without_value("continue", format!("continue key is not valid: {why}"));
        let mut err = Error::bad_request(format!("invalid continue token: {}", cause.detail));
        err.details.causes.push(cause);
        err
    };
    let bytes = base64::engine::general_purpose::URL_SAFE
        .decode(token)
        .or_else(|_| base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(token))
        .map_err(|e| {
            let at = match e {
                base64::DecodeError::InvalidByte(at, _) | base64::DecodeError::InvalidLastSymbol(at, _) => at,
                _ => token.len(),
            };
            bad(format!("illegal base64 data at input byte {at}"))
        })?;
    let token: ContinueToken = serde_json::from_slice(&bytes).map_err(|e| bad(e.to_string()))?;
    if token.v != "meta.k8s.io/v1" {
        return Err(bad(format!("server does not recognize this encoded version {:?}", token.v)));
    }
    if token.rv == 0 {
        return Err(bad("incorrect encoded start resourceVersion (version meta.k8s.io/v1)".into()));
    }
    if token.start.is_empty() {
        return Err(bad("encoded start key empty (version meta.k8s.io/v1)".into()));
    }
    // The start key is the last key returned plus a NUL (the next page
    // starts after it), relative to the prefix; it must be a clean path,
    // as Go's `path.Clean` leaves it.
    let relative = token.start.strip_prefix('/').unwrap_or(&token.start);
    let clean = |key: &str| key.split('/').all(|segment| !segment.is_empty() && segment != "." && segment != "..");
    let Some(after) = relative.strip_suffix('\u{0}').filter(|key| clean(key)) else {
        return Err(bad(token.start));
    };
    Ok((format!("{prefix}{after}"), token.rv))
}

fn list_options_invalid(causes: Vec<FieldError>) -> Error {
    Error::invalid("meta.k8s.io", "ListOptions", "", causes)
}

/// Checks the combination of options as Kubernetes' `ValidateListOptions`.
fn validate(options: &ListOptions) -> Result<()> {
    let mut causes = Vec::new();
    let m = options.resource_version_match;
    if m != ResourceVersionMatch::Unset {
        if options.resource_version == ResourceVersion::Unset {
            causes.push(FieldError::forbidden(
                "resourceVersionMatch",
                "resourceVersionMatch is forbidden unless resourceVersion is provided",
            ));
        }
        if !options.continue_token.is_empty() {
            causes.push(FieldError::forbidden(
                "resourceVersionMatch",
                "resourceVersionMatch is forbidden when continue is provided",
            ));
        }
        if m == ResourceVersionMatch::Exact && options.resource_version == ResourceVersion::Any {
            causes.push(FieldError::forbidden(
                "resourceVersionMatch",
                "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"",
            ));
        }
    }
    if options.limit < 0 {
        causes.push(FieldError::invalid("limit", options.limit, "must be greater than or equal to 0"));
    }
    if !causes.is_empty() {
        return Err(list_options_invalid(causes));
    }
    if !options.continue_token.is_empty() && matches!(options.resource_version, ResourceVersion::At(_)) {
        return Err(Error::bad_request("specifying resource version is not allowed when using continue"));
    }
    Ok(())
}

/// Waits until the store has reached `revision`, for up to three seconds
/// (as Kubernetes' watch cache waits), woken by the commit that reaches it;
/// then `Timeout: Too large resource version` with a retry after a second.
pub async fn wait_for_revision(store: &dyn Storage, revision: Revision) -> Result<()> {
    if store.current_revision() >= revision {
        return Ok(());
    }
    let current = store.wait_for_revision(revision, WAIT_FOR_REVISION).await;
    if current < revision {
        return Err(Error::too_large_resource_version(revision, current));
    }
    Ok(())
}

/// Lists the keys under `prefix` as `options` ask. `decode` turns a stored
/// key-value into the object returned (with its resourceVersion);
/// `matches`, when there are selectors, applies them to it. Each object is
/// decoded once.
pub async fn list(
    store: &dyn Storage,
    prefix: &str,
    options: &ListOptions,
    decode: &(dyn Fn(&KeyValue) -> Result<Value> + Sync),
    matches: Option<&(dyn Fn(&Value) -> bool + Sync)>,
) -> Result<ListPage> {
    let select = matches.map(|matches| move |kv: &KeyValue| decode(kv).map(|obj| matches(&obj).then_some(obj)));
    let select = select.as_ref().map(|s| s as Select<'_, Value>);
    list_selected(store, prefix, options, decode, select).await
}

/// What selects the items of a list: the item of a key-value the selectors
/// match, or none.
pub type Select<'a, T> = &'a (dyn Fn(&KeyValue) -> Result<Option<T>> + Sync);

/// Lists the keys under `prefix` as `options` ask, as items of any form.
/// `decode` turns a stored key-value into the item returned; `select`, when
/// there are selectors, gives the item of a key-value they match, or none.
/// Each key-value is decoded at most once.
pub async fn list_selected<T: Send>(
    store: &dyn Storage,
    prefix: &str,
    options: &ListOptions,
    decode: &(dyn Fn(&KeyValue) -> Result<T> + Sync),
    select: Option<Select<'_, T>>,
) -> Result<ListPage<T>> {
    validate(options)?;
    let limit = usize::try_from(options.limit).unwrap_or(0);
    let (at, start_after) = read_from(store, prefix, options, limit).await?;
    // With selectors, items are decoded in the filter and kept for the
    // page; decoding errors there are reported after the range.
    let mut failure: Option<Error> = None;
    let mut decoded: HashMap<Arc<str>, T> = HashMap::new();
    let mut filter = |kv: &KeyValue| {
        let Some(select) = select else { return true };
        match select(kv) {
            Ok(Some(item)) => {
                decoded.insert(kv.key.clone(), item);
                true
            }
            Ok(None) => false,
            Err(err) => {
                failure.get_or_insert(err);
                false
            }
        }
    };
    let range = match store.range(prefix, start_after.as_deref(), at, limit, &mut filter) {
        Ok(range) => range,
        Err(StorageError::Compacted { .. }) if !options.continue_token.is_empty() => {
            return Err(expired_continue(start_after.as_deref(), prefix));
        }
        Err(StorageError::FutureRevision { requested, .. }) => {
            wait_for_revision(store, requested).await?;
            return Box::pin(list_selected(store, prefix, options, decode, select)).await;
        }
        Err(err) => return Err(err.into()),
    };
    if let Some(err) = failure {
        return Err(err);
    }
    let items = if decoded.is_empty() {
        decode_all(&range.items, decode)?
    } else {
        range
            .items
            .iter()
            .map(|kv| decoded.remove(&kv.key).map_or_else(|| decode(kv), Ok))
            .collect::<Result<Vec<_>>>()?
    };
    let continue_token = match (range.more, range.items.last()) {
        (true, Some(last)) => encode_continue(range.revision, last.key.trim_start_matches(prefix)),
        _ => String::new(),
    };
    Ok(ListPage { items, revision: range.revision, continue_token, remaining: None })
}

/// Where a list reads, and the key it starts after: a continue token's, or
/// the revision `resourceVersion` and `resourceVersionMatch` ask for (an
/// unexact one waited for, then read at the latest).
async fn read_from(
    store: &dyn Storage,
    prefix: &str,
    options: &ListOptions,
    limit: usize,
) -> Result<(ReadAt, Option<String>)> {
    let requested = options.resource_version.revision();
    Ok(if !options.continue_token.is_empty() {
        let (start, rv) = decode_continue(&options.continue_token, prefix)?;
        let at = if rv > 0 { ReadAt::Revision(rv) } else { ReadAt::Latest };
        (at, Some(start))
    } else {
        let at = match (requested, options.resource_version_match) {
            (None, _) => ReadAt::Latest,
            (Some(rv), ResourceVersionMatch::Exact) => ReadAt::Revision(rv),
            (Some(rv), ResourceVersionMatch::Unset) if limit > 0 => ReadAt::Revision(rv),
            (Some(rv), _) => {
                wait_for_revision(store, rv).await?;
                ReadAt::Latest
            }
        };
        (at, None)
    })
}

/// Kubernetes' 410 for a continue token whose revision is compacted, with
/// a token that continues from the same key at the latest revision.
fn expired_continue(start_after: Option<&str>, prefix: &str) -> Error {
    let next = encode_continue(Revision::new(-1), start_after.unwrap_or(prefix).trim_start_matches(prefix));
    Error::expired_continue(
        "The provided continue parameter is too old to display a consistent list result. You can start a new \
         list without the continue parameter, or use the continue token in this response to retrieve the \
         remainder of the results. Continuing with the provided token results in an inconsistent list - \
         objects that were created, modified, or deleted between the time the first chunk was returned and \
         now may show up in the list.",
        next,
    )
}

/// Pages at least this long are decoded on every core.
const PARALLEL_FROM: usize = 1024;

/// `items` decoded in order; a long page split over the machine's cores
/// (a list of 10,000 spends most of its time turning stored bytes into
/// what it answers). The first error in the page's order, as a sequential
/// pass gives.
pub fn decode_all<T: Send>(items: &[KeyValue], decode: &(dyn Fn(&KeyValue) -> Result<T> + Sync)) -> Result<Vec<T>> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if items.len() < PARALLEL_FROM || cores < 2 {
        return items.iter().map(decode).collect();
    }
    let mut chunks = items.chunks(items.len().div_ceil(cores));
    let first = chunks.next().unwrap_or_default();
    std::thread::scope(|scope| {
        let run = move |chunk: &[KeyValue]| chunk.iter().map(decode).collect::<Result<Vec<T>>>();
        // A chunk no thread could be started for is decoded here.
        let others: Vec<_> = chunks
            .map(|chunk| (chunk, std::thread::Builder::new().spawn_scoped(scope, move || run(chunk)).ok()))
            .collect();
        let mut out = run(first);
        for (chunk, thread) in others {
            let decoded = match thread {
                Some(thread) => thread.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                None => run(chunk),
            };
            out = out.and_then(|mut out| {
                out.extend(decoded?);
                Ok(out)
            });
        }
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kvs(n: usize) -> Vec<KeyValue> {
        (0..n)
            .map(|i| KeyValue {
                key: Arc::from(format!("/p/{i:05}")),
                value: Arc::from(i.to_string().as_bytes()),
                create_revision: Revision::new(1),
                mod_revision: Revision::new(1),
            })
            .collect()
    }

    #[test]
    fn a_long_page_decodes_in_order_with_the_first_error_in_order() {
        let items = kvs(PARALLEL_FROM * 3 + 7);
        let decode = |kv: &KeyValue| Ok(String::from_utf8(kv.value.to_vec()).expect("utf-8"));
        let decoded = decode_all(&items, &decode).unwrap();
        assert_eq!(decoded, (0..items.len()).map(|i| i.to_string()).collect::<Vec<_>>());
        // Errors in the last and in an early chunk: the early one is reported.
        let failing = |kv: &KeyValue| {
            let n: usize = std::str::from_utf8(&kv.value).expect("utf-8").parse().expect("a number");
            if n == items.len() - 1 || n == PARALLEL_FROM + 1 {
                return Err(Error::internal(format!("item {n}")));
            }
            Ok(n)
        };
        assert_eq!(decode_all(&items, &failing).unwrap_err().message, format!("item {}", PARALLEL_FROM + 1));
        assert_eq!(decode_all(&kvs(3), &decode).unwrap(), ["0", "1", "2"]);
    }

    #[test]
    fn continue_tokens_round_trip_in_kubernetes_shape() {
        let token = encode_continue(Revision::new(42), "ns/a");
        assert_eq!(
            decode_continue(&token, "/registry/g/p/").unwrap(),
            ("/registry/g/p/ns/a".to_string(), Revision::new(42))
        );
        let expired = encode_continue(Revision::new(-1), "ns/a");
        assert_eq!(decode_continue(&expired, "/p/").unwrap().1, -1);
        let err = decode_continue("not-base64!", "/p/").unwrap_err();
        assert_eq!(
            err.message,
            "invalid continue token: continue key is not valid: illegal base64 data at input byte 10"
        );
    }

    fn raw_token(v: &str, rv: i64, start: &str) -> String {
        let token = ContinueToken { v: v.into(), rv: Revision::new(rv), start: start.into() };
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(serde_json::to_vec(&token).unwrap())
    }

    #[test]
    fn start_keys_stay_inside_the_prefix() {
        for start in ["../other/x\u{0}", "ns/../../x\u{0}", "ns//a\u{0}", "./a\u{0}", "ns/a/\u{0}/", "ns/a", "..\u{0}"]
        {
            let err = decode_continue(&raw_token("meta.k8s.io/v1", 5, start), "/registry/g/p/").unwrap_err();
            assert_eq!(err.reason, crate::error::Reason::BadRequest, "{start:?}");
            assert_eq!(err.message, format!("invalid continue token: continue key is not valid: {start}"));
            assert_eq!(err.details.causes[0].field, "continue");
        }
        let ok = decode_continue(&raw_token("meta.k8s.io/v1", 5, "/ns/a\u{0}"), "/registry/g/p/").unwrap();
        assert_eq!(ok.0, "/registry/g/p/ns/a");
        let zero = decode_continue(&raw_token("meta.k8s.io/v1", 0, "a\u{0}"), "/p/").unwrap_err();
        assert!(zero.message.ends_with("incorrect encoded start resourceVersion (version meta.k8s.io/v1)"));
        let empty = decode_continue(&raw_token("meta.k8s.io/v1", 3, ""), "/p/").unwrap_err();
        assert!(empty.message.ends_with("encoded start key empty (version meta.k8s.io/v1)"));
        let version = decode_continue(&raw_token("v9", 3, "a\u{0}"), "/p/").unwrap_err();
        assert!(version.message.ends_with(r#"server does not recognize this encoded version "v9""#));
    }

    #[test]
    fn option_combinations_follow_validate_list_options() {
        let opts = ListOptions { resource_version_match: ResourceVersionMatch::Exact, ..Default::default() };
        let err = validate(&opts).unwrap_err();
        assert!(
            err.message.contains("resourceVersionMatch is forbidden unless resourceVersion is provided"),
            "{}",
            err.message
        );
        let opts = ListOptions {
            continue_token: "x".into(),
            resource_version: ResourceVersion::At(Revision::new(5)),
            ..Default::default()
        };
        assert!(validate(&opts).unwrap_err().message.contains("not allowed when using continue"));
    }
}

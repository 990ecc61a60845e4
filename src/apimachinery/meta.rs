//! Object metadata rules shared by definitions and custom resources:
//! server-set fields (uid, creationTimestamp, resourceVersion, generation),
//! reading labels and names out of JSON objects, resourceVersion parsing, and
//! the size limits of bodies and stored objects.

use std::collections::BTreeMap;

use rand::Rng;
use serde_json::{Map, Value};

use crate::error::{Error, FieldError, Result};
use crate::storage::Revision;

/// Whether objects of a kind live in namespaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Namespaced,
    Cluster,
}

/// The largest request body accepted, as in Kubernetes (3 MiB).
pub const MAX_BODY_BYTES: usize = 3 * 1024 * 1024;

/// Refuses a body over `MAX_BODY_BYTES` before any work is done on it.
pub fn check_body_size(body: &[u8]) -> Result<()> {
    if body.len() > MAX_BODY_BYTES {
        return Err(Error::too_large(format!("Request entity too large: limit is {MAX_BODY_BYTES}")));
    }
    Ok(())
}

/// The longest name an object can have: Kubernetes' names are DNS
/// subdomains (or labels, shorter), at most 253 characters.
pub const MAX_NAME_BYTES: usize = 253;

/// Refuses, before any lookup, a name no object can have because it is
/// longer than [`MAX_NAME_BYTES`]: `<Kind>.<group> "<name...>" is invalid:
/// metadata.name: Too long`, the name cut in the message.
pub fn check_request_name(group: &str, kind: &str, name: &str) -> Result<()> {
    if name.len() <= MAX_NAME_BYTES {
        return Ok(());
    }
    Err(Error::invalid(group, kind, name, vec![FieldError::too_long("metadata.name", MAX_NAME_BYTES)]))
}

/// Refuses the stored form of an object over `MAX_BODY_BYTES`, whatever
/// the write that produced it (an update, a patch, a status or scale write):
/// nothing over the limit is ever stored. The limit and the answer are a
/// request body's.
pub fn check_stored_size(stored: &[u8]) -> Result<()> {
    check_body_size(stored)
}

/// Characters generated names end with (no vowels, no look-alikes), as
/// Kubernetes' `names.SimpleNameGenerator`.
const NAME_ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
/// Longest prefix kept from `generateName`.
const MAX_GENERATE_PREFIX: usize = 58;

/// `metadata.generateName` plus five random characters.
pub fn generate_name(prefix: &str) -> String {
    let mut rng = rand::rng();
    let prefix: String = prefix.chars().take(MAX_GENERATE_PREFIX).collect();
    let suffix: String = (0..5).map(|_| NAME_ALPHABET[rng.random_range(0..NAME_ALPHABET.len())] as char).collect();
    format!("{prefix}{suffix}")
}

/// The finalizers of an object.
pub fn finalizers(obj: &Value) -> Vec<String> {
    obj.get("metadata")
        .and_then(|m| m.get("finalizers"))
        .and_then(Value::as_array)
        .map(|f| f.iter().filter_map(Value::as_str).map(String::from).collect())
        .unwrap_or_default()
}

/// Whether the object is being deleted.
pub fn deleting(obj: &Value) -> bool {
    obj.get("metadata").and_then(|m| m.get("deletionTimestamp")).is_some_and(|t| !t.is_null())
}

/// Marks an object as being deleted: deletionTimestamp, a zero grace
/// period, and a new generation (the first time only).
pub fn mark_deleting(obj: &mut Value) {
    let generation = generation(obj) + 1;
    let metadata = metadata_mut(obj);
    metadata.insert("deletionTimestamp".into(), Value::String(now_timestamp()));
    metadata.insert("deletionGracePeriodSeconds".into(), Value::from(0));
    metadata.insert("generation".into(), Value::from(generation));
}

/// The length of `value`'s compact JSON encoding, counted without building it.
pub fn encoded_size(value: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    serde_json::to_writer(&mut count, value).expect("JSON values serialize");
    count.0
}

/// Now, as Kubernetes writes timestamps (RFC 3339, seconds, UTC).
pub fn now_timestamp() -> String {
    jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// A fresh object uid.
pub fn new_uid() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// The `metadata` object of `obj`, created when missing.
pub fn metadata_mut(obj: &mut Value) -> &mut Map<String, Value> {
    let map = obj.as_object_mut().expect("objects are JSON objects");
    let meta = map.entry("metadata").or_insert_with(|| Value::Object(Map::new()));
    if !meta.is_object() {
        *meta = Value::Object(Map::new());
    }
    meta.as_object_mut().expect("metadata is an object")
}

/// A string field of `metadata`, or "".
pub fn meta_str<'a>(obj: &'a Value, field: &str) -> &'a str {
    obj.get("metadata").and_then(|m| m.get(field)).and_then(Value::as_str).unwrap_or("")
}

/// `metadata.labels` as a map (non-string values are skipped).
pub fn labels(obj: &Value) -> BTreeMap<String, String> {
    obj.get("metadata")
        .and_then(|m| m.get("labels"))
        .and_then(Value::as_object)
        .map(|l| l.iter().filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_string()))).collect())
        .unwrap_or_default()
}

/// Sets `metadata.resourceVersion` (it is never stored inside the JSON).
pub fn set_resource_version(obj: &mut Value, revision: Revision) {
    metadata_mut(obj).insert("resourceVersion".into(), Value::String(revision.to_string()));
}

/// Removes `metadata.resourceVersion` before an object is stored.
pub fn strip_resource_version(obj: &mut Value) {
    metadata_mut(obj).remove("resourceVersion");
}

/// Why `rv` is not a resourceVersion, worded as Go's `strconv.ParseUint`
/// (which Kubernetes parses them with): only decimal digits, no sign, no
/// spaces, at most `Revision::MAX`.
fn resource_version_problem(rv: &str) -> Option<String> {
    if rv.is_empty() || !rv.bytes().all(|b| b.is_ascii_digit()) {
        return Some(format!("strconv.ParseUint: parsing {rv:?}: invalid syntax"));
    }
    match rv.parse::<Revision>() {
        Ok(n) if n >= 0 => None,
        _ => Some(format!("strconv.ParseUint: parsing {rv:?}: value out of range")),
    }
}

/// Parses a resourceVersion given as a request option; empty is `None`.
/// Anything but decimal digits (`+5`, ` 5`, `-1`, `0x5`) is a BadRequest
/// naming the `resourceVersion` field, as Kubernetes answers a list.
pub fn parse_resource_version(rv: &str) -> Result<Option<Revision>> {
    if rv.is_empty() {
        return Ok(None);
    }
    match resource_version_problem(rv) {
        None => Ok(Some(rv.parse::<Revision>().expect("checked digits in range"))),
        Some(problem) => {
            let cause = FieldError::invalid("resourceVersion", rv, problem);
            let mut err = Error::bad_request(format!("invalid resource version: {cause}"));
            err.details.causes.push(cause);
            Err(err)
        }
    }
}

/// The problem with `metadata.resourceVersion` in a request body, if any:
/// not a string (a JSON number is not read as one, as Kubernetes' typed
/// metadata refuses it), or a string that is not a resourceVersion. Absent,
/// null and "" are fine.
pub fn check_resource_version_type(obj: &Value) -> Option<FieldError> {
    const FIELD: &str = "metadata.resourceVersion";
    match obj.get("metadata").and_then(|m| m.get("resourceVersion")) {
        None | Some(Value::Null) => None,
        Some(Value::String(rv)) if rv.is_empty() => None,
        Some(Value::String(rv)) => {
            resource_version_problem(rv).map(|problem| FieldError::invalid(FIELD, rv.as_str(), problem))
        }
        Some(other) => Some(FieldError::type_invalid(FIELD, other.clone(), "must be of type string")),
    }
}

/// The object an operation addresses, for error messages.
pub struct Subject<'a> {
    pub group: &'a str,
    pub resource: &'a str,
    pub name: &'a str,
}

/// Checks uid (empty: none) and resourceVersion preconditions against the
/// stored object, with Kubernetes' "Precondition failed" conflicts.
pub fn check_preconditions(
    subject: &Subject<'_>,
    uid: &str,
    stored_uid: &str,
    rv: Option<Revision>,
    stored_rv: Revision,
) -> Result<()> {
    let conflict = |why: String| Error::conflict(subject.group, subject.resource, subject.name, why);
    if !uid.is_empty() && uid != stored_uid {
        return Err(conflict(format!(
            "Precondition failed: UID in precondition: {uid}, UID in object meta: {stored_uid}"
        )));
    }
    if let Some(rv) = rv.filter(|rv| *rv != stored_rv) {
        return Err(conflict(format!(
            "Precondition failed: ResourceVersion in precondition: {rv}, ResourceVersion in object meta: {stored_rv}"
        )));
    }
    Ok(())
}

/// `metadata.generation`, or 0.
pub fn generation(obj: &Value) -> i64 {
    obj.get("metadata").and_then(|m| m.get("generation")).and_then(Value::as_i64).unwrap_or(0)
}

/// Checks `metadata.generateName` (as a name prefix: a trailing `-` is
/// masked) and `metadata.name` with `check`, which returns the problems
/// with a name, as Kubernetes' `ValidateObjectMeta`; a missing name is
/// Required (a generated one is set before this).
pub fn validate_name(obj: &Value, check: impl Fn(&str) -> Vec<String>) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let generate_name = meta_str(obj, "generateName");
    if !generate_name.is_empty() {
        for msg in check(&mask_trailing_dash(generate_name)) {
            errs.push(FieldError::invalid("metadata.generateName", generate_name, msg));
        }
    }
    let name = meta_str(obj, "name");
    if name.is_empty() {
        errs.push(FieldError::required("metadata.name", "name or generateName is required"));
        return errs;
    }
    errs.extend(check(name).into_iter().map(|msg| FieldError::invalid("metadata.name", name, msg)));
    errs
}

/// A name prefix as Kubernetes checks it (`maskTrailingDash`): a trailing
/// `-` and the character before it become `a`.
fn mask_trailing_dash(prefix: &str) -> String {
    match prefix.strip_suffix('-') {
        Some(rest) if !rest.is_empty() => {
            let mut chars = rest.chars();
            chars.next_back();
            format!("{}a", chars.as_str())
        }
        _ => prefix.to_string(),
    }
}

/// Server-owned metadata the client may not set, reset from `old` (update)
/// or cleared (create).
pub const SERVER_SET_METADATA: &[&str] =
    &["uid", "creationTimestamp", "generation", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"];

/// Copies the server-owned metadata of `old` into `obj` (or drops it from
/// `obj` when there is no old object).
pub fn keep_server_metadata(obj: &mut Value, old: Option<&Value>) {
    let old_meta = old.and_then(|o| o.get("metadata")).and_then(Value::as_object);
    let meta = metadata_mut(obj);
    for field in SERVER_SET_METADATA {
        match old_meta.and_then(|m| m.get(*field)) {
            Some(v) => {
                meta.insert((*field).to_string(), v.clone());
            }
            None => {
                meta.remove(*field);
            }
        }
    }
    meta.remove("managedFields");
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn generated_names_keep_the_prefix_and_add_five_characters() {
        let name = generate_name("web-");
        assert!(name.starts_with("web-") && name.len() == 9, "{name}");
        assert!(name[4..].bytes().all(|b| NAME_ALPHABET.contains(&b)));
        assert_eq!(generate_name(&"x".repeat(80)).len(), MAX_GENERATE_PREFIX + 5);
    }

    #[test]
    fn resource_versions_parse_like_kubernetes() {
        assert_eq!(parse_resource_version("").unwrap(), None);
        assert_eq!(parse_resource_version("42").unwrap(), Some(crate::storage::Revision::new(42)));
        assert!(parse_resource_version("abc").is_err());
        assert!(parse_resource_version("-1").is_err());
        assert_eq!(parse_resource_version("007").unwrap(), Some(crate::storage::Revision::new(7)));
        for bad in ["+5", " 5", "5 ", "0x5", "1e3", "５", "99999999999999999999"] {
            let err = parse_resource_version(bad).unwrap_err();
            assert_eq!(err.reason, crate::error::Reason::BadRequest, "{bad}");
            assert_eq!(err.details.causes[0].field, "resourceVersion", "{bad}");
        }
        assert_eq!(
            parse_resource_version("+5").unwrap_err().message,
            r#"invalid resource version: resourceVersion: Invalid value: "+5": strconv.ParseUint: parsing "+5": invalid syntax"#
        );
    }

    #[test]
    fn body_resource_versions_must_be_digit_strings() {
        assert_eq!(check_resource_version_type(&json!({})), None);
        assert_eq!(check_resource_version_type(&json!({"metadata": {"resourceVersion": null}})), None);
        assert_eq!(check_resource_version_type(&json!({"metadata": {"resourceVersion": "12"}})), None);
        let number = check_resource_version_type(&json!({"metadata": {"resourceVersion": 12}})).unwrap();
        assert_eq!(number.to_string(), "metadata.resourceVersion: Invalid value: 12: must be of type string");
        let plus = check_resource_version_type(&json!({"metadata": {"resourceVersion": "+12"}})).unwrap();
        assert_eq!(plus.field, "metadata.resourceVersion");
    }

    #[test]
    fn generate_name_is_checked_as_a_prefix() {
        let check = crate::apimachinery::dns::dns1123_subdomain;
        assert!(validate_name(&json!({"metadata": {"name": "a", "generateName": "web-"}}), check).is_empty());
        let long = "a".repeat(300);
        let errs = validate_name(&json!({"metadata": {"name": "a", "generateName": long}}), check);
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].field, "metadata.generateName");
        assert_eq!(errs[0].detail, "must be no more than 253 characters");
        assert_eq!(mask_trailing_dash("ab-"), "aa");
        assert_eq!(mask_trailing_dash("-"), "-");
    }

    #[test]
    fn sizes_are_counted_and_checked() {
        assert_eq!(encoded_size(&json!({"a": [1, "x"]})), r#"{"a":[1,"x"]}"#.len());
        assert!(check_stored_size(&vec![b' '; MAX_BODY_BYTES]).is_ok());
        let err = check_stored_size(&vec![b' '; MAX_BODY_BYTES + 1]).unwrap_err();
        assert_eq!(err.reason, crate::error::Reason::RequestEntityTooLarge);
        assert_eq!(err.message, "Request entity too large: limit is 3145728");
    }

    #[test]
    fn server_metadata_survives_updates_and_is_dropped_on_create() {
        let old = json!({"metadata": {"uid": "u1", "generation": 3, "creationTimestamp": "t"}});
        let mut new = json!({"metadata": {"uid": "forged", "labels": {"a": "b"}}});
        keep_server_metadata(&mut new, Some(&old));
        assert_eq!(new["metadata"]["uid"], "u1");
        assert_eq!(new["metadata"]["generation"], 3);
        assert_eq!(new["metadata"]["labels"]["a"], "b");
        let mut fresh = json!({"metadata": {"uid": "forged"}});
        keep_server_metadata(&mut fresh, None);
        assert!(fresh["metadata"].get("uid").is_none());
    }
}

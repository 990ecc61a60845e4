//! `/apis/...`: group and version discovery, and every resource endpoint
//! (the definitions' too, `apiextensions.k8s.io/v1/customresourcedefinitions`),
//! namespaced or not, with its status and scale subresources. This module
//! parses the path and routes it, with what the handlers share; the verb
//! table (`resources.rs`) reads the request, calls the domain and renders
//! the answer.

use axum::body::Body;
use axum::extract::State;
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use serde_json::{json, Value};

mod resources;

use super::codec::{failure_as, Output, Reply};
use super::discovery;
use super::query::Params;
use super::{lists, protobuf, Api};
use crate::apimachinery::list::ListPage;
use crate::apimachinery::options::WriteOptions;
use crate::apimachinery::patch::{self, PatchType};
use crate::error::Error;
use crate::resource::table::{Include, ListMeta, Shape};
use crate::resource::Ref;

/// What a path under `/apis` names.
pub(super) enum Target {
    Group(String),
    Version(String, String),
    Resources { r: Ref, sub: Option<String> },
}

/// `raw` split on its raw `/`, each segment percent-decoded; `None` when a
/// segment is not UTF-8 once decoded. Shared with `/api/` (`core.rs`).
pub(super) fn decoded_segments(raw: &str) -> Option<Vec<String>> {
    let decode = |segment| percent_encoding::percent_decode_str(segment).decode_utf8().ok().map(|d| d.into_owned());
    raw.split('/').map(decode).collect()
}

/// Whether every one of `segments` is a plain, non-empty path segment (a
/// name alone may hold a decoded `/`, to be refused as invalid).
pub(super) fn plain(segments: &[&str]) -> bool {
    segments.iter().all(|p| !p.is_empty() && !p.contains('/'))
}

/// The path under `/apis/` split on its raw `/` (an encoded `%2F` never
/// separates segments, so it cannot move a request to another namespace or
/// collection), each segment percent-decoded. An empty or invalid name is
/// refused as Kubernetes' storage refuses it; anything else unknown is 404.
fn parse(raw: &str) -> Result<Target, Error> {
    let unknown = || not_found(raw);
    let s = decoded_segments(raw).ok_or_else(unknown)?;
    let s: Vec<&str> = s.iter().map(String::as_str).collect();
    match s.as_slice() {
        [g] if plain(&[g]) => Ok(Target::Group(g.to_string())),
        [g, v] if plain(&[g, v]) => Ok(Target::Version(g.to_string(), v.to_string())),
        [g, v, "namespaces", ns, plural, rest @ ..] if plain(&[g, v, ns, plural]) => {
            resource(g, v, ns, plural, rest).ok_or_else(unknown)?
        }
        [g, v, plural, rest @ ..] if plain(&[g, v, plural]) => resource(g, v, "", plural, rest).ok_or_else(unknown)?,
        _ => Err(unknown()),
    }
}

/// A name from the path, checked as Kubernetes' `NamespaceKeyFunc` checks
/// it (`IsValidPathSegmentName`), with its messages.
fn path_name(name: &str) -> Result<String, Error> {
    if name.is_empty() {
        return Err(Error::bad_request("name must be provided"));
    }
    let problems: Vec<String> = if name == "." || name == ".." {
        vec![format!("may not be '{name}'")]
    } else {
        ["/", "%"].iter().filter(|bad| name.contains(*bad)).map(|bad| format!("may not contain '{bad}'")).collect()
    };
    if !problems.is_empty() {
        let name = crate::error::quoted(name);
        return Err(Error::bad_request(format!("Name parameter invalid: {name}: {}", problems.join(";"))));
    }
    Ok(name.to_string())
}

pub(super) fn resource(g: &str, v: &str, ns: &str, plural: &str, rest: &[&str]) -> Option<Result<Target, Error>> {
    let (name, sub) = match rest {
        [] => (String::new(), None),
        [name] => match path_name(name) {
            Ok(name) => (name, None),
            Err(err) => return Some(Err(err)),
        },
        [name, sub] if !sub.is_empty() && !sub.contains('/') => match path_name(name) {
            Ok(name) => (name, Some(sub.to_string())),
            Err(err) => return Some(Err(err)),
        },
        _ => return None,
    };
    let r = Ref { group: g.into(), version: v.into(), resource: plural.into(), namespace: ns.into(), name };
    Some(Ok(Target::Resources { r, sub }))
}

/// The patch type of a PATCH request's `Content-Type` (parameters dropped,
/// as Kubernetes' patch handler reads it), if the kind takes it
/// (`strategic`: strategic merge patch too, `patch::media_types`).
fn patch_type(headers: &HeaderMap, strategic: bool) -> Result<PatchType, Error> {
    let content_type = headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    let media = content_type.split(';').next().unwrap_or("");
    let accepted = patch::media_types(strategic);
    match patch::from_media_type(media) {
        Some(kind) if accepted.contains(&media) => Ok(kind),
        _ => Err(Error::unknown_media_type(accepted)),
    }
}

/// A write's options; without `fieldManager`, the manager is the
/// User-Agent's prefix, as Kubernetes' `prefixFromUserAgent`.
fn write_options(params: &Params, headers: &HeaderMap) -> Result<WriteOptions, Error> {
    let mut options = params.write_options()?;
    if options.field_manager.is_empty() {
        let agent = headers.get(axum::http::header::USER_AGENT).and_then(|v| v.to_str().ok()).unwrap_or("");
        options.field_manager = crate::apply::manager_from("", agent);
    }
    Ok(options)
}

/// A PATCH's body and options: an apply's YAML read as JSON, and its
/// `fieldManager` only as given (it is required).
fn patch_body(
    kind: PatchType,
    body: &[u8],
    params: &Params,
    headers: &HeaderMap,
) -> Result<(Vec<u8>, WriteOptions), Error> {
    match kind {
        PatchType::Apply => {
            crate::apimachinery::meta::check_body_size(body)?;
            Ok((super::codec::yaml_to_json(body)?, params.write_options()?))
        }
        _ => Ok((body.to_vec(), write_options(params, headers)?)),
    }
}

/// A patch's answer status: 201 when an apply made the object, as
/// Kubernetes' patch handler answers.
fn patched_code(written: &crate::apimachinery::options::Written) -> StatusCode {
    if written.created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    }
}

fn not_found(path: &str) -> Error {
    Error::no_resource(format_args!("/apis/{path}"), "")
}

pub(super) fn method_not_allowed(method: &Method) -> Error {
    Error::method_not_allowed(format!("the server does not allow this method on the requested resource ({method})"))
}

/// The entry point for everything under `/apis/`. Routes on the raw path.
/// An error is a `Status` in the encoding the client accepts (YAML too).
pub async fn handle(State(api): State<Api>, uri: Uri, method: Method, headers: HeaderMap, body: Body) -> Reply {
    let query = super::long_uri::raw_query(&headers, &uri);
    let output = Output::of(&headers);
    match route(api, uri, query, method, headers, body).await {
        Ok(response) => Ok(response),
        Err(failure) => Ok(failure_as(&failure.0, output)),
    }
}

async fn route(api: Api, uri: Uri, query: Option<String>, method: Method, headers: HeaderMap, body: Body) -> Reply {
    let path = uri.path().strip_prefix("/apis/").unwrap_or_default();
    serve(api, parse(path)?, query, method, headers, body).await
}

/// Serves what a path names (`/api/v1` paths too, parsed by `core`).
pub(super) async fn serve(
    api: Api,
    target: Target,
    query: Option<String>,
    method: Method,
    headers: HeaderMap,
    body: Body,
) -> Reply {
    let body = super::codec::read_body(body, api.limits.body_timeout).await?;
    let params = Params(query.map(|q| form_urlencoded::parse(q.as_bytes()).into_owned().collect()).unwrap_or_default());
    match target {
        Target::Group(g) if method == Method::GET => discovery::group(&api, &g, &headers),
        Target::Version(g, v) if method == Method::GET => discovery::resources(&api, &g, &v, &headers),
        Target::Group(_) | Target::Version(..) => Err(method_not_allowed(&method).into()),
        // A custom resource has no protobuf form, but its errors do: they
        // are Statuses, negotiated as any Status is.
        Target::Resources { r, sub } => {
            let deprecation = deprecation(&api, &r);
            let reply = protobuf::reply(
                protobuf::negotiated(&headers),
                resources::serve(&api, r, sub, &method, &params, &headers, &body).await,
            );
            Ok(warned(reply, Output::of(&headers), deprecation.as_deref()))
        }
    }
}

/// The deprecation warning of the version `r` names, if it is served and
/// deprecated.
fn deprecation(api: &Api, r: &Ref) -> Option<String> {
    let served = api.resources.served(&r.group, &r.version, &r.resource).ok()?;
    served.deprecation(&r.version).map(String::from)
}

/// The reply with a warning added, whatever it is (an error too, as
/// Kubernetes adds a deprecated version's warning to every response), an
/// error in the encoding the client accepts.
fn warned(reply: Reply, output: Output, warning: Option<&str>) -> axum::response::Response {
    let mut response = reply.unwrap_or_else(|failure| failure_as(&failure.0, output));
    if let Some(warning) = warning {
        super::codec::add_warnings(response.headers_mut(), &[warning.to_string()]);
    }
    response
}

/// How a Table asked for is written: its version from `Accept`, what each
/// row carries from `includeObject`.
fn table_shape(output: Output, params: &Params) -> Result<Option<Shape>, Error> {
    let Output::Table(api_version) = output else { return Ok(None) };
    Ok(Some(Shape { api_version, include: Include::parse(params.get("includeObject").unwrap_or(""))? }))
}

/// The status of a delete's answer: 200, or 202 when the object waits for
/// finalizers and the client asked for cascading deletion with
/// `orphanDependents: false` (Kubernetes keeps 200 otherwise, for old
/// clients).
fn delete_code(gone: bool, params: &Params, body: &[u8]) -> StatusCode {
    if !gone && params.orphan_dependents(body) == Some(false) {
        StatusCode::ACCEPTED
    } else {
        StatusCode::OK
    }
}

/// Kubernetes' 406 for a watch asked for in YAML: watches stream JSON only.
fn yaml_watch() -> Error {
    Error::not_acceptable(
        "only the following media types are accepted: application/json, application/json;stream=watch",
    )
}

fn list_meta(page: &ListPage) -> ListMeta {
    ListMeta {
        resource_version: page.revision.to_string(),
        continue_token: page.continue_token.clone(),
        remaining: page.remaining.filter(|n| *n > 0),
    }
}

/// A list's `metadata`.
fn list_metadata<T>(page: &ListPage<T>) -> Value {
    lists::metadata(page.revision, &page.continue_token, page.remaining)
}

/// A list envelope: `kind` is the list kind, `metadata` the list's.
fn list_json(api_version: &str, kind: &str, page: &ListPage) -> Value {
    json!({"apiVersion": api_version, "kind": kind, "metadata": list_metadata(page), "items": page.items})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked_as_kubernetes_checks_path_segments() {
        assert_eq!(path_name("o1").unwrap(), "o1");
        assert_eq!(path_name("").unwrap_err().message, "name must be provided");
        assert_eq!(path_name("..").unwrap_err().message, r#"Name parameter invalid: "..": may not be '..'"#);
        assert_eq!(
            path_name("a/%").unwrap_err().message,
            r#"Name parameter invalid: "a/%": may not contain '/';may not contain '%'"#
        );
    }

    #[test]
    fn an_encoded_slash_never_separates_segments() {
        assert!(parse("example.com/v1/namespaces%2Fteam%2Fwidgets%2Fo1").is_err());
        match parse("example.com/v1/namespaces/team/widgets/%6F1").unwrap() {
            Target::Resources { r, sub: None } => assert_eq!((r.namespace.as_str(), r.name.as_str()), ("team", "o1")),
            _ => panic!("not a resource"),
        }
    }
}

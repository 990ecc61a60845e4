//! `/apis/...`: group and version discovery, the definitions endpoint
//! (`apiextensions.k8s.io/v1/customresourcedefinitions`) and every custom
//! resource endpoint, namespaced or not, with its status and scale
//! subresources. Each handler reads the request, calls the domain and
//! renders the answer.

use axum::body::{Body, Bytes};
use axum::extract::{Path, RawQuery, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderMap, Method, StatusCode};
use serde_json::{json, Value};

use super::codec::{json_body, respond, Output, Reply};
use super::discovery::{self, CRD_GROUP};
use super::query::Params;
use super::{watch, Api};
use crate::apimachinery::list::ListPage;
use crate::apimachinery::meta::MAX_BODY_BYTES;
use crate::apimachinery::patch::PatchType;
use crate::error::Error;
use crate::resource::table::{definitions_table, table, ListMeta};
use crate::resource::{Endpoint, Ref};

/// What a path under `/apis` names.
enum Target {
    Group(String),
    Version(String, String),
    Definitions { name: Option<String>, status: bool },
    Resources { r: Ref, sub: Option<String> },
}

fn parse(path: &str) -> Option<Target> {
    let s: Vec<&str> = path.trim_matches('/').split('/').collect();
    let owned = |v: &str| v.to_string();
    match s.as_slice() {
        [g] => Some(Target::Group(owned(g))),
        [g, v] => Some(Target::Version(owned(g), owned(v))),
        [g, "v1", "customresourcedefinitions", rest @ ..] if *g == CRD_GROUP => match rest {
            [] => Some(Target::Definitions { name: None, status: false }),
            [name] => Some(Target::Definitions { name: Some(owned(name)), status: false }),
            [name, "status"] => Some(Target::Definitions { name: Some(owned(name)), status: true }),
            _ => None,
        },
        [g, v, "namespaces", ns, plural, rest @ ..] => resource(g, v, ns, plural, rest),
        [g, v, plural, rest @ ..] => resource(g, v, "", plural, rest),
        _ => None,
    }
}

fn resource(g: &str, v: &str, ns: &str, plural: &str, rest: &[&str]) -> Option<Target> {
    let (name, sub) = match rest {
        [] => ("", None),
        [name] => (*name, None),
        [name, sub] => (*name, Some(sub.to_string())),
        _ => return None,
    };
    let r =
        Ref { group: g.into(), version: v.into(), resource: plural.into(), namespace: ns.into(), name: name.into() };
    Some(Target::Resources { r, sub })
}

/// The patch type of a PATCH request's `Content-Type`.
fn patch_type(headers: &HeaderMap) -> Result<PatchType, Error> {
    let content_type = headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    match content_type.split(';').next().unwrap_or("").trim() {
        "application/merge-patch+json" => Ok(PatchType::Merge),
        "application/json-patch+json" => Ok(PatchType::Json),
        "application/strategic-merge-patch+json" => Ok(PatchType::StrategicMerge),
        "application/apply-patch+yaml" => Ok(PatchType::Apply),
        other => Err(Error::unsupported_media_type(format!(
            "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml (got \"{other}\")"
        ))),
    }
}

fn not_found(path: &str) -> Error {
    Error::no_resource(format_args!("/apis/{path}"), "")
}

fn method_not_allowed(method: &Method) -> Error {
    Error::method_not_allowed(format!("the server does not allow this method on the requested resource ({method})"))
}

/// The entry point for everything under `/apis/`.
pub async fn handle(
    State(api): State<Api>,
    Path(path): Path<String>,
    RawQuery(query): RawQuery,
    method: Method,
    headers: HeaderMap,
    body: Body,
) -> Reply {
    // One byte over the limit is enough for the domain to refuse the body
    // with Kubernetes' RequestEntityTooLarge; reading stops there.
    let body: Bytes = axum::body::to_bytes(body, MAX_BODY_BYTES + 1)
        .await
        .map_err(|_| Error::too_large(format!("Request entity too large: limit is {MAX_BODY_BYTES}")))?;
    let params = Params(query.map(|q| form_urlencoded::parse(q.as_bytes()).into_owned().collect()).unwrap_or_default());
    match parse(&path).ok_or_else(|| not_found(&path))? {
        Target::Group(g) if method == Method::GET => discovery::group(&api, &g, &headers),
        Target::Version(g, v) if method == Method::GET => discovery::resources(&api, &g, &v, &headers),
        Target::Group(_) | Target::Version(..) => Err(method_not_allowed(&method).into()),
        Target::Definitions { name, status } => {
            definitions(&api, name, status, &method, &params, &headers, &body).await
        }
        Target::Resources { r, sub } => resources(&api, r, sub, &method, &params, &headers, &body).await,
    }
}

fn list_meta(page: &ListPage) -> ListMeta {
    ListMeta {
        resource_version: page.revision.to_string(),
        continue_token: page.continue_token.clone(),
        remaining: page.remaining.filter(|n| *n > 0),
    }
}

/// A list envelope: `kind` is the list kind, `metadata` the list's.
fn list_json(api_version: &str, kind: &str, page: &ListPage) -> Value {
    let mut metadata = json!({"resourceVersion": page.revision.to_string()});
    if !page.continue_token.is_empty() {
        metadata["continue"] = json!(page.continue_token);
    }
    if let Some(remaining) = page.remaining.filter(|n| *n > 0) {
        metadata["remainingItemCount"] = json!(remaining);
    }
    json!({"apiVersion": api_version, "kind": kind, "metadata": metadata, "items": page.items})
}

async fn definitions(
    api: &Api,
    name: Option<String>,
    status: bool,
    method: &Method,
    params: &Params,
    headers: &HeaderMap,
    body: &[u8],
) -> Reply {
    let output = Output::of(headers);
    let registry = &api.registry;
    let ok = |value: &Value, warnings: &[String]| respond(StatusCode::OK, value, output, warnings);
    match (method, name) {
        (&Method::GET, None) if params.watch() => {
            let events = registry.watch(params.watch_options()?).await;
            Ok(watch::stream(events, (output == Output::Table).then(watch::definition_tables)))
        }
        (&Method::GET, None) => {
            let page = registry.list(&params.list_options()?).await?;
            if output == Output::Table {
                return Ok(ok(&definitions_table(&page.items, Some(&list_meta(&page)), jiff::Timestamp::now()), &[]));
            }
            Ok(ok(&list_json("apiextensions.k8s.io/v1", "CustomResourceDefinitionList", &page), &[]))
        }
        (&Method::POST, None) => {
            let written = registry.create(&json_body(headers, body)?, &params.write_options()?).await?;
            Ok(respond(StatusCode::CREATED, &written.object, output, &written.warnings))
        }
        (&Method::GET, Some(name)) if output == Output::Table => {
            Ok(ok(&definitions_table(&[registry.get(&name)?], None, jiff::Timestamp::now()), &[]))
        }
        (&Method::GET, Some(name)) => Ok(ok(&registry.get(&name)?, &[])),
        (&Method::PUT, Some(_)) if status => {
            Ok(ok(&registry.update_status(&json_body(headers, body)?, &params.write_options()?).await?, &[]))
        }
        (&Method::PUT, Some(_)) => {
            let written = registry.update(&json_body(headers, body)?, &params.write_options()?).await?;
            Ok(ok(&written.object, &written.warnings))
        }
        (&Method::PATCH, Some(name)) => {
            let endpoint = if status { Endpoint::Status } else { Endpoint::Main };
            let written = registry.patch(&name, endpoint, patch_type(headers)?, body, &params.write_options()?).await?;
            Ok(ok(&written.object, &written.warnings))
        }
        (&Method::DELETE, Some(name)) if !status => {
            let (object, gone) = registry.delete(&name, &params.delete_options(body)?).await?;
            Ok(respond(if gone { StatusCode::OK } else { StatusCode::ACCEPTED }, &object, output, &[]))
        }
        _ => Err(method_not_allowed(method).into()),
    }
}

async fn resources(
    api: &Api,
    r: Ref,
    sub: Option<String>,
    method: &Method,
    params: &Params,
    headers: &HeaderMap,
    body: &[u8],
) -> Reply {
    let output = Output::of(headers);
    let served = api.resources.served(&r.group, &r.version, &r.resource)?;
    // A table of `objects` when one was asked for.
    let tabled = |objects: &[Value], list: Option<&ListMeta>| {
        (output == Output::Table).then(|| table(&served, &r.version, objects, list, jiff::Timestamp::now()))
    };
    let ok = |value: &Value, warnings: &[String]| respond(StatusCode::OK, value, output, warnings);
    let resources = &api.resources;
    match (method, r.name.is_empty(), sub.as_deref()) {
        (&Method::GET, true, None) if params.watch() => {
            let events = resources.watch(&r, params.watch_options()?).await;
            let tabulate = (output == Output::Table).then(|| watch::resource_tables(served.clone(), r.version.clone()));
            Ok(watch::stream(events, tabulate))
        }
        (&Method::GET, true, None) => {
            let page = resources.list(&r, &params.list_options()?).await?;
            let body = tabled(&page.items, Some(&list_meta(&page)))
                .unwrap_or_else(|| list_json(&served.api_version(&r.version), &served.list_kind, &page));
            Ok(ok(&body, &[]))
        }
        (&Method::POST, true, None) => {
            let written = resources.create(&r, &json_body(headers, body)?, &params.write_options()?).await?;
            Ok(respond(StatusCode::CREATED, &written.object, output, &written.warnings))
        }
        (&Method::DELETE, true, None) => {
            let items = resources.delete_collection(&r, &params.list_options()?, &params.delete_options(body)?).await?;
            let page = ListPage { items, revision: 0, continue_token: String::new(), remaining: None };
            let mut list = list_json(&served.api_version(&r.version), &served.list_kind, &page);
            list["metadata"] = json!({});
            Ok(ok(&list, &[]))
        }
        (&Method::GET, false, None | Some("status")) => {
            let found = resources.get_at_least(&r, params.get("resourceVersion").unwrap_or("")).await?;
            if sub.is_some() && !served.has_status(&r.version) {
                return Err(not_found(&format!("{}/{}/status", r.resource, r.name)).into());
            }
            let body = tabled(std::slice::from_ref(&found), None).unwrap_or(found);
            Ok(ok(&body, &[]))
        }
        (&Method::GET, false, Some("scale")) => Ok(ok(&resources.get_scale(&r)?, &[])),
        (&Method::PUT, false, None) => {
            let written = resources.update(&r, &json_body(headers, body)?, &params.write_options()?).await?;
            Ok(ok(&written.object, &written.warnings))
        }
        (&Method::PUT, false, Some("status")) => {
            let written = resources.update_status(&r, &json_body(headers, body)?, &params.write_options()?).await?;
            Ok(ok(&written.object, &written.warnings))
        }
        (&Method::PUT, false, Some("scale")) => {
            Ok(ok(&resources.update_scale(&r, &json_body(headers, body)?, &params.write_options()?).await?, &[]))
        }
        (&Method::PATCH, false, None | Some("status")) => {
            let endpoint = if sub.is_some() { Endpoint::Status } else { Endpoint::Main };
            let options = params.write_options()?;
            let written = resources.patch(&r, endpoint, patch_type(headers)?, body, &options).await?;
            Ok(ok(&written.object, &written.warnings))
        }
        (&Method::PATCH, false, Some("scale")) => {
            Ok(ok(&resources.patch_scale(&r, patch_type(headers)?, body, &params.write_options()?).await?, &[]))
        }
        (&Method::DELETE, false, None) => {
            let deleted = resources.delete(&r, &params.delete_options(body)?).await?;
            let code = if deleted.gone { StatusCode::OK } else { StatusCode::ACCEPTED };
            Ok(respond(code, &deleted.object, output, &[]))
        }
        (_, _, Some(other)) if !matches!(other, "status" | "scale") => {
            Err(not_found(&format!("{}/{}/{other}", r.resource, r.name)).into())
        }
        _ => Err(method_not_allowed(method).into()),
    }
}

//! Aggregated discovery (`application/json;g=apidiscovery.k8s.io;v=v2;as=
//! APIGroupDiscoveryList`, KEP-3352): `/api` and `/apis` answer every group
//! with its versions and resources in one document when the client asks
//! for it first, as kubectl and client-go do; otherwise the legacy
//! documents. Built from the legacy resource lists, so both agree.

use axum::http::header::{ACCEPT, CONTENT_TYPE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Map, Value};

/// The media type of an aggregated discovery answer.
pub const MEDIA_TYPE: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

/// Whether the first media range of `Accept` the gateway can serve is the
/// aggregated discovery document (v2; v2beta1 is answered as v2).
pub fn asked(headers: &HeaderMap) -> bool {
    let accept = headers.get(ACCEPT).and_then(|v| v.to_str().ok()).unwrap_or("");
    for range in accept.split(',') {
        let params: Vec<&str> = range.split(';').map(str::trim).collect();
        let has = |p: &str| params.iter().any(|q| q.eq_ignore_ascii_case(p));
        if has("as=APIGroupDiscoveryList") && has("g=apidiscovery.k8s.io") && (has("v=v2") || has("v=v2beta1")) {
            return true;
        }
        if params.iter().any(|p| p.starts_with("as=")) {
            continue;
        }
        match params[0] {
            "application/json" | "application/yaml" | "*/*" | "application/*" | "" => return false,
            _ => {}
        }
    }
    false
}

/// One group's entry: `name` ("" for the core group) and, per version, its
/// legacy `APIResource` objects.
pub fn group(name: &str, versions: &[(String, Vec<Value>)]) -> Value {
    let versions: Vec<Value> = versions
        .iter()
        .map(|(version, legacy)| json!({"version": version, "resources": resources(name, version, legacy), "freshness": "Current"}))
        .collect();
    let metadata = if name.is_empty() {
        json!({"creationTimestamp": null})
    } else {
        json!({"name": name, "creationTimestamp": null})
    };
    json!({"metadata": metadata, "versions": versions})
}

/// Legacy `APIResource`s as `APIResourceDiscovery`s: a resource with its
/// subresources (`<plural>/<sub>`) inside it.
fn resources(group: &str, version: &str, legacy: &[Value]) -> Vec<Value> {
    let kind_of = |r: &Value| {
        json!({
            "group": r.get("group").and_then(Value::as_str).unwrap_or(group),
            "version": r.get("version").and_then(Value::as_str).unwrap_or(version),
            "kind": r["kind"],
        })
    };
    let mut out: Vec<Value> = Vec::new();
    for r in legacy {
        let name = r["name"].as_str().unwrap_or_default();
        match name.split_once('/') {
            None => {
                let mut entry = Map::new();
                entry.insert("resource".into(), json!(name));
                entry.insert("responseKind".into(), kind_of(r));
                entry.insert("scope".into(), json!(if r["namespaced"] == true { "Namespaced" } else { "Cluster" }));
                entry.insert("singularResource".into(), r["singularName"].clone());
                entry.insert("verbs".into(), r["verbs"].clone());
                for key in ["shortNames", "categories"] {
                    if let Some(v) = r.get(key) {
                        entry.insert(key.into(), v.clone());
                    }
                }
                out.push(Value::Object(entry));
            }
            Some((parent, sub)) => {
                let sub = json!({"subresource": sub, "responseKind": kind_of(r), "verbs": r["verbs"]});
                if let Some(p) = out.iter_mut().find(|p| p["resource"] == parent) {
                    match p.get_mut("subresources").and_then(Value::as_array_mut) {
                        Some(list) => list.push(sub),
                        None => p["subresources"] = json!([sub]),
                    }
                }
            }
        }
    }
    out
}

/// The answer: an `APIGroupDiscoveryList` of `groups`.
pub fn respond(groups: Vec<Value>) -> Response {
    let list = json!({"kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2", "metadata": {}, "items": groups});
    let body = serde_json::to_vec(&list).expect("JSON values serialize");
    let mut response = (StatusCode::OK, body).into_response();
    response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static(MEDIA_TYPE));
    response.headers_mut().insert("Vary", HeaderValue::from_static("Accept"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubectl_s_accept_asks_for_it() {
        let mut headers = HeaderMap::new();
        headers.insert(ACCEPT, HeaderValue::from_static("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"));
        assert!(asked(&headers));
        headers.insert(ACCEPT, HeaderValue::from_static("application/json"));
        assert!(!asked(&headers));
    }

    #[test]
    fn subresources_nest_in_their_resource() {
        let legacy = vec![
            json!({"name": "namespaces", "singularName": "namespace", "namespaced": false, "kind": "Namespace", "verbs": ["get"], "shortNames": ["ns"]}),
            json!({"name": "namespaces/status", "singularName": "", "namespaced": false, "kind": "Namespace", "verbs": ["get"]}),
        ];
        let out = resources("", "v1", &legacy);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0]["scope"], "Cluster");
        assert_eq!(out[0]["subresources"][0]["subresource"], "status");
        assert_eq!(out[0]["responseKind"], json!({"group": "", "version": "v1", "kind": "Namespace"}));
    }
}

//! OpenAPI documents built from the served versions' schemas: `/openapi/v2`
//! and `/openapi/v3` (an index, and one document per group version), so
//! `kubectl explain` finds each kind's schema and kubectl sees that PATCH
//! takes `fieldValidation` (server-side field validation).

use axum::extract::{Path, State};
use axum::http::header::ACCEPT;
use axum::http::{HeaderMap, StatusCode};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_json::{json, Map, Value};

use super::codec::{respond, Output, Reply};
use super::discovery::CRD_GROUP;
use super::Api;
use crate::error::Error;
use crate::registry::{definition, discovery};

/// One served kind at one version, with its schema.
struct Kind {
    group: String,
    version: String,
    kind: String,
    plural: String,
    namespaced: bool,
    schema: Value,
}

/// The definitions kind itself, loosely typed: enough for kubectl to find
/// its GVK and its PATCH parameters.
fn definitions_kind() -> Kind {
    Kind {
        group: CRD_GROUP.into(),
        version: "v1".into(),
        kind: "CustomResourceDefinition".into(),
        plural: "customresourcedefinitions".into(),
        namespaced: false,
        schema: json!({
            "description": "CustomResourceDefinition represents a resource that should be exposed on the API server.",
            "type": "object",
            "x-kubernetes-preserve-unknown-fields": true,
            "x-kubernetes-group-version-kind": [{"group": CRD_GROUP, "version": "v1", "kind": "CustomResourceDefinition"}],
        }),
    }
}

fn kinds(crds: &[CustomResourceDefinition]) -> Vec<Kind> {
    let served: Vec<String> = discovery::groups(crds).into_iter().map(|g| g.name).collect();
    let mut out = vec![definitions_kind()];
    for crd in crds.iter().filter(|c| served.contains(&c.spec.group)) {
        let Some(names) = crd.status.as_ref().and_then(|s| s.accepted_names.as_ref()) else { continue };
        for v in crd.spec.versions.iter().filter(|v| v.served) {
            let mut schema = v
                .schema
                .as_ref()
                .and_then(|s| s.open_api_v3_schema.as_ref())
                .and_then(|s| serde_json::to_value(s).ok())
                .unwrap_or_else(|| json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}));
            definition::whole_numbers(&mut schema);
            let properties = schema.as_object_mut().map(|o| o.entry("properties").or_insert_with(|| json!({})));
            if let Some(Value::Object(properties)) = properties {
                properties.entry("apiVersion").or_insert_with(|| json!({"type": "string", "description": "APIVersion defines the versioned schema of this representation of an object."}));
                properties.entry("kind").or_insert_with(|| json!({"type": "string", "description": "Kind is a string value representing the REST resource this object represents."}));
                properties
                    .entry("metadata")
                    .or_insert_with(|| json!({"type": "object", "description": "Standard object's metadata."}));
            }
            schema["x-kubernetes-group-version-kind"] =
                json!([{"group": crd.spec.group, "version": v.name, "kind": names.kind}]);
            out.push(Kind {
                group: crd.spec.group.clone(),
                version: v.name.clone(),
                kind: names.kind.clone(),
                plural: names.plural.clone(),
                namespaced: crd.spec.scope == "Namespaced",
                schema,
            });
        }
    }
    out
}

/// Kubernetes' definition name: the group reversed, version, kind.
fn definition_name(k: &Kind) -> String {
    let reversed: Vec<&str> = k.group.split('.').rev().collect();
    format!("{}.{}.{}", reversed.join("."), k.version, k.kind)
}

/// The item path of a kind, and a PATCH operation that names its GVK and
/// takes the write parameters.
fn paths(k: &Kind, reference: &str) -> Map<String, Value> {
    let base = match k.namespaced {
        true => format!("/apis/{}/{}/namespaces/{{namespace}}/{}", k.group, k.version, k.plural),
        false => format!("/apis/{}/{}/{}", k.group, k.version, k.plural),
    };
    let gvk = json!({"group": k.group, "version": k.version, "kind": k.kind});
    let query = |name: &str| json!({"name": name, "in": "query", "schema": {"type": "string"}, "uniqueItems": true});
    let ok = json!({"200": {"description": "OK", "content": {"application/json": {"schema": {"$ref": reference}}}}});
    let mut out = Map::new();
    out.insert(
        format!("{base}/{{name}}"),
        json!({
            "get": {"x-kubernetes-group-version-kind": gvk, "x-kubernetes-action": "get", "responses": ok},
            "patch": {
                "x-kubernetes-group-version-kind": gvk, "x-kubernetes-action": "patch",
                "parameters": [query("dryRun"), query("fieldManager"), query("fieldValidation")],
                "responses": ok,
            },
        }),
    );
    out
}

/// The schemas of `kinds` by definition name, and their paths, which refer
/// to the schemas under `reference_prefix`.
fn document(kinds: &[Kind], reference_prefix: &str) -> (Map<String, Value>, Map<String, Value>) {
    let mut schemas = Map::new();
    let mut all_paths = Map::new();
    for k in kinds {
        let name = definition_name(k);
        all_paths.extend(paths(k, &format!("{reference_prefix}{name}")));
        schemas.insert(name, k.schema.clone());
    }
    (schemas, all_paths)
}

pub async fn v2(State(api): State<Api>, headers: HeaderMap) -> Reply {
    let accept = headers.get(ACCEPT).and_then(|v| v.to_str().ok()).unwrap_or("");
    if accept.contains("protobuf") && !accept.contains("json") && !accept.contains("*/*") {
        return Err(Error::not_acceptable("only application/json is supported for /openapi/v2").into());
    }
    let (definitions, all_paths) = document(&kinds(&api.registry.all()?), "#/definitions/");
    let doc = json!({
        "swagger": "2.0",
        "info": {"title": "crdstore", "version": env!("CARGO_PKG_VERSION")},
        "paths": all_paths,
        "definitions": definitions,
    });
    Ok(respond(StatusCode::OK, &doc, Output::of(&headers), &[]))
}

pub async fn v3_index(State(api): State<Api>, headers: HeaderMap) -> Reply {
    let mut paths = Map::new();
    paths.insert(
        format!("apis/{CRD_GROUP}/v1"),
        json!({"serverRelativeURL": format!("/openapi/v3/apis/{CRD_GROUP}/v1")}),
    );
    for g in discovery::groups(&api.registry.all()?) {
        for v in &g.versions {
            let key = format!("apis/{}/{v}", g.name);
            paths.insert(key.clone(), json!({"serverRelativeURL": format!("/openapi/v3/{key}")}));
        }
    }
    Ok(respond(StatusCode::OK, &json!({"paths": paths}), Output::of(&headers), &[]))
}

pub async fn v3_group_version(
    State(api): State<Api>,
    Path((group, version)): Path<(String, String)>,
    headers: HeaderMap,
) -> Reply {
    let kinds: Vec<Kind> =
        kinds(&api.registry.all()?).into_iter().filter(|k| k.group == group && k.version == version).collect();
    if kinds.is_empty() {
        return Err(Error::not_found_message(format!("no OpenAPI document for {group}/{version}")).into());
    }
    let (schemas, all_paths) = document(&kinds, "#/components/schemas/");
    let doc = json!({
        "openapi": "3.0.0",
        "info": {"title": "crdstore", "version": env!("CARGO_PKG_VERSION")},
        "paths": all_paths,
        "components": {"schemas": schemas},
    });
    Ok(respond(StatusCode::OK, &doc, Output::of(&headers), &[]))
}

//! OpenAPI documents built from the served versions' schemas: `/openapi/v2`
//! and `/openapi/v3` (an index, and one document per group version), so
//! `kubectl explain` finds each kind's schema and kubectl sees that PATCH
//! takes `fieldValidation` (server-side field validation). A field guarded
//! by a feature gate carries `x-crdstore-feature-gate` (name, stage,
//! enabled) and a line in its description; the definitions kind describes
//! `spec.customFeatureGates`.

use axum::extract::{Path, State};
use axum::http::header::ACCEPT;
use axum::http::{HeaderMap, StatusCode};
use serde_json::{json, Map, Value};

use super::codec::{respond, Output, Reply};
use super::discovery::CRD_GROUP;
use super::Api;
use crate::error::Error;
use crate::gates::CustomFeatureGates;
use crate::registry::definition::Definition;
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

/// The definitions kind itself: its GVK, its PATCH parameters, and
/// `spec.customFeatureGates` described in full (the rest of the spec and
/// status is left open), so `kubectl explain crd.spec.customFeatureGates`
/// explains it.
fn definitions_kind() -> Kind {
    let string = |d: &str| json!({"type": "string", "description": d});
    let gate = json!({
        "type": "object",
        "description": "A feature gate and the fields of the storage version it guards.",
        "required": ["name", "preRelease", "fieldPaths"],
        "properties": {
            "name": string("The gate's name, unique within the definition: a letter, then letters and digits."),
            "preRelease": {"type": "string", "enum": crate::gates::STAGES,
                "description": "The gate's stage: alpha, beta, stable or deprecated."},
            "default": {"type": "boolean", "description": "Whether the gate is on when enabled is unset. alpha defaults to and may only default to false; stable defaults to and may only default to true; beta and deprecated must state it."},
            "enabled": {"type": "boolean", "description": "Turns the gate on or off; unset falls back to default. A stable gate is on whatever this says. A change takes effect on the next write and never rewrites stored objects."},
            "deprecatedWarning": string("The warning a write that sets one of the gate's fields gets; only on a deprecated gate."),
            "fieldPaths": {"type": "array", "items": {"type": "string"},
                "description": "Simple dot paths (.spec.replicas) of fields of the storage version, not under metadata, apiVersion or kind, each guarded by one gate. A field of a disabled gate is dropped on write unless the stored object has it; then the stored value is kept."},
        },
    });
    let gates = json!({
        "type": "object",
        "description": "Field-level feature gates of the custom resources, the same for all versions (a crdstore extension).",
        "properties": {
            "component": string("The component the gates belong to, shown when gates are listed."),
            "featureGates": {"type": "array", "items": gate, "description": "The gates."},
        },
    });
    Kind {
        group: CRD_GROUP.into(),
        version: "v1".into(),
        kind: "CustomResourceDefinition".into(),
        plural: "customresourcedefinitions".into(),
        namespaced: false,
        schema: json!({
            "description": "CustomResourceDefinition represents a resource that should be exposed on the API server.",
            "type": "object",
            "properties": {
                "apiVersion": string("APIVersion defines the versioned schema of this representation of an object."),
                "kind": string("Kind is a string value representing the REST resource this object represents."),
                "metadata": {"type": "object", "description": "Standard object's metadata.", "x-kubernetes-preserve-unknown-fields": true},
                "spec": {
                    "type": "object",
                    "description": "spec describes how the user wants the resources to appear",
                    "x-kubernetes-preserve-unknown-fields": true,
                    "properties": {
                        "group": string("group is the API group of the defined custom resource."),
                        "scope": string("scope indicates whether the defined custom resource is cluster- or namespace-scoped."),
                        "names": {"type": "object", "description": "names specify the resource and kind names for the custom resource.", "x-kubernetes-preserve-unknown-fields": true},
                        "versions": {"type": "array", "description": "versions is the list of all API versions of the defined custom resource.", "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
                        "customFeatureGates": gates,
                    },
                },
                "status": {"type": "object", "description": "status indicates the actual state of the CustomResourceDefinition", "x-kubernetes-preserve-unknown-fields": true},
            },
            "x-kubernetes-group-version-kind": [{"group": CRD_GROUP, "version": "v1", "kind": "CustomResourceDefinition"}],
        }),
    }
}

/// `storagemigration.k8s.io/v1` `StorageVersionMigration`.
fn migrations_kind() -> Kind {
    use super::storagemigration::{schema, GROUP, RESOURCE, VERSION};
    Kind {
        group: GROUP.into(),
        version: VERSION.into(),
        kind: crate::migration::record::KIND.into(),
        plural: RESOURCE.into(),
        namespaced: false,
        schema: schema(),
    }
}

/// Marks each field a gate guards: `x-crdstore-feature-gate` and a line in
/// its description. Paths that do not resolve in `schema` are skipped.
fn mark_gates(schema: &mut Value, gates: &CustomFeatureGates) {
    for gate in &gates.feature_gates {
        for path in &gate.field_paths {
            let node = crate::gates::segments(path)
                .iter()
                .try_fold(&mut *schema, |node, s| node.get_mut("properties")?.get_mut(s.as_str()));
            let Some(Value::Object(node)) = node else { continue };
            let state = if gate.effective() { "enabled" } else { "disabled" };
            node.insert(
                "x-crdstore-feature-gate".into(),
                json!({"name": gate.name, "preRelease": gate.pre_release, "enabled": gate.effective()}),
            );
            let line = format!("Feature gate: {} ({}, {state}).", gate.name, gate.pre_release);
            let description = match node.get("description").and_then(Value::as_str) {
                Some(d) if !d.is_empty() => format!("{d}\n\n{line}"),
                _ => line,
            };
            node.insert("description".into(), Value::String(description));
        }
    }
}

fn kinds(crds: &[Definition]) -> Vec<Kind> {
    let plain: Vec<_> = crds.iter().map(|d| d.crd.clone()).collect();
    let served: Vec<String> = discovery::groups(&plain).into_iter().map(|g| g.name).collect();
    let mut out = vec![definitions_kind(), migrations_kind()];
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
            if let Some(gates) = &crd.gates {
                mark_gates(&mut schema, gates);
            }
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
    let (definitions, all_paths) = document(&kinds(&api.registry.definitions()?), "#/definitions/");
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
    let migrations = format!("apis/{}/{}", super::storagemigration::GROUP, super::storagemigration::VERSION);
    paths.insert(migrations.clone(), json!({"serverRelativeURL": format!("/openapi/v3/{migrations}")}));
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
        kinds(&api.registry.definitions()?).into_iter().filter(|k| k.group == group && k.version == version).collect();
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

//! OpenAPI documents built from the served versions' schemas: `/openapi/v2`
//! and `/openapi/v3` (an index, and one document per group version), so
//! `kubectl explain` finds each kind's schema and kubectl sees that PATCH
//! takes `fieldValidation` (server-side field validation). A field guarded
//! by a feature gate carries `x-crdstore-feature-gate` (name, stage,
//! enabled) and a line in its description; the definitions kind describes
//! `spec.customFeatureGates`. Every document carries, as Kubernetes' does,
//! `ObjectMeta` and the meta types it references and the schema of
//! `CustomResourceDefinition` itself, from k8s-openapi's schemas (so
//! `kubectl explain widgets.metadata.labels` and `crd.spec.names` work);
//! each kind's `metadata` refers to `ObjectMeta`, and a version's
//! `selectableFields` are its `x-kubernetes-selectable-fields`.

use axum::extract::{Path, State};
use axum::http::header::ACCEPT;
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse as _;
use serde_json::{json, Map, Value};

use super::codec::{respond, Output, Reply};
use super::discovery::CRD_GROUP;
use super::Api;
use crate::error::Error;
use crate::gates::CustomFeatureGates;
use crate::registry::definition::Definition;
use crate::registry::{definition, discovery};

#[path = "openapi_pb.rs"]
mod pb;

/// Where a document's schemas are, and how references point to them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Spec {
    V2,
    V3,
}

impl Spec {
    fn prefix(self) -> &'static str {
        match self {
            Spec::V2 => "#/definitions/",
            Spec::V3 => "#/components/schemas/",
        }
    }
}

const OBJECT_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
const CRD_SCHEMA: &str = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition";
const CRD_SPEC_SCHEMA: &str = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionSpec";
const CRD_VERSION_SCHEMA: &str =
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionVersion";

/// The schemas Kubernetes publishes beside the kinds: `ObjectMeta` with
/// the meta types it references, and `CustomResourceDefinition` with its
/// types (its spec also describing `customFeatureGates`), generated from
/// k8s-openapi with references in `spec`'s form.
fn builtin_schemas(spec: Spec) -> Map<String, Value> {
    // Generated once per form: they never change.
    static V2: std::sync::LazyLock<Map<String, Value>> = std::sync::LazyLock::new(|| generate_builtin(Spec::V2));
    static V3: std::sync::LazyLock<Map<String, Value>> = std::sync::LazyLock::new(|| generate_builtin(Spec::V3));
    match spec {
        Spec::V2 => V2.clone(),
        Spec::V3 => V3.clone(),
    }
}

fn generate_builtin(spec: Spec) -> Map<String, Value> {
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
    let mut generator = match spec {
        Spec::V3 => schemars::generate::SchemaSettings::openapi3().into_generator(),
        Spec::V2 => {
            // Swagger 2.0 keeps a description beside a reference, as
            // Kubernetes' own document does.
            let mut settings = schemars::generate::SchemaSettings::draft07();
            settings.transforms.clear();
            settings.into_generator()
        }
    };
    generator.subschema_for::<ObjectMeta>();
    generator.subschema_for::<CustomResourceDefinition>();
    let mut schemas = generator.take_definitions(true);
    if let Some(Value::Object(properties)) = schemas.get_mut(CRD_SPEC_SCHEMA).and_then(|s| s.get_mut("properties")) {
        properties.insert("customFeatureGates".into(), custom_feature_gates());
    }
    if let Some(Value::Object(properties)) = schemas.get_mut(CRD_VERSION_SCHEMA).and_then(|s| s.get_mut("properties")) {
        properties.insert("conversion".into(), version_conversion());
    }
    if let Some(Value::Object(crd)) = schemas.get_mut(CRD_SCHEMA) {
        crd.insert(
            "x-kubernetes-group-version-kind".into(),
            json!([{"group": CRD_GROUP, "version": "v1", "kind": "CustomResourceDefinition"}]),
        );
    }
    schemas
}

/// `spec.customFeatureGates`, described in full.
fn custom_feature_gates() -> Value {
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
    json!({
        "type": "object",
        "description": "Field-level feature gates of the custom resources, the same for all versions (a crdstore extension).",
        "properties": {
            "component": string("The component the gates belong to, shown when gates are listed."),
            "featureGates": {"type": "array", "items": gate, "description": "The gates."},
        },
    })
}

/// One served kind at one version, with its schema.
struct Kind {
    group: String,
    version: String,
    kind: String,
    plural: String,
    namespaced: bool,
    schema: Value,
}

/// The definitions kind itself: its GVK and its PATCH parameters; its
/// schema is `CRD_SCHEMA`, among the built-in schemas.
fn definitions_kind() -> Kind {
    Kind {
        group: CRD_GROUP.into(),
        version: "v1".into(),
        kind: "CustomResourceDefinition".into(),
        plural: "customresourcedefinitions".into(),
        namespaced: false,
        schema: Value::Null,
    }
}

/// `spec.versions[i].conversion`, the declarative conversion of a version
/// (a crdstore extension; with `spec.conversion.strategy: Declarative`).
fn version_conversion() -> Value {
    let string = |d: &str| json!({"type": "string", "description": d});
    let rename = json!({
        "type": "object",
        "description": "The field at from (in this version) is the field at to (in the target version); to under another parent is a move.",
        "required": ["from", "to"],
        "properties": {
            "from": string("A field path of this version, such as .spec.a."),
            "to": string("A field path of the target version, such as .spec.b.c."),
        },
    });
    let rule = json!({
        "type": "object",
        "description": "One conversion rule: exactly one of rename, default or cel.",
        "properties": {
            "rename": rename,
            "default": {
                "type": "object",
                "description": "A field only the target version has: set to value on the way there; on the way back a value other than value is kept in the annotation conversion.crdstore.io/<targetVersion>.",
                "required": ["path", "value"],
                "properties": {
                    "path": string("A field path of the target version that this version does not have."),
                    "value": {"description": "The value the field gets.", "x-kubernetes-preserve-unknown-fields": true},
                },
            },
            "cel": {
                "type": "object",
                "description": "A value computed each way by CEL expressions, self being the field read.",
                "required": ["from", "to", "forward", "backward"],
                "properties": {
                    "from": string("A field path of this version."),
                    "to": string("A field path of the target version."),
                    "forward": string("The value at to, computed from self, the value at from."),
                    "backward": string("The value at from, computed from self, the value at to."),
                },
            },
        },
    });
    let declaration = json!({
        "type": "object",
        "description": "How this version becomes the target version: a rename, a list of rules, or both (the rename first). The reverse is derived from it.",
        "properties": {
            "rename": rename,
            "rules": {"type": "array", "items": rule, "description": "The rules, applied in order (in reverse order on the way back)."},
        },
    });
    json!({
        "type": "object",
        "description": "How this version converts to others (a crdstore extension, with spec.conversion.strategy Declarative). Fields the target version cannot hold are kept in the annotation conversion.crdstore.io/<thisVersion> and restored on the way back.",
        "properties": {
            "declarative": {
                "type": "object",
                "description": "By target version: how this version becomes it. Declare each conversion once; the conversion graph over the versions has no loop and reaches every served version.",
                "additionalProperties": declaration,
            },
        },
    })
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

/// The `metadata` of a kind: a reference to `ObjectMeta`, as Kubernetes
/// publishes it whatever the schema says of it.
fn object_meta(spec: Spec) -> Value {
    json!({
        "$ref": format!("{}{OBJECT_META}", spec.prefix()),
        "description": "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
    })
}

fn kinds(crds: &[Definition], spec: Spec) -> Vec<Kind> {
    let plain: Vec<_> = crds.iter().map(|d| d.crd.clone()).collect();
    let served: Vec<String> = discovery::groups(&plain).into_iter().map(|g| g.name).collect();
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
            if let Some(gates) = &crd.gates {
                mark_gates(&mut schema, gates);
            }
            let properties = schema.as_object_mut().map(|o| o.entry("properties").or_insert_with(|| json!({})));
            if let Some(Value::Object(properties)) = properties {
                properties.entry("apiVersion").or_insert_with(|| json!({"type": "string", "description": "APIVersion defines the versioned schema of this representation of an object."}));
                properties.entry("kind").or_insert_with(|| json!({"type": "string", "description": "Kind is a string value representing the REST resource this object represents."}));
                properties.insert("metadata".into(), object_meta(spec));
            }
            let selectable: Vec<Value> = v
                .selectable_fields
                .iter()
                .flatten()
                .map(|f| json!({"fieldPath": f.json_path.strip_prefix('.').unwrap_or(&f.json_path)}))
                .collect();
            if !selectable.is_empty() {
                schema["x-kubernetes-selectable-fields"] = Value::Array(selectable);
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

/// Kubernetes' definition name: the group reversed, version, kind (the
/// definitions kind's is k8s-openapi's).
fn definition_name(k: &Kind) -> String {
    if k.group == CRD_GROUP && k.kind == "CustomResourceDefinition" {
        return CRD_SCHEMA.into();
    }
    // The built-in kinds keep Kubernetes' names (io.k8s.api.core.v1.Namespace).
    if let Some(short) = crate::builtin::definitions().iter().find(|d| d.spec.group == k.group).map(|d| {
        if d.spec.group.is_empty() { "core" } else { d.spec.group.split('.').next().unwrap_or_default() }.to_string()
    }) {
        return format!("io.k8s.api.{short}.{}.{}", k.version, k.kind);
    }
    let reversed: Vec<&str> = k.group.split('.').rev().collect();
    format!("{}.{}.{}", reversed.join("."), k.version, k.kind)
}

/// The item path of a kind, and a PATCH operation that names its GVK and
/// takes the write parameters, in `spec`'s form (Swagger 2.0 gives a query
/// parameter's type and a response's schema directly).
fn paths(k: &Kind, reference: &str, spec: Spec) -> Map<String, Value> {
    let root = if k.group.is_empty() { "/api".to_string() } else { format!("/apis/{}", k.group) };
    let base = match k.namespaced {
        true => format!("{root}/{}/namespaces/{{namespace}}/{}", k.version, k.plural),
        false => format!("{root}/{}/{}", k.version, k.plural),
    };
    let gvk = json!({"group": k.group, "version": k.version, "kind": k.kind});
    let query = |name: &str| match spec {
        Spec::V2 => json!({"name": name, "in": "query", "type": "string", "uniqueItems": true}),
        Spec::V3 => json!({"name": name, "in": "query", "schema": {"type": "string"}, "uniqueItems": true}),
    };
    let ok = match spec {
        Spec::V2 => json!({"200": {"description": "OK", "schema": {"$ref": reference}}}),
        Spec::V3 => {
            json!({"200": {"description": "OK", "content": {"application/json": {"schema": {"$ref": reference}}}}})
        }
    };
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

/// The schemas of `kinds` by definition name with the built-in schemas,
/// and their paths, which refer to the schemas in `spec`'s form.
fn document(kinds: &[Kind], spec: Spec) -> (Map<String, Value>, Map<String, Value>) {
    let mut schemas = builtin_schemas(spec);
    let mut all_paths = Map::new();
    for k in kinds {
        let name = definition_name(k);
        all_paths.extend(paths(k, &format!("{}{name}", spec.prefix()), spec));
        if !k.schema.is_null() {
            schemas.insert(name, k.schema.clone());
        }
    }
    (schemas, all_paths)
}

/// What an Accept header chooses for `/openapi/v2`, as kube-openapi's
/// handler negotiates it: the clauses by quality (the first of equal ones
/// first), the first that names gnostic's protobuf (either spelling) or
/// JSON (`*/*`, `application/*`; YAML too, as crdstore serves it) wins.
/// `None` when nothing acceptable is named and some protobuf is (406).
fn v2_protobuf(accept: &str) -> Option<bool> {
    let mut clauses: Vec<(f32, &str)> = accept
        .split(',')
        .map(|clause| {
            let mut parts = clause.split(';').map(str::trim);
            let media = parts.next().unwrap_or("");
            let q = parts.find_map(|p| p.strip_prefix("q=")).and_then(|q| q.parse().ok()).unwrap_or(1.0);
            (q, media)
        })
        .filter(|(_, media)| !media.is_empty())
        .collect();
    clauses.sort_by(|a, b| b.0.total_cmp(&a.0));
    for (q, media) in clauses {
        if q <= 0.0 {
            continue;
        }
        if pb::MEDIA_TYPES.contains(&media) {
            return Some(true);
        }
        if matches!(media, "application/json" | "application/yaml" | "*/*" | "application/*") {
            return Some(false);
        }
    }
    (!accept.contains("protobuf")).then_some(false)
}

pub async fn v2(State(api): State<Api>, headers: HeaderMap) -> Reply {
    let accept = headers.get(ACCEPT).and_then(|v| v.to_str().ok()).unwrap_or("");
    let Some(protobuf) = v2_protobuf(accept) else {
        return Err(Error::not_acceptable(format!(
            "only application/json and {} are supported for /openapi/v2",
            pb::MEDIA_TYPES[1]
        ))
        .into());
    };
    let (definitions, all_paths) = document(&kinds(&with_builtins(&api)?, Spec::V2), Spec::V2);
    let doc = json!({
        "swagger": "2.0",
        "info": {"title": "crdstore", "version": env!("CARGO_PKG_VERSION")},
        "paths": all_paths,
        "definitions": definitions,
    });
    if protobuf {
        use prost::Message as _;
        let body = pb::document(&doc).encode_to_vec();
        return Ok(([(axum::http::header::CONTENT_TYPE, pb::MEDIA_TYPES[1])], body).into_response());
    }
    Ok(respond(StatusCode::OK, &doc, Output::of(&headers), &[]))
}

pub async fn v3_index(State(api): State<Api>, headers: HeaderMap) -> Reply {
    let mut paths = Map::new();
    paths.insert(
        format!("apis/{CRD_GROUP}/v1"),
        json!({"serverRelativeURL": format!("/openapi/v3/apis/{CRD_GROUP}/v1")}),
    );
    let all: Vec<_> = with_builtins(&api)?.into_iter().map(|d| d.crd).collect();
    for g in discovery::groups(&all) {
        for v in &g.versions {
            let key = if g.name.is_empty() { format!("api/{v}") } else { format!("apis/{}/{v}", g.name) };
            paths.insert(key.clone(), json!({"serverRelativeURL": format!("/openapi/v3/{key}")}));
        }
    }
    Ok(respond(StatusCode::OK, &json!({"paths": paths}), Output::of(&headers), &[]))
}

/// The stored definitions and the built-in kinds.
fn with_builtins(api: &Api) -> Result<Vec<Definition>, Error> {
    let mut all = crate::builtin::definitions();
    all.extend(api.registry.definitions()?);
    Ok(all)
}

/// `/openapi/v3/api/<version>`: the core group's document.
pub async fn v3_core(state: State<Api>, Path(version): Path<String>, headers: HeaderMap) -> Reply {
    v3_group_version(state, Path((String::new(), version)), headers).await
}

pub async fn v3_group_version(
    State(api): State<Api>,
    Path((group, version)): Path<(String, String)>,
    headers: HeaderMap,
) -> Reply {
    let kinds: Vec<Kind> = kinds(&with_builtins(&api)?, Spec::V3)
        .into_iter()
        .filter(|k| k.group == group && k.version == version)
        .collect();
    if kinds.is_empty() {
        return Err(Error::not_found_message(format!("no OpenAPI document for {group}/{version}")).into());
    }
    let (schemas, all_paths) = document(&kinds, Spec::V3);
    let doc = json!({
        "openapi": "3.0.0",
        "info": {"title": "crdstore", "version": env!("CARGO_PKG_VERSION")},
        "paths": all_paths,
        "components": {"schemas": schemas},
    });
    Ok(respond(StatusCode::OK, &doc, Output::of(&headers), &[]))
}

#[cfg(test)]
mod tests {
    #[test]
    fn accept_negotiates_as_kube_openapi() {
        let (pb, old) = (super::pb::MEDIA_TYPES[0], super::pb::MEDIA_TYPES[1]);
        for (accept, want) in [
            ("", Some(false)),
            ("*/*", Some(false)),
            (pb, Some(true)),
            (old, Some(true)),
            (&format!("application/json, {pb}"), Some(false)),
            (&format!("{pb}, application/json"), Some(true)),
            (&format!("{pb}; q=0.5, application/json"), Some(false)),
            ("application/vnd.kubernetes.protobuf", None),
        ] {
            assert_eq!(super::v2_protobuf(accept), want, "{accept}");
        }
    }
}

//! `storagemigration.k8s.io/v1` `storageversionmigrations`: Kubernetes'
//! `StorageVersionMigration` over crdstore's migrations, so `kubectl create
//! -f svm.yaml`, `kubectl get storageversionmigrations` and `kubectl wait
//! --for=condition=Succeeded` drive them. Create starts a migration of
//! `spec.resource`; get and list show `status.conditions` (Running,
//! Succeeded, Failed) and `status.resourceVersion`; delete forgets one.

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, Method, StatusCode};
use serde_json::{json, Value};

use super::codec::{json_body, respond, Output, Reply};
use super::Api;
use crate::error::Error;
use crate::migration::{record, Migration};
use crate::resource::table::{definitions_table, ListMeta, Shape};

/// The group, version and resource served here.
pub const GROUP: &str = crate::storage::keys::MIGRATIONS_GROUP;
pub const VERSION: &str = "v1";
pub const RESOURCE: &str = crate::storage::keys::MIGRATIONS_RESOURCE;

/// The resource as discovery lists it.
pub fn discovery_resources() -> Vec<Value> {
    vec![
        json!({
            "name": RESOURCE, "singularName": "storageversionmigration", "namespaced": false,
            "kind": record::KIND, "verbs": ["create", "delete", "get", "list"],
        }),
        json!({
            "name": format!("{RESOURCE}/status"), "singularName": "", "namespaced": false,
            "kind": record::KIND, "verbs": ["get"],
        }),
    ]
}

/// The kind's OpenAPI schema, as Kubernetes publishes it (in short).
pub fn schema() -> Value {
    let string = |d: &str| json!({"type": "string", "description": d});
    json!({
        "description": "StorageVersionMigration represents a migration of stored data to the latest storage version.",
        "type": "object",
        "properties": {
            "apiVersion": string("APIVersion defines the versioned schema of this representation of an object."),
            "kind": string("Kind is a string value representing the REST resource this object represents."),
            "metadata": {"type": "object", "description": "Standard object metadata.", "x-kubernetes-preserve-unknown-fields": true},
            "spec": {
                "type": "object",
                "description": "Specification of the migration.",
                "required": ["resource"],
                "properties": {
                    "resource": {
                        "type": "object",
                        "description": "The resource that is being migrated. Immutable.",
                        "required": ["group", "resource"],
                        "properties": {"group": string("The group of the resource."), "resource": string("The resource (plural name).")},
                    },
                },
            },
            "status": {
                "type": "object",
                "description": "Status of the migration.",
                "properties": {
                    "conditions": {"type": "array", "description": "The latest available observations of the migration's current state.",
                        "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
                    "resourceVersion": string("The resourceVersion of the resource when the migration started."),
                },
            },
        },
        "x-kubernetes-group-version-kind": [{"group": GROUP, "version": VERSION, "kind": record::KIND}],
    })
}

fn shown(m: &Migration) -> Value {
    m.record.to_kubernetes(m.revision)
}

/// `.../storageversionmigrations`: list and create.
pub async fn collection(State(api): State<Api>, method: Method, headers: HeaderMap, body: Body) -> Reply {
    let output = Output::of(&headers);
    match method {
        Method::GET => {
            let items: Vec<Value> = api.migrations.list()?.iter().map(shown).collect();
            let revision = api.migrations.list_revision().to_string();
            if let Output::Table(api_version) = output {
                let meta = ListMeta { resource_version: revision, continue_token: String::new(), remaining: None };
                return Ok(respond(
                    StatusCode::OK,
                    &definitions_table(
                        &items,
                        Some(&meta),
                        jiff::Timestamp::now(),
                        Shape { api_version, ..Shape::default() },
                    ),
                    output,
                    &[],
                ));
            }
            let list = json!({
                "apiVersion": record::API_VERSION, "kind": "StorageVersionMigrationList",
                "metadata": {"resourceVersion": revision}, "items": items,
            });
            Ok(respond(StatusCode::OK, &list, output, &[]))
        }
        Method::POST => {
            let body = json_body(&headers, &super::codec::read_body(body, api.limits.body_timeout).await?).await?;
            let obj: Value = serde_json::from_slice(&body)
                .map_err(|e| Error::bad_request(format!("the request body is not valid JSON: {e}")))?;
            let kind = obj["kind"].as_str().unwrap_or(record::KIND);
            let api_version = obj["apiVersion"].as_str().unwrap_or(record::API_VERSION);
            if kind != record::KIND || api_version != record::API_VERSION {
                return Err(Error::bad_request(format!(
                    "the object provided is unrecognized (must be of type {} in {}): apiVersion {api_version:?}, kind {kind:?}",
                    record::KIND,
                    record::API_VERSION
                ))
                .into());
            }
            let name = obj["metadata"]["name"].as_str().unwrap_or("");
            let name = match (name, obj["metadata"]["generateName"].as_str()) {
                ("", Some(prefix)) => crate::apimachinery::meta::generate_name(prefix),
                (name, _) => name.to_string(),
            };
            if name.is_empty() {
                return Err(Error::invalid(
                    GROUP,
                    record::KIND,
                    "",
                    vec![crate::error::FieldError::required("metadata.name", "name or generateName is required")],
                )
                .into());
            }
            let resource = &obj["spec"]["resource"];
            let group = resource["group"].as_str().unwrap_or("");
            let plural = resource["resource"].as_str().unwrap_or("");
            let started = api.migrations.start(&name, group, plural).await?;
            Ok(respond(StatusCode::CREATED, &shown(&started), output, &[]))
        }
        _ => Err(method_not_allowed(&method).into()),
    }
}

/// `.../storageversionmigrations/<name>` and its `/status`: get and delete.
pub async fn item(State(api): State<Api>, Path(name): Path<String>, method: Method, headers: HeaderMap) -> Reply {
    object(&api, &name, &method, &headers, false).await
}

pub async fn status(State(api): State<Api>, Path(name): Path<String>, method: Method, headers: HeaderMap) -> Reply {
    object(&api, &name, &method, &headers, true).await
}

async fn object(api: &Api, name: &str, method: &Method, headers: &HeaderMap, status: bool) -> Reply {
    let output = Output::of(headers);
    match *method {
        Method::GET => {
            let found = shown(&api.migrations.get(name)?);
            if let Output::Table(api_version) = output {
                return Ok(respond(
                    StatusCode::OK,
                    &definitions_table(
                        &[found],
                        None,
                        jiff::Timestamp::now(),
                        Shape { api_version, ..Shape::default() },
                    ),
                    output,
                    &[],
                ));
            }
            Ok(respond(StatusCode::OK, &found, output, &[]))
        }
        Method::DELETE if !status => {
            let last = api.migrations.delete(name).await?;
            let body = json!({
                "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                "details": {"name": name, "group": GROUP, "kind": RESOURCE, "uid": last.record.uid},
            });
            Ok(respond(StatusCode::OK, &body, output, &[]))
        }
        _ => Err(method_not_allowed(method).into()),
    }
}

fn method_not_allowed(method: &Method) -> Error {
    Error::method_not_allowed(format!("the server does not allow this method on the requested resource ({method})"))
}

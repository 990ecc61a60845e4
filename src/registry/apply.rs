//! Server-side apply of definitions (`kubectl apply --server-side -f
//! crd.yaml`) and the managed-fields phase of their other writes. A
//! definition is typed by `definition_schema`, the list and map types of
//! apiextensions v1's `+listType`/`+listMapKey` markers (`versions` atomic,
//! `status.conditions` keyed by `type`), with ObjectMeta's for its metadata.

use std::sync::OnceLock;

use serde_json::{json, Value};

use super::{Registry, GROUP, RESOURCE};
use crate::apimachinery::options::{WriteOptions, Written};
use crate::apimachinery::strategy::retry;
use crate::apimachinery::strategy::Endpoint;
use crate::apply::{self, FieldManager, Tracking, Ty};
use crate::error::{Error, Reason, Result};
use crate::schema::Schema;

pub use crate::apply::{check_field_manager, check_patch_options};

fn field_manager(endpoint: Endpoint) -> FieldManager<'static> {
    let status = endpoint == Endpoint::Status;
    FieldManager {
        ty: Ty::root(Some(definition_schema())),
        api_version: format!("{GROUP}/v1"),
        kind: "CustomResourceDefinition".into(),
        subresource: if status { "status".into() } else { String::new() },
        reset: apply::reset_fields(true, status),
        now: apply::now(),
    }
}

/// The typed schema of a CustomResourceDefinition as the generated
/// OpenAPI of k8s.io/apiextensions-apiserver's v1 types marks it: lists are
/// atomic unless marked (`versions`, `additionalPrinterColumns`,
/// `selectableFields`, `shortNames`, `categories`,
/// `conversionReviewVersions` and `storedVersions` are `+listType=atomic`;
/// `status.conditions` is `+listType=map` keyed by `type`), structs are
/// granular. The items of `versions` are left untyped: the list is owned
/// whole, so nothing below it is tracked on its own.
pub fn definition_schema() -> &'static Schema {
    static SCHEMA: OnceLock<Schema> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        let s = json!({"type": "string"});
        let strings = json!({"type": "array", "items": s, "x-kubernetes-list-type": "atomic"});
        let atomic = json!({"type": "array", "x-kubernetes-list-type": "atomic",
            "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}});
        let names = json!({"type": "object", "properties": {
            "plural": s, "singular": s, "shortNames": strings, "kind": s, "listKind": s, "categories": strings}});
        let service = json!({"type": "object", "properties": {
            "namespace": s, "name": s, "path": s, "port": {"type": "integer"}}});
        let conversion = json!({"type": "object", "properties": {
            "strategy": s,
            "webhook": {"type": "object", "properties": {
                "clientConfig": {"type": "object", "properties": {"url": s, "service": service, "caBundle": s}},
                "conversionReviewVersions": strings}}}});
        let condition = json!({"type": "object", "properties": {
            "type": s, "status": s, "lastTransitionTime": s, "reason": s, "message": s}});
        let definition = json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {
                "group": s, "names": names, "scope": s, "versions": atomic, "conversion": conversion,
                "preserveUnknownFields": {"type": "boolean"}}},
            "status": {"type": "object", "properties": {
                "conditions": {"type": "array", "items": condition,
                    "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"]},
                "acceptedNames": names,
                "storedVersions": strings}}}});
        Schema::compile(&definition).expect("the definition schema compiles")
    })
}

/// How a definition write records its managedFields.
pub fn tracking(endpoint: Endpoint, options: &WriteOptions, applied: bool) -> Tracking<'static> {
    match applied {
        true => Tracking::Applied,
        false => Tracking::Update { fm: field_manager(endpoint), manager: options.field_manager.clone() },
    }
}

impl Registry {
    /// Applies a definition's configuration (a PATCH of type Apply);
    /// creates it when absent (`Written::created`).
    pub async fn apply(&self, name: &str, endpoint: Endpoint, patch: &[u8], options: &WriteOptions) -> Result<Written> {
        check_patch_options(crate::apimachinery::patch::PatchType::Apply, options)?;
        crate::apimachinery::meta::check_body_size(patch)?;
        let (config, _) = crate::apimachinery::decode::object(patch)?;
        if crate::apimachinery::meta::meta_str(&config, "name") != name {
            return Err(Error::bad_request("the name of the object does not match the name on the URL"));
        }
        let fm = field_manager(endpoint);
        retry(
            || async {
                let current = match self.get(name) {
                    Ok(current) => current,
                    Err(e) if e.reason == Reason::NotFound && endpoint == Endpoint::Main => {
                        let merged = fm.apply(None, &config, &options.field_manager, options.force)?;
                        let body = to_vec(&merged)?;
                        return self.create_tracked(&body, options, true).await.map(|w| Some(w.made(true)));
                    }
                    Err(e) => return Err(e),
                };
                let merged = fm.apply(Some(&current), &config, &options.field_manager, options.force)?;
                let pinned = config.pointer("/metadata/resourceVersion").is_some();
                let body = to_vec(&merged)?;
                match self.replace(&body, endpoint, options, true).await {
                    Err(e) if e.reason == Reason::Conflict && !pinned && e.details.causes.is_empty() => Ok(None),
                    result => result.map(Some),
                }
            },
            || Error::stale(GROUP, RESOURCE, name),
        )
        .await
    }
}

fn to_vec(v: &Value) -> Result<Vec<u8>> {
    serde_json::to_vec(v).map_err(|e| Error::internal(e.to_string()))
}

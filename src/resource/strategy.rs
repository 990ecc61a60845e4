//! The strategy of custom resources, as Kubernetes' rest strategies: what a
//! create or an update may set, what the server sets (`prepare_*`, which
//! mutate), and what makes them invalid (`validate_*`, which do not). Also
//! the body checks that come first and the stored form of an object.

use rand::Rng;
use serde_json::{Map, Value};

use super::served::Served;
use crate::apimachinery::dns;
use crate::apimachinery::meta;
use crate::error::{Error, FieldError, Result};
use crate::storage::KeyValue;

/// Characters generated names end with (no vowels, no look-alikes), as
/// Kubernetes' `names.SimpleNameGenerator`.
const NAME_ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
/// Longest prefix kept from `generateName`.
const MAX_GENERATE_PREFIX: usize = 58;

/// A request's address, as the transports give it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ref {
    pub group: String,
    pub version: String,
    pub resource: String,
    pub namespace: String,
    pub name: String,
}

/// `metadata.name` plus five random characters.
pub fn generate_name(prefix: &str) -> String {
    let mut rng = rand::thread_rng();
    let prefix: String = prefix.chars().take(MAX_GENERATE_PREFIX).collect();
    let suffix: String = (0..5).map(|_| NAME_ALPHABET[rng.gen_range(0..NAME_ALPHABET.len())] as char).collect();
    format!("{prefix}{suffix}")
}

/// Parses a request body into a JSON object, refusing oversized bodies and
/// anything that is not an object; also returns the paths of fields the
/// body repeats (for `fieldValidation`).
pub fn parse_body(body: &[u8]) -> Result<(Value, Vec<String>)> {
    meta::check_body_size(body)?;
    let (value, duplicates) = crate::apimachinery::decode::parse(body)
        .map_err(|e| Error::bad_request(format!("the request body is not valid JSON: {e}")))?;
    if !value.is_object() {
        return Err(Error::bad_request("the request body must be a JSON object"));
    }
    Ok((value, duplicates))
}

/// The checks of apiVersion, kind, name and namespace in a body against the
/// request, as Kubernetes' handlers make them.
pub fn check_identity(served: &Served, r: &Ref, obj: &Value, creating: bool) -> Result<()> {
    let api_version = obj.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let kind = obj.get("kind").and_then(Value::as_str).unwrap_or("");
    if api_version.is_empty() {
        return Err(Error::bad_request("Object 'apiVersion' is missing in the request body"));
    }
    if kind.is_empty() {
        return Err(Error::bad_request("Object 'Kind' is missing in the request body"));
    }
    let expected = served.api_version(&r.version);
    if api_version != expected {
        return Err(Error::bad_request(format!(
            "the API version in the data ({api_version}) does not match the expected API version ({expected})"
        )));
    }
    let name = meta::meta_str(obj, "name");
    if kind != served.kind {
        return Err(invalid(served, name, vec![FieldError::invalid("kind", kind, format!("must be {}", served.kind))]));
    }
    let namespace = meta::meta_str(obj, "namespace");
    if served.namespaced() && !namespace.is_empty() && namespace != r.namespace {
        return Err(Error::bad_request(
            "the namespace of the provided object does not match the namespace sent on the request",
        ));
    }
    if !creating && name != r.name {
        return Err(Error::bad_request(format!(
            "the name of the object ({name}) does not match the name on the URL ({})",
            r.name
        )));
    }
    Ok(())
}

/// An Invalid error about an object of this resource.
pub fn invalid(served: &Served, name: &str, causes: Vec<FieldError>) -> Error {
    Error::invalid(&served.group, &served.kind, name, causes)
}

/// Checks `metadata.labels` or `metadata.annotations`: a map of strings
/// with qualified-name keys (and, for labels, valid label values).
fn validate_labels(obj: &Value, field: &str, errs: &mut Vec<FieldError>) {
    let path = format!("metadata.{field}");
    let Some(map) = obj.get("metadata").and_then(|m| m.get(field)) else { return };
    let Some(map) = map.as_object() else {
        errs.push(FieldError::type_invalid(path, map.clone(), "must be a map of strings"));
        return;
    };
    for (key, value) in map {
        let Some(value) = value.as_str() else {
            errs.push(FieldError::type_invalid(format!("{path}.{key}"), value.clone(), "must be a string"));
            continue;
        };
        for problem in dns::qualified_name(key) {
            errs.push(FieldError::invalid(path.clone(), key.as_str(), problem));
        }
        if field == "labels" {
            for problem in dns::label_value(value) {
                errs.push(FieldError::invalid(path.clone(), value, problem));
            }
        }
    }
}

/// The metadata rules every write checks: name, namespace, labels,
/// annotations, finalizers.
pub fn validate_metadata(served: &Served, obj: &Value) -> Vec<FieldError> {
    let mut errs = meta::validate_name(obj, dns::dns1123_subdomain);
    let namespace = meta::meta_str(obj, "namespace");
    if served.namespaced() {
        for problem in dns::dns1123_label(namespace) {
            errs.push(FieldError::invalid("metadata.namespace", namespace, problem));
        }
    }
    validate_labels(obj, "labels", &mut errs);
    validate_labels(obj, "annotations", &mut errs);
    if let Some(finalizers) = obj.get("metadata").and_then(|m| m.get("finalizers")) {
        match finalizers.as_array() {
            Some(items) => {
                for (i, f) in items.iter().enumerate() {
                    if !f.is_string() {
                        errs.push(FieldError::type_invalid(
                            format!("metadata.finalizers[{i}]"),
                            f.clone(),
                            "must be a string",
                        ));
                    }
                }
            }
            None => errs.push(FieldError::type_invalid(
                "metadata.finalizers",
                finalizers.clone(),
                "must be a list of strings",
            )),
        }
    }
    errs
}

/// Sets what the server owns on a new object.
pub fn prepare_for_create(obj: &mut Value, namespace: &str) {
    meta::keep_server_metadata(obj, None);
    let metadata = meta::metadata_mut(obj);
    metadata.insert("uid".into(), Value::String(meta::new_uid()));
    metadata.insert("creationTimestamp".into(), Value::String(meta::now_timestamp()));
    metadata.insert("generation".into(), Value::from(1));
    metadata.remove("resourceVersion");
    if namespace.is_empty() {
        metadata.remove("namespace");
    } else {
        metadata.insert("namespace".into(), Value::String(namespace.into()));
    }
}

/// What a change to is a new generation: everything outside `metadata`,
/// and outside `status` when the status subresource owns it.
fn generation_fields(obj: &Value, status_subresource: bool) -> Map<String, Value> {
    let mut map = obj.as_object().cloned().unwrap_or_default();
    map.remove("metadata");
    if status_subresource {
        map.remove("status");
    }
    map
}

/// Makes `status` what the main endpoint may not change when the status
/// subresource is enabled: absent on create, the stored one on update.
pub fn keep_status(obj: &mut Value, old: Option<&Value>) {
    let map = obj.as_object_mut().expect("objects are JSON objects");
    match old.and_then(|o| o.get("status")) {
        Some(status) => map.insert("status".into(), status.clone()),
        None => map.remove("status"),
    };
}

/// Carries the server-owned metadata of `old` into `obj`, and grows the
/// generation when anything outside metadata (and status, when the status
/// subresource is enabled) changed.
pub fn prepare_for_update(obj: &mut Value, old: &Value, status_subresource: bool) {
    meta::keep_server_metadata(obj, Some(old));
    let changed = generation_fields(obj, status_subresource) != generation_fields(old, status_subresource);
    let generation = meta::generation(old) + i64::from(changed);
    let metadata = meta::metadata_mut(obj);
    metadata.insert("generation".into(), Value::from(generation));
    metadata.remove("resourceVersion");
    if let Some(namespace) = old.get("metadata").and_then(|m| m.get("namespace")) {
        metadata.insert("namespace".into(), namespace.clone());
    }
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

/// No finalizer may be added once an object is being deleted.
pub fn validate_finalizers_on_update(obj: &Value, old: &Value) -> Vec<FieldError> {
    if !deleting(old) {
        return Vec::new();
    }
    let before = finalizers(old);
    let added: Vec<String> = finalizers(obj).into_iter().filter(|f| !before.contains(f)).collect();
    if added.is_empty() {
        return Vec::new();
    }
    let quoted: Vec<String> = added.iter().map(|f| format!("{f:?}")).collect();
    vec![FieldError::forbidden(
        "metadata.finalizers",
        format!(
            "no new finalizers can be added if the object is being deleted, found new finalizers []string{{{}}}",
            quoted.join(", ")
        ),
    )]
}

/// Marks an object as being deleted: deletionTimestamp, a zero grace
/// period, and a new generation (the first time only).
pub fn mark_deleting(obj: &mut Value) {
    let generation = meta::generation(obj) + 1;
    let metadata = meta::metadata_mut(obj);
    metadata.insert("deletionTimestamp".into(), Value::String(meta::now_timestamp()));
    metadata.insert("deletionGracePeriodSeconds".into(), Value::from(0));
    metadata.insert("generation".into(), Value::from(generation));
}

/// The stored bytes of an object: its storage apiVersion, no
/// resourceVersion.
pub fn to_stored(served: &Served, obj: &Value) -> Vec<u8> {
    let mut obj = obj.clone();
    meta::strip_resource_version(&mut obj);
    obj["apiVersion"] = Value::String(served.api_version(&served.storage_version));
    serde_json::to_vec(&obj).expect("JSON values serialize")
}

/// A stored object as a client sees it at `version`, with its
/// resourceVersion. The storage version's defaults apply on read, so a
/// default added later shows at once (and is stored at the next write).
/// Until conversion comes, only apiVersion changes.
pub fn from_stored(served: &Served, version: &str, kv: &KeyValue) -> Result<Value> {
    let mut obj: Value = serde_json::from_slice(&kv.value)
        .map_err(|e| Error::internal(format!("stored object {} is corrupt: {e}", kv.key)))?;
    // Stored objects are pruned and defaulted by the storage version's
    // schema as it is now, so fields a schema change dropped disappear and
    // defaults it added appear, until the next write persists both.
    if let Some(schema) = served.storage_schema() {
        crate::schema::prune(&mut obj, schema);
        crate::schema::apply_defaults(&mut obj, schema);
    }
    obj["apiVersion"] = Value::String(served.api_version(version));
    meta::set_resource_version(&mut obj, kv.mod_revision);
    Ok(obj)
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
    fn generation_grows_only_outside_metadata() {
        let old = json!({"metadata": {"generation": 4, "uid": "u"}, "spec": {"a": 1}});
        let mut labels = json!({"metadata": {"labels": {"x": "y"}}, "spec": {"a": 1}});
        prepare_for_update(&mut labels, &old, false);
        assert_eq!(labels["metadata"]["generation"], 4);
        assert_eq!(labels["metadata"]["uid"], "u");
        let mut spec = json!({"metadata": {}, "spec": {"a": 2}});
        prepare_for_update(&mut spec, &old, false);
        assert_eq!(spec["metadata"]["generation"], 5);
        let mut status = json!({"metadata": {}, "spec": {"a": 1}, "status": {"ok": true}});
        prepare_for_update(&mut status, &old, true);
        assert_eq!(status["metadata"]["generation"], 4, "status is not a new generation with the subresource");
    }

    #[test]
    fn finalizers_cannot_be_added_while_deleting() {
        let old = json!({"metadata": {"deletionTimestamp": "t", "finalizers": ["a"]}});
        let new = json!({"metadata": {"finalizers": ["a", "b"]}});
        let errs = validate_finalizers_on_update(&new, &old);
        assert_eq!(errs[0].field, "metadata.finalizers");
        assert!(errs[0].to_string().contains("no new finalizers can be added if the object is being deleted"));
        assert!(validate_finalizers_on_update(&json!({"metadata": {}}), &old).is_empty(), "removing is fine");
    }
}

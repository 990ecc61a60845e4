//! Definitions in and out: parsing a request body into a typed
//! `Definition` (k8s-openapi's `CustomResourceDefinition` plus crdstore's
//! `spec.customFeatureGates` and `spec.versions[*].conversion`; type errors
//! name their path), Kubernetes'
//! defaulting, and the stored form (JSON without resourceVersion, which is
//! the key's modify revision).

use std::collections::BTreeMap;
use std::ops::{Deref, DerefMut};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceConversion, CustomResourceDefinition,
};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::apimachinery::meta;
use crate::conversion::declarative::{self, VersionConversion};
use crate::error::{Error, Result};
use crate::gates::CustomFeatureGates;
use crate::storage::KeyValue;

/// Where the gate set lives in a definition's JSON.
pub const GATES_FIELD: &str = "customFeatureGates";

/// Where a version's declarative conversion lives in its JSON
/// (`spec.versions[i].conversion`).
pub const VERSION_CONVERSION_FIELD: &str = "conversion";

/// A definition: Kubernetes' type, which has no field for feature gates
/// nor for a version's conversion, with its `spec.customFeatureGates` and
/// each version's `conversion` (by version name). It reads as the
/// Kubernetes type.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Definition {
    pub crd: CustomResourceDefinition,
    pub gates: Option<CustomFeatureGates>,
    /// `spec.versions[i].conversion`, by the version's name.
    pub conversions: BTreeMap<String, VersionConversion>,
}

impl Definition {
    /// The versions as the declarative conversion sees them; `schemas`
    /// holds their `openAPIV3Schema`s (from [`Definition::schemas`]).
    pub fn declarative_versions<'a>(&'a self, schemas: &'a [Option<Value>]) -> Vec<declarative::Version<'a>> {
        self.spec
            .versions
            .iter()
            .zip(schemas)
            .map(|(v, schema)| declarative::Version {
                name: &v.name,
                served: v.served,
                storage: v.storage,
                schema: schema.as_ref(),
                conversion: self.conversions.get(&v.name),
            })
            .collect()
    }

    /// Each version's `schema.openAPIV3Schema` as JSON.
    pub fn schemas(&self) -> Vec<Option<Value>> {
        self.spec
            .versions
            .iter()
            .map(|v| v.schema.as_ref()?.open_api_v3_schema.as_ref().and_then(|s| serde_json::to_value(s).ok()))
            .collect()
    }

    /// The compiled declarative conversion (compile once per revision).
    pub fn declarative(&self) -> Result<declarative::Declarative> {
        let schemas = self.schemas();
        declarative::Declarative::compile(&self.declarative_versions(&schemas))
    }
}

impl Deref for Definition {
    type Target = CustomResourceDefinition;
    fn deref(&self) -> &CustomResourceDefinition {
        &self.crd
    }
}

impl DerefMut for Definition {
    fn deref_mut(&mut self) -> &mut CustomResourceDefinition {
        &mut self.crd
    }
}

impl Serialize for Definition {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let mut value = serde_json::to_value(&self.crd).map_err(serde::ser::Error::custom)?;
        if let (Some(gates), Some(spec)) = (&self.gates, value.get_mut("spec").and_then(Value::as_object_mut)) {
            spec.insert(GATES_FIELD.into(), serde_json::to_value(gates).map_err(serde::ser::Error::custom)?);
        }
        put_conversions(&mut value, &self.conversions).map_err(serde::ser::Error::custom)?;
        value.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Definition {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        let mut value = Value::deserialize(deserializer)?;
        let gates = take_gates(&mut value)
            .map(serde_json::from_value)
            .transpose()
            .map_err(|e| serde::de::Error::custom(format!("spec.{GATES_FIELD}: {e}")))?;
        let conversions = take_conversions(&mut value)
            .into_iter()
            .map(|(name, _, c)| serde_json::from_value(c).map(|c| (name, c)))
            .collect::<std::result::Result<_, _>>()
            .map_err(|e| serde::de::Error::custom(format!("spec.versions[*].{VERSION_CONVERSION_FIELD}: {e}")))?;
        let crd = serde_json::from_value(value).map_err(serde::de::Error::custom)?;
        Ok(Self { crd, gates, conversions })
    }
}

/// Removes each `spec.versions[i].conversion` from a definition's JSON
/// (null ones count as none): the version's name, index and conversion.
fn take_conversions(value: &mut Value) -> Vec<(String, usize, Value)> {
    let Some(versions) = value.get_mut("spec").and_then(|s| s.get_mut("versions")).and_then(Value::as_array_mut) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, version) in versions.iter_mut().enumerate() {
        let Some(map) = version.as_object_mut() else { continue };
        let name = map.get("name").and_then(Value::as_str).unwrap_or("").to_string();
        if let Some(conversion) = map.shift_remove(VERSION_CONVERSION_FIELD).filter(|c| !c.is_null()) {
            out.push((name, i, conversion));
        }
    }
    out
}

/// Puts each version's conversion back into a definition's JSON.
fn put_conversions(value: &mut Value, conversions: &BTreeMap<String, VersionConversion>) -> serde_json::Result<()> {
    if conversions.is_empty() {
        return Ok(());
    }
    let Some(versions) = value.get_mut("spec").and_then(|s| s.get_mut("versions")).and_then(Value::as_array_mut) else {
        return Ok(());
    };
    for version in versions.iter_mut() {
        let name = version.get("name").and_then(Value::as_str).unwrap_or("");
        if let Some(conversion) = conversions.get(name) {
            let conversion = serde_json::to_value(conversion)?;
            version.as_object_mut().expect("versions are objects").insert(VERSION_CONVERSION_FIELD.into(), conversion);
        }
    }
    Ok(())
}

/// Removes `spec.customFeatureGates` from a definition's JSON (a null one
/// counts as none).
fn take_gates(value: &mut Value) -> Option<Value> {
    let gates = value.get_mut("spec")?.as_object_mut()?.shift_remove(GATES_FIELD)?;
    (!gates.is_null()).then_some(gates)
}

/// Reads a definition from JSON, naming the path of a value of the wrong
/// type.
fn typed(mut value: Value) -> Result<Definition> {
    let cannot = |path: String, e: &dyn std::fmt::Display| {
        Error::bad_request(format!("{KIND} in version \"v1\" cannot be handled: {path}: {e}"))
    };
    let gates = match take_gates(&mut value) {
        Some(gates) => Some(
            serde_path_to_error::deserialize::<_, CustomFeatureGates>(gates)
                .map_err(|e| cannot(format!("spec.{GATES_FIELD}.{}", e.path()), e.inner()))?,
        ),
        None => None,
    };
    let mut conversions = BTreeMap::new();
    for (name, i, conversion) in take_conversions(&mut value) {
        let conversion = serde_path_to_error::deserialize::<_, VersionConversion>(conversion)
            .map_err(|e| cannot(format!("spec.versions[{i}].{VERSION_CONVERSION_FIELD}.{}", e.path()), e.inner()))?;
        conversions.insert(name, conversion);
    }
    let crd = serde_path_to_error::deserialize(value).map_err(|e| cannot(e.path().to_string(), e.inner()))?;
    Ok(Definition { crd, gates, conversions })
}

pub const API_VERSION: &str = concat!(crate::storage::keys::definitions_group!(), "/v1");
pub const KIND: &str = "CustomResourceDefinition";

/// Parses a request body, with the paths of the fields it repeats (for
/// `fieldValidation`). Malformed JSON, a wrong apiVersion or kind, or a
/// value of the wrong type is a BadRequest that names the problem.
pub fn parse(body: &[u8]) -> Result<(Definition, Vec<String>)> {
    meta::check_body_size(body)?;
    let (value, duplicates) = crate::apimachinery::decode::parse(body)
        .map_err(|e| Error::bad_request(format!("the request body is not valid JSON: {e}")))?;
    let Some(obj) = value.as_object() else {
        return Err(Error::bad_request("the request body must be a JSON object"));
    };
    let field = |name: &str| obj.get(name).and_then(Value::as_str).unwrap_or("");
    let (api_version, kind) = (field("apiVersion"), field("kind"));
    if (!api_version.is_empty() && api_version != API_VERSION) || (!kind.is_empty() && kind != KIND) {
        return Err(Error::bad_request(format!(
            "the object provided is unrecognized (must be of type {KIND} in {API_VERSION}): apiVersion {api_version:?}, kind {kind:?}"
        )));
    }
    Ok((typed(value)?, duplicates))
}

/// Kubernetes' defaults for v1 definitions.
pub fn apply_defaults(crd: &mut CustomResourceDefinition) {
    let names = &mut crd.spec.names;
    if names.singular.as_deref().unwrap_or("").is_empty() && !names.kind.is_empty() {
        names.singular = Some(names.kind.to_lowercase());
    }
    if names.list_kind.as_deref().unwrap_or("").is_empty() && !names.kind.is_empty() {
        names.list_kind = Some(format!("{}List", names.kind));
    }
    if crd.spec.conversion.is_none() {
        crd.spec.conversion = Some(CustomResourceConversion { strategy: "None".into(), webhook: None });
    }
}

/// The name of the storage version, when exactly one is marked.
pub fn storage_version(crd: &CustomResourceDefinition) -> Option<&str> {
    let mut storage = crd.spec.versions.iter().filter(|v| v.storage);
    match (storage.next(), storage.next()) {
        (Some(v), None) => Some(&v.name),
        _ => None,
    }
}

/// The definition as a client sees it, with its resourceVersion.
pub fn to_json(crd: &Definition) -> Value {
    let mut value = serde_json::to_value(crd).expect("definitions serialize");
    whole_numbers(&mut value);
    let map = value.as_object_mut().expect("definitions are objects");
    map.insert("apiVersion".into(), Value::String(API_VERSION.into()));
    map.insert("kind".into(), Value::String(KIND.into()));
    value
}

/// A definition from its JSON form (as the strategy contract hands it
/// back); a value that is no definition is a BadRequest naming the path.
pub fn from_json(value: Value) -> Result<Definition> {
    typed(value)
}

/// Writes whole floating-point numbers as integers, as Kubernetes' JSON
/// does: a schema's `maximum: 10` reads back as 10, not 10.0.
pub fn whole_numbers(value: &mut Value) {
    match value {
        Value::Number(n) if n.is_f64() => {
            let f = n.as_f64().unwrap_or(f64::NAN);
            if f.fract() == 0.0 && f.abs() < 9.0e15 {
                *value = Value::from(f as i64);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(whole_numbers),
        Value::Object(map) => map.values_mut().for_each(whole_numbers),
        _ => {}
    }
}

/// The stored bytes: the definition without resourceVersion.
pub fn to_stored(crd: &Definition) -> Vec<u8> {
    let mut value = to_json(crd);
    meta::strip_resource_version(&mut value);
    serde_json::to_vec(&value).expect("definitions serialize")
}

/// A stored definition, with its resourceVersion set from the key.
pub fn decode(kv: &KeyValue) -> Result<Definition> {
    let mut crd: Definition = serde_json::from_slice(&kv.value)
        .map_err(|e| Error::internal(format!("stored definition {} is corrupt: {e}", kv.key)))?;
    crd.metadata.resource_version = Some(kv.mod_revision.to_string());
    Ok(crd)
}

/// A stored definition as JSON, with its resourceVersion.
pub fn decode_json(kv: &KeyValue) -> Result<Value> {
    decode(kv).map(|crd| to_json(&crd))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_errors_name_the_path() {
        let err = parse(br#"{"spec": {"versions": "v1"}}"#).unwrap_err();
        assert!(err.message.contains("spec.versions"), "{}", err.message);
    }

    #[test]
    fn oversized_bodies_are_refused_before_parsing() {
        let body = vec![b' '; meta::MAX_BODY_BYTES + 1];
        assert_eq!(parse(&body).unwrap_err().reason, crate::error::Reason::RequestEntityTooLarge);
    }

    #[test]
    fn deep_nesting_is_refused() {
        let body = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        assert_eq!(parse(body.as_bytes()).unwrap_err().reason, crate::error::Reason::BadRequest);
    }

    #[test]
    fn wrong_kind_is_refused() {
        let err = parse(br#"{"apiVersion": "v1", "kind": "ConfigMap"}"#).unwrap_err();
        assert_eq!(err.reason, crate::error::Reason::BadRequest);
    }

    #[test]
    fn feature_gates_round_trip_and_name_their_type_errors() {
        let body = br#"{"spec": {"group": "g", "customFeatureGates": {"component": "istio",
            "featureGates": [{"name": "A", "preRelease": "alpha", "fieldPaths": [".spec.a"]}]}}}"#;
        let crd = parse(body).unwrap().0;
        assert_eq!(crd.gates.as_ref().unwrap().component.as_deref(), Some("istio"));
        let json = to_json(&crd);
        assert_eq!(json["spec"]["customFeatureGates"]["featureGates"][0]["fieldPaths"][0], ".spec.a");
        assert_eq!(from_json(json).unwrap(), crd);
        let err = parse(br#"{"spec": {"customFeatureGates": {"featureGates": [{"enabled": "yes"}]}}}"#).unwrap_err();
        assert!(err.message.contains("spec.customFeatureGates.featureGates[0].enabled"), "{}", err.message);
        assert!(parse(br#"{"spec": {"customFeatureGates": null}}"#).unwrap().0.gates.is_none());
    }

    #[test]
    fn version_conversions_round_trip_and_name_their_type_errors() {
        let body = br#"{"spec": {"group": "g", "versions": [
            {"name": "v1", "served": true, "storage": true,
             "conversion": {"declarative": {"v2": {"rename": {"from": ".spec.a", "to": ".spec.b"}}}}},
            {"name": "v2", "served": true, "storage": false, "conversion": null}]}}"#;
        let crd = parse(body).unwrap().0;
        assert_eq!(crd.conversions["v1"].declarative["v2"].rename.as_ref().unwrap().to, ".spec.b");
        let json = to_json(&crd);
        assert_eq!(json["spec"]["versions"][0]["conversion"]["declarative"]["v2"]["rename"]["from"], ".spec.a");
        assert!(json["spec"]["versions"][1].get("conversion").is_none());
        assert_eq!(from_json(json.clone()).unwrap(), crd);
        assert_eq!(serde_json::from_value::<Definition>(json).unwrap(), crd);
        let err = parse(
            br#"{"spec": {"versions": [{"name": "v1"}, {"name": "v2",
            "conversion": {"declarative": {"v1": {"rules": [{"rename": {"from": 3}}]}}}}]}}"#,
        )
        .unwrap_err();
        assert!(
            err.message.contains("spec.versions[1].conversion.declarative.v1.rules[0].rename.from"),
            "{}",
            err.message
        );
    }

    #[test]
    fn defaults_follow_kubernetes() {
        let mut crd = parse(br#"{"spec": {"names": {"kind": "CronTab", "plural": "crontabs"}}}"#).unwrap().0;
        apply_defaults(&mut crd);
        assert_eq!(crd.spec.names.singular.as_deref(), Some("crontab"));
        assert_eq!(crd.spec.names.list_kind.as_deref(), Some("CronTabList"));
        assert_eq!(crd.spec.conversion.as_ref().unwrap().strategy, "None");
    }
}

//! Kubernetes' protobuf messages (k8s-pb's types) to and from the JSON the
//! domain speaks, field by field under each field's JSON name, for the kinds
//! the gateway serves in protobuf: CustomResourceDefinition and its list,
//! Status, DeleteOptions and the meta types they hold (here, with the
//! field codec and the `message!` macro), the apiextensions messages
//! (`apiextensions.rs`), and the built-in Namespace, Lease and Events (`builtin.rs`).

use std::collections::BTreeMap;

use base64::Engine;
use k8s_pb::apimachinery::pkg::apis::meta::v1 as meta;
use serde_json::{Map, Value};

/// A message with a JSON form: an object of its fields by JSON name.
pub trait Pb: Sized {
    /// The message from its JSON form; an error names the field at fault.
    fn from_json(value: &Value) -> Result<Self, String>;
    /// The message's JSON form.
    fn to_json(&self) -> Value;
}

/// A field of a message: absent (`None`) when it has no value, so that it
/// is omitted as Kubernetes omits empty optional fields.
pub trait Field: Sized {
    fn from_json(value: &Value) -> Result<Self, String>;
    fn to_json(&self) -> Option<Value>;
}

fn wrong(what: &str, value: &Value) -> String {
    format!("expected {what}, got {value}")
}

impl Field for Option<String> {
    fn from_json(value: &Value) -> Result<Self, String> {
        match value {
            Value::Null => Ok(None),
            Value::String(s) => Ok(Some(s.clone())),
            other => Err(wrong("a string", other)),
        }
    }
    fn to_json(&self) -> Option<Value> {
        self.clone().map(Value::String)
    }
}

impl Field for Option<bool> {
    fn from_json(value: &Value) -> Result<Self, String> {
        match value {
            Value::Null => Ok(None),
            Value::Bool(b) => Ok(Some(*b)),
            other => Err(wrong("a boolean", other)),
        }
    }
    fn to_json(&self) -> Option<Value> {
        self.map(Value::Bool)
    }
}

impl Field for Option<i64> {
    fn from_json(value: &Value) -> Result<Self, String> {
        match value {
            Value::Null => Ok(None),
            other => other.as_i64().map(Some).ok_or_else(|| wrong("an integer", other)),
        }
    }
    fn to_json(&self) -> Option<Value> {
        self.map(Value::from)
    }
}

impl Field for Option<i32> {
    fn from_json(value: &Value) -> Result<Self, String> {
        match value {
            Value::Null => Ok(None),
            other => other
                .as_i64()
                .and_then(|n| i32::try_from(n).ok())
                .map(Some)
                .ok_or_else(|| wrong("a 32-bit integer", other)),
        }
    }
    fn to_json(&self) -> Option<Value> {
        self.map(Value::from)
    }
}

impl Field for Option<f64> {
    fn from_json(value: &Value) -> Result<Self, String> {
        match value {
            Value::Null => Ok(None),
            other => other.as_f64().map(Some).ok_or_else(|| wrong("a number", other)),
        }
    }
    fn to_json(&self) -> Option<Value> {
        // A whole number prints as one, as Go prints a float64 in JSON.
        self.map(|f| match f.fract() == 0.0 && f.abs() < 1e15 {
            true => Value::from(f as i64),
            false => Value::from(f),
        })
    }
}

/// `bytes` fields (`caBundle`): base64 in JSON, as Go encodes `[]byte`.
impl Field for Option<Vec<u8>> {
    fn from_json(value: &Value) -> Result<Self, String> {
        match value {
            Value::Null => Ok(None),
            Value::String(s) => base64::engine::general_purpose::STANDARD
                .decode(s)
                .map(Some)
                .map_err(|e| format!("illegal base64 data: {e}")),
            other => Err(wrong("a base64 string", other)),
        }
    }
    fn to_json(&self) -> Option<Value> {
        self.as_ref().map(|b| Value::String(base64::engine::general_purpose::STANDARD.encode(b)))
    }
}

impl Field for Vec<String> {
    fn from_json(value: &Value) -> Result<Self, String> {
        match value {
            Value::Null => Ok(Vec::new()),
            Value::Array(items) => items.iter().map(|v| Field::from_json(v).map(Option::unwrap_or_default)).collect(),
            other => Err(wrong("an array", other)),
        }
    }
    fn to_json(&self) -> Option<Value> {
        (!self.is_empty()).then(|| Value::from(self.clone()))
    }
}

impl<T: Pb> Field for Option<T> {
    fn from_json(value: &Value) -> Result<Self, String> {
        match value {
            Value::Null => Ok(None),
            other => T::from_json(other).map(Some),
        }
    }
    fn to_json(&self) -> Option<Value> {
        self.as_ref().map(T::to_json)
    }
}

impl<T: Pb> Pb for Box<T> {
    fn from_json(value: &Value) -> Result<Self, String> {
        T::from_json(value).map(Box::new)
    }
    fn to_json(&self) -> Value {
        T::to_json(self)
    }
}

impl<T: Pb> Field for Vec<T> {
    fn from_json(value: &Value) -> Result<Self, String> {
        match value {
            Value::Null => Ok(Vec::new()),
            Value::Array(items) => {
                items.iter().enumerate().map(|(i, v)| T::from_json(v).map_err(|e| format!("[{i}]: {e}"))).collect()
            }
            other => Err(wrong("an array", other)),
        }
    }
    fn to_json(&self) -> Option<Value> {
        (!self.is_empty()).then(|| Value::Array(self.iter().map(T::to_json).collect()))
    }
}

impl Field for BTreeMap<String, String> {
    fn from_json(value: &Value) -> Result<Self, String> {
        match value {
            Value::Null => Ok(BTreeMap::new()),
            Value::Object(map) => map
                .iter()
                .map(|(k, v)| match v {
                    Value::String(s) => Ok((k.clone(), s.clone())),
                    other => Err(format!("[{k}]: {}", wrong("a string", other))),
                })
                .collect(),
            other => Err(wrong("an object", other)),
        }
    }
    fn to_json(&self) -> Option<Value> {
        (!self.is_empty())
            .then(|| Value::Object(self.iter().map(|(k, v)| (k.clone(), Value::from(v.as_str()))).collect()))
    }
}

impl<T: Pb> Field for BTreeMap<String, T> {
    fn from_json(value: &Value) -> Result<Self, String> {
        match value {
            Value::Null => Ok(BTreeMap::new()),
            Value::Object(map) => map
                .iter()
                .map(|(k, v)| T::from_json(v).map(|t| (k.clone(), t)).map_err(|e| format!("[{k}]: {e}")))
                .collect(),
            other => Err(wrong("an object", other)),
        }
    }
    fn to_json(&self) -> Option<Value> {
        (!self.is_empty()).then(|| Value::Object(self.iter().map(|(k, v)| (k.clone(), v.to_json())).collect()))
    }
}

fn object(value: &Value) -> Result<&Map<String, Value>, String> {
    value.as_object().ok_or_else(|| wrong("an object", value))
}

/// Whether a field's JSON value is its type's zero value. Go writes every
/// field that is not a pointer into protobuf, zero or not, and omits zero
/// ones from JSON (`omitempty`): so a zero read from protobuf is absent in
/// JSON unless the Go field is a pointer (or has no `omitempty`), where a
/// zero is a value (`maximum: 0`, `gracePeriodSeconds: 0`, `served: false`).
fn is_zero(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(_) | Value::Object(_) => false,
    }
}

/// A message whose fields are all `Field`s under their JSON names; `keep`
/// names the fields whose zero is a value (see `is_zero`).
macro_rules! message {
    ($ty:ty { $($field:ident: $json:literal),* $(,)? }) => {
        message!($ty { $($field: $json),* } keep []);
    };
    ($ty:ty { $($field:ident: $json:literal),* $(,)? } keep [$($keep:literal),*]) => {
        impl Pb for $ty {
            #[allow(clippy::needless_update)]
            fn from_json(value: &Value) -> Result<Self, String> {
                let fields = object(value)?;
                let null = Value::Null;
                Ok(Self {
                    $($field: Field::from_json(fields.get($json).unwrap_or(&null))
                        .map_err(|e| format!(concat!(".", $json, "{}"), prefix(&e)))?,)*
                    ..Default::default()
                })
            }
            fn to_json(&self) -> Value {
                let mut fields = Map::new();
                let keep: &[&str] = &[$($keep),*];
                $(if let Some(v) = Field::to_json(&self.$field) {
                    if !is_zero(&v) || (keep.contains(&$json) && !v.is_null()) {
                        fields.insert($json.into(), v);
                    }
                })*
                Value::Object(fields)
            }
        }
    };
}

/// An inner error's path joined to its field: `.a.b: why` or `.a[0]: why`.
fn prefix(inner: &str) -> String {
    match inner.starts_with('.') || inner.starts_with('[') {
        true => inner.to_string(),
        false => format!(": {inner}"),
    }
}

/// `metav1.Time`: RFC 3339 in JSON, whole seconds.
impl Pb for meta::Time {
    fn from_json(value: &Value) -> Result<Self, String> {
        let text = value.as_str().ok_or_else(|| wrong("a timestamp", value))?;
        let at: jiff::Timestamp = text.parse().map_err(|e| format!("{text:?} is not a timestamp: {e}"))?;
        Ok(Self { seconds: Some(at.as_second()), nanos: Some(0) })
    }
    /// The zero time (Go's zero `Time` is `{}` in protobuf) is null.
    fn to_json(&self) -> Value {
        let seconds = self.seconds.unwrap_or(0);
        if seconds == 0 && self.nanos.unwrap_or(0) == 0 {
            return Value::Null;
        }
        let at = jiff::Timestamp::from_second(seconds).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
        Value::String(at.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
    }
}

/// `metav1.MicroTime`: RFC 3339 with microseconds in JSON.
impl Pb for meta::MicroTime {
    fn from_json(value: &Value) -> Result<Self, String> {
        let text = value.as_str().ok_or_else(|| wrong("a timestamp", value))?;
        let at: jiff::Timestamp = text.parse().map_err(|e| format!("{text:?} is not a timestamp: {e}"))?;
        Ok(Self { seconds: Some(at.as_second()), nanos: Some(at.subsec_microsecond() * 1000) })
    }
    fn to_json(&self) -> Value {
        let (seconds, nanos) = (self.seconds.unwrap_or(0), self.nanos.unwrap_or(0));
        if seconds == 0 && nanos == 0 {
            return Value::Null;
        }
        let at = jiff::Timestamp::new(seconds, nanos).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
        Value::String(at.strftime("%Y-%m-%dT%H:%M:%S.%6fZ").to_string())
    }
}

/// Raw JSON carried as bytes (`apiextensions.JSON`, `FieldsV1`).
fn raw_from_json(value: &Value) -> Option<Vec<u8>> {
    Some(serde_json::to_vec(value).expect("JSON values serialize"))
}

fn raw_to_json(raw: &Option<Vec<u8>>) -> Value {
    raw.as_deref().and_then(|raw| serde_json::from_slice(raw).ok()).unwrap_or(Value::Null)
}

impl Pb for meta::FieldsV1 {
    fn from_json(value: &Value) -> Result<Self, String> {
        Ok(Self { raw: raw_from_json(value) })
    }
    fn to_json(&self) -> Value {
        raw_to_json(&self.raw)
    }
}

message!(meta::ObjectMeta {
    name: "name", generate_name: "generateName", namespace: "namespace", self_link: "selfLink",
    uid: "uid", resource_version: "resourceVersion", generation: "generation",
    creation_timestamp: "creationTimestamp", deletion_timestamp: "deletionTimestamp",
    deletion_grace_period_seconds: "deletionGracePeriodSeconds", labels: "labels",
    annotations: "annotations", owner_references: "ownerReferences", finalizers: "finalizers",
    managed_fields: "managedFields",
} keep ["deletionGracePeriodSeconds"]);
message!(meta::OwnerReference {
    api_version: "apiVersion", kind: "kind", name: "name", uid: "uid", controller: "controller",
    block_owner_deletion: "blockOwnerDeletion",
} keep ["controller", "blockOwnerDeletion"]);
message!(meta::ManagedFieldsEntry {
    manager: "manager",
    operation: "operation",
    api_version: "apiVersion",
    time: "time",
    fields_type: "fieldsType",
    fields_v1: "fieldsV1",
    subresource: "subresource",
});
message!(meta::ListMeta {
    self_link: "selfLink", resource_version: "resourceVersion", r#continue: "continue",
    remaining_item_count: "remainingItemCount",
} keep ["remainingItemCount"]);
message!(meta::Status {
    metadata: "metadata",
    status: "status",
    message: "message",
    reason: "reason",
    details: "details",
    code: "code",
});
message!(meta::StatusDetails {
    name: "name",
    group: "group",
    kind: "kind",
    uid: "uid",
    causes: "causes",
    retry_after_seconds: "retryAfterSeconds",
});
message!(meta::StatusCause { reason: "reason", message: "message", field: "field" });
message!(meta::Preconditions { uid: "uid", resource_version: "resourceVersion" });
message!(meta::DeleteOptions {
    grace_period_seconds: "gracePeriodSeconds", preconditions: "preconditions",
    orphan_dependents: "orphanDependents", propagation_policy: "propagationPolicy", dry_run: "dryRun",
    ignore_store_read_error_with_cluster_breaking_potential: "ignoreStoreReadErrorWithClusterBreakingPotential",
} keep ["gracePeriodSeconds", "orphanDependents", "propagationPolicy", "ignoreStoreReadErrorWithClusterBreakingPotential"]);

mod apiextensions;
mod builtin;

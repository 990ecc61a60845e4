//! The strategy of custom resources (`ResourceStrategy`, the hooks of the
//! contract in `apimachinery::strategy`), the identity checks of a body
//! against its request, and the stored form of an object.

use serde_json::Value;

use super::scale;
use super::served::Served;
use crate::apimachinery::meta;
use crate::apimachinery::strategy::{set_status, Checked, NameRule, Operation, Scope, Strategy};
use crate::error::{Error, FieldError, Result};

/// A request's address, as the transports give it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ref {
    pub group: String,
    pub version: String,
    pub resource: String,
    pub namespace: String,
    pub name: String,
}

impl Ref {
    /// `name` of `resource` in `group`/`version`, in `namespace` (empty
    /// when cluster-scoped); an empty name is the collection.
    pub fn new(group: &str, version: &str, resource: &str, namespace: &str, name: &str) -> Self {
        Self {
            group: group.into(),
            version: version.into(),
            resource: resource.into(),
            namespace: namespace.into(),
            name: name.into(),
        }
    }
}

/// A body sent to a built-in kind without `apiVersion` or `kind` takes the
/// endpoint's, as Kubernetes' decoder defaults them from the request's
/// group, version and kind. A custom resource's body must say both.
pub fn default_type_meta(served: &Served, r: &Ref, obj: &mut Value) {
    let Some(map) = obj.as_object_mut().filter(|_| served.hooks.is_some()) else { return };
    let missing =
        |map: &serde_json::Map<String, Value>, key: &str| map.get(key).and_then(Value::as_str).unwrap_or("").is_empty();
    if missing(map, "apiVersion") {
        map.insert("apiVersion".into(), Value::String(served.api_version(&r.version)));
    }
    if missing(map, "kind") {
        map.insert("kind".into(), Value::String(served.kind.clone()));
    }
}

/// The checks of apiVersion, kind, name and namespace in a body against the
/// request, as Kubernetes' handlers make them.
pub fn check_identity(served: &Served, r: &Ref, obj: &Value, operation: Operation) -> Result<()> {
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
        // Kubernetes names the kind of the body sent, not the resource's.
        let causes = vec![FieldError::invalid("kind", kind, format!("must be {}", served.kind))];
        return Err(Error::invalid(&served.group, kind, name, causes));
    }
    // Metadata not of ObjectMeta's types cannot even be decoded.
    if let Some(why) = crate::schema::embedded::mistyped_metadata(obj, served.schema(&r.version)) {
        let version = &r.version;
        return Err(Error::bad_request(format!("{kind} in version {version:?} cannot be handled as a {kind}: {why}")));
    }
    let namespace = meta::meta_str(obj, "namespace");
    if served.namespaced() && !namespace.is_empty() && namespace != r.namespace {
        return Err(Error::bad_request(
            "the namespace of the provided object does not match the namespace sent on the request",
        ));
    }
    if operation == Operation::Update && name != r.name {
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

/// The strategy of a custom resource at a served version, as
/// apiextensions-apiserver's `customResourceStrategy`: with the status
/// subresource the main endpoint never changes `status`, and generation
/// follows everything but metadata (and status, then). Writes are checked
/// against the version's schema (CEL included, ratcheting on update) and
/// its scale paths. Its status endpoint is `StatusStrategy` over it.
pub struct ResourceStrategy<'a> {
    pub served: &'a Served,
    pub version: &'a str,
}

impl ResourceStrategy<'_> {
    fn status_subresource(&self) -> bool {
        self.served.has_status(self.version)
    }

    /// Whether a change to the member `name` is a new generation: any
    /// outside `metadata`, and outside `status` when the status
    /// subresource owns it.
    fn generation_field(&self, name: &str) -> bool {
        name != "metadata" && !(name == "status" && self.status_subresource())
    }

    /// The members of `obj` a change to which is a new generation (none
    /// when it is not an object).
    fn generation_fields<'v>(&'v self, obj: &'v Value) -> impl Iterator<Item = (&'v String, &'v Value)> + 'v {
        obj.as_object().into_iter().flatten().filter(|(name, _)| self.generation_field(name))
    }

    /// Schema validation of the whole object, ratcheting against `old`, and
    /// the scale paths.
    fn check(&self, obj: &Value, old: Option<&Value>) -> Checked {
        let mut checked = match self.served.schema(self.version) {
            Some(schema) => {
                let v = crate::schema::validate_update(obj, old, schema, "", crate::schema::Root::Object);
                Checked { errors: v.errors, warnings: v.warnings }
            }
            None => Checked::default(),
        };
        if let Some(paths) = self.served.scale_paths(self.version) {
            checked.errors.extend(scale::validate(obj, paths));
        }
        if let Some(hooks) = &self.served.hooks {
            checked.errors.extend(hooks.validate(obj, old));
        }
        checked
    }
}

impl Strategy for ResourceStrategy<'_> {
    fn scope(&self) -> Scope {
        self.served.scope
    }

    fn name_rule(&self) -> NameRule {
        self.served.hooks.as_ref().map_or(NameRule::Dns1123Subdomain, |hooks| hooks.name_rule())
    }

    fn invalid(&self, name: &str, causes: Vec<FieldError>) -> Error {
        invalid(self.served, name, causes)
    }

    fn prepare_for_create(&self, obj: &mut Value) {
        if self.status_subresource() {
            set_status(obj, None);
        }
        if let Some(hooks) = &self.served.hooks {
            hooks.prepare_for_create(obj);
        }
    }

    fn prepare_for_update(&self, obj: &mut Value, old: &Value) {
        if self.status_subresource() {
            set_status(obj, old.get("status").cloned());
        }
        if let Some(hooks) = &self.served.hooks {
            hooks.prepare_for_update(obj, old);
        }
    }

    /// The definition's feature gates, on the object at the request version
    /// (the contract runs before the write is converted to the storage
    /// version), so a gate's paths name the fields clients write.
    fn drop_disabled_fields(&self, obj: &mut Value, old: Option<&Value>) -> Vec<String> {
        self.served.gates.apply(obj, old)
    }

    /// As comparing the two objects without those members, in place: the
    /// same members (in any order) with equal values.
    fn generation_changed(&self, obj: &Value, old: &Value) -> bool {
        let before = old.as_object();
        self.generation_fields(obj).count() != self.generation_fields(old).count()
            || self.generation_fields(obj).any(|(name, value)| before.and_then(|m| m.get(name)) != Some(value))
    }

    fn validate(&self, obj: &Value) -> Checked {
        self.check(obj, None)
    }

    fn validate_update(&self, obj: &Value, old: &Value) -> Checked {
        self.check(obj, Some(old))
    }

    /// Only `.status`, against the schema's `status` part, so an invalid
    /// stored spec does not block a status update; and the scale paths.
    /// The contract's (the stored object with the body's status), then
    /// what the kind keeps of the server's status.
    fn prepare_for_status_update(&self, obj: &mut Value, old: &Value) {
        let status = obj.as_object_mut().and_then(|map| map.remove("status"));
        *obj = old.clone();
        set_status(obj, status);
        if let Some(hooks) = &self.served.hooks {
            hooks.prepare_for_status_update(obj, old);
        }
    }

    fn validate_status_update(&self, obj: &Value, old: &Value) -> Checked {
        let schema = self.served.schema(self.version);
        let mut checked = match (obj.get("status"), schema.and_then(|s| s.property("status"))) {
            (Some(status), Some(status_schema)) => {
                let old = old.get("status");
                let v =
                    crate::schema::validate_update(status, old, status_schema, "status", crate::schema::Root::Field);
                Checked { errors: v.errors, warnings: v.warnings }
            }
            _ => Checked::default(),
        };
        if let Some(paths) = self.served.scale_paths(self.version) {
            checked.errors.extend(scale::validate(obj, paths));
        }
        if let Some(hooks) = &self.served.hooks {
            checked.errors.extend(hooks.validate_status(obj, old));
        }
        checked
    }

    fn canonicalize(&self, obj: &mut Value) {
        obj["apiVersion"] = Value::String(self.served.api_version(self.version));
    }
}

/// The stored bytes of an object: its storage apiVersion, no
/// resourceVersion (see `stored`).
pub fn to_stored(served: &Served, obj: &Value) -> Vec<u8> {
    super::stored::Storing::new(served, obj).take_bytes(None)
}

pub use super::stored::from_stored;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apimachinery::strategy::before_update;
    use serde_json::json;

    fn served(status: bool) -> Served {
        let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced",
                     "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
                     "versions": [{"name": "v1", "served": true, "storage": true,
                                   "subresources": if status { json!({"status": {}}) } else { json!({}) }}]},
            "status": {"acceptedNames": {"plural": "widgets", "kind": "Widget"},
                       "conditions": [{"type": "Established", "status": "True",
                                       "lastTransitionTime": "2026-01-01T00:00:00Z"}]}});
        Served::from_definition(&serde_json::from_value(crd).unwrap(), crate::storage::Revision::new(1)).unwrap()
    }

    #[test]
    fn generation_grows_only_outside_metadata() {
        let plain = served(false);
        let strategy = ResourceStrategy { served: &plain, version: "v1" };
        let old = json!({"metadata": {"name": "w", "generation": 4, "uid": "u", "namespace": "n"}, "spec": {"a": 1}});
        let mut labels = json!({"metadata": {"name": "w", "labels": {"x": "y"}}, "spec": {"a": 1}});
        before_update(&strategy, &mut labels, &old).unwrap();
        assert_eq!(labels["metadata"]["generation"], 4);
        assert_eq!(labels["metadata"]["uid"], "u");
        let mut spec = json!({"metadata": {"name": "w"}, "spec": {"a": 2}});
        before_update(&strategy, &mut spec, &old).unwrap();
        assert_eq!(spec["metadata"]["generation"], 5);
        let with_status = served(true);
        let strategy = ResourceStrategy { served: &with_status, version: "v1" };
        let mut status = json!({"metadata": {"name": "w"}, "spec": {"a": 1}, "status": {"ok": true}});
        before_update(&strategy, &mut status, &old).unwrap();
        assert_eq!(status["metadata"]["generation"], 4, "status is not a new generation with the subresource");
        assert!(status.get("status").is_none(), "the main endpoint keeps the stored status");
    }

    #[test]
    fn a_new_generation_is_a_change_of_members_not_of_their_order() {
        let (plain, with_status) = (served(false), served(true));
        let strategy = ResourceStrategy { served: &plain, version: "v1" };
        let old = json!({"kind": "Widget", "metadata": {"name": "w"}, "spec": {"a": 1, "b": 2}, "status": {"s": 1}});
        let reordered =
            json!({"status": {"s": 1}, "spec": {"b": 2, "a": 1}, "metadata": {"name": "x"}, "kind": "Widget"});
        assert!(!strategy.generation_changed(&reordered, &old));
        let status = json!({"kind": "Widget", "metadata": {"name": "w"}, "spec": {"a": 1, "b": 2}, "status": {"s": 2}});
        assert!(strategy.generation_changed(&status, &old), "status counts without the subresource");
        let fewer = json!({"kind": "Widget", "metadata": {"name": "w"}, "spec": {"a": 1, "b": 2}});
        assert!(strategy.generation_changed(&fewer, &old));
        assert!(strategy.generation_changed(&old, &fewer));
        let swapped = json!({"kind": "Widget", "metadata": {"name": "w"}, "spec": {"a": 1, "b": 2}, "extra": {"s": 1}});
        assert!(strategy.generation_changed(&swapped, &old), "the same count of other members");
        let strategy = ResourceStrategy { served: &with_status, version: "v1" };
        assert!(!strategy.generation_changed(&status, &old));
        assert!(!strategy.generation_changed(&fewer, &old));
        assert!(strategy.generation_changed(&json!([1]), &old));
        assert!(!strategy.generation_changed(&json!("not an object"), &json!({"metadata": {}})));
    }
}

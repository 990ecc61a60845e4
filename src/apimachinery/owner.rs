//! Owner references and the garbage collector's finalizers, as
//! k8s.io/apimachinery's `ValidateOwnerReferences` (every error at its
//! field path, in apimachinery's words) plus the scope rules crdstore
//! refuses at write (Kubernetes' collector reports them as events): an
//! owner reference names an object in the dependent's namespace, and a
//! cluster-scoped dependent may not have a namespaced owner.

use serde_json::Value;

use super::meta::Scope;
use crate::error::FieldError;

/// `metav1.FinalizerOrphanDependents`.
pub const ORPHAN: &str = "orphan";
/// `metav1.FinalizerDeleteDependents`.
pub const FOREGROUND: &str = "foregroundDeletion";

const PATH: &str = "metadata.ownerReferences";

/// One owner reference as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnerRef {
    pub api_version: String,
    pub kind: String,
    pub name: String,
    pub uid: String,
    pub controller: bool,
    pub block_owner_deletion: bool,
}

impl OwnerRef {
    /// The group of `apiVersion` ("" for the legacy group).
    pub fn group(&self) -> &str {
        split_api_version(&self.api_version).0
    }
}

/// `schema.ParseGroupVersion` of an owner reference: "v1" is the legacy
/// group, "g/v" a group and version.
fn split_api_version(api_version: &str) -> (&str, &str) {
    match api_version.split_once('/') {
        Some((group, version)) => (group, version),
        None => ("", api_version),
    }
}

/// The owner references of an object (those that are JSON objects).
pub fn owner_references(obj: &Value) -> Vec<OwnerRef> {
    let Some(refs) = obj.pointer("/metadata/ownerReferences").and_then(Value::as_array) else {
        return Vec::new();
    };
    let text = |r: &Value, f: &str| r.get(f).and_then(Value::as_str).unwrap_or_default().to_string();
    let flag = |r: &Value, f: &str| r.get(f).and_then(Value::as_bool).unwrap_or(false);
    refs.iter()
        .filter(|r| r.is_object())
        .map(|r| OwnerRef {
            api_version: text(r, "apiVersion"),
            kind: text(r, "kind"),
            name: text(r, "name"),
            uid: text(r, "uid"),
            controller: flag(r, "controller"),
            block_owner_deletion: flag(r, "blockOwnerDeletion"),
        })
        .collect()
}

/// `ValidateOwnerReferences` with the field shapes checked first (the JSON
/// is not decoded into a typed struct before this), the namespace rule,
/// and `ValidateFinalizers`' rule that `orphan` and `foregroundDeletion`
/// are not both set. `namespace` is the dependent's ("" when
/// cluster-scoped).
pub fn validate(obj: &Value, namespace: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    check_finalizers(obj, &mut errs);
    let Some(refs) = obj.pointer("/metadata/ownerReferences") else { return errs };
    if refs.is_null() {
        return errs;
    }
    let Some(items) = refs.as_array() else {
        errs.push(FieldError::type_invalid(PATH, refs.clone(), "must be a list of owner references"));
        return errs;
    };
    if !check_shapes(items, namespace, &mut errs) {
        return errs;
    }
    check_references(obj, refs, &mut errs);
    errs
}

/// orphan and foregroundDeletion are not both finalizers.
fn check_finalizers(obj: &Value, errs: &mut Vec<FieldError>) {
    let finalizers = super::meta::finalizers(obj);
    if finalizers.iter().any(|f| f == ORPHAN) && finalizers.iter().any(|f| f == FOREGROUND) {
        let all = obj.pointer("/metadata/finalizers").cloned().unwrap_or(Value::Null);
        errs.push(FieldError::invalid(
            "metadata.finalizers",
            all,
            "finalizer orphan and foregroundDeletion cannot be both set",
        ));
    }
}

/// Each owner reference is an object whose fields have their types and
/// whose namespace, if any, is the dependent's; false if one is misshapen.
fn check_shapes(items: &[Value], namespace: &str, errs: &mut Vec<FieldError>) -> bool {
    let mut shaped = true;
    for (i, item) in items.iter().enumerate() {
        let Some(fields) = item.as_object() else {
            errs.push(FieldError::type_invalid(format!("{PATH}[{i}]"), item.clone(), "must be an object"));
            shaped = false;
            continue;
        };
        for (field, value) in fields {
            let want_string = matches!(field.as_str(), "apiVersion" | "kind" | "name" | "uid" | "namespace");
            let want_bool = matches!(field.as_str(), "controller" | "blockOwnerDeletion");
            if (want_string && !value.is_string()) || (want_bool && !value.is_boolean() && !value.is_null()) {
                let what = if want_string { "must be a string" } else { "must be a boolean" };
                errs.push(FieldError::type_invalid(format!("{PATH}[{i}].{field}"), value.clone(), what));
                shaped = false;
            }
        }
        // An owner reference has no namespace: the owner of a namespaced
        // dependent is in the dependent's namespace. A reference that names
        // another namespace is refused rather than silently meaning this one.
        if let Some(other) = fields.get("namespace").and_then(Value::as_str) {
            if other != namespace {
                let detail = if namespace.is_empty() {
                    "a cluster-scoped object cannot have an owner in a namespace".to_string()
                } else {
                    format!("must be {namespace:?}: an owner must be in its dependent's namespace")
                };
                errs.push(FieldError::invalid(format!("{PATH}[{i}].namespace"), other, detail));
            }
        }
    }
    shaped
}

/// Each (well-shaped) owner reference names an owner that may be one, and
/// at most one is the controller.
fn check_references(obj: &Value, refs: &Value, errs: &mut Vec<FieldError>) {
    let mut first_controller: Option<String> = None;
    for r in owner_references(obj) {
        let (group, version) = split_api_version(&r.api_version);
        if version.is_empty() {
            errs.push(FieldError::invalid(format!("{PATH}.apiVersion"), r.api_version.as_str(), "must not be empty"));
        }
        if r.kind.is_empty() {
            errs.push(FieldError::invalid(format!("{PATH}.kind"), "", "must not be empty"));
        }
        if r.name.is_empty() {
            errs.push(FieldError::invalid(format!("{PATH}.name"), "", "must not be empty"));
        }
        if r.uid.is_empty() {
            errs.push(FieldError::invalid(format!("{PATH}.uid"), "", "must not be empty"));
        }
        // apimachinery's `BannedOwners`.
        if group.is_empty() && version == "v1" && r.kind == "Event" {
            let detail = format!("{group}/{version}, Kind={} is disallowed from being an owner", r.kind);
            errs.push(FieldError::invalid(PATH, r.name.as_str(), detail));
        }
        if r.controller {
            let current = format!("{}/{}", r.kind, r.name);
            match &first_controller {
                Some(first) => errs.push(FieldError::invalid(
                    PATH,
                    refs.clone(),
                    format!(
                        "Only one reference can have Controller set to true. Found \"true\" in references for {first} and {current}"
                    ),
                )),
                None => first_controller = Some(current),
            }
        }
    }
}

/// The scope rule that needs the served kinds: a cluster-scoped dependent
/// may not name a namespaced owner kind. `scope_of` answers the scope of an
/// owner's group and kind when that kind is served.
pub fn validate_scopes(
    obj: &Value,
    dependent: Scope,
    scope_of: impl Fn(&str, &str) -> Option<Scope>,
) -> Vec<FieldError> {
    if dependent != Scope::Cluster {
        return Vec::new();
    }
    owner_references(obj)
        .iter()
        .enumerate()
        .filter(|(_, r)| scope_of(r.group(), &r.kind) == Some(Scope::Namespaced))
        .map(|(i, r)| {
            FieldError::invalid(
                format!("{PATH}[{i}]"),
                format!("{}/{}", r.kind, r.name),
                format!("a cluster-scoped object cannot have a namespaced owner ({} in {})", r.kind, r.api_version),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fields(errs: &[FieldError]) -> Vec<String> {
        errs.iter().map(|e| e.field.clone()).collect()
    }

    fn with(refs: Value) -> Value {
        json!({"metadata": {"name": "a", "ownerReferences": refs}})
    }

    #[test]
    fn a_complete_reference_passes() {
        let obj = with(json!([{"apiVersion": "example.com/v1", "kind": "Widget", "name": "w", "uid": "u",
                               "controller": true, "blockOwnerDeletion": true}]));
        assert!(validate(&obj, "team").is_empty());
        assert_eq!(owner_references(&obj)[0].group(), "example.com");
        assert!(owner_references(&obj)[0].block_owner_deletion);
    }

    #[test]
    fn each_missing_field_is_refused_at_its_path_in_apimachinery_words() {
        let errs = validate(&with(json!([{"apiVersion": "example.com/", "kind": "", "name": "", "uid": ""}])), "");
        assert_eq!(
            fields(&errs),
            [
                "metadata.ownerReferences.apiVersion",
                "metadata.ownerReferences.kind",
                "metadata.ownerReferences.name",
                "metadata.ownerReferences.uid"
            ]
        );
        assert!(errs.iter().all(|e| e.to_string().contains("must not be empty")), "{errs:?}");
    }

    #[test]
    fn only_one_controller() {
        let errs = validate(
            &with(json!([
                {"apiVersion": "v1", "kind": "Pod", "name": "name1", "uid": "1", "controller": true},
                {"apiVersion": "v1", "kind": "Pod", "name": "name2", "uid": "2", "controller": true}])),
            "team",
        );
        assert_eq!(fields(&errs), ["metadata.ownerReferences"]);
        assert!(errs[0].to_string().contains(
            "Only one reference can have Controller set to true. Found \"true\" in references for Pod/name1 and Pod/name2"
        ));
    }

    #[test]
    fn events_cannot_own_and_shapes_are_checked() {
        let errs = validate(&with(json!([{"apiVersion": "v1", "kind": "Event", "name": "e", "uid": "1"}])), "");
        assert!(errs[0].to_string().contains("/v1, Kind=Event is disallowed from being an owner"));
        let errs = validate(&with(json!([{"apiVersion": 1, "kind": "K", "name": "n", "uid": "u"}])), "");
        assert_eq!(fields(&errs), ["metadata.ownerReferences[0].apiVersion"]);
        assert_eq!(fields(&validate(&with(json!("x")), "")), ["metadata.ownerReferences"]);
        assert_eq!(fields(&validate(&with(json!([3])), "")), ["metadata.ownerReferences[0]"]);
    }

    #[test]
    fn namespaces_and_scopes() {
        let obj = with(json!([{"apiVersion": "g/v1", "kind": "K", "name": "n", "uid": "u", "namespace": "other"}]));
        assert_eq!(fields(&validate(&obj, "team")), ["metadata.ownerReferences[0].namespace"]);
        let same = with(json!([{"apiVersion": "g/v1", "kind": "K", "name": "n", "uid": "u", "namespace": "team"}]));
        assert!(validate(&same, "team").is_empty());
        let plain = with(json!([{"apiVersion": "g/v1", "kind": "K", "name": "n", "uid": "u"}]));
        let namespaced = |_: &str, _: &str| Some(Scope::Namespaced);
        assert_eq!(fields(&validate_scopes(&plain, Scope::Cluster, namespaced)), ["metadata.ownerReferences[0]"]);
        assert!(validate_scopes(&plain, Scope::Namespaced, namespaced).is_empty());
        assert!(validate_scopes(&plain, Scope::Cluster, |_: &str, _: &str| Some(Scope::Cluster)).is_empty());
        assert!(validate_scopes(&plain, Scope::Cluster, |_: &str, _: &str| None).is_empty(), "unknown kinds pass");
    }

    #[test]
    fn orphan_and_foreground_are_exclusive() {
        let obj = json!({"metadata": {"finalizers": ["orphan", "foregroundDeletion"]}});
        assert_eq!(fields(&validate(&obj, "")), ["metadata.finalizers"]);
    }
}

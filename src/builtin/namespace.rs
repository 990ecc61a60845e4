//! core/v1 `Namespace`: its strategy (Kubernetes' `namespaceStrategy`: phase
//! Active and the `kubernetes` finalizer on create, spec and status kept
//! apart, a DNS-1123 label as name, Terminating on delete) and the
//! `NamespaceLifecycle` admission every namespaced create passes.

use serde_json::{json, Value};

use crate::apimachinery::{dns, meta};
use crate::error::{CauseType, Error, FieldError, Result};
use crate::resource::served::{Admission, KindHooks, NameRule, Served};
use crate::storage::{keys, Op, Storage};

/// The finalizer of namespace content (`api.FinalizerKubernetes`).
pub const FINALIZER: &str = "kubernetes";

/// The namespaces Kubernetes creates at start and never lets be deleted
/// (`kube-node-lease` is created but may be deleted).
pub const SYSTEM: &[&str] = &["default", "kube-system", "kube-public", "kube-node-lease"];
const IMMORTAL: &[&str] = &["default", "kube-system", "kube-public"];

/// A namespace's `spec.finalizers`.
pub fn spec_finalizers(obj: &Value) -> Vec<String> {
    obj.pointer("/spec/finalizers")
        .and_then(Value::as_array)
        .map(|f| f.iter().filter_map(Value::as_str).map(String::from).collect())
        .unwrap_or_default()
}

/// Whether a namespace is terminating.
pub fn terminating(obj: &Value) -> bool {
    meta::deleting(obj) || obj.pointer("/status/phase").and_then(Value::as_str) == Some("Terminating")
}

#[derive(Debug)]
pub struct Hooks;

impl KindHooks for Hooks {
    fn name_rule(&self) -> NameRule {
        NameRule::KindValidates
    }

    /// `NamespaceStatus.Conditions` merges by `type`.
    fn merge_lists(&self) -> &'static [crate::apimachinery::strategic::MergeList] {
        &[("status.conditions", Some("type"))]
    }

    /// Phase Active; the `kubernetes` finalizer added; the
    /// `kubernetes.io/metadata.name` label (`SetDefaults_Namespace`).
    fn prepare_for_create(&self, obj: &mut Value) {
        obj["status"] = json!({"phase": "Active"});
        let mut finalizers = spec_finalizers(obj);
        if !finalizers.iter().any(|f| f == FINALIZER) {
            finalizers.push(FINALIZER.to_string());
        }
        if !obj.get("spec").is_some_and(Value::is_object) {
            obj["spec"] = json!({});
        }
        obj["spec"]["finalizers"] = json!(finalizers);
        label_name(obj);
    }

    /// The main endpoint changes neither `spec.finalizers` nor the status.
    fn prepare_for_update(&self, obj: &mut Value, old: &Value) {
        if !obj.get("spec").is_some_and(Value::is_object) {
            obj["spec"] = json!({});
        }
        match old.pointer("/spec/finalizers") {
            Some(finalizers) => obj["spec"]["finalizers"] = finalizers.clone(),
            None => {
                obj["spec"].as_object_mut().map(|spec| spec.remove("finalizers"));
            }
        }
        label_name(obj);
    }

    fn validate(&self, obj: &Value, _old: Option<&Value>) -> Vec<FieldError> {
        let mut errs = meta::validate_name(obj, dns::dns1123_label);
        for (i, finalizer) in spec_finalizers(obj).iter().enumerate() {
            errs.extend(validate_finalizer(finalizer, &format!("spec.finalizers[{i}]")));
        }
        errs
    }

    /// `ValidateNamespaceStatusUpdate`: the phase follows the deletion.
    fn validate_status(&self, obj: &Value, _old: &Value) -> Vec<FieldError> {
        let phase = obj.pointer("/status/phase").and_then(Value::as_str).unwrap_or("");
        if meta::deleting(obj) {
            if phase != "Terminating" {
                return vec![FieldError::invalid(
                    "status.Phase",
                    phase,
                    "may only be 'Terminating' if `deletionTimestamp` is not empty",
                )];
            }
        } else if phase != "Active" {
            return vec![FieldError::invalid(
                "status.Phase",
                phase,
                "may only be in active status if it does not have a deletion timestamp.",
            )];
        }
        Vec::new()
    }

    /// The first delete marks the namespace Terminating (the store's
    /// `Delete` in pkg/registry/core/namespace/storage); while its
    /// finalizers remain, a delete is a conflict; then it goes as any
    /// object does.
    fn on_delete(&self, obj: &mut Value) -> Result<bool> {
        let name = meta::meta_str(obj, "name").to_string();
        if IMMORTAL.contains(&name.as_str()) {
            return Err(Error::forbidden(format!(
                "namespaces {name:?} is forbidden: this namespace may not be deleted"
            )));
        }
        if !meta::deleting(obj) {
            meta::mark_deleting(obj);
            obj["status"]["phase"] = json!("Terminating");
            return Ok(true);
        }
        if !spec_finalizers(obj).is_empty() {
            return Err(Error::conflict(
                "",
                "namespaces",
                &name,
                "The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system.",
            ));
        }
        Ok(false)
    }

    fn finalizes(&self) -> bool {
        true
    }

    fn holds(&self, obj: &Value) -> bool {
        !spec_finalizers(obj).is_empty()
    }
}

/// `kubernetes.io/metadata.name: <name>`, which Kubernetes keeps on every
/// namespace.
fn label_name(obj: &mut Value) {
    let name = meta::meta_str(obj, "name").to_string();
    if name.is_empty() {
        return;
    }
    let metadata = meta::metadata_mut(obj);
    let labels = metadata.entry("labels").or_insert_with(|| json!({}));
    if let Some(labels) = labels.as_object_mut() {
        labels.insert("kubernetes.io/metadata.name".into(), json!(name));
    }
}

/// `validateFinalizerName`: a qualified name, and a standard one unless it
/// has a domain.
fn validate_finalizer(name: &str, path: &str) -> Vec<FieldError> {
    let mut errs: Vec<FieldError> =
        dns::qualified_name(name).into_iter().map(|msg| FieldError::invalid(path, name, msg)).collect();
    if errs.is_empty() && !name.contains('/') && name != FINALIZER {
        errs.push(FieldError::invalid(
            path,
            name,
            "name is neither a standard finalizer name nor is it fully qualified",
        ));
    }
    errs
}

/// Whether writes into a namespace that does not exist are refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Lifecycle {
    /// Allowed, as crdstore did before it served namespaces (the default).
    #[default]
    Lenient,
    /// Refused with Kubernetes' 404 `namespaces "x" not found`.
    Strict,
}

/// Kubernetes' `NamespaceLifecycle` admission for creates.
pub struct NamespaceAdmission {
    pub lifecycle: Lifecycle,
}

impl Admission for NamespaceAdmission {
    fn admit_create(&self, store: &dyn Storage, served: &Served, namespace: &str, name: &str) -> Result<Option<Op>> {
        let key = keys::namespace_key(namespace);
        let Some(kv) = store.get(&key) else {
            return match self.lifecycle {
                Lifecycle::Lenient => Ok(None),
                Lifecycle::Strict => Err(Error::not_found("", "namespaces", namespace)),
            };
        };
        let ns: Value = serde_json::from_slice(crate::resource::stored::split_mark(&kv.value).0)
            .map_err(|err| Error::internal(format!("stored namespace {namespace:?}: {err}")))?;
        if terminating(&ns) {
            let resource = if served.group.is_empty() {
                served.plural.clone()
            } else {
                format!("{}.{}", served.plural, served.group)
            };
            let subject = if name.is_empty() { resource } else { format!("{resource} {name:?}") };
            let mut err = Error::forbidden(format!(
                "{subject} is forbidden: unable to create new content in namespace {namespace} because it is being terminated"
            ));
            err.details.group = served.group.clone();
            err.details.kind = served.plural.clone();
            err.details.name = name.to_string();
            err.details.causes.push(FieldError {
                cause: CauseType::NamespaceTerminating,
                field: "metadata.namespace".into(),
                value: None,
                shown: None,
                detail: format!("namespace {namespace} is being terminated"),
            });
            return Err(err);
        }
        Ok(Some(Op::check(key, kv.mod_revision)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_sets_phase_finalizer_and_name_label() {
        let mut ns = json!({"metadata": {"name": "x"}, "status": {"phase": "Terminating"}});
        Hooks.prepare_for_create(&mut ns);
        assert_eq!(ns["status"]["phase"], "Active");
        assert_eq!(ns["spec"]["finalizers"], json!(["kubernetes"]));
        assert_eq!(ns["metadata"]["labels"]["kubernetes.io/metadata.name"], "x");
    }

    #[test]
    fn names_are_dns_labels() {
        let errs = Hooks.validate(&json!({"metadata": {"name": "a.b"}}), None);
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].field, "metadata.name");
    }

    #[test]
    fn delete_marks_terminating_then_conflicts_while_finalizers_remain() {
        let mut ns =
            json!({"metadata": {"name": "x"}, "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}});
        assert!(Hooks.on_delete(&mut ns).unwrap());
        assert_eq!(ns["status"]["phase"], "Terminating");
        assert!(meta::deleting(&ns));
        assert_eq!(Hooks.on_delete(&mut ns).unwrap_err().reason, crate::error::Reason::Conflict);
        let mut default = json!({"metadata": {"name": "default"}});
        assert_eq!(Hooks.on_delete(&mut default).unwrap_err().reason, crate::error::Reason::Forbidden);
    }
}

//! `apiextensions.k8s.io/v1` `CustomResourceDefinition`, served by the one
//! resource store as apiextensions-apiserver serves it through the generic
//! registry: the kind (`kind`), and hooks that bring the definitions'
//! strategy (`registry::strategy`), their typed decoding, the warnings of
//! unrecognized formats, the settlement of a group's names in the commit
//! of each write (under one lock, as each write re-reads its group), and
//! the delete that marks a definition terminating, removed right after
//! unless instances or other finalizers hold it.

use serde_json::{json, Value};

use super::served::{KindHooks, Served};
use super::Ref;
use crate::apimachinery::meta;
use crate::apimachinery::strategy::{NameRule, Strategy};
use crate::error::{FieldError, Result};
use crate::registry::definition::{self, Definition};
use crate::registry::strategy::DefinitionStrategy;
use crate::registry::{conditions, group, CLEANUP_FINALIZER};
use crate::storage::{keys, Op, Revision, Storage};

/// The definitions' kind, served with the schema their server-side apply
/// types them by.
fn kind() -> Definition {
    let mut schema = crate::registry::apply::definition_schema_json();
    schema["properties"]["spec"]["properties"][definition::GATES_FIELD] =
        json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true});
    let names = json!({"plural": keys::DEFINITIONS_RESOURCE, "singular": "customresourcedefinition",
        "kind": definition::KIND, "listKind": "CustomResourceDefinitionList", "shortNames": ["crd", "crds"],
        "categories": ["api-extensions"]});
    let crd = json!({
        "metadata": {"name": format!("{}.{}", keys::DEFINITIONS_RESOURCE, keys::DEFINITIONS_GROUP)},
        "spec": {"group": keys::DEFINITIONS_GROUP, "names": names, "scope": "Cluster", "versions": [{
            "name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": schema},
            "subresources": {"status": {}},
            // Kubernetes' table of definitions: Name, Created At.
            "additionalPrinterColumns": [{"name": "Created At", "type": "date", "format": "date-time",
                "jsonPath": ".metadata.creationTimestamp", "description":
                "CreationTimestamp is a timestamp representing the server time when this object was created."}]}]},
        "status": {"acceptedNames": names, "storedVersions": ["v1"],
            "conditions": [{"type": "NamesAccepted", "status": "True", "reason": "NoConflicts"},
                           {"type": "Established", "status": "True", "reason": "InitialNamesAccepted"}]},
    });
    definition::from_json(crd).expect("the definitions' kind parses")
}

/// The definitions' kind, as served.
pub fn served() -> Served {
    let timeout = crate::conversion::webhook::DEFAULT_TIMEOUT;
    let mut served = Served::compile(&kind(), Revision::ZERO, timeout).expect("the definitions' kind compiles");
    served.hooks = Some(std::sync::Arc::new(Hooks));
    served
}

/// The address of the definition `name` in the store ("": the collection).
pub fn at(name: &str) -> Ref {
    Ref::new(keys::DEFINITIONS_GROUP, "v1", keys::DEFINITIONS_RESOURCE, "", name)
}

/// The address of the definition a body names (an update names it only
/// there).
pub fn of_body(body: &[u8]) -> Result<Ref> {
    let (obj, _) = crate::apimachinery::decode::object(body)?;
    Ok(at(meta::meta_str(&obj, "name")))
}

/// The definitions' hooks.
#[derive(Debug)]
pub struct Hooks;

fn typed(obj: &Value) -> Option<Definition> {
    definition::from_json(obj.clone()).ok()
}

impl KindHooks for Hooks {
    /// `validation::validate` checks the name, which must also be
    /// `<plural>.<group>`.
    fn name_rule(&self) -> NameRule {
        NameRule::KindValidates
    }

    fn decode(&self, obj: &mut Value) -> Result<()> {
        *obj = definition::to_json(&definition::from_json(std::mem::take(obj))?);
        Ok(())
    }

    fn prepare_for_create(&self, obj: &mut Value) {
        DefinitionStrategy.prepare_for_create(obj)
    }

    fn prepare_for_update(&self, obj: &mut Value, old: &Value) {
        DefinitionStrategy.prepare_for_update(obj, old)
    }

    fn prepare_for_status_update(&self, obj: &mut Value, old: &Value) {
        DefinitionStrategy.prepare_for_status_update(obj, old)
    }

    fn validate(&self, obj: &Value, old: Option<&Value>) -> Vec<FieldError> {
        match old {
            Some(old) => DefinitionStrategy.validate_update(obj, old).errors,
            None => DefinitionStrategy.validate(obj).errors,
        }
    }

    fn validate_status(&self, obj: &Value, old: &Value) -> Vec<FieldError> {
        DefinitionStrategy.validate_status_update(obj, old).errors
    }

    fn warnings(&self, obj: &Value, old: Option<&Value>) -> Vec<String> {
        match typed(obj) {
            Some(crd) => crate::registry::format_warnings(&crd, old.and_then(typed).as_ref()),
            None => Vec::new(),
        }
    }

    fn settle(&self, store: &dyn Storage, name: &str, obj: Option<&mut Value>) -> Result<Vec<Op>> {
        let Some(obj) = obj else { return group::settle(store, name, None) };
        let mut crd = definition::from_json(obj.clone())?;
        let ops = group::settle(store, name, Some(&mut crd))?;
        *obj = definition::to_json(&crd);
        Ok(ops)
    }

    /// The removal right after the mark when nothing holds the definition
    /// (`registry::removal_after_mark`).
    fn after_mark(&self, store: &dyn Storage, name: &str) -> Result<Vec<Op>> {
        crate::registry::removal_after_mark(store, name)
    }

    fn created(&self, name: &str, revision: Revision) {
        tracing::info!(definition = %name, revision = %revision, "created definition");
    }

    fn serial(&self) -> Option<&tokio::sync::Mutex<()>> {
        Some(&group::WRITES)
    }

    /// Marks the definition terminating (deletionTimestamp, the cleanup
    /// finalizer, `Terminating=True`), which stops new instances.
    fn on_delete(&self, obj: &mut Value) -> Result<bool> {
        if meta::deleting(obj) {
            return Ok(false);
        }
        let Some(mut crd) = typed(obj) else { return Ok(false) };
        crd.metadata.deletion_timestamp = Some(conditions::now());
        let finalizers = crd.metadata.finalizers.get_or_insert_with(Vec::new);
        if !finalizers.iter().any(|f| f == CLEANUP_FINALIZER) {
            finalizers.push(CLEANUP_FINALIZER.to_string());
        }
        conditions::set(
            crd.status.get_or_insert_with(Default::default),
            conditions::condition(
                "Terminating",
                "True",
                "InstanceDeletionPending",
                "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
            ),
        );
        *obj = definition::to_json(&crd);
        Ok(true)
    }
}

//! `KindHooks`: what a kind compiled into the binary adds to the strategy
//! every kind gets (its schema, the status split), as its Kubernetes
//! strategy does, and the atomic extras of its writes.

use super::TableCells;
use crate::apimachinery::strategy::NameRule;
use crate::error::Result;
use crate::storage::{Op, Storage};

/// The strategy hooks of a kind compiled into the binary (Kubernetes' own
/// `Namespace`, `Lease`, `Event`), run by `ResourceStrategy` beside what
/// every kind gets (its schema, the status split): what that kind's
/// Kubernetes strategy adds. Custom resources have none.
pub trait KindHooks: Send + Sync + std::fmt::Debug {
    /// How the common metadata validation checks `metadata.name`.
    fn name_rule(&self) -> NameRule {
        NameRule::Dns1123Subdomain
    }
    /// After the contract's create preparation: the kind's defaults.
    fn prepare_for_create(&self, _obj: &mut serde_json::Value) {}
    /// After the contract's update preparation: what the main endpoint keeps.
    fn prepare_for_update(&self, _obj: &mut serde_json::Value, _old: &serde_json::Value) {}
    /// The kind's checks of a write (`old` on update), each at its path.
    fn validate(&self, _obj: &serde_json::Value, _old: Option<&serde_json::Value>) -> Vec<crate::error::FieldError> {
        Vec::new()
    }
    /// The kind's checks of a status write.
    fn validate_status(&self, _obj: &serde_json::Value, _old: &serde_json::Value) -> Vec<crate::error::FieldError> {
        Vec::new()
    }
    /// On delete: `Ok(true)` when the kind marks `obj` as being deleted
    /// instead of removing it (and has marked it), as a namespace does; an
    /// error refuses the delete.
    fn on_delete(&self, _obj: &mut serde_json::Value) -> Result<bool> {
        Ok(false)
    }
    /// After a create of `name` is committed at `revision`: what the kind
    /// tells the log (definitions are announced).
    fn created(&self, _name: &str, _revision: crate::storage::Revision) {}
    /// After a delete's mark of `name` is committed (`on_delete` said so):
    /// the operations that remove it at once, when nothing holds it (a
    /// definition without instances); none to leave it marked.
    fn after_mark(&self, _store: &dyn Storage, _name: &str) -> Result<Vec<Op>> {
        Ok(Vec::new())
    }
    /// Whether the kind's own finalizers (a namespace's `spec.finalizers`)
    /// still keep a deleting object.
    fn holds(&self, _obj: &serde_json::Value) -> bool {
        false
    }
    /// The fields a field selector may name beyond `metadata.name` and
    /// `metadata.namespace`, each with the JSON pointers of its value in
    /// the stored object (the first set one; none set is "").
    fn selectable_fields(&self) -> &'static [(&'static str, &'static [&'static str])] {
        &[]
    }
    /// Whether the kind has the `finalize` subresource (a namespace).
    fn finalizes(&self) -> bool {
        false
    }
    /// The lists the kind's Go type tags `patchStrategy:"merge"`, with
    /// their merge keys, beyond ObjectMeta's: how a strategic merge patch
    /// merges them (`apimachinery::strategic`).
    fn merge_lists(&self) -> &'static [crate::apimachinery::strategic::MergeList] {
        &[]
    }
    /// The kind's own table of `objects` (Kubernetes' printer for it): the
    /// columns and each object's cells; `None` for the version's printer
    /// columns.
    fn table(&self, _objects: &[serde_json::Value], _now: jiff::Timestamp) -> Option<TableCells> {
        None
    }
    /// A body as the kind's Go type decodes it, normalized in place, or a
    /// BadRequest naming the path of what does not decode (a definition).
    /// Runs before pruning and the strategy.
    fn decode(&self, _obj: &mut serde_json::Value) -> Result<()> {
        Ok(())
    }
    /// On the status endpoint, after the contract's preparation (`obj` is
    /// the stored object with the body's status): what the kind keeps of
    /// the server's status.
    fn prepare_for_status_update(&self, _obj: &mut serde_json::Value, _old: &serde_json::Value) {}
    /// Warnings a write of the main endpoint earns beyond validation's
    /// (`old` on update).
    fn warnings(&self, _obj: &serde_json::Value, _old: Option<&serde_json::Value>) -> Vec<String> {
        Vec::new()
    }
    /// The operations committed atomically with a write of `obj` named
    /// `name` (`None`: its removal), after adjusting `obj` to them: for a
    /// definition, its accepted names and those of the others of its group.
    /// A precondition of theirs that fails makes the write try again.
    fn settle(&self, _store: &dyn Storage, _name: &str, _obj: Option<&mut serde_json::Value>) -> Result<Vec<Op>> {
        Ok(Vec::new())
    }
    /// The lock every write of the kind holds from its read to its commit,
    /// when its `settle` reads other objects of the kind (definitions).
    fn serial(&self) -> Option<&tokio::sync::Mutex<()>> {
        None
    }
}

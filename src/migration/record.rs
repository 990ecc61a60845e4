//! A migration's record, as stored under `keys::migration_key`: what it
//! migrates, the storage version it brings objects to, and its progress
//! (the last key done, counts), written in the same commit as each batch it
//! rewrites, so a restart resumes exactly where the last durable batch
//! ended. Shown to Kubernetes clients as a `storagemigration.k8s.io/v1`
//! `StorageVersionMigration` (`to_kubernetes`).

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::error::{Error, Result};
use crate::storage::{keys, KeyValue, Revision};

/// The group/version a migration is shown at.
pub const API_VERSION: &str = "storagemigration.k8s.io/v1";
pub const KIND: &str = "StorageVersionMigration";

/// The reasons Kubernetes' migration controller gives its conditions.
pub const REASON_RUNNING: &str = "StorageVersionMigrationInProgress";
pub const REASON_SUCCEEDED: &str = "StorageVersionMigrationSucceeded";
pub const REASON_FAILED: &str = "StorageVersionMigrationFailed";

/// Where a migration is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Phase {
    /// Rewriting objects.
    Running,
    /// Every object is at the storage version and `storedVersions` trimmed.
    Succeeded,
    /// Stopped for good; `message` says why.
    Failed,
}

impl Phase {
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Running => "Running",
            Phase::Succeeded => "Succeeded",
            Phase::Failed => "Failed",
        }
    }

    pub fn is_terminal(self) -> bool {
        self != Phase::Running
    }
}

/// A condition as `metav1.Condition`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    #[serde(rename = "type")]
    pub type_: String,
    pub status: String,
    pub last_transition_time: String,
    pub reason: String,
    pub message: String,
}

/// A migration's record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    pub name: String,
    pub uid: String,
    pub creation_timestamp: String,
    /// `spec.resource`: the group and plural migrated.
    pub group: String,
    pub resource: String,
    /// The storage version this pass brings objects to (empty until the
    /// first pass starts).
    pub target_version: String,
    /// The last key of the definition's objects this pass has done.
    pub continue_key: Option<String>,
    /// Objects rewritten, over every pass.
    pub migrated: u64,
    /// Objects looked at in this pass.
    pub scanned: u64,
    /// Objects when this pass started.
    pub total: u64,
    pub phase: Phase,
    /// Why it failed, or how far it is.
    pub message: String,
    /// The store's revision when the migration started (Kubernetes'
    /// `status.resourceVersion`).
    pub resource_version: String,
    pub conditions: Vec<Condition>,
}

pub fn now() -> String {
    jiff::Timestamp::now().round(jiff::Unit::Second).expect("rounding a timestamp to seconds").to_string()
}

impl Record {
    /// A new migration of `group/resource`, started at `revision`.
    pub fn new(name: &str, group: &str, resource: &str, revision: Revision) -> Self {
        let mut record = Self {
            name: name.to_string(),
            uid: uuid::Uuid::new_v4().to_string(),
            creation_timestamp: now(),
            group: group.to_string(),
            resource: resource.to_string(),
            target_version: String::new(),
            continue_key: None,
            migrated: 0,
            scanned: 0,
            total: 0,
            phase: Phase::Running,
            message: String::new(),
            resource_version: revision.to_string(),
            conditions: Vec::new(),
        };
        record.set_condition("Running", "True", REASON_RUNNING, "");
        record
    }

    /// `<plural>.<group>`: the definition migrated.
    pub fn definition(&self) -> String {
        format!("{}.{}", self.resource, self.group)
    }

    /// Sets a condition as Kubernetes' controller does: a condition already
    /// set keeps its transition time unless its status changes.
    pub fn set_condition(&mut self, type_: &str, status: &str, reason: &str, message: &str) {
        let time = now();
        match self.conditions.iter_mut().find(|c| c.type_ == type_) {
            Some(c) => {
                if c.status != status {
                    c.last_transition_time = time;
                }
                c.status = status.to_string();
                c.reason = reason.to_string();
                c.message = message.to_string();
            }
            None => self.conditions.push(Condition {
                type_: type_.to_string(),
                status: status.to_string(),
                last_transition_time: time,
                reason: reason.to_string(),
                message: message.to_string(),
            }),
        }
    }

    /// Ends the migration: Running false, then Succeeded or Failed true.
    pub fn finish(&mut self, phase: Phase, message: String) {
        let reason = if phase == Phase::Succeeded { REASON_SUCCEEDED } else { REASON_FAILED };
        if let Some(running) = self.conditions.iter_mut().find(|c| c.type_ == "Running") {
            running.status = "False".into();
        }
        self.set_condition(phase.as_str(), "True", reason, &message);
        self.phase = phase;
        self.message = message;
        self.continue_key = None;
    }

    /// The stored bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("records serialize")
    }

    /// A stored record.
    pub fn decode(kv: &KeyValue) -> Result<Self> {
        serde_json::from_slice(&kv.value)
            .map_err(|e| Error::internal(format!("stored migration {} is corrupt: {e}", kv.key)))
    }

    /// The storage key.
    pub fn key(&self) -> String {
        keys::migration_key(&self.name)
    }

    /// The migration as Kubernetes shows it: a `StorageVersionMigration`
    /// with `spec.resource`, `status.conditions` and `status.resourceVersion`.
    /// `revision` is the record's own (its `metadata.resourceVersion`).
    pub fn to_kubernetes(&self, revision: Revision) -> Value {
        json!({
            "apiVersion": API_VERSION,
            "kind": KIND,
            "metadata": {
                "name": self.name,
                "uid": self.uid,
                "resourceVersion": revision.to_string(),
                "generation": 1,
                "creationTimestamp": self.creation_timestamp,
            },
            "spec": {"resource": {"group": self.group, "resource": self.resource}},
            "status": {
                "conditions": self.conditions,
                "resourceVersion": self.resource_version,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finishing_sets_running_false_and_the_outcome_true() {
        let mut record = Record::new("m", "example.com", "widgets", Revision::new(7));
        assert_eq!(record.conditions[0].type_, "Running");
        record.finish(Phase::Succeeded, String::new());
        let shown = record.to_kubernetes(Revision::new(9));
        assert_eq!(shown["status"]["conditions"][0]["status"], "False");
        assert_eq!(shown["status"]["conditions"][1]["type"], "Succeeded");
        assert_eq!(shown["status"]["conditions"][1]["reason"], REASON_SUCCEEDED);
        assert_eq!(shown["status"]["resourceVersion"], "7");
        assert_eq!(shown["metadata"]["resourceVersion"], "9");
        let kv = KeyValue {
            key: record.key().into(),
            value: record.to_bytes().into(),
            create_revision: Revision::new(1),
            mod_revision: Revision::new(9),
        };
        assert_eq!(Record::decode(&kv).unwrap(), record);
    }
}

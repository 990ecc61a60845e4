//! A migration as its `storagemigration.k8s.io/v1` `StorageVersionMigration`
//! object (`builtin::storage_migration` serves the kind): what it migrates
//! (`spec.resource`), and in its status the conditions Kubernetes' controller
//! sets, the store's revision when it started, and under `status.progress`
//! what a run needs to resume (the storage version of this pass, the last
//! key done, counts). The progress is written in the same commit as each
//! batch it rewrites, so a restart resumes exactly where the last durable
//! batch ended. Records stored by earlier releases, in crdstore's own
//! format, become objects when the server starts (`upgrade`).

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::error::{Error, Result};
use crate::storage::{KeyValue, Revision};

/// The group/version a migration is shown at.
pub const API_VERSION: &str = "storagemigration.k8s.io/v1";
pub const KIND: &str = "StorageVersionMigration";

/// The reasons Kubernetes' migration controller gives its conditions.
pub const REASON_RUNNING: &str = "StorageVersionMigrationInProgress";
pub const REASON_SUCCEEDED: &str = "StorageVersionMigrationSucceeded";
pub const REASON_FAILED: &str = "StorageVersionMigrationFailed";

/// Where a migration is, as its conditions say (`Record::phase`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Rewriting objects (or about to).
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
    #[serde(default)]
    pub last_transition_time: Option<String>,
    #[serde(default)]
    pub reason: String,
    #[serde(default)]
    pub message: String,
}

/// `status.progress`: where a run is.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Progress {
    /// The storage version this pass brings objects to (empty until the
    /// first pass starts).
    pub target_version: String,
    /// The last key of the definition's objects this pass has done.
    #[serde(rename = "continue")]
    pub continue_key: Option<String>,
    /// Objects rewritten, over every pass.
    pub migrated: u64,
    /// Objects looked at in this pass.
    pub scanned: u64,
    /// Objects when this pass started.
    pub total: u64,
}

/// A migration, read from its object.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub name: String,
    /// `spec.resource`: the group and plural migrated.
    pub group: String,
    pub resource: String,
    /// `status.resourceVersion`: the store's revision when the migration
    /// started; empty until it has.
    pub resource_version: String,
    pub conditions: Vec<Condition>,
    pub progress: Progress,
}

pub fn now() -> String {
    jiff::Timestamp::now().round(jiff::Unit::Second).expect("rounding a timestamp to seconds").to_string()
}

fn text(obj: &Value, pointer: &str) -> String {
    obj.pointer(pointer).and_then(Value::as_str).unwrap_or("").to_string()
}

impl Record {
    /// The migration `obj` describes.
    pub fn from_object(obj: &Value) -> Result<Self> {
        let status = obj.get("status");
        let field = |name: &str| status.and_then(|s| s.get(name)).cloned().unwrap_or(Value::Null);
        let corrupt = |e: serde_json::Error| Error::internal(format!("stored migration status is corrupt: {e}"));
        Ok(Self {
            name: text(obj, "/metadata/name"),
            group: text(obj, "/spec/resource/group"),
            resource: text(obj, "/spec/resource/resource"),
            resource_version: text(obj, "/status/resourceVersion"),
            conditions: match field("conditions") {
                Value::Null => Vec::new(),
                conditions => serde_json::from_value(conditions).map_err(corrupt)?,
            },
            progress: match field("progress") {
                Value::Null => Progress::default(),
                progress => serde_json::from_value(progress).map_err(corrupt)?,
            },
        })
    }

    /// `<plural>.<group>`: the definition migrated.
    pub fn definition(&self) -> String {
        format!("{}.{}", self.resource, self.group)
    }

    fn is_true(&self, type_: &str) -> bool {
        self.conditions.iter().any(|c| c.type_ == type_ && c.status == "True")
    }

    /// Succeeded or Failed once that condition is true; Running until then.
    pub fn phase(&self) -> Phase {
        if self.is_true("Succeeded") {
            Phase::Succeeded
        } else if self.is_true("Failed") {
            Phase::Failed
        } else {
            Phase::Running
        }
    }

    /// Why it failed, or how far it is: the message of its latest condition.
    pub fn message(&self) -> String {
        let shown = match self.phase() {
            Phase::Running => "Running",
            phase => phase.as_str(),
        };
        self.conditions.iter().find(|c| c.type_ == shown).map(|c| c.message.clone()).unwrap_or_default()
    }

    /// Starts the migration at `revision`: Running, as Kubernetes'
    /// controller marks one it first sees.
    pub fn begin(&mut self, revision: Revision) {
        self.resource_version = revision.to_string();
        self.set_condition("Running", "True", REASON_RUNNING, "");
    }

    /// Sets a condition as Kubernetes' controller does: a condition already
    /// set keeps its transition time unless its status changes.
    pub fn set_condition(&mut self, type_: &str, status: &str, reason: &str, message: &str) {
        let time = Some(now());
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

    /// Starts a pass over `total` objects: the first, or another once the
    /// storage version changed or objects were left at another version.
    pub fn new_pass(&mut self, total: u64) {
        self.progress.continue_key = None;
        self.progress.scanned = 0;
        self.progress.total = total;
    }

    /// Notes how far the pass is, in the Running condition's message.
    pub fn note_progress(&mut self) {
        let Progress { scanned, total, .. } = self.progress;
        let message = format!("{scanned} of {} objects looked at in this pass", total.max(scanned));
        self.set_condition("Running", "True", REASON_RUNNING, &message);
    }

    /// Ends the migration: Running false, then Succeeded or Failed true.
    pub fn finish(&mut self, phase: Phase, message: String) {
        let reason = if phase == Phase::Succeeded { REASON_SUCCEEDED } else { REASON_FAILED };
        self.set_condition("Running", "False", REASON_RUNNING, "");
        self.set_condition(phase.as_str(), "True", reason, &message);
        self.progress.continue_key = None;
    }

    /// Writes this record's status into `obj`, the object it was read from.
    pub fn write_status(&self, obj: &mut Value) {
        obj["status"] = json!({
            "conditions": self.conditions,
            "resourceVersion": self.resource_version,
            "progress": self.progress,
        });
    }
}

/// The stored form of a migration's object: its JSON without
/// `metadata.resourceVersion` (the key's revision is that).
pub fn to_stored(obj: &Value) -> Vec<u8> {
    let mut obj = obj.clone();
    crate::apimachinery::meta::strip_resource_version(&mut obj);
    serde_json::to_vec(&obj).expect("JSON values serialize")
}

/// A stored migration's JSON, as stored.
pub fn parse(kv: &KeyValue) -> Result<Value> {
    let json = crate::resource::stored::split_mark(&kv.value).0;
    serde_json::from_slice(json).map_err(|e| Error::internal(format!("stored migration {} is corrupt: {e}", kv.key)))
}

/// A stored migration's object, with its resourceVersion.
pub fn decode(kv: &KeyValue) -> Result<Value> {
    let mut obj = parse(kv)?;
    if obj.get("metadata").is_none() {
        return Err(Error::internal(format!("stored migration {} is corrupt: it has no metadata", kv.key)));
    }
    crate::apimachinery::meta::set_resource_version(&mut obj, kv.mod_revision);
    Ok(obj)
}

/// The object of a migration stored by a release before the kind was
/// served, in crdstore's own record format (flat, camelCase); `None` for
/// anything else.
pub fn upgrade(legacy: &Value) -> Option<Value> {
    let s = |name: &str| legacy.get(name).and_then(Value::as_str).map(str::to_string);
    let n = |name: &str| legacy.get(name).and_then(Value::as_u64).unwrap_or(0);
    let name = s("name")?;
    s("phase")?;
    let record = Record {
        name: name.clone(),
        group: s("group").unwrap_or_default(),
        resource: s("resource").unwrap_or_default(),
        resource_version: s("resourceVersion").unwrap_or_default(),
        conditions: serde_json::from_value(legacy.get("conditions")?.clone()).ok()?,
        progress: Progress {
            target_version: s("targetVersion").unwrap_or_default(),
            continue_key: s("continueKey"),
            migrated: n("migrated"),
            scanned: n("scanned"),
            total: n("total"),
        },
    };
    let mut obj = json!({
        "apiVersion": API_VERSION, "kind": KIND,
        "metadata": {"name": name, "uid": s("uid"), "generation": 1, "creationTimestamp": s("creationTimestamp")},
        "spec": {"resource": {"group": record.group, "resource": record.resource}},
    });
    record.write_status(&mut obj);
    Some(obj)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object() -> Value {
        json!({"apiVersion": API_VERSION, "kind": KIND, "metadata": {"name": "m"},
            "spec": {"resource": {"group": "example.com", "resource": "widgets"}}})
    }

    #[test]
    fn finishing_sets_running_false_and_the_outcome_true() {
        let mut obj = object();
        let mut record = Record::from_object(&obj).unwrap();
        assert_eq!((record.phase(), record.definition().as_str()), (Phase::Running, "widgets.example.com"));
        record.begin(Revision::new(7));
        assert_eq!(record.conditions[0].type_, "Running");
        record.finish(Phase::Succeeded, String::new());
        record.write_status(&mut obj);
        assert_eq!(obj["status"]["conditions"][0]["status"], "False");
        assert_eq!(obj["status"]["conditions"][1]["type"], "Succeeded");
        assert_eq!(obj["status"]["conditions"][1]["reason"], REASON_SUCCEEDED);
        assert_eq!(obj["status"]["resourceVersion"], "7");
        let kv = KeyValue {
            key: "k".into(),
            value: to_stored(&obj).into(),
            create_revision: Revision::new(1),
            mod_revision: Revision::new(9),
        };
        let read = decode(&kv).unwrap();
        assert_eq!(read["metadata"]["resourceVersion"], "9");
        assert_eq!(Record::from_object(&read).unwrap(), record);
        assert_eq!(Record::from_object(&read).unwrap().phase(), Phase::Succeeded);
    }

    #[test]
    fn a_record_of_an_earlier_release_reads_as_its_object() {
        let legacy = json!({"name": "m", "uid": "u", "creationTimestamp": "2026-01-01T00:00:00Z",
            "group": "example.com", "resource": "widgets", "targetVersion": "v2", "continueKey": "/k",
            "migrated": 3, "scanned": 4, "total": 9, "phase": "Running", "message": "", "resourceVersion": "5",
            "conditions": [{"type": "Running", "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z",
                "reason": REASON_RUNNING, "message": ""}]});
        let obj = upgrade(&legacy).unwrap();
        assert!(upgrade(&object()).is_none());
        assert_eq!(obj["metadata"]["uid"], "u");
        assert_eq!(obj["spec"]["resource"]["resource"], "widgets");
        let record = Record::from_object(&obj).unwrap();
        assert_eq!(record.progress.continue_key.as_deref(), Some("/k"));
        assert_eq!((record.progress.migrated, record.resource_version.as_str()), (3, "5"));
        assert_eq!(record.phase(), Phase::Running);
    }
}

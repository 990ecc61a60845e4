//! The options of reads, writes, lists, watches and deletes, in domain terms
//! (the transports translate their own request shapes into these).

use std::time::Duration;

use super::meta;
use crate::error::Result;
use crate::storage::Revision;

/// A resourceVersion a client asked for, parsed once where the request
/// enters (a transport's option decoding), with Kubernetes' meanings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ResourceVersion {
    /// "": none given; the latest state.
    #[default]
    Unset,
    /// "0": any state the server has (a watch starts with the current state).
    Any,
    /// A revision the state must be at, or not older than.
    At(Revision),
}

impl ResourceVersion {
    /// Parses a resourceVersion option: "", "0" or decimal digits only, as
    /// Kubernetes' `ParseUint`; anything else is a BadRequest naming the
    /// `resourceVersion` field.
    pub fn parse(text: &str) -> Result<Self> {
        Ok(match meta::parse_resource_version(text)? {
            None => ResourceVersion::Unset,
            Some(Revision::ZERO) => ResourceVersion::Any,
            Some(revision) => ResourceVersion::At(revision),
        })
    }

    /// The revision asked for, when one was.
    pub fn revision(self) -> Option<Revision> {
        match self {
            ResourceVersion::At(revision) => Some(revision),
            ResourceVersion::Unset | ResourceVersion::Any => None,
        }
    }
}

/// How unknown and duplicate fields in a written object are treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FieldValidation {
    /// Dropped silently.
    Ignore,
    /// Dropped with one warning per field.
    #[default]
    Warn,
    /// Refused.
    Strict,
}

/// Options every write takes.
#[derive(Debug, Clone, Default)]
pub struct WriteOptions {
    /// Validate and answer, but persist nothing.
    pub dry_run: bool,
    pub field_validation: FieldValidation,
    /// Recorded for field management; empty means none.
    pub field_manager: String,
    /// Server-side apply: take ownership of conflicting fields.
    pub force: bool,
}

/// How a list's resourceVersion is matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ResourceVersionMatch {
    /// Kubernetes' legacy rules: "" latest, "0" any, N not older than N
    /// (exactly N when paging with a limit).
    #[default]
    Unset,
    NotOlderThan,
    Exact,
}

/// Options of a list.
#[derive(Debug, Clone, Default)]
pub struct ListOptions {
    pub label_selector: String,
    pub field_selector: String,
    /// Zero means no limit.
    pub limit: i64,
    pub continue_token: String,
    pub resource_version: ResourceVersion,
    pub resource_version_match: ResourceVersionMatch,
}

/// Options of a watch.
#[derive(Debug, Clone, Default)]
pub struct WatchOptions {
    pub label_selector: String,
    pub field_selector: String,
    /// Unset or `Any`: initial ADDED events for the current state first.
    pub resource_version: ResourceVersion,
    pub allow_bookmarks: bool,
    pub send_initial_events: Option<bool>,
    /// `None`: the server's default.
    pub timeout: Option<Duration>,
}

/// Preconditions and policy of a delete.
#[derive(Debug, Clone, Default)]
pub struct DeleteOptions {
    pub precondition_uid: String,
    /// The object must be at this revision.
    pub precondition_resource_version: Option<Revision>,
    pub propagation_policy: String,
    /// The deprecated `orphanDependents`; overrides the policy when set.
    pub orphan_dependents: Option<bool>,
    pub dry_run: bool,
}

/// The outcome of a write: the object as stored, and warnings for the
/// client (unknown fields under `FieldValidation::Warn`, ratcheted rule
/// failures, unrecognized formats in a definition).
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    pub object: serde_json::Value,
    pub warnings: Vec<String>,
    /// `object`'s compact JSON when the write already has it (spliced from
    /// the stored bytes, as a read of them answers), so a transport sends
    /// it rather than serialising `object` again.
    json: Option<Vec<u8>>,
    /// The write made the object (an apply of one that did not exist):
    /// transports answer 201 then.
    pub created: bool,
}

impl Written {
    pub fn new(object: serde_json::Value, warnings: Vec<String>) -> Self {
        Self { object, warnings, json: None, created: false }
    }

    /// `object` and its compact JSON, which must be what serialising
    /// `object` gives (as JSON: the same members and values).
    pub fn with_json(object: serde_json::Value, warnings: Vec<String>, json: Option<Vec<u8>>) -> Self {
        Self { object, warnings, json, created: false }
    }

    /// The same answer, of a write that made the object when `created`.
    pub fn made(mut self, created: bool) -> Self {
        self.created = created;
        self
    }

    /// Whether the write made the object's JSON itself.
    #[cfg(test)]
    pub fn spliced(&self) -> bool {
        self.json.is_some()
    }

    /// The object's compact JSON, taken: the write's own when it has it
    /// (moved, not copied), else `object` serialised.
    pub fn take_json(&mut self) -> Vec<u8> {
        match self.json.take() {
            Some(json) => json,
            None => serde_json::to_vec(&self.object).expect("JSON values serialize"),
        }
    }
}

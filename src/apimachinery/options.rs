//! The options of reads, writes, lists, watches and deletes, in domain terms
//! (the transports translate their own request shapes into these).

use std::time::Duration;

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
    pub resource_version: String,
    pub resource_version_match: ResourceVersionMatch,
}

/// Options of a watch.
#[derive(Debug, Clone, Default)]
pub struct WatchOptions {
    pub label_selector: String,
    pub field_selector: String,
    /// Empty or "0": initial ADDED events for the current state first.
    pub resource_version: String,
    pub allow_bookmarks: bool,
    pub send_initial_events: Option<bool>,
    /// `None`: the server's default.
    pub timeout: Option<Duration>,
}

/// Preconditions and policy of a delete.
#[derive(Debug, Clone, Default)]
pub struct DeleteOptions {
    pub precondition_uid: String,
    pub precondition_resource_version: String,
    pub propagation_policy: String,
    pub dry_run: bool,
}

/// The outcome of a write: the object as stored, and warnings for the
/// client (unknown fields under `FieldValidation::Warn`, ratcheted rule
/// failures, unrecognized formats in a definition).
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    pub object: serde_json::Value,
    pub warnings: Vec<String>,
}

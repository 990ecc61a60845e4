//! The object of a BOOKMARK watch event: only apiVersion, kind and the
//! resourceVersion the watch may resume from.

use serde_json::{json, Value};

use crate::storage::Revision;

/// The object of a BOOKMARK event; `initial_end` marks the end of a watch's
/// initial events (`k8s.io/initial-events-end`).
pub fn bookmark(api_version: &str, kind: &str, revision: Revision, initial_end: bool) -> Value {
    let mut object =
        json!({"apiVersion": api_version, "kind": kind, "metadata": {"resourceVersion": revision.to_string()}});
    if initial_end {
        object["metadata"]["annotations"] = json!({"k8s.io/initial-events-end": "true"});
    }
    object
}

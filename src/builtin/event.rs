//! core/v1 and `events.k8s.io/v1` `Event`: upstream's `ValidateEventCreate`
//! (legacy validation for core/v1, strict for events.k8s.io/v1), with the
//! internal type's field paths, which both APIs report. Both APIs serve
//! one stored object, in core/v1's shape (`convert`, upstream's
//! `pkg/apis/events/v1/conversion.go`), selected by upstream's event
//! fields (`ToSelectableFields`, and events.k8s.io's field label
//! conversion onto them).

use serde_json::Value;

use crate::error::{FieldError, Result};
use crate::resource::served::KindHooks;

const REPORTING_INSTANCE_LIMIT: usize = 128;
const ACTION_LIMIT: usize = 128;
const REASON_LIMIT: usize = 128;
const NOTE_LIMIT: usize = 1024;

/// The version of `events.k8s.io` `Event` that is not served and holds
/// the stored core/v1 shape.
pub const STORED: &str = "v1-stored-as-core";

/// core/v1 fields and their `events.k8s.io/v1` names.
const RENAMED: &[(&str, &str)] = &[
    ("message", "note"),
    ("involvedObject", "regarding"),
    ("reportingComponent", "reportingController"),
    ("source", "deprecatedSource"),
    ("firstTimestamp", "deprecatedFirstTimestamp"),
    ("lastTimestamp", "deprecatedLastTimestamp"),
    ("count", "deprecatedCount"),
];

/// Fields both shapes name alike.
const SAME: &[&str] = &["metadata", "related", "reportingInstance", "series", "eventTime", "action", "reason", "type"];

/// An `Event` of either shape in the other's: to `events.k8s.io/v1` when
/// `to_version` is `v1` (it is served at `events.k8s.io`), to the stored
/// core/v1 shape otherwise. Fields the other shape lacks are dropped.
pub fn convert(obj: Value, to_version: &str) -> Result<Value> {
    let to_events = to_version != STORED;
    let Value::Object(mut from) = obj else {
        return Err(crate::error::Error::bad_request("an Event must be a JSON object"));
    };
    let mut out = serde_json::Map::new();
    out.insert("apiVersion".into(), Value::from(if to_events { "events.k8s.io/v1" } else { "v1" }));
    out.insert("kind".into(), Value::from("Event"));
    for field in SAME {
        if let Some(v) = from.remove(*field) {
            out.insert((*field).into(), v);
        }
    }
    for (core, events) in RENAMED {
        let (source, target) = if to_events { (core, events) } else { (events, core) };
        if let Some(v) = from.remove(*source) {
            out.insert((*target).into(), v);
        }
    }
    Ok(Value::Object(out))
}

/// Upstream's selectable event fields, as core/v1 names them, each with
/// where its value is in the stored object (the first set one).
const CORE_FIELDS: &[(&str, &[&str])] = &[
    ("involvedObject.kind", &["/involvedObject/kind"]),
    ("involvedObject.namespace", &["/involvedObject/namespace"]),
    ("involvedObject.name", &["/involvedObject/name"]),
    ("involvedObject.uid", &["/involvedObject/uid"]),
    ("involvedObject.apiVersion", &["/involvedObject/apiVersion"]),
    ("involvedObject.resourceVersion", &["/involvedObject/resourceVersion"]),
    ("involvedObject.fieldPath", &["/involvedObject/fieldPath"]),
    ("reason", &["/reason"]),
    ("reportingComponent", &["/reportingComponent"]),
    ("source", &["/source/component", "/reportingComponent"]),
    ("type", &["/type"]),
];

/// events.k8s.io's field labels (`AddFieldLabelConversionsForEvent`),
/// onto the same stored values.
const EVENTS_FIELDS: &[(&str, &[&str])] = &[
    ("regarding.kind", &["/involvedObject/kind", "/regarding/kind"]),
    ("regarding.namespace", &["/involvedObject/namespace", "/regarding/namespace"]),
    ("regarding.name", &["/involvedObject/name", "/regarding/name"]),
    ("regarding.uid", &["/involvedObject/uid", "/regarding/uid"]),
    ("regarding.apiVersion", &["/involvedObject/apiVersion", "/regarding/apiVersion"]),
    ("regarding.resourceVersion", &["/involvedObject/resourceVersion", "/regarding/resourceVersion"]),
    ("regarding.fieldPath", &["/involvedObject/fieldPath", "/regarding/fieldPath"]),
    ("reason", &["/reason"]),
    ("reportingController", &["/reportingComponent", "/reportingController"]),
    ("type", &["/type"]),
];

/// An event as upstream's internal type sees it, whichever API wrote it.
struct Internal<'a> {
    namespace: &'a str,
    involved_namespace: &'a str,
    event_time: bool,
    reporting_controller: &'a str,
    reporting_instance: &'a str,
    action: &'a str,
    reason: &'a str,
    message: &'a str,
    type_: &'a str,
    series: Option<&'a Value>,
    first_timestamp: bool,
    last_timestamp: bool,
    count: i64,
    source: bool,
}

fn str_at<'a>(obj: &'a Value, pointer: &str) -> &'a str {
    obj.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

fn set(obj: &Value, pointer: &str) -> bool {
    obj.pointer(pointer).is_some_and(|v| !v.is_null() && v.as_str() != Some(""))
}

/// The events.k8s.io/v1 Event of `Hooks { v1: false }`, core/v1's otherwise.
#[derive(Debug)]
pub struct Hooks {
    /// core/v1 (legacy validation only).
    pub core: bool,
}

impl Hooks {
    fn internal<'a>(&self, obj: &'a Value) -> Internal<'a> {
        let namespace = str_at(obj, "/metadata/namespace");
        if self.core {
            Internal {
                namespace,
                involved_namespace: str_at(obj, "/involvedObject/namespace"),
                event_time: set(obj, "/eventTime"),
                reporting_controller: str_at(obj, "/reportingComponent"),
                reporting_instance: str_at(obj, "/reportingInstance"),
                action: str_at(obj, "/action"),
                reason: str_at(obj, "/reason"),
                message: str_at(obj, "/message"),
                type_: str_at(obj, "/type"),
                series: obj.get("series").filter(|s| !s.is_null()),
                first_timestamp: set(obj, "/firstTimestamp"),
                last_timestamp: set(obj, "/lastTimestamp"),
                count: obj.get("count").and_then(Value::as_i64).unwrap_or(0),
                source: set(obj, "/source/component") || set(obj, "/source/host"),
            }
        } else {
            Internal {
                namespace,
                involved_namespace: str_at(obj, "/regarding/namespace"),
                event_time: set(obj, "/eventTime"),
                reporting_controller: str_at(obj, "/reportingController"),
                reporting_instance: str_at(obj, "/reportingInstance"),
                action: str_at(obj, "/action"),
                reason: str_at(obj, "/reason"),
                message: str_at(obj, "/note"),
                type_: str_at(obj, "/type"),
                series: obj.get("series").filter(|s| !s.is_null()),
                first_timestamp: set(obj, "/deprecatedFirstTimestamp"),
                last_timestamp: set(obj, "/deprecatedLastTimestamp"),
                count: obj.get("deprecatedCount").and_then(Value::as_i64).unwrap_or(0),
                source: set(obj, "/deprecatedSource/component") || set(obj, "/deprecatedSource/host"),
            }
        }
    }

    /// `legacyValidateEvent`.
    fn legacy(&self, e: &Internal) -> Vec<FieldError> {
        let mut errs = Vec::new();
        let mismatch =
            || FieldError::invalid("involvedObject.namespace", e.involved_namespace, "does not match event.namespace");
        let controller_field = if self.core { "reportingComponent" } else { "reportingController" };
        if !e.event_time {
            if e.involved_namespace.is_empty() {
                if !e.namespace.is_empty() && e.namespace != "default" {
                    errs.push(mismatch());
                }
            } else if e.namespace != e.involved_namespace {
                errs.push(mismatch());
            }
        } else {
            if e.involved_namespace.is_empty() && e.namespace != "default" && e.namespace != "kube-system" {
                errs.push(mismatch());
            }
            if e.reporting_controller.is_empty() {
                errs.push(FieldError::required(controller_field, ""));
            }
            for msg in crate::apimachinery::dns::qualified_name(e.reporting_controller) {
                errs.push(FieldError::invalid(controller_field, e.reporting_controller, msg));
            }
            if e.reporting_instance.is_empty() {
                errs.push(FieldError::required("reportingInstance", ""));
            }
            if e.reporting_instance.len() > REPORTING_INSTANCE_LIMIT {
                errs.push(FieldError::invalid(
                    "reportingInstance",
                    "",
                    format!("can have at most {REPORTING_INSTANCE_LIMIT} characters"),
                ));
            }
            if e.action.is_empty() {
                errs.push(FieldError::required("action", ""));
            }
            if e.action.len() > ACTION_LIMIT {
                errs.push(FieldError::invalid("action", "", format!("can have at most {ACTION_LIMIT} characters")));
            }
            if e.reason.is_empty() {
                errs.push(FieldError::required("reason", ""));
            }
            if e.reason.len() > REASON_LIMIT {
                errs.push(FieldError::invalid("reason", "", format!("can have at most {REASON_LIMIT} characters")));
            }
            if e.message.len() > NOTE_LIMIT {
                errs.push(FieldError::invalid("message", "", format!("can have at most {NOTE_LIMIT} characters")));
            }
        }
        for msg in crate::apimachinery::dns::dns1123_subdomain(e.namespace) {
            errs.push(FieldError::invalid("namespace", e.namespace, msg));
        }
        errs
    }

    /// What events.k8s.io/v1 adds on create.
    fn strict(&self, e: &Internal) -> Vec<FieldError> {
        let mut errs = Vec::new();
        if let Some(series) = e.series {
            if series.get("count").and_then(Value::as_i64).unwrap_or(0) < 2 {
                errs.push(FieldError::invalid("series.count", "", "should be at least 2"));
            }
            if !set(series, "/lastObservedTime") {
                errs.push(FieldError::required("series.lastObservedTime", ""));
            }
        }
        if !e.event_time {
            errs.push(FieldError::required("eventTime", ""));
        }
        if e.type_ != "Normal" && e.type_ != "Warning" {
            errs.push(FieldError::invalid("type", "", format!("has invalid value: {}", e.type_)));
        }
        if e.first_timestamp {
            errs.push(FieldError::invalid("deprecatedFirstTimestamp", "", "needs to be unset"));
        }
        if e.last_timestamp {
            errs.push(FieldError::invalid("deprecatedLastTimestamp", "", "needs to be unset"));
        }
        if e.count != 0 {
            errs.push(FieldError::invalid("deprecatedCount", "", "needs to be unset"));
        }
        if e.source {
            errs.push(FieldError::invalid("deprecatedSource", "", "needs to be unset"));
        }
        errs
    }
}

impl KindHooks for Hooks {
    fn table(&self, objects: &[Value], now: jiff::Timestamp) -> Option<crate::resource::served::TableCells> {
        use std::borrow::Cow;
        let core = objects.iter().map(|obj| match self.core {
            true => Cow::Borrowed(obj),
            false => Cow::Owned(convert(obj.clone(), STORED).unwrap_or_default()),
        });
        Some(super::event_table::table(core, now))
    }

    fn selectable_fields(&self) -> &'static [(&'static str, &'static [&'static str])] {
        if self.core {
            CORE_FIELDS
        } else {
            EVENTS_FIELDS
        }
    }

    fn validate(&self, obj: &Value, old: Option<&Value>) -> Vec<FieldError> {
        let e = self.internal(obj);
        let mut errs = self.legacy(&e);
        if !self.core && old.is_none() {
            errs.extend(self.strict(&e));
        }
        errs
    }
}

/// The newest time an event shows it was written (its creation, last
/// occurrence, or series' last observation): what its time-to-live counts
/// from, as an etcd lease renewed by every write would.
pub fn last_written(obj: &Value) -> Option<jiff::Timestamp> {
    [
        "/metadata/creationTimestamp",
        "/lastTimestamp",
        "/eventTime",
        "/series/lastObservedTime",
        "/deprecatedLastTimestamp",
    ]
    .iter()
    .filter_map(|p| obj.pointer(p).and_then(Value::as_str))
    .filter_map(|t| t.parse::<jiff::Timestamp>().ok())
    .max()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn events_k8s_io_requires_what_upstream_requires() {
        let errs = Hooks { core: false }.validate(&json!({"metadata": {"name": "e", "namespace": "ns"}}), None);
        let fields: Vec<(&str, &str)> = errs.iter().map(|e| (e.field.as_str(), e.cause.reason())).collect();
        // Without eventTime the legacy check applies too: no regarding
        // namespace is allowed only in "default".
        assert_eq!(
            fields,
            [
                ("involvedObject.namespace", "FieldValueInvalid"),
                ("eventTime", "FieldValueRequired"),
                ("type", "FieldValueInvalid")
            ]
        );
        let ok = json!({"metadata": {"name": "e", "namespace": "ns"}, "eventTime": "2026-01-01T00:00:00.000000Z",
            "reportingController": "example.com/op", "reportingInstance": "op-1", "action": "Reconcile",
            "reason": "Created", "type": "Normal", "regarding": {"namespace": "ns", "name": "x"}});
        assert!(Hooks { core: false }.validate(&ok, None).is_empty());
    }

    #[test]
    fn the_shapes_convert_both_ways_as_upstream_maps_them() {
        let events = json!({"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "e"},
            "note": "n", "regarding": {"name": "x"}, "reportingController": "c", "reportingInstance": "i",
            "deprecatedSource": {"component": "s"}, "deprecatedFirstTimestamp": "2026-01-01T00:00:00Z",
            "deprecatedLastTimestamp": "2026-01-02T00:00:00Z", "deprecatedCount": 3,
            "series": {"count": 2, "lastObservedTime": "2026-01-01T00:00:00.000000Z"},
            "eventTime": "2026-01-01T00:00:00.000000Z", "action": "A", "reason": "R", "type": "Normal",
            "related": {"name": "y"}});
        let core = convert(events.clone(), STORED).unwrap();
        assert_eq!(
            core,
            json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e"},
                "message": "n", "involvedObject": {"name": "x"}, "reportingComponent": "c", "reportingInstance": "i",
                "source": {"component": "s"}, "firstTimestamp": "2026-01-01T00:00:00Z",
                "lastTimestamp": "2026-01-02T00:00:00Z", "count": 3,
                "series": {"count": 2, "lastObservedTime": "2026-01-01T00:00:00.000000Z"},
                "eventTime": "2026-01-01T00:00:00.000000Z", "action": "A", "reason": "R", "type": "Normal",
                "related": {"name": "y"}})
        );
        assert_eq!(convert(core, "v1").unwrap(), events);
    }

    #[test]
    fn core_events_get_legacy_validation_only() {
        let old_style = json!({"metadata": {"name": "e", "namespace": "ns"}, "involvedObject": {"namespace": "other"}});
        let errs = Hooks { core: true }.validate(&old_style, None);
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].field, "involvedObject.namespace");
        assert!(Hooks { core: true }
            .validate(
                &json!({"metadata": {"name": "e", "namespace": "ns"}, "involvedObject": {"namespace": "ns"}}),
                None
            )
            .is_empty());
    }
}

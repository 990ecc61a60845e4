//! The table `kubectl get events` shows, as the apiserver prints an Event
//! for both APIs (`printEvent` in Kubernetes' `pkg/printers/internalversion`):
//! Last Seen, Type, Reason, Object (`kind/name`), Message, and, in wide
//! output, Subobject, Source, First Seen, Count and Name.

use jiff::Timestamp;
use serde_json::{json, Value};

use crate::resource::served::{PrinterColumn, TableCells};
use crate::resource::table::human_duration;

/// `(name, priority, format, description)` of each column.
const COLUMNS: &[(&str, i32, &str, &str)] = &[
    ("Last Seen", 0, "", "The time at which the most recent occurrence of this event was recorded."),
    ("Type", 0, "", "Type of this event (Normal, Warning), new types could be added in the future"),
    ("Reason", 0, "", "This should be a short, machine understandable string that gives the reason for the transition into the object's current status."),
    ("Object", 0, "", "The object that this event is about."),
    ("Subobject", 1, "", "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object reference is to a container within a pod, this would take on a value like: \"spec.containers{name}\" (where \"name\" refers to the name of the container that triggered the event) or if no container name is specified \"spec.containers[2]\" (container with index 2 in this pod). This syntax is chosen only to have some well-defined way of referencing a part of an object."),
    ("Source", 1, "", "The component reporting this event. Should be a short machine understandable string."),
    ("Message", 0, "", "A human-readable description of the status of this operation."),
    ("First Seen", 1, "", "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)"),
    ("Count", 1, "", "The number of times this event has occurred."),
    ("Name", 1, "name", "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"),
];

fn columns() -> Vec<PrinterColumn> {
    COLUMNS
        .iter()
        .map(|(name, priority, format, description)| PrinterColumn {
            name: (*name).into(),
            type_: "string".into(),
            format: (*format).into(),
            description: (*description).into(),
            priority: *priority,
            json_path: String::new(),
        })
        .collect()
}

fn str_at<'a>(obj: &'a Value, pointer: &str) -> &'a str {
    obj.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

/// `translateTimestampSince`: the age of a timestamp, `<unknown>` unset.
fn since(obj: &Value, pointer: &str, now: Timestamp) -> Option<String> {
    let then = str_at(obj, pointer).parse::<Timestamp>().ok()?;
    Some(human_duration(now.as_second() - then.as_second()))
}

/// `firstNonEmpty`.
fn first_non_empty<'a>(a: &'a str, b: &'a str) -> &'a str {
    if a.is_empty() {
        b
    } else {
        a
    }
}

/// One event's cells, from its core/v1 shape.
fn cells(obj: &Value, now: Timestamp) -> Vec<Value> {
    let unknown = || "<unknown>".to_string();
    let first = since(obj, "/firstTimestamp", now).or_else(|| since(obj, "/eventTime", now)).unwrap_or_else(unknown);
    let mut last = since(obj, "/lastTimestamp", now).unwrap_or_else(|| first.clone());
    let mut count = obj.get("count").and_then(Value::as_i64).unwrap_or(0);
    match obj.get("series").filter(|s| !s.is_null()) {
        Some(series) => {
            last = since(series, "/lastObservedTime", now).unwrap_or_else(unknown);
            count = series.get("count").and_then(Value::as_i64).unwrap_or(0);
        }
        None if count == 0 => count = 1,
        None => {}
    }
    let kind = str_at(obj, "/involvedObject/kind").to_lowercase();
    let target = match str_at(obj, "/involvedObject/name") {
        "" => kind,
        name => format!("{kind}/{name}"),
    };
    let component = first_non_empty(str_at(obj, "/source/component"), str_at(obj, "/reportingComponent"));
    let instance = first_non_empty(str_at(obj, "/source/host"), str_at(obj, "/reportingInstance"));
    let source = if instance.is_empty() { component.to_string() } else { format!("{component}, {instance}") };
    vec![
        json!(last),
        json!(str_at(obj, "/type")),
        json!(str_at(obj, "/reason")),
        json!(target),
        json!(str_at(obj, "/involvedObject/fieldPath")),
        json!(source),
        json!(str_at(obj, "/message").trim()),
        json!(first),
        json!(count),
        json!(str_at(obj, "/metadata/name")),
    ]
}

/// The table of `objects`, each in its core/v1 shape.
pub fn table<'a>(objects: impl Iterator<Item = std::borrow::Cow<'a, Value>>, now: Timestamp) -> TableCells {
    (columns(), objects.map(|obj| cells(&obj, now)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_show_what_upstream_prints() {
        let now: Timestamp = "2026-01-01T00:10:00Z".parse().unwrap();
        let recorded = json!({"metadata": {"name": "e"}, "eventTime": "2026-01-01T00:00:00.000000Z",
            "reportingComponent": "example.com/op", "reportingInstance": "op-1", "type": "Normal",
            "reason": "Scaled", "message": " scaled it ", "involvedObject": {"kind": "Parent", "name": "p"}});
        assert_eq!(
            cells(&recorded, now),
            [
                json!("10m"),
                json!("Normal"),
                json!("Scaled"),
                json!("parent/p"),
                json!(""),
                json!("example.com/op, op-1"),
                json!("scaled it"),
                json!("10m"),
                json!(1),
                json!("e")
            ]
        );
        let series = json!({"metadata": {"name": "s"}, "firstTimestamp": "2026-01-01T00:00:00Z",
            "lastTimestamp": "2026-01-01T00:05:00Z", "count": 4, "source": {"component": "kubelet"},
            "series": {"count": 7, "lastObservedTime": "2026-01-01T00:09:00.000000Z"}, "involvedObject": {"kind": "Node"}});
        let row = cells(&series, now);
        assert_eq!(
            (&row[0], &row[3], &row[5], &row[7], &row[8]),
            (&json!("60s"), &json!("node"), &json!("kubelet"), &json!("10m"), &json!(7))
        );
        assert_eq!(cells(&json!({}), now)[0], "<unknown>");
    }
}

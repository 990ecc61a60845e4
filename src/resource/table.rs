//! Objects as a `meta.k8s.io/v1` Table, as `kubectl get` shows them: a
//! Name column, then the version's `additionalPrinterColumns` (or Age when
//! it has none), each cell found by its JSONPath; dates are shown as ages
//! ("5m", "3d4h"), as Kubernetes shows them.

use jiff::Timestamp;
use serde_json::{json, Value};
use serde_json_path::JsonPath;

use super::served::{PrinterColumn, Served};

/// The list metadata of a table: its revision and paging.
#[derive(Debug, Default)]
pub struct ListMeta {
    pub resource_version: String,
    pub continue_token: String,
    pub remaining: Option<i64>,
}

/// What each row carries of its object: Kubernetes' `includeObject`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Include {
    None,
    /// A `PartialObjectMetadata` (the default).
    #[default]
    Metadata,
    /// The whole object, as `kubectl get --sort-by` needs it.
    Object,
}

impl Include {
    /// From the `includeObject` parameter, with Kubernetes' BadRequest.
    pub fn parse(value: &str) -> crate::error::Result<Self> {
        match value {
            "None" => Ok(Include::None),
            "" | "Metadata" => Ok(Include::Metadata),
            "Object" => Ok(Include::Object),
            other => Err(crate::error::Error::bad_request(format!("unrecognized includeObject value: {other:?}"))),
        }
    }
}

/// How a Table is written: its `apiVersion` (`meta.k8s.io/v1` or
/// `meta.k8s.io/v1beta1`, which Kubernetes still serves) and what its rows
/// carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub api_version: &'static str,
    pub include: Include,
}

impl Default for Shape {
    fn default() -> Self {
        Self { api_version: "meta.k8s.io/v1", include: Include::Metadata }
    }
}

fn name_column() -> PrinterColumn {
    PrinterColumn {
        name: "Name".into(),
        type_: "string".into(),
        format: "name".into(),
        description: "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names".into(),
        priority: 0,
        json_path: ".metadata.name".into(),
    }
}

/// The columns of `version`'s tables.
fn columns(served: &Served, version: &str) -> Vec<PrinterColumn> {
    let name = name_column();
    let declared = served.version(version).map(|v| v.columns.clone()).unwrap_or_default();
    let rest = if declared.is_empty() {
        vec![PrinterColumn {
            name: "Age".into(),
            type_: "date".into(),
            format: String::new(),
            description: "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata".into(),
            priority: 0,
            json_path: ".metadata.creationTimestamp".into(),
        }]
    } else {
        declared
    };
    std::iter::once(name).chain(rest).collect()
}

/// A Table of `objects` at `version`; `list` is set for a list.
pub fn table(
    served: &Served,
    version: &str,
    objects: &[Value],
    list: Option<&ListMeta>,
    now: Timestamp,
    shape: Shape,
) -> Value {
    // A built-in kind with a printer of its own (Kubernetes' for it).
    if let Some((columns, cells)) = served.hooks.as_ref().and_then(|h| h.table(objects, now)) {
        return assemble(&columns, cells, objects, list, shape);
    }
    table_of(&columns(served, version), objects, list, now, shape)
}

/// What a row carries of `object`.
fn row_object(object: &Value, shape: Shape) -> Value {
    match shape.include {
        Include::None => Value::Null,
        Include::Object => object.clone(),
        Include::Metadata => json!({
            "kind": "PartialObjectMetadata",
            "apiVersion": shape.api_version,
            "metadata": object.get("metadata").cloned().unwrap_or_else(|| json!({})),
        }),
    }
}

fn table_of(
    columns: &[PrinterColumn],
    objects: &[Value],
    list: Option<&ListMeta>,
    now: Timestamp,
    shape: Shape,
) -> Value {
    let paths: Vec<Option<JsonPath>> =
        columns.iter().map(|c| JsonPath::parse(&format!("${}", c.json_path)).ok()).collect();
    let cells = objects
        .iter()
        .map(|object| {
            columns
                .iter()
                .zip(&paths)
                .map(|(column, path)| {
                    let found = path.as_ref().and_then(|p| p.query(object).first());
                    cell(column, found, now)
                })
                .collect()
        })
        .collect();
    assemble(columns, cells, objects, list, shape)
}

/// The Table of `columns` with each object's `cells`.
fn assemble(
    columns: &[PrinterColumn],
    cells: Vec<Vec<Value>>,
    objects: &[Value],
    list: Option<&ListMeta>,
    shape: Shape,
) -> Value {
    let rows: Vec<Value> = cells
        .into_iter()
        .zip(objects)
        .map(|(cells, object)| json!({"cells": cells, "object": row_object(object, shape)}))
        .collect();
    let definitions: Vec<Value> = columns
        .iter()
        .map(|c| {
            // Kubernetes' text for a column without a description.
            let description = if c.description.is_empty() {
                format!("Custom resource definition column (in JSONPath format): {}", c.json_path)
            } else {
                c.description.clone()
            };
            json!({"name": c.name, "type": c.type_, "format": c.format, "description": description, "priority": c.priority})
        })
        .collect();
    let mut metadata = serde_json::Map::new();
    if let Some(list) = list {
        metadata.insert("resourceVersion".into(), json!(list.resource_version));
        if !list.continue_token.is_empty() {
            metadata.insert("continue".into(), json!(list.continue_token));
        }
        if let Some(remaining) = list.remaining {
            metadata.insert("remainingItemCount".into(), json!(remaining));
        }
    } else if let Some(rv) = objects.first().and_then(|o| o.pointer("/metadata/resourceVersion")) {
        metadata.insert("resourceVersion".into(), rv.clone());
    }
    json!({
        "kind": "Table",
        "apiVersion": shape.api_version,
        "metadata": metadata,
        "columnDefinitions": definitions,
        "rows": rows,
    })
}

/// A cell: the value found, shown as its column's type says
/// (`cellForJSONValue`): a value not of the column's type, or none, is null.
fn cell(column: &PrinterColumn, found: Option<&Value>, now: Timestamp) -> Value {
    let Some(value) = found else { return Value::Null };
    match (column.type_.as_str(), value) {
        ("date", Value::String(s)) if column.format == "date-time" => Value::String(s.clone()),
        ("date", Value::String(s)) => match s.parse::<Timestamp>() {
            Ok(then) => Value::String(human_duration(now.as_second() - then.as_second())),
            Err(_) => Value::String("<invalid>".into()),
        },
        // A string column prints whatever it finds, as kubectl's JSONPath does.
        ("string", Value::String(_)) => value.clone(),
        ("string", Value::Object(_) | Value::Array(_)) => Value::String(value.to_string()),
        ("string", Value::Number(n)) => Value::String(n.to_string()),
        ("string", Value::Bool(b)) => Value::String(b.to_string()),
        ("integer", Value::Number(n)) => match n.as_i64() {
            Some(i) => json!(i),
            None => n.as_f64().map_or(Value::Null, |f| json!(f as i64)),
        },
        ("number", Value::Number(n)) => n.as_f64().map_or(Value::Null, |f| json!(f)),
        ("boolean", Value::Bool(_)) => value.clone(),
        _ => Value::Null,
    }
}

/// Kubernetes' `duration.HumanDuration`: the age of an object at a glance.
pub fn human_duration(seconds: i64) -> String {
    if seconds < -1 {
        return "<invalid>".into();
    }
    let seconds = seconds.max(0);
    let minutes = seconds / 60;
    let hours = seconds / 3600;
    let days = hours / 24;
    let years = days / 365;
    let pair = |big: i64, big_unit: &str, small: i64, small_unit: &str| {
        if small == 0 {
            format!("{big}{big_unit}")
        } else {
            format!("{big}{big_unit}{small}{small_unit}")
        }
    };
    if seconds < 120 {
        format!("{seconds}s")
    } else if minutes < 10 {
        pair(minutes, "m", seconds % 60, "s")
    } else if minutes < 180 {
        format!("{minutes}m")
    } else if hours < 8 {
        pair(hours, "h", minutes % 60, "m")
    } else if hours < 48 {
        format!("{hours}h")
    } else if hours < 24 * 8 {
        pair(days, "d", hours % 24, "h")
    } else if days < 365 * 2 {
        format!("{days}d")
    } else if days < 365 * 8 {
        pair(years, "y", days % 365, "d")
    } else {
        format!("{years}y")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_take_their_column_type_and_columns_describe_their_path() {
        let column = |type_: &str| PrinterColumn {
            name: "C".into(),
            type_: type_.into(),
            format: String::new(),
            description: String::new(),
            priority: 0,
            json_path: ".spec.c".into(),
        };
        let now = Timestamp::from_second(1_000_000).unwrap();
        // TestTableGet: a value not of its column's type is null.
        for (type_, value, shown) in [
            ("integer", json!("bar"), Value::Null),
            ("integer", json!(10), json!(10)),
            ("integer", json!(2.0), json!(2)),
            ("number", json!(3), json!(3.0)),
            ("boolean", json!("true"), Value::Null),
            ("boolean", json!(true), json!(true)),
            ("string", json!([1, 2, 3]), json!("[1,2,3]")),
            ("string", json!(7), json!("7")),
            ("date", json!("yesterday"), json!("<invalid>")),
        ] {
            assert_eq!(cell(&column(type_), Some(&value), now), shown, "{type_} {value}");
        }
        let objects = [json!({"metadata": {"name": "a"}, "spec": {"c": 1}})];
        let table = table_of(&[column("integer")], &objects, None, now, Shape::default());
        assert_eq!(
            table["columnDefinitions"][0]["description"],
            "Custom resource definition column (in JSONPath format): .spec.c"
        );
        assert_eq!(table["rows"][0]["cells"], json!([1]));
    }

    #[test]
    fn ages_read_as_kubectl_shows_them() {
        for (seconds, shown) in [
            (5, "5s"),
            (119, "119s"),
            (150, "2m30s"),
            (600, "10m"),
            (3 * 3600 + 5 * 60, "3h5m"),
            (30 * 3600, "30h"),
            (3 * 86400 + 4 * 3600, "3d4h"),
            (40 * 86400, "40d"),
            (3 * 365 * 86400 + 86400, "3y1d"),
            (-5, "<invalid>"),
        ] {
            assert_eq!(human_duration(seconds), shown, "{seconds}");
        }
    }
}

//! The entries of `metadata.managedFields`: their operation and manager
//! identity, decoding and encoding in Kubernetes' order, reading and
//! setting them on an object, and the cap of ten Update entries
//! (`ancient-changes`).

use serde_json::{Map, Value};

use super::path::Set;

/// At most this many Update entries are kept, as `DefaultMaxUpdateManagers`.
pub const MAX_UPDATE_MANAGERS: usize = 10;

/// The manager the oldest Update entries are merged into.
const ANCIENT: &str = "ancient-changes";

/// An operation of a managedFields entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Operation {
    Apply,
    Update,
}

impl Operation {
    fn as_str(self) -> &'static str {
        match self {
            Operation::Apply => "Apply",
            Operation::Update => "Update",
        }
    }
}

/// One decoded managedFields entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub manager: String,
    pub operation: Operation,
    pub api_version: String,
    pub time: Option<String>,
    pub subresource: String,
    pub set: Set,
}

impl Entry {
    /// Whether `other` is the same manager (apiserver's manager identifier:
    /// an Apply entry's apiVersion is not part of it).
    pub(super) fn same(&self, manager: &str, operation: Operation, api_version: &str, subresource: &str) -> bool {
        self.manager == manager
            && self.operation == operation
            && self.subresource == subresource
            && (operation == Operation::Apply || self.api_version == api_version)
    }

    /// How a conflict names this manager, as the apiserver's `printManager`
    /// of a manager identifier (which never holds the time).
    pub(super) fn shown(&self) -> String {
        let mut s = format!("{:?}", self.manager);
        if !self.subresource.is_empty() {
            s = format!("{s} with subresource {:?}", self.subresource);
        }
        if self.operation == Operation::Update {
            s = format!("{s} using {}", self.api_version);
        }
        s
    }
}

/// Decodes managedFields; any invalid entry fails the whole list.
pub fn decode(list: &Value) -> std::result::Result<Vec<Entry>, String> {
    let items = match list {
        Value::Null => return Ok(Vec::new()),
        Value::Array(items) => items,
        _ => return Err("managedFields must be a list".into()),
    };
    let mut out: Vec<Entry> = Vec::with_capacity(items.len());
    for item in items {
        let map = item.as_object().ok_or("a managedFields entry must be an object")?;
        let text = |k: &str| map.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        let operation = match text("operation").as_str() {
            "Apply" => Operation::Apply,
            "Update" => Operation::Update,
            other => return Err(format!("operation must be `Apply` or `Update`, not {other:?}")),
        };
        if text("fieldsType") != "FieldsV1" {
            return Err(format!("invalid fieldsType {:?}", text("fieldsType")));
        }
        let set = Set::from_fields_v1(map.get("fieldsV1").unwrap_or(&Value::Object(Map::new())))?;
        let entry = Entry {
            manager: text("manager"),
            operation,
            api_version: text("apiVersion"),
            time: map.get("time").and_then(Value::as_str).map(String::from),
            subresource: text("subresource"),
            set,
        };
        if out.iter().any(|e| e.same(&entry.manager, operation, &entry.api_version, &entry.subresource)) {
            return Err(format!("duplicate manager {:?}", entry.manager));
        }
        out.push(entry);
    }
    Ok(out)
}

/// Encodes entries sorted as the apiserver sorts them: operation, time,
/// manager, apiVersion, subresource.
pub fn encode(mut entries: Vec<Entry>) -> Option<Value> {
    if entries.is_empty() {
        return None;
    }
    entries.sort_by(|p, q| {
        p.operation
            .cmp(&q.operation)
            .then_with(|| p.time.as_deref().unwrap_or("").cmp(q.time.as_deref().unwrap_or("")))
            .then_with(|| p.manager.cmp(&q.manager))
            .then_with(|| p.api_version.cmp(&q.api_version))
            .then_with(|| p.subresource.cmp(&q.subresource))
    });
    let items = entries
        .into_iter()
        .map(|e| {
            let mut map = Map::new();
            map.insert("manager".into(), Value::String(e.manager));
            map.insert("operation".into(), Value::String(e.operation.as_str().into()));
            map.insert("apiVersion".into(), Value::String(e.api_version));
            if let Some(time) = e.time {
                map.insert("time".into(), Value::String(time));
            }
            map.insert("fieldsType".into(), Value::String("FieldsV1".into()));
            map.insert("fieldsV1".into(), e.set.to_fields_v1());
            if !e.subresource.is_empty() {
                map.insert("subresource".into(), Value::String(e.subresource));
            }
            Value::Object(map)
        })
        .collect();
    Some(Value::Array(items))
}

/// The object's `metadata.managedFields`, if it has one.
pub(super) fn managed_fields_of(obj: &Value) -> Option<&Value> {
    obj.get("metadata").and_then(|m| m.get("managedFields"))
}

/// Removes `metadata.managedFields`.
pub(super) fn remove_managed_fields(obj: &mut Value) {
    if let Some(meta) = obj.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.remove("managedFields");
    }
}

/// Sets (or removes) `metadata.managedFields`.
pub fn set_managed_fields(obj: &mut Value, entries: Vec<Entry>) {
    match encode(entries) {
        Some(list) => {
            if let Some(map) = obj.as_object_mut() {
                let meta = map.entry("metadata").or_insert_with(|| Value::Object(Map::new()));
                if let Some(meta) = meta.as_object_mut() {
                    meta.insert("managedFields".into(), list);
                }
            }
        }
        None => remove_managed_fields(obj),
    }
}

/// Merges the oldest Update entries into `ancient-changes` while there are
/// more than `MAX_UPDATE_MANAGERS`, as `capmanagers.go`.
pub(super) fn cap(entries: &mut Vec<Entry>) {
    loop {
        let mut updaters: Vec<usize> =
            (0..entries.len()).filter(|&i| entries[i].operation == Operation::Update).collect();
        if updaters.len() <= MAX_UPDATE_MANAGERS {
            return;
        }
        updaters.sort_by(|&a, &b| {
            let (p, q) = (&entries[a], &entries[b]);
            p.time.as_deref().unwrap_or("").cmp(q.time.as_deref().unwrap_or("")).then_with(|| p.manager.cmp(&q.manager))
        });
        let Some(&oldest) = updaters.iter().find(|&&i| entries[i].manager != ANCIENT) else { return };
        let old = entries.remove(oldest);
        match entries.iter_mut().find(|e| e.same(ANCIENT, Operation::Update, &old.api_version, "")) {
            Some(bucket) => {
                bucket.set = bucket.set.union(&old.set);
                bucket.time = old.time;
            }
            None => entries.push(Entry { manager: ANCIENT.into(), subresource: String::new(), ..old }),
        }
    }
}

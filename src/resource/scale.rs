//! The scale subresource (`subresources.md`): reading an `autoscaling/v1`
//! Scale out of an object through the version's paths, writing only
//! `spec.replicas` back, and the checks every write of the object gets at
//! those paths.

use serde_json::{json, Map, Value};

use super::served::{ScalePaths, Served};
use crate::apimachinery::meta;
use crate::apimachinery::selector::LabelSelector;
use crate::apply::managed::{Entry, Operation};
use crate::apply::{PathElement, Set};
use crate::error::{Error, FieldError, Result};

/// The segments of a `.spec.replicas`-style path.
fn segments(path: &str) -> impl Iterator<Item = &str> {
    path.trim_start_matches('.').split('.').filter(|s| !s.is_empty())
}

/// The field path as Kubernetes writes it in errors (`spec.replicas`).
fn field(path: &str) -> String {
    path.trim_start_matches('.').to_string()
}

/// The value at `path`, if any.
pub fn get<'a>(obj: &'a Value, path: &str) -> Option<&'a Value> {
    segments(path).try_fold(obj, |at, segment| at.get(segment))
}

/// Sets the value at `path`, creating objects on the way.
fn set(obj: &mut Value, path: &str, value: Value) {
    let mut at = obj;
    for segment in segments(path) {
        if !at.is_object() {
            *at = Value::Object(Map::new());
        }
        at = at.as_object_mut().expect("made an object").entry(segment).or_insert(Value::Null);
    }
    *at = value;
}

/// Problems with a replicas value: an integer from 0 to 2147483647.
fn check_replicas(value: &Value, path: &str) -> Option<FieldError> {
    match value.as_i64() {
        Some(n) if n < 0 => Some(FieldError::invalid(field(path), n, "should be a non-negative integer")),
        Some(n) if n > i64::from(i32::MAX) => {
            Some(FieldError::invalid(field(path), n, format!("should be less than or equal to {}", i32::MAX)))
        }
        Some(_) => None,
        None => Some(FieldError::invalid(field(path), value.clone(), "should be an integer")),
    }
}

/// The checks every write of an object gets at its scale paths.
pub fn validate(obj: &Value, paths: &ScalePaths) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for path in [&paths.spec_replicas, &paths.status_replicas] {
        if let Some(err) = get(obj, path).filter(|v| !v.is_null()).and_then(|v| check_replicas(v, path)) {
            errs.push(err);
        }
    }
    if let Some(path) = &paths.label_selector {
        match get(obj, path) {
            None | Some(Value::Null) => {}
            Some(Value::String(selector)) => {
                if let Err(err) = LabelSelector::parse(selector) {
                    errs.push(FieldError::invalid(field(path), selector.as_str(), err.message));
                }
            }
            Some(other) => {
                errs.push(FieldError::invalid(field(path), other.clone(), "should be a serialized label selector"))
            }
        }
    }
    errs
}

/// The Scale of `obj`. An object without its spec replicas is an error that
/// names the path.
pub fn read(obj: &Value, paths: &ScalePaths) -> Result<Value> {
    let spec = get(obj, &paths.spec_replicas)
        .and_then(Value::as_i64)
        .ok_or_else(|| Error::internal(format!("the spec replicas field {:?} does not exist", paths.spec_replicas)))?;
    let status = get(obj, &paths.status_replicas).and_then(Value::as_i64).unwrap_or(0);
    let mut scale_status = json!({"replicas": status});
    if let Some(selector) = paths.label_selector.as_deref().and_then(|p| get(obj, p)).and_then(Value::as_str) {
        scale_status["selector"] = Value::String(selector.to_string());
    }
    let mut metadata = Map::new();
    for key in ["name", "namespace", "uid", "resourceVersion", "creationTimestamp"] {
        if let Some(v) = obj.get("metadata").and_then(|m| m.get(key)) {
            metadata.insert(key.into(), v.clone());
        }
    }
    Ok(
        json!({"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": metadata, "spec": {"replicas": spec}, "status": scale_status}),
    )
}

/// The desired replicas of a written Scale: `spec.replicas`, an integer.
pub fn desired_replicas(scale: &Value, name: &str) -> Result<i64> {
    let invalid = |causes| Error::invalid("autoscaling", "Scale", name, causes);
    match scale.get("spec").and_then(|s| s.get("replicas")) {
        None | Some(Value::Null) => Err(invalid(vec![FieldError::required("spec.replicas", "")])),
        Some(value) => match check_replicas(value, ".spec.replicas") {
            Some(err) => Err(invalid(vec![err])),
            None => Ok(value.as_i64().expect("checked as an integer")),
        },
    }
}

/// `obj` with `replicas` written at the spec replicas path.
pub fn apply(obj: &Value, paths: &ScalePaths, replicas: i64) -> Value {
    let mut obj = obj.clone();
    set(&mut obj, &paths.spec_replicas, Value::from(replicas));
    meta::strip_resource_version(&mut obj);
    obj
}

/// The field path of a replicas path, as Kubernetes' scale handler splits
/// it: on dots, each segment a field name (`.spec.replicas[0]` is the field
/// `replicas[0]` of `spec`).
fn field_path(path: &str) -> Vec<PathElement> {
    segments(path).map(|s| PathElement::Field(s.to_string())).collect()
}

/// The replicas path of every version of `served`, by apiVersion (None for
/// a version without the scale subresource): Kubernetes'
/// `ResourcePathMappings` of a custom resource.
pub fn path_mappings(served: &Served) -> Vec<(String, Option<Vec<PathElement>>)> {
    let path = |v: &super::served::Version| v.scale.as_ref().map(|p| field_path(&p.spec_replicas));
    served.versions.iter().map(|v| (served.api_version(&v.name), path(v))).collect()
}

/// The managedFields of an object after `manager` wrote its Scale through
/// `api_version`, as apimachinery's `ScaleHandler` (`ToSubresource`, the
/// Scale's Update, `ToParent`): when the replicas changed, every entry that
/// owned its version's replicas path loses it (and goes when left empty),
/// and `manager` owns the request version's path in an Update entry at
/// subresource `scale`; a new such entry has no time, as the handler takes
/// times from the object's entries. Entries of apiVersions the definition
/// does not have are dropped.
pub fn managed_fields(
    entries: Vec<Entry>,
    mappings: &[(String, Option<Vec<PathElement>>)],
    api_version: &str,
    manager: &str,
    changed: bool,
) -> Vec<Entry> {
    let manager = if manager.is_empty() { "unknown" } else { manager };
    let mapping = |v: &str| mappings.iter().find(|(api, _)| api == v).map(|(_, path)| path.as_ref());
    let own = |e: &Entry| {
        e.manager == manager
            && e.operation == Operation::Update
            && e.subresource == "scale"
            && e.api_version == api_version
    };
    let mut out = Vec::with_capacity(entries.len() + 1);
    for mut entry in entries {
        let Some(path) = mapping(&entry.api_version) else { continue };
        if let Some(path) = path.filter(|p| changed && !own(&entry) && entry.set.has(p)) {
            let mut stolen = Set::new();
            stolen.insert(path);
            entry.set = entry.set.difference(&stolen);
            if entry.set.is_empty() {
                continue;
            }
        }
        out.push(entry);
    }
    let Some(Some(path)) = mapping(api_version) else { return out };
    if changed {
        match out.iter_mut().find(|e| own(e)) {
            Some(entry) => entry.set.insert(path),
            None => {
                let mut set = Set::new();
                set.insert(path);
                out.push(Entry {
                    manager: manager.to_string(),
                    operation: Operation::Update,
                    api_version: api_version.to_string(),
                    time: None,
                    subresource: "scale".into(),
                    set,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths() -> ScalePaths {
        ScalePaths {
            spec_replicas: ".spec.replicas".into(),
            status_replicas: ".status.replicas".into(),
            label_selector: Some(".status.selector".into()),
        }
    }

    #[test]
    fn reads_and_writes_through_the_paths() {
        let obj =
            json!({"metadata": {"name": "a", "uid": "u"}, "spec": {"replicas": 3}, "status": {"selector": "app=web"}});
        let scale = read(&obj, &paths()).unwrap();
        assert_eq!(scale["spec"]["replicas"], 3);
        assert_eq!(scale["status"], json!({"replicas": 0, "selector": "app=web"}));
        let written = apply(&json!({"metadata": {}}), &paths(), 5);
        assert_eq!(written["spec"]["replicas"], 5);
        assert!(read(&json!({"spec": {}}), &paths()).unwrap_err().message.contains(".spec.replicas"));
    }

    #[test]
    fn replicas_must_fit_an_int32_and_selectors_must_parse() {
        let errs = validate(
            &json!({"spec": {"replicas": 2147483648i64}, "status": {"replicas": -1, "selector": "a in b"}}),
            &paths(),
        );
        let fields: Vec<_> = errs.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["spec.replicas", "status.replicas", "status.selector"]);
        assert!(errs[0].to_string().ends_with("should be less than or equal to 2147483647"));
        assert!(errs[1].to_string().ends_with("should be a non-negative integer"));
        assert!(validate(&json!({"spec": {"replicas": 1}}), &paths()).is_empty());
    }

    fn entry(manager: &str, operation: Operation, api_version: &str, fields: Value) -> Entry {
        Entry {
            manager: manager.into(),
            operation,
            api_version: api_version.into(),
            time: Some("2026-01-01T00:00:00Z".into()),
            subresource: String::new(),
            set: Set::from_fields_v1(&fields).unwrap(),
        }
    }

    #[test]
    fn a_scale_write_moves_the_replicas_of_every_version_to_its_manager() {
        let mappings = vec![
            ("g/v1beta1".to_string(), Some(field_path(".spec.replicas[0]"))),
            ("g/v1".to_string(), Some(field_path(".spec.replicas"))),
            ("g/v0".to_string(), None),
        ];
        let entries = vec![
            entry("applier", Operation::Apply, "g/v1", json!({"f:spec": {".": {}, "f:replicas": {}}})),
            entry("creator", Operation::Update, "g/v1beta1", json!({"f:spec": {"f:num": {}, "f:replicas[0]": {}}})),
            entry("lone", Operation::Update, "g/v1", json!({"f:spec": {"f:replicas": {}}})),
            entry("old", Operation::Update, "g/v0", json!({"f:spec": {"f:replicas": {}}})),
            entry("gone", Operation::Update, "other/v1", json!({"f:spec": {}})),
        ];
        let out = managed_fields(entries.clone(), &mappings, "g/v1", "scaler", true);
        let shown: Vec<_> = out.iter().map(|e| (e.manager.as_str(), e.set.to_fields_v1())).collect();
        assert_eq!(
            shown,
            [
                ("applier", json!({"f:spec": {}})),
                ("creator", json!({"f:spec": {"f:num": {}}})),
                ("old", json!({"f:spec": {"f:replicas": {}}})),
                ("scaler", json!({"f:spec": {"f:replicas": {}}})),
            ]
        );
        let scaler = &out[3];
        assert_eq!(
            (scaler.operation, scaler.subresource.as_str(), scaler.time.as_deref()),
            (Operation::Update, "scale", None)
        );
        // The same replicas: nobody's fields move.
        let same = managed_fields(entries, &mappings, "g/v1", "scaler", false);
        assert_eq!(same.len(), 4);
        assert!(same.iter().all(|e| e.manager != "scaler"));
    }
}

//! The scale subresource (`subresources.md`): reading an `autoscaling/v1`
//! Scale out of an object through the version's paths, writing only
//! `spec.replicas` back, and the checks every write of the object gets at
//! those paths.

use serde_json::{json, Map, Value};

use super::served::ScalePaths;
use crate::apimachinery::meta;
use crate::apimachinery::selector::LabelSelector;
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
}

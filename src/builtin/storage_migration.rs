//! `storagemigration.k8s.io/v1` `StorageVersionMigration`: Kubernetes'
//! `ValidateStorageVersionMigration`, its update and its status update,
//! each error at its path with upstream's words. Served like every other
//! kind; `crate::migration` runs what the objects ask for.

use serde_json::Value;

use crate::error::FieldError;
use crate::resource::served::KindHooks;

#[derive(Debug)]
pub struct Hooks;

fn text<'a>(obj: &'a Value, pointer: &str) -> &'a str {
    obj.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

/// Whether condition `type_` is `True`.
fn is_true(obj: &Value, type_: &str) -> bool {
    let conditions = obj.pointer("/status/conditions").and_then(Value::as_array);
    let found = conditions.into_iter().flatten().find(|c| c.get("type").and_then(Value::as_str) == Some(type_));
    found.is_some_and(|c| c.get("status").and_then(Value::as_str) == Some("True"))
}

/// `validateConditions`: no type twice, a known status, a reason.
fn check_conditions(obj: &Value, errs: &mut Vec<FieldError>) {
    let conditions = obj.pointer("/status/conditions").and_then(Value::as_array);
    let mut seen = Vec::new();
    for (i, condition) in conditions.into_iter().flatten().enumerate() {
        let type_ = condition.get("type").and_then(Value::as_str).unwrap_or("");
        if seen.contains(&type_) {
            errs.push(FieldError::duplicate(format!("status.conditions[{i}].type"), type_));
        }
        seen.push(type_);
        let status = condition.get("status").and_then(Value::as_str).unwrap_or("");
        if !["False", "True", "Unknown"].contains(&status) {
            errs.push(FieldError::not_supported(
                format!("status.conditions[{i}].status"),
                status,
                &["False", "True", "Unknown"],
            ));
        }
        if condition.get("reason").and_then(Value::as_str).unwrap_or("").is_empty() {
            errs.push(FieldError::required(format!("status.conditions[{i}].reason"), ""));
        }
    }
}

impl KindHooks for Hooks {
    fn validate(&self, obj: &Value, old: Option<&Value>) -> Vec<FieldError> {
        let mut errs = Vec::new();
        if text(obj, "/spec/resource/resource").is_empty() {
            errs.push(FieldError::required("spec.resource.resource", "resource is required"));
        }
        if let Some(old) = old {
            for field in ["group", "resource"] {
                let pointer = format!("/spec/resource/{field}");
                if text(obj, &pointer) != text(old, &pointer) {
                    let path = format!("spec.resource.{field}");
                    errs.push(FieldError::invalid(path, text(obj, &pointer), "field is immutable"));
                }
            }
        }
        errs
    }

    fn validate_status(&self, obj: &Value, old: &Value) -> Vec<FieldError> {
        let mut errs = Vec::new();
        let rv = text(obj, "/status/resourceVersion");
        if !rv.is_empty() && rv.parse::<u64>().is_err() {
            let message = format!("failed to parse resource version {rv:?}");
            errs.push(FieldError::invalid("status.resourceVersion", rv, message));
        }
        let old_rv = text(old, "/status/resourceVersion");
        if !old_rv.is_empty() && old_rv != rv {
            errs.push(FieldError::invalid("status.resourceVersion", rv, "cannot be updated"));
        }
        check_conditions(obj, &mut errs);
        let conditions = obj.pointer("/status/conditions").cloned().unwrap_or(Value::Null);
        let (succeeded, failed, running) = (is_true(obj, "Succeeded"), is_true(obj, "Failed"), is_true(obj, "Running"));
        let mut refuse =
            |message: &str| errs.push(FieldError::invalid("status.conditions", conditions.clone(), message));
        if succeeded && failed {
            refuse("Both success and failed conditions cannot be true at the same time");
        }
        if succeeded && running {
            refuse("Running condition cannot be true when success condition is true");
        }
        if failed && running {
            refuse("Running condition cannot be true when failed condition is true");
        }
        if is_true(old, "Succeeded") && !succeeded {
            refuse("Success condition cannot be set to false once it is true");
        }
        if is_true(old, "Failed") && !failed {
            refuse("Failed condition cannot be set to false once it is true");
        }
        errs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn paths(errs: &[FieldError]) -> Vec<&str> {
        errs.iter().map(|e| e.field.as_str()).collect()
    }

    #[test]
    fn the_resource_is_required_and_immutable() {
        assert_eq!(
            paths(&Hooks.validate(&json!({"spec": {"resource": {"group": "g"}}}), None)),
            ["spec.resource.resource"]
        );
        let old = json!({"spec": {"resource": {"group": "g", "resource": "r"}}});
        let new = json!({"spec": {"resource": {"group": "h", "resource": "r"}}});
        assert_eq!(paths(&Hooks.validate(&new, Some(&old))), ["spec.resource.group"]);
        assert!(Hooks.validate(&old, Some(&old)).is_empty());
    }

    #[test]
    fn an_ended_migration_stays_ended() {
        let cond = |t: &str, s: &str| json!({"type": t, "status": s, "reason": "R", "lastTransitionTime": null});
        let done = json!({"status": {"resourceVersion": "5", "conditions": [cond("Running", "False"), cond("Succeeded", "True")]}});
        let undone = json!({"status": {"resourceVersion": "5", "conditions": [cond("Running", "True"), cond("Succeeded", "False")]}});
        let messages: Vec<String> = Hooks.validate_status(&undone, &done).iter().map(|e| e.detail.clone()).collect();
        assert_eq!(messages, ["Success condition cannot be set to false once it is true"]);
        let moved = json!({"status": {"resourceVersion": "6", "conditions": [cond("Running", "False"), cond("Succeeded", "True")]}});
        assert_eq!(paths(&Hooks.validate_status(&moved, &done)), ["status.resourceVersion"]);
        assert!(Hooks.validate_status(&done, &done).is_empty());
    }
}

//! `coordination.k8s.io/v1` `Lease`: `ValidateLeaseSpec`, each error at its
//! path with upstream's words, so client-go's leader election sees what it
//! sees against Kubernetes.

use serde_json::Value;

use crate::error::FieldError;
use crate::resource::served::KindHooks;

#[derive(Debug)]
pub struct Hooks;

impl KindHooks for Hooks {
    fn validate(&self, obj: &Value, _old: Option<&Value>) -> Vec<FieldError> {
        let spec = obj.get("spec").cloned().unwrap_or(Value::Null);
        let mut errs = Vec::new();
        if let Some(seconds) = spec.get("leaseDurationSeconds").and_then(Value::as_i64) {
            if seconds <= 0 {
                errs.push(FieldError::invalid("spec.leaseDurationSeconds", seconds, "must be greater than 0"));
            }
        }
        if let Some(transitions) = spec.get("leaseTransitions").and_then(Value::as_i64) {
            if transitions < 0 {
                errs.push(FieldError::invalid(
                    "spec.leaseTransitions",
                    transitions,
                    "must be greater than or equal to 0",
                ));
            }
        }
        let strategy = spec.get("strategy").and_then(Value::as_str);
        if let Some(strategy) = strategy {
            // ValidateCoordinatedLeaseStrategy: a qualified name.
            for msg in crate::apimachinery::dns::qualified_name(strategy) {
                errs.push(FieldError::invalid("spec.strategy", strategy, msg));
            }
        }
        let preferred = spec.get("preferredHolder").and_then(Value::as_str).unwrap_or("");
        if !preferred.is_empty() && strategy.unwrap_or("").is_empty() {
            errs.push(FieldError::forbidden("spec.preferredHolder", "may only be specified if `strategy` is defined"));
        }
        errs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn spec_numbers_and_holder_are_checked_at_their_paths() {
        let errs = Hooks.validate(
            &json!({"spec": {"leaseDurationSeconds": 0, "leaseTransitions": -1, "preferredHolder": "a"}}),
            None,
        );
        let fields: Vec<&str> = errs.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["spec.leaseDurationSeconds", "spec.leaseTransitions", "spec.preferredHolder"]);
        assert!(Hooks.validate(&json!({"spec": {"holderIdentity": "a", "leaseDurationSeconds": 15}}), None).is_empty());
    }
}

//! Definition conditions (`NamesAccepted`, `Established`, `Terminating`):
//! reading them, and setting one the way Kubernetes' `SetCRDCondition` does,
//! keeping the transition time unless the status changes.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, CustomResourceDefinitionCondition, CustomResourceDefinitionStatus,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

/// The condition of type `kind`, if present.
pub fn find<'a>(crd: &'a CustomResourceDefinition, kind: &str) -> Option<&'a CustomResourceDefinitionCondition> {
    crd.status.as_ref()?.conditions.as_ref()?.iter().find(|c| c.type_ == kind)
}

/// The condition of type `kind` in a status, if present.
pub fn find_in<'a>(
    status: &'a CustomResourceDefinitionStatus,
    kind: &str,
) -> Option<&'a CustomResourceDefinitionCondition> {
    status.conditions.as_ref()?.iter().find(|c| c.type_ == kind)
}

/// Whether the condition of type `kind` is `True`.
pub fn is_true(crd: &CustomResourceDefinition, kind: &str) -> bool {
    find(crd, kind).is_some_and(|c| c.status == "True")
}

/// A condition with the given type, status, reason and message.
pub fn condition(kind: &str, status: &str, reason: &str, message: &str) -> CustomResourceDefinitionCondition {
    CustomResourceDefinitionCondition {
        type_: kind.into(),
        status: status.into(),
        reason: Some(reason.into()),
        message: Some(message.into()),
        last_transition_time: None,
        observed_generation: None,
    }
}

fn now() -> Time {
    Time(jiff::Timestamp::now().round(jiff::Unit::Second).expect("rounding a timestamp to seconds"))
}

/// Sets `new` on `status`: the transition time moves only when the status
/// value changes (or was never set).
pub fn set(status: &mut CustomResourceDefinitionStatus, mut new: CustomResourceDefinitionCondition) {
    let conditions = status.conditions.get_or_insert_with(Vec::new);
    match conditions.iter_mut().find(|c| c.type_ == new.type_) {
        None => {
            new.last_transition_time = Some(now());
            conditions.push(new);
        }
        Some(existing) => {
            if existing.status != new.status || existing.last_transition_time.is_none() {
                existing.last_transition_time = Some(now());
            }
            existing.status = new.status;
            existing.reason = new.reason;
            existing.message = new.message;
        }
    }
}

/// Removes the condition of type `kind`.
pub fn remove(status: &mut CustomResourceDefinitionStatus, kind: &str) {
    if let Some(conditions) = status.conditions.as_mut() {
        conditions.retain(|c| c.type_ != kind);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transition_time_moves_only_on_status_change() {
        let mut status = CustomResourceDefinitionStatus::default();
        set(&mut status, condition("Established", "False", "Installing", "x"));
        let first = status.conditions.as_ref().unwrap()[0].last_transition_time.clone();
        let mut reset = status.clone();
        reset.conditions.as_mut().unwrap()[0].last_transition_time = Some(Time(jiff::Timestamp::UNIX_EPOCH));
        set(&mut reset, condition("Established", "False", "Still", "y"));
        let kept = &reset.conditions.as_ref().unwrap()[0];
        assert_eq!(kept.last_transition_time, Some(Time(jiff::Timestamp::UNIX_EPOCH)));
        assert_eq!(kept.reason.as_deref(), Some("Still"));
        set(&mut reset, condition("Established", "True", "Ok", "z"));
        assert_ne!(reset.conditions.as_ref().unwrap()[0].last_transition_time, Some(Time(jiff::Timestamp::UNIX_EPOCH)));
        assert!(first.is_some());
    }
}

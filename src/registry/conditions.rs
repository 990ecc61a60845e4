//! Definition conditions (`NamesAccepted`, `Established`, `Terminating`,
//! `KubernetesAPIApprovalPolicyConformant`): reading them, and setting one
//! the way Kubernetes' `SetCRDCondition` does, keeping the transition time
//! unless the status changes. Also the API approval state of a definition in
//! a protected group, and whether its conversion webhook's CA bundle holds a
//! certificate (a definition with one that does not is never established).

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

/// Now, to the second, as Kubernetes' condition times are.
pub fn now() -> Time {
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

/// The annotation that approves a definition in a Kubernetes-owned group.
pub const API_APPROVED: &str = "api-approved.kubernetes.io";

/// Groups under `k8s.io` and `kubernetes.io` (Kubernetes'
/// `IsProtectedCommunityGroup`).
pub fn is_protected_group(group: &str) -> bool {
    ["k8s.io", "kubernetes.io"].iter().any(|g| group == *g || group.ends_with(&format!(".{g}")))
}

/// The state of a definition's API approval (`GetAPIApprovalState`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Approval {
    Invalid,
    Approved,
    Bypassed,
    Missing,
}

/// Whether `text` is an absolute URL with a scheme and a host, as Go's
/// `url.ParseRequestURI` reads one.
fn is_url_with_host(text: &str) -> bool {
    let Some((scheme, rest)) = text.split_once("://") else { return false };
    let scheme_ok = scheme.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
    scheme_ok && !host.is_empty() && !text.chars().any(|c| c.is_control() || c == ' ')
}

/// The approval state of `annotations` and why, in Kubernetes' words.
pub fn approval_state(annotations: Option<&std::collections::BTreeMap<String, String>>) -> (Approval, String) {
    let annotation = annotations.and_then(|a| a.get(API_APPROVED)).map_or("", String::as_str);
    if annotation.is_empty() {
        let why = format!("protected groups must have approval annotation {API_APPROVED:?}, see https://github.com/kubernetes/enhancements/pull/1111");
        (Approval::Missing, why)
    } else if annotation.starts_with("unapproved") {
        (Approval::Bypassed, format!("not approved: {annotation:?}"))
    } else if is_url_with_host(annotation) {
        (Approval::Approved, format!("approved in {annotation}"))
    } else {
        let why = format!("protected groups must have approval annotation {API_APPROVED:?} with either a URL or a reason starting with \"unapproved\", see https://github.com/kubernetes/enhancements/pull/1111");
        (Approval::Invalid, why)
    }
}

/// Sets `KubernetesAPIApprovalPolicyConformant` on a definition in a
/// protected group, as Kubernetes' API approval controller does (and
/// removes it from any other).
pub fn set_api_approval(crd: &mut CustomResourceDefinition) {
    const KIND: &str = "KubernetesAPIApprovalPolicyConformant";
    let protected = is_protected_group(&crd.spec.group);
    let (state, why) = approval_state(crd.metadata.annotations.as_ref());
    let status = crd.status.get_or_insert_with(Default::default);
    if !protected {
        remove(status, KIND);
        return;
    }
    let new = match state {
        Approval::Invalid => condition(KIND, "False", "InvalidAnnotation", &why),
        Approval::Missing => condition(KIND, "False", "MissingAnnotation", &why),
        Approval::Approved => condition(KIND, "True", "ApprovedAnnotation", &why),
        Approval::Bypassed => condition(KIND, "False", "UnapprovedAnnotation", &why),
    };
    set(status, new);
}

/// Whether the conversion webhook's CA bundle is set and holds no PEM
/// certificate, as Go's `AppendCertsFromPEM` would find: a definition with
/// one is not established (`Established=False`, `InvalidCABundle`). A block
/// counts when it is a `CERTIFICATE` whose base64 decodes to one DER
/// SEQUENCE spanning it.
pub fn ca_bundle_invalid(crd: &CustomResourceDefinition) -> bool {
    let bundle = crd
        .spec
        .conversion
        .as_ref()
        .and_then(|c| c.webhook.as_ref())
        .and_then(|w| w.client_config.as_ref())
        .and_then(|c| c.ca_bundle.as_ref());
    match bundle {
        None => false,
        Some(bundle) if bundle.0.is_empty() => false,
        Some(bundle) => !holds_certificate(&bundle.0),
    }
}

fn holds_certificate(pem: &[u8]) -> bool {
    use base64::Engine;
    let Ok(text) = std::str::from_utf8(pem) else { return false };
    let mut rest = text;
    while let Some(start) = rest.find("-----BEGIN CERTIFICATE-----") {
        let body = &rest[start + "-----BEGIN CERTIFICATE-----".len()..];
        let Some(end) = body.find("-----END CERTIFICATE-----") else { return false };
        let b64: String = body[..end].chars().filter(|c| !c.is_whitespace()).collect();
        if let Ok(der) = base64::engine::general_purpose::STANDARD.decode(b64) {
            if is_der_sequence(&der) {
                return true;
            }
        }
        rest = &body[end..];
    }
    false
}

/// Whether `der` is exactly one DER SEQUENCE.
fn is_der_sequence(der: &[u8]) -> bool {
    let [0x30, first, rest @ ..] = der else { return false };
    let (len, content) = match *first {
        n if n < 0x80 => (n as usize, rest),
        0x81..=0x84 => {
            let bytes = (*first - 0x80) as usize;
            if rest.len() < bytes {
                return false;
            }
            (rest[..bytes].iter().fold(0usize, |acc, b| (acc << 8) | *b as usize), &rest[bytes..])
        }
        _ => return false,
    };
    len == content.len() && len > 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn approval_states_are_read_as_kubernetes_reads_them() {
        let state = |value: &str| {
            let annotations = std::collections::BTreeMap::from([(API_APPROVED.to_string(), value.to_string())]);
            approval_state(Some(&annotations)).0
        };
        assert_eq!(state(""), Approval::Missing);
        assert_eq!(state("unapproved, test-only"), Approval::Bypassed);
        assert_eq!(state("https://github.com/kubernetes/kubernetes/pull/79724"), Approval::Approved);
        assert_eq!(state("yes"), Approval::Invalid);
        assert_eq!(state("https://"), Approval::Invalid);
        assert!(is_protected_group("sigs.k8s.io") && is_protected_group("kubernetes.io"));
        assert!(!is_protected_group("example.com") && !is_protected_group("notk8s.io"));
    }

    #[test]
    fn a_ca_bundle_must_hold_a_certificate() {
        assert!(!holds_certificate(b"\n"));
        let pem = "-----BEGIN CERTIFICATE-----\nMAMCAQE=\n-----END CERTIFICATE-----\n";
        assert!(holds_certificate(pem.as_bytes()));
        assert!(!holds_certificate(b"-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----"));
    }

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

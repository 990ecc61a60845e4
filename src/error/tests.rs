//! Unit tests of the error's messages, in Kubernetes' words.

use super::*;

#[test]
fn invalid_message_lists_every_cause_like_kubernetes() {
    let err = Error::invalid(
        "apiextensions.k8s.io",
        "CustomResourceDefinition",
        "foos.example.com",
        vec![
            FieldError::required("spec.names.kind", ""),
            FieldError::not_supported("spec.scope", "Global", &["Cluster", "Namespaced"]),
        ],
    );
    assert_eq!(
        err.message,
        "CustomResourceDefinition.apiextensions.k8s.io \"foos.example.com\" is invalid: \
         [spec.names.kind: Required value, spec.scope: Unsupported value: \"Global\": \
         supported values: \"Cluster\", \"Namespaced\"]"
    );
    assert_eq!(err.details.causes.len(), 2);
}

#[test]
fn single_cause_has_no_brackets() {
    let err = Error::invalid("g", "K", "n", vec![FieldError::invalid("spec.x", 15, "must be small")]);
    assert_eq!(err.message, "K.g \"n\" is invalid: spec.x: Invalid value: 15: must be small");
}

#[test]
fn stale_conflict_uses_kubernetes_words() {
    let err = Error::stale("example.com", "foos", "a");
    assert_eq!(
        err.message,
        "Operation cannot be fulfilled on foos.example.com \"a\": the object has been modified; \
         please apply your changes to the latest version and try again"
    );
}

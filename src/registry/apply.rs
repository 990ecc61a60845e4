//! The typed schema of a definition, as server-side apply tracks its
//! fields: the schema the definitions' kind is served with
//! (`resource::definitions`).

use serde_json::{json, Value};

/// The typed schema of a CustomResourceDefinition as the generated
/// OpenAPI of k8s.io/apiextensions-apiserver's v1 types marks it: lists are
/// atomic unless marked (`versions`, `additionalPrinterColumns`,
/// `selectableFields`, `shortNames`, `categories`,
/// `conversionReviewVersions` and `storedVersions` are `+listType=atomic`;
/// `status.conditions` is `+listType=map` keyed by `type`), structs are
/// granular. The items of `versions` are left untyped: the list is owned
/// whole, so nothing below it is tracked on its own.
pub fn definition_schema_json() -> Value {
    let s = json!({"type": "string"});
    let strings = json!({"type": "array", "items": s, "x-kubernetes-list-type": "atomic"});
    let atomic = json!({"type": "array", "x-kubernetes-list-type": "atomic",
        "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}});
    let names = json!({"type": "object", "properties": {
        "plural": s, "singular": s, "shortNames": strings, "kind": s, "listKind": s, "categories": strings}});
    let service = json!({"type": "object", "properties": {
        "namespace": s, "name": s, "path": s, "port": {"type": "integer"}}});
    let conversion = json!({"type": "object", "properties": {
        "strategy": s,
        "webhook": {"type": "object", "properties": {
            "clientConfig": {"type": "object", "properties": {"url": s, "service": service, "caBundle": s}},
            "conversionReviewVersions": strings}}}});
    let condition = json!({"type": "object", "properties": {
        "type": s, "status": s, "lastTransitionTime": s, "reason": s, "message": s,
        "observedGeneration": {"type": "integer"}}});
    json!({"type": "object", "properties": {
        "spec": {"type": "object", "properties": {
            "group": s, "names": names, "scope": s, "versions": atomic, "conversion": conversion,
            "preserveUnknownFields": {"type": "boolean"}}},
        "status": {"type": "object", "properties": {
            "conditions": {"type": "array", "items": condition,
                "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"]},
            "acceptedNames": names,
            "storedVersions": strings}}}})
}

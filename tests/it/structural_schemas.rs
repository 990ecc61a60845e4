//! Non-structural schemas refused as Kubernetes refuses them (issue 19,
//! upstream's TestNonStructuralSchemaConditionForCRDV1): at
//! `spec.validation.openAPIV3Schema` when every version shares the schema,
//! in Kubernetes' words (`must be false to be structural` inside junctors,
//! a Required type for an embedded resource), the int-or-string pattern
//! accepted inside anyOf, errors sorted as `ValidateStructural` sorts them,
//! and defaults checked only once the schema is structural.

use reqwest::{Client, StatusCode};
use serde_json::{json, Value};

use crate::support::{Crd, TestServer};

/// Creates a two-version definition whose versions share `schema`; the
/// status and the body.
async fn create(t: &TestServer, name: &str, schema: Value) -> (StatusCode, Value) {
    let version = |v: &str, storage: bool| json!({"name": v, "served": true, "storage": storage, "schema": {"openAPIV3Schema": schema}});
    let crd =
        Crd::new(&format!("{name}.example.com"), "Foo").versions(vec![version("v1beta1", true), version("v1", false)]);
    let response = Client::new()
        .post(format!("http://{}/apis/apiextensions.k8s.io/v1/customresourcedefinitions", t.server().http_addr))
        .header("content-type", "application/json")
        .body(crd.bytes())
        .send()
        .await
        .unwrap();
    (response.status(), response.json().await.unwrap())
}

fn causes(body: &Value) -> Vec<String> {
    body["details"]["causes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| format!("{}: {}", c["field"].as_str().unwrap(), c["message"].as_str().unwrap()))
        .collect()
}

#[tokio::test]
async fn non_structural_schemas_are_refused_in_kubernetes_words_and_order() {
    let t = TestServer::start().await;
    let root = "spec.validation.openAPIV3Schema";

    let (status, body) = create(
        &t,
        "a",
        json!({"type": "", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        causes(&body),
        [format!("{root}.type: Required value: must be object if x-kubernetes-embedded-resource is true")],
        "no 'must not be empty at the root' beside it"
    );

    let (status, body) = create(&t, "b", json!({"type": "object", "x-kubernetes-embedded-resource": true})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        causes(&body),
        [format!("{root}.properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields")]
    );

    let nested = json!({"properties": {"ios": {"x-kubernetes-int-or-string": true},
        "e": {"x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true}}});
    let (status, body) = create(
        &t,
        "c",
        json!({"type": "object", "properties": {
            "ios": {"x-kubernetes-int-or-string": true},
            "e": {"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true}},
            "not": nested, "allOf": [nested]}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    let want: Vec<String> = [
        "allOf[0].properties[e].x-kubernetes-embedded-resource",
        "allOf[0].properties[e].x-kubernetes-preserve-unknown-fields",
        "allOf[0].properties[ios].x-kubernetes-int-or-string",
        "not.properties[e].x-kubernetes-embedded-resource",
        "not.properties[e].x-kubernetes-preserve-unknown-fields",
        "not.properties[ios].x-kubernetes-int-or-string",
    ]
    .iter()
    .map(|p| format!("{root}.{p}: Forbidden: must be false to be structural"))
    .collect();
    assert_eq!(causes(&body), want, "sorted, in Kubernetes' words");

    // int-or-string: the anyOf pattern is structural; the same types the
    // other way round are not; a bad default is not reported beside them.
    let (status, body) = create(
        &t,
        "d",
        json!({"type": "object", "properties": {
            "b": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}], "allOf": [{"pattern": "abc"}]},
            "g": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "string"}, {"type": "integer"}]},
            "n": {"type": "integer", "default": "three"}}}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        causes(&body),
        [
            format!("{root}.properties[g].anyOf[0].type: Forbidden: must be empty to be structural"),
            format!("{root}.properties[g].anyOf[1].type: Forbidden: must be empty to be structural"),
        ]
    );
    let (status, body) = create(
        &t,
        "e",
        json!({"type": "object", "properties": {
            "b": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]},
            "c": {"x-kubernetes-int-or-string": true, "allOf": [{"anyOf": [{"type": "integer"}, {"type": "string"}]}, {"pattern": "abc"}]}}}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let list: Value = Client::new()
        .get(format!("http://{}/apis/apiextensions.k8s.io/v1/customresourcedefinitions", t.server().http_addr))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(list["items"].as_array().unwrap().len(), 1, "the server still serves");
}

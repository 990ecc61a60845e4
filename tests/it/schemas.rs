//! Schemas on the write and read paths: pruning under each fieldValidation
//! mode (with warnings in the response metadata), and defaults, including
//! one added later showing up on read.

use crdstore::pb::v1 as pb;
use serde_json::{json, Value};
use tonic::Code;

use crate::support::{self, get_widget, reason, version, widget, widgets, Crd, TestServer};

fn schema() -> Value {
    json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "size": {"type": "integer"},
        "mode": {"type": "string"}}}}})
}

async fn register(t: &TestServer, schema: Value) -> Value {
    let mut c = t.definitions().await;
    let mut v1 = version("v1", true);
    v1["schema"]["openAPIV3Schema"] = schema;
    support::create(&mut c, &Crd::new("example.com", "Widget").versions(vec![v1])).await
}

async fn create(
    r: &mut support::Resources,
    obj: &Value,
    mode: pb::FieldValidation,
) -> Result<tonic::Response<pb::CreateResourceResponse>, tonic::Status> {
    let options = pb::WriteOptions { field_validation: mode as i32, ..Default::default() };
    r.create(pb::CreateResourceRequest {
        r#ref: Some(widgets("ns", "")),
        object: serde_json::to_vec(obj).unwrap(),
        options: Some(options),
    })
    .await
}

fn warnings(response: &tonic::Response<pb::CreateResourceResponse>) -> Vec<String> {
    response.metadata().get_all("warning").iter().map(|v| v.to_str().unwrap().to_string()).collect()
}

#[tokio::test]
async fn unknown_fields_under_each_field_validation() {
    let t = TestServer::start().await;
    register(&t, schema()).await;
    let mut r = t.resources().await;
    let mut body = widget("strict", json!({"size": 1, "x": 1, "y": {"z": 2}}));
    body["metadata"]["junk"] = json!(true);
    let err = create(&mut r, &body, pb::FieldValidation::Strict).await.unwrap_err();
    assert_eq!((err.code(), reason(&err).as_str()), (Code::InvalidArgument, "BadRequest"));
    assert_eq!(
        err.message(),
        r#"strict decoding error: unknown field "metadata.junk", unknown field "spec.x", unknown field "spec.y""#
    );
    assert_eq!(get_widget(&mut r, "ns", "strict").await.unwrap_err().code(), Code::NotFound, "nothing was written");

    body["metadata"]["name"] = json!("warned");
    let reply = create(&mut r, &body, pb::FieldValidation::Unspecified).await.unwrap();
    assert_eq!(
        warnings(&reply),
        [r#"unknown field "metadata.junk""#, r#"unknown field "spec.x""#, r#"unknown field "spec.y""#]
    );
    let created = support::parse(&reply.into_inner().object);
    assert_eq!(created["spec"], json!({"size": 1}), "unknown fields are dropped");
    assert!(created["metadata"].get("junk").is_none());

    body["metadata"]["name"] = json!("ignored");
    let reply = create(&mut r, &body, pb::FieldValidation::Ignore).await.unwrap();
    assert!(warnings(&reply).is_empty());
    assert_eq!(support::parse(&reply.into_inner().object)["spec"], json!({"size": 1}));
}

#[tokio::test]
async fn a_default_added_later_shows_on_read_and_is_stored_at_the_next_write() {
    let t = TestServer::start().await;
    let crd = register(&t, schema()).await;
    let mut r = t.resources().await;
    create(&mut r, &widget("a", json!({"size": 1})), pb::FieldValidation::Unspecified).await.unwrap();
    assert!(get_widget(&mut r, "ns", "a").await.unwrap()["spec"].get("mode").is_none());

    let mut c = t.definitions().await;
    let mut with_default = crd.clone();
    with_default["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["mode"]
        ["default"] = json!("auto");
    support::update(&mut c, &with_default).await.unwrap();
    let read = get_widget(&mut r, "ns", "a").await.unwrap();
    assert_eq!(read["spec"]["mode"], "auto", "the default shows at once");
    let created = support::parse(
        &create(&mut r, &widget("b", json!({})), pb::FieldValidation::Unspecified).await.unwrap().into_inner().object,
    );
    assert_eq!(created["spec"]["mode"], "auto", "and applies on write");
    let listed =
        r.list(pb::ListResourcesRequest { r#ref: Some(widgets("ns", "")), options: None }).await.unwrap().into_inner();
    assert!(listed.items.iter().all(|i| support::parse(i)["spec"]["mode"] == "auto"));
}

#[tokio::test]
async fn non_structural_schemas_are_refused_at_their_paths() {
    let t = TestServer::start().await;
    let mut c = t.definitions().await;
    let mut v1 = version("v1", true);
    v1["schema"]["openAPIV3Schema"] = json!({"type": "object", "properties": {
        "spec": {"type": "object", "properties": {"untyped": {}, "size": {"type": "integer", "default": "big"}}}}});
    let crd = Crd::new("example.com", "Widget").versions(vec![v1]);
    let err = c.create(pb::CreateDefinitionRequest { definition: crd.bytes(), options: None }).await.unwrap_err();
    assert_eq!(reason(&err), "Invalid");
    let fields = support::violations(&err);
    assert_eq!(
        fields,
        [
            "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[size].default",
            "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[untyped].type",
        ]
    );
    assert!(err.message().contains("must not be empty for specified object fields"), "{}", err.message());
}

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
    // As Kubernetes, defaults are checked only once the schema is
    // structural: the bad default of `size` waits for `untyped` to be fixed.
    assert_eq!(fields, ["spec.validation.openAPIV3Schema.properties[spec].properties[untyped].type"]);
    assert!(err.message().contains("must not be empty for specified object fields"), "{}", err.message());
}

/// The message of an error, one line per cause.
fn causes(err: &tonic::Status) -> String {
    err.message().to_string()
}

#[tokio::test]
async fn a_cel_transition_rule_refuses_a_decrease() {
    let t = TestServer::start().await;
    let mut s = schema();
    s["properties"]["spec"]["x-kubernetes-validations"] =
        json!([{"rule": "self.size >= oldSelf.size", "message": "size may not decrease", "fieldPath": ".size"}]);
    register(&t, s).await;
    let mut r = t.resources().await;
    let created = support::create_widget(&mut r, "ns", &widget("a", json!({"size": 5}))).await.unwrap();
    let mut smaller = created.clone();
    smaller["spec"]["size"] = json!(3);
    let err = support::update_widget(&mut r, "ns", &smaller).await.unwrap_err();
    assert_eq!((err.code(), reason(&err).as_str()), (Code::InvalidArgument, "Invalid"));
    assert!(causes(&err).contains("spec.size: Invalid value: \"object\": size may not decrease"), "{}", causes(&err));
    assert_eq!(support::violations(&err), ["spec.size"]);
    let mut larger = created;
    larger["spec"]["size"] = json!(7);
    assert_eq!(support::update_widget(&mut r, "ns", &larger).await.unwrap()["spec"]["size"], 7);
}

#[tokio::test]
async fn a_ratcheted_update_succeeds_and_warns_of_the_old_failure() {
    let t = TestServer::start().await;
    let crd = register(&t, schema()).await;
    let mut r = t.resources().await;
    let created =
        support::create_widget(&mut r, "ns", &widget("a", json!({"size": 50, "mode": "slow"}))).await.unwrap();

    // The schema tightens: size at most 10, mode must be fast.
    let mut c = t.definitions().await;
    let mut tighter = crd.clone();
    let spec = &mut tighter["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"];
    spec["properties"]["size"]["maximum"] = json!(10);
    spec["properties"]["mode"]["x-kubernetes-validations"] = json!([{"rule": "self == 'fast'"}]);
    support::update(&mut c, &tighter).await.unwrap();

    // Changing nothing invalid is allowed; the failing rule warns.
    let mut relabeled = created.clone();
    relabeled["metadata"]["labels"] = json!({"team": "a"});
    let reply = r
        .update(pb::UpdateResourceRequest {
            r#ref: Some(widgets("ns", "a")),
            object: serde_json::to_vec(&relabeled).unwrap(),
            options: None,
        })
        .await
        .unwrap();
    let warned: Vec<String> = reply.metadata().get_all("warning").iter().map(|v| v.to_str().unwrap().into()).collect();
    assert_eq!(warned, [r#"spec.mode: Invalid value: "string": failed rule: self == 'fast'"#]);
    let updated = support::parse(&reply.into_inner().object);
    assert_eq!(updated["metadata"]["labels"]["team"], "a");

    // Touching the invalid value is checked.
    let mut bigger = updated;
    bigger["spec"]["size"] = json!(51);
    let err = support::update_widget(&mut r, "ns", &bigger).await.unwrap_err();
    assert!(
        causes(&err).contains("spec.size: Invalid value: 51: spec.size in body should be less than or equal to 10"),
        "{}",
        causes(&err)
    );
}

#[tokio::test]
async fn definitions_with_bad_rules_are_refused_at_the_rule() {
    let t = TestServer::start().await;
    let mut c = t.definitions().await;
    let mut v1 = version("v1", true);
    let mut s = schema();
    s["properties"]["spec"]["x-kubernetes-validations"] = json!([{"rule": "self.sise > 0"}]);
    v1["schema"]["openAPIV3Schema"] = s;
    let crd = Crd::new("example.com", "Widget").versions(vec![v1]);
    let err = c.create(pb::CreateDefinitionRequest { definition: crd.bytes(), options: None }).await.unwrap_err();
    assert_eq!(reason(&err), "Invalid");
    assert_eq!(
        support::violations(&err),
        ["spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule"]
    );
    assert!(
        causes(&err).contains("compilation failed: ERROR: <input>:1:5: undefined field 'sise'"),
        "{}",
        causes(&err)
    );
    let listed = c.list(pb::ListDefinitionsRequest { options: None }).await.unwrap().into_inner();
    assert!(listed.items.is_empty(), "nothing was written");
}

#[tokio::test]
async fn unknown_formats_are_accepted_with_a_warning() {
    let t = TestServer::start().await;
    let mut c = t.definitions().await;
    let mut v1 = version("v1", true);
    let mut s = schema();
    s["properties"]["spec"]["properties"]["mode"]["format"] = json!("colour");
    s["properties"]["spec"]["properties"]["id"] = json!({"type": "string", "format": "uuid"});
    v1["schema"]["openAPIV3Schema"] = s;
    let crd = Crd::new("example.com", "Widget").versions(vec![v1]);
    let reply = c.create(pb::CreateDefinitionRequest { definition: crd.bytes(), options: None }).await.unwrap();
    let warned: Vec<String> = reply.metadata().get_all("warning").iter().map(|v| v.to_str().unwrap().into()).collect();
    assert_eq!(warned, [r#"unrecognized format "colour""#]);
}

#[tokio::test]
async fn strict_refuses_duplicate_fields_and_warn_reports_them() {
    let t = TestServer::start().await;
    register(&t, schema()).await;
    let mut r = t.resources().await;
    let body = br#"{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "d"},
                    "spec": {"size": 1, "size": 2}}"#;
    let request = |mode: pb::FieldValidation| pb::CreateResourceRequest {
        r#ref: Some(widgets("ns", "")),
        object: body.to_vec(),
        options: Some(pb::WriteOptions { field_validation: mode as i32, ..Default::default() }),
    };
    let err = r.create(request(pb::FieldValidation::Strict)).await.unwrap_err();
    assert_eq!(err.message(), r#"strict decoding error: duplicate field "spec.size""#);
    let reply = r.create(request(pb::FieldValidation::Warn)).await.unwrap();
    assert_eq!(warnings(&reply), [r#"duplicate field "spec.size""#]);
    assert_eq!(support::parse(&reply.into_inner().object)["spec"]["size"], 2, "the last value wins");
}

#[tokio::test]
async fn a_field_the_schema_drops_later_is_pruned_on_read() {
    let t = TestServer::start().await;
    let crd = register(&t, schema()).await;
    let mut r = t.resources().await;
    support::create_widget(&mut r, "ns", &widget("a", json!({"size": 1, "mode": "x"}))).await.unwrap();
    let mut c = t.definitions().await;
    let mut narrower = crd.clone();
    narrower["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
        .as_object_mut()
        .unwrap()
        .remove("mode");
    support::update(&mut c, &narrower).await.unwrap();
    assert_eq!(get_widget(&mut r, "ns", "a").await.unwrap()["spec"], json!({"size": 1}));
}

#[tokio::test]
async fn embedded_resources_keep_and_check_their_identity() {
    let t = TestServer::start().await;
    let mut s = schema();
    s["properties"]["spec"]["properties"]["template"] = json!({"type": "object",
        "x-kubernetes-embedded-resource": true, "properties": {"spec": {"type": "object", "properties": {"n": {"type": "integer"}}}}});
    register(&t, s).await;
    let mut r = t.resources().await;
    let template =
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "junk": 1}, "spec": {"n": 1, "x": 2}});
    let created = support::create_widget(&mut r, "ns", &widget("a", json!({"template": template}))).await.unwrap();
    assert_eq!(
        created["spec"]["template"],
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"n": 1}})
    );
    let bad = json!({"metadata": {"name": "Not_Valid"}, "spec": {}});
    let err = support::create_widget(&mut r, "ns", &widget("b", json!({"template": bad}))).await.unwrap_err();
    assert_eq!(
        support::violations(&err),
        ["spec.template.apiVersion", "spec.template.kind", "spec.template.metadata.name"]
    );
}

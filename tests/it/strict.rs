//! Hardening: JSON patches cannot amplify an object (operation count, bytes
//! `copy` may add), and untrusted inputs are parsed strictly, each refusal
//! naming its field: resourceVersions, continue tokens, gRPC enum values,
//! generateName and names, a resourceVersion given as a JSON number. Every
//! test checks the server still serves afterwards.

use base64::Engine as _;
use crdstore::pb::v1 as pb;
use reqwest::StatusCode;
use serde_json::{json, Value};
use tonic::Code;

use crate::support::{
    create_widget, get_widget, patch_widget, reason, register_widgets, violations, widget, widgets, Resources,
    TestServer, WAIT,
};

const JSON_PATCH: &str = "application/json-patch+json";
const MERGE_PATCH: &str = "application/merge-patch+json";

async fn http(
    t: &TestServer,
    method: reqwest::Method,
    path: &str,
    body: Option<(&str, Vec<u8>)>,
) -> (StatusCode, Value) {
    let url = format!("http://{}{path}", t.server().http_addr);
    let mut request = reqwest::Client::new().request(method, url).header("Accept", "application/json");
    if let Some((content_type, bytes)) = body {
        request = request.header("Content-Type", content_type).body(bytes);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    (status, serde_json::from_slice(&response.bytes().await.unwrap()).unwrap_or(Value::Null))
}

/// The widgets collection of `namespace` over HTTP, once it is served there.
async fn http_widgets(t: &TestServer, namespace: &str) -> String {
    let path = format!("/apis/example.com/v1/namespaces/{namespace}/widgets");
    let deadline = tokio::time::Instant::now() + WAIT;
    while http(t, reqwest::Method::GET, &path, None).await.0 != StatusCode::OK {
        assert!(tokio::time::Instant::now() < deadline, "widgets never served over HTTP");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    path
}

fn causes(status: &Value) -> Vec<String> {
    status["details"]["causes"]
        .as_array()
        .map(|cs| cs.iter().map(|c| c["field"].as_str().unwrap_or("").to_string()).collect())
        .unwrap_or_default()
}

async fn still_serves(r: &mut Resources, name: &str) -> Value {
    get_widget(r, "default", name).await.expect("the server still serves")
}

async fn setup() -> (TestServer, Resources) {
    let t = TestServer::start().await;
    register_widgets(&t).await;
    let r = t.resources().await;
    (t, r)
}

#[tokio::test]
async fn json_patch_copies_cannot_amplify_an_object() {
    let (t, mut r) = setup().await;
    let big = "x".repeat(900 * 1024);
    create_widget(&mut r, "default", &widget("big", json!({"data": big}))).await.unwrap();
    // Four copies of a 900 KiB value add 3.5 MiB: refused at the fourth.
    let copies: Vec<Value> =
        (0..4).map(|i| json!({"op": "copy", "from": "/spec/data", "path": format!("/spec/c{i}")})).collect();
    let patch = serde_json::to_string(&copies).unwrap();
    let err = patch_widget(&mut r, "default", "big", pb::PatchType::Json, &patch).await.unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
    assert_eq!(reason(&err), "Invalid");
    assert_eq!(violations(&err), ["patch"]);
    assert!(err.message().contains("exceeding the limit 3145728"), "{}", err.message());
    // Two copies stay under the copy limit, and the object under the size limit.
    let two = serde_json::to_string(&copies[..2]).unwrap();
    let patched = patch_widget(&mut r, "default", "big", pb::PatchType::Json, &two).await.unwrap();
    assert_eq!(patched["spec"]["c1"].as_str().unwrap().len(), big.len());

    let path = format!("{}/big", http_widgets(&t, "default").await);
    let (status, body) = http(&t, reqwest::Method::PATCH, &path, Some((JSON_PATCH, patch.clone().into_bytes()))).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["reason"], "Invalid");
    assert_eq!(causes(&body), ["patch"]);
    assert_eq!(still_serves(&mut r, "big").await["spec"]["c1"].as_str().unwrap().len(), big.len());
}

#[tokio::test]
async fn json_patches_hold_at_most_ten_thousand_operations() {
    let (t, mut r) = setup().await;
    create_widget(&mut r, "default", &widget("ops", json!({"a": 1}))).await.unwrap();
    let op = json!({"op": "test", "path": "/spec/a", "value": 1});
    let over = serde_json::to_string(&vec![op.clone(); 10_001]).unwrap();
    let err = patch_widget(&mut r, "default", "ops", pb::PatchType::Json, &over).await.unwrap_err();
    assert_eq!(err.code(), Code::ResourceExhausted, "{err:?}");
    assert_eq!(reason(&err), "RequestEntityTooLarge");
    assert_eq!(err.message(), "The allowed maximum operations in a JSON patch is 10000, got 10001");
    let limit = serde_json::to_string(&vec![op; 10_000]).unwrap();
    patch_widget(&mut r, "default", "ops", pb::PatchType::Json, &limit).await.unwrap();

    let path = format!("{}/ops", http_widgets(&t, "default").await);
    let (status, body) = http(&t, reqwest::Method::PATCH, &path, Some((JSON_PATCH, over.into_bytes()))).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{body}");
    assert_eq!(body["reason"], "RequestEntityTooLarge");
    assert_eq!(body["message"], "The allowed maximum operations in a JSON patch is 10000, got 10001");
    still_serves(&mut r, "ops").await;
}

#[tokio::test]
async fn resource_versions_are_decimal_digits_only() {
    let (t, mut r) = setup().await;
    create_widget(&mut r, "default", &widget("rv", json!({}))).await.unwrap();
    for rv in ["+5", " 5", "0x5", "-1"] {
        let options = pb::ListOptions { resource_version: rv.into(), ..Default::default() };
        let err = r
            .list(pb::ListResourcesRequest { r#ref: Some(widgets("default", "")), options: Some(options) })
            .await
            .unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument, "{rv:?}: {err:?}");
        assert_eq!(reason(&err), "BadRequest");
        assert_eq!(violations(&err), ["resourceVersion"], "{rv:?}");
        let err = r
            .get(pb::GetResourceRequest { r#ref: Some(widgets("default", "rv")), resource_version: rv.into() })
            .await
            .unwrap_err();
        assert_eq!(violations(&err), ["resourceVersion"], "{rv:?}");
        let options = pb::WatchOptions { resource_version: rv.into(), ..Default::default() };
        let watched =
            r.watch(pb::WatchResourcesRequest { r#ref: Some(widgets("default", "")), options: Some(options) });
        let err = match watched.await {
            Err(err) => err,
            Ok(stream) => stream.into_inner().message().await.unwrap_err(),
        };
        assert_eq!(violations(&err), ["resourceVersion"], "{rv:?}");
    }
    let path = http_widgets(&t, "default").await;
    let (status, body) = http(&t, reqwest::Method::GET, &format!("{path}?resourceVersion=%2B5"), None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["reason"], "BadRequest");
    assert_eq!(
        body["message"],
        r#"invalid resource version: resourceVersion: Invalid value: "+5": strconv.ParseUint: parsing "+5": invalid syntax"#
    );
    still_serves(&mut r, "rv").await;
}

fn token(rv: i64, start: &str) -> String {
    let token = json!({"v": "meta.k8s.io/v1", "rv": rv, "start": start});
    base64::engine::general_purpose::URL_SAFE.encode(serde_json::to_vec(&token).unwrap())
}

#[tokio::test]
async fn continue_tokens_cannot_leave_their_prefix() {
    let (t, mut r) = setup().await;
    create_widget(&mut r, "mine", &widget("a", json!({}))).await.unwrap();
    create_widget(&mut r, "other", &widget("secret", json!({}))).await.unwrap();
    let rv: i64 =
        still_serves_ns(&mut r, "mine", "a").await["metadata"]["resourceVersion"].as_str().unwrap().parse().unwrap();
    for start in ["../other/\u{0}", "../other/secret/../\u{0}", "//\u{0}", "./\u{0}"] {
        let options = pb::ListOptions { continue_token: token(rv, start), limit: 10, ..Default::default() };
        let err = r
            .list(pb::ListResourcesRequest { r#ref: Some(widgets("mine", "")), options: Some(options) })
            .await
            .unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument, "{start:?}: {err:?}");
        assert_eq!(reason(&err), "BadRequest");
        assert_eq!(violations(&err), ["continue"]);
        assert_eq!(err.message(), format!("invalid continue token: continue key is not valid: {start}"));
    }
    let path = http_widgets(&t, "mine").await;
    let (status, body) =
        http(&t, reqwest::Method::GET, &format!("{path}?limit=10&continue={}", token(rv, "../other/\u{0}")), None)
            .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(body["message"].as_str().unwrap().starts_with("invalid continue token: continue key is not valid: "));
    // A token the server made still works.
    let options = pb::ListOptions { limit: 1, ..Default::default() };
    let page = r
        .list(pb::ListResourcesRequest { r#ref: Some(widgets("mine", "")), options: Some(options) })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(page.items.len(), 1);
}

async fn still_serves_ns(r: &mut Resources, namespace: &str, name: &str) -> Value {
    get_widget(r, namespace, name).await.expect("the server still serves")
}

#[tokio::test]
async fn unknown_grpc_enum_values_are_refused_naming_their_field() {
    let (_t, mut r) = setup().await;
    create_widget(&mut r, "default", &widget("e", json!({"a": 1}))).await.unwrap();
    let patch = |subresource: i32, patch_type: i32| pb::PatchResourceRequest {
        r#ref: Some(widgets("default", "e")),
        patch_type,
        patch: br#"{"spec": {"a": 2}}"#.to_vec(),
        subresource,
        ..Default::default()
    };
    let err = r.patch(patch(7, pb::PatchType::Merge as i32)).await.unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
    assert_eq!(violations(&err), ["subresource"]);
    assert!(err.message().contains("subresource: Unsupported value: 7"), "{}", err.message());
    assert_eq!(still_serves(&mut r, "e").await["spec"]["a"], 1, "an unknown subresource patched the object");
    let err = r.patch(patch(0, 42)).await.unwrap_err();
    assert_eq!(violations(&err), ["patch_type"]);

    let create = pb::CreateResourceRequest {
        r#ref: Some(widgets("default", "")),
        object: serde_json::to_vec(&widget("f", json!({}))).unwrap(),
        options: Some(pb::WriteOptions { field_validation: 9, ..Default::default() }),
    };
    let err = r.create(create).await.unwrap_err();
    assert_eq!(violations(&err), ["options.field_validation"]);
    assert!(get_widget(&mut r, "default", "f").await.is_err(), "created despite the refusal");

    let options = pb::ListOptions { resource_version: "1".into(), resource_version_match: 5, ..Default::default() };
    let err = r
        .list(pb::ListResourcesRequest { r#ref: Some(widgets("default", "")), options: Some(options.clone()) })
        .await
        .unwrap_err();
    assert_eq!(violations(&err), ["options.resource_version_match"]);
    let err = r
        .delete_collection(pb::DeleteCollectionRequest {
            r#ref: Some(widgets("default", "")),
            list_options: Some(options),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(violations(&err), ["list_options.resource_version_match"]);
    still_serves(&mut r, "e").await;
}

#[tokio::test]
async fn generate_name_and_names_are_held_to_their_lengths() {
    let (t, mut r) = setup().await;
    let mut obj = widget("", json!({}));
    obj["metadata"] = json!({"generateName": "a".repeat(300)});
    let err = create_widget(&mut r, "default", &obj).await.unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
    assert_eq!(reason(&err), "Invalid");
    assert_eq!(violations(&err), ["metadata.generateName"]);
    assert!(err.message().contains("must be no more than 253 characters"), "{}", err.message());

    let err = create_widget(&mut r, "default", &widget(&"b".repeat(254), json!({}))).await.unwrap_err();
    assert_eq!(violations(&err), ["metadata.name"]);

    let mut ok = widget("", json!({}));
    ok["metadata"] = json!({"generateName": "web-"});
    let created = create_widget(&mut r, "default", &ok).await.unwrap();
    let name = created["metadata"]["name"].as_str().unwrap().to_string();
    assert!(name.starts_with("web-") && name.len() == 9, "{name}");

    let path = http_widgets(&t, "default").await;
    let mut body = widget("", json!({}));
    body["metadata"] = json!({"generateName": "c".repeat(300)});
    let (status, answer) =
        http(&t, reqwest::Method::POST, &path, Some(("application/json", serde_json::to_vec(&body).unwrap()))).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    assert_eq!(causes(&answer), ["metadata.generateName"]);
    still_serves(&mut r, &name).await;
}

#[tokio::test]
async fn a_resource_version_in_a_patch_must_be_a_string() {
    let (t, mut r) = setup().await;
    let created = create_widget(&mut r, "default", &widget("n", json!({"a": 1}))).await.unwrap();
    let rv: i64 = created["metadata"]["resourceVersion"].as_str().unwrap().parse().unwrap();
    let merge = json!({"metadata": {"resourceVersion": rv}, "spec": {"a": 2}}).to_string();
    let err = patch_widget(&mut r, "default", "n", pb::PatchType::Merge, &merge).await.unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
    assert_eq!(reason(&err), "Invalid");
    assert_eq!(violations(&err), ["metadata.resourceVersion"]);
    let replace =
        json!([{"op": "replace", "path": "/metadata/resourceVersion", "value": rv}, {"op": "replace", "path": "/spec/a", "value": 3}])
            .to_string();
    let err = patch_widget(&mut r, "default", "n", pb::PatchType::Json, &replace).await.unwrap_err();
    assert_eq!(violations(&err), ["metadata.resourceVersion"]);
    let plus = json!({"metadata": {"resourceVersion": format!("+{rv}")}, "spec": {"a": 4}}).to_string();
    let err = patch_widget(&mut r, "default", "n", pb::PatchType::Merge, &plus).await.unwrap_err();
    assert_eq!(violations(&err), ["metadata.resourceVersion"]);

    let path = format!("{}/n", http_widgets(&t, "default").await);
    let (status, body) = http(&t, reqwest::Method::PATCH, &path, Some((MERGE_PATCH, merge.into_bytes()))).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(causes(&body), ["metadata.resourceVersion"]);
    assert_eq!(still_serves(&mut r, "n").await["spec"]["a"], 1);
    // The current resourceVersion as a string is still a precondition that holds.
    let string = json!({"metadata": {"resourceVersion": rv.to_string()}, "spec": {"a": 5}}).to_string();
    assert_eq!(patch_widget(&mut r, "default", "n", pb::PatchType::Merge, &string).await.unwrap()["spec"]["a"], 5);
}

#[tokio::test]
async fn a_resource_version_in_an_update_must_be_a_decimal_string() {
    let (_t, mut r) = setup().await;
    let created = create_widget(&mut r, "default", &widget("u", json!({"a": 1}))).await.unwrap();
    let rv: i64 = created["metadata"]["resourceVersion"].as_str().unwrap().parse().unwrap();
    for bad in [json!(rv), json!(format!("+{rv}")), json!(format!(" {rv}"))] {
        let mut obj = created.clone();
        obj["metadata"]["resourceVersion"] = bad.clone();
        obj["spec"]["a"] = json!(2);
        let err = crate::support::update_widget(&mut r, "default", &obj).await.unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument, "{bad}: {err:?}");
        assert_eq!(reason(&err), "Invalid", "{bad}");
        assert_eq!(violations(&err), ["metadata.resourceVersion"], "{bad}");
    }
    assert_eq!(still_serves(&mut r, "u").await["spec"]["a"], 1);
}

/// A Gadget: like a Widget, with the status subresource.
async fn register_gadgets(t: &TestServer) {
    let mut c = t.definitions().await;
    let crd =
        crate::support::Crd::new("example.com", "Gadget").set("/spec/versions/0/subresources", json!({"status": {}}));
    crate::support::create(&mut c, &crd).await;
}

#[tokio::test]
async fn no_write_stores_an_object_over_the_size_limit() {
    let (t, mut r) = setup().await;
    register_gadgets(&t).await;
    let half = "x".repeat(1536 * 1024);
    let created = create_widget(&mut r, "default", &widget("grows", json!({"a": half}))).await.unwrap();
    let too_large = |err: &tonic::Status| {
        assert_eq!(err.code(), Code::ResourceExhausted, "{err:?}");
        assert_eq!(reason(err), "RequestEntityTooLarge");
        assert_eq!(err.message(), "Request entity too large: limit is 3145728");
    };
    // A merge patch under the body limit whose result is over the size limit.
    let merge = serde_json::to_string(&json!({"spec": {"b": half}})).unwrap();
    too_large(&patch_widget(&mut r, "default", "grows", pb::PatchType::Merge, &merge).await.unwrap_err());
    // A JSON patch whose copies stay under the copy limit, but not the object.
    let copy = r#"[{"op": "copy", "from": "/spec/a", "path": "/spec/c"}]"#;
    too_large(&patch_widget(&mut r, "default", "grows", pb::PatchType::Json, copy).await.unwrap_err());
    // The same over HTTP is 413.
    let path = format!("{}/grows", http_widgets(&t, "default").await);
    let (status, body) = http(&t, reqwest::Method::PATCH, &path, Some((MERGE_PATCH, merge.clone().into_bytes()))).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{body}");
    assert_eq!(body["reason"], "RequestEntityTooLarge");
    let stored = still_serves(&mut r, "grows").await;
    assert_eq!(stored["metadata"]["resourceVersion"], created["metadata"]["resourceVersion"], "nothing was written");
    assert!(stored["spec"].get("b").is_none() && stored["spec"].get("c").is_none());

    // A status write that would take its object over the limit.
    let gadgets = "/apis/example.com/v1/namespaces/default/gadgets";
    let gadget =
        json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g"}, "spec": {"a": half}});
    let (status, body) =
        http(&t, reqwest::Method::POST, gadgets, Some(("application/json", serde_json::to_vec(&gadget).unwrap())))
            .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let status_patch = serde_json::to_vec(&json!({"status": {"b": half}})).unwrap();
    let (status, body) =
        http(&t, reqwest::Method::PATCH, &format!("{gadgets}/g/status"), Some((MERGE_PATCH, status_patch))).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{body}");
    let (_, stored) = http(&t, reqwest::Method::GET, &format!("{gadgets}/g"), None).await;
    assert!(stored.get("status").is_none(), "{}", stored["metadata"]);

    // A definition patched over the limit: a JSON patch copies a large
    // description it already holds.
    let crd_path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com";
    let described = serde_json::to_vec(&json!({"metadata": {"labels": {"big": "yes"}}, "spec": {"versions": [
        {"name": "v1", "served": true, "storage": true,
         "schema": {"openAPIV3Schema": {"type": "object", "description": half, "x-kubernetes-preserve-unknown-fields": true}}},
        {"name": "v2", "served": true, "storage": false,
         "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}}))
    .unwrap();
    let (status, body) = http(&t, reqwest::Method::PATCH, crd_path, Some((MERGE_PATCH, described))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let copy = br#"[{"op": "copy", "from": "/spec/versions/0/schema/openAPIV3Schema/description",
                     "path": "/spec/versions/1/schema/openAPIV3Schema/description"}]"#;
    let (status, body) = http(&t, reqwest::Method::PATCH, crd_path, Some((JSON_PATCH, copy.to_vec()))).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{body}");
    assert_eq!(body["reason"], "RequestEntityTooLarge");
    let (status, crd) = http(&t, reqwest::Method::GET, crd_path, None).await;
    assert_eq!(status, StatusCode::OK);
    assert!(crd["spec"]["versions"][1]["schema"]["openAPIV3Schema"].get("description").is_none());
}

/// An error that echoes a huge value still reaches a gRPC client: the
/// status is clipped to fit HTTP/2 trailers, the field is still named.
#[tokio::test]
async fn errors_echoing_huge_values_still_reach_grpc_clients() {
    let (_t, mut r) = setup().await;
    let huge = format!("{}!", "x".repeat(200_000));
    let obj = json!({"apiVersion": "example.com/v1", "kind": "Widget",
                     "metadata": {"name": "huge", "labels": {"a": huge}}, "spec": {}});
    let err = create_widget(&mut r, "default", &obj).await.unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument, "{}", &err.message()[..200.min(err.message().len())]);
    assert_eq!(reason(&err), "Invalid");
    assert!(violations(&err).contains(&"metadata.labels".to_string()), "{:?}", violations(&err));
    assert!(err.message().len() <= 1024 && err.message().contains("(200001 bytes)"), "{}", err.message());
    create_widget(&mut r, "default", &widget("after", json!({}))).await.expect("the server still serves");
}

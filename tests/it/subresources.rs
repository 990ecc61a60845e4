//! The status subresource (`subresources.md`): the main endpoint ignores
//! status, UpdateStatus changes only status, generation follows spec only,
//! and without the subresource status is an ordinary field.

use crdstore::pb::v1 as pb;
use serde_json::{json, Value};
use tonic::Code;

use crate::support::{
    self, create_widget, get_widget, patch_widget, reason, update_widget, version, widget, widgets, Crd, TestServer,
};

/// Registers Widgets whose v1 enables the status subresource.
async fn register_with_status(t: &TestServer) {
    let mut c = t.definitions().await;
    let mut v1 = version("v1", true);
    v1["subresources"] = json!({"status": {}});
    support::create(&mut c, &Crd::new("example.com", "Widget").versions(vec![v1])).await;
}

async fn update_status(r: &mut support::Resources, obj: &Value) -> Result<Value, tonic::Status> {
    let name = obj["metadata"]["name"].as_str().unwrap();
    let req = pb::UpdateStatusRequest {
        r#ref: Some(widgets("ns", name)),
        object: serde_json::to_vec(obj).unwrap(),
        options: None,
    };
    r.update_status(req).await.map(|x| support::parse(&x.into_inner().object))
}

#[tokio::test]
async fn the_main_endpoint_ignores_status() {
    let t = TestServer::start().await;
    register_with_status(&t).await;
    let mut r = t.resources().await;
    let mut body = widget("a", json!({"replicas": 1}));
    body["status"] = json!({"ready": true});
    let created = create_widget(&mut r, "ns", &body).await.unwrap();
    assert!(created.get("status").is_none(), "create drops status");
    let with_status = update_status(
        &mut r,
        &json!({
            "apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "a", "resourceVersion": created["metadata"]["resourceVersion"]},
            "status": {"ready": false}
        }),
    )
    .await
    .unwrap();
    let mut body = with_status.clone();
    body["status"] = json!({"ready": true, "forged": 1});
    body["metadata"]["labels"] = json!({"tier": "gold"});
    let updated = update_widget(&mut r, "ns", &body).await.unwrap();
    assert_eq!(updated["status"], json!({"ready": false}), "update keeps the stored status");
    assert_eq!(updated["metadata"]["generation"], 1, "labels alone keep the generation");
    let patched = patch_widget(
        &mut r,
        "ns",
        "a",
        pb::PatchType::Merge,
        r#"{"status": {"ready": true}, "spec": {"replicas": 2}}"#,
    )
    .await
    .unwrap();
    assert_eq!(patched["status"], json!({"ready": false}), "patch keeps the stored status");
    assert_eq!(patched["metadata"]["generation"], 2, "a spec change is a new generation");
}

#[tokio::test]
async fn update_status_changes_only_status() {
    let t = TestServer::start().await;
    register_with_status(&t).await;
    let mut r = t.resources().await;
    let created = create_widget(&mut r, "ns", &widget("a", json!({"replicas": 1}))).await.unwrap();
    let mut body = created.clone();
    body["spec"] = json!({"replicas": 9});
    body["metadata"]["labels"] = json!({"sneaky": "yes"});
    body["metadata"]["finalizers"] = json!(["example.com/x"]);
    body["status"] = json!({"observed": 1});
    let updated = update_status(&mut r, &body).await.unwrap();
    assert_eq!(updated["status"], json!({"observed": 1}));
    assert_eq!(updated["spec"], json!({"replicas": 1}), "spec is ignored");
    assert!(
        updated["metadata"].get("labels").is_none() && updated["metadata"].get("finalizers").is_none(),
        "metadata is ignored"
    );
    assert_eq!(updated["metadata"]["generation"], 1, "a status write never changes generation");
    assert_ne!(
        updated["metadata"]["resourceVersion"], created["metadata"]["resourceVersion"],
        "the resourceVersion is shared"
    );

    let same = update_status(&mut r, &updated).await.unwrap();
    assert_eq!(same["metadata"]["resourceVersion"], updated["metadata"]["resourceVersion"], "a no-op keeps it");
    let err = update_status(&mut r, &created).await.unwrap_err();
    assert_eq!(err.code(), Code::Aborted, "stale resourceVersion");
    let mut missing = updated.clone();
    missing["metadata"].as_object_mut().unwrap().remove("resourceVersion");
    assert_eq!(update_status(&mut r, &missing).await.unwrap_err().code(), Code::InvalidArgument);

    let patch = pb::PatchResourceRequest {
        r#ref: Some(widgets("ns", "a")),
        patch_type: pb::PatchType::Merge as i32,
        patch: br#"{"status": {"observed": 2}, "spec": {"replicas": 5}}"#.to_vec(),
        subresource: pb::Subresource::Status as i32,
        ..Default::default()
    };
    let patched = support::parse(&r.patch(patch).await.unwrap().into_inner().object);
    assert_eq!((patched["status"]["observed"].as_i64(), patched["spec"]["replicas"].as_i64()), (Some(2), Some(1)));
    assert_eq!(get_widget(&mut r, "ns", "a").await.unwrap()["status"]["observed"], 2);
}

#[tokio::test]
async fn without_the_subresource_status_is_an_ordinary_field() {
    let t = TestServer::start().await;
    support::register_widgets(&t).await;
    let mut r = t.resources().await;
    let mut body = widget("a", json!({}));
    body["status"] = json!({"ready": true});
    let created = create_widget(&mut r, "ns", &body).await.unwrap();
    assert_eq!(created["status"], json!({"ready": true}));
    let mut body = created.clone();
    body["status"] = json!({"ready": false});
    let updated = update_widget(&mut r, "ns", &body).await.unwrap();
    assert_eq!(
        (updated["status"]["ready"].as_bool(), updated["metadata"]["generation"].as_i64()),
        (Some(false), Some(2))
    );
    let err = update_status(&mut r, &updated).await.unwrap_err();
    assert_eq!((err.code(), reason(&err).as_str()), (Code::NotFound, "NotFound"));
}

/// Registers Widgets whose v1 enables status and scale.
async fn register_with_scale(t: &TestServer) {
    let mut c = t.definitions().await;
    let mut v1 = version("v1", true);
    v1["subresources"] = json!({"status": {}, "scale": {
        "specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas", "labelSelectorPath": ".status.selector"}});
    support::create(&mut c, &Crd::new("example.com", "Widget").versions(vec![v1])).await;
}

async fn get_scale(r: &mut support::Resources, name: &str) -> Result<Value, tonic::Status> {
    r.get_scale(pb::GetScaleRequest { r#ref: Some(widgets("ns", name)) })
        .await
        .map(|x| support::parse(&x.into_inner().scale))
}

async fn update_scale(r: &mut support::Resources, name: &str, scale: &Value) -> Result<Value, tonic::Status> {
    let req = pb::UpdateScaleRequest {
        r#ref: Some(widgets("ns", name)),
        scale: serde_json::to_vec(scale).unwrap(),
        options: None,
    };
    r.update_scale(req).await.map(|x| support::parse(&x.into_inner().scale))
}

#[tokio::test]
async fn scale_round_trips_through_the_paths() {
    let t = TestServer::start().await;
    register_with_scale(&t).await;
    let mut r = t.resources().await;
    let created = create_widget(&mut r, "ns", &widget("a", json!({"replicas": 2}))).await.unwrap();
    let mut with_status = created.clone();
    with_status["status"] = json!({"replicas": 1, "selector": "app=web"});
    update_status(&mut r, &with_status).await.unwrap();
    let scale = get_scale(&mut r, "a").await.unwrap();
    assert_eq!((scale["apiVersion"].as_str(), scale["kind"].as_str()), (Some("autoscaling/v1"), Some("Scale")));
    assert_eq!(scale["spec"]["replicas"], 2);
    assert_eq!(scale["status"], json!({"replicas": 1, "selector": "app=web"}));
    assert_eq!(scale["metadata"]["uid"], created["metadata"]["uid"]);

    let mut wanted = scale.clone();
    wanted["spec"]["replicas"] = json!(5);
    wanted["status"]["replicas"] = json!(99);
    let scaled = update_scale(&mut r, "a", &wanted).await.unwrap();
    assert_eq!((scaled["spec"]["replicas"].as_i64(), scaled["status"]["replicas"].as_i64()), (Some(5), Some(1)));
    let obj = get_widget(&mut r, "ns", "a").await.unwrap();
    assert_eq!(obj["spec"]["replicas"], 5);
    assert_eq!(obj["status"]["replicas"], 1, "the resource's status is untouched");
    assert_eq!(obj["metadata"]["generation"], 2, "the spec changed");

    let err = update_scale(&mut r, "a", &wanted).await.unwrap_err();
    assert_eq!(err.code(), Code::Aborted, "the Scale's resourceVersion is a precondition");
    wanted["metadata"].as_object_mut().unwrap().remove("resourceVersion");
    wanted["spec"]["replicas"] = json!(6);
    assert_eq!(update_scale(&mut r, "a", &wanted).await.unwrap()["spec"]["replicas"], 6, "empty means unconditional");

    let patch = pb::PatchResourceRequest {
        r#ref: Some(widgets("ns", "a")),
        patch_type: pb::PatchType::Merge as i32,
        patch: br#"{"spec": {"replicas": 7}}"#.to_vec(),
        subresource: pb::Subresource::Scale as i32,
        ..Default::default()
    };
    let patched = support::parse(&r.patch(patch).await.unwrap().into_inner().object);
    assert_eq!((patched["kind"].as_str(), patched["spec"]["replicas"].as_i64()), (Some("Scale"), Some(7)));
}

#[tokio::test]
async fn replicas_must_fit_an_int32_on_every_write() {
    let t = TestServer::start().await;
    register_with_scale(&t).await;
    let mut r = t.resources().await;
    for bad in [json!(2147483648i64), json!(-1)] {
        let err = create_widget(&mut r, "ns", &widget("a", json!({"replicas": bad}))).await.unwrap_err();
        assert_eq!(support::violations(&err), ["spec.replicas"], "{}", err.message());
    }
    let created = create_widget(&mut r, "ns", &widget("a", json!({"replicas": 1}))).await.unwrap();
    let err = patch_widget(&mut r, "ns", "a", pb::PatchType::Merge, r#"{"spec": {"replicas": 2147483648}}"#)
        .await
        .unwrap_err();
    assert!(
        err.message().contains("spec.replicas: Invalid value: 2147483648: should be less than or equal to 2147483647"),
        "{}",
        err.message()
    );
    let mut bad_status = created.clone();
    bad_status["status"] = json!({"replicas": -1});
    assert_eq!(support::violations(&update_status(&mut r, &bad_status).await.unwrap_err()), ["status.replicas"]);
    let mut bad_scale = get_scale(&mut r, "a").await.unwrap();
    bad_scale["spec"]["replicas"] = json!(-1);
    assert_eq!(update_scale(&mut r, "a", &bad_scale).await.unwrap_err().code(), Code::InvalidArgument);
    let mut bad_selector = created.clone();
    bad_selector["status"] = json!({"selector": "app in web"});
    assert_eq!(support::violations(&update_status(&mut r, &bad_selector).await.unwrap_err()), ["status.selector"]);
}

#[tokio::test]
async fn scale_needs_the_subresource_and_the_spec_replicas() {
    let t = TestServer::start().await;
    register_with_scale(&t).await;
    let mut r = t.resources().await;
    create_widget(&mut r, "ns", &widget("empty", json!({}))).await.unwrap();
    let err = get_scale(&mut r, "empty").await.unwrap_err();
    assert!(err.message().contains(".spec.replicas"), "the error names the path: {}", err.message());
    let t = TestServer::start().await;
    support::register_widgets(&t).await;
    let mut r = t.resources().await;
    create_widget(&mut r, "ns", &widget("a", json!({"replicas": 1}))).await.unwrap();
    assert_eq!(get_scale(&mut r, "a").await.unwrap_err().code(), Code::NotFound);
}

#[tokio::test]
async fn status_writes_are_validated_against_the_status_schema_only() {
    let t = TestServer::start().await;
    let mut c = t.definitions().await;
    let schema = |max_replicas: i64| {
        json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {"replicas": {"type": "integer", "maximum": max_replicas}}},
            "status": {"type": "object", "properties": {"num": {"type": "integer", "maximum": 10}}}}})
    };
    let mut v1 = version("v1", true);
    v1["subresources"] = json!({"status": {}});
    v1["schema"]["openAPIV3Schema"] = schema(10);
    let crd = support::create(&mut c, &Crd::new("example.com", "Widget").versions(vec![v1.clone()])).await;
    let mut r = t.resources().await;
    let created = create_widget(&mut r, "ns", &widget("a", json!({"replicas": 5}))).await.unwrap();
    let err = create_widget(&mut r, "ns", &widget("b", json!({"replicas": 11}))).await.unwrap_err();
    assert!(
        err.message()
            .contains("spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10"),
        "{}",
        err.message()
    );

    // Tighten the schema: the stored spec is now invalid.
    let mut tighter = crd.clone();
    tighter["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = schema(3);
    support::update(&mut c, &tighter).await.unwrap();

    let mut body = created.clone();
    body["status"] = json!({"num": 7});
    let updated =
        update_status(&mut r, &body).await.expect("an invalid stored spec does not block a valid status update");
    assert_eq!(updated["status"]["num"], 7);
    let mut body = updated.clone();
    body["status"] = json!({"num": 15});
    let err = update_status(&mut r, &body).await.unwrap_err();
    assert_eq!(support::violations(&err), ["status.num"]);
    assert!(
        err.message().contains("status.num: Invalid value: 15: num in body should be less than or equal to 10"),
        "{}",
        err.message()
    );
    // The main endpoint ratchets: an unchanged invalid spec passes, a
    // changed one is checked.
    let mut relabelled = updated.clone();
    relabelled["metadata"]["labels"] = json!({"x": "y"});
    let relabelled = update_widget(&mut r, "ns", &relabelled).await.expect("the unchanged spec is ratcheted");
    let mut resized = relabelled.clone();
    resized["spec"]["replicas"] = json!(4);
    let err = update_widget(&mut r, "ns", &resized).await.unwrap_err();
    assert!(
        err.message()
            .contains("spec.replicas: Invalid value: 4: spec.replicas in body should be less than or equal to 3"),
        "{}",
        err.message()
    );
}

/// A Scale write records managedFields as Kubernetes' scale handler does
/// (TestApplyScaleSubresource): each version's replicas path (a dotted
/// path whose segments are field names, `.spec.replicas[0]` included) is
/// taken from whoever owned it, and the scaler owns the request version's
/// path in an Update entry at subresource `scale` without a time.
#[tokio::test]
async fn a_scale_write_takes_the_replicas_of_every_version_for_its_manager() {
    let t = TestServer::start().await;
    let mut c = t.definitions().await;
    let scale = |path: &str| json!({"scale": {"specReplicasPath": path, "statusReplicasPath": ".status.replicas"}});
    let mut v1beta1 = version("v1beta1", true);
    v1beta1["subresources"] = scale(".spec.replicas[0]");
    let mut v1 = version("v1", false);
    v1["subresources"] = scale(".spec.replicas");
    support::create(&mut c, &Crd::new("example.com", "Widget").versions(vec![v1beta1, v1])).await;
    let client = reqwest::Client::new();
    let base = format!("http://{}/apis/example.com", t.server().http_addr);
    let send = |method: reqwest::Method, url: String, content_type: &'static str, body: String| {
        let request = client.request(method, url).header("User-Agent", "creator/1");
        async move {
            let response = request.header("Content-Type", content_type).body(body).send().await.unwrap();
            (response.status().as_u16(), response.json::<Value>().await.unwrap())
        }
    };
    let created = json!({"apiVersion": "example.com/v1beta1", "kind": "Widget",
        "metadata": {"name": "a"}, "spec": {"num": 1, "replicas[0]": 1}});
    let (code, body) = send(
        reqwest::Method::POST,
        format!("{base}/v1beta1/namespaces/ns/widgets"),
        "application/json",
        created.to_string(),
    )
    .await;
    assert_eq!(code, 201, "{body}");
    let applied =
        json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "a"}, "spec": {"replicas": 3}});
    let url = format!("{base}/v1/namespaces/ns/widgets/a");
    let (code, body) = send(
        reqwest::Method::PATCH,
        format!("{url}?fieldManager=applier"),
        "application/apply-patch+yaml",
        applied.to_string(),
    )
    .await;
    assert_eq!((code, body["metadata"]["managedFields"].as_array().map(Vec::len)), (200, Some(2)), "{body}");

    let (code, body) = send(
        reqwest::Method::PATCH,
        format!("{url}/scale?fieldManager=scaler"),
        "application/merge-patch+json",
        r#"{"spec": {"replicas": 5}}"#.into(),
    )
    .await;
    assert_eq!((code, body["spec"]["replicas"].as_i64()), (200, Some(5)), "{body}");
    let (code, obj) = send(reqwest::Method::GET, url.clone(), "application/json", String::new()).await;
    assert_eq!((code, obj["spec"]["replicas"].as_i64()), (200, Some(5)));
    let entries: Vec<_> = obj["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let mut e = e.clone();
            let timed = e.as_object_mut().unwrap().remove("time").is_some();
            (e, timed)
        })
        .collect();
    assert_eq!(
        entries,
        [
            (
                json!({"manager": "applier", "operation": "Apply", "apiVersion": "example.com/v1",
                    "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {}}}),
                true
            ),
            (
                json!({"manager": "scaler", "operation": "Update", "apiVersion": "example.com/v1",
                    "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}}}, "subresource": "scale"}),
                false
            ),
            (
                json!({"manager": "creator", "operation": "Update", "apiVersion": "example.com/v1beta1",
                    "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {".": {}, "f:num": {}}}}),
                true
            ),
        ]
    );
    // The server still serves: the scaler scales again.
    let (code, body) = send(
        reqwest::Method::PATCH,
        format!("{url}/scale?fieldManager=scaler"),
        "application/merge-patch+json",
        r#"{"spec": {"replicas": 6}}"#.into(),
    )
    .await;
    assert_eq!((code, body["spec"]["replicas"].as_i64()), (200, Some(6)), "{body}");
}

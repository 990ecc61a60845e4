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

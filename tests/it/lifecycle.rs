//! Deleting a definition that has instances: terminating, creates refused,
//! instances cleaned up (finalizers respected), definition removed, a new one
//! with the same name starting empty, and the cleanup resuming after a
//! restart.

use std::time::Duration;

use crdstore::pb::v1 as pb;
use serde_json::json;
use tonic::Code;

use crate::support::{
    self, create_widget, get_widget, patch_widget, reason, register_widgets, update_widget, widget, TestServer, WAIT,
};

const NAME: &str = "widgets.example.com";

async fn gone(c: &mut support::Client) -> bool {
    c.get(pb::GetDefinitionRequest { name: NAME.into() }).await.is_err_and(|e| e.code() == Code::NotFound)
}

async fn wait_until_gone(c: &mut support::Client) {
    let deadline = tokio::time::Instant::now() + WAIT;
    while !gone(c).await {
        assert!(tokio::time::Instant::now() < deadline, "the definition was never removed");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_definition_without_instances_goes_at_once() {
    let t = TestServer::start().await;
    register_widgets(&t).await;
    let mut c = t.definitions().await;
    let reply = c.delete(pb::DeleteDefinitionRequest { name: NAME.into(), options: None }).await.unwrap().into_inner();
    assert!(reply.deleted);
    assert!(gone(&mut c).await);
}

#[tokio::test]
async fn instances_are_cleaned_up_before_the_definition_goes() {
    let t = TestServer::start().await;
    register_widgets(&t).await;
    let (mut c, mut r) = (t.definitions().await, t.resources().await);
    create_widget(&mut r, "ns", &widget("plain", json!({}))).await.unwrap();
    let mut held = widget("held", json!({}));
    held["metadata"]["finalizers"] = json!(["example.com/hold"]);
    create_widget(&mut r, "ns", &held).await.unwrap();

    let reply = c.delete(pb::DeleteDefinitionRequest { name: NAME.into(), options: None }).await.unwrap().into_inner();
    assert!(!reply.deleted);
    let terminating = support::parse(&reply.definition);
    assert!(terminating["metadata"]["deletionTimestamp"].is_string());
    assert!(terminating["metadata"]["finalizers"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f == "customresourcecleanup.apiextensions.k8s.io"));
    assert_eq!(support::condition(&terminating, "Terminating")["status"], "True");

    let err = create_widget(&mut r, "ns", &widget("new", json!({}))).await.unwrap_err();
    // Kubernetes' forbidCreateAdmission: Forbidden.
    assert_eq!((err.code(), reason(&err).as_str()), (Code::PermissionDenied, "Forbidden"));
    assert_eq!(
        err.message(),
        r#"widgets.example.com "new" is forbidden: create not allowed while custom resource definition is terminating"#
    );

    // The held instance keeps the definition terminating; reads and updates still work.
    let deadline = tokio::time::Instant::now() + WAIT;
    let held_now = loop {
        let obj = get_widget(&mut r, "ns", "held").await.unwrap();
        if obj["metadata"]["deletionTimestamp"].is_string() {
            break obj;
        }
        assert!(tokio::time::Instant::now() < deadline, "the held instance was never marked");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    // The cleanup marks and deletes instances one commit at a time, so the
    // plain one may still be there for a moment after the held one is marked.
    loop {
        match get_widget(&mut r, "ns", "plain").await {
            Err(err) if err.code() == Code::NotFound => break,
            other => {
                assert!(other.is_ok(), "reading the plain instance: {other:?}");
                assert!(tokio::time::Instant::now() < deadline, "the plain instance was never deleted");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
    let mut labelled = held_now.clone();
    labelled["metadata"]["labels"] = json!({"still": "writable"});
    update_widget(&mut r, "ns", &labelled).await.unwrap();
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert!(!gone(&mut c).await, "an instance with a finalizer keeps it terminating");

    patch_widget(&mut r, "ns", "held", pb::PatchType::Merge, r#"{"metadata": {"finalizers": null}}"#).await.unwrap();
    wait_until_gone(&mut c).await;

    register_widgets(&t).await;
    let list = r
        .list(pb::ListResourcesRequest { r#ref: Some(support::widgets("", "")), options: None })
        .await
        .unwrap()
        .into_inner();
    assert!(list.items.is_empty(), "a definition created again starts empty");
}

#[tokio::test]
async fn cleanup_resumes_after_a_restart() {
    let mut t = TestServer::start().await;
    register_widgets(&t).await;
    let (mut c, mut r) = (t.definitions().await, t.resources().await);
    let mut held = widget("held", json!({}));
    held["metadata"]["finalizers"] = json!(["example.com/hold"]);
    create_widget(&mut r, "ns", &held).await.unwrap();
    c.delete(pb::DeleteDefinitionRequest { name: NAME.into(), options: None }).await.unwrap();
    t.restart().await;
    let (mut c, mut r) = (t.definitions().await, t.resources().await);
    assert!(!gone(&mut c).await);
    patch_widget(&mut r, "ns", "held", pb::PatchType::Merge, r#"{"metadata": {"finalizers": []}}"#).await.unwrap();
    wait_until_gone(&mut c).await;
}

/// TestApplyCRDuringCRDFinalization: a definition held by a custom
/// finalizer reads `Terminating=True` after its delete, an apply creating
/// an instance is refused as Kubernetes' forbidCreateAdmission refuses it
/// (dry-run or not), and the cleanup then releases it to its finalizer;
/// removing that finalizer removes it.
#[tokio::test]
async fn a_held_definition_reads_terminating_and_refuses_applies() {
    let t = TestServer::start().await;
    let mut c = t.definitions().await;
    let mut crd = support::Crd::new("example.com", "Widget");
    crd.value["metadata"]["finalizers"] = json!(["example.com/hold"]);
    support::create(&mut c, &crd).await;
    let reply = c.delete(pb::DeleteDefinitionRequest { name: NAME.into(), options: None }).await.unwrap().into_inner();
    assert!(!reply.deleted);
    let read = support::get(&mut c, NAME).await;
    let terminating = support::condition(&read, "Terminating");
    assert_eq!(
        (terminating["status"].as_str(), terminating["reason"].as_str()),
        (Some("True"), Some("InstanceDeletionPending"))
    );

    let http = reqwest::Client::new();
    let url = format!("http://{}/apis/example.com/v1/namespaces/ns/widgets/foo123", t.server().http_addr);
    let applied = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "foo123"}, "spec": {}});
    for query in ["fieldManager=manager&dryRun=All", "fieldManager=manager"] {
        let response = http
            .patch(format!("{url}?{query}"))
            .header("Content-Type", "application/apply-patch+yaml")
            .body(applied.to_string())
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        let body: serde_json::Value = response.json().await.unwrap();
        assert_eq!((status, body["reason"].as_str()), (403, Some("Forbidden")), "{body}");
        assert_eq!(
            body["message"],
            r#"widgets.example.com "foo123" is forbidden: create not allowed while custom resource definition is terminating"#
        );
    }

    // The cleanup releases it to its own finalizer.
    let deadline = tokio::time::Instant::now() + WAIT;
    let held = loop {
        let read = support::get(&mut c, NAME).await;
        if read["metadata"]["finalizers"] == json!(["example.com/hold"]) {
            break read;
        }
        assert!(tokio::time::Instant::now() < deadline, "the cleanup finalizer never went");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(support::condition(&held, "Terminating")["reason"], "InstanceDeletionCompleted");
    let mut released = held.clone();
    released["metadata"]["finalizers"] = json!([]);
    support::update(&mut c, &released).await.unwrap();
    wait_until_gone(&mut c).await;
    support::create(&mut c, &support::Crd::new("example.com", "Widget")).await;
    let mut r = t.resources().await;
    create_widget(&mut r, "ns", &widget("again", json!({}))).await.unwrap();
}

//! Reading custom resources: lists with selectors and pages at one revision,
//! expired continue tokens, exact revisions, and watches (changes in order,
//! selectors, resume after restart, ending when the definition changes).

use std::time::Duration;

use crdstore::pb::v1 as pb;
use serde_json::json;
use tonic::Code;
use tonic_types::StatusExt;

use crate::support::{
    self, create_widget, delete_widget, patch_widget, register_widgets, widget, widgets, TestServer, WAIT,
};

fn list(namespace: &str, options: pb::ListOptions) -> pb::ListResourcesRequest {
    pb::ListResourcesRequest { r#ref: Some(widgets(namespace, "")), options: Some(options) }
}

fn names(items: &[impl AsRef<[u8]>]) -> Vec<String> {
    items.iter().map(|i| support::parse(i.as_ref())["metadata"]["name"].as_str().unwrap().to_string()).collect()
}

#[tokio::test]
async fn lists_filter_by_namespace_labels_and_fields() {
    let t = TestServer::start().await;
    register_widgets(&t).await;
    let mut r = t.resources().await;
    for (ns, name, tier) in [("a", "w1", "front"), ("a", "w2", "back"), ("b", "w3", "front"), ("b", "w4", "edge")] {
        let mut body = widget(name, json!({}));
        body["metadata"]["labels"] = json!({"tier": tier});
        create_widget(&mut r, ns, &body).await.unwrap();
    }
    let all = r.list(list("", pb::ListOptions::default())).await.unwrap().into_inner();
    assert_eq!(names(&all.items), ["w1", "w2", "w3", "w4"], "all namespaces");
    let in_a = r.list(list("a", pb::ListOptions::default())).await.unwrap().into_inner();
    assert_eq!(names(&in_a.items), ["w1", "w2"]);
    let set = pb::ListOptions { label_selector: "tier in (front, edge),tier!=edge".into(), ..Default::default() };
    assert_eq!(names(&r.list(list("", set)).await.unwrap().into_inner().items), ["w1", "w3"]);
    let by_ns =
        pb::ListOptions { field_selector: "metadata.namespace=b,metadata.name!=w4".into(), ..Default::default() };
    assert_eq!(names(&r.list(list("", by_ns)).await.unwrap().into_inner().items), ["w3"]);
    let err = r
        .list(list("", pb::ListOptions { field_selector: "spec.x=1".into(), ..Default::default() }))
        .await
        .unwrap_err();
    assert_eq!((err.code(), err.message()), (Code::InvalidArgument, "field label not supported: spec.x"));
    let err = r
        .list(list("", pb::ListOptions { label_selector: "tier in front".into(), ..Default::default() }))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
}

#[tokio::test]
async fn every_page_is_read_at_the_first_pages_revision() {
    let t = TestServer::start().await;
    register_widgets(&t).await;
    let mut r = t.resources().await;
    for i in 0..7 {
        create_widget(&mut r, "ns", &widget(&format!("w{i}"), json!({"v": 0}))).await.unwrap();
    }
    let mut page = r.list(list("ns", pb::ListOptions { limit: 3, ..Default::default() })).await.unwrap().into_inner();
    let first_rv = page.resource_version.clone();
    patch_widget(&mut r, "ns", "w5", pb::PatchType::Merge, r#"{"spec": {"v": 1}}"#).await.unwrap();
    delete_widget(&mut r, "ns", "w6").await.unwrap();
    create_widget(&mut r, "ns", &widget("w9", json!({}))).await.unwrap();
    let mut seen = Vec::new();
    loop {
        for item in &page.items {
            let obj = support::parse(item);
            assert_eq!(obj["spec"]["v"], 0, "pages show the state at the first page's revision");
            seen.push(obj["metadata"]["name"].as_str().unwrap().to_string());
        }
        if page.continue_token.is_empty() {
            break;
        }
        let next = pb::ListOptions { limit: 3, continue_token: page.continue_token.clone(), ..Default::default() };
        page = r.list(list("ns", next)).await.unwrap().into_inner();
        assert_eq!(page.resource_version, first_rv);
    }
    assert_eq!(seen, ["w0", "w1", "w2", "w3", "w4", "w5", "w6"]);
}

#[tokio::test]
async fn expired_continue_tokens_and_exact_versions_are_out_of_range() {
    let t = TestServer::start_with(|config| {
        config.window = crdstore::storage::HistoryWindow { min_age: Duration::ZERO, min_revisions: 1 };
        config.compaction_interval = Duration::from_millis(50);
    })
    .await;
    register_widgets(&t).await;
    let mut r = t.resources().await;
    for i in 0..4 {
        create_widget(&mut r, "ns", &widget(&format!("w{i}"), json!({}))).await.unwrap();
    }
    let first = r.list(list("ns", pb::ListOptions { limit: 2, ..Default::default() })).await.unwrap().into_inner();
    for i in 4..8 {
        create_widget(&mut r, "ns", &widget(&format!("w{i}"), json!({}))).await.unwrap();
    }
    let deadline = tokio::time::Instant::now() + WAIT;
    let err = loop {
        let next = pb::ListOptions { limit: 2, continue_token: first.continue_token.clone(), ..Default::default() };
        match r.list(list("ns", next)).await {
            Err(err) => break err,
            Ok(_) if tokio::time::Instant::now() < deadline => tokio::time::sleep(Duration::from_millis(50)).await,
            Ok(_) => panic!("never compacted"),
        }
    };
    assert_eq!((err.code(), support::reason(&err).as_str()), (Code::OutOfRange, "Expired"));
    let fresh = err.get_error_details().error_info().unwrap().metadata.get("continue").cloned().expect("a fresh token");
    let rest =
        r.list(list("ns", pb::ListOptions { continue_token: fresh, ..Default::default() })).await.unwrap().into_inner();
    assert_eq!(names(&rest.items), ["w2", "w3", "w4", "w5", "w6", "w7"], "the fresh token continues from the next key");

    let exact = pb::ListOptions {
        resource_version: first.resource_version.clone(),
        resource_version_match: pb::ResourceVersionMatch::Exact as i32,
        ..Default::default()
    };
    assert_eq!(r.list(list("ns", exact)).await.unwrap_err().code(), Code::OutOfRange);
    let not_older = pb::ListOptions {
        resource_version: first.resource_version.clone(),
        resource_version_match: pb::ResourceVersionMatch::NotOlderThan as i32,
        ..Default::default()
    };
    assert_eq!(r.list(list("ns", not_older)).await.unwrap().into_inner().items.len(), 8);
}

async fn next(stream: &mut tonic::Streaming<pb::WatchEvent>) -> (pb::EventType, serde_json::Value) {
    let event = tokio::time::timeout(WAIT, stream.message()).await.expect("an event in time").unwrap().expect("open");
    (event.r#type(), support::parse(&event.object))
}

fn watch(namespace: &str, options: pb::WatchOptions) -> pb::WatchResourcesRequest {
    pb::WatchResourcesRequest { r#ref: Some(widgets(namespace, "")), options: Some(options) }
}

#[tokio::test]
async fn watches_see_every_change_in_order_and_resume_after_a_restart() {
    let mut t = TestServer::start().await;
    register_widgets(&t).await;
    let mut r = t.resources().await;
    let a = create_widget(&mut r, "ns", &widget("a", json!({}))).await.unwrap();
    let start = a["metadata"]["resourceVersion"].as_str().unwrap().to_string();
    let mut w = r
        .watch(watch("", pb::WatchOptions { resource_version: start.clone(), ..Default::default() }))
        .await
        .unwrap()
        .into_inner();
    create_widget(&mut r, "other", &widget("b", json!({}))).await.unwrap();
    patch_widget(&mut r, "ns", "a", pb::PatchType::Merge, r#"{"spec": {"x": 1}}"#).await.unwrap();
    delete_widget(&mut r, "ns", "a").await.unwrap();
    let mut seen = Vec::new();
    for _ in 0..3 {
        let (kind, obj) = next(&mut w).await;
        seen.push((kind, obj["metadata"]["name"].as_str().unwrap().to_string()));
    }
    assert_eq!(
        seen,
        [
            (pb::EventType::Added, "b".into()),
            (pb::EventType::Modified, "a".into()),
            (pb::EventType::Deleted, "a".into())
        ]
    );
    t.restart().await;
    let mut r = t.resources().await;
    let mut again = r
        .watch(watch("", pb::WatchOptions { resource_version: start, ..Default::default() }))
        .await
        .unwrap()
        .into_inner();
    let mut replay = Vec::new();
    for _ in 0..3 {
        replay.push(next(&mut again).await.0);
    }
    assert_eq!(replay, [pb::EventType::Added, pb::EventType::Modified, pb::EventType::Deleted]);
    assert!(tokio::time::timeout(Duration::from_millis(300), again.message()).await.is_err(), "no duplicates");
}

#[tokio::test]
async fn watches_end_when_the_definition_changes() {
    let t = TestServer::start().await;
    register_widgets(&t).await;
    let (mut c, mut r) = (t.definitions().await, t.resources().await);
    let mut w = r.watch(watch("", pb::WatchOptions::default())).await.unwrap().into_inner();
    create_widget(&mut r, "ns", &widget("a", json!({}))).await.unwrap();
    assert_eq!(next(&mut w).await.0, pb::EventType::Added);
    let mut crd = support::get(&mut c, "widgets.example.com").await;
    crd["spec"]["names"]["shortNames"] = json!(["wd"]);
    support::update(&mut c, &crd).await.unwrap();
    let ended = tokio::time::timeout(WAIT, w.message()).await.expect("the watch ends");
    assert!(matches!(ended, Ok(None)), "ended cleanly: {ended:?}");
}

#[tokio::test]
async fn watch_selectors_and_initial_state() {
    let t = TestServer::start().await;
    register_widgets(&t).await;
    let mut r = t.resources().await;
    let mut body = widget("a", json!({}));
    body["metadata"]["labels"] = json!({"watched": "yes"});
    create_widget(&mut r, "ns", &body).await.unwrap();
    create_widget(&mut r, "ns", &widget("b", json!({}))).await.unwrap();
    let options = pb::WatchOptions { label_selector: "watched=yes".into(), ..Default::default() };
    let mut w = r.watch(watch("ns", options)).await.unwrap().into_inner();
    let (kind, obj) = next(&mut w).await;
    assert_eq!((kind, obj["metadata"]["name"].as_str()), (pb::EventType::Added, Some("a")));
    patch_widget(&mut r, "ns", "a", pb::PatchType::Merge, r#"{"metadata": {"labels": {"watched": "no"}}}"#)
        .await
        .unwrap();
    assert_eq!(next(&mut w).await.0, pb::EventType::Deleted, "stopped matching");
    patch_widget(&mut r, "ns", "b", pb::PatchType::Merge, r#"{"metadata": {"labels": {"watched": "yes"}}}"#)
        .await
        .unwrap();
    let (kind, obj) = next(&mut w).await;
    assert_eq!((kind, obj["metadata"]["name"].as_str()), (pb::EventType::Added, Some("b")), "started matching");
}

#[tokio::test]
async fn a_timed_out_watch_ends_with_a_bookmark() {
    let t = TestServer::start().await;
    register_widgets(&t).await;
    let mut r = t.resources().await;
    let created = create_widget(&mut r, "ns", &widget("a", json!({}))).await.unwrap();
    let rv = created["metadata"]["resourceVersion"].as_str().unwrap().to_string();
    let options = pb::WatchOptions {
        resource_version: rv.clone(),
        allow_bookmarks: true,
        timeout_seconds: 1,
        ..Default::default()
    };
    let mut w = r.watch(watch("", options)).await.unwrap().into_inner();
    let (kind, obj) = next(&mut w).await;
    assert_eq!(kind, pb::EventType::Bookmark);
    assert_eq!((obj["apiVersion"].as_str(), obj["kind"].as_str()), (Some("example.com/v1"), Some("Widget")));
    assert!(obj["metadata"]["resourceVersion"].as_str().unwrap().parse::<i64>().unwrap() >= rv.parse::<i64>().unwrap());
    let ended = tokio::time::timeout(WAIT, w.message()).await.expect("the watch ends after its timeout");
    assert!(matches!(ended, Ok(None)), "{ended:?}");
}

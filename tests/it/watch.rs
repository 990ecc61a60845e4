//! Watching definitions through the gRPC server: initial state, changes in
//! order, resuming (also across a restart), expiry, bookmarks.

use std::time::Duration;

use crdstore::pb::v1 as pb;
use serde_json::{json, Value};
use tonic::{Code, Streaming};

use crate::support::{self, create, Crd, TestServer, WAIT};

async fn open(c: &mut support::Client, options: pb::WatchOptions) -> Streaming<pb::WatchEvent> {
    c.watch(pb::WatchDefinitionsRequest { options: Some(options) }).await.unwrap().into_inner()
}

async fn next(stream: &mut Streaming<pb::WatchEvent>) -> (pb::EventType, Value) {
    let event =
        tokio::time::timeout(WAIT, stream.message()).await.expect("an event in time").unwrap().expect("stream open");
    (event.r#type(), support::parse(&event.object))
}

fn rv(obj: &Value) -> String {
    obj["metadata"]["resourceVersion"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn without_a_version_the_current_state_comes_first_then_changes() {
    let t = TestServer::start().await;
    let mut c = t.definitions().await;
    create(&mut c, &Crd::new("example.com", "Alpha")).await;
    let mut w = open(&mut c, pb::WatchOptions::default()).await;
    let (kind, obj) = next(&mut w).await;
    assert_eq!((kind, obj["metadata"]["name"].as_str()), (pb::EventType::Added, Some("alphas.example.com")));
    let created = create(&mut c, &Crd::new("example.com", "Bravo")).await;
    let (kind, obj) = next(&mut w).await;
    assert_eq!((kind, rv(&obj)), (pb::EventType::Added, rv(&created)));
    let mut body = created.clone();
    body["metadata"]["labels"] = json!({"x": "y"});
    support::update(&mut c, &body).await.unwrap();
    assert_eq!(next(&mut w).await.0, pb::EventType::Modified);
    c.delete(pb::DeleteDefinitionRequest { name: "bravos.example.com".into(), options: None }).await.unwrap();
    let (kind, terminating) = next(&mut w).await;
    assert_eq!(kind, pb::EventType::Modified, "a delete first marks the definition terminating");
    assert!(terminating["metadata"]["deletionTimestamp"].is_string());
    let (kind, obj) = next(&mut w).await;
    assert_eq!(kind, pb::EventType::Deleted);
    assert_eq!(obj["metadata"]["labels"]["x"], "y", "DELETED carries the last state");
    assert!(rv(&obj).parse::<i64>().unwrap() > rv(&created).parse::<i64>().unwrap(), "with the deletion's version");
}

#[tokio::test]
async fn a_watch_resumes_after_a_restart_without_gap_or_duplicate() {
    let mut t = TestServer::start().await;
    let mut c = t.definitions().await;
    let first = create(&mut c, &Crd::new("example.com", "Alpha")).await;
    create(&mut c, &Crd::new("example.com", "Bravo")).await;
    t.restart().await;
    let mut c = t.definitions().await;
    create(&mut c, &Crd::new("example.com", "Charlie")).await;
    let mut w = open(&mut c, pb::WatchOptions { resource_version: rv(&first), ..Default::default() }).await;
    let mut names = Vec::new();
    for _ in 0..2 {
        let (kind, obj) = next(&mut w).await;
        assert_eq!(kind, pb::EventType::Added);
        names.push(obj["metadata"]["name"].as_str().unwrap().to_string());
    }
    assert_eq!(names, ["bravos.example.com", "charlies.example.com"]);
    let quiet = tokio::time::timeout(Duration::from_millis(300), w.message()).await;
    assert!(quiet.is_err(), "no duplicate after the last change");
}

#[tokio::test]
async fn a_version_older_than_the_window_is_out_of_range() {
    let t = TestServer::start_with(|config| {
        config.window = crdstore::storage::HistoryWindow { min_age: Duration::ZERO, min_revisions: 1 };
        config.compaction_interval = Duration::from_millis(100);
    })
    .await;
    let mut c = t.definitions().await;
    let first = create(&mut c, &Crd::new("example.com", "Alpha")).await;
    for kind in ["Bravo", "Charlie", "Delta"] {
        create(&mut c, &Crd::new("example.com", kind)).await;
    }
    let deadline = tokio::time::Instant::now() + WAIT;
    let err = loop {
        let watch = c.watch(pb::WatchDefinitionsRequest {
            options: Some(pb::WatchOptions { resource_version: rv(&first), ..Default::default() }),
        });
        match watch.await {
            Err(err) => break err,
            Ok(_) if tokio::time::Instant::now() < deadline => tokio::time::sleep(Duration::from_millis(100)).await,
            Ok(_) => panic!("history was never compacted"),
        }
    };
    assert_eq!(err.code(), Code::OutOfRange);
    assert_eq!(support::reason(&err), "Expired");
    assert!(err.message().starts_with("too old resource version: 1"), "{}", err.message());
}

#[tokio::test]
async fn bookmarks_carry_a_resumable_version() {
    let t = TestServer::start_with(|config| config.watch.bookmark_interval = Duration::from_millis(200)).await;
    let mut c = t.definitions().await;
    let created = create(&mut c, &Crd::new("example.com", "Alpha")).await;
    let options = pb::WatchOptions {
        resource_version: rv(&created),
        allow_bookmarks: true,
        label_selector: "nothing=matches".into(),
        ..Default::default()
    };
    let mut w = open(&mut c, options).await;
    create(&mut c, &Crd::new("example.com", "Bravo")).await;
    let (kind, obj) = next(&mut w).await;
    assert_eq!(kind, pb::EventType::Bookmark);
    assert_eq!(obj["kind"], "CustomResourceDefinition");
    assert!(rv(&obj).parse::<i64>().unwrap() > rv(&created).parse::<i64>().unwrap(), "bookmarks follow progress");
}

#[tokio::test]
async fn initial_events_end_with_a_marked_bookmark() {
    let t = TestServer::start().await;
    let mut c = t.definitions().await;
    create(&mut c, &Crd::new("example.com", "Alpha")).await;
    create(&mut c, &Crd::new("example.com", "Bravo")).await;
    let mut w =
        open(&mut c, pb::WatchOptions { send_initial_events: Some(true), allow_bookmarks: true, ..Default::default() })
            .await;
    assert_eq!(next(&mut w).await.0, pb::EventType::Added);
    assert_eq!(next(&mut w).await.0, pb::EventType::Added);
    let (kind, obj) = next(&mut w).await;
    assert_eq!(kind, pb::EventType::Bookmark);
    assert_eq!(obj["metadata"]["annotations"]["k8s.io/initial-events-end"], "true");
}

#[tokio::test]
async fn selectors_see_objects_enter_and_leave() {
    let t = TestServer::start().await;
    let mut c = t.definitions().await;
    let created = create(&mut c, &Crd::new("example.com", "Alpha")).await;
    let mut w = open(
        &mut c,
        pb::WatchOptions { label_selector: "watched=yes".into(), resource_version: rv(&created), ..Default::default() },
    )
    .await;
    let mut body = created.clone();
    body["metadata"]["labels"] = json!({"watched": "yes"});
    let labelled = support::update(&mut c, &body).await.unwrap();
    assert_eq!(next(&mut w).await.0, pb::EventType::Added);
    let mut body = labelled.clone();
    body["metadata"]["labels"] = json!({"watched": "no"});
    support::update(&mut c, &body).await.unwrap();
    assert_eq!(next(&mut w).await.0, pb::EventType::Deleted);
}

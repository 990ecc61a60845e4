//! Watching definitions through the gRPC server: initial state, changes in
//! order, resuming (also across a restart), expiry, bookmarks; and, for
//! custom resources, resourceVersions ahead of the store (over gRPC and
//! HTTP) and prompt bookmarks past other namespaces' changes.

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
    let expected = format!("too old resource version: {}", rv(&first));
    assert!(err.message().starts_with(&expected), "{}", err.message());
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
    // A slow machine may see an idle interval's bookmark, at the watch's
    // start, before the one that follows progress.
    let obj = loop {
        let (kind, obj) = next(&mut w).await;
        assert_eq!(kind, pb::EventType::Bookmark);
        assert_eq!(obj["kind"], "CustomResourceDefinition");
        if rv(&obj) != rv(&created) {
            break obj;
        }
    };
    assert!(rv(&obj).parse::<i64>().unwrap() > rv(&created).parse::<i64>().unwrap(), "bookmarks follow progress");
}

/// What keeps a watch open behind a proxy's idle timeout: a watch that
/// allows bookmarks gets one after every interval without an event, at the
/// revision it has reached, even when nothing changed.
#[tokio::test]
async fn an_idle_watch_gets_a_bookmark_every_interval() {
    let interval = Duration::from_millis(300);
    let t = TestServer::start_with(|config| config.watch.bookmark_interval = interval).await;
    let mut c = t.definitions().await;
    let created = create(&mut c, &Crd::new("example.com", "Alpha")).await;
    let options = pb::WatchOptions { resource_version: rv(&created), allow_bookmarks: true, ..Default::default() };
    let mut w = open(&mut c, options).await;
    let started = std::time::Instant::now();
    for _ in 0..3 {
        let (kind, obj) = next(&mut w).await;
        assert_eq!(kind, pb::EventType::Bookmark);
        assert_eq!(rv(&obj), rv(&created));
    }
    assert!(started.elapsed() >= interval * 2, "one bookmark per idle interval, not more");
    // An event resets the interval; the next bookmark carries its revision.
    let bravo = create(&mut c, &Crd::new("example.com", "Bravo")).await;
    let (kind, _) = next(&mut w).await;
    assert_eq!(kind, pb::EventType::Added);
    let (kind, obj) = next(&mut w).await;
    assert_eq!(kind, pb::EventType::Bookmark);
    assert_eq!(rv(&obj), rv(&bravo));
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

fn widget_watch(namespace: &str, options: pb::WatchOptions) -> pb::WatchResourcesRequest {
    pb::WatchResourcesRequest { r#ref: Some(support::widgets(namespace, "")), options: Some(options) }
}

/// The `causes` and `retryAfterSeconds` of a status's ErrorInfo.
fn info(status: &tonic::Status) -> (Value, String) {
    use tonic_types::StatusExt;
    let info = status.get_error_details().error_info().expect("ErrorInfo").clone();
    let causes = serde_json::from_str(info.metadata.get("causes").expect("causes")).unwrap();
    (causes, info.metadata.get("retryAfterSeconds").cloned().unwrap_or_default())
}

#[tokio::test]
async fn a_resource_version_ahead_of_the_store_waits_then_is_too_large_over_grpc() {
    let t = TestServer::start().await;
    support::register_widgets(&t).await;
    let mut r = t.resources().await;
    let created = support::create_widget(&mut r, "ns", &support::widget("a", json!({}))).await.unwrap();
    let current: i64 = rv(&created).parse().unwrap();
    let ahead = (current + 1000).to_string();

    // A revision reached while waiting is served: the watch starts after it.
    let next_rv = (current + 1).to_string();
    let mut waiting = t.resources().await;
    let pending = tokio::spawn(async move {
        let options = pb::WatchOptions { resource_version: next_rv, ..Default::default() };
        waiting.watch(widget_watch("", options)).await.map(|w| w.into_inner())
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    support::create_widget(&mut r, "ns", &support::widget("b", json!({}))).await.unwrap();
    let c = support::create_widget(&mut r, "ns", &support::widget("c", json!({}))).await.unwrap();
    let mut w = pending.await.unwrap().expect("the store reached the revision in time");
    let (kind, obj) = next(&mut w).await;
    assert_eq!((kind, rv(&obj)), (pb::EventType::Added, rv(&c)), "exactly the revisions after the one asked for");

    let watch = async {
        let options = pb::WatchOptions { resource_version: ahead.clone(), ..Default::default() };
        t.resources().await.watch(widget_watch("", options)).await.map(|_| ()).unwrap_err()
    };
    let get = async {
        let request =
            pb::GetResourceRequest { r#ref: Some(support::widgets("ns", "a")), resource_version: ahead.clone() };
        t.resources().await.get(request).await.map(|_| ()).unwrap_err()
    };
    let list = async {
        let options = pb::ListOptions {
            resource_version: ahead.clone(),
            resource_version_match: pb::ResourceVersionMatch::NotOlderThan as i32,
            ..Default::default()
        };
        let request = pb::ListResourcesRequest { r#ref: Some(support::widgets("", "")), options: Some(options) };
        t.resources().await.list(request).await.map(|_| ()).unwrap_err()
    };
    let started = std::time::Instant::now();
    let (watch, get, list) = tokio::join!(watch, get, list);
    assert!(started.elapsed() >= Duration::from_secs(2), "it waited for the store first");
    let message = format!("Timeout: Too large resource version: {ahead}, current: {}", current + 2);
    for status in [watch, get, list] {
        assert_eq!(status.code(), Code::DeadlineExceeded, "{status:?}");
        assert_eq!(support::reason(&status), "Timeout");
        assert_eq!(status.message(), message);
        let (causes, retry) = info(&status);
        assert_eq!(causes[0]["reason"], "ResourceVersionTooLarge");
        assert_eq!(causes[0]["message"], "Too large resource version");
        assert_eq!(retry, "1");
    }
    assert_eq!(support::get_widget(&mut r, "ns", "a").await.unwrap()["metadata"]["name"], "a", "still serving");
}

#[tokio::test]
async fn a_resource_version_ahead_of_the_store_is_504_too_large_over_http() {
    let t = TestServer::start().await;
    support::register_widgets(&t).await;
    let mut r = t.resources().await;
    let created = support::create_widget(&mut r, "ns", &support::widget("a", json!({}))).await.unwrap();
    let current: i64 = rv(&created).parse().unwrap();
    let ahead = current + 1000;
    let (client, base) = (reqwest::Client::new(), format!("http://{}", t.server().http_addr));
    let collection = format!("{base}/apis/example.com/v1/namespaces/ns/widgets");
    let fetch = |url: String| {
        let client = client.clone();
        async move {
            let response = client.get(url).send().await.unwrap();
            (response.status(), response.json::<Value>().await.unwrap())
        }
    };
    let (watch, get, list) = tokio::join!(
        fetch(format!("{collection}?watch=true&resourceVersion={ahead}")),
        fetch(format!("{collection}/a?resourceVersion={ahead}")),
        fetch(format!("{collection}?resourceVersion={ahead}&resourceVersionMatch=NotOlderThan")),
    );
    for (status, body) in [watch, get, list] {
        assert_eq!(status, reqwest::StatusCode::GATEWAY_TIMEOUT, "{body}");
        assert_eq!(
            (body["kind"].as_str(), body["reason"].as_str(), body["code"].as_i64()),
            (Some("Status"), Some("Timeout"), Some(504))
        );
        assert_eq!(body["message"], format!("Timeout: Too large resource version: {ahead}, current: {current}"));
        assert_eq!(
            body["details"]["causes"],
            json!([{"reason": "ResourceVersionTooLarge", "message": "Too large resource version", "field": ""}])
        );
        assert_eq!(body["details"]["retryAfterSeconds"], 1);
    }
    let (status, listed) = fetch(collection).await;
    assert_eq!((status, listed["items"].as_array().map(Vec::len)), (reqwest::StatusCode::OK, Some(1)), "still serving");
}

#[tokio::test]
async fn a_watch_gets_a_bookmark_for_revisions_of_other_namespaces_without_waiting_for_a_write() {
    // Periodic bookmarks are a minute apart: any bookmark below is prompt.
    let t = TestServer::start().await;
    support::register_widgets(&t).await;
    let mut r = t.resources().await;
    let first = support::create_widget(&mut r, "mine", &support::widget("a", json!({}))).await.unwrap();
    let mut last = first.clone();
    for name in ["b", "c", "d"] {
        last = support::create_widget(&mut r, "other", &support::widget(name, json!({}))).await.unwrap();
    }
    // Catching up past them from history.
    let options = pb::WatchOptions { resource_version: rv(&first), allow_bookmarks: true, ..Default::default() };
    let mut w = r.watch(widget_watch("mine", options)).await.unwrap().into_inner();
    let (kind, obj) = next(&mut w).await;
    assert_eq!((kind, rv(&obj)), (pb::EventType::Bookmark, rv(&last)), "caught up past the other namespace");
    // And live, once they are published.
    let later = support::create_widget(&mut r, "other", &support::widget("e", json!({}))).await.unwrap();
    let (kind, obj) = next(&mut w).await;
    assert_eq!((kind, rv(&obj)), (pb::EventType::Bookmark, rv(&later)));
    // A watch that did not ask for bookmarks gets none.
    let options = pb::WatchOptions { resource_version: rv(&first), ..Default::default() };
    let mut quiet = r.watch(widget_watch("mine", options)).await.unwrap().into_inner();
    assert!(tokio::time::timeout(Duration::from_millis(1200), quiet.message()).await.is_err(), "no bookmark unasked");
    // A selector that filters every change out gets one bookmark per batch.
    let options = pb::WatchOptions {
        resource_version: rv(&later),
        allow_bookmarks: true,
        label_selector: "nothing=matches".into(),
        ..Default::default()
    };
    let mut filtered = r.watch(widget_watch("other", options)).await.unwrap().into_inner();
    let patched =
        support::patch_widget(&mut r, "other", "b", pb::PatchType::Merge, r#"{"spec": {"x": 1}}"#).await.unwrap();
    let (kind, obj) = next(&mut filtered).await;
    assert_eq!((kind, rv(&obj)), (pb::EventType::Bookmark, rv(&patched)));
}

/// The initial events of a watch are read a page at a time as the client
/// reads them, all at the watch's revision: writes made while a client is
/// still reading its initial events arrive after them, as changes.
#[tokio::test]
async fn initial_events_are_read_in_pages_at_the_watch_revision() {
    let t = TestServer::start().await;
    support::register_widgets(&t).await;
    let mut r = t.resources().await;
    let total = 1_200;
    let mut newest = Value::Null;
    for i in 0..total {
        newest = support::create_widget(&mut r, "default", &support::widget(&format!("w{i:04}"), json!({"n": i})))
            .await
            .unwrap();
    }
    let request = pb::WatchResourcesRequest {
        r#ref: Some(support::widgets("default", "")),
        options: Some(pb::WatchOptions {
            send_initial_events: Some(true),
            allow_bookmarks: true,
            ..Default::default()
        }),
    };
    let mut w = r.watch(request).await.unwrap().into_inner();
    let (kind, first) = next(&mut w).await;
    assert_eq!((kind, first["metadata"]["name"].as_str()), (pb::EventType::Added, Some("w0000")));
    // Change objects of later pages while the initial events are unread.
    let mut last = support::get_widget(&mut r, "default", "w1100").await.unwrap();
    last["spec"]["n"] = json!(-1);
    support::update_widget(&mut r, "default", &last).await.unwrap();
    support::delete_widget(&mut r, "default", "w1199").await.unwrap();
    for i in 1..total {
        let (kind, obj) = next(&mut w).await;
        assert_eq!(kind, pb::EventType::Added);
        assert_eq!(obj["metadata"]["name"], format!("w{i:04}"));
        assert_eq!(obj["spec"]["n"], i, "the state at the watch's revision");
    }
    let (kind, end) = next(&mut w).await;
    assert_eq!(kind, pb::EventType::Bookmark);
    assert_eq!(end["metadata"]["annotations"]["k8s.io/initial-events-end"], "true");
    assert_eq!(rv(&end), rv(&newest), "initial events end at the watch's revision");
    let (kind, modified) = next(&mut w).await;
    assert_eq!((kind, modified["spec"]["n"].clone()), (pb::EventType::Modified, json!(-1)));
    let (kind, deleted) = next(&mut w).await;
    assert_eq!((kind, deleted["metadata"]["name"].as_str()), (pb::EventType::Deleted, Some("w1199")));
}

/// Many watches multiplexed on one connection, as an informer factory or a
/// proxy opens them, while writers commit concurrently: every watcher gets
/// every change, once, in revision order, and the server serves after.
#[tokio::test]
async fn many_watches_on_one_connection_each_get_every_change_in_order() {
    many_watches_each_get_every_change_in_order(TestServer::start().await).await;
}

/// The same, with watches produced on the watch pool (`--watch-nice`).
#[tokio::test]
async fn watches_produced_on_the_watch_pool_each_get_every_change_in_order() {
    let nice = crdstore::watch::pool::BACKGROUND_NICE;
    many_watches_each_get_every_change_in_order(TestServer::start_with(|c| c.watch_nice = nice).await).await;
}

/// 300 watches on one connection, then 200 creates by 8 writers: every
/// watch sees every change once, in revision order, the same sequence.
async fn many_watches_each_get_every_change_in_order(t: TestServer) {
    const WATCHERS: usize = 300;
    const OBJECTS: usize = 200;
    support::register_widgets(&t).await;
    let r = t.resources().await;
    let mut watches = Vec::new();
    for _ in 0..WATCHERS {
        let options = pb::WatchOptions { send_initial_events: Some(false), ..Default::default() };
        let request = pb::WatchResourcesRequest { r#ref: Some(support::widgets("many", "")), options: Some(options) };
        watches.push(r.clone().watch(request).await.unwrap().into_inner());
    }
    let writers = (0..8).map(|w| {
        let mut r = r.clone();
        tokio::spawn(async move {
            for i in (w..OBJECTS).step_by(8) {
                support::create_widget(&mut r, "many", &support::widget(&format!("w-{i:04}"), json!({})))
                    .await
                    .unwrap();
            }
        })
    });
    let readers = watches.into_iter().map(|mut stream| {
        tokio::spawn(async move {
            let mut seen = Vec::new();
            while seen.len() < OBJECTS {
                let event = tokio::time::timeout(WAIT, stream.message()).await.expect("an event in time").unwrap();
                let event = event.expect("stream open");
                assert_eq!(event.r#type(), pb::EventType::Added);
                let obj = support::parse(&event.object);
                seen.push((rv(&obj).parse::<i64>().unwrap(), obj["metadata"]["name"].as_str().unwrap().to_string()));
            }
            seen
        })
    });
    let (written, seen) = tokio::join!(futures::future::join_all(writers), futures::future::join_all(readers));
    written.into_iter().for_each(|w| w.unwrap());
    let mut first: Option<Vec<(i64, String)>> = None;
    for seen in seen {
        let seen = seen.unwrap();
        assert!(seen.windows(2).all(|w| w[0].0 < w[1].0), "in revision order");
        let mut names: Vec<_> = seen.iter().map(|(_, n)| n.clone()).collect();
        names.sort();
        assert_eq!(names, (0..OBJECTS).map(|i| format!("w-{i:04}")).collect::<Vec<_>>(), "every change, once");
        match &first {
            None => first = Some(seen),
            Some(first) => assert_eq!(first, &seen, "every watcher sees the same sequence"),
        }
    }
    let mut r = t.resources().await;
    let got = support::get_widget(&mut r, "many", "w-0000").await.unwrap();
    assert_eq!(got["metadata"]["name"], "w-0000", "the server still serves");
}

/// Over HTTP on the watch pool: a resource watch and a definitions watch
/// see their changes in order, and a watch that ends (its timeout) ends.
#[tokio::test]
async fn http_watches_on_the_watch_pool_see_changes_in_order_and_end() {
    let t = TestServer::start_with(|c| c.watch_nice = crdstore::watch::pool::BACKGROUND_NICE).await;
    support::register_widgets(&t).await;
    let base = format!("http://{}", t.server().http_addr);
    let client = reqwest::Client::new();
    let lines = |url: String| {
        let client = client.clone();
        async move {
            let body = client.get(url).send().await.unwrap().text().await.unwrap();
            body.lines().map(|line| serde_json::from_str::<Value>(line).unwrap()).collect::<Vec<_>>()
        }
    };
    let collection = format!("{base}/apis/example.com/v1/namespaces/ns/widgets");
    let watched = tokio::spawn(lines(format!("{collection}?watch=true&resourceVersion=0&timeoutSeconds=3")));
    let definitions = tokio::spawn(lines(format!(
        "{base}/apis/apiextensions.k8s.io/v1/customresourcedefinitions?watch=true&resourceVersion=0&timeoutSeconds=3"
    )));
    let mut r = t.resources().await;
    let mut written = Vec::new();
    for i in 0..20 {
        let created = support::create_widget(&mut r, "ns", &support::widget(&format!("w{i:02}"), json!({}))).await;
        written.push(rv(&created.unwrap()));
    }
    let events = tokio::time::timeout(WAIT, watched).await.expect("the watch ends at its timeout").unwrap();
    let seen: Vec<_> = events.iter().map(|e| (e["type"].as_str().unwrap(), rv(&e["object"]))).collect();
    assert_eq!(seen, written.iter().map(|rv| ("ADDED", rv.clone())).collect::<Vec<_>>());
    let events = tokio::time::timeout(WAIT, definitions).await.expect("the watch ends at its timeout").unwrap();
    assert!(
        events.iter().any(|e| e["object"]["metadata"]["name"] == "widgets.example.com"),
        "the definition is seen: {events:?}"
    );
}

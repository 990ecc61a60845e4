//! core/v1 and events.k8s.io/v1 Events as one stored object: each API reads
//! and writes what the other does, in its own shape (upstream's
//! conversion), both watches see one write, both APIs' field selectors
//! select it, and the TTL deletes it from both.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use super::{core_event, Http};
use crate::support::TestServer;

const CORE: &str = "/api/v1/namespaces/default/events";
const EVENTS: &str = "/apis/events.k8s.io/v1/namespaces/default/events";

/// An event as a recorder writes it through events.k8s.io/v1.
fn recorded(name: &str, regarding: &str, event_time: &str) -> Value {
    json!({"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": name},
        "eventTime": event_time, "reportingController": "example.com/operator",
        "reportingInstance": "operator-1", "action": "Reconcile", "reason": "Scaled", "note": "scaled it",
        "type": "Warning", "regarding": {"kind": "Parent", "namespace": "default", "name": regarding},
        "related": {"kind": "Child", "namespace": "default", "name": "c"}})
}

fn names(list: &Value) -> Vec<&str> {
    let items = list["items"].as_array().unwrap_or_else(|| panic!("not a list: {list}"));
    let mut names: Vec<&str> = items.iter().map(|i| i["metadata"]["name"].as_str().unwrap()).collect();
    names.sort();
    names
}

#[tokio::test]
async fn both_apis_read_and_write_one_stored_event_each_in_its_shape() {
    let t = TestServer::start().await;
    let http = Http::new(&t);
    // events.k8s.io/v1 writes, core/v1 reads.
    let (code, body) = http.post(EVENTS, recorded("rec", "p", "2026-01-01T00:00:00.000000Z")).await;
    assert_eq!(code, StatusCode::CREATED, "{body}");
    assert_eq!((&body["apiVersion"], &body["note"]), (&json!("events.k8s.io/v1"), &json!("scaled it")));
    let (code, core) = http.get(&format!("{CORE}/rec")).await;
    assert_eq!(code, StatusCode::OK, "{core}");
    assert_eq!(core["apiVersion"], "v1");
    assert_eq!(core["kind"], "Event");
    assert_eq!(core["message"], "scaled it");
    assert_eq!(core["involvedObject"]["name"], "p");
    assert_eq!(core["related"]["name"], "c");
    assert_eq!(core["reportingComponent"], "example.com/operator");
    assert_eq!(core["reportingInstance"], "operator-1");
    assert_eq!(
        (&core["action"], &core["reason"], &core["type"]),
        (&json!("Reconcile"), &json!("Scaled"), &json!("Warning"))
    );
    assert_eq!(core["eventTime"], "2026-01-01T00:00:00.000000Z");
    assert!(core.get("note").is_none() && core.get("regarding").is_none(), "{core}");
    assert_eq!(core["metadata"]["uid"], body["metadata"]["uid"]);

    // core/v1 writes, events.k8s.io/v1 reads.
    let (code, body) = http.post(CORE, core_event("legacy", "default")).await;
    assert_eq!(code, StatusCode::CREATED, "{body}");
    let (code, ev) = http.get(&format!("{EVENTS}/legacy")).await;
    assert_eq!(code, StatusCode::OK, "{ev}");
    assert_eq!(ev["apiVersion"], "events.k8s.io/v1");
    assert_eq!(ev["note"], "made it");
    assert_eq!(ev["regarding"]["name"], "w");
    assert_eq!(ev["deprecatedCount"], 1);
    assert_eq!(ev["deprecatedFirstTimestamp"], "2026-01-01T00:00:00Z");
    assert_eq!(ev["deprecatedLastTimestamp"], body["lastTimestamp"]);
    assert_eq!(ev["deprecatedSource"]["component"], "test");
    assert!(ev.get("message").is_none() && ev.get("involvedObject").is_none(), "{ev}");

    // Both lists hold both.
    assert_eq!(names(&http.get(CORE).await.1), ["legacy", "rec"]);
    assert_eq!(names(&http.get(EVENTS).await.1), ["legacy", "rec"]);
    assert_eq!(names(&http.get("/apis/events.k8s.io/v1/events").await.1), ["legacy", "rec"]);

    // An update through core/v1 shows through events.k8s.io/v1, and a patch
    // through events.k8s.io/v1 through core/v1.
    let (_, mut core) = http.get(&format!("{CORE}/rec")).await;
    core["message"] = json!("rescaled");
    let (code, updated) = http.json(Method::PUT, &format!("{CORE}/rec"), Some(core)).await;
    assert_eq!(code, StatusCode::OK, "{updated}");
    assert_eq!(http.get(&format!("{EVENTS}/rec")).await.1["note"], "rescaled");
    let response = http
        .client
        .patch(format!("{}{EVENTS}/legacy", http.base))
        .header("Content-Type", "application/merge-patch+json")
        .body(json!({"note": "patched"}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let patched: Value = response.json().await.unwrap();
    assert_eq!((&patched["apiVersion"], &patched["note"]), (&json!("events.k8s.io/v1"), &json!("patched")));
    assert_eq!(http.get(&format!("{CORE}/legacy")).await.1["message"], "patched");

    // A delete through one is a delete for both; so is a delete-collection.
    let (code, _) = http.delete(&format!("{EVENTS}/rec")).await;
    assert_eq!(code, StatusCode::OK);
    assert_eq!(http.get(&format!("{CORE}/rec")).await.0, StatusCode::NOT_FOUND);
    let (code, body) = http.delete(CORE).await;
    assert_eq!(code, StatusCode::OK, "{body}");
    assert!(names(&http.get(EVENTS).await.1).is_empty());
    http.serves().await;
}

/// The first event a watch at `path` sends.
async fn first_event(response: &mut reqwest::Response) -> Value {
    let mut text = String::new();
    while !text.contains('\n') {
        let chunk = tokio::time::timeout(Duration::from_secs(10), response.chunk()).await.unwrap().unwrap().unwrap();
        text.push_str(std::str::from_utf8(&chunk).unwrap());
    }
    serde_json::from_str(text.lines().next().unwrap()).unwrap()
}

#[tokio::test]
async fn both_watches_see_one_write() {
    let t = TestServer::start().await;
    let http = Http::new(&t);
    let (_, list) = http.get(CORE).await;
    let rv = list["metadata"]["resourceVersion"].as_str().unwrap().to_string();
    let watch = |path: &str| {
        let url = format!("{}{path}?watch=true&resourceVersion={rv}", http.base);
        http.client.get(url).send()
    };
    let (mut core, mut events) = (watch(CORE).await.unwrap(), watch(EVENTS).await.unwrap());
    let (code, body) = http.post(EVENTS, recorded("seen", "p", "2026-01-01T00:00:00.000000Z")).await;
    assert_eq!(code, StatusCode::CREATED, "{body}");
    let (c, e) = (first_event(&mut core).await, first_event(&mut events).await);
    assert_eq!((c["type"].as_str(), c["object"]["message"].as_str()), (Some("ADDED"), Some("scaled it")));
    assert_eq!(c["object"]["apiVersion"], "v1");
    assert_eq!((e["type"].as_str(), e["object"]["note"].as_str()), (Some("ADDED"), Some("scaled it")));
    assert_eq!(e["object"]["apiVersion"], "events.k8s.io/v1");
    assert_eq!(c["object"]["metadata"]["resourceVersion"], e["object"]["metadata"]["resourceVersion"]);
    http.serves().await;
}

#[tokio::test]
async fn both_apis_select_events_by_their_own_field_labels() {
    let t = TestServer::start().await;
    let http = Http::new(&t);
    let (code, body) = http.post(EVENTS, recorded("rec", "p", "2026-01-01T00:00:00.000000Z")).await;
    assert_eq!(code, StatusCode::CREATED, "{body}");
    let (code, body) = http.post(CORE, core_event("legacy", "default")).await;
    assert_eq!(code, StatusCode::CREATED, "{body}");
    let select = |path: &'static str, selector: &'static str| {
        let http = &http;
        async move { http.get(&format!("{path}?fieldSelector={}", urlencode(selector))).await }
    };
    for (path, selector, expected) in [
        (CORE, "involvedObject.name=p", vec!["rec"]),
        (CORE, "involvedObject.kind=Widget", vec!["legacy"]),
        (CORE, "involvedObject.namespace=default,reason=Created", vec!["legacy"]),
        (CORE, "type=Warning", vec!["rec"]),
        (CORE, "reportingComponent=example.com/operator", vec!["rec"]),
        // `source` is the source component, else the reporting controller.
        (CORE, "source=test", vec!["legacy"]),
        (CORE, "source=example.com/operator", vec!["rec"]),
        (CORE, "metadata.name!=rec", vec!["legacy"]),
        (EVENTS, "regarding.name=p", vec!["rec"]),
        (EVENTS, "regarding.kind!=Parent", vec!["legacy"]),
        (EVENTS, "reportingController=example.com/operator", vec!["rec"]),
        (EVENTS, "reason=Created", vec!["legacy"]),
        (EVENTS, "type=Normal", vec!["legacy"]),
    ] {
        let (code, list) = select(path, selector).await;
        assert_eq!(code, StatusCode::OK, "{selector}: {list}");
        assert_eq!(names(&list), expected, "{path}?fieldSelector={selector}");
    }
    // Each API knows only its own labels, as upstream's.
    for (path, selector) in [(EVENTS, "involvedObject.name=p"), (EVENTS, "source=test"), (CORE, "regarding.name=p")] {
        let (code, status) = select(path, selector).await;
        assert_eq!(code, StatusCode::BAD_REQUEST, "{path}?fieldSelector={selector}: {status}");
    }
    // A watch selects as a list does.
    let url = format!("{}{EVENTS}?watch=true&fieldSelector={}", http.base, urlencode("regarding.name=q"));
    let mut watch = http.client.get(url).send().await.unwrap();
    let (code, _) = http.post(CORE, core_event("other", "default")).await;
    assert_eq!(code, StatusCode::CREATED);
    let (code, _) = http.post(EVENTS, recorded("wanted", "q", "2026-01-01T00:00:00.000000Z")).await;
    assert_eq!(code, StatusCode::CREATED);
    let first = first_event(&mut watch).await;
    assert_eq!(first["object"]["metadata"]["name"], "wanted", "{first}");
    http.serves().await;
}

fn urlencode(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, percent_encoding::NON_ALPHANUMERIC).to_string()
}

#[tokio::test]
async fn the_ttl_deletes_an_event_from_both_apis() {
    let t = TestServer::start_with(|c| c.event_ttl = Duration::from_secs(1)).await;
    let http = Http::new(&t);
    let now = jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%S.000000Z").to_string();
    let (code, body) = http.post(EVENTS, recorded("short", "p", &now)).await;
    assert_eq!(code, StatusCode::CREATED, "{body}");
    assert_eq!(http.get(&format!("{CORE}/short")).await.0, StatusCode::OK);
    http.wait_gone(&format!("{CORE}/short")).await;
    assert_eq!(http.get(&format!("{EVENTS}/short")).await.0, StatusCode::NOT_FOUND);
    http.serves().await;
}

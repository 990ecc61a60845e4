//! The built-in kinds take what Kubernetes' own types take: strategic merge
//! patch, with the patch strategies of their Go types (ObjectMeta's
//! finalizers and owner references, a namespace's conditions by `type`),
//! over HTTP and gRPC, while custom resources keep answering 415; a body
//! without `apiVersion` and `kind` takes the endpoint's; and `/metrics`
//! counts the core group's requests and objects under their resources.

use crdstore::pb::v1 as pb;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use super::{core_event, lease};
use crate::support::{create_widget, patch_widget, reason, register_widgets, widget, Http, TestServer};
use crate::telemetry::{scrape, value};

const STRATEGIC: &str = "application/strategic-merge-patch+json";

#[tokio::test]
async fn a_namespace_takes_a_strategic_merge_patch_with_its_types_strategies() {
    let t = TestServer::start().await;
    let http = Http::new(&t);
    http.create_namespace("team").await;
    let path = "/api/v1/namespaces/team";
    let patch = json!({"metadata": {"labels": {"tier": "gold"}, "finalizers": ["example.com/a"]}});
    let (code, ns) = http.patch(path, STRATEGIC, patch).await;
    assert_eq!(code, StatusCode::OK, "{ns}");
    assert_eq!(ns["metadata"]["labels"]["tier"], "gold");
    // The label the namespace was defaulted with stays: maps merge.
    assert_eq!(ns["metadata"]["labels"]["kubernetes.io/metadata.name"], "team");
    // ObjectMeta's finalizers merge as a set, as kubectl's client-side
    // apply sends them (with its directives).
    let patch = json!({"metadata": {"$setElementOrder/finalizers": ["example.com/a", "example.com/b"],
        "finalizers": ["example.com/b"], "labels": {"tier": null}}});
    let (code, ns) = http.patch(path, STRATEGIC, patch).await;
    assert_eq!(code, StatusCode::OK, "{ns}");
    assert_eq!(ns["metadata"]["finalizers"], json!(["example.com/a", "example.com/b"]));
    assert!(ns["metadata"]["labels"].get("tier").is_none(), "{ns}");
    let patch = json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["example.com/a", "example.com/b"]}});
    let (code, ns) = http.patch(path, STRATEGIC, patch).await;
    assert_eq!(code, StatusCode::OK, "{ns}");
    assert!(ns["metadata"].get("finalizers").is_none_or(|f| f == &json!([])), "{ns}");

    // NamespaceStatus.Conditions merges by `type` on the status endpoint.
    let conditions =
        json!({"status": {"conditions": [{"type": "A", "status": "True"}, {"type": "B", "status": "True"}]}});
    let (code, ns) = http.patch(&format!("{path}/status"), STRATEGIC, conditions).await;
    assert_eq!(code, StatusCode::OK, "{ns}");
    let one = json!({"status": {"conditions": [{"type": "B", "status": "False"}]}});
    let (code, ns) = http.patch(&format!("{path}/status"), STRATEGIC, one).await;
    assert_eq!(code, StatusCode::OK, "{ns}");
    let types: Vec<(&str, &str)> = ns["status"]["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["type"].as_str().unwrap(), c["status"].as_str().unwrap()))
        .collect();
    assert_eq!(types, [("A", "True"), ("B", "False")], "{ns}");
    assert_eq!(ns["status"]["phase"], "Active");
}

#[tokio::test]
async fn events_and_leases_take_a_strategic_merge_patch_as_a_recorder_sends_it() {
    let t = TestServer::start().await;
    let http = Http::new(&t);
    let (code, _) = http.post("/api/v1/namespaces/default/events", core_event("seen", "default")).await;
    assert_eq!(code, StatusCode::CREATED);
    // client-go's recorder folds a repeated event into a patch of its count.
    let bump = json!({"count": 2, "lastTimestamp": "2026-01-01T00:01:00Z", "message": "made it again"});
    let (code, event) = http.patch("/api/v1/namespaces/default/events/seen", STRATEGIC, bump).await;
    assert_eq!(code, StatusCode::OK, "{event}");
    assert_eq!((event["count"].as_i64(), event["reason"].as_str()), (Some(2), Some("Created")));
    // The same object through events.k8s.io/v1, in its shape.
    let series = json!({"series": {"count": 3, "lastObservedTime": "2026-01-01T00:02:00.000000Z"}});
    let (code, event) = http.patch("/apis/events.k8s.io/v1/namespaces/default/events/seen", STRATEGIC, series).await;
    assert_eq!(code, StatusCode::OK, "{event}");
    assert_eq!(event["series"]["count"], 3);

    let (code, _) = http.post("/apis/coordination.k8s.io/v1/namespaces/default/leases", lease("l", json!({}))).await;
    assert_eq!(code, StatusCode::CREATED);
    let renew = json!({"spec": {"holderIdentity": "op-2", "leaseDurationSeconds": 15}});
    let (code, renewed) =
        http.patch("/apis/coordination.k8s.io/v1/namespaces/default/leases/l", STRATEGIC, renew).await;
    assert_eq!(code, StatusCode::OK, "{renewed}");
    assert_eq!(renewed["spec"]["holderIdentity"], "op-2");
}

#[tokio::test]
async fn strategic_merge_patch_reaches_built_in_kinds_over_grpc_but_not_custom_resources() {
    let t = TestServer::start().await;
    register_widgets(&t).await;
    let http = Http::new(&t);
    http.create_namespace("grpc").await;
    let mut resources = t.resources().await;
    let request = pb::PatchResourceRequest {
        r#ref: Some(pb::ResourceRef {
            group: String::new(),
            version: "v1".into(),
            resource: "namespaces".into(),
            name: "grpc".into(),
            ..Default::default()
        }),
        patch_type: pb::PatchType::StrategicMerge as i32,
        patch: br#"{"metadata": {"labels": {"via": "grpc"}}}"#.to_vec(),
        ..Default::default()
    };
    let patched = resources.patch(request).await.unwrap().into_inner();
    let ns: Value = serde_json::from_slice(&patched.object).unwrap();
    assert_eq!(ns["metadata"]["labels"]["via"], "grpc");

    create_widget(&mut resources, "default", &widget("w", json!({"size": 1}))).await.unwrap();
    let err = patch_widget(&mut resources, "default", "w", pb::PatchType::StrategicMerge, "{}").await.unwrap_err();
    assert_eq!(reason(&err), "UnsupportedMediaType", "{err:?}");
    let (code, answer) =
        http.patch("/apis/example.com/v1/namespaces/default/widgets/w", STRATEGIC, json!({"spec": {}})).await;
    assert_eq!(code, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_eq!(answer["message"], "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml");
    // A built-in kind names strategic merge patch among what it takes.
    let (code, answer) = http.patch("/api/v1/namespaces/grpc", "text/plain", json!({})).await;
    assert_eq!(code, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_eq!(answer["message"], "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml");
}

#[tokio::test]
async fn a_built_in_object_without_api_version_and_kind_takes_the_endpoints() {
    let t = TestServer::start().await;
    register_widgets(&t).await;
    let http = Http::new(&t);
    let (code, ns) = http.post("/api/v1/namespaces", json!({"metadata": {"name": "bare"}})).await;
    assert_eq!(code, StatusCode::CREATED, "{ns}");
    assert_eq!((ns["apiVersion"].as_str(), ns["kind"].as_str()), (Some("v1"), Some("Namespace")));
    let mut bare = json!({"metadata": ns["metadata"].clone(), "spec": ns["spec"].clone()});
    bare["metadata"]["labels"]["x"] = json!("y");
    let (code, ns) = http.json(Method::PUT, "/api/v1/namespaces/bare", Some(bare)).await;
    assert_eq!(code, StatusCode::OK, "{ns}");
    assert_eq!((ns["kind"].as_str(), ns["metadata"]["labels"]["x"].as_str()), (Some("Namespace"), Some("y")));
    let (code, l) = http
        .post("/apis/coordination.k8s.io/v1/namespaces/default/leases", json!({"metadata": {"name": "bare"}}))
        .await;
    assert_eq!(code, StatusCode::CREATED, "{l}");
    assert_eq!(l["apiVersion"], "coordination.k8s.io/v1");
    // A wrong one is still refused, and a custom resource must say both.
    let (code, _) = http
        .post("/api/v1/namespaces", json!({"apiVersion": "v2", "kind": "Namespace", "metadata": {"name": "x"}}))
        .await;
    assert_eq!(code, StatusCode::BAD_REQUEST);
    let (code, answer) = http
        .post("/apis/example.com/v1/namespaces/default/widgets", json!({"metadata": {"name": "w"}, "spec": {}}))
        .await;
    assert_eq!(code, StatusCode::BAD_REQUEST);
    assert_eq!(answer["message"], "Object 'apiVersion' is missing in the request body");
}

#[tokio::test]
async fn metrics_count_core_requests_and_objects_under_their_resources() {
    let t = TestServer::start().await;
    let http = Http::new(&t);
    http.create_namespace("counted").await;
    http.get("/api/v1/namespaces").await;
    let (code, _) = http.post("/api/v1/namespaces/counted/events", core_event("e", "counted")).await;
    assert_eq!(code, StatusCode::CREATED);
    let (code, _) = http.post("/apis/coordination.k8s.io/v1/namespaces/counted/leases", lease("l", json!({}))).await;
    assert_eq!(code, StatusCode::CREATED);

    let samples = scrape(t.server().http_addr).await;
    let request = |verb, resource| [("verb", verb), ("group", ""), ("version", "v1"), ("resource", resource)];
    assert!(value(&samples, "apiserver_request_total", &request("list", "namespaces")) >= 1.0);
    assert!(value(&samples, "apiserver_request_total", &request("create", "namespaces")) >= 1.0);
    assert!(value(&samples, "apiserver_request_total", &request("create", "events")) >= 1.0);
    // Each built-in kind's objects are counted under its resource (the
    // value is the last observation of whichever server in this test
    // process the SDK asked last, so only the series is checked here; the
    // prefixes counted are `server::builtin_counts`' unit test's).
    let stored = samples.iter().filter(|s| s.metric == "apiserver_storage_objects");
    let resources: Vec<&str> = stored.filter_map(|s| s.labels.get("resource")).collect();
    for resource in ["namespaces", "events", "leases.coordination.k8s.io"] {
        assert!(resources.contains(&resource), "{resource}: {resources:?}");
    }
    // events.k8s.io's Events are core's, counted once.
    assert!(!resources.contains(&"events.events.k8s.io"), "{resources:?}");
}

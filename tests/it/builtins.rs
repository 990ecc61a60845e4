//! The built-in kinds (issue 21): the namespace lifecycle over HTTP and
//! gRPC (Active, Terminating, content deleted through the ordinary
//! delete-collection, finalizers keeping it terminating with upstream's
//! conditions, creates refused, strict mode, resuming after a restart),
//! Lease and Event validation at their paths, the event TTL, and discovery
//! and OpenAPI of the core group and the new groups; core/v1 and
//! events.k8s.io/v1 Events as one stored object (`events` below).

use std::time::Duration;

use crdstore::pb::v1 as pb;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use tonic::Code;

mod events;
mod patches;

use crate::support::{create_widget, get_widget, patch_widget, register_widgets, widget, Http, TestServer, WAIT};

impl Http {
    /// Waits (generously) until `path` is 404.
    async fn wait_gone(&self, path: &str) {
        let deadline = tokio::time::Instant::now() + WAIT;
        while self.get(path).await.0 != StatusCode::NOT_FOUND {
            assert!(tokio::time::Instant::now() < deadline, "{path} was never removed");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    async fn create_namespace(&self, name: &str) -> Value {
        let (code, ns) = self
            .post("/api/v1/namespaces", json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}))
            .await;
        assert_eq!(code, StatusCode::CREATED, "{ns}");
        ns
    }

    /// The server still answers.
    async fn serves(&self) {
        assert_eq!(self.get("/api/v1/namespaces/default").await.0, StatusCode::OK);
    }
}

fn lease(name: &str, spec: Value) -> Value {
    json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": name}, "spec": spec})
}

fn core_event(name: &str, namespace: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": name},
        "involvedObject": {"kind": "Widget", "namespace": namespace, "name": "w"},
        "reason": "Created", "message": "made it", "type": "Normal", "count": 1,
        "firstTimestamp": "2026-01-01T00:00:00Z", "lastTimestamp": jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string(),
        "source": {"component": "test"}})
}

fn condition<'a>(ns: &'a Value, type_: &str) -> &'a Value {
    ns["status"]["conditions"].as_array().and_then(|c| c.iter().find(|c| c["type"] == type_)).unwrap_or(&Value::Null)
}

#[tokio::test]
async fn system_namespaces_exist_and_new_ones_start_active() {
    let t = TestServer::start().await;
    let http = Http::new(&t);
    let (code, list) = http.get("/api/v1/namespaces").await;
    assert_eq!(code, StatusCode::OK);
    assert_eq!(list["kind"], "NamespaceList");
    let names: Vec<&str> =
        list["items"].as_array().unwrap().iter().map(|n| n["metadata"]["name"].as_str().unwrap()).collect();
    for system in ["default", "kube-node-lease", "kube-public", "kube-system"] {
        assert!(names.contains(&system), "{names:?}");
    }
    let ns = http.create_namespace("team").await;
    assert_eq!(ns["apiVersion"], "v1");
    assert_eq!(ns["status"]["phase"], "Active");
    assert_eq!(ns["spec"]["finalizers"], json!(["kubernetes"]));
    assert_eq!(ns["metadata"]["labels"]["kubernetes.io/metadata.name"], "team");

    let (code, status) = http
        .post("/api/v1/namespaces", json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a.b"}}))
        .await;
    assert_eq!(code, StatusCode::UNPROCESSABLE_ENTITY, "{status}");
    assert_eq!(status["details"]["causes"][0]["field"], "metadata.name");
    assert_eq!(status["details"]["kind"], "Namespace");

    let (code, status) = http.delete("/api/v1/namespaces/default").await;
    assert_eq!(code, StatusCode::FORBIDDEN);
    assert_eq!(status["message"], "namespaces \"default\" is forbidden: this namespace may not be deleted");
    http.serves().await;
}

#[tokio::test]
async fn deleting_a_namespace_deletes_its_content_and_refuses_creates_meanwhile() {
    let t = TestServer::start().await;
    register_widgets(&t).await;
    let http = Http::new(&t);
    http.create_namespace("team").await;
    let mut r = t.resources().await;
    let mut held = widget("held", json!({}));
    held["metadata"]["finalizers"] = json!(["example.com/hold"]);
    create_widget(&mut r, "team", &held).await.unwrap();
    create_widget(&mut r, "team", &widget("plain", json!({}))).await.unwrap();
    create_widget(&mut r, "other", &widget("elsewhere", json!({}))).await.unwrap();
    let (code, _) = http.post("/apis/coordination.k8s.io/v1/namespaces/team/leases", lease("l", json!({}))).await;
    assert_eq!(code, StatusCode::CREATED);
    let (code, body) = http.post("/api/v1/namespaces/team/events", core_event("e", "team")).await;
    assert_eq!(code, StatusCode::CREATED, "{body}");

    let (code, ns) = http.delete("/api/v1/namespaces/team").await;
    assert_eq!(code, StatusCode::OK);
    assert_eq!(ns["status"]["phase"], "Terminating");
    assert!(ns["metadata"]["deletionTimestamp"].is_string());

    // Creates are refused as NamespaceLifecycle refuses them, over both transports.
    let (code, status) =
        http.post("/apis/coordination.k8s.io/v1/namespaces/team/leases", lease("late", json!({}))).await;
    assert_eq!(code, StatusCode::FORBIDDEN);
    assert_eq!(status["reason"], "Forbidden");
    assert_eq!(
        status["message"],
        "leases.coordination.k8s.io \"late\" is forbidden: unable to create new content in namespace team because it is being terminated"
    );
    assert_eq!(
        status["details"]["causes"][0],
        json!({"reason": "NamespaceTerminating", "message": "namespace team is being terminated", "field": "metadata.namespace"})
    );
    let refused = create_widget(&mut r, "team", &widget("late", json!({}))).await.unwrap_err();
    assert_eq!(refused.code(), Code::PermissionDenied);

    // The held widget keeps the namespace terminating, with upstream's conditions.
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let (_, ns) = http.get("/api/v1/namespaces/team").await;
        if condition(&ns, "NamespaceFinalizersRemaining")["status"] == "True" {
            assert_eq!(
                condition(&ns, "NamespaceFinalizersRemaining")["message"],
                "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances"
            );
            assert_eq!(condition(&ns, "NamespaceFinalizersRemaining")["reason"], "SomeFinalizersRemain");
            assert_eq!(
                condition(&ns, "NamespaceContentRemaining")["message"],
                "Some resources are remaining: widgets.example.com has 1 resource instances"
            );
            assert_eq!(condition(&ns, "NamespaceDeletionDiscoveryFailure")["reason"], "ResourcesDiscovered");
            assert_eq!(ns["status"]["phase"], "Terminating");
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "no finalizer condition: {ns}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Everything without finalizers is gone already.
    assert_eq!(get_widget(&mut r, "team", "plain").await.unwrap_err().code(), Code::NotFound);
    assert_eq!(http.get("/apis/coordination.k8s.io/v1/namespaces/team/leases/l").await.0, StatusCode::NOT_FOUND);
    assert_eq!(http.get("/api/v1/namespaces/team/events/e").await.0, StatusCode::NOT_FOUND);
    // A second delete while content remains is upstream's conflict.
    let (code, status) = http.delete("/api/v1/namespaces/team").await;
    assert_eq!(code, StatusCode::CONFLICT, "{status}");

    patch_widget(&mut r, "team", "held", pb::PatchType::Merge, r#"{"metadata":{"finalizers":null}}"#).await.unwrap();
    http.wait_gone("/api/v1/namespaces/team").await;
    assert!(get_widget(&mut r, "other", "elsewhere").await.is_ok(), "another namespace's content stays");
    // The name can be used again, and starts empty.
    http.create_namespace("team").await;
    assert_eq!(get_widget(&mut r, "team", "held").await.unwrap_err().code(), Code::NotFound);
    http.serves().await;
}

#[tokio::test]
async fn namespaces_over_grpc() {
    let t = TestServer::start().await;
    let mut r = t.resources().await;
    let namespaces = |name: &str| pb::ResourceRef {
        group: String::new(),
        version: "v1".into(),
        resource: "namespaces".into(),
        namespace: String::new(),
        name: name.into(),
    };
    let body = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "grpc"}});
    let created = r
        .create(pb::CreateResourceRequest {
            r#ref: Some(namespaces("")),
            object: serde_json::to_vec(&body).unwrap(),
            options: None,
        })
        .await
        .unwrap()
        .into_inner();
    let ns: Value = serde_json::from_slice(&created.object).unwrap();
    assert_eq!(ns["status"]["phase"], "Active");
    let deleted = r
        .delete(pb::DeleteResourceRequest { r#ref: Some(namespaces("grpc")), options: None })
        .await
        .unwrap()
        .into_inner();
    assert!(!deleted.deleted, "a namespace terminates first");
    let http = Http::new(&t);
    http.wait_gone("/api/v1/namespaces/grpc").await;
    http.serves().await;
}

#[tokio::test]
async fn strict_mode_refuses_writes_into_missing_namespaces() {
    let t = TestServer::start_with(|c| c.namespace_lifecycle = crdstore::builtin::Lifecycle::Strict).await;
    register_widgets(&t).await;
    let http = Http::new(&t);
    let (code, status) = http.post("/apis/coordination.k8s.io/v1/namespaces/nope/leases", lease("l", json!({}))).await;
    assert_eq!(code, StatusCode::NOT_FOUND);
    assert_eq!(status["message"], "namespaces \"nope\" not found");
    assert_eq!(status["details"]["kind"], "namespaces");
    let mut r = t.resources().await;
    assert_eq!(create_widget(&mut r, "nope", &widget("w", json!({}))).await.unwrap_err().code(), Code::NotFound);
    http.create_namespace("nope").await;
    create_widget(&mut r, "nope", &widget("w", json!({}))).await.unwrap();
    http.serves().await;
}

#[tokio::test]
async fn lenient_mode_allows_writes_into_missing_namespaces() {
    let t = TestServer::start().await;
    let http = Http::new(&t);
    let (code, _) = http.post("/apis/coordination.k8s.io/v1/namespaces/nope/leases", lease("l", json!({}))).await;
    assert_eq!(code, StatusCode::CREATED);
}

#[tokio::test]
async fn a_namespace_deletion_resumes_after_a_restart() {
    let mut t = TestServer::start().await;
    register_widgets(&t).await;
    let http = Http::new(&t);
    http.create_namespace("team").await;
    let mut r = t.resources().await;
    let mut held = widget("held", json!({}));
    held["metadata"]["finalizers"] = json!(["example.com/hold"]);
    create_widget(&mut r, "team", &held).await.unwrap();
    assert_eq!(http.delete("/api/v1/namespaces/team").await.0, StatusCode::OK);
    t.restart().await;
    let http = Http::new(&t);
    let mut r = t.resources().await;
    let (_, ns) = http.get("/api/v1/namespaces/team").await;
    assert_eq!(ns["status"]["phase"], "Terminating");
    patch_widget(&mut r, "team", "held", pb::PatchType::Merge, r#"{"metadata":{"finalizers":null}}"#).await.unwrap();
    http.wait_gone("/api/v1/namespaces/team").await;
    http.serves().await;
}

#[tokio::test]
async fn leases_are_validated_at_their_paths() {
    let t = TestServer::start().await;
    let http = Http::new(&t);
    let path = "/apis/coordination.k8s.io/v1/namespaces/default/leases";
    let (code, status) = http
        .post(path, lease("bad", json!({"leaseDurationSeconds": 0, "leaseTransitions": -1, "preferredHolder": "x"})))
        .await;
    assert_eq!(code, StatusCode::UNPROCESSABLE_ENTITY);
    let fields: Vec<&str> =
        status["details"]["causes"].as_array().unwrap().iter().map(|c| c["field"].as_str().unwrap()).collect();
    assert_eq!(fields, ["spec.leaseDurationSeconds", "spec.leaseTransitions", "spec.preferredHolder"]);
    assert_eq!(status["details"]["causes"][0]["message"], "Invalid value: 0: must be greater than 0");

    // What client-go's leader election writes.
    let spec = json!({"holderIdentity": "a", "leaseDurationSeconds": 15, "acquireTime": "2026-01-01T00:00:00.000000Z",
        "renewTime": "2026-01-01T00:00:00.000000Z", "leaseTransitions": 0});
    let (code, created) = http.post(path, lease("leader", spec)).await;
    assert_eq!(code, StatusCode::CREATED, "{created}");
    let mut renewed = created.clone();
    renewed["spec"]["renewTime"] = json!("2026-01-01T00:00:10.000000Z");
    let (code, updated) = http.json(Method::PUT, &format!("{path}/leader"), Some(renewed)).await;
    assert_eq!(code, StatusCode::OK, "{updated}");
    assert_eq!(updated["spec"]["renewTime"], "2026-01-01T00:00:10.000000Z");
    http.serves().await;
}

#[tokio::test]
async fn events_are_validated_as_each_api_validates_them() {
    let t = TestServer::start().await;
    let http = Http::new(&t);
    let path = "/apis/events.k8s.io/v1/namespaces/default/events";
    let (code, status) =
        http.post(path, json!({"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "e"}})).await;
    assert_eq!(code, StatusCode::UNPROCESSABLE_ENTITY);
    let causes: Vec<(&str, &str)> = status["details"]["causes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["field"].as_str().unwrap(), c["reason"].as_str().unwrap()))
        .collect();
    assert_eq!(causes, [("eventTime", "FieldValueRequired"), ("type", "FieldValueInvalid")]);

    let recorded = json!({"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "ok"},
        "eventTime": "2026-01-01T00:00:00.000000Z", "reportingController": "example.com/operator",
        "reportingInstance": "operator-1", "action": "Reconcile", "reason": "Created", "note": "child made",
        "type": "Normal", "regarding": {"kind": "Parent", "namespace": "default", "name": "p"}});
    let (code, body) = http.post(path, recorded).await;
    assert_eq!(code, StatusCode::CREATED, "{body}");

    // core/v1: a recorder's event, and the legacy namespace check.
    let (code, body) = http.post("/api/v1/namespaces/default/events", core_event("c", "default")).await;
    assert_eq!(code, StatusCode::CREATED, "{body}");
    let (code, status) = http.post("/api/v1/namespaces/default/events", core_event("d", "elsewhere")).await;
    assert_eq!(code, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(status["details"]["causes"][0]["field"], "involvedObject.namespace");
    // One stored object per event, whichever API wrote it.
    let (_, list) = http.get("/api/v1/events").await;
    assert_eq!(list["kind"], "EventList");
    assert_eq!(list["items"].as_array().unwrap().len(), 2);
    http.serves().await;
}

#[tokio::test]
async fn expired_events_are_deleted() {
    let t = TestServer::start_with(|c| c.event_ttl = Duration::from_secs(1)).await;
    let http = Http::new(&t);
    let (code, _) = http.post("/api/v1/namespaces/default/events", core_event("short", "default")).await;
    assert_eq!(code, StatusCode::CREATED);
    http.wait_gone("/api/v1/namespaces/default/events/short").await;
    http.serves().await;
}

#[tokio::test]
async fn discovery_and_openapi_list_the_built_in_kinds() {
    let t = TestServer::start().await;
    let http = Http::new(&t);
    let (_, api) = http.get("/api").await;
    assert_eq!(api["versions"], json!(["v1"]));
    let (_, v1) = http.get("/api/v1").await;
    assert_eq!(v1["groupVersion"], "v1");
    let names: Vec<&str> = v1["resources"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["events", "namespaces", "namespaces/finalize", "namespaces/status"]);
    let namespaces = v1["resources"].as_array().unwrap().iter().find(|r| r["name"] == "namespaces").unwrap();
    // Upstream's verbs: no deletecollection for namespaces, only update of
    // their finalize subresource.
    assert_eq!(namespaces["verbs"], json!(["create", "delete", "get", "list", "patch", "update", "watch"]));
    let finalize = v1["resources"].as_array().unwrap().iter().find(|r| r["name"] == "namespaces/finalize").unwrap();
    assert_eq!(finalize["verbs"], json!(["update"]));
    assert_eq!(http.delete("/api/v1/namespaces").await.0, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(namespaces["namespaced"], false);
    assert_eq!(namespaces["shortNames"], json!(["ns"]));
    let (_, groups) = http.get("/apis").await;
    let groups: Vec<&str> = groups["groups"].as_array().unwrap().iter().map(|g| g["name"].as_str().unwrap()).collect();
    assert!(groups.contains(&"coordination.k8s.io") && groups.contains(&"events.k8s.io"), "{groups:?}");
    let (code, leases) = http.get("/apis/coordination.k8s.io/v1").await;
    assert_eq!(code, StatusCode::OK);
    assert_eq!(leases["resources"][0]["name"], "leases");
    // Aggregated discovery, as kubectl asks for it.
    let accept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";
    for (path, group) in [("/api", ""), ("/apis", "coordination.k8s.io")] {
        let response = http.client.get(format!("{}{path}", http.base)).header("Accept", accept).send().await.unwrap();
        assert!(response.headers()["content-type"].to_str().unwrap().contains("as=APIGroupDiscoveryList"));
        let list: Value = response.json().await.unwrap();
        assert_eq!(list["kind"], "APIGroupDiscoveryList");
        let entry =
            list["items"].as_array().unwrap().iter().find(|g| g["metadata"]["name"].as_str().unwrap_or("") == group);
        let resources = &entry.unwrap_or_else(|| panic!("{group} missing: {list}"))["versions"][0]["resources"];
        assert!(resources
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["resource"] == "namespaces" || r["resource"] == "leases"));
    }
    let (_, v2) = http.get("/openapi/v2").await;
    assert!(v2["definitions"]["io.k8s.api.core.v1.Namespace"].is_object());
    assert!(v2["definitions"]["io.k8s.api.coordination.v1.Lease"].is_object());
    assert!(v2["paths"]["/api/v1/namespaces/{name}"].is_object());
    let (_, index) = http.get("/openapi/v3").await;
    assert!(index["paths"]["api/v1"].is_object(), "{index}");
    let (code, core) = http.get("/openapi/v3/api/v1").await;
    assert_eq!(code, StatusCode::OK);
    assert!(core["components"]["schemas"]["io.k8s.api.core.v1.Event"].is_object());
    http.serves().await;
}

#[tokio::test]
async fn the_finalize_subresource_sets_a_namespace_s_finalizers() {
    let t = TestServer::start().await;
    let http = Http::new(&t);
    http.create_namespace("fin").await;
    let (_, mut ns) = http.get("/api/v1/namespaces/fin").await;
    ns["spec"]["finalizers"] = json!(["kubernetes", "example.com/hold"]);
    ns["status"]["phase"] = json!("Terminating");
    let (code, body) = http.json(Method::PUT, "/api/v1/namespaces/fin/finalize", Some(ns.clone())).await;
    assert_eq!(code, StatusCode::OK, "{body}");
    assert_eq!(body["spec"]["finalizers"], json!(["kubernetes", "example.com/hold"]));
    // The status is the stored one, as upstream's finalize strategy keeps it.
    assert_eq!(body["status"]["phase"], "Active");
    // The main endpoint does not change them.
    let (_, mut current) = http.get("/api/v1/namespaces/fin").await;
    current["spec"]["finalizers"] = json!([]);
    let (code, body) = http.json(Method::PUT, "/api/v1/namespaces/fin", Some(current)).await;
    assert_eq!(code, StatusCode::OK, "{body}");
    assert_eq!(body["spec"]["finalizers"], json!(["kubernetes", "example.com/hold"]));
    // Names are validated at their paths; a stale resourceVersion conflicts.
    let mut bad = body.clone();
    bad["spec"]["finalizers"] = json!(["not a name"]);
    let (code, status) = http.json(Method::PUT, "/api/v1/namespaces/fin/finalize", Some(bad)).await;
    assert_eq!(code, StatusCode::UNPROCESSABLE_ENTITY, "{status}");
    assert_eq!(status["details"]["causes"][0]["field"], "spec.finalizers[0]");
    let (code, _) = http.json(Method::PUT, "/api/v1/namespaces/fin/finalize", Some(ns)).await;
    assert_eq!(code, StatusCode::CONFLICT);
    // Only namespaces have it.
    let (code, _) =
        http.json(Method::PUT, "/apis/coordination.k8s.io/v1/namespaces/fin/leases/l/finalize", Some(json!({}))).await;
    assert_eq!(code, StatusCode::NOT_FOUND);

    // Deleting waits on example.com/hold; finalizing it away finishes.
    let (code, _) = http.delete("/api/v1/namespaces/fin").await;
    assert_eq!(code, StatusCode::OK);
    let deadline = tokio::time::Instant::now() + WAIT;
    let held = loop {
        let (_, ns) = http.get("/api/v1/namespaces/fin").await;
        if ns["spec"]["finalizers"] == json!(["example.com/hold"]) {
            break ns;
        }
        assert!(tokio::time::Instant::now() < deadline, "the kubernetes finalizer stayed: {ns}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(held["status"]["phase"], "Terminating");
    let mut released = held.clone();
    released["spec"]["finalizers"] = json!([]);
    let (code, body) = http.json(Method::PUT, "/api/v1/namespaces/fin/finalize", Some(released)).await;
    assert_eq!(code, StatusCode::OK, "{body}");
    http.wait_gone("/api/v1/namespaces/fin").await;
    http.serves().await;
}

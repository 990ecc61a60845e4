//! Deprecated versions (issue 18, and issue 19's
//! TestCustomResourceDeprecation): every request at a version with
//! `deprecated: true` gets its `deprecationWarning`, or Kubernetes' default
//! text naming a newer served version, as gRPC `warning` metadata and HTTP
//! `Warning: 299` headers, errors included; kubectl prints it.

use crdstore::pb::v1 as pb;
use reqwest::StatusCode;
use serde_json::{json, Value};
use tokio_stream::StreamExt;

use crate::kubectl::Kubectl;
use crate::support::{self, parse, Crd, Resources, TestServer};

const DEFAULT_TEXT: &str = "example.com/v1alpha1 Gizmo is deprecated; use example.com/v1 Gizmo";
const OWN_TEXT: &str = "v1beta1 gizmos go away in 2027";

/// Gizmos: v1alpha1 deprecated (the default text), v1beta1 deprecated with
/// its own warning, v1 the storage version; status and scale everywhere.
fn gizmos() -> Crd {
    let version = |name: &str, storage: bool, extra: Value| {
        let mut v = json!({"name": name, "served": true, "storage": storage,
            "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                "spec": {"type": "object", "properties": {"replicas": {"type": "integer"}}},
                "status": {"type": "object", "properties": {"replicas": {"type": "integer"}}}}}},
            "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}}});
        v.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        v
    };
    Crd::new("example.com", "Gizmo").versions(vec![
        version("v1alpha1", false, json!({"deprecated": true})),
        version("v1beta1", false, json!({"deprecated": true, "deprecationWarning": OWN_TEXT})),
        version("v1", true, json!({})),
    ])
}

async fn register(t: &TestServer) {
    let mut c = t.definitions().await;
    support::create(&mut c, &gizmos()).await;
    let deadline = tokio::time::Instant::now() + support::WAIT;
    while support::condition(&support::get(&mut c, "gizmos.example.com").await, "Established")["status"] != "True" {
        assert!(tokio::time::Instant::now() < deadline, "never established");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

fn gizmo_ref(version: &str, name: &str) -> pb::ResourceRef {
    pb::ResourceRef {
        group: "example.com".into(),
        version: version.into(),
        resource: "gizmos".into(),
        namespace: "default".into(),
        name: name.into(),
    }
}

fn gizmo(version: &str, name: &str) -> Vec<u8> {
    let obj = json!({"apiVersion": format!("example.com/{version}"), "kind": "Gizmo",
        "metadata": {"name": name}, "spec": {"replicas": 1}});
    serde_json::to_vec(&obj).unwrap()
}

fn warnings(metadata: &tonic::metadata::MetadataMap) -> Vec<String> {
    metadata.get_all("warning").iter().map(|v| v.to_str().unwrap().to_string()).collect()
}

/// Runs every verb over gRPC at `version`, returning each verb's warnings.
async fn every_verb(r: &mut Resources, version: &str) -> Vec<(&'static str, Vec<String>)> {
    let at = |name: &str| Some(gizmo_ref(version, name));
    let mut seen = Vec::new();
    let object = gizmo(version, "g1");
    let created = r.create(pb::CreateResourceRequest { r#ref: at(""), object, options: None }).await.unwrap();
    seen.push(("create", warnings(created.metadata())));
    let got = r.get(pb::GetResourceRequest { r#ref: at("g1"), resource_version: String::new() }).await.unwrap();
    seen.push(("get", warnings(got.metadata())));
    let mut current = parse(&got.into_inner().object);
    let listed = r.list(pb::ListResourcesRequest { r#ref: at(""), options: None }).await.unwrap();
    seen.push(("list", warnings(listed.metadata())));
    let watch = r.watch(pb::WatchResourcesRequest { r#ref: at(""), options: None }).await.unwrap();
    seen.push(("watch", warnings(watch.metadata())));
    let mut events = watch.into_inner();
    let first = tokio::time::timeout(support::WAIT, events.next()).await.unwrap().unwrap().unwrap();
    assert_eq!(parse(&first.object)["metadata"]["name"], "g1");
    drop(events);
    current["spec"]["replicas"] = json!(2);
    let object = serde_json::to_vec(&current).unwrap();
    let updated = r.update(pb::UpdateResourceRequest { r#ref: at("g1"), object, options: None }).await.unwrap();
    seen.push(("update", warnings(updated.metadata())));
    let patch = |subresource: pb::Subresource, body: &str| pb::PatchResourceRequest {
        r#ref: at("g1"),
        patch_type: pb::PatchType::Merge as i32,
        patch: body.as_bytes().to_vec(),
        subresource: subresource as i32,
        ..Default::default()
    };
    let patched = r.patch(patch(pb::Subresource::Unspecified, r#"{"spec":{"replicas":3}}"#)).await.unwrap();
    seen.push(("patch", warnings(patched.metadata())));
    let mut current = parse(&patched.into_inner().object);
    current["status"] = json!({"replicas": 3});
    let object = serde_json::to_vec(&current).unwrap();
    let status = r.update_status(pb::UpdateStatusRequest { r#ref: at("g1"), object, options: None }).await.unwrap();
    seen.push(("status", warnings(status.metadata())));
    let patched = r.patch(patch(pb::Subresource::Status, r#"{"status":{"replicas":4}}"#)).await.unwrap();
    seen.push(("patch status", warnings(patched.metadata())));
    let scale = r.get_scale(pb::GetScaleRequest { r#ref: at("g1") }).await.unwrap();
    seen.push(("get scale", warnings(scale.metadata())));
    let mut scale = parse(&scale.into_inner().scale);
    scale["spec"]["replicas"] = json!(5);
    let scale = serde_json::to_vec(&scale).unwrap();
    let scaled = r.update_scale(pb::UpdateScaleRequest { r#ref: at("g1"), scale, options: None }).await.unwrap();
    seen.push(("update scale", warnings(scaled.metadata())));
    let patched = r.patch(patch(pb::Subresource::Scale, r#"{"spec":{"replicas":6}}"#)).await.unwrap();
    seen.push(("patch scale", warnings(patched.metadata())));
    let deleted = r.delete(pb::DeleteResourceRequest { r#ref: at("g1"), options: None }).await.unwrap();
    seen.push(("delete", warnings(deleted.metadata())));
    let missing = r.get(pb::GetResourceRequest { r#ref: at("g1"), resource_version: String::new() }).await.unwrap_err();
    assert_eq!(missing.code(), tonic::Code::NotFound);
    seen.push(("get (an error)", warnings(missing.metadata())));
    let object = gizmo(version, "g2");
    r.create(pb::CreateResourceRequest { r#ref: at(""), object, options: None }).await.unwrap();
    let request = pb::DeleteCollectionRequest { r#ref: at(""), list_options: None, options: None };
    let deleted = r.delete_collection(request).await.unwrap();
    assert_eq!(deleted.get_ref().items.len(), 1);
    seen.push(("delete collection", warnings(deleted.metadata())));
    seen
}

#[tokio::test]
async fn every_grpc_request_at_a_deprecated_version_is_warned() {
    let t = TestServer::start().await;
    register(&t).await;
    let mut r = t.resources().await;
    for (version, want) in
        [("v1alpha1", vec![DEFAULT_TEXT.to_string()]), ("v1beta1", vec![OWN_TEXT.to_string()]), ("v1", vec![])]
    {
        for (verb, got) in every_verb(&mut r, version).await {
            assert_eq!(got, want, "{verb} at {version}");
        }
    }
}

#[tokio::test]
async fn every_http_request_at_a_deprecated_version_is_warned() {
    let t = TestServer::start().await;
    register(&t).await;
    let http = reqwest::Client::new();
    let base =
        |version: &str| format!("http://{}/apis/example.com/{version}/namespaces/default/gizmos", t.server().http_addr);
    let header = |response: &reqwest::Response| -> Vec<String> {
        response.headers().get_all("warning").iter().map(|v| v.to_str().unwrap().to_string()).collect()
    };
    let default_header = format!("299 - \"{DEFAULT_TEXT}\"");
    let own_header = format!("299 - \"{OWN_TEXT}\"");
    for (version, want) in [("v1alpha1", vec![default_header]), ("v1beta1", vec![own_header]), ("v1", vec![])] {
        let url = base(version);
        let created = http.post(&url).body(gizmo(version, "h1")).header("content-type", "application/json");
        let created = created.send().await.unwrap();
        assert_eq!(created.status(), StatusCode::CREATED);
        assert_eq!(header(&created), want, "create at {version}");
        let got = http.get(format!("{url}/h1")).send().await.unwrap();
        assert_eq!((got.status(), header(&got)), (StatusCode::OK, want.clone()), "get at {version}");
        let listed = http.get(&url).send().await.unwrap();
        assert_eq!(header(&listed), want, "list at {version}");
        let watch = http.get(format!("{url}?watch=true&timeoutSeconds=1")).send().await.unwrap();
        assert_eq!(header(&watch), want, "watch at {version}");
        let events = watch.text().await.unwrap();
        assert!(events.contains("\"ADDED\"") && events.contains("\"h1\""), "{events}");
        let scale = http.get(format!("{url}/h1/scale")).send().await.unwrap();
        assert_eq!(header(&scale), want, "scale at {version}");
        let patched = http
            .patch(format!("{url}/h1/status"))
            .header("content-type", "application/merge-patch+json")
            .body(r#"{"status":{"replicas":2}}"#)
            .send()
            .await
            .unwrap();
        assert_eq!((patched.status(), header(&patched)), (StatusCode::OK, want.clone()), "status at {version}");
        let deleted = http.delete(format!("{url}/h1")).send().await.unwrap();
        assert_eq!((deleted.status(), header(&deleted)), (StatusCode::OK, want.clone()), "delete at {version}");
        let missing = http.get(format!("{url}/h1")).send().await.unwrap();
        assert_eq!((missing.status(), header(&missing)), (StatusCode::NOT_FOUND, want.clone()), "error at {version}");
    }
    // The server still serves.
    let listed: Value = http.get(base("v1")).send().await.unwrap().json().await.unwrap();
    assert_eq!(listed["items"], json!([]));
}

#[tokio::test]
async fn kubectl_prints_the_deprecation_warning() {
    let t = TestServer::start().await;
    register(&t).await;
    let k = Kubectl::new(&t);
    let file = k.file(
        "gizmo.yaml",
        "apiVersion: example.com/v1alpha1\nkind: Gizmo\nmetadata: {name: k1}\nspec: {replicas: 1}\n",
    );
    let (ok, stdout, stderr) = k.run(&["create", "-f", &file]).await;
    assert!(ok, "{stderr}");
    assert!(stdout.contains("gizmo.example.com/k1 created"), "{stdout}");
    assert!(stderr.contains(&format!("Warning: {DEFAULT_TEXT}")), "{stderr}");
    let (ok, stdout, stderr) = k.run(&["get", "gizmos.v1beta1.example.com", "k1", "-o", "name"]).await;
    assert!(ok, "{stderr}");
    assert_eq!(stdout.trim(), "gizmo.example.com/k1");
    assert!(stderr.contains(&format!("Warning: {OWN_TEXT}")), "{stderr}");
    let (ok, _, stderr) = k.run(&["get", "gizmos.v1.example.com", "k1"]).await;
    assert!(ok && !stderr.contains("Warning"), "{stderr}");
}

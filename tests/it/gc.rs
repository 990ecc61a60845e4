//! Owner references and garbage collection end to end: every invalid owner
//! reference refused at its path, and the collector's three policies
//! (background, foreground, orphan) over chains, diamonds, cluster-scoped
//! and cross-definition owners, recreated owners, delete-collection and a
//! definition's deletion, over HTTP and gRPC; and a kill -9 in the middle
//! of a foreground collection.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crdstore::pb::v1 as pb;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::support::{self, Crd, Http, TestServer};

const GROUP: &str = "gc.example.com";
/// Generous: the collector acts within milliseconds; this is a bound.
const PATIENCE: Duration = Duration::from_secs(30);

impl Http {
    async fn create_in(&self, plural: &str, namespace: &str, obj: Value) -> Value {
        let (status, body) = self.json(Method::POST, &collection(plural, namespace), Some(obj)).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        body
    }

    async fn exists(&self, plural: &str, namespace: &str, name: &str) -> bool {
        let (status, body) = self.json(Method::GET, &path(plural, namespace, name), None).await;
        assert!(status == StatusCode::OK || status == StatusCode::NOT_FOUND, "{status} {body}");
        status == StatusCode::OK
    }

    async fn object_in(&self, plural: &str, namespace: &str, name: &str) -> Value {
        let (status, body) = self.json(Method::GET, &path(plural, namespace, name), None).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        body
    }

    async fn count(&self, plural: &str, namespace: &str) -> usize {
        let (status, body) = self.json(Method::GET, &collection(plural, namespace), None).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        body["items"].as_array().unwrap().len()
    }

    /// Waits until `name` is gone.
    async fn gone(&self, plural: &str, namespace: &str, name: &str) {
        let deadline = Instant::now() + PATIENCE;
        while self.exists(plural, namespace, name).await {
            assert!(Instant::now() < deadline, "{plural}/{name} was never collected");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

fn collection(plural: &str, namespace: &str) -> String {
    if namespace.is_empty() {
        format!("/apis/{GROUP}/v1/{plural}")
    } else {
        format!("/apis/{GROUP}/v1/namespaces/{namespace}/{plural}")
    }
}

fn path(plural: &str, namespace: &str, name: &str) -> String {
    format!("{}/{name}", collection(plural, namespace))
}

/// Owners and Children (namespaced) and Realms (cluster-scoped), served.
async fn definitions(http: &Http) {
    let kinds = [("Owner", "Namespaced"), ("Child", "Namespaced"), ("Realm", "Cluster")];
    for (kind, scope) in kinds {
        let crd = Crd::new(GROUP, kind).set("/spec/scope", json!(scope));
        let (status, body) =
            http.json(Method::POST, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", Some(crd.value)).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
    }
    let deadline = Instant::now() + PATIENCE;
    for plural in ["owners", "childs", "realms"] {
        while http.json(Method::GET, &format!("/apis/{GROUP}/v1/{plural}"), None).await.0 != StatusCode::OK {
            assert!(Instant::now() < deadline, "{plural} never served");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// An object of `kind` owned by `owners` (each with blockOwnerDeletion).
fn object(kind: &str, name: &str, owners: &[&Value]) -> Value {
    let refs: Vec<Value> = owners
        .iter()
        .map(|o| {
            json!({"apiVersion": o["apiVersion"], "kind": o["kind"], "name": o["metadata"]["name"],
                   "uid": o["metadata"]["uid"], "blockOwnerDeletion": true})
        })
        .collect();
    let mut obj = json!({"apiVersion": format!("{GROUP}/v1"), "kind": kind, "metadata": {"name": name}});
    if !refs.is_empty() {
        obj["metadata"]["ownerReferences"] = json!(refs);
    }
    obj
}

fn causes(body: &Value) -> Vec<String> {
    body["details"]["causes"]
        .as_array()
        .map(|c| c.iter().map(|c| c["field"].as_str().unwrap().to_string()).collect())
        .unwrap_or_default()
}

/// Still serving: a list answers.
async fn serving(http: &Http) {
    assert_eq!(http.json(Method::GET, &collection("owners", "ns"), None).await.0, StatusCode::OK);
}

#[tokio::test]
async fn invalid_owner_references_are_refused_at_their_paths() {
    let t = TestServer::start().await;
    let http = Http::new(&t);
    definitions(&http).await;
    let owner = http.create_in("owners", "ns", object("Owner", "o", &[])).await;
    let mut bad = object("Child", "c", &[&owner]);
    bad["metadata"]["ownerReferences"][0] = json!({"apiVersion": "", "kind": "", "name": "", "uid": ""});
    let (status, body) = http.json(Method::POST, &collection("childs", "ns"), Some(bad)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(
        causes(&body),
        [
            "metadata.ownerReferences.apiVersion",
            "metadata.ownerReferences.kind",
            "metadata.ownerReferences.name",
            "metadata.ownerReferences.uid"
        ]
    );
    assert!(body["message"].as_str().unwrap().contains("must not be empty"), "{body}");

    let mut two = object("Child", "c", &[&owner, &owner]);
    two["metadata"]["ownerReferences"][0]["controller"] = json!(true);
    two["metadata"]["ownerReferences"][1]["controller"] = json!(true);
    let (status, body) = http.json(Method::POST, &collection("childs", "ns"), Some(two)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(causes(&body), ["metadata.ownerReferences"]);
    assert!(body["message"].as_str().unwrap().contains(
        "Only one reference can have Controller set to true. Found \"true\" in references for Owner/o and Owner/o"
    ));

    let mut elsewhere = object("Child", "c", &[&owner]);
    elsewhere["metadata"]["ownerReferences"][0]["namespace"] = json!("other");
    let (status, body) = http.json(Method::POST, &collection("childs", "ns"), Some(elsewhere)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(causes(&body), ["metadata.ownerReferences[0].namespace"]);

    let (status, body) =
        http.json(Method::POST, &collection("realms", ""), Some(object("Realm", "r", &[&owner]))).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "a cluster-scoped dependent of a namespaced owner: {body}");
    assert_eq!(causes(&body), ["metadata.ownerReferences[0]"]);

    let mut both = object("Child", "c", &[]);
    both["metadata"]["finalizers"] = json!(["orphan", "foregroundDeletion"]);
    let (status, body) = http.json(Method::POST, &collection("childs", "ns"), Some(both)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(causes(&body), ["metadata.finalizers"]);

    // Update and patch are checked the same way.
    let child = http.create_in("childs", "ns", object("Child", "c", &[&owner])).await;
    let mut updated = child.clone();
    updated["metadata"]["ownerReferences"][0]["uid"] = json!("");
    let (status, body) = http.json(Method::PUT, &path("childs", "ns", "c"), Some(updated)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(causes(&body), ["metadata.ownerReferences.uid"]);
    let patch =
        json!({"metadata": {"ownerReferences": [{"apiVersion": "v1", "kind": "Event", "name": "e", "uid": "1"}]}});
    let (status, body) =
        http.body(Method::PATCH, &path("childs", "ns", "c"), "application/merge-patch+json", Some(patch)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(body["message"].as_str().unwrap().contains("/v1, Kind=Event is disallowed from being an owner"), "{body}");

    // Over gRPC too.
    let mut r = t.resources().await;
    let mut no_uid = object("Child", "g", &[&owner]);
    no_uid["metadata"]["ownerReferences"][0]["uid"] = json!("");
    let request = pb::CreateResourceRequest {
        r#ref: Some(pb::ResourceRef {
            group: GROUP.into(),
            version: "v1".into(),
            resource: "childs".into(),
            namespace: "ns".into(),
            name: String::new(),
        }),
        object: serde_json::to_vec(&no_uid).unwrap(),
        options: None,
    };
    let status = r.create(request).await.unwrap_err();
    assert_eq!(status.code(), tonic::Code::InvalidArgument);
    assert_eq!(support::violations(&status), ["metadata.ownerReferences.uid"]);
    serving(&http).await;
}

#[tokio::test]
async fn background_collects_a_chain_and_keeps_what_still_has_an_owner() {
    let t = TestServer::start().await;
    let http = Http::new(&t);
    definitions(&http).await;
    let owner = http.create_in("owners", "ns", object("Owner", "o", &[])).await;
    let other = http.create_in("owners", "ns", object("Owner", "other", &[])).await;
    let child = http.create_in("childs", "ns", object("Child", "child", &[&owner])).await;
    http.create_in("childs", "ns", object("Child", "grandchild", &[&child])).await;
    // A diamond: two owners, one deleted.
    http.create_in("childs", "ns", object("Child", "shared", &[&owner, &other])).await;
    let (status, body) = http.json(Method::DELETE, &path("owners", "ns", "o"), None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    http.gone("childs", "ns", "child").await;
    http.gone("childs", "ns", "grandchild").await;
    // The shared child stays, its dangling reference removed.
    let deadline = Instant::now() + PATIENCE;
    loop {
        let shared = http.object_in("childs", "ns", "shared").await;
        if shared["metadata"]["ownerReferences"].as_array().unwrap().len() == 1 {
            assert_eq!(shared["metadata"]["ownerReferences"][0]["name"], "other");
            break;
        }
        assert!(Instant::now() < deadline, "{shared}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    http.json(Method::DELETE, &path("owners", "ns", "other"), None).await;
    http.gone("childs", "ns", "shared").await;
    serving(&http).await;
}

#[tokio::test]
async fn foreground_keeps_the_owner_readable_until_its_blocking_dependents_are_gone() {
    let t = TestServer::start().await;
    let http = Http::new(&t);
    definitions(&http).await;
    let owner = http.create_in("owners", "ns", object("Owner", "o", &[])).await;
    let child = http.create_in("childs", "ns", object("Child", "child", &[&owner])).await;
    let mut held = object("Child", "grandchild", &[&child]);
    held["metadata"]["finalizers"] = json!(["example.com/hold"]);
    http.create_in("childs", "ns", held).await;
    let options = json!({"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Foreground"});
    let (status, body) = http.json(Method::DELETE, &path("owners", "ns", "o"), Some(options)).await;
    assert_eq!(status, StatusCode::OK, "200 with the object while it waits: {body}");
    assert_eq!(body["metadata"]["finalizers"], json!(["foregroundDeletion"]));
    assert!(body["metadata"]["deletionTimestamp"].is_string());
    // The grandchild's own finalizer holds the chain: the child waits in
    // the foreground too, and so does the owner, readable.
    let deadline = Instant::now() + PATIENCE;
    loop {
        let child = http.object_in("childs", "ns", "child").await;
        if child["metadata"]["deletionTimestamp"].is_string() {
            assert_eq!(child["metadata"]["finalizers"], json!(["foregroundDeletion"]));
            break;
        }
        assert!(Instant::now() < deadline, "{child}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Why it waits, readable: its finalizer, and the collector's note of
    // the dependents that still block it.
    let deadline = Instant::now() + PATIENCE;
    loop {
        let waiting = http.object_in("owners", "ns", "o").await;
        assert_eq!(waiting["metadata"]["finalizers"], json!(["foregroundDeletion"]));
        let note = &waiting["metadata"]["annotations"]["gc.crdstore.io/waiting-for"];
        if note == &json!(format!("1 dependent with blockOwnerDeletion: childs.{GROUP} ns/child")) {
            break;
        }
        assert!(Instant::now() < deadline, "{waiting}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let deadline = Instant::now() + PATIENCE;
    loop {
        let grandchild = http.object_in("childs", "ns", "grandchild").await;
        if grandchild["metadata"]["deletionTimestamp"].is_string() {
            break;
        }
        assert!(Instant::now() < deadline, "{grandchild}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Releasing it lets the whole chain go, bottom up.
    let release = json!({"metadata": {"finalizers": null}});
    let (status, body) = http
        .body(Method::PATCH, &path("childs", "ns", "grandchild"), "application/merge-patch+json", Some(release))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    http.gone("owners", "ns", "o").await;
    assert!(!http.exists("childs", "ns", "child").await);
    assert!(!http.exists("childs", "ns", "grandchild").await);

    // orphanDependents=false asks for cascading deletion: 202 while the
    // object waits (for its own finalizer here); with a policy too, 422.
    let mut held = object("Owner", "o2", &[]);
    held["metadata"]["finalizers"] = json!(["example.com/hold"]);
    let owner = http.create_in("owners", "ns", held).await;
    http.create_in("childs", "ns", object("Child", "c2", &[&owner])).await;
    let both = json!({"kind": "DeleteOptions", "apiVersion": "v1", "orphanDependents": false,
                      "propagationPolicy": "Foreground"});
    let (status, body) = http.json(Method::DELETE, &path("owners", "ns", "o2"), Some(both)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(causes(&body), ["propagationPolicy"]);
    let options = json!({"kind": "DeleteOptions", "apiVersion": "v1", "orphanDependents": false});
    let (status, body) = http.json(Method::DELETE, &path("owners", "ns", "o2"), Some(options)).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    assert!(body["metadata"]["deletionTimestamp"].is_string(), "{body}");
    let release = json!({"metadata": {"finalizers": null}});
    http.body(Method::PATCH, &path("owners", "ns", "o2"), "application/merge-patch+json", Some(release)).await;
    http.gone("owners", "ns", "o2").await;
    http.gone("childs", "ns", "c2").await;
    serving(&http).await;
}

#[tokio::test]
async fn orphan_removes_the_owner_from_its_dependents_then_goes() {
    let t = TestServer::start().await;
    let http = Http::new(&t);
    definitions(&http).await;
    let owner = http.create_in("owners", "ns", object("Owner", "o", &[])).await;
    let keep = http.create_in("owners", "ns", object("Owner", "keep", &[])).await;
    http.create_in("childs", "ns", object("Child", "a", &[&owner])).await;
    http.create_in("childs", "ns", object("Child", "b", &[&owner, &keep])).await;
    let (status, body) =
        http.json(Method::DELETE, &format!("{}?propagationPolicy=Orphan", path("owners", "ns", "o")), None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["metadata"]["finalizers"], json!(["orphan"]));
    http.gone("owners", "ns", "o").await;
    let a = http.object_in("childs", "ns", "a").await;
    assert!(a["metadata"].get("ownerReferences").is_none(), "{a}");
    let b = http.object_in("childs", "ns", "b").await;
    assert_eq!(b["metadata"]["ownerReferences"].as_array().unwrap().len(), 1);
    assert_eq!(b["metadata"]["ownerReferences"][0]["name"], "keep");

    // The deprecated orphanDependents=true maps to Orphan, over the query.
    let owner = http.create_in("owners", "ns", object("Owner", "o3", &[])).await;
    http.create_in("childs", "ns", object("Child", "c3", &[&owner])).await;
    let (status, body) =
        http.json(Method::DELETE, &format!("{}?orphanDependents=true", path("owners", "ns", "o3")), None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    http.gone("owners", "ns", "o3").await;
    assert!(http.exists("childs", "ns", "c3").await);
    serving(&http).await;
}

#[tokio::test]
async fn cluster_scoped_owners_across_definitions_over_grpc() {
    let t = TestServer::start().await;
    let http = Http::new(&t);
    definitions(&http).await;
    let realm = http.create_in("realms", "", object("Realm", "r", &[])).await;
    http.create_in("childs", "a", object("Child", "in-a", &[&realm])).await;
    http.create_in("childs", "b", object("Child", "in-b", &[&realm])).await;
    http.create_in("realms", "", object("Realm", "sub", &[&realm])).await;
    let mut r = t.resources().await;
    let reference = pb::ResourceRef {
        group: GROUP.into(),
        version: "v1".into(),
        resource: "realms".into(),
        namespace: String::new(),
        name: "r".into(),
    };
    let options = pb::DeleteOptions { propagation_policy: "Foreground".into(), ..Default::default() };
    let reply = r
        .delete(pb::DeleteResourceRequest { r#ref: Some(reference), options: Some(options) })
        .await
        .unwrap()
        .into_inner();
    let last = support::parse(&reply.object);
    assert_eq!(last["metadata"]["finalizers"], json!(["foregroundDeletion"]));
    http.gone("realms", "", "r").await;
    assert!(!http.exists("childs", "a", "in-a").await);
    assert!(!http.exists("childs", "b", "in-b").await);
    assert!(!http.exists("realms", "", "sub").await);
    serving(&http).await;
}

#[tokio::test]
async fn a_recreated_owner_with_the_same_name_is_another_object() {
    let t = TestServer::start().await;
    let http = Http::new(&t);
    definitions(&http).await;
    let first = http.create_in("owners", "ns", object("Owner", "o", &[])).await;
    let (status, _) = http.json(Method::DELETE, &path("owners", "ns", "o"), None).await;
    assert_eq!(status, StatusCode::OK);
    let second = http.create_in("owners", "ns", object("Owner", "o", &[])).await;
    assert_ne!(first["metadata"]["uid"], second["metadata"]["uid"]);
    http.create_in("childs", "ns", object("Child", "of-first", &[&first])).await;
    http.create_in("childs", "ns", object("Child", "of-second", &[&second])).await;
    http.gone("childs", "ns", "of-first").await;
    // The collector has looked at both (the first is gone); the second stays.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(http.exists("childs", "ns", "of-second").await);
    assert!(http.exists("owners", "ns", "o").await);
    serving(&http).await;
}

#[tokio::test]
async fn delete_collection_and_definition_deletion_collect_dependents() {
    let t = TestServer::start().await;
    let http = Http::new(&t);
    definitions(&http).await;
    let a = http.create_in("owners", "ns", object("Owner", "a", &[])).await;
    let b = http.create_in("owners", "ns", object("Owner", "b", &[])).await;
    http.create_in("childs", "ns", object("Child", "of-a", &[&a])).await;
    http.create_in("childs", "ns", object("Child", "of-b", &[&b])).await;
    let options = json!({"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Foreground"});
    let (status, body) = http.json(Method::DELETE, &collection("owners", "ns"), Some(options)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    http.gone("owners", "ns", "a").await;
    http.gone("owners", "ns", "b").await;
    assert_eq!(http.count("childs", "ns").await, 0);

    // Deleting the Owner definition deletes its instances, and the
    // collector their dependents of the Child definition.
    let c = http.create_in("owners", "ns", object("Owner", "c", &[])).await;
    http.create_in("childs", "ns", object("Child", "of-c", &[&c])).await;
    let (status, body) = http
        .json(Method::DELETE, &format!("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/owners.{GROUP}"), None)
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    http.gone("childs", "ns", "of-c").await;
    assert_eq!(http.json(Method::GET, &collection("childs", "ns"), None).await.0, StatusCode::OK);
}

/// `crdstore serve` as a process; its gRPC and HTTP addresses.
fn start(dir: &std::path::Path, rate: &str) -> (std::process::Child, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_crdstore"))
        .args(["serve", "--data-dir"])
        .arg(dir)
        .args(["--grpc-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0", "--gc-rate", rate])
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start crdstore");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let find = |prefix: &str| line.split_whitespace().find_map(|w| w.strip_prefix(prefix)).unwrap().to_string();
    (child, find("grpc="), find("http="))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_9_during_a_foreground_collection_loses_nothing_and_deletes_nothing_else() {
    const DEPENDENTS: usize = 1_000;
    let dir = tempfile::tempdir().unwrap();
    let (mut process, grpc, http_addr) = start(dir.path(), "200");
    let http = Http::at(http_addr);
    definitions(&http).await;
    let owner = http.create_in("owners", "ns", object("Owner", "o", &[])).await;
    let bystander = http.create_in("owners", "ns", object("Owner", "bystander", &[])).await;
    let mut r = crate::support::Grpc::at(grpc).resources().await;
    let childs = |namespace: &str| pb::ResourceRef {
        group: GROUP.into(),
        version: "v1".into(),
        resource: "childs".into(),
        namespace: namespace.into(),
        name: String::new(),
    };
    for i in 0..DEPENDENTS {
        let request = pb::CreateResourceRequest {
            r#ref: Some(childs("ns")),
            object: serde_json::to_vec(&object("Child", &format!("c{i}"), &[&owner])).unwrap(),
            options: None,
        };
        r.create(request).await.unwrap();
    }
    http.create_in("childs", "ns", object("Child", "kept", &[&bystander])).await;
    let options = json!({"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Foreground"});
    let (status, _) = http.json(Method::DELETE, &path("owners", "ns", "o"), Some(options)).await;
    assert_eq!(status, StatusCode::OK);
    // Kill it once the collection has started and before it ends (200/s:
    // about five seconds for all of them).
    let deadline = Instant::now() + PATIENCE;
    loop {
        let left = http.count("childs", "ns").await;
        if left < DEPENDENTS - 50 {
            assert!(left > 1, "the collection ended before the kill");
            break;
        }
        assert!(Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    process.kill().expect("kill -9");
    process.wait().unwrap();

    let (mut process, _, http_addr) = start(dir.path(), "0");
    let http = Http::at(http_addr);
    let deadline = Instant::now() + PATIENCE;
    while http.exists("owners", "ns", "o").await {
        assert!(Instant::now() < deadline, "the owner never went");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (_, list) = http.json(Method::GET, &collection("childs", "ns"), None).await;
    let names: Vec<&str> =
        list["items"].as_array().unwrap().iter().map(|i| i["metadata"]["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["kept"], "exactly the dependents of the deleted owner are gone");
    assert!(http.exists("owners", "ns", "bystander").await);
    process.kill().unwrap();
    process.wait().unwrap();
}

//! crdstore behind grpc-gateway v2, the transcoding proxy generated from the
//! protos' `google.api.http` rules (tools/transcoder, built by
//! scripts/transcoder-env): the real binary, driven as JSON over HTTP
//! through the proxy, both on loopback. Definitions, a namespaced and a
//! cluster-scoped object are created, read and listed, a watch streams its
//! events as they happen, and errors come back as HTTP statuses with their
//! `google.rpc` details.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use base64::Engine as _;
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::support::{Crd, Process, WAIT};

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

/// The proxy's binary, built (or found up to date) by scripts/transcoder-env.
fn transcoder_bin() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(root.join("scripts/transcoder-env"))
        .current_dir(root)
        .stderr(Stdio::inherit())
        .output()
        .expect("the transcoding test builds tools/transcoder with scripts/transcoder-env (Go and npm)");
    assert!(out.status.success(), "scripts/transcoder-env failed");
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

/// The proxy as a process of its own, on a loopback port it picks, in front
/// of `grpc_addr`; killed when dropped.
struct Transcoder {
    child: Child,
    base: String,
}

impl Transcoder {
    fn spawn(bin: &Path, grpc_addr: &str) -> Self {
        let mut child = Command::new(bin)
            .args(["-grpc", grpc_addr, "-listen", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start the transcoder");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let addr = line.split_whitespace().find_map(|w| w.strip_prefix("http=")).expect("the listening line");
        Self { base: format!("http://{addr}"), child }
    }
}

impl Drop for Transcoder {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A JSON request through the proxy: the status and the body as JSON.
async fn call(method: reqwest::Method, url: String, body: Option<Value>) -> (StatusCode, Value) {
    let mut request = reqwest::Client::new().request(method, url).timeout(WAIT);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    (status, response.json().await.unwrap())
}

/// The JSON document a `bytes` field carries, base64 in the transcoded JSON.
fn document(field: &Value) -> Value {
    serde_json::from_slice(&B64.decode(field.as_str().expect("a base64 string")).unwrap()).unwrap()
}

fn encoded(doc: &Value) -> String {
    B64.encode(serde_json::to_vec(doc).unwrap())
}

/// Creates `crd` through the proxy and waits until it is established.
async fn define(base: &str, crd: &Crd) {
    let (status, created) = call(
        reqwest::Method::POST,
        format!("{base}/v1/customresourcedefinitions"),
        Some(json!({"definition": encoded(&crd.value)})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{created}");
    assert_eq!(document(&created["definition"])["metadata"]["name"], crd.name());
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let (status, got) =
            call(reqwest::Method::GET, format!("{base}/v1/customresourcedefinitions/{}", crd.name()), None).await;
        assert_eq!(status, StatusCode::OK, "{got}");
        let conditions = document(&got["definition"])["status"]["conditions"].clone();
        let established =
            conditions.as_array().into_iter().flatten().any(|c| c["type"] == "Established" && c["status"] == "True");
        if established {
            return;
        }
        assert!(tokio::time::Instant::now() < deadline, "{} was not established", crd.name());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Reads the next line of a streamed response (grpc-gateway writes one JSON
/// message per line), waiting at most `WAIT`.
async fn next_line(response: &mut reqwest::Response, buffer: &mut Vec<u8>) -> Value {
    let read = async {
        loop {
            if let Some(end) = buffer.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = buffer.drain(..=end).collect();
                return serde_json::from_slice::<Value>(&line).unwrap();
            }
            let chunk = response.chunk().await.unwrap().expect("the stream ended");
            buffer.extend_from_slice(&chunk);
        }
    };
    tokio::time::timeout(WAIT, read).await.expect("no watch event in time")
}

fn widget(name: &str, replicas: i64) -> Value {
    json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": name}, "spec": {"replicas": replicas}})
}

#[tokio::test]
async fn grpc_gateway_transcodes_writes_reads_a_watch_stream_and_errors() {
    let bin = tokio::task::spawn_blocking(transcoder_bin).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let server = Process::spawn(dir.path(), &[]);
    let proxy = Transcoder::spawn(&bin, &server.grpc_addr);
    let base = proxy.base.as_str();
    define(base, &Crd::new("example.com", "Widget")).await;
    let widgets = format!("{base}/v1/example.com/v1/namespaces/default/widgets");

    // A watch from now: its first event is the create below, streamed.
    let (status, empty) = call(reqwest::Method::GET, widgets.clone(), None).await;
    assert_eq!(status, StatusCode::OK, "{empty}");
    let revision = empty["resourceVersion"].as_str().unwrap().to_string();
    let watch_url =
        format!("{base}/v1/example.com/v1/watch/namespaces/default/widgets?options.resourceVersion={revision}");
    // grpc-gateway sends the response's head with the stream's first
    // message: the request is answered once the create below is made.
    let watch = tokio::spawn(reqwest::Client::new().get(watch_url).send());

    let (status, created) =
        call(reqwest::Method::POST, widgets.clone(), Some(json!({"object": encoded(&widget("w1", 3))}))).await;
    assert_eq!(status, StatusCode::OK, "{created}");
    let created = document(&created["object"]);
    assert_eq!(created["metadata"]["namespace"], "default");
    assert!(created["metadata"]["uid"].as_str().is_some_and(|uid| !uid.is_empty()));
    let mut watch = tokio::time::timeout(WAIT, watch).await.expect("the watch answers").unwrap().unwrap();
    assert_eq!(watch.status(), StatusCode::OK);

    let mut buffer = Vec::new();
    let event = next_line(&mut watch, &mut buffer).await;
    assert_eq!(event["result"]["type"], "EVENT_TYPE_ADDED", "{event}");
    assert_eq!(document(&event["result"]["object"])["metadata"]["uid"], created["metadata"]["uid"]);

    let (status, got) = call(reqwest::Method::GET, format!("{widgets}/w1"), None).await;
    assert_eq!(status, StatusCode::OK, "{got}");
    assert_eq!(document(&got["object"])["spec"]["replicas"], 3);

    // Namespaced, then across namespaces (the additional binding), with a
    // query parameter for a nested field.
    let (status, listed) = call(reqwest::Method::GET, format!("{widgets}?options.labelSelector=!absent"), None).await;
    assert_eq!(status, StatusCode::OK, "{listed}");
    let names = |list: &Value| -> Vec<Value> {
        list["items"].as_array().unwrap().iter().map(|i| document(i)["metadata"]["name"].clone()).collect()
    };
    assert_eq!(names(&listed), vec![json!("w1")]);
    let (status, everywhere) = call(reqwest::Method::GET, format!("{base}/v1/example.com/v1/widgets"), None).await;
    assert_eq!(status, StatusCode::OK, "{everywhere}");
    assert_eq!(names(&everywhere), vec![json!("w1")]);

    // A change to the object is the watch's next event.
    let mut changed = document(&got["object"]);
    changed["spec"]["replicas"] = json!(4);
    let (status, updated) =
        call(reqwest::Method::PUT, format!("{widgets}/w1"), Some(json!({"object": encoded(&changed)}))).await;
    assert_eq!(status, StatusCode::OK, "{updated}");
    let event = next_line(&mut watch, &mut buffer).await;
    assert_eq!(event["result"]["type"], "EVENT_TYPE_MODIFIED", "{event}");
    assert_eq!(document(&event["result"]["object"])["spec"]["replicas"], 4);

    errors_map_to_statuses_with_their_details(base, &widgets).await;
    cluster_scoped_objects_use_the_additional_bindings(base).await;
}

/// NotFound is 404 and AlreadyExists 409, each with the gRPC status as the
/// body: its code, message and `ErrorInfo` detail.
async fn errors_map_to_statuses_with_their_details(base: &str, widgets: &str) {
    let (status, missing) = call(reqwest::Method::GET, format!("{widgets}/none"), None).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{missing}");
    assert_eq!(missing["code"], 5, "{missing}");
    assert!(missing["message"].as_str().unwrap().contains("\"none\" not found"), "{missing}");
    let info = missing["details"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["@type"] == "type.googleapis.com/google.rpc.ErrorInfo");
    let info = info.unwrap_or_else(|| panic!("no ErrorInfo in {missing}"));
    assert_eq!(info["reason"], "NotFound");
    assert_eq!(info["domain"], "crdstore.io");

    let (status, again) =
        call(reqwest::Method::POST, widgets.to_string(), Some(json!({"object": encoded(&widget("w1", 1))}))).await;
    assert_eq!(status, StatusCode::CONFLICT, "{again}");
    assert!(again["details"].as_array().unwrap().iter().any(|d| d["reason"] == "AlreadyExists"), "{again}");

    let (status, gone) =
        call(reqwest::Method::DELETE, format!("{base}/v1/customresourcedefinitions/nothings.example.com"), None).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{gone}");
}

/// A cluster-scoped definition's objects are at the paths without
/// `namespaces/{namespace}`.
async fn cluster_scoped_objects_use_the_additional_bindings(base: &str) {
    define(base, &Crd::new("example.com", "Gadget").set("/spec/scope", json!("Cluster"))).await;
    let gadgets = format!("{base}/v1/example.com/v1/gadgets");
    let gadget = json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g1"}});
    let (status, created) =
        call(reqwest::Method::POST, gadgets.clone(), Some(json!({"object": encoded(&gadget)}))).await;
    assert_eq!(status, StatusCode::OK, "{created}");
    assert!(document(&created["object"])["metadata"].get("namespace").is_none());
    let (status, got) = call(reqwest::Method::GET, format!("{gadgets}/g1"), None).await;
    assert_eq!(status, StatusCode::OK, "{got}");
    assert_eq!(document(&got["object"])["metadata"]["name"], "g1");
    let (status, deleted) = call(reqwest::Method::DELETE, format!("{gadgets}/g1"), None).await;
    assert_eq!(status, StatusCode::OK, "{deleted}");
    assert_eq!(deleted["deleted"], true);
}

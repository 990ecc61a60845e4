//! Server-side apply against the reference: cases computed by Kubernetes'
//! own field manager (tools/ssa-oracle, sigs.k8s.io/structured-merge-diff
//! under k8s.io/apimachinery's managedfields) played through crdstore's
//! HTTP gateway, answer for answer: the object, its managedFields, and the
//! conflicts of a refused apply.
//!
//! `SSA_DIFFERENTIAL_CASES` (default 150) and `SSA_DIFFERENTIAL_SEED`
//! (default 1) choose the generated cases; `SSA_DIFFERENTIAL_CASE=case-17`
//! plays one of them.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use reqwest::header::{ACCEPT, CONTENT_TYPE};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::support::{Http, TestServer};

const APPLY: &str = "application/apply-patch+yaml";
const CASES: usize = 150;

/// The oracle, built once per run from tools/ssa-oracle into target/gobin.
fn oracle() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let target = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root.join("target"));
        let target = if target.is_absolute() { target } else { root.join(target) };
        let bin = target.join("gobin").join("ssa-oracle");
        let status = Command::new("go")
            .args(["build", "-o"])
            .arg(&bin)
            .arg(".")
            .current_dir(root.join("tools/ssa-oracle"))
            .status()
            .expect("the differential test builds tools/ssa-oracle with Go: is `go` on the PATH?");
        assert!(status.success(), "building tools/ssa-oracle failed");
        bin
    })
}

fn run_oracle(args: &[&str], input: Option<&str>) -> Vec<Value> {
    let mut child = Command::new(oracle())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.unwrap_or("").to_owned();
    let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success(), "ssa-oracle {args:?} failed");
    String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

impl Http {
    async fn send_json(&self, method: Method, path: &str, body: Option<(&str, &Value)>) -> (StatusCode, Value) {
        let mut request =
            self.client.request(method, format!("{}{path}", self.base)).header(ACCEPT, "application/json");
        if let Some((content_type, value)) = body {
            request = request.header(CONTENT_TYPE, content_type).body(serde_json::to_vec(value).unwrap());
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        let bytes = response.bytes().await.unwrap();
        (status, serde_json::from_slice(&bytes).unwrap_or_else(|_| json!(String::from_utf8_lossy(&bytes))))
    }
}

/// One case's definition, created over the gateway and established.
async fn define(http: &Http, case: &Value) {
    let (group, kind, plural) = (s(&case["group"]), s(&case["kind"]), s(&case["plural"]));
    let mut version = json!({"name": case["version"], "served": true, "storage": true,
        "schema": {"openAPIV3Schema": case["schema"]}});
    if let Some(subresources) = case.get("subresources") {
        version["subresources"] = subresources.clone();
    }
    let name = format!("{plural}.{group}");
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": name},
        "spec": {"group": group, "scope": case["scope"], "versions": [version],
            "names": {"plural": plural, "singular": kind.to_lowercase(), "kind": kind, "listKind": format!("{kind}List")}}});
    let (status, created) = http
        .send_json(
            Method::POST,
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
            Some(("application/json", &crd)),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{}: the definition: {created}", s(&case["name"]));
    for _ in 0..500 {
        let (_, got) = http
            .send_json(Method::GET, &format!("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}"), None)
            .await;
        let established = got["status"]["conditions"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|c| c["type"] == "Established" && c["status"] == "True");
        if established {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("{}: the definition was never established", s(&case["name"]));
}

fn s(v: &Value) -> &str {
    v.as_str().unwrap_or_default()
}

/// The collection's path of a case's object.
fn collection(case: &Value, object: &Value) -> String {
    let namespace = match s(&case["scope"]) {
        "Namespaced" => format!("/namespaces/{}", s(&object["metadata"]["namespace"])),
        _ => String::new(),
    };
    format!("/apis/{}/{}{namespace}/{}", s(&case["group"]), s(&case["version"]), s(&case["plural"]))
}

fn query(manager: &str) -> String {
    let manager: String = manager
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect();
    format!("fieldManager={manager}")
}

/// The object as the oracle states it: without the fields the server sets
/// on its own, and its managedFields apart, without time, in the order
/// Kubernetes' fixed-clock answer has (operation, manager, subresource),
/// once the server's own order is checked against its times.
fn observed(object: &Value) -> Result<(Value, Value), String> {
    let mut object = object.clone();
    let meta = object["metadata"].as_object_mut().ok_or("no metadata")?;
    for field in ["uid", "resourceVersion", "generation", "creationTimestamp"] {
        meta.remove(field);
    }
    // No managedFields (nobody owns anything) is an empty list.
    let managed = meta.remove("managedFields").unwrap_or(json!([]));
    let mut entries = managed.as_array().cloned().ok_or_else(|| format!("managedFields is not a list: {managed}"))?;
    // Kubernetes' order: operation, time in seconds, manager, subresource.
    let key = |e: &Value, with_time: bool| {
        (
            s(&e["operation"]).to_owned(),
            if with_time { s(&e["time"]).to_owned() } else { String::new() },
            s(&e["manager"]).to_owned(),
            s(&e["subresource"]).to_owned(),
        )
    };
    if entries.windows(2).any(|w| key(&w[0], true) > key(&w[1], true)) {
        return Err(format!("managedFields are not in Kubernetes' order: {managed}"));
    }
    for e in &mut entries {
        let entry = e.as_object_mut().ok_or("a managedFields entry is not an object")?;
        let time = entry.remove("time").ok_or_else(|| format!("a managedFields entry without time: {managed}"))?;
        if !s(&time).ends_with('Z') {
            return Err(format!("a managedFields time that is not RFC 3339 UTC: {time}"));
        }
    }
    entries.sort_by_key(|e| key(e, false));
    Ok((object, Value::Array(entries)))
}

/// Whether a 422 only says that embedded resources lack apiVersion or kind.
fn embedded_without_type(answer: &Value) -> bool {
    let causes = answer["details"]["causes"].as_array().cloned().unwrap_or_default();
    !causes.is_empty()
        && causes.iter().all(|c| {
            let field = s(&c["field"]);
            c["reason"] == "FieldValueRequired" && (field.ends_with(".apiVersion") || field.ends_with(".kind"))
        })
}

fn conflicts(causes: &Value) -> Value {
    let mut out: Vec<Value> = causes
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| json!({"reason": c["reason"], "field": c["field"], "message": c["message"]}))
        .collect();
    out.sort_by_key(|c| (s(&c["field"]).to_owned(), s(&c["message"]).to_owned()));
    Value::Array(out)
}

/// Plays one case; the first step whose answer differs is the error.
async fn play(http: &Http, case: &Value) -> Result<(), String> {
    define(http, case).await;
    let steps = case["steps"].as_array().unwrap();
    let expected = case["expected"].as_array().unwrap();
    let mut exists = false;
    let mut last: Option<&Value> = None;
    for (n, (step, want)) in steps.iter().zip(expected).enumerate() {
        let object = &step["object"];
        let name = s(&object["metadata"]["name"]);
        let sub = match s(&step["subresource"]) {
            "" => String::new(),
            sub => format!("/{sub}"),
        };
        let url = format!("{}/{name}", collection(case, object));
        let manager = s(&step["manager"]);
        let fail =
            |what: String| format!("{}, step {n} ({} by {manager}{sub}): {what}", s(&case["name"]), s(&step["op"]));
        let (status, answer) = match s(&step["op"]) {
            "apply" => {
                let force = step["force"].as_bool().unwrap_or(false);
                let path = format!("{url}{sub}?{}&force={force}", query(manager));
                let (status, answer) = http.send_json(Method::PATCH, &path, Some((APPLY, object))).await;
                // Apply not served at all: one clear failure, not 150.
                let creates = !exists && sub.is_empty();
                if status == StatusCode::UNSUPPORTED_MEDIA_TYPE || (creates && status == StatusCode::NOT_FOUND) {
                    panic!(
                        "{}: crdstore answers {status} to PATCH {APPLY}{}: server-side apply is not served\n  {answer}",
                        fail("the apply".into()),
                        if creates { " of an object that does not exist yet (an apply creates it)" } else { "" },
                    );
                }
                (status, answer)
            }
            "update" if !exists => {
                let path = format!("{}?{}", collection(case, object), query(manager));
                http.send_json(Method::POST, &path, Some(("application/json", object))).await
            }
            "update" => {
                let (status, live) = http.send_json(Method::GET, &url, None).await;
                if status != StatusCode::OK {
                    return Err(fail(format!("GET before the update answered {status}: {live}")));
                }
                let mut body = object.clone();
                body["metadata"]["resourceVersion"] = live["metadata"]["resourceVersion"].clone();
                http.send_json(
                    Method::PUT,
                    &format!("{url}{sub}?{}", query(manager)),
                    Some(("application/json", &body)),
                )
                .await
            }
            op => panic!("unknown op {op}"),
        };
        if let Some(want_conflicts) = want.get("conflicts") {
            let want_conflicts = conflicts(&Value::Array(
                want_conflicts
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| json!({"reason": "FieldManagerConflict", "field": c["field"], "message": c["message"]}))
                    .collect(),
            ));
            let got = (status, s(&answer["reason"]), &answer["message"], conflicts(&answer["details"]["causes"]));
            if got != (StatusCode::CONFLICT, "Conflict", &want["message"], want_conflicts.clone()) {
                return Err(fail(format!(
                    "expected 409 Conflict, message {} and causes {want_conflicts}\n  got {status}: {answer}",
                    want["message"]
                )));
            }
            // A refused apply leaves the object as it was.
            if let Some(before) = last {
                let (_, live) = http.send_json(Method::GET, &url, None).await;
                compare(&live, before).map_err(|e| fail(format!("after the refused apply: {e}")))?;
            }
            continue;
        }
        if status == StatusCode::UNPROCESSABLE_ENTITY && embedded_without_type(&answer) {
            // The field manager alone (the oracle) does not validate; the
            // apiserver refuses an embedded resource left without apiVersion
            // or kind (validateEmbeddedResource), as crdstore does: the rest
            // of the case builds on a state Kubernetes never reaches.
            return Ok(());
        }
        if !(status == StatusCode::OK || status == StatusCode::CREATED) {
            return Err(fail(format!("expected success, got {status}: {answer}\n  expected {want}")));
        }
        compare(&answer, want).map_err(|e| fail(format!("the answer: {e}")))?;
        let (_, live) = http.send_json(Method::GET, &url, None).await;
        compare(&live, want).map_err(|e| fail(format!("the stored object: {e}")))?;
        exists = true;
        last = Some(want);
    }
    Ok(())
}

fn compare(got: &Value, want: &Value) -> Result<(), String> {
    let (object, managed) = observed(got).map_err(|e| format!("{e}\n  got {got}"))?;
    if object != want["object"] {
        return Err(format!("the object differs\n  expected {}\n  got      {object}", want["object"]));
    }
    let wanted = if want["managedFields"].is_null() { json!([]) } else { want["managedFields"].clone() };
    if managed != wanted {
        return Err(format!("managedFields differ\n  expected {}\n  got      {managed}", want["managedFields"]));
    }
    Ok(())
}

/// Plays cases on one server, reports every case that differs, and checks
/// the server still serves afterwards.
async fn play_all(cases: &[Value], repro: &str) {
    let server = TestServer::start().await;
    let http = Http::new(&server);
    let mut failures = Vec::new();
    for case in cases {
        if let Err(e) = play(&http, case).await {
            failures.push(e);
        }
    }
    let (status, apis) = http.send_json(Method::GET, "/apis", None).await;
    assert_eq!((status, s(&apis["kind"])), (StatusCode::OK, "APIGroupList"), "the server still serves");
    let (status, list) =
        http.send_json(Method::GET, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", None).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    assert_eq!(list["items"].as_array().map(Vec::len), Some(cases.len()), "every case's definition is listed");
    if !failures.is_empty() {
        let shown: Vec<&str> = failures.iter().take(5).map(String::as_str).collect();
        panic!(
            "{} of {} cases differ from Kubernetes' answers ({repro}); the first:\n\n{}",
            failures.len(),
            cases.len(),
            shown.join("\n\n")
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generated_cases_agree_with_kubernetes_field_manager() {
    let count: usize = std::env::var("SSA_DIFFERENTIAL_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(CASES);
    let seed: i64 = std::env::var("SSA_DIFFERENTIAL_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(1);
    let mut cases = run_oracle(&["generate", "--seed", &seed.to_string(), "--count", &count.to_string()], None);
    assert_eq!(cases.len(), count);
    if let Ok(only) = std::env::var("SSA_DIFFERENTIAL_CASE") {
        cases.retain(|c| c["name"] == only.as_str());
    }
    play_all(&cases, &format!("SSA_DIFFERENTIAL_SEED={seed} SSA_DIFFERENTIAL_CASES={count}")).await;
}

fn case(name: &str, schema: Value, subresources: Option<Value>, steps: Vec<Value>) -> Value {
    let kind = format!("Hand{}", name.replace('-', ""));
    let mut steps = steps;
    for step in &mut steps {
        step["object"]["apiVersion"] = json!("hand.example.com/v1");
        step["object"]["kind"] = json!(kind);
        step["object"]["metadata"]["name"] = json!("obj");
        step["object"]["metadata"]["namespace"] = json!("default");
    }
    let mut c = json!({"name": name, "group": "hand.example.com", "kind": kind,
        "plural": kind.to_lowercase() + "s", "version": "v1", "scope": "Namespaced",
        "schema": {"type": "object", "properties": {"spec": {"type": "object", "properties": schema},
            "status": {"type": "object", "properties": {"phase": {"type": "string"}, "observed": {"type": "integer"}}}}},
        "steps": steps});
    if let Some(sub) = subresources {
        c["subresources"] = sub;
    }
    c
}

fn apply(manager: &str, force: bool, spec: Value) -> Value {
    json!({"op": "apply", "manager": manager, "force": force, "subresource": "", "object": {"metadata": {}, "spec": spec}})
}

/// Hand-written cases, their expectations from `ssa-oracle expect`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hand_written_cases_agree_with_kubernetes_field_manager() {
    let scalars = json!({"replicas": {"type": "integer"}, "image": {"type": "string"}, "color": {"type": "string"}});
    let lists = json!({
        "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
        "env": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
            "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}, "value": {"type": "string"}}}},
        "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["port", "protocol"],
            "items": {"type": "object", "required": ["port", "protocol"],
                "properties": {"port": {"type": "integer"}, "protocol": {"type": "string"}, "name": {"type": "string"}}}},
        "args": {"type": "array", "items": {"type": "string"}}});
    let cases = [
        // Three managers: shared values, a conflict, and force.
        case(
            "three-managers",
            scalars.clone(),
            None,
            vec![
                apply("m1", false, json!({"replicas": 1, "image": "nginx"})),
                apply("m2", false, json!({"replicas": 1, "color": "blue"})),
                apply("m3", false, json!({"replicas": 3, "color": "red"})),
                apply("m3", true, json!({"replicas": 3, "color": "red"})),
                json!({"op": "update", "manager": "m4", "subresource": "",
                    "object": {"metadata": {}, "spec": {"replicas": 3, "color": "red", "image": "redis"}}}),
                apply("m1", false, json!({"replicas": 1, "image": "nginx"})),
            ],
        ),
        // Removal by omission: a field goes with its last owner.
        case(
            "removal",
            scalars.clone(),
            None,
            vec![
                apply("m1", false, json!({"replicas": 1, "image": "nginx", "color": "blue"})),
                apply("m2", false, json!({"image": "nginx"})),
                apply("m1", false, json!({"replicas": 1})),
                apply("m2", false, json!({"replicas": 1})),
            ],
        ),
        // Set and map lists (one and two keys) merged item by item; an
        // atomic list replaced whole.
        case(
            "lists",
            lists,
            None,
            vec![
                apply(
                    "m1",
                    false,
                    json!({"tags": ["a", "b"], "env": [{"name": "x", "value": "1"}],
                    "ports": [{"port": 80, "protocol": "TCP"}], "args": ["-v"]}),
                ),
                apply(
                    "m2",
                    false,
                    json!({"tags": ["c"], "env": [{"name": "y", "value": "2"}],
                    "ports": [{"port": 80, "protocol": "UDP", "name": "dns"}]}),
                ),
                apply("m2", false, json!({"args": ["-q"]})),
                apply(
                    "m1",
                    false,
                    json!({"tags": ["a"], "env": [], "ports": [{"port": 80, "protocol": "TCP"}], "args": ["-v"]}),
                ),
            ],
        ),
        // The status subresource: status stripped on the main endpoint,
        // applied and updated on /status by its own managers.
        case(
            "status",
            scalars,
            Some(json!({"status": {}})),
            vec![
                json!({"op": "apply", "manager": "m1", "subresource": "",
                    "object": {"metadata": {}, "spec": {"replicas": 1}, "status": {"phase": "Ignored"}}}),
                json!({"op": "apply", "manager": "ctl", "subresource": "status",
                    "object": {"metadata": {}, "status": {"phase": "Ready"}}}),
                json!({"op": "apply", "manager": "ctl2", "subresource": "status",
                    "object": {"metadata": {}, "status": {"phase": "Gone"}}}),
                json!({"op": "update", "manager": "kubelet", "subresource": "status",
                    "object": {"metadata": {}, "spec": {"replicas": 9}, "status": {"phase": "Done", "observed": 1}}}),
                apply("m1", false, json!({"replicas": 2})),
            ],
        ),
    ];
    let input: String = cases.iter().map(|c| format!("{c}\n")).collect();
    let cases = run_oracle(&["expect"], Some(&input));
    assert_eq!(cases.len(), 4);
    // The hand-checked points of the expectations, before crdstore plays them.
    assert_eq!(cases[0]["expected"][2]["message"], "Apply failed with 3 conflicts: conflicts with \"m1\":\n- .spec.replicas\nconflicts with \"m2\":\n- .spec.color\n- .spec.replicas");
    assert_eq!(cases[0]["expected"][3]["object"]["spec"], json!({"replicas": 3, "image": "nginx", "color": "red"}));
    assert_eq!(cases[1]["expected"][3]["object"]["spec"], json!({"replicas": 1}));
    assert_eq!(cases[3]["expected"][0]["object"].get("status"), None);
    play_all(&cases, "the hand-written cases").await;
}

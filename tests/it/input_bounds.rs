//! What one client's input can make the server say or hold: CEL rules that
//! call undeclared functions or overloads refused when the definition is
//! written; names far over Kubernetes' 253 characters refused before any
//! lookup with a short message on both transports; duplicate fields in
//! JSON and YAML bodies under `fieldValidation`; YAML `.inf`; a gRPC
//! message over the limit; `/healthz` while heavy merge patches run.

use std::time::{Duration, Instant};

use crate::cel_limits::create_definition;
use crdstore::pb::v1 as pb;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use tonic::Code;

use crate::support::{
    self, create_widget, get_widget, reason, register_widgets, version, widget, widgets, Crd, Http, TestServer,
};

const RULE_FIELD: &str = "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule";
const CRDS: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const WIDGETS: &str = "/apis/example.com/v1/namespaces/default/widgets";

/// The Widget definition with `rule` on `spec`, whose `s` is a string and
/// `a` an integer.
fn definition(rule: &str) -> Crd {
    let mut v1 = version("v1", true);
    v1["schema"]["openAPIV3Schema"] = json!({"type": "object", "properties": {"spec": {"type": "object",
        "properties": {"s": {"type": "string"}, "a": {"type": "integer"}},
        "x-kubernetes-validations": [{"rule": rule}]}}});
    Crd::new("example.com", "Widget").versions(vec![v1])
}

/// The message of a rule the checker refuses: cel-go's rendering, at the
/// call, after Kubernetes' `compilation failed: `.
fn compile_error(rule: &str, column: usize, problem: &str) -> String {
    format!("compilation failed: ERROR: <input>:1:{column}: {problem}\n | {rule}\n | {}^", ".".repeat(column - 1))
}

#[tokio::test]
async fn rules_calling_undeclared_functions_or_overloads_are_refused_at_their_path() {
    let t = TestServer::start().await;
    let http = Http::new(&t);
    for (rule, column, problem) in [
        ("self.s.frobnicate()", 18, "undeclared reference to 'frobnicate' (in container '')"),
        ("frobnicate(self.s)", 11, "undeclared reference to 'frobnicate' (in container '')"),
        ("self.s.startsWith(1)", 18, "found no matching overload for 'startsWith' applied to 'string.(int)'"),
        ("startsWith(self.s, 'a')", 11, "found no matching overload for 'startsWith' applied to '(string, string)'"),
        ("self.a.lowerAscii() == 'x'", 18, "found no matching overload for 'lowerAscii' applied to 'int.()'"),
        ("size(self.s, 1) > 0", 5, "found no matching overload for 'size' applied to '(string, int)'"),
    ] {
        let expected = compile_error(rule, column, problem);
        let err = create_definition(&t, &definition(rule)).await.unwrap_err();
        assert_eq!((err.code(), reason(&err).as_str()), (Code::InvalidArgument, "Invalid"), "{}", err.message());
        assert_eq!(support::violations(&err), [RULE_FIELD], "{}", err.message());
        assert!(err.message().contains(&expected), "{rule}: {}", err.message());
        let (status, body) = http.post(CRDS, definition(rule).value).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        let cause = &body["details"]["causes"][0];
        assert_eq!((cause["reason"].as_str(), cause["field"].as_str()), (Some("FieldValueInvalid"), Some(RULE_FIELD)));
        assert!(cause["message"].as_str().unwrap().contains(&expected), "{body}");
    }
    // Rules the environment evaluates are accepted, and evaluated.
    let good = "self.s.startsWith('a') && size(self.s) < 10 && self.s.lowerAscii().matches('^a') \
                && math.ceil(1.5) == 2.0 && [1, 2].all(x, x > 0) && self.s in ['ab', 'a'] && self.a + 1 > 0";
    create_definition(&t, &definition(good)).await.unwrap();
    let mut r = t.resources().await;
    create_widget(&mut r, "ns", &widget("ok", json!({"s": "ab", "a": 1}))).await.unwrap();
    let err = create_widget(&mut r, "ns", &widget("no", json!({"s": "b", "a": 1}))).await.unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument, "{}", err.message());
}

#[tokio::test]
async fn a_stored_rule_with_an_undeclared_function_is_kept_on_update_and_refused_when_changed() {
    let mut t = TestServer::start().await;
    create_definition(&t, &definition("self.a > 0")).await.unwrap();
    // As an older server accepted it.
    crate::cel_limits::store_rule(&mut t, "self.s.frobnicate()", None).await;
    let mut c = t.definitions().await;
    let mut stored = support::get(&mut c, "widgets.example.com").await;
    // An update that keeps the rule is not refused for it (Kubernetes
    // compiles preexisting rules with the stored expressions' environment).
    stored["metadata"]["labels"] = json!({"touched": "yes"});
    let updated = support::update(&mut c, &stored).await.unwrap();
    assert_eq!(updated["metadata"]["labels"]["touched"], "yes");
    // Writes of the kind fail with the rule's compile error.
    let mut r = t.resources().await;
    let err = create_widget(&mut r, "ns", &widget("w", json!({"s": "x"}))).await.unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err.message().contains("undeclared reference to 'frobnicate'"), "{}", err.message());
    // A changed rule is checked again.
    let mut changed = support::get(&mut c, "widgets.example.com").await;
    changed["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["x-kubernetes-validations"][0]
        ["rule"] = json!("self.s.frobnicate2()");
    let definition = serde_json::to_vec(&changed).unwrap();
    let err = c.update(pb::UpdateDefinitionRequest { definition, options: None }).await.unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err.message().contains("undeclared reference to 'frobnicate2'"), "{}", err.message());
}

fn message_of(body: &Value) -> &str {
    body["message"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn a_name_far_over_the_limit_is_invalid_with_a_short_message_on_both_transports() {
    let t = TestServer::start().await;
    register_widgets(&t).await;
    let http = Http::new(&t);
    let mut r = t.resources().await;
    let mut c = t.definitions().await;
    for name in ["n".repeat(10_000), "m".repeat(1 << 20)] {
        let get = get_widget(&mut r, "default", &name).await.unwrap_err();
        let delete = support::delete_widget(&mut r, "default", &name).await.unwrap_err();
        let definition = c.get(pb::GetDefinitionRequest { name: name.clone() }).await.unwrap_err();
        for err in [get, delete, definition] {
            assert_eq!((err.code(), reason(&err).as_str()), (Code::InvalidArgument, "Invalid"), "{}", err.message());
            assert!(err.message().len() < 1024, "{} bytes", err.message().len());
            assert!(err.message().ends_with("metadata.name: Too long: must have at most 253 bytes"));
            assert!(err.details().len() < 4096, "{} bytes of details", err.details().len());
        }
        let created = create_widget(&mut r, "default", &widget(&name, json!({}))).await.unwrap_err();
        assert_eq!(created.code(), Code::InvalidArgument);
        assert!(created.message().len() < 1024, "{}", created.message());
    }
    let name = "n".repeat(10_000);
    for method in [Method::GET, Method::DELETE] {
        let (status, body) = http.json(method, &format!("{WIDGETS}/{name}"), None).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert!(message_of(&body).len() < 1024, "{}", message_of(&body));
        assert_eq!(body["details"]["causes"][0]["reason"], "FieldValueTooLong");
        assert!(body["details"]["name"].as_str().unwrap().len() < 300);
    }
    let (status, body) = http.post(WIDGETS, widget(&name, json!({}))).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(message_of(&body).len() < 1024, "{}", message_of(&body));
    let (status, body) = http.get(&format!("{CRDS}/{name}")).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(message_of(&body).len() < 1024, "{}", message_of(&body));
    get_widget(&mut r, "default", "absent").await.unwrap_err();
}

/// Sends `body` as `content_type` with `fieldValidation`; the status, the
/// warnings and the answer.
async fn write(
    http: &Http,
    path: &str,
    validation: &str,
    content_type: &str,
    body: &str,
) -> (StatusCode, String, Value) {
    let path = format!("{path}?fieldValidation={validation}");
    let (status, headers, bytes) =
        http.send(Method::POST, &path, Some((content_type, body.as_bytes().to_vec())), "application/json").await;
    let warnings: Vec<&str> = headers.get_all("warning").iter().map(|v| v.to_str().unwrap()).collect();
    (status, warnings.join("\n"), serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

#[tokio::test]
async fn duplicate_fields_in_json_and_yaml_are_refused_under_strict_and_warned_under_warn() {
    let t = TestServer::start().await;
    register_widgets(&t).await;
    let http = Http::new(&t);
    let json_body = |name: &str| {
        format!(
            r#"{{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {{"name": "{name}"}}, "spec": {{"a": 1, "a": 2}}}}"#
        )
    };
    let yaml_body = |name: &str| {
        format!("apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: {name}\nspec:\n  a: 1\n  a: 2\n")
    };
    let bodies = [("application/json", &json_body as &dyn Fn(&str) -> String), ("application/yaml", &yaml_body)];
    for (i, (content_type, body)) in bodies.into_iter().enumerate() {
        let (status, _, answer) = write(&http, WIDGETS, "Strict", content_type, &body("strict")).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
        assert_eq!(message_of(&answer), r#"strict decoding error: duplicate field "spec.a""#);
        let name = format!("warned-{i}");
        let (status, warnings, answer) = write(&http, WIDGETS, "Warn", content_type, &body(&name)).await;
        assert_eq!(status, StatusCode::CREATED, "{answer}");
        assert!(warnings.contains(r#"duplicate field \"spec.a\""#), "{warnings}");
        assert_eq!(answer["spec"]["a"], 2, "the last value wins");
    }
    // Definitions and built-in kinds decode the same way.
    let crd = serde_json::to_string(&Crd::new("example.com", "Gadget").value).unwrap();
    let crd = crd.replacen(r#""scope":"Namespaced""#, r#""scope":"Namespaced","scope":"Namespaced""#, 1);
    let (status, _, answer) = write(&http, CRDS, "Strict", "application/json", &crd).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
    assert_eq!(message_of(&answer), r#"strict decoding error: duplicate field "spec.scope""#);
    let (status, warnings, _) = write(&http, CRDS, "Warn", "application/json", &crd).await;
    assert_eq!(status, StatusCode::CREATED);
    assert!(warnings.contains("duplicate field"), "{warnings}");
    let namespace = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: dup\n  name: dup\n";
    let (status, _, answer) = write(&http, "/api/v1/namespaces", "Strict", "application/yaml", namespace).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
    assert_eq!(message_of(&answer), r#"strict decoding error: duplicate field "metadata.name""#);
}

#[tokio::test]
async fn yaml_infinities_and_nans_are_refused_not_stored_as_null() {
    let t = TestServer::start().await;
    register_widgets(&t).await;
    let http = Http::new(&t);
    for (value, shown) in [(".inf", "+Inf"), ("-.Inf", "-Inf"), (".nan", "NaN")] {
        let body = format!("apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  x: {value}\n");
        let (status, _, answer) = write(&http, WIDGETS, "Strict", "application/yaml", &body).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
        assert!(message_of(&answer).contains(&format!("json: unsupported value: {shown}")), "{answer}");
    }
    assert_eq!(http.get(&format!("{WIDGETS}/w")).await.0, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_grpc_message_over_the_limit_is_resource_exhausted() {
    let t = TestServer::start().await;
    register_widgets(&t).await;
    let mut r = t.resources().await;
    let object = serde_json::to_vec(&widget("big", json!({"blob": "x".repeat(5 << 20)}))).unwrap();
    let req = pb::CreateResourceRequest { r#ref: Some(widgets("default", "")), object, options: None };
    let err = r.create(req).await.unwrap_err();
    assert_eq!(err.code(), Code::ResourceExhausted, "{}", err.message());
    assert!(err.message().contains("message length too large"), "{}", err.message());
    create_widget(&mut r, "default", &widget("small", json!({}))).await.unwrap();
}

/// A merge patch of about `bytes` setting fields of `spec` to strings of
/// `value`: few enough fields that the object and its managedFields stay
/// under the 3 MiB stored limit.
fn heavy_patch(bytes: usize, value: char) -> Vec<u8> {
    // `"field00000000":"<80 characters>",` is 98 bytes.
    let text = value.to_string().repeat(80);
    let spec: serde_json::Map<String, Value> = (0..bytes / 98).map(|i| (format!("field{i:08}"), json!(text))).collect();
    serde_json::to_vec(&json!({"spec": spec})).unwrap()
}

/// The bound `/healthz` answers within while heavy patches run. 100 ms on
/// a release build; a debug build, ten times slower at JSON, is held to
/// the same bound (the patches run on the heavy pool, not the workers).
const HEALTHZ_BOUND: Duration = Duration::from_millis(100);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn healthz_answers_quickly_while_two_large_merge_patches_run() {
    let t = TestServer::start().await;
    register_widgets(&t).await;
    let http = Http::new(&t);
    let mut r = t.resources().await;
    create_widget(&mut r, "default", &widget("heavy", json!({}))).await.unwrap();
    let patches: Vec<Vec<u8>> = ['a', 'b'].into_iter().map(|c| heavy_patch(1_800_000, c)).collect();
    assert!(patches.iter().all(|p| p.len() > 1_700_000 && p.len() < 1_900_000));
    let path = format!("{WIDGETS}/heavy");
    let running: Vec<_> = patches
        .into_iter()
        .map(|patch| {
            let (http, path) = (Http::new(&t), path.clone());
            tokio::spawn(async move {
                let body = Some(("application/merge-patch+json", patch));
                http.send(Method::PATCH, &path, body, "application/json").await.0
            })
        })
        .collect();
    let mut slowest = Duration::ZERO;
    let mut samples = 0;
    let deadline = Instant::now() + Duration::from_secs(60);
    while running.iter().any(|p| !p.is_finished()) {
        assert!(Instant::now() < deadline, "the patches never ended");
        let started = Instant::now();
        let response = http.request(Method::GET, "/healthz").send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        slowest = slowest.max(started.elapsed());
        samples += 1;
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    for patch in running {
        assert_eq!(patch.await.unwrap(), StatusCode::OK);
    }
    eprintln!("/healthz: slowest of {samples} answers during the patches {slowest:?}");
    assert!(samples > 3, "the patches ended before /healthz was asked ({samples} answers)");
    assert!(slowest < HEALTHZ_BOUND, "/healthz took {slowest:?} while the patches ran");
}

impl Http {
    /// `request`, raw HTTP/1.1 bytes, on a connection of its own; the status
    /// code and body of the answer, read to the end (send `Connection: close`).
    async fn raw_exchange(&self, request: &[u8]) -> (u16, Value) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut stream = tokio::net::TcpStream::connect(self.base.trim_start_matches("http://")).await.unwrap();
        stream.write_all(request).await.unwrap();
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer).await;
        let text = String::from_utf8_lossy(&answer);
        let code = text.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
        let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b);
        let json = body.find('{').map_or("", |start| &body[start..body.rfind('}').map_or(body.len(), |e| e + 1)]);
        (code, serde_json::from_str(json).unwrap_or(Value::Null))
    }
}

#[tokio::test]
async fn a_label_selector_of_200_kb_is_served_and_a_head_over_1_mib_gets_a_status() {
    let t = TestServer::start().await;
    register_widgets(&t).await;
    let http = Http::new(&t);
    let mut r = t.resources().await;
    let mut labelled = widget("picked", json!({}));
    labelled["metadata"]["labels"] = json!({"app": "v017000"});
    create_widget(&mut r, "default", &labelled).await.unwrap();
    create_widget(&mut r, "default", &widget("other", json!({}))).await.unwrap();
    let values: Vec<String> = (0..25_000).map(|i| format!("v{i:06}")).collect();
    let selector = format!("app in ({})", values.join(","));
    assert!(selector.len() > 200_000);
    let query = selector.replace(' ', "%20").replace('(', "%28").replace(')', "%29").replace(',', "%2C");
    for keep_alive in [false, true] {
        let get = format!("GET {WIDGETS}?labelSelector={query} HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\n");
        // A second request on the same connection is read after the first.
        let request = if keep_alive {
            format!("{get}\r\nGET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        } else {
            format!("{get}Connection: close\r\n\r\n")
        };
        let (code, list) = http.raw_exchange(request.as_bytes()).await;
        assert_eq!(code, 200, "{list}");
        let names: Vec<&str> =
            list["items"].as_array().unwrap().iter().map(|i| i["metadata"]["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["picked"]);
    }
    let over =
        format!("GET {WIDGETS}?labelSelector={} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "a".repeat(1 << 20));
    let (code, status) = http.raw_exchange(over.as_bytes()).await;
    assert_eq!(code, 414);
    assert_eq!((status["kind"].as_str(), status["code"].as_u64()), (Some("Status"), Some(414)), "{status}");
    // A client's own header of the query's name is not taken for the query.
    let forged = format!("GET {WIDGETS} HTTP/1.1\r\nHost: x\r\nx-crdstore-long-query: labelSelector=app%3Dv017000\r\nConnection: close\r\n\r\n");
    let (code, list) = http.raw_exchange(forged.as_bytes()).await;
    assert_eq!(code, 200);
    assert_eq!(list["items"].as_array().unwrap().len(), 2);
    assert_eq!(http.get("/healthz").await.0, StatusCode::OK);
}

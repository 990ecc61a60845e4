//! Hostile requests (the hardening issue: no request can take the process
//! down): deep YAML, paths that try to widen their scope, bodies in other
//! media types, slow and malformed requests, too many watches. Each test
//! checks the answer and that the server still serves afterwards.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use crdstore::pb::v1 as pb;
use reqwest::header::CONTENT_TYPE;
use reqwest::{Client, Method, StatusCode};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::support::{create_widget, get_widget, reason, register_widgets, widget, TestServer};

const COLLECTION: &str = "/apis/example.com/v1/namespaces/default/widgets";
const CRDS: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

fn url(server: &TestServer, path: &str) -> String {
    format!("http://{}{path}", server.server().http_addr)
}

/// Sends `method path` with an optional `(content type, body)`.
async fn send(server: &TestServer, method: Method, path: &str, body: Option<(&str, Vec<u8>)>) -> (StatusCode, Value) {
    let mut request = Client::new().request(method, url(server, path));
    if let Some((content_type, bytes)) = body {
        request = request.header(CONTENT_TYPE, content_type).body(bytes);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    (status, serde_json::from_slice(&response.bytes().await.unwrap()).unwrap_or(Value::Null))
}

/// Raw HTTP/1.1 bytes to `addr`; the status code and body of the answer
/// (read to the end: send `Connection: close`).
async fn raw(addr: SocketAddr, request: &[u8]) -> (u16, Value) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(request).await.unwrap();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer).await;
    let text = String::from_utf8_lossy(&answer);
    let code = text.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
    // A chunked answer: the JSON is between the first chunk size and the end.
    let body = body.find('{').map(|start| &body[start..body.rfind('}').map_or(body.len(), |e| e + 1)]).unwrap_or("");
    (code, serde_json::from_str(body).unwrap_or(Value::Null))
}

async fn raw_request(server: &TestServer, method: &str, path: &str) -> (u16, Value) {
    let request = format!("{method} {path} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    raw(server.server().http_addr, request.as_bytes()).await
}

async fn assert_serves(server: &TestServer) {
    let response = Client::new().get(url(server, "/healthz")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let (status, list) = send(server, Method::GET, COLLECTION, None).await;
    assert_eq!(status, StatusCode::OK, "{list}");
}

async fn names(server: &TestServer, path: &str) -> Vec<String> {
    let (status, list) = send(server, Method::GET, path, None).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    list["items"].as_array().unwrap().iter().map(|i| i["metadata"]["name"].as_str().unwrap().to_string()).collect()
}

/// The median latency of `/healthz` over a few probes.
async fn healthz_median(server: &TestServer) -> Duration {
    let client = Client::new();
    let mut latencies = Vec::new();
    for _ in 0..9 {
        let started = Instant::now();
        let response = client.get(url(server, "/healthz")).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        latencies.push(started.elapsed());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    latencies.sort();
    latencies[latencies.len() / 2]
}

#[tokio::test]
async fn deep_yaml_is_refused_and_health_answers_while_yaml_is_decoded() {
    let server = TestServer::start().await;
    register_widgets(&server).await;
    // 100k levels in 195 KiB, block and flow; and as deep as the body limit allows.
    let deep_block = "- ".repeat(100_000) + "x\n";
    let deep_flow = "[".repeat(100_000) + &"]".repeat(100_000);
    let at_limit = "- ".repeat(3 * 1024 * 1024 / 2 - 2) + "x\n";
    for doc in [&deep_block, &deep_flow, &at_limit] {
        let (status, answer) =
            send(&server, Method::POST, COLLECTION, Some(("application/yaml", doc.as_bytes().to_vec()))).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
        assert_eq!(answer["reason"], "BadRequest");
        assert!(answer["message"].as_str().unwrap().contains("nesting exceeds 128 levels"), "{answer}");
    }
    // Nesting within the limit is still decoded.
    let nested = (0..100).fold(json!("x"), |v, _| json!({"a": v}));
    let mut object = widget("nested", json!({}));
    object["spec"] = nested;
    let yaml = serde_norway::to_string(&object).unwrap();
    let (status, created) =
        send(&server, Method::POST, COLLECTION, Some(("application/yaml", yaml.into_bytes()))).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");

    // Two requests in flight the whole time: deep bodies, and legal but
    // costly ones (a MiB of 127 nested flow sequences, decoded on a blocking thread).
    let unit = "- ".to_string() + &"[".repeat(126) + &"]".repeat(126) + "\n";
    let costly = unit.repeat(1024 * 1024 / unit.len());
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut load = Vec::new();
    for doc in [deep_flow.clone(), costly] {
        let (stop, target) = (stop.clone(), url(&server, COLLECTION));
        load.push(tokio::spawn(async move {
            let client = Client::new();
            let mut answered = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let response = client
                    .post(&target)
                    .header(CONTENT_TYPE, "application/yaml")
                    .body(doc.clone())
                    .send()
                    .await
                    .unwrap();
                assert!(response.status().is_client_error(), "{}", response.status());
                answered += 1;
            }
            answered
        }));
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let median = healthz_median(&server).await;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for task in load {
        assert!(task.await.unwrap() > 0);
    }
    assert!(median < Duration::from_millis(100), "/healthz took {median:?} while YAML was decoded");
    assert_serves(&server).await;
}

#[tokio::test]
async fn paths_never_widen_a_request() {
    let server = TestServer::start().await;
    register_widgets(&server).await;
    let mut resources = server.resources().await;
    create_widget(&mut resources, "default", &widget("o1", json!({}))).await.unwrap();
    create_widget(&mut resources, "team", &widget("o1", json!({}))).await.unwrap();

    // An empty name is not the collection, for any verb.
    for method in ["DELETE", "GET", "PUT", "PATCH", "POST"] {
        let (code, status) = raw_request(&server, method, &format!("{COLLECTION}/")).await;
        assert_eq!(code, 400, "{method}: {status}");
        assert_eq!(status["message"], "name must be provided", "{method}");
        for (name, why) in [
            ("%2F", "\"/\": may not contain '/'"),
            ("a%2Fb", "\"a/b\": may not contain '/'"),
            ("%25", "\"%\": may not contain '%'"),
            ("a%2F%25", "\"a/%\": may not contain '/';may not contain '%'"),
            (".", "\".\": may not be '.'"),
            ("..", "\"..\": may not be '..'"),
        ] {
            let (code, status) = raw_request(&server, method, &format!("{COLLECTION}/{name}")).await;
            assert_eq!(code, 400, "{method} {name}: {status}");
            assert_eq!(status["reason"], "BadRequest");
            assert_eq!(status["message"], format!("Name parameter invalid: {why}"), "{method} {name}");
        }
        // An encoded slash never separates segments: no route, not team/o1.
        let (code, status) =
            raw_request(&server, method, "/apis/example.com/v1/namespaces%2Fteam%2Fwidgets%2Fo1").await;
        assert_eq!(code, 404, "{method}: {status}");
        let (code, _) = raw_request(&server, method, "/apis/example.com/v1/namespaces/te%2Fam/widgets/o1").await;
        assert_eq!(code, 404, "{method}");
        let (code, _) = raw_request(&server, method, &format!("{COLLECTION}/o1/")).await;
        assert_eq!(code, 404, "{method}");
        let (code, status) = raw_request(&server, method, &format!("{CRDS}/")).await;
        assert_eq!(code, 400, "{method}: {status}");
    }
    assert_eq!(names(&server, COLLECTION).await, ["o1"]);
    assert_eq!(names(&server, "/apis/example.com/v1/namespaces/team/widgets").await, ["o1"]);
    assert_eq!(names(&server, CRDS).await, ["widgets.example.com"]);
    // A percent-encoded plain name is the name.
    let (code, found) = raw_request(&server, "GET", &format!("{COLLECTION}/%6F1")).await;
    assert_eq!((code, &found["metadata"]["name"]), (200, &json!("o1")));
    get_widget(&mut resources, "team", "o1").await.unwrap();
    assert_serves(&server).await;
}

#[tokio::test]
async fn writes_take_only_json_and_yaml_and_patches_only_patch_types() {
    let server = TestServer::start().await;
    register_widgets(&server).await;
    let body = serde_json::to_vec(&widget("o1", json!({}))).unwrap();
    let body_types = "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml";
    for content_type in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "json"] {
        let (status, answer) = send(&server, Method::POST, COLLECTION, Some((content_type, body.clone()))).await;
        assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{content_type}: {answer}");
        assert_eq!(answer["reason"], "UnsupportedMediaType");
        assert_eq!(answer["message"], body_types);
        let (status, _) =
            send(&server, Method::PUT, &format!("{COLLECTION}/o1"), Some((content_type, body.clone()))).await;
        assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{content_type}");
        let (status, _) = send(&server, Method::POST, CRDS, Some((content_type, b"{}".to_vec()))).await;
        assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{content_type}");
    }
    assert!(names(&server, COLLECTION).await.is_empty());
    // No Content-Type is JSON, as Kubernetes negotiates it; parameters are ignored.
    let response = Client::new().post(url(&server, COLLECTION)).body(body.clone()).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);
    let created = response.bytes().await.unwrap().to_vec();
    let (status, answer) =
        send(&server, Method::PUT, &format!("{COLLECTION}/o1"), Some(("Application/JSON; charset=utf-8", created)))
            .await;
    assert_eq!(status, StatusCode::OK, "{answer}");

    let patch_types = "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml";
    for content_type in ["application/json", "text/plain", "application/strategic-merge-patch+json", ""] {
        let (status, answer) =
            send(&server, Method::PATCH, &format!("{COLLECTION}/o1"), Some((content_type, b"{}".to_vec()))).await;
        assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{content_type}: {answer}");
        assert_eq!(answer["message"], patch_types);
    }
    let (status, answer) =
        send(&server, Method::PATCH, &format!("{CRDS}/widgets.example.com"), Some(("text/plain", b"{}".to_vec())))
            .await;
    assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_eq!(answer["message"], "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml");
    // A DeleteOptions body is a body too.
    let (status, _) =
        send(&server, Method::DELETE, &format!("{COLLECTION}/o1"), Some(("text/plain", b"{}".to_vec()))).await;
    assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_eq!(names(&server, COLLECTION).await, ["o1"]);
    let (status, patched) = send(
        &server,
        Method::PATCH,
        &format!("{COLLECTION}/o1"),
        Some(("application/merge-patch+json; charset=utf-8", br#"{"spec":{"a":1}}"#.to_vec())),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{patched}");
    assert_serves(&server).await;
}

#[tokio::test]
async fn slow_heads_idle_connections_and_slow_bodies_are_cut_off() {
    let server = TestServer::start_with(|config| {
        config.head_timeout = Duration::from_secs(1);
        config.body_timeout = Duration::from_secs(1);
    })
    .await;
    register_widgets(&server).await;
    let addr = server.server().http_addr;
    // A head trickled a byte at a time is closed, well before it is done.
    let mut trickle = TcpStream::connect(addr).await.unwrap();
    let head = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
    let started = Instant::now();
    let mut closed = false;
    for byte in head {
        if trickle.write_all(&[*byte]).await.is_err() {
            closed = true;
            break;
        }
        let mut buf = [0u8; 256];
        if let Ok(read) = tokio::time::timeout(Duration::from_millis(300), trickle.read(&mut buf)).await {
            // Hyper answers a timed-out head with 408 or closes: never the health answer.
            let text = String::from_utf8_lossy(&buf[..read.unwrap_or(0)]).to_string();
            assert!(!text.contains("200 OK"), "{text}");
            closed = true;
            break;
        }
    }
    assert!(closed, "a trickled head was still open after {:?}", started.elapsed());
    // An idle connection is closed too, new or kept alive after a request.
    let mut idle = TcpStream::connect(addr).await.unwrap();
    let mut buf = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(20), idle.read_to_end(&mut buf)).await;
    assert!(read.is_ok(), "an idle connection stayed open");
    let mut kept = TcpStream::connect(addr).await.unwrap();
    kept.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n").await.unwrap();
    let read = tokio::time::timeout(Duration::from_secs(20), kept.read_to_end(&mut buf)).await;
    assert!(read.is_ok(), "a kept-alive connection stayed open");
    assert!(String::from_utf8_lossy(&buf).contains("200 OK"));
    // A body that stops arriving is refused.
    let mut slow = TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST {COLLECTION} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"a\":"
    );
    slow.write_all(head.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(20), slow.read_to_end(&mut answer)).await;
    assert!(read.is_ok(), "a stalled body was waited for");
    let text = String::from_utf8_lossy(&answer);
    assert!(text.starts_with("HTTP/1.1 504"), "{text}");
    assert!(text.contains("\"reason\":\"Timeout\""), "{text}");
    assert_serves(&server).await;
}

#[tokio::test]
async fn malformed_chunked_bodies_are_bad_requests() {
    let server = TestServer::start().await;
    register_widgets(&server).await;
    let request = format!(
        "POST {COLLECTION} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n{{}}\r\n0\r\n\r\n"
    );
    let (code, status) = raw(server.server().http_addr, request.as_bytes()).await;
    assert_eq!(code, 400, "{status}");
    assert_eq!(status["reason"], "BadRequest");
    // A body over the limit is still 413.
    let big = vec![b' '; 3 * 1024 * 1024 + 10];
    let (status, answer) = send(&server, Method::POST, COLLECTION, Some(("application/json", big))).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{answer}");
    assert_serves(&server).await;
}

#[tokio::test]
async fn watches_beyond_the_limit_get_429_with_retry_after() {
    let server = TestServer::start_with(|config| config.max_watches = 2).await;
    register_widgets(&server).await;
    let client = Client::new();
    let watch = format!("{COLLECTION}?watch=true");
    let http_watch = client.get(url(&server, &watch)).send().await.unwrap();
    assert_eq!(http_watch.status(), StatusCode::OK);
    let mut resources = server.resources().await;
    let request = || pb::WatchResourcesRequest { r#ref: Some(crate::support::widgets("default", "")), options: None };
    let grpc_watch = resources.watch(request()).await.unwrap();

    let refused = client.get(url(&server, &watch)).send().await.unwrap();
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(refused.headers()["retry-after"], "1");
    let status: Value = refused.json().await.unwrap();
    assert_eq!(status["reason"], "TooManyRequests");
    assert_eq!(status["details"]["retryAfterSeconds"], 1);
    let (code, definitions) = send(&server, Method::GET, &format!("{CRDS}?watch=true"), None).await;
    assert_eq!(code, StatusCode::TOO_MANY_REQUESTS, "{definitions}");
    let err = resources.watch(request()).await.unwrap_err();
    assert_eq!(err.code(), tonic::Code::ResourceExhausted);
    assert_eq!(reason(&err), "TooManyRequests");
    let mut definitions = server.definitions().await;
    let err = definitions.watch(pb::WatchDefinitionsRequest { options: None }).await.unwrap_err();
    assert_eq!(err.code(), tonic::Code::ResourceExhausted);

    // A watch that ends gives its slot back.
    drop(grpc_watch);
    let mut reopened = None;
    for _ in 0..100 {
        match resources.watch(request()).await {
            Ok(watch) => {
                reopened = Some(watch);
                break;
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    }
    assert!(reopened.is_some(), "the slot of an ended watch was never freed");
    drop(http_watch);
    assert_serves(&server).await;
}

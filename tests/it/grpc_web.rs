//! gRPC-Web on the gRPC port, over HTTP/1.1 as a browser's fetch sends it:
//! unary calls in the binary and the base64 text encodings, an error's code
//! in the trailers frame, a server-streamed watch delivering events as they
//! happen, the request metrics and the RESOURCE_EXHAUSTED rewrite of an
//! oversized message applying to it as to gRPC, and CORS preflights
//! answered for an allowed origin and refused (403) for another.

use base64::Engine as _;
use crdstore::pb::v1 as pb;
use prost::Message;
use reqwest::StatusCode;
use serde_json::json;

use crate::support::{create, parse, Crd, TestServer, WAIT};

const GROUP: &str = "grpcweb.example.com";
/// The group of the test that counts requests, which no other test writes.
const COUNTED: &str = "counted.grpcweb.example.com";
const BINARY: &str = "application/grpc-web+proto";
const TEXT: &str = "application/grpc-web-text+proto";

/// `message` in a gRPC length-prefixed frame.
fn frame(message: &impl Message) -> Vec<u8> {
    let body = message.encode_to_vec();
    let mut framed = vec![0];
    framed.extend((body.len() as u32).to_be_bytes());
    framed.extend(body);
    framed
}

/// The messages and the trailers of a gRPC-Web body, and what is left of
/// an incomplete frame.
#[derive(Default)]
struct Frames {
    messages: Vec<Vec<u8>>,
    trailers: String,
    rest: Vec<u8>,
}

impl Frames {
    fn push(&mut self, bytes: &[u8]) {
        self.rest.extend_from_slice(bytes);
        while self.rest.len() >= 5 {
            let len = u32::from_be_bytes(self.rest[1..5].try_into().unwrap()) as usize;
            if self.rest.len() < 5 + len {
                break;
            }
            let payload = self.rest[5..5 + len].to_vec();
            match self.rest[0] {
                0 => self.messages.push(payload),
                0x80 => self.trailers.push_str(&String::from_utf8(payload).unwrap()),
                flag => panic!("unexpected frame flag {flag:#x}"),
            }
            self.rest.drain(..5 + len);
        }
    }

    /// The value of the trailer `name`.
    fn trailer(&self, name: &str) -> Option<String> {
        let prefix = format!("{name}:");
        let line = self.trailers.lines().find(|line| line.to_ascii_lowercase().starts_with(&prefix))?;
        Some(line[prefix.len()..].trim().to_string())
    }
}

/// Padded base64 chunks, concatenated as tonic-web sends them: each group of
/// four characters decodes on its own.
fn decode_text(text: &[u8]) -> Vec<u8> {
    let engine = base64::engine::general_purpose::STANDARD;
    text.chunks(4).flat_map(|quantum| engine.decode(quantum).unwrap()).collect()
}

async fn call(t: &TestServer, path: &str, content_type: &str, body: Vec<u8>) -> reqwest::Response {
    let url = format!("http://{}{path}", t.server().grpc_addr);
    let request = reqwest::Client::new().post(url).header("content-type", content_type).header("x-grpc-web", "1");
    // What grpc-web's text mode sends: the answer in the same encoding.
    let request = request.header("accept", content_type);
    let response = request.body(body).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.version(), reqwest::Version::HTTP_11);
    response
}

/// A whole unary answer, in either encoding; the status is in the trailers
/// frame, or in the headers for a trailers-only answer.
async fn unary(t: &TestServer, path: &str, content_type: &str, request: &impl Message) -> (Frames, String) {
    let body = if content_type == TEXT {
        base64::engine::general_purpose::STANDARD.encode(frame(request)).into_bytes()
    } else {
        frame(request)
    };
    let response = call(t, path, content_type, body).await;
    let answered = response.headers()["content-type"].to_str().unwrap().to_string();
    assert!(answered.starts_with(content_type.trim_end_matches("+proto")), "{answered}");
    let in_headers = response.headers().get("grpc-status").map(|v| v.to_str().unwrap().to_string());
    let bytes = response.bytes().await.unwrap();
    let mut frames = Frames::default();
    frames.push(&if content_type == TEXT { decode_text(&bytes) } else { bytes.to_vec() });
    assert!(frames.rest.is_empty());
    let status = in_headers.or_else(|| frames.trailer("grpc-status")).expect("a grpc-status");
    (frames, status)
}

async fn start_with_widgets(group: &str, origins: &[&str]) -> TestServer {
    let origins: Vec<String> = origins.iter().map(|o| o.to_string()).collect();
    let t = TestServer::start_with(|config| config.cors_allowed_origins = origins).await;
    create(&mut t.definitions().await, &Crd::new(group, "Widget")).await;
    t
}

fn widget_ref(group: &str, name: &str) -> pb::ResourceRef {
    let (group, version, resource) = (group.into(), "v1".into(), "widgets".into());
    pb::ResourceRef { group, version, resource, namespace: "default".into(), name: name.into() }
}

#[tokio::test]
async fn unary_calls_answer_in_both_encodings_and_pass_the_grpc_middleware() {
    let t = start_with_widgets(COUNTED, &[]).await;
    let name = format!("widgets.{COUNTED}");
    for content_type in [BINARY, TEXT] {
        let get = pb::GetDefinitionRequest { name: name.clone() };
        let (frames, status) = unary(&t, "/crdstore.v1.CustomResourceDefinitions/Get", content_type, &get).await;
        assert_eq!(status, "0", "{content_type}");
        assert_eq!(frames.messages.len(), 1);
        let answer = pb::GetDefinitionResponse::decode(frames.messages[0].as_slice()).unwrap();
        assert_eq!(parse(&answer.definition)["metadata"]["name"], name.as_str());
    }
    // A create, a get and a get of what is not there, over gRPC-Web only.
    let object = json!({"apiVersion": format!("{COUNTED}/v1"), "kind": "Widget", "metadata": {"name": "w"}});
    let create = pb::CreateResourceRequest {
        r#ref: Some(widget_ref(COUNTED, "")),
        object: serde_json::to_vec(&object).unwrap(),
        options: None,
    };
    let (_, status) = unary(&t, "/crdstore.v1.CustomResources/Create", BINARY, &create).await;
    assert_eq!(status, "0");
    let get = pb::GetResourceRequest { r#ref: Some(widget_ref(COUNTED, "w")), resource_version: String::new() };
    let (frames, status) = unary(&t, "/crdstore.v1.CustomResources/Get", TEXT, &get).await;
    assert_eq!(status, "0");
    let answer = pb::GetResourceResponse::decode(frames.messages[0].as_slice()).unwrap();
    assert_eq!(parse(&answer.object)["metadata"]["name"], "w");
    let missing = pb::GetResourceRequest { r#ref: Some(widget_ref(COUNTED, "none")), resource_version: String::new() };
    let (frames, status) = unary(&t, "/crdstore.v1.CustomResources/Get", BINARY, &missing).await;
    assert_eq!(status, (tonic::Code::NotFound as i32).to_string());
    assert!(frames.messages.is_empty());
    // The request metrics saw them (`observe`), as they see gRPC calls.
    let samples = crate::telemetry::scrape(t.server().http_addr).await;
    let count = |verb: &str, code: &str| {
        let labels = [("verb", verb), ("group", COUNTED), ("resource", "widgets"), ("code", code)];
        crate::telemetry::value(&samples, "apiserver_request_total", &labels)
    };
    assert_eq!((count("create", "201"), count("get", "200"), count("get", "404")), (1.0, 1.0, 1.0));
}

#[tokio::test]
async fn an_oversized_message_is_resource_exhausted_as_over_grpc() {
    let t = start_with_widgets(GROUP, &[]).await;
    let object = vec![b' '; crdstore::grpc::MAX_MESSAGE_BYTES + 1];
    let create = pb::CreateResourceRequest { r#ref: Some(widget_ref(GROUP, "")), object, options: None };
    let (_, status) = unary(&t, "/crdstore.v1.CustomResources/Create", BINARY, &create).await;
    assert_eq!(status, (tonic::Code::ResourceExhausted as i32).to_string());
}

#[tokio::test]
async fn a_watch_streams_events_as_they_happen() {
    let t = start_with_widgets(GROUP, &[]).await;
    let options = pb::WatchOptions { allow_bookmarks: true, ..Default::default() };
    let watch = pb::WatchResourcesRequest { r#ref: Some(widget_ref(GROUP, "")), options: Some(options) };
    let mut response = call(&t, "/crdstore.v1.CustomResources/Watch", BINARY, frame(&watch)).await;
    let mut frames = Frames::default();
    let mut resources = t.grpc().resources().await;
    for (seen, name) in ["a", "b", "c"].into_iter().enumerate() {
        let object = json!({"apiVersion": format!("{GROUP}/v1"), "kind": "Widget", "metadata": {"name": name}});
        let object = serde_json::to_vec(&object).unwrap();
        resources
            .create(pb::CreateResourceRequest { r#ref: Some(widget_ref(GROUP, "")), object, options: None })
            .await
            .unwrap();
        // Each event arrives while the stream is open, before the next write.
        while frames.messages.len() <= seen {
            let chunk = tokio::time::timeout(WAIT, response.chunk()).await.expect("an event in time").unwrap();
            frames.push(&chunk.expect("the stream stays open"));
        }
    }
    let names: Vec<String> = frames
        .messages
        .iter()
        .map(|m| pb::WatchEvent::decode(m.as_slice()).unwrap())
        .inspect(|event| assert_eq!(event.r#type(), pb::EventType::Added))
        .map(|event| parse(&event.object)["metadata"]["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, ["a", "b", "c"]);
    assert!(frames.trailers.is_empty(), "the stream has not ended");
}

async fn preflight(t: &TestServer, origin: &str) -> reqwest::Response {
    let url = format!("http://{}/crdstore.v1.CustomResources/Get", t.server().grpc_addr);
    let request = reqwest::Client::new().request(reqwest::Method::OPTIONS, url).header("origin", origin);
    let request = request
        .header("access-control-request-method", "POST")
        .header("access-control-request-headers", "content-type,x-grpc-web,x-user-agent");
    request.send().await.unwrap()
}

#[tokio::test]
async fn cors_preflights_are_answered_for_allowed_origins_only() {
    let t = start_with_widgets(GROUP, &["http://app.example", "http://other.example"]).await;
    let allowed = preflight(&t, "http://app.example").await;
    assert_eq!(allowed.status(), StatusCode::OK);
    let headers = allowed.headers();
    assert_eq!(headers["access-control-allow-origin"], "http://app.example");
    assert!(headers["access-control-allow-methods"].to_str().unwrap().contains("POST"));
    assert!(headers["access-control-allow-headers"].to_str().unwrap().contains("x-grpc-web"));
    assert!(headers.contains_key("access-control-max-age"));

    let refused = preflight(&t, "http://evil.example").await;
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    assert!(!refused.headers().contains_key("access-control-allow-origin"));

    // The call itself from an allowed origin can read the status; from
    // another it is refused before any service runs.
    let url = format!("http://{}/crdstore.v1.CustomResourceDefinitions/Get", t.server().grpc_addr);
    let get = frame(&pb::GetDefinitionRequest { name: format!("widgets.{GROUP}") });
    let send = |origin: &'static str| {
        let request = reqwest::Client::new().post(&url).header("content-type", BINARY).header("origin", origin);
        request.body(get.clone()).send()
    };
    let answered = send("http://other.example").await.unwrap();
    assert_eq!(answered.status(), StatusCode::OK);
    assert_eq!(answered.headers()["access-control-allow-origin"], "http://other.example");
    assert!(answered.headers()["access-control-expose-headers"].to_str().unwrap().contains("grpc-status"));
    assert_eq!(send("http://evil.example").await.unwrap().status(), StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn without_allowed_origins_no_cors_header_is_sent() {
    let t = start_with_widgets(GROUP, &[]).await;
    let response = preflight(&t, "http://app.example").await;
    assert!(!response.status().is_success());
    assert!(!response.headers().contains_key("access-control-allow-origin"));
    // A gRPC-Web call with an Origin is still served: the browser, not the
    // server, keeps another origin's page from reading it.
    let url = format!("http://{}/crdstore.v1.CustomResourceDefinitions/Get", t.server().grpc_addr);
    let get = frame(&pb::GetDefinitionRequest { name: format!("widgets.{GROUP}") });
    let request =
        reqwest::Client::new().post(url).header("content-type", BINARY).header("origin", "http://app.example");
    let response = request.body(get).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert!(!response.headers().contains_key("access-control-allow-origin"));
}

//! What the integration tests share: a real server in-process on loopback
//! ports, gRPC clients to it, and a builder for definition fixtures.

use std::time::Duration;

use crdstore::pb::v1 as pb;
use crdstore::pb::v1::custom_resource_definitions_client::CustomResourceDefinitionsClient;
use crdstore::server::{Config, Server};
use serde_json::{json, Value};
use tonic::transport::Channel;

/// A server on 127.0.0.1:0 over a temporary data directory.
pub struct TestServer {
    pub server: Option<Server>,
    pub dir: tempfile::TempDir,
}

impl TestServer {
    pub async fn start() -> Self {
        Self::start_with(|_| {}).await
    }

    pub async fn start_with(adjust: impl FnOnce(&mut Config)) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let mut config = Config::ephemeral(dir.path().to_path_buf());
        adjust(&mut config);
        let server = Server::start(config).await.unwrap();
        Self { server: Some(server), dir }
    }

    pub fn server(&self) -> &Server {
        self.server.as_ref().unwrap()
    }

    /// The gRPC clients of this server.
    pub fn grpc(&self) -> Grpc {
        Grpc::at(self.server().grpc_addr)
    }

    pub async fn definitions(&self) -> Client {
        self.grpc().definitions().await
    }

    pub async fn channel(&self) -> Channel {
        self.grpc().channel().await
    }

    /// Stops the server and starts a new one on the same data.
    pub async fn restart(&mut self) {
        self.server.take().unwrap().shutdown().await.unwrap();
        let config = Config::ephemeral(self.dir.path().to_path_buf());
        self.server = Some(Server::start(config).await.unwrap());
    }
}

/// A definition fixture: `Crd::new("example.com", "CronTab")` gives a valid
/// namespaced definition with one served storage version `v1`.
#[derive(Clone)]
pub struct Crd {
    pub value: Value,
}

impl Crd {
    pub fn new(group: &str, kind: &str) -> Self {
        let plural = format!("{}s", kind.to_lowercase());
        Self {
            value: json!({
                "apiVersion": "apiextensions.k8s.io/v1",
                "kind": "CustomResourceDefinition",
                "metadata": {"name": format!("{plural}.{group}")},
                "spec": {
                    "group": group,
                    "scope": "Namespaced",
                    "names": {"plural": plural, "kind": kind},
                    "versions": [version("v1", true)],
                }
            }),
        }
    }

    pub fn name(&self) -> String {
        self.value["metadata"]["name"].as_str().unwrap().to_string()
    }

    pub fn short_names(mut self, names: &[&str]) -> Self {
        self.value["spec"]["names"]["shortNames"] = json!(names);
        self
    }

    pub fn singular(mut self, singular: &str) -> Self {
        self.value["spec"]["names"]["singular"] = json!(singular);
        self
    }

    pub fn plural(mut self, plural: &str) -> Self {
        let group = self.value["spec"]["group"].as_str().unwrap().to_string();
        self.value["spec"]["names"]["plural"] = json!(plural);
        self.value["metadata"]["name"] = json!(format!("{plural}.{group}"));
        self
    }

    pub fn versions(mut self, versions: Vec<Value>) -> Self {
        self.value["spec"]["versions"] = Value::Array(versions);
        self
    }

    /// Sets the value at a JSON pointer, creating objects on the way.
    pub fn set(mut self, pointer: &str, v: Value) -> Self {
        let mut at = &mut self.value;
        for part in pointer.trim_start_matches('/').split('/') {
            at = match at {
                Value::Array(items) => &mut items[part.parse::<usize>().unwrap()],
                other => other.as_object_mut().unwrap().entry(part).or_insert(Value::Null),
            };
            if at.is_null() {
                *at = json!({});
            }
        }
        *at = v;
        self
    }

    pub fn bytes(&self) -> Vec<u8> {
        serde_json::to_vec(&self.value).unwrap()
    }
}

/// A served version with an object schema; `storage` marks the storage one.
pub fn version(name: &str, storage: bool) -> Value {
    json!({
        "name": name,
        "served": true,
        "storage": storage,
        "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
    })
}

pub fn parse(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).unwrap()
}

pub async fn create(client: &mut CustomResourceDefinitionsClient<Channel>, crd: &Crd) -> Value {
    let req = pb::CreateDefinitionRequest { definition: crd.bytes(), options: None };
    parse(&client.create(req).await.unwrap().into_inner().definition)
}

/// Replaces a definition; the error as the server gave it.
pub async fn update(
    client: &mut CustomResourceDefinitionsClient<Channel>,
    body: &Value,
) -> Result<Value, tonic::Status> {
    let req = pb::UpdateDefinitionRequest { definition: serde_json::to_vec(body).unwrap(), options: None };
    client.update(req).await.map(|r| parse(&r.into_inner().definition))
}

pub async fn get(client: &mut CustomResourceDefinitionsClient<Channel>, name: &str) -> Value {
    parse(&client.get(pb::GetDefinitionRequest { name: name.into() }).await.unwrap().into_inner().definition)
}

/// The condition of type `kind` of a definition.
pub fn condition<'a>(crd: &'a Value, kind: &str) -> &'a Value {
    crd["status"]["conditions"].as_array().and_then(|cs| cs.iter().find(|c| c["type"] == kind)).unwrap_or(&Value::Null)
}

/// The field paths of an error's BadRequest details.
pub fn violations(status: &tonic::Status) -> Vec<String> {
    use tonic_types::StatusExt;
    status
        .get_error_details()
        .bad_request()
        .map(|b| b.field_violations.iter().map(|v| v.field.clone()).collect())
        .unwrap_or_default()
}

/// The Kubernetes reason in an error's ErrorInfo.
pub fn reason(status: &tonic::Status) -> String {
    use tonic_types::StatusExt;
    status.get_error_details().error_info().map(|i| i.reason.clone()).unwrap_or_default()
}

pub const WAIT: Duration = Duration::from_secs(10);

/// The definitions client type.
pub type Client = crdstore::pb::v1::custom_resource_definitions_client::CustomResourceDefinitionsClient<Channel>;

/// The custom resources client type.
pub type Resources = crdstore::pb::v1::custom_resources_client::CustomResourcesClient<Channel>;

impl TestServer {
    pub async fn resources(&self) -> Resources {
        self.grpc().resources().await
    }
}

/// The one gRPC client set of the suite: a client of each of crdstore's
/// services at one address (a test server's, or a process's the test
/// started).
pub struct Grpc {
    endpoint: String,
    /// The HTTP/2 receive windows of its connections, when not the client's.
    window: Option<u32>,
}

impl Grpc {
    /// The services at `grpc_addr` (`127.0.0.1:port`, or a whole
    /// `http://` endpoint).
    pub fn at(grpc_addr: impl std::fmt::Display) -> Self {
        let addr = grpc_addr.to_string();
        let endpoint = if addr.starts_with("http://") { addr } else { format!("http://{addr}") };
        Self { endpoint, window: None }
    }

    /// The same services over connections whose stream and connection
    /// receive windows are `bytes` (a client that reads nothing then takes
    /// in no more than that).
    pub fn with_window(mut self, bytes: u32) -> Self {
        self.window = Some(bytes);
        self
    }

    pub async fn channel(&self) -> Channel {
        let endpoint = Channel::from_shared(self.endpoint.clone()).unwrap();
        let endpoint = match self.window {
            Some(bytes) => endpoint.initial_stream_window_size(bytes).initial_connection_window_size(bytes),
            None => endpoint,
        };
        endpoint.connect().await.unwrap()
    }

    pub async fn definitions(&self) -> Client {
        CustomResourceDefinitionsClient::new(self.channel().await)
    }

    pub async fn resources(&self) -> Resources {
        Resources::new(self.channel().await)
    }

    pub async fn migrations(&self) -> pb::storage_version_migrations_client::StorageVersionMigrationsClient<Channel> {
        pb::storage_version_migrations_client::StorageVersionMigrationsClient::new(self.channel().await)
    }

    pub async fn maintenance(&self) -> pb::maintenance_client::MaintenanceClient<Channel> {
        pb::maintenance_client::MaintenanceClient::new(self.channel().await)
    }
}

/// A reference to `widgets` in `example.com` at `v1`.
pub fn widgets(namespace: &str, name: &str) -> pb::ResourceRef {
    pb::ResourceRef {
        group: "example.com".into(),
        version: "v1".into(),
        resource: "widgets".into(),
        namespace: namespace.into(),
        name: name.into(),
    }
}

/// A Widget object.
pub fn widget(name: &str, spec: Value) -> Value {
    json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": name}, "spec": spec})
}

/// Registers the Widget definition (namespaced; v1 storage, v2 served).
pub async fn register_widgets(t: &TestServer) {
    let mut c = t.definitions().await;
    let crd = Crd::new("example.com", "Widget").versions(vec![version("v1", true), version("v2", false)]);
    create(&mut c, &crd).await;
}

pub async fn create_widget(r: &mut Resources, namespace: &str, obj: &Value) -> Result<Value, tonic::Status> {
    let req = pb::CreateResourceRequest {
        r#ref: Some(widgets(namespace, "")),
        object: serde_json::to_vec(obj).unwrap(),
        options: None,
    };
    r.create(req).await.map(|x| parse(&x.into_inner().object))
}

pub async fn get_widget(r: &mut Resources, namespace: &str, name: &str) -> Result<Value, tonic::Status> {
    r.get(pb::GetResourceRequest { r#ref: Some(widgets(namespace, name)), resource_version: String::new() })
        .await
        .map(|x| parse(&x.into_inner().object))
}

pub async fn update_widget(r: &mut Resources, namespace: &str, obj: &Value) -> Result<Value, tonic::Status> {
    let name = obj["metadata"]["name"].as_str().unwrap();
    let req = pb::UpdateResourceRequest {
        r#ref: Some(widgets(namespace, name)),
        object: serde_json::to_vec(obj).unwrap(),
        options: None,
    };
    r.update(req).await.map(|x| parse(&x.into_inner().object))
}

pub async fn patch_widget(
    r: &mut Resources,
    namespace: &str,
    name: &str,
    kind: pb::PatchType,
    patch: &str,
) -> Result<Value, tonic::Status> {
    let req = pb::PatchResourceRequest {
        r#ref: Some(widgets(namespace, name)),
        patch_type: kind as i32,
        patch: patch.as_bytes().to_vec(),
        ..Default::default()
    };
    r.patch(req).await.map(|x| parse(&x.into_inner().object))
}

pub async fn delete_widget(
    r: &mut Resources,
    namespace: &str,
    name: &str,
) -> Result<pb::DeleteResourceResponse, tonic::Status> {
    r.delete(pb::DeleteResourceRequest { r#ref: Some(widgets(namespace, name)), options: None })
        .await
        .map(|x| x.into_inner())
}

/// The one HTTP client of the suite: a test server's gateway, JSON in and
/// out, and the raw request and answer for anything else. A module adds its
/// own helpers in an `impl Http` of its own, under names no other module
/// uses.
pub struct Http {
    pub base: String,
    pub client: reqwest::Client,
}

impl Http {
    pub fn new(t: &TestServer) -> Self {
        Self::at(t.server().http_addr)
    }

    /// A client of the gateway at `http_addr`.
    pub fn at(http_addr: impl std::fmt::Display) -> Self {
        Self { base: format!("http://{http_addr}"), client: reqwest::Client::new() }
    }

    /// A request of `path`, for headers of the test's own.
    pub fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.client.request(method, format!("{}{path}", self.base))
    }

    /// Sends a request with `body` (its content type and bytes), accepting
    /// `accept`; answers the status, the headers and the body's bytes.
    pub async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<(&str, Vec<u8>)>,
        accept: &str,
    ) -> (reqwest::StatusCode, reqwest::header::HeaderMap, Vec<u8>) {
        let mut request = self.request(method, path).header(reqwest::header::ACCEPT, accept);
        if let Some((content_type, bytes)) = body {
            request = request.header(reqwest::header::CONTENT_TYPE, content_type).body(bytes);
        }
        let response = request.send().await.unwrap();
        let (status, headers) = (response.status(), response.headers().clone());
        (status, headers, response.bytes().await.unwrap().to_vec())
    }

    /// Sends `body` as `content_type`, accepting JSON; answers the status and
    /// the body (null when it is not JSON).
    pub async fn body(
        &self,
        method: reqwest::Method,
        path: &str,
        content_type: &str,
        body: Option<Value>,
    ) -> (reqwest::StatusCode, Value) {
        let body = body.map(|b| (content_type, serde_json::to_vec(&b).unwrap()));
        let (status, _, bytes) = self.send(method, path, body, "application/json").await;
        (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
    }

    /// `body` with a JSON body.
    pub async fn json(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> (reqwest::StatusCode, Value) {
        self.body(method, path, "application/json", body).await
    }

    pub async fn get(&self, path: &str) -> (reqwest::StatusCode, Value) {
        self.json(reqwest::Method::GET, path, None).await
    }

    pub async fn post(&self, path: &str, body: Value) -> (reqwest::StatusCode, Value) {
        self.json(reqwest::Method::POST, path, Some(body)).await
    }

    pub async fn delete(&self, path: &str) -> (reqwest::StatusCode, Value) {
        self.json(reqwest::Method::DELETE, path, None).await
    }

    /// A PATCH of `path` with `patch` as `content_type`.
    pub async fn patch(&self, path: &str, content_type: &str, patch: Value) -> (reqwest::StatusCode, Value) {
        self.body(reqwest::Method::PATCH, path, content_type, Some(patch)).await
    }
}

/// `crdstore serve` as a process of its own (the real binary), on loopback
/// ports it picks, over `dir`; killed when dropped.
pub struct Process {
    pub child: std::process::Child,
    pub grpc_addr: String,
    pub http_addr: String,
}

impl Process {
    /// Starts the binary with `args` added to `serve`'s, and waits for the
    /// line it prints once listening.
    pub fn spawn(dir: &std::path::Path, args: &[&str]) -> Self {
        use std::io::BufRead;
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_crdstore"))
            .args(["serve", "--data-dir"])
            .arg(dir)
            .args(["--grpc-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0"])
            .args(args)
            .env("RUST_LOG", "warn")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start crdstore");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let addr = |name: &str| {
            line.split_whitespace().find_map(|w| w.strip_prefix(name)).expect("the listening line").to_string()
        };
        let (grpc_addr, http_addr) = (addr("grpc="), addr("http="));
        Self { child, grpc_addr, http_addr }
    }

    /// The process's resident memory, in bytes.
    pub fn rss(&self) -> u64 {
        rss_of(self.child.id())
    }
}

/// The resident memory (`VmRSS`) of process `pid`, in bytes.
pub fn rss_of(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).expect("VmRSS");
    line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() * 1024
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

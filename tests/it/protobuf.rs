//! Kubernetes' protobuf encoding over HTTP, as client-go's clientsets speak
//! it: definitions and the built-in kinds (Namespace, Lease, both Events)
//! written, read, listed, watched and deleted with
//! hand-built protobuf bodies (k8s-pb's prost types in the `k8s\0`
//! envelope), errors as protobuf Statuses, and custom resources answered as
//! Kubernetes answers them (JSON when protobuf is only preferred, 415 for a
//! protobuf body).

use std::time::Duration;

use k8s_pb::apiextensions_apiserver::pkg::apis::apiextensions::v1 as ext;
use k8s_pb::apimachinery::pkg::apis::meta::v1 as meta;
use k8s_pb::apimachinery::pkg::runtime as rt;
use prost::Message;
use reqwest::header::{ACCEPT, CONTENT_TYPE};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::support::{Crd, Http, TestServer};

const PROTOBUF: &str = "application/vnd.kubernetes.protobuf";
/// What client-go's generated clientsets send as `Accept`.
const CLIENTSET_ACCEPT: &str = "application/vnd.kubernetes.protobuf,application/json";
const DEFINITIONS: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

/// The `k8s\0` magic and a `runtime.Unknown` around `message`.
fn envelope(api_version: &str, kind: &str, message: &impl Message) -> Vec<u8> {
    let unknown = rt::Unknown {
        type_meta: Some(rt::TypeMeta { api_version: Some(api_version.into()), kind: Some(kind.into()) }),
        raw: Some(message.encode_to_vec()),
        content_encoding: Some(String::new()),
        content_type: Some(String::new()),
    };
    let mut out = b"k8s\0".to_vec();
    out.extend(unknown.encode_to_vec());
    out
}

/// The kind in an envelope and the message inside it.
fn open<M: Message + Default>(body: &[u8]) -> (String, M) {
    let data = body.strip_prefix(b"k8s\0").unwrap_or_else(|| panic!("no magic: {:?}", String::from_utf8_lossy(body)));
    let unknown = rt::Unknown::decode(data).unwrap();
    let kind = unknown.type_meta.unwrap().kind.unwrap();
    (kind, M::decode(unknown.raw.unwrap().as_slice()).unwrap())
}

impl Http {
    fn accepting(&self, method: Method, path: &str, accept: &str) -> reqwest::RequestBuilder {
        self.client.request(method, format!("{}{path}", self.base)).header(ACCEPT, accept)
    }

    async fn fetch(&self, request: reqwest::RequestBuilder) -> (StatusCode, String, Vec<u8>) {
        let response = request.send().await.unwrap();
        let status = response.status();
        let content_type = response.headers().get(CONTENT_TYPE).map(|v| v.to_str().unwrap().to_string());
        (status, content_type.unwrap_or_default(), response.bytes().await.unwrap().to_vec())
    }

    /// Sends a protobuf body (or none) as a clientset does.
    async fn proto(&self, method: Method, path: &str, body: Option<Vec<u8>>) -> (StatusCode, String, Vec<u8>) {
        let mut request = self.accepting(method, path, CLIENTSET_ACCEPT);
        if let Some(body) = body {
            request = request.header(CONTENT_TYPE, PROTOBUF).body(body);
        }
        self.fetch(request).await
    }
}

/// A namespaced `Gadget` definition as a clientset would build it.
fn gadgets() -> ext::CustomResourceDefinition {
    let schema = ext::JsonSchemaProps {
        r#type: Some("object".into()),
        properties: [(
            "spec".to_string(),
            ext::JsonSchemaProps {
                r#type: Some("object".into()),
                properties: [(
                    "size".to_string(),
                    ext::JsonSchemaProps {
                        r#type: Some("integer".into()),
                        maximum: Some(10.0),
                        default: Some(ext::Json { raw: Some(b"3".to_vec()) }),
                        ..Default::default()
                    },
                )]
                .into(),
                ..Default::default()
            },
        )]
        .into(),
        ..Default::default()
    };
    ext::CustomResourceDefinition {
        metadata: Some(meta::ObjectMeta { name: Some("gadgets.example.com".into()), ..Default::default() }),
        spec: Some(ext::CustomResourceDefinitionSpec {
            group: Some("example.com".into()),
            names: Some(ext::CustomResourceDefinitionNames {
                plural: Some("gadgets".into()),
                kind: Some("Gadget".into()),
                ..Default::default()
            }),
            scope: Some("Namespaced".into()),
            versions: vec![ext::CustomResourceDefinitionVersion {
                name: Some("v1".into()),
                served: Some(true),
                storage: Some(true),
                schema: Some(ext::CustomResourceValidation { open_apiv3_schema: Some(schema) }),
                subresources: Some(ext::CustomResourceSubresources {
                    status: Some(ext::CustomResourceSubresourceStatus {}),
                    scale: None,
                }),
                ..Default::default()
            }],
            ..Default::default()
        }),
        status: None,
    }
}

fn crd_body(crd: &ext::CustomResourceDefinition) -> Vec<u8> {
    envelope("apiextensions.k8s.io/v1", "CustomResourceDefinition", crd)
}

#[tokio::test]
async fn definitions_are_written_and_read_in_protobuf() {
    let t = TestServer::start().await;
    let http = Http::new(&t);

    let (status, content_type, body) = http.proto(Method::POST, DEFINITIONS, Some(crd_body(&gadgets()))).await;
    assert_eq!(status, StatusCode::CREATED, "{}", String::from_utf8_lossy(&body));
    assert_eq!(content_type, PROTOBUF);
    let (kind, created): (_, ext::CustomResourceDefinition) = open(&body);
    assert_eq!(kind, "CustomResourceDefinition");
    let metadata = created.metadata.clone().unwrap();
    assert_eq!(metadata.name.as_deref(), Some("gadgets.example.com"));
    assert!(metadata.uid.is_some() && metadata.creation_timestamp.is_some());
    let version = &created.spec.as_ref().unwrap().versions[0];
    let spec_schema = &version.schema.as_ref().unwrap().open_apiv3_schema.as_ref().unwrap().properties["spec"];
    assert_eq!(spec_schema.properties["size"].default.as_ref().unwrap().raw.as_deref(), Some(&b"3"[..]));
    assert_eq!(spec_schema.properties["size"].maximum, Some(10.0));

    // The same object in JSON, as the domain stored it.
    let (_, stored) = http.json(Method::GET, &format!("{DEFINITIONS}/gadgets.example.com"), None).await;
    assert_eq!(
        stored["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["size"],
        json!({"type": "integer", "maximum": 10, "default": 3})
    );
    assert_eq!(stored["spec"]["versions"][0]["subresources"], json!({"status": {}}));

    // Get and list in protobuf.
    let (status, content_type, body) =
        http.proto(Method::GET, &format!("{DEFINITIONS}/gadgets.example.com"), None).await;
    assert_eq!((status, content_type.as_str()), (StatusCode::OK, PROTOBUF));
    let (_, got): (_, ext::CustomResourceDefinition) = open(&body);
    assert_eq!(got.metadata.as_ref().unwrap().uid, metadata.uid);
    let (status, _, body) = http.proto(Method::GET, DEFINITIONS, None).await;
    assert_eq!(status, StatusCode::OK);
    let (kind, list): (_, ext::CustomResourceDefinitionList) = open(&body);
    assert_eq!(kind, "CustomResourceDefinitionList");
    assert_eq!(list.items.len(), 1);
    assert!(list.metadata.unwrap().resource_version.is_some());

    // An update with a protobuf body, from what was read.
    let mut changed = got.clone();
    changed.metadata.as_mut().unwrap().labels.insert("team".into(), "blue".into());
    let path = format!("{DEFINITIONS}/gadgets.example.com");
    let (status, _, body) = http.proto(Method::PUT, &path, Some(crd_body(&changed))).await;
    assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
    let (_, updated): (_, ext::CustomResourceDefinition) = open(&body);
    assert_eq!(updated.metadata.unwrap().labels["team"], "blue");

    // A delete whose protobuf DeleteOptions carry a failing precondition is
    // a Conflict Status in protobuf; with the right uid it goes through.
    let options = |uid: &str| meta::DeleteOptions {
        preconditions: Some(meta::Preconditions { uid: Some(uid.into()), resource_version: None }),
        ..Default::default()
    };
    let wrong = envelope("meta.k8s.io/v1", "DeleteOptions", &options("not-the-uid"));
    let (status, content_type, body) = http.proto(Method::DELETE, &path, Some(wrong)).await;
    assert_eq!((status, content_type.as_str()), (StatusCode::CONFLICT, PROTOBUF));
    let (kind, failure): (_, meta::Status) = open(&body);
    assert_eq!(kind, "Status");
    assert_eq!((failure.reason.as_deref(), failure.code), (Some("Conflict"), Some(409)));
    let right = envelope("meta.k8s.io/v1", "DeleteOptions", &options(metadata.uid.as_deref().unwrap()));
    let (status, _, body) = http.proto(Method::DELETE, &path, Some(right)).await;
    assert!(status.is_success(), "{status}: {}", String::from_utf8_lossy(&body));

    // Still serving, in JSON as ever.
    let (status, _) = http.json(Method::GET, DEFINITIONS, None).await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn errors_are_protobuf_statuses_when_protobuf_was_asked_for() {
    let t = TestServer::start().await;
    let http = Http::new(&t);

    let (status, content_type, body) =
        http.proto(Method::GET, &format!("{DEFINITIONS}/nothing.example.com"), None).await;
    assert_eq!((status, content_type.as_str()), (StatusCode::NOT_FOUND, PROTOBUF));
    let (_, failure): (_, meta::Status) = open(&body);
    assert_eq!((failure.status.as_deref(), failure.reason.as_deref()), (Some("Failure"), Some("NotFound")));
    assert_eq!(failure.code, Some(404));

    // An invalid definition: 422 with the field of each cause.
    let mut invalid = gadgets();
    invalid.spec.as_mut().unwrap().scope = Some("Everywhere".into());
    let (status, _, body) = http.proto(Method::POST, DEFINITIONS, Some(crd_body(&invalid))).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    let (_, failure): (_, meta::Status) = open(&body);
    assert_eq!(failure.reason.as_deref(), Some("Invalid"));
    let causes = failure.details.unwrap().causes;
    assert!(causes.iter().any(|c| c.field.as_deref() == Some("spec.scope")), "{causes:?}");

    // A body that is not protobuf under the protobuf media type.
    let (status, _, body) = http.proto(Method::POST, DEFINITIONS, Some(b"{}".to_vec())).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (_, failure): (_, meta::Status) = open(&body);
    assert!(failure.message.unwrap().contains("does not appear to be a protobuf message"));

    // A body in a media type definitions do not take: the 415 lists protobuf.
    let yaml_ish =
        http.accepting(Method::POST, DEFINITIONS, CLIENTSET_ACCEPT).header(CONTENT_TYPE, "text/plain").body("x");
    let (status, _, body) = http.fetch(yaml_ish).await;
    assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let (_, failure): (_, meta::Status) = open(&body);
    assert_eq!(
        failure.message.as_deref(),
        Some("the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf")
    );

    let (status, _) = http.json(Method::GET, DEFINITIONS, None).await;
    assert_eq!(status, StatusCode::OK);
}

/// Reads length-prefixed frames until `count` have arrived.
async fn frames(response: &mut reqwest::Response, count: usize) -> Vec<meta::WatchEvent> {
    let mut buffer = Vec::new();
    let mut events = Vec::new();
    while events.len() < count {
        while buffer.len() >= 4 {
            let len = u32::from_be_bytes(buffer[..4].try_into().unwrap()) as usize;
            if buffer.len() < 4 + len {
                break;
            }
            events.push(meta::WatchEvent::decode(&buffer[4..4 + len]).unwrap());
            buffer.drain(..4 + len);
        }
        if events.len() >= count {
            break;
        }
        let chunk = tokio::time::timeout(Duration::from_secs(10), response.chunk()).await.unwrap().unwrap().unwrap();
        buffer.extend_from_slice(&chunk);
    }
    events
}

#[tokio::test]
async fn definitions_are_watched_in_protobuf_frames() {
    let t = TestServer::start().await;
    let http = Http::new(&t);
    let mut response =
        http.accepting(Method::GET, &format!("{DEFINITIONS}?watch=true"), CLIENTSET_ACCEPT).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()[CONTENT_TYPE], "application/vnd.kubernetes.protobuf;stream=watch");

    let crd = Crd::new("example.com", "Widget");
    let (status, _) = http.json(Method::POST, DEFINITIONS, Some(crd.value.clone())).await;
    assert_eq!(status, StatusCode::CREATED);
    let events = frames(&mut response, 1).await;
    assert_eq!(events[0].r#type.as_deref(), Some("ADDED"));
    let raw = events[0].object.as_ref().unwrap().raw.as_ref().unwrap();
    let (kind, added): (_, ext::CustomResourceDefinition) = open(raw);
    assert_eq!(kind, "CustomResourceDefinition");
    assert_eq!(added.metadata.unwrap().name.as_deref(), Some("widgets.example.com"));

    let (status, _) = http.json(Method::GET, DEFINITIONS, None).await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn custom_resources_answer_protobuf_as_kubernetes_does() {
    let t = TestServer::start().await;
    let http = Http::new(&t);
    let (status, _) = http.json(Method::POST, DEFINITIONS, Some(Crd::new("example.com", "Widget").value)).await;
    assert_eq!(status, StatusCode::CREATED);
    let widgets = "/apis/example.com/v1/namespaces/default/widgets";
    let ready = async {
        loop {
            if http.json(Method::GET, widgets, None).await.0 == StatusCode::OK {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(10), ready).await.unwrap();

    // Protobuf only preferred: the answer is JSON.
    let (status, content_type, body) = http.proto(Method::GET, widgets, None).await;
    assert_eq!((status, content_type.as_str()), (StatusCode::OK, "application/json"));
    let list: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(list["kind"], "WidgetList");

    // Protobuf only: 406, as no form the client takes exists.
    // Its Status is protobuf: a Status has a protobuf form.
    let (status, _, body) = http.fetch(http.accepting(Method::GET, widgets, PROTOBUF)).await;
    assert_eq!(status, StatusCode::NOT_ACCEPTABLE);
    let (_, failure): (_, meta::Status) = open(&body);
    assert_eq!(
        failure.message.as_deref(),
        Some("only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf")
    );
    // So is a clientset's error about a custom resource.
    let (status, content_type, body) = http.proto(Method::GET, &format!("{widgets}/missing"), None).await;
    assert_eq!((status, content_type.as_str()), (StatusCode::NOT_FOUND, PROTOBUF));
    let (_, failure): (_, meta::Status) = open(&body);
    assert_eq!(failure.reason.as_deref(), Some("NotFound"));

    // A protobuf body: 415, naming the media types accepted.
    let object = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}});
    let unknown = rt::Unknown { raw: Some(serde_json::to_vec(&object).unwrap()), ..Default::default() };
    let mut body = b"k8s\0".to_vec();
    body.extend(unknown.encode_to_vec());
    let request = http.accepting(Method::POST, widgets, "application/json").header(CONTENT_TYPE, PROTOBUF).body(body);
    let (status, content_type, body) = http.fetch(request).await;
    assert_eq!((status, content_type.as_str()), (StatusCode::UNSUPPORTED_MEDIA_TYPE, "application/json"));
    let failure: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(failure["reason"], "UnsupportedMediaType");
    assert_eq!(
        failure["message"],
        "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml"
    );

    let (status, _) = http.json(Method::GET, widgets, None).await;
    assert_eq!(status, StatusCode::OK);
}

/// A built-in kind's life in protobuf, as a typed clientset lives it:
/// listed, watched from the list's revision, created, read, its creation
/// seen in a watch frame, a missing one a protobuf Status, deleted; every
/// answer protobuf, and the server still answers JSON afterwards.
async fn builtin_in_protobuf<M: Message + Default + PartialEq + std::fmt::Debug, L: Message + Default>(
    collection: &str,
    api_version: &str,
    kind: &str,
    object: M,
    items: fn(&L) -> usize,
) {
    let t = TestServer::start().await;
    let http = Http::new(&t);
    let list_kind = format!("{kind}List");

    let (status, content_type, body) = http.proto(Method::GET, collection, None).await;
    assert_eq!((status, content_type.as_str()), (StatusCode::OK, PROTOBUF), "{}", String::from_utf8_lossy(&body));
    let (got, list): (_, L) = open(&body);
    assert_eq!(got, list_kind);
    let before = items(&list);
    let mut watch =
        http.accepting(Method::GET, &format!("{collection}?watch=true"), CLIENTSET_ACCEPT).send().await.unwrap();
    assert_eq!(watch.status(), StatusCode::OK);
    assert_eq!(watch.headers()[CONTENT_TYPE], "application/vnd.kubernetes.protobuf;stream=watch");
    let initial = frames(&mut watch, before).await;
    assert!(initial.iter().all(|e| e.r#type.as_deref() == Some("ADDED")));

    let (status, content_type, body) =
        http.proto(Method::POST, collection, Some(envelope(api_version, kind, &object))).await;
    assert_eq!((status, content_type.as_str()), (StatusCode::CREATED, PROTOBUF), "{}", String::from_utf8_lossy(&body));
    let (got, created): (_, M) = open(&body);
    assert_eq!(got, kind);
    assert!(created.encoded_len() > object.encoded_len(), "the server adds uid, resourceVersion, ...");

    let name = "pb";
    let (status, content_type, body) = http.proto(Method::GET, &format!("{collection}/{name}"), None).await;
    assert_eq!((status, content_type.as_str()), (StatusCode::OK, PROTOBUF));
    let (got, read): (_, M) = open(&body);
    assert_eq!(got, kind);
    assert_eq!(read, created);

    let (status, content_type, body) = http.proto(Method::GET, collection, None).await;
    assert_eq!((status, content_type.as_str()), (StatusCode::OK, PROTOBUF));
    let (got, list): (_, L) = open(&body);
    assert_eq!((got, items(&list)), (list_kind, before + 1));

    let events = frames(&mut watch, 1).await;
    assert_eq!(events[0].r#type.as_deref(), Some("ADDED"));
    let (got, added): (_, M) = open(events[0].object.as_ref().unwrap().raw.as_ref().unwrap());
    assert_eq!((got.as_str(), added), (kind, created));

    let (status, content_type, body) = http.proto(Method::GET, &format!("{collection}/missing"), None).await;
    assert_eq!((status, content_type.as_str()), (StatusCode::NOT_FOUND, PROTOBUF));
    let (got, failure): (_, meta::Status) = open(&body);
    assert_eq!((got.as_str(), failure.reason.as_deref(), failure.code), ("Status", Some("NotFound"), Some(404)));

    let (status, content_type, _) = http.proto(Method::DELETE, &format!("{collection}/{name}"), None).await;
    assert_eq!((status, content_type.as_str()), (StatusCode::OK, PROTOBUF));

    let (status, _) = http.json(Method::GET, collection, None).await;
    assert_eq!(status, StatusCode::OK);
}

fn object_meta(namespace: &str) -> Option<meta::ObjectMeta> {
    let namespace = (!namespace.is_empty()).then(|| namespace.to_string());
    Some(meta::ObjectMeta { name: Some("pb".into()), namespace, ..Default::default() })
}

#[tokio::test]
async fn namespaces_are_served_in_protobuf() {
    use k8s_pb::api::core::v1 as core;
    let object = core::Namespace { metadata: object_meta(""), ..Default::default() };
    builtin_in_protobuf::<_, core::NamespaceList>("/api/v1/namespaces", "v1", "Namespace", object, |l| l.items.len())
        .await;
}

#[tokio::test]
async fn leases_are_served_in_protobuf() {
    use k8s_pb::api::coordination::v1 as coordination;
    let object = coordination::Lease {
        metadata: object_meta("default"),
        spec: Some(coordination::LeaseSpec {
            holder_identity: Some("me".into()),
            lease_duration_seconds: Some(15),
            ..Default::default()
        }),
    };
    builtin_in_protobuf::<_, coordination::LeaseList>(
        "/apis/coordination.k8s.io/v1/namespaces/default/leases",
        "coordination.k8s.io/v1",
        "Lease",
        object,
        |l| l.items.len(),
    )
    .await;
}

fn reference() -> Option<k8s_pb::api::core::v1::ObjectReference> {
    Some(k8s_pb::api::core::v1::ObjectReference {
        kind: Some("Pod".into()),
        namespace: Some("default".into()),
        name: Some("p".into()),
        api_version: Some("v1".into()),
        ..Default::default()
    })
}

#[tokio::test]
async fn core_events_are_served_in_protobuf() {
    use k8s_pb::api::core::v1 as core;
    let at = Some(meta::Time { seconds: Some(1_767_225_600), nanos: Some(0) });
    let object = core::Event {
        metadata: object_meta("default"),
        involved_object: reference(),
        reason: Some("Started".into()),
        message: Some("started".into()),
        source: Some(core::EventSource { component: Some("kubelet".into()), host: None }),
        first_timestamp: at,
        last_timestamp: at,
        count: Some(1),
        r#type: Some("Normal".into()),
        ..Default::default()
    };
    builtin_in_protobuf::<_, core::EventList>("/api/v1/namespaces/default/events", "v1", "Event", object, |l| {
        l.items.len()
    })
    .await;
}

#[tokio::test]
async fn events_are_served_in_protobuf() {
    use k8s_pb::api::events::v1 as events;
    let object = events::Event {
        metadata: object_meta("default"),
        event_time: Some(meta::MicroTime { seconds: Some(1_767_225_600), nanos: Some(5_000) }),
        reporting_controller: Some("example.com/controller".into()),
        reporting_instance: Some("controller-1".into()),
        action: Some("Start".into()),
        reason: Some("Started".into()),
        regarding: reference(),
        note: Some("started".into()),
        r#type: Some("Normal".into()),
        ..Default::default()
    };
    builtin_in_protobuf::<_, events::EventList>(
        "/apis/events.k8s.io/v1/namespaces/default/events",
        "events.k8s.io/v1",
        "Event",
        object,
        |l| l.items.len(),
    )
    .await;
}

//! Kubernetes' protobuf encoding (`application/vnd.kubernetes.protobuf`) for
//! the built-in kinds the gateway serves, as client-go's generated clientsets
//! speak it: bodies are the `k8s\0` magic and a `runtime.Unknown` envelope
//! around the object's message (k8s-pb's types), converted to and from the
//! domain's JSON here only (`messages`); watches are length-prefixed
//! `WatchEvent` frames. Custom resources have no protobuf form, as in
//! Kubernetes: they negotiate JSON (`Output::of`), protobuf alone is 406,
//! and a protobuf body is refused with 415 by `codec::json_body`; their
//! errors, Statuses, are protobuf when protobuf comes first in `Accept`.

mod messages;

use axum::body::{Body, Bytes};
use axum::http::header::{HeaderMap, ACCEPT, CONTENT_TYPE, RETRY_AFTER};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use k8s_pb::api::{coordination::v1 as coordination, core::v1 as core, events::v1 as events};
use k8s_pb::apiextensions_apiserver::pkg::apis::apiextensions::v1 as ext;
use k8s_pb::apimachinery::pkg::apis::meta::v1 as meta;
use k8s_pb::apimachinery::pkg::runtime as rt;
use prost::Message;
use serde_json::Value;
use tokio::sync::OwnedSemaphorePermit;

use self::messages::Pb;
use super::codec::{self, Failure, Output, Reply};
use super::status::{http_code, retry_after, status_object};
use crate::apimachinery::options::Written;
use crate::error::{Error, Reason, Result};
use crate::watch::stream::WatchStream;

/// The protobuf media type.
pub const MEDIA_TYPE: &str = "application/vnd.kubernetes.protobuf";

/// The media type of a protobuf watch.
pub const WATCH_MEDIA_TYPE: &str = "application/vnd.kubernetes.protobuf;stream=watch";

/// What starts every protobuf body: `k8s` and a zero byte.
pub const MAGIC: &[u8] = b"k8s\0";

/// Whether the client's `Accept` picks protobuf for a built-in kind: the
/// first media range the gateway can produce is protobuf (without `as=`:
/// Tables and partial metadata have no protobuf form here).
pub fn negotiated(headers: &HeaderMap) -> bool {
    let accept = headers.get(ACCEPT).and_then(|v| v.to_str().ok()).unwrap_or("");
    for media in accept.split(',') {
        let params: Vec<&str> = media.split(';').map(str::trim).collect();
        let as_something = params.iter().any(|p| p.starts_with("as="));
        match params[0].to_ascii_lowercase().as_str() {
            MEDIA_TYPE if !as_something => return true,
            "application/json" | "application/yaml" | "*/*" | "application/*" | "" => return false,
            _ => {}
        }
    }
    false
}

/// The media types of a built-in kind's bodies, as Kubernetes lists them in
/// its 415 and 406 answers (and, for custom resources, in its 406: their
/// serializers include protobuf, which only their Statuses use).
pub const BUILT_IN_MEDIA_TYPES: &[&str] = &["application/json", "application/yaml", MEDIA_TYPE];

/// Kubernetes' 406 for a custom resource asked for in protobuf only: it has
/// no protobuf form, and JSON was not acceptable.
pub fn refuse_protobuf_only(headers: &HeaderMap) -> Result<()> {
    let accept = headers.get(ACCEPT).and_then(|v| v.to_str().ok()).unwrap_or("");
    let media = |range: &str| range.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    if !accept.trim().is_empty() && accept.split(',').all(|range| media(range) == MEDIA_TYPE) {
        return Err(Error::not_acceptable(format!(
            "only the following media types are accepted: {}",
            BUILT_IN_MEDIA_TYPES.join(", ")
        )));
    }
    Ok(())
}

/// Whether a request body is protobuf, by its `Content-Type`.
pub fn is_body(headers: &HeaderMap) -> bool {
    let content_type = headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    content_type.split(';').next().unwrap_or("").trim().eq_ignore_ascii_case(MEDIA_TYPE)
}

/// A body as JSON (`codec::json_body`'s), or, for a built-in kind
/// (`builtin`: one with a protobuf form, whose refusal of another media
/// type names protobuf too), its protobuf message converted.
pub async fn resource_body(headers: &HeaderMap, body: &Bytes, builtin: bool) -> Result<Vec<u8>> {
    if !is_body(headers) {
        return codec::json_body(headers, body).await.map_err(|err| match err.reason {
            Reason::UnsupportedMediaType if builtin => Error::unknown_media_type(BUILT_IN_MEDIA_TYPES),
            _ => err,
        });
    }
    let (type_meta, raw) = unwrap(body)?;
    let named = |t: &rt::TypeMeta| (t.api_version.clone().unwrap_or_default(), t.kind.clone().unwrap_or_default());
    let (api_version, kind) = type_meta.as_ref().map(named).unwrap_or_default();
    let Some(message) = message(&api_version, &kind).filter(|m| is_builtin_object(m)) else {
        return Err(Error::unknown_media_type(codec::BODY_MEDIA_TYPES));
    };
    json_with_type(type_meta, (message.decode)(&raw).map_err(decode_error)?)
}

/// A DeleteOptions body as JSON: empty when there is none, converted from
/// protobuf, else `codec::json_body`'s.
pub async fn delete_body(headers: &HeaderMap, body: &Bytes) -> Result<Vec<u8>> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Vec::new());
    }
    if !is_body(headers) {
        return codec::json_body(headers, body).await;
    }
    let (type_meta, raw) = unwrap(body)?;
    let message = meta::DeleteOptions::decode(raw.as_slice()).map_err(decode_error)?;
    json_with_type(type_meta, message.to_json())
}

fn decode_error(err: prost::DecodeError) -> Error {
    Error::bad_request(format!("the protobuf body could not be decoded: {err}"))
}

/// The envelope's type and the message inside it, refused as Kubernetes'
/// protobuf serializer refuses a body without the magic.
fn unwrap(body: &[u8]) -> Result<(Option<rt::TypeMeta>, Vec<u8>)> {
    let Some(data) = body.strip_prefix(MAGIC) else {
        return Err(Error::bad_request(format!(
            "provided data does not appear to be a protobuf message, expected prefix {:?}",
            MAGIC
        )));
    };
    if data.is_empty() {
        return Err(Error::bad_request("empty body"));
    }
    let unknown = rt::Unknown::decode(data).map_err(decode_error)?;
    Ok((unknown.type_meta, unknown.raw.unwrap_or_default()))
}

/// The object's JSON with `apiVersion` and `kind` from the envelope first.
fn json_with_type(type_meta: Option<rt::TypeMeta>, object: Value) -> Result<Vec<u8>> {
    let mut out = serde_json::Map::new();
    if let Some(type_meta) = type_meta {
        for (key, value) in [("apiVersion", type_meta.api_version), ("kind", type_meta.kind)] {
            if let Some(value) = value.filter(|v| !v.is_empty()) {
                out.insert(key.into(), Value::String(value));
            }
        }
    }
    if let Value::Object(fields) = object {
        out.extend(fields);
    }
    Ok(serde_json::to_vec(&Value::Object(out)).expect("JSON values serialize"))
}

/// A kind with a protobuf form: its k8s-pb message, converted to and from
/// the domain's JSON by `messages`.
pub struct Kind {
    pub api_version: &'static str,
    pub kind: &'static str,
    encode: fn(&Value) -> std::result::Result<Vec<u8>, String>,
    decode: fn(&[u8]) -> std::result::Result<Value, prost::DecodeError>,
}

fn encode_as<M: Pb + Message>(value: &Value) -> std::result::Result<Vec<u8>, String> {
    M::from_json(value).map(|m| m.encode_to_vec())
}

fn decode_as<M: Pb + Message + Default>(raw: &[u8]) -> std::result::Result<Value, prost::DecodeError> {
    M::decode(raw).map(|m| m.to_json())
}

macro_rules! kinds {
    ($($api_version:literal $kind:literal => $ty:ty),* $(,)?) => {
        &[$(Kind { api_version: $api_version, kind: $kind, encode: encode_as::<$ty>, decode: decode_as::<$ty> }),*]
    };
}

/// Every kind served in protobuf, by `apiVersion` and `kind`: definitions,
/// the built-in kinds (`crate::builtin`), their lists, and Status.
const KINDS: &[Kind] = kinds![
    "apiextensions.k8s.io/v1" "CustomResourceDefinition" => ext::CustomResourceDefinition,
    "apiextensions.k8s.io/v1" "CustomResourceDefinitionList" => ext::CustomResourceDefinitionList,
    "v1" "Namespace" => core::Namespace,
    "v1" "NamespaceList" => core::NamespaceList,
    "v1" "Event" => core::Event,
    "v1" "EventList" => core::EventList,
    "coordination.k8s.io/v1" "Lease" => coordination::Lease,
    "coordination.k8s.io/v1" "LeaseList" => coordination::LeaseList,
    "events.k8s.io/v1" "Event" => events::Event,
    "events.k8s.io/v1" "EventList" => events::EventList,
    "v1" "Status" => meta::Status,
];

/// Whether `kind` is a built-in kind's object (not a list, a Status or a
/// definition): what a custom resource's endpoint takes in protobuf.
fn is_builtin_object(kind: &Kind) -> bool {
    !kind.kind.ends_with("List") && kind.kind != "Status"
}

/// Whether objects of `kind` at `api_version` are answered in protobuf when
/// the client prefers it: the built-in kinds; custom resources have no
/// protobuf form.
pub fn serves(api_version: &str, kind: &str) -> bool {
    message(api_version, kind).is_some_and(is_builtin_object)
}

/// The protobuf form of `kind` at `api_version`, if it has one.
pub fn message(api_version: &str, kind: &str) -> Option<&'static Kind> {
    KINDS.iter().find(|k| k.api_version == api_version && k.kind == kind)
}

/// The protobuf encoding of a JSON object of a kind that has one (`KINDS`):
/// the magic and the envelope. `None` for any other kind.
pub fn encode(value: &Value) -> Option<Vec<u8>> {
    let text = |key: &str| value.get(key).and_then(Value::as_str).unwrap_or_default().to_string();
    let (api_version, kind) = (text("apiVersion"), text("kind"));
    let raw = (message(&api_version, &kind)?.encode)(value).ok()?;
    let unknown = rt::Unknown {
        type_meta: Some(rt::TypeMeta { api_version: Some(api_version), kind: Some(kind) }),
        raw: Some(raw),
        content_encoding: Some(String::new()),
        content_type: Some(String::new()),
    };
    let mut out = Vec::with_capacity(MAGIC.len() + unknown.encoded_len());
    out.extend_from_slice(MAGIC);
    unknown.encode(&mut out).expect("a Vec grows as needed");
    Some(out)
}

/// A response of `value` in protobuf, or in JSON when its kind has no
/// protobuf form (as Kubernetes falls back to the next media type).
pub fn respond(code: StatusCode, value: &Value, warnings: &[String]) -> Response {
    let Some(body) = encode(value) else {
        return codec::respond(code, value, Output::Json, warnings);
    };
    let mut response = (code, [(CONTENT_TYPE, MEDIA_TYPE)], Body::from(body)).into_response();
    codec::add_warnings(response.headers_mut(), warnings);
    response
}

/// A response in protobuf when `protobuf` was negotiated, else in `output`.
pub fn respond_as(protobuf: bool, code: StatusCode, value: &Value, output: Output, warnings: &[String]) -> Response {
    match protobuf {
        true => respond(code, value, warnings),
        false => codec::respond(code, value, output, warnings),
    }
}

/// The response to a write in protobuf when `protobuf` was negotiated,
/// else in `output` (`codec::respond_written`).
pub fn respond_written_as(protobuf: bool, code: StatusCode, written: Written, output: Output) -> Response {
    match protobuf {
        true => respond(code, &written.object, &written.warnings),
        false => codec::respond_written(code, written, output),
    }
}

/// The `Status` of a domain error in protobuf.
pub fn failure(err: &Error) -> Response {
    let mut response = respond(http_code(err.reason), &status_object(err), &[]);
    if let Some(seconds) = retry_after(err) {
        response.headers_mut().insert(RETRY_AFTER, seconds);
    }
    response
}

/// A handler's result with its error in protobuf when protobuf was
/// negotiated.
pub fn reply(protobuf: bool, reply: Reply) -> Reply {
    match reply {
        Err(Failure(err)) if protobuf => Ok(failure(&err)),
        other => other,
    }
}

/// One watch frame: the length (4 bytes, big-endian) and a `WatchEvent`
/// whose object is the enveloped encoding of `object`.
pub fn frame(kind: &str, object: &Value) -> Bytes {
    let event = meta::WatchEvent {
        r#type: Some(kind.to_string()),
        object: Some(rt::RawExtension { raw: Some(encode(object).unwrap_or_default()) }),
    };
    let len = event.encoded_len();
    let mut out = Vec::with_capacity(4 + len);
    out.extend_from_slice(&u32::try_from(len).unwrap_or(u32::MAX).to_be_bytes());
    event.encode(&mut out).expect("a Vec grows as needed");
    Bytes::from(out)
}

/// Events written at once at most, as the JSON watch does.
const CHUNK_EVENTS: usize = 256;

/// A watch of definitions in protobuf frames; an error ends it with an
/// ERROR frame carrying its Status. The stream holds its watch `slot`.
pub fn watch(events: Result<WatchStream>, slot: OwnedSemaphorePermit) -> Response {
    let body = match events {
        Ok(events) => Body::from_stream(events.ready_chunks(CHUNK_EVENTS).scan(false, move |ended, items| {
            let _slot = &slot;
            if *ended {
                return futures::future::ready(None);
            }
            let mut out = Vec::new();
            for item in items {
                match item {
                    Ok(event) => out.extend_from_slice(&frame(event.kind.as_str(), &event.object.value)),
                    Err(err) => {
                        *ended = true;
                        out.extend_from_slice(&frame("ERROR", &status_object(&err)));
                        break;
                    }
                }
            }
            futures::future::ready(Some(Ok::<_, std::convert::Infallible>(Bytes::from(out))))
        })),
        Err(err) if err.reason == Reason::Expired => Body::from(frame("ERROR", &status_object(&err))),
        Err(err) => return failure(&err),
    };
    (StatusCode::OK, [(CONTENT_TYPE, WATCH_MEDIA_TYPE)], body).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn headers(name: axum::http::HeaderName, value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(name, value.parse().unwrap());
        headers
    }

    #[test]
    fn a_custom_resource_asked_for_in_protobuf_only_is_not_acceptable() {
        let accept = |value: &str| refuse_protobuf_only(&headers(ACCEPT, value));
        let err = accept("application/vnd.kubernetes.protobuf").unwrap_err();
        assert_eq!(err.reason, Reason::NotAcceptable);
        assert_eq!(
            err.message,
            "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf"
        );
        assert!(accept("application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io").is_err());
        assert!(accept("application/vnd.kubernetes.protobuf,application/json").is_ok());
        assert!(refuse_protobuf_only(&HeaderMap::new()).is_ok());
    }

    #[test]
    fn protobuf_is_negotiated_only_when_it_comes_first() {
        let accept = |value: &str| negotiated(&headers(ACCEPT, value));
        assert!(accept("application/vnd.kubernetes.protobuf,application/json"));
        assert!(accept("application/vnd.kubernetes.protobuf"));
        assert!(!accept("application/json, application/vnd.kubernetes.protobuf"));
        assert!(!accept("application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json"));
        assert!(!accept("*/*"));
        assert!(!negotiated(&HeaderMap::new()));
    }

    fn definition() -> Value {
        json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com", "labels": {"a": "b"}, "resourceVersion": "7",
                "creationTimestamp": "2026-01-02T03:04:05Z", "finalizers": ["x/y"],
                "managedFields": [{"manager": "m", "operation": "Update", "fieldsType": "FieldsV1",
                    "fieldsV1": {"f:spec": {}}, "time": "2026-01-02T03:04:05Z"}]},
            "spec": {
                "group": "example.com",
                "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList",
                    "shortNames": ["wd"]},
                "scope": "Namespaced",
                "conversion": {"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"],
                    "clientConfig": {"url": "https://x", "caBundle": "Y2E="}}},
                "versions": [{
                    "name": "v1", "served": true, "storage": false,
                    "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.r", "statusReplicasPath": ".status.r"}},
                    "additionalPrinterColumns": [{"name": "R", "type": "integer", "jsonPath": ".spec.r", "priority": 1}],
                    "selectableFields": [{"jsonPath": ".spec.color"}],
                    "schema": {"openAPIV3Schema": {
                        "type": "object",
                        "x-kubernetes-preserve-unknown-fields": true,
                        "properties": {
                            "spec": {"type": "object", "required": ["r"],
                                "x-kubernetes-validations": [{"rule": "self.r < 10", "message": "small"}],
                                "properties": {
                                    "r": {"type": "integer", "default": 1, "maximum": 10, "enum": [1, 2, 3]},
                                    "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
                                    "m": {"type": "object", "additionalProperties": {"type": "number", "minimum": 0.5}},
                                    "f": {"type": "object", "additionalProperties": false},
                                    "$x": {"$ref": "#/y", "dependencies": {"a": ["b"]}},
                                }},
                        }}},
                }],
            },
            "status": {"conditions": [{"type": "Established", "status": "True", "lastTransitionTime": "2026-01-02T03:04:05Z",
                    "reason": "InitialNamesAccepted", "message": "ok"}],
                "acceptedNames": {"plural": "widgets", "kind": "Widget"}, "storedVersions": ["v1"]},
        })
    }

    #[test]
    fn a_definition_survives_the_round_trip_through_protobuf() {
        let object = definition();
        let body = encode(&object).unwrap();
        assert!(body.starts_with(MAGIC));
        let (type_meta, raw) = unwrap(&body).unwrap();
        let decoded = ext::CustomResourceDefinition::decode(raw.as_slice()).unwrap();
        let back: Value = serde_json::from_slice(&json_with_type(type_meta, decoded.to_json()).unwrap()).unwrap();
        assert_eq!(back, object);
    }

    #[test]
    fn zeros_go_writes_for_plain_fields_are_absent_but_pointer_zeros_stay() {
        // What Go writes for a schema with `maximum: 0` and `default: 0`:
        // every plain bool too, false.
        let schema = ext::JsonSchemaProps {
            r#type: Some("integer".into()),
            maximum: Some(0.0),
            exclusive_maximum: Some(false),
            nullable: Some(false),
            description: Some(String::new()),
            default: Some(ext::Json { raw: Some(b"0".to_vec()) }),
            x_kubernetes_preserve_unknown_fields: Some(false),
            ..Default::default()
        };
        assert_eq!(
            schema.to_json(),
            json!({"type": "integer", "maximum": 0, "default": 0, "x-kubernetes-preserve-unknown-fields": false})
        );
        let created = meta::ObjectMeta {
            name: Some("x".into()),
            creation_timestamp: Some(meta::Time { seconds: Some(0), nanos: Some(0) }),
            generation: Some(0),
            ..Default::default()
        };
        assert_eq!(created.to_json(), json!({"name": "x"}));
    }

    #[test]
    fn a_status_is_encoded_with_its_causes() {
        let err = Error::invalid("g", "K", "n", vec![crate::error::FieldError::required("spec.x", "")]);
        let body = encode(&status_object(&err)).unwrap();
        let unknown = rt::Unknown::decode(&body[MAGIC.len()..]).unwrap();
        assert_eq!(unknown.type_meta.unwrap().kind.as_deref(), Some("Status"));
        let status = meta::Status::decode(unknown.raw.unwrap().as_slice()).unwrap();
        assert_eq!(status.code, Some(422));
        assert_eq!(status.details.unwrap().causes[0].field.as_deref(), Some("spec.x"));
    }

    #[test]
    fn a_body_without_the_magic_is_refused() {
        assert!(unwrap(b"{}").unwrap_err().message.contains("does not appear to be a protobuf message"));
        assert_eq!(unwrap(MAGIC).unwrap_err().message, "empty body");
    }

    #[test]
    fn a_watch_frame_is_length_prefixed() {
        let frame = frame("ADDED", &definition());
        let len = u32::from_be_bytes(frame[..4].try_into().unwrap()) as usize;
        assert_eq!(len, frame.len() - 4);
        let event = meta::WatchEvent::decode(&frame[4..]).unwrap();
        assert_eq!(event.r#type.as_deref(), Some("ADDED"));
        assert!(event.object.unwrap().raw.unwrap().starts_with(MAGIC));
    }
}

//! Bodies in and out of the gateway: JSON or YAML requests become the JSON
//! the domain takes; responses are JSON, YAML or a Table as the `Accept`
//! header asks; errors are Kubernetes `Status` objects; warnings are
//! `Warning: 299` headers.

use std::sync::LazyLock;

use axum::body::{Body, Bytes};
use axum::http::header::{HeaderMap, HeaderValue, ACCEPT, CONTENT_TYPE, RETRY_AFTER};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt;
use serde_json::Value;
use tokio::sync::Semaphore;

use super::status::{http_code, retry_after, status_object};
use crate::apimachinery::meta::MAX_BODY_BYTES;
use crate::apimachinery::options::Written;
use crate::error::Error;

/// What a client asked to receive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    Json,
    Yaml,
    /// `application/json;as=Table;v=v1;g=meta.k8s.io` (or `v=v1beta1`): the
    /// Table's `apiVersion`.
    Table(&'static str),
}

impl Output {
    /// From the `Accept` header: the first media type crdstore can produce.
    pub fn of(headers: &HeaderMap) -> Self {
        let accept = headers.get(ACCEPT).and_then(|v| v.to_str().ok()).unwrap_or("");
        for media in accept.split(',') {
            let media = media.trim();
            let params: Vec<&str> = media.split(';').map(str::trim).collect();
            match params[0] {
                "application/json" if params.contains(&"as=Table") && params.contains(&"g=meta.k8s.io") => {
                    if params.contains(&"v=v1") {
                        return Output::Table(TABLE_V1);
                    }
                    if params.contains(&"v=v1beta1") {
                        return Output::Table(TABLE_V1BETA1);
                    }
                }
                "application/json" | "*/*" | "application/*" | "" if !params.iter().any(|p| p.starts_with("as=")) => {
                    return Output::Json;
                }
                "application/yaml" => return Output::Yaml,
                _ => {}
            }
        }
        Output::Json
    }
}

/// The Table versions served, as Kubernetes still serves both.
pub const TABLE_V1: &str = "meta.k8s.io/v1";
pub const TABLE_V1BETA1: &str = "meta.k8s.io/v1beta1";

impl Output {
    /// Whether a Table was asked for.
    pub fn is_table(self) -> bool {
        matches!(self, Output::Table(_))
    }
}

/// The media types a create or update body may have, as Kubernetes lists
/// them in its 415 answer.
pub const BODY_MEDIA_TYPES: &[&str] = &["application/json", "application/yaml"];

/// How deep a YAML body may nest: serde_json's recursion limit, so YAML and
/// JSON bodies nest alike (serde_norway refuses deeper documents too, but
/// only after parsing all of them, at a cost that grows with depth).
pub const MAX_YAML_DEPTH: usize = 128;

/// YAML bodies decoded at once: one fewer than the cores, so decoding never
/// takes every core from the async workers.
static YAML_DECODERS: LazyLock<Semaphore> = LazyLock::new(|| {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    Semaphore::new(cores.saturating_sub(1).max(1))
});

/// A body's media type as Go's `mime.ParseMediaType` reads it (parameters
/// dropped, lower case), or the first accepted type when there is no
/// `Content-Type`, as Kubernetes negotiates input.
fn body_media_type(headers: &HeaderMap) -> Result<String, Error> {
    let Some(value) = headers.get(CONTENT_TYPE) else {
        return Ok(BODY_MEDIA_TYPES[0].to_string());
    };
    let value = value.to_str().map_err(|_| Error::unknown_media_type(BODY_MEDIA_TYPES))?;
    if value.is_empty() {
        return Ok(BODY_MEDIA_TYPES[0].to_string());
    }
    Ok(value.split(';').next().unwrap_or("").trim().to_ascii_lowercase())
}

/// The request body as JSON: YAML (`application/yaml`) is converted off the
/// async workers, JSON passed through for the domain to parse (and check for
/// duplicates); any other media type is refused with 415.
pub async fn json_body(headers: &HeaderMap, body: &Bytes) -> Result<Vec<u8>, Error> {
    match body_media_type(headers)?.as_str() {
        "application/json" => Ok(body.to_vec()),
        "application/yaml" => {
            let _permit =
                YAML_DECODERS.acquire().await.map_err(|_| Error::unavailable("the server is shutting down"))?;
            let body = body.clone();
            tokio::task::spawn_blocking(move || yaml_to_json(&body))
                .await
                .map_err(|e| Error::internal(format!("decoding the YAML body failed: {e}")))?
        }
        _ => Err(Error::unknown_media_type(BODY_MEDIA_TYPES)),
    }
}

/// A YAML document as JSON, refused before serde_norway sees it when it
/// nests deeper than `MAX_YAML_DEPTH`: the event parser stops at the first
/// event past the limit, so a deep body costs no more than a shallow one.
pub fn yaml_to_json(body: &[u8]) -> Result<Vec<u8>, Error> {
    let invalid = |why: String| Error::bad_request(format!("the request body is not valid YAML: {why}"));
    let text = std::str::from_utf8(body).map_err(|e| invalid(e.to_string()))?;
    let mut depth = 0usize;
    let too_deep = |at: &saphyr_parser::Marker| {
        invalid(format!("nesting exceeds {MAX_YAML_DEPTH} levels at line {} column {}", at.line(), at.col() + 1))
    };
    for event in saphyr_parser::Parser::new_from_str(text) {
        // The scanner stops deep flow collections itself.
        let event = event.map_err(|e| match e.info().starts_with("recursion limit") {
            true => too_deep(e.marker()),
            false => invalid(e.to_string()),
        })?;
        match event {
            (saphyr_parser::Event::SequenceStart(..) | saphyr_parser::Event::MappingStart(..), span) => {
                depth += 1;
                if depth > MAX_YAML_DEPTH {
                    return Err(too_deep(&span.start));
                }
            }
            (saphyr_parser::Event::SequenceEnd | saphyr_parser::Event::MappingEnd, _) => depth -= 1,
            _ => {}
        }
    }
    let out = std::cell::RefCell::new(Vec::with_capacity(body.len()));
    serde::de::DeserializeSeed::deserialize(Transcode(&out), serde_norway::Deserializer::from_slice(body))
        .map_err(|e| invalid(e.to_string()))?;
    Ok(out.into_inner())
}

/// A YAML value written out as JSON as it is read, keys in their order and
/// repeated keys kept, so the domain's decoder sees (and reports) the
/// duplicates the YAML had, as Kubernetes' strict YAML decoding does. A
/// value JSON cannot hold (`.inf`, `.nan`) is refused, as Kubernetes'
/// YAML-to-JSON conversion refuses it (`json: unsupported value: +Inf`).
struct Transcode<'o>(&'o std::cell::RefCell<Vec<u8>>);

impl Transcode<'_> {
    fn write<T: serde::Serialize + ?Sized>(&self, value: &T) {
        // Writing a string or number into a Vec cannot fail.
        let _ = serde_json::to_writer(&mut *self.0.borrow_mut(), value);
    }

    fn raw(&self, bytes: &[u8]) {
        self.0.borrow_mut().extend_from_slice(bytes);
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for Transcode<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Transcode<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a value JSON can hold")
    }

    fn visit_bool<E>(self, v: bool) -> Result<(), E> {
        self.write(&v);
        Ok(())
    }

    fn visit_i64<E>(self, v: i64) -> Result<(), E> {
        self.write(&v);
        Ok(())
    }

    fn visit_u64<E>(self, v: u64) -> Result<(), E> {
        self.write(&v);
        Ok(())
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<(), E> {
        match serde_json::Number::from_f64(v) {
            Some(number) => self.write(&number),
            None if v.is_nan() => return Err(E::custom("json: unsupported value: NaN")),
            None if v > 0.0 => return Err(E::custom("json: unsupported value: +Inf")),
            None => return Err(E::custom("json: unsupported value: -Inf")),
        }
        Ok(())
    }

    fn visit_str<E>(self, v: &str) -> Result<(), E> {
        self.write(v);
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        self.raw(b"null");
        Ok(())
    }

    fn visit_none<E>(self) -> Result<(), E> {
        self.raw(b"null");
        Ok(())
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.raw(b"[");
        let mut first = true;
        loop {
            let comma = !std::mem::take(&mut first);
            let at = self.0.borrow().len();
            if comma {
                self.raw(b",");
            }
            if seq.next_element_seed(Transcode(self.0))?.is_none() {
                self.0.borrow_mut().truncate(at);
                break;
            }
        }
        self.raw(b"]");
        Ok(())
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.raw(b"{");
        let mut first = true;
        while let Some(key) = map.next_key::<String>()? {
            if !std::mem::take(&mut first) {
                self.raw(b",");
            }
            self.write(&key);
            self.raw(b":");
            map.next_value_seed(Transcode(self.0))?;
        }
        self.raw(b"}");
        Ok(())
    }
}

/// A response of `value` with `code`, encoded as asked, carrying warnings.
pub fn respond(code: StatusCode, value: &Value, output: Output, warnings: &[String]) -> Response {
    let (content_type, body) = match output {
        Output::Yaml => ("application/yaml", serde_norway::to_string(value).unwrap_or_default().into_bytes()),
        Output::Json | Output::Table(_) => {
            ("application/json", serde_json::to_vec(value).expect("JSON values serialize"))
        }
    };
    let mut response = (code, [(CONTENT_TYPE, content_type)], Body::from(body)).into_response();
    add_warnings(response.headers_mut(), warnings);
    response
}

/// The response to a write: its object encoded as asked, carrying its
/// warnings; in JSON, the JSON the write made of it when it made one.
pub fn respond_written(code: StatusCode, mut written: Written, output: Output) -> Response {
    match output {
        Output::Yaml => respond(code, &written.object, output, &written.warnings),
        Output::Json | Output::Table(_) => {
            let mut response = respond_json(code, written.take_json());
            add_warnings(response.headers_mut(), &written.warnings);
            response
        }
    }
}

/// A JSON response of `body`, JSON already.
pub fn respond_json(code: StatusCode, body: Vec<u8>) -> Response {
    (code, [(CONTENT_TYPE, "application/json")], Body::from(body)).into_response()
}

/// `Warning: 299 - "<text>"` headers, as Kubernetes sends them.
pub fn add_warnings(headers: &mut HeaderMap, warnings: &[String]) {
    for warning in warnings {
        let text = warning.replace('\\', "\\\\").replace('"', "\\\"");
        if let Ok(value) = HeaderValue::from_str(&format!("299 - \"{text}\"")) {
            headers.append("warning", value);
        }
    }
}

/// The `Status` response for a domain error.
pub fn failure(err: &Error) -> Response {
    failure_as(err, Output::Json)
}

/// The `Status` response for a domain error, in YAML when the client asked
/// for YAML (Kubernetes encodes errors with the negotiated serializer), JSON
/// otherwise (a Status is never a Table).
pub fn failure_as(err: &Error, output: Output) -> Response {
    let output = if output == Output::Yaml { Output::Yaml } else { Output::Json };
    let mut response = respond(http_code(err.reason), &status_object(err), output, &[]);
    if let Some(seconds) = retry_after(err) {
        response.headers_mut().insert(RETRY_AFTER, seconds);
    }
    response
}

/// A handler's result: a response, or an error shown as a `Status`.
pub struct Failure(pub Error);

impl From<Error> for Failure {
    fn from(err: Error) -> Self {
        Self(err)
    }
}

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        failure(&self.0)
    }
}

pub type Reply = Result<Response, Failure>;

/// Reads a request body: at most one byte over the limit (enough for the
/// domain to refuse it with Kubernetes' RequestEntityTooLarge), within the
/// body timeout. A body that cannot be read (a malformed chunk) is the
/// client's error.
pub async fn read_body(body: Body, timeout: std::time::Duration) -> Result<Bytes, Error> {
    let limited = http_body_util::Limited::new(body, MAX_BODY_BYTES + 1);
    match tokio::time::timeout(timeout, limited.collect()).await {
        Err(_) => Err(Error::timeout(format!(
            "request did not complete within requested timeout - the body was not received within {}s",
            timeout.as_secs()
        ))),
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
        Ok(Err(err)) if err.is::<http_body_util::LengthLimitError>() => {
            Err(Error::too_large(format!("Request entity too large: limit is {MAX_BODY_BYTES}")))
        }
        Ok(Err(err)) => Err(Error::bad_request(format!("the request body could not be read: {err}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_served_in_v1_and_v1beta1() {
        let of = |accept: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(ACCEPT, HeaderValue::from_str(accept).unwrap());
            Output::of(&headers)
        };
        assert_eq!(of("application/json;as=Table;v=v1;g=meta.k8s.io, application/json"), Output::Table(TABLE_V1));
        assert_eq!(
            of("application/json;as=Table;v=v1beta1;g=meta.k8s.io, application/json"),
            Output::Table(TABLE_V1BETA1)
        );
        assert_eq!(of("application/json;as=Table;v=v2;g=meta.k8s.io, application/json"), Output::Json);
        assert_eq!(of("application/yaml"), Output::Yaml);
    }

    #[test]
    fn yaml_nests_as_deep_as_the_limit_and_no_deeper() {
        let nested = |depth: usize| "[".repeat(depth) + &"]".repeat(depth);
        assert_eq!(yaml_to_json(nested(MAX_YAML_DEPTH - 1).as_bytes()).unwrap().len(), 2 * (MAX_YAML_DEPTH - 1));
        let block = "- ".repeat(MAX_YAML_DEPTH + 1) + "x\n";
        let err = yaml_to_json(block.as_bytes()).unwrap_err();
        assert_eq!(err.message, "the request body is not valid YAML: nesting exceeds 128 levels at line 1 column 257");
        let err = yaml_to_json(nested(100_000).as_bytes()).unwrap_err();
        assert!(err.message.contains("nesting exceeds 128 levels"), "{}", err.message);
    }

    #[test]
    fn yaml_keeps_repeated_keys_for_the_decoder_and_refuses_what_json_cannot_hold() {
        let json = yaml_to_json(b"a: 1\nb: {x: [1, 2.5, null, true]}\na: two\n").unwrap();
        assert_eq!(String::from_utf8(json).unwrap(), r#"{"a":1,"b":{"x":[1,2.5,null,true]},"a":"two"}"#);
        assert_eq!(yaml_to_json(b"[]").unwrap(), b"[]");
        for (yaml, shown) in [("x: .inf", "+Inf"), ("x: -.inf", "-Inf"), ("x: [.nan]", "NaN")] {
            let err = yaml_to_json(yaml.as_bytes()).unwrap_err();
            assert!(err.message.contains(&format!("json: unsupported value: {shown}")), "{}", err.message);
        }
    }
}

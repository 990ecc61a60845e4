//! The Webhook strategy: a `ConversionReview` POSTed over HTTPS to the
//! definition's `clientConfig` (its `url`, or its `service` resolved to
//! `https://<name>.<namespace>.svc:<port><path>`), verified with its
//! `caBundle` or else the system roots, through one pooled client per
//! definition revision (so connections, HTTP/2 included, are reused), with
//! a bounded timeout. The response is checked as Kubernetes'
//! `webhook_converter.go` checks it: uid, `Success`, object count,
//! apiVersion, kind, and that metadata changes only in labels and
//! annotations (`validateConvertedObject`, `restoreObjectMeta`).

use std::time::Duration;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::WebhookConversion;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::page::{self, Objects};
use super::raw;
use super::review::{Answer, Review, ReviewVersion};
use crate::apimachinery::dns;
use crate::error::{Error, Result};

/// Kubernetes' webhook request timeout (`k8s.io/apiserver/pkg/util/webhook`
/// `defaultRequestTimeout`); a conversion webhook gets no other.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// The HTTP/2 receive windows of a webhook's connection (stream and
/// connection): a 10,000-object list's review answers in about 10 MiB.
const REVIEW_WINDOW: u32 = 16 * 1024 * 1024;

/// The largest HTTP/2 frame a webhook may send.
const REVIEW_FRAME: u32 = 1024 * 1024;

/// A definition's conversion webhook, ready to call.
#[derive(Debug)]
pub struct Webhook {
    url: String,
    client: reqwest::Client,
    version: Option<ReviewVersion>,
}

/// The URL a `clientConfig` names: its `url`, else its `service`'s.
fn url_of(
    config: &k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::WebhookClientConfig,
) -> Option<String> {
    if let Some(url) = config.url.as_ref().filter(|u| !u.is_empty()) {
        return Some(url.clone());
    }
    let service = config.service.as_ref()?;
    let port = service.port.unwrap_or(443);
    let path = service.path.as_deref().unwrap_or("");
    Some(format!("https://{}.{}.svc:{port}{path}", service.name, service.namespace))
}

impl Webhook {
    /// The webhook of `conversion`, with a client of its own: trusting its
    /// `caBundle` when it has one, else the system roots; every call bounded
    /// by `timeout`.
    pub fn new(conversion: &WebhookConversion, timeout: Duration) -> Result<Self> {
        let config = conversion
            .client_config
            .as_ref()
            .ok_or_else(|| Error::internal("the conversion webhook has no clientConfig"))?;
        let url =
            url_of(config).ok_or_else(|| Error::internal("the conversion webhook has neither url nor service"))?;
        let mut builder = reqwest::Client::builder()
            .use_rustls_tls()
            .https_only(true)
            .timeout(timeout)
            .connect_timeout(timeout)
            .pool_idle_timeout(Duration::from_secs(90))
            // A review of a whole list is megabytes each way: windows that
            // fit one, so it does not wait for window updates.
            .http2_initial_stream_window_size(REVIEW_WINDOW)
            .http2_initial_connection_window_size(REVIEW_WINDOW)
            // and frames of up to 1 MiB (HTTP/2's default is 16 KiB), so a
            // 10 MiB answer is tens of frames, not hundreds.
            .http2_max_frame_size(REVIEW_FRAME);
        if let Some(bundle) = config.ca_bundle.as_ref().filter(|b| !b.0.is_empty()) {
            let tls = super::trust::client_config(&bundle.0)
                .map_err(|e| Error::internal(format!("the conversion webhook's {e}")))?;
            builder = builder.use_preconfigured_tls(tls);
        }
        let client = builder
            .build()
            .map_err(|e| Error::internal(format!("the conversion webhook's client could not be built: {e}")))?;
        Ok(Self { url, client, version: ReviewVersion::pick(&conversion.conversion_review_versions) })
    }

    /// Converts `objects` (none already at `desired`) to `desired` (an
    /// apiVersion) in one review. `what` names the input in errors as
    /// Kubernetes does (`example.com/v1, Kind=Widget`), and `indices` the
    /// index of each object in the caller's list. Each converted object
    /// keeps its original metadata but for labels and annotations.
    pub async fn convert(&self, objects: &[Value], indices: &[usize], desired: &str, what: &str) -> Result<Vec<Value>> {
        let failed = |cause: String| Error::internal(format!("conversion webhook for {what} failed: {cause}"));
        let version = self.version.ok_or_else(|| failed("no supported conversion review versions".into()))?;
        let uid = uuid::Uuid::new_v4().to_string();
        let review = serde_json::to_vec(&Review::new(version, &uid, desired, objects)).expect("reviews serialize");
        let body = self.post(review, objects.len(), desired, &failed).await?;
        let converted: Vec<&RawValue> = Self::answer(&body, version, &uid, objects.len(), what, &failed)?;
        objects
            .iter()
            .zip(converted)
            .enumerate()
            .map(|(at, (original, converted))| {
                let index = indices.get(at).copied().unwrap_or(at);
                let converted: Value =
                    serde_json::from_str(converted.get()).map_err(|e| failed(format!("invalid response: {e}")))?;
                check_converted(original, &converted, desired).map_err(|cause| invalid(what, index, cause))?;
                restore_object_meta(original, converted).map_err(|cause| invalid_metadata(what, index, cause))
            })
            .collect()
    }

    /// `convert` over JSON: `objects` (the compact JSON of each, none at
    /// `desired`, all in the caller's order) spliced into the review as
    /// they are, the converted objects read as bytes and checked as
    /// `convert` checks them (`raw.rs`), each answered as the JSON of what
    /// `convert` answers; a large page checked on every core (`page.rs`).
    pub async fn convert_objects(&self, objects: Objects, desired: &str, what: &str) -> Result<Vec<Vec<u8>>> {
        let failed = |cause: String| Error::internal(format!("conversion webhook for {what} failed: {cause}"));
        let version = self.version.ok_or_else(|| failed("no supported conversion review versions".into()))?;
        let uid = uuid::Uuid::new_v4().to_string();
        let count = objects.len();
        let head = super::review::review_head(version, &uid, desired, 0);
        let (review, originals) = objects.into_review(head, super::review::REVIEW_TAIL);
        let body = self.post(review.clone(), count, desired, &failed).await?;
        let (named, parts) = (what.to_string(), page::parts_for(count));
        let read = reads(move |body| {
            let failed = |cause: String| Error::internal(format!("conversion webhook for {named} failed: {cause}"));
            Self::answer(body, version, &uid, count, &named, &failed)
        });
        let what = what.to_string();
        let refused = move |index: usize, refused: raw::Refused| match refused {
            raw::Refused::Object(cause) => invalid(&what, index, cause),
            raw::Refused::Metadata(cause) => invalid_metadata(&what, index, cause),
        };
        page::check(review, originals, body, read, desired.to_string(), parts, refused).await
    }

    /// POSTs a review of `count` objects; the body of a successful answer.
    async fn post(
        &self,
        review: impl Into<reqwest::Body>,
        count: usize,
        desired: &str,
        failed: &impl Fn(String) -> Error,
    ) -> Result<bytes::Bytes> {
        let span = span(&self.url, count, desired);
        let exchange = async {
            let sent = self.client.post(&self.url).header(reqwest::header::CONTENT_TYPE, "application/json");
            let response = sent.body(review).send().await?;
            Ok::<_, reqwest::Error>((response.status(), response.bytes().await?))
        };
        let exchanged = tracing::Instrument::instrument(exchange, span.clone()).await;
        outcome(&span, &exchanged);
        let (status, body) = exchanged.map_err(|e| failed(describe(&e)))?;
        if !status.is_success() {
            let text = String::from_utf8_lossy(&body);
            return Err(failed(format!(
                "the server responded with the status code {}: {}",
                status.as_u16(),
                text.trim()
            )));
        }
        Ok(body)
    }

    /// The converted objects of a response body, checked (uid, result,
    /// count), each as the bytes it was answered as.
    fn answer<'b, T: serde::Deserialize<'b>>(
        body: &'b [u8],
        version: ReviewVersion,
        uid: &str,
        count: usize,
        what: &str,
        failed: &impl Fn(String) -> Error,
    ) -> Result<Vec<T>> {
        let answer: Answer<T> = serde_json::from_slice(body).map_err(|e| failed(format!("invalid response: {e}")))?;
        let converted = answer.converted(version, uid).map_err(failed)?;
        if converted.len() != count {
            return Err(Error::internal(format!(
                "conversion webhook for {what} returned {} objects, expected {count}",
                converted.len(),
            )));
        }
        Ok(converted)
    }
}

/// `read` as a reader of any answer's bytes (so its result borrows them).
fn reads<F: for<'b> FnOnce(&'b [u8]) -> Result<Vec<raw::Converted<'b>>>>(read: F) -> F {
    read
}

/// The `conversion.webhook` span of one review: the host it goes to, how
/// many objects it carries, and the version asked for; its outcome is
/// recorded when the answer is in (`outcome`).
fn span(url: &str, count: usize, desired: &str) -> tracing::Span {
    let span = tracing::debug_span!(
        "conversion.webhook",
        otel.kind = "client",
        otel.status_code = tracing::field::Empty,
        "server.address" = tracing::field::Empty,
        // Signed: tracing-opentelemetry writes a u64 field as a string.
        "crdstore.object_count" = count as i64,
        "crdstore.desired_api_version" = desired,
        "crdstore.outcome" = tracing::field::Empty,
        "http.response.status_code" = tracing::field::Empty,
        "error.type" = tracing::field::Empty,
    );
    if !span.is_disabled() {
        if let Some(host) = reqwest::Url::parse(url).ok().as_ref().and_then(|u| u.host_str()) {
            span.record("server.address", host);
        }
    }
    span
}

/// Records how a review's exchange ended: `success` (a 2xx answer, read
/// whole) or `error`, with the error's type (`timeout`, `connect`,
/// `transport`, or the answer's status code).
fn outcome(span: &tracing::Span, exchanged: &std::result::Result<(reqwest::StatusCode, bytes::Bytes), reqwest::Error>) {
    if span.is_disabled() {
        return;
    }
    let failure = match exchanged {
        Ok((status, _)) => {
            span.record("http.response.status_code", i64::from(status.as_u16()));
            (!status.is_success()).then(|| status.as_str())
        }
        Err(e) if e.is_timeout() => Some("timeout"),
        Err(e) if e.is_connect() => Some("connect"),
        Err(_) => Some("transport"),
    };
    match failure {
        None => span.record("crdstore.outcome", "success"),
        Some(kind) => {
            span.record("error.type", kind);
            span.record("otel.status_code", "error");
            span.record("crdstore.outcome", "error")
        }
    };
}

fn invalid(what: &str, index: usize, cause: String) -> Error {
    Error::internal(format!(
        "conversion webhook for {what} returned invalid converted object at index {index}: {cause}"
    ))
}

fn invalid_metadata(what: &str, index: usize, cause: String) -> Error {
    Error::internal(format!(
        "conversion webhook for {what} returned invalid metadata in object at index {index}: {cause}"
    ))
}

/// A transport error, with its cause (reqwest's own words stop at "error
/// sending request").
fn describe(err: &reqwest::Error) -> String {
    if err.is_timeout() {
        return format!("{err}: the webhook did not answer in time (timeout)");
    }
    let mut text = err.to_string();
    let mut source = std::error::Error::source(err);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

fn str_at<'a>(obj: &'a Value, key: &str) -> &'a str {
    obj.get(key).and_then(Value::as_str).unwrap_or("")
}

fn meta_at<'a>(obj: &'a Value, key: &str) -> &'a str {
    obj.get("metadata").and_then(|m| m.get(key)).and_then(Value::as_str).unwrap_or("")
}

/// The group/version, kind and identity checks of a converted object.
fn check_converted(original: &Value, converted: &Value, desired: &str) -> std::result::Result<(), String> {
    if !converted.is_object() {
        return Err("converted object is not a JSON object".into());
    }
    let got = str_at(converted, "apiVersion");
    if got != desired {
        return Err(format!("invalid groupVersion (expected {desired}, received {got})"));
    }
    let (expected, got) = (str_at(original, "kind"), str_at(converted, "kind"));
    if expected != got {
        return Err(format!("invalid kind (expected {expected}, received {got})"));
    }
    for (key, word) in [("name", "name"), ("namespace", "namespace"), ("uid", "UID")] {
        let (e, a) = (meta_at(original, key), meta_at(converted, key));
        if e != a {
            return Err(format!("must have the same {word}: {e} != {a}"));
        }
    }
    Ok(())
}

/// The converted object with the original's metadata, but for its labels
/// and annotations, which are taken from the converted object (and checked
/// when they changed), as Kubernetes' `restoreObjectMeta`.
fn restore_object_meta(original: &Value, mut converted: Value) -> std::result::Result<Value, String> {
    let response = match converted.get("metadata") {
        None => return Err("missing metadata in converted object".into()),
        Some(Value::Object(m)) => m.clone(),
        Some(other) => return Err(format!("invalid metadata of type {} in converted object", type_name(other))),
    };
    let mut restored: Map<String, Value> = match original.get("metadata") {
        Some(Value::Object(m)) => m.clone(),
        _ => Map::new(),
    };
    for field in ["labels", "annotations"] {
        let theirs = match response.get(field) {
            None | Some(Value::Null) => {
                restored.remove(field);
                continue;
            }
            Some(Value::Object(m)) => m,
            Some(other) => {
                return Err(format!("invalid metadata.{field} of type {} in converted object", type_name(other)))
            }
        };
        let ours = restored.get(field).and_then(Value::as_object);
        let mut changed = ours.map_or(0, Map::len) != theirs.len();
        for (key, value) in theirs {
            if !value.is_string() {
                return Err(format!(
                    "metadata.{field}[{key}] must be a string, but is {} in converted object",
                    type_name(value)
                ));
            }
            changed |= ours.and_then(|o| o.get(key)) != Some(value);
        }
        if changed {
            let mut problems = Vec::new();
            let path = if field == "labels" { "metadata.labels" } else { "metadata.annotation" };
            for (key, value) in theirs {
                for problem in dns::qualified_name(key) {
                    problems.push(format!("{path}: Invalid value: {key:?}: {problem}"));
                }
                if field == "labels" {
                    let value = value.as_str().unwrap_or("");
                    for problem in dns::label_value(value) {
                        problems.push(format!("{path}: Invalid value: {value:?}: {problem}"));
                    }
                }
            }
            match problems.len() {
                0 => {}
                1 => return Err(problems.remove(0)),
                _ => return Err(format!("[{}]", problems.join(", "))),
            }
        }
        restored.insert(field.to_string(), Value::Object(theirs.clone()));
    }
    converted["metadata"] = Value::Object(restored);
    Ok(converted)
}

/// A JSON value's type as Go's `%T` shows its decoded form.
fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "<nil>",
        Value::Bool(_) => "bool",
        Value::Number(_) => "int64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}

#[cfg(test)]
mod tests;

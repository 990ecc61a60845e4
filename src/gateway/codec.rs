//! Bodies in and out of the gateway: JSON or YAML requests become the JSON
//! the domain takes; responses are JSON, YAML or a Table as the `Accept`
//! header asks; errors are Kubernetes `Status` objects; warnings are
//! `Warning: 299` headers.

use axum::body::Body;
use axum::http::header::{HeaderMap, HeaderValue, ACCEPT, CONTENT_TYPE};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use super::status::{http_code, status_object};
use crate::error::Error;

/// What a client asked to receive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    Json,
    Yaml,
    /// `application/json;as=Table;v=v1;g=meta.k8s.io`.
    Table,
}

impl Output {
    /// From the `Accept` header: the first media type crdstore can produce.
    pub fn of(headers: &HeaderMap) -> Self {
        let accept = headers.get(ACCEPT).and_then(|v| v.to_str().ok()).unwrap_or("");
        for media in accept.split(',') {
            let media = media.trim();
            let params: Vec<&str> = media.split(';').map(str::trim).collect();
            match params[0] {
                "application/json"
                    if params.contains(&"as=Table")
                        && params.contains(&"g=meta.k8s.io")
                        && params.contains(&"v=v1") =>
                {
                    return Output::Table;
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

/// The request body as JSON: YAML (`application/yaml`) is converted, JSON
/// passed through for the domain to parse (and check for duplicates).
pub fn json_body(headers: &HeaderMap, body: &[u8]) -> Result<Vec<u8>, Error> {
    let content_type = headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    if content_type.starts_with("application/yaml") || content_type.starts_with("application/apply-patch+yaml") {
        let value: Value = serde_norway::from_slice(body)
            .map_err(|e| Error::bad_request(format!("the request body is not valid YAML: {e}")))?;
        return serde_json::to_vec(&value).map_err(|e| Error::bad_request(format!("the YAML has no JSON form: {e}")));
    }
    Ok(body.to_vec())
}

/// A response of `value` with `code`, encoded as asked, carrying warnings.
pub fn respond(code: StatusCode, value: &Value, output: Output, warnings: &[String]) -> Response {
    let (content_type, body) = match output {
        Output::Yaml => ("application/yaml", serde_norway::to_string(value).unwrap_or_default().into_bytes()),
        Output::Json | Output::Table => ("application/json", serde_json::to_vec(value).expect("JSON values serialize")),
    };
    let mut response = (code, [(CONTENT_TYPE, content_type)], Body::from(body)).into_response();
    add_warnings(response.headers_mut(), warnings);
    response
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
    respond(http_code(err.reason), &status_object(err), Output::Json, &[])
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

//! The one mapping from the domain error to an HTTP status and a Kubernetes
//! `Status` object (`details.causes` per field), by an exhaustive match.

use axum::http::{HeaderValue, StatusCode};
use serde_json::{json, Value};

use crate::error::{Error, Reason};

/// The HTTP status code of each reason.
pub fn http_code(reason: Reason) -> StatusCode {
    match reason {
        Reason::NotFound => StatusCode::NOT_FOUND,
        Reason::AlreadyExists => StatusCode::CONFLICT,
        Reason::Conflict => StatusCode::CONFLICT,
        Reason::Invalid => StatusCode::UNPROCESSABLE_ENTITY,
        Reason::BadRequest => StatusCode::BAD_REQUEST,
        Reason::Expired => StatusCode::GONE,
        Reason::Forbidden => StatusCode::FORBIDDEN,
        Reason::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
        Reason::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
        Reason::NotAcceptable => StatusCode::NOT_ACCEPTABLE,
        Reason::RequestEntityTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
        Reason::TooManyRequests => StatusCode::TOO_MANY_REQUESTS,
        Reason::ServiceUnavailable => StatusCode::SERVICE_UNAVAILABLE,
        Reason::Timeout => StatusCode::GATEWAY_TIMEOUT,
        Reason::InternalError => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// The `Retry-After` header value of an error that says when to retry.
pub fn retry_after(err: &Error) -> Option<HeaderValue> {
    err.details.retry_after_seconds.map(HeaderValue::from)
}

/// The Kubernetes `Status` object for a domain error.
pub fn status_object(err: &Error) -> Value {
    let d = &err.details;
    let mut details = serde_json::Map::new();
    for (key, value) in [("group", &d.group), ("kind", &d.kind), ("name", &d.name)] {
        if !value.is_empty() {
            details.insert(key.into(), Value::String(value.clone()));
        }
    }
    if !d.causes.is_empty() {
        let causes = d
            .causes
            .iter()
            .map(|c| json!({"reason": c.cause.reason(), "message": c.body(), "field": crate::error::shown(&c.field)}))
            .collect();
        details.insert("causes".into(), Value::Array(causes));
    }
    if let Some(seconds) = d.retry_after_seconds {
        details.insert("retryAfterSeconds".into(), json!(seconds));
    }
    let mut metadata = serde_json::Map::new();
    if let Some(token) = &d.continue_token {
        metadata.insert("continue".into(), Value::String(token.clone()));
    }
    let mut status = json!({
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": metadata,
        "status": "Failure",
        "message": err.message,
        "reason": err.reason.as_str(),
        "code": http_code(err.reason).as_u16(),
    });
    if !details.is_empty() {
        status["details"] = Value::Object(details);
    }
    status
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::FieldError;

    #[test]
    fn invalid_is_422_with_causes() {
        let err = Error::invalid(
            "apiextensions.k8s.io",
            "CustomResourceDefinition",
            "x",
            vec![FieldError::required("spec.group", "")],
        );
        let status = status_object(&err);
        assert_eq!(status["code"], 422);
        assert_eq!(status["reason"], "Invalid");
        assert_eq!(status["details"]["causes"][0]["field"], "spec.group");
        assert_eq!(status["details"]["causes"][0]["reason"], "FieldValueRequired");
    }

    #[test]
    fn retry_after_comes_from_the_details() {
        let mut err = Error::too_many_requests("slow down");
        assert_eq!(retry_after(&err), None);
        err.details.retry_after_seconds = Some(3);
        assert_eq!(retry_after(&err).unwrap(), "3");
        assert_eq!(status_object(&err)["details"]["retryAfterSeconds"], 3);
        assert_eq!(status_object(&err)["code"], 429);
    }

    #[test]
    fn expired_is_410_gone() {
        assert_eq!(http_code(Reason::Expired), StatusCode::GONE);
        assert_eq!(http_code(Reason::Conflict), StatusCode::CONFLICT);
    }
}

//! The one mapping from the domain error to a gRPC status: the code table
//! (exhaustive, no wildcard arm) and the details every status carries: one
//! `google.rpc.ErrorInfo` with the Kubernetes reason, and one
//! `google.rpc.BadRequest` with a field violation per invalid field.

use std::collections::HashMap;

use tonic::Code;
use tonic_types::{ErrorDetails, FieldViolation, StatusExt};

use crate::error::{Error, Reason};

/// The `ErrorInfo.domain` of every crdstore error.
pub const ERROR_DOMAIN: &str = "crdstore.io";

/// The gRPC code of each reason.
pub fn code(reason: Reason) -> Code {
    match reason {
        Reason::NotFound => Code::NotFound,
        Reason::AlreadyExists => Code::AlreadyExists,
        Reason::Conflict => Code::Aborted,
        Reason::Invalid => Code::InvalidArgument,
        Reason::BadRequest => Code::InvalidArgument,
        Reason::Expired => Code::OutOfRange,
        Reason::Forbidden => Code::PermissionDenied,
        Reason::MethodNotAllowed => Code::FailedPrecondition,
        Reason::UnsupportedMediaType | Reason::NotAcceptable => Code::InvalidArgument,
        Reason::RequestEntityTooLarge => Code::ResourceExhausted,
        Reason::TooManyRequests => Code::ResourceExhausted,
        Reason::ServiceUnavailable => Code::Unavailable,
        Reason::Timeout => Code::DeadlineExceeded,
        Reason::InternalError => Code::Internal,
    }
}

/// The most bytes of a message a status carries. gRPC statuses travel in
/// HTTP/2 trailers, which peers bound (16 KiB is common): an error that
/// echoes a huge value must still reach the client, clipped.
const MAX_MESSAGE_BYTES: usize = 4096;
/// The most bytes of one field violation's description.
const MAX_CAUSE_BYTES: usize = 512;
/// The most field violations a status carries.
const MAX_CAUSES: usize = 32;

/// `text` cut to at most `max` bytes at a character boundary, marked when
/// cut.
fn clip(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max.saturating_sub(3);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &text[..end])
}

/// The status for a domain error. Messages and causes are clipped so the
/// status fits the trailers any peer accepts; HTTP carries them whole.
pub fn to_status(err: &Error) -> tonic::Status {
    let d = &err.details;
    let mut metadata: HashMap<String, String> = HashMap::new();
    metadata.insert("reason".into(), err.reason.as_str().into());
    for (key, value) in [("group", &d.group), ("kind", &d.kind), ("name", &d.name)] {
        if !value.is_empty() {
            metadata.insert(key.into(), value.clone());
        }
    }
    if let Some(token) = &d.continue_token {
        metadata.insert("continue".into(), token.clone());
    }
    if let Some(seconds) = d.retry_after_seconds {
        metadata.insert("retryAfterSeconds".into(), seconds.to_string());
    }
    if !d.causes.is_empty() {
        let causes: Vec<serde_json::Value> = d
            .causes
            .iter()
            .take(MAX_CAUSES)
            .map(|c| {
                let message = clip(&c.body(), MAX_CAUSE_BYTES);
                serde_json::json!({"reason": c.cause.reason(), "field": clip(&c.field, MAX_CAUSE_BYTES), "message": message})
            })
            .collect();
        metadata.insert("causes".into(), serde_json::Value::Array(causes).to_string());
    }
    let mut details = ErrorDetails::with_error_info(err.reason.as_str(), ERROR_DOMAIN, metadata);
    if !d.causes.is_empty() {
        let violations: Vec<FieldViolation> = d
            .causes
            .iter()
            .take(MAX_CAUSES)
            .map(|c| FieldViolation::new(clip(&c.field, MAX_CAUSE_BYTES), clip(&c.body(), MAX_CAUSE_BYTES)))
            .collect();
        details.set_bad_request(violations);
    }
    tonic::Status::with_error_details(code(err.reason), clip(&err.message, MAX_MESSAGE_BYTES), details)
}

impl From<Error> for tonic::Status {
    fn from(err: Error) -> Self {
        to_status(&err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::FieldError;

    #[test]
    fn invalid_carries_reason_and_field_violations() {
        let err = Error::invalid(
            "g",
            "K",
            "n",
            vec![FieldError::required("spec.group", ""), FieldError::invalid("spec.x", 1, "bad")],
        );
        let status = to_status(&err);
        assert_eq!(status.code(), Code::InvalidArgument);
        let details = status.get_error_details();
        assert_eq!(details.error_info().unwrap().reason, "Invalid");
        let fields: Vec<_> = details.bad_request().unwrap().field_violations.iter().map(|v| v.field.clone()).collect();
        assert_eq!(fields, ["spec.group", "spec.x"]);
    }

    #[test]
    fn stale_writes_abort_and_old_revisions_are_out_of_range() {
        assert_eq!(code(Reason::Conflict), Code::Aborted);
        assert_eq!(code(Reason::Expired), Code::OutOfRange);
        assert_eq!(code(Reason::MethodNotAllowed), Code::FailedPrecondition);
    }
}

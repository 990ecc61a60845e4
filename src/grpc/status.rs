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
/// HTTP/2 trailers, which peers bound: the C core (grpc-python's) refuses
/// trailers over 16 KiB as RESOURCE_EXHAUSTED "received metadata size
/// exceeds hard limit", and from 8 KiB (its soft limit) refuses some. An
/// error that echoes a huge value must still reach the client, clipped,
/// with its own code: a status stays under 8 KiB of trailers.
const MAX_MESSAGE_BYTES: usize = 1024;
/// The most bytes of one field violation's field and of its description.
const MAX_CAUSE_BYTES: usize = 256;
/// The most bytes all the field violations' fields and descriptions take
/// together. They are carried twice (in `ErrorInfo.metadata` and in
/// `BadRequest`), base64-encoded in `grpc-status-details-bin`, which holds
/// the message again. HTTP carries every cause whole.
const MAX_CAUSES_BYTES: usize = 1536;

/// `text` cut to at most `max` bytes at a character boundary, marked when
/// cut.
fn clip(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    format!("{}...", crate::error::prefix(text, max.saturating_sub(3)))
}

/// The causes a status carries, clipped, as (reason, field, message): as
/// many as fit [`MAX_CAUSES_BYTES`].
fn causes(err: &Error) -> Vec<(&'static str, String, String)> {
    let mut total = 0;
    let mut kept = Vec::new();
    for cause in &err.details.causes {
        let (field, message) = (clip(&cause.field, MAX_CAUSE_BYTES), clip(&cause.body(), MAX_CAUSE_BYTES));
        total += field.len() + message.len();
        if total > MAX_CAUSES_BYTES {
            break;
        }
        kept.push((cause.cause.reason(), field, message));
    }
    kept
}

/// The status for a domain error. Messages and causes are clipped so the
/// status fits the trailers any peer accepts; HTTP carries them whole.
pub fn to_status(err: &Error) -> tonic::Status {
    let d = &err.details;
    let mut metadata: HashMap<String, String> = HashMap::new();
    metadata.insert("reason".into(), err.reason.as_str().into());
    for (key, value) in [("group", &d.group), ("kind", &d.kind), ("name", &d.name)] {
        if !value.is_empty() {
            metadata.insert(key.into(), clip(value, MAX_CAUSE_BYTES));
        }
    }
    if let Some(token) = &d.continue_token {
        metadata.insert("continue".into(), token.clone());
    }
    if let Some(seconds) = d.retry_after_seconds {
        metadata.insert("retryAfterSeconds".into(), seconds.to_string());
    }
    let causes = causes(err);
    if !causes.is_empty() {
        let json: Vec<serde_json::Value> = causes
            .iter()
            .map(|(reason, field, message)| serde_json::json!({"reason": reason, "field": field, "message": message}))
            .collect();
        metadata.insert("causes".into(), serde_json::Value::Array(json).to_string());
    }
    let mut details = ErrorDetails::with_error_info(err.reason.as_str(), ERROR_DOMAIN, metadata);
    if !causes.is_empty() {
        let violations: Vec<FieldViolation> =
            causes.into_iter().map(|(_, field, message)| FieldViolation::new(field, message)).collect();
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
    fn statuses_of_huge_errors_fit_under_the_c_cores_soft_trailer_limit_of_8_kib() {
        let huge = "x".repeat(1 << 20);
        let causes = (0..1000).map(|i| FieldError::invalid(format!("spec.{huge}{i}"), huge.as_str(), huge.as_str()));
        let mut err = Error::invalid("g", "K", &huge, causes.collect());
        err.message = huge.clone();
        let status = to_status(&err);
        let mut headers = tonic::metadata::MetadataMap::new().into_headers();
        status.add_header(&mut headers).unwrap();
        let size: usize = headers.iter().map(|(k, v)| k.as_str().len() + v.len()).sum();
        assert!(size < 8 * 1024, "{size} bytes of trailers");
        assert_eq!(status.code(), Code::InvalidArgument);
        assert!(!status.get_error_details().bad_request().unwrap().field_violations.is_empty());
    }

    #[test]
    fn stale_writes_abort_and_old_revisions_are_out_of_range() {
        assert_eq!(code(Reason::Conflict), Code::Aborted);
        assert_eq!(code(Reason::Expired), Code::OutOfRange);
        assert_eq!(code(Reason::MethodNotAllowed), Code::FailedPrecondition);
    }
}

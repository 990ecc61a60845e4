//! The one domain error type: a Kubernetes reason, a message, and the details
//! (group, kind, name, field causes) that transports turn into gRPC statuses
//! and HTTP `Status` objects, each in exactly one place.

use std::fmt;

mod field;

pub use field::{prefix, quoted, shown, FieldError, MAX_SHOWN_BYTES};

/// The Kubernetes `StatusReason` vocabulary crdstore uses. Each transport maps
/// every variant with an exhaustive match (`grpc::status`, `gateway::status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reason {
    /// The addressed object or resource type does not exist.
    NotFound,
    /// An object with that name already exists.
    AlreadyExists,
    /// A precondition (resourceVersion, uid) no longer holds.
    Conflict,
    /// The object failed validation; `Details::causes` names each field.
    Invalid,
    /// The request itself is malformed.
    BadRequest,
    /// The requested revision is older than the history window.
    Expired,
    /// The request is not allowed in the object's current state.
    Forbidden,
    /// The verb is not allowed now (creates while a definition terminates).
    MethodNotAllowed,
    /// The body's content type is not supported (strategic merge patch).
    UnsupportedMediaType,
    /// No representation the client accepts can be produced.
    NotAcceptable,
    /// The request body is larger than the server accepts.
    RequestEntityTooLarge,
    /// The client must slow down (a watcher that fell too far behind).
    TooManyRequests,
    /// The server can not serve the request right now.
    ServiceUnavailable,
    /// The server gave up waiting (a revision that never arrived).
    Timeout,
    /// A bug or an unexpected storage failure.
    InternalError,
}

impl Reason {
    /// Every reason, for the checks that each client maps them all.
    pub const ALL: [Reason; 15] = [
        Reason::NotFound,
        Reason::AlreadyExists,
        Reason::Conflict,
        Reason::Invalid,
        Reason::BadRequest,
        Reason::Expired,
        Reason::Forbidden,
        Reason::MethodNotAllowed,
        Reason::UnsupportedMediaType,
        Reason::NotAcceptable,
        Reason::RequestEntityTooLarge,
        Reason::TooManyRequests,
        Reason::ServiceUnavailable,
        Reason::Timeout,
        Reason::InternalError,
    ];

    /// The reason as Kubernetes spells it in `Status.reason`.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::NotFound => "NotFound",
            Reason::AlreadyExists => "AlreadyExists",
            Reason::Conflict => "Conflict",
            Reason::Invalid => "Invalid",
            Reason::BadRequest => "BadRequest",
            Reason::Expired => "Expired",
            Reason::Forbidden => "Forbidden",
            Reason::MethodNotAllowed => "MethodNotAllowed",
            Reason::UnsupportedMediaType => "UnsupportedMediaType",
            Reason::NotAcceptable => "NotAcceptable",
            Reason::RequestEntityTooLarge => "RequestEntityTooLarge",
            Reason::TooManyRequests => "TooManyRequests",
            Reason::ServiceUnavailable => "ServiceUnavailable",
            Reason::Timeout => "Timeout",
            Reason::InternalError => "InternalError",
        }
    }
}

/// The kind of a field error, as Kubernetes' `field.ErrorType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CauseType {
    Required,
    Invalid,
    TypeInvalid,
    NotSupported,
    Duplicate,
    Forbidden,
    TooLong,
    TooMany,
    NotFound,
    Internal,
    /// Not a field's: a resourceVersion newer than the store has reached
    /// (`metav1.CauseTypeResourceVersionTooLarge`).
    ResourceVersionTooLarge,
    /// Not a field's: a create into a terminating namespace
    /// (`v1.NamespaceTerminatingCause`).
    NamespaceTerminating,
    /// Not a field's error: another field manager owns the field an apply
    /// sets (`metav1.CauseTypeFieldManagerConflict`); the detail is the
    /// whole message (`conflict with "m1"`).
    FieldManagerConflict,
}

impl CauseType {
    /// `StatusCause.reason`, e.g. `FieldValueRequired`.
    pub fn reason(self) -> &'static str {
        match self {
            CauseType::Required => "FieldValueRequired",
            CauseType::Invalid => "FieldValueInvalid",
            CauseType::TypeInvalid => "FieldValueTypeInvalid",
            CauseType::NotSupported => "FieldValueNotSupported",
            CauseType::Duplicate => "FieldValueDuplicate",
            CauseType::Forbidden => "FieldValueForbidden",
            CauseType::TooLong => "FieldValueTooLong",
            CauseType::TooMany => "FieldValueTooMany",
            CauseType::NotFound => "FieldValueNotFound",
            CauseType::Internal => "InternalError",
            CauseType::ResourceVersionTooLarge => "ResourceVersionTooLarge",
            CauseType::NamespaceTerminating => "NamespaceTerminating",
            CauseType::FieldManagerConflict => "FieldManagerConflict",
        }
    }

    /// The human words Kubernetes puts before the value, e.g. `Invalid value`.
    fn words(self) -> &'static str {
        match self {
            CauseType::Required => "Required value",
            CauseType::Invalid | CauseType::TypeInvalid => "Invalid value",
            CauseType::NotSupported => "Unsupported value",
            CauseType::Duplicate => "Duplicate value",
            CauseType::Forbidden => "Forbidden",
            CauseType::TooLong => "Too long",
            CauseType::TooMany => "Too many",
            CauseType::NotFound => "Not found",
            CauseType::Internal => "Internal error",
            CauseType::ResourceVersionTooLarge => "Too large resource version",
            // The cause's message is its detail alone.
            CauseType::NamespaceTerminating => "",
            CauseType::FieldManagerConflict => "",
        }
    }

    /// Whether the message shows the offending value (as `field.Error` does).
    fn shows_value(self) -> bool {
        !matches!(
            self,
            CauseType::Required
                | CauseType::Forbidden
                | CauseType::TooLong
                | CauseType::Internal
                | CauseType::ResourceVersionTooLarge
                | CauseType::NamespaceTerminating
                | CauseType::FieldManagerConflict
        )
    }
}

/// The object an error is about, as in `StatusDetails`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Details {
    /// The API group of the kind or resource.
    pub group: String,
    /// The kind (`CustomResourceDefinition`) or, for not-found, the resource.
    pub kind: String,
    /// The object's name, when there is one.
    pub name: String,
    /// One entry per invalid field.
    pub causes: Vec<FieldError>,
    /// A token that continues a list past an expired page.
    pub continue_token: Option<String>,
    /// Seconds after which a retry makes sense.
    pub retry_after_seconds: Option<u32>,
}

/// The domain error. Built with the constructors below so messages match
/// Kubernetes' wording.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct Error {
    pub reason: Reason,
    pub message: String,
    /// Boxed: errors travel in every `Result` of the domain, and most have
    /// no details, so the common path moves one pointer, not the struct.
    pub details: Box<Details>,
}

/// The result type of the domain.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A group-qualified resource or kind name, as `GroupResource.String()`.
fn qualified(name: &str, group: &str) -> String {
    if group.is_empty() {
        shown(name).into_owned()
    } else {
        shown(&format!("{name}.{group}")).into_owned()
    }
}

impl Error {
    fn plain(reason: Reason, message: impl Into<String>) -> Self {
        Self { reason, message: message.into(), details: Box::default() }
    }

    /// `<resource>.<group> "<name>" not found`.
    pub fn not_found(group: &str, resource: &str, name: &str) -> Self {
        Self {
            reason: Reason::NotFound,
            message: format!("{} {} not found", qualified(resource, group), quoted(name)),
            details: Box::new(Details {
                group: group.into(),
                kind: resource.into(),
                name: shown(name).into_owned(),
                ..Details::default()
            }),
        }
    }

    /// A not-found with a message of its own (unknown resource types).
    pub fn not_found_message(message: impl Into<String>) -> Self {
        Self::plain(Reason::NotFound, message)
    }

    /// Kubernetes' NotFound for a path that names no resource:
    /// `the server could not find the requested resource (<what>)`, and why
    /// when `why` is not empty.
    pub fn no_resource(what: impl fmt::Display, why: &str) -> Self {
        let mut message = format!("the server could not find the requested resource ({})", shown(&what.to_string()));
        if !why.is_empty() {
            message.push_str(": ");
            message.push_str(why);
        }
        Self::plain(Reason::NotFound, message)
    }

    /// `<resource>.<group> "<name>" already exists`.
    pub fn already_exists(group: &str, resource: &str, name: &str) -> Self {
        Self {
            reason: Reason::AlreadyExists,
            message: format!("{} {} already exists", qualified(resource, group), quoted(name)),
            details: Box::new(Details {
                group: group.into(),
                kind: resource.into(),
                name: shown(name).into_owned(),
                ..Details::default()
            }),
        }
    }

    /// `Operation cannot be fulfilled on <resource>.<group> "<name>": <why>`.
    pub fn conflict(group: &str, resource: &str, name: &str, why: impl fmt::Display) -> Self {
        Self {
            reason: Reason::Conflict,
            message: format!("Operation cannot be fulfilled on {} {}: {why}", qualified(resource, group), quoted(name)),
            details: Box::new(Details {
                group: group.into(),
                kind: resource.into(),
                name: shown(name).into_owned(),
                ..Details::default()
            }),
        }
    }

    /// A Conflict with only a message (an apply's field manager conflicts,
    /// whose causes the caller adds).
    pub fn conflict_message(message: impl Into<String>) -> Self {
        Self::plain(Reason::Conflict, message)
    }

    /// The conflict every stale resourceVersion produces.
    pub fn stale(group: &str, resource: &str, name: &str) -> Self {
        Self::conflict(
            group,
            resource,
            name,
            "the object has been modified; please apply your changes to the latest version and try again",
        )
    }

    /// `<Kind>.<group> "<name>" is invalid: <causes>`.
    pub fn invalid(group: &str, kind: &str, name: &str, causes: Vec<FieldError>) -> Self {
        let subject = format!("{} {} is invalid", qualified(kind, group), quoted(name));
        let message = match causes.len() {
            0 => subject,
            1 => format!("{subject}: {}", causes[0]),
            _ => {
                let all: Vec<String> = causes.iter().map(ToString::to_string).collect();
                format!("{subject}: [{}]", all.join(", "))
            }
        };
        Self {
            reason: Reason::Invalid,
            message,
            details: Box::new(Details {
                group: group.into(),
                kind: kind.into(),
                name: shown(name).into_owned(),
                causes,
                ..Details::default()
            }),
        }
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::plain(Reason::BadRequest, message)
    }

    /// A revision older than the history window.
    pub fn expired(message: impl Into<String>) -> Self {
        Self::plain(Reason::Expired, message)
    }

    /// An expired continue token, with a fresh one that goes on from the next key.
    pub fn expired_continue(message: impl Into<String>, continue_token: String) -> Self {
        let mut err = Self::plain(Reason::Expired, message);
        err.details.continue_token = Some(continue_token);
        err
    }

    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::plain(Reason::Forbidden, message)
    }

    pub fn method_not_allowed(message: impl Into<String>) -> Self {
        Self::plain(Reason::MethodNotAllowed, message)
    }

    pub fn unsupported_media_type(message: impl Into<String>) -> Self {
        Self::plain(Reason::UnsupportedMediaType, message)
    }

    /// Kubernetes' 415 for a body in a media type not among `accepted`.
    pub fn unknown_media_type(accepted: &[&str]) -> Self {
        Self::unsupported_media_type(format!(
            "the body of the request was in an unknown format - accepted media types include: {}",
            accepted.join(", ")
        ))
    }

    pub fn not_acceptable(message: impl Into<String>) -> Self {
        Self::plain(Reason::NotAcceptable, message)
    }

    pub fn too_large(message: impl Into<String>) -> Self {
        Self::plain(Reason::RequestEntityTooLarge, message)
    }

    pub fn too_many_requests(message: impl Into<String>) -> Self {
        Self::plain(Reason::TooManyRequests, message)
    }

    pub fn unavailable(message: impl Into<String>) -> Self {
        Self::plain(Reason::ServiceUnavailable, message)
    }

    pub fn timeout(message: impl Into<String>) -> Self {
        Self::plain(Reason::Timeout, message)
    }

    /// A resourceVersion the store has not reached in time, as Kubernetes'
    /// `storage.NewTooLargeResourceVersionError(requested, current, 1)`:
    /// `Timeout: Too large resource version: <requested>, current: <current>`,
    /// one `ResourceVersionTooLarge` cause, retry after a second.
    pub fn too_large_resource_version(requested: impl fmt::Display, current: impl fmt::Display) -> Self {
        let mut err = Self::timeout(format!("Timeout: Too large resource version: {requested}, current: {current}"));
        err.details.causes.push(FieldError::new(CauseType::ResourceVersionTooLarge, "", None, ""));
        err.details.retry_after_seconds = Some(1);
        err
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self::plain(Reason::InternalError, message)
    }
}

#[cfg(test)]
mod tests;

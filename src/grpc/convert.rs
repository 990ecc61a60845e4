//! Translations between the protobuf messages and the domain's options and
//! events; nothing here decides anything, except that an enum value this
//! server does not know is refused, naming its field, rather than read as
//! the default.

use std::time::Duration;

use crate::apimachinery::meta;
use crate::apimachinery::options::{
    DeleteOptions, FieldValidation, ListOptions, ResourceVersion, ResourceVersionMatch, WatchOptions, WriteOptions,
};
use crate::error::{Error, FieldError};
use crate::pb::v1 as pb;
use crate::watch::stream::{EventType, WatchEvent};

/// The refusal of an enum value the server does not know, at `field` of the
/// `message`: Invalid (INVALID_ARGUMENT) with an "Unsupported value" cause
/// listing the values it knows, as Kubernetes refuses an unsupported option.
pub fn unsupported_enum(message: &str, field: &str, value: i32, supported: &[&str]) -> tonic::Status {
    Error::invalid("crdstore.io", message, "", vec![FieldError::not_supported(field, value, supported)]).into()
}

/// An enum field's value, or its refusal naming `field` of `message`.
pub fn known_enum<E>(message: &str, field: &str, value: i32) -> Result<E, tonic::Status>
where
    E: TryFrom<i32> + EnumNames,
{
    E::try_from(value).map_err(|_| unsupported_enum(message, field, value, E::NAMES))
}

/// The names of an enum's values, for refusals.
pub trait EnumNames {
    const NAMES: &'static [&'static str];
}

impl EnumNames for pb::FieldValidation {
    const NAMES: &'static [&'static str] = &[
        "FIELD_VALIDATION_UNSPECIFIED",
        "FIELD_VALIDATION_IGNORE",
        "FIELD_VALIDATION_WARN",
        "FIELD_VALIDATION_STRICT",
    ];
}

impl EnumNames for pb::ResourceVersionMatch {
    const NAMES: &'static [&'static str] = &[
        "RESOURCE_VERSION_MATCH_UNSPECIFIED",
        "RESOURCE_VERSION_MATCH_NOT_OLDER_THAN",
        "RESOURCE_VERSION_MATCH_EXACT",
    ];
}

impl EnumNames for pb::Subresource {
    const NAMES: &'static [&'static str] = &["SUBRESOURCE_UNSPECIFIED", "SUBRESOURCE_STATUS", "SUBRESOURCE_SCALE"];
}

impl EnumNames for pb::PatchType {
    const NAMES: &'static [&'static str] = &[
        "PATCH_TYPE_UNSPECIFIED",
        "PATCH_TYPE_MERGE",
        "PATCH_TYPE_JSON",
        "PATCH_TYPE_STRATEGIC_MERGE",
        "PATCH_TYPE_APPLY",
    ];
}

/// A write's options; an unknown `field_validation` is refused.
pub fn write_options(options: Option<pb::WriteOptions>) -> Result<WriteOptions, tonic::Status> {
    let options = options.unwrap_or_default();
    let field_validation = match known_enum("WriteOptions", "options.field_validation", options.field_validation)? {
        pb::FieldValidation::Ignore => FieldValidation::Ignore,
        pb::FieldValidation::Strict => FieldValidation::Strict,
        pb::FieldValidation::Warn | pb::FieldValidation::Unspecified => FieldValidation::Warn,
    };
    Ok(WriteOptions { dry_run: options.dry_run, field_validation, field_manager: options.field_manager, force: false })
}

/// An Apply call's options: its manager, force and dry run, with the
/// default field validation (Warn), as Kubernetes' when none is given.
pub fn apply_options(field_manager: String, force: bool, dry_run: bool) -> WriteOptions {
    WriteOptions { dry_run, field_validation: FieldValidation::Warn, field_manager, force }
}

/// A list's options, sent in the request field `field`; an unknown
/// `resource_version_match` is refused.
pub fn list_options(options: Option<pb::ListOptions>, field: &str) -> Result<ListOptions, tonic::Status> {
    let options = options.unwrap_or_default();
    let at = format!("{field}.resource_version_match");
    let resource_version_match = match known_enum("ListOptions", &at, options.resource_version_match)? {
        pb::ResourceVersionMatch::NotOlderThan => ResourceVersionMatch::NotOlderThan,
        pb::ResourceVersionMatch::Exact => ResourceVersionMatch::Exact,
        pb::ResourceVersionMatch::Unspecified => ResourceVersionMatch::Unset,
    };
    Ok(ListOptions {
        label_selector: options.label_selector,
        field_selector: options.field_selector,
        limit: options.limit,
        continue_token: options.continue_token,
        resource_version: ResourceVersion::parse(&options.resource_version)?,
        resource_version_match,
    })
}

pub fn watch_options(options: Option<pb::WatchOptions>) -> Result<WatchOptions, tonic::Status> {
    let options = options.unwrap_or_default();
    Ok(WatchOptions {
        label_selector: options.label_selector,
        field_selector: options.field_selector,
        resource_version: ResourceVersion::parse(&options.resource_version)?,
        allow_bookmarks: options.allow_bookmarks,
        send_initial_events: options.send_initial_events,
        timeout: (options.timeout_seconds > 0).then(|| Duration::from_secs(options.timeout_seconds as u64)),
    })
}

pub fn delete_options(options: Option<pb::DeleteOptions>) -> Result<DeleteOptions, tonic::Status> {
    let options = options.unwrap_or_default();
    Ok(DeleteOptions {
        precondition_uid: options.precondition_uid,
        precondition_resource_version: meta::parse_resource_version(&options.precondition_resource_version)?,
        propagation_policy: options.propagation_policy,
        orphan_dependents: None,
        dry_run: options.dry_run,
    })
}

pub fn json(value: &serde_json::Value) -> Vec<u8> {
    serde_json::to_vec(value).expect("JSON values serialize")
}

pub fn watch_event(event: &WatchEvent) -> pb::WatchEvent {
    let kind = match event.kind {
        EventType::Added => pb::EventType::Added,
        EventType::Modified => pb::EventType::Modified,
        EventType::Deleted => pb::EventType::Deleted,
        EventType::Bookmark => pb::EventType::Bookmark,
    };
    pb::WatchEvent { r#type: kind as i32, object: event.object.json_bytes().clone() }
}

/// A response carrying the write's warnings as `warning` metadata entries,
/// as Kubernetes carries them in `Warning` headers.
pub fn with_warnings<T>(message: T, warnings: &[String]) -> tonic::Response<T> {
    let mut response = tonic::Response::new(message);
    for warning in warnings {
        if let Ok(value) = tonic::metadata::MetadataValue::try_from(warning.as_str()) {
            response.metadata_mut().append("warning", value);
        }
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonic_types::StatusExt;

    #[test]
    fn unknown_enum_values_are_refused_naming_their_field() {
        let options = pb::WriteOptions { field_validation: 9, ..Default::default() };
        let status = write_options(Some(options)).unwrap_err();
        assert_eq!(status.code(), tonic::Code::InvalidArgument);
        let violations = status.get_error_details().bad_request().unwrap().field_violations.clone();
        assert_eq!(violations[0].field, "options.field_validation");
        assert!(violations[0].description.starts_with("Unsupported value: 9: supported values: "));
        let options = pb::ListOptions { resource_version_match: -1, ..Default::default() };
        let status = list_options(Some(options), "list_options").unwrap_err();
        assert!(status.message().contains("list_options.resource_version_match: Unsupported value: -1"));
        assert_eq!(known_enum::<pb::Subresource>("R", "subresource", 2).unwrap(), pb::Subresource::Scale);
        assert!(known_enum::<pb::Subresource>("R", "subresource", 3).is_err());
    }
}

//! Translations between the protobuf messages and the domain's options and
//! events; nothing here decides anything.

use std::time::Duration;

use crate::apimachinery::options::{
    DeleteOptions, FieldValidation, ListOptions, ResourceVersionMatch, WatchOptions, WriteOptions,
};
use crate::pb::v1 as pb;
use crate::watch::stream::{EventType, WatchEvent};

pub fn write_options(options: Option<pb::WriteOptions>) -> WriteOptions {
    let options = options.unwrap_or_default();
    let field_validation = match pb::FieldValidation::try_from(options.field_validation) {
        Ok(pb::FieldValidation::Ignore) => FieldValidation::Ignore,
        Ok(pb::FieldValidation::Strict) => FieldValidation::Strict,
        Ok(pb::FieldValidation::Warn | pb::FieldValidation::Unspecified) | Err(_) => FieldValidation::Warn,
    };
    WriteOptions { dry_run: options.dry_run, field_validation, field_manager: options.field_manager }
}

pub fn list_options(options: Option<pb::ListOptions>) -> ListOptions {
    let options = options.unwrap_or_default();
    let resource_version_match = match pb::ResourceVersionMatch::try_from(options.resource_version_match) {
        Ok(pb::ResourceVersionMatch::NotOlderThan) => ResourceVersionMatch::NotOlderThan,
        Ok(pb::ResourceVersionMatch::Exact) => ResourceVersionMatch::Exact,
        Ok(pb::ResourceVersionMatch::Unspecified) | Err(_) => ResourceVersionMatch::Unset,
    };
    ListOptions {
        label_selector: options.label_selector,
        field_selector: options.field_selector,
        limit: options.limit,
        continue_token: options.continue_token,
        resource_version: options.resource_version,
        resource_version_match,
    }
}

pub fn watch_options(options: Option<pb::WatchOptions>) -> WatchOptions {
    let options = options.unwrap_or_default();
    WatchOptions {
        label_selector: options.label_selector,
        field_selector: options.field_selector,
        resource_version: options.resource_version,
        allow_bookmarks: options.allow_bookmarks,
        send_initial_events: options.send_initial_events,
        timeout: (options.timeout_seconds > 0).then(|| Duration::from_secs(options.timeout_seconds as u64)),
    }
}

pub fn delete_options(options: Option<pb::DeleteOptions>) -> DeleteOptions {
    let options = options.unwrap_or_default();
    DeleteOptions {
        precondition_uid: options.precondition_uid,
        precondition_resource_version: options.precondition_resource_version,
        propagation_policy: options.propagation_policy,
        dry_run: options.dry_run,
    }
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
    pb::WatchEvent { r#type: kind as i32, object: event.object.json().to_vec() }
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

//! Patches: RFC 7386 JSON merge patch and RFC 6902 JSON patch (the
//! `json-patch` crate), applied to an object's current state, with
//! Kubernetes' limits on JSON patches (operation count, bytes `copy` may
//! add); strategic merge patch (`strategic`) for the kinds that have it,
//! refused for custom resources as Kubernetes refuses it.

use serde_json::Value;

use super::meta;
use super::strategic::MergeList;
use crate::error::{Error, FieldError, Result};

/// The most operations a JSON patch may hold, as Kubernetes'
/// `maxJSONPatchOperations`.
pub const MAX_JSON_PATCH_OPERATIONS: usize = 10_000;

/// The most bytes the `copy` operations of one JSON patch may add together,
/// as Kubernetes' `JSONPatchMaxCopyBytes` (the request body limit).
pub const MAX_COPY_BYTES: usize = meta::MAX_BODY_BYTES;

/// The media types of the patches every kind takes.
const MEDIA_TYPES: &[&str] =
    &["application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml"];

/// The media types of the patches a kind built into Kubernetes takes:
/// strategic merge patch too.
const BUILTIN_MEDIA_TYPES: &[&str] = &[
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
    "application/apply-patch+yaml",
];

/// The media types of the patches a kind takes, in the order Kubernetes
/// lists them: with strategic merge patch when `strategic`.
pub fn media_types(strategic: bool) -> &'static [&'static str] {
    if strategic {
        BUILTIN_MEDIA_TYPES
    } else {
        MEDIA_TYPES
    }
}

/// The patch type of a media type (parameters dropped), if it is one.
pub fn from_media_type(media: &str) -> Option<PatchType> {
    match media {
        "application/merge-patch+json" => Some(PatchType::Merge),
        "application/json-patch+json" => Some(PatchType::Json),
        "application/strategic-merge-patch+json" => Some(PatchType::StrategicMerge),
        "application/apply-patch+yaml" => Some(PatchType::Apply),
        _ => None,
    }
}

/// The format of a patch document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchType {
    Merge,
    Json,
    StrategicMerge,
    Apply,
}

/// Applies `patch` to `current`, a strategic merge patch with the kind's
/// `merge_lists` (`None`: the kind has none, a custom resource, and the
/// patch is UnsupportedMediaType). A malformed patch is a BadRequest; a failed
/// `test` operation, or `copy` operations adding more than
/// `MAX_COPY_BYTES`, is Invalid; more than `MAX_JSON_PATCH_OPERATIONS`
/// operations is RequestEntityTooLarge, as Kubernetes answers. A patched
/// `metadata.resourceVersion` that is not a string of digits is Invalid at
/// that field.
pub fn apply(
    current: &Value,
    patch_type: PatchType,
    patch: &[u8],
    merge_lists: Option<&[MergeList]>,
    invalid: impl Fn(Vec<FieldError>) -> Error,
) -> Result<Value> {
    let patched = match patch_type {
        PatchType::StrategicMerge => match merge_lists {
            Some(lists) => super::strategic::apply(current, patch, lists)?,
            None => return Err(Error::unknown_media_type(MEDIA_TYPES)),
        },
        PatchType::Apply => {
            return Err(Error::unsupported_media_type(
                "server-side apply is not supported yet: use a JSON merge patch or a JSON patch",
            ))
        }
        PatchType::Merge => {
            let doc: Value = serde_json::from_slice(patch)
                .map_err(|e| Error::bad_request(format!("the patch is not valid JSON: {e}")))?;
            if !doc.is_object() {
                return Err(Error::bad_request("a JSON merge patch must be a JSON object"));
            }
            let mut patched = current.clone();
            json_patch::merge(&mut patched, &doc);
            patched
        }
        PatchType::Json => {
            let ops: json_patch::Patch = serde_json::from_slice(patch)
                .map_err(|e| Error::bad_request(format!("the JSON patch is malformed: {e}")))?;
            if ops.0.len() > MAX_JSON_PATCH_OPERATIONS {
                return Err(Error::too_large(format!(
                    "The allowed maximum operations in a JSON patch is {MAX_JSON_PATCH_OPERATIONS}, got {}",
                    ops.0.len()
                )));
            }
            let mut patched = current.clone();
            apply_json_patch(&mut patched, &ops.0, &invalid)?;
            patched
        }
    };
    if let Some(cause) = meta::check_resource_version_type(&patched) {
        return Err(invalid(vec![cause]));
    }
    Ok(patched)
}

/// Applies the operations one by one to `doc` (a copy the caller discards
/// on error), counting what each `copy` adds before it is made, as
/// json-patch's `AccumulatedCopySizeLimit` does.
fn apply_json_patch(
    doc: &mut Value,
    ops: &[json_patch::PatchOperation],
    invalid: &impl Fn(Vec<FieldError>) -> Error,
) -> Result<()> {
    let mut copied = 0usize;
    for (index, op) in ops.iter().enumerate() {
        if let json_patch::PatchOperation::Copy(copy) = op {
            if let Some(value) = doc.pointer(copy.from.as_str()) {
                copied = copied.saturating_add(meta::encoded_size(value));
                if copied > MAX_COPY_BYTES {
                    return Err(invalid(vec![FieldError::invalid_without_value(
                        "patch",
                        format!(
                            "unable to complete the copy, the accumulated size increase of copy is {copied}, \
                             exceeding the limit {MAX_COPY_BYTES}"
                        ),
                    )]));
                }
            }
        }
        json_patch::patch_unsafe(doc, std::slice::from_ref(op)).map_err(|mut e| {
            e.operation = index;
            match e.kind {
                json_patch::PatchErrorKind::TestFailed => invalid(vec![FieldError::invalid_without_value(
                    "patch",
                    format!("the test operation failed: the value at {} does not match", e.path),
                )]),
                _ => Error::bad_request(format!("the JSON patch could not be applied: {e}")),
            }
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn invalid(causes: Vec<FieldError>) -> Error {
        Error::invalid("g", "K", "n", causes)
    }

    /// `super::apply` for a custom resource.
    fn apply(
        current: &Value,
        patch_type: PatchType,
        patch: &[u8],
        invalid: fn(Vec<FieldError>) -> Error,
    ) -> Result<Value> {
        super::apply(current, patch_type, patch, None, invalid)
    }

    #[test]
    fn merge_patch_sets_and_removes() {
        let cur = json!({"spec": {"a": 1, "b": 2}});
        let out = apply(&cur, PatchType::Merge, br#"{"spec": {"a": 3, "b": null}}"#, invalid).unwrap();
        assert_eq!(out, json!({"spec": {"a": 3}}));
    }

    #[test]
    fn json_patch_test_failure_is_invalid_and_malformed_is_bad_request() {
        let cur = json!({"spec": {"a": 1}});
        let err =
            apply(&cur, PatchType::Json, br#"[{"op": "test", "path": "/spec/a", "value": 2}]"#, invalid).unwrap_err();
        assert_eq!(err.reason, crate::error::Reason::Invalid);
        let err = apply(&cur, PatchType::Json, br#"[{"op": "jump"}]"#, invalid).unwrap_err();
        assert_eq!(err.reason, crate::error::Reason::BadRequest);
        let ok =
            apply(&cur, PatchType::Json, br#"[{"op": "replace", "path": "/spec/a", "value": 5}]"#, invalid).unwrap();
        assert_eq!(ok["spec"]["a"], 5);
    }

    #[test]
    fn too_many_operations_are_refused_before_any_is_applied() {
        let op = r#"{"op": "add", "path": "/a", "value": 1}"#;
        let ok = format!("[{}]", vec![op; MAX_JSON_PATCH_OPERATIONS].join(","));
        assert!(apply(&json!({}), PatchType::Json, ok.as_bytes(), invalid).is_ok());
        let over = format!("[{}]", vec![op; MAX_JSON_PATCH_OPERATIONS + 1].join(","));
        let err = apply(&json!({}), PatchType::Json, over.as_bytes(), invalid).unwrap_err();
        assert_eq!(err.reason, crate::error::Reason::RequestEntityTooLarge);
        assert_eq!(err.message, "The allowed maximum operations in a JSON patch is 10000, got 10001");
    }

    #[test]
    fn copies_may_not_add_more_than_the_limit() {
        let big = "x".repeat(1024 * 1024);
        let cur = json!({"spec": {"a": big}});
        let double =
            br#"[{"op": "copy", "from": "/spec", "path": "/b"}, {"op": "copy", "from": "/spec", "path": "/c"}]"#;
        let out = apply(&cur, PatchType::Json, double, invalid).unwrap();
        assert_eq!(out["c"]["a"].as_str().unwrap().len(), big.len());
        // Each copy of the whole object doubles it: the third passes the limit.
        let amplify = br#"[{"op": "copy", "from": "", "path": "/b"}, {"op": "copy", "from": "", "path": "/c"}]"#;
        let err = apply(&cur, PatchType::Json, amplify, invalid).unwrap_err();
        assert_eq!(err.reason, crate::error::Reason::Invalid);
        assert_eq!(err.details.causes[0].field, "patch");
        assert!(err.message.contains("the accumulated size increase of copy is"), "{}", err.message);
        assert!(err.message.contains("exceeding the limit 3145728"), "{}", err.message);
    }

    #[test]
    fn failed_operations_name_their_index() {
        let cur = json!({"a": 1});
        let err = apply(
            &cur,
            PatchType::Json,
            br#"[{"op": "add", "path": "/b", "value": 1}, {"op": "remove", "path": "/x"}]"#,
            invalid,
        )
        .unwrap_err();
        assert!(err.message.contains("operation '/1'"), "{}", err.message);
    }

    #[test]
    fn a_patched_resource_version_must_be_a_string_of_digits() {
        let cur = json!({"metadata": {"name": "a", "resourceVersion": "5"}});
        for (kind, patch) in [
            (PatchType::Merge, &br#"{"metadata": {"resourceVersion": 5}}"#[..]),
            (PatchType::Json, br#"[{"op": "replace", "path": "/metadata/resourceVersion", "value": 5}]"#),
            (PatchType::Merge, br#"{"metadata": {"resourceVersion": "+5"}}"#),
        ] {
            let err = apply(&cur, kind, patch, invalid).unwrap_err();
            assert_eq!(err.reason, crate::error::Reason::Invalid);
            assert_eq!(err.details.causes[0].field, "metadata.resourceVersion");
        }
        assert!(apply(&cur, PatchType::Merge, br#"{"metadata": {"resourceVersion": "6"}}"#, invalid).is_ok());
    }

    #[test]
    fn strategic_merge_is_refused_for_custom_resources_only() {
        let err = apply(&json!({}), PatchType::StrategicMerge, b"{}", invalid).unwrap_err();
        assert_eq!(err.reason, crate::error::Reason::UnsupportedMediaType);
        assert_eq!(err.message, "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml");
        let lists = [("spec.items", Some("name"))];
        let cur = json!({"spec": {"items": [{"name": "a", "v": 1}]}});
        let patch = br#"{"spec": {"items": [{"name": "b"}]}}"#;
        let out = super::apply(&cur, PatchType::StrategicMerge, patch, Some(&lists), invalid).unwrap();
        assert_eq!(out["spec"]["items"], json!([{"name": "a", "v": 1}, {"name": "b"}]));
    }
}

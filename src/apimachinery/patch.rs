//! Patches: RFC 7386 JSON merge patch and RFC 6902 JSON patch (the
//! `json-patch` crate), applied to an object's current state. Strategic
//! merge patch is refused, as Kubernetes refuses it for custom resources.

use serde_json::Value;

use crate::error::{Error, FieldError, Result};

/// The format of a patch document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchType {
    Merge,
    Json,
    StrategicMerge,
    Apply,
}

/// Applies `patch` to `current`. A malformed patch is a BadRequest; a failed
/// `test` operation is Invalid, as Kubernetes answers.
pub fn apply(
    current: &Value,
    patch_type: PatchType,
    patch: &[u8],
    invalid: impl Fn(Vec<FieldError>) -> Error,
) -> Result<Value> {
    match patch_type {
        PatchType::StrategicMerge => Err(Error::unsupported_media_type(
            "strategic merge patch is not supported for custom resources: use a JSON merge patch \
             (application/merge-patch+json) or a JSON patch (application/json-patch+json)",
        )),
        PatchType::Apply => Err(Error::unsupported_media_type(
            "server-side apply is not supported yet: use a JSON merge patch or a JSON patch",
        )),
        PatchType::Merge => {
            let doc: Value = serde_json::from_slice(patch)
                .map_err(|e| Error::bad_request(format!("the patch is not valid JSON: {e}")))?;
            if !doc.is_object() {
                return Err(Error::bad_request("a JSON merge patch must be a JSON object"));
            }
            let mut patched = current.clone();
            json_patch::merge(&mut patched, &doc);
            Ok(patched)
        }
        PatchType::Json => {
            let ops: json_patch::Patch = serde_json::from_slice(patch)
                .map_err(|e| Error::bad_request(format!("the JSON patch is malformed: {e}")))?;
            let mut patched = current.clone();
            json_patch::patch(&mut patched, &ops).map_err(|e| match e.kind {
                json_patch::PatchErrorKind::TestFailed => invalid(vec![FieldError::invalid_without_value(
                    "patch",
                    format!("the test operation failed: the value at {} does not match", e.path),
                )]),
                _ => Error::bad_request(format!("the JSON patch could not be applied: {e}")),
            })?;
            Ok(patched)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn invalid(causes: Vec<FieldError>) -> Error {
        Error::invalid("g", "K", "n", causes)
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
    fn strategic_merge_is_refused() {
        let err = apply(&json!({}), PatchType::StrategicMerge, b"{}", invalid).unwrap_err();
        assert_eq!(err.reason, crate::error::Reason::UnsupportedMediaType);
    }
}

//! Server-side apply, as sigs.k8s.io/structured-merge-diff and
//! k8s.io/apiserver's fieldmanager: field paths and sets with the FieldsV1
//! codec (`path`), the typed view of an object over a version's compiled
//! schema with its field set, comparison, merge and removal (`typed`), and
//! `metadata.managedFields` with the Update and Apply operations,
//! conflicts and stripping (`managed`) over its entries, their codec and
//! cap (`entries`). Writers plug it in as the managed-fields phase of the
//! strategy contract.

pub mod entries;
pub mod managed;
pub mod path;
pub mod typed;

pub use managed::{manager_from, validate_field_manager, FieldManager, Operation};
pub use path::{PathElement, Set};
pub use typed::Ty;

use crate::apimachinery::options::WriteOptions;
use crate::apimachinery::patch::PatchType;
use crate::error::{Error, FieldError, Result};

/// The time of a managedFields entry: now, in RFC 3339 with seconds.
pub fn now() -> String {
    crate::apimachinery::meta::now_timestamp()
}

/// The reset fields of an endpoint, as prefixes: `status` on the main
/// endpoint of a kind with a status subresource; `metadata` and `spec` on
/// the status endpoint (the status strategies keep the stored metadata, and
/// Kubernetes 1.36 resets `metadata` there for custom resources too).
pub fn reset_fields(status_subresource: bool, status_endpoint: bool) -> Set {
    let mut set = Set::new();
    let f = |s: &str| PathElement::Field(s.into());
    if status_endpoint {
        set.insert(&[f("metadata")]);
        set.insert(&[f("spec")]);
    } else if status_subresource {
        set.insert(&[f("status")]);
    }
    set
}

/// How a write's managedFields are recorded (the strategy contract's
/// managed-fields phase).
pub enum Tracking<'s> {
    /// An Update by `manager`.
    Update { fm: FieldManager<'s>, manager: String },
    /// An apply: the managedFields the merge computed, kept as they are.
    Applied,
}

impl crate::apimachinery::strategy::Track for Tracking<'_> {
    fn track(
        &self,
        obj: &mut serde_json::Value,
        old: Option<&serde_json::Value>,
        requested: Option<serde_json::Value>,
    ) {
        if let (Some(requested), Some(meta)) = (requested, obj.get_mut("metadata").and_then(|m| m.as_object_mut())) {
            meta.insert("managedFields".into(), requested);
        }
        if let Tracking::Update { fm, manager } = self {
            fm.update(old, obj, manager);
        }
    }
}

/// `fieldManager` checked as Kubernetes' `ValidateFieldManager`, an
/// Invalid `<kind>.meta.k8s.io` (CreateOptions, UpdateOptions, PatchOptions).
pub fn check_field_manager(kind: &str, options: &WriteOptions) -> Result<()> {
    let errs = validate_field_manager(&options.field_manager);
    match errs.is_empty() {
        true => Ok(()),
        false => Err(Error::invalid("meta.k8s.io", kind, "", errs)),
    }
}

/// A patch's options as `ValidatePatchOptions`: an apply needs a
/// `fieldManager`; `force` is for applies only.
pub fn check_patch_options(patch_type: PatchType, options: &WriteOptions) -> Result<()> {
    let mut errs = Vec::new();
    if patch_type == PatchType::Apply {
        if options.field_manager.is_empty() {
            errs.push(FieldError::required("fieldManager", "is required for apply patch"));
        }
    } else if options.force {
        errs.push(FieldError::forbidden("force", "may not be specified for non-apply patch"));
    }
    errs.extend(validate_field_manager(&options.field_manager));
    match errs.is_empty() {
        true => Ok(()),
        false => Err(Error::invalid("meta.k8s.io", "PatchOptions", "", errs)),
    }
}

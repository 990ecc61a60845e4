//! A list's, a watch's and a delete-collection's selectors, at the request
//! version: labels, and fields as Kubernetes' `ConvertFieldLabel` of a
//! custom resource accepts them (`metadata.name`, `metadata.namespace` for
//! namespaced resources, the version's `selectableFields`).

use std::sync::Arc;

use serde_json::Value;

use crate::apimachinery::meta;
use crate::apimachinery::selector::{FieldSelector, LabelSelector};
use crate::error::Result;
use crate::resource::served::{self, KindHooks, Served};
use crate::watch::stream;

/// A list's or a watch's label and field selectors, at the request version:
/// fields are `metadata.name`, `metadata.namespace` (namespaced resources)
/// and the version's selectable fields, as Kubernetes' `ConvertFieldLabel`
/// of a custom resource accepts them.
pub(super) struct Selectors {
    pub(super) labels: LabelSelector,
    pub(super) fields: FieldSelector,
    /// A built-in kind's hooks, whose own field labels (an event's
    /// `involvedObject.name`) they read.
    pub(super) hooks: Option<Arc<dyn KindHooks>>,
}

const META_FIELDS: &[&str] = &["metadata.name", "metadata.namespace"];

impl Selectors {
    /// None when there are none.
    pub(super) fn parse(
        served: &Served,
        version: &str,
        label_selector: &str,
        field_selector: &str,
    ) -> Result<Option<Self>> {
        let labels = LabelSelector::parse(label_selector)?;
        let mut supported = served.selectable_fields();
        if let Some(v) = served.version(version) {
            supported.extend(v.selectable.iter().map(String::as_str));
        }
        let fields = FieldSelector::parse(field_selector, &supported)?;
        Ok((!labels.is_empty() || !fields.is_empty()).then_some(Self { labels, fields, hooks: served.hooks.clone() }))
    }

    /// Whether the fields read more than an object's name and namespace
    /// (a selectable field, read from the object at the request version, or
    /// a built-in kind's own field label).
    pub(super) fn needs_object(&self) -> bool {
        !self.fields.only(META_FIELDS)
    }

    pub(super) fn matches(&self, obj: &Value) -> bool {
        self.labels.matches(&meta::labels(obj))
            && self.fields.matches(|f| match f {
                "metadata.name" => meta::meta_str(obj, "name").to_string(),
                "metadata.namespace" => meta::meta_str(obj, "namespace").to_string(),
                label if self.own(label) => served::field_value(self.hooks.as_deref(), obj, label),
                path => crate::apimachinery::selector::field_value(obj, path),
            })
    }

    /// Whether `label` is one of the built-in kind's own field labels.
    fn own(&self, label: &str) -> bool {
        self.hooks.as_ref().is_some_and(|hooks| hooks.selectable_fields().iter().any(|(field, _)| *field == label))
    }

    pub(super) fn into_matches(self) -> stream::Matches {
        Arc::new(move |obj: &Value| self.matches(obj))
    }
}

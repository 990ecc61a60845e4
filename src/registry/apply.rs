//! Server-side apply of definitions (`kubectl apply --server-side -f
//! crd.yaml`) and the managed-fields phase of their other writes. A
//! definition is typed as an object whose fields are deduced (maps
//! granular, lists atomic), with ObjectMeta's schema for its metadata.

use serde_json::Value;

use super::{Registry, GROUP, RESOURCE};
use crate::apimachinery::options::{WriteOptions, Written};
use crate::apimachinery::strategy::retry;
use crate::apimachinery::strategy::Endpoint;
use crate::apply::{self, FieldManager, Tracking, Ty};
use crate::error::{Error, Reason, Result};

pub use crate::apply::{check_field_manager, check_patch_options};

fn field_manager(endpoint: Endpoint) -> FieldManager<'static> {
    let status = endpoint == Endpoint::Status;
    FieldManager {
        ty: Ty::root(None),
        api_version: format!("{GROUP}/v1"),
        kind: "CustomResourceDefinition".into(),
        subresource: if status { "status".into() } else { String::new() },
        reset: apply::reset_fields(true, status, true),
        now: apply::now(),
    }
}

/// How a definition write records its managedFields.
pub fn tracking(endpoint: Endpoint, options: &WriteOptions, applied: bool) -> Tracking<'static> {
    match applied {
        true => Tracking::Applied,
        false => Tracking::Update { fm: field_manager(endpoint), manager: options.field_manager.clone() },
    }
}

impl Registry {
    /// Applies a definition's configuration (a PATCH of type Apply);
    /// creates it when absent, and says whether it did.
    pub async fn apply(
        &self,
        name: &str,
        endpoint: Endpoint,
        patch: &[u8],
        options: &WriteOptions,
    ) -> Result<(Written, bool)> {
        check_patch_options(crate::apimachinery::patch::PatchType::Apply, options)?;
        crate::apimachinery::meta::check_body_size(patch)?;
        let (config, _) = crate::apimachinery::decode::object(patch)?;
        if crate::apimachinery::meta::meta_str(&config, "name") != name {
            return Err(Error::bad_request("the name of the object does not match the name on the URL"));
        }
        let fm = field_manager(endpoint);
        retry(
            || async {
                let current = match self.get(name) {
                    Ok(current) => current,
                    Err(e) if e.reason == Reason::NotFound && endpoint == Endpoint::Main => {
                        let merged = fm.apply(None, &config, &options.field_manager, options.force)?;
                        let body = to_vec(&merged)?;
                        return self.create_tracked(&body, options, true).await.map(|w| Some((w, true)));
                    }
                    Err(e) => return Err(e),
                };
                let merged = fm.apply(Some(&current), &config, &options.field_manager, options.force)?;
                let pinned = config.pointer("/metadata/resourceVersion").is_some();
                let body = to_vec(&merged)?;
                match self.replace(&body, endpoint, options, true).await {
                    Err(e) if e.reason == Reason::Conflict && !pinned && e.details.causes.is_empty() => Ok(None),
                    result => result.map(|w| Some((w, false))),
                }
            },
            || Error::stale(GROUP, RESOURCE, name),
        )
        .await
    }
}

fn to_vec(v: &Value) -> Result<Vec<u8>> {
    serde_json::to_vec(v).map_err(|e| Error::internal(e.to_string()))
}

//! The cleanup of deleted definitions (`thirdpartyresources-beta.md`): for
//! every terminating definition, delete each instance through the normal
//! delete path (instances with finalizers are marked and keep the
//! definition terminating until their finalizers are removed), then remove
//! the definition. It starts by looking for terminating definitions, so it
//! resumes after a restart.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

use super::{Ref, Resources};
use crate::apimachinery::options::DeleteOptions;
use crate::error::Result;
use crate::registry::Registry;
use crate::storage::{keys, ReadAt, Storage};
use crate::watch::stream::until_stopped;

/// How often a definition whose instances wait on finalizers is looked at.
const RECHECK: Duration = Duration::from_millis(250);
/// How often the task looks even without being asked.
const IDLE: Duration = Duration::from_secs(5);

/// Runs until the server stops.
pub async fn run(
    store: Arc<dyn Storage>,
    registry: Arc<Registry>,
    resources: Arc<Resources>,
    stopped: tokio::sync::watch::Receiver<bool>,
) {
    let stop = until_stopped(stopped);
    tokio::pin!(stop);
    loop {
        let pending = match registry.terminating() {
            Ok(definitions) => definitions,
            Err(err) => {
                tracing::warn!(error = %err, "cleanup could not list definitions");
                Vec::new()
            }
        };
        let mut waiting = false;
        for crd in &pending {
            match clean(store.as_ref(), &registry, &resources, crd).await {
                Ok(done) => waiting |= !done,
                Err(err) => {
                    waiting = true;
                    tracing::warn!(error = %err, definition = ?crd.metadata.name, "cleanup failed; will retry");
                }
            }
        }
        let pause = if waiting { RECHECK } else { IDLE };
        tokio::select! {
            _ = &mut stop => return,
            _ = crate::registry::cleanup_requested() => {}
            _ = tokio::time::sleep(pause) => {}
        }
    }
}

/// Deletes the instances of `crd`; removes it once none is left. Returns
/// whether it is gone.
async fn clean(
    store: &dyn Storage,
    registry: &Registry,
    resources: &Resources,
    crd: &CustomResourceDefinition,
) -> Result<bool> {
    let name = crd.metadata.name.clone().unwrap_or_default();
    let Some(version) = crd.spec.versions.iter().find(|v| v.served).map(|v| v.name.clone()) else {
        return registry.finish_deletion(&name).await;
    };
    let prefix = keys::resource_prefix(&crd.spec.group, &crd.spec.names.plural);
    let instances = store.range(&prefix, None, ReadAt::Latest, 0, &mut |_| true)?;
    if !instances.items.is_empty() {
        registry.note_cleanup(&name, "InstanceDeletionInProgress", "CustomResource deletion is in progress").await?;
    }
    for kv in &instances.items {
        let rest = kv.key.trim_start_matches(prefix.as_str());
        let (namespace, object) = rest.rsplit_once('/').unwrap_or(("", rest));
        let r = Ref {
            group: crd.spec.group.clone(),
            version: version.clone(),
            resource: crd.spec.names.plural.clone(),
            namespace: namespace.to_string(),
            name: object.to_string(),
        };
        // At the storage version, without converting the answer: a
        // definition is often deleted together with its conversion webhook.
        match resources.delete_unconverted(&r, &DeleteOptions::default()).await {
            Ok(_) => {}
            Err(err) if err.reason == crate::error::Reason::NotFound => {}
            Err(err) => return Err(err),
        }
    }
    let done = registry.finish_deletion(&name).await?;
    if done {
        tracing::info!(definition = %name, "cleaned up and removed definition");
    }
    Ok(done)
}

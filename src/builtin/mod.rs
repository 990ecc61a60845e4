//! The kinds Kubernetes builds in that controllers and tools expect to
//! find: core/v1 `Namespace` (with its lifecycle), `coordination.k8s.io/v1`
//! `Lease`, core/v1 and `events.k8s.io/v1` `Event` (with a time-to-live),
//! and `storagemigration.k8s.io/v1` `StorageVersionMigration`.
//! Each is a definition compiled into the binary (`kinds`), served by the
//! same resource service as custom resources, plus the hooks of its
//! Kubernetes strategy; the namespace deletion and the event sweep run as
//! background tasks over that service.

pub mod event;
pub mod event_table;
pub mod kinds;
pub mod lease;
pub mod lifecycle;
pub mod namespace;
pub mod storage_migration;
pub mod ttl;

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

pub use namespace::Lifecycle;

use crate::apimachinery::options::WriteOptions;
use crate::error::{Reason, Result};
use crate::registry::Registry;
use crate::resource::served::{KindHooks, Served};
use crate::resource::{Ref, Resources};
use crate::storage::{Revision, Storage};

/// Every built-in kind's definition with its hooks.
fn kinds() -> Vec<(crate::registry::definition::Definition, Arc<dyn KindHooks>)> {
    vec![
        (kinds::namespace(), Arc::new(namespace::Hooks)),
        (kinds::lease(), Arc::new(lease::Hooks)),
        (kinds::core_event(), Arc::new(event::Hooks { core: true })),
        (kinds::events_event(), Arc::new(event::Hooks { core: false })),
        (kinds::storage_version_migration(), Arc::new(storage_migration::Hooks)),
    ]
}

/// The built-in kinds' definitions, for OpenAPI.
pub fn definitions() -> Vec<crate::registry::definition::Definition> {
    kinds().into_iter().map(|(crd, _)| crd).collect()
}

/// `definitions()` as Kubernetes' type, for discovery.
pub fn discovery() -> Vec<CustomResourceDefinition> {
    kinds().into_iter().map(|(crd, _)| crd.crd).collect()
}

/// The built-in kinds, as served.
pub fn served() -> Vec<Served> {
    kinds()
        .into_iter()
        .filter_map(|(crd, hooks)| {
            let mut served = Served::compile(&crd, Revision::ZERO, crate::conversion::webhook::DEFAULT_TIMEOUT)?;
            served.hooks = Some(hooks);
            if served.group == "events.k8s.io" {
                // One stored object with core/v1's Event: every read and
                // write at v1 converts.
                served.converter = Arc::new(crate::conversion::Converter::native(&served.group, event::convert));
                for version in &mut served.versions {
                    version.plain = version.name == served.storage_version;
                }
            }
            Some(served)
        })
        .collect()
}

/// `resources`, serving the built-in kinds, every namespaced create passing
/// the namespace lifecycle.
pub fn serve(resources: Resources, lifecycle: Lifecycle) -> Resources {
    resources.with_builtins(served(), Arc::new(namespace::NamespaceAdmission { lifecycle }))
}

/// Creates the namespaces Kubernetes creates at start, when missing.
pub async fn bootstrap(resources: &Resources) -> Result<()> {
    for name in namespace::SYSTEM {
        let r = Ref { group: String::new(), version: "v1".into(), resource: "namespaces".into(), ..Ref::default() };
        let body = serde_json::json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}});
        match resources.create(&r, body.to_string().as_bytes(), &WriteOptions::default()).await {
            Err(err) if err.reason != Reason::AlreadyExists => return Err(err),
            _ => {}
        }
    }
    Ok(())
}

/// Starts the namespace deletion and the event sweep; both end when the
/// server stops.
pub fn start(
    store: Arc<dyn Storage>,
    registry: Arc<Registry>,
    resources: Arc<Resources>,
    event_ttl: Duration,
    stopped: tokio::sync::watch::Receiver<bool>,
) {
    tokio::spawn(lifecycle::run(store, registry, resources.clone(), stopped.clone()));
    tokio::spawn(ttl::run(resources, event_ttl, stopped));
}

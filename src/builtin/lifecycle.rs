//! The namespace controller's deletion (Kubernetes'
//! `pkg/controller/namespace/deletion`): for every terminating namespace,
//! the ordinary delete-collection of each served namespaced resource in it
//! (finalizers respected), the namespace's conditions as upstream sets
//! them, then the `kubernetes` finalizer removed and the namespace gone.
//! It starts from the stored namespaces, so it resumes after a restart.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use super::namespace::{spec_finalizers, FINALIZER};
use crate::apimachinery::meta;
use crate::apimachinery::options::{DeleteOptions, ListOptions};
use crate::error::Result;
use crate::registry::Registry;
use crate::resource::served::Served;
use crate::resource::{strategy, Ref, Resources};
use crate::storage::{keys, Op, Storage, StorageError};
use crate::watch::stream::until_stopped;

/// How often a terminating namespace is looked at again.
const RECHECK: Duration = Duration::from_millis(200);
/// How often the task looks when nothing is terminating.
const IDLE: Duration = Duration::from_secs(1);

/// The condition types the deleter maintains, with their success reasons
/// and messages (`status_condition_utils.go`).
const CONDITIONS: &[(&str, &str, &str)] = &[
    ("NamespaceDeletionDiscoveryFailure", "ResourcesDiscovered", "All resources successfully discovered"),
    ("NamespaceDeletionGroupVersionParsingFailure", "ParsedGroupVersions", "All legacy kube types successfully parsed"),
    (
        "NamespaceDeletionContentFailure",
        "ContentDeleted",
        "All content successfully deleted, may be waiting on finalization",
    ),
    ("NamespaceContentRemaining", "ContentRemoved", "All content successfully removed"),
    ("NamespaceFinalizersRemaining", "ContentHasNoFinalizers", "All content-preserving finalizers finished"),
];

fn namespaces_ref(name: &str) -> Ref {
    Ref {
        group: String::new(),
        version: "v1".into(),
        resource: "namespaces".into(),
        namespace: String::new(),
        name: name.into(),
    }
}

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
        let waiting = match pass(store.as_ref(), &registry, &resources).await {
            Ok(waiting) => waiting,
            Err(err) => {
                tracing::warn!(error = %err, "namespace deletion pass failed; will retry");
                true
            }
        };
        tokio::select! {
            _ = &mut stop => return,
            _ = tokio::time::sleep(if waiting { RECHECK } else { IDLE }) => {}
        }
    }
}

/// One look at every namespace; true when one is still terminating.
async fn pass(store: &dyn Storage, registry: &Registry, resources: &Resources) -> Result<bool> {
    let page = resources.list(&namespaces_ref(""), &ListOptions::default()).await?;
    let mut waiting = false;
    for ns in page.items.iter().filter(|ns| meta::deleting(ns)) {
        let name = meta::meta_str(ns, "name");
        if !spec_finalizers(ns).iter().any(|f| f == FINALIZER) {
            continue;
        }
        waiting = true;
        if let Err(err) = delete_namespace(store, registry, resources, name).await {
            tracing::warn!(error = %err, namespace = name, "namespace deletion failed; will retry");
        }
    }
    Ok(waiting)
}

/// What deleting a namespace's content found.
#[derive(Default)]
struct Totals {
    /// `<plural>.<group>` to the objects left.
    remaining: BTreeMap<String, usize>,
    /// Finalizer to the objects it keeps.
    finalizers: BTreeMap<String, usize>,
    errors: Vec<String>,
    discovery: Option<String>,
}

/// Every served namespaced resource, at its storage version.
fn namespaced(registry: &Registry, resources: &Resources) -> (Vec<Arc<Served>>, Option<String>) {
    let mut out: Vec<Arc<Served>> = resources.builtins().into_iter().filter(|s| s.namespaced()).collect();
    let mut failure = None;
    match registry.all() {
        Ok(definitions) => {
            for crd in definitions {
                let (group, plural) = (&crd.spec.group, &crd.spec.names.plural);
                let Some(version) = crate::registry::definition::storage_version(&crd) else { continue };
                if let Ok(served) = resources.served(group, version, plural) {
                    if served.namespaced() && served.hooks.is_none() {
                        out.push(served);
                    }
                }
            }
        }
        Err(err) => failure = Some(err.message),
    }
    (out, failure)
}

async fn delete_content(registry: &Registry, resources: &Resources, namespace: &str) -> Totals {
    let (served, discovery) = namespaced(registry, resources);
    let mut totals = Totals { discovery, ..Totals::default() };
    for served in served {
        let version = served.versions.iter().find(|v| v.served).map(|v| v.name.clone()).unwrap_or_default();
        let r = Ref {
            group: served.group.clone(),
            version,
            resource: served.plural.clone(),
            namespace: namespace.to_string(),
            name: String::new(),
        };
        let what = format!("{}.{}", served.plural, served.group);
        match resources.delete_collection(&r, &ListOptions::default(), &DeleteOptions::default()).await {
            Ok(left) => {
                let left: Vec<&Value> = left.iter().filter(|o| meta::deleting(o)).collect();
                if !left.is_empty() {
                    *totals.remaining.entry(what).or_default() += left.len();
                    for obj in left {
                        for f in meta::finalizers(obj) {
                            *totals.finalizers.entry(f).or_default() += 1;
                        }
                    }
                }
            }
            Err(err) => totals.errors.push(err.message),
        }
    }
    totals
}

/// Upstream's conditions for what was found: a failing condition is True
/// with its failure reason, the others False with their success words.
fn conditions(totals: &Totals) -> Vec<(&'static str, &'static str, &'static str, String)> {
    let mut failing: BTreeMap<&str, (&str, String)> = BTreeMap::new();
    if let Some(err) = &totals.discovery {
        failing.insert("NamespaceDeletionDiscoveryFailure", ("DiscoveryFailed", err.clone()));
    }
    if !totals.errors.is_empty() {
        let mut msgs = totals.errors.clone();
        msgs.sort();
        let message = format!("Failed to delete all resource types, {} remaining: {}", msgs.len(), msgs.join(", "));
        failing.insert("NamespaceDeletionContentFailure", ("ContentDeletionFailed", message));
    }
    if !totals.remaining.is_empty() {
        let mut parts: Vec<String> =
            totals.remaining.iter().map(|(what, n)| format!("{what} has {n} resource instances")).collect();
        parts.sort();
        failing.insert(
            "NamespaceContentRemaining",
            ("SomeResourcesRemain", format!("Some resources are remaining: {}", parts.join(", "))),
        );
    }
    if !totals.finalizers.is_empty() {
        let mut parts: Vec<String> =
            totals.finalizers.iter().map(|(f, n)| format!("{f} in {n} resource instances")).collect();
        parts.sort();
        failing.insert(
            "NamespaceFinalizersRemaining",
            (
                "SomeFinalizersRemain",
                format!("Some content in the namespace has finalizers remaining: {}", parts.join(", ")),
            ),
        );
    }
    CONDITIONS
        .iter()
        .map(|(type_, ok_reason, ok_message)| match failing.remove(type_) {
            Some((reason, message)) => (*type_, "True", reason, message),
            None => (*type_, "False", *ok_reason, ok_message.to_string()),
        })
        .collect()
}

/// `updateConditions`: each condition set, its transition time moved only
/// when its status changes. True when anything changed.
fn update_conditions(ns: &mut Value, new: &[(&str, &str, &str, String)]) -> bool {
    let now = meta::now_timestamp();
    let mut list: Vec<Value> = ns.pointer("/status/conditions").and_then(Value::as_array).cloned().unwrap_or_default();
    let mut changed = false;
    for (type_, status, reason, message) in new {
        match list.iter_mut().find(|c| c["type"] == *type_) {
            None => {
                list.push(json!({"type": type_, "status": status, "lastTransitionTime": now, "reason": reason, "message": message}));
                changed = true;
            }
            Some(old) if old["status"] != *status || old["reason"] != *reason || old["message"] != *message => {
                if old["status"] != *status {
                    old["lastTransitionTime"] = json!(now);
                }
                old["status"] = json!(status);
                old["reason"] = json!(reason);
                old["message"] = json!(message);
                changed = true;
            }
            Some(_) => {}
        }
    }
    ns["status"]["conditions"] = Value::Array(list);
    changed
}

/// One round of deleting a namespace: its content, its conditions, and,
/// once nothing is left, its finalizer and itself.
async fn delete_namespace(store: &dyn Storage, registry: &Registry, resources: &Resources, name: &str) -> Result<()> {
    let totals = delete_content(registry, resources, name).await;
    let done = totals.remaining.is_empty() && totals.errors.is_empty() && totals.discovery.is_none();
    let served = resources.served("", "v1", "namespaces")?;
    let key = keys::namespace_key(name);
    let Some(kv) = store.get(&key) else { return Ok(()) };
    let mut ns = crate::resource::stored::at_storage(&served, &kv)?;
    let changed = update_conditions(&mut ns, &conditions(&totals));
    let op = if done {
        let finalizers: Vec<String> = spec_finalizers(&ns).into_iter().filter(|f| f != FINALIZER).collect();
        ns["spec"]["finalizers"] = json!(finalizers);
        if finalizers.is_empty() && meta::finalizers(&ns).is_empty() {
            Op::delete(key, kv.mod_revision)
        } else {
            Op::update(key, kv.mod_revision, strategy::to_stored(&served, &ns))
        }
    } else if changed {
        Op::update(key, kv.mod_revision, strategy::to_stored(&served, &ns))
    } else {
        return Ok(());
    };
    match store.commit(vec![op]).await {
        // Changed meanwhile: the next pass looks again.
        Err(StorageError::PreconditionFailed { .. }) => Ok(()),
        other => other.map(|_| ()).map_err(Into::into),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_name_what_remains_as_upstream_does() {
        let mut totals = Totals::default();
        totals.remaining.insert("widgets.example.com".into(), 2);
        totals.finalizers.insert("example.com/hold".into(), 2);
        let all = conditions(&totals);
        assert_eq!(all.len(), 5);
        let remaining = all.iter().find(|c| c.0 == "NamespaceContentRemaining").unwrap();
        assert_eq!(remaining.1, "True");
        assert_eq!(remaining.3, "Some resources are remaining: widgets.example.com has 2 resource instances");
        let finalizers = all.iter().find(|c| c.0 == "NamespaceFinalizersRemaining").unwrap();
        assert_eq!(
            finalizers.3,
            "Some content in the namespace has finalizers remaining: example.com/hold in 2 resource instances"
        );
        let ok = all.iter().find(|c| c.0 == "NamespaceDeletionDiscoveryFailure").unwrap();
        assert_eq!((ok.1, ok.2), ("False", "ResourcesDiscovered"));
    }
}

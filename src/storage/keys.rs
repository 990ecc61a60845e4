//! The whole key space in one place: the storage keys of definitions and
//! resources, and how the sled backend lays records, the event log and its
//! metadata out in its single tree.
//!
//! Storage keys (what `Storage` callers see), Kubernetes-style:
//!
//! | key                                                          | value |
//! |--------------------------------------------------------------|-------|
//! | `/registry/apiextensions.k8s.io/customresourcedefinitions/<name>` | a `CustomResourceDefinition` as JSON |
//! | `/registry/<group>/<plural>/<namespace>/<name>`              | a namespaced custom resource, in the storage version, as JSON |
//! | `/registry/<group>/<plural>/<name>`                          | a cluster-scoped custom resource, as JSON |
//! | `/registry/storagemigration.k8s.io/storageversionmigrations/<name>` | a `StorageVersionMigration` (built in), its progress in its status |
//! | `/registry/namespaces/<name>`                                | a core/v1 `Namespace` (built in), as Kubernetes lays it out |
//! | `/registry/leases/<namespace>/<name>`                        | a `coordination.k8s.io/v1` `Lease` (built in) |
//! | `/registry/events/<namespace>/<name>`                        | an `Event` (built in), core/v1 and `events.k8s.io/v1` alike |
//!
//! sled layout (one tree, `crdstore`, so that a commit is one atomic write):
//!
//! | sled key                         | value |
//! |----------------------------------|-------|
//! | `l` + revision (u64 BE) + index (u32 BE) | `codec::LogEntry`: one event of the commit at that revision, with the key's state after and before it |
//! | `m/revision`                     | a committed revision the log reaches (u64 BE): the latest as of the last commit written as a batch |
//! | `m/compacted`                    | the newest revision whose history is gone (u64 BE) |
//! | `m/format`                       | the layout version, `FORMAT_VERSION` (u32 BE) |
//!
//! The log is the store: a key's current value is its latest log entry. A
//! group of commits writes its `l` entries (and removes the entries they
//! supersede) with `m/revision` as one atomic batch, flushed before it is
//! acknowledged, and nothing else; a group that adds a single entry and
//! removes none writes it alone, one insert being atomic too, and leaves
//! `m/revision` behind. The latest revision is the log's newest entry (or
//! `m/compacted`, if newer); `m/revision` only has to stay at or below it,
//! which opening the store checks. Every revision after `m/compacted` has
//! all its log entries (revisions are dense); at or below `m/compacted`
//! only the entries that still hold a key's current value remain. Opening
//! the store replays every entry, in order, to rebuild the in-memory index.

use super::Revision;

/// The version of the sled layout below; bumped on any incompatible change.
pub const FORMAT_VERSION: u32 = 1;

/// The name of the single sled tree.
pub const TREE: &str = "crdstore";

/// Prefix of event-log entries.
pub const LOG_PREFIX: u8 = b'l';
/// Key of a committed revision the log reaches (see the layout above).
pub const META_REVISION: &[u8] = b"m/revision";
/// Key of the compacted revision.
pub const META_COMPACTED: &[u8] = b"m/compacted";
/// Key of the layout version.
pub const META_FORMAT: &[u8] = b"m/format";

/// The prefix under which every crdstore storage key lives.
pub const REGISTRY_ROOT: &str = "/registry/";

/// The API group of definitions, as a literal for `concat!` (the one place
/// it is spelled: `DEFINITIONS_GROUP` and the names built from it use this).
macro_rules! definitions_group {
    () => {
        "apiextensions.k8s.io"
    };
}
pub(crate) use definitions_group;

/// The API group of definitions.
pub const DEFINITIONS_GROUP: &str = definitions_group!();
/// The resource name of definitions.
pub const DEFINITIONS_RESOURCE: &str = "customresourcedefinitions";

/// The key prefix of every definition.
pub fn definitions_prefix() -> String {
    definition_key("")
}

/// The storage key of the definition `name` (every request resolves its
/// kind through one: joined, not formatted).
pub fn definition_key(name: &str) -> String {
    [REGISTRY_ROOT, DEFINITIONS_GROUP, "/", DEFINITIONS_RESOURCE, "/", name].concat()
}

/// The built-in resources Kubernetes keeps directly under `/registry/`
/// (`/registry/<plural>/`), by group and plural. No custom resource can
/// land there: a definition's group always has a dot.
/// `events.k8s.io` `events` share core's key: one stored object, served by
/// both APIs, as in Kubernetes.
const BUILTIN_ROOTS: &[(&str, &str)] =
    &[("", "namespaces"), ("", "events"), ("events.k8s.io", "events"), ("coordination.k8s.io", "leases")];

/// The key prefix of every object of a resource, in every namespace.
pub fn resource_prefix(group: &str, plural: &str) -> String {
    if BUILTIN_ROOTS.contains(&(group, plural)) {
        return format!("{REGISTRY_ROOT}{plural}/");
    }
    format!("{REGISTRY_ROOT}{group}/{plural}/")
}

/// The key prefix of the objects of a namespaced resource in one namespace.
pub fn namespace_prefix(group: &str, plural: &str, namespace: &str) -> String {
    format!("{}{namespace}/", resource_prefix(group, plural))
}

/// The storage key of one object; `namespace` is empty for cluster-scoped ones.
pub fn resource_key(group: &str, plural: &str, namespace: &str, name: &str) -> String {
    if namespace.is_empty() {
        format!("{}{name}", resource_prefix(group, plural))
    } else {
        format!("{}{namespace}/{name}", resource_prefix(group, plural))
    }
}

/// The key prefix of every namespace.
pub fn namespaces_prefix() -> String {
    resource_prefix("", "namespaces")
}

/// The storage key of the namespace `name`.
pub fn namespace_key(name: &str) -> String {
    resource_key("", "namespaces", "", name)
}

/// The API group of storage-version migrations.
pub const MIGRATIONS_GROUP: &str = "storagemigration.k8s.io";
/// The resource name of storage-version migrations.
pub const MIGRATIONS_RESOURCE: &str = "storageversionmigrations";

/// The key prefix of every storage-version migration.
pub fn migrations_prefix() -> String {
    format!("{REGISTRY_ROOT}{MIGRATIONS_GROUP}/{MIGRATIONS_RESOURCE}/")
}

/// The storage key of the storage-version migration `name`.
pub fn migration_key(name: &str) -> String {
    format!("{}{name}", migrations_prefix())
}

/// The sled key of event `index` of the commit at `revision`.
pub fn log_key(revision: Revision, index: u32) -> [u8; 13] {
    let mut k = [0u8; 13];
    k[0] = LOG_PREFIX;
    k[1..9].copy_from_slice(&(revision.get() as u64).to_be_bytes());
    k[9..13].copy_from_slice(&index.to_be_bytes());
    k
}

/// The first sled log key at or after `revision`.
pub fn log_start(revision: Revision) -> [u8; 13] {
    log_key(revision, 0)
}

/// The revision and index of a sled log key.
pub fn log_slot(log_key: &[u8]) -> Option<(Revision, u32)> {
    if log_key.len() != 13 || log_key[0] != LOG_PREFIX {
        return None;
    }
    let rev: [u8; 8] = log_key[1..9].try_into().ok()?;
    let index: [u8; 4] = log_key[9..13].try_into().ok()?;
    Some((Revision::new(u64::from_be_bytes(rev) as i64), u32::from_be_bytes(index)))
}

/// The revision of a sled log key.
pub fn log_revision(log_key: &[u8]) -> Option<Revision> {
    log_slot(log_key).map(|(rev, _)| rev)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_keys_sort_by_revision_then_index() {
        assert!(log_key(Revision::new(1), 5) < log_key(Revision::new(2), 0));
        assert!(log_key(Revision::new(255), 0) < log_key(Revision::new(256), 0));
        assert!(log_key(Revision::new(7), 1) < log_key(Revision::new(7), 2));
        assert_eq!(log_revision(&log_key(Revision::new(300), 2)), Some(Revision::new(300)));
        assert_eq!(log_slot(&log_key(Revision::new(300), 2)), Some((Revision::new(300), 2)));
    }

    #[test]
    fn resource_keys_nest_under_their_prefixes() {
        let key = resource_key("example.com", "foos", "ns1", "a");
        assert!(key.starts_with(&namespace_prefix("example.com", "foos", "ns1")));
        assert!(key.starts_with(&resource_prefix("example.com", "foos")));
        assert_eq!(resource_key("example.com", "bars", "", "b"), "/registry/example.com/bars/b");
    }

    #[test]
    fn built_in_keys_are_laid_out_as_kubernetes_lays_them() {
        assert_eq!(namespace_key("default"), "/registry/namespaces/default");
        assert_eq!(resource_key("coordination.k8s.io", "leases", "ns", "l"), "/registry/leases/ns/l");
        assert_eq!(resource_key("", "events", "ns", "e"), "/registry/events/ns/e");
        assert_eq!(namespace_prefix("", "events", "ns"), "/registry/events/ns/");
        assert_eq!(resource_key("events.k8s.io", "events", "ns", "e"), "/registry/events/ns/e");
    }
}

//! The collector's dependency graph, as Kubernetes' `GraphBuilder`: a node
//! per stored object (by uid), its owner references, its deletion state,
//! and for every owner uid the dependents that name it (an owner that is
//! not in the store is a "virtual" entry, only an index key). Changes tell
//! which nodes must be looked at again; `decide` is the policy of
//! `attemptToDeleteItem`, `attemptToOrphan` and
//! `processDeletingDependentsItem` as plain decisions over the graph and
//! the owners' live state.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::apimachinery::owner::{self, OwnerRef, FOREGROUND, ORPHAN};
use crate::storage::Revision;

/// The annotation in which the collector says what a foreground deletion
/// waits for: how many dependents with `blockOwnerDeletion` remain, and the
/// first few of them (Kubernetes says it only with the finalizer; this is
/// readable over both transports until core Events carry it).
pub const WAITING_FOR: &str = "gc.crdstore.io/waiting-for";
/// The dependents a note names.
const NAMED: usize = 5;

/// One stored object, as the collector sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub uid: String,
    pub key: String,
    pub group: String,
    pub plural: String,
    pub namespace: String,
    pub name: String,
    pub owners: Vec<OwnerRef>,
    /// The owner references as stored (what a patch keeps of them).
    pub raw_owners: Vec<Value>,
    pub deleting: bool,
    pub finalizers: Vec<String>,
    /// The collector's note of what a foreground deletion waits for
    /// (`WAITING_FOR`).
    pub note: Option<String>,
    pub revision: Revision,
}

impl Node {
    /// A node from an object stored under `key` (`/registry/<group>/<plural>/
    /// [<namespace>/]<name>`); `None` for other keys and for objects
    /// without a uid.
    pub fn from_object(key: &str, obj: &Value, revision: Revision) -> Option<Self> {
        let rest = key.strip_prefix(crate::storage::keys::REGISTRY_ROOT)?;
        let mut parts = rest.splitn(3, '/');
        let (group, plural) = (parts.next()?, parts.next()?);
        let uid = obj.pointer("/metadata/uid").and_then(Value::as_str).filter(|u| !u.is_empty())?;
        let text = |f: &str| obj.pointer(&format!("/metadata/{f}")).and_then(Value::as_str).unwrap_or("").to_string();
        let raw_owners: Vec<Value> = obj
            .pointer("/metadata/ownerReferences")
            .and_then(Value::as_array)
            .map(|refs| refs.iter().filter(|r| r.is_object()).cloned().collect())
            .unwrap_or_default();
        Some(Self {
            uid: uid.to_string(),
            key: key.to_string(),
            group: group.to_string(),
            plural: plural.to_string(),
            namespace: text("namespace"),
            name: text("name"),
            owners: owner::owner_references(obj),
            raw_owners,
            deleting: crate::apimachinery::meta::deleting(obj),
            finalizers: crate::apimachinery::meta::finalizers(obj),
            note: obj
                .pointer("/metadata/annotations")
                .and_then(|a| a.get(WAITING_FOR))
                .and_then(Value::as_str)
                .map(String::from),
            revision,
        })
    }

    /// Whether the graph keeps this node: one with owners, finalizers or a
    /// deletion under way. The others (most objects) matter only as owners,
    /// looked up live by `owner_state` and known gone by their delete event:
    /// a node of each would cost the collector most of a kilobyte per object.
    pub fn kept(&self) -> bool {
        !self.owners.is_empty() || !self.finalizers.is_empty() || self.deleting
    }

    fn has(&self, finalizer: &str) -> bool {
        self.finalizers.iter().any(|f| f == finalizer)
    }

    /// Being deleted with dependents to delete first.
    pub fn deleting_dependents(&self) -> bool {
        self.deleting && self.has(FOREGROUND)
    }

    /// Being deleted with dependents to orphan first.
    pub fn orphaning(&self) -> bool {
        self.deleting && self.has(ORPHAN)
    }

    /// What the collector has to do with this node itself.
    fn needs_attention(&self) -> bool {
        self.orphaning() || self.deleting_dependents() || (!self.deleting && !self.owners.is_empty())
    }
}

/// The live state of one owner reference, as `isDangling` finds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OwnerState {
    /// An object with the reference's uid exists and is not deleting its
    /// dependents first.
    Solid,
    /// No object with the reference's uid (none with the name, or another
    /// object under it).
    Dangling,
    /// The owner is being deleted in the foreground.
    Waiting,
    /// The owner's kind is not served: kept, as Kubernetes keeps it until
    /// it can tell.
    Unknown,
}

/// What the collector asks of the API: each an ordinary request with the
/// node's uid and resourceVersion as preconditions.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Delete with this propagation policy.
    Delete { node: Node, policy: &'static str },
    /// Replace the owner references by these (some owners removed).
    SetOwners { node: Node, owners: Vec<Value> },
    /// Replace the finalizers by these (one of the collector's removed).
    SetFinalizers { node: Node, finalizers: Vec<String> },
    /// Say in `WAITING_FOR` what the node's foreground deletion waits for.
    Note { node: Node, note: String },
}

/// The graph.
#[derive(Debug, Default)]
pub struct Graph {
    nodes: HashMap<String, Node>,
    by_key: HashMap<String, String>,
    /// Owner uid -> the uids of the nodes that name it.
    dependents: HashMap<String, HashSet<String>>,
}

impl Graph {
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    pub fn get(&self, uid: &str) -> Option<&Node> {
        self.nodes.get(uid)
    }

    pub fn contains(&self, uid: &str) -> bool {
        self.nodes.contains_key(uid)
    }

    /// Whether a node is stored under `key`.
    pub fn holds_key(&self, key: &str) -> bool {
        self.by_key.contains_key(key)
    }

    /// The uids of every node the collector has something to do with (a
    /// resync, and the start).
    pub fn all_pending(&self) -> Vec<String> {
        self.nodes.values().filter(|n| n.needs_attention()).map(|n| n.uid.clone()).collect()
    }

    /// The nodes that name `uid` as an owner.
    pub fn dependents_of(&self, uid: &str) -> Vec<&Node> {
        let Some(set) = self.dependents.get(uid) else { return Vec::new() };
        let mut out: Vec<&Node> = set.iter().filter_map(|d| self.nodes.get(d)).collect();
        out.sort_by(|a, b| a.key.cmp(&b.key));
        out
    }

    fn unlink(&mut self, node: &Node) {
        for o in &node.owners {
            if let Some(set) = self.dependents.get_mut(&o.uid) {
                set.remove(&node.uid);
                if set.is_empty() {
                    self.dependents.remove(&o.uid);
                }
            }
        }
    }

    /// Adds or replaces a node; returns the uids to look at again.
    pub fn put(&mut self, node: Node) -> Vec<String> {
        let mut dirty = Vec::new();
        if let Some(previous_uid) = self.by_key.get(&node.key).cloned() {
            if previous_uid != node.uid {
                dirty.extend(self.remove_key(&node.key));
            }
        }
        let old = self.nodes.remove(&node.uid);
        if let Some(old) = &old {
            self.unlink(old);
            // An owner waiting for this one may be done now.
            dirty.extend(old.owners.iter().map(|o| o.uid.clone()));
        }
        for o in &node.owners {
            self.dependents.entry(o.uid.clone()).or_default().insert(node.uid.clone());
        }
        if node.needs_attention() {
            // Owners that are not (yet) nodes, or that are being deleted,
            // need a look; owners present and alive need none.
            let unsure = node.owners.iter().any(|o| self.nodes.get(&o.uid).is_none_or(|owner| owner.deleting));
            if node.deleting || unsure {
                dirty.push(node.uid.clone());
            }
        }
        dirty.extend(
            node.owners.iter().filter(|o| self.nodes.get(&o.uid).is_some_and(|n| n.deleting)).map(|o| o.uid.clone()),
        );
        if node.deleting {
            dirty.extend(self.dependents.get(&node.uid).into_iter().flatten().cloned());
        }
        self.by_key.insert(node.key.clone(), node.uid.clone());
        self.nodes.insert(node.uid.clone(), node);
        dirty
    }

    /// Removes the node stored under `key`; returns the uids to look at
    /// again (its dependents, and the owners that may wait for it).
    pub fn remove_key(&mut self, key: &str) -> Vec<String> {
        let Some(uid) = self.by_key.remove(key) else { return Vec::new() };
        let Some(node) = self.nodes.remove(&uid) else { return Vec::new() };
        self.unlink(&node);
        let mut dirty: Vec<String> = node.owners.iter().map(|o| o.uid.clone()).collect();
        dirty.extend(self.dependents.get(&uid).into_iter().flatten().cloned());
        dirty
    }

    /// What to do about the node `uid`, given each owner reference's live
    /// state.
    pub fn decide(&self, uid: &str, state: impl Fn(&Node, &OwnerRef) -> OwnerState) -> Vec<Action> {
        let Some(node) = self.nodes.get(uid) else { return Vec::new() };
        if node.orphaning() {
            // attemptToOrphan: every dependent loses this owner, then the
            // finalizer goes.
            let dependents = self.dependents_of(uid);
            if dependents.is_empty() {
                return vec![without_finalizer(node, ORPHAN)];
            }
            return dependents
                .into_iter()
                .map(|d| Action::SetOwners { node: d.clone(), owners: without_owners(d, &[uid]) })
                .collect();
        }
        if node.deleting_dependents() {
            // processDeletingDependentsItem: done once no dependent blocks.
            let blocking: Vec<&Node> = self
                .dependents_of(uid)
                .into_iter()
                .filter(|d| d.owners.iter().any(|o| o.uid == uid && o.block_owner_deletion))
                .collect();
            if blocking.is_empty() {
                return vec![without_finalizer(node, FOREGROUND)];
            }
            let note = waiting_note(&blocking);
            if node.note.as_deref() == Some(note.as_str()) {
                return Vec::new();
            }
            return vec![Action::Note { node: node.clone(), note }];
        }
        if node.deleting || node.owners.is_empty() {
            return Vec::new();
        }
        // attemptToDeleteItem.
        let states: Vec<OwnerState> = node.owners.iter().map(|o| state(node, o)).collect();
        let of = |s: OwnerState| node.owners.iter().zip(&states).filter(move |(_, st)| **st == s).map(|(o, _)| o);
        let solid = of(OwnerState::Solid).count() + of(OwnerState::Unknown).count();
        let gone: Vec<&str> = of(OwnerState::Dangling).chain(of(OwnerState::Waiting)).map(|o| o.uid.as_str()).collect();
        let waiting = of(OwnerState::Waiting).count();
        if solid > 0 {
            if gone.is_empty() {
                return Vec::new();
            }
            return vec![Action::SetOwners { node: node.clone(), owners: without_owners(node, &gone) }];
        }
        let policy = if waiting > 0 && !self.dependents_of(uid).is_empty() {
            "Foreground"
        } else if node.has(ORPHAN) {
            "Orphan"
        } else if node.has(FOREGROUND) {
            "Foreground"
        } else {
            "Background"
        };
        vec![Action::Delete { node: node.clone(), policy }]
    }
}

/// "2 dependents with blockOwnerDeletion: childs.example.com ns/a, ...".
fn waiting_note(blocking: &[&Node]) -> String {
    let named: Vec<String> = blocking
        .iter()
        .take(NAMED)
        .map(|d| {
            let at = if d.namespace.is_empty() { d.name.clone() } else { format!("{}/{}", d.namespace, d.name) };
            format!("{}.{} {at}", d.plural, d.group)
        })
        .collect();
    let more = if blocking.len() > NAMED { ", ..." } else { "" };
    let noun = if blocking.len() == 1 { "dependent" } else { "dependents" };
    format!("{} {noun} with blockOwnerDeletion: {}{more}", blocking.len(), named.join(", "))
}

fn without_finalizer(node: &Node, finalizer: &str) -> Action {
    Action::SetFinalizers {
        node: node.clone(),
        finalizers: node.finalizers.iter().filter(|f| *f != finalizer).cloned().collect(),
    }
}

fn without_owners(node: &Node, uids: &[&str]) -> Vec<Value> {
    node.raw_owners
        .iter()
        .filter(|r| !r.get("uid").and_then(Value::as_str).is_some_and(|u| uids.contains(&u)))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn node(name: &str, owners: &[(&str, bool)], finalizers: &[&str], deleting: bool) -> Node {
        let refs: Vec<Value> = owners
            .iter()
            .map(|(uid, block)| json!({"apiVersion": "g/v1", "kind": "K", "name": uid, "uid": uid, "blockOwnerDeletion": block}))
            .collect();
        let mut obj = json!({"metadata": {"name": name, "namespace": "ns", "uid": name, "ownerReferences": refs,
                                          "finalizers": finalizers}});
        if deleting {
            obj["metadata"]["deletionTimestamp"] = json!("2026-01-01T00:00:00Z");
        }
        Node::from_object(&format!("/registry/g/ks/ns/{name}"), &obj, Revision::ZERO).unwrap()
    }

    fn alive(graph: &Graph) -> impl Fn(&Node, &OwnerRef) -> OwnerState + '_ {
        |_, o| match graph.get(&o.uid) {
            None => OwnerState::Dangling,
            Some(n) if n.deleting_dependents() => OwnerState::Waiting,
            Some(_) => OwnerState::Solid,
        }
    }

    fn deleted(actions: &[Action]) -> Vec<(String, &'static str)> {
        actions
            .iter()
            .filter_map(|a| match a {
                Action::Delete { node, policy } => Some((node.name.clone(), *policy)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_dependent_goes_once_all_its_owners_are_gone() {
        let mut g = Graph::default();
        g.put(node("a", &[], &[], false));
        g.put(node("b", &[], &[], false));
        g.put(node("d", &[("a", false), ("b", false)], &[], false));
        assert!(g.decide("d", alive(&g)).is_empty());
        let dirty = g.remove_key("/registry/g/ks/ns/a");
        assert_eq!(dirty, ["d"]);
        match &g.decide("d", alive(&g))[..] {
            [Action::SetOwners { owners, .. }] => assert_eq!(owners.len(), 1, "the dangling owner is dropped"),
            other => panic!("{other:?}"),
        }
        g.remove_key("/registry/g/ks/ns/b");
        assert_eq!(deleted(&g.decide("d", alive(&g))), [("d".to_string(), "Background")]);
    }

    #[test]
    fn foreground_waits_for_blocking_dependents_then_drops_its_finalizer() {
        let mut g = Graph::default();
        g.put(node("child", &[("owner", true)], &[], false));
        g.put(node("grandchild", &[("child", true)], &[], false));
        let dirty = g.put(node("owner", &[], &["foregroundDeletion"], true));
        assert!(dirty.contains(&"owner".to_string()) && dirty.contains(&"child".to_string()), "{dirty:?}");
        match &g.decide("owner", alive(&g))[..] {
            [Action::Note { note, .. }] => assert_eq!(note, "1 dependent with blockOwnerDeletion: ks.g ns/child"),
            other => panic!("a blocking dependent remains: {other:?}"),
        }
        assert_eq!(deleted(&g.decide("child", alive(&g))), [("child".to_string(), "Foreground")], "it has dependents");
        g.remove_key("/registry/g/ks/ns/grandchild");
        g.remove_key("/registry/g/ks/ns/child");
        match &g.decide("owner", alive(&g))[..] {
            [Action::SetFinalizers { finalizers, .. }] => assert!(finalizers.is_empty()),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn orphaning_removes_the_owner_from_every_dependent_first() {
        let mut g = Graph::default();
        g.put(node("owner", &[], &["orphan", "other"], true));
        g.put(node("d1", &[("owner", false)], &[], false));
        g.put(node("d2", &[("owner", false), ("x", false)], &[], false));
        let actions = g.decide("owner", alive(&g));
        assert_eq!(actions.len(), 2);
        assert!(
            matches!(&actions[1], Action::SetOwners { owners, .. } if owners.len() == 1 && owners[0]["uid"] == "x")
        );
        g.put(node("d1", &[], &[], false));
        g.put(node("d2", &[("x", false)], &[], false));
        assert!(
            matches!(&g.decide("owner", alive(&g))[..], [Action::SetFinalizers { finalizers, .. }] if finalizers == &["other"])
        );
    }

    #[test]
    fn unknown_owners_keep_and_recreated_owners_do_not() {
        let mut g = Graph::default();
        g.put(node("d", &[("old-uid", false)], &[], false));
        assert!(g.decide("d", |_, _| OwnerState::Unknown).is_empty());
        // Another object holds the name: by uid, the owner is gone.
        assert_eq!(deleted(&g.decide("d", |_, _| OwnerState::Dangling)).len(), 1);
        let orphaning = node("o", &[("gone", false)], &["orphan"], false);
        g.put(orphaning);
        assert_eq!(deleted(&g.decide("o", alive(&g))), [("o".to_string(), "Orphan")], "its own policy is kept");
    }

    #[test]
    fn a_recreated_key_replaces_the_old_node() {
        let mut g = Graph::default();
        g.put(node("d", &[("a", false)], &[], false));
        let mut again = node("d", &[], &[], false);
        again.uid = "d2".into();
        g.put(again);
        assert_eq!(g.len(), 1);
        assert!(g.dependents_of("a").is_empty());
    }
}

//! The garbage collector, as Kubernetes' `pkg/controller/garbagecollector`
//! run inside the server: a dependency graph of every custom resource
//! (`graph.rs`), built from the store at start and followed by one storage
//! watch, and a loop that looks at the nodes a change concerns and asks the
//! API for what `graph::decide` says: ordinary deletes (watchers see
//! DELETED) and patches of owner references and finalizers, each
//! conditional on the object's uid and resourceVersion, so it never acts on
//! a state it did not see (a recreated object is another uid).
//!
//! Everything it needs is in the store (finalizers, deletionTimestamps,
//! owner references): after a restart the graph is rebuilt and every
//! pending collection goes on. It works at a bounded rate
//! (`--gc-rate`), with a few requests in flight, beside the clients' writes.

pub mod graph;
mod read;

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use futures::{FutureExt, StreamExt};
use serde_json::{json, Value};

use self::graph::{Action, Graph, Node, OwnerState};
use self::read::{kept_node_of, node_of};
use crate::apimachinery::options::{DeleteOptions, WriteOptions};
use crate::apimachinery::owner::OwnerRef;
use crate::apimachinery::patch::PatchType;
use crate::error::{Reason, Result};
use crate::resource::service::{Endpoint, Resources};
use crate::resource::strategy::Ref;
use crate::storage::{keys, Event, KeyValue, ReadAt, Revision, Storage, WatchMessage};
use crate::watch::stream::until_stopped;

/// The default `--gc-rate`: requests (deletes and patches) per second.
pub const DEFAULT_RATE: u32 = 20_000;
/// Requests in flight at once: enough for the store's group commit to
/// batch them.
const IN_FLIGHT: usize = 64;
/// Nodes looked at per round, between reading the watch.
const BATCH: usize = 2_048;
/// How often every pending node is looked at again, whatever happened (an
/// owner of a kind not served before, a write refused as invalid). Every
/// other change wakes the nodes it concerns through the watch.
const RESYNC: Duration = Duration::from_secs(30);
/// How often the note of what a foreground deletion waits for is
/// rewritten as its dependents go.
const NOTE_EVERY: Duration = Duration::from_secs(1);
/// The pause after an error before trying again.
const BACKOFF: Duration = Duration::from_millis(200);
/// How long a round waits for the store to become readable at the revision
/// of the last event the graph took in (the store publishes to watchers
/// before readers, so a live read right after an event can be older).
const CATCH_UP: Duration = Duration::from_secs(5);

/// How the collector runs.
#[derive(Debug, Clone, Copy)]
pub struct GcOptions {
    /// Requests per second (0: no limit).
    pub rate: u32,
}

impl Default for GcOptions {
    fn default() -> Self {
        Self { rate: DEFAULT_RATE }
    }
}

/// Runs until the server stops; rebuilds from the store after a watch ends.
pub async fn run(
    store: Arc<dyn Storage>,
    resources: Arc<Resources>,
    options: GcOptions,
    stopped: tokio::sync::watch::Receiver<bool>,
) {
    let stop = until_stopped(stopped);
    tokio::pin!(stop);
    loop {
        let mut collector = Collector::new(store.clone(), resources.clone(), options);
        tokio::select! {
            _ = &mut stop => return,
            result = collector.follow() => match result {
                Ok(()) => return,
                Err(err) => tracing::warn!(error = %err, "garbage collector restarts from the store"),
            },
        }
        tokio::select! {
            _ = &mut stop => return,
            _ = tokio::time::sleep(BACKOFF) => {}
        }
    }
}

/// The served kind of an owner reference: its plural and scope.
#[derive(Debug, Clone)]
struct Kind {
    plural: String,
    namespaced: bool,
}

struct Collector {
    store: Arc<dyn Storage>,
    resources: Arc<Resources>,
    graph: Graph,
    /// (group, kind) -> resource, of every definition seen since start (a
    /// removed definition's kind stays: none of its objects is left).
    kinds: HashMap<(String, String), Kind>,
    queue: VecDeque<String>,
    queued: HashSet<String>,
    pace: Pace,
    /// When each waiting owner's note was last written.
    noted: HashMap<String, Instant>,
    /// Nodes to look at again at a time.
    later: Vec<(Instant, String)>,
    /// The revision of the last event the graph took in: live reads
    /// (owners, definitions) wait until the store is readable there.
    seen: Revision,
    /// A definition changed since `kinds` was read.
    kinds_stale: bool,
}

impl Collector {
    fn new(store: Arc<dyn Storage>, resources: Arc<Resources>, options: GcOptions) -> Self {
        Self {
            store,
            resources,
            graph: Graph::default(),
            kinds: HashMap::new(),
            queue: VecDeque::new(),
            queued: HashSet::new(),
            pace: Pace::new(options.rate),
            noted: HashMap::new(),
            later: Vec::new(),
            seen: Revision::ZERO,
            kinds_stale: false,
        }
    }

    fn enqueue(&mut self, uids: impl IntoIterator<Item = String>) {
        for uid in uids {
            if self.queued.insert(uid.clone()) {
                self.queue.push_back(uid);
            }
        }
    }

    /// Builds the graph at one revision, then follows the store from it.
    /// Returns an error when the watch ends (the caller rebuilds).
    async fn follow(&mut self) -> Result<()> {
        let revision = self.store.current_revision();
        self.seen = revision;
        self.refresh_kinds();
        let root = keys::REGISTRY_ROOT;
        // Every object is read: on a blocking thread, so that the runtime's
        // workers go on serving meanwhile (a store of a million objects
        // takes seconds).
        let store = self.store.clone();
        let nodes = tokio::task::spawn_blocking(move || {
            let definitions = keys::definitions_prefix();
            let mut nodes = Vec::new();
            let mut collect = |kv: &KeyValue| {
                if !kv.key.starts_with(definitions.as_str()) {
                    if let Some(node) = kept_node_of(kv) {
                        nodes.push(node);
                    }
                }
                false
            };
            store.range(root, None, ReadAt::Revision(revision), 0, &mut collect).map(|_| nodes)
        })
        .await
        .map_err(|err| crate::error::Error::internal(format!("garbage collector graph task failed: {err}")))??;
        for node in nodes {
            self.graph.put(node);
        }
        let pending = self.graph.all_pending();
        self.enqueue(pending);
        tracing::debug!(objects = self.graph.len(), pending = self.queue.len(), "garbage collector graph built");
        let mut changes = self.store.watch(root, revision)?;
        let mut resync = tokio::time::interval(RESYNC);
        resync.tick().await;
        loop {
            // Everything already delivered first, so decisions see it.
            while let Some(message) = changes.next().now_or_never() {
                self.apply(message)?;
            }
            self.due();
            if self.queue.is_empty() {
                let next = self.later.iter().map(|(at, _)| *at).min();
                let later = async move {
                    match next {
                        Some(at) => tokio::time::sleep_until(at).await,
                        None => futures::future::pending().await,
                    }
                };
                tokio::select! {
                    _ = later => {}
                    message = changes.next() => self.apply(message)?,
                    _ = resync.tick() => {
                        let pending = self.graph.all_pending();
                        self.enqueue(pending);
                    }
                }
                continue;
            }
            let round: Vec<String> = (0..BATCH.min(self.queue.len())).filter_map(|_| self.queue.pop_front()).collect();
            for uid in &round {
                self.queued.remove(uid);
            }
            self.catch_up().await;
            let mut actions: Vec<Action> = round.iter().flat_map(|uid| self.decide(uid)).collect();
            self.hold_notes(&mut actions);
            let retry = self.execute(actions).await;
            if !retry.is_empty() {
                tokio::time::sleep(BACKOFF).await;
                self.enqueue(retry);
            }
        }
    }

    /// Notes of a waiting owner are written at most once per `NOTE_EVERY`
    /// (the first at once): the others are dropped and the owner looked at
    /// again once it may write.
    fn hold_notes(&mut self, actions: &mut Vec<Action>) {
        let now = Instant::now();
        self.noted.retain(|_, at| now.duration_since(*at) < NOTE_EVERY);
        actions.retain(|action| {
            let Action::Note { node, .. } = action else { return true };
            match self.noted.get(&node.uid) {
                Some(at) => {
                    self.later.push((*at + NOTE_EVERY, node.uid.clone()));
                    false
                }
                None => {
                    self.noted.insert(node.uid.clone(), now);
                    true
                }
            }
        });
    }

    /// Waits until the store is readable at the last event the graph took
    /// in, so that the live reads of a decision (an owner, the served
    /// kinds) are never older than the graph: an owner's deletion seen by
    /// the watch must not read as a solid owner, nor a definition accepted
    /// since as an unknown kind. Nothing else would wake the decision again.
    async fn catch_up(&mut self) {
        if self.store.current_revision() < self.seen {
            let now = self.store.wait_for_revision(self.seen, CATCH_UP).await;
            if now < self.seen {
                tracing::warn!(seen = %self.seen, readable = %now, "garbage collector reads behind its watch");
            }
        }
        if self.kinds_stale {
            self.kinds_stale = false;
            self.refresh_kinds();
        }
    }

    /// Queues the nodes whose time has come.
    fn due(&mut self) {
        let now = Instant::now();
        let (ready, wait): (Vec<_>, Vec<_>) =
            std::mem::take(&mut self.later).into_iter().partition(|(at, _)| *at <= now);
        self.later = wait;
        self.enqueue(ready.into_iter().map(|(_, uid)| uid));
    }

    /// Applies one watch message to the graph.
    fn apply(
        &mut self,
        message: Option<std::result::Result<WatchMessage, crate::storage::StorageError>>,
    ) -> Result<()> {
        let events = match message {
            Some(Ok(WatchMessage::Events(events))) => events,
            Some(Ok(WatchMessage::Progress(_))) => return Ok(()),
            Some(Err(err)) => return Err(err.into()),
            None => return Err(crate::error::Error::unavailable("the store's watch ended")),
        };
        let definitions = keys::definitions_prefix();
        let mut kinds_changed = false;
        for event in events.iter() {
            self.seen = self.seen.max(event.revision());
            if event.key().starts_with(definitions.as_str()) {
                kinds_changed = true;
                continue;
            }
            let dirty = match event {
                Event::Put { current, .. } => match kept_node_of(current) {
                    Some(node) => self.graph.put(node),
                    None => self.graph.remove_key(&current.key),
                },
                Event::Delete { previous, .. } => {
                    if self.graph.holds_key(&previous.key) {
                        self.graph.remove_key(&previous.key)
                    } else {
                        // An owner the graph kept no node of: its dependents,
                        // found by the uid only its last state tells.
                        node_of(previous)
                            .map(|node| {
                                self.graph.dependents_of(&node.uid).into_iter().map(|d| d.uid.clone()).collect()
                            })
                            .unwrap_or_default()
                    }
                }
            };
            self.enqueue(dirty);
        }
        if kinds_changed {
            // Read again once the store is readable at `seen` (`catch_up`).
            self.kinds_stale = true;
            // An owner of a kind just served may be resolvable now.
            let pending = self.graph.all_pending();
            self.enqueue(pending);
        }
        Ok(())
    }

    /// Learns the kinds of every definition whose names are accepted.
    fn refresh_kinds(&mut self) {
        let mut found = Vec::new();
        let mut each = |kv: &KeyValue| {
            if let Ok(crd) = crate::registry::definition::decode(kv) {
                if let Some(names) = crd.status.as_ref().and_then(|s| s.accepted_names.as_ref()) {
                    let kind = Kind { plural: names.plural.clone(), namespaced: crd.spec.scope == "Namespaced" };
                    found.push(((crd.spec.group.clone(), names.kind.clone()), kind));
                }
            }
            false
        };
        if let Err(err) = self.store.range(&keys::definitions_prefix(), None, ReadAt::Latest, 0, &mut each) {
            tracing::warn!(error = %err, "garbage collector could not read definitions");
        }
        self.kinds.extend(found);
    }

    fn decide(&self, uid: &str) -> Vec<Action> {
        self.graph.decide(uid, |dependent, owner| self.owner_state(dependent, owner))
    }

    /// `isDangling`: the owner looked up live by its kind, namespace and
    /// name, and compared by uid.
    fn owner_state(&self, dependent: &Node, owner: &OwnerRef) -> OwnerState {
        let Some(kind) = self.kinds.get(&(owner.group().to_string(), owner.kind.clone())) else {
            return OwnerState::Unknown;
        };
        let namespace = if kind.namespaced { dependent.namespace.as_str() } else { "" };
        let key = keys::resource_key(owner.group(), &kind.plural, namespace, &owner.name);
        let Some(kv) = self.store.get(&key) else { return OwnerState::Dangling };
        match node_of(&kv) {
            Some(found) if found.uid == owner.uid => {
                if found.deleting_dependents() {
                    OwnerState::Waiting
                } else {
                    OwnerState::Solid
                }
            }
            _ => OwnerState::Dangling,
        }
    }

    /// Runs the actions a few at a time at the configured rate; returns the
    /// uids to try again after a failure other than a lost race (a lost
    /// race brings a watch event, which queues the node again).
    async fn execute(&mut self, actions: Vec<Action>) -> Vec<String> {
        let mut retry = Vec::new();
        for chunk in actions.chunks(IN_FLIGHT) {
            self.pace.wait(chunk.len()).await;
            let results = futures::future::join_all(chunk.iter().map(|a| self.run_action(a))).await;
            for (action, result) in chunk.iter().zip(results) {
                match result {
                    Ok(()) => {}
                    Err(err) if matches!(err.reason, Reason::NotFound | Reason::Conflict) => {}
                    // Refused as it stands (the object no longer passes its
                    // schema): looked at again at the next resync, not at once.
                    Err(err) if err.reason == Reason::Invalid => {
                        let node = action_node(action);
                        tracing::warn!(error = %err, key = %node.key, "garbage collection refused; will retry at resync");
                    }
                    Err(err) => {
                        let node = action_node(action);
                        tracing::warn!(error = %err, key = %node.key, "garbage collection failed; will retry");
                        retry.push(node.uid.clone());
                    }
                }
            }
        }
        retry
    }

    async fn run_action(&self, action: &Action) -> Result<()> {
        let node = action_node(action);
        let Some(r) = self.reference(node) else { return Ok(()) };
        let rv = node.revision.to_string();
        match action {
            Action::Delete { policy, .. } => {
                let options = DeleteOptions {
                    precondition_uid: node.uid.clone(),
                    precondition_resource_version: Some(node.revision),
                    propagation_policy: policy.to_string(),
                    ..DeleteOptions::default()
                };
                self.resources.delete_unconverted(&r, &options).await.map(drop)
            }
            Action::SetOwners { owners, .. } => {
                let owners = if owners.is_empty() { Value::Null } else { Value::from(owners.clone()) };
                let patch = json!({"metadata": {"uid": node.uid, "resourceVersion": rv, "ownerReferences": owners}});
                self.patch(&r, &patch).await
            }
            Action::Note { note, .. } => {
                let patch = json!({"metadata": {"uid": node.uid, "resourceVersion": rv,
                                                "annotations": {graph::WAITING_FOR: note}}});
                self.patch(&r, &patch).await
            }
            Action::SetFinalizers { finalizers, .. } => {
                let list = if finalizers.is_empty() { Value::Null } else { Value::from(finalizers.clone()) };
                let patch = json!({"metadata": {"uid": node.uid, "resourceVersion": rv, "finalizers": list}});
                self.patch(&r, &patch).await
            }
        }
    }

    async fn patch(&self, r: &Ref, patch: &Value) -> Result<()> {
        let body = serde_json::to_vec(patch).expect("JSON values serialize");
        self.resources.patch(r, Endpoint::Main, PatchType::Merge, &body, &WriteOptions::default()).await.map(drop)
    }

    /// The API address of a node, at its storage version (no conversion).
    fn reference(&self, node: &Node) -> Option<Ref> {
        let served = self.resources.served_plural(&node.group, &node.plural)?;
        let version = if served.serves(&served.storage_version) {
            served.storage_version.clone()
        } else {
            served.versions.iter().find(|v| v.served)?.name.clone()
        };
        Some(Ref {
            group: node.group.clone(),
            version,
            resource: node.plural.clone(),
            namespace: node.namespace.clone(),
            name: node.name.clone(),
        })
    }
}

fn action_node(action: &Action) -> &Node {
    match action {
        Action::Delete { node, .. }
        | Action::SetOwners { node, .. }
        | Action::SetFinalizers { node, .. }
        | Action::Note { node, .. } => node,
    }
}

/// Paces requests to `rate` per second (0: no limit) since the collector
/// started, so a burst after idling is allowed up to one second's worth.
struct Pace {
    rate: u32,
    since: Instant,
    done: f64,
}

impl Pace {
    fn new(rate: u32) -> Self {
        Self { rate, since: Instant::now(), done: 0.0 }
    }

    async fn wait(&mut self, n: usize) {
        if self.rate == 0 {
            return;
        }
        let rate = f64::from(self.rate);
        // Idle time earns at most one second of credit.
        let elapsed = self.since.elapsed().as_secs_f64();
        if self.done < (elapsed - 1.0) * rate {
            self.done = (elapsed - 1.0) * rate;
        }
        self.done += n as f64;
        let due = Duration::from_secs_f64(self.done / rate);
        if let Some(wait) = due.checked_sub(self.since.elapsed()) {
            tokio::time::sleep(wait).await;
        }
    }
}

#[cfg(test)]
mod tests;

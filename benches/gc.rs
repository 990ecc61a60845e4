//! `cargo bench --bench gc`: the garbage collector, in-process through the
//! domain (`Resources`, the collector as the server runs it, its rate
//! unbounded): the time from deleting an owner with 10,000 dependents
//! (background, then foreground) to the last dependent gone, and
//! dependents/s; then durable creates/s at 64 clients alone and while a
//! background collection of 10,000 dependents runs beside them.
//!
//! Figures are printed, not asserted. `CRDSTORE_BENCH_DEPENDENTS` sets the
//! number of dependents (default 10,000); `CRDSTORE_BENCH_SECONDS` the
//! create measuring time (default 3).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crdstore::apimachinery::options::{DeleteOptions, WriteOptions};
use crdstore::resource::{Ref, Resources};
use crdstore::storage::sled::{SledOptions, SledStore};
use crdstore::storage::{keys, Storage};
use crdstore::watch::stream::WatchDefaults;
use serde_json::{json, Value};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const CLIENTS: usize = 64;

fn dependents() -> usize {
    std::env::var("CRDSTORE_BENCH_DEPENDENTS").ok().and_then(|s| s.parse().ok()).unwrap_or(10_000)
}

fn seconds() -> Duration {
    let secs = std::env::var("CRDSTORE_BENCH_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(3.0);
    Duration::from_secs_f64(secs)
}

fn reference(plural: &str, namespace: &str, name: &str) -> Ref {
    Ref {
        group: "example.com".into(),
        version: "v1".into(),
        resource: plural.into(),
        namespace: namespace.into(),
        name: name.into(),
    }
}

fn object(kind: &str, name: &str, owner: Option<&Value>) -> Vec<u8> {
    let mut obj = json!({"apiVersion": "example.com/v1", "kind": kind, "metadata": {"name": name},
                         "spec": {"data": "x".repeat(900)}});
    if let Some(o) = owner {
        obj["metadata"]["ownerReferences"] = json!([{"apiVersion": "example.com/v1", "kind": o["kind"],
            "name": o["metadata"]["name"], "uid": o["metadata"]["uid"], "blockOwnerDeletion": true}]);
    }
    serde_json::to_vec(&obj).expect("serialize")
}

struct Setup {
    store: Arc<dyn Storage>,
    resources: Arc<Resources>,
    _stop: tokio::sync::watch::Sender<bool>,
    _dir: tempfile::TempDir,
}

async fn setup() -> Setup {
    let dir = tempfile::tempdir().expect("tempdir");
    let (store, background) = SledStore::open(dir.path(), SledOptions::default()).expect("open");
    tokio::spawn(background.run());
    let store: Arc<dyn Storage> = Arc::new(store);
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let resources = Arc::new(Resources::new(store.clone(), WatchDefaults::default(), stopped.clone()));
    for kind in ["Owner", "Child"] {
        let plural = format!("{}s", kind.to_lowercase());
        let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": format!("{plural}.example.com")},
            "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": plural, "kind": kind},
                     "versions": [{"name": "v1", "served": true, "storage": true,
                                   "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}});
        resources
            .create(
                &crdstore::resource::definitions::at(""),
                &serde_json::to_vec(&crd).expect("crd"),
                &WriteOptions::default(),
            )
            .await
            .expect("register");
    }
    tokio::spawn(crdstore::gc::run(store.clone(), resources.clone(), crdstore::gc::GcOptions { rate: 0 }, stopped));
    Setup { store, resources, _stop: stop, _dir: dir }
}

/// An owner in `namespace` with `n` dependents.
async fn family(s: &Setup, namespace: &str, n: usize) {
    let owner = s
        .resources
        .create(&reference("owners", namespace, ""), &object("Owner", "owner", None), &WriteOptions::default())
        .await
        .expect("owner")
        .object;
    let owner = Arc::new(owner);
    let tasks: Vec<_> = (0..CLIENTS)
        .map(|c| {
            let (resources, owner, namespace) = (s.resources.clone(), owner.clone(), namespace.to_string());
            tokio::spawn(async move {
                for i in (0..n).skip(c).step_by(CLIENTS) {
                    let body = object("Child", &format!("c{i:05}"), Some(&owner));
                    resources
                        .create(&reference("childs", &namespace, ""), &body, &WriteOptions::default())
                        .await
                        .expect("dependent");
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.expect("filler");
    }
}

/// Deletes the owner of `namespace` with `policy`; the time until its last
/// dependent (and, in the foreground, the owner) is gone.
async fn collect(store: Arc<dyn Storage>, resources: Arc<Resources>, namespace: &str, policy: &str) -> Duration {
    let start = Instant::now();
    let options = DeleteOptions { propagation_policy: policy.into(), ..DeleteOptions::default() };
    resources.delete(&reference("owners", namespace, "owner"), &options).await.expect("delete owner");
    let dependents = keys::namespace_prefix("example.com", "childs", namespace);
    let owner = keys::resource_key("example.com", "owners", namespace, "owner");
    while store.count(&dependents) > 0 || store.get(&owner).is_some() {
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    start.elapsed()
}

/// Durable creates/s at `CLIENTS` clients for `seconds()`, or while
/// `going` holds.
async fn creates(s: &Setup, namespace: &str, going: Option<Arc<AtomicBool>>) -> f64 {
    let done = Arc::new(AtomicUsize::new(0));
    let deadline = Instant::now() + seconds();
    let start = Instant::now();
    let more = move || match &going {
        Some(flag) => flag.load(Ordering::Relaxed),
        None => Instant::now() < deadline,
    };
    let tasks: Vec<_> = (0..CLIENTS)
        .map(|c| {
            let (resources, done, namespace) = (s.resources.clone(), done.clone(), namespace.to_string());
            let more = more.clone();
            tokio::spawn(async move {
                let mut i = 0;
                while more() {
                    let body = object("Owner", &format!("l{c}-{i}"), None);
                    resources
                        .create(&reference("owners", &namespace, ""), &body, &WriteOptions::default())
                        .await
                        .expect("create");
                    done.fetch_add(1, Ordering::Relaxed);
                    i += 1;
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.expect("client");
    }
    done.load(Ordering::Relaxed) as f64 / start.elapsed().as_secs_f64()
}

#[tokio::main]
async fn main() {
    let n = dependents();
    let s = setup().await;
    let mut times = Vec::new();
    for (namespace, policy) in [("bg", "Background"), ("fg", "Foreground")] {
        family(&s, namespace, n).await;
        let took = collect(s.store.clone(), s.resources.clone(), namespace, policy).await;
        println!(
            "gc {policy:<10}: {n} dependents gone in {:>7.1} ms ({:>8.0} dependents/s)",
            took.as_secs_f64() * 1e3,
            n as f64 / took.as_secs_f64()
        );
        times.push(took);
    }
    println!("gc foreground/background: {:.2}x", times[1].as_secs_f64() / times[0].as_secs_f64());

    let alone = creates(&s, "alone", None).await;
    family(&s, "beside", n).await;
    let collecting = Arc::new(AtomicBool::new(true));
    let collector = {
        let (store, resources, flag) = (s.store.clone(), s.resources.clone(), collecting.clone());
        tokio::spawn(async move {
            let took = collect(store, resources, "beside", "Background").await;
            flag.store(false, Ordering::Relaxed);
            took
        })
    };
    let beside = creates(&s, "loaded", Some(collecting)).await;
    let took = collector.await.expect("collection");
    println!("gc creates/s alone:             {alone:>8.0}");
    println!(
        "gc creates/s beside collection: {beside:>8.0} ({:+.1}%, over the {:.1} ms the collection took)",
        (beside / alone - 1.0) * 100.0,
        took.as_secs_f64() * 1e3
    );
}

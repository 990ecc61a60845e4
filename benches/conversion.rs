//! `cargo bench --bench conversion`: what conversion costs a list. 10,000
//! 1 KB Widgets stored at `v1`, listed whole (as the JSON the transports
//! send) at the storage version, and at `v2` through a conversion webhook
//! on loopback (HTTPS, the test webhook of `tests/it/conversion_webhook.rs`,
//! one review per list). The median of `CRDSTORE_BENCH_ROUNDS` (default 5)
//! lists each; figures are printed, not asserted. Issue 18's target: a
//! webhook list within 3x the storage-version list.
//!
//! Then the same 10,000 objects in a second store whose definition has
//! `strategy: Declarative` (v1 -> v2: a rename, a move, a default and a
//! CEL rule each way, over typed schemas), listed at the storage version
//! and at v2 through the declarative engine (target: within 1.3x), with
//! where its time goes: the page read as values and serialised again
//! (what any conversion costs over the stored bytes the storage-version
//! list sends as they are), and the engine alone.

#[path = "../tests/it/conversion_webhook.rs"]
mod conversion_webhook;

use std::sync::Arc;
use std::time::Instant;

use crdstore::apimachinery::options::{ListOptions, WriteOptions};
use crdstore::registry::Registry;
use crdstore::resource::{Ref, Resources};
use crdstore::storage::sled::{SledOptions, SledStore};
use crdstore::storage::Storage;
use crdstore::watch::stream::WatchDefaults;
use serde_json::json;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const OBJECTS: usize = 10_000;

fn rounds() -> usize {
    std::env::var("CRDSTORE_BENCH_ROUNDS").ok().and_then(|s| s.parse().ok()).unwrap_or(5).max(1)
}

fn reference(version: &str, name: &str) -> Ref {
    Ref {
        group: "example.com".into(),
        version: version.into(),
        resource: "widgets".into(),
        namespace: "bench".into(),
        name: name.into(),
    }
}

/// Widgets v1 (storage) and v2, both preserving unknown fields.
fn open_versions() -> serde_json::Value {
    let schema = json!({"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}});
    json!([{"name": "v1", "served": true, "storage": true, "schema": schema},
           {"name": "v2", "served": true, "storage": false, "schema": schema}])
}

/// Widgets v1 (storage) and v2 with typed schemas and v1's declaration of
/// v2: `hostPort` renamed `endpoint`, `replicas` moved to
/// `scaling.replicas`, `tier` defaulted, `data` computed by CEL each way.
fn declarative_versions() -> serde_json::Value {
    let (int, string) = (json!({"type": "integer"}), json!({"type": "string"}));
    let schema = |spec: serde_json::Value| json!({"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object", "properties": spec}}}});
    json!([
        {"name": "v1", "served": true, "storage": true,
         "schema": schema(json!({"hostPort": string, "replicas": int, "data": string})),
         "conversion": {"declarative": {"v2": {"rules": [
             {"rename": {"from": ".spec.hostPort", "to": ".spec.endpoint"}},
             {"rename": {"from": ".spec.replicas", "to": ".spec.scaling.replicas"}},
             {"default": {"path": ".spec.tier", "value": "gold"}},
             {"cel": {"from": ".spec.data", "to": ".spec.payload",
                      "forward": "'b:' + self", "backward": "self.substring(2)"}}]}}}},
        {"name": "v2", "served": true, "storage": false,
         "schema": schema(json!({"endpoint": string, "tier": string, "payload": string,
                                 "scaling": {"type": "object", "properties": {"replicas": int}}}))}
    ])
}

/// Registers Widgets with `versions` (v1 storage, v2 served) converting as
/// `conversion` says, and fills them with 10,000 1 KB objects at v1.
async fn setup(conversion: serde_json::Value, versions: serde_json::Value) -> (Arc<Resources>, Keep) {
    let dir = tempfile::tempdir().expect("tempdir");
    let (store, background) = SledStore::open(dir.path(), SledOptions::default()).expect("open");
    tokio::spawn(background.run());
    let store: Arc<dyn Storage> = Arc::new(store);
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let registry = Registry::new(store.clone(), WatchDefaults::default(), stopped.clone());
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "widgets", "kind": "Widget"},
                 "versions": versions,
                 "conversion": conversion}});
    registry.create(&serde_json::to_vec(&crd).expect("crd"), &WriteOptions::default()).await.expect("register");
    let resources = Arc::new(Resources::new(store, WatchDefaults::default(), stopped));
    let mut tasks = Vec::new();
    for client in 0..16 {
        let resources = resources.clone();
        tasks.push(tokio::spawn(async move {
            for i in (client..OBJECTS).step_by(16) {
                let obj = json!({"apiVersion": "example.com/v1", "kind": "Widget",
                    "metadata": {"name": format!("w{i:05}"), "labels": {"app": "bench"}},
                    "spec": {"hostPort": format!("host-{i}:{}", 1000 + i), "replicas": 1, "data": "x".repeat(850)}});
                let body = serde_json::to_vec(&obj).expect("serialize");
                resources.create(&reference("v1", ""), &body, &WriteOptions::default()).await.expect("create");
            }
        }));
    }
    for task in tasks {
        task.await.expect("fill");
    }
    (resources, (stop, dir))
}

/// What must live while the resources are used: the stop signal and the
/// data directory.
type Keep = (tokio::sync::watch::Sender<bool>, tempfile::TempDir);

/// The median time of listing all objects at `version`, in milliseconds.
async fn list_ms(resources: &Resources, version: &str) -> f64 {
    let mut times = Vec::new();
    for _ in 0..rounds() {
        let start = Instant::now();
        let page = resources.list_json(&reference(version, ""), &ListOptions::default()).await.expect("list");
        times.push(start.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(page.items.len(), OBJECTS);
    }
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

#[tokio::main]
async fn main() {
    if std::env::args().any(|a| a == "--list") {
        println!("conversion: bench");
        return;
    }
    let hook = conversion_webhook::Webhook::start().await;
    let (resources, _keep) = setup(hook.conversion(&["v1"]), open_versions()).await;
    let stored = list_ms(&resources, "v1").await;
    let before = hook.reviews();
    let webhook = list_ms(&resources, "v2").await;
    let reviews = (hook.reviews() - before) / rounds();
    println!("list of {OBJECTS} objects at the storage version:        {stored:>8.1} ms");
    println!(
        "list of {OBJECTS} objects through a webhook (loopback):  {webhook:>8.1} ms  ({:.2}x, {reviews} review per list; target <= 3x)",
        webhook / stored
    );
    // Where the webhook list's time goes: the page read as values at the
    // storage version, and the converter's call alone (one review).
    let served = resources.served("example.com", "v2", "widgets").expect("served");
    let values = resources.list(&reference("v1", ""), &ListOptions::default()).await.expect("list").items;
    let mut times = Vec::new();
    for _ in 0..rounds() {
        let start = Instant::now();
        let converted = served.converter.convert(values.clone(), "v2").await.expect("convert");
        times.push(start.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(converted.len(), OBJECTS);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "  of which the review alone (serialise, HTTPS, webhook, parse, check): {:>8.1} ms",
        times[times.len() / 2]
    );
    drop((resources, _keep));

    let (resources, _keep) = setup(json!({"strategy": "Declarative"}), declarative_versions()).await;
    let stored = list_ms(&resources, "v1").await;
    let declarative = list_ms(&resources, "v2").await;
    let sample = resources.get(&reference("v2", "w00001")).await.expect("get");
    assert_eq!(sample["spec"]["payload"].as_str().map(|p| &p[..2]), Some("b:"), "{sample}");
    println!("list of {OBJECTS} objects at the storage version (typed):  {stored:>8.1} ms");
    println!(
        "list of {OBJECTS} objects through declarative conversion: {declarative:>8.1} ms  ({:+.0}%; target <= +30%)",
        (declarative / stored - 1.0) * 100.0
    );
    // Where it goes: the storage-version list above sends the stored bytes
    // as they are; any conversion first reads the page as values (parse,
    // prune and default) and serialises them again, then converts.
    let mut times = Vec::new();
    let mut values = Vec::new();
    for _ in 0..rounds() {
        let start = Instant::now();
        values = resources.list(&reference("v1", ""), &ListOptions::default()).await.expect("list").items;
        let bytes: Vec<Vec<u8>> = values.iter().map(|v| serde_json::to_vec(v).expect("serialize")).collect();
        times.push(start.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(bytes.len(), OBJECTS);
    }
    times.sort_by(f64::total_cmp);
    let as_values = times[times.len() / 2];
    let served = resources.served("example.com", "v2", "widgets").expect("served");
    let mut times = Vec::new();
    for _ in 0..rounds() {
        let page = values.clone();
        let start = Instant::now();
        let converted = served.converter.convert(page, "v2").await.expect("convert");
        times.push(start.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(converted.len(), OBJECTS);
    }
    times.sort_by(f64::total_cmp);
    let engine = times[times.len() / 2];
    println!(
        "  the same list read as values and serialised (no conversion):    {as_values:>8.1} ms  (declarative {:+.0}% on it)",
        (declarative / as_values - 1.0) * 100.0
    );
    println!("  of which the declarative engine alone (10,000 objects):         {engine:>8.1} ms");
}

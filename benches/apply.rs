//! `cargo bench --bench apply`: server-side apply's figures (issue 20) for a
//! 1 KB object, in one run: an update through the domain (`Resources`,
//! durable commit included) with managedFields tracking, an apply by three
//! managers taking turns, and the field manager's own share of each (the
//! engine alone, no storage), so "today's update" is the update less the
//! tracking. Figures are printed, not asserted. `CRDSTORE_BENCH_ROUNDS`
//! sets the operations per figure (default 300).

use std::sync::Arc;
use std::time::Instant;

use crdstore::apimachinery::options::WriteOptions;
use crdstore::apimachinery::strategy::Endpoint;
use crdstore::apply::{FieldManager, Set, Ty};
use crdstore::resource::{Ref, Resources};
use crdstore::schema::Schema;
use crdstore::storage::sled::{SledOptions, SledStore};
use crdstore::storage::Storage;
use crdstore::watch::stream::WatchDefaults;
use serde_json::{json, Value};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn rounds() -> usize {
    std::env::var("CRDSTORE_BENCH_ROUNDS").ok().and_then(|s| s.parse().ok()).unwrap_or(300)
}

fn schema() -> Value {
    json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "data": {"type": "string"}, "replicas": {"type": "integer"},
        "m0": {"type": "string"}, "m1": {"type": "string"}, "m2": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
        "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
            "items": {"type": "object", "properties": {"name": {"type": "string"}, "port": {"type": "integer"}}}}}}}})
}

fn reference() -> Ref {
    Ref {
        group: "example.com".into(),
        version: "v1".into(),
        resource: "widgets".into(),
        namespace: "bench".into(),
        name: "w".into(),
    }
}

/// A 1 KB Widget; manager `m` sets its own field to `value`.
fn widget(m: usize, value: usize) -> Value {
    let mut spec = json!({"data": "x".repeat(700), "replicas": 1, "tags": ["a", "b", "c"],
        "ports": [{"name": "http", "port": 80}, {"name": "admin", "port": 81}]});
    spec[format!("m{m}")] = json!(format!("v{value}"));
    json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "bench",
        "labels": {"app": "bench"}}, "spec": spec})
}

fn micros(start: Instant, n: usize) -> f64 {
    start.elapsed().as_secs_f64() * 1e6 / n as f64
}

#[tokio::main]
async fn main() {
    let n = rounds();
    let dir = tempfile::tempdir().expect("tempdir");
    let (store, background) = SledStore::open(dir.path(), SledOptions::default()).expect("open");
    tokio::spawn(background.run());
    let store: Arc<dyn Storage> = Arc::new(store);
    let (_stop, stopped) = tokio::sync::watch::channel(false);
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "widgets", "kind": "Widget"},
                 "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": schema()}}]}});
    let resources = Resources::new(store, WatchDefaults::default(), stopped);
    resources
        .create(
            &crdstore::resource::definitions::at(""),
            &serde_json::to_vec(&crd).expect("crd"),
            &WriteOptions::default(),
        )
        .await
        .expect("register");
    let r = reference();
    let options = |m: &str| WriteOptions { field_manager: m.into(), ..WriteOptions::default() };
    let created =
        resources.create(&r, &serde_json::to_vec(&widget(0, 0)).unwrap(), &options("u")).await.expect("create");
    println!("object: {} bytes", serde_json::to_vec(&created.object).unwrap().len());

    // Updates through the domain, tracking included.
    let mut live = created.object;
    let start = Instant::now();
    for i in 0..n {
        let mut next = live.clone();
        next["spec"]["m0"] = json!(format!("u{i}"));
        live = resources.update(&r, &serde_json::to_vec(&next).unwrap(), &options("u")).await.expect("update").object;
    }
    let update = micros(start, n);

    // Applies by three managers in turn, each its own field.
    let start = Instant::now();
    for i in 0..n {
        let m = i % 3;
        let body = serde_json::to_vec(&widget(m, i)).unwrap();
        let opts = WriteOptions { force: true, ..options(&format!("m{m}")) };
        resources.apply(&r, Endpoint::Main, &body, &opts).await.expect("apply");
    }
    let apply = micros(start, n);

    // The field manager alone over the same objects.
    let compiled = Schema::compile(&schema()).expect("schema");
    let fm = FieldManager {
        ty: Ty::root(Some(&compiled)),
        api_version: "example.com/v1".into(),
        kind: "Widget".into(),
        subresource: String::new(),
        reset: Set::new(),
        now: "2026-01-01T00:00:00Z".into(),
    };
    let base = resources.get(&r, Default::default()).await.expect("get").into_value().expect("JSON");
    let start = Instant::now();
    for i in 0..n {
        let mut next = base.clone();
        next["spec"]["m0"] = json!(format!("e{i}"));
        fm.update(Some(&base), &mut next, "u");
    }
    let tracking = micros(start, n);
    let start = Instant::now();
    for i in 0..n {
        fm.apply(Some(&base), &widget(i % 3, i), &format!("m{}", i % 3), true).expect("engine apply");
    }
    let engine_apply = micros(start, n);

    let today = update - tracking;
    println!("update with managedFields tracking: {update:.0} us/op ({n} sequential, durable)");
    println!("  of which tracking (the field manager's Update): {tracking:.1} us/op");
    println!("  today's update (without tracking): {today:.0} us/op; tracking adds {:.1}%", 100.0 * tracking / today);
    println!("apply, 3 managers in turn: {apply:.0} us/op = {:.2}x the update", apply / update);
    println!("  of which the field manager's Apply: {engine_apply:.1} us/op");
}

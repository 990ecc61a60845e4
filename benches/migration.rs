//! `cargo bench --bench migration`: a storage-version migration of N
//! objects (100,000 by default; `-- --objects N` or
//! `CRDSTORE_BENCH_OBJECTS`) of about 400 bytes each, on a real server over
//! gRPC, with the write limit raised (`--migration-rate 0`), in objects per
//! second; then 10,000 objects at the default limit, to show the limit
//! holds. The objects are written straight into the store at v1 before the
//! server starts, then v2 becomes the storage version and the migration
//! runs from Start to Succeeded. Figures are printed, not asserted.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crdstore::migration::MigrationOptions;
use crdstore::pb::v1 as pb;
use crdstore::pb::v1::custom_resource_definitions_client::CustomResourceDefinitionsClient;
use crdstore::pb::v1::storage_version_migrations_client::StorageVersionMigrationsClient;
use crdstore::server::{Config, Server};
use crdstore::storage::sled::{SledOptions, SledStore};
use crdstore::storage::{Op, Storage};
use serde_json::{json, Value};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const PER_COMMIT: usize = 500;

fn objects() -> usize {
    let args: Vec<String> = std::env::args().collect();
    let flag = args.iter().position(|a| a == "--objects").and_then(|i| args.get(i + 1).cloned());
    flag.or_else(|| std::env::var("CRDSTORE_BENCH_OBJECTS").ok()).and_then(|n| n.parse().ok()).unwrap_or(100_000)
}

fn version(name: &str, storage: bool) -> Value {
    json!({"name": name, "served": true, "storage": storage,
        "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}})
}

fn definition(storage_v2: bool) -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "widgets", "kind": "Widget"},
            "versions": [version("v1", !storage_v2), version("v2", storage_v2)]},
    })
}

fn object(i: usize) -> Vec<u8> {
    let obj = json!({
        "apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": format!("w{i}"), "namespace": format!("ns{}", i % 100),
            "uid": format!("00000000-0000-0000-0000-{i:012}"), "generation": 1,
            "creationTimestamp": "2026-01-01T00:00:00Z"},
        "spec": {"color": "blue", "replicas": i % 7, "data": "x".repeat(200)},
    });
    serde_json::to_vec(&obj).unwrap()
}

/// Writes `n` widgets at v1 straight into the store in `dir`.
async fn fill(dir: &Path, n: usize) {
    let (store, _compaction) = SledStore::open(dir, SledOptions::default()).expect("open store");
    let store = Arc::new(store);
    for start in (0..n).step_by(PER_COMMIT) {
        let ops = (start..(start + PER_COMMIT).min(n))
            .map(|i| Op::create(format!("/registry/example.com/widgets/ns{}/w{i}", i % 100), object(i)))
            .collect();
        store.commit(ops).await.expect("commit");
    }
    store.close().await;
}

/// Migrates `n` objects at `rate`; returns the seconds it took.
async fn run(n: usize, rate: u32) -> f64 {
    let dir = tempfile::tempdir().unwrap();
    let start = |rate| {
        let mut config = Config::ephemeral(dir.path().to_path_buf());
        config.migration = MigrationOptions { rate };
        Server::start(config)
    };
    let server = start(rate).await.unwrap();
    let endpoint = format!("http://{}", server.grpc_addr);
    let mut defs = CustomResourceDefinitionsClient::connect(endpoint.clone()).await.unwrap();
    let body = serde_json::to_vec(&definition(false)).unwrap();
    defs.create(pb::CreateDefinitionRequest { definition: body, options: None }).await.unwrap();
    server.shutdown().await.unwrap();
    fill(dir.path(), n).await;

    let server = start(rate).await.unwrap();
    let endpoint = format!("http://{}", server.grpc_addr);
    let mut defs = CustomResourceDefinitionsClient::connect(endpoint.clone()).await.unwrap();
    let got = defs.get(pb::GetDefinitionRequest { name: "widgets.example.com".into() }).await.unwrap();
    let mut crd: Value = serde_json::from_slice(&got.into_inner().definition).unwrap();
    crd["spec"] = definition(true)["spec"].clone();
    let body = serde_json::to_vec(&crd).unwrap();
    defs.update(pb::UpdateDefinitionRequest { definition: body, options: None }).await.unwrap();

    let mut client = StorageVersionMigrationsClient::connect(endpoint).await.unwrap();
    let began = Instant::now();
    let request = pb::StartMigrationRequest { definition: "widgets.example.com".into(), name: "bench".into() };
    client.start(request).await.unwrap();
    let mut stream = client.watch(pb::WatchMigrationRequest { name: "bench".into() }).await.unwrap().into_inner();
    let mut last = None;
    while let Some(m) = stream.message().await.unwrap() {
        last = Some(m);
    }
    let seconds = began.elapsed().as_secs_f64();
    let last = last.unwrap();
    assert_eq!((last.phase.as_str(), last.migrated), ("Succeeded", n as u64), "{}", last.message);
    server.shutdown().await.unwrap();
    seconds
}

#[tokio::main]
async fn main() {
    let n = objects();
    let seconds = run(n, 0).await;
    println!(
        "migration, no limit: {n} objects in {seconds:.2} s = {:.0} objects/s (target >= 5,000/s)",
        n as f64 / seconds
    );
    let limited = 10_000;
    let rate = crdstore::migration::DEFAULT_RATE;
    let seconds = run(limited, rate).await;
    tokio::time::sleep(Duration::from_millis(10)).await;
    println!(
        "migration, default limit {rate}/s: {limited} objects in {seconds:.2} s = {:.0} objects/s",
        limited as f64 / seconds
    );
}

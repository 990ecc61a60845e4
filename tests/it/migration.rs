//! Storage-version migration: after the storage version changes, a
//! migration rewrites every stored object at the new version (checked in
//! the store itself, after the server stops), keeps each object's content
//! and generation, trims `status.storedVersions`, resumes after `kill -9`,
//! and loses no write made while it runs.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crdstore::pb::v1 as pb;
use crdstore::pb::v1::storage_version_migrations_client::StorageVersionMigrationsClient;
use crdstore::storage::sled::{SledOptions, SledStore};
use crdstore::storage::{keys, ReadAt, Storage};
use serde_json::{json, Value};
use tonic::transport::Channel;

use crate::support::{self, version, Crd, TestServer};

type Migrations = StorageVersionMigrationsClient<Channel>;
const DEFINITION: &str = "widgets.example.com";

async fn migrations(endpoint: String) -> Migrations {
    support::Grpc::at(endpoint).migrations().await
}

/// Registers widgets (v1 storage, v2 served) and creates `n` of them, every
/// third updated once (generation 2).
async fn seed(endpoint: &str, n: usize) {
    let grpc = support::Grpc::at(endpoint);
    let mut defs = grpc.definitions().await;
    let crd = Crd::new("example.com", "Widget").versions(vec![version("v1", true), version("v2", false)]);
    support::create(&mut defs, &crd).await;
    let mut r = grpc.resources().await;
    for i in 0..n {
        let created = support::create_widget(&mut r, "default", &support::widget(&format!("w{i:05}"), json!({"i": i})))
            .await
            .unwrap();
        if i % 3 == 0 {
            let mut obj = created;
            obj["spec"]["again"] = json!(true);
            support::update_widget(&mut r, "default", &obj).await.unwrap();
        }
    }
}

/// Makes v2 the storage version; returns the definition's storedVersions.
async fn switch_to_v2(endpoint: &str) -> Value {
    let mut defs = support::Grpc::at(endpoint).definitions().await;
    let mut crd = support::get(&mut defs, DEFINITION).await;
    crd["spec"]["versions"] = json!([version("v1", false), version("v2", true)]);
    support::update(&mut defs, &crd).await.unwrap()["status"]["storedVersions"].clone()
}

/// Every widget at v1, by name, without what a migration may change
/// (resourceVersion).
async fn snapshot(endpoint: &str) -> BTreeMap<String, Value> {
    let mut r = support::Grpc::at(endpoint).resources().await;
    let req = pb::ListResourcesRequest { r#ref: Some(support::widgets("", "")), options: None };
    let list = r.list(req).await.unwrap().into_inner();
    list.items
        .iter()
        .map(|bytes| {
            let mut obj = support::parse(bytes);
            obj["metadata"].as_object_mut().unwrap().remove("resourceVersion");
            (obj["metadata"]["name"].as_str().unwrap().to_string(), obj)
        })
        .collect()
}

/// Follows a migration to its end.
async fn follow(client: &mut Migrations, name: &str) -> pb::Migration {
    let mut stream = client.watch(pb::WatchMigrationRequest { name: name.into() }).await.unwrap().into_inner();
    let mut last = None;
    while let Some(m) = tokio::time::timeout(Duration::from_secs(120), stream.message()).await.unwrap().unwrap() {
        last = Some(m);
    }
    last.unwrap()
}

/// The stored apiVersion of every widget, read from the store in `dir`
/// (no server may be using it).
async fn stored_versions(dir: &std::path::Path) -> BTreeMap<String, String> {
    let (store, _background) = SledStore::open(dir, SledOptions::default()).unwrap();
    let range =
        store.range(&keys::resource_prefix("example.com", "widgets"), None, ReadAt::Latest, 0, &mut |_| true).unwrap();
    let versions = range
        .items
        .iter()
        .map(|kv| {
            let json = crdstore::resource::stored::split_mark(&kv.value).0;
            let obj: Value = serde_json::from_slice(json).unwrap();
            (kv.key.to_string(), obj["apiVersion"].as_str().unwrap().to_string())
        })
        .collect();
    store.close().await;
    versions
}

async fn stored_versions_of_definition(endpoint: &str) -> Value {
    let mut defs = support::Grpc::at(endpoint).definitions().await;
    support::get(&mut defs, DEFINITION).await["status"]["storedVersions"].clone()
}

#[tokio::test]
async fn a_migration_rewrites_every_object_at_the_storage_version_and_trims_stored_versions() {
    let mut t = TestServer::start().await;
    let endpoint = format!("http://{}", t.server().grpc_addr);
    seed(&endpoint, 300).await;
    let before = snapshot(&endpoint).await;
    assert_eq!(switch_to_v2(&endpoint).await, json!(["v1", "v2"]));

    let mut client = migrations(endpoint.clone()).await;
    let started = client
        .start(pb::StartMigrationRequest { definition: DEFINITION.into(), name: "to-v2".into() })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(started.phase, "Running");
    let ended = follow(&mut client, "to-v2").await;
    assert_eq!((ended.phase.as_str(), ended.target_version.as_str(), ended.migrated), ("Succeeded", "v2", 300));
    let again = client.start(pb::StartMigrationRequest { definition: DEFINITION.into(), name: "to-v2".into() }).await;
    assert_eq!(again.unwrap_err().code(), tonic::Code::AlreadyExists);

    assert_eq!(stored_versions_of_definition(&endpoint).await, json!(["v2"]));
    let after = snapshot(&endpoint).await;
    assert_eq!(after, before, "contents and generations are unchanged");
    assert!(after.values().any(|o| o["metadata"]["generation"] == 2));
    let listed = client.list(pb::ListMigrationsRequest {}).await.unwrap().into_inner().migrations;
    assert_eq!(listed.len(), 1);
    let object = support::parse(&listed[0].object);
    assert_eq!(object["kind"], "StorageVersionMigration");
    assert_eq!(object["spec"]["resource"], json!({"group": "example.com", "resource": "widgets"}));

    // Once trimmed, v1 may leave the spec.
    let mut defs = t.definitions().await;
    let mut crd = support::get(&mut defs, DEFINITION).await;
    crd["spec"]["versions"] = json!([version("v2", true)]);
    support::update(&mut defs, &crd).await.unwrap();

    t.server.take().unwrap().shutdown().await.unwrap();
    let versions = stored_versions(t.dir.path()).await;
    assert_eq!(versions.len(), 300);
    assert!(versions.values().all(|v| v == "example.com/v2"), "{versions:?}");
}

#[tokio::test]
async fn a_migration_of_a_resource_not_served_fails() {
    let t = TestServer::start().await;
    let mut client = migrations(format!("http://{}", t.server().grpc_addr)).await;
    let started = client
        .start(pb::StartMigrationRequest { definition: "nothings.example.com".into(), name: String::new() })
        .await
        .unwrap()
        .into_inner();
    assert!(started.name.starts_with("nothings.example.com-"), "{}", started.name);
    let ended = follow(&mut client, &started.name).await;
    assert_eq!(ended.phase, "Failed");
    assert!(ended.message.contains("nothings.example.com is not served"), "{}", ended.message);
    let err = client.get(pb::GetMigrationRequest { name: "nope".into() }).await.unwrap_err();
    assert_eq!(err.code(), tonic::Code::NotFound);
}

#[tokio::test]
async fn writes_during_a_migration_are_not_lost() {
    let mut t = TestServer::start_with(|c| c.migration.rate = 400).await;
    let endpoint = format!("http://{}", t.server().grpc_addr);
    seed(&endpoint, 400).await;
    switch_to_v2(&endpoint).await;
    let mut client = migrations(endpoint.clone()).await;
    client.start(pb::StartMigrationRequest { definition: DEFINITION.into(), name: "busy".into() }).await.unwrap();

    // Writers update every object while the migration (about a second at
    // 400/s) runs.
    let mut writers = Vec::new();
    for w in 0..4usize {
        let endpoint = endpoint.clone();
        writers.push(tokio::spawn(async move {
            let mut r = support::Grpc::at(endpoint).resources().await;
            for i in (w..400).step_by(4) {
                let name = format!("w{i:05}");
                let patch = json!({"spec": {"written": i}}).to_string();
                support::patch_widget(&mut r, "default", &name, pb::PatchType::Merge, &patch).await.unwrap();
            }
        }));
    }
    for w in writers {
        w.await.unwrap();
    }
    let ended = follow(&mut client, "busy").await;
    assert_eq!(ended.phase, "Succeeded", "{}", ended.message);
    let after = snapshot(&endpoint).await;
    for (name, obj) in &after {
        let i: u64 = name[1..].parse().unwrap();
        assert_eq!(obj["spec"]["written"], json!(i), "{name}");
        assert_eq!(obj["spec"]["i"], json!(i), "{name}");
    }
    assert_eq!(stored_versions_of_definition(&endpoint).await, json!(["v2"]));
    t.server.take().unwrap().shutdown().await.unwrap();
    assert!(stored_versions(t.dir.path()).await.values().all(|v| v == "example.com/v2"));
}

/// Starts `crdstore serve` with `args` on free ports; its gRPC endpoint.
fn start_binary(dir: &std::path::Path, args: &[&str]) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_crdstore"))
        .args(["serve", "--data-dir"])
        .arg(dir)
        .args(["--grpc-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0"])
        .args(args)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start crdstore");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let grpc = line.split_whitespace().find_map(|w| w.strip_prefix("grpc=")).expect("listening line").to_string();
    (child, format!("http://{grpc}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_migration_killed_by_sigkill_resumes_and_finishes() {
    const N: usize = 1_200;
    let dir = tempfile::tempdir().unwrap();
    let (mut child, endpoint) = start_binary(dir.path(), &["--migration-rate", "300"]);
    seed(&endpoint, N).await;
    let before = snapshot(&endpoint).await;
    switch_to_v2(&endpoint).await;
    let mut client = migrations(endpoint.clone()).await;
    client.start(pb::StartMigrationRequest { definition: DEFINITION.into(), name: "crash".into() }).await.unwrap();
    // Kill it once a part, not all, is done (300/s: about 4 s for all).
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let m = client.get(pb::GetMigrationRequest { name: "crash".into() }).await.unwrap().into_inner();
        assert_eq!(m.phase, "Running", "finished before the kill: {m:?}");
        if m.migrated >= 200 {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "no progress: {m:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    child.kill().expect("kill -9");
    child.wait().unwrap();

    let (mut child, endpoint) = start_binary(dir.path(), &["--migration-rate", "0"]);
    let mut client = migrations(endpoint.clone()).await;
    let resumed = client.get(pb::GetMigrationRequest { name: "crash".into() }).await.unwrap().into_inner();
    assert!(resumed.migrated >= 200 && resumed.migrated < N as u64, "progress survived: {resumed:?}");
    let ended = follow(&mut client, "crash").await;
    assert_eq!(ended.phase, "Succeeded", "{}", ended.message);
    assert_eq!(stored_versions_of_definition(&endpoint).await, json!(["v2"]));
    assert_eq!(snapshot(&endpoint).await, before, "none lost or changed");
    child.kill().unwrap();
    child.wait().unwrap();
    let versions = stored_versions(dir.path()).await;
    assert_eq!(versions.len(), N);
    assert!(versions.values().all(|v| v == "example.com/v2"));
}

const SVM: &str = "apiVersion: storagemigration.k8s.io/v1\nkind: StorageVersionMigration\nmetadata: {name: widgets-v2}\nspec:\n  resource: {group: example.com, resource: widgets}\n";

#[tokio::test]
async fn kubectl_drives_a_storage_version_migration() {
    let t = TestServer::start().await;
    let endpoint = format!("http://{}", t.server().grpc_addr);
    seed(&endpoint, 30).await;
    switch_to_v2(&endpoint).await;
    let k = crate::kubectl::Kubectl::new(&t);
    let resources = k.ok(&["api-resources", "--api-group=storagemigration.k8s.io"]).await;
    assert!(resources.contains("storageversionmigrations"), "{resources}");
    let svm = k.file("svm.yaml", SVM);
    let created = k.ok(&["create", "-f", &svm]).await;
    assert!(created.contains("storageversionmigration.storagemigration.k8s.io/widgets-v2 created"), "{created}");
    let (waited, _, stderr) =
        k.run(&["wait", "--for=condition=Succeeded", "storageversionmigration/widgets-v2", "--timeout=60s"]).await;
    // Served as a kind, its list kind is known to kubectl's decoder.
    assert!(waited && !stderr.contains("is registered"), "{stderr}");
    let progress =
        k.ok(&["get", "storageversionmigration", "widgets-v2", "-o", "jsonpath={.status.progress.migrated}"]).await;
    assert_eq!(progress, "30");
    // Its spec is immutable, as Kubernetes' validation has it.
    let patch = r#"{"spec":{"resource":{"resource":"gadgets"}}}"#;
    let (patched, _, stderr) =
        k.run(&["patch", "storageversionmigration", "widgets-v2", "--type=merge", "-p", patch]).await;
    assert!(
        !patched && stderr.contains("spec.resource.resource: Invalid value: \"gadgets\": field is immutable"),
        "{stderr}"
    );
    let listed = k.ok(&["get", "storageversionmigrations"]).await;
    assert!(listed.lines().nth(1).is_some_and(|l| l.starts_with("widgets-v2")), "{listed}");
    let running = k
        .ok(&[
            "get",
            "storageversionmigration",
            "widgets-v2",
            "-o",
            r#"jsonpath={.status.conditions[?(@.type=="Running")].status}"#,
        ])
        .await;
    assert_eq!(running, "False");
    let stored = k.ok(&["get", "crd", DEFINITION, "-o", "jsonpath={.status.storedVersions}"]).await;
    assert_eq!(stored, r#"["v2"]"#);
    let (ok, _, stderr) = k.run(&["create", "-f", &svm]).await;
    assert!(!ok && stderr.contains("already exists"), "{stderr}");
    assert!(k.ok(&["delete", "storageversionmigration", "widgets-v2"]).await.contains("deleted"));
    let (_, stdout, stderr) = k.run(&["get", "storageversionmigrations"]).await;
    assert!(format!("{stdout}{stderr}").contains("No resources found"), "{stdout}{stderr}");
}

#[tokio::test]
async fn crdstore_migrate_runs_a_migration_to_its_end() {
    let t = TestServer::start().await;
    let endpoint = format!("http://{}", t.server().grpc_addr);
    seed(&endpoint, 40).await;
    switch_to_v2(&endpoint).await;
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_crdstore"))
        .args(["migrate", DEFINITION, "--server", &t.server().grpc_addr.to_string()])
        .output()
        .await
        .unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(stdout.contains("migrated widgets.example.com: 40 objects rewritten at v2"), "{stdout}");
    assert!(stderr.contains("100% (40/40 objects looked at)"), "progress without a terminal: {stderr}");
    assert_eq!(stored_versions_of_definition(&endpoint).await, json!(["v2"]));
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_crdstore"))
        .args(["migrate", "nothings.example.com", "--server", &t.server().grpc_addr.to_string()])
        .output()
        .await
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("failed: resource does not exist"));
}

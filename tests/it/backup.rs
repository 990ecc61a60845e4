//! Backup and restore: a snapshot taken over gRPC under 16 writers restores
//! to exactly the acknowledged writes at its revision, and watches resume
//! from it; truncated and corrupt snapshots are refused leaving nothing
//! behind; the `crdstore backup` and `restore` commands, offline and over
//! gRPC.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crdstore::pb::v1 as pb;
use crdstore::server::{Config, Server};
use crdstore::storage::sled::SledStore;
use crdstore::storage::snapshot::{self, SnapshotError};
use serde_json::{json, Value};
use tonic::Streaming;

use crate::support::{self, create_widget, get_widget, widget, TestServer, WAIT};

const WRITERS: usize = 16;

/// Takes a backup over gRPC into `to`; returns the snapshot's revision.
async fn backup_over_grpc(server: &Server, to: &Path) -> i64 {
    let mut client = support::Grpc::at(server.grpc_addr).maintenance().await;
    let mut stream = client.backup(pb::BackupRequest {}).await.unwrap().into_inner();
    let (mut bytes, mut revision, mut last) = (Vec::new(), None, (0, 0));
    while let Some(chunk) = stream.message().await.unwrap() {
        assert!(revision.is_none_or(|r| r == chunk.revision), "every chunk names one revision");
        revision = Some(chunk.revision);
        assert!(chunk.records_done >= last.0 && chunk.records_done <= chunk.records_total);
        last = (chunk.records_done, chunk.records_total);
        bytes.extend_from_slice(&chunk.data);
    }
    assert_eq!(last.0, last.1, "the last chunk counts every record");
    std::fs::write(to, bytes).unwrap();
    revision.expect("at least one chunk")
}

async fn restore(from: &Path, to: &Path) -> Result<snapshot::Summary, SnapshotError> {
    let (from, to) = (from.to_path_buf(), to.to_path_buf());
    tokio::task::spawn_blocking(move || snapshot::restore(&from, &to, SledStore::restore, &snapshot::no_progress()))
        .await
        .unwrap()
}

/// Every widget in `default`, as (name, resourceVersion), and the list's
/// resourceVersion.
async fn widgets(r: &mut support::Resources) -> (BTreeSet<(String, i64)>, i64) {
    let list = r
        .list(pb::ListResourcesRequest { r#ref: Some(support::widgets("default", "")), options: None })
        .await
        .unwrap()
        .into_inner();
    let items = list.items.iter().map(|item| support::parse(item)).map(|o| (name(&o), rv(&o))).collect();
    (items, list.resource_version.parse().unwrap())
}

fn name(obj: &Value) -> String {
    obj["metadata"]["name"].as_str().unwrap().to_string()
}

fn rv(obj: &Value) -> i64 {
    obj["metadata"]["resourceVersion"].as_str().unwrap().parse().unwrap()
}

async fn watch_from(r: &mut support::Resources, revision: i64) -> Streaming<pb::WatchEvent> {
    let options = pb::WatchOptions { resource_version: revision.to_string(), ..Default::default() };
    let request = pb::WatchResourcesRequest { r#ref: Some(support::widgets("default", "")), options: Some(options) };
    r.watch(request).await.unwrap().into_inner()
}

async fn next(stream: &mut Streaming<pb::WatchEvent>) -> (pb::EventType, Value) {
    let event = tokio::time::timeout(WAIT, stream.message()).await.expect("an event in time").unwrap().expect("open");
    (event.r#type(), support::parse(&event.object))
}

/// Waits until `acked` holds at least `count` writes.
async fn until_acked(acked: &Mutex<Vec<(String, i64)>>, count: usize) {
    let deadline = tokio::time::Instant::now() + WAIT * 6;
    while acked.lock().unwrap().len() < count {
        assert!(tokio::time::Instant::now() < deadline, "writers too slow");
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_backup_under_writers_restores_exactly_the_writes_before_its_revision_and_watches_resume() {
    let t = TestServer::start().await;
    support::register_widgets(&t).await;
    let stop = Arc::new(AtomicBool::new(false));
    let acked: Arc<Mutex<Vec<(String, i64)>>> = Arc::default();
    let mut writers = Vec::new();
    for writer in 0..WRITERS {
        let (mut r, stop, acked) = (t.resources().await, stop.clone(), acked.clone());
        writers.push(tokio::spawn(async move {
            let mut i = 0;
            while !stop.load(Ordering::Relaxed) {
                let created = create_widget(&mut r, "default", &widget(&format!("w{writer}-{i}"), json!({"i": i})))
                    .await
                    .expect("a write under backup");
                acked.lock().unwrap().push((name(&created), rv(&created)));
                i += 1;
            }
        }));
    }
    until_acked(&acked, 300).await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("snapshot");
    let revision = backup_over_grpc(t.server(), &file).await;
    let after_backup = acked.lock().unwrap().len();
    until_acked(&acked, after_backup + 300).await;
    stop.store(true, Ordering::Relaxed);
    for writer in writers {
        writer.await.unwrap();
    }
    let acked = acked.lock().unwrap().clone();
    let before: BTreeSet<(String, i64)> = acked.iter().filter(|(_, v)| *v <= revision).cloned().collect();
    assert!(before.len() >= 300 && before.len() < acked.len(), "writes on both sides of revision {revision}");

    let restored_dir = dir.path().join("restored");
    let summary = restore(&file, &restored_dir).await.unwrap();
    assert_eq!(summary.header.revision, revision);
    let restored = Server::start(Config::ephemeral(restored_dir)).await.unwrap();
    let mut r = support::Grpc::at(restored.grpc_addr).resources().await;
    let (items, list_revision) = widgets(&mut r).await;
    assert_eq!(list_revision, revision, "the restored store is at the snapshot's revision");
    assert_eq!(items, before, "every acknowledged write up to the revision, and none after it");

    // A watch from the snapshot's revision sees the next write, and one from
    // an older revision of the window replays the writes up to it first.
    let mut at = watch_from(&mut r, revision).await;
    let mut older = watch_from(&mut r, revision - 10).await;
    let next_one = create_widget(&mut r, "default", &widget("after-restore", json!({}))).await.unwrap();
    assert_eq!(rv(&next_one), revision + 1, "the next write follows the snapshot's revision");
    let (kind, obj) = next(&mut at).await;
    assert_eq!((kind, name(&obj), rv(&obj)), (pb::EventType::Added, "after-restore".to_string(), revision + 1));
    let mut replayed: Vec<(String, i64)> = before.iter().filter(|(_, v)| *v > revision - 10).cloned().collect();
    replayed.sort_by_key(|(_, v)| *v);
    replayed.push(("after-restore".to_string(), revision + 1));
    let mut seen = Vec::new();
    while seen.len() < replayed.len() {
        let (kind, obj) = next(&mut older).await;
        assert_eq!(kind, pb::EventType::Added);
        seen.push((name(&obj), rv(&obj)));
    }
    assert_eq!(seen, replayed, "no gap and no duplicate from an older revision of the window");
    restored.shutdown().await.unwrap();

    // The server backed up still serves.
    let mut r = t.resources().await;
    assert_eq!(get_widget(&mut r, "default", &acked[0].0).await.unwrap()["metadata"]["name"], acked[0].0.as_str());
}

/// A snapshot of a small store, and the directory it is in.
async fn small_snapshot() -> (tempfile::TempDir, PathBuf) {
    let t = TestServer::start().await;
    support::register_widgets(&t).await;
    let mut r = t.resources().await;
    for i in 0..20 {
        create_widget(&mut r, "default", &widget(&format!("w{i}"), json!({"payload": "x".repeat(200)}))).await.unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("snapshot");
    backup_over_grpc(t.server(), &file).await;
    assert!(get_widget(&mut r, "default", "w0").await.is_ok(), "the server still serves");
    (dir, file)
}

/// The entries of `dir`, to see nothing was left behind.
fn entries(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect()
}

#[tokio::test]
async fn a_truncated_or_corrupt_snapshot_is_refused_and_nothing_is_left_behind() {
    let (dir, file) = small_snapshot().await;
    let bytes = std::fs::read(&file).unwrap();
    let truncated = dir.path().join("truncated");
    std::fs::write(&truncated, &bytes[..bytes.len() * 2 / 3]).unwrap();
    let mut flipped = bytes.clone();
    flipped[bytes.len() / 2] ^= 0x10;
    let corrupt = dir.path().join("corrupt");
    std::fs::write(&corrupt, &flipped).unwrap();
    let before = entries(dir.path());

    let err = restore(&truncated, &dir.path().join("from-truncated")).await.unwrap_err();
    assert!(matches!(err, SnapshotError::Truncated(_)), "{err}");
    assert!(err.to_string().starts_with("snapshot is truncated"), "{err}");
    let err = restore(&corrupt, &dir.path().join("from-corrupt")).await.unwrap_err();
    assert!(matches!(err, SnapshotError::Checksum { .. }), "{err}");
    assert!(err.to_string().starts_with("snapshot is corrupt: checksum mismatch"), "{err}");
    assert_eq!(entries(dir.path()), before, "no directory, whole or partial, was left behind");

    // The whole snapshot restores, and not over a store.
    let target = dir.path().join("whole");
    restore(&file, &target).await.unwrap();
    let err = restore(&file, &target).await.unwrap_err();
    assert!(matches!(err, SnapshotError::NotEmpty(_)), "{err}");
    let restored = Server::start(Config::ephemeral(target)).await.unwrap();
    let mut r = support::Grpc::at(restored.grpc_addr).resources().await;
    assert_eq!(widgets(&mut r).await.0.len(), 20);
    restored.shutdown().await.unwrap();
}

async fn crdstore(args: &[&str]) -> std::process::Output {
    let run = tokio::process::Command::new(env!("CARGO_BIN_EXE_crdstore")).args(args).output();
    tokio::time::timeout(WAIT * 6, run).await.expect("the command ends").unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[tokio::test]
async fn the_commands_back_up_offline_and_over_grpc_and_restore() {
    let mut t = TestServer::start().await;
    support::register_widgets(&t).await;
    let mut r = t.resources().await;
    for i in 0..5 {
        create_widget(&mut r, "default", &widget(&format!("w{i}"), json!({}))).await.unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_string_lossy().into_owned();

    // While serving, over gRPC; its output is not a terminal: lines per 10%.
    let out = crdstore(&["backup", "--server", &t.server().grpc_addr.to_string(), "--to", &path("served")]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("backed up revision"), "{}", text(&out.stdout));
    assert!(text(&out.stderr).contains("backup: 100%"), "{}", text(&out.stderr));
    assert!(get_widget(&mut r, "default", "w0").await.is_ok(), "the server still serves");

    // Offline, from the data directory of a stopped server.
    let data_dir = t.dir.path().to_string_lossy().into_owned();
    let served = t.server.take().unwrap();
    served.shutdown().await.unwrap();
    let out = crdstore(&["backup", "--data-dir", &data_dir, "--to", &path("offline")]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("backed up revision"), "{}", text(&out.stdout));
    assert!(!dir.path().join("offline.partial").exists());

    let out = crdstore(&["restore", "--from", &path("offline"), "--data-dir", &path("restored")]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("restore: 100%"), "{}", text(&out.stderr));
    let restored = Server::start(Config::ephemeral(dir.path().join("restored"))).await.unwrap();
    let mut r = support::Grpc::at(restored.grpc_addr).resources().await;
    let names: BTreeSet<String> = widgets(&mut r).await.0.into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, (0..5).map(|i| format!("w{i}")).collect());
    restored.shutdown().await.unwrap();

    // A non-empty directory is refused, with a message saying so.
    let out = crdstore(&["restore", "--from", &path("served"), "--data-dir", &path("restored")]).await;
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("is not empty"), "{}", text(&out.stderr));

    // Bring the original back for the TestServer's drop.
    t.server = Some(Server::start(Config::ephemeral(t.dir.path().to_path_buf())).await.unwrap());
}

//! The docker-compose stack's configuration, checked with the parsers of
//! the programs that read it (tools/configcheck, built here with Go): the
//! Grafana dashboard's PromQL parses and every selector in it matches a
//! series this server exports after known requests; Prometheus loads
//! deploy/prometheus.yml; the OpenTelemetry Collector's components accept
//! deploy/otel-collector.yaml.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;

use super::meters;
use crate::support::{create, TestServer, WAIT};

/// tools/configcheck, built into target/gobin (Go's build cache keeps it
/// quick after the first time).
fn configcheck() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root.join("target"));
    let target = if target.is_absolute() { target } else { root.join(target) };
    let bin = target.join("gobin").join("configcheck");
    let status = Command::new("go")
        .args(["build", "-o"])
        .arg(&bin)
        .arg(".")
        .current_dir(root.join("tools/configcheck"))
        .status()
        .expect("the config check builds tools/configcheck with Go: is `go` on the PATH?");
    assert!(status.success(), "building tools/configcheck failed");
    bin
}

async fn scrape_text(http: std::net::SocketAddr) -> String {
    let response = reqwest::get(format!("http://{http}/metrics")).await.unwrap();
    assert_eq!(response.status(), 200);
    response.text().await.unwrap()
}

#[tokio::test]
async fn the_dashboard_prometheus_and_collector_configs_check_against_live_metrics() {
    let bin = tokio::task::spawn_blocking(configcheck);
    let server = TestServer::start_with(|config| {
        config.window = crdstore::storage::HistoryWindow { min_age: Duration::ZERO, min_revisions: 1 };
        config.compaction_interval = Duration::from_millis(100);
    })
    .await;
    let http = server.server().http_addr;
    let group = "dashboard.example.com";
    create(&mut server.definitions().await, &meters(group)).await;
    let client = reqwest::Client::new();
    let collection = format!("http://{http}/apis/{group}/v1/namespaces/default/meters");
    // Every panel's series: requests of each kind, a watch that sees
    // events, CEL, commits and a compaction.
    let mut watch = client.get(format!("{collection}?watch=true")).send().await.unwrap();
    for i in 0..3 {
        let body = json!({"apiVersion": format!("{group}/v1"), "kind": "Meter",
            "metadata": {"name": format!("m{i}")}, "spec": {"size": i}});
        assert_eq!(client.post(&collection).json(&body).send().await.unwrap().status(), 201);
    }
    assert_eq!(client.get(format!("{collection}/m0")).send().await.unwrap().status(), 200);
    super::added(&mut watch, 3).await;
    let watching = scrape_text(http).await;
    drop(watch);
    let deadline = Instant::now() + WAIT;
    let compacted = loop {
        let text = scrape_text(http).await;
        if text.lines().any(|l| l.starts_with("crdstore_storage_compactions_total") && !l.ends_with(" 0")) {
            break text;
        }
        assert!(Instant::now() < deadline, "no compaction");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let dir = tempfile::tempdir().unwrap();
    let (first, second) = (dir.path().join("watching.txt"), dir.path().join("compacted.txt"));
    std::fs::write(&first, watching).unwrap();
    std::fs::write(&second, compacted).unwrap();

    let bin = bin.await.unwrap();
    let out = Command::new(bin)
        .arg("-metrics")
        .arg(&first)
        .arg("-metrics")
        .arg(&second)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "configcheck failed:\n{stdout}{stderr}");
    for checked in ["PromQL expressions parsed", "loaded by Prometheus", "validated by the collector"] {
        assert!(stdout.contains(checked), "{stdout}");
    }
    // Still serving.
    assert_eq!(reqwest::get(format!("http://{http}/readyz")).await.unwrap().status(), 200);
}

//! Robustness: the real binary as a separate process, concurrent writers,
//! `kill -9` at random moments over several cycles, restart. Every
//! acknowledged write must be there with the revision it was acknowledged
//! at, nothing unacknowledged may be half-applied, and revisions never go
//! backwards: the full history replays in strictly increasing order.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crdstore::pb::v1 as pb;
use crdstore::pb::v1::custom_resource_definitions_client::CustomResourceDefinitionsClient;
use rand::Rng;

use crate::support::{self, Crd};

const CYCLES: usize = 5;
const WRITERS: usize = 8;

/// Starts `crdstore serve` on free ports; returns the process and its gRPC
/// endpoint.
fn start(dir: &std::path::Path) -> (support::Process, String) {
    let process = support::Process::spawn(dir, &[]);
    let endpoint = format!("http://{}", process.grpc_addr);
    (process, endpoint)
}

type Acked = Arc<Mutex<BTreeMap<String, i64>>>;

async fn write_until_killed(endpoint: String, cycle: usize, writer: usize, acked: Acked) {
    let Ok(mut client) = CustomResourceDefinitionsClient::connect(endpoint).await else {
        return;
    };
    for i in 0.. {
        let crd = Crd::new("crash.example.com", &format!("K{cycle}x{writer}x{i}"));
        let request = pb::CreateDefinitionRequest { definition: crd.bytes(), options: None };
        match client.create(request).await {
            Ok(reply) => {
                let created = support::parse(&reply.into_inner().definition);
                let rv = created["metadata"]["resourceVersion"].as_str().unwrap().parse().unwrap();
                acked.lock().unwrap().insert(crd.name(), rv);
            }
            Err(_) => return,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_writes_survive_kill_9() {
    let dir = tempfile::tempdir().unwrap();
    let acked: Acked = Arc::default();
    let mut highest_seen = 0i64;
    for cycle in 0..CYCLES {
        let (mut server, endpoint) = start(dir.path());
        let writers: Vec<_> =
            (0..WRITERS).map(|w| tokio::spawn(write_until_killed(endpoint.clone(), cycle, w, acked.clone()))).collect();
        let pause = rand::rng().random_range(150..700);
        tokio::time::sleep(Duration::from_millis(pause)).await;
        server.child.kill().expect("kill -9");
        server.child.wait().unwrap();
        for w in writers {
            w.await.unwrap();
        }
        highest_seen = highest_seen.max(acked.lock().unwrap().values().copied().max().unwrap_or(0));
    }

    let (mut server, endpoint) = start(dir.path());
    let mut client = CustomResourceDefinitionsClient::connect(endpoint).await.unwrap();
    let list = client.list(pb::ListDefinitionsRequest { options: None }).await.unwrap().into_inner();
    let present: BTreeMap<String, serde_json::Value> = list
        .items
        .iter()
        .map(|i| support::parse(i))
        .map(|crd| (crd["metadata"]["name"].as_str().unwrap().to_string(), crd))
        .collect();
    let acked = acked.lock().unwrap().clone();
    assert!(acked.len() > 10, "the writers got work done ({} acknowledged)", acked.len());
    for (name, rv) in &acked {
        let crd = present.get(name).unwrap_or_else(|| panic!("acknowledged {name} was lost"));
        assert_eq!(crd["metadata"]["resourceVersion"], rv.to_string(), "{name} changed revision");
    }
    for (name, crd) in &present {
        // Acknowledged or not, whatever is there is whole.
        assert_eq!(support::condition(crd, "Established")["status"], "True", "{name} is half-applied");
        assert!(crd["metadata"]["uid"].is_string() && crd["status"]["storedVersions"].is_array(), "{name}");
    }
    let list_rv: i64 = list.resource_version.parse().unwrap();
    assert!(list_rv >= highest_seen, "revision went backwards: {list_rv} < {highest_seen}");

    // The history replays in strictly increasing revisions, once each.
    let mut watch = client
        .watch(pb::WatchDefinitionsRequest {
            options: Some(pb::WatchOptions { resource_version: "1".into(), ..Default::default() }),
        })
        .await
        .unwrap()
        .into_inner();
    // Revisions before the first definition are the namespaces the server
    // creates at start, outside this watch.
    let mut last = 1i64;
    while last < list_rv {
        let event = tokio::time::timeout(support::WAIT, watch.message()).await.unwrap().unwrap().unwrap();
        let rv: i64 = support::parse(&event.object)["metadata"]["resourceVersion"].as_str().unwrap().parse().unwrap();
        assert!(rv > last, "revision {rv} after {last}");
        last = rv;
    }
    assert_eq!(last, list_rv);
    server.child.kill().unwrap();
    server.child.wait().unwrap();
}

#[tokio::test]
async fn sigterm_drains_flushes_and_exits_zero() {
    let dir = tempfile::tempdir().unwrap();
    let (mut server, endpoint) = start(dir.path());
    let mut client = CustomResourceDefinitionsClient::connect(endpoint).await.unwrap();
    support::create(&mut client, &Crd::new("example.com", "Widget")).await;
    let _open_watch = client.watch(pb::WatchDefinitionsRequest { options: None }).await.unwrap().into_inner();
    // SAFETY: sending a signal to our own child process.
    #[allow(unsafe_code)]
    unsafe {
        libc::kill(server.child.id() as i32, libc::SIGTERM)
    };
    let status = tokio::task::spawn_blocking(move || server.child.wait()).await.unwrap().unwrap();
    assert!(status.success(), "exit status {status:?}");
    let (mut server, endpoint) = start(dir.path());
    let mut client = CustomResourceDefinitionsClient::connect(endpoint).await.unwrap();
    support::get(&mut client, "widgets.example.com").await;
    server.child.kill().unwrap();
    server.child.wait().unwrap();
}

//! Declarative conversion on every verb (issue 18): a three-version
//! definition with `spec.conversion.strategy: Declarative` (v1 -> v2 a
//! rename and a move, v2 -> v3 a rename, a default and a CEL rule, and a
//! field only v1 has, so the round-trip annotation is exercised) created,
//! read, listed, updated, patched, watched, scaled and deleted at every
//! version, Tables and dry runs at a version other than the storage
//! version, the `Convert` RPC, and a storage-version migration of it.

use std::collections::BTreeMap;
use std::time::Duration;

use crdstore::pb::v1 as pb;
use crdstore::storage::sled::{SledOptions, SledStore};
use crdstore::storage::{keys, ReadAt, Storage};
use futures::StreamExt;
use serde_json::{json, Value};

use crate::support::{self, parse, Crd, TestServer};

const VERSIONS: [&str; 3] = ["v1", "v2", "v3"];
const STASH_V1: &str = "conversion.crdstore.io/v1";

fn at(version: &str, namespace: &str, name: &str) -> pb::ResourceRef {
    pb::ResourceRef {
        group: "example.com".into(),
        version: version.into(),
        resource: "widgets".into(),
        namespace: namespace.into(),
        name: name.into(),
    }
}

fn schema(spec: Value, status: Value) -> Value {
    json!({"openAPIV3Schema": {"type": "object", "properties": {
        "spec": {"type": "object", "properties": spec},
        "status": {"type": "object", "properties": status}}}})
}

/// Widgets, `storage` storing:
/// - v1: `spec.name`, `spec.replicas`, `spec.placement.zone`, `spec.memory`
///   (integer) and `spec.legacy`, which no other version has;
/// - v2 (v1 -> v2: `name` renamed `title`, `placement.zone` moved to
///   `zone`): `title`, `replicas`, `zone`, `memory`;
/// - v3 (v2 -> v3: `replicas` renamed `count`, in spec and status, `tier`
///   defaulted to `gold`, `memoryStr` computed by CEL from `memory`).
///
/// Each version has status and scale at its own paths; v3 prints Title and
/// Tier columns.
fn widgets(storage: &str) -> Crd {
    let (int, string) = (json!({"type": "integer"}), json!({"type": "string"}));
    let scale = |replicas: &str| {
        json!({"status": {}, "scale": {"specReplicasPath": format!(".spec.{replicas}"),
                                       "statusReplicasPath": format!(".status.{replicas}")}})
    };
    let v1 = json!({"name": "v1", "served": true, "storage": storage == "v1",
        "schema": schema(json!({"name": string, "replicas": int, "memory": int, "legacy": string,
                                "placement": {"type": "object", "properties": {"zone": string}}}),
                         json!({"replicas": int})),
        "subresources": scale("replicas"),
        "conversion": {"declarative": {"v2": {"rules": [
            {"rename": {"from": ".spec.name", "to": ".spec.title"}},
            {"rename": {"from": ".spec.placement.zone", "to": ".spec.zone"}}]}}}});
    let v2 = json!({"name": "v2", "served": true, "storage": storage == "v2",
        "schema": schema(json!({"title": string, "replicas": int, "zone": string, "memory": int}),
                         json!({"replicas": int})),
        "subresources": scale("replicas"),
        "conversion": {"declarative": {"v3": {"rules": [
            {"rename": {"from": ".spec.replicas", "to": ".spec.count"}},
            {"rename": {"from": ".status.replicas", "to": ".status.count"}},
            {"default": {"path": ".spec.tier", "value": "gold"}},
            {"cel": {"from": ".spec.memory", "to": ".spec.memoryStr",
                     "forward": "string(self) + 'Mi'", "backward": "int(self.substring(0, size(self) - 2))"}}]}}}});
    let v3 = json!({"name": "v3", "served": true, "storage": storage == "v3",
        "schema": schema(json!({"title": string, "count": int, "zone": string, "tier": string, "memoryStr": string}),
                         json!({"count": int})),
        "subresources": scale("count"),
        "additionalPrinterColumns": [{"name": "Title", "type": "string", "jsonPath": ".spec.title"},
                                     {"name": "Tier", "type": "string", "jsonPath": ".spec.tier"}]});
    Crd::new("example.com", "Widget")
        .versions(vec![v1, v2, v3])
        .set("/spec/conversion", json!({"strategy": "Declarative"}))
}

/// Widget `i`'s spec at `version`; `legacy` when it was written at v1 with
/// the field only v1 has.
fn spec(version: &str, i: i64, replicas: i64, legacy: bool) -> Value {
    let (title, zone) = (format!("t{i}"), format!("z{i}"));
    match version {
        "v1" if legacy => json!({"name": title, "replicas": replicas, "memory": 256 + i,
                                 "placement": {"zone": zone}, "legacy": format!("old{i}")}),
        "v1" => json!({"name": title, "replicas": replicas, "memory": 256 + i, "placement": {"zone": zone}}),
        "v2" => json!({"title": title, "replicas": replicas, "zone": zone, "memory": 256 + i}),
        _ => json!({"title": title, "count": replicas, "zone": zone, "tier": "gold",
                    "memoryStr": format!("{}Mi", 256 + i)}),
    }
}

/// Widget `i` as written at `version` (with `legacy` at v1).
fn written(version: &str, name: &str, i: i64) -> Value {
    json!({"apiVersion": format!("example.com/{version}"), "kind": "Widget", "metadata": {"name": name},
           "spec": spec(version, i, 1, version == "v1")})
}

/// The annotations an object at `version` carries: at v1 none (the
/// annotation is consumed when the object comes back to v1); at v2 and v3
/// the stash of the field only v1 has, when it was written at v1.
fn annotations(version: &str, i: i64, legacy: bool) -> Value {
    if legacy && version != "v1" {
        let stash = json!({"fields": {"/spec/legacy": format!("old{i}")}}).to_string();
        Value::Object([(STASH_V1.to_string(), Value::String(stash))].into_iter().collect())
    } else {
        Value::Null
    }
}

/// Asserts `obj` is widget `i` exactly in `version`'s shape.
fn expect(obj: &Value, version: &str, i: i64, replicas: i64, legacy: bool) {
    assert_eq!(obj["apiVersion"], format!("example.com/{version}"), "{obj}");
    assert_eq!(obj["kind"], "Widget");
    assert_eq!(obj["spec"], spec(version, i, replicas, legacy), "{version}: {obj}");
    let got = obj["metadata"].get("annotations").cloned().unwrap_or(Value::Null);
    let want = annotations(version, i, legacy);
    // Compare the stash as JSON, not as a string.
    let decode = |v: &Value| match v.get(STASH_V1).and_then(Value::as_str) {
        Some(s) => serde_json::from_str::<Value>(s).unwrap(),
        None => Value::Null,
    };
    assert_eq!(decode(&got), decode(&want), "{version}: {obj}");
    assert_eq!(got.as_object().map(|m| m.len()), want.as_object().map(|m| m.len()), "{version}: {obj}");
}

async fn start(storage: &str) -> TestServer {
    let t = TestServer::start().await;
    let mut c = t.definitions().await;
    support::create(&mut c, &widgets(storage)).await;
    t
}

async fn create(r: &mut support::Resources, version: &str, obj: &Value) -> Result<Value, tonic::Status> {
    let req = pb::CreateResourceRequest {
        r#ref: Some(at(version, "ns", "")),
        object: serde_json::to_vec(obj).unwrap(),
        options: None,
    };
    r.create(req).await.map(|x| parse(&x.into_inner().object))
}

async fn get(r: &mut support::Resources, version: &str, name: &str) -> Result<Value, tonic::Status> {
    r.get(pb::GetResourceRequest { r#ref: Some(at(version, "ns", name)), resource_version: String::new() })
        .await
        .map(|x| parse(&x.into_inner().object))
}

async fn list(r: &mut support::Resources, version: &str) -> Result<Vec<Value>, tonic::Status> {
    r.list(pb::ListResourcesRequest { r#ref: Some(at(version, "ns", "")), options: None })
        .await
        .map(|x| x.into_inner().items.iter().map(|i| parse(i)).collect())
}

async fn update(r: &mut support::Resources, version: &str, obj: &Value) -> Result<Value, tonic::Status> {
    let name = obj["metadata"]["name"].as_str().unwrap();
    let req = pb::UpdateResourceRequest {
        r#ref: Some(at(version, "ns", name)),
        object: serde_json::to_vec(obj).unwrap(),
        options: None,
    };
    r.update(req).await.map(|x| parse(&x.into_inner().object))
}

async fn patch(r: &mut support::Resources, version: &str, name: &str, patch: Value) -> Result<Value, tonic::Status> {
    let req = pb::PatchResourceRequest {
        r#ref: Some(at(version, "ns", name)),
        patch_type: pb::PatchType::Merge as i32,
        patch: serde_json::to_vec(&patch).unwrap(),
        ..Default::default()
    };
    r.patch(req).await.map(|x| parse(&x.into_inner().object))
}

/// The index of a widget named `<letter><i>` or `<letter>-<version>`.
fn index(obj: &Value) -> i64 {
    let name = obj["metadata"]["name"].as_str().unwrap();
    match name.split_once('-') {
        Some((_, v)) => VERSIONS.iter().position(|x| *x == v).unwrap() as i64,
        None => name[1..].parse().unwrap(),
    }
}

fn written_at(obj: &Value) -> &str {
    obj["metadata"]["name"].as_str().unwrap().split_once('-').map(|(_, v)| v).unwrap_or("v1")
}

/// The server still serves: a create and a read at v1 round-trip whole.
async fn still_serves(t: &TestServer, name: &str) {
    let mut r = t.resources().await;
    let sent = written("v1", name, 9);
    let created = create(&mut r, "v1", &sent).await.unwrap();
    expect(&created, "v1", 9, 1, true);
    expect(&get(&mut r, "v1", name).await.unwrap(), "v1", 9, 1, true);
}

#[tokio::test]
async fn every_verb_converts_declaratively_at_every_version() {
    let t = start("v2").await;
    let mut r = t.resources().await;
    // Create at each version: the answer is in the request version's shape.
    for (i, v) in VERSIONS.iter().enumerate() {
        let sent = written(v, &format!("w-{v}"), i as i64);
        let created = create(&mut r, v, &sent).await.unwrap();
        expect(&created, v, i as i64, 1, *v == "v1");
        assert_eq!(created["metadata"]["generation"], 1);
        if *v == "v1" {
            assert_eq!(created["spec"], sent["spec"], "v1 -> v2 -> v1 loses nothing");
        }
    }
    // Get and list at every version, of objects written at every version.
    for v in VERSIONS {
        for w in VERSIONS {
            let i = VERSIONS.iter().position(|x| *x == w).unwrap() as i64;
            expect(&get(&mut r, v, &format!("w-{w}")).await.unwrap(), v, i, 1, w == "v1");
        }
        let items = list(&mut r, v).await.unwrap();
        assert_eq!(items.len(), 3);
        for item in &items {
            expect(item, v, index(item), 1, written_at(item) == "v1");
        }
    }
    // Update at v3 (not the storage version): the v1 stash it carries
    // comes back, so v1 still has its field.
    let mut current = get(&mut r, "v3", "w-v1").await.unwrap();
    current["spec"]["count"] = json!(4);
    let updated = update(&mut r, "v3", &current).await.unwrap();
    expect(&updated, "v3", 0, 4, true);
    assert_eq!(updated["metadata"]["generation"], 2);
    expect(&get(&mut r, "v1", "w-v1").await.unwrap(), "v1", 0, 4, true);
    expect(&get(&mut r, "v2", "w-v1").await.unwrap(), "v2", 0, 4, true);
    // Update at v1 changes the field only v1 has.
    let mut current = get(&mut r, "v1", "w-v1").await.unwrap();
    current["spec"]["legacy"] = json!("newer");
    let updated = update(&mut r, "v1", &current).await.unwrap();
    assert_eq!(updated["spec"]["legacy"], "newer");
    assert!(updated["metadata"].get("annotations").is_none(), "{updated}");
    let stored = get(&mut r, "v2", "w-v1").await.unwrap();
    assert_eq!(stored["metadata"]["annotations"][STASH_V1], json!({"fields": {"/spec/legacy": "newer"}}).to_string());
    let mut current = updated;
    current["spec"]["legacy"] = json!("old0");
    update(&mut r, "v1", &current).await.unwrap();
    // Merge patches at v1 and v3 land at the storage version.
    let patched = patch(&mut r, "v1", "w-v2", json!({"spec": {"placement": {"zone": "z9"}}})).await.unwrap();
    assert_eq!(patched["spec"]["placement"], json!({"zone": "z9"}));
    assert_eq!(get(&mut r, "v2", "w-v2").await.unwrap()["spec"]["zone"], "z9");
    let patched = patch(&mut r, "v3", "w-v2", json!({"spec": {"zone": "z1", "memoryStr": "257Mi"}})).await.unwrap();
    expect(&patched, "v3", 1, 1, false);
    assert_eq!(patched["metadata"]["generation"], 3);
    expect(&get(&mut r, "v1", "w-v2").await.unwrap(), "v1", 1, 1, false);
    // A default the client overrides at v3 survives in v3's stash.
    let patched = patch(&mut r, "v3", "w-v3", json!({"spec": {"tier": "silver"}})).await.unwrap();
    assert_eq!(patched["spec"]["tier"], "silver");
    assert!(patched["metadata"].get("annotations").is_none(), "the stash is consumed at v3: {patched}");
    let stored = get(&mut r, "v2", "w-v3").await.unwrap();
    assert_eq!(stored["spec"], spec("v2", 2, 1, false), "v2 cannot hold tier");
    assert!(stored["metadata"]["annotations"]["conversion.crdstore.io/v3"].is_string(), "{stored}");
    assert_eq!(get(&mut r, "v3", "w-v3").await.unwrap()["spec"]["tier"], "silver");
    patch(&mut r, "v3", "w-v3", json!({"spec": {"tier": "gold"}})).await.unwrap();
    // Delete at v3 answers at v3; delete-collection at v1 answers at v1.
    let req = pb::DeleteResourceRequest { r#ref: Some(at("v3", "ns", "w-v2")), options: None };
    let deleted = parse(&r.delete(req).await.unwrap().into_inner().object);
    expect(&deleted, "v3", 1, 1, false);
    let req = pb::DeleteCollectionRequest { r#ref: Some(at("v1", "ns", "")), list_options: None, options: None };
    let gone: Vec<Value> =
        r.delete_collection(req).await.unwrap().into_inner().items.iter().map(|b| parse(b)).collect();
    assert_eq!(gone.len(), 2);
    for item in &gone {
        expect(item, "v1", index(item), if written_at(item) == "v1" { 4 } else { 1 }, written_at(item) == "v1");
    }
    assert!(list(&mut r, "v2").await.unwrap().is_empty());
    still_serves(&t, "after").await;
}

#[tokio::test]
async fn a_round_trip_through_the_storage_version_loses_nothing() {
    let t = start("v2").await;
    let mut r = t.resources().await;
    // Every optional field present, absent, and the default overridden.
    let cases = [
        json!({"name": "a", "replicas": 1, "memory": 1, "legacy": "l", "placement": {"zone": "z"}}),
        json!({"name": "a"}),
        json!({"legacy": "only"}),
        json!({"placement": {"zone": "z"}, "memory": 0}),
        json!({}),
    ];
    for (i, spec) in cases.iter().enumerate() {
        let mut obj = written("v1", &format!("r{i}"), 0);
        obj["spec"] = spec.clone();
        obj["metadata"]["annotations"] = json!({"mine": "kept"});
        let created = create(&mut r, "v1", &obj).await.unwrap();
        assert_eq!(created["spec"], obj["spec"], "case {i}");
        assert_eq!(created["metadata"]["annotations"], json!({"mine": "kept"}), "case {i}");
        let got = get(&mut r, "v1", &format!("r{i}")).await.unwrap();
        assert_eq!((&got["spec"], &got["metadata"]["annotations"]), (&obj["spec"], &obj["metadata"]["annotations"]));
        // Through v3 and back (an update at v3 of what v3 reads).
        let at_v3 = get(&mut r, "v3", &format!("r{i}")).await.unwrap();
        update(&mut r, "v3", &at_v3).await.unwrap();
        let got = get(&mut r, "v1", &format!("r{i}")).await.unwrap();
        assert_eq!((&got["spec"], &got["metadata"]["annotations"]), (&obj["spec"], &obj["metadata"]["annotations"]));
    }
    still_serves(&t, "after").await;
}

#[tokio::test]
async fn a_list_of_objects_written_at_mixed_versions_reads_declaratively_at_each_version() {
    let t = start("v2").await;
    let mut r = t.resources().await;
    for i in 0..9i64 {
        let v = VERSIONS[i as usize % 3];
        create(&mut r, v, &written(v, &format!("m{i}"), i)).await.unwrap();
    }
    for v in VERSIONS {
        let items = list(&mut r, v).await.unwrap();
        assert_eq!(items.len(), 9);
        for item in &items {
            let i = index(item);
            expect(item, v, i, 1, i % 3 == 0);
        }
    }
    still_serves(&t, "after").await;
}

#[tokio::test]
async fn a_declarative_watch_at_v1_sees_writes_at_v3() {
    let t = start("v2").await;
    let mut r = t.resources().await;
    let options = pb::WatchOptions { label_selector: "app=web".into(), ..Default::default() };
    let req = pb::WatchResourcesRequest { r#ref: Some(at("v1", "ns", "")), options: Some(options) };
    let mut events = r.watch(req).await.unwrap().into_inner();
    let mut w = r.clone();
    let mut obj = written("v3", "live", 5);
    obj["metadata"]["labels"] = json!({"app": "web"});
    let created = create(&mut w, "v3", &obj).await.unwrap();
    let mut moved = created.clone();
    moved["metadata"]["labels"] = json!({"app": "db"});
    moved["spec"]["count"] = json!(2);
    update(&mut w, "v3", &moved).await.unwrap();
    let mut seen = Vec::new();
    while seen.len() < 2 {
        let event = tokio::time::timeout(support::WAIT, events.next()).await.unwrap().unwrap().unwrap();
        seen.push((event.r#type, parse(&event.object)));
    }
    assert_eq!(seen[0].0, pb::EventType::Added as i32);
    expect(&seen[0].1, "v1", 5, 1, false);
    assert_eq!(seen[1].0, pb::EventType::Deleted as i32, "leaving the selector is a DELETED");
    expect(&seen[1].1, "v1", 5, 2, false);
    assert_eq!(seen[1].1["metadata"]["labels"]["app"], "db");
    still_serves(&t, "after").await;
}

#[tokio::test]
async fn declarative_status_and_scale_work_through_a_non_storage_versions_paths() {
    let t = start("v2").await;
    let mut r = t.resources().await;
    let mut obj = written("v3", "s", 0);
    obj["spec"]["count"] = json!(2);
    let created = create(&mut r, "v3", &obj).await.unwrap();
    let mut with_status = created.clone();
    with_status["status"] = json!({"count": 1});
    let req = pb::UpdateStatusRequest {
        r#ref: Some(at("v3", "ns", "s")),
        object: serde_json::to_vec(&with_status).unwrap(),
        options: None,
    };
    let updated = parse(&r.update_status(req).await.unwrap().into_inner().object);
    assert_eq!(updated["status"], json!({"count": 1}));
    expect(&updated, "v3", 0, 2, false);
    assert_eq!(get(&mut r, "v2", "s").await.unwrap()["status"], json!({"replicas": 1}), "stored at v2's shape");
    assert_eq!(get(&mut r, "v1", "s").await.unwrap()["status"], json!({"replicas": 1}));
    let scale = |version: &str| pb::GetScaleRequest { r#ref: Some(at(version, "ns", "s")) };
    for v in VERSIONS {
        let got = parse(&r.get_scale(scale(v)).await.unwrap().into_inner().scale);
        assert_eq!((&got["spec"]["replicas"], &got["status"]["replicas"]), (&json!(2), &json!(1)), "{v}: {got}");
    }
    let req = pb::UpdateScaleRequest {
        r#ref: Some(at("v3", "ns", "s")),
        scale: serde_json::to_vec(&json!({"apiVersion": "autoscaling/v1", "kind": "Scale",
            "metadata": {"name": "s", "namespace": "ns"}, "spec": {"replicas": 7}}))
        .unwrap(),
        options: None,
    };
    let written_scale = parse(&r.update_scale(req).await.unwrap().into_inner().scale);
    assert_eq!(written_scale["spec"]["replicas"], 7);
    expect(&get(&mut r, "v3", "s").await.unwrap(), "v3", 0, 7, false);
    expect(&get(&mut r, "v1", "s").await.unwrap(), "v1", 0, 7, false);
    // The scale path of v1 over HTTP, and its status path.
    let http = reqwest::Client::new();
    let base = format!("http://{}/apis/example.com/v1/namespaces/ns/widgets/s", t.server().http_addr);
    let body = json!({"apiVersion": "autoscaling/v1", "kind": "Scale",
                      "metadata": {"name": "s", "namespace": "ns"}, "spec": {"replicas": 3}});
    let response = http.put(format!("{base}/scale")).json(&body).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let answer: Value = response.json().await.unwrap();
    assert_eq!((&answer["spec"]["replicas"], &answer["status"]["replicas"]), (&json!(3), &json!(1)));
    let status: Value = http.get(format!("{base}/status")).send().await.unwrap().json().await.unwrap();
    expect(&status, "v1", 0, 3, false);
    assert_eq!(status["status"], json!({"replicas": 1}));
    expect(&get(&mut r, "v3", "s").await.unwrap(), "v3", 0, 3, false);
    still_serves(&t, "after").await;
}

#[tokio::test]
async fn declarative_tables_and_dry_runs_at_a_non_storage_version() {
    let t = start("v2").await;
    let mut r = t.resources().await;
    for i in 0..3i64 {
        create(&mut r, "v1", &written("v1", &format!("g{i}"), i)).await.unwrap();
    }
    let http = reqwest::Client::new();
    let base = format!("http://{}/apis/example.com/v3/namespaces/ns/widgets", t.server().http_addr);
    let table: Value = http
        .get(&base)
        .header("accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(table["kind"], "Table", "{table}");
    let columns: Vec<&str> =
        table["columnDefinitions"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(columns, ["Name", "Title", "Tier"], "Kubernetes adds Age only when no column is declared");
    let rows = table["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row["cells"][0], format!("g{i}"));
        assert_eq!(row["cells"][1], format!("t{i}"), "converted to v3: {row}");
        assert_eq!(row["cells"][2], "gold", "v3's default: {row}");
    }
    let one: Value = http.get(format!("{base}/g1")).send().await.unwrap().json().await.unwrap();
    expect(&one, "v3", 1, 1, true);

    // Dry runs at v1 and v3 convert both ways and store nothing.
    for (i, v) in [(7i64, "v1"), (8, "v3")] {
        let req = pb::CreateResourceRequest {
            r#ref: Some(at(v, "ns", "")),
            object: serde_json::to_vec(&written(v, "dry", i)).unwrap(),
            options: Some(pb::WriteOptions { dry_run: true, ..Default::default() }),
        };
        let answer = parse(&r.create(req).await.unwrap().into_inner().object);
        expect(&answer, v, i, 1, v == "v1");
        assert_eq!(get(&mut r, "v2", "dry").await.unwrap_err().code(), tonic::Code::NotFound);
    }
    let response = http
        .patch(format!("{base}/g0?dryRun=All"))
        .header("content-type", "application/merge-patch+json")
        .body(json!({"spec": {"count": 9}}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let answer: Value = response.json().await.unwrap();
    expect(&answer, "v3", 0, 9, true);
    expect(&get(&mut r, "v1", "g0").await.unwrap(), "v1", 0, 1, true);
    assert_eq!(list(&mut r, "v2").await.unwrap().len(), 3);
    still_serves(&t, "after").await;
}

#[tokio::test]
async fn convert_converts_declaratively_from_any_version() {
    let t = start("v2").await;
    let mut r = t.resources().await;
    let objects: Vec<Vec<u8>> = VERSIONS
        .iter()
        .enumerate()
        .map(|(i, v)| serde_json::to_vec(&written(v, &format!("c-{v}"), i as i64)).unwrap())
        .collect();
    let convert = |desired: &str, objects: Vec<Vec<u8>>| pb::ConvertRequest {
        group: "example.com".into(),
        resource: "widgets".into(),
        desired_version: desired.into(),
        objects,
    };
    for desired in VERSIONS {
        let out = r.convert(convert(desired, objects.clone())).await.unwrap().into_inner().objects;
        assert_eq!(out.len(), 3);
        for obj in &out {
            let obj = parse(obj);
            expect(&obj, desired, index(&obj), 1, written_at(&obj) == "v1");
        }
    }
    // v1 -> v3 -> v1 through the RPC gives back what was sent.
    let there = r.convert(convert("v3", vec![objects[0].clone()])).await.unwrap().into_inner().objects;
    let back = r.convert(convert("v1", there)).await.unwrap().into_inner().objects;
    assert_eq!(parse(&back[0]), parse(&objects[0]));
    // A CEL rule that fails names both versions and the rule's path.
    let mut bad = written("v3", "c-bad", 0);
    bad["spec"]["memoryStr"] = json!("x");
    let mut with_bad = objects.clone();
    with_bad.push(serde_json::to_vec(&bad).unwrap());
    let err = r.convert(convert("v1", with_bad)).await.unwrap_err();
    assert!(err.message().starts_with("objects[3]: "), "{}", err.message());
    assert_eq!(err.code(), tonic::Code::Internal);
    let rule =
        "from version v3 to version v2 failed at spec.versions[1].conversion.declarative.v3.rules[3].cel.backward";
    assert!(err.message().contains(rule), "{}", err.message());
    still_serves(&t, "after").await;
}

// --- storage-version migration ---------------------------------------------

/// The stored form of every widget, read from the store in `dir` (no
/// server may be using it).
async fn stored(dir: &std::path::Path) -> BTreeMap<String, Value> {
    let (store, _background) = SledStore::open(dir, SledOptions::default()).unwrap();
    let range =
        store.range(&keys::resource_prefix("example.com", "widgets"), None, ReadAt::Latest, 0, &mut |_| true).unwrap();
    let objects = range
        .items
        .iter()
        .map(|kv| {
            let obj: Value = serde_json::from_slice(crdstore::resource::stored::split_mark(&kv.value).0).unwrap();
            (obj["metadata"]["name"].as_str().unwrap().to_string(), obj)
        })
        .collect();
    store.close().await;
    objects
}

/// Every widget at v1 by name, without its resourceVersion.
async fn at_v1(r: &mut support::Resources) -> BTreeMap<String, Value> {
    let mut objects = BTreeMap::new();
    for mut obj in list(r, "v1").await.unwrap() {
        obj["metadata"].as_object_mut().unwrap().remove("resourceVersion");
        objects.insert(obj["metadata"]["name"].as_str().unwrap().to_string(), obj);
    }
    objects
}

#[tokio::test]
async fn a_declarative_storage_version_migration_converts_every_stored_object() {
    let mut t = start("v1").await;
    let mut r = t.resources().await;
    for i in 0..30i64 {
        let v = VERSIONS[i as usize % 3];
        create(&mut r, v, &written(v, &format!("m{i}"), i)).await.unwrap();
    }
    let before = at_v1(&mut r).await;
    let mut defs = t.definitions().await;
    let mut crd = support::get(&mut defs, "widgets.example.com").await;
    crd["spec"]["versions"] = widgets("v2").value["spec"]["versions"].clone();
    let updated = support::update(&mut defs, &crd).await.unwrap();
    assert_eq!(updated["status"]["storedVersions"], json!(["v1", "v2"]));

    let mut migrations = t.grpc().migrations().await;
    let req = pb::StartMigrationRequest { definition: "widgets.example.com".into(), name: "to-v2".into() };
    migrations.start(req).await.unwrap();
    let mut stream = migrations.watch(pb::WatchMigrationRequest { name: "to-v2".into() }).await.unwrap().into_inner();
    let mut last = None;
    while let Some(m) = tokio::time::timeout(Duration::from_secs(120), stream.message()).await.unwrap().unwrap() {
        last = Some(m);
    }
    let ended = last.unwrap();
    assert_eq!((ended.phase.as_str(), ended.target_version.as_str(), ended.migrated), ("Succeeded", "v2", 30));
    let crd = support::get(&mut defs, "widgets.example.com").await;
    assert_eq!(crd["status"]["storedVersions"], json!(["v2"]), "trimmed");
    assert_eq!(at_v1(&mut r).await, before, "reads at v1 give the original objects");
    for v in VERSIONS {
        for item in list(&mut r, v).await.unwrap() {
            expect(&item, v, index(&item), 1, index(&item) % 3 == 0);
        }
    }
    still_serves(&t, "after").await;

    // In the store itself: every object at v2, its fields converted.
    t.server.take().unwrap().shutdown().await.unwrap();
    let objects = stored(t.dir.path()).await;
    assert_eq!(objects.len(), 31);
    for (name, obj) in &objects {
        let i = if name == "after" { 9 } else { name[1..].parse().unwrap() };
        let legacy = name == "after" || i % 3 == 0;
        assert_eq!(obj["apiVersion"], "example.com/v2", "{obj}");
        assert_eq!(obj["spec"], spec("v2", i, 1, legacy), "{obj}");
        expect(obj, "v2", i, 1, legacy);
    }
}

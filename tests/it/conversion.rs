//! Versions and conversion (issue 18): every verb at every version of a
//! three-version definition, through a real HTTPS conversion webhook the
//! test serves with its own CA (`conversion_webhook`) and through `None`;
//! the webhook's failures answered in Kubernetes' words with nothing
//! written; lists in one review; watches, status and scale at a version
//! other than the storage version; and the `Convert` RPC.

use std::time::Duration;

use crdstore::pb::v1 as pb;
use futures::StreamExt;
use serde_json::{json, Value};
use tonic::Code;

use crate::conversion_webhook::{Mode, Webhook};
use crate::support::{self, parse, version, Crd, TestServer};

const VERSIONS: [&str; 3] = ["v1", "v2", "v3"];

fn at(version: &str, namespace: &str, name: &str) -> pb::ResourceRef {
    pb::ResourceRef {
        group: "example.com".into(),
        version: version.into(),
        resource: "widgets".into(),
        namespace: namespace.into(),
        name: name.into(),
    }
}

/// Widgets at v1, v2 (storage) and v3, each with the status and scale
/// subresources at its own paths, converting as `conversion` says.
pub fn widgets_crd(conversion: Value) -> Crd {
    let mut versions = Vec::new();
    for name in VERSIONS {
        let mut v = version(name, name == "v2");
        let (spec, status) =
            if name == "v3" { (".spec.count", ".status.count") } else { (".spec.replicas", ".status.replicas") };
        v["subresources"] = json!({"status": {}, "scale": {"specReplicasPath": spec, "statusReplicasPath": status}});
        versions.push(v);
    }
    Crd::new("example.com", "Widget").versions(versions).set("/spec/conversion", conversion)
}

/// A Widget at `version`, in that version's shape.
pub fn shaped(version: &str, name: &str, host: &str, port: i64, replicas: i64) -> Value {
    let spec = match version {
        "v1" => json!({"hostPort": format!("{host}:{port}"), "replicas": replicas, "color": "red"}),
        "v2" => json!({"host": host, "port": port, "replicas": replicas, "color": "red"}),
        _ => json!({"address": {"host": host, "port": port}, "count": replicas, "color": "red"}),
    };
    json!({"apiVersion": format!("example.com/{version}"), "kind": "Widget", "metadata": {"name": name}, "spec": spec})
}

async fn start_with_webhook(review_versions: &[&str]) -> (TestServer, Webhook) {
    let hook = Webhook::start().await;
    let t = TestServer::start_with(|c| c.conversion_webhook_timeout = Duration::from_secs(2)).await;
    let mut c = t.definitions().await;
    support::create(&mut c, &widgets_crd(hook.conversion(review_versions))).await;
    (t, hook)
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

async fn delete(r: &mut support::Resources, version: &str, name: &str) -> Result<Value, tonic::Status> {
    r.delete(pb::DeleteResourceRequest { r#ref: Some(at(version, "ns", name)), options: None })
        .await
        .map(|x| parse(&x.into_inner().object))
}

/// The fields of an object a version's shape is about.
fn shape_of(obj: &Value) -> Value {
    json!({"apiVersion": obj["apiVersion"], "spec": obj["spec"]})
}

fn expect_shape(obj: &Value, version: &str, host: &str, port: i64, replicas: i64) {
    let want = shaped(version, "", host, port, replicas);
    assert_eq!(shape_of(obj), shape_of(&want), "{obj}");
}

#[tokio::test]
async fn every_verb_converts_at_every_version_through_the_webhook() {
    let (t, hook) = start_with_webhook(&["v1"]).await;
    let mut r = t.resources().await;
    for (i, v) in VERSIONS.iter().enumerate() {
        let created = create(&mut r, v, &shaped(v, &format!("w-{v}"), "db", 5432 + i as i64, 1)).await.unwrap();
        expect_shape(&created, v, "db", 5432 + i as i64, 1);
        assert_eq!(created["metadata"]["generation"], 1);
        assert!(!created["metadata"]["resourceVersion"].as_str().unwrap().is_empty());
    }
    // Every object at every version.
    for (i, written) in VERSIONS.iter().enumerate() {
        for v in VERSIONS {
            let got = get(&mut r, v, &format!("w-{written}")).await.unwrap();
            expect_shape(&got, v, "db", 5432 + i as i64, 1);
        }
    }
    // A list converts its page in one review; at the storage version, none.
    let before = hook.reviews();
    let items = list(&mut r, "v1").await.unwrap();
    assert_eq!(hook.reviews() - before, 1, "one review for the whole page");
    assert_eq!(items.len(), 3);
    for (i, item) in items.iter().enumerate() {
        expect_shape(item, "v1", "db", 5432 + i as i64, 1);
    }
    let before = hook.reviews();
    let stored = list(&mut r, "v2").await.unwrap();
    assert_eq!(hook.reviews(), before, "the storage version needs no webhook");
    expect_shape(&stored[2], "v2", "db", 5434, 1);
    // Update and patch at each version land at the storage version.
    for v in VERSIONS {
        let mut current = get(&mut r, v, "w-v1").await.unwrap();
        match v {
            "v1" => current["spec"]["hostPort"] = json!("db:6000"),
            "v2" => current["spec"]["port"] = json!(6001),
            _ => current["spec"]["address"]["port"] = json!(6002),
        }
        let updated = update(&mut r, v, &current).await.unwrap();
        let port = 6000 + VERSIONS.iter().position(|x| *x == v).unwrap() as i64;
        expect_shape(&updated, v, "db", port, 1);
        expect_shape(&get(&mut r, "v2", "w-v1").await.unwrap(), "v2", "db", port, 1);
    }
    let before = hook.reviews();
    let patched = patch(&mut r, "v3", "w-v2", json!({"spec": {"address": {"port": 7000}}})).await.unwrap();
    assert_eq!(hook.reviews() - before, 3, "read, to the storage version, and the answer back");
    expect_shape(&patched, "v3", "db", 7000, 1);
    assert_eq!(patched["metadata"]["generation"], 2, "a converted change is a new generation");
    expect_shape(&get(&mut r, "v1", "w-v2").await.unwrap(), "v1", "db", 7000, 1);
    // Delete answers at the request version; delete-collection too.
    let deleted = delete(&mut r, "v1", "w-v3").await.unwrap();
    expect_shape(&deleted, "v1", "db", 5434, 1);
    let req = pb::DeleteCollectionRequest { r#ref: Some(at("v3", "ns", "")), list_options: None, options: None };
    let gone = r.delete_collection(req).await.unwrap().into_inner().items;
    assert_eq!(gone.len(), 2);
    expect_shape(&parse(&gone[0]), "v3", "db", 6002, 1);
    assert!(list(&mut r, "v2").await.unwrap().is_empty());
}

#[tokio::test]
async fn a_dry_run_converts_both_ways_and_stores_nothing() {
    let (t, hook) = start_with_webhook(&["v1"]).await;
    let mut r = t.resources().await;
    let before = hook.reviews();
    let req = pb::CreateResourceRequest {
        r#ref: Some(at("v1", "ns", "")),
        object: serde_json::to_vec(&shaped("v1", "dry", "h", 1, 2)).unwrap(),
        options: Some(pb::WriteOptions { dry_run: true, ..Default::default() }),
    };
    let answer = parse(&r.create(req).await.unwrap().into_inner().object);
    expect_shape(&answer, "v1", "h", 1, 2);
    assert_eq!(hook.reviews() - before, 2, "to the storage version and back");
    assert!(list(&mut r, "v2").await.unwrap().is_empty());
}

#[tokio::test]
async fn a_list_of_objects_written_at_mixed_versions_reads_at_each_version() {
    let (t, _hook) = start_with_webhook(&["v1"]).await;
    let mut r = t.resources().await;
    for i in 0..9 {
        let v = VERSIONS[i % 3];
        create(&mut r, v, &shaped(v, &format!("m{i}"), "h", i as i64, i as i64)).await.unwrap();
    }
    for v in VERSIONS {
        let items = list(&mut r, v).await.unwrap();
        assert_eq!(items.len(), 9);
        for item in &items {
            let i: i64 = item["metadata"]["name"].as_str().unwrap()[1..].parse().unwrap();
            expect_shape(item, v, "h", i, i);
        }
    }
}

/// A page large enough to be written and checked on every core (over 512
/// objects) reads through one review in the page's order, each object
/// converted with its metadata restored; a webhook that renames objects
/// fails it at the first index, as one pass would; and the server goes on
/// serving.
#[tokio::test]
async fn a_large_page_converts_in_one_review_in_order_and_fails_at_its_first_bad_object() {
    let (t, hook) = start_with_webhook(&["v1"]).await;
    let mut r = t.resources().await;
    const COUNT: i64 = 700;
    for i in 0..COUNT {
        create(&mut r, "v2", &shaped("v2", &format!("w{i:04}"), "h", i, i)).await.unwrap();
    }
    let stored = list(&mut r, "v2").await.unwrap();
    let before = hook.reviews();
    let items = list(&mut r, "v1").await.unwrap();
    assert_eq!(hook.reviews() - before, 1, "one review for the whole page");
    assert_eq!(items.len(), COUNT as usize);
    for (i, (item, original)) in items.iter().zip(&stored).enumerate() {
        assert_eq!(item["metadata"]["name"], format!("w{i:04}"), "the page's order");
        expect_shape(item, "v1", "h", i as i64, i as i64);
        assert_eq!(item["metadata"], original["metadata"], "metadata restored to the stored object's");
    }
    hook.set(Mode::Rename);
    let err = list(&mut r, "v1").await.unwrap_err();
    assert_eq!(err.code(), Code::Internal);
    assert!(
        err.message().contains(
            "conversion webhook for example.com/v2, Kind=WidgetList returned invalid converted object at index 0: \
             must have the same name: w0000 != renamed"
        ),
        "{}",
        err.message()
    );
    hook.set(Mode::Convert);
    expect_shape(&get(&mut r, "v3", "w0699").await.unwrap(), "v3", "h", 699, 699);
}

/// A failing webhook fails the request with Kubernetes' words and status,
/// writes nothing, and the server goes on serving.
async fn expect_failure(t: &TestServer, hook: &Webhook, mode: Mode, words: &[&str]) {
    let mut r = t.resources().await;
    hook.set(Mode::Convert);
    let name = format!("f{}", hook.reviews());
    create(&mut r, "v2", &shaped("v2", &name, "h", 1, 1)).await.unwrap();
    hook.set(mode);
    let err = get(&mut r, "v1", &name).await.unwrap_err();
    assert_eq!(err.code(), Code::Internal, "{err:?}");
    assert!(err.message().starts_with("conversion webhook for example.com/v2, Kind=Widget"), "{}", err.message());
    for word in words {
        assert!(err.message().contains(word), "{:?} lacks {word:?}", err.message());
    }
    let err = list(&mut r, "v3").await.unwrap_err();
    assert_eq!(err.code(), Code::Internal);
    assert!(err.message().contains("Kind=WidgetList"), "{}", err.message());
    let count = list(&mut r, "v2").await.unwrap().len();
    let refused = create(&mut r, "v1", &shaped("v1", "never", "h", 1, 1)).await.unwrap_err();
    assert_eq!(refused.code(), Code::Internal);
    let refused = patch(&mut r, "v3", &name, json!({"spec": {"count": 5}})).await.unwrap_err();
    assert_eq!(refused.code(), Code::Internal);
    let stored = list(&mut r, "v2").await.unwrap();
    assert_eq!(stored.len(), count, "nothing written");
    assert!(stored.iter().all(|o| o["spec"]["replicas"] == 1));
    hook.set(Mode::Convert);
    expect_shape(&get(&mut r, "v1", &name).await.unwrap(), "v1", "h", 1, 1);
}

#[tokio::test]
async fn webhook_failures_are_errors_naming_the_webhook_and_the_cause() {
    let (t, hook) = start_with_webhook(&["v1"]).await;
    expect_failure(&t, &hook, Mode::Fail, &["failed: the test webhook refuses"]).await;
    expect_failure(&t, &hook, Mode::WrongUid, &["failed: expected response.uid=", r#"got "not-the-uid""#]).await;
    expect_failure(&t, &hook, Mode::Rename, &["returned invalid converted object at index 0: must have the same name"])
        .await;
    expect_failure(&t, &hook, Mode::WrongCount, &["returned 0 objects, expected 1"]).await;
    expect_failure(&t, &hook, Mode::Slow(Duration::from_secs(5)), &["failed:", "timeout"]).await;
}

#[tokio::test]
async fn a_v1beta1_review_is_sent_when_it_is_the_only_version_listed() {
    let (t, hook) = start_with_webhook(&["v1beta1"]).await;
    hook.set(Mode::ExpectV1beta1);
    let mut r = t.resources().await;
    let created = create(&mut r, "v1", &shaped("v1", "b", "h", 9, 1)).await.unwrap();
    expect_shape(&created, "v1", "h", 9, 1);
    expect_shape(&get(&mut r, "v3", "b").await.unwrap(), "v3", "h", 9, 1);
}

#[tokio::test]
async fn a_watch_at_v1_sees_writes_at_v3() {
    let (t, _hook) = start_with_webhook(&["v1"]).await;
    let mut r = t.resources().await;
    create(&mut r, "v2", &shaped("v2", "before", "h", 1, 1)).await.unwrap();
    let options = pb::WatchOptions { label_selector: "app=web".into(), ..Default::default() };
    let req = pb::WatchResourcesRequest { r#ref: Some(at("v1", "ns", "")), options: Some(options) };
    let mut events = r.watch(req).await.unwrap().into_inner();
    let mut w = r.clone();
    let mut obj = shaped("v3", "live", "h", 2, 3);
    obj["metadata"]["labels"] = json!({"app": "web"});
    let created = create(&mut w, "v3", &obj).await.unwrap();
    let mut moved = created.clone();
    moved["metadata"]["labels"] = json!({"app": "db"});
    update(&mut w, "v3", &moved).await.unwrap();
    let mut seen = Vec::new();
    while seen.len() < 2 {
        let event = tokio::time::timeout(support::WAIT, events.next()).await.unwrap().unwrap().unwrap();
        seen.push((event.r#type, parse(&event.object)));
    }
    assert_eq!(seen[0].0, pb::EventType::Added as i32);
    expect_shape(&seen[0].1, "v1", "h", 2, 3);
    assert_eq!(seen[1].0, pb::EventType::Deleted as i32, "leaving the selector is a DELETED");
    expect_shape(&seen[1].1, "v1", "h", 2, 3);
    assert_eq!(seen[1].1["metadata"]["labels"]["app"], "db");
    assert!(get(&mut r, "v1", "live").await.is_ok(), "the server still serves");
}

#[tokio::test]
async fn status_and_scale_work_at_a_version_other_than_the_storage_version() {
    let (t, _hook) = start_with_webhook(&["v1"]).await;
    let mut r = t.resources().await;
    let created = create(&mut r, "v3", &shaped("v3", "s", "h", 1, 2)).await.unwrap();
    let mut with_status = created.clone();
    with_status["status"] = json!({"count": 1});
    let req = pb::UpdateStatusRequest {
        r#ref: Some(at("v3", "ns", "s")),
        object: serde_json::to_vec(&with_status).unwrap(),
        options: None,
    };
    let updated = parse(&r.update_status(req).await.unwrap().into_inner().object);
    assert_eq!(updated["status"], json!({"count": 1}));
    assert_eq!(get(&mut r, "v2", "s").await.unwrap()["status"], json!({"replicas": 1}), "stored at v2's shape");
    let scale = |version: &str| pb::GetScaleRequest { r#ref: Some(at(version, "ns", "s")) };
    for v in VERSIONS {
        let got = parse(&r.get_scale(scale(v)).await.unwrap().into_inner().scale);
        assert_eq!(got["spec"]["replicas"], 2, "{v}: {got}");
        assert_eq!(got["status"]["replicas"], 1, "{v}: {got}");
    }
    let req = pb::UpdateScaleRequest {
        r#ref: Some(at("v3", "ns", "s")),
        scale: serde_json::to_vec(&json!({"apiVersion": "autoscaling/v1", "kind": "Scale",
            "metadata": {"name": "s", "namespace": "ns"}, "spec": {"replicas": 7}}))
        .unwrap(),
        options: None,
    };
    let written = parse(&r.update_scale(req).await.unwrap().into_inner().scale);
    assert_eq!(written["spec"]["replicas"], 7);
    expect_shape(&get(&mut r, "v1", "s").await.unwrap(), "v1", "h", 1, 7);
    assert_eq!(get(&mut r, "v3", "s").await.unwrap()["spec"]["count"], 7);
}

#[tokio::test]
async fn convert_converts_objects_at_any_version_in_one_review() {
    let (t, hook) = start_with_webhook(&["v1"]).await;
    let mut r = t.resources().await;
    let objects: Vec<Vec<u8>> =
        VERSIONS.iter().map(|v| serde_json::to_vec(&shaped(v, &format!("c-{v}"), "h", 3, 4)).unwrap()).collect();
    let before = hook.reviews();
    let req = pb::ConvertRequest {
        group: "example.com".into(),
        resource: "widgets".into(),
        desired_version: "v3".into(),
        objects: objects.clone(),
    };
    let out = r.convert(req).await.unwrap().into_inner().objects;
    assert_eq!(hook.reviews() - before, 1);
    for (v, obj) in VERSIONS.iter().zip(&out) {
        let obj = parse(obj);
        expect_shape(&obj, "v3", "h", 3, 4);
        assert_eq!(obj["metadata"]["name"], format!("c-{v}"));
    }
    let mut bad = objects.clone();
    bad[1] = serde_json::to_vec(&json!({"apiVersion": "example.com/v9", "kind": "Widget"})).unwrap();
    let req = pb::ConvertRequest {
        group: "example.com".into(),
        resource: "widgets".into(),
        desired_version: "v1".into(),
        objects: bad,
    };
    let err = r.convert(req).await.unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err.message().starts_with("objects[1]: "), "{}", err.message());
    hook.set(Mode::Rename);
    let req = pb::ConvertRequest {
        group: "example.com".into(),
        resource: "widgets".into(),
        desired_version: "v2".into(),
        objects,
    };
    let err = r.convert(req).await.unwrap_err();
    assert!(err.message().contains("at index 0"), "{}", err.message());
    hook.set(Mode::Convert);
    assert!(list(&mut r, "v1").await.is_ok(), "the server still serves");
}

#[tokio::test]
async fn none_converts_only_the_api_version_and_defaults_on_read_at_the_storage_version() {
    let t = TestServer::start().await;
    let mut c = t.definitions().await;
    let mut crd = widgets_crd(json!({"strategy": "None"}));
    crd = crd.set(
        "/spec/versions/2/schema/openAPIV3Schema",
        json!({"type": "object", "properties": {
            "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": true,
                     "properties": {"tier": {"type": "string", "default": "gold"}}},
            "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}),
    );
    support::create(&mut c, &crd).await;
    let mut r = t.resources().await;
    let body = |v: &str, name: &str| {
        json!({"apiVersion": format!("example.com/{v}"), "kind": "Widget", "metadata": {"name": name},
               "spec": {"replicas": 1, "count": 1}})
    };
    for v in VERSIONS {
        let created = create(&mut r, v, &body(v, &format!("n-{v}"))).await.unwrap();
        assert_eq!(created["apiVersion"], format!("example.com/{v}"));
    }
    for v in VERSIONS {
        let items = list(&mut r, v).await.unwrap();
        assert_eq!(items.len(), 3);
        for item in &items {
            assert_eq!(item["apiVersion"], format!("example.com/{v}"));
            assert_eq!(item["spec"]["replicas"], 1);
            // As Kubernetes: a write at v3 is defaulted by v3's schema (and
            // stored so); a read defaults by the storage version's schema
            // only, so v3's default shows on no object written elsewhere.
            let written_at_v3 = item["metadata"]["name"] == "n-v3";
            let tier = if written_at_v3 { json!("gold") } else { Value::Null };
            assert_eq!(item["spec"]["tier"], tier, "{v}: {item}");
        }
        let one = get(&mut r, v, "n-v1").await.unwrap();
        assert_eq!(one["apiVersion"], format!("example.com/{v}"));
        assert!(one["spec"].get("tier").is_none(), "{v}: {one}");
    }
    let mut current = get(&mut r, "v1", "n-v2").await.unwrap();
    current["spec"]["replicas"] = json!(2);
    assert_eq!(update(&mut r, "v1", &current).await.unwrap()["spec"]["replicas"], 2);
    let patched = patch(&mut r, "v3", "n-v2", json!({"spec": {"count": 4}})).await.unwrap();
    assert_eq!(patched["spec"]["count"], 4);
    assert_eq!(patched["spec"]["tier"], "gold");
    assert_eq!(delete(&mut r, "v3", "n-v1").await.unwrap()["apiVersion"], "example.com/v3");
}

#[tokio::test]
async fn the_gateway_reads_lists_and_tables_at_a_converting_version() {
    let (t, hook) = start_with_webhook(&["v1"]).await;
    let mut r = t.resources().await;
    for i in 0..3 {
        create(&mut r, "v2", &shaped("v2", &format!("g{i}"), "h", i, 1)).await.unwrap();
    }
    let base = format!("http://{}/apis/example.com/v1/namespaces/ns/widgets", t.server().http_addr);
    let http = reqwest::Client::new();
    let before = hook.reviews();
    let list: Value = http.get(&base).send().await.unwrap().json().await.unwrap();
    assert_eq!(hook.reviews() - before, 1);
    assert_eq!(list["items"].as_array().unwrap().len(), 3);
    expect_shape(&list["items"][1], "v1", "h", 1, 1);
    let one: Value = http.get(format!("{base}/g2")).send().await.unwrap().json().await.unwrap();
    expect_shape(&one, "v1", "h", 2, 1);
    let table: Value = http
        .get(&base)
        .header("accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(table["kind"], "Table");
    assert_eq!(table["rows"].as_array().unwrap().len(), 3);
    hook.set(Mode::Fail);
    let failed = http.get(format!("{base}/g2")).send().await.unwrap();
    assert_eq!(failed.status(), 500);
    let status: Value = failed.json().await.unwrap();
    assert_eq!(status["reason"], "InternalError");
    assert!(status["message"].as_str().unwrap().contains("the test webhook refuses"), "{status}");
}

#[tokio::test]
async fn a_definition_whose_webhook_is_gone_is_still_cleaned_up() {
    let (t, hook) = start_with_webhook(&["v1"]).await;
    let mut r = t.resources().await;
    create(&mut r, "v1", &shaped("v1", "orphan", "h", 1, 1)).await.unwrap();
    drop(hook);
    let mut c = t.definitions().await;
    c.delete(pb::DeleteDefinitionRequest { name: "widgets.example.com".into(), ..Default::default() }).await.unwrap();
    let deadline = tokio::time::Instant::now() + support::WAIT;
    loop {
        match c.get(pb::GetDefinitionRequest { name: "widgets.example.com".into() }).await {
            Err(status) if status.code() == Code::NotFound => break,
            _ if tokio::time::Instant::now() > deadline => panic!("the definition was never cleaned up"),
            _ => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
}

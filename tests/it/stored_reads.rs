//! Reads answered from stored bytes (gRPC, and HTTP JSON) against the
//! answers built from parsed objects (HTTP YAML): the same items in the same
//! order, at a non-storage version, with selectors and pages, after a
//! schema change adds a default, and over a data directory holding objects
//! in the stored form older versions wrote.

use crdstore::pb::v1 as pb;
use crdstore::storage::sled::{SledOptions, SledStore};
use crdstore::storage::{keys, Op, Storage};
use reqwest::header::ACCEPT;
use serde_json::{json, Value};

use crate::support::{self, create_widget, get_widget, update_widget, Crd, Resources, TestServer};

/// Widgets served at v1 (storage) and v2, with a default and a free field.
fn crd(color_default: Option<&str>) -> Crd {
    let mut spec = json!({"type": "object", "properties": {
        "replicas": {"type": "integer", "default": 1},
        "color": {"type": "string"},
        "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}});
    if let Some(color) = color_default {
        spec["properties"]["color"]["default"] = json!(color);
    }
    let version = |name: &str, storage: bool| {
        json!({"name": name, "served": true, "storage": storage,
               "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": spec.clone()}}}})
    };
    Crd::new("example.com", "Widget").versions(vec![version("v1", true), version("v2", false)])
}

fn at(version: &str, namespace: &str, name: &str) -> pb::ResourceRef {
    pb::ResourceRef { version: version.into(), ..support::widgets(namespace, name) }
}

async fn grpc_list(r: &mut Resources, version: &str, options: pb::ListOptions) -> pb::ListResourcesResponse {
    let request = pb::ListResourcesRequest { r#ref: Some(at(version, "", "")), options: Some(options) };
    r.list(request).await.unwrap().into_inner()
}

async fn grpc_get(r: &mut Resources, version: &str, namespace: &str, name: &str) -> Vec<u8> {
    let request = pb::GetResourceRequest { r#ref: Some(at(version, namespace, name)), resource_version: String::new() };
    r.get(request).await.unwrap().into_inner().object
}

/// An HTTP GET's body as JSON: asked as JSON (answered from stored bytes)
/// or as YAML (answered from parsed objects).
async fn http_get(t: &TestServer, path: &str, yaml: bool) -> Value {
    let url = format!("http://{}{path}", t.server().http_addr);
    let accept = if yaml { "application/yaml" } else { "application/json" };
    let response = reqwest::Client::new().get(url).header(ACCEPT, accept).send().await.unwrap();
    assert!(response.status().is_success(), "{path}: {}", response.status());
    let body = response.bytes().await.unwrap();
    if yaml {
        serde_norway::from_slice(&body).unwrap()
    } else {
        serde_json::from_slice(&body).unwrap()
    }
}

/// The list at `query` over gRPC, HTTP JSON and HTTP YAML, checked equal;
/// returns it as HTTP JSON gave it.
async fn same_list(t: &TestServer, r: &mut Resources, version: &str, options: pb::ListOptions, query: &str) -> Value {
    let grpc = grpc_list(r, version, options).await;
    let path = format!("/apis/example.com/{version}/widgets?{query}");
    let (json, yaml) = (http_get(t, &path, false).await, http_get(t, &path, true).await);
    assert_eq!(json, yaml, "{query}: JSON from stored bytes and YAML from parsed objects");
    assert_eq!(json["apiVersion"], format!("example.com/{version}"));
    assert_eq!(json["kind"], "WidgetList");
    let items: Vec<Value> = grpc.items.iter().map(|i| support::parse(i)).collect();
    assert_eq!(json["items"], Value::Array(items), "{query}: gRPC and HTTP items");
    assert_eq!(json["metadata"]["continue"].as_str().unwrap_or(""), grpc.continue_token);
    assert_eq!(json["metadata"]["resourceVersion"], grpc.resource_version);
    json
}

fn names(list: &Value) -> Vec<&str> {
    list["items"].as_array().unwrap().iter().map(|i| i["metadata"]["name"].as_str().unwrap()).collect()
}

async fn fill(r: &mut Resources) {
    for (ns, name, tier) in [("a", "w1", "front"), ("a", "w2", "back"), ("b", "w3", "front"), ("b", "w4", "edge")] {
        let body = json!({"apiVersion": "example.com/v1", "kind": "Widget",
                          "metadata": {"name": name, "labels": {"tier": tier}},
                          "spec": {"free": {"s": "ünï \"q\" \\", "n": [1.5, -2, 1e-7, null, true]}}});
        create_widget(r, ns, &body).await.unwrap();
    }
}

#[tokio::test]
async fn lists_and_gets_from_stored_bytes_answer_as_parsed_objects() {
    let t = TestServer::start().await;
    support::create(&mut t.definitions().await, &crd(None)).await;
    let mut r = t.resources().await;
    fill(&mut r).await;
    let whole = same_list(&t, &mut r, "v2", pb::ListOptions::default(), "").await;
    assert_eq!(names(&whole), ["w1", "w2", "w3", "w4"]);
    for item in whole["items"].as_array().unwrap() {
        assert_eq!(item["apiVersion"], "example.com/v2", "the version read, not the storage version");
        assert_eq!(item["spec"]["replicas"], 1, "defaulted");
        let (ns, name) = (item["metadata"]["namespace"].as_str().unwrap(), item["metadata"]["name"].as_str().unwrap());
        let got = grpc_get(&mut r, "v2", ns, name).await;
        assert_eq!(&support::parse(&got), item, "a get answers what the list does");
        let path = format!("/apis/example.com/v2/namespaces/{ns}/widgets/{name}");
        assert_eq!(&http_get(&t, &path, false).await, item);
        assert_eq!(&http_get(&t, &path, true).await, item);
    }
    let labels = pb::ListOptions { label_selector: "tier in (front, edge),tier!=edge".into(), ..Default::default() };
    let front = same_list(&t, &mut r, "v1", labels, "labelSelector=tier+in+(front,edge),tier!%3Dedge").await;
    assert_eq!(names(&front), ["w1", "w3"]);
    let fields =
        pb::ListOptions { field_selector: "metadata.namespace=b,metadata.name!=w4".into(), ..Default::default() };
    let by_field =
        same_list(&t, &mut r, "v1", fields, "fieldSelector=metadata.namespace%3Db,metadata.name!%3Dw4").await;
    assert_eq!(names(&by_field), ["w3"]);
    // Pages: the same tokens, revision and items as the parsed answer.
    let mut token = String::new();
    let mut paged = Vec::new();
    loop {
        let options = pb::ListOptions { limit: 3, continue_token: token.clone(), ..Default::default() };
        let query = format!("limit=3&continue={token}");
        let page = same_list(&t, &mut r, "v2", options, &query).await;
        assert_eq!(page["metadata"]["resourceVersion"], whole["metadata"]["resourceVersion"]);
        paged.extend(page["items"].as_array().unwrap().iter().cloned());
        token = page["metadata"]["continue"].as_str().unwrap_or("").to_string();
        if token.is_empty() {
            break;
        }
    }
    assert_eq!(Value::Array(paged), whole["items"]);
    // Still serving.
    assert_eq!(get_widget(&mut r, "a", "w1").await.unwrap()["metadata"]["name"], "w1");
}

#[tokio::test]
async fn a_default_added_to_the_schema_shows_on_every_read() {
    let t = TestServer::start().await;
    let mut c = t.definitions().await;
    support::create(&mut c, &crd(None)).await;
    let mut r = t.resources().await;
    fill(&mut r).await;
    let before = same_list(&t, &mut r, "v1", pb::ListOptions::default(), "").await;
    assert!(before["items"][0]["spec"].get("color").is_none());
    let mut changed = support::get(&mut c, "widgets.example.com").await;
    changed["spec"] = crd(Some("blue")).value["spec"].clone();
    support::update(&mut c, &changed).await.unwrap();
    let after = same_list(&t, &mut r, "v2", pb::ListOptions::default(), "").await;
    for item in after["items"].as_array().unwrap() {
        assert_eq!(item["spec"]["color"], "blue", "{item}");
    }
    assert_eq!(support::parse(&grpc_get(&mut r, "v1", "b", "w4").await)["spec"]["color"], "blue");
    // A write stores the default; reads still agree.
    let mut w1 = get_widget(&mut r, "a", "w1").await.unwrap();
    w1["metadata"]["labels"]["tier"] = json!("edge");
    let written = update_widget(&mut r, "a", &w1).await.unwrap();
    assert_eq!(written["spec"]["color"], "blue");
    let last = same_list(&t, &mut r, "v1", pb::ListOptions::default(), "").await;
    assert_eq!(last["items"][0], written);
}

fn key(namespace: &str, name: &str) -> String {
    keys::resource_key("example.com", "widgets", namespace, name)
}

#[tokio::test]
async fn objects_in_the_stored_form_of_older_versions_still_read() {
    let mut t = TestServer::start().await;
    support::create(&mut t.definitions().await, &crd(None)).await;
    let mut r = t.resources().await;
    fill(&mut r).await;
    let expected = same_list(&t, &mut r, "v2", pb::ListOptions::default(), "").await;
    let w3 = grpc_get(&mut r, "v1", "b", "w3").await;
    drop(r);
    t.server.take().unwrap().shutdown().await.unwrap();

    // What older versions stored: the JSON alone. And an object whose
    // stored JSON is not as serde_json writes it, marked and not.
    let (store, _background) = SledStore::open(t.dir.path(), SledOptions::default()).unwrap();
    let current = store.get(&key("a", "w1")).unwrap();
    let text = std::str::from_utf8(&current.value).unwrap();
    let json = text.trim_end();
    assert!(json.len() < text.len(), "objects are stored marked");
    let mark = &text[json.len()..];
    let mut ops = Vec::new();
    for (ns, name) in [("a", "w1"), ("a", "w2"), ("b", "w3")] {
        let kv = store.get(&key(ns, name)).unwrap();
        let plain = std::str::from_utf8(&kv.value).unwrap().trim_end().as_bytes().to_vec();
        ops.push(Op::update(key(ns, name), kv.mod_revision, plain));
    }
    let spaced = |name: &str| {
        format!(
            r#"{{"apiVersion":"example.com/v1","kind":"Widget","metadata":{{"name":"{name}","namespace":"c"}},"spec":{{"replicas":1,"free":{{"n" : 1.0E0}}}}}}"#
        )
    };
    ops.push(Op::create(key("c", "marked"), format!("{}{mark}", spaced("marked")).into_bytes()));
    ops.push(Op::create(key("c", "plain"), spaced("plain").into_bytes()));
    store.commit(ops).await.unwrap();
    store.close().await;
    drop(store);

    let config = crdstore::server::Config::ephemeral(t.dir.path().to_path_buf());
    t.server = Some(crdstore::server::Server::start(config).await.unwrap());
    let mut r = t.resources().await;
    let mut read = same_list(
        &t,
        &mut r,
        "v2",
        pb::ListOptions { label_selector: "tier".into(), ..Default::default() },
        "labelSelector=tier",
    )
    .await;
    // Only resourceVersions moved (the rewrite was a commit of its own).
    let strip = |list: &mut Value| {
        for item in list["items"].as_array_mut().unwrap() {
            item["metadata"].as_object_mut().unwrap().remove("resourceVersion");
        }
        list["items"].clone()
    };
    assert_eq!(strip(&mut read), strip(&mut expected.clone()));
    let mut old_w3 = support::parse(&grpc_get(&mut r, "v1", "b", "w3").await);
    let mut new_w3 = support::parse(&w3);
    old_w3["metadata"].as_object_mut().unwrap().remove("resourceVersion");
    new_w3["metadata"].as_object_mut().unwrap().remove("resourceVersion");
    assert_eq!(old_w3, new_w3);
    // Marked bytes are spliced as they are; unmarked ones are parsed.
    let marked = String::from_utf8(grpc_get(&mut r, "v1", "c", "marked").await).unwrap();
    assert!(marked.contains(r#""free":{"n" : 1.0E0}"#), "{marked}");
    let plain = String::from_utf8(grpc_get(&mut r, "v1", "c", "plain").await).unwrap();
    assert!(plain.contains(r#""free":{"n":1.0}"#), "{plain}");
    // A write of an old object stores it marked again.
    let mut w2 = get_widget(&mut r, "a", "w2").await.unwrap();
    w2["metadata"]["labels"]["tier"] = json!("edge");
    update_widget(&mut r, "a", &w2).await.unwrap();
    let listed = same_list(&t, &mut r, "v1", pb::ListOptions::default(), "").await;
    assert_eq!(names(&listed), ["w1", "w2", "w3", "w4", "marked", "plain"]);
}

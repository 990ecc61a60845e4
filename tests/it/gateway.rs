//! The REST gateway over HTTP: discovery, definitions, every verb on custom
//! resources, the error and warning shapes, tables, YAML, watch streams and
//! OpenAPI, as a Kubernetes client sees them.

use std::time::Duration;

use reqwest::header::{ACCEPT, CONTENT_TYPE};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::support::{Crd, Http, TestServer};

const JSON_MERGE: &str = "application/merge-patch+json";
const TABLE: &str = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";

/// A widgets definition with status, scale and printer columns, created
/// over HTTP and established.
async fn widgets(http: &Http) {
    let crd = Crd::new("example.com", "Widget")
        .short_names(&["wd"])
        .set("/spec/versions/0/subresources", json!({"status": {}, "scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}}))
        .set("/spec/versions/0/additionalPrinterColumns", json!([{"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"}]))
        .set("/spec/versions/0/schema", json!({"openAPIV3Schema": {"type": "object", "properties": {
            "spec": {"type": "object", "properties": {"replicas": {"type": "integer", "maximum": 10}, "color": {"type": "string"}}},
            "status": {"type": "object", "properties": {"replicas": {"type": "integer"}}}}}}));
    let (status, created) = http
        .json(Method::POST, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", Some(crd.value.clone()))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    for _ in 0..100 {
        let (_, got) = http
            .json(Method::GET, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com", None)
            .await;
        let established = got["status"]["conditions"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|c| c["type"] == "Established" && c["status"] == "True");
        if established {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the definition was never established");
}

fn widget(name: &str, replicas: i64, labels: Value) -> Value {
    json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": name, "labels": labels}, "spec": {"replicas": replicas}})
}

const COLLECTION: &str = "/apis/example.com/v1/namespaces/default/widgets";

#[tokio::test]
async fn discovery_lists_groups_versions_and_resources() {
    let server = TestServer::start().await;
    let http = Http::new(&server);
    widgets(&http).await;
    let (_, groups) = http.json(Method::GET, "/apis", None).await;
    assert_eq!(groups["kind"], "APIGroupList");
    let names: Vec<&str> = groups["groups"].as_array().unwrap().iter().map(|g| g["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["apiextensions.k8s.io", "coordination.k8s.io", "events.k8s.io", "storagemigration.k8s.io", "example.com"]
    );
    assert_eq!(groups["groups"][4]["preferredVersion"]["groupVersion"], "example.com/v1");
    let (_, group) = http.json(Method::GET, "/apis/example.com", None).await;
    assert_eq!((group["kind"].as_str(), group["name"].as_str()), (Some("APIGroup"), Some("example.com")));
    let (_, resources) = http.json(Method::GET, "/apis/example.com/v1", None).await;
    let listed: Vec<(&str, &str)> = resources["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["name"].as_str().unwrap(), r["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(listed, [("widgets", "Widget"), ("widgets/status", "Widget"), ("widgets/scale", "Scale")]);
    assert_eq!(resources["resources"][0]["shortNames"], json!(["wd"]));
    assert_eq!(resources["resources"][0]["namespaced"], true);
    let (status, missing) = http.json(Method::GET, "/apis/example.com/v9", None).await;
    assert_eq!((status, missing["kind"].as_str()), (StatusCode::NOT_FOUND, Some("Status")));
    let (_, core) = http.json(Method::GET, "/api", None).await;
    assert_eq!(core["versions"], json!(["v1"]), "the core group serves the built-in kinds");
    let (_, version) = http.json(Method::GET, "/version", None).await;
    assert_eq!(version["major"], "1");
}

#[tokio::test]
async fn resources_go_through_every_verb_with_kubernetes_status_codes() {
    let server = TestServer::start().await;
    let http = Http::new(&server);
    widgets(&http).await;
    let (status, created) = http.json(Method::POST, COLLECTION, Some(widget("w1", 2, json!({"app": "web"})))).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let (status, again) = http.json(Method::POST, COLLECTION, Some(widget("w1", 2, json!({})))).await;
    assert_eq!((status, again["reason"].as_str()), (StatusCode::CONFLICT, Some("AlreadyExists")));

    let (status, invalid) = http.json(Method::POST, COLLECTION, Some(widget("w2", 50, json!({})))).await;
    assert_eq!((status, invalid["reason"].as_str()), (StatusCode::UNPROCESSABLE_ENTITY, Some("Invalid")));
    assert_eq!(invalid["details"]["causes"][0]["field"], "spec.replicas");
    assert_eq!(invalid["details"]["causes"][0]["reason"], "FieldValueInvalid");

    let item = format!("{COLLECTION}/w1");
    let mut stale = created.clone();
    let (status, updated) = http.json(Method::PUT, &item, Some(json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": created["metadata"], "spec": {"replicas": 3}}))).await;
    assert_eq!((status, &updated["spec"]["replicas"]), (StatusCode::OK, &json!(3)));
    stale["spec"]["replicas"] = json!(4);
    let (status, conflict) = http.json(Method::PUT, &item, Some(stale)).await;
    assert_eq!((status, conflict["reason"].as_str()), (StatusCode::CONFLICT, Some("Conflict")));

    let (status, patched) = http.patch(&item, JSON_MERGE, json!({"spec": {"color": "red"}})).await;
    assert_eq!((status, &patched["spec"]), (StatusCode::OK, &json!({"replicas": 3, "color": "red"})));
    let (status, patched) = http
        .patch(&item, "application/json-patch+json", json!([{"op": "replace", "path": "/spec/replicas", "value": 5}]))
        .await;
    assert_eq!((status, &patched["spec"]["replicas"]), (StatusCode::OK, &json!(5)));
    let (status, strategic) = http.patch(&item, "application/strategic-merge-patch+json", json!({"spec": {}})).await;
    assert_eq!(
        (status, strategic["reason"].as_str()),
        (StatusCode::UNSUPPORTED_MEDIA_TYPE, Some("UnsupportedMediaType"))
    );

    let (status, scale) = http.json(Method::GET, &format!("{item}/scale"), None).await;
    assert_eq!(
        (status, scale["kind"].as_str(), &scale["spec"]["replicas"]),
        (StatusCode::OK, Some("Scale"), &json!(5))
    );
    let (status, scaled) = http.patch(&format!("{item}/scale"), JSON_MERGE, json!({"spec": {"replicas": 7}})).await;
    assert_eq!((status, &scaled["spec"]["replicas"]), (StatusCode::OK, &json!(7)));
    let (status, with_status) =
        http.patch(&format!("{item}/status"), JSON_MERGE, json!({"status": {"replicas": 7}})).await;
    assert_eq!((status, &with_status["status"]["replicas"]), (StatusCode::OK, &json!(7)));

    let (status, dry) =
        http.json(Method::POST, &format!("{COLLECTION}?dryRun=All"), Some(widget("dry", 1, json!({})))).await;
    assert_eq!(status, StatusCode::CREATED, "{dry}");
    let (status, _) = http.json(Method::GET, &format!("{COLLECTION}/dry"), None).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "a dry run persists nothing");
    let (status, bad) =
        http.json(Method::POST, &format!("{COLLECTION}?dryRun=Some"), Some(widget("dry", 1, json!({})))).await;
    assert_eq!((status, bad["reason"].as_str()), (StatusCode::BAD_REQUEST, Some("BadRequest")));

    let precondition = json!({"kind": "DeleteOptions", "apiVersion": "v1", "preconditions": {"uid": "not-the-uid"}});
    let (status, _, _) = http
        .send(
            Method::DELETE,
            &item,
            Some(("application/json", serde_json::to_vec(&precondition).unwrap())),
            "application/json",
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT);
    // A delete that is done answers a Success Status naming what went.
    let (status, deleted) = http.json(Method::DELETE, &item, None).await;
    assert_eq!(
        (status, deleted["kind"].as_str(), deleted["status"].as_str()),
        (StatusCode::OK, Some("Status"), Some("Success"))
    );
    assert_eq!(
        (deleted["details"]["name"].as_str(), deleted["details"]["kind"].as_str()),
        (Some("w1"), Some("widgets"))
    );
    let (status, gone) = http.json(Method::GET, &item, None).await;
    assert_eq!(
        (status, gone["reason"].as_str(), gone["code"].as_i64()),
        (StatusCode::NOT_FOUND, Some("NotFound"), Some(404))
    );
}

#[tokio::test]
async fn lists_select_and_page_and_delete_collections() {
    let server = TestServer::start().await;
    let http = Http::new(&server);
    widgets(&http).await;
    for i in 0..5 {
        let tier = if i % 2 == 0 { "a" } else { "b" };
        http.json(Method::POST, COLLECTION, Some(widget(&format!("w{i}"), 1, json!({"tier": tier})))).await;
    }
    let (_, page) = http.json(Method::GET, &format!("{COLLECTION}?labelSelector=tier%3Da&limit=2"), None).await;
    assert_eq!(page["kind"], "WidgetList");
    let names: Vec<&str> =
        page["items"].as_array().unwrap().iter().map(|o| o["metadata"]["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["w0", "w2"]);
    let token = page["metadata"]["continue"].as_str().unwrap();
    let (_, rest) =
        http.json(Method::GET, &format!("{COLLECTION}?labelSelector=tier%3Da&limit=2&continue={token}"), None).await;
    assert_eq!(rest["items"][0]["metadata"]["name"], "w4");
    assert!(rest["metadata"].get("continue").is_none());
    let (_, all) = http.json(Method::GET, "/apis/example.com/v1/widgets", None).await;
    assert_eq!(all["items"].as_array().unwrap().len(), 5, "listing across namespaces");
    let (status, bad) = http.json(Method::GET, &format!("{COLLECTION}?labelSelector=tier%20in%20("), None).await;
    assert_eq!((status, bad["kind"].as_str()), (StatusCode::BAD_REQUEST, Some("Status")));
    let (status, deleted) = http.json(Method::DELETE, &format!("{COLLECTION}?labelSelector=tier%3Db"), None).await;
    assert_eq!((status, deleted["items"].as_array().map(Vec::len)), (StatusCode::OK, Some(2)));
    let (_, left) = http.json(Method::GET, COLLECTION, None).await;
    assert_eq!(left["items"].as_array().unwrap().len(), 3);
}

#[tokio::test]
async fn unknown_fields_warn_or_fail_by_field_validation() {
    let server = TestServer::start().await;
    let http = Http::new(&server);
    widgets(&http).await;
    let mut body = widget("w1", 1, json!({}));
    body["spec"]["colour"] = json!("blue");
    let bytes = serde_json::to_vec(&body).unwrap();
    let (status, headers, _) =
        http.send(Method::POST, COLLECTION, Some(("application/json", bytes.clone())), "application/json").await;
    assert_eq!(status, StatusCode::CREATED);
    let warnings: Vec<&str> = headers.get_all("warning").iter().map(|v| v.to_str().unwrap()).collect();
    assert_eq!(warnings, [r#"299 - "unknown field \"spec.colour\"""#]);
    body["metadata"]["name"] = json!("w2");
    let (status, strict) = http.json(Method::POST, &format!("{COLLECTION}?fieldValidation=Strict"), Some(body)).await;
    assert_eq!((status, strict["reason"].as_str()), (StatusCode::BAD_REQUEST, Some("BadRequest")));
    assert!(strict["message"].as_str().unwrap().contains(r#"unknown field "spec.colour""#), "{strict}");
}

#[tokio::test]
async fn tables_show_the_printer_columns_and_yaml_goes_both_ways() {
    let server = TestServer::start().await;
    let http = Http::new(&server);
    widgets(&http).await;
    let yaml = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w1\nspec:\n  replicas: 4\n";
    let (status, _, _) = http
        .send(Method::POST, COLLECTION, Some(("application/yaml", yaml.as_bytes().to_vec())), "application/json")
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let (_, _, bytes) = http.send(Method::GET, COLLECTION, None, TABLE).await;
    let table: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(table["kind"], "Table");
    let columns: Vec<&str> =
        table["columnDefinitions"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(columns, ["Name", "Replicas"]);
    assert_eq!(table["rows"][0]["cells"], json!(["w1", 4]));
    assert_eq!(table["rows"][0]["object"]["kind"], "PartialObjectMetadata");
    let (_, headers, bytes) = http.send(Method::GET, &format!("{COLLECTION}/w1"), None, "application/yaml").await;
    assert_eq!(headers[CONTENT_TYPE], "application/yaml");
    let text = String::from_utf8(bytes).unwrap();
    assert!(text.contains("replicas: 4") && text.contains("kind: Widget"), "{text}");
}

#[tokio::test]
async fn watches_stream_events_and_report_an_expired_revision_as_an_error_event() {
    let server = TestServer::start().await;
    let http = Http::new(&server);
    widgets(&http).await;
    let (_, first) = http.json(Method::POST, COLLECTION, Some(widget("w1", 1, json!({})))).await;
    let rv = first["metadata"]["resourceVersion"].as_str().unwrap().to_string();
    let response =
        http.client.get(format!("{}{COLLECTION}?watch=true&resourceVersion={rv}", http.base)).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    http.patch(&format!("{COLLECTION}/w1"), JSON_MERGE, json!({"spec": {"replicas": 2}})).await;
    http.json(Method::DELETE, &format!("{COLLECTION}/w1"), None).await;
    let mut response = response;
    let mut text = String::new();
    while text.lines().count() < 2 {
        let chunk = tokio::time::timeout(Duration::from_secs(10), response.chunk()).await.unwrap().unwrap().unwrap();
        text.push_str(std::str::from_utf8(&chunk).unwrap());
    }
    let events: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!((events[0]["type"].as_str(), &events[0]["object"]["spec"]["replicas"]), (Some("MODIFIED"), &json!(2)));
    assert_eq!(events[1]["type"], "DELETED");

    let expired = TestServer::start_with(|c| {
        c.window = crdstore::storage::HistoryWindow { min_age: Duration::ZERO, min_revisions: 1 };
        c.compaction_interval = Duration::from_millis(50);
    })
    .await;
    let http = Http::new(&expired);
    widgets(&http).await;
    for i in 0..3 {
        http.json(Method::POST, COLLECTION, Some(widget(&format!("w{i}"), 1, json!({})))).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (status, _, bytes) =
        http.send(Method::GET, &format!("{COLLECTION}?watch=true&resourceVersion=2"), None, "application/json").await;
    assert_eq!(status, StatusCode::OK);
    let event: Value = serde_json::from_slice(bytes.split(|b| *b == b'\n').next().unwrap()).unwrap();
    assert_eq!((event["type"].as_str(), event["object"]["code"].as_i64()), (Some("ERROR"), Some(410)));
    assert_eq!(event["object"]["reason"], "Expired");
}

#[tokio::test]
async fn openapi_documents_carry_each_kind_and_the_write_parameters() {
    let server = TestServer::start().await;
    let http = Http::new(&server);
    widgets(&http).await;
    let (_, index) = http.json(Method::GET, "/openapi/v3", None).await;
    assert_eq!(index["paths"]["apis/example.com/v1"]["serverRelativeURL"], "/openapi/v3/apis/example.com/v1");
    let (_, doc) = http.json(Method::GET, "/openapi/v3/apis/example.com/v1", None).await;
    let schema = &doc["components"]["schemas"]["com.example.v1.Widget"];
    assert_eq!(schema["x-kubernetes-group-version-kind"][0]["kind"], "Widget");
    assert_eq!(schema["properties"]["spec"]["properties"]["replicas"]["maximum"], 10);
    let patch = &doc["paths"]["/apis/example.com/v1/namespaces/{namespace}/widgets/{name}"]["patch"];
    assert!(patch["parameters"].as_array().unwrap().iter().any(|p| p["name"] == "fieldValidation"), "{patch}");
    let (status, v2) = http.json(Method::GET, "/openapi/v2", None).await;
    assert_eq!((status, v2["definitions"]["com.example.v1.Widget"]["type"].as_str()), (StatusCode::OK, Some("object")));
    // gnostic's protobuf document is served (tests/it/selectable_fields.rs
    // decodes it); any other protobuf is not.
    let (status, _, _) =
        http.send(Method::GET, "/openapi/v2", None, "application/com.github.proto-openapi.spec.v2@v1.0+protobuf").await;
    assert_eq!(status, StatusCode::OK);
    let (status, _, _) = http.send(Method::GET, "/openapi/v2", None, "application/vnd.kubernetes.protobuf").await;
    assert_eq!(status, StatusCode::NOT_ACCEPTABLE);
}

#[tokio::test]
async fn definitions_are_served_at_the_apiextensions_endpoint() {
    let server = TestServer::start().await;
    let http = Http::new(&server);
    let yaml = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: gadgets.example.com\nspec:\n  group: example.com\n  scope: Cluster\n  names: {plural: gadgets, kind: Gadget}\n  versions:\n  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}\n";
    const DEFINITIONS: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    let (status, _, body) = http
        .send(Method::POST, DEFINITIONS, Some(("application/yaml", yaml.as_bytes().to_vec())), "application/json")
        .await;
    assert_eq!(status, StatusCode::CREATED, "{}", String::from_utf8_lossy(&body));
    let (_, list) = http.json(Method::GET, DEFINITIONS, None).await;
    assert_eq!(
        (list["kind"].as_str(), list["items"].as_array().map(Vec::len)),
        (Some("CustomResourceDefinitionList"), Some(1))
    );
    let (_, _, bytes) = http.send(Method::GET, DEFINITIONS, None, TABLE).await;
    let table: Value = serde_json::from_slice(&bytes).unwrap();
    let columns: Vec<&str> =
        table["columnDefinitions"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(columns, ["Name", "Created At"]);
    assert_eq!(table["rows"][0]["cells"][0], "gadgets.example.com");
    assert!(table["rows"][0]["cells"][1].as_str().unwrap().ends_with('Z'), "{table}");
    let item = format!("{DEFINITIONS}/gadgets.example.com");
    let (status, patched) = http.patch(&item, JSON_MERGE, json!({"spec": {"names": {"shortNames": ["gd"]}}})).await;
    assert_eq!((status, &patched["spec"]["names"]["shortNames"]), (StatusCode::OK, &json!(["gd"])), "{patched}");
    let (status, invalid) = http.patch(&item, JSON_MERGE, json!({"spec": {"scope": "Sideways"}})).await;
    assert_eq!(
        (status, invalid["details"]["causes"][0]["field"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("spec.scope")),
        "{invalid}"
    );
    let (status, with_status) =
        http.patch(&format!("{item}/status"), JSON_MERGE, json!({"status": {"storedVersions": ["v1"]}})).await;
    assert_eq!((status, &with_status["status"]["storedVersions"]), (StatusCode::OK, &json!(["v1"])), "{with_status}");
    let (status, deleted) = http.json(Method::DELETE, &item, None).await;
    assert!(status == StatusCode::OK || status == StatusCode::ACCEPTED, "{status} {deleted}");
    assert_eq!(deleted["metadata"]["name"], "gadgets.example.com");
}

/// Definitions are one more kind of the store, so they take the verbs every
/// kind takes: a delete of a selected collection (`kubectl delete crd -l`,
/// refused with 405 while definitions had a handler of their own), a field
/// selector on the name, and a read not older than a resourceVersion.
#[tokio::test]
async fn definitions_take_every_verb_of_the_resource_table() {
    let server = TestServer::start().await;
    let http = Http::new(&server);
    const DEFINITIONS: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    let mut last = Value::Null;
    for (kind, team) in [("Alpha", "a"), ("Bravo", "a"), ("Charlie", "b")] {
        let mut crd = Crd::new("verbs.example.com", kind);
        crd.value["metadata"]["labels"] = json!({"team": team});
        let (status, created) = http.json(Method::POST, DEFINITIONS, Some(crd.value)).await;
        assert_eq!(status, StatusCode::CREATED, "{created}");
        last = created;
    }
    let rv = last["metadata"]["resourceVersion"].as_str().unwrap().to_string();
    let name = last["metadata"]["name"].as_str().unwrap().to_string();
    let (status, read) = http.json(Method::GET, &format!("{DEFINITIONS}/{name}?resourceVersion={rv}"), None).await;
    assert_eq!((status, &read["metadata"]["resourceVersion"]), (StatusCode::OK, &json!(rv)), "{read}");
    let (_, selected) =
        http.json(Method::GET, &format!("{DEFINITIONS}?fieldSelector=metadata.name={name}"), None).await;
    assert_eq!(selected["items"].as_array().map(Vec::len), Some(1), "{selected}");

    // A patch is decoded as the definitions' type, as a create or an update
    // is: a value of the wrong type is a BadRequest naming its path.
    let (status, mistyped) =
        http.patch(&format!("{DEFINITIONS}/{name}"), JSON_MERGE, json!({"spec": {"versions": "v1"}})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{mistyped}");
    assert!(mistyped["message"].as_str().unwrap().contains("spec.versions"), "{mistyped}");

    let (status, deleted) = http.json(Method::DELETE, &format!("{DEFINITIONS}?labelSelector=team=a"), None).await;
    assert_eq!(status, StatusCode::OK, "{deleted}");
    let mut names: Vec<&str> =
        deleted["items"].as_array().unwrap().iter().map(|d| d["metadata"]["name"].as_str().unwrap()).collect();
    names.sort_unstable();
    assert_eq!(names, ["alphas.verbs.example.com", "bravos.verbs.example.com"]);
    let (_, left) = http.json(Method::GET, DEFINITIONS, None).await;
    let left: Vec<&str> =
        left["items"].as_array().unwrap().iter().map(|d| d["metadata"]["name"].as_str().unwrap()).collect();
    assert_eq!(left, ["charlies.verbs.example.com"], "without instances they go at once");
}

#[tokio::test]
async fn watches_asked_for_tables_send_one_row_per_event() {
    let server = TestServer::start().await;
    let http = Http::new(&server);
    widgets(&http).await;
    http.json(Method::POST, COLLECTION, Some(widget("w1", 3, json!({})))).await;
    for (path, cells) in [
        (format!("{COLLECTION}?watch=true"), json!(["w1", 3])),
        (
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions?watch=true".to_string(),
            json!("widgets.example.com"),
        ),
    ] {
        let mut response = http.client.get(format!("{}{path}", http.base)).header(ACCEPT, TABLE).send().await.unwrap();
        let chunk = tokio::time::timeout(Duration::from_secs(10), response.chunk()).await.unwrap().unwrap().unwrap();
        let event: Value = serde_json::from_slice(chunk.split(|b| *b == b'\n').next().unwrap()).unwrap();
        assert_eq!(
            (event["type"].as_str(), event["object"]["kind"].as_str()),
            (Some("ADDED"), Some("Table")),
            "{event}"
        );
        let row = &event["object"]["rows"][0]["cells"];
        match cells {
            Value::String(name) => assert_eq!(row[0], name),
            cells => assert_eq!(row, &cells),
        }
    }
}

#[tokio::test]
async fn bodies_over_the_limit_are_refused_with_a_status() {
    let server = TestServer::start().await;
    let http = Http::new(&server);
    widgets(&http).await;
    let mut big = widget("big", 1, json!({}));
    big["metadata"]["annotations"] = json!({"filler": "x".repeat(3 * 1024 * 1024)});
    let (status, refused) = http.json(Method::POST, COLLECTION, Some(big)).await;
    assert_eq!((status, refused["reason"].as_str()), (StatusCode::PAYLOAD_TOO_LARGE, Some("RequestEntityTooLarge")));
}

#[tokio::test]
async fn a_long_list_streams_and_reads_as_its_pages_do() {
    let server = TestServer::start().await;
    let http = std::sync::Arc::new(Http::new(&server));
    widgets(&http).await;
    let writers = (0..8).map(|writer| {
        let http = http.clone();
        tokio::spawn(async move {
            for i in (writer..640).step_by(8) {
                let (status, _) =
                    http.json(Method::POST, COLLECTION, Some(widget(&format!("w{i:04}"), 1, json!({})))).await;
                assert_eq!(status, StatusCode::CREATED);
            }
        })
    });
    for writer in writers.collect::<Vec<_>>() {
        writer.await.unwrap();
    }
    // Longer than a chunk: sent as it renders, so without a length.
    let (status, headers, bytes) = http.send(Method::GET, COLLECTION, None, "application/json").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers.get("transfer-encoding").map(|v| v.to_str().unwrap()), Some("chunked"), "{headers:?}");
    assert!(headers.get("content-length").is_none());
    let whole: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(whole["kind"], "WidgetList");
    // Pages shorter than a chunk are sent whole, with their length.
    let mut items = Vec::new();
    let mut path =
        format!("{COLLECTION}?limit=300&resourceVersion={}", whole["metadata"]["resourceVersion"].as_str().unwrap());
    loop {
        let (status, headers, bytes) = http.send(Method::GET, &path, None, "application/json").await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(
            headers.get("content-length").map(|v| v.to_str().unwrap().to_string()),
            Some(bytes.len().to_string())
        );
        let page: Value = serde_json::from_slice(&bytes).unwrap();
        items.extend(page["items"].as_array().unwrap().iter().cloned());
        match page["metadata"]["continue"].as_str() {
            Some(token) => path = format!("{COLLECTION}?limit=300&continue={token}"),
            None => break,
        }
    }
    assert_eq!(items.len(), 640);
    assert_eq!(whole["items"], Value::Array(items), "the streamed list is its pages, item for item");
}

//! `selectableFields` (issue 19, as upstream's TestSelectableFields and
//! TestFieldSelectorOpenAPI): field selectors on a version's selectable
//! fields in list, watch and delete-collection, over HTTP and gRPC, at two
//! versions that name the same field differently (v1 `spec.color`, v1beta1
//! `spec.hue`, converted declaratively), so selection happens at the request
//! version; an unknown label refused in Kubernetes' words; the validation
//! of `selectableFields` at its paths; and `/openapi/v2` in gnostic's
//! protobuf, decoded here, carrying `x-kubernetes-selectable-fields`.

use std::collections::BTreeSet;

use crdstore::pb::v1 as pb;
use futures::StreamExt;
use prost::Message as _;
use reqwest::{Client, StatusCode};
use serde_json::{json, Value};

use crate::support::{self, parse, Crd, TestServer, WAIT};

/// gnostic's OpenAPI v2 messages, compiled by build.rs.
#[allow(dead_code, clippy::all)]
mod gnostic {
    include!(concat!(env!("OUT_DIR"), "/openapi.v2.rs"));
}

const GROUP: &str = "tests.example.com";

/// Shirts (cluster-scoped): v1 stores `spec.color`, v1beta1 calls it
/// `spec.hue`; each version selects on its own name for it and on
/// `quantity`, `size` (an enum) and `branded`.
fn shirts() -> Crd {
    let spec = |color: &str| {
        json!({"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object", "properties": {
            color: {"type": "string"},
            "quantity": {"type": "integer"},
            "size": {"type": "string", "enum": ["S", "M", "L", "XL"]},
            "branded": {"type": "boolean"},
        }}}}})
    };
    let selectable = |color: &str| {
        json!([{"jsonPath": format!(".spec.{color}")}, {"jsonPath": ".spec.quantity"},
               {"jsonPath": ".spec.size"}, {"jsonPath": ".spec.branded"}])
    };
    let v1 = json!({"name": "v1", "served": true, "storage": true, "schema": spec("color"),
        "selectableFields": selectable("color"),
        "conversion": {"declarative": {"v1beta1": {"rules": [{"rename": {"from": ".spec.color", "to": ".spec.hue"}}]}}}});
    let v1beta1 = json!({"name": "v1beta1", "served": true, "storage": false, "schema": spec("hue"),
        "selectableFields": selectable("hue")});
    Crd::new(GROUP, "Shirt")
        .versions(vec![v1, v1beta1])
        .set("/spec/scope", json!("Cluster"))
        .set("/spec/conversion", json!({"strategy": "Declarative"}))
}

fn shirt(name: &str, spec: Value) -> Value {
    json!({"apiVersion": format!("{GROUP}/v1"), "kind": "Shirt", "metadata": {"name": name}, "spec": spec})
}

/// shirt1 (blue, 2, S, branded), shirt2 (blue, 3, M), shirt3 (green, 2).
fn three() -> [Value; 3] {
    [
        shirt("shirt1", json!({"color": "blue", "quantity": 2, "size": "S", "branded": true})),
        shirt("shirt2", json!({"color": "blue", "quantity": 3, "size": "M", "branded": false})),
        shirt("shirt3", json!({"color": "green", "quantity": 2, "branded": false})),
    ]
}

fn at(version: &str, name: &str) -> pb::ResourceRef {
    pb::ResourceRef {
        group: GROUP.into(),
        version: version.into(),
        resource: "shirts".into(),
        namespace: String::new(),
        name: name.into(),
    }
}

fn url(t: &TestServer, version: &str) -> String {
    format!("http://{}/apis/{GROUP}/{version}/shirts", t.server().http_addr)
}

async fn start() -> TestServer {
    let t = TestServer::start().await;
    support::create(&mut t.definitions().await, &shirts()).await;
    t
}

async fn create_all(t: &TestServer) {
    let mut r = t.resources().await;
    for obj in three() {
        let req = pb::CreateResourceRequest {
            r#ref: Some(at("v1", "")),
            object: serde_json::to_vec(&obj).unwrap(),
            options: None,
        };
        r.create(req).await.unwrap();
    }
}

fn names(items: &[Value]) -> BTreeSet<String> {
    items.iter().map(|i| i["metadata"]["name"].as_str().unwrap().to_string()).collect()
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|n| n.to_string()).collect()
}

/// A list over HTTP: the status and the body.
async fn http_list(t: &TestServer, version: &str, selector: &str) -> (StatusCode, Value) {
    let response = Client::new().get(url(t, version)).query(&[("fieldSelector", selector)]).send().await.unwrap();
    (response.status(), response.json().await.unwrap())
}

async fn grpc_list(t: &TestServer, version: &str, selector: &str) -> Result<BTreeSet<String>, tonic::Status> {
    let options = pb::ListOptions { field_selector: selector.into(), ..Default::default() };
    let page = t
        .resources()
        .await
        .list(pb::ListResourcesRequest { r#ref: Some(at(version, "")), options: Some(options) })
        .await?;
    Ok(names(&page.into_inner().items.iter().map(|i| parse(i)).collect::<Vec<_>>()))
}

/// Upstream's cases, with each version's name for the color.
fn cases(version: &str) -> Vec<(String, BTreeSet<String>)> {
    let color = if version == "v1" { "spec.color" } else { "spec.hue" };
    vec![
        (format!("{color}=blue"), set(&["shirt1", "shirt2"])),
        ("spec.quantity=2".into(), set(&["shirt1", "shirt3"])),
        ("spec.size=M".into(), set(&["shirt2"])),
        ("spec.branded=false".into(), set(&["shirt2", "shirt3"])),
        (format!("{color}=blue,spec.quantity=2"), set(&["shirt1"])),
        (format!("{color}=blue,spec.branded=false"), set(&["shirt2"])),
        (format!("{color}!=blue"), set(&["shirt3"])),
        ("spec.size=".into(), set(&["shirt3"])),
        ("metadata.name=shirt2,spec.quantity==3".into(), set(&["shirt2"])),
    ]
}

#[tokio::test]
async fn lists_select_on_each_versions_selectable_fields_over_http_and_grpc() {
    let t = start().await;
    create_all(&t).await;
    for version in ["v1", "v1beta1"] {
        for (selector, want) in cases(version) {
            let (status, body) = http_list(&t, version, &selector).await;
            assert_eq!(status, StatusCode::OK, "{version} {selector}: {body}");
            assert_eq!(names(body["items"].as_array().unwrap()), want, "HTTP {version} {selector}");
            assert_eq!(grpc_list(&t, version, &selector).await.unwrap(), want, "gRPC {version} {selector}");
        }
    }
    // A page with a limit still selects at the request version.
    let response = Client::new()
        .get(url(&t, "v1beta1"))
        .query(&[("fieldSelector", "spec.hue=green"), ("limit", "10")])
        .send()
        .await
        .unwrap();
    let body: Value = response.json().await.unwrap();
    assert_eq!(names(body["items"].as_array().unwrap()), set(&["shirt3"]));
    assert_eq!(body["items"][0]["spec"]["hue"], "green", "read at v1beta1: {body}");
    assert_eq!(grpc_list(&t, "v1", "").await.unwrap().len(), 3, "the server still serves");
}

#[tokio::test]
async fn an_unknown_field_label_or_operator_is_a_bad_request() {
    let t = start().await;
    create_all(&t).await;
    for (version, selector, message) in [
        ("v1", "spec.nosuchfield=xyz", "field label not supported: spec.nosuchfield"),
        // Each version accepts only its own paths.
        ("v1", "spec.hue=blue", "field label not supported: spec.hue"),
        ("v1beta1", "spec.color=blue", "field label not supported: spec.color"),
        // A cluster-scoped resource has no namespace to select on.
        ("v1", "metadata.namespace=default", "field label not supported: metadata.namespace"),
        ("v1", "spec.quantity>2", "invalid selector: 'spec.quantity>2'; can't understand 'spec.quantity>2'"),
    ] {
        let (status, body) = http_list(&t, version, selector).await;
        assert_eq!(
            (status, body["reason"].as_str(), body["message"].as_str()),
            (StatusCode::BAD_REQUEST, Some("BadRequest"), Some(message))
        );
        let watch = Client::new()
            .get(url(&t, version))
            .query(&[("watch", "true"), ("fieldSelector", selector)])
            .send()
            .await
            .unwrap();
        assert_eq!(watch.status(), StatusCode::BAD_REQUEST, "watch {version} {selector}");
        let err = grpc_list(&t, version, selector).await.unwrap_err();
        assert_eq!((err.code(), err.message()), (tonic::Code::InvalidArgument, message));
        let options = pb::WatchOptions { field_selector: selector.into(), ..Default::default() };
        let err = t
            .resources()
            .await
            .watch(pb::WatchResourcesRequest { r#ref: Some(at(version, "")), options: Some(options) })
            .await
            .unwrap_err();
        assert_eq!(err.message(), message);
        let response =
            Client::new().delete(url(&t, version)).query(&[("fieldSelector", selector)]).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "delete-collection {version} {selector}");
    }
    assert_eq!(grpc_list(&t, "v1", "").await.unwrap().len(), 3, "nothing was deleted, and the server still serves");
}

/// The (type, name) pairs of the ADDED and DELETED events of an HTTP watch
/// body (newline-delimited JSON).
fn http_events(body: &str) -> Vec<(String, String)> {
    body.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let event: Value = serde_json::from_str(l).unwrap();
            (
                event["type"].as_str().unwrap().to_string(),
                event["object"]["metadata"]["name"].as_str().unwrap().to_string(),
            )
        })
        .filter(|(kind, _)| kind == "ADDED" || kind == "DELETED")
        .collect()
}

fn split(events: &[(String, String)]) -> (BTreeSet<String>, BTreeSet<String>) {
    let of = |k: &str| events.iter().filter(|(kind, _)| kind == k).map(|(_, n)| n.clone()).collect();
    (of("ADDED"), of("DELETED"))
}

/// Watches at both versions, over both transports, selecting on the color:
/// creates, a delete (shirt1) and an update that makes shirt2 stop matching
/// give ADDED for both blue shirts and DELETED for both, the update's as
/// upstream's watch filter sends a transition; a quantity watch sees only
/// the delete. The streams end on their server-side timeout.
#[tokio::test]
async fn watches_select_old_and_new_state_at_the_request_version() {
    let t = start().await;
    let http = Client::new();
    let http_watch = |version: &str, selector: &str| {
        http.get(url(&t, version))
            .query(&[("watch", "true"), ("fieldSelector", selector), ("timeoutSeconds", "3")])
            .send()
    };
    let (v1beta1_color, v1_quantity) =
        (http_watch("v1beta1", "spec.hue=blue").await.unwrap(), http_watch("v1", "spec.quantity=2").await.unwrap());
    assert_eq!((v1beta1_color.status(), v1_quantity.status()), (StatusCode::OK, StatusCode::OK));
    let mut grpc_streams = Vec::new();
    for (version, selector) in [("v1", "spec.color=blue"), ("v1beta1", "spec.hue=blue,spec.branded=false")] {
        let options = pb::WatchOptions { field_selector: selector.into(), timeout_seconds: 3, ..Default::default() };
        let request = pb::WatchResourcesRequest { r#ref: Some(at(version, "")), options: Some(options) };
        grpc_streams.push(t.resources().await.watch(request).await.unwrap().into_inner());
    }
    create_all(&t).await;
    let mut r = t.resources().await;
    r.delete(pb::DeleteResourceRequest { r#ref: Some(at("v1", "shirt1")), ..Default::default() }).await.unwrap();
    let mut shirt2 = parse(
        &r.get(pb::GetResourceRequest { r#ref: Some(at("v1", "shirt2")), ..Default::default() })
            .await
            .unwrap()
            .into_inner()
            .object,
    );
    shirt2["spec"]["color"] = json!("green");
    let req = pb::UpdateResourceRequest {
        r#ref: Some(at("v1", "shirt2")),
        object: serde_json::to_vec(&shirt2).unwrap(),
        options: None,
    };
    r.update(req).await.unwrap();

    let body = tokio::time::timeout(WAIT, v1beta1_color.text()).await.unwrap().unwrap();
    assert_eq!(split(&http_events(&body)), (set(&["shirt1", "shirt2"]), set(&["shirt1", "shirt2"])), "{body}");
    for line in body.lines().filter(|l| l.contains("shirt1")) {
        assert!(line.contains("\"hue\":\"blue\""), "events at v1beta1 carry the v1beta1 object: {line}");
    }
    let body = tokio::time::timeout(WAIT, v1_quantity.text()).await.unwrap().unwrap();
    assert_eq!(split(&http_events(&body)), (set(&["shirt1", "shirt3"]), set(&["shirt1"])), "{body}");

    let wants = [(set(&["shirt1", "shirt2"]), set(&["shirt1", "shirt2"])), (set(&["shirt2"]), set(&["shirt2"]))];
    for (stream, want) in grpc_streams.into_iter().zip(wants) {
        let events: Vec<pb::WatchEvent> =
            tokio::time::timeout(WAIT, stream.map(Result::unwrap).collect()).await.unwrap();
        let events: Vec<(String, String)> = events
            .iter()
            .filter_map(|e| {
                let kind = match pb::EventType::try_from(e.r#type).unwrap() {
                    pb::EventType::Added => "ADDED",
                    pb::EventType::Deleted => "DELETED",
                    _ => return None,
                };
                Some((kind.to_string(), parse(&e.object)["metadata"]["name"].as_str().unwrap().to_string()))
            })
            .collect();
        assert_eq!(split(&events), want);
    }
    assert_eq!(grpc_list(&t, "v1", "").await.unwrap(), set(&["shirt2", "shirt3"]), "the server still serves");
}

#[tokio::test]
async fn delete_collection_deletes_what_the_request_versions_fields_select() {
    let t = start().await;
    // HTTP at v1beta1, by its own name for the color.
    create_all(&t).await;
    let response =
        Client::new().delete(url(&t, "v1beta1")).query(&[("fieldSelector", "spec.hue=blue")]).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    assert_eq!(names(body["items"].as_array().unwrap()), set(&["shirt1", "shirt2"]), "{body}");
    assert_eq!(grpc_list(&t, "v1", "").await.unwrap(), set(&["shirt3"]));
    // gRPC at v1.
    let mut r = t.resources().await;
    r.delete_collection(pb::DeleteCollectionRequest { r#ref: Some(at("v1", "")), ..Default::default() }).await.unwrap();
    create_all(&t).await;
    let list_options =
        pb::ListOptions { field_selector: "spec.branded=false,spec.quantity=2".into(), ..Default::default() };
    let deleted = r
        .delete_collection(pb::DeleteCollectionRequest {
            r#ref: Some(at("v1", "")),
            list_options: Some(list_options),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(names(&deleted.items.iter().map(|i| parse(i)).collect::<Vec<_>>()), set(&["shirt3"]));
    assert_eq!(grpc_list(&t, "v1beta1", "").await.unwrap(), set(&["shirt1", "shirt2"]), "the server still serves");
}

#[tokio::test]
async fn selectable_fields_are_validated_at_their_paths() {
    let t = start().await;
    let mut c = t.definitions().await;
    let fields = json!([
        {"jsonPath": ".spec.ratio"},
        {"jsonPath": ".spec.nope"},
        {"jsonPath": ".spec.items[0]"},
        {"jsonPath": ".metadata.name"},
        {"jsonPath": ".spec.color"},
        {"jsonPath": ".spec.color"},
    ]);
    let schema = json!({"openAPIV3Schema": {"type": "object", "properties": {
        "metadata": {"type": "object", "properties": {"name": {"type": "string"}}},
        "spec": {"type": "object", "properties": {
            "color": {"type": "string"}, "ratio": {"type": "number"},
            "items": {"type": "array", "items": {"type": "string"}}}}}}});
    let v1 = json!({"name": "v1", "served": true, "storage": true, "schema": schema, "selectableFields": fields});
    let v2 = json!({"name": "v2", "served": true, "storage": false, "schema": schema});
    let crd = Crd::new("bad.example.com", "Thing").versions(vec![v1, v2]);
    let err = c.create(pb::CreateDefinitionRequest { definition: crd.bytes(), options: None }).await.unwrap_err();
    let p = "spec.versions[0].selectableFields";
    assert_eq!(
        support::violations(&err),
        [0, 1, 2, 3, 5].iter().map(|i| format!("{p}[{i}].jsonPath")).collect::<Vec<_>>(),
        "{}",
        err.message()
    );
    for part in [
        "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.",
        "\".spec.nope\": is an invalid path: does not refer to a valid field",
        "\".spec.items[0]\": is an invalid path: array notation is not allowed",
        "\".metadata.name\": must not point to fields in metadata",
        &format!("{p}[5].jsonPath: Duplicate value: \".spec.color\""),
    ] {
        assert!(err.message().contains(part), "{part}: {}", err.message());
    }
    // Nine distinct fields are too many.
    let many: Vec<Value> = (0..9).map(|i| json!({"jsonPath": format!(".spec.f{i}")})).collect();
    let props: serde_json::Map<String, Value> = (0..9).map(|i| (format!("f{i}"), json!({"type": "string"}))).collect();
    let schema =
        json!({"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object", "properties": props}}}});
    let crd = Crd::new("many.example.com", "Thing").versions(vec![
        json!({"name": "v1", "served": true, "storage": true, "schema": schema, "selectableFields": many}),
    ]);
    let response = Client::new()
        .post(format!("http://{}/apis/apiextensions.k8s.io/v1/customresourcedefinitions", t.server().http_addr))
        .header("content-type", "application/json")
        .body(crd.bytes())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["details"]["causes"][0]["field"], "spec.selectableFields", "one version: hoisted, {body}");
    assert_eq!(body["details"]["causes"][0]["message"], "Too many: 9: must have at most 8 items");
    assert_eq!(grpc_list(&t, "v1", "").await.unwrap().len(), 0, "the server still serves");
}

#[tokio::test]
async fn openapi_v2_is_served_as_gnostic_protobuf_with_the_selectable_fields() {
    let t = start().await;
    let response = Client::new()
        .get(format!("http://{}/openapi/v2", t.server().http_addr))
        .header("accept", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    // Kubernetes' answer names the type as Go's mime parser reads it.
    assert_eq!(response.headers()["content-type"], "application/com.github.proto-openapi.spec.v2.v1.0+protobuf");
    let doc = gnostic::Document::decode(response.bytes().await.unwrap()).unwrap();
    assert_eq!(doc.swagger, "2.0");
    let definitions = doc.definitions.unwrap().additional_properties;
    let shirt = definitions.iter().find(|d| d.name == "com.example.tests.v1.Shirt").expect("the Shirt definition");
    let shirt = shirt.value.as_ref().unwrap();
    let selectable = shirt.vendor_extension.iter().find(|e| e.name == "x-kubernetes-selectable-fields").unwrap();
    assert_eq!(
        selectable.value.as_ref().unwrap().yaml,
        "- fieldPath: spec.color\n- fieldPath: spec.quantity\n- fieldPath: spec.size\n- fieldPath: spec.branded\n"
    );
    let spec = shirt.properties.as_ref().unwrap().additional_properties.iter().find(|p| p.name == "spec").unwrap();
    let size = spec
        .value
        .as_ref()
        .unwrap()
        .properties
        .as_ref()
        .unwrap()
        .additional_properties
        .iter()
        .find(|p| p.name == "size")
        .unwrap();
    let size = size.value.as_ref().unwrap();
    assert_eq!(size.r#type.as_ref().unwrap().value, ["string"]);
    assert_eq!(size.r#enum.iter().map(|a| a.yaml.as_str()).collect::<Vec<_>>(), ["S\n", "M\n", "L\n", "XL\n"]);
    let beta = definitions.iter().find(|d| d.name == "com.example.tests.v1beta1.Shirt").unwrap();
    let beta = beta
        .value
        .as_ref()
        .unwrap()
        .vendor_extension
        .iter()
        .find(|e| e.name == "x-kubernetes-selectable-fields")
        .unwrap();
    assert!(beta.value.as_ref().unwrap().yaml.starts_with("- fieldPath: spec.hue\n"));
    assert!(definitions.iter().any(|d| d.name == "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"));
    let paths = doc.paths.unwrap().path;
    assert!(paths.iter().any(|p| p.name == format!("/apis/{GROUP}/v1/shirts/{{name}}")), "the paths are there too");
    // JSON is still the default.
    let json: Value = Client::new()
        .get(format!("http://{}/openapi/v2", t.server().http_addr))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        json["definitions"]["com.example.tests.v1.Shirt"]["x-kubernetes-selectable-fields"][0]["fieldPath"],
        "spec.color"
    );
}

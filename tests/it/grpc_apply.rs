//! Server-side apply over gRPC (issue 20): the Apply call creates, says so,
//! conflicts with a second manager (ABORTED, reason Conflict, each field and
//! its manager in the details), forces, dry-runs, needs a field manager,
//! applies to status and refuses scale; Patch with PATCH_TYPE_APPLY honours
//! `force`.

use serde_json::{json, Value};
use tonic::Code;
use tonic_types::StatusExt;

use crate::support::{create, parse, reason, version, violations, Crd, Resources, TestServer};
use crdstore::pb::v1 as pb;

fn reference(name: &str) -> pb::ResourceRef {
    pb::ResourceRef {
        group: "rpcssa.example.com".into(),
        version: "v1".into(),
        resource: "gadgets".into(),
        namespace: "ns".into(),
        name: name.into(),
    }
}

fn gadget(name: &str, body: Value) -> Value {
    let mut obj = json!({"apiVersion": "rpcssa.example.com/v1", "kind": "Gadget", "metadata": {"name": name}});
    for (k, v) in body.as_object().unwrap() {
        obj[k] = v.clone();
    }
    obj
}

async fn setup() -> (TestServer, Resources) {
    let t = TestServer::start().await;
    let mut v1 = version("v1", true);
    v1["schema"] = json!({"openAPIV3Schema": {"type": "object", "properties": {
        "spec": {"type": "object", "properties": {"size": {"type": "integer"}, "color": {"type": "string"}}},
        "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}}}}});
    v1["subresources"] =
        json!({"status": {}, "scale": {"specReplicasPath": ".spec.size", "statusReplicasPath": ".status.size"}});
    create(&mut t.definitions().await, &Crd::new("rpcssa.example.com", "Gadget").versions(vec![v1])).await;
    let r = t.resources().await;
    (t, r)
}

fn request(name: &str, manager: &str, obj: &Value) -> pb::ApplyResourceRequest {
    pb::ApplyResourceRequest {
        r#ref: Some(reference(name)),
        object: serde_json::to_vec(obj).unwrap(),
        field_manager: manager.into(),
        ..Default::default()
    }
}

async fn apply(r: &mut Resources, req: pb::ApplyResourceRequest) -> Result<(Value, bool), tonic::Status> {
    r.apply(req).await.map(|x| x.into_inner()).map(|x| (parse(&x.object), x.created))
}

async fn get(r: &mut Resources, name: &str) -> Value {
    let req = pb::GetResourceRequest { r#ref: Some(reference(name)), resource_version: String::new() };
    parse(&r.get(req).await.unwrap().into_inner().object)
}

fn managers(obj: &Value) -> Vec<String> {
    let entries = obj["metadata"]["managedFields"].as_array().cloned().unwrap_or_default();
    entries.iter().map(|e| e["manager"].as_str().unwrap().to_string()).collect()
}

#[tokio::test]
async fn apply_creates_conflicts_with_causes_then_forces() {
    let (_t, mut r) = setup().await;
    let first = gadget("g1", json!({"spec": {"size": 1, "color": "red"}}));
    let (obj, created) = apply(&mut r, request("g1", "m1", &first)).await.unwrap();
    assert!(created);
    assert_eq!(obj["spec"], json!({"size": 1, "color": "red"}));
    assert_eq!(managers(&obj), ["m1"]);
    let (again, created) = apply(&mut r, request("g1", "m1", &first)).await.unwrap();
    assert!(!created, "a second apply updates");
    assert_eq!(again["metadata"]["resourceVersion"], obj["metadata"]["resourceVersion"], "no change, no write");

    // A second manager changing both fields conflicts on each.
    let second = gadget("g1", json!({"spec": {"size": 2, "color": "blue"}}));
    let err = apply(&mut r, request("g1", "m2", &second)).await.unwrap_err();
    assert_eq!(err.code(), Code::Aborted, "{err:?}");
    assert_eq!(reason(&err), "Conflict");
    assert!(err.message().starts_with("Apply failed with 2 conflicts"), "{}", err.message());
    let mut fields = violations(&err);
    fields.sort();
    assert_eq!(fields, [".spec.color", ".spec.size"]);
    let details = err.get_error_details();
    for v in &details.bad_request().unwrap().field_violations {
        assert_eq!(v.description, "conflict with \"m1\"", "{v:?}");
    }
    let causes: Value = serde_json::from_str(&details.error_info().unwrap().metadata["causes"]).unwrap();
    for c in causes.as_array().unwrap() {
        assert_eq!(c["reason"], "FieldManagerConflict", "{c}");
        assert_eq!(c["message"], "conflict with \"m1\"", "{c}");
    }
    assert_eq!(get(&mut r, "g1").await["spec"], json!({"size": 1, "color": "red"}), "nothing written");

    // Forced, the second manager takes both fields.
    let mut forced = request("g1", "m2", &second);
    forced.force = true;
    let (obj, created) = apply(&mut r, forced).await.unwrap();
    assert!(!created);
    assert_eq!(obj["spec"], json!({"size": 2, "color": "blue"}));
    assert_eq!(managers(&obj), ["m2"]);
    assert_eq!(get(&mut r, "g1").await["spec"], json!({"size": 2, "color": "blue"}));
}

#[tokio::test]
async fn apply_dry_run_writes_nothing() {
    let (_t, mut r) = setup().await;
    let mut req = request("dry", "m1", &gadget("dry", json!({"spec": {"size": 3}})));
    req.dry_run = true;
    let (obj, created) = apply(&mut r, req).await.unwrap();
    assert!(created);
    assert_eq!(obj["spec"]["size"], 3);
    let missing = r.get(pb::GetResourceRequest { r#ref: Some(reference("dry")), resource_version: String::new() });
    assert_eq!(missing.await.unwrap_err().code(), Code::NotFound);
    // And the server still serves: a real apply then creates it.
    let (_, created) = apply(&mut r, request("dry", "m1", &gadget("dry", json!({"spec": {"size": 3}})))).await.unwrap();
    assert!(created);
}

#[tokio::test]
async fn apply_needs_a_field_manager_and_refuses_scale() {
    let (_t, mut r) = setup().await;
    let obj = gadget("g", json!({"spec": {"size": 1}}));
    let err = apply(&mut r, request("g", "", &obj)).await.unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
    assert_eq!(reason(&err), "Invalid");
    assert_eq!(violations(&err), ["fieldManager"]);
    assert!(err.message().contains("fieldManager: Required value: is required for apply patch"), "{}", err.message());

    let mut scale = request("g", "m1", &obj);
    scale.subresource = pb::Subresource::Scale as i32;
    let err = apply(&mut r, scale).await.unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
    assert_eq!(violations(&err), ["subresource"]);
    assert!(err.message().contains("SUBRESOURCE_STATUS"), "{}", err.message());

    let (_, created) = apply(&mut r, request("g", "m1", &obj)).await.unwrap();
    assert!(created, "the server still serves");
}

#[tokio::test]
async fn apply_to_status_changes_only_status() {
    let (_t, mut r) = setup().await;
    let mut status = request("s", "ctl", &gadget("s", json!({"status": {"ready": true}})));
    status.subresource = pb::Subresource::Status as i32;
    let err = apply(&mut r, status.clone()).await.unwrap_err();
    assert_eq!(err.code(), Code::NotFound, "status applies never create: {err:?}");

    apply(&mut r, request("s", "m1", &gadget("s", json!({"spec": {"size": 1}})))).await.unwrap();
    status.object = serde_json::to_vec(&gadget("s", json!({"spec": {"size": 9}, "status": {"ready": true}}))).unwrap();
    let (obj, created) = apply(&mut r, status).await.unwrap();
    assert!(!created);
    assert_eq!(obj["status"], json!({"ready": true}));
    assert_eq!(obj["spec"], json!({"size": 1}), "a status apply ignores spec");
    let entry = obj["metadata"]["managedFields"].as_array().unwrap().iter().find(|e| e["manager"] == "ctl").cloned();
    assert_eq!(entry.unwrap()["subresource"], "status");
}

#[tokio::test]
async fn patch_apply_honours_force() {
    let (_t, mut r) = setup().await;
    apply(&mut r, request("p", "m1", &gadget("p", json!({"spec": {"color": "red"}})))).await.unwrap();
    let patch = |force: bool| pb::PatchResourceRequest {
        r#ref: Some(reference("p")),
        patch_type: pb::PatchType::Apply as i32,
        patch: serde_json::to_vec(&gadget("p", json!({"spec": {"color": "blue"}}))).unwrap(),
        options: Some(pb::WriteOptions { field_manager: "m2".into(), ..Default::default() }),
        force,
        ..Default::default()
    };
    let err = r.patch(patch(false)).await.unwrap_err();
    assert_eq!(err.code(), Code::Aborted, "{err:?}");
    assert_eq!(violations(&err), [".spec.color"]);
    let obj = parse(&r.patch(patch(true)).await.unwrap().into_inner().object);
    assert_eq!(obj["spec"]["color"], "blue");

    // force with another patch type is refused, naming the field.
    let mut merge = patch(true);
    merge.patch_type = pb::PatchType::Merge as i32;
    let err = r.patch(merge).await.unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
    assert_eq!(violations(&err), ["force"]);
    assert_eq!(get(&mut r, "p").await["spec"]["color"], "blue");
}

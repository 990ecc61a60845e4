//! Custom resources through the gRPC server: serving rules, create, update,
//! patch, delete with finalizers, size limits.

use crdstore::pb::v1 as pb;
use serde_json::json;
use tonic::Code;

use crate::support::{
    self, create_widget, delete_widget, get_widget, patch_widget, reason, register_widgets, update_widget, violations,
    widget, widgets, Crd, TestServer,
};

#[tokio::test]
async fn only_accepted_served_versions_in_scope_are_served() {
    let t = TestServer::start().await;
    register_widgets(&t).await;
    let mut r = t.resources().await;
    let get =
        |reference: pb::ResourceRef| pb::GetResourceRequest { r#ref: Some(reference), resource_version: String::new() };
    let mut unknown = widgets("ns", "a");
    unknown.resource = "gadgets".into();
    let mut unserved = widgets("ns", "a");
    unserved.version = "v9".into();
    for (what, reference) in [("unknown", unknown), ("unserved", unserved), ("no namespace", widgets("", "a"))] {
        let err = r.get(get(reference)).await.unwrap_err();
        assert_eq!(err.code(), Code::NotFound, "{what}: {err:?}");
    }
    // A cluster-scoped definition refuses a namespace.
    let mut c = t.definitions().await;
    support::create(&mut c, &Crd::new("example.com", "Cluster").set("/spec/scope", json!("Cluster"))).await;
    let mut clusters = widgets("ns", "");
    clusters.resource = "clusters".into();
    let obj = json!({"apiVersion": "example.com/v1", "kind": "Cluster", "metadata": {"name": "c1"}});
    let req = |reference: pb::ResourceRef| pb::CreateResourceRequest {
        r#ref: Some(reference),
        object: serde_json::to_vec(&obj).unwrap(),
        options: None,
    };
    assert_eq!(r.create(req(clusters.clone())).await.unwrap_err().code(), Code::NotFound);
    clusters.namespace = String::new();
    let created = support::parse(&r.create(req(clusters)).await.unwrap().into_inner().object);
    assert!(created["metadata"].get("namespace").is_none());
}

#[tokio::test]
async fn create_sets_server_fields_and_names() {
    let t = TestServer::start().await;
    register_widgets(&t).await;
    let mut r = t.resources().await;
    let mut body = widget("a", json!({"size": 9223372036854775807i64}));
    body["metadata"]["uid"] = json!("forged");
    body["metadata"]["generation"] = json!(42);
    let created = create_widget(&mut r, "ns", &body).await.unwrap();
    assert_ne!(created["metadata"]["uid"], "forged");
    assert_eq!(created["metadata"]["generation"], 1);
    assert_eq!(created["metadata"]["namespace"], "ns");
    assert!(created["metadata"]["creationTimestamp"].is_string());
    assert_eq!(created["spec"]["size"], json!(i64::MAX), "integers round-trip exactly");
    let err = create_widget(&mut r, "ns", &widget("a", json!({}))).await.unwrap_err();
    assert_eq!((err.code(), reason(&err).as_str()), (Code::AlreadyExists, "AlreadyExists"));

    let generated = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"generateName": "gen-"}});
    let one = create_widget(&mut r, "ns", &generated).await.unwrap();
    let two = create_widget(&mut r, "ns", &generated).await.unwrap();
    let name = one["metadata"]["name"].as_str().unwrap();
    assert!(name.starts_with("gen-") && name.len() == 9, "{name}");
    assert_ne!(one["metadata"]["name"], two["metadata"]["name"]);

    let mut with_rv = widget("b", json!({}));
    with_rv["metadata"]["resourceVersion"] = json!("5");
    let err = create_widget(&mut r, "ns", &with_rv).await.unwrap_err();
    assert_eq!(err.message(), "resourceVersion should not be set on objects to be created");
    let err = create_widget(&mut r, "ns", &widget("Not_A_Name", json!({}))).await.unwrap_err();
    assert_eq!(violations(&err), ["metadata.name"]);
    let mut wrong_version = widget("c", json!({}));
    wrong_version["apiVersion"] = json!("example.com/v2");
    let err = create_widget(&mut r, "ns", &wrong_version).await.unwrap_err();
    assert_eq!(reason(&err), "BadRequest");
    assert!(err.message().contains("does not match the expected API version (example.com/v1)"));
    let mut wrong_kind = widget("c", json!({}));
    wrong_kind["kind"] = json!("Gadget");
    let err = create_widget(&mut r, "ns", &wrong_kind).await.unwrap_err();
    assert_eq!((reason(&err).as_str(), violations(&err)), ("Invalid", vec!["kind".to_string()]));
    let mut bad_labels = widget("c", json!({}));
    bad_labels["metadata"]["labels"] = json!({"bad key": "x", "ok": "-bad-value"});
    let err = create_widget(&mut r, "ns", &bad_labels).await.unwrap_err();
    assert_eq!(violations(&err), ["metadata.labels", "metadata.labels"], "{}", err.message());
    let mut wrong_ns = widget("c", json!({}));
    wrong_ns["metadata"]["namespace"] = json!("other");
    let err = create_widget(&mut r, "ns", &wrong_ns).await.unwrap_err();
    assert_eq!(reason(&err), "BadRequest");
}

#[tokio::test]
async fn objects_are_stored_once_and_read_at_any_served_version() {
    let t = TestServer::start().await;
    register_widgets(&t).await;
    let mut r = t.resources().await;
    create_widget(&mut r, "ns", &widget("a", json!({"x": 1}))).await.unwrap();
    let mut at_v2 = widgets("ns", "a");
    at_v2.version = "v2".into();
    let obj = support::parse(
        &r.get(pb::GetResourceRequest { r#ref: Some(at_v2), resource_version: String::new() })
            .await
            .unwrap()
            .into_inner()
            .object,
    );
    assert_eq!(obj["apiVersion"], "example.com/v2");
    assert_eq!(obj["spec"]["x"], 1);
}

#[tokio::test]
async fn updates_follow_kubernetes_rules() {
    let t = TestServer::start().await;
    register_widgets(&t).await;
    let mut r = t.resources().await;
    let created = create_widget(&mut r, "ns", &widget("a", json!({"x": 1}))).await.unwrap();

    let mut no_rv = created.clone();
    no_rv["metadata"].as_object_mut().unwrap().remove("resourceVersion");
    let err = update_widget(&mut r, "ns", &no_rv).await.unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert_eq!(err.message(), "Widget.example.com \"a\" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update");

    let mut labelled = created.clone();
    labelled["metadata"]["labels"] = json!({"tier": "gold"});
    labelled["metadata"]["uid"] = created["metadata"]["uid"].clone();
    let after_labels = update_widget(&mut r, "ns", &labelled).await.unwrap();
    assert_eq!(after_labels["metadata"]["generation"], 1, "labels alone keep the generation");
    let err = update_widget(&mut r, "ns", &labelled).await.unwrap_err();
    assert_eq!(err.code(), Code::Aborted);
    assert_eq!(
        err.message(),
        "Operation cannot be fulfilled on widgets.example.com \"a\": the object has been modified; please apply your \
         changes to the latest version and try again"
    );
    let same = update_widget(&mut r, "ns", &after_labels).await.unwrap();
    assert_eq!(same["metadata"]["resourceVersion"], after_labels["metadata"]["resourceVersion"], "no-op keeps it");

    let mut spec = after_labels.clone();
    spec["spec"]["x"] = json!(2);
    spec["metadata"]["creationTimestamp"] = json!("1999-01-01T00:00:00Z");
    let after_spec = update_widget(&mut r, "ns", &spec).await.unwrap();
    assert_eq!(after_spec["metadata"]["generation"], 2);
    assert_eq!(after_spec["metadata"]["creationTimestamp"], created["metadata"]["creationTimestamp"]);

    let mut other_uid = after_spec.clone();
    other_uid["metadata"]["uid"] = json!("someone-else");
    let err = update_widget(&mut r, "ns", &other_uid).await.unwrap_err();
    assert_eq!(err.code(), Code::Aborted);
    assert!(err.message().contains("Precondition failed: UID in precondition"));

    let mut missing = after_spec.clone();
    missing["metadata"]["name"] = json!("ghost");
    assert_eq!(update_widget(&mut r, "ns", &missing).await.unwrap_err().code(), Code::NotFound, "update never creates");
    let mut renamed = after_spec.clone();
    renamed["metadata"]["name"] = json!("b");
    let req = pb::UpdateResourceRequest {
        r#ref: Some(widgets("ns", "a")),
        object: serde_json::to_vec(&renamed).unwrap(),
        options: None,
    };
    assert_eq!(reason(&r.update(req).await.unwrap_err()), "BadRequest", "the name cannot change");
}

#[tokio::test]
async fn patches_merge_and_json_with_preconditions() {
    let t = TestServer::start().await;
    register_widgets(&t).await;
    let mut r = t.resources().await;
    let created = create_widget(&mut r, "ns", &widget("a", json!({"x": 1, "y": 2}))).await.unwrap();
    let merged =
        patch_widget(&mut r, "ns", "a", pb::PatchType::Merge, r#"{"spec": {"x": 5, "y": null}}"#).await.unwrap();
    assert_eq!(merged["spec"], json!({"x": 5}));
    assert_eq!(merged["metadata"]["generation"], 2);
    let same = patch_widget(&mut r, "ns", "a", pb::PatchType::Merge, r#"{"spec": {"x": 5}}"#).await.unwrap();
    assert_eq!(same["metadata"]["resourceVersion"], merged["metadata"]["resourceVersion"], "a no-op patch keeps it");
    let json_patched =
        patch_widget(&mut r, "ns", "a", pb::PatchType::Json, r#"[{"op": "add", "path": "/spec/z", "value": 3}]"#)
            .await
            .unwrap();
    assert_eq!(json_patched["spec"]["z"], 3);

    let stale = format!(
        r#"{{"metadata": {{"resourceVersion": "{}"}}, "spec": {{"x": 6}}}}"#,
        created["metadata"]["resourceVersion"].as_str().unwrap()
    );
    let err = patch_widget(&mut r, "ns", "a", pb::PatchType::Merge, &stale).await.unwrap_err();
    assert_eq!(err.code(), Code::Aborted, "a resourceVersion in the patch is a precondition");
    let err =
        patch_widget(&mut r, "ns", "a", pb::PatchType::Json, r#"[{"op": "test", "path": "/spec/x", "value": 99}]"#)
            .await
            .unwrap_err();
    assert_eq!((err.code(), reason(&err).as_str()), (Code::InvalidArgument, "Invalid"));
    let err = patch_widget(&mut r, "ns", "a", pb::PatchType::Json, r#"{"op": "add"}"#).await.unwrap_err();
    assert_eq!((err.code(), reason(&err).as_str()), (Code::InvalidArgument, "BadRequest"));
    let err = patch_widget(&mut r, "ns", "a", pb::PatchType::StrategicMerge, "{}").await.unwrap_err();
    assert_eq!(reason(&err), "UnsupportedMediaType");
    assert!(err.message().ends_with("accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"), "{}", err.message());
}

#[tokio::test]
async fn finalizers_hold_deletion_until_removed() {
    let t = TestServer::start().await;
    register_widgets(&t).await;
    let mut r = t.resources().await;
    let mut body = widget("a", json!({}));
    body["metadata"]["finalizers"] = json!(["example.com/hold"]);
    let created = create_widget(&mut r, "ns", &body).await.unwrap();
    let err = r
        .delete(pb::DeleteResourceRequest {
            r#ref: Some(widgets("ns", "a")),
            options: Some(pb::DeleteOptions { precondition_uid: "nope".into(), ..Default::default() }),
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Aborted);
    let marked = delete_widget(&mut r, "ns", "a").await.unwrap();
    assert!(!marked.deleted);
    let obj = support::parse(&marked.object);
    assert!(obj["metadata"]["deletionTimestamp"].is_string());
    assert_eq!(obj["metadata"]["deletionGracePeriodSeconds"], 0);
    assert_eq!(obj["metadata"]["generation"], 2);
    let again = support::parse(&delete_widget(&mut r, "ns", "a").await.unwrap().object);
    assert_eq!(again["metadata"]["generation"], 2, "generation grows the first time only");

    let current = get_widget(&mut r, "ns", "a").await.unwrap();
    let mut more = current.clone();
    more["metadata"]["finalizers"] = json!(["example.com/hold", "example.com/late"]);
    let err = update_widget(&mut r, "ns", &more).await.unwrap_err();
    assert!(
        err.message().contains("no new finalizers can be added if the object is being deleted"),
        "{}",
        err.message()
    );
    patch_widget(&mut r, "ns", "a", pb::PatchType::Merge, r#"{"metadata": {"finalizers": null}}"#).await.unwrap();
    assert_eq!(
        get_widget(&mut r, "ns", "a").await.unwrap_err().code(),
        Code::NotFound,
        "the last finalizer removed it"
    );
    assert!(created["metadata"]["uid"].is_string());
}

#[tokio::test]
async fn delete_collection_applies_selectors() {
    let t = TestServer::start().await;
    register_widgets(&t).await;
    let mut r = t.resources().await;
    for (ns, name, color) in [("a", "one", "red"), ("a", "two", "blue"), ("b", "three", "red")] {
        let mut body = widget(name, json!({}));
        body["metadata"]["labels"] = json!({"color": color});
        create_widget(&mut r, ns, &body).await.unwrap();
    }
    let deleted = r
        .delete_collection(pb::DeleteCollectionRequest {
            r#ref: Some(widgets("", "")),
            list_options: Some(pb::ListOptions { label_selector: "color=red".into(), ..Default::default() }),
            options: None,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(deleted.items.len(), 2);
    assert!(get_widget(&mut r, "a", "two").await.is_ok());
    assert_eq!(get_widget(&mut r, "b", "three").await.unwrap_err().code(), Code::NotFound);
}

#[tokio::test]
async fn gets_honour_a_minimum_resource_version() {
    let t = TestServer::start().await;
    register_widgets(&t).await;
    let mut r = t.resources().await;
    let created = create_widget(&mut r, "ns", &widget("a", json!({}))).await.unwrap();
    let get = |rv: &str| pb::GetResourceRequest { r#ref: Some(widgets("ns", "a")), resource_version: rv.into() };
    let rv = created["metadata"]["resourceVersion"].as_str().unwrap().to_string();
    assert!(r.get(get(&rv)).await.is_ok());
    assert!(r.get(get("0")).await.is_ok());
    let err = r.get(get("999999")).await.unwrap_err();
    assert_eq!((err.code(), reason(&err).as_str()), (Code::DeadlineExceeded, "Timeout"));
    assert!(err.message().starts_with("Timeout: Too large resource version: 999999"), "{}", err.message());
    assert_eq!(reason(&r.get(get("abc")).await.unwrap_err()), "BadRequest");
}

#[tokio::test]
async fn bodies_over_three_mebibytes_are_refused() {
    let t = TestServer::start().await;
    register_widgets(&t).await;
    let mut r = t.resources().await;
    let big = widget("big", json!({"blob": "x".repeat(3 * 1024 * 1024)}));
    let err = create_widget(&mut r, "ns", &big).await.unwrap_err();
    assert_eq!(reason(&err), "RequestEntityTooLarge");
    assert!(err.message().contains("limit is 3145728"));
    assert_eq!(get_widget(&mut r, "ns", "big").await.unwrap_err().code(), Code::NotFound);
}

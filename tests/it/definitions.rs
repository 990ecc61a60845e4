//! Definitions through the real gRPC server: server-set fields, validation
//! with field paths, updates and immutability, stored versions, names across
//! a group, lists, watches and deletes.

use crdstore::pb::v1 as pb;
use serde_json::{json, Value};
use tonic::Code;

use crate::support::{self, condition, create, get, reason, update, version, violations, Crd, Http, TestServer};

#[tokio::test]
async fn create_sets_server_fields_defaults_and_conditions() {
    let t = TestServer::start().await;
    let mut c = t.definitions().await;
    let crd = Crd::new("stable.example.com", "CronTab").set(
        "/metadata",
        json!({"name": "crontabs.stable.example.com", "uid": "forged", "generation": 7, "labels": {"team": "a"}}),
    );
    let mut body = crd.value.clone();
    body["status"] = json!({"storedVersions": ["bogus"], "conditions": [{"type": "Established", "status": "False"}]});
    let created = support::parse(
        &c.create(pb::CreateDefinitionRequest { definition: serde_json::to_vec(&body).unwrap(), options: None })
            .await
            .unwrap()
            .into_inner()
            .definition,
    );
    let meta = &created["metadata"];
    assert_ne!(meta["uid"], "forged");
    assert_eq!(meta["uid"].as_str().unwrap().len(), 36);
    assert_eq!(meta["generation"], 1);
    assert!(meta["creationTimestamp"].as_str().unwrap().ends_with('Z'));
    assert!(meta["resourceVersion"].as_str().unwrap().parse::<i64>().unwrap() > 0);
    assert_eq!(meta["labels"]["team"], "a");
    assert_eq!(created["spec"]["names"]["singular"], "crontab");
    assert_eq!(created["spec"]["names"]["listKind"], "CronTabList");
    assert_eq!(created["spec"]["conversion"]["strategy"], "None");
    assert_eq!(created["status"]["storedVersions"], json!(["v1"]));
    assert_eq!(created["status"]["acceptedNames"]["plural"], "crontabs");
    assert_eq!(condition(&created, "NamesAccepted")["status"], "True");
    assert_eq!(condition(&created, "NamesAccepted")["reason"], "NoConflicts");
    assert_eq!(condition(&created, "Established")["status"], "True");
    assert_eq!(get(&mut c, "crontabs.stable.example.com").await, created);
}

#[tokio::test]
async fn a_second_create_of_the_same_name_already_exists() {
    let t = TestServer::start().await;
    let mut c = t.definitions().await;
    let crd = Crd::new("example.com", "Widget");
    create(&mut c, &crd).await;
    let err = c.create(pb::CreateDefinitionRequest { definition: crd.bytes(), options: None }).await.unwrap_err();
    assert_eq!(err.code(), Code::AlreadyExists);
    assert_eq!(reason(&err), "AlreadyExists");
    assert_eq!(err.message(), "customresourcedefinitions.apiextensions.k8s.io \"widgets.example.com\" already exists");
}

#[tokio::test]
async fn every_violation_is_reported_at_its_field_path() {
    let t = TestServer::start().await;
    let mut c = t.definitions().await;
    let mut bad_version = version("V1", true);
    bad_version["subresources"] =
        json!({"scale": {"specReplicasPath": ".status.replicas", "statusReplicasPath": "status.replicas"}});
    bad_version["additionalPrinterColumns"] =
        json!([{"name": "Age", "type": "duration", "jsonPath": ".metadata.creationTimestamp"}]);
    let mut no_schema = version("v2", true);
    no_schema.as_object_mut().unwrap().remove("schema");
    let crd = Crd::new("nodot", "Gadget")
        .set("/metadata/name", json!("wrong.name"))
        .set("/spec/scope", json!("Global"))
        .set("/spec/names/listKind", json!("Gadget"))
        .set("/spec/conversion", json!({"strategy": "Webhook"}))
        .versions(vec![bad_version, no_schema, version("v2", false)]);
    let err = c.create(pb::CreateDefinitionRequest { definition: crd.bytes(), options: None }).await.unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert_eq!(reason(&err), "Invalid");
    // gRPC carries the first causes (its status must fit the trailers a
    // C-core client accepts); HTTP carries them all.
    let (status, body) = Http::new(&t).post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd.value).await;
    assert_eq!(status, reqwest::StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    let fields: Vec<String> = body["details"]["causes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["field"].as_str().unwrap().to_string())
        .collect();
    let over_grpc = violations(&err);
    assert!(over_grpc.len() > 3 && fields.starts_with(&over_grpc), "{over_grpc:?} {fields:?}");
    let message = body["message"].as_str().unwrap();
    assert!(err.message().starts_with(&message[..200]), "{}", err.message());
    for expected in [
        "metadata.name",
        "spec.group",
        "spec.scope",
        "spec.names.listKind",
        "spec.versions",
        "spec.versions[0].name",
        "spec.versions[0].subresources.scale.specReplicasPath",
        "spec.versions[0].subresources.scale.statusReplicasPath",
        "spec.versions[0].additionalPrinterColumns[0].type",
        "spec.versions[1].schema.openAPIV3Schema",
        "spec.versions[2].name",
        "spec.conversion.webhook",
    ] {
        assert!(fields.iter().any(|f| f == expected), "no violation at {expected}: {fields:?}");
    }
    assert!(
        message.contains("spec.scope: Unsupported value: \"Global\": supported values: \"Cluster\", \"Namespaced\""),
        "{message}"
    );
    assert!(message.contains("spec.versions[2].name: Duplicate value: \"v2\""), "{message}");
    assert!(message.contains("should be a json path under .spec"), "{message}");
    // Nothing was written.
    let list = c.list(pb::ListDefinitionsRequest { options: None }).await.unwrap().into_inner();
    assert!(list.items.is_empty());
}

#[tokio::test]
async fn malformed_bodies_are_bad_requests_naming_the_problem() {
    let t = TestServer::start().await;
    let mut c = t.definitions().await;
    let err =
        c.create(pb::CreateDefinitionRequest { definition: b"{not json".to_vec(), options: None }).await.unwrap_err();
    assert_eq!((err.code(), reason(&err).as_str()), (Code::InvalidArgument, "BadRequest"));
    let wrong_type = br#"{"spec": {"versions": {"name": "v1"}}}"#.to_vec();
    let err = c.create(pb::CreateDefinitionRequest { definition: wrong_type, options: None }).await.unwrap_err();
    assert!(err.message().contains("spec.versions"), "{}", err.message());
}

#[tokio::test]
async fn updates_need_a_current_resource_version() {
    let t = TestServer::start().await;
    let mut c = t.definitions().await;
    let created = create(&mut c, &Crd::new("example.com", "Widget")).await;
    let mut body = created.clone();
    body["metadata"].as_object_mut().unwrap().remove("resourceVersion");
    let err = update(&mut c, &body).await.unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(
        err.message().ends_with("metadata.resourceVersion: Invalid value: 0x0: must be specified for an update"),
        "{}",
        err.message()
    );
    let mut body = created.clone();
    body["metadata"]["labels"] = json!({"a": "b"});
    update(&mut c, &body).await.unwrap();
    let err = update(&mut c, &body).await.unwrap_err();
    assert_eq!((err.code(), reason(&err).as_str()), (Code::Aborted, "Conflict"));
    assert_eq!(
        err.message(),
        "Operation cannot be fulfilled on customresourcedefinitions.apiextensions.k8s.io \"widgets.example.com\": \
         the object has been modified; please apply your changes to the latest version and try again"
    );
    let mut missing = created.clone();
    missing["metadata"]["name"] = json!("gizmos.example.com");
    assert_eq!(update(&mut c, &missing).await.unwrap_err().code(), Code::NotFound);
}

#[tokio::test]
async fn generation_grows_only_with_the_spec_and_no_op_updates_keep_the_version() {
    let t = TestServer::start().await;
    let mut c = t.definitions().await;
    let created = create(&mut c, &Crd::new("example.com", "Widget")).await;
    let mut body = created.clone();
    body["metadata"]["labels"] = json!({"tier": "gold"});
    body["status"] = json!({"storedVersions": ["v9"]});
    let labelled = update(&mut c, &body).await.unwrap();
    assert_eq!(labelled["metadata"]["generation"], 1);
    assert_eq!(labelled["status"]["storedVersions"], json!(["v1"]), "status is ignored on the main endpoint");
    assert_ne!(labelled["metadata"]["resourceVersion"], created["metadata"]["resourceVersion"]);
    let again = update(&mut c, &labelled).await.unwrap();
    assert_eq!(again["metadata"]["resourceVersion"], labelled["metadata"]["resourceVersion"], "a no-op keeps it");
    let mut body = again.clone();
    body["spec"]["names"]["shortNames"] = json!(["wd"]);
    let changed = update(&mut c, &body).await.unwrap();
    assert_eq!(changed["metadata"]["generation"], 2);
    assert_eq!(changed["metadata"]["uid"], created["metadata"]["uid"]);
    assert_eq!(changed["metadata"]["creationTimestamp"], created["metadata"]["creationTimestamp"]);
}

#[tokio::test]
async fn group_plural_scope_and_kind_are_immutable() {
    let t = TestServer::start().await;
    let mut c = t.definitions().await;
    let created = create(&mut c, &Crd::new("example.com", "Widget")).await;
    let mut body = created.clone();
    body["spec"]["group"] = json!("other.example.com");
    body["spec"]["names"]["plural"] = json!("things");
    body["spec"]["scope"] = json!("Cluster");
    body["spec"]["names"]["kind"] = json!("Thing");
    let err = update(&mut c, &body).await.unwrap_err();
    let fields = violations(&err);
    for field in ["spec.group", "spec.names.plural", "spec.scope", "spec.names.kind"] {
        assert!(fields.iter().any(|f| f == field), "{field} not refused: {fields:?}");
    }
    assert!(err.message().contains("field is immutable"));
}

#[tokio::test]
async fn stored_versions_grow_and_guard_removal_until_trimmed() {
    let t = TestServer::start().await;
    let mut c = t.definitions().await;
    let created = create(&mut c, &Crd::new("example.com", "Widget")).await;
    let mut body = created.clone();
    body["spec"]["versions"] = json!([version("v1", false), version("v2", true)]);
    let moved = update(&mut c, &body).await.unwrap();
    assert_eq!(moved["status"]["storedVersions"], json!(["v1", "v2"]));
    let mut body = moved.clone();
    body["spec"]["versions"] = json!([version("v2", true)]);
    let err = update(&mut c, &body).await.unwrap_err();
    assert_eq!(violations(&err), ["status.storedVersions[0]"]);
    assert!(
        err.message().contains("missing from spec.versions; v1 was previously a storage version"),
        "{}",
        err.message()
    );

    let mut status = moved.clone();
    status["status"]["storedVersions"] = json!([]);
    let req =
        |v: &Value| pb::UpdateDefinitionStatusRequest { definition: serde_json::to_vec(v).unwrap(), options: None };
    let err = c.update_status(req(&status)).await.unwrap_err();
    assert!(err.message().contains("must have at least one stored version"), "{}", err.message());
    status["status"]["storedVersions"] = json!(["v2"]);
    status["spec"]["names"]["shortNames"] = json!(["ignored"]);
    let trimmed = support::parse(&c.update_status(req(&status)).await.unwrap().into_inner().definition);
    assert_eq!(trimmed["status"]["storedVersions"], json!(["v2"]));
    assert!(trimmed["spec"]["names"].get("shortNames").is_none(), "status updates change only status");
    let removed = update(&mut c, &{
        let mut b = trimmed.clone();
        b["spec"]["versions"] = json!([version("v2", true)]);
        b
    })
    .await
    .unwrap();
    assert_eq!(removed["spec"]["versions"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn conflicting_names_are_reported_and_freed_names_are_granted() {
    let t = TestServer::start().await;
    let mut c = t.definitions().await;
    let first = Crd::new("example.com", "Widget").short_names(&["wd"]);
    create(&mut c, &first).await;
    let second = Crd::new("example.com", "Gizmo").short_names(&["wd", "gz"]).singular("widget");
    let loser = create(&mut c, &second).await;
    let accepted = condition(&loser, "NamesAccepted");
    assert_eq!(accepted["status"], "False");
    assert_eq!(accepted["reason"], "ShortNamesConflict");
    assert_eq!(accepted["message"], "\"wd\" is already in use");
    assert_eq!(loser["status"]["acceptedNames"]["plural"], "gizmos", "names that do not conflict are accepted");
    assert!(loser["status"]["acceptedNames"].get("singular").is_none());
    assert_eq!(condition(&loser, "Established")["status"], "False");

    let third = Crd::new("example.com", "Widget")
        .plural("widgets2")
        .singular("widget2")
        .set("/spec/names/listKind", json!("Widget2List"));
    let kind_loser = create(&mut c, &third).await;
    assert_eq!(condition(&kind_loser, "NamesAccepted")["reason"], "KindConflict");
    assert_eq!(condition(&kind_loser, "NamesAccepted")["message"], "\"Widget\" is already in use");

    let other_group = create(&mut c, &Crd::new("other.example.com", "Widget").short_names(&["wd"])).await;
    assert_eq!(condition(&other_group, "NamesAccepted")["status"], "True", "names are per group");

    c.delete(pb::DeleteDefinitionRequest { name: first.name(), options: None }).await.unwrap();
    let winner = get(&mut c, &second.name()).await;
    assert_eq!(condition(&winner, "NamesAccepted")["status"], "True");
    assert_eq!(condition(&winner, "Established")["status"], "True");
    assert_eq!(winner["status"]["acceptedNames"]["shortNames"], json!(["wd", "gz"]));
    assert_eq!(winner["status"]["acceptedNames"]["singular"], "widget");
    let kind_winner = get(&mut c, &third.name()).await;
    assert_eq!(condition(&kind_winner, "NamesAccepted")["status"], "True");
}

#[tokio::test]
async fn lists_page_at_one_revision_and_filter() {
    let t = TestServer::start().await;
    let mut c = t.definitions().await;
    for kind in ["Alpha", "Bravo", "Charlie", "Delta", "Echo"] {
        let crd = Crd::new("example.com", kind)
            .set("/metadata/labels", json!({"vowel": (kind == "Alpha" || kind == "Echo").to_string()}));
        create(&mut c, &crd).await;
    }
    let list = |options: pb::ListOptions| pb::ListDefinitionsRequest { options: Some(options) };
    let first = c.list(list(pb::ListOptions { limit: 2, ..Default::default() })).await.unwrap().into_inner();
    assert_eq!(first.items.len(), 2);
    assert!(!first.continue_token.is_empty());
    create(&mut c, &Crd::new("example.com", "Foxtrot")).await;
    let mut names = Vec::new();
    let mut page = first;
    loop {
        names.extend(page.items.iter().map(|i| support::parse(i)["metadata"]["name"].as_str().unwrap().to_string()));
        if page.continue_token.is_empty() {
            break;
        }
        let next = pb::ListOptions { limit: 2, continue_token: page.continue_token.clone(), ..Default::default() };
        let rv = page.resource_version.clone();
        page = c.list(list(next)).await.unwrap().into_inner();
        assert_eq!(page.resource_version, rv, "every page is at the first page's revision");
    }
    assert_eq!(names.len(), 5, "created after the first page, not in this list: {names:?}");
    let vowels = c
        .list(list(pb::ListOptions { label_selector: "vowel=true".into(), ..Default::default() }))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(vowels.items.len(), 2);
    let named = c
        .list(list(pb::ListOptions { field_selector: "metadata.name=bravos.example.com".into(), ..Default::default() }))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(named.items.len(), 1);
    let err = c
        .list(list(pb::ListOptions { label_selector: "vowel in true".into(), ..Default::default() }))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    let err = c
        .list(list(pb::ListOptions { field_selector: "spec.group=x".into(), ..Default::default() }))
        .await
        .unwrap_err();
    assert_eq!(err.message(), "field label not supported: spec.group");
}

#[tokio::test]
async fn integers_round_trip_exactly() {
    let t = TestServer::start().await;
    let mut c = t.definitions().await;
    let schema = json!({"type": "object", "properties": {"n": {"type": "integer", "default": 9223372036854775807i64}}});
    let crd = Crd::new("example.com", "Widget").set("/spec/versions/0/schema/openAPIV3Schema", schema);
    let created = create(&mut c, &crd).await;
    let raw = c.get(pb::GetDefinitionRequest { name: crd.name() }).await.unwrap().into_inner().definition;
    assert!(String::from_utf8(raw).unwrap().contains("9223372036854775807"));
    assert_eq!(
        created["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["n"]["default"],
        json!(i64::MAX)
    );
}

#[tokio::test]
async fn deletes_honour_preconditions() {
    let t = TestServer::start().await;
    let mut c = t.definitions().await;
    let created = create(&mut c, &Crd::new("example.com", "Widget")).await;
    let name = "widgets.example.com".to_string();
    let delete = |uid: &str, rv: &str| pb::DeleteDefinitionRequest {
        name: name.clone(),
        options: Some(pb::DeleteOptions {
            precondition_uid: uid.into(),
            precondition_resource_version: rv.into(),
            ..Default::default()
        }),
    };
    let err = c.delete(delete("other-uid", "")).await.unwrap_err();
    assert_eq!(err.code(), Code::Aborted);
    assert!(err.message().contains("Precondition failed: UID in precondition: other-uid"), "{}", err.message());
    assert_eq!(c.delete(delete("", "999")).await.unwrap_err().code(), Code::Aborted);
    let rv = created["metadata"]["resourceVersion"].as_str().unwrap();
    let uid = created["metadata"]["uid"].as_str().unwrap();
    let gone = c.delete(delete(uid, rv)).await.unwrap().into_inner();
    assert!(gone.deleted);
    let err = c.get(pb::GetDefinitionRequest { name: name.clone() }).await.unwrap_err();
    assert_eq!((err.code(), reason(&err).as_str()), (Code::NotFound, "NotFound"));
    assert_eq!(err.message(), "customresourcedefinitions.apiextensions.k8s.io \"widgets.example.com\" not found");
    assert_eq!(c.delete(delete("", "")).await.unwrap_err().code(), Code::NotFound);
}

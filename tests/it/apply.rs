//! Server-side apply over HTTP (issue 20): apply creates, merges by the
//! schema's list and map types, removes what a manager stops applying,
//! conflicts with Kubernetes' message and causes or forces; every write
//! records managedFields; the status subresource and definitions apply too.

use reqwest::header::{CONTENT_TYPE, USER_AGENT};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::support::{version, Crd, Http, TestServer};

const APPLY: &str = "application/apply-patch+yaml";
const WIDGETS: &str = "/apis/ssa.example.com/v1/namespaces/ns/widgets";

impl Http {
    async fn send_as(
        &self,
        method: Method,
        path: &str,
        content_type: &str,
        body: Vec<u8>,
        agent: &str,
    ) -> (StatusCode, Value) {
        let mut request = self.client.request(method, format!("{}{path}", self.base)).header(USER_AGENT, agent);
        if !content_type.is_empty() {
            request = request.header(CONTENT_TYPE, content_type).body(body);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        (status, serde_json::from_slice(&response.bytes().await.unwrap()).unwrap_or(Value::Null))
    }

    async fn apply(&self, path: &str, manager: &str, force: bool, obj: &Value) -> (StatusCode, Value) {
        let query = format!("{path}?fieldManager={manager}&force={force}");
        self.send_as(Method::PATCH, &query, APPLY, serde_json::to_vec(obj).unwrap(), "test/1").await
    }

    async fn object(&self, path: &str) -> Value {
        let (status, body) = self.send_as(Method::GET, path, "", Vec::new(), "test/1").await;
        assert_eq!(status, StatusCode::OK, "{body}");
        body
    }
}

fn schema() -> Value {
    json!({"type": "object", "properties": {
        "spec": {"type": "object", "properties": {
            "replicas": {"type": "integer", "minimum": 0},
            "image": {"type": "string"},
            "args": {"type": "array", "items": {"type": "string"}},
            "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
            "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                "items": {"type": "object", "required": ["name"],
                    "properties": {"name": {"type": "string"}, "port": {"type": "integer"}}}},
            "selector": {"type": "object", "x-kubernetes-map-type": "atomic",
                "additionalProperties": {"type": "string"}},
            "mode": {"type": "string", "default": "auto"}}},
        "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}}}})
}

async fn register(http: &Http) {
    let mut v1 = version("v1", true);
    v1["schema"] = json!({"openAPIV3Schema": schema()});
    v1["subresources"] = json!({"status": {}});
    let crd = Crd::new("ssa.example.com", "Widget").versions(vec![v1]);
    let (status, body) = http
        .send_as(
            Method::POST,
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
            "application/json",
            crd.bytes(),
            "t",
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    for _ in 0..100 {
        let (status, _) = http.send_as(Method::GET, WIDGETS, "", Vec::new(), "t").await;
        if status == StatusCode::OK {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("widgets never served");
}

fn widget(spec: Value) -> Value {
    json!({"apiVersion": "ssa.example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "ns"}, "spec": spec})
}

/// The managers of an object with their operation and fields.
fn managers(obj: &Value) -> Vec<(String, String, Value)> {
    obj["metadata"]["managedFields"]
        .as_array()
        .map(|l| {
            l.iter()
                .map(|e| {
                    (
                        e["manager"].as_str().unwrap().into(),
                        e["operation"].as_str().unwrap().into(),
                        e["fieldsV1"].clone(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

async fn still_serves(http: &Http) {
    http.object(WIDGETS).await;
}

#[tokio::test]
async fn apply_creates_conflicts_and_forces() {
    let t = TestServer::start().await;
    let http = Http::new(&t);
    register(&http).await;
    let path = format!("{WIDGETS}/w");
    let (status, created) = http.apply(&path, "m1", false, &widget(json!({"replicas": 1, "image": "a"}))).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(created["spec"], json!({"replicas": 1, "image": "a", "mode": "auto"}), "defaults apply to the merge");
    assert_eq!(
        managers(&created),
        vec![("m1".into(), "Apply".into(), json!({"f:spec": {"f:image": {}, "f:replicas": {}}}))]
    );
    let entry = &created["metadata"]["managedFields"][0];
    assert_eq!(entry["apiVersion"], "ssa.example.com/v1");
    assert_eq!(entry["fieldsType"], "FieldsV1");
    assert!(entry["time"].as_str().unwrap().ends_with('Z'));

    let (status, err) = http.apply(&path, "m2", false, &widget(json!({"replicas": 2, "image": "a"}))).await;
    assert_eq!(status, StatusCode::CONFLICT, "{err}");
    assert_eq!(err["reason"], "Conflict");
    assert_eq!(err["message"], "Apply failed with 1 conflict: conflict with \"m1\": .spec.replicas");
    assert_eq!(
        err["details"]["causes"],
        json!([{"reason": "FieldManagerConflict", "message": "conflict with \"m1\"", "field": ".spec.replicas"}])
    );
    let (status, err) = http.apply(&path, "m2", false, &widget(json!({"replicas": 2, "image": "b"}))).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(
        err["message"],
        "Apply failed with 2 conflicts: conflicts with \"m1\":\n- .spec.image\n- .spec.replicas"
    );

    let (status, forced) = http.apply(&path, "m2", true, &widget(json!({"replicas": 2}))).await;
    assert_eq!(status, StatusCode::OK, "{forced}");
    assert_eq!(forced["spec"]["replicas"], 2);
    assert_eq!(
        managers(&forced),
        vec![
            ("m1".into(), "Apply".into(), json!({"f:spec": {"f:image": {}}})),
            ("m2".into(), "Apply".into(), json!({"f:spec": {"f:replicas": {}}}))
        ]
    );
    still_serves(&http).await;
}

#[tokio::test]
async fn apply_merges_by_list_type_and_removes_what_is_no_longer_applied() {
    let t = TestServer::start().await;
    let http = Http::new(&t);
    register(&http).await;
    let path = format!("{WIDGETS}/w");
    let first = widget(json!({"image": "a", "args": ["x"], "tags": ["a", "b"], "selector": {"k": "1", "j": "2"},
        "ports": [{"name": "http", "port": 80}, {"name": "admin", "port": 81}]}));
    assert_eq!(http.apply(&path, "m1", false, &first).await.0, StatusCode::CREATED);
    let second = widget(
        json!({"args": ["y"], "tags": ["c"], "selector": {"k": "9"}, "ports": [{"name": "metrics", "port": 90}]}),
    );
    let (status, merged) = http.apply(&path, "m2", true, &second).await;
    assert_eq!(status, StatusCode::OK, "{merged}");
    assert_eq!(merged["spec"]["args"], json!(["y"]), "atomic lists are replaced");
    assert_eq!(merged["spec"]["tags"], json!(["a", "b", "c"]), "sets merge by value");
    assert_eq!(merged["spec"]["selector"], json!({"k": "9"}), "atomic maps are replaced");
    assert_eq!(
        merged["spec"]["ports"],
        json!([{"name": "http", "port": 80}, {"name": "admin", "port": 81}, {"name": "metrics", "port": 90}])
    );
    // m1 stops applying the image, one tag and one port: they go; what m2
    // also applies stays.
    let third = widget(json!({"tags": ["a"], "ports": [{"name": "http", "port": 80}]}));
    let (status, pruned) = http.apply(&path, "m1", false, &third).await;
    assert_eq!(status, StatusCode::OK, "{pruned}");
    assert!(pruned["spec"].get("image").is_none(), "{pruned}");
    assert_eq!(pruned["spec"]["tags"], json!(["a", "c"]));
    assert_eq!(pruned["spec"]["ports"], json!([{"name": "http", "port": 80}, {"name": "metrics", "port": 90}]));
    assert_eq!(pruned["spec"]["args"], json!(["y"]), "m2's fields stay");
    still_serves(&http).await;
}

#[tokio::test]
async fn every_write_records_update_managers() {
    let t = TestServer::start().await;
    let http = Http::new(&t);
    register(&http).await;
    let body = serde_json::to_vec(&widget(json!({"replicas": 1}))).unwrap();
    let (status, created) =
        http.send_as(Method::POST, WIDGETS, "application/json", body, "kubectl/v1.34.0 (linux)").await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(
        managers(&created),
        vec![("kubectl".into(), "Update".into(), json!({"f:spec": {".": {}, "f:mode": {}, "f:replicas": {}}}))],
        "the manager is the User-Agent's prefix; defaults are the creator's, as the apiserver decodes them"
    );
    let path = format!("{WIDGETS}/w");
    let patch = serde_json::to_vec(&json!({"metadata": {"labels": {"a": "b"}}, "spec": {"replicas": 2}})).unwrap();
    let (status, patched) = http
        .send_as(Method::PATCH, &format!("{path}?fieldManager=ctl"), "application/merge-patch+json", patch, "x")
        .await;
    assert_eq!(status, StatusCode::OK, "{patched}");
    let mut found = managers(&patched);
    found.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        found,
        vec![
            (
                "ctl".into(),
                "Update".into(),
                json!({"f:metadata": {"f:labels": {".": {}, "f:a": {}}}, "f:spec": {"f:replicas": {}}})
            ),
            ("kubectl".into(), "Update".into(), json!({"f:spec": {".": {}, "f:mode": {}}}))
        ],
        "kubectl lost replicas to ctl"
    );
    let mut status_body = patched.clone();
    status_body["status"] = json!({"ready": true});
    let (status, with_status) = http
        .send_as(
            Method::PUT,
            &format!("{path}/status?fieldManager=op"),
            "application/json",
            serde_json::to_vec(&status_body).unwrap(),
            "x",
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{with_status}");
    let op =
        with_status["metadata"]["managedFields"].as_array().unwrap().iter().find(|e| e["manager"] == "op").unwrap();
    assert_eq!(op["subresource"], "status");
    assert_eq!(op["fieldsV1"], json!({"f:status": {".": {}, "f:ready": {}}}));

    // An empty list clears them; invalid ones are replaced, not trusted.
    let mut cleared = with_status.clone();
    cleared["metadata"]["managedFields"] = json!([]);
    let (status, cleared) =
        http.send_as(Method::PUT, &path, "application/json", serde_json::to_vec(&cleared).unwrap(), "x").await;
    assert_eq!(status, StatusCode::OK, "{cleared}");
    assert!(cleared["metadata"].get("managedFields").is_none(), "{cleared}");
    let mut invalid = cleared.clone();
    invalid["metadata"]["managedFields"] = json!([{"manager": "evil", "operation": "Steal", "fieldsType": "FieldsV1"}]);
    invalid["spec"]["replicas"] = json!(3);
    let (status, reset) = http
        .send_as(
            Method::PUT,
            &format!("{path}?fieldManager=fixer"),
            "application/json",
            serde_json::to_vec(&invalid).unwrap(),
            "x",
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{reset}");
    assert_eq!(
        managers(&reset),
        vec![("fixer".into(), "Update".into(), json!({"f:spec": {"f:replicas": {}}}))],
        "the cleared list stays cleared: only the new change is owned"
    );
    still_serves(&http).await;
}

#[tokio::test]
async fn the_status_endpoint_applies_status_only_and_apply_options_are_checked() {
    let t = TestServer::start().await;
    let http = Http::new(&t);
    register(&http).await;
    let path = format!("{WIDGETS}/w");
    let mut obj = widget(json!({"replicas": 1}));
    obj["status"] = json!({"ready": true});
    let (status, created) = http.apply(&path, "m1", false, &obj).await;
    assert_eq!(status, StatusCode::CREATED);
    assert!(created.get("status").is_none(), "the main endpoint does not write status");
    assert_eq!(managers(&created), vec![("m1".into(), "Apply".into(), json!({"f:spec": {"f:replicas": {}}}))]);
    let (status, with_status) = http.apply(&format!("{path}/status"), "op", false, &obj).await;
    assert_eq!(status, StatusCode::OK, "{with_status}");
    assert_eq!(with_status["status"], json!({"ready": true}));
    let op = &with_status["metadata"]["managedFields"][1];
    assert_eq!((op["manager"].as_str(), op["subresource"].as_str()), (Some("op"), Some("status")));
    assert_eq!(op["fieldsV1"], json!({"f:status": {"f:ready": {}}}));

    let bytes = serde_json::to_vec(&obj).unwrap();
    let (status, err) = http.send_as(Method::PATCH, &path, APPLY, bytes.clone(), "kubectl/1").await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{err}");
    assert_eq!(
        err["message"],
        "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch"
    );
    let long = "x".repeat(129);
    let (status, _) = http.send_as(Method::PATCH, &format!("{path}?fieldManager={long}"), APPLY, bytes, "k").await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    let (status, err) = http.apply(&path, "m1", false, &widget(json!({"replicas": -1}))).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "validation runs on the merge: {err}");
    let yaml =
        b"apiVersion: ssa.example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  namespace: ns\nspec:\n  replicas: 4\n"
            .to_vec();
    let (status, from_yaml) = http.send_as(Method::PATCH, &format!("{path}?fieldManager=m1"), APPLY, yaml, "k").await;
    assert_eq!(status, StatusCode::OK, "{from_yaml}");
    assert_eq!(from_yaml["spec"]["replicas"], 4);
    let (status, err) = http
        .apply(
            &path,
            "m1",
            false,
            &json!({"apiVersion": "ssa.example.com/v2", "kind": "Widget",
        "metadata": {"name": "w"}}),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{err}");
    still_serves(&http).await;
}

#[tokio::test]
async fn definitions_apply_and_record_managers() {
    let t = TestServer::start().await;
    let http = Http::new(&t);
    let crd = Crd::new("ssa.example.com", "Gadget");
    let path = format!("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{}", crd.name());
    let (status, created) = http.apply(&path, "kubectl", false, &crd.value).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(managers(&created)[0].0, "kubectl");
    assert_eq!(managers(&created)[0].1, "Apply");
    let mut changed = crd.value.clone();
    changed["metadata"]["labels"] = json!({"a": "b"});
    let (status, again) = http.apply(&path, "kubectl", false, &changed).await;
    assert_eq!(status, StatusCode::OK, "{again}");
    assert_eq!(again["metadata"]["labels"], json!({"a": "b"}));
    let (status, err) = http
        .apply(
            &path,
            "other",
            false,
            &json!({"apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition", "metadata": {"name": crd.name(), "labels": {"a": "c"}}}),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{err}");
    assert_eq!(err["details"]["causes"][0]["field"], ".metadata.labels.a");
    http.object("/apis/apiextensions.k8s.io/v1/customresourcedefinitions").await;
}

/// A definition is typed as apiextensions v1 marks it: `spec.versions` is
/// `+listType=atomic` (owned whole, so a second manager's versions
/// conflict), `status.conditions` a map keyed by `type` (two managers own
/// one condition each).
#[tokio::test]
async fn definitions_are_typed_by_their_list_types() {
    let t = TestServer::start().await;
    let http = Http::new(&t);
    let crd = Crd::new("ssa.example.com", "Gizmo");
    let path = format!("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{}", crd.name());
    let (status, created) = http.apply(&path, "first", false, &crd.value).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    // What a real apiserver records for it: names granular, versions whole.
    let fields = &managers(&created)[0].2;
    assert_eq!(fields["f:spec"]["f:versions"], json!({}), "{fields}");
    assert_eq!(fields["f:spec"]["f:names"]["f:plural"], json!({}), "{fields}");
    let v2 = version("v2", false);
    let (status, err) = http
        .apply(
            &path,
            "second",
            false,
            &json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                "metadata": {"name": crd.name()}, "spec": {"versions": [v2]}}),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{err}");
    assert_eq!(err["details"]["causes"][0]["field"], ".spec.versions", "{err}");

    let condition = |kind: &str| {
        json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": crd.name()}, "status": {"conditions": [{"type": kind, "status": "True",
                "lastTransitionTime": "2024-01-01T00:00:00Z", "reason": "R", "message": "m"}]}})
    };
    let status_path = format!("{path}/status");
    let (status, body) = http.apply(&status_path, "a", false, &condition("A")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = http.apply(&status_path, "b", false, &condition("B")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let b = managers(&body).into_iter().find(|m| m.0 == "b").unwrap().2;
    assert_eq!(
        b,
        json!({"f:status": {"f:conditions": {"k:{\"type\":\"B\"}": {".": {}, "f:lastTransitionTime": {},
            "f:message": {}, "f:reason": {}, "f:status": {}, "f:type": {}}}}})
    );
    http.object("/apis/apiextensions.k8s.io/v1/customresourcedefinitions").await;
}

/// The apiserver's lastAppliedManager and lastAppliedUpdater: kubectl's
/// server-side apply takes over the fields client-side apply last applied
/// (while they still hold) without a conflict, and keeps the
/// last-applied annotation in step with what it applied.
#[tokio::test]
async fn kubectl_upgrades_client_side_apply() {
    let t = TestServer::start().await;
    let http = Http::new(&t);
    register(&http).await;
    const LAST: &str = "kubectl.kubernetes.io/last-applied-configuration";
    let config = widget(json!({"replicas": 1, "image": "a"}));
    let mut created = config.clone();
    created["metadata"]["annotations"] = json!({LAST: config.to_string()});
    let query = format!("{WIDGETS}?fieldManager=kubectl-client-side-apply");
    let (status, body) =
        http.send_as(Method::POST, &query, "application/json", serde_json::to_vec(&created).unwrap(), "kubectl").await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    // Another manager takes the image: that field no longer holds.
    let (status, body) = http
        .send_as(
            Method::PATCH,
            &format!("{WIDGETS}/w?fieldManager=other"),
            "application/merge-patch+json",
            br#"{"spec":{"image":"b"}}"#.to_vec(),
            "t",
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let applied = widget(json!({"replicas": 2, "image": "c"}));
    let (status, err) = http.apply(&format!("{WIDGETS}/w"), "kubectl", false, &applied).await;
    assert_eq!(status, StatusCode::CONFLICT, "{err}");
    let fields: Vec<&Value> = err["details"]["causes"].as_array().unwrap().iter().map(|c| &c["field"]).collect();
    assert_eq!(fields, vec![&json!(".spec.image")], "{err}");
    // Another manager than kubectl gets no upgrade.
    let (status, err) = http.apply(&format!("{WIDGETS}/w"), "mine", false, &widget(json!({"replicas": 2}))).await;
    assert_eq!(status, StatusCode::CONFLICT, "{err}");

    let applied = widget(json!({"replicas": 2, "image": "b"}));
    let (status, body) = http.apply(&format!("{WIDGETS}/w"), "kubectl", false, &applied).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["spec"]["replicas"], 2, "{body}");
    let last: Value = serde_json::from_str(body["metadata"]["annotations"][LAST].as_str().unwrap()).unwrap();
    assert_eq!(last, applied, "{body}");
    let kubectl = managers(&body).into_iter().find(|m| m.0 == "kubectl").unwrap();
    assert_eq!(kubectl.1, "Apply");
    assert_eq!(kubectl.2["f:spec"], json!({"f:replicas": {}, "f:image": {}}), "{body}");
    // Another manager's apply leaves the annotation as it was.
    let (status, body) = http.apply(&format!("{WIDGETS}/w"), "mine", true, &widget(json!({"replicas": 3}))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        serde_json::from_str::<Value>(body["metadata"]["annotations"][LAST].as_str().unwrap()).unwrap(),
        applied
    );
    still_serves(&http).await;
}

/// Metadata sent to the status endpoint is reset there, as Kubernetes
/// 1.36's custom resource status strategy resets `metadata` and `spec`:
/// neither an apply nor an update of /status owns (or writes) labels.
#[tokio::test]
async fn the_status_endpoint_owns_no_metadata() {
    let t = TestServer::start().await;
    let http = Http::new(&t);
    register(&http).await;
    let path = format!("{WIDGETS}/w");
    let (status, body) = http.apply(&path, "m1", false, &widget(json!({"replicas": 1}))).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let mut obj = widget(json!({"replicas": 1}));
    obj["metadata"]["labels"] = json!({"x": "y"});
    obj["status"] = json!({"ready": true});
    let (status, body) = http.apply(&format!("{path}/status"), "op", false, &obj).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body["metadata"].get("labels").is_none(), "{body}");
    let op = managers(&body).into_iter().find(|m| m.0 == "op").unwrap();
    assert_eq!(op.2, json!({"f:status": {"f:ready": {}}}), "{body}");
    let patch = br#"{"metadata":{"labels":{"u":"v"}},"status":{"ready":false}}"#.to_vec();
    let (status, body) = http
        .send_as(Method::PATCH, &format!("{path}/status?fieldManager=up"), "application/merge-patch+json", patch, "t")
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let up = managers(&body).into_iter().find(|m| m.0 == "up").unwrap();
    assert_eq!(up.2, json!({"f:status": {"f:ready": {}}}), "{body}");
    still_serves(&http).await;
}

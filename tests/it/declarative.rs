//! Declarative conversion on the definition side (issue 18): a
//! three-version definition with `spec.conversion.strategy: Declarative`
//! and per-version rules is accepted over gRPC, the gateway and `kubectl
//! apply` and reads back whole; a wrong one is refused with every cause at
//! its path. (The engine itself is tested beside it, in
//! `src/conversion/declarative/`; reads at another version go through the
//! verbs once the converter is wired.)

use crdstore::pb::v1 as pb;
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::kubectl::Kubectl;
use crate::support::{self, parse, reason, violations, Crd, TestServer};

fn schema(spec: Value) -> Value {
    json!({"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object", "properties": spec}}}})
}

/// Things in `example.com`: v1 -> v2 (a rename, a move, CEL, a default)
/// declared on v1, v2 -> v3 (a rename) declared on v2; v1 stores.
fn things() -> Crd {
    let (int, string) = (json!({"type": "integer"}), json!({"type": "string"}));
    let v1 = json!({"name": "v1", "served": true, "storage": true,
        "schema": schema(json!({"a": string, "size": int, "moved": {"type": "object", "properties": {"x": int}}})),
        "conversion": {"declarative": {"v2": {"rules": [
            {"rename": {"from": ".spec.a", "to": ".spec.b"}},
            {"rename": {"from": ".spec.moved.x", "to": ".spec.place.x"}},
            {"cel": {"from": ".spec.size", "to": ".spec.sizeStr",
                     "forward": "string(self) + 'Gi'", "backward": "int(self.substring(0, size(self) - 2))"}},
            {"default": {"path": ".spec.mode", "value": "fast"}}]}}}});
    let v2 = json!({"name": "v2", "served": true, "storage": false,
        "schema": schema(json!({"b": string, "sizeStr": string, "mode": string,
                                "place": {"type": "object", "properties": {"x": int}}})),
        "conversion": {"declarative": {"v3": {"rename": {"from": ".spec.b", "to": ".spec.c"}}}}});
    let v3 = json!({"name": "v3", "served": true, "storage": false,
        "schema": schema(json!({"c": string, "sizeStr": string, "mode": string,
                                "place": {"type": "object", "properties": {"x": int}}}))});
    Crd::new("example.com", "Thing")
        .versions(vec![v1, v2, v3])
        .set("/spec/conversion", json!({"strategy": "Declarative"}))
}

/// `things()` with a loop (v3 -> v1), a path v2 does not have, a CEL
/// expression that does not compile and two rules writing one place.
fn wrong_things() -> Crd {
    things()
        .set("/spec/versions/2/conversion", json!({"declarative": {"v1": {}}}))
        .set("/spec/versions/0/conversion/declarative/v2/rules/0/rename/to", json!(".spec.nope"))
        .set("/spec/versions/0/conversion/declarative/v2/rules/2/cel/forward", json!("self +"))
        .set("/spec/versions/0/conversion/declarative/v2/rules/3/default", json!({"path": ".spec.place.x", "value": 7}))
}

const WRONG_PATHS: [&str; 4] = [
    "spec.versions[0].conversion.declarative.v2.rules[0].rename.to",
    "spec.versions[0].conversion.declarative.v2.rules[2].cel.forward",
    "spec.versions[0].conversion.declarative.v2.rules[3].default.path",
    "spec.versions[2].conversion.declarative.v1",
];

fn thing_ref(version: &str, name: &str) -> pb::ResourceRef {
    pb::ResourceRef {
        group: "example.com".into(),
        version: version.into(),
        resource: "things".into(),
        namespace: "default".into(),
        name: name.into(),
    }
}

/// The server still stores and reads objects of the definition.
async fn still_serves(t: &TestServer, name: &str) {
    let mut r = t.resources().await;
    let obj = json!({"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": name}, "spec": {"a": "x", "size": 3}});
    let req = pb::CreateResourceRequest {
        r#ref: Some(thing_ref("v1", "")),
        object: serde_json::to_vec(&obj).unwrap(),
        options: None,
    };
    r.create(req).await.unwrap();
    let got = r.get(pb::GetResourceRequest { r#ref: Some(thing_ref("v1", name)), resource_version: String::new() });
    assert_eq!(parse(&got.await.unwrap().into_inner().object)["spec"], json!({"a": "x", "size": 3}));
}

#[tokio::test]
async fn a_declarative_definition_is_accepted_over_grpc_and_reads_back_whole() {
    let t = TestServer::start().await;
    let mut c = t.definitions().await;
    let created = support::create(&mut c, &things()).await;
    assert_eq!(created["spec"]["conversion"], json!({"strategy": "Declarative"}));
    for i in 0..3 {
        assert_eq!(created["spec"]["versions"][i]["conversion"], things().value["spec"]["versions"][i]["conversion"]);
    }
    let got = support::get(&mut c, "things.example.com").await;
    assert_eq!(got["spec"]["versions"], created["spec"]["versions"]);
    let deadline = tokio::time::Instant::now() + support::WAIT;
    while support::condition(&support::get(&mut c, "things.example.com").await, "Established")["status"] != "True" {
        assert!(tokio::time::Instant::now() < deadline, "never established");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    still_serves(&t, "t1").await;
}

#[tokio::test]
async fn a_wrong_declaration_is_refused_with_every_cause_at_its_path() {
    let t = TestServer::start().await;
    let mut c = t.definitions().await;
    let req = pb::CreateDefinitionRequest { definition: wrong_things().bytes(), options: None };
    let err = c.create(req).await.unwrap_err();
    assert_eq!(err.code(), tonic::Code::InvalidArgument, "{err:?}");
    assert_eq!(reason(&err), "Invalid");
    let mut found = violations(&err);
    found.sort();
    assert_eq!(found, WRONG_PATHS, "{}", err.message());

    // Over HTTP: 422 with the causes.
    let url = format!("http://{}/apis/apiextensions.k8s.io/v1/customresourcedefinitions", t.server().http_addr);
    let http = reqwest::Client::new();
    let response = http.post(&url).json(&wrong_things().value).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let status: Value = response.json().await.unwrap();
    assert_eq!(status["reason"], "Invalid");
    let mut fields: Vec<&str> =
        status["details"]["causes"].as_array().unwrap().iter().map(|c| c["field"].as_str().unwrap()).collect();
    fields.sort();
    assert_eq!(fields, WRONG_PATHS, "{status}");
    let loop_cause = status["details"]["causes"].as_array().unwrap().iter().find(|c| c["field"] == WRONG_PATHS[3]);
    assert!(loop_cause.unwrap()["message"]
        .as_str()
        .unwrap()
        .contains("loop in the conversion graph: v3 -> v1 -> v2 -> v3"));

    // A webhook with the Declarative strategy, and declarations without it.
    let webhook = things().set(
        "/spec/conversion/webhook",
        json!({"clientConfig": {"url": "https://example.com/convert"}, "conversionReviewVersions": ["v1"]}),
    );
    let status: Value = http.post(&url).json(&webhook.value).send().await.unwrap().json().await.unwrap();
    assert_eq!(status["code"], 422, "{status}");
    assert_eq!(status["details"]["causes"][0]["field"], "spec.conversion.webhook", "{status}");
    let none = things().set("/spec/conversion", json!({"strategy": "None"}));
    let status: Value = http.post(&url).json(&none.value).send().await.unwrap().json().await.unwrap();
    assert_eq!(status["code"], 422, "{status}");
    assert_eq!(status["details"]["causes"][0]["field"], "spec.versions[0].conversion.declarative", "{status}");

    // Nothing was stored, and the right definition is still accepted.
    let response = http.post(&url).json(&things().value).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);
    let created: Value = response.json().await.unwrap();
    assert_eq!(created["spec"]["versions"][1]["conversion"], things().value["spec"]["versions"][1]["conversion"]);
    let got: Value = http.get(format!("{url}/things.example.com")).send().await.unwrap().json().await.unwrap();
    assert_eq!(got["spec"]["versions"], created["spec"]["versions"]);
    still_serves(&t, "t2").await;
}

#[tokio::test]
async fn kubectl_applies_and_explains_a_declarative_definition() {
    let t = TestServer::start().await;
    let k = Kubectl::new(&t);
    let yaml = serde_norway::to_string(&things().value).unwrap();
    let file = k.file("things.yaml", &yaml);
    let out = k.ok(&["apply", "-f", &file]).await;
    assert!(out.contains("customresourcedefinition.apiextensions.k8s.io/things.example.com created"), "{out}");
    let rule = k
        .ok(&[
            "get",
            "crd",
            "things.example.com",
            "-o",
            "jsonpath={.spec.versions[0].conversion.declarative.v2.rules[2].cel.forward}",
        ])
        .await;
    assert_eq!(rule, "string(self) + 'Gi'");
    let explained = k.ok(&["explain", "customresourcedefinitions.spec.versions.conversion.declarative"]).await;
    assert!(explained.contains("By target version"), "{explained}");
    let wrong = k.file("wrong.yaml", &serde_norway::to_string(&wrong_things().plural("others").value).unwrap());
    let (ok, _, stderr) = k.run(&["apply", "-f", &wrong]).await;
    assert!(!ok && stderr.contains("spec.versions[0].conversion.declarative.v2.rules[2].cel.forward"), "{stderr}");
    k.ok(&["wait", "--for", "condition=established", "crd/things.example.com", "--timeout=20s"]).await;
    still_serves(&t, "t3").await;
}

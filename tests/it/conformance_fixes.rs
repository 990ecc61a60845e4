//! Answers the upstream apiextensions-apiserver integration suite checks,
//! each as Kubernetes gives it: Tables in `meta.k8s.io/v1beta1` and with
//! whole objects (TestTableGet), errors in YAML (TestYAML), subresources of
//! the wrong scope (TestHandlerScope), the status of a delete that waits for
//! finalizers, and validation messages in kube-openapi's words.

use reqwest::header::{ACCEPT, CONTENT_TYPE};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::support::{Crd, Http, TestServer};

const CRDS: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

impl Http {
    /// Sends a request; answers the status, the content type and the body.
    async fn exchange(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
        accept: &str,
    ) -> (StatusCode, String, Vec<u8>) {
        let mut request = self.client.request(method, format!("{}{path}", self.base)).header(ACCEPT, accept);
        if let Some(body) = body {
            request = request.header(CONTENT_TYPE, "application/json").body(serde_json::to_vec(&body).unwrap());
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        let content_type =
            response.headers().get(CONTENT_TYPE).map(|v| v.to_str().unwrap().to_string()).unwrap_or_default();
        (status, content_type, response.bytes().await.unwrap().to_vec())
    }

    /// Creates a definition and waits until it is established.
    async fn define(&self, crd: &Crd) {
        let (status, created) = self.json(Method::POST, CRDS, Some(crd.value.clone())).await;
        assert_eq!(status, StatusCode::CREATED, "{created}");
        for _ in 0..200 {
            let (_, got) = self.json(Method::GET, &format!("{CRDS}/{}", crd.name()), None).await;
            let conditions = got["status"]["conditions"].as_array().cloned().unwrap_or_default();
            if conditions.iter().any(|c| c["type"] == "Established" && c["status"] == "True") {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        panic!("{} was not established", crd.name());
    }

    /// The server still answers: the definitions list is served.
    async fn still_serves(&self) {
        let (status, list) = self.json(Method::GET, CRDS, None).await;
        assert_eq!(status, StatusCode::OK, "{list}");
    }
}

fn widgets() -> Crd {
    Crd::new("example.com", "Widget")
        .set(
            "/spec/versions/0/additionalPrinterColumns",
            json!([{"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"}]),
        )
        .set(
            "/spec/versions/0/schema",
            json!({"openAPIV3Schema": {"type": "object", "properties": {
                "spec": {"type": "object", "properties": {"replicas": {"type": "integer", "maximum": 10}}}}}}),
        )
}

const WIDGETS: &str = "/apis/example.com/v1/namespaces/ns/widgets";

fn widget(name: &str, replicas: i64) -> Value {
    json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": name}, "spec": {"replicas": replicas}})
}

#[tokio::test]
async fn tables_come_in_v1beta1_and_rows_carry_what_include_object_asks() {
    let server = TestServer::start().await;
    let http = Http::new(&server);
    http.define(&widgets()).await;
    let (status, created) = http.json(Method::POST, WIDGETS, Some(widget("w1", 3))).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");

    let table = |version: &str| format!("application/json;as=Table;v={version};g=meta.k8s.io, application/json");
    let get = |path: String, accept: String| {
        let http = &http;
        async move {
            let (status, content_type, body) = http.exchange(Method::GET, &path, None, &accept).await;
            (status, content_type, serde_json::from_slice::<Value>(&body).unwrap_or(Value::Null))
        }
    };

    // TestTableGet: the v1beta1 Table, its rows' metadata in v1beta1 too.
    let (status, _, beta) = get(WIDGETS.into(), table("v1beta1")).await;
    assert_eq!(status, StatusCode::OK, "{beta}");
    assert_eq!((beta["kind"].as_str(), beta["apiVersion"].as_str()), (Some("Table"), Some("meta.k8s.io/v1beta1")));
    assert_eq!(beta["rows"][0]["cells"], json!(["w1", 3]));
    assert_eq!(beta["rows"][0]["object"]["kind"], "PartialObjectMetadata");
    assert_eq!(beta["rows"][0]["object"]["apiVersion"], "meta.k8s.io/v1beta1");
    let (_, _, one) = get(format!("{WIDGETS}/w1"), table("v1beta1")).await;
    assert_eq!(one["apiVersion"], "meta.k8s.io/v1beta1");
    let (_, _, v1) = get(WIDGETS.into(), table("v1")).await;
    assert_eq!(
        (v1["apiVersion"].as_str(), v1["rows"][0]["object"]["apiVersion"].as_str()),
        (Some("meta.k8s.io/v1"), Some("meta.k8s.io/v1"))
    );
    let (_, _, definitions) = get(CRDS.into(), table("v1beta1")).await;
    assert_eq!(definitions["apiVersion"], "meta.k8s.io/v1beta1");

    // includeObject=Object: the whole object (kubectl get --sort-by reads it).
    let (_, _, whole) = get(format!("{WIDGETS}?includeObject=Object"), table("v1")).await;
    let object = &whole["rows"][0]["object"];
    assert_eq!((object["kind"].as_str(), object["apiVersion"].as_str()), (Some("Widget"), Some("example.com/v1")));
    assert_eq!(object["spec"]["replicas"], 3);
    let (_, _, none) = get(format!("{WIDGETS}?includeObject=None"), table("v1")).await;
    assert_eq!(none["rows"][0]["object"], Value::Null);
    assert_eq!(none["rows"][0]["cells"], json!(["w1", 3]));
    let (status, _, bad) = get(format!("{WIDGETS}?includeObject=Everything"), table("v1")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
    assert_eq!(bad["message"], r#"unrecognized includeObject value: "Everything""#);
    // Without a Table, the parameter changes nothing.
    let (status, list) = http.json(Method::GET, &format!("{WIDGETS}?includeObject=None"), None).await;
    assert_eq!((status, list["items"][0]["spec"]["replicas"].as_i64()), (StatusCode::OK, Some(3)));
    http.still_serves().await;
}

#[tokio::test]
async fn errors_are_yaml_when_the_client_accepts_yaml() {
    let server = TestServer::start().await;
    let http = Http::new(&server);
    http.define(&widgets()).await;
    // TestYAML: a missing object is a YAML Status.
    let (status, content_type, body) =
        http.exchange(Method::GET, &format!("{WIDGETS}/nope"), None, "application/yaml").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(content_type, "application/yaml");
    let text = String::from_utf8(body).unwrap();
    let status_object: Value = serde_norway::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(status_object["kind"], "Status");
    assert_eq!(status_object["apiVersion"], "v1");
    assert_eq!(status_object["reason"], "NotFound");
    assert_eq!(status_object["code"], 404);
    // An invalid object too, with its causes.
    let (status, content_type, body) =
        http.exchange(Method::POST, WIDGETS, Some(widget("w", 11)), "application/yaml").await;
    assert_eq!((status, content_type.as_str()), (StatusCode::UNPROCESSABLE_ENTITY, "application/yaml"));
    let invalid: Value = serde_norway::from_slice(&body).unwrap();
    assert_eq!(invalid["details"]["causes"][0]["field"], "spec.replicas");
    // A watch cannot be YAML: 406, as a YAML Status.
    let (status, content_type, body) =
        http.exchange(Method::GET, &format!("{WIDGETS}?watch=true"), None, "application/yaml").await;
    assert_eq!((status, content_type.as_str()), (StatusCode::NOT_ACCEPTABLE, "application/yaml"));
    let refused: Value = serde_norway::from_slice(&body).unwrap();
    assert_eq!((refused["reason"].as_str(), refused["code"].as_i64()), (Some("NotAcceptable"), Some(406)));
    // JSON clients still get JSON.
    let (status, content_type, _) =
        http.exchange(Method::GET, &format!("{WIDGETS}/nope"), None, "application/json").await;
    assert_eq!((status, content_type.as_str()), (StatusCode::NOT_FOUND, "application/json"));
    http.still_serves().await;
}

#[tokio::test]
async fn a_path_of_the_other_scope_is_not_found_whatever_the_subresource() {
    let server = TestServer::start().await;
    let http = Http::new(&server);
    let scale = json!({"status": {}, "scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}});
    let clusters = Crd::new("example.com", "Cluster")
        .set("/spec/scope", json!("Cluster"))
        .set("/spec/versions/0/subresources", scale.clone());
    let namespaced = Crd::new("example.com", "Local").set("/spec/versions/0/subresources", scale);
    http.define(&clusters).await;
    http.define(&namespaced).await;
    let body = |kind: &str| json!({"apiVersion": "example.com/v1", "kind": kind, "metadata": {"name": "bar"}});
    // TestHandlerScope: every verb on every subresource of the other scope.
    for (kind, wrong) in
        [("Cluster", "/apis/example.com/v1/namespaces/test/clusters"), ("Local", "/apis/example.com/v1/locals")]
    {
        for sub in ["", "/status", "/scale"] {
            let path = format!("{wrong}/bar{sub}");
            for method in [Method::POST, Method::GET, Method::PUT, Method::PATCH, Method::DELETE] {
                let (status, answer) = http.json(method.clone(), &path, Some(body(kind))).await;
                assert_eq!(status, StatusCode::NOT_FOUND, "{method} {path}: {answer}");
                assert_eq!(answer["reason"], "NotFound", "{method} {path}: {answer}");
            }
        }
    }
    let (status, _) = http.json(Method::DELETE, "/apis/example.com/v1/namespaces/test/clusters", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // A namespaced kind across all namespaces is listed, never deleted or
    // created there.
    let (status, _) = http.json(Method::DELETE, "/apis/example.com/v1/locals", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = http.json(Method::POST, "/apis/example.com/v1/locals", Some(body("Local"))).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = http.json(Method::GET, "/apis/example.com/v1/locals", None).await;
    assert_eq!(status, StatusCode::OK);
    // The right scope still answers 405 for a method it does not serve.
    let (status, _) = http.json(Method::POST, "/apis/example.com/v1/clusters/bar/status", Some(body("Cluster"))).await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
    let (status, created) = http.json(Method::POST, "/apis/example.com/v1/clusters", Some(body("Cluster"))).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    http.still_serves().await;
}

#[tokio::test]
async fn a_delete_that_waits_for_finalizers_is_200_unless_dependents_are_not_orphaned() {
    let server = TestServer::start().await;
    let http = Http::new(&server);
    http.define(&widgets()).await;
    for name in ["held", "cascade"] {
        let mut held = widget(name, 1);
        held["metadata"]["finalizers"] = json!(["example.com/hold"]);
        let (status, created) = http.json(Method::POST, WIDGETS, Some(held)).await;
        assert_eq!(status, StatusCode::CREATED, "{created}");
    }
    let (status, held) = http.json(Method::DELETE, &format!("{WIDGETS}/held"), None).await;
    assert_eq!(status, StatusCode::OK, "{held}");
    assert_eq!(held["kind"], "Widget");
    assert!(held["metadata"]["deletionTimestamp"].is_string(), "{held}");
    let options = json!({"kind": "DeleteOptions", "apiVersion": "v1", "orphanDependents": false});
    let (status, cascade) = http.json(Method::DELETE, &format!("{WIDGETS}/cascade"), Some(options)).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{cascade}");
    assert!(cascade["metadata"]["deletionTimestamp"].is_string(), "{cascade}");
    // An object without finalizers is gone at once: 200 with a Success
    // Status naming it (TestYAML's delete).
    let (_, plain) = http.json(Method::POST, WIDGETS, Some(widget("plain", 1))).await;
    let (status, gone) = http.json(Method::DELETE, &format!("{WIDGETS}/plain"), None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        gone,
        json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
            "details": {"name": "plain", "group": "example.com", "kind": "widgets", "uid": plain["metadata"]["uid"]}})
    );
    http.still_serves().await;
}

#[tokio::test]
async fn schema_errors_are_in_kube_openapi_words() {
    let server = TestServer::start().await;
    let http = Http::new(&server);
    let crd = widgets().set(
        "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/name",
        json!({"type": "string", "maxLength": 3}),
    );
    http.define(&crd).await;
    let mut bad = widget("w", 11);
    bad["spec"]["name"] = json!("long");
    let (status, err) = http.json(Method::POST, WIDGETS, Some(bad)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{err}");
    let message = err["message"].as_str().unwrap();
    assert!(
        message.contains("spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10"),
        "{message}"
    );
    assert!(message.contains("spec.name: Too long: may not be more than 3 bytes"), "{message}");
    let mut wrong = widget("w", 1);
    wrong["spec"]["replicas"] = json!("three");
    let (_, err) = http.json(Method::POST, WIDGETS, Some(wrong)).await;
    assert_eq!(
        err["details"]["causes"][0]["message"],
        r#"Invalid value: "string": spec.replicas in body must be of type integer: "string""#
    );
    assert_eq!(err["details"]["causes"][0]["reason"], "FieldValueTypeInvalid");
    http.still_serves().await;
}

#[tokio::test]
async fn definitions_are_validated_as_upstream() {
    let server = TestServer::start().await;
    let http = Http::new(&server);
    // TestForbiddenFieldsInSchema: additionalProperties at the root.
    let closed = Crd::new("example.com", "Closed")
        .set("/spec/versions/0/schema", json!({"openAPIV3Schema": {"type": "object", "additionalProperties": false}}));
    let (status, err) = http.json(Method::POST, CRDS, Some(closed.value.clone())).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{err}");
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("spec.validation.openAPIV3Schema.additionalProperties: Forbidden: must not be used at the root"),
        "{err}"
    );
    // kubebuilder's Ready column and a scale path with array notation: only
    // a leading dot is required.
    let ready = Crd::new("example.com", "Ready")
        .set(
            "/spec/versions/0/additionalPrinterColumns",
            json!([{"name": "Ready", "type": "string", "jsonPath": ".status.conditions[?(@.type==\"Ready\")].status"}]),
        )
        .set(
            "/spec/versions/0/subresources",
            json!({"scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.counts[0]"}}),
        );
    http.define(&ready).await;
    let path = "/apis/example.com/v1/namespaces/ns/readys";
    let mut object = json!({"apiVersion": "example.com/v1", "kind": "Ready", "metadata": {"name": "r"},
        "status": {"conditions": [{"type": "Synced", "status": "False"}, {"type": "Ready", "status": "True"}]}});
    let (status, created) = http.json(Method::POST, path, Some(object.clone())).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let accept = "application/json;as=Table;v=v1;g=meta.k8s.io, application/json";
    let (_, _, table) = http.exchange(Method::GET, path, None, accept).await;
    let table: Value = serde_json::from_slice(&table).unwrap();
    assert_eq!(table["rows"][0]["cells"], json!(["r", "True"]), "{table}");
    // A path not starting with a dot is still refused.
    object = ready.clone().set("/spec/versions/0/additionalPrinterColumns/0/jsonPath", json!("status.x")).value;
    object["metadata"]["name"] = json!("readies2.example.com");
    object["spec"]["names"]["plural"] = json!("readies2");
    let (status, err) = http.json(Method::POST, CRDS, Some(object)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{err}");
    assert_eq!(err["details"]["causes"][0]["field"], "spec.additionalPrinterColumns[0].JSONPath");
    http.still_serves().await;
}

#[tokio::test]
async fn bodies_are_refused_as_kubernetes_decodes_them() {
    let server = TestServer::start().await;
    let http = Http::new(&server);
    let crd = widgets().set(
        "/spec/versions/0/schema/openAPIV3Schema/properties/embedded",
        json!({"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true}),
    );
    http.define(&crd).await;
    // TestPostInvalidObjectMeta: a label that is not a string is 400.
    let mut labelled = widget("w", 1);
    labelled["metadata"]["labels"] = json!({"foo": 42, "bar": "abc"});
    let (status, err) = http.json(Method::POST, WIDGETS, Some(labelled)).await;
    assert_eq!((status, err["reason"].as_str()), (StatusCode::BAD_REQUEST, Some("BadRequest")), "{err}");
    assert_eq!(
        err["message"],
        "Widget in version \"v1\" cannot be handled as a Widget: json: cannot unmarshal number into Go struct field ObjectMeta.labels of type string"
    );
    // TestEmbeddedResources: a wrongly typed embedded ObjectMeta.
    let mut embedded = widget("w", 1);
    embedded["embedded"] =
        json!({"apiVersion": "foo/v1", "kind": "Foo", "metadata": {"name": "instance", "namespace": 42}});
    let (status, err) = http.json(Method::POST, WIDGETS, Some(embedded)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{err}");
    assert!(err["message"].as_str().unwrap().contains("embedded.metadata: Invalid value: {"), "{err}");
    // Invalid embedded identities, in upstream's words.
    let mut bad = widget("w", 1);
    bad["embedded"] = json!({"apiVersion": "foo/v1", "kind": "%", "metadata": {"name": ".."}});
    let (status, err) = http.json(Method::POST, WIDGETS, Some(bad)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{err}");
    let message = err["message"].as_str().unwrap();
    assert!(message.contains(r#"embedded.kind: Invalid value: "%""#), "{message}");
    assert!(message.contains(r#"embedded.metadata.name: Invalid value: "..""#), "{message}");
    // TestForProperValidationErrors: the Invalid names the kind sent.
    let mut other = widget("foo", 1);
    other["kind"] = json!("SomethingElse");
    let (status, err) = http.json(Method::POST, WIDGETS, Some(other)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{err}");
    assert_eq!(
        err["message"],
        r#"SomethingElse.example.com "foo" is invalid: kind: Invalid value: "SomethingElse": must be Widget"#
    );
    assert_eq!(err["details"]["kind"], "SomethingElse");
    let (status, created) = http.json(Method::POST, WIDGETS, Some(widget("fine", 1))).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
}

#[tokio::test]
async fn openapi_carries_object_meta_definitions_and_selectable_fields() {
    let server = TestServer::start().await;
    let http = Http::new(&server);
    let crd = widgets()
        .set("/spec/versions/0/selectableFields", json!([{"jsonPath": ".spec.color"}, {"jsonPath": ".spec.replicas"}]));
    let crd =
        crd.set("/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/color", json!({"type": "string"}));
    http.define(&crd).await;
    let (status, v3) = http.json(Method::GET, "/openapi/v3/apis/example.com/v1", None).await;
    assert_eq!(status, StatusCode::OK, "{v3}");
    let schemas = &v3["components"]["schemas"];
    let widget = &schemas["com.example.v1.Widget"];
    // TestFieldSelectorOpenAPI.
    assert_eq!(
        widget["x-kubernetes-selectable-fields"],
        json!([{"fieldPath": "spec.color"}, {"fieldPath": "spec.replicas"}])
    );
    assert_eq!(
        widget["properties"]["metadata"]["$ref"],
        "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
    );
    let meta = &schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"];
    assert_eq!(meta["properties"]["labels"]["additionalProperties"]["type"], "string");
    // Every reference in the document resolves.
    let text = v3.to_string();
    for reference in text.split("\"$ref\":\"#/components/schemas/").skip(1) {
        let name = &reference[..reference.find('"').unwrap()];
        assert!(schemas.get(name).is_some(), "{name} is referenced but not defined");
    }
    let (_, v2) = http.json(Method::GET, "/openapi/v2", None).await;
    let definitions = &v2["definitions"];
    assert_eq!(
        definitions["com.example.v1.Widget"]["properties"]["metadata"]["$ref"],
        "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
    );
    let crd_schema = &definitions["io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition"];
    assert_eq!(crd_schema["x-kubernetes-group-version-kind"][0]["kind"], "CustomResourceDefinition");
    let spec = &definitions["io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionSpec"];
    assert!(
        spec["properties"]["names"]["$ref"].is_string() || spec["properties"]["names"]["allOf"].is_array(),
        "{spec}"
    );
    assert!(spec["properties"]["customFeatureGates"].is_object());
    let text = v2.to_string();
    for reference in text.split("\"$ref\":\"#/definitions/").skip(1) {
        let name = &reference[..reference.find('"').unwrap()];
        assert!(definitions.get(name).is_some(), "{name} is referenced but not defined");
    }
    http.still_serves().await;
}

/// The condition of `kind` of the definition `name`.
async fn condition(http: &Http, name: &str, kind: &str) -> Value {
    let (_, got) = http.json(Method::GET, &format!("{CRDS}/{name}"), None).await;
    got["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["type"] == kind)
        .cloned()
        .unwrap_or(Value::Null)
}

#[tokio::test]
async fn protected_groups_carry_their_api_approval_condition() {
    let server = TestServer::start().await;
    let http = Http::new(&server);
    // TestAPIApproval: other groups have no such condition.
    http.define(&widgets()).await;
    assert_eq!(condition(&http, "widgets.example.com", "KubernetesAPIApprovalPolicyConformant").await, Value::Null);
    let sigs = |kind: &str, approval: &str| {
        let mut crd = Crd::new("sigs.k8s.io", kind);
        crd.value["metadata"]["annotations"] = json!({"api-approved.kubernetes.io": approval});
        crd
    };
    let approved = sigs("Approved", "https://github.com/kubernetes/kubernetes/pull/79724");
    http.define(&approved).await;
    let got = condition(&http, &approved.name(), "KubernetesAPIApprovalPolicyConformant").await;
    assert_eq!((got["status"].as_str(), got["reason"].as_str()), (Some("True"), Some("ApprovedAnnotation")), "{got}");
    assert_eq!(got["message"], "approved in https://github.com/kubernetes/kubernetes/pull/79724");
    let bypassed = sigs("Bypassed", "unapproved, test-only");
    http.define(&bypassed).await;
    let got = condition(&http, &bypassed.name(), "KubernetesAPIApprovalPolicyConformant").await;
    assert_eq!(
        (got["status"].as_str(), got["reason"].as_str()),
        (Some("False"), Some("UnapprovedAnnotation")),
        "{got}"
    );
    assert_eq!(got["message"], r#"not approved: "unapproved, test-only""#);
    // An annotation that is neither is refused.
    let (status, err) = http.json(Method::POST, CRDS, Some(sigs("Invalid", "yes").value)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{err}");
    assert_eq!(err["details"]["causes"][0]["field"], "metadata.annotations[api-approved.kubernetes.io]");
    // A change of state moves the condition.
    let (_, mut current) = http.json(Method::GET, &format!("{CRDS}/{}", bypassed.name()), None).await;
    current["metadata"]["annotations"]["api-approved.kubernetes.io"] = json!("https://example.com/pr/1");
    let (status, updated) = http.json(Method::PUT, &format!("{CRDS}/{}", bypassed.name()), Some(current)).await;
    assert_eq!(status, StatusCode::OK, "{updated}");
    let got = condition(&http, &bypassed.name(), "KubernetesAPIApprovalPolicyConformant").await;
    assert_eq!(got["reason"], "ApprovedAnnotation", "{got}");
    http.still_serves().await;
}

#[tokio::test]
async fn an_invalid_conversion_ca_bundle_keeps_a_definition_from_being_established() {
    let server = TestServer::start().await;
    let http = Http::new(&server);
    let webhook = |ca_bundle: &str| {
        json!({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1beta1"], "clientConfig": {
            "caBundle": ca_bundle, "service": {"namespace": "default", "name": "example"}}}})
    };
    // TestInvalidCABundle: "Cg==" is a newline, no certificate.
    let invalid = Crd::new("example.com", "Invalid").set("/spec/conversion", webhook("Cg=="));
    let (status, created) = http.json(Method::POST, CRDS, Some(invalid.value.clone())).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let got = condition(&http, &invalid.name(), "Established").await;
    assert_eq!((got["status"].as_str(), got["reason"].as_str()), (Some("False"), Some("InvalidCABundle")), "{got}");
    assert_eq!(got["message"], "The conversion webhook CABundle is invalid");
    // TestMissingCABundle: none is established.
    let missing = Crd::new("example.com", "Missing")
        .set("/spec/conversion", json!({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1beta1"], "clientConfig": {"service": {"namespace": "default", "name": "example"}}}}));
    http.define(&missing).await;
    http.still_serves().await;
}

#[tokio::test]
async fn definitions_take_strategic_merge_patches_on_both_endpoints() {
    let server = TestServer::start().await;
    let http = Http::new(&server);
    let crd = widgets();
    http.define(&crd).await;
    let path = format!("{CRDS}/{}", crd.name());
    let smp = |body: Value| {
        let http = &http;
        let path = path.clone();
        async move {
            let response = http
                .client
                .patch(format!("{}{path}", http.base))
                .header(CONTENT_TYPE, "application/strategic-merge-patch+json")
                .body(serde_json::to_vec(&body).unwrap())
                .send()
                .await
                .unwrap();
            (response.status(), response.json::<Value>().await.unwrap())
        }
    };
    // TestStatusGetAndPatch: GET and a strategic merge patch of /status.
    let (status, got) = http.json(Method::GET, &format!("{path}/status"), None).await;
    assert_eq!((status, got["kind"].as_str()), (StatusCode::OK, Some("CustomResourceDefinition")));
    let status_path = format!("{path}/status");
    let response = http
        .client
        .patch(format!("{}{status_path}", http.base))
        .header(CONTENT_TYPE, "application/strategic-merge-patch+json")
        .body(r#"{"labels":{"test-label":"dummy"}}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    // On the main endpoint: maps merge, finalizers merge as a set.
    let (status, patched) =
        smp(json!({"metadata": {"labels": {"team": "a"}, "finalizers": ["example.com/one"]}})).await;
    assert_eq!(status, StatusCode::OK, "{patched}");
    let (_, patched) = smp(json!({"metadata": {"labels": {"tier": "b"}, "finalizers": ["example.com/two"]}})).await;
    assert_eq!(patched["metadata"]["labels"], json!({"team": "a", "tier": "b"}));
    assert_eq!(patched["metadata"]["finalizers"], json!(["example.com/one", "example.com/two"]));
    let (_, patched) =
        smp(json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["example.com/one", "example.com/two"]}})).await;
    assert!(patched["metadata"]["finalizers"].as_array().is_none_or(|f| f.is_empty()), "{patched}");
    // Custom resources still refuse it, as Kubernetes does.
    let response = http
        .client
        .patch(format!("{}{WIDGETS}/none", http.base))
        .header(CONTENT_TYPE, "application/strategic-merge-patch+json")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    http.still_serves().await;
}

#[tokio::test]
async fn custom_finalizers_hold_a_definition_in_terminating() {
    let server = TestServer::start().await;
    let http = Http::new(&server);
    let mut crd = widgets();
    crd.value["metadata"]["finalizers"] = json!(["example.com/hold"]);
    http.define(&crd).await;
    let path = format!("{CRDS}/{}", crd.name());
    http.json(Method::POST, WIDGETS, Some(widget("w", 1))).await;
    // TestApplyCRDuringCRDFinalization: the delete answers 200 with the
    // terminating definition, which stays while its finalizer does.
    let (status, deleted) = http.json(Method::DELETE, &path, None).await;
    assert_eq!(status, StatusCode::OK, "{deleted}");
    assert!(deleted["metadata"]["deletionTimestamp"].is_string(), "{deleted}");
    let mut held = Value::Null;
    for _ in 0..200 {
        let (_, got) = http.json(Method::GET, &path, None).await;
        let finalizers = got["metadata"]["finalizers"].clone();
        if finalizers == json!(["example.com/hold"]) {
            held = got;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(held.is_object(), "the cleanup finalizer never went");
    let terminating = condition(&http, &crd.name(), "Terminating").await;
    assert_eq!(
        (terminating["status"].as_str(), terminating["reason"].as_str()),
        (Some("False"), Some("InstanceDeletionCompleted"))
    );
    let (status, list) = http.json(Method::GET, WIDGETS, None).await;
    assert_eq!((status, list["items"].as_array().map(Vec::len)), (StatusCode::OK, Some(0)), "{list}");
    // Creates of its kind are refused meanwhile.
    let (status, refused) = http.json(Method::POST, WIDGETS, Some(widget("new", 1))).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    assert_eq!(
        refused["message"],
        r#"widgets.example.com "new" is forbidden: create not allowed while custom resource definition is terminating"#
    );
    // Removing the last finalizer lets it go.
    let mut release = held.clone();
    release["metadata"]["finalizers"] = json!([]);
    let (status, released) = http.json(Method::PUT, &path, Some(release)).await;
    assert_eq!(status, StatusCode::OK, "{released}");
    let (status, gone) = http.json(Method::GET, &path, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{gone}");
    // The name is free again.
    let mut again = widgets();
    again.value["metadata"]["finalizers"] = json!([]);
    http.define(&again).await;
    http.still_serves().await;
}

#[tokio::test]
async fn list_type_errors_are_ratcheted_after_a_schema_change() {
    let server = TestServer::start().await;
    let http = Http::new(&server);
    let item = json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}});
    let mut map_item = item.clone();
    map_item["required"] = json!(["a", "b"]);
    let crd = Crd::new("example.com", "Foo").set(
        "/spec/versions/0/schema",
        json!({"openAPIV3Schema": {"type": "object", "properties": {
            "map": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["a", "b"], "items": map_item},
            "set": {"type": "array", "x-kubernetes-list-type": "set", "items": item}}}}),
    );
    http.define(&crd).await;
    let path = "/apis/example.com/v1/namespaces/ns/foos";
    let foo = json!({"apiVersion": "example.com/v1", "kind": "Foo", "metadata": {"name": "foo"},
        "map": [{"a": 1, "b": 1}, {"a": 1, "b": 2}], "set": [{"a": 1}, {"a": 2}]});
    let (status, created) = http.json(Method::POST, path, Some(foo)).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    // TestListTypes: duplicates are refused while the stored object is valid.
    let mut modified = created.clone();
    modified["map"].as_array_mut().unwrap().push(json!({"a": 1, "b": 1}));
    modified["set"].as_array_mut().unwrap().push(json!({"a": 1}));
    let (status, err) = http.json(Method::PUT, &format!("{path}/foo"), Some(modified.clone())).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{err}");
    let message = err["message"].as_str().unwrap();
    assert!(message.contains("map[2]: Duplicate value") && message.contains("set[2]: Duplicate value"), "{message}");
    // The keys narrow: the stored object now breaks its map list, so the
    // update's list errors are ratcheted.
    let (_, mut current) = http.json(Method::GET, &format!("{CRDS}/{}", crd.name()), None).await;
    current["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["map"]["x-kubernetes-list-map-keys"] =
        json!(["a"]);
    let (status, updated) = http.json(Method::PUT, &format!("{CRDS}/{}", crd.name()), Some(current)).await;
    assert_eq!(status, StatusCode::OK, "{updated}");
    let mut accepted = false;
    for _ in 0..100 {
        let (status, _) = http.json(Method::PUT, &format!("{path}/foo"), Some(modified.clone())).await;
        if status == StatusCode::OK {
            accepted = true;
            break;
        }
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(accepted, "the update was never ratcheted");
    http.still_serves().await;
}

#[tokio::test]
async fn a_write_is_validated_with_the_schema_of_its_version() {
    let server = TestServer::start().await;
    let http = Http::new(&server);
    // TestInternalVersionIsHandlerVersion: every version's schema pins
    // apiVersion to v1beta1.
    let schema = json!({"openAPIV3Schema": {"type": "object", "required": ["apiVersion"], "x-kubernetes-preserve-unknown-fields": true,
        "properties": {"apiVersion": {"type": "string", "pattern": "^example.com/v1beta1$"}}}});
    let version =
        |name: &str, storage: bool| json!({"name": name, "served": true, "storage": storage, "schema": schema});
    let crd = Crd::new("example.com", "Noxu").versions(vec![version("v1beta1", false), version("v1beta2", true)]);
    http.define(&crd).await;
    let beta1 = "/apis/example.com/v1beta1/namespaces/ns/noxus";
    let beta2 = "/apis/example.com/v1beta2/namespaces/ns/noxus";
    let foo = json!({"apiVersion": "example.com/v1beta1", "kind": "Noxu", "metadata": {"name": "foo"}});
    let (status, created) = http.json(Method::POST, beta1, Some(foo)).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let patch = |path: String, i: i64| {
        let http = &http;
        async move {
            let response = http
                .client
                .patch(format!("{}{path}", http.base))
                .header(CONTENT_TYPE, "application/merge-patch+json")
                .body(json!({"i": i}).to_string())
                .send()
                .await
                .unwrap();
            (response.status(), response.json::<Value>().await.unwrap())
        }
    };
    let (status, patched) = patch(format!("{beta1}/foo"), 1).await;
    assert_eq!(status, StatusCode::OK, "{patched}");
    let (status, refused) = patch(format!("{beta2}/foo"), 2).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(refused["details"]["causes"][0]["field"], "apiVersion", "{refused}");
    assert!(
        refused["message"].as_str().unwrap().contains("apiVersion in body should match '^example.com/v1beta1$'"),
        "{refused}"
    );
    http.still_serves().await;
}

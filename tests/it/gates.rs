//! Field-level feature gates (`spec.customFeatureGates`, issue 22): both
//! tables of the design over gRPC and through `kubectl apply`, validation
//! at its field paths, generation and no-op writes, the status, scale and
//! conversion paths, toggles without restart, the listing (gRPC, the
//! gateway, `kubectl feature-gates`), and the published OpenAPI.

use crdstore::pb::v1 as pb;
use serde_json::{json, Value};

use crate::kubectl::Kubectl;
use crate::support::{self, parse, reason, violations, Crd, Resources, TestServer};

/// Gadgets in `example.com`: v1 is the storage version, v2 is served too.
/// Status and scale subresources; a printer column on `.spec.replicas`.
fn gadgets(gates: Value) -> Crd {
    let schema = json!({"openAPIV3Schema": {"type": "object", "properties": {
        "spec": {"type": "object", "x-kubernetes-validations": [{"rule": "!has(self.replicas) || self.replicas < 100"}],
          "properties": {
            "replicas": {"type": "integer", "description": "How many."},
            "image": {"type": "string"},
            "old": {"type": "string"},
            "foo": {"type": "object", "properties": {"baz": {"type": "integer"}, "qux": {"type": "integer"}}}}},
        "status": {"type": "object", "properties": {"ready": {"type": "integer"}, "replicas": {"type": "integer"}}}}}});
    let version = |name: &str, storage: bool| {
        json!({"name": name, "served": true, "storage": storage, "schema": schema,
               "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}},
               "additionalPrinterColumns": [{"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"}]})
    };
    Crd::new("example.com", "Gadget")
        .versions(vec![version("v1", true), version("v2", false)])
        .set("/spec/customFeatureGates", gates)
}

fn replicas_gate(enabled: bool) -> Value {
    json!({"component": "istio", "featureGates": [
        {"name": "ReplicasFeatureGate", "preRelease": "alpha", "default": false, "enabled": enabled, "fieldPaths": [".spec.replicas"]},
        {"name": "ReadyFeatureGate", "preRelease": "beta", "default": false, "fieldPaths": [".status.ready"]},
        {"name": "OldFeatureGate", "preRelease": "deprecated", "default": true, "deprecatedWarning": "spec.old is deprecated: use spec.image",
         "fieldPaths": [".spec.old"]}]})
}

fn nested_gates(parent: bool, child: bool) -> Value {
    json!({"featureGates": [
        {"name": "FooFeatureGate", "preRelease": "alpha", "enabled": parent, "fieldPaths": [".spec.foo"]},
        {"name": "QuxFeatureGate", "preRelease": "alpha", "enabled": child, "fieldPaths": [".spec.foo.qux"]}]})
}

fn gadget_ref(version: &str, name: &str) -> pb::ResourceRef {
    pb::ResourceRef {
        group: "example.com".into(),
        version: version.into(),
        resource: "gadgets".into(),
        namespace: "default".into(),
        name: name.into(),
    }
}

fn gadget(version: &str, name: &str, spec: Value) -> Value {
    json!({"apiVersion": format!("example.com/{version}"), "kind": "Gadget", "metadata": {"name": name}, "spec": spec})
}

fn warnings<T>(response: &tonic::Response<T>) -> Vec<String> {
    response.metadata().get_all("warning").iter().map(|v| v.to_str().unwrap().to_string()).collect()
}

/// Creates a gadget; the stored object and the warnings.
async fn create(r: &mut Resources, version: &str, obj: &Value) -> (Value, Vec<String>) {
    let req = pb::CreateResourceRequest {
        r#ref: Some(gadget_ref(version, "")),
        object: serde_json::to_vec(obj).unwrap(),
        options: None,
    };
    let response = r.create(req).await.unwrap();
    let w = warnings(&response);
    (parse(&response.into_inner().object), w)
}

/// Replaces a gadget's spec with `spec`; the stored object and the warnings.
async fn update_spec(r: &mut Resources, name: &str, spec: Value) -> (Value, Vec<String>) {
    let mut obj = get(r, name).await;
    obj["spec"] = spec;
    let req = pb::UpdateResourceRequest {
        r#ref: Some(gadget_ref("v1", name)),
        object: serde_json::to_vec(&obj).unwrap(),
        options: None,
    };
    let response = r.update(req).await.unwrap();
    let w = warnings(&response);
    (parse(&response.into_inner().object), w)
}

async fn get(r: &mut Resources, name: &str) -> Value {
    let req = pb::GetResourceRequest { r#ref: Some(gadget_ref("v1", name)), resource_version: String::new() };
    parse(&r.get(req).await.unwrap().into_inner().object)
}

/// Sets the definition's gate set (a toggle is a definition update).
async fn set_gates(t: &TestServer, gates: Value) {
    let mut c = t.definitions().await;
    let mut crd = support::get(&mut c, "gadgets.example.com").await;
    crd["spec"]["customFeatureGates"] = gates;
    support::update(&mut c, &crd).await.unwrap();
}

/// The server still answers after a test's writes.
async fn still_serves(t: &TestServer) {
    let mut c = t.definitions().await;
    assert_eq!(support::get(&mut c, "gadgets.example.com").await["metadata"]["name"], "gadgets.example.com");
}

/// The design's first table, over gRPC: each row seeds an object (with
/// `.spec.replicas = 1` or without) while the gate is on, sets the gate,
/// then writes `.spec.replicas = 3`.
#[tokio::test]
async fn the_first_table_over_grpc() {
    let t = TestServer::start().await;
    support::create(&mut t.definitions().await, &gadgets(replicas_gate(true))).await;
    let mut r = t.resources().await;
    let dropped = "spec.replicas: dropped: feature gate ReplicasFeatureGate (alpha) is disabled";
    let ignored =
        "spec.replicas: ignored: feature gate ReplicasFeatureGate (alpha) is disabled; the stored value is kept";
    let rows = [
        (false, false, Value::Null, vec![dropped]),
        (false, true, json!(3), vec![]),
        (true, false, json!(1), vec![ignored]),
        (true, true, json!(3), vec![]),
    ];
    for (i, (has, enabled, want, want_warnings)) in rows.into_iter().enumerate() {
        set_gates(&t, replicas_gate(true)).await;
        let name = format!("row{i}");
        let seed = if has { json!({"image": "a", "replicas": 1}) } else { json!({"image": "a"}) };
        create(&mut r, "v1", &gadget("v1", &name, seed)).await;
        set_gates(&t, replicas_gate(enabled)).await;
        let (written, w) = update_spec(&mut r, &name, json!({"image": "b", "replicas": 3})).await;
        assert_eq!(written["spec"]["replicas"], want, "row {i}");
        assert_eq!(w, want_warnings, "row {i}");
        let stored = get(&mut r, &name).await;
        assert_eq!(stored["spec"]["replicas"], want, "row {i}");
        assert_eq!(stored["spec"]["image"], "b", "row {i}: the rest of the write went through");
    }
    // A create with the gate off drops the field, with the warning.
    set_gates(&t, replicas_gate(false)).await;
    let (created, w) = create(&mut r, "v1", &gadget("v1", "fresh", json!({"replicas": 4}))).await;
    assert!(created["spec"].get("replicas").is_none(), "{created}");
    assert_eq!(w, vec![dropped]);
    still_serves(&t).await;
}

/// The design's second table (all eight rows), over gRPC: `.spec.foo` and
/// `.spec.foo.qux` under two gates; `{baz: 2, qux: 3}` written over
/// nothing or over a stored `{qux: 1}`.
#[tokio::test]
async fn the_second_table_over_grpc() {
    let t = TestServer::start().await;
    support::create(&mut t.definitions().await, &gadgets(nested_gates(true, true))).await;
    let mut r = t.resources().await;
    for (i, (has, parent, child, want, warned)) in second_table().into_iter().enumerate() {
        set_gates(&t, nested_gates(true, true)).await;
        let name = format!("row{}", i + 1);
        let seed = if has { json!({"foo": {"qux": 1}}) } else { json!({}) };
        create(&mut r, "v1", &gadget("v1", &name, seed)).await;
        set_gates(&t, nested_gates(parent, child)).await;
        let (_, w) = update_spec(&mut r, &name, json!({"foo": {"baz": 2, "qux": 3}})).await;
        assert_eq!(get(&mut r, &name).await["spec"], want, "row {}", i + 1);
        assert_eq!(w.len(), 1, "row {}: {w:?}", i + 1);
        assert!(w[0].starts_with(warned), "row {}: {w:?}", i + 1);
    }
    // Rows 4 and 8: both enabled, nothing to warn about.
    set_gates(&t, nested_gates(true, true)).await;
    create(&mut r, "v1", &gadget("v1", "open", json!({}))).await;
    let (_, w) = update_spec(&mut r, "open", json!({"foo": {"baz": 2, "qux": 3}})).await;
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(get(&mut r, "open").await["spec"], json!({"foo": {"baz": 2, "qux": 3}}));
    still_serves(&t).await;
}

/// The rows of the second table with a warning: (persisted has qux, Foo,
/// Qux, the stored spec, how the warning starts). Rows 4 and 8 (both on)
/// warn of nothing and are checked on their own.
fn second_table() -> Vec<(bool, bool, bool, Value, &'static str)> {
    let parent = "spec.foo: dropped: feature gate FooFeatureGate";
    let child = "spec.foo.qux: dropped: feature gate QuxFeatureGate";
    let foo_kept = "spec.foo: ignored: feature gate FooFeatureGate";
    let qux_kept = "spec.foo.qux: ignored: feature gate QuxFeatureGate";
    vec![
        (false, false, false, json!({}), parent),
        (false, false, true, json!({}), parent),
        (false, true, false, json!({"foo": {"baz": 2}}), child),
        (true, false, false, json!({"foo": {"qux": 1}}), foo_kept),
        (true, false, true, json!({"foo": {"qux": 1}}), foo_kept),
        (true, true, false, json!({"foo": {"baz": 2, "qux": 1}}), qux_kept),
    ]
}

/// Both tables through `kubectl apply`: the stored object and the warnings
/// kubectl prints.
#[tokio::test]
async fn both_tables_through_kubectl_apply() {
    let t = TestServer::start().await;
    support::create(&mut t.definitions().await, &gadgets(replicas_gate(true))).await;
    let k = Kubectl::new(&t);
    let apply = |name: &str, spec: &str| {
        format!("apiVersion: example.com/v1\nkind: Gadget\nmetadata: {{name: {name}}}\nspec: {spec}\n")
    };
    let first =
        [(false, false, "", true), (false, true, "3", false), (true, false, "1", true), (true, true, "3", false)];
    for (i, (has, enabled, want, warns)) in first.into_iter().enumerate() {
        set_gates(&t, replicas_gate(true)).await;
        let name = format!("first{i}");
        let seed = if has { "{image: a, replicas: 1}" } else { "{image: a}" };
        k.ok(&["apply", "-f", &k.file("seed.yaml", &apply(&name, seed))]).await;
        set_gates(&t, replicas_gate(enabled)).await;
        let (ok, _, stderr) =
            k.run(&["apply", "-f", &k.file("w.yaml", &apply(&name, "{image: b, replicas: 3}"))]).await;
        assert!(ok, "{stderr}");
        assert_eq!(stderr.contains("feature gate ReplicasFeatureGate (alpha) is disabled"), warns, "row {i}: {stderr}");
        let got = k.ok(&["get", "gadget", &name, "-o", "jsonpath={.spec.replicas}"]).await;
        assert_eq!(got, want, "row {i}");
    }
    set_gates(&t, nested_gates(true, true)).await;
    for (i, (has, parent, child, want, warned)) in second_table().into_iter().enumerate() {
        set_gates(&t, nested_gates(true, true)).await;
        let name = format!("second{i}");
        let seed = if has { "{foo: {qux: 1}}" } else { "{}" };
        k.ok(&["apply", "-f", &k.file("seed.yaml", &apply(&name, seed))]).await;
        set_gates(&t, nested_gates(parent, child)).await;
        let (ok, _, stderr) =
            k.run(&["apply", "-f", &k.file("w.yaml", &apply(&name, "{foo: {baz: 2, qux: 3}}"))]).await;
        assert!(ok, "{stderr}");
        assert!(stderr.contains(warned), "row {i}: {stderr}");
        let got: Value = serde_json::from_str(&k.ok(&["get", "gadget", &name, "-o", "json"]).await).unwrap();
        assert_eq!(got["spec"], want, "row {i}");
    }
    still_serves(&t).await;
}

/// A write that only touches a disabled field changes nothing: same
/// object, same generation, no new resourceVersion.
#[tokio::test]
async fn a_write_of_only_a_disabled_field_is_a_no_op() {
    let t = TestServer::start().await;
    support::create(&mut t.definitions().await, &gadgets(replicas_gate(false))).await;
    let mut r = t.resources().await;
    let (before, _) = create(&mut r, "v1", &gadget("v1", "g", json!({"image": "a"}))).await;
    let (after, w) = update_spec(&mut r, "g", json!({"image": "a", "replicas": 9})).await;
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(after["metadata"]["generation"], 1);
    assert_eq!(after["metadata"]["resourceVersion"], before["metadata"]["resourceVersion"]);
    assert_eq!(after, before);
    let (changed, _) = update_spec(&mut r, "g", json!({"image": "b", "replicas": 9})).await;
    assert_eq!(changed["metadata"]["generation"], 2, "a real change is a new generation");
    still_serves(&t).await;
}

/// Toggling `enabled` takes effect on the next write and never rewrites
/// stored objects.
#[tokio::test]
async fn a_toggle_takes_effect_on_the_next_write_and_rewrites_nothing() {
    let t = TestServer::start().await;
    support::create(&mut t.definitions().await, &gadgets(replicas_gate(true))).await;
    let mut r = t.resources().await;
    let (stored, _) = create(&mut r, "v1", &gadget("v1", "g", json!({"replicas": 2}))).await;
    set_gates(&t, replicas_gate(false)).await;
    let read = get(&mut r, "g").await;
    assert_eq!(read["spec"]["replicas"], 2);
    assert_eq!(read["metadata"]["resourceVersion"], stored["metadata"]["resourceVersion"]);
    let (_, w) = update_spec(&mut r, "g", json!({"replicas": 5})).await;
    assert_eq!(get(&mut r, "g").await["spec"]["replicas"], 2, "{w:?}");
    set_gates(&t, replicas_gate(true)).await;
    update_spec(&mut r, "g", json!({"replicas": 5})).await;
    assert_eq!(get(&mut r, "g").await["spec"]["replicas"], 5);
    still_serves(&t).await;
}

/// A toggle rewrites no object, so open watches go on and see the next
/// write, gated by the new state.
#[tokio::test]
async fn open_watches_survive_a_toggle() {
    let t = TestServer::start().await;
    support::create(&mut t.definitions().await, &gadgets(replicas_gate(true))).await;
    let mut r = t.resources().await;
    let request = pb::WatchResourcesRequest { r#ref: Some(gadget_ref("v1", "")), options: None };
    let mut w = r.watch(request).await.unwrap().into_inner();
    set_gates(&t, replicas_gate(false)).await;
    create(&mut r, "v1", &gadget("v1", "g", json!({"replicas": 2}))).await;
    let event = tokio::time::timeout(support::WAIT, w.message()).await.expect("an event in time").unwrap();
    let event = event.expect("the watch is still open");
    assert_eq!(event.r#type(), pb::EventType::Added);
    assert!(parse(&event.object)["spec"].get("replicas").is_none());
    still_serves(&t).await;
}

/// Patch, status, scale and a write at a non-storage version are gated.
#[tokio::test]
async fn every_write_path_is_gated() {
    let t = TestServer::start().await;
    support::create(&mut t.definitions().await, &gadgets(replicas_gate(false))).await;
    let mut r = t.resources().await;
    // A write at v2 is gated by the storage version's path.
    let (created, w) = create(&mut r, "v2", &gadget("v2", "g", json!({"image": "a", "replicas": 2}))).await;
    assert!(created["spec"].get("replicas").is_none(), "{created}");
    assert_eq!(w.len(), 1, "{w:?}");
    // A merge patch.
    let req = pb::PatchResourceRequest {
        r#ref: Some(gadget_ref("v1", "g")),
        patch_type: pb::PatchType::Merge as i32,
        patch: br#"{"spec": {"replicas": 7, "image": "p"}}"#.to_vec(),
        ..Default::default()
    };
    let response = r.patch(req).await.unwrap();
    assert_eq!(warnings(&response).len(), 1);
    let patched = parse(&response.into_inner().object);
    assert!(patched["spec"].get("replicas").is_none() && patched["spec"]["image"] == "p", "{patched}");
    // The status endpoint gates `.status` paths (ReadyFeatureGate: beta, off).
    let mut obj = get(&mut r, "g").await;
    obj["status"] = json!({"ready": 1, "replicas": 1});
    let req = pb::UpdateStatusRequest {
        r#ref: Some(gadget_ref("v1", "g")),
        object: serde_json::to_vec(&obj).unwrap(),
        options: None,
    };
    let response = r.update_status(req).await.unwrap();
    assert_eq!(warnings(&response), vec!["status.ready: dropped: feature gate ReadyFeatureGate (beta) is disabled"]);
    let status = parse(&response.into_inner().object)["status"].clone();
    assert_eq!(status, json!({"replicas": 1}));
    // Scale writes `.spec.replicas`: with the gate off, the stored value is
    // kept. (A scale write needs a stored spec replicas, as in Kubernetes.)
    set_gates(&t, replicas_gate(true)).await;
    update_spec(&mut r, "g", json!({"image": "p", "replicas": 2})).await;
    set_gates(&t, replicas_gate(false)).await;
    let scale = json!({"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "g", "namespace": "default"}, "spec": {"replicas": 4}});
    let req = pb::UpdateScaleRequest {
        r#ref: Some(gadget_ref("v1", "g")),
        scale: serde_json::to_vec(&scale).unwrap(),
        options: None,
    };
    let response = r.update_scale(req).await.unwrap();
    assert_eq!(
        warnings(&response),
        vec!["spec.replicas: ignored: feature gate ReplicasFeatureGate (alpha) is disabled; the stored value is kept"],
        "a scale write reports the gated field it could not change"
    );
    let answer = parse(&response.into_inner().scale);
    assert_eq!(answer["spec"]["replicas"], 2, "{answer}");
    assert_eq!(get(&mut r, "g").await["spec"]["replicas"], 2);
    still_serves(&t).await;
}

/// A deprecated gate's warning comes with a write that sets its field.
#[tokio::test]
async fn a_deprecated_field_warns() {
    let t = TestServer::start().await;
    support::create(&mut t.definitions().await, &gadgets(replicas_gate(true))).await;
    let mut r = t.resources().await;
    let (created, w) = create(&mut r, "v1", &gadget("v1", "g", json!({"old": "x"}))).await;
    assert_eq!(created["spec"]["old"], "x");
    assert_eq!(w, vec!["spec.old is deprecated: use spec.image"]);
    still_serves(&t).await;
}

/// CEL rules, printer columns and Table output see the gated object.
#[tokio::test]
async fn rules_and_tables_see_the_gated_object() {
    let t = TestServer::start().await;
    support::create(&mut t.definitions().await, &gadgets(replicas_gate(false))).await;
    let mut r = t.resources().await;
    // The rule `self.replicas < 100` would refuse 300; the gate drops it first.
    create(&mut r, "v1", &gadget("v1", "g", json!({"replicas": 300}))).await;
    let url = format!("http://{}/apis/example.com/v1/namespaces/default/gadgets", t.server().http_addr);
    let table: Value = reqwest::Client::new()
        .get(&url)
        .header("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let cells = &table["rows"][0]["cells"];
    assert_eq!(cells[0], "g");
    assert!(cells[1].is_null() || cells[1] == "", "the dropped field shows empty: {table}");
    still_serves(&t).await;
}

/// Validation at definition write, every error at its field path.
#[tokio::test]
async fn gate_sets_are_validated_at_their_field_paths() {
    let t = TestServer::start().await;
    let mut c = t.definitions().await;
    let bad = gadgets(json!({"featureGates": [
        {"name": "A", "preRelease": "alpha", "fieldPaths": [".spec.replicas"]},
        {"name": "A", "preRelease": "alpha", "default": true, "fieldPaths": [".metadata.name", ".spec.replicas", ".spec.nope", ".spec.items[0]"]},
        {"name": "B", "preRelease": "beta", "fieldPaths": [".spec.image"]},
        {"name": "C", "preRelease": "stable", "default": false, "deprecatedWarning": "x", "fieldPaths": [".spec.foo"]},
        {"name": "", "preRelease": "gamma", "fieldPaths": []}]}));
    let req = pb::CreateDefinitionRequest { definition: bad.bytes(), options: None };
    let err = c.create(req).await.unwrap_err();
    assert_eq!(err.code(), tonic::Code::InvalidArgument);
    assert_eq!(reason(&err), "Invalid");
    let at = "spec.customFeatureGates.featureGates";
    let want: Vec<String> = [
        "[1].name",
        "[1].default",
        "[1].fieldPaths[0]",
        "[1].fieldPaths[1]",
        "[1].fieldPaths[2]",
        "[1].fieldPaths[3]",
        "[2].default",
        "[3].default",
        "[3].deprecatedWarning",
        "[4].name",
        "[4].preRelease",
        "[4].fieldPaths",
    ]
    .iter()
    .map(|p| format!("{at}{p}"))
    .collect();
    assert_eq!(violations(&err), want, "{}", err.message());
    assert!(
        err.message().contains(&format!("{at}[1].fieldPaths[1]: Duplicate value: \".spec.replicas\"")),
        "{}",
        err.message()
    );
    // A path under x-kubernetes-preserve-unknown-fields need not resolve.
    let free = Crd::new("example.com", "Free").set(
        "/spec/customFeatureGates",
        json!({"featureGates": [
        {"name": "Any", "preRelease": "alpha", "fieldPaths": [".spec.anything.below"]}]}),
    );
    support::create(&mut c, &free).await;
    // An update is validated too.
    let mut crd = support::get(&mut c, "frees.example.com").await;
    crd["spec"]["customFeatureGates"]["featureGates"][0]["fieldPaths"][0] = json!(".kind");
    let err = support::update(&mut c, &crd).await.unwrap_err();
    assert_eq!(violations(&err), vec![format!("{at}[0].fieldPaths[0]")]);
    assert_eq!(support::get(&mut c, "frees.example.com").await["metadata"]["name"], "frees.example.com");
}

/// The field round-trips through gRPC and the gateway, and kubectl shows
/// it; the listing answers over gRPC, the gateway and `kubectl
/// feature-gates`.
#[tokio::test]
async fn gates_round_trip_and_are_listed() {
    let t = TestServer::start().await;
    let mut c = t.definitions().await;
    let created = support::create(&mut c, &gadgets(replicas_gate(true))).await;
    assert_eq!(created["spec"]["customFeatureGates"], replicas_gate(true));
    assert_eq!(support::get(&mut c, "gadgets.example.com").await["spec"]["customFeatureGates"], replicas_gate(true));
    support::create(&mut c, &Crd::new("example.com", "Plain")).await;

    let listed = c.list_feature_gates(pb::ListFeatureGatesRequest::default()).await.unwrap().into_inner().gates;
    assert_eq!(listed.len(), 3);
    let first = &listed[0];
    assert_eq!(
        (first.definition.as_str(), first.component.as_str(), first.name.as_str(), first.stage.as_str()),
        ("gadgets.example.com", "istio", "ReplicasFeatureGate", "alpha")
    );
    assert_eq!((first.default, first.enabled, first.effective), (false, Some(true), true));
    assert_eq!(first.paths, vec![".spec.replicas"]);
    assert_eq!(listed[1].enabled, None);
    let none = pb::ListFeatureGatesRequest { definition: String::new(), component: "other".into() };
    assert!(c.list_feature_gates(none).await.unwrap().into_inner().gates.is_empty());
    let one = pb::ListFeatureGatesRequest { definition: "gadgets.example.com".into(), component: "istio".into() };
    assert_eq!(c.list_feature_gates(one).await.unwrap().into_inner().gates.len(), 3);

    let url = format!("http://{}/featuregates?component=istio", t.server().http_addr);
    let doc: Value = reqwest::get(&url).await.unwrap().json().await.unwrap();
    assert_eq!(doc["kind"], "FeatureGateList");
    assert_eq!(doc["items"][0]["name"], "ReplicasFeatureGate");
    assert_eq!(doc["items"][0]["effective"], true);

    let k = Kubectl::new(&t);
    let yaml = k.ok(&["get", "crd", "gadgets.example.com", "-o", "yaml"]).await;
    assert!(yaml.contains("customFeatureGates:") && yaml.contains("name: ReplicasFeatureGate"), "{yaml}");

    // The plugin: the crdstore binary linked as kubectl-feature_gates.
    let bin = k.dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_crdstore"), bin.join("kubectl-feature_gates")).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let out = k.command(&["feature-gates"]).env("PATH", &path).output().await.unwrap();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}{table}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<Vec<&str>> = table.lines().map(|l| l.split_whitespace().collect()).collect();
    assert_eq!(lines[0], ["NAME", "DEFINITION", "COMPONENT", "STAGE", "DEFAULT", "ENABLED", "EFFECTIVE", "PATHS"]);
    assert_eq!(
        lines[1],
        ["ReplicasFeatureGate", "gadgets.example.com", "istio", "alpha", "false", "true", "true", ".spec.replicas"]
    );
    assert_eq!(lines.len(), 4, "{table}");
    let out = k
        .command(&["feature-gates", "--component", "nobody", "--no-headers"])
        .env("PATH", &path)
        .output()
        .await
        .unwrap();
    assert!(out.status.success() && out.stdout.is_empty());
    still_serves(&t).await;
}

/// OpenAPI marks gated fields and describes the definition's new field, so
/// kubectl validates and explains it.
#[tokio::test]
async fn openapi_marks_gated_fields_and_explains_the_definition_field() {
    let t = TestServer::start().await;
    let k = Kubectl::new(&t);
    let mut definition = gadgets(replicas_gate(false)).value;
    definition["metadata"]["name"] = json!("gadgets.example.com");
    let file = k.file("crd.json", &definition.to_string());
    k.ok(&["apply", "--validate=true", "-f", &file]).await;
    k.ok(&["wait", "--for", "condition=established", "crd/gadgets.example.com", "--timeout=20s"]).await;

    let url = format!("http://{}/openapi/v3/apis/example.com/v1", t.server().http_addr);
    let doc: Value = reqwest::get(&url).await.unwrap().json().await.unwrap();
    let replicas =
        &doc["components"]["schemas"]["com.example.v1.Gadget"]["properties"]["spec"]["properties"]["replicas"];
    assert_eq!(
        replicas["x-crdstore-feature-gate"],
        json!({"name": "ReplicasFeatureGate", "preRelease": "alpha", "enabled": false})
    );
    assert_eq!(replicas["description"], "How many.\n\nFeature gate: ReplicasFeatureGate (alpha, disabled).");
    let v2: Value =
        reqwest::get(format!("http://{}/openapi/v2", t.server().http_addr)).await.unwrap().json().await.unwrap();
    assert!(v2["definitions"]["com.example.v1.Gadget"]["properties"]["spec"]["properties"]["replicas"]
        ["x-crdstore-feature-gate"]
        .is_object());

    let explained = k.ok(&["explain", "crd.spec.customFeatureGates"]).await;
    assert!(explained.contains("featureGates") && explained.contains("component"), "{explained}");
    let explained = k.ok(&["explain", "crd.spec.customFeatureGates.featureGates.preRelease"]).await;
    assert!(explained.contains("alpha, beta, stable or deprecated"), "{explained}");
    let gadget = k.ok(&["explain", "gadget.spec.replicas"]).await;
    assert!(gadget.contains("Feature gate: ReplicasFeatureGate (alpha, disabled)."), "{gadget}");
    still_serves(&t).await;
}

//! CEL rules too deep or too large for the stack: refused at the rule's
//! field path when a definition is written, and never a crash, even when
//! such a definition is already stored.

use std::sync::Arc;

use crdstore::pb::v1 as pb;
use crdstore::server::{Config, Server};
use crdstore::storage::sled::{SledOptions, SledStore};
use crdstore::storage::{keys, Op, Storage};
use serde_json::{json, Value};
use tonic::Code;

use crate::support::{self, reason, version, widget, Crd, TestServer};

const RULE_FIELD: &str = "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule";
const MESSAGE_FIELD: &str =
    "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].messageExpression";

/// `self.a + self.a + ... > 0`, with `terms` terms.
fn sum(terms: usize) -> String {
    format!("{} > 0", vec!["self.a"; terms].join(" + "))
}

/// `((((self.a)))) > 0`, `depth` parentheses deep.
fn parenthesized(depth: usize) -> String {
    format!("{}self.a{} > 0", "(".repeat(depth), ")".repeat(depth))
}

/// The Widget definition with `rule` (and `message_expression`) on `spec`.
fn definition(rule: &str, message_expression: Option<&str>) -> Crd {
    let mut validation = json!({"rule": rule});
    if let Some(m) = message_expression {
        validation["messageExpression"] = json!(m);
    }
    let mut v1 = version("v1", true);
    v1["schema"]["openAPIV3Schema"] = json!({"type": "object", "properties": {"spec": {"type": "object",
        "properties": {"a": {"type": "integer"}},
        "x-kubernetes-validations": [validation]}}});
    Crd::new("example.com", "Widget").versions(vec![v1])
}

pub(crate) async fn create_definition(t: &TestServer, crd: &Crd) -> Result<Value, tonic::Status> {
    let mut c = t.definitions().await;
    c.create(pb::CreateDefinitionRequest { definition: crd.bytes(), options: None })
        .await
        .map(|r| support::parse(&r.into_inner().definition))
}

/// Asserts `err` refuses the definition at `field` with `detail`, and that
/// nothing was written and the server still serves.
async fn assert_refused(t: &TestServer, err: tonic::Status, field: &str, detail: &str) {
    assert_eq!((err.code(), reason(&err).as_str()), (Code::InvalidArgument, "Invalid"), "{}", err.message());
    assert_eq!(support::violations(&err), [field], "{}", err.message());
    assert!(err.message().contains(detail), "{}", err.message());
    let mut c = t.definitions().await;
    let listed = c.list(pb::ListDefinitionsRequest { options: None }).await.unwrap().into_inner();
    assert!(listed.items.is_empty(), "nothing was written");
}

/// The server still serves: a good definition and an object of its kind.
async fn assert_serves(t: &TestServer) {
    let crd = create_definition(t, &definition("self.a > 0", None)).await.unwrap();
    assert_eq!(crd["metadata"]["name"], "widgets.example.com");
    let mut r = t.resources().await;
    let created = support::create_widget(&mut r, "ns", &widget("ok", json!({"a": 1}))).await.unwrap();
    assert_eq!(created["spec"]["a"], 1);
}

#[tokio::test]
async fn a_long_chain_of_additions_is_refused_at_the_rule() {
    let t = TestServer::start().await;
    for terms in [3_000, 2_000, 300] {
        let err = create_definition(&t, &definition(&sum(terms), None)).await.unwrap_err();
        assert_refused(
            &t,
            err,
            RULE_FIELD,
            "compilation failed: ERROR: <input>:-1:0: expression recursion limit exceeded: 250",
        )
        .await;
    }
    assert_serves(&t).await;
}

#[tokio::test]
async fn a_chain_within_the_limit_is_accepted_and_evaluated() {
    let t = TestServer::start().await;
    create_definition(&t, &definition(&sum(200), None)).await.unwrap();
    let mut r = t.resources().await;
    let created = support::create_widget(&mut r, "ns", &widget("one", json!({"a": 1}))).await.unwrap();
    assert_eq!(created["spec"]["a"], 1);
    let err = support::create_widget(&mut r, "ns", &widget("zero", json!({"a": 0}))).await.unwrap_err();
    assert_eq!(reason(&err), "Invalid");
    assert!(
        err.message().contains("spec: Invalid value: \"object\": failed rule: self.a + self.a"),
        "{}",
        err.message()
    );
}

#[tokio::test]
async fn deep_parentheses_are_refused_at_the_rule() {
    let t = TestServer::start().await;
    for depth in [100_000, 3_000, 260] {
        let err = create_definition(&t, &definition(&parenthesized(depth), None)).await.unwrap_err();
        let detail = if depth == 100_000 {
            "compilation failed: ERROR: <input>:-1:0: expression code point size exceeds limit: size: 200010, limit 100000"
        } else {
            "compilation failed: ERROR: <input>:-1:0: expression recursion limit exceeded: 250"
        };
        assert_refused(&t, err, RULE_FIELD, detail).await;
    }
    // The parser takes 96 nested brackets at most.
    create_definition(&t, &definition(&parenthesized(90), None)).await.unwrap();
    let mut r = t.resources().await;
    support::create_widget(&mut r, "ns", &widget("one", json!({"a": 1}))).await.unwrap();
}

#[tokio::test]
async fn a_deep_message_expression_is_refused_at_its_field() {
    let t = TestServer::start().await;
    let chained = format!("'a'{}", " + 'a'".repeat(3_000));
    let nested = format!("{}'a'{}", "(".repeat(3_000), ")".repeat(3_000));
    for deep in [chained, nested] {
        let err = create_definition(&t, &definition("self.a > 0", Some(&deep))).await.unwrap_err();
        assert_refused(
            &t,
            err,
            MESSAGE_FIELD,
            "messageExpression compilation failed: ERROR: <input>:-1:0: expression recursion limit exceeded: 250",
        )
        .await;
    }
    assert_serves(&t).await;
}

/// Replaces the rule of the stored Widget definition, behind the API's back,
/// with the server stopped.
pub(crate) async fn store_rule(t: &mut TestServer, rule: &str, message_expression: Option<&str>) {
    t.server.take().unwrap().shutdown().await.unwrap();
    let (store, background) = SledStore::open(t.dir.path(), SledOptions::default()).unwrap();
    tokio::spawn(background.run());
    let store = Arc::new(store);
    let key = keys::definition_key("widgets.example.com");
    let stored = store.get(&key).expect("the definition is stored");
    let mut crd: Value = serde_json::from_slice(&stored.value).unwrap();
    let validation = &mut crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
        ["x-kubernetes-validations"][0];
    validation["rule"] = json!(rule);
    if let Some(m) = message_expression {
        validation["messageExpression"] = json!(m);
    }
    store.commit(vec![Op::update(key, stored.mod_revision, serde_json::to_vec(&crd).unwrap())]).await.unwrap();
    store.close().await;
    drop(store);
    t.server = Some(Server::start(Config::ephemeral(t.dir.path().to_path_buf())).await.unwrap());
}

#[tokio::test]
async fn a_stored_definition_with_a_deep_rule_never_crashes_the_server() {
    let mut t = TestServer::start().await;
    create_definition(&t, &definition("self.a > 0", None)).await.unwrap();
    let mut r = t.resources().await;
    support::create_widget(&mut r, "ns", &widget("before", json!({"a": 1}))).await.unwrap();

    for rule in [sum(3_000), parenthesized(3_000)] {
        store_rule(&mut t, &rule, None).await;
        for restarted in [false, true] {
            if restarted {
                t.restart().await;
            }
            // Writes of the kind fail closed at the rule's node; reads work.
            let mut r = t.resources().await;
            let err = support::create_widget(&mut r, "ns", &widget("after", json!({"a": 1}))).await.unwrap_err();
            assert_eq!((err.code(), reason(&err).as_str()), (Code::InvalidArgument, "Invalid"), "{}", err.message());
            assert_eq!(support::violations(&err), ["spec"]);
            assert!(
                err.message().contains(
                    "spec: Invalid value: \"object\": rule compile error: compilation failed: ERROR: <input>:-1:0: expression recursion limit exceeded: 250"
                ),
                "{}",
                err.message()
            );
            assert_eq!(support::get_widget(&mut r, "ns", "before").await.unwrap()["spec"]["a"], 1);
            let mut c = t.definitions().await;
            assert_eq!(support::get(&mut c, "widgets.example.com").await["metadata"]["name"], "widgets.example.com");
        }
    }
}

#[tokio::test]
async fn a_stored_definition_with_a_deep_message_expression_reports_the_rule() {
    let mut t = TestServer::start().await;
    create_definition(&t, &definition("self.a > 0", None)).await.unwrap();
    store_rule(&mut t, "self.a > 0", Some(&format!("'a'{}", " + 'a'".repeat(3_000)))).await;
    for restarted in [false, true] {
        if restarted {
            t.restart().await;
        }
        // The message expression is left out, as Kubernetes leaves out one
        // that does not compile: the rule still runs, and its failure names it.
        let mut r = t.resources().await;
        let name = format!("ok-{restarted}");
        support::create_widget(&mut r, "ns", &widget(&name, json!({"a": 1}))).await.unwrap();
        let err = support::create_widget(&mut r, "ns", &widget("zero", json!({"a": 0}))).await.unwrap_err();
        assert_eq!(reason(&err), "Invalid", "{}", err.message());
        assert!(
            err.message().contains("spec: Invalid value: \"object\": failed rule: self.a > 0"),
            "{}",
            err.message()
        );
    }
}

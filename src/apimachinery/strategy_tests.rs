//! Tests of the strategy contract: what each phase sets and checks, in order.
use super::*;
use serde_json::json;

/// A kind whose generation follows `spec` and which checks nothing else.
struct Plain(Scope);

impl Strategy for Plain {
    fn scope(&self) -> Scope {
        self.0
    }
    fn invalid(&self, name: &str, causes: Vec<FieldError>) -> Error {
        Error::invalid("example.com", "Plain", name, causes)
    }
    fn prepare_for_create(&self, obj: &mut Value) {
        obj.as_object_mut().unwrap().remove("status");
    }
    fn prepare_for_update(&self, obj: &mut Value, old: &Value) {
        obj["status"] = old.get("status").cloned().unwrap_or(Value::Null);
    }
    fn generation_changed(&self, obj: &Value, old: &Value) -> bool {
        obj.get("spec") != old.get("spec")
    }
    fn validate(&self, _obj: &Value) -> Checked {
        Checked { errors: Vec::new(), warnings: vec!["checked".into()] }
    }
    fn validate_update(&self, obj: &Value, _old: &Value) -> Checked {
        match obj.pointer("/spec/bad") {
            Some(_) => vec![FieldError::forbidden("spec.bad", "no")].into(),
            None => Checked::default(),
        }
    }
}

#[test]
fn create_sets_server_metadata_then_prepares_and_validates() {
    let mut obj = json!({"metadata": {"generateName": "web-", "uid": "forged"}, "status": {"x": 1}});
    let warnings = before_create(&Plain(Scope::Namespaced), &mut obj, "team").unwrap();
    assert_eq!(warnings, vec!["checked"]);
    assert_ne!(obj["metadata"]["uid"], "forged");
    assert_eq!(obj["metadata"]["generation"], 1);
    assert_eq!(obj["metadata"]["namespace"], "team");
    assert!(meta::meta_str(&obj, "name").starts_with("web-"));
    assert!(obj.get("status").is_none(), "prepare_for_create ran");
    let mut cluster = json!({"metadata": {"name": "a", "namespace": "team"}});
    before_create(&Plain(Scope::Cluster), &mut cluster, "").unwrap();
    assert!(cluster["metadata"].get("namespace").is_none());
    let mut set = json!({"metadata": {"name": "a", "resourceVersion": "3"}});
    assert_eq!(
        before_create(&Plain(Scope::Cluster), &mut set, "").unwrap_err().reason,
        crate::error::Reason::BadRequest
    );
}

#[test]
fn update_keeps_server_metadata_and_grows_the_generation_with_the_spec() {
    let old = json!({"metadata": {"name": "a", "uid": "u", "generation": 4, "namespace": "team"},
                     "spec": {"a": 1}, "status": {"s": 1}});
    let mut same = json!({"metadata": {"name": "a", "uid": "forged", "resourceVersion": "9"}, "spec": {"a": 1}});
    before_update(&Plain(Scope::Namespaced), &mut same, &old).unwrap();
    assert_eq!(same["metadata"]["uid"], "u");
    assert_eq!(same["metadata"]["generation"], 4);
    assert_eq!(same["metadata"]["namespace"], "team");
    assert!(same["metadata"].get("resourceVersion").is_none());
    assert_eq!(same["status"]["s"], 1, "prepare_for_update ran");
    let mut changed = json!({"metadata": {"name": "a"}, "spec": {"a": 2}});
    before_update(&Plain(Scope::Namespaced), &mut changed, &old).unwrap();
    assert_eq!(changed["metadata"]["generation"], 5);
    let mut bad = json!({"metadata": {"name": "a"}, "spec": {"bad": true}});
    let err = before_update(&Plain(Scope::Namespaced), &mut bad, &old).unwrap_err();
    assert_eq!(err.details.causes[0].field, "spec.bad");
}

#[test]
fn the_status_endpoint_takes_only_status() {
    let old = json!({"metadata": {"name": "a", "generation": 2, "labels": {"k": "v"}}, "spec": {"a": 1}});
    let mut body = json!({"metadata": {"name": "a", "labels": {}}, "spec": {"a": 9}, "status": {"ok": true}});
    before_update(&StatusStrategy(&Plain(Scope::Cluster)), &mut body, &old).unwrap();
    assert_eq!(body["spec"]["a"], 1);
    assert_eq!(body["metadata"]["labels"]["k"], "v");
    assert_eq!(body["metadata"]["generation"], 2);
    assert_eq!(body["status"]["ok"], true);
}

#[test]
fn finalizers_cannot_be_added_while_deleting() {
    let old = json!({"metadata": {"deletionTimestamp": "t", "finalizers": ["a"]}});
    let new = json!({"metadata": {"finalizers": ["a", "b"]}});
    let errs = validate_finalizers_on_update(&new, &old);
    assert_eq!(errs[0].field, "metadata.finalizers");
    assert!(errs[0].to_string().contains("no new finalizers can be added if the object is being deleted"));
    assert!(validate_finalizers_on_update(&json!({"metadata": {}}), &old).is_empty(), "removing is fine");
}

#[tokio::test]
async fn retry_stops_at_the_first_answer_or_after_the_attempts() {
    let mut tries = 0;
    let answer = retry(
        || {
            tries += 1;
            let t = tries;
            async move { Ok((t == 3).then_some(t)) }
        },
        || Error::internal("x"),
    )
    .await;
    assert_eq!(answer.unwrap(), 3);
    let mut tries = 0;
    let none: Result<()> = retry(
        || {
            tries += 1;
            async { Ok(None) }
        },
        || Error::internal("gave up"),
    )
    .await;
    assert_eq!(none.unwrap_err().message, "gave up");
    assert_eq!(tries, ATTEMPTS);
}

//! Generated objects over the three-version schema of `tests.rs` (renames,
//! a move, defaults, CEL each way, fields only one version holds, lists,
//! schemaless parts): every round trip gives back the original.

use proptest::prelude::*;
use serde_json::{json, Map, Value};

use super::tests::{compile, three_versions};

fn v1_object() -> impl Strategy<Value = Value> {
    let text = "[a-z]{0,6}";
    (
        proptest::option::of(text),
        proptest::option::of(-1000i64..1000),
        proptest::option::of(-50i64..50),
        proptest::option::of(text),
        proptest::option::of(text),
        proptest::option::of(proptest::collection::vec(proptest::option::of(0i64..9), 0..3)),
        proptest::option::of(proptest::collection::btree_map("[a-z]{1,3}", 0i64..9, 0..3)),
        proptest::option::of(text),
        proptest::option::of(proptest::collection::btree_map("[a-z.]{1,8}", text, 0..2)),
    )
        .prop_map(|(a, size, x, keep, extra, list, free, phase, annotations)| {
            let mut spec = Map::new();
            let mut put = |k: &str, v: Option<Value>| {
                if let Some(v) = v {
                    spec.insert(k.into(), v);
                }
            };
            put("a", a.map(Value::from));
            put("size", size.map(Value::from));
            put("moved", x.map(|x| json!({"x": x})));
            put("keep", keep.map(Value::from));
            put("extra1", extra.map(Value::from));
            put(
                "list",
                list.map(|l| {
                    l.into_iter().map(|n| n.map_or(json!({}), |n| json!({"n": n}))).collect::<Vec<_>>().into()
                }),
            );
            put("free", free.map(|f| json!({"m": f})));
            let mut obj = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}});
            if !spec.is_empty() {
                obj["spec"] = Value::Object(spec);
            }
            if let Some(phase) = phase {
                obj["status"] = json!({"phase": phase});
            }
            if let Some(a) = annotations.filter(|a| !a.is_empty()) {
                obj["metadata"]["annotations"] = json!(a);
            }
            obj
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn round_trips_are_the_identity(obj in v1_object()) {
        let d = compile(&three_versions()).unwrap();
        let v2 = d.convert(obj.clone(), "v2").unwrap();
        prop_assert_eq!(&d.convert(v2.clone(), "v1").unwrap(), &obj);
        let v3 = d.convert(v2, "v3").unwrap();
        prop_assert_eq!(&v3["apiVersion"], "example.com/v3");
        prop_assert_eq!(&d.convert(v3.clone(), "v1").unwrap(), &obj);
        // And back up from v3 by way of v2.
        let v2_again = d.convert(v3.clone(), "v2").unwrap();
        prop_assert_eq!(&d.convert(v2_again, "v3").unwrap(), &v3);
    }
}

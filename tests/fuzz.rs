//! Property tests over every decoder in `apimachinery` that takes untrusted
//! bytes: request bodies, label and field selectors, JSON and merge patches,
//! continue tokens and resourceVersions; and the YAML bodies the gateway
//! decodes (repeated keys kept, infinities refused) and the CEL rules
//! definitions carry (calls checked against the declared overloads), the
//! bound on what error messages echo; and the splice of stored
//! bytes that reads answer, and the compact scan it and the declarative
//! engine read stored bytes with, against serde's reader and the `Value` path;
//! and a watch's initial list over objects of any size, read a few MiB at a
//! time, delivered whole and in order. Each property feeds inputs near the
//! grammar plus raw arbitrary bytes and asserts there is no panic and that a
//! refusal is the client's fault (BadRequest, Invalid, RequestEntityTooLarge),
//! never an InternalError. Case counts are bounded so the whole binary stays
//! well under 30 s in a debug build.

use std::collections::BTreeMap;

use base64::Engine as _;
use crdstore::apimachinery::{compact, decode, list, meta, patch, selector};
use crdstore::conversion::declarative::Shape;
use crdstore::error::{Error, FieldError, Reason};
use crdstore::resource::stored;
use crdstore::storage::Revision;
use proptest::prelude::*;
use serde_json::{json, Map, Value};

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

/// Arbitrary JSON values of bounded depth and width.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-1e12f64..1e12).prop_map(Value::from),
        "[a-z0-9 \\-_./\"\\\\\u{0}-\u{1f}é😀]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(("[a-z]{0,4}|metadata|spec|resourceVersion", inner), 0..6)
                .prop_map(|fields| Value::Object(fields.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// An object shaped like a stored custom resource.
fn object() -> impl Strategy<Value = Value> {
    (json_value(), json_value(), prop::option::of("[0-9]{1,4}")).prop_map(|(spec, extra, rv)| {
        let mut obj = json!({"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "a", "labels": {"app": "web"}}, "spec": spec, "a": [1, 2, {"b": extra}]});
        if let Some(rv) = rv {
            obj["metadata"]["resourceVersion"] = Value::String(rv);
        }
        obj
    })
}

fn client_fault(err: &Error, allowed: &[Reason]) {
    assert!(allowed.contains(&err.reason), "unexpected reason {:?}: {}", err.reason, err.message);
}

fn invalid(causes: Vec<FieldError>) -> Error {
    Error::invalid("example.com", "Widget", "a", causes)
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn bodies_round_trip_and_never_panic(value in json_value(), noise in prop::collection::vec(any::<u8>(), 0..64)) {
        let bytes = serde_json::to_vec(&value).unwrap();
        let (parsed, duplicates) = decode::parse(&bytes).expect("serialized JSON parses");
        // serde_json reads floats to within one ulp without `float_roundtrip`.
        prop_assert_eq!(parsed, serde_json::from_slice::<Value>(&bytes).unwrap());
        prop_assert!(duplicates.is_empty());
        let _ = decode::parse(&noise);
        let mut spliced = bytes.clone();
        spliced.splice(bytes.len() / 2..bytes.len() / 2, noise);
        let _ = decode::parse(&spliced);
    }

    #[test]
    fn duplicate_fields_are_reported(key in "[a-w]{1,4}", a in json_value(), b in json_value()) {
        let body = format!(r#"{{"{key}": {a}, "x": {{"{key}": 1, "{key}": 2}}, "{key}": {b}}}"#);
        let (parsed, duplicates) = decode::parse(body.as_bytes()).unwrap();
        prop_assert_eq!(&parsed[&key], &serde_json::from_str::<Value>(&b.to_string()).unwrap());
        prop_assert_eq!(duplicates, vec![format!("x.{key}"), key.clone()]);
    }

    #[test]
    fn label_selectors_parse_or_are_bad_requests(
        parts in prop::collection::vec(
            prop_oneof![
                "[a-z0-9=!,()\\s]{0,12}",
                Just(" in ".to_string()),
                Just(" notin ".to_string()),
                Just("(".to_string()),
                Just(")".to_string()),
                "[a-z]{1,5}(\\.[a-z]{1,3})?/[a-zA-Z0-9_.-]{1,8}",
                "[a-z]{1,6}",
                Just("!".to_string()),
                Just("==".to_string()),
                Just("!=".to_string()),
                Just(",".to_string()),
            ],
            0..10,
        ),
        raw in ".{0,40}",
        labels in prop::collection::btree_map("[a-z]{1,3}", "[a-z]{0,3}", 0..4),
    ) {
        for text in [parts.concat(), raw] {
            match selector::LabelSelector::parse(&text) {
                Ok(sel) => {
                    let _ = sel.matches(&labels);
                    let _ = sel.matches(&BTreeMap::new());
                }
                Err(err) => client_fault(&err, &[Reason::BadRequest]),
            }
        }
    }

    #[test]
    fn field_selectors_parse_or_are_bad_requests(
        parts in prop::collection::vec(
            prop_oneof![
                "[a-z.=!,\\s]{0,10}",
                Just("metadata.name".to_string()),
                Just("metadata.namespace".to_string()),
                Just("=".to_string()),
                Just("==".to_string()),
                Just("!=".to_string()),
                Just(",".to_string()),
                "[a-z0-9-]{0,6}",
            ],
            0..10,
        ),
        raw in ".{0,40}",
    ) {
        for text in [parts.concat(), raw] {
            match selector::FieldSelector::parse(&text, &["metadata.name", "metadata.namespace"]) {
                Ok(sel) => {
                    let _ = sel.matches(|field| field.to_string());
                }
                Err(err) => client_fault(&err, &[Reason::BadRequest]),
            }
        }
    }

    #[test]
    fn resource_versions_are_digits_or_bad_requests(text in prop_oneof!["[0-9+\\- x.e]{0,22}", ".{0,22}"]) {
        match meta::parse_resource_version(&text) {
            Ok(None) => prop_assert!(text.is_empty()),
            Ok(Some(n)) => {
                prop_assert!(text.bytes().all(|b| b.is_ascii_digit()));
                prop_assert_eq!(text.parse::<i64>().unwrap(), n.get());
            }
            Err(err) => {
                client_fault(&err, &[Reason::BadRequest]);
                prop_assert_eq!(&err.details.causes[0].field, "resourceVersion");
            }
        }
    }
}

/// A JSON pointer near the shapes `object()` produces.
fn pointer() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("metadata".to_string()),
            Just("spec".to_string()),
            Just("resourceVersion".to_string()),
            Just("a".to_string()),
            Just("b".to_string()),
            Just("-".to_string()),
            Just("~0".to_string()),
            Just("~1".to_string()),
            "[0-9]{1,2}",
            "[a-z~]{0,3}",
        ],
        0..4,
    )
    .prop_map(|segments| segments.iter().map(|s| format!("/{s}")).collect())
}

fn operation() -> impl Strategy<Value = Value> {
    (
        prop::sample::select(vec!["add", "remove", "replace", "move", "copy", "test", "jump"]),
        pointer(),
        pointer(),
        json_value(),
        any::<bool>(),
    )
        .prop_map(|(op, path, from, value, with_value)| {
            let mut op = json!({"op": op, "path": path, "from": from});
            if with_value {
                op["value"] = value;
            }
            op
        })
}

/// A kind's own merge lists, beside ObjectMeta's, for strategic merge patches.
const MERGE_LISTS: &[(&str, Option<&str>)] = &[("spec.items", Some("name")), ("spec.tags", None)];

const PATCH_FAULTS: &[Reason] =
    &[Reason::BadRequest, Reason::Invalid, Reason::RequestEntityTooLarge, Reason::UnsupportedMediaType];

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn json_patches_apply_or_are_refused(current in object(), ops in prop::collection::vec(operation(), 0..8)) {
        let bytes = serde_json::to_vec(&ops).unwrap();
        match patch::apply(&current, patch::PatchType::Json, &bytes, None, invalid) {
            Ok(patched) => {
                if let Some(rv) = patched.pointer("/metadata/resourceVersion") {
                    prop_assert!(rv.is_null() || rv.as_str().is_some_and(|s| s.bytes().all(|b| b.is_ascii_digit())));
                }
            }
            Err(err) => client_fault(&err, PATCH_FAULTS),
        }
    }

    #[test]
    fn merge_patches_apply_or_are_refused(current in object(), doc in json_value()) {
        let bytes = serde_json::to_vec(&doc).unwrap();
        match patch::apply(&current, patch::PatchType::Merge, &bytes, None, invalid) {
            Ok(patched) => prop_assert!(doc.is_object() && patched.is_object()),
            Err(err) => client_fault(&err, PATCH_FAULTS),
        }
    }

    /// A strategic merge patch, directives and merge lists included, leaves
    /// an object or is refused as the client's fault.
    #[test]
    fn strategic_merge_patches_apply_or_are_refused(current in object(), doc in json_value(),
            directive in prop::sample::select(vec!["$patch", "$retainKeys", "$deleteFromPrimitiveList/finalizers",
                "$setElementOrder/items", "finalizers", "items"])) {
        let mut doc = doc;
        if let Some(map) = doc.as_object_mut() {
            let value = map.values().next().cloned().unwrap_or(Value::Null);
            map.insert(directive.to_string(), value);
        }
        let patched = json!({"metadata": doc.clone(), "spec": doc.clone()});
        for doc in [&doc, &patched] {
            let bytes = serde_json::to_vec(doc).unwrap();
            match patch::apply(&current, patch::PatchType::StrategicMerge, &bytes, Some(MERGE_LISTS), invalid) {
                Ok(patched) => prop_assert!(patched.is_object() || patched.is_null()),
                Err(err) => client_fault(&err, PATCH_FAULTS),
            }
        }
    }

    /// A read's splice of stored bytes (the store's compact JSON, whose
    /// members it finds by a scan of their structure, `stored/scan.rs`) is
    /// byte for byte what the `Value` path serialises: apiVersion replaced
    /// where it is, metadata.resourceVersion replaced where it is or
    /// appended; and it says where it wrote kind and metadata.
    #[test]
    fn a_splice_is_the_value_paths_bytes(
        members in prop::collection::vec(("[a-z]{0,4}|apiVersion|kind|metadata", json_value()), 0..6),
        api in prop::option::of(json_value()),
        meta in prop::option::of(prop::collection::vec(("[a-z]{0,4}|resourceVersion", json_value()), 0..4)),
        rv in 1i64..1_000_000,
    ) {
        let mut object: Map<String, Value> = members.into_iter().collect();
        if let Some(api) = api {
            object.insert("apiVersion".into(), api);
        }
        if let Some(meta) = meta {
            object.insert("metadata".into(), Value::Object(meta.into_iter().collect()));
        }
        let json = serde_json::to_vec(&object).unwrap();
        let mut out = Vec::new();
        let written = stored::splice_into(&json, "g/v2", Revision::new(rv), &mut out);
        let (Some(_), Some(Value::Object(_))) = (object.get("apiVersion"), object.get("metadata")) else {
            prop_assert!(written.is_none() && out.is_empty());
            return Ok(());
        };
        let written = written.expect("an object with apiVersion and metadata splices");
        let mut expected = Value::Object(object);
        expected["apiVersion"] = json!("g/v2");
        expected["metadata"]["resourceVersion"] = json!(rv.to_string());
        prop_assert_eq!(String::from_utf8(out.clone()).unwrap(), serde_json::to_string(&expected).unwrap());
        // Compared as bytes: floats read back may move by an ulp.
        prop_assert_eq!(&out[written.metadata], &serde_json::to_vec(&expected["metadata"]).unwrap()[..]);
        let kind = written.kind.map(|kind| out[kind].to_vec());
        prop_assert_eq!(kind, expected.get("kind").map(|kind| serde_json::to_vec(kind).unwrap()));
    }

    #[test]
    fn the_compact_scan_reads_what_serde_reads(
        value in json_value(),
        paths in prop::collection::vec(prop::collection::vec("[a-z]{0,4}|metadata|spec".prop_map(String::from), 1..4), 0..4),
    ) {
        let json = serde_json::to_vec(&value).unwrap();
        let mut members = Vec::new();
        let read = compact::members(&json, |key, span| {
            members.push((json[key].to_vec(), json[span].to_vec()));
            true
        });
        let mut items = Vec::new();
        let listed = compact::items(&json, |span| items.push(json[span].to_vec()));
        let bytes = |v: &Value| serde_json::to_vec(v).unwrap();
        match &value {
            Value::Object(map) => {
                prop_assert!(read.is_some() && listed.is_none());
                let expected: Vec<_> = map.iter().map(|(k, v)| (k.clone().into_bytes(), bytes(v))).collect();
                prop_assert_eq!(members, expected);
                // A shape's parse of the same object is the object: what it
                // keeps raw is the object's own bytes, what it parses reads
                // as serde reads it (a float written again may move by an
                // ulp, so the values are compared, not the bytes).
                let mut shape = Shape::default();
                for path in &paths {
                    shape.add(path);
                }
                let text = std::str::from_utf8(&json).unwrap();
                let node = shape.parse(text).expect("an object parses");
                prop_assert_eq!(node.into_value(), Some(serde_json::from_slice::<Value>(&json).unwrap()));
            }
            Value::Array(expected) => {
                prop_assert!(read.is_none() && listed.is_some());
                prop_assert_eq!(items, expected.iter().map(bytes).collect::<Vec<_>>());
            }
            _ => prop_assert!(read.is_none() && listed.is_none()),
        }
    }

    #[test]
    fn raw_patch_bytes_are_refused_cleanly(current in object(), bytes in prop::collection::vec(any::<u8>(), 0..96)) {
        for kind in [patch::PatchType::Json, patch::PatchType::Merge, patch::PatchType::StrategicMerge] {
            if let Err(err) = patch::apply(&current, kind, &bytes, Some(MERGE_LISTS), invalid) {
                client_fault(&err, PATCH_FAULTS);
            }
        }
    }

}

proptest! {
    // Each case copies up to 4.5 MiB: a few cases cover both sides of the limit.
    #![proptest_config(config(16))]

    #[test]
    fn copies_stay_within_the_limit(n in 1usize..6, kib in 1usize..900) {
        let current = json!({"spec": {"data": "x".repeat(kib * 1024)}});
        let ops: Vec<Value> =
            (0..n).map(|i| json!({"op": "copy", "from": "/spec/data", "path": format!("/c{i}")})).collect();
        let bytes = serde_json::to_vec(&ops).unwrap();
        let added = n * (kib * 1024 + 2);
        match patch::apply(&current, patch::PatchType::Json, &bytes, None, invalid) {
            Ok(_) => prop_assert!(added <= patch::MAX_COPY_BYTES),
            Err(err) => {
                prop_assert_eq!(err.reason, Reason::Invalid);
                prop_assert!(added > patch::MAX_COPY_BYTES);
            }
        }
    }
}

const PREFIX: &str = "/registry/example.com/widgets/default/";

fn encode(token: &Value, padded: bool) -> String {
    let bytes = serde_json::to_vec(token).unwrap();
    if padded {
        base64::engine::general_purpose::URL_SAFE.encode(bytes)
    } else {
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    }
}

fn check_continue(token: &str) -> Result<(), TestCaseError> {
    match list::decode_continue(token, PREFIX) {
        Ok((start, rv)) => {
            prop_assert!(rv != 0);
            let rest = start.strip_prefix(PREFIX).expect("the start key stays under the prefix");
            prop_assert!(rest.split('/').all(|s| !s.is_empty() && s != ".." && s != "."), "{start:?}");
        }
        Err(err) => {
            client_fault(&err, &[Reason::BadRequest]);
            prop_assert_eq!(&err.details.causes[0].field, "continue");
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn continue_tokens_decode_inside_their_prefix_or_are_bad_requests(
        v in prop_oneof![Just("meta.k8s.io/v1".to_string()), "[a-z0-9./]{0,14}"],
        rv in prop_oneof![Just(0i64), Just(-1i64), any::<i64>(), 1i64..1000],
        segments in prop::collection::vec(
            prop_oneof![Just("..".to_string()), Just(".".to_string()), Just(String::new()), "[a-z0-9\u{0}-]{1,6}"],
            0..5,
        ),
        nul in any::<bool>(),
        lead in any::<bool>(),
        padded in any::<bool>(),
        extra in json_value(),
    ) {
        let mut start = segments.join("/");
        if lead {
            start.insert(0, '/');
        }
        if nul {
            start.push('\u{0}');
        }
        check_continue(&encode(&json!({"v": v, "rv": rv, "start": start}), padded))?;
        check_continue(&encode(&json!({"v": v, "rv": extra, "start": start}), padded))?;
        check_continue(&encode(&extra, padded))?;
    }

    #[test]
    fn raw_continue_strings_are_bad_requests(text in prop_oneof!["[A-Za-z0-9_=-]{0,64}", ".{0,64}"]) {
        check_continue(&text)?;
    }
}

/// YAML bodies: what the gateway decodes before the domain sees them.
/// Indentation, flow brackets, anchors and aliases (the billion laughs)
/// and raw bytes: each either decodes or is a BadRequest.
fn check_yaml(body: &[u8]) -> Result<(), TestCaseError> {
    match crdstore::gateway::codec::yaml_to_json(body) {
        Ok(json) => {
            serde_json::from_slice::<Value>(&json).map_err(|e| TestCaseError::fail(e.to_string()))?;
        }
        Err(err) => client_fault(&err, &[Reason::BadRequest]),
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn yaml_bodies_decode_or_are_bad_requests(
        lines in prop::collection::vec(
            (0usize..8, prop_oneof![
                "[a-z]{1,6}: [a-z0-9\"'{}\\[\\],&*!|>-]{0,12}",
                "- [a-z0-9{}\\[\\],&*]{0,10}",
                "&[a-z] [\\[{][a-z, ]{0,8}[\\]}]?",
                "[a-z]: \\*[a-z]",
                "[\\[{]{1,40}",
                "[^\n]{0,16}",
            ]),
            0..24,
        ),
    ) {
        let text: String = lines.iter().map(|(indent, line)| format!("{}{line}\n", " ".repeat(*indent))).collect();
        check_yaml(text.as_bytes())?;
    }

    #[test]
    fn raw_bytes_as_yaml_are_decoded_or_bad_requests(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        check_yaml(&bytes)?;
    }
}

proptest! {
    #![proptest_config(config(256))]

    /// A YAML body decodes as the JSON body of the value serde_norway reads
    /// from it would (numbers as serde_json reads them from text).
    #[test]
    fn json_values_written_as_yaml_decode_as_their_json_would(value in json_value()) {
        let yaml = serde_norway::to_string(&value).unwrap();
        let json = crdstore::gateway::codec::yaml_to_json(yaml.as_bytes()).unwrap();
        let (decoded, duplicates) = decode::parse(&json).unwrap();
        let read: Value = serde_norway::from_str(&yaml).unwrap();
        let (as_json, _) = decode::parse(&serde_json::to_vec(&read).unwrap()).unwrap();
        prop_assert_eq!(&decoded, &as_json, "{}", yaml);
        prop_assert!(duplicates.is_empty());
    }

    /// A key a YAML mapping repeats reaches the domain's decoder, which
    /// reports it at its path, the last value winning, as for JSON.
    #[test]
    fn repeated_yaml_keys_are_reported_at_their_paths(key in "[a-w]{1,4}", a in 0i64..100, b in 0i64..100, nested in any::<bool>()) {
        let text = if nested { format!("spec:\n  {key}: {a}\n  {key}: {b}\n") } else { format!("{key}: {a}\n{key}: {b}\n") };
        let json = crdstore::gateway::codec::yaml_to_json(text.as_bytes()).unwrap();
        let (value, duplicates) = decode::parse(&json).unwrap();
        let path = if nested { format!("spec.{key}") } else { key.clone() };
        prop_assert_eq!(duplicates, vec![path]);
        let last = if nested { &value["spec"][&key] } else { &value[&key] };
        prop_assert_eq!(last, &json!(b));
    }

    /// Values JSON cannot hold are refused, wherever they sit, never stored as null.
    #[test]
    fn yaml_infinities_and_nans_are_refused(
        value in prop_oneof![Just(".inf"), Just("-.inf"), Just(".Inf"), Just("+.INF"), Just(".nan"), Just(".NaN")],
        depth in 0usize..4,
    ) {
        let text = format!("{}{value}{}", "[".repeat(depth), "]".repeat(depth));
        let err = crdstore::gateway::codec::yaml_to_json(text.as_bytes()).unwrap_err();
        client_fault(&err, &[Reason::BadRequest]);
        prop_assert!(err.message.contains("json: unsupported value"), "{}", err.message);
    }

    /// Messages never echo unbounded input: whatever a name, value or path
    /// holds, the message of an error about it stays short.
    #[test]
    fn error_messages_about_long_input_stay_short(len in 0usize..40_000, c in prop::char::any()) {
        let long: String = std::iter::repeat_n(c, len).collect();
        let cause = FieldError::invalid(format!("spec.{long}"), long.as_str(), "bad");
        for err in [
            Error::not_found("example.com", "widgets", &long),
            Error::already_exists("example.com", "widgets", &long),
            Error::invalid("example.com", "Widget", &long, vec![cause.clone()]),
        ] {
            prop_assert!(err.message.len() < 1024, "{} bytes", err.message.len());
            prop_assert!(err.details.name.len() < 300);
        }
        if len > 253 {
            let err = meta::check_request_name("example.com", "Widget", &long).unwrap_err();
            client_fault(&err, &[Reason::Invalid]);
            prop_assert!(err.message.len() < 1024);
        }
    }
}

#[test]
fn yaml_alias_bombs_are_refused_or_stay_small() {
    // Nine levels of ten aliases each: a billion strings if expanded.
    let mut text = String::from("a0: &a0 [\"lol\"]\n");
    for level in 1..10 {
        let refs: Vec<String> = (0..10).map(|_| format!("*a{}", level - 1)).collect();
        text.push_str(&format!("a{level}: &a{level} [{}]\n", refs.join(", ")));
    }
    let started = std::time::Instant::now();
    match crdstore::gateway::codec::yaml_to_json(text.as_bytes()) {
        Ok(json) => assert!(json.len() < 16 << 20, "aliases expanded to {} bytes", json.len()),
        Err(err) => client_fault(&err, &[Reason::BadRequest]),
    }
    assert!(started.elapsed() < std::time::Duration::from_secs(20), "decoding took {:?}", started.elapsed());
}

/// CEL rules as a definition's author may write them, well or badly: each
/// compiles or is reported at its rule's path, never a crash, and a rule
/// that compiles evaluates against an object without a crash.
fn check_rule(rule: &str) -> Result<(), TestCaseError> {
    let schema = json!({"type": "object", "properties": {"spec": {
        "type": "object",
        "x-kubernetes-validations": [{"rule": rule, "messageExpression": rule}],
        "properties": {"a": {"type": "integer"}, "s": {"type": "string", "maxLength": 16},
                       "l": {"type": "array", "maxItems": 8, "items": {"type": "integer"}}}}}});
    let (compiled, errors) =
        crdstore::schema::Schema::compile_checked(&schema, "spec.versions[0].schema.openAPIV3Schema");
    for error in &errors {
        prop_assert!(error.field.contains("x-kubernetes-validations[0]"), "{}", error);
    }
    if let Ok(compiled) = compiled {
        let value = json!({"spec": {"a": 3, "s": "abc", "l": [1, 2, 3]}});
        let checked = crdstore::schema::validate_update(&value, None, &compiled, "", crdstore::schema::Root::Object);
        // A rule the checker accepted names only what the environment
        // declares: it never fails as an undeclared reference when run.
        if errors.is_empty() {
            for error in &checked.errors {
                prop_assert!(!error.to_string().contains("Undeclared reference"), "{rule}: {error}");
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(96))]

    #[test]
    fn cel_rules_compile_or_are_reported_at_their_path(
        tokens in prop::collection::vec(prop_oneof![
            Just("self.a".to_string()), Just("self.s".to_string()), Just("self.l".to_string()),
            Just("+".to_string()), Just("-".to_string()), Just("*".to_string()), Just("/".to_string()),
            Just("==".to_string()), Just("<".to_string()), Just("&&".to_string()), Just("||".to_string()),
            Just("!".to_string()), Just("(".to_string()), Just(")".to_string()), Just("[".to_string()),
            Just("]".to_string()), Just("?".to_string()), Just(":".to_string()), Just(".".to_string()),
            Just("size(".to_string()), Just("all(x, ".to_string()), Just("has(".to_string()),
            Just(".startsWith(".to_string()), Just(".lowerAscii()".to_string()), Just("frobnicate(".to_string()),
            Just(".frobnicate()".to_string()), Just("math.ceil(".to_string()), Just(",".to_string()),
            "[0-9]{1,3}".prop_map(String::from), "'[a-z]{0,4}'".prop_map(String::from),
        ], 0..40),
    ) {
        check_rule(&tokens.join(" "))?;
    }

    #[test]
    fn deep_or_long_rules_are_refused_not_crashes(depth in 0usize..4_000, kind in 0u8..4) {
        let rule = match kind {
            0 => format!("{}self.a{} > 0", "(".repeat(depth), ")".repeat(depth)),
            1 => format!("{} > 0", vec!["self.a"; depth.max(1)].join(" + ")),
            2 => format!("{}true", "!".repeat(depth)),
            _ => format!("{}self.a > 0", "self.a > 0 && ".repeat(depth)),
        };
        check_rule(&rule)?;
    }
}

/// The initial events of a watch over `sizes` objects (each `size` bytes of
/// padding), in key order.
fn initial_events(sizes: &[usize]) -> Vec<(String, usize)> {
    use crdstore::storage::sled::{SledOptions, SledStore};
    use crdstore::storage::{Op, Storage};
    use crdstore::watch::stream::{self, Rendered, WatchSpec};
    use futures::StreamExt;
    use std::sync::Arc;
    use std::time::Duration;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let (store, _background) = SledStore::open(dir.path(), SledOptions::default()).unwrap();
        let store: Arc<dyn Storage> = Arc::new(store);
        let ops = sizes.iter().enumerate().map(|(i, size)| {
            Op::create(format!("/w/{i:03}"), serde_json::to_vec(&json!({"i": i, "pad": "x".repeat(*size)})).unwrap())
        });
        store.commit(ops.collect()).await.unwrap();
        let (_stop, stopped) = tokio::sync::watch::channel(false);
        let spec = WatchSpec {
            prefix: "/w/".into(),
            options: Default::default(),
            decode: Arc::new(|kv| Ok(Rendered::new(serde_json::from_slice(&kv.value).unwrap()))),
            matches: None,
            bookmark: Arc::new(|_, _| Value::Null),
            bookmark_interval: Duration::from_secs(3600),
            default_timeout: Duration::from_secs(3600),
            stopped,
            ends: None,
        };
        let events = stream::start(store, spec).await.unwrap().take(sizes.len());
        let events: Vec<_> = tokio::time::timeout(Duration::from_secs(30), events.collect()).await.unwrap();
        events
            .into_iter()
            .map(|e| {
                let value = &e.unwrap().object.value;
                (format!("/w/{:03}", value["i"].as_u64().unwrap()), value["pad"].as_str().unwrap().len())
            })
            .collect()
    })
}

proptest! {
    // Each case writes up to 10 objects of up to 3 MiB: sizes on both
    // sides of what a page of 4 MiB holds.
    #![proptest_config(config(8))]

    /// However large its objects, a watch's initial list, read a few MiB
    /// at a time, delivers each object once, whole, in key order.
    #[test]
    fn a_watch_delivers_its_whole_initial_list_whatever_the_sizes_of_its_objects(
        sizes in prop::collection::vec(prop_oneof![0usize..2048, (1usize << 19)..(2 << 20), Just(3 << 20)], 1..10)
    ) {
        let expected: Vec<(String, usize)> =
            sizes.iter().enumerate().map(|(i, size)| (format!("/w/{i:03}"), *size)).collect();
        prop_assert_eq!(initial_events(&sizes), expected);
    }
}

//! Table tests for CEL rules: compiling, costing and evaluating, with
//! transition rules and ratcheting.

use serde_json::{json, Value};

use crate::schema::{validate_update, Root, Schema};

/// The problems compiling `schema` reports, as `field: message` strings.
fn problems(schema: Value) -> Vec<String> {
    Schema::compile_checked(&schema, "s").1.iter().map(ToString::to_string).collect()
}

fn with_rule(spec: Value, rule: Value) -> Value {
    let mut spec = spec;
    spec["x-kubernetes-validations"] = json!([rule]);
    json!({"type": "object", "properties": {"spec": spec}})
}

fn spec_schema() -> Value {
    json!({"type": "object", "properties": {
        "replicas": {"type": "integer"},
        "minReplicas": {"type": "integer"},
        "name": {"type": "string", "maxLength": 20},
        "my-field": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 10}},
        "bounded": {"type": "array", "maxItems": 10, "items": {"type": "string", "maxLength": 10}},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}}}})
}

#[test]
fn good_rules_compile() {
    for rule in [
        "self.replicas >= self.minReplicas",
        "has(self.name) ? self.name.startsWith('a') : true",
        "self.my__dash__field == 'x'",
        "self.tags.all(t, t.size() < 5)",
        "self.labels.all(k, self.labels[k] != '')",
        "self.bounded.exists(b, self.bounded.exists(c, b == c))",
        "size(self.tags) < 3 && 'a' in self.tags",
    ] {
        let got = problems(with_rule(spec_schema(), json!({"rule": rule})));
        assert!(got.is_empty(), "{rule}: {got:?}");
    }
}

#[test]
fn bad_rules_are_refused_at_the_rule_path_with_the_compiler_message() {
    let cases = [
        (
            json!({"rule": "self.nope > 0"}),
            "s.properties[spec].x-kubernetes-validations[0].rule",
            "undefined field 'nope'",
        ),
        (
            json!({"rule": "self.replicas >"}),
            "s.properties[spec].x-kubernetes-validations[0].rule",
            "compilation failed: ERROR: <input>:1:",
        ),
        (
            json!({"rule": "self.replicas + 1"}),
            "s.properties[spec].x-kubernetes-validations[0].rule",
            "cel expression must evaluate to a bool",
        ),
        (
            json!({"rule": "self.replicas.x == 1"}),
            "s.properties[spec].x-kubernetes-validations[0].rule",
            "type 'int' does not support field selection",
        ),
        (
            json!({"rule": "other > 1"}),
            "s.properties[spec].x-kubernetes-validations[0].rule",
            "undeclared reference to 'other'",
        ),
        (
            json!({"rule": "true", "message": "two\nlines"}),
            "s.properties[spec].x-kubernetes-validations[0].message",
            "message must not contain line breaks",
        ),
        (
            json!({"rule": "true", "messageExpression": "1 + 2"}),
            "s.properties[spec].x-kubernetes-validations[0].messageExpression",
            "messageExpression must evaluate to a string",
        ),
        (
            json!({"rule": "true", "reason": "Nope"}),
            "s.properties[spec].x-kubernetes-validations[0].reason",
            "supported values: \"FieldValueDuplicate\"",
        ),
        (
            json!({"rule": "true", "fieldPath": ".missing"}),
            "s.properties[spec].x-kubernetes-validations[0].fieldPath",
            "fieldPath must be a valid path",
        ),
        (
            json!({"rule": "true", "optionalOldSelf": true}),
            "s.properties[spec].x-kubernetes-validations[0].optionalOldSelf",
            "may not be set if oldSelf is not used in rule",
        ),
        (json!({"rule": "  "}), "s.properties[spec].x-kubernetes-validations[0].rule", "rule is not specified"),
    ];
    for (rule, field, message) in cases {
        let got = problems(with_rule(spec_schema(), rule.clone()));
        assert!(
            got.iter().any(|p| p.starts_with(&format!("{field}: ")) && p.contains(message)),
            "{rule}: want {field}: ...{message}..., got {got:?}"
        );
    }
}

#[test]
fn an_undefined_field_points_at_the_selection() {
    let got = problems(with_rule(spec_schema(), json!({"rule": "self.nope > 0"})));
    assert!(got[0].contains("ERROR: <input>:1:5: undefined field 'nope'\n | self.nope > 0\n | ....^"), "{got:?}");
}

#[test]
fn old_self_only_where_old_and_new_correlate() {
    let schema = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "atomic": {"type": "array", "items": {"type": "object", "properties": {"a": {"type": "string",
            "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}}}},
        "keyed": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["a"],
            "items": {"type": "object", "required": ["a"], "properties": {"a": {"type": "string",
                "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}}}}}}}});
    let got = problems(schema);
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(got[0].starts_with(
        "s.properties[spec].properties[atomic].items.properties[a].x-kubernetes-validations[0].rule: Invalid value: \"self == oldSelf\": oldSelf cannot be used on the uncorrelatable portion of the schema within s.properties[spec].properties[atomic].items"
    ), "{got:?}");
}

/// cel-go prices `startsWith` and `endsWith` by the prefix's size, so a
/// prefix test of an unbounded string in an unbounded map is cheap (the
/// upstream suite's ratcheting "CEL Add Change Rule"); `contains` still
/// scans the whole string.
#[test]
fn a_prefix_test_costs_its_prefix_not_its_string() {
    let schema = json!({"type": "object", "properties": {"field": {"type": "object",
        "additionalProperties": {"type": "object", "properties": {"stringField": {"type": "string",
            "x-kubernetes-validations": [{"rule": "self.startsWith('k8s') && self.endsWith('x')"}]}}}}}});
    assert!(problems(schema).is_empty());
    let schema = json!({"type": "object", "properties": {"field": {"type": "object",
        "additionalProperties": {"type": "object", "properties": {"stringField": {"type": "string",
            "x-kubernetes-validations": [{"rule": "self.contains('k8s')"}]}}}}}});
    assert!(!problems(schema).is_empty());
}

#[test]
fn unbounded_nested_loops_are_too_expensive() {
    let got =
        problems(with_rule(spec_schema(), json!({"rule": "self.tags.all(a, self.tags.all(b, a != b || a == b))"})));
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(got[0].starts_with("s.properties[spec].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems"), "{got:?}");
    // The rule alone is over the whole schema's budget too.
    assert!(got[1].starts_with("s: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget"), "{got:?}");
    // Bounded, the same loops are fine.
    assert!(problems(with_rule(
        spec_schema(),
        json!({"rule": "self.bounded.all(a, self.bounded.all(b, a != b || a == b))"})
    ))
    .is_empty());
}

/// Validates `new` (over `old` on update) against a schema whose spec has `rules`.
fn run(rules: Value, new: Value, old: Option<Value>) -> (Vec<String>, Vec<String>) {
    let mut spec = spec_schema();
    spec["x-kubernetes-validations"] = rules;
    let schema = Schema::compile(&json!({"type": "object", "properties": {"spec": spec}})).expect("compiles");
    let out = validate_update(&new, old.as_ref(), &schema, "", Root::Object);
    (out.errors.iter().map(ToString::to_string).collect(), out.warnings)
}

#[test]
fn failures_report_message_expression_or_the_rule() {
    let rules = json!([
        {"rule": "self.replicas >= self.minReplicas", "messageExpression": "'replicas ' + string(self.replicas) + ' is below ' + string(self.minReplicas)"},
        {"rule": "self.name.startsWith('a')", "message": "name must start with a", "fieldPath": ".name", "reason": "FieldValueForbidden"},
        {"rule": "self.replicas < 100"}]);
    let (errs, _) = run(rules, json!({"spec": {"replicas": 100, "minReplicas": 200, "name": "bob"}}), None);
    assert_eq!(
        errs,
        [
            "spec: Invalid value: \"object\": replicas 100 is below 200",
            "spec.name: Forbidden: name must start with a",
            "spec: Invalid value: \"object\": failed rule: self.replicas < 100",
        ]
    );
}

#[test]
fn runtime_errors_name_the_rule_and_passing_rules_are_silent() {
    let (errs, _) = run(json!([{"rule": "self.name == 'x'"}]), json!({"spec": {"replicas": 1}}), None);
    assert_eq!(errs, ["spec: Invalid value: \"object\": No such key: name evaluating rule: self.name == 'x'"]);
    let (errs, _) = run(json!([{"rule": "self.replicas == 1"}]), json!({"spec": {"replicas": 1}}), None);
    assert!(errs.is_empty(), "{errs:?}");
}

#[test]
fn a_blocking_schema_error_skips_the_rules_with_one_extra_error() {
    let (errs, _) = run(json!([{"rule": "self.replicas > 5"}]), json!({"spec": {"replicas": "two"}}), None);
    assert_eq!(
        errs,
        [
            "spec.replicas: Invalid value: \"string\": spec.replicas in body must be of type integer: \"string\"",
            "<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
        ]
    );
}

#[test]
fn transition_rules_run_on_update_only_unless_old_self_is_optional() {
    let rules = json!([{"rule": "self.replicas >= oldSelf.replicas", "message": "replicas may not decrease"}]);
    let (errs, _) = run(rules.clone(), json!({"spec": {"replicas": 1}}), None);
    assert!(errs.is_empty(), "create skips transition rules: {errs:?}");
    let (errs, _) = run(rules.clone(), json!({"spec": {"replicas": 1}}), Some(json!({"spec": {"replicas": 3}})));
    assert_eq!(errs, ["spec: Invalid value: \"object\": replicas may not decrease"]);
    let optional =
        json!([{"rule": "oldSelf.hasValue() || self.replicas == 1", "optionalOldSelf": true, "message": "start at 1"}]);
    let (errs, _) = run(optional, json!({"spec": {"replicas": 2}}), None);
    assert_eq!(errs, ["spec: Invalid value: \"object\": start at 1"]);
}

#[test]
fn unchanged_values_ratchet_schema_errors_and_turn_rule_failures_into_warnings() {
    let mut spec = spec_schema();
    spec["properties"]["name"]["x-kubernetes-validations"] =
        json!([{"rule": "self.startsWith('a')", "message": "must start with a"}]);
    spec["properties"]["replicas"]["maximum"] = json!(10);
    let schema = Schema::compile(&json!({"type": "object", "properties": {"spec": spec}})).expect("compiles");
    let old = json!({"spec": {"replicas": 50, "name": "bob", "minReplicas": 1}});
    // Only minReplicas changes: the invalid replicas and name are ratcheted.
    let new = json!({"spec": {"replicas": 50, "name": "bob", "minReplicas": 2}});
    let out = validate_update(&new, Some(&old), &schema, "", Root::Object);
    assert!(out.errors.is_empty(), "{:?}", out.errors);
    assert_eq!(out.warnings, ["spec.name: Invalid value: \"string\": must start with a"]);
    // Changed values are checked.
    let new = json!({"spec": {"replicas": 51, "name": "bobby", "minReplicas": 1}});
    let errs: Vec<String> =
        validate_update(&new, Some(&old), &schema, "", Root::Object).errors.iter().map(ToString::to_string).collect();
    assert_eq!(
        errs,
        [
            "spec.replicas: Invalid value: 51: spec.replicas in body should be less than or equal to 10",
            "spec.name: Invalid value: \"string\": must start with a"
        ]
    );
}

#[test]
fn the_runtime_budget_stops_expensive_evaluations() {
    // Declared unbounded but small at compile time is fine; a huge list at
    // run time costs more than one call may.
    let rules = json!([{"rule": "self.tags.all(t, t.size() < 100)"}]);
    let tags: Vec<String> = (0..400_000).map(|i| format!("t{}", i % 10)).collect();
    let (errs, _) = run(rules.clone(), json!({"spec": {"tags": tags}}), None);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(errs[0].contains("call cost exceeds limit for rule: self.tags.all(t, t.size() < 100)"), "{errs:?}");
    let (errs, _) = run(rules, json!({"spec": {"tags": ["a", "b"]}}), None);
    assert!(errs.is_empty(), "{errs:?}");
}

/// The spec schema of `run`, compiled with `rules`, its rules reading the
/// value whole (`whole`) or only as far as the compiler found they read it.
/// How the differential test compiles a rule.
#[derive(Clone, Copy, Debug)]
enum Form {
    /// As on a write: values converted as far as the rules read them,
    /// selections on objects indexed.
    Written,
    /// Values converted whole.
    Whole,
    /// Selections evaluated as written.
    Selected,
}

fn compiled(rules: &Value, form: Form) -> Schema {
    let mut spec = spec_schema();
    spec["properties"]["items"] = json!({"type": "array", "items": {"type": "object", "properties": {
        "name": {"type": "string"}, "port": {"type": "integer"},
        "env": {"type": "object", "additionalProperties": {"type": "string"}}}}});
    spec["properties"]["opt"] = json!({"type": "object", "nullable": true, "properties": {"a": {"type": "string"}}});
    spec["x-kubernetes-validations"] = rules.clone();
    let mut schema = Schema::compile(&json!({"type": "object", "properties": {"spec": spec}})).expect("compiles");
    let spec = schema.properties.get_mut("spec").expect("spec");
    match form {
        Form::Written => {}
        Form::Whole => spec.rule_need = super::Need::Whole,
        Form::Selected => {
            for compiled in spec.rules.iter_mut().filter_map(|r| r.compiled.as_mut().ok()) {
                compiled.evaluated = std::sync::Arc::new(compiled.program.expression().clone());
            }
        }
    }
    schema
}

#[test]
fn rules_evaluate_the_same_converted_in_part_or_whole_and_with_selections_indexed() {
    let value = json!({"spec": {"replicas": 3, "name": "abc", "my-field": "x", "opt": null, "tags": ["a", "b"], "labels": {"a": "x", "b": ""},
        "items": [{"name": "one", "port": 80, "env": {"K": "V"}}, {"name": "two", "env": {}}]}});
    let old = json!({"spec": {"replicas": 2, "name": "abc", "tags": ["a"], "labels": {"a": "x"},
        "items": [{"name": "one", "port": 81, "env": {"K": "V"}}]}});
    let rules = [
        "self.tags == ['a', 'b']",
        "['a', 'b'] == self.tags",
        "{'a': 'x', 'b': ''} == self.labels",
        "self.labels == {'a': 'x', 'b': ''}",
        "[self.items[0]] == [self.items[0]]",
        "self.items[0] == self.items[1]",
        "self.items.exists(i, i == self.items[1])",
        "has(self.name) && !has(self.minReplicas)",
        "size(self.items) == 2 && self.items.size() == 2 && size(self.labels) == 2",
        "self.tags[0] == 'a' && self.tags[1u] == 'b' && self.tags[1.0] == 'b'",
        "self.tags[5] == 'a'",
        "self.tags[1.5] == 'a'",
        "self.tags['x'] == 'a'",
        "self.labels['missing'] == 'a'",
        "self.labels[1] == 'a'",
        "'a' in self.labels && !('c' in self.labels) && 'b' in self.tags",
        "self.items.all(i, i.port > 0)",
        "self.items.all(i, !has(i.port) || i.port > 0)",
        "self.items.map(i, i.name) == ['one', 'two']",
        "self.items.filter(i, has(i.port)).size() == 1",
        "self.items.exists(i, i.env.exists(k, i.env[k] == 'V'))",
        "self.labels.all(k, self.labels[k] != '')",
        "self.labels.exists(k, k == 'b')",
        "self.items[0].env.K == 'V' && self.items[1].name == 'two'",
        "self.?minReplicas.orValue(0) == 0 && self.?name.orValue('') == 'abc'",
        "type(self.items) == list && type(self.labels) == map && type(self.items[0]) == map",
        "self.items.all(i, i.env.size() <= 1)",
        "self.replicas > oldSelf.replicas && self.items[0] != oldSelf.items[0]",
        "self.items.all(i, oldSelf.items.exists(o, o.name == i.name))",
        "self == oldSelf",
        "self.labels != oldSelf.labels && self.items[0].env == oldSelf.items[0].env",
        "self.my__dash__field == 'x' && has(self.my__dash__field)",
        "self.exists(k, k == 'my__dash__field') && !self.exists(k, k == 'my-field')",
        "self.items[1].port == 80",
        "self.items[0].env.missing == 'V'",
        "self.opt.a == 'x'",
        "self.labels.a == 'x' && self.items[0].env.K == 'V'",
    ];
    for rule in rules {
        let rules = json!([{"rule": rule}]);
        let written = compiled(&rules, Form::Written);
        for form in [Form::Whole, Form::Selected] {
            let other = compiled(&rules, form);
            for old in [None, Some(&old)] {
                let got = validate_update(&value, old, &written, "", Root::Object);
                let want = validate_update(&value, old, &other, "", Root::Object);
                assert_eq!(got.errors, want.errors, "{rule} ({form:?}, old: {})", old.is_some());
            }
        }
    }
    // The table holds both outcomes: it does not pass for failing everywhere.
    let outcomes: Vec<bool> = rules
        .iter()
        .map(|rule| {
            validate_update(&value, None, &compiled(&json!([{"rule": rule}]), Form::Written), "", Root::Object)
                .errors
                .is_empty()
        })
        .collect();
    assert!(outcomes.contains(&true) && outcomes.contains(&false), "{outcomes:?}");
}

#[test]
fn worst_case_charges_over_the_budget_are_priced_before_a_request_is_refused() {
    // Each item's rules may cost up to 100,000 tags' worth: twelve items
    // charged at their worst case nearly exhaust the request's budget. The
    // tags actually present are tiny, so a later rule that really costs
    // several hundred thousand still fits.
    let tags = json!({"type": "array", "maxItems": 100000, "items": {"type": "string", "maxLength": 10}});
    let item = json!({"type": "object", "properties": {"tags": tags}, "x-kubernetes-validations": [
        {"rule": "self.tags.all(t, t.size() < 5)"}]});
    let big = json!({"type": "array", "maxItems": 300000, "items": {"type": "string", "maxLength": 5}});
    let schema = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "items": {"type": "array", "maxItems": 12, "items": item},
        "zz": {"type": "object", "properties": {"big": big}, "x-kubernetes-validations": [
            {"rule": "self.big.all(t, t.size() < 5)"}]}}}}});
    let (compiled, problems) = Schema::compile_checked(&schema, "s");
    assert!(problems.is_empty(), "{problems:?}");
    let compiled = compiled.expect("compiles");
    let items: Vec<Value> = (0..12).map(|_| json!({"tags": ["a", "b"]})).collect();
    let big: Vec<&str> = vec!["a"; 60_000];
    let out =
        validate_update(&json!({"spec": {"items": items, "zz": {"big": big}}}), None, &compiled, "", Root::Object);
    assert!(out.errors.is_empty(), "{:?}", out.errors);
}

#[test]
fn escaped_property_names_select_their_fields_at_run_time() {
    let rules = json!([
        {"rule": "self.my__dash__field == 'x'", "message": "selected"},
        {"rule": "has(self.my__dash__field)", "message": "tested"},
        {"rule": "self.my__dash__field.startsWith('y')", "message": "called"},
        {"rule": "self.exists(k, k == 'my__dash__field')", "message": "iterated"}]);
    let (errs, _) = run(rules.clone(), json!({"spec": {"my-field": "x"}}), None);
    assert_eq!(errs, ["spec: Invalid value: \"object\": called"]);
    let (errs, _) = run(rules, json!({"spec": {"replicas": 1}}), None);
    assert_eq!(
        errs,
        [
            "spec: Invalid value: \"object\": No such key: my__dash__field evaluating rule: self.my__dash__field == 'x'",
            "spec: Invalid value: \"object\": tested",
            "spec: Invalid value: \"object\": No such key: my__dash__field evaluating rule: self.my__dash__field.startsWith('y')",
            "spec: Invalid value: \"object\": iterated",
        ]
    );
}

/// The interpreter builds these errors only when an operator fails (a
/// patch in third_party/cel): they must still read the same.
#[test]
fn operators_on_values_of_the_wrong_type_fail_with_no_such_overload() {
    let spec = json!({"spec": {"replicas": 1, "name": "bob"}});
    let errs: Vec<String> = ["self.replicas < self.name", "!self.name", "-self.name == 1"]
        .into_iter()
        .flat_map(|rule| run(json!([{ "rule": rule }]), spec.clone(), None).0)
        .collect();
    let no_overload = |op: &str, types: &str, rule: &str| {
        format!("spec: Invalid value: \"object\": 'found no matching overload for '{op}' applied to '({types})'': call arguments did not match a supported operator, function or macro signature for rule: {rule}")
    };
    assert_eq!(
        errs,
        [
            no_overload("_<_", "int, string", "self.replicas < self.name"),
            no_overload("!_", "string", "!self.name"),
            no_overload("-_", "string", "-self.name == 1"),
        ]
    );
}

//! Evaluating a node's rules on a write: one activation per node, each
//! evaluation priced from the sizes present before it runs, failures
//! reported (or, where ratcheted, warned) as Kubernetes reports them.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use super::check::{Sizes, Walk};
use super::convert::{node_to_cel, optional};
use super::need::Need;
use super::{limits, Compiled, Reason, Rule, ENV, PER_CALL_LIMIT, RUNTIME_COST_BUDGET};
use crate::error::FieldError;
use crate::schema::{Schema, Type};

/// What evaluating rules found, and what a request has left to spend.
///
/// An evaluation is charged its worst case, estimated from the schema's
/// bounds when the definition was written, as long as those fit the budget:
/// what it actually costs is no more. Only when they do not is each
/// evaluation priced by the sizes actually present, which takes a walk over
/// the value and the rule: the request is then validated again, priced.
#[derive(Debug)]
pub struct Findings {
    pub errors: Vec<FieldError>,
    pub warnings: Vec<String>,
    remaining: i64,
    priced: bool,
    needs_pricing: bool,
}

impl Default for Findings {
    fn default() -> Self {
        Self {
            errors: Vec::new(),
            warnings: Vec::new(),
            remaining: RUNTIME_COST_BUDGET,
            priced: false,
            needs_pricing: false,
        }
    }
}

impl Findings {
    /// Findings of a pass that prices every evaluation by the sizes present.
    pub fn priced() -> Self {
        Self { priced: true, ..Self::default() }
    }

    /// The cost charged so far (the whole budget once it ran out).
    pub fn spent(&self) -> u64 {
        (RUNTIME_COST_BUDGET - self.remaining.max(0)).max(0) as u64
    }

    /// The budget ran out: no further rule runs.
    pub fn exhausted(&self) -> bool {
        self.remaining < 0
    }

    /// Worst-case charges exhausted the budget: the pass must be run again,
    /// priced, to tell whether the real costs do too.
    pub fn needs_pricing(&self) -> bool {
        self.needs_pricing
    }
}

/// A node's value, and its correlated old value when there is one.
pub struct Subject<'v> {
    pub path: &'v str,
    pub value: &'v Value,
    pub old: Option<&'v Value>,
    /// A resource root or embedded resource.
    pub resource: bool,
    /// Failures here are ratcheted: the node (or its nearest correlated
    /// ancestor) equals its old value, so non-transition failures only warn.
    pub ratcheted: bool,
}

/// Evaluates the rules of `schema` on one node.
pub fn evaluate(schema: &Schema, subject: &Subject<'_>, out: &mut Findings) {
    if schema.rules.is_empty() || subject.value.is_null() || out.exhausted() {
        return;
    }
    // Evaluating (and pricing) recurses once per level of a rule: the
    // stack must have room for the deepest, which compiling bounded.
    let depth = schema.rules.iter().map(super::Rule::depth).max().unwrap_or(0);
    limits::evaluating(depth, || evaluate_rules(schema, subject, out));
}

/// Evaluates each rule of `schema` on the node, in order, while the budget
/// lasts: priced, charged, run in the node's activation, its failure
/// reported.
fn evaluate_rules(schema: &Schema, subject: &Subject<'_>, out: &mut Findings) {
    // The value errors show: the node's type, built only for an error.
    let type_name = || type_name(schema);
    let need = &schema.rule_need;
    let convert = |v| node_to_cel(v, schema, subject.resource, need);
    // One activation per node, shared by its rules: converting a value for
    // CEL is what costs most, so each is converted once. Rules with an
    // optional oldSelf see it wrapped, in an activation of their own.
    let mut plain = cel::Context::with_env(Arc::clone(&ENV));
    plain.add_variable_as_val("self", convert(subject.value));
    if let Some(old) = subject.old {
        plain.add_variable_as_val("oldSelf", convert(old));
    }
    let mut optional_activation: Option<cel::Context> = None;
    let mut measured: Option<Measured> = None;
    for rule in &schema.rules {
        let compiled = match &rule.compiled {
            Ok(compiled) => compiled,
            Err(detail) => {
                out.errors.push(FieldError::invalid(
                    subject.path,
                    type_name(),
                    format!("rule compile error: {detail}"),
                ));
                continue;
            }
        };
        if rule.uses_old_self && subject.old.is_none() && !rule.optional_old_self {
            continue;
        }
        let worst_case_fits = rule.static_cost <= PER_CALL_LIMIT && rule.static_cost as i64 <= out.remaining;
        let cost = if rule.data_dependent && (out.priced || !worst_case_fits) {
            let sizes = measured.get_or_insert_with(|| Measured::of(subject.value, schema, need));
            Walk::new(schema, subject.resource, sizes).expr(compiled.program.expression()).1
        } else {
            rule.static_cost
        };
        if !spend(rule, cost, schema, subject, out) {
            return;
        }
        let context = if rule.optional_old_self {
            optional_activation.get_or_insert_with(|| {
                let mut context = cel::Context::with_env(Arc::clone(&ENV));
                context.add_variable_as_val("self", convert(subject.value));
                context.add_variable_as_val("oldSelf", optional(subject.old.map(convert)));
                context
            })
        } else {
            &plain
        };
        let failed = match cel::Value::resolve(&compiled.evaluated, context) {
            Ok(cel::Value::Bool(true)) => continue,
            Ok(cel::Value::Bool(false)) => None,
            Ok(other) => Some(format!("rule did not evaluate to a bool but to {other:?}: {}", rule.source)),
            Err(cel::ExecutionError::NoSuchOverload(e)) => Some(format!(
                "'{e}': call arguments did not match a supported operator, function or macro signature for rule: {}",
                rule.source
            )),
            Err(e) => Some(format!("{e} evaluating rule: {}", rule.source)),
        };
        if let Some(detail) = failed {
            out.errors.push(FieldError::invalid(subject.path, type_name(), detail));
            continue;
        }
        report(rule, compiled, context, schema, subject, out);
    }
}

/// The value errors show: the node's type.
fn type_name(schema: &Schema) -> Value {
    Value::from(schema.type_.map_or("", Type::as_str))
}

/// Charges `cost` for `rule` to the request's budget; false, with the
/// budget spent, when no further rule may run: the call is over its limit,
/// or the budget is (the request is then priced, or refused once priced).
fn spend(rule: &Rule, cost: u64, schema: &Schema, subject: &Subject<'_>, out: &mut Findings) -> bool {
    if cost > PER_CALL_LIMIT {
        out.errors.push(FieldError::invalid(
            subject.path,
            type_name(schema),
            format!(
                "'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: {}",
                rule.source
            ),
        ));
        out.remaining = -1;
        return false;
    }
    if cost as i64 > out.remaining && !out.priced {
        out.needs_pricing = true;
        out.remaining = -1;
        return false;
    }
    if cost as i64 > out.remaining {
        out.errors.push(FieldError::invalid(
            subject.path,
            type_name(schema),
            "validation failed due to running out of cost budget, no further validation rules will be run",
        ));
        out.remaining = -1;
        return false;
    }
    out.remaining -= cost as i64;
    true
}

/// Reports a rule that evaluated to false: at its fieldPath, with its
/// message expression's message, else its message, as its reason says; a
/// warning only where the node is ratcheted and the rule ignores oldSelf.
fn report(
    rule: &Rule,
    compiled: &Compiled,
    context: &cel::Context,
    schema: &Schema,
    subject: &Subject<'_>,
    out: &mut Findings,
) {
    let type_name = || type_name(schema);
    let path = match &rule.field_path {
        Some(relative) => join(subject.path, relative),
        None => subject.path.to_string(),
    };
    let detail = compiled
        .message_expression
        .as_ref()
        .and_then(|m| match m.execute(context) {
            Ok(cel::Value::String(s)) if !s.trim().is_empty() && !s.contains('\n') => Some(s.trim().to_string()),
            _ => None,
        })
        .or_else(|| rule.message.clone())
        .unwrap_or_else(|| format!("failed rule: {}", rule.source));
    let err = match rule.reason {
        Reason::Invalid => FieldError::invalid(path, type_name(), detail),
        Reason::Forbidden => FieldError::forbidden(path, detail),
        Reason::Required => FieldError::required(path, detail),
        Reason::Duplicate => FieldError::duplicate(path, type_name()),
    };
    if !rule.uses_old_self && subject.ratcheted {
        out.warnings.push(err.to_string());
    } else {
        out.errors.push(err);
    }
}

fn join(base: &str, relative: &str) -> String {
    match (base.is_empty(), relative.starts_with('[')) {
        (true, _) => relative.to_string(),
        (false, true) => format!("{base}{relative}"),
        (false, false) => format!("{base}.{relative}"),
    }
}

/// The sizes present in one value: per schema node, the most entries and
/// the longest string seen, and for schemaless parts the value's total size.
struct Measured {
    by_node: HashMap<*const Schema, (u64, u64)>,
    /// JSON nodes and string bytes in the whole value: bounds for parts the
    /// schema does not type.
    nodes: u64,
    bytes: u64,
}

impl Measured {
    /// The sizes in `value`, or only in the fields the rules read when
    /// they read named fields only.
    fn of(value: &Value, schema: &Schema, need: &Need) -> Self {
        let mut m = Measured { by_node: HashMap::new(), nodes: 0, bytes: 0 };
        match (value, need) {
            (Value::Object(map), Need::Part { fields, entries: None }) => {
                for (name, item) in fields.iter().filter_map(|(name, _)| map.get_key_value(name)) {
                    m.visit(item, schema.entry(name));
                }
            }
            _ => m.visit(value, Some(schema)),
        }
        m
    }

    fn visit(&mut self, value: &Value, schema: Option<&Schema>) {
        self.nodes += 1;
        let (n, len) = match value {
            Value::Array(items) => {
                for item in items {
                    self.visit(item, schema.and_then(|s| s.items.as_deref()));
                }
                (items.len() as u64, 0)
            }
            Value::Object(map) => {
                for (k, item) in map {
                    let sub = schema.and_then(|s| s.entry(k));
                    self.visit(item, sub);
                }
                (map.len() as u64, 0)
            }
            Value::String(s) => {
                self.bytes += s.len() as u64;
                (0, s.chars().count() as u64)
            }
            _ => (0, 0),
        };
        if let Some(schema) = schema {
            let entry = self.by_node.entry(schema as *const Schema).or_insert((0, 0));
            entry.0 = entry.0.max(n);
            entry.1 = entry.1.max(len);
        }
    }
}

impl Sizes for Measured {
    fn cardinality(&self, schema: &Schema) -> u64 {
        self.by_node.get(&(schema as *const Schema)).map_or(0, |e| e.0)
    }
    fn length(&self, schema: &Schema) -> u64 {
        self.by_node.get(&(schema as *const Schema)).map_or(0, |e| e.1)
    }
    fn unknown_cardinality(&self) -> u64 {
        self.nodes
    }
    fn unknown_length(&self) -> u64 {
        self.bytes
    }
}

//! CEL validation rules (`x-kubernetes-validations`): compiled and checked
//! once when a definition's schema is compiled, evaluated on writes with a
//! per-call cost limit and a per-request budget, as Kubernetes does.
//!
//! The interpreter is the `cel` crate (cel-rust). It parses and evaluates
//! but has no type checker and no cost tracking, so `check` supplies both:
//! a schema-aware walk that refuses undefined fields and non-boolean rules
//! and estimates cost from the schema's bounds, and, at run time, prices
//! each evaluation from the sizes actually present before running it.

pub mod check;
mod convert;
mod eval;
pub mod expression;
mod field_path;
mod indexed;
mod limits;
mod need;
mod overloads;
mod refused;
mod ty;

use std::collections::BTreeSet;
use std::sync::{Arc, LazyLock};

use serde_json::Value;

use super::Schema;
use crate::error::FieldError;
use check::{Declared, Walk};

pub use eval::{evaluate, Findings, Subject};
pub use need::Need;
use refused::{parse, render_problems, Refused};

/// The largest request Kubernetes accepts; unbounded sizes are estimated
/// from it.
pub const MAX_REQUEST_BYTES: u64 = 3 * 1024 * 1024;
/// The most one evaluation of one rule may cost.
pub const PER_CALL_LIMIT: u64 = 1_000_000;
/// The most a rule's estimated cost, times how often its node can occur,
/// may be when a definition is written.
pub const STATIC_ESTIMATED_COST_LIMIT: u64 = 10_000_000;
/// The most all rules of one schema may be estimated to cost together.
pub const STATIC_ESTIMATED_CRD_COST_LIMIT: u64 = 100_000_000;
/// What one request may spend on rules.
pub const RUNTIME_COST_BUDGET: i64 = 10_000_000;

const REASONS: &[&str] = &["FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"];

static ENV: LazyLock<Arc<cel::Env>> = LazyLock::new(|| {
    let mut env = cel::Env::stdlib();
    for extension in [cel::extensions::strings, cel::extensions::lists, cel::extensions::math] {
        extension(&mut env).expect("the CEL extension libraries declare distinct overloads");
    }
    Arc::new(env)
});

/// How a failed rule is reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reason {
    Invalid,
    Forbidden,
    Required,
    Duplicate,
}

/// One compiled rule.
#[derive(Debug, Clone)]
pub struct Rule {
    /// The rule's text, trimmed, for messages.
    source: String,
    /// What the rule runs, or why it does not compile. A definition with
    /// such a rule is refused when written; one stored all the same (by an
    /// older version, or behind the API's back) fails every evaluation of
    /// the rule with this, as Kubernetes fails a rule that does not compile.
    compiled: Result<Compiled, String>,
    message: Option<String>,
    reason: Reason,
    /// The normalized `fieldPath`, relative to the rule's node.
    field_path: Option<String>,
    /// A transition rule: it reads `oldSelf`.
    uses_old_self: bool,
    /// `oldSelf` is an optional, and the rule also runs without an old value.
    optional_old_self: bool,
    /// The estimated worst-case cost of one evaluation.
    static_cost: u64,
    /// Whether the cost depends on sizes, so it is priced per evaluation.
    data_dependent: bool,
    /// What of `self` (and `oldSelf`) the rule and its message read, so
    /// only that is converted for CEL.
    pub need: Need,
}

/// The programs of a rule that compiles.
#[derive(Debug, Clone)]
struct Compiled {
    program: Arc<cel::Program>,
    /// What is evaluated: the program with its selections on objects
    /// turned into index operations (see `indexed.rs`).
    evaluated: Arc<cel::common::ast::IdedExpr>,
    message_expression: Option<Arc<cel::Program>>,
    /// The depth of the deepest of its expressions, for the stack their
    /// evaluation needs.
    depth: usize,
}

impl Rule {
    /// The depth of the rule's deepest expression (0 when it does not compile).
    fn depth(&self) -> usize {
        self.compiled.as_ref().map_or(0, |c| c.depth)
    }
}

/// Where a node with rules sits, for the checks that depend on it.
pub struct Place<'a> {
    /// The node's path in the definition (`spec.versions[0]...`).
    pub path: &'a str,
    /// A resource root or embedded resource: apiVersion, kind and metadata are visible.
    pub resource: bool,
    /// How many times the node can occur in one object.
    pub cardinality: u64,
    /// The first list above the node that does not correlate old and new
    /// items (not a `map` list), if any.
    pub uncorrelatable: Option<&'a str>,
    /// The rules and message expressions of the definition this one
    /// updates. As Kubernetes compiles those with the environment of stored
    /// expressions, which declares more than new ones may use, their calls
    /// are not refused again: an update that keeps a rule some older
    /// version accepted is not refused for it.
    pub preexisting: &'a BTreeSet<String>,
}

/// Compiles the rules of a node whose schema is `schema`, reporting every
/// problem at its path (`<path>.x-kubernetes-validations[i].rule`) and
/// adding each rule's estimated cost to `total_cost`. A rule that does not
/// compile is kept, failing every evaluation (see [`Rule`]).
pub fn compile(
    json: &Value,
    schema: &Schema,
    place: &Place<'_>,
    errs: &mut Vec<FieldError>,
    total_cost: &mut u64,
) -> Vec<Rule> {
    let Some(all) = json.get("x-kubernetes-validations").and_then(Value::as_array) else { return Vec::new() };
    // Parsing and checking recurse once per level of a rule: they run on a
    // stack of their own, so no rule can overflow the caller's.
    limits::compiling(|| {
        let mut rules = Vec::with_capacity(all.len());
        for (i, raw) in all.iter().enumerate() {
            let at = format!("{}.x-kubernetes-validations[{i}]", place.path);
            let before = errs.len();
            let fields = declared_fields(raw, schema, &at, errs);
            if errs.len() > before {
                continue;
            }
            rules.push(compile_one(raw, fields, schema, place, &at, errs, total_cost));
        }
        rules
    })
}

/// The plain fields of a rule, checked.
struct Fields {
    source: String,
    message: Option<String>,
    message_expression: Option<String>,
    reason: Reason,
    field_path: Option<String>,
    optional_old_self: Option<bool>,
}

fn declared_fields(raw: &Value, schema: &Schema, at: &str, errs: &mut Vec<FieldError>) -> Fields {
    let text = |key: &str| raw.get(key).and_then(Value::as_str).unwrap_or("");
    let has_newline = |s: &str| s.contains(['\n', '\r']);
    let (rule, message, message_expression, field_path) =
        (text("rule"), text("message"), text("messageExpression"), text("fieldPath"));
    if rule.trim().is_empty() {
        errs.push(FieldError::required(format!("{at}.rule"), "rule is not specified"));
    } else if !message.is_empty() && message.trim().is_empty() {
        errs.push(FieldError::invalid(format!("{at}.message"), message, "message must be non-empty if specified"));
    } else if has_newline(message.trim()) {
        errs.push(FieldError::invalid(format!("{at}.message"), message, "message must not contain line breaks"));
    } else if has_newline(rule.trim()) && message.trim().is_empty() {
        errs.push(FieldError::required(
            format!("{at}.message"),
            "message must be specified if rule contains line breaks",
        ));
    }
    if !message_expression.is_empty() && message_expression.trim().is_empty() {
        errs.push(FieldError::required(
            format!("{at}.messageExpression"),
            "messageExpression must be non-empty if specified",
        ));
    }
    let reason = match raw.get("reason").and_then(Value::as_str) {
        None | Some("FieldValueInvalid") => Reason::Invalid,
        Some("FieldValueForbidden") => Reason::Forbidden,
        Some("FieldValueRequired") => Reason::Required,
        Some("FieldValueDuplicate") => Reason::Duplicate,
        Some(other) => {
            errs.push(FieldError::not_supported(format!("{at}.reason"), other, REASONS));
            Reason::Invalid
        }
    };
    let mut normalized = None;
    if !field_path.is_empty() {
        let field = format!("{at}.fieldPath");
        if field_path.trim().is_empty() {
            errs.push(FieldError::invalid(field, field_path, "fieldPath must be non-empty if specified"));
        } else if has_newline(field_path) {
            errs.push(FieldError::invalid(field, field_path, "fieldPath must not contain line breaks"));
        } else {
            match field_path::resolve(field_path, schema) {
                Some(path) => normalized = Some(path),
                None => errs.push(FieldError::invalid(field, field_path, "fieldPath must be a valid path")),
            }
        }
    }
    let non_empty = |s: &str| Some(s.trim().to_string()).filter(|s| !s.is_empty());
    Fields {
        source: rule.trim().to_string(),
        message: non_empty(message),
        message_expression: non_empty(message_expression),
        reason,
        field_path: normalized,
        optional_old_self: raw.get("optionalOldSelf").and_then(Value::as_bool),
    }
}

/// Compiles one rule of `raw` at `at`: parsed, type-checked, its cost
/// estimated and charged, its message expression compiled, its oldSelf
/// use checked. A rule that does not compile is kept with its error.
fn compile_one(
    raw: &Value,
    fields: Fields,
    schema: &Schema,
    place: &Place<'_>,
    at: &str,
    errs: &mut Vec<FieldError>,
    total_cost: &mut u64,
) -> Rule {
    let rule_field = format!("{at}.rule");
    let mut walk = Walk::new(schema, place.resource, &Declared);
    walk.optional_old_self = fields.optional_old_self.unwrap_or(false);
    let checked = parse(&fields.source).and_then(|(program, depth)| {
        let (ty, cost) = walk.value(program.expression());
        if !place.preexisting.contains(&fields.source) {
            walk.problems.append(&mut walk.calls);
        }
        if let Some(problems) = render_problems(&walk.problems, &program, &fields.source) {
            return Err(Refused::Problems(problems));
        }
        if check::scalar_name(ty).is_some_and(|t| t != "bool") {
            return Err(Refused::Problems("cel expression must evaluate to a bool".to_string()));
        }
        Ok((program, depth, cost))
    });
    let (program, mut depth, cost) = match checked {
        Ok(checked) => checked,
        Err(refused) => {
            let detail = format!("compilation failed: {}", refused.text());
            errs.push(refused.error(rule_field, raw, detail.clone()));
            return refused_rule(fields, detail);
        }
    };
    let (uses_old_self, data_dependent, mut need) = (walk.uses_old_self, walk.data_dependent, walk.uses.need(schema));
    charge_cost(cost, place, &rule_field, errs, total_cost);
    // A message expression that does not compile is left out: failures then
    // report the message, or the rule, as Kubernetes does.
    let mut message_expression = None;
    if let Some(source) = &fields.message_expression {
        if let Some((program, message_reads, message_depth)) = compile_message(source, schema, place, raw, at, errs) {
            need = need.merge(message_reads);
            depth = depth.max(message_depth);
            message_expression = Some(Arc::new(program));
        }
    }
    check_old_self(&fields, uses_old_self, place, &rule_field, at, errs);
    let optional_old_self = fields.optional_old_self.unwrap_or(false);
    // An optional oldSelf is selected from as an optional, which indexing
    // treats differently: those rules are evaluated as written.
    let selections = if optional_old_self { &[][..] } else { &walk.indexable[..] };
    let evaluated = Arc::new(indexed::indexed(program.expression(), selections));
    depth = depth.max(limits::depth(&evaluated));
    Rule {
        source: fields.source,
        compiled: Ok(Compiled { program: Arc::new(program), evaluated, message_expression, depth }),
        message: fields.message,
        reason: fields.reason,
        field_path: fields.field_path,
        uses_old_self,
        optional_old_self,
        static_cost: cost,
        data_dependent,
        need,
    }
}

/// The rule kept for a rule that does not compile: its error, and no cost,
/// no reads, no oldSelf.
fn refused_rule(fields: Fields, detail: String) -> Rule {
    Rule {
        source: fields.source,
        compiled: Err(detail),
        message: fields.message,
        reason: fields.reason,
        field_path: fields.field_path,
        uses_old_self: false,
        optional_old_self: false,
        static_cost: 0,
        data_dependent: false,
        need: need::NOTHING.clone(),
    }
}

/// Adds a rule's estimated cost (`cost` times the place's cardinality) to
/// the schema's total, and refuses a rule over the per-rule limit.
fn charge_cost(cost: u64, place: &Place<'_>, rule_field: &str, errs: &mut Vec<FieldError>, total_cost: &mut u64) {
    let estimated = cost.max(1).saturating_mul(place.cardinality.max(1));
    *total_cost = total_cost.saturating_add(estimated);
    if estimated > STATIC_ESTIMATED_COST_LIMIT {
        errs.push(FieldError::forbidden(
            rule_field,
            cost_message("estimated rule cost", estimated, STATIC_ESTIMATED_COST_LIMIT),
        ));
    }
}

/// oldSelf is not used where objects cannot be correlated, and
/// `optionalOldSelf` is set only on a rule that uses it.
fn check_old_self(
    fields: &Fields,
    uses_old_self: bool,
    place: &Place<'_>,
    rule_field: &str,
    at: &str,
    errs: &mut Vec<FieldError>,
) {
    if uses_old_self {
        if let Some(within) = place.uncorrelatable {
            errs.push(FieldError::invalid(
                rule_field,
                fields.source.as_str(),
                format!("oldSelf cannot be used on the uncorrelatable portion of the schema within {within}"),
            ));
        }
    } else if let Some(optional) = fields.optional_old_self {
        errs.push(FieldError::invalid(
            format!("{at}.optionalOldSelf"),
            optional,
            "may not be set if oldSelf is not used in rule",
        ));
    }
}

/// Compiles a rule's message expression: parsed, checked to give a string;
/// None, with the error in `errs`, when it does not compile.
fn compile_message(
    source: &str,
    schema: &Schema,
    place: &Place<'_>,
    raw: &Value,
    at: &str,
    errs: &mut Vec<FieldError>,
) -> Option<(cel::Program, Need, usize)> {
    let field = format!("{at}.messageExpression");
    let (program, depth) = match parse(source) {
        Ok(parsed) => parsed,
        Err(refused) => {
            let detail = format!("messageExpression compilation failed: {}", refused.text());
            errs.push(refused.error(field, raw, detail));
            return None;
        }
    };
    let mut walk = Walk::new(schema, place.resource, &Declared);
    walk.optional_old_self = raw.get("optionalOldSelf").and_then(Value::as_bool).unwrap_or(false);
    let (ty, _) = walk.value(program.expression());
    if !place.preexisting.contains(source) {
        walk.problems.append(&mut walk.calls);
    }
    if let Some(problems) = render_problems(&walk.problems, &program, source) {
        errs.push(FieldError::invalid(field, raw.clone(), format!("messageExpression compilation failed: {problems}")));
        return None;
    }
    if check::scalar_name(ty).is_some_and(|t| t != "string") {
        errs.push(FieldError::invalid(field, raw.clone(), "messageExpression must evaluate to a string"));
        return None;
    }
    let need = walk.uses.need(schema);
    Some((program, need, depth))
}

/// Kubernetes' wording for an estimate over its limit.
pub fn cost_message(what: &str, cost: u64, limit: u64) -> String {
    let factor = cost as f64 / limit as f64;
    let factor = if factor > 100.0 {
        "more than 100x".to_string()
    } else if factor < 1.5 {
        format!("{factor:.6}x")
    } else {
        format!("{factor:.1}x")
    };
    format!(
        "{what} exceeds budget by factor of {factor} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"
    )
}

/// How a property is named in CEL: Kubernetes' escaping, or None when the
/// name cannot be reached from CEL at all.
pub fn escape(name: &str) -> Option<String> {
    const RESERVED: &[&str] = &[
        "true",
        "false",
        "null",
        "in",
        "as",
        "break",
        "const",
        "continue",
        "else",
        "for",
        "function",
        "if",
        "import",
        "let",
        "loop",
        "package",
        "namespace",
        "return",
        "var",
        "void",
        "while",
    ];
    if RESERVED.contains(&name) {
        return Some(format!("__{name}__"));
    }
    let mut chars = name.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    if !first_ok || !name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '/')) {
        return None;
    }
    Some(
        name.replace("__", "__underscores__")
            .replace('.', "__dot__")
            .replace('-', "__dash__")
            .replace('/', "__slash__"),
    )
}

#[cfg(test)]
mod tests;

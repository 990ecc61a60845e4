//! Validating a value against a compiled schema: every error, each at its
//! field path, none stopping the others. On update, errors at values equal
//! to their correlated old value are ratcheted away (Kubernetes'
//! CRDValidationRatcheting); then, unless a blocking error was found, the
//! CEL rules run.

use super::correlate::{correlated_item, unchanged};
use serde_json::Value;

use super::cel::{self, Findings, Subject};
use super::{embedded, entry_of, field_of, formats, Additional, Schema, Type};
use crate::apimachinery::Path;
use crate::error::{CauseType, FieldError};

/// What validating a write found.
#[derive(Debug, Default)]
pub struct Validation {
    pub errors: Vec<FieldError>,
    /// Failures of rules on unchanged values, ratcheted to warnings.
    pub warnings: Vec<String>,
}

/// Every way `value` breaks `schema`'s value keywords, at paths under
/// `path` ("" for the object root, whose `metadata` is checked elsewhere).
/// CEL rules are not run.
pub fn validate(value: &Value, schema: &Schema, path: &str) -> Vec<FieldError> {
    let mut checker = Checker::at(path);
    checker.check(value, schema, &Path::Base(path), None);
    checker.errs
}

/// What the value a validation starts from is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Root {
    /// A whole resource: its `metadata`, `apiVersion` and `kind` are the
    /// server's to check, not the rules'.
    Object,
    /// A field of one (the status endpoint validates `.status` alone).
    Field,
}

/// Validates a write of `value` at `path`, whose old value is `old` on
/// update: the value keywords, ratcheted against `old`, then the CEL rules
/// unless an error blocks them.
pub fn validate_update(value: &Value, old: Option<&Value>, schema: &Schema, path: &str, root: Root) -> Validation {
    let _span = tracing::debug_span!("admission.validate").entered();
    let resource = root == Root::Object;
    let mut checker = Checker::at(path);
    checker.check(value, schema, &Path::Base(path), old);
    ratchet_list_types(&mut checker.errs, old, schema, path);
    let mut out = Validation { errors: checker.errs, warnings: Vec::new() };
    if !schema.has_rules {
        return out;
    }
    if checker.blocking {
        out.errors.push(FieldError::invalid(
            "<nil>",
            Value::Null,
            "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
        ));
        return out;
    }
    let subject = Subject { path, value, old, resource, ratcheted: false };
    let cel = tracing::debug_span!("admission.cel").entered();
    let mut findings = Findings::default();
    run_rules(schema, &subject, &mut findings);
    if findings.needs_pricing() {
        // The worst-case costs charged did not fit the request's budget:
        // price each evaluation by the sizes present, and run again.
        findings = Findings::priced();
        run_rules(schema, &subject, &mut findings);
    }
    crate::metrics::get().cel_cost.record(findings.spent(), &[]);
    drop(cel);
    out.errors.extend(findings.errors);
    out.warnings.extend(findings.warnings);
    out
}

/// Kubernetes' ratcheting of list types on update: while the old object
/// breaks a `set` or `map` list anywhere (after a schema change, say), the
/// new object's list errors are not reported.
fn ratchet_list_types(errs: &mut Vec<FieldError>, old: Option<&Value>, schema: &Schema, path: &str) {
    let Some(old) = old else { return };
    if !errs.iter().any(|e| e.cause == CauseType::Duplicate) {
        return;
    }
    let mut before = Checker::at(path);
    before.check(old, schema, &Path::Base(path), None);
    if before.errs.iter().any(|e| e.cause == CauseType::Duplicate) {
        errs.retain(|e| e.cause != CauseType::Duplicate);
    }
}

/// The CEL pass: every node with rules, with its correlated old value.
fn run_rules(schema: &Schema, subject: &Subject<'_>, findings: &mut Findings) {
    if !schema.has_rules || subject.value.is_null() || findings.exhausted() {
        return;
    }
    // A node equal to its old value ratchets its own failures and, as the
    // nearest correlated ancestor, those of everything below it.
    let ratcheted = subject.ratcheted || subject.old.is_some_and(|old| unchanged(schema, subject.value, old));
    let here = Subject { ratcheted, ..*subject };
    cel::evaluate(schema, &here, findings);
    match subject.value {
        Value::Object(map) => {
            for (name, item) in map {
                if subject.resource && matches!(name.as_str(), "metadata" | "apiVersion" | "kind") {
                    continue;
                }
                let Some(item_schema) = schema.entry(name).filter(|s| s.has_rules) else { continue };
                let path = child(subject.path, name);
                let old = subject.old.and_then(|o| field_of(o, name));
                let resource = item_schema.embedded_resource;
                run_rules(item_schema, &Subject { path: &path, value: item, old, resource, ratcheted }, findings);
            }
        }
        Value::Array(items) => {
            let Some(item_schema) = schema.items.as_deref().filter(|s| s.has_rules) else { return };
            for (i, item) in items.iter().enumerate() {
                let path = format!("{}[{i}]", subject.path);
                let old = correlated_item(schema, item, subject.old);
                let resource = item_schema.embedded_resource;
                run_rules(item_schema, &Subject { path: &path, value: item, old, resource, ratcheted }, findings);
            }
        }
        _ => {}
    }
}

fn child(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}
fn is_integer(value: &Value) -> bool {
    matches!(value, Value::Number(n) if n.is_i64() || n.is_u64())
}

/// Whether `value` is of type `wanted`; integers are numbers too.
fn has_type(value: &Value, wanted: Type) -> bool {
    match (value, wanted) {
        (Value::Bool(_), Type::Boolean) | (Value::Number(_), Type::Number) => true,
        (Value::Number(_), Type::Integer) => is_integer(value),
        (Value::String(_), Type::String) | (Value::Array(_), Type::Array) | (Value::Object(_), Type::Object) => true,
        _ => false,
    }
}

/// The type kube-openapi names a value by in its type errors.
fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) if is_integer(value) => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn format_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        n.to_string()
    }
}

/// `field.TooLong` as Kubernetes reports a maxLength failure.
fn too_long(path: &Path<'_>, max: u64) -> FieldError {
    let unit = if max == 1 { "byte" } else { "bytes" };
    let detail = format!("may not be more than {max} {unit}");
    FieldError { cause: CauseType::TooLong, ..FieldError::invalid_without_value(path, detail) }
}

/// `field.TooMany` as Kubernetes reports a maxItems or maxProperties failure.
fn too_many(path: &Path<'_>, n: u64, max: u64) -> FieldError {
    let unit = if max == 1 { "item" } else { "items" };
    let detail = format!("must have at most {max} {unit}");
    FieldError { cause: CauseType::TooMany, ..FieldError::invalid(path, n, detail) }
}

/// The schema pass: errors, and whether one of them blocks the CEL pass.
#[derive(Default)]
struct Checker {
    errs: Vec<FieldError>,
    blocking: bool,
    /// The length of the base path: kube-openapi names a value by its path
    /// from where validation started (`num in body ...` at `status.num`).
    base: usize,
}

impl Checker {
    fn at(base: &str) -> Self {
        Self { base: base.len(), ..Self::default() }
    }

    /// kube-openapi's words for a failed keyword: `<name> in body <what>`,
    /// the name being the path below the base.
    fn in_body(&self, path: &Path<'_>, what: impl std::fmt::Display) -> String {
        let full = path.to_string();
        let name = full.get(self.base..).unwrap_or(&full);
        let name = name.strip_prefix('.').unwrap_or(name);
        format!("{name} in body {what}")
    }

    /// kube-openapi's type error: the value shown is the name of its type.
    fn type_error(&mut self, path: &Path<'_>, value: &Value, wanted: &str) {
        let found = type_name(value);
        let detail = self.in_body(path, format_args!("must be of type {wanted}: {found:?}"));
        self.push(FieldError::type_invalid(path, found, detail));
    }

    fn push(&mut self, err: FieldError) {
        if matches!(
            err.cause,
            CauseType::Required
                | CauseType::NotSupported
                | CauseType::TypeInvalid
                | CauseType::TooLong
                | CauseType::TooMany
        ) {
            self.blocking = true;
        }
        self.errs.push(err);
    }

    /// Checks `value`; `old` is its correlated old value on update. An
    /// unchanged value is not checked: its errors would all be ratcheted.
    fn check(&mut self, value: &Value, schema: &Schema, path: &Path<'_>, old: Option<&Value>) {
        if old.is_some_and(|old| unchanged(schema, value, old)) {
            return;
        }
        if value.is_null() {
            if let (false, Some(wanted)) = (schema.nullable, schema.type_) {
                self.type_error(path, value, wanted.as_str());
            } else if !schema.nullable && schema.int_or_string {
                self.type_error(path, value, "integer,string");
            }
            return;
        }
        if schema.int_or_string {
            if !matches!(value, Value::String(_)) && !is_integer(value) {
                self.type_error(path, value, "integer,string");
                return;
            }
        } else if let Some(wanted) = schema.type_ {
            if !has_type(value, wanted) {
                self.type_error(path, value, wanted.as_str());
                return;
            }
        }
        if let Some(allowed) = &schema.enum_ {
            if !allowed.contains(value) {
                let shown: Vec<String> =
                    allowed.iter().map(|v| v.as_str().map_or_else(|| v.to_string(), String::from)).collect();
                let shown: Vec<&str> = shown.iter().map(String::as_str).collect();
                self.push(FieldError::not_supported(path, value.clone(), &shown));
            }
        }
        match value {
            Value::Number(n) => self.check_number(n.as_f64().unwrap_or(0.0), value, schema, path),
            Value::String(s) => self.check_string(s, schema, path),
            Value::Array(items) => self.check_array(items, schema, path, old),
            Value::Object(map) => self.check_object(map, schema, path, old),
            _ => {}
        }
        if let Some(format) = schema.format.as_deref() {
            if !formats::valid(format, schema.type_.map(Type::as_str), value) {
                // kube-openapi checks formats of strings only, as type errors.
                let detail = match value {
                    Value::String(s) => self.in_body(path, format_args!("must be of type {format}: {s:?}")),
                    _ => self.in_body(path, format_args!("must be of type {format}")),
                };
                self.push(FieldError::type_invalid(path, value.clone(), detail));
            }
        }
        self.check_combinators(value, schema, path);
    }

    fn check_number(&mut self, n: f64, value: &Value, schema: &Schema, path: &Path<'_>) {
        if let Some(max) = schema.maximum {
            if n > max || (schema.exclusive_maximum && n >= max) {
                let how = if schema.exclusive_maximum { "less than" } else { "less than or equal to" };
                let detail = self.in_body(path, format_args!("should be {how} {}", format_number(max)));
                self.push(FieldError::invalid(path, value.clone(), detail));
            }
        }
        if let Some(min) = schema.minimum {
            if n < min || (schema.exclusive_minimum && n <= min) {
                let how = if schema.exclusive_minimum { "greater than" } else { "greater than or equal to" };
                let detail = self.in_body(path, format_args!("should be {how} {}", format_number(min)));
                self.push(FieldError::invalid(path, value.clone(), detail));
            }
        }
        if let Some(m) = schema.multiple_of.filter(|m| *m > 0.0) {
            let ratio = n / m;
            if (ratio - ratio.round()).abs() > 1e-9 {
                let detail = self.in_body(path, format_args!("should be a multiple of {}", format_number(m)));
                self.push(FieldError::invalid(path, value.clone(), detail));
            }
        }
    }

    fn check_string(&mut self, s: &str, schema: &Schema, path: &Path<'_>) {
        // Characters are counted only when the byte length cannot settle a
        // bound: a string has at most as many characters as bytes, and at
        // least a quarter as many.
        let bytes = s.len() as u64;
        let undecided = schema.max_length.is_some_and(|max| bytes > max)
            || schema.min_length.is_some_and(|min| bytes.div_ceil(4) < min);
        let len = if undecided { s.chars().count() as u64 } else { bytes };
        if let Some(max) = schema.max_length.filter(|max| len > *max) {
            // Kubernetes turns kube-openapi's maxLength failure into
            // `field.TooLong`, which blocks CEL.
            self.push(too_long(path, max));
        }
        if let Some(min) = schema.min_length.filter(|min| len < *min) {
            let detail = self.in_body(path, format_args!("should be at least {min} chars long"));
            self.push(FieldError::invalid(path, s, detail));
        }
        if let Some((source, regex)) = &schema.pattern {
            if !regex.is_match(s) {
                let detail = self.in_body(path, format_args!("should match '{source}'"));
                self.push(FieldError::invalid(path, s, detail));
            }
        }
    }

    fn check_array(&mut self, items: &[Value], schema: &Schema, path: &Path<'_>, old: Option<&Value>) {
        let n = items.len() as u64;
        if let Some(max) = schema.max_items.filter(|max| n > *max) {
            self.push(too_many(path, n, max));
        }
        if let Some(min) = schema.min_items.filter(|min| n < *min) {
            let detail = self.in_body(path, format_args!("should have at least {min} items"));
            self.push(FieldError::invalid(path, Value::from(n), detail));
        }
        if let Some(item_schema) = &schema.items {
            for (i, item) in items.iter().enumerate() {
                self.check(item, item_schema, &path.index(i), correlated_item(schema, item, old));
            }
        }
        self.check_list_uniqueness(items, schema, path);
    }

    /// `set` lists hold each value once; `map` lists each combination of
    /// their key fields once. A repeat is reported at its own index.
    fn check_list_uniqueness(&mut self, items: &[Value], schema: &Schema, path: &Path<'_>) {
        let map_list = match schema.list_type.as_deref() {
            Some("map") => true,
            Some("set") => false,
            _ => return,
        };
        // Each item's key fields are looked up once, not once per pair,
        // into one table of `keys.len()` columns.
        let keys = &schema.list_map_keys;
        let ids: Vec<Option<&Value>> = match map_list {
            true => items.iter().flat_map(|item| keys.iter().map(move |k| field_of(item, k))).collect(),
            false => Vec::new(),
        };
        let id = |i: usize| &ids[i * keys.len()..(i + 1) * keys.len()];
        for i in 1..items.len() {
            let repeated = match map_list {
                true => (0..i).any(|j| id(j) == id(i)),
                false => items[..i].contains(&items[i]),
            };
            if repeated {
                let id = match map_list {
                    true => {
                        let entries =
                            keys.iter().zip(id(i)).map(|(k, v)| (k.clone(), v.cloned().unwrap_or(Value::Null)));
                        Value::Object(entries.collect())
                    }
                    false => items[i].clone(),
                };
                self.push(FieldError::duplicate(&path.index(i), id));
            }
        }
    }

    fn check_object(
        &mut self,
        map: &serde_json::Map<String, Value>,
        schema: &Schema,
        path: &Path<'_>,
        old: Option<&Value>,
    ) {
        let at_root = path.is_root();
        for name in &schema.required {
            if entry_of(map, name).is_none() {
                self.push(FieldError::required(&path.field(name), ""));
            }
        }
        let n = map.len() as u64;
        if let Some(max) = schema.max_properties.filter(|max| n > *max) {
            self.push(too_many(path, n, max));
        }
        if let Some(min) = schema.min_properties.filter(|min| n < *min) {
            let detail = self.in_body(path, format_args!("should have at least {min} properties"));
            self.push(FieldError::invalid(path, Value::from(n), detail));
        }
        if schema.embedded_resource {
            for err in embedded::validate(map, &path.to_string()) {
                self.push(err);
            }
        }
        for (name, item) in map {
            // The server checks a resource's metadata; a root's apiVersion
            // and kind are checked by the schema too, as Kubernetes does
            // (a version's schema may pin its apiVersion).
            let server_owned = match name.as_str() {
                "metadata" => at_root || schema.embedded_resource,
                "apiVersion" | "kind" => schema.embedded_resource && !at_root,
                _ => false,
            };
            if server_owned {
                continue;
            }
            let item_path = path.field(name);
            // A root's apiVersion is checked whatever the old one was, as
            // Kubernetes does: a write through a version's endpoint meets
            // that version's schema (TestInternalVersionIsHandlerVersion).
            let identity = at_root && matches!(name.as_str(), "apiVersion" | "kind");
            let item_old = old.and_then(|o| field_of(o, name)).filter(|_| !identity);
            match (schema.property(name), &schema.additional) {
                (Some(property), _) => self.check(item, property, &item_path, item_old),
                (None, Additional::Schema(other)) => self.check(item, other, &item_path, item_old),
                (None, Additional::Forbidden) => {
                    self.push(FieldError::forbidden(&item_path, "is a forbidden property"))
                }
                (None, Additional::Unset) => {}
            }
        }
    }

    fn check_combinators(&mut self, value: &Value, schema: &Schema, path: &Path<'_>) {
        for sub in &schema.all_of {
            self.check(value, sub, path, None);
        }
        let passes = |sub: &Schema| {
            let mut checker = Checker::default();
            checker.check(value, sub, path, None);
            checker.errs.is_empty()
        };
        if !schema.any_of.is_empty() && !schema.any_of.iter().any(passes) {
            self.push(FieldError::invalid(path, value.clone(), "must validate at least one schema (anyOf)"));
        }
        if !schema.one_of.is_empty() && schema.one_of.iter().filter(|s| passes(s)).count() != 1 {
            self.push(FieldError::invalid(path, value.clone(), "must validate one and only one schema (oneOf)"));
        }
        if let Some(not) = &schema.not {
            if passes(not) {
                self.push(FieldError::invalid(path, value.clone(), "must not validate the schema (not)"));
            }
        }
    }
}

#[cfg(test)]
mod tests;

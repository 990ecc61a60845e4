//! Label and field selectors as Kubernetes parses and applies them
//! (`k8s.io/apimachinery/pkg/labels` and `.../fields`): equality-based and
//! set-based label requirements, and field requirements on the fields a
//! resource supports (for custom resources: `metadata.name`,
//! `metadata.namespace` and a version's `selectableFields`).

use std::collections::BTreeMap;

use serde_json::Value;

use crate::error::{quoted, shown, Error, Result};

/// One label requirement.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Requirement {
    Equals(String, String),
    NotEquals(String, String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Exists(String),
    DoesNotExist(String),
}

/// A parsed label selector; every requirement must hold. Empty selects all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LabelSelector {
    requirements: Vec<Requirement>,
}

fn invalid(selector: &str, why: impl std::fmt::Display) -> Error {
    Error::bad_request(format!(
        "unable to parse requirement: {} (selector {})",
        shown(&why.to_string()),
        quoted(selector)
    ))
}

/// Splits on commas that are not inside parentheses.
fn split_top_level(s: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts
}

fn check_key(selector: &str, key: &str) -> Result<String> {
    match super::dns::qualified_name(key).first() {
        Some(problem) => Err(invalid(selector, format!("invalid label key {key:?}: {problem}"))),
        None => Ok(key.to_string()),
    }
}

fn check_value(selector: &str, value: &str) -> Result<String> {
    match super::dns::label_value(value).first() {
        Some(problem) => Err(invalid(selector, format!("invalid label value: {}: {problem}", quoted(value)))),
        None => Ok(value.to_string()),
    }
}

fn parse_set(selector: &str, rest: &str) -> Result<Vec<String>> {
    let rest = rest.trim();
    let inner = rest
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .ok_or_else(|| invalid(selector, "expected a parenthesised set of values"))?;
    inner.split(',').map(|v| check_value(selector, v.trim())).collect()
}

fn parse_requirement(selector: &str, part: &str) -> Result<Requirement> {
    let part = part.trim();
    if part.is_empty() {
        return Err(invalid(selector, "found '', expected: identifier"));
    }
    if let Some(key) = part.strip_prefix('!') {
        return Ok(Requirement::DoesNotExist(check_key(selector, key.trim())?));
    }
    for (op, is_eq) in [("!=", false), ("==", true), ("=", true)] {
        if let Some((key, value)) = part.split_once(op) {
            let (key, value) = (check_key(selector, key.trim())?, check_value(selector, value.trim())?);
            return Ok(if is_eq { Requirement::Equals(key, value) } else { Requirement::NotEquals(key, value) });
        }
    }
    let words: Vec<&str> = part.splitn(2, char::is_whitespace).collect();
    if words.len() == 2 {
        let rest = words[1].trim_start();
        if let Some(set) = rest.strip_prefix("notin") {
            return Ok(Requirement::NotIn(check_key(selector, words[0])?, parse_set(selector, set)?));
        }
        if let Some(set) = rest.strip_prefix("in") {
            return Ok(Requirement::In(check_key(selector, words[0])?, parse_set(selector, set)?));
        }
        return Err(invalid(selector, format!("found '{rest}', expected: in, notin, =, ==, !=")));
    }
    Ok(Requirement::Exists(check_key(selector, part)?))
}

impl LabelSelector {
    /// Parses a selector string; bad syntax is a BadRequest naming it.
    pub fn parse(selector: &str) -> Result<Self> {
        if selector.trim().is_empty() {
            return Ok(Self::default());
        }
        let requirements =
            split_top_level(selector).into_iter().map(|p| parse_requirement(selector, p)).collect::<Result<_>>()?;
        Ok(Self { requirements })
    }

    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }

    /// Whether `labels` satisfy every requirement.
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.requirements.iter().all(|r| match r {
            Requirement::Equals(k, v) => labels.get(k) == Some(v),
            Requirement::NotEquals(k, v) => labels.get(k) != Some(v),
            Requirement::In(k, vs) => labels.get(k).is_some_and(|l| vs.contains(l)),
            Requirement::NotIn(k, vs) => labels.get(k).is_none_or(|l| !vs.contains(l)),
            Requirement::Exists(k) => labels.contains_key(k),
            Requirement::DoesNotExist(k) => !labels.contains_key(k),
        })
    }
}

/// A parsed field selector over the fields a resource supports.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldSelector {
    /// (field, value, equal) triples; all must hold.
    terms: Vec<(String, String, bool)>,
}

impl FieldSelector {
    /// Parses `selector`, allowing only `supported` fields; any other field
    /// is a BadRequest "field label not supported".
    pub fn parse(selector: &str, supported: &[&str]) -> Result<Self> {
        let mut terms = Vec::new();
        for part in selector.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (field, value, equal) = if let Some((f, v)) = part.split_once("!=") {
                (f, v, false)
            } else if let Some((f, v)) = part.split_once("==") {
                (f, v, true)
            } else if let Some((f, v)) = part.split_once('=') {
                (f, v, true)
            } else {
                return Err(Error::bad_request(format!(
                    "invalid selector: '{}'; can't understand '{}'",
                    shown(selector),
                    shown(part)
                )));
            };
            let field = field.trim();
            if !supported.contains(&field) {
                return Err(Error::bad_request(format!("field label not supported: {field}")));
            }
            terms.push((field.to_string(), value.trim().to_string(), equal));
        }
        Ok(Self { terms })
    }

    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// Whether the object's fields, looked up by `get`, satisfy every term.
    pub fn matches(&self, get: impl Fn(&str) -> String) -> bool {
        self.terms.iter().all(|(field, value, equal)| (get(field) == *value) == *equal)
    }

    /// Whether every term is on one of `fields`.
    pub fn only(&self, fields: &[&str]) -> bool {
        self.terms.iter().all(|(field, _, _)| fields.contains(&field.as_str()))
    }
}

/// The value a field selector compares for the field at the dotted `path`
/// (a selectable field's `jsonPath` without its leading dot) of `obj`, as
/// Kubernetes' custom resource strategy renders it (`fmt.Sprint` of what
/// the path finds): strings as they are, numbers and booleans in their
/// JSON spelling, and the empty string for a missing field or null.
pub fn field_value(obj: &Value, path: &str) -> String {
    let found = path.split('.').try_fold(obj, |node, segment| node.get(segment));
    match found {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => match n.as_f64() {
            // An integral float reads as Go prints a float64 of it.
            Some(f) if !n.is_i64() && !n.is_u64() && f.fract() == 0.0 && f.abs() < 1e21 => format!("{f}"),
            _ => n.to_string(),
        },
        Some(other) => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn equality_and_set_based_requirements() {
        let l = labels(&[("app", "web"), ("tier", "front"), ("example.com/team", "a")]);
        for (sel, want) in [
            ("app=web", true),
            ("app==web,tier!=back", true),
            ("app=db", false),
            ("tier in (front, back)", true),
            ("tier notin (front)", false),
            ("legacy", false),
            ("!legacy", true),
            ("example.com/team", true),
            ("missing notin (x)", true),
            ("", true),
        ] {
            assert_eq!(LabelSelector::parse(sel).unwrap().matches(&l), want, "{sel}");
        }
    }

    #[test]
    fn bad_syntax_is_refused() {
        for sel in ["app in web", "=x", "app=web=", "a b c", "app=(x"] {
            assert!(LabelSelector::parse(sel).is_err(), "{sel}");
        }
    }

    #[test]
    fn only_supported_fields() {
        let sel =
            FieldSelector::parse("metadata.name=a,metadata.namespace!=b", &["metadata.name", "metadata.namespace"])
                .unwrap();
        assert!(sel.matches(|f| if f == "metadata.name" { "a".into() } else { "c".into() }));
        let err = FieldSelector::parse("spec.x=1", &["metadata.name"]).unwrap_err();
        assert_eq!(err.message, "field label not supported: spec.x");
        let err = FieldSelector::parse("spec.x>1", &["spec.x"]).unwrap_err();
        assert_eq!(err.message, "invalid selector: 'spec.x>1'; can't understand 'spec.x>1'");
    }

    #[test]
    fn selectable_field_values_read_as_kubernetes_prints_them() {
        let obj = serde_json::json!({"spec": {"color": "blue", "quantity": 2, "branded": false, "none": null}});
        for (path, want) in [
            ("spec.color", "blue"),
            ("spec.quantity", "2"),
            ("spec.branded", "false"),
            ("spec.none", ""),
            ("spec.missing", ""),
            ("status.x", ""),
        ] {
            assert_eq!(field_value(&obj, path), want, "{path}");
        }
        let sel =
            FieldSelector::parse("spec.quantity=2,spec.branded!=true", &["spec.quantity", "spec.branded"]).unwrap();
        assert!(sel.matches(|f| field_value(&obj, f)));
        assert!(!sel.only(&["metadata.name"]));
    }
}

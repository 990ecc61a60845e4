//! Validation of a definition's declarative conversion at write, every
//! error at its field path: each rule well formed, its paths fields of the
//! two versions' schemas (or under `x-kubernetes-preserve-unknown-fields`),
//! its CEL compiled within the cost bound, no two rules writing the same
//! place, and the conversion graph a tree over the versions: no loop
//! (`v1 -> v2` and `v2 -> v1` together count as one), every served version
//! reached from the storage version.

use serde_json::Value;

use super::path::FieldPath;
use super::{declaration_path, rules_of, RuleRef, Version};
use crate::error::FieldError;
use crate::schema::cel::expression::Expression;
use crate::schema::cel::{cost_message, PER_CALL_LIMIT};
use crate::schema::Schema;

/// The schema node of the field at `path`: Some when declared, None when
/// the field sits under `x-kubernetes-preserve-unknown-fields` (any field
/// may be there), an error saying why it is no field of the schema.
pub(crate) fn schema_at<'s>(root: &'s Schema, path: &FieldPath) -> Result<Option<&'s Schema>, String> {
    let mut at = root;
    for segment in &path.0 {
        match at.entry(segment) {
            Some(next) => at = next,
            None if at.preserve_unknown_fields => return Ok(None),
            None if at.items.is_some() => return Err("must not reach into a list".into()),
            None => return Err(format!("field {segment:?} is not declared")),
        }
    }
    Ok(Some(at))
}

/// Everything wrong with the declarative conversion of `versions`.
pub fn validate(versions: &[Version<'_>]) -> Vec<FieldError> {
    let schemas: Vec<Option<Schema>> =
        versions.iter().map(|v| v.schema.and_then(|s| Schema::compile(s).ok())).collect();
    let index = |name: &str| versions.iter().position(|v| v.name == name);
    let mut errs = Vec::new();
    let mut edges: Vec<(usize, usize, String)> = Vec::new();
    for (i, v) in versions.iter().enumerate() {
        for (target, declaration) in v.conversion.iter().flat_map(|c| &c.declarative) {
            let at = declaration_path(i, target);
            let Some(t) = index(target) else {
                errs.push(FieldError::invalid(&at, target.as_str(), "must be the name of a version in spec.versions"));
                continue;
            };
            if t == i {
                errs.push(FieldError::invalid(&at, target.as_str(), "a version does not convert to itself"));
                continue;
            }
            let check =
                Check { source: (v.name, schemas[i].as_ref()), target: (versions[t].name, schemas[t].as_ref()) };
            check.rules(rules_of(declaration, &at), &mut errs);
            edges.push((i, t, at));
        }
    }
    errs.extend(graph(versions, &edges));
    errs
}

/// One declaration's two versions: names and schemas.
struct Check<'a> {
    source: (&'a str, Option<&'a Schema>),
    target: (&'a str, Option<&'a Schema>),
}

/// A path written by a rule, for the overlap check.
struct Written {
    field: String,
    text: String,
    path: FieldPath,
}

impl Check<'_> {
    fn rules(&self, rules: Vec<(String, RuleRef<'_>)>, errs: &mut Vec<FieldError>) {
        // Where each rule writes, converting forward and backward.
        let (mut forward, mut backward) = (Vec::new(), Vec::new());
        for (at, rule) in rules {
            match rule {
                RuleRef::Rename(r) => {
                    let from = self.path(&at, "from", &r.from, self.source, errs);
                    let to = self.path(&at, "to", &r.to, self.target, errs);
                    push_written(&mut backward, &at, "from", &r.from, from);
                    push_written(&mut forward, &at, "to", &r.to, to);
                }
                RuleRef::Default(d) => {
                    let path = self.path(&at, "path", &d.path, self.target, errs);
                    if let (Some(path), Some(schema)) = (&path, self.source.1) {
                        if matches!(schema_at(schema, path), Ok(Some(_))) {
                            errs.push(FieldError::invalid(
                                format!("{at}.path"),
                                d.path.as_str(),
                                format!(
                                    "must be a field that version {} does not have: a default fills in a field only version {} has",
                                    self.source.0, self.target.0
                                ),
                            ));
                        }
                    }
                    if d.value.is_null() {
                        errs.push(FieldError::required(format!("{at}.value"), ""));
                    } else if let Some(node) =
                        path.as_ref().zip(self.target.1).and_then(|(p, s)| schema_at(s, p).ok().flatten())
                    {
                        // The value must be one the target version's schema accepts.
                        errs.extend(crate::schema::validate(&d.value, node, &format!("{at}.value")));
                    }
                    push_written(&mut forward, &at, "path", &d.path, path);
                }
                RuleRef::Cel(c) => {
                    let from = self.path(&at, "from", &c.from, self.source, errs);
                    let to = self.path(&at, "to", &c.to, self.target, errs);
                    if let Some(from) = &from {
                        self.expression(&at, "forward", &c.forward, self.source.1, from, errs);
                    }
                    if let Some(to) = &to {
                        self.expression(&at, "backward", &c.backward, self.target.1, to, errs);
                    }
                    push_written(&mut backward, &at, "from", &c.from, from);
                    push_written(&mut forward, &at, "to", &c.to, to);
                }
                RuleRef::Malformed => errs
                    .push(FieldError::invalid_without_value(at, "exactly one of rename, default or cel must be set")),
            }
        }
        for written in [forward, backward] {
            for (j, later) in written.iter().enumerate() {
                if let Some(earlier) = written[..j].iter().find(|w| w.path.overlaps(&later.path)) {
                    errs.push(if earlier.path == later.path {
                        FieldError::duplicate(&later.field, later.text.as_str())
                    } else {
                        FieldError::invalid(
                            &later.field,
                            later.text.as_str(),
                            format!("overlaps {}, which {} also writes", earlier.text, earlier.field),
                        )
                    });
                }
            }
        }
    }

    /// The path `text` of `rule.field`, checked against the version's schema.
    fn path(
        &self,
        rule: &str,
        field: &str,
        text: &str,
        (version, schema): (&str, Option<&Schema>),
        errs: &mut Vec<FieldError>,
    ) -> Option<FieldPath> {
        let at = format!("{rule}.{field}");
        if text.is_empty() {
            errs.push(FieldError::required(at, ""));
            return None;
        }
        let path = match FieldPath::parse(text) {
            Ok(path) => path,
            Err(e) => {
                errs.push(FieldError::invalid(at, text, e));
                return None;
            }
        };
        if let Some(Err(e)) = schema.map(|s| schema_at(s, &path)) {
            errs.push(FieldError::invalid(at, text, format!("must be a field of version {version}'s schema: {e}")));
            return None;
        }
        Some(path)
    }

    fn expression(
        &self,
        rule: &str,
        field: &str,
        source: &str,
        schema: Option<&Schema>,
        path: &FieldPath,
        errs: &mut Vec<FieldError>,
    ) {
        let at = format!("{rule}.{field}");
        if source.trim().is_empty() {
            errs.push(FieldError::required(at, ""));
            return;
        }
        let typed = schema.and_then(|s| schema_at(s, path).ok().flatten());
        match Expression::compile(source, typed) {
            Err(e) => errs.push(FieldError::invalid(at, source, e)),
            Ok(e) if e.cost > PER_CALL_LIMIT => {
                errs.push(FieldError::forbidden(at, cost_message("estimated expression cost", e.cost, PER_CALL_LIMIT)))
            }
            Ok(_) => {}
        }
    }
}

fn push_written(written: &mut Vec<Written>, rule: &str, field: &str, text: &str, path: Option<FieldPath>) {
    if let Some(path) = path {
        written.push(Written { field: format!("{rule}.{field}"), text: text.to_string(), path });
    }
}

/// The graph's errors: each declaration that closes a loop, and each
/// served version (or the storage version) no declaration connects to the
/// storage version.
fn graph(versions: &[Version<'_>], edges: &[(usize, usize, String)]) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut kept: Vec<(usize, usize)> = Vec::new();
    for (from, to, at) in edges {
        if let Some(route) = route(versions.len(), &kept, *to, *from) {
            let mut names: Vec<&str> = vec![versions[*from].name, versions[*to].name];
            names.extend(route.iter().map(|&i| versions[i].name));
            errs.push(FieldError::invalid(
                at,
                Value::Null,
                format!(
                    "closes a loop in the conversion graph: {}; declare each conversion once, its reverse is derived from it",
                    names.join(" -> ")
                ),
            ));
            continue;
        }
        kept.push((*from, *to));
    }
    let root = versions.iter().position(|v| v.storage).unwrap_or(0);
    for (i, v) in versions.iter().enumerate() {
        if i != root && (v.served || v.storage) && route(versions.len(), &kept, root, i).is_none() {
            errs.push(FieldError::required(
                format!("spec.versions[{i}].conversion.declarative"),
                format!(
                    "no declared conversion connects version {} to version {}: the conversion graph must reach every served version",
                    v.name, versions[root].name
                ),
            ));
        }
    }
    errs
}

/// The versions on the way from `from` to `to` over `edges` (either
/// direction), `from` excluded and `to` included, if connected.
fn route(n: usize, edges: &[(usize, usize)], from: usize, to: usize) -> Option<Vec<usize>> {
    let mut came = vec![None; n];
    let mut queue = std::collections::VecDeque::from([from]);
    let mut seen = vec![false; n];
    seen[from] = true;
    while let Some(at) = queue.pop_front() {
        if at == to {
            let mut path = vec![to];
            let mut at = to;
            while let Some(prev) = came[at] {
                if prev == from {
                    break;
                }
                path.push(prev);
                at = prev;
            }
            path.reverse();
            return Some(path);
        }
        for &(a, b) in edges {
            for (x, y) in [(a, b), (b, a)] {
                if x == at && !seen[y] {
                    seen[y] = true;
                    came[y] = Some(at);
                    queue.push_back(y);
                }
            }
        }
    }
    None
}

//! The Declarative conversion strategy (the versioning design's
//! declarative conversion, which Kubernetes never built): per version,
//! `spec.versions[i].conversion.declarative.<targetVersion>` declares how
//! that version becomes `targetVersion`, either the design's own shape
//! (`{rename: {from, to}}`) or a list of rules (`{rules: [...]}`), each one
//! of `rename {from, to}` (a move when `to` has another parent),
//! `default {path, value}` (a field only the target has) and
//! `cel {from, to, forward, backward}` (a value computed each way).
//!
//! Each declaration is an edge of the conversion graph, walked both ways:
//! the reverse of a declaration is derived from it, so authors write each
//! step once, and the graph is a tree (no loop, every served version
//! reached), so there is one path between any two versions.
//!
//! Nothing is lost on a round trip: what the target version cannot hold
//! (fields its schema does not have, a default's value other than the
//! default, a computed value whose reverse does not give the original back)
//! is kept in the annotation `conversion.crdstore.io/<sourceVersion>` and
//! restored when the object is converted back to that version.

mod bytes;
mod declaration;
mod memo;
mod path;
mod shape;
mod stash;
mod validate;

use std::collections::VecDeque;

use serde_json::Value;

use crate::error::{Error, Result};
use crate::schema::cel::expression::Expression;
use crate::schema::Schema;
pub(crate) use declaration::{declaration_path, rules_of, RuleRef};
pub use declaration::{Cel, Declaration, DefaultValue, Rename, Rule, Version, VersionConversion};
pub use memo::Memo;
pub use path::FieldPath;
pub use shape::Shape;
pub use shape::{Computed, Node};
pub use stash::{annotation, ANNOTATION_PREFIX};
pub use validate::validate;

/// The edges from one version to another, each walked forward or back,
/// with the apiVersion an object has after it (`Declarative::route_between`).
#[derive(Debug, Clone)]
pub struct Route(Vec<(usize, bool, std::sync::Arc<Computed>)>);

impl Route {
    /// Whether it converts nothing (from a version to itself).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// A definition's declarative conversion, compiled once per revision.
#[derive(Debug, Clone)]
pub struct Declarative {
    versions: Vec<Compiled>,
    edges: Vec<Edge>,
    /// Unique to this compilation in the process: what caches of its
    /// conversions are keyed by (two stores in one process share revisions).
    id: u64,
    /// Where the rules reach: the parents of every path any rule reads or
    /// writes, either way. The metadata is not among them unless a rule
    /// reaches into it: it is read as bytes (`convert_routed`), and a read's
    /// resourceVersion is spliced into them (`resource/stored/convert.rs`).
    shape: Shape,
}

#[derive(Debug, Clone)]
struct Compiled {
    name: String,
    schema: Option<Schema>,
    /// Whether pruning and defaulting by this version's schema can change
    /// an object the engine converted to it without setting anything
    /// aside: when the schema has defaults, or embedded resources (whose
    /// metadata pruning cleans and setting aside does not look at).
    read_pass: bool,
}

/// Whether `schema` or any schema below it (as pruning walks them) marks
/// an embedded resource.
fn embeds(schema: &Schema) -> bool {
    schema.embedded_resource
        || schema.properties.values().any(embeds)
        || matches!(&schema.additional, crate::schema::Additional::Schema(s) if embeds(s))
        || schema.items.as_deref().is_some_and(embeds)
}

/// One declaration: `from` becomes `to` by `rules`.
#[derive(Debug, Clone)]
struct Edge {
    from: usize,
    to: usize,
    rules: Vec<Step>,
}

/// A compiled rule, with its path in the definition for messages.
#[derive(Debug, Clone)]
struct Step {
    at: String,
    op: Op,
}

#[derive(Debug, Clone)]
enum Op {
    Rename { from: FieldPath, to: FieldPath },
    Default { path: FieldPath, value: Value },
    Cel { from: FieldPath, to: FieldPath, forward: Box<Typed>, backward: Box<Typed> },
}

/// An expression and the schema of the `self` it reads.
#[derive(Debug, Clone)]
struct Typed {
    expression: Expression,
    schema: Option<Schema>,
}

impl Typed {
    fn eval(&self, value: &Value) -> std::result::Result<Value, String> {
        self.expression.evaluate(value, self.schema.as_ref())
    }
}

impl Declarative {
    /// Compiles the declarations of `versions`. A declaration that does not
    /// compile (one stored before the rules that refuse it) is an internal
    /// error naming it; `validate` reports the same at definition write.
    pub fn compile(versions: &[Version<'_>]) -> Result<Self> {
        let mut compiled = Vec::with_capacity(versions.len());
        for v in versions {
            let schema =
                match v.schema {
                    Some(json) => Some(Schema::compile(json).map_err(|e| {
                        Error::internal(format!("the schema of version {} does not compile: {e}", v.name))
                    })?),
                    None => None,
                };
            let read_pass = schema.as_ref().is_some_and(|s| s.has_defaults || embeds(s));
            compiled.push(Compiled { name: v.name.to_string(), schema, read_pass });
        }
        let mut edges = Vec::new();
        for (i, v) in versions.iter().enumerate() {
            for (target, declaration) in v.conversion.iter().flat_map(|c| &c.declarative) {
                let to = compiled.iter().position(|c| c.name == *target).ok_or_else(|| {
                    Error::internal(format!("{}: no version {target} to convert to", declaration_path(i, target)))
                })?;
                let rules = rules_of(declaration, &declaration_path(i, target))
                    .into_iter()
                    .map(|(at, rule)| compile_rule(rule, &compiled[i], &compiled[to], &at).map(|op| Step { at, op }))
                    .collect::<std::result::Result<_, String>>()
                    .map_err(|e| Error::internal(format!("the declarative conversion does not compile: {e}")))?;
                edges.push(Edge { from: i, to, rules });
            }
        }
        static COMPILED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let id = COMPILED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut shape = Shape::default();
        for step in edges.iter().flat_map(|edge: &Edge| &edge.rules) {
            let paths = match &step.op {
                Op::Rename { from, to } | Op::Cel { from, to, .. } => vec![from, to],
                Op::Default { path, .. } => vec![path],
            };
            for (_, parents) in paths.into_iter().filter_map(|path| path.0.split_last()) {
                shape.add(parents);
            }
        }
        Ok(Self { versions: compiled, edges, id, shape })
    }

    /// Converts `obj` (at the version its apiVersion names) to `to_version`,
    /// step by step along the conversion graph. An object already at
    /// `to_version` is returned untouched.
    pub fn convert(&self, mut obj: Value, to_version: &str) -> Result<Value> {
        let api_version = obj.get("apiVersion").and_then(Value::as_str).unwrap_or("").to_string();
        let (group, from_version) = match api_version.rsplit_once('/') {
            Some((group, version)) => (Some(group.to_string()), version.to_string()),
            None => (None, api_version.clone()),
        };
        if from_version == to_version {
            return Ok(obj);
        }
        let from = self.index(&from_version).ok_or_else(|| {
            Error::internal(format!("request to convert CR from an invalid group/version: {api_version}"))
        })?;
        let to = self.index(to_version).ok_or_else(|| {
            Error::internal(format!("request to convert CR to an invalid group/version: {to_version}"))
        })?;
        for (edge, forward) in self.route(from, to)? {
            let edge = &self.edges[edge];
            let (source, target) = if forward { (edge.from, edge.to) } else { (edge.to, edge.from) };
            self.step(&mut obj, edge, forward, source, target)?;
            let version = &self.versions[target].name;
            obj["apiVersion"] = Value::String(match &group {
                Some(group) => format!("{group}/{version}"),
                None => version.clone(),
            });
        }
        Ok(obj)
    }

    /// Where the rules reach into an object: what `convert_routed`'s input
    /// is best parsed along.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// This compilation's identity, unique in the process.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Whether a read at `version` of an object `convert_routed` converted
    /// still needs that version's schema to prune and default it (decided
    /// once per revision; true for a version this engine does not know).
    pub fn needs_read_pass(&self, version: &str) -> bool {
        self.index(version).is_none_or(|i| self.versions[i].read_pass)
    }

    /// The way from `from_version` to `to_version` of objects in `group`,
    /// for `convert_routed`: found once for a page. None when either
    /// version is unknown or no way leads there.
    pub fn route_between(&self, group: &str, from_version: &str, to_version: &str) -> Option<Route> {
        if from_version == to_version {
            return Some(Route(Vec::new()));
        }
        let (from, to) = (self.index(from_version)?, self.index(to_version)?);
        let steps = self.route(from, to).ok()?;
        Some(Route(
            steps
                .into_iter()
                .map(|(edge, forward)| {
                    let target = if forward { self.edges[edge].to } else { self.edges[edge].from };
                    let api_version = Value::String(format!("{group}/{}", self.versions[target].name));
                    (edge, forward, Computed::new(api_version))
                })
                .collect(),
        ))
    }

    /// `convert` over an object parsed only where the rules reach
    /// (`bytes::Node`), along `route` (from the version its apiVersion
    /// member names): the same result, or None when this object needs the
    /// `Value` path (a round-trip annotation to restore or to write, a rule
    /// that fails), which then answers as `convert` does. The CEL rules'
    /// outcomes are kept in `memo` for the rest of the page (`memo.rs`).
    pub fn convert_routed<'a>(&'a self, obj: &mut Node<'a>, route: &Route, memo: &mut Memo<'a>) -> Option<()> {
        if route.is_empty() {
            return Some(());
        }
        let metadata = bytes::get(obj, &["metadata"])?;
        // Unparsed metadata is not parsed for this: bytes that name the
        // prefix anywhere send the object to the `Value` path, which looks.
        let annotated = match metadata {
            Node::Raw(raw) => raw.contains(ANNOTATION_PREFIX),
            _ => Self::annotated(metadata),
        };
        if annotated {
            return None;
        }
        for (edge, forward, api_version) in &route.0 {
            self.step_node(obj, *edge, *forward, memo)?;
            Node::insert(obj.members()?, "apiVersion", Node::Shared(api_version.clone()));
        }
        Some(())
    }

    /// Whether parsed `metadata` has an annotation of the round trip.
    fn annotated(metadata: &mut Node<'_>) -> bool {
        match bytes::get(metadata, &["annotations"]) {
            None => false,
            Some(Node::Raw(raw)) => raw.contains(ANNOTATION_PREFIX),
            Some(Node::Object(members)) => members.iter().any(|(k, _)| k.starts_with(ANNOTATION_PREFIX)),
            Some(Node::Value(value)) => {
                value.as_object().is_some_and(|m| m.keys().any(|k| k.starts_with(ANNOTATION_PREFIX)))
            }
            Some(Node::Shared(computed)) => {
                computed.value.as_object().is_some_and(|m| m.keys().any(|k| k.starts_with(ANNOTATION_PREFIX)))
            }
        }
    }

    /// `step` over a node, for an object with no round-trip annotation:
    /// None when it would set anything aside.
    fn step_node<'a>(&'a self, obj: &mut Node<'a>, at: usize, forward: bool, memo: &mut Memo<'a>) -> Option<()> {
        let edge = &self.edges[at];
        let target = if forward { edge.to } else { edge.from };
        let steps: Box<dyn Iterator<Item = (usize, &Step)>> = if forward {
            Box::new(edge.rules.iter().enumerate())
        } else {
            Box::new(edge.rules.iter().enumerate().rev())
        };
        for (i, step) in steps {
            match &step.op {
                Op::Rename { from, to } => {
                    let (from, to) = if forward { (from, to) } else { (to, from) };
                    if let Some(value) = bytes::take(obj, &from.0) {
                        bytes::set(obj, &to.0, value);
                    }
                }
                Op::Default { path, value } if forward => {
                    if bytes::get(obj, &path.0).is_none() && bytes::parent_exists(obj, &path.0) {
                        bytes::set(obj, &path.0, Node::Value(value.clone()));
                    }
                }
                Op::Default { path, value } => match bytes::remove(obj, &path.0).map(Node::into_value) {
                    Some(held) if held.as_ref() != Some(value) => return None,
                    Some(_) => {}
                    None if bytes::parent_exists(obj, &path.0) => return None,
                    None => {}
                },
                Op::Cel { from, to, forward: there, backward: back } => {
                    let (from, to, there, back) =
                        if forward { (from, to, there, back) } else { (to, from, back, there) };
                    // The value computed, when the way back gives the input
                    // back (else the input is set aside: the `Value` path).
                    let computed = |value: Value| {
                        let computed = there.eval(&value).ok()?;
                        (back.eval(&computed).ok().as_ref() == Some(&value)).then_some(computed)
                    };
                    let computed = match bytes::take(obj, &from.0) {
                        None => continue,
                        Some(Node::Raw(raw)) => Node::Shared(memo.outcome((at, i, forward), raw, || {
                            computed(Node::Raw(raw).into_value()?).map(Computed::new)
                        })?),
                        Some(other) => Node::Value(computed(other.into_value()?)?),
                    };
                    bytes::set(obj, &to.0, computed);
                }
            }
        }
        match &self.versions[target].schema {
            Some(schema) if !bytes::holds(obj, schema, true) => None,
            _ => Some(()),
        }
    }

    fn index(&self, name: &str) -> Option<usize> {
        self.versions.iter().position(|v| v.name == name)
    }

    /// The edges from `from` to `to`, each with whether it is walked as
    /// declared: the one path of the tree.
    fn route(&self, from: usize, to: usize) -> Result<Vec<(usize, bool)>> {
        let mut came: Vec<Option<(usize, usize, bool)>> = vec![None; self.versions.len()];
        let mut queue = VecDeque::from([from]);
        let mut seen = vec![false; self.versions.len()];
        seen[from] = true;
        while let Some(at) = queue.pop_front() {
            if at == to {
                break;
            }
            for (i, e) in self.edges.iter().enumerate() {
                let next = match (e.from == at, e.to == at) {
                    (true, _) => Some((e.to, true)),
                    (_, true) => Some((e.from, false)),
                    _ => None,
                };
                if let Some((next, forward)) = next.filter(|(n, _)| !seen[*n]) {
                    seen[next] = true;
                    came[next] = Some((at, i, forward));
                    queue.push_back(next);
                }
            }
        }
        let mut route = Vec::new();
        let mut at = to;
        while at != from {
            let Some((prev, edge, forward)) = came[at] else {
                return Err(Error::internal(format!(
                    "no declarative conversion leads from version {} to version {}",
                    self.versions[from].name, self.versions[to].name
                )));
            };
            route.push((edge, forward));
            at = prev;
        }
        route.reverse();
        Ok(route)
    }

    /// One step: the rules (reversed when walked backwards), then what the
    /// target cannot hold set aside, then what was set aside when the
    /// object last left the target version restored.
    fn step(&self, obj: &mut Value, edge: &Edge, forward: bool, source: usize, target: usize) -> Result<()> {
        let mut kept = stash::Stash::default();
        let failed = |step: &Step, which: &str, e: String| {
            Error::internal(format!(
                "conversion from version {} to version {} failed at {}.{which}: {e}",
                self.versions[source].name, self.versions[target].name, step.at
            ))
        };
        let steps: Box<dyn Iterator<Item = &Step>> =
            if forward { Box::new(edge.rules.iter()) } else { Box::new(edge.rules.iter().rev()) };
        for step in steps {
            match &step.op {
                Op::Rename { from, to } => {
                    let (from, to) = if forward { (from, to) } else { (to, from) };
                    if let Some(value) = from.take(obj) {
                        to.set(obj, value);
                    }
                }
                // As OpenAPI defaulting, only into a parent that exists, so
                // the way back (which leaves the parent) is exact whether
                // the parent was there, empty, or not there at all.
                Op::Default { path, value } if forward => {
                    if path.get(obj).is_none() && path.parent_exists(obj) {
                        path.set(obj, value.clone());
                    }
                }
                Op::Default { path, value } => match path.remove(obj) {
                    Some(held) if held == *value => {}
                    Some(held) => {
                        kept.fields.insert(path.pointer(), held);
                    }
                    None if path.parent_exists(obj) => kept.absent.push(path.pointer()),
                    None => {}
                },
                Op::Cel { from, to, forward: there, backward: back } => {
                    let (from, to, there, back, which) =
                        if forward { (from, to, there, back, "forward") } else { (to, from, back, there, "backward") };
                    if let Some(value) = from.take(obj) {
                        let computed = there.eval(&value).map_err(|e| failed(step, which, e))?;
                        if back.eval(&computed).ok().as_ref() != Some(&value) {
                            kept.fields.insert(from.pointer(), value);
                        }
                        to.set(obj, computed);
                    }
                }
            }
        }
        if let Some(schema) = &self.versions[target].schema {
            stash::set_aside(obj, schema, &mut kept);
        }
        let target_name = &self.versions[target].name;
        stash::restore(obj, target_name)
            .map_err(|e| Error::internal(format!("conversion to version {target_name}: the annotation {e}")))?;
        stash::keep(obj, &self.versions[source].name, kept);
        Ok(())
    }
}

/// Compiles one rule of a declaration from `source` to `target`.
fn compile_rule(rule: RuleRef<'_>, source: &Compiled, target: &Compiled, at: &str) -> std::result::Result<Op, String> {
    let path = |text: &str, field: &str| FieldPath::parse(text).map_err(|e| format!("{at}.{field}: {e}"));
    Ok(match rule {
        RuleRef::Rename(r) => Op::Rename { from: path(&r.from, "from")?, to: path(&r.to, "to")? },
        RuleRef::Default(d) => Op::Default { path: path(&d.path, "path")?, value: d.value.clone() },
        RuleRef::Cel(c) => {
            let (from, to) = (path(&c.from, "from")?, path(&c.to, "to")?);
            let typed = |source: &str, version: &Compiled, at_path: &FieldPath, field: &str| {
                let schema = version.schema.as_ref().and_then(|s| validate::schema_at(s, at_path).ok().flatten());
                Expression::compile(source, schema)
                    .map(|expression| Box::new(Typed { expression, schema: schema.cloned() }))
                    .map_err(|e| format!("{at}.{field}: {e}"))
            };
            let forward = typed(&c.forward, source, &from, "forward")?;
            let backward = typed(&c.backward, target, &to, "backward")?;
            Op::Cel { from, to, forward, backward }
        }
        RuleRef::Malformed => return Err(format!("{at}: exactly one of rename, default or cel must be set")),
    })
}

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;

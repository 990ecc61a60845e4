//! CEL expressions that compute a value rather than validate one (the
//! declarative conversion's `forward` and `backward`): parsed within the
//! same bounds as rules, checked against the schema of `self` with the
//! same walk (undefined fields, cost estimated from the schema's bounds),
//! and evaluated on the same bounded stack, the result read back as JSON.

use std::sync::Arc;

use serde_json::Value;

use super::check::{Declared, Walk};
use super::convert::to_cel;
use super::{limits, parse, render_problems, ENV};
use crate::schema::Schema;

/// A compiled expression over `self`.
#[derive(Debug, Clone)]
pub struct Expression {
    source: String,
    program: Arc<cel::Program>,
    depth: usize,
    /// The estimated worst-case cost of one evaluation.
    pub cost: u64,
}

impl Expression {
    /// Compiles `source`, `self` typed by `schema` (None: untyped, as below
    /// `x-kubernetes-preserve-unknown-fields`). Errors are worded as cel-go
    /// words them (`compilation failed: ...`).
    pub fn compile(source: &str, schema: Option<&Schema>) -> Result<Self, String> {
        limits::compiling(|| {
            let (program, depth) = parse(source.trim()).map_err(|r| format!("compilation failed: {}", r.text()))?;
            let cost = match schema {
                Some(schema) => {
                    let mut walk = Walk::new(schema, false, &Declared);
                    let (_, cost) = walk.value(program.expression());
                    if let Some(problems) = render_problems(&walk.problems, &program, source.trim()) {
                        return Err(format!("compilation failed: {problems}"));
                    }
                    cost
                }
                // Untyped: nothing bounds the value but the request size.
                None => super::MAX_REQUEST_BYTES,
            };
            Ok(Self { source: source.trim().to_string(), program: Arc::new(program), depth, cost: cost.max(1) })
        })
    }

    /// The expression's text.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The value of the expression with `self` bound to `value` (typed by
    /// `schema`), as JSON.
    pub fn evaluate(&self, value: &Value, schema: Option<&Schema>) -> Result<Value, String> {
        limits::evaluating(self.depth, || {
            let mut context = cel::Context::with_env(Arc::clone(&ENV));
            context.add_variable_as_val("self", to_cel(value, schema));
            let result = cel::Value::resolve(self.program.expression(), &context).map_err(|e| e.to_string())?;
            to_json(&result)
        })
    }
}

/// A CEL value as JSON: map keys in sorted order (CEL maps are unordered),
/// bytes in base64 and timestamps in RFC 3339, as Kubernetes writes them.
fn to_json(value: &cel::Value) -> Result<Value, String> {
    use base64::Engine as _;
    Ok(match value {
        cel::Value::Null => Value::Null,
        cel::Value::Bool(b) => Value::Bool(*b),
        cel::Value::Int(i) => Value::from(*i),
        cel::Value::UInt(u) => Value::from(*u),
        cel::Value::Float(f) => {
            serde_json::Number::from_f64(*f).map(Value::Number).ok_or_else(|| format!("{f} is not a JSON number"))?
        }
        cel::Value::String(s) => Value::String(s.to_string()),
        cel::Value::Bytes(b) => Value::String(base64::engine::general_purpose::STANDARD.encode(b.as_slice())),
        cel::Value::Timestamp(t) => Value::String(t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)),
        cel::Value::Duration(d) => Value::String(format!("{}s", d.num_milliseconds() as f64 / 1000.0)),
        cel::Value::List(items) => Value::Array(items.iter().map(to_json).collect::<Result<_, _>>()?),
        cel::Value::Map(map) => {
            let mut entries: Vec<(String, Value)> = Vec::with_capacity(map.map.len());
            for (key, item) in map.map.iter() {
                let key = match key {
                    cel::objects::Key::String(s) => s.to_string(),
                    cel::objects::Key::Int(i) => i.to_string(),
                    cel::objects::Key::Uint(u) => u.to_string(),
                    cel::objects::Key::Bool(b) => b.to_string(),
                };
                entries.push((key, to_json(item)?));
            }
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().collect())
        }
        other => return Err(format!("a value of type {:?} cannot be written as JSON", other.type_of())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn computes_values_and_refuses_undefined_fields() {
        let schema = Schema::compile(&json!({"type": "object", "properties": {"n": {"type": "integer"}}})).unwrap();
        let e = Expression::compile("self.n * 2", Some(&schema)).unwrap();
        assert_eq!(e.evaluate(&json!({"n": 3}), Some(&schema)).unwrap(), json!(6));
        let err = Expression::compile("self.m", Some(&schema)).unwrap_err();
        assert!(err.starts_with("compilation failed"), "{err}");
        assert!(Expression::compile("self +", None).is_err());
        let s = Expression::compile("string(self) + 'Gi'", None).unwrap();
        assert_eq!(s.evaluate(&json!(10), None).unwrap(), json!("10Gi"));
    }
}

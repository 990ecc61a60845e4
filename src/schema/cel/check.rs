//! A schema-aware walk over a parsed CEL rule. At definition time it finds
//! what cel-go's type checker would refuse and a Kubernetes CRD author hits
//! most (fields the schema does not declare, selection on scalars, rules
//! that are not booleans) and estimates the rule's worst-case cost from the
//! schema's bounds. At run time the same walk, given the sizes actually
//! present, prices one evaluation before it runs.

use cel::common::ast::{CallExpr, ComprehensionExpr, EntryExpr, Expr, IdedExpr, LiteralValue};

use super::need::Uses;
pub use super::ty::Ty;
use super::{escape, MAX_REQUEST_BYTES};
use crate::schema::{Additional, Schema, Type};

/// How many entries a collection node and how many characters a string
/// node hold at most.
pub trait Sizes {
    fn cardinality(&self, schema: &Schema) -> u64;
    fn length(&self, schema: &Schema) -> u64;
    /// Entries of a collection the schema does not type.
    fn unknown_cardinality(&self) -> u64 {
        MAX_REQUEST_BYTES / 2
    }
    /// Characters of a string the schema does not type.
    fn unknown_length(&self) -> u64 {
        MAX_REQUEST_BYTES
    }
}

/// Sizes from the schema's bounds; unbounded ones are estimated from the
/// largest request, as Kubernetes does.
pub struct Declared;

impl Sizes for Declared {
    fn cardinality(&self, schema: &Schema) -> u64 {
        declared_cardinality(schema)
    }
    fn length(&self, schema: &Schema) -> u64 {
        schema.max_length.unwrap_or(MAX_REQUEST_BYTES)
    }
}

/// The most entries a list or map node can hold: its bound, or as many of
/// its smallest entries as fit in the largest request.
pub fn declared_cardinality(schema: &Schema) -> u64 {
    if schema.type_ == Some(Type::Array) {
        let item = schema.items.as_deref().and_then(|s| s.type_);
        return cardinality_bound(true, schema.max_items, item.map(Type::as_str));
    }
    let value = match &schema.additional {
        Additional::Schema(a) => a.type_,
        _ => None,
    };
    cardinality_bound(false, schema.max_properties, value.map(Type::as_str))
}

/// A list's (`array`) or map's bound on entries, or the estimate for
/// entries of type `entry_type` when unbounded.
pub fn cardinality_bound(array: bool, bound: Option<u64>, entry_type: Option<&str>) -> u64 {
    let smallest = match entry_type {
        Some("string" | "object" | "array") => 2,
        Some("boolean") => 4,
        _ => 1,
    };
    // A comma after each entry; a map adds `"":` before each value.
    let overhead = if array { 1 } else { 4 };
    bound.unwrap_or(MAX_REQUEST_BYTES / (smallest + overhead))
}

/// One walk over one expression.
pub struct Walk<'s, 'z> {
    self_schema: &'s Schema,
    /// The rule sits at a resource root (or an embedded resource): apiVersion,
    /// kind and metadata are visible.
    resource: bool,
    sizes: &'z dyn Sizes,
    pub uses_old_self: bool,
    /// The cost depends on sizes (loops, string scans, membership).
    pub data_dependent: bool,
    /// How the expression uses the values it reads, for [`Uses::need`].
    pub uses: Uses,
    /// Problems found, each with the id of the expression at fault.
    pub problems: Vec<(u64, String)>,
    /// Calls of functions that are not declared, or that no overload takes
    /// (`overloads.rs`), each with the id of the call.
    pub calls: Vec<(u64, String)>,
    /// `oldSelf` is an optional (`optionalOldSelf`): its calls are the
    /// optional's (`hasValue()`, `orValue()`), not its node's.
    pub optional_old_self: bool,
    /// The ids of the field selections on values typed as (non-nullable)
    /// objects, which may be evaluated as index operations.
    pub indexable: Vec<u64>,
    scope: Vec<(String, Ty<'s>)>,
}

impl<'s, 'z> Walk<'s, 'z> {
    pub fn new(self_schema: &'s Schema, resource: bool, sizes: &'z dyn Sizes) -> Self {
        Self {
            self_schema,
            resource,
            sizes,
            uses_old_self: false,
            data_dependent: false,
            uses: Uses::default(),
            problems: Vec::new(),
            calls: Vec::new(),
            optional_old_self: false,
            indexable: Vec::new(),
            scope: Vec::new(),
        }
    }

    /// The type and the cost of `e`, whose value is used whole: a rule's
    /// result, an operand, an element of a literal.
    pub fn value(&mut self, e: &IdedExpr) -> (Ty<'s>, u64) {
        let (ty, cost) = self.expr(e);
        self.consume(ty);
        (ty, cost)
    }

    fn consume(&mut self, ty: Ty<'s>) {
        if let Ty::Node(schema) = ty {
            self.uses.whole(schema);
        }
    }

    /// Records how a call uses its arguments: `size()` counts entries,
    /// indexing reads entries by a key known only at run time (a struct
    /// indexed so is used whole: what the entry is, the walk cannot tell),
    /// and any other function uses its arguments whole.
    fn consume_arguments(&mut self, function: &str, target: Option<Ty<'s>>, args: &[Ty<'s>]) {
        match (function, target, args) {
            ("size", None, &[Ty::Node(s)]) | ("size", Some(Ty::Node(s)), &[]) => self.uses.entries(s),
            ("_[_]" | "_[?_]", None, [container, key]) => {
                match container {
                    Ty::Node(s) if s.items.is_some() || matches!(s.additional, Additional::Schema(_)) => {
                        self.uses.entries(s)
                    }
                    other => self.consume(*other),
                }
                self.consume(*key);
            }
            _ => {
                for ty in target.iter().chain(args) {
                    self.consume(*ty);
                }
            }
        }
    }

    /// The type and the cost of `e`, how its value is used being up to the caller.
    pub fn expr(&mut self, e: &IdedExpr) -> (Ty<'s>, u64) {
        match &e.expr {
            Expr::Literal(lit) => (literal(lit), 0),
            Expr::Ident(name) => (self.ident(e.id, name), 1),
            Expr::Select(select) => {
                let (operand, cost) = self.expr(&select.operand);
                if select.test {
                    self.field(e.id, operand, &select.field);
                    return (Ty::Bool, cost + 1);
                }
                if matches!(operand, Ty::Node(s) if s.type_ == Some(Type::Object) && !s.nullable) {
                    self.indexable.push(e.id);
                }
                (self.field(e.id, operand, &select.field), cost + 1)
            }
            Expr::Call(call) => self.call_expr(e.id, call),
            Expr::Comprehension(c) => self.comprehension(c),
            Expr::List(list) => {
                let mut cost = 1;
                for item in &list.elements {
                    cost += self.value(item).1;
                }
                (Ty::Collection(list.elements.len() as u64), cost)
            }
            Expr::Map(map) => {
                let mut cost = 1;
                for entry in &map.entries {
                    if let EntryExpr::MapEntry(entry) = &entry.expr {
                        cost += self.value(&entry.key).1 + self.value(&entry.value).1;
                    }
                }
                (Ty::Collection(map.entries.len() as u64), cost)
            }
            Expr::Struct(s) => {
                let mut cost = 1;
                for entry in &s.entries {
                    if let EntryExpr::StructField(field) = &entry.expr {
                        cost += self.value(&field.value).1;
                    }
                }
                (Ty::Dyn, cost)
            }
            Expr::Unspecified => (Ty::Dyn, 0),
        }
    }

    /// A call's type and cost: its target's and arguments' costs, one for
    /// the call, and what the function itself adds.
    fn call_expr(&mut self, id: u64, call: &CallExpr) -> (Ty<'s>, u64) {
        let mut cost = 1;
        let qualified = call.target.as_ref().and_then(|t| super::overloads::qualified(&t.expr, &call.func_name));
        let target = call.target.as_ref().filter(|_| qualified.is_none()).map(|t| {
            let (ty, c) = self.expr(t);
            cost += c;
            ty
        });
        let mut args = Vec::with_capacity(call.args.len());
        for arg in &call.args {
            let (ty, c) = self.expr(arg);
            cost += c;
            args.push(ty);
        }
        let optional = |e: &IdedExpr| self.optional_old_self && matches!(&e.expr, Expr::Ident(n) if n == "oldSelf");
        let checked_target = match &call.target {
            Some(t) if optional(t) => Some(Ty::Dyn),
            _ => target,
        };
        let checked_args: Vec<Ty<'s>> =
            call.args.iter().zip(&args).map(|(e, ty)| if optional(e) { Ty::Dyn } else { *ty }).collect();
        let name = qualified.as_deref().unwrap_or(&call.func_name);
        if let Some(problem) = super::overloads::problem(name, checked_target, &checked_args) {
            self.calls.push((id, problem));
        }
        self.consume_arguments(&call.func_name, target, &args);
        let (ty, extra) = self.call(&call.func_name, target, &args);
        (ty, cost.saturating_add(extra))
    }

    /// A comprehension's (a macro's) type and cost: the range, the
    /// accumulator's start and the result once, the condition and step once
    /// per item of the range's bound. Its variables are in scope for the
    /// loop only.
    fn comprehension(&mut self, c: &ComprehensionExpr) -> (Ty<'s>, u64) {
        let (range, range_cost) = self.expr(&c.iter_range);
        if let Ty::Node(schema) = range {
            self.uses.entries(schema);
        }
        let (key, value, count, list) = self.iteration(range);
        self.data_dependent = true;
        // The accumulator is what it starts as: a bool for all and
        // exists, an int for exists_one, a list for map and filter.
        let (accu, init_cost) = match self.value(&c.accu_init) {
            (Ty::Collection(_), cost) => (Ty::Collection(count), cost),
            other => other,
        };
        self.scope.push((c.accu_var.clone(), accu));
        match &c.iter_var2 {
            Some(second) => {
                self.scope.push((c.iter_var.clone(), key));
                self.scope.push((second.clone(), value));
            }
            // One variable binds a list's elements and a map's keys.
            None => self.scope.push((c.iter_var.clone(), if list { value } else { key })),
        }
        let (_, cond_cost) = self.value(&c.loop_cond);
        let (_, step_cost) = self.value(&c.loop_step);
        let pushed = if c.iter_var2.is_some() { 2 } else { 1 };
        self.scope.truncate(self.scope.len() - pushed);
        let (result, result_cost) = self.value(&c.result);
        self.scope.pop();
        let per_item = cond_cost.saturating_add(step_cost).saturating_add(1);
        let cost = range_cost.saturating_add(init_cost).saturating_add(result_cost);
        (result, cost.saturating_add(count.saturating_mul(per_item)))
    }

    fn ident(&mut self, id: u64, name: &str) -> Ty<'s> {
        if let Some((_, ty)) = self.scope.iter().rev().find(|(n, _)| n == name) {
            return *ty;
        }
        match name {
            "self" => Ty::Node(self.self_schema),
            "oldSelf" => {
                self.uses_old_self = true;
                Ty::Node(self.self_schema)
            }
            // Type names and the optional library's namespace.
            "int" | "uint" | "double" | "bool" | "string" | "bytes" | "list" | "map" | "null_type" | "type"
            | "optional" | "math" | "strings" | "lists" | "base64" => Ty::Other,
            _ => {
                self.problems.push((id, format!("undeclared reference to '{name}' (in container '')")));
                Ty::Dyn
            }
        }
    }

    /// The type of `operand.field`, recording the selection for [`Uses`].
    fn field(&mut self, id: u64, operand: Ty<'s>, field: &str) -> Ty<'s> {
        let Ty::Node(schema) = operand else { return Ty::Dyn };
        // The property's JSON name (CEL sees escaped names).
        let property = property_named(schema, field);
        self.uses.field(schema, property.map_or(field, |(name, _)| name));
        if schema.int_or_string {
            return Ty::Dyn;
        }
        match schema.type_ {
            Some(Type::Object) | None => {}
            Some(other) => {
                self.problems.push((id, format!("type '{}' does not support field selection", cel_type(other))));
                return Ty::Dyn;
            }
        }
        let resource = (std::ptr::eq(schema, self.self_schema) && self.resource) || schema.embedded_resource;
        if resource && matches!(field, "apiVersion" | "kind" | "metadata") {
            return Ty::Dyn;
        }
        if let Some((_, property)) = property {
            return Ty::Node(property);
        }
        match &schema.additional {
            Additional::Schema(value) => Ty::Node(value),
            _ if schema.preserve_unknown_fields || schema.type_.is_none() => Ty::Dyn,
            _ => {
                self.problems.push((id, format!("undefined field '{field}'")));
                Ty::Dyn
            }
        }
    }

    /// What iterating over `range` binds (index or key, element or value),
    /// how many iterations there can be, and whether it is a list.
    fn iteration(&self, range: Ty<'s>) -> (Ty<'s>, Ty<'s>, u64, bool) {
        match range {
            Ty::Node(schema) if schema.type_ == Some(Type::Array) => {
                let item = schema.items.as_deref().map_or(Ty::Dyn, Ty::Node);
                (Ty::Int, item, self.sizes.cardinality(schema), true)
            }
            Ty::Node(schema) if schema.type_ == Some(Type::Object) => {
                let value = match &schema.additional {
                    Additional::Schema(a) => Ty::Node(a),
                    _ => Ty::Dyn,
                };
                (Ty::String, value, self.sizes.cardinality(schema), false)
            }
            Ty::Collection(n) => (Ty::Dyn, Ty::Dyn, n, true),
            _ => (Ty::Dyn, Ty::Dyn, self.sizes.unknown_cardinality(), true),
        }
    }

    /// The type of a call and what it costs beyond its arguments.
    fn call(&mut self, name: &str, target: Option<Ty<'s>>, args: &[Ty<'s>]) -> (Ty<'s>, u64) {
        let scan = |walk: &mut Self, ty: Option<Ty<'s>>| -> u64 {
            walk.data_dependent = true;
            match ty {
                Some(Ty::Node(s)) if s.type_ == Some(Type::String) => walk.sizes.length(s).div_ceil(10),
                Some(Ty::Node(s)) if matches!(s.type_, Some(Type::Array | Type::Object)) => walk.sizes.cardinality(s),
                Some(Ty::Collection(n)) => n,
                Some(Ty::String | Ty::Int | Ty::Double | Ty::Bool) => 1,
                _ => walk.sizes.unknown_length().div_ceil(10),
            }
        };
        match name {
            "_&&_" | "_||_" | "!_" | "_==_" | "_!=_" | "_<_" | "_<=_" | "_>_" | "_>=_" | "@not_strictly_false" => {
                (Ty::Bool, 0)
            }
            "@in" => {
                let cost = scan(self, args.get(1).copied());
                (Ty::Bool, cost)
            }
            // cel-go's estimate prices a prefix or suffix test by the
            // prefix's size, not the string's (checker/cost.go).
            "startsWith" | "endsWith" if target.is_some() => {
                let cost = scan(self, args.first().copied());
                (Ty::Bool, cost)
            }
            "matches" | "contains" | "startsWith" | "endsWith" => {
                let subject = target.or_else(|| args.first().copied());
                let cost = scan(self, subject);
                (Ty::Bool, cost)
            }
            "size" => (Ty::Int, 0),
            "int" | "indexOf" | "lastIndexOf" => (Ty::Int, 0),
            "double" => (Ty::Double, 0),
            "string" | "lowerAscii" | "upperAscii" | "trim" | "replace" | "substring" | "charAt" | "format"
            | "join" => (Ty::String, 0),
            "_+_" => match (args.first(), args.get(1)) {
                (Some(a), Some(b)) if is_string(a) || is_string(b) => (Ty::String, 0),
                (Some(a), Some(b)) if is_int(a) && is_int(b) => (Ty::Int, 0),
                _ => (Ty::Dyn, 0),
            },
            "_-_" | "_*_" | "_/_" | "_%_" | "-_" => match (args.first(), args.get(1)) {
                (Some(a), b) if is_int(a) && b.is_none_or(is_int) => (Ty::Int, 0),
                _ => (Ty::Dyn, 0),
            },
            "_?_:_" => (args.get(1).copied().unwrap_or(Ty::Dyn), 0),
            "_[_]" | "_[?_]" => (self.index(args.first().copied()), 0),
            _ => (Ty::Dyn, 0),
        }
    }

    fn index(&self, container: Option<Ty<'s>>) -> Ty<'s> {
        match container {
            Some(Ty::Node(s)) if s.type_ == Some(Type::Array) => s.items.as_deref().map_or(Ty::Dyn, Ty::Node),
            Some(Ty::Node(s)) => match &s.additional {
                Additional::Schema(a) => Ty::Node(a),
                _ => Ty::Dyn,
            },
            _ => Ty::Dyn,
        }
    }
}

/// The property of `schema` that CEL calls `field`, with its JSON name.
pub(super) fn property_named<'s>(schema: &'s Schema, field: &str) -> Option<(&'s str, &'s Schema)> {
    if is_plain(field) {
        // A plain CEL name is its property's JSON name; a reserved word is
        // escaped (`__in__`), so never plain in CEL.
        return schema.properties.get_key_value(field).map(|(name, s)| (name.as_str(), s));
    }
    let (name, s) = schema.properties.iter().find(|(name, _)| escape(name).as_deref() == Some(field))?;
    Some((name.as_str(), s))
}

/// A name CEL spells as JSON does: letters, digits and single underscores.
pub(super) fn is_plain(name: &str) -> bool {
    let mut underscore = false;
    name.bytes().all(|b| {
        let double = underscore && b == b'_';
        underscore = b == b'_';
        b.is_ascii_alphanumeric() || (underscore && !double)
    })
}

fn literal(lit: &LiteralValue) -> Ty<'static> {
    match lit {
        LiteralValue::Boolean(_) => Ty::Bool,
        LiteralValue::Int(_) => Ty::Int,
        LiteralValue::Double(_) => Ty::Double,
        LiteralValue::String(_) => Ty::String,
        LiteralValue::Bytes(_) | LiteralValue::Null | LiteralValue::UInt(_) => Ty::Other,
    }
}

fn is_string(ty: &Ty<'_>) -> bool {
    matches!(ty, Ty::String)
        || matches!(ty, Ty::Node(s) if s.type_ == Some(Type::String) && s.format.as_deref() != Some("byte") && s.format.as_deref() != Some("date-time"))
}

fn is_int(ty: &Ty<'_>) -> bool {
    matches!(ty, Ty::Int) || matches!(ty, Ty::Node(s) if s.type_ == Some(Type::Integer))
}

/// What a known type is, if it is a scalar: "bool", "string", ...
pub fn scalar_name(ty: Ty<'_>) -> Option<&'static str> {
    match ty {
        Ty::Bool => Some("bool"),
        Ty::Int => Some("int"),
        Ty::Double => Some("double"),
        Ty::String => Some("string"),
        Ty::Collection(_) => Some("list"),
        Ty::Node(s) if s.int_or_string => None,
        Ty::Node(s) => s.type_.map(cel_type),
        Ty::Dyn | Ty::Other => None,
    }
}

fn cel_type(openapi: Type) -> &'static str {
    match openapi {
        Type::Integer => "int",
        Type::Number => "double",
        Type::Boolean => "bool",
        Type::String => "string",
        Type::Array => "list",
        Type::Object => "map",
    }
}

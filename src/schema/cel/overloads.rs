//! Calls checked against the functions of the environment that evaluates
//! them, as cel-go's checker checks them when a definition is written: a
//! function no library declares is an undeclared reference, and a call no
//! overload of its function can take (by member or global form, arity and
//! the static types of its arguments) finds no matching overload. Without
//! this a definition with `self.s.frobnicate()` was accepted and every
//! write of its kind then failed.
//!
//! The static types are the ones the values will have when evaluated
//! (`convert.rs`): where a value's type is only known at run time (an
//! int-or-string, a formatted string that may not parse, a literal list or
//! map, a function's result), any overload's parameter may take it, as an
//! argument of type `dyn` in cel-go.

use std::borrow::Cow;

use cel::common::types::{Kind, Type as CelType, BOOL_TYPE, DOUBLE_TYPE, INT_TYPE, LIST_TYPE, MAP_TYPE, STRING_TYPE};

use super::ty::Ty;
use super::ENV;
use crate::schema::{Additional, Type};

/// Whether `name` is one of the interpreter's own operators (`_+_`, `!_`,
/// `@in`, `_?_:_`, ...) or a macro's internal function, which dispatch
/// without the environment's declarations.
fn is_operator(name: &str) -> bool {
    name.starts_with('_') || name.ends_with('_') || name.contains('@')
}

/// The qualified function a member-style call names, as cel-go resolves
/// `math.ceil(x)` or `strings.quote(s)`: its target spells a name that,
/// with the function's, names a declared function.
pub fn qualified(target: &cel::common::ast::Expr, function: &str) -> Option<String> {
    let prefix = dotted(target)?;
    let name = format!("{prefix}.{function}");
    ENV.function(&name).is_some().then_some(name)
}

fn dotted(e: &cel::common::ast::Expr) -> Option<String> {
    match e {
        cel::common::ast::Expr::Ident(name) => Some(name.clone()),
        cel::common::ast::Expr::Select(select) if !select.test => {
            Some(format!("{}.{}", dotted(&select.operand.expr)?, select.field))
        }
        _ => None,
    }
}

/// Why the call of `name` (on `target` for a member call) with `args`
/// cannot be evaluated, in cel-go's words; None when an overload can take
/// it, or the call is an operator's.
pub fn problem(name: &str, target: Option<Ty<'_>>, args: &[Ty<'_>]) -> Option<String> {
    if is_operator(name) {
        return None;
    }
    let Some(function) = ENV.function(name) else {
        return Some(format!("undeclared reference to '{name}' (in container '')"));
    };
    let member = target.is_some();
    let types: Vec<Option<CelType>> = target.iter().chain(args).map(|ty| static_type(*ty)).collect();
    let takes = |(is_member, params): (bool, &[CelType])| {
        is_member == member
            && params.len() == types.len()
            && params.iter().zip(&types).all(|(param, arg)| accepts(param, arg.as_ref()))
    };
    if function.signatures().any(takes) {
        return None;
    }
    let names: Vec<String> = args.iter().map(|ty| type_name(*ty)).collect();
    let signature = match target {
        Some(target) => format!("{}.({})", type_name(target), names.join(", ")),
        None => format!("({})", names.join(", ")),
    };
    Some(format!("found no matching overload for '{name}' applied to '{signature}'"))
}

/// Whether a parameter of type `param` takes an argument of static type
/// `arg` (None: known only at run time), as `Type::is_assignable` decides
/// for the value when evaluated.
fn accepts(param: &CelType, arg: Option<&CelType>) -> bool {
    let Some(arg) = arg else { return true };
    match param.kind() {
        Kind::Dyn => true,
        Kind::Opaque if param.parameters().first().is_some_and(|p| accepts(p, Some(arg))) => true,
        _ => param == arg,
    }
}

/// The type every value of `ty` has when evaluated, if one: a schema's
/// list and object nodes become the interpreter's lists and maps, whose
/// type is `list(dyn)` and `map(dyn, dyn)` whatever they hold.
fn static_type(ty: Ty<'_>) -> Option<CelType> {
    let known = match ty {
        Ty::Bool => BOOL_TYPE,
        Ty::Int => INT_TYPE,
        Ty::Double => DOUBLE_TYPE,
        Ty::String => STRING_TYPE,
        Ty::Node(s) if s.int_or_string => return None,
        Ty::Node(s) => match s.type_? {
            Type::Integer => INT_TYPE,
            Type::Number => DOUBLE_TYPE,
            Type::Boolean => BOOL_TYPE,
            // Formatted strings become timestamps or bytes only when they parse.
            Type::String if s.format.as_deref().is_some_and(|f| f == "date-time" || f == "byte") => return None,
            Type::String => STRING_TYPE,
            Type::Array => LIST_TYPE,
            Type::Object => MAP_TYPE,
        },
        Ty::Collection(_) | Ty::Dyn | Ty::Other => return None,
    };
    Some(known)
}

/// `ty` as cel-go names a type in its messages.
fn type_name(ty: Ty<'_>) -> String {
    let name: Cow<'static, str> = match ty {
        Ty::Node(s) if s.int_or_string => "dyn".into(),
        Ty::Node(s) => match s.type_ {
            Some(Type::Array) => {
                format!("list({})", s.items.as_deref().map_or("dyn".into(), |i| type_name(Ty::Node(i)))).into()
            }
            Some(Type::Object) => match &s.additional {
                Additional::Schema(value) => format!("map(string, {})", type_name(Ty::Node(value))).into(),
                _ if s.properties.is_empty() => "map(string, dyn)".into(),
                _ => "object".into(),
            },
            Some(Type::String) if s.format.as_deref() == Some("date-time") => "google.protobuf.Timestamp".into(),
            Some(Type::String) if s.format.as_deref() == Some("byte") => "bytes".into(),
            Some(other) => {
                static_type(Ty::Node(s)).map_or_else(|| other.as_str().into(), |t| t.name().to_string().into())
            }
            None => "dyn".into(),
        },
        other => static_type(other).map_or("dyn".into(), |t| t.name().to_string().into()),
    };
    name.into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_checked_against_the_declared_overloads() {
        assert_eq!(
            problem("frobnicate", Some(Ty::String), &[]).unwrap(),
            "undeclared reference to 'frobnicate' (in container '')"
        );
        assert_eq!(
            problem("startsWith", Some(Ty::String), &[Ty::Int]).unwrap(),
            "found no matching overload for 'startsWith' applied to 'string.(int)'"
        );
        assert_eq!(
            problem("startsWith", None, &[Ty::String, Ty::String]).unwrap(),
            "found no matching overload for 'startsWith' applied to '(string, string)'"
        );
        assert!(problem("startsWith", Some(Ty::String), &[Ty::String]).is_none());
        assert!(problem("startsWith", Some(Ty::Dyn), &[Ty::Dyn]).is_none());
        assert!(problem("size", Some(Ty::String), &[]).is_none());
        assert!(problem("size", None, &[Ty::Collection(2)]).is_none());
        assert!(problem("_+_", None, &[Ty::Int, Ty::String]).is_none());
        assert!(problem("math.ceil", None, &[Ty::Double]).is_none());
    }
}

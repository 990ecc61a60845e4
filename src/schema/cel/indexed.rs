//! The form of a rule that is evaluated: field selections on values the
//! schema types as non-nullable objects (`self.spec.replicas`) become index
//! operations (`self["spec"]["replicas"]`). Null operands, and the optional
//! `oldSelf` of rules with `optionalOldSelf`, are selected from as written:
//! there the two fail differently.
//!
//! The interpreter resolves a selection chain as a qualified name first
//! (`self.spec` could name a variable called "self.spec"), joining the
//! segments and searching every scope for each prefix; a rule's only
//! variables are `self`, `oldSelf` and its loop variables, none of them
//! dotted, so that search always ends at the root and only costs. On an
//! object (a map to the interpreter) selecting and indexing by a string
//! key do the same lookup and fail with the same error, so the result is
//! unchanged: `rules_evaluate_the_same_converted_in_part_or_whole_and_with_selections_indexed`
//! checks it.

use cel::common::ast::{operators, CallExpr, EntryExpr, Expr, IdedExpr, LiteralValue};
use cel::common::types::CelString;

/// `expr` with the selections whose ids are in `selections` turned into
/// index operations with the field's name as the key.
pub fn indexed(expr: &IdedExpr, selections: &[u64]) -> IdedExpr {
    let mut out = expr.clone();
    if !selections.is_empty() {
        rewrite(&mut out, selections);
    }
    out
}

fn rewrite(e: &mut IdedExpr, selections: &[u64]) {
    match &mut e.expr {
        Expr::Select(select) => rewrite(&mut select.operand, selections),
        Expr::Call(call) => {
            for arg in call.target.as_deref_mut().into_iter().chain(call.args.iter_mut()) {
                rewrite(arg, selections);
            }
        }
        Expr::Comprehension(c) => {
            for part in [&mut c.iter_range, &mut c.accu_init, &mut c.loop_cond, &mut c.loop_step, &mut c.result] {
                rewrite(part, selections);
            }
        }
        Expr::List(list) => list.elements.iter_mut().for_each(|item| rewrite(item, selections)),
        Expr::Map(map) => {
            for entry in &mut map.entries {
                if let EntryExpr::MapEntry(entry) = &mut entry.expr {
                    rewrite(&mut entry.key, selections);
                    rewrite(&mut entry.value, selections);
                }
            }
        }
        Expr::Struct(s) => {
            for entry in &mut s.entries {
                if let EntryExpr::StructField(field) = &mut entry.expr {
                    rewrite(&mut field.value, selections);
                }
            }
        }
        Expr::Literal(_) | Expr::Ident(_) | Expr::Unspecified => {}
    }
    if !selections.contains(&e.id) {
        return;
    }
    if let Expr::Select(select) = std::mem::take(&mut e.expr) {
        let key = IdedExpr { id: e.id, expr: Expr::Literal(LiteralValue::String(CelString::from(select.field))) };
        e.expr = Expr::Call(CallExpr {
            func_name: operators::INDEX.to_string(),
            target: None,
            args: vec![*select.operand, key],
        });
    }
}

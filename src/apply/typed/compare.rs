//! smd's `Compare` over the typed view: what was added, modified and
//! removed between two objects, as field sets, leaf by leaf and item by
//! item of granular lists and maps.

use serde_json::{Map, Value};

use super::{atom, entries, entry_ty, is_empty_or_null, item_pe, items, pick, Atom, ListRel, Ty};
use crate::apply::path::{PathElement, Set};
use crate::schema::Schema;

/// What changed between two objects, as smd's `Comparison`.
#[derive(Debug, Default)]
pub struct Comparison {
    pub added: Set,
    pub modified: Set,
    pub removed: Set,
}

/// Compares `old` with `new`, as smd's `Compare`.
pub fn compare(old: &Value, new: &Value, ty: Ty<'_>) -> Comparison {
    let mut out = Comparison::default();
    walk_compare(Some(old), Some(new), ty, &mut Vec::new(), &mut out, false);
    out
}

/// `compare` of the two objects as if neither had `metadata.managedFields`
/// (the field manager's own record, never a managed field), without
/// copying them to take it out.
pub fn compare_unmanaged(old: &Value, new: &Value, ty: Ty<'_>) -> Comparison {
    let mut out = Comparison::default();
    walk_compare(Some(old), Some(new), ty, &mut Vec::new(), &mut out, true);
    out
}

/// Whether a walk at `path` (with `unmanaged`) passes over the member `key`:
/// `metadata.managedFields` of the root.
fn passed_over(unmanaged: bool, path: &[PathElement], key: &str) -> bool {
    unmanaged && key == "managedFields" && matches!(path, [PathElement::Field(f)] if f == "metadata")
}

/// smd's compare walk of `lhs` against `rhs` at `path`: a leaf is added,
/// removed or modified as a whole; a granular list or map is walked item by
/// item, and is itself added or removed when one side lacks it.
fn walk_compare(
    lhs: Option<&Value>,
    rhs: Option<&Value>,
    ty: Ty<'_>,
    path: &mut Vec<PathElement>,
    out: &mut Comparison,
    unmanaged: bool,
) {
    let a_l = atom(ty, lhs);
    let a_r = atom(ty, rhs);
    let leaf = |out: &mut Comparison, path: &[PathElement]| match (lhs, rhs) {
        (None, None) => {}
        (None, Some(_)) => out.added.insert(path),
        (Some(_), None) => out.removed.insert(path),
        (Some(l), Some(r)) if l != r => out.modified.insert(path),
        _ => {}
    };
    let mut in_leaf = false;
    let atom = pick(a_l, a_r, lhs, rhs);
    let both_empty = is_empty_or_null(lhs) && is_empty_or_null(rhs);
    match atom {
        Atom::Scalar | Atom::List { rel: ListRel::Atomic, .. } | Atom::Map { atomic: true, .. } => {
            leaf(out, path);
            in_leaf = true;
        }
        Atom::List { .. } | Atom::Map { .. } if both_empty => {
            leaf(out, path);
            in_leaf = true;
        }
        Atom::List { elem, rel } => compare_list(lhs, rhs, elem, rel, path, out, unmanaged),
        Atom::Map { node, .. } => compare_map(lhs, rhs, node, path, out, unmanaged),
    }
    if !in_leaf && !path.is_empty() {
        if lhs.is_none() {
            out.added.insert(path);
        } else if rhs.is_none() {
            out.removed.insert(path);
        }
    }
}

/// The walk of a granular list: each item of `lhs` against the item of
/// `rhs` with its key (the first of duplicates only), then the items only
/// `rhs` has.
fn compare_list(
    lhs: Option<&Value>,
    rhs: Option<&Value>,
    elem: Ty<'_>,
    rel: ListRel<'_>,
    path: &mut Vec<PathElement>,
    out: &mut Comparison,
    unmanaged: bool,
) {
    let (l, r) = (items(lhs), items(rhs));
    let rhs_pes: Vec<Option<PathElement>> = r.iter().enumerate().map(|(i, v)| item_pe(rel, i, v)).collect();
    let mut seen = Vec::new();
    for (i, item) in l.iter().enumerate() {
        let Some(pe) = item_pe(rel, i, item) else { continue };
        if seen.contains(&pe) {
            continue;
        }
        let other = rhs_pes.iter().position(|p| p.as_ref() == Some(&pe)).map(|j| &r[j]);
        path.push(pe.clone());
        walk_compare(Some(item), other, elem, path, out, unmanaged);
        path.pop();
        seen.push(pe);
    }
    for (j, pe) in rhs_pes.into_iter().enumerate() {
        let Some(pe) = pe else { continue };
        if seen.contains(&pe) {
            continue;
        }
        path.push(pe.clone());
        walk_compare(None, Some(&r[j]), elem, path, out, unmanaged);
        path.pop();
        seen.push(pe);
    }
}

/// The walk of a granular map: each member of `lhs` against the member of
/// `rhs` of its key, then the members only `rhs` has.
fn compare_map(
    lhs: Option<&Value>,
    rhs: Option<&Value>,
    node: Option<(&Schema, bool)>,
    path: &mut Vec<PathElement>,
    out: &mut Comparison,
    unmanaged: bool,
) {
    let (l, r) = (entries(lhs), entries(rhs));
    let empty = Map::new();
    let (l, r) = (l.unwrap_or(&empty), r.unwrap_or(&empty));
    for (key, lv) in l {
        if passed_over(unmanaged, path, key) {
            continue;
        }
        let (ty, _) = entry_ty(node, key);
        path.push(PathElement::Field(key.clone()));
        walk_compare(Some(lv), r.get(key), ty, path, out, unmanaged);
        path.pop();
    }
    for (key, rv) in r {
        if l.contains_key(key) || passed_over(unmanaged, path, key) {
            continue;
        }
        let (ty, _) = entry_ty(node, key);
        path.push(PathElement::Field(key.clone()));
        walk_compare(None, Some(rv), ty, path, out, unmanaged);
        path.pop();
    }
}

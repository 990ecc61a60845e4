//! The typed view of an object, as structured-merge-diff's `typed` package
//! over the schema the apiserver builds for a custom resource: what is a
//! leaf and what is a granular list or map, per `x-kubernetes-list-type`
//! (atomic by default), `x-kubernetes-map-type` (granular by default),
//! preserve-unknown-fields subtrees deduced as smd's `__untyped_deduced_`
//! (maps granular, lists atomic), `int-or-string` a scalar, and ObjectMeta's
//! schema for the `metadata` of the root and of embedded resources. On it:
//! `to_field_set`, `compare` (added, modified, removed; `compare.rs`),
//! `merge` (apply's merge of a configuration into the live object) and
//! `remove_items`.

use std::sync::OnceLock;

use serde_json::{json, Map, Value};

mod compare;

pub use compare::{compare, compare_unmanaged, Comparison};

use super::path::{PathElement, Set};
use crate::schema::{Additional, Schema, Type};

/// A type reference: a schema node (and whether it is a resource, whose
/// `apiVersion`, `kind` and `metadata` are ObjectMeta's), or a deduced one.
#[derive(Clone, Copy)]
pub enum Ty<'s> {
    Node(&'s Schema, bool),
    Deduced,
}

impl<'s> Ty<'s> {
    /// The root of an object of a kind whose schema is `schema` (none: the
    /// whole object deduced, apart from its metadata).
    pub fn root(schema: Option<&'s Schema>) -> Ty<'s> {
        match schema {
            Some(s) => Ty::Node(s, true),
            None => Ty::Node(untyped_resource(), true),
        }
    }
}

/// How a list's items are told apart.
#[derive(Clone, Copy)]
enum ListRel<'s> {
    Atomic,
    Set,
    Map(&'s [String]),
}

/// What a value is, under its type.
enum Atom<'s> {
    Scalar,
    List { elem: Ty<'s>, rel: ListRel<'s> },
    Map { node: Option<(&'s Schema, bool)>, atomic: bool },
}

/// The schema of ObjectMeta as Kubernetes' generated OpenAPI marks it.
pub fn object_meta() -> &'static Schema {
    static META: OnceLock<Schema> = OnceLock::new();
    META.get_or_init(|| {
        let s = json!({"type": "string"});
        let owner = json!({"type": "object", "properties": {
            "apiVersion": s, "blockOwnerDeletion": {"type": "boolean"}, "controller": {"type": "boolean"},
            "kind": s, "name": s, "uid": s}});
        let meta = json!({"type": "object", "properties": {
            "annotations": {"type": "object", "additionalProperties": s},
            "creationTimestamp": s,
            "deletionGracePeriodSeconds": {"type": "integer"},
            "deletionTimestamp": s,
            "finalizers": {"type": "array", "items": s, "x-kubernetes-list-type": "set"},
            "generateName": s,
            "generation": {"type": "integer"},
            "labels": {"type": "object", "additionalProperties": s},
            "managedFields": {"type": "array", "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
            "name": s,
            "namespace": s,
            "ownerReferences": {"type": "array", "items": owner,
                "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["uid"]},
            "resourceVersion": s,
            "selfLink": s,
            "uid": s}});
        Schema::compile(&meta).expect("ObjectMeta's schema compiles")
    })
}

/// A resource without a schema: every field deduced.
fn untyped_resource() -> &'static Schema {
    static UNTYPED: OnceLock<Schema> = OnceLock::new();
    UNTYPED.get_or_init(|| {
        Schema::compile(&json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true})).expect("compiles")
    })
}

/// smd's `deduceAtom`: the atom of `value` under `ty`.
fn atom<'s>(ty: Ty<'s>, value: Option<&Value>) -> Atom<'s> {
    // A deduced null (or nothing) is smd's whole deduced atom, which is
    // handled as its map first.
    let deduced = |value: Option<&Value>| match value {
        None | Some(Value::Null) | Some(Value::Object(_)) => Atom::Map { node: None, atomic: false },
        Some(Value::Array(_)) => Atom::List { elem: Ty::Deduced, rel: ListRel::Atomic },
        _ => Atom::Scalar,
    };
    let Ty::Node(schema, resource) = ty else { return deduced(value) };
    if schema.int_or_string {
        return Atom::Scalar;
    }
    match schema.type_ {
        Some(Type::Object) => {
            Atom::Map { node: Some((schema, resource)), atomic: schema.map_type.as_deref() == Some("atomic") }
        }
        Some(Type::Array) => {
            let elem = match &schema.items {
                Some(items) => Ty::Node(items, items.embedded_resource),
                None => Ty::Deduced,
            };
            let rel = match schema.list_type.as_deref() {
                Some("set") => ListRel::Set,
                Some("map") => ListRel::Map(&schema.list_map_keys),
                _ => ListRel::Atomic,
            };
            Atom::List { elem, rel }
        }
        Some(_) => Atom::Scalar,
        None if !schema.properties.is_empty() || resource => {
            Atom::Map { node: Some((schema, resource)), atomic: schema.map_type.as_deref() == Some("atomic") }
        }
        None => deduced(value),
    }
}

/// The type of a map's entry `key`, and whether it is a declared field
/// (smd's struct field) rather than an element.
fn entry_ty<'s>(node: Option<(&'s Schema, bool)>, key: &str) -> (Ty<'s>, bool) {
    let Some((schema, resource)) = node else { return (Ty::Deduced, false) };
    if resource {
        match key {
            "metadata" => return (Ty::Node(object_meta(), false), true),
            "apiVersion" | "kind" => return (Ty::Node(string(), false), true),
            _ => {}
        }
    }
    if let Some(p) = schema.property(key) {
        return (Ty::Node(p, p.embedded_resource), true);
    }
    match &schema.additional {
        Additional::Schema(a) => (Ty::Node(a, a.embedded_resource), false),
        _ => (Ty::Deduced, false),
    }
}

fn string() -> &'static Schema {
    static STRING: OnceLock<Schema> = OnceLock::new();
    STRING.get_or_init(|| Schema::compile(&json!({"type": "string"})).expect("compiles"))
}

/// The path element of a list item (None for an item without its keys).
fn item_pe(rel: ListRel<'_>, index: usize, item: &Value) -> Option<PathElement> {
    match rel {
        ListRel::Atomic => Some(PathElement::Index(index)),
        ListRel::Set => Some(PathElement::Value(item.clone())),
        ListRel::Map(keys) => {
            let map = item.as_object()?;
            let mut fields: Vec<(String, Value)> =
                keys.iter().filter_map(|k| map.get(k).map(|v| (k.clone(), v.clone()))).collect();
            if fields.is_empty() {
                return None;
            }
            fields.sort_by(|a, b| a.0.cmp(&b.0));
            Some(PathElement::Key(fields))
        }
    }
}

fn items(value: Option<&Value>) -> &[Value] {
    match value {
        Some(Value::Array(items)) => items,
        _ => &[],
    }
}

fn entries(value: Option<&Value>) -> Option<&Map<String, Value>> {
    match value {
        Some(Value::Object(map)) => Some(map),
        _ => None,
    }
}

/// The set of fields `value` sets, as smd's `ToFieldSet`.
pub fn to_field_set(value: &Value, ty: Ty<'_>) -> Set {
    let mut set = Set::new();
    walk_set(value, ty, &mut Vec::new(), &mut set);
    set
}

fn walk_set(value: &Value, ty: Ty<'_>, path: &mut Vec<PathElement>, set: &mut Set) {
    match atom(ty, Some(value)) {
        Atom::Scalar | Atom::List { rel: ListRel::Atomic, .. } | Atom::Map { atomic: true, .. } => set.insert(path),
        Atom::List { elem, rel } => {
            for (i, item) in items(Some(value)).iter().enumerate() {
                let Some(pe) = item_pe(rel, i, item) else { continue };
                path.push(pe);
                walk_set(item, elem, path, set);
                set.insert(path);
                path.pop();
            }
        }
        Atom::Map { node, .. } => {
            let Some(map) = entries(Some(value)) else { return };
            for (key, item) in map {
                let (ty, declared) = entry_ty(node, key);
                path.push(PathElement::Field(key.clone()));
                walk_set(item, ty, path, set);
                let empty_map = matches!(item, Value::Object(m) if m.is_empty());
                if item.is_null() || empty_map || !declared {
                    set.insert(path);
                }
                path.pop();
            }
        }
    }
}

/// Whether two atoms are of one kind: both leaves, lists or maps.
fn same_kind(a: &Atom<'_>, b: &Atom<'_>) -> bool {
    matches!(
        (a, b),
        (Atom::Scalar, Atom::Scalar) | (Atom::List { .. }, Atom::List { .. }) | (Atom::Map { .. }, Atom::Map { .. })
    )
}

/// The atom a walk over two values uses: theirs when they agree, the
/// other side's when one side is null or absent, else a leaf.
fn pick<'s>(a_l: Atom<'s>, a_r: Atom<'s>, lhs: Option<&Value>, rhs: Option<&Value>) -> Atom<'s> {
    let nothing = |v: Option<&Value>| matches!(v, None | Some(Value::Null));
    if same_kind(&a_l, &a_r) || nothing(lhs) {
        a_r
    } else if nothing(rhs) {
        a_l
    } else {
        Atom::Scalar
    }
}

/// Whether a value is absent, null, or an empty list or map.
fn is_empty_or_null(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => true,
        Some(Value::Array(a)) => a.is_empty(),
        Some(Value::Object(m)) => m.is_empty(),
        _ => false,
    }
}

/// Apply's merge of `config` into `live` (smd's `Merge` with the
/// keep-the-right-hand-side rule): scalars and atomic lists and maps are
/// replaced, granular maps merged by key and granular lists by item key,
/// in smd's order.
pub fn merge(live: &Value, config: &Value, ty: Ty<'_>) -> Value {
    walk_merge(Some(live), Some(config), ty).unwrap_or(Value::Null)
}

fn walk_merge(lhs: Option<&Value>, rhs: Option<&Value>, ty: Ty<'_>) -> Option<Value> {
    let keep_rhs = || rhs.or(lhs).cloned();
    let a_l = atom(ty, lhs);
    let a_r = atom(ty, rhs);
    let atom = pick(a_l, a_r, lhs, rhs);
    let both_empty = is_empty_or_null(lhs) && is_empty_or_null(rhs);
    match atom {
        Atom::Scalar | Atom::List { rel: ListRel::Atomic, .. } | Atom::Map { atomic: true, .. } => keep_rhs(),
        Atom::List { .. } | Atom::Map { .. } if both_empty => keep_rhs(),
        Atom::List { elem, rel } => merge_list(items(lhs), items(rhs), elem, rel),
        Atom::Map { node, .. } => {
            let empty = Map::new();
            let (l, r) = (entries(lhs).unwrap_or(&empty), entries(rhs).unwrap_or(&empty));
            let mut out = Map::new();
            for (key, lv) in l {
                let (ty, _) = entry_ty(node, key);
                if let Some(v) = walk_merge(Some(lv), r.get(key), ty) {
                    out.insert(key.clone(), v);
                }
            }
            for (key, rv) in r {
                if l.contains_key(key) {
                    continue;
                }
                let (ty, _) = entry_ty(node, key);
                if let Some(v) = walk_merge(None, Some(rv), ty) {
                    out.insert(key.clone(), v);
                }
            }
            (!out.is_empty()).then_some(Value::Object(out))
        }
    }
}

/// smd's `visitListItems` of the merge: shared items in the applied
/// order, live-only items kept where they were.
fn merge_list(lhs: &[Value], rhs: &[Value], elem: Ty<'_>, rel: ListRel<'_>) -> Option<Value> {
    let index = |list: &[Value]| -> Vec<(PathElement, usize)> {
        let mut out: Vec<(PathElement, usize)> = Vec::new();
        for (i, v) in list.iter().enumerate() {
            if let Some(pe) = item_pe(rel, i, v) {
                out.push((pe, i));
            }
        }
        out
    };
    let first = |pes: &[(PathElement, usize)], pe: &PathElement| pes.iter().find(|(p, _)| p == pe).map(|(_, i)| *i);
    let lhs_pes = index(lhs);
    let rhs_pes = index(rhs);
    let mut shared: std::collections::VecDeque<&PathElement> =
        rhs_pes.iter().map(|(pe, _)| pe).filter(|pe| first(&lhs_pes, pe).is_some()).collect();
    let mut next_shared = shared.pop_front();
    let mut merged_rhs: Vec<PathElement> = Vec::new();
    let mut out = Vec::new();
    let (mut li, mut ri) = (0, 0);
    let item = |pe: &PathElement, l: Option<&Value>, r: Option<&Value>, out: &mut Vec<Value>| {
        let _ = pe;
        if let Some(v) = walk_merge(l, r, elem) {
            out.push(v);
        }
    };
    while li < lhs_pes.len() || ri < rhs_pes.len() {
        if li < lhs_pes.len() && ri < rhs_pes.len() {
            let pe = &lhs_pes[li].0;
            if *pe == rhs_pes[ri].0 {
                merged_rhs.push(pe.clone());
                let l = first(&lhs_pes, pe).map(|i| &lhs[i]);
                let r = first(&rhs_pes, pe).map(|i| &rhs[i]);
                item(pe, l, r, &mut out);
                li += 1;
                ri += 1;
                next_shared = shared.pop_front();
                continue;
            }
            if first(&rhs_pes, pe).is_some() && next_shared.is_some_and(|n| n != pe) {
                li += 1;
                continue;
            }
        }
        if li < lhs_pes.len() {
            let (pe, at) = &lhs_pes[li];
            if first(&rhs_pes, pe).is_none() {
                item(pe, Some(&lhs[*at]), None, &mut out);
                li += 1;
                continue;
            } else if merged_rhs.contains(pe) {
                li += 1;
                continue;
            }
        }
        if ri < rhs_pes.len() {
            let pe = &rhs_pes[ri].0;
            merged_rhs.push(pe.clone());
            let l = first(&lhs_pes, pe).map(|i| &lhs[i]);
            let r = first(&rhs_pes, pe).map(|i| &rhs[i]);
            item(pe, l, r, &mut out);
            ri += 1;
            if next_shared.is_some_and(|n| n == pe) {
                next_shared = shared.pop_front();
            }
        }
    }
    (!out.is_empty()).then_some(Value::Array(out))
}

/// `value` without the members of `remove`, as smd's `RemoveItems` (a
/// container left empty becomes null, as there).
pub fn remove_items(value: &Value, remove: &Set, ty: Ty<'_>) -> Value {
    walk_remove(value, remove, ty).unwrap_or(Value::Null)
}

fn walk_remove(value: &Value, remove: &Set, ty: Ty<'_>) -> Option<Value> {
    match atom(ty, Some(value)) {
        Atom::Scalar => Some(value.clone()),
        Atom::List { rel: ListRel::Atomic, .. } | Atom::Map { atomic: true, .. } => None,
        Atom::List { elem, rel } => {
            let list = value.as_array()?;
            if list.is_empty() {
                return None;
            }
            let mut out = Vec::new();
            for (i, item) in list.iter().enumerate() {
                let Some(pe) = item_pe(rel, i, item) else {
                    out.push(item.clone());
                    continue;
                };
                if remove.has_member(&pe) {
                    continue;
                }
                match remove.child(&pe) {
                    Some(sub) => out.push(walk_remove(item, sub, elem).unwrap_or(Value::Null)),
                    None => out.push(item.clone()),
                }
            }
            (!out.is_empty()).then_some(Value::Array(out))
        }
        Atom::Map { node, .. } => {
            let map = value.as_object()?;
            if map.is_empty() {
                return None;
            }
            let mut out = Map::new();
            for (key, item) in map {
                let pe = PathElement::Field(key.clone());
                if remove.has_member(&pe) {
                    continue;
                }
                match remove.child(&pe) {
                    Some(sub) => {
                        let (ty, _) = entry_ty(node, key);
                        out.insert(key.clone(), walk_remove(item, sub, ty).unwrap_or(Value::Null));
                    }
                    None => {
                        out.insert(key.clone(), item.clone());
                    }
                }
            }
            (!out.is_empty()).then_some(Value::Object(out))
        }
    }
}

/// smd's `EnsureNamedFieldsAreMembers`: the set with every declared field
/// that has children also a member, so removing it removes the field.
pub fn ensure_named_fields(set: &Set, value: Option<&Value>, ty: Ty<'_>) -> Set {
    let mut out = Set::new();
    let node = match atom(ty, value) {
        Atom::Map { node, .. } => node,
        _ => None,
    };
    let list = match atom(ty, value) {
        Atom::List { elem, .. } => Some(elem),
        _ => None,
    };
    for (pe, n) in &set.0 {
        let mut member = n.member;
        let (child_ty, child_value) = match pe {
            PathElement::Field(name) => {
                let (ty, declared) = entry_ty(node, name);
                if declared && node.is_some() && !n.children.is_empty() {
                    member = true;
                }
                (ty, value.and_then(|v| v.get(name)))
            }
            _ => (list.unwrap_or(Ty::Deduced), None),
        };
        let children = ensure_named_fields(&n.children, child_value, child_ty);
        out.0.insert(pe.clone(), super::path::Node { member, children });
    }
    out
}

#[cfg(test)]
mod tests;

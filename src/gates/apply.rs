//! The gating of a write (`Gates::apply`), compiled once per definition
//! revision: for each guarded path whose ancestors' gates are all enabled
//! (the design's second table), a disabled gate drops the field unless the
//! stored object has it, in which case the stored value is kept and the new
//! one ignored (the first table). Each dropped or ignored field is reported
//! with its gate; setting a field of a deprecated gate reports its warning.

use serde_json::{Map, Value};

use super::{segments, CustomFeatureGates};

/// One guarded path, with what its gate decides.
#[derive(Debug, Clone)]
pub struct Guarded {
    pub segments: Vec<String>,
    /// `spec.replicas`, as warnings name fields.
    pub field: String,
    pub gate: String,
    pub stage: String,
    /// Whether the gate lets the field through.
    pub effective: bool,
    /// Every gate guarding a path above this one is enabled; otherwise that
    /// gate decides for the whole subtree and this one is not considered.
    pub considered: bool,
    pub deprecated_warning: Option<String>,
}

/// A definition's gates, ready to apply.
#[derive(Debug, Clone, Default)]
pub struct Gates {
    pub paths: Vec<Guarded>,
    /// The paths a write must look at (considered, and disabled or
    /// deprecated: an enabled gate's field passes untouched), grouped by
    /// their parent's segments, so a parent is looked up once per write.
    active: Vec<(Vec<String>, Vec<usize>)>,
}

/// What a write does to one guarded field.
enum Fix {
    Restore(Value),
    Drop,
}

impl Gates {
    /// Compiles a definition's gate set (validated at definition write).
    pub fn compile(gates: Option<&CustomFeatureGates>) -> Self {
        let Some(gates) = gates else { return Self::default() };
        let mut paths: Vec<Guarded> = Vec::new();
        for gate in &gates.feature_gates {
            for path in &gate.field_paths {
                let segments = segments(path);
                paths.push(Guarded {
                    field: segments.join("."),
                    segments,
                    gate: gate.name.clone(),
                    stage: gate.pre_release.clone(),
                    effective: gate.effective(),
                    considered: true,
                    deprecated_warning: (gate.pre_release == "deprecated")
                        .then(|| gate.deprecated_warning.clone().unwrap_or_default()),
                });
            }
        }
        let snapshot = paths.clone();
        for p in &mut paths {
            p.considered = snapshot
                .iter()
                .filter(|a| a.segments.len() < p.segments.len() && p.segments.starts_with(&a.segments))
                .all(|a| a.effective);
        }
        let mut active: Vec<(Vec<String>, Vec<usize>)> = Vec::new();
        for (i, p) in paths.iter().enumerate() {
            if !p.considered || (p.effective && p.deprecated_warning.is_none()) {
                continue;
            }
            let parent = p.segments[..p.segments.len() - 1].to_vec();
            match active.iter_mut().find(|(at, _)| *at == parent) {
                Some((_, leaves)) => leaves.push(i),
                None => active.push((parent, vec![i])),
            }
        }
        Self { paths, active }
    }

    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }

    /// Gates `obj` (the object about to be stored) against `old` (the
    /// stored one, `None` on create); returns a warning per dropped or
    /// ignored field, and the warning of each deprecated gate whose field
    /// the write sets.
    pub fn apply(&self, obj: &mut Value, old: Option<&Value>) -> Vec<String> {
        let mut warnings = Vec::new();
        let mut fixes: Vec<(usize, Fix)> = Vec::new();
        for (parent, leaves) in &self.active {
            let new_parent = get(obj, parent).and_then(Value::as_object);
            let old_parent = old.and_then(|o| get(o, parent)).and_then(Value::as_object);
            for &i in leaves {
                let p = &self.paths[i];
                let last = p.segments.last().expect("paths have a segment");
                let new = new_parent.and_then(|m| m.get(last));
                let stored = old_parent.and_then(|m| m.get(last));
                if p.effective {
                    if let Some(text) = &p.deprecated_warning {
                        if new.is_some() && new != stored {
                            warnings.push(deprecated(p, text));
                        }
                    }
                    continue;
                }
                match (stored, new) {
                    (Some(stored), new) if new != Some(stored) => {
                        fixes.push((i, Fix::Restore(stored.clone())));
                        warnings.push(format!(
                            "{}: ignored: feature gate {} ({}) is disabled; the stored value is kept",
                            p.field, p.gate, p.stage
                        ));
                    }
                    (None, Some(_)) => {
                        fixes.push((i, Fix::Drop));
                        warnings
                            .push(format!("{}: dropped: feature gate {} ({}) is disabled", p.field, p.gate, p.stage));
                    }
                    _ => {}
                }
            }
        }
        for (i, fix) in fixes {
            match fix {
                Fix::Restore(value) => set(obj, &self.paths[i].segments, value),
                Fix::Drop => remove(obj, &self.paths[i].segments),
            }
        }
        warnings
    }
}

fn deprecated(p: &Guarded, text: &str) -> String {
    if text.is_empty() {
        format!("{}: feature gate {} is deprecated", p.field, p.gate)
    } else {
        text.to_string()
    }
}

fn get<'a>(obj: &'a Value, segments: &[String]) -> Option<&'a Value> {
    segments.iter().try_fold(obj, |node, s| node.as_object()?.get(s))
}

fn remove(obj: &mut Value, segments: &[String]) {
    let (last, parents) = segments.split_last().expect("paths have a segment");
    let parent = parents.iter().try_fold(obj, |node, s| node.as_object_mut()?.get_mut(s));
    if let Some(map) = parent.and_then(Value::as_object_mut) {
        map.shift_remove(last);
    }
}

/// Sets the value at `segments`, making the objects above it as needed (a
/// stored value is kept even when the write removed its parent).
fn set(obj: &mut Value, segments: &[String], value: Value) {
    let (last, parents) = segments.split_last().expect("paths have a segment");
    let mut node = obj;
    for s in parents {
        let Some(map) = node.as_object_mut() else { return };
        let child = map.entry(s.clone()).or_insert_with(|| Value::Object(Map::new()));
        if !child.is_object() {
            *child = Value::Object(Map::new());
        }
        node = child;
    }
    if let Some(map) = node.as_object_mut() {
        map.insert(last.clone(), value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn gates(foo: bool, qux: bool) -> Gates {
        let set = json!({"featureGates": [
            {"name": "FooFeatureGate", "preRelease": "alpha", "enabled": foo, "fieldPaths": [".spec.foo"]},
            {"name": "QuxFeatureGate", "preRelease": "alpha", "enabled": qux, "fieldPaths": [".spec.foo.qux"]}]});
        Gates::compile(Some(&serde_json::from_value(set).unwrap()))
    }

    /// The design's second table, all eight rows.
    #[test]
    fn nested_gates_follow_the_second_table() {
        let applied = json!({"spec": {"foo": {"baz": 2, "qux": 3}}});
        let persisted = json!({"spec": {"foo": {"qux": 1}}});
        let rows = [
            (false, false, false, json!({})),
            (false, false, true, json!({})),
            (false, true, false, json!({"foo": {"baz": 2}})),
            (false, true, true, json!({"foo": {"baz": 2, "qux": 3}})),
            (true, false, false, json!({"foo": {"qux": 1}})),
            (true, false, true, json!({"foo": {"qux": 1}})),
            (true, true, false, json!({"foo": {"baz": 2, "qux": 1}})),
            (true, true, true, json!({"foo": {"baz": 2, "qux": 3}})),
        ];
        for (i, (has, foo, qux, want)) in rows.into_iter().enumerate() {
            let mut obj = applied.clone();
            let warnings = gates(foo, qux).apply(&mut obj, has.then_some(&persisted));
            assert_eq!(obj["spec"], want, "row {}", i + 1);
            assert_eq!(warnings.len(), usize::from(!(foo && qux)), "row {}: {warnings:?}", i + 1);
        }
    }

    #[test]
    fn warnings_name_the_field_and_the_gate() {
        let mut obj = json!({"spec": {"foo": {"qux": 3}}});
        let w = gates(false, true).apply(&mut obj, None);
        assert_eq!(w, vec!["spec.foo: dropped: feature gate FooFeatureGate (alpha) is disabled"]);
        let mut obj = json!({"spec": {"foo": {"qux": 3}}});
        let w = gates(true, false).apply(&mut obj, Some(&json!({"spec": {"foo": {"qux": 1}}})));
        assert_eq!(
            w,
            vec!["spec.foo.qux: ignored: feature gate QuxFeatureGate (alpha) is disabled; the stored value is kept"]
        );
        let mut untouched = json!({"spec": {"foo": {"qux": 1}}});
        assert!(gates(true, false).apply(&mut untouched, Some(&json!({"spec": {"foo": {"qux": 1}}}))).is_empty());
    }

    #[test]
    fn a_kept_value_survives_the_removal_of_its_parent() {
        let mut obj = json!({"spec": {}});
        gates(true, false).apply(&mut obj, Some(&json!({"spec": {"foo": {"qux": 1}}})));
        assert_eq!(obj, json!({"spec": {"foo": {"qux": 1}}}));
    }

    #[test]
    fn deprecated_gates_warn_when_their_field_is_set() {
        let set = json!({"featureGates": [{"name": "Old", "preRelease": "deprecated", "default": true,
            "deprecatedWarning": "spec.old is going away", "fieldPaths": [".spec.old"]}]});
        let g = Gates::compile(Some(&serde_json::from_value(set).unwrap()));
        let mut obj = json!({"spec": {"old": 1}});
        assert_eq!(g.apply(&mut obj, None), vec!["spec.old is going away"]);
        assert!(g.apply(&mut obj.clone(), Some(&obj)).is_empty(), "an unchanged value is not set again");
    }
}

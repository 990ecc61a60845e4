//! `metadata.managedFields` as k8s.io/apiserver's fieldmanager keeps them:
//! invalid ones reset (as `decodeLiveOrNew`), the Update operation (changed
//! fields to the updater, taken from the others; entries of one manager,
//! apiVersion and subresource merged), the Apply operation (merge, removal
//! of what the applier no longer applies, conflicts, force), stripping of
//! the server's metadata and the endpoint's reset fields. The entries
//! themselves, their codec and their cap are `entries.rs`.

use serde_json::{Map, Value};

pub use super::entries::{decode, encode, set_managed_fields, Entry, Operation, MAX_UPDATE_MANAGERS};

use super::entries::{cap, managed_fields_of, remove_managed_fields};
use super::path::{show_path, PathElement, Set};
use super::typed::{self, Ty};
use crate::error::{CauseType, Error, FieldError, Result};

/// The Update manager of the fields an object had before its first apply.
const BEFORE_FIRST_APPLY: &str = "before-first-apply";

/// What the apiserver strips from every manager's set: `stripmeta.go`.
fn strip_set() -> &'static Set {
    static STRIP: std::sync::OnceLock<Set> = std::sync::OnceLock::new();
    STRIP.get_or_init(|| {
        let mut set = Set::new();
        let f = |s: &str| PathElement::Field(s.into());
        set.insert(&[f("apiVersion")]);
        set.insert(&[f("kind")]);
        set.insert(&[f("metadata")]);
        for name in [
            "name",
            "namespace",
            "creationTimestamp",
            "selfLink",
            "uid",
            "clusterName",
            "generation",
            "managedFields",
            "resourceVersion",
        ] {
            set.insert(&[f("metadata"), f(name)]);
        }
        set
    })
}

/// The field manager of one kind at one version and endpoint.
pub struct FieldManager<'s> {
    pub ty: Ty<'s>,
    /// `group/version` (or `v1` style) of the endpoint.
    pub api_version: String,
    pub kind: String,
    /// "" or "status".
    pub subresource: String,
    /// The fields the endpoint resets (never owned through it), as
    /// prefixes: `status` on a main endpoint with a status subresource,
    /// `spec` (and `metadata` for definitions) on the status endpoint.
    pub reset: Set,
    /// The time recorded for this operation (RFC 3339, seconds).
    pub now: String,
}

impl FieldManager<'_> {
    /// The managedFields an update starts from: the request's when it
    /// carries valid non-empty ones (an empty list clears them), else the
    /// live object's; on a subresource always the live object's.
    fn live_or_new(&self, live: &Value, new: &Value) -> Vec<Entry> {
        let live_entries = || decode(managed_fields_of(live).unwrap_or(&Value::Null)).unwrap_or_default();
        if !self.subresource.is_empty() {
            return live_entries();
        }
        match managed_fields_of(new) {
            Some(Value::Array(items)) if items.is_empty() => return Vec::new(),
            Some(Value::Array(items)) if items.len() == 1 && items[0] == Value::Object(Map::new()) => {
                return Vec::new()
            }
            _ => {}
        }
        match decode(managed_fields_of(new).unwrap_or(&Value::Null)) {
            Ok(entries) if !entries.is_empty() => entries,
            _ => live_entries(),
        }
    }

    /// Records an Update by `manager` of `live` (None: a create) into
    /// `new`'s managedFields.
    pub fn update(&self, live: Option<&Value>, new: &mut Value, manager: &str) {
        let empty = Value::Object(Map::new());
        let live = live.unwrap_or(&empty);
        let mut entries = self.live_or_new(live, new);
        remove_managed_fields(new);
        self.record_update(&mut entries, live, new, manager);
        cap(&mut entries);
        set_managed_fields(new, entries);
    }

    /// The Update of `old` into `new` by `manager`, over `entries`: the
    /// changed fields become the manager's and leave the others (either
    /// object's managedFields aside).
    fn record_update(&self, entries: &mut Vec<Entry>, old: &Value, new: &Value, manager: &str) {
        // The comparison's sets are not needed after: each is narrowed in
        // place (a write's set algebra is most of the field manager's cost).
        let compare = typed::compare_unmanaged(old, new, self.ty);
        let mut changed = compare.added.without_prefixes(&self.reset);
        changed.union_in(&compare.modified.without_prefixes(&self.reset));
        let removed = compare.removed.without_prefixes(&self.reset);
        for entry in entries.iter_mut() {
            entry.set.remove_in(&changed);
            entry.set.remove_in(&removed);
        }
        entries.retain(|e| !e.set.is_empty());
        let mut set = changed;
        set.remove_in(strip_set());
        let manager = if manager.is_empty() { "unknown" } else { manager };
        if set.is_empty() {
            return;
        }
        match entries.iter_mut().find(|e| e.same(manager, Operation::Update, &self.api_version, &self.subresource)) {
            Some(previous) => {
                previous.set.union_in(&set);
                previous.time = Some(self.now.clone());
            }
            None => entries.push(Entry {
                manager: manager.to_string(),
                operation: Operation::Update,
                api_version: self.api_version.clone(),
                time: Some(self.now.clone()),
                subresource: self.subresource.clone(),
                set,
            }),
        }
    }

    /// Applies `config` by `manager` over `live` (None: the object does not
    /// exist yet): the merged object with its managedFields, or a Conflict
    /// listing each field another manager owns with another value.
    pub fn apply(&self, live: Option<&Value>, config: &Value, manager: &str, force: bool) -> Result<Value> {
        self.check_applied(config)?;
        let (mut entries, live_clean) = self.live_entries(live)?;
        let merged = typed::merge(&live_clean, config, self.ty);
        let at = entries.iter().position(|e| e.same(manager, Operation::Apply, "", &self.subresource));
        let last = at.map(|i| entries[i].set.clone());
        let applied = typed::to_field_set(config, self.ty).exclude_prefixes(&self.reset);
        let me = self.applier_entry(&mut entries, at, manager);
        entries[me].set = applied;
        entries[me].api_version = self.api_version.clone();
        let merged = match last.filter(|l| !l.is_empty()) {
            Some(last) => self.prune(merged, &entries, &last),
            None => merged,
        };
        // smd's update: conflicts with, and removals from, the others.
        let compare = typed::compare(&live_clean, &merged, self.ty);
        let changed = compare.added.union(&compare.modified).exclude_prefixes(&self.reset);
        let removed = compare.removed.exclude_prefixes(&self.reset);
        let conflicts = conflicts_with(&entries, me, &changed);
        if !force && !conflicts.is_empty() {
            self.check_conflicts(&entries, &conflicts, &live_clean, manager)?;
        }
        for (i, conflict) in &conflicts {
            entries[*i].set = entries[*i].set.difference(conflict);
        }
        for (i, entry) in entries.iter_mut().enumerate() {
            if i != me {
                entry.set = entry.set.difference(&removed);
            }
        }
        entries[me].set = entries[me].set.difference(strip_set());
        let unchanged = merged == live_clean;
        if !unchanged || entries[me].time.is_none() {
            entries[me].time = Some(self.now.clone());
        }
        entries.retain(|e| !e.set.is_empty());
        let mut out = if unchanged { live_clean } else { merged };
        if manager == KUBECTL {
            update_last_applied(&mut out, config);
        }
        cap(&mut entries);
        set_managed_fields(&mut out, entries);
        Ok(out)
    }

    /// An applied configuration is of this object's type and carries no
    /// managedFields.
    fn check_applied(&self, config: &Value) -> Result<()> {
        let api_version = config.get("apiVersion").and_then(Value::as_str).unwrap_or("");
        let kind = config.get("kind").and_then(Value::as_str).unwrap_or("");
        if api_version != self.api_version || kind != self.kind {
            let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
            return Err(Error::bad_request(format!("invalid object type: {group}/{version}, Kind={kind}")));
        }
        if managed_fields_of(config).is_some_and(|m| !m.is_null()) {
            return Err(Error::bad_request("metadata.managedFields must be nil"));
        }
        Ok(())
    }

    /// The live object's managedFields entries and the object without them
    /// (None: an empty object). An object nobody manages yet gets its
    /// fields as an Update of `before-first-apply`.
    fn live_entries(&self, live: Option<&Value>) -> Result<(Vec<Entry>, Value)> {
        let empty = Value::Object(Map::new());
        let live = live.unwrap_or(&empty);
        let mut entries = decode(managed_fields_of(live).unwrap_or(&Value::Null))
            .map_err(|e| Error::internal(format!("failed to decode managed fields: {e}")))?;
        let mut live_clean = live.clone();
        remove_managed_fields(&mut live_clean);
        if entries.is_empty() && live_clean != empty {
            // An object nobody manages yet: its fields become an Update of
            // `before-first-apply`, as the apiserver's skipNonApplied does.
            let mut typed_empty = Map::new();
            for field in ["apiVersion", "kind"] {
                if let Some(v) = live_clean.get(field) {
                    typed_empty.insert(field.into(), v.clone());
                }
            }
            self.record_update(&mut entries, &Value::Object(typed_empty), &live_clean, BEFORE_FIRST_APPLY);
        }
        Ok((entries, live_clean))
    }

    /// The index of `manager`'s Apply entry: `at`, or a new empty one.
    fn applier_entry(&self, entries: &mut Vec<Entry>, at: Option<usize>, manager: &str) -> usize {
        match at {
            Some(i) => i,
            None => {
                entries.push(Entry {
                    manager: manager.to_string(),
                    operation: Operation::Apply,
                    api_version: self.api_version.clone(),
                    time: None,
                    subresource: self.subresource.clone(),
                    set: Set::new(),
                });
                entries.len() - 1
            }
        }
    }

    /// Unless kubectl takes over what client-side apply last applied (smd's
    /// lastAppliedManager), a Conflict listing each field of `conflicts`.
    fn check_conflicts(
        &self,
        entries: &[Entry],
        conflicts: &[(usize, Set)],
        live_clean: &Value,
        manager: &str,
    ) -> Result<()> {
        // lastAppliedManager: kubectl's server-side apply takes over
        // what client-side apply last applied, when it still holds.
        let allowed = match manager {
            KUBECTL => allowed_from_last_applied(live_clean, &self.api_version, self.ty),
            _ => None,
        };
        let Some(allowed) = allowed else { return Err(conflict_error(entries, conflicts)) };
        let left: Vec<(usize, Set)> =
            conflicts.iter().map(|(i, c)| (*i, c.difference(&allowed))).filter(|(_, c)| !c.is_empty()).collect();
        if !left.is_empty() {
            return Err(conflict_error(entries, &left));
        }
        Ok(())
    }

    /// smd's `prune`: removes from the merged object what the applier
    /// owned before and no longer applies, unless someone owns it.
    fn prune(&self, merged: Value, entries: &[Entry], last: &Set) -> Value {
        let ty = self.ty;
        let named = |set: &Set, v: &Value| typed::ensure_named_fields(set, Some(v), ty);
        let last = named(last, &merged);
        let merged_set = named(&typed::to_field_set(&merged, ty), &merged);
        let pruned = typed::remove_items(&merged, &last, ty);
        let mut owned = Set::new();
        for e in entries {
            owned.union_in(&e.set);
        }
        let owned = named(&owned, &merged);
        let pruned_set = named(&typed::to_field_set(&pruned, ty), &merged);
        let pruned = typed::remove_items(&merged, &merged_set.difference(&pruned_set.union(&owned)), ty);
        let pruned_set = named(&typed::to_field_set(&pruned, ty), &merged);
        typed::remove_items(&merged, &merged_set.difference(&pruned_set).intersection(&last), ty)
    }
}

/// The manager whose applies upgrade client-side apply, as the apiserver's
/// lastAppliedManager and lastAppliedUpdater.
const KUBECTL: &str = "kubectl";
/// kubectl's client-side apply annotation.
pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// lastAppliedManager's `allowedConflictsFromLastApplied`: the fields of
/// the last-applied annotation of `live` that still hold there (None when
/// there is no usable annotation).
fn allowed_from_last_applied(live: &Value, api_version: &str, ty: Ty<'_>) -> Option<Set> {
    let text = live.pointer("/metadata/annotations")?.get(LAST_APPLIED)?.as_str().filter(|t| !t.is_empty())?;
    let last: Value = serde_json::from_str(text).ok().filter(Value::is_object)?;
    if last.get("apiVersion").and_then(Value::as_str) != Some(api_version) {
        return None;
    }
    let c = typed::compare(&last, live, ty);
    Some(typed::to_field_set(&last, ty).difference(&c.modified).difference(&c.added).difference(&c.removed))
}

/// lastAppliedUpdater: an object that carries the last-applied annotation
/// gets kubectl's applied configuration there (without the annotation), so
/// a later client-side apply diffs against it; dropped when the
/// annotations would pass their 256 KiB total.
fn update_last_applied(out: &mut Value, config: &Value) {
    let has = out.pointer("/metadata/annotations").and_then(|a| a.get(LAST_APPLIED)).and_then(Value::as_str);
    if has.is_none_or(str::is_empty) {
        return;
    }
    let mut applied = config.clone();
    if let Some(a) = applied.pointer_mut("/metadata/annotations").and_then(Value::as_object_mut) {
        a.remove(LAST_APPLIED);
    }
    let Some(annotations) = out.pointer_mut("/metadata/annotations").and_then(Value::as_object_mut) else { return };
    annotations.insert(LAST_APPLIED.into(), Value::String(sorted(applied).to_string()));
    let size: usize = annotations.iter().map(|(k, v)| k.len() + v.as_str().map_or(0, str::len)).sum();
    if size > 256 * 1024 {
        annotations.remove(LAST_APPLIED);
    }
}

/// `value` with its maps' keys in order, as Go encodes a map.
fn sorted(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

/// The fields of `changed` each entry but the applier's (`me`) owns, by
/// entry, where there are any.
fn conflicts_with(entries: &[Entry], me: usize, changed: &Set) -> Vec<(usize, Set)> {
    let mut conflicts: Vec<(usize, Set)> = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        if i == me {
            continue;
        }
        let conflict = entry.set.intersection(changed);
        if !conflict.is_empty() {
            conflicts.push((i, conflict));
        }
    }
    conflicts
}

/// The 409 of an apply that conflicts, worded as the apiserver's.
fn conflict_error(entries: &[Entry], conflicts: &[(usize, Set)]) -> Error {
    let mut all: Vec<(&Entry, String)> = Vec::new();
    let mut sorted: Vec<&(usize, Set)> = conflicts.iter().collect();
    sorted.sort_by(|a, b| entries[a.0].manager.cmp(&entries[b.0].manager));
    for (i, set) in sorted {
        for path in set.paths() {
            all.push((&entries[*i], show_path(&path)));
        }
    }
    let message = if all.len() == 1 {
        format!("Apply failed with 1 conflict: conflict with {}: {}", all[0].0.shown(), all[0].1)
    } else {
        let mut lines = Vec::new();
        let mut last: Option<String> = None;
        for (entry, path) in &all {
            let shown = entry.shown();
            if last.as_ref() != Some(&shown) {
                lines.push(format!("conflicts with {shown}:"));
                last = Some(shown);
            }
            lines.push(format!("- {path}"));
        }
        format!("Apply failed with {} conflicts: {}", all.len(), lines.join("\n"))
    };
    let causes = all
        .iter()
        .map(|(entry, path)| FieldError {
            cause: CauseType::FieldManagerConflict,
            field: path.clone(),
            value: None,
            shown: None,
            detail: format!("conflict with {}", entry.shown()),
        })
        .collect();
    let mut err = Error::conflict_message(message);
    err.details.causes = causes;
    err
}

/// The manager of a request: `fieldManager`, else the User-Agent up to its
/// first `/`, printable characters only, at most 128 (`prefixFromUserAgent`).
pub fn manager_from(field_manager: &str, user_agent: &str) -> String {
    if !field_manager.is_empty() {
        return field_manager.to_string();
    }
    let prefix = user_agent.split('/').next().unwrap_or("");
    let mut out = String::new();
    for c in prefix.chars().filter(|c| !c.is_control()) {
        if out.len() >= 128 {
            break;
        }
        out.push(c);
    }
    out
}

/// Kubernetes' `ValidateFieldManager`: at most 128 bytes, printable.
pub fn validate_field_manager(field_manager: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if field_manager.len() > 128 {
        errs.push(FieldError {
            cause: CauseType::TooLong,
            field: "fieldManager".into(),
            value: None,
            shown: None,
            detail: "may not be more than 128 bytes".into(),
        });
    }
    for (i, c) in field_manager.chars().enumerate() {
        if c.is_control() {
            errs.push(FieldError::invalid(
                "fieldManager",
                field_manager,
                format!("invalid character U+{:04X} (at position {i})", c as u32),
            ));
        }
    }
    errs
}

#[cfg(test)]
#[path = "managed_tests.rs"]
mod tests;

//! Names across a group (from `thirdpartyresources-beta.md`): plural,
//! singular and short names share one value space, kind and listKind
//! another. A definition keeps names it has already been granted
//! (`status.acceptedNames`) and gains a requested one only while no other
//! definition of its group has it; conflicts are reported in the
//! `NamesAccepted` condition, not refused, and names that do not conflict
//! are still granted. This is Kubernetes' naming controller, run
//! synchronously inside each definition write.

use std::collections::HashSet;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, CustomResourceDefinitionNames,
};

use super::conditions::{self, condition};

/// The names other definitions of a group have been granted.
#[derive(Debug, Default)]
pub struct Claimed {
    resources: HashSet<String>,
    kinds: HashSet<String>,
}

impl Claimed {
    /// The names granted to every definition in `group` but `except`.
    pub fn in_group<'a>(
        all: impl IntoIterator<Item = &'a CustomResourceDefinition>,
        group: &str,
        except: &str,
    ) -> Self {
        let mut claimed = Self::default();
        for crd in all {
            if crd.spec.group != group || crd.metadata.name.as_deref() == Some(except) {
                continue;
            }
            let Some(names) = crd.status.as_ref().and_then(|s| s.accepted_names.as_ref()) else {
                continue;
            };
            claimed
                .resources
                .extend([names.plural.clone()].into_iter().filter(|n| !n.is_empty()));
            claimed
                .resources
                .extend(names.singular.iter().filter(|n| !n.is_empty()).cloned());
            claimed
                .resources
                .extend(names.short_names.iter().flatten().cloned());
            claimed
                .kinds
                .extend([names.kind.clone()].into_iter().filter(|n| !n.is_empty()));
            claimed
                .kinds
                .extend(names.list_kind.iter().filter(|n| !n.is_empty()).cloned());
        }
        claimed
    }
}

/// `Ok` when `requested` may be granted: it is already granted, or free.
fn accepted_or_fresh(
    requested: &str,
    accepted: &str,
    used: &HashSet<String>,
) -> Result<(), String> {
    if requested == accepted || !used.contains(requested) {
        Ok(())
    } else {
        Err(format!("{requested:?} is already in use"))
    }
}

/// Grants `crd` the names it may have against `claimed`, and sets its
/// `NamesAccepted` and `Established` conditions. Once established, a
/// definition stays established.
pub fn accept_names(crd: &mut CustomResourceDefinition, claimed: &Claimed) {
    let requested = crd.spec.names.clone();
    let status = crd.status.get_or_insert_with(Default::default);
    let accepted = status.accepted_names.clone().unwrap_or_default();
    let mut granted = accepted.clone();
    let mut conflict: Option<(&str, String)> = None;
    let mut note = |reason: &'static str, message: String| conflict = Some((reason, message));

    match accepted_or_fresh(&requested.plural, &accepted.plural, &claimed.resources) {
        Ok(()) => granted.plural = requested.plural.clone(),
        Err(message) => note("PluralConflict", message),
    }
    let (want, have) = (
        requested.singular.clone().unwrap_or_default(),
        accepted.singular.clone().unwrap_or_default(),
    );
    match accepted_or_fresh(&want, &have, &claimed.resources) {
        Ok(()) => granted.singular = requested.singular.clone(),
        Err(message) => note("SingularConflict", message),
    }
    if requested.short_names != accepted.short_names {
        let already: HashSet<&String> = accepted.short_names.iter().flatten().collect();
        let errors: Vec<String> = requested
            .short_names
            .iter()
            .flatten()
            .filter(|name| !already.contains(name))
            .filter_map(|name| accepted_or_fresh(name, "", &claimed.resources).err())
            .collect();
        match errors.len() {
            0 => granted.short_names = requested.short_names.clone(),
            1 => note("ShortNamesConflict", errors[0].clone()),
            _ => note("ShortNamesConflict", format!("[{}]", errors.join(", "))),
        }
    }
    match accepted_or_fresh(&requested.kind, &accepted.kind, &claimed.kinds) {
        Ok(()) => granted.kind = requested.kind.clone(),
        Err(message) => note("KindConflict", message),
    }
    let (want, have) = (
        requested.list_kind.clone().unwrap_or_default(),
        accepted.list_kind.clone().unwrap_or_default(),
    );
    match accepted_or_fresh(&want, &have, &claimed.kinds) {
        Ok(()) => granted.list_kind = requested.list_kind.clone(),
        Err(message) => note("ListKindConflict", message),
    }
    granted.categories = requested.categories.clone();
    status.accepted_names = Some(granted);

    let names_accepted = match &conflict {
        None => condition("NamesAccepted", "True", "NoConflicts", "no conflicts found"),
        Some((reason, message)) => condition("NamesAccepted", "False", reason, message),
    };
    let was_established =
        conditions::find_in(status, "Established").is_some_and(|c| c.status == "True");
    conditions::set(status, names_accepted);
    if !was_established {
        let established = if conflict.is_none() {
            condition(
                "Established",
                "True",
                "InitialNamesAccepted",
                "the initial names have been accepted",
            )
        } else {
            condition(
                "Established",
                "False",
                "NotAccepted",
                "not all names are accepted",
            )
        };
        conditions::set(status, established);
    }
}

/// Whether `crd` is served: it has a granted plural and is established or
/// has all its names accepted.
pub fn is_served(crd: &CustomResourceDefinition) -> bool {
    let has_plural = crd
        .status
        .as_ref()
        .and_then(|s| s.accepted_names.as_ref())
        .is_some_and(|n: &CustomResourceDefinitionNames| !n.plural.is_empty());
    has_plural
        && (conditions::is_true(crd, "Established") || conditions::is_true(crd, "NamesAccepted"))
}

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
            claimed.resources.extend([names.plural.clone()].into_iter().filter(|n| !n.is_empty()));
            claimed.resources.extend(names.singular.iter().filter(|n| !n.is_empty()).cloned());
            claimed.resources.extend(names.short_names.iter().flatten().cloned());
            claimed.kinds.extend([names.kind.clone()].into_iter().filter(|n| !n.is_empty()));
            claimed.kinds.extend(names.list_kind.iter().filter(|n| !n.is_empty()).cloned());
        }
        claimed
    }
}

/// `Ok` when `requested` may be granted: it is already granted, or free.
fn accepted_or_fresh(requested: &str, accepted: &str, used: &HashSet<String>) -> Result<(), String> {
    if requested == accepted || !used.contains(requested) {
        Ok(())
    } else {
        Err(format!("{requested:?} is already in use"))
    }
}

/// Grants `crd` the names it may have against `claimed`, and sets its
/// `NamesAccepted` and `Established` conditions (never established with an
/// invalid conversion CA bundle), and the API approval condition. Once
/// established, a definition stays established.
pub fn accept_names(crd: &mut CustomResourceDefinition, claimed: &Claimed) {
    let invalid_ca_bundle = conditions::ca_bundle_invalid(crd);
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
    let (want, have) = (requested.singular.clone().unwrap_or_default(), accepted.singular.clone().unwrap_or_default());
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
    let (want, have) =
        (requested.list_kind.clone().unwrap_or_default(), accepted.list_kind.clone().unwrap_or_default());
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
    let was_established = conditions::find_in(status, "Established").is_some_and(|c| c.status == "True");
    conditions::set(status, names_accepted);
    if !was_established {
        let established = if conflict.is_none() && invalid_ca_bundle {
            condition("Established", "False", "InvalidCABundle", "The conversion webhook CABundle is invalid")
        } else if conflict.is_none() {
            condition("Established", "True", "InitialNamesAccepted", "the initial names have been accepted")
        } else {
            condition("Established", "False", "NotAccepted", "not all names are accepted")
        };
        conditions::set(status, established);
    }
    conditions::set_api_approval(crd);
}

/// Whether `crd` is served: it has a granted plural and is established or
/// has all its names accepted.
pub fn is_served(crd: &CustomResourceDefinition) -> bool {
    let has_plural = crd
        .status
        .as_ref()
        .and_then(|s| s.accepted_names.as_ref())
        .is_some_and(|n: &CustomResourceDefinitionNames| !n.plural.is_empty());
    has_plural && (conditions::is_true(crd, "Established") || conditions::is_true(crd, "NamesAccepted"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinitionSpec;

    fn crd(name: &str, plural: &str, kind: &str, short: &[&str]) -> CustomResourceDefinition {
        let mut crd = CustomResourceDefinition::default();
        crd.metadata.name = Some(name.into());
        crd.spec = CustomResourceDefinitionSpec {
            group: "example.com".into(),
            names: CustomResourceDefinitionNames {
                plural: plural.into(),
                singular: Some(plural.trim_end_matches('s').into()),
                kind: kind.into(),
                list_kind: Some(format!("{kind}List")),
                short_names: Some(short.iter().map(|s| s.to_string()).collect()),
                categories: None,
            },
            ..Default::default()
        };
        crd
    }

    fn reason(crd: &CustomResourceDefinition) -> String {
        conditions::find(crd, "NamesAccepted").and_then(|c| c.reason.clone()).unwrap_or_default()
    }

    #[test]
    fn free_names_are_granted_and_established() {
        let mut a = crd("as.example.com", "as", "A", &["x"]);
        accept_names(&mut a, &Claimed::default());
        assert_eq!(reason(&a), "NoConflicts");
        assert!(conditions::is_true(&a, "Established"));
        assert!(is_served(&a));
    }

    #[test]
    fn each_value_space_is_checked_and_the_rest_still_granted() {
        let mut a = crd("as.example.com", "as", "A", &["x"]);
        accept_names(&mut a, &Claimed::default());
        let mut b = crd("bs.example.com", "bs", "B", &["x", "y"]);
        accept_names(&mut b, &Claimed::in_group([&a], "example.com", "bs.example.com"));
        assert_eq!(reason(&b), "ShortNamesConflict");
        let granted = b.status.as_ref().unwrap().accepted_names.as_ref().unwrap();
        assert_eq!((granted.plural.as_str(), granted.kind.as_str()), ("bs", "B"));
        assert!(granted.short_names.is_none(), "short names are granted all together or not at all");
        assert!(!conditions::is_true(&b, "Established"));
        assert!(!is_served(&b) || conditions::is_true(&b, "NamesAccepted"));

        let mut c = crd("as2.example.com", "as2", "A", &[]);
        accept_names(&mut c, &Claimed::in_group([&a, &b], "example.com", "as2.example.com"));
        assert_eq!(reason(&c), "ListKindConflict", "the last conflict found is reported, as Kubernetes does");
        let message = conditions::find(&c, "NamesAccepted").and_then(|c| c.message.clone()).unwrap();
        assert_eq!(message, "\"AList\" is already in use");
    }

    #[test]
    fn names_already_granted_are_kept_and_other_groups_do_not_count() {
        let mut a = crd("as.example.com", "as", "A", &["x"]);
        accept_names(&mut a, &Claimed::default());
        let mut other = crd("as.other.com", "as", "A", &["x"]);
        other.spec.group = "other.com".into();
        accept_names(&mut other, &Claimed::in_group([&a], "other.com", "as.other.com"));
        assert_eq!(reason(&other), "NoConflicts");
        // Re-evaluating `a` against a group where it is the only claimant of its own names.
        let claimed = Claimed::in_group([&a], "example.com", "as.example.com");
        accept_names(&mut a, &claimed);
        assert_eq!(reason(&a), "NoConflicts");
    }
}

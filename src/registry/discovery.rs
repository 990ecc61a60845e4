//! What the API serves, for discovery: the groups with an established
//! definition and a served version, each group's versions in Kubernetes'
//! order (GA, then beta, then alpha, newest first; the first preferred),
//! and per version the resources with their names, scope and subresources.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

use super::{conditions, naming};

/// A served API group; `versions[0]` is the preferred one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    pub name: String,
    pub versions: Vec<String>,
}

/// A resource served at one version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    pub plural: String,
    pub singular: String,
    pub kind: String,
    pub namespaced: bool,
    pub short_names: Vec<String>,
    pub categories: Vec<String>,
    pub status: bool,
    pub scale: bool,
}

/// Whether a definition is served: names accepted and established.
fn serving(crd: &CustomResourceDefinition) -> bool {
    naming::is_served(crd) && conditions::is_true(crd, "Established")
}

/// The served groups, by name, each with its served versions in order.
pub fn groups(crds: &[CustomResourceDefinition]) -> Vec<Group> {
    let mut by_group: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for crd in crds.iter().filter(|crd| serving(crd)) {
        let versions = by_group.entry(crd.spec.group.clone()).or_default();
        for v in crd.spec.versions.iter().filter(|v| v.served) {
            if !versions.contains(&v.name) {
                versions.push(v.name.clone());
            }
        }
    }
    by_group
        .into_iter()
        .filter(|(_, versions)| !versions.is_empty())
        .map(|(name, mut versions)| {
            versions.sort_by(|a, b| compare_versions(a, b));
            Group { name, versions }
        })
        .collect()
}

/// The resources served at `group/version`, by plural.
pub fn resources(crds: &[CustomResourceDefinition], group: &str, version: &str) -> Vec<Resource> {
    let mut out: Vec<Resource> = crds
        .iter()
        .filter(|crd| crd.spec.group == group && serving(crd))
        .filter_map(|crd| {
            let served = crd.spec.versions.iter().find(|v| v.name == version && v.served)?;
            let names = crd.status.as_ref()?.accepted_names.as_ref()?;
            let subresources = served.subresources.as_ref();
            Some(Resource {
                plural: names.plural.clone(),
                singular: names.singular.clone().unwrap_or_default(),
                kind: names.kind.clone(),
                namespaced: crd.spec.scope == "Namespaced",
                short_names: names.short_names.clone().unwrap_or_default(),
                categories: names.categories.clone().unwrap_or_default(),
                status: subresources.is_some_and(|s| s.status.is_some()),
                scale: subresources.is_some_and(|s| s.scale.is_some()),
            })
        })
        .collect();
    out.sort_by(|a, b| a.plural.cmp(&b.plural));
    out
}

/// Kubernetes' order of version names (`CompareKubeAwareVersionStrings`,
/// highest first): `v<N>` before `v<N>beta<M>` before `v<N>alpha<M>`,
/// higher numbers first within each; names of another shape come last,
/// alphabetically.
pub fn compare_versions(a: &str, b: &str) -> Ordering {
    match (kube_version(a), kube_version(b)) {
        (Some(x), Some(y)) => y.cmp(&x),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => a.cmp(b),
    }
}

/// A Kubernetes-like version as a sortable key: (stability, major, minor),
/// stability 2 for GA, 1 for beta, 0 for alpha.
fn kube_version(v: &str) -> Option<(u8, u64, u64)> {
    let rest = v.strip_prefix('v')?;
    let digits = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
    let major: u64 = rest[..digits].parse().ok()?;
    let tail = &rest[digits..];
    if tail.is_empty() {
        return Some((2, major, 0));
    }
    let (stability, number) = if let Some(n) = tail.strip_prefix("beta") {
        (1, n)
    } else if let Some(n) = tail.strip_prefix("alpha") {
        (0, n)
    } else {
        return None;
    };
    let minor = number.parse().ok()?;
    Some((stability, major, minor))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_sort_the_kubernetes_way() {
        let mut versions =
            vec!["v1alpha1", "foo1", "v2beta1", "v1", "v10", "v11alpha2", "v1beta1", "v2", "foo10", "v12alpha1"];
        versions.sort_by(|a, b| compare_versions(a, b));
        assert_eq!(
            versions,
            ["v10", "v2", "v1", "v2beta1", "v1beta1", "v12alpha1", "v11alpha2", "v1alpha1", "foo1", "foo10"]
        );
    }
}

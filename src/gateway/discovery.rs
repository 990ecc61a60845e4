//! Discovery in Kubernetes' shapes: `/api` and `/api/v1` (the core group's
//! built-in kinds), `/apis`,
//! `/apis/<group>`, `/apis/<group>/<version>` and `/version`. What is
//! served comes from `registry::discovery`; this only renders it.

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use serde_json::{json, Value};

use super::codec::{respond, Output, Reply};
use super::Api;
use crate::error::Error;
use crate::registry::discovery::{self, Group, Resource};

/// The definitions' group, as the registry spells it.
pub const CRD_GROUP: &str = crate::registry::GROUP;

const RESOURCE_VERBS: [&str; 8] = ["delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"];
const SUBRESOURCE_VERBS: [&str; 3] = ["get", "patch", "update"];

/// The stored definitions and the built-in kinds outside the core group.
fn all(
    api: &Api,
) -> Result<Vec<k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition>, Error> {
    let mut all = crate::builtin::discovery();
    all.retain(|crd| !crd.spec.group.is_empty());
    all.extend(api.registry.all()?);
    Ok(all)
}

/// The definitions' group, then the built-in groups, then those of the
/// stored definitions: built-in groups before custom ones, as Kubernetes
/// orders them.
fn served_groups(api: &Api) -> Result<Vec<Group>, Error> {
    let mut builtin = crate::builtin::discovery();
    builtin.retain(|crd| !crd.spec.group.is_empty());
    let mut groups = vec![Group { name: CRD_GROUP.into(), versions: vec!["v1".into()] }];
    groups.extend(discovery::groups(&builtin));
    let custom = discovery::groups(&api.registry.all()?);
    let taken: Vec<String> = groups.iter().map(|g| g.name.clone()).collect();
    groups.extend(custom.into_iter().filter(|g| !taken.contains(&g.name)));
    Ok(groups)
}

fn group_json(group: &Group) -> Value {
    let versions: Vec<Value> =
        group.versions.iter().map(|v| json!({"groupVersion": format!("{}/{v}", group.name), "version": v})).collect();
    json!({"name": group.name, "versions": versions, "preferredVersion": versions[0]})
}

pub async fn version(headers: HeaderMap) -> Reply {
    let info = json!({
        "major": "1", "minor": "32", "gitVersion": concat!("v1.32.0-crdstore.", env!("CARGO_PKG_VERSION")),
        "gitCommit": "", "gitTreeState": "clean", "buildDate": "", "goVersion": "",
        "compiler": "rustc", "platform": format!("{}/{}", std::env::consts::OS, std::env::consts::ARCH),
    });
    Ok(respond(StatusCode::OK, &info, Output::of(&headers), &[]))
}

/// `/api`: the core group's versions (`v1`, where the built-in `Namespace`
/// and `Event` are), or its aggregated document.
pub async fn core(headers: HeaderMap) -> Reply {
    if super::aggregated::asked(&headers) {
        let versions = vec![("v1".to_string(), core_list())];
        return Ok(super::aggregated::respond(vec![super::aggregated::group("", &versions)]));
    }
    let versions = json!({"kind": "APIVersions", "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": ""}]});
    Ok(respond(StatusCode::OK, &versions, Output::of(&headers), &[]))
}

/// The core group's resources, namespaces with upstream's verbs.
fn core_list() -> Vec<Value> {
    let list = discovery::resources(&crate::builtin::discovery(), "", "v1").iter().flat_map(resource_json).collect();
    namespace_verbs(list)
}

/// `/api/v1`: the core group's resources.
pub async fn core_resources(headers: HeaderMap) -> Reply {
    let list = json!({"kind": "APIResourceList", "groupVersion": "v1", "resources": core_list()});
    Ok(respond(StatusCode::OK, &list, Output::of(&headers), &[]))
}

pub async fn groups(State(api): State<Api>, headers: HeaderMap) -> Reply {
    if super::aggregated::asked(&headers) {
        let mut all = Vec::new();
        for g in served_groups(&api)? {
            let mut versions = Vec::new();
            for v in &g.versions {
                versions.push((v.clone(), resource_list(&api, &g.name, v)?));
            }
            all.push(super::aggregated::group(&g.name, &versions));
        }
        return Ok(super::aggregated::respond(all));
    }
    let groups: Vec<Value> = served_groups(&api)?.iter().map(group_json).collect();
    let list = json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups});
    Ok(respond(StatusCode::OK, &list, Output::of(&headers), &[]))
}

/// `/apis/<group>`.
pub fn group(api: &Api, name: &str, headers: &HeaderMap) -> Reply {
    let groups = served_groups(api)?;
    let group = groups.iter().find(|g| g.name == name).ok_or_else(|| not_found(name))?;
    let mut body = group_json(group);
    body["kind"] = json!("APIGroup");
    body["apiVersion"] = json!("v1");
    Ok(respond(StatusCode::OK, &body, Output::of(headers), &[]))
}

/// `/apis/<group>/<version>`.
pub fn resources(api: &Api, group: &str, version: &str, headers: &HeaderMap) -> Reply {
    let resources = resource_list(api, group, version)?;
    let list = json!({
        "kind": "APIResourceList", "apiVersion": "v1",
        "groupVersion": format!("{group}/{version}"), "resources": resources,
    });
    Ok(respond(StatusCode::OK, &list, Output::of(headers), &[]))
}

/// The legacy `APIResource`s of `<group>/<version>`.
fn resource_list(api: &Api, group: &str, version: &str) -> Result<Vec<Value>, Error> {
    Ok(if group == CRD_GROUP && version == "v1" {
        definitions_resources()
    } else {
        let found = discovery::resources(&all(api)?, group, version);
        if found.is_empty() {
            return Err(not_found(&format!("{group}/{version}")));
        }
        found.iter().flat_map(resource_json).collect()
    })
}

fn not_found(what: &str) -> Error {
    Error::no_resource(what, "")
}

fn resource_json(r: &Resource) -> Vec<Value> {
    let mut main = json!({
        "name": r.plural, "singularName": r.singular, "namespaced": r.namespaced,
        "kind": r.kind, "verbs": RESOURCE_VERBS,
    });
    if !r.short_names.is_empty() {
        main["shortNames"] = json!(r.short_names);
    }
    if !r.categories.is_empty() {
        main["categories"] = json!(r.categories);
    }
    let mut out = vec![main];
    if r.status {
        out.push(json!({
            "name": format!("{}/status", r.plural), "singularName": "", "namespaced": r.namespaced,
            "kind": r.kind, "verbs": SUBRESOURCE_VERBS,
        }));
    }
    if r.scale {
        out.push(json!({
            "name": format!("{}/scale", r.plural), "singularName": "", "namespaced": r.namespaced,
            "group": "autoscaling", "version": "v1", "kind": "Scale", "verbs": SUBRESOURCE_VERBS,
        }));
    }
    out
}

fn definitions_resources() -> Vec<Value> {
    vec![
        json!({
            "name": "customresourcedefinitions", "singularName": "customresourcedefinition",
            "namespaced": false, "kind": "CustomResourceDefinition", "verbs": RESOURCE_VERBS,
            "shortNames": ["crd", "crds"], "categories": ["api-extensions"],
        }),
        json!({
            "name": "customresourcedefinitions/status", "singularName": "", "namespaced": false,
            "kind": "CustomResourceDefinition", "verbs": SUBRESOURCE_VERBS,
        }),
    ]
}

/// Upstream's namespace verbs (no `deletecollection`), and its `finalize`
/// subresource, which is only updated.
const NAMESPACE_VERBS: &[&str] = &["create", "delete", "get", "list", "patch", "update", "watch"];

/// `/api/v1`'s resources as upstream lists namespaces: their verbs, then
/// `namespaces/finalize` before `namespaces/status`.
pub fn namespace_verbs(resources: Vec<Value>) -> Vec<Value> {
    let mut out = Vec::with_capacity(resources.len() + 1);
    for mut r in resources {
        if r["name"] == "namespaces" {
            r["verbs"] = json!(NAMESPACE_VERBS);
            let finalize = json!({"name": "namespaces/finalize", "singularName": "", "namespaced": false,
                "kind": "Namespace", "verbs": ["update"]});
            out.push(r);
            out.push(finalize);
        } else {
            out.push(r);
        }
    }
    out
}

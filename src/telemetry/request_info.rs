//! What a request asks for, in the apiserver's metric vocabulary: its verb,
//! group, version, resource, subresource, scope, namespace and name, read
//! from an HTTP method and path (as Kubernetes' `RequestInfoFactory` does)
//! or from a gRPC method and the resource reference its handler notes.

/// A request's labels. `resource` is empty for a non-resource request
/// (health, discovery, `/metrics`), whose verb is the HTTP method.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestInfo {
    pub verb: &'static str,
    pub group: String,
    pub version: String,
    pub resource: String,
    pub subresource: &'static str,
    pub namespace: String,
    pub name: String,
}

/// The definitions' group, version and resource.
const DEFINITIONS: (&str, &str, &str) = ("apiextensions.k8s.io", "v1", "customresourcedefinitions");

impl RequestInfo {
    /// Kubernetes' `scope` label: `resource` for one named object,
    /// `namespace` for a namespace's collection, `cluster` for the rest, and
    /// empty for a non-resource request.
    pub fn scope(&self) -> &'static str {
        if self.resource.is_empty() {
            ""
        } else if !self.name.is_empty() {
            "resource"
        } else if !self.namespace.is_empty() {
            "namespace"
        } else {
            "cluster"
        }
    }

    /// Whether the request stays open (a watch): it counts in
    /// `apiserver_longrunning_requests` while it does.
    pub fn long_running(&self) -> bool {
        self.verb == "watch"
    }

    /// Reads an HTTP request. `query` is the raw query string. The core
    /// group's `/api/<version>/...` and the named groups'
    /// `/apis/<group>/<version>/...` are resource requests; a namespace's
    /// `status` and `finalize` are its subresources, as Kubernetes'
    /// `RequestInfoFactory` reads them.
    pub fn http(method: &str, path: &str, query: Option<&str>) -> Self {
        let parts: Vec<&str> = path.trim_matches('/').split('/').filter(|p| !p.is_empty()).collect();
        let non_resource = || Self { verb: http_verb(method), ..Self::default() };
        // Discovery of a group or version stops before a resource.
        let (group, version, rest) = match parts.as_slice() {
            ["api", version, rest @ ..] if !rest.is_empty() => ("", *version, rest),
            ["apis", group, version, rest @ ..] if !rest.is_empty() => (*group, *version, rest),
            _ => return non_resource(),
        };
        let (legacy_watch, rest) = match rest {
            ["watch", rest @ ..] => (true, rest),
            rest => (false, rest),
        };
        let (namespace, rest) = match rest {
            ["namespaces", namespace, next, ..] if !matches!(*next, "status" | "finalize") => (*namespace, &rest[2..]),
            ["namespaces", namespace, ..] => (*namespace, rest),
            rest => ("", rest),
        };
        let (resource, name, subresource) = match rest {
            [resource] => (*resource, "", ""),
            [resource, name] => (*resource, *name, ""),
            [resource, name, subresource, ..] => (*resource, *name, *subresource),
            [] => return non_resource(),
        };
        let watching = legacy_watch
            || query.is_some_and(|q| {
                form_urlencoded::parse(q.as_bytes()).any(|(k, v)| k == "watch" && (v == "true" || v == "1"))
            });
        let verb = match (method, name.is_empty()) {
            ("GET" | "HEAD", _) if watching => "watch",
            ("GET" | "HEAD", true) => "list",
            ("GET" | "HEAD", false) => "get",
            ("POST", _) => "create",
            ("PUT", _) => "update",
            ("PATCH", _) => "patch",
            ("DELETE", true) => "deletecollection",
            ("DELETE", false) => "delete",
            (other, _) => http_verb(other),
        };
        Self {
            verb,
            group: group.to_string(),
            version: version.to_string(),
            resource: resource.to_string(),
            subresource: match subresource {
                "status" => "status",
                "scale" => "scale",
                "finalize" => "finalize",
                "" => "",
                _ => "unknown",
            },
            namespace: namespace.to_string(),
            name: name.to_string(),
        }
    }

    /// Reads a gRPC method path (`/crdstore.v1.CustomResources/Create`).
    /// `None` for a service that is not crdstore's own (health,
    /// reflection). The custom resource's group, version, resource,
    /// namespace and name come later, from its handler (`note`).
    pub fn grpc(path: &str) -> Option<Self> {
        let (service, method) = path.trim_start_matches('/').split_once('/')?;
        let (verb, subresource) = match method {
            "Create" => ("create", ""),
            "Get" => ("get", ""),
            "List" => ("list", ""),
            "Watch" => ("watch", ""),
            "Update" => ("update", ""),
            "Patch" => ("patch", ""),
            "Apply" => ("patch", ""),
            "Delete" => ("delete", ""),
            "DeleteCollection" => ("deletecollection", ""),
            "UpdateStatus" => ("update", "status"),
            "GetScale" => ("get", "scale"),
            "UpdateScale" => ("update", "scale"),
            "Convert" => ("create", "conversion"),
            _ => ("unknown", ""),
        };
        let info = Self { verb, subresource, ..Self::default() };
        match service {
            "crdstore.v1.CustomResources" => Some(info),
            "crdstore.v1.CustomResourceDefinitions" => {
                let (group, version, resource) = DEFINITIONS;
                Some(Self { group: group.into(), version: version.into(), resource: resource.into(), ..info })
            }
            _ => None,
        }
    }
}

/// The verb of a non-resource request: its method, as the apiserver labels
/// it.
fn http_verb(method: &str) -> &'static str {
    match method {
        "GET" => "GET",
        "HEAD" => "HEAD",
        "POST" => "POST",
        "PUT" => "PUT",
        "PATCH" => "PATCH",
        "DELETE" => "DELETE",
        "OPTIONS" => "OPTIONS",
        _ => "other",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_paths_read_as_kubernetes_reads_them() {
        let info = RequestInfo::http("GET", "/apis/example.com/v1/namespaces/ns/widgets/w/status", None);
        assert_eq!((info.verb, info.subresource, info.scope()), ("get", "status", "resource"));
        assert_eq!((info.group.as_str(), info.namespace.as_str(), info.name.as_str()), ("example.com", "ns", "w"));
        let info = RequestInfo::http("GET", "/apis/example.com/v1/namespaces/ns/widgets", Some("watch=true"));
        assert_eq!((info.verb, info.scope()), ("watch", "namespace"));
        assert!(info.long_running());
        let info = RequestInfo::http("GET", "/apis/example.com/v1/widgets", Some("limit=5"));
        assert_eq!((info.verb, info.scope()), ("list", "cluster"));
        let info = RequestInfo::http("POST", "/apis/example.com/v1/namespaces/ns/widgets", None);
        assert_eq!((info.verb, info.scope()), ("create", "namespace"));
        let info = RequestInfo::http("DELETE", "/apis/example.com/v1/namespaces/ns/widgets", None);
        assert_eq!(info.verb, "deletecollection");
        let info = RequestInfo::http("GET", "/apis/example.com/v1/watch/namespaces/ns/widgets", None);
        assert_eq!((info.verb, info.resource.as_str()), ("watch", "widgets"));
        let info = RequestInfo::http("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/a.b", None);
        assert_eq!((info.verb, info.scope()), ("get", "resource"));
    }

    #[test]
    fn core_paths_are_resource_requests() {
        let info = RequestInfo::http("GET", "/api/v1/namespaces", None);
        assert_eq!((info.verb, info.group.as_str(), info.version.as_str()), ("list", "", "v1"));
        assert_eq!((info.resource.as_str(), info.scope()), ("namespaces", "cluster"));
        // A namespace is named in its own namespace, as Kubernetes reads it.
        let info = RequestInfo::http("PATCH", "/api/v1/namespaces/team", None);
        assert_eq!((info.verb, info.resource.as_str(), info.name.as_str()), ("patch", "namespaces", "team"));
        assert_eq!((info.namespace.as_str(), info.scope()), ("team", "resource"));
        let info = RequestInfo::http("PUT", "/api/v1/namespaces/team/finalize", None);
        assert_eq!((info.verb, info.resource.as_str(), info.subresource), ("update", "namespaces", "finalize"));
        let info = RequestInfo::http("PUT", "/api/v1/namespaces/team/status", None);
        assert_eq!((info.resource.as_str(), info.name.as_str(), info.subresource), ("namespaces", "team", "status"));
        let info = RequestInfo::http("POST", "/api/v1/namespaces/team/events", None);
        assert_eq!((info.verb, info.resource.as_str(), info.scope()), ("create", "events", "namespace"));
        let info = RequestInfo::http("GET", "/apis/coordination.k8s.io/v1/namespaces/team/leases/l", None);
        assert_eq!((info.verb, info.group.as_str(), info.resource.as_str()), ("get", "coordination.k8s.io", "leases"));
        let info = RequestInfo::http("GET", "/api/v1/watch/namespaces/team/events", None);
        assert_eq!((info.verb, info.resource.as_str(), info.namespace.as_str()), ("watch", "events", "team"));
    }

    #[test]
    fn non_resource_paths_take_the_method() {
        for path in ["/healthz", "/metrics", "/api", "/api/v1", "/apis", "/apis/example.com/v1", "/openapi/v2"] {
            let info = RequestInfo::http("GET", path, None);
            assert_eq!((info.verb, info.resource.as_str(), info.scope()), ("GET", "", ""), "{path}");
        }
    }

    #[test]
    fn grpc_methods_map_to_verbs() {
        let info = RequestInfo::grpc("/crdstore.v1.CustomResources/UpdateStatus").unwrap();
        assert_eq!((info.verb, info.subresource), ("update", "status"));
        let info = RequestInfo::grpc("/crdstore.v1.CustomResourceDefinitions/List").unwrap();
        assert_eq!((info.verb, info.resource.as_str(), info.scope()), ("list", "customresourcedefinitions", "cluster"));
        assert!(RequestInfo::grpc("/grpc.health.v1.Health/Check").is_none());
    }
}

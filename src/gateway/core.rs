//! `/api/v1/...`: the core group's built-in kinds (`namespaces`, `events`),
//! routed to the same handlers as `/apis`. A namespace's own subresources
//! (`status`, `finalize`) are told from the resources in it as Kubernetes'
//! `RequestInfoFactory` tells them.

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, Method, Uri};

use super::apis::{self, Target};
use super::codec::{failure_as, Output, Reply};
use super::Api;
use crate::error::Error;

/// A namespace's subresources, which are not resources in it.
const NAMESPACE_SUBRESOURCES: &[&str] = &["status", "finalize"];

fn not_found(path: &str) -> Error {
    Error::no_resource(format_args!("/api/{path}"), "")
}

/// The path under `/api/`, split on its raw `/`, each segment decoded.
fn parse(raw: &str) -> Result<Target, Error> {
    let unknown = || not_found(raw);
    let s = apis::decoded_segments(raw).ok_or_else(unknown)?;
    let s: Vec<&str> = s.iter().map(String::as_str).collect();
    let found = match s.as_slice() {
        ["v1", "namespaces", name, sub] if NAMESPACE_SUBRESOURCES.contains(sub) => {
            apis::resource("", "v1", "", "namespaces", &[name, sub])
        }
        ["v1", "namespaces", ns, plural, rest @ ..] if apis::plain(&[ns, plural]) => {
            apis::resource("", "v1", ns, plural, rest)
        }
        ["v1", plural, rest @ ..] if apis::plain(&[plural]) => apis::resource("", "v1", "", plural, rest),
        _ => None,
    };
    found.ok_or_else(unknown)?
}

/// The entry point for everything under `/api/v1/`.
pub async fn handle(State(api): State<Api>, uri: Uri, method: Method, headers: HeaderMap, body: Body) -> Reply {
    let query = super::long_uri::raw_query(&headers, &uri);
    let output = Output::of(&headers);
    let path = uri.path().strip_prefix("/api/").unwrap_or_default().to_string();
    let reply = match parse(&path) {
        // Upstream registers no deletecollection for namespaces.
        Ok(Target::Resources { r, sub: None })
            if r.resource == "namespaces" && r.name.is_empty() && method == Method::DELETE =>
        {
            Err(apis::method_not_allowed(&method).into())
        }
        Ok(target) => apis::serve(api, target, query, method, headers, body).await,
        Err(err) => Err(err.into()),
    };
    Ok(reply.unwrap_or_else(|failure| failure_as(&failure.0, output)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn address(path: &str) -> Option<(String, String, String, Option<String>)> {
        match parse(path).ok()? {
            Target::Resources { r, sub } => Some((r.namespace, r.resource, r.name, sub)),
            _ => None,
        }
    }

    #[test]
    fn namespace_subresources_are_not_resources_in_it() {
        let s = |v: &str| v.to_string();
        assert_eq!(address("v1/namespaces"), Some((s(""), s("namespaces"), s(""), None)));
        assert_eq!(address("v1/namespaces/x"), Some((s(""), s("namespaces"), s("x"), None)));
        assert_eq!(address("v1/namespaces/x/status"), Some((s(""), s("namespaces"), s("x"), Some(s("status")))));
        assert_eq!(address("v1/namespaces/x/events"), Some((s("x"), s("events"), s(""), None)));
        assert_eq!(address("v1/namespaces/x/events/e"), Some((s("x"), s("events"), s("e"), None)));
        assert_eq!(address("v1/events"), Some((s(""), s("events"), s(""), None)));
        assert!(address("v2/events").is_none());
    }
}

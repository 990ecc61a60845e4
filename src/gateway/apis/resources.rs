//! `/apis/{group}/{version}/...`: every custom resource endpoint (and the
//! built-in kinds' under `/api/v1`), namespaced or not, by verb family:
//! reads (watch, list, get), writes (create, update, patch, delete, delete
//! of a collection) and the status, scale and finalize subresources.

use std::sync::Arc;

use axum::body::Bytes;
use axum::http::{HeaderMap, Method, StatusCode};
use serde_json::{json, Value};

use super::table_shape;
use super::{delete_code, list_json, list_meta, method_not_allowed, not_found, patch_body, patch_type, patched_code};
use super::{write_options, yaml_watch};
use crate::apimachinery::heavy;
use crate::apimachinery::list::ListPage;
use crate::apimachinery::options::{ResourceVersion, Written};
use crate::error::Error;
use crate::gateway::codec::{json_body, respond_json, Output, Reply};
use crate::gateway::query::Params;
use crate::gateway::{lists, protobuf, watch, Api};
use crate::resource::served::Served;
use crate::resource::table::{table, ListMeta, Shape};
use crate::resource::{Endpoint, Ref};

/// Serves a request to a resource endpoint: refuses a path of the other
/// scope, negotiates protobuf, then hands the verb to its family.
pub(super) async fn serve(
    api: &Api,
    r: Ref,
    sub: Option<String>,
    method: &Method,
    params: &Params,
    headers: &HeaderMap,
    body: &Bytes,
) -> Reply {
    let output = Output::of(headers);
    let shape = table_shape(output, params)?;
    let served = api.resources.served(&r.group, &r.version, &r.resource)?;
    check_scope(&served, &r, method)?;
    // A built-in kind answers in protobuf when the client prefers it; a
    // custom resource has no protobuf form, as in Kubernetes.
    let builtin = protobuf::serves(&served.api_version(&r.version), &served.kind);
    if !builtin {
        protobuf::refuse_protobuf_only(headers)?;
    }
    let proto = builtin && protobuf::negotiated(headers);
    let call = Call { api, r, sub, method, params, headers, body, served, output, shape, builtin, proto };
    match (method, call.r.name.is_empty(), call.sub.as_deref()) {
        (&Method::GET, true, None) | (&Method::GET, false, None | Some("status")) => call.read().await,
        (&Method::POST | &Method::DELETE, true, None)
        | (&Method::PUT | &Method::DELETE, false, None)
        | (&Method::PATCH, false, None | Some("status")) => call.write().await,
        (&Method::GET | &Method::PATCH, false, Some("scale"))
        | (&Method::PUT, false, Some("status" | "finalize" | "scale")) => call.subresource().await,
        (_, _, Some(other)) if !matches!(other, "status" | "scale") => {
            Err(not_found(&format!("{}/{}/{other}", call.r.resource, call.r.name)).into())
        }
        _ => Err(method_not_allowed(method).into()),
    }
}

/// A path of the other scope names no resource, whatever its method.
/// Across all namespaces, a namespaced resource is only listed and
/// watched: Kubernetes registers no other verb there.
fn check_scope(served: &Served, r: &Ref, method: &Method) -> Result<(), Error> {
    let wrong_scope = if served.namespaced() {
        r.namespace.is_empty() && (!r.name.is_empty() || *method != Method::GET)
    } else {
        !r.namespace.is_empty()
    };
    if wrong_scope {
        let what = format!("{}.{}.{}", r.resource, r.version, r.group);
        let why = if served.namespaced() { "a namespace is required" } else { "it is cluster-scoped" };
        return Err(Error::no_resource(what, why));
    }
    Ok(())
}

/// One request to a resource endpoint, read once, as each verb family's
/// handler sees it.
struct Call<'a> {
    api: &'a Api,
    r: Ref,
    sub: Option<String>,
    method: &'a Method,
    params: &'a Params,
    headers: &'a HeaderMap,
    body: &'a Bytes,
    served: Arc<Served>,
    output: Output,
    shape: Option<Shape>,
    /// A built-in kind: it has a protobuf form.
    builtin: bool,
    /// The answer is protobuf: a built-in kind, and the client prefers it.
    proto: bool,
}

impl Call<'_> {
    /// `value` with `code`, in the encoding negotiated.
    fn respond(
        &self,
        code: StatusCode,
        value: &Value,
        output: Output,
        warnings: &[String],
    ) -> axum::response::Response {
        protobuf::respond_as(self.proto, code, value, output, warnings)
    }

    /// `value` with 200, in the encoding negotiated.
    fn ok(&self, value: &Value, warnings: &[String]) -> axum::response::Response {
        self.respond(StatusCode::OK, value, self.output, warnings)
    }

    /// A write's answer with `code`, in the encoding negotiated.
    fn answer(&self, code: StatusCode, written: Written) -> axum::response::Response {
        protobuf::respond_written_as(self.proto, code, written, self.output)
    }

    /// A table of `objects` when one was asked for.
    fn tabled(&self, objects: &[Value], list: Option<&ListMeta>) -> Option<Value> {
        self.shape.map(|shape| table(&self.served, &self.r.version, objects, list, jiff::Timestamp::now(), shape))
    }

    /// The reads: a watch or a list of the collection, a get of the object
    /// or of its status.
    async fn read(&self) -> Reply {
        let (r, params, served, resources) = (&self.r, self.params, &self.served, &self.api.resources);
        let (output, proto) = (self.output, self.proto);
        match (self.method, r.name.is_empty(), self.sub.as_deref()) {
            (&Method::GET, true, None) if params.watch() => self.watch().await,
            (&Method::GET, true, None) if output == Output::Json && !proto => {
                let page = resources.list_json_lazy(r, &params.list_options()?).await?;
                Ok(lists::respond(&served.api_version(&r.version), &served.list_kind, page).await)
            }
            (&Method::GET, true, None) => {
                let page = resources.list(r, &params.list_options()?).await?;
                let body = self
                    .tabled(&page.items, Some(&list_meta(&page)))
                    .unwrap_or_else(|| list_json(&served.api_version(&r.version), &served.list_kind, &page));
                Ok(self.ok(&body, &[]))
            }
            (&Method::GET, false, None | Some("status")) => {
                let rv = ResourceVersion::parse(params.get("resourceVersion").unwrap_or(""))?;
                let found = resources.get(r, rv).await?;
                if self.sub.is_some() && !served.has_status(&r.version) {
                    return Err(not_found(&format!("{}/{}/status", r.resource, r.name)).into());
                }
                if output == Output::Json && !proto {
                    return Ok(respond_json(StatusCode::OK, found.into_json()));
                }
                let found = found.into_value()?;
                let body = self.tabled(std::slice::from_ref(&found), None).unwrap_or(found);
                Ok(self.ok(&body, &[]))
            }
            _ => Err(method_not_allowed(self.method).into()),
        }
    }

    /// A watch of the collection: JSON events (Tables when asked for), or
    /// protobuf ones; never YAML.
    async fn watch(&self) -> Reply {
        if self.output == Output::Yaml {
            return Err(yaml_watch().into());
        }
        let options = self.params.watch_options()?;
        let slot = self.api.limits.watch_slot()?;
        let events =
            self.api.resources.watch(&self.r, options).await.map(|events| self.api.limits.watch_pool.forward(events));
        if self.proto {
            return Ok(protobuf::watch(events, slot));
        }
        let tabulate =
            self.shape.map(|shape| watch::resource_tables(self.served.clone(), self.r.version.clone(), shape));
        Ok(watch::stream(events, tabulate, slot))
    }

    /// The writes: create, update, patch (of the object or its status,
    /// apply too), delete, and delete of a collection.
    async fn write(&self) -> Reply {
        let (r, params, headers, body, resources) =
            (&self.r, self.params, self.headers, self.body, &self.api.resources);
        match (self.method, r.name.is_empty(), self.sub.as_deref()) {
            (&Method::POST, true, None) => {
                let body = protobuf::resource_body(headers, body, self.builtin).await?;
                let (resources, r, options) = (Arc::clone(resources), r.clone(), write_options(params, headers)?);
                let written =
                    heavy::run(body.len(), async move { resources.create(&r, &body, &options).await }).await?;
                Ok(self.answer(StatusCode::CREATED, written))
            }
            (&Method::DELETE, true, None) => self.delete_collection().await,
            (&Method::PUT, false, None) => {
                let body = protobuf::resource_body(headers, body, self.builtin).await?;
                let (resources, r, options) = (Arc::clone(resources), r.clone(), write_options(params, headers)?);
                let written =
                    heavy::run(body.len(), async move { resources.update(&r, &body, &options).await }).await?;
                Ok(self.answer(StatusCode::OK, written))
            }
            (&Method::PATCH, false, None | Some("status")) => {
                let endpoint = if self.sub.is_some() { Endpoint::Status } else { Endpoint::Main };
                let kind = patch_type(headers, self.served.strategic_merge_lists().is_some())?;
                let (body, options) = patch_body(kind, body, params, headers)?;
                // Apply too: `patch` takes every patch type.
                let (resources, r) = (Arc::clone(resources), r.clone());
                let written =
                    heavy::run(body.len(), async move { resources.patch(&r, endpoint, kind, &body, &options).await })
                        .await?;
                Ok(self.answer(patched_code(&written), written))
            }
            (&Method::DELETE, false, None) => self.delete().await,
            _ => Err(method_not_allowed(self.method).into()),
        }
    }

    /// A delete of the collection's objects the selectors match: the list
    /// of what was deleted, with empty list metadata.
    async fn delete_collection(&self) -> Reply {
        let (r, params, served) = (&self.r, self.params, &self.served);
        let items = self
            .api
            .resources
            .delete_collection(
                r,
                &params.list_options()?,
                &params.delete_options(&protobuf::delete_body(self.headers, self.body).await?)?,
            )
            .await?;
        let page = ListPage {
            items,
            revision: crate::storage::Revision::ZERO,
            continue_token: String::new(),
            remaining: None,
        };
        let mut list = list_json(&served.api_version(&r.version), &served.list_kind, &page);
        list["metadata"] = json!({});
        Ok(self.ok(&list, &[]))
    }

    /// A delete of the object: a Success Status when it is gone, the object
    /// when it waits for finalizers.
    async fn delete(&self) -> Reply {
        let (r, params) = (&self.r, self.params);
        let options = protobuf::delete_body(self.headers, self.body).await?;
        let deleted = self.api.resources.delete(r, &params.delete_options(&options)?).await?;
        if deleted.gone && !deleted.marked {
            // Kubernetes' store answers a delete that is done with a
            // Success Status naming what went (`finalizeDelete`).
            let uid = crate::apimachinery::meta::meta_str(&deleted.object, "uid");
            let status = json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                "details": {"name": r.name, "group": r.group, "kind": r.resource, "uid": uid}});
            return Ok(self.ok(&status, &[]));
        }
        Ok(self.respond(delete_code(deleted.gone, params, &options), &deleted.object, self.output, &[]))
    }

    /// The subresources' verbs but a get or patch of status: the scale's
    /// get, update and patch, the status's and finalize's updates.
    async fn subresource(&self) -> Reply {
        let (r, params, headers, body, resources) =
            (&self.r, self.params, self.headers, self.body, &self.api.resources);
        match (self.method, r.name.is_empty(), self.sub.as_deref()) {
            (&Method::GET, false, Some("scale")) => Ok(self.ok(&resources.get_scale(r).await?, &[])),
            (&Method::PUT, false, Some("status")) => {
                let written = resources
                    .update_status(
                        r,
                        &protobuf::resource_body(headers, body, self.builtin).await?,
                        &write_options(params, headers)?,
                    )
                    .await?;
                Ok(self.answer(StatusCode::OK, written))
            }
            (&Method::PUT, false, Some("finalize")) => {
                let written = resources
                    .update_finalize(
                        r,
                        &protobuf::resource_body(headers, body, self.builtin).await?,
                        &write_options(params, headers)?,
                    )
                    .await?;
                Ok(self.answer(StatusCode::OK, written))
            }
            (&Method::PUT, false, Some("scale")) => {
                let written = resources
                    .update_scale(r, &json_body(headers, body).await?, &write_options(params, headers)?)
                    .await?;
                Ok(self.answer(StatusCode::OK, written))
            }
            (&Method::PATCH, false, Some("scale")) => {
                let options = write_options(params, headers)?;
                let written = resources.patch_scale(r, patch_type(headers, false)?, body, &options).await?;
                Ok(self.answer(StatusCode::OK, written))
            }
            _ => Err(method_not_allowed(self.method).into()),
        }
    }
}

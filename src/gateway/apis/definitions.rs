//! `/apis/apiextensions.k8s.io/v1/customresourcedefinitions`: the
//! definitions endpoint, its collection, each definition and its status,
//! in JSON, YAML, a Table or protobuf.

use axum::body::Bytes;
use axum::http::{HeaderMap, Method, StatusCode};
use serde_json::Value;

use super::{delete_code, list_json, list_meta, method_not_allowed, patch_body, patch_type, patched_code, table_shape};
use super::{write_options, yaml_watch};
use crate::apimachinery::options::Written;
use crate::gateway::codec::{Output, Reply};
use crate::gateway::query::Params;
use crate::gateway::{protobuf, watch, Api};
use crate::resource::table::{definitions_table, Shape};
use crate::resource::Endpoint;

/// Serves a request to the definitions' collection (`name` none) or to one
/// definition (`status`: its status subresource).
pub(super) async fn serve(
    api: &Api,
    name: Option<String>,
    status: bool,
    method: &Method,
    params: &Params,
    headers: &HeaderMap,
    body: &Bytes,
) -> Reply {
    let output = Output::of(headers);
    let shape = table_shape(output, params)?;
    let registry = &api.registry;
    // Protobuf when the client asked for it first (client-go's clientsets).
    let proto = protobuf::negotiated(headers);
    let respond =
        |code, value: &Value, output, warnings: &[String]| protobuf::respond_as(proto, code, value, output, warnings);
    let ok = |value: &Value, warnings: &[String]| respond(StatusCode::OK, value, output, warnings);
    let answer = |code, written: Written| protobuf::respond_written_as(proto, code, written, output);
    match (method, name) {
        (&Method::GET, None) if params.watch() => watch_definitions(api, params, output, shape, proto).await,
        (&Method::GET, None) => {
            let page = registry.list(&params.list_options()?).await?;
            if let Some(shape) = shape {
                let list = Some(list_meta(&page));
                return Ok(ok(&definitions_table(&page.items, list.as_ref(), jiff::Timestamp::now(), shape), &[]));
            }
            Ok(ok(&list_json(crate::registry::definition::API_VERSION, "CustomResourceDefinitionList", &page), &[]))
        }
        (&Method::POST, None) => {
            let written = registry
                .create(&protobuf::definition_body(headers, body).await?, &write_options(params, headers)?)
                .await?;
            Ok(answer(StatusCode::CREATED, written))
        }
        (&Method::GET, Some(name)) if shape.is_some() => {
            let shape = shape.unwrap_or_default();
            Ok(ok(&definitions_table(&[registry.get(&name)?], None, jiff::Timestamp::now(), shape), &[]))
        }
        (&Method::GET, Some(name)) => Ok(ok(&registry.get(&name)?, &[])),
        (&Method::PUT, Some(_)) => {
            let (body, options) = (protobuf::definition_body(headers, body).await?, write_options(params, headers)?);
            let written = match status {
                true => registry.update_status(&body, &options).await?,
                false => registry.update(&body, &options).await?,
            };
            Ok(answer(StatusCode::OK, written))
        }
        (&Method::PATCH, Some(name)) => {
            let endpoint = if status { Endpoint::Status } else { Endpoint::Main };
            let kind = patch_type(headers, true)?;
            let (body, options) = patch_body(kind, body, params, headers)?;
            let written = registry.patch(&name, endpoint, kind, &body, &options).await?;
            Ok(answer(patched_code(&written), written))
        }
        (&Method::DELETE, Some(name)) if !status => {
            let options = protobuf::delete_body(headers, body).await?;
            let (object, gone) = registry.delete(&name, &params.delete_options(&options)?).await?;
            Ok(respond(delete_code(gone, params, &options), &object, output, &[]))
        }
        _ => Err(method_not_allowed(method).into()),
    }
}

/// A watch of the definitions: JSON events (Tables when `shape` asks for
/// them), or protobuf ones when `proto`; never YAML.
async fn watch_definitions(api: &Api, params: &Params, output: Output, shape: Option<Shape>, proto: bool) -> Reply {
    if output == Output::Yaml {
        return Err(yaml_watch().into());
    }
    let options = params.watch_options()?;
    let slot = api.limits.watch_slot()?;
    let events = api.registry.watch(options).await.map(|events| api.limits.watch_pool.forward(events));
    if proto {
        return Ok(protobuf::watch(events, slot));
    }
    Ok(watch::stream(events, shape.map(watch::definition_tables), slot))
}

//! `GET /featuregates`: the field-level feature gates of every definition
//! as one JSON document (a `FeatureGateList`), what `ListFeatureGates`
//! answers over gRPC and `kubectl feature-gates` prints. `?definition=` and
//! `?component=` keep only those of one definition or component.

use std::collections::HashMap;

use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use serde_json::json;

use super::codec::{respond, Output, Reply};
use super::Api;

pub async fn list(State(api): State<Api>, Query(query): Query<HashMap<String, String>>, headers: HeaderMap) -> Reply {
    let param = |name: &str| query.get(name).map(String::as_str).unwrap_or("");
    let gates = api.registry.feature_gates(param("definition"), param("component"))?;
    let doc = json!({"kind": "FeatureGateList", "apiVersion": "crdstore.io/v1", "items": gates});
    Ok(respond(StatusCode::OK, &doc, Output::of(&headers), &[]))
}

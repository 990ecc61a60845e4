//! Conversion of custom resources between the versions of their definition
//! (`spec.conversion`): the `Converter` compiled once per definition
//! revision and held by the served catalog, with its strategies `None`
//! (only `apiVersion` changes), `Webhook` (a `ConversionReview` over HTTPS,
//! `webhook.rs`, `review.rs`) and `Declarative` (the engine of
//! `declarative/`, wired in one arm of `Converter::convert`). Every verb
//! and the `Convert` RPC convert through it.

pub mod review;
pub mod webhook;

use std::time::Duration;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceConversion;
use serde_json::Value;

use crate::error::{Error, Result};

/// How a definition converts.
#[derive(Debug)]
pub enum Strategy {
    /// Only `apiVersion` changes.
    None,
    /// A conversion webhook, one review per call.
    Webhook(webhook::Webhook),
    /// `spec.conversion.strategy: Declarative`. The declarative engine
    /// (`conversion::declarative`) is wired here at merge: compile it in
    /// `Converter::compile` from the definition's declaration and call
    /// `Declarative::convert` for each object in `Converter::convert`'s
    /// Declarative arm. Until then such a definition answers a clear error
    /// rather than pretending to convert.
    Declarative,
    /// A strategy that could not be compiled (an unknown name, a webhook
    /// whose client cannot be built): every conversion answers this error.
    Broken(Error),
}

/// The conversion of one definition revision between its versions.
#[derive(Debug)]
pub struct Converter {
    group: String,
    strategy: Strategy,
}

impl Converter {
    /// `None`, for `group`.
    pub fn none(group: &str) -> Self {
        Self { group: group.to_string(), strategy: Strategy::None }
    }

    /// The converter of a definition in `group` with `spec.conversion`
    /// (none means `None`). Webhook calls are bounded by `timeout`.
    pub fn compile(group: &str, conversion: Option<&CustomResourceConversion>, timeout: Duration) -> Self {
        let strategy = match conversion.map(|c| c.strategy.as_str()) {
            None | Some("None") | Some("") => Strategy::None,
            Some("Webhook") => match conversion.and_then(|c| c.webhook.as_ref()) {
                Some(hook) => webhook::Webhook::new(hook, timeout).map_or_else(Strategy::Broken, Strategy::Webhook),
                None => Strategy::Broken(Error::internal("the Webhook conversion strategy has no webhook")),
            },
            Some("Declarative") => Strategy::Declarative,
            Some(other) => Strategy::Broken(Error::internal(format!("unknown conversion strategy {other:?}"))),
        };
        Self { group: group.to_string(), strategy }
    }

    pub fn strategy(&self) -> &Strategy {
        &self.strategy
    }

    /// Whether converting only rewrites `apiVersion` (the `None` strategy),
    /// so reads need no call at all.
    pub fn is_none(&self) -> bool {
        matches!(self.strategy, Strategy::None)
    }

    /// `objects`, each at its own apiVersion of this definition, converted
    /// to `to_version`: those already there pass through untouched, the
    /// others convert together (one webhook review for all of them). An
    /// error names what failed in Kubernetes' words.
    pub async fn convert(&self, objects: Vec<Value>, to_version: &str) -> Result<Vec<Value>> {
        self.convert_named(objects, to_version, None).await
    }

    /// `convert`, for the items of a list of kind `list_kind`: errors name
    /// the list, as Kubernetes names it.
    pub async fn convert_list(&self, objects: Vec<Value>, to_version: &str, list_kind: &str) -> Result<Vec<Value>> {
        self.convert_named(objects, to_version, Some(list_kind)).await
    }

    async fn convert_named(
        &self,
        mut objects: Vec<Value>,
        to_version: &str,
        list_kind: Option<&str>,
    ) -> Result<Vec<Value>> {
        let desired = format!("{}/{to_version}", self.group);
        let pending: Vec<usize> = (0..objects.len())
            .filter(|&i| objects[i].get("apiVersion").and_then(Value::as_str) != Some(desired.as_str()))
            .collect();
        if pending.is_empty() {
            return Ok(objects);
        }
        match &self.strategy {
            Strategy::None => {
                for &i in &pending {
                    objects[i]["apiVersion"] = Value::String(desired.clone());
                }
                Ok(objects)
            }
            Strategy::Webhook(hook) => {
                let first = &objects[pending[0]];
                let from = first.get("apiVersion").and_then(Value::as_str).unwrap_or("");
                let kind = list_kind.unwrap_or_else(|| first.get("kind").and_then(Value::as_str).unwrap_or(""));
                let what = format!("{from}, Kind={kind}");
                let sent: Vec<Value> = pending.iter().map(|&i| std::mem::take(&mut objects[i])).collect();
                let converted = hook.convert(&sent, &pending, &desired, &what).await?;
                for (i, object) in pending.into_iter().zip(converted) {
                    objects[i] = object;
                }
                Ok(objects)
            }
            // The lead wires `conversion::declarative::Declarative` here.
            Strategy::Declarative => Err(Error::internal(format!(
                "the Declarative conversion strategy is not available yet: {} cannot convert to {desired}",
                self.group
            ))),
            Strategy::Broken(err) => Err(err.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[tokio::test]
    async fn none_rewrites_only_the_api_version() {
        let converter = Converter::none("example.com");
        let objects = vec![
            json!({"apiVersion": "example.com/v1", "kind": "W", "spec": {"a": 1}}),
            json!({"apiVersion": "example.com/v2", "kind": "W", "spec": {"b": 2}}),
        ];
        let out = converter.convert(objects, "v2").await.unwrap();
        assert_eq!(out[0], json!({"apiVersion": "example.com/v2", "kind": "W", "spec": {"a": 1}}));
        assert_eq!(out[1], json!({"apiVersion": "example.com/v2", "kind": "W", "spec": {"b": 2}}));
    }

    #[tokio::test]
    async fn declarative_answers_a_clear_error_until_wired() {
        let conversion: CustomResourceConversion = serde_json::from_value(json!({"strategy": "Declarative"})).unwrap();
        let converter = Converter::compile("example.com", Some(&conversion), webhook::DEFAULT_TIMEOUT);
        let at_target = vec![json!({"apiVersion": "example.com/v2"})];
        assert!(converter.convert(at_target, "v2").await.is_ok(), "nothing to convert, nothing to fail");
        let err = converter.convert(vec![json!({"apiVersion": "example.com/v1"})], "v2").await.unwrap_err();
        assert!(err.message.contains("Declarative"), "{}", err.message);
    }
}

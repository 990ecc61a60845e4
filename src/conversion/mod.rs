//! Conversion of custom resources between the versions of their definition
//! (`spec.conversion`): the `Converter` compiled once per definition
//! revision and held by the served catalog, with its strategies `None`
//! (only `apiVersion` changes), `Webhook` (a `ConversionReview` over HTTPS,
//! `webhook/`, `review.rs`) and `Declarative` (the engine of
//! `declarative/`, wired in one arm of `Converter::convert`). Every verb
//! and the `Convert` RPC convert through it.

pub mod declarative;
pub mod page;
pub mod raw;
pub mod review;
mod trust;
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
    /// `spec.conversion.strategy: Declarative`: the versions' declared
    /// rules (`declarative/`), compiled once per revision.
    Declarative(declarative::Declarative),
    /// A conversion compiled into the binary (a built-in kind served at
    /// a second group, as `events.k8s.io/v1` `Event` is over core/v1's):
    /// the object and the version to convert it to.
    Native(fn(Value, &str) -> Result<Value>),
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
    /// A conversion compiled into the binary, for `group`.
    pub fn native(group: &str, convert: fn(Value, &str) -> Result<Value>) -> Self {
        Self { group: group.to_string(), strategy: Strategy::Native(convert) }
    }

    /// `None`, for `group`.
    pub fn none(group: &str) -> Self {
        Self { group: group.to_string(), strategy: Strategy::None }
    }

    /// The converter of a definition in `group` with `spec.conversion`
    /// (none means `None`). Webhook calls are bounded by `timeout`;
    /// `declarative` compiles the versions' declared rules, called only for
    /// the Declarative strategy.
    pub fn compile(
        group: &str,
        conversion: Option<&CustomResourceConversion>,
        timeout: Duration,
        declarative: impl FnOnce() -> Result<declarative::Declarative>,
    ) -> Self {
        let strategy = match conversion.map(|c| c.strategy.as_str()) {
            None | Some("None") | Some("") => Strategy::None,
            Some("Webhook") => match conversion.and_then(|c| c.webhook.as_ref()) {
                Some(hook) => webhook::Webhook::new(hook, timeout).map_or_else(Strategy::Broken, Strategy::Webhook),
                None => Strategy::Broken(Error::internal("the Webhook conversion strategy has no webhook")),
            },
            Some("Declarative") => declarative().map_or_else(Strategy::Broken, Strategy::Declarative),
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
            Strategy::Declarative(rules) => {
                for &i in &pending {
                    objects[i] = rules.convert(std::mem::take(&mut objects[i]), to_version)?;
                }
                Ok(objects)
            }
            Strategy::Native(convert) => {
                for &i in &pending {
                    objects[i] = convert(std::mem::take(&mut objects[i]), to_version)?;
                }
                Ok(objects)
            }
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
    async fn declarative_converts_each_pending_object_by_the_declared_rules() {
        let conversion: CustomResourceConversion = serde_json::from_value(json!({"strategy": "Declarative"})).unwrap();
        let schema = |field: &str| json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {field: {"type": "string"}}}}});
        let (s1, s2) = (schema("a"), schema("b"));
        let rename: declarative::VersionConversion =
            serde_json::from_value(json!({"declarative": {"v2": {"rename": {"from": ".spec.a", "to": ".spec.b"}}}}))
                .unwrap();
        let versions = [
            declarative::Version {
                name: "v1",
                served: true,
                storage: true,
                schema: Some(&s1),
                conversion: Some(&rename),
            },
            declarative::Version { name: "v2", served: true, storage: false, schema: Some(&s2), conversion: None },
        ];
        let converter = Converter::compile("example.com", Some(&conversion), webhook::DEFAULT_TIMEOUT, || {
            declarative::Declarative::compile(&versions)
        });
        let objects = vec![
            json!({"apiVersion": "example.com/v1", "kind": "W", "spec": {"a": "x"}}),
            json!({"apiVersion": "example.com/v2", "kind": "W", "spec": {"b": "y"}}),
        ];
        let out = converter.convert(objects, "v2").await.unwrap();
        assert_eq!(out[0], json!({"apiVersion": "example.com/v2", "kind": "W", "spec": {"b": "x"}}));
        assert_eq!(out[1], json!({"apiVersion": "example.com/v2", "kind": "W", "spec": {"b": "y"}}));
        let back = converter.convert(out, "v1").await.unwrap();
        assert_eq!(back[0], json!({"apiVersion": "example.com/v1", "kind": "W", "spec": {"a": "x"}}));
    }

    #[tokio::test]
    async fn a_declaration_that_does_not_compile_answers_its_error() {
        let conversion: CustomResourceConversion = serde_json::from_value(json!({"strategy": "Declarative"})).unwrap();
        let converter = Converter::compile("example.com", Some(&conversion), webhook::DEFAULT_TIMEOUT, || {
            Err(Error::internal("no rule reaches v2"))
        });
        assert!(converter.convert(vec![json!({"apiVersion": "example.com/v2"})], "v2").await.is_ok());
        let err = converter.convert(vec![json!({"apiVersion": "example.com/v1"})], "v2").await.unwrap_err();
        assert!(err.message.contains("no rule reaches v2"), "{}", err.message);
    }
}

//! Validation of a definition's `spec.conversion`: its strategy, and a
//! conversion webhook's client config and review versions.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceConversion, WebhookClientConfig,
};
use serde_json::Value;

use crate::error::FieldError;

const CONVERSION_STRATEGIES: &[&str] = &["Declarative", "None", "Webhook"];
const REVIEW_VERSIONS: &[&str] = &["v1", "v1beta1"];

/// `spec.conversion`: a known strategy, and a webhook's client config and
/// review versions exactly when the strategy is Webhook.
pub(super) fn validate_conversion(conversion: &CustomResourceConversion) -> Vec<FieldError> {
    let mut errs = Vec::new();
    match conversion.strategy.as_str() {
        // Declarative conversion is declared per version; a webhook with it
        // would be a second way to convert (at most one per definition).
        "None" | "Declarative" => {
            if conversion.webhook.is_some() {
                errs.push(FieldError::forbidden(
                    "spec.conversion.webhook",
                    "should not be set when strategy is not set to Webhook",
                ));
            }
        }
        "Webhook" => match &conversion.webhook {
            None => {
                errs.push(FieldError::required("spec.conversion.webhook", "required when strategy is set to Webhook"))
            }
            Some(webhook) => {
                match &webhook.client_config {
                    None => errs.push(FieldError::required(
                        "spec.conversion.webhook.clientConfig",
                        "required when strategy is set to Webhook",
                    )),
                    Some(config) => errs.extend(validate_client_config(config, "spec.conversion.webhook.clientConfig")),
                }
                let path = "spec.conversion.webhook.conversionReviewVersions";
                let versions = &webhook.conversion_review_versions;
                if versions.is_empty() {
                    errs.push(FieldError::required(path, ""));
                } else if !versions.iter().any(|v| REVIEW_VERSIONS.contains(&v.as_str())) {
                    let all: Vec<Value> = versions.iter().map(|v| Value::String(v.clone())).collect();
                    errs.push(FieldError::invalid(path, all, "must include at least one of v1, v1beta1"));
                }
                for (i, v) in versions.iter().enumerate() {
                    if versions[..i].contains(v) {
                        errs.push(FieldError::duplicate(format!("{path}[{i}]"), v.as_str()));
                    }
                }
            }
        },
        "" => errs.push(FieldError::required("spec.conversion.strategy", "")),
        other => errs.push(FieldError::not_supported("spec.conversion.strategy", other, CONVERSION_STRATEGIES)),
    }
    errs
}

/// A webhook's client config: a URL or a service, each as Kubernetes
/// checks it.
fn validate_client_config(config: &WebhookClientConfig, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    match (&config.url, &config.service) {
        (Some(_), Some(_)) | (None, None) => {
            errs.push(FieldError::required(path, "exactly one of url or service is required"));
        }
        (Some(url), None) => {
            let field = format!("{path}.url");
            match url.split_once("://") {
                Some(("https", rest)) if !rest.is_empty() && !rest.starts_with('/') => {
                    if url.contains('#') {
                        errs.push(FieldError::invalid(field, url.as_str(), "fragments are not permitted in the URL"));
                    } else if url.contains('?') {
                        errs.push(FieldError::invalid(field, url.as_str(), "query parameters are not allowed"));
                    }
                }
                Some(("https", _)) => errs.push(FieldError::invalid(field, url.as_str(), "host must be specified")),
                _ => errs.push(FieldError::invalid(field, url.as_str(), "'https' is the only allowed URL scheme")),
            }
        }
        (None, Some(service)) => {
            if service.namespace.is_empty() {
                errs.push(FieldError::required(format!("{path}.service.namespace"), "service namespace is required"));
            }
            if service.name.is_empty() {
                errs.push(FieldError::required(format!("{path}.service.name"), "service name is required"));
            }
            if let Some(p) = service.path.as_deref().filter(|p| !p.is_empty() && !p.starts_with('/')) {
                errs.push(FieldError::invalid(format!("{path}.service.path"), p, "must start with a '/'"));
            }
            if let Some(port) = service.port.filter(|p| !(1..=65535).contains(p)) {
                errs.push(FieldError::invalid(
                    format!("{path}.service.port"),
                    port,
                    "port is not valid: must be between 1 and 65535, inclusive",
                ));
            }
        }
    }
    errs
}

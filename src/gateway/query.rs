//! Kubernetes' query parameters (and the DeleteOptions body) as the
//! domain's options; a bad value is a BadRequest that names the parameter.

use std::time::Duration;

use serde_json::Value;

use crate::apimachinery::options::{
    DeleteOptions, FieldValidation, ListOptions, ResourceVersion, ResourceVersionMatch, WatchOptions, WriteOptions,
};
use crate::error::{Error, Result};

/// A request's query parameters, in order.
pub struct Params(pub Vec<(String, String)>);

fn flag(value: &str) -> bool {
    matches!(value, "true" | "1" | "True")
}

impl Params {
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    fn text(&self, key: &str) -> String {
        self.get(key).unwrap_or_default().to_string()
    }

    /// `?watch=true` (or `1`).
    pub fn watch(&self) -> bool {
        self.get("watch").is_some_and(flag)
    }

    fn dry_run(&self) -> Result<bool> {
        let mut dry = false;
        for (_, value) in self.0.iter().filter(|(k, _)| k == "dryRun") {
            match value.as_str() {
                "All" => dry = true,
                "" => {}
                other => {
                    return Err(Error::bad_request(format!(
                        "dryRun: Unsupported value: \"{other}\": supported values: \"All\""
                    )))
                }
            }
        }
        Ok(dry)
    }

    pub fn write_options(&self) -> Result<WriteOptions> {
        let field_validation = match self.get("fieldValidation").unwrap_or("") {
            "" | "Warn" => FieldValidation::Warn,
            "Strict" => FieldValidation::Strict,
            "Ignore" => FieldValidation::Ignore,
            other => {
                return Err(Error::bad_request(format!(
                "fieldValidation: Unsupported value: \"{other}\": supported values: \"Ignore\", \"Strict\", \"Warn\""
            )))
            }
        };
        Ok(WriteOptions {
            dry_run: self.dry_run()?,
            field_validation,
            field_manager: self.text("fieldManager"),
            force: self.get("force").is_some_and(flag),
        })
    }

    pub fn list_options(&self) -> Result<ListOptions> {
        let limit = match self.get("limit") {
            None | Some("") => 0,
            Some(n) => n
                .parse()
                .map_err(|_| Error::bad_request(format!("limit: Invalid value: \"{n}\": must be an integer")))?,
        };
        let resource_version_match = match self.get("resourceVersionMatch").unwrap_or("") {
            "" => ResourceVersionMatch::Unset,
            "NotOlderThan" => ResourceVersionMatch::NotOlderThan,
            "Exact" => ResourceVersionMatch::Exact,
            other => {
                return Err(Error::bad_request(format!(
                "resourceVersionMatch: Unsupported value: \"{other}\": supported values: \"Exact\", \"NotOlderThan\""
            )))
            }
        };
        Ok(ListOptions {
            label_selector: self.text("labelSelector"),
            field_selector: self.text("fieldSelector"),
            limit,
            continue_token: self.text("continue"),
            resource_version: ResourceVersion::parse(&self.text("resourceVersion"))?,
            resource_version_match,
        })
    }

    pub fn watch_options(&self) -> Result<WatchOptions> {
        let timeout = match self.get("timeoutSeconds") {
            None | Some("") => None,
            Some(n) => {
                let secs: u64 = n.parse().map_err(|_| {
                    Error::bad_request(format!(
                        "timeoutSeconds: Invalid value: \"{n}\": must be a non-negative integer"
                    ))
                })?;
                (secs > 0).then(|| Duration::from_secs(secs))
            }
        };
        Ok(WatchOptions {
            label_selector: self.text("labelSelector"),
            field_selector: self.text("fieldSelector"),
            resource_version: ResourceVersion::parse(&self.text("resourceVersion"))?,
            allow_bookmarks: self.get("allowWatchBookmarks").is_some_and(flag),
            send_initial_events: self.get("sendInitialEvents").map(flag),
            timeout,
        })
    }

    /// `orphanDependents` of a delete, from the body when it has one, else
    /// from the query; `None` when unset.
    pub fn orphan_dependents(&self, body: &[u8]) -> Option<bool> {
        if !body.iter().all(u8::is_ascii_whitespace) {
            let doc: Value = serde_json::from_slice(body).ok()?;
            return doc.get("orphanDependents").and_then(Value::as_bool);
        }
        self.get("orphanDependents").map(flag)
    }

    /// The DeleteOptions of a delete: from the body when it has one, else
    /// from the query.
    pub fn delete_options(&self, body: &[u8]) -> Result<DeleteOptions> {
        let mut options = DeleteOptions {
            precondition_uid: String::new(),
            precondition_resource_version: None,
            propagation_policy: self.text("propagationPolicy"),
            orphan_dependents: self.orphan_dependents(body),
            dry_run: self.dry_run()?,
        };
        if body.iter().all(u8::is_ascii_whitespace) {
            return Ok(options);
        }
        let doc: Value = serde_json::from_slice(body)
            .map_err(|e| Error::bad_request(format!("the DeleteOptions body is not valid JSON: {e}")))?;
        let text = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or_default().to_string();
        options.precondition_uid = text(doc.pointer("/preconditions/uid"));
        options.precondition_resource_version =
            crate::apimachinery::meta::parse_resource_version(&text(doc.pointer("/preconditions/resourceVersion")))?;
        if let Some(policy) = doc.get("propagationPolicy").and_then(Value::as_str) {
            options.propagation_policy = policy.to_string();
        }
        if let Some(dry) = doc.get("dryRun").and_then(Value::as_array) {
            options.dry_run |= dry.iter().any(|v| v == "All");
        }
        Ok(options)
    }
}

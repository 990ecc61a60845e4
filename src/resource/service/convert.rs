//! The `Convert` operation: objects, each at any version of a definition,
//! converted to one served version through the definition's `Converter`
//! (the path every verb converts through), in one call.

use serde_json::Value;

use super::Resources;
use crate::conversion::Strategy;
use crate::error::{Error, Result};

impl Resources {
    /// Converts `objects` (JSON, each at a version of the definition of
    /// `resource` in `group`) to `desired_version`, which must be served.
    /// An object that is not JSON, not of this definition or not at one of
    /// its versions is refused naming its index; a webhook's errors name
    /// the index of the object they are about, and so do the declarative
    /// engine's (`objects[<i>]: `).
    pub async fn convert(
        &self,
        group: &str,
        resource: &str,
        desired_version: &str,
        objects: &[Vec<u8>],
    ) -> Result<Vec<Vec<u8>>> {
        let served = self.served(group, desired_version, resource)?;
        let mut parsed = Vec::with_capacity(objects.len());
        for (index, bytes) in objects.iter().enumerate() {
            let refuse = |why: String| Error::bad_request(format!("objects[{index}]: {why}"));
            let obj: Value = serde_json::from_slice(bytes).map_err(|e| refuse(format!("invalid JSON: {e}")))?;
            if !obj.is_object() {
                return Err(refuse("must be a JSON object".into()));
            }
            let api_version = obj.get("apiVersion").and_then(Value::as_str).unwrap_or("");
            let known = api_version
                .strip_prefix(&format!("{group}/"))
                .is_some_and(|v| served.versions.iter().any(|known| known.name == v));
            if !known {
                return Err(refuse(format!("apiVersion {api_version:?} is not a version of {}", served.definition)));
            }
            let kind = obj.get("kind").and_then(Value::as_str).unwrap_or("");
            if kind != served.kind {
                return Err(refuse(format!("kind {kind:?} is not {}", served.kind)));
            }
            parsed.push(obj);
        }
        // A webhook converts the objects in one review and names the index
        // itself; the declarative engine converts each alone, so its error
        // is named here.
        let converted = if matches!(served.converter.strategy(), Strategy::Declarative(_)) {
            let mut out = Vec::with_capacity(parsed.len());
            for (index, obj) in parsed.into_iter().enumerate() {
                let one = served.converter.convert(vec![obj], desired_version).await.map_err(|mut e| {
                    e.message = format!("objects[{index}]: {}", e.message);
                    e
                })?;
                out.extend(one);
            }
            out
        } else {
            served.converter.convert(parsed, desired_version).await?
        };
        Ok(converted.iter().map(|obj| serde_json::to_vec(obj).expect("JSON values serialize")).collect())
    }
}

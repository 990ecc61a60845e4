//! Defaulting, as Kubernetes' defaulting algorithm: top-down, a missing key
//! (or a null where the schema is not nullable) gets its default, and the
//! defaulted value is then defaulted further.

use serde_json::Value;

use super::{Additional, Schema};

/// Applies the defaults of `schema` to `value`, in place; whether that
/// changed it.
pub fn apply_defaults(value: &mut Value, schema: &Schema) -> bool {
    if !schema.has_defaults {
        return false;
    }
    let mut changed = false;
    match value {
        Value::Object(map) => {
            for (name, property) in &schema.properties {
                let Some(default) = &property.default else { continue };
                let missing = match map.get(name) {
                    None => true,
                    Some(Value::Null) => !property.nullable,
                    Some(_) => false,
                };
                if missing {
                    changed |= map.insert(name.clone(), default.clone()).as_ref() != Some(default);
                }
            }
            for (name, item) in map.iter_mut() {
                changed |= match (schema.property(name), &schema.additional) {
                    (Some(property), _) => apply_defaults(item, property),
                    (None, Additional::Schema(other)) => apply_defaults(item, other),
                    (None, _) => false,
                };
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = &schema.items {
                for item in items {
                    changed |= apply_defaults(item, item_schema);
                }
            }
        }
        _ => {}
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_fill_missing_and_null_top_down() {
        let schema = Schema::compile(&json!({"type": "object", "properties": {"spec": {"type": "object", "default": {}, "properties": {
            "replicas": {"type": "integer", "default": 1},
            "mode": {"type": "string", "default": "auto"},
            "maybe": {"type": "string", "nullable": true, "default": "x"},
            "ports": {"type": "array", "items": {"type": "object", "properties": {"proto": {"type": "string", "default": "TCP"}}}}}}}}))
        .unwrap();
        let mut empty = json!({});
        assert!(apply_defaults(&mut empty, &schema), "defaults were set");
        assert_eq!(
            empty,
            json!({"spec": {"replicas": 1, "mode": "auto", "maybe": "x"}}),
            "nested defaults apply top-down"
        );
        let mut given = json!({"spec": {"replicas": 3, "mode": null, "maybe": null, "ports": [{"port": 80}]}});
        apply_defaults(&mut given, &schema);
        assert_eq!(given["spec"]["replicas"], 3);
        assert_eq!(given["spec"]["mode"], "auto", "a non-nullable null gets the default");
        assert_eq!(given["spec"]["maybe"], Value::Null, "a nullable null stays");
        assert_eq!(given["spec"]["ports"][0]["proto"], "TCP");
        let mut full = given.clone();
        assert!(!apply_defaults(&mut full, &schema), "nothing left to default");
        assert_eq!(full, given);
    }
}

//! Validation of `spec.versions[i].selectableFields`, as Kubernetes'
//! `ValidateCustomResourceSelectableFields`: each `jsonPath` resolves in
//! the version's schema (`cel.ValidFieldPath` without array notation) to a
//! string, boolean or integer field outside `metadata`, with no duplicate
//! and at most `MAX_SELECTABLE_FIELDS`. As Kubernetes validates its
//! internal form, fields identical in every version are checked once at
//! `spec.selectableFields`, against the schema shared by every version.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinitionSpec, CustomResourceDefinitionVersion, JSONSchemaProps, JSONSchemaPropsOrBool,
    SelectableField,
};

use crate::error::{CauseType, FieldError};

fn fields(v: &CustomResourceDefinitionVersion) -> &[SelectableField] {
    v.selectable_fields.as_deref().unwrap_or_default()
}

fn schema_of(v: &CustomResourceDefinitionVersion) -> Option<&JSONSchemaProps> {
    v.schema.as_ref().and_then(|s| s.open_api_v3_schema.as_ref())
}

/// Kubernetes' `MaxSelectableFields`.
pub const MAX_SELECTABLE_FIELDS: usize = 8;

/// Everything wrong with the selectable fields of `spec`'s versions.
pub fn validate(spec: &CustomResourceDefinitionSpec) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let Some(first) = spec.versions.first() else { return errs };
    if spec.versions.iter().all(|v| fields(v) == fields(first)) {
        if fields(first).is_empty() {
            return errs;
        }
        // Hoisted: the schema is the spec's only when every version has it.
        let shared = spec.versions.iter().all(|v| v.schema == first.schema);
        match schema_of(first).filter(|_| shared) {
            None => errs.push(FieldError::invalid(
                "spec.selectableFields",
                "",
                "may only be set when validations.schema is included",
            )),
            Some(schema) => errs.extend(validate_fields(fields(first), schema, "spec.selectableFields")),
        }
        return errs;
    }
    for (i, version) in spec.versions.iter().enumerate() {
        if fields(version).is_empty() {
            continue;
        }
        let path = format!("spec.versions[{i}].selectableFields");
        match schema_of(version) {
            // Kubernetes' words, which say the opposite of what they mean.
            None => errs.push(FieldError::invalid(
                path,
                "",
                "may only be set when `version.schema.openAPIV3Schema` is not included",
            )),
            Some(schema) => errs.extend(validate_fields(fields(version), schema, &path)),
        }
    }
    errs
}

/// Drops from `errs` the "too many" errors of an update that keeps a list of
/// more than `MAX_SELECTABLE_FIELDS` unchanged (Kubernetes'
/// `findTooManySelectableFieldsAllowed`: a version by name, or the hoisted
/// list shared by every version).
pub fn ratchet(errs: &mut Vec<FieldError>, new: &CustomResourceDefinitionSpec, old: &CustomResourceDefinitionSpec) {
    let kept_too_many =
        |new: &[SelectableField], old: &[SelectableField]| old.len() > MAX_SELECTABLE_FIELDS && new == old;
    errs.retain(|e| {
        if e.cause != CauseType::TooMany {
            return true;
        }
        if e.field == "spec.selectableFields" {
            return !matches!((shared(new), shared(old)), (Some(n), Some(o)) if kept_too_many(n, o));
        }
        let allowed = new.versions.iter().enumerate().any(|(i, v)| {
            e.field == format!("spec.versions[{i}].selectableFields")
                && old.versions.iter().any(|o| o.name == v.name && kept_too_many(fields(v), fields(o)))
        });
        !allowed
    });
}

/// The selectable fields every version of `spec` shares, when they share them.
fn shared(spec: &CustomResourceDefinitionSpec) -> Option<&[SelectableField]> {
    let first = spec.versions.first().map(fields).unwrap_or_default();
    spec.versions.iter().all(|v| fields(v) == first).then_some(first)
}

/// The checks of one list of selectable fields at `path`.
fn validate_fields(fields: &[SelectableField], schema: &JSONSchemaProps, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut unique: Vec<String> = Vec::new();
    for (i, field) in fields.iter().enumerate() {
        let at = format!("{path}[{i}].jsonPath");
        if field.json_path.is_empty() {
            errs.push(FieldError::required(at, ""));
            continue;
        }
        let (resolved, leaf) = match valid_field_path(&field.json_path, schema) {
            Ok(found) => found,
            Err(why) => {
                errs.push(FieldError::invalid(at, field.json_path.as_str(), format!("is an invalid path: {why}")));
                continue;
            }
        };
        if resolved.root == "metadata" {
            errs.push(FieldError::invalid(
                at.clone(),
                field.json_path.as_str(),
                "must not point to fields in metadata",
            ));
        }
        if !matches!(leaf.and_then(|s| s.type_.as_deref()), Some("string" | "boolean" | "integer")) {
            errs.push(FieldError::invalid(
                at.clone(),
                field.json_path.as_str(),
                "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.",
            ));
        }
        if unique.contains(&resolved.text) {
            errs.push(FieldError::duplicate(at, field.json_path.as_str()));
        } else {
            unique.push(resolved.text);
        }
    }
    if unique.len() > MAX_SELECTABLE_FIELDS {
        errs.push(FieldError {
            cause: CauseType::TooMany,
            field: path.to_string(),
            value: Some(unique.len().into()),
            shown: None,
            detail: format!("must have at most {MAX_SELECTABLE_FIELDS} items"),
        });
    }
    errs
}

/// A resolved path: its first segment and its `field.Path` spelling
/// (`spec.a[key]` for a key of additionalProperties).
struct Resolved {
    root: String,
    text: String,
}

/// The tokens of a JSON path: `.`, `[`, `]`, single-quoted strings and
/// the text between, as Kubernetes' scanner splits it.
fn tokens(path: &str) -> Vec<&str> {
    let bytes = path.as_bytes();
    let (mut out, mut start) = (Vec::new(), 0);
    while start < bytes.len() {
        if bytes[start] == b'\'' {
            let mut end = start + 1;
            while end < bytes.len() && !(bytes[end] == b'\'' && bytes[end - 1] != b'\\') {
                end += 1;
            }
            let end = (end + 1).min(bytes.len());
            out.push(&path[start..end]);
            start = end;
            continue;
        }
        let end = match bytes[start..].iter().position(|b| matches!(b, b'.' | b'[' | b']')) {
            Some(0) => start + 1,
            Some(n) => start + n,
            None => bytes.len(),
        };
        out.push(&path[start..end]);
        start = end;
    }
    out
}

/// Kubernetes' `cel.ValidFieldPath` with array notation refused: the
/// schema at the end of `path`, or why there is none (in its words).
fn valid_field_path<'a>(
    path: &str,
    schema: &'a JSONSchemaProps,
) -> Result<(Resolved, Option<&'a JSONSchemaProps>), String> {
    let mut at: Option<&'a JSONSchemaProps> = Some(schema);
    let mut resolved = Resolved { root: String::new(), text: String::new() };
    let mut tokens = tokens(path).into_iter();
    while let Some(token) = tokens.next() {
        match token {
            "[" => return Err("array notation is not allowed".into()),
            "." => {
                let name = tokens.next().ok_or("unexpected end of JSON path")?;
                let node = at.ok_or("does not refer to a valid field")?;
                if let Some(properties) = node.properties.as_ref().filter(|p| !p.is_empty()) {
                    at = Some(properties.get(name).ok_or("does not refer to a valid field")?);
                    if resolved.text.is_empty() {
                        resolved.root = name.to_string();
                        resolved.text = name.to_string();
                    } else {
                        resolved.text = format!("{}.{name}", resolved.text);
                    }
                } else if let Some(additional) = &node.additional_properties {
                    at = match additional {
                        JSONSchemaPropsOrBool::Schema(s) => Some(s),
                        JSONSchemaPropsOrBool::Bool(_) => None,
                    };
                    resolved.text = format!("{}[{name}]", resolved.text);
                } else {
                    return Err("does not refer to a valid field".into());
                }
            }
            other => return Err(format!("expected [ or . but got: {other}")),
        }
    }
    Ok((resolved, at))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(versions: serde_json::Value) -> CustomResourceDefinitionSpec {
        serde_json::from_value(json!({
            "group": "example.com",
            "names": {"plural": "shirts", "kind": "Shirt"},
            "scope": "Cluster",
            "versions": versions,
        }))
        .unwrap()
    }

    fn schema() -> serde_json::Value {
        json!({"openAPIV3Schema": {"type": "object", "properties": {
            "metadata": {"type": "object"},
            "spec": {"type": "object", "properties": {
                "color": {"type": "string"},
                "size": {"type": "string", "enum": ["S", "M"]},
                "count": {"type": "integer"},
                "ratio": {"type": "number"},
                "tags": {"type": "array", "items": {"type": "object", "properties": {"a": {"type": "string"}}}},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            }},
        }}})
    }

    fn messages(fields: serde_json::Value) -> Vec<String> {
        let v1 = json!({"name": "v1", "served": true, "storage": true, "schema": schema(), "selectableFields": fields});
        let v2 = json!({"name": "v2", "served": true, "storage": false, "schema": schema()});
        validate(&spec(json!([v1, v2]))).iter().map(ToString::to_string).collect()
    }

    #[test]
    fn leaves_of_the_allowed_types_pass() {
        let ok = json!([{"jsonPath": ".spec.color"}, {"jsonPath": ".spec.size"}, {"jsonPath": ".spec.count"}, {"jsonPath": ".spec.labels.x"}]);
        assert_eq!(messages(ok), Vec::<String>::new());
    }

    #[test]
    fn each_error_at_its_path_in_kubernetes_words() {
        let bad = json!([
            {"jsonPath": ".spec.ratio"},
            {"jsonPath": ".spec.nope"},
            {"jsonPath": "spec.color"},
            {"jsonPath": ".spec.tags[0].a"},
            {"jsonPath": ".spec.tags.a"},
            {"jsonPath": ".metadata.name"},
            {"jsonPath": ".spec.color"},
            {"jsonPath": ".spec.color"},
            {"jsonPath": ""},
        ]);
        let p = "spec.versions[0].selectableFields";
        let kinds = "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.";
        assert_eq!(
            messages(bad),
            vec![
                format!("{p}[0].jsonPath: Invalid value: \".spec.ratio\": {kinds}"),
                format!("{p}[1].jsonPath: Invalid value: \".spec.nope\": is an invalid path: does not refer to a valid field"),
                format!("{p}[2].jsonPath: Invalid value: \"spec.color\": is an invalid path: expected [ or . but got: spec"),
                format!("{p}[3].jsonPath: Invalid value: \".spec.tags[0].a\": is an invalid path: array notation is not allowed"),
                format!("{p}[4].jsonPath: Invalid value: \".spec.tags.a\": is an invalid path: does not refer to a valid field"),
                format!("{p}[5].jsonPath: Invalid value: \".metadata.name\": is an invalid path: does not refer to a valid field"),
                format!("{p}[7].jsonPath: Duplicate value: \".spec.color\""),
                format!("{p}[8].jsonPath: Required value"),
            ]
        );
    }

    #[test]
    fn at_most_eight_and_hoisted_when_identical() {
        let many: Vec<_> = (0..9).map(|i| json!({"jsonPath": format!(".spec.labels.k{i}")})).collect();
        assert_eq!(
            messages(json!(many)),
            vec!["spec.versions[0].selectableFields: Too many: 9: must have at most 8 items".to_string()]
        );
        let v = |name: &str, storage: bool| {
            json!({"name": name, "served": true, "storage": storage, "schema": schema(),
                "selectableFields": [{"jsonPath": ".spec.ratio"}]})
        };
        let errs: Vec<String> =
            validate(&spec(json!([v("v1", true), v("v2", false)]))).iter().map(ToString::to_string).collect();
        // An update that keeps more than eight as they were is allowed.
        let nine = |extra: usize| {
            let many: Vec<_> = (0..9 + extra).map(|i| json!({"jsonPath": format!(".spec.labels.k{i}")})).collect();
            spec(json!([{"name": "v1", "served": true, "storage": true, "schema": schema(), "selectableFields": many},
                         {"name": "v2", "served": true, "storage": false, "schema": schema()}]))
        };
        let mut kept = validate(&nine(0));
        ratchet(&mut kept, &nine(0), &nine(0));
        assert!(kept.is_empty(), "{kept:?}");
        let mut grown = validate(&nine(1));
        ratchet(&mut grown, &nine(1), &nine(0));
        assert_eq!(grown.len(), 1);
        assert_eq!(errs.len(), 1);
        assert!(errs[0].starts_with("spec.selectableFields[0].jsonPath: Invalid value"), "{errs:?}");
    }
}

//! Static validation of definitions, as Kubernetes' apiextensions
//! validation: every violation is collected with its field path, and updates
//! add the immutability and storedVersions rules. Name conflicts with other
//! definitions are not errors here; they are conditions (`naming`).

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceColumnDefinition, CustomResourceDefinition, CustomResourceDefinitionNames,
    CustomResourceDefinitionSpec, CustomResourceDefinitionVersion, CustomResourceSubresources, JSONSchemaProps,
};
use serde_json::Value;

mod conversion;
mod schemas;

use std::collections::BTreeSet;

use self::conversion::validate_conversion;
use self::schemas::validate_version_schema;
use super::conditions::{self, is_true, Approval};
use crate::apimachinery::dns;
use crate::error::FieldError;
use crate::storage::keys;

const SCOPES: &[&str] = &["Cluster", "Namespaced"];
const COLUMN_TYPES: &[&str] = &["boolean", "date", "integer", "number", "string"];
const COLUMN_FORMATS: &[&str] = &["byte", "date", "date-time", "double", "float", "int32", "int64", "password"];

fn push_all(errs: &mut Vec<FieldError>, field: &str, value: &str, problems: Vec<String>) {
    if !problems.is_empty() {
        errs.push(FieldError::invalid(field, value, problems.join(",")));
    }
}

/// Everything wrong with a definition on its own.
pub fn validate(crd: &CustomResourceDefinition) -> Vec<FieldError> {
    let mut errs = validate_object(crd, &BTreeSet::new());
    errs.extend(validate_api_approval(crd, None));
    errs
}

/// Everything wrong with a definition on its own but its API approval; the
/// calls of `preexisting` rules are not checked again (`schemas`).
fn validate_object(crd: &CustomResourceDefinition, preexisting: &BTreeSet<String>) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let name = crd.metadata.name.as_deref().unwrap_or("");
    if name.is_empty() {
        errs.push(FieldError::required("metadata.name", "name or generateName is required"));
    } else {
        let mut problems = dns::dns1123_subdomain(name);
        if name != format!("{}.{}", crd.spec.names.plural, crd.spec.group) {
            problems.push(r#"must be spec.names.plural+"."+spec.group"#.to_string());
        }
        push_all(&mut errs, "metadata.name", name, problems);
    }
    errs.extend(validate_spec(&crd.spec, preexisting));
    errs.extend(validate_reserved_group(crd));
    if let Some(accepted) = crd.status.as_ref().and_then(|s| s.accepted_names.as_ref()) {
        errs.extend(validate_names(accepted, "status.acceptedNames"));
    }
    errs
}

/// `apiextensions.k8s.io` is never allowed, since its key space holds the
/// definitions themselves.
fn validate_reserved_group(crd: &CustomResourceDefinition) -> Vec<FieldError> {
    let group = crd.spec.group.as_str();
    if group == keys::DEFINITIONS_GROUP {
        return vec![FieldError::invalid("spec.group", group, "is reserved for the definitions themselves")];
    }
    Vec::new()
}

/// Groups under `k8s.io` and `kubernetes.io` need Kubernetes' approval
/// annotation, a URL or a reason starting with "unapproved"
/// (`validateAPIApproval`); an update that keeps the approval state is never
/// refused for it.
fn validate_api_approval(new: &CustomResourceDefinition, old: Option<&CustomResourceDefinition>) -> Vec<FieldError> {
    if !conditions::is_protected_group(&new.spec.group) {
        return Vec::new();
    }
    let (state, why) = conditions::approval_state(new.metadata.annotations.as_ref());
    if old.is_some_and(|old| conditions::approval_state(old.metadata.annotations.as_ref()).0 == state) {
        return Vec::new();
    }
    let field = format!("metadata.annotations[{}]", conditions::API_APPROVED);
    let value = new.metadata.annotations.as_ref().and_then(|a| a.get(conditions::API_APPROVED)).cloned();
    match state {
        Approval::Approved | Approval::Bypassed => Vec::new(),
        Approval::Missing => vec![FieldError::required(field, why)],
        Approval::Invalid => vec![FieldError::invalid(field, value.unwrap_or_default(), why)],
    }
}

fn validate_spec(spec: &CustomResourceDefinitionSpec, preexisting: &BTreeSet<String>) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if spec.group.is_empty() {
        errs.push(FieldError::required("spec.group", ""));
    } else {
        let problems = dns::dns1123_subdomain(&spec.group);
        if !problems.is_empty() {
            push_all(&mut errs, "spec.group", &spec.group, problems);
        } else if !spec.group.contains('.') {
            errs.push(FieldError::invalid(
                "spec.group",
                spec.group.as_str(),
                "should be a domain with at least one dot",
            ));
        }
    }
    match spec.scope.as_str() {
        "" => errs.push(FieldError::required("spec.scope", "")),
        s if SCOPES.contains(&s) => {}
        other => errs.push(FieldError::not_supported("spec.scope", other, SCOPES)),
    }
    let names = &spec.names;
    for (field, value) in [
        ("plural", &names.plural),
        ("singular", names.singular.as_ref().unwrap_or(&String::new())),
        ("kind", &names.kind),
        ("listKind", names.list_kind.as_ref().unwrap_or(&String::new())),
    ] {
        if value.is_empty() {
            errs.push(FieldError::required(format!("spec.names.{field}"), ""));
        }
    }
    errs.extend(validate_names(names, "spec.names"));
    errs.extend(validate_versions(spec, preexisting));
    if let Some(conversion) = &spec.conversion {
        errs.extend(validate_conversion(conversion));
    }
    if spec.preserve_unknown_fields == Some(true) {
        errs.push(FieldError::invalid("spec.preserveUnknownFields", true, "must be false"));
    }
    errs
}

/// The rules for `spec.names` and `status.acceptedNames`.
pub fn validate_names(names: &CustomResourceDefinitionNames, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let label = |errs: &mut Vec<FieldError>, field: String, value: &str| {
        if !value.is_empty() {
            push_all(errs, &field, value, dns::dns1035_label(value));
        }
    };
    label(&mut errs, format!("{path}.plural"), &names.plural);
    label(&mut errs, format!("{path}.singular"), names.singular.as_deref().unwrap_or(""));
    for (field, kind) in [("kind", names.kind.as_str()), ("listKind", names.list_kind.as_deref().unwrap_or(""))] {
        let problems = dns::dns1035_label(&kind.to_lowercase());
        if !kind.is_empty() && !problems.is_empty() {
            errs.push(FieldError::invalid(
                format!("{path}.{field}"),
                kind,
                format!("may have mixed case, but should otherwise match: {}", problems.join(",")),
            ));
        }
    }
    for (i, short) in names.short_names.iter().flatten().enumerate() {
        push_all(&mut errs, &format!("{path}.shortNames[{i}]"), short, dns::dns1035_label(short));
    }
    if !names.kind.is_empty() && Some(&names.kind) == names.list_kind.as_ref() {
        errs.push(FieldError::invalid(
            format!("{path}.listKind"),
            names.kind.as_str(),
            "kind and listKind may not be the same",
        ));
    }
    for (i, category) in names.categories.iter().flatten().enumerate() {
        push_all(&mut errs, &format!("{path}.categories[{i}]"), category, dns::dns1035_label(category));
    }
    errs
}

/// Where a version's schema, subresources and columns are reported: as
/// Kubernetes validates its internal form, a field identical in every
/// version is hoisted to the spec (`spec.validation.openAPIV3Schema`,
/// `spec.subresources`, `spec.additionalPrinterColumns`) and checked once
/// there, nil and empty being the same.
struct Hoisted {
    schema: bool,
    subresources: bool,
    columns: bool,
}

impl Hoisted {
    fn of(spec: &CustomResourceDefinitionSpec) -> Self {
        let Some(first) = spec.versions.first() else {
            return Self { schema: false, subresources: false, columns: false };
        };
        let empty_columns = |v: &CustomResourceDefinitionVersion| {
            v.additional_printer_columns.as_ref().filter(|c| !c.is_empty()).cloned()
        };
        Self {
            schema: spec.versions.iter().all(|v| v.schema == first.schema) && first.schema.is_some(),
            subresources: spec.versions.iter().all(|v| v.subresources == first.subresources),
            columns: spec.versions.iter().all(|v| empty_columns(v) == empty_columns(first)),
        }
    }
}

fn validate_versions(spec: &CustomResourceDefinitionSpec, preexisting: &BTreeSet<String>) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let names: Vec<Value> = spec.versions.iter().map(|v| Value::String(v.name.clone())).collect();
    if spec.versions.iter().filter(|v| v.storage).count() != 1 {
        errs.push(FieldError::invalid(
            "spec.versions",
            names.clone(),
            "must have exactly one version marked as storage version",
        ));
    }
    if !spec.versions.iter().any(|v| v.served) && !spec.versions.is_empty() {
        errs.push(FieldError::invalid("spec.versions", names, "must have at least one version marked as served"));
    }
    let hoisted = Hoisted::of(spec);
    for (i, version) in spec.versions.iter().enumerate() {
        let path = format!("spec.versions[{i}]");
        if version.name.is_empty() {
            errs.push(FieldError::required(format!("{path}.name"), ""));
        } else {
            push_all(&mut errs, &format!("{path}.name"), &version.name, dns::dns1035_label(&version.name));
        }
        if spec.versions[..i].iter().any(|earlier| earlier.name == version.name) {
            errs.push(FieldError::duplicate(format!("{path}.name"), version.name.as_str()));
        }
        if !hoisted.schema {
            validate_version_schema(version, &format!("{path}.schema.openAPIV3Schema"), preexisting, &mut errs);
        }
        if !hoisted.subresources {
            validate_version_subresources(
                version,
                &format!("{path}.subresources"),
                &format!("{path}.schema.openAPIV3Schema"),
                &mut errs,
            );
        }
        if !hoisted.columns {
            validate_version_columns(version, &format!("{path}.additionalPrinterColumns"), &mut errs);
        }
    }
    errs.extend(super::selectable::validate(spec));
    // What every version shares, once, at the spec.
    if let Some(first) = spec.versions.first() {
        let schema_path = if hoisted.schema {
            "spec.validation.openAPIV3Schema".to_string()
        } else {
            "spec.versions[0].schema.openAPIV3Schema".to_string()
        };
        if hoisted.schema {
            validate_version_schema(first, &schema_path, preexisting, &mut errs);
        }
        if hoisted.subresources {
            validate_version_subresources(first, "spec.subresources", &schema_path, &mut errs);
        }
        if hoisted.columns {
            validate_version_columns(first, "spec.additionalPrinterColumns", &mut errs);
        }
    }
    errs
}

/// A version's subresources at `path`; the status subresource limits the
/// root of its schema, reported at `schema_path`.
fn validate_version_subresources(
    version: &CustomResourceDefinitionVersion,
    path: &str,
    schema_path: &str,
    errs: &mut Vec<FieldError>,
) {
    let Some(subresources) = &version.subresources else { return };
    errs.extend(validate_subresources(subresources, path));
    let schema = version.schema.as_ref().and_then(|s| s.open_api_v3_schema.as_ref());
    if let (Some(_), Some(schema)) = (&subresources.status, schema) {
        errs.extend(validate_root_for_status(schema, schema_path));
    }
}

/// A version's printer columns at `path`.
fn validate_version_columns(version: &CustomResourceDefinitionVersion, path: &str, errs: &mut Vec<FieldError>) {
    for (j, column) in version.additional_printer_columns.iter().flatten().enumerate() {
        errs.extend(validate_column(column, &format!("{path}[{j}]")));
    }
}

/// Keywords allowed at the schema root when the status subresource is
/// enabled (Kubernetes' `allowedFieldsAtRootSchema`), so that the schema can
/// be projected to `.status` and `.spec` without losing validation.
const ALLOWED_AT_ROOT_WITH_STATUS: &[&str] = &[
    "description",
    "type",
    "format",
    "title",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "multipleOf",
    "required",
    "items",
    "properties",
    "externalDocs",
    "example",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-validations",
];

fn validate_root_for_status(schema: &JSONSchemaProps, path: &str) -> Vec<FieldError> {
    let Ok(Value::Object(root)) = serde_json::to_value(schema) else { return Vec::new() };
    let mut outside: Vec<&str> =
        root.keys().map(String::as_str).filter(|k| !ALLOWED_AT_ROOT_WITH_STATUS.contains(k)).collect();
    if outside.is_empty() {
        return Vec::new();
    }
    outside.sort_unstable();
    vec![FieldError::invalid_without_value(
        path,
        format!(
            "only {} are allowed at the root of the schema if the status subresource is enabled; found {}",
            ALLOWED_AT_ROOT_WITH_STATUS.join(", "),
            outside.join(", ")
        ),
    )]
}

/// A JSON path as Kubernetes' `validateSimpleJSONPath` checks it: not
/// empty, starting with a dot. Anything after the dot is the JSONPath's to
/// read (kubebuilder's `.status.conditions[?(@.type=="Ready")].status`).
fn validate_simple_json_path(path: &str, field: &str) -> Vec<FieldError> {
    if path.is_empty() {
        return vec![FieldError::invalid(field, path, "must not be empty")];
    }
    if !path.starts_with('.') {
        return vec![FieldError::invalid(field, path, "must be a simple json path starting with .")];
    }
    Vec::new()
}

fn validate_subresources(subresources: &CustomResourceSubresources, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let Some(scale) = &subresources.scale else {
        return errs;
    };
    for (field, value, under) in [
        ("specReplicasPath", &scale.spec_replicas_path, ".spec"),
        ("statusReplicasPath", &scale.status_replicas_path, ".status"),
    ] {
        let field = format!("{path}.scale.{field}");
        if value.is_empty() {
            errs.push(FieldError::required(field, ""));
            continue;
        }
        let problems = validate_simple_json_path(value, &field);
        if !problems.is_empty() {
            errs.extend(problems);
        } else if !value.starts_with(&format!("{under}.")) {
            let detail = format!("should be a json path under {under}");
            errs.push(FieldError::invalid(field, value.as_str(), detail));
        }
    }
    if let Some(selector) = scale.label_selector_path.as_deref().filter(|p| !p.is_empty()) {
        let field = format!("{path}.scale.labelSelectorPath");
        let problems = validate_simple_json_path(selector, &field);
        if !problems.is_empty() {
            errs.extend(problems);
        } else if !selector.starts_with(".spec.") && !selector.starts_with(".status.") {
            errs.push(FieldError::invalid(field, selector, "should be a json path under either .spec or .status"));
        }
    }
    errs
}

fn validate_column(column: &CustomResourceColumnDefinition, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if column.name.is_empty() {
        errs.push(FieldError::required(format!("{path}.name"), ""));
    }
    if column.type_.is_empty() {
        errs.push(FieldError::required(format!("{path}.type"), format!("must be one of {}", COLUMN_TYPES.join(","))));
    } else if !COLUMN_TYPES.contains(&column.type_.as_str()) {
        let detail = format!("must be one of {}", COLUMN_TYPES.join(","));
        errs.push(FieldError::invalid(format!("{path}.type"), column.type_.as_str(), detail));
    }
    if let Some(format) = column.format.as_deref().filter(|f| !f.is_empty()) {
        if !COLUMN_FORMATS.contains(&format) {
            let detail = format!("must be one of {}", COLUMN_FORMATS.join(","));
            errs.push(FieldError::invalid(format!("{path}.format"), format, detail));
        }
    }
    // Kubernetes names the field by its Go name here.
    if column.json_path.is_empty() {
        errs.push(FieldError::required(format!("{path}.JSONPath"), ""));
    } else {
        errs.extend(validate_simple_json_path(&column.json_path, &format!("{path}.JSONPath")));
    }
    if column.priority.is_some_and(|p| p < 0) {
        errs.push(FieldError::invalid(
            format!("{path}.priority"),
            column.priority,
            "must be greater than or equal to 0",
        ));
    }
    errs
}

/// The rules `status.storedVersions` must follow against `spec.versions`,
/// as apiextensions-apiserver's `ValidateCustomResourceDefinitionStoredVersions`
/// words them: the storage version must be listed, and a listed version may
/// not leave `spec.versions` until a migration has trimmed it.
pub fn validate_stored_versions(crd: &CustomResourceDefinition) -> Vec<FieldError> {
    let stored = crd.status.as_ref().and_then(|s| s.stored_versions.clone()).unwrap_or_default();
    let path = "status.storedVersions";
    if stored.is_empty() {
        return vec![FieldError::invalid(path, Value::Array(Vec::new()), "must have at least one stored version")];
    }
    let listed = || Value::Array(stored.iter().cloned().map(Value::String).collect());
    let mut errs = Vec::new();
    for version in &crd.spec.versions {
        if version.storage && !stored.contains(&version.name) {
            errs.push(FieldError::invalid(path, listed(), format!("must have the storage version {}", version.name)));
        }
    }
    // Kubernetes keys the remaining versions by name (a repeated name
    // reports its last index); its map order is random, this is by index.
    let mut missing: Vec<(usize, &String)> = Vec::new();
    for (i, name) in stored.iter().enumerate() {
        if !crd.spec.versions.iter().any(|v| &v.name == name) {
            missing.retain(|(_, seen)| *seen != name);
            missing.push((i, name));
        }
    }
    missing.sort_by_key(|(i, _)| *i);
    for (i, name) in missing {
        errs.push(FieldError::invalid(
            format!("{path}[{i}]"),
            name.as_str(),
            format!(
                "missing from spec.versions; {name} was previously a storage version, and must remain in \
                 spec.versions until a storage migration ensures no data remains persisted in {name} and \
                 removes {name} from status.storedVersions"
            ),
        ));
    }
    errs
}

/// Everything wrong with `new` as an update of `old`.
pub fn validate_update(new: &CustomResourceDefinition, old: &CustomResourceDefinition) -> Vec<FieldError> {
    let mut errs = validate_object(new, &schemas::preexisting(&old.spec));
    super::selectable::ratchet(&mut errs, &new.spec, &old.spec);
    errs.extend(validate_api_approval(new, Some(old)));
    let immutable = |errs: &mut Vec<FieldError>, field: &str, new: &str, old: &str| {
        if new != old {
            errs.push(FieldError::invalid(field, new, "field is immutable"));
        }
    };
    immutable(&mut errs, "spec.group", &new.spec.group, &old.spec.group);
    immutable(&mut errs, "spec.names.plural", &new.spec.names.plural, &old.spec.names.plural);
    if is_true(old, "Established") {
        immutable(&mut errs, "spec.scope", &new.spec.scope, &old.spec.scope);
        immutable(&mut errs, "spec.names.kind", &new.spec.names.kind, &old.spec.names.kind);
    }
    errs.extend(validate_stored_versions(new));
    errs
}

#[cfg(test)]
mod tests;

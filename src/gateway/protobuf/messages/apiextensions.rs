//! The apiextensions messages: CustomResourceDefinition, its list, spec,
//! versions and status, and the JSON schema with its either-or fields.

use k8s_pb::apiextensions_apiserver::pkg::apis::apiextensions::v1 as ext;
use serde_json::{Map, Value};

use super::{is_zero, object, prefix, raw_from_json, raw_to_json, Field, Pb};

impl Pb for ext::Json {
    fn from_json(value: &Value) -> Result<Self, String> {
        Ok(Self { raw: raw_from_json(value) })
    }
    fn to_json(&self) -> Value {
        raw_to_json(&self.raw)
    }
}

/// `items`: one schema, or an array of them.
impl Pb for ext::JsonSchemaPropsOrArray {
    fn from_json(value: &Value) -> Result<Self, String> {
        match value {
            Value::Array(_) => Ok(Self { schema: None, j_son_schemas: Field::from_json(value)? }),
            other => Ok(Self { schema: Some(Box::new(Pb::from_json(other)?)), j_son_schemas: Vec::new() }),
        }
    }
    fn to_json(&self) -> Value {
        match &self.schema {
            Some(schema) => schema.to_json(),
            None => Value::Array(self.j_son_schemas.iter().map(Pb::to_json).collect()),
        }
    }
}

/// `additionalProperties`, `additionalItems`: a schema, or whether any is allowed.
impl Pb for ext::JsonSchemaPropsOrBool {
    fn from_json(value: &Value) -> Result<Self, String> {
        match value {
            Value::Bool(allows) => Ok(Self { allows: Some(*allows), schema: None }),
            other => Ok(Self { allows: Some(true), schema: Some(Box::new(Pb::from_json(other)?)) }),
        }
    }
    fn to_json(&self) -> Value {
        match &self.schema {
            Some(schema) => schema.to_json(),
            None => Value::Bool(self.allows.unwrap_or(false)),
        }
    }
}

/// `dependencies`: a schema, or the properties a property needs.
impl Pb for ext::JsonSchemaPropsOrStringArray {
    fn from_json(value: &Value) -> Result<Self, String> {
        match value {
            Value::Array(_) => Ok(Self { schema: None, property: Field::from_json(value)? }),
            other => Ok(Self { schema: Some(Pb::from_json(other)?), property: Vec::new() }),
        }
    }
    fn to_json(&self) -> Value {
        match &self.schema {
            Some(schema) => schema.to_json(),
            None => Value::from(self.property.clone()),
        }
    }
}

/// `subresources.status`: an empty object.
impl Pb for ext::CustomResourceSubresourceStatus {
    fn from_json(value: &Value) -> Result<Self, String> {
        object(value).map(|_| Self {})
    }
    fn to_json(&self) -> Value {
        Value::Object(Map::new())
    }
}

message!(ext::CustomResourceDefinition { metadata: "metadata", spec: "spec", status: "status" });
message!(ext::CustomResourceDefinitionList { metadata: "metadata", items: "items" });
message!(ext::CustomResourceDefinitionSpec {
    group: "group",
    names: "names",
    scope: "scope",
    versions: "versions",
    conversion: "conversion",
    preserve_unknown_fields: "preserveUnknownFields",
});
message!(ext::CustomResourceDefinitionNames {
    plural: "plural",
    singular: "singular",
    short_names: "shortNames",
    kind: "kind",
    list_kind: "listKind",
    categories: "categories",
});
message!(ext::CustomResourceDefinitionVersion {
    name: "name", served: "served", storage: "storage", deprecated: "deprecated",
    deprecation_warning: "deprecationWarning", schema: "schema", subresources: "subresources",
    additional_printer_columns: "additionalPrinterColumns", selectable_fields: "selectableFields",
} keep ["served", "storage"]);
message!(ext::CustomResourceValidation { open_apiv3_schema: "openAPIV3Schema" });
message!(ext::CustomResourceSubresources { status: "status", scale: "scale" });
message!(ext::CustomResourceSubresourceScale {
    spec_replicas_path: "specReplicasPath", status_replicas_path: "statusReplicasPath",
    label_selector_path: "labelSelectorPath",
} keep ["labelSelectorPath"]);
message!(ext::CustomResourceColumnDefinition {
    name: "name",
    r#type: "type",
    format: "format",
    description: "description",
    priority: "priority",
    json_path: "jsonPath",
});
message!(ext::SelectableField { json_path: "jsonPath" });
message!(ext::CustomResourceConversion { strategy: "strategy", webhook: "webhook" });
message!(ext::WebhookConversion {
    client_config: "clientConfig",
    conversion_review_versions: "conversionReviewVersions"
});
message!(ext::WebhookClientConfig { url: "url", service: "service", ca_bundle: "caBundle" } keep ["url"]);
message!(ext::ServiceReference { namespace: "namespace", name: "name", path: "path", port: "port" } keep ["path", "port"]);
message!(ext::CustomResourceDefinitionStatus {
    conditions: "conditions",
    accepted_names: "acceptedNames",
    stored_versions: "storedVersions",
    observed_generation: "observedGeneration",
});
message!(ext::CustomResourceDefinitionCondition {
    r#type: "type",
    status: "status",
    last_transition_time: "lastTransitionTime",
    reason: "reason",
    message: "message",
    observed_generation: "observedGeneration",
});
message!(ext::ExternalDocumentation { description: "description", url: "url" });
message!(ext::ValidationRule {
    rule: "rule", message: "message", message_expression: "messageExpression", reason: "reason",
    field_path: "fieldPath", optional_old_self: "optionalOldSelf",
} keep ["optionalOldSelf"]);
message!(ext::JsonSchemaProps {
    id: "id", schema: "$schema", r#ref: "$ref", description: "description", r#type: "type",
    format: "format", title: "title", default: "default", maximum: "maximum",
    exclusive_maximum: "exclusiveMaximum", minimum: "minimum", exclusive_minimum: "exclusiveMinimum",
    max_length: "maxLength", min_length: "minLength", pattern: "pattern", max_items: "maxItems",
    min_items: "minItems", unique_items: "uniqueItems", multiple_of: "multipleOf", r#enum: "enum",
    max_properties: "maxProperties", min_properties: "minProperties", required: "required",
    items: "items", all_of: "allOf", one_of: "oneOf", any_of: "anyOf", not: "not",
    properties: "properties", additional_properties: "additionalProperties",
    pattern_properties: "patternProperties", dependencies: "dependencies",
    additional_items: "additionalItems", definitions: "definitions", external_docs: "externalDocs",
    example: "example", nullable: "nullable",
    x_kubernetes_preserve_unknown_fields: "x-kubernetes-preserve-unknown-fields",
    x_kubernetes_embedded_resource: "x-kubernetes-embedded-resource",
    x_kubernetes_int_or_string: "x-kubernetes-int-or-string",
    x_kubernetes_list_map_keys: "x-kubernetes-list-map-keys",
    x_kubernetes_list_type: "x-kubernetes-list-type", x_kubernetes_map_type: "x-kubernetes-map-type",
    x_kubernetes_validations: "x-kubernetes-validations",
} keep [
    "default", "example", "maximum", "minimum", "maxLength", "minLength", "maxItems", "minItems", "multipleOf",
    "maxProperties", "minProperties", "additionalProperties", "additionalItems",
    "x-kubernetes-preserve-unknown-fields", "x-kubernetes-list-type",
    "x-kubernetes-map-type"
]);

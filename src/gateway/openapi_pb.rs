//! `/openapi/v2` as protobuf: the JSON document converted to gnostic's
//! `openapi.v2.Document` (proto/third_party/gnostic), as Kubernetes answers
//! `application/com.github.proto-openapi.spec.v2@v1.0+protobuf` (client-go's
//! `OpenAPISchema`, kubectl). The conversion follows gnostic's `NewDocument`
//! over the whole Swagger 2.0 object model: named maps keep their order,
//! `x-` keys become vendor extensions, and free-form values (`default`,
//! `example`, `enum`, extensions) are `Any`s holding their YAML. Keys
//! Swagger 2.0 does not define are left out.

use serde_json::{Map, Value};

/// gnostic's generated messages.
#[allow(clippy::all, clippy::pedantic, dead_code)]
pub mod v2 {
    include!(concat!(env!("OUT_DIR"), "/openapi.v2.rs"));
}

/// The media types a client asks for the protobuf document by: the
/// deprecated spelling (client-go's, which Go's mime parser refuses in a
/// Content-Type) and the one Kubernetes answers with.
pub const MEDIA_TYPES: [&str; 2] = [
    "application/com.github.proto-openapi.spec.v2@v1.0+protobuf",
    "application/com.github.proto-openapi.spec.v2.v1.0+protobuf",
];

/// The protobuf document of a Swagger 2.0 JSON document.
pub fn document(doc: &Value) -> v2::Document {
    let o = obj(doc);
    v2::Document {
        swagger: string(o, "swagger"),
        info: o.get("info").map(info),
        host: string(o, "host"),
        base_path: string(o, "basePath"),
        schemes: strings(o, "schemes"),
        consumes: strings(o, "consumes"),
        produces: strings(o, "produces"),
        paths: o.get("paths").map(paths),
        definitions: o.get("definitions").map(|d| v2::Definitions { additional_properties: named_schemas(d) }),
        parameters: o.get("parameters").map(|p| v2::ParameterDefinitions {
            additional_properties: obj(p)
                .iter()
                .map(|(name, value)| v2::NamedParameter { name: name.clone(), value: Some(parameter(value)) })
                .collect(),
        }),
        responses: o.get("responses").map(|r| v2::ResponseDefinitions {
            additional_properties: obj(r)
                .iter()
                .map(|(name, value)| v2::NamedResponse { name: name.clone(), value: Some(response(value)) })
                .collect(),
        }),
        security: o.get("security").map(security).unwrap_or_default(),
        security_definitions: None,
        tags: array(o, "tags").iter().map(tag).collect(),
        external_docs: o.get("externalDocs").map(external_docs),
        vendor_extension: extensions(o),
    }
}

static EMPTY: std::sync::LazyLock<Map<String, Value>> = std::sync::LazyLock::new(Map::new);

fn obj(v: &Value) -> &Map<String, Value> {
    v.as_object().unwrap_or(&EMPTY)
}

fn string(o: &Map<String, Value>, key: &str) -> String {
    o.get(key).and_then(Value::as_str).unwrap_or_default().to_string()
}

fn strings(o: &Map<String, Value>, key: &str) -> Vec<String> {
    array(o, key).iter().filter_map(Value::as_str).map(str::to_string).collect()
}

fn array<'a>(o: &'a Map<String, Value>, key: &str) -> &'a [Value] {
    o.get(key).and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default()
}

fn boolean(o: &Map<String, Value>, key: &str) -> bool {
    o.get(key).and_then(Value::as_bool).unwrap_or_default()
}

fn float(o: &Map<String, Value>, key: &str) -> f64 {
    o.get(key).and_then(Value::as_f64).unwrap_or_default()
}

fn int(o: &Map<String, Value>, key: &str) -> i64 {
    o.get(key).and_then(Value::as_i64).unwrap_or_default()
}

/// A free-form value: its YAML, as gnostic keeps it.
fn any(v: &Value) -> v2::Any {
    v2::Any { value: None, yaml: serde_norway::to_string(v).unwrap_or_default() }
}

/// The `x-` keys of an object, in order.
fn extensions(o: &Map<String, Value>) -> Vec<v2::NamedAny> {
    o.iter()
        .filter(|(k, _)| k.starts_with("x-"))
        .map(|(name, value)| v2::NamedAny { name: name.clone(), value: Some(any(value)) })
        .collect()
}

fn info(v: &Value) -> v2::Info {
    let o = obj(v);
    v2::Info {
        title: string(o, "title"),
        version: string(o, "version"),
        description: string(o, "description"),
        terms_of_service: string(o, "termsOfService"),
        contact: o.get("contact").map(|c| {
            let c = obj(c);
            v2::Contact {
                name: string(c, "name"),
                url: string(c, "url"),
                email: string(c, "email"),
                vendor_extension: extensions(c),
            }
        }),
        license: o.get("license").map(|l| {
            let l = obj(l);
            v2::License { name: string(l, "name"), url: string(l, "url"), vendor_extension: extensions(l) }
        }),
        vendor_extension: extensions(o),
    }
}

fn external_docs(v: &Value) -> v2::ExternalDocs {
    let o = obj(v);
    v2::ExternalDocs { description: string(o, "description"), url: string(o, "url"), vendor_extension: extensions(o) }
}

fn tag(v: &Value) -> v2::Tag {
    let o = obj(v);
    v2::Tag {
        name: string(o, "name"),
        description: string(o, "description"),
        external_docs: o.get("externalDocs").map(external_docs),
        vendor_extension: extensions(o),
    }
}

fn security(v: &Value) -> Vec<v2::SecurityRequirement> {
    v.as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|requirement| v2::SecurityRequirement {
            additional_properties: obj(requirement)
                .iter()
                .map(|(name, scopes)| v2::NamedStringArray {
                    name: name.clone(),
                    value: Some(v2::StringArray {
                        value: scopes
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter_map(Value::as_str)
                            .map(str::to_string)
                            .collect(),
                    }),
                })
                .collect(),
        })
        .collect()
}

fn named_schemas(v: &Value) -> Vec<v2::NamedSchema> {
    obj(v).iter().map(|(name, value)| v2::NamedSchema { name: name.clone(), value: Some(schema(value)) }).collect()
}

/// A Schema Object (recursively).
pub fn schema(v: &Value) -> v2::Schema {
    let o = obj(v);
    let type_ = match o.get("type") {
        Some(Value::String(t)) => Some(v2::TypeItem { value: vec![t.clone()] }),
        Some(Value::Array(ts)) => {
            Some(v2::TypeItem { value: ts.iter().filter_map(Value::as_str).map(str::to_string).collect() })
        }
        _ => None,
    };
    let items = match o.get("items") {
        Some(Value::Array(items)) => Some(v2::ItemsItem { schema: items.iter().map(schema).collect() }),
        Some(item @ Value::Object(_)) => Some(v2::ItemsItem { schema: vec![schema(item)] }),
        _ => None,
    };
    let additional_properties = match o.get("additionalProperties") {
        Some(Value::Bool(b)) => {
            Some(v2::AdditionalPropertiesItem { oneof: Some(v2::additional_properties_item::Oneof::Boolean(*b)) })
        }
        Some(s @ Value::Object(_)) => Some(v2::AdditionalPropertiesItem {
            oneof: Some(v2::additional_properties_item::Oneof::Schema(Box::new(schema(s)))),
        }),
        _ => None,
    };
    v2::Schema {
        r#ref: string(o, "$ref"),
        format: string(o, "format"),
        title: string(o, "title"),
        description: string(o, "description"),
        default: o.get("default").map(any),
        multiple_of: float(o, "multipleOf"),
        maximum: float(o, "maximum"),
        exclusive_maximum: boolean(o, "exclusiveMaximum"),
        minimum: float(o, "minimum"),
        exclusive_minimum: boolean(o, "exclusiveMinimum"),
        max_length: int(o, "maxLength"),
        min_length: int(o, "minLength"),
        pattern: string(o, "pattern"),
        max_items: int(o, "maxItems"),
        min_items: int(o, "minItems"),
        unique_items: boolean(o, "uniqueItems"),
        max_properties: int(o, "maxProperties"),
        min_properties: int(o, "minProperties"),
        required: strings(o, "required"),
        r#enum: array(o, "enum").iter().map(any).collect(),
        additional_properties: additional_properties.map(Box::new),
        r#type: type_,
        items,
        all_of: array(o, "allOf").iter().map(schema).collect(),
        properties: o.get("properties").map(|p| v2::Properties { additional_properties: named_schemas(p) }),
        discriminator: string(o, "discriminator"),
        read_only: boolean(o, "readOnly"),
        xml: o.get("xml").map(|x| {
            let x = obj(x);
            v2::Xml {
                name: string(x, "name"),
                namespace: string(x, "namespace"),
                prefix: string(x, "prefix"),
                attribute: boolean(x, "attribute"),
                wrapped: boolean(x, "wrapped"),
                vendor_extension: extensions(x),
            }
        }),
        external_docs: o.get("externalDocs").map(external_docs),
        example: o.get("example").map(any),
        vendor_extension: extensions(o),
    }
}

fn paths(v: &Value) -> v2::Paths {
    let o = obj(v);
    v2::Paths {
        vendor_extension: extensions(o),
        path: o
            .iter()
            .filter(|(k, _)| k.starts_with('/'))
            .map(|(name, item)| v2::NamedPathItem { name: name.clone(), value: Some(path_item(item)) })
            .collect(),
    }
}

fn path_item(v: &Value) -> v2::PathItem {
    let o = obj(v);
    let op = |key: &str| o.get(key).map(operation);
    v2::PathItem {
        r#ref: string(o, "$ref"),
        get: op("get"),
        put: op("put"),
        post: op("post"),
        delete: op("delete"),
        options: op("options"),
        head: op("head"),
        patch: op("patch"),
        parameters: array(o, "parameters").iter().map(parameters_item).collect(),
        vendor_extension: extensions(o),
    }
}

fn operation(v: &Value) -> v2::Operation {
    let o = obj(v);
    v2::Operation {
        tags: strings(o, "tags"),
        summary: string(o, "summary"),
        description: string(o, "description"),
        external_docs: o.get("externalDocs").map(external_docs),
        operation_id: string(o, "operationId"),
        produces: strings(o, "produces"),
        consumes: strings(o, "consumes"),
        parameters: array(o, "parameters").iter().map(parameters_item).collect(),
        responses: o.get("responses").map(|r| {
            let r = obj(r);
            v2::Responses {
                response_code: r
                    .iter()
                    .filter(|(k, _)| !k.starts_with("x-"))
                    .map(|(code, value)| v2::NamedResponseValue {
                        name: code.clone(),
                        value: Some(v2::ResponseValue { oneof: Some(response_value(value)) }),
                    })
                    .collect(),
                vendor_extension: extensions(r),
            }
        }),
        schemes: strings(o, "schemes"),
        deprecated: boolean(o, "deprecated"),
        security: o.get("security").map(security).unwrap_or_default(),
        vendor_extension: extensions(o),
    }
}

fn json_reference(o: &Map<String, Value>) -> v2::JsonReference {
    v2::JsonReference { r#ref: string(o, "$ref"), description: string(o, "description") }
}

fn response_value(v: &Value) -> v2::response_value::Oneof {
    let o = obj(v);
    if o.contains_key("$ref") {
        return v2::response_value::Oneof::JsonReference(json_reference(o));
    }
    v2::response_value::Oneof::Response(response(v))
}

fn response(v: &Value) -> v2::Response {
    let o = obj(v);
    v2::Response {
        description: string(o, "description"),
        schema: o.get("schema").map(|s| {
            let oneof = if obj(s).get("type").and_then(Value::as_str) == Some("file") {
                let f = obj(s);
                v2::schema_item::Oneof::FileSchema(v2::FileSchema {
                    format: string(f, "format"),
                    title: string(f, "title"),
                    description: string(f, "description"),
                    default: f.get("default").map(any),
                    required: strings(f, "required"),
                    r#type: "file".into(),
                    read_only: boolean(f, "readOnly"),
                    external_docs: f.get("externalDocs").map(external_docs),
                    example: f.get("example").map(any),
                    vendor_extension: extensions(f),
                })
            } else {
                v2::schema_item::Oneof::Schema(schema(s))
            };
            v2::SchemaItem { oneof: Some(oneof) }
        }),
        headers: None,
        examples: o.get("examples").map(|e| v2::Examples {
            additional_properties: obj(e)
                .iter()
                .map(|(name, value)| v2::NamedAny { name: name.clone(), value: Some(any(value)) })
                .collect(),
        }),
        vendor_extension: extensions(o),
    }
}

fn parameters_item(v: &Value) -> v2::ParametersItem {
    let o = obj(v);
    let oneof = if o.contains_key("$ref") {
        v2::parameters_item::Oneof::JsonReference(json_reference(o))
    } else {
        v2::parameters_item::Oneof::Parameter(parameter(v))
    };
    v2::ParametersItem { oneof: Some(oneof) }
}

fn primitives_items(v: &Value) -> v2::PrimitivesItems {
    let o = obj(v);
    v2::PrimitivesItems {
        r#type: string(o, "type"),
        format: string(o, "format"),
        items: o.get("items").map(|i| Box::new(primitives_items(i))),
        collection_format: string(o, "collectionFormat"),
        default: o.get("default").map(any),
        maximum: float(o, "maximum"),
        exclusive_maximum: boolean(o, "exclusiveMaximum"),
        minimum: float(o, "minimum"),
        exclusive_minimum: boolean(o, "exclusiveMinimum"),
        max_length: int(o, "maxLength"),
        min_length: int(o, "minLength"),
        pattern: string(o, "pattern"),
        max_items: int(o, "maxItems"),
        min_items: int(o, "minItems"),
        unique_items: boolean(o, "uniqueItems"),
        r#enum: array(o, "enum").iter().map(any).collect(),
        multiple_of: float(o, "multipleOf"),
        vendor_extension: extensions(o),
    }
}

/// A Parameter Object: a body parameter, or one of the four others by `in`.
fn parameter(v: &Value) -> v2::Parameter {
    use v2::non_body_parameter::Oneof as NonBody;
    let o = obj(v);
    let location = string(o, "in");
    if location == "body" {
        return v2::Parameter {
            oneof: Some(v2::parameter::Oneof::BodyParameter(v2::BodyParameter {
                description: string(o, "description"),
                name: string(o, "name"),
                r#in: location,
                required: boolean(o, "required"),
                schema: o.get("schema").map(schema),
                vendor_extension: extensions(o),
            })),
        };
    }
    // The fields every non-body parameter has, in each message's shape.
    macro_rules! sub_schema {
        ($ty:ident { $($extra:tt)* }) => {
            v2::$ty {
                required: boolean(o, "required"),
                r#in: location.clone(),
                description: string(o, "description"),
                name: string(o, "name"),
                r#type: string(o, "type"),
                format: string(o, "format"),
                items: o.get("items").map(primitives_items),
                collection_format: string(o, "collectionFormat"),
                default: o.get("default").map(any),
                maximum: float(o, "maximum"),
                exclusive_maximum: boolean(o, "exclusiveMaximum"),
                minimum: float(o, "minimum"),
                exclusive_minimum: boolean(o, "exclusiveMinimum"),
                max_length: int(o, "maxLength"),
                min_length: int(o, "minLength"),
                pattern: string(o, "pattern"),
                max_items: int(o, "maxItems"),
                min_items: int(o, "minItems"),
                unique_items: boolean(o, "uniqueItems"),
                r#enum: array(o, "enum").iter().map(any).collect(),
                multiple_of: float(o, "multipleOf"),
                vendor_extension: extensions(o),
                $($extra)*
            }
        };
    }
    let non_body = match location.as_str() {
        "header" => NonBody::HeaderParameterSubSchema(sub_schema!(HeaderParameterSubSchema {})),
        "formData" => NonBody::FormDataParameterSubSchema(sub_schema!(FormDataParameterSubSchema {
            allow_empty_value: boolean(o, "allowEmptyValue"),
        })),
        "path" => NonBody::PathParameterSubSchema(sub_schema!(PathParameterSubSchema {})),
        _ => NonBody::QueryParameterSubSchema(sub_schema!(QueryParameterSubSchema {
            allow_empty_value: boolean(o, "allowEmptyValue"),
        })),
    };
    v2::Parameter {
        oneof: Some(v2::parameter::Oneof::NonBodyParameter(v2::NonBodyParameter { oneof: Some(non_body) })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message as _;
    use serde_json::json;

    #[test]
    fn a_document_round_trips_through_protobuf_with_its_extensions() {
        let doc = json!({
            "swagger": "2.0",
            "info": {"title": "t", "version": "1"},
            "paths": {"/apis/x/v1/things/{name}": {"get": {
                "parameters": [{"name": "dryRun", "in": "query", "type": "string", "uniqueItems": true}],
                "responses": {"200": {"description": "OK", "schema": {"$ref": "#/definitions/x.v1.Thing"}}},
                "x-kubernetes-action": "get",
            }}},
            "definitions": {"x.v1.Thing": {
                "type": "object",
                "properties": {"spec": {"type": "object", "additionalProperties": {"type": "integer"}},
                    "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}},
                "x-kubernetes-selectable-fields": [{"fieldPath": "spec.color"}, {"fieldPath": "spec.size"}],
            }},
        });
        let bytes = document(&doc).encode_to_vec();
        let back = v2::Document::decode(bytes.as_slice()).unwrap();
        let thing = &back.definitions.unwrap().additional_properties[0];
        assert_eq!(thing.name, "x.v1.Thing");
        let thing = thing.value.as_ref().unwrap();
        assert_eq!(thing.r#type.as_ref().unwrap().value, vec!["object"]);
        let ext = &thing.vendor_extension[0];
        assert_eq!(ext.name, "x-kubernetes-selectable-fields");
        assert_eq!(ext.value.as_ref().unwrap().yaml, "- fieldPath: spec.color\n- fieldPath: spec.size\n");
        let props = &thing.properties.as_ref().unwrap().additional_properties;
        assert_eq!(props.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["spec", "tags"]);
        let tags = props[1].value.as_ref().unwrap().items.as_ref().unwrap();
        assert_eq!(tags.schema[0].r#enum.iter().map(|a| a.yaml.as_str()).collect::<Vec<_>>(), ["a\n", "b\n"]);
        let path = &back.paths.unwrap().path[0];
        let get = path.value.as_ref().unwrap().get.as_ref().unwrap();
        assert_eq!(get.vendor_extension[0].name, "x-kubernetes-action");
        let Some(v2::parameters_item::Oneof::Parameter(v2::Parameter {
            oneof:
                Some(v2::parameter::Oneof::NonBodyParameter(v2::NonBodyParameter {
                    oneof: Some(v2::non_body_parameter::Oneof::QueryParameterSubSchema(query)),
                })),
        })) = &get.parameters[0].oneof
        else {
            panic!("a query parameter: {:?}", get.parameters[0]);
        };
        assert_eq!((query.name.as_str(), query.r#type.as_str(), query.unique_items), ("dryRun", "string", true));
        assert_eq!(get.responses.as_ref().unwrap().response_code[0].name, "200");
    }
}

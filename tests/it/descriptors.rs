//! `crdstore descriptors`, the set Envoy's `grpc_json_transcoder` takes as
//! its `proto_descriptor` (Envoy itself is not installed here): every method
//! of every crdstore service is in it with its `google.api.http` rule, each
//! rule's path variables and body name fields of the method's request, the
//! imports and the error details are in it once each, with source info.

use std::collections::{BTreeMap, BTreeSet};

use prost::Message as _;
use prost_reflect::{DescriptorPool, DynamicMessage, MessageDescriptor, MethodDescriptor};

fn descriptors() -> Vec<u8> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_crdstore")).arg("descriptors").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

/// A rule's verb and path template, as `GET /v1/...`.
fn pattern(rule: &DynamicMessage) -> String {
    let verbs = ["get", "put", "post", "delete", "patch"];
    let verb = verbs.iter().find(|verb| rule.has_field_by_name(verb)).expect("a rule with a pattern");
    let path = rule.get_field_by_name(verb).unwrap().as_str().unwrap().to_string();
    format!("{} {path}", verb.to_uppercase())
}

/// Whether a dotted field path (`ref.group`) names a field of `message`.
fn has_field(message: &MessageDescriptor, path: &str) -> bool {
    let mut at = message.clone();
    for (i, part) in path.split('.').enumerate() {
        let Some(field) = at.get_field_by_name(part) else { return false };
        match field.kind().as_message() {
            Some(next) => at = next.clone(),
            None => return i == path.split('.').count() - 1,
        }
    }
    false
}

/// Every binding of a method's rule (the rule and its additional bindings),
/// each checked against the request message.
fn bindings(method: &MethodDescriptor, rule: &DynamicMessage) -> Vec<String> {
    let mut all = vec![rule.clone()];
    if let Some(more) = rule.get_field_by_name("additional_bindings") {
        all.extend(more.as_list().unwrap().iter().map(|b| b.as_message().unwrap().clone()));
    }
    let input = method.input();
    all.iter()
        .map(|binding| {
            let pattern = pattern(binding);
            for variable in pattern.split('{').skip(1).map(|rest| rest.split('}').next().unwrap()) {
                assert!(
                    has_field(&input, variable),
                    "{}: {variable} is no field of {}",
                    method.full_name(),
                    input.name()
                );
            }
            let body = binding.get_field_by_name("body").map(|b| b.as_str().unwrap().to_string()).unwrap_or_default();
            assert!(body.is_empty() || body == "*" || has_field(&input, &body), "{}: body {body}", method.full_name());
            if method.is_server_streaming() || pattern.starts_with("GET") || pattern.starts_with("DELETE") {
                assert!(body.is_empty(), "{}: a {pattern} with a body", method.full_name());
            }
            pattern
        })
        .collect()
}

#[test]
fn the_descriptor_set_holds_every_method_with_its_http_rule() {
    let bytes = descriptors();
    let set = prost_types::FileDescriptorSet::decode(&bytes[..]).unwrap();
    let names: Vec<&str> = set.file.iter().map(|f| f.name()).collect();
    let unique: BTreeSet<&str> = names.iter().copied().collect();
    assert_eq!(unique.len(), names.len(), "a file twice in {names:?}");
    for file in [
        "crdstore/v1/resources.proto",
        "crdstore/v1/definitions.proto",
        "crdstore/v1/migrations.proto",
        "crdstore/v1/maintenance.proto",
        "crdstore/v1/common.proto",
        "google/api/annotations.proto",
        "google/api/http.proto",
        "google/protobuf/descriptor.proto",
        "google/rpc/status.proto",
        "google/rpc/error_details.proto",
    ] {
        assert!(unique.contains(file), "no {file} in {names:?}");
    }
    for file in set.file.iter().filter(|f| f.name().starts_with("crdstore/")) {
        let locations = file.source_code_info.as_ref().map_or(0, |info| info.location.len());
        assert!(locations > 0, "{} has no source info", file.name());
    }

    let pool = DescriptorPool::decode(&bytes[..]).unwrap();
    let http = pool.get_extension_by_name("google.api.http").expect("google.api.http in the set");
    let mut rules = BTreeMap::new();
    let services: Vec<_> = pool.services().filter(|s| s.package_name() == "crdstore.v1").collect();
    let service_names: BTreeSet<_> = services.iter().map(|s| s.name().to_string()).collect();
    let expected = ["CustomResourceDefinitions", "CustomResources", "Maintenance", "StorageVersionMigrations"];
    assert_eq!(service_names, expected.iter().map(|s| s.to_string()).collect());
    for method in services.iter().flat_map(|s| s.methods()) {
        let options = method.options();
        assert!(options.has_extension(&http), "{} has no google.api.http rule", method.full_name());
        let rule = options.get_extension(&http);
        rules.insert(method.full_name().to_string(), bindings(&method, rule.as_message().unwrap()));
    }
    assert_eq!(rules.len(), 13 + 8 + 4 + 1);
    // No two methods answer one verb and path.
    let every: Vec<&String> = rules.values().flatten().collect();
    assert_eq!(every.iter().collect::<BTreeSet<_>>().len(), every.len(), "{every:?}");
    let object = "{ref.group}/{ref.version}/namespaces/{ref.namespace}/{ref.resource}/{ref.name}";
    assert_eq!(
        rules["crdstore.v1.CustomResources.Get"],
        [format!("GET /v1/{object}"), "GET /v1/{ref.group}/{ref.version}/{ref.resource}/{ref.name}".into()]
    );
    assert_eq!(
        rules["crdstore.v1.CustomResources.Watch"][0],
        "GET /v1/{ref.group}/{ref.version}/watch/namespaces/{ref.namespace}/{ref.resource}"
    );
    assert_eq!(rules["crdstore.v1.CustomResourceDefinitions.Get"], ["GET /v1/customresourcedefinitions/{name}"]);
}

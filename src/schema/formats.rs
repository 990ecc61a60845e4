//! The `format` values Kubernetes recognizes for CRD schemas, and how each
//! is checked. Formats it does not recognize are accepted (with a warning
//! when the definition is written) and not checked, as Kubernetes does.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

/// Recognized string formats, normalized as go-openapi does (no dashes).
const STRING_FORMATS: &[&str] = &[
    "bsonobjectid",
    "uri",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "cidr",
    "mac",
    "uuid",
    "uuid3",
    "uuid4",
    "uuid5",
    "isbn",
    "isbn10",
    "isbn13",
    "creditcard",
    "ssn",
    "hexcolor",
    "rgbcolor",
    "byte",
    "password",
    "date",
    "duration",
    "datetime",
    "quantity",
    "k8sshortname",
    "k8slongname",
];

/// Whether Kubernetes recognizes `format` on a node of type `type_`.
pub fn recognized(format: &str, type_: Option<&str>) -> bool {
    match type_ {
        None | Some("string") => STRING_FORMATS.contains(&format.replace('-', "").as_str()),
        Some("integer") => matches!(format, "int32" | "int64"),
        Some("number") => matches!(format, "float" | "double"),
        _ => false,
    }
}

fn regex(pattern: &str) -> Regex {
    Regex::new(pattern).expect("format patterns are valid")
}

static UUID: LazyLock<Regex> =
    LazyLock::new(|| regex(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$"));
static UUID3: LazyLock<Regex> =
    LazyLock::new(|| regex(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$"));
static UUID4: LazyLock<Regex> =
    LazyLock::new(|| regex(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$"));
static UUID5: LazyLock<Regex> =
    LazyLock::new(|| regex(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$"));
static HOSTNAME: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"^([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]{0,61}[a-zA-Z0-9])(\.([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]{0,61}[a-zA-Z0-9]))*\.?$",
    )
});
static EMAIL: LazyLock<Regex> = LazyLock::new(|| regex(r"^[^@\s<>]+@[^@\s<>]+$"));
static MAC: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"^([0-9A-Fa-f]{2}[:-]){5}([0-9A-Fa-f]{2})$|^([0-9A-Fa-f]{2}[:-]){7}([0-9A-Fa-f]{2})$|^([0-9A-Fa-f]{4}\.){2}[0-9A-Fa-f]{4}$",
    )
});
static DURATION: LazyLock<Regex> =
    LazyLock::new(|| regex(r"^[-+]?(0|([0-9]+(\.[0-9]*)?|\.[0-9]+) ?(ns|us|µs|ms|s|m|h|d|w))+$|^[-+]?0$"));
static QUANTITY: LazyLock<Regex> = LazyLock::new(|| {
    regex(r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+|Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?$")
});
static URI_SCHEME: LazyLock<Regex> = LazyLock::new(|| regex(r"^[a-zA-Z][a-zA-Z0-9+.-]*:[^\s]*$"));
static HEX_COLOR: LazyLock<Regex> = LazyLock::new(|| regex(r"^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$"));
static RGB_COLOR: LazyLock<Regex> =
    LazyLock::new(|| regex(r"^rgb\(\s*\d{1,3}%?\s*,\s*\d{1,3}%?\s*,\s*\d{1,3}%?\s*\)$"));
static SSN: LazyLock<Regex> = LazyLock::new(|| regex(r"^\d{3}[- ]?\d{2}[- ]?\d{4}$"));
static BSON_OBJECT_ID: LazyLock<Regex> = LazyLock::new(|| regex(r"^[0-9a-fA-F]{24}$"));
static SHORT_NAME: LazyLock<Regex> = LazyLock::new(|| regex(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$"));
static LONG_NAME: LazyLock<Regex> =
    LazyLock::new(|| regex(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"));

/// Whether `value` has `format`; unrecognized formats always pass.
pub fn valid(format: &str, type_: Option<&str>, value: &Value) -> bool {
    match value {
        Value::Number(n) => match format {
            "int32" => n.as_i64().is_some_and(|v| i32::try_from(v).is_ok()),
            "int64" => n.as_i64().is_some(),
            _ => true,
        },
        Value::String(s) if matches!(type_, None | Some("string")) => string(&format.replace('-', ""), s),
        _ => true,
    }
}

fn string(format: &str, s: &str) -> bool {
    match format {
        "datetime" => s.parse::<jiff::Timestamp>().is_ok(),
        "date" => s.parse::<jiff::civil::Date>().is_ok(),
        "uuid" => UUID.is_match(s),
        "uuid3" => UUID3.is_match(s),
        "uuid4" => UUID4.is_match(s),
        "uuid5" => UUID5.is_match(s),
        "ipv4" => s.parse::<std::net::Ipv4Addr>().is_ok(),
        "ipv6" => s.parse::<std::net::Ipv6Addr>().is_ok(),
        "cidr" => s.split_once('/').is_some_and(|(ip, bits)| {
            let max = if ip.contains(':') { 128 } else { 32 };
            ip.parse::<std::net::IpAddr>().is_ok() && bits.parse::<u8>().is_ok_and(|b| b <= max)
        }),
        "mac" => MAC.is_match(s),
        "hostname" => s.len() <= 255 && HOSTNAME.is_match(s),
        "email" => EMAIL.is_match(s),
        "uri" => s.starts_with('/') || URI_SCHEME.is_match(s),
        "duration" => DURATION.is_match(s),
        "quantity" => QUANTITY.is_match(s),
        "byte" => {
            use base64::Engine as _;
            base64::engine::general_purpose::STANDARD.decode(s).is_ok()
        }
        "hexcolor" => HEX_COLOR.is_match(s),
        "rgbcolor" => RGB_COLOR.is_match(s),
        "ssn" => SSN.is_match(s),
        "bsonobjectid" => BSON_OBJECT_ID.is_match(s),
        "k8sshortname" => SHORT_NAME.is_match(s),
        "k8slongname" => s.len() <= 253 && LONG_NAME.is_match(s),
        "isbn" | "isbn10" | "isbn13" | "creditcard" => {
            let digits = s.chars().filter(char::is_ascii_alphanumeric).count();
            match format {
                "isbn10" => digits == 10,
                "isbn13" => digits == 13,
                "isbn" => digits == 10 || digits == 13,
                _ => (12..=19).contains(&digits),
            }
        }
        _ => true,
    }
}

/// Every format below `json` (a schema) that Kubernetes does not
/// recognize, in document order.
pub fn unrecognized(json: &Value) -> Vec<String> {
    let mut found = Vec::new();
    collect(json, &mut found);
    found
}

fn collect(json: &Value, found: &mut Vec<String>) {
    let Some(node) = json.as_object() else { return };
    if let Some(format) = node.get("format").and_then(Value::as_str).filter(|f| !f.is_empty()) {
        if !recognized(format, node.get("type").and_then(Value::as_str).filter(|t| !t.is_empty())) {
            found.push(format.to_string());
        }
    }
    for key in ["items", "additionalProperties", "not"] {
        if let Some(sub) = node.get(key) {
            collect(sub, found);
        }
    }
    for key in ["properties", "patternProperties", "definitions"] {
        for sub in node.get(key).and_then(Value::as_object).into_iter().flat_map(|m| m.values()) {
            collect(sub, found);
        }
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        for sub in node.get(key).and_then(Value::as_array).into_iter().flatten() {
            collect(sub, found);
        }
    }
}

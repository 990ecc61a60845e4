//! Kubernetes' name formats (RFC 1123 subdomains and labels, RFC 1035
//! labels), with Kubernetes' exact error messages, for field errors.

use std::sync::LazyLock;

use regex::Regex;

const DNS1123_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1035_LABEL_FMT: &str = "[a-z]([-a-z0-9]*[a-z0-9])?";

static DNS1123_SUBDOMAIN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!("^{DNS1123_LABEL_FMT}(\\.{DNS1123_LABEL_FMT})*$")).expect("valid regex"));
static DNS1123_LABEL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!("^{DNS1123_LABEL_FMT}$")).expect("valid regex"));
static DNS1035_LABEL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!("^{DNS1035_LABEL_FMT}$")).expect("valid regex"));

fn max_len(len: usize) -> String {
    format!("must be no more than {len} characters")
}

/// Problems with `value` as an RFC 1123 subdomain (object names, groups).
pub fn dns1123_subdomain(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 253 {
        errs.push(max_len(253));
    }
    if !DNS1123_SUBDOMAIN.is_match(value) {
        errs.push(format!(
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must \
             start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is \
             '{DNS1123_LABEL_FMT}(\\.{DNS1123_LABEL_FMT})*')"
        ));
    }
    errs
}

/// Problems with `value` as an RFC 1123 label (namespaces).
pub fn dns1123_label(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push(max_len(63));
    }
    if !DNS1123_LABEL.is_match(value) {
        errs.push(format!(
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start \
             and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is \
             '{DNS1123_LABEL_FMT}')"
        ));
    }
    errs
}

/// Problems with `value` as an RFC 1035 label (resource names, versions).
pub fn dns1035_label(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push(max_len(63));
    }
    if !DNS1035_LABEL.is_match(value) {
        errs.push(format!(
            "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic \
             character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for \
             validation is '{DNS1035_LABEL_FMT}')"
        ));
    }
    errs
}

const QUALIFIED_NAME_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";

static QUALIFIED_NAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!("^{QUALIFIED_NAME_FMT}$")).expect("valid regex"));

/// Problems with `value` as a qualified name (label and annotation keys:
/// an optional DNS-subdomain prefix and `/`, then a name part).
pub fn qualified_name(value: &str) -> Vec<String> {
    let (prefix, name) = match value.split_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, value),
    };
    let mut errs = Vec::new();
    if let Some(prefix) = prefix {
        if prefix.is_empty() {
            errs.push("prefix part must be non-empty".to_string());
        } else {
            errs.extend(dns1123_subdomain(prefix).into_iter().map(|e| format!("prefix part {e}")));
        }
    }
    if name.is_empty() {
        errs.push("name part must be non-empty".to_string());
    } else if name.len() > 63 {
        errs.push(format!("name part {}", max_len(63)));
    }
    if !name.is_empty() && !QUALIFIED_NAME.is_match(name) {
        errs.push(format!(
            "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an \
             alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is \
             '{QUALIFIED_NAME_FMT}')"
        ));
    }
    errs
}

/// Problems with `value` as a label value (empty is valid).
pub fn label_value(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push(max_len(63));
    }
    if !value.is_empty() && !QUALIFIED_NAME.is_match(value) {
        errs.push(format!(
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must \
             start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used \
             for validation is '({QUALIFIED_NAME_FMT})?')"
        ));
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_follow_kubernetes() {
        assert!(dns1123_subdomain("crontabs.stable.example.com").is_empty());
        assert!(!dns1123_subdomain("Has_Upper").is_empty());
        assert_eq!(dns1123_subdomain(&"a".repeat(254)).len(), 1);
        assert!(dns1035_label("v1beta1").is_empty());
        assert!(!dns1035_label("1v").is_empty());
        assert!(dns1123_label("1ns").is_empty());
        assert!(qualified_name("example.com/team").is_empty());
        assert_eq!(qualified_name("bad key").len(), 1);
        assert!(!qualified_name("Bad_Prefix/x").is_empty());
        assert!(label_value("").is_empty() && label_value("a.b-c_d").is_empty());
        assert!(!label_value("-x").is_empty());
    }
}

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
    }
}

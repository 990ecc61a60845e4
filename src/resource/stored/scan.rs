//! Where an object's top-level `apiVersion`, `kind` and `metadata` values
//! are, read from its bytes by their structure alone: strings are skipped
//! with `memchr` and nothing is decoded. Made for the compact JSON the
//! store writes (a splice's input); anything else it meets (whitespace, a
//! key with an escape, a byte JSON does not allow there, nesting deeper
//! than it tracks) stops it, and serde's reader answers instead. Every get,
//! list item and watch event of a marked object starts here.

use super::Spans;

/// How deep the scan follows nested objects and arrays.
const DEPTH: u32 = 64;

/// The spans serde's `SpansVisitor` finds in `json`: each of the three
/// members' first value, up to the point where all three are found (or
/// the object's end); None when the scan cannot tell.
pub(super) fn spans(json: &[u8]) -> Option<Spans> {
    let mut spans = Spans::default();
    if json.first() != Some(&b'{') {
        return None;
    }
    let mut at = 1;
    if json.get(at) == Some(&b'}') {
        return Some(spans);
    }
    loop {
        if json.get(at) != Some(&b'"') {
            return None;
        }
        let (end, escaped) = string_end(json, at)?;
        if escaped {
            return None;
        }
        let key = &json[at + 1..end - 1];
        at = end;
        if json.get(at) != Some(&b':') {
            return None;
        }
        let start = at + 1;
        at = value_end(json, start)?;
        let slot = match key {
            b"apiVersion" => Some(&mut spans.api_version),
            b"kind" => Some(&mut spans.kind),
            b"metadata" => Some(&mut spans.metadata),
            _ => None,
        };
        if let Some(slot) = slot {
            slot.get_or_insert(start..at);
            if spans.complete() {
                return Some(spans);
            }
        }
        match json.get(at) {
            Some(b',') => at += 1,
            Some(b'}') => return Some(spans),
            _ => return None,
        }
    }
}

/// Where the string whose opening quote is at `at` ends (the index after
/// its closing quote), and whether it holds an escape.
fn string_end(json: &[u8], at: usize) -> Option<(usize, bool)> {
    let mut from = at + 1;
    let mut escaped = false;
    loop {
        let found = from + memchr::memchr2(b'"', b'\\', json.get(from..)?)?;
        if json[found] == b'"' {
            return Some((found + 1, escaped));
        }
        escaped = true;
        from = found + 2;
    }
}

/// Where the value starting at `at` ends.
fn value_end(json: &[u8], at: usize) -> Option<usize> {
    match *json.get(at)? {
        b'"' => string_end(json, at).map(|(end, _)| end),
        b'{' | b'[' => container_end(json, at),
        _ => {
            let len = json[at..].iter().position(|&b| !scalar_byte(b)).unwrap_or(json.len() - at);
            (len > 0).then_some(at + len)
        }
    }
}

/// A byte of a number, `true`, `false` or `null`.
fn scalar_byte(b: u8) -> bool {
    matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E' | b'a' | b'f' | b'l' | b'n' | b'r' | b's' | b't' | b'u')
}

/// Where the object or array starting at `at` ends: its brackets matched
/// (the open ones kept as bits, 1 for an object), its strings skipped.
fn container_end(json: &[u8], at: usize) -> Option<usize> {
    let (mut open, mut depth) = (0u64, 0u32);
    let mut i = at;
    loop {
        match *json.get(i)? {
            b'"' => {
                i = string_end(json, i)?.0;
                continue;
            }
            b @ (b'{' | b'[') => {
                if depth == DEPTH {
                    return None;
                }
                open = (open << 1) | u64::from(b == b'{');
                depth += 1;
            }
            b @ (b'}' | b']') => {
                if depth == 0 || (open & 1 == 1) != (b == b'}') {
                    return None;
                }
                open >>= 1;
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            b',' | b':' => {}
            b if scalar_byte(b) => {}
            _ => return None,
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{json, Value};

    use super::*;

    /// What serde's visitor finds.
    fn serde_spans(json: &[u8]) -> Option<Spans> {
        super::super::serde_spans(json)
    }

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            (-1e12f64..1e12).prop_map(Value::from),
            "[a-z\"\\\\/ é\u{1F600}\u{0}-\u{1f}\\]\\[{}:,]{0,12}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 32, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::vec(("[a-z\"\\\\]{0,4}", inner), 0..4)
                    .prop_map(|members| Value::Object(members.into_iter().collect())),
            ]
        })
    }

    fn key() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("apiVersion".to_string()),
            Just("kind".to_string()),
            Just("metadata".to_string()),
            "[a-zA-Z\"]{0,10}",
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        /// Over the compact JSON serde writes, the scan finds what serde's
        /// reader finds, wherever the members are and whatever the values.
        #[test]
        fn the_scan_finds_what_serde_finds(members in proptest::collection::vec((key(), value()), 0..8)) {
            let object = Value::Object(members.into_iter().collect());
            let json = serde_json::to_vec(&object).unwrap();
            let scanned = spans(&json);
            let escaped_key = object.as_object().unwrap().keys().any(|k| k.contains('"'));
            if !escaped_key {
                prop_assert!(scanned.is_some(), "{}", String::from_utf8_lossy(&json));
            }
            if let Some(scanned) = scanned {
                prop_assert_eq!(scanned, serde_spans(&json).unwrap());
            }
        }
    }

    #[test]
    fn what_it_cannot_tell_it_leaves_to_serde() {
        let deep = format!("{{\"metadata\":{}{}}}", "[".repeat(65), "]".repeat(65));
        for text in [
            r#"{ "apiVersion":"v","kind":"K","metadata":{}}"#,
            r#"{"apiVersion": "v","kind":"K","metadata":{}}"#,
            r#"{"api\u0056ersion":"v","kind":"K","metadata":{}}"#,
            r#"{"apiVersion":"v","kind":"K","metadata":{"a":[1}]}"#,
            r#"{"apiVersion":"v","kind":"K","metadata":{"a":x}}"#,
            r#"{"apiVersion":"v","kind":"K","metadata":{"a":"unterminated}"#,
            r#"["apiVersion"]"#,
            deep.as_str(),
        ] {
            assert_eq!(spans(text.as_bytes()), None, "{text}");
        }
        // What it does tell, with serde: the first of each, up to the last.
        let json =
            br#"{"kind":"K","a":{"kind":[{"x":"\"}"}]},"metadata":{"n":-1.5e3},"apiVersion":"v","kind":"L","z":"#;
        let found = spans(json).unwrap();
        assert_eq!(found, serde_spans(json).unwrap());
        assert_eq!(&json[found.kind.unwrap()], b"\"K\"");
        assert_eq!(&json[found.metadata.unwrap()], br#"{"n":-1.5e3}"#);
        let json = serde_json::to_vec(&json!({"kind": "K", "metadata": {"deep": [[[[{}]]]]}})).unwrap();
        let found = spans(&json).unwrap();
        assert_eq!((found.api_version.clone(), found.clone()), (None, serde_spans(&json).unwrap()));
    }
}

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
    use serde_json::json;

    use super::*;

    /// What serde's visitor finds.
    fn serde_spans(json: &[u8]) -> Option<Spans> {
        super::super::serde_spans(json)
    }

    // Over generated objects the splice the scan serves is held to the
    // `Value` path (tests/fuzz.rs, `a_splice_is_the_value_paths_bytes`);
    // since anything the scan gives up on is read by serde, that does not
    // see a scan that gives up where it need not: this does.
    #[test]
    fn over_compact_json_the_scan_finds_what_serde_finds() {
        let values = [
            json!(null),
            json!(true),
            json!(-12.5e-3),
            json!(u64::MAX),
            json!("plain"),
            json!("q\"u\\o}t]e{d[,:"),
            json!("\u{0}\u{1f}é😀\\"),
            json!(""),
            json!([]),
            json!({}),
            json!([1, "a\"]", {"k": [null, {"z": "\\"}]}]),
            json!({"a": {"b": {"c": ["}", "]"]}}, "d": false}),
        ];
        let mut checked = 0;
        for v in &values {
            for object in [
                json!({"apiVersion": v, "kind": v, "metadata": {"m": v, "n": [v, v]}}),
                json!({"x": v, "metadata": {"a": {"b": v}}, "y": [v], "kind": "K", "apiVersion": "g/v1", "z": v}),
                json!({"kind": [v], "apiVersion": {"v": v}, "spec": v}),
                json!({"s": v}),
            ] {
                let json = serde_json::to_vec(&object).unwrap();
                let scanned = spans(&json).unwrap_or_else(|| panic!("{}", String::from_utf8_lossy(&json)));
                assert_eq!(scanned, serde_spans(&json).unwrap(), "{}", String::from_utf8_lossy(&json));
                checked += 1;
            }
        }
        assert_eq!(checked, 48);
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

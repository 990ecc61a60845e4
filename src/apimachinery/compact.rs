//! Compact JSON, as serde_json writes it and the store keeps it, read by
//! its structure alone: strings are skipped with `memchr` and nothing is
//! decoded. What a reader here cannot be sure of (whitespace, a key with
//! an escape, a byte JSON does not allow there, nesting deeper than it
//! tracks) makes it answer None, and the caller reads with serde instead.
//! It trusts the bytes to be JSON: it finds where values are, it does not
//! check them (a value it hands over is the store's own, checked when
//! written), so a caller that decodes one must still handle an error.

use std::ops::Range;

/// How deep a value's objects and arrays are followed.
const DEPTH: u32 = 64;

/// Reads the members of the object `json` in order, handing `each` the
/// span of a member's key (without its quotes, so on the character
/// boundaries of a `str`) and of its value, until `each` answers false or
/// the object ends. None when the scan cannot tell (what it handed over
/// before is then not to be trusted either).
pub fn members(json: &[u8], mut each: impl FnMut(Range<usize>, Range<usize>) -> bool) -> Option<()> {
    if json.first() != Some(&b'{') {
        return None;
    }
    let mut at = 1;
    if json.get(at) == Some(&b'}') {
        return (json.len() == 2).then_some(());
    }
    loop {
        if json.get(at) != Some(&b'"') {
            return None;
        }
        let (end, escaped) = string_end(json, at)?;
        if escaped {
            return None;
        }
        let key = at + 1..end - 1;
        if json.get(end) != Some(&b':') {
            return None;
        }
        let start = end + 1;
        at = value_end(json, start)?;
        if !each(key, start..at) {
            return Some(());
        }
        match json.get(at) {
            Some(b',') => at += 1,
            Some(b'}') if at + 1 == json.len() => return Some(()),
            _ => return None,
        }
    }
}

/// Reads the items of the array `json` in order, handing `each` the span
/// of each. None when the scan cannot tell.
pub fn items(json: &[u8], mut each: impl FnMut(Range<usize>)) -> Option<()> {
    if json.first() != Some(&b'[') {
        return None;
    }
    let mut at = 1;
    if json.get(at) == Some(&b']') {
        return (json.len() == 2).then_some(());
    }
    loop {
        let start = at;
        at = value_end(json, start)?;
        each(start..at);
        match json.get(at) {
            Some(b',') => at += 1,
            Some(b']') if at + 1 == json.len() => return Some(()),
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

/// Values of every kind, with what a scan must get right inside strings
/// (quotes, backslashes, brackets, control characters): the fixtures of
/// the tests of every reader over compact JSON.
#[cfg(test)]
pub fn tricky_values() -> Vec<serde_json::Value> {
    use serde_json::json;
    vec![
        json!(null),
        json!(true),
        json!(false),
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
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn members_of(json: &[u8]) -> Option<Vec<(String, String)>> {
        let mut found = Vec::new();
        members(json, |key, span| {
            found.push((
                String::from_utf8_lossy(&json[key]).into_owned(),
                String::from_utf8_lossy(&json[span]).into_owned(),
            ));
            true
        })?;
        Some(found)
    }

    fn items_of(json: &[u8]) -> Option<Vec<String>> {
        let mut found = Vec::new();
        items(json, |span| found.push(String::from_utf8_lossy(&json[span]).into_owned()))?;
        Some(found)
    }

    /// Over compact JSON with every kind of value, the members and items
    /// are exactly what serde's reader gives, value for value.
    #[test]
    fn members_and_items_are_what_serde_reads() {
        let values = tricky_values();
        let object =
            serde_json::Value::Object(values.iter().enumerate().map(|(i, v)| (format!("m{i}"), v.clone())).collect());
        let json = serde_json::to_vec(&object).unwrap();
        let found = members_of(&json).expect("the scan reads compact JSON");
        let expected: Vec<(String, String)> =
            object.as_object().unwrap().iter().map(|(k, v)| (k.clone(), serde_json::to_string(v).unwrap())).collect();
        assert_eq!(found, expected);
        let array = serde_json::Value::Array(values.to_vec());
        let json = serde_json::to_vec(&array).unwrap();
        let found = items_of(&json).expect("the scan reads compact JSON");
        let expected: Vec<String> = values.iter().map(|v| serde_json::to_string(v).unwrap()).collect();
        assert_eq!(found, expected);
        assert_eq!(members_of(b"{}"), Some(Vec::new()));
        assert_eq!(items_of(b"[]"), Some(Vec::new()));
    }

    /// A member stops the read when `each` says so: what follows is not
    /// looked at.
    #[test]
    fn a_read_stops_where_it_is_told() {
        let json = br#"{"a":1,"b":2,"c":"#;
        let mut seen = Vec::new();
        assert_eq!(
            members(json, |key, _| {
                seen.push(json[key.clone()].to_vec());
                &json[key] != b"b"
            }),
            Some(())
        );
        assert_eq!(seen, [b"a".to_vec(), b"b".to_vec()]);
    }

    #[test]
    fn what_it_cannot_tell_it_says() {
        let deep = format!("{{\"a\":{}{}}}", "[".repeat(65), "]".repeat(65));
        for text in [
            r#"{ "a":1}"#,
            r#"{"a": 1}"#,
            r#"{"\u0061":1}"#,
            r#"{"a":[1}]}"#,
            r#"{"a":x}"#,
            r#"{"a":"unterminated}"#,
            r#"{"a":1}{"#,
            r#"{"a":1"#,
            r#"{}x"#,
            r#"["a"]"#,
            deep.as_str(),
        ] {
            assert_eq!(members_of(text.as_bytes()), None, "{text}");
        }
        for text in ["[1 ]", "[1,", "[1]]", "[]x", "{}", "[\"a]"] {
            assert_eq!(items_of(text.as_bytes()), None, "{text}");
        }
    }
}

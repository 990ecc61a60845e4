//! Where an object's top-level `apiVersion`, `kind` and `metadata` values
//! are, read from its bytes by their structure alone (`compact::members`):
//! strings are skipped with `memchr` and nothing is decoded. Made for the
//! compact JSON the store writes (a splice's input); anything else stops
//! it, and serde's reader answers instead. Every get, list item and watch
//! event of a marked object starts here.

use super::spans::Spans;
use crate::apimachinery::compact;

/// The spans serde's `SpansVisitor` finds in `json`: each of the three
/// members' first value, up to the point where all three are found (or
/// the object's end); None when the scan cannot tell.
pub(super) fn spans(json: &[u8]) -> Option<Spans> {
    let mut spans = Spans::default();
    compact::members(json, |key, span| {
        let slot = match &json[key] {
            b"apiVersion" => &mut spans.api_version,
            b"kind" => &mut spans.kind,
            b"metadata" => &mut spans.metadata,
            _ => return true,
        };
        slot.get_or_insert(span);
        !spans.complete()
    })?;
    Some(spans)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// What serde's visitor finds.
    fn serde_spans(json: &[u8]) -> Option<Spans> {
        super::super::spans::serde_spans(json)
    }

    // Over generated objects the splice the scan serves is held to the
    // `Value` path (tests/fuzz.rs, `a_splice_is_the_value_paths_bytes`);
    // since anything the scan gives up on is read by serde, that does not
    // see a scan that gives up where it need not: this does.
    #[test]
    fn over_compact_json_the_scan_finds_what_serde_finds() {
        let values = crate::apimachinery::compact::tricky_values();
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
        assert_eq!(checked, 52);
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

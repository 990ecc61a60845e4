//! Where the rules reach into an object, as a tree of member names, and
//! the parse that follows it: an object's JSON is scanned once, the
//! objects on the rules' paths parsed into members as the scan meets them
//! and every other value kept as the bytes it was (`Node::Raw`). Compact
//! JSON (the store's) is scanned by its structure (`compact`), anything
//! else by serde's reader, to the same tree. Reaching into a raw object
//! later (`Node::members`) would scan its bytes again.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::Value;

use crate::apimachinery::compact;
use crate::conversion::raw::Key;

/// A JSON value, parsed only where it was reached into.
#[derive(Debug)]
pub enum Node<'a> {
    /// Untouched bytes of the object's own JSON, where the compact scan or
    /// serde's reader found them.
    Raw(&'a str),
    /// An object reached into: its members in order.
    Object(Vec<(Cow<'a, str>, Node<'a>)>),
    /// A value a rule made.
    Value(Value),
    /// A value made once for a page part and shared by its objects (a CEL
    /// rule's outcome kept in the `Memo`, an apiVersion), with its JSON.
    Shared(Arc<Computed>),
}

/// A value and its compact JSON, written once: read back as the value
/// itself, never parsed from the JSON (so a number is the one computed).
#[derive(Debug, PartialEq)]
pub struct Computed {
    pub value: Value,
    pub json: Box<str>,
}

impl Computed {
    pub fn new(value: Value) -> Arc<Self> {
        let json = value.to_string().into_boxed_str();
        Arc::new(Self { value, json })
    }
}

/// The members of an object, in order.
pub type Members<'a> = Vec<(Cow<'a, str>, Node<'a>)>;

/// The members a parse descends into, each with what it descends into
/// below it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Shape(Vec<(String, Shape)>);

impl Shape {
    /// Descends along `segments` too.
    pub fn add(&mut self, segments: &[String]) {
        let Some((first, rest)) = segments.split_first() else { return };
        let at = match self.0.iter().position(|(name, _)| name == first) {
            Some(at) => at,
            None => {
                self.0.push((first.clone(), Shape::default()));
                self.0.len() - 1
            }
        };
        self.0[at].1.add(rest);
    }

    fn child(&self, name: &str) -> Option<&Shape> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, shape)| shape)
    }

    /// The object `json` is, parsed where this shape descends; None when
    /// it is not an object, or not JSON where serde's reader reads it. The
    /// scan takes compact bytes to be JSON (the store wrote them with
    /// serde_json), so a value it keeps raw is checked only when decoded.
    pub fn parse<'a>(&self, json: &'a str) -> Option<Node<'a>> {
        self.scan(json).or_else(|| self.parse_with_serde(json))
    }

    /// `parse` by serde's reader, which checks the JSON it reads.
    fn parse_with_serde<'a>(&self, json: &'a str) -> Option<Node<'a>> {
        let mut deserializer = serde_json::Deserializer::from_str(json);
        let node = self.deserialize(&mut deserializer).ok()?;
        deserializer.end().ok()?;
        matches!(node, Node::Object(_)).then_some(node)
    }

    /// `parse` of compact JSON by its structure: the tree serde's reader
    /// gives, or None when the scan cannot tell.
    fn scan<'a>(&self, json: &'a str) -> Option<Node<'a>> {
        let mut members = Vec::with_capacity(8);
        let mut read = true;
        compact::members(json.as_bytes(), |key, span| {
            let member = match (json.get(key), json.get(span)) {
                (Some(key), Some(value)) => match self.child(key) {
                    None => Some((key, Node::Raw(value))),
                    Some(below) if value.starts_with('{') => below.scan(value).map(|node| (key, node)),
                    // A value on the path that is not an object (rare),
                    // parsed, as the serde visitor parses it.
                    Some(_) => serde_json::from_str(value).ok().map(|value| (key, Node::Value(value))),
                },
                _ => None,
            };
            match member {
                Some((key, node)) => members.push((Cow::Borrowed(key), node)),
                None => read = false,
            }
            read
        })?;
        read.then_some(Node::Object(members))
    }
}

impl<'de> DeserializeSeed<'de> for &Shape {
    type Value = Node<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Node<'de>, D::Error> {
        deserializer.deserialize_any(ShapeVisitor(self))
    }
}

/// A value on a shape's path: an object is parsed into members, anything
/// else (rare there) becomes a value.
struct ShapeVisitor<'s>(&'s Shape);

impl<'de> Visitor<'de> for ShapeVisitor<'_> {
    type Value = Node<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node<'de>, A::Error> {
        let mut members = Vec::with_capacity(map.size_hint().unwrap_or(8));
        while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
            let node = match self.0.child(&key) {
                Some(below) => map.next_value_seed(below)?,
                None => Node::Raw(map.next_value::<&'de RawValue>()?.get()),
            };
            members.push((key, node));
        }
        Ok(Node::Object(members))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node<'de>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(4));
        while let Some(item) = seq.next_element::<Value>()? {
            items.push(item);
        }
        Ok(Node::Value(Value::Array(items)))
    }

    fn visit_bool<E>(self, v: bool) -> Result<Node<'de>, E> {
        Ok(Node::Value(Value::Bool(v)))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Node<'de>, E> {
        Ok(Node::Value(Value::from(v)))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Node<'de>, E> {
        Ok(Node::Value(Value::from(v)))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Node<'de>, E> {
        Ok(Node::Value(Value::from(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Node<'de>, E> {
        Ok(Node::Value(Value::String(v.to_string())))
    }

    fn visit_unit<E>(self) -> Result<Node<'de>, E> {
        Ok(Node::Value(Value::Null))
    }
}

/// A key as `Node::write` writes it: as it was read when it was read
/// without escapes (so it needs none), else escaped.
#[allow(clippy::ptr_arg, reason = "whether the key is borrowed is what decides")]
pub fn write_key(key: &Cow<'_, str>, out: &mut Vec<u8>) {
    match key {
        Cow::Borrowed(key) => {
            out.push(b'"');
            out.extend_from_slice(key.as_bytes());
            out.push(b'"');
        }
        Cow::Owned(key) => serde_json::to_writer(&mut *out, key).expect("strings serialize"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn shape(paths: &[&[&str]]) -> Shape {
        let mut shape = Shape::default();
        for path in paths {
            shape.add(&path.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        }
        shape
    }

    #[test]
    fn a_parse_descends_only_along_the_shape_and_writes_the_same_bytes() {
        let json = r#"{"apiVersion":"g/v1","metadata":{"name":"a","labels":{"x":"y"}},"spec":{"a":{"b":[1,{"c":2}],"d":"e\u0000"},"f":1.5,"g":null,"h":true},"status":{"i":{}}}"#;
        let node = shape(&[&["metadata"], &["spec", "a", "b"], &["spec", "f", "z"]]).parse(json).expect("an object");
        let Node::Object(top) = &node else { panic!("{node:?}") };
        let kinds: Vec<(&str, &str)> = top
            .iter()
            .map(|(k, v)| {
                (
                    k.as_ref(),
                    match v {
                        Node::Raw(_) => "raw",
                        Node::Object(_) => "object",
                        Node::Value(_) | Node::Shared(_) => "value",
                    },
                )
            })
            .collect();
        assert_eq!(kinds, [("apiVersion", "raw"), ("metadata", "object"), ("spec", "object"), ("status", "raw")]);
        let Node::Object(spec) = &top[2].1 else { panic!() };
        assert!(
            matches!(&spec[0].1, Node::Object(a) if matches!(a[0].1, Node::Value(Value::Array(_))) && matches!(a[1].1, Node::Raw(_)))
        );
        assert!(matches!(&spec[1].1, Node::Value(v) if *v == serde_json::json!(1.5)));
        let mut out = Vec::new();
        node.write(&mut out);
        assert_eq!(String::from_utf8(out).unwrap(), json);
        let value: Value = serde_json::from_str(json).unwrap();
        assert_eq!(node.into_value(), Some(value));
    }

    /// Over compact JSON the scan gives exactly the tree serde's reader
    /// gives (members, their order, which are parsed, the raw bytes kept);
    /// what it cannot tell, serde's reader reads.
    #[test]
    fn the_scan_gives_the_tree_serdes_reader_gives() {
        let shape = shape(&[&["metadata"], &["spec", "a", "b"], &["spec", "f", "z"], &["status"]]);
        let tree = |node: Option<Node>| format!("{:?}", node.expect("an object"));
        let mut values = crate::apimachinery::compact::tricky_values();
        values.push(json!({"b": [{"c": 2}], "x": {"y": "}"}}));
        let mut scanned = 0;
        for v in &values {
            for object in [
                json!({"apiVersion": "g/v1", "metadata": {"name": v}, "spec": {"a": {"b": v, "d": v}, "f": v}, "status": v}),
                json!({"spec": v, "metadata": v, "other": {"spec": v}}),
                json!({"spec": {"a": v, "f": {"z": v}}, "z": [v]}),
            ] {
                let json = serde_json::to_string(&object).unwrap();
                let expected = tree(shape.parse_with_serde(&json));
                assert_eq!(tree(shape.scan(&json)), expected, "{json}");
                assert_eq!(tree(shape.parse(&json)), expected, "{json}");
                scanned += 1;
            }
        }
        assert_eq!(scanned, 42);
        for text in [
            r#"{"spec":{"a":1},"spec":{"a":2}}"#,
            r#"{"spec": {"a":1}}"#,
            r#"{"spec":{"\u0061":{"b":1}}}"#,
            r#"{"status":{"x":1 }}"#,
        ] {
            let expected = tree(shape.parse_with_serde(text));
            assert_eq!(shape.scan(text).is_some(), text.starts_with(r#"{"spec":{"a":1},"#), "{text}");
            assert_eq!(tree(shape.parse(text)), expected, "{text}");
        }
    }

    #[test]
    fn a_key_with_escapes_is_written_escaped_and_anything_but_an_object_is_refused() {
        let json = r#"{"a\"b":{"c":1},"d\u00e9":2}"#;
        let node = shape(&[&["a\"b"]]).parse(json).expect("an object");
        let mut out = Vec::new();
        node.write(&mut out);
        assert_eq!(String::from_utf8(out).unwrap(), r#"{"a\"b":{"c":1},"dé":2}"#);
        for bad in ["[1]", "\"s\"", "{\"a\":", "{} {}", "{\"a\":1,}"] {
            assert!(Shape::default().parse(bad).is_none(), "{bad}");
        }
    }
}

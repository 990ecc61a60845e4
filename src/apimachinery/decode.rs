//! Decoding request bodies while noticing duplicate fields, which
//! serde_json silently resolves to the last value: `fieldValidation=Strict`
//! refuses them and `Warn` reports them, as Kubernetes' strict decoder does.

use std::cell::RefCell;
use std::fmt;

use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::meta;
use super::options::FieldValidation;
use super::Path;
use crate::error::{Error, Result};

/// What `fieldValidation` makes of the problems a body's decoding found
/// (`duplicate field "a"`, `unknown field "b"`), as Kubernetes' strict
/// decoder: `Strict` refuses the body naming them all, `Warn` returns them
/// as warnings, `Ignore` drops them.
pub fn field_validation(problems: Vec<String>, validation: FieldValidation) -> Result<Vec<String>> {
    match validation {
        FieldValidation::Strict if !problems.is_empty() => {
            Err(Error::bad_request(format!("strict decoding error: {}", problems.join(", "))))
        }
        FieldValidation::Strict | FieldValidation::Ignore => Ok(Vec::new()),
        FieldValidation::Warn => Ok(problems),
    }
}

/// The problem each duplicate field is, in Kubernetes' words.
pub fn duplicate_fields(paths: &[String]) -> Vec<String> {
    paths.iter().map(|path| format!("duplicate field {}", crate::error::quoted(path))).collect()
}

/// Parses a request body into a JSON object, refusing oversized bodies and
/// anything that is not an object; also returns the paths of fields the
/// body repeats (for `fieldValidation`).
pub fn object(body: &[u8]) -> Result<(Value, Vec<String>)> {
    meta::check_body_size(body)?;
    let (value, duplicates) =
        parse(body).map_err(|e| Error::bad_request(format!("the request body is not valid JSON: {e}")))?;
    if !value.is_object() {
        return Err(Error::bad_request("the request body must be a JSON object"));
    }
    Ok((value, duplicates))
}

/// The object for one attempt of a write whose `body` decoded (`object`)
/// to `first`: the first attempt takes it as it is, and a later one (rare:
/// a concurrent change made the write try again) decodes `body` afresh,
/// so no attempt copies it.
pub fn for_attempt(first: &mut Option<Value>, body: &[u8]) -> Result<Value> {
    match first.take() {
        Some(obj) => Ok(obj),
        None => Ok(object(body)?.0),
    }
}

/// Parses `body` as JSON; also returns the path of every field that
/// appeared twice in its object (the last value wins).
pub fn parse(body: &[u8]) -> serde_json::Result<(Value, Vec<String>)> {
    let duplicates = RefCell::new(Vec::new());
    let mut de = serde_json::Deserializer::from_slice(body);
    let value = Seed { at: Path::Base(""), duplicates: &duplicates }.deserialize(&mut de)?;
    de.end()?;
    Ok((value, duplicates.into_inner()))
}

struct Seed<'p, 'd> {
    at: Path<'p>,
    duplicates: &'d RefCell<Vec<String>>,
}

impl<'de> DeserializeSeed<'de> for Seed<'_, '_> {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Seed<'_, '_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        loop {
            let at = self.at.index(items.len());
            match seq.next_element_seed(Seed { at, duplicates: self.duplicates })? {
                Some(item) => items.push(item),
                None => return Ok(Value::Array(items)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let at = self.at.field(&key);
            let value = map.next_value_seed(Seed { at, duplicates: self.duplicates })?;
            if out.contains_key(&key) {
                self.duplicates.borrow_mut().push(at.to_string());
            }
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_are_found_at_their_paths_and_the_last_value_wins() {
        let body = br#"{"a": 1, "spec": {"x": 1, "list": [{"k": 1, "k": 2}], "x": 3}, "a": 2}"#;
        let (value, duplicates) = parse(body).unwrap();
        assert_eq!(value, serde_json::json!({"a": 2, "spec": {"x": 3, "list": [{"k": 2}]}}));
        assert_eq!(duplicates, ["spec.list[0].k", "spec.x", "a"]);
        assert!(parse(br#"{"a": 1} x"#).is_err());
        assert_eq!(parse(br#"{"n": 1.5, "big": 18446744073709551615}"#).unwrap().0["big"], u64::MAX);
    }
}

//! The paths of the declarative conversion: the rules' field paths
//! (`.spec.a.b`, object fields only) and the JSON Pointers (RFC 6901) of
//! the round-trip annotation, which also reach into lists.

use serde_json::{Map, Value};

/// A rule's field path, as its segments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldPath(pub Vec<String>);

/// The top-level fields no rule may touch: they are the object's identity
/// and the server's, the same at every version.
pub const RESERVED: &[&str] = &["apiVersion", "kind", "metadata"];

impl FieldPath {
    /// Parses `.a.b.c`. The error says what is wrong.
    pub fn parse(text: &str) -> Result<Self, String> {
        let Some(rest) = text.strip_prefix('.') else {
            return Err("must be a field path starting with '.', such as .spec.field".into());
        };
        let segments: Vec<String> = rest.split('.').map(String::from).collect();
        if segments.iter().any(String::is_empty) {
            return Err("must not have an empty segment".into());
        }
        if segments.iter().any(|s| s.contains(['[', ']'])) {
            return Err("must name fields of objects, not items of lists".into());
        }
        if RESERVED.contains(&segments[0].as_str()) {
            return Err(format!("must not be under .{}, which every version shares", segments[0]));
        }
        Ok(Self(segments))
    }

    /// Whether one path is the other or lies under it.
    pub fn overlaps(&self, other: &FieldPath) -> bool {
        let n = self.0.len().min(other.0.len());
        self.0[..n] == other.0[..n]
    }

    /// The JSON Pointer of the path.
    pub fn pointer(&self) -> String {
        let mut out = String::new();
        for segment in &self.0 {
            push_token(&mut out, segment);
        }
        out
    }

    /// The value at the path.
    pub fn get<'v>(&self, value: &'v Value) -> Option<&'v Value> {
        self.0.iter().try_fold(value, |v, s| v.as_object()?.get(s))
    }

    /// Removes and returns the value at the path, then removes the parent
    /// objects that removing it left empty: a move leaves nothing behind.
    pub fn take(&self, value: &mut Value) -> Option<Value> {
        take_at(value, &self.0)
    }

    /// Whether every parent of the path is an object (the field could be
    /// set without creating one).
    pub fn parent_exists(&self, value: &Value) -> bool {
        let parents = &self.0[..self.0.len() - 1];
        parents.iter().try_fold(value, |v, s| v.as_object()?.get(s)).is_some_and(Value::is_object)
    }

    /// Removes and returns the value at the path, leaving its parents as
    /// they are (even empty).
    pub fn remove(&self, value: &mut Value) -> Option<Value> {
        let (last, parents) = self.0.split_last()?;
        let parent = parents.iter().try_fold(value, |v, s| v.as_object_mut()?.get_mut(s))?;
        parent.as_object_mut()?.shift_remove(last)
    }

    /// Sets the value at the path, creating the parent objects missing
    /// (and replacing a parent that is not an object).
    pub fn set(&self, value: &mut Value, new: Value) {
        let (last, parents) = self.0.split_last().expect("paths have a segment");
        let mut at = value;
        for segment in parents {
            at = object(at).entry(segment.clone()).or_insert(Value::Null);
        }
        object(at).insert(last.clone(), new);
    }
}

impl std::fmt::Display for FieldPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for segment in &self.0 {
            write!(f, ".{segment}")?;
        }
        Ok(())
    }
}

/// `value` as an object, made one if it is not.
fn object(value: &mut Value) -> &mut Map<String, Value> {
    if !value.is_object() {
        *value = Value::Object(Map::new());
    }
    value.as_object_mut().expect("made an object")
}

fn take_at(value: &mut Value, segments: &[String]) -> Option<Value> {
    let map = value.as_object_mut()?;
    match segments {
        [last] => map.shift_remove(last),
        [first, rest @ ..] => {
            let child = map.get_mut(first)?;
            let taken = take_at(child, rest)?;
            if child.as_object().is_some_and(Map::is_empty) {
                map.shift_remove(first);
            }
            Some(taken)
        }
        [] => None,
    }
}

/// Appends one reference token to a JSON Pointer.
pub fn push_token(pointer: &mut String, token: &str) {
    pointer.push('/');
    pointer.push_str(&token.replace('~', "~0").replace('/', "~1"));
}

fn tokens(pointer: &str) -> Vec<String> {
    pointer.split('/').skip(1).map(|t| t.replace("~1", "/").replace("~0", "~")).collect()
}

/// Sets the value at a JSON Pointer, creating missing parents as objects;
/// a list item that is not there is left alone.
pub fn set_pointer(value: &mut Value, pointer: &str, new: Value) {
    let tokens = tokens(pointer);
    let Some((last, parents)) = tokens.split_last() else {
        *value = new;
        return;
    };
    let mut at = value;
    for token in parents {
        at = match at {
            Value::Array(items) => match token.parse::<usize>().ok().and_then(|i| items.get_mut(i)) {
                Some(item) => item,
                None => return,
            },
            other => object(other).entry(token.clone()).or_insert(Value::Null),
        };
    }
    match at {
        Value::Array(items) => {
            if let Some(item) = last.parse::<usize>().ok().and_then(|i| items.get_mut(i)) {
                *item = new;
            }
        }
        other => {
            object(other).insert(last.clone(), new);
        }
    }
}

/// Removes the value at a JSON Pointer (not list items), and the parent
/// objects left empty.
pub fn remove_pointer(value: &mut Value, pointer: &str) {
    let tokens = tokens(pointer);
    if !tokens.is_empty() {
        take_at(value, &tokens);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_parse_and_refuse_what_they_cannot_reach() {
        assert_eq!(FieldPath::parse(".spec.a").unwrap().0, vec!["spec", "a"]);
        assert!(FieldPath::parse("spec.a").is_err());
        assert!(FieldPath::parse(".spec..a").is_err());
        assert!(FieldPath::parse(".spec.a[0]").is_err());
        assert!(FieldPath::parse(".metadata.name").is_err());
        assert!(FieldPath::parse(".").is_err());
    }

    #[test]
    fn take_leaves_no_empty_parents_and_set_creates_them() {
        let mut v = json!({"spec": {"x": {"a": 1}, "b": 2}});
        assert_eq!(FieldPath::parse(".spec.x.a").unwrap().take(&mut v), Some(json!(1)));
        assert_eq!(v, json!({"spec": {"b": 2}}));
        FieldPath::parse(".status.y.z").unwrap().set(&mut v, json!(3));
        assert_eq!(v["status"], json!({"y": {"z": 3}}));
    }

    #[test]
    fn pointers_escape_and_reach_list_items() {
        let mut p = String::new();
        push_token(&mut p, "a/b~c");
        assert_eq!(p, "/a~1b~0c");
        let mut v = json!({"l": [{"x": 1}]});
        set_pointer(&mut v, "/l/0/y", json!(2));
        set_pointer(&mut v, "/l/5/y", json!(2));
        set_pointer(&mut v, "/a~1b~0c", json!(true));
        assert_eq!(v, json!({"l": [{"x": 1, "y": 2}], "a/b~c": true}));
        remove_pointer(&mut v, "/a~1b~0c");
        assert_eq!(v, json!({"l": [{"x": 1, "y": 2}]}));
    }
}

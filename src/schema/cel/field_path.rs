//! A rule's `fieldPath`: a JSON path of field and map accessors
//! (`.spec.a`, `.spec['b.c']`) that must exist in the schema, normalized to
//! the way field errors name paths (`spec.a`, `spec.m[key]`).

use crate::schema::{Additional, Schema};

/// The normalized path, or None when `path` does not name a field of
/// `schema`.
pub fn resolve(path: &str, schema: &Schema) -> Option<String> {
    let mut out = String::new();
    let mut node = schema;
    let mut rest = path;
    while !rest.is_empty() {
        let (name, after) = if let Some(after_dot) = rest.strip_prefix('.') {
            let end = after_dot.find(['.', '[']).unwrap_or(after_dot.len());
            (after_dot[..end].to_string(), &after_dot[end..])
        } else if let Some(inner) = rest.strip_prefix("['") {
            let (name, after) = quoted(inner)?;
            (name, after.strip_prefix(']')?)
        } else {
            return None;
        };
        if name.is_empty() {
            return None;
        }
        if let Some(property) = node.properties.get(&name) {
            node = property;
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&name);
        } else if let (true, Additional::Schema(value)) = (node.properties.is_empty(), &node.additional) {
            node = value;
            out.push_str(&format!("[{name}]"));
        } else {
            return None;
        }
        rest = after;
    }
    (!out.is_empty()).then_some(out)
}

/// A single-quoted string's content (escapes resolved) and what follows
/// its closing quote.
fn quoted(s: &str) -> Option<(String, &str)> {
    let mut name = String::new();
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\'' => return Some((name, &s[i + 1..])),
            '\\' => {
                let (_, escaped) = chars.next()?;
                name.push(match escaped {
                    'n' => '\n',
                    't' => '\t',
                    'r' => '\r',
                    '\'' | '\\' => escaped,
                    _ => return None,
                });
            }
            _ => name.push(c),
        }
    }
    None
}

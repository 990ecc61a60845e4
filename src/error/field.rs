//! One invalid field (Kubernetes' `field.Error`), and how values, names
//! and paths from a request are shown in messages: cut to a bound, so no
//! message echoes unbounded input, whatever the request held.

use std::fmt;

use super::CauseType;

/// The most bytes of a name, value or path a message shows: a name of
/// Kubernetes' (253 characters at most) is shown whole.
pub const MAX_SHOWN_BYTES: usize = 256;

/// `text` as a message shows it: whole when it fits [`MAX_SHOWN_BYTES`],
/// else its start, cut at a character boundary, and how long it was.
pub fn shown(text: &str) -> std::borrow::Cow<'_, str> {
    if text.len() <= MAX_SHOWN_BYTES {
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(format!("{}... ({} bytes)", prefix(text, MAX_SHOWN_BYTES), text.len()))
}

/// The longest start of `text` of at most `max` bytes that ends at a
/// character boundary.
pub fn prefix(text: &str, max: usize) -> &str {
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// One invalid field: Kubernetes' `field.Error`.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldError {
    pub cause: CauseType,
    /// The path as Kubernetes writes it, e.g. `spec.versions[1].name`.
    pub field: String,
    /// The offending value, when it is shown.
    pub value: Option<serde_json::Value>,
    /// How the value is shown when Kubernetes prints it literally (`0x0`).
    pub shown: Option<String>,
    /// What is wrong, lowercase, no trailing period.
    pub detail: String,
}

impl FieldError {
    pub(super) fn new(
        cause: CauseType,
        field: impl Into<String>,
        value: Option<serde_json::Value>,
        detail: impl Into<String>,
    ) -> Self {
        Self { cause, field: field.into(), value, shown: None, detail: detail.into() }
    }

    /// Shows the value as `text` verbatim, as Kubernetes does for some
    /// values (`metadata.resourceVersion: Invalid value: 0x0`).
    pub fn raw(mut self, text: &str) -> Self {
        self.shown = Some(text.to_string());
        self
    }

    pub fn required(field: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::new(CauseType::Required, field, None, detail)
    }

    pub fn invalid(field: impl Into<String>, value: impl Into<serde_json::Value>, detail: impl Into<String>) -> Self {
        Self::new(CauseType::Invalid, field, Some(value.into()), detail)
    }

    /// An invalid field whose value is not worth showing.
    pub fn invalid_without_value(field: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::new(CauseType::Invalid, field, None, detail)
    }

    /// `Too long: must have at most <max> bytes`: the value is not shown.
    pub fn too_long(field: impl Into<String>, max: usize) -> Self {
        Self::new(CauseType::TooLong, field, None, format!("must have at most {max} bytes"))
    }

    pub fn forbidden(field: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::new(CauseType::Forbidden, field, None, detail)
    }

    pub fn duplicate(field: impl Into<String>, value: impl Into<serde_json::Value>) -> Self {
        Self::new(CauseType::Duplicate, field, Some(value.into()), "")
    }

    pub fn type_invalid(
        field: impl Into<String>,
        value: impl Into<serde_json::Value>,
        detail: impl Into<String>,
    ) -> Self {
        Self::new(CauseType::TypeInvalid, field, Some(value.into()), detail)
    }

    /// `Unsupported value: "x": supported values: "a", "b"`.
    pub fn not_supported(field: impl Into<String>, value: impl Into<serde_json::Value>, supported: &[&str]) -> Self {
        let detail = if supported.is_empty() {
            String::new()
        } else {
            let quoted: Vec<String> = supported.iter().map(|s| format!("{s:?}")).collect();
            format!("supported values: {}", quoted.join(", "))
        };
        Self::new(CauseType::NotSupported, field, Some(value.into()), detail)
    }

    /// The message without the field path (`StatusCause.message`).
    pub fn body(&self) -> String {
        if self.cause == CauseType::FieldManagerConflict {
            return self.detail.clone();
        }
        let mut s = self.cause.words().to_string();
        if self.cause.shows_value() {
            if let Some(shown) = &self.shown {
                s.push_str(": ");
                s.push_str(shown);
            } else if let Some(value) = &self.value {
                s.push_str(": ");
                s.push_str(&render_value(value));
            }
        }
        if !self.detail.is_empty() {
            if !s.is_empty() {
                s.push_str(": ");
            }
            s.push_str(&self.detail);
        }
        s
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}", self.body())
        } else {
            write!(f, "{}: {}", shown(&self.field), self.body())
        }
    }
}

/// `text` quoted as Go's `%q` quotes it, cut as [`shown`] cuts: at most
/// [`MAX_SHOWN_BYTES`] of the quoted form (escapes count), then its length.
pub fn quoted(text: &str) -> String {
    let quoted = format!("{text:?}");
    if quoted.len() <= MAX_SHOWN_BYTES {
        return quoted;
    }
    format!("{}...\" ({} bytes)", prefix(&quoted, MAX_SHOWN_BYTES), text.len())
}

/// Values shown the way Go's `%q`/`%v` show them in `field.Error`, cut
/// to [`MAX_SHOWN_BYTES`] (a string's start is quoted, its length after).
fn render_value(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => quoted(s),
        serde_json::Value::Null => "null".to_string(),
        other => shown(&other.to_string()).into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_values_and_paths_are_shown_cut_with_their_length() {
        let long = "a".repeat(10_000);
        let err = FieldError::invalid(format!("spec.{long}"), long.as_str(), "bad");
        let text = err.to_string();
        assert!(text.len() < 2 * MAX_SHOWN_BYTES + 64, "{}", text.len());
        assert!(text.contains(&format!("\"{}...\" (10000 bytes): bad", "a".repeat(MAX_SHOWN_BYTES - 1))), "{text}");
        assert!(quoted(&"\0".repeat(1000)).len() < MAX_SHOWN_BYTES + 32);
        assert!(text.starts_with(&format!("spec.{}... (10005 bytes): Invalid value", "a".repeat(MAX_SHOWN_BYTES - 5))));
        let short = FieldError::invalid("metadata.name", "n", "bad").to_string();
        assert_eq!(short, "metadata.name: Invalid value: \"n\": bad");
        assert_eq!(shown(&"é".repeat(200)).len(), 256 + " (400 bytes)".len() + 3);
        let too_long = FieldError::too_long("metadata.name", 253).to_string();
        assert_eq!(too_long, "metadata.name: Too long: must have at most 253 bytes");
    }
}

//! Why a rule or message expression does not compile, in cel-go's words:
//! over the bounds on size and depth, or the parser's and checker's
//! problems, each rendered with its line and a caret.

use serde_json::Value;

use super::{limits, ENV};
use crate::error::FieldError;

/// Why a rule or message expression does not compile, rendered as cel-go
/// renders it.
pub(super) enum Refused {
    /// Over the bounds on size or depth.
    Bounds(String),
    Problems(String),
}

impl Refused {
    /// The rendered reason.
    pub(super) fn text(&self) -> &str {
        match self {
            Refused::Bounds(text) | Refused::Problems(text) => text,
        }
    }

    /// The error at `field`. A source over the bounds is not shown: it is
    /// too large to be worth echoing (and would not fit a response's
    /// headers).
    pub(super) fn error(&self, field: String, raw: &Value, detail: String) -> FieldError {
        match self {
            Refused::Bounds(_) => FieldError::invalid_without_value(field, detail),
            Refused::Problems(_) => FieldError::invalid(field, raw.clone(), detail),
        }
    }
}

/// Parses `source` within cel-go's bounds on size and depth, which keep
/// every recursion over it within the stack. Returns the program and its
/// depth.
pub(super) fn parse(source: &str) -> Result<(cel::Program, usize), Refused> {
    limits::check_source(source).map_err(Refused::Bounds)?;
    let program = ENV.compile(source).map_err(|e| Refused::Problems(parse_errors(&e, source)))?;
    let depth = limits::depth(program.expression());
    if depth > limits::MAX_EXPRESSION_DEPTH {
        return Err(Refused::Bounds(limits::too_deep()));
    }
    Ok((program, depth))
}

/// cel-go's rendering of a problem: where, what, and the line with a caret.
fn render(source: &str, line: usize, column: usize, message: &str) -> String {
    let text = source.lines().nth(line.saturating_sub(1)).unwrap_or("");
    format!("ERROR: <input>:{line}:{}: {message}\n | {text}\n | {}^", column + 1, ".".repeat(column))
}

/// cel-go's rendering of parse errors, one after the other.
fn parse_errors(errors: &cel::ParseErrors, source: &str) -> String {
    let rendered: Vec<String> = errors
        .errors
        .iter()
        .map(|e| render(source, e.pos.0.max(1) as usize, e.pos.1.max(1) as usize - 1, &e.msg))
        .collect();
    rendered.join("\n")
}

/// cel-go's rendering of the checker's problems, each at its expression's
/// place in `source`; None when there are none.
pub(super) fn render_problems(problems: &[(u64, String)], program: &cel::Program, source: &str) -> Option<String> {
    if problems.is_empty() {
        return None;
    }
    let rendered: Vec<String> = problems
        .iter()
        .map(|(id, message)| {
            let start = program.source_info().offset_for(*id).map_or(0, |(start, _)| start as usize);
            let before = &source[..start.min(source.len())];
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count());
            render(source, line, column, message)
        })
        .collect();
    Some(rendered.join("\n"))
}

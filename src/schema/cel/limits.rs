//! How deep and how large a rule may be, and the stack it runs on.
//!
//! The parser, the checks and the interpreter all recurse once per level of
//! an expression, so a rule nested deeply enough (a chain of thousands of
//! `+`, thousands of parentheses) overflows the stack and aborts the
//! process. cel-go, which Kubernetes uses, refuses such rules when they are
//! compiled: an expression over 100,000 code points, or nested more than
//! 250 levels (`parser.MaxRecursionDepth`; Kubernetes keeps both defaults).
//! Here the same bounds are checked in three layers:
//!
//! - `check_source` scans the text without recursing, before the recursive
//!   parser sees it: its size, and a bound on the depth of the expression it
//!   parses to, counting nested brackets, chains of binary operators and of
//!   selections;
//! - `depth` measures the parsed expression, without recursing either,
//!   since macros expand into deeper expressions than their text;
//! - compiling runs on a stack of its own (`compiling`), large enough for
//!   whatever passes the text check, and evaluating (`evaluating`) makes
//!   sure the stack has room for the rule's depth before it runs.

use cel::common::ast::{EntryExpr, Expr, IdedEntryExpr, IdedExpr};

/// cel-go's default `MaxRecursionDepth`.
pub const MAX_RECURSION_DEPTH: usize = 250;
/// cel-go's default `ExpressionSizeCodePointLimit`.
pub const EXPRESSION_SIZE_CODE_POINT_LIMIT: usize = 100_000;
/// The deepest parsed expression accepted: macros expand to a few levels
/// more than their text, so this leaves them room beyond the text's bound.
pub const MAX_EXPRESSION_DEPTH: usize = 2 * MAX_RECURSION_DEPTH;

/// The stack compiling a rule runs on. In a debug build, parsing 96 nested
/// brackets (the most the parser takes) was measured to take 17 MiB, a
/// chain of 250 operators 0.4 MiB. It is reserved, not committed: only the
/// pages used are.
const COMPILE_STACK: usize = 128 * 1024 * 1024;
/// The stack evaluating a rule takes per level of its expression: 38 KiB
/// in a debug build (its frames are large), far less in a release build.
const EVALUATION_STACK_PER_LEVEL: usize = 48 * 1024;
/// And besides, for what runs around the interpreter.
const EVALUATION_STACK_BASE: usize = 128 * 1024;

/// cel-go's rendering of a problem that has no location in the source.
pub fn unlocated(message: &str) -> String {
    format!("ERROR: <input>:-1:0: {message}")
}

/// The recursion limit problem, as cel-go words it.
pub fn too_deep() -> String {
    unlocated(&format!("expression recursion limit exceeded: {MAX_RECURSION_DEPTH}"))
}

/// Refuses, as cel-go would, a source too large or too deeply nested to be
/// parsed safely. Never recurses.
pub fn check_source(source: &str) -> Result<(), String> {
    let size = source.chars().count();
    if size > EXPRESSION_SIZE_CODE_POINT_LIMIT {
        return Err(unlocated(&format!(
            "expression code point size exceeds limit: size: {size}, limit {EXPRESSION_SIZE_CODE_POINT_LIMIT}"
        )));
    }
    if estimated_depth(source) > MAX_RECURSION_DEPTH {
        return Err(too_deep());
    }
    Ok(())
}

/// The depth of a parsed expression: its deepest path, in nodes. Never
/// recurses.
pub fn depth(expr: &IdedExpr) -> usize {
    let mut deepest = 0;
    let mut pending = vec![(expr, 1)];
    while let Some((e, d)) = pending.pop() {
        deepest = deepest.max(d);
        children(e, |child| pending.push((child, d + 1)));
    }
    deepest
}

/// Calls `f` with each child of `e`.
fn children<'e>(e: &'e IdedExpr, mut f: impl FnMut(&'e IdedExpr)) {
    match &e.expr {
        Expr::Call(call) => {
            if let Some(target) = &call.target {
                f(target);
            }
            call.args.iter().for_each(f);
        }
        Expr::Comprehension(c) => {
            [&c.iter_range, &c.accu_init, &c.loop_cond, &c.loop_step, &c.result].into_iter().for_each(f)
        }
        Expr::List(list) => list.elements.iter().for_each(f),
        Expr::Map(map) => entries(&map.entries, f),
        Expr::Struct(s) => entries(&s.entries, f),
        Expr::Select(select) => f(&select.operand),
        Expr::Unspecified | Expr::Ident(_) | Expr::Literal(_) => {}
    }
}

fn entries<'e>(entries: &'e [IdedEntryExpr], mut f: impl FnMut(&'e IdedExpr)) {
    for entry in entries {
        match &entry.expr {
            EntryExpr::StructField(field) => f(&field.value),
            EntryExpr::MapEntry(entry) => {
                f(&entry.key);
                f(&entry.value);
            }
        }
    }
}

/// Runs `f`, which compiles a rule (parses, checks and drops what it
/// refuses), on a stack of its own large enough for any rule that passes
/// `check_source`.
pub fn compiling<R>(f: impl FnOnce() -> R) -> R {
    stacker::grow(COMPILE_STACK, f)
}

/// Runs `f`, which evaluates rules at most `depth` levels deep, on a stack
/// with room for them: the current one when it has room left (rules are
/// mostly a few levels deep), else one of its own.
pub fn evaluating<R>(depth: usize, f: impl FnOnce() -> R) -> R {
    let needed = EVALUATION_STACK_BASE + depth * EVALUATION_STACK_PER_LEVEL;
    stacker::maybe_grow(needed, 2 * needed, f)
}

/// One bracketed group of a source being scanned: what bounds the depth of
/// the expression it parses to.
#[derive(Default)]
struct Group {
    /// Levels above the current chain within the group: conditionals.
    above: usize,
    /// Binary operators of the current chain (`a + b * c < d`): each
    /// nests the chain one level deeper.
    operators: usize,
    /// The depth of the current term: its selections, calls and indexes,
    /// and the groups within it.
    term: usize,
    /// The deepest term of the current chain.
    deepest_term: usize,
    /// The deepest chain ended in the group (at `,`, `?`, `:`, `&&`, `||`).
    deepest: usize,
}

impl Group {
    fn chain(&self) -> usize {
        self.above + self.operators + self.deepest_term.max(self.term)
    }

    fn end_chain(&mut self) {
        self.deepest = self.deepest.max(self.chain());
        (self.operators, self.term, self.deepest_term) = (0, 0, 0);
    }

    fn operator(&mut self) {
        self.deepest_term = self.deepest_term.max(self.term);
        self.term = 0;
        self.operators += 1;
    }

    /// The depth of the group, with the node (call, index, list...) it is.
    fn depth(&self) -> usize {
        self.deepest.max(self.chain()) + 1
    }
}

/// A bound on the depth of the expression `source` parses to, found by
/// scanning its tokens: a term is as deep as its selections and the groups
/// in it, a chain of binary operators as deep as its operators and deepest
/// term (`||` and `&&` build balanced trees and end chains), and a group
/// one level deeper than its deepest chain.
fn estimated_depth(source: &str) -> usize {
    let bytes = source.as_bytes();
    let mut groups = vec![Group::default()];
    // Whether the last token ends an operand (so `-` is binary).
    let mut after_operand = false;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let next = bytes.get(i + 1).copied();
        let top = groups.last_mut().expect("the outermost group stays");
        match c {
            b' ' | b'\t' | b'\n' | b'\r' | 0x0c => {
                i += 1;
                continue;
            }
            b'/' if next == Some(b'/') => {
                i = skip_line(bytes, i);
                continue;
            }
            b'\'' | b'"' => {
                i = skip_string(bytes, i, false);
                after_operand = true;
                continue;
            }
            // A number, `.5` too where an operand may start.
            b'0'..=b'9' | b'.' if c != b'.' || (next.is_some_and(|n| n.is_ascii_digit()) && !after_operand) => {
                i = skip_number(bytes, i);
                after_operand = true;
                continue;
            }
            c if c == b'_' || c.is_ascii_alphabetic() => {
                (i, after_operand) = word(bytes, i, top);
                continue;
            }
            b'(' | b'[' | b'{' => {
                groups.push(Group::default());
                after_operand = false;
            }
            b')' | b']' | b'}' => {
                if groups.len() > 1 {
                    close_group(&mut groups);
                }
                after_operand = true;
            }
            b'.' => {
                top.term += 1;
                after_operand = false;
            }
            b',' | b'?' | b':' => {
                separator(c, top);
                after_operand = false;
            }
            b'&' | b'|' if next == Some(c) => {
                top.end_chain();
                after_operand = false;
                i += 2;
                continue;
            }
            b'-' if !after_operand => {}
            b'!' if next != Some(b'=') => {}
            b'+' | b'-' | b'*' | b'/' | b'%' | b'<' | b'>' | b'=' | b'!' => {
                top.operator();
                after_operand = false;
                // Two-character operators (`<=`, `==`, `!=`) are one.
                if next == Some(b'=') {
                    i += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    while groups.len() > 1 {
        close_group(&mut groups);
    }
    groups[0].depth()
}

/// At the identifier starting at `i`: the index past it (past the string
/// it prefixes, `r"..."`, `b'...'`), and whether it ends an operand (`in`
/// is an operator).
fn word(bytes: &[u8], mut i: usize, top: &mut Group) -> (usize, bool) {
    let start = i;
    while i < bytes.len() && (bytes[i] == b'_' || bytes[i].is_ascii_alphanumeric()) {
        i += 1;
    }
    let word = &bytes[start..i];
    if matches!(bytes.get(i), Some(b'\'' | b'"')) && word.len() <= 2 {
        // A string's prefix: raw (`r`) and bytes (`b`).
        let raw = word.iter().any(|c| c.eq_ignore_ascii_case(&b'r'));
        (skip_string(bytes, i, raw), true)
    } else if word == b"in" {
        top.operator();
        (i, false)
    } else {
        (i, true)
    }
}

/// A `,`, `?` or `:` ends the chain before it; after a `,` the next item
/// is back at the group's level, after a `?` one level into a conditional.
fn separator(c: u8, top: &mut Group) {
    top.end_chain();
    match c {
        b',' => top.above = 0,
        b'?' => top.above += 1,
        _ => {}
    }
}

/// Closes the innermost group: its depth adds to the term of the group
/// around it.
fn close_group(groups: &mut Vec<Group>) {
    let inner = groups.pop().expect("more than one group").depth();
    groups.last_mut().expect("the outermost group stays").term += inner;
}

/// The index of the end of the line `i` is in (a comment's end).
fn skip_line(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() && bytes[i] != b'\n' {
        i += 1;
    }
    i
}

/// The index just past the string literal opening at `start` (its quote).
fn skip_string(bytes: &[u8], start: usize, raw: bool) -> usize {
    let quote = bytes[start];
    let triple = bytes.get(start + 1) == Some(&quote) && bytes.get(start + 2) == Some(&quote);
    let mut i = start + if triple { 3 } else { 1 };
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if !raw => i += 2,
            q if q == quote && !triple => return i + 1,
            q if q == quote && bytes.get(i + 1) == Some(&quote) && bytes.get(i + 2) == Some(&quote) => return i + 3,
            b'\n' if !triple => return i,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// The index just past the number starting at `start` (`1`, `1u`, `0x1F`,
/// `1.5e-3`, `.5`).
fn skip_number(bytes: &[u8], start: usize) -> usize {
    let mut i = start;
    while i < bytes.len() {
        match bytes[i] {
            b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z' | b'_' => i += 1,
            b'.' if bytes.get(i + 1).is_some_and(u8::is_ascii_digit) => i += 1,
            b'+' | b'-' if matches!(bytes[i - 1], b'e' | b'E') && !bytes[start..i].starts_with(b"0x") => i += 1,
            _ => break,
        }
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sum(terms: usize) -> String {
        vec!["self.a"; terms].join(" + ")
    }

    #[test]
    fn the_estimate_bounds_the_parsed_depth() {
        let cases = [
            "self.a > 0",
            "self.a + self.b * self.c < self.d",
            "self.items.all(i, i.name.startsWith('x') && i.port > 0)",
            "has(self.a) ? self.a.b.c : self.d[0].e",
            "a ? b : c ? d : e ? f : g",
            "[1, 2, [3, [4]]].exists(x, x == 1) || {'a': [1]}.a[0] == 1",
            "self.x.map(a, a.map(b, b + 1)).filter(c, c.size() > 0).size() == 2",
            "'((((' + \"]]]]\" + '''))\n''' + r'\\' + b'x' == ''",
            "-1 + -self.a - -2.5e-3 + 0x1F + 7u == .5",
            "!(!self.a) && self.b in ['x'] || self.c != self.d",
        ];
        for source in cases {
            let parsed = crate::schema::cel::ENV.compile(source).unwrap_or_else(|e| panic!("{source}: {e:?}"));
            let (estimated, actual) = (estimated_depth(source), depth(parsed.expression()));
            assert!(estimated + 4 >= actual, "{source}: estimated {estimated}, parsed {actual}");
            assert!(estimated <= 3 * actual + 4, "{source}: estimated {estimated} for a depth of {actual}");
        }
    }

    #[test]
    fn deep_sources_are_refused_before_parsing() {
        assert_eq!(check_source(&sum(200)), Ok(()));
        assert_eq!(check_source(&format!("{}1{}", "(".repeat(200), ")".repeat(200))), Ok(()));
        let too_deep = Err(too_deep());
        assert_eq!(check_source(&sum(300)), too_deep);
        assert_eq!(check_source(&format!("{}1{}", "[".repeat(300), "]".repeat(300))), too_deep);
        assert_eq!(check_source(&"(".repeat(300)), too_deep, "unclosed groups count");
        assert_eq!(check_source(&format!("self{}", ".a".repeat(300))), too_deep);
        assert_eq!(check_source(&format!("{} == 1", "f(".repeat(300))), too_deep);
        assert_eq!(check_source(&"a ? b : ".repeat(300)), too_deep);
        // Brackets in strings and comments do not count.
        assert_eq!(check_source(&format!("'{}' == ''", "(".repeat(300))), Ok(()));
        assert_eq!(check_source(&format!("true // {}", "(".repeat(300))), Ok(()));
        // Long flat lists and balanced logic are not deep.
        assert_eq!(check_source(&format!("[{}].size() > 0", vec!["1 + 1"; 1000].join(", "))), Ok(()));
        assert_eq!(check_source(&vec!["self.a > 0"; 1000].join(" && ")), Ok(()));
        assert_eq!(
            check_source(&"a".repeat(100_001)),
            Err("ERROR: <input>:-1:0: expression code point size exceeds limit: size: 100001, limit 100000".into())
        );
    }

    /// A tokio worker's stack.
    const WORKER_STACK: usize = 2 * 1024 * 1024;

    #[test]
    fn rules_at_the_bounds_evaluate_on_a_worker_stack() {
        use crate::schema::{validate_update, Schema};
        use serde_json::json;
        let rules = json!([
            {"rule": format!("{} > 0", sum(240)), "messageExpression": format!("'a'{}", " + 'a'".repeat(240))},
            {"rule": format!("{}.size() > 0", "[1].map(x, ".repeat(60) + "x" + &")".repeat(60))},
        ]);
        let schema = Schema::compile(&json!({"type": "object", "properties": {"spec": {"type": "object",
            "properties": {"a": {"type": "integer"}}, "x-kubernetes-validations": rules}}}))
        .expect("compiles");
        let spec = schema.properties.get("spec").expect("spec");
        assert!(spec.rules.iter().all(|r| r.compiled.is_ok()), "{:?}", spec.rules);
        assert!(spec.rules[0].depth() > 240);
        let errors = std::thread::Builder::new()
            .stack_size(WORKER_STACK)
            .spawn(move || {
                let failed =
                    validate_update(&json!({"spec": {"a": 0}}), None, &schema, "", crate::schema::Root::Object);
                let passed =
                    validate_update(&json!({"spec": {"a": 1}}), None, &schema, "", crate::schema::Root::Object);
                (failed.errors.iter().map(ToString::to_string).collect::<Vec<_>>(), passed.errors.len())
            })
            .expect("spawns")
            .join()
            .expect("does not overflow");
        assert_eq!(errors, (vec![format!("spec: Invalid value: \"object\": {}", "a".repeat(241))], 0));
    }

    #[test]
    fn depth_does_not_recurse() {
        let deep = (0..100_000).fold(IdedExpr::default(), |inner, id| IdedExpr {
            id,
            expr: Expr::Select(cel::common::ast::SelectExpr {
                operand: Box::new(inner),
                field: "a".into(),
                test: false,
            }),
        });
        assert_eq!(depth(&deep), 100_001);
        compiling(move || drop(deep));
    }
}

//! Tidy: the invariants ARCHITECTURE.md states, checked rather than only
//! written. Every check is a pure function over a file's path (relative to
//! the repository, `src/storage/keys.rs`) and its text, proven to fire by a
//! self-test on a synthetic file, then run over the tree; a failure lists
//! every offender as `file:line: what is wrong`.
//!
//! - the domain imports no transport crate (tonic, axum, http, ...);
//! - imports point only down the layer table ([`LAYERS`]);
//! - no two files import each other, directly or around a circle (a
//!   module and the modules inside it aside);
//! - every module starts with a `//!` line;
//! - no file is over [`MAX_LINES`] lines unless [`LONG_FILES`] says why;
//! - no function is over [`MAX_FUNCTION_LINES`] lines unless
//!   [`LONG_FUNCTIONS`] says why (generated code is not in `src/`);
//! - a module with children is a folder with a `mod.rs`, never an `x.rs`
//!   beside an `x/` folder;
//! - `src/` has no `unsafe` (Cargo.toml only denies it: tests and benches
//!   call libc);
//! - each client's reason-to-error table maps every `Reason::ALL`.
//!
//! Run alone with `cargo test --test tidy`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use crdstore::error::Reason;

// ---------------------------------------------------------------------------
// The tables.

/// Every top-level module of `src/` (a folder, or a file without `.rs`) and
/// its layer, lowest first. A module may name its own module and any module
/// of a strictly lower layer: modules sharing a layer may not import each
/// other. A module not listed here fails the test until it is placed.
const LAYERS: &[(&str, u8)] = &[
    ("error", 0),
    ("metrics", 0), // the process's instruments, beside the error
    ("storage", 1),
    ("apimachinery", 2),
    ("auth", 2), // future: who is asking, beside the object machinery
    ("schema", 3),
    ("watch", 3),
    ("conversion", 3), // future: version conversion, beside schema
    ("apply", 3),      // server-side apply: field sets, merge, managedFields
    ("gates", 3),      // field-level feature gates
    ("registry", 4),
    ("resource", 5),
    // The transports, on top. The generated messages sit under the handlers,
    // the handlers under the assembly, the assembly under the crate roots.
    ("pb", 6),
    ("migration", 6), // storage-version migration, over resource/ and registry/
    ("builtin", 6),   // Namespace, Lease, Event: served by resource/, their tasks over it
    ("gc", 6),        // the garbage collector: deletes through resource/
    ("telemetry", 6), // OTLP, logs and request observation, under the transports
    ("grpc", 7),
    ("gateway", 7),
    ("server", 8),
    ("lib", 9),
    ("main", 9),
    ("cli", 9), // the binary's one-shot commands, beside main
];

/// Imports allowed between two modules of one layer (importer, imported),
/// never the other way: conversion reads the versions' schemas (what a
/// version can hold, the type of a CEL rule's `self`), as the versioning
/// design places it beside schema.
/// Server-side apply types objects by their versions' compiled schemas.
const BESIDE: &[(&str, &str)] = &[("conversion", "schema"), ("apply", "schema")];

/// Names the crate root re-exports, and the module each comes from.
const ROOT_REEXPORTS: &[(&str, &str)] = &[("Error", "error"), ("Result", "error")];

/// The modules that make up the domain: none may import a transport crate.
const DOMAIN: &[&str] = &[
    "error",
    "metrics",
    "storage",
    "apimachinery",
    "schema",
    "watch",
    "registry",
    "resource",
    "conversion",
    "gc",
    "auth",
    "apply",
    "gates",
    "migration",
];

/// The transport crates, by the name a path starts with. Each also covers
/// its family (`tonic_types`, `prost_types`, `tower_http`, `http_body`...).
const TRANSPORT_CRATES: &[&str] = &["tonic", "axum", "http", "hyper", "tower", "prost"];

/// A function longer than this, in lines from its `fn` to its closing
/// brace, is split, or listed in [`LONG_FUNCTIONS`].
const MAX_FUNCTION_LINES: usize = 80;

/// Functions allowed over [`MAX_FUNCTION_LINES`], as `path:name`, each with
/// a one-line reason. An entry that no longer applies fails the test.
const LONG_FUNCTIONS: &[&str] = &[];

/// A file longer than this is split, or listed in [`LONG_FILES`].
const MAX_LINES: usize = 500;

/// Files allowed over [`MAX_LINES`], each with a one-line reason. An entry
/// whose file is gone or back under the limit fails the test: remove it.
const LONG_FILES: &[&str] = &[
    // (none today: src/registry/validation/mod.rs, src/storage/sled/mod.rs
    // and src/error/mod.rs are the closest, at 497-498)
];

// ---------------------------------------------------------------------------
// Offences.

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Offence {
    path: String,
    line: usize,
    message: String,
}

impl Offence {
    fn new(path: &str, line: usize, message: impl Into<String>) -> Offence {
        Offence { path: path.to_string(), line, message: message.into() }
    }
}

impl fmt::Display for Offence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.path, self.line, self.message)
    }
}

/// Panics listing every offence, one per line, if there are any.
fn assert_none(what: &str, mut offences: Vec<Offence>) {
    offences.sort();
    offences.dedup();
    if !offences.is_empty() {
        let list: Vec<String> = offences.iter().map(|o| format!("  {o}")).collect();
        panic!("{what}: {} offender(s)\n{}\n", offences.len(), list.join("\n"));
    }
}

// ---------------------------------------------------------------------------
// Reading Rust narrowly: comments and literals blanked, then tokens.

/// `text` with every comment (doc comments included) and the contents of
/// every string and character literal replaced by spaces, newlines kept, so
/// what is left is code at its original line numbers.
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let prev_ident = i > 0 && is_ident(chars[i - 1]);
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if (c == 'r' || (c == 'b' && next == Some('r')))
            && !prev_ident
            && raw_string_hashes(&chars[i + if c == 'b' { 2 } else { 1 }..]).is_some()
        {
            let start = i + if c == 'b' { 2 } else { 1 };
            let hashes = raw_string_hashes(&chars[start..]).unwrap_or(0);
            for _ in i..start + hashes + 1 {
                out.push(' ');
            }
            i = start + hashes + 1;
            while i < chars.len() {
                if chars[i] == '"' && chars[i + 1..].iter().take(hashes).filter(|&&h| h == '#').count() == hashes {
                    for _ in 0..hashes + 1 {
                        out.push(' ');
                    }
                    i += hashes + 1;
                    break;
                }
                out.push(blank(chars[i]));
                i += 1;
            }
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < chars.len() {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' && char_literal_len(&chars[i..]) > 0 {
            for _ in 0..char_literal_len(&chars[i..]) {
                out.push(' ');
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// After an `r`: the number of `#` before the opening quote of a raw string.
fn raw_string_hashes(rest: &[char]) -> Option<usize> {
    let hashes = rest.iter().take_while(|&&c| c == '#').count();
    (rest.get(hashes) == Some(&'"')).then_some(hashes)
}

/// At a `'`: the length of the character literal it opens, or 0 for a
/// lifetime or label.
fn char_literal_len(rest: &[char]) -> usize {
    match rest.get(1) {
        Some('\\') => rest.iter().skip(3).position(|&c| c == '\'').map_or(0, |p| p + 4),
        Some(_) if rest.get(2) == Some(&'\'') => 3,
        _ => 0,
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Ident(String),
    PathSep,
    Punct(char),
}

/// The tokens of code (from [`code_only`]), each with its 1-based line.
fn tokens(code: &str) -> Vec<(Tok, usize)> {
    let chars: Vec<char> = code.chars().collect();
    let mut toks = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            toks.push((Tok::Ident(chars[start..i].iter().collect()), line));
        } else if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            toks.push((Tok::PathSep, line));
            i += 2;
        } else {
            toks.push((Tok::Punct(c), line));
            i += 1;
        }
    }
    toks
}

fn is_ident(tok: Option<&(Tok, usize)>, name: &str) -> bool {
    matches!(tok, Some((Tok::Ident(s), _)) if s == name)
}

/// The first segment of every path in `code`, with its line: `tonic` in
/// `use tonic::Status;`, `tonic::Status::new(..)` and `::tonic::Code`,
/// `prost` in `use prost;` and `extern crate prost;`, but not `http` in
/// `crate::http::x` or `self::http::x`.
fn path_roots(toks: &[(Tok, usize)]) -> Vec<(String, usize)> {
    let mut roots = Vec::new();
    for (i, (tok, line)) in toks.iter().enumerate() {
        let Tok::Ident(name) = tok else { continue };
        let prev = i.checked_sub(1).and_then(|p| toks.get(p));
        let before_prev = i.checked_sub(2).and_then(|p| toks.get(p));
        let after_sep = matches!(prev, Some((Tok::PathSep, _)));
        // `a::b`: b continues a path; `::b` (nothing path-like before) starts one.
        let continues = after_sep && matches!(before_prev, Some((Tok::Ident(_), _)) | Some((Tok::Punct('>'), _)));
        if continues {
            continue;
        }
        let followed_by_sep = matches!(toks.get(i + 1), Some((Tok::PathSep, _)));
        let used = is_ident(prev, "use") || (is_ident(prev, "crate") && is_ident(before_prev, "extern"));
        if followed_by_sep || used {
            roots.push((name.clone(), *line));
        }
    }
    roots
}

/// Every top-level module `code` names through `crate::`, with its line:
/// `crate::storage::Keys`, `$crate::watch::x`, and each item of a group,
/// `use crate::{error::Error, storage::Keys}`.
fn crate_paths(toks: &[(Tok, usize)]) -> Vec<(String, usize)> {
    let mut found = Vec::new();
    for (i, (tok, _)) in toks.iter().enumerate() {
        if *tok != Tok::Ident("crate".into()) || !matches!(toks.get(i + 1), Some((Tok::PathSep, _))) {
            continue;
        }
        match toks.get(i + 2) {
            Some((Tok::Ident(name), line)) => found.push((name.clone(), *line)),
            Some((Tok::Punct('{'), _)) => {
                let mut depth = 0;
                let mut item_start = true;
                for (tok, line) in &toks[i + 2..] {
                    match tok {
                        Tok::Punct('{') => {
                            depth += 1;
                            item_start = depth == 1;
                        }
                        Tok::Punct('}') => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        Tok::Punct(',') if depth == 1 => item_start = true,
                        Tok::Ident(name) if item_start && depth == 1 => {
                            found.push((name.clone(), *line));
                            item_start = false;
                        }
                        _ => item_start = false,
                    }
                }
            }
            _ => {}
        }
    }
    found
}

// ---------------------------------------------------------------------------
// Import circles between files.

/// The module path of a file under `src/`: `watch::stream` for
/// `src/watch/stream.rs`, `watch` for `src/watch/mod.rs`, the crate root
/// (empty) for `src/lib.rs`.
fn module_path(path: &str) -> Vec<String> {
    let rest = path.strip_prefix("src/").unwrap_or(path).strip_suffix(".rs").unwrap_or(path);
    let mut parts: Vec<String> = rest.split('/').map(String::from).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    parts
}

/// Every module path `toks` names from `own`'s module through `crate::`,
/// `self::` and `super::` (each item of a `{...}` group too), resolved to
/// a path from the crate root, with its line.
fn module_paths(own: &[String], toks: &[(Tok, usize)]) -> Vec<(Vec<String>, usize)> {
    let mut found = Vec::new();
    let ident = |i: usize| match toks.get(i) {
        Some((Tok::Ident(name), _)) => Some(name.as_str()),
        _ => None,
    };
    // The path `base::a::b` from the ident at `i`, and the token after it
    // (past a trailing `::`, where a group may open).
    let segments = |mut i: usize, mut path: Vec<String>| {
        while let Some(name) = ident(i) {
            path.push(name.to_string());
            if !matches!(toks.get(i + 1), Some((Tok::PathSep, _))) {
                return (path, i + 1);
            }
            i += 2;
        }
        (path, i)
    };
    for (i, (tok, line)) in toks.iter().enumerate() {
        let Tok::Ident(first) = tok else { continue };
        let starts = i == 0 || !matches!(toks[i - 1].0, Tok::PathSep);
        let mut base = match first.as_str() {
            "crate" => Vec::new(),
            "self" => own.to_vec(),
            "super" => own[..own.len().saturating_sub(1)].to_vec(),
            _ => continue,
        };
        if !starts || !matches!(toks.get(i + 1), Some((Tok::PathSep, _))) {
            continue;
        }
        let mut at = i + 2;
        while ident(at) == Some("super") {
            base.pop();
            at += 2;
        }
        let (path, end) = segments(at, base);
        if matches!(toks.get(end), Some((Tok::Punct('{'), _))) {
            let mut item_start = end + 1;
            while ident(item_start).is_some() {
                let (item, next) = segments(item_start, path.clone());
                found.push((item, *line));
                match toks.get(next) {
                    Some((Tok::Punct(','), _)) => item_start = next + 1,
                    _ => break,
                }
            }
        } else {
            found.push((path, *line));
        }
    }
    found
}

/// The file-to-file imports of `files` (path, text): an edge for each path
/// that names another file's module or an item inside it, a module and the
/// modules inside it (its children's `super::*`, its own `self::child`)
/// aside. Each edge keeps the first line that makes it.
fn file_imports(files: &[(String, String)]) -> BTreeMap<String, BTreeMap<String, usize>> {
    let modules: Vec<(Vec<String>, &str)> = files.iter().map(|(path, _)| (module_path(path), path.as_str())).collect();
    let mut edges: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    for (path, text) in files {
        let own = module_path(path);
        for (named, line) in module_paths(&own, &tokens(&code_only(text))) {
            let target = modules.iter().filter(|(module, _)| named.starts_with(module)).max_by_key(|(m, _)| m.len());
            let Some((module, target)) = target else { continue };
            if module.starts_with(&own) || own.starts_with(module) {
                continue;
            }
            edges.entry(path.clone()).or_default().entry(target.to_string()).or_insert(line);
        }
    }
    edges
}

/// (c) Files that import each other, directly or around a circle: one
/// offence per circle, at its first file, naming the files around it.
fn check_circles(files: &[(String, String)]) -> Vec<Offence> {
    let edges = file_imports(files);
    let mut offences = Vec::new();
    let mut reported: BTreeSet<Vec<String>> = BTreeSet::new();
    for start in edges.keys() {
        // Depth first from `start`, back to `start`.
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        let mut seen = BTreeSet::new();
        while let Some((at, trail)) = stack.pop() {
            for (next, _) in edges.get(&at).into_iter().flatten() {
                if next == start {
                    let mut circle = trail.clone();
                    circle.sort();
                    if reported.insert(circle) {
                        let line = edges[start][&trail.get(1).cloned().unwrap_or_else(|| start.clone())];
                        let around = trail.iter().chain([start]).cloned().collect::<Vec<_>>().join(" -> ");
                        offences.push(Offence::new(
                            start,
                            line,
                            format!(
                                "an import circle: {around}: move what both need into one of them or a file below both"
                            ),
                        ));
                    }
                } else if seen.insert(next.clone()) {
                    let mut longer = trail.clone();
                    longer.push(next.clone());
                    stack.push((next.clone(), longer));
                }
            }
        }
    }
    offences
}

// ---------------------------------------------------------------------------
// The checks, each over one file's path and text.

/// The top-level module of a file under `src/`: `storage` for
/// `src/storage/sled/mod.rs`, `server` for `src/server.rs`.
fn module_of(path: &str) -> Option<&str> {
    let rest = path.strip_prefix("src/")?;
    let first = rest.split('/').next()?;
    Some(if rest.contains('/') { first } else { first.strip_suffix(".rs").unwrap_or(first) })
}

fn layer(module: &str) -> Option<u8> {
    let module = ROOT_REEXPORTS.iter().find(|(name, _)| *name == module).map_or(module, |(_, from)| from);
    LAYERS.iter().find(|(name, _)| *name == module).map(|(_, level)| *level)
}

fn is_transport_crate(name: &str) -> bool {
    TRANSPORT_CRATES.iter().any(|t| name == *t || name.strip_prefix(t).is_some_and(|rest| rest.starts_with('_')))
}

/// (a) A domain module names a transport crate.
fn check_transport_imports(path: &str, text: &str) -> Vec<Offence> {
    let Some(module) = module_of(path) else { return Vec::new() };
    if !DOMAIN.contains(&module) {
        return Vec::new();
    }
    path_roots(&tokens(&code_only(text)))
        .into_iter()
        .filter(|(root, _)| is_transport_crate(root))
        .map(|(root, line)| {
            Offence::new(
                path,
                line,
                format!("`{module}` is domain and names the transport crate `{root}`: map to and from it in grpc/ or gateway/"),
            )
        })
        .collect()
}

/// (b) A module names, through `crate::`, a module of its own layer or above.
/// A module of its own that is not in [`LAYERS`] is reported by
/// [`check_placed`] instead.
fn check_layers(path: &str, text: &str) -> Vec<Offence> {
    let Some(module) = module_of(path) else { return Vec::new() };
    let Some(own) = layer(module) else { return Vec::new() };
    let mut offences = Vec::new();
    for (target, line) in crate_paths(&tokens(&code_only(text))) {
        if target == module || target == "self" || target == "super" {
            continue;
        }
        match layer(&target) {
            None => offences.push(Offence::new(
                path,
                line,
                format!("`crate::{target}` is not in the layer table: place it in LAYERS in tests/tidy.rs"),
            )),
            Some(level) if level == own && !BESIDE.contains(&(module, target.as_str())) => offences.push(Offence::new(
                path,
                line,
                format!("`{module}` imports `crate::{target}`, both at layer {level}: modules of one layer may not import each other"),
            )),
            Some(level) if level > own => offences.push(Offence::new(
                path,
                line,
                format!("`{module}` (layer {own}) imports `crate::{target}` (layer {level}): imports point only down"),
            )),
            Some(_) => {}
        }
    }
    offences
}

/// (b) Every entry of `src/` (`storage`, `error.rs`) is in the layer table.
fn check_placed(entries: &[String]) -> Vec<Offence> {
    entries
        .iter()
        .filter(|entry| entry.ends_with(".rs") || !entry.contains('.'))
        .filter(|entry| layer(entry.strip_suffix(".rs").unwrap_or(entry)).is_none())
        .map(|entry| {
            Offence::new(
                &format!("src/{entry}"),
                1,
                "not in the layer table: place it in LAYERS in tests/tidy.rs (which layers may it import, which may import it?)",
            )
        })
        .collect()
}

/// (c) A module's first non-empty line is not a `//!` line.
fn check_module_doc(path: &str, text: &str) -> Vec<Offence> {
    match text.lines().enumerate().find(|(_, line)| !line.trim().is_empty()) {
        Some((_, line)) if line.trim_start().starts_with("//!") => Vec::new(),
        Some((n, _)) => vec![Offence::new(path, n + 1, "a module starts with a `//!` line saying what it is for")],
        None => vec![Offence::new(path, 1, "an empty module: say what it is for in a `//!` line, or remove it")],
    }
}

/// (d) A file over [`MAX_LINES`] lines that `allowed` does not list.
fn check_length_with(path: &str, text: &str, allowed: &[&str]) -> Vec<Offence> {
    let lines = text.lines().count();
    if lines <= MAX_LINES || allowed.contains(&path) {
        return Vec::new();
    }
    vec![Offence::new(
        path,
        MAX_LINES + 1,
        format!("{lines} lines, over {MAX_LINES}: split it, or list it in LONG_FILES in tests/tidy.rs saying why"),
    )]
}

fn check_length(path: &str, text: &str) -> Vec<Offence> {
    check_length_with(path, text, LONG_FILES)
}

/// Every function of `text` with a body, as (name, line of its `fn`, lines
/// from there to its closing brace); a function inside another counts in
/// both.
fn functions(text: &str) -> Vec<(String, usize, usize)> {
    let toks = tokens(&code_only(text));
    let mut found = Vec::new();
    for (i, (tok, line)) in toks.iter().enumerate() {
        let (Tok::Ident(kw), Some((Tok::Ident(name), _))) = (tok, toks.get(i + 1)) else { continue };
        if kw != "fn" {
            continue;
        }
        // The body opens at the first `{` outside the signature's brackets;
        // a `;` first is a declaration without one.
        let mut depth = 0i32;
        let mut open = None;
        for (j, (tok, _)) in toks.iter().enumerate().skip(i + 2) {
            match tok {
                Tok::Punct('(' | '[' | '<') => depth += 1,
                Tok::Punct(')' | ']') => depth -= 1,
                // `->` is not a closing angle bracket.
                Tok::Punct('>') if !matches!(toks.get(j - 1), Some((Tok::Punct('-'), _))) => depth -= 1,
                Tok::Punct(';') if depth <= 0 => break,
                Tok::Punct('{') if depth <= 0 => {
                    open = Some(j);
                    break;
                }
                _ => {}
            }
        }
        let Some(open) = open else { continue };
        let mut braces = 0;
        for (tok, end) in &toks[open..] {
            match tok {
                Tok::Punct('{') => braces += 1,
                Tok::Punct('}') => {
                    braces -= 1;
                    if braces == 0 {
                        found.push((name.clone(), *line, end - line + 1));
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    found
}

/// A function over [`MAX_FUNCTION_LINES`] lines that `allowed` does not
/// list (as `path:name`).
fn check_function_length_with(path: &str, text: &str, allowed: &[&str]) -> Vec<Offence> {
    functions(text)
        .into_iter()
        .filter(|(name, _, lines)| *lines > MAX_FUNCTION_LINES && !allowed.contains(&format!("{path}:{name}").as_str()))
        .map(|(name, line, lines)| {
            Offence::new(
                path,
                line,
                format!("`{name}` is {lines} lines, over {MAX_FUNCTION_LINES}: split it, or list it in LONG_FUNCTIONS in tests/tidy.rs saying why"),
            )
        })
        .collect()
}

fn check_function_length(path: &str, text: &str) -> Vec<Offence> {
    check_function_length_with(path, text, LONG_FUNCTIONS)
}

/// A file module `x.rs` beside a folder `x/`: the tree's one layout is
/// `x/mod.rs` for a module with children. `paths` are the `src/...` paths
/// of every `.rs` file; a folder is there when a file is in it.
fn check_module_layout(paths: &[String]) -> Vec<Offence> {
    paths
        .iter()
        .filter_map(|path| {
            let stem = path.strip_suffix(".rs")?;
            let folder = format!("{stem}/");
            paths.iter().any(|other| other.starts_with(&folder)).then(|| {
                Offence::new(
                    path,
                    1,
                    format!("a file module beside its folder `{folder}`: move it to `{stem}/mod.rs` (git mv)"),
                )
            })
        })
        .collect()
}

/// (e) `unsafe` in `src/`.
fn check_unsafe(path: &str, text: &str) -> Vec<Offence> {
    tokens(&code_only(text))
        .into_iter()
        .filter(|(tok, _)| *tok == Tok::Ident("unsafe".into()))
        .map(|(_, line)| {
            Offence::new(path, line, "`unsafe` in src/: the store is safe Rust (Cargo.toml denies unsafe_code)")
        })
        .collect()
}

// ---------------------------------------------------------------------------
// The tree.

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `src/`, as (`src/...` path, text), in order.
fn sources() -> Vec<(String, String)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in fs::read_dir(dir).unwrap_or_else(|e| panic!("reading {}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(&root().join("src"), &mut files);
    files.sort();
    let files: Vec<(String, String)> = files
        .into_iter()
        .map(|file| {
            let rel = file.strip_prefix(root()).unwrap().to_string_lossy().replace('\\', "/");
            let text = fs::read_to_string(&file).unwrap_or_else(|e| panic!("reading {rel}: {e}"));
            (rel, text)
        })
        .collect();
    assert!(files.len() > 10, "found only {} files under src/", files.len());
    files
}

fn over_tree(check: fn(&str, &str) -> Vec<Offence>) -> Vec<Offence> {
    sources().iter().flat_map(|(path, text)| check(path, text)).collect()
}

#[test]
fn domain_imports_no_transport() {
    assert_none("the domain imports a transport crate", over_tree(check_transport_imports));
}

#[test]
fn imports_point_down() {
    let entries: Vec<String> = fs::read_dir(root().join("src"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let mut offences = check_placed(&entries);
    offences.extend(over_tree(check_layers));
    assert_none("an import points up or sideways", offences);
}

#[test]
fn files_import_no_circle() {
    assert_none("files import each other", check_circles(&sources()));
}

#[test]
fn modules_say_what_they_are_for() {
    assert_none("a module does not start with `//!`", over_tree(check_module_doc));
}

#[test]
fn files_stay_short() {
    let mut offences = over_tree(check_length);
    for &allowed in LONG_FILES {
        let lines = fs::read_to_string(root().join(allowed)).map(|t| t.lines().count()).unwrap_or(0);
        if lines <= MAX_LINES {
            offences.push(Offence::new(
                allowed,
                1,
                format!("listed in LONG_FILES but {lines} lines: remove the entry"),
            ));
        }
    }
    assert_none("a file is too long", offences);
}

#[test]
fn functions_stay_short() {
    let mut offences = over_tree(check_function_length);
    let all: Vec<String> = sources()
        .iter()
        .flat_map(|(path, text)| {
            functions(text).into_iter().filter(|f| f.2 > MAX_FUNCTION_LINES).map(move |f| format!("{path}:{}", f.0))
        })
        .collect();
    for &allowed in LONG_FUNCTIONS {
        if !all.iter().any(|f| f == allowed) {
            offences.push(Offence::new(
                allowed,
                1,
                "listed in LONG_FUNCTIONS but not over the limit: remove the entry",
            ));
        }
    }
    assert_none("a function is too long", offences);
}

#[test]
fn modules_with_children_are_folders() {
    let paths: Vec<String> = sources().into_iter().map(|(path, _)| path).collect();
    assert_none("a file module sits beside its folder", check_module_layout(&paths));
}

#[test]
fn src_has_no_unsafe() {
    assert_none("unsafe code in src/", over_tree(check_unsafe));
}

// ---------------------------------------------------------------------------
// The clients' reason tables.

/// A client's hand-written error layer and how to read the reasons its
/// table maps from it.
struct Client {
    name: &'static str,
    path: &'static str,
    /// Text on the table's first line, where an offence points.
    marker: &'static str,
    reasons: fn(&str) -> Result<BTreeSet<String>, String>,
}

const CLIENTS: &[Client] = &[
    Client {
        name: "python",
        path: "clients/python/crdstore/errors.py",
        marker: "_BY_REASON:",
        reasons: python_reasons,
    },
    Client {
        name: "typescript",
        path: "clients/typescript/src/errors.ts",
        marker: "const byReason",
        reasons: typescript_reasons,
    },
    Client { name: "go", path: "clients/go/errors.go", marker: "var (", reasons: go_reasons },
];

/// The lines from the first that starts with `start` to the first after it
/// that starts with `end`, both excluded, trimmed.
fn between<'a>(text: &'a str, start: &str, end: &str) -> Result<Vec<&'a str>, String> {
    let mut lines = text.lines().map(str::trim).skip_while(|l| !l.starts_with(start));
    if lines.next().is_none() {
        return Err(format!("no line starting with `{start}`"));
    }
    let mut body = Vec::new();
    for line in lines {
        if line.starts_with(end) {
            return Ok(body);
        }
        body.push(line);
    }
    Err(format!("no line starting with `{end}` after `{start}`"))
}

/// The double-quoted strings of a line.
fn quoted(line: &str) -> Vec<String> {
    line.split('"').skip(1).step_by(2).map(str::to_string).collect()
}

/// Python: `_BY_REASON` is built from a tuple of classes, each with a
/// `reason = "..."` attribute, then `_BY_REASON["Alias"] = Class` lines; it
/// ends where `_BY_CODE` starts.
fn python_reasons(text: &str) -> Result<BTreeSet<String>, String> {
    let body = between(text, "_BY_REASON", "_BY_CODE")?;
    // The classes: every `class Name(...)`, and the first `reason = "..."` in it.
    let mut class_reason = Vec::new();
    let mut current: Option<&str> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("class ") {
            current = rest.split(['(', ':']).next();
        } else if let (Some(class), Some(reason)) = (current, line.trim().strip_prefix("reason = ")) {
            if line.starts_with(char::is_whitespace) {
                class_reason.push((class.to_string(), reason.trim_matches('"').to_string()));
                current = None;
            }
        }
    }
    let joined = body.join(" ");
    let (_, tuple) = joined.split_once("for cls in (").ok_or("no `for cls in (` in the _BY_REASON table")?;
    let tuple = tuple.split(')').next().unwrap_or_default();
    let mut reasons = BTreeSet::new();
    for class in tuple.split(',').map(str::trim).filter(|c| !c.is_empty()) {
        let reason = class_reason
            .iter()
            .find(|(name, _)| name == class)
            .ok_or(format!("the _BY_REASON table names `{class}`, which has no `reason = \"...\"`"))?;
        reasons.insert(reason.1.clone());
    }
    for line in &body {
        if let Some(rest) = line.strip_prefix("_BY_REASON[") {
            reasons.extend(quoted(rest).into_iter().take(1));
        }
    }
    Ok(reasons)
}

/// TypeScript: `const byReason ... = {` up to `};`, one `Reason,` or
/// `Reason: Class,` entry at a time.
fn typescript_reasons(text: &str) -> Result<BTreeSet<String>, String> {
    let body = between(text, "const byReason", "};")?;
    let mut reasons = BTreeSet::new();
    for line in body {
        let line = line.split("//").next().unwrap_or_default();
        for entry in line.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let key = entry.split(':').next().unwrap_or_default().trim().trim_matches(['"', '\'']);
            if !key.chars().all(|c| c.is_ascii_alphanumeric()) {
                return Err(format!("unexpected entry `{entry}` in the byReason table"));
            }
            reasons.insert(key.to_string());
        }
    }
    Ok(reasons)
}

/// Go: the `var (` block of sentinels, `ErrX = &StatusError{Reason: "X"}`.
fn go_reasons(text: &str) -> Result<BTreeSet<String>, String> {
    let start = text.find("var (\n\tErr").ok_or("no `var (` block of `Err...` sentinels")?;
    let block = &text[start..];
    let block = &block[..block.find("\n)").ok_or("the sentinels' `var (` block does not end")?];
    let mut reasons = BTreeSet::new();
    for line in block.lines().skip(1).map(str::trim).filter(|l| !l.is_empty() && !l.starts_with("//")) {
        let (_, rest) = line.split_once("&StatusError{Reason: ").ok_or(format!("unexpected sentinel line `{line}`"))?;
        reasons.extend(quoted(rest).into_iter().take(1));
    }
    Ok(reasons)
}

/// (f) Each `Reason::ALL` entry a client's table does not map.
fn check_client_reasons(client: &Client, text: &str) -> Vec<Offence> {
    let Client { name, path, marker, reasons } = client;
    let line = text.lines().position(|l| l.contains(marker)).map_or(1, |n| n + 1);
    let mapped = match reasons(text) {
        Ok(mapped) => mapped,
        Err(why) => {
            let message =
                format!("cannot read the {name} client's reason table ({why}): fix it or its reader in tests/tidy.rs");
            return vec![Offence::new(path, line, message)];
        }
    };
    Reason::ALL
        .iter()
        .filter(|reason| !mapped.contains(reason.as_str()))
        .map(|reason| {
            let message =
                format!("the {name} client maps no error class to Reason::{reason:?} (\"{}\")", reason.as_str());
            Offence::new(path, line, message)
        })
        .collect()
}

#[test]
fn clients_map_every_reason() {
    let mut offences = Vec::new();
    for client in CLIENTS {
        let text =
            fs::read_to_string(root().join(client.path)).unwrap_or_else(|e| panic!("reading {}: {e}", client.path));
        offences.extend(check_client_reasons(client, &text));
    }
    assert_none("a client does not map a server reason", offences);
}

// ---------------------------------------------------------------------------
// Self-tests: each check fires on a synthetic file, and stays quiet on a
// fine one.

fn messages(offences: &[Offence]) -> Vec<String> {
    offences.iter().map(ToString::to_string).collect()
}

#[test]
fn an_import_up_a_layer_is_reported() {
    let text = "//! Keys.\n\nuse crate::error::Error;\nuse crate::resource::Ref;\n";
    let found = check_layers("src/storage/keys.rs", text);
    assert_eq!(found.len(), 1, "{:?}", messages(&found));
    assert!(found[0]
        .to_string()
        .starts_with("src/storage/keys.rs:4: `storage` (layer 1) imports `crate::resource` (layer 5)"));
}

#[test]
fn inline_and_grouped_paths_up_a_layer_are_reported() {
    let text = "//! X.\nuse crate::{error::Error, registry::Registry};\nfn f() { crate::gateway::serve(); }\n";
    let found = messages(&check_layers("src/schema/x.rs", text));
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].starts_with("src/schema/x.rs:2: `schema` (layer 3) imports `crate::registry`"), "{found:?}");
    assert!(found[1].starts_with("src/schema/x.rs:3: `schema` (layer 3) imports `crate::gateway`"), "{found:?}");
}

#[test]
fn an_import_across_one_layer_is_reported() {
    let found = messages(&check_layers("src/watch/stream.rs", "//! S.\nuse crate::schema::Schema;\n"));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("both at layer 3"), "{found:?}");
}

#[test]
fn conversion_may_read_schemas_beside_it_but_not_the_other_way() {
    assert!(check_layers("src/conversion/x.rs", "//! C.\nuse crate::schema::Schema;\n").is_empty());
    let found = messages(&check_layers("src/schema/x.rs", "//! S.\nuse crate::conversion::x;\n"));
    assert_eq!(found.len(), 1, "{found:?}");
}

#[test]
fn imports_down_own_and_in_comments_or_strings_are_fine() {
    let text = r##"//! Fine: crate::resource in a doc comment.
use crate::error::Error;
use crate::resource::service::Resources;
use crate::Result;
/// See [`crate::gateway`].
// crate::server::Server
/* crate::grpc /* nested crate::pb */ */
const S: &str = "crate::gateway::x";
const R: &str = r#"crate::server "quoted" "#;
const C: char = '"';
fn f<'a>(x: &'a str) -> &'a str { x }
"##;
    let found = check_layers("src/resource/x.rs", text);
    assert!(found.is_empty(), "{:?}", messages(&found));
    let found = check_layers("src/watch/x.rs", "//! Watch.\nuse crate::schema::Schema;\n");
    assert_eq!(found.len(), 1, "watch and schema share a layer: {:?}", messages(&found));
}

#[test]
fn a_module_outside_the_table_is_reported() {
    let entries = ["storage".to_string(), "error.rs".to_string(), "quota".to_string(), "misc.rs".to_string()];
    let found = messages(&check_placed(&entries));
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].starts_with("src/quota:1: not in the layer table"), "{found:?}");
    assert!(found[1].starts_with("src/misc.rs:1: not in the layer table"), "{found:?}");
    let found = messages(&check_layers("src/registry/x.rs", "//! X.\nuse crate::quota::Limit;\n"));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("`crate::quota` is not in the layer table"), "{found:?}");
}

#[test]
fn a_transport_in_the_domain_is_reported() {
    let text = "//! S.\nuse tonic::Status;\nfn f() -> http::StatusCode { ::axum::x(); prost_types::Timestamp::default(); }\nextern crate hyper;\n";
    let found = messages(&check_transport_imports("src/schema/x.rs", text));
    assert_eq!(found.len(), 5, "{found:?}");
    assert!(
        found[0].starts_with("src/schema/x.rs:2: `schema` is domain and names the transport crate `tonic`"),
        "{found:?}"
    );
    for (i, name) in ["http", "axum", "prost_types", "hyper"].iter().enumerate() {
        assert!(found[i + 1].contains(&format!("crate `{name}`")), "{found:?}");
    }
    // Transports may; local names and comments do not count.
    assert!(check_transport_imports("src/grpc/status.rs", text).is_empty());
    let fine = "//! S.\n// tonic::Status\nuse crate::http::x;\nuse self::tower::y;\nfn http() {}\nconst U: &str = \"http://x\";\nfn f() { Vec::<u8>::new(); }\n";
    let found = check_transport_imports("src/storage/x.rs", fine);
    assert!(found.is_empty(), "{:?}", messages(&found));
}

#[test]
fn a_module_without_a_doc_line_is_reported() {
    let found = messages(&check_module_doc("src/storage/x.rs", "\n// Keys.\nuse std::fmt;\n"));
    assert_eq!(found, ["src/storage/x.rs:2: a module starts with a `//!` line saying what it is for"]);
    assert_eq!(check_module_doc("src/storage/x.rs", "/// Keys.\nfn f() {}\n").len(), 1);
    assert_eq!(check_module_doc("src/storage/x.rs", "").len(), 1);
    assert!(check_module_doc("src/storage/x.rs", "\n//! Keys.\n").is_empty());
}

#[test]
fn a_long_file_is_reported() {
    let long = format!("//! Long.\n{}", "fn f() {}\n".repeat(500));
    let found = messages(&check_length("src/storage/x.rs", &long));
    assert_eq!(
        found,
        ["src/storage/x.rs:501: 501 lines, over 500: split it, or list it in LONG_FILES in tests/tidy.rs saying why"]
    );
    assert!(check_length_with("src/storage/x.rs", &long, &["src/storage/x.rs"]).is_empty());
    let fits = format!("//! Fits.\n{}", "fn f() {}\n".repeat(499));
    assert!(check_length("src/storage/x.rs", &fits).is_empty());
}

#[test]
fn a_file_module_beside_its_folder_is_reported() {
    let paths = [
        "src/pb.rs",
        "src/pb/codec.rs",
        "src/storage/mod.rs",
        "src/storage/keys.rs",
        "src/server.rs",
        "src/server_tests.rs",
    ]
    .map(String::from);
    let found = messages(&check_module_layout(&paths));
    assert_eq!(found, ["src/pb.rs:1: a file module beside its folder `src/pb/`: move it to `src/pb/mod.rs` (git mv)"]);
}

#[test]
fn a_long_function_is_reported() {
    // `lines` lines from the `fn` to the closing brace.
    let function = |name: &str, lines: usize| format!("fn {name}() {{\n{}}}\n", "    step();\n".repeat(lines - 2));
    let declarations = "trait T {\n    fn declared(&self) -> Vec<u8>;\n    fn provided(&self) -> u8 { 1 }\n}\n";
    let text = format!("//! F.\n{}{}{declarations}", function("long", 81), function("fits", 80));
    let found = functions(&text);
    let expected =
        [("long", 2, 81), ("fits", 83, 80), ("provided", 165, 1)].map(|(n, at, len)| (n.to_string(), at, len));
    assert_eq!(found, expected, "a declaration has no body, and takes none from the next function");
    let found = messages(&check_function_length("src/storage/x.rs", &text));
    assert_eq!(
        found,
        ["src/storage/x.rs:2: `long` is 81 lines, over 80: split it, or list it in LONG_FUNCTIONS in tests/tidy.rs saying why"]
    );
    assert!(check_function_length_with("src/storage/x.rs", &text, &["src/storage/x.rs:long"]).is_empty());
}

#[test]
fn unsafe_in_src_is_reported() {
    let found = messages(&check_unsafe("src/storage/x.rs", "//! X.\n// unsafe\nfn f() { unsafe { g() } }\n"));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("src/storage/x.rs:3: `unsafe`"), "{found:?}");
}

/// The real client file without its first line that contains `needle`.
fn without(path: &str, needle: &str) -> String {
    let text = fs::read_to_string(root().join(path)).unwrap();
    let line = text.lines().find(|l| l.contains(needle));
    let line = line.unwrap_or_else(|| panic!("{path} has no line with `{needle}`: update this self-test"));
    text.replacen(&format!("{line}\n"), "", 1)
}

#[test]
fn a_client_missing_a_reason_is_reported() {
    let synthetic_python = r#"
class CrdstoreError(Exception):
    reason: str = "Unknown"

class NotFound(CrdstoreError):
    reason = "NotFound"

class Conflict(CrdstoreError):
    """Retry."""

    reason = "Conflict"

_BY_REASON: Dict[str, Type[CrdstoreError]] = {
    cls.reason: cls for cls in (NotFound, Conflict)
}
_BY_REASON["Gone"] = Conflict

_BY_CODE = {}
"#;
    let mapped = python_reasons(synthetic_python).unwrap();
    assert_eq!(mapped, ["Conflict", "Gone", "NotFound"].map(String::from).into());
    let client = Client { name: "python", path: "errors.py", marker: "_BY_REASON:", reasons: python_reasons };
    let found = messages(&check_client_reasons(&client, synthetic_python));
    assert_eq!(found.len(), Reason::ALL.len() - 2, "{found:?}");
    assert!(
        found.contains(&"errors.py:13: the python client maps no error class to Reason::Invalid (\"Invalid\")".into())
    );

    // The real tables, each with one reason taken out.
    for (client, needle) in CLIENTS.iter().zip(["TooManyRequests,", "TooManyRequests,", "Reason: \"TooManyRequests\""])
    {
        let text = without(client.path, needle);
        let found = messages(&check_client_reasons(client, &text));
        assert_eq!(found.len(), 1, "{found:?}");
        let expected =
            format!("the {} client maps no error class to Reason::TooManyRequests (\"TooManyRequests\")", client.name);
        assert!(found[0].starts_with(&format!("{}:", client.path)) && found[0].ends_with(&expected), "{found:?}");
    }

    // A table the reader cannot find is reported, not passed.
    let found = messages(&check_client_reasons(&CLIENTS[2], "package crdstore\n"));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("cannot read the go client's reason table"), "{found:?}");
}

#[test]
fn an_import_circle_is_reported_and_a_module_with_its_children_is_not() {
    let file = |path: &str, text: &str| (path.to_string(), format!("//! F.\n{text}"));
    let files = vec![
        file("src/w/mod.rs", "mod a;\nmod b;\nmod c;\nuse self::a::A;\n"),
        file("src/w/a.rs", "use super::b::B;\nuse super::*;\n"),
        file("src/w/b.rs", "use super::{c::{self, C}, d};\n"),
        file("src/w/c.rs", "fn f() { crate::w::a::A::new(); }\n"),
        file("src/w/d.rs", "use super::super::x::Y;\n"),
        file("src/x.rs", "use crate::w::d;\n"),
    ];
    let found = messages(&check_circles(&files));
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].contains("src/w/a.rs -> src/w/b.rs -> src/w/c.rs -> src/w/a.rs"), "{found:?}");
    assert!(found[1].contains("src/w/d.rs -> src/x.rs -> src/w/d.rs"), "{found:?}");
}

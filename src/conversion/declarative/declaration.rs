//! The declarations as authors write them (`spec.versions[i].conversion`):
//! per target version, a `rename` shorthand and a list of rules, each a
//! rename, a default or a CEL pair; the rules of a declaration in order,
//! and where each sits in the definition.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `spec.versions[i].conversion`: crdstore's field, which Kubernetes'
/// version type does not have.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct VersionConversion {
    /// By target version: how this version becomes it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub declarative: BTreeMap<String, Declaration>,
}

/// How one version becomes another: the design's single `rename`, a list
/// of `rules`, or both (the rename first).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Declaration {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rename: Option<Rename>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<Vec<Rule>>,
}

/// One rule: exactly one of its fields is set.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Rule {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rename: Option<Rename>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<DefaultValue>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cel: Option<Cel>,
}

/// The field at `from` (in the source version) is the field at `to` (in
/// the target version).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Rename {
    #[serde(default)]
    pub from: String,
    #[serde(default)]
    pub to: String,
}

/// A field only the target version has: set to `value` on the way there,
/// dropped on the way back (its value kept for the round trip when it is
/// not `value`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DefaultValue {
    #[serde(default)]
    pub path: String,
    #[serde(default)]
    pub value: Value,
}

/// The field at `to` is `forward` of the field at `from`, and the field at
/// `from` is `backward` of the field at `to`; `self` is the field read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Cel {
    #[serde(default)]
    pub from: String,
    #[serde(default)]
    pub to: String,
    #[serde(default)]
    pub forward: String,
    #[serde(default)]
    pub backward: String,
}

/// A version of the definition, as the engine needs it.
#[derive(Debug, Clone, Copy)]
pub struct Version<'a> {
    pub name: &'a str,
    pub served: bool,
    pub storage: bool,
    /// Its `schema.openAPIV3Schema`.
    pub schema: Option<&'a Value>,
    pub conversion: Option<&'a VersionConversion>,
}

/// The rules of a declaration in order, each with its path in the
/// definition: the `rename` shorthand first, then `rules`.
pub(crate) fn rules_of<'d>(declaration: &'d Declaration, at: &str) -> Vec<(String, RuleRef<'d>)> {
    let mut out = Vec::new();
    if let Some(rename) = &declaration.rename {
        out.push((format!("{at}.rename"), RuleRef::Rename(rename)));
    }
    for (i, rule) in declaration.rules.iter().flatten().enumerate() {
        let at = format!("{at}.rules[{i}]");
        match (&rule.rename, &rule.default, &rule.cel) {
            (Some(r), None, None) => out.push((format!("{at}.rename"), RuleRef::Rename(r))),
            (None, Some(d), None) => out.push((format!("{at}.default"), RuleRef::Default(d))),
            (None, None, Some(c)) => out.push((format!("{at}.cel"), RuleRef::Cel(c))),
            _ => out.push((at, RuleRef::Malformed)),
        }
    }
    out
}

/// One rule of a declaration, as written.
#[derive(Debug, Clone, Copy)]
pub(crate) enum RuleRef<'d> {
    Rename(&'d Rename),
    Default(&'d DefaultValue),
    Cel(&'d Cel),
    /// Not exactly one kind of rule set.
    Malformed,
}

/// The path in the definition of a version's declaration for `target`.
pub(crate) fn declaration_path(index: usize, target: &str) -> String {
    format!("spec.versions[{index}].conversion.declarative.{target}")
}

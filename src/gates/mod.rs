//! Field-level feature gates of custom resources (`spec.customFeatureGates`
//! of a definition): the field's types, its validation at definition write
//! (`validate`), and the gating a write gets in the strategy's prepare phase
//! (`Gates::apply`): a field of a disabled gate is dropped unless the stored
//! object has it, then the stored value is kept. Paths name fields of the
//! storage version, so gating runs after conversion and before storing.

mod apply;
mod validate;

use serde::{Deserialize, Serialize};

pub use apply::Gates;
pub use validate::validate;

/// The stages a gate may be at (`preRelease`).
pub const STAGES: &[&str] = &["alpha", "beta", "stable", "deprecated"];

/// `spec.customFeatureGates`: one gate set per definition, the same for all
/// of its versions.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomFeatureGates {
    /// Shown when gates are listed (`istio`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub component: Option<String>,
    #[serde(default)]
    pub feature_gates: Vec<FeatureGate>,
}

/// One gate and the storage-version fields it guards.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FeatureGate {
    /// Unique within the definition.
    #[serde(default)]
    pub name: String,
    /// alpha, beta, stable or deprecated.
    #[serde(default)]
    pub pre_release: String,
    /// alpha defaults to false, stable to true; beta and deprecated must
    /// state it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<bool>,
    /// Unset falls back to `default`; a stable gate is on whatever it says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// Only on deprecated gates: the warning a write setting one of its
    /// fields gets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deprecated_warning: Option<String>,
    /// Simple dot paths (`.spec.replicas`) of the storage version.
    #[serde(default)]
    pub field_paths: Vec<String>,
}

impl FeatureGate {
    /// The default as stated, or the stage's: false for alpha (and for a
    /// beta or deprecated gate that failed to state one), true for stable.
    pub fn default_value(&self) -> bool {
        self.default.unwrap_or(self.pre_release == "stable")
    }

    /// Whether the gate lets its fields through: a stable gate always; any
    /// other its `enabled`, or its default when unset.
    pub fn effective(&self) -> bool {
        self.pre_release == "stable" || self.enabled.unwrap_or_else(|| self.default_value())
    }
}

/// One gate as listed (`ListFeatureGates`, `kubectl feature-gates`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Listed {
    /// The definition's name (`crontabs.stable.example.com`).
    pub definition: String,
    pub component: String,
    pub name: String,
    pub stage: String,
    pub default: bool,
    /// As set; `None` when it falls back to the default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// Whether the gate lets its fields through now.
    pub effective: bool,
    pub paths: Vec<String>,
}

/// The gates of one definition as listed, in their order.
pub fn list(definition: &str, gates: &CustomFeatureGates) -> Vec<Listed> {
    gates
        .feature_gates
        .iter()
        .map(|g| Listed {
            definition: definition.to_string(),
            component: gates.component.clone().unwrap_or_default(),
            name: g.name.clone(),
            stage: g.pre_release.clone(),
            default: g.default_value(),
            enabled: g.enabled,
            effective: g.effective(),
            paths: g.field_paths.clone(),
        })
        .collect()
}

/// The segments of a simple dot path (`.spec.replicas` → `spec`,
/// `replicas`).
pub fn segments(path: &str) -> Vec<String> {
    path.trim_start_matches('.').split('.').filter(|s| !s.is_empty()).map(str::to_string).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gate(stage: &str, default: Option<bool>, enabled: Option<bool>) -> FeatureGate {
        FeatureGate { name: "G".into(), pre_release: stage.into(), default, enabled, ..Default::default() }
    }

    #[test]
    fn the_effective_state_follows_enabled_then_the_default_and_stable_is_always_on() {
        assert!(!gate("alpha", None, None).effective());
        assert!(gate("alpha", None, Some(true)).effective());
        assert!(gate("beta", Some(true), None).effective());
        assert!(!gate("beta", Some(true), Some(false)).effective());
        assert!(gate("stable", None, Some(false)).effective());
        assert!(gate("stable", None, None).default_value());
        assert!(!gate("deprecated", Some(false), None).effective());
    }

    #[test]
    fn the_field_round_trips_in_kubernetes_spelling() {
        let json = serde_json::json!({"component": "istio", "featureGates": [{"name": "A", "preRelease": "alpha",
            "enabled": true, "fieldPaths": [".spec.replicas"]}]});
        let gates: CustomFeatureGates = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(gates.feature_gates[0].field_paths, vec![".spec.replicas"]);
        assert_eq!(serde_json::to_value(&gates).unwrap(), json);
        let listed = list("crontabs.example.com", &gates);
        assert_eq!(listed[0].component, "istio");
        assert!(listed[0].effective && !listed[0].default);
    }
}

//! What a page part's CEL rules computed, by rule and input: within the
//! part an input met again (a field most objects share, a timeout or a
//! tier, say) is computed once. A CEL rule's value depends only on its
//! input (crdstore's CEL environment has no clock and no randomness); the
//! one exception is the order in which a map's entries are walked, which
//! CEL leaves unspecified, so an expression whose result depends on it
//! gives one of its results for the whole part, as it could give any of
//! them for each object. Inputs are keyed by their JSON as stored
//! (compact, borrowed from the page), and the memo is bounded in entries
//! and in the size of the inputs it keeps.

use std::collections::HashMap;
use std::sync::Arc;

use super::shape::Computed;

/// At most this many inputs are kept; past it, rules are evaluated as
/// they come.
const ENTRIES: usize = 4096;

/// Inputs longer than this (in JSON bytes) are evaluated, not kept.
const INPUT_BYTES: usize = 1024;

/// A rule as the memo knows it: its edge, its place in the edge's rules,
/// and whether it is walked forward.
pub(super) type RuleKey = (usize, usize, bool);

/// The outcome of a CEL rule for each input met: the value computed (with
/// its JSON, written out as it is by every object that shares it), or
/// None when the rule fails or does not give the input back. Hashed with
/// a seed of the process's own, as the inputs are users' data.
#[derive(Default)]
pub struct Memo<'a> {
    seen: HashMap<(RuleKey, &'a str), Option<Arc<Computed>>, foldhash::fast::RandomState>,
}

impl<'a> Memo<'a> {
    /// What `compute` gives for `input` (the JSON of the rule's input),
    /// computed once per rule and input while the memo has room.
    pub(super) fn outcome(
        &mut self,
        rule: RuleKey,
        input: &'a str,
        compute: impl FnOnce() -> Option<Arc<Computed>>,
    ) -> Option<Arc<Computed>> {
        if input.len() > INPUT_BYTES {
            return compute();
        }
        if let Some(known) = self.seen.get(&(rule, input)) {
            return known.clone();
        }
        let outcome = compute();
        if self.seen.len() < ENTRIES {
            self.seen.insert((rule, input), outcome.clone());
        }
        outcome
    }

    /// How many inputs are kept.
    #[cfg(test)]
    fn kept(&self) -> usize {
        self.seen.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn an_input_is_computed_once_per_rule_while_there_is_room() {
        let mut memo = Memo::default();
        let mut calls = 0;
        let mut run = |memo: &mut Memo<'static>, rule: RuleKey, input: &'static str| {
            memo.outcome(rule, input, || {
                calls += 1;
                (input != "0").then(|| Computed::new(Value::String(format!("{input}s"))))
            })
        };
        assert_eq!(run(&mut memo, (0, 3, true), "30"), Some(Computed::new(Value::String("30s".into()))));
        assert_eq!(run(&mut memo, (0, 3, true), "30").map(|c| c.json.to_string()), Some("\"30s\"".to_string()));
        assert_eq!(run(&mut memo, (0, 3, true), "0"), None);
        assert_eq!(run(&mut memo, (0, 3, true), "0"), None, "a failure is kept too");
        run(&mut memo, (0, 3, false), "30");
        run(&mut memo, (1, 3, true), "30");
        let long: &'static str = Box::leak("9".repeat(INPUT_BYTES + 1).into_boxed_str());
        run(&mut memo, (0, 3, true), long);
        run(&mut memo, (0, 3, true), long);
        assert_eq!(calls, 6, "each rule and input once; a long input each time");
        assert_eq!(memo.kept(), 4);
        for i in 0..ENTRIES * 2 {
            let input: &'static str = Box::leak(i.to_string().into_boxed_str());
            memo.outcome((2, 0, true), input, || None);
        }
        assert_eq!(memo.kept(), ENTRIES, "bounded");
    }
}

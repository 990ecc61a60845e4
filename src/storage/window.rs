//! The history window: how much of the event log is kept. A revision may be
//! compacted only once it is both older than `min_age` and more than
//! `min_revisions` behind the latest revision, so the window always holds at
//! least that much time and that many revisions.

use std::time::Duration;

use crate::storage::Revision;

/// How much history to keep. The window survives restarts because it is
/// computed from the durable log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistoryWindow {
    /// Keep every revision younger than this.
    pub min_age: Duration,
    /// Keep at least this many of the latest revisions.
    pub min_revisions: u64,
}

impl Default for HistoryWindow {
    fn default() -> Self {
        Self { min_age: Duration::from_secs(5 * 60), min_revisions: 10_000 }
    }
}

impl HistoryWindow {
    /// Whether the commit at `revision`, made at `committed_at_ms` (Unix ms),
    /// may be dropped when the latest revision is `current` and it is `now_ms`.
    pub fn may_compact(&self, revision: Revision, committed_at_ms: i64, current: Revision, now_ms: i64) -> bool {
        let behind = current.since(revision);
        let age_ms = now_ms.saturating_sub(committed_at_ms);
        behind >= self.min_revisions as i64 && age_ms >= self.min_age.as_millis() as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_what_is_recent_by_either_measure() {
        let w = HistoryWindow { min_age: Duration::from_secs(300), min_revisions: 10_000 };
        let now = 1_000_000_000;
        let old = now - 301_000;
        assert!(w.may_compact(Revision::new(1), old, Revision::new(10_001), now));
        assert!(!w.may_compact(Revision::new(2), old, Revision::new(10_001), now), "within the last 10,000 revisions");
        assert!(
            !w.may_compact(Revision::new(1), now - 299_000, Revision::new(50_000), now),
            "younger than five minutes"
        );
    }
}

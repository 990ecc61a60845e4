//! Unit tests of the collector's pace: deletes spread at the rate asked for.

use super::*;

#[tokio::test]
async fn the_pace_holds_the_rate() {
    let mut pace = Pace::new(1_000);
    let start = Instant::now();
    for _ in 0..10 {
        pace.wait(20).await;
    }
    let took = start.elapsed();
    assert!(took >= Duration::from_millis(150), "200 at 1,000/s: {took:?}");
    let mut free = Pace::new(0);
    free.wait(1_000_000).await;
}

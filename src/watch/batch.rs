//! Batches of what a stream has ready, bounded in items and bytes, made
//! only when the consumer asks for the next: the watch pool's hand-offs and
//! the HTTP watch body's chunks, so neither holds more than one batch of a
//! watcher that does not read.

use futures::{Stream, StreamExt};

/// `items` in batches: the next item (waited for), then what is ready
/// after it, up to `max_items` items and about `max_bytes` bytes by `size`
/// (an item larger than that goes alone).
pub fn ready<T>(
    items: impl Stream<Item = T> + Unpin,
    max_items: usize,
    max_bytes: usize,
    size: impl Fn(&T) -> usize,
) -> impl Stream<Item = Vec<T>> {
    // Fused: the look for what is ready may meet the end, then asks again.
    let mut items = items.fuse();
    async_stream::stream! {
        while let Some(first) = items.next().await {
            let mut bytes = size(&first);
            let mut batch = vec![first];
            while batch.len() < max_items && bytes < max_bytes {
                let Some(Some(next)) = futures::FutureExt::now_or_never(items.next()) else { break };
                bytes += size(&next);
                batch.push(next);
            }
            yield batch;
        }
    }
}

//! Thread priorities: the `nice` of background work, and the one call that
//! lowers a thread's priority to it (the watch pool's threads, and the
//! threads large objects render on).

/// The `nice` of background work, which the kernel's scheduler weighs at
/// about a tenth of a request thread when both want a core.
pub const BACKGROUND_NICE: i32 = 10;

/// Adds `nice` to the calling thread's nice value, at most 19 (Linux's
/// `setpriority` on a thread id is per thread). A failure is logged and the
/// thread runs at the process's priority.
pub fn lower_priority(nice: i32) {
    let thread = rustix::thread::gettid();
    let result = rustix::process::getpriority_process(Some(thread))
        .and_then(|current| rustix::process::setpriority_process(Some(thread), (current + nice).min(19)));
    if let Err(err) = result {
        tracing::warn!(%err, "watch threads run at the priority of requests");
    }
}

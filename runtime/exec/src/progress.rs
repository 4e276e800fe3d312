//! How far running plans have got, for progress displays (`irgc run` shows a spinner on a terminal once a run
//! takes over a second). One process-wide counter: it only ever feeds a display, so runs in parallel threads
//! adding to the same count is harmless, and no run has to pass a handle around.

use std::sync::atomic::{AtomicU64, Ordering};

static LAUNCHES: AtomicU64 = AtomicU64::new(0);

/// Kernel launches made by this process so far (an outlined pipe counts its rounds' launches when it ends).
pub fn launches_so_far() -> u64 {
    LAUNCHES.load(Ordering::Relaxed)
}

pub(crate) fn count_launches(n: u64) {
    LAUNCHES.fetch_add(n, Ordering::Relaxed);
}

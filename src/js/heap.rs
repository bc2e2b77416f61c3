//! Growing the wasm heap ahead of a large log.

/// What reading, checking and re-applying a log takes at its peak, per UTF-16 unit of its JSON
/// Lines text: the text in wasm and the store it rebuilds, read one line at a time (the 57.5 MiB
/// log of the history benchmark peaks at 152 MiB, 2.6×; it peaked at 444 MiB, 7.8×, when the
/// whole log was parsed first and each event kept its payload as a JSON tree: issue 17).
const PEAK_PER_UNIT: usize = 3;
/// The same for a replay, which reads its text a piece at a time (the store alone): the 57.5 MiB
/// log peaks at 93 MB, 1.5×; 2 leaves room for logs of smaller events (more store per byte).
const REPLAY_PEAK_PER_UNIT: usize = 2;
/// Logs shorter than this (UTF-16 units) are read without reserving.
const RESERVE_FROM: usize = 1 << 20;

/// Makes room at once for replaying, restoring or ingesting a log of `units` UTF-16 units of
/// JSON Lines (and for verifying one, which needs less: pages reserved and never written cost
/// nothing resident). The allocator (dlmalloc) grows the linear memory by what each allocation lacks,
/// 64 KiB pages at a time, and V8 collects garbage at each growth of a wasm memory: a cold
/// replay of a 57 MiB log grew it thousands of times and ran ~1,200 collections (issue 17).
/// Allocating the room and freeing it at once leaves it free at the top of the heap (wasm memory
/// never shrinks, and pages never written cost the process no resident memory), so the work that
/// follows allocates from it: 3 collections. The room must be contiguous, so a second large log
/// read while the first store is alive can grow the memory by its whole estimate again. Best
/// effort: when the memory cannot grow that far, nothing happens.
pub(crate) fn reserve_for_log(units: usize) {
    reserve(units, PEAK_PER_UNIT);
}

/// [`reserve_for_log`] for a replay of JSON Lines text read a piece at a time.
pub(crate) fn reserve_for_replay(units: usize) {
    reserve(units, REPLAY_PEAK_PER_UNIT);
}

fn reserve(units: usize, per_unit: usize) {
    if units < RESERVE_FROM {
        return;
    }
    let mut room: Vec<u8> = Vec::new();
    let _ = room.try_reserve_exact(units.saturating_mul(per_unit));
}

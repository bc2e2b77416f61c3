//! One stable sort by a whole-number key for the whole crate.
//!
//! The standard library's stable sort is instantiated once per element type, about 7 KB of wasm
//! each (issue 17, the size row). The lists sorted here by a position, an index or a flag
//! (repair reports, tool results of one call, a message's parts) go through one sort of
//! `(key, position)` pairs instead, then are put in that order in place.

/// Sorts `items` by `key`, keeping the input order of items with equal keys (as
/// `slice::sort_by_key` does). `key` is called once per item. Already sorted input (the common
/// case) is left as it is after one pass.
pub(crate) fn sort_stable_by_key<T>(items: &mut [T], key: impl Fn(&T) -> u64) {
    let keys: Vec<u64> = items.iter().map(key).collect();
    if keys.is_sorted() {
        return;
    }
    let mut order: Vec<(u64, usize)> = keys.into_iter().zip(0..).collect();
    // Positions are distinct, so the pairs are, and an unstable sort of them is stable by key.
    order.sort_unstable();
    // `from[k]`: the position the item that ends at k starts at; each cycle of that permutation
    // is walked once, a slot marked done (usize::MAX) as it is filled.
    let mut from: Vec<usize> = order.into_iter().map(|(_, at)| at).collect();
    for start in 0..from.len() {
        let mut at = start;
        while let Some(&next) = from.get(at).filter(|&&n| n != usize::MAX) {
            if let Some(slot) = from.get_mut(at) {
                *slot = usize::MAX;
            }
            if next == start {
                break;
            }
            items.swap(at, next);
            at = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::sort_stable_by_key;

    #[test]
    fn matches_the_standard_stable_sort() {
        // Every list of up to 7 items with keys 0..3, against `sort_by_key`: ties keep their order.
        for n in 0..=7u32 {
            for code in 0..3u32.pow(n) {
                let items: Vec<(u64, u32)> = (0..n).map(|i| (u64::from(code / 3u32.pow(i) % 3), i)).collect();
                let mut ours = items.clone();
                sort_stable_by_key(&mut ours, |&(k, _)| k);
                let mut std = items;
                std.sort_by_key(|&(k, _)| k);
                assert_eq!(ours, std);
            }
        }
    }

    #[test]
    fn long_lists_and_owned_items() {
        let items: Vec<String> = (0..1000u64).map(|i| format!("{}-{i}", (i * 7919) % 13)).collect();
        let key = |s: &String| s.split('-').next().and_then(|k| k.parse().ok()).unwrap_or(0);
        let mut ours = items.clone();
        sort_stable_by_key(&mut ours, key);
        let mut std = items;
        std.sort_by_key(key);
        assert_eq!(ours, std);
    }
}

//! Scans of bytes 8 at a time (a `u64` a step, no SIMD in the wasm build): whether a text holds a
//! byte JSON escapes, how many line feeds a log holds. Each word test is exact (the bit tricks of
//! Sean Anderson's "Bit Twiddling Hacks": `haszero`, `hasless`, with no carry between bytes).

/// Whether `bytes` hold a byte JSON escapes: `"`, `\\` or one below 0x20. Exact: each word test
/// below finds whether any of its 8 bytes is such a byte (no false answer either way).
pub(crate) fn needs_escape(bytes: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // Whether some byte of `x` is below `n` (n ≤ 128); `below(x ^ c, 1)`: some byte equals `c`.
    let below = |x: u64, n: u64| x.wrapping_sub(ONES * n) & !x & HIGH != 0;
    let special =
        |x: u64| below(x, 0x20) || below(x ^ (ONES * u64::from(b'"')), 1) || below(x ^ (ONES * u64::from(b'\\')), 1);
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        if w.try_into().is_ok_and(|w| special(u64::from_le_bytes(w))) {
            return true;
        }
    }
    words.remainder().iter().any(|&b| b < 0x20 || b == b'"' || b == b'\\')
}

/// How many line feeds `text` holds, counted 8 bytes at a time (a scan of a 57 MiB log costs
/// ~1% of replaying it).
pub(crate) fn count_lines(text: &str) -> usize {
    const LOW: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let feeds = |w: u64| {
        // A byte's high bit set in `!y` exactly where `w` has a line feed (no carry between bytes).
        let x = w ^ 0x0a0a_0a0a_0a0a_0a0a;
        let y = ((x & LOW).wrapping_add(LOW) | x) & !LOW;
        (y ^ !LOW).count_ones() as usize
    };
    let mut words = text.as_bytes().chunks_exact(8);
    let mut n = 0;
    for w in &mut words {
        n += w.try_into().map_or(0, |w| feeds(u64::from_le_bytes(w)));
    }
    n + words.remainder().iter().filter(|&&b| b == b'\n').count()
}

#[cfg(test)]
mod tests {
    use super::{count_lines, needs_escape};

    #[test]
    fn every_escaped_byte_is_found_wherever_it_sits() {
        for b in 0u8..=127 {
            for len in 1..=17 {
                for at in 0..len {
                    let mut s = "y".repeat(len);
                    s.replace_range(at..at + 1, &char::from(b).to_string());
                    let naive = b < 0x20 || b == b'"' || b == b'\\';
                    assert_eq!(needs_escape(s.as_bytes()), naive, "byte {b} at {at} of {len}");
                }
            }
        }
        // Bytes of 0x80 and above (UTF-8 past ASCII) are never escaped.
        assert!(!needs_escape("é東京😀\u{2028}\u{7f}".repeat(3).as_bytes()));
    }

    #[test]
    fn line_feeds_are_counted_wherever_they_sit() {
        let bytes = ["\n", "a", "\u{a0a}", "é", "\r", "\u{8a}", "😀", "\u{b}", "\t"];
        for len in 0..40 {
            for k in 0..bytes.len() {
                let s: String = (0..len).map(|i| bytes[(i * 7 + k * 3 + i / 5) % bytes.len()]).collect();
                assert_eq!(count_lines(&s), s.bytes().filter(|&b| b == b'\n').count(), "{s:?}");
            }
        }
        assert_eq!(count_lines(&"\n".repeat(1000)), 1000);
    }
}

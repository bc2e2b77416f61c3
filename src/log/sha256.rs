//! The SHA-256 every hash of the log is made with (issue 17, row 4): RustCrypto's `sha2`, or a
//! host's own SHA-256 when one was installed ([`use_host`]) — in Node, `node:crypto`, which runs
//! on the CPU's SHA instructions faster than `sha2` compiled to wasm. Both give the same digest
//! (FIPS 180-4), so which one made a hash is never visible.
//!
//! The host is only asked for inputs of [`HOST_MIN_BYTES`] or more: below that, the call across
//! costs more than hashing here. A host that fails a call (returns `false`) is not trusted with
//! it: `sha2` hashes those bytes, so an answer is never wrong, only slower.

use sha2::{Digest, Sha256};
use std::cell::Cell;

/// A host's SHA-256: writes the digest of `bytes` into `out` and returns `true`, or returns
/// `false` (the digest is then made here).
pub type HostSha256 = fn(bytes: &[u8], out: &mut [u8; 32]) -> bool;

/// The shortest input handed to the host, in bytes. Measured in Node 20 (x86-64 with SHA-NI): a
/// call into `node:crypto` and back costs ~0.6 µs, what `sha2` in wasm takes for ~200 bytes.
pub const HOST_MIN_BYTES: usize = 256;

thread_local! {
    static HOST: Cell<Option<HostSha256>> = const { Cell::new(None) };
}

/// The FIPS 180-4 example "abc" and its digest: a host is installed only if it gives this.
const ABC: &[u8] = b"abc";
const ABC_DIGEST: [u8; 32] = [
    0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23, 0xb0, 0x03, 0x61,
    0xa3, 0x96, 0x17, 0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad,
];

/// Installs `host` as the SHA-256 of this thread (`None` goes back to `sha2` alone). Returns
/// whether it is installed: a host that does not give the FIPS 180-4 digest of "abc", and of a
/// longer input the digest `sha2` gives, is refused (and the one before it is kept).
pub fn use_host(host: Option<HostSha256>) -> bool {
    if let Some(f) = host {
        let long: Vec<u8> = (0..=HOST_MIN_BYTES as u32).map(|i| (i * 31 % 251) as u8).collect();
        for (input, digest) in [(ABC, ABC_DIGEST), (&long[..], Sha256::digest(&long).into())] {
            let mut out = [0; 32];
            if !f(input, &mut out) || out != digest {
                return false;
            }
        }
    }
    HOST.with(|h| h.set(host));
    true
}

/// The SHA-256 of `bytes`.
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    if bytes.len() >= HOST_MIN_BYTES {
        if let Some(host) = HOST.with(Cell::get) {
            let mut out = [0; 32];
            if host(bytes, &mut out) {
                return out;
            }
        }
    }
    Sha256::digest(bytes).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reversed(bytes: &[u8], out: &mut [u8; 32]) -> bool {
        *out = Sha256::digest(bytes).into();
        out.reverse();
        true
    }
    fn refusing(_: &[u8], _: &mut [u8; 32]) -> bool {
        false
    }
    thread_local! {
        static CALLS: Cell<usize> = const { Cell::new(0) };
    }
    fn counting(bytes: &[u8], out: &mut [u8; 32]) -> bool {
        CALLS.with(|c| c.set(c.get() + 1));
        *out = Sha256::digest(bytes).into();
        true
    }

    #[test]
    fn a_host_is_installed_only_if_it_is_sha256_and_asked_only_for_long_inputs() {
        assert_eq!(sha256(ABC), ABC_DIGEST);
        assert!(!use_host(Some(reversed)), "a wrong digest is refused");
        assert!(!use_host(Some(refusing)));
        let long = vec![7u8; 1000];
        let expected: [u8; 32] = Sha256::digest(&long).into();
        let short = &long[..HOST_MIN_BYTES - 1];
        assert_eq!(sha256(&long), expected);

        assert!(use_host(Some(counting)));
        let before = CALLS.with(Cell::get);
        assert_eq!(sha256(&long), expected);
        assert_eq!(sha256(short), <[u8; 32]>::from(Sha256::digest(short)));
        assert_eq!(CALLS.with(Cell::get) - before, 1, "only the input of HOST_MIN_BYTES or more went to the host");

        assert!(!use_host(Some(reversed)), "refused, and the host before it is kept");
        assert_eq!(sha256(&long), expected);
        assert_eq!(CALLS.with(Cell::get) - before, 2);
        assert!(use_host(None));
        assert_eq!(sha256(&long), expected);
        assert_eq!(CALLS.with(Cell::get) - before, 2);
    }
}

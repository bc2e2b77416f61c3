//! How a log's hashes and a checkpoint's digest are made (DESIGN §4, issue 18): SHA-256 of the
//! canonical bytes, or HMAC-SHA-256 of the same bytes under a key only the writers hold, so a
//! writer without the key can neither forge an event nor recompute the chain after a change.
//!
//! The key is never written anywhere (not in events, checkpoints or exports); the reader of a
//! keyed log passes it again. Hashes look alike either way (64 lowercase hex characters): a keyed
//! log checked without its key, or an unkeyed one checked with a key, breaks at its first event.

use super::canonical::to_hex;
use crate::error::{Error, ErrorCode, Result};
use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::rc::Rc;

/// The shortest `chainKey` accepted, in bytes. RFC 2104 §3: a key shorter than the hash's
/// output (32 bytes) weakens HMAC; 16 bytes is the floor we accept, 32 random bytes the advice.
pub const MIN_CHAIN_KEY_BYTES: usize = 16;

/// How a store hashes its events (and seals its checkpoints).
#[derive(Clone, Default, PartialEq, Eq)]
pub enum Chain {
    /// SHA-256 (no key): anyone can recompute it, so it detects accidents and edits by someone
    /// who does not also rewrite every later hash.
    #[default]
    Plain,
    /// HMAC-SHA-256 under this key.
    Keyed(Rc<[u8]>),
    /// A follower of a keyed chain that was not given the key: hashes cannot be recomputed, so
    /// only the links (run, sequence, `prev_hash`) are checked.
    Opaque,
}

impl std::fmt::Debug for Chain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Chain::Plain => "Chain::Plain",
            Chain::Keyed(_) => "Chain::Keyed(..)",
            Chain::Opaque => "Chain::Opaque",
        })
    }
}

impl Chain {
    /// A keyed chain. Errors: `INVALID_OPTION` for a key shorter than [`MIN_CHAIN_KEY_BYTES`].
    pub fn keyed(key: &[u8]) -> Result<Chain> {
        if key.len() < MIN_CHAIN_KEY_BYTES {
            return Err(Error::new(
                ErrorCode::InvalidOption,
                format!(
                    "chainKey is {} bytes; it must be at least {MIN_CHAIN_KEY_BYTES} (use 32 random bytes: crypto.getRandomValues(new Uint8Array(32)))",
                    key.len()
                ),
            )
            .field("chainKey"));
        }
        Ok(Chain::Keyed(Rc::from(key)))
    }

    /// [`Chain::keyed`] for `Some(key)`, [`Chain::Plain`] for `None`.
    pub fn from_key(key: Option<&[u8]>) -> Result<Chain> {
        key.map_or(Ok(Chain::Plain), Chain::keyed)
    }

    /// True for a keyed chain, whether or not this side holds the key.
    pub fn is_keyed(&self) -> bool {
        !matches!(self, Chain::Plain)
    }

    /// The lowercase hex digest of `bytes`: SHA-256, or HMAC-SHA-256 under the key; `None` for
    /// [`Chain::Opaque`] (the key is not here).
    pub fn digest(&self, bytes: &[u8]) -> Option<String> {
        self.digest_bytes(bytes).map(|d| to_hex(&d))
    }

    /// [`Chain::digest`] as its 32 bytes.
    pub fn digest_bytes(&self, bytes: &[u8]) -> Option<[u8; 32]> {
        match self {
            Chain::Plain => Some(super::sha256::sha256(bytes)),
            Chain::Keyed(key) => {
                // HMAC takes a key of any length (RFC 2104), so `new_from_slice` cannot fail.
                let mut mac = Hmac::<Sha256>::new_from_slice(key).ok()?;
                mac.update(bytes);
                Some(mac.finalize().into_bytes().into())
            }
            Chain::Opaque => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_is_sha256_and_keyed_is_rfc_4231_hmac() {
        assert_eq!(
            Chain::Plain.digest(b"abc").unwrap(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        // RFC 4231 test case 2 has a 4-byte key, below our floor; case 1's 20-byte key is accepted.
        let key = [0x0b_u8; 20];
        assert_eq!(
            Chain::keyed(&key).unwrap().digest(b"Hi There").unwrap(),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        );
        assert_eq!(Chain::Opaque.digest(b"abc"), None);
        let short = Chain::keyed(&[1; 15]).unwrap_err();
        assert_eq!(short.code, ErrorCode::InvalidOption);
        assert!(short.message.contains("15 bytes"), "{}", short.message);
        assert!(!format!("{:?}", Chain::keyed(&key).unwrap()).contains("11"));
    }
}

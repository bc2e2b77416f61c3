//! The host's SHA-256 for the log's hashes ([`crate::log::sha256`]): the façade hands in a
//! synchronous JS SHA-256 where the runtime has one (`node:crypto` in Node, Deno and Bun), and
//! every hash of 256 bytes or more is made by it from a view of wasm memory, without a copy.

use crate::log::sha256;
use wasm_bindgen::prelude::*;

// The digest comes back as a 32-character binary string (`node:crypto`'s "latin1" encoding),
// written into wasm memory a character a byte: a Buffer costs a native allocation per call.
// The snippet catches what the host throws itself (wasm-bindgen's `catch` wraps each call in a
// closure over `arguments`: 0.7% of a replay), and writes through one view of the memory, made
// again only when the memory has grown (or is another instance's) and its buffer is new.
#[wasm_bindgen(inline_js = "
let host = null;
let bytes = new Uint8Array(0);
export function stategate_set_sha256(f) { const before = host; host = f; return before; }
// `memory` is the calling instance's (two instances of the module share this snippet).
export function stategate_sha256(memory, ptr, len, out) {
  let d;
  try { d = host(new Uint8Array(memory.buffer, ptr, len)); } catch { return false; }
  if (typeof d !== 'string' || d.length !== 32) return false;
  if (bytes.buffer !== memory.buffer) bytes = new Uint8Array(memory.buffer);
  for (let i = 0; i < 32; i++) bytes[out + i] = d.charCodeAt(i);
  return true;
}
")]
extern "C" {
    fn stategate_set_sha256(f: &JsValue) -> JsValue;
    fn stategate_sha256(memory: &JsValue, ptr: u32, len: u32, out: u32) -> bool;
}

/// [`sha256::HostSha256`] over the installed JS function: `false` when it throws or does not
/// return 32 characters.
fn host(bytes: &[u8], out: &mut [u8; 32]) -> bool {
    // Pointers into live wasm memory: JS reads `bytes` and writes `out` before returning.
    super::interop::with_memory(|m| {
        stategate_sha256(m, bytes.as_ptr() as u32, bytes.len() as u32, out.as_mut_ptr() as u32)
    })
}

/// Installs `sha256` — a synchronous `(bytes: Uint8Array) => string` returning the SHA-256
/// digest as 32 characters of codes 0–255, `(b) => crypto.hash("sha256", b, "latin1")` with
/// `node:crypto` — as the log's SHA-256 for inputs of 256 bytes or more; anything but a function
/// goes back to the module's own. Returns whether it was taken: a function that does not give
/// SHA-256 on two test inputs is refused (the one before it stays). A call of it that throws or
/// returns anything else is answered by the module's own SHA-256. Called by the package's
/// loader (`api.ts`), not exported to users.
#[wasm_bindgen(js_name = useHostSha256)]
pub fn use_host_sha256(
    #[wasm_bindgen(unchecked_param_type = "((bytes: Uint8Array) => string) | null")] f: JsValue,
) -> bool {
    if !f.is_function() {
        return sha256::use_host(None);
    }
    let before = stategate_set_sha256(&f);
    let taken = sha256::use_host(Some(host));
    if !taken {
        stategate_set_sha256(&before);
    }
    taken
}

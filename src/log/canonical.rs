//! The canonical encoding that hashes are computed over: compact JSON with object keys sorted
//! by their UTF-8 bytes, strings and numbers written as serde_json writes them. Two events with
//! the same content hash alike whatever the key order they travelled in (JS objects reorder
//! integer-like keys, for instance).

use serde_json::Value;
use sha2::{Digest, Sha256};

/// Appends the canonical encoding of `v` to `out`.
pub fn write(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Object(map) => write_map(map, out),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write(item, out);
            }
            out.push(b']');
        }
        Value::String(s) => write_str(s, out),
        // Null, booleans and numbers: serde_json's compact form (writing to a Vec cannot fail).
        other => {
            let _ = serde_json::to_writer(&mut *out, other);
        }
    }
}

/// Appends the canonical encoding of an object: keys sorted by their UTF-8 bytes.
pub fn write_map(map: &serde_json::Map<String, Value>, out: &mut Vec<u8>) {
    let mut keys: Vec<&String> = map.keys().collect();
    keys.sort_unstable();
    out.push(b'{');
    for (i, k) in keys.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_str(k, out);
        out.push(b':');
        if let Some(v) = map.get(k) {
            write(v, out);
        }
    }
    out.push(b'}');
}

/// Appends a JSON string literal.
pub fn write_str(s: &str, out: &mut Vec<u8>) {
    let _ = serde_json::to_writer(&mut *out, s);
}

/// Lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    to_hex(&Sha256::digest(bytes))
}

/// Lowercase hex of `bytes`.
pub fn to_hex(bytes: &[u8]) -> String {
    let mut hex = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        hex.push(char::from_digit((b >> 4) as u32, 16).unwrap_or('0'));
        hex.push(char::from_digit((b & 15) as u32, 16).unwrap_or('0'));
    }
    hex
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn key_order_does_not_matter_and_values_do() {
        let mut a = Vec::new();
        let mut b = Vec::new();
        write(&json!({"b": 1, "a": [true, null, "x\"y"], "10": 0.5}), &mut a);
        write(&serde_json::from_str::<Value>(r#"{"10": 0.5, "a": [true, null, "x\"y"], "b": 1}"#).unwrap(), &mut b);
        assert_eq!(a, b);
        assert_eq!(String::from_utf8(a).unwrap(), r#"{"10":0.5,"a":[true,null,"x\"y"],"b":1}"#);
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}

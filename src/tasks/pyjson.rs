//! JSON text as Python's `json.dumps` writes it with its defaults (`", "` and `": "` separators,
//! `ensure_ascii=True`), so the tool results deepagents builds with `json.dumps` read the same.

use serde::Serialize;
use serde_json::ser::{CharEscape, Formatter};
use serde_json::Value;
use std::io::{self, Write};

struct Python;

impl Formatter for Python {
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        if first {
            Ok(())
        } else {
            w.write_all(b", ")
        }
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        if first {
            Ok(())
        } else {
            w.write_all(b", ")
        }
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }

    fn write_string_fragment<W: ?Sized + Write>(&mut self, w: &mut W, fragment: &str) -> io::Result<()> {
        for c in fragment.chars() {
            if c.is_ascii() {
                w.write_all(&[c as u8])?;
            } else {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    write!(w, "\\u{u:04x}")?;
                }
            }
        }
        Ok(())
    }

    fn write_char_escape<W: ?Sized + Write>(&mut self, w: &mut W, escape: CharEscape) -> io::Result<()> {
        // Python writes control characters as \u00XX (lower-case hex), the short escapes as JSON.
        match escape {
            CharEscape::AsciiControl(b) => write!(w, "\\u{b:04x}"),
            other => serde_json::ser::CompactFormatter.write_char_escape(w, other),
        }
    }
}

/// `v` as `json.dumps(v)` writes it.
pub fn dumps(v: &Value) -> String {
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, Python);
    // Writing a Value into memory cannot fail.
    let _ = v.serialize(&mut ser);
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::dumps;
    use serde_json::json;

    #[test]
    fn matches_python_json_dumps() {
        // python3 -c 'import json; print(json.dumps({"status": "success", "result": "héllo 🌍\n", "n": [1, 2.5, None, True]}))'
        assert_eq!(
            dumps(&json!({"status": "success", "result": "héllo 🌍\n", "n": [1, 2.5, null, true]})),
            r#"{"status": "success", "result": "h\u00e9llo \ud83c\udf0d\n", "n": [1, 2.5, null, true]}"#
        );
        assert_eq!(dumps(&json!({"e": "\u{1}\"\\"})), r#"{"e": "\u0001\"\\"}"#);
    }
}

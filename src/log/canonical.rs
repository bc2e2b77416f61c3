//! The canonical encoding that hashes are computed over: compact JSON with object keys sorted
//! by their UTF-8 bytes, strings and numbers written as serde_json writes them. Two events with
//! the same content hash alike whatever the key order they travelled in (JS objects reorder
//! integer-like keys, for instance).
//!
//! [`write`] encodes a JSON tree; [`to_writer`] encodes any `Serialize` value straight from its
//! fields (a message, an event as the store holds it) with the very same bytes as
//! `write(&serde_json::to_value(v))`, without building the tree (issue 17: re-encoding events
//! as trees was a quarter of a replay).

use serde::ser::{self, Impossible, Serialize};
use serde_json::Value;

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

/// Appends a JSON string literal, as `serde_json` writes it. A string with nothing to escape (no
/// `"`, `\\` or control character: most texts) is copied whole, found 8 bytes at a time; any
/// other goes through `serde_json`'s escaping (a tenth of a replay was that routine's byte loop).
pub fn write_str(s: &str, out: &mut Vec<u8>) {
    if super::scan::needs_escape(s.as_bytes()) {
        let _ = serde_json::to_writer(&mut *out, s);
    } else {
        out.reserve(s.len() + 2);
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    }
}

/// Appends the canonical encoding of `v`: the bytes [`write`] gives for `serde_json::to_value(v)`
/// (maps and structs with their keys sorted, a key written twice kept once with its last value,
/// as a JSON object keeps it; a non-finite float as `null`). Errors only where `to_value` fails
/// (a map key that is a float that is not finite, or not a scalar); `out` may then hold a partial encoding.
pub fn to_writer<T: Serialize + ?Sized>(v: &T, out: &mut Vec<u8>) -> Result<(), CanonError> {
    thread_local! {
        static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
    }
    SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut scratch) => v.serialize(Canon { out, scratch: &mut scratch }),
        // An encoding inside another (a commitment inside a payload): room of its own.
        Err(_) => v.serialize(Canon { out, scratch: &mut Scratch::default() }),
    })
}

/// Lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    to_hex(&super::sha256::sha256(bytes))
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

/// Why a value has no canonical encoding: what `serde_json::to_value` would refuse.
#[derive(Debug)]
pub struct CanonError(String);

impl std::fmt::Display for CanonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CanonError {}

impl ser::Error for CanonError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        CanonError(msg.to_string())
    }
}

/// A scalar as serde_json writes it (writing to a `Vec` cannot fail).
fn scalar<T: Serialize + ?Sized>(v: &T, out: &mut Vec<u8>) {
    let _ = serde_json::to_writer(&mut *out, v);
}

/// Room reused while encoding: the entry lists of the objects being written, and the copy of
/// an object's bytes while its entries are put in order. Keeping it across calls
/// ([`Encoder`]) makes an encoding allocate nothing once warm.
#[derive(Default)]
struct Scratch {
    lists: Vec<Vec<Entry>>,
    bytes: Vec<u8>,
    text: String,
}

/// The canonical serializer: writes into `out`.
struct Canon<'a> {
    out: &'a mut Vec<u8>,
    scratch: &'a mut Scratch,
}

/// An entry's key, for ordering: a struct field's name, the text of a key as written (when it
/// needed no escape, the bytes between its quotes in the output), or a key kept aside.
enum Key {
    Static(&'static str),
    Written(usize, usize),
    Kept(Box<str>),
}

/// One entry of an object being written: its key and where `"key":value` lies in the output.
struct Entry {
    key: Key,
    start: usize,
    end: usize,
}

impl Entry {
    /// The key's UTF-8 bytes (`out` is the output the entry was written to).
    fn key<'k>(&'k self, out: &'k [u8]) -> &'k [u8] {
        match &self.key {
            Key::Static(k) => k.as_bytes(),
            Key::Written(a, b) => out.get(*a..*b).unwrap_or_default(),
            Key::Kept(k) => k.as_bytes(),
        }
    }
}

/// An object being written: its entries go out in the order given, then are put in key order
/// if they are not in it already (struct fields rarely are).
struct Object<'a> {
    out: &'a mut Vec<u8>,
    scratch: &'a mut Scratch,
    /// Where the first entry starts (after the `{`).
    first: usize,
    entries: Vec<Entry>,
    /// Where the entry whose key `serialize_key` wrote starts, until its value comes.
    pending: Option<(usize, Key)>,
    /// For a struct variant: close the wrapping object too.
    close_outer: bool,
}

impl<'a> Object<'a> {
    fn begin(out: &'a mut Vec<u8>, scratch: &'a mut Scratch, close_outer: bool) -> Object<'a> {
        out.push(b'{');
        let first = out.len();
        let entries = scratch.lists.pop().unwrap_or_default();
        Object { out, scratch, first, entries, pending: None, close_outer }
    }

    /// Writes `"key":` for the next entry; returns where the entry starts.
    fn open(&mut self) -> usize {
        if !self.entries.is_empty() {
            self.out.push(b',');
        }
        self.out.len()
    }

    fn value<T: Serialize + ?Sized>(&mut self, start: usize, key: Key, value: &T) -> Result<(), CanonError> {
        self.out.push(b':');
        value.serialize(Canon { out: self.out, scratch: self.scratch })?;
        self.entries.push(Entry { key, start, end: self.out.len() });
        Ok(())
    }

    fn field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), CanonError> {
        let start = self.open();
        write_str(key, self.out);
        self.value(start, Key::Static(key), value)
    }

    /// A map key: written at once, ordered by its text when it needed no escape.
    fn key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), CanonError> {
        let start = self.open();
        let key = match key.serialize(KeyStr(self.out)) {
            Ok(raw_len) if self.out.len() - start == raw_len + 2 => Key::Written(start + 1, self.out.len() - 1),
            Ok(_) => {
                // Escaped: ordered by its text, kept aside (rare).
                let written = self.out.get(start..).unwrap_or_default();
                let written = std::str::from_utf8(written).map_err(|e| CanonError(e.to_string()))?;
                let text: String = serde_json::from_str(written).map_err(|e| CanonError(e.to_string()))?;
                Key::Kept(text.into_boxed_str())
            }
            Err(_) => {
                self.out.truncate(start);
                let text = key_text(key)?;
                write_str(&text, self.out);
                Key::Kept(text)
            }
        };
        self.pending = Some((start, key));
        Ok(())
    }

    /// Puts the entries in key order (the last of equal keys wins) and closes.
    fn finish(mut self) -> Result<(), CanonError> {
        let out = &*self.out;
        // Struct fields and most maps come in order already: then the bytes stand as written.
        if !self.entries.windows(2).all(|w| matches!(w, [a, b] if a.key(out) < b.key(out))) {
            self.entries.sort_by(|a, b| a.key(out).cmp(b.key(out)));
            // Of equal keys (in order given), the last is kept: mark the others.
            for i in 1..self.entries.len() {
                let same = match (self.entries.get(i - 1), self.entries.get(i)) {
                    (Some(a), Some(b)) => a.key(out) == b.key(out),
                    _ => false,
                };
                if let (true, Some(a)) = (same, self.entries.get_mut(i - 1)) {
                    a.end = a.start;
                }
            }
            let base = self.first;
            self.scratch.bytes.clear();
            self.scratch.bytes.extend_from_slice(self.out.get(base..).unwrap_or_default());
            self.out.truncate(base);
            for (n, e) in self.entries.iter().filter(|e| e.end > e.start).enumerate() {
                let bytes = self.scratch.bytes.get(e.start - base..e.end - base).unwrap_or_default();
                if n > 0 {
                    self.out.push(b',');
                }
                self.out.extend_from_slice(bytes);
            }
        }
        self.out.push(b'}');
        if self.close_outer {
            self.out.push(b'}');
        }
        self.entries.clear();
        self.scratch.lists.push(std::mem::take(&mut self.entries));
        Ok(())
    }
}

/// A sequence being written.
struct Seq<'a> {
    out: &'a mut Vec<u8>,
    scratch: &'a mut Scratch,
    first: bool,
    /// For a tuple variant: close the wrapping object too.
    close_outer: bool,
}

impl Seq<'_> {
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), CanonError> {
        if !self.first {
            self.out.push(b',');
        }
        self.first = false;
        value.serialize(Canon { out: self.out, scratch: self.scratch })
    }

    fn finish(self) -> Result<(), CanonError> {
        self.out.push(b']');
        if self.close_outer {
            self.out.push(b'}');
        }
        Ok(())
    }
}

impl<'a> ser::Serializer for Canon<'a> {
    type Ok = ();
    type Error = CanonError;
    type SerializeSeq = Seq<'a>;
    type SerializeTuple = Seq<'a>;
    type SerializeTupleStruct = Seq<'a>;
    type SerializeTupleVariant = Seq<'a>;
    type SerializeMap = Object<'a>;
    type SerializeStruct = Object<'a>;
    type SerializeStructVariant = Object<'a>;

    fn serialize_bool(self, v: bool) -> Result<(), CanonError> {
        scalar(&v, self.out);
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Result<(), CanonError> {
        scalar(&v, self.out);
        Ok(())
    }
    fn serialize_i16(self, v: i16) -> Result<(), CanonError> {
        scalar(&v, self.out);
        Ok(())
    }
    fn serialize_i32(self, v: i32) -> Result<(), CanonError> {
        scalar(&v, self.out);
        Ok(())
    }
    fn serialize_i64(self, v: i64) -> Result<(), CanonError> {
        scalar(&v, self.out);
        Ok(())
    }
    fn serialize_i128(self, v: i128) -> Result<(), CanonError> {
        // As `to_value` holds it: a number when it fits 64 bits, refused otherwise.
        let n = serde_json::to_value(v).map_err(|e| CanonError(e.to_string()))?;
        scalar(&n, self.out);
        Ok(())
    }
    fn serialize_u8(self, v: u8) -> Result<(), CanonError> {
        scalar(&v, self.out);
        Ok(())
    }
    fn serialize_u16(self, v: u16) -> Result<(), CanonError> {
        scalar(&v, self.out);
        Ok(())
    }
    fn serialize_u32(self, v: u32) -> Result<(), CanonError> {
        scalar(&v, self.out);
        Ok(())
    }
    fn serialize_u64(self, v: u64) -> Result<(), CanonError> {
        scalar(&v, self.out);
        Ok(())
    }
    fn serialize_u128(self, v: u128) -> Result<(), CanonError> {
        let n = serde_json::to_value(v).map_err(|e| CanonError(e.to_string()))?;
        scalar(&n, self.out);
        Ok(())
    }
    fn serialize_f32(self, v: f32) -> Result<(), CanonError> {
        // `to_value` widens an f32 to the f64 it holds.
        let n = serde_json::to_value(v).map_err(|e| CanonError(e.to_string()))?;
        scalar(&n, self.out);
        Ok(())
    }
    fn serialize_f64(self, v: f64) -> Result<(), CanonError> {
        // serde_json writes a non-finite float as `null`, as `to_value` holds it.
        scalar(&v, self.out);
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), CanonError> {
        scalar(&v, self.out);
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result<(), CanonError> {
        write_str(v, self.out);
        Ok(())
    }
    fn collect_str<T: std::fmt::Display + ?Sized>(self, value: &T) -> Result<(), CanonError> {
        use std::fmt::Write;
        let text = &mut self.scratch.text;
        text.clear();
        write!(text, "{value}").map_err(|e| CanonError(e.to_string()))?;
        write_str(text, self.out);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), CanonError> {
        scalar(v, self.out);
        Ok(())
    }
    fn serialize_none(self) -> Result<(), CanonError> {
        self.out.extend_from_slice(b"null");
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), CanonError> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), CanonError> {
        self.out.extend_from_slice(b"null");
        Ok(())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), CanonError> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(self, _name: &'static str, _index: u32, variant: &'static str) -> Result<(), CanonError> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _name: &'static str, value: &T) -> Result<(), CanonError> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), CanonError> {
        let mut o = Object::begin(self.out, self.scratch, false);
        o.field(variant, value)?;
        o.finish()
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Seq<'a>, CanonError> {
        self.out.push(b'[');
        Ok(Seq { out: self.out, scratch: self.scratch, first: true, close_outer: false })
    }
    fn serialize_tuple(self, len: usize) -> Result<Seq<'a>, CanonError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Seq<'a>, CanonError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Seq<'a>, CanonError> {
        // `{"variant":[…]}`: one key, already in order.
        self.out.push(b'{');
        write_str(variant, self.out);
        self.out.extend_from_slice(b":[");
        Ok(Seq { out: self.out, scratch: self.scratch, first: true, close_outer: true })
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Object<'a>, CanonError> {
        Ok(Object::begin(self.out, self.scratch, false))
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Object<'a>, CanonError> {
        Ok(Object::begin(self.out, self.scratch, false))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Object<'a>, CanonError> {
        // `{"variant":{…}}`: one key, already in order.
        self.out.push(b'{');
        write_str(variant, self.out);
        self.out.push(b':');
        Ok(Object::begin(self.out, self.scratch, true))
    }
}

impl ser::SerializeSeq for Seq<'_> {
    type Ok = ();
    type Error = CanonError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), CanonError> {
        self.element(value)
    }
    fn end(self) -> Result<(), CanonError> {
        self.finish()
    }
}

impl ser::SerializeTuple for Seq<'_> {
    type Ok = ();
    type Error = CanonError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), CanonError> {
        self.element(value)
    }
    fn end(self) -> Result<(), CanonError> {
        self.finish()
    }
}

impl ser::SerializeTupleStruct for Seq<'_> {
    type Ok = ();
    type Error = CanonError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), CanonError> {
        self.element(value)
    }
    fn end(self) -> Result<(), CanonError> {
        self.finish()
    }
}

impl ser::SerializeTupleVariant for Seq<'_> {
    type Ok = ();
    type Error = CanonError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), CanonError> {
        self.element(value)
    }
    fn end(self) -> Result<(), CanonError> {
        self.finish()
    }
}

impl ser::SerializeMap for Object<'_> {
    type Ok = ();
    type Error = CanonError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), CanonError> {
        self.key(key)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), CanonError> {
        let (start, key) = self.pending.take().ok_or_else(|| CanonError("a map value came without its key".into()))?;
        self.value(start, key, value)
    }
    fn end(self) -> Result<(), CanonError> {
        self.finish()
    }
}

impl ser::SerializeStruct for Object<'_> {
    type Ok = ();
    type Error = CanonError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), CanonError> {
        self.field(key, value)
    }
    fn end(self) -> Result<(), CanonError> {
        self.finish()
    }
}

impl ser::SerializeStructVariant for Object<'_> {
    type Ok = ();
    type Error = CanonError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), CanonError> {
        self.field(key, value)
    }
    fn end(self) -> Result<(), CanonError> {
        self.finish()
    }
}

/// A map key that is not a string (a number, a char, a bool, a unit variant) as the text
/// `to_value` makes of it, by serde_json's own map-key rules, read back from a one-entry map
/// (rare: our maps are keyed by strings).
fn key_text<T: Serialize + ?Sized>(key: &T) -> Result<Box<str>, CanonError> {
    struct One<'a, K: ?Sized>(&'a K);
    impl<K: Serialize + ?Sized> Serialize for One<'_, K> {
        fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            use ser::SerializeMap;
            let mut m = s.serialize_map(Some(1))?;
            m.serialize_entry(self.0, &())?;
            m.end()
        }
    }
    match serde_json::to_value(One(key)) {
        Ok(Value::Object(m)) => m.into_iter().next().map(|(k, _)| k.into_boxed_str()).ok_or_else(key_error),
        Ok(_) => Err(key_error()),
        Err(e) => Err(CanonError(e.to_string())),
    }
}

/// A map key that is a string, written as a JSON string into the output; returns its length
/// in bytes. Anything else fails, writing nothing (and goes to [`key_text`]'s fallback).
struct KeyStr<'a>(&'a mut Vec<u8>);

macro_rules! not_a_str {
    ($($name:ident($($arg:ty),*);)*) => {
        $(fn $name(self, $(_: $arg),*) -> Result<usize, CanonError> {
            Err(key_error())
        })*
    };
}

impl ser::Serializer for KeyStr<'_> {
    type Ok = usize;
    type Error = CanonError;
    type SerializeSeq = Impossible<usize, CanonError>;
    type SerializeTuple = Impossible<usize, CanonError>;
    type SerializeTupleStruct = Impossible<usize, CanonError>;
    type SerializeTupleVariant = Impossible<usize, CanonError>;
    type SerializeMap = Impossible<usize, CanonError>;
    type SerializeStruct = Impossible<usize, CanonError>;
    type SerializeStructVariant = Impossible<usize, CanonError>;

    fn serialize_str(self, v: &str) -> Result<usize, CanonError> {
        write_str(v, self.0);
        Ok(v.len())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<usize, CanonError> {
        value.serialize(self)
    }
    not_a_str! {
        serialize_bool(bool); serialize_i8(i8); serialize_i16(i16); serialize_i32(i32); serialize_i64(i64);
        serialize_i128(i128); serialize_u8(u8); serialize_u16(u16); serialize_u32(u32); serialize_u64(u64);
        serialize_u128(u128); serialize_f32(f32); serialize_f64(f64); serialize_char(char);
        serialize_bytes(&[u8]); serialize_none(); serialize_unit(); serialize_unit_struct(&'static str);
        serialize_unit_variant(&'static str, u32, &'static str);
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _value: &T) -> Result<usize, CanonError> {
        Err(key_error())
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<usize, CanonError> {
        Err(key_error())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, CanonError> {
        Err(key_error())
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, CanonError> {
        Err(key_error())
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, CanonError> {
        Err(key_error())
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, CanonError> {
        Err(key_error())
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, CanonError> {
        Err(key_error())
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Self::SerializeStruct, CanonError> {
        Err(key_error())
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, CanonError> {
        Err(key_error())
    }
}

fn key_error() -> CanonError {
    CanonError("a map key must be a string, a number, a char or a bool".into())
}

#[cfg(test)]
#[path = "canonical_tests.rs"]
mod tests;

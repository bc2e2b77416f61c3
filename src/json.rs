//! Building JSON values with little code: [`obj!`], [`arr!`] and [`val`].
//!
//! `serde_json::json!` expands every value into `serde_json::to_value(&v).unwrap()` (a
//! serializer and a panic path per site) and every object into its own run of map inserts,
//! inline at each call site. Its ~300 sites in shipped code (the format encoders, the stream
//! readers, the task tools) cost 42 KB of the wasm (7 KB gzip; issue 17, row 5). Here a value is
//! converted by [`ToJson`] (a move or a clone, no `Result`) and an object is one call of
//! [`object`], compiled once. The value built is the same as `json!`'s: keys in the order
//! written (the crate builds serde_json with `preserve_order`), a key written twice keeping its
//! first place and its last value; `json.rs`'s test checks the text against `json!`'s.

use serde_json::{Map, Value};

/// A JSON object of `pairs`, in their order; each value is moved out of the slice (left
/// `null`). What [`obj!`] expands to.
#[inline(never)]
pub(crate) fn object(pairs: &mut [(&str, Value)]) -> Value {
    let mut map = Map::with_capacity(pairs.len());
    for (key, value) in pairs.iter_mut() {
        map.insert((*key).to_owned(), std::mem::take(value));
    }
    Value::Object(map)
}

/// `map.put("key", value)`: `map.insert("key".into(), value)` with the key's copy and the
/// dropped old value out of line — a call where each of the encoders' ~200 inserts carried its
/// own copy of that code (issue 17, row 5). Same map afterwards.
pub(crate) trait Put {
    /// Inserts `value` under `key` (replacing an old value in its place, as `insert` does).
    fn put(&mut self, key: &str, value: Value);
}

impl Put for Map<String, Value> {
    #[inline(never)]
    fn put(&mut self, key: &str, value: Value) {
        self.insert(key.to_owned(), value);
    }
}

/// A JSON value of `v`: what `serde_json::to_value(&v)` gives for the types the crate writes,
/// without going through a serializer (and its `Result`). Like `json!`, it reads `v` by
/// reference (a borrowed field needs no `clone()` at the call site).
pub(crate) fn val<T: ToJson + ?Sized>(v: &T) -> Value {
    v.to_json()
}

/// The types [`val`], [`obj!`] and [`arr!`] take, each as `serde_json::to_value` writes it:
/// text as a string, numbers as numbers (a float that is not finite as `null`), `None` as
/// `null`, a value or a map as a copy of itself, a list or an array as an array.
pub(crate) trait ToJson {
    /// This value as JSON.
    fn to_json(&self) -> Value;
}

impl<T: ToJson + ?Sized> ToJson for &T {
    fn to_json(&self) -> Value {
        (**self).to_json()
    }
}

impl ToJson for Value {
    fn to_json(&self) -> Value {
        self.clone()
    }
}

impl ToJson for Map<String, Value> {
    fn to_json(&self) -> Value {
        Value::Object(self.clone())
    }
}

impl<T: ToJson> ToJson for [T] {
    fn to_json(&self) -> Value {
        Value::Array(self.iter().map(ToJson::to_json).collect())
    }
}

impl<T: ToJson, const N: usize> ToJson for [T; N] {
    fn to_json(&self) -> Value {
        self.as_slice().to_json()
    }
}

impl<T: ToJson> ToJson for Vec<T> {
    fn to_json(&self) -> Value {
        self.as_slice().to_json()
    }
}

impl ToJson for str {
    // Out of line: a text value is the commonest, and its copy is not worth inlining at each site.
    #[inline(never)]
    fn to_json(&self) -> Value {
        Value::String(self.to_owned())
    }
}

impl ToJson for String {
    fn to_json(&self) -> Value {
        self.as_str().to_json()
    }
}

impl ToJson for bool {
    fn to_json(&self) -> Value {
        Value::Bool(*self)
    }
}

macro_rules! numbers {
    ($($t:ty),*) => {$(
        impl ToJson for $t {
            fn to_json(&self) -> Value {
                Value::from(*self)
            }
        }
    )*};
}
numbers!(u8, u16, u32, u64, usize, i32, i64, f64);

impl<T: ToJson> ToJson for Option<T> {
    fn to_json(&self) -> Value {
        self.as_ref().map_or(Value::Null, ToJson::to_json)
    }
}

/// A JSON object: `obj!{"type": "text", "text": text}`. Keys are string literals; each value
/// is anything [`ToJson`] takes — a nested object is an `obj!` of its own. Same value as
/// `serde_json::json!` of the same text.
macro_rules! obj {
    ($($key:literal : $value:expr),* $(,)?) => {
        $crate::json::object(&mut [$(($key, $crate::json::ToJson::to_json(&$value))),*])
    };
}
pub(crate) use obj;

/// A JSON array: `arr![a, b]`, each element anything [`ToJson`] takes.
macro_rules! arr {
    ($($value:expr),* $(,)?) => {
        ::serde_json::Value::Array(::std::vec![$($crate::json::ToJson::to_json(&$value)),*])
    };
}
pub(crate) use arr;

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    #[test]
    fn the_same_values_as_json() {
        let text = String::from("hé \"x\"");
        let none: Option<&str> = None;
        let built = obj! {
            "type": "text",
            "text": text.as_str(),
            "n": 3,
            "f": 1.5,
            "b": false,
            "none": none,
            "some": Some("y"),
            "nested": obj!{"a": arr![1, "two", Value::Null], "empty": obj!{}},
            "type": "again",
        };
        let expected = json!({
            "type": "text",
            "text": text,
            "n": 3,
            "f": 1.5,
            "b": false,
            "none": none,
            "some": Some("y"),
            "nested": {"a": [1, "two", null], "empty": {}},
            "type": "again",
        });
        assert_eq!(built, expected);
        // Same text, so the same key order (preserve_order), the repeated key in its first place.
        assert_eq!(built.to_string(), expected.to_string());
        assert_eq!(
            built.to_string(),
            r#"{"type":"again","text":"hé \"x\"","n":3,"f":1.5,"b":false,"none":null,"some":"y","nested":{"a":[1,"two",null],"empty":{}}}"#
        );
        assert_eq!(arr![], json!([]));
    }
}

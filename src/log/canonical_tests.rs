//! The canonical encoding's tests ([`super`]).

use super::*;
use serde::Serialize;
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

/// A string is written as `serde_json` writes it, whatever bytes it holds and wherever they
/// sit in its 8-byte words (the copy of a string with nothing to escape, tested against it).
#[test]
fn a_string_is_written_as_serde_json_writes_it() {
    let pieces =
        ["a", "é", "😀", "\"", "\\", "\n", "\u{0}", "\u{1f}", " ", "\u{7f}", "\u{2028}", "!", "#", "[", "]", "~"];
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    for _ in 0..20_000 {
        let mut s = String::new();
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let (len, mut r) = (seed % 40, seed);
        for _ in 0..len {
            // Mostly plain letters, so strings with nothing to escape come up often.
            s.push_str(if r % 3 == 0 { pieces[(r / 3 % pieces.len() as u64) as usize] } else { "x" });
            r = r.rotate_left(5) ^ 0x5851_f42d;
        }
        let mut out = Vec::new();
        write_str(&s, &mut out);
        assert_eq!(String::from_utf8(out).unwrap(), serde_json::to_string(&s).unwrap(), "{s:?}");
    }
}

/// `to_writer(v)` must give exactly `write(to_value(v))`.
fn same<T: Serialize>(v: &T) {
    let mut direct = Vec::new();
    to_writer(v, &mut direct).unwrap();
    let mut tree = Vec::new();
    write(&serde_json::to_value(v).unwrap(), &mut tree);
    assert_eq!(String::from_utf8(direct).unwrap(), String::from_utf8(tree).unwrap());
}

#[test]
fn the_direct_encoding_is_the_tree_encoding() {
    #[derive(Serialize)]
    struct S<'a> {
        z: u64,
        a: Option<&'a str>,
        #[serde(rename = "m")]
        inner: Vec<E>,
        e: E,
        f: f64,
        n: f64,
        map: std::collections::BTreeMap<u32, &'a str>,
    }
    #[derive(Serialize)]
    enum E {
        Unit,
        New(i32),
        Tuple(u8, String),
        Struct { y: bool, b: char },
    }
    same(&S {
        z: u64::MAX,
        a: None,
        inner: vec![E::Unit, E::New(-3), E::Tuple(1, "t\u{7f}\n\u{1}é".into()), E::Struct { y: true, b: '"' }],
        e: E::Struct { y: false, b: 'x' },
        f: 1e21,
        n: f64::NAN,
        map: [(10, "ten"), (9, "nine")].into_iter().collect(),
    });
    same(&json!({"b": {"d": [{}, [], {"z": 1, "y": {"x": null}}]}, "a": "", "": 0.1, "é": -0.0, "e": 1.5e-7}));
    let m: crate::message::Message = serde_json::from_value(json!({
        "id": "r:1:0", "role": "assistant", "content": [{"type": "text", "text": "hi", "extra": {"cache_control": {"type": "x"}}}],
        "tool_calls": [{"id": "c", "name": "f", "args": {"q": 1, "a": [2]}}], "origin": "anthropic",
        "extra": {"zz": 1, "aa": 2}
    }))
    .unwrap();
    same(&m);
    // A key written twice: the last wins, at the first's place in key order.
    struct Twice;
    impl Serialize for Twice {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            use serde::ser::SerializeMap;
            let mut m = s.serialize_map(None)?;
            m.serialize_entry("b", &1)?;
            m.serialize_entry("a", &2)?;
            m.serialize_entry("b", &3)?;
            m.end()
        }
    }
    same(&Twice);
    let mut out = Vec::new();
    to_writer(&Twice, &mut out).unwrap();
    assert_eq!(out, br#"{"a":2,"b":3}"#);
    // What to_value refuses, this refuses.
    let bad: std::collections::BTreeMap<Vec<u8>, u8> = [(vec![1], 1)].into_iter().collect();
    assert!(serde_json::to_value(&bad).is_err());
    assert!(to_writer(&bad, &mut Vec::new()).is_err());
    // Keys that are not strings are written as to_value writes them.
    let keys: std::collections::BTreeMap<bool, u8> = [(true, 1), (false, 0)].into_iter().collect();
    same(&keys);
    let floats: Vec<(f64, u8)> = vec![(1.5, 1), (-0.25, 2)];
    struct FloatKeys(Vec<(f64, u8)>);
    impl Serialize for FloatKeys {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
        }
    }
    same(&FloatKeys(floats));
}

// proptest is a native dev-dependency only (the wasm32 test build has no proptest).
#[cfg(not(target_arch = "wasm32"))]
fn json() -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    let key = prop_oneof![
        "[a-z]{0,3}",
        "[0-9]{1,3}",
        Just("\"q\\".to_string()),
        Just("é\u{1}\n".to_string()),
        Just("\u{10348}".to_string())
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        "\\PC{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            proptest::collection::vec((key.clone(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

#[cfg(not(target_arch = "wasm32"))]
proptest::proptest! {
    #[test]
    fn any_json_encodes_directly_as_its_tree_does(v in json()) {
        same(&v);
    }
}

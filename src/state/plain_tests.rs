//! A plain append read from its text ([`PlainAppend`]) gives exactly what the same text read as a
//! [`Command`] gives: results, errors, every channel and the log with its hashes, on random
//! command texts near the plain shape (other roles and keys, non-string content, escapes,
//! duplicate keys, lone surrogates, empty authors, version conflicts).

use super::tests::snapshot;
use super::*;
use crate::message::Role;
use proptest::prelude::*;
use serde_json::{json, Value};

const NOW: u64 = 1_700_000_000_000;

/// A command's text drawn near the plain shape; `raw` replaces the first message's text with
/// a text-level variant JSON values cannot express (a duplicate key, a lone surrogate's escape).
fn command() -> impl Strategy<Value = String> {
    let role = prop_oneof![
        4 => prop_oneof![Just("user"), Just("assistant"), Just("system")],
        1 => prop_oneof![Just("developer"), Just("tool"), Just("User"), Just("")],
    ];
    let content = prop_oneof![
        6 => "\\PC{0,24}".prop_map(Value::String),
        1 => Just(Value::String("a \"quoted\" \\ line\nbreak \u{1} é 𐍈".into())),
        1 => Just(Value::Null),
        1 => Just(json!([{"type": "text", "text": "hi"}])),
    ];
    let extra = prop_oneof![
        6 => Just(None),
        1 => Just(Some(("id", json!("m1")))),
        1 => Just(Some(("name", json!("bob")))),
        1 => Just(Some(("usage", json!({"input_tokens": 3, "output_tokens": 4})))),
    ];
    let message = (role, content, extra).prop_map(|(role, content, extra)| {
        let mut m = json!({"role": role, "content": content});
        if let Some((k, v)) = extra {
            m[k] = v;
        }
        m
    });
    let author = prop_oneof![4 => Just("user"), 1 => Just("model"), 1 => Just(""), 1 => Just("a\"b")];
    let version =
        prop_oneof![3 => Just(None), 1 => Just(Some(Value::Null)), 2 => (0u64..3).prop_map(|v| Some(json!(v)))];
    let id = prop_oneof![3 => Just(None), 1 => Just(Some("req-1"))];
    let raw = prop_oneof![
        8 => Just(None),
        1 => Just(Some(r#"{"role":"user","role":"assistant","content":"x"}"#)),
        1 => Just(Some(r#"{"role":"user","content":"lone \ud800"}"#)),
        1 => Just(Some(r#"{"role":"user","content":"pair \ud83d\ude00"}"#)),
    ];
    let messages = proptest::collection::vec(message, 0..4);
    (author, version, id.clone(), id, messages, raw, any::<bool>()).prop_map(
        |(author, version, correlation, causation, messages, raw, other_channel)| {
            let mut update = json!({"messages": messages});
            if other_channel {
                update["todos"] = json!([]);
            }
            let mut cmd = json!({"author": author, "update": update});
            if let Some(v) = version {
                cmd["expectedVersion"] = v;
            }
            if let Some(c) = correlation {
                cmd["correlationId"] = json!(c);
            }
            if let Some(c) = causation {
                cmd["causationId"] = json!(c);
            }
            let text = cmd.to_string();
            match raw {
                Some(raw) if !other_channel => {
                    text.replacen(r#""messages":["#, &format!(r#""messages":[{raw},"#), 1).replace(",]", "]")
                }
                _ => text,
            }
        },
    )
}

/// Whether `text` holds, outside its strings, what the JS binding's lost-value check looks for
/// (`null`, `{}`, a key `"0"`): what `JSON.stringify` writes for NaN, a Map, a typed array.
fn lossy_outside_strings(text: &str) -> bool {
    let (mut outside, mut in_string, mut escaped) = (String::new(), false, false);
    for c in text.chars() {
        if in_string {
            in_string = escaped || c != '"';
            escaped = !escaped && c == '\\';
        } else if c == '"' {
            in_string = true;
            outside.push('"');
        } else {
            outside.push(c);
        }
    }
    // Strings are left as `"`: a key "0" shows as `{"":` only if it is the first key.
    outside.contains("null") || outside.contains("{}") || text.contains("{\"0\":")
}

/// `text` applied as the JS binding applies it: a plain append when it reads as one.
fn apply_fast(s: &mut Store, text: &str) -> Option<std::result::Result<Applied, crate::error::Error>> {
    match PlainAppend::read(text) {
        Some(plain) => Some(s.apply_plain(plain, NOW)),
        None => serde_json::from_str::<Command>(text).ok().map(|cmd| s.apply(&cmd, NOW)),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]
    #[test]
    fn a_plain_append_is_applied_as_its_command_is(texts in proptest::collection::vec(command(), 1..4)) {
        let mut fast = Store::new(StoreOptions::default()).unwrap();
        let mut slow = Store::new(StoreOptions::default()).unwrap();
        for text in &texts {
            let command = serde_json::from_str::<Command>(text);
            if PlainAppend::read(text).is_some() {
                prop_assert!(command.is_ok(), "read as a plain append but not as a command: {}", text);
                prop_assert!(!lossy_outside_strings(text), "a plain append holds a lost value: {}", text);
            }
            let expected = command.ok().map(|cmd| slow.apply(&cmd, NOW));
            prop_assert_eq!(apply_fast(&mut fast, text), expected, "{}", text);
        }
        prop_assert_eq!(snapshot(&mut fast), snapshot(&mut slow));
    }
}

#[test]
fn the_plain_shape_is_read_and_nothing_near_it() {
    let plain = [
        r#"{"author":"user","update":{"messages":[{"role":"user","content":"hi"}]}}"#,
        r#"{"update":{"messages":[{"content":"a","role":"assistant"},{"role":"system","content":""}]},"author":"x","expectedVersion":3,"correlationId":"c"}"#,
        r#"{"author":"user","update":{"messages":[]}}"#,
    ];
    for text in plain {
        assert!(PlainAppend::read(text).is_some(), "{text}");
    }
    let not_plain = [
        r#"{"author":"user","update":{"messages":{"role":"user","content":"hi"}}}"#,
        r#"{"author":"user","update":{"messages":[{"role":"developer","content":"hi"}]}}"#,
        r#"{"author":"user","update":{"messages":[{"role":"tool","content":"hi","tool_call_id":"c"}]}}"#,
        r#"{"author":"user","update":{"messages":[{"role":"user","content":"a"},{"role":"tool","content":"hi"}]}}"#,
        r#"{"author":"user","update":{"messages":[{"role":"user","content":null}]}}"#,
        r#"{"author":"user","update":{"messages":[{"role":"user","content":"hi","id":"m"}]}}"#,
        r#"{"author":"user","update":{"messages":[{"role":"user","content":"hi"}],"todos":[]}}"#,
        r#"{"author":"user","update":{"messages":[{"role":"user","content":"hi"}]},"extra":1}"#,
        r#"{"author":"user","update":{"messages":[{"role":"user","role":"user","content":"hi"}]}}"#,
        r#"{"author":"user","update":{"messages":[{"role":"user","content":"\ud800"}]}}"#,
        // No null (the binding's lost-value check is skipped for a text read as a plain append).
        r#"{"author":"user","update":{"messages":[{"role":"user","content":"hi"}]},"expectedVersion":null}"#,
        r#"{"author":"user","update":{"messages":[{"role":"user","content":"hi"}]},"correlationId":null}"#,
        r#"{"author":"user","update":{"messages":[{"role":"user","content":"hi"}]},"causationId":null}"#,
        r#"{"author":null,"update":{"messages":[{"role":"user","content":"hi"}]}}"#,
    ];
    for text in plain {
        assert!(!lossy_outside_strings(text), "{text}");
    }
    for text in not_plain {
        assert!(PlainAppend::read(text).is_none(), "{text}");
    }
    // Read, it gives the message the command gives.
    let text = plain[1];
    let mut fast = Store::new(StoreOptions::default()).unwrap();
    let mut slow = Store::new(StoreOptions::default()).unwrap();
    for s in [&mut fast, &mut slow] {
        for _ in 0..3 {
            s.apply(&serde_json::from_str(r#"{"author":"a","update":{"todos":[]}}"#).unwrap(), NOW).unwrap();
        }
    }
    let a = fast.apply_plain(PlainAppend::read(text).unwrap(), NOW).unwrap();
    let b = slow.apply(&serde_json::from_str(text).unwrap(), NOW).unwrap();
    assert_eq!(a, b);
    assert_eq!(a.version, 4);
    assert_eq!(a.ids.len(), 2);
    assert_eq!(snapshot(&mut fast), snapshot(&mut slow));
}

#[test]
fn a_plain_append_made_from_its_parts_is_the_one_read_from_its_text() {
    let text = r#"{"author":"x","expectedVersion":3,"correlationId":"c","causationId":"d","update":{"messages":[{"role":"assistant","content":"a"},{"role":"system","content":"é"}]}}"#;
    let made = PlainAppend::new(
        "x".into(),
        Some(3),
        vec![(Role::Assistant, "a".into()), (Role::System, "é".into())],
        Some("c".into()),
        Some("d".into()),
    );
    assert_eq!(PlainAppend::read(text), Some(made));
    let bare = PlainAppend::new("u".into(), None, Vec::new(), None, None);
    assert_eq!(PlainAppend::read(r#"{"author":"u","update":{"messages":[]}}"#), Some(bare));
}

//! Reading [`Content`] and [`ContentPart`], written by hand: serde's derived readers of an
//! untagged enum (`Content`: text, parts or null) and an internally tagged one (`ContentPart`:
//! `type`) first copy each value into an intermediate tree, then try each variant against it —
//! a copy of every content string on each read (replay, restore, canonical input) and ~50 KB of
//! the wasm (issue 17). Same shapes and meaning as the derived readers — `extra` and the
//! optional fields may be absent, a wrong type is an error naming it — except that a field the
//! part's type does not have is refused (`unknown field`), not ignored: a canonical message is
//! what stategate writes (its unmodelled fields live in `extra`), and a logged one is verified
//! by re-encoding it, so a field read past would let a changed log line through unseen.

use super::{Content, ContentPart};
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Unexpected, Visitor};
use serde_json::{Map, Value};
use std::fmt;

impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ContentVisitor)
    }
}

struct ContentVisitor;

impl<'de> Visitor<'de> for ContentVisitor {
    type Value = Content;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("content: a string, a list of parts or null")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Content, E> {
        Ok(Content::Text(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Content, E> {
        Ok(Content::Text(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Content, E> {
        Ok(Content::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Content, E> {
        Ok(Content::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Content, A::Error> {
        let mut parts = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
        while let Some(part) = seq.next_element::<ContentPart>()? {
            parts.push(part);
        }
        Ok(Content::Parts(parts))
    }
}

/// What a JSON value is, for a type error (strings and numbers by their kind, as serde names them).
fn unexpected(v: &Value) -> Unexpected<'_> {
    match v {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => Unexpected::Unsigned(u),
            (None, Some(i)) => Unexpected::Signed(i),
            _ => Unexpected::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

/// The keys a part may have; anything else is refused.
enum Key {
    Type,
    Text,
    Url,
    Data,
    FileId,
    MediaType,
    Filename,
    Extra,
    Raw,
    Other(String),
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
                Ok(match v {
                    "type" => Key::Type,
                    "text" => Key::Text,
                    "url" => Key::Url,
                    "data" => Key::Data,
                    "file_id" => Key::FileId,
                    "media_type" => Key::MediaType,
                    "filename" => Key::Filename,
                    "extra" => Key::Extra,
                    "raw" => Key::Raw,
                    other => Key::Other(other.to_owned()),
                })
            }
        }
        d.deserialize_identifier(KeyVisitor)
    }
}

/// The fields of one part as read, each checked once the part's type is known (a field only
/// another type has is refused).
#[derive(Default)]
struct Fields {
    kind: Option<Value>,
    text: Option<Value>,
    url: Option<Value>,
    data: Option<Value>,
    file_id: Option<Value>,
    media_type: Option<Value>,
    filename: Option<Value>,
    extra: Option<Value>,
    raw: Option<Value>,
}

fn string<E: de::Error>(v: Option<Value>, key: &'static str) -> Result<String, E> {
    match v {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(E::invalid_type(unexpected(&other), &"a string")),
        None => Err(E::missing_field(key)),
    }
}

/// An optional string: absent or `null` is `None`.
fn opt_string<E: de::Error>(v: Option<Value>) -> Result<Option<String>, E> {
    match v {
        Some(Value::String(s)) => Ok(Some(s)),
        Some(Value::Null) | None => Ok(None),
        Some(other) => Err(E::invalid_type(unexpected(&other), &"a string")),
    }
}

/// `extra`: absent is empty.
fn extra<E: de::Error>(v: Option<Value>) -> Result<Map<String, Value>, E> {
    match v {
        Some(Value::Object(m)) => Ok(m),
        Some(other) => Err(E::invalid_type(unexpected(&other), &"a map")),
        None => Ok(Map::new()),
    }
}

const PART_TYPES: &[&str] = &["text", "image", "file", "reasoning", "other"];

impl<'de> Deserialize<'de> for ContentPart {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(PartVisitor)
    }
}

struct PartVisitor;

impl<'de> Visitor<'de> for PartVisitor {
    type Value = ContentPart;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a content part {type, …}")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ContentPart, A::Error> {
        let mut f = Fields::default();
        while let Some(key) = map.next_key::<Key>()? {
            let slot = match key {
                Key::Type => &mut f.kind,
                Key::Text => &mut f.text,
                Key::Url => &mut f.url,
                Key::Data => &mut f.data,
                Key::FileId => &mut f.file_id,
                Key::MediaType => &mut f.media_type,
                Key::Filename => &mut f.filename,
                Key::Extra => &mut f.extra,
                Key::Raw => &mut f.raw,
                Key::Other(name) => return Err(de::Error::unknown_field(&name, ALL_FIELDS)),
            };
            *slot = Some(map.next_value::<Value>()?);
        }
        part(f)
    }
}

/// Every field some part type has.
const ALL_FIELDS: &[&str] = &["type", "text", "url", "data", "file_id", "media_type", "filename", "extra", "raw"];

/// Refuses a field present in `f` that a part of this type does not have (`own`: its fields).
fn only<E: de::Error>(f: &Fields, own: &'static [&'static str]) -> Result<(), E> {
    let present = [
        ("text", f.text.is_some()),
        ("url", f.url.is_some()),
        ("data", f.data.is_some()),
        ("file_id", f.file_id.is_some()),
        ("media_type", f.media_type.is_some()),
        ("filename", f.filename.is_some()),
        ("extra", f.extra.is_some()),
        ("raw", f.raw.is_some()),
    ];
    match present.into_iter().find(|(name, is)| *is && !own.contains(name)) {
        Some((name, _)) => Err(E::unknown_field(name, own)),
        None => Ok(()),
    }
}

fn part<E: de::Error>(mut f: Fields) -> Result<ContentPart, E> {
    let kind = string::<E>(f.kind.take(), "type")?;
    let own: &'static [&'static str] = match kind.as_str() {
        "text" | "reasoning" => &["type", "text", "extra"],
        "image" => &["type", "url", "data", "media_type", "extra"],
        "file" => &["type", "url", "data", "file_id", "media_type", "filename", "extra"],
        "other" => &["type", "raw"],
        other => return Err(E::unknown_variant(other, PART_TYPES)),
    };
    only::<E>(&f, own)?;
    Ok(match kind.as_str() {
        "text" => ContentPart::Text { text: string(f.text, "text")?, extra: extra(f.extra)? },
        "image" => ContentPart::Image {
            url: opt_string(f.url)?,
            data: opt_string(f.data)?,
            media_type: opt_string(f.media_type)?,
            extra: extra(f.extra)?,
        },
        "file" => ContentPart::File {
            url: opt_string(f.url)?,
            data: opt_string(f.data)?,
            file_id: opt_string(f.file_id)?,
            media_type: opt_string(f.media_type)?,
            filename: opt_string(f.filename)?,
            extra: extra(f.extra)?,
        },
        "reasoning" => ContentPart::Reasoning { text: string(f.text, "text")?, extra: extra(f.extra)? },
        "other" => ContentPart::Other { raw: f.raw.ok_or_else(|| E::missing_field("raw"))? },
        other => return Err(E::unknown_variant(other, PART_TYPES)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Every shape the derived readers took reads the same; what they refused is refused.
    #[test]
    fn reads_as_the_derived_readers_did() {
        let parts = json!([
            {"type": "text", "text": "hi"},
            {"text": "with extra", "extra": {"cache_control": {"type": "ephemeral"}}, "type": "text"},
            {"type": "image", "url": "https://x/y.png", "media_type": null},
            {"type": "image", "data": "AAAA", "media_type": "image/png", "extra": {"detail": "low"}},
            {"type": "file", "file_id": "file-1", "filename": "a.pdf", "media_type": "application/pdf"},
            {"type": "reasoning", "text": "thinking", "extra": {"signature": "s"}},
            {"type": "other", "raw": {"type": "audio", "x": [1, 2]}},
        ]);
        let content: Content = serde_json::from_value(parts.clone()).unwrap();
        let Content::Parts(read) = &content else { panic!("parts") };
        assert_eq!(read.len(), 7);
        assert_eq!(
            read[1],
            ContentPart::Text {
                text: "with extra".into(),
                extra: json!({"cache_control": {"type": "ephemeral"}}).as_object().unwrap().clone()
            }
        );
        assert_eq!(
            read[2],
            ContentPart::Image { url: Some("https://x/y.png".into()), data: None, media_type: None, extra: Map::new() }
        );
        assert_eq!(read[6], ContentPart::Other { raw: json!({"type": "audio", "x": [1, 2]}) });
        // What is written reads back the same, from a Value and from text.
        let written = serde_json::to_value(&content).unwrap();
        assert_eq!(serde_json::from_value::<Content>(written.clone()).unwrap(), content);
        assert_eq!(serde_json::from_str::<Content>(&written.to_string()).unwrap(), content);
        assert_eq!(serde_json::from_value::<Content>(json!("text")).unwrap(), Content::Text("text".into()));
        assert_eq!(serde_json::from_str::<Content>("\"a\\nb\"").unwrap(), Content::Text("a\nb".into()));
        assert_eq!(serde_json::from_value::<Content>(json!(null)).unwrap(), Content::Null);
        assert_eq!(serde_json::from_value::<Content>(json!([])).unwrap(), Content::Parts(vec![]));
        for bad in [
            json!(5),
            json!({"type": "text", "text": "x"}),
            json!([{"type": "text"}]),
            json!([{"text": "no type"}]),
            json!([{"type": "video", "url": "u"}]),
            json!([{"type": "text", "text": 5}]),
            json!([{"type": "image", "url": 5}]),
            json!([{"type": "text", "text": "x", "extra": []}]),
            json!([{"type": "other"}]),
            json!(["a string part"]),
            // A field no part has, or only another type has (a changed key in a logged message).
            json!([{"type": "text", "text": "x", "unknown": 1}]),
            json!([{"type": "text", "text": "t", "url": "u"}]),
            json!([{"type": "text", "text": "t", "raw": null}]),
            json!([{"type": "image", "url": "u", "filename": "f"}]),
            json!([{"type": "other", "raw": {}, "text": "t"}]),
        ] {
            assert!(serde_json::from_value::<Content>(bad.clone()).is_err(), "{bad}");
            assert!(serde_json::from_str::<Content>(&bad.to_string()).is_err(), "{bad}");
        }
        let e = serde_json::from_value::<Content>(json!([{"type": "video"}])).unwrap_err().to_string();
        assert!(e.contains("unknown variant `video`"), "{e}");
        let e = serde_json::from_value::<Content>(json!([{"type": "text"}])).unwrap_err().to_string();
        assert!(e.contains("missing field `text`"), "{e}");
        let e = serde_json::from_value::<Content>(json!([{"type": "text", "text": "t", "tixt": 1}])).unwrap_err();
        assert!(e.to_string().contains("unknown field `tixt`"), "{e}");
        let e = serde_json::from_value::<Content>(json!([{"type": "image", "text": "t"}])).unwrap_err();
        assert!(e.to_string().contains("unknown field `text`, expected one of `type`, `url`"), "{e}");
    }
}

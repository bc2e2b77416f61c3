//! An event read from its JSON line without a JSON tree (issue 17: a replay built a tree per
//! event, decoded its messages out of it, and dropped it): the envelope's strings borrowed from
//! the line, the payload kept as the text of each channel's write, for the store to decode by
//! channel ([`crate::state`]). The same fields as [`super::Event`], and the same refusals
//! (unknown fields, missing ones); whatever this cannot read is read again as an `Event`.

use super::{EventType, SideMap};
use serde::de::{Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;

/// An event as its line holds it. Field meanings: [`super::Event`].
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Line<'a> {
    #[serde(borrow)]
    pub(crate) event_id: Cow<'a, str>,
    #[serde(borrow)]
    pub(crate) run_id: Cow<'a, str>,
    pub(crate) sequence: u64,
    #[serde(rename = "type")]
    pub(crate) kind: EventType,
    #[serde(borrow)]
    pub(crate) author: Cow<'a, str>,
    #[serde(borrow)]
    pub(crate) payload: Writes<'a>,
    pub(crate) created_at: u64,
    #[serde(borrow)]
    pub(crate) correlation_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub(crate) causation_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub(crate) prev_hash: Cow<'a, str>,
    #[serde(borrow)]
    pub(crate) hash: Cow<'a, str>,
    #[serde(default)]
    pub(crate) system: bool,
    #[serde(default)]
    pub(crate) salted: SideMap,
    #[serde(default)]
    pub(crate) redacted: SideMap,
}

/// A payload as the text of each channel's write, in the line's order (which decides the
/// event's type among its writes, and its order when written out again).
#[derive(Debug, Default)]
pub(crate) struct Writes<'a>(pub(crate) Vec<(Cow<'a, str>, WriteText<'a>)>);

/// The text of one channel's write: the `messages` channel's as the text of each item of its
/// list, split as the line is read (a replay read each message's text three times: past it,
/// to split the list, and into its message); any other channel's whole.
#[derive(Debug)]
pub(crate) enum WriteText<'a> {
    /// The items of the `messages` channel's write (a list: anything else does not read).
    Items(Vec<&'a RawValue>),
    /// Another channel's write.
    Whole(&'a RawValue),
}

impl<'de: 'a, 'a> Deserialize<'de> for Writes<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Entries<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for Entries<'a> {
            type Value = Writes<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object of channel writes")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Writes<'a>, M::Error> {
                let mut out = Vec::with_capacity(map.size_hint().unwrap_or(1));
                while let Some(name) = map.next_key::<Cow<'a, str>>()? {
                    let write = if name == "messages" {
                        WriteText::Items(map.next_value()?)
                    } else {
                        WriteText::Whole(map.next_value()?)
                    };
                    out.push((name, write));
                }
                Ok(Writes(out))
            }
        }
        d.deserialize_map(Entries(std::marker::PhantomData))
    }
}

impl Line<'_> {
    /// Reads a line; `None` for anything this does not read (the caller reads it as an
    /// [`super::Event`], which says why).
    pub(crate) fn read(line: &str) -> Option<Line<'_>> {
        serde_json::from_str(line).ok()
    }
}

//! An append of plain chat messages, read straight from its JSON text (issue 17, row 2): the
//! command `{author, update: {messages: [{role, content: "<text>"}, …]}, expectedVersion?,
//! correlationId?, causationId?}` with roles system, user or assistant — the shape of most
//! appends — is read into its messages without the JSON tree a [`Command`](super::Command) holds,
//! then goes through the same gate. Any other command, and any text this reading does not take
//! whole (another key, another role, content that is not a string, a duplicate key), is read as a
//! `Command`: the result is the same either way (tested against it), only the cost differs.

use super::message_ops::MessageOp;
use super::pipeline::check_author;
use super::schema::channel;
use super::store::{Decoded, Expect, Store, Write};
use super::Applied;
use crate::error::Result;
use crate::message::formats::decode_plain;
use crate::message::Role;
use serde::Deserialize;
use std::rc::Rc;

/// A command that only appends plain chat messages (see the module's doc). No `null` is read
/// (an optional key is absent or holds its value), nor any `{}` or key beyond these: the JS
/// binding takes a text this reads without the check for values `JSON.stringify` writes as
/// `null` or `{}` (NaN, a Map), which such a text cannot hold.
#[derive(Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlainAppend {
    author: String,
    #[serde(default, deserialize_with = "present")]
    expected_version: Option<u64>,
    update: PlainUpdate,
    #[serde(default, deserialize_with = "present")]
    correlation_id: Option<String>,
    #[serde(default, deserialize_with = "present")]
    causation_id: Option<String>,
}

/// An optional key's value, which may not be `null` (`Option`'s own reading takes `null` as absent).
fn present<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(d: D) -> std::result::Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct PlainUpdate {
    messages: Vec<PlainMessage>,
}

#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct PlainMessage {
    /// Read by `Role`'s own names; a tool result (which needs its call's id) is not plain.
    role: Role,
    content: String,
}

impl PlainAppend {
    /// The command in `text` when it is a plain append; `None` for any other text.
    pub fn read(text: &str) -> Option<PlainAppend> {
        serde_json::from_str(text).ok().filter(|p: &PlainAppend| p.update.messages.iter().all(|m| m.role != Role::Tool))
    }

    /// The plain append of `messages` (each a role and its text) by `author`, with its optional
    /// keys: what [`PlainAppend::read`] reads from the text of the same command. A tool result
    /// is not plain: the caller gives only system, user and assistant messages.
    pub fn new(
        author: String,
        expected_version: Option<u64>,
        messages: Vec<(Role, String)>,
        correlation_id: Option<String>,
        causation_id: Option<String>,
    ) -> PlainAppend {
        let messages = messages.into_iter().map(|(role, content)| PlainMessage { role, content }).collect();
        PlainAppend { author, expected_version, update: PlainUpdate { messages }, correlation_id, causation_id }
    }

    /// Its author.
    pub fn author(&self) -> &str {
        &self.author
    }
}

impl Store {
    /// Applies a plain append at `now_ms`, exactly as [`Store::apply`] applies the same command.
    /// Errors: those of `apply`; the store is unchanged on error.
    pub fn apply_plain(&mut self, cmd: PlainAppend, now_ms: u64) -> Result<Applied> {
        let decoded = self.decode_plain(cmd);
        self.apply_decoded(decoded, now_ms)
    }

    /// [`Store::decode`] of a plain append: the messages read in OpenAI's format. (The messages
    /// channel is always the default schema's, with the messages reducer: another channel of that
    /// name is `CHANNEL_EXISTS`.)
    fn decode_plain(&self, cmd: PlainAppend) -> Result<Decoded<'static>> {
        let i = self.index(channel::MESSAGES)?;
        let ops =
            cmd.update.messages.into_iter().map(|m| MessageOp::Put(Rc::new(decode_plain(m.role, m.content)))).collect();
        check_author(&cmd.author)?;
        Ok(Decoded {
            author: std::borrow::Cow::Owned(cmd.author),
            expected_version: cmd.expected_version,
            writes: vec![(i, Write::Messages(ops))],
            correlation_id: cmd.correlation_id,
            causation_id: cmd.causation_id,
            system: false,
            expect: Expect::New,
            at: None,
        })
    }
}

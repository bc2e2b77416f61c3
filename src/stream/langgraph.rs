//! LangGraph `streamMode: "messages"` recordings: items `[namespace: string[], [chunk,
//! metadata]]` (with `subgraphs: true`) or `[chunk, metadata]`, each `chunk` an lc-serialized
//! (`{lc: 1, type: "constructor", id: [..., "AIMessageChunk"], kwargs}`) or plain LangChain
//! message or chunk.
//!
//! Chunks of one message (the same `id`, wherever they come in the stream: parallel branches
//! interleave) are concatenated as `@langchain/core` 1.4 `AIMessageChunk.concat` does
//! (`messages/base.js` `mergeContent`, `_mergeLists`, `_mergeDicts`): string content
//! concatenated, content blocks and `tool_call_chunks` merged by `index` (and by `id` when both
//! have no index; same index but two ids stay apart), strings inside a merged entry concatenated
//! (`args`), `id` and `name` kept from the first chunk that has them and never replaced by an empty
//! one. Then, as `collapseToolCallChunks` does, each merged call's `args` (trimmed, `""` read as
//! `{}`) parse as a JSON object into `tool_calls`.
//!
//! Differs, on purpose: args that are not complete JSON go to `invalid_tool_calls` with the
//! text kept (LangChain's `parsePartialJson` would guess at the missing end); a call without a
//! name or id is invalid too (no provider accepts it); two different non-empty names for one
//! call are refused (LangChain would keep the later); a chunk without an `id` is a message of its
//! own.
//!
//! Names: an assistant message without a `name` is named after its agent: the graph its node
//! runs in, i.e. the namespace's last segment (`"research_team:<uuid>"` → `research_team`) that
//! is not the node itself (`metadata.langgraph_node`, `"agent"` for every prebuilt ReAct agent);
//! the node alone at the top level. The namespace and node are kept in the message's `extra` as
//! `langgraph_namespace` and `langgraph_node` (written back into the LangChain format only).
//! `additional_kwargs` and `response_metadata` are not kept (their merge is provider-specific).

use super::{check_id, invalid};
use crate::error::{Error, ErrorCode, Result};
use crate::json::{obj, val, Put};
use crate::message::formats::util::kind;
use crate::message::formats::{decode_messages, Format};
use crate::message::Message;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// Whether `v` has the shape of a LangGraph messages item.
pub(super) fn is_item(v: &Value) -> bool {
    split(v).is_ok()
}

/// An item's namespace, chunk and metadata.
fn split(item: &Value) -> Result<(Vec<String>, &Value, &Value)> {
    let Some(a) = item.as_array() else {
        let hint = if item.get("type").is_some_and(Value::is_string) && item.get("lc").is_none() {
            " (a UIMessageChunk? use the \"ui-stream\" format)"
        } else {
            ""
        };
        return Err(invalid(format!(
            "a LangGraph messages item is `[namespace, [chunk, metadata]]` or `[chunk, metadata]`, got {}{hint}",
            kind(item)
        )));
    };
    match a.as_slice() {
        [Value::Array(ns), inner @ Value::Array(_)] if ns.iter().all(Value::is_string) => {
            let ns: Vec<String> = ns.iter().filter_map(Value::as_str).map(str::to_string).collect();
            let Some(inner) = inner.as_array().filter(|p| p.len() == 2) else {
                return Err(invalid("a LangGraph messages item's second element must be `[chunk, metadata]`"));
            };
            match (inner.first(), inner.get(1)) {
                (Some(c @ Value::Object(_)), Some(m)) if m.is_object() || m.is_null() => Ok((ns, c, m)),
                _ => Err(invalid("a LangGraph messages item's `[chunk, metadata]` must hold two objects")),
            }
        }
        [c @ Value::Object(_), m] if m.is_object() || m.is_null() => Ok((Vec::new(), c, m)),
        _ => Err(invalid("a LangGraph messages item is `[namespace, [chunk, metadata]]` or `[chunk, metadata]`")),
    }
}

/// One message being assembled.
#[derive(Debug, Clone)]
struct Entry {
    /// The chunk that began it (for error indexes).
    first_chunk: usize,
    namespace: Vec<String>,
    node: Option<String>,
    /// The LangChain dict (`type`, `content`, `id`, `name`, `tool_call_chunks` …).
    data: Map<String, Value>,
    /// Whether it is an `AIMessageChunk` (later chunks of its id merge into it).
    chunked: bool,
}

/// Two chunks' `usage_metadata` added field by field, as LangChain's `mergeUsageMetadata` does
/// when `AIMessageChunk.concat` merges them (numbers summed, `*_token_details` too).
fn add_usage(left: Option<&Value>, right: Option<&Value>) -> Option<Value> {
    fn add(l: &Value, r: &Value) -> Value {
        match (l, r) {
            (Value::Object(a), Value::Object(b)) => {
                let mut out = a.clone();
                for (k, v) in b {
                    let merged = match a.get(k) {
                        Some(old) => add(old, v),
                        None => v.clone(),
                    };
                    out.insert(k.clone(), merged);
                }
                Value::Object(out)
            }
            (Value::Number(a), Value::Number(b)) => match (a.as_u64(), b.as_u64()) {
                (Some(x), Some(y)) => val(&x.saturating_add(y)),
                _ => val(&(a.as_f64().unwrap_or(0.0) + b.as_f64().unwrap_or(0.0))),
            },
            (_, r) => r.clone(),
        }
    }
    match (left.filter(|v| v.is_object()), right.filter(|v| v.is_object())) {
        (Some(l), Some(r)) => Some(add(l, r)),
        (Some(l), None) => Some(l.clone()),
        (None, Some(r)) => Some(r.clone()),
        (None, None) => None,
    }
}

/// The assembly state of a langgraph-messages stream.
#[derive(Debug, Clone, Default)]
pub(crate) struct LanggraphStream {
    entries: Vec<Entry>,
    by_id: HashMap<String, usize>,
    chunks: usize,
}

/// A chunk as a plain LangChain dict (`type` from the serialized class name) and whether it is
/// an AI message chunk.
fn plain(chunk: &Map<String, Value>) -> Result<(Map<String, Value>, bool)> {
    if let (Some(kwargs), Some(Value::Array(path))) = (chunk.get("kwargs"), chunk.get("id")) {
        let class = path.last().and_then(Value::as_str).unwrap_or_default();
        let Some(kwargs) = kwargs.as_object() else {
            return Err(invalid("an lc-serialized message's `kwargs` must be an object").field("kwargs"));
        };
        let ty = match class {
            "AIMessageChunk" | "AIMessage" => "ai",
            "ToolMessage" | "ToolMessageChunk" => "tool",
            "HumanMessage" | "HumanMessageChunk" => "human",
            "SystemMessage" | "SystemMessageChunk" => "system",
            other => {
                return Err(invalid(format!(
                    "an lc-serialized message of class {other:?}; expected AIMessageChunk, AIMessage, ToolMessage, HumanMessage or SystemMessage"
                ))
                .field("id"))
            }
        };
        let mut data = kwargs.clone();
        data.put("type", val(&ty));
        return Ok((data, class == "AIMessageChunk"));
    }
    match chunk.get("type").and_then(Value::as_str) {
        Some("AIMessageChunk") => {
            let mut data = chunk.clone();
            data.put("type", Value::from("ai"));
            Ok((data, true))
        }
        Some("ai") => Ok((chunk.clone(), chunk.contains_key("tool_call_chunks"))),
        Some("tool" | "human" | "system" | "ToolMessageChunk") => Ok((chunk.clone(), false)),
        Some(other) => Err(invalid(format!(
            "a LangGraph messages chunk of type {other:?}; expected a LangChain message (ai, tool, human, system, AIMessageChunk){}",
            if super::ui_stream::is_chunk_type(other) { " — this is a UIMessageChunk: use the \"ui-stream\" format" } else { "" }
        ))
        .field("type")),
        None => Err(invalid("a LangGraph messages chunk needs `type` or `lc` + `kwargs`").field("type")),
    }
}

/// `mergeContent` of `@langchain/core`.
fn merge_content(first: Value, second: &Value) -> Result<Value> {
    Ok(match (first, second) {
        (Value::String(a), _) if a.is_empty() => second.clone(),
        (Value::String(a), Value::String(b)) => Value::String(a + b),
        (Value::String(a), Value::Array(b)) if b.is_empty() => Value::String(a),
        (Value::String(a), Value::Array(b)) => {
            let mut out = vec![obj! {"type": "text", "text": a}];
            out.extend(b.iter().cloned());
            Value::Array(out)
        }
        (Value::Array(a), Value::Array(b)) => Value::Array(merge_lists(a, b)?),
        (first, Value::String(b)) if b.is_empty() => first,
        (Value::Array(mut a), Value::String(b)) => {
            a.push(obj! {"type": "text", "text": b});
            Value::Array(a)
        }
        (first, Value::Null) => first,
        (Value::Null, second) => second.clone(),
        (a, b) => {
            return Err(invalid(format!("message chunks with content of two kinds ({} and {})", kind(&a), kind(b)))
                .field("content"))
        }
    })
}

fn mergeable_index(v: &Value) -> Option<&Value> {
    v.get("index").filter(|i| i.is_number() || i.is_string())
}

fn mergeable_id(v: &Value) -> Option<&str> {
    v.get("id").and_then(Value::as_str).filter(|s| !s.is_empty())
}

/// The type without a `_delta` suffix (`getMergeableTypeBase`).
fn type_base(v: &Value) -> Option<&str> {
    v.get("type").and_then(Value::as_str).map(|t| t.strip_suffix("_delta").unwrap_or(t))
}

/// `_findMergeTarget`: the entry `item` merges into.
fn merge_target(merged: &[Value], item: &Value) -> Option<usize> {
    let (index, id) = (mergeable_index(item), mergeable_id(item));
    if index.is_none() && id.is_none() {
        return None;
    }
    merged.iter().position(|left| match (index, mergeable_index(left)) {
        (Some(i), Some(li)) => {
            i == li
                && (type_base(left).is_none() || type_base(item).is_none() || type_base(left) == type_base(item))
                && match (mergeable_id(left), id) {
                    (Some(a), Some(b)) => a == b,
                    _ => true,
                }
        }
        (None, None) => id.is_some() && mergeable_id(left) == id,
        _ => false,
    })
}

/// `_mergeLists`.
fn merge_lists(mut merged: Vec<Value>, right: &[Value]) -> Result<Vec<Value>> {
    for item in right {
        match merge_target(&merged, item) {
            Some(at) => {
                if let (Some(Value::Object(left)), Value::Object(r)) = (merged.get_mut(at), item) {
                    merge_dicts(left, r)?;
                }
            }
            None if item.get("text").and_then(Value::as_str) == Some("") => {}
            None => merged.push(item.clone()),
        }
    }
    Ok(merged)
}

/// `_mergeDicts`, with `id` and `name` kept from the first non-empty value (two different
/// non-empty names refused).
fn merge_dicts(left: &mut Map<String, Value>, right: &Map<String, Value>) -> Result<()> {
    for (key, value) in right {
        let Some(existing) = left.get_mut(key).filter(|v| !v.is_null()) else {
            left.insert(key.clone(), value.clone());
            continue;
        };
        match (existing, value) {
            (_, Value::Null) => {}
            (Value::String(a), Value::String(b)) => match key.as_str() {
                "type" | "index" | "created" | "timestamp" => {}
                "id" | "name" | "output_version" | "model_provider" => {
                    if a.is_empty() {
                        *a = b.clone();
                    } else if !b.is_empty() && a != b && key == "name" {
                        return Err(invalid(format!("two chunks of one tool call name two tools ({a:?} and {b:?})"))
                            .field("name"));
                    }
                }
                _ => a.push_str(b),
            },
            (Value::Number(_), Value::Number(_)) => {
                // Indexes and timestamps are ignored; other numbers (token counts) add up.
                if !matches!(key.as_str(), "index" | "created" | "timestamp") {
                    let sum = left.get(key).and_then(Value::as_f64).unwrap_or(0.0) + value.as_f64().unwrap_or(0.0);
                    let n = if sum.fract() == 0.0 && sum.abs() < 9e15 { val(&(sum as i64)) } else { val(&sum) };
                    left.insert(key.clone(), n);
                }
            }
            (Value::Object(a), Value::Object(b)) => merge_dicts(a, b)?,
            (Value::Array(a), Value::Array(b)) => {
                let merged = merge_lists(std::mem::take(a), b)?;
                *a = merged;
            }
            (a, b) if a == b => {}
            (Value::Bool(_), Value::Bool(_)) => {}
            (a, b) => {
                return Err(invalid(format!("field `{key}` is {} in one chunk and {} in the next", kind(a), kind(b)))
                    .field(key))
            }
        }
    }
    Ok(())
}

/// The agent a message's namespace names (see the module docs).
fn agent_name(namespace: &[String], node: Option<&str>) -> Option<String> {
    let names: Vec<&str> = namespace.iter().map(|s| s.split(':').next().unwrap_or_default()).collect();
    match names.as_slice() {
        [.., graph, last] if Some(*last) == node => Some(graph.to_string()),
        [.., last] => Some(last.to_string()),
        [] => node.map(str::to_string),
    }
    .filter(|n| !n.is_empty())
}

/// `collapseToolCallChunks`: merged chunks into `tool_calls` and `invalid_tool_calls`.
fn collapse(chunks: &[Value]) -> (Vec<Value>, Vec<Value>) {
    let (mut calls, mut invalid_calls) = (Vec::new(), Vec::new());
    for c in chunks {
        let name = c.get("name").and_then(Value::as_str).unwrap_or_default();
        let id = c.get("id").and_then(Value::as_str).unwrap_or_default();
        let args = match c.get("args") {
            Some(Value::String(s)) => s.trim().to_string(),
            _ => String::new(),
        };
        let text = if args.is_empty() { "{}".to_string() } else { args.clone() };
        let parsed = serde_json::from_str::<Value>(&text).ok().filter(Value::is_object);
        match parsed {
            Some(p) if !id.is_empty() && !name.is_empty() => {
                calls.push(obj! {"name": name, "args": p, "id": id, "type": "tool_call"})
            }
            _ => {
                let error = if id.is_empty() {
                    "the call has no id"
                } else if name.is_empty() {
                    "the call has no tool name"
                } else {
                    "the arguments are not a complete JSON object"
                };
                invalid_calls
                    .push(obj! {"name": name, "args": args, "id": id, "error": error, "type": "invalid_tool_call"});
            }
        }
    }
    (calls, invalid_calls)
}

impl LanggraphStream {
    pub(crate) fn push(&mut self, item: &Value) -> Result<()> {
        let at = self.chunks;
        self.chunks += 1;
        let (namespace, chunk, metadata) = split(item)?;
        let Some(chunk) = chunk.as_object() else { return Err(invalid("a chunk must be an object")) };
        let (mut data, chunked) = plain(chunk)?;
        for s in &namespace {
            check_id(s, "a namespace segment")?;
        }
        let id = match data.get("id") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => {
                check_id(s, "a message id")?;
                Some(s.clone())
            }
            Some(other) => {
                return Err(invalid(format!("a message id must be a string, got {}", kind(other))).field("id"))
            }
        };
        let node = metadata.get("langgraph_node").and_then(Value::as_str).map(str::to_string);
        if let Some(node) = &node {
            check_id(node, "`langgraph_node`")?;
        }
        if let Some(entry) = id.as_ref().and_then(|id| self.by_id.get(id)).and_then(|&i| self.entries.get_mut(i)) {
            if !(entry.chunked && chunked) {
                return Err(invalid(format!(
                    "message id {:?} came before; only AIMessageChunks of one message share an id",
                    id.unwrap_or_default()
                ))
                .field("id"));
            }
            let content = merge_content(
                entry.data.remove("content").unwrap_or(Value::from("")),
                data.get("content").unwrap_or(&Value::from("")),
            )?;
            entry.data.put("content", content);
            let left = match entry.data.remove("tool_call_chunks") {
                Some(Value::Array(a)) => a,
                _ => Vec::new(),
            };
            let right = match data.get("tool_call_chunks") {
                Some(Value::Array(a)) => a.as_slice(),
                _ => &[],
            };
            entry.data.put("tool_call_chunks", Value::Array(merge_lists(left, right)?));
            if let Some(usage) = add_usage(entry.data.get("usage_metadata"), data.get("usage_metadata")) {
                entry.data.put("usage_metadata", usage);
            }
            if let Some(Value::String(n)) = data.get("name") {
                if entry.data.get("name").and_then(Value::as_str).is_none_or(str::is_empty) && !n.is_empty() {
                    entry.data.put("name", val(&n));
                }
            }
            return Ok(());
        }
        if chunked {
            // Keep what concat keeps; drop what the collapse recomputes.
            let content = data.get("content").cloned().unwrap_or(Value::from(""));
            let tcc = match data.get("tool_call_chunks") {
                Some(Value::Array(a)) => merge_lists(Vec::new(), a)?,
                _ => Vec::new(),
            };
            let mut kept = Map::new();
            kept.put("type", Value::from("ai"));
            kept.put("content", content);
            for k in ["id", "name", "usage_metadata"] {
                if let Some(v) = data.get(k).filter(|v| !v.is_null()) {
                    kept.insert(k.into(), v.clone());
                }
            }
            kept.put("tool_call_chunks", Value::Array(tcc));
            data = kept;
        }
        if let Some(id) = &id {
            self.by_id.insert(id.clone(), self.entries.len());
        }
        self.entries.push(Entry { first_chunk: at, namespace, node, data, chunked });
        Ok(())
    }

    /// The assembled messages as LangChain dicts, with the chunk that began each.
    fn values(&self) -> Vec<Value> {
        self.entries
            .iter()
            .map(|e| {
                let mut d = e.data.clone();
                if e.chunked {
                    let chunks = match d.shift_remove("tool_call_chunks") {
                        Some(Value::Array(a)) => a,
                        _ => Vec::new(),
                    };
                    let (calls, invalid_calls) = collapse(&chunks);
                    d.put("tool_calls", Value::Array(calls));
                    d.put("invalid_tool_calls", Value::Array(invalid_calls));
                }
                if d.get("type").and_then(Value::as_str) == Some("ai")
                    && d.get("name").and_then(Value::as_str).is_none_or(str::is_empty)
                {
                    if let Some(n) = agent_name(&e.namespace, e.node.as_deref()) {
                        d.put("name", val(&n));
                    }
                }
                if !e.namespace.is_empty() {
                    d.put("langgraph_namespace", val(&e.namespace));
                }
                if let Some(n) = &e.node {
                    d.put("langgraph_node", val(&n));
                }
                Value::Object(d)
            })
            .collect()
    }

    pub(crate) fn messages(&self) -> Result<Vec<Message>> {
        let values = self.values();
        decode_messages(&values, Some(Format::Langchain)).map(|d| d.messages).map_err(|mut e: Error| {
            e.index = e.index.map(|i| self.entries.get(i).map_or(i, |x| x.first_chunk));
            if e.code == ErrorCode::InvalidToolCall || e.code == ErrorCode::InvalidMessage {
                e.message = format!("the message assembled from this chunk on: {}", e.message);
            }
            e
        })
    }
}

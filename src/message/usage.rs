//! Token usage an assistant message reports, read once from every provider's fields into one
//! canonical [`Usage`], so it survives conversion and the budget counts the same whatever the
//! format.
//!
//! | source | read from | input tokens |
//! |---|---|---|
//! | LangChain `usage_metadata` | `input_tokens`, `output_tokens`, `input_token_details.{cache_read, cache_creation}` | `input_tokens` (LangChain's already include the cache) |
//! | Anthropic `usage` | `input_tokens`, `output_tokens`, `cache_read_input_tokens`, `cache_creation_input_tokens` | `input_tokens` + cache read + cache creation (Anthropic's exclude them) |
//! | OpenAI Chat `usage` | `prompt_tokens`, `completion_tokens`, `prompt_tokens_details.cached_tokens` | `prompt_tokens` |
//! | OpenAI Responses `usage` | `input_tokens`, `output_tokens`, `input_tokens_details.cached_tokens` | `input_tokens` |
//! | AI SDK `usage` (also a UIMessage's `metadata.usage`) | `inputTokens`, `outputTokens`, `cachedInputTokens`, `inputTokenDetails.{cacheReadTokens, cacheWriteTokens}` | `inputTokens` |

use super::formats::Format;
use super::Message;
use crate::json::{obj, Put};
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[cfg(target_arch = "wasm32")]
use tsify::Tsify;

/// The tokens one model call used, as the message reporting it says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub struct Usage {
    /// Every input token the provider processed, cache reads and cache writes included.
    pub input_tokens: u64,
    /// Output tokens (reasoning included).
    pub output_tokens: u64,
    /// Of the input, tokens read from the provider's prompt cache.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_read_tokens: u64,
    /// Of the input, tokens written to the provider's prompt cache.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_creation_tokens: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Usage {
    /// Input plus output: what the store's budget counts as `tokens`.
    pub fn total(&self) -> u64 {
        self.input_tokens.saturating_add(self.output_tokens)
    }
}

fn n(v: &Value, path: &[&str]) -> Option<u64> {
    path.iter().try_fold(v, |v, k| v.get(k))?.as_u64()
}

/// The usage in one provider usage object, read by its field names; `anthropic` says whether
/// `input_tokens` excludes the cache (Anthropic) or includes it (everyone else).
fn read(u: &Value, anthropic: bool) -> Option<Usage> {
    if let Some(prompt) = n(u, &["prompt_tokens"]) {
        return Some(Usage {
            input_tokens: prompt,
            output_tokens: n(u, &["completion_tokens"]).unwrap_or(0),
            cache_read_tokens: n(u, &["prompt_tokens_details", "cached_tokens"]).unwrap_or(0),
            cache_creation_tokens: 0,
        });
    }
    // AI SDK usage fields are `number | undefined`: either one says it is this shape.
    if u.get("inputTokens").is_some() || u.get("outputTokens").is_some() {
        return Some(Usage {
            input_tokens: n(u, &["inputTokens"]).unwrap_or(0),
            output_tokens: n(u, &["outputTokens"]).unwrap_or(0),
            cache_read_tokens: n(u, &["inputTokenDetails", "cacheReadTokens"])
                .or_else(|| n(u, &["cachedInputTokens"]))
                .unwrap_or(0),
            cache_creation_tokens: n(u, &["inputTokenDetails", "cacheWriteTokens"]).unwrap_or(0),
        });
    }
    let input = n(u, &["input_tokens"]);
    let output = n(u, &["output_tokens"]);
    if input.is_none() && output.is_none() {
        // Only a total (some recorders): all of it as input.
        return n(u, &["total_tokens"]).map(|t| Usage { input_tokens: t, ..Usage::default() });
    }
    let (input, output) = (input.unwrap_or(0), output.unwrap_or(0));
    let read = n(u, &["cache_read_input_tokens"])
        .or_else(|| n(u, &["input_token_details", "cache_read"]))
        .or_else(|| n(u, &["input_tokens_details", "cached_tokens"]))
        .unwrap_or(0);
    let creation = n(u, &["cache_creation_input_tokens"])
        .or_else(|| n(u, &["input_token_details", "cache_creation"]))
        .unwrap_or(0);
    let exclusive =
        anthropic || u.get("cache_read_input_tokens").is_some() || u.get("cache_creation_input_tokens").is_some();
    Some(Usage {
        input_tokens: if exclusive { input.saturating_add(read).saturating_add(creation) } else { input },
        output_tokens: output,
        cache_read_tokens: read,
        cache_creation_tokens: creation,
    })
}

/// The usage a decoded message reports in its format's own fields (kept in `extra`):
/// LangChain's `usage_metadata` first, then `usage`, then a UIMessage's `metadata.usage`.
pub fn usage_of(m: &Message) -> Option<Usage> {
    let anthropic = m.origin == Some(Format::Anthropic);
    let fields =
        [m.extra.get("usage_metadata"), m.extra.get("usage"), m.extra.get("metadata").and_then(|x| x.get("usage"))];
    fields.into_iter().flatten().filter(|u| u.is_object()).find_map(|u| read(u, anthropic))
}

/// LangChain's `usage_metadata` for `usage` (what a converted AIMessage carries).
pub fn langchain_usage_metadata(usage: &Usage) -> Value {
    let mut v = obj! {
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "total_tokens": usage.total(),
    };
    if usage.cache_read_tokens > 0 || usage.cache_creation_tokens > 0 {
        let mut details = serde_json::Map::new();
        if usage.cache_read_tokens > 0 {
            details.put("cache_read", usage.cache_read_tokens.into());
        }
        if usage.cache_creation_tokens > 0 {
            details.put("cache_creation", usage.cache_creation_tokens.into());
        }
        v["input_token_details"] = Value::Object(details);
    }
    v
}

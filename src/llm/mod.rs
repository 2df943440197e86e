//! Talking to language models: one streaming chat call, the same for the
//! migrate loop (TUI and headless) and for review, made from a background
//! thread. [`stream_chat`] sends a system + user prompt to Anthropic Messages
//! or an OpenAI-compatible Chat Completions server (OpenAI, Ollama, llama.cpp,
//! vLLM, LM Studio), hands every text fragment to a callback as it arrives,
//! retries what is safe to retry, and returns the whole reply with its usage
//! and approximate cost. The wire formats follow
//! `shared/llm-wire-formats.md`; the rule that matters most downstream is that
//! a reply is complete only when its terminal marker arrived — anything else is
//! reported as `truncated` so no edit from it is ever applied.

mod anthropic;
mod config;
mod error;
mod openai;
pub mod sse;
mod transport;
pub mod trust;

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

pub use config::{
    EndpointOrigin, LlmConfig, LlmSources, MaxTokensField, PRICE_TABLE, Price, lookup_price,
};
pub use error::{ApiFailure, LlmError};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderKind {
    Anthropic,
    OpenAi,
    /// Ollama through its OpenAI-compatible `/v1/chat/completions`.
    Ollama,
}

impl ProviderKind {
    /// The name used in messages.
    pub fn label(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => "Anthropic",
            ProviderKind::OpenAi => "OpenAI",
            ProviderKind::Ollama => "Ollama",
        }
    }
}

impl fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::OpenAi => "openai",
            ProviderKind::Ollama => "ollama",
        })
    }
}

impl FromStr for ProviderKind {
    type Err = LlmError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "anthropic" | "claude" => Ok(ProviderKind::Anthropic),
            "openai" => Ok(ProviderKind::OpenAi),
            "ollama" => Ok(ProviderKind::Ollama),
            other => Err(LlmError::Config(format!(
                "unknown provider `{other}`; use anthropic, openai or ollama (other OpenAI-compatible servers: openai with --base-url)"
            ))),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatRequest {
    pub system: String,
    pub user: String,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    /// The next fragment of the reply, in order.
    Text(String),
    /// An attempt failed before any text and another follows after `wait`.
    Retrying {
        /// Which attempt failed: 1 is the first request.
        attempt: u32,
        wait: Duration,
        reason: String,
    },
    /// Token counts so far (providers report them at the start and the end).
    Usage(Usage),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    pub text: String,
    pub usage: Usage,
    /// The provider's own word (`end_turn`, `stop`, `max_tokens`, `length`…);
    /// empty when the stream was cut before it said.
    pub stop_reason: String,
    /// The reply is incomplete — cut off by the output cap, the context
    /// window, or a stream that ended without its terminal marker. Show it,
    /// never apply edits from it.
    pub truncated: bool,
    /// Why `truncated` is set, for the user.
    pub truncation_note: Option<String>,
    /// Why the stream broke before its terminal marker (the connection
    /// closed, went idle), if it did. `truncated` is set too, but unlike an
    /// output limit the reply may stop anywhere — the model may have had more
    /// to say about what it already wrote — so callers that act on the whole
    /// reply (review findings) discard it.
    pub cut: Option<String>,
    pub request_id: Option<String>,
    /// Approximate, from the configured price table; `None` for unknown models.
    pub cost_usd: Option<f64>,
    /// Secrets replaced by placeholders in the request before it was sent.
    pub redactions: crate::redact::Redactions,
}

/// Cancels a running [`stream_chat`] from another thread. Cheap to clone; all
/// clones share one flag. The stream notices within a few tens of
/// milliseconds, even while the server is silent, and drops the connection.
#[derive(Debug, Clone, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Send `req` and stream the reply into `on_event`, blocking the calling
/// thread until the reply is complete, truncated, failed or cancelled.
///
/// Retries (at most `config.max_retries`) happen only before any text has
/// arrived: on 408/409/429/5xx/529 (honouring `retry-after`) and on
/// connections dropped before the first fragment. Never on 400/401/403/404 or
/// billing 429s. Once text has been shown a failure is reported, never
/// silently re-billed.
pub fn stream_chat(
    config: &LlmConfig,
    req: &ChatRequest,
    cancel: &CancelToken,
    on_event: &mut dyn FnMut(StreamEvent),
) -> Result<Completion, LlmError> {
    transport::stream_chat(config, req, cancel, on_event)
}

/// What a provider-specific decoder found in one SSE event.
#[derive(Debug, Clone, PartialEq)]
enum Decoded {
    Text(String),
    /// Counts the provider reported; `None` keeps the previous value
    /// (Anthropic reports input at the start and cumulative output at the end).
    Usage {
        input: Option<u64>,
        output: Option<u64>,
    },
    StopReason(String),
    /// The terminal marker (`message_stop`, `[DONE]`).
    Done,
}

/// Turns one provider's SSE events into [`Decoded`] items. A provider error
/// inside the stream comes back as `Err(LlmError::Stream)`.
trait StreamDecoder {
    fn decode(&mut self, event: &sse::SseEvent, out: &mut Vec<Decoded>) -> Result<(), LlmError>;
}

/// Stop reasons that mean the model did not finish its answer.
fn stop_truncates(reason: &str) -> Option<&'static str> {
    match reason {
        "max_tokens" | "length" => {
            Some("the model hit the output limit; raise `max_tokens` under [llm] or ask for less")
        }
        "model_context_window_exceeded" => {
            Some("the model ran out of context window; lower the context budget")
        }
        _ => None,
    }
}

/// Parse a data payload as JSON, reporting (an excerpt of) bad payloads.
fn parse_json(data: &str) -> Result<serde_json::Value, LlmError> {
    serde_json::from_str(data).map_err(|e| {
        let excerpt: String = data.chars().take(200).collect();
        LlmError::Protocol {
            detail: format!("stream data is not JSON ({e}): {excerpt}"),
        }
    })
}

#[cfg(test)]
mod fuzz {
    use proptest::prelude::*;
    use serde_json::Value;

    use super::*;

    /// JSON shaped like the providers' events: their field names, any values.
    fn event_json() -> impl Strategy<Value = Value> {
        let key = prop_oneof![
            Just("type"),
            Just("delta"),
            Just("text"),
            Just("usage"),
            Just("choices"),
            Just("content"),
            Just("finish_reason"),
            Just("stop_reason"),
            Just("error"),
            Just("message"),
            Just("index"),
            Just("input_tokens"),
            Just("output_tokens"),
            Just("prompt_tokens"),
            Just("completion_tokens"),
        ];
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            prop_oneof![
                Just("message_stop".to_owned()),
                Just("content_block_delta".to_owned()),
                Just("text_delta".to_owned()),
                Just("error".to_owned()),
                Just("stop".to_owned()),
                "\\PC{0,8}",
            ]
            .prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 48, 6, move |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::vec((key.clone(), inner), 0..6).prop_map(|fields| {
                    Value::Object(fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
                }),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        /// Whatever a server streams, decoding gives items or an error.
        #[test]
        fn provider_decoders_never_panic(
            event in prop_oneof![Just("message".to_owned()), Just("error".to_owned()), "[a-z_]{0,16}"],
            data in prop_oneof![event_json().prop_map(|v| v.to_string()), "\\PC{0,40}", Just("[DONE]".to_owned())],
        ) {
            let ev = sse::SseEvent { event, data, id: None };
            let mut out = Vec::new();
            let _ = anthropic::Decoder.decode(&ev, &mut out);
            let _ = openai::Decoder.decode(&ev, &mut out);
        }
    }
}

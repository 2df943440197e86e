//! The Anthropic Messages API (llm-wire-formats.md §1): the request (key in
//! `x-api-key`, `anthropic-version` on every call, top-level `system`) and the
//! event stream — `message_start`, content blocks of `text_delta`s,
//! `message_delta` with the stop reason and cumulative usage, then
//! `message_stop`. Only `text_delta` is rendered; thinking, tool-use, `ping`
//! and event types added after this was written are skipped, as Anthropic's
//! versioning policy requires.

use reqwest::header::{HeaderMap, HeaderValue};
use serde::Serialize;
use serde_json::Value;

use super::sse::SseEvent;
use super::{ChatRequest, Decoded, LlmConfig, LlmError, StreamDecoder, parse_json};

pub const API_VERSION: &str = "2023-06-01";

pub fn endpoint(base_url: &str) -> String {
    format!("{}/v1/messages", base_url.trim_end_matches('/'))
}

pub fn headers(key: Option<&str>) -> Result<HeaderMap, LlmError> {
    let mut headers = HeaderMap::new();
    if let Some(key) = key {
        headers.insert("x-api-key", super::transport::secret_header(key)?);
    }
    headers.insert("anthropic-version", HeaderValue::from_static(API_VERSION));
    headers.insert("content-type", HeaderValue::from_static("application/json"));
    Ok(headers)
}

/// Field order follows the documented example so recorded requests read the
/// same as the spec.
#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    max_tokens: u32,
    stream: bool,
    #[serde(skip_serializing_if = "str::is_empty")]
    system: &'a str,
    messages: [Message<'a>; 1],
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f32>,
}

#[derive(Serialize)]
struct Message<'a> {
    role: &'a str,
    content: &'a str,
}

pub fn body(config: &LlmConfig, req: &ChatRequest) -> Result<Vec<u8>, LlmError> {
    let body = Body {
        model: &config.model,
        max_tokens: config.max_tokens,
        stream: true,
        system: &req.system,
        messages: [Message {
            role: "user",
            content: &req.user,
        }],
        temperature: config.temperature,
    };
    serde_json::to_vec(&body)
        .map_err(|e| LlmError::Config(format!("cannot encode the request: {e}")))
}

#[derive(Default)]
pub struct Decoder;

impl StreamDecoder for Decoder {
    fn decode(&mut self, event: &SseEvent, out: &mut Vec<Decoded>) -> Result<(), LlmError> {
        if event.event == "ping" {
            return Ok(());
        }
        let json = parse_json(&event.data)?;
        // The data's `type` equals the event name; prefer it, as the SDKs do.
        let kind = json
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or(&event.event);
        match kind {
            "message_start" => {
                if let Some(usage) = json.pointer("/message/usage") {
                    push_usage(usage, out);
                }
            }
            "content_block_delta" => {
                let delta = json.get("delta");
                let is_text =
                    delta.and_then(|d| d.get("type")).and_then(Value::as_str) == Some("text_delta");
                if let Some(text) = delta.and_then(|d| d.get("text")).and_then(Value::as_str)
                    && is_text
                    && !text.is_empty()
                {
                    out.push(Decoded::Text(text.to_owned()));
                }
            }
            "message_delta" => {
                if let Some(reason) = json.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    out.push(Decoded::StopReason(reason.to_owned()));
                }
                if let Some(usage) = json.get("usage") {
                    push_usage(usage, out);
                }
            }
            "message_stop" => out.push(Decoded::Done),
            "error" => {
                let (kind, _, message) = super::error::error_fields(&json);
                return Err(LlmError::Stream {
                    kind: kind.unwrap_or_else(|| "error".to_owned()),
                    message: message.unwrap_or_else(|| event.data.clone()),
                });
            }
            _ => {}
        }
        Ok(())
    }
}

fn push_usage(usage: &Value, out: &mut Vec<Decoded>) {
    let count = |name: &str| usage.get(name).and_then(Value::as_u64);
    let (input, output) = (count("input_tokens"), count("output_tokens"));
    if input.is_some() || output.is_some() {
        out.push(Decoded::Usage { input, output });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::ProviderKind;

    #[test]
    fn body_matches_the_documented_shape() {
        let mut config = LlmConfig::defaults(ProviderKind::Anthropic);
        config.model = "claude-sonnet-4-5-20250929".into();
        let req = ChatRequest {
            system: "sys".into(),
            user: "hi \"there\"".into(),
        };
        assert_eq!(
            String::from_utf8(body(&config, &req).unwrap()).unwrap(),
            r#"{"model":"claude-sonnet-4-5-20250929","max_tokens":8192,"stream":true,"system":"sys","messages":[{"role":"user","content":"hi \"there\""}]}"#
        );
        config.temperature = Some(0.0);
        let req = ChatRequest {
            system: String::new(),
            user: "u".into(),
        };
        let text = String::from_utf8(body(&config, &req).unwrap()).unwrap();
        assert!(!text.contains("system"));
        assert!(text.ends_with(r#""temperature":0.0}"#), "{text}");
    }

    fn decode(event: &str, data: &str) -> Result<Vec<Decoded>, LlmError> {
        let mut out = Vec::new();
        Decoder.decode(
            &SseEvent {
                event: event.into(),
                data: data.into(),
                id: None,
            },
            &mut out,
        )?;
        Ok(out)
    }

    #[test]
    fn non_text_deltas_and_unknown_events_are_skipped() {
        let thinking = r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm"}}"#;
        assert_eq!(decode("content_block_delta", thinking).unwrap(), vec![]);
        let json = r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{"}}"#;
        assert_eq!(decode("content_block_delta", json).unwrap(), vec![]);
        assert_eq!(
            decode("brand_new_event", r#"{"type":"brand_new_event"}"#).unwrap(),
            vec![]
        );
        assert_eq!(decode("ping", "not even json").unwrap(), vec![]);
    }

    #[test]
    fn error_event_carries_type_and_message() {
        let err = decode(
            "error",
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        )
        .unwrap_err();
        assert!(
            matches!(&err, LlmError::Stream { kind, message } if kind == "overloaded_error" && message == "Overloaded")
        );
    }
}

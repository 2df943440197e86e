//! OpenAI Chat Completions and the servers that speak it — Ollama's `/v1`,
//! llama.cpp, vLLM, LM Studio (llm-wire-formats.md §2): the request (bearer
//! key, `stream_options.include_usage`, the output cap under the configured
//! field name) and the stream of `data:` chunks ending in `data: [DONE]`.
//! Every chunk is checked for an `error` key first, as the official SDK does,
//! because a failure after the 200 status arrives as an ordinary data payload.

use reqwest::header::{HeaderMap, HeaderValue};
use serde::Serialize;
use serde_json::Value;

use super::sse::SseEvent;
use super::{ChatRequest, Decoded, LlmConfig, LlmError, MaxTokensField, StreamDecoder, parse_json};

pub fn endpoint(base_url: &str) -> String {
    format!("{}/chat/completions", base_url.trim_end_matches('/'))
}

pub fn headers(key: Option<&str>) -> Result<HeaderMap, LlmError> {
    let mut headers = HeaderMap::new();
    if let Some(key) = key {
        let bearer = format!("Bearer {key}");
        headers.insert("authorization", super::transport::secret_header(&bearer)?);
    }
    headers.insert("content-type", HeaderValue::from_static("application/json"));
    Ok(headers)
}

#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    stream: bool,
    stream_options: StreamOptions,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_completion_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    messages: Vec<Message<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f32>,
}

#[derive(Serialize)]
struct StreamOptions {
    include_usage: bool,
}

#[derive(Serialize)]
struct Message<'a> {
    role: &'a str,
    content: &'a str,
}

pub fn body(config: &LlmConfig, req: &ChatRequest) -> Result<Vec<u8>, LlmError> {
    let mut messages = Vec::with_capacity(2);
    if !req.system.is_empty() {
        messages.push(Message {
            role: "system",
            content: &req.system,
        });
    }
    messages.push(Message {
        role: "user",
        content: &req.user,
    });
    let cap = Some(config.max_tokens);
    let body = Body {
        model: &config.model,
        stream: true,
        stream_options: StreamOptions {
            include_usage: true,
        },
        max_completion_tokens: cap
            .filter(|_| config.max_tokens_field == MaxTokensField::MaxCompletionTokens),
        max_tokens: cap.filter(|_| config.max_tokens_field == MaxTokensField::MaxTokens),
        messages,
        temperature: config.temperature,
    };
    serde_json::to_vec(&body)
        .map_err(|e| LlmError::Config(format!("cannot encode the request: {e}")))
}

#[derive(Default)]
pub struct Decoder;

impl StreamDecoder for Decoder {
    fn decode(&mut self, event: &SseEvent, out: &mut Vec<Decoded>) -> Result<(), LlmError> {
        if event.data.trim() == "[DONE]" {
            out.push(Decoded::Done);
            return Ok(());
        }
        let json = parse_json(&event.data)?;
        if json.get("error").is_some() || event.event == "error" {
            let (kind, code, message) = super::error::error_fields(&json);
            return Err(LlmError::Stream {
                kind: kind.or(code).unwrap_or_else(|| "error".to_owned()),
                message: message.unwrap_or_else(|| event.data.clone()),
            });
        }
        if let Some(choice) = json.pointer("/choices/0") {
            if let Some(text) = choice.pointer("/delta/content").and_then(Value::as_str)
                && !text.is_empty()
            {
                out.push(Decoded::Text(text.to_owned()));
            }
            if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
                out.push(Decoded::StopReason(reason.to_owned()));
            }
        }
        if let Some(usage) = json.get("usage").filter(|u| u.is_object()) {
            let count = |name: &str| usage.get(name).and_then(Value::as_u64);
            out.push(Decoded::Usage {
                input: count("prompt_tokens"),
                output: count("completion_tokens"),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::ProviderKind;

    #[test]
    fn body_uses_the_configured_cap_field() {
        let config = LlmConfig::defaults(ProviderKind::OpenAi);
        let req = ChatRequest {
            system: "sys".into(),
            user: "hi".into(),
        };
        assert_eq!(
            String::from_utf8(body(&config, &req).unwrap()).unwrap(),
            r#"{"model":"gpt-5.4-mini","stream":true,"stream_options":{"include_usage":true},"max_completion_tokens":8192,"messages":[{"role":"system","content":"sys"},{"role":"user","content":"hi"}]}"#
        );
        let local = LlmConfig::defaults(ProviderKind::Ollama);
        let text = String::from_utf8(body(&local, &req).unwrap()).unwrap();
        assert!(
            text.contains(r#""max_tokens":8192"#) && !text.contains("max_completion_tokens"),
            "{text}"
        );
    }

    fn decode(data: &str) -> Result<Vec<Decoded>, LlmError> {
        let mut out = Vec::new();
        Decoder.decode(
            &SseEvent {
                event: "message".into(),
                data: data.into(),
                id: None,
            },
            &mut out,
        )?;
        Ok(out)
    }

    #[test]
    fn error_payloads_of_both_shapes() {
        let err = decode(r#"{"error":{"message":"boom","type":"server_error","code":null}}"#)
            .unwrap_err();
        assert!(
            matches!(&err, LlmError::Stream { kind, message } if kind == "server_error" && message == "boom")
        );
        let err = decode(r#"{"error":"model crashed"}"#).unwrap_err();
        assert!(matches!(&err, LlmError::Stream { message, .. } if message == "model crashed"));
    }

    #[test]
    fn usage_chunk_without_choices() {
        let got =
            decode(r#"{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":7}}"#).unwrap();
        assert_eq!(
            got,
            vec![Decoded::Usage {
                input: Some(5),
                output: Some(7)
            }]
        );
        assert_eq!(
            decode(r#"{"choices":[{"delta":{},"finish_reason":null}],"usage":null}"#).unwrap(),
            vec![]
        );
    }
}

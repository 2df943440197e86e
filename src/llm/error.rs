//! Why an LLM call failed, phrased so the user knows what to do next: which
//! variable to set, which flag to check, whether retrying can help. Provider
//! error bodies are parsed into [`ApiFailure`] whatever their shape (Anthropic
//! and OpenAI JSON, local servers' `{"error":"…"}`, a proxy's HTML), and any
//! text that came from the network is scrubbed of the API key before it can
//! reach a message.

use std::fmt;
use std::time::Duration;

use reqwest::StatusCode;
use serde_json::Value;

/// An HTTP error response from the provider, reduced to what a person needs.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiFailure {
    pub status: u16,
    /// `error.type` (`rate_limit_error`, `invalid_request_error`, …).
    pub kind: Option<String>,
    /// OpenAI's `error.code` or Anthropic's `error.details.error_code`.
    pub code: Option<String>,
    pub message: String,
    pub request_id: Option<String>,
    /// The server's `retry-after` / `retry-after-ms`, when it sent one.
    pub retry_after: Option<Duration>,
}

impl fmt::Display for ApiFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "HTTP {}", self.status)?;
        if let Some(kind) = &self.kind {
            write!(f, " {kind}")?;
        }
        if let Some(code) = &self.code {
            write!(f, " ({code})")?;
        }
        if !self.message.is_empty() {
            write!(f, ": {}", self.message)?;
        }
        if let Some(wait) = self.retry_after {
            write!(f, " (server asks to retry after {} s)", wait.as_secs_f64())?;
        }
        if let Some(id) = &self.request_id {
            write!(f, " [request id {id}]")?;
        }
        Ok(())
    }
}

/// Longest excerpt of a non-JSON error body kept for the message.
const BODY_EXCERPT_CHARS: usize = 300;

impl ApiFailure {
    /// Parse an error body of any shape. Never fails: unknown bodies become
    /// a trimmed excerpt.
    pub fn from_body(status: StatusCode, body: &[u8], request_id: Option<String>) -> ApiFailure {
        let mut failure = ApiFailure {
            status: status.as_u16(),
            kind: None,
            code: None,
            message: String::new(),
            request_id,
            retry_after: None,
        };
        match serde_json::from_slice::<Value>(body) {
            Ok(json) => {
                let (kind, code, message) = error_fields(&json);
                failure.kind = kind;
                failure.code = code;
                failure.message = message.unwrap_or_else(|| excerpt(&json.to_string()));
                if failure.request_id.is_none() {
                    failure.request_id = json
                        .get("request_id")
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                }
            }
            Err(_) => {
                failure.message = excerpt(&String::from_utf8_lossy(body));
                if failure.message.is_empty() {
                    failure.message = status.canonical_reason().unwrap_or("").to_owned();
                }
            }
        }
        failure
    }

    fn mentions(&self, needles: &[&str]) -> bool {
        let hay = format!(
            "{} {} {}",
            self.kind.as_deref().unwrap_or(""),
            self.code.as_deref().unwrap_or(""),
            self.message
        )
        .to_ascii_lowercase();
        needles.iter().any(|n| hay.contains(n))
    }

    /// Billing problems arrive as 429 but waiting does not fix them.
    pub fn is_quota(&self) -> bool {
        self.mentions(&[
            "insufficient_quota",
            "enforced_spend_limit_reached",
            "billing_error",
        ])
    }

    pub fn is_context_too_long(&self) -> bool {
        self.mentions(&[
            "context_length_exceeded",
            "prompt is too long",
            "maximum context length",
            "context window",
            "too many tokens",
        ])
    }
}

/// `(type, code, message)` from `{"error":{…}}`, `{"error":"…"}` or
/// `{"message":"…"}`, the shapes providers and local servers use.
pub(crate) fn error_fields(json: &Value) -> (Option<String>, Option<String>, Option<String>) {
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_owned);
    match json.get("error") {
        Some(Value::String(s)) => (None, None, Some(s.clone())),
        Some(err @ Value::Object(_)) => {
            let code = text(err.get("code"))
                .or_else(|| {
                    err.get("code")
                        .and_then(Value::as_i64)
                        .map(|c| c.to_string())
                })
                .or_else(|| text(err.pointer("/details/error_code")));
            (text(err.get("type")), code, text(err.get("message")))
        }
        _ => (None, None, text(json.get("message"))),
    }
}

fn excerpt(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > BODY_EXCERPT_CHARS {
        let cut: String = flat.chars().take(BODY_EXCERPT_CHARS).collect();
        format!("{cut}…")
    } else {
        flat
    }
}

#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    #[error(
        "no API key for {provider}: set the {env_var} environment variable (or name another one with `api_key_env` under [llm] in ~/.config/ripple/config.toml)"
    )]
    MissingKey {
        provider: &'static str,
        env_var: String,
    },
    #[error("invalid LLM settings: {0}")]
    Config(String),
    #[error(
        "this repository's ripple.toml sets [llm] {settings}, which decides where your API key and code are sent; a repository may not choose that until you trust it. Read its [llm] table, then run `ripple trust` in the repository (or set these in ~/.config/ripple/config.toml, or pass --base-url)"
    )]
    UntrustedEndpoint { settings: String },
    #[error(
        "{base_url} answered with a redirect to {location}; ripple follows no redirects, because they would carry your API key and prompt to another address. Set the base URL to the final address if you trust it"
    )]
    Redirected { base_url: String, location: String },
    #[error("{provider} rejected the API key ({failure}); check the key in {env_var}")]
    Unauthorized {
        provider: &'static str,
        env_var: String,
        failure: Box<ApiFailure>,
    },
    #[error(
        "the API key may not use this model or endpoint ({failure}); check the key's permissions"
    )]
    Forbidden { failure: Box<ApiFailure> },
    #[error(
        "model `{model}` was not found at {base_url} ({failure}); check --model (or `model` under [llm]) and that --base-url is the API root"
    )]
    ModelNotFound {
        model: String,
        base_url: String,
        failure: Box<ApiFailure>,
    },
    #[error(
        "the prompt does not fit the model's context window ({failure}); lower the context budget or choose a model with a larger window"
    )]
    ContextTooLong { failure: Box<ApiFailure> },
    #[error("the provider rejected the request ({failure})")]
    BadRequest { failure: Box<ApiFailure> },
    #[error(
        "the account is out of credit or over its spend limit ({failure}); check billing — retrying will not help"
    )]
    Quota { failure: Box<ApiFailure> },
    #[error(
        "rate limited, gave up after {attempts} attempt(s) ({failure}); wait a minute and retry"
    )]
    RateLimited {
        attempts: u32,
        failure: Box<ApiFailure>,
    },
    #[error(
        "the provider is failing or overloaded, gave up after {attempts} attempt(s) ({failure}); retry later"
    )]
    Unavailable {
        attempts: u32,
        failure: Box<ApiFailure>,
    },
    #[error("the provider answered {failure}")]
    Http { failure: Box<ApiFailure> },
    #[error(
        "could not connect to {base_url} ({detail}); is the server running there? Check --base-url"
    )]
    Connect { base_url: String, detail: String },
    #[error(
        "the connection to {base_url} failed before any text arrived, gave up after {attempts} attempt(s) ({detail}); retry"
    )]
    Connection {
        base_url: String,
        attempts: u32,
        detail: String,
    },
    #[error(
        "no data from {base_url} for {} s (idle timeout); the server may be stuck or still loading the model — retry, or raise `idle_timeout_secs` under [llm]",
        waited.as_secs_f64()
    )]
    IdleTimeout { base_url: String, waited: Duration },
    #[error(
        "the stream was cut before its end marker and before any text arrived ({detail}), gave up after {attempts} attempt(s); retry"
    )]
    Truncated { attempts: u32, detail: String },
    #[error(
        "the provider reported an error mid-stream: {kind}: {message}; nothing from this reply will be applied — retry"
    )]
    Stream { kind: String, message: String },
    #[error("unexpected data from the provider: {detail}")]
    Protocol { detail: String },
    #[error("cancelled")]
    Cancelled,
}

impl LlmError {
    /// Replace every occurrence of `secret` in text that came from outside
    /// (servers sometimes echo the key they rejected).
    pub(crate) fn redact(mut self, secret: Option<&str>) -> LlmError {
        let Some(secret) = secret.filter(|s| !s.is_empty()) else {
            return self;
        };
        let scrub = |s: &mut String| {
            if s.contains(secret) {
                *s = s.replace(secret, "<redacted>");
            }
        };
        match &mut self {
            LlmError::Unauthorized { failure, .. }
            | LlmError::Forbidden { failure }
            | LlmError::ModelNotFound { failure, .. }
            | LlmError::ContextTooLong { failure }
            | LlmError::BadRequest { failure }
            | LlmError::Quota { failure }
            | LlmError::RateLimited { failure, .. }
            | LlmError::Unavailable { failure, .. }
            | LlmError::Http { failure } => {
                scrub(&mut failure.message);
                if let Some(code) = &mut failure.code {
                    scrub(code);
                }
            }
            LlmError::Connect { detail, .. }
            | LlmError::Connection { detail, .. }
            | LlmError::Truncated { detail, .. }
            | LlmError::Protocol { detail } => scrub(detail),
            LlmError::Stream { kind, message } => {
                scrub(kind);
                scrub(message);
            }
            LlmError::Config(detail) => scrub(detail),
            LlmError::Redirected { location, .. } => scrub(location),
            LlmError::UntrustedEndpoint { .. }
            | LlmError::MissingKey { .. }
            | LlmError::IdleTimeout { .. }
            | LlmError::Cancelled => {}
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_anthropic_openai_local_and_html_bodies() {
        let a = ApiFailure::from_body(
            StatusCode::TOO_MANY_REQUESTS,
            br#"{"type":"error","error":{"type":"rate_limit_error","message":"slow down","details":{"error_code":"enforced_spend_limit_reached"}},"request_id":"req_1"}"#,
            None,
        );
        assert_eq!(a.kind.as_deref(), Some("rate_limit_error"));
        assert_eq!(a.request_id.as_deref(), Some("req_1"));
        assert!(a.is_quota());

        let o = ApiFailure::from_body(
            StatusCode::BAD_REQUEST,
            br#"{"error":{"message":"too long","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#,
            Some("hdr".into()),
        );
        assert!(o.is_context_too_long());
        assert_eq!(o.request_id.as_deref(), Some("hdr"));

        let l = ApiFailure::from_body(
            StatusCode::NOT_FOUND,
            br#"{"error":"model 'x' not found"}"#,
            None,
        );
        assert_eq!(l.message, "model 'x' not found");

        let h = ApiFailure::from_body(
            StatusCode::BAD_GATEWAY,
            b"<html>\n<body>502   Bad Gateway</body></html>",
            None,
        );
        assert_eq!(
            h.to_string(),
            "HTTP 502: <html> <body>502 Bad Gateway</body></html>"
        );
        let e = ApiFailure::from_body(StatusCode::BAD_GATEWAY, b"", None);
        assert_eq!(e.message, "Bad Gateway");
    }

    #[test]
    fn redaction_covers_server_text() {
        let failure = ApiFailure::from_body(
            StatusCode::UNAUTHORIZED,
            br#"{"error":{"message":"Incorrect API key provided: sk-XYZ","code":"invalid_api_key"}}"#,
            None,
        );
        let err = LlmError::Unauthorized {
            provider: "OpenAI",
            env_var: "OPENAI_API_KEY".into(),
            failure: Box::new(failure),
        }
        .redact(Some("sk-XYZ"));
        let text = format!("{err} {err:?}");
        assert!(!text.contains("sk-XYZ"), "{text}");
        assert!(text.contains("OPENAI_API_KEY"));
    }
}

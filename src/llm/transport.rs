//! One streaming call over HTTP, and the retries around it. Runs async
//! reqwest on a small current-thread runtime owned by the call, because a
//! blocking read cannot be interrupted: with it, a cancel or an idle timeout
//! would wait for the server's next byte, and a reasoning model can be silent
//! for minutes. Here every wait — for headers, for the next chunk, between
//! retries — is sliced into short ticks that check the cancel flag and the
//! idle deadline, and giving up drops the response, which closes the
//! connection. There is a connect timeout and a per-chunk idle timeout but no
//! total timeout, since a long generation is normal.

use std::future::Future;
use std::hash::{BuildHasher, RandomState};
use std::time::{Duration, Instant, SystemTime};

use reqwest::header::{HeaderMap, HeaderValue};
use reqwest::{Client, Url};

use super::config::is_loopback;
use super::sse::{SseEvent, SseParser};
use super::{
    ApiFailure, CancelToken, ChatRequest, Completion, Decoded, LlmConfig, LlmError, ProviderKind,
    StreamDecoder, StreamEvent, Usage, anthropic, openai, stop_truncates,
};
use crate::redact::{self, Redactions};

/// How often a wait checks the cancel flag: the cancel latency.
const TICK: Duration = Duration::from_millis(25);
/// Error bodies are for messages; a proxy's HTML page need not be read whole.
const MAX_ERROR_BODY: usize = 64 * 1024;
/// A server asking for a longer pause than this is better reported than
/// waited for with the user watching.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);
const MAX_BACKOFF: Duration = Duration::from_secs(20);

/// A header value that hyper and reqwest leave out of their `Debug` output.
pub(crate) fn secret_header(value: &str) -> Result<HeaderValue, LlmError> {
    let mut header = HeaderValue::from_str(value).map_err(|_| {
        LlmError::Config(
            "the API key contains characters not allowed in an HTTP header (a stray newline or quote?)"
                .to_owned(),
        )
    })?;
    header.set_sensitive(true);
    Ok(header)
}

pub(crate) fn stream_chat(
    config: &LlmConfig,
    req: &ChatRequest,
    cancel: &CancelToken,
    on_event: &mut dyn FnMut(StreamEvent),
) -> Result<Completion, LlmError> {
    config.endpoint_url()?;
    let key = config.key_for_request()?;
    let mut redactions = Redactions::default();
    let own_key: Vec<&str> = key.into_iter().collect();
    let req = ChatRequest {
        system: redact::redact(&req.system, &own_key, &mut redactions),
        user: redact::redact(&req.user, &own_key, &mut redactions),
    };
    // Error text can quote what the server said, and servers echo rejected
    // keys; everything leaving this module is scrubbed once, here.
    let mut scrubbing = |event: StreamEvent| match event {
        StreamEvent::Retrying {
            attempt,
            wait,
            reason,
        } => on_event(StreamEvent::Retrying {
            attempt,
            wait,
            reason: match key {
                Some(k) if !k.is_empty() => reason.replace(k, "<redacted>"),
                _ => reason,
            },
        }),
        other => on_event(other),
    };
    let mut completion =
        run(config, key, &req, cancel, &mut scrubbing).map_err(|e| e.redact(key))?;
    completion.redactions = redactions;
    Ok(completion)
}

/// The parts of a request that do not change between attempts.
struct Call<'a> {
    config: &'a LlmConfig,
    url: Url,
    headers: HeaderMap,
    body: Vec<u8>,
    cancel: &'a CancelToken,
}

fn run(
    config: &LlmConfig,
    key: Option<&str>,
    req: &ChatRequest,
    cancel: &CancelToken,
    on_event: &mut dyn FnMut(StreamEvent),
) -> Result<Completion, LlmError> {
    let (url, headers, body) = match config.provider {
        ProviderKind::Anthropic => (
            anthropic::endpoint(&config.base_url),
            anthropic::headers(key)?,
            anthropic::body(config, req)?,
        ),
        ProviderKind::OpenAi | ProviderKind::Ollama => (
            openai::endpoint(&config.base_url),
            openai::headers(key)?,
            openai::body(config, req)?,
        ),
    };
    let url = Url::parse(&url).map_err(|e| {
        LlmError::Config(format!(
            "base URL `{}` is not a valid URL ({e}); pass the API root, e.g. https://api.anthropic.com",
            config.base_url
        ))
    })?;
    if url.origin() != config.endpoint_url()?.origin() {
        return Err(LlmError::Config(format!(
            "base URL `{}` does not keep its host when the endpoint path is appended; pass the API root",
            config.base_url
        )));
    }
    let call = Call {
        config,
        url,
        headers,
        body,
        cancel,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| LlmError::Config(format!("cannot start the network runtime: {e}")))?;
    runtime.block_on(call.with_retries(on_event))
}

/// How an attempt failed.
enum Failure {
    Fatal(LlmError),
    /// Worth another attempt; becomes an error if none is left.
    Retry(Retryable),
}

enum Retryable {
    Status(Box<ApiFailure>),
    /// The connection dropped before the response headers.
    Connection(String),
    /// The stream ended before its marker and before any text.
    CutBeforeText(String),
}

impl Retryable {
    fn reason(&self) -> String {
        match self {
            Retryable::Status(failure) => failure.to_string(),
            Retryable::Connection(detail) | Retryable::CutBeforeText(detail) => detail.clone(),
        }
    }

    fn into_error(self, attempts: u32, base_url: &str) -> LlmError {
        match self {
            Retryable::Status(failure) if failure.status == 429 => {
                LlmError::RateLimited { attempts, failure }
            }
            Retryable::Status(failure) => LlmError::Unavailable { attempts, failure },
            Retryable::Connection(detail) => LlmError::Connection {
                base_url: base_url.to_owned(),
                attempts,
                detail,
            },
            Retryable::CutBeforeText(detail) => LlmError::Truncated { attempts, detail },
        }
    }
}

enum Interrupt {
    Cancelled,
    Idle,
}

/// Await `fut`, giving up when `cancel` fires or `idle` passes without it
/// completing. Dropping a half-polled `chunk()` future loses nothing, so the
/// slicing is safe.
async fn guarded<F: Future>(
    fut: F,
    cancel: &CancelToken,
    idle: Duration,
) -> Result<F::Output, Interrupt> {
    let mut fut = std::pin::pin!(fut);
    let deadline = far_deadline(idle);
    loop {
        if cancel.is_cancelled() {
            return Err(Interrupt::Cancelled);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(Interrupt::Idle);
        }
        if let Ok(out) = tokio::time::timeout(TICK.min(left), fut.as_mut()).await {
            return Ok(out);
        }
    }
}

/// `now + d`, saturating: a configured timeout of centuries must not panic.
fn far_deadline(d: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(d)
        .unwrap_or_else(|| now + Duration::from_secs(100 * 365 * 24 * 3600))
}

async fn sleep_unless_cancelled(wait: Duration, cancel: &CancelToken) -> Result<(), LlmError> {
    let deadline = far_deadline(wait);
    loop {
        if cancel.is_cancelled() {
            return Err(LlmError::Cancelled);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok(());
        }
        tokio::time::sleep(TICK.min(left)).await;
    }
}

/// Exponential backoff with ±25 % jitter, so clients that failed together do
/// not retry together. `RandomState` is std's randomly keyed hasher: enough
/// randomness for jitter without a dependency.
fn backoff(base: Duration, attempt: u32) -> Duration {
    let exp = base
        .saturating_mul(1u32 << attempt.saturating_sub(1).min(16))
        .min(MAX_BACKOFF);
    let unit = (RandomState::new().hash_one(SystemTime::now()) >> 11) as f64 / (1u64 << 53) as f64;
    exp.mul_f64(0.75 + 0.5 * unit)
}

/// `retry-after-ms` (OpenAI) or `retry-after` in seconds. The HTTP-date form
/// is not used by these APIs and falls back to backoff.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let number = |name: &str| {
        headers
            .get(name)?
            .to_str()
            .ok()?
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
    };
    if let Some(ms) = number("retry-after-ms") {
        return Duration::try_from_secs_f64(ms / 1000.0).ok();
    }
    number("retry-after").and_then(|s| Duration::try_from_secs_f64(s).ok())
}

fn header_text(headers: &HeaderMap, name: &str) -> Option<String> {
    headers.get(name)?.to_str().ok().map(str::to_owned)
}

/// An error with its causes, which is where "connection refused" lives.
fn describe(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let line = cause.to_string();
        if !text.contains(&line) {
            text.push_str(": ");
            text.push_str(&line);
        }
        source = cause.source();
    }
    text
}

/// The reply as it accumulates.
#[derive(Default)]
struct Progress {
    text: String,
    usage: Usage,
    stop_reason: Option<String>,
    done: bool,
}

impl Progress {
    fn apply(&mut self, item: Decoded, on_event: &mut dyn FnMut(StreamEvent)) {
        match item {
            Decoded::Text(text) => {
                self.text.push_str(&text);
                on_event(StreamEvent::Text(text));
            }
            Decoded::Usage { input, output } => {
                self.usage.input_tokens = input.unwrap_or(self.usage.input_tokens);
                self.usage.output_tokens = output.unwrap_or(self.usage.output_tokens);
                on_event(StreamEvent::Usage(self.usage));
            }
            Decoded::StopReason(reason) => self.stop_reason = Some(reason),
            Decoded::Done => self.done = true,
        }
    }
}

impl Call<'_> {
    async fn with_retries(
        &self,
        on_event: &mut dyn FnMut(StreamEvent),
    ) -> Result<Completion, LlmError> {
        // A redirect would re-send the key and the prompt to an address the
        // user never chose; reqwest strips only some headers across hosts.
        let mut builder = Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(self.config.connect_timeout)
            .user_agent(concat!("ripple/", env!("CARGO_PKG_VERSION")));
        // A proxy from HTTP_PROXY cannot reach the user's own machine; local
        // servers (Ollama, llama.cpp) are always contacted directly.
        if is_loopback(&self.url) {
            builder = builder.no_proxy();
        }
        let client = builder.build().map_err(|e| {
            LlmError::Config(format!("cannot set up the HTTP client: {}", describe(&e)))
        })?;
        let mut attempt = 1;
        loop {
            let retryable = match self.attempt(&client, on_event).await {
                Ok(completion) => return Ok(completion),
                Err(Failure::Fatal(err)) => return Err(err),
                Err(Failure::Retry(retryable)) => retryable,
            };
            let wait = match &retryable {
                Retryable::Status(failure) => failure.retry_after,
                _ => None,
            }
            .unwrap_or_else(|| backoff(self.config.backoff_base, attempt));
            if attempt > self.config.max_retries || wait > MAX_RETRY_AFTER {
                return Err(retryable.into_error(attempt, &self.config.base_url));
            }
            on_event(StreamEvent::Retrying {
                attempt,
                wait,
                reason: retryable.reason(),
            });
            sleep_unless_cancelled(wait, self.cancel).await?;
            attempt += 1;
        }
    }

    fn idle_timeout(&self) -> LlmError {
        LlmError::IdleTimeout {
            base_url: self.config.base_url.clone(),
            waited: self.config.idle_timeout,
        }
    }

    async fn attempt(
        &self,
        client: &Client,
        on_event: &mut dyn FnMut(StreamEvent),
    ) -> Result<Completion, Failure> {
        let idle = self.config.idle_timeout;
        let request = client
            .post(self.url.clone())
            .headers(self.headers.clone())
            .body(self.body.clone());
        let mut response = match guarded(request.send(), self.cancel, idle).await {
            Err(Interrupt::Cancelled) => return Err(Failure::Fatal(LlmError::Cancelled)),
            Err(Interrupt::Idle) => return Err(Failure::Fatal(self.idle_timeout())),
            Ok(Err(e)) if e.is_connect() => {
                let mut detail = describe(&e);
                if e.is_timeout() {
                    detail = format!(
                        "no connection within {} s: {detail}",
                        self.config.connect_timeout.as_secs_f64()
                    );
                }
                return Err(Failure::Fatal(LlmError::Connect {
                    base_url: self.config.base_url.clone(),
                    detail,
                }));
            }
            Ok(Err(e)) => return Err(Failure::Retry(Retryable::Connection(describe(&e)))),
            Ok(Ok(response)) => response,
        };
        let headers = response.headers();
        let request_id =
            header_text(headers, "request-id").or_else(|| header_text(headers, "x-request-id"));
        let status = response.status();
        if status.is_redirection() {
            let location = header_text(response.headers(), "location")
                .map(|l| l.chars().filter(|c| !c.is_control()).take(300).collect())
                .unwrap_or_else(|| "an address it did not give".to_owned());
            return Err(Failure::Fatal(LlmError::Redirected {
                base_url: self.config.base_url.clone(),
                location,
            }));
        }
        if !status.is_success() {
            let retry_after = retry_after(response.headers());
            let body = self.read_capped(&mut response).await?;
            let mut failure = ApiFailure::from_body(status, &body, request_id);
            failure.retry_after = retry_after;
            return Err(self.classify(failure));
        }
        let json_body = header_text(response.headers(), "content-type")
            .is_some_and(|t| t.trim_start().starts_with("application/json"));
        if json_body {
            return Err(Failure::Fatal(self.not_a_stream(&mut response).await));
        }
        self.read_stream(response, request_id, on_event).await
    }

    /// A 2xx JSON document where a stream was asked for: an error some
    /// servers send that way, or a server ignoring `"stream": true`.
    async fn not_a_stream(&self, response: &mut reqwest::Response) -> LlmError {
        let body = match self.read_capped(response).await {
            Ok(body) => body,
            Err(Failure::Fatal(err)) => return err,
            Err(Failure::Retry(r)) => return r.into_error(1, &self.config.base_url),
        };
        let json: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
        if json.get("error").is_some() {
            let (kind, code, message) = super::error::error_fields(&json);
            return LlmError::Stream {
                kind: kind.or(code).unwrap_or_else(|| "error".to_owned()),
                message: message.unwrap_or_default(),
            };
        }
        LlmError::Protocol {
            detail: "the server answered with one JSON document instead of an event stream; does it support \"stream\": true?".to_owned(),
        }
    }

    async fn read_stream(
        &self,
        mut response: reqwest::Response,
        request_id: Option<String>,
        on_event: &mut dyn FnMut(StreamEvent),
    ) -> Result<Completion, Failure> {
        let idle = self.config.idle_timeout;
        let mut parser = SseParser::new();
        let mut decoder: Box<dyn StreamDecoder> = match self.config.provider {
            ProviderKind::Anthropic => Box::new(anthropic::Decoder),
            ProviderKind::OpenAi | ProviderKind::Ollama => Box::new(openai::Decoder),
        };
        let mut events: Vec<SseEvent> = Vec::new();
        let mut decoded: Vec<Decoded> = Vec::new();
        let mut progress = Progress::default();
        // Why the stream stopped without its marker, if it did.
        let cut: Option<String> = loop {
            let chunk = match guarded(response.chunk(), self.cancel, idle).await {
                Err(Interrupt::Cancelled) => return Err(Failure::Fatal(LlmError::Cancelled)),
                Err(Interrupt::Idle) if progress.text.is_empty() => {
                    return Err(Failure::Fatal(self.idle_timeout()));
                }
                Err(Interrupt::Idle) => {
                    break Some(format!("no data for {} s", idle.as_secs_f64()));
                }
                Ok(Err(e)) => break Some(format!("the connection failed: {}", describe(&e))),
                Ok(Ok(None)) => break Some("the connection closed".to_owned()),
                Ok(Ok(Some(chunk))) => chunk,
            };
            parser.feed(&chunk, &mut events).map_err(|e| {
                Failure::Fatal(LlmError::Protocol {
                    detail: e.to_string(),
                })
            })?;
            for event in events.drain(..) {
                decoder
                    .decode(&event, &mut decoded)
                    .map_err(Failure::Fatal)?;
                for item in decoded.drain(..) {
                    progress.apply(item, on_event);
                }
                if progress.done {
                    break;
                }
            }
            if progress.done {
                // Stop reading even if the server keeps the connection open.
                break None;
            }
        };
        drop(response);
        if let Some(reason) = &cut
            && progress.text.is_empty()
        {
            return Err(Failure::Retry(Retryable::CutBeforeText(reason.clone())));
        }
        let stop_reason = progress.stop_reason.clone().unwrap_or_default();
        let truncation_note = match (&cut, &progress.stop_reason) {
            (Some(reason), _) => Some(format!(
                "the stream ended before its end marker ({reason}); the reply is incomplete and none of its edits will be applied"
            )),
            (None, None) => Some(
                "the end marker arrived without a stop reason; the reply may be incomplete"
                    .to_owned(),
            ),
            (None, Some(reason)) => stop_truncates(reason).map(str::to_owned),
        };
        Ok(Completion {
            text: progress.text,
            usage: progress.usage,
            stop_reason,
            truncated: truncation_note.is_some(),
            truncation_note,
            cut,
            request_id,
            cost_usd: self.config.price.map(|p| p.cost_usd(progress.usage)),
            redactions: Redactions::default(),
        })
    }

    /// The start of an error body; a failure to read the rest is not worth
    /// more than the status already says.
    async fn read_capped(&self, response: &mut reqwest::Response) -> Result<Vec<u8>, Failure> {
        let mut body = Vec::new();
        while body.len() < MAX_ERROR_BODY {
            match guarded(response.chunk(), self.cancel, self.config.idle_timeout).await {
                Err(Interrupt::Cancelled) => return Err(Failure::Fatal(LlmError::Cancelled)),
                Ok(Ok(Some(chunk))) => body.extend_from_slice(&chunk),
                Err(Interrupt::Idle) | Ok(Ok(None)) | Ok(Err(_)) => break,
            }
        }
        body.truncate(MAX_ERROR_BODY);
        Ok(body)
    }

    /// Which statuses are worth waiting for. 429 is, unless it is about
    /// billing; 408/409/5xx/529 are transient by the providers' own docs.
    fn classify(&self, failure: ApiFailure) -> Failure {
        let config = self.config;
        let fatal = Failure::Fatal;
        let failure = Box::new(failure);
        match failure.status {
            401 => fatal(LlmError::Unauthorized {
                provider: config.provider.label(),
                env_var: config.api_key_env.clone(),
                failure,
            }),
            403 => fatal(LlmError::Forbidden { failure }),
            402 => fatal(LlmError::Quota { failure }),
            404 => fatal(LlmError::ModelNotFound {
                model: config.model.clone(),
                base_url: config.base_url.clone(),
                failure,
            }),
            429 if failure.is_quota() => fatal(LlmError::Quota { failure }),
            408 | 409 | 429 | 500 | 502 | 503 | 504 | 529 => {
                Failure::Retry(Retryable::Status(failure))
            }
            400 | 413 | 422 if failure.is_context_too_long() => {
                fatal(LlmError::ContextTooLong { failure })
            }
            400 | 413 | 422 => fatal(LlmError::BadRequest { failure }),
            _ => fatal(LlmError::Http { failure }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_with_bounded_jitter() {
        let base = Duration::from_millis(100);
        for attempt in 1..=4 {
            let nominal = base * (1 << (attempt - 1));
            let got = backoff(base, attempt);
            assert!(
                got >= nominal.mul_f64(0.75) && got <= nominal.mul_f64(1.25),
                "{got:?}"
            );
        }
        assert!(backoff(Duration::from_secs(10), 30) <= MAX_BACKOFF.mul_f64(1.25));
    }

    #[test]
    fn retry_after_forms() {
        let mut headers = HeaderMap::new();
        headers.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(2)));
        headers.insert("retry-after-ms", HeaderValue::from_static("150.5"));
        assert_eq!(retry_after(&headers), Some(Duration::from_micros(150_500)));
        let mut dated = HeaderMap::new();
        dated.insert(
            "retry-after",
            HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
        );
        assert_eq!(retry_after(&dated), None);
        dated.insert("retry-after", HeaderValue::from_static("-3"));
        assert_eq!(retry_after(&dated), None);
    }
}

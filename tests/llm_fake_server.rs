//! The provider layer against a fake provider on 127.0.0.1: the literal
//! streams of llm-wire-formats.md in both wire formats, cut and dripped every
//! way TCP can, and every failure path — what ripple sends, what it returns,
//! when it retries and when it must not. No test leaves 127.0.0.1 or waits
//! much more than a second.

mod common;

use std::time::{Duration, Instant};

use common::fake_llm::{
    ANTHROPIC_ERROR_EVENT, ANTHROPIC_STREAM, End, FakeLlm, OPENAI_STREAM, Reply,
};
use ripple::llm::{
    CancelToken, ChatRequest, Completion, LlmConfig, LlmError, ProviderKind, StreamEvent, Usage,
    stream_chat,
};

const SECRET: &str = "sk-test-SECRET-7f3a9c";

fn request() -> ChatRequest {
    ChatRequest {
        system: "You assess impact.".into(),
        user: "Change `parse_config(path)` to take `&Path`.".into(),
    }
}

fn config(provider: ProviderKind, server: &FakeLlm) -> LlmConfig {
    let mut config = LlmConfig::defaults(provider);
    config.base_url = match provider {
        ProviderKind::Anthropic => server.base_url(),
        ProviderKind::OpenAi | ProviderKind::Ollama => format!("{}/v1", server.base_url()),
    };
    if provider != ProviderKind::Ollama {
        config.api_key = Some(SECRET.into());
    }
    config.backoff_base = Duration::from_millis(10);
    config.idle_timeout = Duration::from_secs(2);
    config.connect_timeout = Duration::from_secs(2);
    config
}

struct Run {
    result: Result<Completion, LlmError>,
    events: Vec<(Instant, StreamEvent)>,
    elapsed: Duration,
}

impl Run {
    fn texts(&self) -> Vec<&str> {
        self.events
            .iter()
            .filter_map(|(_, e)| match e {
                StreamEvent::Text(t) => Some(t.as_str()),
                _ => None,
            })
            .collect()
    }

    fn retries(&self) -> Vec<(u32, Duration, &str)> {
        self.events
            .iter()
            .filter_map(|(_, e)| match e {
                StreamEvent::Retrying {
                    attempt,
                    wait,
                    reason,
                } => Some((*attempt, *wait, reason.as_str())),
                _ => None,
            })
            .collect()
    }

    fn ok(&self) -> &Completion {
        match &self.result {
            Ok(c) => c,
            Err(e) => panic!("expected a completion, got: {e}"),
        }
    }

    fn err(&self) -> &LlmError {
        match &self.result {
            Ok(c) => panic!("expected an error, got {c:?}"),
            Err(e) => e,
        }
    }
}

fn run_with(config: &LlmConfig, cancel: &CancelToken, on_text: impl Fn(&CancelToken)) -> Run {
    let mut events = Vec::new();
    let start = Instant::now();
    let result = stream_chat(config, &request(), cancel, &mut |event| {
        if matches!(event, StreamEvent::Text(_)) {
            on_text(cancel);
        }
        events.push((Instant::now(), event));
    });
    Run {
        result,
        events,
        elapsed: start.elapsed(),
    }
}

fn call(config: &LlmConfig) -> Run {
    run_with(config, &CancelToken::new(), |_| {})
}

/// The key must not leak through any text a user or a log could see.
fn assert_no_secret(run: &Run) {
    let mut shown = match &run.result {
        Ok(c) => format!("{c:?}"),
        Err(e) => format!("{e} {e:?}"),
    };
    for (_, event) in &run.events {
        shown.push_str(&format!("{event:?}"));
    }
    assert!(!shown.contains(SECRET), "key leaked: {shown}");
}

fn approx(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

// ---- happy paths -----------------------------------------------------------

#[test]
fn anthropic_literal_stream_and_exact_request() {
    let server = FakeLlm::start(vec![
        Reply::sse(ANTHROPIC_STREAM).header("request-id", "req_fake_1"),
    ]);
    let run = call(&config(ProviderKind::Anthropic, &server));
    let c = run.ok();
    assert_eq!(c.text, "## Impact\n3 callers pass a `String`.");
    assert_eq!(
        run.texts(),
        vec!["## Impact\n3 callers", " pass a `String`."]
    );
    assert_eq!(
        c.usage,
        Usage {
            input_tokens: 1840,
            output_tokens: 12
        }
    );
    assert_eq!(c.stop_reason, "end_turn");
    assert!(!c.truncated && c.truncation_note.is_none());
    assert_eq!(c.request_id.as_deref(), Some("req_fake_1"));
    assert!(approx(
        c.cost_usd.unwrap(),
        1840.0 * 3.0 / 1e6 + 12.0 * 15.0 / 1e6
    ));
    let last_usage = run.events.iter().rev().find_map(|(_, e)| match e {
        StreamEvent::Usage(u) => Some(*u),
        _ => None,
    });
    assert_eq!(last_usage, Some(c.usage));

    let sent = server.requests();
    assert_eq!(sent.len(), 1);
    let r = &sent[0];
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("POST", "/v1/messages")
    );
    assert_eq!(r.header("x-api-key"), Some(SECRET));
    assert_eq!(r.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.header("authorization"), None);
    assert_eq!(
        r.body,
        r#"{"model":"claude-sonnet-4-5-20250929","max_tokens":8192,"stream":true,"system":"You assess impact.","messages":[{"role":"user","content":"Change `parse_config(path)` to take `&Path`."}]}"#
    );
}

#[test]
fn openai_literal_stream_and_exact_request() {
    let server = FakeLlm::start(vec![
        Reply::sse(OPENAI_STREAM).header("x-request-id", "req_oai_1"),
    ]);
    let run = call(&config(ProviderKind::OpenAi, &server));
    let c = run.ok();
    assert_eq!(c.text, "## Impact\n3 callers");
    assert_eq!(
        c.usage,
        Usage {
            input_tokens: 1790,
            output_tokens: 12
        }
    );
    assert_eq!(c.stop_reason, "stop");
    assert!(!c.truncated);
    assert_eq!(c.request_id.as_deref(), Some("req_oai_1"));
    assert!(approx(
        c.cost_usd.unwrap(),
        1790.0 * 0.75 / 1e6 + 12.0 * 4.5 / 1e6
    ));

    let sent = server.requests();
    let r = &sent[0];
    assert_eq!(r.path, "/v1/chat/completions");
    assert_eq!(
        r.header("authorization"),
        Some(format!("Bearer {SECRET}").as_str())
    );
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.header("x-api-key"), None);
    assert_eq!(
        r.body,
        r#"{"model":"gpt-5.4-mini","stream":true,"stream_options":{"include_usage":true},"max_completion_tokens":8192,"messages":[{"role":"system","content":"You assess impact."},{"role":"user","content":"Change `parse_config(path)` to take `&Path`."}]}"#
    );
}

#[test]
fn ollama_uses_max_tokens_no_auth_and_costs_nothing() {
    let stream = OPENAI_STREAM.replace("gpt-5.4-mini", "qwen2.5-coder:14b");
    let server = FakeLlm::start(vec![Reply::sse(&stream)]);
    let run = call(&config(ProviderKind::Ollama, &server));
    assert_eq!(run.ok().text, "## Impact\n3 callers");
    assert_eq!(run.ok().cost_usd, Some(0.0));
    let r = &server.requests()[0];
    assert_eq!(r.header("authorization"), None);
    assert!(r.body.contains(r#""max_tokens":8192"#), "{}", r.body);
    assert!(!r.body.contains("max_completion_tokens"));
}

// ---- framing ---------------------------------------------------------------

/// A stream with multi-byte text, CRLF line endings and keep-alive comments.
fn unicode_stream() -> String {
    let text = |t: &str| {
        format!(
            "event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"text_delta\",\"text\":\"{t}\"}}}}\n\n"
        )
    };
    let mut s = String::new();
    for (i, event) in ANTHROPIC_STREAM.split_inclusive("\n\n").enumerate() {
        if i == 3 {
            s.push_str(": keep-alive\n\n");
            s.push_str(&text("héllo ✓ "));
            s.push_str(&text("🚀 done"));
        }
        if !event.contains("text_delta") {
            s.push_str(event);
        }
    }
    s.replace('\n', "\r\n")
}

#[test]
fn chunks_split_mid_line_and_mid_character() {
    let stream = unicode_stream();
    let rocket = stream.find('🚀').unwrap();
    let check = |reply: Reply| {
        let server = FakeLlm::start(vec![reply]);
        let run = call(&config(ProviderKind::Anthropic, &server));
        assert_eq!(run.ok().text, "héllo ✓ 🚀 done");
        assert!(!run.ok().truncated);
    };
    // Inside the 4-byte rocket, between CR and LF, and inside "é".
    let cr = stream.find("\r\n").unwrap() + 1;
    let e_acute = stream.find('é').unwrap() + 1;
    check(Reply::sse(&stream).cut_at(&[cr, e_acute, rocket + 1, rocket + 3]));
    check(Reply::sse(&stream).in_pieces(3));
    check(Reply::sse(&stream).in_pieces(7).close_delimited());
}

#[test]
fn openai_stream_in_tiny_pieces() {
    let server = FakeLlm::start(vec![Reply::sse(OPENAI_STREAM).in_pieces(5)]);
    let run = call(&config(ProviderKind::OpenAi, &server));
    assert_eq!(run.ok().text, "## Impact\n3 callers");
    assert_eq!(run.ok().usage.input_tokens, 1790);
}

#[test]
fn dripped_events_and_pings_arrive_as_they_come() {
    let with_pings = ANTHROPIC_STREAM.replace(
        "event: content_block_stop",
        ": ping\n\nevent: ping\ndata: {\"type\":\"ping\"}\n\nevent: content_block_stop",
    );
    let server = FakeLlm::start(vec![
        Reply::sse(&with_pings).drip(Duration::from_millis(40)),
    ]);
    let mut config = config(ProviderKind::Anthropic, &server);
    config.idle_timeout = Duration::from_millis(500);
    let run = call(&config);
    assert_eq!(run.ok().text, "## Impact\n3 callers pass a `String`.");
    let times: Vec<Instant> = run
        .events
        .iter()
        .filter(|(_, e)| matches!(e, StreamEvent::Text(_)))
        .map(|(t, _)| *t)
        .collect();
    assert!(
        times[1] - times[0] >= Duration::from_millis(30),
        "text should be delivered as it arrives, not at the end"
    );
}

// ---- retries -----------------------------------------------------------------

const OVERLOADED: &str = r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_ol"}"#;

#[test]
fn rate_limit_waits_for_retry_after_then_succeeds() {
    let server = FakeLlm::start(vec![
        Reply::json(
            429,
            r#"{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}"#,
        )
        .header("retry-after", "1"),
        Reply::sse(ANTHROPIC_STREAM),
    ]);
    let run = call(&config(ProviderKind::Anthropic, &server));
    assert_eq!(run.ok().text, "## Impact\n3 callers pass a `String`.");
    let retries = run.retries();
    assert_eq!(retries.len(), 1);
    assert_eq!((retries[0].0, retries[0].1), (1, Duration::from_secs(1)));
    assert!(
        retries[0].2.contains("rate_limit_error"),
        "{}",
        retries[0].2
    );
    assert!(run.elapsed >= Duration::from_secs(1) && run.elapsed < Duration::from_secs(2));
    let sent = server.requests();
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[0].body, sent[1].body);
}

#[test]
fn server_errors_and_overload_back_off_then_succeed() {
    let server = FakeLlm::start(vec![
        Reply::json(
            500,
            r#"{"type":"error","error":{"type":"api_error","message":"Internal"}}"#,
        ),
        Reply::json(529, OVERLOADED),
        Reply::sse(ANTHROPIC_STREAM),
    ]);
    let run = call(&config(ProviderKind::Anthropic, &server));
    assert!(!run.ok().truncated);
    assert_eq!(
        run.retries().iter().map(|r| r.0).collect::<Vec<_>>(),
        vec![1, 2]
    );
    assert_eq!(server.requests().len(), 3);
    assert!(run.elapsed < Duration::from_millis(800));

    let server = FakeLlm::start(vec![
        Reply::json(
            503,
            r#"{"error":{"message":"Slow down","type":"server_error","param":null,"code":null}}"#,
        )
        .header("retry-after-ms", "30"),
        Reply::sse(OPENAI_STREAM),
    ]);
    let run = call(&config(ProviderKind::OpenAi, &server));
    assert_eq!(run.ok().text, "## Impact\n3 callers");
    assert_eq!(run.retries()[0].1, Duration::from_millis(30));
}

#[test]
fn retry_after_beyond_a_minute_is_reported_not_waited() {
    let server = FakeLlm::start(vec![
        Reply::json(429, r#"{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}"#)
            .header("retry-after", "120"),
    ]);
    let run = call(&config(ProviderKind::OpenAi, &server));
    let err = run.err();
    assert!(
        matches!(err, LlmError::RateLimited { attempts: 1, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("retry after 120 s"), "{err}");
    assert!(run.retries().is_empty() && run.elapsed < Duration::from_millis(500));
}

#[test]
fn gives_up_after_max_retries() {
    let server = FakeLlm::start(vec![
        Reply::json(529, OVERLOADED),
        Reply::json(529, OVERLOADED),
        Reply::json(529, OVERLOADED),
    ]);
    let run = call(&config(ProviderKind::Anthropic, &server));
    let err = run.err();
    assert!(
        matches!(err, LlmError::Unavailable { attempts: 3, .. }),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(
        text.contains("overloaded_error") && text.contains("req_ol"),
        "{text}"
    );
    assert_eq!(server.requests().len(), 3);
}

#[test]
fn connection_dropped_before_any_text_is_retried() {
    let no_text = ANTHROPIC_STREAM
        .split_inclusive("\n\n")
        .take(2)
        .collect::<String>();
    let server = FakeLlm::start(vec![
        Reply::HangUp,
        Reply::sse(&no_text).ending(End::Abort),
        Reply::sse(ANTHROPIC_STREAM),
    ]);
    let run = call(&config(ProviderKind::Anthropic, &server));
    assert_eq!(run.ok().text, "## Impact\n3 callers pass a `String`.");
    assert_eq!(run.retries().len(), 2);
    assert_eq!(server.requests().len(), 3);
}

// ---- failures that must not be retried -------------------------------------

#[test]
fn bad_key_is_not_retried_and_not_echoed() {
    let body = format!(
        r#"{{"type":"error","error":{{"type":"authentication_error","message":"invalid x-api-key {SECRET}"}},"request_id":"req_401"}}"#
    );
    let server = FakeLlm::start(vec![Reply::json(401, &body)]);
    let run = call(&config(ProviderKind::Anthropic, &server));
    let err = run.err();
    assert!(matches!(err, LlmError::Unauthorized { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains("ANTHROPIC_API_KEY") && text.contains("authentication_error"),
        "{text}"
    );
    assert_no_secret(&run);
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn unknown_model_is_not_retried() {
    let server = FakeLlm::start(vec![Reply::json(
        404,
        r#"{"error":{"message":"The model `gpt-nope` does not exist","type":"invalid_request_error","param":null,"code":"model_not_found"}}"#,
    )]);
    let mut config = config(ProviderKind::OpenAi, &server);
    config.model = "gpt-nope".into();
    let run = call(&config);
    let err = run.err();
    assert!(matches!(err, LlmError::ModelNotFound { .. }), "{err:?}");
    assert!(err.to_string().contains("model `gpt-nope`"), "{err}");
    assert_eq!(server.requests().len(), 1);
    assert_no_secret(&run);
}

#[test]
fn billing_429_context_400_and_local_404_are_final() {
    let server = FakeLlm::start(vec![Reply::json(
        429,
        r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}"#,
    )
    .header("retry-after", "1")]);
    let run = call(&config(ProviderKind::OpenAi, &server));
    assert!(
        matches!(run.err(), LlmError::Quota { .. }),
        "{:?}",
        run.err()
    );
    assert_eq!(server.requests().len(), 1);

    let server = FakeLlm::start(vec![Reply::json(
        400,
        r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#,
    )]);
    let run = call(&config(ProviderKind::Anthropic, &server));
    assert!(
        matches!(run.err(), LlmError::ContextTooLong { .. }),
        "{:?}",
        run.err()
    );

    let server = FakeLlm::start(vec![Reply::json(
        404,
        r#"{"error":"model 'qwen9' not found"}"#,
    )]);
    let run = call(&config(ProviderKind::Ollama, &server));
    assert!(
        run.err().to_string().contains("model 'qwen9' not found"),
        "{}",
        run.err()
    );
}

#[test]
fn missing_key_for_the_official_endpoint_fails_before_any_request() {
    let config = LlmConfig::defaults(ProviderKind::OpenAi);
    let run = call(&config);
    assert!(matches!(run.err(), LlmError::MissingKey { .. }));
    assert!(run.err().to_string().contains("OPENAI_API_KEY"));
}

#[test]
fn connection_refused_names_the_base_url() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut config = LlmConfig::defaults(ProviderKind::Ollama);
    config.base_url = format!("http://127.0.0.1:{port}/v1");
    let run = call(&config);
    let err = run.err();
    assert!(matches!(err, LlmError::Connect { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains(&config.base_url) && text.contains("server running"),
        "{text}"
    );
    assert!(run.retries().is_empty());
}

// ---- truncation and mid-stream errors ----------------------------------------

#[test]
fn stream_without_terminal_marker_is_truncated() {
    let cut = ANTHROPIC_STREAM.replace(
        "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
        "",
    );
    let server = FakeLlm::start(vec![Reply::sse(&cut).ending(End::Abort)]);
    let run = call(&config(ProviderKind::Anthropic, &server));
    let c = run.ok();
    assert!(c.truncated);
    assert_eq!(c.text, "## Impact\n3 callers pass a `String`.");
    assert!(
        c.truncation_note.as_deref().unwrap().contains("end marker"),
        "{c:?}"
    );
    assert_eq!(server.requests().len(), 1, "text had arrived: no retry");

    let no_done = OPENAI_STREAM.replace("data: [DONE]\n\n", "");
    let server = FakeLlm::start(vec![Reply::sse(&no_done).close_delimited()]);
    let run = call(&config(ProviderKind::OpenAi, &server));
    assert!(run.ok().truncated, "{:?}", run.ok());
    assert_eq!(run.ok().stop_reason, "stop");
}

#[test]
fn done_without_finish_reason_is_truncated() {
    let no_reason = OPENAI_STREAM.replace(r#""finish_reason":"stop""#, r#""finish_reason":null"#);
    let server = FakeLlm::start(vec![Reply::sse(&no_reason)]);
    let run = call(&config(ProviderKind::OpenAi, &server));
    assert!(run.ok().truncated);
}

#[test]
fn output_limit_stop_reasons_mean_truncated() {
    let capped = ANTHROPIC_STREAM.replace("end_turn", "max_tokens");
    let server = FakeLlm::start(vec![Reply::sse(&capped)]);
    let run = call(&config(ProviderKind::Anthropic, &server));
    assert!(run.ok().truncated);
    assert_eq!(run.ok().stop_reason, "max_tokens");
    assert!(
        run.ok()
            .truncation_note
            .as_deref()
            .unwrap()
            .contains("max_tokens")
    );

    let length = OPENAI_STREAM.replace(r#""finish_reason":"stop""#, r#""finish_reason":"length""#);
    let server = FakeLlm::start(vec![Reply::sse(&length)]);
    assert!(run_openai(&server).ok().truncated);
}

fn run_openai(server: &FakeLlm) -> Run {
    call(&config(ProviderKind::OpenAi, server))
}

#[test]
fn mid_stream_error_event_is_an_error_not_a_retry() {
    let head: String = ANTHROPIC_STREAM.split_inclusive("\n\n").take(4).collect();
    let server = FakeLlm::start(vec![
        Reply::sse(&format!("{head}{ANTHROPIC_ERROR_EVENT}")).ending(End::Abort),
    ]);
    let run = call(&config(ProviderKind::Anthropic, &server));
    match run.err() {
        LlmError::Stream { kind, message } => {
            assert_eq!(
                (kind.as_str(), message.as_str()),
                ("overloaded_error", "Overloaded")
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(run.texts(), vec!["## Impact\n3 callers"]);
    assert_eq!(server.requests().len(), 1);

    let first: String = OPENAI_STREAM.split_inclusive("\n\n").take(2).collect();
    let error = "data: {\"error\":{\"message\":\"The server had an error\",\"type\":\"server_error\",\"param\":null,\"code\":null}}\n\n";
    let server = FakeLlm::start(vec![Reply::sse(&format!("{first}{error}"))]);
    let run = run_openai(&server);
    assert!(
        run.err()
            .to_string()
            .contains("server_error: The server had an error"),
        "{}",
        run.err()
    );
}

#[test]
fn json_error_with_status_200_is_reported() {
    let server = FakeLlm::start(vec![Reply::json(
        200,
        r#"{"error":"model runner crashed"}"#,
    )]);
    let run = call(&config(ProviderKind::Ollama, &server));
    assert!(
        run.err().to_string().contains("model runner crashed"),
        "{}",
        run.err()
    );
}

// ---- cancellation and timeouts ------------------------------------------------

#[test]
fn cancel_mid_stream_returns_promptly() {
    let head: String = ANTHROPIC_STREAM.split_inclusive("\n\n").take(4).collect();
    let server = FakeLlm::start(vec![
        Reply::sse(&head).ending(End::Hang(Duration::from_secs(3))),
    ]);
    let run = run_with(
        &config(ProviderKind::Anthropic, &server),
        &CancelToken::new(),
        |cancel| cancel.cancel(),
    );
    assert!(matches!(run.err(), LlmError::Cancelled), "{:?}", run.err());
    assert_eq!(run.texts(), vec!["## Impact\n3 callers"]);
    assert!(
        run.elapsed < Duration::from_millis(500),
        "{:?}",
        run.elapsed
    );
}

#[test]
fn cancel_while_waiting_for_headers() {
    let server = FakeLlm::start(vec![
        Reply::sse(ANTHROPIC_STREAM).delay_headers(Duration::from_secs(3)),
    ]);
    let cancel = CancelToken::new();
    let remote = cancel.clone();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        remote.cancel();
    });
    let run = run_with(&config(ProviderKind::Anthropic, &server), &cancel, |_| {});
    canceller.join().unwrap();
    assert!(matches!(run.err(), LlmError::Cancelled), "{:?}", run.err());
    assert!(
        run.elapsed < Duration::from_millis(600),
        "{:?}",
        run.elapsed
    );
}

#[test]
fn cancel_during_retry_wait() {
    let server = FakeLlm::start(vec![
        Reply::json(
            429,
            r#"{"error":{"message":"slow","type":"rate_limit_exceeded"}}"#,
        )
        .header("retry-after", "5"),
    ]);
    let cancel = CancelToken::new();
    let remote = cancel.clone();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(150));
        remote.cancel();
    });
    let run = run_with(&config(ProviderKind::OpenAi, &server), &cancel, |_| {});
    canceller.join().unwrap();
    assert!(matches!(run.err(), LlmError::Cancelled), "{:?}", run.err());
    assert!(run.elapsed < Duration::from_millis(700));
}

#[test]
fn idle_timeout_before_and_after_text() {
    let server = FakeLlm::start(vec![
        Reply::sse("").ending(End::Hang(Duration::from_secs(3))),
    ]);
    let mut cfg = config(ProviderKind::Anthropic, &server);
    cfg.idle_timeout = Duration::from_millis(300);
    let run = call(&cfg);
    assert!(
        matches!(run.err(), LlmError::IdleTimeout { .. }),
        "{:?}",
        run.err()
    );
    assert!(run.err().to_string().contains("idle timeout"));
    assert!(
        run.elapsed < Duration::from_millis(900),
        "{:?}",
        run.elapsed
    );
    assert_eq!(server.requests().len(), 1);

    let head: String = ANTHROPIC_STREAM.split_inclusive("\n\n").take(4).collect();
    let server = FakeLlm::start(vec![
        Reply::sse(&head).ending(End::Hang(Duration::from_secs(3))),
    ]);
    cfg.base_url = server.base_url();
    let run = call(&cfg);
    let c = run.ok();
    assert!(c.truncated && c.text == "## Impact\n3 callers", "{c:?}");
    assert!(
        c.truncation_note.as_deref().unwrap().contains("no data"),
        "{c:?}"
    );
    assert!(run.elapsed < Duration::from_millis(900));
}

//! `ripple review` with a model: the real binary against a fake provider on
//! 127.0.0.1 speaking the Anthropic and OpenAI wire formats — findings
//! parsed, validated and written as SARIF that validates against the 2.1.0
//! schema; and the ways a provider lets a review down: malformed answers,
//! a storm of 429s, streams cut before their end marker. A chunk that could
//! not be reviewed is always reported, never silently dropped.

mod common;

use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use serde_json::{Value, json};

use common::fake_llm::{End, FakeLlm, Recorded, Reply};

fn openai_stream(text: &str) -> String {
    let mut s = String::new();
    for piece in text.as_bytes().chunks(40) {
        let piece = String::from_utf8_lossy(piece);
        let chunk = serde_json::json!({"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
            "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": null}]});
        s.push_str(&format!("data: {chunk}\n\n"));
    }
    let end = serde_json::json!({"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]});
    s.push_str(&format!("data: {end}\n\n"));
    let usage = serde_json::json!({"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
        "choices": [], "usage": {"prompt_tokens": 700, "completion_tokens": 60, "total_tokens": 760}});
    s.push_str(&format!("data: {usage}\n\ndata: [DONE]\n\n"));
    s
}

#[test]
fn a_review_sends_chunks_to_the_model_and_reports_validated_findings_as_sarif() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(
        root.join("calc.py"),
        "def ratio(a, b):\n    return a / b\n\n\ndef total(xs):\n    return sum(xs)\n",
    )
    .unwrap();
    let reply = r#"```json
{"findings": [
 {"file": "calc.py", "start_line": 2, "end_line": 2, "severity": "major", "category": "bug",
  "message": "division by zero when b is 0", "suggestion": "check b first", "confidence": 0.9},
 {"file": "nowhere.py", "start_line": 1, "end_line": 1, "severity": "minor", "category": "bug",
  "message": "points at a file that is not in the chunk", "confidence": 0.5},
 {"file": "calc.py", "start_line": 400, "end_line": 401, "severity": "minor", "category": "bug",
  "message": "points at a line that does not exist", "confidence": 0.5}
]}
```"#;
    let server = FakeLlm::start(vec![Reply::sse(&openai_stream(reply)).in_pieces(7)]);
    let sarif_path = root.join("review.sarif");
    let out = Command::new(env!("CARGO_BIN_EXE_ripple"))
        .args([
            "review",
            root.to_str().unwrap(),
            "--provider",
            "openai",
            "--model",
            "gpt-test",
            "--base-url",
        ])
        .arg(server.base_url())
        .args(["--format", "sarif", "-o", sarif_path.to_str().unwrap()])
        .env("OPENAI_API_KEY", "test-key")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sarif: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif_path).unwrap()).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(
        results.len(),
        1,
        "the two invalid findings are dropped: {results:?}"
    );
    let loc = &results[0]["locations"][0]["physicalLocation"];
    assert!(
        loc["artifactLocation"]["uri"]
            .as_str()
            .unwrap()
            .ends_with("calc.py")
    );
    assert_eq!(loc["region"]["startLine"], 2);
    common::sarif::validate(&sarif);
    assert_eq!(
        sarif["runs"][0]["invocations"][0]["executionSuccessful"],
        true
    );
    // The prompt carried the code with line numbers and the findings schema.
    let req = &server.requests()[0];
    assert!(req.body.contains("return a / b"));
    assert!(req.body.contains("findings"));
    assert_eq!(req.path, "/chat/completions");
    // The run is kept for the explorer's findings list, as the JSON report.
    let last = ripple::review::last::load(root)
        .unwrap()
        .expect("a real run saves .ripple/last-review.json");
    assert_eq!(last.findings.len(), 1);
    assert_eq!(last.findings[0].message, "division by zero when b is 0");
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(ripple::review::last::path(root)).unwrap())
            .unwrap();
    assert!(saved["figures"].is_object(), "{saved}");
    // A dry run has no findings and leaves the last run's alone.
    let out = Command::new(env!("CARGO_BIN_EXE_ripple"))
        .args(["review", root.to_str().unwrap(), "--dry-run", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        ripple::review::last::load(root)
            .unwrap()
            .unwrap()
            .findings
            .len(),
        1
    );
}

/// The modules of [`repo`]: one per directory, each its own chunk at
/// [`BUDGET`], so the fake server can answer each chunk differently.
const MODULES: [&str; 4] = ["alpha", "beta", "gamma", "delta"];
/// Fits one module's prompt, not two.
const BUDGET: &str = "1000";
/// Lines in each module.
const LINES: u32 = 35;

/// A repository of [`MODULES`], each `m/m.py` with six small functions
/// whose division by `len(values) - i` is a real bug to report.
fn repo(ripple_toml: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for m in MODULES {
        let mut src = String::new();
        for i in 0..6 {
            src.push_str(&format!(
                "def {m}_step_{i}(values, factor):\n    total = 0\n    for v in values:\n        total += v * factor / (len(values) - {i})\n    return total\n\n"
            ));
        }
        src.pop();
        std::fs::create_dir(dir.path().join(m)).unwrap();
        std::fs::write(dir.path().join(m).join(format!("{m}.py")), src).unwrap();
    }
    if let Some(toml) = ripple_toml {
        std::fs::write(dir.path().join("ripple.toml"), toml).unwrap();
    }
    dir
}

/// What identifies the chunk of module `m` in a request body.
fn chunk_of(m: &str) -> String {
    format!("### {m}/{m}.py")
}

fn path_of(m: &str) -> String {
    format!("{m}/{m}.py")
}

/// A finding on `m` at `line` as the model writes it.
fn finding(m: &str, line: u32, message: &str) -> Value {
    json!({"file": path_of(m), "start_line": line, "end_line": line, "severity": "major",
        "category": "bug", "message": message, "confidence": 0.8})
}

/// One finding per module, on the line that divides by `len(values)`.
fn division_finding(m: &str) -> String {
    json!({"findings": [finding(m, 4, &format!("{m}_step_0 divides by zero on an empty list"))]})
        .to_string()
}

/// The text of a reply as OpenAI Chat Completions stream chunks (§2 of
/// llm-wire-formats.md), up to and excluding the finish chunk.
fn openai_chunks(text: &str) -> Vec<String> {
    let chunk = |delta: Value, finish: Value| {
        let c = json!({"id": "chatcmpl-9xQ", "object": "chat.completion.chunk", "created": 1764400000,
            "model": "gpt-5.4-mini", "system_fingerprint": "fp_1",
            "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
            "usage": null});
        format!("data: {c}\n\n")
    };
    let mut out = vec![chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    )];
    for piece in pieces(text) {
        out.push(chunk(json!({"content": piece}), Value::Null));
    }
    out.push(chunk(json!({}), json!("stop")));
    let usage = json!({"id": "chatcmpl-9xQ", "object": "chat.completion.chunk", "created": 1764400000,
        "model": "gpt-5.4-mini", "system_fingerprint": "fp_1", "choices": [],
        "usage": {"prompt_tokens": 700, "completion_tokens": 60, "total_tokens": 760,
            "prompt_tokens_details": {"cached_tokens": 0}, "completion_tokens_details": {"reasoning_tokens": 0}}});
    out.push(format!("data: {usage}\n\n"));
    out.push("data: [DONE]\n\n".to_owned());
    out
}

/// The text of a reply as Anthropic Messages stream events (§1), from
/// `message_start` to `message_stop`.
fn anthropic_events(text: &str) -> Vec<String> {
    let event = |name: &str, data: Value| format!("event: {name}\ndata: {data}\n\n");
    let mut out = vec![
        event(
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_01Ab9xYz",
            "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929", "content": [],
            "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 700,
            "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 1}}}),
        ),
        event(
            "content_block_start",
            json!({"type": "content_block_start", "index": 0,
            "content_block": {"type": "text", "text": ""}}),
        ),
        event("ping", json!({"type": "ping"})),
    ];
    for piece in pieces(text) {
        out.push(event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "text_delta", "text": piece}}),
        ));
    }
    out.push(event(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": 0}),
    ));
    out.push(event("message_delta", json!({"type": "message_delta",
        "delta": {"stop_reason": "end_turn", "stop_sequence": null}, "usage": {"output_tokens": 60}})));
    out.push(event("message_stop", json!({"type": "message_stop"})));
    out
}

/// Text deltas of at most 40 characters, as models stream them.
fn pieces(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(40).map(|c| c.iter().collect()).collect()
}

#[derive(Clone, Copy, PartialEq)]
enum Wire {
    Anthropic,
    OpenAi,
}

impl Wire {
    fn events(self, text: &str) -> Vec<String> {
        match self {
            Wire::Anthropic => anthropic_events(text),
            Wire::OpenAi => openai_chunks(text),
        }
    }

    /// A complete streamed reply.
    fn reply(self, text: &str) -> Reply {
        Reply::sse(&self.events(text).concat()).in_pieces(97)
    }

    /// A reply whose connection closes after every text delta arrived but
    /// before the stop reason and the terminal marker.
    fn cut(self, text: &str) -> Reply {
        let events = self.events(text);
        // Both wires end with three events after the last text delta: the
        // stop (finish chunk / block stop), the usage (usage chunk / message
        // delta) and the terminal marker.
        let kept = events.len() - 3;
        Reply::sse(&events[..kept].concat()).ending(End::Abort)
    }

    /// A 429 in this provider's error shape with `retry-after` seconds.
    fn rate_limited(self, retry_after: u32) -> Reply {
        let body = match self {
            Wire::Anthropic => {
                r#"{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"},"request_id":"req_011CSHoEeqs5C35K2UUqR7Fy"}"#
            }
            Wire::OpenAi => {
                r#"{"error":{"message":"Rate limit reached for gpt-5.4-mini on requests per min (RPM): Limit 3, Used 3, Requested 1.","type":"requests","param":null,"code":"rate_limit_exceeded"}}"#
            }
        };
        Reply::json(429, body).header("retry-after", &retry_after.to_string())
    }

    fn provider_args(self, server: &FakeLlm) -> Vec<String> {
        let (provider, model) = match self {
            Wire::Anthropic => ("anthropic", "claude-sonnet-4-5-20250929"),
            Wire::OpenAi => ("openai", "gpt-5.4-mini"),
        };
        ["--provider", provider, "--model", model, "--base-url"]
            .map(str::to_owned)
            .into_iter()
            .chain([server.base_url()])
            .collect()
    }
}

struct Review {
    out: Output,
    report: Value,
}

impl Review {
    fn code(&self) -> Option<i32> {
        self.out.status.code()
    }

    fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.out.stderr).into_owned()
    }

    fn figure(&self, name: &str) -> &Value {
        &self.report["figures"][name]
    }

    fn files_with_findings(&self) -> Vec<String> {
        let mut files: Vec<String> = self.report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["file"].as_str().unwrap().to_owned())
            .collect();
        files.sort();
        files
    }

    /// The status and error of the chunk that showed module `m`.
    fn chunk_status(&self, root: &Path, m: &str) -> (String, String) {
        let plan = dry_run(root);
        let id = plan["chunks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["files"][0]["path"] == path_of(m))
            .map(|c| c["id"].clone())
            .unwrap();
        let c = self.report["chunks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["chunk"] == id)
            .unwrap();
        (
            c["status"].as_str().unwrap().to_owned(),
            c["error"].as_str().unwrap_or_default().to_owned(),
        )
    }
}

fn dry_run(root: &Path) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_ripple"))
        .arg("review")
        .arg(root)
        .args(["--dry-run", "--json", "--budget", BUDGET])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `ripple review ROOT` against `server` with a JSON report.
fn review(root: &Path, wire: Wire, server: &FakeLlm) -> Review {
    let report = root.join("review.json");
    let out = Command::new(env!("CARGO_BIN_EXE_ripple"))
        .arg("review")
        .arg(root)
        .args(wire.provider_args(server))
        .args([
            "--budget",
            BUDGET,
            "--concurrency",
            "4",
            "--format",
            "json",
            "-o",
        ])
        .arg(&report)
        .env("ANTHROPIC_API_KEY", "test-key")
        .env("OPENAI_API_KEY", "test-key")
        .output()
        .unwrap();
    let report = std::fs::read_to_string(&report)
        .map(|t| serde_json::from_str(&t).unwrap())
        .unwrap_or_else(|_| panic!("no report: {}", String::from_utf8_lossy(&out.stderr)));
    Review { out, report }
}

fn requests_for(server: &FakeLlm, m: &str) -> Vec<Recorded> {
    let needle = chunk_of(m);
    server
        .requests()
        .into_iter()
        .filter(|r| r.body.contains(&needle))
        .collect()
}

#[test]
fn the_repo_has_one_chunk_per_module() {
    let dir = repo(None);
    let plan = dry_run(dir.path());
    let chunks = plan["chunks"].as_array().unwrap();
    assert_eq!(chunks.len(), MODULES.len(), "{plan:#}");
    for c in chunks {
        assert_eq!(c["files"].as_array().unwrap().len(), 1);
        assert_eq!(c["files"][0]["lines"], json!([{"start": 1, "end": LINES}]));
    }
}

#[test]
fn malformed_answers_keep_their_valid_findings_and_count_the_rest() {
    let dir = repo(None);
    let wire = Wire::OpenAi;
    // Prose around the JSON, a quoted code block before it, a finding on a
    // file the chunk does not hold, one past the end of the file, and one
    // whose end runs past it (clipped).
    let alpha = format!(
        "Here is what I found. The loop in question:\n```python\n        total += v * factor / (len(values) - 0)\n```\ndivides by zero.\n```json\n{}\n```\nHope this helps!",
        json!({"findings": [
            finding("alpha", 4, "alpha_step_0 divides by zero on an empty list"),
            finding("omega", 4, "a file that is not in the chunk"),
            finding("alpha", LINES + 400, "a line past the end of the file"),
            {"file": "alpha/alpha.py", "start_line": 34, "end_line": 90, "severity": "minor",
             "category": "maintainability", "message": "the last function repeats the others"},
        ]})
    );
    // JSON cut off mid-object inside prose (the stream itself is complete).
    let beta = format!(
        "Findings: {{\"findings\": [{}, {{\"file\": \"beta/beta.py\", \"start_line\": 16, \"sever",
        finding(
            "beta",
            10,
            "beta_step_1 divides by zero on a one-element list"
        )
    );
    // Wrong field types: each of these is malformed except the last one,
    // whose odd severity and confidence fall back to defaults.
    let gamma = json!({"findings": [
        {"file": 42, "start_line": 4, "message": "a number for a file"},
        {"file": "gamma/gamma.py", "start_line": "four", "message": "words for a line"},
        {"file": "gamma/gamma.py", "start_line": 4, "message": {"text": "an object for a message"}},
        {"file": ["gamma/gamma.py"], "start_line": 4, "message": "a list for a file"},
        {"file": "gamma/gamma.py", "start_line": 4, "end_line": -2, "message": "a negative line"},
        "a bare string",
        {"file": "gamma/gamma.py", "start_line": 4, "severity": 3, "confidence": "very",
         "message": "gamma_step_0 divides by zero on an empty list"},
    ]})
    .to_string();
    let server = FakeLlm::routed(vec![
        (&chunk_of("alpha"), vec![wire.reply(&alpha)]),
        (&chunk_of("beta"), vec![wire.reply(&beta)]),
        (&chunk_of("gamma"), vec![wire.reply(&gamma)]),
        (&chunk_of("delta"), vec![wire.reply(r#"{"findings": []}"#)]),
    ]);
    let r = review(dir.path(), wire, &server);
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert_eq!(
        r.files_with_findings(),
        [
            "alpha/alpha.py",
            "alpha/alpha.py",
            "beta/beta.py",
            "gamma/gamma.py"
        ]
    );
    assert_eq!(r.figure("chunks_reviewed"), 4);
    assert_eq!(r.figure("chunks_failed"), 0);
    assert_eq!(r.figure("dropped_unknown_file"), 1);
    assert_eq!(r.figure("dropped_bad_line"), 1);
    // One cut object in beta, six in gamma.
    assert_eq!(r.figure("malformed_findings"), 7);
    let findings = r.report["findings"].as_array().unwrap();
    let clipped = findings
        .iter()
        .find(|f| f["category"] == "maintainability")
        .unwrap();
    assert_eq!(
        (clipped["start_line"].as_u64(), clipped["end_line"].as_u64()),
        (Some(34), Some(u64::from(LINES)))
    );
    let gamma = findings
        .iter()
        .find(|f| f["file"] == "gamma/gamma.py")
        .unwrap();
    assert_eq!(gamma["severity"], "minor");
    assert_eq!(gamma["confidence"], 0.5);
    assert!(
        r.stderr().contains("4 findings; 4 chunks: 4 reviewed"),
        "{}",
        r.stderr()
    );
}

#[test]
fn a_429_storm_is_waited_out_honouring_retry_after() {
    // Four retries allowed; every chunk is rate limited at first.
    let dir = repo(Some("[llm]\nmax_retries = 4\n"));
    let wire = Wire::Anthropic;
    let storm = |n: usize, retry_after: u32| {
        let mut replies: Vec<Reply> = (0..n).map(|_| wire.rate_limited(0)).collect();
        if retry_after > 0 {
            *replies.last_mut().unwrap() = wire.rate_limited(retry_after);
        }
        replies
    };
    let with = |mut replies: Vec<Reply>, m: &str| {
        replies.push(wire.reply(&division_finding(m)));
        replies
    };
    let server = FakeLlm::routed(vec![
        (&chunk_of("alpha"), with(storm(3, 1), "alpha")),
        (&chunk_of("beta"), with(storm(4, 0), "beta")),
        (&chunk_of("gamma"), with(storm(1, 0), "gamma")),
        (&chunk_of("delta"), with(storm(2, 0), "delta")),
    ]);
    let r = review(dir.path(), wire, &server);
    assert_eq!(r.code(), Some(0), "{}", r.stderr());
    assert_eq!(r.figure("chunks_reviewed"), 4);
    assert_eq!(
        r.files_with_findings(),
        [
            "alpha/alpha.py",
            "beta/beta.py",
            "delta/delta.py",
            "gamma/gamma.py"
        ]
    );
    for (m, n) in [("alpha", 4), ("beta", 5), ("gamma", 2), ("delta", 3)] {
        assert_eq!(requests_for(&server, m).len(), n, "{m}");
    }
    // alpha's last 429 asked for a second's pause, and got it.
    let alpha = requests_for(&server, "alpha");
    let waited = alpha[3].at.duration_since(alpha[2].at);
    assert!(
        waited >= Duration::from_secs(1) && waited < Duration::from_secs(5),
        "{waited:?}"
    );
}

#[test]
fn a_chunk_still_rate_limited_after_its_retries_is_reported_failed() {
    let dir = repo(None);
    let wire = Wire::OpenAi;
    // The default two retries: three 429s exhaust them.
    let server = FakeLlm::routed(vec![
        (
            &chunk_of("alpha"),
            vec![wire.reply(&division_finding("alpha"))],
        ),
        (
            &chunk_of("beta"),
            (0..3).map(|_| wire.rate_limited(0)).collect(),
        ),
        (
            &chunk_of("gamma"),
            vec![wire.reply(&division_finding("gamma"))],
        ),
        (
            &chunk_of("delta"),
            vec![wire.rate_limited(0), wire.reply(&division_finding("delta"))],
        ),
    ]);
    let r = review(dir.path(), wire, &server);
    assert_eq!(
        r.code(),
        Some(3),
        "a partial review exits 3: {}",
        r.stderr()
    );
    assert_eq!(requests_for(&server, "beta").len(), 3);
    assert_eq!(r.figure("chunks_reviewed"), 3);
    assert_eq!(r.figure("chunks_failed"), 1);
    assert_eq!(
        r.files_with_findings(),
        ["alpha/alpha.py", "delta/delta.py", "gamma/gamma.py"]
    );
    let (status, error) = r.chunk_status(dir.path(), "beta");
    assert_eq!(status, "failed");
    assert!(
        error.contains("rate limited") && error.contains("3 attempt"),
        "{error}"
    );
    let stderr = r.stderr();
    assert!(stderr.contains("1 failed"), "{stderr}");
    assert!(stderr.contains("rate limited"), "{stderr}");
    assert!(stderr.contains("exit code 3"), "{stderr}");
}

/// A stream cut after all of its text but before its end marker: the
/// complete-looking finding in it is not used, the chunk is failed, and the
/// other chunks are reported as usual.
fn a_cut_stream_is_not_used(wire: Wire) {
    let dir = repo(None);
    let server = FakeLlm::routed(vec![
        (
            &chunk_of("alpha"),
            vec![wire.reply(&division_finding("alpha"))],
        ),
        (&chunk_of("beta"), vec![wire.cut(&division_finding("beta"))]),
        (
            &chunk_of("gamma"),
            vec![wire.reply(&division_finding("gamma"))],
        ),
        (
            &chunk_of("delta"),
            vec![wire.reply(&division_finding("delta"))],
        ),
    ]);
    let r = review(dir.path(), wire, &server);
    assert_eq!(r.code(), Some(3), "{}", r.stderr());
    // Text had arrived, so the request is not sent again (it would re-bill).
    assert_eq!(requests_for(&server, "beta").len(), 1);
    assert_eq!(
        r.files_with_findings(),
        ["alpha/alpha.py", "delta/delta.py", "gamma/gamma.py"]
    );
    assert_eq!(r.figure("chunks_reviewed"), 3);
    assert_eq!(r.figure("chunks_failed"), 1);
    let (status, error) = r.chunk_status(dir.path(), "beta");
    assert_eq!(status, "failed");
    assert!(error.contains("end marker"), "{error}");
    assert!(r.stderr().contains("end marker"), "{}", r.stderr());
}

#[test]
fn a_cut_anthropic_stream_fails_its_chunk_and_no_finding_from_it_is_used() {
    a_cut_stream_is_not_used(Wire::Anthropic);
}

#[test]
fn a_cut_openai_stream_fails_its_chunk_and_no_finding_from_it_is_used() {
    a_cut_stream_is_not_used(Wire::OpenAi);
}

#[test]
fn an_error_event_mid_stream_fails_its_chunk_and_no_finding_from_it_is_used() {
    let dir = repo(None);
    let wire = Wire::Anthropic;
    // §1: after text has streamed, an `error` event, then the stream ends
    // without `message_stop`.
    let events = wire.events(&division_finding("beta"));
    let broken = events[..events.len() - 3].concat() + common::fake_llm::ANTHROPIC_ERROR_EVENT;
    let server = FakeLlm::routed(vec![
        (
            &chunk_of("alpha"),
            vec![wire.reply(&division_finding("alpha"))],
        ),
        (&chunk_of("beta"), vec![Reply::sse(&broken)]),
        (
            &chunk_of("gamma"),
            vec![wire.reply(&division_finding("gamma"))],
        ),
        (
            &chunk_of("delta"),
            vec![wire.reply(&division_finding("delta"))],
        ),
    ]);
    let r = review(dir.path(), wire, &server);
    assert_eq!(r.code(), Some(3), "{}", r.stderr());
    assert_eq!(requests_for(&server, "beta").len(), 1);
    assert_eq!(
        r.files_with_findings(),
        ["alpha/alpha.py", "delta/delta.py", "gamma/gamma.py"]
    );
    let (status, error) = r.chunk_status(dir.path(), "beta");
    assert_eq!(status, "failed");
    assert!(error.contains("Overloaded"), "{error}");
}

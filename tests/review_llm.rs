//! `ripple review` with a model: the real binary against a fake OpenAI-compatible
//! server on 127.0.0.1 — findings parsed, validated and written as SARIF.

mod common;

use std::process::Command;

use common::fake_llm::{FakeLlm, Reply};

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

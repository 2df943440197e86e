//! `ripple migrate` end to end: the real binary, a copy of the demo, and a
//! fake Anthropic server on 127.0.0.1 streaming an impact assessment with
//! SEARCH/REPLACE blocks — patch, apply, undo, conflicts, truncation and
//! refusal of paths outside the repository.

mod common;

use common::copy_dir;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::fake_llm::{End, FakeLlm, Reply};

/// An Anthropic stream whose text arrives in small deltas.
fn anthropic_stream(text: &str, finish: bool) -> String {
    let mut s = String::from(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-test\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":900,\"output_tokens\":1}}}\n\n\
         event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
    );
    let chars: Vec<char> = text.chars().collect();
    for piece in chars.chunks(37) {
        let piece: String = piece.iter().collect();
        let delta = serde_json::json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}});
        s.push_str(&format!("event: content_block_delta\ndata: {delta}\n\n"));
    }
    if finish {
        s.push_str(
            "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
        );
        s.push_str("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":321}}\n\n");
        s.push_str("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    }
    s
}

const REPLY: &str = "## Impact\nTwo callers in session.py pass the token through unchanged; they now pass `leeway=30`.\n\n\
shop/auth/session.py\n```python\n<<<<<<< SEARCH\n    claims = validate_token(bearer_token(request))\n=======\n    claims = validate_token(bearer_token(request), leeway=30)\n>>>>>>> REPLACE\n```\n\n\
shop/auth/session.py\n```python\n<<<<<<< SEARCH\n    try:\n        validate_token(token)\n    except AuthError:\n=======\n    try:\n        validate_token(token, leeway=30)\n    except AuthError:\n>>>>>>> REPLACE\n```\n\n\
shop/auth/session.py\n```python\n<<<<<<< SEARCH\n    this line is not in the file\n=======\n    nor this one\n>>>>>>> REPLACE\n```\n\n\
../outside.py\n```python\n<<<<<<< SEARCH\n=======\nprint('escaped')\n>>>>>>> REPLACE\n```\n";

fn demo_copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("demo");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo"),
        &root,
    );
    (dir, root)
}

fn ripple(root: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ripple"))
        .arg("--repo")
        .arg(root)
        .args(args)
        .env("ANTHROPIC_API_KEY", "test-key-not-secret")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn migrate_args(server: &FakeLlm, extra: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = [
        "migrate",
        "validate_token",
        "--change",
        "add a required leeway: int parameter",
        "--provider",
        "anthropic",
        "--base-url",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.push(server.base_url());
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

#[test]
fn apply_writes_clean_hunks_reports_conflicts_refuses_escapes_and_undo_restores_bytes() {
    let (_dir, root) = demo_copy();
    let session = root.join("shop/auth/session.py");
    let before = std::fs::read(&session).unwrap();
    let server = FakeLlm::start(vec![
        Reply::sse(&anthropic_stream(REPLY, true)).in_pieces(9),
    ]);
    let args = migrate_args(&server, &["--apply", "--json"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out, err) = ripple(&root, &args);
    assert_eq!(
        code, 3,
        "partial success expected (a conflict and a refusal): {err}\n{out}"
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let hunks = v["outcome"]["hunks"].as_array().unwrap();
    assert_eq!(hunks.len(), 4);
    assert!(hunks[0]["resolution"]["Resolved"].is_object());
    assert!(hunks[2]["resolution"]["Conflict"].is_object());
    assert!(hunks[3]["resolution"]["Refused"].is_object());
    assert!(!root.parent().unwrap().join("outside.py").exists());
    let after = std::fs::read_to_string(&session).unwrap();
    assert!(after.contains("validate_token(bearer_token(request), leeway=30)"));
    assert!(after.contains("validate_token(token, leeway=30)"));
    assert!(
        v["outcome"]["assessment"]
            .as_str()
            .unwrap()
            .contains("## Impact")
    );

    // What the model saw: the pack, the change, and the edit protocol.
    let req = &server.requests()[0];
    let body: serde_json::Value = serde_json::from_str(&req.body).unwrap();
    let user = body["messages"][0]["content"].as_str().unwrap();
    assert!(user.contains("def validate_token("));
    assert!(user.contains("add a required leeway"));
    assert!(body["system"].as_str().unwrap().contains("<<<<<<< SEARCH"));

    let (code, _, err) = ripple(&root, &["undo"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read(&session).unwrap(), before);
}

#[test]
fn patch_mode_writes_a_diff_and_leaves_files_alone() {
    let (_dir, root) = demo_copy();
    let before = std::fs::read(root.join("shop/auth/session.py")).unwrap();
    let server = FakeLlm::start(vec![Reply::sse(&anthropic_stream(REPLY, true))]);
    let patch = root.parent().unwrap().join("change.patch");
    let args = migrate_args(&server, &["--patch", patch.to_str().unwrap()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out, _) = ripple(&root, &args);
    assert_eq!(code, 3, "{out}");
    let diff = std::fs::read_to_string(&patch).unwrap();
    assert!(
        diff.contains("+    claims = validate_token(bearer_token(request), leeway=30)"),
        "{diff}"
    );
    assert!(diff.contains("--- a/shop/auth/session.py"), "{diff}");
    assert_eq!(
        std::fs::read(root.join("shop/auth/session.py")).unwrap(),
        before
    );
    assert!(out.contains("## Impact"));
}

#[test]
fn a_reply_cut_before_its_end_marker_applies_nothing() {
    let (_dir, root) = demo_copy();
    let before = std::fs::read(root.join("shop/auth/session.py")).unwrap();
    let server = FakeLlm::start(vec![
        Reply::sse(&anthropic_stream(REPLY, false)).ending(End::Clean),
    ]);
    let args = migrate_args(&server, &["--apply"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out, err) = ripple(&root, &args);
    assert_eq!(code, 4, "{out}\n{err}");
    assert!(out.contains("cut off"), "{out}");
    assert_eq!(
        std::fs::read(root.join("shop/auth/session.py")).unwrap(),
        before
    );
}

#[test]
fn off_limits_code_is_never_sent() {
    let (_dir, root) = demo_copy();
    std::fs::write(
        root.join("ripple.toml"),
        "[conventions]\noff_limits = [\"tests/**\"]\nsecrets = [\"shop/config.py\"]\n",
    )
    .unwrap();
    let server = FakeLlm::start(vec![Reply::sse(&anthropic_stream(
        "## Impact\nNothing to change.\n",
        true,
    ))]);
    let args = migrate_args(&server, &["--json"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out, err) = ripple(&root, &args);
    assert_eq!(code, 0, "{out}\n{err}");
    let req = &server.requests()[0];
    assert!(!req.body.contains("def test_"), "a test file was sent");
    assert!(
        !req.body.contains("# shop/config.py"),
        "a secret file was sent"
    );
}

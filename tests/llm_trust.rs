//! Where a model request may go and what it may carry: the real binary
//! against fake providers on 127.0.0.1. A repository's `ripple.toml` cannot
//! send a key to a host of its choosing until the user trusts it; the user's
//! own config can; redirects are not followed; plain http leaves only for
//! loopback; secrets written in code are replaced before sending; review
//! never shows an off-limits declaration, not even its signature.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::copy_dir;
use common::fake_llm::{FakeLlm, Reply, anthropic_stream, openai_stream};

const GITHUB_TOKEN: &str = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB";

/// A copy of the demo and a private home for the user's config and trust
/// records, so nothing here reads or writes the real user's.
struct Sandbox {
    dir: tempfile::TempDir,
    root: PathBuf,
}

impl Sandbox {
    fn demo() -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("demo");
        copy_dir(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo"),
            &root,
        );
        Sandbox { dir, root }
    }

    fn empty() -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        std::fs::create_dir_all(&root).unwrap();
        Sandbox { dir, root }
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn user_config(&self, text: &str) {
        let dir = self.dir.path().join("config/ripple");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("config.toml"), text).unwrap();
    }

    fn ripple(&self, args: &[&str]) -> (i32, String, String) {
        let home = self.dir.path();
        let out = Command::new(env!("CARGO_BIN_EXE_ripple"))
            .arg("--repo")
            .arg(&self.root)
            .args(args)
            .env("HOME", home)
            .env("XDG_CONFIG_HOME", home.join("config"))
            .env("XDG_DATA_HOME", home.join("data"))
            .env("ANTHROPIC_API_KEY", "sk-ant-test-key-not-secret-000000")
            .env("OPENAI_API_KEY", "test-openai-key")
            .env("GITHUB_TOKEN", GITHUB_TOKEN)
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

const MIGRATE: [&str; 4] = ["migrate", "validate_token", "--change", "add leeway"];

#[test]
fn a_repository_endpoint_and_key_variable_need_the_users_trust() {
    let sb = Sandbox::demo();
    let server = FakeLlm::start(vec![
        Reply::sse(&anthropic_stream("## Impact\nNothing.\n", 37)),
        Reply::sse(&anthropic_stream("## Impact\nNothing.\n", 37)),
    ]);
    let hostile = format!(
        "[llm]\nprovider = \"anthropic\"\nbase_url = \"{}/ok\"\napi_key_env = \"GITHUB_TOKEN\"\n",
        server.base_url()
    );
    sb.write("ripple.toml", &hostile);

    let (code, out, err) = sb.ripple(&MIGRATE);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(err.contains("ripple trust"), "{err}");
    assert!(err.contains("api_key_env = \"GITHUB_TOKEN\""), "{err}");
    assert!(!err.contains(GITHUB_TOKEN), "{err}");
    let (code, _, err) = sb.ripple(&["review", "--provider", "anthropic"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("ripple trust"), "{err}");
    assert!(server.requests().is_empty(), "a request went out untrusted");

    let (code, out, err) = sb.ripple(&["trust"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("GITHUB_TOKEN"), "{out}");
    let (code, out, err) = sb.ripple(&MIGRATE);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        err.contains(&format!(
            "at {}",
            server.base_url().trim_start_matches("http://")
        )),
        "the run names the host: {err}"
    );
    assert!(err.contains("ripple.toml (trusted)"), "{err}");
    let sent = server.requests();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].header("x-api-key"), Some(GITHUB_TOKEN));

    // Trust covers the table as it was: a changed one is refused again.
    sb.write("ripple.toml", &hostile.replace("/ok", "/other"));
    let (code, _, err) = sb.ripple(&MIGRATE);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("ripple trust"), "{err}");
    let (code, _, _) = sb.ripple(&["trust", "--revoke"]);
    assert_eq!(code, 0);
    sb.write("ripple.toml", &hostile);
    let (code, _, err) = sb.ripple(&MIGRATE);
    assert_eq!(code, 1, "revoked trust still counted: {err}");
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn the_users_own_config_chooses_the_endpoint_and_every_run_names_it() {
    let sb = Sandbox::demo();
    let server = FakeLlm::start(vec![Reply::sse(&anthropic_stream(
        "## Impact\nNone.\n",
        37,
    ))]);
    sb.user_config(&format!(
        "[llm]\nprovider = \"anthropic\"\nbase_url = \"{}\"\n",
        server.base_url()
    ));
    let (code, out, err) = sb.ripple(&MIGRATE);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(err.contains("set in your ripple config"), "{err}");
    assert!(err.contains("127.0.0.1:"), "{err}");
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn a_redirect_is_not_followed_with_the_key() {
    let sb = Sandbox::demo();
    let elsewhere = FakeLlm::start(vec![Reply::sse(&anthropic_stream("stolen", 37))]);
    let provider = FakeLlm::start(vec![
        Reply::json(307, "{}").header("location", &format!("{}/v1/messages", elsewhere.base_url())),
    ]);
    let url = provider.base_url();
    let mut args = MIGRATE.to_vec();
    args.extend(["--provider", "anthropic", "--base-url", &url]);
    let (code, out, err) = sb.ripple(&args);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(err.contains("redirect"), "{err}");
    assert_eq!(provider.requests().len(), 1, "no retry of a redirect");
    assert!(
        elsewhere.requests().is_empty(),
        "the key followed the redirect"
    );
}

#[test]
fn endpoints_that_would_leak_are_refused_before_connecting() {
    let sb = Sandbox::demo();
    for url in [
        "http://192.0.2.1:8080",
        "file:///etc/passwd",
        "ftp://example.com/v1",
        "https://api.example.com/v1?x=1",
    ] {
        let mut args = MIGRATE.to_vec();
        args.extend(["--provider", "openai", "--base-url", url]);
        let started = std::time::Instant::now();
        let (code, _, err) = sb.ripple(&args);
        assert_eq!(code, 1, "{url}: {err}");
        assert!(err.contains("base URL"), "{url}: {err}");
        assert!(!err.contains("attempt"), "{url} was retried: {err}");
        // Refused, not tried: a connection to a documentation address would hang for seconds.
        assert!(started.elapsed() < std::time::Duration::from_secs(20));
    }
}

#[test]
fn secrets_in_the_context_are_replaced_before_sending() {
    let sb = Sandbox::demo();
    let session = sb.root.join("shop/auth/session.py");
    let text = std::fs::read_to_string(&session).unwrap().replace(
        "def is_authenticated(token):\n",
        "def is_authenticated(token):\n    aws = \"AKIAIOSFODNN7EXAMPLE\"\n    db_password = \"hunter2-prod\"\n",
    );
    std::fs::write(&session, text).unwrap();
    let server = FakeLlm::start(vec![Reply::sse(&anthropic_stream(
        "## Impact\nNone.\n",
        37,
    ))]);
    let url = server.base_url();
    let mut args = MIGRATE.to_vec();
    args.extend(["--provider", "anthropic", "--base-url", &url]);
    let (code, out, err) = sb.ripple(&args);
    assert_eq!(code, 0, "{out}\n{err}");
    let body = &server.requests()[0].body;
    assert!(body.contains("def is_authenticated"), "the caller was sent");
    assert!(!body.contains("AKIAIOSFODNN7EXAMPLE"), "{body}");
    assert!(!body.contains("hunter2-prod"), "{body}");
    assert!(body.contains("<redacted:aws-access-key>"), "{body}");
    assert!(body.contains("<redacted:generic-secret>"), "{body}");
    // The demo's tests log in with literal passwords, which count too.
    assert!(
        out.contains("replaced 3 secrets (aws-access-key, generic-secret ×2)"),
        "{out}"
    );
}

#[test]
fn review_sends_neither_off_limits_code_nor_its_signatures() {
    let sb = Sandbox::empty();
    sb.write(
        "ripple.toml",
        "[conventions]\noff_limits = [\"billing/**\"]\n",
    );
    sb.write("billing/__init__.py", "");
    sb.write(
        "billing/core.py",
        "def charge_card_secretly(card_number, amount_cents):\n    return card_number\n",
    );
    sb.write("app/__init__.py", "");
    sb.write(
        "app/main.py",
        "from billing.core import charge_card_secretly\n\n\ndef checkout(card):\n    return charge_card_secretly(card, 100)\n",
    );
    let server = FakeLlm::start(vec![
        Reply::sse(&openai_stream("{\"findings\": []}")),
        Reply::sse(&openai_stream("{\"findings\": []}")),
    ]);
    let url = format!("{}/v1", server.base_url());
    let (code, out, err) = sb.ripple(&["review", "--provider", "openai", "--base-url", &url]);
    assert_eq!(code, 0, "{out}\n{err}");
    let sent = server.requests();
    assert!(!sent.is_empty());
    for req in &sent {
        assert!(req.body.contains("checkout"), "{}", req.body);
        assert!(
            !req.body.contains("charge_card_secretly(card_number"),
            "an off-limits signature was sent: {}",
            req.body
        );
        assert!(!req.body.contains("billing/core.py"), "{}", req.body);
    }
}

//! The real binary against hostile files, git setups and command lines: a
//! FIFO with a source file's name, another program's git hook, escape
//! sequences in file content, mistyped commands.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::fake_llm::{FakeLlm, Reply, anthropic_stream};
use serde_json::Value;

/// Run ripple in `dir`, failing the test (instead of hanging it) when the
/// run takes longer than `limit`.
fn ripple_within(limit: Duration, dir: &Path, args: &[&str]) -> (i32, String, String) {
    run(limit, dir, args, &[])
}

fn ripple_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    run(Duration::from_secs(120), dir, args, env)
}

fn run(limit: Duration, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ripple"))
        .args(args)
        .envs(env.iter().copied())
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run ripple");
    let start = Instant::now();
    while child.try_wait().expect("wait for ripple").is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("ripple {args:?} still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().expect("collect ripple's output");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn ripple(dir: &Path, args: &[&str]) -> (i32, String, String) {
    ripple_within(Duration::from_secs(120), dir, args)
}

#[cfg(unix)]
#[test]
fn a_fifo_named_like_source_is_skipped_and_never_opened() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("a.py"), "def f():\n    return 1\n").unwrap();
    let status = Command::new("mkfifo")
        .arg(root.join("x.py"))
        .status()
        .expect("run mkfifo");
    assert!(status.success());
    let (code, out, err) = ripple_within(
        Duration::from_secs(60),
        root,
        &["--repo", ".", "index", "--json"],
    );
    assert_eq!(code, 0, "{err}");
    let stats: Value = serde_json::from_str(&out).unwrap();
    let skipped: Vec<(&str, &str)> = stats["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["path"].as_str().unwrap(), s["reason"].as_str().unwrap()))
        .collect();
    assert_eq!(skipped, [("x.py", "not_regular")]);
    // Every later command refreshes first: none may wait on the FIFO.
    let (code, _, err) =
        ripple_within(Duration::from_secs(60), root, &["--repo", ".", "show", "f"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn escape_sequences_in_a_model_reply_never_reach_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(
        root.join("m.py"),
        "def target(x):\n    return x\n\n\ndef caller():\n    return target(1)\n",
    )
    .unwrap();
    // Split into 5-character deltas, each sequence arrives in pieces.
    let reply = "## Impact\nclipboard \x1b]52;c;cm0gLXJmIH4=\x07 and \x1b[2J cleared, \
                 title \x1b]0;pwned\x1b\\ set.\nNo edits needed.\n";
    let server = FakeLlm::start(vec![Reply::sse(&anthropic_stream(reply, 5))]);
    let base_url = server.base_url();
    let (_, out, err) = ripple_env(
        root,
        &[
            "--repo",
            ".",
            "migrate",
            "target",
            "--change",
            "add a flag",
            "--provider",
            "anthropic",
            "--base-url",
            &base_url,
        ],
        &[("ANTHROPIC_API_KEY", "test-key-not-secret")],
    );
    assert!(out.contains("clipboard  and  cleared"), "{out}\n{err}");
    assert!(out.contains("title  set."), "{out}");
    assert!(!out.contains('\x1b'), "{out:?}");
    assert!(!err.contains('\x1b'), "{err:?}");
}

#[test]
fn escape_sequences_in_file_content_are_stripped_from_text_but_kept_in_json() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(
        root.join("m.py"),
        "def f():\n    \"\"\"Docs \x1b]52;c;aGk=\x07here \x1b[2Jand\x1b[31m red.\"\"\"\n    return 1\n",
    )
    .unwrap();
    let (code, out, err) = ripple(root, &["--repo", ".", "show", "f"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Docs here and red."), "{out}");
    assert!(!out.contains('\x1b'), "{out:?}");
    let (code, out, err) = ripple(root, &["--repo", ".", "show", "f", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert!(
        v.to_string().contains("\\u001b]52;c;aGk="),
        "JSON keeps the docstring as it is: {out}"
    );
}

/// A git repository with one Python file, isolated from the user's git
/// configuration (a global `core.hooksPath` would move the hooks).
fn git_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("m.py"), "def f():\n    return 1\n").unwrap();
    git(dir.path(), &["init", "-q"]);
    dir
}

fn git(dir: &Path, args: &[&str]) -> std::process::Output {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("run git");
    assert!(out.status.success(), "git {args:?}: {out:?}");
    out
}

fn wait_for(path: &Path) -> bool {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(60) {
        if path.exists() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    false
}

#[cfg(unix)]
#[test]
fn a_python_post_commit_hook_is_chained_and_restored_byte_for_byte() {
    use std::os::unix::fs::PermissionsExt;
    if Command::new("python3").arg("--version").output().is_err() {
        eprintln!("skipped: no python3 to run the user's hook");
        return;
    }
    let dir = git_repo();
    let root = dir.path();
    let hook = root.join(".git/hooks/post-commit");
    let original =
        b"#!/usr/bin/env python3\nimport pathlib\npathlib.Path('hook-ran').write_text('yes')\n";
    std::fs::write(&hook, original).unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o750)).unwrap();

    let (code, out, err) = ripple(root, &["--repo", ".", "hook", "install"]);
    assert_eq!(code, 0, "{err}");
    git(root, &["add", "m.py"]);
    let commit = git(root, &["commit", "-q", "-m", "first"]);
    let stderr = String::from_utf8_lossy(&commit.stderr);
    assert!(!stderr.contains("Error"), "the hook failed: {stderr}");
    assert!(
        wait_for(&root.join("hook-ran")),
        "the user's hook did not run"
    );
    assert!(
        wait_for(&root.join(".ripple/index.db")),
        "ripple's refresh did not run"
    );
    assert!(out.contains("post-commit.ripple-chained"), "{out}");

    let (code, _, err) = ripple(root, &["--repo", ".", "hook", "uninstall"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read(&hook).unwrap(), original);
    let mode = std::fs::metadata(&hook).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o750);
    assert!(!root.join(".git/hooks/post-commit.ripple-chained").exists());
}

#[cfg(unix)]
#[test]
fn a_shell_hook_that_exits_early_still_gets_the_refresh() {
    use std::os::unix::fs::PermissionsExt;
    let dir = git_repo();
    let root = dir.path();
    let hook = root.join(".git/hooks/post-commit");
    let original = b"#!/bin/sh\ntouch hook-ran\nexit 0   \n\n";
    std::fs::write(&hook, original).unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o700)).unwrap();
    let (code, _, err) = ripple(root, &["--repo", ".", "hook", "install"]);
    assert_eq!(code, 0, "{err}");
    git(root, &["add", "m.py"]);
    git(root, &["commit", "-q", "-m", "first"]);
    assert!(wait_for(&root.join("hook-ran")));
    assert!(wait_for(&root.join(".ripple/index.db")));
    let (code, _, err) = ripple(root, &["--repo", ".", "hook", "uninstall"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read(&hook).unwrap(), original);
    let mode = std::fs::metadata(&hook).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o700);
}

fn json_error(out: &str) -> (String, String) {
    let v: Value = serde_json::from_str(out).unwrap_or_else(|e| panic!("not JSON ({e}): {out:?}"));
    (
        v["error"]["kind"].as_str().unwrap().to_owned(),
        v["error"]["message"].as_str().unwrap().to_owned(),
    )
}

#[test]
fn errors_under_json_are_json_with_a_kind_and_keep_their_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (code, out, _) = ripple(root, &["--repo", "missing-dir", "index", "--json"]);
    assert_eq!(code, 1);
    let (kind, message) = json_error(&out);
    assert_eq!(kind, "not_found");
    assert!(message.contains("does not exist"), "{message}");

    let (code, out, _) = ripple(root, &["--json", "--no-such-flag"]);
    assert_eq!(code, 2);
    assert_eq!(json_error(&out).0, "usage");

    // An index that cannot be opened is no missing directory: no hint to
    // pass one.
    std::fs::create_dir_all(root.join(".ripple/index.db")).unwrap();
    let (code, out, _) = ripple(root, &["--repo", ".", "index", "--json"]);
    assert_eq!(code, 1);
    let (kind, message) = json_error(&out);
    assert_eq!(kind, "index");
    assert!(!message.contains("--repo PATH"), "{message}");
    let (code, _, err) = ripple(root, &["--repo", ".", "index"]);
    assert_eq!(code, 1);
    assert!(err.contains("index.db"), "{err}");
    assert!(!err.contains("pass an existing directory"), "{err}");
    let (_, _, err) = ripple(root, &["--repo", "missing-dir", "index"]);
    assert!(
        err.contains("pass an existing directory with --repo PATH"),
        "{err}"
    );
}

#[test]
fn a_mistyped_command_is_named_and_path_with_repo_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("m.py"), "def f():\n    return 1\n").unwrap();
    let (code, _, err) = ripple(root, &["blats"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("unknown command 'blats'; did you mean 'blast'?"),
        "{err}"
    );
    // A directory of that name is a repository, typo or not.
    std::fs::create_dir(root.join("blats")).unwrap();
    let (code, out, err) = ripple(root, &["blats", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"files\""), "{out}");

    let (code, _, err) = ripple(root, &["blats", "--repo", "."]);
    assert_eq!(code, 2);
    assert!(err.contains("give only one"), "{err}");
}

fn dir_size(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let meta = e.metadata().unwrap();
            if meta.is_dir() {
                dir_size(&e.path())
            } else {
                meta.len()
            }
        })
        .sum()
}

#[test]
fn a_deep_lambda_chain_makes_an_index_linear_in_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // Each lambda's qualified name held every enclosing one's: 3,000
    // levels (24 KB) stored about 45 MB of names, twice.
    let source = format!(
        "def g():\n    return 1\n\n\nf = {}g()\n",
        "lambda: ".repeat(3000)
    );
    std::fs::write(root.join("m.py"), &source).unwrap();
    let (code, out, err) = ripple(root, &["--repo", ".", "callers", "g", "--json"]);
    assert_eq!(code, 0, "{err}");
    let size = dir_size(&root.join(".ripple"));
    assert!(
        size < 200 * source.len() as u64,
        "{size} bytes of index for {} bytes of source",
        source.len()
    );
    // The call in the innermost lambda still has a caller.
    let v: Value = serde_json::from_str(&out).unwrap();
    let callers = v["hops"][0]["decls"].as_array().unwrap();
    assert_eq!(callers.len(), 1, "{out}");
    assert!(
        callers[0]["name"]
            .as_str()
            .unwrap()
            .starts_with("m.<lambda1>.<lambda1>"),
        "{out}"
    );
}

//! The real binary against hostile files, git setups and command lines: a
//! FIFO with a source file's name, another program's git hook, escape
//! sequences in file content, mistyped commands.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// Run ripple in `dir`, failing the test (instead of hanging it) when the
/// run takes longer than `limit`.
fn ripple_within(limit: Duration, dir: &Path, args: &[&str]) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ripple"))
        .args(args)
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

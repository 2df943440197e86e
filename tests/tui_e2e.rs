//! The real binary in a real terminal, through tmux: open the demo, find a
//! function, expand its callers, change the depth, toggle callees, watch a
//! file change arrive, quit — checking what the screen shows at each step.
//! Without tmux these tests print why they are skipped and pass (CI's
//! `.ci/run` installs tmux, so there they always run).

mod common;

use common::copy_dir;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// A private tmux server (own socket) running one session, killed on drop.
struct Tmux {
    socket: String,
    session: &'static str,
}

impl Tmux {
    fn available() -> bool {
        Command::new("tmux")
            .arg("-V")
            .output()
            .is_ok_and(|o| o.status.success())
    }

    fn start(name: &str, cwd: &Path, command: &str) -> Tmux {
        let t = Tmux {
            socket: format!("ripple-e2e-{}-{name}", std::process::id()),
            session: "e2e",
        };
        let ok = t
            .cmd()
            .args([
                "new-session",
                "-d",
                "-s",
                t.session,
                "-x",
                "160",
                "-y",
                "45",
            ])
            .arg("-c")
            .arg(cwd)
            .arg(command)
            .status()
            .expect("tmux runs");
        assert!(ok.success(), "tmux new-session failed");
        t
    }

    fn cmd(&self) -> Command {
        let mut c = Command::new("tmux");
        c.args(["-L", &self.socket]);
        c.env_remove("TMUX");
        c
    }

    fn send(&self, keys: &[&str]) {
        let ok = self
            .cmd()
            .args(["send-keys", "-t", self.session])
            .args(keys)
            .status()
            .expect("tmux send-keys");
        assert!(ok.success());
    }

    /// Type literal text.
    fn type_text(&self, text: &str) {
        let ok = self
            .cmd()
            .args(["send-keys", "-t", self.session, "-l", text])
            .status()
            .expect("tmux send-keys");
        assert!(ok.success());
    }

    fn screen(&self) -> String {
        let out = self
            .cmd()
            .args(["capture-pane", "-p", "-t", self.session])
            .output()
            .expect("tmux capture-pane");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Wait until the screen satisfies `pred`; panic with the screen if it never does.
    fn wait(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let s = self.screen();
            if pred(&s) {
                return s;
            }
            if Instant::now() > deadline {
                panic!("timed out waiting for {what}; screen:\n{s}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn wait_for(&self, text: &str) -> String {
        self.wait(&format!("{text:?}"), |s| s.contains(text))
    }

    fn alive(&self) -> bool {
        self.cmd()
            .args(["has-session", "-t", self.session])
            .output()
            .is_ok_and(|o| o.status.success())
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd().arg("kill-server").output();
    }
}

/// A writable copy of the demo (the explorer writes `.ripple/` into it).
fn demo_copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("demo");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo"),
        &root,
    );
    (dir, root)
}

fn ripple_command(root: &Path, env: &str) -> String {
    format!(
        "{env} '{}' '{}'; echo ripple-exited-$?; sleep 30",
        env!("CARGO_BIN_EXE_ripple"),
        root.display()
    )
}

macro_rules! require_tmux {
    () => {
        if !Tmux::available() {
            eprintln!("skipped: tmux is not installed (`.ci/run` installs it)");
            return;
        }
    };
}

#[test]
fn find_expand_depth_toggle_and_quit_in_a_real_terminal() {
    require_tmux!();
    let (_dir, root) = demo_copy();
    let t = Tmux::start("tour", &root, &ripple_command(&root, ""));
    t.wait_for("hotspots: most callers");
    t.wait_for("tokens.validate_token");

    // Find a function with the fuzzy finder.
    t.send(&["/"]);
    t.wait_for("find a declaration");
    t.type_text("validate_token");
    t.wait("finder results", |s| {
        s.contains("tokens.validate_token") && s.contains(" match")
    });
    t.send(&["Enter"]);
    // Tree first; source highlighting and the blast radius arrive from the worker.
    t.wait_for("callers of tokens.validate_token");
    t.wait("source and blast radius", |s| {
        s.contains("def validate_token") && s.contains("hop 1") && s.contains("tests ≤ depth")
    });

    // Expand the callers of the first caller that has any.
    t.send(&["j"]);
    t.send(&["l"]);
    t.wait("an expanded caller with second-hop rows", |s| {
        s.lines().filter(|l| l.contains("▾")).count() >= 2 && s.lines().any(|l| l.contains("│ 2 "))
    });

    // Change the depth of the blast radius.
    t.send(&["+"]);
    t.wait_for("depth 4 (+/-)");
    t.send(&["-", "-", "-"]);
    let s = t.wait_for("depth 1 (+/-)");
    assert!(
        !s.contains("hop 2 "),
        "depth 1 shows only direct callers:\n{s}"
    );

    // Callees instead of callers.
    t.send(&["c"]);
    t.wait_for("callees of tokens.validate_token");

    // Help, then quit: the terminal is handed back and ripple exits 0.
    t.send(&["?"]);
    t.wait_for("help (esc closes)");
    t.send(&["Escape"]);
    // An escape and a key that follow each other too closely read as one
    // alt-chord: let the help close before quitting.
    t.wait("help closed", |s| !s.contains("help (esc closes)"));
    t.send(&["q"]);
    let s = t.wait_for("ripple-exited-");
    assert!(s.contains("ripple-exited-0"), "{s}");
    assert!(t.alive());
    assert_eq!(t.pane("mouse_any_flag"), "0", "q left mouse tracking on");
    assert_eq!(
        t.pane("alternate_on"),
        "0",
        "q left the alternate screen on"
    );
}

#[test]
fn an_edit_on_disk_shows_up_without_a_restart() {
    require_tmux!();
    let (_dir, root) = demo_copy();
    let t = Tmux::start("watch", &root, &ripple_command(&root, ""));
    t.wait_for("hotspots: most callers");
    t.send(&["/"]);
    t.type_text("money.to_money");
    t.wait_for("/ money.to_money");
    t.send(&["Enter"]);
    t.wait_for("callers of money.to_money");
    let extra = "\n\ndef brand_new_caller_of_to_money(x):\n    return to_money(x)\n";
    let path = root.join("shop/billing/money.py");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(extra);
    std::fs::write(&path, text).unwrap();
    t.wait_for("brand_new_caller_of_to_money");
    t.send(&["C-c"]);
    let s = t.wait_for("ripple-exited-");
    assert!(s.contains("ripple-exited-0"), "ctrl-c quits cleanly:\n{s}");
}

impl Tmux {
    /// A pane format variable (`alternate_on`, `cursor_flag`, …).
    fn pane(&self, var: &str) -> String {
        let out = self
            .cmd()
            .args(["display-message", "-p", "-t", self.session])
            .arg(format!("#{{{var}}}"))
            .output()
            .expect("tmux display-message");
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }
}

#[cfg(unix)]
#[test]
fn sigterm_and_sighup_hand_the_terminal_back_before_exiting() {
    require_tmux!();
    for (signal, code) in [("TERM", 143), ("HUP", 129)] {
        let (dir, root) = demo_copy();
        let pid_file = dir.path().join("ripple.pid");
        // `exec` gives the explorer the shell's pid, which it writes first.
        let command = format!(
            "sh -c 'echo $$ > \"{}\"; exec \"{}\" \"{}\"'; echo ripple-exited-$?; sleep 30",
            pid_file.display(),
            env!("CARGO_BIN_EXE_ripple"),
            root.display()
        );
        let t = Tmux::start(&format!("signal-{signal}"), &root, &command);
        t.wait_for("hotspots: most callers");
        assert_eq!(t.pane("alternate_on"), "1");
        let pid = std::fs::read_to_string(&pid_file).unwrap();
        let killed = Command::new("kill")
            .args([&format!("-{signal}"), pid.trim()])
            .status()
            .unwrap();
        assert!(killed.success());
        let s = t.wait_for("ripple-exited-");
        assert!(
            s.contains(&format!("ripple-exited-{code}")),
            "SIG{signal}:\n{s}"
        );
        assert_eq!(
            t.pane("alternate_on"),
            "0",
            "SIG{signal} left the alternate screen on"
        );
        assert_eq!(
            t.pane("cursor_flag"),
            "1",
            "SIG{signal} left the cursor hidden"
        );
        assert_eq!(
            t.pane("mouse_any_flag"),
            "0",
            "SIG{signal} left mouse tracking on"
        );
    }
}

#[test]
fn piped_output_still_prints_the_text_overview() {
    // Not a terminal: the CLI keeps printing the overview (CI, scripts).
    let out = Command::new(env!("CARGO_BIN_EXE_ripple"))
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("hotspots"), "{text}");
}

/// An Anthropic stream carrying `text` in small deltas, properly ended.
fn anthropic_stream(text: &str) -> String {
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
    s.push_str(
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
    );
    s.push_str("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":321}}\n\n");
    s.push_str("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    s
}

const MIGRATION_REPLY: &str = "## Impact\nTwo callers in session.py now pass `leeway=30`.\n\n\
shop/auth/session.py\n```python\n<<<<<<< SEARCH\n    claims = validate_token(bearer_token(request))\n=======\n    claims = validate_token(bearer_token(request), leeway=30)\n>>>>>>> REPLACE\n```\n\n\
shop/auth/session.py\n```python\n<<<<<<< SEARCH\n    try:\n        validate_token(token)\n    except AuthError:\n=======\n    try:\n        validate_token(token, leeway=30)\n    except AuthError:\n>>>>>>> REPLACE\n```\n";

#[test]
fn migrate_review_write_and_undo_in_a_real_terminal() {
    require_tmux!();
    use common::fake_llm::{FakeLlm, Reply};
    let server = FakeLlm::start(vec![
        Reply::sse(&anthropic_stream(MIGRATION_REPLY)).in_pieces(7),
    ]);
    let (_dir, root) = demo_copy();
    std::fs::write(
        root.join("ripple.toml"),
        "[llm]\nprovider = \"anthropic\"\n\n[tests]\npython = \"sh -c 'echo ran {tests}'\"\n",
    )
    .unwrap();
    let session = root.join("shop/auth/session.py");
    let before = std::fs::read(&session).unwrap();
    // The endpoint is the user's choice, given on the command line.
    let t = Tmux::start(
        "migrate",
        &root,
        &ripple_command(&root, "ANTHROPIC_API_KEY=test").replacen(
            "'; echo",
            &format!("' --base-url '{}'; echo", server.base_url()),
            1,
        ),
    );
    t.wait_for("hotspots: most callers");
    t.send(&["/"]);
    t.wait_for("find a declaration");
    t.type_text("validate_token");
    t.wait("finder results", |s| {
        s.contains("tokens.validate_token") && s.contains(" match")
    });
    t.send(&["Enter"]);
    t.wait_for("callers of tokens.validate_token");

    t.send(&["m"]);
    t.wait_for("describe the change");
    t.type_text("add a required leeway: int parameter");
    t.send(&["Enter"]);
    t.wait("both hunks planned and the reply done", |s| {
        s.contains("2 hunk(s)") && s.contains("done ·") && s.contains("context:")
    });

    t.send(&["y"]);
    t.wait_for("1 accepted");
    t.send(&["w"]);
    t.wait_for("wrote 1 hunk(s) to 1 file(s)");
    let after = std::fs::read_to_string(&session).unwrap();
    assert!(
        after.contains("validate_token(bearer_token(request), leeway=30)"),
        "{after}"
    );

    // t runs the tests that reach the changed function, in the background.
    t.send(&["t"]);
    t.wait("the reaching tests ran and passed", |s| {
        s.contains("tests reaching tokens.validate_token")
            && s.contains("ran tests/test_api.py::")
            && s.contains("PASSED")
    });
    t.send(&["Escape"]);
    t.wait("the test pane closed", |s| !s.contains("tests reaching"));

    t.send(&["U"]);
    t.wait_for("undone: restored shop/auth/session.py");
    assert_eq!(std::fs::read(&session).unwrap(), before);

    t.send(&["q"]);
    t.wait_for("ripple-exited-0");
}

#[test]
fn tests_run_in_the_background_and_ctrl_c_cancels_then_search_finds() {
    require_tmux!();
    let (dir, root) = demo_copy();
    let marker = dir.path().join("finished");
    std::fs::write(
        root.join("ripple.toml"),
        format!(
            "[tests]\npython = \"sh -c 'echo ran {{tests}}; sleep 20; touch {}'\"\n",
            marker.display()
        ),
    )
    .unwrap();
    let t = Tmux::start("tests", &root, &ripple_command(&root, ""));
    t.wait_for("hotspots: most callers");
    t.send(&["/"]);
    t.type_text("RefundService.force_refund");
    t.wait_for("/ RefundService.force_refund");
    t.send(&["Enter"]);
    t.wait_for("callers of refunds.RefundService.force_refund");

    t.send(&["t"]);
    t.wait("the run streaming while the explorer stays live", |s| {
        s.contains("running… (esc cancels)")
            && s.contains(
                "ran tests/test_api.py::test_admin_endpoints tests/test_api.py::test_cart_checkout_and_invoice",
            )
    });
    // The first ctrl-c cancels the run (killing it), not the explorer.
    t.send(&["C-c"]);
    t.wait_for("cancelled");
    assert!(t.alive());
    t.send(&["Escape"]);
    t.wait("the test pane closed", |s| !s.contains("tests reaching"));

    // s: search by what code does, enter makes the result the root.
    t.send(&["s"]);
    t.wait_for("search by what it does");
    t.type_text("refund an order");
    t.wait_for("refunds.RefundService.refund_order");
    t.send(&["Enter"]);
    t.wait_for("callers of refunds.RefundService.refund_order");

    // Quitting during a run (ctrl-c cancels, a second one quits at once)
    // kills it too: no test process outlives the explorer.
    t.send(&["t"]);
    t.wait_for("running… (esc cancels)");
    t.send(&["C-c", "C-c"]);
    t.wait_for("ripple-exited-0");
    let ps = Command::new("ps").args(["-eo", "args"]).output().unwrap();
    let ps = String::from_utf8_lossy(&ps.stdout);
    assert!(
        !ps.lines()
            .any(|l| l.contains(&marker.display().to_string())),
        "a test process outlived the explorer:\n{ps}"
    );
}

#[cfg(unix)]
#[test]
fn e_hands_the_terminal_to_the_editor_and_takes_it_back() {
    use std::os::unix::fs::PermissionsExt;
    require_tmux!();
    let (dir, root) = demo_copy();
    let log = dir.path().join("editor.log");
    // The editor records its arguments and the terminal's state while it
    // runs, then adds a caller to the file; the second time it fails.
    let editor = dir.path().join("fake-editor");
    std::fs::write(
        &editor,
        format!(
            "#!/bin/sh\n\
             if [ -e '{log}' ]; then exit 3; fi\n\
             printf '%s\\n' \"$@\" > '{log}'\n\
             tmux display-message -p 'alternate=#{{alternate_on}} mouse=#{{mouse_any_flag}}' >> '{log}'\n\
             printf '\\n\\ndef added_in_the_editor(x):\\n    return to_money(x)\\n' >> \"$2\"\n",
            log = log.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&editor, std::fs::Permissions::from_mode(0o755)).unwrap();
    let env = format!("EDITOR='{}'", editor.display());
    let t = Tmux::start("editor", &root, &ripple_command(&root, &env));
    t.wait_for("hotspots: most callers");
    t.send(&["/"]);
    t.type_text("money.to_money");
    t.wait_for("/ money.to_money");
    t.send(&["Enter"]);
    t.wait_for("callers of money.to_money");
    assert_eq!(t.pane("mouse_any_flag"), "1");

    t.send(&["E"]);
    let s = t.wait_for("edited shop/billing/money.py:");
    let line = std::fs::read_to_string(root.join("shop/billing/money.py"))
        .unwrap()
        .lines()
        .position(|l| l.starts_with("def to_money"))
        .unwrap()
        + 1;
    let args = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        args,
        format!("+{line}\nshop/billing/money.py\nalternate=0 mouse=0\n"),
        "the editor runs on the main screen without mouse tracking"
    );
    assert!(s.contains("callers of money.to_money"), "{s}");
    // Back: the alternate screen, the mouse, and the index with the edit.
    t.wait_for("added_in_the_editor");
    assert_eq!(t.pane("alternate_on"), "1");
    assert_eq!(t.pane("mouse_any_flag"), "1");

    t.send(&["E"]);
    t.wait_for("exited with 3");
    assert!(t.alive());
    t.send(&["q"]);
    t.wait_for("ripple-exited-0");
}

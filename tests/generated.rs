//! Generated code is real code: the fixtures `tests/fixtures/{python,go}/generated`
//! hold generated files (a `_pb2.py` stub, an `@generated` module, a Go file
//! marked `Code generated … DO NOT EDIT.`) that hand-written code calls and
//! that call hand-written code back. Their edges are in the graph and their
//! declarations marked; review and search leave them out unless asked.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use crossterm::event::{Event as Input, KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ripple::tui::{App, Event, Jobs, Theme};
use serde_json::Value;

/// A private copy of a fixture (commands write `.ripple/` into it).
fn fixture(lang: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    common::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(lang)
            .join("generated"),
        &repo,
    );
    (dir, repo)
}

fn ripple(repo: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ripple"))
        .arg("--repo")
        .arg(repo)
        .args(args)
        .env_remove("RIPPLE_SEARCH_PROVIDER")
        .env_remove("OPENAI_API_KEY")
        .output()
        .expect("run ripple");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json(repo: &Path, args: &[&str]) -> Value {
    let (code, out, err) = ripple(repo, args);
    assert_eq!(code, 0, "ripple {args:?} failed: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
}

/// (name, generated) of every declaration a walk or blast document reaches.
fn reached(doc: &Value) -> Vec<(String, bool)> {
    doc["hops"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|h| h["decls"].as_array().unwrap())
        .map(|d| {
            (
                d["name"].as_str().unwrap().to_owned(),
                d.get("generated") == Some(&Value::Bool(true)),
            )
        })
        .collect()
}

#[test]
fn python_callers_and_blast_radius_go_through_generated_code() {
    let (_dir, repo) = fixture("python");
    let callers = json(&repo, &["callers", "app.codec.encode", "--json"]);
    assert_eq!(
        reached(&callers)[0],
        ("app.service_pb2.Request.SerializeToString".to_owned(), true),
        "{callers}"
    );
    let blast = json(
        &repo,
        &["blast", "app.codec.encode", "--depth", "4", "--json"],
    );
    let names = reached(&blast);
    // Through the generated stub to the hand-written client and the script.
    assert!(
        names.contains(&("app.service_pb2.serialize".to_owned(), true)),
        "{names:?}"
    );
    assert!(
        names.contains(&("app.client.send".to_owned(), false)),
        "{names:?}"
    );
    assert!(names.contains(&("main".to_owned(), false)), "{names:?}");
    assert!(blast["files"].as_array().unwrap().len() >= 3, "{blast}");
    // Records of hand-written code carry no `generated` key at all.
    assert!(blast["root"].get("generated").is_none(), "{blast}");
    let show = json(&repo, &["show", "app.registry.lookup", "--json"]);
    assert_eq!(show["generated"], true, "{show}");
    let show = json(&repo, &["show", "app.client.send", "--json"]);
    assert!(show.get("generated").is_none(), "{show}");

    let index = json(&repo, &["index", "--json"]);
    assert_eq!(index["generated_files"], 2, "{index}");
    assert!(
        index["skipped"].as_array().unwrap().is_empty(),
        "{}",
        index["skipped"]
    );
}

#[test]
fn go_callers_and_blast_radius_go_through_a_code_generated_file() {
    let (_dir, repo) = fixture("go");
    let callers = json(
        &repo,
        &["callers", "example.com/generated.describe", "--json"],
    );
    assert_eq!(
        reached(&callers),
        [("example.com/generated.Render".to_owned(), true)],
        "{callers}"
    );
    let blast = json(
        &repo,
        &["blast", "example.com/generated.describe", "--json"],
    );
    assert!(
        reached(&blast).contains(&("example.com/generated.main".to_owned(), false)),
        "{blast}"
    );
    let (code, out, _) = ripple(&repo, &["callers", "example.com/generated.describe"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("example.com/generated.Render [generated]"),
        "{out}"
    );
}

#[test]
fn review_dry_run_skips_generated_files_but_sends_their_signatures_as_context() {
    for (lang, generated) in [
        ("python", &["app/registry.py", "app/service_pb2.py"][..]),
        ("go", &["render.go"][..]),
    ] {
        let (_dir, repo) = fixture(lang);
        let plan = json(&repo, &["review", "--dry-run", "--json"]);
        let mut skipped: Vec<&str> = plan["skipped"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["reason"] == "generated")
            .map(|s| s["file"].as_str().unwrap())
            .collect();
        skipped.sort_unstable();
        assert_eq!(skipped, generated, "{lang}: {}", plan["skipped"]);
        let chunked: Vec<&str> = plan["chunks"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|c| c["files"].as_array().unwrap())
            .map(|f| f["path"].as_str().unwrap())
            .collect();
        assert!(!chunked.is_empty(), "{lang}: {plan}");
        for path in generated {
            assert!(!chunked.contains(path), "{lang}: {path} in {chunked:?}");
        }
        // Not reviewed, but in the graph: the signatures of the generated
        // functions the reviewed code calls go along as context.
        let signatures: u64 = plan["chunks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["context_signatures"].as_u64().unwrap())
            .sum();
        assert!(signatures > 0, "{lang}: {plan}");
    }
}

#[test]
fn search_and_similar_leave_generated_code_out_unless_asked() {
    let (_dir, repo) = fixture("python");
    let names = |doc: &Value| -> Vec<String> {
        doc["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let query = "serialize request";
    let plain = names(&json(&repo, &["search", query, "--json"]));
    assert!(
        plain.iter().all(|n| !n.starts_with("app.service_pb2")),
        "{plain:?}"
    );
    let all = json(&repo, &["search", query, "--include-generated", "--json"]);
    assert!(
        names(&all).iter().any(|n| n == "app.service_pb2.serialize"),
        "{all}"
    );
    let hit = all["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["name"] == "app.service_pb2.serialize")
        .unwrap();
    assert_eq!(hit["generated"], true, "{hit}");

    let similar = names(&json(&repo, &["similar", "app.codec.decode", "--json"]));
    assert!(
        similar.iter().all(|n| !n.starts_with("app.registry")),
        "{similar:?}"
    );
    let (code, out, err) = ripple(&repo, &["similar", "app.registry.lookup", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("--include-generated"), "{err}");
    let none: Value = serde_json::from_str(&out).unwrap();
    assert!(names(&none).is_empty(), "{none}");
    let similar = names(&json(
        &repo,
        &[
            "similar",
            "app.registry.lookup",
            "--include-generated",
            "--json",
        ],
    ));
    assert!(!similar.is_empty());
}

#[test]
fn the_explorer_marks_generated_callers_in_the_tree() {
    let (_dir, repo) = fixture("python");
    let db = tempfile::tempdir().unwrap();
    let snap = ripple::tui::load(&repo, Some(&db.path().join("index.db"))).unwrap();
    let mut app = App::new(repo.clone(), Jobs::inline(), Theme::no_color());
    app.resize(240, 20);
    app.handle(Event::indexed(snap));
    for c in "/app.codec.encode\n".chars() {
        let code = match c {
            '\n' => KeyCode::Enter,
            c => KeyCode::Char(c),
        };
        app.handle(Event::Input(Input::Key(KeyEvent::new(
            code,
            KeyModifiers::NONE,
        ))));
    }
    let mut term = Terminal::new(TestBackend::new(240, 20)).unwrap();
    term.draw(|f| app.draw(f)).unwrap();
    let screen = common::screen_text(term.backend().buffer(), |l| l.to_owned());
    let row = |needle: &str| -> &str {
        screen
            .lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no row with {needle}:\n{screen}"))
    };
    assert!(
        row("Request.SerializeToString").contains("[generated]"),
        "{screen}"
    );
    assert!(!row("codec.encode").contains("[generated]"), "{screen}");
}

/// A model's edit to a generated file is outside the change: the file's
/// generator is what to change, so `--apply` refuses it while the
/// hand-written caller's edit applies.
#[test]
fn a_migration_never_edits_a_generated_file() {
    use common::fake_llm::{FakeLlm, Reply};
    let (_dir, repo) = fixture("python");
    let reply = "## Impact\nBoth callers pass a prefix.\n\n\
app/service_pb2.py\n```python\n<<<<<<< SEARCH\n        return codec.encode(self.text)\n=======\n        return codec.encode(self.text, prefix='')\n>>>>>>> REPLACE\n```\n\n\
app/client.py\n```python\n<<<<<<< SEARCH\n    return service_pb2.serialize(text)\n=======\n    return service_pb2.serialize(text)  # unchanged call\n>>>>>>> REPLACE\n```\n";
    let stream = common::fake_llm::anthropic_stream(reply, 37);
    let server = FakeLlm::start(vec![Reply::sse(&stream)]);
    let stub = repo.join("app/service_pb2.py");
    let before = std::fs::read(&stub).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_ripple"))
        .arg("--repo")
        .arg(&repo)
        .args([
            "migrate",
            "codec.encode",
            "--change",
            "add a prefix parameter",
        ])
        .args(["--provider", "anthropic", "--base-url", &server.base_url()])
        .args(["--apply", "--json"])
        .env("ANTHROPIC_API_KEY", "test-key")
        .env("XDG_CONFIG_HOME", repo.join("no-config"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_str(&text).unwrap();
    let hunks = doc["outcome"]["hunks"].as_array().unwrap();
    let stub_hunk = hunks
        .iter()
        .find(|h| h["path"] == "app/service_pb2.py")
        .unwrap();
    assert!(
        stub_hunk["resolution"].get("Refused").is_some(),
        "the generated file's hunk was not refused: {stub_hunk}"
    );
    assert_eq!(std::fs::read(&stub).unwrap(), before);
}

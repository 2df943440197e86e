//! The migration review pane on ratatui's off-screen terminal: `m` on
//! validate_token, a change typed into the prompt, then the stream driven by
//! events (partial assessment, hunks planned one by one) and the user's
//! decisions — and the whole loop inline against the fake provider on a copy
//! of the demo (write, the file changed, undo, the file is back).

mod common;

use common::copy_dir;

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use common::fake_llm::{FakeLlm, Reply};
use crossterm::event::{Event as Input, KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ripple::conventions::Conventions;
use ripple::edits::{self, EditStreamParser, Hunk, HunkState};
use ripple::llm::trust::LlmFlags;
use ripple::tui::{
    App, Event, Finished, Jobs, MigrateMsg, MigrateUpdate, Migrator, Snapshot, Theme,
};

const W: u16 = 150;
const H: u16 = 44;

const ASSESSMENT: &str = "## Impact\nTwo callers in session.py pass the token through unchanged; they now pass `leeway=30`.\n\n";

const BLOCKS: &str = "shop/auth/session.py\n```python\n<<<<<<< SEARCH\n    claims = validate_token(bearer_token(request))\n=======\n    claims = validate_token(bearer_token(request), leeway=30)\n>>>>>>> REPLACE\n```\n\n\
shop/auth/session.py\n```python\n<<<<<<< SEARCH\n    try:\n        validate_token(token)\n    except AuthError:\n=======\n    try:\n        validate_token(token, leeway=30)\n    except AuthError:\n>>>>>>> REPLACE\n```\n\n\
shop/auth/session.py\n```python\n<<<<<<< SEARCH\n    this line is not in the file\n=======\n    nor this one\n>>>>>>> REPLACE\n```\n";

/// A block against the declaration itself, planned as a stable interface.
const STABLE_BLOCK: &str = "shop/auth/tokens.py\n```python\n<<<<<<< SEARCH\ndef validate_token(token):\n=======\ndef validate_token(token, leeway=0):\n>>>>>>> REPLACE\n```\n";

fn demo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo")
}

fn demo() -> Arc<Snapshot> {
    static DEMO: OnceLock<(tempfile::TempDir, Arc<Snapshot>)> = OnceLock::new();
    DEMO.get_or_init(|| {
        let db = tempfile::tempdir().unwrap();
        let snap = ripple::tui::load(&demo_root(), Some(&db.path().join("index.db"))).unwrap();
        (db, snap)
    })
    .1
    .clone()
}

/// Plan `reply`'s blocks against the demo (nothing is written).
fn plan(reply: &str, conventions: &Conventions) -> Vec<Hunk> {
    let mut parser = EditStreamParser::new();
    let mut blocks = parser.push(reply);
    blocks.extend(parser.finish().final_blocks);
    edits::plan(&demo_root(), &edits::Snapshot::new(), &blocks, conventions)
}

struct Ui {
    app: App,
    term: Terminal<TestBackend>,
}

impl Ui {
    fn on(snap: Arc<Snapshot>, migrator: Migrator) -> Ui {
        let mut app = App::new(snap.index.root.clone(), Jobs::inline(), Theme::dark());
        app.set_migrator(migrator);
        app.resize(W, H);
        app.handle(Event::indexed(snap));
        Ui {
            app,
            term: Terminal::new(TestBackend::new(W, H)).unwrap(),
        }
    }

    fn key_mod(&mut self, code: KeyCode, m: KeyModifiers) -> &mut Self {
        self.app
            .handle(Event::Input(Input::Key(KeyEvent::new(code, m))));
        self
    }

    fn keys(&mut self, keys: &str) -> &mut Self {
        for c in keys.chars() {
            self.key_mod(KeyCode::Char(c), KeyModifiers::NONE);
        }
        self
    }

    fn enter(&mut self) -> &mut Self {
        self.key_mod(KeyCode::Enter, KeyModifiers::NONE)
    }

    /// `/validate_token⏎`, `m`, the change, `⏎`.
    fn start(&mut self) -> &mut Self {
        self.keys("/validate_token").enter();
        self.keys("m").keys("add a required leeway: int parameter");
        self.enter()
    }

    fn send(&mut self, msg: MigrateMsg) -> &mut Self {
        let session = self.app.migration_session().expect("a review is open");
        self.app
            .handle(Event::Migrate(Box::new(MigrateUpdate { session, msg })));
        self
    }

    fn screen(&mut self) -> String {
        self.term.draw(|f| self.app.draw(f)).unwrap();
        common::screen_text(self.term.backend().buffer(), mask_graph_size)
    }
}

/// The header's declaration and edge counts follow the resolver, not the
/// review pane under test: mask them so engine improvements do not churn
/// these snapshots.
fn mask_graph_size(line: &str) -> String {
    let mut out = line.to_owned();
    for unit in [" declarations", " edges"] {
        if let Some(end) = out.find(unit) {
            let start = out[..end]
                .rfind(|c: char| !c.is_ascii_digit())
                .map(|i| i + 1)
                .unwrap_or(0);
            out.replace_range(start..end, "N");
        }
    }
    out
}

fn pack() -> MigrateMsg {
    MigrateMsg::Pack {
        pack_tokens: ripple::tokens::TokenCount(1_234),
        repo_tokens: ripple::tokens::TokenCount(45_678),
        provider: "Anthropic".to_owned(),
        model: "claude-test".to_owned(),
        files: Vec::new(),
    }
}

fn done() -> MigrateMsg {
    MigrateMsg::Done(Box::new(Finished {
        assessment: ASSESSMENT.to_owned(),
        truncated: false,
        truncation_note: None,
        discarded: Vec::new(),
        input_tokens: 900,
        output_tokens: 321,
        cost_usd: None,
    }))
}

#[test]
fn the_prompt_opens_on_m_and_shows_its_keys() {
    let mut ui = Ui::on(demo(), Migrator::Manual);
    ui.keys("/validate_token").enter();
    ui.keys("m").keys("add leeway");
    let screen = ui.screen();
    assert!(
        screen.contains("migrate the callers of tokens.validate_token"),
        "{screen}"
    );
    assert!(screen.contains("add leeway"), "{screen}");
    assert!(screen.contains("enter start the migration"), "{screen}");
    ui.key_mod(KeyCode::Esc, KeyModifiers::NONE);
    assert_eq!(ui.app.migration_session(), None);
}

#[test]
fn a_partial_stream_shows_the_assessment_so_far_and_the_first_hunk() {
    let hunks = plan(BLOCKS, &Conventions::default());
    let mut ui = Ui::on(demo(), Migrator::Manual);
    ui.start();
    let screen = ui.screen();
    assert!(screen.contains("building the context pack"), "{screen}");
    ui.send(pack()).send(MigrateMsg::Text(
        "## Impact\nTwo callers in session.py pass the tok".into(),
    ));
    let screen = ui.screen();
    assert!(
        screen.contains("Two callers in session.py pass the tok"),
        "{screen}"
    );
    assert!(screen.contains("no hunk planned yet"), "{screen}");
    ui.send(MigrateMsg::Text(
        "en through unchanged; they now pass `leeway=30`.\n\nshop/auth/session.py\n```python\n<<<<<<< SEARCH\n".into(),
    ))
    .send(MigrateMsg::Hunk(Box::new(hunks[0].clone())));
    let screen = ui.screen();
    assert!(!screen.contains("<<<<<<< SEARCH"), "{screen}");
    assert!(
        screen.contains("shop/auth/session.py:26 (exact)"),
        "{screen}"
    );
    insta::assert_snapshot!("migrate_partial_stream", screen);
}

#[test]
fn decisions_jump_to_the_next_hunk_stable_needs_a_second_y_and_the_tree_marks_accepted_callers() {
    let mut hunks = plan(BLOCKS, &Conventions::default());
    let stable = Conventions::parse(
        "[conventions]\nstable = [\"shop/auth/tokens.py\"]\n",
        Path::new("ripple.toml"),
    )
    .unwrap();
    let stable_hunk = plan(STABLE_BLOCK, &stable).remove(0);
    assert!(stable_hunk.is_stable());
    hunks.insert(2, stable_hunk);
    let mut ui = Ui::on(demo(), Migrator::Manual);
    ui.start()
        .send(pack())
        .send(MigrateMsg::Text(ASSESSMENT.into()));
    for h in &hunks {
        ui.send(MigrateMsg::Hunk(Box::new(h.clone())));
    }
    ui.send(done());
    // y accepts #1 and moves to #2; n rejects #2 and moves to the stable #3.
    ui.keys("yn");
    // The first y on a stable hunk only asks for confirmation.
    ui.keys("y");
    let screen = ui.screen();
    assert!(
        screen.contains("STABLE interface — press y again to confirm"),
        "{screen}"
    );
    assert!(screen.contains("✎ change accepted"), "{screen}");
    insta::assert_snapshot!("migrate_decided_stable_pending", screen);
    ui.keys("y");
    let screen = ui.screen();
    assert!(
        screen.contains("3 accepted") || screen.contains("2 accepted"),
        "{screen}"
    );
    assert!(screen.contains("1 rejected"), "{screen}");
    // Confirmed, it no longer asks for a confirmation.
    ui.keys("k");
    let screen = ui.screen();
    assert!(
        screen.contains("[accepted] STABLE interface — confirmed"),
        "{screen}"
    );
    assert!(!screen.contains("needs a second confirmation"), "{screen}");
    // u undoes the last decision (the stable acceptance).
    ui.keys("u");
    assert!(ui.screen().contains("1 accepted · 1 rejected"));
}

#[test]
fn a_conflict_shows_the_nearest_lines_and_cannot_be_accepted() {
    let hunks = plan(BLOCKS, &Conventions::default());
    let mut ui = Ui::on(demo(), Migrator::Manual);
    ui.start()
        .send(pack())
        .send(MigrateMsg::Text(ASSESSMENT.into()));
    ui.send(MigrateMsg::Hunk(Box::new(hunks[2].clone())))
        .send(done());
    ui.keys("y");
    let screen = ui.screen();
    assert!(screen.contains("a conflict cannot be accepted"), "{screen}");
    assert!(screen.contains("CONFLICT — cannot be accepted"), "{screen}");
    assert!(screen.contains("1 pending"), "{screen}");
    insta::assert_snapshot!("migrate_conflict", screen);
}

#[test]
fn a_truncated_reply_cannot_be_written() {
    let hunks = plan(BLOCKS, &Conventions::default());
    let mut ui = Ui::on(demo(), Migrator::Manual);
    ui.start().send(pack());
    ui.send(MigrateMsg::Hunk(Box::new(hunks[0].clone())));
    ui.send(MigrateMsg::Done(Box::new(Finished {
        assessment: String::new(),
        truncated: true,
        truncation_note: Some("stream ended without message_stop".into()),
        discarded: Vec::new(),
        input_tokens: 0,
        output_tokens: 0,
        cost_usd: None,
    })));
    ui.keys("yw");
    let screen = ui.screen();
    assert!(screen.contains("TRUNCATED reply"), "{screen}");
    assert!(screen.contains("nothing from it is written"), "{screen}");
}

// ---- the whole loop inline, against the fake provider ----

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

/// A private copy of the demo whose `ripple.toml` picks the Anthropic
/// provider; [`talking_to`] gives the explorer the fake server's address, as
/// `ripple --base-url` does.
fn demo_talking_to(_server: &FakeLlm) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("demo");
    copy_dir(&demo_root(), &root);
    std::fs::write(
        root.join("ripple.toml"),
        "[llm]\nprovider = \"anthropic\"\n",
    )
    .unwrap();
    (dir, root)
}

fn talking_to(server: &FakeLlm) -> LlmFlags {
    LlmFlags {
        base_url: Some(server.base_url()),
        ..LlmFlags::default()
    }
}

#[test]
fn an_untrusted_repository_cannot_send_the_request_elsewhere() {
    let server = FakeLlm::start(vec![Reply::sse(&anthropic_stream(ASSESSMENT))]);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("demo");
    copy_dir(&demo_root(), &root);
    std::fs::write(
        root.join("ripple.toml"),
        format!(
            "[llm]\nprovider = \"anthropic\"\nbase_url = \"{}\"\napi_key_env = \"HOME\"\n",
            server.base_url()
        ),
    )
    .unwrap();
    let snap = ripple::tui::load(&root, Some(&dir.path().join("index.db"))).unwrap();
    let mut ui = Ui::on(snap, Migrator::Inline);
    ui.start();
    let screen = ui.screen();
    assert!(screen.contains("ripple trust"), "{screen}");
    assert!(server.requests().is_empty(), "the request went out");
}

#[test]
fn accept_write_and_undo_against_the_fake_provider() {
    let server = FakeLlm::start(vec![Reply::sse(&anthropic_stream(&format!(
        "{ASSESSMENT}{BLOCKS}"
    )))]);
    let (dir, root) = demo_talking_to(&server);
    let session = root.join("shop/auth/session.py");
    let before = std::fs::read(&session).unwrap();
    let snap = ripple::tui::load(&root, Some(&dir.path().join("index.db"))).unwrap();
    let mut ui = Ui::on(snap, Migrator::Inline);
    ui.app.set_llm_flags(talking_to(&server));
    ui.start();
    let screen = ui.screen();
    assert!(screen.contains("3 hunk(s)"), "{screen}");
    assert!(screen.contains("context:"), "{screen}");
    assert!(screen.contains("done · 900 in / 321 out"), "{screen}");
    ui.keys("y").keys("w");
    let screen = ui.screen();
    assert!(
        screen.contains("wrote 1 hunk(s) to 1 file(s): shop/auth/session.py"),
        "{screen}"
    );
    assert!(screen.contains("[written]"), "{screen}");
    let after = std::fs::read_to_string(&session).unwrap();
    assert!(after.contains("validate_token(bearer_token(request), leeway=30)"));
    ui.keys("U");
    assert_eq!(std::fs::read(&session).unwrap(), before);
    assert!(
        ui.screen()
            .contains("undone: restored shop/auth/session.py")
    );
    let _ = HunkState::Pending;
}

#[test]
fn e_edits_a_replacement_in_place_and_the_hunk_is_re_planned() {
    let hunks = plan(BLOCKS, &Conventions::default());
    let mut ui = Ui::on(demo(), Migrator::Manual);
    ui.start()
        .send(pack())
        .send(MigrateMsg::Text(ASSESSMENT.into()));
    ui.send(MigrateMsg::Hunk(Box::new(hunks[0].clone())))
        .send(done());
    ui.keys("e");
    let screen = ui.screen();
    assert!(screen.contains("edit the replacement"), "{screen}");
    assert!(screen.contains("ctrl-s save the replacement"), "{screen}");
    // Esc discards: the hunk is unchanged.
    ui.key_mod(KeyCode::End, KeyModifiers::NONE)
        .keys(" # lost")
        .key_mod(KeyCode::Esc, KeyModifiers::NONE);
    assert!(!ui.screen().contains("# lost"));
    // Edit again, save: re-planned against the file, undecided, acceptable.
    ui.keys("e")
        .key_mod(KeyCode::End, KeyModifiers::NONE)
        .keys("  # checked by hand");
    insta::assert_snapshot!("migrate_hunk_editor", ui.screen());
    ui.key_mod(KeyCode::Char('s'), KeyModifiers::CONTROL);
    let screen = ui.screen();
    assert!(
        screen.contains("edited hunk re-planned against the file; y accepts it"),
        "{screen}"
    );
    assert!(
        screen.contains(
            "+    claims = validate_token(bearer_token(request), leeway=30)  # checked by hand"
        ),
        "{screen}"
    );
    assert!(screen.contains("1 pending"), "{screen}");
    ui.keys("y");
    assert!(ui.screen().contains("1 accepted"));
}

#[test]
fn an_emptied_replacement_is_re_planned_as_a_deletion() {
    let hunks = plan(BLOCKS, &Conventions::default());
    let mut ui = Ui::on(demo(), Migrator::Manual);
    ui.start().send(pack());
    ui.send(MigrateMsg::Hunk(Box::new(hunks[0].clone())))
        .send(done());
    // Deleting the whole replacement is allowed (an empty REPLACE deletes).
    ui.keys("e")
        .key_mod(KeyCode::Char('a'), KeyModifiers::CONTROL)
        .key_mod(KeyCode::Char('k'), KeyModifiers::CONTROL)
        .key_mod(KeyCode::Char('s'), KeyModifiers::CONTROL);
    let screen = ui.screen();
    assert!(screen.contains("re-planned"), "{screen}");
    assert!(
        screen.contains("-    claims = validate_token(bearer_token(request))"),
        "{screen}"
    );
}

/// A reply whose one block drops a closing parenthesis.
const BROKEN_BLOCK: &str = "shop/auth/session.py\n```python\n<<<<<<< SEARCH\n    claims = validate_token(bearer_token(request))\n=======\n    claims = validate_token(bearer_token(request), leeway=30\n>>>>>>> REPLACE\n```\n";

#[test]
fn a_written_hunk_that_breaks_the_syntax_is_flagged_and_the_index_refreshes() {
    let server = FakeLlm::start(vec![Reply::sse(&anthropic_stream(&format!(
        "{ASSESSMENT}{BROKEN_BLOCK}"
    )))]);
    let (dir, root) = demo_talking_to(&server);
    let (tx, rx) = std::sync::mpsc::channel();
    let mut app = App::new(root.clone(), Jobs::inline(), Theme::dark());
    app.set_migrator(Migrator::Inline);
    app.set_llm_flags(talking_to(&server));
    app.set_indexer(ripple::tui::Indexer::spawn(
        root.clone(),
        Some(dir.path().join("index.db")),
        tx,
    ));
    app.resize(W, H);
    let mut ui = Ui {
        app,
        term: Terminal::new(TestBackend::new(W, H)).unwrap(),
    };
    let wait_for_index = |ui: &mut Ui, after: Option<Arc<Snapshot>>| -> Arc<Snapshot> {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            if let Some(s) = ui.app.snapshot()
                && after.as_ref().is_none_or(|a| !Arc::ptr_eq(a, s))
            {
                return s.clone();
            }
            assert!(std::time::Instant::now() < deadline, "no index");
            if let Ok(ev) = rx.recv_timeout(std::time::Duration::from_millis(50)) {
                ui.app.handle(ev);
            }
        }
    };
    let before = wait_for_index(&mut ui, None);
    assert!(before.index.stats.files_with_syntax_errors.is_empty());
    ui.start();
    assert!(ui.screen().contains("1 hunk(s)"));
    ui.keys("yw");
    let screen = ui.screen();
    assert!(
        screen.contains("SYNTAX ERROR introduced in shop/auth/session.py"),
        "{screen}"
    );
    assert!(
        screen.contains("SYNTAX ERROR — shop/auth/session.py has"),
        "{screen}"
    );
    assert!(
        screen.contains("syntax error(s) after the write (was"),
        "{screen}"
    );
    // The write triggers a refresh: the new index sees the broken file, and
    // the tree is kept on validate_token.
    let after = wait_for_index(&mut ui, Some(before));
    assert!(
        after
            .index
            .stats
            .files_with_syntax_errors
            .iter()
            .any(|(p, _)| p == "shop/auth/session.py"),
        "{:?}",
        after.index.stats.files_with_syntax_errors
    );
    assert_eq!(
        after.name(ui.app.root().unwrap()),
        "shop.auth.tokens.validate_token"
    );
    let screen = ui.screen();
    assert!(!screen.contains("refreshing"), "{screen}");
    // The flag stays on the written hunk until U restores the file.
    assert!(screen.contains("SYNTAX ERROR"), "{screen}");
    ui.keys("U");
    let screen = ui.screen();
    assert!(screen.contains("undone: restored"), "{screen}");
    assert!(!screen.contains("SYNTAX ERROR —"), "{screen}");
}

#[test]
fn hunks_beyond_the_change_are_marked_and_never_accepted_with_their_file() {
    let reply = "shop/auth/session.py\n```python\n<<<<<<< SEARCH\n    claims = validate_token(bearer_token(request))\n=======\n    claims = validate_token(bearer_token(request), leeway=30)\n>>>>>>> REPLACE\n```\n\n\
shop/orders/pricing.py\n```python\n<<<<<<< SEARCH\n\"\"\"Catalog lookup, coupons and order totals.\"\"\"\n=======\n\"\"\"Catalog lookup.\"\"\"\n>>>>>>> REPLACE\n```\n\n\
shop/evil.py\n```python\n<<<<<<< SEARCH\n=======\nimport os\n>>>>>>> REPLACE\n```\n\n\
shop/auth/session.py\n<<<<<<< SEARCH\n    try:\n";
    let mut parser = EditStreamParser::new();
    let mut blocks = parser.push(reply);
    let summary = parser.finish();
    blocks.extend(summary.final_blocks);
    let conventions = Conventions::default();
    let mut planner = edits::Planner::new(&demo_root(), edits::Snapshot::new(), &conventions)
        .with_pack(
            ["shop/auth/session.py".to_owned()],
            edits::OutsidePolicy::Review,
        );
    let hunks: Vec<Hunk> = blocks.iter().map(|b| planner.plan_block(b)).collect();
    assert!(hunks.iter().all(Hunk::is_resolved), "{hunks:?}");
    assert_eq!(hunks[1].scope, edits::Scope::Outside);
    assert_eq!(hunks[2].scope, edits::Scope::NewFile);

    let mut ui = Ui::on(demo(), Migrator::Manual);
    ui.start().send(pack());
    for h in &hunks {
        ui.send(MigrateMsg::Hunk(Box::new(h.clone())));
    }
    ui.send(MigrateMsg::Done(Box::new(Finished {
        assessment: String::new(),
        truncated: false,
        truncation_note: None,
        discarded: summary.discarded,
        input_tokens: 1,
        output_tokens: 1,
        cost_usd: None,
    })));
    let screen = ui.screen();
    assert!(screen.contains("1 malformed block(s) dropped"), "{screen}");
    assert!(
        screen.contains("dropped a malformed block: reply line 28 (shop/auth/session.py)"),
        "{screen}"
    );
    assert!(screen.contains("OUTSIDE THE CHANGE"), "{screen}");
    assert!(screen.contains("NEW FILE"), "{screen}");
    // `a` takes the session.py hunk, then refuses to sweep up pricing.py's.
    ui.keys("a").keys("a");
    let screen = ui.screen();
    assert!(screen.contains("1 accepted"), "{screen}");
    assert!(screen.contains("need a decision of their own"), "{screen}");
    ui.keys("y");
    assert!(ui.screen().contains("2 accepted"));
}

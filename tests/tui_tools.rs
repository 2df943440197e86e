//! The explorer's tools on a copy of the demo with a `ripple.toml`:
//! convention badges in the call tree, `t` running the tests that reach a
//! declaration (through shell commands configured in `[tests]`, so neither
//! pytest nor go is needed), `R` listing the last review's findings and
//! jumping to them, `s` searching by what code does and `S` listing
//! similar declarations. Screens are drawn on ratatui's off-screen terminal.

mod common;

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use common::copy_dir;
use crossterm::event::{
    Event as Input, KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ripple::tui::{App, Event, Jobs, Snapshot, TestRunner, Theme};

const W: u16 = 150;
const H: u16 = 40;

/// Python tests "fail" (exit 1) and Go tests "pass", each echoing the ids
/// it was given, so one fixture shows both outcomes.
const RIPPLE_TOML: &str = r#"
[conventions]
stable     = ["symbol:shop.auth.tokens.validate_token"]
active     = ["shop/billing/**"]
off_limits = ["tests/test_auth.py"]

[tests]
python = "sh -c 'echo ran {tests}; exit 1'"
go     = "sh -c 'echo go \"{names}\" in {packages}'"
"#;

struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    snap: Arc<Snapshot>,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("demo");
        copy_dir(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo"),
            &root,
        );
        std::fs::write(root.join("ripple.toml"), RIPPLE_TOML).unwrap();
        std::fs::create_dir_all(root.join(".ripple")).unwrap();
        std::fs::write(
            ripple::review::last::path(&root),
            serde_json::json!({
                "root": root.display().to_string(),
                "mode": "repository",
                "figures": {},
                "findings": [
                    {"file": "internal/auth/token.go", "start_line": 120, "end_line": 121,
                     "severity": "minor", "category": "style", "message": "error wraps lose the token id",
                     "confidence": 0.6, "chunks": [2]},
                    {"file": "shop/billing/refunds.py", "start_line": 60, "end_line": 62,
                     "severity": "critical", "category": "security",
                     "message": "force_refund skips the admin check when the order is unpaid\nmore detail",
                     "confidence": 0.9, "chunks": [1]},
                    {"file": "shop/auth/tokens.py", "start_line": 90, "end_line": 90,
                     "severity": "major", "category": "bug", "message": "expiry compared with <= lets a token live one second too long",
                     "suggestion": "use <", "confidence": 0.8, "chunks": [0]}
                ],
                "chunks": [], "not_covered": [], "skipped": [], "notes": []
            })
            .to_string(),
        )
        .unwrap();
        let snap = ripple::tui::load(&root, Some(&dir.path().join("index.db"))).unwrap();
        Fixture {
            _dir: dir,
            root,
            snap,
        }
    })
}

struct Ui {
    app: App,
    term: Terminal<TestBackend>,
}

impl Ui {
    fn new() -> Ui {
        Ui::sized(W, H)
    }

    fn sized(w: u16, h: u16) -> Ui {
        let snap = fixture().snap.clone();
        let mut app = App::new(snap.index.root.clone(), Jobs::inline(), Theme::dark());
        app.resize(w, h);
        app.handle(Event::indexed(snap));
        Ui {
            app,
            term: Terminal::new(TestBackend::new(w, h)).unwrap(),
        }
    }

    fn key_mod(&mut self, code: KeyCode, m: KeyModifiers) -> &mut Self {
        self.app
            .handle(Event::Input(Input::Key(KeyEvent::new(code, m))));
        self
    }

    fn key(&mut self, code: KeyCode) -> &mut Self {
        self.key_mod(code, KeyModifiers::NONE)
    }

    fn keys(&mut self, keys: &str) -> &mut Self {
        for c in keys.chars() {
            self.key(KeyCode::Char(c));
        }
        self
    }

    /// A left click on the first cell showing `text`.
    fn click_on(&mut self, text: &str) -> &mut Self {
        let screen = self.screen();
        let (row, line) = screen
            .lines()
            .enumerate()
            .find(|(_, l)| l.contains(text))
            .unwrap_or_else(|| panic!("{text:?} is not on the screen:\n{screen}"));
        let col = line[..line.find(text).unwrap()].chars().count();
        self.app.handle(Event::Input(Input::Mouse(MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column: col as u16,
            row: row as u16,
            modifiers: KeyModifiers::NONE,
        })));
        self
    }

    /// `/query⏎`: make the finder's best match the root.
    fn root(&mut self, query: &str) -> &mut Self {
        self.keys("/").keys(query).key(KeyCode::Enter)
    }

    fn screen(&mut self) -> String {
        self.term.draw(|f| self.app.draw(f)).unwrap();
        common::screen_text(self.term.backend().buffer(), mask_header)
    }
}

/// The header names the temporary copy and counts the whole graph: neither
/// is what these screens test.
fn mask_header(line: &str) -> String {
    match line.find(" · ") {
        Some(i) => {
            let rest = &line[i..];
            let rest = rest.split_once(" edges").map_or(rest, |(_, r)| r);
            format!(" ripple <demo copy> …{rest}")
        }
        None => line.to_owned(),
    }
}

// ---- convention badges ----

#[test]
fn the_tree_shows_convention_badges() {
    // Wide enough for the longest rows' badges.
    let mut ui = Ui::sized(240, 36);
    ui.root("validate_token");
    let screen = ui.screen();
    assert!(
        screen.contains("tokens.validate_token [stable]"),
        "{screen}"
    );
    assert!(screen.contains("[off-limits]"), "{screen}");
    ui.root("RefundService.force_refund").keys("c");
    let screen = ui.screen();
    assert!(screen.contains("[active]"), "{screen}");
    ui.keys("c").root("validate_token");
    insta::assert_snapshot!("tree_badges", ui.screen());
}

// ---- t: the tests that reach a declaration ----

#[test]
fn t_runs_the_reaching_python_tests_by_node_id_and_shows_the_failure() {
    let mut ui = Ui::new();
    ui.root("RefundService.force_refund").keys("t");
    assert!(!ui.app.tests_running());
    let screen = ui.screen();
    // Exactly the tests `ripple tests` lists, as pytest node ids, in one call.
    assert!(
        screen.contains(
            "ran tests/test_api.py::test_admin_endpoints tests/test_api.py::test_cart_checkout_and_invoice"
        ),
        "{screen}"
    );
    // Since session 12 the API's route table reaches all its handlers, so
    // every API test reaches force_refund through `dispatch` (13 in all).
    assert!(screen.contains("13 run in 1 command "), "{screen}");
    assert!(screen.contains("FAILED (exit 1)"), "{screen}");
    // The command is longer than the pane is wide: it wraps, its end shows.
    assert!(
        screen.contains("tests/test_billing.py::test_goodwill_refund_needs_admin; exit 1'"),
        "{screen}"
    );
    insta::assert_snapshot!("tests_failed", screen);
    ui.key(KeyCode::Esc);
    assert!(!ui.screen().contains("tests reaching"));
}

#[test]
fn wrapped_test_output_scrolls_by_screen_rows() {
    let mut ui = Ui::sized(90, 16);
    ui.root("RefundService.force_refund").keys("t");
    let tail = ui.screen();
    assert!(tail.contains("[exit 1]"), "the tail is followed:\n{tail}");
    assert!(!tail.contains("$ sh -c"), "{tail}");
    ui.key_mod(KeyCode::Char('u'), KeyModifiers::CONTROL)
        .key_mod(KeyCode::Char('u'), KeyModifiers::CONTROL)
        .key_mod(KeyCode::Char('u'), KeyModifiers::CONTROL);
    let top = ui.screen();
    assert!(
        top.contains("$ sh -c 'echo ran tests/test_api.py::"),
        "{top}"
    );
    assert!(!top.contains("[exit 1]"), "{top}");
    ui.key_mod(KeyCode::Char('d'), KeyModifiers::CONTROL)
        .key_mod(KeyCode::Char('d'), KeyModifiers::CONTROL)
        .key_mod(KeyCode::Char('d'), KeyModifiers::CONTROL);
    assert!(ui.screen().contains("[exit 1]"), "back at the tail");
}

#[test]
fn t_runs_go_tests_once_per_package_and_shows_the_pass() {
    let mut ui = Ui::new();
    ui.root("auth.StatusFor").keys("t");
    let screen = ui.screen();
    assert!(
        screen.contains("go TestAuthorizeAndOwnerOrRole|TestMiddleware in ./internal/auth"),
        "{screen}"
    );
    assert!(
        screen.lines().any(|l| l.contains("│go ")
            && l.contains("TestRecovererAndStatusMapping")
            && l.contains(" in ./internal/httpapi")),
        "{screen}"
    );
    // TestMiddleware's subtests run the wrapped handlers through t.Run,
    // and the server tests reach the handlers the routes hand to the mux.
    assert!(
        screen.contains("go TestRunIssuesToken in ./cmd/shipd"),
        "{screen}"
    );
    assert!(screen.contains("8 run in 3 commands"), "{screen}");
    assert!(screen.contains("PASSED"), "{screen}");
    insta::assert_snapshot!("tests_passed", screen);
}

#[test]
fn a_declaration_no_test_reaches_says_so() {
    let mut ui = Ui::new();
    ui.root("TestAuthorizeAndOwnerOrRole").keys("t");
    let screen = ui.screen();
    assert!(screen.contains("no test reaches"), "{screen}");
    assert!(ui.app.test_session().is_none());
}

#[test]
fn a_running_test_run_streams_and_esc_kills_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("demo");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo"),
        &root,
    );
    let marker = dir.path().join("still-running");
    std::fs::write(
        root.join("ripple.toml"),
        format!(
            "[tests]\npython = \"sh -c 'echo started {{tests}}; sleep 3; touch {}'\"\n",
            marker.display()
        ),
    )
    .unwrap();
    let snap = ripple::tui::load(&root, Some(&dir.path().join("index.db"))).unwrap();
    let (tx, rx) = mpsc::channel();
    let mut app = App::new(root.clone(), Jobs::inline(), Theme::no_color());
    app.set_test_runner(TestRunner::Thread(tx));
    app.resize(W, H);
    app.handle(Event::indexed(snap));
    let mut ui = Ui {
        app,
        term: Terminal::new(TestBackend::new(W, H)).unwrap(),
    };
    ui.root("RefundService.force_refund").keys("t");
    assert!(ui.app.tests_running());
    // The UI is not blocked: output arrives as events while the child runs.
    let deadline = Instant::now() + Duration::from_secs(10);
    while !ui.screen().contains("started tests/test_api.py") {
        assert!(Instant::now() < deadline, "no output:\n{}", ui.screen());
        if let Ok(ev) = rx.recv_timeout(Duration::from_millis(50)) {
            ui.app.handle(ev);
        }
    }
    let screen = ui.screen();
    assert!(screen.contains("running… (esc cancels)"), "{screen}");
    ui.key(KeyCode::Esc);
    let deadline = Instant::now() + Duration::from_secs(5);
    while ui.app.tests_running() {
        assert!(Instant::now() < deadline, "not cancelled:\n{}", ui.screen());
        if let Ok(ev) = rx.recv_timeout(Duration::from_millis(50)) {
            ui.app.handle(ev);
        }
    }
    assert!(ui.screen().contains("cancelled"));
    std::thread::sleep(Duration::from_millis(3_500));
    assert!(!marker.exists(), "the child outlived the cancel");
    // Esc again closes the finished pane.
    ui.key(KeyCode::Esc);
    assert!(!ui.screen().contains("tests reaching"));
}

// ---- R: the last review's findings ----

#[test]
fn r_lists_findings_by_severity_and_enter_jumps_to_the_code() {
    let mut ui = Ui::new();
    ui.root("issue_token").keys("R");
    let screen = ui.screen();
    let critical = screen.find("critical").unwrap();
    let major = screen.find("major ").unwrap();
    let minor = screen.find("minor ").unwrap();
    assert!(critical < major && major < minor, "{screen}");
    assert!(screen.contains("shop/billing/refunds.py:60"), "{screen}");
    insta::assert_snapshot!("findings_list", screen);
    // The critical one is first: enter makes force_refund the root and marks line 60.
    ui.key(KeyCode::Enter);
    let snap = &fixture().snap;
    let root = ui.app.root().unwrap();
    assert_eq!(
        snap.name(root),
        "shop.billing.refunds.RefundService.force_refund"
    );
    let screen = ui.screen();
    assert!(
        screen.contains("critical: force_refund skips the admin check"),
        "{screen}"
    );
    assert!(
        screen.lines().any(|l| l.contains("60 ▶")),
        "line 60 is marked:\n{screen}"
    );
    insta::assert_snapshot!("findings_jump", screen);
    // j moves to the next finding; enter on a Go line roots its function.
    ui.keys("R").keys("jj").key(KeyCode::Enter);
    assert_eq!(
        snap.name(ui.app.root().unwrap()),
        "github.com/acme/shipd/internal/auth.ValidateToken"
    );
}

#[test]
fn a_click_picks_a_finding_or_a_search_result() {
    let snap = &fixture().snap;
    let mut ui = Ui::new();
    ui.root("issue_token").keys("R");
    ui.click_on("internal/auth").key(KeyCode::Enter);
    assert_eq!(
        snap.name(ui.app.root().unwrap()),
        "github.com/acme/shipd/internal/auth.ValidateToken"
    );
    ui.keys("s").keys("refund an order");
    // The third result (the cursor starts on the first).
    ui.click_on("refunds.RefundService.force_refund ")
        .key(KeyCode::Enter);
    assert_eq!(
        snap.name(ui.app.root().unwrap()),
        "shop.billing.refunds.RefundService.force_refund"
    );
}

#[test]
fn r_without_a_review_says_how_to_get_one() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("demo");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo"),
        &root,
    );
    let snap = ripple::tui::load(&root, Some(&dir.path().join("index.db"))).unwrap();
    let mut app = App::new(root, Jobs::inline(), Theme::no_color());
    app.resize(W, H);
    app.handle(Event::indexed(snap));
    let mut ui = Ui {
        app,
        term: Terminal::new(TestBackend::new(W, H)).unwrap(),
    };
    ui.keys("R");
    let screen = ui.screen();
    assert!(
        screen.contains("no review has been run here yet: `ripple review`"),
        "{screen}"
    );
    // Enter on an empty list does nothing; esc closes.
    ui.key(KeyCode::Enter).key(KeyCode::Esc);
    assert!(!ui.screen().contains("findings of the last review"));
}

// ---- s and S: search ----

#[test]
fn s_searches_as_you_type_and_enter_makes_a_result_the_root() {
    let mut ui = Ui::new();
    ui.root("issue_token").keys("s");
    let screen = ui.screen();
    assert!(screen.contains("search by what it does"), "{screen}");
    assert!(screen.contains("type what the code does"), "{screen}");
    ui.keys("refund an order");
    let screen = ui.screen();
    assert!(
        screen.contains("refunds.RefundService.refund_order"),
        "{screen}"
    );
    insta::assert_snapshot!("search_results", screen);
    // Live: each key re-ranks; backspace too.
    ui.key(KeyCode::Backspace);
    assert!(ui.screen().contains("s refund an orde▏"));
    ui.keys("r").key(KeyCode::Enter);
    let snap = &fixture().snap;
    assert_eq!(
        snap.name(ui.app.root().unwrap()),
        "shop.billing.refunds.RefundService.refund_order"
    );
    assert!(!ui.screen().contains("search by what it does"));
}

#[test]
fn capital_s_lists_declarations_similar_to_the_selected_one() {
    let mut ui = Ui::new();
    ui.root("validate_token").keys("S");
    let screen = ui.screen();
    assert!(
        screen.contains("similar to tokens.validate_token"),
        "{screen}"
    );
    let go = screen.find("auth.ValidateToken").unwrap();
    let issue = screen.find("tokens.issue_token").unwrap();
    assert!(go < issue, "{screen}");
    insta::assert_snapshot!("similar_results", screen);
    ui.key(KeyCode::Down).key(KeyCode::Esc);
    assert!(!ui.screen().contains("similar to"));
    ui.keys("S").key(KeyCode::Enter);
    let snap = &fixture().snap;
    assert_eq!(
        snap.name(ui.app.root().unwrap()),
        "github.com/acme/shipd/internal/auth.ValidateToken"
    );
}

#[test]
fn the_search_index_is_built_off_the_ui_thread_in_the_explorer() {
    let (tx, rx) = mpsc::channel();
    let snap = fixture().snap.clone();
    let mut app = App::new(fixture().root.clone(), Jobs::spawn(tx), Theme::no_color());
    app.resize(W, H);
    app.handle(Event::indexed(snap));
    let mut ui = Ui {
        app,
        term: Terminal::new(TestBackend::new(W, H)).unwrap(),
    };
    ui.keys("s").keys("refund");
    let deadline = Instant::now() + Duration::from_secs(20);
    while !ui.screen().contains("refunds.RefundService") {
        assert!(Instant::now() < deadline, "no results:\n{}", ui.screen());
        if let Ok(ev) = rx.recv_timeout(Duration::from_millis(50)) {
            ui.app.handle(ev);
        }
    }
}

/// The demo with an embedding provider configured at `base_url`, loaded,
/// in an explorer whose jobs run on threads as in the real one (or, with
/// `inline`, at once on the caller's).
fn explorer_with_embeddings(
    base_url: &str,
    inline: bool,
) -> (tempfile::TempDir, Ui, mpsc::Receiver<Event>) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("demo");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo"),
        &root,
    );
    std::fs::write(
        root.join("ripple.toml"),
        format!(
            "[search]\nprovider = \"openai\"\nmodel = \"fake-embed\"\nbase_url = \"{base_url}\"\n"
        ),
    )
    .unwrap();
    let snap = ripple::tui::load(&root, Some(&dir.path().join("index.db"))).unwrap();
    let (tx, rx) = mpsc::channel();
    let jobs = if inline {
        Jobs::inline()
    } else {
        Jobs::spawn(tx)
    };
    let mut app = App::new(root, jobs, Theme::no_color());
    app.resize(W, H);
    app.handle(Event::indexed(snap));
    let ui = Ui {
        app,
        term: Terminal::new(TestBackend::new(W, H)).unwrap(),
    };
    (dir, ui, rx)
}

/// Feed the explorer its events until the screen shows every one of `want`.
fn wait_for(ui: &mut Ui, rx: &mpsc::Receiver<Event>, want: &[&str]) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let screen = ui.screen();
        if want.iter().all(|w| screen.contains(w)) {
            return screen;
        }
        assert!(Instant::now() < deadline, "waiting for {want:?}:\n{screen}");
        if let Ok(ev) = rx.recv_timeout(Duration::from_millis(50)) {
            ui.app.handle(ev);
        }
    }
}

#[test]
fn search_embeds_in_the_background_then_fuses_the_model_in() {
    use std::sync::atomic::Ordering;
    let server = common::fake_embed::fake_server();
    let (_dir, mut ui, rx) =
        explorer_with_embeddings(&format!("http://127.0.0.1:{}", server.port), false);
    ui.keys("s").keys("refund");
    let screen = wait_for(
        &mut ui,
        &rx,
        &["by words + fake-embed", "refunds.RefundService"],
    );
    assert!(!screen.contains("embedding failed"), "{screen}");
    // Every searchable declaration of the demo was embedded, then the query.
    let embedded = server.inputs.load(Ordering::SeqCst);
    assert!(embedded > 50, "only {embedded} texts embedded");
    // Each keystroke is a query the model embeds too.
    ui.keys("s");
    wait_for(&mut ui, &rx, &["s refunds▏", "by words + fake-embed"]);
    let deadline = Instant::now() + Duration::from_secs(30);
    while server.inputs.load(Ordering::SeqCst) == embedded {
        assert!(Instant::now() < deadline, "the query was not embedded");
        if let Ok(ev) = rx.recv_timeout(Duration::from_millis(50)) {
            ui.app.handle(ev);
        }
    }
}

/// A port nothing listens on any more.
fn closed_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn search_stays_by_words_when_the_embedding_provider_is_down() {
    for inline in [false, true] {
        let url = format!("http://127.0.0.1:{}", closed_port());
        let (_dir, mut ui, rx) = explorer_with_embeddings(&url, inline);
        ui.keys("s").keys("refund");
        let screen = wait_for(
            &mut ui,
            &rx,
            &["by words (embedding failed)", "refunds.RefundService"],
        );
        // Inline, the answer comes before the query is typed, whose keys
        // then clear the status message.
        assert!(
            inline || screen.contains("search by words only: fake-embed"),
            "{screen}"
        );
    }
}

#[test]
fn the_blast_pane_and_t_count_the_same_tests() {
    let snap = &fixture().snap;
    let root = snap.by_name["shop.auth.tokens.validate_token"];
    let all = snap
        .index
        .graph
        .tests_reaching(&snap.index.res, root, 0)
        .len();
    let within = snap
        .index
        .graph
        .tests_reaching(&snap.index.res, root, 1)
        .len();
    assert!(within < all, "the fixture must have tests beyond hop 1");
    let mut ui = Ui::new();
    ui.root("validate_token").keys("--");
    let screen = ui.screen();
    assert!(
        screen.contains(&format!("tests ≤ depth 1: {within} (all depths: {all})")),
        "{screen}"
    );
    ui.keys("t");
    let screen = ui.screen();
    assert!(
        screen.contains(&format!("all depths: {all} tests reach it;")),
        "{screen}"
    );
}

//! The call tree on small repositories written for the case: recursion and
//! cycles shown once and marked, and a refresh that keeps the root, the
//! tree's shape and the selection by name.

use std::path::Path;
use std::sync::Arc;

use crossterm::event::{Event as Input, KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ripple::tui::{App, Event, Indexed, Jobs, Snapshot, Theme};

const REC: &str = "\
def fact(n):
    return 1 if n <= 1 else n * fact(n - 1)


def ping(n):
    if n:
        pong(n - 1)


def pong(n):
    if n:
        ping(n - 1)


def main():
    fact(3)
    ping(2)
";

struct Repo {
    dir: tempfile::TempDir,
    db: tempfile::TempDir,
}

impl Repo {
    fn new() -> Repo {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("pkg")).unwrap();
        std::fs::write(dir.path().join("pkg/__init__.py"), "").unwrap();
        std::fs::write(dir.path().join("pkg/rec.py"), REC).unwrap();
        Repo {
            dir,
            db: tempfile::tempdir().unwrap(),
        }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn load(&self) -> Arc<Snapshot> {
        ripple::tui::load(self.root(), Some(&self.db.path().join("index.db"))).unwrap()
    }
}

fn press(app: &mut App, keys: &str) {
    for c in keys.chars() {
        let code = match c {
            '\n' => KeyCode::Enter,
            c => KeyCode::Char(c),
        };
        app.handle(Event::Input(Input::Key(KeyEvent::new(
            code,
            KeyModifiers::NONE,
        ))));
    }
}

fn screen(app: &App) -> String {
    let mut term = Terminal::new(TestBackend::new(120, 20)).unwrap();
    term.draw(|f| app.draw(f)).unwrap();
    let buf = term.backend().buffer();
    (0..buf.area.height)
        .map(|y| {
            (0..buf.area.width)
                .map(|x| buf[(x, y)].symbol())
                .collect::<String>()
                .trim_end()
                .to_owned()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn open(snap: Arc<Snapshot>, root: &Path) -> App {
    let mut app = App::new(root.to_path_buf(), Jobs::inline(), Theme::dark());
    app.resize(120, 20);
    app.handle(Event::indexed(snap));
    app
}

#[test]
fn mutual_recursion_is_shown_once_and_marked_as_a_cycle() {
    let repo = Repo::new();
    let snap = repo.load();
    let mut app = open(snap.clone(), repo.root());
    press(&mut app, "/pkg.rec.ping\n");
    assert_eq!(snap.name(app.root().unwrap()), "pkg.rec.ping");
    // Callers of ping: pong and main. Expand pong: its caller is ping again.
    while snap.name(app.selected().unwrap()) != "pkg.rec.pong" {
        press(&mut app, "j");
    }
    press(&mut app, "l");
    let s = screen(&app);
    assert!(s.contains("↺ rec.ping (cycle)"), "{s}");
    // The cycle node does not expand: `l` twice stays where it is.
    press(&mut app, "jl");
    let rows = app.tree_rows();
    press(&mut app, "l");
    assert_eq!(app.tree_rows(), rows, "a cycle never expands");
}

#[test]
fn direct_recursion_is_a_mark_not_a_child() {
    let repo = Repo::new();
    let snap = repo.load();
    let mut app = open(snap.clone(), repo.root());
    press(&mut app, "/pkg.rec.fact\n");
    let s = screen(&app);
    assert!(s.contains("rec.fact (recursive)"), "{s}");
    // Its only caller is main; fact itself is not listed under fact.
    assert_eq!(app.tree_rows(), 2, "{s}");
}

#[test]
fn a_refresh_keeps_root_shape_and_selection_by_name() {
    let repo = Repo::new();
    let snap = repo.load();
    let mut app = open(snap.clone(), repo.root());
    press(&mut app, "/pkg.rec.ping\n");
    while snap.name(app.selected().unwrap()) != "pkg.rec.pong" {
        press(&mut app, "j");
    }
    press(&mut app, "l");
    // A new caller of ping appears at the top of the file, shifting every id.
    let edited = format!("def extra():\n    ping(1)\n\n\n{REC}");
    std::fs::write(repo.root().join("pkg/rec.py"), edited).unwrap();
    let fresh = repo.load();
    app.handle(Event::Indexed(Box::new(Indexed {
        generation: 2,
        result: Ok(fresh.clone()),
        elapsed: std::time::Duration::ZERO,
    })));
    assert_eq!(fresh.name(app.root().unwrap()), "pkg.rec.ping");
    assert_eq!(fresh.name(app.selected().unwrap()), "pkg.rec.pong");
    let s = screen(&app);
    assert!(s.contains("rec.extra"), "the new caller shows: {s}");
    assert!(s.contains("(cycle)"), "pong is still expanded: {s}");
}

#[test]
fn an_index_error_is_shown_not_fatal() {
    let repo = Repo::new();
    let mut app = App::new(repo.root().to_path_buf(), Jobs::inline(), Theme::no_color());
    app.resize(120, 20);
    app.handle(Event::Indexed(Box::new(Indexed {
        generation: 1,
        result: Err("disk on fire".into()),
        elapsed: std::time::Duration::ZERO,
    })));
    let s = screen(&app);
    assert!(s.contains("error: disk on fire"), "{s}");
    press(&mut app, "j/x");
    assert!(!app.should_quit());
}

#[test]
fn back_and_forward_restore_the_whole_view() {
    let repo = Repo::new();
    let snap = repo.load();
    let mut app = open(snap.clone(), repo.root());
    let name = |app: &App| snap.name(app.selected().unwrap()).to_owned();
    // A view worth keeping: callees of main, ping expanded, pong selected
    // (a row that exists only while ping is expanded), depth 4.
    press(&mut app, "/pkg.rec.main\nc");
    while name(&app) != "pkg.rec.ping" {
        press(&mut app, "j");
    }
    press(&mut app, "lj+");
    assert_eq!(name(&app), "pkg.rec.pong");
    let rows = app.tree_rows();
    assert_eq!(app.depth(), 4);
    // Somewhere else: pong as the root, its callers, depth 2.
    press(&mut app, "\nc--");
    assert_eq!(snap.name(app.root().unwrap()), "pkg.rec.pong");
    press(&mut app, "[");
    assert_eq!(snap.name(app.root().unwrap()), "pkg.rec.main");
    assert_eq!(name(&app), "pkg.rec.pong", "the selected row");
    assert_eq!(app.tree_rows(), rows, "the expanded branches");
    assert_eq!(app.depth(), 4);
    let s = screen(&app);
    assert!(s.contains("callees of rec.main"), "{s}");
    press(&mut app, "]");
    assert_eq!(snap.name(app.root().unwrap()), "pkg.rec.pong");
    assert_eq!(app.depth(), 2);
    let s = screen(&app);
    assert!(s.contains("callers of rec.pong"), "{s}");
}

fn screen_at(app: &App, width: u16, height: u16) -> String {
    let mut term = Terminal::new(TestBackend::new(width, height)).unwrap();
    term.draw(|f| app.draw(f)).unwrap();
    let buf = term.backend().buffer();
    (0..buf.area.height)
        .map(|y| {
            (0..buf.area.width)
                .map(|x| buf[(x, y)].symbol())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_source_pane_keeps_the_declaration_in_view_when_the_terminal_shrinks() {
    let dir = tempfile::tempdir().unwrap();
    let db = tempfile::tempdir().unwrap();
    // The declaration at line 41 of a 60-line file: a tall pane shows the
    // file's end, which starts well above it.
    let mut text = String::new();
    for i in 1..=40 {
        text.push_str(&format!("PAD_{i} = {i}\n"));
    }
    text.push_str("def target():\n    return PAD_1\n\n\ndef caller():\n    target()\n");
    while text.lines().count() < 60 {
        text.push_str("# tail\n");
    }
    std::fs::write(dir.path().join("mod.py"), text).unwrap();
    let snap = ripple::tui::load(dir.path(), Some(&db.path().join("index.db"))).unwrap();
    let mut app = App::new(dir.path().to_path_buf(), Jobs::inline(), Theme::no_color());
    app.resize(200, 50);
    app.handle(Event::indexed(snap));
    press(&mut app, "/mod.target\n");
    assert!(screen_at(&app, 200, 50).contains("def target():"));
    app.resize(80, 24);
    let s = screen_at(&app, 80, 24);
    assert!(s.contains("41 │ def target():"), "{s}");
    // And back again.
    app.resize(200, 50);
    assert!(screen_at(&app, 200, 50).contains("def target():"));
}

#[test]
fn the_header_names_the_repository_it_was_started_in() {
    // Tests run in the package's directory.
    let here = std::env::current_dir().unwrap().canonicalize().unwrap();
    let name = here.file_name().unwrap().to_string_lossy().into_owned();
    assert_eq!(ripple::tui::display_root(&here), name);
    assert_eq!(
        ripple::tui::display_root(&here.join("assets/demo")),
        "assets/demo"
    );
}

#[test]
fn counts_of_one_are_singular() {
    let dir = tempfile::tempdir().unwrap();
    let db = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("m.py"),
        "def f():\n    pass\n\n\ndef g():\n    f()\n",
    )
    .unwrap();
    let snap = ripple::tui::load(dir.path(), Some(&db.path().join("index.db"))).unwrap();
    let mut app = open(snap, dir.path());
    let s = screen(&app);
    assert!(s.lines().next().unwrap().ends_with("· 1 edge"), "{s}");
    assert!(s.contains("1 file · 6 lines"), "{s}");
    press(&mut app, "/m.g");
    let s = screen(&app);
    assert!(s.contains("1 match"), "{s}");
    assert!(!s.contains("1 matches"), "{s}");
}

#[test]
fn ctrl_u_clears_the_finder() {
    let repo = Repo::new();
    let mut app = open(repo.load(), repo.root());
    press(&mut app, "/qqq");
    let s = screen(&app);
    assert!(s.contains("qqq") && s.contains("0 matches"), "{s}");
    app.handle(Event::Input(Input::Key(KeyEvent::new(
        KeyCode::Char('u'),
        KeyModifiers::CONTROL,
    ))));
    let s = screen(&app);
    assert!(!s.contains("qqq"), "{s}");
    assert!(!s.contains("0 matches"), "{s}");
}

#[test]
fn a_row_too_wide_cuts_the_name_and_keeps_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let db = tempfile::tempdir().unwrap();
    let long = "a_function_with_a_name_long_enough_to_fill_any_tree_pane_on_its_own";
    std::fs::write(
        dir.path().join("m.py"),
        format!("def f():\n    pass\n\n\ndef {long}():\n    f()\n"),
    )
    .unwrap();
    let snap = ripple::tui::load(dir.path(), Some(&db.path().join("index.db"))).unwrap();
    let mut app = App::new(dir.path().to_path_buf(), Jobs::inline(), Theme::no_color());
    app.resize(80, 24);
    app.handle(Event::indexed(snap));
    press(&mut app, "/m.f\n");
    let s = screen_at(&app, 80, 24);
    let row = s
        .lines()
        .find(|l| l.starts_with("│ 1 "))
        .unwrap_or_else(|| panic!("{s}"));
    let row = row.split("││").next().unwrap();
    assert!(row.contains("…"), "{row}");
    assert!(row.contains("on_its_own  m.py:5"), "{row}");
}

#[test]
fn e_asks_for_the_editor_at_the_declaration_or_the_call_site() {
    let repo = Repo::new();
    let snap = repo.load();
    let mut app = open(snap.clone(), repo.root());
    press(&mut app, "/pkg.rec.ping\n");
    while snap.name(app.selected().unwrap()) != "pkg.rec.pong" {
        press(&mut app, "j");
    }
    press(&mut app, "l");
    press(&mut app, "E");
    let req = app.take_edit_request().expect("E asks for the editor");
    assert_eq!(
        (req.path.as_str(), req.line),
        ("pkg/rec.py", 10),
        "def pong"
    );
    assert_eq!(req.root, repo.root());
    assert!(app.take_edit_request().is_none(), "asked once");
    // In the source pane: the call site the row came through (pong calls ping).
    app.handle(Event::Input(Input::Key(KeyEvent::new(
        KeyCode::Tab,
        KeyModifiers::NONE,
    ))));
    press(&mut app, "E");
    let site = app.take_edit_request().unwrap();
    assert_eq!((site.path.as_str(), site.line), ("pkg/rec.py", 12));

    // A failing editor is a status line, not a crash.
    app.edited(
        &site,
        Err("editor `nope` not found (set $EDITOR)".to_owned()),
    );
    assert!(screen(&app).contains("editor `nope` not found"));

    // Back from an editor that changed the file: the refresh keeps the view.
    let edited = format!("{REC}\n\ndef added_by_the_editor():\n    ping(3)\n");
    std::fs::write(repo.root().join("pkg/rec.py"), edited).unwrap();
    app.edited(&req, Ok(()));
    assert!(screen(&app).contains("edited pkg/rec.py:10"));
    app.handle(Event::Indexed(Box::new(Indexed {
        generation: 2,
        result: Ok(repo.load()),
        elapsed: std::time::Duration::ZERO,
    })));
    let s = screen(&app);
    assert!(s.contains("dded_by_the_editor  …/rec.py:20"), "{s}");
    assert!(s.contains("(cycle)"), "pong is still expanded: {s}");
    assert_eq!(snap.name(app.root().unwrap()), "pkg.rec.ping");
}

#[test]
fn e_on_an_external_declaration_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let db = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("m.py"),
        "import os\n\n\ndef f():\n    os.getcwd()\n",
    )
    .unwrap();
    let snap = ripple::tui::load(dir.path(), Some(&db.path().join("index.db"))).unwrap();
    let mut app = open(snap.clone(), dir.path());
    press(&mut app, "/m.f\ncj");
    press(&mut app, "E");
    assert!(app.take_edit_request().is_none());
    let s = screen(&app);
    assert!(s.contains("is outside the repository"), "{s}");
}

/// A clipboard the test can read back.
#[derive(Clone, Default)]
struct Captured(Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    fn take(&self) -> String {
        String::from_utf8(std::mem::take(&mut *self.0.lock().unwrap())).unwrap()
    }
}

#[test]
fn y_and_shift_y_copy_name_and_location_with_osc_52() {
    let repo = Repo::new();
    let snap = repo.load();
    let mut app = open(snap.clone(), repo.root());
    let clip = Captured::default();
    app.set_clipboard(ripple::tui::Clipboard::to(clip.clone()));
    press(&mut app, "/pkg.rec.ping\n");
    while snap.name(app.selected().unwrap()) != "pkg.rec.pong" {
        press(&mut app, "j");
    }
    press(&mut app, "y");
    // base64("pkg.rec.pong"), BEL-terminated.
    assert_eq!(clip.take(), "\x1b]52;c;cGtnLnJlYy5wb25n\x07");
    assert!(screen(&app).contains("copied pkg.rec.pong"));
    press(&mut app, "Y");
    assert_eq!(
        clip.take(),
        "\x1b]52;c;cGtnL3JlYy5weToxMA==\x07",
        "pkg/rec.py:10"
    );
    assert!(screen(&app).contains("copied pkg/rec.py:10"));
}

fn key(app: &mut App, code: KeyCode) {
    app.handle(Event::Input(Input::Key(KeyEvent::new(
        code,
        KeyModifiers::NONE,
    ))));
}

#[test]
fn f_filters_the_tree_keeping_the_ancestors_of_matches() {
    let repo = Repo::new();
    let snap = repo.load();
    let mut app = open(snap.clone(), repo.root());
    press(&mut app, "/pkg.rec.ping\n");
    while snap.name(app.selected().unwrap()) != "pkg.rec.pong" {
        press(&mut app, "j");
    }
    press(&mut app, "l");
    assert_eq!(app.tree_rows(), 4, "ping; main, pong; ping (cycle)");

    // pong does not match, but the cycle row under it does: it stays.
    press(&mut app, "fPING");
    assert_eq!(app.tree_rows(), 3);
    let s = screen(&app);
    assert!(s.contains("filter: PING▏"), "{s}");
    assert!(!s.contains("rec.main"), "{s}");
    assert!(
        s.contains("rec.pong") && s.contains("↺ rec.ping (cycle)"),
        "{s}"
    );

    // Enter keeps it; the tree keys work on the rows shown.
    press(&mut app, "\n");
    let s = screen(&app);
    assert!(s.contains("filter: PING · 1 match · esc clears"), "{s}");
    press(&mut app, "G");
    assert_eq!(snap.name(app.selected().unwrap()), "pkg.rec.ping");

    // A refresh keeps it too.
    app.handle(Event::Indexed(Box::new(Indexed {
        generation: 2,
        result: Ok(repo.load()),
        elapsed: std::time::Duration::ZERO,
    })));
    assert_eq!(app.tree_rows(), 3);

    // Nothing matches: the root alone. Esc brings every row back.
    press(&mut app, "fzzz");
    assert_eq!(app.tree_rows(), 1);
    assert!(screen(&app).contains("filter: PINGzzz▏"));
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.tree_rows(), 4);
    assert!(!screen(&app).contains("filter:"));

    // Esc in the tree clears a kept filter; `q` while typing is a letter.
    press(&mut app, "fmq\n");
    assert!(!app.should_quit());
    assert_eq!(app.tree_rows(), 1, "no row matches 'mq'");
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.tree_rows(), 4);
}

const BLAST_M: &str = "\
def f():
    pass


def g():
    f()


def h(x):
    x.f()
";

const BLAST_TESTS: &str = "\
from m import g


def test_a():
    g()


def test_b():
    g()
";

fn blast_repo() -> (tempfile::TempDir, tempfile::TempDir, Arc<Snapshot>) {
    let dir = tempfile::tempdir().unwrap();
    let db = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("m.py"), BLAST_M).unwrap();
    std::fs::create_dir(dir.path().join("tests")).unwrap();
    std::fs::write(dir.path().join("tests/test_m.py"), BLAST_TESTS).unwrap();
    std::fs::write(
        dir.path().join("ripple.toml"),
        "[tests]\npython = \"sh -c 'echo ran {tests}'\"\n",
    )
    .unwrap();
    let snap = ripple::tui::load(dir.path(), Some(&db.path().join("index.db"))).unwrap();
    (dir, db, snap)
}

#[test]
fn the_blast_lists_are_selectable_and_enter_and_t_act_on_the_row() {
    let (dir, _db, snap) = blast_repo();
    let mut app = open(snap.clone(), dir.path());
    press(&mut app, "/m.f\n");
    let s = screen(&app);
    assert!(s.contains("m.py:10  x.f"), "a possibly missing caller: {s}");
    // tab twice: the blast pane. Its first list row is that call site.
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Tab);
    press(&mut app, "j\n");
    assert_eq!(snap.name(app.root().unwrap()), "m.h", "the site's function");
    assert!(screen(&app).contains("10 ▶"), "its line is marked");

    // f again, and down to the second test: t runs it alone.
    press(&mut app, "/m.f\n");
    assert_eq!(snap.name(app.root().unwrap()), "m.f");
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Tab);
    press(&mut app, "jjjt");
    let s = screen(&app);
    assert!(s.contains("ran tests/test_m.py::test_b"), "{s}");
    assert!(!s.contains("test_m.py::test_a"), "test_b alone: {s}");
    key(&mut app, KeyCode::Esc);

    // y on a test row copies the test's name; enter makes it the root.
    let clip = Captured::default();
    app.set_clipboard(ripple::tui::Clipboard::to(clip.clone()));
    press(&mut app, "ky");
    assert!(screen(&app).contains("copied tests.test_m.test_a"));
    press(&mut app, "\n");
    assert_eq!(snap.name(app.root().unwrap()), "tests.test_m.test_a");
}

#[test]
fn a_click_selects_a_blast_row_and_a_file_row_opens_the_finder() {
    let (dir, _db, snap) = blast_repo();
    let mut app = open(snap.clone(), dir.path());
    app.resize(120, 40);
    press(&mut app, "/m.f\n");
    let s = screen_at(&app, 120, 40);
    let (row, line) = s
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("  tests/test_m.py") && !l.contains("::"))
        .unwrap_or_else(|| panic!("{s}"));
    let col = line[..line.rfind("tests/test_m.py").unwrap()]
        .chars()
        .count();
    app.handle(Event::Input(Input::Mouse(crossterm::event::MouseEvent {
        kind: crossterm::event::MouseEventKind::Down(crossterm::event::MouseButton::Left),
        column: col as u16,
        row: row as u16,
        modifiers: KeyModifiers::NONE,
    })));
    press(&mut app, "\n");
    let s = screen_at(&app, 120, 40);
    assert!(s.contains("/ tests.test_m."), "the finder on the file: {s}");
    assert!(s.contains("test_m.test_b"), "{s}");
}

//! The explorer's screens on the bundled demo, driven by key events on
//! ratatui's off-screen terminal: the demo repo in, the expected screen out.
//! Background jobs run inline so every screen is deterministic; the index
//! goes to a temporary database so the demo tree is never written to.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use crossterm::event::{
    Event as Input, KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier};
use ripple::tui::{App, Event, Jobs, Screen, Snapshot, Theme, layout};

const W: u16 = 150;
const H: u16 = 40;

fn demo() -> Arc<Snapshot> {
    static DEMO: OnceLock<(tempfile::TempDir, Arc<Snapshot>)> = OnceLock::new();
    DEMO.get_or_init(|| {
        let db = tempfile::tempdir().unwrap();
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo");
        let snap = ripple::tui::load(&root, Some(&db.path().join("index.db"))).unwrap();
        (db, snap)
    })
    .1
    .clone()
}

struct Ui {
    app: App,
    term: Terminal<TestBackend>,
}

impl Ui {
    fn new(theme: Theme) -> Ui {
        Ui::sized(theme, W, H)
    }

    fn sized(theme: Theme, w: u16, h: u16) -> Ui {
        let snap = demo();
        let mut app = App::new(snap.index.root.clone(), Jobs::inline(), theme);
        app.resize(w, h);
        app.handle(Event::indexed(snap));
        Ui {
            app,
            term: Terminal::new(TestBackend::new(w, h)).unwrap(),
        }
    }

    fn key(&mut self, code: KeyCode) -> &mut Self {
        self.app.handle(Event::Input(Input::Key(KeyEvent::new(
            code,
            KeyModifiers::NONE,
        ))));
        self
    }

    /// Keys as the table spells them: single characters, or `<enter>`-style names.
    fn keys(&mut self, keys: &str) -> &mut Self {
        let mut rest = keys;
        while let Some(c) = rest.chars().next() {
            if c == '<'
                && let Some(end) = rest.find('>')
            {
                let code = match &rest[1..end] {
                    "enter" => KeyCode::Enter,
                    "esc" => KeyCode::Esc,
                    "tab" => KeyCode::Tab,
                    "bs" => KeyCode::Backspace,
                    "down" => KeyCode::Down,
                    "up" => KeyCode::Up,
                    "right" => KeyCode::Right,
                    "left" => KeyCode::Left,
                    other => panic!("unknown key <{other}>"),
                };
                self.key(code);
                rest = &rest[end + 1..];
            } else {
                self.key(KeyCode::Char(c));
                rest = &rest[c.len_utf8()..];
            }
        }
        self
    }

    fn find(&mut self, query: &str) -> &mut Self {
        self.keys("/").keys(query).keys("<enter>")
    }

    fn click(&mut self, column: u16, row: u16) -> &mut Self {
        self.app.handle(Event::Input(Input::Mouse(MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column,
            row,
            modifiers: KeyModifiers::NONE,
        })));
        self
    }

    fn wheel(&mut self, column: u16, row: u16, down: bool) -> &mut Self {
        let kind = if down {
            MouseEventKind::ScrollDown
        } else {
            MouseEventKind::ScrollUp
        };
        self.app.handle(Event::Input(Input::Mouse(MouseEvent {
            kind,
            column,
            row,
            modifiers: KeyModifiers::NONE,
        })));
        self
    }

    fn hints(&mut self) -> String {
        self.screen().lines().last().unwrap_or("").to_owned()
    }

    fn draw(&mut self) -> &Buffer {
        self.term.draw(|f| self.app.draw(f)).unwrap();
        self.term.backend().buffer()
    }

    fn screen(&mut self) -> String {
        text(self.draw(), None)
    }

    fn pane(&mut self, pick: fn(&layout::Areas) -> Rect) -> String {
        let size = self.term.size().unwrap();
        let area = pick(&layout::areas(Rect::new(0, 0, size.width, size.height)));
        text(self.draw(), Some(area))
    }

    fn selected_name(&self) -> String {
        let snap = demo();
        snap.name(self.app.selected().unwrap()).to_owned()
    }

    fn root_name(&self) -> String {
        let snap = demo();
        snap.name(self.app.root().unwrap()).to_owned()
    }
}

/// The buffer's text (or a region of it), trailing spaces trimmed and the
/// machine-specific demo path replaced.
fn text(buf: &Buffer, area: Option<Rect>) -> String {
    let area = area.unwrap_or(buf.area);
    let root = demo().index.root.display().to_string();
    let mut out = String::new();
    for y in area.y..area.y + area.height {
        let mut line = String::new();
        for x in area.x..area.x + area.width {
            line.push_str(buf[(x, y)].symbol());
        }
        out.push_str(mask_graph_size(&line).trim_end());
        out.push('\n');
    }
    out.replace(&root, "[DEMO]")
}

/// Whole-graph totals (declarations, edges, unresolved call sites) follow
/// every resolver improvement; what these snapshots check is the layout and
/// the panes. Digits become `#`, keeping widths.
fn mask_graph_size(line: &str) -> String {
    let mut out = line.to_owned();
    for unit in [
        " declarations",
        " edges",
        " call edges",
        " unresolved call sites",
    ] {
        let mut from = 0;
        while let Some(pos) = out[from..].find(unit) {
            let end = from + pos;
            let start = out[..end]
                .rfind(|c: char| !c.is_ascii_digit())
                .map(|i| i + 1)
                .unwrap_or(0);
            if start < end {
                let hashes = "#".repeat(end - start);
                out.replace_range(start..end, &hashes);
            }
            from = end + unit.len();
        }
    }
    out
}

fn row_of(buf: &Buffer, needle: &str) -> Option<(u16, u16)> {
    for y in 0..buf.area.height {
        let line: String = (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect();
        if let Some(byte) = line.find(needle) {
            let col = line[..byte].chars().count() as u16;
            return Some((col, y));
        }
    }
    None
}

#[test]
fn the_overview_is_the_start_screen() {
    let mut ui = Ui::new(Theme::dark());
    assert_eq!(ui.app.screen(), Screen::Overview);
    let screen = ui.screen();
    assert!(screen.contains("hotspots"), "{screen}");
    assert!(screen.contains("tokens.validate_token"), "{screen}");
    assert!(screen.contains("entry points"), "{screen}");
    insta::assert_snapshot!("overview", screen);
}

#[test]
fn the_finder_shows_live_results_and_enter_makes_a_root() {
    let mut ui = Ui::new(Theme::dark());
    ui.keys("/validate_tok");
    insta::assert_snapshot!("finder", ui.pane(|a| a.main));
    ui.keys("<enter>");
    assert_eq!(ui.app.screen(), Screen::Explorer);
    assert_eq!(ui.root_name(), "shop.auth.tokens.validate_token");
    insta::assert_snapshot!("explorer_validate_token", ui.screen());
}

#[test]
fn expanding_callers_opens_the_next_hop_lazily() {
    let mut ui = Ui::new(Theme::dark());
    ui.find("validate_token");
    let before = ui.app.tree_rows();
    // Down to `session.current_claims`, then expand it.
    while ui.selected_name() != "shop.auth.session.current_claims" {
        ui.keys("j");
    }
    ui.keys("l");
    assert!(ui.app.tree_rows() > before);
    insta::assert_snapshot!("tree_expanded", ui.pane(|a| a.tree));
    // `l` again goes to the first child, `h` back to the parent, `h` collapses.
    ui.keys("l");
    assert_ne!(ui.selected_name(), "shop.auth.session.current_claims");
    ui.keys("h");
    assert_eq!(ui.selected_name(), "shop.auth.session.current_claims");
    ui.keys("h");
    assert_eq!(ui.app.tree_rows(), before);
}

#[test]
fn the_source_pane_shows_the_call_site_of_the_edge_we_came_through() {
    let mut ui = Ui::new(Theme::dark());
    ui.find("validate_token");
    while ui.selected_name() != "shop.auth.session.current_claims" {
        ui.keys("j");
    }
    let source = ui.pane(|a| a.source);
    assert!(source.contains("▶"), "{source}");
    insta::assert_snapshot!("source_call_site", source);
    // The marked call is reverse video; keywords are coloured by the grammar's query.
    let buf = ui.draw().clone();
    let (col, row) = row_of(&buf, "▶").unwrap();
    let line: Vec<_> = (col..buf.area.width).map(|x| &buf[(x, row)]).collect();
    assert!(line.iter().any(|c| c.modifier.contains(Modifier::REVERSED)));
    let (dcol, drow) = row_of(&buf, "def current_claims").unwrap();
    assert_eq!(buf[(dcol, drow)].fg, Color::Magenta, "`def` is a keyword");
}

#[test]
fn depth_changes_the_blast_radius_counts() {
    let mut ui = Ui::new(Theme::dark());
    ui.find("validate_token");
    let three = ui.pane(|a| a.blast);
    assert!(three.contains("depth 3"), "{three}");
    insta::assert_snapshot!("blast_depth_3", three);
    ui.keys("--");
    assert_eq!(ui.app.depth(), 1);
    let one = ui.pane(|a| a.blast);
    assert!(one.contains("depth 1") && !one.contains("hop 2"), "{one}");
    insta::assert_snapshot!("blast_depth_1", one);
    ui.keys("-");
    assert_eq!(ui.app.depth(), 1, "depth stops at 1");
    ui.keys("+++");
    assert_eq!(ui.app.depth(), 4);
}

#[test]
fn c_toggles_callees_and_history_goes_back_and_forward() {
    let mut ui = Ui::new(Theme::dark());
    ui.find("OrderService.place_order");
    ui.keys("c");
    let tree = ui.pane(|a| a.tree);
    assert!(
        tree.contains("callees of service.OrderService.place_order"),
        "{tree}"
    );
    insta::assert_snapshot!("tree_callees", tree);
    // Focus a callee as the new root, then go back and forward.
    ui.keys("j");
    let child = ui.selected_name();
    ui.keys("<enter>");
    assert_eq!(ui.root_name(), child);
    ui.keys("<bs>");
    assert_eq!(
        ui.root_name(),
        "shop.orders.service.OrderService.place_order"
    );
    ui.keys("]");
    assert_eq!(ui.root_name(), child);
    ui.keys("[");
    assert_eq!(
        ui.root_name(),
        "shop.orders.service.OrderService.place_order"
    );
}

#[test]
fn help_and_hint_bar_come_from_the_key_table() {
    // Tall enough for every binding of the one key table.
    let mut ui = Ui::sized(Theme::dark(), W, 80);
    ui.keys("?");
    let help = ui.screen();
    for b in ripple::tui::keys::BINDINGS {
        assert!(
            help.contains(b.description) || b.context == ripple::tui::keys::Context::Help,
            "help lacks {:?}: {}",
            b.description,
            help
        );
    }
    insta::assert_snapshot!("help", help);
    ui.keys("<esc>");
    let screen = ui.screen();
    let hints = screen.lines().last().unwrap();
    assert!(hints.contains("/ find a declaration"), "{hints}");
}

#[test]
fn clicking_a_row_selects_it_and_tab_moves_between_panes() {
    let mut ui = Ui::new(Theme::dark());
    ui.find("validate_token");
    let buf = ui.draw().clone();
    let (col, row) = row_of(&buf, "session.authorize").unwrap();
    ui.click(col, row);
    assert_eq!(ui.selected_name(), "shop.auth.session.authorize");
    // tab to the source pane: j scrolls the code, not the tree.
    ui.keys("<tab>j");
    assert_eq!(ui.selected_name(), "shop.auth.session.authorize");
}

#[test]
fn the_wheel_scrolls_the_pane_under_the_pointer_and_a_click_focuses_a_pane() {
    let mut ui = Ui::new(Theme::dark());
    ui.find("validate_token");
    let areas = layout::areas(Rect::new(0, 0, W, H));
    let inside = |r: Rect| (r.x + r.width / 2, r.y + r.height / 2);
    let selected = ui.selected_name();
    assert!(ui.hints().contains("m migrate"), "the tree has the focus");

    let (c, r) = inside(areas.source);
    let source = ui.pane(|a| a.source);
    ui.wheel(c, r, true);
    assert_ne!(ui.pane(|a| a.source), source, "the source scrolled");
    assert_eq!(ui.selected_name(), selected);
    assert!(ui.hints().contains("m migrate"), "the focus stayed");
    ui.wheel(c, r, false);
    assert_eq!(ui.pane(|a| a.source), source, "and back");

    let (c, r) = inside(areas.blast);
    let blast = ui.pane(|a| a.blast);
    ui.wheel(c, r, true);
    assert_ne!(ui.pane(|a| a.blast), blast, "the blast radius scrolled");

    let (c, r) = inside(areas.tree);
    ui.wheel(c, r, true);
    assert_ne!(ui.selected_name(), selected, "the tree's cursor moved");

    // A click focuses the pane it lands in.
    let (c, r) = inside(areas.source);
    ui.click(c, r);
    assert!(ui.hints().contains("j scroll down"), "{}", ui.hints());
    assert!(!ui.hints().contains("m migrate"));
}

#[test]
fn a_click_picks_a_finder_result() {
    let mut ui = Ui::new(Theme::dark());
    ui.keys("/token");
    let buf = ui.draw().clone();
    let (col, row) = row_of(&buf, "tokens.revoke_token").unwrap();
    ui.click(col, row).keys("<enter>");
    assert_eq!(ui.root_name(), "shop.auth.tokens.revoke_token");
}

#[test]
fn the_palette_lists_the_key_table_and_runs_what_is_picked() {
    let mut ui = Ui::new(Theme::dark());
    ui.find("validate_token");
    ui.keys(":");
    let screen = ui.screen();
    assert!(screen.contains("run an action"), "{screen}");
    assert!(
        screen.contains("c             toggle callers / callees  everywhere"),
        "{screen}"
    );
    assert!(screen.contains("esc close the palette"), "the hint bar");
    ui.keys("callee");
    let screen = ui.screen();
    insta::assert_snapshot!("palette", screen);
    ui.keys("<enter>");
    let screen = ui.screen();
    assert!(!screen.contains("run an action"), "{screen}");
    assert!(
        screen.contains("callees of tokens.validate_token"),
        "{screen}"
    );

    // Keys typed are the query, not commands.
    ui.keys(":q");
    assert!(!ui.app.should_quit());
    // A tree action, picked with the mouse from the whole list.
    ui.keys("<bs>");
    assert!(ui.app.tree_rows() > 1);
    let buf = ui.draw().clone();
    let (col, row) = row_of(&buf, "collapse (again: go to parent)").unwrap();
    ui.click(col, row).keys("<enter>");
    assert_eq!(ui.app.tree_rows(), 1, "the root collapsed");
}

#[test]
fn a_small_terminal_stacks_the_blast_radius_under_the_source() {
    let mut ui = Ui::sized(Theme::dark(), 90, 30);
    ui.find("ValidateToken");
    let screen = ui.screen();
    assert!(screen.contains("blast radius"), "{screen}");
    insta::assert_snapshot!("small_terminal", screen);
    ui.app.resize(W, H);
    ui.term.resize(Rect::new(0, 0, W, H)).unwrap();
    assert!(ui.screen().contains("callers of auth.ValidateToken"));
}

#[test]
fn no_color_leaves_only_emphasis() {
    let mut ui = Ui::new(Theme::no_color());
    ui.find("validate_token");
    let buf = ui.draw().clone();
    for cell in buf.content() {
        assert_eq!(cell.fg, Color::Reset, "colour with NO_COLOR: {cell:?}");
        assert_eq!(cell.bg, Color::Reset, "colour with NO_COLOR: {cell:?}");
    }
    // The selection is still visible.
    assert!(
        buf.content()
            .iter()
            .any(|c| c.modifier.contains(Modifier::REVERSED))
    );
}

#[test]
fn the_light_theme_draws_no_colour_that_vanishes_on_white() {
    let mut ui = Ui::new(Theme::light());
    let mut screens = vec![ui.draw().clone()];
    ui.find("validate_token");
    screens.push(ui.draw().clone());
    ui.keys("?");
    screens.push(ui.draw().clone());
    let mut coloured = 0;
    for buf in &screens {
        for cell in buf.content() {
            assert!(
                !matches!(cell.fg, Color::Yellow | Color::Cyan | Color::White),
                "{cell:?}"
            );
            coloured += usize::from(cell.fg != Color::Reset);
        }
    }
    assert!(coloured > 100, "still in colour");
    let help = text(screens.last().unwrap(), None);
    assert!(
        help.contains("(red 1, magenta 2, blue 3, green 4+)"),
        "{help}"
    );
}

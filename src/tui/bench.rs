//! How fast the explorer reacts: the time from a key that moves the tree
//! selection to the finished frame (the goal is one 60 Hz frame, 16 ms),
//! measured on an off-screen terminal of a typical size. Two figures: the UI
//! thread's share (highlighting happens on the worker) and the whole work
//! done inline, highlighting included — the worst case a user could see.

use std::sync::Arc;
use std::time::Instant;

use crossterm::event::{Event as Input, KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use super::{App, Event, Jobs, Snapshot, Theme};

#[derive(Debug, Clone)]
pub struct RenderBench {
    pub root: String,
    pub rows: usize,
    pub frames: usize,
    /// Key handled and frame drawn, highlighting on the worker (as in the app).
    pub ui_median_ms: f64,
    pub ui_max_ms: f64,
    /// Key handled, visible lines highlighted and frame drawn, all inline.
    pub inline_median_ms: f64,
    pub inline_p95_ms: f64,
    pub inline_max_ms: f64,
}

fn press(app: &mut App, code: KeyCode) {
    app.handle(Event::Input(Input::Key(KeyEvent::new(
        code,
        KeyModifiers::NONE,
    ))));
}

fn frames(snap: &Arc<Snapshot>, jobs: Jobs, moves: usize) -> (Vec<f64>, String, usize) {
    let (w, h) = (200, 50);
    let mut app = App::new(snap.index.root.clone(), jobs, Theme::dark());
    app.resize(w, h);
    app.handle(Event::indexed(snap.clone()));
    // Root at the biggest hotspot, open its first levels: a busy tree.
    press(&mut app, KeyCode::Enter);
    for _ in 0..4 {
        press(&mut app, KeyCode::Down);
        press(&mut app, KeyCode::Right);
    }
    let mut terminal = Terminal::new(TestBackend::new(w, h)).expect("test backend");
    terminal.draw(|f| app.draw(f)).expect("draw");
    let rows = app.tree_rows();
    let mut times = Vec::with_capacity(moves);
    for i in 0..moves {
        let t = Instant::now();
        press(
            &mut app,
            if (i / 40) % 2 == 0 {
                KeyCode::Down
            } else {
                KeyCode::Up
            },
        );
        terminal.draw(|f| app.draw(f)).expect("draw");
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let root = app
        .root()
        .map(|r| snap.name(r).to_owned())
        .unwrap_or_default();
    (times, root, rows)
}

fn stats(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.95), *v.last().unwrap_or(&0.0))
}

/// Move the selection `moves` times through a tree rooted at the top hotspot.
pub fn selection_change(snap: &Arc<Snapshot>, moves: usize) -> RenderBench {
    let moves = moves.max(1);
    let (events_tx, _events_rx) = std::sync::mpsc::channel();
    let (ui, root, rows) = frames(snap, Jobs::spawn(events_tx), moves);
    let (inline, _, _) = frames(snap, Jobs::inline(), moves);
    let (ui_median, _, ui_max) = stats(ui);
    let (median, p95, max) = stats(inline);
    RenderBench {
        root,
        rows,
        frames: moves,
        ui_median_ms: ui_median,
        ui_max_ms: ui_max,
        inline_median_ms: median,
        inline_p95_ms: p95,
        inline_max_ms: max,
    }
}

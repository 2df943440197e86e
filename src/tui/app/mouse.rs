//! Mouse routing: a click selects what it lands on and focuses that pane;
//! the wheel scrolls the pane under the pointer, whichever has the focus.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};

use super::super::finder::Finder;
use super::super::findings::FindingsList;
use super::super::keys::Action;
use super::super::layout;
use super::super::palette::Palette;
use super::super::search::SearchPane;
use super::{App, Pane, Screen};

const MOUSE_STEP: isize = 3;

impl App {
    pub(super) fn on_mouse(&mut self, m: MouseEvent) {
        let step = match m.kind {
            MouseEventKind::ScrollDown => MOUSE_STEP,
            MouseEventKind::ScrollUp => -MOUSE_STEP,
            MouseEventKind::Down(MouseButton::Left) => 0,
            _ => return,
        };
        self.dirty = true;
        let (col, row) = (m.column, m.row);
        if let Some(scroll) = &mut self.help {
            *scroll = (*scroll as isize + step).max(0) as usize;
            return;
        }
        // The overlays own the wheel; a click selects a row of their list,
        // and does nothing on what they cover.
        if step == 0 && (self.search.is_some() || self.findings.is_some()) {
            self.click_overlay_list(col, row);
            return;
        }
        if self.tests.is_some() || self.search.is_some() || self.findings.is_some() {
            if step != 0 {
                let action = if step > 0 { Action::Down } else { Action::Up };
                for _ in 0..step.unsigned_abs() {
                    if self.tests.is_some() {
                        self.on_test_pane(Some(action));
                    } else if self.search.is_some() {
                        let key = KeyEvent::new(KeyCode::Null, KeyModifiers::NONE);
                        self.on_search(Some(action), key);
                    } else {
                        self.on_findings(Some(action));
                    }
                }
            }
            return;
        }
        let areas = self.areas();
        if self.palette.is_some() {
            let pa = Palette::area(areas.main);
            let height = self.palette_height();
            let Some(p) = &mut self.palette else { return };
            if step != 0 {
                p.move_by(step, height);
            } else if layout::contains(pa, col, row)
                && row >= pa.y + 2
                && row + 1 < pa.y + pa.height
            {
                p.click_row((row - pa.y - 2) as usize);
            }
            return;
        }
        if self.finder.is_some() {
            let fa = Finder::area(areas.main);
            let height = self.finder_height();
            let Some(f) = &mut self.finder else { return };
            if step != 0 {
                f.move_by(step, height);
            } else if layout::contains(fa, col, row) && row >= fa.y + 2 {
                let i = f.offset + (row - fa.y - 2) as usize;
                if i < f.hits.len() {
                    f.cursor = i;
                }
            }
            return;
        }
        match self.screen {
            Screen::Overview => {
                let Some(snap) = self.snap.clone() else {
                    return;
                };
                if step == 0 {
                    self.overview.click(&snap, areas.main, col, row);
                } else {
                    self.overview.move_by(&snap, step, areas.main);
                }
            }
            Screen::Explorer => {
                let pane = if layout::contains(areas.tree, col, row) {
                    Pane::Tree
                } else if layout::contains(areas.source, col, row) {
                    Pane::Source
                } else if layout::contains(areas.blast, col, row) {
                    Pane::Blast
                } else {
                    return;
                };
                // The wheel scrolls the blast pane's text; j/k move over its lists.
                if step != 0 && pane == Pane::Blast {
                    let c = &mut self.blast_cursor;
                    c.scroll = (c.scroll as isize + step).max(0) as usize;
                    return;
                }
                if step != 0 {
                    let action = if step > 0 { Action::Down } else { Action::Up };
                    let saved = self.pane;
                    self.pane = pane;
                    for _ in 0..step.unsigned_abs() {
                        self.on_action(action);
                    }
                    self.pane = saved;
                    return;
                }
                self.pane = pane;
                if pane == Pane::Blast && row > areas.blast.y {
                    let rows = self.blast_rows();
                    self.blast_cursor
                        .click(&rows, (row - areas.blast.y - 1) as usize);
                }
                if pane == Pane::Tree
                    && let Some(tree) = &mut self.tree
                    && row > areas.tree.y
                {
                    let i = tree.offset + (row - areas.tree.y - 1) as usize;
                    if i < tree.rows.len() && i != tree.cursor {
                        tree.cursor = i;
                        self.sync_source();
                    }
                }
            }
        }
    }

    /// A click on a row of the search results or the review findings.
    fn click_overlay_list(&mut self, col: u16, row: u16) {
        let main = self.areas().main;
        // Rows above the list inside each popup: the border, and the
        // search's query line.
        let (area, top, cursor, offset, len) = if let Some(p) = &mut self.search {
            let a = SearchPane::area(main);
            (a, a.y + 2, &mut p.cursor, p.offset, p.hits.len())
        } else if let Some(f) = &mut self.findings {
            let a = FindingsList::area(main);
            (a, a.y + 1, &mut f.cursor, f.offset, f.findings.len())
        } else {
            return;
        };
        if layout::contains(area, col, row) && row >= top && row + 1 < area.y + area.height {
            let i = offset + (row - top) as usize;
            if i < len {
                *cursor = i;
            }
        }
    }
}

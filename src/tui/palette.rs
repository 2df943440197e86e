//! `:`: the command palette. Every action the key table binds where the
//! user is (the routing stack under the palette), with its key and its
//! description, narrowed as the user types; enter runs the selected one as
//! if its key had been pressed. Built from [`BINDINGS`], so it lists what
//! the help screen lists and cannot drift from it.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::terminal_text::counted;

use super::finder::{Finder, move_cursor};
use super::fuzzy;
use super::keys::{Action, BINDINGS, Binding, Context};
use super::theme::Theme;

pub struct Palette {
    pub query: String,
    /// Every binding reachable under the palette, innermost context first.
    entries: Vec<&'static Binding>,
    /// Indices into `entries` matching the query, best first.
    hits: Vec<usize>,
    pub cursor: usize,
    pub offset: usize,
}

/// The bindings of `contexts` the palette offers: one per action, the
/// innermost context's (it is the one a key press would reach).
pub fn entries(contexts: &[Context]) -> Vec<&'static Binding> {
    let mut out: Vec<&'static Binding> = Vec::new();
    for &ctx in contexts {
        for b in BINDINGS.iter().filter(|b| b.context == ctx) {
            if b.action != Action::OpenPalette && !out.iter().any(|o| o.action == b.action) {
                out.push(b);
            }
        }
    }
    out
}

impl Palette {
    pub fn new(contexts: &[Context]) -> Palette {
        let mut p = Palette {
            query: String::new(),
            entries: entries(contexts),
            hits: Vec::new(),
            cursor: 0,
            offset: 0,
        };
        p.refilter();
        p
    }

    /// Rank the entries for the query: a key typed exactly (`E`) first,
    /// then the description's match.
    pub fn refilter(&mut self) {
        let q = self.query.trim();
        let mut scored: Vec<(i64, usize)> = self
            .entries
            .iter()
            .enumerate()
            .filter_map(|(i, b)| {
                let key = b.keys.iter().any(|k| k.label() == q).then_some(100_000);
                let text = fuzzy::score(b.description, q);
                key.max(text).map(|s| (s, i))
            })
            .collect();
        // Stable: equal scores keep the key table's order.
        scored.sort_by_key(|&(s, _)| std::cmp::Reverse(s));
        self.hits = scored.into_iter().map(|(_, i)| i).collect();
        self.cursor = 0;
        self.offset = 0;
    }

    pub fn selected(&self) -> Option<Action> {
        self.hits.get(self.cursor).map(|&i| self.entries[i].action)
    }

    pub fn move_by(&mut self, delta: isize, height: usize) {
        let len = self.hits.len();
        move_cursor(&mut self.cursor, &mut self.offset, len, delta, height);
    }

    /// Select the `i`-th row shown, when there is one.
    pub fn click_row(&mut self, i: usize) {
        if self.offset + i < self.hits.len() {
            self.cursor = self.offset + i;
        }
    }

    pub fn area(main: Rect) -> Rect {
        Finder::area(main)
    }

    /// Rows of actions inside the popup (below the query line).
    pub fn list_height(area: Rect) -> usize {
        area.height.saturating_sub(3) as usize
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        frame.render_widget(Clear, area);
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border(true))
            .title(Span::styled(" run an action ", theme.title(true)))
            .title_bottom(Span::styled(
                format!(" {} ", counted(self.hits.len(), "action", "actions")),
                theme.dim(),
            ));
        let mut lines = vec![Line::from(vec![
            Span::styled(": ", theme.key()),
            Span::styled(self.query.clone(), theme.bold()),
            Span::styled("▏", theme.key()),
        ])];
        let height = Self::list_height(area);
        for (i, &e) in self.hits.iter().enumerate().skip(self.offset).take(height) {
            let b = self.entries[e];
            let mut line = Line::from(vec![
                Span::styled(format!("{:<14}", b.label()), theme.key()),
                Span::raw(b.description),
                Span::styled(format!("  {}", b.context.title()), theme.dim()),
            ]);
            if i == self.cursor {
                line = line.patch_style(theme.selected());
            }
            lines.push(line);
        }
        frame.render_widget(Paragraph::new(lines).block(block), area);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reachable_action_once_and_the_inner_binding_wins() {
        let list = entries(&[Context::Tree, Context::Global]);
        for b in BINDINGS {
            if matches!(b.context, Context::Tree | Context::Global)
                && b.action != Action::OpenPalette
            {
                assert!(
                    list.iter().any(|e| e.action == b.action),
                    "{:?} missing",
                    b.action
                );
            }
        }
        let down: Vec<_> = list.iter().filter(|e| e.action == Action::Down).collect();
        assert_eq!(down.len(), 1);
        assert_eq!(down[0].context, Context::Tree);
        assert!(
            !list.iter().any(|e| e.action == Action::Accept),
            "review only"
        );
    }

    #[test]
    fn typing_narrows_and_a_key_name_finds_its_action() {
        let mut p = Palette::new(&[Context::Tree, Context::Global]);
        let all = p.hits.len();
        p.query = "callees".to_owned();
        p.refilter();
        assert!(p.hits.len() < all);
        assert_eq!(p.selected(), Some(Action::ToggleDirection));
        p.query = "E".to_owned();
        p.refilter();
        assert_eq!(p.selected(), Some(Action::OpenEditor));
        p.query = "no such action at all".to_owned();
        p.refilter();
        assert_eq!(p.selected(), None);
    }
}

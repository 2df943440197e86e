//! `f`: a filter typed over the call tree's rows (lazygit's and k9s's
//! habit), apart from the finder (`/`) that looks through the whole index.
//! Typing narrows the tree live; enter keeps the filter, esc drops it.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::super::keys::Action;
use super::App;

impl App {
    /// `f` in the tree: start typing, from the filter already active.
    pub(super) fn open_filter(&mut self) {
        if let Some(t) = &self.tree {
            self.filter_input = Some(t.filter().unwrap_or_default().to_owned());
        }
    }

    /// Esc in the tree: every row again.
    pub(super) fn clear_filter(&mut self) {
        self.filter_input = None;
        self.apply_filter(None);
    }

    pub(super) fn on_filter(&mut self, action: Option<Action>, key: KeyEvent) {
        let Some(text) = &mut self.filter_input else {
            return;
        };
        match action {
            Some(Action::ClearFilter) => return self.clear_filter(),
            Some(Action::Submit) => {
                self.filter_input = None;
                return;
            }
            Some(Action::Up) => return self.on_tree(Action::Up),
            Some(Action::Down) => return self.on_tree(Action::Down),
            Some(Action::ClearQuery) => text.clear(),
            _ => match key.code {
                KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => text.push(c),
                KeyCode::Backspace => {
                    text.pop();
                }
                _ => return,
            },
        }
        let query = text.clone();
        self.apply_filter(Some(&query));
    }

    fn apply_filter(&mut self, query: Option<&str>) {
        let height = self.tree_height();
        let (Some(snap), Some(tree)) = (self.snap.clone(), &mut self.tree) else {
            return;
        };
        let before = tree.selected_index();
        tree.set_filter(&snap, query);
        tree.scroll_into_view(height);
        if tree.selected_index() != before {
            self.sync_source();
        }
    }
}

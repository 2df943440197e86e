//! The blast radius pane's lists: j/k move over their rows (tests,
//! packages, files, the call sites that make the count a lower bound),
//! enter goes there, `t` on a test runs that test alone.

use std::sync::Arc;

use super::super::findings;
use super::super::keys::Action;
use super::super::layout;
use super::super::radius::{BlastItem, Row};
use super::{App, Pane};

impl App {
    /// The pane's rows, as drawn (empty while the radius is computed).
    pub(super) fn blast_rows(&self) -> Vec<Row> {
        let (Some(snap), Some(tree)) = (&self.snap, &self.tree) else {
            return Vec::new();
        };
        match self.blast.as_ref().filter(|b| b.root == tree.root) {
            Some(view) => view.rows(snap, &self.theme),
            None => Vec::new(),
        }
    }

    /// The list row selected in the blast pane, when it has the focus.
    pub(super) fn blast_item(&self) -> Option<BlastItem> {
        if self.pane != Pane::Blast {
            return None;
        }
        self.blast_cursor.item(&self.blast_rows()).cloned()
    }

    pub(super) fn on_blast(&mut self, action: Action) {
        let rows = self.blast_rows();
        let height = layout::inner_height(self.areas().blast);
        let c = &mut self.blast_cursor;
        match action {
            Action::Up => c.step(&rows, -1, height),
            Action::Down => c.step(&rows, 1, height),
            Action::PageUp => c.scroll = c.scroll.saturating_sub(10),
            Action::PageDown => c.scroll += 10,
            Action::Top => *c = Default::default(),
            Action::Focus => self.open_blast_item(),
            _ => {}
        }
    }

    fn open_blast_item(&mut self) {
        let Some(snap) = self.snap.clone() else {
            return;
        };
        let Some(item) = self.blast_item() else {
            self.message = Some("j/k select a row of a list first".to_owned());
            return;
        };
        match item {
            BlastItem::Test(d) => self.set_root(d, true),
            BlastItem::Package(p) => self.open_finder(format!("{p}.")),
            BlastItem::File(path) => {
                let module = snap
                    .index
                    .files
                    .iter()
                    .position(|f| f.path == path)
                    .map(|i| snap.index.res.file_module[i].clone());
                match module {
                    Some(m) if !m.is_empty() => self.open_finder(format!("{m}.")),
                    _ => self.message = Some(format!("{path} is not in the index")),
                }
            }
            BlastItem::Site { file, line } => {
                let note = format!("{file}:{line}, in the blast radius's list");
                self.show_line(&snap, &file, line, note);
            }
        }
    }

    /// Make the declaration around `file:line` the root and mark the line.
    pub(super) fn show_line(
        &mut self,
        snap: &Arc<super::Snapshot>,
        file: &str,
        line: u32,
        note: String,
    ) -> bool {
        let Some(d) = findings::decl_at(snap, file, line) else {
            self.message = Some(format!(
                "{file}:{line} is not in the index (moved, deleted, or not Python/Go)"
            ));
            return false;
        };
        self.set_root(d, true);
        let height = self.source_height();
        self.source.mark_line(line as usize, note, height);
        self.request_highlight();
        true
    }

    /// `t` on a test of the blast pane: that test alone.
    pub(super) fn run_blast_test(&mut self) -> bool {
        let Some(BlastItem::Test(test)) = self.blast_item() else {
            return false;
        };
        let Some(snap) = self.snap.clone() else {
            return false;
        };
        let commands = snap.conventions.test_commands();
        match crate::testrun::plan_tests(&snap.index, &[test], commands) {
            Ok(plan) if plan.invocations.is_empty() => {
                self.message = Some(format!(
                    "{} is not a test a runner can select by name",
                    snap.display_name(test)
                ));
            }
            Ok(plan) => {
                if let Some(old) = &self.tests {
                    old.cancel.cancel();
                }
                self.launch_tests(snap.display_name(test), plan);
            }
            Err(e) => self.message = Some(e.to_string()),
        }
        true
    }
}

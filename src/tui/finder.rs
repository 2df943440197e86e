//! The finder (`/`): fuzzy search over every declaration with live results
//! ([`crate::lookup::fuzzy`], run on the worker for each keystroke; a newer
//! keystroke makes older queries stale).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::resolve::DeclId;
use crate::terminal_text::counted;

use super::snapshot::Snapshot;
use super::theme::Theme;

#[derive(Default)]
pub struct Finder {
    pub query: String,
    pub hits: Vec<(DeclId, i64)>,
    pub cursor: usize,
    pub offset: usize,
    pub generation: u64,
    /// The hits are for an older query (a newer one is being run).
    pub pending: bool,
}

/// Move the selected row of a popup list of `len` rows by `delta`, keeping
/// it inside the `height` visible rows that start at `offset`.
pub(super) fn move_cursor(
    cursor: &mut usize,
    offset: &mut usize,
    len: usize,
    delta: isize,
    height: usize,
) {
    if len == 0 {
        return;
    }
    *cursor = (*cursor as isize + delta).clamp(0, len as isize - 1) as usize;
    let height = height.max(1);
    if *cursor < *offset {
        *offset = *cursor;
    } else if *cursor >= *offset + height {
        *offset = *cursor + 1 - height;
    }
}

impl Finder {
    pub fn selected(&self) -> Option<DeclId> {
        self.hits.get(self.cursor).map(|h| h.0)
    }

    pub fn move_by(&mut self, delta: isize, height: usize) {
        move_cursor(
            &mut self.cursor,
            &mut self.offset,
            self.hits.len(),
            delta,
            height,
        );
    }

    /// The popup's area in the main area.
    pub fn area(main: Rect) -> Rect {
        let w = (main.width * 4 / 5).clamp(20.min(main.width), 110.min(main.width));
        let h = (main.height * 4 / 5).max(5.min(main.height));
        Rect {
            x: main.x + (main.width - w) / 2,
            y: main.y + (main.height - h) / 2,
            width: w,
            height: h,
        }
    }

    /// Rows of results inside the popup.
    pub fn list_height(area: Rect) -> usize {
        area.height.saturating_sub(3) as usize
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, snap: Option<&Snapshot>, theme: &Theme) {
        frame.render_widget(Clear, area);
        let count = if self.pending {
            "…".to_owned()
        } else {
            counted(self.hits.len(), "match", "matches")
        };
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border(true))
            .title(Span::styled(" find a declaration ", theme.title(true)))
            .title_bottom(Span::styled(format!(" {count} "), theme.dim()));
        let inner = block.inner(area);
        let mut lines = vec![Line::from(vec![
            Span::styled("/ ", theme.key()),
            Span::styled(self.query.clone(), theme.bold()),
            Span::styled("▏", theme.key()),
        ])];
        if let Some(snap) = snap {
            let height = inner.height.saturating_sub(1) as usize;
            for (i, &(d, _)) in self.hits.iter().enumerate().skip(self.offset).take(height) {
                let decl = &snap.index.res.decls[d];
                let mut line = Line::from(vec![
                    Span::styled(format!("{:<9}", decl.kind.name()), theme.dim()),
                    Span::raw(snap.display_name(d)),
                    Span::styled(
                        if decl.is_test { " [test]" } else { "" },
                        theme.test_badge(),
                    ),
                    Span::styled(format!("  {}", snap.location(d)), theme.dim()),
                ]);
                if i == self.cursor {
                    line = line.patch_style(theme.selected());
                }
                lines.push(line);
            }
        } else {
            lines.push(Line::styled("the index is still loading…", theme.dim()));
        }
        frame.render_widget(Paragraph::new(lines).block(block), area);
    }
}

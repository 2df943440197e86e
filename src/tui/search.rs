//! The search pane: `s` ranks declarations by what they do as you type
//! (the offline BM25F index of [`crate::semantic`], what `ripple search`
//! uses), `S` lists the declarations most similar to the selected one
//! (what `ripple similar` uses). The index is built lazily, once per
//! loaded snapshot, on a thread of its own (a couple of seconds on a large
//! repository); queries run on the worker, the newest winning.

use std::sync::Arc;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::resolve::DeclId;
use crate::semantic::corpus::{self, CorpusOptions};
use crate::semantic::lexical::LexicalIndex;

use super::snapshot::Snapshot;
use super::theme::Theme;

/// How many results a query keeps.
pub const SEARCH_LIMIT: usize = 50;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchKind {
    /// Live results for the typed query.
    Query,
    /// Declarations similar to this one.
    Similar(DeclId),
}

pub struct SearchPane {
    pub kind: SearchKind,
    pub query: String,
    pub hits: Vec<(DeclId, f32)>,
    pub cursor: usize,
    pub offset: usize,
    pub generation: u64,
    /// Waiting for the index to be built or for a query's answer.
    pub pending: bool,
}

impl SearchPane {
    pub fn new(kind: SearchKind) -> SearchPane {
        SearchPane {
            kind,
            query: String::new(),
            hits: Vec::new(),
            cursor: 0,
            offset: 0,
            generation: 0,
            pending: true,
        }
    }

    pub fn selected(&self) -> Option<DeclId> {
        self.hits.get(self.cursor).map(|h| h.0)
    }

    pub fn move_by(&mut self, delta: isize, height: usize) {
        let len = self.hits.len();
        super::finder::move_cursor(&mut self.cursor, &mut self.offset, len, delta, height);
    }

    pub fn area(main: Rect) -> Rect {
        super::finder::Finder::area(main)
    }

    /// Rows of results inside the popup (below the query line).
    pub fn list_height(area: Rect) -> usize {
        area.height.saturating_sub(3) as usize
    }

    pub fn draw(
        &self,
        frame: &mut Frame,
        area: Rect,
        snap: Option<&Snapshot>,
        building: bool,
        theme: &Theme,
    ) {
        frame.render_widget(Clear, area);
        let title = match (self.kind, snap) {
            (SearchKind::Similar(d), Some(s)) => format!(" similar to {} ", s.display_name(d)),
            _ => " search by what it does ".to_owned(),
        };
        let count = if building {
            "building the search index…".to_owned()
        } else if self.pending {
            "…".to_owned()
        } else {
            format!("{} results", self.hits.len())
        };
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border(true))
            .title(Span::styled(title, theme.title(true)))
            .title_bottom(Span::styled(format!(" {count} "), theme.dim()));
        let inner = block.inner(area);
        let mut lines = vec![match self.kind {
            SearchKind::Query => Line::from(vec![
                Span::styled("s ", theme.key()),
                Span::raw(self.query.clone()),
                Span::styled("▏", theme.key()),
            ]),
            SearchKind::Similar(_) => Line::styled(
                "ranked by the declaration's most distinctive terms",
                theme.dim(),
            ),
        }];
        let Some(snap) = snap else {
            frame.render_widget(Paragraph::new(lines).block(block), area);
            return;
        };
        if !self.pending && !building && self.hits.is_empty() {
            lines.push(Line::styled(
                match self.kind {
                    SearchKind::Query if self.query.trim().is_empty() => {
                        "type what the code does: \"parse auth header\", \"retry with backoff\""
                    }
                    _ => "no match",
                },
                theme.dim(),
            ));
        }
        let height = Self::list_height(area);
        let rows: Vec<(String, String, f32)> = self
            .hits
            .iter()
            .skip(self.offset)
            .take(height)
            .map(|&(d, score)| (snap.display_name(d), snap.location(d), score))
            .collect();
        let name_w = rows
            .iter()
            .map(|r| r.0.chars().count())
            .max()
            .unwrap_or(0)
            .min(inner.width as usize / 2);
        for (i, (name, loc, score)) in rows.into_iter().enumerate() {
            let mut line = Line::from(vec![
                Span::styled(format!("{score:>7.3}  "), theme.dim()),
                Span::raw(format!("{name:<name_w$}  ")),
                Span::styled(loc, theme.dim()),
            ]);
            if self.offset + i == self.cursor {
                line = line.patch_style(theme.selected());
            }
            lines.push(line);
        }
        frame.render_widget(Paragraph::new(lines).block(block), area);
    }
}

/// Build the lexical index of a snapshot (reads every declaration's text).
pub fn build_index(snap: &Snapshot) -> LexicalIndex {
    crate::semantic::SearchIndex::build(&snap.index, CorpusOptions::default()).lexical
}

/// Answer one search: a query's ranking, or the declarations most similar
/// to one (none when it is not searchable, like `ripple similar`).
pub fn answer(
    snap: &Snapshot,
    lexical: &Arc<LexicalIndex>,
    kind: SearchKind,
    query: &str,
) -> Vec<(DeclId, f32)> {
    let hits = match kind {
        SearchKind::Query if query.trim().is_empty() => Vec::new(),
        SearchKind::Query => lexical.search(query, SEARCH_LIMIT),
        SearchKind::Similar(d) => {
            if !lexical.contains(d) {
                return Vec::new();
            }
            match corpus::document_of(&snap.index, d, CorpusOptions::default()) {
                Some(doc) => lexical.similar(&doc, SEARCH_LIMIT),
                None => Vec::new(),
            }
        }
    };
    hits.into_iter().map(|h| (h.decl, h.score)).collect()
}

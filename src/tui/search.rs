//! The search pane: `s` ranks declarations by what they do as you type,
//! `S` lists the declarations most similar to the selected one — the index
//! `ripple search` and `ripple similar` use. It is built lazily, once per
//! loaded snapshot, on a thread of its own: the offline BM25F index first
//! (a couple of seconds on a large repository), then, when `ripple.toml`
//! configures an embedding provider, the declarations' vectors, embedded
//! in the background while search keeps working by words alone. Queries
//! run on the worker, the newest winning.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::resolve::DeclId;
use crate::semantic::SearchIndex;
use crate::semantic::corpus::{self, CorpusOptions};

use super::jobs::JobResult;
use super::snapshot::Snapshot;
use super::theme::Theme;

/// How many results a query keeps.
pub const SEARCH_LIMIT: usize = 50;

/// The neural half of the explorer's search index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NeuralStatus {
    /// No embedding provider is configured: search is by words.
    Off,
    /// Embedding `done` of `total` declarations that had no stored vector.
    Embedding { done: usize, total: usize },
    /// Fused with this model's vectors.
    Ready { model: String },
    /// The provider failed; search stays by words.
    Failed(String),
}

impl NeuralStatus {
    /// How the pane's results are ranked, for its bottom line.
    pub fn describe(&self) -> String {
        match self {
            NeuralStatus::Off => "by words".to_owned(),
            NeuralStatus::Embedding { total: 0, .. } => "by words while embedding…".to_owned(),
            NeuralStatus::Embedding { done, total } => {
                format!("by words while embedding {done}/{total}")
            }
            NeuralStatus::Ready { model } => format!("by words + {model}"),
            NeuralStatus::Failed(_) => "by words (embedding failed)".to_owned(),
        }
    }
}

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
        neural: &NeuralStatus,
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
            format!("{} results {}", self.hits.len(), neural.describe())
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

/// Build the search index of a snapshot and `report` it as it grows: by
/// words first, then, when `ripple.toml` configures an embedding provider,
/// progress while the declarations without a stored vector are embedded,
/// and the hybrid index (or, if the provider fails, why not).
pub fn build_index(snap: &Arc<Snapshot>, report: &(dyn Fn(JobResult) + Sync)) {
    let send = |search: Option<SearchIndex>, neural: NeuralStatus| {
        report(JobResult::SearchIndex {
            snap: snap.clone(),
            search: search.map(Arc::new),
            neural,
        })
    };
    let opts = CorpusOptions::default();
    let t = Instant::now();
    let docs = corpus::documents(&snap.index, opts);
    let mut search = SearchIndex::from_documents(&docs, t.elapsed().as_secs_f64() * 1000.0);
    let cfg = match crate::semantic::config::load(&snap.index.root) {
        Ok(Some(cfg)) => cfg,
        Ok(None) => return send(Some(search), NeuralStatus::Off),
        Err(e) => return send(Some(search), NeuralStatus::Failed(e.to_string())),
    };
    let model = crate::semantic::backend_name(&cfg);
    send(
        Some(search.lexical_only()),
        NeuralStatus::Embedding { done: 0, total: 0 },
    );
    let embedder = match crate::semantic::embedder(cfg) {
        Ok(e) => e,
        Err(e) => return send(None, NeuralStatus::Failed(format!("{model}: {e}"))),
    };
    let progress = EmbedProgress {
        send: &|done, total| send(None, NeuralStatus::Embedding { done, total }),
        done: AtomicUsize::new(0),
        total: AtomicUsize::new(0),
        last: Mutex::new(Instant::now()),
    };
    match search.attach(&snap.index, &docs, embedder, opts, &progress) {
        Ok(_) => send(Some(search), NeuralStatus::Ready { model }),
        Err(e) => send(None, NeuralStatus::Failed(format!("{model}: {e}"))),
    }
}

/// Embedding progress for the pane, at most ten reports a second.
struct EmbedProgress<'a> {
    send: &'a (dyn Fn(usize, usize) + Sync),
    done: AtomicUsize,
    total: AtomicUsize,
    last: Mutex<Instant>,
}

impl crate::index::Progress for EmbedProgress<'_> {
    fn start(&self, total: usize) {
        // Each embedding space (bodies, names, names with returns) starts
        // its own count.
        self.done.store(0, Ordering::Relaxed);
        self.total.store(total, Ordering::Relaxed);
        (self.send)(0, total);
    }

    fn tick(&self) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        let Ok(mut last) = self.last.lock() else {
            return;
        };
        if last.elapsed() >= Duration::from_millis(100) {
            *last = Instant::now();
            (self.send)(done, self.total.load(Ordering::Relaxed));
        }
    }
}

/// Answer one search: a query's ranking, or the declarations most similar
/// to one (none when it is not searchable, like `ripple similar`). A query
/// the embedding provider cannot embed is answered by words alone.
pub fn answer(
    snap: &Snapshot,
    search: &SearchIndex,
    kind: SearchKind,
    query: &str,
) -> Vec<(DeclId, f32)> {
    let hits = match kind {
        SearchKind::Query if query.trim().is_empty() => Vec::new(),
        SearchKind::Query => search
            .search(query, SEARCH_LIMIT)
            .unwrap_or_else(|_| search.lexical.search(query, SEARCH_LIMIT)),
        SearchKind::Similar(d) => search.similar(&snap.index, d, SEARCH_LIMIT),
    };
    hits.into_iter().map(|h| (h.decl, h.score)).collect()
}

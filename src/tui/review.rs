//! The migration review pane: a change to one declaration streams from the
//! model into this pane — the impact assessment as it arrives, then each
//! SEARCH/REPLACE block as a planned hunk — and the user decides per hunk.
//!
//! The migration itself runs off the UI thread ([`run_migration`] on a
//! thread of its own, reporting [`MigrateMsg`]s tagged with a session, so a
//! message from a closed or restarted migration is dropped). Decisions name
//! hunks by [`HunkId`] (a hash of path, SEARCH and REPLACE), never by
//! position, so a screen that changed under the user cannot act on a
//! different hunk than the one shown.
//!
//! A hunk for a file the model was not shown, or for a new file, is kept
//! and marked, never accepted with the rest of its file: the user accepts it
//! on its own (the planner's [`OutsidePolicy::Review`]).

use std::sync::Arc;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use crate::edits::{self, DiscardedBlock, Hunk, HunkId, HunkState, OutsidePolicy, Resolution};
use crate::llm::trust::LlmFlags;
use crate::llm::{CancelToken, LlmError};
use crate::migrate::PACK_BUDGET;
use crate::migrate::{self, MigrateEvent, MigrateRequest, SyntaxRegression};
use crate::resolve::DeclId;
use crate::tokens::TokenCount;

use super::snapshot::Snapshot;
use super::theme::Theme;

/// Callers two hops out are in the pack (as `ripple migrate` does by default).
const PACK_DEPTH: u32 = 2;

/// What the migration thread reports, in order.
#[derive(Debug, Clone)]
pub enum MigrateMsg {
    /// The context pack is built: what it costs next to the whole repository.
    Pack {
        pack_tokens: TokenCount,
        repo_tokens: TokenCount,
        provider: String,
        model: String,
        /// The files of the change (see [`migrate::pack_files`]).
        files: Vec<String>,
    },
    /// Reply text as it arrives (assessment and blocks alike).
    Text(String),
    /// A block became a planned hunk.
    Hunk(Box<Hunk>),
    Retrying {
        attempt: u32,
        reason: String,
    },
    /// The reply ended (possibly cut short: `truncated`).
    Done(Box<Finished>),
    Cancelled,
    /// Nothing could be asked or the request failed (missing key, HTTP…).
    Failed(String),
}

#[derive(Debug, Clone)]
pub struct Finished {
    pub assessment: String,
    pub truncated: bool,
    pub truncation_note: Option<String>,
    /// Malformed blocks, dropped, with their line in the reply.
    pub discarded: Vec<DiscardedBlock>,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cost_usd: Option<f64>,
}

/// A message of migration `session`.
#[derive(Debug, Clone)]
pub struct MigrateUpdate {
    pub session: u64,
    pub msg: MigrateMsg,
}

/// Run one migration to its end, reporting as it goes. Never panics on
/// configuration problems: they arrive as [`MigrateMsg::Failed`].
pub fn run_migration(
    snap: &Snapshot,
    target: DeclId,
    change: &str,
    flags: &LlmFlags,
    cancel: &CancelToken,
    send: &mut dyn FnMut(MigrateMsg),
) {
    let index = &snap.index;
    let migrate::Settings {
        conventions,
        llm: config,
        context,
    } = match migrate::settings(index, target, flags) {
        Ok(s) => s,
        Err(e) => return send(MigrateMsg::Failed(error_text(&e))),
    };
    let req = MigrateRequest {
        target,
        change,
        depth: PACK_DEPTH,
        budget: PACK_BUDGET,
        similar: context.similar,
        outside: OutsidePolicy::Review,
    };
    let pack_msg = |pack: &crate::context::ContextPack| MigrateMsg::Pack {
        pack_tokens: pack.tokens,
        repo_tokens: pack.repo_tokens,
        provider: format!("{} at {}", config.provider.label(), config.host()),
        model: config.model.clone(),
        files: migrate::pack_files(index, pack),
    };
    let mut on_event = |ev: MigrateEvent| match ev {
        MigrateEvent::Pack(pack) => send(pack_msg(pack)),
        MigrateEvent::Text(t) => send(MigrateMsg::Text(t.to_owned())),
        MigrateEvent::Hunk(h) => send(MigrateMsg::Hunk(Box::new(h.clone()))),
        MigrateEvent::Retrying { attempt, reason } => send(MigrateMsg::Retrying {
            attempt,
            reason: reason.to_owned(),
        }),
    };
    let result = migrate::run(index, &conventions, &config, &req, cancel, &mut on_event);
    send(match result {
        Ok(o) => MigrateMsg::Done(Box::new(Finished {
            assessment: o.assessment,
            truncated: o.truncated,
            truncation_note: o.truncation_note,
            discarded: o.discarded,
            input_tokens: o.input_tokens,
            output_tokens: o.output_tokens,
            cost_usd: o.cost_usd,
        })),
        Err(LlmError::Cancelled) => MigrateMsg::Cancelled,
        Err(e) => MigrateMsg::Failed(e.to_string()),
    });
}

/// An error and its causes on one line, as the status line shows them.
fn error_text(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut cause = err.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

/// Start [`run_migration`] on a thread of its own.
pub fn spawn_migration(
    snap: Arc<Snapshot>,
    target: DeclId,
    change: String,
    flags: LlmFlags,
    cancel: CancelToken,
    mut send: impl FnMut(MigrateMsg) + Send + 'static,
) {
    std::thread::Builder::new()
        .name("ripple-migrate".into())
        .spawn(move || run_migration(&snap, target, &change, &flags, &cancel, &mut send))
        .expect("cannot start the migration thread");
}

#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// Building the context pack.
    Preparing,
    Streaming,
    Done,
    Cancelled,
    Failed(String),
}

/// One migration under review.
pub struct Review {
    pub session: u64,
    pub target: String,
    /// The target's qualified name: found again after a refresh renumbers
    /// declarations (`t` runs the tests that reach it).
    pub target_name: String,
    pub change: String,
    pub status: Status,
    pub pack: Option<(TokenCount, TokenCount, String)>,
    /// The files of the change: an edited hunk is re-planned against them.
    pub pack_files: Vec<String>,
    raw: String,
    pub finished: Option<Finished>,
    pub hunks: Vec<Hunk>,
    pub cursor: usize,
    /// Decision groups, newest last: each hunk's state before the decision.
    history: Vec<Vec<(HunkId, HunkState)>>,
    /// A stable hunk whose acceptance awaits the second `y`.
    pub confirm: Option<HunkId>,
    /// Hunks written to disk by the last `w` (what `U` undoes).
    pub written: Vec<HunkId>,
    /// Files the last `w` left with more syntax errors than before.
    pub broken: Vec<SyntaxRegression>,
    pub retry: Option<String>,
    /// Manual scroll; `None` follows the cursor.
    pub scroll: Option<usize>,
    pub cancel: CancelToken,
}

impl Review {
    pub fn new(
        session: u64,
        target: String,
        target_name: String,
        change: String,
        cancel: CancelToken,
    ) -> Review {
        Review {
            session,
            target,
            target_name,
            change,
            status: Status::Preparing,
            pack: None,
            pack_files: Vec::new(),
            raw: String::new(),
            finished: None,
            hunks: Vec::new(),
            cursor: 0,
            history: Vec::new(),
            confirm: None,
            written: Vec::new(),
            broken: Vec::new(),
            retry: None,
            scroll: None,
            cancel,
        }
    }

    pub fn is_running(&self) -> bool {
        matches!(self.status, Status::Preparing | Status::Streaming)
    }

    pub fn truncated(&self) -> bool {
        self.finished.as_ref().is_some_and(|f| f.truncated)
    }

    pub fn on_msg(&mut self, msg: MigrateMsg) {
        match msg {
            MigrateMsg::Pack {
                pack_tokens,
                repo_tokens,
                provider,
                model,
                files,
            } => {
                self.pack = Some((pack_tokens, repo_tokens, format!("{provider} · {model}")));
                self.pack_files = files;
                self.status = Status::Streaming;
            }
            MigrateMsg::Text(t) => {
                self.retry = None;
                self.raw.push_str(&t);
            }
            MigrateMsg::Hunk(h) => {
                let first_undecided = !self.hunks.iter().any(|h| h.state == HunkState::Pending);
                self.hunks.push(*h);
                if first_undecided {
                    self.cursor = self.hunks.len() - 1;
                }
            }
            MigrateMsg::Retrying { attempt, reason } => {
                self.retry = Some(format!("retrying (attempt {attempt}): {reason}"));
            }
            MigrateMsg::Done(f) => {
                self.finished = Some(*f);
                self.status = Status::Done;
            }
            MigrateMsg::Cancelled => self.status = Status::Cancelled,
            MigrateMsg::Failed(e) => self.status = Status::Failed(e),
        }
    }

    /// The assessment so far: the reply without its edit blocks (the path
    /// line before a fence and everything inside fences are left out).
    pub fn assessment(&self) -> String {
        if let Some(f) = &self.finished {
            return f.assessment.trim().to_owned();
        }
        let mut out: Vec<&str> = Vec::new();
        let mut fenced = false;
        for line in self.raw.lines() {
            if line.trim_start().starts_with("```") {
                if !fenced {
                    // The line before an opening fence names the file.
                    while out.last().is_some_and(|l| l.trim().is_empty()) {
                        out.pop();
                    }
                    out.pop();
                }
                fenced = !fenced;
                continue;
            }
            if !fenced && !line.starts_with("<<<<<<<") {
                out.push(line);
            }
        }
        out.join("\n").trim().to_owned()
    }

    pub fn current(&self) -> Option<&Hunk> {
        self.hunks.get(self.cursor)
    }

    fn index_of(&self, id: &HunkId) -> Option<usize> {
        self.hunks.iter().position(|h| &h.id == id)
    }

    /// Move to the next undecided hunk after the cursor (wrapping).
    fn next_undecided(&mut self) {
        let n = self.hunks.len();
        if let Some(i) = (1..=n)
            .map(|k| (self.cursor + k) % n)
            .find(|&i| self.hunks[i].state == HunkState::Pending)
        {
            self.cursor = i;
        } else if self.cursor + 1 < n {
            self.cursor += 1;
        }
        self.scroll = None;
    }

    pub fn move_cursor(&mut self, delta: isize) {
        if self.hunks.is_empty() {
            return;
        }
        let last = self.hunks.len() as isize - 1;
        self.cursor = (self.cursor as isize + delta).clamp(0, last) as usize;
        self.confirm = None;
        self.scroll = None;
    }

    /// Decide the hunk under the cursor, identified by `id` (what the screen
    /// showed). Returns a note for the status line.
    pub fn decide(&mut self, id: &HunkId, state: HunkState) -> Result<Option<String>, String> {
        let i = self
            .index_of(id)
            .ok_or_else(|| "that hunk is no longer in the review".to_owned())?;
        let h = &self.hunks[i];
        if self.written.contains(id) {
            return Err("already written; U undoes the write".to_owned());
        }
        if state == HunkState::Accepted {
            if let Some(reason) = not_acceptable(h) {
                self.confirm = None;
                return Err(reason);
            }
            if h.is_stable() && self.confirm.as_ref() != Some(id) {
                self.confirm = Some(id.clone());
                return Ok(Some(
                    "changes a STABLE interface: press y again to confirm".to_owned(),
                ));
            }
        }
        self.confirm = None;
        self.history.push(vec![(id.clone(), h.state)]);
        self.hunks[i].state = state;
        self.cursor = i;
        self.next_undecided();
        Ok(None)
    }

    /// Accept or reject every undecided hunk in the cursor's file. Accepting
    /// leaves conflicts, refusals, stable hunks and hunks outside the change
    /// (or creating a file) for an explicit decision.
    pub fn decide_file(&mut self, state: HunkState) -> Result<Option<String>, String> {
        let path = self
            .current()
            .map(|h| h.path.clone())
            .ok_or_else(|| "no hunk yet".to_owned())?;
        let mut group = Vec::new();
        let mut left = 0;
        for h in self.hunks.iter_mut().filter(|h| {
            h.path == path && matches!(h.state, HunkState::Pending | HunkState::Skipped)
        }) {
            if state == HunkState::Accepted
                && (not_acceptable(h).is_some() || h.needs_own_decision())
            {
                left += 1;
                continue;
            }
            group.push((h.id.clone(), h.state));
            h.state = state;
        }
        self.confirm = None;
        if group.is_empty() && left > 0 {
            return Err(format!(
                "{left} hunk(s) in {path} need a decision of their own: y accepts the one shown"
            ));
        }
        if group.is_empty() {
            return Err(format!("nothing left to decide in {path}"));
        }
        let n = group.len();
        self.history.push(group);
        self.next_undecided();
        let verb = if state == HunkState::Accepted {
            "accepted"
        } else {
            "rejected"
        };
        Ok(Some(if left > 0 {
            format!("{verb} {n} hunk(s) in {path}; {left} need a decision of their own")
        } else {
            format!("{verb} {n} hunk(s) in {path}")
        }))
    }

    pub fn undo_decision(&mut self) -> Result<(), String> {
        let group = self
            .history
            .pop()
            .ok_or_else(|| "no decision to undo".to_owned())?;
        let mut first = None;
        for (id, state) in group {
            if let Some(i) = self.index_of(&id) {
                self.hunks[i].state = state;
                first = first.or(Some(i));
            }
        }
        if let Some(i) = first {
            self.cursor = i;
        }
        self.confirm = None;
        self.scroll = None;
        Ok(())
    }

    /// Swap hunk `id` for its edited, re-planned version (undecided again).
    pub fn replace(&mut self, id: &HunkId, mut new: Hunk) -> bool {
        let Some(i) = self.index_of(id) else {
            return false;
        };
        new.state = HunkState::Pending;
        self.hunks[i] = new;
        self.cursor = i;
        self.confirm = None;
        true
    }

    /// Accepted hunks not yet written, in reply order.
    pub fn to_write(&self) -> Vec<&Hunk> {
        self.hunks
            .iter()
            .filter(|h| h.state == HunkState::Accepted && !self.written.contains(&h.id))
            .collect()
    }

    /// `(path, first line, last line)` of every accepted hunk, for the tree.
    pub fn accepted_ranges(&self) -> Vec<(String, usize, usize)> {
        self.hunks
            .iter()
            .filter(|h| h.state == HunkState::Accepted)
            .filter_map(|h| h.lines().map(|(s, e)| (h.path.clone(), s, e.max(s))))
            .collect()
    }

    fn counts(&self) -> String {
        let count = |s| self.hunks.iter().filter(|h| h.state == s).count();
        format!(
            "{} hunk(s) · {} accepted · {} rejected · {} skipped · {} pending",
            self.hunks.len(),
            count(HunkState::Accepted),
            count(HunkState::Rejected),
            count(HunkState::Skipped),
            count(HunkState::Pending)
        )
    }

    /// The pane's text, and the line where the cursor's hunk starts.
    fn lines(&self, theme: &Theme, width: usize) -> (Vec<Line<'static>>, usize) {
        let mut out: Vec<Line<'static>> = Vec::new();
        out.push(Line::from(vec![
            Span::styled("change: ", theme.dim()),
            Span::raw(self.change.clone()),
        ]));
        if let Some((pack, repo, model)) = &self.pack {
            let ratio = if repo.0 > 0 {
                format!(" ({:.1}%)", pack.0 as f64 * 100.0 / repo.0 as f64)
            } else {
                String::new()
            };
            out.push(Line::styled(
                format!(
                    "context: {} tokens of {} in the repository{ratio} · {model}",
                    pack.0, repo.0
                ),
                theme.dim(),
            ));
        }
        let status = match &self.status {
            Status::Preparing => Line::styled("building the context pack…", theme.warning()),
            Status::Streaming => Line::styled(
                self.retry
                    .clone()
                    .unwrap_or_else(|| "streaming… (ctrl-c cancels)".to_owned()),
                theme.warning(),
            ),
            Status::Cancelled => Line::styled(
                "cancelled: the reply was cut short; nothing from it can be written",
                theme.error(),
            ),
            Status::Failed(e) => Line::styled(format!("error: {e}"), theme.error()),
            Status::Done => match &self.finished {
                Some(f) if f.truncated => Line::styled(
                    format!(
                        "TRUNCATED reply{}: its hunks are shown but cannot be written",
                        f.truncation_note
                            .as_deref()
                            .map(|n| format!(" ({n})"))
                            .unwrap_or_default()
                    ),
                    theme.error(),
                ),
                Some(f) => {
                    let cost = f
                        .cost_usd
                        .map(|c| format!(" · ~${c:.4}"))
                        .unwrap_or_default();
                    let discarded = if f.discarded.is_empty() {
                        String::new()
                    } else {
                        format!(
                            " · {} malformed block(s) dropped, listed below",
                            f.discarded.len()
                        )
                    };
                    Line::styled(
                        format!(
                            "done · {} in / {} out tokens{cost}{discarded}",
                            f.input_tokens, f.output_tokens
                        ),
                        theme.dim(),
                    )
                }
                None => Line::raw("done"),
            },
        };
        out.push(status);
        for d in self.finished.iter().flat_map(|f| &f.discarded) {
            out.push(Line::styled(
                format!("dropped a malformed block: {}", d.describe()),
                theme.error(),
            ));
        }
        out.push(Line::raw(""));
        let assessment = self.assessment();
        if !assessment.is_empty() {
            for l in assessment.lines() {
                let style = if l.starts_with('#') {
                    theme.bold()
                } else {
                    theme.plain()
                };
                out.push(Line::styled(l.to_owned(), style));
            }
            out.push(Line::raw(""));
        }
        if self.hunks.is_empty() {
            if self.is_running() {
                out.push(Line::styled("no hunk planned yet", theme.dim()));
            }
            return (out, 0);
        }
        out.push(Line::styled(self.counts(), theme.bold()));
        let mut cursor_line = out.len();
        for (i, h) in self.hunks.iter().enumerate() {
            if i == self.cursor {
                cursor_line = out.len();
            }
            out.push(Line::styled("─".repeat(width.min(200)), theme.dim()));
            let mut badge = vec![Span::styled(
                format!("{} #{} ", if i == self.cursor { "▶" } else { " " }, i + 1),
                theme.bold(),
            )];
            let (label, style) = if self.written.contains(&h.id) {
                ("written", theme.accepted())
            } else {
                match h.state {
                    HunkState::Accepted => ("accepted", theme.accepted()),
                    HunkState::Rejected => ("rejected", theme.dim()),
                    HunkState::Skipped => ("skipped", theme.warning()),
                    HunkState::Pending => ("pending", theme.plain()),
                }
            };
            badge.push(Span::styled(format!("[{label}]"), style));
            match &h.resolution {
                Resolution::Conflict { .. } => badge.push(Span::styled(
                    " CONFLICT — cannot be accepted",
                    theme.error(),
                )),
                Resolution::Refused { .. } => {
                    badge.push(Span::styled(" REFUSED — cannot be accepted", theme.error()))
                }
                Resolution::Resolved { .. } => {}
            }
            if let Some(b) = self.broken.iter().find(|b| b.hunks.contains(&h.id)) {
                badge.push(Span::styled(
                    format!(
                        " SYNTAX ERROR — {} has {} syntax error(s) after the write (was {}); U undoes",
                        b.path, b.errors, b.before
                    ),
                    theme.error(),
                ));
            }
            match h.scope.label() {
                Some(label) if h.is_resolved() => badge.push(Span::styled(
                    format!(
                        " {} — {}; accept it on its own (y)",
                        label.to_uppercase(),
                        if h.scope == edits::Scope::NewFile {
                            "creates a file"
                        } else {
                            "the model was not shown this file"
                        }
                    ),
                    theme.warning(),
                )),
                _ => {}
            }
            if h.is_stable() {
                let decided = self.written.contains(&h.id) || h.state == HunkState::Accepted;
                badge.push(Span::styled(
                    if decided {
                        " STABLE interface — confirmed"
                    } else if self.confirm.as_ref() == Some(&h.id) {
                        " STABLE interface — press y again to confirm"
                    } else {
                        " STABLE interface — needs a second confirmation"
                    },
                    theme.stable(),
                ));
            }
            out.push(Line::from(badge));
            let diff = edits::render_hunk(h);
            for (k, l) in diff.lines().enumerate() {
                let style = if k == 0 {
                    if h.is_stable() {
                        theme.stable()
                    } else {
                        theme.diff_meta()
                    }
                } else if l.starts_with("@@") {
                    theme.diff_meta()
                } else if l.starts_with('+') {
                    theme.diff_add()
                } else if l.starts_with('-') {
                    theme.diff_del()
                } else if l.starts_with("nearest lines") {
                    theme.warning()
                } else {
                    theme.plain()
                };
                out.push(Line::styled(l.to_owned(), style));
            }
        }
        (out, cursor_line)
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, theme: &Theme, focused: bool) {
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border(focused))
            .title(Span::styled(
                format!(" migrate callers of {} ", self.target),
                theme.title(focused),
            ))
            .title_bottom(Span::styled(format!(" {} ", self.counts()), theme.dim()));
        let inner = block.inner(area);
        let (lines, cursor_line) = self.lines(theme, inner.width as usize);
        let height = inner.height as usize;
        let scroll = match self.scroll {
            Some(s) => s,
            None if cursor_line + height / 2 > height => cursor_line.saturating_sub(1),
            None => 0,
        };
        let scroll = scroll.min(lines.len().saturating_sub(1));
        frame.render_widget(Clear, area);
        frame.render_widget(
            Paragraph::new(lines)
                .block(block)
                .wrap(Wrap { trim: false })
                .scroll((scroll.min(u16::MAX as usize) as u16, 0)),
            area,
        );
    }

    /// The scroll the screen shows now (for paging from the followed position).
    pub fn page(&mut self, delta: isize) {
        let base = self.scroll.unwrap_or(0) as isize;
        self.scroll = Some((base + delta).max(0) as usize);
    }
}

/// Why a hunk cannot be accepted, if it cannot.
fn not_acceptable(h: &Hunk) -> Option<String> {
    match &h.resolution {
        Resolution::Resolved { .. } => None,
        Resolution::Conflict { reason, .. } => Some(format!(
            "a conflict cannot be accepted ({reason}); n rejects it"
        )),
        Resolution::Refused { reason } => {
            Some(format!("a refused hunk cannot be accepted ({reason})"))
        }
    }
}

//! Streaming parser for SEARCH/REPLACE edit blocks (`llm-wire-formats.md`
//! §5). The model's reply arrives in fragments cut anywhere — inside a line,
//! inside a marker — so the parser buffers up to the next LF and runs a
//! line-level state machine; each block is returned the moment its
//! `>>>>>>> REPLACE` line is complete, so the review pane can show it while the
//! model is still writing the next one.
//!
//! Parsing is lenient, applying is strict: the path may stand before the fence
//! (`diff`) or as the fence's first line (`diff-fenced`), a missing path reuses
//! the previous block's, several blocks may share one fence, CRLF is
//! normalised to LF, and fences of four or more backticks are accepted. A
//! block whose closing marker never arrives is discarded and reported, never
//! guessed at.

/// One complete SEARCH/REPLACE block from the model's reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditBlock {
    /// 0-based position among the blocks of the reply.
    pub index: usize,
    /// The path as the model wrote it (decorations such as backticks or a
    /// trailing `:` removed); validated later, by the planner.
    pub path: String,
    pub path_origin: PathOrigin,
    /// The SEARCH lines, each ending in LF (empty = create a new file).
    pub search: String,
    /// The REPLACE lines, each ending in LF (empty = delete).
    pub replace: String,
    /// 1-based line of the reply holding `<<<<<<< SEARCH`.
    pub reply_line: usize,
}

/// Where a block's path came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathOrigin {
    /// A path line just before the SEARCH marker (before or inside the fence).
    Named,
    /// No path line: the previous block's path was reused.
    Reused,
}

/// What was left when the reply ended.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParseSummary {
    /// Everything outside the edit blocks (the impact assessment), LF-ended lines.
    pub prose: String,
    /// Blocks completed by the reply's last line when it had no final LF;
    /// every other block was already returned by `push`.
    pub final_blocks: Vec<EditBlock>,
    /// Blocks returned in all, by `push` and in `final_blocks`.
    pub block_count: usize,
    /// Blocks that were started but not usable.
    pub discarded: Vec<DiscardedBlock>,
}

/// A block that was started but never completed, or was malformed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct DiscardedBlock {
    pub reply_line: usize,
    pub path: Option<String>,
    /// Why it was dropped and what the model should do instead.
    pub reason: String,
    /// The block's lines as received, for a re-prompt.
    pub text: String,
}

impl DiscardedBlock {
    /// `reply line 12 (a.py): why` — one line for a report.
    pub fn describe(&self) -> String {
        let path = self
            .path
            .as_deref()
            .map(|p| format!(" ({p})"))
            .unwrap_or_default();
        format!("reply line {}{path}: {}", self.reply_line, self.reason)
    }
}

/// Incremental parser: feed fragments with [`push`](Self::push), end with
/// [`finish`](Self::finish).
#[derive(Debug, Default)]
pub struct EditStreamParser {
    /// Text after the last LF, waiting for the rest of its line.
    pending: String,
    line_no: usize,
    state: State,
    /// The code fence open in the prose, if any (its backtick run).
    open_fence: Option<String>,
    /// After a block inside a fence, the fence's closing line belongs to the
    /// block, not to the prose.
    swallow_close: bool,
    /// The last few prose lines since the last block, to find a path line.
    recent: Vec<Recent>,
    prose: Vec<String>,
    last_path: Option<String>,
    next_index: usize,
    discarded: Vec<DiscardedBlock>,
}

#[derive(Debug, Default)]
enum State {
    #[default]
    Prose,
    Search(Partial),
    Replace(Partial),
    /// A malformed block: skip to its `>>>>>>> REPLACE`.
    Skip(DiscardedBlock),
}

#[derive(Debug)]
struct Partial {
    reply_line: usize,
    path: Option<String>,
    origin: PathOrigin,
    search: String,
    replace: String,
    raw: String,
}

#[derive(Debug)]
struct Recent {
    kind: RecentKind,
    /// Index of the line in `prose`.
    prose_index: usize,
}

#[derive(Debug)]
enum RecentKind {
    Blank,
    FenceOpen,
    Text(String),
}

/// How many prose lines back a path line may stand (blank and fence lines
/// included), as in aider.
const LOOKBACK: usize = 4;

impl EditStreamParser {
    pub fn new() -> EditStreamParser {
        EditStreamParser::default()
    }

    /// Feed the next fragment of the reply; returns the blocks it completed.
    pub fn push(&mut self, text: &str) -> Vec<EditBlock> {
        self.pending.push_str(text);
        let mut out = Vec::new();
        let Some(last_lf) = self.pending.rfind('\n') else {
            return out;
        };
        let rest = self.pending.split_off(last_lf + 1);
        let complete = std::mem::replace(&mut self.pending, rest);
        for line in complete.split_terminator('\n') {
            if let Some(block) = self.line(line.strip_suffix('\r').unwrap_or(line)) {
                out.push(block);
            }
        }
        out
    }

    /// End of reply: the last line (if it had no LF) is parsed, an unfinished
    /// block is discarded and reported.
    pub fn finish(mut self) -> ParseSummary {
        let mut final_blocks = Vec::new();
        let tail = std::mem::take(&mut self.pending);
        if !tail.is_empty()
            && let Some(block) = self.line(tail.strip_suffix('\r').unwrap_or(&tail))
        {
            final_blocks.push(block);
        }
        let unfinished = match std::mem::take(&mut self.state) {
            State::Prose => None,
            State::Search(p) | State::Replace(p) => Some(DiscardedBlock {
                reply_line: p.reply_line,
                path: p.path,
                reason: "the reply ended before `>>>>>>> REPLACE`; resend the whole block"
                    .to_owned(),
                text: p.raw,
            }),
            State::Skip(d) => Some(d),
        };
        self.discarded.extend(unfinished);
        let mut prose = String::new();
        for line in &self.prose {
            prose.push_str(line);
            prose.push('\n');
        }
        ParseSummary {
            prose,
            final_blocks,
            block_count: self.next_index,
            discarded: self.discarded,
        }
    }

    fn line(&mut self, line: &str) -> Option<EditBlock> {
        self.line_no += 1;
        match std::mem::take(&mut self.state) {
            State::Prose => {
                self.prose_line(line);
                None
            }
            State::Search(mut p) => {
                if is_marker(line, '=', None) {
                    p.raw.push_str(line);
                    p.raw.push('\n');
                    self.state = State::Replace(p);
                } else if is_marker(line, '<', Some("SEARCH")) {
                    self.restart(p, "a new `<<<<<<< SEARCH` came before `=======`", line);
                } else if is_marker(line, '>', Some("REPLACE")) {
                    self.discard(p, "`>>>>>>> REPLACE` came before `=======`");
                } else {
                    push_line(&mut p.search, line);
                    push_line(&mut p.raw, line);
                    self.state = State::Search(p);
                }
                None
            }
            State::Replace(mut p) => {
                if is_marker(line, '>', Some("REPLACE")) {
                    push_line(&mut p.raw, line);
                    return self.complete(p);
                }
                if is_marker(line, '<', Some("SEARCH")) {
                    self.restart(
                        p,
                        "a new `<<<<<<< SEARCH` came before `>>>>>>> REPLACE`",
                        line,
                    );
                } else if is_marker(line, '=', None) {
                    push_line(&mut p.raw, line);
                    self.state = State::Skip(DiscardedBlock {
                        reply_line: p.reply_line,
                        path: p.path,
                        reason: "a second `=======` inside the block; a file line that is exactly \
                                 a marker cannot be matched, anchor on the lines around it instead"
                            .to_owned(),
                        text: p.raw,
                    });
                } else {
                    push_line(&mut p.replace, line);
                    push_line(&mut p.raw, line);
                    self.state = State::Replace(p);
                }
                None
            }
            State::Skip(mut d) => {
                push_line(&mut d.text, line);
                if is_marker(line, '>', Some("REPLACE")) {
                    self.discarded.push(d);
                    self.after_block();
                } else {
                    self.state = State::Skip(d);
                }
                None
            }
        }
    }

    fn prose_line(&mut self, line: &str) {
        if is_marker(line, '<', Some("SEARCH")) {
            self.start_block(line);
            return;
        }
        let blank = line.trim().is_empty();
        if self.swallow_close && !blank {
            self.swallow_close = false;
            if let Some(fence) = &self.open_fence
                && closes_fence(line, fence)
            {
                self.open_fence = None;
                return;
            }
        }
        let kind = match &self.open_fence {
            Some(fence) if closes_fence(line, fence) => {
                self.open_fence = None;
                RecentKind::Text(line.to_owned())
            }
            None if fence_of(line).is_some() => {
                self.open_fence = fence_of(line).map(str::to_owned);
                RecentKind::FenceOpen
            }
            _ if blank => RecentKind::Blank,
            _ => RecentKind::Text(line.to_owned()),
        };
        self.recent.push(Recent {
            kind,
            prose_index: self.prose.len(),
        });
        if self.recent.len() > LOOKBACK {
            self.recent.remove(0);
        }
        self.prose.push(line.to_owned());
    }

    /// A `<<<<<<< SEARCH` line: find the path in the lines just before it.
    fn start_block(&mut self, marker_line: &str) {
        let mut consumed = Vec::new();
        let mut path = None;
        for r in self.recent.iter().rev() {
            match &r.kind {
                RecentKind::Blank => {}
                RecentKind::FenceOpen => consumed.push(r.prose_index),
                RecentKind::Text(text) if path.is_none() => match path_from_line(text) {
                    Some(p) => {
                        path = Some(p);
                        consumed.push(r.prose_index);
                    }
                    None => break,
                },
                RecentKind::Text(_) => break,
            }
        }
        // The path and fence lines belong to the block, not to the prose.
        consumed.sort_unstable();
        for i in consumed.into_iter().rev() {
            if i < self.prose.len() {
                self.prose.remove(i);
            }
        }
        self.recent.clear();
        let (path, origin) = match path {
            Some(p) => (Some(p), PathOrigin::Named),
            None => (self.last_path.clone(), PathOrigin::Reused),
        };
        let mut raw = String::new();
        if let Some(p) = &path {
            push_line(&mut raw, p);
        }
        push_line(&mut raw, marker_line);
        self.state = State::Search(Partial {
            reply_line: self.line_no,
            path,
            origin,
            search: String::new(),
            replace: String::new(),
            raw,
        });
    }

    fn complete(&mut self, p: Partial) -> Option<EditBlock> {
        self.after_block();
        let Some(path) = p.path else {
            self.discarded.push(DiscardedBlock {
                reply_line: p.reply_line,
                path: None,
                reason: "no file path before the block and no earlier block to take it from; \
                         put the repository-relative path alone on the line before the fence"
                    .to_owned(),
                text: p.raw,
            });
            return None;
        };
        self.last_path = Some(path.clone());
        let index = self.next_index;
        self.next_index += 1;
        Some(EditBlock {
            index,
            path,
            path_origin: p.origin,
            search: p.search,
            replace: p.replace,
            reply_line: p.reply_line,
        })
    }

    /// A new `<<<<<<< SEARCH` inside an unfinished block: drop the block, and
    /// let the new one find its path line among the dropped block's last
    /// lines (where it landed when the closing marker went missing).
    fn restart(&mut self, p: Partial, reason: &str, marker_line: &str) {
        let body = if p.replace.is_empty() {
            &p.search
        } else {
            &p.replace
        };
        let tail: Vec<Recent> = body
            .split_terminator('\n')
            .rev()
            .take(LOOKBACK)
            .map(|line| Recent {
                kind: if line.trim().is_empty() {
                    RecentKind::Blank
                } else if fence_of(line).is_some() {
                    RecentKind::FenceOpen
                } else {
                    RecentKind::Text(line.to_owned())
                },
                // Not prose lines: nothing to take back out of the prose.
                prose_index: usize::MAX,
            })
            .collect();
        self.discard(p, reason);
        self.recent = tail.into_iter().rev().collect();
        self.start_block(marker_line);
    }

    fn discard(&mut self, p: Partial, reason: &str) {
        self.discarded.push(DiscardedBlock {
            reply_line: p.reply_line,
            path: p.path,
            reason: format!("{reason}; resend the whole block"),
            text: p.raw,
        });
        self.after_block();
    }

    fn after_block(&mut self) {
        self.state = State::Prose;
        self.recent.clear();
        self.swallow_close = self.open_fence.is_some();
    }
}

fn push_line(buf: &mut String, line: &str) {
    buf.push_str(line);
    buf.push('\n');
}

/// A marker line: exactly seven `ch`, then ` WORD` if given, then optional
/// trailing spaces. Exactly seven, as the grammar says: a reStructuredText
/// underline of five or nine `=` inside SEARCH must stay a body line.
fn is_marker(line: &str, ch: char, word: Option<&str>) -> bool {
    let t = line.trim_end();
    let run = t.chars().take_while(|&c| c == ch).count();
    if run != 7 {
        return false;
    }
    let rest = &t[run..];
    match word {
        None => rest.is_empty(),
        Some(w) => rest.strip_prefix(' ').is_some_and(|r| r.trim_start() == w),
    }
}

/// The backtick run of a fence-opening line (```` ```python ````), if it is one.
fn fence_of(line: &str) -> Option<&str> {
    let t = line.trim();
    let run = t.chars().take_while(|&c| c == '`').count();
    (run >= 3 && !t[run..].contains('`')).then(|| &t[..run])
}

/// A closing fence: only backticks, at least as many as the opening run.
fn closes_fence(line: &str, fence: &str) -> bool {
    let t = line.trim();
    t.len() >= fence.len() && t.chars().all(|c| c == '`')
}

/// The path named by a path line, with the decorations models add removed
/// (`**a.py**`, `` `a.py` ``, `# a.py`, `a.py:`). A line with spaces or ending
/// in `.` is prose ("Here is the change."), not a path.
fn path_from_line(line: &str) -> Option<String> {
    let mut s = line.trim();
    s = s.trim_start_matches('#').trim_start();
    for prefix in ["File:", "file:", "Path:", "path:"] {
        if let Some(rest) = s.strip_prefix(prefix) {
            s = rest.trim_start();
        }
    }
    s = s.trim_end_matches(':');
    s = s.trim_matches(|c| matches!(c, '*' | '`' | '"' | '\''));
    s = s.trim_end_matches(':');
    let looks_like_path = !s.is_empty()
        && !s.ends_with('.')
        && !s.chars().any(|c| c.is_whitespace() || c == '`')
        && s.chars().any(char::is_alphanumeric);
    looks_like_path.then(|| s.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_all(text: &str) -> (Vec<EditBlock>, ParseSummary) {
        let mut p = EditStreamParser::new();
        let mut blocks = p.push(text);
        let summary = p.finish();
        blocks.extend(summary.final_blocks.iter().cloned());
        (blocks, summary)
    }

    #[test]
    fn markers_are_exactly_seven_characters() {
        assert!(is_marker("<<<<<<< SEARCH", '<', Some("SEARCH")));
        assert!(is_marker("<<<<<<< SEARCH   ", '<', Some("SEARCH")));
        assert!(!is_marker("<<<<<< SEARCH", '<', Some("SEARCH")));
        assert!(!is_marker("<<<<<<<SEARCH", '<', Some("SEARCH")));
        assert!(is_marker("=======", '=', None));
        assert!(!is_marker("========", '=', None));
        assert!(!is_marker("=======x", '=', None));
    }

    #[test]
    fn path_lines_lose_their_decorations() {
        assert_eq!(path_from_line("src/a.py").as_deref(), Some("src/a.py"));
        assert_eq!(path_from_line("**src/a.py**").as_deref(), Some("src/a.py"));
        assert_eq!(path_from_line("`src/a.py`:").as_deref(), Some("src/a.py"));
        assert_eq!(path_from_line("### src/a.py").as_deref(), Some("src/a.py"));
        assert_eq!(
            path_from_line("File: src/a.py").as_deref(),
            Some("src/a.py")
        );
        assert_eq!(path_from_line("Here is the change:"), None);
        assert_eq!(path_from_line("Done."), None);
        assert_eq!(path_from_line("---"), None);
    }

    #[test]
    fn a_plain_code_fence_in_prose_is_prose() {
        let (blocks, s) = parse_all("Look:\n```python\nx = 1\n```\nok\n");
        assert!(blocks.is_empty());
        assert_eq!(s.prose, "Look:\n```python\nx = 1\n```\nok\n");
    }

    #[test]
    fn second_divider_discards_the_block_until_its_end() {
        let (blocks, s) = parse_all(
            "a.py\n```\n<<<<<<< SEARCH\nx\n=======\ny\n=======\nz\n>>>>>>> REPLACE\n```\nafter\n",
        );
        assert!(blocks.is_empty());
        assert_eq!(s.discarded.len(), 1);
        assert!(s.discarded[0].reason.contains("second `=======`"));
        assert_eq!(s.prose, "after\n");
    }
}

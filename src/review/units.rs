//! Review units: the pieces of code a chunk is packed from — a whole file,
//! or, when a file is larger than the room in one chunk, a part of it cut
//! at declaration boundaries, never inside a function.
//!
//! Code is shown to the model with line numbers (`12|code`) so findings can
//! point at lines the model actually saw and can be checked. Every numbered
//! line starts with a digit, so the tokenizer never merges across a line
//! break: the token count of a block is the sum of its lines' counts, which
//! is what lets the planner split and pack by counts it can trust.

use serde::Serialize;

use crate::index::Index;
use crate::model::{FileId, LocalDecl};
use crate::tokens::{self, TokenCount};

use super::scope::{SkipKind, SkippedFile};

/// An inclusive, 1-based range of lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Lines {
    pub start: u32,
    pub end: u32,
}

impl Lines {
    pub fn new(start: u32, end: u32) -> Lines {
        Lines { start, end }
    }

    pub fn contains(self, line: u32) -> bool {
        self.start <= line && line <= self.end
    }

    pub fn len(self) -> u32 {
        self.end + 1 - self.start
    }

    pub fn is_empty(self) -> bool {
        self.end < self.start
    }
}

impl std::fmt::Display for Lines {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.start == self.end {
            write!(f, "{}", self.start)
        } else {
            write!(f, "{}-{}", self.start, self.end)
        }
    }
}

/// One piece of code to review.
#[derive(Debug, Clone)]
pub struct Unit {
    /// Index into `Index::files`.
    pub file: FileId,
    pub path: String,
    /// The lines shown, in order (one range for a file or a part; several
    /// for the changed declarations of a diff review).
    pub ranges: Vec<Lines>,
    /// Lines in the whole file (to say "lines 40-90 of 300").
    pub file_lines: u32,
    /// Tokens of the rendered blocks, headers included.
    pub tokens: TokenCount,
    /// `(k, n)` when this is part k of a file split into n parts.
    pub part: Option<(u32, u32)>,
}

/// A file's text split into lines (without their line breaks).
pub struct FileText {
    pub lines: Vec<String>,
}

impl FileText {
    pub fn read(index: &Index, file: FileId) -> std::io::Result<FileText> {
        let path = index.root.join(&index.files[file.index()].path);
        let bytes = crate::inventory::read_regular(path)?;
        Ok(FileText::from_bytes(&bytes))
    }

    pub fn from_bytes(bytes: &[u8]) -> FileText {
        let text = String::from_utf8_lossy(bytes);
        let mut lines: Vec<String> = text
            .split('\n')
            .map(|l| l.strip_suffix('\r').unwrap_or(l).to_owned())
            .collect();
        // A final line break ends the last line; it does not start another.
        if lines.last().is_some_and(|l| l.is_empty()) {
            lines.pop();
        }
        FileText { lines }
    }

    pub fn len(&self) -> u32 {
        self.lines.len() as u32
    }

    pub fn is_empty(&self) -> bool {
        self.lines.iter().all(|l| l.trim().is_empty())
    }

    /// The text of a range, without numbers (for report excerpts).
    pub fn excerpt(&self, r: Lines) -> Vec<(u32, &str)> {
        let end = r.end.min(self.len());
        (r.start.max(1)..=end)
            .map(|n| (n, self.lines[n as usize - 1].as_str()))
            .collect()
    }
}

/// The heading of one block of code in a prompt.
pub fn block_header(path: &str, r: Lines, file_lines: u32) -> String {
    format!("### {path} (lines {}-{} of {file_lines})\n", r.start, r.end)
}

/// One numbered line as the model sees it.
fn numbered_line(out: &mut String, n: u32, line: &str) {
    use std::fmt::Write;
    let _ = writeln!(out, "{n}|{line}");
}

/// The blocks of a unit, as they appear in a prompt.
pub fn render_unit(text: &FileText, path: &str, ranges: &[Lines]) -> String {
    let mut out = String::new();
    for &r in ranges {
        out.push_str(&block_header(path, r, text.len()));
        for (n, line) in text.excerpt(r) {
            numbered_line(&mut out, n, line);
        }
    }
    out
}

/// A unit for `ranges` of a file, with its token count.
pub fn unit_of(index: &Index, file: FileId, text: &FileText, ranges: Vec<Lines>) -> Unit {
    let path = index.files[file.index()].path.clone();
    let tokens = tokens::count(&render_unit(text, &path, &ranges));
    Unit {
        file,
        path,
        ranges,
        file_lines: text.len(),
        tokens,
        part: None,
    }
}

/// A file as units of at most `cap` tokens each: the whole file when it
/// fits, else parts cut between top-level declarations (descending into a
/// class whose methods are the only way to fit). A single declaration or
/// top-level statement larger than `cap` is listed as skipped.
pub fn split_file(
    index: &Index,
    file: FileId,
    text: &FileText,
    cap: TokenCount,
) -> (Vec<Unit>, Vec<SkippedFile>) {
    let whole = unit_of(index, file, text, vec![Lines::new(1, text.len())]);
    if whole.tokens <= cap {
        return (vec![whole], Vec::new());
    }
    let path = whole.path.clone();
    let decls = &index.files[file.index()].facts().decls;
    let line_tokens: Vec<u64> = text
        .lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let mut s = String::new();
            numbered_line(&mut s, i as u32 + 1, l);
            tokens::count(&s).get()
        })
        .collect();
    // The heading of a part is at most this long (widest line numbers).
    let header = tokens::count(&block_header(
        &path,
        Lines::new(text.len(), text.len()),
        text.len(),
    ))
    .get();
    let room = cap.get().saturating_sub(header);
    let cost = |r: Lines| -> u64 {
        line_tokens[r.start as usize - 1..r.end as usize]
            .iter()
            .sum()
    };
    let mut atoms: Vec<Lines> = Vec::new();
    let mut over: Vec<(Lines, &'static str)> = Vec::new();
    let root = decls
        .iter()
        .position(|d| d.parent.is_none())
        .map(|i| i as u32);
    atomize(
        decls,
        root,
        Lines::new(1, text.len()),
        text,
        &cost,
        room,
        &mut atoms,
        &mut over,
    );
    // Greedy packing of consecutive atoms; a skipped range in between
    // closes the current part so every part is one contiguous range.
    atoms.sort();
    let mut parts: Vec<Lines> = Vec::new();
    let mut current: Option<(Lines, u64)> = None;
    for a in atoms {
        let c = cost(a);
        current = match current {
            Some((r, used)) if r.end + 1 == a.start && used + c <= room => {
                Some((Lines::new(r.start, a.end), used + c))
            }
            Some((r, _)) => {
                parts.push(r);
                Some((a, c))
            }
            None => Some((a, c)),
        };
    }
    if let Some((r, _)) = current {
        parts.push(r);
    }
    let n = parts.len() as u32;
    let units = parts
        .into_iter()
        .enumerate()
        .map(|(k, r)| Unit {
            file,
            path: path.clone(),
            ranges: vec![r],
            file_lines: text.len(),
            // Exact: numbered lines add up (see `prompt::render`).
            tokens: tokens::count(&block_header(&path, r, text.len())) + TokenCount(cost(r)),
            part: Some((k as u32 + 1, n)),
        })
        .collect();
    let skipped = over
        .into_iter()
        .map(|(r, what)| SkippedFile {
            file: path.clone(),
            reason: SkipKind::OverBudget,
            lines: Some((r.start, r.end)),
            detail: Some(format!("{what} of {} tokens", cost(r))),
        })
        .collect();
    (units, skipped)
}

/// Cut `range` into atoms of at most `room` tokens. An atom is a
/// declaration together with the lines just above it (decorators, comments,
/// module code between declarations), so a cut always falls right after a
/// declaration ends.
#[allow(clippy::too_many_arguments)]
fn atomize(
    decls: &[LocalDecl],
    parent: Option<u32>,
    range: Lines,
    text: &FileText,
    cost: &dyn Fn(Lines) -> u64,
    room: u64,
    atoms: &mut Vec<Lines>,
    over: &mut Vec<(Lines, &'static str)>,
) {
    let mut children: Vec<(usize, &LocalDecl)> = decls
        .iter()
        .enumerate()
        .filter(|(i, d)| {
            parent.is_some_and(|p| d.parent == Some(p) && *i as u32 != p)
                && d.span.start_line >= range.start
                && d.span.end_line <= range.end
        })
        .collect();
    children.sort_by_key(|(_, d)| (d.span.start_line, std::cmp::Reverse(d.span.end_line)));
    let mut next = range.start;
    for (i, d) in children {
        // Nested or overlapping spans (a lambda inside an assignment
        // already covered) belong to the atom that covers them.
        if d.span.start_line < next {
            continue;
        }
        let atom = Lines::new(next, d.span.end_line);
        next = d.span.end_line + 1;
        if cost(atom) <= room {
            atoms.push(atom);
            continue;
        }
        let decl = Lines::new(d.span.start_line, d.span.end_line);
        if d.span.start_line > atom.start {
            statements(
                Lines::new(atom.start, d.span.start_line - 1),
                text,
                cost,
                room,
                atoms,
                over,
            );
        }
        if cost(decl) <= room {
            atoms.push(decl);
        } else if decls.iter().any(|c| c.parent == Some(i as u32)) && d.kind.is_type() {
            atomize(decls, Some(i as u32), decl, text, cost, room, atoms, over);
        } else {
            over.push((decl, "a declaration"));
        }
    }
    if next <= range.end {
        let tail = Lines::new(next, range.end);
        if cost(tail) <= room {
            atoms.push(tail);
        } else {
            statements(tail, text, cost, room, atoms, over);
        }
    }
}

/// Code outside any declaration, cut before lines that start a top-level
/// statement (no indentation, not a closing bracket).
fn statements(
    range: Lines,
    text: &FileText,
    cost: &dyn Fn(Lines) -> u64,
    room: u64,
    atoms: &mut Vec<Lines>,
    over: &mut Vec<(Lines, &'static str)>,
) {
    // The shallowest indentation in the range is where its statements start
    // (column 0 for module code, the body indentation inside a class).
    let indent = text
        .excerpt(range)
        .iter()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(_, l)| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let starts_statement = |n: u32| {
        let l = &text.lines[n as usize - 1];
        let body = l.trim_start();
        !body.is_empty() && l.len() - body.len() <= indent && !body.starts_with([')', ']', '}'])
    };
    let mut start = range.start;
    for n in range.start + 1..=range.end + 1 {
        if n <= range.end && !starts_statement(n) {
            continue;
        }
        let stmt = Lines::new(start, n - 1);
        if cost(stmt) <= room {
            atoms.push(stmt);
        } else {
            over.push((stmt, "a top-level statement"));
        }
        start = n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_blocks_count_as_the_sum_of_their_lines() {
        let text = FileText::from_bytes(
            b"def f(x):\n    return x + 1\n\n\nclass A:\n    def m(self):\n        pass\n",
        );
        assert_eq!(text.len(), 7);
        let mut whole = String::new();
        let mut sum = 0;
        for (i, l) in text.lines.iter().enumerate() {
            let mut s = String::new();
            numbered_line(&mut s, i as u32 + 1, l);
            sum += tokens::count(&s).get();
            whole.push_str(&s);
        }
        assert_eq!(tokens::count(&whole).get(), sum);
        assert!(whole.starts_with("1|def f(x):\n2|    return x + 1\n3|\n"));
    }

    #[test]
    fn a_final_line_break_does_not_add_a_line() {
        assert_eq!(FileText::from_bytes(b"a\nb\n").len(), 2);
        assert_eq!(FileText::from_bytes(b"a\r\nb").lines, vec!["a", "b"]);
        assert!(FileText::from_bytes(b"\n  \n").is_empty());
    }
}

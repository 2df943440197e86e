//! Locating a block's SEARCH lines in a file, by the rules of
//! `llm-wire-formats.md` §5, in order: exact → trailing-whitespace-insensitive
//! → uniform indentation offset (REPLACE re-indented to match) → SEARCH with
//! its leading/trailing blank lines dropped. The first rule that finds
//! anything decides: one match resolves the block, several are ambiguous (a
//! reviewer-facing tool does not pick one), none moves on to the next rule.
//! Nothing is ever fuzzy-applied; when every rule finds nothing, the nearest
//! region (line similarity ≥ 0.6) is offered as a hint only.

use std::time::{Duration, Instant};

use serde::Serialize;
use similar::TextDiff;

/// Which rule located the SEARCH lines (shown in the hunk header).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum MatchRule {
    /// Empty SEARCH on a path that does not exist: the block creates the file.
    NewFile,
    Exact,
    TrailingWhitespace,
    Indentation,
    TrimmedBlankLines,
}

impl MatchRule {
    pub fn name(self) -> &'static str {
        match self {
            MatchRule::NewFile => "new file",
            MatchRule::Exact => "exact",
            MatchRule::TrailingWhitespace => "trailing whitespace ignored",
            MatchRule::Indentation => "indentation adjusted",
            MatchRule::TrimmedBlankLines => "blank edge lines ignored",
        }
    }
}

/// A unique location: 0-based first line, number of file lines covered, and
/// the lines that replace them (re-indented under [`MatchRule::Indentation`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub start: usize,
    pub len: usize,
    pub rule: MatchRule,
    pub replacement: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Unique(Found),
    /// The first rule that matched matched several places (0-based starts).
    Ambiguous {
        rule: MatchRule,
        starts: Vec<usize>,
    },
    /// No rule matched; `nearest` is a 0-based start and the file's lines there.
    NotFound {
        nearest: Option<(usize, Vec<String>)>,
        already_applied: bool,
    },
    /// The block matched but cannot be applied as written.
    Unusable(String),
}

/// The similarity a region needs to be suggested as "did you mean".
pub const NEAREST_THRESHOLD: f32 = 0.6;

/// Time allowed for the nearest-region search of one block.
const NEAREST_BUDGET: Duration = Duration::from_millis(250);

#[derive(Debug, Clone, Copy)]
enum Mode {
    Exact,
    TrailingWhitespace,
    Indentation,
}

/// A match of one mode: start and, for indentation, how to re-indent.
#[derive(Debug, Clone)]
struct Candidate {
    start: usize,
    shift: Shift,
}

/// A uniform indentation difference between SEARCH and the file.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Shift {
    None,
    /// The file is indented by this much more than SEARCH.
    Add(String),
    /// The file is indented by this much less than SEARCH.
    Remove(String),
}

/// Resolve a non-empty SEARCH against `file`.
pub fn locate(file: &[&str], search: &[&str], replace: &[&str]) -> Outcome {
    for (mode, rule) in [
        (Mode::Exact, MatchRule::Exact),
        (Mode::TrailingWhitespace, MatchRule::TrailingWhitespace),
        (Mode::Indentation, MatchRule::Indentation),
    ] {
        if let Some(outcome) = decide(file, search, replace, mode, rule) {
            return outcome;
        }
    }
    let lead = search.iter().take_while(|l| is_blank(l)).count();
    let trail = search.iter().rev().take_while(|l| is_blank(l)).count();
    if (lead > 0 || trail > 0) && lead < search.len() {
        let trimmed = &search[lead..search.len() - trail];
        // Drop the same spurious blank lines from REPLACE when it has them too,
        // so the edit does not add blank lines the model never meant.
        let r_lead = replace.iter().take_while(|l| is_blank(l)).count().min(lead);
        let r_trail = replace
            .iter()
            .rev()
            .take_while(|l| is_blank(l))
            .count()
            .min(trail)
            .min(replace.len() - r_lead);
        let replace = &replace[r_lead..replace.len() - r_trail];
        for mode in [Mode::Exact, Mode::TrailingWhitespace, Mode::Indentation] {
            if let Some(outcome) =
                decide(file, trimmed, replace, mode, MatchRule::TrimmedBlankLines)
            {
                return outcome;
            }
        }
    }
    Outcome::NotFound {
        nearest: nearest_region(file, search),
        already_applied: already_applied(file, replace),
    }
}

/// `None` when the mode finds nothing (try the next rule).
fn decide(
    file: &[&str],
    search: &[&str],
    replace: &[&str],
    mode: Mode,
    rule: MatchRule,
) -> Option<Outcome> {
    let found = find_all(file, search, mode);
    match found.as_slice() {
        [] => None,
        [one] => Some(match reindent(replace, &one.shift) {
            Ok(replacement) => Outcome::Unique(Found {
                start: one.start,
                len: search.len(),
                rule,
                replacement,
            }),
            Err(e) => Outcome::Unusable(e),
        }),
        many => Some(Outcome::Ambiguous {
            rule,
            starts: many.iter().map(|c| c.start).collect(),
        }),
    }
}

fn find_all(file: &[&str], search: &[&str], mode: Mode) -> Vec<Candidate> {
    if search.is_empty() || search.len() > file.len() {
        return Vec::new();
    }
    if matches!(mode, Mode::Indentation) && search.iter().all(|l| is_blank(l)) {
        return Vec::new();
    }
    (0..=file.len() - search.len())
        .filter_map(|start| {
            let window = &file[start..start + search.len()];
            let shift = match mode {
                Mode::Exact => (window == search).then_some(Shift::None),
                Mode::TrailingWhitespace => window
                    .iter()
                    .zip(search)
                    .all(|(f, s)| f.trim_end() == s.trim_end())
                    .then_some(Shift::None),
                Mode::Indentation => uniform_shift(window, search),
            }?;
            Some(Candidate { start, shift })
        })
        .collect()
}

/// The one indentation difference that turns every non-blank SEARCH line into
/// its file line (blank lines must face blank lines), if there is one.
fn uniform_shift(window: &[&str], search: &[&str]) -> Option<Shift> {
    let mut shift: Option<Shift> = None;
    for (f, s) in window.iter().zip(search) {
        if is_blank(s) || is_blank(f) {
            if is_blank(s) && is_blank(f) {
                continue;
            }
            return None;
        }
        let (f_ws, f_body) = split_indent(f);
        let (s_ws, s_body) = split_indent(s);
        if f_body.trim_end() != s_body.trim_end() {
            return None;
        }
        let this = if let Some(add) = f_ws.strip_suffix(s_ws) {
            if add.is_empty() {
                Shift::None
            } else {
                Shift::Add(add.to_owned())
            }
        } else if let Some(remove) = s_ws.strip_suffix(f_ws) {
            Shift::Remove(remove.to_owned())
        } else {
            return None;
        };
        match &shift {
            None => shift = Some(this),
            Some(prev) if *prev == this => {}
            Some(_) => return None,
        }
    }
    shift.filter(|s| *s != Shift::None)
}

fn reindent(replace: &[&str], shift: &Shift) -> Result<Vec<String>, String> {
    replace
        .iter()
        .enumerate()
        .map(|(i, line)| match shift {
            _ if is_blank(line) => Ok((*line).to_owned()),
            Shift::None => Ok((*line).to_owned()),
            Shift::Add(add) => Ok(format!("{add}{line}")),
            Shift::Remove(remove) => line.strip_prefix(remove.as_str()).map(str::to_owned).ok_or_else(|| {
                format!(
                    "SEARCH is indented more than the file, and REPLACE line {} is indented less than \
                     that difference, so it cannot be re-indented; resend the block with the file's \
                     exact indentation",
                    i + 1
                )
            }),
        })
        .collect()
}

fn split_indent(line: &str) -> (&str, &str) {
    let body = line.trim_start_matches([' ', '\t']);
    (&line[..line.len() - body.len()], body)
}

fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

/// REPLACE (without its blank edge lines) is already in the file under one of
/// the matching modes: the block was probably applied before.
fn already_applied(file: &[&str], replace: &[&str]) -> bool {
    let lead = replace.iter().take_while(|l| is_blank(l)).count();
    let trail = replace.iter().rev().take_while(|l| is_blank(l)).count();
    if lead >= replace.len() {
        return false;
    }
    let core = &replace[lead..replace.len() - trail];
    [Mode::Exact, Mode::TrailingWhitespace, Mode::Indentation]
        .into_iter()
        .any(|mode| !find_all(file, core, mode).is_empty())
}

/// The file region most like SEARCH, if its similarity reaches
/// [`NEAREST_THRESHOLD`]. A window's similarity is the better of two views:
/// the line-sequence ratio with indentation ignored (survives an inserted or
/// missing line) and the mean per-line character ratio (survives a small
/// change on every line, such as a renamed variable).
fn nearest_region(file: &[&str], search: &[&str]) -> Option<(usize, Vec<String>)> {
    let lead = search.iter().take_while(|l| is_blank(l)).count();
    let trail = search.iter().rev().take_while(|l| is_blank(l)).count();
    if lead >= search.len() || file.is_empty() {
        return None;
    }
    let search: Vec<&str> = search[lead..search.len() - trail]
        .iter()
        .map(|l| l.trim())
        .collect();
    let width = search.len().min(file.len());
    let mut best: Option<(f32, usize)> = None;
    // A hint must not stall the review pane on a huge file: past the budget,
    // the best region so far is offered (or none).
    let started = Instant::now();
    for start in 0..=file.len() - width {
        if started.elapsed() > NEAREST_BUDGET {
            break;
        }
        let window: Vec<&str> = file[start..start + width]
            .iter()
            .map(|l| l.trim())
            .collect();
        let floor = best.map_or(NEAREST_THRESHOLD, |(s, _)| s.max(NEAREST_THRESHOLD));
        let score = window_similarity(&window, &search, floor);
        if score >= floor && best.is_none_or(|(s, _)| score > s) {
            best = Some((score, start));
        }
    }
    best.map(|(_, start)| {
        (
            start,
            file[start..start + width]
                .iter()
                .map(|l| (*l).to_owned())
                .collect(),
        )
    })
}

fn window_similarity(window: &[&str], search: &[&str], floor: f32) -> f32 {
    let sequence = TextDiff::from_slices(window, search).ratio();
    // Upper bound of the character view from line lengths alone: skip the
    // per-character diffs when even a perfect alignment could not win.
    let bound: f32 = window
        .iter()
        .zip(search)
        .map(|(a, b)| length_bound(a, b))
        .sum::<f32>()
        / search.len().max(1) as f32;
    if bound < floor || bound <= sequence {
        return sequence;
    }
    let chars: f32 = window
        .iter()
        .zip(search)
        .map(|(a, b)| {
            if a == b {
                1.0
            } else {
                TextDiff::from_chars(*a, *b).ratio()
            }
        })
        .sum::<f32>()
        / search.len().max(1) as f32;
    sequence.max(chars)
}

fn length_bound(a: &str, b: &str) -> f32 {
    let (la, lb) = (a.chars().count(), b.chars().count());
    if la + lb == 0 {
        1.0
    } else {
        2.0 * la.min(lb) as f32 / (la + lb) as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(s: &str) -> Vec<&str> {
        s.split_terminator('\n').collect()
    }

    fn unique(file: &str, search: &str, replace: &str) -> Found {
        match locate(&lines(file), &lines(search), &lines(replace)) {
            Outcome::Unique(f) => f,
            other => panic!("expected a unique match, got {other:?}"),
        }
    }

    #[test]
    fn exact_match_wins_first() {
        let f = unique("a\nb\nc\n", "b\n", "B\n");
        assert_eq!((f.start, f.len, f.rule), (1, 1, MatchRule::Exact));
        assert_eq!(f.replacement, ["B"]);
    }

    #[test]
    fn trailing_whitespace_is_the_second_rule() {
        let f = unique("a  \nb\t\nc\n", "a\nb\n", "x\n");
        assert_eq!(
            (f.start, f.len, f.rule),
            (0, 2, MatchRule::TrailingWhitespace)
        );
    }

    #[test]
    fn indentation_offset_is_reapplied_to_replace() {
        let file = "class A:\n    def f(self):\n        return 1\n";
        let f = unique(
            file,
            "def f(self):\n    return 1\n",
            "def f(self, x):\n    return x\n",
        );
        assert_eq!((f.start, f.len, f.rule), (1, 2, MatchRule::Indentation));
        assert_eq!(f.replacement, ["    def f(self, x):", "        return x"]);

        // SEARCH indented more than the file: the surplus is removed.
        let f = unique(
            "def f():\n    return 1\n",
            "    def f():\n        return 1\n",
            "    def f():\n        return 2\n",
        );
        assert_eq!(f.replacement, ["def f():", "    return 2"]);
    }

    #[test]
    fn indentation_must_be_uniform() {
        let out = locate(
            &lines("def f():\n    x\n"),
            &lines("  def f():\n  x\n"),
            &lines("y\n"),
        );
        assert!(matches!(out, Outcome::NotFound { .. }), "{out:?}");
    }

    #[test]
    fn unindentable_replace_is_refused() {
        let out = locate(
            &lines("def f():\n    x\n"),
            &lines("    def f():\n        x\n"),
            &lines("y\n"),
        );
        assert!(matches!(out, Outcome::Unusable(_)), "{out:?}");
    }

    #[test]
    fn spurious_blank_edge_lines_are_the_last_rule() {
        let f = unique("a\nb\nc\n", "\nb\n\n", "\nB\n");
        assert_eq!(
            (f.start, f.len, f.rule),
            (1, 1, MatchRule::TrimmedBlankLines)
        );
        assert_eq!(
            f.replacement,
            ["B"],
            "REPLACE loses the same spurious blank line"
        );
    }

    #[test]
    fn several_matches_are_ambiguous_and_stop_the_search() {
        let out = locate(
            &lines("x = 1\ny\nx = 1\n"),
            &lines("x = 1\n"),
            &lines("x = 2\n"),
        );
        assert_eq!(
            out,
            Outcome::Ambiguous {
                rule: MatchRule::Exact,
                starts: vec![0, 2]
            }
        );
    }

    #[test]
    fn nearest_region_and_already_applied() {
        let file = "def load(path):\n    data = read(path)\n    return parse(data)\n";
        let out = locate(
            &lines(file),
            &lines("def load(path):\n    data = read_all(path)\n    return parse(data)\n"),
            &lines("def load(path, strict):\n"),
        );
        let Outcome::NotFound {
            nearest: Some((0, near)),
            already_applied: false,
        } = out
        else {
            panic!("{out:?}")
        };
        assert_eq!(near.len(), 3);

        let out = locate(
            &lines(file),
            &lines("def load(p):\n    pass\n"),
            &lines("    return parse(data)\n"),
        );
        assert!(
            matches!(
                out,
                Outcome::NotFound {
                    already_applied: true,
                    ..
                }
            ),
            "{out:?}"
        );

        let out = locate(
            &lines(file),
            &lines("completely\nunrelated\ntext here\n"),
            &lines("z\n"),
        );
        assert_eq!(
            out,
            Outcome::NotFound {
                nearest: None,
                already_applied: false
            }
        );
    }
}

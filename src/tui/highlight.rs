//! Syntax highlighting of the source pane with the grammars' own highlight
//! queries (`tree_sitter_python::HIGHLIGHTS_QUERY`, `tree_sitter_go::…`).
//! Only the requested lines are queried (the visible ones plus a margin),
//! and the parse tree of the last few files is kept, so scrolling and moving
//! between declarations of one file never re-parse.

use std::ops::Range;
use std::sync::Arc;

use tree_sitter::{Language, Parser, Query, QueryCursor, StreamingIterator, Tree};

use crate::model::Lang;

/// What a capture means, reduced to the few kinds the theme colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Keyword,
    String,
    Comment,
    Function,
    Builtin,
    Type,
    Constant,
    Number,
    Escape,
    Property,
    Variable,
    Operator,
    Punctuation,
}

impl Kind {
    fn of_capture(name: &str) -> Option<Kind> {
        let base = name.split('.').next().unwrap_or(name);
        Some(match (base, name) {
            (_, "function.builtin") | (_, "constant.builtin") => Kind::Builtin,
            ("keyword", _) => Kind::Keyword,
            ("string", _) => Kind::String,
            ("comment", _) => Kind::Comment,
            ("function", _) => Kind::Function,
            ("type", _) | ("constructor", _) => Kind::Type,
            ("constant", _) => Kind::Constant,
            ("number", _) => Kind::Number,
            ("escape", _) => Kind::Escape,
            ("property", _) => Kind::Property,
            ("variable", _) => Kind::Variable,
            ("operator", _) => Kind::Operator,
            ("punctuation", _) => Kind::Punctuation,
            _ => return None,
        })
    }

    /// `variable` and `property` are the catch-all patterns: any other capture
    /// of the same node is more specific. (The Python query lists its
    /// catch-all first and the Go query last, so pattern order alone cannot
    /// decide.)
    fn is_generic(self) -> bool {
        matches!(self, Kind::Variable | Kind::Property)
    }
}

/// A run of bytes of one line (offsets relative to the line start).
pub type Run = (u32, u32, Kind);

#[derive(Debug, Clone)]
pub struct HighlightRequest {
    pub generation: u64,
    pub path: String,
    pub lang: Lang,
    pub text: Arc<str>,
    /// 0-based line numbers.
    pub lines: Range<usize>,
}

#[derive(Debug, Clone)]
pub struct Highlights {
    pub generation: u64,
    pub path: String,
    pub first_line: usize,
    /// Non-overlapping runs per line, starting at `first_line`.
    pub lines: Vec<Vec<Run>>,
}

impl Highlights {
    pub fn line(&self, path: &str, line: usize) -> Option<&[Run]> {
        if path != self.path || line < self.first_line {
            return None;
        }
        self.lines.get(line - self.first_line).map(Vec::as_slice)
    }

    pub fn covers(&self, path: &str, lines: &Range<usize>) -> bool {
        path == self.path
            && lines.start >= self.first_line
            && lines.end <= self.first_line + self.lines.len()
    }
}

struct Grammar {
    language: Language,
    query: Query,
    kinds: Vec<Option<Kind>>,
}

impl Grammar {
    fn new(language: Language, source: &str) -> Option<Grammar> {
        let query = Query::new(&language, source).ok()?;
        let kinds = query
            .capture_names()
            .iter()
            .map(|n| Kind::of_capture(n))
            .collect();
        Some(Grammar {
            language,
            query,
            kinds,
        })
    }
}

struct Parsed {
    path: String,
    text: Arc<str>,
    tree: Tree,
}

/// Parsers, compiled queries and the last few parse trees.
pub struct Highlighter {
    python: Option<Grammar>,
    go: Option<Grammar>,
    parser: Parser,
    recent: Vec<Parsed>,
}

const KEEP_TREES: usize = 4;

impl Default for Highlighter {
    fn default() -> Self {
        Highlighter::new()
    }
}

impl Highlighter {
    pub fn new() -> Highlighter {
        Highlighter {
            python: Grammar::new(
                tree_sitter_python::LANGUAGE.into(),
                tree_sitter_python::HIGHLIGHTS_QUERY,
            ),
            go: Grammar::new(
                tree_sitter_go::LANGUAGE.into(),
                tree_sitter_go::HIGHLIGHTS_QUERY,
            ),
            parser: Parser::new(),
            recent: Vec::new(),
        }
    }

    fn tree(&mut self, lang: Lang, path: &str, text: &Arc<str>) -> Option<usize> {
        if let Some(i) = self
            .recent
            .iter()
            .position(|p| p.path == path && Arc::ptr_eq(&p.text, text))
        {
            let p = self.recent.remove(i);
            self.recent.push(p);
            return Some(self.recent.len() - 1);
        }
        let grammar = match lang {
            Lang::Python => self.python.as_ref()?,
            Lang::Go => self.go.as_ref()?,
        };
        self.parser.set_language(&grammar.language).ok()?;
        let tree = self.parser.parse(text.as_bytes(), None)?;
        if self.recent.len() >= KEEP_TREES {
            self.recent.remove(0);
        }
        self.recent.push(Parsed {
            path: path.to_owned(),
            text: text.clone(),
            tree,
        });
        Some(self.recent.len() - 1)
    }

    pub fn highlight(&mut self, req: &HighlightRequest) -> Highlights {
        let mut out = Highlights {
            generation: req.generation,
            path: req.path.clone(),
            first_line: req.lines.start,
            lines: Vec::new(),
        };
        let text = req.text.as_bytes();
        let starts = line_starts(text);
        let first = req.lines.start.min(starts.len());
        let last = req.lines.end.min(starts.len());
        if first >= last {
            return out;
        }
        let begin = starts[first];
        let end = starts.get(last).copied().unwrap_or(text.len());
        let Some(slot) = self.tree(req.lang, &req.path, &req.text) else {
            out.lines = vec![Vec::new(); last - first];
            return out;
        };
        let grammar = match req.lang {
            Lang::Python => self.python.as_ref(),
            Lang::Go => self.go.as_ref(),
        };
        let Some(grammar) = grammar else {
            out.lines = vec![Vec::new(); last - first];
            return out;
        };
        let tree = &self.recent[slot].tree;

        // The best capture of every node in range, then painted widest first
        // so that nested nodes (an escape inside a string) win.
        let mut best: Vec<(usize, usize, Kind, (bool, usize))> = Vec::new();
        let mut cursor = QueryCursor::new();
        cursor.set_byte_range(begin..end);
        let mut captures = cursor.captures(&grammar.query, tree.root_node(), text);
        while let Some((m, idx)) = captures.next() {
            let cap = m.captures[*idx];
            let Some(kind) = grammar.kinds[cap.index as usize] else {
                continue;
            };
            let (s, e) = (cap.node.start_byte(), cap.node.end_byte());
            let rank = (!kind.is_generic(), m.pattern_index);
            match best.iter_mut().rev().take(8).find(|b| b.0 == s && b.1 == e) {
                Some(b) if b.3 < rank => {
                    b.2 = kind;
                    b.3 = rank;
                }
                Some(_) => {}
                None => best.push((s, e, kind, rank)),
            }
        }
        best.sort_by_key(|&(s, e, _, _)| std::cmp::Reverse(e - s));
        let mut paint: Vec<Option<Kind>> = vec![None; end - begin];
        for (s, e, kind, _) in best {
            let (s, e) = (s.max(begin) - begin, e.min(end).saturating_sub(begin));
            for p in paint.iter_mut().take(e).skip(s) {
                *p = Some(kind);
            }
        }
        for line in first..last {
            let ls = starts[line] - begin;
            let le = starts
                .get(line + 1)
                .map(|&x| x - begin)
                .unwrap_or(end - begin);
            let mut runs: Vec<Run> = Vec::new();
            let mut i = ls;
            while i < le {
                let k = paint[i];
                let mut j = i + 1;
                while j < le && paint[j] == k {
                    j += 1;
                }
                if let Some(k) = k {
                    runs.push(((i - ls) as u32, (j - ls) as u32, k));
                }
                i = j;
            }
            out.lines.push(runs);
        }
        out
    }
}

/// Byte offset of the start of every line.
pub fn line_starts(text: &[u8]) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(memchr_newlines(text).map(|i| i + 1));
    if starts.last() == Some(&text.len()) && !text.is_empty() {
        starts.pop();
    }
    starts
}

fn memchr_newlines(text: &[u8]) -> impl Iterator<Item = usize> + '_ {
    text.iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds_on_line(src: &str, lang: Lang, line: usize) -> Vec<(String, Kind)> {
        let text: Arc<str> = Arc::from(src);
        let mut h = Highlighter::new();
        let out = h.highlight(&HighlightRequest {
            generation: 1,
            path: "x".into(),
            lang,
            text: text.clone(),
            lines: line..line + 1,
        });
        let start = line_starts(src.as_bytes())[line];
        out.lines[0]
            .iter()
            .map(|&(s, e, k)| (src[start + s as usize..start + e as usize].to_owned(), k))
            .collect()
    }

    #[test]
    fn python_definitions_calls_strings_and_keywords() {
        let src = "import os\n\ndef f(x):\n    return len(\"a\\n\") + g(x)  # note\n";
        let line = kinds_on_line(src, Lang::Python, 3);
        assert!(line.contains(&("return".into(), Kind::Keyword)), "{line:?}");
        assert!(line.contains(&("len".into(), Kind::Builtin)), "{line:?}");
        assert!(line.contains(&("g".into(), Kind::Function)), "{line:?}");
        assert!(line.contains(&("\\n".into(), Kind::Escape)), "{line:?}");
        assert!(line.contains(&("# note".into(), Kind::Comment)), "{line:?}");
        let def = kinds_on_line(src, Lang::Python, 2);
        assert!(def.contains(&("f".into(), Kind::Function)), "{def:?}");
    }

    #[test]
    fn go_function_names_beat_the_identifier_catch_all() {
        let src = "package p\n\nfunc Run(s string) int {\n\treturn len(s)\n}\n";
        let def = kinds_on_line(src, Lang::Go, 2);
        assert!(def.contains(&("Run".into(), Kind::Function)), "{def:?}");
        assert!(def.contains(&("func".into(), Kind::Keyword)), "{def:?}");
        let body = kinds_on_line(src, Lang::Go, 3);
        assert!(body.contains(&("len".into(), Kind::Builtin)), "{body:?}");
    }
}

//! Editing a parenthesised, comma-separated list — a parameter list or a
//! call's arguments — as text, keeping its layout: one line stays one
//! line, a list written one item per line gets its new item on a line of
//! its own with the same indentation, and a trailing comma stays.

use std::ops::Range;

use tree_sitter::Node;

/// A list's items as byte ranges of the file, with where its brackets are.
#[derive(Debug, Clone)]
pub(super) struct CommaList {
    /// The byte after the opening bracket.
    pub(super) open_end: usize,
    /// The closing bracket.
    pub(super) close_start: usize,
    pub(super) items: Vec<Range<usize>>,
}

/// One piece of the file replaced.
pub(super) type Edit = (Range<usize>, String);

impl CommaList {
    /// The named children of a bracketed node, comments left out.
    pub(super) fn of(node: Node) -> CommaList {
        let mut items = Vec::new();
        let mut cursor = node.walk();
        for c in node.named_children(&mut cursor) {
            if c.kind() != "comment" {
                items.push(c.byte_range());
            }
        }
        CommaList {
            open_end: node.start_byte() + 1,
            close_start: node.end_byte().saturating_sub(1),
            items,
        }
    }

    /// Insert `text` as a new item before item `at` (`at == len` appends).
    pub(super) fn insert(&self, src: &[u8], at: usize, text: &str) -> Edit {
        let Some(last) = self.items.last() else {
            return (self.open_end..self.open_end, text.to_owned());
        };
        if let Some(next) = self.items.get(at) {
            return match line_indent(src, next.start) {
                // The item starts its line: the new one gets a line too.
                Some(indent) => (next.start..next.start, format!("{text},\n{indent}")),
                None => (next.start..next.start, format!("{text}, ")),
            };
        }
        let after_last = src.get(last.end..self.close_start).unwrap_or_default();
        let comma = after_last.iter().position(|&b| b == b',');
        match line_indent(src, last.start).filter(|_| self.multi_line(src)) {
            Some(indent) => match comma {
                Some(c) => {
                    // After a comment closing the line, which stays with
                    // the item it follows.
                    let mut at = last.end + c + 1;
                    let line_end = src[at..self.close_start]
                        .iter()
                        .position(|&b| b == b'\n')
                        .map_or(self.close_start, |i| at + i);
                    let rest = String::from_utf8_lossy(&src[at..line_end]);
                    let rest = rest.trim();
                    if rest.starts_with('#') || rest.starts_with("//") {
                        at = line_end;
                    }
                    (at..at, format!("\n{indent}{text},"))
                }
                None => (last.end..last.end, format!(",\n{indent}{text}")),
            },
            None => (last.end..last.end, format!(", {text}")),
        }
    }

    /// Remove the items at `indexes`, with the commas and spaces that
    /// separated them.
    pub(super) fn remove(&self, indexes: &[usize]) -> Vec<Edit> {
        let removed = |i: usize| indexes.contains(&i);
        let n = self.items.len();
        if (0..n).all(removed) {
            return vec![(self.open_end..self.close_start, String::new())];
        }
        let mut out = Vec::new();
        let mut i = 0;
        while i < n {
            if !removed(i) {
                i += 1;
                continue;
            }
            let first = i;
            while i + 1 < n && removed(i + 1) {
                i += 1;
            }
            let last = i;
            if last + 1 < n {
                out.push((
                    self.items[first].start..self.items[last + 1].start,
                    String::new(),
                ));
            } else {
                // A run at the end: take the comma before it, leave a
                // trailing comma after it where it is.
                out.push((
                    self.items[first - 1].end..self.items[last].end,
                    String::new(),
                ));
            }
            i += 1;
        }
        out
    }

    /// Put the text of item `order[j]` in place of item `j`.
    pub(super) fn permute(&self, src: &[u8], order: &[usize]) -> Vec<Edit> {
        order
            .iter()
            .enumerate()
            .filter(|(j, from)| *j != **from)
            .map(|(j, &from)| {
                let text = String::from_utf8_lossy(&src[self.items[from].clone()]).into_owned();
                (self.items[j].clone(), text)
            })
            .collect()
    }

    /// Whether the items are written one per line (the last one on a line
    /// of its own, below the opening bracket).
    fn multi_line(&self, src: &[u8]) -> bool {
        self.items.last().is_some_and(|last| {
            src.get(self.open_end..last.start)
                .is_some_and(|between| between.contains(&b'\n'))
        })
    }
}

/// The indentation before `at` when only whitespace precedes it on its line.
fn line_indent(src: &[u8], at: usize) -> Option<String> {
    let start = src[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let before = &src[start..at];
    (start > 0 && before.iter().all(|b| *b == b' ' || *b == b'\t'))
        .then(|| String::from_utf8_lossy(before).into_owned())
}

/// `src` with `edits` applied (they must not overlap).
pub(super) fn applied(src: &[u8], edits: &[Edit]) -> Vec<u8> {
    let mut sorted: Vec<&Edit> = edits.iter().collect();
    sorted.sort_by_key(|(r, _)| std::cmp::Reverse((r.start, r.end)));
    let mut out = src.to_vec();
    for (r, text) in sorted {
        out.splice(r.clone(), text.bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Lang;

    /// The argument list of the first call in a Python source.
    fn edited(src: &str, edit: impl Fn(&CommaList, &[u8]) -> Vec<Edit>) -> String {
        let tree = crate::lang::parse(Lang::Python, src.as_bytes()).unwrap();
        let mut stack = vec![tree.root_node()];
        let mut args = None;
        while let Some(n) = stack.pop() {
            if n.kind() == "argument_list" {
                args = Some(n);
                break;
            }
            let mut c = n.walk();
            let children: Vec<Node> = n.children(&mut c).collect();
            stack.extend(children.into_iter().rev());
        }
        let list = CommaList::of(args.unwrap());
        String::from_utf8(applied(src.as_bytes(), &edit(&list, src.as_bytes()))).unwrap()
    }

    #[test]
    fn appending_keeps_one_line_multi_line_and_trailing_commas() {
        let add = |l: &CommaList, s: &[u8]| vec![l.insert(s, l.items.len(), "x")];
        assert_eq!(edited("f(a, b)\n", add), "f(a, b, x)\n");
        assert_eq!(edited("f()\n", add), "f(x)\n");
        assert_eq!(edited("f(a,)\n", add), "f(a, x,)\n");
        assert_eq!(
            edited("f(\n    a,\n    b,\n)\n", add),
            "f(\n    a,\n    b,\n    x,\n)\n"
        );
        assert_eq!(
            edited("f(\n    a,\n    b\n)\n", add),
            "f(\n    a,\n    b,\n    x\n)\n"
        );
        assert_eq!(
            edited("f(\n    a,  # one\n    # two\n)\n", add),
            "f(\n    a,  # one\n    x,\n    # two\n)\n"
        );
        let before_first = |l: &CommaList, s: &[u8]| vec![l.insert(s, 1, "x")];
        assert_eq!(edited("f(a, k=1)\n", before_first), "f(a, x, k=1)\n");
        assert_eq!(
            edited("f(\n    a,\n    k=1,\n)\n", before_first),
            "f(\n    a,\n    x,\n    k=1,\n)\n"
        );
    }

    #[test]
    fn removing_takes_the_separators_along() {
        let rm = |i: &'static [usize]| move |l: &CommaList, _: &[u8]| l.remove(i);
        assert_eq!(edited("f(a, b, c)\n", rm(&[0])), "f(b, c)\n");
        assert_eq!(edited("f(a, b, c)\n", rm(&[1])), "f(a, c)\n");
        assert_eq!(edited("f(a, b, c)\n", rm(&[2])), "f(a, b)\n");
        assert_eq!(edited("f(a, b, c)\n", rm(&[1, 2])), "f(a)\n");
        assert_eq!(edited("f(a, b,)\n", rm(&[1])), "f(a,)\n");
        assert_eq!(edited("f(a,)\n", rm(&[0])), "f()\n");
        assert_eq!(
            edited("f(\n    a,\n    b,\n)\n", rm(&[0])),
            "f(\n    b,\n)\n"
        );
        assert_eq!(
            edited("f(\n    a,\n    b,\n)\n", rm(&[1])),
            "f(\n    a,\n)\n"
        );
    }

    #[test]
    fn permuting_swaps_item_texts() {
        let p = |l: &CommaList, s: &[u8]| l.permute(s, &[1, 0, 2]);
        assert_eq!(edited("f(a, bb, c)\n", p), "f(bb, a, c)\n");
        assert_eq!(
            edited("f(\n    a,\n    bb,\n    c)\n", p),
            "f(\n    bb,\n    a,\n    c)\n"
        );
    }
}

//! One file's syntax tree as a refactoring reads it: the source bytes, the
//! tree, a pre-order walk, and the identifier that names the callee at a
//! call site the index recorded. The index keeps call sites as spans of
//! whole call expressions; a rename must touch only the name inside
//! (`obj.method(` changes `method`), so the tree is read again here.

use std::ops::Range;

use tree_sitter::{Node, Tree};

use crate::model::{Lang, Span};

/// A parsed file.
pub(crate) struct Parsed {
    pub(crate) lang: Lang,
    pub(crate) source: Vec<u8>,
    pub(crate) tree: Tree,
}

impl Parsed {
    pub(crate) fn new(lang: Lang, source: Vec<u8>) -> Option<Parsed> {
        let tree = crate::lang::parse(lang, &source)?;
        Some(Parsed { lang, source, tree })
    }

    pub(super) fn text(&self, node: Node) -> &str {
        std::str::from_utf8(&self.source[node.byte_range()]).unwrap_or("")
    }

    /// Every node, parents before children, in source order. Iterative:
    /// real files nest thousands of levels deep.
    pub(super) fn each_node<'t>(&'t self, mut visit: impl FnMut(Node<'t>)) {
        let mut cursor = self.tree.walk();
        loop {
            visit(cursor.node());
            if cursor.goto_first_child() {
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return;
                }
            }
        }
    }

    /// The smallest node around each place `word` occurs as a whole name
    /// (an identifier, or the content of a string holding it), in source
    /// order. Found by searching the text rather than walking the tree, so
    /// the cost follows the occurrences, not the size of the file.
    pub(super) fn occurrences(&self, word: &str) -> Vec<Node<'_>> {
        let root = self.tree.root_node();
        word_positions(&self.source, word)
            .filter_map(|at| root.descendant_for_byte_range(at, at + word.len()))
            .collect()
    }

    /// The name of the function or method declared at `decl` (the
    /// declaration's span, which may start at its decorators) called
    /// `old`: the outermost, since a nested function of the same name is
    /// another declaration.
    pub(crate) fn def_name(&self, decl: Span, old: &str) -> Option<Range<usize>> {
        let defines = |kind: &str| match self.lang {
            Lang::Python => kind == "function_definition",
            Lang::Go => matches!(kind, "function_declaration" | "method_declaration"),
        };
        self.occurrences(old)
            .into_iter()
            .filter(|n| {
                n.start_byte() >= decl.start_byte as usize && n.end_byte() <= decl.end_byte as usize
            })
            .find(|n| {
                n.parent()
                    .is_some_and(|d| defines(d.kind()) && d.child_by_field_name("name") == Some(*n))
            })
            .map(|n| n.byte_range())
    }

    /// Where the documentation of the function or method named `old` at
    /// `decl` names it as a whole word: the comment lines directly above
    /// the definition (its decorators) and, in Python, its docstring.
    pub(crate) fn doc_mentions(&self, decl: Span, old: &str) -> Vec<Range<usize>> {
        let Some(name) = self.def_name(decl, old) else {
            return Vec::new();
        };
        let root = self.tree.root_node();
        let Some(def) = root
            .descendant_for_byte_range(name.start, name.end)
            .and_then(|n| n.parent())
        else {
            return Vec::new();
        };
        let outer = match def.parent() {
            Some(p) if p.kind() == "decorated_definition" => p,
            _ => def,
        };
        let mut regions: Vec<Range<usize>> = Vec::new();
        let mut below = outer;
        while let Some(prev) = below.prev_sibling() {
            if prev.kind() != "comment" || prev.end_position().row + 1 < below.start_position().row
            {
                break;
            }
            regions.push(prev.byte_range());
            below = prev;
        }
        if self.lang == Lang::Python
            && let Some(first) = def
                .child_by_field_name("body")
                .and_then(|b| b.named_child(0))
            && first.kind() == "expression_statement"
            && let Some(doc) = first.named_child(0)
            && doc.kind() == "string"
        {
            regions.push(doc.byte_range());
        }
        regions.sort_by_key(|r| r.start);
        // A mention on the definition's own line would share its hunk
        // (`def f(): "f …"`) and drag it down to the mention's confidence.
        let same_line = |at: usize| {
            let (a, b) = (at.min(name.start), at.max(name.end));
            !self.source[a..b].contains(&b'\n')
        };
        regions
            .into_iter()
            .flat_map(|r| {
                word_positions(&self.source[r.clone()], old)
                    .map(move |at| r.start + at..r.start + at + old.len())
                    .collect::<Vec<_>>()
            })
            .filter(|m| !same_line(m.start))
            .collect()
    }

    /// The identifier naming the callee of the call recorded at `span`:
    /// `f` in `f(x)`, `method` in `obj.method(x)`, `Quote` in
    /// `pricing.Quote(x)` or `Map[int](xs)`, `deco` in `@deco`, `size` in
    /// a property read `box.size`. `None`
    /// when the call is implied by syntax that names nothing (an operator,
    /// a conversion) or its callee is not a name (`fs[0](x)`).
    pub(crate) fn callee_name(&self, span: Span) -> Option<Range<usize>> {
        let (start, end) = (span.start_byte as usize, span.end_byte as usize);
        let site = self
            .tree
            .root_node()
            .descendant_for_byte_range(start, end)?;
        let mut node = site;
        loop {
            if matches!(
                node.kind(),
                "call" | "call_expression" | "decorator" | "type_conversion_expression"
            ) {
                break;
            }
            match node.parent() {
                Some(p) if p.start_byte() == start && p.end_byte() == end => node = p,
                // A call implied by an attribute read (a property, a
                // descriptor) is recorded at the attribute itself.
                _ => return self.name_of(site),
            }
        }
        let callee = match node.kind() {
            "decorator" => node.named_child(0)?,
            // Go parses `F[int](x)` at statement level as a conversion.
            "type_conversion_expression" => node.child_by_field_name("type")?,
            _ => node.child_by_field_name("function")?,
        };
        self.name_of(callee)
    }

    /// The identifier a callee expression ends in, iteratively unwrapped.
    fn name_of(&self, mut expr: Node) -> Option<Range<usize>> {
        loop {
            match expr.kind() {
                "identifier" | "field_identifier" | "type_identifier" => {
                    return Some(expr.byte_range());
                }
                // Python `a.b`, Go `pkg.F` / `x.M`.
                "attribute" => expr = expr.child_by_field_name("attribute")?,
                "selector_expression" => expr = expr.child_by_field_name("field")?,
                // `@deco(arg)` names `deco`.
                "call" => expr = expr.child_by_field_name("function")?,
                // Go `(f)(x)` and an explicit instantiation `F[int](x)`.
                "parenthesized_expression" => expr = expr.named_child(0)?,
                "index_expression" if self.lang == Lang::Go => {
                    expr = expr.child_by_field_name("operand")?
                }
                "generic_type" if self.lang == Lang::Go => {
                    expr = expr.child_by_field_name("type")?
                }
                "qualified_type" if self.lang == Lang::Go => {
                    expr = expr.child_by_field_name("name")?
                }
                _ => return None,
            }
        }
    }
}

/// Where `word` occurs in `text` as a whole identifier: `warn` in `warn(`
/// and `"pkg.warn"`, not in `warnings` (non-ASCII bytes count as
/// identifier characters, as Python's and Go's letters may be).
pub(super) fn word_positions<'t>(
    text: &'t [u8],
    word: &'t str,
) -> impl Iterator<Item = usize> + 't {
    let is_ident = |b: u8| b == b'_' || b.is_ascii_alphanumeric() || b >= 0x80;
    let w = word.as_bytes();
    let mut from = 0;
    std::iter::from_fn(move || {
        if w.is_empty() {
            return None;
        }
        while from + w.len() <= text.len() {
            let at = from + find(&text[from..], w)?;
            from = at + 1;
            let before = at.checked_sub(1).map(|i| text[i]);
            let after = text.get(at + w.len()).copied();
            if !before.is_some_and(is_ident) && !after.is_some_and(is_ident) {
                return Some(at);
            }
        }
        None
    })
}

/// The first place `needle` occurs in `hay`.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let first = needle[0];
    let mut i = 0;
    while i + needle.len() <= hay.len() {
        let at = i + hay[i..=hay.len() - needle.len()]
            .iter()
            .position(|&b| b == first)?;
        if &hay[at..at + needle.len()] == needle {
            return Some(at);
        }
        i = at + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    #[test]
    fn documentation_mentions_are_the_comments_above_and_the_docstring() {
        use super::Parsed;
        use crate::model::{Lang, Span};
        let src = "# charge() bills; see charge_all\n# charge it\n@logged\ndef charge(x):\n    \"\"\"charge x, not recharge.\"\"\"\n    return charge_all(x)\n";
        let p = Parsed::new(Lang::Python, src.as_bytes().to_vec()).unwrap();
        let span = Span {
            start_byte: src.find("@logged").unwrap() as u32,
            end_byte: src.len() as u32,
            start_line: 3,
            end_line: 6,
        };
        let found: Vec<usize> = p
            .doc_mentions(span, "charge")
            .iter()
            .map(|r| r.start)
            .collect();
        assert_eq!(
            found,
            [
                2,
                src.find("charge it").unwrap(),
                src.find("charge x").unwrap()
            ]
        );
        let go = "package b\n\n// Charge charges.\n//\n// Charge is safe.\nfunc Charge() {}\n";
        let p = Parsed::new(Lang::Go, go.as_bytes().to_vec()).unwrap();
        let start = go.find("func").unwrap() as u32;
        let span = Span {
            start_byte: start,
            end_byte: go.len() as u32,
            start_line: 6,
            end_line: 6,
        };
        assert_eq!(p.doc_mentions(span, "Charge").len(), 2);
        let one_line = "def f(): \"f it\"\n";
        let p = Parsed::new(Lang::Python, one_line.as_bytes().to_vec()).unwrap();
        let span = Span {
            start_byte: 0,
            end_byte: one_line.len() as u32,
            start_line: 1,
            end_line: 1,
        };
        assert!(p.doc_mentions(span, "f").is_empty());
    }

    use super::*;

    fn span_of(source: &str, needle: &str) -> Span {
        let start = source.find(needle).unwrap();
        Span {
            start_byte: start as u32,
            end_byte: (start + needle.len()) as u32,
            start_line: 1,
            end_line: 1,
        }
    }

    fn callee(lang: Lang, source: &str, call: &str) -> Option<String> {
        let p = Parsed::new(lang, source.as_bytes().to_vec()).unwrap();
        p.callee_name(span_of(source, call))
            .map(|r| source[r].to_owned())
    }

    #[test]
    fn the_callee_name_is_the_last_identifier_of_the_callee() {
        let py = "x = obj.repo.save(1)\ny = f(2)\n@deco(3)\ndef g(): pass\nz = box.size + 1\n";
        assert_eq!(
            callee(Lang::Python, py, "obj.repo.save(1)").as_deref(),
            Some("save")
        );
        assert_eq!(callee(Lang::Python, py, "f(2)").as_deref(), Some("f"));
        assert_eq!(
            callee(Lang::Python, py, "@deco(3)").as_deref(),
            Some("deco")
        );
        let go = "package p\nfunc g() { pricing.Quote(1); Map[int](2); (h)(3); fs()(4) }\n";
        assert_eq!(
            callee(Lang::Go, go, "pricing.Quote(1)").as_deref(),
            Some("Quote")
        );
        assert_eq!(callee(Lang::Go, go, "Map[int](2)").as_deref(), Some("Map"));
        assert_eq!(callee(Lang::Go, go, "(h)(3)").as_deref(), Some("h"));
        assert_eq!(callee(Lang::Go, go, "fs()(4)"), None);
    }

    #[test]
    fn names_are_found_whole() {
        let text = b"warn(1); warnings; x.warn; \"a.warn\"; forewarn; warn";
        let found: Vec<usize> = word_positions(text, "warn").collect();
        assert_eq!(found, [0, 21, 30, 47]);
        assert_eq!(word_positions(b"", "warn").count(), 0);
        assert_eq!(word_positions(b"war", "warn").count(), 0);
    }
}

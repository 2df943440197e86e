//! The pieces both extractors share: an iterative enter/exit walk over a
//! syntax tree, node-kind and field lookup tables, and a file-local string
//! interner.

use rustc_hash::FxHashMap as HashMap;

use tree_sitter::{Language, Node, Tree};

use crate::model::Sym;

/// Callbacks for [`walk`]. `enter` returns false to skip a node's children
/// (its `exit` is still called).
pub(crate) trait Visitor<'t> {
    fn enter(&mut self, node: Node<'t>, field: u16) -> bool;
    fn exit(&mut self, node: Node<'t>, field: u16);
}

/// Visit every node in pre-order (`enter`) and post-order (`exit`) with a
/// cursor, so depth costs no stack. `field` is the node's field id in its
/// parent, 0 when it has none. Returns how many visited nodes are syntax
/// errors (an `ERROR` node or one the parser supplied as missing); a tree
/// without any, nearly every file, is not asked node by node.
pub(crate) fn walk<'t>(tree: &'t Tree, visitor: &mut impl Visitor<'t>) -> u32 {
    let mut cursor = tree.walk();
    let has_errors = tree.root_node().has_error();
    let mut errors = 0;
    'outer: loop {
        let node = cursor.node();
        if has_errors && (node.is_error() || node.is_missing()) {
            errors += 1;
        }
        let field = cursor.field_id().map(|f| f.get()).unwrap_or(0);
        let descend = visitor.enter(node, field);
        if descend && cursor.goto_first_child() {
            continue;
        }
        visitor.exit(node, field);
        loop {
            if cursor.goto_next_sibling() {
                continue 'outer;
            }
            if !cursor.goto_parent() {
                break 'outer;
            }
            let node = cursor.node();
            let field = cursor.field_id().map(|f| f.get()).unwrap_or(0);
            visitor.exit(node, field);
        }
    }
    errors
}

/// Maps a grammar's numeric node kinds to a language module's own enum, so
/// the hot loop matches on small integers instead of comparing strings.
pub(crate) struct KindTable<K: Copy> {
    kinds: Vec<K>,
    fallback: K,
}

impl<K: Copy> KindTable<K> {
    pub fn new(language: &Language, fallback: K, map: impl Fn(&str) -> Option<K>) -> Self {
        let count = language.node_kind_count();
        let kinds = (0..count as u16)
            .map(|id| {
                if !language.node_kind_is_named(id) {
                    return fallback;
                }
                language
                    .node_kind_for_id(id)
                    .and_then(&map)
                    .unwrap_or(fallback)
            })
            .collect();
        KindTable { kinds, fallback }
    }

    /// Anonymous kinds map to the fallback in the table itself (a node's
    /// kind id, alias included, carries its named-ness), so no separate
    /// `is_named` call is needed.
    pub fn get(&self, node: &Node) -> K {
        self.kinds
            .get(node.kind_id() as usize)
            .copied()
            .unwrap_or(self.fallback)
    }
}

/// Field id lookup by name (0 when the grammar has no such field).
pub(crate) fn field_id(language: &Language, name: &str) -> u16 {
    language
        .field_id_for_name(name)
        .map(|f| f.get())
        .unwrap_or(0)
}

/// A file-local string table.
#[derive(Default)]
pub(crate) struct Interner {
    map: HashMap<String, Sym>,
    pub strings: crate::model::StringTable,
}

impl Interner {
    pub fn intern(&mut self, s: &str) -> Sym {
        if let Some(&sym) = self.map.get(s) {
            return sym;
        }
        let sym = self.strings.push(s);
        self.map.insert(s.to_owned(), sym);
        sym
    }

    pub fn get(&self, sym: Sym) -> &str {
        self.strings.get(sym).unwrap_or("")
    }
}

/// The text of a node, lossily decoded (files with invalid UTF-8 still index).
pub(crate) fn text<'s>(node: &Node, source: &'s [u8]) -> std::borrow::Cow<'s, str> {
    let range = node.start_byte().min(source.len())..node.end_byte().min(source.len());
    String::from_utf8_lossy(&source[range])
}

/// Collapse whitespace runs and cap the length: signatures are for display.
pub(crate) fn one_line(s: &str, max: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max));
    let mut last_space = false;
    for ch in s.chars() {
        if ch.is_whitespace() {
            if !last_space && !out.is_empty() {
                out.push(' ');
            }
            last_space = true;
        } else {
            out.push(ch);
            last_space = false;
        }
        if out.len() >= max {
            out.push('…');
            break;
        }
    }
    out.trim_end().to_owned()
}

/// Count newline-terminated lines (a final line without newline counts too).
pub(crate) fn count_lines(source: &[u8]) -> u32 {
    let newlines = source.iter().filter(|&&b| b == b'\n').count();
    let trailing = usize::from(!source.is_empty() && !source.ends_with(b"\n"));
    (newlines + trailing) as u32
}

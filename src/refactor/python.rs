//! What a Python refactoring reads from a file's syntax beyond its call
//! sites: the `def` that names the target, `from m import f [as g]`
//! imports, `__all__` entries, `mock.patch("pkg.mod.f")` strings, class
//! bases (for overrides), module-level bindings (for clashes), the
//! remaining mentions of the old name, and for a move the statements of
//! the module's top level and the names a definition uses.

use std::ops::Range;

use tree_sitter::Node;

use super::syntax::Parsed;

/// One name of a `from MODULE import …` statement.
pub(super) struct FromImport {
    /// The module as written: `shop.pricing`, `.pricing`, `..`.
    pub(super) module: String,
    /// The imported name's identifier (the last of a dotted name).
    pub(super) name: Range<usize>,
    pub(super) name_text: String,
    pub(super) alias: Option<String>,
    /// The whole statement, the module as written, and every imported
    /// item (`x`, `y as z`) with the index of this one among them.
    pub(super) statement: Range<usize>,
    pub(super) module_bytes: Range<usize>,
    pub(super) items: Vec<Range<usize>>,
    pub(super) item: usize,
}

/// A class statement: its name and the base expressions as written.
pub(super) struct ClassStatement {
    pub(super) start_byte: usize,
    pub(super) bases: Vec<String>,
}

/// Every name of every `from … import …` statement (not `*`).
pub(super) fn from_imports(p: &Parsed) -> Vec<FromImport> {
    let mut out = Vec::new();
    p.each_node(|n| {
        if n.kind() != "import_from_statement" {
            return;
        }
        let Some(module) = n.child_by_field_name("module_name") else {
            return;
        };
        let module_bytes = module.byte_range();
        let module = p.text(module).split_whitespace().collect::<String>();
        let items = import_items(n);
        let mut cursor = n.walk();
        for (item, name) in n.children_by_field_name("name", &mut cursor).enumerate() {
            let (dotted, alias) = match name.kind() {
                "aliased_import" => (
                    name.child_by_field_name("name"),
                    name.child_by_field_name("alias")
                        .map(|a| p.text(a).to_owned()),
                ),
                _ => (Some(name), None),
            };
            let Some(last) = dotted.and_then(|d| last_identifier(d)) else {
                continue;
            };
            out.push(FromImport {
                module: module.clone(),
                name: last.byte_range(),
                name_text: p.text(last).to_owned(),
                alias,
                statement: n.byte_range(),
                module_bytes: module_bytes.clone(),
                items: items.clone(),
                item,
            });
        }
    });
    out
}

/// The `from … import` names spelled `name`.
pub(super) fn from_imports_of(p: &Parsed, name: &str) -> Vec<FromImport> {
    let mut out = Vec::new();
    for occ in p.occurrences(name) {
        if occ.kind() != "identifier" {
            continue;
        }
        let mut n = occ;
        if let Some(dotted) = n.parent().filter(|d| d.kind() == "dotted_name") {
            if last_identifier(dotted) != Some(occ) {
                continue;
            }
            n = dotted;
        }
        let mut alias = None;
        if let Some(aliased) = n.parent().filter(|a| a.kind() == "aliased_import") {
            if aliased.child_by_field_name("name") != Some(n) {
                continue;
            }
            alias = aliased
                .child_by_field_name("alias")
                .map(|a| p.text(a).to_owned());
            n = aliased;
        }
        let Some(stmt) = n.parent().filter(|s| s.kind() == "import_from_statement") else {
            continue;
        };
        let mut cursor = stmt.walk();
        let Some(item) = stmt
            .children_by_field_name("name", &mut cursor)
            .position(|c| c == n)
        else {
            continue;
        };
        let Some(module) = stmt.child_by_field_name("module_name") else {
            continue;
        };
        out.push(FromImport {
            module: p.text(module).split_whitespace().collect(),
            name: occ.byte_range(),
            name_text: p.text(occ).to_owned(),
            alias,
            statement: stmt.byte_range(),
            module_bytes: module.byte_range(),
            items: import_items(stmt),
            item,
        });
    }
    out
}

/// `import a.b as c`: (`c`, `a.b`) for each aliased module import.
pub(super) fn module_aliases(p: &Parsed) -> Vec<(String, String)> {
    let mut out = Vec::new();
    p.each_node(|n| {
        if n.kind() != "import_statement" {
            return;
        }
        let mut cursor = n.walk();
        for name in n.children_by_field_name("name", &mut cursor) {
            if name.kind() == "aliased_import"
                && let (Some(module), Some(alias)) = (
                    name.child_by_field_name("name"),
                    name.child_by_field_name("alias"),
                )
            {
                out.push((p.text(alias).to_owned(), p.text(module).to_owned()));
            }
        }
    });
    out
}

/// The byte ranges of an import statement's items (`x`, `y as z`).
fn import_items(stmt: Node) -> Vec<Range<usize>> {
    let mut cursor = stmt.walk();
    stmt.children_by_field_name("name", &mut cursor)
        .map(|n| n.byte_range())
        .collect()
}

/// What to delete to take item `i` out of a comma-separated list of
/// `items`, with one of the commas around it; the item alone when it is
/// the only one.
pub(super) fn item_removal(items: &[Range<usize>], i: usize) -> Range<usize> {
    match (items.get(i), items.get(i + 1)) {
        (Some(item), Some(next)) => item.start..next.start,
        (Some(item), None) if i > 0 => items[i - 1].end..item.end,
        (Some(item), None) => item.clone(),
        _ => 0..0,
    }
}

fn last_identifier(dotted: Node) -> Option<Node> {
    if dotted.kind() == "identifier" {
        return Some(dotted);
    }
    let count = dotted.named_child_count();
    (0..count)
        .rev()
        .filter_map(|i| dotted.named_child(i))
        .find(|c| c.kind() == "identifier")
}

/// The content of a plain string literal (no f-string, no implicit
/// concatenation), as a byte range of the file.
fn string_content(p: &Parsed, string: Node) -> Option<Range<usize>> {
    if string.kind() != "string" {
        return None;
    }
    let mut content = None;
    for i in 0..string.named_child_count() {
        let c = string.named_child(i)?;
        match c.kind() {
            "string_start" | "string_end" => {}
            "string_content" if content.is_none() => content = Some(c.byte_range()),
            _ => return None,
        }
    }
    let start = string.child(0).map(|s| p.text(s).to_ascii_lowercase())?;
    if start.contains('f') || start.contains('b') {
        return None;
    }
    content
}

/// The string entries equal to `old` in the lists and tuples bound to
/// `__all__` (`__all__ = [...]`, `__all__ += [...]`, `__all__.append(...)`).
pub(super) fn all_entries(p: &Parsed, old: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    for occ in p.occurrences(old) {
        let Some(string) = plain_string_of(p, occ, old) else {
            continue;
        };
        let mut n = string;
        let bound = loop {
            let Some(parent) = n.parent() else {
                break false;
            };
            match parent.kind() {
                "list" | "tuple" | "parenthesized_expression" | "expression_list" => n = parent,
                "assignment" | "augmented_assignment" => {
                    break parent.child_by_field_name("right") == Some(n)
                        && parent
                            .child_by_field_name("left")
                            .is_some_and(|l| p.text(l) == "__all__");
                }
                "argument_list" => {
                    break parent
                        .parent()
                        .and_then(|call| call.child_by_field_name("function"))
                        .is_some_and(|f| matches!(p.text(f), "__all__.append" | "__all__.extend"));
                }
                _ => break false,
            }
        };
        if bound {
            out.push(occ.byte_range());
        }
    }
    out
}

/// The string literal whose whole plain content is the occurrence `occ`
/// of `text`.
fn plain_string_of<'t>(p: &Parsed, occ: Node<'t>, text: &str) -> Option<Node<'t>> {
    if occ.kind() != "string_content" {
        return None;
    }
    let string = occ.parent()?;
    let content = string_content(p, string)?;
    (content == occ.byte_range() && &p.source[content] == text.as_bytes()).then_some(string)
}

/// The call whose argument list holds `arg` at position `i`, and its callee text.
fn call_with_arg<'t>(p: &'t Parsed, arg: Node<'t>, i: usize) -> Option<&'t str> {
    let args = arg.parent().filter(|a| a.kind() == "argument_list")?;
    if args.named_child(i) != Some(arg) {
        return None;
    }
    let call = args.parent().filter(|c| c.kind() == "call")?;
    Some(p.text(call.child_by_field_name("function")?))
}

/// In the first argument of `patch(...)` calls (`mock.patch`,
/// `unittest.mock.patch`, `mocker.patch`, as a decorator too) that is one
/// of `dotted` (`pkg.mod.old`), the range of its last component.
pub(super) fn patch_strings(p: &Parsed, old: &str, dotted: &[String]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    for occ in p.occurrences(old) {
        if occ.kind() != "string_content" {
            continue;
        }
        let Some(string) = occ.parent() else {
            continue;
        };
        let Some(content) = string_content(p, string) else {
            continue;
        };
        let text = std::str::from_utf8(&p.source[content.clone()]).unwrap_or("");
        if content.end != occ.end_byte() || !dotted.iter().any(|d| d == text) {
            continue;
        }
        let Some(callee) = call_with_arg(p, string, 0) else {
            continue;
        };
        if (callee == "patch" || callee.ends_with(".patch"))
            && let Some(dot) = text.rfind('.')
        {
            out.push(content.start + dot + 1..content.end);
        }
    }
    out
}

/// `patch.object(OWNER, "old")` (as `mock.patch.object`, `mocker.patch.object`
/// too) where OWNER's last name is one of `owners` (a class or module the
/// target lives in, matched by name only): the range of the string.
pub(super) fn patch_object_strings(p: &Parsed, owners: &[&str], old: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    for occ in p.occurrences(old) {
        let Some(string) = plain_string_of(p, occ, old) else {
            continue;
        };
        let Some(callee) = call_with_arg(p, string, 1) else {
            continue;
        };
        if !(callee == "patch.object" || callee.ends_with(".patch.object")) {
            continue;
        }
        let owner = string
            .parent()
            .and_then(|args| args.named_child(0))
            .map(|o| p.text(o))
            .unwrap_or("");
        let owner = owner.rsplit('.').next().unwrap_or(owner);
        if owners.contains(&owner) {
            out.push(occ.byte_range());
        }
    }
    out
}

/// Every class statement with its base expressions (keyword arguments
/// such as `metaclass=` left out).
pub(super) fn classes(p: &Parsed) -> Vec<ClassStatement> {
    let mut out = Vec::new();
    p.each_node(|n| {
        if n.kind() != "class_definition" {
            return;
        }
        let mut bases = Vec::new();
        if let Some(args) = n.child_by_field_name("superclasses") {
            for i in 0..args.named_child_count() {
                if let Some(a) = args.named_child(i)
                    && matches!(a.kind(), "identifier" | "attribute" | "subscript")
                {
                    let text = p.text(a);
                    let text = text.split('[').next().unwrap_or(text);
                    bases.push(text.split_whitespace().collect());
                }
            }
        }
        out.push(ClassStatement {
            start_byte: n.start_byte(),
            bases,
        });
    });
    out
}

/// Lines where the module binds `name` at its top level other than by a
/// `def` or `class` (which the index knows): imports and assignments.
pub(super) fn module_bindings(p: &Parsed, name: &str) -> Vec<u32> {
    let root = p.tree.root_node();
    let mut out = Vec::new();
    for i in 0..root.named_child_count() {
        let Some(stmt) = root.named_child(i) else {
            continue;
        };
        let binds = match stmt.kind() {
            "import_from_statement" | "import_statement" => {
                let mut cursor = stmt.walk();
                stmt.children_by_field_name("name", &mut cursor)
                    .any(|n| match n.kind() {
                        "aliased_import" => n
                            .child_by_field_name("alias")
                            .is_some_and(|a| p.text(a) == name),
                        _ => {
                            let text = p.text(n);
                            text == name || text.split('.').next() == Some(name)
                        }
                    })
            }
            "expression_statement" => stmt
                .named_child(0)
                .filter(|a| a.kind() == "assignment")
                .and_then(|a| a.child_by_field_name("left"))
                .is_some_and(|l| p.text(l) == name),
            _ => false,
        };
        if binds {
            out.push(stmt.start_position().row as u32 + 1);
        }
    }
    out
}

/// Identifiers spelled `old`, except keyword argument names (`f(old=1)`
/// names a parameter, not the target).
pub(super) fn mentions(p: &Parsed, old: &str) -> Vec<Range<usize>> {
    p.occurrences(old)
        .into_iter()
        .filter(|n| n.kind() == "identifier")
        .filter(|n| {
            !n.parent().is_some_and(|parent| {
                parent.kind() == "keyword_argument"
                    && parent.child_by_field_name("name") == Some(*n)
            })
        })
        .map(|n| n.byte_range())
        .collect()
}

/// One name an import statement binds.
pub(super) struct ImportBinding {
    /// The name the statement binds (`a` for `import a.b`).
    pub(super) bound: String,
    /// `from M import …`: M as written; `None` for `import a.b`.
    pub(super) from: Option<String>,
    /// The imported name as written: `a.b`, `x`.
    pub(super) name: String,
    pub(super) alias: Option<String>,
    pub(super) statement: Range<usize>,
    /// At the module's top level rather than inside a block.
    pub(super) top_level: bool,
}

/// Every name every import statement binds (not `from m import *`).
pub(super) fn import_bindings(p: &Parsed) -> Vec<ImportBinding> {
    let mut out = Vec::new();
    p.each_node(|n| {
        let from = match n.kind() {
            "import_statement" => None,
            "import_from_statement" => match n.child_by_field_name("module_name") {
                Some(m) => Some(p.text(m).split_whitespace().collect::<String>()),
                None => return,
            },
            _ => return,
        };
        let top_level = n.parent().is_some_and(|m| m.kind() == "module");
        let mut cursor = n.walk();
        for item in n.children_by_field_name("name", &mut cursor) {
            let (name, alias) = match item.kind() {
                "aliased_import" => (
                    item.child_by_field_name("name").map(|d| p.text(d)),
                    item.child_by_field_name("alias")
                        .map(|a| p.text(a).to_owned()),
                ),
                _ => (Some(p.text(item)), None),
            };
            let Some(name) = name.map(|t| t.split_whitespace().collect::<String>()) else {
                continue;
            };
            let bound = match (&alias, &from) {
                (Some(a), _) => a.clone(),
                (None, Some(_)) => name.clone(),
                (None, None) => name.split('.').next().unwrap_or(&name).to_owned(),
            };
            out.push(ImportBinding {
                bound,
                from: from.clone(),
                name,
                alias,
                statement: n.byte_range(),
                top_level,
            });
        }
    });
    out
}

/// The names a module's top level binds other than by an import — `def`,
/// `class`, a plain or annotated assignment — with their statements.
pub(super) fn top_level_definitions(p: &Parsed) -> Vec<(String, Range<usize>)> {
    let root = p.tree.root_node();
    let mut out = Vec::new();
    for i in 0..root.named_child_count() {
        let Some(stmt) = root.named_child(i) else {
            continue;
        };
        let def = match stmt.kind() {
            "decorated_definition" => stmt.child_by_field_name("definition"),
            _ => Some(stmt),
        };
        let name = match def.map(|d| (d.kind(), d)) {
            Some(("function_definition" | "class_definition", d)) => d.child_by_field_name("name"),
            Some(("expression_statement", d)) => d
                .named_child(0)
                .filter(|a| a.kind() == "assignment")
                .and_then(|a| a.child_by_field_name("left"))
                .filter(|l| l.kind() == "identifier"),
            _ => None,
        };
        if let Some(name) = name {
            out.push((p.text(name).to_owned(), stmt.byte_range()));
        }
    }
    out
}

/// A `def` or `class` of the module's top level, decorators included.
pub(super) struct TopDefinition {
    pub(super) name: String,
    pub(super) is_class: bool,
    pub(super) statement: Range<usize>,
    /// Where the comment lines directly above it start (the statement's
    /// start when there are none): they describe it, so they move with it.
    pub(super) comments_start: usize,
}

/// The top-level `def` or `class` statement holding byte `at`; `None` when
/// the statement there is anything else.
pub(super) fn top_definition_at(p: &Parsed, at: usize) -> Option<TopDefinition> {
    let root = p.tree.root_node();
    let stmt = (0..root.named_child_count())
        .filter_map(|i| root.named_child(i))
        .find(|s| s.start_byte() <= at && at < s.end_byte())?;
    let def = match stmt.kind() {
        "decorated_definition" => stmt.child_by_field_name("definition")?,
        _ => stmt,
    };
    let is_class = match def.kind() {
        "function_definition" => false,
        "class_definition" => true,
        _ => return None,
    };
    let name = p.text(def.child_by_field_name("name")?).to_owned();
    let mut first = stmt;
    while let Some(prev) = first.prev_named_sibling() {
        if prev.kind() != "comment" || prev.end_position().row + 1 != first.start_position().row {
            break;
        }
        // A comment ending a line of code belongs to that code.
        let line_start = p.source[..prev.start_byte()]
            .iter()
            .rposition(|b| *b == b'\n')
            .map_or(0, |i| i + 1);
        if p.source[line_start..prev.start_byte()]
            .iter()
            .any(|b| !b.is_ascii_whitespace())
        {
            break;
        }
        first = prev;
    }
    Some(TopDefinition {
        name,
        is_class,
        statement: stmt.byte_range(),
        comments_start: first.start_byte(),
    })
}

/// The identifiers the code in `range` reads as names: not an attribute
/// after a dot, not a keyword argument's name.
pub(super) fn names_used(p: &Parsed, range: Range<usize>) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    p.each_node(|n| {
        if n.start_byte() >= range.start && n.end_byte() <= range.end && is_name_read(n) {
            out.insert(p.text(n).to_owned());
        }
    });
    out
}

/// Where the code reads `name` as a name (see [`names_used`]), outside
/// the statements that define it or import it.
pub(super) fn name_reads(p: &Parsed, name: &str) -> Vec<Range<usize>> {
    p.occurrences(name)
        .into_iter()
        .filter(|n| is_name_read(*n))
        .map(|n| n.byte_range())
        .collect()
}

/// Whether the identifier `n` reads a name: not an attribute after a
/// dot, a keyword argument's name, the name a `def` or `class` declares,
/// or a name of an import statement.
fn is_name_read(n: Node) -> bool {
    if n.kind() != "identifier" {
        return false;
    }
    let Some(parent) = n.parent() else {
        return true;
    };
    match parent.kind() {
        "attribute" => parent.child_by_field_name("attribute") != Some(n),
        "keyword_argument" | "function_definition" | "class_definition" => {
            parent.child_by_field_name("name") != Some(n)
        }
        "dotted_name" | "aliased_import" | "import_statement" | "import_from_statement" => false,
        _ => true,
    }
}

/// `__all__ = [...]` (or a tuple) at the top level.
pub(super) struct AllList {
    /// Just after the opening bracket.
    pub(super) open: usize,
    /// Each item and its plain string content, if it is one.
    pub(super) items: Vec<(Range<usize>, Option<String>)>,
}

pub(super) fn all_list(p: &Parsed) -> Option<AllList> {
    let root = p.tree.root_node();
    (0..root.named_child_count())
        .filter_map(|i| root.named_child(i))
        .filter(|s| s.kind() == "expression_statement")
        .filter_map(|s| s.named_child(0))
        .filter(|a| a.kind() == "assignment")
        .filter(|a| {
            a.child_by_field_name("left")
                .is_some_and(|l| p.text(l) == "__all__")
        })
        .filter_map(|a| a.child_by_field_name("right"))
        .find(|r| matches!(r.kind(), "list" | "tuple"))
        .map(|list| AllList {
            open: list.start_byte() + 1,
            items: (0..list.named_child_count())
                .filter_map(|i| list.named_child(i))
                .filter(|c| c.kind() != "comment")
                .map(|c| {
                    let text = string_content(p, c)
                        .map(|r| String::from_utf8_lossy(&p.source[r]).into_owned());
                    (c.byte_range(), text)
                })
                .collect(),
        })
}

/// Where a module's top-level imports can grow: after its last top-level
/// import statement outside `skip`, else after its docstring and leading
/// comments; `None` for the start of the file.
pub(super) enum ImportSpot {
    AfterImport(usize),
    AfterHeader(usize),
    Start,
}

pub(super) fn import_spot(p: &Parsed, skip: &[Range<usize>]) -> ImportSpot {
    let root = p.tree.root_node();
    let stmts: Vec<Node> = (0..root.named_child_count())
        .filter_map(|i| root.named_child(i))
        .collect();
    let last_import = stmts.iter().rfind(|s| {
        matches!(
            s.kind(),
            "import_statement" | "import_from_statement" | "future_import_statement"
        ) && !skip
            .iter()
            .any(|r| r.start <= s.start_byte() && s.end_byte() <= r.end)
    });
    if let Some(s) = last_import {
        return ImportSpot::AfterImport(s.end_byte());
    }
    let mut header = None;
    for (i, s) in stmts.iter().enumerate() {
        let docstring = i == 0
            && s.kind() == "expression_statement"
            && s.named_child(0).is_some_and(|c| c.kind() == "string");
        if docstring || s.kind() == "comment" {
            header = Some(s.end_byte());
        } else {
            break;
        }
    }
    header.map_or(ImportSpot::Start, ImportSpot::AfterHeader)
}

/// `OBJECT.name` expressions: the object's range and text (spaces taken
/// out) and the attribute name's range.
pub(super) fn attribute_uses(p: &Parsed, name: &str) -> Vec<(Range<usize>, String, Range<usize>)> {
    p.occurrences(name)
        .into_iter()
        .filter(|n| n.kind() == "identifier")
        .filter_map(|n| {
            let parent = n.parent().filter(|a| a.kind() == "attribute")?;
            if parent.child_by_field_name("attribute") != Some(n) {
                return None;
            }
            let object = parent.child_by_field_name("object")?;
            let text = p.text(object).split_whitespace().collect();
            Some((object.byte_range(), text, n.byte_range()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Lang;

    fn parsed(src: &str) -> Parsed {
        Parsed::new(Lang::Python, src.as_bytes().to_vec()).unwrap()
    }

    #[test]
    fn imports_all_and_patch_strings_are_found() {
        let src = "from .pricing import compute_total as total, other\nfrom a.b import (x,\n  compute_total)\n\
                   __all__ = [\"compute_total\", 'x']\n__all__ += (\"compute_total\",)\n\
                   @mock.patch(\"shop.pricing.compute_total\")\ndef t(): patch(f\"shop.pricing.compute_total\")\n";
        let p = parsed(src);
        let imports = from_imports(&p);
        let names: Vec<(&str, &str, Option<&str>)> = imports
            .iter()
            .map(|i| (i.module.as_str(), i.name_text.as_str(), i.alias.as_deref()))
            .collect();
        assert_eq!(
            names,
            [
                (".pricing", "compute_total", Some("total")),
                (".pricing", "other", None),
                ("a.b", "x", None),
                ("a.b", "compute_total", None),
            ]
        );
        assert_eq!(all_entries(&p, "compute_total").len(), 2);
        let objects = parsed(
            "mock.patch.object(pricing, \"compute_total\")\npatch.object(other, \"compute_total\")\n",
        );
        assert_eq!(
            patch_object_strings(&objects, &["pricing"], "compute_total").len(),
            1
        );
        let of: Vec<(String, Option<String>)> = from_imports_of(&p, "compute_total")
            .into_iter()
            .map(|i| (src[i.name].to_owned(), i.alias))
            .collect();
        assert_eq!(
            of,
            [
                ("compute_total".to_owned(), Some("total".to_owned())),
                ("compute_total".to_owned(), None)
            ]
        );
        let patched = patch_strings(
            &p,
            "compute_total",
            &["shop.pricing.compute_total".to_owned()],
        );
        assert_eq!(patched.len(), 1, "the f-string is not a plain string");
        assert_eq!(&src[patched[0].clone()], "compute_total");
    }

    #[test]
    fn a_definition_moves_with_the_comments_above_it_and_reads_its_names() {
        let src = "import os\nx = 1  # trailing\n# about f\n# more\n@deco(os.sep)\ndef f(a=x):\n    return g(a, key=os.path)\n\n\nclass C: pass\n";
        let p = parsed(src);
        let def = top_definition_at(&p, src.find("def f").unwrap()).unwrap();
        assert_eq!(def.name, "f");
        assert!(!def.is_class);
        assert_eq!(
            &src[def.comments_start..],
            &src[src.find("# about").unwrap()..]
        );
        let used = names_used(&p, def.statement.clone());
        let used: Vec<&str> = used.iter().map(String::as_str).collect();
        assert_eq!(used, ["a", "deco", "g", "os", "x"]);
        assert!(top_definition_at(&p, src.find("x = 1").unwrap()).is_none());
        let defs: Vec<String> = top_level_definitions(&p)
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(defs, ["x", "f", "C"]);
        let imports = import_bindings(&p);
        assert_eq!(
            (imports[0].bound.as_str(), imports[0].top_level),
            ("os", true)
        );
        assert!(matches!(import_spot(&p, &[]), ImportSpot::AfterImport(9)));
        assert_eq!(item_removal(&[0..1, 3..4, 6..7], 1), 3..6);
        assert_eq!(item_removal(&[0..1, 3..4], 1), 1..4);
        let only: Vec<Range<usize>> = std::iter::once(2..5).collect();
        assert_eq!(item_removal(&only, 0), 2..5);
    }

    #[test]
    fn bases_bindings_and_mentions() {
        let src = "import os\nfrom m import f as g\nh = 1\nimport a.b as c\nclass A(B, mod.C, Generic[T], metaclass=M):\n    def g(self): return f(g=1)\n";
        let p = parsed(src);
        let c = classes(&p);
        assert_eq!(c[0].bases, ["B", "mod.C", "Generic"]);
        assert_eq!(module_bindings(&p, "g"), [2]);
        assert_eq!(module_bindings(&p, "h"), [3]);
        assert_eq!(module_bindings(&p, "os"), [1]);
        assert_eq!(module_aliases(&p), [("c".to_owned(), "a.b".to_owned())]);
        assert_eq!(
            mentions(&p, "g").len(),
            2,
            "the alias and the def, not the keyword"
        );
    }
}

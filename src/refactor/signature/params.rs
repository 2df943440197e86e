//! What a signature change reads from the syntax: a definition's
//! parameters (Python's kinds — positional-only, `*args`, keyword-only,
//! `**kwargs` — and Go's `a, b int` groups), where its body uses a name,
//! and a call's arguments.

use std::ops::Range;

use tree_sitter::Node;

use super::lists::CommaList;
use crate::model::{Lang, Span};
use crate::refactor::syntax::Parsed;

/// How a parameter can be passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// Python, before `/`.
    PositionalOnly,
    /// By position or (Python) by name.
    Normal,
    /// Python `*args`, Go `xs ...T`.
    VarArgs,
    /// Python, after `*` or `*args`.
    KeywordOnly,
    /// Python `**kwargs`.
    VarKeywords,
}

impl Kind {
    pub(super) fn positional(self) -> bool {
        matches!(self, Kind::PositionalOnly | Kind::Normal)
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            Kind::PositionalOnly => "positional-only (before `/`)",
            Kind::Normal => "positional",
            Kind::VarArgs => "variadic",
            Kind::KeywordOnly => "keyword-only (after `*`)",
            Kind::VarKeywords => "`**kwargs`",
        }
    }
}

#[derive(Debug, Clone)]
pub(super) struct Param {
    pub(super) name: String,
    /// Its item in the parameter list (Go: the group's).
    pub(super) item: usize,
    pub(super) kind: Kind,
    pub(super) has_default: bool,
    /// Go: the names declared with one type (`a, b int`), and this one's
    /// place among them.
    pub(super) group: Vec<Range<usize>>,
    pub(super) in_group: usize,
    /// Go: the type as written (`int`, `...string`).
    pub(super) type_text: String,
}

/// A definition's parameter list.
#[derive(Debug, Clone)]
pub(super) struct Params {
    pub(super) list: CommaList,
    pub(super) params: Vec<Param>,
    /// Parameters a call through an instance supplies without an
    /// argument: Python's `self` or `cls`.
    pub(super) bound: usize,
    /// Python's bare `*` and `/`, as items of the list.
    pub(super) star: Option<usize>,
    pub(super) slash: Option<usize>,
    pub(super) body: Range<usize>,
    /// Python: declared `@classmethod` (a call through the class binds `cls`).
    pub(super) classmethod: bool,
}

impl Params {
    pub(super) fn find(&self, name: &str) -> Option<usize> {
        self.params.iter().position(|p| p.name == name)
    }

    /// The parameters a caller names: all but `self`/`cls`.
    pub(super) fn visible(&self) -> &[Param] {
        &self.params[self.bound.min(self.params.len())..]
    }

    pub(super) fn names(&self) -> String {
        self.visible()
            .iter()
            .map(|p| p.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The parameters of the function or method called `name` declared at
/// `decl`; `None` when it is not a plain `def`/`func` of that name.
pub(super) fn read(p: &Parsed, decl: Span, name: &str, method: bool) -> Option<Params> {
    let name_range = p.def_name(decl, name)?;
    let def = p
        .tree
        .root_node()
        .descendant_for_byte_range(name_range.start, name_range.end)?
        .parent()?;
    let list = def
        .child_by_field_name("parameters")
        .filter(|l| !l.has_error())?;
    let body = def.child_by_field_name("body")?.byte_range();
    match p.lang {
        Lang::Python => Some(python(p, def, list, body, method)),
        Lang::Go => go(p, list, body),
    }
}

fn python(p: &Parsed, def: Node, list: Node, body: Range<usize>, method: bool) -> Params {
    let decorators: Vec<&str> = def
        .parent()
        .filter(|d| d.kind() == "decorated_definition")
        .map(|d| {
            let mut c = d.walk();
            d.named_children(&mut c)
                .filter(|n| n.kind() == "decorator")
                .map(|n| p.text(n).trim_start_matches('@').trim())
                .collect()
        })
        .unwrap_or_default();
    let staticmethod = decorators.contains(&"staticmethod");
    let classmethod = decorators.contains(&"classmethod");
    let comma_list = CommaList::of(list);
    let mut params: Vec<Param> = Vec::new();
    let (mut star, mut slash) = (None, None);
    let mut keyword_only = false;
    let mut cursor = list.walk();
    let items: Vec<Node> = list
        .named_children(&mut cursor)
        .filter(|n| n.kind() != "comment")
        .collect();
    for (item, n) in items.iter().enumerate() {
        let (name_node, has_default) = match n.kind() {
            "identifier" => (Some(*n), false),
            "typed_parameter" => (n.named_child(0), false),
            "default_parameter" | "typed_default_parameter" => {
                (n.child_by_field_name("name"), true)
            }
            "list_splat_pattern" | "dictionary_splat_pattern" => (Some(*n), false),
            "keyword_separator" => {
                star = Some(item);
                keyword_only = true;
                continue;
            }
            "positional_separator" => {
                slash = Some(item);
                for q in params.iter_mut() {
                    q.kind = Kind::PositionalOnly;
                }
                continue;
            }
            _ => (Some(*n), false),
        };
        let Some(name_node) = name_node else { continue };
        let (kind, name) = match name_node.kind() {
            "list_splat_pattern" => {
                keyword_only = true;
                (Kind::VarArgs, splat_name(p, name_node))
            }
            "dictionary_splat_pattern" => (Kind::VarKeywords, splat_name(p, name_node)),
            _ if keyword_only => (Kind::KeywordOnly, p.text(name_node).to_owned()),
            _ => (Kind::Normal, p.text(name_node).to_owned()),
        };
        params.push(Param {
            name,
            item,
            kind,
            has_default,
            group: Vec::new(),
            in_group: 0,
            type_text: String::new(),
        });
    }
    let bound =
        usize::from(method && !staticmethod && params.first().is_some_and(|q| q.kind.positional()));
    Params {
        list: comma_list,
        params,
        bound,
        star,
        slash,
        body,
        classmethod,
    }
}

fn splat_name(p: &Parsed, n: Node) -> String {
    p.text(n).trim_start_matches('*').trim().to_owned()
}

fn go(p: &Parsed, list: Node, body: Range<usize>) -> Option<Params> {
    let comma_list = CommaList::of(list);
    let mut params = Vec::new();
    let mut cursor = list.walk();
    let items: Vec<Node> = list
        .named_children(&mut cursor)
        .filter(|n| n.kind() != "comment")
        .collect();
    for (item, n) in items.iter().enumerate() {
        let variadic = n.kind() == "variadic_parameter_declaration";
        let mut c = n.walk();
        let names: Vec<Node> = n.children_by_field_name("name", &mut c).collect();
        let type_text = n.child_by_field_name("type").map_or("", |t| p.text(t));
        let type_text = if variadic {
            format!("...{type_text}")
        } else {
            type_text.to_owned()
        };
        // `func(int, string)`: nothing to name at a call site or in a plan.
        if names.is_empty() {
            return None;
        }
        let group: Vec<Range<usize>> = names.iter().map(|n| n.byte_range()).collect();
        for (in_group, name) in names.iter().enumerate() {
            params.push(Param {
                name: p.text(*name).to_owned(),
                item,
                kind: if variadic {
                    Kind::VarArgs
                } else {
                    Kind::Normal
                },
                has_default: false,
                group: group.clone(),
                in_group,
                type_text: type_text.clone(),
            });
        }
    }
    Some(Params {
        list: comma_list,
        params,
        bound: 0,
        star: None,
        slash: None,
        body,
        classmethod: false,
    })
}

/// Where the body uses `name` as a variable: not as an attribute
/// (`x.name`), a keyword argument's name, a nested function's own
/// parameter or a Go field.
pub(super) fn uses(p: &Parsed, body: &Range<usize>, name: &str) -> Vec<usize> {
    p.occurrences(name)
        .into_iter()
        .filter(|n| n.start_byte() >= body.start && n.end_byte() <= body.end)
        .filter(|n| n.kind() == "identifier")
        .filter(|n| {
            !n.parent().is_some_and(|parent| {
                (parent.kind() == "attribute"
                    && parent.child_by_field_name("attribute") == Some(*n))
                    || (parent.kind() == "keyword_argument"
                        && parent.child_by_field_name("name") == Some(*n))
                    || matches!(parent.kind(), "parameters" | "lambda_parameters")
                    || (matches!(
                        parent.kind(),
                        "default_parameter" | "typed_default_parameter"
                    ) && parent.child_by_field_name("name") == Some(*n))
                    || (parent.kind() == "typed_parameter" && parent.named_child(0) == Some(*n))
                    || (parent.kind() == "parameter_declaration"
                        && parent.child_by_field_name("type") != Some(*n))
            })
        })
        .map(|n| n.start_byte())
        .collect()
}

/// How an argument is passed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum ArgKind {
    Positional,
    Keyword(String),
    /// Python `*xs`, Go `xs...`.
    Splat,
    /// Python `**kw`.
    DoubleSplat,
}

/// A call's arguments.
#[derive(Debug, Clone)]
pub(super) struct Args {
    pub(super) list: CommaList,
    pub(super) kinds: Vec<ArgKind>,
}

impl Args {
    pub(super) fn positional(&self) -> usize {
        self.kinds
            .iter()
            .take_while(|k| **k == ArgKind::Positional)
            .count()
    }

    pub(super) fn has_splat(&self) -> bool {
        self.kinds
            .iter()
            .any(|k| matches!(k, ArgKind::Splat | ArgKind::DoubleSplat))
    }

    pub(super) fn keyword(&self, name: &str) -> Option<usize> {
        self.kinds
            .iter()
            .position(|k| matches!(k, ArgKind::Keyword(n) if n == name))
    }
}

/// The call expression recorded at `span`.
pub(super) fn call_at(p: &Parsed, span: Span) -> Option<Node<'_>> {
    let (start, end) = (span.start_byte as usize, span.end_byte as usize);
    let mut node = p.tree.root_node().descendant_for_byte_range(start, end)?;
    loop {
        if matches!(node.kind(), "call" | "call_expression")
            && node.start_byte() == start
            && node.end_byte() == end
        {
            return Some(node);
        }
        node = node
            .parent()
            .filter(|n| n.start_byte() == start && n.end_byte() == end)?;
    }
}

/// The arguments of `call`, or why they cannot be edited as a list.
pub(super) fn args(p: &Parsed, call: Node) -> Result<Args, &'static str> {
    let Some(list) = call.child_by_field_name("arguments") else {
        return Err("a call without an argument list");
    };
    if list.kind() != "argument_list" {
        return Err("a call whose only argument is a bare generator (`f(x for x in xs)`)");
    }
    if list.has_error() {
        return Err("a call whose arguments do not parse");
    }
    let mut cursor = list.walk();
    let kinds = list
        .named_children(&mut cursor)
        .filter(|n| n.kind() != "comment")
        .map(|n| match n.kind() {
            "keyword_argument" => ArgKind::Keyword(
                n.child_by_field_name("name")
                    .map_or(String::new(), |k| p.text(k).to_owned()),
            ),
            "list_splat" | "variadic_argument" => ArgKind::Splat,
            "dictionary_splat" => ArgKind::DoubleSplat,
            _ => ArgKind::Positional,
        })
        .collect();
    Ok(Args {
        list: CommaList::of(list),
        kinds,
    })
}

/// Python: whether `call` names its method through a class called
/// `class` (`Repo.save(repo, x)`), passing `self` as its first argument.
pub(super) fn through_class(p: &Parsed, call: Node, class: &str) -> bool {
    call.child_by_field_name("function")
        .filter(|f| f.kind() == "attribute")
        .and_then(|f| f.child_by_field_name("object"))
        .is_some_and(|o| p.text(o).rsplit('.').next() == Some(class))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(src: &str) -> Span {
        Span {
            start_byte: 0,
            end_byte: src.len() as u32,
            start_line: 1,
            end_line: 1,
        }
    }

    #[test]
    fn python_kinds_defaults_and_bound_self() {
        let src = "class A:\n    def m(self, a, /, b=1, *args, c, d: int = 2, **kw):\n        return b + self.c\n";
        let p = Parsed::new(Lang::Python, src.as_bytes().to_vec()).unwrap();
        let ps = read(&p, span(src), "m", true).unwrap();
        let got: Vec<(&str, Kind, bool)> = ps
            .params
            .iter()
            .map(|q| (q.name.as_str(), q.kind, q.has_default))
            .collect();
        assert_eq!(
            got,
            [
                ("self", Kind::PositionalOnly, false),
                ("a", Kind::PositionalOnly, false),
                ("b", Kind::Normal, true),
                ("args", Kind::VarArgs, false),
                ("c", Kind::KeywordOnly, false),
                ("d", Kind::KeywordOnly, true),
                ("kw", Kind::VarKeywords, false),
            ]
        );
        assert_eq!(ps.bound, 1);
        assert_eq!(ps.slash, Some(2));
        assert_eq!(uses(&p, &ps.body, "b").len(), 1);
        let nested = "def f(a):\n    def g(a=1):\n        return a\n    return g(a=2)\n";
        let n = Parsed::new(Lang::Python, nested.as_bytes().to_vec()).unwrap();
        let nps = read(&n, span(nested), "f", false).unwrap();
        assert_eq!(
            uses(&n, &nps.body, "a"),
            [nested.find("return a").unwrap() + 7],
            "the inner parameter and the keyword are not uses; the inner body's read is"
        );
        assert!(uses(&p, &ps.body, "c").is_empty(), "an attribute");
    }

    #[test]
    fn go_groups_and_variadics() {
        let src = "package p\nfunc F(a, b int, s string, rest ...int) int { return a }\n";
        let p = Parsed::new(Lang::Go, src.as_bytes().to_vec()).unwrap();
        let ps = read(&p, span(src), "F", false).unwrap();
        let got: Vec<(&str, usize, usize, &str)> = ps
            .params
            .iter()
            .map(|q| (q.name.as_str(), q.item, q.group.len(), q.type_text.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("a", 0, 2, "int"),
                ("b", 0, 2, "int"),
                ("s", 1, 1, "string"),
                ("rest", 2, 1, "...int")
            ]
        );
        assert_eq!(ps.params[3].kind, Kind::VarArgs);
    }

    #[test]
    fn call_arguments_by_kind() {
        let src = "f(1, *xs, k=2, **kw)\n";
        let p = Parsed::new(Lang::Python, src.as_bytes().to_vec()).unwrap();
        let call = call_at(&p, span(src.trim_end())).unwrap();
        let a = args(&p, call).unwrap();
        assert_eq!(
            a.kinds,
            [
                ArgKind::Positional,
                ArgKind::Splat,
                ArgKind::Keyword("k".to_owned()),
                ArgKind::DoubleSplat
            ]
        );
        let go = "package p\nfunc g() { f(1, xs...) }\n";
        let p = Parsed::new(Lang::Go, go.as_bytes().to_vec()).unwrap();
        let at = go.find("f(1").unwrap();
        let call = call_at(
            &p,
            Span {
                start_byte: at as u32,
                end_byte: (at + "f(1, xs...)".len()) as u32,
                start_line: 2,
                end_line: 2,
            },
        )
        .unwrap();
        assert_eq!(
            args(&p, call).unwrap().kinds,
            [ArgKind::Positional, ArgKind::Splat]
        );
    }
}

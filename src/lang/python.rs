//! Python extraction: one pass over the syntax tree that yields declarations
//! (module, classes, functions, methods, nested functions, lambdas), call
//! sites, imports, and the *flow facts* the resolver needs to follow
//! functions and classes as values: every assignment, parameter default,
//! return, yield, decorator application, iteration and `with` item, lowered
//! into a small expression language ([`PyExpr`]).
//!
//! Names are resolved lexically here, per the LEGB rule (local, enclosing,
//! global, builtin; class bodies are not enclosing scopes for their methods),
//! because that needs only this file. What a name *points to* is left to the
//! resolver, which sees the whole repository.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::sync::LazyLock;

use serde::{Deserialize, Serialize};
use thin_vec::ThinVec;
use tree_sitter::{Language, Node};

use super::walk::{self, Interner, KindTable, Visitor};
use crate::lang::{FileFacts, LangFacts};
use crate::model::{CallSite, DeclKind, Lang, LocalDecl, Span, Sym, content_hash};

pub type ExprId = u32;

/// The expression language flow facts are written in. `Var` names a variable
/// slot of a scope (a declaration index); `Free` is a module-level name this
/// file never binds (a star import or a builtin).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum PyExpr {
    Unknown,
    Var {
        scope: u32,
        name: Sym,
    },
    Free {
        name: Sym,
    },
    Attr {
        base: ExprId,
        name: Sym,
    },
    /// The value a call site returns.
    Call(u32),
    Subscript {
        base: ExprId,
        key: Option<Sym>,
    },
    /// `base[start:…]`: the elements of `base` from position `start` on
    /// (`None` when the start is not a literal).
    Slice {
        base: ExprId,
        start: Option<u32>,
    },
    /// A list, tuple, set or dict literal (or comprehension): an allocation site.
    Container {
        items: ThinVec<(Option<Sym>, ExprId)>,
    },
    /// A function, lambda or class object.
    Decl(u32),
    /// An element drawn by iterating the inner value.
    Iter(ExprId),
    /// An instance of the classes the inner value names, or of a subclass
    /// (`except E as e`).
    Instance(ExprId),
    /// What a type annotation names: instances of its classes or of their
    /// subclasses (or, without `instance`, the classes: `type[T]`).
    /// Out-of-repository classes count only when `externals` (the
    /// annotation names one class, not one of a union's members, whose
    /// methods cannot be told apart), and never `typing`'s own names (type
    /// variables, aliases, protocols).
    Annotation {
        inner: ExprId,
        instance: bool,
        externals: bool,
    },
    Union(ThinVec<ExprId>),
    /// `subject` inside `if isinstance(subject, classes):`: instances of
    /// the classes (of any subclass), or `subject`'s own values when a class
    /// is one the values cannot say (`int`, a builtin exception) or unknown.
    Narrowed {
        subject: ExprId,
        classes: ThinVec<ExprId>,
    },
    /// `import a.b` / `from ..x import` target: `level` leading dots, then a dotted path.
    ModuleRef {
        level: u8,
        path: Sym,
    },
    /// `super()` inside method `func` of class `class`.
    Super {
        class: u32,
        func: u32,
    },
    /// A decorated definition's name: what the decorators returned when that
    /// is callable, else (an unknown or external decorator) the definition itself.
    Decorated {
        result: ExprId,
        original: ExprId,
    },
    /// A string literal (only where its methods are called).
    Str,
    /// A name as written, before lexical resolution turns it into `Var` or `Free`.
    Name {
        scope: u32,
        name: Sym,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum PyFlow {
    Assign { target: ExprId, value: ExprId },
    Return { func: u32, value: ExprId },
    Yield { func: u32, value: ExprId },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PyCallKind {
    Plain,
    Decorator,
    /// `for x in e`: `e.__iter__()` then `__next__()` when `e` is an instance.
    Iter,
    /// `with e`: `e.__enter__()` and `e.__exit__()`.
    With,
    /// `raise E`: raising a class instantiates it.
    Raise,
    /// An operator or subscript on the callee, which calls its special
    /// method `method` (`a + b` is `a.__add__(b)`), or else `reflected` on
    /// the first argument (`b.__radd__(a)`).
    Operator {
        method: Sym,
        reflected: Option<Sym>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PyCall {
    pub callee: ExprId,
    // Boxed slices, not vectors: a large repository holds millions of
    // these at once, and a slice is a third smaller than a vector.
    pub args: Box<[ExprId]>,
    pub kwargs: Box<[(Sym, ExprId)]>,
    /// `*args` and `**kwargs` splats, in order: positions after the first
    /// are unknown.
    pub splats: Box<[Splat]>,
    /// The first argument when it is a string or integer literal (the key
    /// of `d.get("k")`), in the form subscripts write keys.
    pub key: Option<Sym>,
    pub kind: PyCallKind,
}

/// One `*e` (or, with `dict`, `**e`) argument of a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Splat {
    pub expr: ExprId,
    pub dict: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ParamKind {
    Positional,
    PositionalOnly,
    KeywordOnly,
    VarArgs,
    VarKwargs,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Param {
    pub name: Sym,
    pub kind: ParamKind,
}

/// The accessors of a property: reading it calls the getter, assigning
/// it the setter, `del` the deleter.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum PropertyPart {
    #[default]
    Getter,
    Setter,
    Deleter,
}

/// Per-declaration facts (parallel to `FileFacts::decls`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PyDeclInfo {
    pub params: Vec<Param>,
    pub is_generator: bool,
    pub is_staticmethod: bool,
    pub is_classmethod: bool,
    pub is_property: bool,
    /// Which accessor of its property a decl is (`@x.setter` makes a setter).
    pub property_part: PropertyPart,
    /// An accessor handed to `property(…)`: its own name is a plain method.
    pub property_call: bool,
    /// Decorated `@abstractmethod`: a stub its subclasses override.
    pub is_abstract: bool,
    /// Base class expressions, for classes.
    pub bases: Vec<ExprId>,
    /// Annotated fields of a class body, in order.
    pub fields: Vec<Sym>,
    /// Decorated with `@dataclass` (or attrs): the constructor assigns `fields`.
    pub is_dataclass: bool,
    /// Decorated with `@functools.total_ordering`: the comparisons it
    /// lacks call the one it defines.
    pub is_total_ordering: bool,
    /// The flows that give parameters their defaults (`fn=None`), which
    /// are not rebindings in the body.
    pub default_flows: Vec<u32>,
    /// A pytest fixture: tests receive its return (or yielded) value by naming it.
    pub is_fixture: bool,
    /// `class C(metaclass=M)`: the metaclass expression, for classes.
    pub metaclass: Option<ExprId>,
    /// `items: list = field(default_factory=make_items)` in a class body:
    /// the factories a generated `__init__` calls.
    pub factories: Vec<ExprId>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PyImport {
    pub scope: u32,
    /// The module as written, with leading dots for relative imports.
    pub module: Sym,
    pub name: Option<Sym>,
    pub alias: Option<Sym>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PyFacts {
    pub exprs: Vec<PyExpr>,
    pub flows: Vec<PyFlow>,
    /// Parallel to `FileFacts::calls`.
    pub calls: Vec<PyCall>,
    pub decl_info: Vec<PyDeclInfo>,
    pub imports: Vec<PyImport>,
    /// `from m import *` in scope: (scope, ModuleRef expr).
    pub star_imports: Vec<(u32, ExprId)>,
    /// Container expressions that are dict literals (their methods are dict's).
    pub dict_sites: Vec<ExprId>,
    /// Container expressions that are set literals or comprehensions, and
    /// tuple literals (their methods are `set`'s and `tuple`'s; any other
    /// container is a list).
    pub set_sites: Vec<ExprId>,
    pub tuple_sites: Vec<ExprId>,
    /// Attributes read, callees included, assignment targets not:
    /// (caller, `Attr` expression). Reading a property calls its getter.
    pub attr_loads: Vec<(u32, ExprId)>,
    /// Attributes assigned (`obj.name = …`, `obj.name += …`): assigning a
    /// property calls its setter.
    pub attr_stores: Vec<(u32, ExprId)>,
    /// Attributes deleted (`del obj.name`): deleting a property calls its
    /// deleter.
    pub attr_deletes: Vec<(u32, ExprId)>,
    /// What the module's `__all__` says `from module import *` brings in.
    pub exports: Exports,
    /// Names a class body binds to `property(fget, fset, fdel)`; their
    /// accessors are marked `is_property` with `property_call`.
    pub property_calls: Vec<Sym>,
}

/// A module's `__all__`, as far as its literals tell.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Exports {
    /// No `__all__`: a star import takes every name without a leading underscore.
    #[default]
    Public,
    /// `__all__` is a literal list or tuple of strings (or several, `+=`).
    Listed(Vec<Sym>),
    /// `__all__` is computed (`a.__all__ + b.__all__`, `__all__.extend(…)`):
    /// any name may be exported.
    Computed,
}

pub const UNKNOWN: ExprId = 0;

/// `value.setter`, `value.deleter` or `value.getter`: a property's accessor
/// decorator, named after the property.
fn is_property_accessor(decorator: &str) -> bool {
    decorator.rsplit_once('.').is_some_and(|(owner, accessor)| {
        matches!(accessor, "setter" | "deleter" | "getter")
            && !owner.is_empty()
            && owner.chars().all(|c| c == '_' || c.is_alphanumeric())
    })
}

/// How an `attribute` node is used, which decides the property accessor
/// it calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AttrAccess {
    /// Read for its value (a callee too: `self.handler(x)` calls the
    /// getter when `handler` is a property).
    Load,
    /// A plain assignment's target.
    Store,
    /// An augmented assignment's target (`obj.n += 1`): read, then assigned.
    LoadStore,
    /// A `del` target, alone or in a list (`del a.x, b.y`).
    Delete,
}

/// `ancestors` are the frames above the node, its parent last, and `field`
/// the node's field in its parent: the walk knows both, where
/// `Node::parent` would search down from the root (a tenth of the
/// extraction's time when it was used here).
fn attribute_access(ancestors: &[Frame], field: u16) -> AttrAccess {
    let g = &*GRAMMAR;
    let Some((parent, above)) = ancestors.split_last() else {
        return AttrAccess::Load;
    };
    let is_left = field == g.f_left;
    let deleted = |frame: &Frame| frame.kind_id == g.delete_statement;
    match parent.kind {
        K::Assignment if is_left => AttrAccess::Store,
        K::AugAssignment if is_left => AttrAccess::LoadStore,
        _ if deleted(parent) => AttrAccess::Delete,
        _ if parent.kind_id == g.expression_list && above.last().is_some_and(deleted) => {
            AttrAccess::Delete
        }
        _ => AttrAccess::Load,
    }
}

/// Whether a string literal's prefix (the letters before its quote) makes
/// it an f-string, or a template string, whose braces hold expressions.
fn may_interpolate(node: Node, source: &[u8]) -> bool {
    let start = node.start_byte().min(source.len());
    source[start..]
        .iter()
        .take_while(|&&b| b != b'"' && b != b'\'')
        .any(|&b| matches!(b, b'f' | b'F' | b't' | b'T'))
}

/// `("a", "b")` or `["a", "b"]`, a literal of plain strings only (none
/// with a `|` or `*`, which mark name sets and prefixes): `a|b`.
fn literal_string_items(node: &Node, source: &[u8]) -> Option<String> {
    if !matches!(node.kind(), "tuple" | "list") {
        return None;
    }
    let mut cursor = node.walk();
    let mut names: Vec<String> = Vec::new();
    for item in node.named_children(&mut cursor) {
        if item.kind() != "string" {
            return None;
        }
        let raw = walk::text(&item, source);
        let s = string_literal(&raw)?;
        if s.is_empty() || s.contains(['|', '*']) {
            return None;
        }
        names.push(s.to_owned());
    }
    (!names.is_empty()).then(|| names.join("|"))
}

/// The literal text before an f-string's first interpolation
/// (`f"visit_{kind}"` → `visit_`); `None` without one, or when the text
/// holds an escape or an escaped brace.
fn fstring_prefix(raw: &str) -> Option<&str> {
    let letters = raw.find(['"', '\''])?;
    if !raw[..letters].contains(['f', 'F']) || raw[..letters].contains(['b', 'B']) {
        return None;
    }
    let body = &raw[letters..];
    let quote = if body.starts_with("\"\"\"") || body.starts_with("\'\'\'") {
        3
    } else {
        1
    };
    let body = &body[quote..];
    let (prefix, rest) = body.split_once('{')?;
    let plain = !prefix.is_empty()
        && !rest.starts_with('{')
        && !prefix.contains(['\\', '}', '"', '\'', '\n'])
        && prefix.len() <= 200;
    plain.then_some(prefix)
}

/// The conversion characters of a `%` format string, in order (`"%-5s
/// %r %%"` → `s`, `r`); empty when it formats from a mapping
/// (`%(name)s`), whose operand is not a sequence of values.
fn percent_conversions(format: &str) -> Vec<u8> {
    let bytes = format.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'%' {
            i += 1;
            continue;
        }
        i += 1;
        if bytes.get(i) == Some(&b'(') {
            return Vec::new();
        }
        while i < bytes.len() && b"#0- +*.0123456789hlL".contains(&bytes[i]) {
            i += 1;
        }
        match bytes.get(i) {
            Some(b'%') => {}
            Some(&c) => out.push(c),
            None => {}
        }
        i += 1;
    }
    out
}

/// Whether a lowered operand can hold an object with special methods (a
/// literal cannot, so `n + 1` with a literal on both sides is no call).
fn is_value(v: &Lowered) -> bool {
    matches!(v, Lowered::Ident(..) | Lowered::Expr(_) | Lowered::Decl(_))
}

/// The special method of a binary operator and its reflected form.
fn binary_dunder(op: &str) -> Option<(&'static str, &'static str)> {
    Some(match op {
        "+" => ("__add__", "__radd__"),
        "-" => ("__sub__", "__rsub__"),
        "*" => ("__mul__", "__rmul__"),
        "/" => ("__truediv__", "__rtruediv__"),
        "//" => ("__floordiv__", "__rfloordiv__"),
        "%" => ("__mod__", "__rmod__"),
        "**" => ("__pow__", "__rpow__"),
        "@" => ("__matmul__", "__rmatmul__"),
        "&" => ("__and__", "__rand__"),
        "|" => ("__or__", "__ror__"),
        "^" => ("__xor__", "__rxor__"),
        "<<" => ("__lshift__", "__rlshift__"),
        ">>" => ("__rshift__", "__rrshift__"),
        _ => return None,
    })
}

/// The special method of a comparison and the one Python tries on the
/// right operand when the left does not answer (`a < b` → `b > a`).
fn compare_dunder(op: &str) -> Option<(&'static str, &'static str)> {
    Some(match op {
        "<" => ("__lt__", "__gt__"),
        ">" => ("__gt__", "__lt__"),
        "<=" => ("__le__", "__ge__"),
        ">=" => ("__ge__", "__le__"),
        "==" => ("__eq__", "__eq__"),
        "!=" => ("__ne__", "__ne__"),
        _ => return None,
    })
}

/// Key of a `*rest` element in an assignment target.
const STARRED: &str = "*";

/// Lambdas nested deeper than this are folded into the one enclosing them.
/// Each nested lambda's qualified name holds every enclosing one's, so a
/// chain of n (`lambda: lambda: … 0`, 8 bytes a level) stored n²/2 name
/// segments: 125 MB of index for a 40 KB file. Written code nests a few.
const MAX_LAMBDA_NESTING: usize = 32;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum K {
    Other,
    ExpressionStatement,
    Module,
    Block,
    Error,
    Comment,
    Identifier,
    Attribute,
    Call,
    ArgumentList,
    KeywordArgument,
    ListSplat,
    DictionarySplat,
    Subscript,
    BinaryOp,
    Compare,
    UnaryOp,
    Sequence,
    Dictionary,
    Pair,
    Comprehension,
    DictComprehension,
    ForInClause,
    Conditional,
    BoolOp,
    Passthrough,
    String,
    Integer,
    Lambda,
    FunctionDef,
    DecoratedDef,
    Decorator,
    ClassDef,
    Assignment,
    AugAssignment,
    NamedExpr,
    Return,
    Raise,
    Yield,
    For,
    WithItem,
    AsPattern,
    ExceptClause,
    Import,
    ImportFrom,
    DottedName,
    AliasedImport,
    RelativeImport,
    WildcardImport,
    Global,
    Nonlocal,
    Parameters,
    DefaultParameter,
    TypedParameter,
    ListSplatPattern,
    DictSplatPattern,
    KeywordSeparator,
    PositionalSeparator,
}

struct Grammar {
    kinds: KindTable<K>,
    f_body: u16,
    f_function: u16,
    f_arguments: u16,
    f_object: u16,
    f_attribute: u16,
    f_name: u16,
    f_value: u16,
    f_alias: u16,
    f_left: u16,
    f_right: u16,
    f_argument: u16,
    f_key: u16,
    f_subscript: u16,
    f_superclasses: u16,
    f_parameters: u16,
    f_module_name: u16,
    f_consequence: u16,
    f_alternative: u16,
    f_condition: u16,
    f_type: u16,
    f_return_type: u16,
    f_operator: u16,
    delete_statement: u16,
    string: u16,
    expression_list: u16,
    if_statement: u16,
    elif_clause: u16,
    assert_statement: u16,
    while_statement: u16,
    not_operator: u16,
    interpolation: u16,
    f_expression: u16,
}

static GRAMMAR: LazyLock<Grammar> = LazyLock::new(|| {
    let language: Language = tree_sitter_python::LANGUAGE.into();
    let kinds = KindTable::new(&language, K::Other, |name| {
        Some(match name {
            "ERROR" => K::Error,
            "comment" => K::Comment,
            "identifier" => K::Identifier,
            "attribute" => K::Attribute,
            "call" => K::Call,
            "argument_list" => K::ArgumentList,
            "keyword_argument" => K::KeywordArgument,
            "list_splat" => K::ListSplat,
            "dictionary_splat" => K::DictionarySplat,
            "subscript" => K::Subscript,
            "binary_operator" => K::BinaryOp,
            "comparison_operator" => K::Compare,
            "unary_operator" => K::UnaryOp,
            "list" | "tuple" | "set" | "expression_list" | "pattern_list" | "tuple_pattern"
            | "list_pattern" => K::Sequence,
            "dictionary" => K::Dictionary,
            "pair" => K::Pair,
            "list_comprehension" | "set_comprehension" | "generator_expression" => K::Comprehension,
            "dictionary_comprehension" => K::DictComprehension,
            "for_in_clause" => K::ForInClause,
            "conditional_expression" => K::Conditional,
            "boolean_operator" => K::BoolOp,
            "parenthesized_expression" | "await" | "decorator" | "as_pattern_target" => {
                K::Passthrough
            }
            "string" | "concatenated_string" => K::String,
            "expression_statement" => K::ExpressionStatement,
            "module" => K::Module,
            "block" => K::Block,
            "integer" => K::Integer,
            "lambda" => K::Lambda,
            "function_definition" => K::FunctionDef,
            "decorated_definition" => K::DecoratedDef,
            "class_definition" => K::ClassDef,
            "assignment" => K::Assignment,
            "augmented_assignment" => K::AugAssignment,
            "named_expression" => K::NamedExpr,
            "return_statement" => K::Return,
            "raise_statement" => K::Raise,
            "yield" => K::Yield,
            "for_statement" => K::For,
            "with_item" => K::WithItem,
            "as_pattern" => K::AsPattern,
            "except_clause" => K::ExceptClause,
            "import_statement" => K::Import,
            "import_from_statement" => K::ImportFrom,
            "dotted_name" => K::DottedName,
            "aliased_import" => K::AliasedImport,
            "relative_import" => K::RelativeImport,
            "wildcard_import" => K::WildcardImport,
            "global_statement" => K::Global,
            "nonlocal_statement" => K::Nonlocal,
            "parameters" | "lambda_parameters" => K::Parameters,
            "default_parameter" | "typed_default_parameter" => K::DefaultParameter,
            "typed_parameter" => K::TypedParameter,
            "list_splat_pattern" => K::ListSplatPattern,
            "dictionary_splat_pattern" => K::DictSplatPattern,
            "keyword_separator" => K::KeywordSeparator,
            "positional_separator" => K::PositionalSeparator,
            _ => return None,
        })
    });
    let _ = K::Decorator;
    let f = |n| walk::field_id(&language, n);
    Grammar {
        f_body: f("body"),
        f_function: f("function"),
        f_arguments: f("arguments"),
        f_object: f("object"),
        f_attribute: f("attribute"),
        f_name: f("name"),
        f_value: f("value"),
        f_alias: f("alias"),
        f_left: f("left"),
        f_right: f("right"),
        f_argument: f("argument"),
        f_key: f("key"),
        f_subscript: f("subscript"),
        f_superclasses: f("superclasses"),
        f_parameters: f("parameters"),
        f_module_name: f("module_name"),
        f_consequence: f("consequence"),
        f_alternative: f("alternative"),
        f_condition: f("condition"),
        f_type: f("type"),
        f_return_type: f("return_type"),
        f_operator: f("operator"),
        delete_statement: language.id_for_node_kind("delete_statement", true),
        string: language.id_for_node_kind("string", true),
        expression_list: language.id_for_node_kind("expression_list", true),
        if_statement: language.id_for_node_kind("if_statement", true),
        elif_clause: language.id_for_node_kind("elif_clause", true),
        assert_statement: language.id_for_node_kind("assert_statement", true),
        while_statement: language.id_for_node_kind("while_statement", true),
        not_operator: language.id_for_node_kind("not_operator", true),
        interpolation: language.id_for_node_kind("interpolation", true),
        f_expression: f("expression"),
        kinds,
    }
});

/// What a finished node hands to its parent.
#[derive(Debug, Clone)]
enum Lowered {
    None,
    /// An identifier and the scope it appeared in.
    Ident(Sym, u32),
    Expr(ExprId),
    Str(Sym),
    Dotted(Sym),
    Aliased(Sym, Sym),
    Relative(u8, Option<Sym>),
    Wildcard,
    Args(u32),
    Keyword(Sym, ExprId),
    Splat(Splat),
    Pair(Option<Sym>, ExprId),
    Params(u32),
    Param(Param, Option<ExprId>),
    Decl(u32),
    Separator(ParamKind),
    /// A string built from a literal prefix (`"visit_" + name`): only
    /// `getattr` looks at it, as every attribute with that prefix.
    Prefix(Sym),
}

struct Child {
    field: u16,
    kind: K,
    /// A named node that is not a comment: an element of its parent.
    element: bool,
    val: Lowered,
}

struct Frame {
    start: usize,
    kind: K,
    /// The grammar's own kind id, for kinds [`K`] does not name.
    kind_id: u16,
    /// The node's field in its parent (0: none).
    field: u16,
    /// Names this node's entry narrowed (see `narrow_isinstance`).
    narrowings: u8,
    /// A boolean operator that is `and`: its right operand runs only when
    /// its left one held (`isinstance(x, A) and x.m()`).
    and_operator: bool,
    /// The declaration this node created (defs, classes, lambdas).
    decl: Option<u32>,
    pushed_scope: bool,
}

#[derive(Default)]
struct ArgList {
    args: Vec<ExprId>,
    kwargs: Vec<(Sym, ExprId)>,
    splats: Vec<Splat>,
    key: Option<Sym>,
    /// The second argument when it is a string literal: the name in
    /// `getattr(obj, "name")`.
    second_str: Option<Sym>,
}

struct Extractor<'s> {
    source: &'s [u8],
    /// Names bound to one string literal or literal prefix in their scope
    /// (`method = "visit_" + kind`), for `getattr(self, method)`; `None`
    /// once a name is bound to anything else.
    string_names: HashMap<(u32, Sym), Option<Lowered>>,
    /// `"visit_{}".format(kind)` results by expression, with their prefix:
    /// the call's value is a str (its methods resolve), its prefix what
    /// `getattr` reads.
    format_prefixes: HashMap<ExprId, Sym>,
    is_test_file: bool,
    strings: Interner,
    decls: Vec<LocalDecl>,
    calls: Vec<CallSite>,
    facts: PyFacts,
    /// For each decl, the decl whose code runs when it runs (class bodies run in their enclosing scope).
    caller_of: Vec<u32>,
    bindings: HashSet<(u32, Sym)>,
    globals: HashSet<(u32, Sym)>,
    nonlocals: HashSet<(u32, Sym)>,
    lambda_counts: HashMap<u32, u32>,
    /// The `__getitem__` call of each subscript expression, turned into
    /// `__setitem__` when the subscript is an assignment target.
    subscript_calls: HashMap<ExprId, u32>,
    /// List and tuple literals whose elements are all string literals (an
    /// `__all__`'s names).
    string_lists: HashMap<ExprId, Vec<Sym>>,
    scope_stack: Vec<u32>,
    frames: Vec<Frame>,
    results: Vec<Child>,
    arg_lists: Vec<ArgList>,
    param_lists: Vec<Vec<(Param, Option<ExprId>)>>,
    /// Name target of each def/class, for decorator rebinding.
    name_targets: HashMap<u32, ExprId>,
    /// The current version of a name reassigned in straight-line code of its
    /// scope: (scope, name) → (version number, versioned name).
    versions: HashMap<(u32, Sym), (u32, Sym)>,
    /// Versioned name → (scope, the name it versions).
    versioned: Vec<(Sym, u32, Sym)>,
    syntax_errors: u32,
    /// Names an enclosing `if isinstance(x, A):` narrows, innermost last:
    /// (scope, name, the narrowed name the branch reads instead).
    narrowed: Vec<(u32, Sym, Sym)>,
    /// Straight-line stores forwarded to later reads (see [`KnownItems`]).
    items: KnownItems,
}

/// A dict item named by constant keys under a local name: `d["a"]["b"]`
/// is (scope, `d`'s version, [`a`, `b`]).
type ItemPlace = (u32, Sym, Vec<Sym>);

/// What straight-line code last stored in dict items (`d["a"] = f`, or
/// `d.update({"a": f})`): a read of the item in a later statement of the
/// same body, with nothing in between that could change it, is the value
/// stored, not every value the item ever holds. A statement that calls
/// anything, stores through a place that is not constant, waits (`yield`,
/// `await`), or is not a simple statement (`if`, `for`, `def`, `del`)
/// forgets them all.
#[derive(Default)]
struct KnownItems {
    known: Vec<(ItemPlace, ExprId)>,
    /// Stores the current statement makes, known once it ends.
    pending: Vec<(ItemPlace, ExprId)>,
    /// The current statement makes the known items unknown.
    forget: bool,
    /// Calls before the current statement, and its `update` calls.
    calls_before: usize,
    updates: Vec<u32>,
    /// Reads of known items: the subscript expression and the value stored.
    reads: Vec<(ExprId, ExprId)>,
}

/// Whether pytest/unittest would treat a file as test code.
pub fn is_test_path(rel_path: &str) -> bool {
    let file_name = rel_path.rsplit('/').next().unwrap_or(rel_path);
    file_name.starts_with("test_")
        || file_name.ends_with("_test.py")
        || file_name == "conftest.py"
        || rel_path
            .split('/')
            .any(|part| part == "tests" || part == "test")
}

pub fn extract(rel_path: &str, source: &[u8]) -> FileFacts {
    let is_test_file = is_test_path(rel_path);
    let mut ex = Extractor {
        source,
        string_names: HashMap::default(),
        format_prefixes: HashMap::default(),
        is_test_file,
        strings: Interner::default(),
        decls: Vec::new(),
        calls: Vec::new(),
        facts: PyFacts::default(),
        caller_of: Vec::new(),
        bindings: HashSet::default(),
        globals: HashSet::default(),
        nonlocals: HashSet::default(),
        lambda_counts: HashMap::default(),
        subscript_calls: HashMap::default(),
        string_lists: HashMap::default(),
        scope_stack: Vec::new(),
        frames: Vec::new(),
        results: Vec::new(),
        arg_lists: Vec::new(),
        param_lists: Vec::new(),
        name_targets: HashMap::default(),
        versions: HashMap::default(),
        versioned: Vec::new(),
        syntax_errors: 0,
        narrowed: Vec::new(),
        items: KnownItems::default(),
    };
    ex.facts.exprs.push(PyExpr::Unknown);
    let module_name = module_display_name(rel_path);
    ex.decls.push(LocalDecl {
        local_name: String::new(),
        kind: DeclKind::Module,
        span: Span {
            start_byte: 0,
            end_byte: source.len() as u32,
            start_line: 1,
            end_line: walk::count_lines(source).max(1),
        },
        parent: None,
        signature: format!("module {module_name}"),
        doc: None,
        body_hash: content_hash(source),
        is_test: false,
    });
    ex.facts.decl_info.push(PyDeclInfo::default());
    ex.caller_of.push(0);
    ex.scope_stack.push(0);

    if let Some(tree) = super::parse(Lang::Python, source) {
        let root = tree.root_node();
        ex.decls[0].doc = docstring(&root, source);
        ex.syntax_errors = walk::walk(&tree, &mut ex);
    }
    ex.forward_known_items();
    ex.finish_versions();
    ex.resolve_names();
    FileFacts {
        lang: Lang::Python,
        decls: ex.decls,
        calls: ex.calls,
        strings: {
            let mut strings = ex.strings.strings;
            strings.shrink_to_fit();
            strings
        },
        syntax_errors: ex.syntax_errors,
        lines: walk::count_lines(source),
        lang_facts: LangFacts::Python(ex.facts),
    }
}

fn module_display_name(rel_path: &str) -> String {
    rel_path.trim_end_matches(".py").replace('/', ".")
}

/// The docstring of a module, class or function node: its body's first
/// statement when that is a string literal.
fn docstring(node: &Node, source: &[u8]) -> Option<String> {
    let body = if node.kind() == "module" {
        *node
    } else {
        node.child_by_field_id(GRAMMAR.f_body)?
    };
    let mut cursor = body.walk();
    let first = body
        .named_children(&mut cursor)
        .find(|n| n.kind() != "comment")?;
    if first.kind() != "expression_statement" {
        return None;
    }
    let string = first.named_child(0)?;
    if string.kind() != "string" {
        return None;
    }
    let raw = walk::text(&string, source);
    Some(clean_docstring(&raw))
}

fn clean_docstring(raw: &str) -> String {
    let s = raw.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let s = s
        .trim_start_matches("\"\"\"")
        .trim_start_matches("'''")
        .trim_end_matches("\"\"\"")
        .trim_end_matches("'''");
    let s = s.trim_matches('"').trim_matches('\'');
    let lines: Vec<&str> = s.lines().collect();
    let indent = lines
        .iter()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push('\n');
            out.push_str(line.get(indent..).unwrap_or(line.trim_start()));
        } else {
            out.push_str(line.trim());
        }
    }
    out.trim().to_owned()
}

/// The literal value of a simple string node, for dict keys.
fn string_literal(raw: &str) -> Option<&str> {
    let s = raw.trim_start_matches(|c: char| {
        c == 'b' || c == 'r' || c == 'u' || c == 'B' || c == 'R' || c == 'U'
    });
    if s.starts_with("\"\"\"") || s.starts_with("'''") || s.starts_with('f') || s.starts_with('F') {
        return None;
    }
    let s = s
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .or_else(|| s.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')))?;
    (s.len() <= 200 && !s.contains('\\')).then_some(s)
}

/// `None` written as a type (`Optional`'s other half).
fn is_none_type(n: Node, source: &[u8]) -> bool {
    n.kind() == "none" || walk::text(&n, source).trim() == "None"
}

fn named_children<'t>(n: Node<'t>) -> Vec<Node<'t>> {
    let mut c = n.walk();
    n.named_children(&mut c).collect()
}

impl<'s> Extractor<'s> {
    fn scope(&self) -> u32 {
        *self.scope_stack.last().unwrap_or(&0)
    }

    /// How many lambdas enclose the current scope, counted up to
    /// [`MAX_LAMBDA_NESTING`].
    fn lambda_nesting(&self) -> usize {
        let mut decl = self.scope() as usize;
        let mut n = 0;
        while n < MAX_LAMBDA_NESTING && self.decls[decl].kind == DeclKind::Lambda {
            n += 1;
            decl = self.decls[decl].parent.unwrap_or(0) as usize;
        }
        n
    }

    fn caller(&self) -> u32 {
        self.caller_of[self.scope() as usize]
    }

    /// The nearest enclosing function-like scope (for returns and yields).
    fn function_scope(&self) -> Option<u32> {
        let s = self.scope();
        matches!(
            self.decls[s as usize].kind,
            DeclKind::Function | DeclKind::Method | DeclKind::Lambda
        )
        .then_some(s)
    }

    fn push_expr(&mut self, e: PyExpr) -> ExprId {
        // A name that straight-line code has rebound means its latest value;
        // inside `if isinstance(name, A):`, an `A`.
        let e = match e {
            PyExpr::Name { scope, name }
                if let Some(&(_, _, narrowed)) = self
                    .narrowed
                    .iter()
                    .rev()
                    .find(|&&(s, n, _)| s == scope && n == name) =>
            {
                PyExpr::Name {
                    scope,
                    name: narrowed,
                }
            }
            PyExpr::Name { scope, name } => match self.versions.get(&(scope, name)) {
                Some(&(_, current)) => PyExpr::Name {
                    scope,
                    name: current,
                },
                None => e,
            },
            e => e,
        };
        self.facts.exprs.push(e);
        (self.facts.exprs.len() - 1) as ExprId
    }

    /// Entering code that runs only when the `parent` node's already
    /// lowered child in `check` held: the body of `if isinstance(x, A):`
    /// (or an `elif`; `check` is the condition), or the right operand of
    /// `isinstance(x, A) and …` (`check` is the left one). While it is
    /// lowered, `x` reads a name of its own that holds an `A` (any
    /// subclass's instance; a tuple of classes gives each; see
    /// [`PyExpr::Narrowed`]). Returns how many names it narrowed, for
    /// `exit` to pop. Assigning `x` there assigns that name, so code after
    /// it does not see it.
    fn narrow_isinstance(&mut self, parent: usize, check: u16) -> u8 {
        let frame = &self.frames[parent];
        let Some(Lowered::Expr(cond)) = Self::field(self.children(frame.start), check).cloned()
        else {
            return 0;
        };
        let Some(&PyExpr::Call(call)) = self.facts.exprs.get(cond as usize) else {
            return 0;
        };
        self.push_narrowing(call)
    }

    /// While what follows is lowered, the name `isinstance` call `call`
    /// tests reads a name of its own holding the narrowed value. Returns
    /// how many names it narrowed (0 or 1), for the frame that ends the
    /// narrowing to pop.
    fn push_narrowing(&mut self, call: u32) -> u8 {
        let Some((scope, plain, value)) = self.isinstance_test(call) else {
            return 0;
        };
        let text = format!(
            "{}@isinstance{}",
            self.strings.get(plain),
            self.facts.flows.len()
        );
        let narrowed = self.strings.intern(&text);
        self.bindings.insert((scope, narrowed));
        self.facts.exprs.push(PyExpr::Name {
            scope,
            name: narrowed,
        });
        let target = (self.facts.exprs.len() - 1) as ExprId;
        self.facts.flows.push(PyFlow::Assign { target, value });
        self.narrowed.push((scope, plain, narrowed));
        1
    }

    /// Whether the node just lowered (its frame popped) is a statement
    /// directly in a function's, class's or the module's body.
    fn at_top_of_body(&self) -> bool {
        let n = self.frames.len();
        match self.frames.last().map(|f| f.kind) {
            Some(K::Module) => true,
            Some(K::Block) => {
                n >= 2 && matches!(self.frames[n - 2].kind, K::FunctionDef | K::ClassDef)
            }
            _ => false,
        }
    }

    /// The code after a narrowing statement reads `x` as the narrowed
    /// value. Directly in a body, through a new version of the name, as an
    /// assignment there would make one. In a nested block (a loop's body,
    /// a branch, a `with`), until the block ends: after a loop, `x` may be
    /// something the guard let through no further.
    fn narrow_after(&mut self, call: u32) {
        if self.at_top_of_body() {
            if let Some((scope, plain, value)) = self.isinstance_test(call) {
                let target = self.new_version(scope, plain);
                self.assign(target, value);
            }
            return;
        }
        let Some(block) = self.frames.last() else {
            return;
        };
        if block.kind != K::Block || block.narrowings == u8::MAX {
            return;
        }
        let pushed = self.push_narrowing(call);
        if let Some(block) = self.frames.last_mut() {
            block.narrowings += pushed;
        }
    }

    /// `assert isinstance(x, A)`: `x` is an `A` after it.
    fn narrow_assert(&mut self, start: usize) {
        let cond = match self.children(start).iter().find(|c| c.element) {
            Some(Child {
                val: Lowered::Expr(e),
                ..
            }) => Some(*e),
            _ => None,
        };
        if let Some(cond) = cond
            && let Some(&PyExpr::Call(call)) = self.facts.exprs.get(cond as usize)
        {
            self.narrow_after(call);
        }
    }

    /// `if not isinstance(x, A): raise …` (or `return`, `continue`,
    /// `break`) with no `else`: `x` is an `A` after it.
    fn narrow_guard(&mut self, node: &Node) {
        let g = &*GRAMMAR;
        if node.child_by_field_id(g.f_alternative).is_some() {
            return;
        }
        let leaves = node
            .child_by_field_id(g.f_consequence)
            .and_then(|b| b.named_child(b.named_child_count().checked_sub(1)?))
            .is_some_and(|last| {
                matches!(
                    last.kind(),
                    "return_statement"
                        | "raise_statement"
                        | "continue_statement"
                        | "break_statement"
                )
            });
        let Some(test) = node
            .child_by_field_id(g.f_condition)
            .filter(|c| c.kind() == "not_operator")
            .and_then(|c| c.child_by_field_id(g.f_argument))
            .filter(|a| a.kind() == "call" && leaves)
        else {
            return;
        };
        // The call was lowered with the condition: the latest one there.
        let start = test.start_byte() as u32;
        let call = self
            .calls
            .iter()
            .rposition(|c| c.span.start_byte == start && c.callee_text == "isinstance");
        if let Some(call) = call {
            self.narrow_after(call as u32);
        }
    }

    /// `isinstance(name, classes)`: the name's scope, the name without its
    /// version (`x@2` is read as `x`), and the narrowed value
    /// ([`PyExpr::Narrowed`]).
    fn isinstance_test(&mut self, call: u32) -> Option<(u32, Sym, ExprId)> {
        let py_call = &self.facts.calls[call as usize];
        let is_isinstance = matches!(
            self.facts.exprs.get(py_call.callee as usize),
            Some(PyExpr::Name { name, .. }) if self.strings.get(*name) == "isinstance"
        );
        let (&[subject, classes], true) = (&py_call.args[..], is_isinstance) else {
            return None;
        };
        let Some(&PyExpr::Name { scope, name }) = self.facts.exprs.get(subject as usize) else {
            return None;
        };
        let plain = self
            .strings
            .get(name)
            .split('@')
            .next()
            .unwrap_or_default()
            .to_owned();
        let plain = self.strings.intern(&plain);
        let class_exprs: Vec<ExprId> = match &self.facts.exprs[classes as usize] {
            PyExpr::Container { items } => items.iter().map(|&(_, e)| e).collect(),
            _ => vec![classes],
        };
        let value = self.push_expr(PyExpr::Narrowed {
            subject,
            classes: class_exprs.into(),
        });
        Some((scope, plain, value))
    }

    /// Whether the frame on top of `frames[..n]` is a body that runs its
    /// statements in order: a module's, a function's or a class's.
    fn is_body(&self, n: usize) -> bool {
        match n.checked_sub(1).map(|i| self.frames[i].kind) {
            Some(K::Module) => true,
            Some(K::Block) => {
                n >= 2 && matches!(self.frames[n - 2].kind, K::FunctionDef | K::ClassDef)
            }
            _ => false,
        }
    }

    /// The place `e` names: a local name, or an item of one under
    /// constant keys (None for anything else).
    fn item_place(&self, e: ExprId) -> Option<ItemPlace> {
        match self.facts.exprs.get(e as usize)? {
            PyExpr::Name { scope, name } => Some((*scope, *name, Vec::new())),
            PyExpr::Subscript { base, key: Some(k) } => {
                let mut place = self.item_place(*base)?;
                place.2.push(*k);
                Some(place)
            }
            _ => None,
        }
    }

    /// A read of `e` (a subscript) inside a straight-line statement, when
    /// its item is known: no lambda or comprehension between, which would
    /// run it later or again.
    fn note_item_read(&mut self, e: ExprId) {
        if self.items.known.is_empty() {
            return;
        }
        let Some(stmt) = self
            .frames
            .iter()
            .rposition(|f| f.kind == K::ExpressionStatement)
        else {
            return;
        };
        if !self.is_body(stmt)
            || self.frames[stmt..]
                .iter()
                .any(|f| matches!(f.kind, K::Lambda | K::Comprehension | K::DictComprehension))
        {
            return;
        }
        let Some(place) = self.item_place(e) else {
            return;
        };
        if let Some(&(_, value)) = self.items.known.iter().find(|(p, _)| *p == place) {
            self.items.reads.push((e, value));
        }
    }

    /// `target = value` in a straight-line statement: a store to a known
    /// place is remembered; one to an item of any other place (or an
    /// item named by a variable) may change any item.
    fn note_item_store(&mut self, target: ExprId, value: ExprId) {
        match self.facts.exprs.get(target as usize) {
            Some(PyExpr::Name { .. }) => {}
            Some(PyExpr::Subscript { .. }) => match self.item_place(target) {
                Some(place) => self.items.pending.push((place, value)),
                None => self.items.forget = true,
            },
            _ => self.items.forget = true,
        }
    }

    /// `d.update({"a": f})` or `d.update(a=f)` as a statement of its own:
    /// stores to `d["a"]`.
    fn note_item_update(&mut self, call: u32) {
        let n = self.frames.len();
        if n == 0 || self.frames[n - 1].kind != K::ExpressionStatement || !self.is_body(n - 1) {
            return;
        }
        let c = &self.facts.calls[call as usize];
        let Some(&PyExpr::Attr { base, name }) = self.facts.exprs.get(c.callee as usize) else {
            return;
        };
        if self.strings.get(name) != "update" || !c.splats.is_empty() {
            return;
        }
        let Some(place) = self.item_place(base) else {
            return;
        };
        let mut stores: Vec<(Sym, ExprId)> = c.kwargs.to_vec();
        match c.args.as_ref() {
            [] => {}
            [arg] if self.facts.dict_sites.contains(arg) => {
                let Some(PyExpr::Container { items }) = self.facts.exprs.get(*arg as usize) else {
                    return;
                };
                for &(key, value) in items.iter() {
                    match key {
                        Some(k) => stores.push((k, value)),
                        None => return,
                    }
                }
            }
            _ => return,
        }
        for (k, value) in stores {
            let mut p = place.clone();
            p.2.push(k);
            self.items.pending.push((p, value));
        }
        self.items.updates.push(call);
    }

    fn begin_statement(&mut self, kind: K) {
        if kind != K::ExpressionStatement {
            self.items.known.clear();
        }
        self.items.pending.clear();
        self.items.updates.clear();
        self.items.forget = false;
        self.items.calls_before = self.facts.calls.len();
    }

    fn end_statement(&mut self, kind: K) {
        let calls = self.facts.calls[self.items.calls_before.min(self.facts.calls.len())..]
            .iter()
            .enumerate()
            .any(|(i, c)| {
                !matches!(c.kind, PyCallKind::Operator { .. })
                    && !self
                        .items
                        .updates
                        .contains(&((self.items.calls_before + i) as u32))
            });
        if kind != K::ExpressionStatement || calls || self.items.forget {
            self.items.known.clear();
        }
        for (place, value) in std::mem::take(&mut self.items.pending) {
            // A store may change the same key under another name (an
            // alias of the same dict) and every item below the place.
            let key = place.2.last().copied();
            self.items.known.retain(|(p, _)| {
                p.2.last().copied() != key
                    && !(p.0 == place.0 && p.1 == place.1 && p.2.starts_with(&place.2))
            });
            self.items.known.push((place, value));
        }
    }

    /// Reads of known items become the values stored, where those are
    /// references (a function, a name, an attribute) that can be copied.
    fn forward_known_items(&mut self) {
        for (read, value) in std::mem::take(&mut self.items.reads) {
            let copy = match self.facts.exprs.get(value as usize) {
                Some(
                    e @ (PyExpr::Name { .. }
                    | PyExpr::Decl(_)
                    | PyExpr::Attr { .. }
                    | PyExpr::Free { .. }
                    | PyExpr::Var { .. }),
                ) => e.clone(),
                _ => continue,
            };
            self.facts.exprs[read as usize] = copy;
        }
    }

    /// Whether the node being lowered is a statement directly in the body of
    /// its scope (module, function or class), outside any branch or loop:
    /// an assignment there replaces the name's value for the code after it.
    fn is_straight_line_statement(&self) -> bool {
        let n = self.frames.len();
        if n < 2 || self.frames[n - 1].kind != K::ExpressionStatement {
            return false;
        }
        match self.frames[n - 2].kind {
            K::Module => true,
            K::Block => n >= 3 && matches!(self.frames[n - 3].kind, K::FunctionDef | K::ClassDef),
            _ => false,
        }
    }

    /// A new version of `name` in `scope` (`name@2`), bound from here on.
    /// A tuple target of plain names (`a, b = …`) with each name
    /// rebound to a new version; any other target as it is.
    fn version_unpacked_names(&mut self, target: ExprId) -> ExprId {
        let starred = self.strings.intern(STARRED);
        let Some(PyExpr::Container { items }) = self.facts.exprs.get(target as usize) else {
            return target;
        };
        let plain = items.iter().all(|&(k, e)| {
            k.is_some_and(|k| k != starred)
                && matches!(self.facts.exprs.get(e as usize), Some(PyExpr::Name { .. }))
        });
        if !plain {
            return target;
        }
        let items = items.clone();
        let mut versioned = Vec::with_capacity(items.len());
        for &(k, e) in items.iter() {
            let Some(&PyExpr::Name { scope, name }) = self.facts.exprs.get(e as usize) else {
                return target;
            };
            // The target was read as the name's current version (`a@1`).
            let base = self
                .versioned
                .iter()
                .rev()
                .find(|&&(v, s, _)| v == name && s == scope)
                .map_or(name, |&(_, _, base)| base);
            versioned.push((k, self.new_version(scope, base)));
        }
        self.push_expr(PyExpr::Container {
            items: versioned.into(),
        })
    }

    fn new_version(&mut self, scope: u32, name: Sym) -> ExprId {
        let next = self.versions.get(&(scope, name)).map_or(1, |v| v.0 + 1);
        let text = format!("{}@{next}", self.strings.get(name));
        let vsym = self.strings.intern(&text);
        self.versions.insert((scope, name), (next, vsym));
        self.versioned.push((vsym, scope, name));
        self.bindings.insert((scope, vsym));
        self.facts.exprs.push(PyExpr::Name { scope, name: vsym });
        (self.facts.exprs.len() - 1) as ExprId
    }

    /// Every version also flows into the plain name, which is what nested
    /// scopes, other modules and code before the rebinding read. A name that
    /// some function declares `global`/`nonlocal` can change behind straight-
    /// line code's back, so its versions are folded back into the plain name.
    fn finish_versions(&mut self) {
        let shared: HashSet<Sym> = self
            .globals
            .iter()
            .chain(self.nonlocals.iter())
            .map(|&(_, n)| n)
            .collect();
        let folded: HashMap<Sym, Sym> = self
            .versioned
            .iter()
            .filter(|(_, _, base)| shared.contains(base))
            .map(|&(v, _, base)| (v, base))
            .collect();
        if !folded.is_empty() {
            for e in &mut self.facts.exprs {
                if let PyExpr::Name { name, .. } = e
                    && let Some(&base) = folded.get(name)
                {
                    *name = base;
                }
            }
        }
        for (vsym, scope, base) in std::mem::take(&mut self.versioned) {
            // Folded or not, the scope binds the plain name.
            self.bindings.insert((scope, base));
            if folded.contains_key(&vsym) {
                continue;
            }
            self.facts.exprs.push(PyExpr::Name { scope, name: base });
            let target = (self.facts.exprs.len() - 1) as ExprId;
            self.facts.exprs.push(PyExpr::Name { scope, name: vsym });
            let value = (self.facts.exprs.len() - 1) as ExprId;
            self.facts.flows.push(PyFlow::Assign { target, value });
        }
    }

    /// What a type annotation says a value is, as an expression: instances
    /// of the classes it names (through `Optional`, `Union`, `|`,
    /// `Annotated`, quotes), a container of them for collections
    /// (`list[T]`, `Iterable[T]`, `dict[K, V]`), the class itself for
    /// `type[T]`. Evaluated in the current scope; `None` when it names
    /// nothing a call could reach (`int`, `Any`, `Callable[…]`). `lone`:
    /// no other member of a union stands beside it.
    fn annotation(&mut self, ty: Node, lone: bool, depth: u32) -> Option<ExprId> {
        let source = self.source;
        self.annotation_in(ty, source, lone, depth)
    }

    /// [`Self::annotation`] of a node of `src`: the file's tree, or the one
    /// parsed from a string annotation's text.
    fn annotation_in(&mut self, ty: Node, src: &[u8], lone: bool, depth: u32) -> Option<ExprId> {
        if depth > 8 {
            return None;
        }
        // Members of a union, `None` left out: `Optional[T]` is still T alone.
        let parts = |this: &mut Self, nodes: Vec<Node>, lone: bool| -> Option<ExprId> {
            let nodes: Vec<Node> = nodes
                .into_iter()
                .filter(|n| !is_none_type(*n, src))
                .collect();
            let lone = lone && nodes.len() == 1;
            let items: Vec<ExprId> = nodes
                .into_iter()
                .filter_map(|n| this.annotation_in(n, src, lone, depth + 1))
                .collect();
            match items.len() {
                0 => None,
                1 => Some(items[0]),
                _ => Some(this.push_expr(PyExpr::Union(items.into()))),
            }
        };
        let named_class = |this: &mut Self, text: &str, instance: bool| -> Option<ExprId> {
            let inner = this.dotted_name(text)?;
            Some(this.push_expr(PyExpr::Annotation {
                inner,
                instance,
                externals: lone,
            }))
        };
        match ty.kind() {
            "type" | "parenthesized_expression" => parts(self, named_children(ty), lone),
            "identifier" | "attribute" => {
                let text = walk::text(&ty, src).into_owned();
                named_class(self, &text, true)
            }
            // A forward reference. A plain name is looked up as written;
            // anything else (`"Db | None"`, `"Optional[Db]"`) is parsed and
            // read like an annotation written without quotes.
            "string" => {
                let text = walk::text(&ty, src).into_owned();
                let inner = string_literal(&text)
                    .unwrap_or_else(|| text.trim_matches(|c| c == '"' || c == '\''))
                    .trim();
                if inner
                    .chars()
                    .all(|c| c == '.' || c == '_' || c.is_alphanumeric())
                {
                    return named_class(self, inner, true);
                }
                let tree = super::parse(Lang::Python, inner.as_bytes())?;
                let statement = tree.root_node().named_child(0)?;
                if statement.kind() != "expression_statement" || tree.root_node().has_error() {
                    return None;
                }
                let expr = statement.named_child(0)?;
                self.annotation_in(expr, inner.as_bytes(), lone, depth + 1)
            }
            "binary_operator" => parts(
                self,
                ["left", "right"]
                    .into_iter()
                    .filter_map(|f| ty.child_by_field_name(f))
                    .collect(),
                lone,
            ),
            "generic_type" | "subscript" => {
                let (base, params): (Node, Vec<Node>) = if ty.kind() == "subscript" {
                    let base = ty.child_by_field_id(GRAMMAR.f_value)?;
                    let mut c = ty.walk();
                    let params = ty
                        .children_by_field_name("subscript", &mut c)
                        .collect::<Vec<_>>();
                    (base, params)
                } else {
                    let mut kids = named_children(ty).into_iter();
                    let base = kids.next()?;
                    let params = kids
                        .filter(|k| k.kind() == "type_parameter")
                        .flat_map(named_children)
                        .collect();
                    (base, params)
                };
                let base_text = walk::text(&base, src).into_owned();
                let last = base_text.rsplit('.').next().unwrap_or(&base_text);
                let elements = |this: &mut Self, params: Vec<Node>, dict: bool| {
                    let lone = params.len() == 1;
                    let elem = parts(this, params, lone)?;
                    Some(this.declared_container(elem, dict))
                };
                match last {
                    "Optional" | "Union" | "Final" | "ClassVar" | "Required" | "NotRequired"
                    | "ReadOnly" => parts(self, params, lone),
                    "Annotated" => parts(self, params.into_iter().take(1).collect(), lone),
                    "Type" | "type" => {
                        let inner = params.first()?;
                        let text = walk::text(inner, src).into_owned();
                        named_class(self, text.trim_matches(|c| c == '"' || c == '\''), false)
                    }
                    "List" | "list" | "Sequence" | "MutableSequence" | "Iterable" | "Iterator"
                    | "Collection" | "Set" | "set" | "FrozenSet" | "frozenset" | "AbstractSet"
                    | "MutableSet" | "Deque" | "deque" | "Tuple" | "tuple" | "Reversible"
                    | "AsyncIterable" | "AsyncIterator" | "KeysView" | "ValuesView" => {
                        elements(self, params, false)
                    }
                    "Generator" | "AsyncGenerator" => {
                        elements(self, params.into_iter().take(1).collect(), false)
                    }
                    "Dict" | "dict" | "Mapping" | "MutableMapping" | "DefaultDict"
                    | "defaultdict" | "OrderedDict" | "ChainMap" => {
                        elements(self, params.into_iter().skip(1).take(1).collect(), true)
                    }
                    "Callable" | "Literal" | "Awaitable" | "Coroutine" | "TypeGuard" => None,
                    // A generic class of the repository or a library (`Repo[User]`).
                    _ => named_class(self, &base_text, true),
                }
            }
            _ => None,
        }
    }

    /// A collection an annotation declares: `elem` as its elements, or as
    /// its values when it is a `dict`.
    fn declared_container(&mut self, elem: ExprId, dict: bool) -> ExprId {
        let e = self.push_expr(PyExpr::Container {
            items: vec![(None, elem)].into(),
        });
        if dict {
            self.facts.dict_sites.push(e);
        }
        e
    }

    /// `a.b.C` as an expression in the current scope; `None` for names an
    /// annotation uses to say "anything" or "nothing".
    fn dotted_name(&mut self, text: &str) -> Option<ExprId> {
        let text = text.trim();
        let mut segments = text.split('.');
        let first = segments.next()?;
        let last = text.rsplit('.').next().unwrap_or(text);
        let is_ident = |s: &str| {
            !s.is_empty()
                && s.chars().all(|c| c.is_alphanumeric() || c == '_')
                && !s.starts_with(|c: char| c.is_ascii_digit())
        };
        if !text.split('.').all(is_ident)
            || matches!(
                last,
                "Any" | "None" | "object" | "Self" | "NoReturn" | "Never"
            )
        {
            return None;
        }
        let scope = self.scope();
        let name = self.strings.intern(first);
        let mut e = self.push_expr(PyExpr::Name { scope, name });
        for seg in segments {
            let name = self.strings.intern(seg);
            e = self.push_expr(PyExpr::Attr { base: e, name });
        }
        Some(e)
    }

    fn intern_node(&mut self, node: &Node) -> Sym {
        let text = walk::text(node, self.source);
        self.strings.intern(&text)
    }

    fn as_expr(&mut self, val: &Lowered) -> ExprId {
        match *val {
            Lowered::Ident(name, scope) => self.push_expr(PyExpr::Name { scope, name }),
            Lowered::Expr(e) => e,
            Lowered::Decl(d) => self.push_expr(PyExpr::Decl(d)),
            _ => UNKNOWN,
        }
    }

    /// Turn an expression used as an assignment target into a target,
    /// recording the names it binds.
    fn bind_target(&mut self, e: ExprId) {
        let mut stack = vec![e];
        while let Some(e) = stack.pop() {
            match &self.facts.exprs[e as usize] {
                PyExpr::Name { scope, name } => {
                    self.bindings.insert((*scope, *name));
                }
                PyExpr::Container { items } => stack.extend(items.iter().map(|(_, e)| *e)),
                _ => {}
            }
        }
    }

    fn assign(&mut self, target: ExprId, value: ExprId) {
        if target == UNKNOWN {
            return;
        }
        self.bind_target(target);
        self.facts.flows.push(PyFlow::Assign { target, value });
    }

    /// A call of special method `method` on `receiver` with `arg` (an
    /// operator, a comparison or a subscript).
    /// Where a slice (`a[1:3]`, `a[:2]`, `a[i:]`) starts: 0 when omitted,
    /// the literal when it is a non-negative integer, else unknown.
    fn slice_start(&self, slice: &Node) -> Option<u32> {
        let mut cursor = slice.walk();
        let first = slice.children(&mut cursor).next()?;
        match first.kind() {
            ":" => Some(0),
            "integer" => walk::text(&first, self.source).parse().ok(),
            _ => None,
        }
    }

    /// `[a] + rest`, `(a,) + rest` or `base | {"k": f}`, with a literal on
    /// one side: a new list, tuple or dict holding both sides' elements (at
    /// unknown positions; a dict's under unknown keys). Without a literal
    /// the operands may be numbers, and the operator call stands alone.
    fn joined_containers(&mut self, op: &str, l: ExprId, r: ExprId) -> Option<ExprId> {
        let literal = |e: ExprId| {
            matches!(
                self.facts.exprs.get(e as usize),
                Some(PyExpr::Container { .. })
            )
        };
        if !(literal(l) || literal(r)) {
            return None;
        }
        let is_dict = |e: ExprId| self.facts.dict_sites.contains(&e);
        let tuple = self.facts.tuple_sites.contains(&l) || self.facts.tuple_sites.contains(&r);
        let dict = match op {
            "+" if !is_dict(l) && !is_dict(r) => false,
            "|" if is_dict(l) || is_dict(r) => true,
            _ => return None,
        };
        let items: Vec<(Option<Sym>, ExprId)> = [l, r]
            .into_iter()
            .map(|side| {
                let elements = if dict {
                    PyExpr::Subscript {
                        base: side,
                        key: None,
                    }
                } else {
                    PyExpr::Iter(side)
                };
                (None, self.push_expr(elements))
            })
            .collect();
        let joined = self.push_expr(PyExpr::Container {
            items: items.into(),
        });
        if dict {
            self.facts.dict_sites.push(joined);
        } else if tuple {
            self.facts.tuple_sites.push(joined);
        }
        Some(joined)
    }

    /// `__all__ = value` (or, with `extend`, `__all__ += value`) at module level.
    fn note_exports(&mut self, extend: bool, value: Option<&Lowered>) {
        let listed = match value {
            Some(Lowered::Expr(e)) => self.string_lists.get(e).cloned(),
            _ => None,
        };
        self.facts.exports = match (listed, std::mem::take(&mut self.facts.exports)) {
            // Assigned in several places (platform branches): any of them.
            (Some(names), Exports::Listed(mut old)) => {
                old.extend(names);
                Exports::Listed(old)
            }
            (Some(names), Exports::Public) if !extend => Exports::Listed(names),
            _ => Exports::Computed,
        };
    }

    fn operator_call(
        &mut self,
        node: &Node,
        method: &str,
        reflected: Option<&str>,
        receiver: ExprId,
        arg: ExprId,
    ) -> u32 {
        let text = walk::one_line(&walk::text(node, self.source), 120);
        let method = self.strings.intern(method);
        let reflected = reflected.map(|r| self.strings.intern(r));
        self.add_call(
            node,
            text,
            PyCall {
                callee: receiver,
                args: if arg == UNKNOWN {
                    Box::default()
                } else {
                    vec![arg].into()
                },
                kwargs: Box::default(),
                splats: Box::default(),
                key: None,
                kind: PyCallKind::Operator { method, reflected },
            },
        )
    }

    /// A call the syntax implies without arguments (`for`, `with`, `yield
    /// from` call special methods of `callee`; `raise E` instantiates it).
    fn implicit_call(
        &mut self,
        node: &Node,
        text: String,
        callee: ExprId,
        kind: PyCallKind,
    ) -> u32 {
        self.add_call(
            node,
            text,
            PyCall {
                callee,
                args: Box::default(),
                kwargs: Box::default(),
                splats: Box::default(),
                key: None,
                kind,
            },
        )
    }

    /// Special methods Python calls to convert a value, where the syntax
    /// says so: a condition (`if v:`, `while v:`, `not v`, `assert v`)
    /// asks `__bool__`, an f-string's `{v}` `__format__` (`{v!r}`
    /// `__repr__`, `{v!s}` `__str__`). The resolver falls back as Python
    /// does (`__bool__` to `__len__`, `__format__` to `__str__` to
    /// `__repr__`), and only instances of repository classes make edges.
    fn implied_conversions(&mut self, node: &Node, frame: &Frame) {
        let g = &*GRAMMAR;
        let (field, method) = if frame.kind_id == g.if_statement
            || frame.kind_id == g.elif_clause
            || frame.kind_id == g.while_statement
            || frame.kind_id == g.assert_statement
        {
            (g.f_condition, "__bool__")
        } else if frame.kind_id == g.not_operator {
            (g.f_argument, "__bool__")
        } else if frame.kind_id == g.interpolation {
            let conversion = node
                .child_by_field_name("type_conversion")
                .map(|c| walk::text(&c, self.source).into_owned());
            let method = match conversion.as_deref() {
                Some("!r" | "!a") => "__repr__",
                Some(_) => "__str__",
                None => "__format__",
            };
            (g.f_expression, method)
        } else {
            return;
        };
        let children = self.children(frame.start);
        let operand = if frame.kind_id == g.assert_statement {
            // `assert v, "message"`: the test is the first element.
            children.iter().find(|c| c.element)
        } else {
            children.iter().find(|c| c.field == field)
        };
        // A comparison or `not` already made a bool; only an object
        // (a name, attribute, item or call result) is asked.
        let Some(operand) = operand.filter(|c| {
            method != "__bool__"
                || matches!(
                    c.kind,
                    K::Identifier | K::Attribute | K::Subscript | K::Call
                )
        }) else {
            return;
        };
        let v = operand.val.clone();
        // The site is the operand itself: `if ready:` shows as `ready`.
        let site = if frame.kind_id == g.interpolation {
            Some(*node)
        } else if frame.kind_id == g.assert_statement {
            node.named_child(0)
        } else {
            node.child_by_field_id(field)
        };
        if is_value(&v)
            && let Some(site) = site
        {
            let v = self.as_expr(&v);
            self.operator_call(&site, method, None, v, UNKNOWN);
        }
    }

    /// `"%s" % v` calls `v.__str__()`, and `"%s: %r" % (k, v)` `k`'s
    /// `__str__` and `v`'s `__repr__`, by position. Numeric conversions
    /// (`%d`, `%x`) and `%(name)s` mappings ask for nothing modelled here.
    fn percent_format(&mut self, node: &Node, format: Sym, operand: &Lowered) {
        if !is_value(operand) {
            return;
        }
        let conversions = percent_conversions(self.strings.get(format));
        if conversions.is_empty() {
            return;
        }
        let operand = self.as_expr(operand);
        let items: Vec<ExprId> = match self.facts.exprs.get(operand as usize) {
            Some(PyExpr::Container { items }) => items.iter().map(|&(_, e)| e).collect(),
            _ => vec![operand],
        };
        for (item, conversion) in items.into_iter().zip(conversions) {
            let method = match conversion {
                b's' => "__str__",
                b'r' | b'a' => "__repr__",
                _ => continue,
            };
            if self.may_be_instance(item) {
                self.operator_call(node, method, None, item, UNKNOWN);
            }
        }
    }

    /// `x = property(get_x, set_x, del_x)` (or `fget=`, `fset=`, `fdel=`)
    /// in a class body: reading `obj.x` calls `get_x`, assigning it
    /// `set_x`, `del obj.x` `del_x`, as the decorator form does.
    fn note_property_call(&mut self, name: Sym, value: ExprId) {
        let class = self.scope();
        if self.decls[class as usize].kind != DeclKind::Class {
            return;
        }
        let Some(&PyExpr::Call(call)) = self.facts.exprs.get(value as usize) else {
            return;
        };
        if self.calls[call as usize].callee_text != "property" {
            return;
        }
        let c = &self.facts.calls[call as usize];
        let parts = [
            PropertyPart::Getter,
            PropertyPart::Setter,
            PropertyPart::Deleter,
        ];
        let mut accessors: Vec<(ExprId, PropertyPart)> =
            c.args.iter().copied().zip(parts).collect();
        for &(k, e) in c.kwargs.iter() {
            let part = match self.strings.get(k) {
                "fget" => PropertyPart::Getter,
                "fset" => PropertyPart::Setter,
                "fdel" => PropertyPart::Deleter,
                _ => continue,
            };
            accessors.push((e, part));
        }
        let mut found = false;
        for (e, part) in accessors {
            let accessor = match self.facts.exprs.get(e as usize) {
                Some(PyExpr::Name { name, .. } | PyExpr::Var { name, .. }) => *name,
                _ => continue,
            };
            let accessor = self.strings.get(accessor).to_owned();
            let method = self.decls.iter().position(|d| {
                d.parent == Some(class)
                    && d.local_name.rsplit('.').next() == Some(accessor.as_str())
            });
            if let Some(m) = method {
                let info = &mut self.facts.decl_info[m];
                info.is_property = true;
                info.property_call = true;
                info.property_part = part;
                found = true;
            }
        }
        if found {
            self.facts.property_calls.push(name);
        }
    }

    /// A string literal, or the literal prefix of a string built from one.
    fn string_constant(&self, v: &Lowered) -> Option<Lowered> {
        match v {
            Lowered::Str(_) | Lowered::Prefix(_) => Some(v.clone()),
            Lowered::Expr(e) => self.format_prefixes.get(e).map(|&p| Lowered::Prefix(p)),
            _ => None,
        }
    }

    /// Whether an expression can evaluate to an instance (a literal, a
    /// container or a definition cannot): only those are worth a site.
    fn may_be_instance(&self, e: ExprId) -> bool {
        !matches!(
            self.facts.exprs.get(e as usize),
            None | Some(PyExpr::Unknown | PyExpr::Str | PyExpr::Container { .. } | PyExpr::Decl(_))
        )
    }

    fn add_call(&mut self, node: &Node, callee_text: String, call: PyCall) -> u32 {
        let idx = self.calls.len() as u32;
        let arg_count = (call.args.len() + call.kwargs.len()) as u16;
        self.calls.push(CallSite {
            caller: self.caller(),
            callee_text,
            span: Span::of(node),
            arg_count,
        });
        self.facts.calls.push(call);
        idx
    }

    fn new_decl(&mut self, node: &Node, kind: DeclKind, name: String) -> u32 {
        let parent = self.scope();
        let parent_name = &self.decls[parent as usize].local_name;
        let local_name = if parent_name.is_empty() {
            name
        } else {
            format!("{parent_name}.{name}")
        };
        let kind =
            if kind == DeclKind::Function && self.decls[parent as usize].kind == DeclKind::Class {
                DeclKind::Method
            } else {
                kind
            };
        let signature = self.signature(node);
        let short = local_name.rsplit('.').next().unwrap_or("");
        // pytest collects module-level `test*` functions; unittest and pytest
        // collect `test*` methods of test classes (unittest's need not be
        // named `Test*`, so any class in a test file counts).
        let parent_kind = self.decls[parent as usize].kind;
        let is_test = self.is_test_file
            && short.starts_with("test")
            && match kind {
                DeclKind::Function => parent_kind == DeclKind::Module,
                DeclKind::Method => true,
                _ => false,
            };
        let idx = self.decls.len() as u32;
        let range =
            node.start_byte().min(self.source.len())..node.end_byte().min(self.source.len());
        self.decls.push(LocalDecl {
            local_name,
            kind,
            span: Span::of(node),
            parent: Some(parent),
            signature,
            doc: if kind == DeclKind::Lambda {
                None
            } else {
                docstring(node, self.source)
            },
            body_hash: content_hash(&self.source[range]),
            is_test,
        });
        self.facts.decl_info.push(PyDeclInfo::default());
        // Calls in a class body run when the class is defined; like PyCG,
        // they are the class's own (`main.Config` calls `compute_default`).
        self.caller_of.push(idx);
        idx
    }

    fn signature(&self, node: &Node) -> String {
        let end = node
            .child_by_field_id(GRAMMAR.f_body)
            .map(|b| b.start_byte())
            .unwrap_or(node.end_byte());
        let start = node.start_byte().min(self.source.len());
        let end = end.min(self.source.len()).max(start);
        let text = String::from_utf8_lossy(&self.source[start..end]);
        let text = text.trim_end().trim_end_matches(':');
        walk::one_line(text, 300)
    }

    /// Resolve every `Name` to a `Var` of the scope that binds it, or `Free`.
    fn resolve_names(&mut self) {
        for i in 0..self.facts.exprs.len() {
            if let PyExpr::Name { scope, name } = self.facts.exprs[i] {
                self.facts.exprs[i] = self.lookup(scope, name);
            }
        }
    }

    fn lookup(&self, start: u32, name: Sym) -> PyExpr {
        let mut cur = start;
        let mut skip_local = false;
        loop {
            let decl = &self.decls[cur as usize];
            if self.globals.contains(&(cur, name)) {
                return PyExpr::Var { scope: 0, name };
            }
            if self.nonlocals.contains(&(cur, name)) {
                skip_local = true;
            }
            let visible = match decl.kind {
                DeclKind::Class => cur == start,
                _ => true,
            };
            if visible && !skip_local && self.bindings.contains(&(cur, name)) {
                return PyExpr::Var { scope: cur, name };
            }
            skip_local = false;
            match decl.parent {
                Some(p) => cur = p,
                None => return PyExpr::Free { name },
            }
        }
    }

    fn children(&self, start: usize) -> &[Child] {
        &self.results[start..]
    }

    fn field(children: &[Child], field: u16) -> Option<&Lowered> {
        if field == 0 {
            return None;
        }
        children.iter().find(|c| c.field == field).map(|c| &c.val)
    }

    fn lower(&mut self, node: Node, frame: &Frame) -> Lowered {
        let g = &*GRAMMAR;
        let start = frame.start;
        match frame.kind {
            K::Identifier
            | K::Passthrough
            | K::String
            | K::Integer
            | K::DottedName
            | K::Attribute
            | K::Subscript
            | K::BinaryOp
            | K::UnaryOp
            | K::Compare
            | K::Sequence
            | K::Dictionary
            | K::Pair
            | K::Conditional
            | K::BoolOp
            | K::KeywordArgument
            | K::ListSplat
            | K::DictionarySplat
            | K::ArgumentList => self.lower_expression(node, frame),
            K::Comprehension
            | K::DictComprehension
            | K::ForInClause
            | K::For
            | K::Assignment
            | K::AugAssignment
            | K::NamedExpr
            | K::Return
            | K::Raise
            | K::Yield
            | K::AsPattern
            | K::WithItem
            | K::ExceptClause
            | K::Global
            | K::Nonlocal => self.lower_statement(node, frame),
            K::Call => self.lower_call(node, start),
            K::Lambda
            | K::Parameters
            | K::DefaultParameter
            | K::TypedParameter
            | K::ListSplatPattern
            | K::DictSplatPattern
            | K::KeywordSeparator
            | K::PositionalSeparator => self.lower_definition(node, frame),
            K::FunctionDef | K::ClassDef => self.lower_def(node, frame),
            K::DecoratedDef => self.lower_decorated(node, start),
            K::AliasedImport
            | K::RelativeImport
            | K::WildcardImport
            | K::Import
            | K::ImportFrom => self.lower_import(node, frame),
            K::Error
            | K::Other
            | K::ExpressionStatement
            | K::Module
            | K::Block
            | K::Decorator
            | K::Comment => {
                // Unknown wrappers (expression_statement, not_operator, …) pass a
                // single value child up so `f(x) or g` style nesting still flows.
                let _ = (
                    g.f_consequence,
                    g.f_alternative,
                    g.f_condition,
                    g.f_return_type,
                );
                Lowered::None
            }
        }
    }

    /// Expressions: names, literals, attributes, subscripts, operators,
    /// containers and argument lists.
    fn lower_expression(&mut self, node: Node, frame: &Frame) -> Lowered {
        let g = &*GRAMMAR;
        let start = frame.start;
        match frame.kind {
            K::Identifier => {
                let sym = self.intern_node(&node);
                Lowered::Ident(sym, self.scope())
            }
            K::Passthrough => {
                let child = self
                    .children(start)
                    .iter()
                    .find(|c| !matches!(c.val, Lowered::None));
                match child.map(|c| c.val.clone()) {
                    Some(v @ (Lowered::Ident(..) | Lowered::Expr(_) | Lowered::Decl(_))) => v,
                    _ => Lowered::None,
                }
            }
            // A string standing alone as a statement (docstrings) or inside a
            // concatenation (lowered as a whole) is never a value: leaving it
            // out of the facts keeps docstring edits from changing the shape.
            K::String
                if matches!(
                    self.frames.last().map(|f| f.kind),
                    Some(K::ExpressionStatement | K::String)
                ) =>
            {
                Lowered::None
            }
            K::String => {
                let raw = walk::text(&node, self.source);
                match string_literal(&raw) {
                    Some(s) => Lowered::Str(self.strings.intern(s)),
                    // `f"visit_{kind}"` names attributes with that prefix.
                    None => match fstring_prefix(&raw) {
                        Some(p) => Lowered::Prefix(self.strings.intern(p)),
                        None => Lowered::None,
                    },
                }
            }
            // `d[1]` and `d["1"]` are different keys; list positions use the same form.
            K::Integer => {
                let text = format!("#{}", walk::text(&node, self.source));
                Lowered::Str(self.strings.intern(&text))
            }
            K::DottedName => Lowered::Dotted(self.intern_node(&node)),
            K::Attribute => {
                let base = Self::field(self.children(start), g.f_object).cloned();
                let name = Self::field(self.children(start), g.f_attribute).cloned();
                let on_string = self
                    .children(start)
                    .iter()
                    .any(|c| c.field == g.f_object && c.kind == K::String);
                if let Some(Lowered::Ident(b, 0)) = &base
                    && self.strings.get(*b) == "__all__"
                {
                    // `__all__.extend(…)`, `__all__.append(…)`.
                    self.facts.exports = Exports::Computed;
                }
                match (base, name) {
                    (Some(base), Some(Lowered::Ident(name, _))) => {
                        // `" ".join(…)`: a method of the builtin str type,
                        // whatever the literal holds (escapes, an f-string,
                        // triple quotes: `"\n".join(lines)`).
                        let base = if on_string {
                            self.push_expr(PyExpr::Str)
                        } else {
                            self.as_expr(&base)
                        };
                        let attr = self.push_expr(PyExpr::Attr { base, name });
                        let caller = self.caller();
                        let access = (caller, attr);
                        match attribute_access(&self.frames, frame.field) {
                            AttrAccess::Load => self.facts.attr_loads.push(access),
                            AttrAccess::Store => self.facts.attr_stores.push(access),
                            AttrAccess::LoadStore => {
                                self.facts.attr_loads.push(access);
                                self.facts.attr_stores.push(access);
                            }
                            AttrAccess::Delete => self.facts.attr_deletes.push(access),
                        }
                        Lowered::Expr(attr)
                    }
                    _ => Lowered::None,
                }
            }
            K::Subscript => {
                let base = Self::field(self.children(start), g.f_value).cloned();
                let key = match Self::field(self.children(start), g.f_subscript) {
                    Some(Lowered::Str(s)) => Some(*s),
                    _ => None,
                };
                let slice = node
                    .child_by_field_id(GRAMMAR.f_subscript)
                    .filter(|n| n.kind() == "slice");
                match base {
                    Some(base) => {
                        let base_expr = self.as_expr(&base);
                        let sub = match slice {
                            Some(slice) => self.push_expr(PyExpr::Slice {
                                base: base_expr,
                                start: self.slice_start(&slice),
                            }),
                            None => self.push_expr(PyExpr::Subscript {
                                base: base_expr,
                                key,
                            }),
                        };
                        self.note_item_read(sub);
                        // `a[k]` calls `a.__getitem__(k)` (an assignment target
                        // turns this into `__setitem__`, `del a[k]` into
                        // `__delitem__`).
                        if is_value(&base) {
                            let index = Self::field(self.children(start), g.f_subscript).cloned();
                            let index = index.map_or(UNKNOWN, |i| self.as_expr(&i));
                            let method = match attribute_access(&self.frames, frame.field) {
                                AttrAccess::Delete => "__delitem__",
                                _ => "__getitem__",
                            };
                            let call = self.operator_call(&node, method, None, base_expr, index);
                            self.subscript_calls.insert(sub, call);
                        }
                        Lowered::Expr(sub)
                    }
                    None => Lowered::None,
                }
            }
            K::BinaryOp => {
                let left = Self::field(self.children(start), g.f_left).cloned();
                let right = Self::field(self.children(start), g.f_right).cloned();
                let op = node
                    .child_by_field_id(GRAMMAR.f_operator)
                    .map(|o| walk::text(&o, self.source).into_owned())
                    .unwrap_or_default();
                match (left, right, binary_dunder(&op)) {
                    // `"text" + x` and `"%s" % x` make strings: no repository
                    // method is involved, and long concatenations would
                    // otherwise make a chain of operator sites.
                    (Some(Lowered::Str(s)), right, _) if !self.strings.get(s).starts_with('#') => {
                        match op.trim() {
                            "+" => Lowered::Prefix(s),
                            "%" => {
                                if let Some(right) = right {
                                    self.percent_format(&node, s, &right);
                                }
                                // `"visit_%s" % kind`, like `"visit_" + kind`.
                                let text = self.strings.get(s);
                                match text.split_once('%') {
                                    Some((prefix, _)) if !prefix.is_empty() => {
                                        let prefix = prefix.to_owned();
                                        Lowered::Prefix(self.strings.intern(&prefix))
                                    }
                                    _ => Lowered::None,
                                }
                            }
                            _ => Lowered::None,
                        }
                    }
                    (Some(l), Some(r), Some((method, reflected)))
                        if is_value(&l) || is_value(&r) =>
                    {
                        let (l, r) = (self.as_expr(&l), self.as_expr(&r));
                        let call = self.operator_call(&node, method, Some(reflected), l, r);
                        let result = self.push_expr(PyExpr::Call(call));
                        match self.joined_containers(op.trim(), l, r) {
                            Some(joined) => Lowered::Expr(
                                self.push_expr(PyExpr::Union(vec![result, joined].into())),
                            ),
                            None => Lowered::Expr(result),
                        }
                    }
                    _ => Lowered::None,
                }
            }
            K::UnaryOp => {
                let operand = Self::field(self.children(start), g.f_argument).cloned();
                let op = node
                    .child_by_field_id(GRAMMAR.f_operator)
                    .map(|o| walk::text(&o, self.source).into_owned())
                    .unwrap_or_default();
                let method = match op.as_str() {
                    "-" => Some("__neg__"),
                    "+" => Some("__pos__"),
                    "~" => Some("__invert__"),
                    _ => None,
                };
                match (operand, method) {
                    (Some(v), Some(method)) if is_value(&v) => {
                        let v = self.as_expr(&v);
                        let call = self.operator_call(&node, method, None, v, UNKNOWN);
                        Lowered::Expr(self.push_expr(PyExpr::Call(call)))
                    }
                    _ => Lowered::None,
                }
            }
            K::Compare => {
                let operands: Vec<Lowered> = self
                    .children(start)
                    .iter()
                    .filter(|c| c.element)
                    .map(|c| c.val.clone())
                    .collect();
                let mut cursor = node.walk();
                let ops: Vec<String> = node
                    .children_by_field_name("operators", &mut cursor)
                    .map(|o| {
                        walk::text(&o, self.source)
                            .split_whitespace()
                            .collect::<Vec<_>>()
                            .join(" ")
                    })
                    .collect();
                for (i, op) in ops.iter().enumerate() {
                    let (Some(l), Some(r)) = (operands.get(i), operands.get(i + 1)) else {
                        break;
                    };
                    if !(is_value(l) || is_value(r)) {
                        continue;
                    }
                    let (l, r) = (self.as_expr(l), self.as_expr(r));
                    match op.as_str() {
                        // `x in c` asks the container.
                        "in" | "not in" => {
                            self.operator_call(&node, "__contains__", None, r, l);
                        }
                        other => {
                            if let Some((method, reflected)) = compare_dunder(other) {
                                self.operator_call(&node, method, Some(reflected), l, r);
                            }
                        }
                    }
                }
                Lowered::None
            }
            K::Sequence => {
                // Elements keep their position (`ls[0]` is the first one) until a
                // `*splat` makes later positions unknown.
                let vals: Vec<Lowered> = self
                    .children(start)
                    .iter()
                    .filter(|c| c.element)
                    .map(|c| c.val.clone())
                    .collect();
                let mut items = Vec::with_capacity(vals.len());
                let mut positional = true;
                for (i, v) in vals.iter().enumerate() {
                    if let Lowered::Splat(splat) = v {
                        // `[*a, b]` holds a's elements, at unknown positions.
                        positional = false;
                        if splat.expr != UNKNOWN {
                            let elems = self.push_expr(PyExpr::Iter(splat.expr));
                            items.push((None, elems));
                        }
                        continue;
                    }
                    // `*rest` in a target: the name, under the key STARRED.
                    if let Lowered::Param(p, _) = v
                        && p.kind == ParamKind::VarArgs
                    {
                        let scope = self.scope();
                        let e = self.push_expr(PyExpr::Name {
                            scope,
                            name: p.name,
                        });
                        items.push((Some(self.strings.intern(STARRED)), e));
                        positional = false;
                        continue;
                    }
                    let key = positional.then(|| self.strings.intern(&format!("#{i}")));
                    let e = self.as_expr(v);
                    items.push((key, e));
                }
                let e = self.push_expr(PyExpr::Container {
                    items: items.into(),
                });
                let names: Vec<Sym> = vals
                    .iter()
                    .filter_map(|v| match v {
                        Lowered::Str(s) if !self.strings.get(*s).starts_with('#') => Some(*s),
                        _ => None,
                    })
                    .collect();
                if names.len() == vals.len() {
                    self.string_lists.insert(e, names);
                }
                match node.kind() {
                    "set" => self.facts.set_sites.push(e),
                    "tuple" | "expression_list" => self.facts.tuple_sites.push(e),
                    _ => {}
                }
                Lowered::Expr(e)
            }
            K::Dictionary => {
                let parts: Vec<Lowered> =
                    self.children(start).iter().map(|c| c.val.clone()).collect();
                let mut items = Vec::with_capacity(parts.len());
                for part in parts {
                    match part {
                        Lowered::Pair(k, v) => items.push((k, v)),
                        // `{**base, "k": f}` holds base's values too, under
                        // keys it cannot say.
                        Lowered::Splat(splat) if splat.expr != UNKNOWN => {
                            let values = self.push_expr(PyExpr::Subscript {
                                base: splat.expr,
                                key: None,
                            });
                            items.push((None, values));
                        }
                        _ => {}
                    }
                }
                let e = self.push_expr(PyExpr::Container {
                    items: items.into(),
                });
                self.facts.dict_sites.push(e);
                Lowered::Expr(e)
            }
            K::Pair => {
                let key = match Self::field(self.children(start), g.f_key) {
                    Some(Lowered::Str(s)) => Some(*s),
                    _ => None,
                };
                let val = Self::field(self.children(start), g.f_value).cloned();
                let val = val.map(|v| self.as_expr(&v)).unwrap_or(UNKNOWN);
                Lowered::Pair(key, val)
            }
            K::Conditional => {
                let vals: Vec<Lowered> = self
                    .children(start)
                    .iter()
                    .filter(|c| !matches!(c.val, Lowered::None))
                    .map(|c| c.val.clone())
                    .collect();
                // `a if cond else b`: the condition (middle) is not a value of the expression.
                let picked: Vec<&Lowered> = match vals.len() {
                    3 => vec![&vals[0], &vals[2]],
                    _ => vals.iter().collect(),
                };
                let items: Vec<ExprId> = picked.into_iter().map(|v| self.as_expr(v)).collect();
                Lowered::Expr(self.push_expr(PyExpr::Union(items.into())))
            }
            K::BoolOp => {
                let left = Self::field(self.children(start), g.f_left).cloned();
                let right = Self::field(self.children(start), g.f_right).cloned();
                let items: Vec<ExprId> = [left, right]
                    .iter()
                    .flatten()
                    .map(|v| self.as_expr(v))
                    .collect();
                Lowered::Expr(self.push_expr(PyExpr::Union(items.into())))
            }
            K::KeywordArgument => {
                let name = Self::field(self.children(start), g.f_name).cloned();
                let value = Self::field(self.children(start), g.f_value).cloned();
                match (name, value) {
                    (Some(Lowered::Ident(name, _)), Some(v)) => {
                        let v = self.as_expr(&v);
                        Lowered::Keyword(name, v)
                    }
                    _ => Lowered::None,
                }
            }
            K::ListSplat | K::DictionarySplat => {
                let inner = self
                    .children(start)
                    .iter()
                    .find(|c| !matches!(c.val, Lowered::None))
                    .map(|c| c.val.clone());
                let expr = inner.map_or(UNKNOWN, |v| self.as_expr(&v));
                Lowered::Splat(Splat {
                    expr,
                    dict: frame.kind == K::DictionarySplat,
                })
            }
            K::ArgumentList => {
                let vals: Vec<(Lowered, bool)> = self
                    .children(start)
                    .iter()
                    .map(|c| (c.val.clone(), c.element))
                    .collect();
                let mut list = ArgList::default();
                for (v, element) in &vals {
                    match v {
                        Lowered::Keyword(k, e) => list.kwargs.push((*k, *e)),
                        Lowered::Splat(splat) => list.splats.push(*splat),
                        // An argument nothing is known of (`None`, `1.5`,
                        // `f"{x}"`, `not x`) still takes its position: the
                        // callback after it is the next parameter's.
                        Lowered::None if *element => list.args.push(UNKNOWN),
                        Lowered::None => {}
                        Lowered::Str(key) if list.args.is_empty() && list.splats.is_empty() => {
                            list.key = Some(*key);
                            list.args.push(UNKNOWN);
                        }
                        other => {
                            // `name = "visit_" + kind; getattr(self, name)`.
                            let constant = match other {
                                Lowered::Ident(name, scope) => {
                                    self.string_names.get(&(*scope, *name)).cloned().flatten()
                                }
                                other => self.string_constant(other),
                            };
                            let literal = constant.as_ref().unwrap_or(other);
                            if let Lowered::Str(s) = literal
                                && list.args.len() == 1
                                && list.splats.is_empty()
                            {
                                list.second_str = Some(*s);
                            }
                            // `getattr(self, "visit_" + kind)`: marked with a
                            // trailing `*`, which no attribute name has.
                            if let Lowered::Prefix(p) = literal
                                && list.args.len() == 1
                                && list.splats.is_empty()
                            {
                                let marked = format!("{}*", self.strings.get(*p));
                                list.second_str = Some(self.strings.intern(&marked));
                            }
                            let e = self.as_expr(other);
                            list.args.push(e);
                        }
                    }
                }
                self.arg_lists.push(list);
                Lowered::Args(self.arg_lists.len() as u32 - 1)
            }
            // `lower` routes only the kinds above here.
            _ => Lowered::None,
        }
    }

    /// Statements that bind or hand on values: assignments, loops and
    /// comprehensions, `return`/`yield`/`raise`, `with` items, `except`
    /// clauses and `global`/`nonlocal`.
    fn lower_statement(&mut self, node: Node, frame: &Frame) -> Lowered {
        let g = &*GRAMMAR;
        let start = frame.start;
        match frame.kind {
            K::Comprehension | K::DictComprehension => {
                let body = Self::field(self.children(start), g.f_body).cloned();
                let item = match body {
                    Some(Lowered::Pair(k, v)) => (k, v),
                    Some(v) => (None, self.as_expr(&v)),
                    None => (None, UNKNOWN),
                };
                let e = self.push_expr(PyExpr::Container {
                    items: vec![item].into(),
                });
                match node.kind() {
                    "set_comprehension" => self.facts.set_sites.push(e),
                    // `{id(i): i for i in items}` is a dict: `.values()`
                    // and `.get()` give what it holds.
                    "dictionary_comprehension" => self.facts.dict_sites.push(e),
                    _ => {}
                }
                Lowered::Expr(e)
            }
            K::ForInClause => {
                let left = Self::field(self.children(start), g.f_left).cloned();
                let right = Self::field(self.children(start), g.f_right).cloned();
                if let (Some(left), Some(right)) = (left, right) {
                    self.iterate(&node, &left, &right);
                }
                Lowered::None
            }
            K::For => {
                let left = Self::field(self.children(start), g.f_left).cloned();
                let right = Self::field(self.children(start), g.f_right).cloned();
                if let (Some(left), Some(right)) = (left, right) {
                    self.iterate(&node, &left, &right);
                }
                Lowered::None
            }
            K::Assignment | K::AugAssignment => {
                let left = Self::field(self.children(start), g.f_left).cloned();
                let right = Self::field(self.children(start), g.f_right).cloned();
                // `name: T` / `name: T = v` in a class body: a field, in order
                // (what a dataclass's generated `__init__` assigns).
                let scope = self.scope();
                if let Some(Lowered::Ident(name, 0)) = &left
                    && self.strings.get(*name) == "__all__"
                {
                    self.note_exports(frame.kind == K::AugAssignment, right.as_ref());
                }
                if frame.kind == K::Assignment
                    && node.child_by_field_id(GRAMMAR.f_type).is_some()
                    && self.decls[scope as usize].kind == DeclKind::Class
                    && let Some(Lowered::Ident(name, _)) = &left
                {
                    self.facts.decl_info[scope as usize].fields.push(*name);
                }
                if frame.kind == K::AugAssignment
                    && let (Some(l), Some(r)) = (&left, &right)
                    && is_value(l)
                {
                    let op = node
                        .child_by_field_id(GRAMMAR.f_operator)
                        .map(|o| walk::text(&o, self.source).into_owned())
                        .unwrap_or_default();
                    if let Some((method, _)) = binary_dunder(op.trim_end_matches('=')) {
                        let (l, r) = (self.as_expr(l), self.as_expr(r));
                        let inplace = format!("__i{}", &method[2..]);
                        self.operator_call(&node, &inplace, None, l, r);
                    }
                }
                // An annotation adds what it declares to whatever is assigned.
                let annotated = match node.child_by_field_id(GRAMMAR.f_type) {
                    Some(t) if frame.kind == K::Assignment => self.annotation(t, true, 0),
                    _ => None,
                };
                match (left, right) {
                    (Some(left), None) if annotated.is_some() && is_value(&left) => {
                        let target = self.as_expr(&left);
                        self.assign(target, annotated.unwrap_or(UNKNOWN));
                        Lowered::None
                    }
                    (Some(left), Some(right)) => {
                        if let (Lowered::Ident(name, _), Lowered::Expr(value)) = (&left, &right)
                            && frame.kind == K::Assignment
                        {
                            self.note_property_call(*name, *value);
                        }
                        if let Lowered::Ident(name, scope) = left
                            && frame.kind == K::Assignment
                        {
                            let constant = self.string_constant(&right);
                            self.note_string_name(scope, name, constant);
                        }
                        let mut value = self.as_expr(&right);
                        if let Some(a) = annotated {
                            value = self.push_expr(PyExpr::Union(vec![value, a].into()));
                        }
                        let target = match left {
                            Lowered::Ident(name, scope)
                                if frame.kind == K::Assignment
                                    && self.is_straight_line_statement() =>
                            {
                                self.new_version(scope, name)
                            }
                            // `a, b = b, a` in a function rebinds both names, as
                            // `a = b` would. (At module level other modules read
                            // the names; their plain binding is kept direct.)
                            Lowered::Expr(e)
                                if frame.kind == K::Assignment
                                    && self.is_straight_line_statement()
                                    && self.decls[self.scope() as usize].kind
                                        != DeclKind::Class
                                    && self.scope() != 0 =>
                            {
                                self.version_unpacked_names(e)
                            }
                            _ => self.as_expr(&left),
                        };
                        if frame.kind == K::Assignment
                            && let Some(call) = self.subscript_calls.remove(&target)
                        {
                            let setitem = self.strings.intern("__setitem__");
                            let c = &mut self.facts.calls[call as usize];
                            c.kind = PyCallKind::Operator {
                                method: setitem,
                                reflected: None,
                            };
                            c.args = c.args.iter().copied().chain([value]).collect();
                        }
                        // `e["ttl"] -= 1` reads the item, then stores it back.
                        if frame.kind == K::AugAssignment
                            && let Some(call) = self.subscript_calls.remove(&target)
                        {
                            let read = &self.facts.calls[call as usize];
                            let receiver = read.callee;
                            let key = read.args.first().copied().unwrap_or(UNKNOWN);
                            let store =
                                self.operator_call(&node, "__setitem__", None, receiver, key);
                            self.facts.calls[store as usize].args = vec![key, value].into();
                        }
                        // A read of the target that was noted is the store.
                        self.items.reads.retain(|&(e, _)| e != target);
                        if frame.kind == K::AugAssignment {
                            self.items.forget = true;
                        } else if self.is_straight_line_statement() {
                            self.note_item_store(target, value);
                        }
                        // `a, b = pair()` iterates what the right side holds,
                        // as `for` does (a literal right side is unpacked by
                        // position, calling nothing).
                        // (`a, b = await gather(…)` unpacks the awaited result,
                        // which the value of `await` only approximates.)
                        let awaited = node
                            .child_by_field_id(g.f_right)
                            .is_some_and(|r| r.kind() == "await");
                        if matches!(
                            self.facts.exprs.get(target as usize),
                            Some(PyExpr::Container { .. })
                        ) && self.may_be_instance(value)
                            && frame.kind == K::Assignment
                            && !awaited
                        {
                            let text = node
                                .child_by_field_id(g.f_right)
                                .map(|r| walk::one_line(&walk::text(&r, self.source), 100))
                                .unwrap_or_default();
                            self.implicit_call(
                                &node,
                                format!("iter({text})"),
                                value,
                                PyCallKind::Iter,
                            );
                        }
                        self.assign_destructuring(target, value);
                        Lowered::Expr(value)
                    }
                    _ => Lowered::None,
                }
            }
            K::NamedExpr => {
                let name = Self::field(self.children(start), g.f_name).cloned();
                let value = Self::field(self.children(start), g.f_value).cloned();
                match (name, value) {
                    (Some(name), Some(value)) => {
                        let target = self.as_expr(&name);
                        let value = self.as_expr(&value);
                        self.assign(target, value);
                        Lowered::Expr(value)
                    }
                    _ => Lowered::None,
                }
            }
            K::Return => {
                let val = self
                    .children(start)
                    .iter()
                    .find(|c| !matches!(c.val, Lowered::None))
                    .map(|c| c.val.clone());
                if let (Some(val), Some(func)) = (val, self.function_scope()) {
                    let value = self.as_expr(&val);
                    self.facts.flows.push(PyFlow::Return { func, value });
                }
                Lowered::None
            }
            K::Raise => {
                let val = self
                    .children(start)
                    .iter()
                    .find(|c| !matches!(c.val, Lowered::None))
                    .map(|c| c.val.clone());
                if let Some(val) = val {
                    let callee = self.as_expr(&val);
                    let text = node
                        .named_child(0)
                        .map(|n| walk::one_line(&walk::text(&n, self.source), 120))
                        .unwrap_or_default();
                    self.implicit_call(&node, text, callee, PyCallKind::Raise);
                }
                Lowered::None
            }
            K::Yield => {
                // Other code runs while a generator waits.
                self.items.forget = true;
                let text = walk::text(&node, self.source);
                let after_yield = text.trim_start_matches("yield").trim_start();
                let from_operand = after_yield
                    .strip_prefix("from")
                    .map(|rest| walk::one_line(rest.trim_start(), 100));
                let val = self
                    .children(start)
                    .iter()
                    .find(|c| !matches!(c.val, Lowered::None))
                    .map(|c| c.val.clone());
                if let Some(func) = self.function_scope() {
                    self.facts.decl_info[func as usize].is_generator = true;
                    if let Some(val) = val {
                        let mut value = self.as_expr(&val);
                        if let Some(operand) = &from_operand {
                            // `yield from obj` iterates obj, as `for` does.
                            let text = format!("iter({operand})");
                            self.implicit_call(&node, text, value, PyCallKind::Iter);
                            value = self.push_expr(PyExpr::Iter(value));
                        }
                        self.facts.flows.push(PyFlow::Yield { func, value });
                    }
                }
                Lowered::None
            }
            K::AsPattern => {
                // `with open(p) as f` / `except E as e`: hand both sides to the parent.
                let vals: Vec<Lowered> = self
                    .children(start)
                    .iter()
                    .filter(|c| !matches!(c.val, Lowered::None))
                    .map(|c| c.val.clone())
                    .collect();
                if let [value, alias] = vals.as_slice() {
                    let value = self.as_expr(value);
                    let alias = self.as_expr(alias);
                    Lowered::Pair(
                        None,
                        self.push_expr(PyExpr::Container {
                            items: vec![(None, value), (None, alias)].into(),
                        }),
                    )
                } else {
                    Lowered::None
                }
            }
            K::WithItem => {
                let value = Self::field(self.children(start), g.f_value).cloned();
                match value {
                    Some(Lowered::Pair(_, pair)) => {
                        if let PyExpr::Container { items } = self.facts.exprs[pair as usize].clone()
                            && let [(_, value), (_, alias)] = &items[..]
                        {
                            let text = walk::text(&node, self.source).into_owned();
                            let call = self.add_call(
                                &node,
                                walk::one_line(&text, 120),
                                PyCall {
                                    callee: *value,
                                    args: Box::default(),
                                    kwargs: Box::default(),
                                    splats: Box::default(),
                                    key: None,
                                    kind: PyCallKind::With,
                                },
                            );
                            let result = self.push_expr(PyExpr::Call(call));
                            self.assign(*alias, result);
                        }
                    }
                    Some(v) => {
                        let value = self.as_expr(&v);
                        let text = walk::text(&node, self.source).into_owned();
                        self.implicit_call(
                            &node,
                            walk::one_line(&text, 120),
                            value,
                            PyCallKind::With,
                        );
                    }
                    None => {}
                }
                Lowered::None
            }
            K::ExceptClause => {
                let value = Self::field(self.children(start), g.f_value).cloned();
                let alias = Self::field(self.children(start), g.f_alias).cloned();
                match (value, alias) {
                    (Some(Lowered::Pair(_, pair)), _) => {
                        if let PyExpr::Container { items } = self.facts.exprs[pair as usize].clone()
                            && let [(_, value), (_, alias)] = &items[..]
                        {
                            let inst = self.push_expr(PyExpr::Instance(*value));
                            self.assign(*alias, inst);
                        }
                    }
                    (Some(value), Some(alias)) => {
                        let value = self.as_expr(&value);
                        let alias = self.as_expr(&alias);
                        let inst = self.push_expr(PyExpr::Instance(value));
                        self.assign(alias, inst);
                    }
                    _ => {}
                }
                Lowered::None
            }
            K::Global | K::Nonlocal => {
                let scope = self.scope();
                let names: Vec<Sym> = self
                    .children(start)
                    .iter()
                    .filter_map(|c| match c.val {
                        Lowered::Ident(s, _) => Some(s),
                        _ => None,
                    })
                    .collect();
                for name in names {
                    if frame.kind == K::Global {
                        self.globals.insert((scope, name));
                        self.bindings.insert((0, name));
                    } else {
                        self.nonlocals.insert((scope, name));
                    }
                }
                Lowered::None
            }
            // `lower` routes only the kinds above here.
            _ => Lowered::None,
        }
    }

    /// Lambdas and the parameter lists of functions and lambdas.
    fn lower_definition(&mut self, node: Node, frame: &Frame) -> Lowered {
        let g = &*GRAMMAR;
        let start = frame.start;
        match frame.kind {
            // Folded into the enclosing lambda (see MAX_LAMBDA_NESTING):
            // its calls are the enclosing one's, and it stands for it.
            K::Lambda if frame.decl.is_none() => Lowered::Decl(self.scope()),
            K::Lambda => {
                let decl = frame.decl.unwrap_or(0);
                let body = Self::field(self.children(start), g.f_body).cloned();
                if let Some(body) = body {
                    let value = self.as_expr(&body);
                    self.facts.flows.push(PyFlow::Return { func: decl, value });
                }
                if let Some(Lowered::Params(p)) = Self::field(self.children(start), g.f_parameters)
                {
                    self.set_params(decl, *p);
                }
                Lowered::Decl(decl)
            }
            K::Parameters => {
                let mut params = Vec::new();
                let mut mode = ParamKind::Positional;
                let vals: Vec<Lowered> =
                    self.children(start).iter().map(|c| c.val.clone()).collect();
                let mut saw_positional_only = false;
                for v in vals {
                    match v {
                        Lowered::Ident(name, _) => params.push((Param { name, kind: mode }, None)),
                        Lowered::Param(p, default) => {
                            let kind = match p.kind {
                                ParamKind::VarArgs | ParamKind::VarKwargs => p.kind,
                                _ => mode,
                            };
                            if p.kind == ParamKind::VarArgs {
                                mode = ParamKind::KeywordOnly;
                            }
                            params.push((Param { name: p.name, kind }, default));
                        }
                        Lowered::Separator(ParamKind::KeywordOnly) => mode = ParamKind::KeywordOnly,
                        Lowered::Separator(ParamKind::PositionalOnly) => saw_positional_only = true,
                        _ => {}
                    }
                }
                if saw_positional_only {
                    // Everything before `/` is positional-only.
                    let sep = walk::text(&node, self.source);
                    let before = sep.split('/').next().unwrap_or("").matches(',').count();
                    for (p, _) in params.iter_mut().take(before) {
                        if p.kind == ParamKind::Positional {
                            p.kind = ParamKind::PositionalOnly;
                        }
                    }
                }
                self.param_lists.push(params);
                Lowered::Params(self.param_lists.len() as u32 - 1)
            }
            K::DefaultParameter => {
                let name = Self::field(self.children(start), g.f_name).cloned();
                let value = Self::field(self.children(start), g.f_value).cloned();
                match name {
                    Some(Lowered::Ident(name, _)) => {
                        let default = value.map(|v| self.as_expr(&v));
                        let annotated = node
                            .child_by_field_id(GRAMMAR.f_type)
                            .and_then(|t| self.annotation(t, true, 0));
                        let default = match (default, annotated) {
                            (Some(d), Some(a)) => {
                                Some(self.push_expr(PyExpr::Union(vec![d, a].into())))
                            }
                            (d, a) => d.or(a),
                        };
                        Lowered::Param(
                            Param {
                                name,
                                kind: ParamKind::Positional,
                            },
                            default,
                        )
                    }
                    _ => Lowered::None,
                }
            }
            K::TypedParameter => {
                let inner = self
                    .children(start)
                    .iter()
                    .find(|c| c.field != g.f_type && !matches!(c.val, Lowered::None))
                    .map(|c| c.val.clone());
                match inner {
                    // The annotation is what the parameter holds when no
                    // caller in the repository passes it (a framework does).
                    Some(Lowered::Ident(name, _)) => Lowered::Param(
                        Param {
                            name,
                            kind: ParamKind::Positional,
                        },
                        node.child_by_field_id(GRAMMAR.f_type)
                            .and_then(|t| self.annotation(t, true, 0)),
                    ),
                    // `*args: T` holds a tuple of Ts, `**kwargs: T` a dict of them.
                    Some(Lowered::Param(p, None))
                        if matches!(p.kind, ParamKind::VarArgs | ParamKind::VarKwargs) =>
                    {
                        let packed = node
                            .child_by_field_id(GRAMMAR.f_type)
                            .and_then(|t| self.annotation(t, true, 0))
                            .map(|elem| {
                                self.declared_container(elem, p.kind == ParamKind::VarKwargs)
                            });
                        Lowered::Param(p, packed)
                    }
                    Some(p @ Lowered::Param(..)) => p,
                    _ => Lowered::None,
                }
            }
            K::ListSplatPattern | K::DictSplatPattern => {
                let name = self.children(start).iter().find_map(|c| match c.val {
                    Lowered::Ident(s, _) => Some(s),
                    _ => None,
                });
                let kind = if frame.kind == K::ListSplatPattern {
                    ParamKind::VarArgs
                } else {
                    ParamKind::VarKwargs
                };
                match name {
                    Some(name) => Lowered::Param(Param { name, kind }, None),
                    None => Lowered::None,
                }
            }
            K::KeywordSeparator => Lowered::Separator(ParamKind::KeywordOnly),
            K::PositionalSeparator => Lowered::Separator(ParamKind::PositionalOnly),
            // `lower` routes only the kinds above here.
            _ => Lowered::None,
        }
    }

    /// Imports: `import a.b as c`, `from . import x`, `from m import *`.
    fn lower_import(&mut self, node: Node, frame: &Frame) -> Lowered {
        let g = &*GRAMMAR;
        let start = frame.start;
        match frame.kind {
            K::AliasedImport => {
                let name = Self::field(self.children(start), g.f_name).cloned();
                let alias = Self::field(self.children(start), g.f_alias).cloned();
                match (name, alias) {
                    (Some(Lowered::Dotted(n)), Some(Lowered::Ident(a, _))) => {
                        Lowered::Aliased(n, a)
                    }
                    _ => Lowered::None,
                }
            }
            K::RelativeImport => {
                let text = walk::text(&node, self.source);
                let level = text.chars().take_while(|&c| c == '.').count() as u8;
                let rest = text.trim_start_matches('.').trim();
                let rest = (!rest.is_empty()).then(|| self.strings.intern(rest));
                Lowered::Relative(level, rest)
            }
            K::WildcardImport => Lowered::Wildcard,
            K::Import => {
                let vals: Vec<Lowered> =
                    self.children(start).iter().map(|c| c.val.clone()).collect();
                for v in vals {
                    match v {
                        Lowered::Dotted(path) => {
                            // `import a.b.c` binds `a`; the submodules hang off it.
                            let full = self.strings.get(path).to_owned();
                            let head = full.split('.').next().unwrap_or("").to_owned();
                            let head_sym = self.strings.intern(&head);
                            let m = self.push_expr(PyExpr::ModuleRef {
                                level: 0,
                                path: head_sym,
                            });
                            let scope = self.scope();
                            let target = self.push_expr(PyExpr::Name {
                                scope,
                                name: head_sym,
                            });
                            self.assign(target, m);
                            if full.contains('.') {
                                // Make sure the full submodule path is known to be imported.
                                let sub = self.push_expr(PyExpr::ModuleRef { level: 0, path });
                                let _ = sub;
                            }
                            self.facts.imports.push(PyImport {
                                scope,
                                module: path,
                                name: None,
                                alias: None,
                            });
                        }
                        Lowered::Aliased(path, alias) => {
                            let m = self.push_expr(PyExpr::ModuleRef { level: 0, path });
                            let scope = self.scope();
                            let target = self.push_expr(PyExpr::Name { scope, name: alias });
                            self.assign(target, m);
                            self.facts.imports.push(PyImport {
                                scope,
                                module: path,
                                name: None,
                                alias: Some(alias),
                            });
                        }
                        _ => {}
                    }
                }
                Lowered::None
            }
            K::ImportFrom => {
                let children: Vec<(u16, Lowered)> = self
                    .children(start)
                    .iter()
                    .map(|c| (c.field, c.val.clone()))
                    .collect();
                let (level, module) = match children.iter().find(|(f, _)| *f == g.f_module_name) {
                    Some((_, Lowered::Dotted(m))) => (0u8, Some(*m)),
                    Some((_, Lowered::Relative(l, m))) => (*l, *m),
                    _ => return Lowered::None,
                };
                let module_text = {
                    let dots = ".".repeat(level as usize);
                    let m = module
                        .map(|m| self.strings.get(m).to_owned())
                        .unwrap_or_default();
                    format!("{dots}{m}")
                };
                let module_text_sym = self.strings.intern(&module_text);
                let path = module.unwrap_or_else(|| self.strings.intern(""));
                let scope = self.scope();
                let module_ref = self.push_expr(PyExpr::ModuleRef { level, path });
                for (field, v) in children {
                    if field == g.f_module_name {
                        continue;
                    }
                    let (name, alias) = match v {
                        Lowered::Dotted(n) => (n, n),
                        Lowered::Aliased(n, a) => (n, a),
                        Lowered::Wildcard => {
                            self.facts.star_imports.push((scope, module_ref));
                            self.facts.imports.push(PyImport {
                                scope,
                                module: module_text_sym,
                                name: Some(self.strings.intern("*")),
                                alias: None,
                            });
                            continue;
                        }
                        _ => continue,
                    };
                    let value = self.push_expr(PyExpr::Attr {
                        base: module_ref,
                        name,
                    });
                    let target = self.push_expr(PyExpr::Name { scope, name: alias });
                    self.assign(target, value);
                    self.facts.imports.push(PyImport {
                        scope,
                        module: module_text_sym,
                        name: Some(name),
                        alias: (alias != name).then_some(alias),
                    });
                }
                Lowered::None
            }
            // `lower` routes only the kinds above here.
            _ => Lowered::None,
        }
    }

    fn iterate(&mut self, node: &Node, left: &Lowered, right: &Lowered) {
        let target = self.as_expr(left);
        let iterable = self.as_expr(right);
        let text = node
            .child_by_field_id(GRAMMAR.f_right)
            .map(|r| walk::text(&r, self.source).into_owned())
            .unwrap_or_default();
        let text = format!("iter({})", walk::one_line(&text, 100));
        self.implicit_call(node, text, iterable, PyCallKind::Iter);
        let value = self.push_expr(PyExpr::Iter(iterable));
        self.assign_destructuring(target, value);
    }

    /// `a, b = x, y` pairs elements up, and `a, *rest, z = w, x, y, z`
    /// gives `rest` the middle ones as a list; otherwise every name in a
    /// tuple target receives the iterated elements of the value (`rest` a
    /// list of them).
    fn assign_destructuring(&mut self, target: ExprId, value: ExprId) {
        let starred_key = self.strings.intern(STARRED);
        let mut work = vec![(target, value)];
        while let Some((target, value)) = work.pop() {
            let t = self.facts.exprs[target as usize].clone();
            match t {
                PyExpr::Container { items }
                    if items.iter().any(|(k, _)| *k == Some(starred_key)) =>
                {
                    let star = items
                        .iter()
                        .position(|(k, _)| *k == Some(starred_key))
                        .unwrap_or(0);
                    let after = items.len() - star - 1;
                    match self.facts.exprs[value as usize].clone() {
                        PyExpr::Container { items: vitems }
                            if vitems.len() >= items.len() - 1
                                && vitems.iter().all(|(k, _)| k.is_some()) =>
                        {
                            for (i, (_, t)) in items.iter().enumerate() {
                                if i < star {
                                    work.push((*t, vitems[i].1));
                                } else if i > star {
                                    work.push((*t, vitems[vitems.len() - (items.len() - i)].1));
                                }
                            }
                            let middle: Vec<(Option<Sym>, ExprId)> = vitems
                                [star..vitems.len() - after]
                                .iter()
                                .enumerate()
                                .map(|(j, (_, v))| {
                                    (Some(self.strings.intern(&format!("#{j}"))), *v)
                                })
                                .collect();
                            let list = self.push_expr(PyExpr::Container {
                                items: middle.into(),
                            });
                            work.push((items[star].1, list));
                        }
                        _ => {
                            let elem = self.push_expr(PyExpr::Iter(value));
                            for (i, (_, t)) in items.iter().enumerate() {
                                if i == star {
                                    let list = self.push_expr(PyExpr::Container {
                                        items: vec![(None, elem)].into(),
                                    });
                                    work.push((*t, list));
                                } else {
                                    work.push((*t, elem));
                                }
                            }
                        }
                    }
                }
                PyExpr::Container { items } => {
                    if let PyExpr::Container { items: vitems } = &self.facts.exprs[value as usize]
                        && vitems.len() == items.len()
                    {
                        let pairs: Vec<(ExprId, ExprId)> = items
                            .iter()
                            .zip(vitems.iter())
                            .map(|((_, t), (_, v))| (*t, *v))
                            .collect();
                        work.extend(pairs);
                    } else {
                        let elem = self.push_expr(PyExpr::Iter(value));
                        for (_, t) in items {
                            work.push((t, elem));
                        }
                    }
                }
                _ => self.assign(target, value),
            }
        }
    }

    /// tree-sitter-python reads `[*items()]` (and `{*items()}`) as a call
    /// of `*items`: the call is lowered as `items()` and its result splatted.
    fn lower_call(&mut self, node: Node, start: usize) -> Lowered {
        let g = &*GRAMMAR;
        let starred = self.results[start..].iter_mut().find_map(|c| match c.val {
            Lowered::Splat(Splat { expr, dict: false }) if c.field == g.f_function => {
                c.val = Lowered::Expr(expr);
                Some(())
            }
            _ => None,
        });
        match self.lower_plain_call(node, start) {
            Lowered::Expr(expr) if starred.is_some() => Lowered::Splat(Splat { expr, dict: false }),
            other => other,
        }
    }

    fn lower_plain_call(&mut self, node: Node, start: usize) -> Lowered {
        let g = &*GRAMMAR;
        let callee = Self::field(self.children(start), g.f_function).cloned();
        let args = Self::field(self.children(start), g.f_arguments).cloned();
        let Some(callee) = callee else {
            return Lowered::None;
        };
        // `super()` is resolved structurally: the enclosing class and method.
        if let Lowered::Ident(name, _) = callee
            && self.strings.get(name) == "super"
            && let Some(func) = self.function_scope()
            && let Some(class) = self.decls[func as usize].parent
            && self.decls[class as usize].kind == DeclKind::Class
        {
            // The call itself still happens (PyCG records `<builtin>.super`).
            let scope = self.scope();
            let callee = self.push_expr(PyExpr::Name { scope, name });
            self.add_call(
                &node,
                "super".to_owned(),
                PyCall {
                    callee,
                    args: Box::default(),
                    kwargs: Box::default(),
                    splats: Box::default(),
                    key: None,
                    kind: PyCallKind::Plain,
                },
            );
            // `super(Middle, self)` starts after Middle in self's MRO (a
            // class of this file named by its first argument); the common
            // `super(ThisClass, self)` is `super()`.
            let named = match args {
                Some(Lowered::Args(i)) => self.arg_lists[i as usize].args.first().copied(),
                _ => None,
            };
            let named = named.and_then(|e| match self.facts.exprs.get(e as usize) {
                Some(PyExpr::Name { name, .. } | PyExpr::Var { name, .. }) => {
                    let name = self.strings.get(*name).to_owned();
                    self.decls
                        .iter()
                        .position(|d| d.kind == DeclKind::Class && d.local_name == name)
                }
                _ => None,
            });
            let class = named.map_or(class, |c| c as u32);
            return Lowered::Expr(self.push_expr(PyExpr::Super { class, func }));
        }
        let callee_expr = self.as_expr(&callee);
        let list = match args {
            Some(Lowered::Args(i)) => std::mem::take(&mut self.arg_lists[i as usize]),
            Some(other @ Lowered::Expr(_)) => ArgList {
                args: vec![self.as_expr(&other)],
                ..Default::default()
            },
            _ => ArgList::default(),
        };
        let text = node
            .child_by_field_id(GRAMMAR.f_function)
            .map(|f| {
                let text = walk::one_line(&walk::text(&f, self.source), 120);
                match text.strip_prefix('*') {
                    Some(unstarred) if f.kind() == "list_splat" => {
                        unstarred.trim_start().to_owned()
                    }
                    _ => text,
                }
            })
            .unwrap_or_default();
        // `cast(T, x)` is x, declared a T.
        let cast = match node.child_by_field_id(GRAMMAR.f_arguments) {
            Some(args)
                if matches!(text.as_str(), "cast" | "typing.cast" | "t.cast")
                    && list.args.len() == 2 =>
            {
                named_children(args)
                    .first()
                    .and_then(|&t| self.annotation(t, true, 0))
            }
            _ => None,
        };
        // `field(default_factory=f)` in a dataclass's body (or attrs'
        // `factory=`): its generated `__init__` calls `f`.
        let scope = self.scope();
        if matches!(
            text.as_str(),
            "field"
                | "dataclasses.field"
                | "attr.ib"
                | "attr.attrib"
                | "attr.field"
                | "attrs.field"
        ) && self.decls[scope as usize].kind == DeclKind::Class
            && let Some(&(_, factory)) = list
                .kwargs
                .iter()
                .find(|(k, _)| matches!(self.strings.get(*k), "default_factory" | "factory"))
        {
            self.facts.decl_info[scope as usize].factories.push(factory);
        }
        // `"{}: {!r}".format(a, b)` formats each argument with `format()`.
        let formats = node.child_by_field_id(GRAMMAR.f_function).is_some_and(|f| {
            f.kind() == "attribute"
                && f.child_by_field_id(GRAMMAR.f_object)
                    .is_some_and(|o| o.kind_id() == GRAMMAR.string)
                && f.child_by_field_id(GRAMMAR.f_attribute)
                    .is_some_and(|a| walk::text(&a, self.source) == "format")
        });
        // `"visit_{}".format(kind)`, like `"visit_" + kind`.
        let format_prefix = if formats {
            node.child_by_field_id(GRAMMAR.f_function)
                .and_then(|f| f.child_by_field_id(GRAMMAR.f_object))
                .and_then(|o| {
                    let raw = walk::text(&o, self.source);
                    string_literal(&raw)
                        .and_then(|t| t.split_once('{'))
                        .map(|(prefix, _)| prefix.to_owned())
                })
                .filter(|p| !p.is_empty() && !p.contains('}'))
        } else {
            None
        };
        if formats {
            let values: Vec<ExprId> = (list.args.iter().copied())
                .chain(list.kwargs.iter().map(|&(_, e)| e))
                .collect();
            for v in values {
                if self.may_be_instance(v) {
                    self.operator_call(&node, "__format__", None, v, UNKNOWN);
                }
            }
        }
        // `getattr(obj, "name")` is keyed by the name it reads.
        let key = match text.as_str() {
            "getattr" => list.second_str,
            _ => list.key,
        };
        // `getattr(row, "name")` and `setattr(row, "age", v)` with a
        // literal name read and assign that attribute, as `row.name` and
        // `row.age = v` do: a property's getter or setter, a descriptor's
        // `__get__` or `__set__`.
        // `object.__setattr__(self, "name", v)` (how a class with its own
        // `__setattr__` sets attributes) and setattr also give the
        // attribute its value, as `self.name = v` does.
        // A loop over literal names (`a|b`) reads or assigns each of them.
        let attr_names: Vec<Sym> = match (text.as_str(), list.second_str, list.args.first()) {
            ("getattr" | "setattr" | "object.__setattr__", Some(name), Some(&base))
                if base != UNKNOWN && !self.strings.get(name).ends_with('*') =>
            {
                let written = self.strings.get(name).to_owned();
                if written.contains('|') {
                    written.split('|').map(|n| self.strings.intern(n)).collect()
                } else {
                    vec![name]
                }
            }
            _ => Vec::new(),
        };
        for name in attr_names {
            let base = list.args[0];
            let attr = self.push_expr(PyExpr::Attr { base, name });
            let access = (self.caller(), attr);
            if text == "getattr" {
                self.facts.attr_loads.push(access);
            } else {
                // `object.__setattr__` passes over the class's own hook.
                if text == "setattr" {
                    self.facts.attr_stores.push(access);
                }
                if let Some(&value) = list.args.get(2)
                    && value != UNKNOWN
                {
                    self.facts.flows.push(PyFlow::Assign {
                        target: attr,
                        value,
                    });
                }
            }
        }
        let call = self.add_call(
            &node,
            text,
            PyCall {
                callee: callee_expr,
                args: list.args.into(),
                kwargs: list.kwargs.into(),
                splats: list.splats.into(),
                key,
                kind: PyCallKind::Plain,
            },
        );
        self.note_item_update(call);
        let result = self.push_expr(PyExpr::Call(call));
        if let Some(prefix) = format_prefix {
            let prefix = self.strings.intern(&prefix);
            self.format_prefixes.insert(result, prefix);
        }
        match cast {
            Some(declared) => {
                Lowered::Expr(self.push_expr(PyExpr::Union(vec![result, declared].into())))
            }
            None => Lowered::Expr(result),
        }
    }

    /// `for name in ("a", "b"): setattr(cls, name, …)`: the loop variable
    /// holds one of those names, written `a|b` (no attribute name has a
    /// `|`) for the getattr and setattr calls of the body, which is lowered
    /// after this (children first).
    fn note_loop_names(&mut self, start: usize, for_node: &Node) {
        let g = &*GRAMMAR;
        let Some(Lowered::Ident(name, scope)) =
            Self::field(self.children(start), g.f_left).cloned()
        else {
            return;
        };
        let names = for_node
            .child_by_field_id(g.f_right)
            .and_then(|r| literal_string_items(&r, self.source));
        let constant = names.map(|n| Lowered::Str(self.strings.intern(&n)));
        self.note_string_name(scope, name, constant);
    }

    /// A variable bound to a string constant (or not): it keeps one only
    /// while every binding agrees.
    fn note_string_name(&mut self, scope: u32, name: Sym, constant: Option<Lowered>) {
        self.string_names
            .entry((scope, name))
            .and_modify(|known| {
                let same = match (&*known, &constant) {
                    (Some(Lowered::Str(a)), Some(Lowered::Str(b)))
                    | (Some(Lowered::Prefix(a)), Some(Lowered::Prefix(b))) => a == b,
                    _ => false,
                };
                if !same {
                    *known = None;
                }
            })
            .or_insert(constant);
    }

    fn set_params(&mut self, decl: u32, list: u32) {
        let params = std::mem::take(&mut self.param_lists[list as usize]);
        for (p, default) in &params {
            self.bindings.insert((decl, p.name));
            if let Some(default) = default {
                // A default is the parameter's value on entry, before any
                // rebinding in the body: the plain name, never a version.
                self.facts.exprs.push(PyExpr::Name {
                    scope: decl,
                    name: p.name,
                });
                let target = (self.facts.exprs.len() - 1) as ExprId;
                let flow = self.facts.flows.len() as u32;
                self.facts.decl_info[decl as usize].default_flows.push(flow);
                self.facts.flows.push(PyFlow::Assign {
                    target,
                    value: *default,
                });
            }
        }
        self.facts.decl_info[decl as usize].params = params.into_iter().map(|(p, _)| p).collect();
    }

    fn lower_def(&mut self, node: Node, frame: &Frame) -> Lowered {
        let g = &*GRAMMAR;
        let Some(decl) = frame.decl else {
            return Lowered::None;
        };
        let children: Vec<(u16, Lowered)> = self
            .children(frame.start)
            .iter()
            .map(|c| (c.field, c.val.clone()))
            .collect();
        // `-> T`: what calls return when the body's own returns say nothing
        // a call could reach (an abstract method, a protocol, a stub).
        if let Some(t) = node.child_by_field_id(GRAMMAR.f_return_type)
            && let Some(value) = self.annotation(t, true, 0)
        {
            self.facts.flows.push(PyFlow::Return { func: decl, value });
        }
        for (field, val) in &children {
            if *field == g.f_parameters
                && let Lowered::Params(p) = val
            {
                self.set_params(decl, *p);
            }
            if *field == g.f_superclasses
                && let Lowered::Args(i) = val
            {
                let list = std::mem::take(&mut self.arg_lists[*i as usize]);
                let metaclass = list
                    .kwargs
                    .iter()
                    .find(|(k, _)| self.strings.get(*k) == "metaclass")
                    .map(|&(_, e)| e);
                let info = &mut self.facts.decl_info[decl as usize];
                info.bases = list.args;
                info.metaclass = metaclass;
            }
            if *field == g.f_name
                && let Lowered::Ident(name, scope) = val
            {
                let target = self.push_expr(PyExpr::Name {
                    scope: *scope,
                    name: *name,
                });
                let decorated = self
                    .frames
                    .last()
                    .is_some_and(|p| p.kind == K::DecoratedDef);
                if decorated {
                    self.bind_target(target);
                } else {
                    let value = self.push_expr(PyExpr::Decl(decl));
                    self.assign(target, value);
                }
                self.name_targets.insert(decl, target);
            }
        }
        Lowered::Decl(decl)
    }

    fn lower_decorated(&mut self, node: Node, start: usize) -> Lowered {
        let children: Vec<(K, Lowered)> = self
            .children(start)
            .iter()
            .map(|c| (c.kind, c.val.clone()))
            .collect();
        let Some(decl) = children.iter().find_map(|(_, v)| match v {
            Lowered::Decl(d) => Some(*d),
            _ => None,
        }) else {
            return Lowered::None;
        };
        let decorators: Vec<(usize, Lowered)> = children
            .iter()
            .enumerate()
            .filter(|(_, (k, _))| *k == K::Passthrough)
            .map(|(i, (_, v))| (i, v.clone()))
            .collect();
        let mut decorator_nodes = Vec::new();
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            if child.kind() == "decorator" {
                decorator_nodes.push(child);
            }
        }
        let original = self.push_expr(PyExpr::Decl(decl));
        let mut current = original;
        for (idx, (_, dec)) in decorators.iter().enumerate().rev() {
            let dec_node = decorator_nodes.get(idx).copied().unwrap_or(node);
            let text = walk::text(&dec_node, self.source)
                .trim_start_matches('@')
                .trim()
                .to_owned();
            if matches!(text.as_str(), "abstractmethod" | "abc.abstractmethod") {
                self.facts.decl_info[decl as usize].is_abstract = true;
            }
            // Descriptor builtins only mark the function; they are not calls worth an edge.
            match text.as_str() {
                "staticmethod" => {
                    self.facts.decl_info[decl as usize].is_staticmethod = true;
                    continue;
                }
                "classmethod" => {
                    self.facts.decl_info[decl as usize].is_classmethod = true;
                    continue;
                }
                t if [
                    "dataclass",
                    "dataclasses.dataclass",
                    "attr.s",
                    "attrs.define",
                    "attr.define",
                    "define",
                    "frozen",
                ]
                .iter()
                .any(|d| t == *d || t.starts_with(&format!("{d}("))) =>
                {
                    self.facts.decl_info[decl as usize].is_dataclass = true;
                }
                "total_ordering" | "functools.total_ordering" => {
                    self.facts.decl_info[decl as usize].is_total_ordering = true;
                }
                t if t == "pytest.fixture"
                    || t == "fixture"
                    || t.starts_with("pytest.fixture(")
                    || t.starts_with("fixture(") =>
                {
                    self.facts.decl_info[decl as usize].is_fixture = true;
                }
                "property" | "functools.cached_property" | "cached_property" => {
                    self.facts.decl_info[decl as usize].is_property = true;
                    continue;
                }
                // `@value.setter` is the same property's setter: as `@property`
                // itself, no call the graph should show (nor an unresolved one).
                t if is_property_accessor(t) => {
                    let info = &mut self.facts.decl_info[decl as usize];
                    info.is_property = true;
                    info.property_part = if t.ends_with(".setter") {
                        PropertyPart::Setter
                    } else if t.ends_with(".deleter") {
                        PropertyPart::Deleter
                    } else {
                        PropertyPart::Getter
                    };
                    continue;
                }
                _ => {}
            }
            let callee = self.as_expr(dec);
            let call = self.add_call(
                &dec_node,
                format!("@{}", walk::one_line(&text, 100)),
                PyCall {
                    callee,
                    args: vec![current].into(),
                    kwargs: Box::default(),
                    splats: Box::default(),
                    key: None,
                    kind: PyCallKind::Decorator,
                },
            );
            current = self.push_expr(PyExpr::Call(call));
        }
        if let Some(&target) = self.name_targets.get(&decl) {
            let value = self.push_expr(PyExpr::Decorated {
                result: current,
                original,
            });
            self.facts.flows.push(PyFlow::Assign { target, value });
        }
        Lowered::Decl(decl)
    }
}

impl<'t> Visitor<'t> for Extractor<'_> {
    fn enter(&mut self, node: Node<'t>, field: u16) -> bool {
        let g = &*GRAMMAR;
        let kind = g.kinds.get(&node);
        let kind_id = node.kind_id();
        // A def's body runs in the def's own scope; its name, decorators,
        // defaults and bases are evaluated in the enclosing one.
        let mut pushed_scope = false;
        if field == g.f_body
            && let Some(parent) = self.frames.last()
            && matches!(parent.kind, K::FunctionDef | K::ClassDef | K::Lambda)
            && let Some(decl) = parent.decl
        {
            self.scope_stack.push(decl);
            pushed_scope = true;
        }
        let decl = match kind {
            K::FunctionDef | K::ClassDef => {
                let name = node
                    .child_by_field_id(GRAMMAR.f_name)
                    .map(|n| walk::text(&n, self.source).into_owned())
                    .unwrap_or_else(|| "<anonymous>".to_owned());
                let dk = if kind == K::ClassDef {
                    DeclKind::Class
                } else {
                    DeclKind::Function
                };
                Some(self.new_decl(&node, dk, name))
            }
            // Past this depth a lambda is part of the one enclosing it.
            K::Lambda if self.lambda_nesting() >= MAX_LAMBDA_NESTING => None,
            K::Lambda => {
                let scope = self.scope();
                let n = self.lambda_counts.entry(scope).or_insert(0);
                *n += 1;
                let name = format!("<lambda{n}>");
                Some(self.new_decl(&node, DeclKind::Lambda, name))
            }
            _ => None,
        };
        if field == g.f_body
            && let Some(parent) = self.frames.last()
            && parent.kind == K::For
            && let Some(for_node) = node.parent()
        {
            self.note_loop_names(parent.start, &for_node);
        }
        let narrowings = match self.frames.len().checked_sub(1) {
            Some(parent)
                if field == g.f_consequence
                    && matches!(self.frames[parent].kind_id, id if id == g.if_statement || id == g.elif_clause) =>
            {
                self.narrow_isinstance(parent, g.f_condition)
            }
            Some(parent) if field == g.f_right && self.frames[parent].and_operator => {
                self.narrow_isinstance(parent, g.f_left)
            }
            _ => 0,
        };
        let and_operator = kind == K::BoolOp
            && node
                .child_by_field_id(g.f_operator)
                .is_some_and(|o| o.kind() == "and");
        if kind != K::Comment && self.is_body(self.frames.len()) {
            self.begin_statement(kind);
        }
        if !self.items.known.is_empty() && kind == K::Other && node.kind() == "await" {
            self.items.forget = true;
        }
        self.frames.push(Frame {
            start: self.results.len(),
            kind,
            kind_id,
            field,
            narrowings,
            and_operator,
            decl,
            pushed_scope,
        });
        // A string is lowered from its text; only an f-string's
        // interpolations hold code. Skipping the pieces of every other
        // string (and the tree cursor's steps over them) takes about a tenth
        // off the walk. One with a syntax error inside is walked, to count it.
        !(kind_id == g.string && !node.has_error() && !may_interpolate(node, self.source))
    }

    fn exit(&mut self, node: Node<'t>, field: u16) {
        let Some(frame) = self.frames.pop() else {
            return;
        };
        if frame.kind_id == GRAMMAR.assert_statement {
            self.narrow_assert(frame.start);
        } else if frame.kind_id == GRAMMAR.if_statement {
            self.narrow_guard(&node);
        }
        self.implied_conversions(&node, &frame);
        let val = self.lower(node, &frame);
        if frame.kind != K::Comment && self.is_body(self.frames.len()) {
            self.end_statement(frame.kind);
        }
        let kept = self
            .narrowed
            .len()
            .saturating_sub(usize::from(frame.narrowings));
        self.narrowed.truncate(kept);
        if frame.pushed_scope {
            self.scope_stack.pop();
        }
        self.results.truncate(frame.start);
        let element = node.is_named() && frame.kind != K::Comment;
        self.results.push(Child {
            field,
            kind: frame.kind,
            element,
            val,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(src: &str) -> FileFacts {
        extract("main.py", src.as_bytes())
    }

    fn names(f: &FileFacts) -> Vec<&str> {
        f.decls.iter().map(|d| d.local_name.as_str()).collect()
    }

    #[test]
    fn declarations_nest_like_qualname_and_lambdas_number_per_scope() {
        let f = facts(
            "class A:\n    def m(self):\n        def inner():\n            return lambda: 1\n        return inner\n\nf = lambda x: x\ng = lambda: 2\ndef h():\n    return lambda: 3\n",
        );
        assert_eq!(
            names(&f),
            vec![
                "",
                "A",
                "A.m",
                "A.m.inner",
                "A.m.inner.<lambda1>",
                "<lambda1>",
                "<lambda2>",
                "h",
                "h.<lambda1>"
            ]
        );
        assert_eq!(f.decls[2].kind, DeclKind::Method);
        assert_eq!(f.decls[4].kind, DeclKind::Lambda);
    }

    #[test]
    fn names_resolve_per_legb_and_class_scope_is_skipped() {
        let f = facts("x = 1\nclass C:\n    x = 2\n    def m(self):\n        return x\n");
        let LangFacts::Python(py) = &f.lang_facts else {
            panic!()
        };
        let ret = py.flows.iter().find_map(|fl| match fl {
            PyFlow::Return { value, .. } => Some(*value),
            _ => None,
        });
        let ret = ret.expect("a return flow");
        assert!(matches!(
            py.exprs[ret as usize],
            PyExpr::Var { scope: 0, .. }
        ));
    }

    #[test]
    fn calls_record_caller_text_and_arguments() {
        let f = facts("def f(a, b=2):\n    pass\n\ndef g():\n    f(1, b=g)\n");
        assert_eq!(f.calls.len(), 1);
        assert_eq!(f.calls[0].callee_text, "f");
        assert_eq!(f.decls[f.calls[0].caller as usize].local_name, "g");
        let LangFacts::Python(py) = &f.lang_facts else {
            panic!()
        };
        assert_eq!(py.calls[0].args.len(), 1);
        assert_eq!(py.calls[0].kwargs.len(), 1);
        assert_eq!(py.decl_info[1].params.len(), 2);
    }

    #[test]
    fn syntax_errors_are_counted_and_the_rest_still_extracts() {
        let f = facts("def broken(:\n    pass\ndef ok():\n    return 1\n");
        assert!(f.syntax_errors > 0);
        assert!(names(&f).contains(&"ok"));
    }

    #[test]
    fn calls_inside_f_strings_are_found_and_plain_strings_hold_none() {
        let f = facts(
            "def g():\n    a = f\"{one()} and {two(x)!r:>{width()}}\"\n    b = \"{not_a_call()}\"\n    c = rb'{nor()}' F'{three()}'\n    return a, b, c\n",
        );
        let LangFacts::Python(py) = &f.lang_facts else {
            panic!()
        };
        let mut called = Vec::new();
        let mut formatted = Vec::new();
        for (site, call) in f.calls.iter().zip(&py.calls) {
            match call.kind {
                PyCallKind::Operator { method, .. } => {
                    formatted.push((site.callee_text.as_str(), f.sym(method)))
                }
                _ => called.push(site.callee_text.as_str()),
            }
        }
        called.sort();
        assert_eq!(called, vec!["one", "three", "two", "width"]);
        // Each interpolation formats its value (`!r` asks `__repr__`); a
        // width computed inside a format spec is a number, not asked.
        formatted.sort();
        assert_eq!(
            formatted,
            vec![
                ("{one()}", "__format__"),
                ("{three()}", "__format__"),
                ("{two(x)!r:>{width()}}", "__repr__"),
            ]
        );
        assert_eq!(f.syntax_errors, 0);
    }

    #[test]
    fn f_string_prefixes_stop_at_the_first_interpolation() {
        assert_eq!(fstring_prefix("f\"visit_{kind}\""), Some("visit_"));
        assert_eq!(fstring_prefix("rf'do_{x}'"), Some("do_"));
        assert_eq!(fstring_prefix("f\"{kind}_x\""), None);
        assert_eq!(fstring_prefix("f\"a{{b}}\""), None);
        assert_eq!(fstring_prefix("\"visit_{kind}\""), None);
        assert_eq!(fstring_prefix("f\"no interpolation\""), None);
    }

    #[test]
    fn getattr_names_held_in_a_variable_are_keys() {
        let f = facts(
            "class V:\n    def visit(self, node):\n        name = 'visit_' + type(node).__name__\n        return getattr(self, name)(node)\n    def other(self):\n        m = f'on_{self}'\n        n = 'fixed'\n        return getattr(self, m), getattr(self, n)\n",
        );
        let LangFacts::Python(py) = &f.lang_facts else {
            panic!()
        };
        let mut keys: Vec<&str> = f
            .calls
            .iter()
            .zip(&py.calls)
            .filter(|(site, _)| site.callee_text == "getattr")
            .filter_map(|(_, c)| c.key.map(|k| f.sym(k)))
            .collect();
        keys.sort();
        assert_eq!(keys, vec!["fixed", "on_*", "visit_*"]);
    }

    #[test]
    fn percent_formats_list_their_conversions_in_order() {
        assert_eq!(percent_conversions("%-5s: %r %% %.2f%s"), b"srfs");
        assert!(percent_conversions("%(name)s").is_empty());
        assert!(percent_conversions("100%").is_empty());
    }

    #[test]
    fn conditions_and_percent_formatting_imply_conversions() {
        let f = facts(
            "def g(a, b, c):\n    if a:\n        pass\n    while not b.x:\n        pass\n    if a == b:\n        pass\n    assert c, 'msg'\n    return '%s and %r' % (a, b), '{}'.format(c), '%d' % a\n",
        );
        let LangFacts::Python(py) = &f.lang_facts else {
            panic!()
        };
        let mut implied: Vec<(&str, &str)> = f
            .calls
            .iter()
            .zip(&py.calls)
            .filter_map(|(site, call)| match call.kind {
                PyCallKind::Operator { method, .. } if f.sym(method) != "__eq__" => {
                    Some((site.callee_text.as_str(), f.sym(method)))
                }
                _ => None,
            })
            .collect();
        implied.sort();
        // `if a == b` asks nothing more of the bool `==` made, and `%d`
        // converts with `__int__`-like rules this does not model.
        assert_eq!(
            implied,
            vec![
                ("'%s and %r' % (a, b)", "__repr__"),
                ("'%s and %r' % (a, b)", "__str__"),
                ("'{}'.format(c)", "__format__"),
                ("a", "__bool__"),
                ("b.x", "__bool__"),
                ("c", "__bool__"),
            ]
        );
    }

    #[test]
    fn a_syntax_error_inside_a_string_is_counted() {
        let f = facts("x = 'unterminated\ny = 1\n");
        assert!(f.syntax_errors > 0);
    }

    #[test]
    fn docstrings_and_signatures() {
        let f = facts(
            "def f(a: int, *args, **kw) -> str:\n    \"\"\"Do it.\n\n    More.\n    \"\"\"\n    return ''\n",
        );
        assert_eq!(f.decls[1].signature, "def f(a: int, *args, **kw) -> str");
        assert_eq!(f.decls[1].doc.as_deref(), Some("Do it.\n\nMore."));
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let mut src = String::from("x = ");
        for _ in 0..20000 {
            src.push_str("'a' + ");
        }
        src.push_str("f()\n");
        let f = facts(&src);
        // f() itself, and the `+` whose right operand is its result.
        assert_eq!(f.calls.iter().filter(|c| c.callee_text == "f").count(), 1);
        assert_eq!(f.calls.len(), 2);
    }

    /// Whether the call written `callee_text` calls a subscript as written
    /// (`d["k"]`), or the value a known store forwarded in its place.
    fn calls_forwarded_value(src: &str, callee_text: &str) -> Vec<bool> {
        let f = facts(src);
        let LangFacts::Python(py) = &f.lang_facts else {
            unreachable!()
        };
        f.calls
            .iter()
            .zip(py.calls.iter())
            .filter(|(site, c)| site.callee_text == callee_text && c.kind == PyCallKind::Plain)
            .map(|(_, c)| !matches!(py.exprs[c.callee as usize], PyExpr::Subscript { .. }))
            .collect()
    }

    #[test]
    fn a_stored_item_is_read_back_until_something_could_change_it() {
        let read = "d[\"k\"]";
        // Read by the next statement, and by one after a plain assignment
        // or a comment.
        let src = "d = {\"k\": f}\nd[\"k\"] = g\nd[\"k\"]()\n";
        assert_eq!(calls_forwarded_value(src, read), vec![true]);
        let src = "d = {}\nd[\"k\"] = g\nx = 1\n# note\nd[\"k\"]()\n";
        assert_eq!(calls_forwarded_value(src, read), vec![true]);
        // `update` with a literal or keywords stores too.
        let src = "d = {}\nd.update({\"k\": g})\nd[\"k\"]()\nd.update(k=h)\nd[\"k\"]()\n";
        assert_eq!(calls_forwarded_value(src, read), vec![true, true]);
        // The first read's own call may change the dict.
        let src = "d = {}\nd[\"k\"] = g\nd[\"k\"]()\nd[\"k\"]()\n";
        assert_eq!(calls_forwarded_value(src, read), vec![true, false]);
        // Not after a call, a store through another name (an alias), a
        // store under a key that is not constant, a branch, or inside a
        // loop, a lambda or another function.
        for src in [
            "d = {}\nd[\"k\"] = g\nchange(d)\nd[\"k\"]()\n",
            "d = {}\ne = d\nd[\"k\"] = g\ne[\"k\"] = h\nd[\"k\"]()\n",
            "d = {}\nd[\"k\"] = g\nd[key] = h\nd[\"k\"]()\n",
            "d = {}\nd[\"k\"] = g\nif c:\n    d[\"k\"] = h\nd[\"k\"]()\n",
            "d = {}\nd[\"k\"] = g\nfor x in y:\n    d[\"k\"]()\n    d[\"k\"] = h\n",
            "d = {}\nd[\"k\"] = g\nf = lambda: d[\"k\"]()\n",
            "d = {}\nd[\"k\"] = g\ndef f():\n    d[\"k\"]()\n",
            "d = {}\nd[\"k\"] += g\nd[\"k\"]()\n",
        ] {
            let got = calls_forwarded_value(src, read);
            assert!(
                !got.is_empty() && got.iter().all(|f| !f),
                "{src:?}: {got:?}"
            );
        }
    }
}

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
//!
//! The walk ([`extract`], the `Visitor` impl and `lower`) is here with the
//! facts types; each construct is lowered in its own file: `defs.rs`
//! (functions, classes, decorators, lambdas, parameters, annotations),
//! `imports.rs`, `statements.rs` (assignments, loops, comprehensions, `with`,
//! `try`, `return`), `expressions.rs` (calls, attributes, subscripts,
//! operators, strings) and `flow.rs` (statement order: narrowing, versions
//! of rebound names, container items known between statements).

mod defs;
mod expressions;
mod flow;
mod imports;
mod statements;
#[cfg(test)]
mod tests;

use crate::lang::walk::{Interner, KindTable, Visitor};
use crate::lang::{FileFacts, LangFacts, walk};
use crate::model::{CallSite, DeclKind, Lang, LocalDecl, Span, Sym, content_hash};
use defs::{MAX_LAMBDA_NESTING, docstring};
use expressions::may_interpolate;
use flow::KnownItems;
use rustc_hash::FxHashMap as HashMap;
use rustc_hash::FxHashSet as HashSet;
use serde::{Deserialize, Serialize};
use std::sync::LazyLock;
use thin_vec::ThinVec;
use tree_sitter::{Language, Node};

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

fn named_children<'t>(n: Node<'t>) -> Vec<Node<'t>> {
    let mut c = n.walk();
    n.named_children(&mut c).collect()
}

impl<'s> Extractor<'s> {
    fn scope(&self) -> u32 {
        *self.scope_stack.last().unwrap_or(&0)
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

//! Go extraction: declarations (functions, methods, types, closures named
//! the way the Go toolchain's SSA names them: `Func`, `(*T).M`, `(T).M`,
//! `Func$1`), call sites, imports, and the *type facts* resolution needs to
//! find the receiver type of a method call: struct fields (embedded ones
//! too), interface methods, signatures, package variables and every local
//! binding (`var x T`, `x := expr`, parameters, receivers, range variables).
//!
//! Package-level initializer code is attributed to a per-file `init`
//! declaration; the resolver merges them into the package's `pkg.init`.
//!
//! The walk ([`extract`], the `Visitor` impl and `lower`) is here with the
//! facts types and the extractor state; `lower` dispatches each construct
//! to its own file: `expressions.rs` (names, selectors, calls and
//! conversions, composite literals), `types.rs` (type expressions, struct
//! and interface bodies, type declarations), `defs.rs` (functions,
//! methods, closures, their signatures and doc comments), `statements.rs`
//! (assignments, declarations, `range`, sends and receives, `return`),
//! `imports.rs` (the package clause and imports) and `scopes.rs` (which
//! variable a name means: block scopes, shadowing, versions).

mod defs;
mod expressions;
mod imports;
mod scopes;
mod statements;
#[cfg(test)]
mod tests;
mod types;

pub(crate) use imports::default_import_name;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::sync::LazyLock;

use serde::{Deserialize, Serialize};
use thin_vec::ThinVec;
use tree_sitter::{Language, Node};

use super::walk::{self, Interner, KindTable, Visitor};
use crate::lang::{FileFacts, LangFacts};
use crate::model::{CallSite, DeclKind, Lang, LocalDecl, Span, Sym, content_hash};

pub type ExprId = u32;
pub type TypeId = u32;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum GoType {
    Unknown,
    /// `T` (pkg None) or `pkg.T`; the type arguments of an instantiated
    /// generic type (`Stack[Shape]`) are in [`GoFacts::type_args`].
    Named {
        pkg: Option<Sym>,
        name: Sym,
    },
    Pointer(TypeId),
    Slice(TypeId),
    Map(TypeId, TypeId),
    Chan(TypeId),
    Func {
        results: Vec<TypeId>,
    },
    /// An anonymous struct (`[]struct{ in Addr; want string }`, the table
    /// of a table-driven test).
    Struct(Vec<GoField>),
    /// An anonymous interface (`x.(interface{ Usage() string })`, asking
    /// whether a value has a method): method names with parameter counts.
    Interface(Vec<(Sym, u16)>),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum GoExpr {
    Unknown,
    Ident(Sym),
    Selector(ExprId, Sym),
    /// The (first) value a call returns.
    Call(u32),
    /// The n-th value of a multi-value expression (`a, err := f()`).
    Nth(ExprId, u8),
    Index(ExprId),
    Deref(ExprId),
    AddrOf(ExprId),
    Composite(TypeId),
    FuncLit(u32),
    /// `x.(T)`: the operand and the asserted type.
    TypeAssert(ExprId, TypeId),
    /// The element a `range` over the inner expression yields as its value.
    RangeValue(ExprId),
    /// The first variable of a `range` over the inner expression: a
    /// channel's element (an index or a map key otherwise).
    RangeKey(ExprId),
    /// A type used as an expression (`(*T).M`, conversions).
    Type(TypeId),
}

/// Position of a bare `return` in [`GoFacts::returns`] while its function
/// is walked; when the function ends, it becomes one return of each named
/// result (what was assigned to them).
const BARE_RETURN: u8 = u8::MAX;

/// Position of `return f()` in [`GoFacts::returns`] (also recorded at
/// position 0): it may forward every result of `f`.
pub const FORWARDED_RETURN: u8 = u8::MAX - 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GoCall {
    pub callee: ExprId,
    pub args: Vec<ExprId>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GoField {
    pub name: Option<Sym>,
    pub ty: TypeId,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum GoTypeBody {
    Struct(Vec<GoField>),
    Interface {
        /// Method names with their parameter counts (a variadic one counts once).
        methods: Vec<(Sym, u16)>,
        /// Each method's result types, parallel to `methods`: what
        /// `ln.Addr()` returns when `ln` is of the interface type.
        results: Vec<Vec<TypeId>>,
        /// Each method's parameter types (one per name), parallel to
        /// `methods`: a type implements the interface only with a method
        /// of the same signature, not just the same name and arity.
        params: Vec<Vec<TypeId>>,
        embeds: Vec<TypeId>,
    },
    Other(TypeId),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GoTypeDecl {
    pub name: Sym,
    pub decl: u32,
    pub body: GoTypeBody,
    /// Type parameters of a generic type (`T` of `type Stack[T any]`).
    pub params: ThinVec<Sym>,
    /// `type A = B`: another name for B, not a type of its own.
    pub alias: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GoFunc {
    pub decl: u32,
    pub name: Sym,
    /// Receiver: (base type name, pointer receiver).
    pub recv: Option<(Sym, bool)>,
    /// The receiver's variable (`mw` in `func (mw MiddlewareFunc) …`).
    pub recv_name: Option<Sym>,
    /// The names a method of a generic type gives the type's parameters
    /// (`T` of `func (s *Stack[T]) Pop() T`), in order.
    pub recv_params: ThinVec<Sym>,
    /// Type parameters of a generic function (`K, V` of
    /// `func NewCache[K comparable, V any]()`).
    pub type_params: ThinVec<Sym>,
    pub results: Vec<TypeId>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Binding {
    Type(TypeId),
    Value(ExprId),
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GoFacts {
    pub package: Sym,
    /// (local name, import path); the local name of a dot import is ".".
    pub imports: Vec<(Sym, Sym)>,
    pub types: Vec<GoType>,
    pub exprs: Vec<GoExpr>,
    pub type_decls: Vec<GoTypeDecl>,
    pub funcs: Vec<GoFunc>,
    /// Bindings of names in a scope (a declaration); scope 0 is package level.
    pub bindings: Vec<(u32, Sym, Binding)>,
    /// Parallel to `FileFacts::calls`.
    pub calls: Vec<GoCall>,
    /// `return` values: (function or closure, position, value); a bare
    /// `return` gives each named result by name, and `return f()` is also
    /// recorded at [`FORWARDED_RETURN`].
    pub returns: Vec<(u32, u8, ExprId)>,
    /// Parameter names in order per function or closure (`None` for unnamed).
    pub params: Vec<(u32, Vec<Option<Sym>>)>,
    /// `x.f = v` assignments: (scope, the `x.f` selector, value).
    pub field_assigns: Vec<(u32, ExprId, ExprId)>,
    /// Elements of composite literals (`T{f: v}`, `T{v}`, `map[K]F{"k": v}`):
    /// (scope, the `Composite` expression, which element, value).
    pub composite_elems: Vec<(u32, ExprId, ElemKey, ExprId)>,
    /// Values a function or closure stores in a package-level variable
    /// (`now = fixed`, `hooks = append(hooks, f)`, `handlers[k] = h`):
    /// (the writing scope, the variable, value). Any file of the package
    /// may write a variable another declares, and every reader sees it.
    pub global_writes: Vec<(u32, Sym, ExprId)>,
    /// Type arguments of instantiated generic types (`Stack[Shape]`,
    /// `Pair[K, V]`): (the `Named` type, its arguments), sorted by type.
    pub type_args: Vec<(TypeId, Vec<TypeId>)>,
    /// Explicit type arguments of calls to generic functions
    /// (`Make[Sq]()`, `NewCache[string, Tri]()`): (call, arguments),
    /// sorted by call. A call through an index (`handlers[k]()`) may be
    /// here too: only the resolver knows which names are functions.
    pub call_type_args: Vec<(u32, Vec<TypeId>)>,
}

/// The entry for `key` in a table sorted by its first field.
fn sorted_entry<K: Ord + Copy, V>(table: &[(K, Vec<V>)], key: K) -> &[V] {
    match table.binary_search_by_key(&key, |(k, _)| *k) {
        Ok(i) => &table[i].1,
        Err(_) => &[],
    }
}

impl GoFacts {
    /// The type arguments of instantiated type `t` (none for another type).
    pub fn type_args_of(&self, t: TypeId) -> &[TypeId] {
        sorted_entry(&self.type_args, t)
    }

    /// The explicit type arguments of call `call` (none for most calls).
    pub fn call_type_args_of(&self, call: u32) -> &[TypeId] {
        sorted_entry(&self.call_type_args, call)
    }
}

/// Which element of a composite literal a value initialises.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum ElemKey {
    /// `Field: v` (a struct field, or a map key that is an identifier).
    Name(Sym),
    /// The n-th positional element (a struct field in declaration order, or a slice element).
    Position(u32),
    /// Any other key (`"k": v`, `3: v`).
    Other,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum K {
    Other,
    Error,
    Identifier,
    FieldIdentifier,
    TypeIdentifier,
    PackageIdentifier,
    Selector,
    Call,
    ArgumentList,
    /// `T[int](x)`, `(*T)(x)`, and `handlers[k](x)`, which parses the same.
    TypeConversion,
    Index,
    Paren,
    Unary,
    Slice,
    Composite,
    FuncLit,
    TypeAssert,
    FunctionDecl,
    MethodDecl,
    ParameterDecl,
    ParameterList,
    ShortVar,
    /// `case v := <-ch:` (or `=`) in a select.
    Receive,
    /// `[T Store]` in a generic function's signature.
    TypeParamDecl,
    Assign,
    /// `ch <- v`: one more value the channel holds.
    Send,
    Return,
    VarSpec,
    ExpressionList,
    RangeClause,
    QualifiedType,
    PointerType,
    SliceType,
    MapType,
    ChanType,
    FuncType,
    GenericType,
    TypeArguments,
    TypeSpec,
    StructType,
    FieldList,
    FieldDecl,
    InterfaceType,
    MethodElem,
    TypeElem,
    ImportSpec,
    PackageClause,
    StringLit,
    TypeInstantiation,
    LiteralValue,
    LiteralElement,
    KeyedElement,
    /// A statement or block that opens a lexical scope (`for`, `if`, `{…}`, a case).
    ScopeNode,
}

struct Grammar {
    kinds: KindTable<K>,
    f_name: u16,
    f_type: u16,
    f_operand: u16,
    f_field: u16,
    f_function: u16,
    f_arguments: u16,
    f_left: u16,
    f_right: u16,
    f_value: u16,
    f_receiver: u16,
    f_parameters: u16,
    f_result: u16,
    f_body: u16,
    f_path: u16,
    f_package: u16,
    f_key: u16,
    f_element: u16,
    f_operator: u16,
    f_channel: u16,
    f_type_arguments: u16,
}

static GRAMMAR: LazyLock<Grammar> = LazyLock::new(|| {
    let language: Language = tree_sitter_go::LANGUAGE.into();
    let kinds = KindTable::new(&language, K::Other, |name| {
        Some(match name {
            "ERROR" => K::Error,
            "identifier" => K::Identifier,
            "field_identifier" => K::FieldIdentifier,
            "type_identifier" => K::TypeIdentifier,
            "package_identifier" => K::PackageIdentifier,
            "selector_expression" => K::Selector,
            "call_expression" => K::Call,
            "argument_list" => K::ArgumentList,
            "index_expression" => K::Index,
            "slice_expression" => K::Slice,
            // `f(xs...)` passes the slice `xs`, which holds what `xs` does;
            // a constraint `[T Store]` is its type (the first of a union).
            "parenthesized_expression"
            | "parenthesized_type"
            | "variadic_argument"
            | "type_constraint" => K::Paren,
            "unary_expression" => K::Unary,
            "composite_literal" => K::Composite,
            "func_literal" => K::FuncLit,
            "type_assertion_expression" => K::TypeAssert,
            "function_declaration" => K::FunctionDecl,
            "method_declaration" => K::MethodDecl,
            "parameter_declaration" | "variadic_parameter_declaration" => K::ParameterDecl,
            "parameter_list" => K::ParameterList,
            "short_var_declaration" => K::ShortVar,
            "receive_statement" => K::Receive,
            "type_parameter_declaration" => K::TypeParamDecl,
            "assignment_statement" => K::Assign,
            "send_statement" => K::Send,
            "return_statement" => K::Return,
            "var_spec" | "const_spec" => K::VarSpec,
            "expression_list" => K::ExpressionList,
            "range_clause" => K::RangeClause,
            "qualified_type" => K::QualifiedType,
            "pointer_type" => K::PointerType,
            "slice_type" | "array_type" | "implicit_length_array_type" => K::SliceType,
            "map_type" => K::MapType,
            "channel_type" => K::ChanType,
            "function_type" => K::FuncType,
            "generic_type" => K::GenericType,
            "type_arguments" => K::TypeArguments,
            "type_spec" | "type_alias" => K::TypeSpec,
            "struct_type" => K::StructType,
            "field_declaration" => K::FieldDecl,
            "field_declaration_list" => K::FieldList,
            "interface_type" => K::InterfaceType,
            "method_elem" => K::MethodElem,
            "type_elem" => K::TypeElem,
            "import_spec" => K::ImportSpec,
            "literal_value" => K::LiteralValue,
            "literal_element" => K::LiteralElement,
            "keyed_element" => K::KeyedElement,
            "block"
            | "for_statement"
            | "if_statement"
            | "expression_switch_statement"
            | "type_switch_statement"
            | "select_statement"
            | "expression_case"
            | "default_case"
            | "type_case"
            | "communication_case" => K::ScopeNode,
            "package_clause" => K::PackageClause,
            "interpreted_string_literal" | "raw_string_literal" => K::StringLit,
            "type_instantiation_expression" => K::TypeInstantiation,
            "type_conversion_expression" => K::TypeConversion,
            _ => return None,
        })
    });
    let f = |n| walk::field_id(&language, n);
    Grammar {
        f_name: f("name"),
        f_type: f("type"),
        f_operand: f("operand"),
        f_field: f("field"),
        f_function: f("function"),
        f_arguments: f("arguments"),
        f_left: f("left"),
        f_right: f("right"),
        f_value: f("value"),
        f_receiver: f("receiver"),
        f_parameters: f("parameters"),
        f_result: f("result"),
        f_body: f("body"),
        f_path: f("path"),
        f_package: f("package"),
        f_key: f("key"),
        f_element: f("element"),
        f_operator: f("operator"),
        f_channel: f("channel"),
        f_type_arguments: f("type_arguments"),
        kinds,
    }
});

#[derive(Debug, Clone)]
enum Lowered {
    None,
    Name(Sym),
    Expr(ExprId),
    Type(TypeId),
    /// A list of expressions (expression_list, argument_list).
    List(u32),
    /// Parameters: (names, type) per declaration.
    Params(u32),
    Param(Vec<Sym>, TypeId),
    Field(GoField, Vec<Sym>),
    Fields(u32),
    /// An interface's methods (name, arity), their (parameter types, result types),
    /// and its embedded types.
    Iface(
        Vec<(Sym, u16)>,
        Vec<(Vec<TypeId>, Vec<TypeId>)>,
        Vec<TypeId>,
    ),
    Str(Sym),
    /// `key: value` inside a composite literal (the key when it is a name).
    Keyed(Option<Sym>, ExprId),
    /// The elements of a literal value (index into `elem_lists`).
    Elems(u32),
    /// `[Shape, int]` of a generic type.
    TypeArgs(Vec<TypeId>),
}

struct Child {
    field: u16,
    /// A named node that is not a comment: an element of its parent (an
    /// argument or list entry, even when it lowers to nothing).
    element: bool,
    val: Lowered,
}

struct Frame {
    start: usize,
    kind: K,
    decl: Option<u32>,
}

struct Extractor<'s> {
    source: &'s [u8],
    is_test_file: bool,
    strings: Interner,
    decls: Vec<LocalDecl>,
    calls: Vec<CallSite>,
    facts: GoFacts,
    frames: Vec<Frame>,
    results: Vec<Child>,
    scope_stack: Vec<u32>,
    /// Type parameters of generic functions with an interface constraint:
    /// (function, name, constraint).
    type_params: Vec<(u32, Sym, TypeId)>,
    lists: Vec<Vec<Lowered>>,
    elem_lists: Vec<Vec<(ElemKey, ExprId)>>,
    /// Composite literals whose type is elided (`{"trim", trimLower}` in
    /// `[]step{…}`): their element lists, until the enclosing literal's
    /// type says theirs.
    elided: HashMap<ExprId, u32>,
    /// Lexical scopes inside functions, innermost last: each maps a name as
    /// written to the variable it means there. A declaration that shadows a
    /// variable of an enclosing block gets its own name (`c#1`), so
    /// `for _, c := range c.Args { c.Copy() }` keeps the two `c`s apart.
    blocks: Vec<HashMap<Sym, Sym>>,
    /// The function or closure (its decl) each of `blocks` belongs to.
    block_scopes: Vec<u32>,
    /// Shadowing name → the name as written.
    shadowed: HashMap<Sym, Sym>,
    /// Types declared inside a function: (function, name as written) →
    /// the name they are known by (`step#12`), so that two functions'
    /// `type step struct{…}` stay two types.
    local_types: HashMap<(u32, Sym), Sym>,
    shadow_counts: HashMap<Sym, u32>,
    /// Names declared in blocks of the current function that have closed:
    /// `if v, err := a(); …` and a later `if v, err := b(); …` are two
    /// variables, of two types, though neither block encloses the other.
    closed_names: HashSet<Sym>,
    /// Names the current function read, by position, while no local
    /// variable of theirs was in scope (package-level names, imports).
    outer_reads: HashMap<Sym, Vec<usize>>,
    /// Variables of the current function that a closure inside it reads or
    /// writes, and named results: they are never given new versions (see
    /// `new_version`).
    captured: HashSet<Sym>,
    params: Vec<Vec<(Vec<Sym>, TypeId)>>,
    closure_counts: HashMap<u32, u32>,
    /// Names a function or closure's signature binds (receiver,
    /// parameters, named results), by its decl: variables of its scope
    /// that no block declares.
    signatures: HashMap<u32, Vec<Sym>>,
    /// The type and values of the last constant spec that had either: a
    /// spec with neither repeats them (`KB` after `KA Kind = iota` is a
    /// Kind).
    const_repeat: (Option<TypeId>, Vec<Lowered>),
    syntax_errors: u32,
}

pub fn extract(rel_path: &str, source: &[u8]) -> FileFacts {
    let mut ex = Extractor {
        source,
        is_test_file: rel_path.ends_with("_test.go"),
        strings: Interner::default(),
        decls: Vec::new(),
        calls: Vec::new(),
        facts: GoFacts::default(),
        frames: Vec::new(),
        results: Vec::new(),
        scope_stack: vec![0],
        type_params: Vec::new(),
        lists: Vec::new(),
        elem_lists: Vec::new(),
        elided: HashMap::default(),
        blocks: Vec::new(),
        block_scopes: Vec::new(),
        shadowed: HashMap::default(),
        local_types: HashMap::default(),
        shadow_counts: HashMap::default(),
        closed_names: HashSet::default(),
        outer_reads: HashMap::default(),
        captured: HashSet::default(),
        params: Vec::new(),
        closure_counts: HashMap::default(),
        signatures: HashMap::default(),
        const_repeat: (None, Vec::new()),
        syntax_errors: 0,
    };
    ex.facts.types.push(GoType::Unknown);
    ex.facts.exprs.push(GoExpr::Unknown);
    ex.decls.push(LocalDecl {
        local_name: "init".to_owned(),
        kind: DeclKind::Package,
        span: Span {
            start_byte: 0,
            end_byte: source.len() as u32,
            start_line: 1,
            end_line: walk::count_lines(source).max(1),
        },
        parent: None,
        signature: "package initialization".to_owned(),
        doc: None,
        body_hash: content_hash(source),
        is_test: false,
    });
    if let Some(tree) = super::parse(Lang::Go, source) {
        ex.syntax_errors = walk::walk(&tree, &mut ex);
    }
    FileFacts {
        lang: Lang::Go,
        decls: ex.decls,
        calls: ex.calls,
        strings: {
            let mut strings = ex.strings.strings;
            strings.shrink_to_fit();
            strings
        },
        syntax_errors: ex.syntax_errors,
        lines: walk::count_lines(source),
        lang_facts: LangFacts::Go(ex.facts),
    }
}

fn kids(children: &[Child]) -> Vec<Lowered> {
    children
        .iter()
        .filter(|c| !matches!(c.val, Lowered::None))
        .map(|c| c.val.clone())
        .collect()
}

impl Extractor<'_> {
    fn scope(&self) -> u32 {
        *self.scope_stack.last().unwrap_or(&0)
    }

    fn push_type(&mut self, t: GoType) -> TypeId {
        if t == GoType::Unknown {
            return 0;
        }
        self.facts.types.push(t);
        (self.facts.types.len() - 1) as TypeId
    }

    fn push_expr(&mut self, e: GoExpr) -> ExprId {
        self.facts.exprs.push(e);
        (self.facts.exprs.len() - 1) as ExprId
    }

    fn intern_node(&mut self, node: &Node) -> Sym {
        let t = walk::text(node, self.source);
        self.strings.intern(&t)
    }

    fn as_expr(&mut self, v: &Lowered) -> ExprId {
        match v {
            Lowered::Name(s) => self.push_expr(GoExpr::Ident(*s)),
            Lowered::Expr(e) => *e,
            Lowered::Type(t) => self.push_expr(GoExpr::Type(*t)),
            _ => 0,
        }
    }

    fn as_type(&mut self, v: &Lowered) -> TypeId {
        match v {
            Lowered::Type(t) => *t,
            Lowered::Name(s) => self.push_type(GoType::Named {
                pkg: None,
                name: *s,
            }),
            Lowered::Expr(e) => match self.facts.exprs[*e as usize].clone() {
                // `pkg.T` parsed as a selector in expression position.
                GoExpr::Selector(base, name) => match self.facts.exprs[base as usize] {
                    GoExpr::Ident(pkg) => self.push_type(GoType::Named {
                        pkg: Some(pkg),
                        name,
                    }),
                    _ => 0,
                },
                GoExpr::Ident(s) => self.push_type(GoType::Named { pkg: None, name: s }),
                GoExpr::Type(t) => t,
                _ => 0,
            },
            Lowered::Fields(i) => {
                let fields = self.lists[*i as usize]
                    .iter()
                    .filter_map(|f| match f {
                        Lowered::Field(f, _) => Some(f.clone()),
                        _ => None,
                    })
                    .collect();
                self.push_type(GoType::Struct(fields))
            }
            Lowered::Iface(methods, _, _) if !methods.is_empty() => {
                self.push_type(GoType::Interface(methods.clone()))
            }
            _ => 0,
        }
    }

    fn field(children: &[Child], field: u16) -> Option<Lowered> {
        children
            .iter()
            .find(|c| c.field == field)
            .map(|c| c.val.clone())
    }

    fn intern_text(&mut self, n: &Node) -> Sym {
        let text = walk::text(n, self.source).into_owned();
        self.strings.intern(&text)
    }

    fn bind(&mut self, name: Sym, b: Binding) {
        if self.strings.get(name) == "_" {
            return;
        }
        let scope = self.scope();
        self.facts.bindings.push((scope, name, b));
    }

    fn list(&self, v: &Option<Lowered>) -> Vec<Lowered> {
        match v {
            Some(Lowered::List(i)) => self.lists[*i as usize].clone(),
            Some(other) => vec![other.clone()],
            None => Vec::new(),
        }
    }

    fn lower(&mut self, node: Node, frame: &Frame) -> Lowered {
        let g = &*GRAMMAR;
        let start = frame.start;
        let children: Vec<Child> = self.results.split_off(start);
        let children = &children[..];
        match frame.kind {
            K::Identifier
            | K::FieldIdentifier
            | K::PackageIdentifier
            | K::StringLit
            | K::Paren
            | K::Selector
            | K::TypeConversion
            | K::Unary
            | K::Slice
            | K::Index
            | K::Composite
            | K::LiteralElement
            | K::KeyedElement
            | K::LiteralValue
            | K::TypeAssert
            | K::ArgumentList
            | K::ExpressionList
            | K::Call => self.lower_expression(node, frame, children),
            K::TypeIdentifier
            | K::QualifiedType
            | K::PointerType
            | K::SliceType
            | K::MapType
            | K::ChanType
            | K::FuncType
            | K::GenericType
            | K::TypeInstantiation
            | K::TypeArguments
            | K::FieldDecl
            | K::FieldList
            | K::StructType
            | K::MethodElem
            | K::TypeElem
            | K::InterfaceType
            | K::TypeSpec => self.lower_type(node, frame, children),
            K::TypeParamDecl
            | K::FuncLit
            | K::ParameterDecl
            | K::ParameterList
            | K::FunctionDecl
            | K::MethodDecl => self.lower_definition(node, frame, children),
            K::Assign
            | K::Send
            | K::Return
            | K::Receive
            | K::ShortVar
            | K::VarSpec
            | K::RangeClause => self.lower_statement(node, frame, children),
            K::ImportSpec | K::PackageClause => self.lower_import(node, frame, children),
            K::Error | K::Other | K::ScopeNode => {
                let _ = (g.f_body, g.f_key);
                Lowered::None
            }
        }
    }
}

impl<'t> Visitor<'t> for Extractor<'_> {
    fn enter(&mut self, node: Node<'t>, _field: u16) -> bool {
        let g = &*GRAMMAR;
        let kind = g.kinds.get(&node);
        let decl = match kind {
            K::FunctionDecl | K::MethodDecl => {
                let name = node
                    .child_by_field_name("name")
                    .map(|n| walk::text(&n, self.source).into_owned())
                    .unwrap_or_default();
                let local = match node.child_by_field_name("receiver") {
                    Some(recv) => {
                        let mut cursor = recv.walk();
                        let param = recv
                            .named_children(&mut cursor)
                            .find(|c| c.kind() == "parameter_declaration");
                        let ty = param
                            .and_then(|p| p.child_by_field_name("type"))
                            .map(|t| {
                                walk::text(&t, self.source)
                                    .split_whitespace()
                                    .collect::<Vec<_>>()
                                    .join(" ")
                            })
                            .unwrap_or_default();
                        let pointer = ty.starts_with('*');
                        let base = ty.trim_start_matches('*');
                        // SSA keeps type parameters on the receiver: `(*Stack[T]).Push`.
                        if pointer {
                            format!("(*{base}).{name}")
                        } else {
                            format!("({base}).{name}")
                        }
                    }
                    None => name,
                };
                let kind = if kind == K::MethodDecl {
                    DeclKind::Method
                } else {
                    DeclKind::Function
                };
                let d = self.new_decl(&node, kind, local, 0);
                self.scope_stack.push(d);
                self.note_signature(node, d);
                Some(d)
            }
            K::FuncLit => {
                let parent = self.scope();
                let n = self.closure_counts.entry(parent).or_insert(0);
                *n += 1;
                let n = *n;
                let parent_name = self.decls[parent as usize].local_name.clone();
                let d = self.new_decl(
                    &node,
                    DeclKind::Closure,
                    format!("{parent_name}${n}"),
                    parent,
                );
                self.scope_stack.push(d);
                self.note_signature(node, d);
                Some(d)
            }
            K::TypeSpec => {
                let name = node
                    .child_by_field_name("name")
                    .map(|n| walk::text(&n, self.source).into_owned())
                    .unwrap_or_default();
                let scope = self.scope();
                if scope != 0 {
                    let written = self.strings.intern(&name);
                    let known = self.strings.intern(&format!("{name}#{scope}"));
                    self.local_types.insert((scope, written), known);
                }
                Some(self.new_decl(&node, DeclKind::Type, name, 0))
            }
            _ => None,
        };
        if matches!(
            kind,
            K::FunctionDecl | K::MethodDecl | K::FuncLit | K::ScopeNode
        ) {
            self.blocks.push(HashMap::default());
            self.block_scopes.push(self.scope());
        }
        if matches!(node.kind(), "type_case" | "default_case") {
            self.bind_type_switch_alias(node);
        }
        self.frames.push(Frame {
            start: self.results.len(),
            kind,
            decl,
        });
        true
    }

    fn exit(&mut self, node: Node<'t>, field: u16) {
        let Some(frame) = self.frames.pop() else {
            return;
        };
        if matches!(frame.kind, K::FunctionDecl | K::MethodDecl | K::FuncLit) {
            // Bindings and calls of the body are in; the signature binds in the same scope.
        }
        let val = self.lower(node, &frame);
        if matches!(frame.kind, K::FunctionDecl | K::MethodDecl | K::FuncLit) {
            self.scope_stack.pop();
        }
        if matches!(
            frame.kind,
            K::FunctionDecl | K::MethodDecl | K::FuncLit | K::ScopeNode
        ) {
            if let Some(block) = self.blocks.pop() {
                if matches!(frame.kind, K::FunctionDecl | K::MethodDecl) {
                    self.closed_names.clear();
                    self.outer_reads.clear();
                    self.captured.clear();
                } else {
                    self.closed_names.extend(block.into_keys());
                }
            }
            self.block_scopes.pop();
        }
        self.results.truncate(frame.start);
        let element = node.is_named() && node.kind() != "comment";
        self.results.push(Child {
            field,
            element,
            val,
        });
    }
}

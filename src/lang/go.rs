//! Go extraction: declarations (functions, methods, types, closures named
//! the way the Go toolchain's SSA names them: `Func`, `(*T).M`, `(T).M`,
//! `Func$1`), call sites, imports, and the *type facts* resolution needs to
//! find the receiver type of a method call: struct fields (embedded ones
//! too), interface methods, signatures, package variables and every local
//! binding (`var x T`, `x := expr`, parameters, receivers, range variables).
//!
//! Package-level initializer code is attributed to a per-file `init`
//! declaration; the resolver merges them into the package's `pkg.init`.

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

/// Whether the body of function `node` (not of a closure inside it) has a
/// `defer` of a function literal.
fn defers_closure(node: &Node) -> bool {
    let Some(body) = node.child_by_field_name("body") else {
        return false;
    };
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        let mut cursor = n.walk();
        for child in n.named_children(&mut cursor) {
            match child.kind() {
                "defer_statement" => {
                    let mut c = child.walk();
                    if child.named_children(&mut c).any(|call| {
                        call.child_by_field_name("function")
                            .is_some_and(|f| f.kind() == "func_literal")
                    }) {
                        return true;
                    }
                }
                // A closure's own defers set its own results.
                "func_literal" => {}
                _ => stack.push(child),
            }
        }
    }
    false
}

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

/// The doc comment: the run of `//` comment lines directly above a node.
fn doc_comment(node: &Node, source: &[u8]) -> Option<String> {
    let mut lines = Vec::new();
    let mut prev = node.prev_sibling();
    let mut expected_row = node.start_position().row;
    while let Some(p) = prev {
        if p.kind() != "comment" || p.end_position().row + 1 != expected_row {
            break;
        }
        let text = walk::text(&p, source);
        lines.push(text.trim_start_matches("//").trim().to_owned());
        expected_row = p.start_position().row;
        prev = p.prev_sibling();
    }
    if lines.is_empty() {
        return None;
    }
    lines.reverse();
    Some(lines.join("\n"))
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

    fn new_decl(&mut self, node: &Node, kind: DeclKind, local_name: String, parent: u32) -> u32 {
        let start = node.start_byte().min(self.source.len());
        let body_start = node
            .child_by_field_name("body")
            .map(|b| b.start_byte())
            .unwrap_or(node.end_byte());
        let sig_end = body_start.min(self.source.len()).max(start);
        let signature = walk::one_line(&String::from_utf8_lossy(&self.source[start..sig_end]), 300);
        let end = node.end_byte().min(self.source.len()).max(start);
        let short = local_name.rsplit(['.', ')']).next().unwrap_or("");
        let is_test = self.is_test_file
            && kind == DeclKind::Function
            && ["Test", "Benchmark", "Example", "Fuzz"]
                .iter()
                .any(|p| short.starts_with(p));
        self.decls.push(LocalDecl {
            local_name,
            kind,
            span: Span::of(node),
            parent: Some(parent),
            signature,
            doc: if kind == DeclKind::Closure {
                None
            } else {
                doc_comment(node, self.source)
            },
            body_hash: content_hash(&self.source[start..end]),
            is_test,
        });
        (self.decls.len() - 1) as u32
    }

    fn add_call(&mut self, node: &Node, callee: ExprId, args: Vec<ExprId>) -> u32 {
        let text = node
            .child_by_field_name("function")
            .map(|f| walk::one_line(&walk::text(&f, self.source), 120))
            .unwrap_or_default();
        self.calls.push(CallSite {
            caller: self.scope(),
            callee_text: text,
            span: Span::of(node),
            arg_count: args.len() as u16,
        });
        self.facts.calls.push(GoCall { callee, args });
        (self.calls.len() - 1) as u32
    }

    /// The variable `name` (as written) means at this point.
    /// `at` is where the name is read: a read of no local variable is noted,
    /// so that a later declaration of the name in the same function
    /// (`newTree := newTree()`) gets a name of its own.
    fn visible(&mut self, name: Sym, at: usize) -> Sym {
        let found = self
            .blocks
            .iter()
            .enumerate()
            .rev()
            .find_map(|(i, b)| b.get(&name).map(|&local| (i, local)));
        match found {
            Some((i, local)) => {
                if self.block_scopes.get(i) != Some(&self.scope()) {
                    self.captured.insert(local);
                }
                local
            }
            None => {
                if !self.blocks.is_empty() {
                    self.outer_reads.entry(name).or_default().push(at);
                }
                name
            }
        }
    }

    /// Declare `name` in the innermost block: the same variable when that
    /// block already declares it (`a, err := …` again), a fresh name when it
    /// shadows one of an enclosing block.
    fn declare(&mut self, name: Sym, targets: &std::ops::Range<usize>) -> Sym {
        let written = self.shadowed.get(&name).copied().unwrap_or(name);
        let Some(top) = self.blocks.last() else {
            return written;
        };
        if let Some(&current) = top.get(&written) {
            return current;
        }
        if self.strings.get(written) == "_" {
            return written;
        }
        let shadows = self.closed_names.contains(&written)
            || self
                .outer_reads
                .get(&written)
                .is_some_and(|reads| reads.iter().any(|at| !targets.contains(at)))
            || self
                .blocks
                .iter()
                .rev()
                .skip(1)
                .any(|b| b.contains_key(&written));
        let declared = if shadows {
            let n = self.shadow_counts.entry(written).or_insert(0);
            *n += 1;
            let text = format!("{}#{n}", self.strings.get(written));
            let s = self.strings.intern(&text);
            self.shadowed.insert(s, written);
            s
        } else {
            written
        };
        if let Some(top) = self.blocks.last_mut() {
            top.insert(written, declared);
        }
        declared
    }

    /// `targets` is where the names are written: their own reads there
    /// are not reads of an outer variable.
    fn declare_all(&mut self, names: &[Lowered], targets: std::ops::Range<usize>) -> Vec<Lowered> {
        names
            .iter()
            .map(|n| match n {
                Lowered::Name(s) => Lowered::Name(self.declare(*s, &targets)),
                other => other.clone(),
            })
            .collect()
    }

    /// In a case of `switch v := x.(type)`, `v` is a variable of its own:
    /// of the case's type when it names one (`case *TCPAddr:`), else `x`
    /// itself. Called on entering the case, after the switch's header is
    /// lowered and before the case's statements are.
    fn bind_type_switch_alias(&mut self, case: Node) {
        let Some(switch) = case
            .parent()
            .filter(|p| p.kind() == "type_switch_statement")
        else {
            return;
        };
        let Some(alias) = switch
            .child_by_field_name("alias")
            .and_then(|a| a.named_child(0))
            .filter(|a| a.kind() == "identifier")
        else {
            return;
        };
        let text = walk::text(&alias, self.source).into_owned();
        let name = self.strings.intern(&text);
        let mut c = case.walk();
        let types: Vec<Node> = case
            .children_by_field_name("type", &mut c)
            .filter(|t| t.is_named())
            .collect();
        let case_type = match types[..] {
            [t] => self.type_of_node(t),
            _ => 0,
        };
        let binding = if case_type != 0 {
            Binding::Type(case_type)
        } else {
            let g = &*GRAMMAR;
            let value = self.frames.last().and_then(|f| {
                let children = &self.results[f.start..];
                Self::field(children, g.f_value)
            });
            match value {
                Some(v) => Binding::Value(self.as_expr(&v)),
                None => return,
            }
        };
        // A fresh name per case, even where no outer `v` is shadowed: each
        // case's `v` has its own type.
        let n = self.shadow_counts.entry(name).or_insert(0);
        *n += 1;
        let fresh = self.strings.intern(&format!("{text}#{n}"));
        self.shadowed.insert(fresh, name);
        if let Some(top) = self.blocks.last_mut() {
            top.insert(name, fresh);
        }
        self.bind(fresh, binding);
    }

    /// The type a type node names, for the shapes a type switch's case
    /// uses (`T`, `pkg.T`, `*T`, `T[U]`); 0 for any other.
    fn type_of_node(&mut self, t: Node) -> TypeId {
        let text =
            |this: &Self, n: Option<Node>| n.map(|n| walk::text(&n, this.source).into_owned());
        match t.kind() {
            "type_identifier" => {
                let name = self.intern_text(&t);
                self.push_type(GoType::Named { pkg: None, name })
            }
            "qualified_type" => {
                let (Some(pkg), Some(name)) = (
                    text(self, t.child_by_field_name("package")),
                    text(self, t.child_by_field_name("name")),
                ) else {
                    return 0;
                };
                let pkg = self.strings.intern(&pkg);
                let name = self.strings.intern(&name);
                self.push_type(GoType::Named {
                    pkg: Some(pkg),
                    name,
                })
            }
            "pointer_type" => match t.named_child(0) {
                Some(inner) => match self.type_of_node(inner) {
                    0 => 0,
                    inner => self.push_type(GoType::Pointer(inner)),
                },
                None => 0,
            },
            "generic_type" => match t.child_by_field_name("type") {
                Some(base) => self.type_of_node(base),
                None => 0,
            },
            _ => 0,
        }
    }

    /// `x[k](…)` parses as the instantiation of a generic type or
    /// function, as `List[int](xs)` does: only names tell them apart
    /// (`r.handlers[k](w)` indexes a variable). Both become an index
    /// expression, which the resolver reads as either: it knows which names
    /// are packages, types, functions and variables.
    fn instantiation_or_index(&mut self, t: TypeId) -> Lowered {
        match self.facts.types[t as usize] {
            GoType::Named {
                pkg: Some(qualifier),
                name,
            } => {
                let base = self.push_expr(GoExpr::Ident(qualifier));
                let field = self.push_expr(GoExpr::Selector(base, name));
                Lowered::Expr(self.push_expr(GoExpr::Index(field)))
            }
            GoType::Named { pkg: None, name } => {
                let base = self.push_expr(GoExpr::Ident(name));
                Lowered::Expr(self.push_expr(GoExpr::Index(base)))
            }
            _ => Lowered::Type(t),
        }
    }

    /// A literal without a type of its own, as an element of another: a
    /// composite whose type the enclosing literal fills in.
    fn elided_literal(&mut self, list: u32) -> ExprId {
        let e = self.push_expr(GoExpr::Composite(0));
        self.elided.insert(e, list);
        e
    }

    /// The elements of literal `composite` of type `t`; elided literals
    /// among them get the element type of `t` (a slice's or array's
    /// element, a map's value; through a pointer, `[]*T{{…}}` being
    /// `&T{…}`s) and their own elements recorded in turn.
    fn record_elems(&mut self, composite: ExprId, t: TypeId, list: u32, depth: u32) {
        let scope = self.scope();
        let elems = std::mem::take(&mut self.elem_lists[list as usize]);
        for (key, value) in elems {
            self.facts
                .composite_elems
                .push((scope, composite, key, value));
            let Some(inner) = self.elided.remove(&value) else {
                continue;
            };
            let mut elem = match self.facts.types.get(t as usize) {
                Some(&GoType::Slice(e) | &GoType::Map(_, e)) => e,
                _ => 0,
            };
            if let Some(&GoType::Pointer(pointee)) = self.facts.types.get(elem as usize) {
                elem = pointee;
            }
            self.facts.exprs[value as usize] = GoExpr::Composite(elem);
            if depth < 16 {
                self.record_elems(value, elem, inner, depth + 1);
            }
        }
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

    /// `target = v` where the target is a field or an element: one more
    /// value the field, map, slice or channel holds. `r.funcs[kind] = f`
    /// stores into a field as the elements of a composite literal do;
    /// `handlers[k] = h` and `ch <- h` (`element`) into a local container,
    /// recorded where it is declared.
    fn store(&mut self, scope: u32, mut target: ExprId, v: &Lowered, mut element: bool) {
        while let GoExpr::Index(inner) = self.facts.exprs[target as usize] {
            target = inner;
            element = true;
        }
        match self.facts.exprs[target as usize] {
            GoExpr::Selector(..) => {
                let value = self.as_expr(v);
                self.facts.field_assigns.push((scope, target, value));
            }
            GoExpr::Ident(name) if element => {
                let value = self.as_expr(v);
                if self.strings.get(name) != "_" {
                    match self.declaring_scope(name) {
                        Some(at) => self.facts.bindings.push((at, name, Binding::Value(value))),
                        None => self.facts.global_writes.push((scope, name, value)),
                    }
                }
            }
            _ => {}
        }
    }

    /// The function or closure that declares the variable `name` as the
    /// innermost block sees it, or whose signature binds it; None for a
    /// package-level variable written inside a function.
    fn declaring_scope(&self, name: Sym) -> Option<u32> {
        let in_block = self
            .blocks
            .iter()
            .zip(&self.block_scopes)
            .rev()
            .find(|(block, _)| block.contains_key(&name) || block.values().any(|&d| d == name));
        if let Some((_, &scope)) = in_block {
            return Some(scope);
        }
        let written = self.shadowed.get(&name).copied().unwrap_or(name);
        let signed = self.block_scopes.iter().rev().find(|scope| {
            self.signatures
                .get(scope)
                .is_some_and(|names| names.contains(&written))
        });
        match signed {
            Some(&scope) => Some(scope),
            None => (self.scope() == 0).then_some(0),
        }
    }

    /// Remember the names `node`'s signature (a function, method or
    /// function literal) binds in `decl`.
    fn note_signature(&mut self, node: Node, decl: u32) {
        let mut names = Vec::new();
        for field in ["receiver", "parameters", "result"] {
            let Some(list) = node.child_by_field_name(field) else {
                continue;
            };
            let mut cursor = list.walk();
            for param in list.named_children(&mut cursor) {
                let mut c = param.walk();
                for n in param.children_by_field_name("name", &mut c) {
                    let text = walk::text(&n, self.source).into_owned();
                    let name = self.strings.intern(&text);
                    // A bare `return` reads named results as declared.
                    if field == "result" {
                        self.captured.insert(name);
                    }
                    names.push(name);
                }
            }
        }
        if !names.is_empty() {
            self.signatures.insert(decl, names);
        }
    }

    /// `x = v` adds a value to the variable `x` where it is declared: a
    /// closure assigning a captured variable (`typ = typ.Elem()`) must not
    /// make it a new, closure-local variable that hides the outer one.
    fn assign_values(&mut self, names: &[Lowered], values: &[Lowered]) {
        let names: Vec<Lowered> = names
            .iter()
            .map(|n| match n {
                Lowered::Name(var) => Lowered::Name(self.new_version(*var)),
                other => other.clone(),
            })
            .collect();
        let start = self.facts.bindings.len();
        self.bind_values(&names, values);
        let written = self.facts.bindings.split_off(start);
        for (scope, name, b) in written {
            match (self.declaring_scope(name), b) {
                (Some(at), b) => self.facts.bindings.push((at, name, b)),
                (None, Binding::Value(value)) => {
                    self.facts.global_writes.push((scope, name, value))
                }
                (None, Binding::Type(_)) => {}
            }
        }
    }

    /// `s = cached{next: s}` in the block that declares `s` (or at the top
    /// of the body of the function whose parameter it is) replaces what
    /// `s` held for every later read: the assignment starts a new variable
    /// (`s#1`), as SSA would, and the reads before it keep the old one.
    /// Not where the assignment may run more than once or in a branch
    /// (a nested block: then the values merge), and not for a variable a
    /// closure reads, which may run after any later assignment.
    fn new_version(&mut self, var: Sym) -> Sym {
        if self.captured.contains(&var) || self.strings.get(var) == "_" {
            return var;
        }
        let written = self.shadowed.get(&var).copied().unwrap_or(var);
        let Some(top) = self.blocks.len().checked_sub(1) else {
            return var;
        };
        let Some(at) = self
            .blocks
            .iter()
            .rposition(|b| b.get(&written) == Some(&var))
        else {
            return var;
        };
        let scopes = &self.block_scopes;
        let function_block = |i: usize| i == 0 || scopes[i - 1] != scopes[i];
        let straight_line =
            at == top || (at + 1 == top && scopes[at] == scopes[top] && function_block(at));
        if !straight_line {
            return var;
        }
        let n = self.shadow_counts.entry(written).or_insert(0);
        *n += 1;
        let text = format!("{}#{n}", self.strings.get(written));
        let fresh = self.strings.intern(&text);
        self.shadowed.insert(fresh, written);
        self.blocks[top].insert(written, fresh);
        fresh
    }

    /// `a, b := x, y` binds pairwise; `a, err := f()` binds the n-th result.
    fn bind_values(&mut self, names: &[Lowered], values: &[Lowered]) {
        let single = values.len() == 1 && names.len() > 1;
        let first = values.first().map(|v| self.as_expr(v)).unwrap_or(0);
        for (i, n) in names.iter().enumerate() {
            let Lowered::Name(name) = n else { continue };
            let value = if single {
                self.push_expr(GoExpr::Nth(first, i as u8))
            } else {
                match values.get(i) {
                    Some(v) => self.as_expr(v),
                    None => continue,
                }
            };
            self.bind(*name, Binding::Value(value));
        }
    }

    fn list(&self, v: &Option<Lowered>) -> Vec<Lowered> {
        match v {
            Some(Lowered::List(i)) => self.lists[*i as usize].clone(),
            Some(other) => vec![other.clone()],
            None => Vec::new(),
        }
    }

    /// `Stack[Shape]`: a `Named` type of its own for this use, with its
    /// arguments recorded. A fresh type is the newest, so `type_args` stays
    /// sorted.
    fn instantiated(&mut self, base: TypeId, args: Vec<TypeId>) -> TypeId {
        let Some(named @ GoType::Named { .. }) = self.facts.types.get(base as usize).cloned()
        else {
            return base;
        };
        if args.is_empty() {
            return base;
        }
        let t = self.push_type(named);
        self.facts.type_args.push((t, args));
        t
    }

    /// The name a type declared in an enclosing function is known by, or
    /// `name` itself.
    fn local_type(&self, name: Sym) -> Sym {
        if self.local_types.is_empty() {
            return name;
        }
        self.scope_stack
            .iter()
            .rev()
            .find_map(|&d| self.local_types.get(&(d, name)).copied())
            .unwrap_or(name)
    }

    /// The names of a generic declaration's type parameters, in order.
    fn type_parameters(&mut self, node: &Node) -> ThinVec<Sym> {
        let mut params = ThinVec::new();
        if let Some(list) = node.child_by_field_name("type_parameters") {
            let mut cursor = list.walk();
            for p in list.named_children(&mut cursor) {
                let mut names = p.walk();
                for n in p.children_by_field_name("name", &mut names) {
                    params.push(self.intern_node(&n));
                }
            }
        }
        params
    }

    /// The explicit type arguments a call spells: `F[int, T]()` (a
    /// field of the call), or `F[T]()`, which parses as an index.
    fn explicit_type_args(&mut self, node: &Node, lowered: Option<Lowered>) -> Vec<TypeId> {
        if let Some(Lowered::TypeArgs(args)) = lowered {
            return args;
        }
        let Some(index) = node
            .child_by_field_name("function")
            .filter(|f| f.kind() == "index_expression")
            .and_then(|f| f.child_by_field_name("index"))
        else {
            return Vec::new();
        };
        let t = match index.kind() {
            "identifier" => {
                let name = self.intern_node(&index);
                self.push_type(GoType::Named { pkg: None, name })
            }
            "selector_expression" => match (
                index.child_by_field_name("operand"),
                index.child_by_field_name("field"),
            ) {
                (Some(pkg), Some(name)) if pkg.kind() == "identifier" => {
                    let pkg = self.intern_node(&pkg);
                    let name = self.intern_node(&name);
                    self.push_type(GoType::Named {
                        pkg: Some(pkg),
                        name,
                    })
                }
                _ => 0,
            },
            _ => self.type_of_node(index),
        };
        if t == 0 { Vec::new() } else { vec![t] }
    }

    /// The type parameter names a receiver type spells (`[K, V]` of
    /// `*Cache[K, V]`).
    fn type_param_names(&self, t: TypeId) -> ThinVec<Sym> {
        let t = match self.facts.types[t as usize] {
            GoType::Pointer(inner) => inner,
            _ => t,
        };
        self.facts
            .type_args_of(t)
            .iter()
            .filter_map(|&a| match self.facts.types.get(a as usize) {
                Some(GoType::Named { pkg: None, name }) => Some(*name),
                _ => None,
            })
            .collect()
    }

    fn type_name_text(&self, t: TypeId) -> String {
        match &self.facts.types[t as usize] {
            GoType::Named { name, .. } => self.strings.get(*name).to_owned(),
            GoType::Pointer(inner) => self.type_name_text(*inner),
            _ => String::new(),
        }
    }

    fn lower(&mut self, node: Node, frame: &Frame) -> Lowered {
        let g = &*GRAMMAR;
        let start = frame.start;
        let children: Vec<Child> = self.results.split_off(start);
        let children = &children[..];
        match frame.kind {
            K::Identifier => {
                let name = self.intern_node(&node);
                let seen = self.visible(name, node.start_byte());
                // `favContextKey("color")` converts to a local type.
                let seen = if seen == name {
                    self.local_type(name)
                } else {
                    seen
                };
                Lowered::Name(seen)
            }
            K::FieldIdentifier | K::PackageIdentifier => Lowered::Name(self.intern_node(&node)),
            K::TypeIdentifier => {
                let name = self.intern_node(&node);
                // A type parameter of an enclosing generic function stands
                // for its constraint: `x.Get()` on an `x T` with `[T Store]`
                // is a call through Store.
                if let Some(&(_, _, constraint)) = self
                    .type_params
                    .iter()
                    .rev()
                    .find(|(decl, n, _)| *n == name && self.scope_stack.contains(decl))
                {
                    return Lowered::Type(constraint);
                }
                let name = self.local_type(name);
                Lowered::Type(self.push_type(GoType::Named { pkg: None, name }))
            }
            K::TypeParamDecl => {
                let constraint = Self::field(children, g.f_type).map(|t| self.as_type(&t));
                let decl = self.scope();
                let named = match self.facts.types.get(constraint.unwrap_or(0) as usize) {
                    Some(GoType::Named { pkg, name }) => {
                        pkg.is_some() || !matches!(self.strings.get(*name), "any" | "comparable")
                    }
                    _ => false,
                };
                if let Some(constraint) = constraint
                    && named
                {
                    for c in children.iter().filter(|c| c.field == g.f_name) {
                        if let Lowered::Name(n) = c.val {
                            self.type_params.push((decl, n, constraint));
                        }
                    }
                }
                Lowered::None
            }
            K::StringLit => {
                let t = walk::text(&node, self.source);
                let s = t.trim_matches(|c| c == '"' || c == '`').to_owned();
                Lowered::Str(self.strings.intern(&s))
            }
            K::Paren => kids(children).into_iter().next().unwrap_or(Lowered::None),
            K::Selector => {
                let base = Self::field(children, g.f_operand);
                let name = Self::field(children, g.f_field);
                match (base, name) {
                    (Some(base), Some(Lowered::Name(name))) => {
                        let base = self.as_expr(&base);
                        Lowered::Expr(self.push_expr(GoExpr::Selector(base, name)))
                    }
                    _ => Lowered::None,
                }
            }
            K::QualifiedType => {
                let pkg = Self::field(children, g.f_package);
                let name = Self::field(children, g.f_name);
                match (pkg, name) {
                    (Some(Lowered::Name(pkg)), Some(Lowered::Type(_))) => {
                        // The name as written: a local type or a type
                        // parameter of this package that shares it
                        // (`testing.T` beside a local `T`) is not meant.
                        let Some(name) = node.child_by_field_name("name") else {
                            return Lowered::None;
                        };
                        let name = self.intern_node(&name);
                        Lowered::Type(self.push_type(GoType::Named {
                            pkg: Some(pkg),
                            name,
                        }))
                    }
                    _ => Lowered::None,
                }
            }
            K::PointerType => {
                let inner = kids(children).into_iter().next();
                match inner {
                    Some(v) => {
                        let t = self.as_type(&v);
                        Lowered::Type(self.push_type(GoType::Pointer(t)))
                    }
                    None => Lowered::None,
                }
            }
            K::SliceType => {
                let el = Self::field(children, g.f_element)
                    .or_else(|| kids(children).into_iter().last());
                let t = el.map(|e| self.as_type(&e)).unwrap_or(0);
                Lowered::Type(self.push_type(GoType::Slice(t)))
            }
            K::MapType => {
                let k = Self::field(children, g.f_key);
                let v = Self::field(children, g.f_value);
                let k = k.map(|k| self.as_type(&k)).unwrap_or(0);
                let v = v.map(|v| self.as_type(&v)).unwrap_or(0);
                Lowered::Type(self.push_type(GoType::Map(k, v)))
            }
            K::ChanType => {
                let el =
                    Self::field(children, g.f_value).or_else(|| kids(children).into_iter().last());
                let t = el.map(|e| self.as_type(&e)).unwrap_or(0);
                Lowered::Type(self.push_type(GoType::Chan(t)))
            }
            K::FuncType => {
                let results = Self::field(children, g.f_result);
                let results = self.result_types(results);
                Lowered::Type(self.push_type(GoType::Func { results }))
            }
            K::TypeConversion => {
                // The generic form may be a call: `Map[int](xs)`, or an
                // element of a map or slice of functions called. Any other
                // converts to a type literal (`[]Obs(nil)`, `map[K]V(m)`,
                // `(func())(f)`), which holds what its operand does: a call
                // of the type, as a conversion to a named type is.
                let generic = node
                    .child_by_field_name("type")
                    .is_some_and(|t| t.kind() == "generic_type");
                let Some(ty) = Self::field(children, g.f_type) else {
                    return Lowered::None;
                };
                let t = self.as_type(&ty);
                let callee = if generic {
                    match self.instantiation_or_index(t) {
                        Lowered::Expr(callee) => callee,
                        _ => return Lowered::None,
                    }
                } else if t == 0 {
                    return Lowered::None;
                } else {
                    self.push_expr(GoExpr::Type(t))
                };
                let args = Self::field(children, g.f_operand)
                    .map(|a| vec![self.as_expr(&a)])
                    .unwrap_or_default();
                let call = self.add_call(&node, callee, args);
                let type_args = self.facts.type_args_of(t).to_vec();
                if !type_args.is_empty() {
                    self.facts.call_type_args.push((call, type_args));
                }
                Lowered::Expr(self.push_expr(GoExpr::Call(call)))
            }
            K::GenericType | K::TypeInstantiation => {
                let base =
                    Self::field(children, g.f_type).or_else(|| kids(children).into_iter().next());
                match base {
                    Some(b) => {
                        let t = self.as_type(&b);
                        match frame.kind {
                            K::TypeInstantiation => self.instantiation_or_index(t),
                            _ => match Self::field(children, g.f_type_arguments) {
                                Some(Lowered::TypeArgs(args)) => {
                                    Lowered::Type(self.instantiated(t, args))
                                }
                                _ => Lowered::Type(t),
                            },
                        }
                    }
                    None => Lowered::None,
                }
            }
            K::TypeArguments => Lowered::TypeArgs(
                kids(children)
                    .iter()
                    .map(|v| match v {
                        Lowered::Iface(m, _, embeds) if m.is_empty() && embeds.len() == 1 => {
                            embeds[0]
                        }
                        other => self.as_type(other),
                    })
                    .collect(),
            ),
            K::Unary => {
                let op = node
                    .child_by_field_name("operator")
                    .map(|o| walk::text(&o, self.source).into_owned());
                let operand = Self::field(children, g.f_operand);
                let _ = g.f_operator;
                match (op.as_deref(), operand) {
                    (Some("&"), Some(v)) => {
                        let e = self.as_expr(&v);
                        Lowered::Expr(self.push_expr(GoExpr::AddrOf(e)))
                    }
                    (Some("*"), Some(v)) => {
                        let e = self.as_expr(&v);
                        Lowered::Expr(self.push_expr(GoExpr::Deref(e)))
                    }
                    // A value received from a channel is one of the values
                    // sent on it, as a range over it yields them.
                    (Some("<-"), Some(v)) => {
                        let e = self.as_expr(&v);
                        Lowered::Expr(self.push_expr(GoExpr::RangeValue(e)))
                    }
                    _ => Lowered::None,
                }
            }
            // `s[1:]` holds what `s` holds.
            K::Slice => Self::field(children, g.f_operand).unwrap_or(Lowered::None),
            K::Index => {
                let operand = Self::field(children, g.f_operand);
                match operand {
                    Some(v) => {
                        let e = self.as_expr(&v);
                        // `Map[int](…)`: an explicit instantiation of a generic function
                        // looks like an index; the resolver sees through it.
                        Lowered::Expr(self.push_expr(GoExpr::Index(e)))
                    }
                    None => Lowered::None,
                }
            }
            K::Composite => {
                let t = Self::field(children, g.f_type)
                    .map(|t| self.as_type(&t))
                    .unwrap_or(0);
                let composite = self.push_expr(GoExpr::Composite(t));
                if let Some(Lowered::Elems(list)) = Self::field(children, g.f_body) {
                    self.record_elems(composite, t, list, 0);
                }
                Lowered::Expr(composite)
            }
            K::LiteralElement => kids(children).into_iter().next().unwrap_or(Lowered::None),
            K::KeyedElement => {
                // A field name, not a variable, even where a local shadows it.
                let key = match Self::field(children, g.f_key) {
                    Some(Lowered::Name(n)) => Some(self.shadowed.get(&n).copied().unwrap_or(n)),
                    _ => None,
                };
                match Self::field(children, g.f_value) {
                    Some(v @ (Lowered::Name(_) | Lowered::Expr(_))) => {
                        Lowered::Keyed(key, self.as_expr(&v))
                    }
                    Some(Lowered::Elems(list)) => Lowered::Keyed(key, self.elided_literal(list)),
                    _ => Lowered::None,
                }
            }
            K::LiteralValue => {
                let mut elems = Vec::new();
                let mut position = 0u32;
                for c in children {
                    match &c.val {
                        Lowered::Keyed(key, value) => {
                            let key = key.map_or(ElemKey::Other, ElemKey::Name);
                            elems.push((key, *value));
                        }
                        v @ (Lowered::Name(_) | Lowered::Expr(_)) => {
                            let value = self.as_expr(&v.clone());
                            elems.push((ElemKey::Position(position), value));
                            position += 1;
                        }
                        &Lowered::Elems(list) => {
                            let value = self.elided_literal(list);
                            elems.push((ElemKey::Position(position), value));
                            position += 1;
                        }
                        Lowered::None => continue,
                        _ => position += 1,
                    }
                }
                self.elem_lists.push(elems);
                Lowered::Elems(self.elem_lists.len() as u32 - 1)
            }
            K::TypeAssert => {
                let t = Self::field(children, g.f_type)
                    .map(|t| self.as_type(&t))
                    .unwrap_or(0);
                let operand = Self::field(children, g.f_operand)
                    .map(|v| self.as_expr(&v))
                    .unwrap_or(0);
                Lowered::Expr(self.push_expr(GoExpr::TypeAssert(operand, t)))
            }
            K::FuncLit => {
                let decl = frame.decl.unwrap_or(0);
                if let Some(Lowered::Params(p)) = Self::field(children, g.f_parameters) {
                    self.record_params(decl, p);
                }
                self.bind_named_results(decl, Self::field(children, g.f_result), &node);
                Lowered::Expr(self.push_expr(GoExpr::FuncLit(decl)))
            }
            K::ArgumentList | K::ExpressionList => {
                // Every element keeps its position, literals included
                // (lowered to nothing, then an unknown expression), so
                // `f(1, g)` passes `g` as the second argument.
                let vals = children
                    .iter()
                    .filter(|c| c.element)
                    .map(|c| c.val.clone())
                    .collect();
                self.lists.push(vals);
                Lowered::List(self.lists.len() as u32 - 1)
            }
            K::Call => {
                let callee = Self::field(children, g.f_function);
                let args = Self::field(children, g.f_arguments);
                let Some(callee) = callee else {
                    return Lowered::None;
                };
                let callee = self.as_expr(&callee);
                let args: Vec<Lowered> = self.list(&args);
                let args: Vec<ExprId> = args.iter().map(|a| self.as_expr(a)).collect();
                // `copy(dst, src)` stores src's elements in dst (io's
                // MultiReader copies its readers into the slice it keeps).
                if let (GoExpr::Ident(name), [dst, src]) =
                    (&self.facts.exprs[callee as usize], args.as_slice())
                    && self.strings.get(*name) == "copy"
                {
                    let (dst, src) = (*dst, *src);
                    let scope = self.scope();
                    self.store(scope, dst, &Lowered::Expr(src), true);
                }
                let call = self.add_call(&node, callee, args);
                let type_args =
                    self.explicit_type_args(&node, Self::field(children, g.f_type_arguments));
                if !type_args.is_empty() {
                    self.facts.call_type_args.push((call, type_args));
                }
                Lowered::Expr(self.push_expr(GoExpr::Call(call)))
            }
            K::ParameterDecl => {
                let names: Vec<Sym> = children
                    .iter()
                    .filter(|c| c.field == g.f_name)
                    .filter_map(|c| match c.val {
                        Lowered::Name(s) => Some(s),
                        _ => None,
                    })
                    .collect();
                let ty = Self::field(children, g.f_type);
                let mut ty = ty.map(|t| self.as_type(&t)).unwrap_or(0);
                if node.kind() == "variadic_parameter_declaration" {
                    ty = self.push_type(GoType::Slice(ty));
                }
                // Parameters of a function being defined are variables of its
                // body; those of a function type (`func(x int)`) are not.
                let n = self.frames.len();
                let defines = n >= 2
                    && matches!(
                        self.frames[n - 2].kind,
                        K::FunctionDecl | K::MethodDecl | K::FuncLit
                    );
                let names = if defines {
                    let own = node.start_byte()..node.end_byte();
                    names.into_iter().map(|s| self.declare(s, &own)).collect()
                } else {
                    names
                };
                Lowered::Param(names, ty)
            }
            K::ParameterList => {
                let mut params = Vec::new();
                for v in kids(children) {
                    match v {
                        Lowered::Param(names, ty) => params.push((names, ty)),
                        // A result list of bare types: `(int, error)`.
                        other => {
                            let t = self.as_type(&other);
                            params.push((Vec::new(), t));
                        }
                    }
                }
                self.params.push(params);
                Lowered::Params(self.params.len() as u32 - 1)
            }
            K::FunctionDecl | K::MethodDecl => {
                let decl = frame.decl.unwrap_or(0);
                let name = match Self::field(children, g.f_name) {
                    Some(Lowered::Name(n)) => n,
                    _ => return Lowered::None,
                };
                let results = Self::field(children, g.f_result);
                let results = self.result_types(results);
                let mut recv = None;
                let mut recv_name = None;
                let mut recv_params = ThinVec::new();
                if let Some(Lowered::Params(p)) = Self::field(children, g.f_receiver)
                    && let Some((names, ty)) = self.params[p as usize].first().cloned()
                {
                    {
                        let pointer = matches!(self.facts.types[ty as usize], GoType::Pointer(_));
                        let base = self.type_name_text(ty);
                        recv = Some((self.strings.intern(&base), pointer));
                        recv_name = names.first().copied();
                        recv_params = self.type_param_names(ty);
                        for n in names {
                            self.facts.bindings.push((decl, n, Binding::Type(ty)));
                        }
                    }
                }
                if let Some(Lowered::Params(p)) = Self::field(children, g.f_parameters) {
                    self.record_params(decl, p);
                }
                self.bind_named_results(decl, Self::field(children, g.f_result), &node);
                let type_params = self.type_parameters(&node);
                self.facts.funcs.push(GoFunc {
                    decl,
                    name,
                    recv,
                    recv_name,
                    recv_params,
                    type_params,
                    results,
                });
                Lowered::None
            }
            K::Assign => {
                // Flow-insensitive: `f = g` is one more value `f` may hold.
                let left = Self::field(children, g.f_left);
                let right = Self::field(children, g.f_right);
                let names = self.list(&left);
                let values = self.list(&right);
                if node
                    .child_by_field_name("operator")
                    .is_some_and(|o| walk::text(&o, self.source) == "=")
                {
                    self.assign_values(&names, &values);
                    let scope = self.scope();
                    if names.len() == values.len() {
                        for (n, v) in names.iter().zip(values.iter()) {
                            if let Lowered::Expr(target) = *n {
                                self.store(scope, target, v, false);
                            }
                        }
                    } else if let [call] = values.as_slice()
                        && names.len() > 1
                    {
                        // `t.body, err = makeBody(v)`: each target holds the
                        // call's result in its position.
                        let call = self.as_expr(call);
                        for (i, n) in names.iter().enumerate() {
                            if let Lowered::Expr(target) = *n {
                                let nth = self.push_expr(GoExpr::Nth(call, i as u8));
                                self.store(scope, target, &Lowered::Expr(nth), false);
                            }
                        }
                    }
                }
                Lowered::None
            }
            K::Send => {
                let channel = Self::field(children, g.f_channel);
                let value = Self::field(children, g.f_value);
                if let (Some(channel), Some(v)) = (channel, value) {
                    let scope = self.scope();
                    let target = self.as_expr(&channel);
                    self.store(scope, target, &v, true);
                }
                Lowered::None
            }
            K::Return => {
                let vals = kids(children);
                let vals = match vals.as_slice() {
                    [Lowered::List(i)] => self.lists[*i as usize].clone(),
                    _ => vals,
                };
                let scope = self.scope();
                let mut first = 0;
                for (i, v) in vals.iter().enumerate().take(8) {
                    let e = self.as_expr(v);
                    if i == 0 {
                        first = e;
                    }
                    if e != 0 {
                        self.facts.returns.push((scope, i as u8, e));
                    }
                }
                // Returns whose values do not sit one per result: a bare
                // `return` (named results) and `return f()`, which may
                // forward all of f's results.
                if vals.is_empty() {
                    self.facts.returns.push((scope, BARE_RETURN, 0));
                } else if vals.len() == 1
                    && matches!(self.facts.exprs.get(first as usize), Some(GoExpr::Call(_)))
                {
                    self.facts.returns.push((scope, FORWARDED_RETURN, first));
                }
                Lowered::None
            }
            K::Receive => {
                let left = Self::field(children, g.f_left);
                let right = Self::field(children, g.f_right);
                let names = self.list(&left);
                let values = self.list(&right);
                let declares = (0..node.child_count())
                    .filter_map(|i| node.child(i))
                    .any(|c| c.kind() == ":=");
                if declares {
                    let names = self.declare_all(&names, field_span(node, "left"));
                    self.bind_values(&names, &values);
                } else {
                    self.assign_values(&names, &values);
                }
                Lowered::None
            }
            K::ShortVar => {
                let left = Self::field(children, g.f_left);
                let right = Self::field(children, g.f_right);
                let names = self.list(&left);
                let names = self.declare_all(&names, field_span(node, "left"));
                let values = self.list(&right);
                self.bind_values(&names, &values);
                Lowered::None
            }
            K::VarSpec => {
                let names: Vec<Lowered> = children
                    .iter()
                    .filter(|c| c.field == g.f_name)
                    .map(|c| c.val.clone())
                    .collect();
                let names = self.declare_all(&names, var_spec_targets(node));
                let ty = Self::field(children, g.f_type);
                let value = Self::field(children, g.f_value);
                let mut ty = ty.map(|t| self.as_type(&t));
                // `var h Handler = &fileHandler{}`: the declared type says
                // what `h` is, the value what it holds.
                let mut values = self.list(&value);
                if node.kind() == "const_spec" {
                    if ty.is_none() && values.is_empty() {
                        (ty, values) = self.const_repeat.clone();
                    } else {
                        self.const_repeat = (ty, values.clone());
                    }
                }
                if let Some(t) = ty {
                    for n in &names {
                        if let Lowered::Name(n) = n {
                            self.bind(*n, Binding::Type(t));
                        }
                    }
                }
                self.bind_values(&names, &values);
                Lowered::None
            }
            K::RangeClause => {
                let left = Self::field(children, g.f_left);
                let right = Self::field(children, g.f_right);
                let mut names = self.list(&left);
                let mut cursor = node.walk();
                if node.children(&mut cursor).any(|c| c.kind() == ":=") {
                    names = self.declare_all(&names, field_span(node, "left"));
                }
                if let Some(right) = right {
                    let r = self.as_expr(&right);
                    if let Some(Lowered::Name(k)) = names.first().cloned() {
                        let key = self.push_expr(GoExpr::RangeKey(r));
                        self.bind(k, Binding::Value(key));
                    }
                    if let Some(Lowered::Name(v)) = names.get(1).cloned() {
                        let value = self.push_expr(GoExpr::RangeValue(r));
                        self.bind(v, Binding::Value(value));
                    }
                }
                Lowered::None
            }
            K::FieldDecl => {
                let names: Vec<Sym> = children
                    .iter()
                    .filter(|c| c.field == g.f_name)
                    .filter_map(|c| match c.val {
                        Lowered::Name(s) => Some(s),
                        _ => None,
                    })
                    .collect();
                let ty = Self::field(children, g.f_type)
                    .map(|t| self.as_type(&t))
                    .unwrap_or(0);
                Lowered::Field(GoField { name: None, ty }, names)
            }
            K::FieldList => {
                let vals = kids(children);
                self.lists.push(vals);
                Lowered::Fields(self.lists.len() as u32 - 1)
            }
            K::StructType => {
                let mut fields = Vec::new();
                let mut stack: Vec<Lowered> = kids(children);
                // field_declaration_list wraps the fields: flatten one level.
                while let Some(v) = stack.pop() {
                    match v {
                        Lowered::Field(f, names) => {
                            if names.is_empty() {
                                fields.push(f);
                            } else {
                                // Popped last-first and reversed below: keep `a, b T` in order.
                                for n in names.into_iter().rev() {
                                    fields.push(GoField {
                                        name: Some(n),
                                        ty: f.ty,
                                    });
                                }
                            }
                        }
                        Lowered::Fields(i) => {
                            let inner = std::mem::take(&mut self.lists[i as usize]);
                            stack.extend(inner);
                        }
                        _ => {}
                    }
                }
                fields.reverse();
                self.lists.push(
                    fields
                        .into_iter()
                        .map(|f| Lowered::Field(f, Vec::new()))
                        .collect(),
                );
                Lowered::Fields(self.lists.len() as u32 - 1)
            }
            K::MethodElem => match Self::field(children, g.f_name) {
                Some(Lowered::Name(n)) => {
                    let params: Vec<TypeId> = match Self::field(children, g.f_parameters) {
                        Some(Lowered::Params(p)) => self.params[p as usize]
                            .iter()
                            .flat_map(|(names, t)| std::iter::repeat_n(*t, names.len().max(1)))
                            .collect(),
                        _ => Vec::new(),
                    };
                    let arity = params.len();
                    let results = Self::field(children, g.f_result);
                    let results = self.result_types(results);
                    Lowered::Iface(
                        vec![(n, arity.min(u16::MAX as usize) as u16)],
                        vec![(params, results)],
                        vec![],
                    )
                }
                _ => Lowered::None,
            },
            K::TypeElem => {
                let embeds: Vec<TypeId> = kids(children).iter().map(|v| self.as_type(v)).collect();
                Lowered::Iface(vec![], vec![], embeds)
            }
            K::InterfaceType => {
                let mut methods = Vec::new();
                let mut results = Vec::new();
                let mut embeds = Vec::new();
                for v in kids(children) {
                    if let Lowered::Iface(m, r, e) = v {
                        methods.extend(m);
                        results.extend(r);
                        embeds.extend(e);
                    }
                }
                Lowered::Iface(methods, results, embeds)
            }
            K::TypeSpec => {
                let name = match Self::field(children, g.f_name) {
                    Some(Lowered::Type(t)) => match self.facts.types[t as usize] {
                        GoType::Named { name, .. } => name,
                        _ => return Lowered::None,
                    },
                    _ => return Lowered::None,
                };
                let body = Self::field(children, g.f_type);
                let decl = frame.decl.unwrap_or(0);
                let body = match body {
                    Some(Lowered::Fields(i)) => {
                        let fields = std::mem::take(&mut self.lists[i as usize])
                            .into_iter()
                            .filter_map(|v| match v {
                                Lowered::Field(f, _) => Some(f),
                                _ => None,
                            })
                            .collect();
                        GoTypeBody::Struct(fields)
                    }
                    Some(Lowered::Iface(methods, signatures, embeds)) => {
                        let (params, results) = signatures.into_iter().unzip();
                        GoTypeBody::Interface {
                            methods,
                            results,
                            params,
                            embeds,
                        }
                    }
                    Some(other) => GoTypeBody::Other(self.as_type(&other)),
                    None => GoTypeBody::Other(0),
                };
                if let Some(d) = self.decls.get_mut(decl as usize) {
                    d.kind = match body {
                        GoTypeBody::Struct(_) => DeclKind::Struct,
                        GoTypeBody::Interface { .. } => DeclKind::Interface,
                        GoTypeBody::Other(_) => DeclKind::Type,
                    };
                }
                let params = self.type_parameters(&node);
                self.facts.type_decls.push(GoTypeDecl {
                    name,
                    decl,
                    body,
                    params,
                    alias: node.kind() == "type_alias",
                });
                Lowered::None
            }
            K::ImportSpec => {
                let path = match Self::field(children, g.f_path) {
                    Some(Lowered::Str(p)) => p,
                    _ => return Lowered::None,
                };
                let path_text = self.strings.get(path).to_owned();
                // `import . "pkg"` puts pkg's exported names in file scope;
                // resolution looks them up under the local name ".".
                let dot = node
                    .child_by_field_name("name")
                    .is_some_and(|n| n.kind() == "dot");
                let local = match Self::field(children, g.f_name) {
                    _ if dot => self.strings.intern("."),
                    Some(Lowered::Name(n)) => n,
                    _ => self.strings.intern(default_import_name(&path_text)),
                };
                self.facts.imports.push((local, path));
                Lowered::None
            }
            K::PackageClause => {
                if let Some(Lowered::Name(n)) = kids(children).into_iter().next() {
                    self.facts.package = n;
                }
                Lowered::None
            }
            K::Error | K::Other | K::ScopeNode => {
                let _ = (g.f_body, g.f_key);
                Lowered::None
            }
        }
    }

    /// Named results are variables of the function's body; a bare
    /// `return` in it returns what they hold, and so may any return of a
    /// function (`node`) that defers a closure, which may set them after
    /// it (`defer func() { if r := recover(); r != nil { err = pErr } }()`).
    fn bind_named_results(&mut self, decl: u32, results: Option<Lowered>, node: &Node) {
        let mut names = Vec::new();
        if let Some(Lowered::Params(p)) = results {
            for (list, ty) in self.params[p as usize].clone() {
                for n in list {
                    self.facts.bindings.push((decl, n, Binding::Type(ty)));
                    names.push(n);
                }
            }
        }
        let bare = |r: &(u32, u8, ExprId)| r.0 == decl && r.1 == BARE_RETURN;
        // The body is searched for a deferred closure only for a function
        // with named results and no bare return.
        if !self.facts.returns.iter().any(bare) && (names.is_empty() || !defers_closure(node)) {
            return;
        }
        self.facts.returns.retain(|r| !bare(r));
        for (i, n) in names.into_iter().enumerate().take(8) {
            let e = self.push_expr(GoExpr::Ident(n));
            self.facts.returns.push((decl, i as u8, e));
        }
    }

    /// Bind each parameter in the function's scope and keep their order.
    fn record_params(&mut self, decl: u32, list: u32) {
        let mut order = Vec::new();
        for (names, ty) in self.params[list as usize].clone() {
            if names.is_empty() {
                order.push(None);
            }
            for n in names {
                self.facts.bindings.push((decl, n, Binding::Type(ty)));
                order.push(Some(n));
            }
        }
        self.facts.params.push((decl, order));
    }

    fn result_types(&mut self, results: Option<Lowered>) -> Vec<TypeId> {
        match results {
            Some(Lowered::Params(p)) => {
                let mut out = Vec::new();
                for (names, ty) in self.params[p as usize].clone() {
                    for _ in 0..names.len().max(1) {
                        out.push(ty);
                    }
                }
                out
            }
            Some(other) => vec![self.as_type(&other)],
            None => Vec::new(),
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

/// Where a node's field is written (empty when it has none).
fn field_span(node: Node, field: &str) -> std::ops::Range<usize> {
    node.child_by_field_name(field)
        .map_or(0..0, |n| n.start_byte()..n.end_byte())
}

/// Where a `var` spec's names are written: before its type or value.
fn var_spec_targets(node: Node) -> std::ops::Range<usize> {
    let end = ["type", "value"]
        .iter()
        .filter_map(|f| node.child_by_field_name(f))
        .map(|n| n.start_byte())
        .min()
        .unwrap_or(node.end_byte());
    node.start_byte()..end
}

/// The name an import without an alias is known by when the imported
/// package's own clause is not at hand (it is outside the repository):
/// the path's last element, without a version (`gopkg.in/yaml.v3` is
/// `yaml`, `foo/v2` is `foo`).
pub(crate) fn default_import_name(path: &str) -> &str {
    let mut parts = path.rsplit('/');
    let last = parts.next().unwrap_or(path);
    if last.len() > 1 && last.starts_with('v') && last[1..].chars().all(|c| c.is_ascii_digit()) {
        parts.next().unwrap_or(last)
    } else {
        last.split('.').next().unwrap_or(last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ssa_style_names_for_functions_methods_and_closures() {
        let f = extract(
            "svc.go",
            b"package svc\n\ntype S struct{ repo Repo }\n\nfunc (s *S) Run() { f := func() { g := func() {}; g() }; f() }\nfunc (s S) Name() string { return \"\" }\nfunc New() *S { return &S{} }\n",
        );
        let names: Vec<&str> = f.decls.iter().map(|d| d.local_name.as_str()).collect();
        assert_eq!(
            names,
            vec![
                "init",
                "S",
                "(*S).Run",
                "(*S).Run$1",
                "(*S).Run$1$1",
                "(S).Name",
                "New"
            ]
        );
        assert_eq!(f.decls[1].kind, DeclKind::Struct);
        assert_eq!(f.calls.len(), 2);
    }

    #[test]
    fn generic_types_keep_parameters_and_arguments() {
        let f = extract(
            "g.go",
            b"package g\n\ntype List[T any] []T\ntype Cache[K comparable, V any] struct{ m map[K]V }\nfunc (c *Cache[K, V]) Get(k K) V { return c.m[k] }\nvar l = List[Shape]{}\n",
        );
        let crate::lang::LangFacts::Go(go) = &f.lang_facts else {
            panic!("not Go facts");
        };
        let names = |syms: &[Sym]| {
            syms.iter()
                .map(|&s| f.sym(s).to_owned())
                .collect::<Vec<_>>()
        };
        assert_eq!(names(&go.type_decls[0].params), ["T"]);
        assert_eq!(names(&go.type_decls[1].params), ["K", "V"]);
        assert_eq!(names(&go.funcs[0].recv_params), ["K", "V"]);
        let instantiated: Vec<String> = go
            .type_args
            .iter()
            .map(|(t, args)| {
                let name = |t: TypeId| match &go.types[t as usize] {
                    GoType::Named { name, .. } => f.sym(*name).to_owned(),
                    other => format!("{other:?}"),
                };
                format!(
                    "{}{:?}",
                    name(*t),
                    args.iter().map(|&a| name(a)).collect::<Vec<_>>()
                )
            })
            .collect();
        assert_eq!(instantiated, ["Cache[\"K\", \"V\"]", "List[\"Shape\"]"]);
    }
}

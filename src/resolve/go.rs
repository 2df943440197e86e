//! Go resolution: package identity from `go.mod` + directory, then calls
//! resolved through declared types: same-package and imported functions;
//! methods on receivers, parameters, typed locals, `&T{}` / `T{}` literals
//! and constructor results; fields of structs (`s.repo.Save()`); methods
//! promoted from embedded fields; closures and method values bound to
//! locals; and interface calls, which reach every method of that name on a
//! repository type whose method set covers the interface (`Possible`).

use rustc_hash::FxHashMap as HashMap;
use rustc_hash::FxHashSet as HashSet;
use smallvec::SmallVec;

use super::go_std;
use super::{Builder, DeclId, SourceFile};
use crate::lang::go::{
    Binding, ElemKey, ExprId, FORWARDED_RETURN, GoExpr, GoFacts, GoField, GoFunc, GoType,
    GoTypeBody, TypeId,
};
use crate::lang::{FileFacts, LangFacts};
use crate::model::{Confidence, DeclKind, Lang, Sym};

/// Import path of every Go file: the module path of the nearest enclosing
/// `go.mod` plus the directory below it; without a go.mod, the directory.
pub fn package_paths(
    files: &[SourceFile],
    go_files: &[u32],
    go_modules: &[(String, String)],
) -> HashMap<u32, String> {
    let mut out = HashMap::default();
    for &i in go_files {
        let path = files[i as usize].path;
        let dir = path.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
        let module = go_modules
            .iter()
            .filter(|(mdir, _)| {
                mdir.is_empty() || dir == mdir || dir.starts_with(&format!("{mdir}/"))
            })
            .max_by_key(|(mdir, _)| mdir.len());
        let external_test = match &files[i as usize].facts.lang_facts {
            LangFacts::Go(g) => files[i as usize].facts.sym(g.package).ends_with("_test"),
            _ => false,
        };
        let import = match module {
            Some((mdir, mpath)) => {
                let rest = dir
                    .strip_prefix(mdir.as_str())
                    .unwrap_or("")
                    .trim_start_matches('/');
                if rest.is_empty() {
                    mpath.clone()
                } else if mpath == "std" {
                    // Go's own source tree (`src/go.mod` says `module std`):
                    // its packages are imported as `fmt`, `net/http`.
                    rest.to_owned()
                } else {
                    format!("{mpath}/{rest}")
                }
            }
            None => {
                if dir.is_empty() {
                    match &files[i as usize].facts.lang_facts {
                        LangFacts::Go(g) => files[i as usize].facts.sym(g.package).to_owned(),
                        _ => String::new(),
                    }
                } else {
                    dir.to_owned()
                }
            }
        };
        // `package foo_test` files form their own package (`path_test` in SSA).
        let import = if external_test {
            format!("{import}_test")
        } else {
            import
        };
        out.insert(i, import);
    }
    out
}

/// `(*T).M` → `(*pkg.T).M`, `F` → `pkg.F`, `F$1` → `pkg.F$1`.
pub fn qualified_name(pkg: &str, local: &str) -> String {
    if let Some(rest) = local.strip_prefix("(*") {
        format!("(*{pkg}.{rest}")
    } else if let Some(rest) = local.strip_prefix('(') {
        format!("({pkg}.{rest}")
    } else {
        format!("{pkg}.{local}")
    }
}

/// Whether a type has a part not known (`Box[T]` outside a call that
/// binds T).
fn has_unknown(t: &RType) -> bool {
    match t {
        RType::Unknown => true,
        RType::Pointer(t) | RType::Slice(t) | RType::Map(t) | RType::Chan(t) => has_unknown(t),
        RType::Named(_, _, args) => args.iter().any(has_unknown),
        _ => false,
    }
}

/// An interface method as a file writes it: (name, file context,
/// parameter types, result types).
type Signature<'a> = (&'a str, usize, &'a [TypeId], &'a [TypeId]);

/// A method's parameter count, as interface method sets compare them.
fn arity(params: &[TypeId]) -> u16 {
    params.len().min(u16::MAX as usize) as u16
}

/// Type parameters bound to type arguments: (parameter name, argument).
type TypeEnv<'a> = Vec<(&'a str, RType)>;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum PkgRef {
    Repo(usize),
    Ext(String),
}

#[derive(Debug, Clone, PartialEq)]
enum RType {
    Unknown,
    /// A named type with the type arguments of an instantiated generic
    /// type (`Stack[Shape]`); none otherwise.
    Named(PkgRef, String, Vec<RType>),
    Pointer(Box<RType>),
    Slice(Box<RType>),
    Map(Box<RType>),
    Chan(Box<RType>),
    Func(Vec<RType>),
    /// A type used as a value (`T.Method`, conversions).
    TypeValue(Box<RType>),
    /// An anonymous struct or interface type, as written in a file: (file
    /// context, type).
    Struct(usize, TypeId),
}

impl RType {
    fn deref(&self) -> &RType {
        match self {
            RType::Pointer(inner) => inner,
            other => other,
        }
    }
}

struct Ctx<'a> {
    file: u32,
    facts: &'a crate::lang::FileFacts,
    go: &'a GoFacts,
    base: DeclId,
    pkg: usize,
    imports: HashMap<&'a str, &'a str>,
    /// Paths imported with `import . "path"`, whose exported names the
    /// file uses unqualified (external test packages, DSLs such as Gomega).
    dot_imports: Vec<&'a str>,
    /// (scope, name) → bindings
    bindings: HashMap<(u32, Sym), SmallVec<[&'a Binding; 1]>>,
}

#[derive(Default)]
struct Package {
    path: String,
    funcs: HashMap<String, (usize, u32)>,
    types: HashMap<String, (usize, usize)>,
    /// Methods by receiver type name, then method name (two levels, so a
    /// lookup borrows its keys instead of building a pair of strings).
    methods: HashMap<String, HashMap<String, DeclId>>,
    vars: HashMap<String, (usize, u32)>,
    /// What functions of any of its files store in each package-level
    /// variable (`GoFacts::global_writes`).
    var_writes: HashMap<String, Vec<ValueSource>>,
    init: Option<DeclId>,
}

struct Analysis<'a> {
    ctxs: Vec<Ctx<'a>>,
    pkgs: Vec<Package>,
    pkg_by_path: HashMap<String, usize>,
    /// Each function and method with the file it is declared in.
    func_results: HashMap<DeclId, (usize, &'a GoFunc)>,
    implementors: HashMap<(usize, String), Vec<(usize, String)>>,
    returns_of: HashMap<DeclId, Vec<(usize, u32, u8, ExprId)>>,
    params_of: HashMap<DeclId, &'a [Option<Sym>]>,
    param_sources: HashMap<(DeclId, usize), Vec<ValueSource>>,
    /// Methods on a named function type, by their receiver's variable
    /// (`mw` in `func (mw MiddlewareFunc) Middleware(h) { return mw(h) }`).
    func_receivers: HashMap<DeclId, Sym>,
    /// The receivers such methods are called on (`r.middlewares[i]` in
    /// `r.middlewares[i].Middleware(h)`): the functions `mw(h)` calls.
    receiver_sources: HashMap<DeclId, Vec<ValueSource>>,
    /// Parameters passed more arguments than `param_sources` keeps.
    param_overflow: HashSet<(DeclId, usize)>,
    /// Values assigned to struct fields, by (package, declaring type, field).
    field_sources: HashMap<(usize, String, String), Vec<ValueSource>>,
    /// Fields assigned more values than `field_sources` keeps.
    field_overflow: HashSet<(usize, String, String)>,
    /// (package, name) of each repository type, by its declaration.
    type_names: HashMap<DeclId, (usize, String)>,
    /// Whether interface calls are narrowed to the types that flow to
    /// their receiver: off while parameter sources are being collected,
    /// since the flow reads them.
    narrow_interface_calls: bool,
    /// Element values of each composite literal: (file, expression) → (scope, value).
    composite_elems: HashMap<(usize, ExprId), Vec<(u32, ExprId)>>,
    trace_memo: HashMap<TraceKey, Vec<DeclId>>,
    /// Repository types handed to each package outside the repository
    /// (as traced types), by import path.
    handed_to_library: HashMap<String, Vec<DeclId>>,
    /// Functions (declarations and literals) handed to each package
    /// outside the repository (`cache.Store(t, encoderFunc(f))`), which its
    /// containers may give back.
    funcs_handed_to_library: HashMap<String, Vec<DeclId>>,
    /// Calls inside a trace whose callees are being found from depth 0.
    fresh_callee_nesting: u32,
    /// Traces being computed, and those of them that a trace nested in
    /// them read back (the head of a cycle: `state = state(l)`).
    trace_active: HashSet<TraceKey>,
    trace_heads: HashSet<TraceKey>,
    /// Traces finished since the outermost one began, in order: what a
    /// cycle head discards when it goes round again.
    trace_log: Vec<TraceKey>,
    /// Functions of other modules used as values (`Map(xs, strconv.Itoa)`),
    /// which traced values name by `EXTERNAL_VALUE + index`.
    external_values: Vec<String>,
    /// Index of each name in `external_values`.
    external_value_ids: HashMap<String, DeclId>,
    /// Import paths some file of the repository imports.
    imported_paths: Option<HashSet<String>>,
    /// Standard-library types the repository names or gets from a
    /// standard-library function (`bufio.NewWriter` → `bufio.Writer`), as
    /// (import path, type name): the outside types whose values may sit
    /// behind one of the repository's interfaces.
    used_std_types: Option<Vec<(String, String)>>,
    /// Memo of [`Analysis::std_implementors`] by (package, interface).
    std_implementors: HashMap<(usize, String), Vec<(String, String)>>,
    /// Memo of interface method calls by (package, interface, method); a
    /// method set of an interface outside the repository or an anonymous
    /// one is keyed by `usize::MAX` and [`methods_key`].
    interface_calls: HashMap<(usize, String, String), Option<Vec<Callee>>>,
    /// Repository types that may have a method, by its name: those that
    /// declare it, then (for every name) the structs with embedded fields,
    /// which may have it by promotion. Implementor searches check these
    /// instead of every type of every package.
    declared_by: HashMap<String, Vec<(usize, String)>>,
    embedders: Vec<(usize, String)>,
}

/// A method set as one string (`Read/1,Close/0`), the key of memos by method set.
fn methods_key(methods: &[(&str, u16)]) -> String {
    methods
        .iter()
        .map(|(m, a)| format!("{m}/{a}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// Traced function values at or above this id are `external_values`
/// (declaration ids never come near it).
const EXTERNAL_VALUE: DeclId = 1 << 31;

const BUILTIN_FUNCS: &[&str] = &[
    "append", "cap", "clear", "close", "complex", "copy", "delete", "imag", "len", "make", "max",
    "min", "new", "panic", "print", "println", "real", "recover",
];

/// How deep a trace of values goes before it gives up (unknown). An error
/// gathered in a slice from another package's method and from errors.New
/// (`errs = append(errs, err)`) takes 17; a trace cut short makes a call
/// through an interface reach every implementation, which costs more than
/// the deeper trace.
const MAX_FLOW_DEPTH: u32 = 20;

type TraceKey = (usize, u32, Traced);

/// Rounds a cycle of function values goes before its value is taken as is.
const MAX_TRACE_ROUNDS: u32 = 8;
/// Function values one expression may hold before the rest are dropped: a
/// lexer's state functions or a table of handlers number in the dozens.
const MAX_FUNC_VALUES: usize = 64;

/// What a function value, or the concrete types behind an interface
/// value, is traced from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Traced {
    Name(Sym),
    Expr(ExprId),
    TypesOfName(Sym),
    TypesOfExpr(ExprId),
    /// The `n`-th result of a call.
    TypesOfCall(u32, u8),
}

/// Values or arguments kept per parameter or field; past it the list is
/// marked overflowing (what flows there is then unknown).
const MAX_SOURCES: usize = 64;

/// In a traced set of types: some value whose type could not be traced
/// (the set stands for every type).
const FLOW_UNKNOWN: DeclId = EXTERNAL_VALUE - 1;
/// In a traced set of types: a value of a type from outside the repository.
const FLOW_EXTERNAL: DeclId = EXTERNAL_VALUE - 2;

/// Add a traced type; too many, or an unknown one, make the set unknown.
/// Types from outside the repository are named as external values are
/// (`EXTERNAL_VALUE + index`).
fn push_flow(out: &mut Vec<DeclId>, d: DeclId) {
    if out.first() == Some(&FLOW_UNKNOWN) || out.contains(&d) {
        return;
    }
    if d == FLOW_UNKNOWN || out.len() >= MAX_FUNC_VALUES {
        out.clear();
        out.push(FLOW_UNKNOWN);
    } else {
        out.push(d);
    }
}

/// Where a value comes from: (file context, scope, expression).
type ValueSource = (usize, u32, ExprId);

/// What a local variable may hold (see `Analysis::local_sources`).
#[derive(Default)]
struct LocalSources {
    values: Vec<ValueSource>,
    /// Some of it comes from where no source is known: a parameter of a
    /// function called from outside (or with too many callers to keep).
    opaque: bool,
    /// A parameter of a standard-library interface type, of a function
    /// the repository hands to a library and nothing in it calls: what the
    /// library passes (the http.ResponseWriter of a handler).
    from_library: bool,
}

fn push_decl(out: &mut Vec<DeclId>, d: DeclId) {
    if out.len() < MAX_FUNC_VALUES && !out.contains(&d) {
        out.push(d);
    }
}

/// Standard-library interfaces with exactly one implementation in every
/// program: a call through one can only reach that type's method, and call
/// graphs (which never contain interface methods) name it so.
const SOLE_IMPLEMENTATIONS: &[(&str, &str)] = &[("reflect.Type", "*reflect.rtype")];

/// SSA name of a method of a type outside the repository. Whether it has a
/// pointer receiver is not known here; Go takes the address of addressable
/// values, so pointer is the better guess except for the standard
/// library's value types.
fn external_method(path: &str, tname: &str, method: &str) -> String {
    let qualified = format!("{path}.{tname}");
    if let Some((_, concrete)) = SOLE_IMPLEMENTATIONS.iter().find(|(i, _)| *i == qualified) {
        return format!("({concrete}).{method}");
    }
    let std = go_std::std();
    if std.interface(&qualified).is_some() {
        return format!("({qualified}).{method}");
    }
    // A call of a promoted method names the method where it is declared.
    if let Some((origin, pointer)) = std.promoted_from(&qualified, method) {
        return if pointer {
            format!("(*{origin}).{method}")
        } else {
            format!("({origin}).{method}")
        };
    }
    match std.method(&qualified, method) {
        Some((false, _)) => format!("({qualified}).{method}"),
        // A pointer receiver, or a type outside the standard library (or a
        // promoted method) whose receiver is not known: Go takes the
        // address of addressable values, so a pointer is the better guess.
        _ => format!("(*{qualified}).{method}"),
    }
}

/// The import path of a function or method outside the repository, from
/// its SSA name: `flag.Var` and `(*flag.FlagSet).Var` are package flag's.
fn external_package(name: &str) -> Option<&str> {
    let name = name.trim_start_matches('(').trim_start_matches('*');
    let qualified = match name.find(')') {
        Some(end) => &name[..end],
        None => name,
    };
    qualified.rsplit_once('.').map(|(path, _)| path)
}

/// A receiver's type without its type parameters (`Stack[T]` is `Stack`).
fn receiver_type_name(recv: &str) -> &str {
    recv.split('[').next().unwrap_or(recv)
}

/// Whether result `n` of the function or method `name` outside the
/// repository may be any value (`any`, or a library the standard-library
/// table does not know), rather than one of a type the library makes
/// (`context.WithCancel`'s CancelFunc).
fn library_result_may_hold_anything(name: &str, n: u8) -> bool {
    let std = go_std::std();
    let results = match name.strip_prefix('(') {
        Some(method) => {
            let Some((ty, m)) = method.split_once(").") else {
                return true;
            };
            match std.method_shape(ty.trim_start_matches('*'), m) {
                Some((_, results)) => results,
                None => return !std.is_type(ty.trim_start_matches('*')),
            }
        }
        None => match std.func_results(name) {
            Some(results) => results,
            None => return true,
        },
    };
    results
        .get(n as usize)
        .is_none_or(|t| matches!(*t, "any" | "interface{}"))
}

/// The methods (with parameter counts) of a standard-library interface.
fn std_interface(qualified: &str) -> Option<&'static [(&'static str, u16)]> {
    if qualified == "error" {
        return Some(&[("Error", 0)]);
    }
    go_std::std().interface(qualified)
}

/// An interface method to implement: name, parameter count, and its
/// result types as the table spells them (None where unknown).
type WantedMethod = (String, u16, Option<Vec<Option<String>>>);

/// A type as the standard-library table spells it (`*bufio.Writer`,
/// `[]byte` as `[]uint8`), or None for a type it cannot be compared by.
fn std_spelling(t: &RType) -> Option<String> {
    match t {
        RType::Named(PkgRef::Ext(path), name, ..) if path.is_empty() => {
            Some(canonical_basic(name).to_owned())
        }
        RType::Named(PkgRef::Ext(path), name, ..) => Some(format!("{path}.{name}")),
        RType::Pointer(inner) => std_spelling(inner).map(|s| format!("*{s}")),
        RType::Slice(inner) => std_spelling(inner).map(|s| format!("[]{s}")),
        _ => None,
    }
}

/// `byte` and `rune` are aliases: compare them as what they alias.
fn canonical_basic(name: &str) -> &str {
    match name {
        "byte" => "uint8",
        "rune" => "int32",
        "[]byte" => "[]uint8",
        other => other,
    }
}

const BUILTIN_TYPES: &[&str] = &[
    "bool",
    "byte",
    "complex64",
    "complex128",
    "error",
    "float32",
    "float64",
    "int",
    "int8",
    "int16",
    "int32",
    "int64",
    "rune",
    "string",
    "uint",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "uintptr",
    "any",
    "comparable",
];

pub fn resolve(b: &mut Builder, files: &[SourceFile], go_files: &[u32]) {
    if go_files.is_empty() {
        return;
    }
    let mut a = Analysis {
        ctxs: Vec::new(),
        pkgs: Vec::new(),
        pkg_by_path: HashMap::default(),
        func_results: HashMap::default(),
        implementors: HashMap::default(),
        used_std_types: None,
        std_implementors: HashMap::default(),
        returns_of: HashMap::default(),
        params_of: HashMap::default(),
        param_sources: HashMap::default(),
        func_receivers: HashMap::default(),
        receiver_sources: HashMap::default(),
        param_overflow: HashSet::default(),
        field_sources: HashMap::default(),
        field_overflow: HashSet::default(),
        type_names: HashMap::default(),
        narrow_interface_calls: false,
        composite_elems: HashMap::default(),
        trace_memo: HashMap::default(),
        fresh_callee_nesting: 0,
        handed_to_library: HashMap::default(),
        funcs_handed_to_library: HashMap::default(),
        trace_active: HashSet::default(),
        trace_heads: HashSet::default(),
        trace_log: Vec::new(),
        external_values: Vec::new(),
        external_value_ids: HashMap::default(),
        imported_paths: None,
        interface_calls: HashMap::default(),
        declared_by: HashMap::default(),
        embedders: Vec::new(),
    };
    // An import without an alias is known by the imported package's own
    // name (`github.com/pelletier/go-toml` declares `package toml`), which
    // extraction could only guess from the path.
    let mut declared_names: HashMap<&str, &str> = HashMap::default();
    for &fi in go_files {
        let facts = files[fi as usize].facts;
        if let LangFacts::Go(go) = &facts.lang_facts {
            let name = facts.sym(go.package);
            if !name.is_empty() && !name.ends_with("_test") {
                declared_names.insert(b.res.file_module[fi as usize].as_str(), name);
            }
        }
    }
    for &fi in go_files {
        let facts = files[fi as usize].facts;
        let LangFacts::Go(go) = &facts.lang_facts else {
            continue;
        };
        let path = b.res.file_module[fi as usize].clone();
        let pkg = match a.pkg_by_path.get(&path) {
            Some(&p) => p,
            None => {
                a.pkgs.push(Package {
                    path: path.clone(),
                    ..Default::default()
                });
                a.pkg_by_path.insert(path, a.pkgs.len() - 1);
                a.pkgs.len() - 1
            }
        };
        let mut bindings: HashMap<(u32, Sym), SmallVec<[&Binding; 1]>> = HashMap::default();
        for (scope, name, bind) in &go.bindings {
            bindings.entry((*scope, *name)).or_default().push(bind);
        }
        let mut imports: HashMap<&str, &str> = HashMap::default();
        let mut declared_imports = Vec::new();
        for (l, p) in go
            .imports
            .iter()
            .map(|(l, p)| (facts.sym(*l), facts.sym(*p)))
        {
            if l != "." {
                imports.insert(l, p);
            }
            // An alias that happens to equal the guess keeps working too.
            if let Some(&declared) = declared_names.get(p)
                && declared != l
                && l == crate::lang::go::default_import_name(p)
            {
                declared_imports.push((declared, p));
            }
        }
        for (declared, p) in declared_imports {
            imports.entry(declared).or_insert(p);
        }
        let dot_imports = go
            .imports
            .iter()
            .filter(|(l, _)| facts.sym(*l) == ".")
            .map(|(_, p)| facts.sym(*p))
            .collect();
        a.ctxs.push(Ctx {
            file: fi,
            facts,
            go,
            base: b.res.file_base[fi as usize],
            pkg,
            imports,
            dot_imports,
            bindings,
        });
    }
    for (ci, c) in a.ctxs.iter().enumerate() {
        for &(scope, pos, e) in &c.go.returns {
            a.returns_of
                .entry(c.base + scope)
                .or_default()
                .push((ci, scope, pos, e));
        }
        for (decl, order) in &c.go.params {
            a.params_of.insert(c.base + decl, order.as_slice());
        }
    }
    // Package symbol tables.
    let mut init_counts: HashMap<usize, u32> = HashMap::default();
    // Per file: each `init()`'s number; per package: its closures outside
    // any function, numbered across its files.
    let mut init_numbers: HashMap<u32, u32> = HashMap::default();
    let mut package_closures: HashMap<String, u32> = HashMap::default();
    for ci in 0..a.ctxs.len() {
        let (pkg, base, facts, go) = (
            a.ctxs[ci].pkg,
            a.ctxs[ci].base,
            a.ctxs[ci].facts,
            a.ctxs[ci].go,
        );
        let p = &mut a.pkgs[pkg];
        if p.init.is_none() {
            p.init = Some(base);
        }
        for (fi, f) in go.funcs.iter().enumerate() {
            let name = facts.sym(f.name).to_owned();
            let id = base + f.decl;
            a.func_results.insert(id, (ci, f));
            match &f.recv {
                Some((recv, _)) => {
                    let recv = receiver_type_name(facts.sym(*recv)).to_owned();
                    p.methods.entry(recv).or_default().insert(name, id);
                }
                None if name == "init" => {
                    let n = init_counts.entry(pkg).or_insert(0);
                    *n += 1;
                    b.res.decls[id as usize].name = format!("{}.init#{n}", p.path).into();
                    init_numbers.insert(f.decl, *n);
                }
                None => {
                    p.funcs.insert(name, (ci, fi as u32));
                }
            }
        }
        name_init_closures(
            b,
            facts,
            base,
            &p.path,
            &init_numbers,
            &mut package_closures,
        );
        init_numbers.clear();
        for (ti, t) in go.type_decls.iter().enumerate() {
            let name = facts.sym(t.name).to_owned();
            a.type_names.insert(base + t.decl, (pkg, name.clone()));
            p.types.insert(name, (ci, ti));
        }
        for (scope, name, _) in &go.bindings {
            if *scope == 0 {
                p.vars.insert(facts.sym(*name).to_owned(), (ci, *name));
            }
        }
        for &(scope, name, value) in &go.global_writes {
            p.var_writes
                .entry(facts.sym(name).to_owned())
                .or_default()
                .push((ci, scope, value));
        }
    }
    // The synthetic package initializer calls each source `init()`.
    for ci in 0..a.ctxs.len() {
        let (pkg, base, go) = (a.ctxs[ci].pkg, a.ctxs[ci].base, a.ctxs[ci].go);
        let init = a.pkgs[pkg].init.unwrap_or(base);
        for f in &go.funcs {
            let id = base + f.decl;
            if f.recv.is_none() && b.res.decls[id as usize].name.contains(".init#") {
                b.edge(init, id, Confidence::Certain, a.ctxs[ci].file, u32::MAX);
            }
        }
    }
    // Before those, it runs the initializer of every package the package
    // imports, blank imports included: x/tools SSA calls it `path.init`,
    // in the repository or out. Test files' imports belong to the test
    // variant of the package, which is not modelled apart.
    let mut imported: HashSet<(usize, &str)> = HashSet::default();
    for c in &a.ctxs {
        if files[c.file as usize].path.ends_with("_test.go") {
            continue;
        }
        let Some(init) = a.pkgs[c.pkg].init else {
            continue;
        };
        for &(_, path) in &c.go.imports {
            let path = c.facts.sym(path);
            // `C` is cgo's pseudo-package; `unsafe` does get a call.
            if path == "C" || !imported.insert((c.pkg, path)) {
                continue;
            }
            let callee = match a.pkg_by_path.get(path).and_then(|&p| a.pkgs[p].init) {
                Some(d) => d,
                None => b.external(&format!("{path}.init"), Lang::Go),
            };
            if callee != init {
                b.edge(init, callee, Confidence::Certain, c.file, u32::MAX);
            }
        }
    }
    // Package imports inside the repository (for import cycles).
    let first_file: HashMap<usize, u32> = a.ctxs.iter().rev().map(|c| (c.pkg, c.file)).collect();
    for c in &a.ctxs {
        for path in c.imports.values().chain(c.dot_imports.iter()) {
            if let Some(&p) = a.pkg_by_path.get(*path)
                && p != c.pkg
                && let Some(&f) = first_file.get(&p)
            {
                b.res.imports.push((c.file, f));
            }
        }
    }
    // `hooks.OnError = alert` in another package writes that package's
    // variable, which its readers then hold.
    let mut foreign_writes = Vec::new();
    for ci in 0..a.ctxs.len() {
        for &(scope, target, value) in &a.ctxs[ci].go.field_assigns {
            let GoExpr::Selector(base, name) = *a.expr(ci, target) else {
                continue;
            };
            if let Some(PkgRef::Repo(p)) = a.package_operand(ci, scope, base) {
                let name = a.sym(ci, name);
                if a.pkgs[p].vars.contains_key(name) {
                    foreign_writes.push((p, name.to_owned(), (ci, scope, value)));
                }
            }
        }
    }
    for (p, name, source) in foreign_writes {
        a.pkgs[p].var_writes.entry(name).or_default().push(source);
    }
    a.index_method_holders();
    crate::memory::trace("go: symbol tables");
    a.collect_field_sources();
    crate::memory::trace("go: field sources");
    a.find_func_receivers();
    // Function values passed as arguments: two passes let values travel
    // through one function into another.
    a.collect_param_sources();
    a.collect_param_sources();
    crate::memory::trace("go: parameter sources");
    a.narrow_interface_calls = true;
    for ci in 0..a.ctxs.len() {
        for call in 0..a.ctxs[ci].go.calls.len() {
            a.emit(b, ci, call);
        }
    }
    crate::memory::trace("go: emitted");
    // Per-file package-level decls merge into one `pkg.init`.
    let redirect: HashMap<DeclId, DeclId> = a
        .ctxs
        .iter()
        .filter_map(|c| {
            let canonical = a.pkgs[c.pkg].init.unwrap_or(c.base);
            (canonical != c.base).then_some((c.base, canonical))
        })
        .collect();
    for e in &mut b.res.edges {
        if let Some(&to) = redirect.get(&e.caller) {
            e.caller = to;
        }
    }
    for u in &mut b.res.unresolved {
        if let Some(&to) = redirect.get(&u.caller) {
            u.caller = to;
        }
    }
    let _ = DeclKind::Package;
}

/// Add a possible call of an external method, once.
fn push_external(out: &mut Vec<Callee>, method: String) {
    if !out
        .iter()
        .any(|c| matches!(c, Callee::ExternalValue(k, _) if *k == method))
    {
        out.push(Callee::ExternalValue(method, Confidence::Possible));
    }
}

/// Closures named as go/ssa names them: those inside the n-th `init()`
/// are `pkg.init#n$1`, and those in package-level initializers are
/// `pkg.init$1`, `pkg.init$2`… across the package's files in order (SSA
/// numbers them in initialization order, which follows dependencies;
/// file order agrees wherever no initializer depends on a later one).
/// Extraction named both `init$1` within each file.
fn name_init_closures(
    b: &mut Builder,
    facts: &FileFacts,
    base: DeclId,
    path: &str,
    init_numbers: &HashMap<u32, u32>,
    package_closures: &mut HashMap<String, u32>,
) {
    let mut top_numbers: HashMap<u32, u32> = HashMap::default();
    for (li, d) in facts.decls.iter().enumerate() {
        if d.kind != DeclKind::Closure {
            continue;
        }
        // The outermost closure around this one, and what encloses that.
        let mut top = li as u32;
        let mut root = d.parent;
        while let Some(r) = root {
            match facts.decls.get(r as usize) {
                Some(p) if p.kind == DeclKind::Closure => {
                    top = r;
                    root = p.parent;
                }
                _ => break,
            }
        }
        let Some(rest) = d.local_name.strip_prefix("init$") else {
            continue;
        };
        let root_decl = root.and_then(|r| facts.decls.get(r as usize));
        let name = match root_decl.map(|r| r.kind) {
            Some(DeclKind::Function) => match root.and_then(|r| init_numbers.get(&r)) {
                Some(n) => format!("{path}.init#{n}${rest}"),
                None => continue,
            },
            None | Some(DeclKind::Package) => {
                let number = match top_numbers.get(&top) {
                    Some(&n) => n,
                    None => {
                        let n = package_closures.entry(path.to_owned()).or_insert(0);
                        *n += 1;
                        top_numbers.insert(top, *n);
                        *n
                    }
                };
                // `rest` is the file's number of the outermost closure, then
                // any nested numbers (`2$1`).
                let nested = rest.find('$').map_or("", |i| &rest[i..]);
                format!("{path}.init${number}{nested}")
            }
            _ => continue,
        };
        if let Some(decl) = b.res.decls.get_mut((base + li as u32) as usize) {
            decl.name = name.into();
        }
    }
}

#[derive(Clone)]
enum Callee {
    Decl(DeclId, Confidence),
    External(String),
    /// A function of another module reached through a function value.
    ExternalValue(String, Confidence),
    /// Known not to be a call of code (builtin, conversion).
    NotACall,
    Unresolved(String),
    /// A repository function that a library method the call reaches runs
    /// in turn: `(net/http.HandlerFunc).ServeHTTP` calls the `f` converted
    /// to it. The edge is the library method's, not the caller's (which
    /// has its own edge to that method).
    Through(String, DeclId),
}

impl<'a> Analysis<'a> {
    fn sym(&self, ci: usize, s: Sym) -> &'a str {
        self.ctxs[ci].facts.sym(s)
    }

    fn expr(&self, ci: usize, e: ExprId) -> &'a GoExpr {
        self.ctxs[ci]
            .go
            .exprs
            .get(e as usize)
            .unwrap_or(&GoExpr::Unknown)
    }

    fn scope_parent(&self, ci: usize, scope: u32) -> Option<u32> {
        let d = self.ctxs[ci].facts.decls.get(scope as usize)?;
        if scope == 0 {
            None
        } else {
            Some(d.parent.unwrap_or(0))
        }
    }

    /// The binding of a local name, searching enclosing closures, then package level.
    fn local(&self, ci: usize, scope: u32, name: Sym) -> Option<(usize, &'a Binding)> {
        let mut s = Some(scope);
        while let Some(cur) = s {
            if let Some(list) = self.ctxs[ci].bindings.get(&(cur, name)) {
                // A declared type (parameter, `var x T`) is authoritative; else
                // the first value assigned, other than a range's first
                // variable (bindings are per function, and `for i := range
                // xs` is mostly an index, whose type is not tracked).
                let typed = list.iter().find(|b| matches!(b, Binding::Type(_)));
                let assigned = list.iter().find(|b| {
                    !matches!(b, Binding::Value(e) if matches!(self.expr(ci, *e), GoExpr::RangeKey(_)))
                });
                return typed.or(assigned).or(list.first()).map(|b| (ci, *b));
            }
            s = self.scope_parent(ci, cur);
        }
        // Package-level variables of other files of the same package.
        let text = self.sym(ci, name);
        let (vci, vname) = *self.pkgs[self.ctxs[ci].pkg].vars.get(text)?;
        self.ctxs[vci]
            .bindings
            .get(&(0, vname))
            .and_then(|l| l.first())
            .map(|b| (vci, *b))
    }

    fn resolve_type(&self, ci: usize, t: TypeId, depth: u32) -> RType {
        self.resolve_type_in(ci, t, depth, &[])
    }

    /// A type as file `ci` writes it, with the type parameters `env`
    /// binds replaced by their arguments (`T` in a method of `Stack[T]`
    /// called on a `Stack[Shape]`).
    fn resolve_type_in(&self, ci: usize, t: TypeId, depth: u32, env: &[(&str, RType)]) -> RType {
        if depth > 12 {
            return RType::Unknown;
        }
        let go = self.ctxs[ci].go;
        let args = || self.type_args(ci, t, depth, env);
        match go.types.get(t as usize).unwrap_or(&GoType::Unknown) {
            GoType::Unknown => RType::Unknown,
            GoType::Named { pkg: None, name } => {
                let name = self.sym(ci, *name);
                if let Some((_, bound)) = env.iter().find(|(n, _)| *n == name) {
                    return bound.clone();
                }
                if BUILTIN_TYPES.contains(&name) {
                    return RType::Named(PkgRef::Ext(String::new()), name.to_owned(), Vec::new());
                }
                let pkg = self.ctxs[ci].pkg;
                if self.pkgs[pkg].types.contains_key(name) {
                    return RType::Named(PkgRef::Repo(pkg), name.to_owned(), args());
                }
                match self.dot_package(ci, name) {
                    Some(PkgRef::Repo(p)) if !self.pkgs[p].types.contains_key(name) => {
                        RType::Unknown
                    }
                    Some(dot) => RType::Named(dot, name.to_owned(), args()),
                    None => RType::Unknown,
                }
            }
            GoType::Named {
                pkg: Some(alias),
                name,
            } => {
                let alias = self.sym(ci, *alias);
                let name = self.sym(ci, *name).to_owned();
                match self.ctxs[ci].imports.get(alias) {
                    Some(path) => match self.pkg_by_path.get(*path) {
                        Some(&p) => RType::Named(PkgRef::Repo(p), name, args()),
                        None => RType::Named(PkgRef::Ext((*path).to_owned()), name, args()),
                    },
                    None => RType::Unknown,
                }
            }
            GoType::Pointer(inner) => {
                RType::Pointer(Box::new(self.resolve_type_in(ci, *inner, depth + 1, env)))
            }
            GoType::Slice(inner) => {
                RType::Slice(Box::new(self.resolve_type_in(ci, *inner, depth + 1, env)))
            }
            GoType::Map(_, v) => RType::Map(Box::new(self.resolve_type_in(ci, *v, depth + 1, env))),
            GoType::Chan(inner) => {
                RType::Chan(Box::new(self.resolve_type_in(ci, *inner, depth + 1, env)))
            }
            GoType::Func { results } => RType::Func(
                results
                    .iter()
                    .map(|r| self.resolve_type_in(ci, *r, depth + 1, env))
                    .collect(),
            ),
            GoType::Struct(_) | GoType::Interface(_) => RType::Struct(ci, t),
        }
    }

    /// The type arguments file `ci` gives the generic type `t`, if any.
    fn type_args(&self, ci: usize, t: TypeId, depth: u32, env: &[(&str, RType)]) -> Vec<RType> {
        self.ctxs[ci]
            .go
            .type_args_of(t)
            .iter()
            .map(|&a| self.resolve_type_in(ci, a, depth + 1, env))
            .collect()
    }

    /// What the type parameters of generic type `pkg.tname` stand for in
    /// an instance with `args`.
    fn type_env(&self, pkg: usize, tname: &str, args: &[RType]) -> TypeEnv<'a> {
        if args.is_empty() {
            return Vec::new();
        }
        let Some(&(tci, ti)) = self.pkgs[pkg].types.get(tname) else {
            return Vec::new();
        };
        self.bind_params(tci, &self.ctxs[tci].go.type_decls[ti].params, args)
    }

    /// Type parameters named in file `ci`, bound in order to `args`: a
    /// generic type's, or the names a method gives its receiver's.
    fn bind_params(&self, ci: usize, params: &[Sym], args: &[RType]) -> TypeEnv<'a> {
        params
            .iter()
            .zip(args)
            .map(|(&p, a)| (self.sym(ci, p), a.clone()))
            .collect()
    }

    fn binding_type(&self, ci: usize, scope: u32, b: &Binding, depth: u32) -> RType {
        match b {
            Binding::Type(t) => self.resolve_type(ci, *t, 0),
            Binding::Value(e) => self.type_of(ci, scope, *e, depth + 1),
        }
    }

    fn type_of(&self, ci: usize, scope: u32, e: ExprId, depth: u32) -> RType {
        if depth > 24 {
            return RType::Unknown;
        }
        match self.expr(ci, e) {
            GoExpr::Ident(n) => {
                if let Some((bci, b)) = self.local(ci, scope, *n) {
                    let bscope = if bci == ci { scope } else { 0 };
                    return self.binding_type(bci, bscope, b, depth);
                }
                let name = self.sym(ci, *n);
                let pkg = self.ctxs[ci].pkg;
                if let Some(&(fci, fi)) = self.pkgs[pkg].funcs.get(name) {
                    let f = &self.ctxs[fci].go.funcs[fi as usize];
                    return RType::Func(
                        f.results
                            .iter()
                            .map(|r| self.resolve_type(fci, *r, 0))
                            .collect(),
                    );
                }
                if self.pkgs[pkg].types.contains_key(name) || BUILTIN_TYPES.contains(&name) {
                    let t = if BUILTIN_TYPES.contains(&name) {
                        PkgRef::Ext(String::new())
                    } else {
                        PkgRef::Repo(pkg)
                    };
                    return RType::TypeValue(Box::new(RType::Named(
                        t,
                        name.to_owned(),
                        Vec::new(),
                    )));
                }
                match self.dot_package(ci, name) {
                    Some(pkg) => self.package_member_type(pkg, name, depth),
                    None => RType::Unknown,
                }
            }
            GoExpr::Selector(base, name) => {
                let name = self.sym(ci, *name);
                if let Some(pkg) = self.package_operand(ci, scope, *base) {
                    return self.package_member_type(pkg, name, depth);
                }
                let bt = self.type_of(ci, scope, *base, depth + 1);
                if let RType::Named(PkgRef::Ext(path), tname, ..) = bt.deref()
                    && !path.is_empty()
                {
                    let qualified = format!("{path}.{tname}");
                    let std = go_std::std();
                    if let Some(ft) = std.field(&qualified, name) {
                        return self.std_type(ft);
                    }
                    let results = std
                        .method(&qualified, name)
                        .map(|(_, r)| r)
                        .or_else(|| std.interface_method_results(&qualified, name));
                    if let Some(results) = results {
                        return RType::Func(results.iter().map(|r| self.std_type(r)).collect());
                    }
                }
                if let RType::Struct(sci, t) = bt.deref()
                    && let Some(GoType::Struct(fields)) = self.ctxs[*sci].go.types.get(*t as usize)
                {
                    let field = fields
                        .iter()
                        .find(|f| f.name.is_some_and(|n| self.sym(*sci, n) == name));
                    return match field {
                        Some(f) => self.resolve_type(*sci, f.ty, depth + 1),
                        None => RType::Unknown,
                    };
                }
                if let RType::Named(PkgRef::Repo(p), tname, args) = bt.deref() {
                    if let Some(ft) = self.field_type(*p, tname, name, args, 0) {
                        return ft;
                    }
                    // A declared method's results, else an interface method's.
                    let results = self
                        .method(*p, tname, name, 0)
                        .and_then(|m| self.func_results.get(&m))
                        .map(|&(fci, f)| {
                            (
                                fci,
                                f.results.clone(),
                                self.bind_params(fci, &f.recv_params, args),
                            )
                        })
                        .or_else(|| {
                            let (fci, results) =
                                self.interface_method_results(*p, tname, name, 0)?;
                            Some((fci, results, self.type_env(*p, tname, args)))
                        });
                    if let Some((fci, results, env)) = results {
                        return RType::Func(
                            results
                                .iter()
                                .map(|r| self.resolve_type_in(fci, *r, 0, &env))
                                .collect(),
                        );
                    }
                }
                RType::Unknown
            }
            GoExpr::Call(c) => self.call_result(ci, scope, *c, 0, depth),
            GoExpr::Nth(inner, n) => match self.expr(ci, *inner) {
                GoExpr::Call(c) => self.call_result(ci, scope, *c, *n as usize, depth),
                GoExpr::TypeAssert(..) | GoExpr::Index(_) if *n == 0 => {
                    self.type_of(ci, scope, *inner, depth + 1)
                }
                GoExpr::TypeAssert(..) => RType::Unknown,
                _ if *n == 0 => self.type_of(ci, scope, *inner, depth + 1),
                _ => RType::Unknown,
            },
            GoExpr::Index(inner) => match self.underlying_type_of(ci, scope, *inner, depth + 1) {
                RType::Slice(t) | RType::Map(t) => *t,
                RType::Pointer(p) => match *p {
                    RType::Slice(t) => *t,
                    _ => RType::Unknown,
                },
                // `F[int]` instantiates a generic function: still F.
                f @ RType::Func(_) => f,
                tv @ RType::TypeValue(_) => tv,
                _ => RType::Unknown,
            },
            GoExpr::Deref(inner) => match self.type_of(ci, scope, *inner, depth + 1) {
                RType::Pointer(t) => *t,
                RType::TypeValue(t) => RType::TypeValue(Box::new(RType::Pointer(t))),
                _ => RType::Unknown,
            },
            GoExpr::AddrOf(inner) => {
                RType::Pointer(Box::new(self.type_of(ci, scope, *inner, depth + 1)))
            }
            GoExpr::Composite(t) | GoExpr::TypeAssert(_, t) => self.resolve_type(ci, *t, 0),
            // `for v := range ch`: the channel's element; an index or a
            // map key (not tracked) otherwise.
            GoExpr::RangeKey(inner) => {
                match self.underlying_type_of(ci, scope, *inner, depth + 1) {
                    RType::Chan(t) => *t,
                    _ => RType::Unknown,
                }
            }
            GoExpr::RangeValue(inner) => {
                match self.underlying_type_of(ci, scope, *inner, depth + 1) {
                    RType::Slice(t) | RType::Map(t) | RType::Chan(t) => *t,
                    RType::Pointer(p) => match *p {
                        RType::Slice(t) => *t,
                        _ => RType::Unknown,
                    },
                    _ => RType::Unknown,
                }
            }
            GoExpr::Type(t) => RType::TypeValue(Box::new(self.resolve_type(ci, *t, 0))),
            GoExpr::FuncLit(_) | GoExpr::Unknown => RType::Unknown,
        }
    }

    /// The type call `c` of file `ci` returns (its `n`-th result).
    fn call_result(&self, ci: usize, scope: u32, c: u32, n: usize, depth: u32) -> RType {
        let Some(call) = self.ctxs[ci].go.calls.get(c as usize) else {
            return RType::Unknown;
        };
        let (callee, args) = (call.callee, call.args.as_slice());
        if let GoExpr::Ident(name) = self.expr(ci, callee)
            && self.local(ci, scope, *name).is_none()
        {
            match self.sym(ci, *name) {
                "new" => {
                    return match args.first() {
                        Some(&a) => match self.type_of(ci, scope, a, depth + 1) {
                            RType::TypeValue(t) => RType::Pointer(t),
                            _ => RType::Unknown,
                        },
                        None => RType::Unknown,
                    };
                }
                "make" => {
                    return match args.first() {
                        Some(&a) => match self.type_of(ci, scope, a, depth + 1) {
                            RType::TypeValue(t) => *t,
                            _ => RType::Unknown,
                        },
                        None => RType::Unknown,
                    };
                }
                "append" => {
                    return args
                        .first()
                        .map(|&a| self.type_of(ci, scope, a, depth + 1))
                        .unwrap_or(RType::Unknown);
                }
                _ => {}
            }
        }
        let explicit = self.ctxs[ci].go.call_type_args_of(c);
        let result = match self.type_of(ci, scope, callee, depth + 1) {
            RType::Func(results) => results.into_iter().nth(n).unwrap_or(RType::Unknown),
            // `List[Shape](xs)` converts to the instance.
            RType::TypeValue(t) if n == 0 => match *t {
                RType::Named(pkg, name, args) if args.is_empty() && !explicit.is_empty() => {
                    let args = explicit
                        .iter()
                        .map(|&a| self.resolve_type(ci, a, 0))
                        .collect();
                    RType::Named(pkg, name, args)
                }
                t => t,
            },
            _ => RType::Unknown,
        };
        if has_unknown(&result)
            && let Some((fci, fi)) = self.repo_func(ci, scope, callee)
            && let Some(t) = self.inferred_result(fci, fi, n, (ci, scope), (args, explicit), depth)
        {
            return t;
        }
        result
    }

    /// The repository function a callee names (`F`, `pkg.F`, `F[int]`).
    fn repo_func(&self, ci: usize, scope: u32, callee: ExprId) -> Option<(usize, u32)> {
        match *self.expr(ci, callee) {
            GoExpr::Ident(name) if self.local(ci, scope, name).is_none() => self.pkgs
                [self.ctxs[ci].pkg]
                .funcs
                .get(self.sym(ci, name))
                .copied(),
            GoExpr::Selector(base, name) => match self.package_operand(ci, scope, base)? {
                PkgRef::Repo(p) => self.pkgs[p].funcs.get(self.sym(ci, name)).copied(),
                PkgRef::Ext(_) => None,
            },
            GoExpr::Index(inner) => self.repo_func(ci, scope, inner),
            _ => None,
        }
    }

    /// The n-th result of a call to generic function `fi` of file `fci`,
    /// its type parameters bound to the call's explicit type arguments
    /// (`Make[Sq]()`), then by unifying each parameter's type with its
    /// argument's: `Ident(ID(4))` is an ID, `First(ids)` an element of
    /// ids, `NewBox(&Circle{})` a `Box[*Circle]`.
    fn inferred_result(
        &self,
        fci: usize,
        fi: u32,
        n: usize,
        (ci, scope): (usize, u32),
        (args, explicit): (&[ExprId], &[TypeId]),
        depth: u32,
    ) -> Option<RType> {
        let go = self.ctxs[fci].go;
        let f = go.funcs.get(fi as usize)?;
        let result = *f.results.get(n)?;
        let params = self.params_of.get(&(self.ctxs[fci].base + f.decl))?;
        let mut env: TypeEnv = Vec::new();
        for (&p, &t) in f.type_params.iter().zip(explicit) {
            let t = self.resolve_type(ci, t, 0);
            if t != RType::Unknown {
                env.push((self.sym(fci, p), t));
            }
        }
        for (i, p) in params.iter().enumerate() {
            let Some(p) = p else { continue };
            let Some(&arg) = args.get(i) else { break };
            let Some(ty) = self.ctxs[fci].bindings.get(&(f.decl, *p)).and_then(|bs| {
                bs.iter().find_map(|b| match b {
                    Binding::Type(t) => Some(*t),
                    Binding::Value(_) => None,
                })
            }) else {
                continue;
            };
            let arg_type = self.type_of(ci, scope, arg, depth + 1);
            self.unify(fci, ty, arg_type, &mut env, 0);
        }
        if env.is_empty() {
            return None;
        }
        let t = self.resolve_type_in(fci, result, 0, &env);
        (t != RType::Unknown).then_some(t)
    }

    /// Binds the type parameters that type `t` of file `fci` spells to
    /// what `arg` has in their places (`[]T` against `[]Name`).
    fn unify(&self, fci: usize, t: TypeId, arg: RType, env: &mut TypeEnv<'a>, depth: u32) {
        if depth > 8 || arg == RType::Unknown {
            return;
        }
        let go = self.ctxs[fci].go;
        match go.types.get(t as usize) {
            Some(GoType::Named { pkg: None, name }) => {
                let name = self.sym(fci, *name);
                let declared = self.pkgs[self.ctxs[fci].pkg].types.contains_key(name);
                if !declared && !BUILTIN_TYPES.contains(&name) {
                    if !env.iter().any(|(n, _)| *n == name) {
                        env.push((name, arg));
                    }
                    return;
                }
                if let RType::Named(_, an, aargs) = arg
                    && an == name
                {
                    self.unify_args(fci, t, aargs, env, depth);
                }
            }
            Some(GoType::Named { pkg: Some(_), name }) => {
                if let RType::Named(_, an, aargs) = arg
                    && an == self.sym(fci, *name)
                {
                    self.unify_args(fci, t, aargs, env, depth);
                }
            }
            Some(&GoType::Pointer(inner)) => {
                if let RType::Pointer(a) = arg {
                    self.unify(fci, inner, *a, env, depth + 1);
                }
            }
            Some(&GoType::Slice(inner)) => {
                if let RType::Slice(a) = self.underlying(arg) {
                    self.unify(fci, inner, *a, env, depth + 1);
                }
            }
            Some(&GoType::Map(_, inner)) => {
                if let RType::Map(a) = self.underlying(arg) {
                    self.unify(fci, inner, *a, env, depth + 1);
                }
            }
            Some(&GoType::Chan(inner)) => {
                if let RType::Chan(a) = self.underlying(arg) {
                    self.unify(fci, inner, *a, env, depth + 1);
                }
            }
            _ => {}
        }
    }

    fn unify_args(
        &self,
        fci: usize,
        t: TypeId,
        args: Vec<RType>,
        env: &mut TypeEnv<'a>,
        depth: u32,
    ) {
        for (&p, a) in self.ctxs[fci].go.type_args_of(t).iter().zip(args) {
            self.unify(fci, p, a, env, depth + 1);
        }
    }

    /// A type as the standard-library table writes it (`*net/http.Request`,
    /// `[]reflect.Value`, `map[string]*T`); function and other composite
    /// types are not followed.
    fn std_type(&self, s: &str) -> RType {
        if let Some(rest) = s.strip_prefix('*') {
            return RType::Pointer(Box::new(self.std_type(rest)));
        }
        if let Some(rest) = s.strip_prefix("[]") {
            return RType::Slice(Box::new(self.std_type(rest)));
        }
        if let Some(rest) = s.strip_prefix("map[") {
            let mut open = 1;
            for (i, c) in rest.char_indices() {
                match c {
                    '[' => open += 1,
                    ']' => {
                        open -= 1;
                        if open == 0 {
                            return RType::Map(Box::new(self.std_type(&rest[i + 1..])));
                        }
                    }
                    _ => {}
                }
            }
            return RType::Unknown;
        }
        if let Some(rest) = s.strip_prefix("chan ") {
            return RType::Chan(Box::new(self.std_type(rest)));
        }
        if s == "error" {
            return RType::Named(PkgRef::Ext(String::new()), "error".to_owned(), Vec::new());
        }
        if s.contains(|c: char| "()[]{}, ".contains(c)) {
            return RType::Unknown;
        }
        match s.rsplit_once('.') {
            Some((path, name)) => match self.pkg_by_path.get(path) {
                Some(&p) => RType::Named(PkgRef::Repo(p), name.to_owned(), Vec::new()),
                None => RType::Named(PkgRef::Ext(path.to_owned()), name.to_owned(), Vec::new()),
            },
            None => RType::Unknown,
        }
    }

    /// If `e` names an imported package (not shadowed), which one.
    fn package_operand(&self, ci: usize, scope: u32, e: ExprId) -> Option<PkgRef> {
        let GoExpr::Ident(n) = self.expr(ci, e) else {
            return None;
        };
        if self.local(ci, scope, *n).is_some() {
            return None;
        }
        let path = *self.ctxs[ci].imports.get(self.sym(ci, *n))?;
        Some(match self.pkg_by_path.get(path) {
            Some(&p) => PkgRef::Repo(p),
            None => PkgRef::Ext(path.to_owned()),
        })
    }

    /// The dot-imported package an unqualified `name` (declared nowhere in
    /// the file's own package) comes from: the repository package among
    /// them that declares it, else the one out-of-repository dot import
    /// (with several, which one exports it is not known here).
    fn dot_package(&self, ci: usize, name: &str) -> Option<PkgRef> {
        let dots = &self.ctxs[ci].dot_imports;
        if dots.is_empty() || !name.starts_with(|c: char| c.is_uppercase()) {
            return None;
        }
        let mut external = None;
        let mut externals = 0;
        for path in dots {
            match self.pkg_by_path.get(*path) {
                Some(&p) => {
                    let pkg = &self.pkgs[p];
                    if pkg.funcs.contains_key(name)
                        || pkg.types.contains_key(name)
                        || pkg.vars.contains_key(name)
                    {
                        return Some(PkgRef::Repo(p));
                    }
                }
                None => {
                    externals += 1;
                    external = Some(PkgRef::Ext((*path).to_owned()));
                }
            }
        }
        if externals == 1 { external } else { None }
    }

    /// The type of `pkg.name`: a function's results, a variable's type, or
    /// the type itself (a conversion).
    fn package_member_type(&self, pkg: PkgRef, name: &str, depth: u32) -> RType {
        match pkg {
            PkgRef::Repo(p) => {
                if let Some(&(fci, fi)) = self.pkgs[p].funcs.get(name) {
                    let f = &self.ctxs[fci].go.funcs[fi as usize];
                    RType::Func(
                        f.results
                            .iter()
                            .map(|r| self.resolve_type(fci, *r, 0))
                            .collect(),
                    )
                } else if let Some(&(vci, vname)) = self.pkgs[p].vars.get(name) {
                    match self.ctxs[vci]
                        .bindings
                        .get(&(0, vname))
                        .and_then(|l| l.first())
                    {
                        Some(b) => self.binding_type(vci, 0, b, depth),
                        None => RType::Unknown,
                    }
                } else if self.pkgs[p].types.contains_key(name) {
                    RType::TypeValue(Box::new(RType::Named(
                        PkgRef::Repo(p),
                        name.to_owned(),
                        Vec::new(),
                    )))
                } else {
                    RType::Unknown
                }
            }
            // Whether `pkg.Name` is a type, a function or a variable is
            // not in the repository; for the standard library it is in
            // the table, and elsewhere guessing would invent methods.
            PkgRef::Ext(path) => {
                let qualified = format!("{path}.{name}");
                let std = go_std::std();
                if let Some(results) = std.func_results(&qualified) {
                    RType::Func(results.iter().map(|r| self.std_type(r)).collect())
                } else if let Some(t) = std.var_type(&qualified) {
                    self.std_type(t)
                } else if std.is_type(&qualified) {
                    RType::TypeValue(Box::new(RType::Named(
                        PkgRef::Ext(path),
                        name.to_owned(),
                        Vec::new(),
                    )))
                } else {
                    RType::Unknown
                }
            }
        }
    }

    /// What calling `pkg.name` reaches.
    fn package_member_callees(&mut self, pkg: PkgRef, name_s: &str, depth: u32) -> Vec<Callee> {
        match pkg {
            PkgRef::Repo(p) => {
                if let Some(&(fci, fi)) = self.pkgs[p].funcs.get(name_s) {
                    let d = self.ctxs[fci].base + self.ctxs[fci].go.funcs[fi as usize].decl;
                    vec![Callee::Decl(d, Confidence::Certain)]
                } else if self.pkgs[p].types.contains_key(name_s) {
                    vec![Callee::NotACall]
                } else if let Some(&(vci, vname)) = self.pkgs[p].vars.get(name_s) {
                    // `clock.Now()` with `var Now = time.Now`: what the
                    // package's variable holds.
                    let vals = self.ident_func_values(vci, 0, vname, depth + 1);
                    if vals.is_empty() {
                        vec![Callee::Unresolved(format!(
                            "`{name_s}` is a variable of {} with no traced function value",
                            self.pkgs[p].path
                        ))]
                    } else {
                        self.func_value_callees(vals)
                    }
                } else {
                    vec![Callee::Unresolved(format!(
                        "`{name_s}` is not a function of {}",
                        self.pkgs[p].path
                    ))]
                }
            }
            PkgRef::Ext(path) => {
                let qualified = format!("{path}.{name_s}");
                let std = go_std::std();
                // `http.HandlerFunc(f)` and `unsafe.Pointer(p)` convert;
                // they call nothing.
                if qualified == "unsafe.Pointer"
                    || (std.is_type(&qualified) && std.func_results(&qualified).is_none())
                {
                    vec![Callee::NotACall]
                } else {
                    vec![Callee::External(qualified)]
                }
            }
        }
    }

    /// The function `pkg.name` is, as a value.
    fn package_member_values(&mut self, pkg: PkgRef, name_s: &str, depth: u32) -> Vec<DeclId> {
        match pkg {
            PkgRef::Repo(p) => match self.pkgs[p].funcs.get(name_s) {
                Some(&(fci, fi)) => {
                    vec![self.ctxs[fci].base + self.ctxs[fci].go.funcs[fi as usize].decl]
                }
                None => match self.pkgs[p].vars.get(name_s) {
                    Some(&(vci, vname)) => self.ident_func_values(vci, 0, vname, depth + 1),
                    None => Vec::new(),
                },
            },
            PkgRef::Ext(path) => vec![self.external_value(format!("{path}.{name_s}"))],
        }
    }

    fn type_body(&self, pkg: usize, name: &str) -> Option<(usize, &'a GoTypeBody)> {
        let &(tci, ti) = self.pkgs[pkg].types.get(name)?;
        Some((tci, &self.ctxs[tci].go.type_decls[ti].body))
    }

    /// The type of field `field` of `pkg.tname` (an instance with `args`
    /// when the type is generic).
    fn field_type(
        &self,
        pkg: usize,
        tname: &str,
        field: &str,
        args: &[RType],
        depth: u32,
    ) -> Option<RType> {
        if depth > 4 {
            return None;
        }
        let (tci, body) = self.type_body(pkg, tname)?;
        let GoTypeBody::Struct(fields) = body else {
            return None;
        };
        let env = self.type_env(pkg, tname, args);
        for f in fields {
            if let Some(n) = f.name
                && self.sym(tci, n) == field
            {
                return Some(self.resolve_type_in(tci, f.ty, 0, &env));
            }
        }
        // Fields promoted from embedded structs; an embedded field is also named by its type.
        for f in fields.iter().filter(|f| f.name.is_none()) {
            let t = self.resolve_type_in(tci, f.ty, 0, &env);
            match t.deref() {
                RType::Named(_, n, ..) if n == field => return Some(t.clone()),
                RType::Named(PkgRef::Repo(p), n, inner_args) => {
                    if let Some(ft) = self.field_type(*p, n, field, inner_args, depth + 1) {
                        return Some(ft);
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// The struct that declares `field` as `pkg.tname` sees it: the type
    /// itself, or the embedded struct it is promoted from. Values stored in
    /// a field are keyed by its owner, so `outer.f = v` and `inner.f` meet.
    fn field_owner(
        &self,
        pkg: usize,
        tname: &str,
        field: &str,
        depth: u32,
    ) -> Option<(usize, String)> {
        if depth > 4 {
            return None;
        }
        let (tci, body) = self.type_body(pkg, tname)?;
        let GoTypeBody::Struct(fields) = body else {
            return None;
        };
        let named = |f: &GoField| match f.name {
            Some(n) => self.sym(tci, n) == field,
            None => {
                matches!(self.resolve_type(tci, f.ty, 0).deref(), RType::Named(_, n, ..) if n == field)
            }
        };
        if fields.iter().any(named) {
            return Some((pkg, tname.to_owned()));
        }
        fields.iter().filter(|f| f.name.is_none()).find_map(|f| {
            match self.resolve_type(tci, f.ty, 0).deref() {
                RType::Named(PkgRef::Repo(p), n, ..) => self.field_owner(*p, n, field, depth + 1),
                _ => None,
            }
        })
    }

    /// The key values stored in `field` of `pkg.tname` are kept under:
    /// the struct that declares the field.
    fn field_key(&self, pkg: usize, tname: &str, field: &str) -> (usize, String, String) {
        let (p, t) = self
            .field_owner(pkg, tname, field, 0)
            .unwrap_or_else(|| (pkg, tname.to_owned()));
        (p, t, field.to_owned())
    }

    /// The embedded field of repository struct `pkg.tname` whose interface
    /// type (of the repository) has method `name`: the interface's package
    /// and name, which is also the field's.
    fn embedded_interface(&self, pkg: usize, tname: &str, name: &str) -> Option<(usize, String)> {
        let (tci, body) = self.type_body(pkg, tname)?;
        let GoTypeBody::Struct(fields) = body else {
            return None;
        };
        fields.iter().filter(|f| f.name.is_none()).find_map(|f| {
            match self.resolve_type(tci, f.ty, 0).deref() {
                RType::Named(PkgRef::Repo(ip), iname, ..)
                    if matches!(
                        self.type_body(*ip, iname),
                        Some((_, GoTypeBody::Interface { .. }))
                    ) && self
                        .interface_methods(*ip, iname, 0)
                        .is_some_and(|ms| ms.iter().any(|(m, _)| m == name)) =>
                {
                    Some((*ip, iname.clone()))
                }
                _ => None,
            }
        })
    }

    /// Whether a repository type has method `name` taking `arity` parameters
    /// (any count when its parameters are unknown).
    fn has_method(&self, pkg: usize, tname: &str, name: &str, arity: u16) -> bool {
        match self.method(pkg, tname, name, 0) {
            Some(m) => self
                .params_of
                .get(&m)
                .is_none_or(|params| params.len() == arity as usize),
            // Promoted from an embedded interface: `struct{ ResponseWriter }`
            // implements ResponseWriter, with a method of its own or not;
            // `struct{ io.Writer }` has Write.
            None => {
                self.embedded_interface(pkg, tname, name).is_some()
                    || self.embedded_std_interface(pkg, tname, name).is_some()
                    || self.promoted_std_method(pkg, tname, name, 0).is_some()
            }
        }
    }

    /// A method `pkg.tname` has from an embedded standard-library type,
    /// directly or through embedded repository structs (`Prefix` of
    /// `struct{ *log.Logger }`), named as external methods are.
    fn promoted_std_method(
        &self,
        pkg: usize,
        tname: &str,
        name: &str,
        depth: u32,
    ) -> Option<String> {
        if depth > 4 {
            return None;
        }
        let (tci, body) = self.type_body(pkg, tname)?;
        let GoTypeBody::Struct(fields) = body else {
            return None;
        };
        let std = go_std::std();
        fields.iter().filter(|f| f.name.is_none()).find_map(|f| {
            match self.resolve_type(tci, f.ty, 0).deref() {
                RType::Named(PkgRef::Ext(path), ext, ..) if !path.is_empty() => std
                    .method(&format!("{path}.{ext}"), name)
                    .map(|_| external_method(path, ext, name)),
                RType::Named(PkgRef::Repo(p), n, ..) if self.method(*p, n, name, 0).is_none() => {
                    self.promoted_std_method(*p, n, name, depth + 1)
                }
                _ => None,
            }
        })
    }

    /// The embedded standard-library interface of `pkg.tname` that has
    /// method `name` (`io.Writer` in `struct{ io.Writer }`): its name,
    /// which is also the field's.
    fn embedded_std_interface(&self, pkg: usize, tname: &str, name: &str) -> Option<String> {
        let (tci, body) = self.type_body(pkg, tname)?;
        let GoTypeBody::Struct(fields) = body else {
            return None;
        };
        fields.iter().filter(|f| f.name.is_none()).find_map(|f| {
            match self.resolve_type(tci, f.ty, 0).deref() {
                // `error`, the one builtin interface, has an empty path.
                RType::Named(PkgRef::Ext(path), ext, ..) => {
                    let qualified = match path.is_empty() {
                        true => ext.clone(),
                        false => format!("{path}.{ext}"),
                    };
                    std_interface(&qualified)
                        .is_some_and(|methods| methods.iter().any(|(m, _)| *m == name))
                        .then(|| ext.clone())
                }
                _ => None,
            }
        })
    }

    /// The methods `name` of the types in `flow`, as possible callees,
    /// when every value of the flow is known and some type has one.
    fn known_flow_methods(&mut self, flow: &[DeclId], name: &str) -> Option<Vec<Callee>> {
        if flow.contains(&FLOW_UNKNOWN) {
            return None;
        }
        let methods = self.flow_methods(flow, name, 0)?;
        (!methods.is_empty()).then(|| {
            methods
                .into_iter()
                .map(|m| Callee::Decl(m, Confidence::Possible))
                .collect()
        })
    }

    /// The methods `name` of the types in `flow`. A type that has no such
    /// method but embeds an interface that does passes the call on to
    /// what its embedded field holds (a wrapper overriding one method of
    /// an http.ResponseWriter, say). None when some field's values are
    /// not known.
    fn flow_methods(&mut self, flow: &[DeclId], name: &str, hops: u32) -> Option<Vec<DeclId>> {
        let mut out = Vec::new();
        for d in flow {
            let Some((p, t)) = self.type_names.get(d).cloned() else {
                continue;
            };
            if let Some(m) = self.method(p, &t, name, 0) {
                if !out.contains(&m) {
                    out.push(m);
                }
                continue;
            }
            let Some(iname) = self
                .embedded_interface(p, &t, name)
                .map(|(_, iname)| iname)
                .or_else(|| self.embedded_std_interface(p, &t, name))
            else {
                continue;
            };
            let held = self.field_flow(p, &t, &iname, 1);
            if hops >= 3 || held.contains(&FLOW_UNKNOWN) {
                return None;
            }
            for m in self.flow_methods(&held, name, hops + 1)? {
                if !out.contains(&m) {
                    out.push(m);
                }
            }
        }
        Some(out)
    }

    /// A method of a repository type, own or promoted from an embedded field.
    fn method(&self, pkg: usize, tname: &str, name: &str, depth: u32) -> Option<DeclId> {
        if depth > 4 {
            return None;
        }
        if let Some(&m) = self.pkgs[pkg]
            .methods
            .get(tname)
            .and_then(|ms| ms.get(name))
        {
            return Some(m);
        }
        let (tci, body) = self.type_body(pkg, tname)?;
        if let GoTypeBody::Struct(fields) = body {
            for f in fields.iter().filter(|f| f.name.is_none()) {
                if let RType::Named(PkgRef::Repo(p), n, ..) =
                    self.resolve_type(tci, f.ty, 0).deref()
                    && let Some(m) = self.method(*p, n, name, depth + 1)
                {
                    return Some(m);
                }
            }
        }
        None
    }

    fn interface_methods(&self, pkg: usize, name: &str, depth: u32) -> Option<Vec<(String, u16)>> {
        if depth > 4
            || !matches!(
                self.type_body(pkg, name),
                Some((_, GoTypeBody::Interface { .. }))
            )
        {
            return None;
        }
        let signatures = self.interface_signatures(pkg, name, depth);
        Some(
            signatures
                .iter()
                .map(|&(m, _, params, _)| (m.to_owned(), arity(params)))
                .collect(),
        )
    }

    /// The result types of method `name` of the repository interface
    /// `iface` (or of an interface it embeds), with the file they are
    /// written in.
    fn interface_method_results(
        &self,
        pkg: usize,
        iface: &str,
        name: &str,
        depth: u32,
    ) -> Option<(usize, Vec<TypeId>)> {
        if depth > 4 {
            return None;
        }
        let (tci, body) = self.type_body(pkg, iface)?;
        let GoTypeBody::Interface {
            methods,
            results,
            embeds,
            ..
        } = body
        else {
            return None;
        };
        if let Some(i) = methods.iter().position(|&(m, _)| self.sym(tci, m) == name) {
            return Some((tci, results.get(i).cloned().unwrap_or_default()));
        }
        embeds
            .iter()
            .find_map(|e| match self.resolve_type(tci, *e, 0) {
                RType::Named(PkgRef::Repo(p), n, ..) => {
                    self.interface_method_results(p, &n, name, depth + 1)
                }
                _ => None,
            })
    }

    /// Repository types whose method set covers the interface.
    fn implementors(&mut self, pkg: usize, iface: &str) -> Vec<(usize, String)> {
        let key = (pkg, iface.to_owned());
        if let Some(v) = self.implementors.get(&key) {
            return v.clone();
        }
        let signatures = self.interface_signatures(pkg, iface, 0);
        let wanted: Vec<(&str, u16)> = signatures
            .iter()
            .map(|&(m, _, params, _)| (m, arity(params)))
            .collect();
        let mut out = if wanted.is_empty() {
            Vec::new()
        } else {
            self.types_with_methods(&wanted)
        };
        out.retain(|(p, tname)| {
            signatures.iter().all(|(m, ici, params, results)| {
                self.method(*p, tname, m, 0)
                    .is_none_or(|decl| self.signature_fits(decl, *ici, params, results))
            })
        });
        self.implementors.insert(key, out.clone());
        out
    }

    /// The methods of repository interface `name` (and of those it
    /// embeds) with their parameter and result types, and the file
    /// context that writes them.
    fn interface_signatures(&self, pkg: usize, name: &str, depth: u32) -> Vec<Signature<'a>> {
        if depth > 4 {
            return Vec::new();
        }
        let Some((
            tci,
            GoTypeBody::Interface {
                methods,
                results,
                params,
                embeds,
            },
        )) = self.type_body(pkg, name)
        else {
            return Vec::new();
        };
        let mut out: Vec<Signature<'a>> = methods
            .iter()
            .zip(params.iter().zip(results))
            .map(|(&(m, _), (p, r))| (self.sym(tci, m), tci, p.as_slice(), r.as_slice()))
            .collect();
        for e in embeds {
            if let RType::Named(PkgRef::Repo(p), n, ..) = self.resolve_type(tci, *e, 0) {
                out.extend(self.interface_signatures(p, &n, depth + 1));
            }
        }
        out
    }

    /// Whether method `m` may implement an interface method whose
    /// parameter and result types file `ici` writes as `params` and
    /// `results`: no place where both name a type and the types differ
    /// (`SetOption(parser.OptionName, …)` is not `SetOption(renderer.
    /// OptionName, …)`; `WithCallDepth(int) Logger` is not
    /// `WithCallDepth(int) LogSink`). A type either side cannot name (a
    /// type parameter, a literal type, an alias) decides nothing.
    fn signature_fits(&self, m: DeclId, ici: usize, params: &[TypeId], results: &[TypeId]) -> bool {
        let Some(&(mci, f)) = self.func_results.get(&m) else {
            return true;
        };
        // An alias (`type FileMode = fs.FileMode`) is the type it names.
        let named = |t: &RType| match t.deref() {
            RType::Named(PkgRef::Repo(p), n, _) => {
                !has_unknown(t)
                    && self.pkgs[*p]
                        .types
                        .get(n)
                        .is_some_and(|&(tci, ti)| !self.ctxs[tci].go.type_decls[ti].alias)
            }
            RType::Named(..) => !has_unknown(t),
            _ => false,
        };
        let differ = |a: &RType, b: &RType| named(a) && named(b) && a != b;
        if f.results.len() == results.len() {
            for (a, b) in f.results.iter().zip(results) {
                if differ(
                    &self.resolve_type(mci, *a, 0),
                    &self.resolve_type(ici, *b, 0),
                ) {
                    return false;
                }
            }
        }
        let Some(names) = self.params_of.get(&m) else {
            return true;
        };
        if names.len() != params.len() {
            return true;
        }
        for (name, b) in names.iter().zip(params) {
            // A blank parameter's binding would be another blank's.
            let Some(name) = name.filter(|&n| self.sym(mci, n) != "_") else {
                continue;
            };
            let Some((_, Binding::Type(a))) = self.local(mci, f.decl, name) else {
                continue;
            };
            if differ(
                &self.resolve_type(mci, *a, 0),
                &self.resolve_type(ici, *b, 0),
            ) {
                return false;
            }
        }
        true
    }

    /// Fill [`Analysis::declared_by`] and [`Analysis::embedders`].
    fn index_method_holders(&mut self) {
        let mut declared_by: HashMap<String, Vec<(usize, String)>> = HashMap::default();
        let mut embedders = Vec::new();
        for (p, package) in self.pkgs.iter().enumerate() {
            for (tname, methods) in &package.methods {
                for name in methods.keys() {
                    declared_by
                        .entry(name.clone())
                        .or_default()
                        .push((p, tname.clone()));
                }
            }
            for (tname, &(tci, ti)) in &package.types {
                if let GoTypeBody::Struct(fields) = &self.ctxs[tci].go.type_decls[ti].body
                    && fields.iter().any(|f| f.name.is_none())
                {
                    embedders.push((p, tname.clone()));
                }
            }
        }
        self.declared_by = declared_by;
        self.embedders = embedders;
    }

    /// Repository types (not interfaces) with every method in `methods`
    /// (which is not empty), sorted.
    fn types_with_methods(&self, methods: &[(&str, u16)]) -> Vec<(usize, String)> {
        let Some(&(first, _)) = methods.first() else {
            return Vec::new();
        };
        let candidates = self
            .declared_by
            .get(first)
            .into_iter()
            .flatten()
            .chain(&self.embedders);
        let mut out = Vec::new();
        for (p, tname) in candidates {
            let Some(&(tci, ti)) = self.pkgs[*p].types.get(tname) else {
                continue;
            };
            if matches!(
                self.ctxs[tci].go.type_decls[ti].body,
                GoTypeBody::Interface { .. }
            ) {
                continue;
            }
            if methods
                .iter()
                .all(|&(m, arity)| self.has_method(*p, tname, m, arity))
            {
                out.push((*p, tname.clone()));
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// The method `name` an anonymous struct gets from one of its embedded
    /// fields.
    fn anonymous_struct_method(&self, sci: usize, t: TypeId, name: &str) -> Option<Callee> {
        let Some(GoType::Struct(fields)) = self.ctxs[sci].go.types.get(t as usize) else {
            return None;
        };
        fields.iter().filter(|f| f.name.is_none()).find_map(|f| {
            match self.resolve_type(sci, f.ty, 0).deref() {
                RType::Named(PkgRef::Repo(p), tname, ..) => self
                    .method(*p, tname, name, 0)
                    .map(|m| Callee::Decl(m, Confidence::Certain)),
                RType::Named(PkgRef::Ext(path), tname, ..) if !path.is_empty() => {
                    let qualified = format!("{path}.{tname}");
                    go_std::std()
                        .method(&qualified, name)
                        .map(|_| Callee::External(external_method(path, tname, name)))
                }
                _ => None,
            }
        })
    }

    /// Standard-library types the repository uses that implement the
    /// repository interface `iface`: every method by name, parameter count
    /// and result types (so `reflect.Value`, whose `Set` takes one argument
    /// and returns nothing, is no `flag.Value`).
    fn std_implementors(
        &mut self,
        pkg: usize,
        iface: &str,
        methods: &[(String, u16)],
    ) -> Vec<(String, String)> {
        if methods.is_empty() {
            return Vec::new();
        }
        let key = (pkg, iface.to_owned());
        if let Some(found) = self.std_implementors.get(&key) {
            return found.clone();
        }
        let wanted: Vec<WantedMethod> = methods
            .iter()
            .map(|(m, arity)| {
                let results = self
                    .interface_method_results(pkg, iface, m, 0)
                    .map(|(tci, rs)| {
                        rs.iter()
                            .map(|&r| std_spelling(&self.resolve_type(tci, r, 0)))
                            .collect()
                    });
                (m.clone(), *arity, results)
            })
            .collect();
        if self.used_std_types.is_none() {
            self.used_std_types = Some(self.collect_used_std_types());
        }
        let used = self.used_std_types.as_deref().unwrap_or_default();
        let std = go_std::std();
        let found: Vec<(String, String)> = used
            .iter()
            .filter(|(path, tname)| {
                let qualified = format!("{path}.{tname}");
                wanted.iter().all(|(m, arity, results)| {
                    let Some((params, have)) = std.method_shape(&qualified, m) else {
                        return false;
                    };
                    params == *arity
                        && results.as_ref().is_none_or(|want| {
                            want.len() == have.len()
                                && want.iter().zip(have).all(|(w, h)| {
                                    w.as_deref().is_none_or(|w| w == canonical_basic(h))
                                })
                        })
                })
            })
            .cloned()
            .collect();
        self.std_implementors.insert(key, found.clone());
        found
    }

    fn collect_used_std_types(&self) -> Vec<(String, String)> {
        let std = go_std::std();
        let mut seen: HashSet<(String, String)> = HashSet::default();
        let keep = |path: &str, tname: &str, seen: &mut HashSet<(String, String)>| {
            let qualified = format!("{path}.{tname}");
            if !path.is_empty() && std.is_type(&qualified) && std.interface(&qualified).is_none() {
                seen.insert((path.to_owned(), tname.to_owned()));
            }
        };
        for ci in 0..self.ctxs.len() {
            let go = self.ctxs[ci].go;
            for t in 0..go.types.len() {
                if let GoType::Named { pkg: Some(_), .. } = go.types[t]
                    && let RType::Named(PkgRef::Ext(path), tname, ..) =
                        self.resolve_type(ci, t as TypeId, 0)
                {
                    keep(&path, &tname, &mut seen);
                }
            }
            for call in &go.calls {
                let GoExpr::Selector(base, name) = *self.expr(ci, call.callee) else {
                    continue;
                };
                let GoExpr::Ident(q) = *self.expr(ci, base) else {
                    continue;
                };
                let Some(path) = self.ctxs[ci].imports.get(self.sym(ci, q)) else {
                    continue;
                };
                if self.pkg_by_path.contains_key(*path) {
                    continue;
                }
                let qualified = format!("{path}.{}", self.sym(ci, name));
                for result in std.func_results(&qualified).unwrap_or_default() {
                    let bare = result.trim_start_matches('*');
                    if let Some((rpath, rname)) = bare.rsplit_once('.') {
                        keep(rpath, rname, &mut seen);
                    }
                }
            }
        }
        let mut out: Vec<_> = seen.into_iter().collect();
        out.sort();
        out
    }

    /// Method `name` of every repository type that has all of `methods`:
    /// the callees of a call through an interface with that method set.
    fn possible_methods(&mut self, methods: &[(&str, u16)], name: &str) -> Vec<Callee> {
        let key = methods_key(methods);
        let memo_key = (usize::MAX, key.clone(), name.to_owned());
        if let Some(Some(memo)) = self.interface_calls.get(&memo_key) {
            return memo.clone();
        }
        let out: Vec<Callee> = self
            .implementors_of(key, methods)
            .iter()
            .filter_map(|(p, t)| self.method(*p, t, name, 0))
            .map(|m| Callee::Decl(m, Confidence::Possible))
            .collect();
        self.interface_calls.insert(memo_key, Some(out.clone()));
        out
    }

    /// Repository types (not interfaces) that have every method in `methods`.
    fn implementors_of(&mut self, key: String, methods: &[(&str, u16)]) -> Vec<(usize, String)> {
        let key = (usize::MAX, key);
        if let Some(v) = self.implementors.get(&key) {
            return v.clone();
        }
        let out = if methods.is_empty() {
            // Every type has the empty method set.
            let mut all = Vec::new();
            for (p, package) in self.pkgs.iter().enumerate() {
                for (tname, &(tci, ti)) in &package.types {
                    if !matches!(
                        self.ctxs[tci].go.type_decls[ti].body,
                        GoTypeBody::Interface { .. }
                    ) {
                        all.push((p, tname.clone()));
                    }
                }
            }
            all.sort();
            all
        } else {
            self.types_with_methods(methods)
        };
        self.implementors.insert(key, out.clone());
        out
    }

    /// The first embedded field type from outside the repository, searching
    /// through embedded repository structs.
    fn external_embedded(&self, pkg: usize, tname: &str, depth: u32) -> Option<(String, String)> {
        if depth > 4 {
            return None;
        }
        let (tci, body) = self.type_body(pkg, tname)?;
        let GoTypeBody::Struct(fields) = body else {
            return None;
        };
        for f in fields.iter().filter(|f| f.name.is_none()) {
            match self.resolve_type(tci, f.ty, 0).deref() {
                RType::Named(PkgRef::Ext(path), n, ..) if !path.is_empty() => {
                    return Some((path.clone(), n.clone()));
                }
                RType::Named(PkgRef::Repo(p), n, ..) => {
                    if let Some(found) = self.external_embedded(*p, n, depth + 1) {
                        return Some(found);
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// Functions a name may hold: its bindings in the nearest scope that
    /// binds it, arguments passed for it when it is a parameter, or the
    /// package-level function or variable of that name.
    fn ident_func_values(&mut self, ci: usize, scope: u32, name: Sym, depth: u32) -> Vec<DeclId> {
        self.traced(ci, scope, Traced::Name(name), depth)
    }

    /// Memoised tracing of function values (by name or by expression).
    fn traced(&mut self, ci: usize, scope: u32, what: Traced, depth: u32) -> Vec<DeclId> {
        if depth > MAX_FLOW_DEPTH {
            return match what {
                Traced::TypesOfName(_) | Traced::TypesOfExpr(_) | Traced::TypesOfCall(..) => {
                    vec![FLOW_UNKNOWN]
                }
                Traced::Name(_) | Traced::Expr(_) => Vec::new(),
            };
        }
        let key = (ci, scope, what);
        if let Some(v) = self.trace_memo.get(&key) {
            if self.trace_active.contains(&key) {
                self.trace_heads.insert(key);
            }
            return v.clone();
        }
        // A trace that reads itself back through a cycle (`for state :=
        // lexText; …; state = state(l)`: each state returns the next) starts
        // from what it has found so far and goes round until that stops
        // growing. What was traced inside the cycle meanwhile saw a partial
        // value and is traced again in the next round.
        self.trace_memo.insert(key, Vec::new());
        self.trace_active.insert(key);
        let log_start = self.trace_log.len();
        let mut out;
        let mut rounds = 0;
        loop {
            self.trace_heads.remove(&key);
            out = match what {
                Traced::Name(name) => self.ident_func_values_uncached(ci, scope, name, depth),
                Traced::Expr(e) => self.func_values_uncached(ci, scope, e, depth),
                Traced::TypesOfName(name) => self.name_flow_uncached(ci, scope, name, depth),
                Traced::TypesOfExpr(e) => self.expr_flow_uncached(ci, scope, e, depth),
                Traced::TypesOfCall(c, n) => self.call_flow_uncached(ci, scope, c, n, depth),
            };
            rounds += 1;
            let before = self.trace_memo.get(&key).map_or(0, |v| v.len());
            if !self.trace_heads.contains(&key) || out.len() <= before || rounds >= MAX_TRACE_ROUNDS
            {
                break;
            }
            for k in self.trace_log.drain(log_start..) {
                self.trace_memo.remove(&k);
            }
            self.trace_memo.insert(key, out.clone());
        }
        self.trace_heads.remove(&key);
        self.trace_active.remove(&key);
        self.trace_memo.insert(key, out.clone());
        if self.trace_active.is_empty() {
            self.trace_log.clear();
        } else {
            self.trace_log.push(key);
        }
        out
    }

    /// What a variable of an enclosing scope may hold: the values bound
    /// to it where it is declared and, for a parameter, the arguments its
    /// callers pass. None when no enclosing scope binds it (a package-level
    /// name).
    fn local_sources(&self, ci: usize, scope: u32, name: Sym) -> Option<LocalSources> {
        let mut s = Some(scope);
        while let Some(cur) = s {
            let Some(list) = self.ctxs[ci].bindings.get(&(cur, name)) else {
                s = self.scope_parent(ci, cur);
                continue;
            };
            let mut out = LocalSources::default();
            for b in list {
                match b {
                    Binding::Value(e) => out.values.push((ci, cur, *e)),
                    Binding::Type(_) => {
                        let func = self.ctxs[ci].base + cur;
                        let idx = self
                            .params_of
                            .get(&func)
                            .and_then(|ps| ps.iter().position(|p| *p == Some(name)));
                        match idx {
                            Some(idx) => {
                                out.opaque |= self.param_overflow.contains(&(func, idx));
                                match self.param_sources.get(&(func, idx)) {
                                    Some(sources) => out.values.extend_from_slice(sources),
                                    None if self.library_interface_param(ci, func, b) => {
                                        out.from_library = true;
                                    }
                                    // Called from outside, or not at all.
                                    None => out.opaque = true,
                                }
                            }
                            // A type switch's case variable (`v#2`) holds
                            // the switched value; `var x I` starts as nil.
                            None => out.opaque |= self.sym(ci, name).contains('#'),
                        }
                    }
                }
            }
            // A package-level variable also holds what any function of the
            // package stores in it.
            if cur == 0
                && let Some(writes) = self.pkgs[self.ctxs[ci].pkg]
                    .var_writes
                    .get(self.sym(ci, name))
            {
                out.values.extend_from_slice(writes);
            }
            return Some(out);
        }
        None
    }

    /// Whether a parameter bound as `binding` is of a standard-library
    /// interface type, in a function handed to a library.
    fn library_interface_param(&self, ci: usize, func: DeclId, binding: &Binding) -> bool {
        let &Binding::Type(t) = binding else {
            return false;
        };
        let is_std_interface = match self.resolve_type(ci, t, 0) {
            RType::Named(PkgRef::Ext(path), name, _) => std_interface(&if path.is_empty() {
                name
            } else {
                format!("{path}.{name}")
            })
            .is_some(),
            _ => false,
        };
        if !is_std_interface {
            return false;
        }
        if self
            .funcs_handed_to_library
            .values()
            .any(|fs| fs.contains(&func))
        {
            return true;
        }
        // A method of a type whose values are handed to a library (a
        // Handler given to httptest.NewServer or http.Server{Handler: …}).
        let (pkg, base, go) = (self.ctxs[ci].pkg, self.ctxs[ci].base, self.ctxs[ci].go);
        let Some((recv, _)) = go
            .funcs
            .iter()
            .find(|f| base + f.decl == func)
            .and_then(|f| f.recv)
        else {
            return false;
        };
        let tname = receiver_type_name(self.sym(ci, recv));
        let Some(&(tci, ti)) = self.pkgs[pkg].types.get(tname) else {
            return false;
        };
        let t = self.ctxs[tci].base + self.ctxs[tci].go.type_decls[ti].decl;
        self.handed_to_library.values().any(|ts| ts.contains(&t))
    }

    fn ident_func_values_uncached(
        &mut self,
        ci: usize,
        scope: u32,
        name: Sym,
        depth: u32,
    ) -> Vec<DeclId> {
        let mut out = Vec::new();
        if let Some(f) = self.func_receiver_of(ci, scope, name) {
            for (sci, sscope, e) in self.receiver_sources.get(&f).cloned().unwrap_or_default() {
                for d in self.func_values(sci, sscope, e, depth + 1) {
                    push_decl(&mut out, d);
                }
            }
            return out;
        }
        if let Some(local) = self.local_sources(ci, scope, name) {
            for (sci, sscope, e) in local.values {
                for d in self.func_values(sci, sscope, e, depth + 1) {
                    push_decl(&mut out, d);
                }
            }
            return out;
        }
        let text = self.sym(ci, name);
        let pkg = self.ctxs[ci].pkg;
        if let Some(&(fci, fi)) = self.pkgs[pkg].funcs.get(text) {
            return vec![self.ctxs[fci].base + self.ctxs[fci].go.funcs[fi as usize].decl];
        }
        if let Some(&(vci, vname)) = self.pkgs[pkg].vars.get(text)
            && (vci != ci || scope != 0)
        {
            return self.ident_func_values(vci, 0, vname, depth + 1);
        }
        match self.dot_package(ci, text) {
            Some(dot) => self.package_member_values(dot, text, depth),
            None => out,
        }
    }

    /// Functions and closures an expression may evaluate to.
    /// Callees reached through a function value: one candidate is likely, several are possible.
    fn func_value_callees(&self, vals: Vec<DeclId>) -> Vec<Callee> {
        let conf = if vals.len() == 1 {
            Confidence::Likely
        } else {
            Confidence::Possible
        };
        vals.into_iter()
            .filter_map(|d| match d.checked_sub(EXTERNAL_VALUE) {
                // `time.UTC`, `time.April` traced into an `interface{}`
                // that a func type is asserted from: no callee.
                Some(i) => match self.external_values.get(i as usize) {
                    Some(name) if !go_std::std().may_call(name) => None,
                    Some(name) => Some(Callee::ExternalValue(name.clone(), conf)),
                    None => Some(Callee::Unresolved("dynamic callee".to_owned())),
                },
                None => Some(Callee::Decl(d, conf)),
            })
            .collect()
    }

    fn external_value(&mut self, name: String) -> DeclId {
        if let Some(&id) = self.external_value_ids.get(&name) {
            return id;
        }
        let id = EXTERNAL_VALUE + self.external_values.len() as DeclId;
        self.external_values.push(name.clone());
        self.external_value_ids.insert(name, id);
        id
    }

    /// A call of the predeclared function `name`, not shadowed by a local
    /// or a function of the package.
    fn is_builtin_call(&self, ci: usize, scope: u32, call: u32, name: &str) -> bool {
        let callee = self.ctxs[ci].go.calls[call as usize].callee;
        match *self.expr(ci, callee) {
            GoExpr::Ident(n) => {
                self.sym(ci, n) == name
                    && self.local(ci, scope, n).is_none()
                    && !self.pkgs[self.ctxs[ci].pkg].funcs.contains_key(name)
            }
            _ => false,
        }
    }

    fn func_values(&mut self, ci: usize, scope: u32, e: ExprId, depth: u32) -> Vec<DeclId> {
        self.traced(ci, scope, Traced::Expr(e), depth)
    }

    fn func_values_uncached(
        &mut self,
        ci: usize,
        scope: u32,
        e: ExprId,
        depth: u32,
    ) -> Vec<DeclId> {
        match self.expr(ci, e).clone() {
            GoExpr::FuncLit(d) => vec![self.ctxs[ci].base + d],
            GoExpr::Ident(n) => self.ident_func_values(ci, scope, n, depth + 1),
            GoExpr::Index(inner) | GoExpr::RangeValue(inner) | GoExpr::TypeAssert(inner, _) => {
                self.func_values(ci, scope, inner, depth + 1)
            }
            GoExpr::RangeKey(inner) if self.is_channel(ci, scope, inner) => {
                self.func_values(ci, scope, inner, depth + 1)
            }
            // A map, slice or array literal of functions: any of its elements.
            GoExpr::Composite(_) => {
                let mut out = Vec::new();
                let elems = self.composite_elems.get(&(ci, e)).cloned();
                for (escope, value) in elems.unwrap_or_default() {
                    for d in self.func_values(ci, escope, value, depth + 1) {
                        push_decl(&mut out, d);
                    }
                }
                out
            }
            GoExpr::Selector(base, name) => {
                let name_s = self.sym(ci, name);
                if let Some(pkg) = self.package_operand(ci, scope, base) {
                    return self.package_member_values(pkg, name_s, depth);
                }
                // A method value (`s.handle`) or expression (`T.handle`).
                let t = match self.type_of(ci, scope, base, 0) {
                    RType::TypeValue(t) => *t,
                    other => other,
                };
                match t.deref() {
                    RType::Named(PkgRef::Repo(p), tname, ..) => {
                        let (p, tname) = (*p, tname.clone());
                        if let Some(m) = self.method(p, &tname, name_s, 0) {
                            return vec![m];
                        }
                        // `f := s.Get` with `s` an interface: the methods of
                        // the types that flow to `s`.
                        if let Some(out) = self.interface_call(p, &tname, name_s) {
                            let name = name_s.to_owned();
                            let out = self.narrowed(out, (ci, scope), base, &name, depth, false);
                            let mut vals = Vec::new();
                            for c in out {
                                if let Callee::Decl(m, _) = c {
                                    push_decl(&mut vals, m);
                                }
                            }
                            return vals;
                        }
                        self.field_func_values(p, &tname, name_s, depth)
                    }
                    &RType::Struct(sci, t) => match self.anonymous_struct(sci, t) {
                        Some((p, pseudo, _)) => self.field_func_values(p, &pseudo, name_s, depth),
                        None => Vec::new(),
                    },
                    // A standard-library method value: `logger.Printf`, `wg.Done`.
                    RType::Named(PkgRef::Ext(path), tname, ..)
                        if !path.is_empty()
                            && go_std::std()
                                .method(&format!("{path}.{tname}"), name_s)
                                .is_some() =>
                    {
                        let method = external_method(path, tname, name_s);
                        vec![self.external_value(method)]
                    }
                    _ => Vec::new(),
                }
            }
            // `append(lx.stack, state)`: the slice and the elements appended
            // to it (a stack of state functions, a list of hooks).
            GoExpr::Call(c) if self.is_builtin_call(ci, scope, c, "append") => {
                let mut out = Vec::new();
                for a in self.ctxs[ci].go.calls[c as usize].args.clone() {
                    for d in self.func_values(ci, scope, a, depth + 1) {
                        push_decl(&mut out, d);
                    }
                }
                out
            }
            GoExpr::Call(c) => self.returned_func_values(ci, scope, c, 0, depth),
            GoExpr::Nth(inner, n) => match self.expr(ci, inner).clone() {
                GoExpr::Call(c) => self.returned_func_values(ci, scope, c, n, depth),
                // `f, ok := m[k]`, `f, ok := v.(func())`
                GoExpr::Index(_) | GoExpr::TypeAssert(..) if n == 0 => {
                    self.func_values(ci, scope, inner, depth + 1)
                }
                _ => Vec::new(),
            },
            _ => Vec::new(),
        }
    }

    /// The callees of a call whose results a trace follows, found afresh
    /// rather than at the trace's depth, which would leave no room for them
    /// (a callee reached through a chain of function values, such as a
    /// middleware calling the handler it wraps, was lost), and without
    /// narrowing its interface calls in turn, which would start another
    /// trace inside this one. Afresh only once on the stack, which bounds it.
    fn fresh_callees(&mut self, ci: usize, scope: u32, callee: ExprId, depth: u32) -> Vec<Callee> {
        if self.fresh_callee_nesting > 0 {
            return self.callees(ci, scope, callee, depth + 1);
        }
        self.fresh_callee_nesting += 1;
        let narrow = std::mem::replace(&mut self.narrow_interface_calls, false);
        let targets = self.callees(ci, scope, callee, 0);
        self.narrow_interface_calls = narrow;
        self.fresh_callee_nesting -= 1;
        targets
    }

    /// Functions returned (at position `n`) by the functions a call reaches.
    fn returned_func_values(
        &mut self,
        ci: usize,
        scope: u32,
        call: u32,
        n: u8,
        depth: u32,
    ) -> Vec<DeclId> {
        let (callee, args) = {
            let c = &self.ctxs[ci].go.calls[call as usize];
            (c.callee, c.args.clone())
        };
        let mut out = Vec::new();
        for t in self.fresh_callees(ci, scope, callee, depth) {
            let f = match t {
                Callee::Decl(f, _) => f,
                // `encoderFunc(func(…) {…})`: a conversion keeps the function.
                Callee::NotACall if n == 0 && args.len() == 1 => {
                    for d in self.func_values(ci, scope, args[0], depth + 1) {
                        push_decl(&mut out, d);
                    }
                    continue;
                }
                // What a library container gives back (`sync.Map.Load`,
                // `atomic.Value.Load`, `sync.Pool.Get`) may be a function
                // the repository handed that package.
                Callee::External(name) | Callee::ExternalValue(name, _)
                    if library_result_may_hold_anything(&name, n) =>
                {
                    if let Some(funcs) =
                        external_package(&name).and_then(|p| self.funcs_handed_to_library.get(p))
                    {
                        for &d in funcs {
                            push_decl(&mut out, d);
                        }
                    }
                    continue;
                }
                // A function the library makes (`context.WithCancel`'s
                // cancel is `context.WithCancel$1`).
                Callee::External(name) => {
                    if let Some(funcs) = go_std::std().dynamic_results(&name, n) {
                        for f in funcs {
                            let v = self.external_value((*f).to_owned());
                            push_decl(&mut out, v);
                        }
                    }
                    continue;
                }
                _ => continue,
            };
            for (rci, rscope, pos, e) in self.returns_of.get(&f).cloned().unwrap_or_default() {
                if pos == n {
                    for d in self.func_values(rci, rscope, e, depth + 1) {
                        push_decl(&mut out, d);
                    }
                }
            }
        }
        out
    }

    /// The concrete types whose values may reach `e`, for narrowing a call
    /// through an interface to the implementations that can be behind it
    /// (as x/tools' VTA does): repository types by declaration, plus
    /// [`FLOW_EXTERNAL`] for a type from outside and [`FLOW_UNKNOWN`] when
    /// some source could not be traced (a parameter of a function nothing
    /// in the repository calls, a field set by reflection, a trace too
    /// deep). Unknown means every implementation stays.
    fn flowing_types(&mut self, ci: usize, scope: u32, e: ExprId, depth: u32) -> Vec<DeclId> {
        self.traced(ci, scope, Traced::TypesOfExpr(e), depth)
    }

    /// What the static type alone says flows: a concrete type is its own
    /// answer; None for an interface (or an unknown type), which must be
    /// traced to its sources.
    fn static_flow(&mut self, t: &RType) -> Option<Vec<DeclId>> {
        self.static_flow_at(t, 0)
    }

    /// [`Self::static_flow`], `depth` named types in (`type A B; type B A`
    /// does not compile, but is still read).
    fn static_flow_at(&mut self, t: &RType, depth: u32) -> Option<Vec<DeclId>> {
        if depth > 8 {
            return Some(vec![FLOW_UNKNOWN]);
        }
        match t {
            RType::Unknown | RType::TypeValue(_) => None,
            RType::Pointer(inner) => Some(match inner.as_ref() {
                RType::Named(PkgRef::Repo(p), n, ..) => self.type_flow(*p, n),
                // A type from outside, named as the external values are.
                RType::Named(PkgRef::Ext(path), n, ..) if !path.is_empty() => {
                    vec![self.external_value(format!("*{path}.{n}"))]
                }
                // A pointer to a basic type, or one no method can be called on.
                _ => Vec::new(),
            }),
            RType::Named(PkgRef::Repo(p), n, ..) => match self.type_body(*p, n) {
                Some((_, GoTypeBody::Interface { .. })) => None,
                Some((tci, GoTypeBody::Other(inner))) => {
                    // `type Handler = http.Handler` is still an interface; a
                    // named slice, map or channel type is a concrete type of
                    // its own, whose values may have methods; of interfaces,
                    // it also stands for what is stored in it, which is
                    // traced (see `expr_flow_uncached`).
                    let under = self.resolve_type(tci, *inner, 0);
                    self.static_flow_at(&under, depth + 1)
                        .is_some()
                        .then(|| self.type_flow(*p, n))
                }
                Some((_, GoTypeBody::Struct(_))) => Some(self.type_flow(*p, n)),
                None => None,
            },
            RType::Named(PkgRef::Ext(path), n, ..) if path.is_empty() => {
                (!matches!(n.as_str(), "error" | "any")).then(Vec::new)
            }
            RType::Named(PkgRef::Ext(path), n, ..) => {
                let std = go_std::std();
                let qualified = format!("{path}.{n}");
                (std.is_type(&qualified) && std.interface(&qualified).is_none())
                    .then(|| vec![self.external_value(qualified)])
            }
            // A container stands for its elements: of a concrete type, that
            // type (`[]memStore{{}}`, whose elements are spelled `{}`);
            // else what is stored in it, which is traced.
            RType::Slice(elem) | RType::Map(elem) | RType::Chan(elem) => {
                let elem = elem.as_ref().clone();
                self.static_flow_at(&elem, depth + 1)
            }
            RType::Func(_) => Some(Vec::new()),
            RType::Struct(sci, t) => match self.ctxs[*sci].go.types.get(*t as usize) {
                Some(GoType::Interface(_)) => None,
                // An anonymous struct may have methods promoted from its
                // embedded fields; not worth modelling.
                _ => Some(vec![FLOW_UNKNOWN]),
            },
        }
    }

    /// A repository type as a traced type: its declaration.
    fn type_flow(&self, p: usize, name: &str) -> Vec<DeclId> {
        match self.pkgs[p].types.get(name) {
            Some(&(tci, ti)) => vec![self.ctxs[tci].base + self.ctxs[tci].go.type_decls[ti].decl],
            None => vec![FLOW_UNKNOWN],
        }
    }

    fn expr_flow_uncached(&mut self, ci: usize, scope: u32, e: ExprId, depth: u32) -> Vec<DeclId> {
        // A literal or an arithmetic expression: nothing with methods.
        if e == 0 {
            return Vec::new();
        }
        let t = self.type_of(ci, scope, e, 0);
        if let Some(mut flow) = self.static_flow(&t) {
            // `http.HandlerFunc(f)`: a function converted to a library's
            // function type, whose methods call it (the adapter pattern).
            if let RType::Named(PkgRef::Ext(path), ..) = &t
                && !path.is_empty()
                && let GoExpr::Call(c) = *self.expr(ci, e)
            {
                for f in self.converted_functions(ci, scope, c, depth) {
                    push_flow(&mut flow, f);
                }
            }
            return flow;
        }
        let mut flow = self.traced_expr_flow(ci, scope, e, depth);
        // A named container of interfaces (`type nodes chan Node`) holds
        // what was stored in it, traced above, and is a type of its own.
        if let RType::Named(PkgRef::Repo(p), n, ..) = &t
            && matches!(
                self.underlying(t.clone()),
                RType::Slice(_) | RType::Map(_) | RType::Chan(_)
            )
        {
            for d in self.type_flow(*p, n) {
                push_flow(&mut flow, d);
            }
        }
        flow
    }

    /// [`Self::expr_flow_uncached`] for a value whose static type does not
    /// answer: its sources.
    fn traced_expr_flow(&mut self, ci: usize, scope: u32, e: ExprId, depth: u32) -> Vec<DeclId> {
        let unknown = vec![FLOW_UNKNOWN];
        match self.expr(ci, e).clone() {
            GoExpr::Ident(n) => {
                if self.sym(ci, n) == "nil" && self.local(ci, scope, n).is_none() {
                    return Vec::new();
                }
                self.traced(ci, scope, Traced::TypesOfName(n), depth + 1)
            }
            GoExpr::Selector(base, name) => {
                let name = self.sym(ci, name).to_owned();
                if let Some(pkg) = self.package_operand(ci, scope, base) {
                    return match pkg {
                        PkgRef::Repo(p) => match self.pkgs[p].vars.get(&name) {
                            Some(&(vci, vname)) => {
                                self.traced(vci, 0, Traced::TypesOfName(vname), depth + 1)
                            }
                            None => unknown,
                        },
                        // `io.Discard`, `os.Stdout`: a value the library made.
                        PkgRef::Ext(path) => self.library_values(&path),
                    };
                }
                match self.type_of(ci, scope, base, 0).deref() {
                    RType::Named(PkgRef::Repo(p), tname, ..) => {
                        let (p, tname) = (*p, tname.clone());
                        self.field_flow(p, &tname, &name, depth)
                    }
                    &RType::Struct(sci, t) => match self.anonymous_struct(sci, t) {
                        Some((p, pseudo, _)) => self.field_flow(p, &pseudo, &name, depth),
                        None => unknown,
                    },
                    // A field of a standard-library struct (`goflag.Value`
                    // on a *flag.Flag) holds what the library put there: its
                    // own values, or the repository's it was given.
                    RType::Named(PkgRef::Ext(path), ..) if !path.is_empty() => {
                        self.library_values(path)
                    }
                    _ => unknown,
                }
            }
            GoExpr::Call(c) => self.traced(ci, scope, Traced::TypesOfCall(c, 0), depth + 1),
            GoExpr::Nth(inner, n) => match self.expr(ci, inner).clone() {
                GoExpr::Call(c) => self.traced(ci, scope, Traced::TypesOfCall(c, n), depth + 1),
                // `v, ok := m[k]`, `v, ok := x.(I)`
                GoExpr::Index(_) | GoExpr::TypeAssert(..) if n == 0 => {
                    self.flowing_types(ci, scope, inner, depth + 1)
                }
                _ => unknown,
            },
            // `x.(I)` with `I` an interface: what `x` holds (that has
            // I's methods, which the call's lookup checks).
            GoExpr::TypeAssert(operand, _) => self.flowing_types(ci, scope, operand, depth + 1),
            // Elements of a container are traced with the container, as
            // function values are; but a named container type stands for
            // itself there too (see `expr_flow_uncached`), and is not one
            // of its own elements: `c[0].Error()` inside `chain`'s Error
            // is not a call of that Error.
            GoExpr::Index(inner) | GoExpr::RangeValue(inner) => {
                let mut flow = self.flowing_types(ci, scope, inner, depth + 1);
                let t = self.type_of(ci, scope, inner, 0);
                if let RType::Named(PkgRef::Repo(p), n, ..) = t.deref()
                    && flow.first() != Some(&FLOW_UNKNOWN)
                    && matches!(
                        self.underlying(t.deref().clone()),
                        RType::Slice(_) | RType::Map(_) | RType::Chan(_)
                    )
                {
                    let own = self.type_flow(*p, n);
                    let before = flow.len();
                    flow.retain(|d| !own.contains(d));
                    // Only the container itself was known (a receiver of
                    // a type whose stored elements are not traced): its
                    // elements are not known either.
                    if flow.is_empty() && before > 0 {
                        flow.push(FLOW_UNKNOWN);
                    }
                }
                flow
            }
            // A channel's element; else an index or a map key, which is
            // not tracked (and was bound only to find channel elements).
            GoExpr::RangeKey(inner) => {
                if self.is_channel(ci, scope, inner) {
                    self.flowing_types(ci, scope, inner, depth + 1)
                } else {
                    Vec::new()
                }
            }
            GoExpr::Composite(_) => {
                let mut out = Vec::new();
                let elems = self.composite_elems.get(&(ci, e)).cloned();
                for (escope, value) in elems.unwrap_or_default() {
                    for d in self.flowing_types(ci, escope, value, depth + 1) {
                        push_flow(&mut out, d);
                    }
                }
                out
            }
            GoExpr::FuncLit(_) => Vec::new(),
            _ => unknown,
        }
    }

    /// The functions a conversion call (`T(f)`, one argument) converts.
    fn converted_functions(&mut self, ci: usize, scope: u32, call: u32, depth: u32) -> Vec<DeclId> {
        let (callee, args) = {
            let c = &self.ctxs[ci].go.calls[call as usize];
            (c.callee, c.args.clone())
        };
        let [arg] = args.as_slice() else {
            return Vec::new();
        };
        let funcs = self.func_values(ci, scope, *arg, depth + 1);
        if funcs.is_empty()
            || !self
                .callees(ci, scope, callee, depth + 1)
                .iter()
                .any(|c| matches!(c, Callee::NotACall))
        {
            return Vec::new();
        }
        funcs.into_iter().filter(|&f| f < EXTERNAL_VALUE).collect()
    }

    /// Types a variable may hold: every value bound to it where it is
    /// declared, and the arguments passed for it when it is a parameter.
    fn name_flow_uncached(&mut self, ci: usize, scope: u32, name: Sym, depth: u32) -> Vec<DeclId> {
        let mut out = Vec::new();
        if let Some(local) = self.local_sources(ci, scope, name) {
            if local.opaque {
                push_flow(&mut out, FLOW_UNKNOWN);
            }
            if local.from_library {
                push_flow(&mut out, FLOW_EXTERNAL);
            }
            for (sci, sscope, e) in local.values {
                for d in self.flowing_types(sci, sscope, e, depth + 1) {
                    push_flow(&mut out, d);
                }
            }
            return out;
        }
        let text = self.sym(ci, name);
        let pkg = self.ctxs[ci].pkg;
        if self.pkgs[pkg].funcs.contains_key(text) {
            return Vec::new();
        }
        match self.pkgs[pkg].vars.get(text) {
            Some(&(vci, vname)) if vci != ci || scope != 0 => {
                self.traced(vci, 0, Traced::TypesOfName(vname), depth + 1)
            }
            _ => vec![FLOW_UNKNOWN],
        }
    }

    /// What package `path` outside the repository gives back: values it
    /// makes, and the repository types handed to it (to any package, for
    /// package errors, which unwraps what others wrapped:
    /// `errors.Unwrap(fmt.Errorf("…: %w", err))`).
    fn library_values(&self, path: &str) -> Vec<DeclId> {
        let mut out = vec![FLOW_EXTERNAL];
        let handed: Vec<&DeclId> = if path == "errors" {
            self.handed_to_library.values().flatten().collect()
        } else {
            self.handed_to_library
                .get(path)
                .into_iter()
                .flatten()
                .collect()
        };
        for &d in handed {
            push_flow(&mut out, d);
        }
        out
    }

    /// Types stored in a struct field anywhere in the repository.
    fn field_flow(&mut self, p: usize, tname: &str, field: &str, depth: u32) -> Vec<DeclId> {
        let key = self.field_key(p, tname, field);
        let sources = match self.field_sources.get(&key) {
            Some(sources) if !self.field_overflow.contains(&key) => sources.clone(),
            // Set by reflection (a decoder), through a pointer, or never.
            _ => return vec![FLOW_UNKNOWN],
        };
        let mut out = Vec::new();
        for (sci, sscope, e) in sources {
            for d in self.flowing_types(sci, sscope, e, depth + 1) {
                push_flow(&mut out, d);
            }
        }
        out
    }

    /// Types of the `n`-th result of a call: what the functions it reaches
    /// return there, or the converted value of a conversion.
    fn call_flow_uncached(
        &mut self,
        ci: usize,
        scope: u32,
        call: u32,
        n: u8,
        depth: u32,
    ) -> Vec<DeclId> {
        let (callee, args) = {
            let c = &self.ctxs[ci].go.calls[call as usize];
            (c.callee, c.args.clone())
        };
        if n == 0 && self.is_builtin_call(ci, scope, call, "append") {
            let mut out = Vec::new();
            for a in args {
                for d in self.flowing_types(ci, scope, a, depth + 1) {
                    push_flow(&mut out, d);
                }
            }
            return out;
        }
        // A new map or slice holds what is stored in it afterwards, which
        // the variable or field it is assigned to records.
        if self.is_builtin_call(ci, scope, call, "make") {
            return Vec::new();
        }
        let targets = self.fresh_callees(ci, scope, callee, depth);
        if targets.is_empty() {
            return vec![FLOW_UNKNOWN];
        }
        let mut out = Vec::new();
        for t in targets {
            match t {
                Callee::Decl(f, _) => {
                    let returns = self.returns_of.get(&f).cloned().unwrap_or_default();
                    let mut found = false;
                    for (rci, rscope, pos, e) in returns {
                        let flow = if pos == n {
                            self.flowing_types(rci, rscope, e, depth + 1)
                        } else if pos == FORWARDED_RETURN && n > 0 {
                            // `return g()` gives g's n-th result too.
                            match self.expr(rci, e).clone() {
                                GoExpr::Call(c) => {
                                    self.traced(rci, rscope, Traced::TypesOfCall(c, n), depth + 1)
                                }
                                _ => continue,
                            }
                        } else {
                            continue;
                        };
                        found = true;
                        for d in flow {
                            push_flow(&mut out, d);
                        }
                    }
                    if !found {
                        push_flow(&mut out, FLOW_UNKNOWN);
                    }
                }
                Callee::NotACall if n == 0 && args.len() == 1 => {
                    for d in self.flowing_types(ci, scope, args[0], depth + 1) {
                        push_flow(&mut out, d);
                    }
                }
                // A function outside the repository returns values its
                // package makes, or ones the repository handed that package
                // (`errors.New` makes an *errors.errorString; what
                // `atomic.Value.Load` returns was given to `Store`).
                Callee::External(name) | Callee::ExternalValue(name, _) => {
                    // What the library makes, where the table traced every
                    // return (`errors.New` gives an *errors.errorString;
                    // `fmt.Errorf("…: %w", err)` a *fmt.wrapError, never
                    // `err` itself).
                    let made = match (
                        go_std::std().dynamic_results(&name, n),
                        external_package(&name),
                    ) {
                        (Some(types), _) => types
                            .iter()
                            .map(|t| self.external_value((*t).to_owned()))
                            .collect(),
                        (None, Some(p))
                            if self.may_give_back_arguments(ci, scope, &name, &args, depth) =>
                        {
                            self.library_values(p)
                        }
                        _ => vec![FLOW_EXTERNAL],
                    };
                    for d in made {
                        push_flow(&mut out, d);
                    }
                }
                _ => push_flow(&mut out, FLOW_UNKNOWN),
            }
        }
        out
    }

    /// Whether a call of `callee`, outside the repository, may give back
    /// a value of the repository's. A package-level function can only
    /// give back one that reaches it through an argument
    /// (`errors.Unwrap(err)`), or inside a library value that may wrap one
    /// (`fmt.Errorf("%w", err)`); `strconv.Atoi(s)` gives back what it
    /// makes. A method may give back what its receiver was handed.
    fn may_give_back_arguments(
        &mut self,
        ci: usize,
        scope: u32,
        callee: &str,
        args: &[ExprId],
        depth: u32,
    ) -> bool {
        callee.starts_with('(')
            || args.iter().any(|&a| {
                self.flowing_types(ci, scope, a, depth + 1)
                    .iter()
                    .any(|&d| d == FLOW_UNKNOWN || !(FLOW_EXTERNAL..EXTERNAL_VALUE).contains(&d))
            })
    }

    /// Narrow the callees of `receiver.name(…)` through an interface to
    /// the methods of the types that flow to the receiver. When what flows
    /// is unknown, or nothing implementing the interface is found to flow
    /// (a gap in the tracing rather than a call that cannot happen), every
    /// implementation stays; but with `outside_only_leaves_none`, values
    /// that all come from outside the repository leave none of its own.
    fn narrowed(
        &mut self,
        callees: Vec<Callee>,
        at: (usize, u32),
        receiver: ExprId,
        name: &str,
        depth: u32,
        outside_only_leaves_none: bool,
    ) -> Vec<Callee> {
        let (ci, scope) = at;
        // No type implements the whole interface, but a wrapper that gets
        // the method from an embedded interface may flow here (`struct{
        // Named }` used as a Walker): the call goes on to what that field
        // holds.
        if self.narrow_interface_calls
            && !callees.is_empty()
            && callees.iter().all(|c| matches!(c, Callee::Unresolved(_)))
        {
            let flow = self.flowing_types(ci, scope, receiver, depth + 1);
            return self.known_flow_methods(&flow, name).unwrap_or(callees);
        }
        if !self.may_narrow(&callees) {
            return callees;
        }
        let flow = self.flowing_types(ci, scope, receiver, depth + 1);
        self.narrowed_by(callees, flow, name, outside_only_leaves_none)
    }

    /// Whether narrowing is on and some callee is a method it could keep.
    fn may_narrow(&self, callees: &[Callee]) -> bool {
        self.narrow_interface_calls
            && callees
                .iter()
                .any(|c| matches!(c, Callee::Decl(..) | Callee::ExternalValue(..)))
    }

    /// [`Self::narrowed`] to what `flow` says reaches the receiver.
    fn narrowed_by(
        &mut self,
        callees: Vec<Callee>,
        flow: Vec<DeclId>,
        name: &str,
        outside_only_leaves_none: bool,
    ) -> Vec<Callee> {
        if !self.may_narrow(&callees) || flow.contains(&FLOW_UNKNOWN) {
            return callees;
        }
        let external = flow.contains(&FLOW_EXTERNAL);
        let Some(mut methods) = self.flow_methods(&flow, name, 0) else {
            return callees;
        };
        // A value made by a package outside the repository (an
        // http.HandlerFunc, a *http.ServeMux) may pass the call on to what
        // the repository handed that package: the handlers given to
        // mux.Handle are served through it.
        // Types from outside the repository add their method, when the
        // standard-library table has it (`*httptest.ResponseRecorder`
        // behind an http.ResponseWriter).
        let std = go_std::std();
        let mut libraries: Vec<&str> = Vec::new();
        let mut outside: Vec<String> = Vec::new();
        for &d in &flow {
            let Some(t) = d
                .checked_sub(EXTERNAL_VALUE)
                .and_then(|i| self.external_values.get(i as usize))
            else {
                continue;
            };
            let qualified = t.trim_start_matches('*');
            let Some((path, tname)) = qualified.rsplit_once('.') else {
                continue;
            };
            if !libraries.contains(&path) {
                libraries.push(path);
            }
            if std.method(qualified, name).is_some() {
                outside.push(external_method(path, tname, name));
            }
        }
        // A repository type's method promoted from an embedded
        // standard-library type (`struct{ *log.Logger }` has Prefix).
        let mut promoted: Vec<String> = Vec::new();
        for &d in &flow {
            if let Some((p, t)) = self.type_names.get(&d).cloned()
                && self.method(p, &t, name, 0).is_none()
                && let Some(m) = self.promoted_std_method(p, &t, name, 0)
                && !promoted.contains(&m)
            {
                promoted.push(m);
            }
        }
        // Not through a function converted to a library's function type
        // (`http.HandlerFunc(f)`): its method calls only `f`.
        let converted = flow
            .iter()
            .any(|d| *d < FLOW_EXTERNAL && !self.type_names.contains_key(d));
        let handed: Vec<DeclId> = if converted {
            Vec::new()
        } else {
            libraries
                .iter()
                .filter_map(|path| self.handed_to_library.get(*path))
                .flatten()
                .copied()
                .collect()
        };
        if debug_handed() && !handed.is_empty() {
            eprintln!(
                "narrow .{name}: libraries {libraries:?}, {} handed",
                handed.len()
            );
        }
        for d in handed {
            if let Some((p, t)) = self.type_names.get(&d)
                && let Some(m) = self.method(*p, t, name, 0)
                && !methods.contains(&m)
            {
                methods.push(m);
            }
        }
        // Functions converted to a library's function type, whose method
        // (`(net/http.HandlerFunc).ServeHTTP`) calls them: a trace holds
        // nothing else but types.
        let adapted: Vec<DeclId> = if outside.is_empty() {
            Vec::new()
        } else {
            flow.iter()
                .copied()
                .filter(|d| *d < FLOW_EXTERNAL && !self.type_names.contains_key(d))
                .collect()
        };
        let mut kept: Vec<Callee> = callees
            .iter()
            .filter(|c| match c {
                Callee::Decl(d, _) => methods.contains(d),
                Callee::ExternalValue(m, _) => {
                    external || outside.contains(m) || promoted.contains(m)
                }
                _ => true,
            })
            .cloned()
            .collect();
        for f in adapted {
            for m in &outside {
                kept.push(Callee::Through(m.clone(), f));
            }
        }
        for m in outside {
            push_external(&mut kept, m);
        }
        let from_outside_only = methods.is_empty()
            && flow
                .iter()
                .all(|&d| d == FLOW_EXTERNAL || d >= EXTERNAL_VALUE);
        if kept
            .iter()
            .any(|c| matches!(c, Callee::Decl(..) | Callee::ExternalValue(..)))
            || (outside_only_leaves_none && from_outside_only)
        {
            kept
        } else {
            callees
        }
    }

    /// A call of method `name` through standard-library interface `iface`
    /// whose receiver holds only values the library made: the methods of
    /// the types behind them, which whole-program call graphs name (an
    /// `errors.New` result's Error is `(*errors.errorString).Error`; an
    /// http.ResponseWriter handed to a handler is one of the types net/http
    /// converts to it). A value of unknown make keeps the interface's
    /// method among the callees; empty when nothing is known.
    fn library_made_methods(&mut self, flow: &[DeclId], iface: &str, name: &str) -> Vec<Callee> {
        if flow.is_empty() || flow.contains(&FLOW_UNKNOWN) {
            return Vec::new();
        }
        let std = go_std::std();
        let mut types: Vec<String> = Vec::new();
        let mut opaque = false;
        for &d in flow {
            if d == FLOW_EXTERNAL {
                match std.implementations(iface) {
                    Some(made) => {
                        let own = iface.rsplit_once('.').map_or("", |(p, _)| p);
                        let imported = self.imported_paths();
                        for t in made {
                            let path = t
                                .trim_start_matches('*')
                                .rsplit_once('.')
                                .map_or("", |(p, _)| p);
                            if (path == own || imported.contains(path))
                                && !types.iter().any(|have| have == t)
                            {
                                types.push((*t).to_owned());
                            }
                        }
                    }
                    None => opaque = true,
                }
            } else if let Some(t) = d
                .checked_sub(EXTERNAL_VALUE)
                .and_then(|i| self.external_values.get(i as usize))
            {
                types.push(t.clone());
            }
        }
        let mut out: Vec<Callee> = Vec::new();
        for t in &types {
            let qualified = t.trim_start_matches('*');
            match qualified.rsplit_once('.') {
                Some((path, tname)) if std.method(qualified, name).is_some() => {
                    push_external(&mut out, external_method(path, tname, name));
                }
                _ => opaque = true,
            }
        }
        if opaque && !out.is_empty() {
            let interface_method = match iface.rsplit_once('.') {
                Some((path, tname)) => external_method(path, tname, name),
                None => format!("({iface}).{name}"),
            };
            push_external(&mut out, interface_method);
        }
        out
    }

    /// Import paths some file of the repository imports.
    fn imported_paths(&mut self) -> &HashSet<String> {
        let ctxs = &self.ctxs;
        self.imported_paths.get_or_insert_with(|| {
            ctxs.iter()
                .flat_map(|c| {
                    c.go.imports
                        .iter()
                        .map(|&(_, path)| c.facts.sym(path).to_owned())
                })
                .collect()
        })
    }

    /// Methods whose receiver is of a named function type.
    fn find_func_receivers(&mut self) {
        for ci in 0..self.ctxs.len() {
            let (pkg, base, go) = (self.ctxs[ci].pkg, self.ctxs[ci].base, self.ctxs[ci].go);
            for f in &go.funcs {
                let (Some((recv, _)), Some(name)) = (f.recv, f.recv_name) else {
                    continue;
                };
                let recv = receiver_type_name(self.sym(ci, recv)).to_owned();
                if self.is_func_type(&RType::Named(PkgRef::Repo(pkg), recv, Vec::new())) {
                    self.func_receivers.insert(base + f.decl, name);
                }
            }
        }
    }

    /// The method whose receiver `name` is, seen from `scope` (a closure
    /// inside the method included), when it is one of [`Self::func_receivers`].
    fn func_receiver_of(&self, ci: usize, scope: u32, name: Sym) -> Option<DeclId> {
        let mut s = Some(scope);
        while let Some(cur) = s {
            if self.ctxs[ci].bindings.contains_key(&(cur, name)) {
                let f = self.ctxs[ci].base + cur;
                return (self.func_receivers.get(&f) == Some(&name)).then_some(f);
            }
            s = self.scope_parent(ci, cur);
        }
        None
    }

    /// `sort.Sort(byAge(people))`, `http.Handle("/", api{})`: the library
    /// calls the methods of the interface its parameter is declared as on
    /// the repository types passed there; and `fmt.Println(v)` or
    /// `json.Marshal(v)` take `any` but call the methods of the optional
    /// interfaces `v` may implement (`String`, `MarshalJSON`). Each is a
    /// likely callee of the caller, as a function handed to a library is
    /// (see [`Self::note_handed_out`]).
    fn edges_to_interface_methods_handed(
        &mut self,
        b: &mut Builder,
        ci: usize,
        call: usize,
        caller: DeclId,
        callee: &str,
    ) {
        let std = go_std::std();
        let scope = self.ctxs[ci].facts.calls[call].caller;
        let file = self.ctxs[ci].file;
        let args = self.ctxs[ci].go.calls[call].args.clone();
        let mut handed: SmallVec<[HandedParam; 2]> = SmallVec::new();
        for &(index, variadic, iface) in std.interface_params(callee) {
            if let Some(methods) = std.interface(iface) {
                handed.push((
                    index as usize,
                    variadic,
                    methods.iter().map(|&(m, _)| m).collect(),
                ));
            }
        }
        if let Some((index, variadic, methods)) = optional_methods_called(callee) {
            handed.push((index, variadic, methods.iter().copied().collect()));
        }
        let mut seen: SmallVec<[DeclId; 4]> = SmallVec::new();
        for (index, variadic, methods) in handed {
            let last = if variadic { args.len() } else { index + 1 };
            for &a in args.get(index..last.min(args.len())).unwrap_or(&[]) {
                if a == 0 {
                    continue;
                }
                let t = self.type_of(ci, scope, a, 0);
                let flow = match self.static_flow(&t) {
                    Some(flow) => flow,
                    None => match self.few_traced_types(ci, scope, a) {
                        Some(flow) => flow,
                        None => continue,
                    },
                };
                for d in flow {
                    let Some((p, tname)) = self.type_names.get(&d).cloned() else {
                        continue;
                    };
                    for name in &methods {
                        if let Some(m) = self.method(p, &tname, name, 0)
                            && !seen.contains(&m)
                        {
                            seen.push(m);
                            b.edge(caller, m, Confidence::Likely, file, call as u32);
                        }
                    }
                }
            }
        }
    }

    /// The types traced to an interface-typed argument handed to a library,
    /// when they are few and all known. Traced through merged parameter
    /// sources, an `error` or `ast.Node` argument can be dozens of types,
    /// each then taken as called by the library or held by every struct
    /// of its package; a handler variable holding one of a few names them.
    fn few_traced_types(&mut self, ci: usize, scope: u32, arg: ExprId) -> Option<Vec<DeclId>> {
        let flow = self.flowing_types(ci, scope, arg, 0);
        (!flow.contains(&FLOW_UNKNOWN) && flow.len() <= MAX_HANDED_TYPES).then_some(flow)
    }

    /// Record, for every call with known targets, which argument expressions
    /// flow into which parameters (what a function-typed parameter may hold).
    fn collect_param_sources(&mut self) {
        let mut sources: HashMap<(DeclId, usize), Vec<ValueSource>> = HashMap::default();
        let mut overflow: HashSet<(DeclId, usize)> = HashSet::default();
        let mut receivers: HashMap<DeclId, Vec<ValueSource>> = HashMap::default();
        for ci in 0..self.ctxs.len() {
            for call in 0..self.ctxs[ci].go.calls.len() {
                let scope = self.ctxs[ci].facts.calls[call].caller;
                let (callee, args) = {
                    let c = &self.ctxs[ci].go.calls[call];
                    (c.callee, c.args.clone())
                };
                if args.is_empty() {
                    continue;
                }
                for t in self.callees(ci, scope, callee, 0) {
                    if let Callee::External(name) = &t {
                        self.note_handed_to_library(ci, scope, name, &args);
                        continue;
                    }
                    let Callee::Decl(f, _) = t else { continue };
                    if self.func_receivers.contains_key(&f)
                        && let GoExpr::Selector(recv, _) = *self.expr(ci, callee)
                    {
                        let list = receivers.entry(f).or_default();
                        if list.len() < MAX_SOURCES && !list.contains(&(ci, scope, recv)) {
                            list.push((ci, scope, recv));
                        }
                    }
                    // Arguments past the last parameter fill a variadic one
                    // (`NewCJK(WithA(), WithB())` into `opts ...Option`).
                    let last = self
                        .params_of
                        .get(&f)
                        .and_then(|ps| ps.len().checked_sub(1))
                        .unwrap_or(usize::MAX);
                    for (i, &a) in args.iter().enumerate() {
                        let i = i.min(last);
                        // A literal (expression 0) holds no function and no
                        // value with methods.
                        if a == 0 {
                            continue;
                        }
                        let list = sources.entry((f, i)).or_default();
                        if list.len() < MAX_SOURCES {
                            list.push((ci, scope, a));
                        } else {
                            overflow.insert((f, i));
                        }
                    }
                }
            }
        }

        self.param_sources = sources;
        self.param_overflow = overflow;
        self.receiver_sources = receivers;
        // Traced values depend on the parameter sources just replaced.
        self.trace_memo.clear();
    }

    /// Repository types whose values a call gives to a package outside
    /// the repository (`flag.Var(&list, …)`): that package may hand them
    /// back, from a field of its own structs.
    fn note_handed_to_library(&mut self, ci: usize, scope: u32, callee: &str, args: &[ExprId]) {
        let Some(package) = external_package(callee) else {
            return;
        };
        for &a in args {
            if a == 0 {
                continue;
            }
            let funcs = self.func_values(ci, scope, a, 0);
            if !funcs.is_empty() {
                let known = self
                    .funcs_handed_to_library
                    .entry(package.to_owned())
                    .or_default();
                for d in funcs {
                    push_decl(known, d);
                }
            }
            let t = self.type_of(ci, scope, a, 0);
            // A value of a named basic type (`ssa.NaiveForm`, a `Kind`
            // printed or compared) is not one the library keeps and hands
            // back from its structs' fields.
            if matches!(t, RType::Named(PkgRef::Repo(_), ..))
                && matches!(self.underlying(t.clone()),
                    RType::Named(PkgRef::Ext(path), name, _)
                        if path.is_empty() && name != "error" && name != "any")
            {
                continue;
            }
            // The argument's own type, or for an interface value
            // (`last.Store(err)`) the types traced to it, once a first pass
            // has found what callers pass; the repository's only.
            let flow: Vec<DeclId> = match self.static_flow(&t) {
                Some(flow) => flow,
                // Of unknown type (a library call's string result, which the
                // table leaves out): what tracing finds is noise.
                None if matches!(t, RType::Unknown) => continue,
                None => match self.few_traced_types(ci, scope, a) {
                    Some(flow) => flow,
                    None => continue,
                },
            }
            .into_iter()
            .filter(|d| self.type_names.contains_key(d))
            .collect();
            if debug_handed() && !flow.is_empty() {
                let names: Vec<&str> = flow
                    .iter()
                    .filter_map(|d| self.type_names.get(d).map(|(_, n)| n.as_str()))
                    .collect();
                eprintln!("handed to {package} by {callee}: {names:?}");
            }
            if !flow.is_empty() {
                let known = self
                    .handed_to_library
                    .entry(package.to_owned())
                    .or_default();
                for d in flow {
                    push_flow(known, d);
                }
            }
        }
    }

    fn collect_field_sources(&mut self) {
        for ci in 0..self.ctxs.len() {
            for &(scope, composite, key, value) in &self.ctxs[ci].go.composite_elems {
                self.composite_elems
                    .entry((ci, composite))
                    .or_default()
                    .push((scope, value));
                let Some((p, holder, fields)) =
                    self.field_holder(&self.type_of(ci, scope, composite, 0))
                else {
                    continue;
                };
                let field = match key {
                    ElemKey::Name(n) => Some(self.sym(ci, n).to_owned()),
                    ElemKey::Position(i) => match fields {
                        Some(names) => names.get(i as usize).cloned(),
                        None => self.field_name_at(p, &holder, i as usize),
                    },
                    ElemKey::Other => None,
                };
                if let Some(field) = field {
                    self.add_field_source(p, &holder, &field, (ci, scope, value));
                }
            }
            for &(scope, target, value) in &self.ctxs[ci].go.field_assigns {
                let GoExpr::Selector(base, field) = self.expr(ci, target) else {
                    continue;
                };
                let field = self.sym(ci, *field);
                if let Some((p, holder, _)) = self.field_holder(&self.type_of(ci, scope, *base, 0))
                {
                    self.add_field_source(p, &holder, field, (ci, scope, value));
                }
            }
        }
    }

    /// One more value stored in a field, keyed by the struct that declares
    /// the field (`outer.f = v` may set a field promoted from `inner`).
    fn add_field_source(&mut self, p: usize, tname: &str, field: &str, source: ValueSource) {
        if source.2 == 0 {
            return;
        }
        let key = self.field_key(p, tname, field);
        let list = self.field_sources.entry(key.clone()).or_default();
        if list.len() < MAX_SOURCES {
            list.push(source);
        } else {
            self.field_overflow.insert(key);
        }
    }

    /// A named slice, map or channel type of the repository as the type it
    /// is declared over (`type nodeStack []Node`: `(*s)[i]` is a Node);
    /// any other type as it is.
    fn underlying(&self, t: RType) -> RType {
        let mut t = t;
        for _ in 0..8 {
            let RType::Named(PkgRef::Repo(p), name, args) = &t else {
                return t;
            };
            let Some((tci, GoTypeBody::Other(inner))) = self.type_body(*p, name) else {
                return t;
            };
            let env = self.type_env(*p, name, args);
            let under = self.resolve_type_in(tci, *inner, 0, &env);
            match under {
                RType::Slice(_) | RType::Map(_) | RType::Chan(_) | RType::Named(..) => t = under,
                _ => return t,
            }
        }
        t
    }

    /// A repository type declared over an interface (`type FileInfo =
    /// fs.FileInfo`, or `type Info fs.FileInfo`) as that interface: its
    /// methods are the interface's, so a call through it dispatches as one
    /// through the interface. Any other type as it is.
    fn interface_behind(&self, t: RType, depth: u32) -> RType {
        if depth > 8 {
            return t;
        }
        let RType::Named(PkgRef::Repo(p), name, ..) = &t else {
            return t;
        };
        let Some((tci, GoTypeBody::Other(inner))) = self.type_body(*p, name) else {
            return t;
        };
        // Through a chain of such declarations (`type A = B; type B = io.Reader`).
        let under = self.interface_behind(self.resolve_type(tci, *inner, 0), depth + 1);
        let is_interface = match &under {
            RType::Named(PkgRef::Repo(q), n, ..) => {
                matches!(
                    self.type_body(*q, n),
                    Some((_, GoTypeBody::Interface { .. }))
                )
            }
            RType::Named(PkgRef::Ext(path), n, ..) if path.is_empty() => n == "error",
            RType::Named(PkgRef::Ext(path), n, ..) => {
                go_std::std().interface(&format!("{path}.{n}")).is_some()
            }
            _ => false,
        };
        if is_interface { under } else { t }
    }

    /// Whether `e` is a channel (of a named channel type or not).
    fn is_channel(&self, ci: usize, scope: u32, e: ExprId) -> bool {
        matches!(self.underlying_type_of(ci, scope, e, 0), RType::Chan(_))
    }

    /// [`Self::type_of`], a named container type as the one it is declared over.
    fn underlying_type_of(&self, ci: usize, scope: u32, e: ExprId, depth: u32) -> RType {
        let t = self.type_of(ci, scope, e, depth);
        self.underlying(t)
    }

    /// A function type, directly or as a named type over one (`type HandlerFunc func(…)`).
    fn is_func_type(&self, t: &RType) -> bool {
        match t {
            RType::Func(_) => true,
            RType::Named(PkgRef::Repo(p), name, ..) => match self.type_body(*p, name) {
                Some((tci, GoTypeBody::Other(inner))) => {
                    matches!(self.resolve_type(tci, *inner, 0), RType::Func(_))
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// The name of a struct's n-th field (an embedded field is named by its type).
    /// An anonymous struct type (`[]struct{ name string; fn func() }`, a
    /// test table) as a pseudo type name whose fields can hold sources:
    /// its package and its field names. Two such types of one package
    /// with the same field names share their fields, as Go's identical
    /// types do (the literal's type and a variable's, written twice).
    /// The struct whose fields a value of type `t` (through pointers) has,
    /// as field sources key it: a repository type, or an anonymous struct
    /// with its field names in order.
    fn field_holder(&self, t: &RType) -> Option<(usize, String, Option<Vec<String>>)> {
        match t.deref() {
            RType::Named(PkgRef::Repo(p), name, ..) => Some((*p, name.clone(), None)),
            &RType::Struct(sci, t) => self
                .anonymous_struct(sci, t)
                .map(|(p, pseudo, names)| (p, pseudo, Some(names))),
            _ => None,
        }
    }

    fn anonymous_struct(&self, sci: usize, t: TypeId) -> Option<(usize, String, Vec<String>)> {
        let Some(GoType::Struct(fields)) = self.ctxs[sci].go.types.get(t as usize) else {
            return None;
        };
        let names: Vec<String> = fields
            .iter()
            .map(|f| match f.name {
                Some(n) => self.sym(sci, n).to_owned(),
                None => match self.resolve_type(sci, f.ty, 0).deref() {
                    RType::Named(_, name, ..) => name.clone(),
                    _ => String::new(),
                },
            })
            .collect();
        let pseudo = format!("struct{{{}}}", names.join("; "));
        Some((self.ctxs[sci].pkg, pseudo, names))
    }

    fn field_name_at(&self, pkg: usize, tname: &str, n: usize) -> Option<String> {
        let (tci, body) = self.type_body(pkg, tname)?;
        let GoTypeBody::Struct(fields) = body else {
            return None;
        };
        let f = fields.get(n)?;
        match f.name {
            Some(name) => Some(self.sym(tci, name).to_owned()),
            None => match self.resolve_type(tci, f.ty, 0).deref() {
                RType::Named(_, name, ..) => Some(name.clone()),
                _ => None,
            },
        }
    }

    /// Functions assigned to a struct field anywhere in the repository.
    fn field_func_values(&mut self, p: usize, tname: &str, field: &str, depth: u32) -> Vec<DeclId> {
        let key = self.field_key(p, tname, field);
        let mut out = Vec::new();
        for (sci, sscope, e) in self.field_sources.get(&key).cloned().unwrap_or_default() {
            for d in self.func_values(sci, sscope, e, depth + 1) {
                push_decl(&mut out, d);
            }
        }
        out
    }

    fn callees(&mut self, ci: usize, scope: u32, callee: ExprId, depth: u32) -> Vec<Callee> {
        if depth > 8 {
            return vec![Callee::Unresolved("callee too deeply nested".to_owned())];
        }
        match self.expr(ci, callee).clone() {
            GoExpr::Ident(n) => {
                let name = self.sym(ci, n);
                if self.local(ci, scope, n).is_some() {
                    let vals = self.ident_func_values(ci, scope, n, depth);
                    if vals.is_empty() {
                        return vec![Callee::Unresolved(format!(
                            "`{name}` holds a function value that could not be traced"
                        ))];
                    }
                    return self.func_value_callees(vals);
                }
                let pkg = self.ctxs[ci].pkg;
                if let Some(&(fci, fi)) = self.pkgs[pkg].funcs.get(name) {
                    let d = self.ctxs[fci].base + self.ctxs[fci].go.funcs[fi as usize].decl;
                    return vec![Callee::Decl(d, Confidence::Certain)];
                }
                if BUILTIN_FUNCS.contains(&name)
                    || BUILTIN_TYPES.contains(&name)
                    || self.pkgs[pkg].types.contains_key(name)
                {
                    return vec![Callee::NotACall];
                }
                if let Some(dot) = self.dot_package(ci, name) {
                    return self.package_member_callees(dot, name, depth);
                }
                vec![Callee::Unresolved(format!(
                    "`{name}` is not declared in package {}",
                    self.pkgs[pkg].path
                ))]
            }
            GoExpr::FuncLit(d) => vec![Callee::Decl(self.ctxs[ci].base + d, Confidence::Certain)],
            // `Map[int](xs)` instantiates a generic function; `handlers[k](x)`
            // calls an element of a map or slice of functions.
            GoExpr::Index(inner) => {
                let direct = self.callees(ci, scope, inner, depth + 1);
                if direct.iter().all(|c| matches!(c, Callee::Unresolved(_))) {
                    let vals = self.func_values(ci, scope, callee, depth + 1);
                    if !vals.is_empty() {
                        return self.func_value_callees(vals);
                    }
                }
                direct
            }
            GoExpr::Type(_) | GoExpr::Composite(_) => vec![Callee::NotACall],
            GoExpr::Selector(base, name) => {
                let name_s = self.sym(ci, name);
                if let Some(pkg) = self.package_operand(ci, scope, base) {
                    return self.package_member_callees(pkg, name_s, depth);
                }
                let bt = self.type_of(ci, scope, base, 0);
                let (is_type_value, t) = match bt {
                    RType::TypeValue(t) => (true, *t),
                    other => (false, other),
                };
                match self.interface_behind(t.deref().clone(), 0) {
                    RType::Named(PkgRef::Repo(p), tname, args) => {
                        if let Some(m) = self.method(p, &tname, name_s, 0) {
                            return vec![Callee::Decl(m, Confidence::Certain)];
                        }
                        if let Some(out) = self.interface_call(p, &tname, name_s) {
                            let name = name_s.to_owned();
                            return self.narrowed(out, (ci, scope), base, &name, depth, false);
                        }
                        if let Some(ft) = self.field_type(p, &tname, name_s, &args, 0)
                            && self.is_func_type(&ft)
                        {
                            let vals = self.field_func_values(p, &tname, name_s, depth);
                            if vals.is_empty() {
                                return vec![Callee::Unresolved(format!(
                                    "`.{name_s}` is a function-valued field with no traced assignment"
                                ))];
                            }
                            return self.func_value_callees(vals);
                        }
                        let _ = is_type_value;
                        // Promoted from an embedded interface (`struct{ Store }`):
                        // a call through the interface the field holds.
                        if let Some((ip, iname)) = self.embedded_interface(p, &tname, name_s)
                            && let Some(out) = self.interface_call(ip, &iname, name_s)
                        {
                            let flow = self.field_flow(p, &tname, &iname, depth + 1);
                            return self.narrowed_by(out, flow, name_s, false);
                        }
                        // Promoted from an embedded interface from outside
                        // (`struct{ error; depth int }`): the call goes on
                        // to what the field holds.
                        if let Some(iface) = self.embedded_std_interface(p, &tname, name_s) {
                            let flow = self.field_flow(p, &tname, &iface, depth + 1);
                            if let Some(callees) = self.known_flow_methods(&flow, name_s) {
                                return callees;
                            }
                        }
                        // Promoted from an embedded type outside the repository
                        // (`struct { bytes.Buffer }` has WriteString).
                        if let Some((path, ext)) = self.external_embedded(p, &tname, 0) {
                            return vec![Callee::External(external_method(&path, &ext, name_s))];
                        }
                        vec![Callee::Unresolved(format!(
                            "`{name_s}` not found on {tname}"
                        ))]
                    }
                    RType::Named(PkgRef::Ext(path), tname, ..) => {
                        // A well-known interface (io.Writer, error, fmt.Stringer…):
                        // every repository type with that method set may be behind it.
                        let qualified = if path.is_empty() {
                            tname.clone()
                        } else {
                            format!("{path}.{tname}")
                        };
                        if let Some(methods) = std_interface(&qualified) {
                            let name = name_s.to_owned();
                            let out = self.possible_methods(methods, &name);
                            // Only values from the library itself: the call
                            // stays the interface's method, outside.
                            let mut out = self.narrowed(out, (ci, scope), base, &name, depth, true);
                            // No repository type has the whole method set,
                            // but a wrapper that gets part of it from an
                            // embedded interface may flow here: the call
                            // goes on to what that field holds.
                            if out.is_empty() && self.narrow_interface_calls {
                                let flow = self.flowing_types(ci, scope, base, depth + 1);
                                if !flow.contains(&FLOW_UNKNOWN)
                                    && let Some(methods) = self.flow_methods(&flow, &name, 0)
                                {
                                    out.extend(
                                        methods
                                            .into_iter()
                                            .map(|m| Callee::Decl(m, Confidence::Possible)),
                                    );
                                }
                            }
                            if out.is_empty() && self.narrow_interface_calls {
                                let flow = self.flowing_types(ci, scope, base, depth + 1);
                                out = self.library_made_methods(&flow, &qualified, &name);
                            }
                            if out.is_empty() {
                                out.push(Callee::External(if path.is_empty() {
                                    format!("({qualified}).{name_s}")
                                } else {
                                    external_method(&path, &tname, name_s)
                                }));
                            }
                            return out;
                        }
                        if path.is_empty() {
                            return vec![Callee::External(format!("({tname}).{name_s}"))];
                        }
                        vec![Callee::External(external_method(&path, &tname, name_s))]
                    }
                    // `var cache struct { sync.RWMutex; m map[K]V }`:
                    // `cache.RLock()` is promoted from the embedded field.
                    // `if u, ok := err.(interface{ Usage() string }); ok { u.Usage() }`
                    RType::Struct(sci, t)
                        if let Some(GoType::Interface(methods)) =
                            self.ctxs[sci].go.types.get(t as usize) =>
                    {
                        let methods: Vec<(&str, u16)> = methods
                            .iter()
                            .map(|&(m, a)| (self.sym(sci, m), a))
                            .collect();
                        let out = self.possible_methods(&methods, name_s);
                        if out.is_empty() {
                            vec![Callee::Unresolved(format!(
                                "no type in the repository has `{name_s}`"
                            ))]
                        } else {
                            out
                        }
                    }
                    RType::Struct(sci, t) => match self.anonymous_struct_method(sci, t, name_s) {
                        Some(callee) => vec![callee],
                        None => {
                            // A function-valued field (`tt.fn()` of a test table).
                            let vals = match self.anonymous_struct(sci, t) {
                                Some((p, pseudo, _)) => {
                                    self.field_func_values(p, &pseudo, name_s, depth)
                                }
                                None => Vec::new(),
                            };
                            if vals.is_empty() {
                                vec![Callee::Unresolved(format!(
                                    "`.{name_s}` of an anonymous struct could not be resolved"
                                ))]
                            } else {
                                self.func_value_callees(vals)
                            }
                        }
                    },
                    _ => vec![Callee::Unresolved(format!(
                        "the receiver of `.{name_s}` has no known type"
                    ))],
                }
            }
            GoExpr::Call(_) | GoExpr::Nth(..) => {
                let vals = self.func_values(ci, scope, callee, depth);
                if vals.is_empty() {
                    return vec![Callee::Unresolved(
                        "callee is a function returned by a call that could not be traced"
                            .to_owned(),
                    )];
                }
                self.func_value_callees(vals)
            }
            GoExpr::Unknown => vec![Callee::Unresolved(
                "callee is a function returned by a call".to_owned(),
            )],
            // `(*T)(nil)`, as in `var _ I = (*T)(nil)`: a conversion.
            GoExpr::Deref(_)
                if matches!(self.type_of(ci, scope, callee, 0), RType::TypeValue(_)) =>
            {
                vec![Callee::NotACall]
            }
            _ => vec![Callee::Unresolved("dynamic callee".to_owned())],
        }
    }

    /// A call of method `name` on the repository's interface `p.iface`:
    /// every implementing type's method (Possible), or None when `iface`
    /// is no interface. Memoised: a common interface (`error`-like, or a
    /// `Node` with hundreds of implementors) is called at thousands of
    /// sites, and each answer walks every implementor.
    fn interface_call(&mut self, p: usize, iface: &str, name: &str) -> Option<Vec<Callee>> {
        let key = (p, iface.to_owned(), name.to_owned());
        if let Some(memo) = self.interface_calls.get(&key) {
            return memo.clone();
        }
        let out = self.interface_call_uncached(p, iface, name);
        self.interface_calls.insert(key, out.clone());
        out
    }

    fn interface_call_uncached(
        &mut self,
        p: usize,
        iface: &str,
        name: &str,
    ) -> Option<Vec<Callee>> {
        let wanted = self.interface_methods(p, iface, 0)?;
        let impls = self.implementors(p, iface);
        let mut out = Vec::new();
        for (ip, it) in impls {
            if let Some(m) = self.method(ip, &it, name, 0) {
                out.push(Callee::Decl(m, Confidence::Possible));
            } else if let Some(m) = self.promoted_std_method(ip, &it, name, 0) {
                push_external(&mut out, m);
            }
        }
        // `util.BufWriter` holds the `*bufio.Writer` that
        // `bufio.NewWriter` made.
        for (path, ext) in self.std_implementors(p, iface, &wanted) {
            out.push(Callee::ExternalValue(
                external_method(&path, &ext, name),
                Confidence::Possible,
            ));
        }
        if out.is_empty() {
            return Some(vec![Callee::Unresolved(format!(
                "no type in the repository implements {iface}"
            ))]);
        }
        Some(out)
    }

    fn emit(&mut self, b: &mut Builder, ci: usize, call: usize) {
        let facts = self.ctxs[ci].facts;
        let site = &facts.calls[call];
        let scope = site.caller;
        let caller = self.ctxs[ci].base + scope;
        let callee = self.ctxs[ci].go.calls[call].callee;
        let file = self.ctxs[ci].file;
        let targets = self.callees(ci, scope, callee, 0);
        let mut resolved = false;
        // The callee is code ripple does not follow (the standard library,
        // another module, or nothing found): functions passed to it may be
        // called from there (`http.HandleFunc("/", handler)`).
        let mut opaque = false;
        // Whether the callee is library code that calls what it is handed.
        let mut calls_handed = false;
        let mut library_callees: SmallVec<[String; 1]> = SmallVec::new();
        for t in &targets {
            if let Callee::External(name) | Callee::ExternalValue(name, _) = t
                && (!go_std::std().interface_params(name).is_empty()
                    || optional_methods_called(name).is_some())
            {
                library_callees.push(name.clone());
            }
        }
        for name in library_callees {
            self.edges_to_interface_methods_handed(b, ci, call, caller, &name);
        }
        for t in targets {
            match t {
                Callee::Decl(d, conf) => {
                    b.edge(caller, d, conf, file, call as u32);
                    resolved = true;
                }
                Callee::External(name) => {
                    let d = b.external(&name, Lang::Go);
                    b.edge(caller, d, Confidence::Certain, file, call as u32);
                    resolved = true;
                    opaque = true;
                    calls_handed |= library_calls_what_it_is_handed(&name);
                }
                Callee::ExternalValue(name, conf) => {
                    let d = b.external(&name, Lang::Go);
                    b.edge(caller, d, conf, file, call as u32);
                    resolved = true;
                    opaque = true;
                    calls_handed |= library_calls_what_it_is_handed(&name);
                }
                Callee::Through(method, f) => {
                    let d = b.external(&method, Lang::Go);
                    b.edge(d, f, Confidence::Possible, file, call as u32);
                }
                Callee::NotACall => resolved = true,
                Callee::Unresolved(reason) => {
                    if !resolved {
                        b.unresolved(caller, file, call as u32, reason);
                        resolved = true;
                    }
                    opaque = true;
                }
            }
        }
        if opaque {
            self.note_handed_out(b, ci, call, caller, calls_handed);
        }
    }

    /// Record the repository functions a call passes to code ripple does
    /// not follow (see [`super::HandedOut`]): function literals and the
    /// names of functions (`handler`, `pkg.Handler`). Function values held
    /// in variables are not traced here: tracing every argument of every
    /// call into the standard library cost Go's `src` 30-50 MB.
    ///
    /// When the callee is library code that calls what it is handed
    /// (`t.Run("case", func(t *testing.T) {…})`, `sort.Slice(xs, less)`,
    /// `once.Do(setup)`, `http.HandleFunc("/", hello)`), the function is
    /// also a callee of the caller, `likely`: the library's own frames are
    /// not in the graph, and without the edge a subtest's body reached no
    /// test and a handler no caller. Whole-program graphs draw the edge
    /// from the library's internals instead, which a repository-only graph
    /// drops.
    fn note_handed_out(
        &mut self,
        b: &mut Builder,
        ci: usize,
        call: usize,
        caller: DeclId,
        calls_handed: bool,
    ) {
        let go = self.ctxs[ci].go;
        let scope = self.ctxs[ci].facts.calls[call].caller;
        let file = self.ctxs[ci].file;
        let mut seen: Vec<DeclId> = Vec::new();
        for &arg in &go.calls[call].args {
            let named = match go.exprs.get(arg as usize) {
                Some(GoExpr::FuncLit(_)) => true,
                Some(&GoExpr::Ident(n)) => self.local(ci, scope, n).is_none(),
                Some(&GoExpr::Selector(base, _)) => matches!(
                    go.exprs.get(base as usize),
                    Some(&GoExpr::Ident(n)) if self.local(ci, scope, n).is_none()
                ),
                _ => false,
            };
            if !named {
                continue;
            }
            for t in self.callees(ci, scope, arg, 0) {
                if let Callee::Decl(f, _) = t
                    && !seen.contains(&f)
                {
                    seen.push(f);
                    b.handed_out(f, caller, file, call as u32);
                    if calls_handed {
                        b.edge(caller, f, Confidence::Likely, file, call as u32);
                    }
                }
            }
        }
    }
}

/// `RIPPLE_DEBUG_HANDED=1` prints what is handed to each library package
/// and where it comes back; read once, as the checks sit on every call.
fn debug_handed() -> bool {
    static DEBUG: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *DEBUG.get_or_init(|| std::env::var_os("RIPPLE_DEBUG_HANDED").is_some())
}

/// Arguments a library calls methods on: (first argument, whether every
/// later one too, the method names).
type HandedParam = (usize, bool, SmallVec<[&'static str; 5]>);

/// The most types traced to an interface value handed to a library for
/// their methods to be taken as called there.
const MAX_HANDED_TYPES: usize = 4;

/// For a library function that takes `any` and calls the methods of the
/// optional interfaces its argument may implement: (first argument,
/// whether every later one too, the method names). `fmt.Println(v)` calls
/// `v.String()` or `v.Error()`, `json.Marshal(v)` `v.MarshalJSON()`.
fn optional_methods_called(callee: &str) -> Option<(usize, bool, &'static [&'static str])> {
    const PRINTED: &[&str] = &["String", "Error", "Format", "GoString"];
    const MARSHALED: &[&str] = &["MarshalJSON", "MarshalText"];
    const UNMARSHALED: &[&str] = &["UnmarshalJSON", "UnmarshalText"];
    let printing = |name: &str| {
        [
            "Print", "Sprint", "Fprint", "Append", "Errorf", "Fatal", "Panic",
        ]
        .iter()
        .any(|p| name.starts_with(p))
    };
    if let Some(name) = callee.strip_prefix("fmt.") {
        // The writer of `Fprintf` and the format strings are not printed
        // values; a format string is a literal or a string anyway.
        let first = usize::from(name.starts_with("Fprint") || name.starts_with("Append"));
        return printing(name).then_some((first, true, PRINTED));
    }
    if let Some(name) = callee
        .strip_prefix("log.")
        .or_else(|| callee.strip_prefix("(*log.Logger)."))
    {
        return printing(name).then_some((0, true, PRINTED));
    }
    match callee {
        "encoding/json.Marshal"
        | "encoding/json.MarshalIndent"
        | "(*encoding/json.Encoder).Encode" => Some((0, false, MARSHALED)),
        "encoding/json.Unmarshal" => Some((1, false, UNMARSHALED)),
        "(*encoding/json.Decoder).Decode" => Some((0, false, UNMARSHALED)),
        _ => None,
    }
}

/// Whether a library function or method (`sort.Slice`, `(*testing.T).Run`)
/// may call the functions passed to it. The few that only look at a
/// function (its name, its address, its printed form) are excluded.
fn library_calls_what_it_is_handed(name: &str) -> bool {
    let unqualified = name.trim_start_matches("(*").trim_start_matches('(');
    !["reflect.", "fmt.", "runtime.FuncForPC", "log."]
        .iter()
        .any(|p| unqualified.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::{external_method, library_calls_what_it_is_handed};

    #[test]
    fn printing_and_encoding_call_the_methods_of_optional_interfaces() {
        use super::optional_methods_called;
        assert_eq!(optional_methods_called("fmt.Println").unwrap().0, 0);
        assert_eq!(optional_methods_called("fmt.Fprintf").unwrap().0, 1);
        assert!(optional_methods_called("(*log.Logger).Printf").is_some());
        assert!(optional_methods_called("fmt.Sscanf").is_none());
        let (index, variadic, methods) =
            optional_methods_called("encoding/json.Unmarshal").unwrap();
        assert_eq!((index, variadic), (1, false));
        assert!(methods.contains(&"UnmarshalJSON"));
        assert!(optional_methods_called("log.SetFlags").is_none());
    }

    #[test]
    fn printing_or_reflecting_on_a_function_does_not_call_it() {
        assert!(library_calls_what_it_is_handed("(*testing.T).Run"));
        assert!(library_calls_what_it_is_handed("sort.Slice"));
        assert!(library_calls_what_it_is_handed("(*sync.Once).Do"));
        assert!(!library_calls_what_it_is_handed("reflect.ValueOf"));
        assert!(!library_calls_what_it_is_handed("fmt.Printf"));
        assert!(!library_calls_what_it_is_handed("(*log.Logger).Printf"));
    }

    #[test]
    fn external_methods_are_named_by_receiver_kind() {
        assert_eq!(
            external_method("reflect", "Type", "Kind"),
            "(*reflect.rtype).Kind"
        );
        assert_eq!(
            external_method("context", "Context", "Done"),
            "(context.Context).Done"
        );
        assert_eq!(
            external_method("reflect", "Value", "Elem"),
            "(reflect.Value).Elem"
        );
        assert_eq!(
            external_method("bytes", "Buffer", "Len"),
            "(*bytes.Buffer).Len"
        );
        assert_eq!(
            external_method("example.com/other", "Thing", "Do"),
            "(*example.com/other.Thing).Do"
        );
    }
}

//! Go resolution: from every Go file's facts to call edges, whole-program.
//!
//! [`resolve`] runs in phases over one [`Analysis`]:
//! 1. Package identity and symbol tables (`packages.rs`): each file's package
//!    from `go.mod` + directory, its imports (named by the imported package's
//!    declared name), and per package its functions, types, methods and
//!    variables; closures and `init` get go/ssa's names.
//! 2. Method holders (`methods.rs`): which types declare or embed which
//!    methods, for method sets, promotion and interface implementation.
//! 3. Value sources (`values.rs`): the values stored in struct fields and the
//!    arguments passed to each parameter (two passes), so a function value or
//!    an interface value can be traced back to where it was made.
//! 4. Call sites (`calls.rs`, `emit.rs`): each call's callee expression is
//!    typed (`types.rs`: declared types, generics, aliases) and resolved to
//!    functions, methods on its receiver's type (own or promoted), the
//!    implementations behind an interface (`Possible`, narrowed by the
//!    concrete types that flow to the receiver, `flow.rs`), or the functions
//!    a function value may hold. Calls into the standard library and what
//!    the library calls back (`library.rs`, over `go_std.tsv`) become
//!    external leaves and edges to the methods handed to it.
//!
//! Every trace is bounded (the depth, round, value and source caps below)
//! and memoised, so no repository makes it run away.

mod calls;
mod emit;
mod flow;
mod library;
mod methods;
mod packages;
mod types;
mod values;

use crate::lang::LangFacts;
use crate::lang::go::{Binding, ExprId, GoExpr, GoFacts, GoFunc, TypeId};
use crate::model::{Confidence, DeclKind, Lang, Sym};
use crate::resolve::{Builder, DeclId, FileId, RawDeclId, SourceFile};
use library::receiver_type_name;
use packages::name_init_closures;
pub use packages::{package_paths, qualified_name};
use rustc_hash::FxHashMap as HashMap;
use rustc_hash::FxHashSet as HashSet;
use smallvec::SmallVec;
use values::{TraceKey, ValueSource};

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
    base: RawDeclId,
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
    methods: HashMap<String, HashMap<String, RawDeclId>>,
    vars: HashMap<String, (usize, u32)>,
    /// What functions of any of its files store in each package-level
    /// variable (`GoFacts::global_writes`).
    var_writes: HashMap<String, Vec<ValueSource>>,
    init: Option<RawDeclId>,
}

struct Analysis<'a> {
    ctxs: Vec<Ctx<'a>>,
    pkgs: Vec<Package>,
    pkg_by_path: HashMap<String, usize>,
    /// Each function and method with the file it is declared in.
    func_results: HashMap<RawDeclId, (usize, &'a GoFunc)>,
    implementors: HashMap<(usize, String), Vec<(usize, String)>>,
    returns_of: HashMap<RawDeclId, Vec<(usize, u32, u8, ExprId)>>,
    params_of: HashMap<RawDeclId, &'a [Option<Sym>]>,
    param_sources: HashMap<(RawDeclId, usize), Vec<ValueSource>>,
    /// Methods on a named function type, by their receiver's variable
    /// (`mw` in `func (mw MiddlewareFunc) Middleware(h) { return mw(h) }`).
    func_receivers: HashMap<RawDeclId, Sym>,
    /// The receivers such methods are called on (`r.middlewares[i]` in
    /// `r.middlewares[i].Middleware(h)`): the functions `mw(h)` calls.
    receiver_sources: HashMap<RawDeclId, Vec<ValueSource>>,
    /// Parameters passed more arguments than `param_sources` keeps.
    param_overflow: HashSet<(RawDeclId, usize)>,
    /// Values assigned to struct fields, by (package, declaring type, field).
    field_sources: HashMap<(usize, String, String), Vec<ValueSource>>,
    /// Fields assigned more values than `field_sources` keeps.
    field_overflow: HashSet<(usize, String, String)>,
    /// (package, name) of each repository type, by its declaration.
    type_names: HashMap<RawDeclId, (usize, String)>,
    /// Whether interface calls are narrowed to the types that flow to
    /// their receiver: off while parameter sources are being collected,
    /// since the flow reads them.
    narrow_interface_calls: bool,
    /// Element values of each composite literal: (file, expression) → (scope, value).
    composite_elems: HashMap<(usize, ExprId), Vec<(u32, ExprId)>>,
    trace_memo: HashMap<TraceKey, Vec<RawDeclId>>,
    /// Repository types handed to each package outside the repository
    /// (as traced types), by import path.
    handed_to_library: HashMap<String, Vec<RawDeclId>>,
    /// Functions (declarations and literals) handed to each package
    /// outside the repository (`cache.Store(t, encoderFunc(f))`), which its
    /// containers may give back.
    funcs_handed_to_library: HashMap<String, Vec<RawDeclId>>,
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
    external_value_ids: HashMap<String, RawDeclId>,
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

/// Traced function values at or above this id are `external_values`
/// (declaration ids never come near it).
const EXTERNAL_VALUE: RawDeclId = 1 << 31;

const BUILTIN_FUNCS: &[&str] = &[
    "append", "cap", "clear", "close", "complex", "copy", "delete", "imag", "len", "make", "max",
    "min", "new", "panic", "print", "println", "real", "recover",
];

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
            base: b.res.file_base[fi as usize].0,
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
                b.res.imports.push((FileId(c.file), FileId(f)));
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
    let redirect: HashMap<RawDeclId, RawDeclId> = a
        .ctxs
        .iter()
        .filter_map(|c| {
            let canonical = a.pkgs[c.pkg].init.unwrap_or(c.base);
            (canonical != c.base).then_some((c.base, canonical))
        })
        .collect();
    for e in &mut b.res.edges {
        if let Some(&to) = redirect.get(&e.caller.0) {
            e.caller = DeclId(to);
        }
    }
    for u in &mut b.res.unresolved {
        if let Some(&to) = redirect.get(&u.caller.0) {
            u.caller = DeclId(to);
        }
    }
    let _ = DeclKind::Package;
}

#[derive(Clone)]
enum Callee {
    Decl(RawDeclId, Confidence),
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
    Through(String, RawDeclId),
}

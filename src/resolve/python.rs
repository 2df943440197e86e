//! Python resolution: module naming from package roots, then a
//! flow-insensitive points-to analysis in the manner of PyCG (Salis et al.,
//! ICSE 2021). Every variable, attribute, parameter, return value and
//! container element is a slot holding the set of functions, classes,
//! instances, modules and external names that may flow into it; the flow
//! facts of every file are applied until nothing changes, and each call site
//! is then resolved through the slots its callee expression reads.
//!
//! Confidence: a callee reached only through definitions and imports is
//! `Certain`; one reached through assignments, parameters or attributes of
//! instances is `Likely`; a call site with several candidate callees makes
//! each of them `Possible`.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use smallvec::{SmallVec, smallvec};

use super::{Builder, DeclId, SourceFile};
use crate::lang::python::{
    Exports, ExprId, ParamKind, PropertyPart, PyCallKind, PyExpr, PyFacts, PyFlow,
};
use crate::lang::{FileFacts, LangFacts};
use crate::model::{Confidence, DeclKind, Sym};

/// Python module names for every Python file: dotted path from the package
/// root (the first ancestor directory without `__init__.py`), so `src/`
/// layouts name `src/pkg/mod.py` `pkg.mod`; files outside any package are
/// named by their path from the repository root.
pub fn module_names(files: &[SourceFile], py_files: &[u32]) -> HashMap<u32, String> {
    let package_dirs: HashSet<&str> = py_files
        .iter()
        .filter_map(|&i| files[i as usize].path.strip_suffix("/__init__.py"))
        .collect();
    let mut taken: HashSet<String> = HashSet::default();
    let mut out = HashMap::default();
    for &i in py_files {
        let path = files[i as usize].path;
        let (dir, file) = match path.rsplit_once('/') {
            Some((d, f)) => (d, f),
            None => ("", path),
        };
        let stem = file.trim_end_matches(".py");
        let mut root = dir;
        if package_dirs.contains(dir) {
            while package_dirs.contains(root) {
                root = root.rsplit_once('/').map(|(p, _)| p).unwrap_or("");
                if root.is_empty() {
                    break;
                }
            }
        } else {
            root = "";
        }
        let rel_dir = if root.is_empty() {
            dir
        } else {
            dir.strip_prefix(root)
                .unwrap_or(dir)
                .trim_start_matches('/')
        };
        let mut name = rel_dir.replace('/', ".");
        if stem != "__init__" {
            if !name.is_empty() {
                name.push('.');
            }
            name.push_str(stem);
        }
        if name.is_empty() {
            name = "__init__".to_owned();
        }
        if !taken.insert(name.clone()) {
            // Two package roots define the same module: keep the second one
            // distinct by naming it from the repository root.
            let mut alt = path
                .trim_end_matches(".py")
                .trim_end_matches("/__init__")
                .replace('/', ".");
            while !taken.insert(alt.clone()) {
                alt.push('_');
            }
            name = alt;
        }
        out.insert(i, name);
    }
    out
}

pub fn qualified_name(module: &str, local: &str) -> String {
    if local.is_empty() {
        module.to_owned()
    } else if module.is_empty() {
        local.to_owned()
    } else {
        format!("{module}.{local}")
    }
}

/// Global string id (interned across files).
type GSym = u32;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Value {
    Func(DeclId),
    Class(DeclId),
    Instance(DeclId),
    /// `self` inside a method of the class: an instance of it or of any subclass.
    Cone(DeclId),
    /// `functools.partial(func, a, b)`: calling it calls `func` with its
    /// first `shift` parameters already filled.
    Partial {
        func: DeclId,
        shift: u32,
    },
    /// A function reached through an instance or class: the receiver fills the first parameter.
    Bound {
        func: DeclId,
        recv: DeclId,
        instance: bool,
    },
    /// A module, by its file.
    Module(u32),
    External(GSym),
    Builtin(GSym),
    Container(u32),
    Generator(DeclId),
    Super {
        class: DeclId,
        func: DeclId,
    },
    /// What `zip(a, b, …)` or `enumerate(a)` returns, by the site of the
    /// call's callee (see `Analysis::zip_calls`). Iterating it yields a
    /// [`Value::ZipRow`].
    Zipped(u32),
    /// One tuple of a [`Value::Zipped`]: position `i` holds what iterating
    /// the call's `i`-th argument yields (for `enumerate`, position 1 what
    /// iterating its argument yields, position 0 a count).
    ZipRow(u32),
    /// `d.items()` of the dict at `site`. Iterating it yields (key, value)
    /// pairs; a pair is modelled as the dict itself, so unpacking one
    /// (`for k, v in d.items()`) yields the dict's values.
    Items(u32),
    /// A method of the dict at `site` (`d.get`), whose result comes from
    /// the dict's values.
    DictMethod {
        site: u32,
        name: GSym,
    },
    /// A method of the list, set or tuple at `site` (`xs.append`), named
    /// `<**PyList**>.m`, `<**PySet**>.m` or `<**PyTuple**>.m`; the ones that
    /// add elements add them to the container.
    SeqMethod {
        site: u32,
        name: GSym,
    },
    /// What `map(f, xs)` returns: iterating it yields what `f` returns.
    Mapped(DeclId),
    /// `operator.methodcaller("name", …)`: calling it on an object calls
    /// the object's method `name`.
    MethodCaller(GSym),
    /// `xs[offset:…]` of the container at `site`: its position `i` is the
    /// container's `i + offset` ([`UNKNOWN_OFFSET`]: any position).
    Slice {
        site: u32,
        offset: u32,
    },
    /// A value of a builtin type whose methods PyCG names `<**PyStr**>.m`, `<**PyDict**>.m`.
    PyStr,
    PyDict,
}

/// A set of values as the solver passes it around: most hold one or two,
/// which then live inline instead of in an allocation of their own.
type Vals = SmallVec<[Value; 2]>;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Slot {
    Var(DeclId, GSym),
    InstAttr(DeclId, GSym),
    Ret(DeclId),
    Yield(DeclId),
    Elem(u32, GSym),
}

/// The offset of a slice whose start is not a literal.
const UNKNOWN_OFFSET: u32 = u32::MAX;
/// The largest offset a slice of a slice keeps.
const MAX_SLICE_OFFSET: u32 = 4;
/// Container element slots without a literal key use this key.
const ANY_KEY: GSym = u32::MAX;
/// Pseudo-key whose readers depend on a container's set of keys.
const KEYS: GSym = u32::MAX - 1;
/// Pseudo-key of a defaultdict's element slot: what its factory makes.
const MISSING_KEY: GSym = u32::MAX - 3;
/// Pseudo-class whose instance-attribute slots stand for "some class gained this attribute".
const ANY_CLASS: DeclId = u32::MAX;
/// The owner of the attributes `parser.set_defaults(func=…)` gives every
/// namespace `parse_args()` returns (read as `args.func`).
const ARGPARSE_DEFAULTS: DeclId = u32::MAX - 1;
/// Pseudo-slot read by everything that walks the class hierarchy.
const HIERARCHY: Slot = Slot::Elem(u32::MAX, KEYS);
/// Pseudo-attribute of a class (`Slot::InstAttr(class, RUNTIME)`): the
/// instantiated classes whose MRO contains it, as instances.
const RUNTIME: GSym = u32::MAX - 2;
const MAX_SET: usize = 16;
/// How many values a set takes when all of them are functions or classes
/// (see [`admits`]).
const MAX_CALLABLES: usize = 128;
const MAX_ROUNDS: usize = 40;
const MAX_DEPTH: u32 = 48;
/// Evaluations nested in one another, by any path. An optimised build
/// needs under 1 MB of stack at this bound, an unoptimised one under 2.
const MAX_NESTING: u32 = 256;

struct FileCtx<'a> {
    file: u32,
    facts: &'a FileFacts,
    py: &'a PyFacts,
    base: DeclId,
    syms: Vec<GSym>,
    expr_base: u32,
    /// Where this file's call sites begin in [`Analysis::settled_targets`].
    call_base: u32,
    is_test: bool,
}

struct Analysis<'a> {
    files: Vec<FileCtx<'a>>,
    /// Each bound call site's targets from its latest evaluation. At the
    /// fixpoint that evaluation saw every input's final value (a change
    /// would have queued it again), so emitting reuses it instead of
    /// evaluating every callee once more.
    settled_targets: Vec<Option<Box<[Target]>>>,
    /// The worklist stopped at its step budget: no evaluation is final.
    exhausted: bool,
    /// Index into `files` by file index.
    ctx_of_file: HashMap<u32, usize>,
    strings: Vec<String>,
    string_ids: HashMap<String, GSym>,
    modules: HashMap<String, u32>,
    module_name_of: HashMap<u32, String>,
    slots: std::cell::RefCell<SlotTable>,
    container_keys: HashMap<u32, Vec<GSym>>,
    dynamic_slots: HashSet<Slot>,
    decl_kind: Vec<DeclKind>,
    decl_file: Vec<Option<u32>>,
    decl_local: Vec<u32>,
    changed: bool,
    /// Resolved direct bases of each class, as last computed by its ClassBases constraint.
    class_bases: HashMap<DeclId, Vec<DeclId>>,
    /// Classes whose body binds a name (methods, class attributes).
    class_definers: HashMap<GSym, Vec<DeclId>>,
    /// Classes whose instances had an attribute assigned, by name.
    inst_definers: HashMap<GSym, Vec<DeclId>>,
    hierarchy_dirty: bool,
    /// (file context, function, parameter, fixture) for parameters pytest fills.
    fixture_uses: Vec<(usize, DeclId, GSym, DeclId)>,
    constraints: Vec<Constraint>,
    current: std::cell::Cell<u32>,
    worklist: Vec<u32>,
    queued: Vec<bool>,
    mro_cache: HashMap<DeclId, std::rc::Rc<[DeclId]>>,
    builtins: HashSet<&'static str>,
    module_is_init: HashSet<u32>,
    /// Global sites of dict literals.
    dict_sites: HashSet<u32>,
    /// Global sites of literals of constants (`[None]`, `{}`) assigned to
    /// a name that is later written through (`b[0] = f`, `b.append(f)`):
    /// they may come to hold callables, so they are tracked like any
    /// other container.
    filled_sites: HashSet<u32>,
    /// Names of the repository's properties: only reads of these names
    /// can call a getter.
    property_names: HashSet<GSym>,
    /// Names a class body assigns (`RED = 1`): an enum's members.
    class_body_names: HashSet<(DeclId, GSym)>,
    /// (class, name) for every `self.name = …` in the class's methods:
    /// attributes its instances have even when no value is known for them
    /// (`self.conn = None`), which `__getattr__` is not asked for.
    self_attrs: HashSet<(DeclId, GSym)>,
    /// Classes found to be enums. Only a yes is kept: a base may resolve
    /// later in the solve, so a no is asked again.
    enum_classes: HashSet<DeclId>,
    /// Global sites of set and tuple literals (other non-dict containers are lists).
    set_sites: HashSet<u32>,
    tuple_sites: HashSet<u32>,
    /// Parameters a function returns unchanged (`return fn` in a
    /// decorator), by function. A call's result takes them from that
    /// call's own arguments, so `@register` on fifty functions does not
    /// make each decorated name every one of the fifty.
    passthrough: HashMap<DeclId, Vec<GSym>>,
    /// Return flows (file context, flow) that return such a parameter.
    passthrough_flows: HashSet<(u32, u32)>,
    /// The defaults of those parameters: what a call that passes none
    /// gets back (`def step(self, fn=None)` called as a decorator factory
    /// hands back None, not every function any other call passed).
    passthrough_defaults: HashMap<(DeclId, GSym), ExprId>,
    /// First container site past every expression: the `*args` and
    /// `**kwargs` containers of each function are numbered from here.
    packed_base: u32,
    /// Constraints that read a decorated name whose decorator's returns
    /// were not known yet, and whether they have been run again since the
    /// rest was solved (they then take the undecorated definition).
    pending_decorated: HashSet<u32>,
    late_decorators: bool,
    /// Class-body names holding descriptors, once the emit pass asks.
    descriptor_names: Option<HashSet<GSym>>,
    /// Memo of [`Analysis::prefixed_methods`].
    prefixed: HashMap<String, Vec<GSym>>,
    /// `class_body_names` by class, once the emit pass asks.
    class_body_by_class: Option<HashMap<DeclId, Vec<GSym>>>,
    /// Sites of defaultdicts, whose `MISSING_KEY` element holds what a
    /// missing key gives.
    defaultdict_sites: HashSet<u32>,
    /// Slot id of each `Var` expression (by site), once first looked up:
    /// a name's slot never changes, and reading it is the solver's most
    /// frequent step, which would otherwise hash the slot every time.
    var_slot_ids: Vec<u32>,
    /// Memo of [`Analysis::module_ref`]: (file context, level, path) → module.
    module_refs: HashMap<(usize, u8, Sym), Option<Value>>,
    /// Memo of submodule lookups: (package file, name) → the submodule's file.
    submodules: HashMap<(u32, GSym), Option<u32>>,
    /// Memo of [`Analysis::operator_defined`].
    operator_gate: HashMap<GSym, bool>,
    /// The fixpoint is reached: values no longer change (emitting).
    solved: bool,
    /// Operator sites' targets once solved, by (file context, call).
    operator_memo: HashMap<(usize, usize), Vec<(DeclId, usize)>>,
    /// Memo of [`Analysis::star_sources`]: file → repository modules its
    /// module-level `from m import *` imports read.
    star_sources: HashMap<u32, std::rc::Rc<[u32]>>,
    /// `__class__` and `__init__`, interned once: `self.__class__(…)` is looked up often.
    dunder_class: GSym,
    dunder_init: GSym,
    dunder_getattr: GSym,
    /// Attribute names some lookup found only through a class's
    /// `__getattr__`: the loads whose edges to it are looked for.
    getattr_names: HashSet<GSym>,
    /// Set while emitting, to ask whether a lookup finds the attribute
    /// without `__getattr__`.
    skip_getattr: bool,
    /// Classes with two or more bases: where a mixin meets the class that
    /// provides what it calls on `self`.
    multi_base: Vec<DeclId>,
    /// The slot id of [`HIERARCHY`].
    hierarchy_id: u32,
    /// How many evaluations are under way, one inside another.
    eval_nesting: u32,
    /// Memo of [`Analysis::mixin_hosts`], dropped with the MRO cache.
    mixin_hosts: HashMap<DeclId, std::rc::Rc<[DeclId]>>,
    /// Memo of [`Analysis::definers_below`] by (class, name, instance
    /// attribute?): the subclasses found so far and how much of the
    /// definer list they cover. Dropped with the MRO cache.
    definers_below: HashMap<(DeclId, GSym, bool), DefinersBelow>,
    /// The `zip` and `enumerate` calls evaluated, by the site of their
    /// callee: (file context, call, is it `enumerate`?).
    zip_calls: HashMap<u32, (usize, usize, bool)>,
    /// The `zip` sites whose tuples are being read, innermost last: a row
    /// that holds its own rows (`for row in zip(xs, rows)` feeding `rows`)
    /// is read once.
    zip_reading: Vec<u32>,
    /// Filled beside `star_sources`: the out-of-repo modules a file's
    /// module-level `from m import *` imports read (`posix` in os.py).
    external_stars: HashMap<u32, std::rc::Rc<[GSym]>>,
    /// Some class names a `metaclass=`: only then do class statements
    /// call a repository metaclass's `__new__` and `__init__`.
    has_metaclasses: bool,
}

/// How many of a name's definers were examined, and which are subclasses.
type DefinersBelow = (usize, std::rc::Rc<[DeclId]>);

pub fn resolve(b: &mut Builder, files: &[SourceFile], py_files: &[u32]) {
    if py_files.is_empty() {
        return;
    }
    let mut a = Analysis {
        files: Vec::new(),
        ctx_of_file: HashMap::default(),
        strings: Vec::new(),
        string_ids: HashMap::default(),
        modules: HashMap::default(),
        module_name_of: HashMap::default(),
        slots: std::cell::RefCell::new(SlotTable::default()),
        container_keys: HashMap::default(),
        dynamic_slots: HashSet::default(),
        decl_kind: b.res.decls.iter().map(|d| d.kind).collect(),
        decl_file: b.res.decls.iter().map(|d| d.file).collect(),
        decl_local: b.res.decls.iter().map(|d| d.local).collect(),
        changed: false,
        class_bases: HashMap::default(),
        class_definers: HashMap::default(),
        inst_definers: HashMap::default(),
        hierarchy_dirty: false,
        fixture_uses: Vec::new(),
        constraints: Vec::new(),
        current: std::cell::Cell::new(NO_CONSTRAINT),
        settled_targets: Vec::new(),
        exhausted: false,
        worklist: Vec::new(),
        queued: Vec::new(),
        mro_cache: HashMap::default(),
        builtins: BUILTINS.iter().copied().collect(),
        dict_sites: HashSet::default(),
        filled_sites: HashSet::default(),
        property_names: HashSet::default(),
        class_body_names: HashSet::default(),
        self_attrs: HashSet::default(),
        enum_classes: HashSet::default(),
        set_sites: HashSet::default(),
        tuple_sites: HashSet::default(),
        passthrough: HashMap::default(),
        passthrough_flows: HashSet::default(),
        passthrough_defaults: HashMap::default(),
        packed_base: 0,
        var_slot_ids: Vec::new(),
        defaultdict_sites: HashSet::default(),
        pending_decorated: HashSet::default(),
        class_body_by_class: None,
        prefixed: HashMap::default(),
        descriptor_names: None,
        late_decorators: false,
        module_refs: HashMap::default(),
        submodules: HashMap::default(),
        star_sources: HashMap::default(),
        external_stars: HashMap::default(),
        zip_calls: HashMap::default(),
        zip_reading: Vec::new(),
        dunder_class: ANY_KEY,
        dunder_init: ANY_KEY,
        dunder_getattr: ANY_KEY,
        getattr_names: HashSet::default(),
        skip_getattr: false,
        multi_base: Vec::new(),
        hierarchy_id: 0,
        eval_nesting: 0,
        mixin_hosts: HashMap::default(),
        definers_below: HashMap::default(),
        operator_gate: HashMap::default(),
        solved: false,
        operator_memo: HashMap::default(),
        has_metaclasses: false,
        module_is_init: py_files
            .iter()
            .copied()
            .filter(|&i| files[i as usize].path.ends_with("__init__.py"))
            .collect(),
    };
    a.hierarchy_id = a.slots.get_mut().id(HIERARCHY);
    a.dunder_class = a.intern("__class__");
    a.dunder_init = a.intern("__init__");
    a.dunder_getattr = a.intern("__getattr__");
    let mut expr_base = 0u32;
    let mut call_base = 0u32;
    for &fi in py_files {
        let facts = files[fi as usize].facts;
        let LangFacts::Python(py) = &facts.lang_facts else {
            continue;
        };
        let syms = facts.strings.iter().map(|s| a.intern(s)).collect();
        a.ctx_of_file.insert(fi, a.files.len());
        a.files.push(FileCtx {
            file: fi,
            facts,
            py,
            base: b.res.file_base[fi as usize],
            syms,
            expr_base,
            call_base,
            is_test: crate::lang::python::is_test_path(files[fi as usize].path),
        });
        call_base = call_base.saturating_add(py.calls.len() as u32);
        for &d in &py.dict_sites {
            a.dict_sites.insert(expr_base + d);
        }
        a.set_sites
            .extend(py.set_sites.iter().map(|&e| expr_base + e));
        a.tuple_sites
            .extend(py.tuple_sites.iter().map(|&e| expr_base + e));
        expr_base = expr_base.saturating_add(py.exprs.len() as u32);
        let module = b.res.file_module[fi as usize].clone();
        a.modules.insert(module.clone(), fi);
        a.module_name_of.insert(fi, module);
    }
    a.packed_base = expr_base;
    a.has_metaclasses = a
        .files
        .iter()
        .any(|f| f.py.decl_info.iter().any(|i| i.metaclass.is_some()));
    a.var_slot_ids = vec![NO_SLOT; expr_base as usize];
    for ci in 0..a.files.len() {
        a.find_filled_sites(ci);
        let facts = a.files[ci].facts;
        for (i, info) in a.files[ci].py.decl_info.iter().enumerate() {
            if info.is_property
                && !info.property_call
                && let Some(d) = facts.decls.get(i)
            {
                let short = d.local_name.rsplit('.').next().unwrap_or("");
                let g = a.intern(short);
                a.property_names.insert(g);
            }
        }
        for &name in &a.files[ci].py.property_calls {
            let g = a.intern(facts.sym(name));
            a.property_names.insert(g);
        }
        a.find_class_body_names(ci);
    }
    a.settled_targets = (0..call_base).map(|_| None).collect();
    crate::memory::trace("py setup");
    a.seed();
    a.find_passthrough_returns();
    let debug = std::env::var_os("RIPPLE_DEBUG_RESOLVE").is_some();
    a.find_fixture_uses(files);
    for ci in 0..a.files.len() {
        let cs = a.constraints_of(ci);
        a.constraints.extend(cs);
    }
    a.queued = vec![false; a.constraints.len()];
    crate::memory::trace("py constraints");
    // One sweep evaluates every constraint and records what each reads;
    // then a worklist re-evaluates only constraints whose inputs grew (a
    // change to a class's bases also drops the MRO and subclass caches), so
    // an empty worklist is the fixpoint.
    let t = std::time::Instant::now();
    // With RIPPLE_DEBUG_RESOLVE, the time each constraint took over the
    // whole solve: how pathological code (a 2^n evaluation) is found.
    let mut costs = vec![std::time::Duration::ZERO; if debug { a.constraints.len() } else { 0 }];
    let mut run = |a: &mut Analysis, id: u32| {
        if debug {
            let t = std::time::Instant::now();
            a.run(id);
            costs[id as usize] += t.elapsed();
        } else {
            a.run(id);
        }
    };
    for id in 0..a.constraints.len() as u32 {
        run(&mut a, id);
    }
    let sweep = t.elapsed();
    crate::memory::trace("py sweep");
    let mut steps = 0usize;
    let mut epochs = 0usize;
    let budget = a.constraints.len().saturating_mul(MAX_ROUNDS);
    loop {
        while let Some(id) = a.worklist.pop() {
            a.queued[id as usize] = false;
            run(&mut a, id);
            steps += 1;
            if steps > budget {
                break;
            }
        }
        if !a.hierarchy_dirty || steps > budget {
            if steps <= budget && !a.late_decorators && !a.pending_decorated.is_empty() {
                a.late_decorators = true;
                let mut pending: Vec<u32> = a.pending_decorated.drain().collect();
                pending.sort_unstable();
                for id in pending.into_iter().rev() {
                    if !a.queued[id as usize] {
                        a.queued[id as usize] = true;
                        a.worklist.push(id);
                    }
                }
                continue;
            }
            a.exhausted = steps > budget;
            break;
        }
        epochs += 1;
        a.hierarchy_dirty = false;
        a.mro_cache.clear();
        a.mixin_hosts.clear();
        a.definers_below.clear();
        a.notify(HIERARCHY);
    }
    if debug {
        let table = a.slots.borrow();
        let big = table.vals.iter().filter(|v| v.len() >= MAX_SET).count();
        eprintln!(
            "sweep {sweep:?}, worklist {steps} steps in {epochs} epochs, total {:?}; {} slots, {big} saturated",
            t.elapsed(),
            table.vals.len()
        );
        eprintln!(
            "strings {} ({} bytes), values {}, readers {}, constraints {}",
            a.strings.len(),
            a.strings.iter().map(|s| s.len()).sum::<usize>(),
            table.vals.iter().map(|v| v.len()).sum::<usize>(),
            table.readers.iter().map(|v| v.len()).sum::<usize>(),
            a.constraints.len()
        );
        let mut costliest: Vec<u32> = (0..costs.len() as u32).collect();
        costliest.sort_unstable_by_key(|&id| std::cmp::Reverse(costs[id as usize]));
        for &id in costliest.iter().take(8) {
            let c = a.constraints[id as usize];
            let f = &a.files[c.ci as usize];
            let call = match c.kind {
                ConsKind::Call => f
                    .facts
                    .calls
                    .get(c.idx as usize)
                    .map(|s| format!("line {}: {}", s.span.start_line, s.callee_text)),
                _ => None,
            };
            eprintln!(
                "  costly constraint: {:?} {:?} #{} in {} {}",
                costs[id as usize],
                c.kind,
                c.idx,
                files[f.file as usize].path,
                call.unwrap_or_default()
            );
        }
    }
    if std::env::var_os("RIPPLE_DEBUG_SATURATED").is_some() {
        a.print_saturated(b);
    }
    a.mro_cache.clear();
    a.mixin_hosts.clear();
    a.definers_below.clear();
    a.solved = true;
    a.slots.get_mut().settle();
    a.queued = Vec::new();
    a.worklist = Vec::new();
    crate::memory::trace("py solved");
    let t = std::time::Instant::now();
    a.emit(b);
    crate::memory::trace("py emitted");
    if debug {
        eprintln!("emit: {:?}", t.elapsed());
    }
}

impl<'a> Analysis<'a> {
    fn intern(&mut self, s: &str) -> GSym {
        if let Some(&id) = self.string_ids.get(s) {
            return id;
        }
        let id = self.strings.len() as GSym;
        self.strings.push(s.to_owned());
        self.string_ids.insert(s.to_owned(), id);
        id
    }

    fn gsym(&self, ci: usize, sym: Sym) -> GSym {
        self.files[ci]
            .syms
            .get(sym as usize)
            .copied()
            .unwrap_or(ANY_KEY)
    }

    /// The tuple (`*args`) or dict (`**kwargs`) that packs a function's
    /// extra arguments.
    fn packed_site(&self, decl: DeclId, dict: bool) -> u32 {
        self.packed_base
            .saturating_add(decl.saturating_mul(2))
            .saturating_add(u32::from(dict))
            .min(u32::MAX - 2)
    }

    /// Store `vals` under `key` in the container at `site`.
    fn add_elem(&mut self, site: u32, key: GSym, vals: &[Value]) {
        if vals.is_empty() {
            return;
        }
        let keys = self.container_keys.entry(site).or_default();
        if !keys.contains(&key) {
            keys.push(key);
            self.notify(Slot::Elem(site, KEYS));
        }
        self.add(Slot::Elem(site, key), vals);
    }

    fn gdecl(&self, ci: usize, local: u32) -> DeclId {
        self.files[ci].base + local
    }

    fn site(&self, ci: usize, expr: ExprId) -> u32 {
        self.files[ci].expr_base + expr
    }

    fn py_info(&self, decl: DeclId) -> Option<(&'a crate::lang::python::PyDeclInfo, usize)> {
        let file = self.decl_file.get(decl as usize).copied().flatten()?;
        let ci = *self.ctx_of_file.get(&file)?;
        let info = self.files[ci]
            .py
            .decl_info
            .get(self.decl_local[decl as usize] as usize)?;
        Some((info, ci))
    }

    /// The slot of the `Var` expression `expr` of file context `ci`.
    fn var_slot_id(&mut self, ci: usize, expr: ExprId, scope: u32, name: Sym) -> usize {
        let site = self.site(ci, expr) as usize;
        match self.var_slot_ids.get(site) {
            Some(&id) if id != NO_SLOT => id as usize,
            _ => {
                let slot = Slot::Var(self.gdecl(ci, scope), self.gsym(ci, name));
                let id = self.slots.get_mut().id(slot);
                if let Some(cached) = self.var_slot_ids.get_mut(site) {
                    *cached = id;
                }
                id as usize
            }
        }
    }

    fn add(&mut self, slot: Slot, vals: &[Value]) {
        if vals.is_empty() {
            return;
        }
        let id = self.slots.get_mut().id(slot) as usize;
        self.add_id(id, vals);
    }

    fn add_id(&mut self, id: usize, vals: &[Value]) {
        if vals.is_empty() {
            return;
        }
        let grew_id = {
            let mut table = self.slots.borrow_mut();
            let set = &mut table.vals[id];
            let mut grew = false;
            for v in vals {
                if set.len() >= MAX_CALLABLES {
                    break;
                }
                if admits(set, v) && !set.contains(v) {
                    set.push(*v);
                    grew = true;
                }
            }
            grew.then_some(id)
        };
        if let Some(id) = grew_id {
            self.changed = true;
            self.notify_id(id);
        }
    }

    /// Queue every constraint that read `slot`.
    fn notify(&mut self, slot: Slot) {
        let id = self.slots.borrow_mut().id(slot) as usize;
        self.notify_id(id);
    }

    fn notify_id(&mut self, id: usize) {
        let table = self.slots.borrow();
        let Some(readers) = table.readers.get(id) else {
            return;
        };
        for &r in readers {
            if !self.queued[r as usize] {
                self.queued[r as usize] = true;
                self.worklist.push(r);
            }
        }
    }

    /// Note that the running constraint reads the class hierarchy (its
    /// slot's id is kept: every MRO lookup reads it).
    fn touch_hierarchy(&self) {
        self.slots
            .borrow_mut()
            .record(self.hierarchy_id as usize, self.current.get());
    }

    /// Note that the running constraint depends on `slot`.
    fn touch(&self, slot: Slot) {
        let mut table = self.slots.borrow_mut();
        let id = table.id(slot) as usize;
        table.record(id, self.current.get());
    }

    fn get(&self, slot: Slot) -> Vals {
        let id = self.slots.borrow_mut().id(slot) as usize;
        self.get_id(id)
    }

    /// What `slot` holds, without making it or recording a reader: for
    /// the emit pass, which must not grow the tables looking.
    fn peek(&self, slot: Slot) -> Vals {
        let table = self.slots.borrow();
        match table.ids.get(&slot) {
            Some(&id) => table.vals[id as usize].clone(),
            None => Vals::new(),
        }
    }

    /// [`Analysis::get`] added to `out` (each value once), without a copy.
    fn read_into(&self, slot: Slot, out: &mut Vals) {
        let mut table = self.slots.borrow_mut();
        let id = table.id(slot) as usize;
        table.record(id, self.current.get());
        for v in &table.vals[id] {
            push_unique(out, *v);
        }
    }

    fn get_id(&self, id: usize) -> Vals {
        let mut table = self.slots.borrow_mut();
        table.record(id, self.current.get());
        table.vals[id].clone()
    }

    /// Facts true before any flow: methods receive their class's instances
    /// as `self` (or the class as `cls`), parameters are not static, and
    /// slots written by anything but a definition or an import are dynamic.
    fn seed(&mut self) {
        for ci in 0..self.files.len() {
            let facts = self.files[ci].facts;
            let py = self.files[ci].py;
            for (local, info) in py.decl_info.iter().enumerate() {
                let decl = self.gdecl(ci, local as u32);
                for p in &info.params {
                    let slot = Slot::Var(decl, self.gsym(ci, p.name));
                    self.dynamic_slots.insert(slot);
                    let dict = match p.kind {
                        ParamKind::VarArgs => false,
                        ParamKind::VarKwargs => true,
                        _ => continue,
                    };
                    let site = self.packed_site(decl, dict);
                    if dict {
                        self.dict_sites.insert(site);
                    } else {
                        self.tuple_sites.insert(site);
                    }
                    self.add(slot, &[Value::Container(site)]);
                }
                let d = &facts.decls[local];
                if d.kind == DeclKind::Method
                    && !info.is_staticmethod
                    && let (Some(first), Some(class)) = (info.params.first(), d.parent)
                {
                    let class = self.gdecl(ci, class);
                    let slot = Slot::Var(decl, self.gsym(ci, first.name));
                    // Methods run on instances of subclasses too: `self` is the
                    // whole cone, resolved against subclass overrides on lookup,
                    // instead of every subclass instance flowing in (which
                    // saturates sets on real hierarchies such as TestCase).
                    let v = if info.is_classmethod {
                        Value::Class(class)
                    } else {
                        Value::Cone(class)
                    };
                    self.add(slot, &[v]);
                    // `self` is as good as the class it belongs to.
                    self.dynamic_slots.remove(&slot);
                }
            }
            for flow in &py.flows {
                if let PyFlow::Assign { target, .. } = flow
                    && let PyExpr::Var { scope, name } = py.exprs[*target as usize]
                    && facts.decls[scope as usize].kind == DeclKind::Class
                {
                    let class = self.gdecl(ci, scope);
                    let name = self.gsym(ci, name);
                    let list = self.class_definers.entry(name).or_default();
                    if !list.contains(&class) {
                        list.push(class);
                    }
                }
                if let PyFlow::Assign { target, value } = flow
                    && let PyExpr::Var { scope, name } = py.exprs[*target as usize]
                {
                    let static_value = matches!(
                        py.exprs[*value as usize],
                        PyExpr::Decl(_) | PyExpr::ModuleRef { .. }
                    ) || matches!(
                        py.exprs[*value as usize],
                        PyExpr::Attr { base, .. } if matches!(py.exprs[base as usize], PyExpr::ModuleRef { .. })
                    );
                    if !static_value {
                        let slot = Slot::Var(self.gdecl(ci, scope), self.gsym(ci, name));
                        self.dynamic_slots.insert(slot);
                    }
                }
            }
            for (e, expr) in py.exprs.iter().enumerate() {
                if let PyExpr::Container { items } = expr {
                    let site = self.site(ci, e as ExprId);
                    let mut keys: Vec<GSym> = items
                        .iter()
                        .map(|(k, _)| k.map(|k| self.gsym(ci, k)).unwrap_or(ANY_KEY))
                        .collect();
                    keys.sort_unstable();
                    keys.dedup();
                    self.container_keys.insert(site, keys);
                }
            }
        }
    }

    /// pytest passes a fixture's value to every test or fixture that names
    /// it as a parameter; the fixture is the one in the same module, else the
    /// one in the nearest `conftest.py` above it.
    fn find_fixture_uses(&mut self, files: &[SourceFile]) {
        let mut fixtures: HashMap<GSym, Vec<(String, DeclId)>> = HashMap::default();
        for ci in 0..self.files.len() {
            let path = files[self.files[ci].file as usize].path;
            let dir = path
                .rsplit_once('/')
                .map(|(d, _)| d)
                .unwrap_or("")
                .to_owned();
            let facts = self.files[ci].facts;
            for (local, info) in self.files[ci].py.decl_info.iter().enumerate() {
                if info.is_fixture {
                    let name = facts.decls[local]
                        .local_name
                        .rsplit('.')
                        .next()
                        .unwrap_or("");
                    let g = self.intern(name);
                    let key = if path.ends_with("conftest.py") {
                        dir.clone()
                    } else {
                        path.to_owned()
                    };
                    fixtures
                        .entry(g)
                        .or_default()
                        .push((key, self.gdecl(ci, local as u32)));
                }
            }
        }
        if fixtures.is_empty() {
            return;
        }
        for ci in 0..self.files.len() {
            let path = files[self.files[ci].file as usize].path;
            let facts = self.files[ci].facts;
            for (local, info) in self.files[ci].py.decl_info.iter().enumerate() {
                let d = &facts.decls[local];
                if !(d.is_test || info.is_fixture) {
                    continue;
                }
                for p in &info.params {
                    let g = self.gsym(ci, p.name);
                    let Some(candidates) = fixtures.get(&g) else {
                        continue;
                    };
                    // Same module first, then the deepest conftest directory containing the test.
                    let best = candidates
                        .iter()
                        .filter(|(key, _)| {
                            key == path || key.is_empty() || path.starts_with(&format!("{key}/"))
                        })
                        .max_by_key(|(key, _)| if key == path { usize::MAX } else { key.len() });
                    if let Some(&(_, fixture)) = best {
                        let func = self.gdecl(ci, local as u32);
                        self.fixture_uses.push((ci, func, g, fixture));
                    }
                }
            }
        }
    }

    /// With `RIPPLE_DEBUG_SATURATED`: every value set that filled its cap,
    /// with its values, named (how the "string soup" was found).
    fn print_saturated(&self, b: &Builder) {
        let name = |d: DeclId| {
            b.res
                .decls
                .get(d as usize)
                .map(|x| x.name.clone())
                .unwrap_or_else(|| format!("#{d}").into())
        };
        let sym = |g: GSym| {
            self.strings
                .get(g as usize)
                .cloned()
                .unwrap_or_else(|| format!("${g}"))
        };
        // A container is named by its literal's file and expression index.
        let site_name = |site: u32| {
            self.files
                .iter()
                .filter(|f| f.expr_base <= site)
                .max_by_key(|f| f.expr_base)
                .map(|f| {
                    let local = site - f.expr_base;
                    let expr = f.py.exprs.get(local as usize);
                    format!("{}#{local} {expr:?}", name(self.module_decl(f.file)))
                })
                .unwrap_or_else(|| format!("#{site}"))
        };
        let table = self.slots.borrow();
        for (slot, &id) in &table.ids {
            let vals = &table.vals[id as usize];
            if vals.len() < MAX_SET {
                continue;
            }
            let s = match *slot {
                Slot::Var(d, g) => format!("Var {} {}", name(d), sym(g)),
                Slot::InstAttr(d, g) => format!(
                    "InstAttr {} {}",
                    if d == ANY_CLASS { "*".into() } else { name(d) },
                    sym(g)
                ),
                Slot::Ret(d) => format!("Ret {}", name(d)),
                Slot::Yield(d) => format!("Yield {}", name(d)),
                Slot::Elem(site, g) => format!("Elem {site} {}", sym(g)),
            };
            let vs: Vec<String> = vals
                .iter()
                .map(|v| match *v {
                    Value::Func(d) => format!("F:{}", name(d)),
                    Value::Class(d) => format!("C:{}", name(d)),
                    Value::Instance(d) => format!("I:{}", name(d)),
                    Value::Cone(d) => format!("Cone:{}", name(d)),
                    Value::Bound { func, .. } => format!("B:{}", name(func)),
                    Value::External(g) => format!("X:{}", sym(g)),
                    Value::Builtin(g) => format!("b:{}", sym(g)),
                    Value::Container(site) => format!("Container({})", site_name(site)),
                    Value::Slice { site, offset } => {
                        format!("Slice({}, {offset})", site_name(site))
                    }
                    other => format!("{other:?}"),
                })
                .collect();
            eprintln!("SAT {s} => {}", vs.join(" "));
        }
    }

    /// Record the names each class body assigns (versions such as `x@2`
    /// left out: attribute lookups ask for plain names).
    fn find_class_body_names(&mut self, ci: usize) {
        let (py, facts) = (self.files[ci].py, self.files[ci].facts);
        for flow in &py.flows {
            let PyFlow::Assign { target, .. } = *flow else {
                continue;
            };
            let Some(&PyExpr::Var { scope, name }) = py.exprs.get(target as usize) else {
                continue;
            };
            let is_class = facts
                .decls
                .get(scope as usize)
                .is_some_and(|d| d.kind == DeclKind::Class);
            let text = facts.strings.get(name);
            if is_class && text.is_some_and(|t| !t.contains('@')) {
                let class = self.gdecl(ci, scope);
                let name = self.gsym(ci, name);
                self.class_body_names.insert((class, name));
            }
        }
        for &(method, expr) in &py.attr_stores {
            let Some(&PyExpr::Attr { base, name }) = py.exprs.get(expr as usize) else {
                continue;
            };
            let Some(&PyExpr::Var {
                scope,
                name: receiver,
            }) = py.exprs.get(base as usize)
            else {
                continue;
            };
            let Some(d) = facts.decls.get(method as usize) else {
                continue;
            };
            let first = py
                .decl_info
                .get(method as usize)
                .and_then(|info| info.params.first());
            if scope == method
                && d.kind == DeclKind::Method
                && let (Some(class), Some(first)) = (d.parent, first)
                && first.name == receiver
            {
                let class = self.gdecl(ci, class);
                let name = self.gsym(ci, name);
                self.self_attrs.insert((class, name));
            }
        }
    }

    /// Whether `c` derives from `enum.Enum` (or another enum base, see
    /// [`is_enum_base`]), out of the repository or in it (the standard
    /// library's own `enum` module).
    fn is_enum(&mut self, c: DeclId) -> bool {
        if self.enum_classes.contains(&c) {
            return true;
        }
        let mut found = false;
        for &k in self.mro(c).iter() {
            let Some((info, ci)) = self.py_info(k) else {
                continue;
            };
            let file = self.files[ci].file;
            let local = self.decl_local[k as usize] as usize;
            if let (Some(module), Some(d)) = (
                self.module_name_of.get(&file),
                self.files[ci].facts.decls.get(local),
            ) && is_enum_base(&qualified_name(module, &d.local_name))
            {
                found = true;
                break;
            }
            for &b in &info.bases {
                for v in self.eval(ci, b, 0) {
                    if let Value::External(p) = v
                        && is_enum_base(&self.strings[p as usize])
                    {
                        found = true;
                    }
                }
            }
            if found {
                break;
            }
        }
        if found {
            self.enum_classes.insert(c);
        }
        found
    }

    /// Find the literals of constants whose name is written through in the
    /// same file: `b = [None]` then `b[0] = func` or `b.append(func)`.
    /// Names are compared without their version (`b@1` is `b`).
    fn find_filled_sites(&mut self, ci: usize) {
        let py = self.files[ci].py;
        let facts = self.files[ci].facts;
        let unversioned = |name: Sym| facts.sym(name).split('@').next().unwrap_or("");
        let var_of = |e: ExprId| match py.exprs.get(e as usize) {
            Some(&PyExpr::Var { scope, name }) => Some((scope, unversioned(name))),
            _ => None,
        };
        let mut written: HashSet<(u32, &str)> = HashSet::default();
        for flow in &py.flows {
            if let PyFlow::Assign { target, .. } = *flow
                && let Some(PyExpr::Subscript { base, .. }) = py.exprs.get(target as usize)
                && let Some(v) = var_of(*base)
            {
                written.insert(v);
            }
        }
        for call in &py.calls {
            if let Some(&PyExpr::Attr { base, name }) = py.exprs.get(call.callee as usize)
                && FILLING_METHODS.contains(&facts.sym(name))
                && let Some(v) = var_of(base)
            {
                written.insert(v);
            }
        }
        if written.is_empty() {
            return;
        }
        for flow in &py.flows {
            if let PyFlow::Assign { target, value } = *flow
                && let Some(v) = var_of(target)
                && written.contains(&v)
                && matches!(py.exprs.get(value as usize), Some(PyExpr::Container { .. }))
            {
                let site = self.site(ci, value);
                self.filled_sites.insert(site);
            }
        }
    }

    /// `objects = Manager()` in a class body calls the descriptor's
    /// `__set_name__(self, owner, name)` with the class as `owner`
    /// (`self.model = owner`, then `self.model(**kw)` makes one).
    fn bind_set_name_owner(&mut self, ci: usize, target: ExprId, vals: &[Value]) {
        let py = self.files[ci].py;
        let Some(&PyExpr::Var { scope, .. }) = py.exprs.get(target as usize) else {
            return;
        };
        if self.files[ci]
            .facts
            .decls
            .get(scope as usize)
            .map(|d| d.kind)
            != Some(DeclKind::Class)
        {
            return;
        }
        let hook = self.intern("__set_name__");
        if !self.class_definers.contains_key(&hook) {
            return;
        }
        let owner = self.gdecl(ci, scope);
        for &v in vals {
            let Value::Instance(k) = v else {
                continue;
            };
            for m in self.method_targets(k, hook) {
                let Some((info, mci)) = self.py_info(m) else {
                    continue;
                };
                if let Some(p) = info.params.get(1) {
                    let slot = Slot::Var(m, self.gsym(mci, p.name));
                    self.add(slot, &[Value::Class(owner)]);
                }
            }
        }
    }

    /// Every constraint of a file: its flows, container literals and calls.
    fn constraints_of(&self, ci: usize) -> Vec<Constraint> {
        let py = self.files[ci].py;
        let ci = ci as u32;
        let mut out: Vec<Constraint> = (0..py.flows.len() as u32)
            .map(|i| Constraint {
                ci,
                kind: ConsKind::Flow,
                idx: i,
            })
            .collect();
        for (e, expr) in py.exprs.iter().enumerate() {
            if matches!(expr, PyExpr::Container { items } if !items.is_empty()) {
                out.push(Constraint {
                    ci,
                    kind: ConsKind::Container,
                    idx: e as u32,
                });
            }
        }
        // Most operator sites bind no arguments while solving: re-evaluating
        // tens of thousands of `a == b` and `x[i]` receivers on every change
        // doubled resolution. They are resolved when emitted, and their
        // results flow wherever an expression uses them. An arithmetic
        // operator a repository class defines does pass its other operand
        // on (`-other` in `Vec.__sub__` is a Vec's `__neg__`).
        let binds = |i: u32| match py.calls[i as usize].kind {
            PyCallKind::Operator { method, .. } => {
                let g = self.gsym(ci as usize, method);
                self.class_definers.contains_key(&g)
                    && (PLAIN_OPERATORS.contains(&self.strings[g as usize].as_str())
                        || INPLACE_OPERATORS.contains(&self.strings[g as usize].as_str()))
            }
            _ => true,
        };
        out.extend(
            (0..py.calls.len() as u32)
                .filter(|&i| binds(i))
                .map(|i| Constraint {
                    ci,
                    kind: ConsKind::Call,
                    idx: i,
                }),
        );
        for (i, &(file_ctx, _, _, _)) in self.fixture_uses.iter().enumerate() {
            if file_ctx == ci as usize {
                out.push(Constraint {
                    ci,
                    kind: ConsKind::Fixture,
                    idx: i as u32,
                });
            }
        }
        for (local, d) in self.files[ci as usize].facts.decls.iter().enumerate() {
            if d.kind == DeclKind::Class && !py.decl_info[local].bases.is_empty() {
                out.push(Constraint {
                    ci,
                    kind: ConsKind::ClassBases,
                    idx: local as u32,
                });
            }
        }
        out
    }

    /// Evaluate one constraint, recording the slots it reads so that it is
    /// evaluated again when (and only when) one of them grows.
    fn run(&mut self, id: u32) {
        let c = self.constraints[id as usize];
        self.current.set(id);
        let ci = c.ci as usize;
        let py = self.files[ci].py;
        match c.kind {
            ConsKind::Flow => match py.flows[c.idx as usize] {
                PyFlow::Assign { target, value } => {
                    let vals = self.eval(ci, value, 0);
                    self.write(ci, target, &vals);
                    self.bind_set_name_owner(ci, target, &vals);
                }
                PyFlow::Return { .. } if self.passthrough_flows.contains(&(c.ci, c.idx)) => {}
                PyFlow::Return { func, value } => {
                    let vals = self.eval(ci, value, 0);
                    let f = self.gdecl(ci, func);
                    self.add(Slot::Ret(f), &vals);
                }
                PyFlow::Yield { func, value } => {
                    let vals = self.eval(ci, value, 0);
                    let f = self.gdecl(ci, func);
                    self.add(Slot::Yield(f), &vals);
                }
            },
            ConsKind::Container => {
                if let PyExpr::Container { items } = &py.exprs[c.idx as usize] {
                    let site = self.site(ci, c.idx);
                    for (key, item) in items {
                        let vals = self.eval(ci, *item, 0);
                        if vals.is_empty() {
                            continue;
                        }
                        let key = key.map(|k| self.gsym(ci, k)).unwrap_or(ANY_KEY);
                        self.add(Slot::Elem(site, key), &vals);
                    }
                }
            }
            ConsKind::Call => self.bind_call(ci, c.idx as usize),
            ConsKind::Fixture => {
                let (_, func, param, fixture) = self.fixture_uses[c.idx as usize];
                let mut vals = self.ret_values(fixture);
                vals.extend(self.get(Slot::Yield(fixture)));
                self.add(Slot::Var(func, param), &vals);
            }
            ConsKind::ClassBases => {
                let class = self.gdecl(ci, c.idx);
                // In the order the class statement names them, whichever
                // resolved first (an imported base may resolve later).
                let mut merged = self.bases(class);
                let old = self.class_bases.get(&class).cloned().unwrap_or_default();
                for &b in &old {
                    if !merged.contains(&b) {
                        merged.push(b);
                    }
                }
                // Defining a subclass calls the nearest `__init_subclass__`
                // above it with the new class as `cls` (plugin registries
                // fill themselves this way).
                let init_subclass = self.intern("__init_subclass__");
                for &base in &merged {
                    for m in self.method_targets(base, init_subclass) {
                        if let Some((info, fci)) = self.py_info(m)
                            && let Some(first) = info.params.first()
                        {
                            let slot = Slot::Var(m, self.gsym(fci, first.name));
                            self.add(slot, &[Value::Class(class)]);
                        }
                    }
                }
                if merged != old {
                    if merged.len() >= 2 && !self.multi_base.contains(&class) {
                        self.multi_base.push(class);
                    }
                    self.class_bases.insert(class, merged);
                    // Re-walking every hierarchy user on each change would be
                    // quadratic; changes are batched into epochs instead.
                    self.hierarchy_dirty = true;
                }
            }
        }
        self.current.set(NO_CONSTRAINT);
    }

    fn write(&mut self, ci: usize, target: ExprId, vals: &[Value]) {
        if vals.is_empty() {
            return;
        }
        let py = self.files[ci].py;
        match py.exprs[target as usize] {
            PyExpr::Var { scope, name } => {
                let id = self.var_slot_id(ci, target, scope, name);
                self.add_id(id, vals);
            }
            PyExpr::Attr { base, name } => {
                let name = self.gsym(ci, name);
                for b in self.eval(ci, base, 0) {
                    match b {
                        Value::Instance(c) | Value::Cone(c) => {
                            let definers = self.inst_definers.entry(name).or_default();
                            if !definers.contains(&c) {
                                definers.push(c);
                                self.notify(Slot::InstAttr(ANY_CLASS, name));
                            }
                            self.add(Slot::InstAttr(c, name), vals)
                        }
                        Value::Class(c) => self.add(Slot::Var(c, name), vals),
                        Value::Func(f) => self.add(Slot::InstAttr(f, name), vals),
                        // Tests monkeypatch other modules (`os.path.join = fake`);
                        // letting that flow would reroute every real call.
                        Value::Module(f) if self.files[ci].is_test && f != self.files[ci].file => {}
                        Value::Module(f) => {
                            let m = self.module_decl(f);
                            self.add(Slot::Var(m, name), vals);
                        }
                        _ => {}
                    }
                }
            }
            PyExpr::Subscript { base, key } => {
                let key = key.map(|k| self.gsym(ci, k)).unwrap_or(ANY_KEY);
                for b in self.eval(ci, base, 0) {
                    if let Value::Container(site) = b {
                        self.add_elem(site, key, vals);
                    }
                }
            }
            _ => {}
        }
    }

    fn module_decl(&self, file: u32) -> DeclId {
        self.ctx_of_file
            .get(&file)
            .map(|&ci| self.files[ci].base)
            .unwrap_or(0)
    }

    fn eval(&mut self, ci: usize, expr: ExprId, depth: u32) -> Vals {
        // `depth` bounds each path, but operands and arguments start again
        // at depth 1 (`a + a + …`, `g(g(…))` where `g` returns its
        // argument), so code thousands of levels deep would overflow the
        // stack: evaluation nested this deep, by any path, stops here.
        if self.eval_nesting >= MAX_NESTING {
            return Vals::new();
        }
        self.eval_nesting += 1;
        let out = self.eval_at(ci, expr, depth);
        self.eval_nesting -= 1;
        out
    }

    fn eval_at(&mut self, ci: usize, expr: ExprId, depth: u32) -> Vals {
        if depth > MAX_DEPTH {
            return Vals::new();
        }
        let py = self.files[ci].py;
        let Some(e) = py.exprs.get(expr as usize) else {
            return Vals::new();
        };
        match e {
            PyExpr::Unknown | PyExpr::Name { .. } => Vals::new(),
            PyExpr::Var { scope, name } => {
                let id = self.var_slot_id(ci, expr, *scope, *name);
                let vals = self.get_id(id);
                if vals.is_empty() && *scope == 0 {
                    // A module-level name bound only by a star import elsewhere in the file.
                    return self.free_name(ci, *name);
                }
                vals
            }
            PyExpr::Free { name } => self.free_name(ci, *name),
            PyExpr::Attr { base, name } => {
                let name = self.gsym(ci, *name);
                if matches!(self.strings[name as usize].as_str(), "value" | "_value_")
                    && let Some(vals) = self.named_enum_member_value(ci, *base, depth)
                {
                    return vals;
                }
                let bases = self.eval(ci, *base, depth + 1);
                let mut out = Vals::new();
                for v in bases {
                    for r in self.attr(v, name, 0) {
                        push_unique(&mut out, r);
                    }
                }
                out
            }
            PyExpr::Call(call) => self.call_result(ci, *call as usize, depth + 1),
            PyExpr::Subscript { base, key } => {
                let key = key.map(|k| self.gsym(ci, k));
                let mut out = Vals::new();
                for v in self.eval(ci, *base, depth + 1) {
                    match v {
                        Value::Container(site) => {
                            for r in self.elements(site, key) {
                                push_unique(&mut out, r);
                            }
                        }
                        Value::Items(site) => push_unique(&mut out, Value::Container(site)),
                        Value::ZipRow(site) => {
                            for r in self.zip_row_element(site, key, depth + 1) {
                                push_unique(&mut out, r);
                            }
                        }
                        Value::Slice { site, offset } => {
                            let key = key.and_then(|k| self.shifted_key(k, offset));
                            for r in self.elements(site, key) {
                                push_unique(&mut out, r);
                            }
                        }
                        // `Generic[T]`, `Dict[str, int]`: a generic alias is
                        // still the class (a base, or called). An element of
                        // an external variable (`sys.argv[1:]`) is unknown:
                        // passing the variable on made up callees such as
                        // `sys.argv.rx.match`. Classes are told apart by
                        // convention, as for calls.
                        Value::External(p) if self.external_is_class(p) => {
                            push_unique(&mut out, Value::External(p))
                        }
                        // `Op["ADD"]` looks a member up by name.
                        Value::Class(c) if self.is_enum(c) => {
                            push_unique(&mut out, Value::Instance(c))
                        }
                        // `class File(ParamType[IO])`: the repository's own
                        // generic classes, as bases above all.
                        Value::Class(c) => push_unique(&mut out, Value::Class(c)),
                        // `list(map(f, xs))[0]`: `list` hands its argument on.
                        Value::Mapped(f) => {
                            for r in self.returns_of(f) {
                                push_unique(&mut out, r);
                            }
                        }
                        // `list(gen())[0]`, `sorted(gen())[-1]`: what the
                        // generator yields.
                        Value::Generator(g) => self.read_into(Slot::Yield(g), &mut out),
                        // `catalog["a"]` is what `Catalog.__getitem__` returns.
                        Value::Instance(c) | Value::Cone(c) => {
                            let getitem = self.intern("__getitem__");
                            if self.operator_defined(getitem) {
                                for m in self.special_method(c, getitem) {
                                    for r in self.returns_of(m) {
                                        push_unique(&mut out, r);
                                    }
                                }
                            }
                        }
                        _ => {}
                    }
                }
                out
            }
            PyExpr::Slice { base, start } => {
                let mut out = Vals::new();
                for v in self.eval(ci, *base, depth + 1) {
                    let sliced = match (v, *start) {
                        (Value::Container(site), Some(start)) => Value::Slice {
                            site,
                            offset: start,
                        },
                        // A slice that keeps slicing itself (`value = value[1:]`
                        // in a parser's loop) would count its offset up until
                        // the set fills; past a few places it is any place.
                        (Value::Slice { site, offset }, Some(start)) => Value::Slice {
                            site,
                            offset: offset
                                .checked_add(start)
                                .filter(|&o| o <= MAX_SLICE_OFFSET)
                                .unwrap_or(UNKNOWN_OFFSET),
                        },
                        (Value::Container(site) | Value::Slice { site, .. }, None) => {
                            Value::Slice {
                                site,
                                offset: UNKNOWN_OFFSET,
                            }
                        }
                        (Value::PyStr, _) => Value::PyStr,
                        _ => continue,
                    };
                    push_unique(&mut out, sliced);
                }
                out
            }
            PyExpr::Str => smallvec![Value::PyStr],
            PyExpr::Container { items } => {
                let is_dict = self.dict_sites.contains(&self.site(ci, expr));
                if is_dict
                    && !items.is_empty()
                    && items
                        .iter()
                        .all(|(_, e)| *e == crate::lang::python::UNKNOWN)
                {
                    return smallvec![Value::PyDict];
                }
                // A literal of constants (`["a", 1]`) holds no callable: it is
                // not worth tracking as a value, unless its name is written
                // through later.
                if !items.is_empty()
                    && items
                        .iter()
                        .all(|(_, e)| *e == crate::lang::python::UNKNOWN)
                    && !self.filled_sites.contains(&self.site(ci, expr))
                {
                    Vals::new()
                } else {
                    smallvec![Value::Container(self.site(ci, expr))]
                }
            }
            PyExpr::Decl(d) => {
                let g = self.gdecl(ci, *d);
                match self.decl_kind[g as usize] {
                    DeclKind::Class => smallvec![Value::Class(g)],
                    _ => smallvec![Value::Func(g)],
                }
            }
            PyExpr::Iter(inner) => {
                let vals = self.eval(ci, *inner, depth + 1);
                let mut out = Vals::new();
                for v in vals {
                    for r in self.iterate(v) {
                        push_unique(&mut out, r);
                    }
                }
                out
            }
            // `except E as e`: what is caught may be any subclass of E,
            // as a parameter annotated with E may be.
            PyExpr::Instance(inner) => {
                let mut out = Vals::new();
                for v in self.eval(ci, *inner, depth + 1) {
                    match v {
                        Value::Class(c) => push_unique(&mut out, Value::Cone(c)),
                        Value::Container(site) => {
                            for e in self.elements(site, None) {
                                if let Value::Class(c) = e {
                                    push_unique(&mut out, Value::Cone(c));
                                }
                            }
                        }
                        Value::External(p) => push_unique(&mut out, Value::External(p)),
                        _ => {}
                    }
                }
                out
            }
            PyExpr::Annotation {
                inner,
                instance,
                externals,
            } => {
                let mut out = Vals::new();
                for v in self.eval(ci, *inner, depth + 1) {
                    match v {
                        // Any subclass may be passed where the class is
                        // declared: its overrides are candidates too.
                        Value::Class(c) if *instance => push_unique(&mut out, Value::Cone(c)),
                        Value::Class(c) => push_unique(&mut out, Value::Class(c)),
                        // `name: str`: `name.lower()` is `<**PyStr**>.lower`,
                        // as on a literal, not an unresolved call.
                        Value::Builtin(b) if *instance => match self.strings[b as usize].as_str() {
                            "str" => push_unique(&mut out, Value::PyStr),
                            "dict" => push_unique(&mut out, Value::PyDict),
                            _ => {}
                        },
                        Value::External(p)
                            if *externals && !is_typing_name(&self.strings[p as usize]) =>
                        {
                            push_unique(&mut out, Value::External(p))
                        }
                        _ => {}
                    }
                }
                out
            }
            PyExpr::Narrowed { subject, classes } => {
                // Any instance of the classes, not only those of the
                // subject's values that pass: the solver only adds values,
                // so "the subject's passing values, or the class when there
                // are none" would keep whichever it saw first, and the graph
                // would depend on the order constraints run in.
                let mut out = Vals::new();
                for &class in classes.iter() {
                    for v in self.eval(ci, class, depth + 1) {
                        match v {
                            Value::Class(c) => push_unique(&mut out, Value::Cone(c)),
                            Value::Builtin(b) if self.strings[b as usize] == "str" => {
                                push_unique(&mut out, Value::PyStr)
                            }
                            Value::Builtin(b) if self.strings[b as usize] == "dict" => {
                                push_unique(&mut out, Value::PyDict)
                            }
                            Value::External(p)
                                if classes.len() == 1
                                    && !is_typing_name(&self.strings[p as usize]) =>
                            {
                                push_unique(&mut out, Value::External(p))
                            }
                            // A class the values cannot stand for: no narrowing.
                            _ => return self.eval(ci, *subject, depth + 1),
                        }
                    }
                }
                if out.is_empty() {
                    return self.eval(ci, *subject, depth + 1);
                }
                out
            }
            PyExpr::Union(items) => {
                let mut out = Vals::new();
                for item in items {
                    for r in self.eval(ci, *item, depth + 1) {
                        push_unique(&mut out, r);
                    }
                }
                out
            }
            PyExpr::ModuleRef { level, path } => {
                self.module_ref(ci, *level, *path).into_iter().collect()
            }
            PyExpr::Super { class, func } => {
                smallvec![Value::Super {
                    class: self.gdecl(ci, *class),
                    func: self.gdecl(ci, *func),
                }]
            }
            PyExpr::Decorated { result, original } => {
                let vals = self.eval(ci, *result, depth + 1);
                let callable = vals.iter().any(|v| {
                    matches!(
                        v,
                        Value::Func(_) | Value::Bound { .. } | Value::Class(_) | Value::Instance(_)
                    )
                });
                if callable {
                    vals
                } else if !self.late_decorators && self.decorator_pending(ci, *result) {
                    // A repository decorator whose returns are not known
                    // yet (defined in a module solved later): the name
                    // waits for them, rather than keep the undecorated
                    // function for good. Those still without a callable
                    // result once the rest is solved fall back to it.
                    let id = self.current.get();
                    if id != NO_CONSTRAINT {
                        self.pending_decorated.insert(id);
                    }
                    Vals::new()
                } else {
                    self.eval(ci, *original, depth + 1)
                }
            }
        }
    }

    /// Key `#i` of a slice starting at `offset`: the container's `#(i + offset)`.
    /// Whether decorator call `result` may still turn out to return a
    /// callable: its decorator is not known yet, or is a repository
    /// function that returns nothing yet.
    fn decorator_pending(&mut self, ci: usize, result: ExprId) -> bool {
        let py = self.files[ci].py;
        let Some(&PyExpr::Call(call)) = py.exprs.get(result as usize) else {
            return false;
        };
        let callee = py.calls[call as usize].callee;
        self.may_still_decorate(ci, callee, 0)
    }

    /// Whether decorator expression `e` names nothing yet (a name imported
    /// through a package not solved yet) or a repository function that
    /// returns nothing yet; for `@factory(args)`, whether the factory does.
    fn may_still_decorate(&mut self, ci: usize, e: ExprId, depth: u32) -> bool {
        let decorators = self.eval(ci, e, 1);
        if !decorators.is_empty() {
            return decorators
                .iter()
                .any(|v| matches!(v, Value::Func(f) if self.returns_of(*f).is_empty()));
        }
        let py = self.files[ci].py;
        match py.exprs.get(e as usize) {
            Some(&PyExpr::Call(call)) if depth < 4 => {
                self.may_still_decorate(ci, py.calls[call as usize].callee, depth + 1)
            }
            Some(PyExpr::Var { .. } | PyExpr::Free { .. } | PyExpr::Attr { .. }) => true,
            _ => false,
        }
    }

    /// Whether a class that defines `name` is above or below the class of
    /// instance, cone or class `v`.
    fn in_hierarchy_of(&mut self, v: Value, name: GSym) -> bool {
        let (Value::Instance(c) | Value::Cone(c) | Value::Class(c)) = v else {
            return false;
        };
        let definers = self.class_definers.get(&name).cloned().unwrap_or_default();
        let mro = self.mro(c);
        definers
            .into_iter()
            .any(|k| mro.contains(&k) || self.mro(k).contains(&c))
    }

    /// Names of methods some class defines that start with `prefix`, in
    /// a fixed order (memoised: a visitor's `visit` asks on every call).
    fn prefixed_methods(&mut self, prefix: &str) -> Vec<GSym> {
        if let Some(names) = self.prefixed.get(prefix) {
            return names.clone();
        }
        let mut names: Vec<GSym> = self
            .class_definers
            .keys()
            .copied()
            .filter(|&n| self.strings[n as usize].starts_with(prefix))
            .collect();
        names.sort_unstable();
        self.prefixed.insert(prefix.to_owned(), names.clone());
        names
    }

    fn shifted_key(&mut self, key: GSym, offset: u32) -> Option<GSym> {
        if offset == 0 {
            return Some(key);
        }
        let index: u32 = self.strings[key as usize].strip_prefix('#')?.parse().ok()?;
        let shifted = index.checked_add(offset)?;
        Some(self.intern(&format!("#{shifted}")))
    }

    /// `collections.defaultdict(factory)`: a dict (numbered by the site
    /// of the call's callee) whose every key may hold what `factory()`
    /// makes: a list, set or dict numbered by the factory's site, an
    /// instance, or a function's return values.
    fn defaultdict(&mut self, ci: usize, call: usize) -> Value {
        let py = self.files[ci].py;
        let site = self.site(ci, py.calls[call].callee);
        self.dict_sites.insert(site);
        if let Some(&factory) = py.calls[call].args.first() {
            let defaults = self.factory_values(ci, factory);
            self.defaultdict_sites.insert(site);
            self.add(Slot::Elem(site, MISSING_KEY), &defaults);
        }
        Value::Container(site)
    }

    /// What calling `factory` makes (a defaultdict's or a dataclass
    /// field's): a list, set or dict numbered by the factory's site, an
    /// instance, or a function's return values.
    fn factory_values(&mut self, ci: usize, factory: ExprId) -> Vals {
        let made = self.site(ci, factory);
        let mut out = Vals::new();
        for v in self.eval(ci, factory, 1) {
            match v {
                Value::Builtin(b) => {
                    match self.strings[b as usize].as_str() {
                        "set" => self.set_sites.insert(made),
                        "dict" => self.dict_sites.insert(made),
                        "list" => false,
                        _ => continue,
                    };
                    push_unique(&mut out, Value::Container(made));
                }
                Value::Class(c) => push_unique(&mut out, Value::Instance(c)),
                Value::Func(f) => {
                    for r in self.returns_of(f) {
                        push_unique(&mut out, r);
                    }
                }
                _ => {}
            }
        }
        out
    }

    fn elements(&self, site: u32, key: Option<GSym>) -> Vals {
        self.touch(Slot::Elem(site, KEYS));
        let mut out = Vals::new();
        let keys = self.container_keys.get(&site).cloned().unwrap_or_default();
        for k in keys {
            let matches = match key {
                Some(key) => k == key || k == ANY_KEY,
                None => true,
            };
            if matches {
                self.read_into(Slot::Elem(site, k), &mut out);
            }
        }
        // A key that was never written literally: any element may come out.
        // (One written with a value the analysis does not track, such as a
        // string, holds nothing callable.)
        if out.is_empty()
            && let Some(key) = key
            && !self
                .container_keys
                .get(&site)
                .is_some_and(|keys| keys.contains(&key))
            // A dict's string keys are all written literally or not at all
            // (an unknown key is stored as ANY_KEY, read above), so an absent
            // one holds nothing. Positions (`pair[1]` of `d.items()`) do not
            // apply to dicts and still read every value.
            && (!self.dict_sites.contains(&site)
                || self
                    .strings
                    .get(key as usize)
                    .is_some_and(|k| k.starts_with('#')))
        {
            return self.elements(site, None);
        }
        // A defaultdict's missing key holds what its factory makes.
        if self.defaultdict_sites.contains(&site) {
            self.read_into(Slot::Elem(site, MISSING_KEY), &mut out);
        }
        out
    }

    fn iterate(&mut self, v: Value) -> Vals {
        match v {
            Value::Container(site) | Value::Slice { site, .. } => self.elements(site, None),
            Value::Items(site) => smallvec![Value::Container(site)],
            Value::Zipped(site) => smallvec![Value::ZipRow(site)],
            // Unpacking a tuple target (`for f, x in zip(…)`) iterates each
            // element: every position at once.
            Value::ZipRow(site) => self.zip_row_element(site, None, 1),
            Value::Generator(f) => self.get(Slot::Yield(f)),
            Value::Mapped(f) => self.returns_of(f),
            // Iterating an enum class yields its members.
            Value::Class(c) if self.is_enum(c) => smallvec![Value::Instance(c)],
            Value::Instance(c) | Value::Cone(c) => {
                let mut out = Vals::new();
                let (iter_sym, next_sym) = self.protocol(c, ITER_PROTOCOL);
                let iters = self.method_targets(c, iter_sym);
                for g in self.index_iteration(c, iter_sym, &iters) {
                    for r in self.returns_of(g) {
                        push_unique(&mut out, r);
                    }
                }
                for it in iters {
                    let produced = self.returns_of(it);
                    for p in produced {
                        match p {
                            Value::Instance(c2) | Value::Cone(c2) => {
                                for n in self.method_targets(c2, next_sym) {
                                    for r in self.returns_of(n) {
                                        push_unique(&mut out, r);
                                    }
                                }
                            }
                            Value::Generator(g) => {
                                self.read_into(Slot::Yield(g), &mut out);
                            }
                            other => {
                                for r in self.iterate_shallow(other) {
                                    push_unique(&mut out, r);
                                }
                            }
                        }
                    }
                }
                out
            }
            _ => Vals::new(),
        }
    }

    /// Position `key` (any, when not a literal) of a tuple that iterating
    /// the `zip` or `enumerate` call at `site` yields.
    fn zip_row_element(&mut self, site: u32, key: Option<GSym>, depth: u32) -> Vals {
        let Some(&(ci, call, enumerate)) = self.zip_calls.get(&site) else {
            return Vals::new();
        };
        if self.zip_reading.contains(&site) {
            return Vals::new();
        }
        let position = key.and_then(|k| self.strings.get(k as usize)?.parse::<usize>().ok());
        let args = self.files[ci].py.calls[call].args.clone();
        let sources: Vec<ExprId> = match (enumerate, position) {
            (true, Some(0)) => Vec::new(),
            // Position 1, or any: the count adds nothing callable.
            (true, _) => args.first().copied().into_iter().collect(),
            (false, Some(p)) => args.get(p).copied().into_iter().collect(),
            (false, None) => args.to_vec(),
        };
        self.zip_reading.push(site);
        let mut out = Vals::new();
        for arg in sources {
            for v in self.eval(ci, arg, depth) {
                for r in self.iterate(v) {
                    push_unique(&mut out, r);
                }
            }
        }
        self.zip_reading.pop();
        out
    }

    fn iterate_shallow(&self, v: Value) -> Vals {
        match v {
            Value::Container(site) | Value::Slice { site, .. } => self.elements(site, None),
            Value::Items(site) => smallvec![Value::Container(site)],
            Value::Zipped(site) => smallvec![Value::ZipRow(site)],
            Value::Generator(f) => self.get(Slot::Yield(f)),
            Value::Mapped(f) => self.returns_of(f),
            _ => Vals::new(),
        }
    }

    fn returns_of(&self, func: DeclId) -> Vals {
        match self.py_info(func) {
            Some((info, _)) if info.is_generator => smallvec![Value::Generator(func)],
            _ => self.ret_values(func),
        }
    }

    /// What `func` returns at some call: its returns, and whatever any
    /// caller passed for the parameters it returns unchanged.
    fn ret_values(&self, func: DeclId) -> Vals {
        let mut out = self.get(Slot::Ret(func));
        if let Some(params) = self.passthrough.get(&func) {
            for &p in params {
                self.read_into(Slot::Var(func, p), &mut out);
            }
        }
        out
    }

    /// What `func` returns at call site `call`, whose arguments start at
    /// parameter `shift`: a returned parameter is what this site passed
    /// for it (or, when the site does not say, what any caller passed).
    fn returns_at(&mut self, ci: usize, call: usize, func: DeclId, shift: usize) -> Vals {
        let Some(params) = self.passthrough.get(&func).cloned() else {
            return self.returns_of(func);
        };
        let Some((info, fci)) = self.py_info(func) else {
            return self.returns_of(func);
        };
        if info.is_generator {
            return smallvec![Value::Generator(func)];
        }
        let mut out = self.get(Slot::Ret(func));
        let c = &self.files[ci].py.calls[call];
        for p in params {
            let Some(pos) = info.params.iter().position(|q| self.gsym(fci, q.name) == p) else {
                continue;
            };
            let positional = info.params[..pos]
                .iter()
                .all(|q| matches!(q.kind, ParamKind::Positional | ParamKind::PositionalOnly))
                && matches!(
                    info.params[pos].kind,
                    ParamKind::Positional | ParamKind::PositionalOnly
                );
            let by_position = pos
                .checked_sub(shift)
                .filter(|_| positional)
                .and_then(|i| c.args.get(i).copied());
            let by_keyword = c
                .kwargs
                .iter()
                .find(|&&(k, _)| self.gsym(ci, k) == p)
                .map(|&(_, e)| e);
            let vals = match by_position.or(by_keyword) {
                Some(arg) if c.splats.is_empty() => self.eval(ci, arg, 1),
                None if c.splats.is_empty() && shift != NO_BIND => {
                    match self.passthrough_defaults.get(&(func, p)) {
                        Some(&default) => self.eval(fci, default, 1),
                        None => self.get(Slot::Var(func, p)),
                    }
                }
                _ => self.get(Slot::Var(func, p)),
            };
            for v in vals {
                push_unique(&mut out, v);
            }
        }
        out
    }

    /// Find functions that return one of their parameters unchanged: a
    /// `return p` where `p` is a parameter nothing in the file rebinds.
    fn find_passthrough_returns(&mut self) {
        for ci in 0..self.files.len() {
            let py = self.files[ci].py;
            // A parameter's default is no rebinding: `def step(self,
            // fn=None): … return fn` hands back what each call passed, and
            // the default where it passes none.
            let default_flows: HashSet<u32> = py
                .decl_info
                .iter()
                .flat_map(|info| info.default_flows.iter().copied())
                .collect();
            let mut defaults: HashMap<(u32, Sym), ExprId> = HashMap::default();
            let mut rebound: HashSet<(u32, Sym)> = HashSet::default();
            for (fi, flow) in py.flows.iter().enumerate() {
                let PyFlow::Assign { target, value } = *flow else {
                    continue;
                };
                let Some(&PyExpr::Var { scope, name }) = py.exprs.get(target as usize) else {
                    continue;
                };
                if default_flows.contains(&(fi as u32)) {
                    defaults.insert((scope, name), value);
                } else {
                    rebound.insert((scope, name));
                }
            }
            for (fi, flow) in py.flows.iter().enumerate() {
                let PyFlow::Return { func, value } = *flow else {
                    continue;
                };
                let Some(&PyExpr::Var { scope, name }) = py.exprs.get(value as usize) else {
                    continue;
                };
                let Some(info) = py.decl_info.get(func as usize) else {
                    continue;
                };
                let is_param = info.params.iter().any(|p| {
                    p.name == name && !matches!(p.kind, ParamKind::VarArgs | ParamKind::VarKwargs)
                });
                if scope != func || !is_param || rebound.contains(&(scope, name)) {
                    continue;
                }
                let f = self.gdecl(ci, func);
                let g = self.gsym(ci, name);
                let params = self.passthrough.entry(f).or_default();
                if !params.contains(&g) {
                    params.push(g);
                }
                self.passthrough_flows.insert((ci as u32, fi as u32));
                if let Some(&default) = defaults.get(&(scope, name)) {
                    self.passthrough_defaults.insert((f, g), default);
                }
            }
        }
    }

    /// Methods named `name` on class `c` (through its MRO).
    fn method_targets(&mut self, c: DeclId, name: GSym) -> Vec<DeclId> {
        let mut out = Vec::new();
        for v in self.class_attr(c, name) {
            if let Value::Func(f) = v {
                out.push(f);
            }
        }
        out
    }

    fn free_name(&mut self, ci: usize, name: Sym) -> Vals {
        let gname = self.gsym(ci, name);
        let file = self.files[ci].file;
        if !self.star_sources(file).is_empty() {
            let mut seen = Vec::new();
            let found = self.star_lookup(file, gname, &mut seen);
            if !found.is_empty() {
                return found;
            }
        }
        let text = &self.strings[gname as usize];
        if self.builtins.contains(text.as_str()) {
            return smallvec![Value::Builtin(gname)];
        }
        self.external_star_member(file, gname, 0)
    }

    /// A name looked up through the `from m import *` imports of `file`'s module scope.
    fn star_lookup(&mut self, file: u32, name: GSym, seen: &mut Vec<u32>) -> Vals {
        // Free names (every builtin) of a module with star imports come
        // here on each evaluation: no hashing, no copies of the sources.
        if seen.contains(&file) {
            return Vals::new();
        }
        seen.push(file);
        let name = self.unversioned(name);
        let mut out = Vals::new();
        for &f in self.star_sources(file).iter() {
            if !self.star_exports(f, name) {
                continue;
            }
            let decl = self.module_decl(f);
            let mut vals = self.get(Slot::Var(decl, name));
            if vals.is_empty() {
                vals = self.star_lookup(f, name, seen);
            }
            if vals.is_empty()
                && let Some(sf) = self.submodule(f, name)
            {
                vals.push(Value::Module(sf));
            }
            if vals.is_empty() {
                vals = self.external_star_member(f, name, 0);
            }
            for v in vals {
                push_unique(&mut out, v);
            }
        }
        out
    }

    /// Whether `from module import *` of `file`'s module binds `name`:
    /// a name its literal `__all__` lists, or without one, any name
    /// without a leading underscore.
    fn star_exports(&self, file: u32, name: GSym) -> bool {
        let Some(&ci) = self.ctx_of_file.get(&file) else {
            return true;
        };
        match &self.files[ci].py.exports {
            Exports::Public => !self.strings[name as usize].starts_with('_'),
            Exports::Listed(names) => names.iter().any(|&s| self.gsym(ci, s) == name),
            Exports::Computed => true,
        }
    }

    /// The repository modules whose names `file`'s module-level star
    /// imports bring in (an import resolves the same way every time;
    /// external modules contribute nothing the analysis can see).
    fn star_sources(&mut self, file: u32) -> std::rc::Rc<[u32]> {
        if let Some(v) = self.star_sources.get(&file) {
            return v.clone();
        }
        let mut out = Vec::new();
        let mut external = Vec::new();
        if let Some(&ci) = self.ctx_of_file.get(&file) {
            let stars: Vec<ExprId> = self.files[ci]
                .py
                .star_imports
                .iter()
                .filter(|(scope, _)| *scope == 0)
                .map(|(_, e)| *e)
                .collect();
            for e in stars {
                let Some(PyExpr::ModuleRef { level, path }) =
                    self.files[ci].py.exprs.get(e as usize)
                else {
                    continue;
                };
                match self.module_ref(ci, *level, *path) {
                    Some(Value::Module(f)) if !out.contains(&f) => out.push(f),
                    Some(Value::External(m)) if !external.contains(&m) => external.push(m),
                    _ => {}
                }
            }
        }
        let out: std::rc::Rc<[u32]> = out.into();
        self.star_sources.insert(file, out.clone());
        self.external_stars.insert(file, external.into());
        out
    }

    /// `name` as a member of the out-of-repo modules `file` star-imports:
    /// `os.getcwd` is `posix.getcwd` (or `nt.getcwd`) when os.py binds no
    /// `getcwd` but runs `from posix import *`. Empty without such imports.
    fn external_star_member(&mut self, file: u32, name: GSym, depth: u32) -> Vals {
        // A rebinding's version (`fsencode@1`) is its name to other modules.
        let name = self.unversioned(name);
        self.star_sources(file);
        let sources = self.external_stars.get(&file).cloned();
        let mut out = Vals::new();
        for &m in sources.iter().flat_map(|s| s.iter()) {
            for v in self.attr(Value::External(m), name, depth + 1) {
                push_unique(&mut out, v);
            }
        }
        out
    }

    /// `name` without a rebinding's version suffix (`a@2` is `a`).
    fn unversioned(&mut self, name: GSym) -> GSym {
        match self
            .strings
            .get(name as usize)
            .and_then(|t| t.split_once('@'))
        {
            Some((base, _)) if !base.is_empty() => {
                let base = base.to_owned();
                self.intern(&base)
            }
            _ => name,
        }
    }

    fn module_ref(&mut self, ci: usize, level: u8, path: Sym) -> Option<Value> {
        // Pure given the module table, and evaluated for every use of an
        // imported name: worth remembering.
        if let Some(v) = self.module_refs.get(&(ci, level, path)) {
            return *v;
        }
        let text = self.files[ci].facts.sym(path).to_owned();
        let v = self.module_ref_str(ci, level, text);
        self.module_refs.insert((ci, level, path), v);
        v
    }

    /// The submodule `name` of the package in file `f`, if the repository has it.
    fn submodule(&mut self, f: u32, name: GSym) -> Option<u32> {
        if let Some(v) = self.submodules.get(&(f, name)) {
            return *v;
        }
        let sub = format!(
            "{}.{}",
            self.module_name_of.get(&f).map_or("", String::as_str),
            self.strings[name as usize]
        );
        let v = self.modules.get(&sub).copied();
        self.submodules.insert((f, name), v);
        v
    }

    fn module_ref_str(&mut self, ci: usize, level: u8, path: String) -> Option<Value> {
        let file = self.files[ci].file;
        let full = if level == 0 {
            path.clone()
        } else {
            let me = self.module_name_of.get(&file).cloned().unwrap_or_default();
            let is_package = self.module_is_init.contains(&file);
            let mut parts: Vec<&str> = me.split('.').collect();
            // `from . import x` in pkg/mod.py means pkg; in pkg/__init__.py also pkg.
            let drop = if is_package {
                level as usize - 1
            } else {
                level as usize
            };
            for _ in 0..drop.min(parts.len()) {
                parts.pop();
            }
            let mut base = parts.join(".");
            if !path.is_empty() {
                if !base.is_empty() {
                    base.push('.');
                }
                base.push_str(&path);
            }
            base
        };
        if let Some(&f) = self.modules.get(&full) {
            return Some(Value::Module(f));
        }
        if level == 0 {
            // A script imports its siblings by bare name (its directory is
            // on sys.path). A module of a package does not: in Python 3 a
            // bare `import json` in `service/api.py` is the standard
            // library's, even beside `service/json.py`.
            let me = self.module_name_of.get(&file).cloned().unwrap_or_default();
            if let Some((pkg, _)) = me.rsplit_once('.')
                && !self
                    .modules
                    .get(pkg)
                    .is_some_and(|f| self.module_is_init.contains(f))
            {
                let sibling = format!("{pkg}.{full}");
                if let Some(&f) = self.modules.get(&sibling) {
                    return Some(Value::Module(f));
                }
            }
        }
        if full.is_empty() {
            return None;
        }
        Some(Value::External(self.intern(&full)))
    }
}

/// Module attribute and class lookups.
impl Analysis<'_> {
    /// The value of `v.name`. A property read through an instance is what
    /// its getter returns, not the getter.
    fn attr(&mut self, v: Value, name: GSym, depth: u32) -> Vals {
        let members = self.attr_members(v, name, depth);
        if !matches!(v, Value::Instance(_) | Value::Cone(_)) || !self.property_names.contains(&name)
        {
            return members;
        }
        let mut out = Vals::new();
        for m in members {
            match m {
                Value::Bound {
                    func,
                    instance: true,
                    ..
                } if self.is_property(func) => {
                    if self.property_part(func) == Some(PropertyPart::Getter) {
                        for r in self.returns_of(func) {
                            push_unique(&mut out, r);
                        }
                    }
                }
                other => push_unique(&mut out, other),
            }
        }
        out
    }

    fn is_property(&self, func: DeclId) -> bool {
        self.py_info(func).is_some_and(|(info, _)| info.is_property)
    }

    /// Which accessor a property's function is; `None` for any other function.
    fn property_part(&self, func: DeclId) -> Option<PropertyPart> {
        self.py_info(func)
            .filter(|(info, _)| info.is_property)
            .map(|(info, _)| info.property_part)
    }

    /// The accessors of kind `part` that touching `base.name` calls, where
    /// `base` is an instance.
    fn property_accessors(
        &mut self,
        ci: usize,
        base: ExprId,
        name: GSym,
        part: PropertyPart,
    ) -> Vec<DeclId> {
        let mut out = Vec::new();
        for v in self.eval(ci, base, 1) {
            // `super().rate` in an overriding property reads the base's.
            if !matches!(v, Value::Instance(_) | Value::Cone(_) | Value::Super { .. }) {
                continue;
            }
            for m in self.attr_members(v, name, 1) {
                if let Value::Bound {
                    func,
                    instance: true,
                    ..
                } = m
                    && self.property_part(func) == Some(part)
                    && !out.contains(&func)
                {
                    out.push(func);
                }
            }
        }
        out
    }

    fn attr_members(&mut self, v: Value, name: GSym, depth: u32) -> Vals {
        if depth > 8 {
            return Vals::new();
        }
        if name == self.dunder_class && matches!(v, Value::Instance(_) | Value::Cone(_)) {
            return self.class_of(v);
        }
        match v {
            Value::Module(f) => {
                let decl = self.module_decl(f);
                let vals = self.get(Slot::Var(decl, name));
                if !vals.is_empty() {
                    return vals;
                }
                if let Some(sf) = self.submodule(f, name) {
                    return smallvec![Value::Module(sf)];
                }
                let found = if self.star_sources(f).is_empty() {
                    self.external_star_member(f, name, depth)
                } else {
                    let mut seen = Vec::new();
                    let found = self.star_lookup(f, name, &mut seen);
                    if found.is_empty() {
                        self.external_star_member(f, name, depth)
                    } else {
                        found
                    }
                };
                if found.is_empty() {
                    return self.module_getattr_fallback(f, name);
                }
                found
            }
            Value::Class(c) => self
                .class_attr(c, name)
                .into_iter()
                .map(|v| self.bind_class_member(v, c, false))
                .collect(),
            Value::Cone(c) => {
                let mut out = if depth + 1 > 8 {
                    Vals::new()
                } else {
                    self.instance_members(c, name)
                };
                let found_upward = !out.is_empty();
                // Overrides in subclasses: only classes that define `name` are candidates.
                let mut overridden = false;
                for &s in self.definers_below(c, name, false).iter() {
                    for v in self.get(Slot::Var(s, name)) {
                        if let Value::Func(f) = v
                            && self.decl_kind[f as usize] == DeclKind::Method
                        {
                            let bound = self.bind_func(f, s, true);
                            push_unique(&mut out, bound);
                            overridden = true;
                        }
                    }
                }
                // An `@abstractmethod` stub never runs through `self` once
                // subclasses provide the method (`super().m()` still reaches it).
                if overridden {
                    out.retain(|v| {
                        !matches!(v, Value::Bound { func, .. }
                            if self.py_info(*func).is_some_and(|(info, _)| info.is_abstract))
                    });
                }
                if !found_upward {
                    self.touch(Slot::InstAttr(ANY_CLASS, name));
                    for &s in self.definers_below(c, name, true).iter() {
                        self.read_into(Slot::InstAttr(s, name), &mut out);
                    }
                }
                {
                    // A mixin calling what another base of the concrete class
                    // provides: `self.template_text()` in `RenderMixin.render`,
                    // found through `class Page(RenderMixin, TextSource)`
                    // (even where another host overrides it); and a base's
                    // hook that a mixin before it overrides: `self.validate()`
                    // in `Base.save` runs `StrictMixin.validate` on a
                    // `class User(StrictMixin, Base)`.
                    for &m in self.mixin_hosts(c).iter() {
                        for v in self.class_attr(m, name) {
                            match v {
                                Value::Func(f)
                                    if self.decl_kind[f as usize] == DeclKind::Method =>
                                {
                                    let bound = self.bind_func(f, m, true);
                                    push_unique(&mut out, bound);
                                }
                                Value::External(_) => push_unique(&mut out, v),
                                _ => {}
                            }
                        }
                    }
                }
                if out.is_empty() {
                    out = self.getattr_fallback(c, name);
                }
                out
            }
            Value::Instance(c) => {
                let out = self.instance_members(c, name);
                if out.is_empty() {
                    return self.getattr_fallback(c, name);
                }
                out
            }
            Value::PyStr => self.builtin_method("str", name),
            Value::PyDict => self.builtin_method("dict", name),
            Value::Container(site)
                if self.dict_sites.contains(&site)
                    && !builtin_type_member(DICT_ALL_METHODS, &self.strings[name as usize]) =>
            {
                Vals::new()
            }
            Value::Container(site)
                if self.dict_sites.contains(&site)
                    && MODELLED_DICT_METHODS.contains(&self.strings[name as usize].as_str()) =>
            {
                smallvec![Value::DictMethod { site, name }]
            }
            Value::Container(site) if self.dict_sites.contains(&site) => {
                let full = format!("<**PyDict**>.{}", self.strings[name as usize]);
                smallvec![Value::External(self.intern(&full))]
            }
            Value::Container(site)
                if builtin_type_member(
                    self.sequence_type(site).1,
                    &self.strings[name as usize],
                ) =>
            {
                smallvec![Value::SeqMethod { site, name }]
            }
            Value::External(p) => self.external_member(p, name),
            Value::Builtin(b) => {
                let class = self.strings[b as usize].clone();
                self.builtin_class_member(&class, name)
            }
            Value::Super { class, func } => {
                // `super()` continues along the MRO of the instance's own
                // class, which for a subclass (a diamond) can be a sibling
                // of `class` rather than its base.
                let mut out = Vals::new();
                for (recv, instance) in self.super_receivers(func, class) {
                    let mro = self.mro(recv);
                    let after = mro.iter().position(|&k| k == class).map_or(1, |i| i + 1);
                    for k in mro.iter().skip(after) {
                        let vals = self.get(Slot::Var(*k, name));
                        if vals.is_empty() {
                            continue;
                        }
                        for v in vals {
                            let bound = match v {
                                Value::Func(f) => self.bind_func(f, recv, instance),
                                other => other,
                            };
                            push_unique(&mut out, bound);
                        }
                        break;
                    }
                }
                // No repository class after `class` defines it: the method
                // is the out-of-repository base's (`super().run()` in a
                // `threading.Thread` subclass is `threading.Thread.run`).
                if out.is_empty()
                    && let Some(base) = self.external_base(class)
                {
                    let full = format!(
                        "{}.{}",
                        self.strings[base as usize], self.strings[name as usize]
                    );
                    push_unique(&mut out, Value::External(self.intern(&full)));
                }
                // Nor an outside base: a builtin one's, at last `object`'s
                // (`super().__init__()` in a class with no other base).
                if out.is_empty() {
                    let base = self
                        .builtin_base(class)
                        .unwrap_or_else(|| "object".to_owned());
                    out = self.builtin_class_member(&base, name);
                }
                out
            }
            // `wrapper.original = fn` stores on the function object, and
            // `functools.wraps` sets `__wrapped__`; a bound method reads
            // its function's attributes.
            Value::Func(f) | Value::Bound { func: f, .. } => {
                let mut out = Vals::new();
                self.read_into(Slot::InstAttr(f, name), &mut out);
                out
            }
            _ => Vals::new(),
        }
    }

    /// `name` on an instance of `c`: its instance attributes, then its
    /// class's.
    fn instance_members(&mut self, c: DeclId, name: GSym) -> Vals {
        // Methods of every class in the MRO write the same instance
        // dict, so their instance attributes are one namespace.
        let mro = self.mro(c);
        let mut inst = Vals::new();
        for k in mro.iter() {
            self.read_into(Slot::InstAttr(*k, name), &mut inst);
        }
        // A dataclass field's default (`fmt: Callable = plain`) is what
        // the generated `__init__` stores where a call passes none: as a
        // value of the instance, not a method bound to it.
        if !inst.is_empty() && self.is_dataclass_field(c, name) {
            for k in mro.iter() {
                self.read_into(Slot::Var(*k, name), &mut inst);
            }
        }
        if !inst.is_empty() {
            return inst;
        }
        if matches!(self.strings[name as usize].as_str(), "value" | "_value_") && self.is_enum(c) {
            let values = self.enum_member_values(c);
            if !values.is_empty() {
                return values;
            }
        }
        let members = self.class_attr(c, name);
        let mut out = Vals::new();
        for m in members {
            let bound = self.bind_class_member(m, c, true);
            push_unique(&mut out, bound);
        }
        out
    }

    /// The `__getattr__` methods an instance of `c` has (its class's or
    /// a base's, in the repository).
    fn getattr_hooks(&mut self, c: DeclId) -> SmallVec<[DeclId; 1]> {
        if !self.class_definers.contains_key(&self.dunder_getattr) {
            return SmallVec::new();
        }
        let found = self.class_attr(c, self.dunder_getattr);
        self.functions_among(found, DeclKind::Method)
    }

    /// The functions of `kind` among `vals`.
    fn functions_among(&self, vals: Vals, kind: DeclKind) -> SmallVec<[DeclId; 1]> {
        vals.into_iter()
            .filter_map(|v| match v {
                Value::Func(f) if self.decl_kind[f as usize] == kind => Some(f),
                _ => None,
            })
            .collect()
    }

    /// Whether a lookup of `name` that found nothing may ask `__getattr__`.
    /// Dunder names never do: the interpreter looks those up on the type,
    /// and so do the implicit calls this resolver models.
    fn may_ask_getattr(&self, name: GSym) -> bool {
        !self.skip_getattr && !self.strings[name as usize].starts_with("__")
    }

    /// `name` read through `hooks`: what they return.
    fn read_through(&mut self, hooks: SmallVec<[DeclId; 1]>, name: GSym) -> Vals {
        let mut out = Vals::new();
        for f in hooks {
            self.getattr_names.insert(name);
            for v in self.ret_values(f) {
                push_unique(&mut out, v);
            }
        }
        out
    }

    /// Reading an attribute an instance of `c` does not have calls its
    /// class's `__getattr__`, and the attribute is what that returns.
    fn getattr_fallback(&mut self, c: DeclId, name: GSym) -> Vals {
        if !self.may_ask_getattr(name) {
            return Vals::new();
        }
        let hooks = self.getattr_hooks(c);
        if hooks.is_empty() {
            return Vals::new();
        }
        let has_it = self.mro(c).iter().any(|&k| {
            self.class_body_names.contains(&(k, name)) || self.self_attrs.contains(&(k, name))
        });
        // A metaclass's instances are classes, whose attributes are set in
        // ways this does not see (`cls._member_map_` in `enum`).
        if has_it || self.builtin_base(c).as_deref() == Some("type") {
            return Vals::new();
        }
        self.read_through(hooks, name)
    }

    /// The module-level `__getattr__` functions (PEP 562) of the module in
    /// file `f`.
    fn module_getattr_hooks(&mut self, f: u32) -> SmallVec<[DeclId; 1]> {
        let decl = self.module_decl(f);
        let found = self.get(Slot::Var(decl, self.dunder_getattr));
        self.functions_among(found, DeclKind::Function)
    }

    /// A name a module does not define is what its `__getattr__` returns
    /// (PEP 562: lazy imports, deprecated aliases), read by calling it.
    fn module_getattr_fallback(&mut self, f: u32, name: GSym) -> Vals {
        if !self.may_ask_getattr(name) {
            return Vals::new();
        }
        let hooks = self.module_getattr_hooks(f);
        self.read_through(hooks, name)
    }

    /// The runtime classes `self` (or `cls`) of `func` may have, which a
    /// `super()` call follows: for `self` of a method of `class`, each
    /// instantiated class among `class` and its subclasses (or `class`
    /// itself when none is known to be).
    fn super_receivers(&mut self, func: DeclId, class: DeclId) -> Vec<(DeclId, bool)> {
        let mut out: Vec<(DeclId, bool)> = Vec::new();
        let seen = |out: &mut Vec<(DeclId, bool)>, r: (DeclId, bool)| {
            if !out.contains(&r) {
                out.push(r);
            }
        };
        let mut selves = Vals::new();
        if let Some((info, ci)) = self.py_info(func)
            && let Some(first) = info.params.first()
        {
            selves = self.get(Slot::Var(func, self.gsym(ci, first.name)));
        }
        for v in selves {
            match v {
                Value::Instance(c) => seen(&mut out, (c, true)),
                Value::Class(c) => seen(&mut out, (c, false)),
                Value::Cone(c) => {
                    let runtime = self.get(Slot::InstAttr(c, RUNTIME));
                    for r in &runtime {
                        if let Value::Instance(r) = r {
                            seen(&mut out, (*r, true));
                        }
                    }
                    // None known, or too many to list: the class's own MRO too.
                    if runtime.is_empty() || runtime.len() >= MAX_SET {
                        seen(&mut out, (c, true));
                    }
                }
                _ => {}
            }
        }
        if out.is_empty() {
            out.push((class, true));
        }
        out
    }

    /// The `__call__` an instance of `c` runs when called (its class's or
    /// the first base's that defines one).
    fn call_method(&mut self, c: DeclId) -> Option<DeclId> {
        let call = self.intern("__call__");
        self.method_targets(c, call).first().copied()
    }

    /// The repository `__call__` of the metaclass a class has, declared
    /// on it or inherited from a base (`class Widget(metaclass=Meta)`).
    fn metaclass_calls(&mut self, c: DeclId) -> Vec<DeclId> {
        let call = self.intern("__call__");
        self.metaclass_methods(c, call)
    }

    /// Method `name` of the metaclass `c` is made by (its own `metaclass=`
    /// or the nearest base's), when that metaclass is a repository class.
    fn metaclass_methods(&mut self, c: DeclId, name: GSym) -> Vec<DeclId> {
        for &k in self.mro(c).iter() {
            let Some((info, kci)) = self.py_info(k) else {
                continue;
            };
            let Some(meta) = info.metaclass else {
                continue;
            };
            let mut out = Vec::new();
            for v in self.eval(kci, meta, 1) {
                if let Value::Class(m) = v {
                    out.extend(self.method_targets(m, name));
                }
            }
            return out;
        }
        Vec::new()
    }

    /// `super().__call__(…)` inside a metaclass's `__call__`: `type.__call__`,
    /// which makes an instance of each class the metaclass was called for
    /// (what its `cls` holds). None for any other call.
    fn metaclass_instantiation(&mut self, ci: usize, call: usize) -> Option<Vec<DeclId>> {
        let py = self.files[ci].py;
        let &PyExpr::Attr { base, name } = py.exprs.get(py.calls[call].callee as usize)? else {
            return None;
        };
        let &PyExpr::Super { class, func } = py.exprs.get(base as usize)? else {
            return None;
        };
        if self.files[ci].facts.sym(name) != "__call__" {
            return None;
        }
        let (class, func) = (self.gdecl(ci, class), self.gdecl(ci, func));
        if self.builtin_base(class).as_deref() != Some("type") {
            return None;
        }
        let classes = self
            .get(self.first_param_slot(func)?)
            .into_iter()
            .filter_map(|v| match v {
                Value::Class(c) => Some(c),
                _ => None,
            })
            .collect();
        Some(classes)
    }

    /// The slot of `f`'s first parameter (a method's `self` or `cls`).
    fn first_param_slot(&self, f: DeclId) -> Option<Slot> {
        let (info, fci) = self.py_info(f)?;
        let p = info.params.first()?;
        Some(Slot::Var(f, self.gsym(fci, p.name)))
    }

    /// The first parameter of `f` holds `v`.
    fn bind_first_param(&mut self, f: DeclId, v: Value) {
        if let Some(slot) = self.first_param_slot(f) {
            self.add(slot, &[v]);
        }
    }

    fn mark_instantiated(&mut self, class: DeclId) {
        for &k in self.mro(class).iter() {
            self.add(Slot::InstAttr(k, RUNTIME), &[Value::Instance(class)]);
        }
    }

    fn bind_func(&self, f: DeclId, recv: DeclId, instance: bool) -> Value {
        match self.py_info(f) {
            Some((info, _)) if info.is_staticmethod => Value::Func(f),
            Some((info, _)) if info.is_classmethod => Value::Bound {
                func: f,
                recv,
                instance: false,
            },
            _ if instance => Value::Bound {
                func: f,
                recv,
                instance: true,
            },
            _ => Value::Func(f),
        }
    }

    fn bind_class_member(&self, v: Value, class: DeclId, instance: bool) -> Value {
        match v {
            // Any function a class holds is a descriptor: a decorator's
            // `wrapper(self, x)` in place of the method, or a module
            // function assigned in the class body, binds as the method did.
            Value::Func(f)
                if matches!(
                    self.decl_kind[f as usize],
                    DeclKind::Method | DeclKind::Function | DeclKind::Lambda
                ) =>
            {
                self.bind_func(f, class, instance)
            }
            other => other,
        }
    }

    /// The names `class`'s body assigns, sorted.
    fn class_body_names_of(&mut self, class: DeclId) -> Vec<GSym> {
        let by_class = self.class_body_by_class.get_or_insert_with(|| {
            let mut by_class: HashMap<DeclId, Vec<GSym>> = HashMap::default();
            for &(class, name) in &self.class_body_names {
                by_class.entry(class).or_default().push(name);
            }
            for names in by_class.values_mut() {
                names.sort_unstable();
            }
            by_class
        });
        by_class.get(&class).cloned().unwrap_or_default()
    }

    /// Whether `name`, which `k`'s body assigns `vals`, is one of the
    /// members of an enum: `Color.RED` of `class Color(Enum): RED = 1` is
    /// a Color, not 1, and so is `ADD = partial(_add)`; a function
    /// assigned there (`helper = _helper`, a lambda) is a descriptor, which
    /// `Enum` leaves a method.
    fn is_enum_member(&mut self, k: DeclId, name: GSym, vals: &[Value]) -> bool {
        self.class_body_names.contains(&(k, name))
            && !self.strings[name as usize].starts_with('_')
            && !vals
                .iter()
                .any(|v| matches!(v, Value::Func(_) | Value::Bound { .. }))
            && self.is_enum(k)
    }

    /// `Op.POW.value`: what the member written by name was assigned, not
    /// what any member of `Op` was.
    fn named_enum_member_value(&mut self, ci: usize, member: ExprId, depth: u32) -> Option<Vals> {
        let Some(&PyExpr::Attr { base, name }) = self.files[ci].py.exprs.get(member as usize)
        else {
            return None;
        };
        let name = self.gsym(ci, name);
        let mut out = Vals::new();
        for v in self.eval(ci, base, depth + 1) {
            let Value::Class(c) = v else {
                return None;
            };
            let mro = self.mro(c);
            let vals = mro.iter().find_map(|&k| {
                let vals = self.get(Slot::Var(k, name));
                self.is_enum_member(k, name, &vals).then_some(vals)
            })?;
            for v in vals {
                push_unique(&mut out, v);
            }
        }
        (!out.is_empty()).then_some(out)
    }

    /// What the members of enum `c` were assigned: their `.value`.
    fn enum_member_values(&mut self, c: DeclId) -> Vals {
        let mut out = Vals::new();
        for &k in self.mro(c).iter() {
            for name in self.class_body_names_of(k) {
                let vals = self.get(Slot::Var(k, name));
                if self.is_enum_member(k, name, &vals) {
                    for v in vals {
                        push_unique(&mut out, v);
                    }
                }
            }
        }
        out
    }

    /// Class attribute `name` through the MRO (first class that defines it).
    fn class_attr(&mut self, c: DeclId, name: GSym) -> Vals {
        for &k in self.mro(c).iter() {
            let vals = self.get(Slot::Var(k, name));
            if self.is_enum_member(k, name, &vals) {
                return smallvec![Value::Instance(k)];
            }
            if !vals.is_empty() {
                return vals;
            }
        }
        // Not defined in the repository: inherited from an external base, if any.
        match self.external_base(c) {
            Some(p) => self.external_member(p, name),
            None => self.builtin_base_member(c, name),
        }
    }

    /// A method a repository class inherits from a builtin base
    /// (`class TokenList(list)`: `tokens.append` is `<**PyList**>.append`,
    /// named as on a literal; `class Code(int)`: `<builtin>.int.bit_length`).
    fn builtin_base_member(&mut self, c: DeclId, name: GSym) -> Vals {
        match self.builtin_base(c) {
            Some(base) => self.builtin_class_member(&base, name),
            None => Vals::new(),
        }
    }

    /// The first builtin class among the bases along `c`'s MRO.
    fn builtin_base(&mut self, c: DeclId) -> Option<String> {
        for &k in self.mro(c).iter() {
            let Some((info, ci)) = self.py_info(k) else {
                continue;
            };
            for &b in &info.bases {
                for v in self.eval(ci, b, 0) {
                    if let Value::Builtin(b) = v
                        && is_builtin_class(&self.strings[b as usize])
                    {
                        return Some(self.strings[b as usize].clone());
                    }
                }
            }
        }
        None
    }

    /// Member `name` of the builtin class `class` (`object.__new__`,
    /// `int.__new__`, `str.join`): a leaf named `<builtin>.int.__new__`, or
    /// as PyCG names a literal's methods for `str`, `dict`, `list`, `set`
    /// and `tuple`. Of the other classes only special methods count (and of
    /// `object` only its own), so a name a subclass lacks is never made up
    /// as `<builtin>.int.frob`.
    fn builtin_class_member(&mut self, class: &str, name: GSym) -> Vals {
        if builtin_type(class).is_some() {
            return self.builtin_method(class, name);
        }
        let attr = self.strings[name as usize].as_str();
        let known = match class {
            "object" => OBJECT_METHODS.contains(&attr),
            _ => {
                is_builtin_class(class)
                    && attr.starts_with("__")
                    && attr.ends_with("__")
                    && !INTROSPECTION_ATTRS.contains(&attr)
            }
        };
        if !known {
            return Vals::new();
        }
        let full = format!("<builtin>.{class}.{attr}");
        smallvec![Value::External(self.intern(&full))]
    }

    /// Method `name` of the builtin type `ty` (`str`, `dict`, `list`, …) as
    /// PyCG names it (`<**PyStr**>.lower`); nothing when the type has no
    /// such member (a value the analysis confused with one).
    fn builtin_method(&mut self, ty: &str, name: GSym) -> Vals {
        let Some((pycg, methods)) = builtin_type(ty) else {
            return Vals::new();
        };
        let attr = &self.strings[name as usize];
        if !builtin_type_member(methods, attr) {
            return Vals::new();
        }
        let full = format!("{pycg}.{attr}");
        smallvec![Value::External(self.intern(&full))]
    }

    /// Whether the out-of-repo name `p` is a class, by convention: its last
    /// segment is capitalised (`requests.Session`, `typing.Dict`).
    fn external_is_class(&self, p: GSym) -> bool {
        let path = &self.strings[p as usize];
        path.rsplit('.')
            .next()
            .is_some_and(|last| last.starts_with(|c: char| c.is_ascii_uppercase()))
    }

    /// Attribute `name` of the out-of-repo value `p`, named by its path.
    /// Introspection (`x.__class__`, `f.__self__`) names no out-of-repo
    /// declaration: chains through it only made up callees like
    /// `_weakref.ref.__self__.lower`.
    fn external_member(&mut self, p: GSym, name: GSym) -> Vals {
        let attr = self.strings[name as usize].as_str();
        if INTROSPECTION_ATTRS.contains(&attr) {
            return Vals::new();
        }
        let full = format!("{}.{attr}", self.strings[p as usize]);
        if self.strings[p as usize] == "argparse.Namespace" {
            let mut out = Vals::new();
            self.read_into(Slot::InstAttr(ARGPARSE_DEFAULTS, name), &mut out);
            if !out.is_empty() {
                return out;
            }
        }
        // A namespace package (a directory without `__init__.py`) is no
        // module of the repository, but its modules are: `jobs.factory`
        // of `from jobs import factory`.
        if let Some(&f) = self.modules.get(&full) {
            return smallvec![Value::Module(f)];
        }
        smallvec![Value::External(self.intern(&full))]
    }

    fn bases(&mut self, c: DeclId) -> Vec<DeclId> {
        let Some((info, ci)) = self.py_info(c) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for &b in &info.bases {
            for v in self.eval(ci, b, 0) {
                if let Value::Class(k) = v
                    && k != c
                    && !out.contains(&k)
                {
                    out.push(k);
                    break;
                }
            }
        }
        out
    }

    /// The classes below `c` (subclasses, not `c`) that define `name`: as
    /// class attributes, or as instance attributes when `instance`. In the
    /// order they were found defining it. A popular name on a big
    /// hierarchy (`_eval_is_positive` on sympy's `Basic`) has thousands of
    /// definers, and every lookup on `self` in the base class walked them
    /// all; the definer lists only grow, so each (class, name) filters
    /// only the definers added since it last looked.
    fn definers_below(&mut self, c: DeclId, name: GSym, instance: bool) -> std::rc::Rc<[DeclId]> {
        self.touch_hierarchy();
        let all = if instance {
            &self.inst_definers
        } else {
            &self.class_definers
        };
        let total = all.get(&name).map_or(0, |v| v.len());
        let key = (c, name, instance);
        let (done, mut found) = match self.definers_below.get(&key) {
            Some((done, found)) if *done == total => return std::rc::Rc::clone(found),
            Some((done, found)) => (*done, found.to_vec()),
            None => (0, Vec::new()),
        };
        let fresh: Vec<DeclId> = all
            .get(&name)
            .map(|v| v[done..].to_vec())
            .unwrap_or_default();
        for s in fresh {
            if s != c && self.mro(s).contains(&c) {
                found.push(s);
            }
        }
        let found: std::rc::Rc<[DeclId]> = found.into();
        self.definers_below
            .insert(key, (total, std::rc::Rc::clone(&found)));
        found
    }

    /// C3 linearization (Python's MRO); falls back to depth-first order for
    /// hierarchies C3 rejects, since a call graph must not give up.
    fn mro(&mut self, c: DeclId) -> std::rc::Rc<[DeclId]> {
        if let Some(m) = self.mro_cache.get(&c) {
            self.touch_hierarchy();
            return std::rc::Rc::clone(m);
        }
        self.touch_hierarchy();
        self.mro_cache.insert(c, std::rc::Rc::from([c]));
        let bases = self.class_bases.get(&c).cloned().unwrap_or_default();
        let mut seqs: Vec<Vec<DeclId>> = bases.iter().map(|&b| self.mro(b).to_vec()).collect();
        seqs.push(bases.clone());
        let mut result = vec![c];
        loop {
            seqs.retain(|s| !s.is_empty());
            if seqs.is_empty() {
                break;
            }
            let candidate = seqs
                .iter()
                .map(|s| s[0])
                .find(|&h| !seqs.iter().any(|s| s[1..].contains(&h)));
            match candidate {
                Some(h) => {
                    result.push(h);
                    for s in &mut seqs {
                        if s[0] == h {
                            s.remove(0);
                        }
                    }
                }
                None => {
                    for s in &seqs {
                        for &k in s {
                            if !result.contains(&k) {
                                result.push(k);
                            }
                        }
                    }
                    break;
                }
            }
        }
        let result: std::rc::Rc<[DeclId]> = result.into();
        self.mro_cache.insert(c, std::rc::Rc::clone(&result));
        result
    }
}

/// Calls: what a call returns, how arguments bind to parameters, and which
/// declarations a call site reaches.
impl Analysis<'_> {
    fn callee_values(&mut self, ci: usize, call: usize) -> Vals {
        let py = self.files[ci].py;
        let callee = py.calls[call].callee;
        self.eval(ci, callee, 1)
    }

    fn call_result(&mut self, ci: usize, call: usize, depth: u32) -> Vals {
        if depth > MAX_DEPTH {
            return Vals::new();
        }
        let kind = self.files[ci].py.calls[call].kind;
        let mut out = Vals::new();
        // An operator's receiver is evaluated by `operator_methods` alone:
        // evaluating it here too doubled the work at every level of a
        // chain such as `b"PK" + a + b + …`, which grows as 2^length (one
        // 40-term concatenation in the stdlib's tests took 1.2 s).
        if let PyCallKind::Operator { method, reflected } = kind {
            for (m, _) in self.operator_methods(ci, call, method, reflected) {
                for r in self.returns_of(m) {
                    push_unique(&mut out, r);
                }
            }
            return out;
        }
        if let Some(classes) = self.metaclass_instantiation(ci, call) {
            for c in classes {
                self.mark_instantiated(c);
                push_unique(&mut out, Value::Instance(c));
            }
            return out;
        }
        let callees = self.callee_values(ci, call);
        if kind == PyCallKind::With {
            for v in callees {
                match v {
                    Value::Instance(c) | Value::Cone(c) => {
                        let (enter, _) = self.protocol(c, WITH_PROTOCOL);
                        for m in self.method_targets(c, enter) {
                            for r in self.returns_of(m) {
                                push_unique(&mut out, r);
                            }
                        }
                    }
                    // `with ThreadPoolExecutor() as ex`: an out-of-repository
                    // class's `__enter__` is taken to return the instance, as
                    // nearly every one does.
                    Value::External(p) if self.external_is_class(p) => {
                        push_unique(&mut out, Value::External(p));
                    }
                    // `with transaction(db) as tx` of a `@contextmanager`
                    // generator: what it yields.
                    Value::Generator(g) => self.read_into(Slot::Yield(g), &mut out),
                    _ => {}
                }
            }
            return out;
        }
        for v in callees {
            match v {
                Value::Func(f) | Value::Bound { func: f, .. } => {
                    let shift = usize::from(matches!(v, Value::Bound { .. }));
                    for r in self.returns_at(ci, call, f, shift) {
                        push_unique(&mut out, r);
                    }
                }
                Value::Class(c) => {
                    self.mark_instantiated(c);
                    push_unique(&mut out, Value::Instance(c));
                }
                Value::Instance(c) | Value::Cone(c) => {
                    let call_sym = self.intern("__call__");
                    for m in self.method_targets(c, call_sym) {
                        for r in self.returns_of(m) {
                            push_unique(&mut out, r);
                        }
                    }
                }
                Value::Partial { func, shift } => {
                    for r in self.returns_at(ci, call, func, shift as usize) {
                        push_unique(&mut out, r);
                    }
                }
                Value::External(p) if self.strings[p as usize] == "functools.partial" => {
                    for v in self.partial_values(ci, call) {
                        push_unique(&mut out, v);
                    }
                }
                // `heapq.heappop(q)` gives one of q's elements.
                Value::External(p) if HEAP_POPS.contains(&self.strings[p as usize].as_str()) => {
                    if let Some(&heap) = self.files[ci].py.calls[call].args.first() {
                        for h in self.eval(ci, heap, 1) {
                            if let Value::Container(site) = h {
                                for e in self.elements(site, None) {
                                    push_unique(&mut out, e);
                                }
                            }
                        }
                    }
                }
                // `stack.enter_context(cm)` enters cm: what its `__enter__` returns.
                Value::External(p) if self.strings[p as usize] == EXITSTACK_ENTER => {
                    for (m, enter) in self.entered_contexts(ci, call) {
                        if enter {
                            for r in self.returns_of(m) {
                                push_unique(&mut out, r);
                            }
                        }
                    }
                }
                // `lines: list = field(default_factory=list)`: what the
                // factory makes is the field's default.
                Value::External(p) if self.strings[p as usize] == "dataclasses.field" => {
                    let c = &self.files[ci].py.calls[call];
                    let facts = self.files[ci].facts;
                    if let Some(&(_, factory)) = c
                        .kwargs
                        .iter()
                        .find(|(k, _)| facts.sym(*k) == "default_factory")
                    {
                        for v in self.factory_values(ci, factory) {
                            push_unique(&mut out, v);
                        }
                    }
                }
                Value::External(p) if self.strings[p as usize] == "operator.methodcaller" => {
                    if let Some(name) = self.files[ci].py.calls[call].key {
                        let name = self.gsym(ci, name);
                        push_unique(&mut out, Value::MethodCaller(name));
                    }
                }
                Value::MethodCaller(name) => {
                    for (m, shift) in self.called_methods(ci, call, name, 0, false) {
                        for r in self.returns_at(ci, call, m, shift) {
                            push_unique(&mut out, r);
                        }
                    }
                }
                // `copy.copy(obj)` is another object of obj's class.
                Value::External(p)
                    if matches!(
                        self.strings[p as usize].as_str(),
                        "copy.copy" | "copy.deepcopy"
                    ) =>
                {
                    if let Some(&a) = self.files[ci].py.calls[call].args.first() {
                        for v in self.eval(ci, a, 1) {
                            if matches!(v, Value::Instance(_) | Value::Cone(_)) {
                                push_unique(&mut out, v);
                            }
                        }
                    }
                }
                // `super().__new__(cls)` and `object.__new__(cls)` in a
                // `__new__` make an instance of `cls` (the singleton and
                // flyweight idioms).
                Value::External(p) if self.strings[p as usize] == "<builtin>.object.__new__" => {
                    if let Some(&a) = self.files[ci].py.calls[call].args.first() {
                        for v in self.eval(ci, a, 1) {
                            match v {
                                Value::Class(c) | Value::Instance(c) => {
                                    push_unique(&mut out, Value::Instance(c));
                                }
                                // `cls` of a `__new__` stands for its class
                                // and subclasses (a cone): only a class no
                                // other subclasses is taken as made here
                                // (instances of a numeric tower's classes
                                // made this way spread through everything).
                                Value::Cone(c)
                                    if !self.class_bases.values().any(|bs| bs.contains(&c)) =>
                                {
                                    push_unique(&mut out, Value::Instance(c));
                                }
                                _ => {}
                            }
                        }
                    }
                }
                Value::External(p) if self.strings[p as usize] == "collections.defaultdict" => {
                    push_unique(&mut out, self.defaultdict(ci, call));
                }
                // `importlib.import_module("handlers.csv_handler")` with a
                // literal, absolute name is that module.
                Value::External(p) if self.strings[p as usize] == "importlib.import_module" => {
                    let facts = self.files[ci].facts;
                    if let Some(k) = self.files[ci].py.calls[call].key
                        && let Some(&f) = self.modules.get(facts.sym(k))
                    {
                        push_unique(&mut out, Value::Module(f));
                    }
                }
                Value::External(p) => {
                    // `requests.Session()` is an instance of an external class
                    // (PyCG names its methods `requests.Session.get`); the result
                    // of an external *function* is unknown, and letting it flow
                    // only spreads noise. Classes are told apart by convention.
                    let name = self.strings[p as usize].as_str();
                    if name.starts_with("<**PyStr**>.") {
                        // String methods return strings (near enough for their methods).
                        push_unique(&mut out, Value::PyStr);
                    } else if let Some(&(_, class)) =
                        LIBRARY_FACTORIES.iter().find(|(f, _)| *f == name)
                    {
                        let class = self.intern(class);
                        push_unique(&mut out, Value::External(class));
                    } else if self.external_is_class(p) {
                        push_unique(&mut out, Value::External(p));
                    }
                }
                Value::Builtin(_) => {
                    for r in self.builtin_result(ci, call, v) {
                        push_unique(&mut out, r);
                    }
                }
                Value::DictMethod { site, name } => {
                    for r in self.dict_method_result(ci, call, site, name) {
                        push_unique(&mut out, r);
                    }
                }
                Value::SeqMethod { site, name } => match self.strings[name as usize].as_str() {
                    "copy" => push_unique(&mut out, Value::Container(site)),
                    "pop" => {
                        for r in self.elements(site, None) {
                            if self.worth_collecting(r) {
                                push_unique(&mut out, r);
                            }
                        }
                    }
                    _ => {}
                },
                _ => {}
            }
        }
        out
    }

    /// `d.values()`, `d.items()`, `d.get(k, default)`, `d.pop(k)`,
    /// `d.setdefault(k, v)` of a dict the analysis tracks.
    fn dict_method_result(&mut self, ci: usize, call: usize, site: u32, name: GSym) -> Vals {
        match self.strings[name as usize].as_str() {
            "values" | "copy" => smallvec![Value::Container(site)],
            "items" => smallvec![Value::Items(site)],
            "update" => Vals::new(),
            _ => {
                // `d.get("k")` reads key "k" (or, if no literal key "k" was
                // ever stored, any value), like `d["k"]`.
                let key = self.files[ci].py.calls[call].key.map(|k| self.gsym(ci, k));
                let mut out = self.elements(site, key);
                let default = self.files[ci].py.calls[call].args.get(1).copied();
                if let Some(d) = default {
                    for v in self.eval(ci, d, 1) {
                        push_unique(&mut out, v);
                    }
                }
                out
            }
        }
    }

    /// Builtins that hand back what they were given.
    /// The classes with several bases whose MRO contains `c`: where a
    /// mixin `c` meets the classes that provide what it calls on `self`.
    fn mixin_hosts(&mut self, c: DeclId) -> std::rc::Rc<[DeclId]> {
        self.touch_hierarchy();
        if let Some(hosts) = self.mixin_hosts.get(&c) {
            return hosts.clone();
        }
        let mut hosts = Vec::new();
        for m in self.multi_base.clone() {
            if m != c && self.mro(m).contains(&c) {
                hosts.push(m);
            }
        }
        let hosts: std::rc::Rc<[DeclId]> = hosts.into();
        self.mixin_hosts.insert(c, hosts.clone());
        hosts
    }

    /// The class of an instance, as `self.__class__` or `type(self)` give
    /// it: for `self` (a cone), the class and every subclass with an
    /// `__init__` of its own, since calling the result constructs whichever
    /// class the instance really has.
    fn class_of(&mut self, v: Value) -> Vals {
        match v {
            Value::Instance(c) => smallvec![Value::Class(c)],
            Value::Cone(c) => {
                let mut out: Vals = smallvec![Value::Class(c)];
                for &s in self.definers_below(c, self.dunder_init, false).iter() {
                    push_unique(&mut out, Value::Class(s));
                }
                // `type(self).m()` in a base: any instantiated subclass,
                // whose override of m it may reach.
                for v in self.get(Slot::InstAttr(c, RUNTIME)) {
                    if let Value::Instance(s) = v {
                        push_unique(&mut out, Value::Class(s));
                    }
                }
                out
            }
            _ => Vals::new(),
        }
    }

    fn builtin_result(&mut self, ci: usize, call: usize, v: Value) -> Vals {
        let Value::Builtin(b) = v else {
            return Vals::new();
        };
        let name = self.strings[b as usize].clone();
        let py = self.files[ci].py;
        let args = py.calls[call].args.clone();
        match name.as_str() {
            // `property(get_x, set_x)` in a class body: the accessors, which
            // reading or assigning the attribute through an instance calls.
            "property" => {
                let mut out = Vals::new();
                let accessors = args
                    .iter()
                    .chain(py.calls[call].kwargs.iter().map(|(_, e)| e));
                for &a in accessors {
                    for v in self.eval(ci, a, 1) {
                        if matches!(v, Value::Func(f) if self.is_property(f)) {
                            push_unique(&mut out, v);
                        }
                    }
                }
                out
            }
            // `getattr(obj, "name")` reads `obj.name` (or the default).
            "getattr" => {
                let mut out = Vals::new();
                if let (Some(key), Some(&obj)) = (py.calls[call].key, args.first()) {
                    // `getattr(self, "visit_" + kind)` may read any method
                    // with that prefix (a visitor's or a command shell's).
                    let written = self.files[ci].facts.sym(key);
                    let prefixed = written.ends_with('*');
                    let attrs: Vec<GSym> = match written.strip_suffix('*') {
                        Some(prefix) if !prefix.is_empty() => self.prefixed_methods(prefix),
                        // `for m in ("x", "y"): getattr(obj, m)`, written `x|y`.
                        _ if written.contains('|') => {
                            // Copied out: interning borrows the analysis.
                            let names: Vec<String> =
                                written.split('|').map(str::to_owned).collect();
                            names.iter().map(|n| self.intern(n)).collect()
                        }
                        _ => vec![self.gsym(ci, key)],
                    };
                    for v in self.eval(ci, obj, 1) {
                        for &attr in &attrs {
                            // Of the prefixed names, only those a class of
                            // the receiver's hierarchy defines.
                            if prefixed && !self.in_hierarchy_of(v, attr) {
                                continue;
                            }
                            for r in self.attr(v, attr, 1) {
                                push_unique(&mut out, r);
                            }
                        }
                    }
                    if let Some(&default) = args.get(2) {
                        for r in self.eval(ci, default, 1) {
                            push_unique(&mut out, r);
                        }
                    }
                }
                out
            }
            // `handler = staticmethod(f)` in a class body: `f` itself, called
            // through the class or an instance without a receiver.
            // (`classmethod(f)` would bind the class, which a module-level
            // function's values cannot say, so it stays unknown.)
            "staticmethod" => match args.first() {
                Some(&f) => self.eval(ci, f, 1),
                None => Vals::new(),
            },
            // `set()`, `[]`'s twin `list()`, `dict()`: a new, empty container,
            // which `add`, `append` or `d[k] = v` may fill. It is numbered
            // by the site of the call's callee, an expression of its own.
            // `dict(k=v)` and `dict(other)` too, filled by `bind_call`.
            "list" | "set" | "dict"
                if name == "dict" || (args.is_empty() && py.calls[call].kwargs.is_empty()) =>
            {
                let site = self.site(ci, py.calls[call].callee);
                if name == "set" {
                    self.set_sites.insert(site);
                } else if name == "dict" {
                    self.dict_sites.insert(site);
                }
                smallvec![Value::Container(site)]
            }
            // `iter(obj)` is what obj's `__iter__` returns (an iterator
            // object of another class, whose `__next__` a `next()` calls).
            "iter" if args.len() == 1 => {
                let mut out = Vals::new();
                let iter = self.intern("__iter__");
                for v in self.eval(ci, args[0], 1) {
                    let methods = match v {
                        Value::Instance(c) | Value::Cone(c) => self.method_targets(c, iter),
                        _ => Vec::new(),
                    };
                    if methods.is_empty() {
                        push_unique(&mut out, v);
                    }
                    for m in methods {
                        for r in self.returns_of(m) {
                            push_unique(&mut out, r);
                        }
                    }
                }
                out
            }
            "iter" | "reversed" | "sorted" | "list" | "tuple" | "set" | "frozenset" => {
                let mut out = Vals::new();
                if let Some(&a) = args.first() {
                    out = self.eval(ci, a, 1);
                }
                out
            }
            // `max(items)` is one of the items, `min(a, b)` one of a and b.
            "min" | "max" => self.compared_items(ci, &args),
            // `str(x).lower()` is a string's method, as on a literal.
            "str" | "repr" | "ascii" | "format" | "chr" | "hex" | "oct" | "bin" | "input" => {
                smallvec![Value::PyStr]
            }
            // Their tuples are read by position when unpacked
            // (`for f, x in zip(funcs, xs)`, `for i, f in enumerate(funcs)`).
            "zip" | "enumerate" => {
                let site = self.site(ci, py.calls[call].callee);
                self.zip_calls.insert(site, (ci, call, name == "enumerate"));
                smallvec![Value::Zipped(site)]
            }
            // `filter(pred, xs)` yields elements of `xs`.
            "filter" => match args.get(1) {
                Some(&a) => self.eval(ci, a, 1),
                None => Vals::new(),
            },
            // Any function argument, not only the first: PyCG's own case
            // passes the iterable first.
            "map" => {
                let mut out = Vals::new();
                for a in args {
                    for v in self.eval(ci, a, 1) {
                        match v {
                            Value::Func(f) | Value::Bound { func: f, .. } => {
                                push_unique(&mut out, Value::Mapped(f));
                            }
                            _ => {}
                        }
                    }
                }
                out
            }
            "next" => {
                let mut out = Vals::new();
                if let Some(&a) = args.first() {
                    for v in self.eval(ci, a, 1) {
                        for r in self.iterate(v) {
                            push_unique(&mut out, r);
                        }
                    }
                }
                out
            }
            // `type(self)(…)` builds another instance of the same class.
            "type" if args.len() == 1 => {
                let mut out = Vals::new();
                for v in self.eval(ci, args[0], 1) {
                    for c in self.class_of(v) {
                        push_unique(&mut out, c);
                    }
                }
                out
            }
            _ => Vals::new(),
        }
    }

    /// The special methods a `for` or `with` calls on an instance of `c`:
    /// the synchronous pair, or the asynchronous one (`async for`, `async
    /// with`) when the class has no synchronous first method. The facts do
    /// not say whether the statement was `async`; a class defining only
    /// `__aenter__` can only be used by one that is.
    fn protocol(&mut self, c: DeclId, (sync, asynchronous): Protocol) -> (GSym, GSym) {
        let first = self.intern(sync.0);
        if !self.method_targets(c, first).is_empty() {
            return (first, self.intern(sync.1));
        }
        let first = self.intern(asynchronous.0);
        if self.method_targets(c, first).is_empty() {
            return (self.intern(sync.0), self.intern(sync.1));
        }
        (first, self.intern(asynchronous.1))
    }

    /// The functions a higher-order builtin (`map`, `filter`, `sorted`,
    /// `reduce`, …) is given, each as a target it calls on the elements of
    /// its other arguments.
    fn push_applied(&mut self, ci: usize, call: usize, b: GSym, out: &mut Vec<Target>) {
        let c = &self.files[ci].py.calls[call];
        // `sorted`, `min` and `max` call only their `key=`;
        // what else they are given is data (`max(f, g, key=…)`).
        let data_args = matches!(self.strings[b as usize].as_str(), "sorted" | "min" | "max");
        // `reduce(f, items, initial)` calls f alone: the initial value is data.
        let first_only = self.strings[b as usize] == "reduce";
        let facts = self.files[ci].facts;
        let args: Vec<(usize, ExprId)> = c
            .args
            .iter()
            .copied()
            .chain(c.kwargs.iter().map(|(_, e)| *e))
            .enumerate()
            .filter(|&(i, _)| {
                if first_only {
                    return i == 0;
                }
                !data_args
                    || c.kwargs
                        .get(i.wrapping_sub(c.args.len()))
                        .is_some_and(|&(k, _)| facts.sym(k) == "key")
            })
            .collect();
        for (arg, a) in args {
            for v in self.eval(ci, a, 1) {
                let called: SmallVec<[(DeclId, usize); 2]> = match v {
                    Value::Func(f) => smallvec![(f, 0)],
                    Value::Bound { func, .. } => smallvec![(func, 1)],
                    // `map(methodcaller("badge"), staff)`: each element's
                    // method, with the element as its `self`.
                    Value::MethodCaller(name) => {
                        let data = c.args.iter().position(|&e| e != a).unwrap_or(0);
                        self.called_methods(ci, call, name, data, true)
                            .into_iter()
                            .collect()
                    }
                    // `map(self, rows)` calls the instance: its `__call__`.
                    Value::Instance(k) | Value::Cone(k) => {
                        self.call_method(k).map(|f| (f, 1)).into_iter().collect()
                    }
                    _ => continue,
                };
                for (decl, shift) in called {
                    out.push(Target::Applied {
                        decl,
                        shift,
                        builtin: b,
                        arg: arg as u32,
                    });
                }
            }
        }
    }

    /// The `__enter__` and `__exit__` methods of the context managers
    /// `stack.enter_context(cm)` is handed, each with whether it is the
    /// `__enter__`.
    fn entered_contexts(&mut self, ci: usize, call: usize) -> Vec<(DeclId, bool)> {
        let Some(&cm) = self.files[ci].py.calls[call].args.first() else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for v in self.eval(ci, cm, 1) {
            if let Value::Instance(c) | Value::Cone(c) = v {
                let (enter, exit) = self.protocol(c, WITH_PROTOCOL);
                for m in self.method_targets(c, enter) {
                    out.push((m, true));
                }
                for m in self.method_targets(c, exit) {
                    out.push((m, false));
                }
            }
        }
        out
    }

    /// The methods `name` of the objects argument `position` of the call
    /// holds (or of its `elements`, for a builtin that iterates it), each
    /// with the object as its first argument: what a
    /// [`Value::MethodCaller`] calls.
    fn called_methods(
        &mut self,
        ci: usize,
        call: usize,
        name: GSym,
        position: usize,
        elements: bool,
    ) -> Vec<(DeclId, usize)> {
        let Some(&arg) = self.files[ci].py.calls[call].args.get(position) else {
            return Vec::new();
        };
        let mut objects = Vals::new();
        for v in self.eval(ci, arg, 1) {
            if elements {
                for x in self.iterate(v) {
                    push_unique(&mut objects, x);
                }
            } else {
                push_unique(&mut objects, v);
            }
        }
        let mut out = Vec::new();
        for o in objects {
            for m in self.attr(o, name, 0) {
                if let Value::Bound { func, .. } = m
                    && !out.contains(&(func, 0))
                {
                    out.push((func, 0));
                }
            }
        }
        out
    }

    /// The functions a standard-library callable is handed and runs:
    /// `Thread(target=job)`, `executor.submit(job, x)`,
    /// `functools.cmp_to_key(compare)`, `itertools.starmap(add, pairs)`.
    fn push_library_callbacks(&mut self, ci: usize, call: usize, p: GSym, out: &mut Vec<Target>) {
        let name = self.strings[p as usize].as_str();
        let c = &self.files[ci].py.calls[call];
        let facts = self.files[ci].facts;
        // (argument, whether the library also calls the instance it makes
        // of a class handed there).
        let mut handed: SmallVec<[(ExprId, bool); 2]> = SmallVec::new();
        // A callable may take several (`json.loads(s, object_hook=…,
        // parse_float=…)`): one entry each.
        for &(_, position, keyword) in LIBRARY_CALLBACKS.iter().filter(|(n, _, _)| {
            name == *n || (n.starts_with('.') && name.ends_with(n) && name.contains("concurrent"))
        }) {
            if let Some(&a) = position.and_then(|i| c.args.get(i)) {
                handed.push((a, false));
            }
            if let Some((_, e)) = c
                .kwargs
                .iter()
                .find(|(k, _)| !keyword.is_empty() && facts.sym(*k) == keyword)
            {
                handed.push((*e, false));
            }
        }
        // `parser.add_argument("--n", type=positive, action=Collect)`, on a
        // parser, a group or a subcommand's parser: parsing converts each
        // value with `type` and makes an `action` instance, which it calls
        // with the value. Both run in `parse_args`, but which parser parses
        // is not tracked: the call that hands them over stands for it.
        if name.starts_with("argparse.") && name.ends_with(".add_argument") {
            for &(k, e) in c.kwargs.iter() {
                match facts.sym(k) {
                    "type" => handed.push((e, false)),
                    "action" => handed.push((e, true)),
                    _ => {}
                }
            }
        }
        for (a, calls_instance) in handed {
            for v in self.eval(ci, a, 1) {
                match v {
                    Value::Func(f)
                    | Value::Bound { func: f, .. }
                    | Value::Partial { func: f, .. } => out.push(Target::Implicit(f)),
                    // `type=Celsius` makes an instance of the class handed.
                    Value::Class(k) => {
                        let init = self.intern("__init__");
                        if let Some(&f) = self.method_targets(k, init).first() {
                            out.push(Target::Implicit(f));
                        }
                        if calls_instance && let Some(f) = self.call_method(k) {
                            out.push(Target::Implicit(f));
                        }
                    }
                    // `executor.map(Task(), xs)`: the instance's `__call__`.
                    Value::Instance(k) | Value::Cone(k) => {
                        if let Some(f) = self.call_method(k) {
                            out.push(Target::Implicit(f));
                        }
                    }
                    // `heapq.nlargest(1, ps, key=methodcaller("average"))`:
                    // the method of the elements it is handed with it.
                    Value::MethodCaller(name) => {
                        let data: Vec<usize> =
                            (0..c.args.len()).filter(|&i| c.args[i] != a).collect();
                        for i in data {
                            for (m, _) in self.called_methods(ci, call, name, i, true) {
                                out.push(Target::Implicit(m));
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    /// A dict or set hashes the key a call hands it (`d.get(k)`,
    /// `s.add(k)`, `d[k] = v`) and compares it with an equal-hashed key
    /// already there: the key's `__hash__` and `__eq__`.
    fn push_key_hashing(&mut self, ci: usize, call: usize, out: &mut Vec<Target>) {
        for (m, _) in self.key_hashing(ci, call) {
            push_implied(out, m);
        }
    }

    fn key_hashing(&mut self, ci: usize, call: usize) -> Vec<(DeclId, usize)> {
        let hooks = ["__hash__", "__eq__"].map(|h| self.intern(h));
        if !hooks.iter().any(|h| self.class_definers.contains_key(h)) {
            return Vec::new();
        }
        let py = self.files[ci].py;
        let Some(&key) = py.calls[call].args.first() else {
            return Vec::new();
        };
        if matches!(py.exprs.get(key as usize), Some(PyExpr::Free { .. })) {
            return Vec::new();
        }
        let mut out = Vec::new();
        for v in self.eval(ci, key, 1) {
            if let Value::Instance(c) | Value::Cone(c) = v {
                for h in hooks {
                    for m in self.method_targets(c, h) {
                        if !out.contains(&(m, NO_BIND)) {
                            out.push((m, NO_BIND));
                        }
                    }
                }
            }
        }
        out
    }

    /// A method an out-of-repository base defines that calls methods its
    /// subclasses override: `worker.start()` on a `threading.Thread`
    /// subclass runs the subclass's `run`, `parser.feed(…)` on an
    /// `HTMLParser` its `handle_starttag`.
    fn push_overridden_hooks(&mut self, ci: usize, call: usize, p: GSym, out: &mut Vec<Target>) {
        let name = self.strings[p as usize].as_str();
        let Some(&(_, hooks)) = OVERRIDDEN_HOOKS.iter().find(|(n, _)| *n == name) else {
            return;
        };
        let py = self.files[ci].py;
        let Some(&PyExpr::Attr { base, .. }) = py.exprs.get(py.calls[call].callee as usize) else {
            return;
        };
        let hooks: Vec<GSym> = hooks.iter().map(|h| self.intern(h)).collect();
        for v in self.eval(ci, base, 1) {
            if let Value::Instance(c) | Value::Cone(c) = v {
                for &h in &hooks {
                    for m in self.method_targets(c, h) {
                        push_implied(out, m);
                    }
                }
            }
        }
    }

    /// The declarations a call site reaches, with the receiver binding for each.
    fn call_targets(&mut self, ci: usize, call: usize) -> Vec<Target> {
        let kind = self.files[ci].py.calls[call].kind;
        let callees = self.callee_values(ci, call);
        let truncated = is_full(&callees);
        let mut out = Vec::new();
        match kind {
            PyCallKind::Iter => {
                self.push_iteration(&callees, 1, &mut out);
                return out;
            }
            PyCallKind::With => {
                for v in callees {
                    if let Value::Instance(c) | Value::Cone(c) = v {
                        let (enter, exit) = self.protocol(c, WITH_PROTOCOL);
                        for m in self.method_targets(c, enter) {
                            out.push(Target::Decl { decl: m, shift: 1 });
                        }
                        for m in self.method_targets(c, exit) {
                            out.push(Target::Decl { decl: m, shift: 1 });
                        }
                    }
                }
                return out;
            }
            PyCallKind::Raise => {
                let init = self.intern("__init__");
                for v in callees {
                    if let Value::Class(c) = v {
                        if let Some(&f) = self.method_targets(c, init).first() {
                            out.push(Target::Decl { decl: f, shift: 1 });
                        } else if let Some(p) = self.external_base(c) {
                            out.push(Target::External(format!(
                                "{}.__init__",
                                self.strings[p as usize]
                            )));
                        }
                    }
                }
                return out;
            }
            PyCallKind::Operator { method, reflected } => {
                for (decl, shift) in self.operator_methods(ci, call, method, reflected) {
                    out.push(Target::Decl { decl, shift });
                }
                return out;
            }
            PyCallKind::Plain | PyCallKind::Decorator => {}
        }
        for v in callees {
            match v {
                Value::Func(f) => {
                    if matches!(
                        self.decl_kind[f as usize],
                        DeclKind::Function | DeclKind::Method | DeclKind::Lambda
                    ) {
                        out.push(Target::Decl { decl: f, shift: 0 });
                    }
                }
                Value::Bound { func, .. } => out.push(Target::Decl {
                    decl: func,
                    shift: 1,
                }),
                Value::Partial { func, shift } => out.push(Target::Decl {
                    decl: func,
                    shift: shift as usize,
                }),
                // `Color("red")` looks a member up: no `__init__` runs (the
                // members were made with the class), only `_missing_`
                // for a value that is not one.
                Value::Class(c) if self.is_enum(c) => {
                    let before = out.len();
                    // The metaclass's `__call__` does the lookup (the
                    // standard library's own EnumType, when it is indexed).
                    for f in self.metaclass_calls(c) {
                        out.push(Target::Decl { decl: f, shift: 1 });
                    }
                    let missing = self.intern("_missing_");
                    if let Some(&f) = self.method_targets(c, missing).first() {
                        out.push(Target::Decl { decl: f, shift: 1 });
                    }
                    if out.len() == before {
                        out.push(Target::NoInit(c));
                    }
                }
                Value::Class(c) => {
                    // A class called for its side effects alone (`App()`)
                    // has instances too, which `super()` in its bases follows.
                    if !self.solved {
                        self.mark_instantiated(c);
                    }
                    // A metaclass's own `__call__` runs first, with the
                    // class as its first argument (a singleton's cache, a
                    // registry); `type.__call__` then does the rest.
                    for f in self.metaclass_calls(c) {
                        if !self.solved {
                            self.bind_first_param(f, Value::Class(c));
                        }
                        out.push(Target::Decl { decl: f, shift: 1 });
                    }
                    // `__new__` runs first, with the class as its first
                    // argument, then `__init__` on what it returned.
                    let new = self.intern("__new__");
                    if let Some(&f) = self.method_targets(c, new).first() {
                        out.push(Target::Decl { decl: f, shift: 1 });
                    }
                    let init = self.intern("__init__");
                    match self.method_targets(c, init).first() {
                        Some(&f) => out.push(Target::Decl { decl: f, shift: 1 }),
                        None => match self.external_base(c) {
                            Some(p) => out.push(Target::External(format!(
                                "{}.__init__",
                                self.strings[p as usize]
                            ))),
                            None => {
                                out.push(Target::NoInit(c));
                                if self.is_dataclass(c) {
                                    // A dataclass's generated `__init__` calls
                                    // its fields' default factories, and ends
                                    // by calling `__post_init__`.
                                    for f in self.field_factories(c) {
                                        out.push(Target::Implicit(f));
                                    }
                                    let post = self.intern("__post_init__");
                                    if let Some(&f) = self.method_targets(c, post).first() {
                                        out.push(Target::Decl { decl: f, shift: 1 });
                                    }
                                }
                            }
                        },
                    }
                }
                Value::Instance(c) | Value::Cone(c) => {
                    if let Some(f) = self.call_method(c) {
                        out.push(Target::Decl { decl: f, shift: 1 });
                    }
                }
                Value::MethodCaller(name) => {
                    for (decl, shift) in self.called_methods(ci, call, name, 0, false) {
                        out.push(Target::Decl { decl, shift });
                    }
                }
                Value::External(p) => {
                    out.push(Target::External(self.strings[p as usize].clone()));
                    // A push orders the item against the heap's: `__lt__`.
                    if HEAP_PUSHES.contains(&self.strings[p as usize].as_str())
                        && let Some(&item) = self.files[ci].py.calls[call].args.get(1)
                    {
                        let items = self.eval(ci, item, 1);
                        self.push_comparisons(ci, call, "heappush", items, &mut out);
                    }
                    if self.strings[p as usize] == EXITSTACK_ENTER {
                        for (m, _) in self.entered_contexts(ci, call) {
                            push_implied(&mut out, m);
                        }
                    }
                    if self.strings[p as usize] == FUNCTOOLS_REDUCE {
                        let reduce = self.intern("reduce");
                        self.push_applied(ci, call, reduce, &mut out);
                    }
                    self.push_library_callbacks(ci, call, p, &mut out);
                    self.push_overridden_hooks(ci, call, p, &mut out);
                    if KEY_HASHING_METHODS.contains(&self.strings[p as usize].as_str()) {
                        self.push_key_hashing(ci, call, &mut out);
                    }
                }
                Value::DictMethod { name, .. } => {
                    let method = format!("<**PyDict**>.{}", self.strings[name as usize]);
                    let hashes = KEY_HASHING_METHODS.contains(&method.as_str());
                    out.push(Target::External(method));
                    if hashes {
                        self.push_key_hashing(ci, call, &mut out);
                    }
                }
                Value::SeqMethod { site, name } => {
                    let method = format!(
                        "{}.{}",
                        self.sequence_type(site).0,
                        self.strings[name as usize]
                    );
                    let hashes = KEY_HASHING_METHODS.contains(&method.as_str());
                    out.push(Target::External(method));
                    if hashes {
                        self.push_key_hashing(ci, call, &mut out);
                    }
                    // `rows.sort(key=…)` calls its key, as `sorted` does.
                    if self.strings[name as usize] == "sort" {
                        let sorted = self.intern("sorted");
                        self.push_applied(ci, call, sorted, &mut out);
                        let items = self.elements(site, None);
                        self.push_comparisons(ci, call, "sorted", items, &mut out);
                    }
                }
                Value::Builtin(b) => {
                    out.push(Target::External(format!(
                        "<builtin>.{}",
                        self.strings[b as usize]
                    )));
                    // `len(x)` calls `x.__len__()`, `str(x)` `x.__str__()`, …;
                    // `print(a, b)` calls `str()` of each argument.
                    let builtin = self.strings[b as usize].as_str();
                    let dunder = BUILTIN_DUNDERS
                        .iter()
                        .find(|(b2, _)| *b2 == builtin)
                        .map(|&(_, d)| d);
                    let operands: SmallVec<[ExprId; 2]> = match (builtin, dunder) {
                        ("print", _) => {
                            self.files[ci].py.calls[call].args.iter().copied().collect()
                        }
                        (_, Some(_)) => self.files[ci].py.calls[call]
                            .args
                            .first()
                            .copied()
                            .into_iter()
                            .collect(),
                        _ => SmallVec::new(),
                    };
                    let dunder = if builtin == "print" {
                        Some("__str__")
                    } else {
                        dunder
                    };
                    if let Some(dunder) = dunder
                        && !operands.is_empty()
                    {
                        let dunder = self.intern(dunder);
                        if self.operator_defined(dunder) {
                            for arg in operands {
                                self.push_conversions(ci, arg, dunder, &mut out);
                            }
                        }
                    }
                    self.push_consumed_iterables(ci, call, b, &mut out);
                    let builtin = self.strings[b as usize].as_str();
                    if matches!(builtin, "sorted" | "min" | "max") {
                        let builtin = if builtin == "max" { "max" } else { "sorted" };
                        let args = self.files[ci].py.calls[call].args.clone();
                        let items = self.compared_items(ci, &args);
                        self.push_comparisons(ci, call, builtin, items, &mut out);
                    }
                    // Higher-order builtins call the functions they are given.
                    if HIGHER_ORDER.contains(&self.strings[b as usize].as_str()) {
                        self.push_applied(ci, call, b, &mut out);
                    }
                    // `iter(read_chunk, "")` calls read_chunk, with no
                    // arguments, until it returns the sentinel.
                    if self.strings[b as usize] == "iter"
                        && let [callable, _sentinel] = self.files[ci].py.calls[call].args[..]
                    {
                        for v in self.eval(ci, callable, 1) {
                            if let Value::Func(f)
                            | Value::Bound { func: f, .. }
                            | Value::Partial { func: f, .. } = v
                            {
                                out.push(Target::Implicit(f));
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        if truncated {
            out.push(Target::Truncated);
        }
        out
    }

    /// The special methods an operator call reaches: the receiver's
    /// `method` (for `a += b`, `__iadd__` or else `__add__`), or when the
    /// receiver has none, the other operand's `reflected` one (which is
    /// not given the receiver as its argument: [`NO_BIND`]).
    fn operator_methods(
        &mut self,
        ci: usize,
        call: usize,
        method: Sym,
        reflected: Option<Sym>,
    ) -> Vec<(DeclId, usize)> {
        // Once solved, a site's answer is final; emitting `a + b + c + …`
        // would otherwise re-evaluate each inner site for every outer one.
        if self.solved {
            if let Some(v) = self.operator_memo.get(&(ci, call)) {
                return v.clone();
            }
            let out = self.operator_methods_uncached(ci, call, method, reflected);
            self.operator_memo.insert((ci, call), out.clone());
            return out;
        }
        self.operator_methods_uncached(ci, call, method, reflected)
    }

    fn operator_methods_uncached(
        &mut self,
        ci: usize,
        call: usize,
        method: Sym,
        reflected: Option<Sym>,
    ) -> Vec<(DeclId, usize)> {
        let method = self.gsym(ci, method);
        let mut out = Vec::new();
        // Most operators apply to numbers, strings and containers: when no
        // class in the repository defines the method, nothing is evaluated.
        let mut defined = self.operator_defined(method);
        // `d[k]` on a dict subclass without `__getitem__` of its own calls
        // its `__missing__` for a key the dict lacks.
        let missing = if self.strings[method as usize] == "__getitem__" {
            let missing = self.intern("__missing__");
            self.operator_defined(missing).then_some(missing)
        } else {
            None
        };
        defined |= missing.is_some();
        // `x in [a, b]` compares x with each item: the items' `__eq__`
        // (or x's, reflected); a set or dict hashes x instead, and a set
        // compares its items on a match.
        let membership = if self.strings[method as usize] == "__contains__" {
            let eq = self.intern("__eq__");
            let hash = self.intern("__hash__");
            let asked = (self.operator_defined(eq), self.operator_defined(hash));
            defined |= asked.0 || asked.1;
            Some((eq, hash))
        } else {
            None
        };
        // `d[k]`, `d[k] = v`, `del d[k]` on a dict hash `k`.
        let keyed = matches!(
            self.strings[method as usize].as_str(),
            "__getitem__" | "__setitem__" | "__delitem__"
        ) && {
            let eq = self.intern("__eq__");
            let hash = self.intern("__hash__");
            self.operator_defined(eq) || self.operator_defined(hash)
        };
        defined |= keyed;
        // A free name (a builtin or a star import) as an operand is almost
        // never an instance of a repository class, and is costly to look up.
        let py = self.files[ci].py;
        let free = |e: ExprId| matches!(py.exprs.get(e as usize), Some(PyExpr::Free { .. }));
        let receiver = py.calls[call].callee;
        let receiver_values = if defined && !free(receiver) {
            self.callee_values(ci, call)
        } else {
            Vals::new()
        };
        for v in receiver_values {
            if let Value::Container(site) = v
                && keyed
                && self.dict_sites.contains(&site)
            {
                for m in self.key_hashing(ci, call) {
                    if !out.contains(&m) {
                        out.push(m);
                    }
                }
                continue;
            }
            if let (Value::Container(site), Some((eq, hash))) = (v, membership) {
                let hashed = self.dict_sites.contains(&site) || self.set_sites.contains(&site);
                let mut compared: Vec<(Value, GSym, usize)> = Vec::new();
                if let Some(&x) = self.files[ci].py.calls[call].args.first()
                    && !free(x)
                {
                    for xv in self.eval(ci, x, 1) {
                        compared.push((xv, if hashed { hash } else { eq }, NO_BIND));
                    }
                }
                // A dict's keys are not tracked, only its values.
                if !self.dict_sites.contains(&site) {
                    for item in self.elements(site, None) {
                        compared.push((item, eq, NO_BIND));
                    }
                }
                for (value, name, shift) in compared {
                    if let Value::Instance(c) | Value::Cone(c) = value {
                        for m in self.method_targets(c, name) {
                            if !out.contains(&(m, shift)) {
                                out.push((m, shift));
                            }
                        }
                    }
                }
                continue;
            }
            if let Value::Instance(c) | Value::Cone(c) = v {
                let mut methods = self.special_method(c, method);
                if methods.is_empty()
                    && let Some(missing) = missing
                    && self.builtin_base(c).as_deref() == Some("dict")
                {
                    methods = self.special_method(c, missing);
                }
                for m in methods {
                    if !out.contains(&(m, 1)) {
                        out.push((m, 1));
                    }
                }
            }
        }
        if out.is_empty()
            && let Some(reflected) = reflected
            && let Some(&other) = self.files[ci].py.calls[call].args.first()
            && !free(other)
            && self.operator_defined(self.gsym(ci, reflected))
        {
            let reflected = self.gsym(ci, reflected);
            for v in self.eval(ci, other, 1) {
                if let Value::Instance(c) | Value::Cone(c) = v {
                    for m in self.special_method(c, reflected) {
                        if !out.contains(&(m, NO_BIND)) {
                            out.push((m, NO_BIND));
                        }
                    }
                }
            }
        }
        out
    }

    /// The special method `dunder` (with its fallbacks) of each instance
    /// `arg` may hold; `str(e)` of an `except AppError as e` may also be a
    /// subclass's override.
    fn push_conversions(&mut self, ci: usize, arg: ExprId, dunder: GSym, out: &mut Vec<Target>) {
        let mut values = self.eval(ci, arg, 1);
        // `print([a, b])`: a list, tuple, set or dict shows its items
        // with `repr()`.
        let shows = matches!(
            self.strings[dunder as usize].as_str(),
            "__str__" | "__repr__" | "__format__"
        );
        let containers: Vec<u32> = values
            .iter()
            .filter_map(|v| match v {
                Value::Container(site) | Value::Slice { site, .. } if shows => Some(*site),
                _ => None,
            })
            .collect();
        if !containers.is_empty() {
            let repr = self.intern("__repr__");
            for site in containers {
                for item in self.elements(site, None) {
                    if let Value::Instance(c) | Value::Cone(c) = item {
                        for m in self.method_targets(c, repr) {
                            push_implied(out, m);
                        }
                    }
                }
            }
            values.retain(|v| !matches!(v, Value::Container(_) | Value::Slice { .. }));
        }
        for v in values {
            let (Value::Instance(c) | Value::Cone(c)) = v else {
                continue;
            };
            let mut methods = self.special_method(c, dunder);
            if matches!(v, Value::Cone(_)) {
                for &s in self.definers_below(c, dunder, false).iter() {
                    for m in self.method_targets(s, dunder) {
                        if !methods.contains(&m) {
                            methods.push(m);
                        }
                    }
                }
            }
            for m in methods {
                push_implied(out, m);
            }
        }
    }

    /// `list(It())`, `sum(It())`: builtins that consume an iterable run its
    /// `__iter__` and `__next__`; `sum(prices)` also adds the items (`0 +
    /// a` asks the first one's `__radd__`, then each running total's
    /// `__add__`).
    fn push_consumed_iterables(&mut self, ci: usize, call: usize, b: GSym, out: &mut Vec<Target>) {
        let builtin = self.strings[b as usize].as_str();
        if !CONSUMES_ITERABLES.contains(&builtin) {
            return;
        }
        let sum = builtin == "sum";
        let args = &self.files[ci].py.calls[call].args;
        let consumed: SmallVec<[ExprId; 2]> = match builtin {
            "zip" => args.iter().copied().collect(),
            "map" | "filter" => args.iter().skip(1).copied().collect(),
            _ if args.len() == 1 || sum => args.first().copied().into_iter().collect(),
            _ => SmallVec::new(),
        };
        let adds = ["__radd__", "__add__"].map(|name| self.intern(name));
        for arg in consumed {
            let values = self.eval(ci, arg, 1);
            self.push_iteration(&values, NO_BIND, out);
            if !sum {
                continue;
            }
            let mut items = Vals::new();
            for v in values {
                for item in self.iterate(v) {
                    push_unique(&mut items, item);
                }
            }
            for name in adds {
                if !self.operator_defined(name) {
                    continue;
                }
                for &item in &items {
                    if let Value::Instance(c) | Value::Cone(c) = item {
                        for m in self.method_targets(c, name) {
                            push_implied(out, m);
                        }
                    }
                }
            }
        }
    }

    /// What `sorted`, `min` and `max` compare: the items of their one
    /// argument, or the arguments themselves (`min(a, b)`).
    fn compared_items(&mut self, ci: usize, args: &[ExprId]) -> Vals {
        let mut items = Vals::new();
        match *args {
            [one] => {
                for v in self.eval(ci, one, 1) {
                    for item in self.iterate(v) {
                        push_unique(&mut items, item);
                    }
                }
            }
            _ => {
                for &a in args {
                    for v in self.eval(ci, a, 1) {
                        push_unique(&mut items, v);
                    }
                }
            }
        }
        items
    }

    /// Sorting (`sorted`, `list.sort`, `min`) compares items with `<`,
    /// `max` with `>` (or the other item's `<` reflected): each instance's
    /// method. A `key=` compares what the key returns instead.
    fn push_comparisons(
        &mut self,
        ci: usize,
        call: usize,
        builtin: &str,
        items: Vals,
        out: &mut Vec<Target>,
    ) {
        let facts = self.files[ci].facts;
        let keyed = self.files[ci].py.calls[call]
            .kwargs
            .iter()
            .any(|&(k, _)| facts.sym(k) == "key");
        let lt = self.intern("__lt__");
        let gt = self.intern("__gt__");
        if keyed || !(self.operator_defined(lt) || self.operator_defined(gt)) {
            return;
        }
        let order: &[GSym] = if builtin == "max" {
            &[gt, lt]
        } else {
            &[lt, gt]
        };
        for v in items {
            let (Value::Instance(c) | Value::Cone(c)) = v else {
                continue;
            };
            for &method in order {
                let found = self.method_targets(c, method);
                if found.is_empty() {
                    continue;
                }
                for m in found {
                    push_implied(out, m);
                }
                break;
            }
        }
    }

    /// Iterating each instance among `values` calls its `__iter__`, and
    /// the `__next__` of what that returns (async: `__aiter__`,
    /// `__anext__`). `shift` is 1 where the instance is the receiver, and
    /// [`NO_BIND`] where a builtin passes it on.
    fn push_iteration(&mut self, values: &[Value], shift: usize, out: &mut Vec<Target>) {
        for &v in values {
            if let Value::Instance(c) | Value::Cone(c) = v {
                let (iter_sym, next_sym) = self.protocol(c, ITER_PROTOCOL);
                let iters = self.method_targets(c, iter_sym);
                for g in self.index_iteration(c, iter_sym, &iters) {
                    out.push(Target::Decl { decl: g, shift });
                }
                for it in iters {
                    out.push(Target::Decl { decl: it, shift });
                    for r in self.returns_of(it) {
                        if let Value::Instance(c2) | Value::Cone(c2) = r {
                            for n in self.method_targets(c2, next_sym) {
                                out.push(Target::Decl { decl: n, shift });
                            }
                        }
                    }
                }
            }
        }
    }

    /// The implementations registered on each generic function with
    /// `@f.register` or `@f.register(T)` (`functools.singledispatch`,
    /// `singledispatchmethod`): a call of `f` may run any of them.
    fn dispatch_registrations(&mut self) -> HashMap<DeclId, Vec<DeclId>> {
        let mut out: HashMap<DeclId, Vec<DeclId>> = HashMap::default();
        for ci in 0..self.files.len() {
            let py = self.files[ci].py;
            let facts = self.files[ci].facts;
            for (call, c) in py.calls.iter().enumerate() {
                if c.kind != PyCallKind::Decorator {
                    continue;
                }
                let text = facts.calls[call].callee_text.as_str();
                let registers = text.ends_with(".register")
                    || text
                        .split_once('(')
                        .is_some_and(|(head, _)| head.ends_with(".register"));
                if !registers {
                    continue;
                }
                // `@f.register` or `@f.register(int)`.
                let mut callee = c.callee;
                if let Some(&PyExpr::Call(inner)) = py.exprs.get(callee as usize) {
                    callee = py.calls[inner as usize].callee;
                }
                let Some(&PyExpr::Attr { base, .. }) = py.exprs.get(callee as usize) else {
                    continue;
                };
                let Some(&arg) = c.args.first() else {
                    continue;
                };
                let generic: Vec<DeclId> = self
                    .eval(ci, base, 1)
                    .into_iter()
                    .filter_map(|v| match v {
                        Value::Func(f) | Value::Bound { func: f, .. } => Some(f),
                        _ => None,
                    })
                    .collect();
                let impls: Vec<DeclId> = self
                    .eval(ci, arg, 1)
                    .into_iter()
                    .filter_map(|v| match v {
                        Value::Func(f) => Some(f),
                        _ => None,
                    })
                    .collect();
                for g in generic {
                    let list = out.entry(g).or_default();
                    for &f in &impls {
                        if f != g && !list.contains(&f) {
                            list.push(f);
                        }
                    }
                }
            }
        }
        out
    }

    /// The `__getitem__` that iterating an instance of `c` calls with 0,
    /// 1, 2… until IndexError (the sequence protocol), when `c` has no
    /// `__iter__` (`iters`, found for `iter_sym`) and no base from outside
    /// may bring one; else nothing.
    fn index_iteration(&mut self, c: DeclId, iter_sym: GSym, iters: &[DeclId]) -> Vec<DeclId> {
        if !iters.is_empty()
            || self.strings[iter_sym as usize] != "__iter__"
            || self.external_base(c).is_some()
            || self.builtin_base(c).is_some()
        {
            return Vec::new();
        }
        let getitem = self.intern("__getitem__");
        self.method_targets(c, getitem)
    }

    /// Whether some class defines special method `method` (or one of
    /// the methods Python falls back to without it). Asked for every
    /// operator site, so remembered.
    fn operator_defined(&mut self, method: GSym) -> bool {
        if let Some(&d) = self.operator_gate.get(&method) {
            return d;
        }
        let defined = self.class_definers.contains_key(&method)
            || self.fallback_methods(method).iter().any(|p| {
                self.string_ids
                    .get(*p)
                    .is_some_and(|id| self.class_definers.contains_key(id))
            });
        self.operator_gate.insert(method, defined);
        defined
    }

    /// Class `c`'s special method `name`, or what Python runs without
    /// one: an in-place operator (`__iadd__`) falls back to the plain one
    /// (`__add__`), `__bool__` to `__len__`, and `object`'s `__format__`
    /// calls `__str__`, whose default calls `__repr__` (not when a class
    /// from outside the repository, such as `Exception`, may have its own).
    fn special_method(&mut self, c: DeclId, name: GSym) -> Vec<DeclId> {
        let found = self.method_targets(c, name);
        if !found.is_empty() {
            return found;
        }
        for &fallback in self.fallback_methods(name) {
            // `@total_ordering` makes the comparisons a class lacks out of
            // the one it defines (the first of `__lt__`, `__le__`,
            // `__gt__`, `__ge__`); other classes have no such fallback.
            if COMPARISONS.contains(&fallback) && !self.is_total_ordering(c) {
                break;
            }
            if fallback == "__repr__"
                && (self.external_base(c).is_some()
                    || self.builtin_base(c).is_some_and(|b| b != "object"))
            {
                break;
            }
            let fallback = self.intern(fallback);
            let found = self.method_targets(c, fallback);
            if !found.is_empty() {
                return found;
            }
        }
        found
    }

    /// The methods [`Analysis::special_method`] tries, in order, when a
    /// class lacks `name`.
    fn fallback_methods(&self, name: GSym) -> &'static [&'static str] {
        let text = self.strings[name as usize].as_str();
        match text {
            "__bool__" => &["__len__"],
            "__str__" => &["__repr__"],
            "__format__" => &["__str__", "__repr__"],
            t if COMPARISONS.contains(&t) => COMPARISONS,
            _ => match INPLACE_OPERATORS.iter().position(|&op| op == text) {
                Some(i) => std::slice::from_ref(&PLAIN_OPERATORS[i]),
                None => &[],
            },
        }
    }

    /// The first base of `c`'s hierarchy that lives outside the repository.
    fn external_base(&mut self, c: DeclId) -> Option<GSym> {
        for &k in self.mro(c).iter() {
            let Some((info, ci)) = self.py_info(k) else {
                continue;
            };
            for &b in &info.bases {
                for v in self.eval(ci, b, 0) {
                    if let Value::External(p) = v
                        && !is_marker_base(&self.strings[p as usize])
                    {
                        return Some(p);
                    }
                }
            }
        }
        None
    }

    /// Whether `class` or a class it derives from is decorated with
    /// `@functools.total_ordering`.
    fn is_total_ordering(&mut self, class: DeclId) -> bool {
        self.mro(class).iter().any(|&k| {
            self.py_info(k)
                .is_some_and(|(info, _)| info.is_total_ordering)
        })
    }

    /// Whether `name` is a field with a default that dataclass `class`
    /// or a dataclass among its bases assigns in its body.
    fn is_dataclass_field(&mut self, class: DeclId, name: GSym) -> bool {
        let mro = self.mro(class);
        mro.iter().any(|&k| {
            self.class_body_names.contains(&(k, name))
                && self.py_info(k).is_some_and(|(info, _)| info.is_dataclass)
        })
    }

    /// Whether `class` or a class it derives from is a dataclass.
    fn is_dataclass(&mut self, class: DeclId) -> bool {
        self.mro(class)
            .iter()
            .any(|&k| self.py_info(k).is_some_and(|(info, _)| info.is_dataclass))
    }

    /// The functions a dataclass's fields name as default factories, its
    /// own and its bases'.
    fn field_factories(&mut self, class: DeclId) -> Vec<DeclId> {
        let mut out = Vec::new();
        for &k in self.mro(class).iter() {
            let Some((info, kci)) = self.py_info(k) else {
                continue;
            };
            for &e in &info.factories {
                for v in self.eval(kci, e, 1) {
                    if let Value::Func(f) = v
                        && !out.contains(&f)
                    {
                        out.push(f);
                    }
                }
            }
        }
        out
    }

    /// A dataclass's generated `__init__` stores its arguments in the
    /// annotated fields (those of its bases first).
    fn bind_dataclass_fields(&mut self, class: DeclId, args: &[Vals], kwargs: &[(GSym, Vals)]) {
        let mut fields: Vec<GSym> = Vec::new();
        let mut any = false;
        for &k in self.mro(class).iter().rev() {
            if let Some((info, kci)) = self.py_info(k) {
                any |= info.is_dataclass;
                for &f in &info.fields {
                    let g = self.gsym(kci, f);
                    if !fields.contains(&g) {
                        fields.push(g);
                    }
                }
            }
        }
        if !any {
            return;
        }
        for (vals, &f) in args.iter().zip(fields.iter()) {
            self.add(Slot::InstAttr(class, f), vals);
        }
        for (k, vals) in kwargs {
            if fields.contains(k) {
                self.add(Slot::InstAttr(class, *k), vals);
            }
        }
    }

    fn bind_call(&mut self, ci: usize, call: usize) {
        self.bind_wrapped(ci, call);
        self.bind_dict_update(ci, call);
        self.bind_sequence_insert(ci, call);
        let targets = self.call_targets(ci, call);
        if targets.is_empty() {
            self.settle(ci, call, targets);
            return;
        }
        let py = self.files[ci].py;
        let c = &py.calls[call];
        let args: Vec<Vals> = c.args.iter().map(|&a| self.eval(ci, a, 1)).collect();
        let kwargs: Vec<(GSym, Vals)> = c
            .kwargs
            .iter()
            .map(|&(k, a)| (self.gsym(ci, k), self.eval(ci, a, 1)))
            .collect();
        let splats = c.splats.clone();
        self.bind_receivers(ci, call, &targets);
        for t in &targets {
            if let Target::NoInit(class) = *t {
                self.bind_dataclass_fields(class, &args, &kwargs);
                continue;
            }
            if let Target::External(name) = t
                && name == "functools.partial"
            {
                self.bind_partial_arguments(&args, &kwargs);
                continue;
            }
            // `heapq.heappush(q, job)` puts job in the list q.
            if let Target::External(name) = t
                && HEAP_PUSHES.contains(&name.as_str())
                && let (Some(heap), Some(item)) = (args.first(), args.get(1))
            {
                let item: Vals = item
                    .iter()
                    .copied()
                    .filter(|&v| self.worth_collecting(v))
                    .collect();
                for &v in heap {
                    if let Value::Container(site) = v {
                        self.add_elem(site, ANY_KEY, &item);
                    }
                }
                continue;
            }
            if let Target::External(name) = t
                && name == "argparse.ArgumentParser.set_defaults"
            {
                for (k, vals) in &kwargs {
                    self.add(Slot::InstAttr(ARGPARSE_DEFAULTS, *k), vals);
                }
                continue;
            }
            // `dict(k=v)` holds v under "k"; `dict(other)` other's values.
            if let Target::External(name) = t
                && name == "<builtin>.dict"
            {
                let site = self.site(ci, c.callee);
                for (k, vals) in &kwargs {
                    self.add_elem(site, *k, vals);
                }
                if let Some(first) = args.first() {
                    let mut values = Vals::new();
                    for v in first {
                        if let Value::Container(from) = *v {
                            for x in self.elements(from, None) {
                                push_unique(&mut values, x);
                            }
                        }
                    }
                    self.add_elem(site, ANY_KEY, &values);
                }
                continue;
            }
            if let Target::Applied {
                decl,
                shift,
                builtin,
                arg,
            } = *t
            {
                self.bind_applied(ci, call, decl, shift, builtin, arg);
                continue;
            }
            let Target::Decl { decl, shift } = *t else {
                continue;
            };
            let Some((info, fci)) = self.py_info(decl) else {
                continue;
            };
            let params = &info.params;
            let varargs = params.iter().any(|p| p.kind == ParamKind::VarArgs);
            let varkwargs = params.iter().any(|p| p.kind == ParamKind::VarKwargs);
            let mut positional = params.iter().skip(filled_by_receiver(params, shift));
            for vals in &args {
                match positional.next() {
                    Some(p)
                        if matches!(p.kind, ParamKind::Positional | ParamKind::PositionalOnly) =>
                    {
                        let slot = Slot::Var(decl, self.gsym(fci, p.name));
                        self.add(slot, vals);
                    }
                    // Extra positional arguments are packed into `*args`.
                    _ if varargs => {
                        let site = self.packed_site(decl, false);
                        self.add_elem(site, ANY_KEY, vals);
                    }
                    _ => break,
                }
            }
            for (k, vals) in &kwargs {
                self.bind_keyword(decl, fci, params, varkwargs, *k, vals);
            }
            // `f(*xs)`: any element may land in any parameter not yet
            // filled by position, or in `*args`. `f(**d)`: each key of `d`
            // goes to the parameter of that name, or into `**kwargs`.
            for splat in &splats {
                if splat.dict {
                    for (k, vals) in self.dict_entries(ci, splat.expr) {
                        if k == ANY_KEY {
                            for p in params.iter().skip(filled_by_receiver(params, shift)) {
                                if p.kind != ParamKind::PositionalOnly
                                    && p.kind != ParamKind::VarArgs
                                {
                                    self.bind_keyword(
                                        decl,
                                        fci,
                                        params,
                                        varkwargs,
                                        self.gsym(fci, p.name),
                                        &vals,
                                    );
                                }
                            }
                        } else {
                            self.bind_keyword(decl, fci, params, varkwargs, k, &vals);
                        }
                    }
                } else {
                    let mut vals = Vals::new();
                    for v in self.eval(ci, splat.expr, 1) {
                        for e in self.iterate(v) {
                            push_unique(&mut vals, e);
                        }
                    }
                    for p in params.iter().skip(shift.saturating_add(args.len())) {
                        match p.kind {
                            ParamKind::Positional | ParamKind::PositionalOnly => {
                                let slot = Slot::Var(decl, self.gsym(fci, p.name));
                                self.add(slot, &vals);
                            }
                            ParamKind::VarArgs => {
                                let site = self.packed_site(decl, false);
                                self.add_elem(site, ANY_KEY, &vals);
                            }
                            _ => {}
                        }
                    }
                }
            }
        }
        self.settle(ci, call, targets);
    }

    /// Bind the parameters of a function that a higher-order builtin calls:
    /// it receives the elements of the builtin's other arguments, never
    /// the arguments themselves (`map(self._next, names)` passes each name
    /// to `_next`, not `self._next`). `map` passes the n-th iterable's
    /// elements as the n-th argument, `reduce` an accumulator (the
    /// initial value or what the function returns) and an element, the
    /// others (`filter`, `sorted`, `min`, `max` with `key=`) one element,
    /// or one of several positional arguments (`max(a, b, key=f)`).
    fn bind_applied(
        &mut self,
        ci: usize,
        call: usize,
        decl: DeclId,
        shift: usize,
        builtin: GSym,
        arg: u32,
    ) {
        let Some((info, fci)) = self.py_info(decl) else {
            return;
        };
        let c = &self.files[ci].py.calls[call];
        let others: Vec<ExprId> = c
            .args
            .iter()
            .enumerate()
            .filter(|&(i, _)| i as u32 != arg)
            .map(|(_, &e)| e)
            .collect();
        let elements = |a: &mut Self, e: ExprId| -> Vals {
            let mut out = Vals::new();
            for v in a.eval(ci, e, 1) {
                for x in a.iterate(v) {
                    push_unique(&mut out, x);
                }
            }
            out
        };
        let mut bound: Vec<Vals> = Vec::new();
        match self.strings[builtin as usize].as_str() {
            "map" => {
                for &e in &others {
                    bound.push(elements(self, e));
                }
            }
            "reduce" => {
                let mut acc = self.returns_of(decl);
                let mut items = Vals::new();
                if let Some(&e) = others.first() {
                    items = elements(self, e);
                }
                match others.get(1) {
                    Some(&init) => {
                        for v in self.eval(ci, init, 1) {
                            push_unique(&mut acc, v);
                        }
                    }
                    // Without an initial value the first element starts.
                    None => {
                        for &v in &items {
                            push_unique(&mut acc, v);
                        }
                    }
                }
                bound.push(acc);
                bound.push(items);
            }
            _ => {
                let mut one = Vals::new();
                match others.as_slice() {
                    [e] => one = elements(self, *e),
                    many => {
                        for &e in many {
                            for v in self.eval(ci, e, 1) {
                                push_unique(&mut one, v);
                            }
                        }
                    }
                }
                bound.push(one);
            }
        }
        let mut params = info
            .params
            .iter()
            .skip(filled_by_receiver(&info.params, shift))
            .peekable();
        for vals in &bound {
            match params.peek() {
                Some(p) if matches!(p.kind, ParamKind::Positional | ParamKind::PositionalOnly) => {
                    let slot = Slot::Var(decl, self.gsym(fci, p.name));
                    self.add(slot, vals);
                    params.next();
                }
                // `*args` takes this argument and every further one.
                Some(p) if p.kind == ParamKind::VarArgs => {
                    let site = self.packed_site(decl, false);
                    self.add_elem(site, ANY_KEY, vals);
                }
                _ => break,
            }
        }
    }

    /// `Square.unit()` where `unit` is a classmethod of a base class:
    /// its `cls` is `Square` there, not only the class defining it, so
    /// `cls()` makes a `Square`. Only calls that reach a classmethod pay
    /// for evaluating the callee again.
    fn bind_receivers(&mut self, ci: usize, call: usize, targets: &[Target]) {
        // A method's `self` is its class's cone already; a classmethod's
        // `cls` is the class it was called on, and a plain function that
        // a class holds in a method's place (a decorator's `wrapper(self,
        // …)`) gets the instance it was called on as its first parameter.
        // Only one whose first parameter says so: a decorator that hands
        // its argument back (`unittest.skipUnless`'s `_id`) gives every
        // function ever decorated with it as the decorated method,
        // `run_test_script(script)` among them.
        let takes_receiver = |a: &Self, d: DeclId| match a.py_info(d) {
            Some((info, _)) if a.decl_kind[d as usize] == DeclKind::Method => info.is_classmethod,
            Some((info, fci)) => info
                .params
                .first()
                .is_some_and(|p| a.files[fci].facts.sym(p.name) == "self"),
            None => false,
        };
        if !targets
            .iter()
            .any(|t| matches!(*t, Target::Decl { decl, shift: 1 } if takes_receiver(self, decl)))
        {
            return;
        }
        for v in self.callee_values(ci, call) {
            let Value::Bound {
                func,
                recv,
                instance,
            } = v
            else {
                continue;
            };
            if !takes_receiver(self, func) {
                continue;
            }
            let Some((info, fci)) = self.py_info(func) else {
                continue;
            };
            let receiver = match info.is_classmethod || !instance {
                true => Value::Class(recv),
                false => Value::Cone(recv),
            };
            if let Some(first) = info.params.first()
                && matches!(
                    first.kind,
                    ParamKind::Positional | ParamKind::PositionalOnly
                )
            {
                let slot = Slot::Var(func, self.gsym(fci, first.name));
                self.add(slot, &[receiver]);
            }
        }
    }

    /// What `functools.partial(f, a, …)` at this call makes of each
    /// function `f` may be, with the positional arguments given counted.
    fn partial_values(&mut self, ci: usize, call: usize) -> Vals {
        let c = &self.files[ci].py.calls[call];
        let Some((&first, rest)) = c.args.split_first() else {
            return Vals::new();
        };
        let given = rest.len() as u32;
        let mut out = Vals::new();
        for v in self.eval(ci, first, 1) {
            if let Some((func, shift)) = function_and_shift(v) {
                push_unique(
                    &mut out,
                    Value::Partial {
                        func,
                        shift: (shift as u32).saturating_add(given),
                    },
                );
            }
            // `partial(Window, 2, 10)`: calling it makes a Window (the
            // arguments it fills are not followed into `__init__`).
            if let Value::Class(_) = v {
                push_unique(&mut out, v);
            }
        }
        out
    }

    /// `functools.partial(f, a, k=b)` passes `a` and `b` on to `f` (when
    /// the partial is called, but flow-insensitively that is the same).
    fn bind_partial_arguments(&mut self, args: &[Vals], kwargs: &[(GSym, Vals)]) {
        let Some(funcs) = args.first() else {
            return;
        };
        for v in funcs.clone() {
            let Some((decl, shift)) = function_and_shift(v) else {
                continue;
            };
            let Some((info, fci)) = self.py_info(decl) else {
                continue;
            };
            let params = &info.params;
            let varkwargs = params.iter().any(|p| p.kind == ParamKind::VarKwargs);
            let mut positional = params.iter().skip(filled_by_receiver(params, shift));
            for vals in &args[1..] {
                match positional.next() {
                    Some(p)
                        if matches!(p.kind, ParamKind::Positional | ParamKind::PositionalOnly) =>
                    {
                        let slot = Slot::Var(decl, self.gsym(fci, p.name));
                        self.add(slot, vals);
                    }
                    _ => break,
                }
            }
            for (k, vals) in kwargs {
                self.bind_keyword(decl, fci, params, varkwargs, *k, vals);
            }
        }
    }

    /// Keep a bound call site's latest targets for [`Analysis::emit`].
    fn settle(&mut self, ci: usize, call: usize, targets: Vec<Target>) {
        let at = self.files[ci].call_base as usize + call;
        if let Some(slot) = self.settled_targets.get_mut(at) {
            *slot = Some(targets.into_boxed_slice());
        }
    }

    /// `d.update(other)` and `d.update(k=v)` on a dict literal `d`: the
    /// entries join `d`'s, key by key (flow-insensitively, so an
    /// overwritten value stays possible too).
    /// `@functools.wraps(fn)` on `wrapper` sets `wrapper.__wrapped__ = fn`
    /// (tests call the undecorated function through it).
    fn bind_wrapped(&mut self, ci: usize, call: usize) {
        let py = self.files[ci].py;
        let c = &py.calls[call];
        if c.kind != PyCallKind::Decorator {
            return;
        }
        let (Some(PyExpr::Call(inner)), Some(&wrapper)) =
            (py.exprs.get(c.callee as usize), c.args.first())
        else {
            return;
        };
        let Some(inner) = py.calls.get(*inner as usize) else {
            return;
        };
        let Some(&wrapped) = inner.args.first() else {
            return;
        };
        let is_wraps = self.eval(ci, inner.callee, 1).iter().any(
            |v| matches!(v, Value::External(p) if self.strings[*p as usize] == "functools.wraps"),
        );
        if !is_wraps {
            return;
        }
        let wrapped = self.eval(ci, wrapped, 1);
        let key = self.intern("__wrapped__");
        for v in self.eval(ci, wrapper, 1) {
            if let Value::Func(w) = v {
                self.add(Slot::InstAttr(w, key), &wrapped);
            }
        }
    }

    fn bind_dict_update(&mut self, ci: usize, call: usize) {
        let py = self.files[ci].py;
        let c = &py.calls[call];
        let Some(PyExpr::Attr { name, .. }) = py.exprs.get(c.callee as usize) else {
            return;
        };
        let method = self.files[ci].facts.sym(*name);
        if method == "setdefault" {
            return self.bind_dict_setdefault(ci, call);
        }
        if method != "update" {
            return;
        }
        let sites = self.receiver_sites(ci, call, true);
        if sites.is_empty() {
            return;
        }
        let mut entries = match c.args.first() {
            Some(&other) => self.dict_entries(ci, other),
            None => Vec::new(),
        };
        for &(k, e) in &c.kwargs {
            entries.push((self.gsym(ci, k), self.eval(ci, e, 1)));
        }
        for site in sites {
            for (k, vals) in &entries {
                self.add_elem(site, *k, vals);
            }
        }
    }

    /// The containers whose method the call's callee (`d.update`,
    /// `xs.append`) is: dicts', or lists', sets' and tuples'.
    fn receiver_sites(&mut self, ci: usize, call: usize, dict: bool) -> Vec<u32> {
        let py = self.files[ci].py;
        let Some(PyExpr::Attr { name, .. }) = py.exprs.get(py.calls[call].callee as usize) else {
            return Vec::new();
        };
        let method = self.gsym(ci, *name);
        self.callee_values(ci, call)
            .into_iter()
            .filter_map(|v| match v {
                Value::DictMethod { site, name } if dict && name == method => Some(site),
                Value::SeqMethod { site, name } if !dict && name == method => Some(site),
                _ => None,
            })
            .collect()
    }

    /// `d.setdefault(k, v)` stores `v` under `k` (the call's result is
    /// [`Analysis::dict_method_result`]'s): the plugin idiom
    /// `hooks.setdefault(event, []).append(f)` fills a list the dict holds.
    fn bind_dict_setdefault(&mut self, ci: usize, call: usize) {
        let c = &self.files[ci].py.calls[call];
        let Some(&default) = c.args.get(1) else {
            return;
        };
        let key = c.key.map_or(ANY_KEY, |k| self.gsym(ci, k));
        let sites = self.receiver_sites(ci, call, true);
        if sites.is_empty() {
            return;
        }
        let vals = self.eval(ci, default, 1);
        for site in sites {
            self.add_elem(site, key, &vals);
        }
    }

    /// `xs.append(v)`, `xs.insert(i, v)`, `s.add(v)`, `xs.extend(ys)`,
    /// `s.update(ys)` on a list, set or tuple the analysis tracks: the new
    /// elements join the container's (at unknown positions), so a callback
    /// registered with `append` is called where the list is iterated.
    fn bind_sequence_insert(&mut self, ci: usize, call: usize) {
        let py = self.files[ci].py;
        let c = &py.calls[call];
        let Some(PyExpr::Attr { name, .. }) = py.exprs.get(c.callee as usize) else {
            return;
        };
        let (arg, spread) = match self.files[ci].facts.sym(*name) {
            "append" | "add" => (0, false),
            "insert" => (1, false),
            "extend" | "update" => (0, true),
            _ => return,
        };
        let Some(&arg) = c.args.get(arg) else {
            return;
        };
        let sites = self.receiver_sites(ci, call, false);
        if sites.is_empty() {
            return;
        }
        let mut vals = Vals::new();
        for v in self.eval(ci, arg, 1) {
            let new = if spread {
                self.iterate(v)
            } else {
                smallvec![v]
            };
            for e in new {
                if self.worth_collecting(e) {
                    push_unique(&mut vals, e);
                }
            }
        }
        for site in sites {
            self.add_elem(site, ANY_KEY, &vals);
        }
    }

    /// Whether a value added to a list or set is worth tracking there. An
    /// out-of-repository value is, when it is (an instance of) a class
    /// (`threads.append(Thread(…))`, then `t.join()`); a variable such as
    /// `os.path.curdir` is not: its methods made up callees like
    /// `os.path.curdir.replace` wherever the list was read.
    fn worth_collecting(&self, v: Value) -> bool {
        match v {
            Value::External(p) => self.external_is_class(p),
            _ => true,
        }
    }

    /// The PyCG name and the public methods of the non-dict container at `site`.
    fn sequence_type(&self, site: u32) -> (&'static str, &'static [&'static str]) {
        let kind = if self.set_sites.contains(&site) {
            "set"
        } else if self.tuple_sites.contains(&site) {
            "tuple"
        } else {
            "list"
        };
        builtin_type(kind).unwrap_or(("<**PyList**>", LIST_METHODS))
    }

    /// Pass `vals` as keyword argument `k`: to the parameter of that name,
    /// else into `**kwargs` under that key.
    fn bind_keyword(
        &mut self,
        decl: DeclId,
        fci: usize,
        params: &[crate::lang::python::Param],
        varkwargs: bool,
        k: GSym,
        vals: &[Value],
    ) {
        let named = params.iter().find(|p| {
            self.gsym(fci, p.name) == k
                && matches!(p.kind, ParamKind::Positional | ParamKind::KeywordOnly)
        });
        if let Some(p) = named {
            let slot = Slot::Var(decl, self.gsym(fci, p.name));
            self.add(slot, vals);
        } else if varkwargs {
            let site = self.packed_site(decl, true);
            self.add_elem(site, k, vals);
        }
    }

    /// The (key, values) entries of the dicts `expr` evaluates to; values
    /// stored under an unknown key come with [`ANY_KEY`].
    fn dict_entries(&mut self, ci: usize, expr: ExprId) -> Vec<(GSym, Vals)> {
        let mut out: Vec<(GSym, Vals)> = Vec::new();
        for v in self.eval(ci, expr, 1) {
            let Value::Container(site) = v else {
                continue;
            };
            self.touch(Slot::Elem(site, KEYS));
            let keys = self.container_keys.get(&site).cloned().unwrap_or_default();
            for k in keys {
                let vals = self.get(Slot::Elem(site, k));
                match out.iter_mut().find(|(key, _)| *key == k) {
                    Some((_, acc)) => {
                        for v in vals {
                            push_unique(acc, v);
                        }
                    }
                    None => out.push((k, vals)),
                }
            }
        }
        out
    }

    /// Whether a callee expression reaches its values through definitions
    /// and imports only (no assignment, parameter or instance attribute).
    fn is_static(&mut self, ci: usize, expr: ExprId, depth: u32) -> bool {
        if depth > 16 {
            return false;
        }
        let py = self.files[ci].py;
        match &py.exprs[expr as usize] {
            PyExpr::Var { scope, name } => {
                let slot = Slot::Var(self.gdecl(ci, *scope), self.gsym(ci, *name));
                !self.dynamic_slots.contains(&slot)
            }
            PyExpr::Free { .. }
            | PyExpr::Decl(_)
            | PyExpr::ModuleRef { .. }
            | PyExpr::Super { .. } => true,
            PyExpr::Attr { base, .. } => {
                let base = *base;
                if !self.is_static(ci, base, depth + 1) {
                    return false;
                }
                // `self.m()` dispatches through the class of `self`: as certain as the class.
                self.eval(ci, base, 0).iter().all(|v| {
                    matches!(
                        v,
                        Value::Module(_)
                            | Value::Class(_)
                            | Value::External(_)
                            | Value::Instance(_)
                            | Value::Super { .. }
                    )
                })
            }
            _ => false,
        }
    }

    fn emit(&mut self, b: &mut Builder) {
        let dispatch = self.dispatch_registrations();
        for ci in 0..self.files.len() {
            let file = self.files[ci].file;
            let facts = self.files[ci].facts;
            let py = self.files[ci].py;
            self.emit_init_subclass(b, ci);
            self.emit_metaclass_hooks(b, ci);
            self.emit_descriptor_accesses(b, ci);
            self.emit_attribute_hooks(b, ci);
            self.emit_set_name(b, ci);
            // Module-level imports between repository modules (for import cycles).
            let mut imported: Vec<u32> = Vec::new();
            for imp in &py.imports {
                let text = facts.sym(imp.module);
                let level = text.chars().take_while(|&c| c == '.').count() as u8;
                let module = text.trim_start_matches('.').to_owned();
                // `from pkg import sub` imports the submodule when there is one.
                let mut imports_submodule = false;
                let target = match imp.name.map(|n| facts.sym(n)) {
                    Some(name) if name != "*" => {
                        let sub = if module.is_empty() {
                            name.to_owned()
                        } else {
                            format!("{module}.{name}")
                        };
                        match self.module_ref_str(ci, level, sub) {
                            Some(Value::Module(m)) => {
                                imports_submodule = true;
                                Some(Value::Module(m))
                            }
                            _ => self.module_ref_str(ci, level, module),
                        }
                    }
                    _ => self.module_ref_str(ci, level, module),
                };
                if let Some(Value::Module(m)) = target
                    && m != file
                    && !imported.contains(&m)
                {
                    imported.push(m);
                }
                // `from pkg import Lazy`, a name `pkg` provides only through
                // its `__getattr__`, calls it while importing.
                if let (Some(Value::Module(m)), Some(name)) = (target, imp.name)
                    && facts.sym(name) != "*"
                    && !imports_submodule
                    && !self.getattr_names.is_empty()
                {
                    let name = self.gsym(ci, name);
                    let hooks = self.module_getattr_hooks(m);
                    if !hooks.is_empty()
                        && self.getattr_names.contains(&name)
                        && !self.found_without_getattr(Value::Module(m), name)
                    {
                        let importer = self.gdecl(ci, imp.scope);
                        let mut seen = HashSet::default();
                        implicit_edges(b, &mut seen, importer, &hooks, file);
                    }
                }
            }
            b.res
                .imports
                .extend(imported.into_iter().map(|m| (file, m)));
            for call in 0..py.calls.len() {
                let caller = self.gdecl(ci, facts.calls[call].caller);
                let settled = self.files[ci].call_base as usize + call;
                let targets = match self.settled_targets.get_mut(settled).and_then(Option::take) {
                    Some(targets) if !self.exhausted => targets.into_vec(),
                    _ => self.call_targets(ci, call),
                };
                let kind = py.calls[call].kind;
                let mut decls: Vec<DeclId> = Vec::new();
                for t in &targets {
                    let id = match t {
                        Target::Decl { decl, .. }
                        | Target::Applied { decl, .. }
                        | Target::Implicit(decl) => *decl,
                        Target::External(name) => b.external(name, crate::model::Lang::Python),
                        Target::NoInit(_) | Target::Truncated => continue,
                    };
                    if !decls.contains(&id) {
                        decls.push(id);
                    }
                    // A `functools.singledispatch` function dispatches to
                    // the implementations registered on it.
                    if kind == PyCallKind::Plain
                        && let Some(impls) = dispatch.get(&id)
                    {
                        for &f in impls {
                            if !decls.contains(&f) {
                                decls.push(f);
                            }
                        }
                    }
                }
                let has_class = targets.iter().any(|t| matches!(t, Target::NoInit(_)));
                let opaque = targets.iter().any(|t| {
                    matches!(t, Target::External(name)
                        if !name.starts_with('<')
                            && !never_calls_its_arguments(name)
                            && name != FUNCTOOLS_REDUCE)
                }) || (targets.is_empty()
                    && matches!(kind, PyCallKind::Plain | PyCallKind::Decorator)
                    && !never_calls_its_arguments(&facts.calls[call].callee_text));
                if opaque {
                    self.note_handed_out(b, ci, call, caller);
                }
                if !decls.is_empty() && targets.iter().any(|t| matches!(t, Target::Truncated)) {
                    b.unresolved(
                        caller,
                        file,
                        call as u32,
                        format!(
                            "the callee has more possible values than are kept ({MAX_SET}, or \
                             {MAX_CALLABLES} functions); the callees shown may not be all"
                        ),
                    );
                }
                if decls.is_empty() {
                    if matches!(kind, PyCallKind::Plain | PyCallKind::Decorator) && !has_class {
                        let reason = self.unresolved_reason(b, ci, call);
                        b.unresolved(caller, file, call as u32, reason);
                    }
                    continue;
                }
                let confidence = if decls.len() > 1 {
                    Confidence::Possible
                } else if matches!(kind, PyCallKind::Plain | PyCallKind::Decorator)
                    && self.is_static(ci, py.calls[call].callee, 0)
                {
                    Confidence::Certain
                } else {
                    Confidence::Likely
                };
                for callee in decls {
                    b.edge(caller, callee, confidence, file, call as u32);
                }
            }
            self.emit_property_reads(b, ci);
            self.emit_getattr_reads(b, ci);
        }
    }

    /// Reading a property calls its getter and assigning it its setter: an
    /// edge from the function that does it, with no call site of its own
    /// (the access is not a call in the source).
    /// Defining a subclass calls `__init_subclass__` of the first base
    /// above it that has one.
    fn emit_init_subclass(&mut self, b: &mut Builder, ci: usize) {
        let hook = self.intern("__init_subclass__");
        if !self.class_definers.contains_key(&hook) {
            return;
        }
        // `type.__new__` runs the hook: inside a repository metaclass's
        // `__new__` (its `super().__new__(…)`) when there is one.
        let dunder_new = self.intern("__new__");
        self.emit_class_statement_calls(b, ci, |a, class| {
            let bases = a.class_bases.get(&class).cloned().unwrap_or_default();
            let mut hooks: Vec<DeclId> = Vec::new();
            for base in bases {
                for m in a.method_targets(base, hook) {
                    if !hooks.contains(&m) {
                        hooks.push(m);
                    }
                }
            }
            let runners = if hooks.is_empty() {
                Vec::new()
            } else {
                a.metaclass_methods(class, dunder_new)
            };
            (hooks, runners)
        });
    }

    /// A class statement whose metaclass is a repository class calls the
    /// metaclass's `__new__` and `__init__` (an ORM's model registry).
    fn emit_metaclass_hooks(&mut self, b: &mut Builder, ci: usize) {
        if !self.has_metaclasses {
            return;
        }
        let hooks = ["__new__", "__init__"].map(|h| self.intern(h));
        self.emit_class_statement_calls(b, ci, |a, class| {
            let mut found = Vec::new();
            for hook in hooks {
                for m in a.metaclass_methods(class, hook) {
                    if !found.contains(&m) {
                        found.push(m);
                    }
                }
            }
            (found, Vec::new())
        });
    }

    /// Making a class calls `__set_name__` of each class-body value that
    /// has one (a descriptor learning its attribute's name).
    fn emit_set_name(&mut self, b: &mut Builder, ci: usize) {
        let hook = self.intern("__set_name__");
        if !self.class_definers.contains_key(&hook) {
            return;
        }
        self.emit_class_statement_calls(b, ci, |a, class| {
            let names = a.class_body_names_of(class);
            let mut hooks: Vec<DeclId> = Vec::new();
            for name in names {
                for v in a.peek(Slot::Var(class, name)) {
                    if let Value::Instance(k) = v {
                        for m in a.method_targets(k, hook) {
                            if !hooks.contains(&m) {
                                hooks.push(m);
                            }
                        }
                    }
                }
            }
            (hooks, Vec::new())
        });
    }

    /// For each class of file context `ci`, edges from the code running its
    /// class statement (a module, or the function it is in) to what making
    /// the class calls, as `called` finds it.
    /// `called` gives a class's hooks and the functions that run them;
    /// none named means the scope the class statement runs in.
    fn emit_class_statement_calls(
        &mut self,
        b: &mut Builder,
        ci: usize,
        mut called: impl FnMut(&mut Self, DeclId) -> (Vec<DeclId>, Vec<DeclId>),
    ) {
        let facts = self.files[ci].facts;
        let file = self.files[ci].file;
        let mut seen = HashSet::default();
        for (local, d) in facts.decls.iter().enumerate() {
            if d.kind != DeclKind::Class {
                continue;
            }
            let (hooks, mut runners) = called(self, self.gdecl(ci, local as u32));
            if hooks.is_empty() {
                continue;
            }
            if runners.is_empty() {
                runners.push(self.gdecl(ci, d.parent.unwrap_or(0)));
            }
            for runner in runners {
                implicit_edges(b, &mut seen, runner, &hooks, file);
            }
        }
    }

    /// A class attribute holding an instance of a class with `__get__`,
    /// `__set__` or `__delete__` (a descriptor: an ORM's field) turns
    /// reading, assigning and deleting the attribute into calls of them.
    fn emit_descriptor_accesses(&mut self, b: &mut Builder, ci: usize) {
        let hooks = ["__get__", "__set__", "__delete__"].map(|h| self.intern(h));
        if !hooks.iter().any(|h| self.class_definers.contains_key(h)) {
            return;
        }
        if self.descriptor_names.is_none() {
            self.descriptor_names = Some(self.find_descriptor_names(&hooks));
        }
        if self.descriptor_names.as_ref().is_some_and(|n| n.is_empty()) {
            return;
        }
        let py = self.files[ci].py;
        let file = self.files[ci].file;
        let mut seen: HashSet<(DeclId, DeclId)> = HashSet::default();
        for ((caller, expr), hook) in attribute_accesses(py, hooks) {
            if !self.class_definers.contains_key(&hook) {
                continue;
            }
            let Some(&PyExpr::Attr { base, name }) = py.exprs.get(expr as usize) else {
                continue;
            };
            let name = self.gsym(ci, name);
            if !self
                .descriptor_names
                .as_ref()
                .is_some_and(|n| n.contains(&name))
            {
                continue;
            }
            let mut called: Vec<DeclId> = Vec::new();
            for v in self.eval(ci, base, 1) {
                let c = match v {
                    Value::Instance(c) | Value::Cone(c) => c,
                    // `Model.field` calls `__get__` too (with no instance).
                    Value::Class(c) if hook == hooks[0] => c,
                    _ => continue,
                };
                // The first class of the MRO that binds the name, read
                // without making slots for the others.
                let mro = self.mro(c);
                let Some(held) = mro
                    .iter()
                    .map(|&k| self.peek(Slot::Var(k, name)))
                    .find(|vals| !vals.is_empty())
                else {
                    continue;
                };
                for v in held {
                    if let Value::Instance(k) = v {
                        for m in self.method_targets(k, hook) {
                            if !called.contains(&m) {
                                called.push(m);
                            }
                        }
                    }
                }
            }
            let caller = self.gdecl(ci, caller);
            implicit_edges(b, &mut seen, caller, &called, file);
        }
    }

    /// Assigning or deleting an attribute of an instance whose class
    /// defines `__setattr__` or `__delattr__` calls it (`self.x = 1` in
    /// `__init__` too; `object.__setattr__(self, …)` does not).
    fn emit_attribute_hooks(&mut self, b: &mut Builder, ci: usize) {
        let hooks = ["__setattr__", "__delattr__"].map(|h| self.intern(h));
        if !hooks.iter().any(|h| self.class_definers.contains_key(h)) {
            return;
        }
        let py = self.files[ci].py;
        let file = self.files[ci].file;
        let mut seen: HashSet<(DeclId, DeclId)> = HashSet::default();
        for ((caller, expr), hook) in attribute_accesses(py, [None, Some(hooks[0]), Some(hooks[1])])
        {
            let Some(hook) = hook.filter(|h| self.class_definers.contains_key(h)) else {
                continue;
            };
            let Some(&PyExpr::Attr { base, .. }) = py.exprs.get(expr as usize) else {
                continue;
            };
            let mut called: Vec<DeclId> = Vec::new();
            for v in self.eval(ci, base, 1) {
                if let Value::Instance(c) | Value::Cone(c) = v {
                    for m in self.method_targets(c, hook) {
                        if !called.contains(&m) {
                            called.push(m);
                        }
                    }
                }
            }
            let caller = self.gdecl(ci, caller);
            implicit_edges(b, &mut seen, caller, &called, file);
        }
    }

    /// Names a class body binds to an instance of a class with one of
    /// `hooks` (a descriptor), read without making slots for the rest:
    /// attribute accesses of any other name need no look.
    fn find_descriptor_names(&mut self, hooks: &[GSym]) -> HashSet<GSym> {
        let mut out = HashSet::default();
        let pairs: Vec<(DeclId, GSym)> = self.class_body_names.iter().copied().collect();
        for (class, name) in pairs {
            for v in self.peek(Slot::Var(class, name)) {
                if let Value::Instance(k) = v
                    && hooks.iter().any(|&h| !self.method_targets(k, h).is_empty())
                {
                    out.insert(name);
                }
            }
        }
        out
    }

    fn emit_property_reads(&mut self, b: &mut Builder, ci: usize) {
        if self.property_names.is_empty() {
            return;
        }
        let py = self.files[ci].py;
        let file = self.files[ci].file;
        let mut seen: HashSet<(DeclId, DeclId)> = HashSet::default();
        let parts = [
            PropertyPart::Getter,
            PropertyPart::Setter,
            PropertyPart::Deleter,
        ];
        for ((caller, expr), part) in attribute_accesses(py, parts) {
            let Some(&PyExpr::Attr { base, name }) = py.exprs.get(expr as usize) else {
                continue;
            };
            let name = self.gsym(ci, name);
            if !self.property_names.contains(&name) {
                continue;
            }
            let caller = self.gdecl(ci, caller);
            let accessors = self.property_accessors(ci, base, name, part);
            implicit_edges(b, &mut seen, caller, &accessors, file);
        }
    }

    /// Whether `name` on `v` is found without asking a `__getattr__`.
    fn found_without_getattr(&mut self, v: Value, name: GSym) -> bool {
        self.skip_getattr = true;
        let direct = self.attr_members(v, name, 1);
        self.skip_getattr = false;
        !direct.is_empty()
    }

    /// Reading an attribute an instance lacks calls its class's
    /// `__getattr__`: an edge from the function that reads it, as for a
    /// property's getter.
    fn emit_getattr_reads(&mut self, b: &mut Builder, ci: usize) {
        if self.getattr_names.is_empty() {
            return;
        }
        let py = self.files[ci].py;
        let file = self.files[ci].file;
        let mut seen: HashSet<(DeclId, DeclId)> = HashSet::default();
        for &(caller, expr) in &py.attr_loads {
            let Some(&PyExpr::Attr { base, name }) = py.exprs.get(expr as usize) else {
                continue;
            };
            let name = self.gsym(ci, name);
            if !self.getattr_names.contains(&name) {
                continue;
            }
            let caller = self.gdecl(ci, caller);
            let mut hooks: SmallVec<[DeclId; 1]> = SmallVec::new();
            for v in self.eval(ci, base, 1) {
                let found = match v {
                    Value::Instance(c) | Value::Cone(c) => self.getattr_hooks(c),
                    Value::Module(f) => self.module_getattr_hooks(f),
                    _ => continue,
                };
                if found.is_empty() || self.found_without_getattr(v, name) {
                    continue;
                }
                for f in found {
                    if !hooks.contains(&f) {
                        hooks.push(f);
                    }
                }
            }
            implicit_edges(b, &mut seen, caller, &hooks, file);
        }
    }

    /// Record the repository functions a call passes to code ripple does
    /// not follow (see [`super::HandedOut`]).
    fn note_handed_out(&mut self, b: &mut Builder, ci: usize, call: usize, caller: DeclId) {
        let c = &self.files[ci].py.calls[call];
        let file = self.files[ci].file;
        let args: Vec<ExprId> = c
            .args
            .iter()
            .copied()
            .chain(c.kwargs.iter().map(|&(_, e)| e))
            .chain(c.splats.iter().map(|s| s.expr))
            .collect();
        let mut seen: SmallVec<[DeclId; 2]> = SmallVec::new();
        for a in args {
            if matches!(
                self.files[ci].py.exprs.get(a as usize),
                None | Some(PyExpr::Str | PyExpr::Unknown)
            ) {
                continue;
            }
            for v in self.eval(ci, a, 1) {
                let Some((func, _)) = function_and_shift(v) else {
                    continue;
                };
                if !seen.contains(&func) {
                    seen.push(func);
                    b.handed_out(func, caller, file, call as u32);
                }
            }
        }
    }

    fn unresolved_reason(&mut self, b: &Builder, ci: usize, call: usize) -> String {
        let py = self.files[ci].py;
        let facts = self.files[ci].facts;
        let callee = py.calls[call].callee;
        match &py.exprs[callee as usize] {
            PyExpr::Var { name, .. } => {
                // A rebound name (`x@2`) is shown as written.
                let shown = facts.sym(*name).split('@').next().unwrap_or("");
                format!("`{shown}` has no known value here (a parameter or a dynamic assignment)")
            }
            PyExpr::Free { name } => {
                format!("`{}` is not defined in this module", facts.sym(*name))
            }
            PyExpr::Attr { base, name } => {
                let bases = self.eval(ci, *base, 0);
                let hook = bases.iter().find_map(|&v| match v {
                    Value::Instance(c) | Value::Cone(c) => self.getattr_hooks(c).first().copied(),
                    _ => None,
                });
                if bases.is_empty() {
                    format!("the receiver of `.{}` has no known type", facts.sym(*name))
                } else if let Some(hook) = hook {
                    format!(
                        "`{}` comes from `{}`, whose result is unknown",
                        facts.sym(*name),
                        b.res.decls[hook as usize].name
                    )
                } else {
                    format!(
                        "`{}` is not found on the receiver's known types",
                        facts.sym(*name)
                    )
                }
            }
            PyExpr::Call(_) => {
                "callee is the result of a call whose return value is unknown".to_owned()
            }
            PyExpr::Subscript { .. } => {
                "callee is taken out of a container with unknown contents".to_owned()
            }
            _ => "dynamic callee".to_owned(),
        }
    }
}

const NO_CONSTRAINT: u32 = u32::MAX;
/// A `Var` expression whose slot has not been looked up yet.
const NO_SLOT: u32 = u32::MAX;

/// Points-to sets and their readers, by dense slot id (one hash lookup per access).
#[derive(Default)]
struct SlotTable {
    ids: HashMap<Slot, u32>,
    vals: Vec<Vals>,
    readers: Vec<Vec<u32>>,
    /// Per constraint, the last `dedup_stamp` under which it was seen
    /// while compacting a reader list.
    seen: Vec<u32>,
    dedup_stamp: u32,
    /// Set by [`SlotTable::settle`].
    settled: bool,
}

impl SlotTable {
    fn id(&mut self, slot: Slot) -> u32 {
        let next = self.vals.len() as u32;
        let id = *self.ids.entry(slot).or_insert(next);
        if id == next {
            self.vals.push(Vals::new());
            if !self.settled {
                self.readers.push(Vec::new());
            }
        }
        id
    }

    /// The fixpoint is reached: nothing will be notified again, so the
    /// reader lists (a fifth of the solver's memory) go before emitting
    /// allocates the edges.
    fn settle(&mut self) {
        self.settled = true;
        self.readers = Vec::new();
        self.seen = Vec::new();
    }

    fn record(&mut self, id: usize, reader: u32) {
        if reader == NO_CONSTRAINT || self.settled {
            return;
        }
        let rs = &mut self.readers[id];
        let seen = if rs.len() <= 8 {
            rs.contains(&reader)
        } else {
            rs.last() == Some(&reader)
        };
        if seen {
            return;
        }
        // Constraints run again record their reads again, so long lists
        // fill with repeats (on sympy, 43M entries for 11M readers).
        // Before a list grows, it drops every repeat after a reader's first
        // entry; notifying it queues the same constraints in the same order.
        if rs.len() >= 16 && rs.len() == rs.capacity() {
            self.dedup_stamp = self.dedup_stamp.wrapping_add(1);
            if self.dedup_stamp == 0 {
                self.seen.fill(0);
                self.dedup_stamp = 1;
            }
            let stamp = self.dedup_stamp;
            let seen = &mut self.seen;
            rs.retain(|&r| {
                let i = r as usize;
                if i >= seen.len() {
                    seen.resize(i + 1, 0);
                }
                std::mem::replace(&mut seen[i], stamp) != stamp
            });
            // Compacting again at the next push would be quadratic.
            if rs.len() > rs.capacity() / 4 * 3 {
                rs.reserve(rs.capacity());
            }
        }
        rs.push(reader);
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ConsKind {
    Flow,
    Container,
    Call,
    /// Resolve a class's bases; a change reshapes the hierarchy.
    ClassBases,
    /// A test (or fixture) parameter named like a pytest fixture receives its value.
    Fixture,
}

#[derive(Debug, Clone, Copy)]
struct Constraint {
    ci: u32,
    kind: ConsKind,
    idx: u32,
}

enum Target {
    Decl {
        decl: DeclId,
        shift: usize,
    },
    /// A function a higher-order builtin (`map`, `filter`, `sorted`, …)
    /// calls on the elements of its other arguments; `arg` is where the
    /// function was passed, among the positional then keyword arguments.
    Applied {
        decl: DeclId,
        shift: usize,
        builtin: GSym,
        arg: u32,
    },
    External(String),
    /// A class instantiated that defines no `__init__` anywhere in its MRO.
    NoInit(DeclId),
    /// A function the call runs without passing it the call's arguments
    /// (a dataclass field's default factory).
    Implicit(DeclId),
    /// The callee's value set is full: values past its cap were dropped,
    /// so the targets found may not be all (listed with the unresolved).
    Truncated,
}

/// How many of `params` the `shift` arguments a call fills before its own
/// (a bound receiver, a partial's) take: as many positional parameters as
/// lead; past them they go into `*args` (`wrapper(*args)` in a method's
/// place gets its receiver there), leaving every parameter to the call.
fn filled_by_receiver(params: &[crate::lang::python::Param], shift: usize) -> usize {
    let leading = params
        .iter()
        .take_while(|p| matches!(p.kind, ParamKind::Positional | ParamKind::PositionalOnly))
        .count();
    shift.min(leading)
}

/// A name from the modules that spell types rather than define classes
/// with methods: a type variable, alias or protocol a value is annotated
/// with says nothing about which methods its calls reach.
fn is_typing_name(name: &str) -> bool {
    [
        "typing.",
        "typing_extensions.",
        "collections.abc.",
        "_typeshed.",
        "types.",
    ]
    .iter()
    .any(|m| name.starts_with(m))
}

/// The builtin `reduce` of Python 2: its calls are followed as the
/// builtin's are, so it does not count as handing its function out.
const FUNCTOOLS_REDUCE: &str = "functools.reduce";

/// The two special methods a statement calls, synchronous then asynchronous.
type Protocol = ((&'static str, &'static str), (&'static str, &'static str));
const ITER_PROTOCOL: Protocol = (("__iter__", "__next__"), ("__aiter__", "__anext__"));
const WITH_PROTOCOL: Protocol = (("__enter__", "__exit__"), ("__aenter__", "__aexit__"));

/// Bases whose subclasses' class-body names are members, instances of the
/// subclass: the `enum` module's, and Django's choices built on them.
fn is_enum_base(name: &str) -> bool {
    matches!(
        name,
        "enum.Enum"
            | "enum.IntEnum"
            | "enum.StrEnum"
            | "enum.Flag"
            | "enum.IntFlag"
            | "enum.ReprEnum"
            | "django.db.models.Choices"
            | "django.db.models.TextChoices"
            | "django.db.models.IntegerChoices"
            | "django.db.models.enums.Choices"
            | "django.db.models.enums.TextChoices"
            | "django.db.models.enums.IntegerChoices"
    )
}

/// A base that marks a class for type checkers (a protocol, a generic, an
/// abstract base) and gives its instances no methods: a method the
/// repository does not define is not inherited from it.
fn is_marker_base(name: &str) -> bool {
    matches!(
        name,
        "typing.Protocol"
            | "typing.Generic"
            | "typing_extensions.Protocol"
            | "typing_extensions.Generic"
            | "abc.ABC"
    )
}

/// Edges for calls the source does not spell (a property's accessor, a
/// `__getattr__`), with no call site: `Likely`, or `Possible` when there
/// are several candidates.
/// A file's attribute reads, assignments and deletions, each with what
/// it stands for (`[read, assign, delete]`).
fn attribute_accesses<'a, T: Copy + 'a>(
    py: &'a PyFacts,
    [read, assign, delete]: [T; 3],
) -> impl Iterator<Item = ((u32, ExprId), T)> + 'a {
    py.attr_loads
        .iter()
        .map(move |&a| (a, read))
        .chain(py.attr_stores.iter().map(move |&a| (a, assign)))
        .chain(py.attr_deletes.iter().map(move |&a| (a, delete)))
}

fn implicit_edges(
    b: &mut Builder,
    seen: &mut HashSet<(DeclId, DeclId)>,
    caller: DeclId,
    callees: &[DeclId],
    file: u32,
) {
    let confidence = if callees.len() > 1 {
        Confidence::Possible
    } else {
        Confidence::Likely
    };
    for &g in callees {
        if seen.insert((caller, g)) {
            b.edge(caller, g, confidence, file, u32::MAX);
        }
    }
}

/// Add `m` as a target the call runs on the caller's behalf (a builtin
/// calling a special method), once.
fn push_implied(out: &mut Vec<Target>, m: DeclId) {
    if !out
        .iter()
        .any(|t| matches!(t, Target::Decl { decl, .. } if *decl == m))
    {
        out.push(Target::Decl {
            decl: m,
            shift: NO_BIND,
        });
    }
}

fn push_unique(out: &mut Vals, v: Value) {
    if admits(out, &v) && !out.contains(&v) {
        out.push(v);
    }
}

/// The function a callable value calls, and how many of its parameters
/// are filled before the call's own arguments (the receiver of a bound
/// method, the arguments given to `functools.partial`).
fn function_and_shift(v: Value) -> Option<(DeclId, usize)> {
    match v {
        Value::Func(f) => Some((f, 0)),
        Value::Bound { func, .. } => Some((func, 1)),
        Value::Partial { func, shift } => Some((func, shift as usize)),
        _ => None,
    }
}

/// Whether a set reached its cap and may have dropped values.
fn is_full(set: &[Value]) -> bool {
    set.len() >= MAX_CALLABLES || (set.len() >= MAX_SET && !set.iter().all(is_callable))
}

fn is_callable(v: &Value) -> bool {
    matches!(
        v,
        Value::Func(_) | Value::Bound { .. } | Value::Partial { .. } | Value::Class(_)
    )
}

/// Whether a set takes one more value. Sets are capped to keep the solve
/// cheap where everything flows together (every string a parser
/// touches), but a set of nothing but functions and classes may grow well
/// past that: a dispatch table of thirty handlers called through one
/// subscript must keep an edge to each of them, or the blast radius of
/// the thirtieth would say nobody calls it.
fn admits(set: &[Value], v: &Value) -> bool {
    set.len() < MAX_SET
        || (set.len() < MAX_CALLABLES && is_callable(v) && set.iter().all(is_callable))
}

/// Dict methods whose result is drawn from the dict's values.
/// `str`'s public methods (`dir(str)`, CPython 3.11).
const STR_METHODS: &[&str] = &[
    "capitalize",
    "casefold",
    "center",
    "count",
    "encode",
    "endswith",
    "expandtabs",
    "find",
    "format",
    "format_map",
    "index",
    "isalnum",
    "isalpha",
    "isascii",
    "isdecimal",
    "isdigit",
    "isidentifier",
    "islower",
    "isnumeric",
    "isprintable",
    "isspace",
    "istitle",
    "isupper",
    "join",
    "ljust",
    "lower",
    "lstrip",
    "maketrans",
    "partition",
    "removeprefix",
    "removesuffix",
    "replace",
    "rfind",
    "rindex",
    "rjust",
    "rpartition",
    "rsplit",
    "rstrip",
    "split",
    "splitlines",
    "startswith",
    "strip",
    "swapcase",
    "title",
    "translate",
    "upper",
    "zfill",
];

/// `dict`'s public methods (`dir(dict)`, CPython 3.11).
const DICT_ALL_METHODS: &[&str] = &[
    "clear",
    "copy",
    "fromkeys",
    "get",
    "items",
    "keys",
    "pop",
    "popitem",
    "setdefault",
    "update",
    "values",
];

/// PyCG's name for a builtin container or `str` type, and its public methods.
fn builtin_type(name: &str) -> Option<(&'static str, &'static [&'static str])> {
    Some(match name {
        "list" => ("<**PyList**>", LIST_METHODS),
        "dict" => ("<**PyDict**>", DICT_ALL_METHODS),
        "set" => ("<**PySet**>", SET_METHODS),
        "tuple" => ("<**PyTuple**>", TUPLE_METHODS),
        "str" => ("<**PyStr**>", STR_METHODS),
        _ => return None,
    })
}

/// Builtin classes whose members are named `<builtin>.class.member`, or as
/// on a literal for the containers and `str` ([`builtin_type`]); the
/// capitalised builtins are the exception and warning classes.
fn is_builtin_class(name: &str) -> bool {
    builtin_type(name).is_some()
        || name.starts_with(|c: char| c.is_ascii_uppercase())
        || matches!(
            name,
            "object"
                | "int"
                | "float"
                | "complex"
                | "bool"
                | "bytes"
                | "bytearray"
                | "type"
                | "frozenset"
                | "memoryview"
                | "range"
                | "slice"
        )
}

/// `object`'s methods (`dir(object)`, CPython 3.11, without the attributes).
const OBJECT_METHODS: &[&str] = &[
    "__delattr__",
    "__dir__",
    "__eq__",
    "__format__",
    "__ge__",
    "__getattribute__",
    "__getstate__",
    "__gt__",
    "__hash__",
    "__init__",
    "__init_subclass__",
    "__le__",
    "__lt__",
    "__ne__",
    "__new__",
    "__reduce__",
    "__reduce_ex__",
    "__repr__",
    "__setattr__",
    "__sizeof__",
    "__str__",
    "__subclasshook__",
];

/// `list`'s public methods (`dir(list)`, CPython 3.11).
const LIST_METHODS: &[&str] = &[
    "append", "clear", "copy", "count", "extend", "index", "insert", "pop", "remove", "reverse",
    "sort",
];

/// `set`'s public methods (`dir(set)`, CPython 3.11).
const SET_METHODS: &[&str] = &[
    "add",
    "clear",
    "copy",
    "difference",
    "difference_update",
    "discard",
    "intersection",
    "intersection_update",
    "isdisjoint",
    "issubset",
    "issuperset",
    "pop",
    "remove",
    "symmetric_difference",
    "symmetric_difference_update",
    "union",
    "update",
];

/// `tuple`'s public methods (`dir(tuple)`, CPython 3.11).
const TUPLE_METHODS: &[&str] = &["count", "index"];

/// Whether a `str` or `dict` value has attribute `attr`: one of its public
/// `methods` or a special method (`__contains__`); anything else (`s._loop`)
/// is a value the analysis confused with a string or dict, and names nothing.
fn builtin_type_member(methods: &[&str], attr: &str) -> bool {
    methods.contains(&attr)
        || (attr.starts_with("__") && attr.ends_with("__") && !INTROSPECTION_ATTRS.contains(&attr))
}

/// Attributes every object has that describe it rather than name a member.
const INTROSPECTION_ATTRS: &[&str] = &[
    "__class__",
    "__self__",
    "__func__",
    "__objclass__",
    "__dict__",
    "__args__",
    "__origin__",
    "__name__",
    "__qualname__",
    "__module__",
    "__doc__",
    "__file__",
    "__code__",
    "__globals__",
    "__wrapped__",
    "__mro__",
    "__bases__",
    "__annotations__",
    "__defaults__",
    "__kwdefaults__",
    "__signature__",
];

/// The dict methods whose results or effects are modelled on dict literals
/// ([`Value::DictMethod`]); the others are named as `<**PyDict**>.m`.
const MODELLED_DICT_METHODS: &[&str] = &[
    "values",
    "items",
    "copy",
    "get",
    "pop",
    "setdefault",
    "update",
];

/// A target's `shift` that binds no arguments (a reflected operator or a
/// builtin's special method gets the object itself as `self`).
const NO_BIND: usize = usize::MAX;

/// In-place operators, which fall back to the plain operator.
const INPLACE_OPERATORS: &[&str] = &[
    "__iadd__",
    "__isub__",
    "__imul__",
    "__itruediv__",
    "__ifloordiv__",
    "__imod__",
    "__ipow__",
    "__imatmul__",
    "__iand__",
    "__ior__",
    "__ixor__",
    "__ilshift__",
    "__irshift__",
];

/// The plain operator each of [`INPLACE_OPERATORS`] falls back to.
const PLAIN_OPERATORS: &[&str] = &[
    "__add__",
    "__sub__",
    "__mul__",
    "__truediv__",
    "__floordiv__",
    "__mod__",
    "__pow__",
    "__matmul__",
    "__and__",
    "__or__",
    "__xor__",
    "__lshift__",
    "__rshift__",
];

/// Builtins that iterate an argument (`map` and `filter` their second).
const CONSUMES_ITERABLES: &[&str] = &[
    "list",
    "tuple",
    "set",
    "frozenset",
    "dict",
    "sorted",
    "min",
    "max",
    "sum",
    "any",
    "all",
    "zip",
    "enumerate",
    "map",
    "filter",
];

/// Builtins that call a special method of their argument.
const BUILTIN_DUNDERS: &[(&str, &str)] = &[
    ("len", "__len__"),
    ("str", "__str__"),
    ("repr", "__repr__"),
    ("bool", "__bool__"),
    ("hash", "__hash__"),
    ("abs", "__abs__"),
    ("iter", "__iter__"),
    ("next", "__next__"),
    ("reversed", "__reversed__"),
    ("int", "__int__"),
    ("float", "__float__"),
    ("complex", "__complex__"),
    ("bytes", "__bytes__"),
    ("format", "__format__"),
    ("round", "__round__"),
    ("dir", "__dir__"),
];

/// Builtins that call the functions passed to them.
/// Out-of-repository callables that take functions without calling them
/// (`functools.wraps(f)` copies `f`'s name; `inspect.signature(f)` reads
/// it): passing a function to them hides no caller.
const NEVER_CALLS_ITS_ARGUMENTS: &[&str] = &[
    "functools.wraps",
    "functools.update_wrapper",
    "inspect.",
    "typing.",
    "types.",
    "copy.",
    "pickle.",
    "logging.",
];

/// A callee, as written, that is one of [`NEVER_CALLS_ITS_ARGUMENTS`] or
/// what one returns: `@functools.wraps(fn)` and `@wraps(fn)` decorate a
/// wrapper without calling it.
fn never_calls_its_arguments(callee_text: &str) -> bool {
    let text = callee_text.trim_start_matches('@');
    text.starts_with("wraps(")
        || NEVER_CALLS_ITS_ARGUMENTS
            .iter()
            .any(|p| text.starts_with(p))
}

/// Methods that put values into a list, set or dict.
const FILLING_METHODS: &[&str] = &["append", "insert", "extend", "add", "update", "setdefault"];

const HIGHER_ORDER: &[&str] = &["map", "filter", "sorted", "min", "max", "reduce"];

/// Standard-library callables that run a function they are handed: (name,
/// its position, its keyword). A name starting with `.` is a method of
/// `concurrent.futures`' executors and futures, however the receiver's
/// class was reached.
const LIBRARY_CALLBACKS: &[(&str, Option<usize>, &str)] = &[
    ("threading.Thread", None, "target"),
    ("threading.Timer", Some(1), "function"),
    ("functools.cmp_to_key", Some(0), "mycmp"),
    ("itertools.starmap", Some(0), "function"),
    ("itertools.groupby", Some(1), "key"),
    ("itertools.filterfalse", Some(0), "function"),
    ("itertools.takewhile", Some(0), "predicate"),
    ("itertools.dropwhile", Some(0), "predicate"),
    ("itertools.accumulate", Some(1), "func"),
    ("atexit.register", Some(0), "func"),
    ("signal.signal", Some(1), "handler"),
    ("contextlib.ExitStack.callback", Some(0), "callback"),
    ("re.sub", Some(1), "repl"),
    ("re.subn", Some(1), "repl"),
    ("re.Pattern.sub", Some(0), "repl"),
    ("re.Pattern.subn", Some(0), "repl"),
    ("json.dumps", None, "default"),
    ("json.dump", None, "default"),
    ("json.loads", None, "object_hook"),
    ("json.loads", None, "object_pairs_hook"),
    ("json.load", None, "object_hook"),
    ("json.load", None, "object_pairs_hook"),
    ("collections.defaultdict", Some(0), "default_factory"),
    ("heapq.nlargest", None, "key"),
    ("heapq.nsmallest", None, "key"),
    ("heapq.merge", None, "key"),
    ("bisect.insort", None, "key"),
    ("bisect.bisect", None, "key"),
    ("bisect.bisect_left", None, "key"),
    ("bisect.bisect_right", None, "key"),
    ("os.walk", None, "onerror"),
    ("shutil.rmtree", None, "onerror"),
    ("shutil.copytree", None, "ignore"),
    ("weakref.finalize", Some(1), "func"),
    ("weakref.ref", Some(1), "callback"),
    ("sys.settrace", Some(0), "function"),
    ("sys.setprofile", Some(0), "function"),
    ("copyreg.pickle", Some(1), "pickle_function"),
    (".submit", Some(0), "fn"),
    (".map", Some(0), "fn"),
    (".add_done_callback", Some(0), "fn"),
];

/// `heapq` functions that put their second argument in the heap list
/// they are given (and order it with `<`), and those that take one out.
const HEAP_PUSHES: &[&str] = &["heapq.heappush", "heapq.heappushpop", "heapq.heapreplace"];
const HEAP_POPS: &[&str] = &["heapq.heappop", "heapq.heappushpop", "heapq.heapreplace"];

/// `contextlib.ExitStack.enter_context`, which enters the context manager
/// it is handed.
const EXITSTACK_ENTER: &str = "contextlib.ExitStack.enter_context";

/// The rich comparisons, in the order `functools.total_ordering` picks
/// the one the others are made from.
const COMPARISONS: &[&str] = &["__lt__", "__le__", "__gt__", "__ge__"];

/// Standard-library functions that make an instance of a library class
/// whose methods take callbacks: `re.compile(p).sub(repl, s)` calls repl.
const LIBRARY_FACTORIES: &[(&str, &str)] = &[
    ("re.compile", "re.Pattern"),
    // `sub = parser.add_subparsers(); cmd = sub.add_parser("add");
    // cmd.set_defaults(func=add)`, then `parser.parse_args().func(args)`.
    (
        "argparse.ArgumentParser.add_subparsers",
        "argparse._SubParsersAction",
    ),
    (
        "argparse._SubParsersAction.add_parser",
        "argparse.ArgumentParser",
    ),
    ("argparse.ArgumentParser.parse_args", "argparse.Namespace"),
    // Groups take arguments as their parser does.
    (
        "argparse.ArgumentParser.add_argument_group",
        "argparse._ArgumentGroup",
    ),
    (
        "argparse.ArgumentParser.add_mutually_exclusive_group",
        "argparse._MutuallyExclusiveGroup",
    ),
];

/// Methods of dicts and sets that hash the key they are handed (and
/// compare it with an equal-hashed one): its `__hash__` and `__eq__`.
const KEY_HASHING_METHODS: &[&str] = &[
    "<**PyDict**>.get",
    "<**PyDict**>.setdefault",
    "<**PyDict**>.pop",
    "<**PySet**>.add",
    "<**PySet**>.discard",
    "<**PySet**>.remove",
];

/// Methods of standard-library classes that call methods a subclass
/// overrides: (the method, the hooks it calls).
const OVERRIDDEN_HOOKS: &[(&str, &[&str])] = &[
    ("threading.Thread.start", &["run"]),
    ("multiprocessing.Process.start", &["run"]),
    (
        "html.parser.HTMLParser.feed",
        &[
            "handle_starttag",
            "handle_endtag",
            "handle_startendtag",
            "handle_data",
            "handle_comment",
            "handle_entityref",
            "handle_charref",
            "handle_decl",
            "handle_pi",
        ],
    ),
    ("json.JSONEncoder.encode", &["default"]),
    ("json.JSONEncoder.iterencode", &["default"]),
    ("logging.Handler.handle", &["emit"]),
    ("unittest.TestCase.run", &["setUp", "tearDown"]),
];

/// Python's builtin namespace (3.12), which unresolved free names fall back to.
const BUILTINS: &[&str] = &[
    "abs",
    "aiter",
    "all",
    "anext",
    "any",
    "ascii",
    "bin",
    "bool",
    "breakpoint",
    "bytearray",
    "bytes",
    "callable",
    "chr",
    "classmethod",
    "compile",
    "complex",
    "delattr",
    "dict",
    "dir",
    "divmod",
    "enumerate",
    "eval",
    "exec",
    "filter",
    "float",
    "format",
    "frozenset",
    "getattr",
    "globals",
    "hasattr",
    "hash",
    "help",
    "hex",
    "id",
    "input",
    "int",
    "isinstance",
    "issubclass",
    "iter",
    "len",
    "list",
    "locals",
    "map",
    "max",
    "memoryview",
    "min",
    "next",
    "object",
    "oct",
    "open",
    "ord",
    "pow",
    "print",
    "property",
    "range",
    "repr",
    "reversed",
    "round",
    "set",
    "setattr",
    "slice",
    "sorted",
    "staticmethod",
    "str",
    "sum",
    "super",
    "tuple",
    "type",
    "vars",
    "zip",
    "__import__",
    "ArithmeticError",
    "AssertionError",
    "AttributeError",
    "BaseException",
    "BaseExceptionGroup",
    "BlockingIOError",
    "BrokenPipeError",
    "BufferError",
    "BytesWarning",
    "ChildProcessError",
    "ConnectionAbortedError",
    "ConnectionError",
    "ConnectionRefusedError",
    "ConnectionResetError",
    "DeprecationWarning",
    "EOFError",
    "EncodingWarning",
    "EnvironmentError",
    "Exception",
    "ExceptionGroup",
    "FileExistsError",
    "FileNotFoundError",
    "FloatingPointError",
    "FutureWarning",
    "GeneratorExit",
    "IOError",
    "ImportError",
    "ImportWarning",
    "IndentationError",
    "IndexError",
    "InterruptedError",
    "IsADirectoryError",
    "KeyError",
    "KeyboardInterrupt",
    "LookupError",
    "MemoryError",
    "ModuleNotFoundError",
    "NameError",
    "NotADirectoryError",
    "NotImplementedError",
    "OSError",
    "OverflowError",
    "PendingDeprecationWarning",
    "PermissionError",
    "ProcessLookupError",
    "RecursionError",
    "ReferenceError",
    "ResourceWarning",
    "RuntimeError",
    "RuntimeWarning",
    "StopAsyncIteration",
    "StopIteration",
    "SyntaxError",
    "SyntaxWarning",
    "SystemError",
    "SystemExit",
    "TabError",
    "TimeoutError",
    "TypeError",
    "UnboundLocalError",
    "UnicodeDecodeError",
    "UnicodeEncodeError",
    "UnicodeError",
    "UnicodeTranslateError",
    "UnicodeWarning",
    "UserWarning",
    "ValueError",
    "Warning",
    "ZeroDivisionError",
];

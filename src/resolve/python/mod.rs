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
//!
//! One [`Analysis`] holds the whole program's state; its methods are split
//! over the files of this folder by what they handle:
//!
//! - `values`: the [`values::Value`]s a slot holds, the slot table and its
//!   readers, the caps that saturate a set;
//! - `solver`: the constraints each file's flow facts become, the seeding
//!   pass and the worklist step that re-runs a constraint whose inputs grew;
//! - `eval`: what an expression may evaluate to (names, attributes,
//!   subscripts, containers, iteration, return values);
//! - `bindings`: free names, imports, `from m import *`, modules and
//!   packages, pytest fixtures;
//! - `classes`: bases, MRO, attribute lookup through classes and instances,
//!   properties, `__getattr__`, `super()`, metaclasses, enums, dataclasses;
//! - `calls`: a call site's callees and result, and how its arguments bind
//!   to the parameters of each callee;
//! - `operators`: the dunder methods operators, conversions, comparisons,
//!   iteration and `with` call;
//! - `library`: models of builtins and the standard library (containers,
//!   functools, operator, argparse, heapq, contextlib, …);
//! - `emit`: the solved call sites turned into edges with their confidence,
//!   the implicit calls (hooks, descriptors) and the unresolved.
//!
//! [`resolve`] builds the analysis, runs the worklist to its fixpoint (or
//! its step budget) and emits.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::lang::python::{ExprId, PyFacts};
use crate::lang::{FileFacts, LangFacts};
use crate::model::{DeclKind, Sym};
use crate::resolve::{Builder, RawDeclId, SolveOrder, SourceFile};

use calls::Target;
use library::BUILTINS;
use solver::{ConsKind, Constraint, NO_CONSTRAINT};
use values::{ANY_KEY, GSym, MAX_ROUNDS, NO_SLOT, Slot, SlotTable, Value};

mod bindings;
mod by_name;
mod calls;
mod classes;
mod emit;
mod eval;
mod library;
mod operators;
mod solver;
mod strata;
mod values;

/// The resolver's sources, hashed into [`super::resolver_fingerprint`].
pub(super) const SOURCES: &str = concat!(
    include_str!("mod.rs"),
    include_str!("values.rs"),
    include_str!("solver.rs"),
    include_str!("strata.rs"),
    include_str!("eval.rs"),
    include_str!("bindings.rs"),
    include_str!("classes.rs"),
    include_str!("calls.rs"),
    include_str!("operators.rs"),
    include_str!("library.rs"),
    include_str!("emit.rs"),
    include_str!("by_name.rs"),
);

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

struct FileCtx<'a> {
    file: u32,
    facts: &'a FileFacts,
    py: &'a PyFacts,
    base: RawDeclId,
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
    /// The `Var` slots some assignment, definition or import statement
    /// writes (module-level ones also under their unversioned name).
    static_binds: HashSet<Slot>,
    decl_kind: Vec<DeclKind>,
    /// By declaration: the file context that declares it (`u32::MAX`: none).
    decl_ctx: Vec<u32>,
    decl_local: Vec<u32>,
    changed: bool,
    /// Resolved direct bases of each class, as last computed by its ClassBases constraint.
    class_bases: HashMap<RawDeclId, Vec<RawDeclId>>,
    /// Bases found since the hierarchy's last epoch, which take effect at the next.
    pending_bases: HashMap<RawDeclId, Vec<RawDeclId>>,
    /// Classes whose body binds a name (methods, class attributes).
    class_definers: HashMap<GSym, Vec<RawDeclId>>,
    /// Classes whose instances had an attribute assigned, by name.
    inst_definers: HashMap<GSym, Vec<RawDeclId>>,
    hierarchy_dirty: bool,
    /// (file context, function, parameter, fixture) for parameters pytest fills.
    fixture_uses: Vec<(usize, RawDeclId, GSym, RawDeclId)>,
    constraints: Vec<Constraint>,
    current: std::cell::Cell<u32>,
    worklist: Vec<u32>,
    /// Queued constraints that read many slots: run only when `worklist`
    /// is empty, so one run takes in many growths instead of one each.
    heavy_worklist: Vec<u32>,
    /// By constraint: its last run read more than [`values::HEAVY_READS`] slots.
    heavy: Vec<bool>,
    queued: Vec<bool>,
    /// By declaration: its MRO, once walked.
    mro_cache: Vec<Option<std::rc::Rc<[RawDeclId]>>>,
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
    class_body_names: HashSet<(RawDeclId, GSym)>,
    /// (class, name) for every `self.name = …` in the class's methods:
    /// attributes its instances have even when no value is known for them
    /// (`self.conn = None`), which `__getattr__` is not asked for.
    self_attrs: HashSet<(RawDeclId, GSym)>,
    /// Classes found to be enums. Only a yes is kept: a base may resolve
    /// later in the solve, so a no is asked again.
    enum_classes: HashSet<RawDeclId>,
    /// Global sites of set and tuple literals (other non-dict containers are lists).
    set_sites: HashSet<u32>,
    tuple_sites: HashSet<u32>,
    /// Parameters a function returns unchanged (`return fn` in a
    /// decorator), by function. A call's result takes them from that
    /// call's own arguments, so `@register` on fifty functions does not
    /// make each decorated name every one of the fifty.
    passthrough: HashMap<RawDeclId, Vec<GSym>>,
    /// Return flows (file context, flow) that return such a parameter.
    passthrough_flows: HashSet<(u32, u32)>,
    /// The defaults of those parameters: what a call that passes none
    /// gets back (`def step(self, fn=None)` called as a decorator factory
    /// hands back None, not every function any other call passed).
    passthrough_defaults: HashMap<(RawDeclId, GSym), ExprId>,
    /// First container site past every expression: the `*args` and
    /// `**kwargs` containers of each function are numbered from here.
    packed_base: u32,
    /// The questions fallbacks wait on, answered between strata.
    strata: strata::Strata,
    /// While checking what the final state supports: the values each
    /// slot would be given, kept apart from the slots themselves.
    shadow: Option<Vec<values::Vals>>,
    /// By declaration: the slot ids of [`Slot::Mro`] and [`Slot::Subclasses`].
    class_slot_ids: [Vec<u32>; 2],
    /// With `RIPPLE_DEBUG_CONE`: per slot, the constraints that made it grow.
    writers: Option<Vec<Vec<u32>>>,
    /// Class-body names holding descriptors, once the emit pass asks.
    descriptor_names: Option<HashSet<GSym>>,
    /// Memo of [`Analysis::prefixed_methods`].
    prefixed: HashMap<String, Vec<GSym>>,
    /// For one file context: the names assigned what a call into code
    /// outside the repository returned (see `by_name`).
    library_made: Option<(usize, HashSet<(u32, Sym)>)>,
    /// `class_body_names` by class, once the emit pass asks.
    class_body_by_class: Option<HashMap<RawDeclId, Vec<GSym>>>,
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
    operator_memo: HashMap<(usize, usize), Vec<(RawDeclId, usize)>>,
    /// Memo of [`Analysis::star_sources`]: file → repository modules its
    /// module-level `from m import *` imports read.
    star_sources: HashMap<u32, std::rc::Rc<[u32]>>,
    /// `__class__` and `__init__`, interned once: `self.__class__(…)` is looked up often.
    dunder_class: GSym,
    dunder_init: GSym,
    dunder_getattr: GSym,
    /// Whether a class or module defines `__getattr__`, once the emit pass asks.
    getattr_hooks_exist: Option<bool>,
    /// Set while emitting, to ask whether a lookup finds the attribute
    /// without `__getattr__`.
    skip_getattr: bool,
    /// Classes with two or more bases: where a mixin meets the class that
    /// provides what it calls on `self`.
    multi_base: Vec<RawDeclId>,
    /// How many evaluations are under way, one inside another.
    eval_nesting: u32,
    /// Memo of [`Analysis::mixin_hosts`], dropped when the hierarchy changes.
    mixin_hosts: HashMap<RawDeclId, std::rc::Rc<[RawDeclId]>>,
    /// Memo of [`Analysis::definers_below`] by (class, name, instance
    /// attribute?): the subclasses found so far and how much of the
    /// definer list they cover. Dropped with the MRO cache.
    definers_below: HashMap<(RawDeclId, GSym, bool), DefinersBelow>,
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
type DefinersBelow = (usize, std::rc::Rc<[RawDeclId]>);

pub fn resolve(b: &mut Builder, files: &[SourceFile], py_files: &[u32], order: SolveOrder) {
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
        static_binds: HashSet::default(),
        decl_kind: b.res.decls.iter().map(|d| d.kind).collect(),
        decl_ctx: Vec::new(),
        decl_local: b.res.decls.iter().map(|d| d.local).collect(),
        changed: false,
        class_bases: HashMap::default(),
        pending_bases: HashMap::default(),
        class_definers: HashMap::default(),
        inst_definers: HashMap::default(),
        hierarchy_dirty: false,
        fixture_uses: Vec::new(),
        constraints: Vec::new(),
        current: std::cell::Cell::new(NO_CONSTRAINT),
        settled_targets: Vec::new(),
        exhausted: false,
        worklist: Vec::new(),
        heavy_worklist: Vec::new(),
        heavy: Vec::new(),
        queued: Vec::new(),
        mro_cache: vec![None; b.res.decls.len()],
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
        strata: strata::Strata::default(),
        shadow: None,
        class_slot_ids: [
            vec![NO_SLOT; b.res.decls.len()],
            vec![NO_SLOT; b.res.decls.len()],
        ],
        writers: std::env::var_os("RIPPLE_DEBUG_CONE").map(|_| Vec::new()),
        class_body_by_class: None,
        prefixed: HashMap::default(),
        library_made: None,
        descriptor_names: None,
        module_refs: HashMap::default(),
        submodules: HashMap::default(),
        star_sources: HashMap::default(),
        external_stars: HashMap::default(),
        zip_calls: HashMap::default(),
        zip_reading: Vec::new(),
        dunder_class: ANY_KEY,
        dunder_init: ANY_KEY,
        dunder_getattr: ANY_KEY,
        getattr_hooks_exist: None,
        skip_getattr: false,
        multi_base: Vec::new(),
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
            base: b.res.file_base[fi as usize].0,
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
    a.decl_ctx = b
        .res
        .decls
        .iter()
        .map(|d| {
            d.file
                .and_then(|f| a.ctx_of_file.get(&f.0))
                .map_or(u32::MAX, |&ci| ci as u32)
        })
        .collect();
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
    let mut file_constraints = Vec::with_capacity(a.files.len());
    for ci in 0..a.files.len() {
        let cs = a.constraints_of(ci);
        let start = a.constraints.len() as u32;
        a.constraints.extend(cs);
        file_constraints.push(start..a.constraints.len() as u32);
    }
    a.queued = vec![false; a.constraints.len()];
    a.heavy = vec![false; a.constraints.len()];
    a.strata = strata::Strata::new(a.constraints.len());
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
    let mut shuffle = match order {
        SolveOrder::Shuffled(seed) => Some(SplitMix(seed)),
        _ => None,
    };
    let mut sweep_order: Vec<u32> = a
        .imports_first()
        .into_iter()
        .flat_map(|ci| file_constraints[ci].clone())
        .collect();
    match (order, shuffle.as_mut()) {
        (SolveOrder::Reversed, _) => sweep_order.reverse(),
        (_, Some(rng)) => {
            for i in (1..sweep_order.len()).rev() {
                sweep_order.swap(i, rng.below(i + 1));
            }
        }
        _ => {}
    }
    // The class hierarchy first: the bindings of module and class names
    // and the classes' bases, to a fixpoint, and its first epoch. Found
    // during the full sweep instead, the bases of thousands of classes
    // took effect only after it, and everything that had walked an MRO
    // through them ran again.
    let hierarchy_first: Vec<u32> = sweep_order
        .iter()
        .copied()
        .filter(|&id| a.binds_hierarchy(id))
        .collect();
    for id in hierarchy_first {
        run(&mut a, id);
    }
    let budget = a.constraints.len().saturating_mul(MAX_ROUNDS);
    let mut steps = 0usize;
    while steps <= budget
        && let Some(id) = a.worklist.pop().or_else(|| a.heavy_worklist.pop())
    {
        a.queued[id as usize] = false;
        run(&mut a, id);
        steps += 1;
    }
    if debug {
        eprintln!("hierarchy pass {:?}, {steps} steps", t.elapsed());
    }
    let mut epochs = 0usize;
    if a.hierarchy_dirty {
        epochs += 1;
        a.commit_hierarchy();
    }
    for id in sweep_order {
        run(&mut a, id);
    }
    let sweep = t.elapsed();
    crate::memory::trace("py sweep");
    loop {
        while let Some(id) = match shuffle.as_mut() {
            Some(rng) if !a.worklist.is_empty() => {
                let i = rng.below(a.worklist.len());
                Some(a.worklist.swap_remove(i))
            }
            _ => a.worklist.pop().or_else(|| a.heavy_worklist.pop()),
        } {
            a.queued[id as usize] = false;
            run(&mut a, id);
            steps += 1;
            if steps > budget {
                break;
            }
        }
        if !a.hierarchy_dirty || steps > budget {
            if steps <= budget && a.close_stratum() {
                continue;
            }
            a.exhausted = steps > budget;
            break;
        }
        epochs += 1;
        if debug {
            eprintln!(
                "epoch {epochs} at {steps} steps: {} classes re-based",
                a.pending_bases.len()
            );
        }
        a.commit_hierarchy();
    }
    if debug {
        let table = a.slots.borrow();
        let big = table.vals.iter().filter(|v| values::is_full(v)).count();
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
    if let Some(suffix) = std::env::var_os("RIPPLE_DEBUG_CONE") {
        a.report_cone(files, &suffix.to_string_lossy());
    }
    if std::env::var_os("RIPPLE_DEBUG_UNSUPPORTED").is_some() {
        a.report_unsupported(b);
    }
    if let Some(path) = std::env::var_os("RIPPLE_DEBUG_SLOTS") {
        a.dump_slots(b, std::path::Path::new(&path));
    }
    if std::env::var_os("RIPPLE_DEBUG_SATURATED").is_some() {
        a.print_saturated(b);
    }
    b.res.work.python_constraints = a.constraints.len();
    b.res.work.python_worklist_steps = steps;
    b.res.work.python_hierarchy_epochs = epochs;
    b.res.work.python_strata = a.strata.count;
    a.mro_cache.fill(None);
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

/// A small deterministic generator (SplitMix64) for [`SolveOrder::Shuffled`].
struct SplitMix(u64);

impl SplitMix {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z % n as u64) as usize
    }
}

//! The fixpoint: the constraints each file's flow facts become, the seeding
//! of definitions and imports, and running one constraint (which writes
//! what it computes and queues the readers of every slot that grew).

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::lang::python::{ExprId, ParamKind, PyCallKind, PyExpr, PyFlow};
use crate::model::{DeclKind, Sym};
use crate::resolve::{Builder, RawDeclId};

use super::Analysis;
use super::operators::{INPLACE_OPERATORS, PLAIN_OPERATORS};
use super::values::{ANY_CLASS, ANY_KEY, GSym, Slot, Value, is_full, is_library};

impl Analysis<'_> {
    /// Facts true before any flow: methods receive their class's instances
    /// as `self` (or the class as `cls`), parameters are not static, and
    /// slots written by anything but a definition or an import are dynamic.
    pub(super) fn seed(&mut self) {
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
                if let PyFlow::Assign { target, .. } = flow
                    && let PyExpr::Var { scope, name } = py.exprs[*target as usize]
                {
                    let scope = self.gdecl(ci, scope);
                    let name = self.gsym(ci, name);
                    let plain = self.unversioned(name);
                    self.static_binds.insert(Slot::Var(scope, name));
                    self.static_binds.insert(Slot::Var(scope, plain));
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

    /// With `RIPPLE_DEBUG_CONE=SUFFIX`: how much of the solve an edit of the
    /// files whose path ends with SUFFIX could reach. Every constraint of
    /// those files, every slot they made grow, every constraint that read
    /// one of those slots, and so on; then the constraints that also wrote
    /// into a reached slot, which a delete-and-rederive refresh would run
    /// again to put back what they contributed.
    pub(super) fn report_cone(&self, files: &[crate::resolve::SourceFile], suffix: &str) {
        let Some(writers) = self.writers.as_ref() else {
            return;
        };
        let table = self.slots.borrow();
        let mut writes: Vec<Vec<u32>> = vec![Vec::new(); self.constraints.len()];
        for (slot, ws) in writers.iter().enumerate() {
            for &w in ws {
                if let Some(list) = writes.get_mut(w as usize) {
                    list.push(slot as u32);
                }
            }
        }
        let mut reached_c = vec![false; self.constraints.len()];
        let mut reached_s = vec![false; table.vals.len()];
        let mut stack: Vec<u32> = Vec::new();
        let mut seeds = 0usize;
        for (id, c) in self.constraints.iter().enumerate() {
            let f = &self.files[c.ci as usize];
            if files[f.file as usize].path.ends_with(suffix) {
                reached_c[id] = true;
                stack.push(id as u32);
                seeds += 1;
            }
        }
        while let Some(c) = stack.pop() {
            for &s in &writes[c as usize] {
                if std::mem::replace(&mut reached_s[s as usize], true) {
                    continue;
                }
                for &r in table
                    .readers
                    .get(s as usize)
                    .map(Vec::as_slice)
                    .unwrap_or(&[])
                {
                    if r != NO_CONSTRAINT && !std::mem::replace(&mut reached_c[r as usize], true) {
                        stack.push(r);
                    }
                }
            }
        }
        let cone_c = reached_c.iter().filter(|&&r| r).count();
        let cone_s = reached_s.iter().filter(|&&r| r).count();
        let mut rerun = reached_c.clone();
        for (slot, ws) in writers.iter().enumerate() {
            if reached_s.get(slot).copied().unwrap_or(false) {
                for &w in ws {
                    if let Some(r) = rerun.get_mut(w as usize) {
                        *r = true;
                    }
                }
            }
        }
        let rerun = rerun.iter().filter(|&&r| r).count();
        let mut touched_files: HashSet<u32> = HashSet::default();
        for (id, &r) in reached_c.iter().enumerate() {
            if r {
                touched_files.insert(self.constraints[id].ci);
            }
        }
        eprintln!(
            "cone of *{suffix}: {seeds} own constraints; reaches {cone_s} of {} slots, {cone_c} of {} constraints in {} of {} files; {rerun} constraints run again",
            table.vals.len(),
            self.constraints.len(),
            touched_files.len(),
            self.files.len(),
        );
    }

    /// With `RIPPLE_DEBUG_SATURATED`: every value set that went past its
    /// cap, named.
    pub(super) fn print_saturated(&self, b: &Builder) {
        let table = self.slots.borrow();
        let mut names: Vec<String> = table
            .ids
            .iter()
            .filter(|(_, id)| is_full(&table.vals[**id as usize]))
            .map(|(slot, _)| self.slot_name(b, *slot))
            .collect();
        names.sort();
        for name in names {
            eprintln!("SAT {name}");
        }
    }

    /// With `RIPPLE_DEBUG_SLOTS=FILE`: every slot that holds a value, one
    /// per line, named and sorted, so two solves of the same facts can be
    /// compared with `diff` (how order-dependence is tracked down).
    pub(super) fn dump_slots(&self, b: &Builder, path: &std::path::Path) {
        let value = |v: &Value| match *v {
            Value::External(g) => format!("X:{}", self.sym_name(g)),
            Value::Builtin(g) => format!("b:{}", self.sym_name(g)),
            Value::DictMethod { site, name } => {
                format!("DictMethod:{site}:{}", self.sym_name(name))
            }
            Value::SeqMethod { site, name } => format!("SeqMethod:{site}:{}", self.sym_name(name)),
            Value::MethodCaller(g) => format!("MethodCaller:{}", self.sym_name(g)),
            other => format!("{other:?}"),
        };
        let table = self.slots.borrow();
        let mut lines: Vec<String> = table
            .ids
            .iter()
            .filter(|(_, id)| !table.vals[**id as usize].is_empty())
            .map(|(slot, &id)| {
                let mut vals: Vec<String> = table.vals[id as usize].iter().map(value).collect();
                vals.sort();
                format!("{} => {}", self.slot_name(b, *slot), vals.join(" "))
            })
            .collect();
        lines.sort();
        lines.push(String::new());
        if let Err(e) = std::fs::write(path, lines.join("\n")) {
            eprintln!("RIPPLE_DEBUG_SLOTS: cannot write {}: {e}", path.display());
        }
    }

    /// A string of the solve by its id, or `$id` for a pseudo-key.
    fn sym_name(&self, g: GSym) -> String {
        self.strings
            .get(g as usize)
            .cloned()
            .unwrap_or_else(|| format!("${g}"))
    }

    /// A slot named by its declaration's qualified name and its strings.
    fn slot_name(&self, b: &Builder, slot: Slot) -> String {
        let decl = |d: RawDeclId| {
            b.res
                .decls
                .get(d as usize)
                .map(|x| x.name.to_string())
                .unwrap_or_else(|| format!("#{d}"))
        };
        match slot {
            Slot::Var(d, g) => format!("Var({}, {})", decl(d), self.sym_name(g)),
            Slot::InstAttr(d, g) => format!("InstAttr({}, {})", decl(d), self.sym_name(g)),
            Slot::Ret(d) => format!("Ret({})", decl(d)),
            Slot::Yield(d) => format!("Yield({})", decl(d)),
            Slot::Elem(site, g) => format!("Elem({site}, {})", self.sym_name(g)),
            Slot::Question(q) => format!("{q:?}"),
            Slot::Mro(d) => format!("Mro({})", decl(d)),
            Slot::Subclasses(d) => format!("Subclasses({})", decl(d)),
            Slot::BaseValues(d) => format!("BaseValues({})", decl(d)),
        }
    }

    /// With `RIPPLE_DEBUG_UNSUPPORTED=1`: seed and run every constraint
    /// once more against the solved state, with what they write kept
    /// apart, and print each slot holding values that nothing derives
    /// from that state. A monotone solve has none; each one found is left
    /// over from an earlier, different state, where the graph can depend
    /// on the order constraints ran in.
    pub(super) fn report_unsupported(&mut self, b: &Builder) {
        self.shadow = Some(Vec::new());
        // Seeding resets each literal's keys to those written in it; the
        // keys the solve added since stay.
        let keys = self.container_keys.clone();
        self.seed();
        self.container_keys = keys;
        for id in 0..self.constraints.len() as u32 {
            self.run(id);
        }
        let shadow = self.shadow.take().unwrap_or_default();
        let table = self.slots.borrow();
        let mut found = 0usize;
        for (slot, &id) in &table.ids {
            let derived = shadow.get(id as usize).cloned().unwrap_or_default();
            let covered = |v: &Value| {
                derived.contains(v)
                    || derived.contains(&Value::Top)
                    || (is_library(v) && derived.contains(&Value::Library))
            };
            let left_over: Vec<&Value> = table.vals[id as usize]
                .iter()
                .filter(|v| !covered(v))
                .collect();
            if left_over.is_empty() {
                continue;
            }
            found += 1;
            eprintln!(
                "unsupported {}: {left_over:?}, derived {derived:?}",
                self.slot_name(b, *slot)
            );
        }
        eprintln!("{found} slots hold values the solved state does not derive");
    }

    /// Find the literals of constants whose name is written through in the
    /// same file: `b = [None]` then `b[0] = func` or `b.append(func)`.
    /// Names are compared without their version (`b@1` is `b`).
    pub(super) fn find_filled_sites(&mut self, ci: usize) {
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

    /// Every constraint of a file: its flows, container literals and calls.
    pub(super) fn constraints_of(&self, ci: usize) -> Vec<Constraint> {
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

    /// The files in the order the first sweep runs their constraints: each
    /// after the modules it imports (cycles in file order), so that an
    /// imported name usually has its value before its readers first run.
    /// In file order, every test module of a library's suite read
    /// `unittest.TestCase` before `unittest/__init__.py` bound it, and ran
    /// again when it did: 85,000 of the 858k-line CPython library's
    /// worklist steps for that one name.
    pub(super) fn imports_first(&mut self) -> Vec<usize> {
        let n = self.files.len();
        let mut imports: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (ci, list) in imports.iter_mut().enumerate() {
            let py = self.files[ci].py;
            for e in &py.exprs {
                if let PyExpr::ModuleRef { level, path } = *e
                    && let Some(Value::Module(f)) = self.module_ref(ci, level, path)
                    && let Some(&cj) = self.ctx_of_file.get(&f)
                    && cj != ci
                {
                    list.push(cj);
                }
            }
            list.sort_unstable();
            list.dedup();
        }
        dependencies_first(&imports)
    }

    /// Whether constraint `id` resolves a class's bases or binds a name at
    /// module or class level, which is what base expressions read.
    pub(super) fn binds_hierarchy(&self, id: u32) -> bool {
        let c = self.constraints[id as usize];
        match c.kind {
            ConsKind::ClassBases => true,
            ConsKind::Flow => {
                let f = &self.files[c.ci as usize];
                match f.py.flows[c.idx as usize] {
                    PyFlow::Assign { target, .. } => match f.py.exprs[target as usize] {
                        PyExpr::Var { scope, .. } => matches!(
                            f.facts.decls.get(scope as usize).map(|d| d.kind),
                            Some(DeclKind::Module | DeclKind::Class)
                        ),
                        _ => false,
                    },
                    _ => false,
                }
            }
            _ => false,
        }
    }

    /// Evaluate one constraint, recording the slots it reads so that it is
    /// evaluated again when (and only when) one of them grows.
    pub(super) fn run(&mut self, id: u32) {
        let c = self.constraints[id as usize];
        self.current.set(id);
        self.slots.get_mut().reads = 0;
        self.strata.forget(id);
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
                let old = self
                    .pending_bases
                    .get(&class)
                    .or_else(|| self.class_bases.get(&class))
                    .cloned()
                    .unwrap_or_default();
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
                    // The hierarchy changes only between epochs, when the
                    // worklist is empty: lookups along an MRO that changed
                    // while they ran would keep what the older one gave,
                    // and the graph would depend on the order. Re-walking
                    // every hierarchy user on each change would also be
                    // quadratic.
                    self.pending_bases.insert(class, merged);
                    self.hierarchy_dirty = true;
                }
            }
        }
        self.current.set(NO_CONSTRAINT);
        if self.slots.get_mut().reads > super::values::HEAVY_READS
            && let Some(heavy) = self.heavy.get_mut(id as usize)
        {
            *heavy = true;
        }
    }

    /// Start a new epoch of the hierarchy: the bases found since the last
    /// one take effect, and what walked a part of it that changed runs again.
    pub(super) fn commit_hierarchy(&mut self) {
        let mut pending: Vec<(RawDeclId, Vec<RawDeclId>)> = self.pending_bases.drain().collect();
        pending.sort_unstable_by_key(|(class, _)| *class);
        let rebased: HashSet<RawDeclId> = pending.iter().map(|(class, _)| *class).collect();
        for (class, bases) in pending {
            if bases.len() >= 2 && !self.multi_base.contains(&class) {
                self.multi_base.push(class);
            }
            self.class_bases.insert(class, bases);
        }
        self.hierarchy_dirty = false;
        // Only the MROs through a re-based class change, and only the
        // classes on the old or new MRO of one of those gain or lose a
        // subclass: the rest of what was walked still holds, so its walkers
        // are left alone (re-running every walker made one new base on a
        // big test suite cost a third of the solve).
        let mut changed: Vec<RawDeclId> = self
            .mro_cache
            .iter()
            .enumerate()
            .filter_map(|(c, mro)| Some((c as RawDeclId, mro.as_ref()?)))
            .filter(|(c, mro)| rebased.contains(c) || mro.iter().any(|k| rebased.contains(k)))
            .map(|(c, _)| c)
            .chain(rebased.iter().copied())
            .collect();
        changed.sort_unstable();
        changed.dedup();
        let mut ancestors: Vec<RawDeclId> = Vec::new();
        for &c in &changed {
            if let Some(old) = self.mro_cache.get_mut(c as usize).and_then(Option::take) {
                ancestors.extend(old.iter().copied());
            }
        }
        for &c in &changed {
            let new = self.mro(c);
            ancestors.extend(new.iter().copied());
        }
        ancestors.sort_unstable();
        ancestors.dedup();
        self.mixin_hosts.clear();
        self.definers_below.clear();
        for c in changed {
            self.notify(Slot::Mro(c));
        }
        for c in ancestors {
            self.notify(Slot::Subclasses(c));
        }
    }

    pub(super) fn write(&mut self, ci: usize, target: ExprId, vals: &[Value]) {
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

    /// Find functions that return one of their parameters unchanged: a
    /// `return p` where `p` is a parameter nothing in the file rebinds.
    pub(super) fn find_passthrough_returns(&mut self) {
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
}

pub(super) const NO_CONSTRAINT: u32 = u32::MAX;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ConsKind {
    Flow,
    Container,
    Call,
    /// Resolve a class's bases; a change reshapes the hierarchy.
    ClassBases,
    /// A test (or fixture) parameter named like a pytest fixture receives its value.
    Fixture,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Constraint {
    pub(super) ci: u32,
    pub(super) kind: ConsKind,
    pub(super) idx: u32,
}

/// Methods that put values into a list, set or dict.
pub(super) const FILLING_METHODS: &[&str] =
    &["append", "insert", "extend", "add", "update", "setdefault"];

/// The nodes of a directed graph, each after every node it reaches unless
/// both are on one cycle (Tarjan's strongly connected components, which
/// come out reachable-first; a component's own nodes in index order).
/// Iterative, so an import chain thousands of modules long cannot
/// overflow the stack.
pub(super) fn dependencies_first(edges: &[Vec<usize>]) -> Vec<usize> {
    const UNSEEN: usize = usize::MAX;
    let n = edges.len();
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut order = Vec::with_capacity(n);
    let mut next = 0usize;
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        // (node, how many of its edges were followed)
        let mut calls: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut followed)) = calls.last_mut() {
            if let Some(&w) = edges[v].get(*followed) {
                *followed += 1;
                if index[w] == UNSEEN {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    calls.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(parent, _)) = calls.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let start = stack.iter().rposition(|&x| x == v).unwrap_or(0);
                let mut component: Vec<usize> = stack.drain(start..).collect();
                for &x in &component {
                    on_stack[x] = false;
                }
                component.sort_unstable();
                order.extend(component);
            }
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::dependencies_first;

    #[test]
    fn imported_modules_come_before_their_importers() {
        // 0 imports 2, 2 imports 1; 3 and 4 import each other and 1.
        let edges = vec![vec![2], vec![], vec![1], vec![4, 1], vec![3]];
        let order = dependencies_first(&edges);
        let pos = |x: usize| order.iter().position(|&y| y == x).unwrap();
        assert_eq!(order.len(), 5);
        assert!(pos(1) < pos(2) && pos(2) < pos(0));
        assert!(pos(1) < pos(3) && pos(1) < pos(4));
        // A cycle's members stay together, in index order.
        assert_eq!(pos(4), pos(3) + 1);
    }

    #[test]
    fn a_long_import_chain_does_not_overflow() {
        let n = 200_000;
        let edges: Vec<Vec<usize>> = (0..n)
            .map(|i| if i + 1 < n { vec![i + 1] } else { vec![] })
            .collect();
        let order = dependencies_first(&edges);
        assert_eq!(order.first(), Some(&(n - 1)));
        assert_eq!(order.last(), Some(&0));
    }
}

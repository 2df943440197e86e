//! Emitting: each solved call site's targets become edges with their
//! confidence; the calls Python makes on its own (`__init_subclass__`,
//! `__set_name__`, descriptors, properties, `__getattr__`) are added, and a
//! call site with no target is recorded with the reason.

use rustc_hash::FxHashSet as HashSet;
use smallvec::SmallVec;

use crate::lang::python::{ExprId, PropertyPart, PyCallKind, PyExpr, PyFacts};
use crate::model::{Confidence, DeclKind};
use crate::resolve::{Builder, FileId, RawDeclId};

use super::Analysis;
use super::calls::{Target, function_and_shift};
use super::library::{FUNCTOOLS_REDUCE, is_member_of_class, never_calls_its_arguments};
use super::values::{GSym, MAX_CALLABLES, MAX_SET, Slot, Value, is_full};

impl Analysis<'_> {
    pub(super) fn emit(&mut self, b: &mut Builder) {
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
                    && self.getattr_hooks_exist()
                {
                    let name = self.gsym(ci, name);
                    let hooks = self.module_getattr_hooks(m);
                    if !hooks.is_empty() && !self.found_without_getattr(Value::Module(m), name) {
                        let importer = self.gdecl(ci, imp.scope);
                        let mut seen = HashSet::default();
                        implicit_edges(b, &mut seen, importer, &hooks, file);
                    }
                }
            }
            b.res
                .imports
                .extend(imported.into_iter().map(|m| (FileId(file), FileId(m))));
            for call in 0..py.calls.len() {
                let caller = self.gdecl(ci, facts.calls[call].caller);
                let settled = self.files[ci].call_base as usize + call;
                let targets = match self.settled_targets.get_mut(settled).and_then(Option::take) {
                    Some(targets) if !self.exhausted => targets.into_vec(),
                    _ => self.call_targets(ci, call),
                };
                let kind = py.calls[call].kind;
                let mut decls: Vec<RawDeclId> = Vec::new();
                // Registered implementations run by the argument's type,
                // which the flow does not decide: every one is a candidate.
                let mut dispatched = false;
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
                        dispatched = true;
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
                if targets.iter().any(|t| matches!(t, Target::Truncated)) {
                    b.unresolved(
                        caller,
                        file,
                        call as u32,
                        format!(
                            "the callee may be any of more values than are kept ({MAX_SET}, or \
                             {MAX_CALLABLES} functions and classes)"
                        ),
                    );
                    continue;
                }
                if decls.is_empty() && kind == PyCallKind::Plain && !has_class {
                    let by_name = self.methods_by_name(ci, call, caller);
                    if !by_name.is_empty() {
                        for callee in by_name {
                            b.edge(caller, callee, Confidence::Possible, file, call as u32);
                        }
                        b.receiver_unknown(file, call as u32);
                        continue;
                    }
                }
                if decls.is_empty() {
                    if matches!(kind, PyCallKind::Plain | PyCallKind::Decorator) && !has_class {
                        let reason = self.unresolved_reason(b, ci, call);
                        b.unresolved(caller, file, call as u32, reason);
                    }
                    continue;
                }
                if decls.len() > 1 {
                    let known = match kind {
                        PyCallKind::Plain if !dispatched => {
                            self.targets_known_through_flow(ci, call)
                        }
                        // `__enter__` and `__exit__`, or `__iter__` and
                        // `__next__`, of the classes the value may be: each
                        // class's own, found up its MRO.
                        PyCallKind::With | PyCallKind::Iter
                            if self
                                .callee_values(ci, call)
                                .iter()
                                .all(|v| matches!(v, Value::Instance(_) | Value::Cone(_))) =>
                        {
                            KnownTargets::Every
                        }
                        _ => KnownTargets::Only(Vec::new()),
                    };
                    for callee in decls {
                        let confidence = if known.contains(callee) {
                            Confidence::Likely
                        } else {
                            Confidence::Possible
                        };
                        b.edge(caller, callee, confidence, file, call as u32);
                    }
                    continue;
                }
                let confidence = if matches!(kind, PyCallKind::Plain | PyCallKind::Decorator)
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

    /// Of a call's several targets, those a value the flow knows gives:
    /// every target when the receiver is one of a few instances, classes
    /// or modules (`shape.area()` with `shape` a `Circle` or a `Square`) or
    /// the callee one of a few functions or classes; for a receiver
    /// standing for a class and its subclasses (`self`), the method the
    /// class itself has. Those are `likely`, like a single inferred
    /// target. The rest are `possible`: overrides in subclasses, which run
    /// only for some instances, and every target of a call whose receiver
    /// or callee may also be something from outside the repository.
    fn targets_known_through_flow(&mut self, ci: usize, call: usize) -> KnownTargets {
        let py = self.files[ci].py;
        let callee = py.calls[call].callee;
        let PyExpr::Attr { base, name } = py.exprs[callee as usize] else {
            let every_value_known = self
                .callee_values(ci, call)
                .iter()
                .all(|v| matches!(v, Value::Func(_) | Value::Class(_) | Value::Partial { .. }));
            return if every_value_known {
                KnownTargets::Every
            } else {
                KnownTargets::Only(Vec::new())
            };
        };
        let receivers = self.eval(ci, base, 1);
        let known_receiver =
            |v: &Value| matches!(v, Value::Instance(_) | Value::Class(_) | Value::Module(_));
        if receivers.iter().all(known_receiver) {
            return KnownTargets::Every;
        }
        let name = self.gsym(ci, name);
        let mut own = Vec::new();
        for v in receivers {
            let exact = match v {
                Value::Cone(c) => Value::Instance(c),
                v if known_receiver(&v) => v,
                _ => return KnownTargets::Only(Vec::new()),
            };
            for member in self.attr(exact, name, 1) {
                if let Value::Func(f)
                | Value::Bound { func: f, .. }
                | Value::Partial { func: f, .. } = member
                {
                    own.push(f);
                }
            }
        }
        KnownTargets::Only(own)
    }

    /// Reading a property calls its getter and assigning it its setter: an
    /// edge from the function that does it, with no call site of its own
    /// (the access is not a call in the source).
    /// Defining a subclass calls `__init_subclass__` of the first base
    /// above it that has one.
    pub(super) fn emit_init_subclass(&mut self, b: &mut Builder, ci: usize) {
        let hook = self.intern("__init_subclass__");
        if !self.class_definers.contains_key(&hook) {
            return;
        }
        // `type.__new__` runs the hook: inside a repository metaclass's
        // `__new__` (its `super().__new__(…)`) when there is one.
        let dunder_new = self.intern("__new__");
        self.emit_class_statement_calls(b, ci, |a, class| {
            let bases = a.class_bases.get(&class).cloned().unwrap_or_default();
            let mut hooks: Vec<RawDeclId> = Vec::new();
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
    pub(super) fn emit_metaclass_hooks(&mut self, b: &mut Builder, ci: usize) {
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
    pub(super) fn emit_set_name(&mut self, b: &mut Builder, ci: usize) {
        let hook = self.intern("__set_name__");
        if !self.class_definers.contains_key(&hook) {
            return;
        }
        self.emit_class_statement_calls(b, ci, |a, class| {
            let names = a.class_body_names_of(class);
            let mut hooks: Vec<RawDeclId> = Vec::new();
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
    pub(super) fn emit_class_statement_calls(
        &mut self,
        b: &mut Builder,
        ci: usize,
        mut called: impl FnMut(&mut Self, RawDeclId) -> (Vec<RawDeclId>, Vec<RawDeclId>),
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
    pub(super) fn emit_descriptor_accesses(&mut self, b: &mut Builder, ci: usize) {
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
        let mut seen: HashSet<(RawDeclId, RawDeclId)> = HashSet::default();
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
            let mut called: Vec<RawDeclId> = Vec::new();
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
    pub(super) fn emit_attribute_hooks(&mut self, b: &mut Builder, ci: usize) {
        let hooks = ["__setattr__", "__delattr__"].map(|h| self.intern(h));
        if !hooks.iter().any(|h| self.class_definers.contains_key(h)) {
            return;
        }
        let py = self.files[ci].py;
        let file = self.files[ci].file;
        let mut seen: HashSet<(RawDeclId, RawDeclId)> = HashSet::default();
        for ((caller, expr), hook) in attribute_accesses(py, [None, Some(hooks[0]), Some(hooks[1])])
        {
            let Some(hook) = hook.filter(|h| self.class_definers.contains_key(h)) else {
                continue;
            };
            let Some(&PyExpr::Attr { base, .. }) = py.exprs.get(expr as usize) else {
                continue;
            };
            let mut called: Vec<RawDeclId> = Vec::new();
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
    pub(super) fn find_descriptor_names(&mut self, hooks: &[GSym]) -> HashSet<GSym> {
        let mut out = HashSet::default();
        let pairs: Vec<(RawDeclId, GSym)> = self.class_body_names.iter().copied().collect();
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

    pub(super) fn emit_property_reads(&mut self, b: &mut Builder, ci: usize) {
        if self.property_names.is_empty() {
            return;
        }
        let py = self.files[ci].py;
        let file = self.files[ci].file;
        let mut seen: HashSet<(RawDeclId, RawDeclId)> = HashSet::default();
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

    /// Whether some class or module of the repository defines `__getattr__`.
    pub(super) fn getattr_hooks_exist(&mut self) -> bool {
        if let Some(exist) = self.getattr_hooks_exist {
            return exist;
        }
        let getattr = self.dunder_getattr;
        let exist = self.class_definers.contains_key(&getattr)
            || (0..self.files.len()).any(|ci| self.binds(self.gdecl(ci, 0), getattr));
        self.getattr_hooks_exist = Some(exist);
        exist
    }

    /// Whether `name` on `v` is found without asking a `__getattr__`:
    /// by a lookup, or because its class defines the attribute even where
    /// no value of it is known (`self.conn = None`).
    pub(super) fn found_without_getattr(&mut self, v: Value, name: GSym) -> bool {
        if let Value::Instance(c) | Value::Cone(c) = v
            && self.has_attribute(c, name)
        {
            return true;
        }
        self.skip_getattr = true;
        let direct = self.attr_members(v, name, 1);
        self.skip_getattr = false;
        !direct.is_empty()
    }

    /// Reading an attribute an instance lacks calls its class's
    /// `__getattr__`: an edge from the function that reads it, as for a
    /// property's getter.
    pub(super) fn emit_getattr_reads(&mut self, b: &mut Builder, ci: usize) {
        if !self.getattr_hooks_exist() {
            return;
        }
        let py = self.files[ci].py;
        let file = self.files[ci].file;
        let mut seen: HashSet<(RawDeclId, RawDeclId)> = HashSet::default();
        for &(caller, expr) in &py.attr_loads {
            let Some(&PyExpr::Attr { base, name }) = py.exprs.get(expr as usize) else {
                continue;
            };
            let name = self.gsym(ci, name);
            if !self.may_ask_getattr(name) {
                continue;
            }
            let caller = self.gdecl(ci, caller);
            let mut hooks: SmallVec<[RawDeclId; 1]> = SmallVec::new();
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
    pub(super) fn note_handed_out(
        &mut self,
        b: &mut Builder,
        ci: usize,
        call: usize,
        caller: RawDeclId,
    ) {
        let c = &self.files[ci].py.calls[call];
        let file = self.files[ci].file;
        let args: Vec<ExprId> = c
            .args
            .iter()
            .copied()
            .chain(c.kwargs.iter().map(|&(_, e)| e))
            .chain(c.splats.iter().map(|s| s.expr))
            .collect();
        let mut seen: SmallVec<[RawDeclId; 2]> = SmallVec::new();
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

    pub(super) fn unresolved_reason(&mut self, b: &Builder, ci: usize, call: usize) -> String {
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
                } else if is_full(&bases) {
                    format!(
                        "the receiver of `.{}` may be any of more values than are kept ({MAX_SET})",
                        facts.sym(*name)
                    )
                } else if let Some(Value::External(path)) = bases.first().copied()
                    && is_member_of_class(&self.strings[path as usize])
                {
                    format!(
                        "the receiver of `.{}` is `{}`, an attribute of a library class whose \
                         type ripple does not know",
                        facts.sym(*name),
                        self.strings[path as usize]
                    )
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

/// Edges for calls the source does not spell (a property's accessor, a
/// `__getattr__`), with no call site: `Likely`, or `Possible` when there
/// are several candidates.
/// A file's attribute reads, assignments and deletions, each with what
/// it stands for (`[read, assign, delete]`).
/// The targets of a call with several that come from values the flow
/// knows (see `targets_known_through_flow`).
enum KnownTargets {
    Every,
    Only(Vec<RawDeclId>),
}

impl KnownTargets {
    fn contains(&self, decl: RawDeclId) -> bool {
        match self {
            KnownTargets::Every => true,
            KnownTargets::Only(decls) => decls.contains(&decl),
        }
    }
}

pub(super) fn attribute_accesses<'a, T: Copy + 'a>(
    py: &'a PyFacts,
    [read, assign, delete]: [T; 3],
) -> impl Iterator<Item = ((u32, ExprId), T)> + 'a {
    py.attr_loads
        .iter()
        .map(move |&a| (a, read))
        .chain(py.attr_stores.iter().map(move |&a| (a, assign)))
        .chain(py.attr_deletes.iter().map(move |&a| (a, delete)))
}

pub(super) fn implicit_edges(
    b: &mut Builder,
    seen: &mut HashSet<(RawDeclId, RawDeclId)>,
    caller: RawDeclId,
    callees: &[RawDeclId],
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

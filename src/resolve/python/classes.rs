//! Classes: bases, MRO and subclasses, attribute lookup through classes
//! and instances (properties, `__getattr__`, metaclasses, `super()`),
//! binding a function to its receiver, enums and dataclasses.

use rustc_hash::FxHashMap as HashMap;
use smallvec::{SmallVec, smallvec};

use crate::lang::python::{ExprId, PropertyPart, PyExpr, PyFlow};
use crate::model::DeclKind;
use crate::resolve::RawDeclId;

use super::library::{DICT_ALL_METHODS, MODELLED_DICT_METHODS, builtin_type_member};
use super::operators::COMPARISONS;
use super::strata::Question;
use super::values::{ANY_CLASS, GSym, RUNTIME, Slot, Vals, Value, is_full, push_unique};
use super::{Analysis, qualified_name};

impl Analysis<'_> {
    /// Record the names each class body assigns (versions such as `x@2`
    /// left out: attribute lookups ask for plain names).
    pub(super) fn find_class_body_names(&mut self, ci: usize) {
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
    pub(super) fn is_enum(&mut self, c: RawDeclId) -> bool {
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

    /// `objects = Manager()` in a class body calls the descriptor's
    /// `__set_name__(self, owner, name)` with the class as `owner`
    /// (`self.model = owner`, then `self.model(**kw)` makes one).
    pub(super) fn bind_set_name_owner(&mut self, ci: usize, target: ExprId, vals: &[Value]) {
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

    /// Whether a class that defines `name` is above or below the class of
    /// instance, cone or class `v`.
    pub(super) fn in_hierarchy_of(&mut self, v: Value, name: GSym) -> bool {
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
    pub(super) fn prefixed_methods(&mut self, prefix: &str) -> Vec<GSym> {
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

    /// Methods named `name` on class `c` (through its MRO).
    pub(super) fn method_targets(&mut self, c: RawDeclId, name: GSym) -> Vec<RawDeclId> {
        let mut out = Vec::new();
        for v in self.class_attr(c, name) {
            if let Value::Func(f) = v {
                out.push(f);
            }
        }
        out
    }

    /// The value of `v.name`. A property read through an instance is what
    /// its getter returns, not the getter.
    pub(super) fn attr(&mut self, v: Value, name: GSym, depth: u32) -> Vals {
        // A library value's attribute is a library value.
        if v == Value::Library {
            return smallvec![Value::Library];
        }
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

    pub(super) fn is_property(&self, func: RawDeclId) -> bool {
        self.py_info(func).is_some_and(|(info, _)| info.is_property)
    }

    /// Which accessor a property's function is; `None` for any other function.
    pub(super) fn property_part(&self, func: RawDeclId) -> Option<PropertyPart> {
        self.py_info(func)
            .filter(|(info, _)| info.is_property)
            .map(|(info, _)| info.property_part)
    }

    /// The accessors of kind `part` that touching `base.name` calls, where
    /// `base` is an instance.
    pub(super) fn property_accessors(
        &mut self,
        ci: usize,
        base: ExprId,
        name: GSym,
        part: PropertyPart,
    ) -> Vec<RawDeclId> {
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

    pub(super) fn attr_members(&mut self, v: Value, name: GSym, depth: u32) -> Vals {
        if depth > 8 {
            return Vals::new();
        }
        if name == self.dunder_class && matches!(v, Value::Instance(_) | Value::Cone(_)) {
            return self.class_of(v);
        }
        match v {
            Value::Module(f) => {
                let decl = self.module_decl(f);
                let mut vals = self.get(Slot::Var(decl, name));
                // Where a module binds the name, its value is all there is,
                // even while it is still unknown: asking the fallbacks
                // whenever the slot is empty would keep whatever they gave
                // before it filled, so the graph would depend on the order
                // constraints run in. Other modules may still assign an
                // unbound name (`mod.x = v`); those values join the fallback's.
                // A submodule of the package is always a candidate:
                // `from . import cache` in `__init__.py` binds `cache`
                // to the very attribute being looked up.
                let submodule = self.submodule(f, name);
                if let Some(sf) = submodule {
                    push_unique(&mut vals, Value::Module(sf));
                }
                if self.binds(decl, name) {
                    return vals;
                }
                let found = if submodule.is_some() {
                    Vals::new()
                } else {
                    let mut seen = Vec::new();
                    let (found, bound) = self.star_lookup(f, name, &mut seen);
                    if bound {
                        found
                    } else {
                        let found = self.external_star_member(f, name, depth);
                        if found.is_empty() {
                            self.module_getattr_fallback(f, name)
                        } else {
                            found
                        }
                    }
                };
                for v in found {
                    push_unique(&mut vals, v);
                }
                vals
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
                // Decided by what the classes bind, not by what values are
                // known so far: "found" while the solve is still filling the
                // slots would keep what an emptier solve saw.
                let found_upward = self.has_attribute(c, name);
                // Overrides in subclasses: only classes that define `name` are candidates.
                let below = self.definers_below(c, name, false);
                let overridden = !below.is_empty();
                for &s in below.iter() {
                    for v in self.get(Slot::Var(s, name)) {
                        if let Value::Func(f) = v
                            && self.decl_kind[f as usize] == DeclKind::Method
                        {
                            let bound = self.bind_func(f, s, true);
                            push_unique(&mut out, bound);
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
                self.getattr_if_missing(c, name, out)
            }
            Value::Instance(c) => {
                let out = self.instance_members(c, name);
                self.getattr_if_missing(c, name, out)
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
                let mut bound_in_repository = false;
                for (recv, instance) in self.super_receivers(func, class) {
                    let mro = self.mro(recv);
                    let after = mro.iter().position(|&k| k == class).map_or(1, |i| i + 1);
                    // The next class whose body binds the name, as for
                    // any class attribute (see `repository_class_attr`).
                    for k in mro.iter().skip(after) {
                        for v in self.get(Slot::Var(*k, name)) {
                            let bound = match v {
                                Value::Func(f) => self.bind_func(f, recv, instance),
                                other => other,
                            };
                            push_unique(&mut out, bound);
                        }
                        if self.binds(*k, name) {
                            bound_in_repository = true;
                            break;
                        }
                    }
                }
                // No repository class after `class` defines it: the method
                // is the out-of-repository base's (`super().run()` in a
                // `threading.Thread` subclass is `threading.Thread.run`).
                if !bound_in_repository
                    && out.is_empty()
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
                if !bound_in_repository && out.is_empty() {
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
    pub(super) fn instance_members(&mut self, c: RawDeclId, name: GSym) -> Vals {
        // Methods of every class in the MRO write the same instance
        // dict, so their instance attributes are one namespace.
        let mro = self.mro(c);
        let mut inst = Vals::new();
        for k in mro.iter() {
            self.read_into(Slot::InstAttr(*k, name), &mut inst);
        }
        // The instance's values join what the class has (a class-level
        // default, an annotation, a method): returning the instance's
        // values whenever there were some would keep the class's from an
        // earlier, emptier solve.
        if matches!(self.strings[name as usize].as_str(), "value" | "_value_") && self.is_enum(c) {
            let values = self.enum_member_values(c);
            if !values.is_empty() {
                return values;
            }
        }
        // An attribute a method assigns to `self` is the instance's: an
        // out-of-repository base is not asked for it.
        let members = if mro.iter().any(|&k| self.self_attrs.contains(&(k, name))) {
            self.repository_class_attr(c, name).0
        } else {
            self.class_attr(c, name)
        };
        // A dataclass field's default (`fmt: Callable = plain`) is what
        // the generated `__init__` stores where a call passes none: a
        // value of the instance, not a method bound to it.
        let field = self.is_dataclass_field(c, name);
        let mut out = inst;
        for m in members {
            let member = match m {
                Value::Func(f) if field && self.decl_kind[f as usize] != DeclKind::Method => m,
                _ => self.bind_class_member(m, c, true),
            };
            push_unique(&mut out, member);
        }
        out
    }

    /// The `__getattr__` methods an instance of `c` has (its class's or
    /// a base's, in the repository).
    pub(super) fn getattr_hooks(&mut self, c: RawDeclId) -> SmallVec<[RawDeclId; 1]> {
        if !self.class_definers.contains_key(&self.dunder_getattr) {
            return SmallVec::new();
        }
        let found = self.class_attr(c, self.dunder_getattr);
        self.functions_among(found, DeclKind::Method)
    }

    /// The functions of `kind` among `vals`.
    pub(super) fn functions_among(&self, vals: Vals, kind: DeclKind) -> SmallVec<[RawDeclId; 1]> {
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
    pub(super) fn may_ask_getattr(&self, name: GSym) -> bool {
        !self.skip_getattr && !self.strings[name as usize].starts_with("__")
    }

    /// `name` read through `hooks`: what they return.
    pub(super) fn read_through(&mut self, hooks: SmallVec<[RawDeclId; 1]>) -> Vals {
        let mut out = Vals::new();
        for f in hooks {
            for v in self.ret_values(f) {
                push_unique(&mut out, v);
            }
        }
        out
    }

    /// `found`, the attribute `name` of an instance of `c`, and what the
    /// class's `__getattr__` returns for it when nothing is found. Whether
    /// nothing is, is asked at a stratum's end (see [`super::strata`]).
    pub(super) fn getattr_if_missing(&mut self, c: RawDeclId, name: GSym, mut found: Vals) -> Vals {
        if !self.may_ask_getattr(name) || self.getattr_hooks(c).is_empty() {
            return found;
        }
        let missing = found.is_empty();
        if self.absent(Question::AttributeMissing { class: c, name }, missing) {
            for v in self.getattr_fallback(c, name) {
                push_unique(&mut found, v);
            }
        }
        found
    }

    /// Reading an attribute an instance of `c` does not have calls its
    /// class's `__getattr__`, and the attribute is what that returns.
    pub(super) fn getattr_fallback(&mut self, c: RawDeclId, name: GSym) -> Vals {
        if !self.may_ask_getattr(name) {
            return Vals::new();
        }
        let hooks = self.getattr_hooks(c);
        if hooks.is_empty() {
            return Vals::new();
        }
        // A metaclass's instances are classes, whose attributes are set in
        // ways this does not see (`cls._member_map_` in `enum`).
        if self.has_attribute(c, name) || self.builtin_base(c).as_deref() == Some("type") {
            return Vals::new();
        }
        self.read_through(hooks)
    }

    /// Whether a class in `c`'s MRO binds `name` in its body or assigns
    /// it to `self` in a method, whatever values are known for it.
    pub(super) fn has_attribute(&mut self, c: RawDeclId, name: GSym) -> bool {
        self.mro(c).iter().any(|&k| {
            self.class_body_names.contains(&(k, name)) || self.self_attrs.contains(&(k, name))
        })
    }

    /// The runtime classes `self` (or `cls`) of `func` may have, which a
    /// `super()` call follows: for `self` of a method of `class`, each
    /// instantiated class among `class` and its subclasses (or `class`
    /// itself when none is known to be).
    pub(super) fn super_receivers(
        &mut self,
        func: RawDeclId,
        class: RawDeclId,
    ) -> Vec<(RawDeclId, bool)> {
        let mut out: Vec<(RawDeclId, bool)> = Vec::new();
        let seen = |out: &mut Vec<(RawDeclId, bool)>, r: (RawDeclId, bool)| {
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
                    if runtime.is_empty() || is_full(&runtime) {
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
    pub(super) fn call_method(&mut self, c: RawDeclId) -> Option<RawDeclId> {
        let call = self.intern("__call__");
        self.method_targets(c, call).first().copied()
    }

    /// The repository `__call__` of the metaclass a class has, declared
    /// on it or inherited from a base (`class Widget(metaclass=Meta)`).
    pub(super) fn metaclass_calls(&mut self, c: RawDeclId) -> Vec<RawDeclId> {
        let call = self.intern("__call__");
        self.metaclass_methods(c, call)
    }

    /// Method `name` of the metaclass `c` is made by (its own `metaclass=`
    /// or the nearest base's), when that metaclass is a repository class.
    pub(super) fn metaclass_methods(&mut self, c: RawDeclId, name: GSym) -> Vec<RawDeclId> {
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
    pub(super) fn metaclass_instantiation(
        &mut self,
        ci: usize,
        call: usize,
    ) -> Option<Vec<RawDeclId>> {
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
    pub(super) fn first_param_slot(&self, f: RawDeclId) -> Option<Slot> {
        let (info, fci) = self.py_info(f)?;
        let p = info.params.first()?;
        Some(Slot::Var(f, self.gsym(fci, p.name)))
    }

    /// The first parameter of `f` holds `v`.
    pub(super) fn bind_first_param(&mut self, f: RawDeclId, v: Value) {
        if let Some(slot) = self.first_param_slot(f) {
            self.add(slot, &[v]);
        }
    }

    pub(super) fn mark_instantiated(&mut self, class: RawDeclId) {
        for &k in self.mro(class).iter() {
            self.add(Slot::InstAttr(k, RUNTIME), &[Value::Instance(class)]);
        }
    }

    pub(super) fn bind_func(&self, f: RawDeclId, recv: RawDeclId, instance: bool) -> Value {
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

    pub(super) fn bind_class_member(&self, v: Value, class: RawDeclId, instance: bool) -> Value {
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
    pub(super) fn class_body_names_of(&mut self, class: RawDeclId) -> Vec<GSym> {
        let by_class = self.class_body_by_class.get_or_insert_with(|| {
            let mut by_class: HashMap<RawDeclId, Vec<GSym>> = HashMap::default();
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
    pub(super) fn is_enum_member(&mut self, k: RawDeclId, name: GSym, vals: &[Value]) -> bool {
        self.class_body_names.contains(&(k, name))
            && !self.strings[name as usize].starts_with('_')
            && !vals
                .iter()
                .any(|v| matches!(v, Value::Func(_) | Value::Bound { .. }))
            && self.is_enum(k)
    }

    /// `Op.POW.value`: what the member written by name was assigned, not
    /// what any member of `Op` was.
    pub(super) fn named_enum_member_value(
        &mut self,
        ci: usize,
        member: ExprId,
        depth: u32,
    ) -> Option<Vals> {
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
    pub(super) fn enum_member_values(&mut self, c: RawDeclId) -> Vals {
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
    pub(super) fn class_attr(&mut self, c: RawDeclId, name: GSym) -> Vals {
        let (mut out, bound) = self.repository_class_attr(c, name);
        if bound {
            return out;
        }
        // Not defined in the repository: inherited from an external base, if any.
        let inherited = match self.external_base(c) {
            Some(p) => self.external_member(p, name),
            None => self.builtin_base_member(c, name),
        };
        for v in inherited {
            push_unique(&mut out, v);
        }
        out
    }

    /// `name` on the repository classes of `c`'s MRO, and whether one of
    /// them binds it. The first class whose body binds the name has it,
    /// even while its value is unknown ("the first with a value" would
    /// keep whatever an earlier, emptier solve saw). Values assigned from
    /// outside a class body (`Cls.x = v`) join along the way.
    pub(super) fn repository_class_attr(&mut self, c: RawDeclId, name: GSym) -> (Vals, bool) {
        let mut out = Vals::new();
        for &k in self.mro(c).iter() {
            let vals = self.get(Slot::Var(k, name));
            if self.is_enum_member(k, name, &vals) {
                push_unique(&mut out, Value::Instance(k));
                return (out, true);
            }
            for v in vals {
                push_unique(&mut out, v);
            }
            if self.binds(k, name) {
                return (out, true);
            }
        }
        (out, false)
    }

    pub(super) fn bases(&mut self, c: RawDeclId) -> Vec<RawDeclId> {
        let Some((info, ci)) = self.py_info(c) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for &b in &info.bases {
            let vals = self.eval(ci, b, 0);
            self.add(Slot::BaseValues(c), &vals);
            // Every class a base expression may be, in a fixed order: the
            // first to arrive would depend on the order of the solve.
            let mut classes: Vec<RawDeclId> = vals
                .into_iter()
                .filter_map(|v| match v {
                    Value::Class(k) if k != c => Some(k),
                    _ => None,
                })
                .collect();
            classes.sort_unstable();
            for k in classes {
                if !out.contains(&k) {
                    out.push(k);
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
    pub(super) fn definers_below(
        &mut self,
        c: RawDeclId,
        name: GSym,
        instance: bool,
    ) -> std::rc::Rc<[RawDeclId]> {
        self.touch_class(c, true);
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
        let fresh: Vec<RawDeclId> = all
            .get(&name)
            .map(|v| v[done..].to_vec())
            .unwrap_or_default();
        for s in fresh {
            if s != c && self.mro_unrecorded(s).contains(&c) {
                found.push(s);
            }
        }
        let found: std::rc::Rc<[RawDeclId]> = found.into();
        self.definers_below
            .insert(key, (total, std::rc::Rc::clone(&found)));
        found
    }

    /// Whether some class names `c` among its bases.
    pub(super) fn has_subclass(&mut self, c: RawDeclId) -> bool {
        self.touch_class(c, true);
        self.class_bases.values().any(|bs| bs.contains(&c))
    }

    /// C3 linearization (Python's MRO); falls back to depth-first order for
    /// hierarchies C3 rejects, since a call graph must not give up.
    pub(super) fn mro(&mut self, c: RawDeclId) -> std::rc::Rc<[RawDeclId]> {
        self.touch_class(c, false);
        self.mro_unrecorded(c)
    }

    /// [`Analysis::mro`] without noting the read: for walks whose callers
    /// note what they depend on themselves (an MRO built from its bases'
    /// MROs changes when they do; a subclass test reads `Subclasses`).
    fn mro_unrecorded(&mut self, c: RawDeclId) -> std::rc::Rc<[RawDeclId]> {
        if let Some(Some(m)) = self.mro_cache.get(c as usize) {
            return std::rc::Rc::clone(m);
        }
        if let Some(cached) = self.mro_cache.get_mut(c as usize) {
            *cached = Some(std::rc::Rc::from([c]));
        }
        let bases = self.class_bases.get(&c).cloned().unwrap_or_default();
        let mut seqs: Vec<Vec<RawDeclId>> = bases
            .iter()
            .map(|&b| self.mro_unrecorded(b).to_vec())
            .collect();
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
        let result: std::rc::Rc<[RawDeclId]> = result.into();
        if let Some(cached) = self.mro_cache.get_mut(c as usize) {
            *cached = Some(std::rc::Rc::clone(&result));
        }
        result
    }

    /// Builtins that hand back what they were given.
    /// The classes with several bases whose MRO contains `c`: where a
    /// mixin `c` meets the classes that provide what it calls on `self`.
    pub(super) fn mixin_hosts(&mut self, c: RawDeclId) -> std::rc::Rc<[RawDeclId]> {
        self.touch_class(c, true);
        if let Some(hosts) = self.mixin_hosts.get(&c) {
            return hosts.clone();
        }
        let mut hosts = Vec::new();
        for m in self.multi_base.clone() {
            if m != c && self.mro_unrecorded(m).contains(&c) {
                hosts.push(m);
            }
        }
        let hosts: std::rc::Rc<[RawDeclId]> = hosts.into();
        self.mixin_hosts.insert(c, hosts.clone());
        hosts
    }

    /// The class of an instance, as `self.__class__` or `type(self)` give
    /// it: for `self` (a cone), the class and every subclass with an
    /// `__init__` of its own, since calling the result constructs whichever
    /// class the instance really has.
    pub(super) fn class_of(&mut self, v: Value) -> Vals {
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

    /// Class `c`'s special method `name`, or what Python runs without
    /// one: an in-place operator (`__iadd__`) falls back to the plain one
    /// (`__add__`), `__bool__` to `__len__`, and `object`'s `__format__`
    /// calls `__str__`, whose default calls `__repr__` (not when a class
    /// from outside the repository, such as `Exception`, may have its own).
    pub(super) fn special_method(&mut self, c: RawDeclId, name: GSym) -> Vec<RawDeclId> {
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

    /// The first base of `c`'s hierarchy that lives outside the repository.
    pub(super) fn external_base(&mut self, c: RawDeclId) -> Option<GSym> {
        for &k in self.mro(c).iter() {
            for v in self.get(Slot::BaseValues(k)) {
                if let Value::External(p) = v
                    && !is_marker_base(&self.strings[p as usize])
                {
                    return Some(p);
                }
            }
        }
        None
    }

    /// Whether `class` or a class it derives from is decorated with
    /// `@functools.total_ordering`.
    pub(super) fn is_total_ordering(&mut self, class: RawDeclId) -> bool {
        self.mro(class).iter().any(|&k| {
            self.py_info(k)
                .is_some_and(|(info, _)| info.is_total_ordering)
        })
    }

    /// Whether `name` is a field with a default that dataclass `class`
    /// or a dataclass among its bases assigns in its body.
    pub(super) fn is_dataclass_field(&mut self, class: RawDeclId, name: GSym) -> bool {
        let mro = self.mro(class);
        mro.iter().any(|&k| {
            self.class_body_names.contains(&(k, name))
                && self.py_info(k).is_some_and(|(info, _)| info.is_dataclass)
        })
    }

    /// Whether `class` or a class it derives from is a dataclass.
    pub(super) fn is_dataclass(&mut self, class: RawDeclId) -> bool {
        self.mro(class)
            .iter()
            .any(|&k| self.py_info(k).is_some_and(|(info, _)| info.is_dataclass))
    }

    /// The functions a dataclass's fields name as default factories, its
    /// own and its bases'.
    pub(super) fn field_factories(&mut self, class: RawDeclId) -> Vec<RawDeclId> {
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
    pub(super) fn bind_dataclass_fields(
        &mut self,
        class: RawDeclId,
        args: &[Vals],
        kwargs: &[(GSym, Vals)],
    ) {
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
}

/// Bases whose subclasses' class-body names are members, instances of the
/// subclass: the `enum` module's, and Django's choices built on them.
pub(super) fn is_enum_base(name: &str) -> bool {
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
pub(super) fn is_marker_base(name: &str) -> bool {
    matches!(
        name,
        "typing.Protocol"
            | "typing.Generic"
            | "typing_extensions.Protocol"
            | "typing_extensions.Generic"
            | "abc.ABC"
    )
}

//! Calls: what a call site reaches ([`Target`]) and returns, and how its
//! arguments bind to the parameters of each callee (receivers, partials,
//! keywords, `*args`/`**kwargs`, higher-order builtins, decorators).

use smallvec::{SmallVec, smallvec};

use crate::lang::python::{ExprId, ParamKind, PyCallKind, PyExpr};
use crate::model::DeclKind;
use crate::resolve::RawDeclId;

use super::Analysis;
use super::library::{
    EXITSTACK_ENTER, FUNCTOOLS_REDUCE, HEAP_POPS, HEAP_PUSHES, HIGHER_ORDER, KEY_HASHING_METHODS,
    LIBRARY_FACTORIES,
};
use super::operators::{BUILTIN_DUNDERS, WITH_PROTOCOL};
use super::values::{
    ANY_KEY, ARGPARSE_DEFAULTS, GSym, KEYS, MAX_DEPTH, Slot, Vals, Value, is_full, push_unique,
};

impl Analysis<'_> {
    pub(super) fn callee_values(&mut self, ci: usize, call: usize) -> Vals {
        let py = self.files[ci].py;
        let callee = py.calls[call].callee;
        self.eval(ci, callee, 1)
    }

    pub(super) fn call_result(&mut self, ci: usize, call: usize, depth: u32) -> Vals {
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
        // Calling anything returns anything.
        if is_full(&callees) {
            return smallvec![Value::Top];
        }
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
                                Value::Cone(c) if !self.has_subclass(c) => {
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
                Value::Library => push_unique(&mut out, Value::Library),
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

    /// The functions a higher-order builtin (`map`, `filter`, `sorted`,
    /// `reduce`, …) is given, each as a target it calls on the elements of
    /// its other arguments.
    pub(super) fn push_applied(&mut self, ci: usize, call: usize, b: GSym, out: &mut Vec<Target>) {
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
                let called: SmallVec<[(RawDeclId, usize); 2]> = match v {
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

    /// The methods `name` of the objects argument `position` of the call
    /// holds (or of its `elements`, for a builtin that iterates it), each
    /// with the object as its first argument: what a
    /// [`Value::MethodCaller`] calls.
    pub(super) fn called_methods(
        &mut self,
        ci: usize,
        call: usize,
        name: GSym,
        position: usize,
        elements: bool,
    ) -> Vec<(RawDeclId, usize)> {
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

    /// The declarations a call site reaches, with the receiver binding for each.
    pub(super) fn call_targets(&mut self, ci: usize, call: usize) -> Vec<Target> {
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

    pub(super) fn bind_call(&mut self, ci: usize, call: usize) {
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
    pub(super) fn bind_applied(
        &mut self,
        ci: usize,
        call: usize,
        decl: RawDeclId,
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
    pub(super) fn bind_receivers(&mut self, ci: usize, call: usize, targets: &[Target]) {
        // A method's `self` is its class's cone already; a classmethod's
        // `cls` is the class it was called on, and a plain function that
        // a class holds in a method's place (a decorator's `wrapper(self,
        // …)`) gets the instance it was called on as its first parameter.
        // Only one whose first parameter says so: a decorator that hands
        // its argument back (`unittest.skipUnless`'s `_id`) gives every
        // function ever decorated with it as the decorated method,
        // `run_test_script(script)` among them.
        let takes_receiver = |a: &Self, d: RawDeclId| match a.py_info(d) {
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
    pub(super) fn partial_values(&mut self, ci: usize, call: usize) -> Vals {
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
    pub(super) fn bind_partial_arguments(&mut self, args: &[Vals], kwargs: &[(GSym, Vals)]) {
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
    pub(super) fn settle(&mut self, ci: usize, call: usize, targets: Vec<Target>) {
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
    pub(super) fn bind_wrapped(&mut self, ci: usize, call: usize) {
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

    /// Pass `vals` as keyword argument `k`: to the parameter of that name,
    /// else into `**kwargs` under that key.
    pub(super) fn bind_keyword(
        &mut self,
        decl: RawDeclId,
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
    pub(super) fn dict_entries(&mut self, ci: usize, expr: ExprId) -> Vec<(GSym, Vals)> {
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
    pub(super) fn is_static(&mut self, ci: usize, expr: ExprId, depth: u32) -> bool {
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
                // An attribute of `self` (`self.loop.m()`) holds what flowed
                // into it, which is not.
                self.eval(ci, base, 0).iter().all(|v| {
                    matches!(
                        v,
                        Value::Module(_)
                            | Value::Class(_)
                            | Value::External(_)
                            | Value::Instance(_)
                            | Value::Super { .. }
                    ) || (depth == 0 && matches!(v, Value::Cone(_)))
                })
            }
            _ => false,
        }
    }
}

pub(super) enum Target {
    Decl {
        decl: RawDeclId,
        shift: usize,
    },
    /// A function a higher-order builtin (`map`, `filter`, `sorted`, …)
    /// calls on the elements of its other arguments; `arg` is where the
    /// function was passed, among the positional then keyword arguments.
    Applied {
        decl: RawDeclId,
        shift: usize,
        builtin: GSym,
        arg: u32,
    },
    External(String),
    /// A class instantiated that defines no `__init__` anywhere in its MRO.
    NoInit(RawDeclId),
    /// A function the call runs without passing it the call's arguments
    /// (a dataclass field's default factory).
    Implicit(RawDeclId),
    /// The callee's value set is full: values past its cap were dropped,
    /// so the targets found may not be all (listed with the unresolved).
    Truncated,
}

/// How many of `params` the `shift` arguments a call fills before its own
/// (a bound receiver, a partial's) take: as many positional parameters as
/// lead; past them they go into `*args` (`wrapper(*args)` in a method's
/// place gets its receiver there), leaving every parameter to the call.
pub(super) fn filled_by_receiver(params: &[crate::lang::python::Param], shift: usize) -> usize {
    let leading = params
        .iter()
        .take_while(|p| matches!(p.kind, ParamKind::Positional | ParamKind::PositionalOnly))
        .count();
    shift.min(leading)
}

/// Add `m` as a target the call runs on the caller's behalf (a builtin
/// calling a special method), once.
pub(super) fn push_implied(out: &mut Vec<Target>, m: RawDeclId) {
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

/// The function a callable value calls, and how many of its parameters
/// are filled before the call's own arguments (the receiver of a bound
/// method, the arguments given to `functools.partial`).
pub(super) fn function_and_shift(v: Value) -> Option<(RawDeclId, usize)> {
    match v {
        Value::Func(f) => Some((f, 0)),
        Value::Bound { func, .. } => Some((func, 1)),
        Value::Partial { func, shift } => Some((func, shift as usize)),
        _ => None,
    }
}

/// A target's `shift` that binds no arguments (a reflected operator or a
/// builtin's special method gets the object itself as `self`).
pub(super) const NO_BIND: usize = usize::MAX;

//! Models of builtins and the standard library: methods of `str`, `dict`,
//! `list`, `set` and `tuple`, builtin functions' results, library
//! callbacks (`threading.Thread(target=…)`, `atexit.register`, …),
//! functools, operator, heapq, argparse defaults and contextlib.

use rustc_hash::FxHashMap as HashMap;
use smallvec::{SmallVec, smallvec};

use crate::lang::python::{ExprId, PyCallKind, PyExpr};
use crate::resolve::RawDeclId;

use super::Analysis;
use super::calls::{NO_BIND, Target, push_implied};
use super::operators::WITH_PROTOCOL;
use super::values::{ANY_KEY, ARGPARSE_DEFAULTS, GSym, Slot, Vals, Value, push_unique};

impl Analysis<'_> {
    /// A method a repository class inherits from a builtin base
    /// (`class TokenList(list)`: `tokens.append` is `<**PyList**>.append`,
    /// named as on a literal; `class Code(int)`: `<builtin>.int.bit_length`).
    pub(super) fn builtin_base_member(&mut self, c: RawDeclId, name: GSym) -> Vals {
        match self.builtin_base(c) {
            Some(base) => self.builtin_class_member(&base, name),
            None => Vals::new(),
        }
    }

    /// The first builtin class among the bases along `c`'s MRO.
    pub(super) fn builtin_base(&mut self, c: RawDeclId) -> Option<String> {
        for &k in self.mro(c).iter() {
            for v in self.get(Slot::BaseValues(k)) {
                if let Value::Builtin(b) = v
                    && is_builtin_class(&self.strings[b as usize])
                {
                    return Some(self.strings[b as usize].clone());
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
    pub(super) fn builtin_class_member(&mut self, class: &str, name: GSym) -> Vals {
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
    pub(super) fn builtin_method(&mut self, ty: &str, name: GSym) -> Vals {
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
    pub(super) fn external_is_class(&self, p: GSym) -> bool {
        let path = &self.strings[p as usize];
        path.rsplit('.')
            .next()
            .is_some_and(|last| last.starts_with(|c: char| c.is_ascii_uppercase()))
    }

    /// Attribute `name` of the out-of-repo value `p`, named by its path.
    /// Introspection (`x.__class__`, `f.__self__`) names no out-of-repo
    /// declaration: chains through it only made up callees like
    /// `_weakref.ref.__self__.lower`. Nor does a member of a class's member
    /// (`multiprocessing.Process.name.format`): what the attribute holds is
    /// unknown, so the call stays unresolved with that reason.
    pub(super) fn external_member(&mut self, p: GSym, name: GSym) -> Vals {
        let attr = self.strings[name as usize].as_str();
        if INTROSPECTION_ATTRS.contains(&attr) {
            return Vals::new();
        }
        if is_member_of_class(&self.strings[p as usize]) {
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

    /// `d.values()`, `d.items()`, `d.get(k, default)`, `d.pop(k)`,
    /// `d.setdefault(k, v)` of a dict the analysis tracks.
    pub(super) fn dict_method_result(
        &mut self,
        ci: usize,
        call: usize,
        site: u32,
        name: GSym,
    ) -> Vals {
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

    pub(super) fn builtin_result(&mut self, ci: usize, call: usize, v: Value) -> Vals {
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

    /// The `__enter__` and `__exit__` methods of the context managers
    /// `stack.enter_context(cm)` is handed, each with whether it is the
    /// `__enter__`.
    pub(super) fn entered_contexts(&mut self, ci: usize, call: usize) -> Vec<(RawDeclId, bool)> {
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

    /// The functions a standard-library callable is handed and runs:
    /// `Thread(target=job)`, `executor.submit(job, x)`,
    /// `functools.cmp_to_key(compare)`, `itertools.starmap(add, pairs)`.
    pub(super) fn push_library_callbacks(
        &mut self,
        ci: usize,
        call: usize,
        p: GSym,
        out: &mut Vec<Target>,
    ) {
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
    pub(super) fn push_key_hashing(&mut self, ci: usize, call: usize, out: &mut Vec<Target>) {
        for (m, _) in self.key_hashing(ci, call) {
            push_implied(out, m);
        }
    }

    pub(super) fn key_hashing(&mut self, ci: usize, call: usize) -> Vec<(RawDeclId, usize)> {
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
    pub(super) fn push_overridden_hooks(
        &mut self,
        ci: usize,
        call: usize,
        p: GSym,
        out: &mut Vec<Target>,
    ) {
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

    /// The implementations registered on each generic function with
    /// `@f.register` or `@f.register(T)` (`functools.singledispatch`,
    /// `singledispatchmethod`): a call of `f` may run any of them.
    pub(super) fn dispatch_registrations(&mut self) -> HashMap<RawDeclId, Vec<RawDeclId>> {
        let mut out: HashMap<RawDeclId, Vec<RawDeclId>> = HashMap::default();
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
                let generic: Vec<RawDeclId> = self
                    .eval(ci, base, 1)
                    .into_iter()
                    .filter_map(|v| match v {
                        Value::Func(f) | Value::Bound { func: f, .. } => Some(f),
                        _ => None,
                    })
                    .collect();
                let impls: Vec<RawDeclId> = self
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

    pub(super) fn bind_dict_update(&mut self, ci: usize, call: usize) {
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
    pub(super) fn receiver_sites(&mut self, ci: usize, call: usize, dict: bool) -> Vec<u32> {
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
    pub(super) fn bind_dict_setdefault(&mut self, ci: usize, call: usize) {
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
    pub(super) fn bind_sequence_insert(&mut self, ci: usize, call: usize) {
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
    pub(super) fn worth_collecting(&self, v: Value) -> bool {
        match v {
            Value::External(p) => self.external_is_class(p),
            _ => true,
        }
    }

    /// The PyCG name and the public methods of the non-dict container at `site`.
    pub(super) fn sequence_type(&self, site: u32) -> (&'static str, &'static [&'static str]) {
        let kind = if self.set_sites.contains(&site) {
            "set"
        } else if self.tuple_sites.contains(&site) {
            "tuple"
        } else {
            "list"
        };
        builtin_type(kind).unwrap_or(("<**PyList**>", LIST_METHODS))
    }
}

/// The builtin `reduce` of Python 2: its calls are followed as the
/// builtin's are, so it does not count as handing its function out.
pub(super) const FUNCTOOLS_REDUCE: &str = "functools.reduce";

/// Dict methods whose result is drawn from the dict's values.
/// `str`'s public methods (`dir(str)`, CPython 3.11).
pub(super) const STR_METHODS: &[&str] = &[
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
pub(super) const DICT_ALL_METHODS: &[&str] = &[
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
pub(super) fn builtin_type(name: &str) -> Option<(&'static str, &'static [&'static str])> {
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
pub(super) fn is_builtin_class(name: &str) -> bool {
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
pub(super) const OBJECT_METHODS: &[&str] = &[
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
pub(super) const LIST_METHODS: &[&str] = &[
    "append", "clear", "copy", "count", "extend", "index", "insert", "pop", "remove", "reverse",
    "sort",
];

/// `set`'s public methods (`dir(set)`, CPython 3.11).
pub(super) const SET_METHODS: &[&str] = &[
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
pub(super) const TUPLE_METHODS: &[&str] = &["count", "index"];

/// Whether a `str` or `dict` value has attribute `attr`: one of its public
/// `methods` or a special method (`__contains__`); anything else (`s._loop`)
/// is a value the analysis confused with a string or dict, and names nothing.
pub(super) fn builtin_type_member(methods: &[&str], attr: &str) -> bool {
    methods.contains(&attr)
        || (attr.starts_with("__") && attr.ends_with("__") && !INTROSPECTION_ATTRS.contains(&attr))
}

/// Attributes every object has that describe it rather than name a member.
pub(super) const INTROSPECTION_ATTRS: &[&str] = &[
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
pub(super) const MODELLED_DICT_METHODS: &[&str] = &[
    "values",
    "items",
    "copy",
    "get",
    "pop",
    "setdefault",
    "update",
];

/// Builtins that call the functions passed to them.
/// Out-of-repository callables that take functions without calling them
/// (`functools.wraps(f)` copies `f`'s name; `inspect.signature(f)` reads
/// it): passing a function to them hides no caller.
pub(super) const NEVER_CALLS_ITS_ARGUMENTS: &[&str] = &[
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
pub(super) fn never_calls_its_arguments(callee_text: &str) -> bool {
    let text = callee_text.trim_start_matches('@');
    text.starts_with("wraps(")
        || NEVER_CALLS_ITS_ARGUMENTS
            .iter()
            .any(|p| text.starts_with(p))
}

pub(super) const HIGHER_ORDER: &[&str] = &["map", "filter", "sorted", "min", "max", "reduce"];

/// Standard-library callables that run a function they are handed: (name,
/// its position, its keyword). A name starting with `.` is a method of
/// `concurrent.futures`' executors and futures, however the receiver's
/// class was reached.
pub(super) const LIBRARY_CALLBACKS: &[(&str, Option<usize>, &str)] = &[
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
pub(super) const HEAP_PUSHES: &[&str] =
    &["heapq.heappush", "heapq.heappushpop", "heapq.heapreplace"];

pub(super) const HEAP_POPS: &[&str] = &["heapq.heappop", "heapq.heappushpop", "heapq.heapreplace"];

/// `contextlib.ExitStack.enter_context`, which enters the context manager
/// it is handed.
pub(super) const EXITSTACK_ENTER: &str = "contextlib.ExitStack.enter_context";

/// Standard-library functions that make an instance of a library class
/// whose methods take callbacks: `re.compile(p).sub(repl, s)` calls repl.
pub(super) const LIBRARY_FACTORIES: &[(&str, &str)] = &[
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
pub(super) const KEY_HASHING_METHODS: &[&str] = &[
    "<**PyDict**>.get",
    "<**PyDict**>.setdefault",
    "<**PyDict**>.pop",
    "<**PySet**>.add",
    "<**PySet**>.discard",
    "<**PySet**>.remove",
];

/// Methods of standard-library classes that call methods a subclass
/// overrides: (the method, the hooks it calls).
pub(super) const OVERRIDDEN_HOOKS: &[(&str, &[&str])] = &[
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
pub(super) const BUILTINS: &[&str] = &[
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

/// Whether out-of-repo path `path` names a member of a class: a lowercase
/// segment after a capitalised one (`http.client.HTTPResponse.status`,
/// `PIL.Image.open`), not a class in a capitalised package
/// (`Crypto.Cipher.AES`) nor a module's attribute (`os.environ`).
pub(super) fn is_member_of_class(path: &str) -> bool {
    if path.starts_with('<') {
        return false;
    }
    let mut after_class = false;
    for segment in path.split('.') {
        let first = segment.trim_start_matches('_').chars().next();
        match first {
            Some(c) if c.is_ascii_uppercase() => after_class = true,
            Some(_) if after_class => return true,
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::is_member_of_class;

    #[test]
    fn a_member_of_a_class_member_is_told_from_a_class_in_a_capitalised_package() {
        assert!(is_member_of_class("http.client.HTTPResponse.status"));
        assert!(is_member_of_class("PIL.Image.open"));
        assert!(is_member_of_class("_io.BytesIO.mode"));
        assert!(!is_member_of_class("Crypto.Cipher.AES"));
        assert!(!is_member_of_class("os.environ"));
        assert!(!is_member_of_class("requests.Session"));
        assert!(!is_member_of_class("<**PyStr**>.format"));
    }
}

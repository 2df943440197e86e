//! The dunder methods Python calls implicitly: operators (plain, in-place,
//! reflected), conversions (`str`, `len`, `bool`, …), comparisons,
//! iteration and the `with` protocol.

use smallvec::SmallVec;

use crate::lang::python::{ExprId, PyExpr};
use crate::model::Sym;
use crate::resolve::RawDeclId;

use super::Analysis;
use super::calls::{NO_BIND, Target, push_implied};
use super::values::{GSym, Vals, Value, push_unique};

impl Analysis<'_> {
    /// The special methods a `for` or `with` calls on an instance of `c`:
    /// the synchronous pair, or the asynchronous one (`async for`, `async
    /// with`) when the class has no synchronous first method. The facts do
    /// not say whether the statement was `async`; a class defining only
    /// `__aenter__` can only be used by one that is.
    pub(super) fn protocol(
        &mut self,
        c: RawDeclId,
        (sync, asynchronous): Protocol,
    ) -> (GSym, GSym) {
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

    /// The special methods an operator call reaches: the receiver's
    /// `method` (for `a += b`, `__iadd__` or else `__add__`), or when the
    /// receiver has none, the other operand's `reflected` one (which is
    /// not given the receiver as its argument: [`NO_BIND`]).
    pub(super) fn operator_methods(
        &mut self,
        ci: usize,
        call: usize,
        method: Sym,
        reflected: Option<Sym>,
    ) -> Vec<(RawDeclId, usize)> {
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

    pub(super) fn operator_methods_uncached(
        &mut self,
        ci: usize,
        call: usize,
        method: Sym,
        reflected: Option<Sym>,
    ) -> Vec<(RawDeclId, usize)> {
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
    pub(super) fn push_conversions(
        &mut self,
        ci: usize,
        arg: ExprId,
        dunder: GSym,
        out: &mut Vec<Target>,
    ) {
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
    pub(super) fn push_consumed_iterables(
        &mut self,
        ci: usize,
        call: usize,
        b: GSym,
        out: &mut Vec<Target>,
    ) {
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
    pub(super) fn compared_items(&mut self, ci: usize, args: &[ExprId]) -> Vals {
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
    pub(super) fn push_comparisons(
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
    pub(super) fn push_iteration(&mut self, values: &[Value], shift: usize, out: &mut Vec<Target>) {
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

    /// The `__getitem__` that iterating an instance of `c` calls with 0,
    /// 1, 2… until IndexError (the sequence protocol), when `c` has no
    /// `__iter__` (`iters`, found for `iter_sym`) and no base from outside
    /// may bring one; else nothing.
    pub(super) fn index_iteration(
        &mut self,
        c: RawDeclId,
        iter_sym: GSym,
        iters: &[RawDeclId],
    ) -> Vec<RawDeclId> {
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
    pub(super) fn operator_defined(&mut self, method: GSym) -> bool {
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

    /// The methods [`Analysis::special_method`] tries, in order, when a
    /// class lacks `name`.
    pub(super) fn fallback_methods(&self, name: GSym) -> &'static [&'static str] {
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
}

/// The two special methods a statement calls, synchronous then asynchronous.
pub(super) type Protocol = ((&'static str, &'static str), (&'static str, &'static str));

pub(super) const ITER_PROTOCOL: Protocol = (("__iter__", "__next__"), ("__aiter__", "__anext__"));

pub(super) const WITH_PROTOCOL: Protocol = (("__enter__", "__exit__"), ("__aenter__", "__aexit__"));

/// In-place operators, which fall back to the plain operator.
pub(super) const INPLACE_OPERATORS: &[&str] = &[
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
pub(super) const PLAIN_OPERATORS: &[&str] = &[
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
pub(super) const CONSUMES_ITERABLES: &[&str] = &[
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
pub(super) const BUILTIN_DUNDERS: &[(&str, &str)] = &[
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

/// The rich comparisons, in the order `functools.total_ordering` picks
/// the one the others are made from.
pub(super) const COMPARISONS: &[&str] = &["__lt__", "__le__", "__gt__", "__ge__"];

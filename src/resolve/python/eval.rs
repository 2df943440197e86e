//! Evaluating an expression to the values it may hold: names, attributes,
//! subscripts and slices, decorated definitions, container elements,
//! iteration, `zip`/`enumerate` rows and what a call of a function returns.

use smallvec::smallvec;

use crate::lang::python::{ExprId, ParamKind, PyExpr};
use crate::model::DeclKind;
use crate::resolve::RawDeclId;

use super::Analysis;
use super::calls::NO_BIND;
use super::operators::ITER_PROTOCOL;
use super::strata::Question;
use super::values::{
    ANY_KEY, GSym, KEYS, MAX_DEPTH, MAX_NESTING, MAX_SLICE_OFFSET, MISSING_KEY, Slot,
    UNKNOWN_OFFSET, Vals, Value, push_unique,
};

impl Analysis<'_> {
    pub(super) fn eval(&mut self, ci: usize, expr: ExprId, depth: u32) -> Vals {
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

    pub(super) fn eval_at(&mut self, ci: usize, expr: ExprId, depth: u32) -> Vals {
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
                let mut vals = self.get_id(id);
                if *scope == 0 && !self.binds(self.gdecl(ci, 0), self.gsym(ci, *name)) {
                    // A module-level name bound only by a star import elsewhere in the file.
                    for v in self.free_name(ci, *name) {
                        push_unique(&mut vals, v);
                    }
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
                    // Anything's attribute is anything: reading it as
                    // nothing would keep what was read before the base
                    // filled up, and the graph would depend on the order.
                    if v == Value::Top {
                        push_unique(&mut out, Value::Top);
                        continue;
                    }
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
                        Value::Top | Value::Library => push_unique(&mut out, v),
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
                        (Value::Top, _) => Value::Top,
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
                let mut unnarrowed = false;
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
                            _ => unnarrowed = true,
                        }
                    }
                }
                if unnarrowed {
                    return self.eval(ci, *subject, depth + 1);
                }
                // The classes are known only once their names are: until a
                // stratum's end, nothing known is no reason to keep the
                // subject's values.
                let site = self.site(ci, expr);
                if self.absent(Question::NarrowingUnknown(site), out.is_empty()) {
                    for v in self.eval(ci, *subject, depth + 1) {
                        push_unique(&mut out, v);
                    }
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
                let mut vals = self.eval(ci, *result, depth + 1);
                let callable = vals.iter().any(|v| {
                    matches!(
                        v,
                        Value::Func(_) | Value::Bound { .. } | Value::Class(_) | Value::Instance(_)
                    )
                });
                // A library decorator keeps the function as far as the
                // graph can tell. A repository decorator whose returns are
                // not known yet (solved later, or imported through a
                // package not solved yet) may still return a callable: the
                // name waits for the stratum's end, and only if none came
                // by then is it the undecorated function.
                let site = self.site(ci, *result);
                if self.decorated_by_library(ci, *result, 0)
                    || self.absent(Question::DecoratorReturnsNothing(site), !callable)
                {
                    for v in self.eval(ci, *original, depth + 1) {
                        push_unique(&mut vals, v);
                    }
                    vals
                } else if callable {
                    vals
                } else {
                    Vals::new()
                }
            }
        }
    }

    /// Whether the decorator of call `e` (or, for `@factory(args)`, its
    /// factory) may be out of the repository. Once true it stays true as
    /// values are added, so acting on it keeps the solve monotone.
    pub(super) fn decorated_by_library(&mut self, ci: usize, e: ExprId, depth: u32) -> bool {
        let py = self.files[ci].py;
        let Some(&PyExpr::Call(call)) = py.exprs.get(e as usize) else {
            return false;
        };
        let callee = py.calls[call as usize].callee;
        if self
            .eval(ci, callee, 1)
            .iter()
            .any(|v| matches!(v, Value::External(_) | Value::Builtin(_)))
        {
            return true;
        }
        depth < 4 && self.decorated_by_library(ci, callee, depth + 1)
    }

    /// Key `#i` of a slice starting at `offset`: the container's `#(i + offset)`.
    pub(super) fn shifted_key(&mut self, key: GSym, offset: u32) -> Option<GSym> {
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
    pub(super) fn defaultdict(&mut self, ci: usize, call: usize) -> Value {
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
    pub(super) fn factory_values(&mut self, ci: usize, factory: ExprId) -> Vals {
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

    pub(super) fn elements(&mut self, site: u32, key: Option<GSym>) -> Vals {
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
        // string, holds nothing callable.) Keys are added as the solve
        // goes, so whether one was is asked at a stratum's end.
        if let Some(key) = key
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
            let unwritten = out.is_empty()
                && !self
                    .container_keys
                    .get(&site)
                    .is_some_and(|keys| keys.contains(&key));
            if self.absent(Question::KeyNeverWritten { site, key }, unwritten) {
                for v in self.elements(site, None) {
                    push_unique(&mut out, v);
                }
            }
        }
        // A defaultdict's missing key holds what its factory makes.
        if self.defaultdict_sites.contains(&site) {
            self.read_into(Slot::Elem(site, MISSING_KEY), &mut out);
        }
        out
    }

    pub(super) fn iterate(&mut self, v: Value) -> Vals {
        match v {
            Value::Top => smallvec![Value::Top],
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
    pub(super) fn zip_row_element(&mut self, site: u32, key: Option<GSym>, depth: u32) -> Vals {
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

    pub(super) fn iterate_shallow(&mut self, v: Value) -> Vals {
        match v {
            Value::Container(site) | Value::Slice { site, .. } => self.elements(site, None),
            Value::Items(site) => smallvec![Value::Container(site)],
            Value::Zipped(site) => smallvec![Value::ZipRow(site)],
            Value::Generator(f) => self.get(Slot::Yield(f)),
            Value::Mapped(f) => self.returns_of(f),
            _ => Vals::new(),
        }
    }

    pub(super) fn returns_of(&self, func: RawDeclId) -> Vals {
        match self.py_info(func) {
            Some((info, _)) if info.is_generator => smallvec![Value::Generator(func)],
            _ => self.ret_values(func),
        }
    }

    /// What `func` returns at some call: its returns, and whatever any
    /// caller passed for the parameters it returns unchanged.
    pub(super) fn ret_values(&self, func: RawDeclId) -> Vals {
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
    pub(super) fn returns_at(
        &mut self,
        ci: usize,
        call: usize,
        func: RawDeclId,
        shift: usize,
    ) -> Vals {
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
}

/// A name from the modules that spell types rather than define classes
/// with methods: a type variable, alias or protocol a value is annotated
/// with says nothing about which methods its calls reach.
pub(super) fn is_typing_name(name: &str) -> bool {
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

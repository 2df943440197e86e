//! The functions a value may hold: locals, parameters (from the arguments
//! callers pass), struct fields, call results and closures, traced through
//! memoised, bounded walks; and the collection of those value sources.

use super::flow::{FLOW_UNKNOWN, MAX_SOURCES};
use super::library::{external_method, library_result_may_hold_anything};
use super::packages::external_package;
use super::{Analysis, Callee, EXTERNAL_VALUE, PkgRef, RType};
use crate::lang::go::{Binding, ElemKey, ExprId, GoExpr};
use crate::model::Sym;
use crate::resolve::{RawDeclId, go_std};
use rustc_hash::FxHashMap as HashMap;
use rustc_hash::FxHashSet as HashSet;

/// How deep a trace of values goes before it gives up (unknown). An error
/// gathered in a slice from another package's method and from errors.New
/// (`errs = append(errs, err)`) takes 17; a trace cut short makes a call
/// through an interface reach every implementation, which costs more than
/// the deeper trace.
pub(super) const MAX_FLOW_DEPTH: u32 = 20;

pub(super) type TraceKey = (usize, u32, Traced);

/// Rounds a cycle of function values goes before its value is taken as is.
pub(super) const MAX_TRACE_ROUNDS: u32 = 8;

/// Function values one expression may hold before the rest are dropped: a
/// lexer's state functions or a table of handlers number in the dozens.
pub(super) const MAX_FUNC_VALUES: usize = 64;

/// What a function value, or the concrete types behind an interface
/// value, is traced from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Traced {
    Name(Sym),
    Expr(ExprId),
    TypesOfName(Sym),
    TypesOfExpr(ExprId),
    /// The `n`-th result of a call.
    TypesOfCall(u32, u8),
}

/// Where a value comes from: (file context, scope, expression).
pub(super) type ValueSource = (usize, u32, ExprId);

/// What a local variable may hold (see `Analysis::local_sources`).
#[derive(Default)]
pub(super) struct LocalSources {
    pub(super) values: Vec<ValueSource>,
    /// Some of it comes from where no source is known: a parameter of a
    /// function called from outside (or with too many callers to keep).
    pub(super) opaque: bool,
    /// A parameter of a standard-library interface type, of a function
    /// the repository hands to a library and nothing in it calls: what the
    /// library passes (the http.ResponseWriter of a handler).
    pub(super) from_library: bool,
}

pub(super) fn push_decl(out: &mut Vec<RawDeclId>, d: RawDeclId) {
    if out.len() < MAX_FUNC_VALUES && !out.contains(&d) {
        out.push(d);
    }
}

impl<'a> Analysis<'a> {
    /// Functions a name may hold: its bindings in the nearest scope that
    /// binds it, arguments passed for it when it is a parameter, or the
    /// package-level function or variable of that name.
    pub(super) fn ident_func_values(
        &mut self,
        ci: usize,
        scope: u32,
        name: Sym,
        depth: u32,
    ) -> Vec<RawDeclId> {
        self.traced(ci, scope, Traced::Name(name), depth)
    }

    /// Memoised tracing of function values (by name or by expression).
    pub(super) fn traced(
        &mut self,
        ci: usize,
        scope: u32,
        what: Traced,
        depth: u32,
    ) -> Vec<RawDeclId> {
        if depth > MAX_FLOW_DEPTH {
            return match what {
                Traced::TypesOfName(_) | Traced::TypesOfExpr(_) | Traced::TypesOfCall(..) => {
                    vec![FLOW_UNKNOWN]
                }
                Traced::Name(_) | Traced::Expr(_) => Vec::new(),
            };
        }
        let key = (ci, scope, what);
        if let Some(v) = self.trace_memo.get(&key) {
            if self.trace_active.contains(&key) {
                self.trace_heads.insert(key);
            }
            return v.clone();
        }
        // A trace that reads itself back through a cycle (`for state :=
        // lexText; …; state = state(l)`: each state returns the next) starts
        // from what it has found so far and goes round until that stops
        // growing. What was traced inside the cycle meanwhile saw a partial
        // value and is traced again in the next round.
        self.trace_memo.insert(key, Vec::new());
        self.trace_active.insert(key);
        let log_start = self.trace_log.len();
        let mut out;
        let mut rounds = 0;
        loop {
            self.trace_heads.remove(&key);
            out = match what {
                Traced::Name(name) => self.ident_func_values_uncached(ci, scope, name, depth),
                Traced::Expr(e) => self.func_values_uncached(ci, scope, e, depth),
                Traced::TypesOfName(name) => self.name_flow_uncached(ci, scope, name, depth),
                Traced::TypesOfExpr(e) => self.expr_flow_uncached(ci, scope, e, depth),
                Traced::TypesOfCall(c, n) => self.call_flow_uncached(ci, scope, c, n, depth),
            };
            rounds += 1;
            let before = self.trace_memo.get(&key).map_or(0, |v| v.len());
            if !self.trace_heads.contains(&key) || out.len() <= before || rounds >= MAX_TRACE_ROUNDS
            {
                break;
            }
            for k in self.trace_log.drain(log_start..) {
                self.trace_memo.remove(&k);
            }
            self.trace_memo.insert(key, out.clone());
        }
        self.trace_heads.remove(&key);
        self.trace_active.remove(&key);
        self.trace_memo.insert(key, out.clone());
        if self.trace_active.is_empty() {
            self.trace_log.clear();
        } else {
            self.trace_log.push(key);
        }
        out
    }

    /// What a variable of an enclosing scope may hold: the values bound
    /// to it where it is declared and, for a parameter, the arguments its
    /// callers pass. None when no enclosing scope binds it (a package-level
    /// name).
    pub(super) fn local_sources(&self, ci: usize, scope: u32, name: Sym) -> Option<LocalSources> {
        let mut s = Some(scope);
        while let Some(cur) = s {
            let Some(list) = self.ctxs[ci].bindings.get(&(cur, name)) else {
                s = self.scope_parent(ci, cur);
                continue;
            };
            let mut out = LocalSources::default();
            for b in list {
                match b {
                    Binding::Value(e) => out.values.push((ci, cur, *e)),
                    Binding::Type(_) => {
                        let func = self.ctxs[ci].base + cur;
                        let idx = self
                            .params_of
                            .get(&func)
                            .and_then(|ps| ps.iter().position(|p| *p == Some(name)));
                        match idx {
                            Some(idx) => {
                                out.opaque |= self.param_overflow.contains(&(func, idx));
                                match self.param_sources.get(&(func, idx)) {
                                    Some(sources) => out.values.extend_from_slice(sources),
                                    None if self.library_interface_param(ci, func, b) => {
                                        out.from_library = true;
                                    }
                                    // Called from outside, or not at all.
                                    None => out.opaque = true,
                                }
                            }
                            // A type switch's case variable (`v#2`) holds
                            // the switched value; `var x I` starts as nil.
                            None => out.opaque |= self.sym(ci, name).contains('#'),
                        }
                    }
                }
            }
            // A package-level variable also holds what any function of the
            // package stores in it.
            if cur == 0
                && let Some(writes) = self.pkgs[self.ctxs[ci].pkg]
                    .var_writes
                    .get(self.sym(ci, name))
            {
                out.values.extend_from_slice(writes);
            }
            return Some(out);
        }
        None
    }

    pub(super) fn ident_func_values_uncached(
        &mut self,
        ci: usize,
        scope: u32,
        name: Sym,
        depth: u32,
    ) -> Vec<RawDeclId> {
        let mut out = Vec::new();
        if let Some(f) = self.func_receiver_of(ci, scope, name) {
            for (sci, sscope, e) in self.receiver_sources.get(&f).cloned().unwrap_or_default() {
                for d in self.func_values(sci, sscope, e, depth + 1) {
                    push_decl(&mut out, d);
                }
            }
            return out;
        }
        if let Some(local) = self.local_sources(ci, scope, name) {
            for (sci, sscope, e) in local.values {
                for d in self.func_values(sci, sscope, e, depth + 1) {
                    push_decl(&mut out, d);
                }
            }
            return out;
        }
        let text = self.sym(ci, name);
        let pkg = self.ctxs[ci].pkg;
        if let Some(&(fci, fi)) = self.pkgs[pkg].funcs.get(text) {
            return vec![self.ctxs[fci].base + self.ctxs[fci].go.funcs[fi as usize].decl];
        }
        if let Some(&(vci, vname)) = self.pkgs[pkg].vars.get(text)
            && (vci != ci || scope != 0)
        {
            return self.ident_func_values(vci, 0, vname, depth + 1);
        }
        match self.dot_package(ci, text) {
            Some(dot) => self.package_member_values(dot, text, depth),
            None => out,
        }
    }

    pub(super) fn func_values(
        &mut self,
        ci: usize,
        scope: u32,
        e: ExprId,
        depth: u32,
    ) -> Vec<RawDeclId> {
        self.traced(ci, scope, Traced::Expr(e), depth)
    }

    pub(super) fn func_values_uncached(
        &mut self,
        ci: usize,
        scope: u32,
        e: ExprId,
        depth: u32,
    ) -> Vec<RawDeclId> {
        match self.expr(ci, e).clone() {
            GoExpr::FuncLit(d) => vec![self.ctxs[ci].base + d],
            GoExpr::Ident(n) => self.ident_func_values(ci, scope, n, depth + 1),
            GoExpr::Index(inner) | GoExpr::RangeValue(inner) | GoExpr::TypeAssert(inner, _) => {
                self.func_values(ci, scope, inner, depth + 1)
            }
            GoExpr::RangeKey(inner) if self.is_channel(ci, scope, inner) => {
                self.func_values(ci, scope, inner, depth + 1)
            }
            // A map, slice or array literal of functions: any of its elements.
            GoExpr::Composite(_) => {
                let mut out = Vec::new();
                let elems = self.composite_elems.get(&(ci, e)).cloned();
                for (escope, value) in elems.unwrap_or_default() {
                    for d in self.func_values(ci, escope, value, depth + 1) {
                        push_decl(&mut out, d);
                    }
                }
                out
            }
            GoExpr::Selector(base, name) => {
                let name_s = self.sym(ci, name);
                if let Some(pkg) = self.package_operand(ci, scope, base) {
                    return self.package_member_values(pkg, name_s, depth);
                }
                // A method value (`s.handle`) or expression (`T.handle`).
                let t = match self.type_of(ci, scope, base, 0) {
                    RType::TypeValue(t) => *t,
                    other => other,
                };
                match t.deref() {
                    RType::Named(PkgRef::Repo(p), tname, ..) => {
                        let (p, tname) = (*p, tname.clone());
                        if let Some(m) = self.method(p, &tname, name_s, 0) {
                            return vec![m];
                        }
                        // `f := s.Get` with `s` an interface: the methods of
                        // the types that flow to `s`.
                        if let Some(out) = self.interface_call(p, &tname, name_s) {
                            let name = name_s.to_owned();
                            let out = self.narrowed(out, (ci, scope), base, &name, depth, false);
                            let mut vals = Vec::new();
                            for c in out {
                                if let Callee::Decl(m, _) = c {
                                    push_decl(&mut vals, m);
                                }
                            }
                            return vals;
                        }
                        self.field_func_values(p, &tname, name_s, depth)
                    }
                    &RType::Struct(sci, t) => match self.anonymous_struct(sci, t) {
                        Some((p, pseudo, _)) => self.field_func_values(p, &pseudo, name_s, depth),
                        None => Vec::new(),
                    },
                    // A standard-library method value: `logger.Printf`, `wg.Done`.
                    RType::Named(PkgRef::Ext(path), tname, ..)
                        if !path.is_empty()
                            && go_std::std()
                                .method(&format!("{path}.{tname}"), name_s)
                                .is_some() =>
                    {
                        let method = external_method(path, tname, name_s);
                        vec![self.external_value(method)]
                    }
                    _ => Vec::new(),
                }
            }
            // `append(lx.stack, state)`: the slice and the elements appended
            // to it (a stack of state functions, a list of hooks).
            GoExpr::Call(c) if self.is_builtin_call(ci, scope, c, "append") => {
                let mut out = Vec::new();
                for a in self.ctxs[ci].go.calls[c as usize].args.clone() {
                    for d in self.func_values(ci, scope, a, depth + 1) {
                        push_decl(&mut out, d);
                    }
                }
                out
            }
            GoExpr::Call(c) => self.returned_func_values(ci, scope, c, 0, depth),
            GoExpr::Nth(inner, n) => match self.expr(ci, inner).clone() {
                GoExpr::Call(c) => self.returned_func_values(ci, scope, c, n, depth),
                // `f, ok := m[k]`, `f, ok := v.(func())`
                GoExpr::Index(_) | GoExpr::TypeAssert(..) if n == 0 => {
                    self.func_values(ci, scope, inner, depth + 1)
                }
                _ => Vec::new(),
            },
            _ => Vec::new(),
        }
    }

    /// Functions returned (at position `n`) by the functions a call reaches.
    pub(super) fn returned_func_values(
        &mut self,
        ci: usize,
        scope: u32,
        call: u32,
        n: u8,
        depth: u32,
    ) -> Vec<RawDeclId> {
        let (callee, args) = {
            let c = &self.ctxs[ci].go.calls[call as usize];
            (c.callee, c.args.clone())
        };
        let mut out = Vec::new();
        for t in self.fresh_callees(ci, scope, callee, depth) {
            let f = match t {
                Callee::Decl(f, _) => f,
                // `encoderFunc(func(…) {…})`: a conversion keeps the function.
                Callee::NotACall if n == 0 && args.len() == 1 => {
                    for d in self.func_values(ci, scope, args[0], depth + 1) {
                        push_decl(&mut out, d);
                    }
                    continue;
                }
                // What a library container gives back (`sync.Map.Load`,
                // `atomic.Value.Load`, `sync.Pool.Get`) may be a function
                // the repository handed that package.
                Callee::External(name) | Callee::ExternalValue(name, _)
                    if library_result_may_hold_anything(&name, n) =>
                {
                    if let Some(funcs) =
                        external_package(&name).and_then(|p| self.funcs_handed_to_library.get(p))
                    {
                        for &d in funcs {
                            push_decl(&mut out, d);
                        }
                    }
                    continue;
                }
                // A function the library makes (`context.WithCancel`'s
                // cancel is `context.WithCancel$1`).
                Callee::External(name) => {
                    if let Some(funcs) = go_std::std().dynamic_results(&name, n) {
                        for f in funcs {
                            let v = self.external_value((*f).to_owned());
                            push_decl(&mut out, v);
                        }
                    }
                    continue;
                }
                _ => continue,
            };
            for (rci, rscope, pos, e) in self.returns_of.get(&f).cloned().unwrap_or_default() {
                if pos == n {
                    for d in self.func_values(rci, rscope, e, depth + 1) {
                        push_decl(&mut out, d);
                    }
                }
            }
        }
        out
    }

    /// The functions a conversion call (`T(f)`, one argument) converts.
    pub(super) fn converted_functions(
        &mut self,
        ci: usize,
        scope: u32,
        call: u32,
        depth: u32,
    ) -> Vec<RawDeclId> {
        let (callee, args) = {
            let c = &self.ctxs[ci].go.calls[call as usize];
            (c.callee, c.args.clone())
        };
        let [arg] = args.as_slice() else {
            return Vec::new();
        };
        let funcs = self.func_values(ci, scope, *arg, depth + 1);
        if funcs.is_empty()
            || !self
                .callees(ci, scope, callee, depth + 1)
                .iter()
                .any(|c| matches!(c, Callee::NotACall))
        {
            return Vec::new();
        }
        funcs.into_iter().filter(|&f| f < EXTERNAL_VALUE).collect()
    }

    /// Record, for every call with known targets, which argument expressions
    /// flow into which parameters (what a function-typed parameter may hold).
    pub(super) fn collect_param_sources(&mut self) {
        let mut sources: HashMap<(RawDeclId, usize), Vec<ValueSource>> = HashMap::default();
        let mut overflow: HashSet<(RawDeclId, usize)> = HashSet::default();
        let mut receivers: HashMap<RawDeclId, Vec<ValueSource>> = HashMap::default();
        for ci in 0..self.ctxs.len() {
            for call in 0..self.ctxs[ci].go.calls.len() {
                let scope = self.ctxs[ci].facts.calls[call].caller;
                let (callee, args) = {
                    let c = &self.ctxs[ci].go.calls[call];
                    (c.callee, c.args.clone())
                };
                if args.is_empty() {
                    continue;
                }
                for t in self.callees(ci, scope, callee, 0) {
                    if let Callee::External(name) = &t {
                        self.note_handed_to_library(ci, scope, name, &args);
                        continue;
                    }
                    let Callee::Decl(f, _) = t else { continue };
                    if self.func_receivers.contains_key(&f)
                        && let GoExpr::Selector(recv, _) = *self.expr(ci, callee)
                    {
                        let list = receivers.entry(f).or_default();
                        if list.len() < MAX_SOURCES && !list.contains(&(ci, scope, recv)) {
                            list.push((ci, scope, recv));
                        }
                    }
                    // Arguments past the last parameter fill a variadic one
                    // (`NewCJK(WithA(), WithB())` into `opts ...Option`).
                    let last = self
                        .params_of
                        .get(&f)
                        .and_then(|ps| ps.len().checked_sub(1))
                        .unwrap_or(usize::MAX);
                    for (i, &a) in args.iter().enumerate() {
                        let i = i.min(last);
                        // A literal (expression 0) holds no function and no
                        // value with methods.
                        if a == 0 {
                            continue;
                        }
                        let list = sources.entry((f, i)).or_default();
                        if list.len() < MAX_SOURCES {
                            list.push((ci, scope, a));
                        } else {
                            overflow.insert((f, i));
                        }
                    }
                }
            }
        }

        self.param_sources = sources;
        self.param_overflow = overflow;
        self.receiver_sources = receivers;
        // Traced values depend on the parameter sources just replaced.
        self.trace_memo.clear();
    }

    pub(super) fn collect_field_sources(&mut self) {
        for ci in 0..self.ctxs.len() {
            for &(scope, composite, key, value) in &self.ctxs[ci].go.composite_elems {
                self.composite_elems
                    .entry((ci, composite))
                    .or_default()
                    .push((scope, value));
                let Some((p, holder, fields)) =
                    self.field_holder(&self.type_of(ci, scope, composite, 0))
                else {
                    continue;
                };
                let field = match key {
                    ElemKey::Name(n) => Some(self.sym(ci, n).to_owned()),
                    ElemKey::Position(i) => match fields {
                        Some(names) => names.get(i as usize).cloned(),
                        None => self.field_name_at(p, &holder, i as usize),
                    },
                    ElemKey::Other => None,
                };
                if let Some(field) = field {
                    self.add_field_source(p, &holder, &field, (ci, scope, value));
                }
            }
            for &(scope, target, value) in &self.ctxs[ci].go.field_assigns {
                let GoExpr::Selector(base, field) = self.expr(ci, target) else {
                    continue;
                };
                let field = self.sym(ci, *field);
                if let Some((p, holder, _)) = self.field_holder(&self.type_of(ci, scope, *base, 0))
                {
                    self.add_field_source(p, &holder, field, (ci, scope, value));
                }
            }
        }
    }

    /// One more value stored in a field, keyed by the struct that declares
    /// the field (`outer.f = v` may set a field promoted from `inner`).
    pub(super) fn add_field_source(
        &mut self,
        p: usize,
        tname: &str,
        field: &str,
        source: ValueSource,
    ) {
        if source.2 == 0 {
            return;
        }
        let key = self.field_key(p, tname, field);
        let list = self.field_sources.entry(key.clone()).or_default();
        if list.len() < MAX_SOURCES {
            list.push(source);
        } else {
            self.field_overflow.insert(key);
        }
    }

    /// Functions assigned to a struct field anywhere in the repository.
    pub(super) fn field_func_values(
        &mut self,
        p: usize,
        tname: &str,
        field: &str,
        depth: u32,
    ) -> Vec<RawDeclId> {
        let key = self.field_key(p, tname, field);
        let mut out = Vec::new();
        for (sci, sscope, e) in self.field_sources.get(&key).cloned().unwrap_or_default() {
            for d in self.func_values(sci, sscope, e, depth + 1) {
                push_decl(&mut out, d);
            }
        }
        out
    }
}

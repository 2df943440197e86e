//! Method calls on a receiver the analysis knows nothing about
//! (`handler.handle_request(req)` where `handler` is a parameter no caller
//! fills): the repository methods of that name are the candidates, the way
//! an interface call in Go takes every implementation. Only names few
//! classes define, with an arity that fits the call, and never a name a
//! builtin type or a common library object has (an unknown receiver of
//! `.append` is far likelier a list than the one class that also defines
//! it, and one of `.write` a file).

use super::Analysis;
use super::library::{DICT_ALL_METHODS, LIST_METHODS, SET_METHODS, STR_METHODS, TUPLE_METHODS};
use super::values::Value;
use crate::lang::python::{ExprId, ParamKind, PyExpr, PyFacts, PyFlow};
use crate::model::{DeclKind, Sym};
use crate::resolve::RawDeclId;
use rustc_hash::FxHashSet as HashSet;

/// The most repository methods one name may have for a call on an unknown
/// receiver to take them all. More than a handful is a common name
/// (`run`, `close`) that says nothing about the receiver.
pub(super) const MAX_METHODS_BY_NAME: usize = 3;

impl<'a> Analysis<'a> {
    /// The repository methods a call on an unknown receiver may reach, by
    /// the method's name and the call's arity; empty unless the receiver
    /// evaluates to nothing at all. The calling method itself is never one:
    /// `self.inner.close()` inside `close` delegates to another object.
    pub(super) fn methods_by_name(
        &mut self,
        ci: usize,
        call: usize,
        caller: RawDeclId,
    ) -> Vec<RawDeclId> {
        let py = self.files[ci].py;
        let site = &py.calls[call];
        let Some(&PyExpr::Attr { base, name }) = py.exprs.get(site.callee as usize) else {
            return Vec::new();
        };
        let text = self.files[ci].facts.sym(name);
        if is_dunder(text) || is_builtin_method(text) || LIBRARY_OBJECT_METHODS.contains(&text) {
            return Vec::new();
        }
        let gname = self.gsym(ci, name);
        let Some(classes) = self.class_definers.get(&gname).cloned() else {
            return Vec::new();
        };
        let mut found = Vec::new();
        for class in classes {
            for v in self.get(super::values::Slot::Var(class, gname)) {
                if let Value::Func(f) = v
                    && self.decl_kind.get(f as usize) == Some(&DeclKind::Method)
                    && f != caller
                    && !found.contains(&f)
                {
                    found.push(f);
                }
            }
            if found.len() > MAX_METHODS_BY_NAME {
                return Vec::new();
            }
        }
        found.retain(|&f| {
            self.arity_fits(
                f,
                ci,
                site.args.len(),
                &site.kwargs,
                !site.splats.is_empty(),
            )
        });
        // The receiver is evaluated last: most names fail the cheaper tests.
        if found.is_empty() || self.library_made(ci, base) || !self.eval(ci, base, 0).is_empty() {
            return Vec::new();
        }
        found.sort_unstable();
        found
    }

    /// Whether receiver `expr` holds what a call into code outside the
    /// repository returned: such a call itself (`hashlib.md5(b).digest()`),
    /// or a name or attribute the file assigns one to (`self.conn =
    /// sqlite3.connect(path)`, then `self.conn.execute(sql)`), an element
    /// of one (`for entry in os.scandir(p)`), or an attribute of a library
    /// value (`resp.raw`). Its methods
    /// are the library's, whatever the repository's classes define.
    fn library_made(&mut self, ci: usize, expr: ExprId) -> bool {
        let py = self.files[ci].py;
        if self.library_made.as_ref().is_none_or(|(c, _)| *c != ci) {
            // Two passes: `it = os.scandir(p)` comes before `for e in it`.
            let mut names = HashSet::default();
            for _ in 0..2 {
                for flow in &py.flows {
                    let &PyFlow::Assign { target, value } = flow else {
                        continue;
                    };
                    let drawn_from = match py.exprs.get(value as usize) {
                        Some(&PyExpr::Iter(inner)) => inner,
                        _ => value,
                    };
                    let made = self.returns_library_value(ci, drawn_from)
                        || (drawn_from != value
                            && assigned_name(py, drawn_from).is_some_and(|k| names.contains(&k)));
                    if made && let Some(key) = assigned_name(py, target) {
                        names.insert(key);
                    }
                }
            }
            self.library_made = Some((ci, names));
        }
        if self.returns_library_value(ci, expr) {
            return true;
        }
        // An attribute of a library value (`resp.headers`).
        if let Some(&PyExpr::Attr { base, .. }) = py.exprs.get(expr as usize)
            && self
                .eval(ci, base, 0)
                .iter()
                .any(|v| matches!(v, Value::External(_)))
        {
            return true;
        }
        match (assigned_name(py, expr), &self.library_made) {
            (Some(key), Some((_, names))) => names.contains(&key),
            _ => false,
        }
    }

    /// Whether `expr` is a call whose callee is only code outside the
    /// repository.
    fn returns_library_value(&mut self, ci: usize, expr: ExprId) -> bool {
        let py = self.files[ci].py;
        let Some(&PyExpr::Call(call)) = py.exprs.get(expr as usize) else {
            return false;
        };
        let Some(site) = py.calls.get(call as usize) else {
            return false;
        };
        let callees = self.eval(ci, site.callee, 0);
        !callees.is_empty() && callees.iter().all(|v| matches!(v, Value::External(_)))
    }

    /// Whether method `f` accepts `positional` arguments after its receiver
    /// and the keywords `kwargs` written in file context `call_ctx`.
    /// Defaults are not in the facts, so too few arguments never rule a
    /// method out; too many, or a keyword it lacks, do. A call with
    /// `*args` or `**kwargs` fits any method.
    fn arity_fits(
        &self,
        f: RawDeclId,
        call_ctx: usize,
        positional: usize,
        kwargs: &[(Sym, ExprId)],
        splatted: bool,
    ) -> bool {
        if splatted {
            return true;
        }
        let Some((info, ci)) = self.py_info(f) else {
            return false;
        };
        if info.is_property {
            return false;
        }
        let facts = self.files[ci].facts;
        let receiver = usize::from(!info.is_staticmethod);
        let mut takes = 0;
        let mut var_args = false;
        let mut var_kwargs = false;
        for p in &info.params {
            match p.kind {
                ParamKind::Positional | ParamKind::PositionalOnly => takes += 1,
                ParamKind::VarArgs => var_args = true,
                ParamKind::VarKwargs => var_kwargs = true,
                ParamKind::KeywordOnly => {}
            }
        }
        if !var_args && positional + receiver > takes {
            return false;
        }
        let call_facts = self.files[call_ctx].facts;
        var_kwargs
            || kwargs.iter().all(|&(k, _)| {
                let k = call_facts.sym(k);
                info.params.iter().any(|p| {
                    p.kind != ParamKind::PositionalOnly
                        && p.kind != ParamKind::VarArgs
                        && facts.sym(p.name) == k
                })
            })
    }
}

fn is_dunder(name: &str) -> bool {
    name.len() > 4 && name.starts_with("__") && name.ends_with("__")
}

fn is_builtin_method(name: &str) -> bool {
    [
        LIST_METHODS,
        DICT_ALL_METHODS,
        SET_METHODS,
        TUPLE_METHODS,
        STR_METHODS,
        NUMBER_AND_BYTES_METHODS,
    ]
    .iter()
    .any(|methods| methods.contains(&name))
}

/// The public methods of `int`, `float`, `bytes` and `bytearray` that
/// `str` and the containers lack (`dir()`, CPython 3.11).
const NUMBER_AND_BYTES_METHODS: &[&str] = &[
    "as_integer_ratio",
    "bit_count",
    "bit_length",
    "conjugate",
    "from_bytes",
    "fromhex",
    "hex",
    "is_integer",
    "to_bytes",
    "decode",
];

/// Methods of the library objects a receiver the analysis cannot type most
/// often is: files and streams, sockets, regular-expression matches,
/// locks, events and threads.
const LIBRARY_OBJECT_METHODS: &[&str] = &[
    // io
    "close",
    "fileno",
    "flush",
    "read",
    "readable",
    "readinto",
    "readline",
    "readlines",
    "seek",
    "seekable",
    "tell",
    "truncate",
    "writable",
    "write",
    "writelines",
    // socket
    "accept",
    "bind",
    "connect",
    "getpeername",
    "getsockname",
    "gettimeout",
    "listen",
    "recv",
    "recv_into",
    "recvfrom",
    "send",
    "sendall",
    "sendto",
    "setblocking",
    "setsockopt",
    "settimeout",
    "shutdown",
    // re.Match and re.Pattern
    "end",
    "findall",
    "finditer",
    "fullmatch",
    "group",
    "groupdict",
    "groups",
    "match",
    "search",
    "span",
    "start",
    "sub",
    "subn",
    // threading
    "acquire",
    "is_alive",
    "is_set",
    "join",
    "locked",
    "notify",
    "notify_all",
    "release",
    "set",
    "wait",
];

/// A variable as (scope, name), an attribute of anything as (`u32::MAX`,
/// name): how a receiver is matched with the assignments to it.
fn assigned_name(py: &PyFacts, expr: ExprId) -> Option<(u32, Sym)> {
    match *py.exprs.get(expr as usize)? {
        PyExpr::Var { scope, name } => Some((scope, name)),
        PyExpr::Attr { name, .. } => Some((u32::MAX, name)),
        _ => None,
    }
}

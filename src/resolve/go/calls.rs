//! The callees of a call site: functions, methods on the receiver's type,
//! interface dispatch, and function values.

use super::flow::FLOW_UNKNOWN;
use super::library::{external_method, std_interface};
use super::methods::methods_key;
use super::{Analysis, BUILTIN_FUNCS, BUILTIN_TYPES, Callee, EXTERNAL_VALUE, PkgRef, RType};
use crate::lang::go::{ExprId, GoExpr, GoType};
use crate::model::Confidence;
use crate::resolve::{RawDeclId, go_std};

/// Add a possible call of an external method, once.
pub(super) fn push_external(out: &mut Vec<Callee>, method: String) {
    if !out
        .iter()
        .any(|c| matches!(c, Callee::ExternalValue(k, _) if *k == method))
    {
        out.push(Callee::ExternalValue(method, Confidence::Possible));
    }
}

impl<'a> Analysis<'a> {
    /// Method `name` of every repository type that has all of `methods`:
    /// the callees of a call through an interface with that method set.
    pub(super) fn possible_methods(&mut self, methods: &[(&str, u16)], name: &str) -> Vec<Callee> {
        let key = methods_key(methods);
        let memo_key = (usize::MAX, key.clone(), name.to_owned());
        if let Some(Some(memo)) = self.interface_calls.get(&memo_key) {
            return memo.clone();
        }
        let out: Vec<Callee> = self
            .implementors_of(key, methods)
            .iter()
            .filter_map(|(p, t)| self.method(*p, t, name, 0))
            .map(|m| Callee::Decl(m, Confidence::Possible))
            .collect();
        self.interface_calls.insert(memo_key, Some(out.clone()));
        out
    }

    /// Functions and closures an expression may evaluate to.
    /// Callees reached through a function value: one candidate is likely, several are possible.
    pub(super) fn func_value_callees(&self, vals: Vec<RawDeclId>) -> Vec<Callee> {
        let conf = if vals.len() == 1 {
            Confidence::Likely
        } else {
            Confidence::Possible
        };
        vals.into_iter()
            .filter_map(|d| match d.checked_sub(EXTERNAL_VALUE) {
                // `time.UTC`, `time.April` traced into an `interface{}`
                // that a func type is asserted from: no callee.
                Some(i) => match self.external_values.get(i as usize) {
                    Some(name) if !go_std::std().may_call(name) => None,
                    Some(name) => Some(Callee::ExternalValue(name.clone(), conf)),
                    None => Some(Callee::Unresolved("dynamic callee".to_owned())),
                },
                None => Some(Callee::Decl(d, conf)),
            })
            .collect()
    }

    /// The callees of a call whose results a trace follows, found afresh
    /// rather than at the trace's depth, which would leave no room for them
    /// (a callee reached through a chain of function values, such as a
    /// middleware calling the handler it wraps, was lost), and without
    /// narrowing its interface calls in turn, which would start another
    /// trace inside this one. Afresh only once on the stack, which bounds it.
    pub(super) fn fresh_callees(
        &mut self,
        ci: usize,
        scope: u32,
        callee: ExprId,
        depth: u32,
    ) -> Vec<Callee> {
        if self.fresh_callee_nesting > 0 {
            return self.callees(ci, scope, callee, depth + 1);
        }
        self.fresh_callee_nesting += 1;
        let narrow = std::mem::replace(&mut self.narrow_interface_calls, false);
        let targets = self.callees(ci, scope, callee, 0);
        self.narrow_interface_calls = narrow;
        self.fresh_callee_nesting -= 1;
        targets
    }

    pub(super) fn callees(
        &mut self,
        ci: usize,
        scope: u32,
        callee: ExprId,
        depth: u32,
    ) -> Vec<Callee> {
        if depth > 8 {
            return vec![Callee::Unresolved("callee too deeply nested".to_owned())];
        }
        match self.expr(ci, callee).clone() {
            GoExpr::Ident(n) => {
                let name = self.sym(ci, n);
                if self.local(ci, scope, n).is_some() {
                    let vals = self.ident_func_values(ci, scope, n, depth);
                    if vals.is_empty() {
                        return vec![Callee::Unresolved(format!(
                            "`{name}` holds a function value that could not be traced"
                        ))];
                    }
                    return self.func_value_callees(vals);
                }
                let pkg = self.ctxs[ci].pkg;
                if let Some(&(fci, fi)) = self.pkgs[pkg].funcs.get(name) {
                    let d = self.ctxs[fci].base + self.ctxs[fci].go.funcs[fi as usize].decl;
                    return vec![Callee::Decl(d, Confidence::Certain)];
                }
                if BUILTIN_FUNCS.contains(&name)
                    || BUILTIN_TYPES.contains(&name)
                    || self.pkgs[pkg].types.contains_key(name)
                {
                    return vec![Callee::NotACall];
                }
                if let Some(dot) = self.dot_package(ci, name) {
                    return self.package_member_callees(dot, name, depth);
                }
                vec![Callee::Unresolved(format!(
                    "`{name}` is not declared in package {}",
                    self.pkgs[pkg].path
                ))]
            }
            GoExpr::FuncLit(d) => vec![Callee::Decl(self.ctxs[ci].base + d, Confidence::Certain)],
            // `Map[int](xs)` instantiates a generic function; `handlers[k](x)`
            // calls an element of a map or slice of functions.
            GoExpr::Index(inner) => {
                let direct = self.callees(ci, scope, inner, depth + 1);
                if direct.iter().all(|c| matches!(c, Callee::Unresolved(_))) {
                    let vals = self.func_values(ci, scope, callee, depth + 1);
                    if !vals.is_empty() {
                        return self.func_value_callees(vals);
                    }
                }
                direct
            }
            GoExpr::Type(_) | GoExpr::Composite(_) => vec![Callee::NotACall],
            GoExpr::Selector(base, name) => {
                let name_s = self.sym(ci, name);
                if let Some(pkg) = self.package_operand(ci, scope, base) {
                    return self.package_member_callees(pkg, name_s, depth);
                }
                let bt = self.type_of(ci, scope, base, 0);
                let (is_type_value, t) = match bt {
                    RType::TypeValue(t) => (true, *t),
                    other => (false, other),
                };
                match self.interface_behind(t.deref().clone(), 0) {
                    RType::Named(PkgRef::Repo(p), tname, args) => {
                        if let Some(m) = self.method(p, &tname, name_s, 0) {
                            return vec![Callee::Decl(m, Confidence::Certain)];
                        }
                        if let Some(out) = self.interface_call(p, &tname, name_s) {
                            let name = name_s.to_owned();
                            return self.narrowed(out, (ci, scope), base, &name, depth, false);
                        }
                        if let Some(ft) = self.field_type(p, &tname, name_s, &args, 0)
                            && self.is_func_type(&ft)
                        {
                            let vals = self.field_func_values(p, &tname, name_s, depth);
                            if vals.is_empty() {
                                return vec![Callee::Unresolved(format!(
                                    "`.{name_s}` is a function-valued field with no traced assignment"
                                ))];
                            }
                            return self.func_value_callees(vals);
                        }
                        let _ = is_type_value;
                        // Promoted from an embedded interface (`struct{ Store }`):
                        // a call through the interface the field holds.
                        if let Some((ip, iname)) = self.embedded_interface(p, &tname, name_s)
                            && let Some(out) = self.interface_call(ip, &iname, name_s)
                        {
                            let flow = self.field_flow(p, &tname, &iname, depth + 1);
                            return self.narrowed_by(out, flow, name_s, false);
                        }
                        // Promoted from an embedded interface from outside
                        // (`struct{ error; depth int }`): the call goes on
                        // to what the field holds.
                        if let Some(iface) = self.embedded_std_interface(p, &tname, name_s) {
                            let flow = self.field_flow(p, &tname, &iface, depth + 1);
                            if let Some(callees) = self.known_flow_methods(&flow, name_s) {
                                return callees;
                            }
                        }
                        // Promoted from an embedded type outside the repository
                        // (`struct { bytes.Buffer }` has WriteString).
                        if let Some((path, ext)) = self.external_embedded(p, &tname, 0) {
                            return vec![Callee::External(external_method(&path, &ext, name_s))];
                        }
                        vec![Callee::Unresolved(format!(
                            "`{name_s}` not found on {tname}"
                        ))]
                    }
                    RType::Named(PkgRef::Ext(path), tname, ..) => {
                        // A well-known interface (io.Writer, error, fmt.Stringer…):
                        // every repository type with that method set may be behind it.
                        let qualified = if path.is_empty() {
                            tname.clone()
                        } else {
                            format!("{path}.{tname}")
                        };
                        if let Some(methods) = std_interface(&qualified) {
                            let name = name_s.to_owned();
                            let out = self.possible_methods(methods, &name);
                            // Only values from the library itself: the call
                            // stays the interface's method, outside.
                            let mut out = self.narrowed(out, (ci, scope), base, &name, depth, true);
                            // No repository type has the whole method set,
                            // but a wrapper that gets part of it from an
                            // embedded interface may flow here: the call
                            // goes on to what that field holds.
                            if out.is_empty() && self.narrow_interface_calls {
                                let flow = self.flowing_types(ci, scope, base, depth + 1);
                                if !flow.contains(&FLOW_UNKNOWN)
                                    && let Some(methods) = self.flow_methods(&flow, &name, 0)
                                {
                                    out.extend(
                                        methods
                                            .into_iter()
                                            .map(|m| Callee::Decl(m, Confidence::Possible)),
                                    );
                                }
                            }
                            if out.is_empty() && self.narrow_interface_calls {
                                let flow = self.flowing_types(ci, scope, base, depth + 1);
                                out = self.library_made_methods(&flow, &qualified, &name);
                            }
                            if out.is_empty() {
                                out.push(Callee::External(if path.is_empty() {
                                    format!("({qualified}).{name_s}")
                                } else {
                                    external_method(&path, &tname, name_s)
                                }));
                            }
                            return out;
                        }
                        if path.is_empty() {
                            return vec![Callee::External(format!("({tname}).{name_s}"))];
                        }
                        vec![Callee::External(external_method(&path, &tname, name_s))]
                    }
                    // `var cache struct { sync.RWMutex; m map[K]V }`:
                    // `cache.RLock()` is promoted from the embedded field.
                    // `if u, ok := err.(interface{ Usage() string }); ok { u.Usage() }`
                    RType::Struct(sci, t)
                        if let Some(GoType::Interface(methods)) =
                            self.ctxs[sci].go.types.get(t as usize) =>
                    {
                        let methods: Vec<(&str, u16)> = methods
                            .iter()
                            .map(|&(m, a)| (self.sym(sci, m), a))
                            .collect();
                        let out = self.possible_methods(&methods, name_s);
                        if out.is_empty() {
                            vec![Callee::Unresolved(format!(
                                "no type in the repository has `{name_s}`"
                            ))]
                        } else {
                            out
                        }
                    }
                    RType::Struct(sci, t) => match self.anonymous_struct_method(sci, t, name_s) {
                        Some(callee) => vec![callee],
                        None => {
                            // A function-valued field (`tt.fn()` of a test table).
                            let vals = match self.anonymous_struct(sci, t) {
                                Some((p, pseudo, _)) => {
                                    self.field_func_values(p, &pseudo, name_s, depth)
                                }
                                None => Vec::new(),
                            };
                            if vals.is_empty() {
                                vec![Callee::Unresolved(format!(
                                    "`.{name_s}` of an anonymous struct could not be resolved"
                                ))]
                            } else {
                                self.func_value_callees(vals)
                            }
                        }
                    },
                    _ => vec![Callee::Unresolved(format!(
                        "the receiver of `.{name_s}` has no known type"
                    ))],
                }
            }
            GoExpr::Call(_) | GoExpr::Nth(..) => {
                let vals = self.func_values(ci, scope, callee, depth);
                if vals.is_empty() {
                    return vec![Callee::Unresolved(
                        "callee is a function returned by a call that could not be traced"
                            .to_owned(),
                    )];
                }
                self.func_value_callees(vals)
            }
            GoExpr::Unknown => vec![Callee::Unresolved(
                "callee is a function returned by a call".to_owned(),
            )],
            // `(*T)(nil)`, as in `var _ I = (*T)(nil)`: a conversion.
            GoExpr::Deref(_)
                if matches!(self.type_of(ci, scope, callee, 0), RType::TypeValue(_)) =>
            {
                vec![Callee::NotACall]
            }
            _ => vec![Callee::Unresolved("dynamic callee".to_owned())],
        }
    }

    /// A call of method `name` on the repository's interface `p.iface`:
    /// every implementing type's method (Possible), or None when `iface`
    /// is no interface. Memoised: a common interface (`error`-like, or a
    /// `Node` with hundreds of implementors) is called at thousands of
    /// sites, and each answer walks every implementor.
    pub(super) fn interface_call(
        &mut self,
        p: usize,
        iface: &str,
        name: &str,
    ) -> Option<Vec<Callee>> {
        let key = (p, iface.to_owned(), name.to_owned());
        if let Some(memo) = self.interface_calls.get(&key) {
            return memo.clone();
        }
        let out = self.interface_call_uncached(p, iface, name);
        self.interface_calls.insert(key, out.clone());
        out
    }

    pub(super) fn interface_call_uncached(
        &mut self,
        p: usize,
        iface: &str,
        name: &str,
    ) -> Option<Vec<Callee>> {
        let wanted = self.interface_methods(p, iface, 0)?;
        let impls = self.implementors(p, iface);
        let mut out = Vec::new();
        for (ip, it) in impls {
            if let Some(m) = self.method(ip, &it, name, 0) {
                out.push(Callee::Decl(m, Confidence::Possible));
            } else if let Some(m) = self.promoted_std_method(ip, &it, name, 0) {
                push_external(&mut out, m);
            }
        }
        // `util.BufWriter` holds the `*bufio.Writer` that
        // `bufio.NewWriter` made.
        for (path, ext) in self.std_implementors(p, iface, &wanted) {
            out.push(Callee::ExternalValue(
                external_method(&path, &ext, name),
                Confidence::Possible,
            ));
        }
        if out.is_empty() {
            return Some(vec![Callee::Unresolved(format!(
                "no type in the repository implements {iface}"
            ))]);
        }
        Some(out)
    }
}

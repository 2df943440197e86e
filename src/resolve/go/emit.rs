//! Edges of one call site with their confidence, unresolved calls with a
//! reason, and the functions a call hands to code ripple does not follow.

use super::library::{library_calls_what_it_is_handed, optional_methods_called};
use super::{Analysis, Callee};
use crate::lang::go::GoExpr;
use crate::model::{Confidence, DeclKind, Lang};
use crate::resolve::{Builder, RawDeclId, go_std};
use smallvec::SmallVec;

impl<'a> Analysis<'a> {
    pub(super) fn emit(&mut self, b: &mut Builder, ci: usize, call: usize) {
        let facts = self.ctxs[ci].facts;
        let site = &facts.calls[call];
        let scope = site.caller;
        let caller = self.ctxs[ci].base + scope;
        let callee = self.ctxs[ci].go.calls[call].callee;
        let file = self.ctxs[ci].file;
        let targets = self.callees(ci, scope, callee, 0);
        let mut resolved = false;
        // The callee is code ripple does not follow (the standard library,
        // another module, or nothing found): functions passed to it may be
        // called from there (`http.HandleFunc("/", handler)`).
        let mut opaque = false;
        // Whether the callee is library code that calls what it is handed.
        let mut calls_handed = false;
        let mut library_callees: SmallVec<[String; 1]> = SmallVec::new();
        for t in &targets {
            if let Callee::External(name) | Callee::ExternalValue(name, _) = t
                && (!go_std::std().interface_params(name).is_empty()
                    || optional_methods_called(name).is_some())
            {
                library_callees.push(name.clone());
            }
        }
        for name in library_callees {
            self.edges_to_interface_methods_handed(b, ci, call, caller, &name);
        }
        for t in targets {
            match t {
                Callee::Decl(d, conf) => {
                    b.edge(caller, d, conf, file, call as u32);
                    resolved = true;
                }
                Callee::External(name) => {
                    let d = b.external(&name, Lang::Go);
                    b.edge(caller, d, Confidence::Certain, file, call as u32);
                    resolved = true;
                    opaque = true;
                    calls_handed |= library_calls_what_it_is_handed(&name);
                }
                Callee::ExternalValue(name, conf) => {
                    let d = b.external(&name, Lang::Go);
                    b.edge(caller, d, conf, file, call as u32);
                    resolved = true;
                    opaque = true;
                    calls_handed |= library_calls_what_it_is_handed(&name);
                }
                Callee::Through(method, f) => {
                    let d = b.external(&method, Lang::Go);
                    b.edge(d, f, Confidence::Possible, file, call as u32);
                }
                Callee::NotACall => resolved = true,
                Callee::Unresolved(reason) => {
                    if !resolved {
                        b.unresolved(caller, file, call as u32, reason);
                        resolved = true;
                    }
                    opaque = true;
                }
            }
        }
        if opaque {
            self.note_handed_out(b, ci, call, caller, calls_handed);
        }
    }

    /// Record the repository functions a call passes to code ripple does
    /// not follow (see [`crate::resolve::HandedOut`]): function literals and the
    /// names of functions (`handler`, `pkg.Handler`). Function values held
    /// in variables are not traced here: tracing every argument of every
    /// call into the standard library cost Go's `src` 30-50 MB.
    ///
    /// When the callee is library code that calls what it is handed
    /// (`t.Run("case", func(t *testing.T) {…})`, `sort.Slice(xs, less)`,
    /// `once.Do(setup)`, `http.HandleFunc("/", hello)`), the function is
    /// also a callee of the caller, `likely`: the library's own frames are
    /// not in the graph, and without the edge a subtest's body reached no
    /// test and a handler no caller. Whole-program graphs draw the edge
    /// from the library's internals instead, which a repository-only graph
    /// drops.
    pub(super) fn note_handed_out(
        &mut self,
        b: &mut Builder,
        ci: usize,
        call: usize,
        caller: RawDeclId,
        calls_handed: bool,
    ) {
        let go = self.ctxs[ci].go;
        let scope = self.ctxs[ci].facts.calls[call].caller;
        let file = self.ctxs[ci].file;
        let mut seen: Vec<RawDeclId> = Vec::new();
        for &arg in &go.calls[call].args {
            // A method value on a variable (`s.health`, `h.ServeHTTP`) is
            // named as surely as `pkg.Handler`: its receiver's type picks
            // the method, with no value to trace.
            let (named, methods_only) = match go.exprs.get(arg as usize) {
                Some(GoExpr::FuncLit(_)) => (true, false),
                Some(&GoExpr::Ident(n)) => (self.local(ci, scope, n).is_none(), false),
                Some(&GoExpr::Selector(base, _)) => match go.exprs.get(base as usize) {
                    Some(&GoExpr::Ident(n)) => (true, self.local(ci, scope, n).is_some()),
                    _ => (false, false),
                },
                _ => (false, false),
            };
            if !named {
                continue;
            }
            for t in self.callees(ci, scope, arg, 0) {
                if let Callee::Decl(f, _) = t
                    && (!methods_only || b.res.decls[f as usize].kind == DeclKind::Method)
                    && !seen.contains(&f)
                {
                    seen.push(f);
                    b.handed_out(f, caller, file, call as u32);
                    if calls_handed {
                        b.edge(caller, f, Confidence::Likely, file, call as u32);
                    }
                }
            }
        }
    }
}

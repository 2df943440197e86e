//! The standard library and other packages outside the repository: external
//! method names, the library's interfaces and result types (`go_std`), the
//! values it makes or gives back, and the repository methods and functions
//! it calls when handed them.

use super::calls::push_external;
use super::flow::{FLOW_EXTERNAL, FLOW_UNKNOWN, push_flow};
use super::methods::SOLE_IMPLEMENTATIONS;
use super::packages::external_package;
use super::types::canonical_basic;
use super::values::push_decl;
use super::{Analysis, Callee, EXTERNAL_VALUE, PkgRef, RType};
use crate::lang::go::{Binding, ExprId, GoExpr, GoType, TypeId};
use crate::model::Confidence;
use crate::resolve::{Builder, RawDeclId, go_std};
use rustc_hash::FxHashSet as HashSet;
use smallvec::SmallVec;

/// SSA name of a method of a type outside the repository. Whether it has a
/// pointer receiver is not known here; Go takes the address of addressable
/// values, so pointer is the better guess except for the standard
/// library's value types.
pub(super) fn external_method(path: &str, tname: &str, method: &str) -> String {
    let qualified = format!("{path}.{tname}");
    if let Some((_, concrete)) = SOLE_IMPLEMENTATIONS.iter().find(|(i, _)| *i == qualified) {
        return format!("({concrete}).{method}");
    }
    let std = go_std::std();
    if std.interface(&qualified).is_some() {
        return format!("({qualified}).{method}");
    }
    // A call of a promoted method names the method where it is declared.
    if let Some((origin, pointer)) = std.promoted_from(&qualified, method) {
        return if pointer {
            format!("(*{origin}).{method}")
        } else {
            format!("({origin}).{method}")
        };
    }
    match std.method(&qualified, method) {
        Some((false, _)) => format!("({qualified}).{method}"),
        // A pointer receiver, or a type outside the standard library (or a
        // promoted method) whose receiver is not known: Go takes the
        // address of addressable values, so a pointer is the better guess.
        _ => format!("(*{qualified}).{method}"),
    }
}

/// A receiver's type without its type parameters (`Stack[T]` is `Stack`).
pub(super) fn receiver_type_name(recv: &str) -> &str {
    recv.split('[').next().unwrap_or(recv)
}

/// Whether result `n` of the function or method `name` outside the
/// repository may be any value (`any`, or a library the standard-library
/// table does not know), rather than one of a type the library makes
/// (`context.WithCancel`'s CancelFunc).
pub(super) fn library_result_may_hold_anything(name: &str, n: u8) -> bool {
    let std = go_std::std();
    let results = match name.strip_prefix('(') {
        Some(method) => {
            let Some((ty, m)) = method.split_once(").") else {
                return true;
            };
            match std.method_shape(ty.trim_start_matches('*'), m) {
                Some((_, results)) => results,
                None => return !std.is_type(ty.trim_start_matches('*')),
            }
        }
        None => match std.func_results(name) {
            Some(results) => results,
            None => return true,
        },
    };
    results
        .get(n as usize)
        .is_none_or(|t| matches!(*t, "any" | "interface{}"))
}

/// The methods (with parameter counts) of a standard-library interface.
pub(super) fn std_interface(qualified: &str) -> Option<&'static [(&'static str, u16)]> {
    if qualified == "error" {
        return Some(&[("Error", 0)]);
    }
    go_std::std().interface(qualified)
}

/// An interface method to implement: name, parameter count, and its
/// result types as the table spells them (None where unknown).
pub(super) type WantedMethod = (String, u16, Option<Vec<Option<String>>>);

/// A type as the standard-library table spells it (`*bufio.Writer`,
/// `[]byte` as `[]uint8`), or None for a type it cannot be compared by.
pub(super) fn std_spelling(t: &RType) -> Option<String> {
    match t {
        RType::Named(PkgRef::Ext(path), name, ..) if path.is_empty() => {
            Some(canonical_basic(name).to_owned())
        }
        RType::Named(PkgRef::Ext(path), name, ..) => Some(format!("{path}.{name}")),
        RType::Pointer(inner) => std_spelling(inner).map(|s| format!("*{s}")),
        RType::Slice(inner) => std_spelling(inner).map(|s| format!("[]{s}")),
        _ => None,
    }
}

impl<'a> Analysis<'a> {
    /// A type as the standard-library table writes it (`*net/http.Request`,
    /// `[]reflect.Value`, `map[string]*T`); function and other composite
    /// types are not followed.
    pub(super) fn std_type(&self, s: &str) -> RType {
        if let Some(rest) = s.strip_prefix('*') {
            return RType::Pointer(Box::new(self.std_type(rest)));
        }
        if let Some(rest) = s.strip_prefix("[]") {
            return RType::Slice(Box::new(self.std_type(rest)));
        }
        if let Some(rest) = s.strip_prefix("map[") {
            let mut open = 1;
            for (i, c) in rest.char_indices() {
                match c {
                    '[' => open += 1,
                    ']' => {
                        open -= 1;
                        if open == 0 {
                            return RType::Map(Box::new(self.std_type(&rest[i + 1..])));
                        }
                    }
                    _ => {}
                }
            }
            return RType::Unknown;
        }
        if let Some(rest) = s.strip_prefix("chan ") {
            return RType::Chan(Box::new(self.std_type(rest)));
        }
        if s == "error" {
            return RType::Named(PkgRef::Ext(String::new()), "error".to_owned(), Vec::new());
        }
        if s.contains(|c: char| "()[]{}, ".contains(c)) {
            return RType::Unknown;
        }
        match s.rsplit_once('.') {
            Some((path, name)) => match self.pkg_by_path.get(path) {
                Some(&p) => RType::Named(PkgRef::Repo(p), name.to_owned(), Vec::new()),
                None => RType::Named(PkgRef::Ext(path.to_owned()), name.to_owned(), Vec::new()),
            },
            None => RType::Unknown,
        }
    }

    /// Standard-library types the repository uses that implement the
    /// repository interface `iface`: every method by name, parameter count
    /// and result types (so `reflect.Value`, whose `Set` takes one argument
    /// and returns nothing, is no `flag.Value`).
    pub(super) fn std_implementors(
        &mut self,
        pkg: usize,
        iface: &str,
        methods: &[(String, u16)],
    ) -> Vec<(String, String)> {
        if methods.is_empty() {
            return Vec::new();
        }
        let key = (pkg, iface.to_owned());
        if let Some(found) = self.std_implementors.get(&key) {
            return found.clone();
        }
        let wanted: Vec<WantedMethod> = methods
            .iter()
            .map(|(m, arity)| {
                let results = self
                    .interface_method_results(pkg, iface, m, 0)
                    .map(|(tci, rs)| {
                        rs.iter()
                            .map(|&r| std_spelling(&self.resolve_type(tci, r, 0)))
                            .collect()
                    });
                (m.clone(), *arity, results)
            })
            .collect();
        if self.used_std_types.is_none() {
            self.used_std_types = Some(self.collect_used_std_types());
        }
        let used = self.used_std_types.as_deref().unwrap_or_default();
        let std = go_std::std();
        let found: Vec<(String, String)> = used
            .iter()
            .filter(|(path, tname)| {
                let qualified = format!("{path}.{tname}");
                wanted.iter().all(|(m, arity, results)| {
                    let Some((params, have)) = std.method_shape(&qualified, m) else {
                        return false;
                    };
                    params == *arity
                        && results.as_ref().is_none_or(|want| {
                            want.len() == have.len()
                                && want.iter().zip(have).all(|(w, h)| {
                                    w.as_deref().is_none_or(|w| w == canonical_basic(h))
                                })
                        })
                })
            })
            .cloned()
            .collect();
        self.std_implementors.insert(key, found.clone());
        found
    }

    pub(super) fn collect_used_std_types(&self) -> Vec<(String, String)> {
        let std = go_std::std();
        let mut seen: HashSet<(String, String)> = HashSet::default();
        let keep = |path: &str, tname: &str, seen: &mut HashSet<(String, String)>| {
            let qualified = format!("{path}.{tname}");
            if !path.is_empty() && std.is_type(&qualified) && std.interface(&qualified).is_none() {
                seen.insert((path.to_owned(), tname.to_owned()));
            }
        };
        for ci in 0..self.ctxs.len() {
            let go = self.ctxs[ci].go;
            for t in 0..go.types.len() {
                if let GoType::Named { pkg: Some(_), .. } = go.types[t]
                    && let RType::Named(PkgRef::Ext(path), tname, ..) =
                        self.resolve_type(ci, t as TypeId, 0)
                {
                    keep(&path, &tname, &mut seen);
                }
            }
            for call in &go.calls {
                let GoExpr::Selector(base, name) = *self.expr(ci, call.callee) else {
                    continue;
                };
                let GoExpr::Ident(q) = *self.expr(ci, base) else {
                    continue;
                };
                let Some(path) = self.ctxs[ci].imports.get(self.sym(ci, q)) else {
                    continue;
                };
                if self.pkg_by_path.contains_key(*path) {
                    continue;
                }
                let qualified = format!("{path}.{}", self.sym(ci, name));
                for result in std.func_results(&qualified).unwrap_or_default() {
                    let bare = result.trim_start_matches('*');
                    if let Some((rpath, rname)) = bare.rsplit_once('.') {
                        keep(rpath, rname, &mut seen);
                    }
                }
            }
        }
        let mut out: Vec<_> = seen.into_iter().collect();
        out.sort();
        out
    }

    /// Whether a parameter bound as `binding` is of a standard-library
    /// interface type, in a function handed to a library.
    pub(super) fn library_interface_param(
        &self,
        ci: usize,
        func: RawDeclId,
        binding: &Binding,
    ) -> bool {
        let &Binding::Type(t) = binding else {
            return false;
        };
        let is_std_interface = match self.resolve_type(ci, t, 0) {
            RType::Named(PkgRef::Ext(path), name, _) => std_interface(&if path.is_empty() {
                name
            } else {
                format!("{path}.{name}")
            })
            .is_some(),
            _ => false,
        };
        if !is_std_interface {
            return false;
        }
        if self
            .funcs_handed_to_library
            .values()
            .any(|fs| fs.contains(&func))
        {
            return true;
        }
        // A method of a type whose values are handed to a library (a
        // Handler given to httptest.NewServer or http.Server{Handler: …}).
        let (pkg, base, go) = (self.ctxs[ci].pkg, self.ctxs[ci].base, self.ctxs[ci].go);
        let Some((recv, _)) = go
            .funcs
            .iter()
            .find(|f| base + f.decl == func)
            .and_then(|f| f.recv)
        else {
            return false;
        };
        let tname = receiver_type_name(self.sym(ci, recv));
        let Some(&(tci, ti)) = self.pkgs[pkg].types.get(tname) else {
            return false;
        };
        let t = self.ctxs[tci].base + self.ctxs[tci].go.type_decls[ti].decl;
        self.handed_to_library.values().any(|ts| ts.contains(&t))
    }

    pub(super) fn external_value(&mut self, name: String) -> RawDeclId {
        if let Some(&id) = self.external_value_ids.get(&name) {
            return id;
        }
        let id = EXTERNAL_VALUE + self.external_values.len() as RawDeclId;
        self.external_values.push(name.clone());
        self.external_value_ids.insert(name, id);
        id
    }

    /// What package `path` outside the repository gives back: values it
    /// makes, and the repository types handed to it (to any package, for
    /// package errors, which unwraps what others wrapped:
    /// `errors.Unwrap(fmt.Errorf("…: %w", err))`).
    pub(super) fn library_values(&self, path: &str) -> Vec<RawDeclId> {
        let mut out = vec![FLOW_EXTERNAL];
        let handed: Vec<&RawDeclId> = if path == "errors" {
            self.handed_to_library.values().flatten().collect()
        } else {
            self.handed_to_library
                .get(path)
                .into_iter()
                .flatten()
                .collect()
        };
        for &d in handed {
            push_flow(&mut out, d);
        }
        out
    }

    /// A call of method `name` through standard-library interface `iface`
    /// whose receiver holds only values the library made: the methods of
    /// the types behind them, which whole-program call graphs name (an
    /// `errors.New` result's Error is `(*errors.errorString).Error`; an
    /// http.ResponseWriter handed to a handler is one of the types net/http
    /// converts to it). A value of unknown make keeps the interface's
    /// method among the callees; empty when nothing is known.
    pub(super) fn library_made_methods(
        &mut self,
        flow: &[RawDeclId],
        iface: &str,
        name: &str,
    ) -> Vec<Callee> {
        if flow.is_empty() || flow.contains(&FLOW_UNKNOWN) {
            return Vec::new();
        }
        let std = go_std::std();
        let mut types: Vec<String> = Vec::new();
        let mut opaque = false;
        for &d in flow {
            if d == FLOW_EXTERNAL {
                match std.implementations(iface) {
                    Some(made) => {
                        let own = iface.rsplit_once('.').map_or("", |(p, _)| p);
                        let imported = self.imported_paths();
                        for t in made {
                            let path = t
                                .trim_start_matches('*')
                                .rsplit_once('.')
                                .map_or("", |(p, _)| p);
                            if (path == own || imported.contains(path))
                                && !types.iter().any(|have| have == t)
                            {
                                types.push((*t).to_owned());
                            }
                        }
                    }
                    None => opaque = true,
                }
            } else if let Some(t) = d
                .checked_sub(EXTERNAL_VALUE)
                .and_then(|i| self.external_values.get(i as usize))
            {
                types.push(t.clone());
            }
        }
        let mut out: Vec<Callee> = Vec::new();
        for t in &types {
            let qualified = t.trim_start_matches('*');
            match qualified.rsplit_once('.') {
                Some((path, tname)) if std.method(qualified, name).is_some() => {
                    push_external(&mut out, external_method(path, tname, name));
                }
                _ => opaque = true,
            }
        }
        if opaque && !out.is_empty() {
            let interface_method = match iface.rsplit_once('.') {
                Some((path, tname)) => external_method(path, tname, name),
                None => format!("({iface}).{name}"),
            };
            push_external(&mut out, interface_method);
        }
        out
    }

    /// `sort.Sort(byAge(people))`, `http.Handle("/", api{})`: the library
    /// calls the methods of the interface its parameter is declared as on
    /// the repository types passed there; and `fmt.Println(v)` or
    /// `json.Marshal(v)` take `any` but call the methods of the optional
    /// interfaces `v` may implement (`String`, `MarshalJSON`). Each is a
    /// likely callee of the caller, as a function handed to a library is
    /// (see [`Self::note_handed_out`]).
    pub(super) fn edges_to_interface_methods_handed(
        &mut self,
        b: &mut Builder,
        ci: usize,
        call: usize,
        caller: RawDeclId,
        callee: &str,
    ) {
        let std = go_std::std();
        let scope = self.ctxs[ci].facts.calls[call].caller;
        let file = self.ctxs[ci].file;
        let args = self.ctxs[ci].go.calls[call].args.clone();
        let mut handed: SmallVec<[HandedParam; 2]> = SmallVec::new();
        for &(index, variadic, iface) in std.interface_params(callee) {
            if let Some(methods) = std.interface(iface) {
                handed.push((
                    index as usize,
                    variadic,
                    methods.iter().map(|&(m, _)| m).collect(),
                ));
            }
        }
        if let Some((index, variadic, methods)) = optional_methods_called(callee) {
            handed.push((index, variadic, methods.iter().copied().collect()));
        }
        let mut seen: SmallVec<[RawDeclId; 4]> = SmallVec::new();
        for (index, variadic, methods) in handed {
            let last = if variadic { args.len() } else { index + 1 };
            for &a in args.get(index..last.min(args.len())).unwrap_or(&[]) {
                if a == 0 {
                    continue;
                }
                let t = self.type_of(ci, scope, a, 0);
                let flow = match self.static_flow(&t) {
                    Some(flow) => flow,
                    None => match self.few_traced_types(ci, scope, a) {
                        Some(flow) => flow,
                        None => continue,
                    },
                };
                for d in flow {
                    let Some((p, tname)) = self.type_names.get(&d).cloned() else {
                        continue;
                    };
                    for name in &methods {
                        if let Some(m) = self.method(p, &tname, name, 0)
                            && !seen.contains(&m)
                        {
                            seen.push(m);
                            b.edge(caller, m, Confidence::Likely, file, call as u32);
                        }
                    }
                }
            }
        }
    }

    /// The types traced to an interface-typed argument handed to a library,
    /// when they are few and all known. Traced through merged parameter
    /// sources, an `error` or `ast.Node` argument can be dozens of types,
    /// each then taken as called by the library or held by every struct
    /// of its package; a handler variable holding one of a few names them.
    pub(super) fn few_traced_types(
        &mut self,
        ci: usize,
        scope: u32,
        arg: ExprId,
    ) -> Option<Vec<RawDeclId>> {
        let flow = self.flowing_types(ci, scope, arg, 0);
        (!flow.contains(&FLOW_UNKNOWN) && flow.len() <= MAX_HANDED_TYPES).then_some(flow)
    }

    /// Repository types whose values a call gives to a package outside
    /// the repository (`flag.Var(&list, …)`): that package may hand them
    /// back, from a field of its own structs.
    pub(super) fn note_handed_to_library(
        &mut self,
        ci: usize,
        scope: u32,
        callee: &str,
        args: &[ExprId],
    ) {
        let Some(package) = external_package(callee) else {
            return;
        };
        for &a in args {
            if a == 0 {
                continue;
            }
            let funcs = self.func_values(ci, scope, a, 0);
            if !funcs.is_empty() {
                let known = self
                    .funcs_handed_to_library
                    .entry(package.to_owned())
                    .or_default();
                for d in funcs {
                    push_decl(known, d);
                }
            }
            let t = self.type_of(ci, scope, a, 0);
            // A value of a named basic type (`ssa.NaiveForm`, a `Kind`
            // printed or compared) is not one the library keeps and hands
            // back from its structs' fields.
            if matches!(t, RType::Named(PkgRef::Repo(_), ..))
                && matches!(self.underlying(t.clone()),
                    RType::Named(PkgRef::Ext(path), name, _)
                        if path.is_empty() && name != "error" && name != "any")
            {
                continue;
            }
            // The argument's own type, or for an interface value
            // (`last.Store(err)`) the types traced to it, once a first pass
            // has found what callers pass; the repository's only.
            let flow: Vec<RawDeclId> = match self.static_flow(&t) {
                Some(flow) => flow,
                // Of unknown type (a library call's string result, which the
                // table leaves out): what tracing finds is noise.
                None if matches!(t, RType::Unknown) => continue,
                None => match self.few_traced_types(ci, scope, a) {
                    Some(flow) => flow,
                    None => continue,
                },
            }
            .into_iter()
            .filter(|d| self.type_names.contains_key(d))
            .collect();
            if debug_handed() && !flow.is_empty() {
                let names: Vec<&str> = flow
                    .iter()
                    .filter_map(|d| self.type_names.get(d).map(|(_, n)| n.as_str()))
                    .collect();
                eprintln!("handed to {package} by {callee}: {names:?}");
            }
            if !flow.is_empty() {
                let known = self
                    .handed_to_library
                    .entry(package.to_owned())
                    .or_default();
                for d in flow {
                    push_flow(known, d);
                }
            }
        }
    }
}

/// `RIPPLE_DEBUG_HANDED=1` prints what is handed to each library package
/// and where it comes back; read once, as the checks sit on every call.
pub(super) fn debug_handed() -> bool {
    static DEBUG: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *DEBUG.get_or_init(|| std::env::var_os("RIPPLE_DEBUG_HANDED").is_some())
}

/// Arguments a library calls methods on: (first argument, whether every
/// later one too, the method names).
pub(super) type HandedParam = (usize, bool, SmallVec<[&'static str; 5]>);

/// The most types traced to an interface value handed to a library for
/// their methods to be taken as called there.
pub(super) const MAX_HANDED_TYPES: usize = 4;

/// For a library function that takes `any` and calls the methods of the
/// optional interfaces its argument may implement: (first argument,
/// whether every later one too, the method names). `fmt.Println(v)` calls
/// `v.String()` or `v.Error()`, `json.Marshal(v)` `v.MarshalJSON()`.
pub(super) fn optional_methods_called(
    callee: &str,
) -> Option<(usize, bool, &'static [&'static str])> {
    const PRINTED: &[&str] = &["String", "Error", "Format", "GoString"];
    const MARSHALED: &[&str] = &["MarshalJSON", "MarshalText"];
    const UNMARSHALED: &[&str] = &["UnmarshalJSON", "UnmarshalText"];
    let printing = |name: &str| {
        [
            "Print", "Sprint", "Fprint", "Append", "Errorf", "Fatal", "Panic",
        ]
        .iter()
        .any(|p| name.starts_with(p))
    };
    if let Some(name) = callee.strip_prefix("fmt.") {
        // The writer of `Fprintf` and the format strings are not printed
        // values; a format string is a literal or a string anyway.
        let first = usize::from(name.starts_with("Fprint") || name.starts_with("Append"));
        return printing(name).then_some((first, true, PRINTED));
    }
    if let Some(name) = callee
        .strip_prefix("log.")
        .or_else(|| callee.strip_prefix("(*log.Logger)."))
    {
        return printing(name).then_some((0, true, PRINTED));
    }
    match callee {
        "encoding/json.Marshal"
        | "encoding/json.MarshalIndent"
        | "(*encoding/json.Encoder).Encode" => Some((0, false, MARSHALED)),
        "encoding/json.Unmarshal" => Some((1, false, UNMARSHALED)),
        "(*encoding/json.Decoder).Decode" => Some((0, false, UNMARSHALED)),
        _ => None,
    }
}

/// Whether a library function or method (`sort.Slice`, `(*testing.T).Run`)
/// may call the functions passed to it. The few that only look at a
/// function (its name, its address, its printed form) are excluded.
pub(super) fn library_calls_what_it_is_handed(name: &str) -> bool {
    let unqualified = name.trim_start_matches("(*").trim_start_matches('(');
    !["reflect.", "fmt.", "runtime.FuncForPC", "log."]
        .iter()
        .any(|p| unqualified.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::{external_method, library_calls_what_it_is_handed};

    #[test]
    fn printing_and_encoding_call_the_methods_of_optional_interfaces() {
        use super::optional_methods_called;
        assert_eq!(optional_methods_called("fmt.Println").unwrap().0, 0);
        assert_eq!(optional_methods_called("fmt.Fprintf").unwrap().0, 1);
        assert!(optional_methods_called("(*log.Logger).Printf").is_some());
        assert!(optional_methods_called("fmt.Sscanf").is_none());
        let (index, variadic, methods) =
            optional_methods_called("encoding/json.Unmarshal").unwrap();
        assert_eq!((index, variadic), (1, false));
        assert!(methods.contains(&"UnmarshalJSON"));
        assert!(optional_methods_called("log.SetFlags").is_none());
    }

    #[test]
    fn printing_or_reflecting_on_a_function_does_not_call_it() {
        assert!(library_calls_what_it_is_handed("(*testing.T).Run"));
        assert!(library_calls_what_it_is_handed("sort.Slice"));
        assert!(library_calls_what_it_is_handed("(*sync.Once).Do"));
        assert!(!library_calls_what_it_is_handed("reflect.ValueOf"));
        assert!(!library_calls_what_it_is_handed("fmt.Printf"));
        assert!(!library_calls_what_it_is_handed("(*log.Logger).Printf"));
    }

    #[test]
    fn external_methods_are_named_by_receiver_kind() {
        assert_eq!(
            external_method("reflect", "Type", "Kind"),
            "(*reflect.rtype).Kind"
        );
        assert_eq!(
            external_method("context", "Context", "Done"),
            "(context.Context).Done"
        );
        assert_eq!(
            external_method("reflect", "Value", "Elem"),
            "(reflect.Value).Elem"
        );
        assert_eq!(
            external_method("bytes", "Buffer", "Len"),
            "(*bytes.Buffer).Len"
        );
        assert_eq!(
            external_method("example.com/other", "Thing", "Do"),
            "(*example.com/other.Thing).Do"
        );
    }
}

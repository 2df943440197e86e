//! What the Go resolver knows about the standard library, which is never in
//! the repository: what exported functions and methods return, what package
//! variables and struct fields hold, which methods have pointer receivers,
//! and the method sets of interfaces. Without it `bufio.NewScanner(r).Scan()`
//! or `reflect.TypeOf(x).Elem()` has a receiver of unknown type.
//!
//! The table (`go_std.tsv`) is generated from the Go toolchain's own type
//! information by `tools/go-std-signatures` (see its header for the format)
//! and compiled in, so resolution needs no Go installation.

use std::sync::OnceLock;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

const TABLE: &str = include_str!("go_std.tsv");

pub struct GoStd {
    /// `bufio.NewScanner` → result types.
    funcs: HashMap<&'static str, Vec<&'static str>>,
    /// `os.Stdin` → its type.
    vars: HashMap<&'static str, &'static str>,
    /// `bufio.Scanner` → `Scan` → (pointer receiver, result types).
    methods: HashMap<&'static str, HashMap<&'static str, (bool, Vec<&'static str>)>>,
    /// `reflect.StructField` → `Type` → field type.
    fields: HashMap<&'static str, HashMap<&'static str, &'static str>>,
    /// `io.Reader` → its methods with their parameter counts.
    interfaces: HashMap<&'static str, Vec<(&'static str, u16)>>,
    /// `reflect.Type` → `Elem` → result types of an interface method.
    interface_results: HashMap<&'static str, HashMap<&'static str, Vec<&'static str>>>,
    /// `testing.T` → `Errorf` → (`testing.common`, pointer receiver): the
    /// type that declares a method promoted from an embedded field.
    promoted: HashMap<&'static str, HashMap<&'static str, (&'static str, bool)>>,
    /// `bufio.Writer` → `WriteString` → (parameter count, every result type).
    method_shapes: HashMap<&'static str, HashMap<&'static str, (u16, Vec<&'static str>)>>,
    /// Every named type the table mentions as a receiver, struct or interface.
    types: HashSet<&'static str>,
    /// `net/http.ResponseWriter` → the types the library converts to it
    /// (`*net/http.response`, …), for interfaces with few of them.
    implementations: HashMap<&'static str, Vec<&'static str>>,
    /// (`errors.New`, result index) → the dynamic types behind an
    /// interface result (`*errors.errorString`), where every return was traced.
    dynamic_results: HashMap<&'static str, Vec<(u8, Vec<&'static str>)>>,
    /// `sort.Sort` → (parameter index, variadic, `sort.Interface`): the
    /// library calls that interface's methods on the argument.
    interface_params: HashMap<&'static str, Vec<(u16, bool, &'static str)>>,
}

/// The standard library table, parsed on first use.
pub fn std() -> &'static GoStd {
    static STD: OnceLock<GoStd> = OnceLock::new();
    STD.get_or_init(|| GoStd::parse(TABLE))
}

fn split_list(s: &'static str) -> Vec<&'static str> {
    s.split(',').filter(|t| !t.is_empty()).collect()
}

impl GoStd {
    fn parse(table: &'static str) -> GoStd {
        let mut std = GoStd {
            funcs: HashMap::default(),
            vars: HashMap::default(),
            methods: HashMap::default(),
            fields: HashMap::default(),
            interfaces: HashMap::default(),
            interface_results: HashMap::default(),
            method_shapes: HashMap::default(),
            promoted: HashMap::default(),
            types: HashSet::default(),
            implementations: HashMap::default(),
            dynamic_results: HashMap::default(),
            interface_params: HashMap::default(),
        };
        for line in table.lines() {
            let cols: Vec<&'static str> = line.split('\t').collect();
            match cols.as_slice() {
                ["F", name, results] => {
                    std.funcs.insert(name, split_list(results));
                }
                ["V", name, ty] => {
                    std.vars.insert(name, ty);
                }
                ["M", ty, recv, name, results, shape @ ..] => {
                    std.methods
                        .entry(ty)
                        .or_default()
                        .insert(name, (*recv == "*", split_list(results)));
                    if let [params, all_results, origin @ ..] = shape
                        && let Ok(params) = params.parse()
                    {
                        std.method_shapes
                            .entry(ty)
                            .or_default()
                            .insert(name, (params, split_list(all_results)));
                        if let [origin] = origin {
                            std.promoted
                                .entry(ty)
                                .or_default()
                                .insert(name, (origin, *recv == "*"));
                        }
                    }
                    std.types.insert(ty);
                }
                ["P", callee, index, iface] => {
                    let (index, variadic) = match index.strip_suffix('+') {
                        Some(i) => (i, true),
                        None => (*index, false),
                    };
                    if let Ok(index) = index.parse() {
                        std.interface_params
                            .entry(callee)
                            .or_default()
                            .push((index, variadic, iface));
                    }
                }
                ["C", iface, types] => {
                    std.implementations.insert(iface, split_list(types));
                }
                ["R", func, idx, types] => {
                    if let Ok(idx) = idx.parse() {
                        std.dynamic_results
                            .entry(func)
                            .or_default()
                            .push((idx, split_list(types)));
                    }
                }
                ["S", ty, field, fty] => {
                    std.fields.entry(ty).or_default().insert(field, fty);
                    std.types.insert(ty);
                }
                ["I", ty, methods @ ..] => {
                    let mut ms = Vec::new();
                    for m in methods {
                        // Import paths in the results have slashes too.
                        let mut parts = m.splitn(3, '/');
                        let (Some(name), Some(arity), results) =
                            (parts.next(), parts.next(), parts.next())
                        else {
                            continue;
                        };
                        let Ok(arity) = arity.parse() else { continue };
                        ms.push((name, arity));
                        std.interface_results
                            .entry(ty)
                            .or_default()
                            .insert(name, split_list(results.unwrap_or("")));
                    }
                    std.interfaces.insert(ty, ms);
                    std.types.insert(ty);
                }
                _ => {}
            }
        }
        std
    }

    pub fn func_results(&self, qualified: &str) -> Option<&[&'static str]> {
        self.funcs.get(qualified).map(Vec::as_slice)
    }

    pub fn var_type(&self, qualified: &str) -> Option<&'static str> {
        self.vars.get(qualified).copied()
    }

    /// Whether `pkg.Name` of the standard library may be called: not a
    /// variable the table gives a type other than a function's
    /// (`time.UTC` is a `*time.Location`). Functions without results and
    /// constants are not in the table, so they may.
    pub fn may_call(&self, qualified: &str) -> bool {
        self.vars
            .get(qualified)
            .is_none_or(|t| t.starts_with("func"))
    }

    /// (pointer receiver, result types) of a method of `ty`, declared on it
    /// or promoted to it.
    pub fn method(&self, ty: &str, name: &str) -> Option<(bool, &[&'static str])> {
        let (pointer, results) = self.methods.get(ty)?.get(name)?;
        Some((*pointer, results.as_slice()))
    }

    /// For a method of `ty` promoted from an embedded field: the type that
    /// declares it, and whether its receiver is a pointer.
    pub fn promoted_from(&self, ty: &str, name: &str) -> Option<(&'static str, bool)> {
        self.promoted.get(ty)?.get(name).copied()
    }

    /// (parameter count, every result type) of a method declared on `ty`.
    pub fn method_shape(&self, ty: &str, name: &str) -> Option<(u16, &[&'static str])> {
        let (params, results) = self.method_shapes.get(ty)?.get(name)?;
        Some((*params, results.as_slice()))
    }

    pub fn field(&self, ty: &str, field: &str) -> Option<&'static str> {
        self.fields.get(ty)?.get(field).copied()
    }

    pub fn interface(&self, ty: &str) -> Option<&[(&'static str, u16)]> {
        self.interfaces.get(ty).map(Vec::as_slice)
    }

    pub fn interface_method_results(&self, ty: &str, name: &str) -> Option<&[&'static str]> {
        self.interface_results.get(ty)?.get(name).map(Vec::as_slice)
    }

    pub fn is_type(&self, qualified: &str) -> bool {
        self.types.contains(qualified)
    }

    /// The types the library itself converts to interface `iface`: what a
    /// value of it the library hands over can be.
    pub fn implementations(&self, iface: &str) -> Option<&[&'static str]> {
        self.implementations.get(iface).map(Vec::as_slice)
    }

    /// The parameters of a library function or method (named as a callee:
    /// `sort.Sort`, `(*net/http.ServeMux).Handle`) that take an interface
    /// whose methods the library calls: (index, variadic, interface).
    pub fn interface_params(&self, callee: &str) -> &[(u16, bool, &'static str)] {
        self.interface_params
            .get(callee)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// The dynamic types a package function's `idx`-th (interface) result
    /// holds: `errors.New` → `*errors.errorString`.
    pub fn dynamic_results(&self, func: &str, idx: u8) -> Option<&[&'static str]> {
        self.dynamic_results
            .get(func)?
            .iter()
            .find(|(i, _)| *i == idx)
            .map(|(_, types)| types.as_slice())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_knows_common_constructors_receivers_and_interfaces() {
        let std = std();
        assert_eq!(
            std.func_results("bufio.NewScanner"),
            Some(&["*bufio.Scanner"][..])
        );
        assert_eq!(
            std.func_results("os.Open"),
            Some(&["*os.File", "error"][..])
        );
        assert_eq!(std.var_type("os.Stdin"), Some("*os.File"));
        assert_eq!(std.method("bufio.Scanner", "Scan").map(|m| m.0), Some(true));
        assert_eq!(
            std.method("time.Time", "Sub"),
            Some((false, &["time.Duration"][..]))
        );
        assert_eq!(
            std.field("reflect.StructField", "Type"),
            Some("reflect.Type")
        );
        assert_eq!(std.interface("io.Reader"), Some(&[("Read", 1)][..]));
        assert_eq!(
            std.interface_method_results("reflect.Type", "Elem"),
            Some(&["reflect.Type"][..])
        );
        assert_eq!(
            std.interface_method_results("context.Context", "Done"),
            Some(&[][..])
        );
        assert_eq!(
            std.promoted_from("testing.T", "Errorf"),
            Some(("testing.common", true))
        );
        assert_eq!(std.promoted_from("testing.T", "Run"), None);
        assert!(std.is_type("net/http.Request"));
        assert!(!std.is_type("net/http.NoSuchType"));
        assert_eq!(
            std.dynamic_results("errors.New", 0),
            Some(&["*errors.errorString"][..])
        );
        assert_eq!(std.dynamic_results("errors.New", 1), None);
        assert!(
            std.implementations("net/http.ResponseWriter")
                .is_some_and(|ts| ts.contains(&"*net/http.response"))
        );
        // The library's own unexported types have their methods listed.
        assert_eq!(
            std.method("errors.errorString", "Error"),
            Some((true, &[][..]))
        );
    }
}

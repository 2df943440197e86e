//! ripple's qualified names turned into SCIP symbols, in scip-python's and
//! scip-go's schemes:
//!
//! ```text
//! scip-python python <dist> <version> `pkg.mod`/Class#method().
//! scip-python python <dist> <version> `pkg.mod`/__init__:          (the module)
//! scip-go gomod <module> <version> `import/path`/Type#Method().
//! scip-go gomod <module> <version> `import/path`/Iface#Method.     (an interface method)
//! scip-go gomod <module> <version> `import/path`/                  (the package)
//! ```
//!
//! Declarations those indexers give no global name (lambdas, Go function
//! literals) are local to their document. Formatting and escaping
//! (backticks around a name that is not a simple identifier) are the
//! `scip` crate's.

use protobuf::MessageField;
use scip::types::{Descriptor, Package, Symbol, descriptor::Suffix};

use super::packages::{PackageId, Packages};
use crate::model::{Decl, DeclKind, Lang};
use crate::refactor::names::{split_go_method, split_go_qualified, strip_type_args};
use crate::resolve::{DeclId, Resolution};

pub const PYTHON_SCHEME: &str = "scip-python";
pub const PYTHON_MANAGER: &str = "python";
pub const GO_SCHEME: &str = "scip-go";
pub const GO_MANAGER: &str = "gomod";

pub(super) fn descriptor(name: &str, suffix: Suffix) -> Descriptor {
    Descriptor {
        name: name.to_owned(),
        suffix: suffix.into(),
        ..Default::default()
    }
}

pub(super) fn format(
    scheme: &str,
    manager: &str,
    package: &PackageId,
    descriptors: Vec<Descriptor>,
) -> String {
    scip::symbol::format_symbol(Symbol {
        scheme: scheme.to_owned(),
        // SCIP separates a symbol's fields with one space and escapes a
        // space inside a field by doubling it (a directory named
        // `my project`); the formatter does not.
        package: MessageField::some(Package {
            manager: manager.to_owned(),
            name: package.name.replace(' ', "  "),
            version: package.version.replace(' ', "  "),
            ..Default::default()
        }),
        descriptors,
        ..Default::default()
    })
}

/// A document-local symbol; `n` is unique within the document.
pub(super) fn local(n: u32) -> String {
    format!("local {n}")
}

/// The last segment of a qualified name.
fn short(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

/// The global symbol of a repository declaration, or `None` when it is
/// local to its document.
pub(super) fn repo_symbol(
    res: &Resolution,
    packages: &Packages,
    paths: &[&str],
    d: DeclId,
) -> Option<String> {
    let decl = &res.decls[d];
    let file = decl.file?;
    let module = res.file_module.get(file.index()).map_or("", String::as_str);
    match decl.lang {
        Lang::Python => {
            let descriptors = python_descriptors(res, module, d)?;
            Some(format(
                PYTHON_SCHEME,
                PYTHON_MANAGER,
                &packages.python_project,
                descriptors,
            ))
        }
        Lang::Go => {
            let descriptors = go_descriptors(decl, module)?;
            let path = paths.get(file.index()).copied().unwrap_or("");
            Some(format(
                GO_SCHEME,
                GO_MANAGER,
                &packages.go_module_of(path),
                descriptors,
            ))
        }
    }
}

/// pyright's parse tree, as scip-python walks it: a function inside a
/// class (at any depth of nested functions) is a method of that class; a
/// class or function elsewhere hangs off its enclosing declaration; a
/// module is `` `name`/__init__: ``.
fn python_descriptors(res: &Resolution, module: &str, d: DeclId) -> Option<Vec<Descriptor>> {
    let decl = &res.decls[d];
    let name = short(&decl.name);
    match decl.kind {
        DeclKind::Module | DeclKind::Package => Some(vec![
            descriptor(module, Suffix::Namespace),
            descriptor("__init__", Suffix::Meta),
        ]),
        DeclKind::Lambda => None,
        DeclKind::Class | DeclKind::Struct | DeclKind::Interface | DeclKind::Type => {
            let mut out = python_base(res, module, decl.parent)?;
            out.push(descriptor(name, Suffix::Type));
            Some(out)
        }
        DeclKind::Function | DeclKind::Method | DeclKind::Closure => {
            if name.contains('<') {
                return None;
            }
            let mut out = match enclosing_class(res, decl) {
                Some(class) => python_descriptors(res, module, class)?,
                None => python_base(res, module, decl.parent)?,
            };
            out.push(descriptor(name, Suffix::Method));
            Some(out)
        }
    }
}

fn python_base(res: &Resolution, module: &str, parent: Option<DeclId>) -> Option<Vec<Descriptor>> {
    match parent {
        Some(p) if !matches!(res.decls[p].kind, DeclKind::Module | DeclKind::Package) => {
            python_descriptors(res, module, p)
        }
        _ => Some(vec![descriptor(module, Suffix::Namespace)]),
    }
}

/// pyright's `getEnclosingClass(node, stopAtFunction = false)`.
fn enclosing_class(res: &Resolution, decl: &Decl) -> Option<DeclId> {
    let mut at = decl.parent;
    while let Some(p) = at {
        match res.decls[p].kind {
            DeclKind::Class => return Some(p),
            DeclKind::Module | DeclKind::Package => return None,
            _ => at = res.decls[p].parent,
        }
    }
    None
}

/// go/ssa names (`pkg.F`, `(*pkg.T).M`, `pkg.T`) as scip-go's
/// descriptors. Function literals (`pkg.F$1`) have no global name.
fn go_descriptors(decl: &Decl, package: &str) -> Option<Vec<Descriptor>> {
    let name = &*decl.name;
    let mut out = vec![descriptor(package, Suffix::Namespace)];
    match decl.kind {
        DeclKind::Package | DeclKind::Module => Some(out),
        DeclKind::Closure | DeclKind::Lambda => None,
        DeclKind::Method => {
            let (_, ty, method) = split_go_method(name)?;
            out.push(descriptor(ty, Suffix::Type));
            out.push(descriptor(method, Suffix::Method));
            Some(out)
        }
        DeclKind::Function => {
            let rest = go_member(name, package)?;
            if rest.contains('$') {
                return None;
            }
            out.push(descriptor(strip_type_args(rest), Suffix::Method));
            Some(out)
        }
        DeclKind::Class | DeclKind::Struct | DeclKind::Interface | DeclKind::Type => {
            out.push(descriptor(
                strip_type_args(go_member(name, package)?),
                Suffix::Type,
            ));
            Some(out)
        }
    }
}

/// The part of `pkg.Member` after the package.
fn go_member<'a>(name: &'a str, package: &str) -> Option<&'a str> {
    match name.strip_prefix(package).and_then(|r| r.strip_prefix('.')) {
        Some(rest) => Some(rest),
        None => split_go_qualified(name).map(|(_, rest)| rest),
    }
}

/// The symbol of an out-of-repository callee (`os.path.join`,
/// `<builtin>.len`, `fmt.Println`, `(*bytes.Buffer).String`), as the
/// indexer of its language would name it in the library's own index.
/// `from_file` is the calling file (Go resolves a module through its
/// `go.mod`).
pub(super) fn external_symbol(decl: &Decl, packages: &Packages, from_file: &str) -> Option<String> {
    let name = &*decl.name;
    match decl.lang {
        Lang::Python => {
            let name = python_library_name(name);
            let (module, member) = match name.rsplit_once('.') {
                Some((m, f)) => (m.to_owned(), f.to_owned()),
                None => ("builtins".to_owned(), name.clone()),
            };
            if member.is_empty() || module.is_empty() || module.contains('<') {
                return None;
            }
            let package = packages.python_external(&module);
            // A method of a library class (`dict.get`,
            // `json.JSONDecoder.decode`) is a method of its type: the
            // module ends before the first segment named like a class
            // (every builtin name is a module-level one).
            let parts: Vec<&str> = module.split('.').collect();
            let class_at = parts
                .iter()
                .enumerate()
                .skip(1)
                .find(|(i, p)| is_python_class(&parts[..*i].join("."), p))
                .map(|(i, _)| i)
                .unwrap_or(parts.len());
            let mut descriptors = vec![descriptor(&parts[..class_at].join("."), Suffix::Namespace)];
            for class in &parts[class_at..] {
                descriptors.push(descriptor(class, Suffix::Type));
            }
            descriptors.push(
                if class_at == parts.len() && is_python_class(&module, &member) {
                    descriptor(&member, Suffix::Type)
                } else {
                    descriptor(&member, Suffix::Method)
                },
            );
            Some(format(PYTHON_SCHEME, PYTHON_MANAGER, &package, descriptors))
        }
        Lang::Go => {
            let (package, descriptors) = if name.starts_with('(') {
                let (package, ty, method) = split_go_method(name)?;
                (
                    package,
                    vec![
                        descriptor(package, Suffix::Namespace),
                        descriptor(ty, Suffix::Type),
                        descriptor(method, Suffix::Method),
                    ],
                )
            } else {
                let (package, member) = match split_go_qualified(name) {
                    Some(split) => split,
                    None => ("builtin", name),
                };
                let package = if package == "<builtin>" {
                    "builtin"
                } else {
                    package
                };
                (
                    package,
                    vec![
                        descriptor(package, Suffix::Namespace),
                        descriptor(strip_type_args(member), Suffix::Method),
                    ],
                )
            };
            Some(format(
                GO_SCHEME,
                GO_MANAGER,
                &packages.go_external(from_file, package),
                descriptors,
            ))
        }
    }
}

/// ripple's names for the library's values (`<builtin>.len`,
/// `<**PyDict**>.get`) as the modules typeshed declares them in.
fn python_library_name(name: &str) -> String {
    const VALUES: &[(&str, &str)] = &[
        ("<builtin>.", "builtins."),
        ("<**PyDict**>.", "builtins.dict."),
        ("<**PyList**>.", "builtins.list."),
        ("<**PySet**>.", "builtins.set."),
        ("<**PyTuple**>.", "builtins.tuple."),
        ("<**PyStr**>.", "builtins.str."),
    ];
    for (ours, theirs) in VALUES {
        if let Some(rest) = name.strip_prefix(ours) {
            return format!("{theirs}{rest}");
        }
    }
    name.to_owned()
}

/// Whether a called library name is a class: calling a class constructs
/// it, and scip-python refers to the class (`builtins/str#`). ripple keeps
/// no types for the library, so the builtins that are classes are listed
/// and elsewhere the naming convention decides (`decimal.Decimal`).
fn is_python_class(module: &str, member: &str) -> bool {
    const BUILTIN_CLASSES: &[&str] = &[
        "bool",
        "bytearray",
        "bytes",
        "classmethod",
        "complex",
        "dict",
        "enumerate",
        "filter",
        "float",
        "frozenset",
        "int",
        "list",
        "map",
        "memoryview",
        "object",
        "property",
        "range",
        "reversed",
        "set",
        "slice",
        "staticmethod",
        "str",
        "super",
        "tuple",
        "type",
        "zip",
    ];
    if module == "builtins" {
        return BUILTIN_CLASSES.contains(&member)
            || member.ends_with("Error")
            || member.ends_with("Exception")
            || member.ends_with("Warning");
    }
    member.chars().next().is_some_and(char::is_uppercase)
}

/// scip-go's symbol of method `method` of interface `iface` (a struct
/// field's form: a term, not a method).
pub(super) fn go_interface_method(interface_symbol: &str, method: &str) -> String {
    let mut symbol = interface_symbol.to_owned();
    let name = descriptor(method, Suffix::Term);
    let formatted = scip::symbol::format_symbol(Symbol {
        scheme: "x".to_owned(),
        descriptors: vec![name],
        ..Default::default()
    });
    // The descriptor alone, escaped as the crate escapes it.
    if let Some(last) = formatted.rsplit(' ').next() {
        symbol.push_str(last);
    }
    symbol
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_names_split_at_the_dot_after_the_last_slash() {
        assert_eq!(
            split_go_qualified("github.com/acme/shipd/internal/shipping.Quote"),
            Some(("github.com/acme/shipd/internal/shipping", "Quote"))
        );
        assert_eq!(split_go_qualified("fmt.Println"), Some(("fmt", "Println")));
        assert_eq!(
            split_go_method("(*encoding/json.Decoder).Decode"),
            Some(("encoding/json", "Decoder", "Decode"))
        );
        assert_eq!(
            split_go_method("(example.com/x.Stack[T]).Push"),
            Some(("example.com/x", "Stack", "Push"))
        );
    }

    #[test]
    fn library_methods_are_methods_of_their_class() {
        let packages = Packages::for_tests();
        let external = |name: &str| {
            let decl = Decl {
                name: name.into(),
                kind: DeclKind::Function,
                lang: Lang::Python,
                file: None,
                local: 0,
                span: Default::default(),
                is_test: false,
                parent: None,
            };
            external_symbol(&decl, &packages, "a.py").unwrap()
        };
        assert_eq!(
            external("<**PyDict**>.get"),
            "scip-python python python-stdlib 3.11 builtins/dict#get()."
        );
        assert_eq!(
            external("<builtin>.str"),
            "scip-python python python-stdlib 3.11 builtins/str#"
        );
        assert_eq!(
            external("json.JSONDecoder.decode"),
            "scip-python python python-stdlib 3.11 json/JSONDecoder#decode()."
        );
        assert_eq!(
            external("os.path.join"),
            "scip-python python python-stdlib 3.11 `os.path`/join()."
        );
        assert_eq!(
            external("requests.get"),
            "scip-python python requests . requests/get()."
        );
    }

    #[test]
    fn symbols_escape_names_that_are_not_simple_identifiers() {
        let package = PackageId {
            name: "shop".to_owned(),
            version: "1.0".to_owned(),
        };
        let symbol = format(
            PYTHON_SCHEME,
            PYTHON_MANAGER,
            &package,
            vec![
                descriptor("shop.api", Suffix::Namespace),
                descriptor("App", Suffix::Type),
                descriptor("request", Suffix::Method),
            ],
        );
        assert_eq!(
            symbol,
            "scip-python python shop 1.0 `shop.api`/App#request()."
        );
        assert_eq!(
            go_interface_method("scip-go gomod m v `m/p`/Store#", "Get"),
            "scip-go gomod m v `m/p`/Store#Get."
        );
    }
}

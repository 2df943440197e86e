//! Which repository Go types implement which repository interfaces: what
//! a method's rename or signature change would break, and SCIP's
//! `is_implementation` relationships (type → interface, method →
//! interface method), as scip-go draws them.
//!
//! The resolver narrows interface calls with the types that reach them
//! and keeps no table of implementations, so it is read again here from
//! the interfaces' declarations: a type implements an interface when its
//! method set (value and pointer receivers together, as scip-go's
//! `listMethods` takes it) has every method of the interface with the
//! same number of parameters. Interfaces embedding one of another module
//! cannot be decided and are left out, as are empty interfaces (scip-go
//! leaves those out too: everything implements them).

use std::collections::{BTreeMap, HashMap};

use tree_sitter::Node;

use super::names::{split_go_method, split_go_qualified};
use crate::index::Index;
use crate::model::{DeclKind, Lang};
use crate::resolve::DeclId;

/// A method an interface declares, where its name is written.
#[derive(Debug, Clone)]
pub(crate) struct InterfaceMethod {
    pub(crate) name: String,
    pub(crate) arity: usize,
    /// Byte range of the name in the interface's file.
    pub(crate) name_bytes: std::ops::Range<usize>,
}

#[derive(Debug, Default)]
pub(crate) struct GoImpls {
    /// Each interface's own methods (not those it embeds), for their
    /// definitions.
    pub(crate) declared: HashMap<DeclId, Vec<InterfaceMethod>>,
    /// Type → the interfaces it implements.
    pub(crate) types: BTreeMap<DeclId, Vec<DeclId>>,
    /// Method → (interface, method name) it implements.
    pub(crate) methods: BTreeMap<DeclId, Vec<(DeclId, String)>>,
    /// The interface that declares each method of an interface's full
    /// method set, by (interface, name).
    pub(crate) declarer: HashMap<(DeclId, String), DeclId>,
}

struct Interface {
    own: Vec<InterfaceMethod>,
    /// Embedded interface names as written (`Reader`, `io.Reader`).
    embeds: Vec<String>,
}

pub(crate) fn find(index: &Index) -> GoImpls {
    let res = &index.res;
    let mut interfaces: BTreeMap<DeclId, Interface> = BTreeMap::new();
    let mut by_name: HashMap<&str, DeclId> = HashMap::new();
    let mut files: BTreeMap<usize, Vec<DeclId>> = BTreeMap::new();
    for d in res.decl_ids() {
        let decl = &res.decls[d];
        if decl.lang == Lang::Go && decl.kind == DeclKind::Interface {
            if let Some(f) = decl.file {
                files.entry(f.index()).or_default().push(d);
            }
            by_name.insert(&decl.name, d);
        }
    }
    for (file, decls) in files {
        let Some(f) = index.files.get(file) else {
            continue;
        };
        let Ok(bytes) = crate::inventory::read_regular(index.root.join(&f.path)) else {
            continue;
        };
        if crate::model::content_hash(&bytes) != f.hash {
            continue;
        }
        let Some(tree) = crate::lang::parse(Lang::Go, &bytes) else {
            continue;
        };
        for d in decls {
            let span = res.decls[d].span;
            let short = res.decls[d].name.rsplit('.').next().unwrap_or("");
            if let Some(i) = read_interface(tree.root_node(), &bytes, span, short) {
                interfaces.insert(d, i);
            }
        }
    }
    let mut out = GoImpls::default();
    // Full method sets, embedded interfaces of the same package included.
    let mut full: BTreeMap<DeclId, Vec<(String, usize, DeclId)>> = BTreeMap::new();
    for &d in interfaces.keys() {
        let package = package_of(&res.decls[d].name);
        if let Some(methods) = method_set(d, package, &interfaces, &by_name, 0)
            && !methods.is_empty()
        {
            for (name, _, declarer) in &methods {
                out.declarer.insert((d, name.clone()), *declarer);
            }
            full.insert(d, methods);
        }
    }
    // Method sets of concrete types: receiver type name → name → (method, arity).
    let mut receivers: HashMap<String, HashMap<&str, (DeclId, usize)>> = HashMap::new();
    for d in res.decl_ids() {
        let decl = &res.decls[d];
        if decl.lang != Lang::Go || decl.kind != DeclKind::Method || decl.is_external() {
            continue;
        }
        let Some((package, ty, method)) = split_go_method(&decl.name) else {
            continue;
        };
        let Some(arity) = index
            .local_decl(d)
            .and_then(|l| signature_arity(&l.signature, method))
        else {
            continue;
        };
        receivers
            .entry(format!("{package}.{ty}"))
            .or_default()
            .insert(method, (d, arity));
    }
    for t in res.decl_ids() {
        let decl = &res.decls[t];
        if decl.lang != Lang::Go
            || decl.is_external()
            || !matches!(decl.kind, DeclKind::Struct | DeclKind::Type)
        {
            continue;
        }
        let type_name = decl.name.split('[').next().unwrap_or(&decl.name);
        let Some(methods) = receivers.get(type_name) else {
            continue;
        };
        let type_package = package_of(type_name);
        for (&iface, wanted) in &full {
            let iface_package = package_of(&res.decls[iface].name);
            let fits = wanted.iter().all(|(name, arity, _)| {
                methods.get(name.as_str()).is_some_and(|(_, a)| a == arity)
                    && (is_exported(name) || iface_package == type_package)
            });
            if !fits {
                continue;
            }
            out.types.entry(t).or_default().push(iface);
            for (name, _, _) in wanted {
                if let Some((m, _)) = methods.get(name.as_str()) {
                    out.methods
                        .entry(*m)
                        .or_default()
                        .push((iface, name.clone()));
                }
            }
        }
    }
    for (d, i) in interfaces {
        out.declared.insert(d, i.own);
    }
    out
}

fn is_exported(name: &str) -> bool {
    name.chars().next().is_some_and(char::is_uppercase)
}

fn package_of(name: &str) -> &str {
    split_go_qualified(name).map_or("", |(p, _)| p)
}

/// The methods of interface `d` and of the interfaces it embeds, with
/// the interface declaring each; `None` when an embedded interface is not
/// the repository's (its methods are unknown here).
fn method_set(
    d: DeclId,
    package: &str,
    interfaces: &BTreeMap<DeclId, Interface>,
    by_name: &HashMap<&str, DeclId>,
    depth: u32,
) -> Option<Vec<(String, usize, DeclId)>> {
    let iface = interfaces.get(&d)?;
    if depth > 4 {
        return None;
    }
    let mut out: Vec<(String, usize, DeclId)> = iface
        .own
        .iter()
        .map(|m| (m.name.clone(), m.arity, d))
        .collect();
    for embed in &iface.embeds {
        let qualified = if embed.contains('.') {
            return None;
        } else {
            format!("{package}.{embed}")
        };
        let inner = by_name.get(qualified.as_str())?;
        for m in method_set(*inner, package, interfaces, by_name, depth + 1)? {
            if !out.iter().any(|(n, _, _)| *n == m.0) {
                out.push(m);
            }
        }
    }
    Some(out)
}

/// The interface type declared at `span` named `name`: its methods and
/// embedded interfaces.
fn read_interface(
    root: Node,
    source: &[u8],
    span: crate::model::Span,
    name: &str,
) -> Option<Interface> {
    let node = root.descendant_for_byte_range(span.start_byte as usize, span.end_byte as usize)?;
    let spec = find_type_spec(node, source, name)?;
    let body = spec.child_by_field_name("type")?;
    if body.kind() != "interface_type" {
        return None;
    }
    let text = |n: Node| std::str::from_utf8(&source[n.byte_range()]).unwrap_or("");
    let mut own = Vec::new();
    let mut embeds = Vec::new();
    let mut cursor = body.walk();
    for child in body.named_children(&mut cursor) {
        match child.kind() {
            "method_elem" => {
                let (Some(n), Some(params)) = (
                    child.child_by_field_name("name"),
                    child.child_by_field_name("parameters"),
                ) else {
                    continue;
                };
                own.push(InterfaceMethod {
                    name: text(n).to_owned(),
                    arity: list_arity(text(params)),
                    name_bytes: n.byte_range(),
                });
            }
            "type_elem" => embeds.push(text(child).trim().to_owned()),
            _ => {}
        }
    }
    Some(Interface { own, embeds })
}

/// The `type_spec` named `name` at or inside `node` (a declaration's span
/// may be the whole `type ( … )` group or the spec alone).
fn find_type_spec<'t>(node: Node<'t>, source: &[u8], name: &str) -> Option<Node<'t>> {
    let named = |n: Node| {
        n.child_by_field_name("name")
            .is_some_and(|id| &source[id.byte_range()] == name.as_bytes())
    };
    let mut at = Some(node);
    while let Some(n) = at {
        if n.kind() == "type_spec" && named(n) {
            return Some(n);
        }
        if n.kind() == "type_declaration" {
            let mut cursor = n.walk();
            return n
                .named_children(&mut cursor)
                .find(|c| c.kind() == "type_spec" && named(*c));
        }
        at = n.parent();
    }
    None
}

/// How many parameters a parenthesised Go parameter list declares:
/// `(a, b int)` and `(int, string)` both declare two, so it is the number
/// of top-level commas plus one.
pub(crate) fn list_arity(list: &str) -> usize {
    let inner = list.trim();
    let inner = inner.strip_prefix('(').unwrap_or(inner);
    let inner = inner.strip_suffix(')').unwrap_or(inner);
    if inner.trim().is_empty() {
        return 0;
    }
    let mut depth = 0i32;
    let mut parts = 1;
    let mut last_comma = false;
    for c in inner.chars() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                parts += 1;
                last_comma = true;
                continue;
            }
            c if !c.is_whitespace() => {}
            _ => continue,
        }
        last_comma = false;
    }
    // A trailing comma (a list broken over lines) adds no parameter.
    if last_comma { parts - 1 } else { parts }
}

/// The parameter count of method `method` from its signature text
/// (`func (s *Service) Quote(token string, p model.Parcel) (Quote, error)`).
fn signature_arity(signature: &str, method: &str) -> Option<usize> {
    let after_receiver = signature.strip_prefix("func")?.trim_start();
    let after_receiver = if after_receiver.starts_with('(') {
        let close = matching(after_receiver, 0)?;
        &after_receiver[close + 1..]
    } else {
        after_receiver
    };
    let rest = after_receiver.trim_start().strip_prefix(method)?;
    let rest = rest.trim_start();
    if !rest.starts_with('(') {
        return None;
    }
    let close = matching(rest, 0)?;
    Some(list_arity(&rest[..=close]))
}

/// The index of the parenthesis closing the one at `open`.
fn matching(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0;
    for (i, c) in text.char_indices().skip_while(|(i, _)| *i < open) {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_lists_count_names_or_types() {
        assert_eq!(list_arity("()"), 0);
        assert_eq!(list_arity("(a, b int)"), 2);
        assert_eq!(list_arity("(int, string)"), 2);
        assert_eq!(list_arity("(f func(a, b int) error, xs ...string)"), 2);
        assert_eq!(list_arity("(\n\ta int,\n\tb map[string]int,\n)"), 2);
    }

    #[test]
    fn a_method_signature_gives_its_own_parameters_not_the_receiver() {
        assert_eq!(
            signature_arity(
                "func (s *Service) Quote(token string, p model.Parcel, to model.Address, service string) (Quote, error)",
                "Quote"
            ),
            Some(4)
        );
        assert_eq!(
            signature_arity("func (c SystemClock) Now() time.Time", "Now"),
            Some(0)
        );
    }
}

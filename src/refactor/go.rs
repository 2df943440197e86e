//! What a Go rename reads from a file's syntax beyond its call sites: the
//! `func` that names the target, interface methods of the same name
//! (which a method rename cannot decide alone), and the remaining mentions
//! of the old name (method values, function values).

use std::ops::Range;

use super::syntax::Parsed;

/// Interface methods named `old`: (the method's name, the interface's
/// name when the interface is a named type).
pub(super) fn interface_methods(p: &Parsed, old: &str) -> Vec<(Range<usize>, Option<String>)> {
    let mut out = Vec::new();
    for n in p.occurrences(old) {
        let Some(elem) = n.parent() else {
            continue;
        };
        if !matches!(elem.kind(), "method_elem" | "method_spec")
            || elem.child_by_field_name("name") != Some(n)
        {
            continue;
        }
        let mut owner = elem.parent();
        while let Some(o) = owner {
            if o.kind() == "type_spec" {
                break;
            }
            owner = o.parent();
        }
        let iface = owner
            .and_then(|o| o.child_by_field_name("name"))
            .map(|i| p.text(i).to_owned());
        out.push((n.byte_range(), iface));
    }
    out
}

/// Identifiers and selector fields spelled `old`.
pub(super) fn mentions(p: &Parsed, old: &str) -> Vec<Range<usize>> {
    p.occurrences(old)
        .into_iter()
        .filter(|n| matches!(n.kind(), "identifier" | "field_identifier"))
        .map(|n| n.byte_range())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Lang, Span};

    #[test]
    fn declarations_interfaces_and_mentions() {
        let src = "package b\n\ntype Charger interface {\n\tCharge(n int) error\n}\n\n\
                   func (s *S) Charge(n int) error { f := s.Charge; return f(n) }\n";
        let p = Parsed::new(Lang::Go, src.as_bytes().to_vec()).unwrap();
        let decl_start = src.find("func (s").unwrap();
        let span = Span {
            start_byte: decl_start as u32,
            end_byte: src.len() as u32,
            start_line: 7,
            end_line: 7,
        };
        let name = p.def_name(span, "Charge").unwrap();
        assert_eq!(name.start, src.find(") Charge").unwrap() + 2);
        let ifaces = interface_methods(&p, "Charge");
        assert_eq!(ifaces.len(), 1);
        assert_eq!(ifaces[0].1.as_deref(), Some("Charger"));
        assert_eq!(mentions(&p, "Charge").len(), 3);
    }
}

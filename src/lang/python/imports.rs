//! Import statements (`import a.b as c`, `from . import x`, `from m import *`)
//! and the names a module exports (`__all__`).

use super::{Exports, Extractor, Frame, GRAMMAR, K, Lowered, PyExpr, PyImport};
use crate::lang::walk;
use tree_sitter::Node;

impl<'s> Extractor<'s> {
    /// `__all__ = value` (or, with `extend`, `__all__ += value`) at module level.
    pub(super) fn note_exports(&mut self, extend: bool, value: Option<&Lowered>) {
        let listed = match value {
            Some(Lowered::Expr(e)) => self.string_lists.get(e).cloned(),
            _ => None,
        };
        self.facts.exports = match (listed, std::mem::take(&mut self.facts.exports)) {
            // Assigned in several places (platform branches): any of them.
            (Some(names), Exports::Listed(mut old)) => {
                old.extend(names);
                Exports::Listed(old)
            }
            (Some(names), Exports::Public) if !extend => Exports::Listed(names),
            _ => Exports::Computed,
        };
    }

    /// Imports: `import a.b as c`, `from . import x`, `from m import *`.
    pub(super) fn lower_import(&mut self, node: Node, frame: &Frame) -> Lowered {
        let g = &*GRAMMAR;
        let start = frame.start;
        match frame.kind {
            K::AliasedImport => {
                let name = Self::field(self.children(start), g.f_name).cloned();
                let alias = Self::field(self.children(start), g.f_alias).cloned();
                match (name, alias) {
                    (Some(Lowered::Dotted(n)), Some(Lowered::Ident(a, _))) => {
                        Lowered::Aliased(n, a)
                    }
                    _ => Lowered::None,
                }
            }
            K::RelativeImport => {
                let text = walk::text(&node, self.source);
                let level = text.chars().take_while(|&c| c == '.').count() as u8;
                let rest = text.trim_start_matches('.').trim();
                let rest = (!rest.is_empty()).then(|| self.strings.intern(rest));
                Lowered::Relative(level, rest)
            }
            K::WildcardImport => Lowered::Wildcard,
            K::Import => {
                let vals: Vec<Lowered> =
                    self.children(start).iter().map(|c| c.val.clone()).collect();
                for v in vals {
                    match v {
                        Lowered::Dotted(path) => {
                            // `import a.b.c` binds `a`; the submodules hang off it.
                            let full = self.strings.get(path).to_owned();
                            let head = full.split('.').next().unwrap_or("").to_owned();
                            let head_sym = self.strings.intern(&head);
                            let m = self.push_expr(PyExpr::ModuleRef {
                                level: 0,
                                path: head_sym,
                            });
                            let scope = self.scope();
                            let target = self.push_expr(PyExpr::Name {
                                scope,
                                name: head_sym,
                            });
                            self.assign(target, m);
                            if full.contains('.') {
                                // Make sure the full submodule path is known to be imported.
                                let sub = self.push_expr(PyExpr::ModuleRef { level: 0, path });
                                let _ = sub;
                            }
                            self.facts.imports.push(PyImport {
                                scope,
                                module: path,
                                name: None,
                                alias: None,
                            });
                        }
                        Lowered::Aliased(path, alias) => {
                            let m = self.push_expr(PyExpr::ModuleRef { level: 0, path });
                            let scope = self.scope();
                            let target = self.push_expr(PyExpr::Name { scope, name: alias });
                            self.assign(target, m);
                            self.facts.imports.push(PyImport {
                                scope,
                                module: path,
                                name: None,
                                alias: Some(alias),
                            });
                        }
                        _ => {}
                    }
                }
                Lowered::None
            }
            K::ImportFrom => {
                let children: Vec<(u16, Lowered)> = self
                    .children(start)
                    .iter()
                    .map(|c| (c.field, c.val.clone()))
                    .collect();
                let (level, module) = match children.iter().find(|(f, _)| *f == g.f_module_name) {
                    Some((_, Lowered::Dotted(m))) => (0u8, Some(*m)),
                    Some((_, Lowered::Relative(l, m))) => (*l, *m),
                    _ => return Lowered::None,
                };
                let module_text = {
                    let dots = ".".repeat(level as usize);
                    let m = module
                        .map(|m| self.strings.get(m).to_owned())
                        .unwrap_or_default();
                    format!("{dots}{m}")
                };
                let module_text_sym = self.strings.intern(&module_text);
                let path = module.unwrap_or_else(|| self.strings.intern(""));
                let scope = self.scope();
                let module_ref = self.push_expr(PyExpr::ModuleRef { level, path });
                for (field, v) in children {
                    if field == g.f_module_name {
                        continue;
                    }
                    let (name, alias) = match v {
                        Lowered::Dotted(n) => (n, n),
                        Lowered::Aliased(n, a) => (n, a),
                        Lowered::Wildcard => {
                            self.facts.star_imports.push((scope, module_ref));
                            self.facts.imports.push(PyImport {
                                scope,
                                module: module_text_sym,
                                name: Some(self.strings.intern("*")),
                                alias: None,
                            });
                            continue;
                        }
                        _ => continue,
                    };
                    let value = self.push_expr(PyExpr::Attr {
                        base: module_ref,
                        name,
                    });
                    let target = self.push_expr(PyExpr::Name { scope, name: alias });
                    self.assign(target, value);
                    self.facts.imports.push(PyImport {
                        scope,
                        module: module_text_sym,
                        name: Some(name),
                        alias: (alias != name).then_some(alias),
                    });
                }
                Lowered::None
            }
            // `lower` routes only the kinds above here.
            _ => Lowered::None,
        }
    }
}

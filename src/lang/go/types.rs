//! Types: type names (local types and type parameters seen through),
//! qualified, pointer, slice, map, channel, function and generic types,
//! struct fields, interface methods and embeds, and type declarations.

use super::{
    Child, Extractor, Frame, GRAMMAR, GoExpr, GoField, GoType, GoTypeBody, GoTypeDecl, K, Lowered,
    TypeId, kids,
};
use crate::lang::walk;
use crate::model::{DeclKind, Sym};
use tree_sitter::Node;

impl Extractor<'_> {
    /// Lowers a type node or a type declaration (one group of `lower`'s
    /// arms, in their order).
    pub(super) fn lower_type(&mut self, node: Node, frame: &Frame, children: &[Child]) -> Lowered {
        let g = &*GRAMMAR;
        match frame.kind {
            K::TypeIdentifier => {
                let name = self.intern_node(&node);
                // A type parameter of an enclosing generic function stands
                // for its constraint: `x.Get()` on an `x T` with `[T Store]`
                // is a call through Store.
                if let Some(&(_, _, constraint)) = self
                    .type_params
                    .iter()
                    .rev()
                    .find(|(decl, n, _)| *n == name && self.scope_stack.contains(decl))
                {
                    return Lowered::Type(constraint);
                }
                let name = self.local_type(name);
                Lowered::Type(self.push_type(GoType::Named { pkg: None, name }))
            }
            K::QualifiedType => {
                let pkg = Self::field(children, g.f_package);
                let name = Self::field(children, g.f_name);
                match (pkg, name) {
                    (Some(Lowered::Name(pkg)), Some(Lowered::Type(_))) => {
                        // The name as written: a local type or a type
                        // parameter of this package that shares it
                        // (`testing.T` beside a local `T`) is not meant.
                        let Some(name) = node.child_by_field_name("name") else {
                            return Lowered::None;
                        };
                        let name = self.intern_node(&name);
                        Lowered::Type(self.push_type(GoType::Named {
                            pkg: Some(pkg),
                            name,
                        }))
                    }
                    _ => Lowered::None,
                }
            }
            K::PointerType => {
                let inner = kids(children).into_iter().next();
                match inner {
                    Some(v) => {
                        let t = self.as_type(&v);
                        Lowered::Type(self.push_type(GoType::Pointer(t)))
                    }
                    None => Lowered::None,
                }
            }
            K::SliceType => {
                let el = Self::field(children, g.f_element)
                    .or_else(|| kids(children).into_iter().last());
                let t = el.map(|e| self.as_type(&e)).unwrap_or(0);
                Lowered::Type(self.push_type(GoType::Slice(t)))
            }
            K::MapType => {
                let k = Self::field(children, g.f_key);
                let v = Self::field(children, g.f_value);
                let k = k.map(|k| self.as_type(&k)).unwrap_or(0);
                let v = v.map(|v| self.as_type(&v)).unwrap_or(0);
                Lowered::Type(self.push_type(GoType::Map(k, v)))
            }
            K::ChanType => {
                let el =
                    Self::field(children, g.f_value).or_else(|| kids(children).into_iter().last());
                let t = el.map(|e| self.as_type(&e)).unwrap_or(0);
                Lowered::Type(self.push_type(GoType::Chan(t)))
            }
            K::FuncType => {
                let results = Self::field(children, g.f_result);
                let results = self.result_types(results);
                Lowered::Type(self.push_type(GoType::Func { results }))
            }
            K::GenericType | K::TypeInstantiation => {
                let base =
                    Self::field(children, g.f_type).or_else(|| kids(children).into_iter().next());
                match base {
                    Some(b) => {
                        let t = self.as_type(&b);
                        match frame.kind {
                            K::TypeInstantiation => self.instantiation_or_index(t),
                            _ => match Self::field(children, g.f_type_arguments) {
                                Some(Lowered::TypeArgs(args)) => {
                                    Lowered::Type(self.instantiated(t, args))
                                }
                                _ => Lowered::Type(t),
                            },
                        }
                    }
                    None => Lowered::None,
                }
            }
            K::TypeArguments => Lowered::TypeArgs(
                kids(children)
                    .iter()
                    .map(|v| match v {
                        Lowered::Iface(m, _, embeds) if m.is_empty() && embeds.len() == 1 => {
                            embeds[0]
                        }
                        other => self.as_type(other),
                    })
                    .collect(),
            ),
            K::FieldDecl => {
                let names: Vec<Sym> = children
                    .iter()
                    .filter(|c| c.field == g.f_name)
                    .filter_map(|c| match c.val {
                        Lowered::Name(s) => Some(s),
                        _ => None,
                    })
                    .collect();
                let ty = Self::field(children, g.f_type)
                    .map(|t| self.as_type(&t))
                    .unwrap_or(0);
                Lowered::Field(GoField { name: None, ty }, names)
            }
            K::FieldList => {
                let vals = kids(children);
                self.lists.push(vals);
                Lowered::Fields(self.lists.len() as u32 - 1)
            }
            K::StructType => {
                let mut fields = Vec::new();
                let mut stack: Vec<Lowered> = kids(children);
                // field_declaration_list wraps the fields: flatten one level.
                while let Some(v) = stack.pop() {
                    match v {
                        Lowered::Field(f, names) => {
                            if names.is_empty() {
                                fields.push(f);
                            } else {
                                // Popped last-first and reversed below: keep `a, b T` in order.
                                for n in names.into_iter().rev() {
                                    fields.push(GoField {
                                        name: Some(n),
                                        ty: f.ty,
                                    });
                                }
                            }
                        }
                        Lowered::Fields(i) => {
                            let inner = std::mem::take(&mut self.lists[i as usize]);
                            stack.extend(inner);
                        }
                        _ => {}
                    }
                }
                fields.reverse();
                self.lists.push(
                    fields
                        .into_iter()
                        .map(|f| Lowered::Field(f, Vec::new()))
                        .collect(),
                );
                Lowered::Fields(self.lists.len() as u32 - 1)
            }
            K::MethodElem => match Self::field(children, g.f_name) {
                Some(Lowered::Name(n)) => {
                    let params: Vec<TypeId> = match Self::field(children, g.f_parameters) {
                        Some(Lowered::Params(p)) => self.params[p as usize]
                            .iter()
                            .flat_map(|(names, t)| std::iter::repeat_n(*t, names.len().max(1)))
                            .collect(),
                        _ => Vec::new(),
                    };
                    let arity = params.len();
                    let results = Self::field(children, g.f_result);
                    let results = self.result_types(results);
                    Lowered::Iface(
                        vec![(n, arity.min(u16::MAX as usize) as u16)],
                        vec![(params, results)],
                        vec![],
                    )
                }
                _ => Lowered::None,
            },
            K::TypeElem => {
                let embeds: Vec<TypeId> = kids(children).iter().map(|v| self.as_type(v)).collect();
                Lowered::Iface(vec![], vec![], embeds)
            }
            K::InterfaceType => {
                let mut methods = Vec::new();
                let mut results = Vec::new();
                let mut embeds = Vec::new();
                for v in kids(children) {
                    if let Lowered::Iface(m, r, e) = v {
                        methods.extend(m);
                        results.extend(r);
                        embeds.extend(e);
                    }
                }
                Lowered::Iface(methods, results, embeds)
            }
            K::TypeSpec => {
                let name = match Self::field(children, g.f_name) {
                    Some(Lowered::Type(t)) => match self.facts.types[t as usize] {
                        GoType::Named { name, .. } => name,
                        _ => return Lowered::None,
                    },
                    _ => return Lowered::None,
                };
                let body = Self::field(children, g.f_type);
                let decl = frame.decl.unwrap_or(0);
                let body = match body {
                    Some(Lowered::Fields(i)) => {
                        let fields = std::mem::take(&mut self.lists[i as usize])
                            .into_iter()
                            .filter_map(|v| match v {
                                Lowered::Field(f, _) => Some(f),
                                _ => None,
                            })
                            .collect();
                        GoTypeBody::Struct(fields)
                    }
                    Some(Lowered::Iface(methods, signatures, embeds)) => {
                        let (params, results) = signatures.into_iter().unzip();
                        GoTypeBody::Interface {
                            methods,
                            results,
                            params,
                            embeds,
                        }
                    }
                    Some(other) => GoTypeBody::Other(self.as_type(&other)),
                    None => GoTypeBody::Other(0),
                };
                if let Some(d) = self.decls.get_mut(decl as usize) {
                    d.kind = match body {
                        GoTypeBody::Struct(_) => DeclKind::Struct,
                        GoTypeBody::Interface { .. } => DeclKind::Interface,
                        GoTypeBody::Other(_) => DeclKind::Type,
                    };
                }
                let params = self.type_parameters(&node);
                self.facts.type_decls.push(GoTypeDecl {
                    name,
                    decl,
                    body,
                    params,
                    alias: node.kind() == "type_alias",
                });
                Lowered::None
            }
            _ => Lowered::None,
        }
    }

    /// The type a type node names, for the shapes a type switch's case
    /// uses (`T`, `pkg.T`, `*T`, `T[U]`); 0 for any other.
    pub(super) fn type_of_node(&mut self, t: Node) -> TypeId {
        let text =
            |this: &Self, n: Option<Node>| n.map(|n| walk::text(&n, this.source).into_owned());
        match t.kind() {
            "type_identifier" => {
                let name = self.intern_text(&t);
                self.push_type(GoType::Named { pkg: None, name })
            }
            "qualified_type" => {
                let (Some(pkg), Some(name)) = (
                    text(self, t.child_by_field_name("package")),
                    text(self, t.child_by_field_name("name")),
                ) else {
                    return 0;
                };
                let pkg = self.strings.intern(&pkg);
                let name = self.strings.intern(&name);
                self.push_type(GoType::Named {
                    pkg: Some(pkg),
                    name,
                })
            }
            "pointer_type" => match t.named_child(0) {
                Some(inner) => match self.type_of_node(inner) {
                    0 => 0,
                    inner => self.push_type(GoType::Pointer(inner)),
                },
                None => 0,
            },
            "generic_type" => match t.child_by_field_name("type") {
                Some(base) => self.type_of_node(base),
                None => 0,
            },
            _ => 0,
        }
    }

    /// `x[k](…)` parses as the instantiation of a generic type or
    /// function, as `List[int](xs)` does: only names tell them apart
    /// (`r.handlers[k](w)` indexes a variable). Both become an index
    /// expression, which the resolver reads as either: it knows which names
    /// are packages, types, functions and variables.
    pub(super) fn instantiation_or_index(&mut self, t: TypeId) -> Lowered {
        match self.facts.types[t as usize] {
            GoType::Named {
                pkg: Some(qualifier),
                name,
            } => {
                let base = self.push_expr(GoExpr::Ident(qualifier));
                let field = self.push_expr(GoExpr::Selector(base, name));
                Lowered::Expr(self.push_expr(GoExpr::Index(field)))
            }
            GoType::Named { pkg: None, name } => {
                let base = self.push_expr(GoExpr::Ident(name));
                Lowered::Expr(self.push_expr(GoExpr::Index(base)))
            }
            _ => Lowered::Type(t),
        }
    }

    /// `Stack[Shape]`: a `Named` type of its own for this use, with its
    /// arguments recorded. A fresh type is the newest, so `type_args` stays
    /// sorted.
    fn instantiated(&mut self, base: TypeId, args: Vec<TypeId>) -> TypeId {
        let Some(named @ GoType::Named { .. }) = self.facts.types.get(base as usize).cloned()
        else {
            return base;
        };
        if args.is_empty() {
            return base;
        }
        let t = self.push_type(named);
        self.facts.type_args.push((t, args));
        t
    }

    /// The name a type declared in an enclosing function is known by, or
    /// `name` itself.
    pub(super) fn local_type(&self, name: Sym) -> Sym {
        if self.local_types.is_empty() {
            return name;
        }
        self.scope_stack
            .iter()
            .rev()
            .find_map(|&d| self.local_types.get(&(d, name)).copied())
            .unwrap_or(name)
    }
}

//! Expressions: names, selectors, calls (and conversions, which are calls
//! of a type), unary operators, indexing and slicing, type assertions,
//! argument and expression lists, and composite literals with their
//! elements (elided element types filled in from the enclosing literal).

use super::{
    Child, ElemKey, ExprId, Extractor, Frame, GRAMMAR, GoCall, GoExpr, GoType, K, Lowered, TypeId,
    kids,
};
use crate::lang::walk;
use crate::model::{CallSite, Span};
use tree_sitter::Node;

impl Extractor<'_> {
    /// Lowers an expression node (one group of `lower`'s arms, in their order).
    pub(super) fn lower_expression(
        &mut self,
        node: Node,
        frame: &Frame,
        children: &[Child],
    ) -> Lowered {
        let g = &*GRAMMAR;
        match frame.kind {
            K::Identifier => {
                let name = self.intern_node(&node);
                let seen = self.visible(name, node.start_byte());
                // `favContextKey("color")` converts to a local type.
                let seen = if seen == name {
                    self.local_type(name)
                } else {
                    seen
                };
                Lowered::Name(seen)
            }
            K::FieldIdentifier | K::PackageIdentifier => Lowered::Name(self.intern_node(&node)),
            K::StringLit => {
                let t = walk::text(&node, self.source);
                let s = t.trim_matches(|c| c == '"' || c == '`').to_owned();
                Lowered::Str(self.strings.intern(&s))
            }
            K::Paren => kids(children).into_iter().next().unwrap_or(Lowered::None),
            K::Selector => {
                let base = Self::field(children, g.f_operand);
                let name = Self::field(children, g.f_field);
                match (base, name) {
                    (Some(base), Some(Lowered::Name(name))) => {
                        let base = self.as_expr(&base);
                        Lowered::Expr(self.push_expr(GoExpr::Selector(base, name)))
                    }
                    _ => Lowered::None,
                }
            }
            K::TypeConversion => {
                // The generic form may be a call: `Map[int](xs)`, or an
                // element of a map or slice of functions called. Any other
                // converts to a type literal (`[]Obs(nil)`, `map[K]V(m)`,
                // `(func())(f)`), which holds what its operand does: a call
                // of the type, as a conversion to a named type is.
                let generic = node
                    .child_by_field_name("type")
                    .is_some_and(|t| t.kind() == "generic_type");
                let Some(ty) = Self::field(children, g.f_type) else {
                    return Lowered::None;
                };
                let t = self.as_type(&ty);
                let callee = if generic {
                    match self.instantiation_or_index(t) {
                        Lowered::Expr(callee) => callee,
                        _ => return Lowered::None,
                    }
                } else if t == 0 {
                    return Lowered::None;
                } else {
                    self.push_expr(GoExpr::Type(t))
                };
                let args = Self::field(children, g.f_operand)
                    .map(|a| vec![self.as_expr(&a)])
                    .unwrap_or_default();
                let call = self.add_call(&node, callee, args);
                let type_args = self.facts.type_args_of(t).to_vec();
                if !type_args.is_empty() {
                    self.facts.call_type_args.push((call, type_args));
                }
                Lowered::Expr(self.push_expr(GoExpr::Call(call)))
            }
            K::Unary => {
                let op = node
                    .child_by_field_name("operator")
                    .map(|o| walk::text(&o, self.source).into_owned());
                let operand = Self::field(children, g.f_operand);
                let _ = g.f_operator;
                match (op.as_deref(), operand) {
                    (Some("&"), Some(v)) => {
                        let e = self.as_expr(&v);
                        Lowered::Expr(self.push_expr(GoExpr::AddrOf(e)))
                    }
                    (Some("*"), Some(v)) => {
                        let e = self.as_expr(&v);
                        Lowered::Expr(self.push_expr(GoExpr::Deref(e)))
                    }
                    // A value received from a channel is one of the values
                    // sent on it, as a range over it yields them.
                    (Some("<-"), Some(v)) => {
                        let e = self.as_expr(&v);
                        Lowered::Expr(self.push_expr(GoExpr::RangeValue(e)))
                    }
                    _ => Lowered::None,
                }
            }
            // `s[1:]` holds what `s` holds.
            K::Slice => Self::field(children, g.f_operand).unwrap_or(Lowered::None),
            K::Index => {
                let operand = Self::field(children, g.f_operand);
                match operand {
                    Some(v) => {
                        let e = self.as_expr(&v);
                        // `Map[int](…)`: an explicit instantiation of a generic function
                        // looks like an index; the resolver sees through it.
                        Lowered::Expr(self.push_expr(GoExpr::Index(e)))
                    }
                    None => Lowered::None,
                }
            }
            K::Composite => {
                let t = Self::field(children, g.f_type)
                    .map(|t| self.as_type(&t))
                    .unwrap_or(0);
                let composite = self.push_expr(GoExpr::Composite(t));
                if let Some(Lowered::Elems(list)) = Self::field(children, g.f_body) {
                    self.record_elems(composite, t, list, 0);
                }
                Lowered::Expr(composite)
            }
            K::LiteralElement => kids(children).into_iter().next().unwrap_or(Lowered::None),
            K::KeyedElement => {
                // A field name, not a variable, even where a local shadows it.
                let key = match Self::field(children, g.f_key) {
                    Some(Lowered::Name(n)) => Some(self.shadowed.get(&n).copied().unwrap_or(n)),
                    _ => None,
                };
                match Self::field(children, g.f_value) {
                    Some(v @ (Lowered::Name(_) | Lowered::Expr(_))) => {
                        Lowered::Keyed(key, self.as_expr(&v))
                    }
                    Some(Lowered::Elems(list)) => Lowered::Keyed(key, self.elided_literal(list)),
                    _ => Lowered::None,
                }
            }
            K::LiteralValue => {
                let mut elems = Vec::new();
                let mut position = 0u32;
                for c in children {
                    match &c.val {
                        Lowered::Keyed(key, value) => {
                            let key = key.map_or(ElemKey::Other, ElemKey::Name);
                            elems.push((key, *value));
                        }
                        v @ (Lowered::Name(_) | Lowered::Expr(_)) => {
                            let value = self.as_expr(&v.clone());
                            elems.push((ElemKey::Position(position), value));
                            position += 1;
                        }
                        &Lowered::Elems(list) => {
                            let value = self.elided_literal(list);
                            elems.push((ElemKey::Position(position), value));
                            position += 1;
                        }
                        Lowered::None => continue,
                        _ => position += 1,
                    }
                }
                self.elem_lists.push(elems);
                Lowered::Elems(self.elem_lists.len() as u32 - 1)
            }
            K::TypeAssert => {
                let t = Self::field(children, g.f_type)
                    .map(|t| self.as_type(&t))
                    .unwrap_or(0);
                let operand = Self::field(children, g.f_operand)
                    .map(|v| self.as_expr(&v))
                    .unwrap_or(0);
                Lowered::Expr(self.push_expr(GoExpr::TypeAssert(operand, t)))
            }
            K::ArgumentList | K::ExpressionList => {
                // Every element keeps its position, literals included
                // (lowered to nothing, then an unknown expression), so
                // `f(1, g)` passes `g` as the second argument.
                let vals = children
                    .iter()
                    .filter(|c| c.element)
                    .map(|c| c.val.clone())
                    .collect();
                self.lists.push(vals);
                Lowered::List(self.lists.len() as u32 - 1)
            }
            K::Call => {
                let callee = Self::field(children, g.f_function);
                let args = Self::field(children, g.f_arguments);
                let Some(callee) = callee else {
                    return Lowered::None;
                };
                let callee = self.as_expr(&callee);
                let args: Vec<Lowered> = self.list(&args);
                let args: Vec<ExprId> = args.iter().map(|a| self.as_expr(a)).collect();
                // `copy(dst, src)` stores src's elements in dst (io's
                // MultiReader copies its readers into the slice it keeps).
                if let (GoExpr::Ident(name), [dst, src]) =
                    (&self.facts.exprs[callee as usize], args.as_slice())
                    && self.strings.get(*name) == "copy"
                {
                    let (dst, src) = (*dst, *src);
                    let scope = self.scope();
                    self.store(scope, dst, &Lowered::Expr(src), true);
                }
                let call = self.add_call(&node, callee, args);
                let type_args =
                    self.explicit_type_args(&node, Self::field(children, g.f_type_arguments));
                if !type_args.is_empty() {
                    self.facts.call_type_args.push((call, type_args));
                }
                Lowered::Expr(self.push_expr(GoExpr::Call(call)))
            }
            _ => Lowered::None,
        }
    }

    fn add_call(&mut self, node: &Node, callee: ExprId, args: Vec<ExprId>) -> u32 {
        let text = node
            .child_by_field_name("function")
            .map(|f| walk::one_line(&walk::text(&f, self.source), 120))
            .unwrap_or_default();
        self.calls.push(CallSite {
            caller: self.scope(),
            callee_text: text,
            span: Span::of(node),
            arg_count: args.len() as u16,
        });
        self.facts.calls.push(GoCall { callee, args });
        (self.calls.len() - 1) as u32
    }

    /// A literal without a type of its own, as an element of another: a
    /// composite whose type the enclosing literal fills in.
    fn elided_literal(&mut self, list: u32) -> ExprId {
        let e = self.push_expr(GoExpr::Composite(0));
        self.elided.insert(e, list);
        e
    }

    /// The elements of literal `composite` of type `t`; elided literals
    /// among them get the element type of `t` (a slice's or array's
    /// element, a map's value; through a pointer, `[]*T{{…}}` being
    /// `&T{…}`s) and their own elements recorded in turn.
    fn record_elems(&mut self, composite: ExprId, t: TypeId, list: u32, depth: u32) {
        let scope = self.scope();
        let elems = std::mem::take(&mut self.elem_lists[list as usize]);
        for (key, value) in elems {
            self.facts
                .composite_elems
                .push((scope, composite, key, value));
            let Some(inner) = self.elided.remove(&value) else {
                continue;
            };
            let mut elem = match self.facts.types.get(t as usize) {
                Some(&GoType::Slice(e) | &GoType::Map(_, e)) => e,
                _ => 0,
            };
            if let Some(&GoType::Pointer(pointee)) = self.facts.types.get(elem as usize) {
                elem = pointee;
            }
            self.facts.exprs[value as usize] = GoExpr::Composite(elem);
            if depth < 16 {
                self.record_elems(value, elem, inner, depth + 1);
            }
        }
    }

    /// The explicit type arguments a call spells: `F[int, T]()` (a
    /// field of the call), or `F[T]()`, which parses as an index.
    fn explicit_type_args(&mut self, node: &Node, lowered: Option<Lowered>) -> Vec<TypeId> {
        if let Some(Lowered::TypeArgs(args)) = lowered {
            return args;
        }
        let Some(index) = node
            .child_by_field_name("function")
            .filter(|f| f.kind() == "index_expression")
            .and_then(|f| f.child_by_field_name("index"))
        else {
            return Vec::new();
        };
        let t = match index.kind() {
            "identifier" => {
                let name = self.intern_node(&index);
                self.push_type(GoType::Named { pkg: None, name })
            }
            "selector_expression" => match (
                index.child_by_field_name("operand"),
                index.child_by_field_name("field"),
            ) {
                (Some(pkg), Some(name)) if pkg.kind() == "identifier" => {
                    let pkg = self.intern_node(&pkg);
                    let name = self.intern_node(&name);
                    self.push_type(GoType::Named {
                        pkg: Some(pkg),
                        name,
                    })
                }
                _ => 0,
            },
            _ => self.type_of_node(index),
        };
        if t == 0 { Vec::new() } else { vec![t] }
    }
}

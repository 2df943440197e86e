//! Statements that bind or hand on values: assignments, short variable
//! declarations, `var` and `const` specs, `range` clauses, channel sends
//! and receives, and `return`.

use super::{
    BARE_RETURN, Binding, Child, ExprId, Extractor, FORWARDED_RETURN, Frame, GRAMMAR, GoExpr, K,
    Lowered, kids,
};
use crate::lang::walk;
use tree_sitter::Node;

impl Extractor<'_> {
    /// Lowers a statement that binds or hands on values (one group of
    /// `lower`'s arms, in their order).
    pub(super) fn lower_statement(
        &mut self,
        node: Node,
        frame: &Frame,
        children: &[Child],
    ) -> Lowered {
        let g = &*GRAMMAR;
        match frame.kind {
            K::Assign => {
                // Flow-insensitive: `f = g` is one more value `f` may hold.
                let left = Self::field(children, g.f_left);
                let right = Self::field(children, g.f_right);
                let names = self.list(&left);
                let values = self.list(&right);
                if node
                    .child_by_field_name("operator")
                    .is_some_and(|o| walk::text(&o, self.source) == "=")
                {
                    self.assign_values(&names, &values);
                    let scope = self.scope();
                    if names.len() == values.len() {
                        for (n, v) in names.iter().zip(values.iter()) {
                            if let Lowered::Expr(target) = *n {
                                self.store(scope, target, v, false);
                            }
                        }
                    } else if let [call] = values.as_slice()
                        && names.len() > 1
                    {
                        // `t.body, err = makeBody(v)`: each target holds the
                        // call's result in its position.
                        let call = self.as_expr(call);
                        for (i, n) in names.iter().enumerate() {
                            if let Lowered::Expr(target) = *n {
                                let nth = self.push_expr(GoExpr::Nth(call, i as u8));
                                self.store(scope, target, &Lowered::Expr(nth), false);
                            }
                        }
                    }
                }
                Lowered::None
            }
            K::Send => {
                let channel = Self::field(children, g.f_channel);
                let value = Self::field(children, g.f_value);
                if let (Some(channel), Some(v)) = (channel, value) {
                    let scope = self.scope();
                    let target = self.as_expr(&channel);
                    self.store(scope, target, &v, true);
                }
                Lowered::None
            }
            K::Return => {
                let vals = kids(children);
                let vals = match vals.as_slice() {
                    [Lowered::List(i)] => self.lists[*i as usize].clone(),
                    _ => vals,
                };
                let scope = self.scope();
                let mut first = 0;
                for (i, v) in vals.iter().enumerate().take(8) {
                    let e = self.as_expr(v);
                    if i == 0 {
                        first = e;
                    }
                    if e != 0 {
                        self.facts.returns.push((scope, i as u8, e));
                    }
                }
                // Returns whose values do not sit one per result: a bare
                // `return` (named results) and `return f()`, which may
                // forward all of f's results.
                if vals.is_empty() {
                    self.facts.returns.push((scope, BARE_RETURN, 0));
                } else if vals.len() == 1
                    && matches!(self.facts.exprs.get(first as usize), Some(GoExpr::Call(_)))
                {
                    self.facts.returns.push((scope, FORWARDED_RETURN, first));
                }
                Lowered::None
            }
            K::Receive => {
                let left = Self::field(children, g.f_left);
                let right = Self::field(children, g.f_right);
                let names = self.list(&left);
                let values = self.list(&right);
                let declares = (0..node.child_count())
                    .filter_map(|i| node.child(i))
                    .any(|c| c.kind() == ":=");
                if declares {
                    let names = self.declare_all(&names, field_span(node, "left"));
                    self.bind_values(&names, &values);
                } else {
                    self.assign_values(&names, &values);
                }
                Lowered::None
            }
            K::ShortVar => {
                let left = Self::field(children, g.f_left);
                let right = Self::field(children, g.f_right);
                let names = self.list(&left);
                let names = self.declare_all(&names, field_span(node, "left"));
                let values = self.list(&right);
                self.bind_values(&names, &values);
                Lowered::None
            }
            K::VarSpec => {
                let names: Vec<Lowered> = children
                    .iter()
                    .filter(|c| c.field == g.f_name)
                    .map(|c| c.val.clone())
                    .collect();
                let names = self.declare_all(&names, var_spec_targets(node));
                let ty = Self::field(children, g.f_type);
                let value = Self::field(children, g.f_value);
                let mut ty = ty.map(|t| self.as_type(&t));
                // `var h Handler = &fileHandler{}`: the declared type says
                // what `h` is, the value what it holds.
                let mut values = self.list(&value);
                if node.kind() == "const_spec" {
                    if ty.is_none() && values.is_empty() {
                        (ty, values) = self.const_repeat.clone();
                    } else {
                        self.const_repeat = (ty, values.clone());
                    }
                }
                if let Some(t) = ty {
                    for n in &names {
                        if let Lowered::Name(n) = n {
                            self.bind(*n, Binding::Type(t));
                        }
                    }
                }
                self.bind_values(&names, &values);
                Lowered::None
            }
            K::RangeClause => {
                let left = Self::field(children, g.f_left);
                let right = Self::field(children, g.f_right);
                let mut names = self.list(&left);
                let mut cursor = node.walk();
                if node.children(&mut cursor).any(|c| c.kind() == ":=") {
                    names = self.declare_all(&names, field_span(node, "left"));
                }
                if let Some(right) = right {
                    let r = self.as_expr(&right);
                    if let Some(Lowered::Name(k)) = names.first().cloned() {
                        let key = self.push_expr(GoExpr::RangeKey(r));
                        self.bind(k, Binding::Value(key));
                    }
                    if let Some(Lowered::Name(v)) = names.get(1).cloned() {
                        let value = self.push_expr(GoExpr::RangeValue(r));
                        self.bind(v, Binding::Value(value));
                    }
                }
                Lowered::None
            }
            _ => Lowered::None,
        }
    }

    /// `target = v` where the target is a field or an element: one more
    /// value the field, map, slice or channel holds. `r.funcs[kind] = f`
    /// stores into a field as the elements of a composite literal do;
    /// `handlers[k] = h` and `ch <- h` (`element`) into a local container,
    /// recorded where it is declared.
    pub(super) fn store(&mut self, scope: u32, mut target: ExprId, v: &Lowered, mut element: bool) {
        while let GoExpr::Index(inner) = self.facts.exprs[target as usize] {
            target = inner;
            element = true;
        }
        match self.facts.exprs[target as usize] {
            GoExpr::Selector(..) => {
                let value = self.as_expr(v);
                self.facts.field_assigns.push((scope, target, value));
            }
            GoExpr::Ident(name) if element => {
                let value = self.as_expr(v);
                if self.strings.get(name) != "_" {
                    match self.declaring_scope(name) {
                        Some(at) => self.facts.bindings.push((at, name, Binding::Value(value))),
                        None => self.facts.global_writes.push((scope, name, value)),
                    }
                }
            }
            _ => {}
        }
    }

    /// `x = v` adds a value to the variable `x` where it is declared: a
    /// closure assigning a captured variable (`typ = typ.Elem()`) must not
    /// make it a new, closure-local variable that hides the outer one.
    fn assign_values(&mut self, names: &[Lowered], values: &[Lowered]) {
        let names: Vec<Lowered> = names
            .iter()
            .map(|n| match n {
                Lowered::Name(var) => Lowered::Name(self.new_version(*var)),
                other => other.clone(),
            })
            .collect();
        let start = self.facts.bindings.len();
        self.bind_values(&names, values);
        let written = self.facts.bindings.split_off(start);
        for (scope, name, b) in written {
            match (self.declaring_scope(name), b) {
                (Some(at), b) => self.facts.bindings.push((at, name, b)),
                (None, Binding::Value(value)) => {
                    self.facts.global_writes.push((scope, name, value))
                }
                (None, Binding::Type(_)) => {}
            }
        }
    }

    /// `a, b := x, y` binds pairwise; `a, err := f()` binds the n-th result.
    fn bind_values(&mut self, names: &[Lowered], values: &[Lowered]) {
        let single = values.len() == 1 && names.len() > 1;
        let first = values.first().map(|v| self.as_expr(v)).unwrap_or(0);
        for (i, n) in names.iter().enumerate() {
            let Lowered::Name(name) = n else { continue };
            let value = if single {
                self.push_expr(GoExpr::Nth(first, i as u8))
            } else {
                match values.get(i) {
                    Some(v) => self.as_expr(v),
                    None => continue,
                }
            };
            self.bind(*name, Binding::Value(value));
        }
    }
}

/// Where a node's field is written (empty when it has none).
fn field_span(node: Node, field: &str) -> std::ops::Range<usize> {
    node.child_by_field_name(field)
        .map_or(0..0, |n| n.start_byte()..n.end_byte())
}

/// Where a `var` spec's names are written: before its type or value.
fn var_spec_targets(node: Node) -> std::ops::Range<usize> {
    let end = ["type", "value"]
        .iter()
        .filter_map(|f| node.child_by_field_name(f))
        .map(|n| n.start_byte())
        .min()
        .unwrap_or(node.end_byte());
    node.start_byte()..end
}

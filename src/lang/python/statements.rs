//! Statements that bind or hand on values: assignment and destructuring,
//! `for` loops and comprehensions, `with`, `except`, `return`, `yield`,
//! `raise`, `global` and `nonlocal`.

use super::expressions::{STARRED, binary_dunder, is_value, literal_string_items};
use super::{
    ExprId, Extractor, Frame, GRAMMAR, K, Lowered, PyCall, PyCallKind, PyExpr, PyFlow, UNKNOWN,
};
use crate::lang::walk;
use crate::model::{DeclKind, Sym};
use tree_sitter::Node;

impl<'s> Extractor<'s> {
    /// Turn an expression used as an assignment target into a target,
    /// recording the names it binds.
    pub(super) fn bind_target(&mut self, e: ExprId) {
        let mut stack = vec![e];
        while let Some(e) = stack.pop() {
            match &self.facts.exprs[e as usize] {
                PyExpr::Name { scope, name } => {
                    self.bindings.insert((*scope, *name));
                }
                PyExpr::Container { items } => stack.extend(items.iter().map(|(_, e)| *e)),
                _ => {}
            }
        }
    }

    pub(super) fn assign(&mut self, target: ExprId, value: ExprId) {
        if target == UNKNOWN {
            return;
        }
        self.bind_target(target);
        self.facts.flows.push(PyFlow::Assign { target, value });
    }

    /// Statements that bind or hand on values: assignments, loops and
    /// comprehensions, `return`/`yield`/`raise`, `with` items, `except`
    /// clauses and `global`/`nonlocal`.
    pub(super) fn lower_statement(&mut self, node: Node, frame: &Frame) -> Lowered {
        let g = &*GRAMMAR;
        let start = frame.start;
        match frame.kind {
            K::Comprehension | K::DictComprehension => {
                let body = Self::field(self.children(start), g.f_body).cloned();
                let item = match body {
                    Some(Lowered::Pair(k, v)) => (k, v),
                    Some(v) => (None, self.as_expr(&v)),
                    None => (None, UNKNOWN),
                };
                let e = self.push_expr(PyExpr::Container {
                    items: vec![item].into(),
                });
                match node.kind() {
                    "set_comprehension" => self.facts.set_sites.push(e),
                    // `{id(i): i for i in items}` is a dict: `.values()`
                    // and `.get()` give what it holds.
                    "dictionary_comprehension" => self.facts.dict_sites.push(e),
                    _ => {}
                }
                Lowered::Expr(e)
            }
            K::ForInClause => {
                let left = Self::field(self.children(start), g.f_left).cloned();
                let right = Self::field(self.children(start), g.f_right).cloned();
                if let (Some(left), Some(right)) = (left, right) {
                    self.iterate(&node, &left, &right);
                }
                Lowered::None
            }
            K::For => {
                let left = Self::field(self.children(start), g.f_left).cloned();
                let right = Self::field(self.children(start), g.f_right).cloned();
                if let (Some(left), Some(right)) = (left, right) {
                    self.iterate(&node, &left, &right);
                }
                Lowered::None
            }
            K::Assignment | K::AugAssignment => {
                let left = Self::field(self.children(start), g.f_left).cloned();
                let right = Self::field(self.children(start), g.f_right).cloned();
                // `name: T` / `name: T = v` in a class body: a field, in order
                // (what a dataclass's generated `__init__` assigns).
                let scope = self.scope();
                if let Some(Lowered::Ident(name, 0)) = &left
                    && self.strings.get(*name) == "__all__"
                {
                    self.note_exports(frame.kind == K::AugAssignment, right.as_ref());
                }
                if frame.kind == K::Assignment
                    && node.child_by_field_id(GRAMMAR.f_type).is_some()
                    && self.decls[scope as usize].kind == DeclKind::Class
                    && let Some(Lowered::Ident(name, _)) = &left
                {
                    self.facts.decl_info[scope as usize].fields.push(*name);
                }
                if frame.kind == K::AugAssignment
                    && let (Some(l), Some(r)) = (&left, &right)
                    && is_value(l)
                {
                    let op = node
                        .child_by_field_id(GRAMMAR.f_operator)
                        .map(|o| walk::text(&o, self.source).into_owned())
                        .unwrap_or_default();
                    if let Some((method, _)) = binary_dunder(op.trim_end_matches('=')) {
                        let (l, r) = (self.as_expr(l), self.as_expr(r));
                        let inplace = format!("__i{}", &method[2..]);
                        self.operator_call(&node, &inplace, None, l, r);
                    }
                }
                // An annotation adds what it declares to whatever is assigned.
                let annotated = match node.child_by_field_id(GRAMMAR.f_type) {
                    Some(t) if frame.kind == K::Assignment => self.annotation(t, true, 0),
                    _ => None,
                };
                match (left, right) {
                    (Some(left), None) if annotated.is_some() && is_value(&left) => {
                        let target = self.as_expr(&left);
                        self.assign(target, annotated.unwrap_or(UNKNOWN));
                        Lowered::None
                    }
                    (Some(left), Some(right)) => {
                        if let (Lowered::Ident(name, _), Lowered::Expr(value)) = (&left, &right)
                            && frame.kind == K::Assignment
                        {
                            self.note_property_call(*name, *value);
                        }
                        if let Lowered::Ident(name, scope) = left
                            && frame.kind == K::Assignment
                        {
                            let constant = self.string_constant(&right);
                            self.note_string_name(scope, name, constant);
                        }
                        let mut value = self.as_expr(&right);
                        if let Some(a) = annotated {
                            value = self.push_expr(PyExpr::Union(vec![value, a].into()));
                        }
                        let target = match left {
                            Lowered::Ident(name, scope)
                                if frame.kind == K::Assignment
                                    && self.is_straight_line_statement() =>
                            {
                                self.new_version(scope, name)
                            }
                            // `a, b = b, a` in a function rebinds both names, as
                            // `a = b` would. (At module level other modules read
                            // the names; their plain binding is kept direct.)
                            Lowered::Expr(e)
                                if frame.kind == K::Assignment
                                    && self.is_straight_line_statement()
                                    && self.decls[self.scope() as usize].kind
                                        != DeclKind::Class
                                    && self.scope() != 0 =>
                            {
                                self.version_unpacked_names(e)
                            }
                            _ => self.as_expr(&left),
                        };
                        if frame.kind == K::Assignment
                            && let Some(call) = self.subscript_calls.remove(&target)
                        {
                            let setitem = self.strings.intern("__setitem__");
                            let c = &mut self.facts.calls[call as usize];
                            c.kind = PyCallKind::Operator {
                                method: setitem,
                                reflected: None,
                            };
                            c.args = c.args.iter().copied().chain([value]).collect();
                        }
                        // `e["ttl"] -= 1` reads the item, then stores it back.
                        if frame.kind == K::AugAssignment
                            && let Some(call) = self.subscript_calls.remove(&target)
                        {
                            let read = &self.facts.calls[call as usize];
                            let receiver = read.callee;
                            let key = read.args.first().copied().unwrap_or(UNKNOWN);
                            let store =
                                self.operator_call(&node, "__setitem__", None, receiver, key);
                            self.facts.calls[store as usize].args = vec![key, value].into();
                        }
                        // A read of the target that was noted is the store.
                        self.items.reads.retain(|&(e, _)| e != target);
                        if frame.kind == K::AugAssignment {
                            self.items.forget = true;
                        } else if self.is_straight_line_statement() {
                            self.note_item_store(target, value);
                        }
                        // `a, b = pair()` iterates what the right side holds,
                        // as `for` does (a literal right side is unpacked by
                        // position, calling nothing).
                        // (`a, b = await gather(…)` unpacks the awaited result,
                        // which the value of `await` only approximates.)
                        let awaited = node
                            .child_by_field_id(g.f_right)
                            .is_some_and(|r| r.kind() == "await");
                        if matches!(
                            self.facts.exprs.get(target as usize),
                            Some(PyExpr::Container { .. })
                        ) && self.may_be_instance(value)
                            && frame.kind == K::Assignment
                            && !awaited
                        {
                            let text = node
                                .child_by_field_id(g.f_right)
                                .map(|r| walk::one_line(&walk::text(&r, self.source), 100))
                                .unwrap_or_default();
                            self.implicit_call(
                                &node,
                                format!("iter({text})"),
                                value,
                                PyCallKind::Iter,
                            );
                        }
                        self.assign_destructuring(target, value);
                        Lowered::Expr(value)
                    }
                    _ => Lowered::None,
                }
            }
            K::NamedExpr => {
                let name = Self::field(self.children(start), g.f_name).cloned();
                let value = Self::field(self.children(start), g.f_value).cloned();
                match (name, value) {
                    (Some(name), Some(value)) => {
                        let target = self.as_expr(&name);
                        let value = self.as_expr(&value);
                        self.assign(target, value);
                        Lowered::Expr(value)
                    }
                    _ => Lowered::None,
                }
            }
            K::Return => {
                let val = self
                    .children(start)
                    .iter()
                    .find(|c| !matches!(c.val, Lowered::None))
                    .map(|c| c.val.clone());
                if let (Some(val), Some(func)) = (val, self.function_scope()) {
                    let value = self.as_expr(&val);
                    self.facts.flows.push(PyFlow::Return { func, value });
                }
                Lowered::None
            }
            K::Raise => {
                let val = self
                    .children(start)
                    .iter()
                    .find(|c| !matches!(c.val, Lowered::None))
                    .map(|c| c.val.clone());
                if let Some(val) = val {
                    let callee = self.as_expr(&val);
                    let text = node
                        .named_child(0)
                        .map(|n| walk::one_line(&walk::text(&n, self.source), 120))
                        .unwrap_or_default();
                    self.implicit_call(&node, text, callee, PyCallKind::Raise);
                }
                Lowered::None
            }
            K::Yield => {
                // Other code runs while a generator waits.
                self.items.forget = true;
                let text = walk::text(&node, self.source);
                let after_yield = text.trim_start_matches("yield").trim_start();
                let from_operand = after_yield
                    .strip_prefix("from")
                    .map(|rest| walk::one_line(rest.trim_start(), 100));
                let val = self
                    .children(start)
                    .iter()
                    .find(|c| !matches!(c.val, Lowered::None))
                    .map(|c| c.val.clone());
                if let Some(func) = self.function_scope() {
                    self.facts.decl_info[func as usize].is_generator = true;
                    if let Some(val) = val {
                        let mut value = self.as_expr(&val);
                        if let Some(operand) = &from_operand {
                            // `yield from obj` iterates obj, as `for` does.
                            let text = format!("iter({operand})");
                            self.implicit_call(&node, text, value, PyCallKind::Iter);
                            value = self.push_expr(PyExpr::Iter(value));
                        }
                        self.facts.flows.push(PyFlow::Yield { func, value });
                    }
                }
                Lowered::None
            }
            K::AsPattern => {
                // `with open(p) as f` / `except E as e`: hand both sides to the parent.
                let vals: Vec<Lowered> = self
                    .children(start)
                    .iter()
                    .filter(|c| !matches!(c.val, Lowered::None))
                    .map(|c| c.val.clone())
                    .collect();
                if let [value, alias] = vals.as_slice() {
                    let value = self.as_expr(value);
                    let alias = self.as_expr(alias);
                    Lowered::Pair(
                        None,
                        self.push_expr(PyExpr::Container {
                            items: vec![(None, value), (None, alias)].into(),
                        }),
                    )
                } else {
                    Lowered::None
                }
            }
            K::WithItem => {
                let value = Self::field(self.children(start), g.f_value).cloned();
                match value {
                    Some(Lowered::Pair(_, pair)) => {
                        if let PyExpr::Container { items } = self.facts.exprs[pair as usize].clone()
                            && let [(_, value), (_, alias)] = &items[..]
                        {
                            let text = walk::text(&node, self.source).into_owned();
                            let call = self.add_call(
                                &node,
                                walk::one_line(&text, 120),
                                PyCall {
                                    callee: *value,
                                    args: Box::default(),
                                    kwargs: Box::default(),
                                    splats: Box::default(),
                                    key: None,
                                    kind: PyCallKind::With,
                                },
                            );
                            let result = self.push_expr(PyExpr::Call(call));
                            self.assign(*alias, result);
                        }
                    }
                    Some(v) => {
                        let value = self.as_expr(&v);
                        let text = walk::text(&node, self.source).into_owned();
                        self.implicit_call(
                            &node,
                            walk::one_line(&text, 120),
                            value,
                            PyCallKind::With,
                        );
                    }
                    None => {}
                }
                Lowered::None
            }
            K::ExceptClause => {
                let value = Self::field(self.children(start), g.f_value).cloned();
                let alias = Self::field(self.children(start), g.f_alias).cloned();
                match (value, alias) {
                    (Some(Lowered::Pair(_, pair)), _) => {
                        if let PyExpr::Container { items } = self.facts.exprs[pair as usize].clone()
                            && let [(_, value), (_, alias)] = &items[..]
                        {
                            let inst = self.push_expr(PyExpr::Instance(*value));
                            self.assign(*alias, inst);
                        }
                    }
                    (Some(value), Some(alias)) => {
                        let value = self.as_expr(&value);
                        let alias = self.as_expr(&alias);
                        let inst = self.push_expr(PyExpr::Instance(value));
                        self.assign(alias, inst);
                    }
                    _ => {}
                }
                Lowered::None
            }
            K::Global | K::Nonlocal => {
                let scope = self.scope();
                let names: Vec<Sym> = self
                    .children(start)
                    .iter()
                    .filter_map(|c| match c.val {
                        Lowered::Ident(s, _) => Some(s),
                        _ => None,
                    })
                    .collect();
                for name in names {
                    if frame.kind == K::Global {
                        self.globals.insert((scope, name));
                        self.bindings.insert((0, name));
                    } else {
                        self.nonlocals.insert((scope, name));
                    }
                }
                Lowered::None
            }
            // `lower` routes only the kinds above here.
            _ => Lowered::None,
        }
    }

    pub(super) fn iterate(&mut self, node: &Node, left: &Lowered, right: &Lowered) {
        let target = self.as_expr(left);
        let iterable = self.as_expr(right);
        let text = node
            .child_by_field_id(GRAMMAR.f_right)
            .map(|r| walk::text(&r, self.source).into_owned())
            .unwrap_or_default();
        let text = format!("iter({})", walk::one_line(&text, 100));
        self.implicit_call(node, text, iterable, PyCallKind::Iter);
        let value = self.push_expr(PyExpr::Iter(iterable));
        self.assign_destructuring(target, value);
    }

    /// `a, b = x, y` pairs elements up, and `a, *rest, z = w, x, y, z`
    /// gives `rest` the middle ones as a list; otherwise every name in a
    /// tuple target receives the iterated elements of the value (`rest` a
    /// list of them).
    pub(super) fn assign_destructuring(&mut self, target: ExprId, value: ExprId) {
        let starred_key = self.strings.intern(STARRED);
        let mut work = vec![(target, value)];
        while let Some((target, value)) = work.pop() {
            let t = self.facts.exprs[target as usize].clone();
            match t {
                PyExpr::Container { items }
                    if items.iter().any(|(k, _)| *k == Some(starred_key)) =>
                {
                    let star = items
                        .iter()
                        .position(|(k, _)| *k == Some(starred_key))
                        .unwrap_or(0);
                    let after = items.len() - star - 1;
                    match self.facts.exprs[value as usize].clone() {
                        PyExpr::Container { items: vitems }
                            if vitems.len() >= items.len() - 1
                                && vitems.iter().all(|(k, _)| k.is_some()) =>
                        {
                            for (i, (_, t)) in items.iter().enumerate() {
                                if i < star {
                                    work.push((*t, vitems[i].1));
                                } else if i > star {
                                    work.push((*t, vitems[vitems.len() - (items.len() - i)].1));
                                }
                            }
                            let middle: Vec<(Option<Sym>, ExprId)> = vitems
                                [star..vitems.len() - after]
                                .iter()
                                .enumerate()
                                .map(|(j, (_, v))| {
                                    (Some(self.strings.intern(&format!("#{j}"))), *v)
                                })
                                .collect();
                            let list = self.push_expr(PyExpr::Container {
                                items: middle.into(),
                            });
                            work.push((items[star].1, list));
                        }
                        _ => {
                            let elem = self.push_expr(PyExpr::Iter(value));
                            for (i, (_, t)) in items.iter().enumerate() {
                                if i == star {
                                    let list = self.push_expr(PyExpr::Container {
                                        items: vec![(None, elem)].into(),
                                    });
                                    work.push((*t, list));
                                } else {
                                    work.push((*t, elem));
                                }
                            }
                        }
                    }
                }
                PyExpr::Container { items } => {
                    if let PyExpr::Container { items: vitems } = &self.facts.exprs[value as usize]
                        && vitems.len() == items.len()
                    {
                        let pairs: Vec<(ExprId, ExprId)> = items
                            .iter()
                            .zip(vitems.iter())
                            .map(|((_, t), (_, v))| (*t, *v))
                            .collect();
                        work.extend(pairs);
                    } else {
                        let elem = self.push_expr(PyExpr::Iter(value));
                        for (_, t) in items {
                            work.push((t, elem));
                        }
                    }
                }
                _ => self.assign(target, value),
            }
        }
    }

    /// `for name in ("a", "b"): setattr(cls, name, …)`: the loop variable
    /// holds one of those names, written `a|b` (no attribute name has a
    /// `|`) for the getattr and setattr calls of the body, which is lowered
    /// after this (children first).
    pub(super) fn note_loop_names(&mut self, start: usize, for_node: &Node) {
        let g = &*GRAMMAR;
        let Some(Lowered::Ident(name, scope)) =
            Self::field(self.children(start), g.f_left).cloned()
        else {
            return;
        };
        let names = for_node
            .child_by_field_id(g.f_right)
            .and_then(|r| literal_string_items(&r, self.source));
        let constant = names.map(|n| Lowered::Str(self.strings.intern(&n)));
        self.note_string_name(scope, name, constant);
    }
}

//! Expressions: calls (explicit, and those operators, conversions and
//! formatting imply), attributes, subscripts, operators, containers and
//! string literals.

use super::{
    ArgList, Exports, ExprId, Extractor, Frame, GRAMMAR, K, Lowered, ParamKind, PyCall, PyCallKind,
    PyExpr, PyFlow, Splat, UNKNOWN, named_children,
};
use crate::lang::walk;
use crate::model::{CallSite, DeclKind, Span, Sym};
use tree_sitter::Node;

/// How an `attribute` node is used, which decides the property accessor
/// it calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum AttrAccess {
    /// Read for its value (a callee too: `self.handler(x)` calls the
    /// getter when `handler` is a property).
    Load,
    /// A plain assignment's target.
    Store,
    /// An augmented assignment's target (`obj.n += 1`): read, then assigned.
    LoadStore,
    /// A `del` target, alone or in a list (`del a.x, b.y`).
    Delete,
}

/// `ancestors` are the frames above the node, its parent last, and `field`
/// the node's field in its parent: the walk knows both, where
/// `Node::parent` would search down from the root (a tenth of the
/// extraction's time when it was used here).
pub(super) fn attribute_access(ancestors: &[Frame], field: u16) -> AttrAccess {
    let g = &*GRAMMAR;
    let Some((parent, above)) = ancestors.split_last() else {
        return AttrAccess::Load;
    };
    let is_left = field == g.f_left;
    let deleted = |frame: &Frame| frame.kind_id == g.delete_statement;
    match parent.kind {
        K::Assignment if is_left => AttrAccess::Store,
        K::AugAssignment if is_left => AttrAccess::LoadStore,
        _ if deleted(parent) => AttrAccess::Delete,
        _ if parent.kind_id == g.expression_list && above.last().is_some_and(deleted) => {
            AttrAccess::Delete
        }
        _ => AttrAccess::Load,
    }
}

/// Whether a string literal's prefix (the letters before its quote) makes
/// it an f-string, or a template string, whose braces hold expressions.
pub(super) fn may_interpolate(node: Node, source: &[u8]) -> bool {
    let start = node.start_byte().min(source.len());
    source[start..]
        .iter()
        .take_while(|&&b| b != b'"' && b != b'\'')
        .any(|&b| matches!(b, b'f' | b'F' | b't' | b'T'))
}

/// `("a", "b")` or `["a", "b"]`, a literal of plain strings only (none
/// with a `|` or `*`, which mark name sets and prefixes): `a|b`.
pub(super) fn literal_string_items(node: &Node, source: &[u8]) -> Option<String> {
    if !matches!(node.kind(), "tuple" | "list") {
        return None;
    }
    let mut cursor = node.walk();
    let mut names: Vec<String> = Vec::new();
    for item in node.named_children(&mut cursor) {
        if item.kind() != "string" {
            return None;
        }
        let raw = walk::text(&item, source);
        let s = string_literal(&raw)?;
        if s.is_empty() || s.contains(['|', '*']) {
            return None;
        }
        names.push(s.to_owned());
    }
    (!names.is_empty()).then(|| names.join("|"))
}

/// The literal text before an f-string's first interpolation
/// (`f"visit_{kind}"` → `visit_`); `None` without one, or when the text
/// holds an escape or an escaped brace.
pub(super) fn fstring_prefix(raw: &str) -> Option<&str> {
    let letters = raw.find(['"', '\''])?;
    if !raw[..letters].contains(['f', 'F']) || raw[..letters].contains(['b', 'B']) {
        return None;
    }
    let body = &raw[letters..];
    let quote = if body.starts_with("\"\"\"") || body.starts_with("\'\'\'") {
        3
    } else {
        1
    };
    let body = &body[quote..];
    let (prefix, rest) = body.split_once('{')?;
    let plain = !prefix.is_empty()
        && !rest.starts_with('{')
        && !prefix.contains(['\\', '}', '"', '\'', '\n'])
        && prefix.len() <= 200;
    plain.then_some(prefix)
}

/// The conversion characters of a `%` format string, in order (`"%-5s
/// %r %%"` → `s`, `r`); empty when it formats from a mapping
/// (`%(name)s`), whose operand is not a sequence of values.
pub(super) fn percent_conversions(format: &str) -> Vec<u8> {
    let bytes = format.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'%' {
            i += 1;
            continue;
        }
        i += 1;
        if bytes.get(i) == Some(&b'(') {
            return Vec::new();
        }
        while i < bytes.len() && b"#0- +*.0123456789hlL".contains(&bytes[i]) {
            i += 1;
        }
        match bytes.get(i) {
            Some(b'%') => {}
            Some(&c) => out.push(c),
            None => {}
        }
        i += 1;
    }
    out
}

/// Whether a lowered operand can hold an object with special methods (a
/// literal cannot, so `n + 1` with a literal on both sides is no call).
pub(super) fn is_value(v: &Lowered) -> bool {
    matches!(v, Lowered::Ident(..) | Lowered::Expr(_) | Lowered::Decl(_))
}

/// The special method of a binary operator and its reflected form.
pub(super) fn binary_dunder(op: &str) -> Option<(&'static str, &'static str)> {
    Some(match op {
        "+" => ("__add__", "__radd__"),
        "-" => ("__sub__", "__rsub__"),
        "*" => ("__mul__", "__rmul__"),
        "/" => ("__truediv__", "__rtruediv__"),
        "//" => ("__floordiv__", "__rfloordiv__"),
        "%" => ("__mod__", "__rmod__"),
        "**" => ("__pow__", "__rpow__"),
        "@" => ("__matmul__", "__rmatmul__"),
        "&" => ("__and__", "__rand__"),
        "|" => ("__or__", "__ror__"),
        "^" => ("__xor__", "__rxor__"),
        "<<" => ("__lshift__", "__rlshift__"),
        ">>" => ("__rshift__", "__rrshift__"),
        _ => return None,
    })
}

/// The special method of a comparison and the one Python tries on the
/// right operand when the left does not answer (`a < b` → `b > a`).
pub(super) fn compare_dunder(op: &str) -> Option<(&'static str, &'static str)> {
    Some(match op {
        "<" => ("__lt__", "__gt__"),
        ">" => ("__gt__", "__lt__"),
        "<=" => ("__le__", "__ge__"),
        ">=" => ("__ge__", "__le__"),
        "==" => ("__eq__", "__eq__"),
        "!=" => ("__ne__", "__ne__"),
        _ => return None,
    })
}

/// Key of a `*rest` element in an assignment target.
pub(super) const STARRED: &str = "*";

/// The literal value of a simple string node, for dict keys.
pub(super) fn string_literal(raw: &str) -> Option<&str> {
    let s = raw.trim_start_matches(|c: char| {
        c == 'b' || c == 'r' || c == 'u' || c == 'B' || c == 'R' || c == 'U'
    });
    if s.starts_with("\"\"\"") || s.starts_with("'''") || s.starts_with('f') || s.starts_with('F') {
        return None;
    }
    let s = s
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .or_else(|| s.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')))?;
    (s.len() <= 200 && !s.contains('\\')).then_some(s)
}

impl<'s> Extractor<'s> {
    /// A call of special method `method` on `receiver` with `arg` (an
    /// operator, a comparison or a subscript).
    /// Where a slice (`a[1:3]`, `a[:2]`, `a[i:]`) starts: 0 when omitted,
    /// the literal when it is a non-negative integer, else unknown.
    pub(super) fn slice_start(&self, slice: &Node) -> Option<u32> {
        let mut cursor = slice.walk();
        let first = slice.children(&mut cursor).next()?;
        match first.kind() {
            ":" => Some(0),
            "integer" => walk::text(&first, self.source).parse().ok(),
            _ => None,
        }
    }

    /// `[a] + rest`, `(a,) + rest` or `base | {"k": f}`, with a literal on
    /// one side: a new list, tuple or dict holding both sides' elements (at
    /// unknown positions; a dict's under unknown keys). Without a literal
    /// the operands may be numbers, and the operator call stands alone.
    pub(super) fn joined_containers(&mut self, op: &str, l: ExprId, r: ExprId) -> Option<ExprId> {
        let literal = |e: ExprId| {
            matches!(
                self.facts.exprs.get(e as usize),
                Some(PyExpr::Container { .. })
            )
        };
        if !(literal(l) || literal(r)) {
            return None;
        }
        let is_dict = |e: ExprId| self.facts.dict_sites.contains(&e);
        let tuple = self.facts.tuple_sites.contains(&l) || self.facts.tuple_sites.contains(&r);
        let dict = match op {
            "+" if !is_dict(l) && !is_dict(r) => false,
            "|" if is_dict(l) || is_dict(r) => true,
            _ => return None,
        };
        let items: Vec<(Option<Sym>, ExprId)> = [l, r]
            .into_iter()
            .map(|side| {
                let elements = if dict {
                    PyExpr::Subscript {
                        base: side,
                        key: None,
                    }
                } else {
                    PyExpr::Iter(side)
                };
                (None, self.push_expr(elements))
            })
            .collect();
        let joined = self.push_expr(PyExpr::Container {
            items: items.into(),
        });
        if dict {
            self.facts.dict_sites.push(joined);
        } else if tuple {
            self.facts.tuple_sites.push(joined);
        }
        Some(joined)
    }

    pub(super) fn operator_call(
        &mut self,
        node: &Node,
        method: &str,
        reflected: Option<&str>,
        receiver: ExprId,
        arg: ExprId,
    ) -> u32 {
        let text = walk::one_line(&walk::text(node, self.source), 120);
        let method = self.strings.intern(method);
        let reflected = reflected.map(|r| self.strings.intern(r));
        self.add_call(
            node,
            text,
            PyCall {
                callee: receiver,
                args: if arg == UNKNOWN {
                    Box::default()
                } else {
                    vec![arg].into()
                },
                kwargs: Box::default(),
                splats: Box::default(),
                key: None,
                kind: PyCallKind::Operator { method, reflected },
            },
        )
    }

    /// A call the syntax implies without arguments (`for`, `with`, `yield
    /// from` call special methods of `callee`; `raise E` instantiates it).
    pub(super) fn implicit_call(
        &mut self,
        node: &Node,
        text: String,
        callee: ExprId,
        kind: PyCallKind,
    ) -> u32 {
        self.add_call(
            node,
            text,
            PyCall {
                callee,
                args: Box::default(),
                kwargs: Box::default(),
                splats: Box::default(),
                key: None,
                kind,
            },
        )
    }

    /// Special methods Python calls to convert a value, where the syntax
    /// says so: a condition (`if v:`, `while v:`, `not v`, `assert v`)
    /// asks `__bool__`, an f-string's `{v}` `__format__` (`{v!r}`
    /// `__repr__`, `{v!s}` `__str__`). The resolver falls back as Python
    /// does (`__bool__` to `__len__`, `__format__` to `__str__` to
    /// `__repr__`), and only instances of repository classes make edges.
    pub(super) fn implied_conversions(&mut self, node: &Node, frame: &Frame) {
        let g = &*GRAMMAR;
        let (field, method) = if frame.kind_id == g.if_statement
            || frame.kind_id == g.elif_clause
            || frame.kind_id == g.while_statement
            || frame.kind_id == g.assert_statement
        {
            (g.f_condition, "__bool__")
        } else if frame.kind_id == g.not_operator {
            (g.f_argument, "__bool__")
        } else if frame.kind_id == g.interpolation {
            let conversion = node
                .child_by_field_name("type_conversion")
                .map(|c| walk::text(&c, self.source).into_owned());
            let method = match conversion.as_deref() {
                Some("!r" | "!a") => "__repr__",
                Some(_) => "__str__",
                None => "__format__",
            };
            (g.f_expression, method)
        } else {
            return;
        };
        let children = self.children(frame.start);
        let operand = if frame.kind_id == g.assert_statement {
            // `assert v, "message"`: the test is the first element.
            children.iter().find(|c| c.element)
        } else {
            children.iter().find(|c| c.field == field)
        };
        // A comparison or `not` already made a bool; only an object
        // (a name, attribute, item or call result) is asked.
        let Some(operand) = operand.filter(|c| {
            method != "__bool__"
                || matches!(
                    c.kind,
                    K::Identifier | K::Attribute | K::Subscript | K::Call
                )
        }) else {
            return;
        };
        let v = operand.val.clone();
        // The site is the operand itself: `if ready:` shows as `ready`.
        let site = if frame.kind_id == g.interpolation {
            Some(*node)
        } else if frame.kind_id == g.assert_statement {
            node.named_child(0)
        } else {
            node.child_by_field_id(field)
        };
        if is_value(&v)
            && let Some(site) = site
        {
            let v = self.as_expr(&v);
            self.operator_call(&site, method, None, v, UNKNOWN);
        }
    }

    /// `"%s" % v` calls `v.__str__()`, and `"%s: %r" % (k, v)` `k`'s
    /// `__str__` and `v`'s `__repr__`, by position. Numeric conversions
    /// (`%d`, `%x`) and `%(name)s` mappings ask for nothing modelled here.
    pub(super) fn percent_format(&mut self, node: &Node, format: Sym, operand: &Lowered) {
        if !is_value(operand) {
            return;
        }
        let conversions = percent_conversions(self.strings.get(format));
        if conversions.is_empty() {
            return;
        }
        let operand = self.as_expr(operand);
        let items: Vec<ExprId> = match self.facts.exprs.get(operand as usize) {
            Some(PyExpr::Container { items }) => items.iter().map(|&(_, e)| e).collect(),
            _ => vec![operand],
        };
        for (item, conversion) in items.into_iter().zip(conversions) {
            let method = match conversion {
                b's' => "__str__",
                b'r' | b'a' => "__repr__",
                _ => continue,
            };
            if self.may_be_instance(item) {
                self.operator_call(node, method, None, item, UNKNOWN);
            }
        }
    }

    /// A string literal, or the literal prefix of a string built from one.
    pub(super) fn string_constant(&self, v: &Lowered) -> Option<Lowered> {
        match v {
            Lowered::Str(_) | Lowered::Prefix(_) => Some(v.clone()),
            Lowered::Expr(e) => self.format_prefixes.get(e).map(|&p| Lowered::Prefix(p)),
            _ => None,
        }
    }

    /// Whether an expression can evaluate to an instance (a literal, a
    /// container or a definition cannot): only those are worth a site.
    pub(super) fn may_be_instance(&self, e: ExprId) -> bool {
        !matches!(
            self.facts.exprs.get(e as usize),
            None | Some(PyExpr::Unknown | PyExpr::Str | PyExpr::Container { .. } | PyExpr::Decl(_))
        )
    }

    pub(super) fn add_call(&mut self, node: &Node, callee_text: String, call: PyCall) -> u32 {
        let idx = self.calls.len() as u32;
        let arg_count = (call.args.len() + call.kwargs.len()) as u16;
        self.calls.push(CallSite {
            caller: self.caller(),
            callee_text,
            span: Span::of(node),
            arg_count,
        });
        self.facts.calls.push(call);
        idx
    }

    /// Expressions: names, literals, attributes, subscripts, operators,
    /// containers and argument lists.
    pub(super) fn lower_expression(&mut self, node: Node, frame: &Frame) -> Lowered {
        let g = &*GRAMMAR;
        let start = frame.start;
        match frame.kind {
            K::Identifier => {
                let sym = self.intern_node(&node);
                Lowered::Ident(sym, self.scope())
            }
            K::Passthrough => {
                let child = self
                    .children(start)
                    .iter()
                    .find(|c| !matches!(c.val, Lowered::None));
                match child.map(|c| c.val.clone()) {
                    Some(v @ (Lowered::Ident(..) | Lowered::Expr(_) | Lowered::Decl(_))) => v,
                    _ => Lowered::None,
                }
            }
            // A string standing alone as a statement (docstrings) or inside a
            // concatenation (lowered as a whole) is never a value: leaving it
            // out of the facts keeps docstring edits from changing the shape.
            K::String
                if matches!(
                    self.frames.last().map(|f| f.kind),
                    Some(K::ExpressionStatement | K::String)
                ) =>
            {
                Lowered::None
            }
            K::String => {
                let raw = walk::text(&node, self.source);
                match string_literal(&raw) {
                    Some(s) => Lowered::Str(self.strings.intern(s)),
                    // `f"visit_{kind}"` names attributes with that prefix.
                    None => match fstring_prefix(&raw) {
                        Some(p) => Lowered::Prefix(self.strings.intern(p)),
                        None => Lowered::None,
                    },
                }
            }
            // `d[1]` and `d["1"]` are different keys; list positions use the same form.
            K::Integer => {
                let text = format!("#{}", walk::text(&node, self.source));
                Lowered::Str(self.strings.intern(&text))
            }
            K::DottedName => Lowered::Dotted(self.intern_node(&node)),
            K::Attribute => {
                let base = Self::field(self.children(start), g.f_object).cloned();
                let name = Self::field(self.children(start), g.f_attribute).cloned();
                let on_string = self
                    .children(start)
                    .iter()
                    .any(|c| c.field == g.f_object && c.kind == K::String);
                if let Some(Lowered::Ident(b, 0)) = &base
                    && self.strings.get(*b) == "__all__"
                {
                    // `__all__.extend(…)`, `__all__.append(…)`.
                    self.facts.exports = Exports::Computed;
                }
                match (base, name) {
                    (Some(base), Some(Lowered::Ident(name, _))) => {
                        // `" ".join(…)`: a method of the builtin str type,
                        // whatever the literal holds (escapes, an f-string,
                        // triple quotes: `"\n".join(lines)`).
                        let base = if on_string {
                            self.push_expr(PyExpr::Str)
                        } else {
                            self.as_expr(&base)
                        };
                        let attr = self.push_expr(PyExpr::Attr { base, name });
                        let caller = self.caller();
                        let access = (caller, attr);
                        match attribute_access(&self.frames, frame.field) {
                            AttrAccess::Load => self.facts.attr_loads.push(access),
                            AttrAccess::Store => self.facts.attr_stores.push(access),
                            AttrAccess::LoadStore => {
                                self.facts.attr_loads.push(access);
                                self.facts.attr_stores.push(access);
                            }
                            AttrAccess::Delete => self.facts.attr_deletes.push(access),
                        }
                        Lowered::Expr(attr)
                    }
                    _ => Lowered::None,
                }
            }
            K::Subscript => {
                let base = Self::field(self.children(start), g.f_value).cloned();
                let key = match Self::field(self.children(start), g.f_subscript) {
                    Some(Lowered::Str(s)) => Some(*s),
                    _ => None,
                };
                let slice = node
                    .child_by_field_id(GRAMMAR.f_subscript)
                    .filter(|n| n.kind() == "slice");
                match base {
                    Some(base) => {
                        let base_expr = self.as_expr(&base);
                        let sub = match slice {
                            Some(slice) => self.push_expr(PyExpr::Slice {
                                base: base_expr,
                                start: self.slice_start(&slice),
                            }),
                            None => self.push_expr(PyExpr::Subscript {
                                base: base_expr,
                                key,
                            }),
                        };
                        self.note_item_read(sub);
                        // `a[k]` calls `a.__getitem__(k)` (an assignment target
                        // turns this into `__setitem__`, `del a[k]` into
                        // `__delitem__`).
                        if is_value(&base) {
                            let index = Self::field(self.children(start), g.f_subscript).cloned();
                            let index = index.map_or(UNKNOWN, |i| self.as_expr(&i));
                            let method = match attribute_access(&self.frames, frame.field) {
                                AttrAccess::Delete => "__delitem__",
                                _ => "__getitem__",
                            };
                            let call = self.operator_call(&node, method, None, base_expr, index);
                            self.subscript_calls.insert(sub, call);
                        }
                        Lowered::Expr(sub)
                    }
                    None => Lowered::None,
                }
            }
            K::BinaryOp => {
                let left = Self::field(self.children(start), g.f_left).cloned();
                let right = Self::field(self.children(start), g.f_right).cloned();
                let op = node
                    .child_by_field_id(GRAMMAR.f_operator)
                    .map(|o| walk::text(&o, self.source).into_owned())
                    .unwrap_or_default();
                match (left, right, binary_dunder(&op)) {
                    // `"text" + x` and `"%s" % x` make strings: no repository
                    // method is involved, and long concatenations would
                    // otherwise make a chain of operator sites.
                    (Some(Lowered::Str(s)), right, _) if !self.strings.get(s).starts_with('#') => {
                        match op.trim() {
                            "+" => Lowered::Prefix(s),
                            "%" => {
                                if let Some(right) = right {
                                    self.percent_format(&node, s, &right);
                                }
                                // `"visit_%s" % kind`, like `"visit_" + kind`.
                                let text = self.strings.get(s);
                                match text.split_once('%') {
                                    Some((prefix, _)) if !prefix.is_empty() => {
                                        let prefix = prefix.to_owned();
                                        Lowered::Prefix(self.strings.intern(&prefix))
                                    }
                                    _ => Lowered::None,
                                }
                            }
                            _ => Lowered::None,
                        }
                    }
                    (Some(l), Some(r), Some((method, reflected)))
                        if is_value(&l) || is_value(&r) =>
                    {
                        let (l, r) = (self.as_expr(&l), self.as_expr(&r));
                        let call = self.operator_call(&node, method, Some(reflected), l, r);
                        let result = self.push_expr(PyExpr::Call(call));
                        match self.joined_containers(op.trim(), l, r) {
                            Some(joined) => Lowered::Expr(
                                self.push_expr(PyExpr::Union(vec![result, joined].into())),
                            ),
                            None => Lowered::Expr(result),
                        }
                    }
                    _ => Lowered::None,
                }
            }
            K::UnaryOp => {
                let operand = Self::field(self.children(start), g.f_argument).cloned();
                let op = node
                    .child_by_field_id(GRAMMAR.f_operator)
                    .map(|o| walk::text(&o, self.source).into_owned())
                    .unwrap_or_default();
                let method = match op.as_str() {
                    "-" => Some("__neg__"),
                    "+" => Some("__pos__"),
                    "~" => Some("__invert__"),
                    _ => None,
                };
                match (operand, method) {
                    (Some(v), Some(method)) if is_value(&v) => {
                        let v = self.as_expr(&v);
                        let call = self.operator_call(&node, method, None, v, UNKNOWN);
                        Lowered::Expr(self.push_expr(PyExpr::Call(call)))
                    }
                    _ => Lowered::None,
                }
            }
            K::Compare => {
                let operands: Vec<Lowered> = self
                    .children(start)
                    .iter()
                    .filter(|c| c.element)
                    .map(|c| c.val.clone())
                    .collect();
                let mut cursor = node.walk();
                let ops: Vec<String> = node
                    .children_by_field_name("operators", &mut cursor)
                    .map(|o| {
                        walk::text(&o, self.source)
                            .split_whitespace()
                            .collect::<Vec<_>>()
                            .join(" ")
                    })
                    .collect();
                for (i, op) in ops.iter().enumerate() {
                    let (Some(l), Some(r)) = (operands.get(i), operands.get(i + 1)) else {
                        break;
                    };
                    if !(is_value(l) || is_value(r)) {
                        continue;
                    }
                    let (l, r) = (self.as_expr(l), self.as_expr(r));
                    match op.as_str() {
                        // `x in c` asks the container.
                        "in" | "not in" => {
                            self.operator_call(&node, "__contains__", None, r, l);
                        }
                        other => {
                            if let Some((method, reflected)) = compare_dunder(other) {
                                self.operator_call(&node, method, Some(reflected), l, r);
                            }
                        }
                    }
                }
                Lowered::None
            }
            K::Sequence => {
                // Elements keep their position (`ls[0]` is the first one) until a
                // `*splat` makes later positions unknown.
                let vals: Vec<Lowered> = self
                    .children(start)
                    .iter()
                    .filter(|c| c.element)
                    .map(|c| c.val.clone())
                    .collect();
                let mut items = Vec::with_capacity(vals.len());
                let mut positional = true;
                for (i, v) in vals.iter().enumerate() {
                    if let Lowered::Splat(splat) = v {
                        // `[*a, b]` holds a's elements, at unknown positions.
                        positional = false;
                        if splat.expr != UNKNOWN {
                            let elems = self.push_expr(PyExpr::Iter(splat.expr));
                            items.push((None, elems));
                        }
                        continue;
                    }
                    // `*rest` in a target: the name, under the key STARRED.
                    if let Lowered::Param(p, _) = v
                        && p.kind == ParamKind::VarArgs
                    {
                        let scope = self.scope();
                        let e = self.push_expr(PyExpr::Name {
                            scope,
                            name: p.name,
                        });
                        items.push((Some(self.strings.intern(STARRED)), e));
                        positional = false;
                        continue;
                    }
                    let key = positional.then(|| self.strings.intern(&format!("#{i}")));
                    let e = self.as_expr(v);
                    items.push((key, e));
                }
                let e = self.push_expr(PyExpr::Container {
                    items: items.into(),
                });
                let names: Vec<Sym> = vals
                    .iter()
                    .filter_map(|v| match v {
                        Lowered::Str(s) if !self.strings.get(*s).starts_with('#') => Some(*s),
                        _ => None,
                    })
                    .collect();
                if names.len() == vals.len() {
                    self.string_lists.insert(e, names);
                }
                match node.kind() {
                    "set" => self.facts.set_sites.push(e),
                    "tuple" | "expression_list" => self.facts.tuple_sites.push(e),
                    _ => {}
                }
                Lowered::Expr(e)
            }
            K::Dictionary => {
                let parts: Vec<Lowered> =
                    self.children(start).iter().map(|c| c.val.clone()).collect();
                let mut items = Vec::with_capacity(parts.len());
                for part in parts {
                    match part {
                        Lowered::Pair(k, v) => items.push((k, v)),
                        // `{**base, "k": f}` holds base's values too, under
                        // keys it cannot say.
                        Lowered::Splat(splat) if splat.expr != UNKNOWN => {
                            let values = self.push_expr(PyExpr::Subscript {
                                base: splat.expr,
                                key: None,
                            });
                            items.push((None, values));
                        }
                        _ => {}
                    }
                }
                let e = self.push_expr(PyExpr::Container {
                    items: items.into(),
                });
                self.facts.dict_sites.push(e);
                Lowered::Expr(e)
            }
            K::Pair => {
                let key = match Self::field(self.children(start), g.f_key) {
                    Some(Lowered::Str(s)) => Some(*s),
                    _ => None,
                };
                let val = Self::field(self.children(start), g.f_value).cloned();
                let val = val.map(|v| self.as_expr(&v)).unwrap_or(UNKNOWN);
                Lowered::Pair(key, val)
            }
            K::Conditional => {
                let vals: Vec<Lowered> = self
                    .children(start)
                    .iter()
                    .filter(|c| !matches!(c.val, Lowered::None))
                    .map(|c| c.val.clone())
                    .collect();
                // `a if cond else b`: the condition (middle) is not a value of the expression.
                let picked: Vec<&Lowered> = match vals.len() {
                    3 => vec![&vals[0], &vals[2]],
                    _ => vals.iter().collect(),
                };
                let items: Vec<ExprId> = picked.into_iter().map(|v| self.as_expr(v)).collect();
                Lowered::Expr(self.push_expr(PyExpr::Union(items.into())))
            }
            K::BoolOp => {
                let left = Self::field(self.children(start), g.f_left).cloned();
                let right = Self::field(self.children(start), g.f_right).cloned();
                let items: Vec<ExprId> = [left, right]
                    .iter()
                    .flatten()
                    .map(|v| self.as_expr(v))
                    .collect();
                Lowered::Expr(self.push_expr(PyExpr::Union(items.into())))
            }
            K::KeywordArgument => {
                let name = Self::field(self.children(start), g.f_name).cloned();
                let value = Self::field(self.children(start), g.f_value).cloned();
                match (name, value) {
                    (Some(Lowered::Ident(name, _)), Some(v)) => {
                        let v = self.as_expr(&v);
                        Lowered::Keyword(name, v)
                    }
                    _ => Lowered::None,
                }
            }
            K::ListSplat | K::DictionarySplat => {
                let inner = self
                    .children(start)
                    .iter()
                    .find(|c| !matches!(c.val, Lowered::None))
                    .map(|c| c.val.clone());
                let expr = inner.map_or(UNKNOWN, |v| self.as_expr(&v));
                Lowered::Splat(Splat {
                    expr,
                    dict: frame.kind == K::DictionarySplat,
                })
            }
            K::ArgumentList => {
                let vals: Vec<(Lowered, bool)> = self
                    .children(start)
                    .iter()
                    .map(|c| (c.val.clone(), c.element))
                    .collect();
                let mut list = ArgList::default();
                for (v, element) in &vals {
                    match v {
                        Lowered::Keyword(k, e) => list.kwargs.push((*k, *e)),
                        Lowered::Splat(splat) => list.splats.push(*splat),
                        // An argument nothing is known of (`None`, `1.5`,
                        // `f"{x}"`, `not x`) still takes its position: the
                        // callback after it is the next parameter's.
                        Lowered::None if *element => list.args.push(UNKNOWN),
                        Lowered::None => {}
                        Lowered::Str(key) if list.args.is_empty() && list.splats.is_empty() => {
                            list.key = Some(*key);
                            list.args.push(UNKNOWN);
                        }
                        other => {
                            // `name = "visit_" + kind; getattr(self, name)`.
                            let constant = match other {
                                Lowered::Ident(name, scope) => {
                                    self.string_names.get(&(*scope, *name)).cloned().flatten()
                                }
                                other => self.string_constant(other),
                            };
                            let literal = constant.as_ref().unwrap_or(other);
                            if let Lowered::Str(s) = literal
                                && list.args.len() == 1
                                && list.splats.is_empty()
                            {
                                list.second_str = Some(*s);
                            }
                            // `getattr(self, "visit_" + kind)`: marked with a
                            // trailing `*`, which no attribute name has.
                            if let Lowered::Prefix(p) = literal
                                && list.args.len() == 1
                                && list.splats.is_empty()
                            {
                                let marked = format!("{}*", self.strings.get(*p));
                                list.second_str = Some(self.strings.intern(&marked));
                            }
                            let e = self.as_expr(other);
                            list.args.push(e);
                        }
                    }
                }
                self.arg_lists.push(list);
                Lowered::Args(self.arg_lists.len() as u32 - 1)
            }
            // `lower` routes only the kinds above here.
            _ => Lowered::None,
        }
    }

    /// tree-sitter-python reads `[*items()]` (and `{*items()}`) as a call
    /// of `*items`: the call is lowered as `items()` and its result splatted.
    pub(super) fn lower_call(&mut self, node: Node, start: usize) -> Lowered {
        let g = &*GRAMMAR;
        let starred = self.results[start..].iter_mut().find_map(|c| match c.val {
            Lowered::Splat(Splat { expr, dict: false }) if c.field == g.f_function => {
                c.val = Lowered::Expr(expr);
                Some(())
            }
            _ => None,
        });
        match self.lower_plain_call(node, start) {
            Lowered::Expr(expr) if starred.is_some() => Lowered::Splat(Splat { expr, dict: false }),
            other => other,
        }
    }

    pub(super) fn lower_plain_call(&mut self, node: Node, start: usize) -> Lowered {
        let g = &*GRAMMAR;
        let callee = Self::field(self.children(start), g.f_function).cloned();
        let args = Self::field(self.children(start), g.f_arguments).cloned();
        let Some(callee) = callee else {
            return Lowered::None;
        };
        // `super()` is resolved structurally: the enclosing class and method.
        if let Lowered::Ident(name, _) = callee
            && self.strings.get(name) == "super"
            && let Some(func) = self.function_scope()
            && let Some(class) = self.decls[func as usize].parent
            && self.decls[class as usize].kind == DeclKind::Class
        {
            // The call itself still happens (PyCG records `<builtin>.super`).
            let scope = self.scope();
            let callee = self.push_expr(PyExpr::Name { scope, name });
            self.add_call(
                &node,
                "super".to_owned(),
                PyCall {
                    callee,
                    args: Box::default(),
                    kwargs: Box::default(),
                    splats: Box::default(),
                    key: None,
                    kind: PyCallKind::Plain,
                },
            );
            // `super(Middle, self)` starts after Middle in self's MRO (a
            // class of this file named by its first argument); the common
            // `super(ThisClass, self)` is `super()`.
            let named = match args {
                Some(Lowered::Args(i)) => self.arg_lists[i as usize].args.first().copied(),
                _ => None,
            };
            let named = named.and_then(|e| match self.facts.exprs.get(e as usize) {
                Some(PyExpr::Name { name, .. } | PyExpr::Var { name, .. }) => {
                    let name = self.strings.get(*name).to_owned();
                    self.decls
                        .iter()
                        .position(|d| d.kind == DeclKind::Class && d.local_name == name)
                }
                _ => None,
            });
            let class = named.map_or(class, |c| c as u32);
            return Lowered::Expr(self.push_expr(PyExpr::Super { class, func }));
        }
        let callee_expr = self.as_expr(&callee);
        let list = match args {
            Some(Lowered::Args(i)) => std::mem::take(&mut self.arg_lists[i as usize]),
            Some(other @ Lowered::Expr(_)) => ArgList {
                args: vec![self.as_expr(&other)],
                ..Default::default()
            },
            _ => ArgList::default(),
        };
        let text = node
            .child_by_field_id(GRAMMAR.f_function)
            .map(|f| {
                let text = walk::one_line(&walk::text(&f, self.source), 120);
                match text.strip_prefix('*') {
                    Some(unstarred) if f.kind() == "list_splat" => {
                        unstarred.trim_start().to_owned()
                    }
                    _ => text,
                }
            })
            .unwrap_or_default();
        // `cast(T, x)` is x, declared a T.
        let cast = match node.child_by_field_id(GRAMMAR.f_arguments) {
            Some(args)
                if matches!(text.as_str(), "cast" | "typing.cast" | "t.cast")
                    && list.args.len() == 2 =>
            {
                named_children(args)
                    .first()
                    .and_then(|&t| self.annotation(t, true, 0))
            }
            _ => None,
        };
        // `field(default_factory=f)` in a dataclass's body (or attrs'
        // `factory=`): its generated `__init__` calls `f`.
        let scope = self.scope();
        if matches!(
            text.as_str(),
            "field"
                | "dataclasses.field"
                | "attr.ib"
                | "attr.attrib"
                | "attr.field"
                | "attrs.field"
        ) && self.decls[scope as usize].kind == DeclKind::Class
            && let Some(&(_, factory)) = list
                .kwargs
                .iter()
                .find(|(k, _)| matches!(self.strings.get(*k), "default_factory" | "factory"))
        {
            self.facts.decl_info[scope as usize].factories.push(factory);
        }
        // `"{}: {!r}".format(a, b)` formats each argument with `format()`.
        let formats = node.child_by_field_id(GRAMMAR.f_function).is_some_and(|f| {
            f.kind() == "attribute"
                && f.child_by_field_id(GRAMMAR.f_object)
                    .is_some_and(|o| o.kind_id() == GRAMMAR.string)
                && f.child_by_field_id(GRAMMAR.f_attribute)
                    .is_some_and(|a| walk::text(&a, self.source) == "format")
        });
        // `"visit_{}".format(kind)`, like `"visit_" + kind`.
        let format_prefix = if formats {
            node.child_by_field_id(GRAMMAR.f_function)
                .and_then(|f| f.child_by_field_id(GRAMMAR.f_object))
                .and_then(|o| {
                    let raw = walk::text(&o, self.source);
                    string_literal(&raw)
                        .and_then(|t| t.split_once('{'))
                        .map(|(prefix, _)| prefix.to_owned())
                })
                .filter(|p| !p.is_empty() && !p.contains('}'))
        } else {
            None
        };
        if formats {
            let values: Vec<ExprId> = (list.args.iter().copied())
                .chain(list.kwargs.iter().map(|&(_, e)| e))
                .collect();
            for v in values {
                if self.may_be_instance(v) {
                    self.operator_call(&node, "__format__", None, v, UNKNOWN);
                }
            }
        }
        // `getattr(obj, "name")` is keyed by the name it reads.
        let key = match text.as_str() {
            "getattr" => list.second_str,
            _ => list.key,
        };
        // `getattr(row, "name")` and `setattr(row, "age", v)` with a
        // literal name read and assign that attribute, as `row.name` and
        // `row.age = v` do: a property's getter or setter, a descriptor's
        // `__get__` or `__set__`.
        // `object.__setattr__(self, "name", v)` (how a class with its own
        // `__setattr__` sets attributes) and setattr also give the
        // attribute its value, as `self.name = v` does.
        // A loop over literal names (`a|b`) reads or assigns each of them.
        let attr_names: Vec<Sym> = match (text.as_str(), list.second_str, list.args.first()) {
            ("getattr" | "setattr" | "object.__setattr__", Some(name), Some(&base))
                if base != UNKNOWN && !self.strings.get(name).ends_with('*') =>
            {
                let written = self.strings.get(name).to_owned();
                if written.contains('|') {
                    written.split('|').map(|n| self.strings.intern(n)).collect()
                } else {
                    vec![name]
                }
            }
            _ => Vec::new(),
        };
        for name in attr_names {
            let base = list.args[0];
            let attr = self.push_expr(PyExpr::Attr { base, name });
            let access = (self.caller(), attr);
            if text == "getattr" {
                self.facts.attr_loads.push(access);
            } else {
                // `object.__setattr__` passes over the class's own hook.
                if text == "setattr" {
                    self.facts.attr_stores.push(access);
                }
                if let Some(&value) = list.args.get(2)
                    && value != UNKNOWN
                {
                    self.facts.flows.push(PyFlow::Assign {
                        target: attr,
                        value,
                    });
                }
            }
        }
        let call = self.add_call(
            &node,
            text,
            PyCall {
                callee: callee_expr,
                args: list.args.into(),
                kwargs: list.kwargs.into(),
                splats: list.splats.into(),
                key,
                kind: PyCallKind::Plain,
            },
        );
        self.note_item_update(call);
        let result = self.push_expr(PyExpr::Call(call));
        if let Some(prefix) = format_prefix {
            let prefix = self.strings.intern(&prefix);
            self.format_prefixes.insert(result, prefix);
        }
        match cast {
            Some(declared) => {
                Lowered::Expr(self.push_expr(PyExpr::Union(vec![result, declared].into())))
            }
            None => Lowered::Expr(result),
        }
    }

    /// A variable bound to a string constant (or not): it keeps one only
    /// while every binding agrees.
    pub(super) fn note_string_name(&mut self, scope: u32, name: Sym, constant: Option<Lowered>) {
        self.string_names
            .entry((scope, name))
            .and_modify(|known| {
                let same = match (&*known, &constant) {
                    (Some(Lowered::Str(a)), Some(Lowered::Str(b)))
                    | (Some(Lowered::Prefix(a)), Some(Lowered::Prefix(b))) => a == b,
                    _ => false,
                };
                if !same {
                    *known = None;
                }
            })
            .or_insert(constant);
    }
}

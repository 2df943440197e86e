//! Functions, methods and closures: their declarations (with doc comments),
//! signatures, parameters, receivers, named results and type parameters.

use super::{
    BARE_RETURN, Binding, Child, ExprId, Extractor, Frame, GRAMMAR, GoExpr, GoFunc, GoType, K,
    Lowered, TypeId, kids,
};
use crate::lang::walk;
use crate::model::{DeclKind, LocalDecl, Span, Sym, content_hash};
use thin_vec::ThinVec;
use tree_sitter::Node;

/// Whether the body of function `node` (not of a closure inside it) has a
/// `defer` of a function literal.
fn defers_closure(node: &Node) -> bool {
    let Some(body) = node.child_by_field_name("body") else {
        return false;
    };
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        let mut cursor = n.walk();
        for child in n.named_children(&mut cursor) {
            match child.kind() {
                "defer_statement" => {
                    let mut c = child.walk();
                    if child.named_children(&mut c).any(|call| {
                        call.child_by_field_name("function")
                            .is_some_and(|f| f.kind() == "func_literal")
                    }) {
                        return true;
                    }
                }
                // A closure's own defers set its own results.
                "func_literal" => {}
                _ => stack.push(child),
            }
        }
    }
    false
}

/// The doc comment: the run of `//` comment lines directly above a node.
fn doc_comment(node: &Node, source: &[u8]) -> Option<String> {
    let mut lines = Vec::new();
    let mut prev = node.prev_sibling();
    let mut expected_row = node.start_position().row;
    while let Some(p) = prev {
        if p.kind() != "comment" || p.end_position().row + 1 != expected_row {
            break;
        }
        let text = walk::text(&p, source);
        lines.push(text.trim_start_matches("//").trim().to_owned());
        expected_row = p.start_position().row;
        prev = p.prev_sibling();
    }
    if lines.is_empty() {
        return None;
    }
    lines.reverse();
    Some(lines.join("\n"))
}

impl Extractor<'_> {
    /// Lowers a function, method or closure, or a part of its signature
    /// (one group of `lower`'s arms, in their order).
    pub(super) fn lower_definition(
        &mut self,
        node: Node,
        frame: &Frame,
        children: &[Child],
    ) -> Lowered {
        let g = &*GRAMMAR;
        match frame.kind {
            K::TypeParamDecl => {
                let constraint = Self::field(children, g.f_type).map(|t| self.as_type(&t));
                let decl = self.scope();
                let named = match self.facts.types.get(constraint.unwrap_or(0) as usize) {
                    Some(GoType::Named { pkg, name }) => {
                        pkg.is_some() || !matches!(self.strings.get(*name), "any" | "comparable")
                    }
                    _ => false,
                };
                if let Some(constraint) = constraint
                    && named
                {
                    for c in children.iter().filter(|c| c.field == g.f_name) {
                        if let Lowered::Name(n) = c.val {
                            self.type_params.push((decl, n, constraint));
                        }
                    }
                }
                Lowered::None
            }
            K::FuncLit => {
                let decl = frame.decl.unwrap_or(0);
                if let Some(Lowered::Params(p)) = Self::field(children, g.f_parameters) {
                    self.record_params(decl, p);
                }
                self.bind_named_results(decl, Self::field(children, g.f_result), &node);
                Lowered::Expr(self.push_expr(GoExpr::FuncLit(decl)))
            }
            K::ParameterDecl => {
                let names: Vec<Sym> = children
                    .iter()
                    .filter(|c| c.field == g.f_name)
                    .filter_map(|c| match c.val {
                        Lowered::Name(s) => Some(s),
                        _ => None,
                    })
                    .collect();
                let ty = Self::field(children, g.f_type);
                let mut ty = ty.map(|t| self.as_type(&t)).unwrap_or(0);
                if node.kind() == "variadic_parameter_declaration" {
                    ty = self.push_type(GoType::Slice(ty));
                }
                // Parameters of a function being defined are variables of its
                // body; those of a function type (`func(x int)`) are not.
                let n = self.frames.len();
                let defines = n >= 2
                    && matches!(
                        self.frames[n - 2].kind,
                        K::FunctionDecl | K::MethodDecl | K::FuncLit
                    );
                let names = if defines {
                    let own = node.start_byte()..node.end_byte();
                    names.into_iter().map(|s| self.declare(s, &own)).collect()
                } else {
                    names
                };
                Lowered::Param(names, ty)
            }
            K::ParameterList => {
                let mut params = Vec::new();
                for v in kids(children) {
                    match v {
                        Lowered::Param(names, ty) => params.push((names, ty)),
                        // A result list of bare types: `(int, error)`.
                        other => {
                            let t = self.as_type(&other);
                            params.push((Vec::new(), t));
                        }
                    }
                }
                self.params.push(params);
                Lowered::Params(self.params.len() as u32 - 1)
            }
            K::FunctionDecl | K::MethodDecl => {
                let decl = frame.decl.unwrap_or(0);
                let name = match Self::field(children, g.f_name) {
                    Some(Lowered::Name(n)) => n,
                    _ => return Lowered::None,
                };
                let results = Self::field(children, g.f_result);
                let results = self.result_types(results);
                let mut recv = None;
                let mut recv_name = None;
                let mut recv_params = ThinVec::new();
                if let Some(Lowered::Params(p)) = Self::field(children, g.f_receiver)
                    && let Some((names, ty)) = self.params[p as usize].first().cloned()
                {
                    {
                        let pointer = matches!(self.facts.types[ty as usize], GoType::Pointer(_));
                        let base = self.type_name_text(ty);
                        recv = Some((self.strings.intern(&base), pointer));
                        recv_name = names.first().copied();
                        recv_params = self.type_param_names(ty);
                        for n in names {
                            self.facts.bindings.push((decl, n, Binding::Type(ty)));
                        }
                    }
                }
                if let Some(Lowered::Params(p)) = Self::field(children, g.f_parameters) {
                    self.record_params(decl, p);
                }
                self.bind_named_results(decl, Self::field(children, g.f_result), &node);
                let type_params = self.type_parameters(&node);
                self.facts.funcs.push(GoFunc {
                    decl,
                    name,
                    recv,
                    recv_name,
                    recv_params,
                    type_params,
                    results,
                });
                Lowered::None
            }
            _ => Lowered::None,
        }
    }

    pub(super) fn new_decl(
        &mut self,
        node: &Node,
        kind: DeclKind,
        local_name: String,
        parent: u32,
    ) -> u32 {
        let start = node.start_byte().min(self.source.len());
        let body_start = node
            .child_by_field_name("body")
            .map(|b| b.start_byte())
            .unwrap_or(node.end_byte());
        let sig_end = body_start.min(self.source.len()).max(start);
        let signature = walk::one_line(&String::from_utf8_lossy(&self.source[start..sig_end]), 300);
        let end = node.end_byte().min(self.source.len()).max(start);
        let short = local_name.rsplit(['.', ')']).next().unwrap_or("");
        let is_test = self.is_test_file
            && kind == DeclKind::Function
            && ["Test", "Benchmark", "Example", "Fuzz"]
                .iter()
                .any(|p| short.starts_with(p));
        self.decls.push(LocalDecl {
            local_name,
            kind,
            span: Span::of(node),
            parent: Some(parent),
            signature,
            doc: if kind == DeclKind::Closure {
                None
            } else {
                doc_comment(node, self.source)
            },
            body_hash: content_hash(&self.source[start..end]),
            is_test,
        });
        (self.decls.len() - 1) as u32
    }

    /// Remember the names `node`'s signature (a function, method or
    /// function literal) binds in `decl`.
    pub(super) fn note_signature(&mut self, node: Node, decl: u32) {
        let mut names = Vec::new();
        for field in ["receiver", "parameters", "result"] {
            let Some(list) = node.child_by_field_name(field) else {
                continue;
            };
            let mut cursor = list.walk();
            for param in list.named_children(&mut cursor) {
                let mut c = param.walk();
                for n in param.children_by_field_name("name", &mut c) {
                    let text = walk::text(&n, self.source).into_owned();
                    let name = self.strings.intern(&text);
                    // A bare `return` reads named results as declared.
                    if field == "result" {
                        self.captured.insert(name);
                    }
                    names.push(name);
                }
            }
        }
        if !names.is_empty() {
            self.signatures.insert(decl, names);
        }
    }

    /// The names of a generic declaration's type parameters, in order.
    pub(super) fn type_parameters(&mut self, node: &Node) -> ThinVec<Sym> {
        let mut params = ThinVec::new();
        if let Some(list) = node.child_by_field_name("type_parameters") {
            let mut cursor = list.walk();
            for p in list.named_children(&mut cursor) {
                let mut names = p.walk();
                for n in p.children_by_field_name("name", &mut names) {
                    params.push(self.intern_node(&n));
                }
            }
        }
        params
    }

    /// The type parameter names a receiver type spells (`[K, V]` of
    /// `*Cache[K, V]`).
    fn type_param_names(&self, t: TypeId) -> ThinVec<Sym> {
        let t = match self.facts.types[t as usize] {
            GoType::Pointer(inner) => inner,
            _ => t,
        };
        self.facts
            .type_args_of(t)
            .iter()
            .filter_map(|&a| match self.facts.types.get(a as usize) {
                Some(GoType::Named { pkg: None, name }) => Some(*name),
                _ => None,
            })
            .collect()
    }

    fn type_name_text(&self, t: TypeId) -> String {
        match &self.facts.types[t as usize] {
            GoType::Named { name, .. } => self.strings.get(*name).to_owned(),
            GoType::Pointer(inner) => self.type_name_text(*inner),
            _ => String::new(),
        }
    }

    /// Named results are variables of the function's body; a bare
    /// `return` in it returns what they hold, and so may any return of a
    /// function (`node`) that defers a closure, which may set them after
    /// it (`defer func() { if r := recover(); r != nil { err = pErr } }()`).
    fn bind_named_results(&mut self, decl: u32, results: Option<Lowered>, node: &Node) {
        let mut names = Vec::new();
        if let Some(Lowered::Params(p)) = results {
            for (list, ty) in self.params[p as usize].clone() {
                for n in list {
                    self.facts.bindings.push((decl, n, Binding::Type(ty)));
                    names.push(n);
                }
            }
        }
        let bare = |r: &(u32, u8, ExprId)| r.0 == decl && r.1 == BARE_RETURN;
        // The body is searched for a deferred closure only for a function
        // with named results and no bare return.
        if !self.facts.returns.iter().any(bare) && (names.is_empty() || !defers_closure(node)) {
            return;
        }
        self.facts.returns.retain(|r| !bare(r));
        for (i, n) in names.into_iter().enumerate().take(8) {
            let e = self.push_expr(GoExpr::Ident(n));
            self.facts.returns.push((decl, i as u8, e));
        }
    }

    /// Bind each parameter in the function's scope and keep their order.
    fn record_params(&mut self, decl: u32, list: u32) {
        let mut order = Vec::new();
        for (names, ty) in self.params[list as usize].clone() {
            if names.is_empty() {
                order.push(None);
            }
            for n in names {
                self.facts.bindings.push((decl, n, Binding::Type(ty)));
                order.push(Some(n));
            }
        }
        self.facts.params.push((decl, order));
    }

    pub(super) fn result_types(&mut self, results: Option<Lowered>) -> Vec<TypeId> {
        match results {
            Some(Lowered::Params(p)) => {
                let mut out = Vec::new();
                for (names, ty) in self.params[p as usize].clone() {
                    for _ in 0..names.len().max(1) {
                        out.push(ty);
                    }
                }
                out
            }
            Some(other) => vec![self.as_type(&other)],
            None => Vec::new(),
        }
    }
}

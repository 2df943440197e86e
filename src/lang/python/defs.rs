//! Declarations: functions, classes, decorators and lambdas, their
//! parameters, signatures, docstrings and annotations, and property access.

use super::expressions::string_literal;
use super::{
    ExprId, Extractor, Frame, GRAMMAR, K, Lowered, Param, ParamKind, PropertyPart, PyCall,
    PyCallKind, PyDeclInfo, PyExpr, PyFlow, named_children,
};
use crate::lang::walk;
use crate::model::{DeclKind, Lang, LocalDecl, Span, Sym, content_hash};
use tree_sitter::Node;

/// `value.setter`, `value.deleter` or `value.getter`: a property's accessor
/// decorator, named after the property.
pub(super) fn is_property_accessor(decorator: &str) -> bool {
    decorator.rsplit_once('.').is_some_and(|(owner, accessor)| {
        matches!(accessor, "setter" | "deleter" | "getter")
            && !owner.is_empty()
            && owner.chars().all(|c| c == '_' || c.is_alphanumeric())
    })
}

/// Lambdas nested deeper than this are folded into the one enclosing them.
/// Each nested lambda's qualified name holds every enclosing one's, so a
/// chain of n (`lambda: lambda: … 0`, 8 bytes a level) stored n²/2 name
/// segments: 125 MB of index for a 40 KB file. Written code nests a few.
pub(super) const MAX_LAMBDA_NESTING: usize = 32;

/// The docstring of a module, class or function node: its body's first
/// statement when that is a string literal.
pub(super) fn docstring(node: &Node, source: &[u8]) -> Option<String> {
    let body = if node.kind() == "module" {
        *node
    } else {
        node.child_by_field_id(GRAMMAR.f_body)?
    };
    let mut cursor = body.walk();
    let first = body
        .named_children(&mut cursor)
        .find(|n| n.kind() != "comment")?;
    if first.kind() != "expression_statement" {
        return None;
    }
    let string = first.named_child(0)?;
    if string.kind() != "string" {
        return None;
    }
    let raw = walk::text(&string, source);
    Some(clean_docstring(&raw))
}

pub(super) fn clean_docstring(raw: &str) -> String {
    let s = raw.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let s = s
        .trim_start_matches("\"\"\"")
        .trim_start_matches("'''")
        .trim_end_matches("\"\"\"")
        .trim_end_matches("'''");
    let s = s.trim_matches('"').trim_matches('\'');
    let lines: Vec<&str> = s.lines().collect();
    let indent = lines
        .iter()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push('\n');
            out.push_str(line.get(indent..).unwrap_or(line.trim_start()));
        } else {
            out.push_str(line.trim());
        }
    }
    out.trim().to_owned()
}

/// `None` written as a type (`Optional`'s other half).
pub(super) fn is_none_type(n: Node, source: &[u8]) -> bool {
    n.kind() == "none" || walk::text(&n, source).trim() == "None"
}

impl<'s> Extractor<'s> {
    /// How many lambdas enclose the current scope, counted up to
    /// [`MAX_LAMBDA_NESTING`].
    pub(super) fn lambda_nesting(&self) -> usize {
        let mut decl = self.scope() as usize;
        let mut n = 0;
        while n < MAX_LAMBDA_NESTING && self.decls[decl].kind == DeclKind::Lambda {
            n += 1;
            decl = self.decls[decl].parent.unwrap_or(0) as usize;
        }
        n
    }

    /// What a type annotation says a value is, as an expression: instances
    /// of the classes it names (through `Optional`, `Union`, `|`,
    /// `Annotated`, quotes), a container of them for collections
    /// (`list[T]`, `Iterable[T]`, `dict[K, V]`), the class itself for
    /// `type[T]`. Evaluated in the current scope; `None` when it names
    /// nothing a call could reach (`int`, `Any`, `Callable[…]`). `lone`:
    /// no other member of a union stands beside it.
    pub(super) fn annotation(&mut self, ty: Node, lone: bool, depth: u32) -> Option<ExprId> {
        let source = self.source;
        self.annotation_in(ty, source, lone, depth)
    }

    /// [`Self::annotation`] of a node of `src`: the file's tree, or the one
    /// parsed from a string annotation's text.
    pub(super) fn annotation_in(
        &mut self,
        ty: Node,
        src: &[u8],
        lone: bool,
        depth: u32,
    ) -> Option<ExprId> {
        if depth > 8 {
            return None;
        }
        // Members of a union, `None` left out: `Optional[T]` is still T alone.
        let parts = |this: &mut Self, nodes: Vec<Node>, lone: bool| -> Option<ExprId> {
            let nodes: Vec<Node> = nodes
                .into_iter()
                .filter(|n| !is_none_type(*n, src))
                .collect();
            let lone = lone && nodes.len() == 1;
            let items: Vec<ExprId> = nodes
                .into_iter()
                .filter_map(|n| this.annotation_in(n, src, lone, depth + 1))
                .collect();
            match items.len() {
                0 => None,
                1 => Some(items[0]),
                _ => Some(this.push_expr(PyExpr::Union(items.into()))),
            }
        };
        let named_class = |this: &mut Self, text: &str, instance: bool| -> Option<ExprId> {
            let inner = this.dotted_name(text)?;
            Some(this.push_expr(PyExpr::Annotation {
                inner,
                instance,
                externals: lone,
            }))
        };
        match ty.kind() {
            "type" | "parenthesized_expression" => parts(self, named_children(ty), lone),
            "identifier" | "attribute" => {
                let text = walk::text(&ty, src).into_owned();
                named_class(self, &text, true)
            }
            // A forward reference. A plain name is looked up as written;
            // anything else (`"Db | None"`, `"Optional[Db]"`) is parsed and
            // read like an annotation written without quotes.
            "string" => {
                let text = walk::text(&ty, src).into_owned();
                let inner = string_literal(&text)
                    .unwrap_or_else(|| text.trim_matches(|c| c == '"' || c == '\''))
                    .trim();
                if inner
                    .chars()
                    .all(|c| c == '.' || c == '_' || c.is_alphanumeric())
                {
                    return named_class(self, inner, true);
                }
                let tree = crate::lang::parse(Lang::Python, inner.as_bytes())?;
                let statement = tree.root_node().named_child(0)?;
                if statement.kind() != "expression_statement" || tree.root_node().has_error() {
                    return None;
                }
                let expr = statement.named_child(0)?;
                self.annotation_in(expr, inner.as_bytes(), lone, depth + 1)
            }
            "binary_operator" => parts(
                self,
                ["left", "right"]
                    .into_iter()
                    .filter_map(|f| ty.child_by_field_name(f))
                    .collect(),
                lone,
            ),
            "generic_type" | "subscript" => {
                let (base, params): (Node, Vec<Node>) = if ty.kind() == "subscript" {
                    let base = ty.child_by_field_id(GRAMMAR.f_value)?;
                    let mut c = ty.walk();
                    let params = ty
                        .children_by_field_name("subscript", &mut c)
                        .collect::<Vec<_>>();
                    (base, params)
                } else {
                    let mut kids = named_children(ty).into_iter();
                    let base = kids.next()?;
                    let params = kids
                        .filter(|k| k.kind() == "type_parameter")
                        .flat_map(named_children)
                        .collect();
                    (base, params)
                };
                let base_text = walk::text(&base, src).into_owned();
                let last = base_text.rsplit('.').next().unwrap_or(&base_text);
                let elements = |this: &mut Self, params: Vec<Node>, dict: bool| {
                    let lone = params.len() == 1;
                    let elem = parts(this, params, lone)?;
                    Some(this.declared_container(elem, dict))
                };
                match last {
                    "Optional" | "Union" | "Final" | "ClassVar" | "Required" | "NotRequired"
                    | "ReadOnly" => parts(self, params, lone),
                    "Annotated" => parts(self, params.into_iter().take(1).collect(), lone),
                    "Type" | "type" => {
                        let inner = params.first()?;
                        let text = walk::text(inner, src).into_owned();
                        named_class(self, text.trim_matches(|c| c == '"' || c == '\''), false)
                    }
                    "List" | "list" | "Sequence" | "MutableSequence" | "Iterable" | "Iterator"
                    | "Collection" | "Set" | "set" | "FrozenSet" | "frozenset" | "AbstractSet"
                    | "MutableSet" | "Deque" | "deque" | "Tuple" | "tuple" | "Reversible"
                    | "AsyncIterable" | "AsyncIterator" | "KeysView" | "ValuesView" => {
                        elements(self, params, false)
                    }
                    "Generator" | "AsyncGenerator" => {
                        elements(self, params.into_iter().take(1).collect(), false)
                    }
                    "Dict" | "dict" | "Mapping" | "MutableMapping" | "DefaultDict"
                    | "defaultdict" | "OrderedDict" | "ChainMap" => {
                        elements(self, params.into_iter().skip(1).take(1).collect(), true)
                    }
                    "Callable" | "Literal" | "Awaitable" | "Coroutine" | "TypeGuard" => None,
                    // A generic class of the repository or a library (`Repo[User]`).
                    _ => named_class(self, &base_text, true),
                }
            }
            _ => None,
        }
    }

    /// A collection an annotation declares: `elem` as its elements, or as
    /// its values when it is a `dict`.
    pub(super) fn declared_container(&mut self, elem: ExprId, dict: bool) -> ExprId {
        let e = self.push_expr(PyExpr::Container {
            items: vec![(None, elem)].into(),
        });
        if dict {
            self.facts.dict_sites.push(e);
        }
        e
    }

    /// `a.b.C` as an expression in the current scope; `None` for names an
    /// annotation uses to say "anything" or "nothing".
    pub(super) fn dotted_name(&mut self, text: &str) -> Option<ExprId> {
        let text = text.trim();
        let mut segments = text.split('.');
        let first = segments.next()?;
        let last = text.rsplit('.').next().unwrap_or(text);
        let is_ident = |s: &str| {
            !s.is_empty()
                && s.chars().all(|c| c.is_alphanumeric() || c == '_')
                && !s.starts_with(|c: char| c.is_ascii_digit())
        };
        if !text.split('.').all(is_ident)
            || matches!(
                last,
                "Any" | "None" | "object" | "Self" | "NoReturn" | "Never"
            )
        {
            return None;
        }
        let scope = self.scope();
        let name = self.strings.intern(first);
        let mut e = self.push_expr(PyExpr::Name { scope, name });
        for seg in segments {
            let name = self.strings.intern(seg);
            e = self.push_expr(PyExpr::Attr { base: e, name });
        }
        Some(e)
    }

    /// `x = property(get_x, set_x, del_x)` (or `fget=`, `fset=`, `fdel=`)
    /// in a class body: reading `obj.x` calls `get_x`, assigning it
    /// `set_x`, `del obj.x` `del_x`, as the decorator form does.
    pub(super) fn note_property_call(&mut self, name: Sym, value: ExprId) {
        let class = self.scope();
        if self.decls[class as usize].kind != DeclKind::Class {
            return;
        }
        let Some(&PyExpr::Call(call)) = self.facts.exprs.get(value as usize) else {
            return;
        };
        if self.calls[call as usize].callee_text != "property" {
            return;
        }
        let c = &self.facts.calls[call as usize];
        let parts = [
            PropertyPart::Getter,
            PropertyPart::Setter,
            PropertyPart::Deleter,
        ];
        let mut accessors: Vec<(ExprId, PropertyPart)> =
            c.args.iter().copied().zip(parts).collect();
        for &(k, e) in c.kwargs.iter() {
            let part = match self.strings.get(k) {
                "fget" => PropertyPart::Getter,
                "fset" => PropertyPart::Setter,
                "fdel" => PropertyPart::Deleter,
                _ => continue,
            };
            accessors.push((e, part));
        }
        let mut found = false;
        for (e, part) in accessors {
            let accessor = match self.facts.exprs.get(e as usize) {
                Some(PyExpr::Name { name, .. } | PyExpr::Var { name, .. }) => *name,
                _ => continue,
            };
            let accessor = self.strings.get(accessor).to_owned();
            let method = self.decls.iter().position(|d| {
                d.parent == Some(class)
                    && d.local_name.rsplit('.').next() == Some(accessor.as_str())
            });
            if let Some(m) = method {
                let info = &mut self.facts.decl_info[m];
                info.is_property = true;
                info.property_call = true;
                info.property_part = part;
                found = true;
            }
        }
        if found {
            self.facts.property_calls.push(name);
        }
    }

    pub(super) fn new_decl(&mut self, node: &Node, kind: DeclKind, name: String) -> u32 {
        let parent = self.scope();
        let parent_name = &self.decls[parent as usize].local_name;
        let local_name = if parent_name.is_empty() {
            name
        } else {
            format!("{parent_name}.{name}")
        };
        let kind =
            if kind == DeclKind::Function && self.decls[parent as usize].kind == DeclKind::Class {
                DeclKind::Method
            } else {
                kind
            };
        let signature = self.signature(node);
        let short = local_name.rsplit('.').next().unwrap_or("");
        // pytest collects module-level `test*` functions; unittest and pytest
        // collect `test*` methods of test classes (unittest's need not be
        // named `Test*`, so any class in a test file counts).
        let parent_kind = self.decls[parent as usize].kind;
        let is_test = self.is_test_file
            && short.starts_with("test")
            && match kind {
                DeclKind::Function => parent_kind == DeclKind::Module,
                DeclKind::Method => true,
                _ => false,
            };
        let idx = self.decls.len() as u32;
        let range =
            node.start_byte().min(self.source.len())..node.end_byte().min(self.source.len());
        self.decls.push(LocalDecl {
            local_name,
            kind,
            span: Span::of(node),
            parent: Some(parent),
            signature,
            doc: if kind == DeclKind::Lambda {
                None
            } else {
                docstring(node, self.source)
            },
            body_hash: content_hash(&self.source[range]),
            is_test,
        });
        self.facts.decl_info.push(PyDeclInfo::default());
        // Calls in a class body run when the class is defined; like PyCG,
        // they are the class's own (`main.Config` calls `compute_default`).
        self.caller_of.push(idx);
        idx
    }

    pub(super) fn signature(&self, node: &Node) -> String {
        let end = node
            .child_by_field_id(GRAMMAR.f_body)
            .map(|b| b.start_byte())
            .unwrap_or(node.end_byte());
        let start = node.start_byte().min(self.source.len());
        let end = end.min(self.source.len()).max(start);
        let text = String::from_utf8_lossy(&self.source[start..end]);
        let text = text.trim_end().trim_end_matches(':');
        walk::one_line(text, 300)
    }

    /// Lambdas and the parameter lists of functions and lambdas.
    pub(super) fn lower_definition(&mut self, node: Node, frame: &Frame) -> Lowered {
        let g = &*GRAMMAR;
        let start = frame.start;
        match frame.kind {
            // Folded into the enclosing lambda (see MAX_LAMBDA_NESTING):
            // its calls are the enclosing one's, and it stands for it.
            K::Lambda if frame.decl.is_none() => Lowered::Decl(self.scope()),
            K::Lambda => {
                let decl = frame.decl.unwrap_or(0);
                let body = Self::field(self.children(start), g.f_body).cloned();
                if let Some(body) = body {
                    let value = self.as_expr(&body);
                    self.facts.flows.push(PyFlow::Return { func: decl, value });
                }
                if let Some(Lowered::Params(p)) = Self::field(self.children(start), g.f_parameters)
                {
                    self.set_params(decl, *p);
                }
                Lowered::Decl(decl)
            }
            K::Parameters => {
                let mut params = Vec::new();
                let mut mode = ParamKind::Positional;
                let vals: Vec<Lowered> =
                    self.children(start).iter().map(|c| c.val.clone()).collect();
                let mut saw_positional_only = false;
                for v in vals {
                    match v {
                        Lowered::Ident(name, _) => params.push((Param { name, kind: mode }, None)),
                        Lowered::Param(p, default) => {
                            let kind = match p.kind {
                                ParamKind::VarArgs | ParamKind::VarKwargs => p.kind,
                                _ => mode,
                            };
                            if p.kind == ParamKind::VarArgs {
                                mode = ParamKind::KeywordOnly;
                            }
                            params.push((Param { name: p.name, kind }, default));
                        }
                        Lowered::Separator(ParamKind::KeywordOnly) => mode = ParamKind::KeywordOnly,
                        Lowered::Separator(ParamKind::PositionalOnly) => saw_positional_only = true,
                        _ => {}
                    }
                }
                if saw_positional_only {
                    // Everything before `/` is positional-only.
                    let sep = walk::text(&node, self.source);
                    let before = sep.split('/').next().unwrap_or("").matches(',').count();
                    for (p, _) in params.iter_mut().take(before) {
                        if p.kind == ParamKind::Positional {
                            p.kind = ParamKind::PositionalOnly;
                        }
                    }
                }
                self.param_lists.push(params);
                Lowered::Params(self.param_lists.len() as u32 - 1)
            }
            K::DefaultParameter => {
                let name = Self::field(self.children(start), g.f_name).cloned();
                let value = Self::field(self.children(start), g.f_value).cloned();
                match name {
                    Some(Lowered::Ident(name, _)) => {
                        let default = value.map(|v| self.as_expr(&v));
                        let annotated = node
                            .child_by_field_id(GRAMMAR.f_type)
                            .and_then(|t| self.annotation(t, true, 0));
                        let default = match (default, annotated) {
                            (Some(d), Some(a)) => {
                                Some(self.push_expr(PyExpr::Union(vec![d, a].into())))
                            }
                            (d, a) => d.or(a),
                        };
                        Lowered::Param(
                            Param {
                                name,
                                kind: ParamKind::Positional,
                            },
                            default,
                        )
                    }
                    _ => Lowered::None,
                }
            }
            K::TypedParameter => {
                let inner = self
                    .children(start)
                    .iter()
                    .find(|c| c.field != g.f_type && !matches!(c.val, Lowered::None))
                    .map(|c| c.val.clone());
                match inner {
                    // The annotation is what the parameter holds when no
                    // caller in the repository passes it (a framework does).
                    Some(Lowered::Ident(name, _)) => Lowered::Param(
                        Param {
                            name,
                            kind: ParamKind::Positional,
                        },
                        node.child_by_field_id(GRAMMAR.f_type)
                            .and_then(|t| self.annotation(t, true, 0)),
                    ),
                    // `*args: T` holds a tuple of Ts, `**kwargs: T` a dict of them.
                    Some(Lowered::Param(p, None))
                        if matches!(p.kind, ParamKind::VarArgs | ParamKind::VarKwargs) =>
                    {
                        let packed = node
                            .child_by_field_id(GRAMMAR.f_type)
                            .and_then(|t| self.annotation(t, true, 0))
                            .map(|elem| {
                                self.declared_container(elem, p.kind == ParamKind::VarKwargs)
                            });
                        Lowered::Param(p, packed)
                    }
                    Some(p @ Lowered::Param(..)) => p,
                    _ => Lowered::None,
                }
            }
            K::ListSplatPattern | K::DictSplatPattern => {
                let name = self.children(start).iter().find_map(|c| match c.val {
                    Lowered::Ident(s, _) => Some(s),
                    _ => None,
                });
                let kind = if frame.kind == K::ListSplatPattern {
                    ParamKind::VarArgs
                } else {
                    ParamKind::VarKwargs
                };
                match name {
                    Some(name) => Lowered::Param(Param { name, kind }, None),
                    None => Lowered::None,
                }
            }
            K::KeywordSeparator => Lowered::Separator(ParamKind::KeywordOnly),
            K::PositionalSeparator => Lowered::Separator(ParamKind::PositionalOnly),
            // `lower` routes only the kinds above here.
            _ => Lowered::None,
        }
    }

    pub(super) fn set_params(&mut self, decl: u32, list: u32) {
        let params = std::mem::take(&mut self.param_lists[list as usize]);
        for (p, default) in &params {
            self.bindings.insert((decl, p.name));
            if let Some(default) = default {
                // A default is the parameter's value on entry, before any
                // rebinding in the body: the plain name, never a version.
                self.facts.exprs.push(PyExpr::Name {
                    scope: decl,
                    name: p.name,
                });
                let target = (self.facts.exprs.len() - 1) as ExprId;
                let flow = self.facts.flows.len() as u32;
                self.facts.decl_info[decl as usize].default_flows.push(flow);
                self.facts.flows.push(PyFlow::Assign {
                    target,
                    value: *default,
                });
            }
        }
        self.facts.decl_info[decl as usize].params = params.into_iter().map(|(p, _)| p).collect();
    }

    pub(super) fn lower_def(&mut self, node: Node, frame: &Frame) -> Lowered {
        let g = &*GRAMMAR;
        let Some(decl) = frame.decl else {
            return Lowered::None;
        };
        let children: Vec<(u16, Lowered)> = self
            .children(frame.start)
            .iter()
            .map(|c| (c.field, c.val.clone()))
            .collect();
        // `-> T`: what calls return when the body's own returns say nothing
        // a call could reach (an abstract method, a protocol, a stub).
        if let Some(t) = node.child_by_field_id(GRAMMAR.f_return_type)
            && let Some(value) = self.annotation(t, true, 0)
        {
            self.facts.flows.push(PyFlow::Return { func: decl, value });
        }
        for (field, val) in &children {
            if *field == g.f_parameters
                && let Lowered::Params(p) = val
            {
                self.set_params(decl, *p);
            }
            if *field == g.f_superclasses
                && let Lowered::Args(i) = val
            {
                let list = std::mem::take(&mut self.arg_lists[*i as usize]);
                let metaclass = list
                    .kwargs
                    .iter()
                    .find(|(k, _)| self.strings.get(*k) == "metaclass")
                    .map(|&(_, e)| e);
                let info = &mut self.facts.decl_info[decl as usize];
                info.bases = list.args;
                info.metaclass = metaclass;
            }
            if *field == g.f_name
                && let Lowered::Ident(name, scope) = val
            {
                let target = self.push_expr(PyExpr::Name {
                    scope: *scope,
                    name: *name,
                });
                let decorated = self
                    .frames
                    .last()
                    .is_some_and(|p| p.kind == K::DecoratedDef);
                if decorated {
                    self.bind_target(target);
                } else {
                    let value = self.push_expr(PyExpr::Decl(decl));
                    self.assign(target, value);
                }
                self.name_targets.insert(decl, target);
            }
        }
        Lowered::Decl(decl)
    }

    pub(super) fn lower_decorated(&mut self, node: Node, start: usize) -> Lowered {
        let children: Vec<(K, Lowered)> = self
            .children(start)
            .iter()
            .map(|c| (c.kind, c.val.clone()))
            .collect();
        let Some(decl) = children.iter().find_map(|(_, v)| match v {
            Lowered::Decl(d) => Some(*d),
            _ => None,
        }) else {
            return Lowered::None;
        };
        let decorators: Vec<(usize, Lowered)> = children
            .iter()
            .enumerate()
            .filter(|(_, (k, _))| *k == K::Passthrough)
            .map(|(i, (_, v))| (i, v.clone()))
            .collect();
        let mut decorator_nodes = Vec::new();
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            if child.kind() == "decorator" {
                decorator_nodes.push(child);
            }
        }
        let original = self.push_expr(PyExpr::Decl(decl));
        let mut current = original;
        for (idx, (_, dec)) in decorators.iter().enumerate().rev() {
            let dec_node = decorator_nodes.get(idx).copied().unwrap_or(node);
            let text = walk::text(&dec_node, self.source)
                .trim_start_matches('@')
                .trim()
                .to_owned();
            if matches!(text.as_str(), "abstractmethod" | "abc.abstractmethod") {
                self.facts.decl_info[decl as usize].is_abstract = true;
            }
            // Descriptor builtins only mark the function; they are not calls worth an edge.
            match text.as_str() {
                "staticmethod" => {
                    self.facts.decl_info[decl as usize].is_staticmethod = true;
                    continue;
                }
                "classmethod" => {
                    self.facts.decl_info[decl as usize].is_classmethod = true;
                    continue;
                }
                t if [
                    "dataclass",
                    "dataclasses.dataclass",
                    "attr.s",
                    "attrs.define",
                    "attr.define",
                    "define",
                    "frozen",
                ]
                .iter()
                .any(|d| t == *d || t.starts_with(&format!("{d}("))) =>
                {
                    self.facts.decl_info[decl as usize].is_dataclass = true;
                }
                "total_ordering" | "functools.total_ordering" => {
                    self.facts.decl_info[decl as usize].is_total_ordering = true;
                }
                t if t == "pytest.fixture"
                    || t == "fixture"
                    || t.starts_with("pytest.fixture(")
                    || t.starts_with("fixture(") =>
                {
                    self.facts.decl_info[decl as usize].is_fixture = true;
                }
                "property" | "functools.cached_property" | "cached_property" => {
                    self.facts.decl_info[decl as usize].is_property = true;
                    continue;
                }
                // `@value.setter` is the same property's setter: as `@property`
                // itself, no call the graph should show (nor an unresolved one).
                t if is_property_accessor(t) => {
                    let info = &mut self.facts.decl_info[decl as usize];
                    info.is_property = true;
                    info.property_part = if t.ends_with(".setter") {
                        PropertyPart::Setter
                    } else if t.ends_with(".deleter") {
                        PropertyPart::Deleter
                    } else {
                        PropertyPart::Getter
                    };
                    continue;
                }
                _ => {}
            }
            let callee = self.as_expr(dec);
            let call = self.add_call(
                &dec_node,
                format!("@{}", walk::one_line(&text, 100)),
                PyCall {
                    callee,
                    args: vec![current].into(),
                    kwargs: Box::default(),
                    splats: Box::default(),
                    key: None,
                    kind: PyCallKind::Decorator,
                },
            );
            current = self.push_expr(PyExpr::Call(call));
        }
        if let Some(&target) = self.name_targets.get(&decl) {
            let value = self.push_expr(PyExpr::Decorated {
                result: current,
                original,
            });
            self.facts.flows.push(PyFlow::Assign { target, value });
        }
        Lowered::Decl(decl)
    }
}

//! The order-dependent part of the flow facts: expressions pushed for the
//! resolver, `isinstance` narrowing, versions of rebound names, and the
//! container items known to hold between one statement and the next.

use super::expressions::STARRED;
use super::{Child, ExprId, Extractor, GRAMMAR, K, Lowered, PyCallKind, PyExpr, PyFlow};
use crate::model::Sym;
use rustc_hash::FxHashMap as HashMap;
use rustc_hash::FxHashSet as HashSet;
use tree_sitter::Node;

/// A dict item named by constant keys under a local name: `d["a"]["b"]`
/// is (scope, `d`'s version, [`a`, `b`]).
pub(super) type ItemPlace = (u32, Sym, Vec<Sym>);

/// What straight-line code last stored in dict items (`d["a"] = f`, or
/// `d.update({"a": f})`): a read of the item in a later statement of the
/// same body, with nothing in between that could change it, is the value
/// stored, not every value the item ever holds. A statement that calls
/// anything, stores through a place that is not constant, waits (`yield`,
/// `await`), or is not a simple statement (`if`, `for`, `def`, `del`)
/// forgets them all.
#[derive(Default)]
pub(super) struct KnownItems {
    pub(super) known: Vec<(ItemPlace, ExprId)>,
    /// Stores the current statement makes, known once it ends.
    pub(super) pending: Vec<(ItemPlace, ExprId)>,
    /// The current statement makes the known items unknown.
    pub(super) forget: bool,
    /// Calls before the current statement, and its `update` calls.
    pub(super) calls_before: usize,
    pub(super) updates: Vec<u32>,
    /// Reads of known items: the subscript expression and the value stored.
    pub(super) reads: Vec<(ExprId, ExprId)>,
}

impl<'s> Extractor<'s> {
    pub(super) fn push_expr(&mut self, e: PyExpr) -> ExprId {
        // A name that straight-line code has rebound means its latest value;
        // inside `if isinstance(name, A):`, an `A`.
        let e = match e {
            PyExpr::Name { scope, name }
                if let Some(&(_, _, narrowed)) = self
                    .narrowed
                    .iter()
                    .rev()
                    .find(|&&(s, n, _)| s == scope && n == name) =>
            {
                PyExpr::Name {
                    scope,
                    name: narrowed,
                }
            }
            PyExpr::Name { scope, name } => match self.versions.get(&(scope, name)) {
                Some(&(_, current)) => PyExpr::Name {
                    scope,
                    name: current,
                },
                None => e,
            },
            e => e,
        };
        self.facts.exprs.push(e);
        (self.facts.exprs.len() - 1) as ExprId
    }

    /// Entering code that runs only when the `parent` node's already
    /// lowered child in `check` held: the body of `if isinstance(x, A):`
    /// (or an `elif`; `check` is the condition), or the right operand of
    /// `isinstance(x, A) and …` (`check` is the left one). While it is
    /// lowered, `x` reads a name of its own that holds an `A` (any
    /// subclass's instance; a tuple of classes gives each; see
    /// [`PyExpr::Narrowed`]). Returns how many names it narrowed, for
    /// `exit` to pop. Assigning `x` there assigns that name, so code after
    /// it does not see it.
    pub(super) fn narrow_isinstance(&mut self, parent: usize, check: u16) -> u8 {
        let frame = &self.frames[parent];
        let Some(Lowered::Expr(cond)) = Self::field(self.children(frame.start), check).cloned()
        else {
            return 0;
        };
        let Some(&PyExpr::Call(call)) = self.facts.exprs.get(cond as usize) else {
            return 0;
        };
        self.push_narrowing(call)
    }

    /// While what follows is lowered, the name `isinstance` call `call`
    /// tests reads a name of its own holding the narrowed value. Returns
    /// how many names it narrowed (0 or 1), for the frame that ends the
    /// narrowing to pop.
    pub(super) fn push_narrowing(&mut self, call: u32) -> u8 {
        let Some((scope, plain, value)) = self.isinstance_test(call) else {
            return 0;
        };
        let text = format!(
            "{}@isinstance{}",
            self.strings.get(plain),
            self.facts.flows.len()
        );
        let narrowed = self.strings.intern(&text);
        self.bindings.insert((scope, narrowed));
        self.facts.exprs.push(PyExpr::Name {
            scope,
            name: narrowed,
        });
        let target = (self.facts.exprs.len() - 1) as ExprId;
        self.facts.flows.push(PyFlow::Assign { target, value });
        self.narrowed.push((scope, plain, narrowed));
        1
    }

    /// Whether the node just lowered (its frame popped) is a statement
    /// directly in a function's, class's or the module's body.
    pub(super) fn at_top_of_body(&self) -> bool {
        let n = self.frames.len();
        match self.frames.last().map(|f| f.kind) {
            Some(K::Module) => true,
            Some(K::Block) => {
                n >= 2 && matches!(self.frames[n - 2].kind, K::FunctionDef | K::ClassDef)
            }
            _ => false,
        }
    }

    /// The code after a narrowing statement reads `x` as the narrowed
    /// value. Directly in a body, through a new version of the name, as an
    /// assignment there would make one. In a nested block (a loop's body,
    /// a branch, a `with`), until the block ends: after a loop, `x` may be
    /// something the guard let through no further.
    pub(super) fn narrow_after(&mut self, call: u32) {
        if self.at_top_of_body() {
            if let Some((scope, plain, value)) = self.isinstance_test(call) {
                let target = self.new_version(scope, plain);
                self.assign(target, value);
            }
            return;
        }
        let Some(block) = self.frames.last() else {
            return;
        };
        if block.kind != K::Block || block.narrowings == u8::MAX {
            return;
        }
        let pushed = self.push_narrowing(call);
        if let Some(block) = self.frames.last_mut() {
            block.narrowings += pushed;
        }
    }

    /// `assert isinstance(x, A)`: `x` is an `A` after it.
    pub(super) fn narrow_assert(&mut self, start: usize) {
        let cond = match self.children(start).iter().find(|c| c.element) {
            Some(Child {
                val: Lowered::Expr(e),
                ..
            }) => Some(*e),
            _ => None,
        };
        if let Some(cond) = cond
            && let Some(&PyExpr::Call(call)) = self.facts.exprs.get(cond as usize)
        {
            self.narrow_after(call);
        }
    }

    /// `if not isinstance(x, A): raise …` (or `return`, `continue`,
    /// `break`) with no `else`: `x` is an `A` after it.
    pub(super) fn narrow_guard(&mut self, node: &Node) {
        let g = &*GRAMMAR;
        if node.child_by_field_id(g.f_alternative).is_some() {
            return;
        }
        let leaves = node
            .child_by_field_id(g.f_consequence)
            .and_then(|b| b.named_child(b.named_child_count().checked_sub(1)?))
            .is_some_and(|last| {
                matches!(
                    last.kind(),
                    "return_statement"
                        | "raise_statement"
                        | "continue_statement"
                        | "break_statement"
                )
            });
        let Some(test) = node
            .child_by_field_id(g.f_condition)
            .filter(|c| c.kind() == "not_operator")
            .and_then(|c| c.child_by_field_id(g.f_argument))
            .filter(|a| a.kind() == "call" && leaves)
        else {
            return;
        };
        // The call was lowered with the condition: the latest one there.
        let start = test.start_byte() as u32;
        let call = self
            .calls
            .iter()
            .rposition(|c| c.span.start_byte == start && c.callee_text == "isinstance");
        if let Some(call) = call {
            self.narrow_after(call as u32);
        }
    }

    /// `isinstance(name, classes)`: the name's scope, the name without its
    /// version (`x@2` is read as `x`), and the narrowed value
    /// ([`PyExpr::Narrowed`]).
    pub(super) fn isinstance_test(&mut self, call: u32) -> Option<(u32, Sym, ExprId)> {
        let py_call = &self.facts.calls[call as usize];
        let is_isinstance = matches!(
            self.facts.exprs.get(py_call.callee as usize),
            Some(PyExpr::Name { name, .. }) if self.strings.get(*name) == "isinstance"
        );
        let (&[subject, classes], true) = (&py_call.args[..], is_isinstance) else {
            return None;
        };
        let Some(&PyExpr::Name { scope, name }) = self.facts.exprs.get(subject as usize) else {
            return None;
        };
        let plain = self
            .strings
            .get(name)
            .split('@')
            .next()
            .unwrap_or_default()
            .to_owned();
        let plain = self.strings.intern(&plain);
        let class_exprs: Vec<ExprId> = match &self.facts.exprs[classes as usize] {
            PyExpr::Container { items } => items.iter().map(|&(_, e)| e).collect(),
            _ => vec![classes],
        };
        let value = self.push_expr(PyExpr::Narrowed {
            subject,
            classes: class_exprs.into(),
        });
        Some((scope, plain, value))
    }

    /// Whether the frame on top of `frames[..n]` is a body that runs its
    /// statements in order: a module's, a function's or a class's.
    pub(super) fn is_body(&self, n: usize) -> bool {
        match n.checked_sub(1).map(|i| self.frames[i].kind) {
            Some(K::Module) => true,
            Some(K::Block) => {
                n >= 2 && matches!(self.frames[n - 2].kind, K::FunctionDef | K::ClassDef)
            }
            _ => false,
        }
    }

    /// The place `e` names: a local name, or an item of one under
    /// constant keys (None for anything else).
    pub(super) fn item_place(&self, e: ExprId) -> Option<ItemPlace> {
        match self.facts.exprs.get(e as usize)? {
            PyExpr::Name { scope, name } => Some((*scope, *name, Vec::new())),
            PyExpr::Subscript { base, key: Some(k) } => {
                let mut place = self.item_place(*base)?;
                place.2.push(*k);
                Some(place)
            }
            _ => None,
        }
    }

    /// A read of `e` (a subscript) inside a straight-line statement, when
    /// its item is known: no lambda or comprehension between, which would
    /// run it later or again.
    pub(super) fn note_item_read(&mut self, e: ExprId) {
        if self.items.known.is_empty() {
            return;
        }
        let Some(stmt) = self
            .frames
            .iter()
            .rposition(|f| f.kind == K::ExpressionStatement)
        else {
            return;
        };
        if !self.is_body(stmt)
            || self.frames[stmt..]
                .iter()
                .any(|f| matches!(f.kind, K::Lambda | K::Comprehension | K::DictComprehension))
        {
            return;
        }
        let Some(place) = self.item_place(e) else {
            return;
        };
        if let Some(&(_, value)) = self.items.known.iter().find(|(p, _)| *p == place) {
            self.items.reads.push((e, value));
        }
    }

    /// `target = value` in a straight-line statement: a store to a known
    /// place is remembered; one to an item of any other place (or an
    /// item named by a variable) may change any item.
    pub(super) fn note_item_store(&mut self, target: ExprId, value: ExprId) {
        match self.facts.exprs.get(target as usize) {
            Some(PyExpr::Name { .. }) => {}
            Some(PyExpr::Subscript { .. }) => match self.item_place(target) {
                Some(place) => self.items.pending.push((place, value)),
                None => self.items.forget = true,
            },
            _ => self.items.forget = true,
        }
    }

    /// `d.update({"a": f})` or `d.update(a=f)` as a statement of its own:
    /// stores to `d["a"]`.
    pub(super) fn note_item_update(&mut self, call: u32) {
        let n = self.frames.len();
        if n == 0 || self.frames[n - 1].kind != K::ExpressionStatement || !self.is_body(n - 1) {
            return;
        }
        let c = &self.facts.calls[call as usize];
        let Some(&PyExpr::Attr { base, name }) = self.facts.exprs.get(c.callee as usize) else {
            return;
        };
        if self.strings.get(name) != "update" || !c.splats.is_empty() {
            return;
        }
        let Some(place) = self.item_place(base) else {
            return;
        };
        let mut stores: Vec<(Sym, ExprId)> = c.kwargs.to_vec();
        match c.args.as_ref() {
            [] => {}
            [arg] if self.facts.dict_sites.contains(arg) => {
                let Some(PyExpr::Container { items }) = self.facts.exprs.get(*arg as usize) else {
                    return;
                };
                for &(key, value) in items.iter() {
                    match key {
                        Some(k) => stores.push((k, value)),
                        None => return,
                    }
                }
            }
            _ => return,
        }
        for (k, value) in stores {
            let mut p = place.clone();
            p.2.push(k);
            self.items.pending.push((p, value));
        }
        self.items.updates.push(call);
    }

    pub(super) fn begin_statement(&mut self, kind: K) {
        if kind != K::ExpressionStatement {
            self.items.known.clear();
        }
        self.items.pending.clear();
        self.items.updates.clear();
        self.items.forget = false;
        self.items.calls_before = self.facts.calls.len();
    }

    pub(super) fn end_statement(&mut self, kind: K) {
        let calls = self.facts.calls[self.items.calls_before.min(self.facts.calls.len())..]
            .iter()
            .enumerate()
            .any(|(i, c)| {
                !matches!(c.kind, PyCallKind::Operator { .. })
                    && !self
                        .items
                        .updates
                        .contains(&((self.items.calls_before + i) as u32))
            });
        if kind != K::ExpressionStatement || calls || self.items.forget {
            self.items.known.clear();
        }
        for (place, value) in std::mem::take(&mut self.items.pending) {
            // A store may change the same key under another name (an
            // alias of the same dict) and every item below the place.
            let key = place.2.last().copied();
            self.items.known.retain(|(p, _)| {
                p.2.last().copied() != key
                    && !(p.0 == place.0 && p.1 == place.1 && p.2.starts_with(&place.2))
            });
            self.items.known.push((place, value));
        }
    }

    /// Reads of known items become the values stored, where those are
    /// references (a function, a name, an attribute) that can be copied.
    pub(super) fn forward_known_items(&mut self) {
        for (read, value) in std::mem::take(&mut self.items.reads) {
            let copy = match self.facts.exprs.get(value as usize) {
                Some(
                    e @ (PyExpr::Name { .. }
                    | PyExpr::Decl(_)
                    | PyExpr::Attr { .. }
                    | PyExpr::Free { .. }
                    | PyExpr::Var { .. }),
                ) => e.clone(),
                _ => continue,
            };
            self.facts.exprs[read as usize] = copy;
        }
    }

    /// Whether the node being lowered is a statement directly in the body of
    /// its scope (module, function or class), outside any branch or loop:
    /// an assignment there replaces the name's value for the code after it.
    pub(super) fn is_straight_line_statement(&self) -> bool {
        let n = self.frames.len();
        if n < 2 || self.frames[n - 1].kind != K::ExpressionStatement {
            return false;
        }
        match self.frames[n - 2].kind {
            K::Module => true,
            K::Block => n >= 3 && matches!(self.frames[n - 3].kind, K::FunctionDef | K::ClassDef),
            _ => false,
        }
    }

    /// A new version of `name` in `scope` (`name@2`), bound from here on.
    /// A tuple target of plain names (`a, b = …`) with each name
    /// rebound to a new version; any other target as it is.
    pub(super) fn version_unpacked_names(&mut self, target: ExprId) -> ExprId {
        let starred = self.strings.intern(STARRED);
        let Some(PyExpr::Container { items }) = self.facts.exprs.get(target as usize) else {
            return target;
        };
        let plain = items.iter().all(|&(k, e)| {
            k.is_some_and(|k| k != starred)
                && matches!(self.facts.exprs.get(e as usize), Some(PyExpr::Name { .. }))
        });
        if !plain {
            return target;
        }
        let items = items.clone();
        let mut versioned = Vec::with_capacity(items.len());
        for &(k, e) in items.iter() {
            let Some(&PyExpr::Name { scope, name }) = self.facts.exprs.get(e as usize) else {
                return target;
            };
            // The target was read as the name's current version (`a@1`).
            let base = self
                .versioned
                .iter()
                .rev()
                .find(|&&(v, s, _)| v == name && s == scope)
                .map_or(name, |&(_, _, base)| base);
            versioned.push((k, self.new_version(scope, base)));
        }
        self.push_expr(PyExpr::Container {
            items: versioned.into(),
        })
    }

    pub(super) fn new_version(&mut self, scope: u32, name: Sym) -> ExprId {
        let next = self.versions.get(&(scope, name)).map_or(1, |v| v.0 + 1);
        let text = format!("{}@{next}", self.strings.get(name));
        let vsym = self.strings.intern(&text);
        self.versions.insert((scope, name), (next, vsym));
        self.versioned.push((vsym, scope, name));
        self.bindings.insert((scope, vsym));
        self.facts.exprs.push(PyExpr::Name { scope, name: vsym });
        (self.facts.exprs.len() - 1) as ExprId
    }

    /// Every version also flows into the plain name, which is what nested
    /// scopes, other modules and code before the rebinding read. A name that
    /// some function declares `global`/`nonlocal` can change behind straight-
    /// line code's back, so its versions are folded back into the plain name.
    pub(super) fn finish_versions(&mut self) {
        let shared: HashSet<Sym> = self
            .globals
            .iter()
            .chain(self.nonlocals.iter())
            .map(|&(_, n)| n)
            .collect();
        let folded: HashMap<Sym, Sym> = self
            .versioned
            .iter()
            .filter(|(_, _, base)| shared.contains(base))
            .map(|&(v, _, base)| (v, base))
            .collect();
        if !folded.is_empty() {
            for e in &mut self.facts.exprs {
                if let PyExpr::Name { name, .. } = e
                    && let Some(&base) = folded.get(name)
                {
                    *name = base;
                }
            }
        }
        for (vsym, scope, base) in std::mem::take(&mut self.versioned) {
            // Folded or not, the scope binds the plain name.
            self.bindings.insert((scope, base));
            if folded.contains_key(&vsym) {
                continue;
            }
            self.facts.exprs.push(PyExpr::Name { scope, name: base });
            let target = (self.facts.exprs.len() - 1) as ExprId;
            self.facts.exprs.push(PyExpr::Name { scope, name: vsym });
            let value = (self.facts.exprs.len() - 1) as ExprId;
            self.facts.flows.push(PyFlow::Assign { target, value });
        }
    }
}

//! Lexical scopes inside functions: which variable a name means where it
//! is read, a fresh name for a declaration that shadows another, a new
//! version of a variable a straight-line assignment replaces, the
//! variable a type switch binds per case, and the scope that declares a
//! variable.

use super::{Binding, Extractor, GRAMMAR, Lowered};
use crate::lang::walk;
use crate::model::Sym;
use tree_sitter::Node;

impl Extractor<'_> {
    /// The variable `name` (as written) means at this point.
    /// `at` is where the name is read: a read of no local variable is noted,
    /// so that a later declaration of the name in the same function
    /// (`newTree := newTree()`) gets a name of its own.
    pub(super) fn visible(&mut self, name: Sym, at: usize) -> Sym {
        let found = self
            .blocks
            .iter()
            .enumerate()
            .rev()
            .find_map(|(i, b)| b.get(&name).map(|&local| (i, local)));
        match found {
            Some((i, local)) => {
                if self.block_scopes.get(i) != Some(&self.scope()) {
                    self.captured.insert(local);
                }
                local
            }
            None => {
                if !self.blocks.is_empty() {
                    self.outer_reads.entry(name).or_default().push(at);
                }
                name
            }
        }
    }

    /// Declare `name` in the innermost block: the same variable when that
    /// block already declares it (`a, err := …` again), a fresh name when it
    /// shadows one of an enclosing block.
    pub(super) fn declare(&mut self, name: Sym, targets: &std::ops::Range<usize>) -> Sym {
        let written = self.shadowed.get(&name).copied().unwrap_or(name);
        let Some(top) = self.blocks.last() else {
            return written;
        };
        if let Some(&current) = top.get(&written) {
            return current;
        }
        if self.strings.get(written) == "_" {
            return written;
        }
        let shadows = self.closed_names.contains(&written)
            || self
                .outer_reads
                .get(&written)
                .is_some_and(|reads| reads.iter().any(|at| !targets.contains(at)))
            || self
                .blocks
                .iter()
                .rev()
                .skip(1)
                .any(|b| b.contains_key(&written));
        let declared = if shadows {
            let n = self.shadow_counts.entry(written).or_insert(0);
            *n += 1;
            let text = format!("{}#{n}", self.strings.get(written));
            let s = self.strings.intern(&text);
            self.shadowed.insert(s, written);
            s
        } else {
            written
        };
        if let Some(top) = self.blocks.last_mut() {
            top.insert(written, declared);
        }
        declared
    }

    /// `targets` is where the names are written: their own reads there
    /// are not reads of an outer variable.
    pub(super) fn declare_all(
        &mut self,
        names: &[Lowered],
        targets: std::ops::Range<usize>,
    ) -> Vec<Lowered> {
        names
            .iter()
            .map(|n| match n {
                Lowered::Name(s) => Lowered::Name(self.declare(*s, &targets)),
                other => other.clone(),
            })
            .collect()
    }

    /// In a case of `switch v := x.(type)`, `v` is a variable of its own:
    /// of the case's type when it names one (`case *TCPAddr:`), else `x`
    /// itself. Called on entering the case, after the switch's header is
    /// lowered and before the case's statements are.
    pub(super) fn bind_type_switch_alias(&mut self, case: Node) {
        let Some(switch) = case
            .parent()
            .filter(|p| p.kind() == "type_switch_statement")
        else {
            return;
        };
        let Some(alias) = switch
            .child_by_field_name("alias")
            .and_then(|a| a.named_child(0))
            .filter(|a| a.kind() == "identifier")
        else {
            return;
        };
        let text = walk::text(&alias, self.source).into_owned();
        let name = self.strings.intern(&text);
        let mut c = case.walk();
        let types: Vec<Node> = case
            .children_by_field_name("type", &mut c)
            .filter(|t| t.is_named())
            .collect();
        let case_type = match types[..] {
            [t] => self.type_of_node(t),
            _ => 0,
        };
        let binding = if case_type != 0 {
            Binding::Type(case_type)
        } else {
            let g = &*GRAMMAR;
            let value = self.frames.last().and_then(|f| {
                let children = &self.results[f.start..];
                Self::field(children, g.f_value)
            });
            match value {
                Some(v) => Binding::Value(self.as_expr(&v)),
                None => return,
            }
        };
        // A fresh name per case, even where no outer `v` is shadowed: each
        // case's `v` has its own type.
        let n = self.shadow_counts.entry(name).or_insert(0);
        *n += 1;
        let fresh = self.strings.intern(&format!("{text}#{n}"));
        self.shadowed.insert(fresh, name);
        if let Some(top) = self.blocks.last_mut() {
            top.insert(name, fresh);
        }
        self.bind(fresh, binding);
    }

    /// The function or closure that declares the variable `name` as the
    /// innermost block sees it, or whose signature binds it; None for a
    /// package-level variable written inside a function.
    pub(super) fn declaring_scope(&self, name: Sym) -> Option<u32> {
        let in_block = self
            .blocks
            .iter()
            .zip(&self.block_scopes)
            .rev()
            .find(|(block, _)| block.contains_key(&name) || block.values().any(|&d| d == name));
        if let Some((_, &scope)) = in_block {
            return Some(scope);
        }
        let written = self.shadowed.get(&name).copied().unwrap_or(name);
        let signed = self.block_scopes.iter().rev().find(|scope| {
            self.signatures
                .get(scope)
                .is_some_and(|names| names.contains(&written))
        });
        match signed {
            Some(&scope) => Some(scope),
            None => (self.scope() == 0).then_some(0),
        }
    }

    /// `s = cached{next: s}` in the block that declares `s` (or at the top
    /// of the body of the function whose parameter it is) replaces what
    /// `s` held for every later read: the assignment starts a new variable
    /// (`s#1`), as SSA would, and the reads before it keep the old one.
    /// Not where the assignment may run more than once or in a branch
    /// (a nested block: then the values merge), and not for a variable a
    /// closure reads, which may run after any later assignment.
    pub(super) fn new_version(&mut self, var: Sym) -> Sym {
        if self.captured.contains(&var) || self.strings.get(var) == "_" {
            return var;
        }
        let written = self.shadowed.get(&var).copied().unwrap_or(var);
        let Some(top) = self.blocks.len().checked_sub(1) else {
            return var;
        };
        let Some(at) = self
            .blocks
            .iter()
            .rposition(|b| b.get(&written) == Some(&var))
        else {
            return var;
        };
        let scopes = &self.block_scopes;
        let function_block = |i: usize| i == 0 || scopes[i - 1] != scopes[i];
        let straight_line =
            at == top || (at + 1 == top && scopes[at] == scopes[top] && function_block(at));
        if !straight_line {
            return var;
        }
        let n = self.shadow_counts.entry(written).or_insert(0);
        *n += 1;
        let text = format!("{}#{n}", self.strings.get(written));
        let fresh = self.strings.intern(&text);
        self.shadowed.insert(fresh, written);
        self.blocks[top].insert(written, fresh);
        fresh
    }
}

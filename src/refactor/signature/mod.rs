//! Planning a change to a function's or method's parameters —
//! `ripple refactor add-param`, `remove-param`, `reorder-params`: one hunk
//! for the definition (and, for a Python method, each override linked to
//! it the way a rename links them), one for every call site the graph
//! resolves to them, each with the confidence of its edge.
//!
//! A call's arguments are mapped to parameters from the text: positional
//! ones by position (a call through an instance binds `self`), keyword
//! ones by name. A call whose mapping the text does not decide — it
//! passes `*args`/`**kwargs`, Go's argument count does not match the
//! parameters (a multi-value call, a method expression) — is listed to
//! check by hand, as are unresolved calls named like the target, places
//! it is handed to code ripple does not follow, references to it that
//! are not calls (function and method values), and Go interfaces
//! declaring a method of its name.

mod change;
mod lists;
mod params;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::Range;
use std::path::Path;

use serde::Serialize;

pub use change::{Change, NewParam};
use lists::Edit;

use super::syntax::Parsed;
use super::workspace::{self, Workspace};
use super::{
    CallerCounts, CheckByHand, EditKind, LineIndex, RefactorError, Selection, Verdict, names,
    overrides, write,
};
use crate::conventions::Conventions;
use crate::edits::{ApplyReport, HunkId};
use crate::index::Index;
use crate::model::{Confidence, DeclKind, FileId, Lang, content_hash};
use crate::resolve::DeclId;

/// One definition or call site changed: its lines before and after.
#[derive(Debug, Clone, Serialize)]
pub struct SignatureHunk {
    pub id: HunkId,
    pub file: String,
    /// 1-based first and last line of the change.
    pub line: u32,
    pub end_line: u32,
    pub kind: EditKind,
    pub confidence: Confidence,
    /// Written by `--apply`.
    pub selected: bool,
    /// The lines before and after, `\n`-separated.
    pub old_text: String,
    pub new_text: String,
    pub why: String,
    pub stable: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
    #[serde(skip)]
    pub(crate) edits: Vec<Edit>,
}

/// A planned signature change: nothing is written until [`apply`].
#[derive(Debug, Clone, Serialize)]
pub struct SignaturePlan {
    #[serde(skip)]
    pub target: DeclId,
    pub lang: Lang,
    /// `add_param`, `remove_param` or `reorder_params`.
    pub operation: &'static str,
    /// What changes, in words.
    pub change: String,
    /// The target's parameter list before and after.
    pub signature_before: String,
    pub signature_after: String,
    /// Every declaration whose parameters change: the target first.
    pub declarations: Vec<String>,
    pub hunks: Vec<SignatureHunk>,
    pub check_by_hand: Vec<CheckByHand>,
    pub warnings: Vec<String>,
    /// Facts about the plan that need no action.
    pub notes: Vec<String>,
    pub callers: CallerCounts,
    #[serde(skip)]
    pub(crate) bases: BTreeMap<String, u64>,
}

impl SignaturePlan {
    pub fn selected(&self) -> impl Iterator<Item = &SignatureHunk> {
        self.hunks.iter().filter(|h| h.selected)
    }
}

/// What writing a plan did.
#[derive(Debug)]
pub struct AppliedSignature {
    pub report: ApplyReport,
    /// Hunks written.
    pub hunks: usize,
}

/// Check `add-param`'s inputs against the target's language: `param` is
/// one named parameter (`leeway: int = 0`; Go `leeway int`), `pass` one
/// expression, and Go gets a value to pass.
pub fn new_param(
    lang: Lang,
    param: &str,
    pass: Option<&str>,
    keyword: bool,
) -> Result<NewParam, RefactorError> {
    let bad = |reason: String| RefactorError::Signature { reason };
    let param = param.trim();
    let (name, has_default) = match lang {
        Lang::Python => python_param(param).ok_or_else(|| {
            bad(format!(
                "`{param}` is not one Python parameter: write it as in a `def`, e.g. 'leeway: int = 0' or 'leeway=0'"
            ))
        })?,
        Lang::Go => go_param(param).ok_or_else(|| {
            bad(format!(
                "`{param}` is not one Go parameter: write it as in a `func`, e.g. 'leeway int'"
            ))
        })?,
    };
    if let Some(reason) = names::invalid_reason(lang, &name) {
        return Err(bad(reason));
    }
    if lang == Lang::Go && keyword {
        return Err(bad(
            "Go has no keyword arguments: drop --keyword (the value is passed by position)"
                .to_owned(),
        ));
    }
    if pass.is_none() && !has_default {
        let advice = match lang {
            Lang::Go => "Go has no default arguments: say what existing calls pass with --pass 'EXPR' (e.g. --pass 0)".to_owned(),
            Lang::Python => format!(
                "`{name}` has no default, so existing calls need a value: give one with --pass 'EXPR', or a default in the parameter ('{param} = …')"
            ),
        };
        return Err(bad(advice));
    }
    if let Some(expr) = pass
        && !is_expression(lang, expr)
    {
        return Err(bad(format!(
            "--pass `{expr}` is not one {} expression: quote it as it should appear in a call, e.g. --pass 'config.leeway'",
            lang.name()
        )));
    }
    Ok(NewParam {
        text: param.to_owned(),
        name,
        has_default,
        pass: pass.map(|p| p.trim().to_owned()),
        keyword,
    })
}

/// The name and whether it has a default, if `text` is one Python
/// parameter (not `*args`, `**kwargs` or a separator).
fn python_param(text: &str) -> Option<(String, bool)> {
    if text.contains('\n') {
        return None;
    }
    let src = format!("def _f({text}):\n    pass\n");
    let p = Parsed::new(Lang::Python, src.into_bytes())?;
    let root = p.tree.root_node();
    if root.has_error() {
        return None;
    }
    let list = root
        .named_child(0)
        .filter(|d| d.kind() == "function_definition")?
        .child_by_field_name("parameters")?;
    if list.named_child_count() != 1 {
        return None;
    }
    let n = list.named_child(0).filter(|n| p.text(*n) == text)?;
    let (name, default) = match n.kind() {
        "identifier" => (n, false),
        "typed_parameter" => (
            n.named_child(0).filter(|c| c.kind() == "identifier")?,
            false,
        ),
        "default_parameter" | "typed_default_parameter" => (n.child_by_field_name("name")?, true),
        _ => return None,
    };
    Some((p.text(name).to_owned(), default))
}

/// The name, if `text` is one named, non-variadic Go parameter.
fn go_param(text: &str) -> Option<(String, bool)> {
    if text.contains('\n') {
        return None;
    }
    let src = format!("package p\n\nfunc _f({text}) {{}}\n");
    let p = Parsed::new(Lang::Go, src.into_bytes())?;
    let root = p.tree.root_node();
    if root.has_error() {
        return None;
    }
    let mut found = None;
    p.each_node(|n| {
        if n.kind() == "parameter_list" && found.is_none() {
            found = Some(n);
        }
    });
    let list = found?;
    if list.named_child_count() != 1 {
        return None;
    }
    let decl = list
        .named_child(0)
        .filter(|d| d.kind() == "parameter_declaration" && p.text(*d) == text)?;
    let mut c = decl.walk();
    let names: Vec<_> = decl.children_by_field_name("name", &mut c).collect();
    match names.as_slice() {
        [one] => Some((p.text(*one).to_owned(), false)),
        _ => None,
    }
}

/// Whether `expr` is one expression a call can pass.
fn is_expression(lang: Lang, expr: &str) -> bool {
    if expr.trim().is_empty() || expr.contains('\n') {
        return false;
    }
    let src = match lang {
        Lang::Python => format!("_f({expr})\n"),
        Lang::Go => format!("package p\n\nvar _ = _f({expr})\n"),
    };
    let Some(p) = Parsed::new(lang, src.into_bytes()) else {
        return false;
    };
    if p.tree.root_node().has_error() {
        return false;
    }
    let mut lists = Vec::new();
    p.each_node(|n| {
        if n.kind() == "argument_list" {
            lists.push(n);
        }
    });
    // `0,` parses as one argument and a trailing comma: the argument must
    // be all of the text.
    lists.first().is_some_and(|l| {
        l.named_child_count() == 1
            && l.named_child(0).is_some_and(|a| {
                p.text(a) == expr.trim()
                    && !matches!(
                        a.kind(),
                        "keyword_argument"
                            | "list_splat"
                            | "dictionary_splat"
                            | "variadic_argument"
                    )
            })
    })
}

/// One planned definition or call edit, before it is placed on lines.
struct Planned {
    file: FileId,
    edits: Vec<Edit>,
    kind: EditKind,
    confidence: Confidence,
    why: String,
}

/// Plan `change` to `target`'s parameters. Reads the files it may touch
/// (they must still be what the index holds) and writes nothing.
pub fn plan_signature(
    index: &Index,
    conventions: &Conventions,
    target: DeclId,
    change: &Change,
    selection: Selection,
) -> Result<SignaturePlan, RefactorError> {
    let res = &index.res;
    let decl = workspace::editable(index, conventions, target)?;
    workspace::refuse_interface_implementation(index, target, "changing its parameters")?;
    let lang = decl.lang;
    let short = decl
        .name
        .rsplit_once('.')
        .map_or(&*decl.name, |(_, s)| s)
        .to_owned();
    let family = if lang == Lang::Python && decl.kind == DeclKind::Method {
        overrides::family(index, target, &short)
    } else {
        vec![overrides::Member {
            method: target,
            confidence: Confidence::Certain,
            why: String::new(),
        }]
    };
    let mut p = Planner {
        ws: Workspace::new(index),
        change,
        lang,
        short: short.clone(),
        planned: Vec::new(),
        params: HashMap::new(),
        signature: (String::new(), String::new()),
    };
    for (k, m) in family.iter().enumerate() {
        p.definition(m, k == 0)?;
    }
    let members: HashSet<DeclId> = family.iter().map(|m| m.method).collect();
    let sites = p.ws.sites_reaching(&members)?;
    let mut notes = Vec::new();
    let calls_need_nothing = matches!(change, Change::Add(NewParam { pass: None, .. }));
    if calls_need_nothing && let Change::Add(new) = change {
        notes.push(format!(
            "`{}` has a default: call sites need no edit (--pass 'EXPR' passes a value at each)",
            new.name
        ));
    }
    if !calls_need_nothing {
        for (&(file, call), reaching) in &sites {
            p.call(file, call, reaching)?;
        }
        let covered: HashSet<(FileId, u32)> = sites.keys().copied().collect();
        p.elsewhere(decl, &members, &covered)?;
    }
    p.drop_nested();
    let Planner {
        ws,
        planned,
        params: member_params,
        signature,
        ..
    } = p;
    let member_ids: Vec<DeclId> = family.iter().map(|m| m.method).collect();
    let stable_symbol = workspace::stable_symbol(index, conventions, &member_ids);
    let (hunks, bases) = place(&ws, &planned, conventions, stable_symbol, selection);
    let mut warnings = Vec::new();
    let calls_left = hunks
        .iter()
        .filter(|h| h.kind == EditKind::Call && !h.selected && h.refused.is_none() && !h.stable)
        .count();
    if calls_left > 0 {
        warnings.push(format!(
            "{calls_left} call site(s) reaching it through a likely or possible edge are not selected: after --apply they no longer match the signature; review them: --include-likely and --include-possible select them"
        ));
    }
    let stable_left = hunks
        .iter()
        .filter(|h| h.stable && !h.selected && h.refused.is_none())
        .count();
    if stable_left > 0 && !selection.allow_stable {
        warnings.push(format!(
            "{stable_left} hunk(s) change stable code (ripple.toml `stable`): left unselected; --allow-stable selects them"
        ));
    }
    let (operation, described) = describe(change);
    Ok(SignaturePlan {
        target,
        lang,
        operation,
        change: described,
        signature_before: signature.0,
        signature_after: signature.1,
        declarations: family
            .iter()
            .filter(|m| member_params.contains_key(&m.method))
            .map(|m| res.decls[m.method].name.to_string())
            .collect(),
        hunks,
        check_by_hand: ws.check.into_iter().collect(),
        warnings,
        notes,
        callers: super::rename::caller_counts(index, &members),
        bases,
    })
}

/// The plan as it is built: the files read, the edits planned, and the
/// parameters of each changed declaration for mapping its calls.
struct Planner<'a> {
    ws: Workspace<'a>,
    change: &'a Change,
    lang: Lang,
    /// The target's short name.
    short: String,
    planned: Vec<Planned>,
    params: HashMap<DeclId, params::Params>,
    /// The target's parameter list before and after.
    signature: (String, String),
}

impl Planner<'_> {
    /// The change to one member's definition; for the target, what stops
    /// it is an error, for an override a place to check by hand.
    fn definition(&mut self, m: &overrides::Member, is_target: bool) -> Result<(), RefactorError> {
        let index = self.ws.index;
        let d = &index.res.decls[m.method];
        let Some(file) = d.file else {
            return Ok(());
        };
        let path = self.ws.path(file);
        let span = d.span;
        let Some(parsed) = self.ws.parsed(file)? else {
            return Ok(());
        };
        let Some(ps) = params::read(parsed, span, &self.short, d.kind == DeclKind::Method) else {
            let reason = format!(
                "{} is not a plain `def`/`func` whose parameter list parses (or Go parameters without names): change it by hand",
                d.name
            );
            if is_target {
                return Err(RefactorError::Signature { reason });
            }
            self.ws.note(file, span.start_byte as usize, reason);
            return Ok(());
        };
        let lines = LineIndex::new(&parsed.source);
        match self.change {
            Change::Remove { name, force: false } if ps.find(name).is_some() => {
                let mut places: Vec<String> = params::uses(parsed, &ps.body, name)
                    .iter()
                    .map(|&at| format!("{path}:{}", lines.line_of(at)))
                    .collect();
                places.dedup();
                if !places.is_empty() {
                    return Err(RefactorError::ParamInUse {
                        name: d.name.to_string(),
                        param: name.clone(),
                        places: places.join(", "),
                    });
                }
            }
            Change::Add(new) if ps.find(&new.name).is_none() => {
                if let Some(&at) = params::uses(parsed, &ps.body, &new.name).first() {
                    return Err(RefactorError::Signature {
                        reason: format!(
                            "the body of {} already uses `{}` ({path}:{}): a parameter of that name would change what it refers to — choose another name",
                            d.name,
                            new.name,
                            lines.line_of(at)
                        ),
                    });
                }
            }
            _ => {}
        }
        match self.change.definition(self.lang, &parsed.source, &ps) {
            Ok(edits) => {
                if is_target {
                    let list = ps.list.open_end - 1..ps.list.close_start + 1;
                    self.signature = (
                        String::from_utf8_lossy(&parsed.source[list.clone()]).into_owned(),
                        edited_text(&parsed.source, list, &edits),
                    );
                }
                let (kind, why) = if m.why.is_empty() {
                    (EditKind::Definition, "the definition".to_owned())
                } else {
                    (EditKind::Override, format!("{} {}", d.name, m.why))
                };
                self.planned.push(Planned {
                    file,
                    edits,
                    kind,
                    confidence: m.confidence,
                    why,
                });
                self.params.insert(m.method, ps);
            }
            Err(reason) if is_target => return Err(RefactorError::Signature { reason }),
            Err(reason) => self.ws.note(
                file,
                span.start_byte as usize,
                format!("override {}: {reason}; change it by hand", d.name),
            ),
        }
        Ok(())
    }

    /// The edit one call site needs, or why a person must decide it.
    fn call(
        &mut self,
        file: FileId,
        call: u32,
        reaching: &workspace::Reaching,
    ) -> Result<(), RefactorError> {
        let index = self.ws.index;
        let caller = index.res.decls[reaching.caller].name.to_string();
        let Some((_, site)) = index.call_site(file, call) else {
            let at = index.res.decls[reaching.caller].span.start_byte as usize;
            self.ws.note(
                file,
                at,
                format!(
                    "{caller} uses the target without a call ripple can place (a property read, a hook): check its arguments by hand"
                ),
            );
            return Ok(());
        };
        let at = site.span.start_byte as usize;
        let Some(ps) = self.params.get(&reaching.callee) else {
            let callee = &index.res.decls[reaching.callee].name;
            self.ws.note(
                file,
                at,
                format!("in {caller}: calls {callee}, whose parameters this plan does not change"),
            );
            return Ok(());
        };
        let Some(parsed) = self.ws.parsed(file)? else {
            return Ok(());
        };
        let Some(call_node) = params::call_at(parsed, site.span) else {
            self.ws.note(
                file,
                at,
                format!(
                    "reaches the target without a call expression (a decorator, an operator) in {caller}: check how it is called by hand"
                ),
            );
            return Ok(());
        };
        let args = match params::args(parsed, call_node) {
            Ok(args) => args,
            Err(what) => {
                self.ws
                    .note(file, at, format!("{what} in {caller}: change it by hand"));
                return Ok(());
            }
        };
        let through_class = ps.bound > 0
            && !ps.classmethod
            && class_name(index, reaching.callee)
                .is_some_and(|c| params::through_class(parsed, call_node, c));
        let shape = change::CallShape {
            implicit: if through_class { 0 } else { ps.bound },
        };
        match self
            .change
            .call(self.lang, &parsed.source, ps, &args, shape)
        {
            change::CallEdit::Edits(edits) => self.planned.push(Planned {
                file,
                edits,
                kind: EditKind::Call,
                confidence: reaching.confidence,
                why: format!("call in {caller}"),
            }),
            change::CallEdit::Nothing => {}
            change::CallEdit::Hand(reason) => {
                self.ws.note(file, at, format!("in {caller}: {reason}"));
            }
        }
        Ok(())
    }

    /// What may call the target beyond the resolved sites: unresolved
    /// calls named like it, places it is handed out, its values, and (Go)
    /// the interfaces it may implement.
    fn elsewhere(
        &mut self,
        decl: &crate::model::Decl,
        members: &HashSet<DeclId>,
        covered: &HashSet<(FileId, u32)>,
    ) -> Result<(), RefactorError> {
        self.ws
            .unresolved(&self.short, covered, "change its arguments");
        self.ws.handed_out(members, |callee| {
            format!(
                "passed to `{callee}`, which ripple does not follow: where it is called, the arguments must match the new signature"
            )
        });
        let mut scanned = self.ws.files_mentioning(self.lang, &self.short)?;
        let method = decl.kind == DeclKind::Method;
        if method && self.lang == Lang::Go {
            // A method whose signature changes stops implementing the
            // interfaces that declare it.
            let short = self.short.clone();
            self.ws.interface_methods(&scanned, &short, |iface| {
                format!(
                    "{iface} declares `{short}`: if {} implements it, change this signature and every other implementation to match",
                    decl.name
                )
            })?;
        }
        // A function is referred to where its module or package is, or
        // is imported; a bare name elsewhere is another binding.
        if !method && let Some(home) = decl.file {
            scanned.retain(workspace::near_module(self.ws.index, home));
        }
        references(&mut self.ws, &scanned, &self.short, method)
    }

    /// Leave to a person the call edits nested in text another planned
    /// edit replaces.
    fn drop_nested(&mut self) {
        for (file, at, outer_at) in drop_nested(&mut self.planned) {
            let line = self
                .ws
                .files
                .get(&file)
                .and_then(Option::as_ref)
                .map_or(0, |p| LineIndex::new(&p.source).line_of(outer_at));
            self.ws.note(
                file,
                at,
                format!(
                    "a call inside another call this plan changes (line {line}): change it by hand once that one is written"
                ),
            );
        }
    }
}

fn describe(change: &Change) -> (&'static str, String) {
    match change {
        Change::Add(new) => (
            "add_param",
            match (&new.pass, new.keyword) {
                (Some(p), true) => format!("add `{}`, calls pass `{}={p}`", new.text, new.name),
                (Some(p), false) => format!("add `{}`, calls pass `{p}`", new.text),
                (None, _) => format!("add `{}`", new.text),
            },
        ),
        Change::Remove { name, .. } => ("remove_param", format!("remove `{name}`")),
        Change::Reorder { order } => (
            "reorder_params",
            format!("reorder parameters to ({})", order.join(", ")),
        ),
    }
}

/// The short name of the class a method belongs to.
fn class_name(index: &Index, method: DeclId) -> Option<&str> {
    let parent = index.res.decls[method].parent?;
    let class = &index.res.decls[parent];
    (class.kind == DeclKind::Class).then(|| class.name.rsplit('.').next().unwrap_or(&class.name))
}

/// The whole lines a hunk of `edits` spans in a file, before and after
/// (line endings as `\n`), and the id that names exactly that change.
pub(super) struct PlacedLines {
    pub(super) id: HunkId,
    pub(super) line: u32,
    pub(super) end_line: u32,
    pub(super) old_text: String,
    pub(super) new_text: String,
}

pub(super) fn place_lines(path: &str, source: &[u8], edits: &[Edit]) -> PlacedLines {
    let lines = LineIndex::new(source);
    let start = edits.iter().map(|(r, _)| r.start).min().unwrap_or(0);
    let end = edits.iter().map(|(r, _)| r.end).max().unwrap_or(0);
    let (line, end_line) = (lines.line_of(start), lines.line_of(end));
    let range = lines.text_range(line).0..lines.text_range(end_line).1;
    let old_text = String::from_utf8_lossy(&source[range.clone()]).replace("\r\n", "\n");
    let new_text = edited_text(source, range, edits).replace("\r\n", "\n");
    PlacedLines {
        id: HunkId::of(path, &format!("{start}:{end}\n{old_text}"), &new_text),
        line,
        end_line,
        old_text,
        new_text,
    }
}

/// `src[range]` with those of `edits` inside it applied.
pub(super) fn edited_text(src: &[u8], range: Range<usize>, edits: &[Edit]) -> String {
    let inside: Vec<Edit> = edits
        .iter()
        .filter(|(r, _)| r.start >= range.start && r.end <= range.end)
        .map(|(r, t)| (r.start - range.start..r.end - range.start, t.clone()))
        .collect();
    String::from_utf8_lossy(&lists::applied(&src[range], &inside)).into_owned()
}

/// Drop the call edits that touch text another planned edit replaces —
/// a call nested in another call's argument that moves or goes — and
/// return where they were: one of two edits of the same text would be
/// lost.
fn drop_nested(planned: &mut Vec<Planned>) -> Vec<(FileId, usize, usize)> {
    let span = |p: &Planned| {
        let start = p.edits.iter().map(|(r, _)| r.start).min().unwrap_or(0);
        let end = p.edits.iter().map(|(r, _)| r.end).max().unwrap_or(0);
        start..end
    };
    let clash = |a: &Planned, b: &Planned| {
        a.file == b.file
            && a.edits.iter().any(|(x, _)| {
                b.edits.iter().any(|(y, _)| {
                    (x.start < y.end && y.start < x.end)
                        || (y.is_empty() && x.start < y.start && y.start < x.end)
                        || (x.is_empty() && y.start < x.start && x.start < y.end)
                })
            })
    };
    let mut order: Vec<usize> = (0..planned.len()).collect();
    // Outer first: the wider edit keeps its place.
    order.sort_by_key(|&i| {
        let s = span(&planned[i]);
        (planned[i].file, s.start, std::cmp::Reverse(s.end))
    });
    let mut kept: Vec<usize> = Vec::new();
    let mut dropped = Vec::new();
    for i in order {
        if let Some(&k) = kept.iter().find(|&&k| clash(&planned[k], &planned[i])) {
            let at = span(&planned[i]).start;
            dropped.push((i, planned[i].file, at, span(&planned[k]).start));
        } else {
            kept.push(i);
        }
    }
    let mut out = Vec::new();
    let mut gone: Vec<usize> = dropped.iter().map(|d| d.0).collect();
    gone.sort_unstable();
    for &(_, file, at, outer_at) in &dropped {
        out.push((file, at, outer_at));
    }
    for i in gone.into_iter().rev() {
        planned.remove(i);
    }
    out
}

/// Identifiers spelled like the target that are neither its definitions
/// nor the callee of a call: function and method values, whose calls
/// ripple does not see and which must match the new signature. A method
/// is only ever reached through an attribute or selector (`x.m`), so a
/// bare name of the same spelling is another variable.
fn references(
    ws: &mut Workspace,
    files: &[FileId],
    name: &str,
    method: bool,
) -> Result<(), RefactorError> {
    for &file in files {
        let Some(parsed) = ws.parsed(file)? else {
            continue;
        };
        let mut found = Vec::new();
        for n in parsed.occurrences(name) {
            if !matches!(n.kind(), "identifier" | "field_identifier") {
                continue;
            }
            let selected = n.parent().is_some_and(|parent| {
                (parent.kind() == "attribute" && parent.child_by_field_name("attribute") == Some(n))
                    || (parent.kind() == "selector_expression"
                        && parent.child_by_field_name("field") == Some(n))
            });
            if (method && !selected) || is_callee_or_declared(n) {
                continue;
            }
            found.push(n.start_byte());
        }
        for at in found {
            ws.note(
                file,
                at,
                format!(
                    "`{name}` here is not a call (a function or method value, an import): if it means the target, what calls it must match the new signature"
                ),
            );
        }
    }
    Ok(())
}

/// Whether the name `n` is called here (`f(`, `x.f(`), declares a
/// function, parameter or import, or names a keyword argument.
fn is_callee_or_declared(n: tree_sitter::Node) -> bool {
    let mut expr = n;
    // `x.f` / `pkg.F`: the selector stands for the name.
    if let Some(parent) = n.parent()
        && matches!(parent.kind(), "attribute" | "selector_expression")
        && (parent.child_by_field_name("attribute") == Some(n)
            || parent.child_by_field_name("field") == Some(n))
    {
        expr = parent;
    }
    let Some(parent) = expr.parent() else {
        return false;
    };
    match parent.kind() {
        "call" | "call_expression" => parent.child_by_field_name("function") == Some(expr),
        "function_definition"
        | "function_declaration"
        | "method_declaration"
        | "class_definition" => parent.child_by_field_name("name") == Some(expr),
        "keyword_argument" => parent.child_by_field_name("name") == Some(expr),
        "dotted_name" | "aliased_import" | "import_from_statement" | "import_statement" => true,
        "method_elem" | "method_spec" => true,
        "parameters" | "typed_parameter" | "default_parameter" | "typed_default_parameter" => true,
        "parameter_declaration" => true,
        "decorator" => true,
        _ => false,
    }
}

/// Place the planned edits on their lines, decide selection, and record
/// each touched file's content hash.
fn place(
    ws: &Workspace,
    planned: &[Planned],
    conventions: &Conventions,
    stable_symbol: bool,
    selection: Selection,
) -> (Vec<SignatureHunk>, BTreeMap<String, u64>) {
    let mut hunks = Vec::new();
    let mut bases = BTreeMap::new();
    for p in planned {
        let Some(Some(parsed)) = ws.files.get(&p.file) else {
            continue;
        };
        if p.edits.is_empty() {
            continue;
        }
        let path = ws.path(p.file);
        bases
            .entry(path.to_owned())
            .or_insert_with(|| content_hash(&parsed.source));
        let PlacedLines {
            id,
            line,
            end_line,
            old_text,
            new_text,
        } = place_lines(path, &parsed.source, &p.edits);
        let Verdict {
            selected,
            stable,
            refused,
        } = Verdict::of(conventions, path, p.confidence, stable_symbol, selection);
        hunks.push(SignatureHunk {
            id,
            file: path.to_owned(),
            line,
            end_line,
            kind: p.kind,
            confidence: p.confidence,
            selected,
            old_text,
            new_text,
            why: p.why.clone(),
            stable,
            refused,
            edits: p.edits.clone(),
        });
    }
    hunks.sort_by(|x, y| (&x.file, x.line).cmp(&(&y.file, y.line)));
    (hunks, bases)
}

/// Write the plan's selected hunks, journaled so that `ripple undo`
/// restores the files; checked first as a rename's are (files unchanged
/// since planned, no new syntax errors), or nothing is written.
pub fn apply(root: &Path, plan: &SignaturePlan) -> Result<AppliedSignature, RefactorError> {
    let replacements = plan
        .selected()
        .flat_map(|h| {
            h.edits.iter().map(|(bytes, text)| write::Replacement {
                file: &h.file,
                bytes: bytes.clone(),
                text,
                stable: h.stable,
            })
        })
        .collect();
    let (report, _) = write::write(root, &plan.bases, replacements, &[])?;
    Ok(AppliedSignature {
        report,
        hunks: plan.selected().count(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_parameter_is_one_named_parameter_and_its_value_one_expression() {
        let ok = new_param(Lang::Python, " leeway: int = 0 ", None, false).unwrap();
        assert_eq!(
            (ok.name.as_str(), ok.has_default, ok.text.as_str()),
            ("leeway", true, "leeway: int = 0")
        );
        let typed = new_param(Lang::Python, "leeway: int", Some("cfg.x"), true).unwrap();
        assert!(!typed.has_default && typed.keyword);
        for bad in [
            "*rest",
            "**kw",
            "a, b",
            "leeway=0,",
            "class=1",
            "",
            "x: = 1",
            "/",
        ] {
            assert!(
                new_param(Lang::Python, bad, Some("1"), false).is_err(),
                "{bad}"
            );
        }
        assert!(
            new_param(Lang::Python, "leeway", None, false).is_err(),
            "no value"
        );
        for bad_expr in ["", "1,", "x=1", "*xs", "(", "a\nb"] {
            assert!(
                new_param(Lang::Python, "leeway", Some(bad_expr), false).is_err(),
                "{bad_expr}"
            );
        }
        assert_eq!(
            new_param(Lang::Go, "leeway int", Some("0"), false)
                .unwrap()
                .name,
            "leeway"
        );
        for bad in ["leeway", "a, b int", "xs ...int", "int", "func int"] {
            assert!(new_param(Lang::Go, bad, Some("0"), false).is_err(), "{bad}");
        }
        assert!(new_param(Lang::Go, "leeway int", None, false).is_err());
        assert!(new_param(Lang::Go, "leeway int", Some("0"), true).is_err());
        assert!(new_param(Lang::Go, "leeway int", Some("0,"), false).is_err());
    }
}

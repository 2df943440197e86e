//! Context packs: what a model sees for a change to one declaration. The
//! declaration in full; its direct callers as whole declarations (not whole
//! files); callers further out as signature plus the calling line; the tests
//! that reach it; the types its signature names; a one-screen summary of the
//! repository. Items are ranked, each says why it was chosen and what it
//! costs, and the pack is cut to a token budget with the cuts listed — next
//! to the token count of the whole repository, which is the case for
//! sending a pack instead of the code base.
//!
//! On request (`--similar K`, or `similar = K` in the `[context]` table of
//! `ripple.toml`) the pack also offers the K declarations most similar to
//! the target (lexical `similar` search): parallel implementations that may
//! need the same change. They are not callers, so they rank below every
//! caller and are the first to be cut.

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;

use crate::blast::DeclRef;
use crate::graph::{Direction, Graph, Reached};
use crate::index::Index;
use crate::model::Confidence;
use crate::resolve::{DeclId, FileId};
use crate::semantic::SearchIndex;
use crate::semantic::corpus::CorpusOptions;
use crate::tokens::{self, TokenCount};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemKind {
    Target,
    Summary,
    DirectCaller,
    Type,
    Test,
    IndirectCaller,
    Similar,
}

#[derive(Debug, Clone, Serialize)]
pub struct PackItem {
    pub kind: ItemKind,
    pub name: String,
    pub file: Option<String>,
    pub start_line: u32,
    pub end_line: u32,
    /// Why this item is in the pack.
    pub why: String,
    pub hop: Option<u32>,
    pub confidence: Option<Confidence>,
    pub tokens: TokenCount,
    /// The text the model sees (omitted from cut items).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text: String,
    /// Why a cut item was left out; `None` for the items sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub left_out: Option<LeftOut>,
}

/// Why a declaration related to the change was not sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LeftOut {
    /// In a file the conventions put off-limits, or one holding secrets:
    /// never sent, whatever the budget.
    OffLimits,
    /// Did not fit the token budget.
    Budget,
}

#[derive(Debug, Clone, Serialize)]
pub struct ContextPack {
    pub target: DeclRef,
    pub change: Option<String>,
    pub depth: u32,
    pub budget: TokenCount,
    pub items: Vec<PackItem>,
    /// Items that did not fit the budget (or were excluded), most important first.
    pub cut: Vec<PackItem>,
    pub tokens: TokenCount,
    pub repo_tokens: TokenCount,
    /// Pack tokens as a fraction of the whole repository's.
    pub ratio: f64,
}

pub struct PackOptions<'a> {
    pub depth: u32,
    pub budget: TokenCount,
    pub change: Option<String>,
    /// Files that must never be sent to a model (off-limits code, secrets).
    pub exclude: &'a dyn Fn(&str) -> bool,
    /// How many similar declarations to offer (0: none).
    pub similar: usize,
}

/// Build the pack for a change to `target`.
pub fn build(index: &Index, target: DeclId, opts: &PackOptions) -> ContextPack {
    let res = &index.res;
    let mut candidates: Vec<PackItem> = Vec::new();
    let mut seen: HashSet<DeclId> = HashSet::new();
    seen.insert(target);

    if let Some(item) = decl_item(
        index,
        target,
        ItemKind::Target,
        "the declaration being changed".to_owned(),
        None,
        None,
    ) {
        candidates.push(item);
    }
    let summary = repo_summary(index, target);
    candidates.push(PackItem {
        kind: ItemKind::Summary,
        name: "repository summary".to_owned(),
        file: None,
        start_line: 0,
        end_line: 0,
        why: "orientation: languages, packages, where the target lives".to_owned(),
        hop: None,
        confidence: None,
        tokens: tokens::count(&summary),
        text: summary,
        left_out: None,
    });

    let callers = index.graph.traverse(
        res,
        target,
        Direction::Callers,
        opts.depth.max(1),
        Confidence::Possible,
    );
    let mut direct: Vec<&Reached> = callers.iter().filter(|r| r.hop == 1).collect();
    // Certain callers first, tests after the code they exercise.
    direct.sort_by_key(|r| (r.confidence, res.decls[r.decl].is_test, r.decl));
    for r in direct {
        if !seen.insert(r.decl) {
            continue;
        }
        let why = format!(
            "direct caller ({}){}",
            r.confidence.name(),
            if res.decls[r.decl].is_test {
                ", a test"
            } else {
                ""
            }
        );
        let kind = if res.decls[r.decl].is_test {
            ItemKind::Test
        } else {
            ItemKind::DirectCaller
        };
        if let Some(item) = decl_item(index, r.decl, kind, why, Some(r.hop), Some(r.confidence)) {
            candidates.push(item);
        }
    }
    for t in signature_types(index, target) {
        if seen.insert(t)
            && let Some(item) = decl_item(
                index,
                t,
                ItemKind::Type,
                "a type named in the signature".to_owned(),
                None,
                None,
            )
        {
            candidates.push(item);
        }
    }
    let mut tests: Vec<Reached> = index.graph.tests_reaching(res, target, 0);
    tests.sort_by_key(|r| (r.hop, r.confidence, r.decl));
    for r in tests.iter().take(20) {
        if !seen.insert(r.decl) {
            continue;
        }
        let why = format!(
            "test reaching it in {} hops ({})",
            r.hop,
            r.confidence.name()
        );
        if let Some(item) = decl_item(
            index,
            r.decl,
            ItemKind::Test,
            why,
            Some(r.hop),
            Some(r.confidence),
        ) {
            candidates.push(item);
        }
    }
    let mut further: Vec<&Reached> = callers.iter().filter(|r| r.hop > 1).collect();
    further.sort_by_key(|r| (r.hop, r.confidence, r.decl));
    for r in further {
        if !seen.insert(r.decl) {
            continue;
        }
        if let Some(item) = caller_line_item(index, r) {
            candidates.push(item);
        }
    }

    if opts.similar > 0 {
        candidates.extend(similar_items(index, target, opts.similar, &mut seen));
    }

    // Greedy fill in rank order; the target is always sent.
    let mut items = Vec::new();
    let mut cut = Vec::new();
    let mut used = TokenCount(0);
    for mut item in candidates {
        let excluded = item.file.as_deref().is_some_and(|f| (opts.exclude)(f));
        if excluded {
            item.why = format!("{} — excluded (off-limits or secret)", item.why);
            item.text.clear();
            item.left_out = Some(LeftOut::OffLimits);
            cut.push(item);
            continue;
        }
        if item.kind == ItemKind::Target || used + item.tokens <= opts.budget {
            used += item.tokens;
            items.push(item);
        } else {
            item.text.clear();
            item.left_out = Some(LeftOut::Budget);
            cut.push(item);
        }
    }
    let repo_tokens: TokenCount = index
        .file_tokens()
        .map(|v| v.into_iter().sum())
        .unwrap_or_default();
    ContextPack {
        target: DeclRef::of(index, target),
        change: opts.change.clone(),
        depth: opts.depth,
        budget: opts.budget,
        tokens: used,
        ratio: if repo_tokens.0 > 0 {
            used.0 as f64 / repo_tokens.0 as f64
        } else {
            0.0
        },
        repo_tokens,
        items,
        cut,
    }
}

/// The source text of a declaration, read from disk.
fn decl_text(index: &Index, decl: DeclId) -> Option<(String, String)> {
    let d = &index.res.decls[decl];
    let file = index.files.get(d.file?.index())?;
    let bytes = crate::inventory::read_regular(index.root.join(&file.path)).ok()?;
    let start = (d.span.start_byte as usize).min(bytes.len());
    let end = (d.span.end_byte as usize).min(bytes.len()).max(start);
    // Start at the beginning of the line so indentation is kept.
    let line_start = bytes[..start]
        .iter()
        .rposition(|&b| b == b'\n')
        .map(|i| i + 1)
        .unwrap_or(0);
    Some((
        file.path.clone(),
        String::from_utf8_lossy(&bytes[line_start..end]).into_owned(),
    ))
}

fn decl_item(
    index: &Index,
    decl: DeclId,
    kind: ItemKind,
    why: String,
    hop: Option<u32>,
    confidence: Option<Confidence>,
) -> Option<PackItem> {
    let d = &index.res.decls[decl];
    let (path, text) = decl_text(index, decl)?;
    let text = format!(
        "# {path}:{}-{}  {}\n{text}\n",
        d.span.start_line, d.span.end_line, d.name
    );
    Some(PackItem {
        kind,
        name: d.name.to_string(),
        file: Some(path),
        start_line: d.span.start_line,
        end_line: d.span.end_line,
        why,
        hop,
        confidence,
        tokens: tokens::count(&text),
        text,
        left_out: None,
    })
}

/// The `k` declarations most similar to `target` that are not in the pack
/// already, best first.
fn similar_items(
    index: &Index,
    target: DeclId,
    k: usize,
    seen: &mut HashSet<DeclId>,
) -> Vec<PackItem> {
    let search = SearchIndex::build(index, CorpusOptions::default());
    // Callers can be similar too; ask for enough to still have k others.
    let hits = search.similar(index, target, k + seen.len());
    hits.into_iter()
        .filter(|h| seen.insert(h.decl))
        .filter_map(|h| {
            let terms: Vec<&str> = h.matched.iter().take(6).map(|m| m.term.as_str()).collect();
            let why = format!(
                "similar, score {:.2} (shared terms: {})",
                h.score,
                terms.join(", ")
            );
            decl_item(index, h.decl, ItemKind::Similar, why, None, None)
        })
        .take(k)
        .collect()
}

/// A caller two or more hops out: its signature and the line that makes the call.
fn caller_line_item(index: &Index, r: &Reached) -> Option<PackItem> {
    let d = &index.res.decls[r.decl];
    let file = index.files.get(d.file?.index())?;
    let signature = index
        .local_decl(r.decl)
        .map(|l| l.signature.clone())
        .unwrap_or_default();
    let e = &index.res.edges[r.edge as usize];
    let call_line = index
        .call_site(e.file, e.call)
        .map(|(_, c)| c.span.start_line)
        .unwrap_or(0);
    let line_text = crate::inventory::read_regular_string(index.root.join(&file.path))
        .ok()
        .and_then(|s| {
            s.lines()
                .nth(call_line.saturating_sub(1) as usize)
                .map(str::trim)
                .map(str::to_owned)
        })
        .unwrap_or_default();
    let via = &index.res.decls[r.via].name;
    let text = format!(
        "# {}:{}  {}\n{signature}\n    ...\n    {line_text}    # line {call_line}, calls {via}\n",
        file.path, d.span.start_line, d.name
    );
    Some(PackItem {
        kind: ItemKind::IndirectCaller,
        name: d.name.to_string(),
        file: Some(file.path.clone()),
        start_line: d.span.start_line,
        end_line: d.span.end_line,
        why: format!(
            "caller at hop {} ({}), via {via}",
            r.hop,
            r.confidence.name()
        ),
        hop: Some(r.hop),
        confidence: Some(r.confidence),
        tokens: tokens::count(&text),
        text,
        left_out: None,
    })
}

/// Type declarations whose names appear in the target's signature,
/// preferring the target's own package when a name is declared twice.
fn signature_types(index: &Index, target: DeclId) -> Vec<DeclId> {
    let Some(local) = index.local_decl(target) else {
        return Vec::new();
    };
    let words: HashSet<&str> = local
        .signature
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| w.chars().next().is_some_and(|c| c.is_ascii_uppercase()))
        .collect();
    let target_file = index.res.decls[target].file;
    let mut found: BTreeMap<&str, DeclId> = BTreeMap::new();
    for (i, d) in index.res.decls.iter().enumerate() {
        if !d.kind.is_type() || d.is_external() {
            continue;
        }
        let short = d.name.rsplit(['.', ')']).next().unwrap_or("");
        if let Some(&w) = words.get(short) {
            let better = match found.get(w) {
                None => true,
                Some(&prev) => d.file == target_file && index.res.decls[prev].file != target_file,
            };
            if better {
                found.insert(w, DeclId::new(i));
            }
        }
    }
    found.into_values().collect()
}

/// What both the context pack's and the review's repository summaries say:
/// the repository's name, files per language (`12 python files`) and its
/// packages by file count, largest first.
pub(crate) struct RepoShape {
    pub name: String,
    pub langs: Vec<String>,
    pub biggest: Vec<(String, usize)>,
}

pub(crate) fn repo_shape(index: &Index) -> RepoShape {
    let mut packages: BTreeMap<String, usize> = BTreeMap::new();
    let mut langs: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, f) in index.files.iter().enumerate() {
        *packages
            .entry(Graph::package_of_file(&index.res, FileId::new(i), &f.path))
            .or_default() += 1;
        *langs.entry(f.lang.name()).or_default() += 1;
    }
    let mut biggest: Vec<(String, usize)> = packages.into_iter().collect();
    biggest.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    RepoShape {
        name: index
            .root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        langs: langs
            .iter()
            .map(|(l, n)| format!("{n} {l} files"))
            .collect(),
        biggest,
    }
}

/// A short description of the repository and where the target sits in it.
fn repo_summary(index: &Index, target: DeclId) -> String {
    let res = &index.res;
    let RepoShape {
        name,
        langs,
        biggest,
    } = repo_shape(index);
    let d = &res.decls[target];
    let home = d
        .file
        .map(|f| Graph::package_of_file(res, f, &index.files[f.index()].path))
        .unwrap_or_default();
    let mut out = format!(
        "Repository: {name} ({}; {} declarations, {} call edges).\nThe target lives in package `{home}`.\nLargest packages: ",
        langs.join(", "),
        res.decls.iter().filter(|d| !d.is_external()).count(),
        res.edges.len(),
    );
    let list: Vec<String> = biggest
        .iter()
        .take(12)
        .map(|(p, n)| format!("{p} ({n} files)"))
        .collect();
    out.push_str(&list.join(", "));
    out.push('\n');
    out
}

/// The pack as the text a model reads.
pub fn render(pack: &ContextPack) -> String {
    let mut out = String::new();
    for kind in [
        ItemKind::Summary,
        ItemKind::Target,
        ItemKind::Type,
        ItemKind::DirectCaller,
        ItemKind::Test,
        ItemKind::IndirectCaller,
        ItemKind::Similar,
    ] {
        let items: Vec<&PackItem> = pack.items.iter().filter(|i| i.kind == kind).collect();
        if items.is_empty() {
            continue;
        }
        let heading = match kind {
            ItemKind::Summary => "## Repository",
            ItemKind::Target => "## The declaration to change",
            ItemKind::Type => "## Types in its signature",
            ItemKind::DirectCaller => "## Direct callers (complete)",
            ItemKind::Test => "## Tests that reach it",
            ItemKind::IndirectCaller => "## Callers further out (signature and calling line)",
            ItemKind::Similar => "## Similar declarations (not callers; may need the same change)",
        };
        out.push_str(heading);
        out.push_str("\n\n");
        for i in items {
            out.push_str(&i.text);
            out.push('\n');
        }
    }
    // Each left-out declaration under the reason it was left out, so the
    // model does not take an off-limits caller for one it may ask to see.
    for (reason, heading) in [
        (
            LeftOut::OffLimits,
            "## Not shown (off-limits or secret: never sent; do not edit)",
        ),
        (LeftOut::Budget, "## Not shown (token budget)"),
    ] {
        let names: Vec<&str> = pack
            .cut
            .iter()
            .filter(|i| i.left_out == Some(reason))
            .map(|i| i.name.as_str())
            .collect();
        if names.is_empty() {
            continue;
        }
        out.push_str(&format!(
            "{heading}\n{} related declarations: {}\n",
            names.len(),
            names
                .iter()
                .take(30)
                .copied()
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    out
}

//! Chunk planning: the review units of a repository grouped into chunks of
//! at most `budget` tokens, related code together, most important first.
//!
//! Grouping bonds units in order of how much they lose when separated:
//! first a test file with the module it tests, then files strongly coupled
//! in the call graph (a large share of either file's cross-file calls go to
//! the other), each bond only if the merged group still fits. The groups are
//! then packed in path order, so a directory stays together and a chunk
//! closes at a directory boundary when it is already half full. Each chunk
//! gets the signatures of the code outside it that it calls or is called by,
//! in the room the budget leaves.
//!
//! A chunk's token count is the count of the prompt that would be sent:
//! the prompt's pieces are counted with the tokenizer and their counts add
//! up exactly (see [`prompt::render`]).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::PathBuf;

use rayon::prelude::*;
use serde::Serialize;

use crate::conventions::Conventions;
use crate::index::Index;
use crate::model::DeclKind;
use crate::resolve::DeclId;
use crate::tokens::{self, TokenCount};

use super::ReviewError;
use super::filegraph::{self, FileGraph};
use super::prompt::{self, PromptKind};
use super::scope::{self, SkipKind, SkippedFile};
use super::units::{self, FileText, Lines, Unit};
use crate::model::FileId;

/// The share of the budget kept free of code for related signatures.
const CONTEXT_SHARE: u64 = 10;
/// At most this many related signatures per chunk: beyond it they stop
/// helping and start to read like a second chunk.
const MAX_CONTEXT_LINES: usize = 60;
/// Churn is counted over this many days of history.
pub const CHURN_DAYS: u32 = 90;

#[derive(Debug, Clone)]
pub struct PlanOptions {
    /// Most tokens one chunk's prompt may have.
    pub budget: TokenCount,
    /// Most input tokens the whole review may send (chunks beyond it are
    /// planned but listed as not covered).
    pub total_budget: Option<TokenCount>,
}

impl Default for PlanOptions {
    fn default() -> Self {
        PlanOptions {
            budget: TokenCount(8000),
            total_budget: None,
        }
    }
}

/// A file (or the part of one) in a chunk.
#[derive(Debug, Clone, Serialize)]
pub struct ChunkFile {
    pub path: String,
    /// The lines shown to the model.
    pub lines: Vec<Lines>,
    /// `[k, n]` when this is part k of a file split into n parts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub part: Option<(u32, u32)>,
    #[serde(skip)]
    pub file: FileId,
    #[serde(skip)]
    pub file_lines: u32,
}

#[derive(Debug, Clone, Serialize)]
pub struct Chunk {
    /// 1-based position in review order.
    pub id: usize,
    pub files: Vec<ChunkFile>,
    /// Tokens of the whole prompt, counted on the rendered text.
    pub tokens: TokenCount,
    /// Why these files are together.
    pub reason: String,
    /// Importance (centrality and churn, 0–1); chunks are sorted by it.
    pub score: f64,
    /// Inside the total budget.
    pub covered: bool,
    /// Related signatures from outside the chunk that are in the prompt.
    pub context_signatures: usize,
    #[serde(skip)]
    pub context: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Totals {
    /// Files the walk saw: reviewed + skipped whole (+ unchanged in a diff review).
    pub files_inventoried: usize,
    pub files_reviewed: usize,
    pub files_skipped: usize,
    /// Files cut into parts at declaration boundaries.
    pub files_split: usize,
    /// Files with no chunk inside the total budget.
    pub files_not_covered: usize,
    pub chunks: usize,
    pub chunks_covered: usize,
    pub tokens: TokenCount,
    pub tokens_covered: TokenCount,
    /// The fixed part of every prompt (instructions, summary, headings).
    pub prompt_overhead: TokenCount,
    /// Most tokens of code in one chunk (the budget less the fixed part and
    /// the share kept for related signatures); a unit up to this size is
    /// never split.
    pub code_room: TokenCount,
    pub largest_chunk: TokenCount,
}

/// Which review this is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum Mode {
    Repository,
    Diff {
        base: String,
        changed_files: usize,
        changed_declarations: usize,
        callers_in_blast_radius: usize,
    },
}

#[derive(Debug, Clone, Serialize)]
pub struct Plan {
    pub root: PathBuf,
    #[serde(flatten)]
    pub mode: Mode,
    pub budget: TokenCount,
    pub total_budget: Option<TokenCount>,
    pub chunks: Vec<Chunk>,
    pub skipped: Vec<SkippedFile>,
    pub totals: Totals,
    /// Things the reader should know about the plan's limits.
    pub notes: Vec<String>,
    /// Where the planning time went.
    pub timings_ms: PlanTimings,
    #[serde(skip)]
    pub summary: String,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct PlanTimings {
    /// Inventory, fences, reading and counting (and splitting) the code.
    pub units: u64,
    /// File graph, bonds, packing, churn and ordering.
    pub grouping: u64,
    /// Related signatures for every chunk.
    pub context: u64,
}

fn ms_since(t: std::time::Instant) -> u64 {
    t.elapsed().as_millis() as u64
}

impl Plan {
    pub fn prompt_kind(&self) -> PromptKind {
        match self.mode {
            Mode::Repository => PromptKind::Repository,
            Mode::Diff { .. } => PromptKind::Diff,
        }
    }

    /// The prompt of a chunk exactly as it is sent (files are re-read).
    pub fn prompt(&self, chunk: &Chunk) -> Result<String, ReviewError> {
        let mut blocks = Vec::with_capacity(chunk.files.len());
        for f in &chunk.files {
            let text = read_text(&self.root, &f.path)?;
            blocks.push(units::render_unit(&text, &f.path, &f.lines));
        }
        Ok(prompt::render(
            self.prompt_kind(),
            &self.summary,
            &chunk.context,
            &blocks,
        ))
    }
}

fn read_text(root: &std::path::Path, path: &str) -> Result<FileText, ReviewError> {
    crate::inventory::read_regular(root.join(path))
        .map(|b| FileText::from_bytes(&b))
        .map_err(|source| ReviewError::Read {
            path: path.to_owned(),
            source,
        })
}

/// What every plan shares before units are made: fences, the summary and
/// the room for code.
pub(crate) struct Frame {
    pub summary: String,
    pub overhead: TokenCount,
    pub code_cap: TokenCount,
}

impl Frame {
    pub(crate) fn new(
        index: &Index,
        kind: PromptKind,
        reviewed: usize,
        budget: TokenCount,
    ) -> Result<Frame, ReviewError> {
        let summary = prompt::repo_summary(index, reviewed);
        let overhead = tokens::count(&prompt::render(kind, &summary, &[], &[]));
        let reserve = budget.get() / CONTEXT_SHARE;
        let code_cap = budget.get().saturating_sub(overhead.get() + reserve);
        // Less than this and not even a short function fits.
        if code_cap < 200 {
            return Err(ReviewError::BudgetTooSmall {
                budget: budget.get(),
                overhead: overhead.get() + reserve,
            });
        }
        Ok(Frame {
            summary,
            overhead,
            code_cap: TokenCount(code_cap),
        })
    }
}

/// Plan a review of the whole repository.
pub fn plan_repository(index: &Index, opts: &PlanOptions) -> Result<Plan, ReviewError> {
    let t0 = std::time::Instant::now();
    let conventions = Conventions::load(&index.root)?;
    let scope = scope::build(index, &conventions);
    let frame = Frame::new(
        index,
        PromptKind::Repository,
        scope.files.len(),
        opts.budget,
    )?;
    let made: Vec<(Vec<Unit>, Vec<SkippedFile>)> = scope
        .files
        .par_iter()
        .map(|rf| {
            let path = &index.files[rf.file.index()].path;
            match FileText::read(index, rf.file) {
                Err(e) => (
                    Vec::new(),
                    vec![SkippedFile {
                        file: path.clone(),
                        reason: SkipKind::Walk(crate::inventory::SkipReason::Unreadable),
                        lines: None,
                        detail: Some(e.to_string()),
                    }],
                ),
                Ok(text) if text.is_empty() => (
                    Vec::new(),
                    vec![SkippedFile {
                        file: path.clone(),
                        reason: SkipKind::Empty,
                        lines: None,
                        detail: None,
                    }],
                ),
                Ok(text) => units::split_file(index, rf.file, &text, frame.code_cap),
            }
        })
        .collect();
    let mut units = Vec::new();
    let mut skipped = scope.skipped;
    for (u, s) in made {
        units.extend(u);
        skipped.extend(s);
    }
    let notes = vec![
        "Only Python and Go files are reviewed; files in other languages are listed as skipped."
            .to_owned(),
    ];
    let units_ms = ms_since(t0);
    let mut plan = assemble(
        index,
        &frame,
        units,
        skipped,
        &scope.fenced,
        HashMap::new(),
        opts,
        Mode::Repository,
        notes,
    )?;
    plan.timings_ms.units = units_ms;
    Ok(plan)
}

/// A related declaration to show as context, by priority (lower first).
#[derive(Debug, Clone)]
pub(crate) struct ContextItem {
    pub decl: DeclId,
    pub priority: u32,
    pub note: String,
}

/// Group units into chunks, order them, add context and count them.
#[allow(clippy::too_many_arguments)]
pub(crate) fn assemble(
    index: &Index,
    frame: &Frame,
    units: Vec<Unit>,
    mut skipped: Vec<SkippedFile>,
    fenced: &HashSet<FileId>,
    extra_context: HashMap<FileId, Vec<ContextItem>>,
    opts: &PlanOptions,
    mode: Mode,
    notes: Vec<String>,
) -> Result<Plan, ReviewError> {
    let mut timings = PlanTimings::default();
    let t = std::time::Instant::now();
    let graph = FileGraph::build(index);
    let groups = group(index, &graph, &units, frame.code_cap);
    let bins = pack(&units, groups, frame.code_cap);
    let churn = super::git::churn(&index.root, CHURN_DAYS);
    let importance = file_importance(index, &graph, &churn);

    let mut chunks: Vec<Chunk> = bins
        .into_iter()
        .map(|bin| {
            let mut files: Vec<ChunkFile> = bin
                .units
                .iter()
                .map(|&u| ChunkFile {
                    path: units[u].path.clone(),
                    lines: units[u].ranges.clone(),
                    part: units[u].part,
                    file: units[u].file,
                    file_lines: units[u].file_lines,
                })
                .collect();
            files.sort_by(|a, b| a.path.cmp(&b.path).then(a.lines.cmp(&b.lines)));
            let score = files
                .iter()
                .map(|f| importance[f.file.index()])
                .fold(0.0, f64::max);
            Chunk {
                id: 0,
                files,
                tokens: TokenCount(0),
                reason: bin.reason,
                score,
                covered: true,
                context_signatures: 0,
                context: Vec::new(),
            }
        })
        .collect();
    chunks.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.files[0].path.cmp(&b.files[0].path))
    });
    timings.grouping = ms_since(t);
    let t = std::time::Instant::now();
    add_context(
        index,
        frame,
        opts.budget,
        &units,
        &mut chunks,
        fenced,
        &extra_context,
    );
    timings.context = ms_since(t);
    if let Some(c) = chunks.iter().find(|c| c.tokens > opts.budget) {
        // Units are cut to the room for code and context is added only
        // within the budget, so this is a planner bug; sending the chunk
        // would break the promise the budget makes.
        return Err(ReviewError::ChunkOverBudget {
            chunk: c
                .files
                .iter()
                .map(|f| f.path.clone())
                .collect::<Vec<_>>()
                .join(", "),
            tokens: c.tokens.get(),
            budget: opts.budget.get(),
        });
    }
    let mut spent = TokenCount(0);
    let mut exhausted = false;
    for (i, c) in chunks.iter_mut().enumerate() {
        c.id = i + 1;
        if let Some(total) = opts.total_budget {
            // A strict prefix: the review covers the most important chunks
            // and says exactly where it stopped.
            if exhausted || spent + c.tokens > total {
                exhausted = true;
                c.covered = false;
                continue;
            }
        }
        spent += c.tokens;
    }
    skipped.sort_by(|a, b| a.file.cmp(&b.file).then(a.lines.cmp(&b.lines)));
    let reviewed: BTreeSet<&str> = units.iter().map(|u| u.path.as_str()).collect();
    let covered_files: HashSet<&str> = chunks
        .iter()
        .filter(|c| c.covered)
        .flat_map(|c| c.files.iter().map(|f| f.path.as_str()))
        .collect();
    // Directory entries (`vendor/`) stand for many files and are not counted.
    let files_skipped = skipped
        .iter()
        .filter(|s| s.lines.is_none() && !s.file.ends_with('/'))
        .count();
    let totals = Totals {
        files_inventoried: reviewed.len() + files_skipped,
        files_reviewed: reviewed.len(),
        files_skipped,
        files_split: units
            .iter()
            .filter(|u| u.part.is_some_and(|p| p.0 == 1))
            .count(),
        files_not_covered: reviewed
            .iter()
            .filter(|p| !covered_files.contains(*p))
            .count(),
        chunks: chunks.len(),
        chunks_covered: chunks.iter().filter(|c| c.covered).count(),
        tokens: chunks.iter().map(|c| c.tokens).sum(),
        tokens_covered: spent,
        prompt_overhead: frame.overhead,
        code_room: frame.code_cap,
        largest_chunk: chunks.iter().map(|c| c.tokens).max().unwrap_or_default(),
    };
    Ok(Plan {
        root: index.root.clone(),
        mode,
        budget: opts.budget,
        total_budget: opts.total_budget,
        chunks,
        skipped,
        totals,
        notes,
        timings_ms: timings,
        summary: frame.summary.clone(),
    })
}

/// Centrality (PageRank, 3/4) and recent churn (1/4) of each file, each
/// scaled to 0–1 by the largest value.
fn file_importance(index: &Index, graph: &FileGraph, churn: &HashMap<String, u32>) -> Vec<f64> {
    let max_rank = graph.rank.iter().copied().fold(0.0, f64::max);
    let max_churn = churn.values().copied().max().unwrap_or(0) as f64;
    index
        .files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let r = if max_rank > 0.0 {
                graph.rank[i] / max_rank
            } else {
                0.0
            };
            let c = if max_churn > 0.0 {
                churn.get(&f.path).copied().unwrap_or(0) as f64 / max_churn
            } else {
                0.0
            };
            0.75 * r + 0.25 * c
        })
        .collect()
}

/// Union-find over units, each group remembering its size and why its
/// members were bonded.
struct Groups {
    parent: Vec<usize>,
    tokens: Vec<u64>,
    reasons: Vec<Vec<String>>,
}

impl Groups {
    fn new(units: &[Unit]) -> Groups {
        Groups {
            parent: (0..units.len()).collect(),
            tokens: units.iter().map(|u| u.tokens.get()).collect(),
            reasons: vec![Vec::new(); units.len()],
        }
    }

    fn find(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }

    /// Merge when the result fits; returns whether the two are now together.
    fn bond(&mut self, a: usize, b: usize, cap: u64, reason: String) -> bool {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra == rb {
            return true;
        }
        if self.tokens[ra] + self.tokens[rb] > cap {
            return false;
        }
        self.parent[rb] = ra;
        self.tokens[ra] += self.tokens[rb];
        let moved = std::mem::take(&mut self.reasons[rb]);
        self.reasons[ra].extend(moved);
        self.reasons[ra].push(reason);
        true
    }
}

/// A coupling bond needs at least this many weighted calls…
const MIN_COUPLING_WEIGHT: f64 = 3.0;
/// …making up at least this share of the smaller side's cross-file traffic.
const MIN_COUPLING_SHARE: f64 = 0.3;

/// Bond tests with their modules, then strongly coupled files.
fn group(
    index: &Index,
    graph: &FileGraph,
    units: &[Unit],
    cap: TokenCount,
) -> Vec<(Vec<usize>, Vec<String>)> {
    let mut g = Groups::new(units);
    // Only whole files bond: a part of a split file already fills a chunk.
    let mut whole: HashMap<FileId, usize> = HashMap::new();
    for (i, u) in units.iter().enumerate() {
        if u.part.is_none() {
            whole.insert(u.file, i);
        }
    }
    let files: Vec<FileId> = {
        let mut v: Vec<FileId> = whole.keys().copied().collect();
        v.sort();
        v
    };
    for (t, m) in filegraph::test_pairs(index, graph, &files) {
        let (ut, um) = (whole[&t], whole[&m]);
        g.bond(
            ut,
            um,
            cap.get(),
            format!("{} tests {}", units[ut].path, units[um].path),
        );
    }
    let strength = graph.strength();
    let mut pairs: Vec<(f64, f64, FileId, FileId)> = Vec::new();
    for &a in &files {
        for &b in graph.out[a.index()].keys() {
            if !whole.contains_key(&b) || (graph.out[b.index()].contains_key(&a) && b < a) {
                continue;
            }
            let w = graph.weight(a, b);
            let smaller = strength[a.index()].min(strength[b.index()]);
            if w < MIN_COUPLING_WEIGHT || smaller <= 0.0 {
                continue;
            }
            let share = w / smaller;
            if share >= MIN_COUPLING_SHARE {
                pairs.push((share, w, a, b));
            }
        }
    }
    pairs.sort_by(|x, y| {
        y.0.total_cmp(&x.0)
            .then(y.1.total_cmp(&x.1))
            .then((x.2, x.3).cmp(&(y.2, y.3)))
    });
    for (_, _, a, b) in pairs {
        let (ua, ub) = (whole[&a], whole[&b]);
        let calls = graph.calls_between(a, b);
        let reason = if calls > 0 {
            format!(
                "{} and {} are coupled ({calls} call{})",
                units[ua].path,
                units[ub].path,
                if calls == 1 { "" } else { "s" }
            )
        } else {
            format!("{} imports {}", units[ua].path, units[ub].path)
        };
        g.bond(ua, ub, cap.get(), reason);
    }
    let mut by_root: HashMap<usize, Vec<usize>> = HashMap::new();
    for i in 0..units.len() {
        let r = g.find(i);
        by_root.entry(r).or_default().push(i);
    }
    let mut out: Vec<(Vec<usize>, Vec<String>)> = by_root
        .into_iter()
        .map(|(r, members)| (members, std::mem::take(&mut g.reasons[r])))
        .collect();
    out.sort_by_key(|(m, _)| m[0]);
    out
}

struct Bin {
    units: Vec<usize>,
    reason: String,
}

fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map(|(d, _)| d).unwrap_or(".")
}

/// Pack groups in path order; a chunk closes when the next group does not
/// fit, or at a directory change once it is half full.
fn pack(units: &[Unit], groups: Vec<(Vec<usize>, Vec<String>)>, cap: TokenCount) -> Vec<Bin> {
    // A group lives where its largest non-test member lives.
    let mut items: Vec<(String, Vec<usize>, Vec<String>, u64)> = groups
        .into_iter()
        .map(|(members, reasons)| {
            let home = members
                .iter()
                .max_by_key(|&&u| {
                    (
                        !filegraph::is_test_file(&units[u].path),
                        units[u].tokens,
                        std::cmp::Reverse(&units[u].path),
                    )
                })
                .map(|&u| units[u].path.clone())
                .unwrap_or_default();
            let tokens = members.iter().map(|&u| units[u].tokens.get()).sum();
            (home, members, reasons, tokens)
        })
        .collect();
    items.sort_by(|a, b| (dir_of(&a.0), &a.0, a.1.first()).cmp(&(dir_of(&b.0), &b.0, b.1.first())));
    let cap = cap.get();
    let mut bins: Vec<(Vec<usize>, Vec<String>, u64, String)> = Vec::new();
    for (home, members, reasons, tokens) in items {
        let dir = dir_of(&home).to_owned();
        let fits = bins
            .last()
            .is_some_and(|b| b.2 + tokens <= cap && (b.3 == dir || b.2 * 2 < cap));
        if fits {
            let b = bins.last_mut().expect("checked above");
            b.0.extend(members);
            b.1.extend(reasons);
            b.2 += tokens;
        } else {
            bins.push((members, reasons, tokens, dir));
        }
    }
    bins.into_iter()
        .map(|(members, reasons, _, _)| {
            let reason = describe(units, &members, &reasons);
            Bin {
                units: members,
                reason,
            }
        })
        .collect()
}

/// Why a chunk holds what it holds, in one line.
fn describe(units: &[Unit], members: &[usize], bonds: &[String]) -> String {
    let mut parts: Vec<String> = Vec::new();
    if let [only] = members
        && let Some((k, n)) = units[*only].part
    {
        let r = units[*only].ranges[0];
        return format!(
            "part {k}/{n} of {} (lines {r}), split at declaration boundaries because the file exceeds the budget",
            units[*only].path
        );
    }
    // The strongest bonds tell the story; a long tail would drown it.
    parts.extend(bonds.iter().take(3).cloned());
    if bonds.len() > 3 {
        parts.push(format!("{} more bonds", bonds.len() - 3));
    }
    let dirs: BTreeSet<&str> = members.iter().map(|&u| dir_of(&units[u].path)).collect();
    let dirs: Vec<&str> = dirs.into_iter().collect();
    match dirs.as_slice() {
        [d] => parts.push(format!("directory {d}")),
        many => {
            let shown: Vec<&str> = many.iter().take(4).copied().collect();
            let more = if many.len() > 4 {
                format!(" and {} more", many.len() - 4)
            } else {
                String::new()
            };
            parts.push(format!(
                "neighbouring directories {}{more}, packed to fill the budget",
                shown.join(", ")
            ));
        }
    }
    parts.join("; ")
}

/// Whether a declaration is worth showing as a related signature.
fn shows_as_context(kind: DeclKind) -> bool {
    matches!(
        kind,
        DeclKind::Function
            | DeclKind::Method
            | DeclKind::Class
            | DeclKind::Struct
            | DeclKind::Interface
            | DeclKind::Type
    )
}

/// For each chunk, the related declarations outside it: what its code
/// calls and what calls it, most-used first, plus any extra items (a diff
/// review's blast radius), cut to the room the budget leaves.
fn add_context(
    index: &Index,
    frame: &Frame,
    budget: TokenCount,
    units: &[Unit],
    chunks: &mut [Chunk],
    fenced: &HashSet<FileId>,
    extra: &HashMap<FileId, Vec<ContextItem>>,
) {
    // Where each file's lines went: (range, chunk).
    let mut placed: HashMap<FileId, Vec<(Lines, usize)>> = HashMap::new();
    for (ci, c) in chunks.iter().enumerate() {
        for f in &c.files {
            for &r in &f.lines {
                placed.entry(f.file).or_default().push((r, ci));
            }
        }
    }
    let chunk_of = |decl: DeclId| -> Option<usize> {
        let d = &index.res.decls[decl];
        let list = placed.get(&d.file?)?;
        list.iter()
            .find(|(r, _)| r.contains(d.span.start_line))
            .or_else(|| {
                list.iter()
                    .find(|(r, _)| r.start <= d.span.end_line && d.span.start_line <= r.end)
            })
            .map(|&(_, c)| c)
    };
    // (chunk, decl) → (calls from the chunk, calls into the chunk)
    let mut related: HashMap<(usize, DeclId), (u32, u32)> = HashMap::new();
    for e in &index.res.edges {
        let caller = &index.res.decls[e.caller];
        let callee = &index.res.decls[e.callee];
        let (Some(caller_file), Some(callee_file)) = (caller.file, callee.file) else {
            continue;
        };
        // A fenced file's signatures are its code too: the chunk beside it
        // shows neither side of such an edge.
        if fenced.contains(&caller_file) || fenced.contains(&callee_file) {
            continue;
        }
        let (a, b) = (chunk_of(e.caller), chunk_of(e.callee));
        if a == b {
            continue;
        }
        if let Some(a) = a
            && shows_as_context(callee.kind)
        {
            related.entry((a, e.callee)).or_default().0 += 1;
        }
        if let Some(b) = b
            && shows_as_context(caller.kind)
        {
            related.entry((b, e.caller)).or_default().1 += 1;
        }
    }
    let mut per_chunk: Vec<Vec<ContextItem>> = vec![Vec::new(); chunks.len()];
    for ((c, d), (calls, called_by)) in related {
        let note = match (calls, called_by) {
            (0, n) => format!("calls code here ({n}×)"),
            (n, 0) => format!("called from here ({n}×)"),
            (n, m) => format!("called from here ({n}×), calls code here ({m}×)"),
        };
        // More traffic first; priorities below 10 are for extra items.
        per_chunk[c].push(ContextItem {
            decl: d,
            priority: 10 + 1000u32.saturating_sub(calls + called_by),
            note,
        });
    }
    for (ci, c) in chunks.iter().enumerate() {
        let mut seen = HashSet::new();
        for f in &c.files {
            if seen.insert(f.file)
                && let Some(items) = extra.get(&f.file)
            {
                // A caller already in the chunk is shown in full.
                per_chunk[ci].extend(
                    items
                        .iter()
                        .filter(|i| chunk_of(i.decl) != Some(ci))
                        .filter(|i| {
                            index.res.decls[i.decl]
                                .file
                                .is_some_and(|f| !fenced.contains(&f))
                        })
                        .cloned(),
                );
            }
        }
    }
    let unit_tokens: HashMap<(FileId, &[Lines]), u64> = units
        .iter()
        .map(|u| ((u.file, u.ranges.as_slice()), u.tokens.get()))
        .collect();
    for (ci, c) in chunks.iter_mut().enumerate() {
        let items = &mut per_chunk[ci];
        items.sort_by(|a, b| {
            a.priority.cmp(&b.priority).then_with(|| {
                index.res.decls[a.decl]
                    .name
                    .cmp(&index.res.decls[b.decl].name)
            })
        });
        let code: u64 = c
            .files
            .iter()
            .map(|f| {
                unit_tokens
                    .get(&(f.file, f.lines.as_slice()))
                    .copied()
                    .unwrap_or(0)
            })
            .sum();
        let mut used = frame.overhead.get() + code;
        let mut seen = HashSet::new();
        for item in items.iter() {
            if c.context.len() >= MAX_CONTEXT_LINES {
                break;
            }
            if !seen.insert(item.decl) {
                continue;
            }
            let Some(line) = context_line(index, item) else {
                continue;
            };
            let t = tokens::count(&line).get();
            if used + t > budget.get() {
                continue;
            }
            used += t;
            c.context.push(line);
        }
        c.context_signatures = c.context.len();
        // Exact: see `prompt::render` on why counts add up.
        c.tokens = TokenCount(used);
    }
}

/// `- path:line signature  — note`
fn context_line(index: &Index, item: &ContextItem) -> Option<String> {
    let d = &index.res.decls[item.decl];
    let file = index.files.get(d.file?.index())?;
    let sig = index.local_decl(item.decl)?.signature.replace('\n', " ");
    let sig: String = if sig.chars().count() > 240 {
        sig.chars().take(240).chain("…".chars()).collect()
    } else {
        sig
    };
    Some(format!(
        "- {}:{} {}  — {}\n",
        file.path, d.span.start_line, sig, item.note
    ))
}

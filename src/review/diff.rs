//! Diff review planning: only the declarations changed since a git base,
//! with their callers in the blast radius as context — the way to review a
//! monorepo where a whole-repository review is too big.
//!
//! A changed line maps to the outermost function or method around it (a
//! nested function is reviewed inside its parent); a changed line outside
//! any function (imports, class attributes, module code) is shown with a
//! few lines around it. The changed code is grouped and packed like a
//! whole-repository review; each chunk's context lists the callers of its
//! changed declarations (signature and where they call), nearest hop first.

use std::collections::{HashMap, HashSet};

use crate::blast;
use crate::conventions::Conventions;
use crate::index::Index;
use crate::model::DeclKind;
use crate::resolve::{DeclId, FileId};

use super::ReviewError;
use super::git::{self, FileChange};
use super::plan::{self, ContextItem, Frame, Mode, Plan, PlanOptions};
use super::prompt::PromptKind;
use super::scope::{self, SkipKind, SkippedFile};
use super::units::{self, FileText, Lines, Unit};

/// Caller hops shown as context for a changed declaration.
const BLAST_DEPTH: u32 = 2;
/// Lines shown around a change outside any function.
const AROUND: u32 = 3;

/// Plan a review of what changed since `base` (working tree against it).
pub fn plan_diff(index: &Index, base: &str, opts: &PlanOptions) -> Result<Plan, ReviewError> {
    let t0 = std::time::Instant::now();
    let changes = git::changes(&index.root, base)?;
    let conventions = Conventions::load(&index.root)?;
    let scope = scope::build(index, &conventions);
    let reviewable: HashMap<&str, FileId> = scope
        .files
        .iter()
        .map(|f| (index.files[f.file.index()].path.as_str(), f.file))
        .collect();
    let frame = Frame::new(index, PromptKind::Diff, changes.len(), opts.budget)?;

    let mut units: Vec<Unit> = Vec::new();
    let mut skipped: Vec<SkippedFile> = Vec::new();
    let mut extra: HashMap<FileId, Vec<ContextItem>> = HashMap::new();
    let mut changed_decls = 0;
    let mut callers: HashSet<DeclId> = HashSet::new();
    for ch in &changes {
        let Some(&file) = reviewable.get(ch.path.as_str()) else {
            skipped.push(not_reviewed(&scope.skipped, ch));
            continue;
        };
        let text = FileText::read(index, file).map_err(|source| ReviewError::Read {
            path: ch.path.clone(),
            source,
        })?;
        let (regions, decls) = changed_regions(index, file, ch, text.len());
        changed_decls += decls.len();
        for d in decls {
            let radius = blast::compute(index, d, BLAST_DEPTH);
            let root_name = short(&index.res.decls[d].name);
            for hop in &radius.hops {
                for r in &hop.decls {
                    let Some(id) = find_decl(index, &r.decl.name, r.decl.line) else {
                        continue;
                    };
                    callers.insert(id);
                    extra.entry(file).or_default().push(ContextItem {
                        decl: id,
                        priority: hop.hop - 1,
                        note: format!(
                            "calls {} at line {} (caller hop {} of changed {root_name}, {})",
                            short(&r.via),
                            r.call_line,
                            hop.hop,
                            r.confidence.name()
                        ),
                    });
                }
            }
        }
        let unit = units::unit_of(index, file, &text, regions.clone());
        if unit.tokens <= frame.code_cap {
            units.push(unit);
            continue;
        }
        for r in regions {
            let u = units::unit_of(index, file, &text, vec![r]);
            if u.tokens <= frame.code_cap {
                units.push(u);
            } else {
                skipped.push(SkippedFile {
                    file: ch.path.clone(),
                    reason: SkipKind::OverBudget,
                    lines: Some((r.start, r.end)),
                    detail: Some(format!("a changed declaration of {} tokens", u.tokens)),
                });
            }
        }
    }
    let changed_files = changes.len();
    let notes = vec![
        format!(
            "Reviews the declarations changed since {base} (working tree, tracked files; `git add -N` includes new files) and shows their callers up to {BLAST_DEPTH} hops as context."
        ),
        format!(
            "{} reviewable files unchanged since {base} are not reviewed.",
            reviewable.len().saturating_sub(changed_files)
        ),
        "Only Python and Go files are reviewed; changed files in other languages are listed as skipped.".to_owned(),
    ];
    let mode = Mode::Diff {
        base: base.to_owned(),
        changed_files,
        changed_declarations: changed_decls,
        callers_in_blast_radius: callers.len(),
    };
    let units_ms = t0.elapsed().as_millis() as u64;
    let mut plan = plan::assemble(
        index,
        &frame,
        units,
        skipped,
        &scope.fenced,
        extra,
        opts,
        mode,
        notes,
    )?;
    plan.timings_ms.units = units_ms;
    Ok(plan)
}

fn short(name: &str) -> &str {
    blast::short_name(name)
}

fn find_decl(index: &Index, name: &str, line: u32) -> Option<DeclId> {
    index
        .res
        .decls
        .iter()
        .position(|d| &*d.name == name && d.span.start_line == line && !d.is_external())
        .map(DeclId::new)
}

/// Why a changed file is not reviewed.
fn not_reviewed(skipped: &[SkippedFile], ch: &FileChange) -> SkippedFile {
    if ch.deleted {
        return SkippedFile {
            file: ch.path.clone(),
            reason: SkipKind::Deleted,
            lines: None,
            detail: None,
        };
    }
    let listed = skipped.iter().find(|s| {
        s.file == ch.path || (s.file.ends_with('/') && ch.path.starts_with(s.file.as_str()))
    });
    match listed {
        Some(s) => SkippedFile {
            file: ch.path.clone(),
            ..s.clone()
        },
        None => SkippedFile {
            file: ch.path.clone(),
            reason: if ch.path.ends_with(".py") || ch.path.ends_with(".go") {
                SkipKind::Ignored
            } else {
                SkipKind::LanguageNotReviewed
            },
            lines: None,
            detail: None,
        },
    }
}

/// The regions to show for a file's changes and the declarations changed.
fn changed_regions(
    index: &Index,
    file: FileId,
    ch: &FileChange,
    file_lines: u32,
) -> (Vec<Lines>, Vec<DeclId>) {
    let decls = &index.files[file.index()].facts().decls;
    let base = index.res.file_base[file.index()];
    let mut lines: Vec<u32> = Vec::new();
    for r in &ch.lines {
        lines.extend(r.start..=r.end);
    }
    // After a pure deletion, the code around the gap changed meaning.
    for &l in &ch.deletions_after {
        lines.push(l.max(1));
    }
    let mut regions: Vec<Lines> = Vec::new();
    let mut changed: Vec<DeclId> = Vec::new();
    for l in lines {
        if l == 0 || l > file_lines {
            continue;
        }
        match enclosing_function(decls, l) {
            Some(i) => {
                let s = decls[i].span;
                regions.push(Lines::new(s.start_line, s.end_line.min(file_lines)));
                changed.push(DeclId(base.0 + i as u32));
            }
            None => regions.push(Lines::new(
                l.saturating_sub(AROUND).max(1),
                (l + AROUND).min(file_lines),
            )),
        }
    }
    regions.sort();
    let mut merged: Vec<Lines> = Vec::new();
    for r in regions {
        match merged.last_mut() {
            Some(m) if r.start <= m.end + 1 => m.end = m.end.max(r.end),
            _ => merged.push(r),
        }
    }
    changed.sort();
    changed.dedup();
    (merged, changed)
}

/// The outermost function or method containing `line`.
fn enclosing_function(decls: &[crate::model::LocalDecl], line: u32) -> Option<usize> {
    let callable = |k: DeclKind| {
        matches!(
            k,
            DeclKind::Function | DeclKind::Method | DeclKind::Lambda | DeclKind::Closure
        )
    };
    let mut inner = decls
        .iter()
        .enumerate()
        .filter(|(_, d)| callable(d.kind) && d.span.start_line <= line && line <= d.span.end_line)
        .min_by_key(|(_, d)| d.span.end_line - d.span.start_line)
        .map(|(i, _)| i)?;
    while let Some(p) = decls[inner].parent
        && callable(decls[p as usize].kind)
    {
        inner = p as usize;
    }
    Some(inner)
}

//! `ripple refactor`: a plan as diffs grouped by file (or one JSON
//! document), and with `--apply` the write, the refreshed index and the
//! callers after it — for `rename` and for the signature changes.

use super::*;

use ripple::refactor::signature::{self, Change, SignaturePlan};
use ripple::refactor::{self, CallerCounts, RenameHunk, RenamePlan, Selection};

pub(super) struct RenameOpts {
    pub(super) new_name: String,
    pub(super) apply: bool,
    pub(super) selection: Selection,
}

pub(super) fn cmd_rename(
    index: &Index,
    decl: DeclId,
    o: RenameOpts,
    json: bool,
    out: &mut impl Write,
) -> Result<ExitCode> {
    let root = index.root.clone();
    let conventions =
        ripple::conventions::Conventions::load(&root).context("cannot read ripple.toml")?;
    let plan = refactor::plan_rename(index, &conventions, decl, &o.new_name, o.selection)
        .with_context(|| format!("cannot rename {}", index.res.decls[decl].name))?;
    let owners: Vec<String> = ripple::conventions::Codeowners::load(&root)
        .map(|c| {
            c.owners_of_all(plan.selected().map(|h| h.file.as_str()))
                .into_iter()
                .collect()
        })
        .unwrap_or_default();
    let mut applied = None;
    let mut callers_after = None;
    if o.apply && plan.selected().next().is_some() {
        let written = refactor::apply(&root, &plan)
            .with_context(|| format!("cannot apply the rename of {}", plan.old_name))?;
        let refreshed = open(&root)?;
        callers_after = Some(callers_of_new(&refreshed, &plan));
        applied = Some(written);
    }
    if json {
        let doc = json::RenameDoc {
            target: DeclRef::of(index, decl),
            plan: &plan,
            owners: &owners,
            applied: applied.as_ref().map(|a| &a.report),
            callers_after,
        };
        print_json(out, &doc)?;
        return Ok(ExitCode::SUCCESS);
    }
    print_plan(index, decl, &plan, o.apply, out)?;
    if !owners.is_empty() {
        writeln!(
            out,
            "the selected hunks touch code owned by {}",
            owners.join(", ")
        )?;
    }
    match (&applied, o.apply) {
        (Some(a), _) => {
            writeln!(
                out,
                "applied {} to {} (undo with `ripple undo`)",
                counted(a.hunks, "hunk", "hunks"),
                counted(a.report.files.len(), "file", "files")
            )?;
            if let Some(after) = callers_after {
                writeln!(
                    out,
                    "callers of {} after the refresh: {}",
                    plan.new_qualified_name,
                    describe_counts(after)
                )?;
            }
        }
        (None, true) => writeln!(out, "nothing selected: nothing written")?,
        (None, false) => writeln!(out, "nothing written; --apply writes the selected hunks")?,
    }
    Ok(ExitCode::SUCCESS)
}

/// The callers of the renamed declarations, looked up by their new names
/// in the refreshed index.
fn callers_of_new(index: &Index, plan: &RenamePlan) -> CallerCounts {
    let members: std::collections::HashSet<DeclId> = plan
        .declarations
        .iter()
        .filter_map(|d| {
            index.res.decl_ids().find(|&id| {
                *index.res.decls[id].name == *d.new && !index.res.decls[id].is_external()
            })
        })
        .collect();
    refactor::rename::caller_counts(index, &members)
}

fn describe_counts(c: CallerCounts) -> String {
    format!(
        "{} (certain {}, likely {}, possible {})",
        c.total, c.certain, c.likely, c.possible
    )
}

fn print_plan(
    index: &Index,
    decl: DeclId,
    plan: &RenamePlan,
    applying: bool,
    out: &mut impl Write,
) -> Result<()> {
    let target = DeclRef::of(index, decl);
    writeln!(
        out,
        "rename {} ({}) → {}",
        target.name,
        heading_location(&target),
        plan.new_name
    )?;
    for d in plan.declarations.iter().skip(1) {
        writeln!(out, "  with {} → {}", d.old, d.new)?;
    }
    writeln!(out, "callers: {}", describe_counts(plan.callers))?;
    for w in &plan.warnings {
        writeln!(out, "warning: {w}")?;
    }
    let mut file: Option<&str> = None;
    for h in &plan.hunks {
        if file != Some(h.file.as_str()) {
            writeln!(out, "\n{}", h.file)?;
            file = Some(&h.file);
        }
        print_hunk(h, out)?;
    }
    if !plan.check_by_hand.is_empty() {
        writeln!(out, "\ncheck by hand ({}):", plan.check_by_hand.len())?;
        for c in &plan.check_by_hand {
            writeln!(out, "  {}:{}  {}", c.file, c.line, c.text)?;
            writeln!(out, "      {}", c.reason)?;
        }
    }
    let selected = plan.selected().count();
    let left = |c: Confidence| {
        plan.hunks
            .iter()
            .filter(|h| !h.selected && h.refused.is_none() && h.confidence == c)
            .count()
    };
    let (likely, possible) = (left(Confidence::Likely), left(Confidence::Possible));
    writeln!(
        out,
        "\n{}, {} selected{}",
        counted(plan.hunks.len(), "hunk", "hunks"),
        selected,
        if likely + possible > 0 {
            format!(
                "; unselected: {likely} likely, {possible} possible (--include-likely, --include-possible select them)"
            )
        } else {
            String::new()
        }
    )?;
    if !applying && selected == 0 {
        writeln!(out, "no hunk is selected")?;
    }
    Ok(())
}

fn print_hunk(h: &RenameHunk, out: &mut impl Write) -> Result<()> {
    let mark = if h.selected { "[x]" } else { "[ ]" };
    let status = match &h.refused {
        Some(reason) => format!("refused: {reason}"),
        None if h.stable && !h.selected => "stable: needs --allow-stable".to_owned(),
        None => h.confidence.name().to_owned(),
    };
    writeln!(
        out,
        "  {mark} {}:{}  {}  {status}  ({})",
        h.line,
        h.column,
        h.kind.name(),
        h.why
    )?;
    writeln!(out, "      -{}", h.old_text)?;
    writeln!(out, "      +{}", h.new_text)?;
    Ok(())
}

/// `ripple refactor add-param` / `remove-param` / `reorder-params`: the
/// plan as diffs grouped by file (or one JSON document), and with
/// `--apply` the write, the refreshed index and the callers after it.
pub(super) fn cmd_signature(
    index: &Index,
    decl: DeclId,
    change: &Change,
    flags: &SignatureFlags,
    json: bool,
    out: &mut impl Write,
) -> Result<ExitCode> {
    let root = index.root.clone();
    let conventions =
        ripple::conventions::Conventions::load(&root).context("cannot read ripple.toml")?;
    let name = &index.res.decls[decl].name;
    let plan = signature::plan_signature(index, &conventions, decl, change, flags.selection())
        .with_context(|| format!("cannot change the parameters of {name}"))?;
    let owners: Vec<String> = ripple::conventions::Codeowners::load(&root)
        .map(|c| {
            c.owners_of_all(plan.selected().map(|h| h.file.as_str()))
                .into_iter()
                .collect()
        })
        .unwrap_or_default();
    let mut applied = None;
    let mut callers_after = None;
    if flags.apply && plan.selected().next().is_some() {
        let written = signature::apply(&root, &plan)
            .with_context(|| format!("cannot apply the change to {name}"))?;
        let refreshed = open(&root)?;
        let members: std::collections::HashSet<DeclId> = plan
            .declarations
            .iter()
            .filter_map(|d| {
                refreshed.res.decl_ids().find(|&id| {
                    *refreshed.res.decls[id].name == **d && !refreshed.res.decls[id].is_external()
                })
            })
            .collect();
        callers_after = Some(refactor::rename::caller_counts(&refreshed, &members));
        applied = Some(written);
    }
    if json {
        let doc = json::SignatureDoc {
            target: DeclRef::of(index, decl),
            plan: &plan,
            owners: &owners,
            applied: applied.as_ref().map(|a| &a.report),
            callers_after,
        };
        print_json(out, &doc)?;
        return Ok(ExitCode::SUCCESS);
    }
    print_signature_plan(index, decl, &plan, flags.apply, out)?;
    if !owners.is_empty() {
        writeln!(
            out,
            "the selected hunks touch code owned by {}",
            owners.join(", ")
        )?;
    }
    match (&applied, flags.apply) {
        (Some(a), _) => {
            writeln!(
                out,
                "applied {} to {} (undo with `ripple undo`)",
                counted(a.hunks, "hunk", "hunks"),
                counted(a.report.files.len(), "file", "files")
            )?;
            if let Some(after) = callers_after {
                writeln!(
                    out,
                    "callers of {} after the refresh: {}",
                    index.res.decls[decl].name,
                    describe_counts(after)
                )?;
            }
        }
        (None, true) => writeln!(out, "nothing selected: nothing written")?,
        (None, false) => writeln!(out, "nothing written; --apply writes the selected hunks")?,
    }
    Ok(ExitCode::SUCCESS)
}

fn print_signature_plan(
    index: &Index,
    decl: DeclId,
    plan: &SignaturePlan,
    applying: bool,
    out: &mut impl Write,
) -> Result<()> {
    let target = DeclRef::of(index, decl);
    writeln!(
        out,
        "{} ({}): {}",
        target.name,
        heading_location(&target),
        plan.change
    )?;
    writeln!(
        out,
        "  {} → {}",
        plan.signature_before, plan.signature_after
    )?;
    for d in plan.declarations.iter().skip(1) {
        writeln!(out, "  with {d}")?;
    }
    writeln!(out, "callers: {}", describe_counts(plan.callers))?;
    for n in &plan.notes {
        writeln!(out, "note: {n}")?;
    }
    for w in &plan.warnings {
        writeln!(out, "warning: {w}")?;
    }
    let mut file: Option<&str> = None;
    for h in &plan.hunks {
        if file != Some(h.file.as_str()) {
            writeln!(out, "\n{}", h.file)?;
            file = Some(&h.file);
        }
        let mark = if h.selected { "[x]" } else { "[ ]" };
        let status = match &h.refused {
            Some(reason) => format!("refused: {reason}"),
            None if h.stable && !h.selected => "stable: needs --allow-stable".to_owned(),
            None => h.confidence.name().to_owned(),
        };
        let lines = if h.end_line > h.line {
            format!("{}-{}", h.line, h.end_line)
        } else {
            h.line.to_string()
        };
        writeln!(
            out,
            "  {mark} {lines}  {}  {status}  ({})",
            h.kind.name(),
            h.why
        )?;
        for l in h.old_text.lines() {
            writeln!(out, "      -{l}")?;
        }
        for l in h.new_text.lines() {
            writeln!(out, "      +{l}")?;
        }
    }
    if !plan.check_by_hand.is_empty() {
        writeln!(out, "\ncheck by hand ({}):", plan.check_by_hand.len())?;
        for c in &plan.check_by_hand {
            writeln!(out, "  {}:{}  {}", c.file, c.line, c.text)?;
            writeln!(out, "      {}", c.reason)?;
        }
    }
    let selected = plan.selected().count();
    let left = |c: Confidence| {
        plan.hunks
            .iter()
            .filter(|h| !h.selected && h.refused.is_none() && h.confidence == c)
            .count()
    };
    let (likely, possible) = (left(Confidence::Likely), left(Confidence::Possible));
    writeln!(
        out,
        "\n{}, {} selected{}",
        counted(plan.hunks.len(), "hunk", "hunks"),
        selected,
        if likely + possible > 0 {
            format!(
                "; unselected: {likely} likely, {possible} possible (--include-likely, --include-possible select them)"
            )
        } else {
            String::new()
        }
    )?;
    if !applying && selected == 0 {
        writeln!(out, "no hunk is selected")?;
    }
    Ok(())
}

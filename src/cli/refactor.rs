//! `ripple refactor`: a plan as diffs grouped by file (or one JSON
//! document), and with `--apply` the write, the refreshed index and the
//! callers after it — for `rename`, the signature changes and `move`,
//! which share the hunk marks, the check-by-hand list, the summary and
//! the outcome lines.

use super::*;

use ripple::refactor::relocate::{self, MovePlan};
use ripple::refactor::signature::{self, Change, SignaturePlan};
use ripple::refactor::{self, CallerCounts, CheckByHand, Selection};

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
    let owners = owners_of(&root, plan.selected().map(|h| h.file.as_str()));
    let mut applied = None;
    let mut callers_after = None;
    if o.apply && plan.selected().next().is_some() {
        let written = refactor::apply(&root, &plan)
            .with_context(|| format!("cannot apply the rename of {}", plan.old_name))?;
        let refreshed = open(&root)?;
        callers_after = Some(callers_of(
            &refreshed,
            plan.declarations.iter().map(|d| d.new.as_str()),
        ));
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
        writeln!(
            out,
            "  {} {}:{}  {}  {}  ({})",
            mark(h.selected),
            h.line,
            h.column,
            h.kind.name(),
            status(h.selected, h.stable, h.refused.as_deref(), h.confidence),
            h.why
        )?;
        writeln!(out, "      -{}", h.old_text)?;
        writeln!(out, "      +{}", h.new_text)?;
    }
    print_check_by_hand(&plan.check_by_hand, out)?;
    print_summary(
        plan.hunks
            .iter()
            .map(|h| (h.selected, h.refused.is_some(), h.confidence)),
        o.apply,
        out,
    )?;
    print_outcome(
        &owners,
        applied.as_ref().map(|a| (a.hunks, a.report.files.len())),
        o.apply,
        callers_after.map(|c| (plan.new_qualified_name.as_str(), c)),
        out,
    )?;
    Ok(ExitCode::SUCCESS)
}

/// `ripple refactor add-param` / `remove-param` / `reorder-params`.
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
    let owners = owners_of(&root, plan.selected().map(|h| h.file.as_str()));
    let mut applied = None;
    let mut callers_after = None;
    if flags.apply && plan.selected().next().is_some() {
        let written = signature::apply(&root, &plan)
            .with_context(|| format!("cannot apply the change to {name}"))?;
        let refreshed = open(&root)?;
        callers_after = Some(callers_of(
            &refreshed,
            plan.declarations.iter().map(String::as_str),
        ));
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
    print_signature_plan(index, decl, &plan, out)?;
    print_check_by_hand(&plan.check_by_hand, out)?;
    print_summary(
        plan.hunks
            .iter()
            .map(|h| (h.selected, h.refused.is_some(), h.confidence)),
        flags.apply,
        out,
    )?;
    print_outcome(
        &owners,
        applied.as_ref().map(|a| (a.hunks, a.report.files.len())),
        flags.apply,
        callers_after.map(|c| (&**name, c)),
        out,
    )?;
    Ok(ExitCode::SUCCESS)
}

/// `ripple refactor move`.
pub(super) fn cmd_move(
    index: &Index,
    decl: DeclId,
    dest: &str,
    flags: &SignatureFlags,
    json: bool,
    out: &mut impl Write,
) -> Result<ExitCode> {
    let root = index.root.clone();
    let conventions =
        ripple::conventions::Conventions::load(&root).context("cannot read ripple.toml")?;
    let name = &index.res.decls[decl].name;
    let plan = relocate::plan_move(index, &conventions, decl, dest, flags.selection())
        .with_context(|| format!("cannot move {name} to {dest}"))?;
    let owners = owners_of(&root, plan.selected().map(|h| h.file.as_str()));
    let mut applied = None;
    let mut callers_after = None;
    if flags.apply && plan.selected().next().is_some() {
        let written = relocate::apply(&root, &plan)
            .with_context(|| format!("cannot apply the move of {name}"))?;
        let refreshed = open(&root)?;
        callers_after = Some(callers_of(
            &refreshed,
            std::iter::once(plan.new_qualified_name.as_str()),
        ));
        applied = Some(written);
    }
    if json {
        let doc = json::MoveDoc {
            target: DeclRef::of(index, decl),
            plan: &plan,
            owners: &owners,
            applied: applied.as_ref().map(|a| &a.report),
            callers_after,
        };
        print_json(out, &doc)?;
        return Ok(ExitCode::SUCCESS);
    }
    print_move_plan(index, decl, &plan, out)?;
    print_check_by_hand(&plan.check_by_hand, out)?;
    print_summary(
        plan.hunks
            .iter()
            .map(|h| (h.selected, h.refused.is_some(), h.confidence)),
        flags.apply,
        out,
    )?;
    print_outcome(
        &owners,
        applied.as_ref().map(|a| (a.hunks, a.report.files.len())),
        flags.apply,
        callers_after.map(|c| (plan.new_qualified_name.as_str(), c)),
        out,
    )?;
    Ok(ExitCode::SUCCESS)
}

fn print_move_plan(
    index: &Index,
    decl: DeclId,
    plan: &MovePlan,
    out: &mut impl Write,
) -> Result<()> {
    let target = DeclRef::of(index, decl);
    writeln!(
        out,
        "move {} {} ({}) → {} ({}{})",
        plan.kind,
        target.name,
        heading_location(&target),
        plan.new_qualified_name,
        plan.to_file,
        if plan.creates_file {
            ", a new file"
        } else {
            ""
        }
    )?;
    writeln!(out, "callers: {}", describe_counts(plan.callers))?;
    for n in &plan.notes {
        writeln!(out, "note: {n}")?;
    }
    for w in &plan.warnings {
        writeln!(out, "warning: {w}")?;
    }
    print_line_hunks(
        plan.hunks.iter().map(|h| LineHunk {
            file: &h.file,
            lines: if h.new_file {
                "new file".to_owned()
            } else {
                line_range(h.line, h.end_line)
            },
            selected: h.selected,
            kind: h.kind.name(),
            status: status(h.selected, h.stable, h.refused.as_deref(), h.confidence),
            why: &h.why,
            old_text: &h.old_text,
            new_text: &h.new_text,
        }),
        out,
    )
}

/// One hunk of lines as the plans print it.
struct LineHunk<'a> {
    file: &'a str,
    lines: String,
    selected: bool,
    kind: &'static str,
    status: String,
    why: &'a str,
    old_text: &'a str,
    new_text: &'a str,
}

/// Hunks grouped under their file: mark, lines, kind, status and why,
/// then the lines before (-) and after (+).
fn print_line_hunks<'a>(
    hunks: impl Iterator<Item = LineHunk<'a>>,
    out: &mut impl Write,
) -> Result<()> {
    let mut file: Option<&str> = None;
    for h in hunks {
        if file != Some(h.file) {
            writeln!(out, "\n{}", h.file)?;
            file = Some(h.file);
        }
        writeln!(
            out,
            "  {} {}  {}  {}  ({})",
            mark(h.selected),
            h.lines,
            h.kind,
            h.status,
            h.why
        )?;
        for l in h.old_text.lines() {
            writeln!(out, "      -{l}")?;
        }
        for l in h.new_text.lines() {
            writeln!(out, "      +{l}")?;
        }
    }
    Ok(())
}

fn line_range(line: u32, end_line: u32) -> String {
    if end_line > line {
        format!("{line}-{end_line}")
    } else {
        line.to_string()
    }
}

fn print_signature_plan(
    index: &Index,
    decl: DeclId,
    plan: &SignaturePlan,
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
    print_line_hunks(
        plan.hunks.iter().map(|h| LineHunk {
            file: &h.file,
            lines: line_range(h.line, h.end_line),
            selected: h.selected,
            kind: h.kind.name(),
            status: status(h.selected, h.stable, h.refused.as_deref(), h.confidence),
            why: &h.why,
            old_text: &h.old_text,
            new_text: &h.new_text,
        }),
        out,
    )
}

/// The CODEOWNERS owners of `files`; none without a CODEOWNERS file.
fn owners_of<'a>(root: &std::path::Path, files: impl Iterator<Item = &'a str>) -> Vec<String> {
    ripple::conventions::Codeowners::load(root)
        .map(|c| c.owners_of_all(files).into_iter().collect())
        .unwrap_or_default()
}

/// The callers of the declarations named `names`, looked up in a
/// refreshed index (their ids are new).
fn callers_of<'a>(index: &Index, names: impl Iterator<Item = &'a str>) -> CallerCounts {
    let members: std::collections::HashSet<DeclId> = names
        .filter_map(|name| {
            index.res.decl_ids().find(|&id| {
                *index.res.decls[id].name == *name && !index.res.decls[id].is_external()
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

fn mark(selected: bool) -> &'static str {
    if selected { "[x]" } else { "[ ]" }
}

/// Why a hunk is or is not selected, in a word or a phrase.
fn status(selected: bool, stable: bool, refused: Option<&str>, confidence: Confidence) -> String {
    match refused {
        Some(reason) => format!("refused: {reason}"),
        None if stable && !selected => "stable: needs --allow-stable".to_owned(),
        None => confidence.name().to_owned(),
    }
}

fn print_check_by_hand(check: &[CheckByHand], out: &mut impl Write) -> Result<()> {
    if check.is_empty() {
        return Ok(());
    }
    writeln!(out, "\ncheck by hand ({}):", check.len())?;
    for c in check {
        writeln!(out, "  {}:{}  {}", c.file, c.line, c.text)?;
        writeln!(out, "      {}", c.reason)?;
    }
    Ok(())
}

/// How many hunks, how many selected, and which confidences wait
/// unselected; each hunk as (selected, refused, confidence).
fn print_summary(
    hunks: impl Iterator<Item = (bool, bool, Confidence)>,
    applying: bool,
    out: &mut impl Write,
) -> Result<()> {
    let (mut total, mut selected, mut likely, mut possible) = (0, 0, 0, 0);
    for (is_selected, refused, confidence) in hunks {
        total += 1;
        if is_selected {
            selected += 1;
        } else if !refused {
            match confidence {
                Confidence::Likely => likely += 1,
                Confidence::Possible => possible += 1,
                Confidence::Certain => {}
            }
        }
    }
    writeln!(
        out,
        "\n{}, {} selected{}",
        counted(total, "hunk", "hunks"),
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

/// The owners line, then what `--apply` wrote (hunks, files) and the
/// callers after the refresh, or why nothing was written.
fn print_outcome(
    owners: &[String],
    applied: Option<(usize, usize)>,
    applying: bool,
    callers_after: Option<(&str, CallerCounts)>,
    out: &mut impl Write,
) -> Result<()> {
    if !owners.is_empty() {
        writeln!(
            out,
            "the selected hunks touch code owned by {}",
            owners.join(", ")
        )?;
    }
    match (applied, applying) {
        (Some((hunks, files)), _) => {
            writeln!(
                out,
                "applied {} to {} (undo with `ripple undo`)",
                counted(hunks, "hunk", "hunks"),
                counted(files, "file", "files")
            )?;
            if let Some((name, after)) = callers_after {
                writeln!(
                    out,
                    "callers of {name} after the refresh: {}",
                    describe_counts(after)
                )?;
            }
        }
        (None, true) => writeln!(out, "nothing selected: nothing written")?,
        (None, false) => writeln!(out, "nothing written; --apply writes the selected hunks")?,
    }
    Ok(())
}

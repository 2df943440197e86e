//! Reports: the plan of a dry run (text or JSON), and the result of a run
//! as Markdown for people, JSON for programs and SARIF 2.1.0 for code
//! scanning (GitHub shows it on pull requests). Every report carries the
//! same figures: files reviewed and skipped, chunks, tokens in and out, an
//! approximate cost, wall time and findings per severity.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::Serialize;
use serde_json::{Value, json};

use crate::tokens::TokenCount;

use super::cost::{self, ASSUMED_OUTPUT_PER_CHUNK};
use super::findings::{Finding, Severity};
use super::plan::{Mode, Plan};
use super::runner::{ChunkStatus, ReviewRun};
use super::units::{FileText, Lines};

#[derive(Debug, Clone, Serialize)]
pub struct Figures {
    pub files_reviewed: usize,
    pub files_skipped: usize,
    pub files_not_covered: usize,
    pub chunks: usize,
    pub chunks_reviewed: usize,
    pub chunks_truncated: usize,
    pub chunks_unreadable: usize,
    pub chunks_failed: usize,
    pub chunks_not_covered: usize,
    pub tokens_in: TokenCount,
    pub tokens_out: TokenCount,
    /// Approximate, from list prices.
    pub cost_usd: Vec<cost::Estimate>,
    pub wall_ms: u64,
    pub findings: BTreeMap<Severity, usize>,
    pub malformed_findings: usize,
    pub dropped_unknown_file: usize,
    pub dropped_bad_line: usize,
    pub merged_duplicates: usize,
}

pub fn figures(plan: &Plan, run: &ReviewRun) -> Figures {
    let mut by_sev: BTreeMap<Severity, usize> = Severity::ALL.iter().map(|&s| (s, 0)).collect();
    for f in &run.findings {
        *by_sev.entry(f.severity).or_default() += 1;
    }
    Figures {
        files_reviewed: plan.totals.files_reviewed,
        files_skipped: plan.totals.files_skipped,
        files_not_covered: plan.totals.files_not_covered,
        chunks: plan.chunks.len(),
        chunks_reviewed: run.count(|s| matches!(s, ChunkStatus::Reviewed)),
        chunks_truncated: run.count(|s| matches!(s, ChunkStatus::Truncated)),
        chunks_unreadable: run.count(|s| matches!(s, ChunkStatus::Unreadable)),
        chunks_failed: run.count(|s| matches!(s, ChunkStatus::Failed(_))),
        chunks_not_covered: plan.chunks.iter().filter(|c| !c.covered).count(),
        tokens_in: run.input_tokens,
        tokens_out: run.output_tokens,
        cost_usd: cost::estimate(run.input_tokens, run.output_tokens),
        wall_ms: run.wall_ms,
        findings: by_sev,
        malformed_findings: run.malformed,
        dropped_unknown_file: run.dropped.unknown_file,
        dropped_bad_line: run.dropped.bad_line,
        merged_duplicates: run.merged,
    }
}

fn not_covered(plan: &Plan) -> Vec<Value> {
    plan.chunks
        .iter()
        .filter(|c| !c.covered)
        .map(|c| json!({"chunk": c.id, "tokens": c.tokens, "files": c.files}))
        .collect()
}

/// The run as one JSON document.
pub fn json(plan: &Plan, run: &ReviewRun) -> Value {
    json!({
        "root": plan.root.display().to_string(),
        "mode": plan.mode,
        "figures": figures(plan, run),
        "findings": run.findings,
        "chunks": run.chunks,
        "not_covered": not_covered(plan),
        "skipped": plan.skipped,
        "notes": plan.notes,
    })
}

/// Up to ten lines of the code a finding points at.
fn excerpt(plan: &Plan, f: &Finding) -> Option<String> {
    let bytes = crate::inventory::read_regular(plan.root.join(&f.file)).ok()?;
    let text = FileText::from_bytes(&bytes);
    let end = f.end_line.min(f.start_line + 9);
    let lines = text.excerpt(Lines::new(f.start_line, end));
    if lines.is_empty() {
        return None;
    }
    let width = end.to_string().len();
    let mut out = String::new();
    for (n, l) in lines {
        let _ = writeln!(out, "{n:>width$} | {l}");
    }
    Some(out)
}

fn lang_hint(path: &str) -> &'static str {
    if path.ends_with(".py") {
        "python"
    } else if path.ends_with(".go") {
        "go"
    } else {
        ""
    }
}

fn location(f: &Finding) -> String {
    if f.start_line == f.end_line {
        format!("{}:{}", f.file, f.start_line)
    } else {
        format!("{}:{}-{}", f.file, f.start_line, f.end_line)
    }
}

/// The run as Markdown: summary, figures, findings by severity with code.
pub fn markdown(plan: &Plan, run: &ReviewRun) -> String {
    let fig = figures(plan, run);
    let mut out = String::new();
    let what = match &plan.mode {
        Mode::Repository => "the whole repository".to_owned(),
        Mode::Diff { base, .. } => format!("changes since `{base}`"),
    };
    let _ = writeln!(out, "# Review of {} — {what}\n", plan.root.display());
    let counts: Vec<String> = Severity::ALL
        .iter()
        .map(|s| format!("{} {}", fig.findings[s], s.name()))
        .collect();
    let _ = writeln!(
        out,
        "**{} findings** ({}).\n",
        run.findings.len(),
        counts.join(", ")
    );
    let _ = writeln!(out, "| figure | value |\n|---|---|");
    let rows: Vec<(&str, String)> = vec![
        ("files reviewed", fig.files_reviewed.to_string()),
        ("files skipped", fig.files_skipped.to_string()),
        (
            "files not covered (total budget)",
            fig.files_not_covered.to_string(),
        ),
        (
            "chunks reviewed / truncated / unreadable / failed / not covered",
            format!(
                "{} / {} / {} / {} / {}",
                fig.chunks_reviewed,
                fig.chunks_truncated,
                fig.chunks_unreadable,
                fig.chunks_failed,
                fig.chunks_not_covered
            ),
        ),
        (
            "tokens in / out",
            format!("{} / {}", fig.tokens_in, fig.tokens_out),
        ),
        (
            "cost (approximate, list prices)",
            fig.cost_usd
                .iter()
                .map(|e| format!("{} ${:.2}", e.model, e.usd))
                .collect::<Vec<_>>()
                .join(" · "),
        ),
        ("wall time", format!("{:.1} s", fig.wall_ms as f64 / 1000.0)),
        (
            "findings dropped (malformed / unknown file / bad line) · merged",
            format!(
                "{} / {} / {} · {}",
                fig.malformed_findings,
                fig.dropped_unknown_file,
                fig.dropped_bad_line,
                fig.merged_duplicates
            ),
        ),
    ];
    for (k, v) in rows {
        let _ = writeln!(out, "| {k} | {v} |");
    }
    for sev in Severity::ALL {
        let list: Vec<&Finding> = run.findings.iter().filter(|f| f.severity == sev).collect();
        if list.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n## {} ({})\n", capitalized(sev.name()), list.len());
        for f in list {
            let _ = writeln!(
                out,
                "### `{}` — {} (confidence {:.0}%)\n",
                location(f),
                f.category,
                f.confidence * 100.0
            );
            let _ = writeln!(out, "{}\n", f.message);
            if let Some(s) = &f.suggestion {
                let _ = writeln!(out, "*Suggestion:* {s}\n");
            }
            if let Some(code) = excerpt(plan, f) {
                let _ = writeln!(out, "```{}\n{code}```\n", lang_hint(&f.file));
            }
        }
    }
    let failed: Vec<String> = run
        .chunks
        .iter()
        .filter_map(|c| match &c.status {
            ChunkStatus::Failed(e) => Some(format!("- chunk {}: {e}", c.chunk)),
            ChunkStatus::Unreadable => Some(format!(
                "- chunk {}: the reply held no readable findings",
                c.chunk
            )),
            _ => None,
        })
        .collect();
    if !failed.is_empty() {
        let _ = writeln!(out, "\n## Chunks without a review\n\n{}", failed.join("\n"));
    }
    let uncovered: Vec<String> = plan
        .chunks
        .iter()
        .filter(|c| !c.covered)
        .flat_map(|c| c.files.iter().map(|f| format!("- {}", f.path)))
        .collect();
    if !uncovered.is_empty() {
        let _ = writeln!(
            out,
            "\n## Not covered (total budget ran out)\n\n{}",
            uncovered.join("\n")
        );
    }
    if !plan.notes.is_empty() {
        let _ = writeln!(out, "\n## Notes\n");
        for n in &plan.notes {
            let _ = writeln!(out, "- {n}");
        }
    }
    out
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// SARIF levels: critical and major are errors, minor a warning, nit a note.
fn level(s: Severity) -> &'static str {
    match s {
        Severity::Critical | Severity::Major => "error",
        Severity::Minor => "warning",
        Severity::Nit => "note",
    }
}

/// Chunks the model did not fully review, as SARIF notifications: a code
/// scanning view shows only results, so without these a partial review
/// would look like a clean one.
fn notifications(run: &ReviewRun) -> Vec<Value> {
    run.chunks
        .iter()
        .filter_map(|c| {
            let (level, text) = match &c.status {
                ChunkStatus::Reviewed => return None,
                ChunkStatus::Failed(e) => ("error", format!("chunk {} was not reviewed: {e}", c.chunk)),
                ChunkStatus::Unreadable => (
                    "error",
                    format!("chunk {} was not reviewed: the reply held no readable findings", c.chunk),
                ),
                ChunkStatus::Truncated => (
                    "warning",
                    format!(
                        "chunk {}: the reply stopped at the output limit; findings after the cut are missing",
                        c.chunk
                    ),
                ),
            };
            Some(json!({"level": level, "message": {"text": text}}))
        })
        .collect()
}

/// The run as a SARIF 2.1.0 log. One rule per finding category. Paths are
/// made relative to the git work tree when the review root is inside one,
/// because code scanning resolves them against the repository root.
pub fn sarif(plan: &Plan, run: &ReviewRun) -> Value {
    let prefix = super::git::prefix(&plan.root).unwrap_or_default();
    let mut categories: Vec<&str> = run.findings.iter().map(|f| f.category.as_str()).collect();
    categories.sort();
    categories.dedup();
    let rules: Vec<Value> = categories
        .iter()
        .map(|c| {
            json!({
                "id": format!("ripple/{c}"),
                "name": c,
                "shortDescription": {"text": format!("LLM review finding: {c}")},
                "defaultConfiguration": {"level": "warning"},
            })
        })
        .collect();
    let results: Vec<Value> = run
        .findings
        .iter()
        .map(|f| {
            let rule = categories
                .iter()
                .position(|c| *c == f.category)
                .unwrap_or(0);
            let mut text = f.message.clone();
            if let Some(s) = &f.suggestion {
                text.push_str("\nSuggestion: ");
                text.push_str(s);
            }
            json!({
                "ruleId": format!("ripple/{}", f.category),
                "ruleIndex": rule,
                "level": level(f.severity),
                "message": {"text": text},
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": {"uri": format!("{prefix}{}", f.file)},
                        "region": {"startLine": f.start_line, "endLine": f.end_line},
                    }
                }],
                "partialFingerprints": {
                    "rippleFinding/v1": format!("{:016x}", crate::model::content_hash(
                        format!("{}\n{}\n{}", f.file, f.category, f.message).as_bytes()))
                },
                "properties": {
                    "severity": f.severity.name(),
                    "confidence": f.confidence,
                    "chunks": f.chunks,
                },
            })
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "ripple",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://github.com/ripple-review/ripple",
                "rules": rules,
            }},
            "results": results,
            "invocations": [{
                // As the exit code: any chunk not fully reviewed fails the run.
                "executionSuccessful": run.chunks.iter().all(|c| c.status == ChunkStatus::Reviewed),
                "toolExecutionNotifications": notifications(run),
            }],
            "properties": {"figures": figures(plan, run)},
        }]
    })
}

/// The dry-run plan as one JSON document.
pub fn plan_json(plan: &Plan, elapsed_ms: u64) -> Value {
    let output = TokenCount(ASSUMED_OUTPUT_PER_CHUNK * plan.totals.chunks_covered as u64);
    json!({
        "root": plan.root.display().to_string(),
        "mode": plan.mode,
        "budget": plan.budget,
        "total_budget": plan.total_budget,
        "chunks": plan.chunks,
        "skipped": plan.skipped,
        "totals": plan.totals,
        "cost_estimate": {
            "approximate": true,
            "input_tokens": plan.totals.tokens_covered,
            "assumed_output_tokens": output,
            "models": cost::estimate(plan.totals.tokens_covered, output),
        },
        "notes": plan.notes,
        "timings_ms": plan.timings_ms,
        "elapsed_ms": elapsed_ms,
    })
}

/// The dry-run plan for people.
pub fn plan_text(plan: &Plan, elapsed_ms: u64) -> String {
    let mut out = String::new();
    let what = match &plan.mode {
        Mode::Repository => "whole repository".to_owned(),
        Mode::Diff {
            base,
            changed_files,
            changed_declarations,
            callers_in_blast_radius,
        } => format!(
            "changes since {base}: {changed_files} files, {changed_declarations} declarations, {callers_in_blast_radius} callers in the blast radius"
        ),
    };
    let _ = writeln!(
        out,
        "review plan for {} — {what}\nbudget {} tokens per chunk{}",
        plan.root.display(),
        plan.budget,
        plan.total_budget
            .map(|t| format!(", {t} in total"))
            .unwrap_or_default()
    );
    for c in &plan.chunks {
        let files: Vec<String> = c
            .files
            .iter()
            .take(8)
            .map(|f| match f.part {
                Some((k, n)) => format!("{} [{}/{} lines {}]", f.path, k, n, f.lines[0]),
                None if f.lines.len() > 1
                    || f.lines
                        .first()
                        .is_some_and(|l| l.start > 1 || l.end < f.file_lines) =>
                {
                    let r: Vec<String> = f.lines.iter().map(|l| l.to_string()).collect();
                    format!("{} [lines {}]", f.path, r.join(","))
                }
                None => f.path.clone(),
            })
            .collect();
        let more = if c.files.len() > 8 {
            format!(" +{} more", c.files.len() - 8)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "{}chunk {:>4}  {:>6} tokens  {} file{}  {}{more}\n             why: {}",
            if c.covered { "" } else { "-" },
            c.id,
            c.tokens.get(),
            c.files.len(),
            if c.files.len() == 1 { " " } else { "s" },
            files.join(", "),
            c.reason
        );
    }
    let mut by_reason: BTreeMap<&str, usize> = BTreeMap::new();
    for s in &plan.skipped {
        *by_reason.entry(s.reason.describe()).or_default() += 1;
    }
    if !plan.skipped.is_empty() {
        let parts: Vec<String> = by_reason.iter().map(|(r, n)| format!("{n} {r}")).collect();
        let _ = writeln!(
            out,
            "skipped {}: {} (`--json` lists each with its reason)",
            plan.skipped.len(),
            parts.join("; ")
        );
    }
    let t = &plan.totals;
    let _ = writeln!(
        out,
        "totals: {} files reviewed ({} split at declaration boundaries) in {} chunks, {} tokens; largest chunk {}; fixed prompt {} tokens per chunk",
        t.files_reviewed, t.files_split, t.chunks, t.tokens, t.largest_chunk, t.prompt_overhead
    );
    if t.chunks_covered < t.chunks {
        let _ = writeln!(
            out,
            "total budget: covers the {} most important chunks ({} tokens); {} chunks and {} files are not covered (marked -)",
            t.chunks_covered,
            t.tokens_covered,
            t.chunks - t.chunks_covered,
            t.files_not_covered
        );
    }
    let output = TokenCount(ASSUMED_OUTPUT_PER_CHUNK * t.chunks_covered as u64);
    let est: Vec<String> = cost::estimate(t.tokens_covered, output)
        .iter()
        .map(|e| format!("{} ${:.2}", e.model, e.usd))
        .collect();
    let _ = writeln!(
        out,
        "cost (approximate list prices; {} input + ~{} output tokens): {}",
        t.tokens_covered,
        output,
        est.join(" · ")
    );
    for n in &plan.notes {
        let _ = writeln!(out, "note: {n}");
    }
    let _ = writeln!(
        out,
        "planned in {:.1} s, no model called (dry run)",
        elapsed_ms as f64 / 1000.0
    );
    out
}

/// The report formats of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Markdown,
    Json,
    Sarif,
}

/// A run's report as text in `format`.
pub fn render(format: Format, plan: &Plan, run: &ReviewRun) -> String {
    match format {
        Format::Markdown => markdown(plan, run),
        Format::Json => pretty(&json(plan, run)),
        Format::Sarif => pretty(&sarif(plan, run)),
    }
}

fn pretty(v: &Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string());
    s.push('\n');
    s
}

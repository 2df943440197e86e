//! Migrations from the command line: context packs, `migrate`, `undo` and
//! `trust`.

use super::*;

pub(super) struct MigrateOpts {
    pub(super) change: String,
    pub(super) provider: Option<String>,
    pub(super) model: Option<String>,
    pub(super) base_url: Option<String>,
    pub(super) depth: u32,
    pub(super) budget: u64,
    pub(super) patch: Option<PathBuf>,
    pub(super) apply: bool,
    pub(super) allow_stable: bool,
    pub(super) outside: ripple::edits::OutsidePolicy,
    pub(super) similar: usize,
}

/// Say once, whichever tables the command goes on to read, which keys of
/// `ripple.toml` nothing reads. A file that does not parse is left to the
/// command, whose error names the line.
pub(super) fn warn_unknown_settings(repo: &std::path::Path) {
    let Ok(file) = ripple::conventions::RippleToml::load(repo) else {
        return;
    };
    for w in &file.warnings {
        eprintln!(
            "ripple: warning: {}: {}",
            ripple::conventions::CONVENTIONS_FILE,
            ripple::terminal_text::strip(&w.to_string())
        );
    }
}

/// `--similar K`, else ripple.toml [context] similar, else none.
pub(super) fn similar_count(index: &Index, flag: Option<usize>) -> Result<usize> {
    match flag {
        Some(k) => Ok(k),
        None => Ok(ripple::conventions::RippleToml::load(&index.root)?
            .context
            .similar),
    }
}

pub(super) const EXIT_PARTIAL: u8 = 3;
pub(super) const EXIT_TRUNCATED: u8 = 4;

pub(super) fn cmd_migrate(
    index: &Index,
    decl: DeclId,
    o: MigrateOpts,
    json: bool,
    out: &mut impl Write,
) -> Result<ExitCode> {
    use ripple::edits::{self, Resolution};
    let root = index.root.clone();
    let target = &index.res.decls[decl];
    let ripple::migrate::Settings {
        conventions,
        llm: config,
        ..
    } = ripple::migrate::settings(
        index,
        decl,
        &ripple::llm::trust::LlmFlags {
            provider: o.provider.clone(),
            model: o.model.clone(),
            base_url: o.base_url.clone(),
        },
    )?;
    let req = ripple::migrate::MigrateRequest {
        target: decl,
        change: &o.change,
        depth: o.depth,
        budget: ripple::tokens::TokenCount(o.budget),
        similar: o.similar,
        outside: o.outside,
    };
    if !json {
        eprintln!(
            "ripple: asking {} to migrate the callers of {}…",
            ripple::terminal_text::strip(&config.destination()),
            target.name
        );
    }
    let cancel = ripple::llm::CancelToken::new();
    // The reply streams in pieces: one filter for all of them, so that an
    // escape sequence split between two pieces is removed whole.
    let mut reply_filter = ripple::terminal_text::ControlFilter::new();
    let mut stdout_text = |ev: ripple::migrate::MigrateEvent| match ev {
        ripple::migrate::MigrateEvent::Text(t) if !json => {
            let _ = write!(std::io::stdout(), "{}", reply_filter.push_str(t));
            let _ = std::io::stdout().flush();
        }
        ripple::migrate::MigrateEvent::Retrying { attempt, reason } if !json => {
            eprintln!("\nripple: retrying (attempt {attempt}): {reason}");
        }
        _ => {}
    };
    let outcome = ripple::migrate::run(
        index,
        &conventions,
        &config,
        &req,
        &cancel,
        &mut stdout_text,
    )?;

    let resolved: Vec<&edits::Hunk> = outcome.hunks.iter().filter(|h| h.is_resolved()).collect();
    let needs_confirmation: Vec<&edits::Hunk> =
        resolved.iter().copied().filter(|h| h.is_stable()).collect();
    let usable: Vec<&edits::Hunk> = resolved
        .iter()
        .copied()
        .filter(|h| o.allow_stable || !h.is_stable())
        .collect();
    let problems = outcome.hunks.len() - resolved.len()
        + outcome.discarded.len()
        + if o.allow_stable {
            0
        } else {
            needs_confirmation.len()
        };
    let owners: Vec<String> = ripple::conventions::Codeowners::load(&root)
        .map(|c| {
            c.owners_of_all(resolved.iter().map(|h| h.path.as_str()))
                .into_iter()
                .collect()
        })
        .unwrap_or_default();
    let mut applied = None;
    let mut patch_written = None;
    let mut syntax_problems: Vec<ripple::migrate::SyntaxRegression> = Vec::new();
    if !outcome.truncated && !usable.is_empty() {
        if let Some(patch) = &o.patch {
            let text = edits::render_patch(&root, &usable)?;
            if patch.as_os_str() == "-" {
                write!(out, "{text}")?;
            } else {
                std::fs::write(patch, &text)
                    .with_context(|| format!("cannot write {}", patch.display()))?;
                patch_written = Some(patch.display().to_string());
            }
        } else if o.apply {
            let written = ripple::migrate::apply_accepted(&root, &usable)?;
            syntax_problems = written.regressions;
            applied = Some(written.report);
        }
    }
    if json {
        let doc = json::MigrateDoc {
            target: DeclRef::of(index, decl),
            outcome: &outcome,
            applied,
            patch: patch_written,
            owners,
            syntax_errors_introduced: syntax_problems
                .iter()
                .map(|r| json::PathErrors {
                    path: &r.path,
                    errors: r.errors,
                })
                .collect(),
        };
        print_json(out, &doc)?;
    } else {
        writeln!(out)?;
        if !outcome.redactions.is_empty() {
            writeln!(
                out,
                "\nreplaced {} with placeholders before sending",
                outcome.redactions.describe()
            )?;
        }
        writeln!(
            out,
            "\ncontext: {} tokens (whole repository: {}) · model: {} in, {} out{}",
            outcome.pack_tokens,
            outcome.repo_tokens,
            outcome.input_tokens,
            outcome.output_tokens,
            outcome
                .cost_usd
                .map(|c| format!(" · ≈ ${c:.4}"))
                .unwrap_or_default()
        )?;
        for h in &outcome.hunks {
            let status = match &h.resolution {
                Resolution::Resolved { rule, stable, .. } => {
                    if *stable && !o.allow_stable {
                        format!("needs --allow-stable (stable interface), {}", rule.name())
                    } else if *stable {
                        format!("ok ({}, stable interface)", rule.name())
                    } else {
                        format!("ok ({})", rule.name())
                    }
                }
                Resolution::Conflict { reason, .. } => format!("conflict: {reason}"),
                Resolution::Refused { reason } => format!("refused: {reason}"),
            };
            let scope = h
                .scope
                .label()
                .map(|l| format!(" [{l}]"))
                .unwrap_or_default();
            writeln!(out, "  {}  {status}{scope}", h.location())?;
        }
        for d in &outcome.discarded {
            writeln!(out, "  dropped a malformed block: {}", d.describe())?;
        }
        if !owners.is_empty() {
            writeln!(
                out,
                "this migration touches code owned by {}",
                owners.join(", ")
            )?;
        }
        if outcome.truncated {
            writeln!(
                out,
                "the reply was cut off ({}); nothing was applied",
                outcome
                    .truncation_note
                    .as_deref()
                    .unwrap_or("no end marker")
            )?;
        }
        if let Some(p) = &patch_written {
            writeln!(out, "wrote {} hunks to {p}", usable.len())?;
        }
        if let Some(r) = &applied {
            writeln!(
                out,
                "applied {} to {} (undo with `ripple undo`)",
                counted(usable.len(), "hunk", "hunks"),
                counted(r.files.len(), "file", "files")
            )?;
        }
        for r in &syntax_problems {
            writeln!(
                out,
                "warning: {} now has {} syntax errors",
                r.path, r.errors
            )?;
        }
    }
    if outcome.truncated {
        return Ok(ExitCode::from(EXIT_TRUNCATED));
    }
    Ok(if problems > 0 || !syntax_problems.is_empty() {
        ExitCode::from(EXIT_PARTIAL)
    } else {
        ExitCode::SUCCESS
    })
}

pub(super) fn cmd_trust(repo: &std::path::Path, revoke: bool, json: bool) -> Result<ExitCode> {
    use ripple::llm::trust;
    let root = repo
        .canonicalize()
        .with_context(|| format!("{} does not exist", repo.display()))?;
    if revoke {
        let removed = trust::revoke(&root)?;
        if json {
            print_json(
                &mut std::io::stdout(),
                &json::RevokeDoc { revoked: removed },
            )?;
        } else if removed == 0 {
            say!("{} was not trusted", root.display());
        } else {
            say!("{} is no longer trusted", root.display());
        }
        return Ok(ExitCode::SUCCESS);
    }
    let conventions =
        ripple::conventions::Conventions::load(&root).context("cannot read ripple.toml")?;
    let Some(llm) = conventions.llm_table().filter(|t| trust::needs_trust(t)) else {
        if json {
            print_json(
                &mut std::io::stdout(),
                &json::TrustDoc {
                    trusted: false,
                    needed: false,
                    base_url: None,
                    api_key_env: None,
                    record: None,
                },
            )?;
        } else {
            say!(
                "{}/ripple.toml sets no [llm] base_url or api_key_env: nothing needs trust",
                root.display()
            );
        }
        return Ok(ExitCode::SUCCESS);
    };
    let setting = |key: &str| llm.get(key).and_then(|v| v.as_str()).map(str::to_owned);
    let (base_url, key_env) = (setting("base_url"), setting("api_key_env"));
    let record = trust::trust(&root, llm)?;
    if json {
        print_json(
            &mut std::io::stdout(),
            &json::TrustDoc {
                trusted: true,
                needed: true,
                base_url: Some(base_url.clone()),
                api_key_env: Some(key_env.clone()),
                record: Some(record.display().to_string()),
            },
        )?;
    } else {
        say!("trusted {}/ripple.toml [llm]:", root.display());
        if let Some(url) = &base_url {
            say!("  requests go to   {url}");
        }
        if let Some(var) = &key_env {
            say!("  with the key in  ${var}");
        }
        say!(
            "any change to [llm] needs `ripple trust` again; `ripple trust --revoke` withdraws it"
        );
    }
    Ok(ExitCode::SUCCESS)
}

pub(super) fn cmd_undo(repo: &std::path::Path, json: bool) -> Result<ExitCode> {
    let root = repo
        .canonicalize()
        .with_context(|| format!("{} does not exist", repo.display()))?;
    let report = ripple::edits::undo(&root, &ripple::edits::default_journal_dir(&root))?;
    if json {
        print_json(&mut std::io::stdout(), &json::UndoDoc::of(&report))?;
    } else {
        say!(
            "undid batch {}: restored {} files, removed {}",
            report.batch,
            report.restored.len(),
            report.removed.len()
        );
        for p in report.restored.iter().chain(report.removed.iter()) {
            say!("  {p}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `context --json`'s document: the pack for a change to DECL.
pub(super) fn context_doc(
    index: &Index,
    decl: DeclId,
    depth: u32,
    budget: u64,
    change: Option<String>,
    similar: usize,
) -> ripple::context::ContextPack {
    let exclude = |_: &str| false;
    let opts = ripple::context::PackOptions {
        depth,
        budget: ripple::tokens::TokenCount(budget),
        change,
        exclude: &exclude,
        similar,
    };
    ripple::context::build(index, decl, &opts)
}

#[allow(clippy::too_many_arguments)]
pub(super) fn cmd_context(
    index: &Index,
    decl: DeclId,
    depth: u32,
    budget: u64,
    change: Option<String>,
    prompt: bool,
    similar: usize,
    json: bool,
    out: &mut impl Write,
) -> Result<ExitCode> {
    let pack = context_doc(index, decl, depth, budget, change, similar);
    if json {
        print_json(out, &pack)?;
        return Ok(ExitCode::SUCCESS);
    }
    if prompt {
        write!(out, "{}", ripple::context::render(&pack))?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(
        out,
        "context pack for {} ({})",
        pack.target.name,
        location(&pack.target)
    )?;
    for i in &pack.items {
        writeln!(
            out,
            "  {:>6}  {:<15} {}  — {}",
            i.tokens.0,
            format!("{:?}", i.kind).to_lowercase(),
            i.name,
            i.why
        )?;
    }
    if !pack.cut.is_empty() {
        writeln!(out, "cut ({}):", pack.cut.len())?;
        for i in pack.cut.iter().take(15) {
            writeln!(out, "  {:>6}  {}  — {}", i.tokens.0, i.name, i.why)?;
        }
        if pack.cut.len() > 15 {
            writeln!(out, "  … {} more (`--json` lists all)", pack.cut.len() - 15)?;
        }
    }
    writeln!(
        out,
        "pack: {} tokens of {} budget · whole repository: {} tokens · {:.2}% of the repository",
        pack.tokens,
        pack.budget,
        pack.repo_tokens,
        pack.ratio * 100.0
    )?;
    Ok(ExitCode::SUCCESS)
}

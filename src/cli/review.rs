//! `ripple review`: the plan (dry run) or the run against a model, and the
//! report.

use super::*;

/// The options of `ripple review`.
#[derive(clap::Args)]
pub(super) struct ReviewArgs {
    /// Most tokens in one chunk's prompt (o200k), instructions and context included.
    #[arg(long, default_value_t = 8000)]
    pub(super) budget: u64,
    /// Most input tokens for the whole review; the most important chunks go first.
    #[arg(long, value_name = "TOKENS")]
    pub(super) total_budget: Option<u64>,
    /// Plan only: chunks, tokens, skipped files and the cost estimate; no model call.
    #[arg(long)]
    pub(super) dry_run: bool,
    /// Review only the declarations changed since this git revision, with their callers as context.
    #[arg(long, value_name = "BASE")]
    pub(super) diff: Option<String>,
    /// Chunks reviewed at once.
    #[arg(long, default_value_t = 4)]
    pub(super) concurrency: usize,
    /// Most prompt tokens sent per minute (the provider's rate limit).
    #[arg(long, value_name = "TOKENS")]
    pub(super) tokens_per_minute: Option<u64>,
    /// Report format (a dry run prints its plan as text, or JSON with --json or --format json).
    #[arg(long, value_enum, default_value_t = ReportFormat::Md)]
    pub(super) format: ReportFormat,
    /// Write the report (or the plan) to FILE instead of standard output.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub(super) output: Option<PathBuf>,
    /// anthropic | openai | ollama (default: ripple.toml [llm] provider, else anthropic).
    #[arg(long)]
    pub(super) provider: Option<String>,
    #[arg(long)]
    pub(super) model: Option<String>,
    /// API root, as for `ripple migrate`.
    #[arg(long)]
    pub(super) base_url: Option<String>,
}

/// The provider layer behind the review runner's model seam.
pub(super) struct LlmReviewer {
    pub(super) config: ripple::llm::LlmConfig,
    pub(super) cancel: ripple::llm::CancelToken,
    /// Secrets replaced in the chunks sent so far.
    pub(super) redactions: std::sync::Mutex<ripple::redact::Redactions>,
}

impl ripple::review::runner::ReviewModel for LlmReviewer {
    fn review(
        &self,
        chunk_prompt: &str,
    ) -> Result<ripple::review::runner::ModelReply, ripple::review::runner::ModelError> {
        let req = ripple::llm::ChatRequest {
            system: "You review code and answer only with the JSON findings the user asks for."
                .to_owned(),
            user: chunk_prompt.to_owned(),
        };
        let done = ripple::llm::stream_chat(&self.config, &req, &self.cancel, &mut |_| {})
            .map_err(|e| ripple::review::runner::ModelError::new(e.to_string()))?;
        if let Ok(mut total) = self.redactions.lock() {
            total.add(&done.redactions);
        }
        Ok(ripple::review::runner::ModelReply {
            text: done.text,
            input_tokens: ripple::tokens::TokenCount(done.usage.input_tokens),
            output_tokens: ripple::tokens::TokenCount(done.usage.output_tokens),
            truncated: done.truncated && done.cut.is_none(),
            cut: done.cut,
        })
    }
}

/// `ripple review`: plan the chunks, then (unless `--dry-run`) send them to
/// the configured model in parallel and write the report.
pub(super) fn review(repo: &std::path::Path, args: &ReviewArgs, json: bool) -> Result<ExitCode> {
    use ripple::review::{diff, plan, report};
    if !args.dry_run {
        return review_with_model(repo, args, json);
    }
    if args.format == ReportFormat::Sarif {
        anyhow::bail!(
            "a dry run has no findings to put in SARIF; use --format md (text) or json for the plan"
        );
    }
    let index = open(repo)?;
    let t0 = std::time::Instant::now();
    let opts = plan::PlanOptions {
        budget: ripple::tokens::TokenCount(args.budget),
        total_budget: args.total_budget.map(ripple::tokens::TokenCount),
    };
    let planned = match &args.diff {
        Some(base) => diff::plan_diff(&index, base, &opts),
        None => plan::plan_repository(&index, &opts),
    }
    .with_context(|| format!("cannot plan a review of {}", index.root.display()))?;
    let ms = t0.elapsed().as_millis() as u64;
    let text = if json || args.format == ReportFormat::Json {
        let mut s = serde_json::to_string_pretty(&report::plan_json(&planned, ms))?;
        s.push('\n');
        s
    } else {
        report::plan_text(&planned, ms)
    };
    match &args.output {
        Some(path) => std::fs::write(path, text)
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => write_report(&text, !(json || args.format == ReportFormat::Json))?,
    }
    Ok(ExitCode::SUCCESS)
}

/// A review's report or plan on stdout; text for people (`filtered`) is
/// stripped of control sequences, since it quotes code and a model's reply.
pub(super) fn write_report(text: &str, filtered: bool) -> Result<()> {
    let mut out = TerminalWriter::new(std::io::stdout().lock(), filtered);
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}

/// Provider settings: flags over ripple.toml `[llm]` (its endpoint and key
/// variable only once trusted) over the user's config over defaults; keys
/// from the environment.
pub(super) fn llm_config(
    root: &std::path::Path,
    conventions: &ripple::conventions::Conventions,
    provider: Option<&str>,
    model: Option<&str>,
    base_url: Option<&str>,
) -> Result<ripple::llm::LlmConfig> {
    Ok(ripple::llm::trust::config_for_repo(
        root,
        conventions.llm_table(),
        &ripple::llm::trust::LlmFlags {
            provider: provider.map(str::to_owned),
            model: model.map(str::to_owned),
            base_url: base_url.map(str::to_owned),
        },
    )?)
}

pub(super) fn review_with_model(
    repo: &std::path::Path,
    args: &ReviewArgs,
    json: bool,
) -> Result<ExitCode> {
    use ripple::review::{diff, plan, report, runner};
    let index = open(repo)?;
    let conventions =
        ripple::conventions::Conventions::load(&index.root).context("cannot read ripple.toml")?;
    let config = llm_config(
        &index.root,
        &conventions,
        args.provider.as_deref(),
        args.model.as_deref(),
        args.base_url.as_deref(),
    )?;
    let opts = plan::PlanOptions {
        budget: ripple::tokens::TokenCount(args.budget),
        total_budget: args.total_budget.map(ripple::tokens::TokenCount),
    };
    let planned = match &args.diff {
        Some(base) => diff::plan_diff(&index, base, &opts),
        None => plan::plan_repository(&index, &opts),
    }
    .with_context(|| format!("cannot plan a review of {}", index.root.display()))?;
    // Fail once, before planning calls, rather than once per chunk.
    config.key_for_request()?;
    eprintln!(
        "ripple: reviewing {} chunks with {}",
        planned.chunks.len(),
        ripple::terminal_text::strip(&config.destination())
    );
    let model = LlmReviewer {
        config,
        cancel: ripple::llm::CancelToken::new(),
        redactions: Default::default(),
    };
    let run_opts = runner::RunOptions {
        concurrency: args.concurrency.max(1),
        tokens_per_minute: args.tokens_per_minute,
    };
    let bar = progress_bar();
    let run = runner::run(&planned, &model, &run_opts, &bar);
    let format = if json {
        report::Format::Json
    } else {
        match args.format {
            ReportFormat::Md => report::Format::Markdown,
            ReportFormat::Json => report::Format::Json,
            ReportFormat::Sarif => report::Format::Sarif,
        }
    };
    let text = report::render(format, &planned, &run);
    // The explorer's findings list (`R`) reads the last real run back.
    let json_text = if format == report::Format::Json {
        text.clone()
    } else {
        report::render(report::Format::Json, &planned, &run)
    };
    if let Err(e) = ripple::review::last::save(&index.root, &json_text) {
        eprintln!("ripple: warning: {e}");
    }
    match &args.output {
        Some(path) => std::fs::write(path, text)
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => write_report(&text, format == report::Format::Markdown)?,
    }
    // The report may be on stdout or in a file; either way the terminal
    // gets one line saying whether every chunk was reviewed, and which were
    // not, so a partial review is never mistaken for a clean one.
    let count = |f: fn(&runner::ChunkStatus) -> bool| run.count(f);
    let failed = count(|s| matches!(s, runner::ChunkStatus::Failed(_)));
    let incomplete = count(|s| !matches!(s, runner::ChunkStatus::Reviewed));
    eprintln!(
        "review: {} findings; {} chunks: {} reviewed, {} truncated, {} unreadable, {} failed",
        run.findings.len(),
        run.chunks.len(),
        count(|s| matches!(s, runner::ChunkStatus::Reviewed)),
        count(|s| matches!(s, runner::ChunkStatus::Truncated)),
        count(|s| matches!(s, runner::ChunkStatus::Unreadable)),
        failed,
    );
    for c in &run.chunks {
        if let runner::ChunkStatus::Failed(why) = &c.status {
            eprintln!("  chunk {} failed: {why}", c.chunk);
        }
    }
    if let Ok(redacted) = model.redactions.lock()
        && !redacted.is_empty()
    {
        eprintln!(
            "review: replaced {} with placeholders before sending",
            redacted.describe()
        );
    }
    if incomplete > 0 {
        eprintln!(
            "review: incomplete ({incomplete} of {} chunks not fully reviewed); exit code {EXIT_PARTIAL}",
            run.chunks.len()
        );
    }
    Ok(if incomplete > 0 {
        ExitCode::from(EXIT_PARTIAL)
    } else {
        ExitCode::SUCCESS
    })
}

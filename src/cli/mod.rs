//! Command line: every subcommand refreshes the index first, then answers
//! as text for people or, with `--json`, as one JSON document for programs
//! (shapes documented in the README).

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

mod json;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand, ValueEnum};

use ripple::blast::{self, DeclRef, ReachedRef};
use ripple::graph::Direction;
use ripple::index::{Index, Progress};
use ripple::lookup::{self, LookupError};
use ripple::model::Confidence;
use ripple::resolve::DeclId;
use ripple::semantic::SearchIndex;
use ripple::semantic::corpus::CorpusOptions;
use ripple::semantic::lexical::Hit;
use ripple::terminal_text::{TerminalWriter, counted};

const EXIT_LOOKUP: u8 = 2;

/// `--model-dir`, on the commands that search.
#[derive(clap::Args, Clone, Default)]
struct ModelDir {
    /// Search with the sentence-transformers model in DIR, run in-process, fused with the
    /// offline ranker (needs a build with `--features local-model`; overrides ripple.toml [search]).
    #[arg(long, value_name = "DIR")]
    model_dir: Option<PathBuf>,
}

/// Caller (or callee) hops, 1 and up: 0 is refused rather than taken to
/// mean "no limit" without saying so.
fn depth_value(text: &str) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(0) => Err(
            "the depth counts hops from NAME and starts at 1 (1 = direct callers); \
there is no unlimited depth, give a large number instead"
                .to_owned(),
        ),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

/// One token budget for a context pack, whether it is shown (`context`)
/// or sent (`migrate`, the explorer's migrations).
const PACK_BUDGET: u64 = ripple::migrate::PACK_BUDGET.0;

/// What NAME may be, for every command that takes one.
const NAME_HELP: &str = "A qualified name or a unique dotted suffix of one (validate_token, \
auth.validate_token, Service.Quote); when nothing in the repository matches, an external callee \
(json.dumps, os.path.join). Unknown or ambiguous: exit code 2 with candidates";

#[derive(Parser)]
#[command(
    name = "ripple",
    version,
    about = "The blast radius of any function in a Python or Go codebase.",
    long_about = "ripple parses a repository with tree-sitter into one record per declaration, \
resolves calls into a function-level call graph, and answers: if I change this function, \
what else must change? Every command refreshes the index (.ripple/index.db) first, re-parsing \
only files whose content changed.\n\n\
NAME is a qualified name (shop.auth.tokens.validate_token, \
(*github.com/acme/shipd/internal/shipping.Service).Quote) or any unique dotted suffix of one \
(validate_token, tokens.validate_token, Service.Quote).",
    after_help = "Examples:\n  ripple --repo assets/demo blast validate_token --depth 3\n  ripple callers Service.Quote --json\n  ripple edges --format dot --min-confidence likely > graph.dot"
)]
pub struct Cli {
    /// Repository to index (default: the current directory).
    #[arg(long, global = true, value_name = "PATH")]
    repo: Option<PathBuf>,

    /// Print one JSON document instead of text.
    #[arg(long, global = true)]
    json: bool,

    /// Open the repository at PATH (without a subcommand: the explorer in a terminal, else its overview).
    #[arg(value_name = "PATH")]
    path: Option<PathBuf>,

    /// The explorer's model for migrations: anthropic | openai | ollama (default: ripple.toml, your config, else anthropic).
    #[arg(long)]
    provider: Option<String>,

    /// The explorer's model id for migrations (default: ripple.toml [llm] model, your config,
    /// else the provider's default).
    #[arg(long)]
    model: Option<String>,

    /// The explorer's API root for migrations (https, or http to localhost).
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,

    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Build or refresh the index and report what was indexed and skipped.
    Index,
    /// Fuzzy-find declarations by name.
    Find {
        /// Part of a declaration's name, matched fuzzily (vtok finds validate_token).
        query: String,
        /// How many results to show.
        #[arg(long, default_value_t = 20)]
        limit: usize,
    },
    /// One declaration: location, signature, docstring, caller and callee counts.
    Show {
        #[arg(help = NAME_HELP)]
        name: String,
    },
    /// Who calls NAME, to depth N, grouped by hop.
    Callers {
        #[arg(help = NAME_HELP)]
        name: String,
        /// Hops to follow (1: direct only).
        #[arg(long, default_value_t = 1, value_parser = depth_value)]
        depth: u32,
        #[arg(long, value_enum, default_value_t = MinConfidence::Possible)]
        min_confidence: MinConfidence,
    },
    /// What NAME calls, to depth N, grouped by hop.
    Callees {
        #[arg(help = NAME_HELP)]
        name: String,
        /// Hops to follow (1: direct only).
        #[arg(long, default_value_t = 1, value_parser = depth_value)]
        depth: u32,
        #[arg(long, value_enum, default_value_t = MinConfidence::Possible)]
        min_confidence: MinConfidence,
    },
    /// Blast radius: callers by hop, files, packages, tests within the depth and at any depth, and what may be missing.
    Blast {
        #[arg(help = NAME_HELP)]
        name: String,
        /// Caller hops counted in the radius (1: direct callers only).
        #[arg(long, default_value_t = 3, value_parser = depth_value)]
        depth: u32,
    },
    /// What a model would see for a change to NAME: the context pack, ranked and cut to a token budget.
    Context {
        #[arg(help = NAME_HELP)]
        name: String,
        /// Caller hops to consider (1: direct callers only).
        #[arg(long, default_value_t = 2, value_parser = depth_value)]
        depth: u32,
        /// Token budget of the pack (o200k tokens), as `migrate` sends it.
        #[arg(long, default_value_t = PACK_BUDGET)]
        budget: u64,
        /// The change you intend to make (sent with the pack).
        #[arg(long)]
        change: Option<String>,
        /// Print the pack exactly as the model would read it.
        #[arg(long)]
        prompt: bool,
        /// Also offer the K declarations most similar to NAME, ranked below the callers
        /// (default: ripple.toml [context] similar, else 0).
        #[arg(long, value_name = "K")]
        similar: Option<usize>,
    },
    /// Ask a model to migrate NAME's callers for a change: stream its impact
    /// assessment, then write a patch or apply the edits that apply cleanly.
    ///
    /// Edits apply only to the files sent to the model (the context pack);
    /// ripple.toml, .ripple/, .git/ and CODEOWNERS are never edited.
    ///
    /// Exit codes: 0 done; 3 some edits conflicted, were refused, were
    /// malformed or need --allow-stable; 4 the reply was cut off (nothing
    /// applied); 1 error.
    Migrate {
        #[arg(help = NAME_HELP)]
        name: String,
        /// The change, in words or as the new signature.
        #[arg(long)]
        change: String,
        /// anthropic | openai | ollama (default: ripple.toml [llm] provider, else anthropic).
        #[arg(long)]
        provider: Option<String>,
        /// Model id (default: ripple.toml [llm] model, your config, else the provider's default).
        #[arg(long)]
        model: Option<String>,
        /// API root: https://api.anthropic.com, https://api.openai.com/v1, http://localhost:11434/v1 …
        #[arg(long)]
        base_url: Option<String>,
        /// Caller hops in the context pack (1: direct callers only).
        #[arg(long, default_value_t = 2, value_parser = depth_value)]
        depth: u32,
        /// Token budget of the context pack (o200k tokens).
        #[arg(long, default_value_t = PACK_BUDGET)]
        budget: u64,
        /// Write the edits as a unified diff to FILE (`-` for stdout) instead of applying them.
        #[arg(long, value_name = "FILE", conflicts_with = "apply")]
        patch: Option<PathBuf>,
        /// Apply every edit that applies cleanly (atomic, journaled: `ripple undo` reverts).
        #[arg(long)]
        apply: bool,
        /// Also apply edits to stable interfaces (ripple.toml [conventions] stable).
        #[arg(long)]
        allow_stable: bool,
        /// Also apply edits to existing files the model was not shown (outside the context pack).
        #[arg(long)]
        allow_outside: bool,
        /// Also let the model create new files.
        #[arg(long)]
        allow_new_files: bool,
        /// Also send the K declarations most similar to NAME, ranked below the callers
        /// (default: ripple.toml [context] similar, else 0).
        #[arg(long, value_name = "K")]
        similar: Option<usize>,
    },
    /// Revert the last batch of applied edits, restoring the exact previous bytes.
    Undo,
    /// Allow this repository's ripple.toml to choose where model requests go.
    ///
    /// A repository's `[llm]` table may pick a provider and model, but its
    /// `base_url` and `api_key_env` decide which host receives your code and
    /// which secret is sent there, so they count only once you trust them.
    /// The trust covers the table as it is now: any change to `[llm]` needs
    /// `ripple trust` again. Your own settings belong in
    /// ~/.config/ripple/config.toml ($XDG_CONFIG_HOME), which is always trusted.
    Trust {
        /// Forget the trust given to this repository.
        #[arg(long)]
        revoke: bool,
    },
    /// Test functions that reach NAME through the call graph.
    Tests {
        #[arg(help = NAME_HELP)]
        name: String,
    },
    /// Call sites that could not be resolved (whole repo, or inside NAME's blast radius).
    Unresolved {
        /// Only inside this declaration's blast radius (a name as for `blast`).
        name: Option<String>,
        /// Caller hops of that radius (1: direct callers only).
        #[arg(long, default_value_t = 3, value_parser = depth_value)]
        depth: u32,
    },
    /// The whole call graph.
    Edges {
        #[arg(long, value_enum, default_value_t = EdgeFormat::Json)]
        format: EdgeFormat,
        #[arg(long, value_enum, default_value_t = MinConfidence::Possible)]
        min_confidence: MinConfidence,
    },
    /// Install or remove a git post-commit hook that refreshes the index.
    Hook {
        #[arg(value_enum)]
        action: HookAction,
    },
    /// Find declarations by what they do: ranked by name, path, signature, docstring, comments and body.
    Search {
        /// What the code does, in words or code ("parse auth headers").
        #[arg(required_unless_present = "stdin")]
        query: Option<String>,
        /// How many results to show.
        #[arg(long, default_value_t = 10)]
        top: usize,
        /// Read one query per line from standard input; print one JSON line per query, in order.
        #[arg(long, conflicts_with = "query")]
        stdin: bool,
        /// Search generated code too (protobuf stubs, `Code generated … DO NOT EDIT` files).
        #[arg(long)]
        include_generated: bool,
        #[command(flatten)]
        model: ModelDir,
    },
    /// Declarations most similar to NAME: duplicates and parallel implementations.
    Similar {
        #[arg(help = NAME_HELP)]
        name: String,
        /// How many results to show.
        #[arg(long, default_value_t = 10)]
        top: usize,
        /// Compare with generated code too (and let NAME be generated).
        #[arg(long)]
        include_generated: bool,
        #[command(flatten)]
        model: ModelDir,
    },
    /// Measure search quality (recall@1/@10, MRR) and speed on a Python repository, docstrings held out.
    BenchSearch {
        /// Repository to measure (default: --repo or the current directory).
        path: Option<PathBuf>,
        /// Index database to use (default: the repository's own .ripple/index.db).
        #[arg(long, value_name = "FILE")]
        db: Option<PathBuf>,
        /// How many queries to evaluate, spread over the repository (0: all).
        #[arg(long, default_value_t = 2000)]
        sample: usize,
        /// Also measure the configured embedding provider (ripple.toml [search] or --model-dir) and the fused ranking.
        #[arg(long)]
        neural: bool,
        #[command(flatten)]
        model: ModelDir,
    },
    /// Review the repository (or a diff) with an LLM, in token-budgeted chunks of related code.
    ///
    /// `--dry-run` plans everything offline (chunks, tokens, skipped files, cost) without calling a model.
    Review {
        /// Repository to review (default: --repo or the current directory).
        path: Option<PathBuf>,
        #[command(flatten)]
        args: ReviewArgs,
    },
    /// Measure indexing speed and memory on a repository.
    Bench {
        /// Repository to measure (default: --repo or the current directory).
        path: Option<PathBuf>,
        /// Repetitions of each timed step (the median is reported).
        #[arg(long, default_value_t = 3)]
        runs: usize,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum MinConfidence {
    Certain,
    Likely,
    Possible,
}

impl From<MinConfidence> for Confidence {
    fn from(m: MinConfidence) -> Confidence {
        match m {
            MinConfidence::Certain => Confidence::Certain,
            MinConfidence::Likely => Confidence::Likely,
            MinConfidence::Possible => Confidence::Possible,
        }
    }
}

#[derive(Clone, Copy, ValueEnum, PartialEq)]
enum EdgeFormat {
    Json,
    Dot,
    Mermaid,
}

#[derive(Clone, Copy, ValueEnum, PartialEq)]
enum ReportFormat {
    Md,
    Json,
    Sarif,
}

#[derive(Clone, Copy, ValueEnum)]
enum HookAction {
    Install,
    Uninstall,
}

struct Bar(Option<indicatif::ProgressBar>);

impl Progress for Bar {
    fn start(&self, total: usize) {
        if let Some(b) = &self.0 {
            b.set_length(total as u64);
            if total > 200 {
                b.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            }
        }
    }
    fn tick(&self) {
        if let Some(b) = &self.0 {
            b.inc(1);
        }
    }
    fn finish(&self) {
        if let Some(b) = &self.0 {
            b.finish_and_clear();
        }
    }
}

fn progress_bar() -> Bar {
    bar_with("{spinner} parsing {pos}/{len} files {wide_bar} {eta}")
}

/// A progress bar on stderr (none when stderr is not a terminal); it stays
/// hidden until `start` says the work is long enough to show.
fn bar_with(template: &str) -> Bar {
    if !std::io::stderr().is_terminal() {
        return Bar(None);
    }
    let bar =
        indicatif::ProgressBar::with_draw_target(Some(0), indicatif::ProgressDrawTarget::hidden());
    bar.set_style(
        indicatif::ProgressStyle::with_template(template)
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    Bar(Some(bar))
}

pub fn run() -> Result<ExitCode> {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // Help and version are answers, not errors; without --json clap
        // prints its own message and usage.
        Err(e) if !json_requested() || !e.use_stderr() => e.exit(),
        Err(e) => {
            let rendered = e.render().to_string();
            let first = rendered.lines().next().unwrap_or_default();
            return Err(UsageError(first.trim_start_matches("error: ").to_owned()).into());
        }
    };
    if let (Some(path), Some(repo)) = (&cli.path, &cli.repo) {
        return Err(UsageError(format!(
            "both PATH ({}) and --repo ({}) name the repository; give only one",
            path.display(),
            repo.display()
        ))
        .into());
    }
    if cli.command.is_none()
        && let Some(word) = cli.path.as_deref().and_then(|p| p.to_str())
        && std::fs::symlink_metadata(word).is_err()
        && let Some(command) = closest_command(word)
    {
        return Err(UsageError(format!(
            "unknown command '{word}'; did you mean '{command}'? (a path to a repository must exist)"
        ))
        .into());
    }
    let repo = cli
        .repo
        .clone()
        .or(cli.path.clone())
        .unwrap_or_else(|| PathBuf::from("."));
    let json = cli.json;
    let overview = cli.command.is_none();
    let command = cli.command.unwrap_or(Command::Index);
    match &command {
        Command::Bench { .. } | Command::BenchSearch { .. } | Command::Hook { .. } => {}
        Command::Review {
            path: Some(path), ..
        } => warn_unknown_settings(path),
        _ => warn_unknown_settings(&repo),
    }
    if let Command::Bench { path, runs } = &command {
        let path = path.clone().unwrap_or(repo);
        return bench(&path, *runs, json);
    }
    if let Command::Undo = &command {
        return cmd_undo(&repo, json);
    }
    if let Command::Trust { revoke } = &command {
        return cmd_trust(&repo, *revoke, json);
    }
    if let Command::BenchSearch {
        path,
        db,
        sample,
        neural,
        model,
    } = &command
    {
        let path = path.clone().unwrap_or(repo);
        return bench_search(
            &path,
            db.as_deref(),
            *sample,
            *neural,
            model.model_dir.as_deref(),
            json,
        );
    }
    if let Command::Hook { action } = &command {
        return hook(&repo, *action);
    }
    if let Command::Review { path, args } = command {
        return review(&path.unwrap_or(repo), &args, json);
    }
    // In a terminal, `ripple [PATH]` opens the explorer; piped or with
    // --json it prints the overview below, as scripts and CI expect.
    if overview && !json && std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
        ripple::lang::keep_freed_memory();
        let ended = ripple::tui::run(
            &repo,
            ripple::llm::trust::LlmFlags {
                provider: cli.provider.clone(),
                model: cli.model.clone(),
                base_url: cli.base_url.clone(),
            },
        )
        .with_context(|| format!("cannot open the explorer on {}", repo.display()))?;
        return Ok(match ended {
            ripple::tui::Ended::Quit => ExitCode::SUCCESS,
            ripple::tui::Ended::Signal(sig) => {
                ExitCode::from(u8::try_from(128 + sig).unwrap_or(u8::MAX))
            }
        });
    }
    if json
        && let Command::Edges { format, .. } = &command
        && *format != EdgeFormat::Json
    {
        return Err(UsageError(
            "--json prints the edges as JSON, --format dot or mermaid as a graph: give one"
                .to_owned(),
        )
        .into());
    }
    let index = open(&repo)?;
    // Buffered: a locked stdout is line-buffered, and pretty JSON of a
    // radius with thousands of callers cost a write call per line.
    // Commands that answer piecemeal (`search --stdin`) flush each answer.
    // Text for people is stripped of control sequences (names, paths,
    // docstrings and model replies come from untrusted files); JSON is
    // escaped by serde, and a patch or prompt is data for another program.
    let data =
        json || matches!(
            &command,
            Command::Edges {
                format: EdgeFormat::Json,
                ..
            } | Command::Context { prompt: true, .. }
        ) || matches!(&command, Command::Migrate { patch: Some(p), .. } if p.as_os_str() == "-");
    let mut out = std::io::BufWriter::new(TerminalWriter::new(std::io::stdout().lock(), !data));
    let result = match command {
        Command::Index if overview => cmd_overview(&index, json, &mut out),
        Command::Index => cmd_index(&index, json, &mut out),
        Command::Find { query, limit } => cmd_find(&index, &query, limit, json, &mut out),
        Command::Show { name } => {
            with_decl(&index, &name, json, |d| cmd_show(&index, d, json, &mut out))
        }
        Command::Callers {
            name,
            depth,
            min_confidence,
        } => with_decl(&index, &name, json, |d| {
            cmd_walk(
                &index,
                d,
                Direction::Callers,
                depth,
                min_confidence.into(),
                json,
                &mut out,
            )
        }),
        Command::Callees {
            name,
            depth,
            min_confidence,
        } => with_decl(&index, &name, json, |d| {
            cmd_walk(
                &index,
                d,
                Direction::Callees,
                depth,
                min_confidence.into(),
                json,
                &mut out,
            )
        }),
        Command::Blast { name, depth } => with_decl(&index, &name, json, |d| {
            cmd_blast(&index, d, depth, json, &mut out)
        }),
        Command::Context {
            name,
            depth,
            budget,
            change,
            prompt,
            similar,
        } => with_decl(&index, &name, json, |d| {
            let similar = similar_count(&index, similar)?;
            cmd_context(
                &index, d, depth, budget, change, prompt, similar, json, &mut out,
            )
        }),
        Command::Migrate {
            name,
            change,
            provider,
            model,
            base_url,
            depth,
            budget,
            patch,
            apply,
            allow_stable,
            allow_outside,
            allow_new_files,
            similar,
        } => {
            let similar = similar_count(&index, similar)?;
            let opts = MigrateOpts {
                similar,
                change,
                provider,
                model,
                base_url,
                depth,
                budget,
                patch,
                apply,
                allow_stable,
                outside: ripple::edits::OutsidePolicy::Refuse {
                    allow_outside,
                    allow_new_files,
                },
            };
            with_decl(&index, &name, json, |d| {
                cmd_migrate(&index, d, opts, json, &mut out)
            })
        }
        Command::Tests { name } => with_decl(&index, &name, json, |d| {
            cmd_tests(&index, d, json, &mut out)
        }),
        Command::Unresolved { name: None, .. } => cmd_unresolved(&index, None, 0, json, &mut out),
        Command::Unresolved {
            name: Some(name),
            depth,
        } => with_decl(&index, &name, json, |d| {
            cmd_unresolved(&index, Some(d), depth, json, &mut out)
        }),
        Command::Edges {
            format,
            min_confidence,
        } => cmd_edges(&index, format, min_confidence.into(), &mut out),
        Command::Search {
            query,
            top,
            stdin,
            include_generated,
            model,
        } => {
            let search = build_search(&index, model.model_dir.as_deref(), include_generated)?;
            if stdin {
                cmd_search_stdin(&index, &search, top, &mut out)
            } else {
                cmd_search(
                    &index,
                    &search,
                    query.as_deref().unwrap_or(""),
                    top,
                    json,
                    &mut out,
                )
            }
        }
        Command::Similar {
            name,
            top,
            include_generated,
            model,
        } => with_decl(&index, &name, json, |d| {
            if index.is_generated(d) && !include_generated {
                eprintln!(
                    "ripple: {} is generated code, left out of search; pass --include-generated",
                    index.res.decls[d].name
                );
            }
            let search = build_search(&index, model.model_dir.as_deref(), include_generated)?;
            cmd_similar(&index, &search, d, top, json, &mut out)
        }),
        Command::Hook { .. }
        | Command::Bench { .. }
        | Command::BenchSearch { .. }
        | Command::Review { .. }
        | Command::Undo
        | Command::Trust { .. } => {
            unreachable!("handled above")
        }
    };
    let result = result.and_then(|code| {
        out.flush()?;
        Ok(code)
    });
    match result {
        Err(e) if is_broken_pipe(&e) => Ok(ExitCode::SUCCESS),
        other => other,
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.downcast_ref::<std::io::Error>()
        .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
}

/// A mistake in the command line.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct UsageError(String);

/// Whether `--json` is on the command line (read before, or without, a
/// successful parse, so that a failed parse can still answer in JSON).
fn json_requested() -> bool {
    std::env::args_os()
        .skip(1)
        .take_while(|a| a != "--")
        .any(|a| a == "--json")
}

/// Print a failed run's error, as `{"error": {"kind", "message"}}` on
/// stdout with `--json`, else on stderr; the exit code: 2 for a mistake
/// in the command line, 1 for anything else.
pub fn report_error(err: &anyhow::Error) -> ExitCode {
    let kind = error_kind(err);
    let message = format!("{err:#}");
    if json_requested() {
        let doc = json::ErrorDoc {
            error: json::ErrorBody {
                kind,
                message,
                candidates: None,
            },
        };
        println!("{}", compact_json(&doc));
    } else {
        // Messages quote paths and names from the repository.
        eprintln!("ripple: error: {}", ripple::terminal_text::strip(&message));
    }
    ExitCode::from(if kind == "usage" { 2 } else { 1 })
}

/// A short, stable word for what failed: the first error in the chain of
/// a known type decides.
fn error_kind(err: &anyhow::Error) -> &'static str {
    use ripple::index::IndexError;
    for cause in err.chain() {
        if cause.is::<UsageError>() {
            return "usage";
        }
        if let Some(e) = cause.downcast_ref::<IndexError>() {
            return match e {
                IndexError::Missing { .. } => "not_found",
                IndexError::NotADirectory { .. } => "usage",
                IndexError::Store(_) => "index",
            };
        }
        if cause.is::<ripple::store::StoreError>() {
            return "index";
        }
        if cause.is::<LookupError>() {
            return "not_found";
        }
        if cause.is::<ripple::conventions::ConventionsError>()
            || cause.is::<ripple::semantic::config::ConfigError>()
        {
            return "config";
        }
        // A transparent wrapper hides the LlmError itself from the chain.
        if cause.is::<ripple::llm::LlmError>()
            || matches!(
                cause.downcast_ref::<ripple::migrate::MigrateError>(),
                Some(ripple::migrate::MigrateError::Llm(_))
            )
        {
            return "llm";
        }
        if cause.is::<ripple::edits::EditError>() {
            return "edit";
        }
        if cause.is::<ripple::review::ReviewError>() || cause.is::<ripple::review::git::GitError>()
        {
            return "review";
        }
        if cause.is::<std::io::Error>() {
            return "io";
        }
    }
    "error"
}

/// The subcommand `word` was likely meant to be: within two edits of it
/// (a typo, a swapped pair) and nearer than any other.
fn closest_command(word: &str) -> Option<String> {
    use clap::CommandFactory;
    let word = word.to_lowercase();
    Cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_owned())
        .map(|name| (edit_distance(&word, &name), name))
        .filter(|(d, name)| *d <= 2 && *d < name.len())
        .min_by_key(|(d, _)| *d)
        .map(|(_, name)| name)
}

/// Optimal string alignment distance: insertions, deletions,
/// substitutions and transpositions of neighbours each count one.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[a.len()][b.len()]
}

fn open(repo: &std::path::Path) -> Result<Index> {
    let bar = progress_bar();
    let index = Index::open(repo, &bar).map_err(|e| {
        let hint = match e {
            ripple::index::IndexError::Missing { .. }
            | ripple::index::IndexError::NotADirectory { .. } => {
                "; pass an existing directory with --repo PATH"
            }
            ripple::index::IndexError::Store(_) => "",
        };
        anyhow::Error::new(e).context(format!("cannot index {}{hint}", repo.display()))
    })?;
    if let Some(reason) = &index.stats.rebuilt {
        eprintln!("ripple: note: {reason}");
    }
    Ok(index)
}

/// Look NAME up; an unknown or ambiguous name prints candidates and exits 2.
fn with_decl(
    index: &Index,
    name: &str,
    json: bool,
    f: impl FnOnce(DeclId) -> Result<ExitCode>,
) -> Result<ExitCode> {
    match lookup::resolve(&index.res, name) {
        Ok(d) => f(d),
        Err(err) => {
            let (kind, list) = match &err {
                LookupError::NotFound { suggestions, .. } => ("not_found", suggestions),
                LookupError::Ambiguous { candidates, .. } => ("ambiguous", candidates),
            };
            if json {
                let doc = json::ErrorDoc {
                    error: json::ErrorBody {
                        kind,
                        message: err.to_string(),
                        candidates: Some(list),
                    },
                };
                println!("{}", compact_json(&doc));
            } else {
                eprintln!("ripple: {err}");
                if !list.is_empty() {
                    eprintln!(
                        "{}",
                        if kind == "ambiguous" {
                            "candidates:"
                        } else {
                            "closest matches:"
                        }
                    );
                    for c in list.iter().take(20) {
                        eprintln!("  {}", ripple::terminal_text::strip(c));
                    }
                    eprintln!("Pass a longer suffix or the full qualified name.");
                }
            }
            Ok(ExitCode::from(EXIT_LOOKUP))
        }
    }
}

/// A command's JSON answer, pretty-printed. Going through `serde_json::Value` sorts
/// every object's keys, the order the documents have always had.
fn print_json(out: &mut impl Write, doc: &impl serde::Serialize) -> Result<()> {
    let v = serde_json::to_value(doc)?;
    serde_json::to_writer_pretty(&mut *out, &v)?;
    writeln!(out)?;
    Ok(())
}

/// One line of JSON, keys sorted as in [`print_json`].
fn compact_json(doc: &impl serde::Serialize) -> String {
    serde_json::to_value(doc)
        .map(|v| v.to_string())
        .unwrap_or_else(|e| format!("{{\"error\":{{\"kind\":\"error\",\"message\":\"{e}\"}}}}"))
}

fn location(d: &DeclRef) -> String {
    match &d.file {
        Some(f) => format!("{f}:{}", d.line),
        None => "(external)".to_owned(),
    }
}

/// Where a command's subject lives, for a heading that already sits in
/// parentheses.
fn heading_location(d: &DeclRef) -> String {
    match &d.file {
        Some(f) => format!("{f}:{}", d.line),
        None => "outside the repository".to_owned(),
    }
}

/// `index --json`'s document (also the `index` part of the overview's).
fn index_doc(index: &Index) -> json::IndexDoc<'_> {
    let s = &index.stats;
    json::IndexDoc {
        root: index.root.display().to_string(),
        files: s.files,
        parsed: s.parsed,
        touched: s.touched,
        reused: s.reused,
        removed: s.removed,
        lines: s.lines,
        declarations: s.declarations,
        edges: s.edges,
        unresolved: s.unresolved,
        skipped: &s.skipped,
        generated_files: s.generated_files,
        other_files: s.other_files,
        syntax_errors: s
            .files_with_syntax_errors
            .iter()
            .map(|(path, errors)| json::PathErrors {
                path,
                errors: *errors,
            })
            .collect(),
        rebuilt: &s.rebuilt,
        graph: &s.graph,
        timings_ms: &s.timings_ms,
    }
}

fn cmd_index(index: &Index, json: bool, out: &mut impl Write) -> Result<ExitCode> {
    let s = &index.stats;
    if json {
        print_json(out, &index_doc(index))?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(
        out,
        "indexed {} ({}, {}) in {:.0} ms",
        index.root.display(),
        counted(s.files, "file", "files"),
        counted(s.lines as usize, "line", "lines"),
        s.timings_ms.total
    )?;
    writeln!(
        out,
        "  parsed {} · unchanged {} · removed {}",
        s.parsed, s.reused, s.removed
    )?;
    writeln!(
        out,
        "  {} · {} · {}",
        counted(s.declarations, "declaration", "declarations"),
        counted(s.edges, "call edge", "call edges"),
        counted(
            s.unresolved,
            "unresolved call site",
            "unresolved call sites"
        )
    )?;
    if s.generated_files > 0 {
        writeln!(
            out,
            "  {} generated files in the graph (marked; not reviewed or searched)",
            s.generated_files
        )?;
    }
    match s.graph.action {
        "resolved" => {
            let w = &s.graph.work;
            writeln!(
                out,
                "  graph resolved in {:.0} ms ({} Python files, {} constraints, {} worklist steps; {} Go files), because:",
                s.timings_ms.resolve,
                w.python_files,
                w.python_constraints,
                w.python_worklist_steps,
                w.go_files
            )?;
            for why in &s.graph.why {
                writeln!(out, "    {}", ripple::terminal_text::strip(why))?;
            }
        }
        "reused" => writeln!(out, "  graph reused: no file changed what resolution reads")?,
        _ => {}
    }
    if !s.skipped.is_empty() {
        let mut by_reason: std::collections::BTreeMap<_, usize> = Default::default();
        for sk in &s.skipped {
            *by_reason.entry(sk.reason).or_default() += 1;
        }
        let parts: Vec<String> = by_reason
            .iter()
            .map(|(r, n)| format!("{n} {}", r.describe()))
            .collect();
        writeln!(
            out,
            "  skipped {} ({}); `ripple index --json` lists them",
            s.skipped.len(),
            parts.join(", ")
        )?;
    }
    if !s.files_with_syntax_errors.is_empty() {
        writeln!(
            out,
            "  {} files have syntax errors (indexed as far as they parse)",
            s.files_with_syntax_errors.len()
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// What `ripple PATH` prints when it is not in a terminal (or with --json): the index
/// summary and the places to start (the most-called declarations).
fn cmd_overview(index: &Index, json: bool, out: &mut impl Write) -> Result<ExitCode> {
    let res = &index.res;
    let mut hot: Vec<(usize, DeclId)> = res
        .decl_ids()
        .filter(|&d| !res.decls[d].is_external() && res.decls[d].kind.is_callable())
        .map(|d| (index.graph.fan_in(res, d), d))
        .filter(|(n, _)| *n > 0)
        .collect();
    hot.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let paths: Vec<&str> = index.files.iter().map(|f| f.path.as_str()).collect();
    let cycles = ripple::graph::Graph::import_cycles(res, &paths);
    if json {
        let doc = json::OverviewDoc {
            index: index_doc(index),
            hotspots: hot
                .iter()
                .take(10)
                .map(|&(callers, d)| json::Hotspot {
                    decl: DeclRef::of(index, d),
                    callers,
                })
                .collect(),
            import_cycles: &cycles,
        };
        print_json(out, &doc)?;
        return Ok(ExitCode::SUCCESS);
    }
    cmd_index(index, false, out)?;
    writeln!(out, "\nhotspots (most direct callers):")?;
    for (n, d) in hot.iter().take(10) {
        let r = DeclRef::of(index, *d);
        writeln!(out, "  {n:>4}  {}  {}", r.name, location(&r))?;
    }
    if !cycles.is_empty() {
        writeln!(out, "\nimport cycles between packages:")?;
        for c in cycles.iter().take(10) {
            writeln!(out, "  {}", c.join(" ↔ "))?;
        }
    }
    if let Some((_, top)) = hot.first() {
        let name = &res.decls[*top].name;
        writeln!(
            out,
            "\nnext: ripple --repo {} blast '{}'",
            index.root.display(),
            name
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

fn cmd_find(
    index: &Index,
    query: &str,
    limit: usize,
    json: bool,
    out: &mut impl Write,
) -> Result<ExitCode> {
    let hits = lookup::fuzzy(&index.res, query, limit);
    if json {
        let results: Vec<json::FoundDecl> = hits
            .iter()
            .map(|&(d, score)| {
                let r = DeclRef::of(index, d);
                json::FoundDecl {
                    name: r.name,
                    kind: r.kind,
                    file: r.file,
                    line: r.line,
                    score,
                }
            })
            .collect();
        print_json(out, &json::QueryResults { query, results })?;
        return Ok(ExitCode::SUCCESS);
    }
    if hits.is_empty() {
        writeln!(out, "no declarations match `{query}`")?;
    }
    for (d, _) in hits {
        let r = DeclRef::of(index, d);
        writeln!(out, "{:<9} {}  {}", r.kind, r.name, location(&r))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn cmd_show(index: &Index, decl: DeclId, json: bool, out: &mut impl Write) -> Result<ExitCode> {
    let r = DeclRef::of(index, decl);
    let local = index.local_decl(decl);
    let callers =
        index
            .graph
            .neighbours(&index.res, decl, Direction::Callers, Confidence::Possible);
    let callees =
        index
            .graph
            .neighbours(&index.res, decl, Direction::Callees, Confidence::Possible);
    let count = |list: &[(DeclId, Confidence, u32)], c: Confidence| {
        list.iter().filter(|x| x.1 == c).count()
    };
    let d = &index.res.decls[decl];
    if json {
        let counts = |list: &[(DeclId, Confidence, u32)]| json::EdgeCounts {
            total: list.len(),
            certain: count(list, Confidence::Certain),
            likely: count(list, Confidence::Likely),
            possible: count(list, Confidence::Possible),
        };
        let doc = json::ShowDoc {
            name: r.name.clone(),
            kind: r.kind,
            lang: d.lang.name(),
            file: r.file.clone(),
            line: r.line,
            end_line: d.span.end_line,
            signature: local.map(|l| l.signature.clone()),
            doc: local.and_then(|l| l.doc.clone()),
            is_test: r.is_test,
            generated: r.generated,
            callers: counts(&callers),
            callees: counts(&callees),
        };
        print_json(out, &doc)?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(out, "{} {}", r.kind, r.name)?;
    match &r.file {
        Some(_) => writeln!(out, "  {}–{}", location(&r), d.span.end_line)?,
        None => writeln!(out, "  outside the repository: called from it, not indexed")?,
    }
    if let Some(l) = local {
        writeln!(out, "  {}", l.signature)?;
        if let Some(doc) = &l.doc {
            for line in doc.lines().take(6) {
                writeln!(out, "  │ {line}")?;
            }
        }
    }
    writeln!(
        out,
        "  callers: {} ({} certain, {} likely, {} possible)",
        callers.len(),
        count(&callers, Confidence::Certain),
        count(&callers, Confidence::Likely),
        count(&callers, Confidence::Possible)
    )?;
    writeln!(
        out,
        "  callees: {} ({} certain, {} likely, {} possible)",
        callees.len(),
        count(&callees, Confidence::Certain),
        count(&callees, Confidence::Likely),
        count(&callees, Confidence::Possible)
    )?;
    Ok(ExitCode::SUCCESS)
}

fn cmd_walk(
    index: &Index,
    decl: DeclId,
    dir: Direction,
    depth: u32,
    min: Confidence,
    json: bool,
    out: &mut impl Write,
) -> Result<ExitCode> {
    let reached = index.graph.traverse(&index.res, decl, dir, depth, min);
    let refs: Vec<ReachedRef> = reached.iter().map(|r| ReachedRef::of(index, r)).collect();
    if json {
        let hops = (1..=refs.iter().map(|r| r.hop).max().unwrap_or(0))
            .map(|hop| json::Hop {
                hop,
                decls: refs.iter().filter(|r| r.hop == hop).collect(),
            })
            .collect();
        let doc = json::WalkDoc {
            root: DeclRef::of(index, decl),
            direction: dir,
            depth,
            hops,
        };
        print_json(out, &doc)?;
        return Ok(ExitCode::SUCCESS);
    }
    let root = DeclRef::of(index, decl);
    let what = if dir == Direction::Callers {
        "callers"
    } else {
        "callees"
    };
    writeln!(out, "{what} of {} ({})", root.name, heading_location(&root))?;
    if refs.is_empty() {
        writeln!(out, "  none")?;
    }
    let mut last_hop = 0;
    for r in &refs {
        if r.hop != last_hop {
            writeln!(out, "hop {}:", r.hop)?;
            last_hop = r.hop;
        }
        let mark = match r.confidence {
            Confidence::Certain => " ",
            Confidence::Likely => "~",
            Confidence::Possible => "?",
        };
        let test = if r.decl.is_test { " [test]" } else { "" };
        let generated = if r.decl.generated { " [generated]" } else { "" };
        writeln!(
            out,
            "  {mark} {}{test}{generated}  {}",
            r.decl.name,
            location(&r.decl)
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

const FILES_SHOWN: usize = 20;
const TESTS_SHOWN: usize = 10;

/// `title:` then up to `cap` items, one per line, and how many were left out.
fn write_capped<T>(
    out: &mut impl Write,
    title: &str,
    items: &[T],
    cap: usize,
    line: impl Fn(&T) -> String,
) -> Result<()> {
    if items.is_empty() {
        return Ok(());
    }
    writeln!(out, "  {title}:")?;
    for item in items.iter().take(cap) {
        writeln!(out, "    {}", line(item))?;
    }
    if items.len() > cap {
        writeln!(
            out,
            "    … and {} more (--json lists all)",
            items.len() - cap
        )?;
    }
    Ok(())
}

/// A heading and the first ten rows under it, in a blast radius's
/// lower-bound notes; nothing when there are no rows.
fn write_sites(out: &mut impl Write, heading: String, rows: Vec<String>) -> std::io::Result<()> {
    if rows.is_empty() {
        return Ok(());
    }
    writeln!(out, "    {heading}")?;
    for row in rows.iter().take(10) {
        writeln!(out, "      {row}")?;
    }
    Ok(())
}

fn cmd_blast(
    index: &Index,
    decl: DeclId,
    depth: u32,
    json: bool,
    out: &mut impl Write,
) -> Result<ExitCode> {
    let b = blast::compute(index, decl, depth);
    // CODEOWNERS, when the repository has one: who must hear about this change.
    let owners: Vec<String> = ripple::conventions::Codeowners::load(&index.root)
        .map(|c| {
            c.owners_of_all(b.files.iter().map(String::as_str))
                .into_iter()
                .collect()
        })
        .unwrap_or_default();
    if json {
        print_json(out, &json::BlastDoc { radius: &b, owners })?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(
        out,
        "blast radius of {} ({}), depth {}",
        b.root.name,
        heading_location(&b.root),
        depth
    )?;
    for h in &b.hops {
        writeln!(
            out,
            "  hop {}: {:>4} callers  ({} certain, {} likely, {} possible)",
            h.hop, h.counts.total, h.counts.certain, h.counts.likely, h.counts.possible
        )?;
    }
    writeln!(
        out,
        "  total: {:>4} callers  ({} certain, {} likely, {} possible)",
        b.total.total, b.total.certain, b.total.likely, b.total.possible
    )?;
    writeln!(
        out,
        "  {}, {}, tests ≤ depth {}: {} (all depths: {})",
        counted(b.files.len(), "file", "files"),
        counted(b.packages.len(), "package", "packages"),
        depth,
        b.tests.len(),
        b.tests_any_depth
    )?;
    // What a reviewer of the change opens next: the files it reaches and
    // the tests to run, longest lists cut (`--json` has them all).
    write_capped(out, "files", &b.files, FILES_SHOWN, |f| f.clone())?;
    write_capped(out, "tests", &b.tests, TESTS_SHOWN, |t| {
        format!("{}  {}", t.name, location(t))
    })?;
    if !owners.is_empty() {
        writeln!(out, "  owned by {}", owners.join(", "))?;
    }
    if b.lower_bound {
        writeln!(out, "  this is a lower bound:")?;
        write_sites(
            out,
            format!(
                "{} something named like it:",
                counted(
                    b.possibly_missing_callers.len(),
                    "unresolved call site calls",
                    "unresolved call sites call"
                )
            ),
            b.possibly_missing_callers
                .iter()
                .map(|u| format!("{}:{}  {}  ({})", u.file, u.line, u.text, u.reason))
                .collect(),
        )?;
        if b.unresolved_inside > 0 {
            writeln!(
                out,
                "    {} inside the radius could not be resolved (`ripple unresolved {}`)",
                counted(b.unresolved_inside, "call site", "call sites"),
                b.root.name
            )?;
        }
        write_sites(
            out,
            format!(
                "it is passed to code ripple does not follow at {}, which may call it:",
                counted(b.handed_out.len(), "call site", "call sites")
            ),
            b.handed_out
                .iter()
                .map(|h| format!("{}:{}  {}  (in {})", h.file, h.line, h.text, h.caller))
                .collect(),
        )?;
        if b.handed_out_inside > 0 {
            writeln!(
                out,
                "    {} times a function inside the radius is passed to such code",
                b.handed_out_inside
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

struct MigrateOpts {
    change: String,
    provider: Option<String>,
    model: Option<String>,
    base_url: Option<String>,
    depth: u32,
    budget: u64,
    patch: Option<PathBuf>,
    apply: bool,
    allow_stable: bool,
    outside: ripple::edits::OutsidePolicy,
    similar: usize,
}

/// Say once, whichever tables the command goes on to read, which keys of
/// `ripple.toml` nothing reads. A file that does not parse is left to the
/// command, whose error names the line.
fn warn_unknown_settings(repo: &std::path::Path) {
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
fn similar_count(index: &Index, flag: Option<usize>) -> Result<usize> {
    match flag {
        Some(k) => Ok(k),
        None => Ok(ripple::conventions::RippleToml::load(&index.root)?
            .context
            .similar),
    }
}

const EXIT_PARTIAL: u8 = 3;
const EXIT_TRUNCATED: u8 = 4;

fn cmd_migrate(
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

fn cmd_trust(repo: &std::path::Path, revoke: bool, json: bool) -> Result<ExitCode> {
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
            println!("{} was not trusted", root.display());
        } else {
            println!("{} is no longer trusted", root.display());
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
            println!(
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
        println!("trusted {}/ripple.toml [llm]:", root.display());
        if let Some(url) = &base_url {
            println!("  requests go to   {url}");
        }
        if let Some(var) = &key_env {
            println!("  with the key in  ${var}");
        }
        println!(
            "any change to [llm] needs `ripple trust` again; `ripple trust --revoke` withdraws it"
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn cmd_undo(repo: &std::path::Path, json: bool) -> Result<ExitCode> {
    let root = repo
        .canonicalize()
        .with_context(|| format!("{} does not exist", repo.display()))?;
    let report = ripple::edits::undo(&root, &ripple::edits::default_journal_dir(&root))?;
    if json {
        print_json(&mut std::io::stdout(), &json::UndoDoc::of(&report))?;
    } else {
        println!(
            "undid batch {}: restored {} files, removed {}",
            report.batch,
            report.restored.len(),
            report.removed.len()
        );
        for p in report.restored.iter().chain(report.removed.iter()) {
            println!("  {p}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[allow(clippy::too_many_arguments)]
fn cmd_context(
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
    let exclude = |_: &str| false;
    let opts = ripple::context::PackOptions {
        depth,
        budget: ripple::tokens::TokenCount(budget),
        change,
        exclude: &exclude,
        similar,
    };
    let pack = ripple::context::build(index, decl, &opts);
    if json {
        print_json(out, &serde_json::to_value(&pack)?)?;
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

fn cmd_tests(index: &Index, decl: DeclId, json: bool, out: &mut impl Write) -> Result<ExitCode> {
    let tests = index.graph.tests_reaching(&index.res, decl, 0);
    let refs: Vec<ReachedRef> = tests.iter().map(|r| ReachedRef::of(index, r)).collect();
    if json {
        print_json(
            out,
            &json::TestsDoc {
                root: DeclRef::of(index, decl),
                tests: &refs,
            },
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    let root = DeclRef::of(index, decl);
    writeln!(
        out,
        "{} {} at any depth",
        counted(refs.len(), "test reaches", "tests reach"),
        root.name
    )?;
    for r in refs {
        writeln!(
            out,
            "  {} (hop {}, {})  {}",
            r.decl.name,
            r.hop,
            r.confidence.name(),
            location(&r.decl)
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

fn cmd_unresolved(
    index: &Index,
    decl: Option<DeclId>,
    depth: u32,
    json: bool,
    out: &mut impl Write,
) -> Result<ExitCode> {
    let scope: Option<std::collections::HashSet<DeclId>> = decl.map(|d| {
        index
            .graph
            .traverse(
                &index.res,
                d,
                Direction::Callers,
                depth,
                Confidence::Possible,
            )
            .into_iter()
            .map(|r| r.decl)
            .chain(std::iter::once(d))
            .collect()
    });
    let list: Vec<blast::UnresolvedRef> = index
        .res
        .unresolved
        .iter()
        .filter(|u| scope.as_ref().is_none_or(|s| s.contains(&u.caller)))
        .map(|u| blast::unresolved_ref(index, u))
        .collect();
    if json {
        let doc = json::UnresolvedDoc {
            scope: decl.map(|d| index.res.decls[d].name.clone()),
            count: list.len(),
            calls: &list,
        };
        print_json(out, &doc)?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(
        out,
        "{}",
        counted(list.len(), "unresolved call site", "unresolved call sites")
    )?;
    for u in list {
        writeln!(
            out,
            "  {}:{}  {}  in {}  — {}",
            u.file, u.line, u.text, u.caller, u.reason
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

fn cmd_edges(
    index: &Index,
    format: EdgeFormat,
    min: Confidence,
    out: &mut impl Write,
) -> Result<ExitCode> {
    let res = &index.res;
    let mut map: std::collections::BTreeMap<&str, std::collections::BTreeSet<&str>> =
        Default::default();
    for d in &res.decls {
        if d.kind.is_callable() || d.is_external() {
            map.entry(&*d.name).or_default();
        }
    }
    let mut edges: Vec<(&str, &str, Confidence)> = Vec::new();
    for e in &res.edges {
        if e.confidence > min {
            continue;
        }
        let a = &*res.decls[e.caller].name;
        let b = &*res.decls[e.callee].name;
        map.entry(a).or_default().insert(b);
        map.entry(b).or_default();
        edges.push((a, b, e.confidence));
    }
    edges.sort();
    edges.dedup_by(|x, y| x.0 == y.0 && x.1 == y.1);
    match format {
        EdgeFormat::Json => {
            // Each function with the sorted names it calls (PyCG's format).
            print_json(out, &map)?;
        }
        EdgeFormat::Dot => {
            writeln!(out, "digraph calls {{")?;
            writeln!(out, "  rankdir=LR; node [shape=box, fontname=monospace];")?;
            for (a, b, c) in edges {
                let style = match c {
                    Confidence::Certain => "solid",
                    Confidence::Likely => "dashed",
                    Confidence::Possible => "dotted",
                };
                writeln!(out, "  {:?} -> {:?} [style={style}];", a, b)?;
            }
            writeln!(out, "}}")?;
        }
        EdgeFormat::Mermaid => {
            writeln!(out, "flowchart LR")?;
            let mut ids: std::collections::HashMap<&str, usize> = Default::default();
            for (a, b, c) in &edges {
                let next = ids.len();
                let ia = *ids.entry(a).or_insert(next);
                let next = ids.len();
                let ib = *ids.entry(b).or_insert(next);
                let arrow = match c {
                    Confidence::Certain => "-->",
                    Confidence::Likely => "-.->",
                    Confidence::Possible => "-.->|possible|",
                };
                writeln!(
                    out,
                    "  n{ia}[\"{}\"] {arrow} n{ib}[\"{}\"]",
                    mermaid_escape(a),
                    mermaid_escape(b)
                )?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn mermaid_escape(s: &str) -> String {
    s.replace('"', "#quot;")
}

/// The first line of ripple's post-commit hook, by which it is recognised.
const HOOK_MARK: &str = "# ripple: refresh the call-graph index";
/// Where a post-commit hook that was there before ripple's is kept, run
/// by ripple's hook and put back by `hook uninstall`.
const CHAINED_HOOK: &str = "post-commit.ripple-chained";

fn hook(repo: &std::path::Path, action: HookAction) -> Result<ExitCode> {
    let git_dir = std::process::Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["rev-parse", "--git-path", "hooks"])
        .output()
        .context("cannot run git; the hook needs a git repository")?;
    if !git_dir.status.success() {
        anyhow::bail!(
            "{} is not inside a git repository; `ripple hook` installs a git post-commit hook",
            repo.display()
        );
    }
    let hooks = repo.join(String::from_utf8_lossy(&git_dir.stdout).trim());
    let path = hooks.join("post-commit");
    let chained = hooks.join(CHAINED_HOOK);
    let exe = std::env::current_exe().context("cannot locate the ripple executable")?;
    let refresh = format!(
        "\"{}\" --repo \"$(git rev-parse --show-toplevel)\" index >/dev/null 2>&1 &\n",
        exe.display()
    );
    // A symlink is a hook too (hook managers link theirs): never follow it.
    let present = std::fs::symlink_metadata(&path).is_ok();
    let existing = if present {
        std::fs::read(&path).unwrap_or_default()
    } else {
        Vec::new()
    };
    let ours = String::from_utf8_lossy(&existing).contains(HOOK_MARK);
    match action {
        HookAction::Install => {
            if ours {
                println!(
                    "the ripple post-commit hook is already installed in {}",
                    path.display()
                );
                return Ok(ExitCode::SUCCESS);
            }
            std::fs::create_dir_all(&hooks)
                .with_context(|| format!("cannot create {}", hooks.display()))?;
            // Another hook, in whatever language, is moved aside untouched
            // (bytes and mode) and run first: appending shell to it broke
            // non-shell hooks, and a shell hook that ends in `exit` would
            // never reach the refresh.
            let content = if present {
                if std::fs::symlink_metadata(&chained).is_ok() {
                    anyhow::bail!(
                        "{} already exists; move it away (it is the hook ripple would chain to) and install again",
                        chained.display()
                    );
                }
                std::fs::rename(&path, &chained).with_context(|| {
                    format!("cannot move {} to {}", path.display(), chained.display())
                })?;
                format!(
                    "#!/bin/sh\n{HOOK_MARK}, after the hook that was here before ({CHAINED_HOOK})\n\
                     status=0\n\
                     chained=\"$(dirname \"$0\")/{CHAINED_HOOK}\"\n\
                     if [ -x \"$chained\" ]; then\n    \"$chained\" \"$@\"\n    status=$?\nfi\n\
                     {refresh}exit $status\n"
                )
            } else {
                format!("#!/bin/sh\n{HOOK_MARK}\n{refresh}")
            };
            if let Err(e) = write_hook(&path, &content) {
                if present {
                    let _ = std::fs::rename(&chained, &path);
                }
                return Err(e);
            }
            if present {
                println!(
                    "installed the post-commit hook in {}; it runs the hook that was there first (kept as {})",
                    path.display(),
                    chained.display()
                );
            } else {
                println!("installed the post-commit hook in {}", path.display());
            }
        }
        HookAction::Uninstall => {
            if !ours {
                println!("no ripple hook in {}", path.display());
                return Ok(ExitCode::SUCCESS);
            }
            if std::fs::symlink_metadata(&chained).is_ok() {
                std::fs::rename(&chained, &path).with_context(|| {
                    format!(
                        "cannot move {} back to {}",
                        chained.display(),
                        path.display()
                    )
                })?;
                println!(
                    "removed the ripple hook; {} is the hook that was there before",
                    path.display()
                );
                return Ok(ExitCode::SUCCESS);
            }
            // A hook with ripple's lines appended to the user's own shell.
            let existing = String::from_utf8_lossy(&existing);
            let kept: Vec<&str> = existing
                .lines()
                .filter(|l| !l.starts_with(HOOK_MARK) && !l.ends_with(" index >/dev/null 2>&1 &"))
                .collect();
            let rest = kept.join("\n");
            if rest.trim() == "#!/bin/sh" || rest.trim().is_empty() {
                std::fs::remove_file(&path)?;
            } else {
                std::fs::write(&path, rest + "\n")?;
            }
            println!("removed the ripple hook from {}", path.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Write an executable hook.
fn write_hook(path: &std::path::Path, content: &str) -> Result<()> {
    std::fs::write(path, content).with_context(|| format!("cannot write {}", path.display()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
            .with_context(|| format!("cannot make {} executable", path.display()))?;
    }
    Ok(())
}

/// The options of `ripple review`.
#[derive(clap::Args)]
struct ReviewArgs {
    /// Most tokens in one chunk's prompt (o200k), instructions and context included.
    #[arg(long, default_value_t = 8000)]
    budget: u64,
    /// Most input tokens for the whole review; the most important chunks go first.
    #[arg(long, value_name = "TOKENS")]
    total_budget: Option<u64>,
    /// Plan only: chunks, tokens, skipped files and the cost estimate; no model call.
    #[arg(long)]
    dry_run: bool,
    /// Review only the declarations changed since this git revision, with their callers as context.
    #[arg(long, value_name = "BASE")]
    diff: Option<String>,
    /// Chunks reviewed at once.
    #[arg(long, default_value_t = 4)]
    concurrency: usize,
    /// Most prompt tokens sent per minute (the provider's rate limit).
    #[arg(long, value_name = "TOKENS")]
    tokens_per_minute: Option<u64>,
    /// Report format (a dry run prints its plan as text, or JSON with --json or --format json).
    #[arg(long, value_enum, default_value_t = ReportFormat::Md)]
    format: ReportFormat,
    /// Write the report (or the plan) to FILE instead of standard output.
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// anthropic | openai | ollama (default: ripple.toml [llm] provider, else anthropic).
    #[arg(long)]
    provider: Option<String>,
    #[arg(long)]
    model: Option<String>,
    /// API root, as for `ripple migrate`.
    #[arg(long)]
    base_url: Option<String>,
}

/// The provider layer behind the review runner's model seam.
struct LlmReviewer {
    config: ripple::llm::LlmConfig,
    cancel: ripple::llm::CancelToken,
    /// Secrets replaced in the chunks sent so far.
    redactions: std::sync::Mutex<ripple::redact::Redactions>,
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
fn review(repo: &std::path::Path, args: &ReviewArgs, json: bool) -> Result<ExitCode> {
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
fn write_report(text: &str, filtered: bool) -> Result<()> {
    let mut out = TerminalWriter::new(std::io::stdout().lock(), filtered);
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}

/// Provider settings: flags over ripple.toml `[llm]` (its endpoint and key
/// variable only once trusted) over the user's config over defaults; keys
/// from the environment.
fn llm_config(
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

fn review_with_model(repo: &std::path::Path, args: &ReviewArgs, json: bool) -> Result<ExitCode> {
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

fn bench(path: &std::path::Path, runs: usize, json: bool) -> Result<ExitCode> {
    let report = ripple::bench::run(path, runs.max(1))
        .with_context(|| format!("cannot benchmark {}", path.display()))?;
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.to_text());
    }
    Ok(ExitCode::SUCCESS)
}

/// One search result as JSON: where it is, its score, and why it matched.
fn hit_json<'a>(index: &Index, h: &'a Hit) -> json::HitDoc<'a> {
    let r = DeclRef::of(index, h.decl);
    json::HitDoc {
        name: r.name,
        kind: r.kind,
        file: r.file,
        line: r.line,
        score: round3(h.score),
        why: h
            .matched
            .iter()
            .map(|m| json::Why {
                term: &m.term,
                fields: m.fields.iter().map(|f| f.name()).collect(),
            })
            .collect(),
        cosine: h.cosine.map(round3),
        generated: r.generated,
    }
}

fn round3(x: f32) -> f64 {
    (x as f64 * 1000.0).round() / 1000.0
}

/// The search index: lexical, plus the configured embedding provider's
/// vectors (embedding only declarations the index does not hold yet).
fn build_search(
    index: &Index,
    model_dir: Option<&std::path::Path>,
    include_generated: bool,
) -> Result<SearchIndex> {
    let opts = CorpusOptions {
        include_generated,
        ..CorpusOptions::default()
    };
    let Some(cfg) = embed_config(index, model_dir)? else {
        return Ok(SearchIndex::build(index, opts));
    };
    let model = ripple::semantic::backend_name(&cfg);
    let embedder = ripple::semantic::embedder(cfg)?;
    let bar = embed_bar();
    let search = SearchIndex::build_hybrid(index, opts, embedder, &bar)
        .with_context(|| format!("cannot embed declarations with {model}"))?;
    if let Some(n) = &search.neural
        && n.stats.embedded > 0
    {
        eprintln!(
            "ripple: embedded {} declarations with {model} ({:.0}% from the cache)",
            n.stats.embedded,
            n.stats.cache_hit_rate * 100.0
        );
    }
    Ok(search)
}

/// The embedding backend: `--model-dir` first, then ripple.toml [search].
fn embed_config(
    index: &Index,
    model_dir: Option<&std::path::Path>,
) -> Result<Option<ripple::semantic::config::EmbedConfig>> {
    if let Some(dir) = model_dir {
        return Ok(Some(ripple::semantic::config::local(dir)));
    }
    Ok(ripple::semantic::config::load(&index.root)?)
}

fn embed_bar() -> Bar {
    bar_with("{spinner} embedding {pos}/{len} declarations {wide_bar} {eta}")
}

fn why_text(h: &Hit) -> String {
    h.matched
        .iter()
        .map(|m| {
            let fields: Vec<&str> = m.fields.iter().map(|f| f.name()).collect();
            format!("{}({})", m.term, fields.join(","))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn print_hits(index: &Index, hits: &[Hit], out: &mut impl Write) -> Result<()> {
    if hits.is_empty() {
        writeln!(out, "  no match")?;
    }
    for h in hits {
        let r = DeclRef::of(index, h.decl);
        writeln!(out, "{:>7.3}  {}  {}", h.score, r.name, location(&r))?;
        let mut why = why_text(h);
        if let Some(c) = h.cosine {
            why = format!("cosine {c:.3}  {why}");
        }
        writeln!(out, "         {why}")?;
    }
    Ok(())
}

fn cmd_search(
    index: &Index,
    search: &SearchIndex,
    query: &str,
    top: usize,
    json: bool,
    out: &mut impl Write,
) -> Result<ExitCode> {
    let hits = search.search(query, top)?;
    if json {
        let results: Vec<json::HitDoc> = hits.iter().map(|h| hit_json(index, h)).collect();
        print_json(out, &json::QueryResults { query, results })?;
        return Ok(ExitCode::SUCCESS);
    }
    print_hits(index, &hits, out)?;
    Ok(ExitCode::SUCCESS)
}

/// One JSON line per input line, in order, so a caller can zip queries and answers.
fn cmd_search_stdin(
    index: &Index,
    search: &SearchIndex,
    top: usize,
    out: &mut impl Write,
) -> Result<ExitCode> {
    for line in std::io::stdin().lines() {
        let query = line.context("cannot read a query from standard input")?;
        let query = query.trim_end_matches('\r');
        let hits = search.search(query, top)?;
        let results: Vec<json::HitDoc> = hits.iter().map(|h| hit_json(index, h)).collect();
        write!(
            out,
            "{}",
            compact_json(&json::QueryResults { query, results })
        )?;
        writeln!(out)?;
        out.flush()?;
    }
    Ok(ExitCode::SUCCESS)
}

fn cmd_similar(
    index: &Index,
    search: &SearchIndex,
    decl: DeclId,
    top: usize,
    json: bool,
    out: &mut impl Write,
) -> Result<ExitCode> {
    let hits = search.similar(index, decl, top);
    let root = DeclRef::of(index, decl);
    if json {
        let results: Vec<json::HitDoc> = hits.iter().map(|h| hit_json(index, h)).collect();
        print_json(
            out,
            &json::SimilarDoc {
                root: root.clone(),
                results,
            },
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(out, "similar to {} ({})", root.name, location(&root))?;
    print_hits(index, &hits, out)?;
    Ok(ExitCode::SUCCESS)
}

fn bench_search(
    path: &std::path::Path,
    db: Option<&std::path::Path>,
    sample: usize,
    neural: bool,
    model_dir: Option<&std::path::Path>,
    json: bool,
) -> Result<ExitCode> {
    let bar = progress_bar();
    let index = Index::open_with(path, db, &bar)
        .with_context(|| format!("cannot index {}", path.display()))?;
    let embedder: Option<Box<dyn ripple::semantic::embed::Embedder>> = if neural {
        let cfg = embed_config(&index, model_dir)?.context(
            "--neural needs an embedding provider: set [search] in ripple.toml or pass --model-dir",
        )?;
        Some(ripple::semantic::embedder(cfg)?)
    } else {
        None
    };
    let report = ripple::semantic::bench::run(&index, sample, embedder, &embed_bar())?;
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.to_text());
    }
    Ok(ExitCode::SUCCESS)
}

//! Command line: every subcommand refreshes the index first, then answers
//! as text for people or, with `--json`, as one JSON document for programs
//! (shapes in docs/manual.md, records in `json.rs`).

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// `println!` for answers: a reader that closed the pipe (`ripple undo |
/// head`) ends the output instead of panicking, as the commands that write
/// through one `out` handle already do.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

mod args;
mod export;
mod graph;
mod hook;
mod json;
mod mcp;
mod migrate;
mod progress;
mod refactor;
mod review;
mod search;

use args::*;
use export::*;
use graph::*;
use hook::*;
use migrate::*;
use progress::*;
use refactor::*;
use review::*;
use search::*;

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
    if let Command::Mcp = &command {
        return mcp::serve(&repo);
    }
    if let Command::Hook { action } = &command {
        return hook(&repo, *action);
    }
    if let Command::Export { format } = &command {
        return cmd_export(&repo, format, json);
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
        Command::Refactor {
            action:
                RefactorAction::Rename {
                    name,
                    new_name,
                    apply,
                    include_likely,
                    include_possible,
                    allow_stable,
                },
        } => {
            let opts = RenameOpts {
                new_name,
                apply,
                selection: ripple::refactor::Selection {
                    likely: include_likely || include_possible,
                    possible: include_possible,
                    allow_stable,
                },
            };
            with_decl(&index, &name, json, |d| {
                cmd_rename(&index, d, opts, json, &mut out)
            })
        }
        Command::Refactor {
            action:
                RefactorAction::AddParam {
                    name,
                    param,
                    pass,
                    keyword,
                    common,
                },
        } => with_decl(&index, &name, json, |d| {
            let lang = index.res.decls[d].lang;
            let new =
                ripple::refactor::signature::new_param(lang, &param, pass.as_deref(), keyword)
                    .with_context(|| {
                        format!("cannot add `{param}` to {}", index.res.decls[d].name)
                    })?;
            let change = ripple::refactor::signature::Change::Add(new);
            cmd_signature(&index, d, &change, &common, json, &mut out)
        }),
        Command::Refactor {
            action:
                RefactorAction::RemoveParam {
                    name,
                    param,
                    force,
                    common,
                },
        } => with_decl(&index, &name, json, |d| {
            let change = ripple::refactor::signature::Change::Remove { name: param, force };
            cmd_signature(&index, d, &change, &common, json, &mut out)
        }),
        Command::Refactor {
            action:
                RefactorAction::ReorderParams {
                    name,
                    order,
                    common,
                },
        } => with_decl(&index, &name, json, |d| {
            let order = order
                .split(',')
                .map(|p| p.trim().to_owned())
                .filter(|p| !p.is_empty())
                .collect();
            let change = ripple::refactor::signature::Change::Reorder { order };
            cmd_signature(&index, d, &change, &common, json, &mut out)
        }),
        Command::Refactor {
            action: RefactorAction::Move { name, dest, common },
        } => with_decl(&index, &name, json, |d| {
            cmd_move(&index, d, &dest, &common, json, &mut out)
        }),
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
        | Command::Export { .. }
        | Command::Bench { .. }
        | Command::BenchSearch { .. }
        | Command::Review { .. }
        | Command::Undo
        | Command::Mcp
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
    let doc = error_doc(err);
    let kind = doc.error.kind;
    if json_requested() {
        say!("{}", compact_json(&doc));
    } else {
        // Messages quote paths and names from the repository.
        eprintln!(
            "ripple: error: {}",
            ripple::terminal_text::strip(&doc.error.message)
        );
    }
    ExitCode::from(if kind == "usage" { 2 } else { 1 })
}

/// The JSON document of a failed run: its kind and the whole chain of
/// messages.
fn error_doc(err: &anyhow::Error) -> json::ErrorDoc {
    json::ErrorDoc {
        error: json::ErrorBody {
            kind: error_kind(err),
            message: format!("{err:#}"),
            candidates: None,
        },
    }
}

/// The JSON document of a name that names nothing, or more than one thing.
fn lookup_error_doc(err: &LookupError) -> json::ErrorDoc {
    let (kind, list) = match err {
        LookupError::NotFound { suggestions, .. } => ("not_found", suggestions),
        LookupError::Ambiguous { candidates, .. } => ("ambiguous", candidates),
    };
    json::ErrorDoc {
        error: json::ErrorBody {
            kind,
            message: err.to_string(),
            candidates: Some(list.clone()),
        },
    }
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
        if cause.is::<ripple::edits::EditError>()
            || matches!(
                cause.downcast_ref::<ripple::refactor::RefactorError>(),
                Some(ripple::refactor::RefactorError::Edit(_))
            )
        {
            return "edit";
        }
        if cause.is::<ripple::refactor::RefactorError>() {
            return "refactor";
        }
        if cause.is::<ripple::export::scip::ScipError>() {
            return "export";
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
    open_reporting(repo, &progress_bar())
}

/// Refresh and load the index of `repo`, telling `progress` about the files
/// it parses.
fn open_reporting(repo: &std::path::Path, progress: &dyn Progress) -> Result<Index> {
    let index = Index::open(repo, progress).map_err(|e| {
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
                say!("{}", compact_json(&lookup_error_doc(&err)));
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

//! The command line: clap's definitions of every flag and subcommand.

use super::*;

pub(super) const EXIT_LOOKUP: u8 = 2;

/// `--model-dir`, on the commands that search.
#[derive(clap::Args, Clone, Default)]
pub(super) struct ModelDir {
    /// Search with the sentence-transformers model in DIR, run in-process, fused with the
    /// offline ranker (needs a build with `--features local-model`; overrides ripple.toml [search]).
    #[arg(long, value_name = "DIR")]
    pub(super) model_dir: Option<PathBuf>,
}

/// Caller (or callee) hops, 1 and up: 0 is refused rather than taken to
/// mean "no limit" without saying so.
pub(super) fn depth_value(text: &str) -> Result<u32, String> {
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

/// Defaults shared by the command line and the MCP server's tools, so that
/// a tool called without an argument answers as the command run without
/// the flag.
pub(super) const FIND_LIMIT: usize = 20;
pub(super) const WALK_DEPTH: u32 = 1;
pub(super) const BLAST_DEPTH: u32 = 3;
pub(super) const CONTEXT_DEPTH: u32 = 2;
pub(super) const SEARCH_TOP: usize = 10;

/// One token budget for a context pack, whether it is shown (`context`)
/// or sent (`migrate`, the explorer's migrations).
pub(super) const PACK_BUDGET: u64 = ripple::migrate::PACK_BUDGET.0;

/// What NAME may be, for every command that takes one.
pub(super) const NAME_HELP: &str = "A qualified name or a unique dotted suffix of one (validate_token, \
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
    pub(super) repo: Option<PathBuf>,

    /// Print one JSON document instead of text.
    #[arg(long, global = true)]
    pub(super) json: bool,

    /// Open the repository at PATH (without a subcommand: the explorer in a terminal, else its overview).
    #[arg(value_name = "PATH")]
    pub(super) path: Option<PathBuf>,

    /// The explorer's model for migrations: anthropic | openai | ollama (default: ripple.toml, your config, else anthropic).
    #[arg(long)]
    pub(super) provider: Option<String>,

    /// The explorer's model id for migrations (default: ripple.toml [llm] model, your config,
    /// else the provider's default).
    #[arg(long)]
    pub(super) model: Option<String>,

    /// The explorer's API root for migrations (https, or http to localhost).
    #[arg(long, value_name = "URL")]
    pub(super) base_url: Option<String>,

    #[command(subcommand)]
    pub(super) command: Option<Command>,
}

#[derive(Subcommand)]
pub(super) enum Command {
    /// Build or refresh the index and report what was indexed and skipped.
    Index,
    /// Fuzzy-find declarations by name.
    Find {
        /// Part of a declaration's name, matched fuzzily (vtok finds validate_token).
        query: String,
        /// How many results to show.
        #[arg(long, default_value_t = FIND_LIMIT)]
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
        #[arg(long, default_value_t = WALK_DEPTH, value_parser = depth_value)]
        depth: u32,
        #[arg(long, value_enum, default_value_t = MinConfidence::Possible)]
        min_confidence: MinConfidence,
    },
    /// What NAME calls, to depth N, grouped by hop.
    Callees {
        #[arg(help = NAME_HELP)]
        name: String,
        /// Hops to follow (1: direct only).
        #[arg(long, default_value_t = WALK_DEPTH, value_parser = depth_value)]
        depth: u32,
        #[arg(long, value_enum, default_value_t = MinConfidence::Possible)]
        min_confidence: MinConfidence,
    },
    /// Blast radius: callers by hop, files, packages, tests within the depth and at any depth, and what may be missing.
    Blast {
        #[arg(help = NAME_HELP)]
        name: String,
        /// Caller hops counted in the radius (1: direct callers only).
        #[arg(long, default_value_t = BLAST_DEPTH, value_parser = depth_value)]
        depth: u32,
    },
    /// What a model would see for a change to NAME: the context pack, ranked and cut to a token budget.
    Context {
        #[arg(help = NAME_HELP)]
        name: String,
        /// Caller hops to consider (1: direct callers only).
        #[arg(long, default_value_t = CONTEXT_DEPTH, value_parser = depth_value)]
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
    /// Refactor along the call graph, offline: plan the hunks, review them, write them with --apply.
    Refactor {
        #[command(subcommand)]
        action: RefactorAction,
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
        #[arg(long, default_value_t = BLAST_DEPTH, value_parser = depth_value)]
        depth: u32,
    },
    /// The whole call graph.
    Edges {
        #[arg(long, value_enum, default_value_t = EdgeFormat::Json)]
        format: EdgeFormat,
        #[arg(long, value_enum, default_value_t = MinConfidence::Possible)]
        min_confidence: MinConfidence,
    },
    /// Write the call graph in another tool's format (SCIP for Sourcegraph).
    Export {
        #[command(subcommand)]
        format: ExportFormat,
    },
    /// Serve the graph queries to coding agents over the Model Context Protocol (stdio).
    ///
    /// Tools: find, show, callers, callees, blast, tests, unresolved, context
    /// and search, each answering with its command's --json document.
    /// Read-only: it writes nothing but the index in .ripple/ and applies no
    /// edits. Configuration for Claude Code, Cursor and Zed: docs/mcp.md.
    Mcp,
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
        #[arg(long, default_value_t = SEARCH_TOP)]
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

#[derive(Clone, Copy, ValueEnum, serde::Deserialize, rmcp::schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(crate = "rmcp::schemars")]
pub(super) enum MinConfidence {
    /// One fully known target: resolved by scope, import or declared type.
    /// Under CPython's traced tests, 0.96 of these edges ran when their
    /// callee did
    Certain,
    /// Inferred through flow, every contributing value known: an
    /// assignment, a parameter, an instance attribute, each of a few
    /// targets the flow knows (0.84 ran)
    Likely,
    /// An over-approximation: every implementation (interface dispatch,
    /// the overrides `self` may reach), a value set at its cap, a method
    /// found by name on a receiver of unknown type (0.65 ran;
    /// docs/accuracy.md)
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
pub(super) enum EdgeFormat {
    Json,
    Dot,
    Mermaid,
}

#[derive(Clone, Copy, ValueEnum, PartialEq)]
pub(super) enum ReportFormat {
    Md,
    Json,
    Sarif,
}

#[derive(Subcommand)]
pub(super) enum RefactorAction {
    /// Rename a function or method and every place the index sees it used.
    ///
    /// The plan renames the definition; every call site whose edge in the
    /// call graph reaches it (only the callee's name: `obj.method(` changes
    /// `method`); Python `from m import f [as g]` imports (an alias stays),
    /// `__all__` entries and `mock.patch("pkg.mod.f")` strings; and, for a
    /// Python method, the methods it overrides and those overriding it.
    ///
    /// Confidence decides what is selected: hunks at `certain` call sites
    /// are; `likely` and `possible` ones are listed unselected (select them
    /// with --include-likely / --include-possible). Unresolved calls named
    /// like NAME, places it is handed to code ripple does not follow, Go
    /// interface methods of the same name and other mentions are listed to
    /// check by hand, with file:line.
    ///
    /// Without --apply nothing is written. --apply writes the selected
    /// hunks through the undo journal (`ripple undo` reverts them), refuses
    /// if a changed file would gain syntax errors, refreshes the index and
    /// prints the new name's callers.
    ///
    /// Exit codes: 0 done; 2 NAME not found or ambiguous; 1 the new name is
    /// not an identifier, a keyword, already taken in the same scope, or
    /// the write was refused.
    #[command(
        after_long_help = "Reading the plan: each hunk is `[x]` (selected) or `[ ]`, then LINE:COLUMN, \
its kind, its confidence and why it is there, and the line before (-) and after (+).\n\n\
Examples:\n  \
ripple refactor rename validate_token check_token           # the plan, as diffs\n  \
ripple refactor rename validate_token check_token --json    # the plan for programs\n  \
ripple refactor rename validate_token check_token --apply   # write the certain hunks\n  \
ripple refactor rename Repo.save persist --apply --include-likely\n  \
ripple --repo assets/demo refactor rename Service.Quote Estimate   # Go, a method\n  \
ripple undo                                                 # put the files back"
    )]
    Rename {
        #[arg(help = NAME_HELP)]
        name: String,
        /// The new name: an identifier of the target's language, not a keyword, not taken in the
        /// same scope (Go: a change of exportedness is warned about).
        new_name: String,
        /// Write the selected hunks (journaled: `ripple undo` reverts them).
        #[arg(long)]
        apply: bool,
        /// Also select hunks at call sites whose edge is `likely`.
        #[arg(long)]
        include_likely: bool,
        /// Also select hunks at call sites whose edge is `possible` (and `likely`).
        #[arg(long)]
        include_possible: bool,
        /// Select hunks in code ripple.toml marks `stable`.
        #[arg(long)]
        allow_stable: bool,
    },
    /// Add a parameter to a function or method and pass a value at every call.
    ///
    /// The plan edits the definition (for a Python method, also the methods
    /// it overrides and those overriding it) and every call site the call
    /// graph resolves to it: the value given with --pass is appended after
    /// the positional arguments, or as `NAME=EXPR` with --keyword (Python)
    /// and wherever a positional argument could not reach it. A Python
    /// parameter with a default and no --pass needs no call-site edit.
    ///
    /// Calls passing `*args`/`**kwargs`, Go calls whose argument count does
    /// not match (a multi-value call, a method expression), unresolved calls
    /// named like NAME, function and method values and Go interfaces
    /// declaring the method are listed to check by hand.
    ///
    /// Confidence decides what is selected, as for `rename`. Without --apply
    /// nothing is written; --apply writes through the undo journal.
    ///
    /// Exit codes: 0 done; 2 NAME not found or ambiguous; 1 PARAM or EXPR does
    /// not fit the language or the signature (the message says what to do),
    /// or the write was refused.
    #[command(
        after_long_help = "Reading the plan: each hunk is `[x]` (selected) or `[ ]`, then its LINE \
(or FIRST-LAST), kind, confidence and why, and its lines before (-) and after (+).\n\n\
Examples:\n  \
ripple refactor add-param compute_total 'leeway: int = 0'            # calls keep the default\n  \
ripple refactor add-param compute_total 'leeway: int = 0' --pass 5   # and pass 5 at each call\n  \
ripple refactor add-param compute_total leeway --pass cfg.leeway --keyword --apply\n  \
ripple refactor add-param pricing.Quote 'leeway int' --pass 0        # Go: --pass is required\n  \
ripple undo                                                          # put the files back"
    )]
    AddParam {
        #[arg(help = NAME_HELP)]
        name: String,
        /// The parameter as the definition will read: Python 'leeway: int = 0', Go 'leeway int'.
        param: String,
        /// The expression existing calls pass (required in Go and for a Python parameter without a default).
        #[arg(long = "pass", value_name = "EXPR")]
        pass: Option<String>,
        /// Pass it by name at call sites: `leeway=EXPR` (Python).
        #[arg(long)]
        keyword: bool,
        #[command(flatten)]
        common: SignatureFlags,
    },
    /// Remove a parameter from a function or method and its argument at every call.
    ///
    /// The plan removes the parameter from the definition (and a Python
    /// method's overrides) and, at every call site the call graph resolves
    /// to it, the argument passed for it — by position or by name. A call
    /// that may pass it through `*args`/`**kwargs`, or whose arguments do not
    /// map to the parameters one to one, is listed to check by hand.
    ///
    /// Refused while the body still uses the parameter (the error lists the
    /// lines), unless --force.
    ///
    /// Exit codes: 0 done; 2 NAME not found or ambiguous; 1 no such parameter,
    /// still used, or the write was refused.
    #[command(after_long_help = "Examples:\n  \
ripple refactor remove-param compute_total discount            # the plan, as diffs\n  \
ripple refactor remove-param compute_total discount --apply    # write the certain hunks\n  \
ripple refactor remove-param Service.Bill distance --force     # even though the body uses it\n  \
ripple undo")]
    RemoveParam {
        #[arg(help = NAME_HELP)]
        name: String,
        /// The parameter to remove, by name.
        param: String,
        /// Remove it even though the body still uses it.
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        common: SignatureFlags,
    },
    /// Reorder a function's or method's parameters and the positional arguments at every call.
    ///
    /// ORDER names every parameter once, comma-separated, in the new order
    /// (Python: without `self`/`cls`; `*args` and `**kwargs` by their names,
    /// which stay in place, as keyword-only parameters stay after `*`).
    /// Keyword arguments at call sites stay as they are; positional ones are
    /// reordered. A call passing `*args`, or passing by position a parameter
    /// that would move behind one it does not pass, is listed to check by hand.
    ///
    /// Exit codes: 0 done; 2 NAME not found or ambiguous; 1 ORDER is not a
    /// permutation of the parameters, moves one out of its kind or a default
    /// before a non-default, or the write was refused.
    #[command(after_long_help = "Examples:\n  \
ripple refactor reorder-params compute_total discount,items          # the plan, as diffs\n  \
ripple refactor reorder-params pricing.Quote distance,weight --apply  # Go\n  \
ripple undo")]
    ReorderParams {
        #[arg(help = NAME_HELP)]
        name: String,
        /// Every parameter once, comma-separated, in the new order: b,a,c.
        order: String,
        #[command(flatten)]
        common: SignatureFlags,
    },
    /// Move a module-level Python function or class to another module and fix every import.
    ///
    /// The definition — with its decorators, the comment lines directly
    /// above it and its docstring — leaves its module and is appended to
    /// DEST, a .py path from the repository root (created when missing, in
    /// a directory that already holds a module). DEST gets the imports the
    /// body needs: what the old module imported, imported the same way, and
    /// what it defined, imported from it.
    ///
    /// Every `from old import NAME [as alias]` (in a group too) imports it
    /// from DEST; `old.NAME` through `import old [as m]` or `from pkg import
    /// old` reads it from DEST, adding the import of DEST; the old module
    /// imports NAME from DEST when it still uses it; `__all__` and
    /// `patch("old.NAME")` strings follow. `module.NAME(...)` calls take the
    /// confidence of their edge in the call graph and are selected as for
    /// `rename`; calls ripple cannot point at DEST are listed to check by hand.
    ///
    /// Refused: a method ("moving a method is not supported"), a nested
    /// definition, a DEST that is not a .py file of the repository or binds
    /// NAME already, and a body that needs a definition of the old module
    /// when the old module imports DEST (or will, since it still uses NAME),
    /// and a move after which the old module imports NAME back from a DEST
    /// that imports it: the modules would import each other.
    ///
    /// Exit codes: 0 done; 2 NAME not found or ambiguous; 1 refused (the
    /// message says why), or the write was refused.
    #[command(
        after_long_help = "Reading the plan: each hunk is `[x]` (selected) or `[ ]`, then its LINE \
(or FIRST-LAST; `new file` for DEST when it is created), kind, confidence and why, and its lines before (-) and after (+).\n\n\
Examples:\n  \
ripple refactor move round_price shop/money.py           # the plan, as diffs\n  \
ripple refactor move round_price shop/money.py --apply   # write it\n  \
ripple refactor move with_tax shop/tax.py --apply        # into a new module\n  \
ripple refactor move shop.pricing.Discount shop/discounts.py --json\n  \
ripple undo                                              # put the files back"
    )]
    Move {
        #[arg(help = NAME_HELP)]
        name: String,
        /// The module to move it to, as a path from the repository root: shop/money.py.
        dest: String,
        #[command(flatten)]
        common: SignatureFlags,
    },
}

/// What the signature refactorings and `move` take.
#[derive(clap::Args)]
pub(super) struct SignatureFlags {
    /// Write the selected hunks (journaled: `ripple undo` reverts them).
    #[arg(long)]
    pub(super) apply: bool,
    /// Also select hunks at call sites whose edge is `likely`.
    #[arg(long)]
    pub(super) include_likely: bool,
    /// Also select hunks at call sites whose edge is `possible` (and `likely`).
    #[arg(long)]
    pub(super) include_possible: bool,
    /// Select hunks in code ripple.toml marks `stable`.
    #[arg(long)]
    pub(super) allow_stable: bool,
}

impl SignatureFlags {
    pub(super) fn selection(&self) -> ripple::refactor::Selection {
        ripple::refactor::Selection {
            likely: self.include_likely || self.include_possible,
            possible: self.include_possible,
            allow_stable: self.allow_stable,
        }
    }
}

#[derive(Subcommand)]
pub(super) enum ExportFormat {
    /// Write a SCIP index (scip.proto) for Sourcegraph's code navigation.
    ///
    /// Every declaration becomes a definition (on its name, with the whole
    /// declaration as its enclosing range) and every call site whose edge
    /// meets --min-confidence a reference on the callee's name: that is how
    /// Sourcegraph draws "find references" and call hierarchies, since SCIP
    /// has no call edge. Python overrides and Go interface implementations
    /// are `is_implementation` relationships; occurrences in test code carry
    /// the Test role; out-of-repository callees are external symbols.
    ///
    /// Symbols are named as scip-python and scip-go name them (below), so
    /// the index merges with theirs. DIST and VERSION come from
    /// pyproject.toml, else the directory's name and the commit; MODULE from
    /// go.mod and VERSION from the tag at HEAD, else the commit's first 12
    /// digits. Pass the same --project-name, --project-version or
    /// --module-version you give those indexers.
    ///
    /// Each symbol's documentation counts its call edges by confidence and
    /// lists the references that are not certain.
    #[command(after_long_help = "Symbols:\n  \
scip-python python DIST VERSION `pkg.mod`/Class#method().\n  \
scip-go gomod MODULE VERSION `import/path`/Type#Method().\n\n\
Examples:\n  \
ripple export scip                                   # ./index.scip, every edge\n  \
ripple export scip -o out/index.scip --min-confidence likely\n  \
ripple --repo assets/demo export scip -o - | gzip > index.scip.gz\n\n\
In CI, one index per commit:\n  \
ripple export scip -o index.scip && src code-intel upload -file=index.scip")]
    Scip {
        /// Where to write the index (`-` for stdout); a relative path is relative to the current
        /// directory, not to --repo.
        #[arg(short, long, value_name = "FILE", default_value = "index.scip")]
        output: PathBuf,
        /// Leave out references at call sites whose edge is less sure than this; the kept ones
        /// are counted by level in each callee's documentation.
        #[arg(long, value_enum, default_value_t = MinConfidence::Possible)]
        min_confidence: MinConfidence,
        /// Python distribution name in symbols (scip-python's --project-name).
        #[arg(long, value_name = "NAME")]
        project_name: Option<String>,
        /// Python distribution version in symbols (scip-python's --project-version).
        #[arg(long, value_name = "VERSION")]
        project_version: Option<String>,
        /// Go module version in symbols (scip-go's --module-version).
        #[arg(long, value_name = "VERSION")]
        module_version: Option<String>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
pub(super) enum HookAction {
    Install,
    Uninstall,
}

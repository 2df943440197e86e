//! Review: an LLM review of a whole repository or of a diff, in
//! token-budgeted chunks of related code.
//!
//! The flow has three passes, one module each, and a seam where the model
//! plugs in:
//!
//! 1. [`scope`] — which files are reviewed and which are skipped, and why
//!    (the index's inventory, off-limits and secret files from `ripple.toml`,
//!    languages not reviewed yet). No file is dropped silently.
//! 2. [`plan`] — grouping into chunks of at most `--budget` tokens (counted
//!    with the real tokenizer, the prompt included): tests with the module
//!    they test, files coupled in the call graph, directories; oversized
//!    files split at declaration boundaries; chunks ordered by call-graph
//!    centrality and git churn so a total budget covers what matters first.
//!    [`diff`] plans a review of the declarations changed since a git base.
//! 3. [`runner`] — chunks sent in parallel to a [`runner::ReviewModel`] with
//!    a concurrency and a token-rate limit; replies parsed by [`findings`]
//!    (tolerant of fences and truncation), validated against the chunk and
//!    merged across chunks; [`report`] renders Markdown, JSON and SARIF.
//!
//! Nothing here talks to a network: the provider that implements
//! `ReviewModel` lives in the LLM layer.

pub mod cost;
pub mod diff;
pub mod filegraph;
pub mod findings;
pub mod git;
pub mod last;
pub mod plan;
pub mod prompt;
pub mod report;
pub mod runner;
pub mod scope;
pub mod units;

pub use findings::{Finding, Severity};
pub use plan::{Chunk, Plan, PlanOptions};
pub use runner::{ModelError, ModelReply, ReviewModel, RunOptions};

/// Why a review could not be planned.
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error(transparent)]
    Conventions(#[from] crate::conventions::ConventionsError),
    #[error("{0}")]
    Git(#[from] git::GitError),
    #[error(
        "the budget of {budget} tokens leaves no room for code: the prompt itself takes {overhead}; raise --budget"
    )]
    BudgetTooSmall { budget: u64, overhead: u64 },
    #[error(
        "chunk [{chunk}] has {tokens} tokens, over the budget of {budget} (a planner bug; please report it)"
    )]
    ChunkOverBudget {
        chunk: String,
        tokens: u64,
        budget: u64,
    },
    #[error(transparent)]
    Index(#[from] crate::index::IndexError),
}

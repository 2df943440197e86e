//! `ripple mcp`: the graph queries as Model Context Protocol tools over
//! stdio, for coding agents. Each tool answers with the document its
//! command prints with `--json`, built by the same function, as structured
//! content and as a JSON text block; the tools only read (the index in
//! `.ripple/` is the one thing written) and never edit.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, ErrorData, Implementation, ProgressNotificationParam,
    ProgressToken, ServerCapabilities, ServerConfig,
};
use rmcp::schemars::JsonSchema;
use rmcp::service::RequestContext;
use rmcp::{Peer, RoleServer, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use serde::Deserialize;
use tokio::sync::mpsc;

use super::*;

/// What an agent reads about confidence, in every tool that reports edges
/// (docs/manual.md, "Confidence levels", says the same at length).
macro_rules! confidence {
    () => {
        " Every edge has a confidence: `certain` = one fully known target (a direct call \
resolved by scope, import or declared type); `likely` = inferred through data flow, every \
contributing value known (an assignment, a parameter, an instance attribute, a function handed \
to library code that calls it, each of a few targets the flow knows); `possible` = an \
over-approximation (one of several candidates such as interface dispatch or every override \
`self` may reach, every implementation when the receiver cannot be traced, a value \
set at its cap, or a method found by name alone, marked `receiver_unknown`, when its receiver's \
type is unknown). Treat certain as fact, check likely, read possible as candidates."
    };
}

/// What NAME may be, as the command line's help says it.
macro_rules! name_help {
    () => {
        "A qualified name (shop.auth.tokens.validate_token, \
(*github.com/acme/shipd/internal/shipping.Service).Quote) or a unique dotted suffix of one \
(validate_token, Service.Quote); `find` turns a partial name into one."
    };
}

const INSTRUCTIONS: &str = concat!(
    "ripple answers questions about the function-level call graph of this Python/Go repository: \
who calls a function, what changing it breaks, which tests reach it. Prefer these tools to \
grepping for names: calls through imports, aliases, methods, interfaces and functions passed as \
values are resolved. Start with `find` (or `search` when you only know what the code does), \
then `blast` before a change, `callers`/`callees` to walk the graph, `tests` for what to run, \
and `context` for the code a change touches. The index refreshes before every answer. The \
tools only read; they never edit files.",
    confidence!()
);

#[derive(Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
struct FindArgs {
    /// Part of a declaration's name, matched fuzzily (`vtok` finds validate_token).
    query: String,
    /// How many results to return (default 20).
    #[serde(default = "find_limit")]
    limit: usize,
}

#[derive(Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
struct NameArgs {
    #[doc = name_help!()]
    name: String,
}

#[derive(Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
struct WalkArgs {
    #[doc = name_help!()]
    name: String,
    /// Hops to follow, 1 and up (default 1: direct only).
    #[serde(default = "walk_depth")]
    #[schemars(range(min = 1))]
    depth: u32,
    /// The weakest confidence kept (default possible: every edge).
    #[serde(default = "all_edges")]
    min_confidence: MinConfidence,
}

#[derive(Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
struct BlastArgs {
    #[doc = name_help!()]
    name: String,
    /// Caller hops counted in the radius, 1 and up (default 3).
    #[serde(default = "blast_depth")]
    #[schemars(range(min = 1))]
    depth: u32,
}

#[derive(Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
struct UnresolvedArgs {
    /// Only inside this declaration's caller radius (a name as for `blast`); the whole
    /// repository when left out.
    #[serde(default)]
    name: Option<String>,
    /// Caller hops of that radius, 1 and up (default 3).
    #[serde(default = "blast_depth")]
    #[schemars(range(min = 1))]
    depth: u32,
}

#[derive(Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
struct ContextArgs {
    #[doc = name_help!()]
    name: String,
    /// Caller hops to consider, 1 and up (default 2).
    #[serde(default = "context_depth")]
    #[schemars(range(min = 1))]
    depth: u32,
    /// Token budget of the pack, in o200k tokens (default 12000).
    #[serde(default = "pack_budget")]
    budget: u64,
    /// The change you intend to make; it ranks what the pack keeps.
    #[serde(default)]
    change: Option<String>,
    /// Also offer the K declarations most similar to NAME, below the callers
    /// (default: ripple.toml [context] similar, else 0).
    #[serde(default)]
    similar: Option<usize>,
}

#[derive(Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
struct SearchArgs {
    /// What the code does, in words or code ("parse auth headers").
    query: String,
    /// How many results to return (default 10).
    #[serde(default = "search_top")]
    top: usize,
    /// Search generated code too (protobuf stubs, `DO NOT EDIT` files).
    #[serde(default)]
    include_generated: bool,
}

fn find_limit() -> usize {
    FIND_LIMIT
}
fn walk_depth() -> u32 {
    WALK_DEPTH
}
fn blast_depth() -> u32 {
    BLAST_DEPTH
}
fn context_depth() -> u32 {
    CONTEXT_DEPTH
}
fn pack_budget() -> u64 {
    PACK_BUDGET
}
fn search_top() -> usize {
    SEARCH_TOP
}
fn all_edges() -> MinConfidence {
    MinConfidence::Possible
}

/// Why a tool could not answer: the command line would have printed the
/// same error document and exited non-zero.
enum Failure {
    Lookup(LookupError),
    Other(anyhow::Error),
}

impl From<LookupError> for Failure {
    fn from(e: LookupError) -> Self {
        Failure::Lookup(e)
    }
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Self {
        Failure::Other(e)
    }
}

impl Failure {
    fn doc(&self) -> json::ErrorDoc {
        match self {
            Failure::Lookup(e) => lookup_error_doc(e),
            Failure::Other(e) => error_doc(e),
        }
    }
}

/// The command line refuses depth 0 while parsing its flags; a tool refuses
/// it with the same words.
fn depth(d: u32) -> Result<u32, Failure> {
    depth_value(&d.to_string()).map_err(|e| Failure::Other(UsageError(e).into()))
}

fn decl(index: &Index, name: &str) -> Result<DeclId, Failure> {
    Ok(lookup::resolve(&index.res, name)?)
}

fn value(doc: &impl serde::Serialize) -> Result<serde_json::Value, Failure> {
    Ok(serde_json::to_value(doc).map_err(anyhow::Error::from)?)
}

/// Parsing progress, forwarded to the client as MCP progress notifications
/// when its request carried a progress token. Parsing runs on many threads,
/// so ticks are counted here and sent about fifty times at most.
struct Notifier {
    sender: Option<mpsc::UnboundedSender<(u64, u64)>>,
    total: AtomicU64,
    done: AtomicU64,
}

impl Notifier {
    fn send(&self, done: u64, total: u64) {
        if let Some(s) = &self.sender {
            let _ = s.send((done, total));
        }
    }
}

impl Progress for Notifier {
    fn start(&self, total: usize) {
        let total = total as u64;
        self.total.store(total, Ordering::Relaxed);
        self.done.store(0, Ordering::Relaxed);
        if total > 0 {
            self.send(0, total);
        }
    }
    fn tick(&self) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        let total = self.total.load(Ordering::Relaxed);
        if done == total || done.is_multiple_of((total / 50).max(1)) {
            self.send(done, total);
        }
    }
}

/// Send the counts `Notifier` queues, in increasing order only: ticks from
/// several threads can reach the queue out of order, and the protocol wants
/// progress that only grows.
async fn forward_progress(
    peer: Peer<RoleServer>,
    token: ProgressToken,
    mut queue: mpsc::UnboundedReceiver<(u64, u64)>,
) {
    let mut last = None;
    while let Some((done, total)) = queue.recv().await {
        if last.is_some_and(|l| done <= l) {
            continue;
        }
        last = Some(done);
        let note = ProgressNotificationParam::new(token.clone(), done as f64)
            .with_total(total as f64)
            .with_message(format!("parsing {done}/{total} files"));
        // A client that stopped listening still gets its answer.
        let _ = peer.notify_progress(note).await;
    }
}

#[derive(Clone)]
pub(super) struct RippleServer {
    repo: Arc<PathBuf>,
    /// One refresh at a time: two at once would parse the same changed
    /// files twice and wait on each other for the index's write lock.
    refresh: Arc<Mutex<()>>,
}

impl RippleServer {
    /// Refresh the index (reporting progress when asked to), then build the
    /// answer from it, off the protocol's thread.
    async fn answer(
        &self,
        ctx: RequestContext<RoleServer>,
        build: impl FnOnce(&Index) -> Result<serde_json::Value, Failure> + Send + 'static,
    ) -> Result<CallToolResult, ErrorData> {
        let (sender, forwarder) = match ctx.meta.get_progress_token() {
            Some(token) => {
                let (tx, rx) = mpsc::unbounded_channel();
                let task = tokio::spawn(forward_progress(ctx.peer.clone(), token, rx));
                (Some(tx), Some(task))
            }
            None => (None, None),
        };
        let repo = Arc::clone(&self.repo);
        let refresh = Arc::clone(&self.refresh);
        let work = tokio::task::spawn_blocking(move || {
            let notifier = Notifier {
                sender,
                total: AtomicU64::new(0),
                done: AtomicU64::new(0),
            };
            let index = {
                let _one = refresh.lock().unwrap_or_else(|p| p.into_inner());
                open_reporting(&repo, &notifier)?
            };
            // Closes the progress queue: the last notification can go out
            // while the answer is built.
            drop(notifier);
            build(&index)
        })
        .await;
        // Every notification goes out before the answer that ends the request.
        if let Some(task) = forwarder {
            let _ = task.await;
        }
        match work {
            Ok(Ok(doc)) => {
                let text = serde_json::to_string_pretty(&doc)
                    .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
                result.structured_content = Some(doc);
                Ok(result)
            }
            Ok(Err(failure)) => {
                // As the command line prints an error with --json: one line.
                let doc = failure.doc();
                let mut result =
                    CallToolResult::error(vec![ContentBlock::text(compact_json(&doc))]);
                result.structured_content = serde_json::to_value(&doc).ok();
                Ok(result)
            }
            Err(e) => Err(ErrorData::internal_error(
                format!("ripple failed while answering: {e}"),
                None,
            )),
        }
    }
}

#[tool_router]
impl RippleServer {
    fn new(repo: PathBuf) -> Self {
        RippleServer {
            repo: Arc::new(repo),
            refresh: Arc::new(Mutex::new(())),
        }
    }

    #[tool(
        description = "Find declarations by name, fuzzily: turns a partial or half-remembered name \
into the qualified names the other tools take (`vtok` finds validate_token). Use it first when \
you know roughly what a function is called; use `search` when you only know what it does. \
Answers as `ripple find --json`: {query, results: [{name, kind, file, line, score}]}.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn find(
        &self,
        Parameters(a): Parameters<FindArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.answer(ctx, move |index| value(&find_doc(index, &a.query, a.limit)))
            .await
    }

    #[tool(
        description = concat!("One declaration: kind, language, file and line span, signature, \
docstring, whether it is a test, and how many callers and callees it has at each confidence. Use \
it to check you have the right symbol before a larger query. Answers as `ripple show --json`: \
{name, kind, lang, file, line, end_line, signature, doc, is_test, callers: COUNTS, callees: \
COUNTS}, COUNTS = {total, certain, likely, possible}.", confidence!()),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn show(
        &self,
        Parameters(a): Parameters<NameArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.answer(ctx, move |index| {
            value(&show_doc(index, decl(index, &a.name)?))
        })
        .await
    }

    #[tool(
        description = concat!("Who calls NAME, grouped by hop (depth 1 = direct callers), each \
with its confidence, file and line, the call's line and the declaration it was reached through. \
Use it instead of grepping for a name: calls through imports, aliases, methods, interfaces and \
functions passed as values are found, and same-named functions elsewhere are not. Answers as \
`ripple callers --json`: {root, direction, depth, hops: [{hop, decls: [{name, kind, file, line, \
is_test, hop, confidence, via, call_line}]}]}.", confidence!()),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn callers(
        &self,
        Parameters(a): Parameters<WalkArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.walk(a, Direction::Callers, ctx).await
    }

    #[tool(
        description = concat!("What NAME calls, grouped by hop (depth 1 = direct callees), each \
with its confidence; calls out of the repository (standard library, third-party) are leaves of \
kind `external`. Use it to learn what a function depends on before changing or moving it. \
Answers as `ripple callees --json`, the same shape as `callers`.", confidence!()),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn callees(
        &self,
        Parameters(a): Parameters<WalkArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.walk(a, Direction::Callees, ctx).await
    }

    #[tool(
        description = concat!("The blast radius of changing NAME: its callers per hop up to \
depth (default 3) with counts per confidence, the files and packages they are in, the tests \
within the depth and how many reach NAME at any depth, the CODEOWNERS owners of those files, and \
why the answer may be a lower bound (`lower_bound`; unresolved call sites named like NAME, \
unresolved calls inside the radius, NAME handed to code ripple does not follow). Use it before \
changing a function's signature or behaviour: it says what else must change, what to test and \
who to tell. Answers as `ripple blast --json`.", confidence!()),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn blast(
        &self,
        Parameters(a): Parameters<BlastArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.answer(ctx, move |index| {
            let depth = depth(a.depth)?;
            value(&blast_doc(index, decl(index, &a.name)?, depth))
        })
        .await
    }

    #[tool(
        description = concat!("The test functions that reach NAME through its callers at any \
depth, with the hop and confidence of each. Use it after changing NAME, to run the tests that \
exercise it rather than the whole suite. Answers as \
`ripple tests --json`: {root, tests: [{name, kind, file, line, is_test, hop, confidence, via, \
call_line}]}.", confidence!()),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn tests(
        &self,
        Parameters(a): Parameters<NameArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.answer(ctx, move |index| {
            value(&tests_doc(index, decl(index, &a.name)?))
        })
        .await
    }

    #[tool(
        description = "Call sites the graph could not resolve, with the reason for each: in \
the whole repository, or, given a name, inside that declaration's caller radius of `depth` \
hops. Use it to judge how complete a `callers` or `blast` answer is, and which calls to check \
by hand. Answers as `ripple unresolved --json`: {scope, count, calls: [{caller, file, line, \
text, reason}]}.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn unresolved(
        &self,
        Parameters(a): Parameters<UnresolvedArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.answer(ctx, move |index| match &a.name {
            None => value(&unresolved_doc(index, None, 0)),
            Some(name) => {
                let depth = depth(a.depth)?;
                value(&unresolved_doc(index, Some(decl(index, name)?), depth))
            }
        })
        .await
    }

    #[tool(
        description = concat!("The focused context for a change to NAME within a token budget \
(o200k tokens, default 12000): NAME in full, its direct callers in full, farther callers as \
signatures and call lines, the tests that reach it, the types its signature names and a short \
repository summary; ranked, with what was cut and why, and the token counts of the pack and of \
the whole repository. Use it to read exactly the code a change touches instead of whole files. \
Answers as `ripple context --json`: {target, change, depth, budget, items: [ITEM], cut: [ITEM], \
tokens, repo_tokens, ratio}, ITEM = {kind, name, file, start_line, end_line, why, hop, \
confidence, tokens, text}.", confidence!()),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn context(
        &self,
        Parameters(a): Parameters<ContextArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.answer(ctx, move |index| {
            let depth = depth(a.depth)?;
            let d = decl(index, &a.name)?;
            let similar = similar_count(index, a.similar)?;
            value(&context_doc(index, d, depth, a.budget, a.change, similar))
        })
        .await
    }

    #[tool(
        description = "Declarations ranked by what they do, for a query in words or code \
(\"parse auth headers\", \"retry with backoff\"): matched against names, paths, signatures, \
docstrings, comments and bodies, with why each matched. Runs offline unless the repository's \
ripple.toml [search] names an embedding provider. Use it when you do not know a name; generated \
code is left out unless include_generated. Answers as `ripple search --json`: {query, results: \
[{name, kind, file, line, score, why: [{term, fields}]}]}.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn search(
        &self,
        Parameters(a): Parameters<SearchArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.answer(ctx, move |index| {
            let search = build_search(index, None, a.include_generated)?;
            value(&search_doc(index, &search, &a.query, a.top)?)
        })
        .await
    }
}

impl RippleServer {
    async fn walk(
        &self,
        a: WalkArgs,
        dir: Direction,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.answer(ctx, move |index| {
            let depth = depth(a.depth)?;
            let d = decl(index, &a.name)?;
            value(&walk_doc(index, d, dir, depth, a.min_confidence.into()))
        })
        .await
    }
}

#[tool_handler]
impl ServerHandler for RippleServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("ripple", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }
}

/// Serve `repo`'s graph on stdin/stdout until the client closes the stream.
pub(super) fn serve(repo: &std::path::Path) -> Result<ExitCode> {
    // A client shows a server that exits at once as failed to start, which
    // says more than a server whose every answer is the same error.
    if !repo.is_dir() {
        return Err(UsageError(format!(
            "cannot serve {}: not a directory; pass an existing repository with --repo PATH",
            repo.display()
        ))
        .into());
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the MCP server's runtime")?;
    runtime.block_on(async {
        let server = RippleServer::new(repo.to_path_buf())
            .serve(rmcp::transport::stdio())
            .await
            .context("the MCP handshake failed")?;
        server
            .waiting()
            .await
            .context("the MCP connection failed")?;
        Ok(ExitCode::SUCCESS)
    })
}

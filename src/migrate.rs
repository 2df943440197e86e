//! The migrate loop without a screen: a change to one declaration becomes a
//! context pack and a prompt, the model's reply streams in, each completed
//! SEARCH/REPLACE block becomes a planned hunk against the files as they are
//! now, and the caller decides what happens to them (the headless command
//! writes a patch or applies what applies cleanly; the explorer asks per
//! hunk). Off-limits code and secrets never reach the prompt; a reply cut
//! before its end marker is reported and nothing from it is applied.

use std::path::Path;

use serde::Serialize;

use crate::context::{self, ContextPack, PackOptions};
use crate::conventions::{Class, Conventions};
use crate::edits::{EditBlock, EditStreamParser, Hunk, Planner, Snapshot};
use crate::index::Index;
use crate::llm::{self, CancelToken, ChatRequest, Completion, LlmConfig, LlmError, StreamEvent};
use crate::resolve::DeclId;
use crate::tokens::TokenCount;

/// The instructions every migration request carries (the edit protocol of
/// llm-wire-formats.md §5).
pub const SYSTEM_PROMPT: &str = "You are ripple's migration assistant. A developer is changing one function in a large codebase; you assess the impact on the code that calls it and write the edits that migrate those callers.

Answer in two parts.

1. Start with `## Impact`: a short assessment in Markdown — what the change means, which callers must change and why, which are unaffected, and any risk (behaviour changes, tests to update, call sites you cannot see).

2. Then the edits, as SEARCH/REPLACE blocks, exactly in this format:

path/to/file.py
```python
<<<<<<< SEARCH
lines copied exactly from the file
=======
the new lines
>>>>>>> REPLACE
```

Rules for edits:
- The path line is the repository-relative path exactly as shown in the `# path:line` headers of the context, alone on its line.
- SEARCH is a contiguous run of whole lines copied exactly from the file as shown: same indentation, same comments. No `...`, no line numbers.
- Keep each block small: the changed lines plus a few lines of context, enough to be unique in the file. One block per call site. An empty REPLACE deletes.
- Edit only code shown in the context. Include the changed declaration itself if its signature or body must change.
- If nothing needs to change, say so and emit no blocks.";

/// A migration request.
pub struct MigrateRequest<'a> {
    pub target: DeclId,
    pub change: &'a str,
    pub depth: u32,
    pub budget: TokenCount,
    /// Similar declarations to offer in the pack (0: none).
    pub similar: usize,
}

/// What the loop reports as the reply streams in.
pub enum MigrateEvent<'a> {
    /// Assessment or other text as it arrives.
    Text(&'a str),
    /// A block became a planned hunk.
    Hunk(&'a Hunk),
    Retrying {
        attempt: u32,
        reason: &'a str,
    },
}

#[derive(Debug, Serialize)]
pub struct MigrateOutcome {
    pub pack_tokens: TokenCount,
    pub repo_tokens: TokenCount,
    pub prompt_tokens: TokenCount,
    /// Everything outside the edit blocks.
    pub assessment: String,
    pub hunks: Vec<Hunk>,
    /// Blocks that started but were unusable (no closing marker…).
    pub discarded: usize,
    pub truncated: bool,
    pub truncation_note: Option<String>,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cost_usd: Option<f64>,
    pub stop_reason: String,
}

/// Conventions decide what may be sent: off-limits code and secrets never are.
pub fn excluded_by(conventions: &Conventions) -> impl Fn(&str) -> bool + '_ {
    move |path: &str| {
        conventions.is_secret(path) || conventions.class_of_path(path) == Some(Class::OffLimits)
    }
}

/// The pack and the two prompt parts for a change.
pub fn prepare(
    index: &Index,
    conventions: &Conventions,
    req: &MigrateRequest,
) -> (ContextPack, ChatRequest) {
    let exclude = excluded_by(conventions);
    let opts = PackOptions {
        depth: req.depth,
        budget: req.budget,
        change: Some(req.change.to_owned()),
        exclude: &exclude,
        similar: req.similar,
    };
    let pack = context::build(index, req.target, &opts);
    let user = format!(
        "{}\n## The change\n\nChange `{}` ({}:{}): {}\n\nMigrate every caller shown above that needs it.\n",
        context::render(&pack),
        pack.target.name,
        pack.target.file.as_deref().unwrap_or("?"),
        pack.target.line,
        req.change.trim()
    );
    (
        pack,
        ChatRequest {
            system: SYSTEM_PROMPT.to_owned(),
            user,
        },
    )
}

/// Run one migration: stream the model's answer, planning each block as it
/// completes. Nothing is written to disk here.
pub fn run(
    index: &Index,
    conventions: &Conventions,
    config: &LlmConfig,
    req: &MigrateRequest,
    cancel: &CancelToken,
    on_event: &mut dyn FnMut(MigrateEvent),
) -> Result<MigrateOutcome, LlmError> {
    let (pack, chat) = prepare(index, conventions, req);
    let prompt_tokens = crate::tokens::count(&chat.system) + crate::tokens::count(&chat.user);
    let root: &Path = &index.root;
    let mut parser = EditStreamParser::new();
    let mut planner = Planner::new(root, Snapshot::new(), conventions);
    let mut hunks: Vec<Hunk> = Vec::new();
    let mut plan_blocks =
        |blocks: Vec<EditBlock>, hunks: &mut Vec<Hunk>, on_event: &mut dyn FnMut(MigrateEvent)| {
            for b in blocks {
                let h = planner.plan_block(&b);
                on_event(MigrateEvent::Hunk(&h));
                hunks.push(h);
            }
        };
    let completion: Completion = {
        let mut handler = |ev: StreamEvent| match ev {
            StreamEvent::Text(t) => {
                on_event(MigrateEvent::Text(&t));
                let blocks = parser.push(&t);
                plan_blocks(blocks, &mut hunks, on_event);
            }
            StreamEvent::Retrying {
                attempt, reason, ..
            } => on_event(MigrateEvent::Retrying {
                attempt,
                reason: &reason,
            }),
            StreamEvent::Usage(_) => {}
        };
        llm::stream_chat(config, &chat, cancel, &mut handler)?
    };
    let summary = parser.finish();
    if !completion.truncated {
        plan_blocks(summary.final_blocks, &mut hunks, on_event);
    }
    Ok(MigrateOutcome {
        pack_tokens: pack.tokens,
        repo_tokens: pack.repo_tokens,
        prompt_tokens,
        assessment: summary.prose,
        hunks,
        discarded: summary.discarded.len(),
        truncated: completion.truncated,
        truncation_note: completion.truncation_note,
        input_tokens: completion.usage.input_tokens,
        output_tokens: completion.usage.output_tokens,
        cost_usd: completion.cost_usd,
        stop_reason: completion.stop_reason,
    })
}

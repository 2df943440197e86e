//! The migrate loop without a screen: a change to one declaration becomes a
//! context pack and a prompt, the model's reply streams in, each completed
//! SEARCH/REPLACE block becomes a planned hunk against the files as they are
//! now, and the caller decides what happens to them (the headless command
//! writes a patch or applies what applies cleanly; the explorer asks per
//! hunk). Off-limits code and secrets never reach the prompt; a reply cut
//! before its end marker is reported and nothing from it is applied. The
//! files of the pack are the files of the change: a hunk for any other file
//! is refused or marked, as the request's [`OutsidePolicy`] says.

use std::path::Path;

use serde::Serialize;

use crate::context::{self, ContextPack, PackOptions};
use crate::conventions::{Class, ContextSettings, Conventions, RippleToml};
use crate::edits::{
    self, ApplyReport, DiscardedBlock, EditBlock, EditError, EditStreamParser, Hunk, OutsidePolicy,
    Planner, Snapshot,
};
use crate::index::Index;
use crate::llm::trust::{self, LlmFlags};
use crate::llm::{self, CancelToken, ChatRequest, Completion, LlmConfig, LlmError, StreamEvent};
use crate::resolve::DeclId;
use crate::tokens::TokenCount;

/// The token budget of a context pack unless told otherwise: `context`,
/// `migrate` and the explorer's migrations all default to it, so the pack
/// `context` shows is the one a migration sends.
pub const PACK_BUDGET: TokenCount = TokenCount(12_000);

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
    /// Hunks for files the pack does not hold (or new files).
    pub outside: OutsidePolicy,
}

/// What the loop reports as the reply streams in.
pub enum MigrateEvent<'a> {
    /// The context pack is built, before the request is sent.
    Pack(&'a ContextPack),
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
    /// Blocks that started but were unusable (no closing marker, no
    /// path…), each with its line in the reply and why it was dropped.
    pub discarded: Vec<DiscardedBlock>,
    pub truncated: bool,
    pub truncation_note: Option<String>,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cost_usd: Option<f64>,
    pub stop_reason: String,
    /// Secrets replaced by placeholders in the prompt before it was sent.
    pub redactions: crate::redact::Redactions,
}

/// Why a migration cannot start.
#[derive(Debug, thiserror::Error)]
pub enum MigrateError {
    #[error("cannot read ripple.toml")]
    Conventions(#[source] crate::conventions::ConventionsError),
    #[error("{name} is off-limits in ripple.toml: ripple never sends it to a model or edits it")]
    OffLimits { name: String },
    /// The model settings are unusable (no key, an untrusted endpoint…).
    #[error(transparent)]
    Llm(#[from] LlmError),
}

/// What a migration of one declaration needs before it can ask a model.
#[derive(Debug, Clone)]
pub struct Settings {
    pub conventions: Conventions,
    pub llm: LlmConfig,
    /// `[context]`: what the pack holds unless a flag says otherwise.
    pub context: ContextSettings,
}

/// Refuse a target the team fenced off: neither its file nor its name may
/// be `off_limits`. Checked before anything is read for the prompt.
pub fn guard_target(
    index: &Index,
    conventions: &Conventions,
    target: DeclId,
) -> Result<(), MigrateError> {
    let decl = &index.res.decls[target];
    let path = index
        .file_of(target)
        .map(|f| f.path.as_str())
        .unwrap_or_default();
    if conventions.class_of_path(path) == Some(Class::OffLimits)
        || conventions.class_of_symbol(&decl.name, path) == Some(Class::OffLimits)
    {
        return Err(MigrateError::OffLimits {
            name: decl.name.to_string(),
        });
    }
    Ok(())
}

/// The repository's conventions and the model settings for migrating
/// `target`, in the order a user fixes them: a broken `ripple.toml`, then a
/// fenced-off target, then the provider settings (flags, the repository's
/// trusted `[llm]`, the user's file, the environment).
pub fn settings(index: &Index, target: DeclId, flags: &LlmFlags) -> Result<Settings, MigrateError> {
    let file = RippleToml::load(&index.root).map_err(MigrateError::Conventions)?;
    let context = file.context.clone();
    let conventions = Conventions::from_file(file).map_err(MigrateError::Conventions)?;
    guard_target(index, &conventions, target)?;
    let llm = trust::config_for_repo(&index.root, conventions.llm_table(), flags)?;
    Ok(Settings {
        conventions,
        llm,
        context,
    })
}

/// What writing the accepted hunks did.
#[derive(Debug)]
pub struct ApplyOutcome {
    pub report: ApplyReport,
    /// Files the hunks left with more syntax errors than they had.
    pub regressions: Vec<SyntaxRegression>,
}

/// Write `hunks` to the files under `root`, journaled so that `ripple undo`
/// (or the explorer's `U`) restores them, and say which files they broke.
/// The syntax check runs first because it compares against the files as
/// they were; a broken file is still written, since the user accepted it
/// and the journal can take it back.
pub fn apply_accepted(root: &Path, hunks: &[&Hunk]) -> Result<ApplyOutcome, EditError> {
    let regressions = syntax_regressions(root, hunks);
    let report = edits::apply(root, hunks, &edits::default_journal_dir(root))?;
    Ok(ApplyOutcome {
        report,
        regressions,
    })
}

/// Conventions decide what may be sent: off-limits code and secrets never are.
pub fn excluded_by(conventions: &Conventions) -> impl Fn(&str) -> bool + '_ {
    move |path: &str| {
        conventions.is_secret(path) || conventions.class_of_path(path) == Some(Class::OffLimits)
    }
}

/// The files of the change: those the pack sent to the model, whose code it
/// saw (cut items were not sent). A generated file is never one of them:
/// what changes it is its generator, so an edit to it counts as outside the
/// change, refused headless and left unaccepted in the explorer.
pub fn pack_files(index: &Index, pack: &ContextPack) -> Vec<String> {
    let generated: std::collections::HashSet<&str> = index
        .files
        .iter()
        .filter(|f| f.generated)
        .map(|f| f.path.as_str())
        .collect();
    let mut files: Vec<String> = pack
        .items
        .iter()
        .filter_map(|i| i.file.clone())
        .filter(|f| !generated.contains(f.as_str()))
        .collect();
    files.sort();
    files.dedup();
    files
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
    on_event(MigrateEvent::Pack(&pack));
    let prompt_tokens = crate::tokens::count(&chat.system) + crate::tokens::count(&chat.user);
    let root: &Path = &index.root;
    let mut parser = EditStreamParser::new();
    let mut planner = Planner::new(root, Snapshot::new(), conventions)
        .with_pack(pack_files(index, &pack), req.outside);
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
        discarded: summary.discarded,
        truncated: completion.truncated,
        truncation_note: completion.truncation_note,
        input_tokens: completion.usage.input_tokens,
        output_tokens: completion.usage.output_tokens,
        cost_usd: completion.cost_usd,
        stop_reason: completion.stop_reason,
        redactions: completion.redactions,
    })
}

/// A file that parses worse with a set of hunks than without them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SyntaxRegression {
    pub path: String,
    /// Syntax errors (tree-sitter ERROR and MISSING nodes) with the hunks.
    pub errors: u32,
    /// Without them (the file as it is on disk before the write).
    pub before: u32,
    /// The hunks to blame: those that break the file on their own, or
    /// every hunk of the file when only their combination does.
    pub hunks: Vec<crate::edits::HunkId>,
}

/// Which files `hunks` would leave with more syntax errors than they have
/// now, and which hunks are to blame. Computed from the files as they are
/// (call it before writing): a file that was already broken is only
/// reported when the edit makes it worse, so a migration in a repository
/// with a known-bad file is not blamed for it. Hunks that cannot be
/// prepared (stale, overlapping) are left to the write to report.
pub fn syntax_regressions(root: &Path, hunks: &[&Hunk]) -> Vec<SyntaxRegression> {
    let count = |path: &str, bytes: Option<&[u8]>| -> Option<u32> {
        let lang = crate::model::Lang::from_path(path)?;
        Some(bytes.map_or(0, |b| crate::edits::syntax_errors_after(lang, b)))
    };
    let Ok(files) = crate::edits::apply::prepare(root, hunks) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for f in files {
        let (Some(before), Some(errors)) = (
            count(&f.path, f.before.as_deref()),
            count(&f.path, Some(&f.after)),
        ) else {
            continue;
        };
        if errors <= before {
            continue;
        }
        let mut blamed: Vec<crate::edits::HunkId> = Vec::new();
        if f.hunks.len() > 1 {
            for id in &f.hunks {
                let Some(h) = hunks.iter().find(|h| &h.id == id) else {
                    continue;
                };
                let alone = crate::edits::apply::prepare(root, &[*h]).ok();
                let after = alone
                    .as_ref()
                    .and_then(|p| p.iter().find(|x| x.path == f.path))
                    .and_then(|x| count(&x.path, Some(&x.after)));
                if after.is_some_and(|n| n > before) {
                    blamed.push(id.clone());
                }
            }
        }
        if blamed.is_empty() {
            blamed = f.hunks.clone();
        }
        out.push(SyntaxRegression {
            path: f.path,
            errors,
            before,
            hunks: blamed,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hunk_that_breaks_a_file_is_blamed_not_its_neighbour() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("m.py"),
            "def a():\n    return f(1)\n\n\ndef b():\n    return f(2)\n",
        )
        .unwrap();
        let reply = "m.py\n```python\n<<<<<<< SEARCH\n    return f(1)\n=======\n    return f(1, x=0)\n>>>>>>> REPLACE\n```\n\n\
                     m.py\n```python\n<<<<<<< SEARCH\n    return f(2)\n=======\n    return f(2, x=0\n>>>>>>> REPLACE\n```\n";
        let mut parser = EditStreamParser::new();
        let mut blocks = parser.push(reply);
        blocks.extend(parser.finish().final_blocks);
        let planned = crate::edits::plan(
            dir.path(),
            &Snapshot::new(),
            &blocks,
            &Conventions::default(),
        );
        assert!(planned.iter().all(|h| h.is_resolved()), "{planned:?}");
        let hunks: Vec<&Hunk> = planned.iter().collect();
        let found = syntax_regressions(dir.path(), &hunks);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].path, "m.py");
        assert_eq!(found[0].before, 0);
        assert!(found[0].errors > 0);
        assert_eq!(found[0].hunks, vec![planned[1].id.clone()]);
        // The clean hunk alone is fine.
        assert!(syntax_regressions(dir.path(), &hunks[..1]).is_empty());
    }
}

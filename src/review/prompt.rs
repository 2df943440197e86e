//! The review prompt: fixed instructions asking for JSON findings, a short
//! summary of the repository, the signatures of related code outside the
//! chunk (so a finding that crosses a chunk boundary is still possible
//! without resending files), and the chunk's code with line numbers.
//!
//! The planner measures the prompt's fixed part with the tokenizer and
//! subtracts it from the budget, so a chunk's budget covers everything the
//! model is sent, not just the code.

use crate::index::Index;

/// What the model is asked to do and how to answer. Severity and the JSON
/// shape here are what [`super::findings`] parses.
pub const INSTRUCTIONS: &str = "\
You are a senior engineer reviewing one part of a repository. Report real \
problems only: bugs, security holes, unhandled errors, races, resource leaks, \
performance traps, misuse of an API, and code that will mislead its next \
reader into a bug. Do not report formatting or personal style; at most \
severity \"nit\" for naming that hides a bug.

Answer with one JSON object and nothing else:
{\"findings\": [{\"file\": \"path exactly as in a ### heading\", \
\"start_line\": 12, \"end_line\": 14, \
\"severity\": \"critical|major|minor|nit\", \
\"category\": \"bug|security|error-handling|concurrency|resource-leak|performance|api-misuse|maintainability|test\", \
\"message\": \"what is wrong and what it causes\", \
\"suggestion\": \"how to fix it\", \
\"confidence\": 0.8}]}

Severity: critical = data loss, security breach or crash in normal use; \
major = wrong behaviour a user will hit; minor = wrong in edge cases or \
costly to maintain; nit = harmless but worth a note. Confidence is your \
probability (0 to 1) that the problem is real. Line numbers are the ones \
printed before each line (`12|code`). Report only on code under \
\"Code to review\"; the related signatures are context. If nothing is \
worth reporting, answer {\"findings\": []}.
";

/// Which kind of review a prompt is for (the headings differ).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptKind {
    Repository,
    Diff,
}

/// A short description of the repository, the same in every chunk.
pub fn repo_summary(index: &Index, reviewed_files: usize) -> String {
    let res = &index.res;
    let crate::context::RepoShape {
        name,
        langs,
        biggest,
    } = crate::context::repo_shape(index);
    let list: Vec<String> = biggest
        .iter()
        .take(10)
        .map(|(p, n)| format!("{p} ({n})"))
        .collect();
    format!(
        "{name} — {}, {} lines, {} declarations, {} call edges; {reviewed_files} files under review.\nLargest packages (files): {}\n",
        langs.join(", "),
        index.stats.lines,
        res.decls.iter().filter(|d| !d.is_external()).count(),
        res.edges.len(),
        list.join(", ")
    )
}

/// The whole prompt for one chunk. `context` lines and `blocks` are
/// already rendered.
///
/// Every piece — each part of the template, each context line, each code
/// line — ends with a line break and starts with a character that is
/// neither whitespace nor `/`. The o200k pre-tokenizer never joins a line
/// break to such a character, so no token spans two pieces and the count
/// of a prompt is exactly the sum of its pieces' counts. That is what lets
/// the planner count each file once and add (a test checks the sums
/// against the counts of rendered prompts).
pub fn render(kind: PromptKind, summary: &str, context: &[String], blocks: &[String]) -> String {
    let mut out = String::with_capacity(
        INSTRUCTIONS.len()
            + summary.len()
            + context.iter().map(String::len).sum::<usize>()
            + blocks.iter().map(String::len).sum::<usize>()
            + 256,
    );
    out.push_str(INSTRUCTIONS);
    out.push_str("## Repository\n");
    out.push_str(summary);
    out.push_str(match kind {
        PromptKind::Repository => "## Related code outside this chunk (signatures; context only)\n",
        PromptKind::Diff => {
            "## Callers of the changed code and other related code (context only)\n"
        }
    });
    for c in context {
        out.push_str(c);
    }
    out.push_str(match kind {
        PromptKind::Repository => "## Code to review\n",
        PromptKind::Diff => "## Code to review (declarations changed in the diff)\n",
    });
    for b in blocks {
        out.push_str(b);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prompt_asks_for_every_finding_field() {
        let p = render(PromptKind::Repository, "demo\n", &[], &[]);
        for field in [
            "\"file\"",
            "\"start_line\"",
            "\"end_line\"",
            "\"severity\"",
            "\"category\"",
            "\"message\"",
            "\"suggestion\"",
            "\"confidence\"",
            "critical|major|minor|nit",
        ] {
            assert!(p.contains(field), "missing {field}");
        }
        assert!(p.ends_with("## Code to review\n"));
    }
}

//! Hunks as unified diffs: one hunk at a time for the review pane (with its
//! `path:line` header and the rule that placed it), and a whole set as a
//! patch that `git apply` accepts, for `ripple migrate --patch`.

use std::fmt::Write as _;
use std::path::Path;

use similar::{ChangeTag, TextDiff};

use crate::edits::EditError;
use crate::edits::apply::prepare;
use crate::edits::file_text::body_lines;
use crate::edits::hunk::{Hunk, Resolution};

/// One hunk as a diff under its header line. Conflicts and refusals show the
/// block's SEARCH → REPLACE, and the nearest file lines when there are any.
pub fn render_hunk(hunk: &Hunk) -> String {
    let mut out = hunk.header();
    out.push('\n');
    match &hunk.resolution {
        Resolution::Resolved {
            start_line,
            original,
            replacement,
            ..
        } => {
            let old = body_lines(original);
            let new = body_lines(replacement);
            let old_start = if old.is_empty() {
                start_line.saturating_sub(1)
            } else {
                *start_line
            };
            let new_start = if new.is_empty() {
                start_line.saturating_sub(1)
            } else {
                *start_line
            };
            let _ = writeln!(
                out,
                "@@ -{old_start},{} +{new_start},{} @@",
                old.len(),
                new.len()
            );
            push_changes(&mut out, &old, &new);
        }
        Resolution::Conflict { nearest, .. } => {
            let _ = writeln!(out, "@@ SEARCH → REPLACE (not applied) @@");
            push_changes(
                &mut out,
                &body_lines(&hunk.search),
                &body_lines(&hunk.replace),
            );
            if let Some((line, lines)) = nearest {
                let _ = writeln!(out, "nearest lines in the file, from line {line}:");
                for l in lines {
                    let _ = writeln!(out, "  {l}");
                }
            }
        }
        Resolution::Refused { .. } => {
            let _ = writeln!(out, "@@ SEARCH → REPLACE (refused) @@");
            push_changes(
                &mut out,
                &body_lines(&hunk.search),
                &body_lines(&hunk.replace),
            );
        }
    }
    out
}

fn push_changes(out: &mut String, old: &[&str], new: &[&str]) {
    let diff = TextDiff::from_slices(old, new);
    for change in diff.iter_all_changes() {
        let sign = match change.tag() {
            ChangeTag::Equal => ' ',
            ChangeTag::Delete => '-',
            ChangeTag::Insert => '+',
        };
        let _ = writeln!(out, "{sign}{}", change.value());
    }
}

/// A git-style patch of every resolved hunk in `hunks`, computed from the
/// files as they are now (which must still be what the hunks were planned
/// against). Files whose hunks change nothing are left out.
pub fn render_patch(root: &Path, hunks: &[&Hunk]) -> Result<String, EditError> {
    let resolved: Vec<&Hunk> = hunks.iter().copied().filter(|h| h.is_resolved()).collect();
    let mut out = String::new();
    for file in prepare(root, &resolved)? {
        let before = String::from_utf8_lossy(file.before.as_deref().unwrap_or_default());
        let after = String::from_utf8_lossy(&file.after);
        let diff = TextDiff::from_lines(before.as_ref(), after.as_ref());
        let (a, b) = (format!("a/{}", file.path), format!("b/{}", file.path));
        let old_name = if file.before.is_some() {
            a.as_str()
        } else {
            "/dev/null"
        };
        let body = diff
            .unified_diff()
            .context_radius(3)
            .header(old_name, &b)
            .to_string();
        // An empty new file has no hunk, only git's header.
        if body.is_empty() && file.before.is_some() {
            continue;
        }
        let _ = writeln!(out, "diff --git {a} {b}");
        if file.before.is_none() {
            out.push_str("new file mode 100644\n");
        }
        out.push_str(&body);
    }
    Ok(out)
}

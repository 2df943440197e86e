//! Writing a plan: its byte-range replacements grouped into line hunks
//! and the files it creates, checked against the files as they were
//! planned and for new syntax errors, then written through the journal
//! `ripple undo` reverts (which deletes the files created).

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;

use super::{LineIndex, RefactorError};
use crate::edits::{self, ApplyReport, FileBase, Hunk, HunkId, HunkState, MatchRule};
use crate::model::{Lang, content_hash};

/// One piece of a file replaced.
pub(super) struct Replacement<'p> {
    pub(super) file: &'p str,
    pub(super) bytes: Range<usize>,
    pub(super) text: &'p str,
    /// Touches stable code (the journal records it).
    pub(super) stable: bool,
}

/// A file a plan creates, whole.
pub(super) struct NewFile<'p> {
    pub(super) path: &'p str,
    pub(super) text: &'p str,
    pub(super) stable: bool,
}

/// Write `replacements` and create `new_files` (which must still not
/// exist), every file first checked to still hash to its
/// entry in `bases` and to have no more syntax errors after than before
/// (tree-sitter, the parser the index uses); otherwise nothing is written.
/// Replacements whose lines touch become one hunk. Returns what was
/// written and how many distinct replacements it held.
pub(super) fn write(
    root: &Path,
    bases: &BTreeMap<String, u64>,
    replacements: Vec<Replacement>,
    new_files: &[NewFile],
) -> Result<(ApplyReport, usize), RefactorError> {
    let mut by_file: BTreeMap<&str, Vec<Replacement>> = BTreeMap::new();
    for r in replacements {
        by_file.entry(r.file).or_default().push(r);
    }
    let mut hunks: Vec<Hunk> = Vec::new();
    let mut written = 0;
    for (path, mut file_edits) in by_file {
        let bytes = std::fs::read(root.join(path)).map_err(|source| RefactorError::Read {
            path: path.to_owned(),
            source,
        })?;
        if bases.get(path) != Some(&content_hash(&bytes)) {
            return Err(RefactorError::Stale {
                path: path.to_owned(),
            });
        }
        let lines = LineIndex::new(&bytes);
        file_edits.sort_by_key(|r| (r.bytes.start, r.bytes.end));
        file_edits.dedup_by(|b, a| a.bytes == b.bytes && a.text == b.text);
        for pair in file_edits.windows(2) {
            // Two edits of one place (an outer call's argument holding an
            // inner call) cannot both be written: the plan must choose.
            if pair[1].bytes.start < pair[0].bytes.end
                || (pair[1].bytes.start == pair[0].bytes.start && pair[0].bytes != pair[1].bytes)
            {
                return Err(RefactorError::Overlap {
                    path: path.to_owned(),
                    line: lines.line_of(pair[1].bytes.start),
                });
            }
        }
        let mut clusters: Vec<(u32, u32, Vec<&Replacement>)> = Vec::new();
        for r in &file_edits {
            let (first, last) = (lines.line_of(r.bytes.start), lines.line_of(r.bytes.end));
            match clusters.last_mut() {
                Some((_, end, members)) if first <= *end => {
                    *end = (*end).max(last);
                    members.push(r);
                }
                _ => clusters.push((first, last, vec![r])),
            }
        }
        for (first, last, members) in clusters {
            let (start, _) = lines.text_range(first);
            let (_, end) = lines.text_range(last);
            let mut text = bytes[start..end].to_vec();
            for r in members.iter().rev() {
                if r.bytes.start < start || r.bytes.end > end || r.bytes.start > r.bytes.end {
                    return Err(RefactorError::Stale {
                        path: path.to_owned(),
                    });
                }
                text.splice(r.bytes.start - start..r.bytes.end - start, r.text.bytes());
            }
            let lf = |b: &[u8]| String::from_utf8_lossy(b).replace("\r\n", "\n") + "\n";
            let old = lf(&bytes[start..end]);
            let new = lf(&text);
            written += members.len();
            hunks.push(Hunk {
                // The line number keeps two equal lines of a file apart.
                id: HunkId::of(path, &format!("{first}\n{old}"), &new),
                block_index: hunks.len(),
                path: path.to_owned(),
                search: old.clone(),
                replace: new.clone(),
                state: HunkState::Accepted,
                resolution: edits::Resolution::Resolved {
                    start_line: first as usize,
                    end_line: last as usize,
                    rule: MatchRule::Exact,
                    stable: members.iter().any(|r| r.stable),
                    original: old,
                    replacement: new,
                    symbols: Vec::new(),
                },
                base: FileBase::of(Some(&bytes)),
                scope: edits::Scope::Change,
            });
        }
    }
    for f in new_files {
        if root.join(f.path).exists() {
            return Err(RefactorError::Stale {
                path: f.path.to_owned(),
            });
        }
        let text = f.text.replace("\r\n", "\n");
        written += 1;
        hunks.push(Hunk {
            id: HunkId::of(f.path, "", &text),
            block_index: hunks.len(),
            path: f.path.to_owned(),
            search: String::new(),
            replace: text.clone(),
            state: HunkState::Accepted,
            resolution: edits::Resolution::Resolved {
                start_line: 1,
                end_line: 0,
                rule: MatchRule::NewFile,
                stable: f.stable,
                original: String::new(),
                replacement: text,
                symbols: Vec::new(),
            },
            base: FileBase::Missing,
            scope: edits::Scope::NewFile,
        });
    }
    let refs: Vec<&Hunk> = hunks.iter().collect();
    let mut broken = Vec::new();
    for f in edits::apply::prepare(root, &refs)? {
        let Some(lang) = Lang::from_path(&f.path) else {
            continue;
        };
        let before = f
            .before
            .as_deref()
            .map_or(0, |b| edits::syntax_errors_after(lang, b));
        let after = edits::syntax_errors_after(lang, &f.after);
        if after > before {
            broken.push((f.path.clone(), before, after));
        }
    }
    if !broken.is_empty() {
        return Err(RefactorError::BreaksSyntax { files: broken });
    }
    let report = edits::apply(root, &refs, &edits::default_journal_dir(root))?;
    Ok((report, written))
}

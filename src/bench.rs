//! `ripple bench PATH`: the speed and memory figures the README reports,
//! measured on any repository without modifying it (the index goes to a
//! temporary directory; a "changed file" is simulated by invalidating its
//! stored hash, which forces the same re-read and re-parse a real edit does).

use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

use crate::blast;
use crate::index::{Index, IndexError, NoProgress};
use crate::inventory;
use crate::memory::peak_rss_mb;
use crate::model::Confidence;

#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error("`ripple index` on the bench's copy of the repository ({}) failed: {what}", repo.display())]
    Refresh { repo: PathBuf, what: String },
}

#[derive(Debug, Serialize)]
pub struct BenchReport {
    pub path: String,
    pub threads: usize,
    pub files: usize,
    pub lines: u64,
    pub declarations: usize,
    pub edges: usize,
    /// Bare tree-sitter parse of the same files, same threads (the baseline).
    pub bare_parse_ms: f64,
    pub cold_index_ms: f64,
    pub cold_over_bare: f64,
    pub cold_breakdown_ms: crate::index::Timings,
    pub no_change_refresh_ms: f64,
    pub no_change_breakdown_ms: crate::index::Timings,
    /// A new function (with a call) appended to one file: the resolver runs.
    pub one_file_changed_ms: f64,
    /// How the one-file rows were measured: `"new process"` (a `ripple
    /// index` each time, as a command-line user waits for it) or `"in
    /// process"` (when the bench does not run from the ripple binary).
    pub one_file_measured: &'static str,
    /// A comment appended to one file: re-parsed, same shape, graph reused.
    pub one_file_comment_ms: f64,
    /// One row per kind of edit, each the median refresh after it (see
    /// [`EditKind`]), measured as the one-file rows are.
    pub edits: Vec<EditRow>,
    pub blast_root: String,
    pub blast_depth3_ms: f64,
    /// The first of those queries alone: it also builds what later ones
    /// reuse (the declarations' order by name).
    pub blast_first_ms: f64,
    pub blast_depth3_callers: usize,
    /// Planning a rename (`refactor rename --json`, nothing written) of the
    /// function or method with the fewest call sites past
    /// [`RENAME_CALL_SITES`], or the most when none has that many.
    pub rename: Option<RenameRow>,
    /// Peak resident set size of `peak_rss_scope`: the cold index alone
    /// where the high-water mark can be reset (Linux), else the whole bench.
    pub peak_rss_mb: f64,
    pub peak_rss_scope: &'static str,
}

/// How many call sites the rename row's target should have: the figure the
/// planning speed is promised at.
pub const RENAME_CALL_SITES: usize = 1000;

#[derive(Debug, Serialize)]
pub struct RenameRow {
    pub target: String,
    /// Distinct call sites with an edge to it.
    pub call_sites: usize,
    pub hunks: usize,
    /// Median time to plan it, in this process, the index loaded.
    pub plan_ms: f64,
}

/// The kinds of edit the bench times a refresh after, on the copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EditKind {
    /// A comment appended to a median-sized file: the graph is reused.
    Comment,
    /// A new function that calls another, appended to that file.
    Code,
    /// A new import at the end of that file (Python only).
    NewImport,
    /// A new method in the class with the most callers (Python only).
    BaseClassMethod,
    /// That file deleted (and put back after the measurement).
    FileDelete,
}

impl EditKind {
    pub fn label(self) -> &'static str {
        match self {
            EditKind::Comment => "comment",
            EditKind::Code => "code",
            EditKind::NewImport => "new import",
            EditKind::BaseClassMethod => "base-class method",
            EditKind::FileDelete => "file delete",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct EditRow {
    pub kind: EditKind,
    /// The file edited, relative to the repository.
    pub file: String,
    /// Median refresh after the edit.
    pub ms: f64,
    /// Whether the refresh resolved the graph again (else reused it).
    pub resolved: bool,
}

impl BenchReport {
    pub fn to_text(&self) -> String {
        format!(
            "ripple bench {path}\n\
             files {files} · lines {lines} · declarations {decls} · edges {edges} · {threads} threads\n\
             bare tree-sitter parse   {bare:>9.1} ms\n\
             cold index               {cold:>9.1} ms  ({ratio:.2}× bare parse)\n\
             \x20 scan {s:.0} · parse {p:.0} · store {st:.0} · load {l:.0} · resolve {r:.0} · graph {g:.0} ms\n\
             no-change refresh        {nc:>9.1} ms\n\
             one file changed (code)  {one:>9.1} ms  ({how})\n\
             one file changed (comment) {comment:>7.1} ms  ({how})\n\
             {edits}\
             blast radius (depth 3)   {blast:>9.3} ms  ({n} callers of {root}; first query {first:.1} ms)\n\
             {rename}\
             peak memory (RSS)        {rss:>9.1} MB  ({scope})\n",
            path = self.path,
            files = self.files,
            lines = self.lines,
            decls = self.declarations,
            edges = self.edges,
            threads = self.threads,
            bare = self.bare_parse_ms,
            cold = self.cold_index_ms,
            ratio = self.cold_over_bare,
            s = self.cold_breakdown_ms.scan,
            p = self.cold_breakdown_ms.parse,
            st = self.cold_breakdown_ms.store,
            l = self.cold_breakdown_ms.load,
            r = self.cold_breakdown_ms.resolve,
            g = self.cold_breakdown_ms.graph,
            nc = self.no_change_refresh_ms,
            one = self.one_file_changed_ms,
            comment = self.one_file_comment_ms,
            how = self.one_file_measured,
            edits = self
                .edits
                .iter()
                .map(|e| format!(
                    "  edit: {:<17} {:>9.1} ms  ({}, graph {})\n",
                    e.kind.label(),
                    e.ms,
                    e.file,
                    if e.resolved { "resolved" } else { "reused" }
                ))
                .collect::<String>(),
            blast = self.blast_depth3_ms,
            first = self.blast_first_ms,
            n = self.blast_depth3_callers,
            root = self.blast_root,
            rename = self
                .rename
                .as_ref()
                .map(|r| format!(
                    "rename plan              {:>9.1} ms  ({} call sites of {}, {} hunks)\n",
                    r.plan_ms, r.call_sites, r.target, r.hunks
                ))
                .unwrap_or_default(),
            rss = self.peak_rss_mb,
            scope = self.peak_rss_scope,
        )
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

pub fn run(path: &Path, runs: usize) -> Result<BenchReport, BenchError> {
    let tmp = std::env::temp_dir().join(format!("ripple-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let _ = std::fs::create_dir_all(&tmp);
    let db = tmp.join("index.db");
    let result = run_with(path, &db, runs);
    let _ = std::fs::remove_dir_all(&tmp);
    result
}

fn run_with(path: &Path, db: &Path, runs: usize) -> Result<BenchReport, BenchError> {
    // Baseline: read and parse every indexed file, nothing else.
    let inv = inventory::scan(path);
    let bare: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            inv.files.par_iter().for_each(|f| {
                if let Ok(bytes) = std::fs::read(path.join(&f.path)) {
                    let tree = crate::lang::parse(f.lang, &bytes);
                    std::hint::black_box(tree);
                }
            });
            ms_since(t)
        })
        .collect();
    let bare_parse_ms = median(bare);

    let mut cold = Vec::new();
    let mut cold_breakdown = None;
    // The bar is the memory of indexing, so the peak is taken over the cold
    // index alone (the baseline parse and the bench's own copies excluded)
    // when the kernel lets us reset the high-water mark.
    let peak_resettable = reset_peak_rss();
    let mut cold_peak: f64 = 0.0;
    for _ in 0..runs {
        let _ = std::fs::remove_file(db);
        let _ = std::fs::remove_file(db.with_extension("db-wal"));
        let _ = std::fs::remove_file(db.with_extension("db-shm"));
        let _ = std::fs::remove_file(db.with_extension("graph"));
        reset_peak_rss();
        let t = Instant::now();
        let index = Index::open_with(path, Some(db), &NoProgress)?;
        cold.push(ms_since(t));
        cold_peak = cold_peak.max(peak_rss_mb());
        cold_breakdown = Some(index.stats.timings_ms.clone());
    }
    let cold_index_ms = median(cold);

    let mut warm = Vec::new();
    let mut index = None;
    for _ in 0..runs {
        // One index alive at a time, as in a real process.
        drop(index.take());
        let t = Instant::now();
        let i = Index::open_with(path, Some(db), &NoProgress)?;
        warm.push(ms_since(t));
        index = Some(i);
    }
    let index = index.expect("runs >= 1");
    let no_change_refresh_ms = median(warm);

    // One changed file: a copy of the repository (the user's files are never
    // touched) in which a median-sized file gets, per run, a comment (new
    // content, same shape: re-parsed, graph reused) and then a new function
    // that calls another (new shape: resolution runs again). Each refresh
    // runs in a new `ripple index` process when the bench is the ripple
    // binary: that is what a command waits for, and a second resolution in
    // this process would run on memory the allocator gave back and got again
    // as small pages, up to twice as slow as in any real process.
    let child = std::env::current_exe()
        .ok()
        .filter(|exe| exe.file_stem().is_some_and(|s| s == "ripple"));
    let mut one = Vec::new();
    let mut comment = Vec::new();
    let mut edits = Vec::new();
    let copy = db.with_file_name("repo");
    let copy_db = db.with_file_name("copy.db");
    let mut by_size: Vec<&inventory::SourceFileMeta> = inv.files.iter().collect();
    by_size.sort_by_key(|f| f.size);
    if let Some(victim) = by_size.get(by_size.len() / 2) {
        let copied = inv
            .files
            .iter()
            .map(|f| f.path.clone())
            .chain(inv.go_mods.iter().cloned())
            .all(|rel| {
                let to = copy.join(&rel);
                to.parent()
                    .is_some_and(|p| std::fs::create_dir_all(p).is_ok())
                    && std::fs::copy(path.join(&rel), &to).is_ok()
            });
        if copied {
            let refresh = || -> Result<(f64, bool), BenchError> {
                let t = Instant::now();
                let resolved = match &child {
                    Some(exe) => refresh_in_child(exe, &copy)?,
                    None => {
                        let index = Index::open_with(&copy, Some(&copy_db), &NoProgress)?;
                        index.stats.graph.action == crate::index::GraphAction::Resolved
                    }
                };
                Ok((ms_since(t), resolved))
            };
            refresh()?;
            let target = copy.join(&victim.path);
            for run in 0..runs {
                let (note, code) = match victim.lang {
                    crate::model::Lang::Python => (
                        format!("\n# ripple bench edit {run}\n"),
                        format!("\ndef _ripple_bench_{run}(items):\n    return sorted(items)\n"),
                    ),
                    crate::model::Lang::Go => (
                        format!("\n// ripple bench edit {run}\n"),
                        format!(
                            "\nfunc rippleBench{run}(s []string) int {{ return len(append(s, \"x\")) }}\n"
                        ),
                    ),
                };
                for (edit, times) in [(note, &mut comment), (code, &mut one)] {
                    let mut text = std::fs::read(&target).unwrap_or_default();
                    text.extend_from_slice(edit.as_bytes());
                    let _ = std::fs::write(&target, text);
                    times.push(refresh()?);
                }
            }
            edits.push(row(EditKind::Comment, &victim.path, &comment));
            edits.push(row(EditKind::Code, &victim.path, &one));
            if victim.lang == crate::model::Lang::Python {
                let mut times = Vec::new();
                for run in 0..runs {
                    let mut text = std::fs::read(&target).unwrap_or_default();
                    let module = if run % 2 == 0 { "json" } else { "textwrap" };
                    text.extend_from_slice(format!("\nimport {module}\n").as_bytes());
                    let _ = std::fs::write(&target, text);
                    times.push(refresh()?);
                }
                edits.push(row(EditKind::NewImport, &victim.path, &times));
            }
            if let Some((file, line)) = most_called_class(&index) {
                let class_file = copy.join(&file);
                let mut times = Vec::new();
                for run in 0..runs {
                    let Ok(text) = std::fs::read_to_string(&class_file) else {
                        break;
                    };
                    let Some(edited) = with_method_after(&text, line, run) else {
                        break;
                    };
                    let _ = std::fs::write(&class_file, edited);
                    times.push(refresh()?);
                }
                if !times.is_empty() {
                    edits.push(row(EditKind::BaseClassMethod, &file, &times));
                }
            }
            let mut times = Vec::new();
            for _ in 0..runs {
                let Ok(text) = std::fs::read(&target) else {
                    break;
                };
                let _ = std::fs::remove_file(&target);
                times.push(refresh()?);
                let _ = std::fs::write(&target, text);
                refresh()?;
            }
            edits.push(row(EditKind::FileDelete, &victim.path, &times));
        }
    }
    let times_only = |v: &[(f64, bool)]| v.iter().map(|(ms, _)| *ms).collect::<Vec<f64>>();
    let one_file_changed_ms = if one.is_empty() {
        0.0
    } else {
        median(times_only(&one))
    };
    let one_file_comment_ms = if comment.is_empty() {
        0.0
    } else {
        median(times_only(&comment))
    };

    // Blast radius of the declaration with the most callers.
    let res = &index.res;
    let root = most_called(&index, |d| !d.is_external());
    let (blast_root, blast_depth3_ms, blast_first_ms, blast_depth3_callers) = match root {
        Some(root) => {
            let mut times = Vec::new();
            let mut n = 0;
            for _ in 0..(runs * 10) {
                let t = Instant::now();
                let b = blast::compute(&index, root, 3);
                times.push(ms_since(t));
                n = b.total.total;
            }
            let first = times.first().copied().unwrap_or(0.0);
            (res.decls[root].name.to_string(), median(times), first, n)
        }
        None => (String::new(), 0.0, 0.0, 0),
    };
    let rename = rename_row(&index, path, runs);
    Ok(BenchReport {
        path: path.display().to_string(),
        threads: rayon::current_num_threads(),
        files: index.stats.files,
        lines: index.stats.lines,
        declarations: index.stats.declarations,
        edges: index.stats.edges,
        bare_parse_ms,
        cold_index_ms,
        cold_over_bare: if bare_parse_ms > 0.0 {
            cold_index_ms / bare_parse_ms
        } else {
            0.0
        },
        cold_breakdown_ms: cold_breakdown.unwrap_or_default(),
        no_change_refresh_ms,
        no_change_breakdown_ms: index.stats.timings_ms.clone(),
        one_file_changed_ms,
        one_file_comment_ms,
        edits,
        one_file_measured: if child.is_some() {
            "new process"
        } else {
            "in process"
        },
        blast_root,
        blast_depth3_ms,
        blast_first_ms,
        blast_depth3_callers,
        rename,
        peak_rss_mb: if peak_resettable {
            cold_peak
        } else {
            peak_rss_mb()
        },
        peak_rss_scope: if peak_resettable {
            "cold index"
        } else {
            "whole bench"
        },
    })
}

/// Time planning a rename of the function or method whose call sites come
/// nearest [`RENAME_CALL_SITES`] from above (the most, if none reach it).
/// `None` when nothing can be renamed.
fn rename_row(index: &Index, root: &Path, runs: usize) -> Option<RenameRow> {
    use crate::model::DeclKind;
    let res = &index.res;
    let mut sites: std::collections::HashMap<crate::model::DeclId, std::collections::HashSet<_>> =
        std::collections::HashMap::new();
    for e in &res.edges {
        let callee = &res.decls[e.callee];
        let short = callee.name.rsplit('.').next().unwrap_or(&callee.name);
        // A dunder is called by the language (`Account(n)` runs
        // `__init__`), not by its name: renaming it is no refactoring.
        let dunder = short.starts_with("__") && short.ends_with("__");
        if !callee.is_external()
            && !dunder
            && matches!(callee.kind, DeclKind::Function | DeclKind::Method)
        {
            sites.entry(e.callee).or_default().insert((e.file, e.call));
        }
    }
    let mut candidates: Vec<(crate::model::DeclId, usize)> =
        sites.into_iter().map(|(d, s)| (d, s.len())).collect();
    // Those at or past the mark first, fewest sites first; then the rest,
    // most sites first; ties by id, so the choice is the same every run.
    candidates.sort_by_key(|&(d, n)| {
        if n >= RENAME_CALL_SITES {
            (0, n, d)
        } else {
            (1, usize::MAX - n, d)
        }
    });
    let conventions = crate::conventions::Conventions::load(root).ok()?;
    for (target, call_sites) in candidates.into_iter().take(5) {
        let decl = &res.decls[target];
        let short = decl.name.rsplit('.').next().unwrap_or(&decl.name);
        let new_name = format!("{short}_renamed");
        let mut times = Vec::new();
        let mut hunks = 0;
        for _ in 0..runs {
            let t = Instant::now();
            let Ok(plan) = crate::refactor::rename::plan_rename(
                index,
                &conventions,
                target,
                &new_name,
                crate::refactor::Selection::default(),
            ) else {
                break;
            };
            times.push(ms_since(t));
            hunks = plan.hunks.len();
        }
        if times.len() == runs {
            return Some(RenameRow {
                target: decl.name.to_string(),
                call_sites,
                hunks,
                plan_ms: median(times),
            });
        }
    }
    None
}

/// The row of `kind` from its refreshes: their median time, and whether
/// they resolved the graph (all of them did).
fn row(kind: EditKind, file: &str, times: &[(f64, bool)]) -> EditRow {
    EditRow {
        kind,
        file: file.to_owned(),
        ms: if times.is_empty() {
            0.0
        } else {
            median(times.iter().map(|(ms, _)| *ms).collect())
        },
        resolved: !times.is_empty() && times.iter().all(|(_, resolved)| *resolved),
    }
}

/// The declaration with the most direct callers among those `keep` keeps.
fn most_called(
    index: &Index,
    keep: impl Fn(&crate::model::Decl) -> bool,
) -> Option<crate::model::DeclId> {
    let res = &index.res;
    res.decl_ids()
        .filter(|&d| keep(&res.decls[d]))
        .max_by_key(|&d| {
            index
                .graph
                .neighbours(
                    res,
                    d,
                    crate::graph::Direction::Callers,
                    Confidence::Possible,
                )
                .len()
        })
}

/// The Python class with the most callers (its instantiations and calls
/// through it): its file and the line of its `class` statement.
fn most_called_class(index: &Index) -> Option<(String, u32)> {
    let class = most_called(index, |decl| {
        decl.kind == crate::model::DeclKind::Class
            && decl.lang == crate::model::Lang::Python
            && !decl.is_external()
    })?;
    let decl = &index.res.decls[class];
    let file = index.files.get(decl.file?.index())?;
    Some((file.path.clone(), decl.span.start_line))
}

/// `text` with a new method in the class whose `class` statement is on
/// line `line` (1-based): inserted before the class body's first
/// statement, indented as it is. `None` when the body is not found there.
fn with_method_after(text: &str, line: u32, run: usize) -> Option<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let header = (line as usize).checked_sub(1)?;
    // The header may span lines (`class A(\n  Base,\n):`); the body starts
    // at the first line after one ending in `:`.
    let colon = (header..lines.len()).find(|&i| lines[i].trim_end().ends_with(':'))?;
    let first = (colon + 1..lines.len()).find(|&i| !lines[i].trim().is_empty())?;
    let indent: String = lines[first]
        .chars()
        .take_while(|c| c.is_whitespace() && *c != '\n')
        .collect();
    if indent.is_empty() {
        return None;
    }
    let method =
        format!("{indent}def _ripple_bench_method_{run}(self):\n{indent}    return None\n\n");
    let mut out: String = lines[..first].concat();
    out.push_str(&method);
    out.push_str(&lines[first..].concat());
    Some(out)
}

/// Refresh the index of `repo` (at its default place) with `ripple index`
/// in a new process; whether it resolved the graph again.
fn refresh_in_child(exe: &Path, repo: &Path) -> Result<bool, BenchError> {
    let failed = |what: String| BenchError::Refresh {
        repo: repo.to_path_buf(),
        what,
    };
    let out = std::process::Command::new(exe)
        .arg("--repo")
        .arg(repo)
        .args(["index", "--json"])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .map_err(|e| failed(e.to_string()))?;
    if !out.status.success() {
        return Err(failed(out.status.to_string()));
    }
    serde_json::from_slice::<serde_json::Value>(&out.stdout)
        .ok()
        .and_then(|v| Some(v.get("graph")?.get("action")?.as_str()? == "resolved"))
        .ok_or_else(|| failed("no `graph.action` in its output".to_owned()))
}

/// Reset this process's peak RSS (Linux: `5` to `/proc/self/clear_refs`);
/// false where that is not possible. Memory freed by earlier steps is
/// returned to the system first: mimalloc keeps freed pages resident for a
/// while, and they would count toward the next step's peak.
fn reset_peak_rss() -> bool {
    rayon::broadcast(|_| release_freed_memory());
    release_freed_memory();
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

fn release_freed_memory() {
    // SAFETY: mi_collect only returns this thread's free pages to the OS.
    unsafe { libmimalloc_sys::mi_collect(true) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_edit_is_timed_on_a_copy_and_says_whether_it_resolved() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let model = "class Account:\n    def __init__(self, owner):\n        self.owner = owner\n\n    def name(self):\n        return self.owner\n";
        std::fs::write(root.join("model.py"), model).unwrap();
        std::fs::write(
            root.join("use.py"),
            "from model import Account\n\n\ndef make(n):\n    return Account(n).name()\n\n\ndef twice(n):\n    return make(n), Account(n)\n",
        )
        .unwrap();
        std::fs::write(root.join("main.py"), "from use import make\n\nmake(1)\n").unwrap();
        let report = run(root, 1).unwrap();
        let kinds: Vec<EditKind> = report.edits.iter().map(|e| e.kind).collect();
        assert_eq!(
            kinds,
            [
                EditKind::Comment,
                EditKind::Code,
                EditKind::NewImport,
                EditKind::BaseClassMethod,
                EditKind::FileDelete
            ]
        );
        for e in &report.edits {
            assert_eq!(e.resolved, e.kind != EditKind::Comment, "{e:?}");
        }
        // Nothing has a thousand call sites: the most called is timed
        // (`make`: two calls and an import, besides its definition).
        let rename = report.rename.as_ref().expect("a rename is timed");
        assert_eq!(rename.target, "use.make", "{rename:?}");
        assert_eq!((rename.call_sites, rename.hunks), (2, 4), "{rename:?}");
        let class_row = &report.edits[3];
        assert_eq!(class_row.file, "model.py");
        // The repository itself is never touched.
        assert_eq!(
            std::fs::read_to_string(root.join("model.py")).unwrap(),
            model
        );
        assert!(!root.join(".ripple").exists());
    }

    #[test]
    fn a_method_goes_before_the_first_statement_of_the_class_body() {
        let text = "import x\n\nclass A(\n    Base,\n):\n\n    def f(self):\n        pass\n";
        let edited = with_method_after(text, 3, 0).unwrap();
        assert!(
            edited.contains("):\n\n    def _ripple_bench_method_0(self):\n        return None\n\n    def f(self):"),
            "{edited}"
        );
        assert_eq!(with_method_after("class A: pass\n", 1, 0), None);
    }
}

//! The call graph folded to files: how strongly two files are coupled
//! (calls between their declarations, weighted by confidence, plus
//! imports), how central each file is (PageRank, so a file called by
//! central files counts more than one called by many leaves), and which
//! test file tests which module.

use std::collections::HashMap;

use crate::index::Index;
use crate::model::{Confidence, FileId};

pub struct FileGraph {
    /// Directed weight caller file → callee file (calls and imports).
    pub out: Vec<HashMap<FileId, f64>>,
    /// Call edges between two files, both directions, keyed (min, max).
    pub calls: HashMap<(FileId, FileId), u32>,
    /// PageRank of each file, summing to 1.
    pub rank: Vec<f64>,
}

/// A possible edge counts for less than a certain one: it is one candidate of several.
fn weight(c: Confidence) -> f64 {
    match c {
        Confidence::Certain => 1.0,
        Confidence::Likely => 0.6,
        Confidence::Possible => 0.25,
    }
}

impl FileGraph {
    pub fn build(index: &Index) -> FileGraph {
        let n = index.files.len();
        let mut out: Vec<HashMap<FileId, f64>> = vec![HashMap::new(); n];
        let mut calls: HashMap<(FileId, FileId), u32> = HashMap::new();
        let decls = &index.res.decls;
        for e in &index.res.edges {
            let (Some(a), Some(b)) = (decls[e.caller].file, decls[e.callee].file) else {
                continue;
            };
            if a == b {
                continue;
            }
            *out[a.index()].entry(b).or_default() += weight(e.confidence);
            *calls.entry((a.min(b), a.max(b))).or_default() += 1;
        }
        for &(a, b) in &index.res.imports {
            if a != b && a.index() < n && b.index() < n {
                *out[a.index()].entry(b).or_default() += 1.0;
            }
        }
        let rank = pagerank(&out);
        FileGraph { out, calls, rank }
    }

    /// Symmetric coupling weight of two files.
    pub fn weight(&self, a: FileId, b: FileId) -> f64 {
        self.out[a.index()].get(&b).copied().unwrap_or(0.0)
            + self.out[b.index()].get(&a).copied().unwrap_or(0.0)
    }

    /// All cross-file weight of a file, both directions.
    pub fn strength(&self) -> Vec<f64> {
        let mut s: Vec<f64> = self.out.iter().map(|m| m.values().sum()).collect();
        for m in &self.out {
            for (&b, &w) in m {
                s[b.index()] += w;
            }
        }
        s
    }

    pub fn calls_between(&self, a: FileId, b: FileId) -> u32 {
        self.calls.get(&(a.min(b), a.max(b))).copied().unwrap_or(0)
    }
}

/// Weighted PageRank with damping 0.85; rank flows from caller to callee,
/// so the code everything depends on ranks highest.
fn pagerank(out: &[HashMap<FileId, f64>]) -> Vec<f64> {
    let n = out.len();
    if n == 0 {
        return Vec::new();
    }
    const DAMPING: f64 = 0.85;
    let totals: Vec<f64> = out.iter().map(|m| m.values().sum()).collect();
    let mut rank = vec![1.0 / n as f64; n];
    for _ in 0..40 {
        let dangling: f64 = (0..n).filter(|&i| totals[i] == 0.0).map(|i| rank[i]).sum();
        let base = (1.0 - DAMPING) / n as f64 + DAMPING * dangling / n as f64;
        let mut next = vec![base; n];
        for (i, m) in out.iter().enumerate() {
            if totals[i] == 0.0 {
                continue;
            }
            let share = DAMPING * rank[i] / totals[i];
            for (&j, &w) in m {
                next[j.index()] += share * w;
            }
        }
        let delta: f64 = next.iter().zip(&rank).map(|(a, b)| (a - b).abs()).sum();
        rank = next;
        if delta < 1e-9 {
            break;
        }
    }
    rank
}

/// The module name a test file is named after: Python `test_x.py` /
/// `x_test.py` → `x`; Go `x_test.go` → `x`.
pub fn tested_stem(path: &str) -> Option<&str> {
    let name = path.rsplit('/').next().unwrap_or(path);
    if let Some(stem) = name.strip_suffix("_test.go") {
        return Some(stem);
    }
    let stem = name.strip_suffix(".py")?;
    stem.strip_prefix("test_")
        .or_else(|| stem.strip_suffix("_test"))
        .filter(|s| !s.is_empty())
}

pub fn is_test_file(path: &str) -> bool {
    tested_stem(path).is_some()
}

fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map(|(d, _)| d).unwrap_or("")
}

/// Directory words of a test file with the test scaffolding removed:
/// `Lib/test/test_asyncio/test_tasks.py` → `Lib`, `asyncio`.
fn test_dir_words(path: &str) -> Vec<&str> {
    dir_of(path)
        .split('/')
        .filter(|w| !w.is_empty() && !matches!(*w, "test" | "tests" | "testing"))
        .map(|w| {
            w.strip_prefix("test_")
                .or_else(|| w.strip_suffix("_test"))
                .or_else(|| w.strip_suffix("_tests"))
                .unwrap_or(w)
        })
        .collect()
}

/// Pair each test file with the module it tests, among `files`.
///
/// Go's rule is exact: `x_test.go` tests `x.go` of the same directory.
/// Python's is a naming habit, so among the modules named like the test
/// the one the test calls most wins, then the one whose directories the
/// test's directories name; a tie on both is left unpaired rather than
/// guessed.
pub fn test_pairs(index: &Index, graph: &FileGraph, files: &[FileId]) -> Vec<(FileId, FileId)> {
    let mut by_name: HashMap<&str, Vec<FileId>> = HashMap::new();
    for &f in files {
        let path = index.files[f.index()].path.as_str();
        if is_test_file(path) {
            continue;
        }
        let name = path.rsplit('/').next().unwrap_or(path);
        let key = match name {
            "__init__.py" => dir_of(path).rsplit('/').next().unwrap_or(""),
            _ => name
                .strip_suffix(".py")
                .or_else(|| name.strip_suffix(".go"))
                .unwrap_or(name),
        };
        by_name.entry(key).or_default().push(f);
    }
    let mut pairs = Vec::new();
    for &t in files {
        let tpath = index.files[t.index()].path.as_str();
        let Some(stem) = tested_stem(tpath) else {
            continue;
        };
        let Some(cands) = by_name.get(stem) else {
            continue;
        };
        if tpath.ends_with(".go") {
            let want = format!("{}{stem}.go", {
                let d = dir_of(tpath);
                if d.is_empty() {
                    String::new()
                } else {
                    format!("{d}/")
                }
            });
            if let Some(&m) = cands.iter().find(|&&c| index.files[c.index()].path == want) {
                pairs.push((t, m));
            }
            continue;
        }
        let words = test_dir_words(tpath);
        let mut scored: Vec<(u32, usize, FileId)> = cands
            .iter()
            .filter(|&&c| index.files[c.index()].path.ends_with(".py"))
            .map(|&c| {
                let cdir = dir_of(&index.files[c.index()].path);
                let overlap = cdir.split('/').filter(|w| words.contains(w)).count();
                (graph.calls_between(t, c), overlap, c)
            })
            .collect();
        scored.sort_by_key(|s| std::cmp::Reverse((s.0, s.1)));
        match scored.as_slice() {
            [] => {}
            [only] => pairs.push((t, only.2)),
            [best, second, ..] => {
                if (best.0, best.1) != (second.0, second.1) {
                    pairs.push((t, best.2));
                }
            }
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_files_are_recognised_by_their_names() {
        assert_eq!(tested_stem("tests/test_tokens.py"), Some("tokens"));
        assert_eq!(tested_stem("pkg/tokens_test.py"), Some("tokens"));
        assert_eq!(tested_stem("internal/auth/token_test.go"), Some("token"));
        assert_eq!(tested_stem("pkg/tokens.py"), None);
        assert_eq!(tested_stem("pkg/test_.py"), None);
        assert_eq!(tested_stem("pkg/contest.py"), None);
        assert_eq!(
            test_dir_words("Lib/test/test_asyncio/test_tasks.py"),
            vec!["Lib", "asyncio"]
        );
    }

    #[test]
    fn pagerank_favours_what_everything_calls() {
        // 0 → 2, 1 → 2, 2 → 3: 3 is called by the most central file.
        let mut out: Vec<HashMap<FileId, f64>> = vec![HashMap::new(); 5];
        out[0].insert(FileId(2), 1.0);
        out[1].insert(FileId(2), 1.0);
        out[2].insert(FileId(3), 1.0);
        let r = pagerank(&out);
        assert!((r.iter().sum::<f64>() - 1.0).abs() < 1e-6);
        assert!(r[3] > r[2] && r[2] > r[0], "{r:?}");
        assert!((r[0] - r[4]).abs() < 1e-9);
    }
}

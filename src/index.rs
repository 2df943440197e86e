//! Orchestration of one refresh: inventory → parse what changed (in
//! parallel) → store → load every file's facts → resolve → graph. Every
//! command runs this first, so answers always reflect the files on disk.
//!
//! A file is re-read only when its size or mtime changed, and re-parsed only
//! when its content hash changed too.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

use crate::graph::Graph;
use crate::inventory::{self, Inventory, SkipReason, Skipped};
use crate::model::{FileFacts, Lang, content_hash};
use crate::resolve::{self, Resolution, SourceFile};
use crate::store::{self, Store, StoreError, StoredMeta};

#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("{path} does not exist")]
    Missing { path: PathBuf },
    #[error("{path} is not a directory")]
    NotADirectory { path: PathBuf },
    #[error(transparent)]
    Store(#[from] StoreError),
}

pub struct IndexedFile {
    pub path: String,
    pub lang: Lang,
    /// Content hash of the file as indexed.
    pub hash: u64,
    pub facts: FileFacts,
}

/// What a refresh did and how long each step took.
#[derive(Debug, Default, Clone, Serialize)]
pub struct RefreshStats {
    pub files: usize,
    pub parsed: usize,
    pub touched: usize,
    pub reused: usize,
    pub removed: usize,
    pub lines: u64,
    pub declarations: usize,
    pub edges: usize,
    pub unresolved: usize,
    pub skipped: Vec<Skipped>,
    pub other_files: usize,
    pub files_with_syntax_errors: Vec<(String, u32)>,
    pub rebuilt: Option<String>,
    /// True when the resolved graph came from the cache (nothing changed).
    pub snapshot: bool,
    pub timings_ms: Timings,
}

#[derive(Debug, Default, Clone, Serialize)]
pub struct Timings {
    pub scan: f64,
    pub parse: f64,
    pub store: f64,
    pub load: f64,
    pub resolve: f64,
    pub graph: f64,
    pub total: f64,
}

pub struct Index {
    pub root: PathBuf,
    /// Where the index database lives (for lazily computed extras such as token counts).
    pub db_path: PathBuf,
    pub files: Vec<IndexedFile>,
    pub res: Resolution,
    pub graph: Graph,
    pub stats: RefreshStats,
}

enum Outcome {
    Parsed {
        meta: StoredMeta,
        facts: Box<FileFacts>,
        blob: store::EncodedFacts,
    },
    Touched {
        meta: StoredMeta,
    },
    Skipped(SkipReason),
}

/// Progress callbacks for long refreshes (the CLI draws a bar from them).
pub trait Progress: Sync {
    fn start(&self, _total: usize) {}
    fn tick(&self) {}
    fn finish(&self) {}
}

pub struct NoProgress;
impl Progress for NoProgress {}

impl Index {
    /// Refresh the on-disk index of `root` and load the resolved graph.
    pub fn open(root: &Path, progress: &dyn Progress) -> Result<Index, IndexError> {
        Index::open_with(root, None, progress)
    }

    /// Like [`Index::open`], with the database at `db` instead of `ROOT/.ripple/index.db`.
    pub fn open_with(
        root: &Path,
        db: Option<&Path>,
        progress: &dyn Progress,
    ) -> Result<Index, IndexError> {
        match Index::refresh(root, db, progress) {
            Err(IndexError::Store(e)) if e.is_corruption() => {
                // Damage deep in the file that opening did not read: start over once.
                let path = match db {
                    Some(db) => db.to_path_buf(),
                    None => Store::default_path(root),
                };
                Store::discard(&path);
                let mut index = Index::refresh(root, db, progress)?;
                index.stats.rebuilt = Some("the index database was damaged; rebuilt it".to_owned());
                Ok(index)
            }
            other => other,
        }
    }

    fn refresh(
        root: &Path,
        db: Option<&Path>,
        progress: &dyn Progress,
    ) -> Result<Index, IndexError> {
        let t0 = Instant::now();
        if !root.exists() {
            return Err(IndexError::Missing {
                path: root.to_path_buf(),
            });
        }
        if !root.is_dir() {
            return Err(IndexError::NotADirectory {
                path: root.to_path_buf(),
            });
        }
        let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        let mut stats = RefreshStats::default();
        let inv: Inventory = inventory::scan(&root);
        stats.timings_ms.scan = ms(t0);

        let t = Instant::now();
        let db_path = match db {
            Some(db) => db.to_path_buf(),
            None => Store::default_path(&root),
        };
        let mut store = match db {
            Some(db) => Store::open_at(db)?,
            None => Store::open(&root)?,
        };
        stats.rebuilt = store.rebuilt_reason.clone();
        let stored = store.metas()?;
        let to_check: Vec<usize> = inv
            .files
            .iter()
            .enumerate()
            .filter(|(_, f)| match stored.get(&f.path) {
                Some(m) => m.size != f.size || m.mtime_ns != f.mtime_ns,
                None => true,
            })
            .map(|(i, _)| i)
            .collect();
        progress.start(to_check.len());
        let outcomes: Vec<(usize, Outcome)> = to_check
            .par_iter()
            .map(|&i| {
                let f = &inv.files[i];
                let out = check_file(&root, f, stored.get(&f.path));
                progress.tick();
                (i, out)
            })
            .collect();
        progress.finish();
        stats.timings_ms.parse = ms(t);
        memory_trace("parse");

        let t = Instant::now();
        let mut upserts = Vec::new();
        let mut touched = Vec::new();
        let mut fresh: HashMap<usize, FileFacts> = HashMap::new();
        let mut skipped_now: HashSet<usize> = HashSet::new();
        for (i, out) in outcomes {
            let path = inv.files[i].path.clone();
            match out {
                Outcome::Parsed { meta, facts, blob } => {
                    upserts.push((path, meta, blob));
                    fresh.insert(i, *facts);
                }
                Outcome::Touched { meta } => touched.push((path, meta)),
                Outcome::Skipped(reason) => {
                    stats.skipped.push(Skipped { path, reason });
                    skipped_now.insert(i);
                }
            }
        }
        let present: HashSet<&str> = inv
            .files
            .iter()
            .enumerate()
            .filter(|(i, _)| !skipped_now.contains(i))
            .map(|(_, f)| f.path.as_str())
            .collect();
        let removed: Vec<String> = stored
            .keys()
            .filter(|p| !present.contains(p.as_str()))
            .cloned()
            .collect();
        let mut hashes: HashMap<&str, (u64, u64)> = stored
            .iter()
            .map(|(p, m)| (p.as_str(), (m.hash, m.shape)))
            .collect();
        for (p, m, _) in &upserts {
            hashes.insert(p.as_str(), (m.hash, m.shape));
        }
        for (p, m) in &touched {
            hashes.insert(p.as_str(), (m.hash, m.shape));
        }
        let hashes: HashMap<String, (u64, u64)> =
            hashes.into_iter().map(|(p, h)| (p.to_owned(), h)).collect();
        stats.parsed = upserts.len();
        stats.touched = touched.len();
        stats.removed = removed.len();
        let pending = !(upserts.is_empty() && touched.is_empty() && removed.is_empty());
        // Writing the new facts waits until the graph needs resolving: it
        // then runs on another thread, beside the resolver (which reads
        // nothing from the database).
        let commit = move |store: &mut Store| -> Result<f64, StoreError> {
            let t = Instant::now();
            if pending {
                store.commit(&upserts, &touched, &removed)?;
            }
            drop(upserts);
            Ok(ms(t))
        };
        let prepare_ms = ms(t);

        // Resolution is a pure function of the files' shapes (what resolution
        // reads of their facts) and go.mod module paths, so a repository whose
        // shapes did not change reuses the last result, and then the flow
        // facts need not even be decoded.
        let t = Instant::now();
        let go_modules = read_go_modules(&root, &inv.go_mods);
        let mut key_input = format!("{:016x}\n", resolve::resolver_fingerprint());
        for (dir, module) in &go_modules {
            key_input.push_str(&format!("go.mod {dir} {module}\n"));
        }
        let mut expected_files = 0;
        for (i, f) in inv.files.iter().enumerate() {
            if skipped_now.contains(&i) {
                continue;
            }
            let shape = hashes.get(&f.path).map_or(0, |h| h.1);
            key_input.push_str(&format!("{} {:016x}\n", f.path, shape));
            expected_files += 1;
        }
        let key = format!("{:016x}", content_hash(key_input.as_bytes()));
        let cached = match store.snapshot(&key)? {
            Some(blob) => match postcard::from_bytes::<Resolution>(&blob) {
                Ok(r) if r.file_base.len() == expected_files => Some(r),
                Ok(_) => None,
                Err(e) => {
                    if std::env::var_os("RIPPLE_DEBUG_RESOLVE").is_some() {
                        eprintln!("snapshot does not decode: {e}");
                    }
                    None
                }
            },
            None => None,
        };
        let snapshot_ms = ms(t);

        let t = Instant::now();
        let fresh_paths: HashSet<&str> =
            fresh.keys().map(|&i| inv.files[i].path.as_str()).collect();
        let need_load = inv.files.len() - fresh.len() - skipped_now.len();
        let mut loaded: HashMap<String, FileFacts> = HashMap::new();
        if need_load > 0 {
            loaded = load_facts(&store, cached.is_none(), |p| {
                !fresh_paths.contains(p) && present.contains(p)
            })?;
        }
        let mut files = Vec::with_capacity(inv.files.len());
        let mut damaged = Vec::new();
        for (i, f) in inv.files.iter().enumerate() {
            if skipped_now.contains(&i) {
                continue;
            }
            let known = hashes.get(&f.path).map_or(0, |h| h.0);
            let (hash, facts) = match fresh.remove(&i) {
                Some(facts) => (known, facts),
                None => match loaded.remove(&f.path) {
                    Some(facts) => (known, facts),
                    None => {
                        // A row that no longer decodes: parse the file again.
                        match check_file(&root, f, None) {
                            Outcome::Parsed { meta, facts, blob } => {
                                let hash = meta.hash;
                                damaged.push((f.path.clone(), meta, blob));
                                (hash, *facts)
                            }
                            _ => continue,
                        }
                    }
                },
            };
            files.push(IndexedFile {
                path: f.path.clone(),
                lang: f.lang,
                hash,
                facts,
            });
        }
        if !damaged.is_empty() {
            stats.parsed += damaged.len();
            store.commit(&damaged, &[], &[])?;
        }
        stats.timings_ms.load = ms(t);
        memory_trace("load");

        stats.files = files.len();
        stats.reused = files.len().saturating_sub(stats.parsed);
        stats.skipped.extend(inv.skipped.iter().cloned());
        stats.skipped.sort_by(|a, b| a.path.cmp(&b.path));
        stats.other_files = inv.other_files;
        for f in &files {
            stats.lines += f.facts.lines as u64;
            if f.facts.syntax_errors > 0 {
                stats
                    .files_with_syntax_errors
                    .push((f.path.clone(), f.facts.syntax_errors));
            }
        }

        let cached = match cached {
            Some(res) if res.file_base.len() == files.len() => Some(res),
            Some(_) => {
                // A file vanished between the scan and the load: the
                // snapshot no longer fits, and the flow facts are needed.
                let mut flow = load_facts(&store, true, |_| true)?;
                for f in &mut files {
                    if let Some(full) = flow.remove(&f.path) {
                        f.facts = full;
                    }
                }
                None
            }
            None => None,
        };

        let t = Instant::now();
        let res = match cached {
            Some(mut res) => {
                stats.timings_ms.store = prepare_ms + commit(&mut store)?;
                stats.snapshot = true;
                // Same shapes, but lines may have moved (a comment added above).
                for (fi, f) in files.iter().enumerate() {
                    let base = res.file_base[fi] as usize;
                    for (li, d) in f.facts.decls.iter().enumerate() {
                        if let Some(decl) = res.decls.get_mut(base + li) {
                            decl.span = d.span;
                        }
                    }
                }
                res
            }
            None => {
                let sources: Vec<SourceFile> = files
                    .iter()
                    .map(|f| SourceFile {
                        path: &f.path,
                        facts: &f.facts,
                    })
                    .collect();
                let (res, written) = std::thread::scope(|scope| {
                    let writer = scope.spawn(|| commit(&mut store));
                    let res = resolve::resolve(&sources, &go_modules);
                    (res, writer.join())
                });
                let written = written.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                stats.timings_ms.store = prepare_ms + written?;
                res
            }
        };
        memory_trace("resolve");
        // Flow facts only serve resolution; declarations and call sites stay.
        for f in &mut files {
            f.facts.lang_facts = crate::model::LangFacts::empty(f.lang);
            f.facts.strings = Vec::new();
        }
        // Streamed to its file once the flow facts are gone, so the encoder's
        // buffers reuse their memory instead of raising the peak.
        if !stats.snapshot {
            store.set_snapshot(&key, |out| {
                postcard::to_io(&res, out)
                    .map(|_| ())
                    .map_err(std::io::Error::other)
            })?;
        }
        stats.timings_ms.resolve = ms(t) + snapshot_ms;
        memory_trace("snapshot");

        let t = Instant::now();
        let graph = Graph::build(&res);
        stats.timings_ms.graph = ms(t);
        memory_trace("graph");
        stats.declarations = res.decls.iter().filter(|d| !d.is_external()).count();
        stats.edges = res.edges.len();
        stats.unresolved = res.unresolved.len();
        stats.timings_ms.total = ms(t0);
        Ok(Index {
            root,
            db_path,
            files,
            res,
            graph,
            stats,
        })
    }

    /// Tokens of every indexed file (o200k), counted on first use and
    /// cached by content hash.
    pub fn file_tokens(&self) -> Result<Vec<crate::tokens::TokenCount>, IndexError> {
        let mut store = Store::open_at(&self.db_path)?;
        let cached = store.token_counts()?;
        let missing: Vec<usize> = (0..self.files.len())
            .filter(|&i| !cached.contains_key(&self.files[i].hash))
            .collect();
        let counted: Vec<(u64, u64)> = missing
            .par_iter()
            .map(|&i| {
                let f = &self.files[i];
                let text = std::fs::read(self.root.join(&f.path)).unwrap_or_default();
                (
                    f.hash,
                    crate::tokens::count(&String::from_utf8_lossy(&text)).get(),
                )
            })
            .collect();
        if !counted.is_empty() {
            store.put_token_counts(&counted)?;
        }
        let fresh: HashMap<u64, u64> = counted.into_iter().collect();
        Ok(self
            .files
            .iter()
            .map(|f| {
                crate::tokens::TokenCount(
                    cached
                        .get(&f.hash)
                        .or_else(|| fresh.get(&f.hash))
                        .copied()
                        .unwrap_or(0),
                )
            })
            .collect())
    }

    /// The file a declaration lives in.
    pub fn file_of(&self, decl: u32) -> Option<&IndexedFile> {
        let f = self.res.decls.get(decl as usize)?.file?;
        self.files.get(f as usize)
    }

    /// The extractor's record of a declaration (signature, doc…).
    pub fn local_decl(&self, decl: u32) -> Option<&crate::model::LocalDecl> {
        let d = self.res.decls.get(decl as usize)?;
        let f = self.files.get(d.file? as usize)?;
        f.facts.decls.get(d.local as usize)
    }

    /// The call site text and span of an edge or unresolved call.
    pub fn call_site(&self, file: u32, call: u32) -> Option<(&str, &crate::model::CallSite)> {
        let f = self.files.get(file as usize)?;
        Some((f.path.as_str(), f.facts.calls.get(call as usize)?))
    }
}

/// Decode the stored facts of the files `wanted` accepts, in parallel; rows
/// that do not decode are left out (the caller re-parses them).
fn load_facts(
    store: &Store,
    with_flow: bool,
    wanted: impl Fn(&str) -> bool + Sync,
) -> Result<HashMap<String, FileFacts>, IndexError> {
    let blobs = store.fact_blobs(with_flow)?;
    Ok(blobs
        .into_par_iter()
        .filter(|b| wanted(&b.path))
        .filter_map(|b| {
            let facts = store::decode_facts(&b.display, b.flow.as_deref())?;
            Some((b.path, facts))
        })
        .collect())
}

/// (directory, module path) of every readable `go.mod`.
fn read_go_modules(root: &Path, go_mods: &[String]) -> Vec<(String, String)> {
    go_mods
        .iter()
        .filter_map(|rel| {
            let text = std::fs::read_to_string(root.join(rel)).ok()?;
            let module = text
                .lines()
                .find_map(|l| l.trim().strip_prefix("module "))?;
            let module = module.trim().trim_matches('"').to_owned();
            let dir = rel
                .rsplit_once('/')
                .map(|(d, _)| d.to_owned())
                .unwrap_or_default();
            Some((dir, module))
        })
        .collect()
}

/// With `RIPPLE_DEBUG_MEMORY` set, print the resident set after a phase:
/// how the memory figures in the README were broken down.
pub(crate) fn memory_trace(phase: &str) {
    if std::env::var_os("RIPPLE_DEBUG_MEMORY").is_some() {
        static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
        let start = START.get_or_init(Instant::now);
        eprintln!(
            "memory after {phase}: {:.0} MB resident, {:.0} MB peak ({:.0} ms since the first phase)",
            crate::bench::current_rss_mb(),
            crate::bench::peak_rss_mb(),
            start.elapsed().as_secs_f64() * 1000.0
        );
    }
}

fn ms(t: Instant) -> f64 {
    (t.elapsed().as_secs_f64() * 1e5).round() / 100.0
}

fn check_file(root: &Path, f: &inventory::SourceFileMeta, stored: Option<&StoredMeta>) -> Outcome {
    let bytes = match std::fs::read(root.join(&f.path)) {
        Ok(b) => b,
        Err(_) => return Outcome::Skipped(SkipReason::Unreadable),
    };
    let hash = content_hash(&bytes);
    let mut meta = StoredMeta {
        size: f.size,
        mtime_ns: f.mtime_ns,
        hash,
        shape: 0,
    };
    if let Some(s) = stored
        && s.hash == hash
    {
        meta.shape = s.shape;
        return Outcome::Touched { meta };
    }
    if let Some(reason) = inventory::classify_content(f.lang, &bytes) {
        return Outcome::Skipped(reason);
    }
    let facts = crate::lang::extract(f.lang, &f.path, &bytes);
    let blob = store::encode_facts(&facts);
    meta.shape = blob.shape;
    Outcome::Parsed {
        meta,
        facts: Box::new(facts),
        blob,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_database_damaged_past_its_header_is_rebuilt_on_the_next_refresh() {
        let repo = tempfile::tempdir().unwrap();
        let body: String = (0..400)
            .map(|i| format!("def f{i}():\n    return f{}()\n\n", (i + 1) % 400))
            .collect();
        std::fs::write(repo.path().join("m.py"), body).unwrap();
        let first = Index::open(repo.path(), &NoProgress).unwrap();
        let edges = first.stats.edges;
        assert!(edges >= 400);
        drop(first);
        let db = Store::default_path(repo.path());
        let mut bytes = std::fs::read(&db).unwrap();
        assert!(bytes.len() > 8192, "the test needs a multi-page database");
        for b in &mut bytes[4096..] {
            *b = 0xA5;
        }
        std::fs::write(&db, &bytes).unwrap();
        let again = Index::open(repo.path(), &NoProgress).unwrap();
        assert_eq!(again.stats.edges, edges);
        assert!(again.stats.rebuilt.is_some());
    }
}

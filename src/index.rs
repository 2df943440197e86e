//! Orchestration of one refresh: inventory → parse what changed (in
//! parallel) → store → load every file's facts → resolve → graph. Every
//! command runs this first, so answers always reflect the files on disk.
//!
//! A file is re-read only when its size or mtime changed, and re-parsed only
//! when its content hash changed too.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

use crate::graph::Graph;
use crate::inventory::{self, Inventory, SkipReason, Skipped};
use crate::lang::FileFacts;
use crate::model::{DeclId, FileId, Lang, content_hash};
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
    pub lines: u32,
    pub syntax_errors: u32,
    /// Generated code ([`inventory::is_generated`]): its declarations are
    /// in the graph like any other, and marked `generated`.
    pub generated: bool,
    /// Declarations and call sites, decoded on first use: a refresh that
    /// reuses the resolved graph needs none of them, and a command reads
    /// those of a few files (their flow facts are gone once resolved).
    facts: OnceLock<FileFacts>,
    source: Arc<FactSource>,
}

impl IndexedFile {
    /// The file's declarations and call sites as indexed.
    pub fn facts(&self) -> &FileFacts {
        self.facts.get_or_init(|| self.source.load(self))
    }
}

/// Where an index's files load their facts from: the connection the
/// refresh used, kept open.
struct FactSource {
    root: PathBuf,
    store: Mutex<Option<Store>>,
}

impl FactSource {
    /// The stored display facts of `f`, checked against the content it was
    /// indexed from. Another refresh may have replaced the row since (the
    /// explorer's watcher, a second command) and a row may be damaged:
    /// then the file is extracted again if it still holds that content
    /// (a damaged row is rewritten), and otherwise the file has no facts
    /// left to show, which a later refresh corrects.
    fn load(&self, f: &IndexedFile) -> FileFacts {
        let blob = {
            let store = self.store.lock().unwrap_or_else(|e| e.into_inner());
            store
                .as_ref()
                .and_then(|s| s.display_blob(&f.path, f.hash).ok().flatten())
        };
        if let Some(facts) = blob.as_deref().and_then(|b| store::decode_facts(b, None))
            && facts.lang == f.lang
        {
            return facts;
        }
        if let Ok(bytes) = crate::inventory::read_regular(self.root.join(&f.path))
            && content_hash(&bytes) == f.hash
        {
            let mut facts = crate::lang::extract(f.lang, &f.path, &bytes);
            if blob.is_some() {
                let store = self.store.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(s) = store.as_ref() {
                    let _ = s.repair_facts(&f.path, f.hash, &store::encode_facts(&facts));
                }
            }
            facts.lang_facts = crate::lang::LangFacts::empty(f.lang);
            facts.strings = Default::default();
            return facts;
        }
        FileFacts {
            lang: f.lang,
            decls: Vec::new(),
            calls: Vec::new(),
            strings: Default::default(),
            syntax_errors: f.syntax_errors,
            lines: f.lines,
            lang_facts: crate::lang::LangFacts::empty(f.lang),
        }
    }
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
    /// Indexed files that are generated code (counted in `files`).
    pub generated_files: usize,
    pub other_files: usize,
    pub files_with_syntax_errors: Vec<(String, u32)>,
    pub rebuilt: Option<String>,
    /// Whether the graph was resolved again, why, and how much work it took.
    pub graph: GraphRefresh,
    pub timings_ms: Timings,
}

/// What a refresh did to the resolved graph.
#[derive(Debug, Default, Clone, Serialize)]
pub struct GraphRefresh {
    pub action: GraphAction,
    /// Why it was resolved: which files changed what resolution reads of
    /// them (at most [`MAX_REASONS`] named, then a count), or that no graph
    /// was cached for this resolver.
    pub why: Vec<String>,
    pub work: resolve::ResolveWork,
}

/// Whether a refresh reused the cached graph or resolved it again.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GraphAction {
    /// No file's shape changed, so the cached graph stands (with positions
    /// moved in the re-parsed files).
    Reused,
    /// The whole repository was resolved again.
    #[default]
    Resolved,
}

/// How many changed files a refresh names in [`GraphRefresh::why`].
const MAX_REASONS: usize = 8;

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
        let mut stored_skips = store.skips()?;
        let mut skips = store::SkipChanges::default();
        let mut skipped_now: HashSet<usize> = HashSet::new();
        let mut to_check = Vec::new();
        for (i, f) in inv.files.iter().enumerate() {
            if let Some(m) = stored.get(&f.path)
                && m.size == f.size
                && m.mtime_ns == f.mtime_ns
            {
                continue;
            }
            match stored_skips.get(&f.path) {
                Some(s) if s.size == f.size && s.mtime_ns == f.mtime_ns => {
                    stats.skipped.push(Skipped {
                        path: f.path.clone(),
                        reason: s.reason,
                    });
                    skipped_now.insert(i);
                    stored_skips.remove(&f.path);
                }
                _ => to_check.push(i),
            }
        }
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
        crate::memory::trace("parse");

        let t = Instant::now();
        let mut upserts = Vec::new();
        let mut touched = Vec::new();
        let mut fresh: HashMap<usize, FileFacts> = HashMap::new();
        for (i, out) in outcomes {
            let path = inv.files[i].path.clone();
            match out {
                Outcome::Parsed { meta, facts, blob } => {
                    upserts.push((path, meta, blob));
                    fresh.insert(i, *facts);
                }
                Outcome::Touched { meta } => touched.push((path, meta)),
                Outcome::Skipped(reason) => {
                    // Unreadable may pass; the content will not change by itself.
                    if matches!(reason, SkipReason::Binary) {
                        let skip = store::StoredSkip {
                            size: inv.files[i].size,
                            mtime_ns: inv.files[i].mtime_ns,
                            reason,
                        };
                        skips.added.push((path.clone(), skip));
                    }
                    stats.skipped.push(Skipped { path, reason });
                    skipped_now.insert(i);
                }
            }
        }
        // Left in `stored_skips`: files gone or changed (those skipped again
        // are written back after the removals).
        skips.removed = stored_skips.into_keys().collect();
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
        let mut shape_changes: Vec<String> = Vec::new();
        if stored.is_empty() && !upserts.is_empty() {
            shape_changes.push("no index existed: every file was parsed".to_owned());
        }
        for (path, meta, _) in upserts.iter().filter(|_| !stored.is_empty()) {
            match stored.get(path) {
                None => shape_changes.push(format!("{path} is new")),
                Some(old) if old.shape != meta.shape => {
                    shape_changes.push(format!("{path} changed what it declares, imports or calls"))
                }
                Some(_) => {}
            }
        }
        shape_changes.extend(removed.iter().map(|p| format!("{p} was removed")));
        // What is known of every file now: stored, updated by this refresh.
        let mut metas: HashMap<&str, &StoredMeta> =
            stored.iter().map(|(p, m)| (p.as_str(), m)).collect();
        for (p, m, _) in &upserts {
            metas.insert(p.as_str(), m);
        }
        for (p, m) in &touched {
            metas.insert(p.as_str(), m);
        }
        // Everything the rest of the refresh needs of a file's metadata, by
        // inventory index, so the maps borrowing the pending writes can go.
        let known: Vec<Option<StoredMeta>> = inv
            .files
            .iter()
            .enumerate()
            .map(|(i, f)| {
                if skipped_now.contains(&i) {
                    None
                } else {
                    metas.get(f.path.as_str()).map(|m| (*m).clone())
                }
            })
            .collect();
        drop(metas);
        stats.parsed = upserts.len();
        stats.touched = touched.len();
        stats.removed = removed.len();
        let pending =
            !(upserts.is_empty() && touched.is_empty() && removed.is_empty() && skips.is_empty());
        // Writing the new facts waits until the graph needs resolving: it
        // then runs on another thread, beside the resolver (which reads
        // nothing from the database).
        let commit = move |store: &mut Store| -> Result<f64, StoreError> {
            let t = Instant::now();
            if pending {
                store.commit(&upserts, &touched, &removed, &skips)?;
            }
            drop(upserts);
            Ok(ms(t))
        };
        let prepare_ms = ms(t);

        // Resolution is a pure function of the files' shapes (what resolution
        // reads of their facts) and go.mod module paths, so a repository whose
        // shapes did not change reuses the last result, and then no facts
        // need be decoded at all: display facts are loaded when asked for.
        let t = Instant::now();
        let go_modules = read_go_modules(&root, &inv.go_mods);
        let mut key_input = format!("{:016x}\n", resolve::resolver_fingerprint());
        for (dir, module) in &go_modules {
            key_input.push_str(&format!("go.mod {dir} {module}\n"));
        }
        let mut expected_files = 0;
        for (f, m) in inv.files.iter().zip(&known) {
            if let Some(m) = m {
                key_input.push_str(&format!("{} {:016x}\n", f.path, m.shape));
                expected_files += 1;
            }
        }
        let key = format!("{:016x}", content_hash(key_input.as_bytes()));
        let cached = match store.snapshot(&key)? {
            Some(blob) => match postcard::from_bytes::<(Vec<u64>, Resolution)>(&blob) {
                Ok((hashes, r))
                    if r.file_base.len() == expected_files && hashes.len() == expected_files =>
                {
                    Some((hashes, r))
                }
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
        let source = Arc::new(FactSource {
            root: root.clone(),
            store: Mutex::new(None),
        });
        let new_file = |f: &inventory::SourceFileMeta, m: &StoredMeta| IndexedFile {
            path: f.path.clone(),
            lang: f.lang,
            hash: m.hash,
            lines: m.lines,
            syntax_errors: m.syntax_errors,
            generated: m.generated,
            facts: OnceLock::new(),
            source: Arc::clone(&source),
        };
        let mut files = Vec::with_capacity(expected_files);
        if cached.is_some() {
            for (i, (f, m)) in inv.files.iter().zip(&known).enumerate() {
                let Some(m) = m else { continue };
                let file = new_file(f, m);
                if let Some(facts) = fresh.remove(&i) {
                    let _ = file.facts.set(facts);
                }
                files.push(file);
            }
        } else {
            // Resolution reads every file's flow facts: load them all now.
            let fresh_paths: HashSet<&str> =
                fresh.keys().map(|&i| inv.files[i].path.as_str()).collect();
            let mut loaded: HashMap<String, FileFacts> = HashMap::new();
            if expected_files > fresh.len() {
                loaded = load_facts(&store, |p| !fresh_paths.contains(p) && present.contains(p))?;
            }
            let mut damaged = Vec::new();
            for (i, (f, m)) in inv.files.iter().zip(&known).enumerate() {
                let Some(m) = m else { continue };
                let mut file = new_file(f, m);
                let facts = match fresh.remove(&i) {
                    Some(facts) => facts,
                    None => match loaded.remove(&f.path) {
                        Some(facts) => facts,
                        None => {
                            // A row that no longer decodes: parse the file again.
                            match check_file(&root, f, None) {
                                Outcome::Parsed { meta, facts, blob } => {
                                    file.hash = meta.hash;
                                    file.lines = meta.lines;
                                    file.syntax_errors = meta.syntax_errors;
                                    file.generated = meta.generated;
                                    damaged.push((f.path.clone(), meta, blob));
                                    *facts
                                }
                                _ => continue,
                            }
                        }
                    },
                };
                let _ = file.facts.set(facts);
                files.push(file);
            }
            if !damaged.is_empty() {
                stats.parsed += damaged.len();
                store.commit(&damaged, &[], &[], &store::SkipChanges::default())?;
            }
        }
        stats.timings_ms.load = ms(t);
        crate::memory::trace("load");

        stats.files = files.len();
        stats.reused = files.len().saturating_sub(stats.parsed);
        stats.skipped.extend(inv.skipped.iter().cloned());
        stats.skipped.sort_by(|a, b| a.path.cmp(&b.path));
        stats.other_files = inv.other_files;
        stats.generated_files = files.iter().filter(|f| f.generated).count();
        for f in &files {
            stats.lines += f.lines as u64;
            if f.syntax_errors > 0 {
                stats
                    .files_with_syntax_errors
                    .push((f.path.clone(), f.syntax_errors));
            }
        }

        let t = Instant::now();
        let res = match cached {
            Some((resolved_from, mut res)) => {
                stats.timings_ms.store = prepare_ms + commit(&mut store)?;
                stats.graph.action = GraphAction::Reused;
                *source.store.lock().unwrap_or_else(|e| e.into_inner()) = Some(store);
                // Same shapes, but lines may have moved (a comment added
                // above) in the files whose content changed since the
                // graph was resolved; only theirs need decoding.
                for (fi, f) in files.iter().enumerate() {
                    if f.hash == resolved_from[fi] {
                        continue;
                    }
                    let base = res.file_base[fi].index();
                    for (li, d) in f.facts().decls.iter().enumerate() {
                        if let Some(decl) = res.decls.get_mut(base + li) {
                            decl.span = d.span;
                        }
                    }
                    if let Some(lines) = res.call_lines.get_mut(fi) {
                        *lines = Resolution::lines_of_calls(f.facts());
                    }
                }
                res
            }
            None => {
                stats.graph.action = GraphAction::Resolved;
                let named = shape_changes.len().min(MAX_REASONS);
                stats.graph.why = shape_changes.drain(..named).collect();
                if !shape_changes.is_empty() {
                    stats
                        .graph
                        .why
                        .push(format!("and {} more files", shape_changes.len()));
                }
                if stats.graph.why.is_empty() {
                    stats.graph.why.push(
                        "no resolved graph was cached for these files and this version of ripple"
                            .to_owned(),
                    );
                }
                let sources: Vec<SourceFile> = files
                    .iter()
                    .map(|f| SourceFile {
                        path: &f.path,
                        facts: f.facts(),
                    })
                    .collect();
                let (res, written) = std::thread::scope(|scope| {
                    let writer = scope.spawn(|| commit(&mut store));
                    let res = resolve::resolve(&sources, &go_modules);
                    (res, writer.join())
                });
                let written = written.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                stats.graph.work = res.work;
                stats.timings_ms.store = prepare_ms + written?;
                crate::memory::trace("resolve");
                // Flow facts only serve resolution; declarations and call sites stay.
                for f in &mut files {
                    if let Some(facts) = f.facts.get_mut() {
                        facts.lang_facts = crate::lang::LangFacts::empty(f.lang);
                        facts.strings = Default::default();
                    }
                }
                // Streamed to its file once the flow facts are gone, so the
                // encoder's buffers reuse their memory instead of raising the
                // peak. The content hashes say which files' positions it holds.
                let hashes: Vec<u64> = files.iter().map(|f| f.hash).collect();
                store.set_snapshot(&key, |out| {
                    postcard::to_io(&(&hashes, &res), out)
                        .map(|_| ())
                        .map_err(std::io::Error::other)
                })?;
                *source.store.lock().unwrap_or_else(|e| e.into_inner()) = Some(store);
                res
            }
        };
        stats.timings_ms.resolve = ms(t) + snapshot_ms;
        crate::memory::trace("snapshot");

        let t = Instant::now();
        let graph = Graph::build(&res);
        stats.timings_ms.graph = ms(t);
        crate::memory::trace("graph");
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
                let text =
                    crate::inventory::read_regular(self.root.join(&f.path)).unwrap_or_default();
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

    /// Whether a declaration is generated code (declared in a generated
    /// file). External leaves are not.
    pub fn is_generated(&self, decl: DeclId) -> bool {
        self.file_of(decl).is_some_and(|f| f.generated)
    }

    /// The file a declaration lives in.
    pub fn file_of(&self, decl: DeclId) -> Option<&IndexedFile> {
        let f = self.res.decls.get(decl.index())?.file?;
        self.files.get(f.index())
    }

    /// The extractor's record of a declaration (signature, doc…).
    pub fn local_decl(&self, decl: DeclId) -> Option<&crate::model::LocalDecl> {
        let d = self.res.decls.get(decl.index())?;
        let f = self.files.get(d.file?.index())?;
        f.facts().decls.get(d.local as usize)
    }

    /// The call site text and span of an edge or unresolved call.
    pub fn call_site(&self, file: FileId, call: u32) -> Option<(&str, &crate::model::CallSite)> {
        let f = self.files.get(file.index())?;
        Some((f.path.as_str(), f.facts().calls.get(call as usize)?))
    }
}

/// Decode the stored facts of the files `wanted` accepts, in parallel; rows
/// that do not decode are left out (the caller re-parses them).
fn load_facts(
    store: &Store,
    wanted: impl Fn(&str) -> bool,
) -> Result<HashMap<String, FileFacts>, IndexError> {
    Ok(store.decoded_facts(wanted)?.into_iter().collect())
}

/// (directory, module path) of every readable `go.mod`.
fn read_go_modules(root: &Path, go_mods: &[String]) -> Vec<(String, String)> {
    go_mods
        .iter()
        .filter_map(|rel| {
            let text = crate::inventory::read_regular_string(root.join(rel)).ok()?;
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

fn ms(t: Instant) -> f64 {
    (t.elapsed().as_secs_f64() * 1e5).round() / 100.0
}

fn check_file(root: &Path, f: &inventory::SourceFileMeta, stored: Option<&StoredMeta>) -> Outcome {
    let bytes = match crate::inventory::read_regular(root.join(&f.path)) {
        Ok(b) => b,
        Err(_) => return Outcome::Skipped(SkipReason::Unreadable),
    };
    let hash = content_hash(&bytes);
    let mut meta = StoredMeta {
        size: f.size,
        mtime_ns: f.mtime_ns,
        hash,
        shape: 0,
        lines: 0,
        syntax_errors: 0,
        generated: false,
    };
    if let Some(s) = stored
        && s.hash == hash
    {
        meta.shape = s.shape;
        meta.lines = s.lines;
        meta.syntax_errors = s.syntax_errors;
        meta.generated = s.generated;
        return Outcome::Touched { meta };
    }
    if let Some(reason) = inventory::classify_content(f.lang, &bytes) {
        return Outcome::Skipped(reason);
    }
    let facts = crate::lang::extract(f.lang, &f.path, &bytes);
    let blob = store::encode_facts(&facts);
    meta.shape = blob.shape;
    meta.lines = facts.lines;
    meta.syntax_errors = facts.syntax_errors;
    meta.generated = inventory::is_generated(&f.path, &bytes);
    Outcome::Parsed {
        meta,
        facts: Box::new(facts),
        blob,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decl_lines(index: &Index, path: &str) -> Vec<(String, u32, u32)> {
        let fi = index.files.iter().position(|f| f.path == path).unwrap();
        let from_facts = index.files[fi]
            .facts()
            .decls
            .iter()
            .map(|d| (d.local_name.clone(), d.span.start_line, 0));
        let base = index.res.file_base[fi].index();
        from_facts
            .enumerate()
            .map(|(li, (name, line, _))| (name, line, index.res.decls[base + li].span.start_line))
            .collect()
    }

    /// The graph's line of each call site in `path`, beside its facts' line.
    fn call_lines(index: &Index, path: &str) -> Vec<(u32, u32)> {
        let fi = index.files.iter().position(|f| f.path == path).unwrap();
        index.files[fi]
            .facts()
            .calls
            .iter()
            .enumerate()
            .map(|(ci, c)| {
                (
                    c.span.start_line,
                    index.res.call_line(FileId::new(fi), ci as u32),
                )
            })
            .collect()
    }

    #[test]
    fn comment_edits_move_lines_in_the_reused_graph_across_refreshes() {
        let repo = tempfile::tempdir().unwrap();
        std::fs::write(
            repo.path().join("a.py"),
            "def f():\n    g()\n\ndef g():\n    pass\n",
        )
        .unwrap();
        std::fs::write(
            repo.path().join("b.py"),
            "from a import f\n\ndef h():\n    f()\n",
        )
        .unwrap();
        let first = Index::open(repo.path(), &NoProgress).unwrap();
        assert_eq!(first.stats.graph.action, GraphAction::Resolved);
        drop(first);
        let prepend = |name: &str| {
            let path = repo.path().join(name);
            let text = std::fs::read_to_string(&path).unwrap();
            std::fs::write(&path, format!("# moved\n# down\n{text}")).unwrap();
        };
        prepend("a.py");
        let second = Index::open(repo.path(), &NoProgress).unwrap();
        assert_eq!(second.stats.graph.action, GraphAction::Reused);
        assert_eq!(second.stats.parsed, 1);
        drop(second);
        // The graph file still holds a.py's old lines: a refresh that
        // parses only b.py must still move a.py's declarations.
        prepend("b.py");
        let third = Index::open(repo.path(), &NoProgress).unwrap();
        assert_eq!(third.stats.graph.action, GraphAction::Reused);
        assert_eq!(third.stats.parsed, 1);
        let fresh_db = tempfile::tempdir().unwrap();
        let cold = Index::open_with(
            repo.path(),
            Some(&fresh_db.path().join("index.db")),
            &NoProgress,
        )
        .unwrap();
        for path in ["a.py", "b.py"] {
            let lines = decl_lines(&third, path);
            assert_eq!(lines, decl_lines(&cold, path));
            assert_eq!(call_lines(&third, path), call_lines(&cold, path));
            assert!(
                lines.iter().all(|(_, facts, res)| facts == res),
                "{lines:?}"
            );
        }
        assert_eq!(call_lines(&third, "a.py"), [(4, 4)]);
        assert_eq!(call_lines(&third, "b.py"), [(6, 6)]);
        let g = decl_lines(&third, "a.py")
            .into_iter()
            .find(|(name, _, _)| name == "g")
            .unwrap();
        assert_eq!(g, ("g".to_owned(), 6, 6));
        let nothing = Index::open(repo.path(), &NoProgress).unwrap();
        assert_eq!(decl_lines(&nothing, "a.py"), decl_lines(&cold, "a.py"));
        assert_eq!(nothing.stats.lines, cold.stats.lines);
    }

    #[test]
    fn lazily_loaded_facts_are_those_of_the_content_indexed() {
        let repo = tempfile::tempdir().unwrap();
        let path = repo.path().join("m.py");
        let old = "def old():\n    pass\n";
        std::fs::write(&path, old).unwrap();
        drop(Index::open(repo.path(), &NoProgress).unwrap());
        let stale = Index::open(repo.path(), &NoProgress).unwrap();
        let also_stale = Index::open(repo.path(), &NoProgress).unwrap();
        // Another refresh replaces the stored facts before these indexes
        // decode theirs.
        std::fs::write(&path, "def new():\n    pass\n\ndef newer():\n    pass\n").unwrap();
        let after = Index::open(repo.path(), &NoProgress).unwrap();
        let names = |index: &Index| -> Vec<String> {
            index.files[0]
                .facts()
                .decls
                .iter()
                .filter(|d| !d.local_name.is_empty())
                .map(|d| d.local_name.clone())
                .collect()
        };
        assert_eq!(names(&after), ["new", "newer"]);
        // Neither the database nor the file holds what it indexed any more:
        // nothing rather than another version's declarations.
        assert!(names(&stale).is_empty(), "{:?}", names(&stale));
        // The file holds it again: extracted from there.
        std::fs::write(&path, old).unwrap();
        assert_eq!(names(&also_stale), ["old"]);
    }

    #[test]
    fn a_damaged_facts_row_is_extracted_again_and_rewritten() {
        let repo = tempfile::tempdir().unwrap();
        std::fs::write(
            repo.path().join("m.py"),
            "def f():\n    g()\n\ndef g():\n    pass\n",
        )
        .unwrap();
        let cold = Index::open(repo.path(), &NoProgress).unwrap();
        let want = cold.files[0].facts().clone();
        drop(cold);
        let db = Store::default_path(repo.path());
        let damage = || {
            rusqlite::Connection::open(&db)
                .unwrap()
                .execute("UPDATE facts SET facts = x'ffffff'", [])
                .unwrap();
        };
        damage();
        let index = Index::open(repo.path(), &NoProgress).unwrap();
        assert_eq!(index.stats.graph.action, GraphAction::Reused);
        assert_eq!(index.files[0].facts(), &want);
        let (_, site) = index.call_site(FileId(0), 0).unwrap();
        assert_eq!(site.callee_text, "g");
        drop(index);
        let store = Store::open(repo.path()).unwrap();
        let blob = store
            .display_blob("m.py", want_hash(repo.path()))
            .unwrap()
            .unwrap();
        assert_eq!(store::decode_facts(&blob, None).as_ref(), Some(&want));
        drop(store);
        // Damaged when resolution has to run: the file is parsed again.
        damage();
        std::fs::write(repo.path().join("n.py"), "def h():\n    pass\n").unwrap();
        let index = Index::open(repo.path(), &NoProgress).unwrap();
        assert_eq!(index.stats.graph.action, GraphAction::Resolved);
        assert_eq!(index.files[0].facts().decls, want.decls);
    }

    fn want_hash(root: &Path) -> u64 {
        content_hash(&std::fs::read(root.join("m.py")).unwrap())
    }

    #[test]
    fn files_skipped_for_their_content_are_read_again_only_once_changed() {
        let repo = tempfile::tempdir().unwrap();
        std::fs::write(repo.path().join("m.py"), "def f():\n    pass\n").unwrap();
        let bin_path = repo.path().join("g.py");
        let binary = "#\0binary\ndef g():\n    pass\n";
        std::fs::write(&bin_path, binary).unwrap();
        let skipped = |index: &Index| -> Vec<(String, SkipReason)> {
            index
                .stats
                .skipped
                .iter()
                .map(|s| (s.path.clone(), s.reason))
                .collect()
        };
        let want = vec![("g.py".to_owned(), SkipReason::Binary)];
        let first = Index::open(repo.path(), &NoProgress).unwrap();
        assert_eq!(skipped(&first), want);
        assert_eq!(first.stats.files, 1);
        let mtime = std::fs::metadata(&bin_path).unwrap().modified().unwrap();
        drop(first);
        // Same size and mtime: taken as unchanged, not read (the NUL is gone).
        let plain = "# plain \ndef g():\n    pass\n";
        assert_eq!(plain.len(), binary.len());
        std::fs::write(&bin_path, plain).unwrap();
        let file = std::fs::File::options()
            .write(true)
            .open(&bin_path)
            .unwrap();
        file.set_modified(mtime).unwrap();
        drop(file);
        let cached = Index::open(repo.path(), &NoProgress).unwrap();
        assert_eq!(skipped(&cached), want);
        assert_eq!(cached.stats.files, 1);
        drop(cached);
        let file = std::fs::File::options()
            .write(true)
            .open(&bin_path)
            .unwrap();
        file.set_modified(mtime + std::time::Duration::from_secs(2))
            .unwrap();
        drop(file);
        let changed = Index::open(repo.path(), &NoProgress).unwrap();
        assert!(skipped(&changed).is_empty());
        assert_eq!(changed.stats.files, 2);
        drop(changed);
        let store = Store::open(repo.path()).unwrap();
        assert!(store.skips().unwrap().is_empty());
        drop(store);
        std::fs::write(&bin_path, binary).unwrap();
        let again = Index::open(repo.path(), &NoProgress).unwrap();
        assert_eq!(skipped(&again), want);
        drop(again);
        std::fs::remove_file(&bin_path).unwrap();
        let gone = Index::open(repo.path(), &NoProgress).unwrap();
        assert!(skipped(&gone).is_empty());
        drop(gone);
        assert!(
            Store::open(repo.path())
                .unwrap()
                .skips()
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn generated_files_are_indexed_and_marked_across_refreshes() {
        let repo = tempfile::tempdir().unwrap();
        std::fs::write(
            repo.path().join("m.py"),
            "from g import g\n\ndef f():\n    g()\n",
        )
        .unwrap();
        let gen_path = repo.path().join("g.py");
        std::fs::write(&gen_path, "# @generated\ndef g():\n    pass\n").unwrap();
        std::fs::write(repo.path().join("api_pb2.py"), "def h():\n    pass\n").unwrap();
        let marked = |index: &Index| -> Vec<(String, bool)> {
            index
                .files
                .iter()
                .map(|f| (f.path.clone(), f.generated))
                .collect()
        };
        let want = vec![
            ("api_pb2.py".to_owned(), true),
            ("g.py".to_owned(), true),
            ("m.py".to_owned(), false),
        ];
        let first = Index::open(repo.path(), &NoProgress).unwrap();
        assert!(first.stats.skipped.is_empty(), "{:?}", first.stats.skipped);
        assert_eq!(marked(&first), want);
        assert_eq!(first.stats.generated_files, 2);
        let g = first
            .res
            .decls
            .iter()
            .position(|d| &*d.name == "g.g")
            .unwrap() as u32;
        assert!(first.is_generated(DeclId(g)));
        assert!(first.res.edges.iter().any(|e| e.callee == DeclId(g)));
        drop(first);
        // Read from the store, and kept when the file is touched unchanged.
        let file = std::fs::File::options()
            .write(true)
            .open(&gen_path)
            .unwrap();
        file.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(2))
            .unwrap();
        drop(file);
        let touched = Index::open(repo.path(), &NoProgress).unwrap();
        assert_eq!(touched.stats.touched, 1);
        assert_eq!(marked(&touched), want);
        drop(touched);
        // The marker removed: the same file, no longer generated.
        std::fs::write(&gen_path, "# by hand\ndef g():\n    pass\n").unwrap();
        let edited = Index::open(repo.path(), &NoProgress).unwrap();
        assert_eq!(edited.stats.generated_files, 1);
        assert!(
            !edited
                .files
                .iter()
                .find(|f| f.path == "g.py")
                .unwrap()
                .generated
        );
    }

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

//! The on-disk index: a SQLite database at `.ripple/index.db` holding each
//! file's metadata (size, mtime, content hash, shape hash) and its extracted
//! facts as two compact blobs: what display needs (declarations, call sites)
//! and what only resolution needs (flow facts), so a refresh that can reuse
//! the resolved graph never decodes the second. Facts are keyed by content,
//! so a file touched without a real change is never re-parsed. The schema version is checked on open; a
//! corrupt, foreign or outdated database is rebuilt from scratch, never
//! trusted and never a crash.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, params};

use serde::{Deserialize, Serialize};

use crate::inventory::SkipReason;
use crate::lang::{FileFacts, LangFacts};
use crate::model::{CallSite, Lang, LocalDecl, content_hash};

/// Bump when the schema or the encoding of [`FileFacts`] changes.
pub const SCHEMA_VERSION: i64 = 21;
const APPLICATION_ID: i64 = 0x5249_5050; // "RIPP"
/// How long to wait for another ripple process holding the database.
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

impl StoreError {
    /// SQLite says the file is damaged or not a database at all. Opening
    /// does not read the whole file, so this can surface from any query.
    pub fn is_corruption(&self) -> bool {
        match self {
            StoreError::Sqlite { source, .. } => matches!(
                source.sqlite_error_code(),
                Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase)
            ),
            StoreError::Snapshot { .. } | StoreError::RippleDir(_) => false,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("index database {path}: {source}")]
    Sqlite {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("cannot save the resolved graph to {path}: {source}")]
    Snapshot {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    RippleDir(#[from] crate::ripple_dir::RippleDirError),
}

/// What the index remembers about a file between runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredMeta {
    pub size: u64,
    pub mtime_ns: i64,
    pub hash: u64,
    /// Hash of everything in the facts that resolution reads (not positions,
    /// docstrings or signatures): equal shapes resolve identically, so an
    /// edit to comments or docs reuses the resolved graph.
    pub shape: u64,
    /// Kept beside the metadata so that a refresh which reuses the
    /// resolved graph can report them without decoding any facts.
    pub lines: u32,
    pub syntax_errors: u32,
    /// Generated code ([`crate::inventory::is_generated`]): in the graph,
    /// out of review and search.
    pub generated: bool,
}

/// A file skipped for its content, and the size and mtime it had then.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredSkip {
    pub size: u64,
    pub mtime_ns: i64,
    pub reason: SkipReason,
}

/// What a refresh changes in the files skipped for their content. The
/// removals are applied first: a file that changed and is skipped again
/// is in both.
#[derive(Debug, Default)]
pub struct SkipChanges {
    pub added: Vec<(String, StoredSkip)>,
    pub removed: Vec<String>,
}

impl SkipChanges {
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty()
    }
}

pub struct Store {
    conn: Connection,
    path: PathBuf,
    /// Set when an unusable database was found and replaced.
    pub rebuilt_reason: Option<String>,
}

impl Store {
    /// Open (or create) the index of the repository at `root`.
    /// Where the index of `root` lives by default.
    pub fn default_path(root: &Path) -> PathBuf {
        crate::ripple_dir::path(root).join("index.db")
    }

    pub fn open(root: &Path) -> Result<Store, StoreError> {
        let dir = crate::ripple_dir::path(root);
        crate::ripple_dir::create_dir(&dir)?;
        let gitignore = dir.join(".gitignore");
        crate::ripple_dir::prepare_file(&gitignore)?;
        if !gitignore.exists() {
            // Keep the index out of the user's commits without touching their .gitignore.
            let _ = std::fs::write(&gitignore, "*\n");
        }
        let path = dir.join("index.db");
        Store::open_at(&path)
    }

    pub fn open_at(path: &Path) -> Result<Store, StoreError> {
        // SQLite follows links when it opens or creates any of these.
        for file in [
            path.to_path_buf(),
            path.with_extension("db-wal"),
            path.with_extension("db-shm"),
            path.with_extension("db-journal"),
            snapshot_path(path),
        ] {
            crate::ripple_dir::prepare_file(&file)?;
        }
        // Two ripples creating the same database at once (a command beside
        // the explorer's watcher) can meet SQLITE_BUSY before any busy
        // timeout applies (while one sets up WAL); the other's setup is
        // then done or nearly so, and trying again finds it.
        let mut attempt = 0;
        loop {
            match Store::open_once(path) {
                Err(StoreError::Sqlite {
                    source: rusqlite::Error::SqliteFailure(e, _),
                    ..
                }) if e.code == rusqlite::ErrorCode::DatabaseBusy && attempt < 5 => {
                    attempt += 1;
                    std::thread::sleep(std::time::Duration::from_millis(50 * attempt));
                }
                other => return other,
            }
        }
    }

    fn open_once(path: &Path) -> Result<Store, StoreError> {
        match Store::try_open(path) {
            Ok(Ok(store)) => Ok(store),
            Ok(Err(reason)) => Store::rebuild(path, reason),
            Err(_) => Store::rebuild(
                path,
                Some(
                    "the index was written by another version of ripple or is damaged; rebuilt it"
                        .to_owned(),
                ),
            ),
        }
    }

    /// Start a fresh database at `path`, saying why when one was replaced.
    /// Another ripple (the explorer's watcher, a second command) may have the
    /// same database open, so a readable database is emptied in place, in one
    /// transaction, rather than deleted under it; only a file SQLite cannot
    /// use at all is removed.
    fn rebuild(path: &Path, reason: Option<String>) -> Result<Store, StoreError> {
        let err = |source| StoreError::Sqlite {
            path: path.to_path_buf(),
            source,
        };
        // The cached graph goes with the facts it was resolved from.
        let _ = std::fs::remove_file(snapshot_path(path));
        if path.exists() {
            if let Ok(conn) = Connection::open(path)
                && Store::reset(&conn).is_ok()
            {
                return Ok(Store {
                    conn,
                    path: path.to_path_buf(),
                    rebuilt_reason: reason,
                });
            }
            let _ = std::fs::remove_file(path);
            let _ = std::fs::remove_file(path.with_extension("db-wal"));
            let _ = std::fs::remove_file(path.with_extension("db-shm"));
        }
        let conn = Connection::open(path).map_err(err)?;
        Store::init(&conn).map_err(err)?;
        Ok(Store {
            conn,
            path: path.to_path_buf(),
            rebuilt_reason: reason,
        })
    }

    /// Open an existing, valid database; `Err(Some(reason))` when it must be
    /// rebuilt and the user should be told why, `Err(None)` when it simply does not exist.
    fn try_open(path: &Path) -> rusqlite::Result<Result<Store, Option<String>>> {
        if !path.exists() {
            return Ok(Err(None));
        }
        let foreign =
            "the index was written by another version of ripple or is damaged; rebuilt it";
        let conn = Connection::open(path)?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        let tables: i64 = conn.query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
            [],
            |r| r.get(0),
        )?;
        if tables == 0 {
            // Empty: a file another ripple has just created and is initialising.
            return Ok(Err(None));
        }
        let app: i64 = conn.query_row("PRAGMA application_id", [], |r| r.get(0))?;
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if app != APPLICATION_ID || version != SCHEMA_VERSION {
            return Ok(Err(Some(foreign.to_owned())));
        }
        let fingerprint: Option<String> = conn
            .query_row("SELECT value FROM meta WHERE key = 'extractor'", [], |r| {
                r.get(0)
            })
            .optional()?;
        if fingerprint.as_deref() != Some(extractor_fingerprint().as_str()) {
            return Ok(Err(Some(
                "this ripple parses source differently from the one that built the index; re-indexed".to_owned(),
            )));
        }
        Store::pragmas(&conn)?;
        Ok(Ok(Store {
            conn,
            path: path.to_path_buf(),
            rebuilt_reason: None,
        }))
    }

    fn pragmas(conn: &Connection) -> rusqlite::Result<()> {
        conn.busy_timeout(BUSY_TIMEOUT)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        Ok(())
    }

    /// Drop every table and create the current schema, as one transaction.
    fn reset(conn: &Connection) -> rusqlite::Result<()> {
        Store::pragmas(conn)?;
        conn.execute_batch("BEGIN IMMEDIATE")?;
        let result = (|| {
            let tables: Vec<String> = conn
                .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")?
                .query_map([], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            for t in tables {
                if Store::is_content_cache(conn, &t)? {
                    continue;
                }
                conn.execute_batch(&format!("DROP TABLE \"{}\"", t.replace('"', "\"\"")))?;
            }
            Store::create_schema(conn)
        })();
        match result {
            Ok(()) => conn.execute_batch("COMMIT"),
            Err(e) => {
                let _ = conn.execute_batch("ROLLBACK");
                Err(e)
            }
        }
    }

    /// Whether `table` is a cache keyed by content alone (token counts,
    /// embeddings) in the layout this version writes. Such a cache stays
    /// valid when the facts are rebuilt for a new extractor, so a ripple
    /// upgrade does not re-embed a whole repository.
    fn is_content_cache(conn: &Connection, table: &str) -> rusqlite::Result<bool> {
        let Some((_, columns)) = CONTENT_CACHES.iter().find(|(name, _)| *name == table) else {
            return Ok(false);
        };
        let found: Vec<String> = conn
            .prepare(&format!("PRAGMA table_info(\"{table}\")"))?
            .query_map([], |r| r.get(1))?
            .collect::<Result<_, _>>()?;
        Ok(found.iter().map(String::as_str).eq(columns.iter().copied()))
    }

    fn init(conn: &Connection) -> rusqlite::Result<()> {
        Store::pragmas(conn)?;
        conn.execute_batch("BEGIN IMMEDIATE")?;
        match Store::create_schema(conn) {
            Ok(()) => conn.execute_batch("COMMIT"),
            Err(e) => {
                let _ = conn.execute_batch("ROLLBACK");
                Err(e)
            }
        }
    }

    fn create_schema(conn: &Connection) -> rusqlite::Result<()> {
        conn.execute_batch(
            // Metadata apart from the blobs: every refresh reads all of it,
            // and with the blobs inline each row filled a page of its own.
            "CREATE TABLE IF NOT EXISTS files (
                path TEXT PRIMARY KEY,
                size INTEGER NOT NULL,
                mtime INTEGER NOT NULL,
                hash INTEGER NOT NULL,
                shape INTEGER NOT NULL,
                lines INTEGER NOT NULL,
                syntax_errors INTEGER NOT NULL,
                generated INTEGER NOT NULL
            );
            -- `hash` is the content the blobs were extracted from: facts
            -- are decoded lazily, and a row another refresh has replaced
            -- since must not pass for the one this index was built on.
            CREATE TABLE IF NOT EXISTS facts (
                path TEXT PRIMARY KEY,
                hash INTEGER NOT NULL,
                facts BLOB NOT NULL,
                flow BLOB NOT NULL
            );
            -- Files skipped for their content (binary), so that
            -- a refresh does not read them again while they are unchanged
            -- (279 files, some of them megabytes, in Go's `src`).
            CREATE TABLE IF NOT EXISTS skips (
                path TEXT PRIMARY KEY,
                size INTEGER NOT NULL,
                mtime INTEGER NOT NULL,
                reason TEXT NOT NULL
            );
            CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS tokens (hash INTEGER PRIMARY KEY, count INTEGER NOT NULL);",
        )?;
        conn.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES ('extractor', ?1)",
            params![extractor_fingerprint()],
        )?;
        conn.pragma_update(None, "application_id", APPLICATION_ID)?;
        conn.pragma_update(None, "user_version", SCHEMA_VERSION)?;
        Ok(())
    }

    /// Discard the database at `path` because a query found it damaged.
    pub fn discard(path: &Path) {
        let _ = std::fs::remove_file(snapshot_path(path));
        let _ = std::fs::remove_file(path);
        let _ = std::fs::remove_file(path.with_extension("db-wal"));
        let _ = std::fs::remove_file(path.with_extension("db-shm"));
    }

    fn err(&self, source: rusqlite::Error) -> StoreError {
        StoreError::Sqlite {
            path: self.path.clone(),
            source,
        }
    }

    /// Metadata of every indexed file.
    pub fn metas(&self) -> Result<HashMap<String, StoredMeta>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT path, size, mtime, hash, shape, lines, syntax_errors, generated FROM files",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    StoredMeta {
                        size: r.get::<_, i64>(1)? as u64,
                        mtime_ns: r.get(2)?,
                        hash: r.get::<_, i64>(3)? as u64,
                        shape: r.get::<_, i64>(4)? as u64,
                        lines: r.get(5)?,
                        syntax_errors: r.get(6)?,
                        generated: r.get(7)?,
                    },
                ))
            })
            .map_err(|e| self.err(e))?;
        let mut out = HashMap::new();
        for row in rows {
            let (path, meta) = row.map_err(|e| self.err(e))?;
            out.insert(path, meta);
        }
        Ok(out)
    }

    /// Files skipped for their content, with the size and mtime they had;
    /// rows with a reason this version does not know are left out.
    pub fn skips(&self) -> Result<HashMap<String, StoredSkip>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT path, size, mtime, reason FROM skips")
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, i64>(1)? as u64,
                    r.get::<_, i64>(2)?,
                    r.get::<_, String>(3)?,
                ))
            })
            .map_err(|e| self.err(e))?;
        let mut out = HashMap::new();
        for row in rows {
            let (path, size, mtime_ns, reason) = row.map_err(|e| self.err(e))?;
            if let Some(reason) = SkipReason::from_name(&reason) {
                out.insert(
                    path,
                    StoredSkip {
                        size,
                        mtime_ns,
                        reason,
                    },
                );
            }
        }
        Ok(out)
    }

    /// Every stored file's facts that `wanted` asks for, decoded straight
    /// from SQLite's pages rather than from copies of its blobs, on one
    /// thread: a code-edit refresh of the Python stdlib then peaks at
    /// 137–145 MB instead of 182–194, and of Go `src` at 265 MB instead of
    /// 300 (the copies were 11 and 35 MB, and decoding on two threads
    /// spread the facts over two allocator heaps; decoding borrowed pages
    /// on two threads kept the 300), for the same time on the stdlib and
    /// 20 ms more on Go. Rows that no longer decode are left out, to be
    /// parsed again.
    pub fn decoded_facts(
        &self,
        wanted: impl Fn(&str) -> bool,
    ) -> Result<Vec<(String, FileFacts)>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT path, facts, flow FROM facts")
            .map_err(|e| self.err(e))?;
        let mut rows = stmt.query([]).map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(|e| self.err(e))? {
            let Ok(Ok(path)) = row.get_ref(0).map(|v| v.as_str()) else {
                continue;
            };
            if !wanted(path) {
                continue;
            }
            let blob = |i: usize| {
                row.get_ref(i)
                    .ok()
                    .and_then(|v| v.as_blob_or_null().ok().flatten())
            };
            let Some(display) = blob(1) else {
                continue;
            };
            if let Some(facts) = decode_facts(display, blob(2)) {
                out.push((path.to_owned(), facts));
            }
        }
        Ok(out)
    }

    /// The display blob of `path` if the stored one was extracted from
    /// content `hash`; `None` when the row is gone or has been replaced.
    pub fn display_blob(&self, path: &str, hash: u64) -> Result<Option<Vec<u8>>, StoreError> {
        self.conn
            .prepare_cached("SELECT facts FROM facts WHERE path = ?1 AND hash = ?2")
            .and_then(|mut stmt| {
                stmt.query_row(params![path, hash as i64], |r| r.get(0))
                    .optional()
            })
            .map_err(|e| self.err(e))
    }

    /// Replace the blobs of `path` that no longer decode, if the row still
    /// describes content `hash` (another refresh may have moved on).
    pub fn repair_facts(
        &self,
        path: &str,
        hash: u64,
        blob: &EncodedFacts,
    ) -> Result<(), StoreError> {
        self.conn
            .execute(
                "UPDATE facts SET facts = ?3, flow = ?4 WHERE path = ?1 AND hash = ?2",
                params![path, hash as i64, blob.display, blob.flow],
            )
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    /// Apply one refresh in a single transaction: new facts, metadata-only
    /// updates (touched but unchanged files), removals, and the files
    /// skipped for their content now and no longer.
    pub fn commit(
        &mut self,
        upserts: &[(String, StoredMeta, EncodedFacts)],
        touched: &[(String, StoredMeta)],
        removed: &[String],
        skips: &SkipChanges,
    ) -> Result<(), StoreError> {
        let path = self.path.clone();
        let err = |source| StoreError::Sqlite {
            path: path.clone(),
            source,
        };
        let tx = self.conn.transaction().map_err(err)?;
        {
            let mut up = tx
                .prepare("INSERT OR REPLACE INTO files (path, size, mtime, hash, shape, lines, syntax_errors, generated) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)")
                .map_err(err)?;
            let mut up_facts = tx
                .prepare("INSERT OR REPLACE INTO facts (path, hash, facts, flow) VALUES (?1, ?2, ?3, ?4)")
                .map_err(err)?;
            for (p, m, blob) in upserts {
                up.execute(params![
                    p,
                    m.size as i64,
                    m.mtime_ns,
                    m.hash as i64,
                    m.shape as i64,
                    m.lines,
                    m.syntax_errors,
                    m.generated,
                ])
                .map_err(err)?;
                up_facts
                    .execute(params![p, m.hash as i64, blob.display, blob.flow])
                    .map_err(err)?;
            }
            let mut touch = tx
                .prepare("UPDATE files SET size = ?2, mtime = ?3 WHERE path = ?1")
                .map_err(err)?;
            for (p, m) in touched {
                touch
                    .execute(params![p, m.size as i64, m.mtime_ns])
                    .map_err(err)?;
            }
            let mut del = tx
                .prepare("DELETE FROM files WHERE path = ?1")
                .map_err(err)?;
            let mut del_facts = tx
                .prepare("DELETE FROM facts WHERE path = ?1")
                .map_err(err)?;
            for p in removed {
                del.execute(params![p]).map_err(err)?;
                del_facts.execute(params![p]).map_err(err)?;
            }
            let mut unskip = tx
                .prepare("DELETE FROM skips WHERE path = ?1")
                .map_err(err)?;
            for p in &skips.removed {
                unskip.execute(params![p]).map_err(err)?;
            }
            let mut skip = tx
                .prepare("INSERT OR REPLACE INTO skips (path, size, mtime, reason) VALUES (?1, ?2, ?3, ?4)")
                .map_err(err)?;
            for (p, s) in &skips.added {
                skip.execute(params![p, s.size as i64, s.mtime_ns, s.reason.name()])
                    .map_err(err)?;
            }
        }
        tx.commit().map_err(err)
    }

    /// Where the resolved graph is cached: a file beside the database
    /// (`index.graph`), not a row in it. Replacing a multi-megabyte blob in
    /// SQLite first walks the old one's overflow pages to free them (4% of
    /// a refresh after a code edit on Go's `src`), and encoding it in
    /// memory first raised the peak; a file is streamed and then renamed
    /// over the old one.
    fn snapshot_path(&self) -> PathBuf {
        snapshot_path(&self.path)
    }

    /// The cached resolution stored under `key`, if that is the one stored.
    pub fn snapshot(&self, key: &str) -> Result<Option<SnapshotBytes>, StoreError> {
        use std::io::Read;
        // The header first: after a code edit the key differs, and the rest
        // (10 MB on Go's `src`) need not be read at all.
        let Ok(mut file) = std::fs::File::open(self.snapshot_path()) else {
            return Ok(None);
        };
        let header = snapshot_header(key);
        let mut found = vec![0; header.len()];
        if file.read_exact(&mut found).is_err() || found != header {
            return Ok(None);
        }
        // SAFETY: a snapshot file is never written in place: writers stream
        // to a temporary file and rename it over the old one, so the mapped
        // file does not change while it is mapped.
        if let Ok(map) = unsafe { memmap2::MmapOptions::new().populate().map(&file) }
            && map.len() >= header.len()
        {
            return Ok(Some(SnapshotBytes::Mapped(map, header.len())));
        }
        let mut data = Vec::new();
        Ok(file
            .read_to_end(&mut data)
            .ok()
            .map(|_| SnapshotBytes::Read(data)))
    }

    /// Replace the cached resolution (only the newest one is kept) with
    /// what `write` streams out.
    pub fn set_snapshot(
        &mut self,
        key: &str,
        write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
    ) -> Result<(), StoreError> {
        use std::io::Write;
        let path = self.snapshot_path();
        // Unique per writer: the explorer's watcher and a command (or two
        // threads) may save at once; the last rename wins, whole.
        static WRITERS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = WRITERS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = path.with_extension(format!("graph.{}-{n}.tmp", std::process::id()));
        let result = (|| {
            // create_new: a link planted at the temp's name is not followed
            // (what a dead process with this pid left is removed first).
            let create = || {
                std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&tmp)
            };
            let file = match create() {
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    std::fs::remove_file(&tmp)?;
                    create()?
                }
                other => other?,
            };
            let mut out = std::io::BufWriter::new(file);
            out.write_all(&snapshot_header(key))?;
            write(&mut out)?;
            out.into_inner().map_err(|e| e.into_error())?;
            std::fs::rename(&tmp, &path)
        })();
        result.map_err(|source| {
            let _ = std::fs::remove_file(&tmp);
            StoreError::Snapshot { path, source }
        })
    }

    /// Cached token counts by content hash.
    pub fn token_counts(&self) -> Result<HashMap<u64, u64>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT hash, count FROM tokens")
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok((r.get::<_, i64>(0)? as u64, r.get::<_, i64>(1)? as u64))
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<HashMap<_, _>, _>>()
            .map_err(|e| self.err(e))
    }

    pub fn put_token_counts(&mut self, counts: &[(u64, u64)]) -> Result<(), StoreError> {
        let path = self.path.clone();
        let err = |source| StoreError::Sqlite {
            path: path.clone(),
            source,
        };
        let tx = self.conn.transaction().map_err(err)?;
        {
            let mut stmt = tx
                .prepare("INSERT OR REPLACE INTO tokens (hash, count) VALUES (?1, ?2)")
                .map_err(err)?;
            for (h, c) in counts {
                stmt.execute(params![*h as i64, *c as i64]).map_err(err)?;
            }
        }
        tx.commit().map_err(err)
    }

    /// The embeddings table is created on first use, so indexes built
    /// before semantic search need no rebuild.
    fn ensure_embeddings(&self) -> Result<(), StoreError> {
        self.conn
            .execute_batch(
                "CREATE TABLE IF NOT EXISTS embeddings (
                    space TEXT NOT NULL,
                    hash INTEGER NOT NULL,
                    vec BLOB NOT NULL,
                    PRIMARY KEY (space, hash)
                );",
            )
            .map_err(|e| self.err(e))
    }

    /// Every stored vector of one embedding space, by declaration body hash.
    pub fn embeddings(&self, space: &str) -> Result<HashMap<u64, Vec<f32>>, StoreError> {
        self.ensure_embeddings()?;
        let mut stmt = self
            .conn
            .prepare("SELECT hash, vec FROM embeddings WHERE space = ?1")
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(params![space], |r| {
                Ok((r.get::<_, i64>(0)? as u64, r.get::<_, Vec<u8>>(1)?))
            })
            .map_err(|e| self.err(e))?;
        let mut out = HashMap::new();
        for row in rows {
            let (hash, blob) = row.map_err(|e| self.err(e))?;
            let v: Vec<f32> = blob
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            out.insert(hash, v);
        }
        Ok(out)
    }

    pub fn put_embeddings(
        &mut self,
        space: &str,
        vecs: &[(u64, Vec<f32>)],
    ) -> Result<(), StoreError> {
        self.ensure_embeddings()?;
        let path = self.path.clone();
        let err = |source| StoreError::Sqlite {
            path: path.clone(),
            source,
        };
        let tx = self.conn.transaction().map_err(err)?;
        {
            let mut stmt = tx
                .prepare("INSERT OR REPLACE INTO embeddings (space, hash, vec) VALUES (?1, ?2, ?3)")
                .map_err(err)?;
            for (h, v) in vecs {
                let blob: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
                stmt.execute(params![space, *h as i64, blob]).map_err(err)?;
            }
        }
        tx.commit().map_err(err)
    }

    pub fn get_meta(&self, key: &str) -> Result<Option<String>, StoreError> {
        self.conn
            .query_row("SELECT value FROM meta WHERE key = ?1", params![key], |r| {
                r.get(0)
            })
            .optional()
            .map_err(|e| self.err(e))
    }

    pub fn set_meta(&self, key: &str, value: &str) -> Result<(), StoreError> {
        self.conn
            .execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)",
                params![key, value],
            )
            .map(|_| ())
            .map_err(|e| self.err(e))
    }
}

fn extractor_fingerprint() -> String {
    format!("{:016x}", crate::lang::extractor_fingerprint())
}

/// A cached resolution's bytes: mapped from its file, or read where the
/// file cannot be mapped.
pub enum SnapshotBytes {
    /// The whole file and where the encoded resolution starts in it.
    Mapped(memmap2::Mmap, usize),
    Read(Vec<u8>),
}

impl std::ops::Deref for SnapshotBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            SnapshotBytes::Mapped(map, start) => &map[*start..],
            SnapshotBytes::Read(data) => data,
        }
    }
}

impl std::fmt::Debug for SnapshotBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SnapshotBytes({} bytes)", self.len())
    }
}

impl PartialEq for SnapshotBytes {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

/// A file's facts as stored: the two blobs and the shape hash.
pub struct EncodedFacts {
    pub display: Vec<u8>,
    pub flow: Vec<u8>,
    pub shape: u64,
}

#[derive(Serialize)]
struct DisplayRef<'a> {
    lang: Lang,
    decls: &'a [LocalDecl],
    calls: &'a [CallSite],
    syntax_errors: u32,
    lines: u32,
}

#[derive(Deserialize)]
struct DisplayOwned {
    lang: Lang,
    decls: Vec<LocalDecl>,
    calls: Vec<CallSite>,
    syntax_errors: u32,
    lines: u32,
}

#[derive(Serialize, Deserialize)]
struct Flow {
    strings: crate::model::StringTable,
    lang_facts: LangFacts,
}

pub fn encode_facts(facts: &FileFacts) -> EncodedFacts {
    let display = postcard::to_stdvec(&DisplayRef {
        lang: facts.lang,
        decls: &facts.decls,
        calls: &facts.calls,
        syntax_errors: facts.syntax_errors,
        lines: facts.lines,
    })
    .unwrap_or_default();
    let flow = postcard::to_stdvec(&(&facts.strings, &facts.lang_facts)).unwrap_or_default();
    // Resolution reads declarations' names, kinds, nesting and test flags,
    // call sites' order and text, and the flow facts; nothing else.
    let decl_shape: Vec<_> = facts
        .decls
        .iter()
        .map(|d| (&d.local_name, d.kind, d.parent, d.is_test))
        .collect();
    let call_shape: Vec<_> = facts
        .calls
        .iter()
        .map(|c| (c.caller, &c.callee_text, c.arg_count))
        .collect();
    let mut shape_bytes =
        postcard::to_stdvec(&(facts.lang, decl_shape, call_shape)).unwrap_or_default();
    shape_bytes.extend_from_slice(&flow);
    EncodedFacts {
        display,
        flow,
        shape: content_hash(&shape_bytes),
    }
}

/// Decode stored blobs; without `flow` the facts carry no flow facts (enough
/// for everything but resolution). `None` for anything that does not decode
/// (a damaged row is re-parsed, not trusted).
pub fn decode_facts(display: &[u8], flow: Option<&[u8]>) -> Option<FileFacts> {
    let d: DisplayOwned = postcard::from_bytes(display).ok()?;
    let (strings, lang_facts) = match flow {
        Some(flow) => {
            let f: Flow = postcard::from_bytes(flow).ok()?;
            if f.lang_facts.lang() != d.lang {
                return None;
            }
            (f.strings, f.lang_facts)
        }
        None => (Default::default(), LangFacts::empty(d.lang)),
    };
    Some(FileFacts {
        lang: d.lang,
        decls: d.decls,
        calls: d.calls,
        strings,
        syntax_errors: d.syntax_errors,
        lines: d.lines,
        lang_facts,
    })
}

/// Tables keyed by content alone, with their columns: kept across a
/// rebuild when their layout matches.
/// The resolved-graph cache beside the database at `db`.
fn snapshot_path(db: &Path) -> PathBuf {
    db.with_extension("graph")
}

/// What a cached graph file begins with: a format tag and its key.
fn snapshot_header(key: &str) -> Vec<u8> {
    format!("ripple graph v2 {key}\n").into_bytes()
}

const CONTENT_CACHES: &[(&str, &[&str])] = &[
    ("tokens", &["hash", "count"]),
    ("embeddings", &["space", "hash", "vec"]),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rebuild_for_a_new_version_keeps_embeddings_and_token_counts() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.db");
        let mut first = Store::open_at(&path).unwrap();
        first.set_snapshot("k", |w| w.write_all(b"old")).unwrap();
        first
            .put_embeddings("model", &[(7, vec![0.5, 1.0])])
            .unwrap();
        first.put_token_counts(&[(9, 42)]).unwrap();
        first
            .conn
            .pragma_update(None, "user_version", SCHEMA_VERSION + 1)
            .unwrap();
        drop(first);
        let second = Store::open_at(&path).unwrap();
        assert!(second.rebuilt_reason.is_some());
        assert_eq!(second.snapshot("k").unwrap(), None);
        assert_eq!(
            second.embeddings("model").unwrap().get(&7),
            Some(&vec![0.5, 1.0])
        );
        assert_eq!(second.token_counts().unwrap().get(&9), Some(&42));
    }

    #[test]
    fn a_foreign_or_corrupt_database_is_rebuilt() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.db");
        std::fs::write(
            &path,
            b"this is not sqlite at all, just some bytes that fill the header......",
        )
        .unwrap();
        let store = Store::open_at(&path).unwrap();
        assert!(store.rebuilt_reason.is_some());
        assert!(store.metas().unwrap().is_empty());
        drop(store);
        let again = Store::open_at(&path).unwrap();
        assert!(again.rebuilt_reason.is_none());
    }

    #[test]
    fn an_outdated_database_is_emptied_in_place_while_another_process_has_it_open() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.db");
        let mut first = Store::open_at(&path).unwrap();
        first.set_snapshot("k", |w| w.write_all(b"old")).unwrap();
        // Another ripple version's database: same file, other schema version.
        first
            .conn
            .pragma_update(None, "user_version", SCHEMA_VERSION + 1)
            .unwrap();
        let second = Store::open_at(&path).unwrap();
        assert!(second.rebuilt_reason.is_some());
        assert_eq!(second.snapshot("k").unwrap(), None);
        // The first connection still works against the same, reset file.
        assert_eq!(first.snapshot("k").unwrap(), None);
        assert!(first.metas().unwrap().is_empty());
    }

    #[test]
    fn the_graph_snapshot_is_read_back_only_under_its_key_and_replaced_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.db");
        let mut store = Store::open_at(&path).unwrap();
        assert_eq!(store.snapshot("k1").unwrap(), None);
        store.set_snapshot("k1", |w| w.write_all(b"first")).unwrap();
        assert_eq!(
            store.snapshot("k1").unwrap().as_deref(),
            Some(&b"first"[..])
        );
        assert_eq!(store.snapshot("k2").unwrap(), None);
        store.set_snapshot("k2", |w| w.write_all(b"2nd")).unwrap();
        assert_eq!(store.snapshot("k1").unwrap(), None);
        assert_eq!(store.snapshot("k2").unwrap().as_deref(), Some(&b"2nd"[..]));
        // A writer that fails leaves the previous snapshot and no stray file.
        let failed = store.set_snapshot("k3", |w| {
            w.write_all(b"part")?;
            Err(std::io::Error::other("encoding failed"))
        });
        assert!(failed.is_err());
        assert_eq!(store.snapshot("k2").unwrap().as_deref(), Some(&b"2nd"[..]));
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert!(names.is_empty(), "{names:?}");
    }

    #[test]
    fn concurrent_first_opens_all_succeed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.db");
        let handles: Vec<_> = (0..6)
            .map(|_| {
                let path = path.clone();
                std::thread::spawn(move || {
                    let mut s = Store::open_at(&path).unwrap();
                    s.set_snapshot("k", |w| w.write_all(b"v")).unwrap();
                    s.metas().unwrap().len()
                })
            })
            .collect();
        for h in handles {
            assert_eq!(h.join().unwrap(), 0);
        }
    }

    #[test]
    fn embeddings_round_trip_per_space() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open_at(&dir.path().join("index.db")).unwrap();
        assert!(store.embeddings("a").unwrap().is_empty());
        store
            .put_embeddings("a", &[(u64::MAX, vec![0.5, -1.0]), (7, vec![1.0, 0.0])])
            .unwrap();
        let a = store.embeddings("a").unwrap();
        assert_eq!(a[&u64::MAX], vec![0.5, -1.0]);
        assert_eq!(a.len(), 2);
        assert!(store.embeddings("b").unwrap().is_empty());
    }

    #[test]
    fn facts_round_trip_and_garbage_does_not_decode() {
        let facts =
            crate::lang::extract(crate::model::Lang::Python, "m.py", b"def f():\n    g()\n");
        let blob = encode_facts(&facts);
        assert_eq!(
            decode_facts(&blob.display, Some(&blob.flow)),
            Some(facts.clone())
        );
        let display_only = decode_facts(&blob.display, None).unwrap();
        assert_eq!(display_only.decls, facts.decls);
        assert_eq!(display_only.lang_facts, LangFacts::empty(facts.lang));
        assert_eq!(decode_facts(&[0xff, 0xff, 0xff], None), None);
        assert_eq!(decode_facts(&blob.display, Some(&[0xff, 0xff])), None);
    }

    #[test]
    fn comments_and_docs_keep_the_shape_and_code_changes_it() {
        let shape = |lang, path: &str, src: &str| {
            encode_facts(&crate::lang::extract(lang, path, src.as_bytes())).shape
        };
        let py = |src: &str| shape(Lang::Python, "m.py", src);
        let go = |src: &str| shape(Lang::Go, "m.go", src);
        let base = py("def f():\n    g()\n");
        assert_eq!(
            base,
            py("# note\n\ndef f():\n    \"Doc.\"\n    g()  # why\n")
        );
        assert_ne!(base, py("def f():\n    h()\n"));
        assert_ne!(base, py("def f(x):\n    g()\n"));
        let base = go("package m\n\nfunc F() { G() }\n");
        assert_eq!(
            base,
            go("package m\n\n// F does it.\nfunc F() {\n\tG() // now\n}\n")
        );
        assert_ne!(base, go("package m\n\nfunc F() { H() }\n"));
    }
}

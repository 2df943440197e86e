//! Extraction of facts from one source file with tree-sitter. Each language
//! module turns a syntax tree into [`FileFacts`]: declarations, call sites and
//! the language's flow facts. Extraction never looks at another file and never
//! fails: syntax errors are counted and the parts that parsed are kept.
//!
//! Trees are walked iteratively (a `TreeCursor` and explicit stacks), never by
//! recursion, because real files nest thousands of levels deep (the Go
//! standard library's `time/tzdata/zipdata.go` is one 7,000-level expression).

mod facts;
pub mod go;
pub mod python;
mod walk;

pub use facts::{FileFacts, LangFacts};

use crate::model::Lang;

/// A fingerprint of the extraction code itself. Cached facts from a ripple
/// whose extractors differ are re-extracted, so upgrading never serves stale
/// facts and no one has to remember to bump a version.
pub fn extractor_fingerprint() -> u64 {
    const SOURCES: &[&str] = &[
        include_str!("mod.rs"),
        include_str!("facts.rs"),
        include_str!("walk.rs"),
        include_str!("python/mod.rs"),
        include_str!("python/defs.rs"),
        include_str!("python/imports.rs"),
        include_str!("python/statements.rs"),
        include_str!("python/expressions.rs"),
        include_str!("python/flow.rs"),
        include_str!("go/mod.rs"),
        include_str!("go/defs.rs"),
        include_str!("go/expressions.rs"),
        include_str!("go/imports.rs"),
        include_str!("go/scopes.rs"),
        include_str!("go/statements.rs"),
        include_str!("go/types.rs"),
        include_str!("../model.rs"),
    ];
    // Every refresh asks (twice): hashed once per process, streamed rather
    // than concatenated into fresh memory.
    static FINGERPRINT: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *FINGERPRINT.get_or_init(|| crate::model::content_hash_of(SOURCES))
}

/// Parse `source` as `lang` and extract its facts. `rel_path` is the file's
/// repository-relative path (used for test detection, never opened).
pub fn extract(lang: Lang, rel_path: &str, source: &[u8]) -> FileFacts {
    match lang {
        Lang::Python => python::extract(rel_path, source),
        Lang::Go => go::extract(rel_path, source),
    }
}

/// Route tree-sitter's own C allocations (parse stacks, subtrees) to
/// mimalloc, which the binary also uses for Rust allocations: parsing is
/// allocation-bound and glibc's malloc serialises the parsing threads.
/// Must run before the first parser or tree exists, so the binary calls it
/// first thing in `main`; later calls do nothing.
pub fn use_fast_allocator() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: runs once, before any tree-sitter object is allocated, so
        // every object is freed by the allocator that made it.
        unsafe {
            tree_sitter::set_allocator(
                Some(libmimalloc_sys::mi_malloc),
                Some(libmimalloc_sys::mi_calloc),
                Some(libmimalloc_sys::mi_realloc),
                Some(libmimalloc_sys::mi_free),
            );
            // mimalloc keeps its default purge delay (1 s in v3). Purging
            // freed pages at once lowered the cold index's peak by 10-15%
            // but made it a third slower: the solver frees and allocates
            // all the time, and every purged page (often a 2 MB huge page)
            // is faulted in and zeroed again.
        }
    });
}

/// For a long-lived process (the explorer): keep the pages freed between
/// refreshes instead of handing them back to the system after mimalloc's
/// 1 s delay. The resolver reads its tables at random and runs 2.6x faster
/// on transparent huge pages than on 4 KiB ones; pages handed back return
/// as small ones, so each refresh after the first solved ~1.7x slower (the
/// stdlib: 0.6 s instead of 0.35 s). The process keeps its peak instead.
/// Short commands end before any purge, so only the explorer asks for
/// this. MIMALLOC_PURGE_DELAY still wins.
pub fn keep_freed_memory() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: setting an option is a plain store, read by mimalloc when
        // it next considers purging.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
    }
}

/// `mi_option_purge_delay`, which libmimalloc-sys does not name: it comes
/// just before `mi_option_use_numa_nodes` in mimalloc.h (v2 and v3).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t =
    libmimalloc_sys::mi_option_use_numa_nodes - 1;

/// Parse a file into a tree-sitter tree. Returns `None` only if tree-sitter
/// refuses (it never does for a valid language without a timeout).
pub fn parse(lang: Lang, source: &[u8]) -> Option<tree_sitter::Tree> {
    thread_local! {
        static PARSERS: std::cell::RefCell<(Option<tree_sitter::Parser>, Option<tree_sitter::Parser>)> =
            const { std::cell::RefCell::new((None, None)) };
    }
    PARSERS.with(|cell| {
        let mut parsers = cell.borrow_mut();
        let slot = match lang {
            Lang::Python => &mut parsers.0,
            Lang::Go => &mut parsers.1,
        };
        if slot.is_none() {
            let mut parser = tree_sitter::Parser::new();
            let language: tree_sitter::Language = match lang {
                Lang::Python => tree_sitter_python::LANGUAGE.into(),
                Lang::Go => tree_sitter_go::LANGUAGE.into(),
            };
            parser.set_language(&language).ok()?;
            *slot = Some(parser);
        }
        slot.as_mut()?.parse(source, None)
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_purge_delay_option_is_the_one_mimalloc_documents() {
        // Its default in mimalloc v3 is 1000 ms, a value no neighbouring option
        // has: had mimalloc renumbered its options, this would read another.
        // (Only the binary changes it, so the library's tests see the default.)
        // SAFETY: reading an option has no preconditions.
        let value = unsafe { libmimalloc_sys::mi_option_get(super::MI_OPTION_PURGE_DELAY) };
        assert_eq!(value, 1000);
    }

    #[test]
    fn mimalloc_commits_arena_memory_as_it_is_used() {
        // `.cargo/config.toml` builds mimalloc with this default (its own is
        // 2, eager on Linux). `mi_option_arena_eager_commit` is two before
        // `mi_option_large_os_pages` in mimalloc.h (v2 and v3).
        // Overridden at run time, or built with the user's own CFLAGS
        // (cargo's `[env]` does not replace a variable already set).
        let own_flags = std::env::var("CFLAGS")
            .is_ok_and(|flags| !flags.contains("MI_DEFAULT_ARENA_EAGER_COMMIT"));
        if std::env::var_os("MIMALLOC_ARENA_EAGER_COMMIT").is_some() || own_flags {
            return;
        }
        let arena_eager_commit = libmimalloc_sys::mi_option_large_os_pages - 2;
        // SAFETY: reading an option has no preconditions.
        let value = unsafe { libmimalloc_sys::mi_option_get(arena_eager_commit) };
        assert_eq!(value, 0);
    }
}

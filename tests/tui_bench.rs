//! Explorer responsiveness: a selection change must render within one
//! 60 Hz frame (16 ms). Ignored by default (it wants a release build):
//!
//! ```sh
//! cargo test --release --test tui_bench -- --ignored --nocapture
//! RIPPLE_BENCH_REPO=/path/to/repo cargo test --release --test tui_bench -- --ignored --nocapture
//! ```
//!
//! The index database goes to `RIPPLE_BENCH_DB` (default: a temporary
//! directory), so the measured repository is never written to.

use std::path::PathBuf;
use std::time::Instant;

#[test]
#[ignore = "benchmark: run with --release -- --ignored --nocapture"]
fn selection_change_renders_within_a_frame() {
    let repo = std::env::var_os("RIPPLE_BENCH_REPO")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/demo"));
    let tmp = tempfile::tempdir().unwrap();
    let db = std::env::var_os("RIPPLE_BENCH_DB")
        .map(PathBuf::from)
        .unwrap_or_else(|| tmp.path().join("index.db"));
    let t = Instant::now();
    let snap = ripple::tui::load(&repo, Some(&db)).unwrap();
    let load_ms = t.elapsed().as_secs_f64() * 1e3;
    // The index as it is on disk now: what a second start of the explorer loads.
    let t = Instant::now();
    let again = ripple::tui::load(&repo, Some(&db)).unwrap();
    let reload_ms = t.elapsed().as_secs_f64() * 1e3;
    drop(again);
    let b = ripple::tui::bench::selection_change(&snap, 400);
    println!(
        "tui bench {}\n  {} lines · {} declarations\n  index + snapshot: first {load_ms:.0} ms, already indexed {reload_ms:.0} ms\n  \
         tree rooted at {} ({} rows open), {} selection changes at 200×50\n  \
         UI thread (highlight on worker): median {:.2} ms, max {:.2} ms\n  \
         all inline (highlight included): median {:.2} ms, p95 {:.2} ms, max {:.2} ms",
        repo.display(),
        snap.index.stats.lines,
        snap.index.stats.declarations,
        b.root,
        b.rows,
        b.frames,
        b.ui_median_ms,
        b.ui_max_ms,
        b.inline_median_ms,
        b.inline_p95_ms,
        b.inline_max_ms,
    );
    assert!(
        b.inline_p95_ms < 16.0,
        "selection changes must render within a 60 Hz frame"
    );
}

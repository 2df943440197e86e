//! The `ripple` binary: argument parsing, progress display and rendering of
//! each command's answer as text or as one JSON document.

mod cli;

use std::process::ExitCode;

// Indexing allocates many small, short-lived objects from two threads at
// once (tree-sitter nodes, facts); mimalloc's per-thread heaps avoid the
// contention and fragmentation glibc's allocator shows there.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    ripple::lang::use_fast_allocator();
    match cli::run() {
        Ok(code) => code,
        Err(err) => cli::report_error(&err),
    }
}

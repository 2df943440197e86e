//! The `ripple` binary: argument parsing, progress display and rendering of
//! each command's answer as text or as one JSON document.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    match cli::run() {
        Ok(code) => code,
        Err(err) => {
            eprintln!("ripple: error: {err:#}");
            ExitCode::from(1)
        }
    }
}

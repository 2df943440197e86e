//! Helpers shared by integration tests.
#[allow(dead_code)] // only the search tests embed
pub mod fake_embed;
pub mod fake_llm;
pub mod sarif;

use std::path::Path;

/// Copy a directory tree, leaving out its `.ripple` index: tests that write
/// (an index, applied edits) work on a private copy of a fixture.
#[allow(dead_code)] // not every test binary copies trees
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_name() == ".ripple" {
            continue;
        }
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A TestBackend screen as text, one trimmed line per row; `first_line`
/// masks the header (whole-graph totals, temporary paths) that the test at
/// hand is not about.
#[allow(dead_code)] // only the TUI test binaries draw screens
pub fn screen_text(buf: &ratatui::buffer::Buffer, first_line: impl Fn(&str) -> String) -> String {
    let mut out = String::new();
    for y in 0..buf.area.height {
        let line: String = (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect();
        let line = if y == 0 { first_line(&line) } else { line };
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Every file under `dir` but the `.ripple` index: path relative to `dir`
/// → bytes. Tests compare trees before and after a command.
#[allow(dead_code)] // not every test binary compares trees
pub fn tree_contents(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let path = entry.path();
            if path.file_name().is_some_and(|n| n == ".ripple") {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

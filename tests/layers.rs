//! The library's layers are acyclic: each top-level module may use only
//! modules of a lower layer (docs/architecture.md draws the same table).
//! The check reads `crate::…` paths in each module's non-test code, so a new
//! import that crosses upwards fails here with the file that made it.

use std::collections::BTreeSet;
use std::path::Path;

/// Each top-level module of `src/` and its layer, lowest first.
const LAYERS: &[(&str, u32)] = &[
    ("model", 0),
    ("memory", 0),
    ("redact", 0),
    ("tokens", 0),
    ("ripple_dir", 0),
    ("terminal_text", 0),
    ("inventory", 1),
    ("lang", 1),
    ("conventions", 2),
    ("llm", 1),
    ("store", 2),
    ("resolve", 2),
    ("edits", 3),
    ("graph", 3),
    ("lookup", 3),
    ("index", 4),
    ("blast", 5),
    ("semantic", 5),
    ("testrun", 5),
    ("refactor", 5),
    ("bench", 6),
    ("context", 6),
    ("export", 6),
    ("migrate", 7),
    ("review", 7),
    ("tui", 8),
];

fn layer(module: &str) -> Option<u32> {
    LAYERS.iter().find(|(m, _)| *m == module).map(|&(_, l)| l)
}

/// The code of a file without its `#[cfg(test)]` module and comments.
fn non_test_code(text: &str) -> String {
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    code.lines()
        .filter(|l| {
            let t = l.trim_start();
            !t.starts_with("//")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Top-level modules named by `crate::x` paths or `use crate::{x, …}` lists.
fn imported(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        if let Some(list) = rest.strip_prefix('{') {
            let end = list.find('}').unwrap_or(list.len());
            for item in list[..end].split(',') {
                let name: String = item
                    .trim()
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    out.insert(name);
                }
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.insert(name);
            }
        }
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_module_uses_a_higher_or_equal_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut problems = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap();
        let first = rel.components().next().unwrap().as_os_str();
        let module = first.to_string_lossy().trim_end_matches(".rs").to_owned();
        if matches!(module.as_str(), "lib" | "main" | "cli") {
            continue;
        }
        let Some(own) = layer(&module) else {
            problems.push(format!(
                "src/{} is in no layer: add `{module}` to LAYERS and docs/architecture.md",
                rel.display()
            ));
            continue;
        };
        let code = non_test_code(&std::fs::read_to_string(file).unwrap());
        for used in imported(&code) {
            if used == module {
                continue;
            }
            match layer(&used) {
                Some(l) if l < own => {}
                Some(l) => problems.push(format!(
                    "src/{} (layer {own}) uses crate::{used} (layer {l})",
                    rel.display()
                )),
                None => {}
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_import_scanner_sees_paths_and_lists() {
    let code = "use crate::model::Lang;\nuse crate::{index, graph::Direction};\nlet x = crate::memory::trace(\"p\");";
    let found: Vec<String> = imported(code).into_iter().collect();
    assert_eq!(found, ["graph", "index", "memory", "model"]);
}

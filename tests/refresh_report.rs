//! `ripple index` says what a refresh did to the graph and why: resolved
//! again because named files changed what resolution reads of them, or
//! reused because none did.

mod common;

use std::path::Path;
use std::process::Command;

use serde_json::Value;

fn index(root: &Path) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_ripple"))
        .arg("--repo")
        .arg(root)
        .args(["index", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn append(path: &Path, text: &str) {
    let mut body = std::fs::read_to_string(path).unwrap();
    body.push_str(text);
    std::fs::write(path, body).unwrap();
}

#[test]
fn a_refresh_names_the_files_that_made_it_resolve_again() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("demo");
    common::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo"),
        &root,
    );
    let first = index(&root);
    assert_eq!(first["graph"]["action"], "resolved", "{first}");
    assert_eq!(
        first["graph"]["why"][0],
        "no index existed: every file was parsed"
    );
    assert!(
        first["graph"]["work"]["python_constraints"]
            .as_u64()
            .unwrap()
            > 0
    );
    assert!(first["graph"]["work"]["go_files"].as_u64().unwrap() > 0);

    let session = root.join("shop/auth/session.py");
    append(
        &session,
        "\n\ndef probe():\n    return validate_token(\"x\")\n",
    );
    let code_edit = index(&root);
    assert_eq!(code_edit["parsed"], 1);
    assert_eq!(code_edit["graph"]["action"], "resolved");
    assert_eq!(
        code_edit["graph"]["why"],
        serde_json::json!(["shop/auth/session.py changed what it declares, imports or calls"])
    );

    append(&session, "\n# only a comment\n");
    let comment = index(&root);
    assert_eq!(comment["parsed"], 1);
    assert_eq!(comment["graph"]["action"], "reused", "{comment}");
    assert_eq!(comment["graph"]["why"], serde_json::json!([]));

    std::fs::remove_file(root.join("shop/auth/session.py")).unwrap();
    let removal = index(&root);
    assert_eq!(removal["graph"]["action"], "resolved");
    assert_eq!(
        removal["graph"]["why"],
        serde_json::json!(["shop/auth/session.py was removed"])
    );
}

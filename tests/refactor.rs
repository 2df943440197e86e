//! `ripple refactor rename` end to end: the real binary on copies of the
//! fixture repositories in `tests/fixtures/refactor/`. Each case checks the
//! plan (`--json`), then `--apply` against the files written out under
//! `expected/<case>/` (a file not there must be unchanged), then that
//! `ripple undo` puts every file back.
//!
//! | case | rules it covers |
//! |---|---|
//! | python `function` | callers in several files, `from m import f` and `from m import f as g`, `__all__`, `mock.patch("pkg.mod.f")`, an attribute call `pricing.f(...)` |
//! | python `method` | overrides down the hierarchy, `super().m()`, `self.m()`, a likely and a possible call site, `patch("pkg.mod.Class.m")`, `patch.object(Class, "m")` |
//! | go `function` | calls within the package and from two other packages through an import alias |
//! | go `method` | a method and its calls; an interface of the same method and a method value left to check by hand |

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn fixture(lang: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/refactor")
        .join(lang)
}

fn copy(lang: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    common::copy_dir(&fixture(lang).join("repo"), &root);
    (dir, root)
}

fn ripple(root: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ripple"))
        .arg("--repo")
        .arg(root)
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json(root: &Path, args: &[&str]) -> (i32, Value) {
    let mut all = args.to_vec();
    all.push("--json");
    let (code, stdout, stderr) = ripple(root, &all);
    let doc = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}\nstderr: {stderr}"));
    (code, doc)
}

/// The repository after `case`: the originals, with the golden files of
/// `expected/<case>/` in place of the files the rename changes.
fn expected_tree(lang: &str, case: &str) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut want = common::tree_contents(&fixture(lang).join("repo"));
    let golden = common::tree_contents(&fixture(lang).join("expected").join(case));
    assert!(!golden.is_empty(), "no golden files for {lang}/{case}");
    for (path, bytes) in golden {
        assert!(
            want.contains_key(&path),
            "golden {path} is not a file of the repository"
        );
        want.insert(path, bytes);
    }
    want
}

fn assert_same_tree(
    got: &std::collections::BTreeMap<String, Vec<u8>>,
    want: &std::collections::BTreeMap<String, Vec<u8>>,
    what: &str,
) {
    let keys =
        |t: &std::collections::BTreeMap<String, Vec<u8>>| t.keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(got), keys(want), "{what}: the files differ");
    for (path, bytes) in want {
        assert_eq!(
            String::from_utf8_lossy(&got[path]),
            String::from_utf8_lossy(bytes),
            "{what}: {path}"
        );
    }
}

fn hunks(plan: &Value) -> &Vec<Value> {
    plan["hunks"].as_array().expect("hunks")
}

/// The hunk of `kind` on `file:line`.
fn hunk<'a>(plan: &'a Value, file: &str, line: u64, kind: &str) -> &'a Value {
    hunks(plan)
        .iter()
        .find(|h| h["file"] == file && h["line"] == line && h["kind"] == kind)
        .unwrap_or_else(|| panic!("no {kind} hunk at {file}:{line} in {plan:#}"))
}

/// `python3 -m py_compile` on the changed files, when Python is installed.
fn py_compile(root: &Path, files: &[&str]) {
    let Ok(status) = Command::new("python3")
        .arg("-m")
        .arg("py_compile")
        .args(files)
        .current_dir(root)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .status()
    else {
        eprintln!("python3 not found: py_compile skipped");
        return;
    };
    assert!(status.success(), "py_compile failed on {files:?}");
}

/// Apply, compare with the golden files, undo, compare with the originals.
fn apply_and_undo(lang: &str, case: &str, root: &Path, args: &[&str]) -> Value {
    let original = common::tree_contents(root);
    let mut all = args.to_vec();
    all.push("--apply");
    let (code, doc) = json(root, &all);
    assert_eq!(code, 0, "{doc:#}");
    assert!(doc["applied"]["batch"].is_string(), "{doc:#}");
    assert_same_tree(
        &common::tree_contents(root),
        &expected_tree(lang, case),
        "after --apply",
    );
    let (code, undo) = json(root, &["undo"]);
    assert_eq!(code, 0, "{undo:#}");
    assert_same_tree(&common::tree_contents(root), &original, "after undo");
    doc
}

#[test]
fn python_function_rename_covers_calls_imports_all_and_patch_strings() {
    let (_dir, root) = copy("python");
    let args = ["refactor", "rename", "compute_total", "calculate_total"];
    let (code, plan) = json(&root, &args);
    assert_eq!(code, 0, "{plan:#}");
    assert_eq!(plan["target"]["name"], "shop.pricing.compute_total");
    assert_eq!(plan["new_qualified_name"], "shop.pricing.calculate_total");
    assert_eq!(plan["callers"]["total"], 4);
    let def = hunk(&plan, "shop/pricing.py", 14, "definition");
    assert_eq!(def["old_text"], "def compute_total(items, discount=None):");
    assert_eq!(
        def["new_text"],
        "def calculate_total(items, discount=None):"
    );
    assert_eq!(def["column"], 5);
    hunk(&plan, "shop/pricing.py", 22, "call");
    hunk(&plan, "shop/checkout.py", 5, "call");
    hunk(&plan, "shop/checkout.py", 6, "call");
    hunk(&plan, "shop/checkout.py", 1, "import");
    // The alias stays: `total(...)` callers need nothing.
    let aliased = hunk(&plan, "shop/report.py", 1, "import");
    assert_eq!(
        aliased["new_text"],
        "from shop.pricing import calculate_total as total"
    );
    // Only the name after the dot changes.
    let attr = hunk(&plan, "shop/report.py", 10, "call");
    assert_eq!(
        attr["new_text"],
        "    return sum(pricing.calculate_total(c.items) for c in carts)"
    );
    assert_eq!(
        hunk(&plan, "shop/pricing.py", 3, "all_entry")["new_text"],
        "__all__ = [\"calculate_total\", \"Discount\"]"
    );
    hunk(&plan, "tests/test_checkout.py", 11, "patch_string");
    assert_eq!(hunks(&plan).len(), 9, "{plan:#}");
    for h in hunks(&plan) {
        assert_eq!(h["confidence"], "Certain", "{h}");
        assert_eq!(h["selected"], true, "{h}");
    }
    // The unresolved `thing.compute_total()` is for a person to decide.
    let check = plan["check_by_hand"].as_array().unwrap();
    assert_eq!(check.len(), 1, "{plan:#}");
    assert_eq!(check[0]["file"], "shop/report.py");
    assert_eq!(check[0]["line"], 14);

    let applied = apply_and_undo("python", "function", &root, &args);
    assert_eq!(applied["callers_after"]["total"], 4, "{applied:#}");
    assert_eq!(applied["applied"]["files"].as_array().unwrap().len(), 4);
}

#[test]
fn renamed_python_files_still_compile() {
    let (_dir, root) = copy("python");
    let (code, _, stderr) = ripple(
        &root,
        &[
            "refactor",
            "rename",
            "compute_total",
            "calculate_total",
            "--apply",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    py_compile(
        &root,
        &[
            "shop/pricing.py",
            "shop/checkout.py",
            "shop/report.py",
            "tests/test_checkout.py",
        ],
    );
}

#[test]
fn python_method_rename_carries_its_overrides_and_selects_by_confidence() {
    let (_dir, root) = copy("python");
    let args = ["refactor", "rename", "Repo.save", "persist"];
    let (code, plan) = json(&root, &args);
    assert_eq!(code, 0, "{plan:#}");
    let renamed: Vec<&str> = plan["declarations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["new"].as_str().unwrap())
        .collect();
    assert_eq!(
        renamed,
        [
            "shop.storage.Repo.persist",
            "shop.storage.SqlRepo.persist",
            "shop.storage.CachedRepo.persist"
        ]
    );
    hunk(&plan, "shop/storage.py", 2, "definition");
    assert_eq!(
        hunk(&plan, "shop/storage.py", 14, "override")["selected"],
        true
    );
    assert_eq!(
        hunk(&plan, "shop/storage.py", 19, "override")["selected"],
        true
    );
    let sup = hunk(&plan, "shop/storage.py", 15, "call");
    assert_eq!(sup["new_text"], "        super().persist(record)");
    assert_eq!(sup["selected"], true);
    let likely = hunk(&plan, "shop/storage.py", 31, "call");
    assert_eq!(likely["confidence"], "Likely");
    assert_eq!(likely["selected"], false);
    let possible = hunk(&plan, "shop/storage.py", 10, "call");
    assert_eq!(possible["confidence"], "Possible");
    assert_eq!(possible["selected"], false);
    let by_name = hunk(&plan, "tests/test_storage.py", 7, "patch_string");
    assert_eq!(
        by_name["confidence"], "Likely",
        "the owner is matched by name"
    );
    assert_eq!(
        by_name["new_text"],
        "    with mock.patch.object(SqlRepo, \"persist\") as fake:"
    );
    assert_eq!(
        hunk(&plan, "tests/test_storage.py", 12, "patch_string")["new_text"],
        "@mock.patch(\"shop.storage.CachedRepo.persist\")"
    );
    let warnings = plan["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{plan:#}");
    assert!(
        warnings[0].as_str().unwrap().starts_with("2 call site(s)"),
        "{plan:#}"
    );
    // `Unrelated.save` is another method: neither renamed nor listed.
    assert!(
        hunks(&plan)
            .iter()
            .all(|h| h["line"] != 25 && h["line"] != 32)
    );
    assert!(
        plan["check_by_hand"].as_array().unwrap().is_empty(),
        "{plan:#}"
    );

    let (_, with_likely) = json(&root, &[&args[..], &["--include-likely"]].concat());
    assert_eq!(
        hunk(&with_likely, "shop/storage.py", 31, "call")["selected"],
        true
    );
    assert_eq!(
        hunk(&with_likely, "shop/storage.py", 10, "call")["selected"],
        false
    );

    apply_and_undo(
        "python",
        "method",
        &root,
        &[&args[..], &["--include-possible"]].concat(),
    );
}

#[test]
fn go_function_rename_reaches_other_packages() {
    let (_dir, root) = copy("go");
    let args = ["refactor", "rename", "pricing.Quote", "Estimate"];
    let (code, plan) = json(&root, &args);
    assert_eq!(code, 0, "{plan:#}");
    assert_eq!(
        plan["new_qualified_name"],
        "example.com/shipd/internal/pricing.Estimate"
    );
    hunk(&plan, "internal/pricing/pricing.go", 5, "definition");
    hunk(&plan, "internal/pricing/pricing.go", 13, "call");
    assert_eq!(
        hunk(&plan, "main.go", 12, "call")["new_text"],
        "\tfmt.Println(p.Estimate(3, 40))"
    );
    hunk(&plan, "main.go", 13, "call");
    hunk(&plan, "internal/billing/billing.go", 31, "call");
    assert_eq!(hunks(&plan).len(), 5, "{plan:#}");
    assert!(plan["warnings"].as_array().unwrap().is_empty());
    let applied = apply_and_undo("go", "function", &root, &args);
    assert_eq!(applied["callers_after"]["total"], 3, "{applied:#}");
}

#[test]
fn go_method_rename_leaves_the_interface_and_method_values_to_check_by_hand() {
    let (_dir, root) = copy("go");
    let args = ["refactor", "rename", "Service.Charge", "Debit"];
    let (code, plan) = json(&root, &args);
    assert_eq!(code, 0, "{plan:#}");
    hunk(&plan, "internal/billing/billing.go", 21, "definition");
    assert_eq!(
        hunk(&plan, "internal/billing/billing.go", 31, "call")["new_text"],
        "\treturn s.Debit(pricing.Quote(weight, distance))"
    );
    hunk(&plan, "main.go", 13, "call");
    let dispatch = hunk(&plan, "internal/billing/billing.go", 36, "call");
    assert_eq!(dispatch["confidence"], "Possible");
    assert_eq!(dispatch["selected"], false);
    let check: Vec<(String, u64)> = plan["check_by_hand"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["file"].as_str().unwrap().to_owned(),
                c["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        check,
        [
            ("internal/billing/billing.go".to_owned(), 12),
            ("main.go".to_owned(), 17)
        ]
    );
    apply_and_undo("go", "method", &root, &args);
}

#[test]
fn unusable_new_names_are_refused_with_what_to_do() {
    let (_dir, root) = copy("python");
    let before = common::tree_contents(&root);
    for (new, says) in [
        ("2fast", "is not a python identifier"),
        ("class", "is a python keyword"),
        (
            "compute_total_with_tax",
            "already exists in module shop.pricing",
        ),
        ("compute_total", "nothing to rename"),
    ] {
        let (code, doc) = json(
            &root,
            &["refactor", "rename", "compute_total", new, "--apply"],
        );
        assert_eq!(code, 1, "{new}: {doc:#}");
        assert_eq!(doc["error"]["kind"], "refactor", "{new}: {doc:#}");
        let message = doc["error"]["message"].as_str().unwrap();
        assert!(message.contains(says), "{new}: {message}");
    }
    // A module-level import of the new name is a clash too.
    let (code, doc) = json(&root, &["refactor", "rename", "compute_total", "Discount"]);
    assert_eq!(code, 1, "{doc:#}");
    let (code, doc) = json(&root, &["refactor", "rename", "save", "persist"]);
    assert_eq!(code, 2, "{doc:#}");
    assert_eq!(doc["error"]["kind"], "ambiguous");
    assert_eq!(doc["error"]["candidates"].as_array().unwrap().len(), 4);
    let (code, doc) = json(&root, &["refactor", "rename", "Repo", "Store"]);
    assert_eq!(code, 1, "{doc:#}");
    assert!(
        doc["error"]["message"]
            .as_str()
            .unwrap()
            .contains("is a class")
    );
    assert_same_tree(&common::tree_contents(&root), &before, "after refusals");
}

#[test]
fn go_exportedness_changes_are_warned_about() {
    let (_dir, root) = copy("go");
    let (code, plan) = json(&root, &["refactor", "rename", "pricing.Quote", "quote"]);
    assert_eq!(code, 0, "{plan:#}");
    let warnings = plan["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{plan:#}");
    let w = warnings[0].as_str().unwrap();
    assert!(w.contains("is exported and `quote` is not"), "{w}");
    assert!(w.contains("main.go"), "{w}");
}

#[test]
fn the_text_plan_shows_diffs_marks_and_confidence() {
    let (_dir, root) = copy("python");
    let (code, stdout, stderr) = ripple(&root, &["refactor", "rename", "Repo.save", "persist"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("rename shop.storage.Repo.save (shop/storage.py:2) → persist"),
        "{stdout}"
    );
    assert!(stdout.contains("\nshop/storage.py\n"), "{stdout}");
    assert!(stdout.contains("  [x] 15:17  call  certain"), "{stdout}");
    assert!(stdout.contains("  [ ] 31:10  call  likely"), "{stdout}");
    assert!(
        stdout.contains(
            "      -        super().save(record)\n      +        super().persist(record)"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("9 hunks, 6 selected; unselected: 2 likely, 1 possible"),
        "{stdout}"
    );
    assert!(stdout.contains("nothing written"), "{stdout}");
}

#[test]
fn conventions_refuse_off_limits_files_hold_back_stable_ones_and_owners_are_named() {
    let (_dir, root) = copy("python");
    std::fs::write(
        root.join("ripple.toml"),
        "[conventions]\nstable = [\"shop/checkout.py\"]\noff_limits = [\"tests/**\"]\n",
    )
    .unwrap();
    std::fs::write(
        root.join("CODEOWNERS"),
        "shop/ @acme/shop\ntests/ @acme/qa\n",
    )
    .unwrap();
    let args = ["refactor", "rename", "compute_total", "calculate_total"];
    let (code, plan) = json(&root, &args);
    assert_eq!(code, 0, "{plan:#}");
    let patched = hunk(&plan, "tests/test_checkout.py", 11, "patch_string");
    assert_eq!(patched["selected"], false);
    assert!(patched["refused"].as_str().unwrap().contains("off-limits"));
    let stable = hunk(&plan, "shop/checkout.py", 5, "call");
    assert_eq!(stable["stable"], true);
    assert_eq!(stable["selected"], false);
    assert!(
        plan["warnings"][0]
            .as_str()
            .unwrap()
            .contains("--allow-stable"),
        "{plan:#}"
    );
    assert_eq!(plan["owners"], serde_json::json!(["@acme/shop"]));

    let (_, allowed) = json(&root, &[&args[..], &["--allow-stable"]].concat());
    assert_eq!(
        hunk(&allowed, "shop/checkout.py", 5, "call")["selected"],
        true
    );
    assert_eq!(
        hunk(&allowed, "tests/test_checkout.py", 11, "patch_string")["selected"],
        false,
        "off-limits stays refused"
    );

    // Off-limits target: nothing is planned.
    std::fs::write(
        root.join("ripple.toml"),
        "[conventions]\noff_limits = [\"shop/pricing.py\"]\n",
    )
    .unwrap();
    let (code, doc) = json(&root, &args);
    assert_eq!(code, 1, "{doc:#}");
    assert!(
        doc["error"]["message"]
            .as_str()
            .unwrap()
            .contains("off-limits")
    );
}

#[test]
fn a_go_name_taken_in_the_package_is_refused() {
    let (_dir, root) = copy("go");
    let (code, doc) = json(&root, &["refactor", "rename", "pricing.Quote", "Express"]);
    assert_eq!(code, 1, "{doc:#}");
    let message = doc["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("`Express` already exists in package example.com/shipd/internal/pricing"),
        "{message}"
    );
    let (code, doc) = json(&root, &["refactor", "rename", "Service.Charge", "Bill"]);
    assert_eq!(code, 1, "{doc:#}");
    let message = doc["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("the methods of (*example.com/shipd/internal/billing.Service)"),
        "{message}"
    );
}

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
//!
//! The signature refactorings run on `signature/python` and `signature/go`;
//! after each `--apply` the changed Python files must compile
//! (`python3 -m py_compile`) and the Go module must build (`go build ./...`,
//! skipped when no Go toolchain is installed).
//!
//! | case | rules it covers |
//! |---|---|
//! | python `add_positional` | appended by position when every parameter before it is passed positionally, by name otherwise; a trailing comma; a call written one argument per line; a call nested in another's argument; `*args`/`**kwargs` calls and a function value to check by hand; a likely call through a variable |
//! | python `add_keyword` | `--keyword`: `name=EXPR` at every call, and a keyword-only parameter when it has no default |
//! | python `add_default` | a default and no `--pass`: the definition only |
//! | python `add_method` | overrides, `super()` and `self` calls (no argument for `self`), `Class.method(self, …)` |
//! | python `remove` | positional, keyword and multi-line arguments removed; `*args`/`**kwargs` calls to check by hand |
//! | python `reorder` | positional arguments reordered, keyword ones kept; a call mixing both, a `*args` call and a call nested in a reordered argument to check by hand |
//! | go `add` | calls in three packages, through an import alias and nested in another call |
//! | go `add_variadic` | the new parameter before `...T`, its argument before the variadic ones and a spread slice |
//! | go `add_method` | a method's calls and a call through a method value |
//! | go `remove` | a name taken out of a `a, b int` group; a call written one argument per line |
//! | go `reorder` | a `a, b int` group written out; the arguments swapped |
//!
//! `ripple refactor move` runs on `move`; after each `--apply` every
//! Python file must compile and `ripple undo` must restore the tree,
//! deleting a module the move created.
//!
//! | case | rules it covers |
//! |---|---|
//! | `function` | a call through a variable holding the module and an unresolved call to check by hand; comments above and a decorator moved with the definition, its docstring; the imports its body needs (not one of DEST's own names); a grouped and an aliased from-import; `import mod` and `from pkg import mod` attribute calls and a reference; a `mod.f` call in DEST made bare; the source module importing it back; `__all__` out of one and into the other; a `patch("mod.f")` string |
//! | `new_module` | DEST created; a name the source module defines imported from it; a relative import rewritten |
//! | `into_importer` | DEST imported it from the source module: that import goes |
//! | `class` | a class with its methods, into a new module |
//!
//! Conventions (stable, off-limits) and CODEOWNERS apply to signature plans
//! as to renames. On the bundled demo, an add-param and two reorders keep
//! the Go module building and vetting, and an add-param keeps the Python
//! package compiling.

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
/// `expected/<case>/` in place of the files the rename changes, and those
/// named in `created` added.
fn expected_tree(
    lang: &str,
    case: &str,
    created: &[&str],
) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut want = common::tree_contents(&fixture(lang).join("repo"));
    let golden = common::tree_contents(&fixture(lang).join("expected").join(case));
    assert!(!golden.is_empty(), "no golden files for {lang}/{case}");
    for (path, bytes) in golden {
        assert!(
            want.contains_key(&path) || created.contains(&path.as_str()),
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
    apply_verify_undo(lang, case, root, args, |_| {})
}

/// [`apply_and_undo`], running `verify` on the edited tree before the undo.
fn apply_verify_undo(
    lang: &str,
    case: &str,
    root: &Path,
    args: &[&str],
    verify: impl Fn(&Path),
) -> Value {
    apply_creating_verify_undo(lang, case, root, args, &[], verify)
}

/// [`apply_verify_undo`] for a change that creates the files `created`,
/// which the undo must delete.
fn apply_creating_verify_undo(
    lang: &str,
    case: &str,
    root: &Path,
    args: &[&str],
    created: &[&str],
    verify: impl Fn(&Path),
) -> Value {
    let original = common::tree_contents(root);
    let mut all = args.to_vec();
    all.push("--apply");
    let (code, doc) = json(root, &all);
    assert_eq!(code, 0, "{doc:#}");
    assert!(doc["applied"]["batch"].is_string(), "{doc:#}");
    assert_same_tree(
        &common::tree_contents(root),
        &expected_tree(lang, case, created),
        "after --apply",
    );
    verify(root);
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
    // `self.save()` in the base: its edges are likely (the base's own
    // method) and possible (the overrides), but every one of them is
    // renamed, so the call must be too.
    let through_self = hunk(&plan, "shop/storage.py", 10, "call");
    assert_eq!(through_self["confidence"], "Certain");
    assert_eq!(through_self["selected"], true);
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
        warnings[0].as_str().unwrap().starts_with("1 call site(s)"),
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
        true
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
    // The doc comment names the function: offered, not selected.
    let doc = hunk(&plan, "internal/pricing/pricing.go", 4, "doc_mention");
    assert_eq!(
        doc["new_text"],
        "// Estimate prices a shipment of weight kg over distance km."
    );
    assert_eq!(doc["selected"], false);
    assert_eq!(hunks(&plan).len(), 6, "{plan:#}");
    assert!(plan["warnings"].as_array().unwrap().is_empty());
    let applied = apply_and_undo("go", "function", &root, &args);
    assert_eq!(applied["callers_after"]["total"], 3, "{applied:#}");
}

#[test]
fn go_method_implementing_an_interface_is_refused_and_nothing_written() {
    // `*Service` is passed where a `Charger` is wanted: renaming its
    // `Charge` alone would no longer compile, so it is refused, as gopls
    // refuses it.
    let (_dir, root) = copy("go");
    let before = common::tree_contents(&root);
    let (code, doc) = json(
        &root,
        &["refactor", "rename", "Service.Charge", "Debit", "--apply"],
    );
    assert_eq!(code, 1, "{doc:#}");
    let message = doc["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(
            "implements example.com/shipd/internal/billing.Charger.Charge (internal/billing/billing.go:11)"
        ),
        "{message}"
    );
    assert!(message.contains("renaming it alone"), "{message}");
    assert_eq!(common::tree_contents(&root), before);
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
        stdout.contains("9 hunks, 7 selected; unselected: 2 likely, 0 possible"),
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
    let (code, doc) = json(&root, &["refactor", "rename", "Service.Bill", "Charge"]);
    assert_eq!(code, 1, "{doc:#}");
    let message = doc["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("the methods of (*example.com/shipd/internal/billing.Service)"),
        "{message}"
    );
}

// Signature refactorings.

/// The Go toolchain: `go` on PATH, or Debian's /usr/lib/go-*/bin/go.
fn go_tool() -> Option<PathBuf> {
    let on_path = Command::new("go").arg("version").output();
    if on_path.is_ok_and(|o| o.status.success()) {
        return Some(PathBuf::from("go"));
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib")
        .ok()?
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("go-"))
        .map(|e| e.path().join("bin/go"))
        .filter(|p| p.is_file())
        .collect();
    found.sort();
    found.pop()
}

/// `go build ./... && go vet ./...` in `root`, when Go is installed.
fn go_builds(root: &Path) {
    let Some(go) = go_tool() else {
        eprintln!("go not found: go build skipped");
        return;
    };
    let cache = tempfile::tempdir().unwrap();
    for step in [["build", "./..."], ["vet", "./..."]] {
        let out = Command::new(&go)
            .args(step)
            .current_dir(root)
            .env("GOCACHE", cache.path().join("cache"))
            .env("GOPATH", cache.path().join("path"))
            .env("GOFLAGS", "-mod=mod")
            .env("GOTOOLCHAIN", "local")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "go {step:?} failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Every Python file of the tree compiles; on a copy, since py_compile
/// writes `__pycache__` and the tree must come back exactly on undo.
fn python_compiles(root: &Path) {
    let copy = tempfile::tempdir().unwrap();
    common::copy_dir(root, copy.path());
    let files: Vec<String> = common::tree_contents(copy.path())
        .into_keys()
        .filter(|p| p.ends_with(".py"))
        .collect();
    let refs: Vec<&str> = files.iter().map(String::as_str).collect();
    py_compile(copy.path(), &refs);
}

/// (line, kind, confidence, selected) of every hunk of `file`.
fn hunks_of(plan: &Value, file: &str) -> Vec<(u64, String, String, bool)> {
    hunks(plan)
        .iter()
        .filter(|h| h["file"] == file)
        .map(|h| {
            (
                h["line"].as_u64().unwrap(),
                h["kind"].as_str().unwrap().to_owned(),
                h["confidence"].as_str().unwrap().to_owned(),
                h["selected"].as_bool().unwrap(),
            )
        })
        .collect()
}

/// The (file, line) of every check-by-hand entry, with a word its reason holds.
fn check_lines(plan: &Value) -> Vec<(String, u64)> {
    plan["check_by_hand"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["file"].as_str().unwrap().to_owned(),
                c["line"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn reason_at(plan: &Value, file: &str, line: u64) -> String {
    plan["check_by_hand"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["file"] == file && c["line"] == line)
        .map(|c| c["reason"].as_str().unwrap().to_owned())
        .unwrap_or_else(|| panic!("nothing to check by hand at {file}:{line}: {plan:#}"))
}

fn certain(line: u64, kind: &str) -> (u64, String, String, bool) {
    (line, kind.to_owned(), "Certain".to_owned(), true)
}

const PY: &str = "signature/python";
const GO: &str = "signature/go";

#[test]
fn python_add_param_passes_by_position_or_by_name_and_keeps_the_layout() {
    let (_dir, root) = copy(PY);
    let args = [
        "refactor",
        "add-param",
        "fee",
        "leeway: int = 0",
        "--pass",
        "5",
    ];
    let (code, plan) = json(&root, &args);
    assert_eq!(code, 0, "{plan:#}");
    assert_eq!(plan["operation"], "add_param");
    assert_eq!(plan["signature_before"], "(amount, rate=0.1)");
    assert_eq!(
        plan["signature_after"],
        "(amount, rate=0.1, leeway: int = 0)"
    );
    assert_eq!(
        hunks_of(&plan, "billing/ledger.py"),
        [
            certain(7, "call"),
            certain(21, "call"),
            certain(22, "call"),
            certain(23, "call"),
            certain(26, "call"),
            (59, "call".to_owned(), "Likely".to_owned(), false),
            // `fee(fee(n, 0.1), 0.5)`: the inner and the outer call, both.
            certain(63, "call"),
            certain(63, "call"),
        ]
    );
    // `fee(amount)` leaves `rate` to its default: only a name reaches `leeway`.
    assert_eq!(
        hunk(&plan, "billing/ledger.py", 7, "call")["new_text"],
        "        return fee(amount, leeway=5)"
    );
    assert_eq!(
        hunk(&plan, "billing/ledger.py", 23, "call")["new_text"],
        "    third = fee(amounts[2], 0.2, 5,)"
    );
    assert_eq!(
        check_lines(&plan),
        [
            ("billing/ledger.py".to_owned(), 28),
            ("billing/ledger.py".to_owned(), 29),
            ("billing/ledger.py".to_owned(), 58),
        ]
    );
    assert!(reason_at(&plan, "billing/ledger.py", 28).contains("`*args` or `**kwargs`"));
    assert!(reason_at(&plan, "billing/ledger.py", 58).contains("not a call"));
    let warnings = plan["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{plan:#}");

    let with_likely = [&args[..], &["--include-likely"]].concat();
    let applied = apply_verify_undo(PY, "add_positional", &root, &with_likely, python_compiles);
    assert_eq!(applied["callers_after"]["total"], 4, "{applied:#}");
}

#[test]
fn python_add_param_by_keyword_makes_a_parameter_without_default_keyword_only() {
    let (_dir, root) = copy(PY);
    let args = [
        "refactor",
        "add-param",
        "fee",
        "leeway",
        "--pass",
        "1",
        "--keyword",
    ];
    let (code, plan) = json(&root, &args);
    assert_eq!(code, 0, "{plan:#}");
    assert_eq!(plan["signature_after"], "(amount, rate=0.1, *, leeway)");
    apply_verify_undo(PY, "add_keyword", &root, &args, python_compiles);
}

#[test]
fn python_add_param_with_a_default_and_no_value_edits_the_definition_only() {
    let (_dir, root) = copy(PY);
    let args = ["refactor", "add-param", "fee", "leeway=0"];
    let (code, plan) = json(&root, &args);
    assert_eq!(code, 0, "{plan:#}");
    assert_eq!(hunks(&plan).len(), 1, "{plan:#}");
    hunk(&plan, "billing/fees.py", 4, "definition");
    assert!(
        plan["notes"][0]
            .as_str()
            .unwrap()
            .contains("call sites need no edit"),
        "{plan:#}"
    );
    assert!(plan["check_by_hand"].as_array().unwrap().is_empty());
    apply_verify_undo(PY, "add_default", &root, &args, python_compiles);
}

#[test]
fn python_add_param_to_a_method_changes_its_overrides_and_never_passes_self() {
    let (_dir, root) = copy(PY);
    let args = [
        "refactor",
        "add-param",
        "Ledger.record",
        "strict: bool = False",
        "--pass",
        "True",
    ];
    let (code, plan) = json(&root, &args);
    assert_eq!(code, 0, "{plan:#}");
    assert_eq!(
        plan["declarations"],
        serde_json::json!([
            "billing.ledger.Ledger.record",
            "billing.ledger.AuditedLedger.record"
        ])
    );
    assert_eq!(
        hunks_of(&plan, "billing/ledger.py"),
        [
            certain(6, "definition"),
            certain(11, "call"),
            certain(15, "override"),
            certain(16, "call"),
            certain(17, "call"),
            (57, "call".to_owned(), "Likely".to_owned(), false),
        ]
    );
    // Through the class, `self` is an argument: the value goes fourth.
    assert_eq!(
        hunk(&plan, "billing/ledger.py", 16, "call")["new_text"],
        "        Ledger.record(self, amount, note, True)"
    );
    assert_eq!(
        hunk(&plan, "billing/ledger.py", 11, "call")["new_text"],
        "            self.record(e, strict=True)"
    );
    let all = [&args[..], &["--include-possible"]].concat();
    apply_verify_undo(PY, "add_method", &root, &all, python_compiles);
}

#[test]
fn python_remove_param_takes_its_argument_out_of_every_call() {
    let (_dir, root) = copy(PY);
    let args = ["refactor", "remove-param", "report", "verbose"];
    let (code, plan) = json(&root, &args);
    assert_eq!(code, 0, "{plan:#}");
    assert_eq!(plan["signature_after"], "(amount, label=None)");
    assert_eq!(
        hunks_of(&plan, "billing/ledger.py"),
        [
            certain(34, "call"),
            certain(35, "call"),
            certain(41, "call")
        ]
    );
    let multi = hunk(&plan, "billing/ledger.py", 41, "call");
    assert_eq!(multi["end_line"], 42);
    assert_eq!(multi["old_text"], "        False,\n        \"y\",");
    assert_eq!(multi["new_text"], "        \"y\",");
    assert_eq!(
        check_lines(&plan),
        [
            ("billing/ledger.py".to_owned(), 37),
            ("billing/ledger.py".to_owned(), 38),
        ]
    );
    apply_verify_undo(PY, "remove", &root, &args, python_compiles);
}

#[test]
fn removing_a_parameter_the_body_uses_is_refused_with_its_lines_unless_forced() {
    let (_dir, root) = copy(PY);
    let before = common::tree_contents(&root);
    let (code, doc) = json(
        &root,
        &["refactor", "remove-param", "report", "amount", "--apply"],
    );
    assert_eq!(code, 1, "{doc:#}");
    assert_eq!(doc["error"]["kind"], "refactor");
    let message = doc["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("still uses `amount` (billing/fees.py:9)"),
        "{message}"
    );
    assert!(message.contains("--force"), "{message}");
    assert_same_tree(&common::tree_contents(&root), &before, "after a refusal");
    let (code, plan) = json(
        &root,
        &["refactor", "remove-param", "report", "amount", "--force"],
    );
    assert_eq!(code, 0, "{plan:#}");
    assert_eq!(plan["signature_after"], "(verbose=False, label=None)");
}

#[test]
fn python_reorder_params_moves_positional_arguments_and_keeps_keywords() {
    let (_dir, root) = copy(PY);
    let args = ["refactor", "reorder-params", "span", "stop,start,step"];
    let (code, plan) = json(&root, &args);
    assert_eq!(code, 0, "{plan:#}");
    assert_eq!(
        hunks_of(&plan, "billing/ledger.py"),
        [
            certain(47, "call"),
            certain(48, "call"),
            certain(63, "call")
        ]
    );
    assert_eq!(
        check_lines(&plan),
        [
            ("billing/ledger.py".to_owned(), 49),
            ("billing/ledger.py".to_owned(), 51),
            ("billing/ledger.py".to_owned(), 63),
        ]
    );
    assert!(
        reason_at(&plan, "billing/ledger.py", 49).contains("by name first"),
        "{plan:#}"
    );
    // `span(span(0, n)[0], n)`: the outer call moves the inner one's text,
    // so the inner call is left to a person.
    assert!(
        reason_at(&plan, "billing/ledger.py", 63).contains("inside another call"),
        "{plan:#}"
    );
    apply_verify_undo(PY, "reorder", &root, &args, python_compiles);
}

#[test]
fn signature_inputs_that_do_not_fit_are_refused_with_what_to_do() {
    let (_dir, root) = copy(PY);
    let before = common::tree_contents(&root);
    for (args, says) in [
        (
            &["add-param", "fee", "*rest", "--pass", "1"][..],
            "is not one Python parameter",
        ),
        (&["add-param", "fee", "leeway"][..], "--pass 'EXPR'"),
        (
            &["add-param", "fee", "leeway", "--pass", "1,"][..],
            "is not one python expression",
        ),
        (
            &["add-param", "fee", "leeway", "--pass", "1"][..],
            "or pass it by name with --keyword",
        ),
        (
            &["add-param", "fee", "rate=1", "--pass", "1"][..],
            "already has a parameter `rate`",
        ),
        (&["add-param", "fee", "x: int = 0", "--pass", "1"][..], ""),
        (
            &["add-param", "tagged", "x=0", "--pass", "1"][..],
            "pass --keyword",
        ),
        (
            &["remove-param", "report", "nope"][..],
            "no parameter `nope`; its parameters are: amount, verbose, label",
        ),
        (
            &["remove-param", "Ledger.record", "self"][..],
            "bound by the call",
        ),
        (
            &["reorder-params", "span", "stop,start"][..],
            "`step` is missing",
        ),
        (
            &["reorder-params", "span", "stop,start,start"][..],
            "listed twice",
        ),
        (
            &["reorder-params", "span", "stop,begin,step"][..],
            "`begin` is not one of its parameters (start, stop, step)",
        ),
        (
            &["reorder-params", "span", "step,start,stop"][..],
            "`start` has no default and would follow `step`",
        ),
        (
            &["reorder-params", "tagged", "tags,amount"][..],
            "keeps each parameter among those of its kind",
        ),
        (
            &["reorder-params", "fee", "amount,rate"][..],
            "already in this order",
        ),
        (
            &["reorder-params", "Ledger.record", "note,amount"][..],
            "`amount` has no default and would follow `note`",
        ),
        (
            &["reorder-params", "Ledger.record", "self,note,amount"][..],
            "`self` is not one of its parameters (amount, note)",
        ),
    ] {
        let mut all = vec!["refactor"];
        all.extend_from_slice(args);
        all.push("--apply");
        let (code, doc) = json(&root, &all);
        if says.is_empty() {
            // Inputs that are fine: planned (and written, then undone).
            assert_eq!(code, 0, "{args:?}: {doc:#}");
            let (code, undo) = json(&root, &["undo"]);
            assert_eq!(code, 0, "{undo:#}");
            continue;
        }
        assert_eq!(code, 1, "{args:?}: {doc:#}");
        assert_eq!(doc["error"]["kind"], "refactor", "{args:?}: {doc:#}");
        let message = doc["error"]["message"].as_str().unwrap();
        assert!(message.contains(says), "{args:?}: {message}");
    }
    assert_same_tree(&common::tree_contents(&root), &before, "after refusals");
}

#[test]
fn go_add_param_requires_a_value_and_reaches_every_package() {
    let (_dir, root) = copy(GO);
    let (code, doc) = json(
        &root,
        &["refactor", "add-param", "pricing.Quote", "leeway int"],
    );
    assert_eq!(code, 1, "{doc:#}");
    assert!(
        doc["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Go has no default arguments"),
        "{doc:#}"
    );
    let args = [
        "refactor",
        "add-param",
        "pricing.Quote",
        "leeway int",
        "--pass",
        "0",
    ];
    let (code, plan) = json(&root, &args);
    assert_eq!(code, 0, "{plan:#}");
    assert_eq!(
        plan["signature_after"],
        "(weight, distance int, leeway int)"
    );
    assert_eq!(hunks(&plan).len(), 6, "{plan:#}");
    assert_eq!(
        hunk(&plan, "internal/billing/billing.go", 49, "call")["new_text"],
        "\ta := pricing.Scale(pricing.Quote(1, 2, 0), 0, 1.5)"
    );
    assert!(
        plan["check_by_hand"].as_array().unwrap().is_empty(),
        "{plan:#}"
    );
    apply_verify_undo(GO, "add", &root, &args, go_builds);
}

#[test]
fn go_add_param_before_a_variadic_parameter() {
    let (_dir, root) = copy(GO);
    let args = [
        "refactor",
        "add-param",
        "pricing.Sum",
        "floor int",
        "--pass",
        "1",
    ];
    apply_verify_undo(GO, "add_variadic", &root, &args, go_builds);
}

#[test]
fn go_add_param_to_a_method_reaches_a_call_through_its_method_value() {
    let (_dir, root) = copy(GO);
    let args = [
        "refactor",
        "add-param",
        "Service.Refund",
        "reason string",
        "--pass",
        "\"n/a\"",
    ];
    let (code, plan) = json(&root, &args);
    assert_eq!(code, 0, "{plan:#}");
    assert_eq!(
        hunks_of(&plan, "main.go"),
        [
            certain(20, "call"),
            (22, "call".to_owned(), "Likely".to_owned(), false)
        ]
    );
    // The method value itself is left to a person.
    assert_eq!(check_lines(&plan), [("main.go".to_owned(), 21)]);
    let all = [&args[..], &["--include-likely"]].concat();
    apply_verify_undo(GO, "add_method", &root, &all, go_builds);
}

#[test]
fn go_calls_that_cannot_be_mapped_are_left_to_check_by_hand_and_interface_methods_refused() {
    let (_dir, root) = copy(GO);
    let (code, plan) = json(
        &root,
        &[
            "refactor",
            "add-param",
            "pricing.Ratio",
            "leeway int",
            "--pass",
            "0",
        ],
    );
    assert_eq!(code, 0, "{plan:#}");
    assert_eq!(hunks(&plan).len(), 1, "{plan:#}");
    assert!(
        reason_at(&plan, "internal/billing/billing.go", 55).contains("passes 1 argument(s) to 2"),
        "{plan:#}"
    );
    let (code, plan) = json(
        &root,
        &[
            "refactor",
            "add-param",
            "Service.Charge",
            "leeway int",
            "--pass",
            "0",
        ],
    );
    // A method of an interface's implementation: changing its parameters
    // alone would break the build.
    assert_eq!(code, 1, "{plan:#}");
    let message = plan["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("Charger.Charge (internal/billing/billing.go:11)")
            && message.contains("changing its parameters alone"),
        "{message}"
    );
}

#[test]
fn go_remove_param_takes_a_name_out_of_its_group() {
    let (_dir, root) = copy(GO);
    let (code, doc) = json(
        &root,
        &["refactor", "remove-param", "pricing.Sum", "prices"],
    );
    assert_eq!(code, 1, "{doc:#}");
    assert!(
        doc["error"]["message"]
            .as_str()
            .unwrap()
            .contains("(internal/pricing/pricing.go:18)"),
        "{doc:#}"
    );
    let args = ["refactor", "remove-param", "pricing.Scale", "unused"];
    let (code, plan) = json(&root, &args);
    assert_eq!(code, 0, "{plan:#}");
    assert_eq!(plan["signature_after"], "(price int, factor float64)");
    apply_verify_undo(GO, "remove", &root, &args, go_builds);
}

#[test]
fn go_reorder_params_writes_a_group_out() {
    let (_dir, root) = copy(GO);
    let args = [
        "refactor",
        "reorder-params",
        "pricing.Quote",
        "distance,weight",
    ];
    let (code, plan) = json(&root, &args);
    assert_eq!(code, 0, "{plan:#}");
    assert_eq!(plan["signature_after"], "(distance int, weight int)");
    apply_verify_undo(GO, "reorder", &root, &args, go_builds);
}

#[test]
fn the_signature_plan_prints_multi_line_hunks_and_marks() {
    let (_dir, root) = copy(PY);
    let (code, stdout, stderr) = ripple(&root, &["refactor", "remove-param", "report", "verbose"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains(
            "billing.fees.report (billing/fees.py:8): remove `verbose`\n  (amount, verbose=False, label=None) → (amount, label=None)"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("  [x] 41-42  call  certain"), "{stdout}");
    assert!(
        stdout.contains("      -        False,\n      -        \"y\",\n      +        \"y\",\n"),
        "{stdout}"
    );
    assert!(stdout.contains("check by hand (2):"), "{stdout}");
    assert!(stdout.contains("4 hunks, 4 selected"), "{stdout}");
    let (code, stdout, _) = ripple(&root, &["refactor", "add-param", "--help"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("Examples:"), "{stdout}");
    assert!(stdout.contains("--pass <EXPR>"), "{stdout}");
}

#[test]
fn signature_changes_follow_the_conventions_and_name_the_owners() {
    let (_dir, root) = copy(PY);
    std::fs::write(
        root.join("ripple.toml"),
        "[conventions]\nstable = [\"billing/ledger.py\"]\n",
    )
    .unwrap();
    std::fs::write(root.join("CODEOWNERS"), "billing/fees.py @acme/billing\n").unwrap();
    let args = ["refactor", "remove-param", "report", "verbose"];
    let (code, plan) = json(&root, &args);
    assert_eq!(code, 0, "{plan:#}");
    let stable = hunk(&plan, "billing/ledger.py", 34, "call");
    assert_eq!(stable["stable"], true);
    assert_eq!(stable["selected"], false);
    assert_eq!(
        hunk(&plan, "billing/fees.py", 8, "definition")["selected"],
        true
    );
    assert!(
        plan["warnings"][0]
            .as_str()
            .unwrap()
            .contains("--allow-stable"),
        "{plan:#}"
    );
    assert_eq!(plan["owners"], serde_json::json!(["@acme/billing"]));
    let (_, allowed) = json(&root, &[&args[..], &["--allow-stable"]].concat());
    assert_eq!(
        hunk(&allowed, "billing/ledger.py", 34, "call")["selected"],
        true
    );

    std::fs::write(
        root.join("ripple.toml"),
        "[conventions]\noff_limits = [\"billing/fees.py\"]\n",
    )
    .unwrap();
    let (code, doc) = json(&root, &args);
    assert_eq!(code, 1, "{doc:#}");
    assert!(
        doc["error"]["message"]
            .as_str()
            .unwrap()
            .contains("off-limits"),
        "{doc:#}"
    );
}

#[test]
fn the_demo_still_builds_after_signature_changes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("demo");
    common::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo"),
        &root,
    );
    let original = common::tree_contents(&root);
    for (args, verify) in [
        (
            &[
                "add-param",
                "auth.IssueToken",
                "audience string",
                "--pass",
                "\"shipd\"",
            ][..],
            go_builds as fn(&Path),
        ),
        (
            &["reorder-params", "auth.OwnerOrRole", "owner,token,role"][..],
            go_builds,
        ),
        (
            &["reorder-params", "RateTable.Quote", "p,service,to,at"][..],
            go_builds,
        ),
        (
            &[
                "add-param",
                "validate_token",
                "leeway: int = 0",
                "--pass",
                "30",
            ][..],
            python_compiles,
        ),
    ] {
        let mut all = vec!["refactor"];
        all.extend_from_slice(args);
        all.push("--apply");
        let (code, doc) = json(&root, &all);
        assert_eq!(code, 0, "{args:?}: {doc:#}");
        assert!(
            doc["check_by_hand"].as_array().unwrap().is_empty(),
            "{args:?}: {doc:#}"
        );
        verify(&root);
        let (code, undo) = json(&root, &["undo"]);
        assert_eq!(code, 0, "{undo:#}");
        assert_same_tree(&common::tree_contents(&root), &original, "after undo");
    }
}

const MOVE: &str = "move";

#[test]
fn python_move_points_every_import_and_module_attribute_at_the_new_module() {
    let (_dir, root) = copy(MOVE);
    let args = ["refactor", "move", "round_price", "shop/money.py"];
    let (code, plan) = json(&root, &args);
    assert_eq!(code, 0, "{plan:#}");
    assert_eq!(plan["target"]["name"], "shop.pricing.round_price");
    assert_eq!(plan["new_qualified_name"], "shop.money.round_price");
    assert_eq!(plan["kind"], "function");
    assert_eq!(plan["creates_file"], false);
    assert_eq!(
        hunks_of(&plan, "shop/pricing.py"),
        [
            certain(7, "import"),
            certain(9, "all_entry"),
            certain(22, "moved_out")
        ]
    );
    assert_eq!(
        hunks_of(&plan, "shop/money.py"),
        [
            certain(2, "import"),
            certain(4, "all_entry"),
            // The append shares its line with a call in DEST itself, which
            // now calls the name bare.
            certain(14, "moved_in")
        ]
    );
    assert_eq!(
        hunks_of(&plan, "shop/report.py"),
        [
            certain(1, "import"),
            certain(2, "import"),
            certain(3, "import"),
            certain(11, "call"),
            certain(15, "call"),
            certain(18, "reference"),
        ]
    );
    assert_eq!(hunks_of(&plan, "shop/checkout.py"), [certain(1, "import")]);
    // The source module keeps a binding of the name (it imports it back),
    // so a patch of it there may be what the test meant.
    assert_eq!(
        hunks_of(&plan, "tests/test_checkout.py"),
        [(6, "patch_string".to_owned(), "Likely".to_owned(), false)]
    );
    let grouped = hunk(&plan, "shop/checkout.py", 1, "import");
    assert_eq!(
        grouped["new_text"],
        "from shop.pricing import Discount\nfrom shop.money import round_price"
    );
    let moved = hunk(&plan, "shop/money.py", 14, "moved_in")["new_text"]
        .as_str()
        .unwrap();
    assert!(
        moved.starts_with("    return int(round_price(x) * 100)\n\n\n# Rounds"),
        "{moved}"
    );
    // `to_decimal`, which the old module imported from DEST, is DEST's own.
    assert_eq!(
        hunk(&plan, "shop/money.py", 2, "import")["new_text"],
        "from decimal import Decimal\nfrom decimal import Decimal as D\nimport functools\nimport math"
    );
    assert!(
        moved.contains("# Rounds half up, as the tills do.\n# Cached: prices repeat.\n@functools.lru_cache(maxsize=None)\ndef round_price(value):\n    \"\"\"Round to whole cents.\"\"\""),
        "{moved}"
    );
    let notes = plan["notes"].as_array().unwrap();
    assert!(
        notes[0]
            .as_str()
            .unwrap()
            .contains("`functools`, `math`, `D`"),
        "{plan:#}"
    );
    assert_eq!(plan["warnings"].as_array().unwrap().len(), 1, "{plan:#}");
    let check = plan["check_by_hand"].as_array().unwrap();
    let reasons: Vec<&str> = check
        .iter()
        .filter(|c| c["file"] == "shop/report.py" && c["line"] == 23)
        .map(|c| c["reason"].as_str().unwrap())
        .collect();
    assert_eq!(check.len(), 2, "{plan:#}");
    assert!(
        reasons[0].starts_with("calls round_price through `mod`"),
        "{reasons:?}"
    );
    assert!(
        reasons[1].starts_with("unresolved call `thing.round_price`"),
        "{reasons:?}"
    );

    let likely = [&args[..], &["--include-likely"]].concat();
    let applied = apply_verify_undo(MOVE, "function", &root, &likely, python_compiles);
    assert_eq!(applied["callers_after"]["total"], 7, "{applied:#}");
}

#[test]
fn python_move_into_a_new_module_imports_what_the_body_needs_from_the_old_one() {
    let (_dir, root) = copy(MOVE);
    let args = ["refactor", "move", "shop.pricing.with_tax", "shop/tax.py"];
    let (code, plan) = json(&root, &args);
    assert_eq!(code, 0, "{plan:#}");
    assert_eq!(plan["creates_file"], true);
    assert_eq!(plan["to_module"], "shop.tax");
    let created = hunks(&plan)
        .iter()
        .find(|h| h["new_file"] == true)
        .expect("a new-file hunk");
    assert_eq!(created["file"], "shop/tax.py");
    assert_eq!(
        created["new_text"],
        "from shop.pricing import TAX_RATE\n\n\ndef with_tax(amount):\n    return amount * (1 + TAX_RATE)\n"
    );
    // `from .pricing import with_tax`: the relative import names the new
    // module absolutely.
    assert_eq!(
        hunk(&plan, "shop/invoice.py", 1, "import")["new_text"],
        "from shop.tax import with_tax"
    );
    let (_, text, _) = ripple(&root, &args);
    assert!(text.contains("[x] new file  moved in  certain"), "{text}");

    apply_creating_verify_undo(
        MOVE,
        "new_module",
        &root,
        &args,
        &["shop/tax.py"],
        python_compiles,
    );
    assert!(
        !root.join("shop/tax.py").exists(),
        "undo deletes the new module"
    );
}

#[test]
fn python_move_into_the_module_that_imported_it_takes_that_import_out() {
    let (_dir, root) = copy(MOVE);
    let args = ["refactor", "move", "to_decimal", "shop/pricing.py"];
    let (code, plan) = json(&root, &args);
    assert_eq!(code, 0, "{plan:#}");
    let import = hunk(&plan, "shop/pricing.py", 6, "import");
    assert_eq!(
        import["new_text"],
        "from shop.util import clamp\nfrom decimal import Decimal"
    );
    apply_verify_undo(MOVE, "into_importer", &root, &args, python_compiles);
}

#[test]
fn python_move_of_a_class_carries_its_methods() {
    let (_dir, root) = copy(MOVE);
    let args = ["refactor", "move", "Discount", "shop/discounts.py"];
    let (code, plan) = json(&root, &args);
    assert_eq!(code, 0, "{plan:#}");
    assert_eq!(plan["kind"], "class");
    apply_creating_verify_undo(
        MOVE,
        "class",
        &root,
        &args,
        &["shop/discounts.py"],
        python_compiles,
    );
}

#[test]
fn moves_ripple_cannot_make_are_refused_with_why() {
    let (_dir, root) = copy(MOVE);
    let original = common::tree_contents(&root);
    let cases: [(&[&str], &str); 6] = [
        (
            &["Discount.apply", "shop/money.py"],
            "moving a method is not supported",
        ),
        (
            &["shop.pricing.with_tax", "shop/notes.txt"],
            "is not a Python file",
        ),
        (
            &["shop.pricing.with_tax", "../elsewhere.py"],
            "is outside the repository",
        ),
        (
            &["shop.pricing.with_tax", "shop/legacy.py"],
            "shop.legacy already binds `with_tax` (function shop/legacy.py:1)",
        ),
        (
            &["shop.pricing.with_tax", "shop/money.py"],
            "the two modules would import each other",
        ),
        (
            &["round_price", "shop/pricing.py"],
            "it is already in shop/pricing.py",
        ),
    ];
    for (args, why) in cases {
        let all = [&["refactor", "move"][..], args, &["--apply"]].concat();
        let (code, _, stderr) = ripple(&root, &all);
        assert_eq!(code, 1, "{args:?}: {stderr}");
        assert!(stderr.contains(why), "{args:?}: {stderr}");
    }
    assert_same_tree(&common::tree_contents(&root), &original, "after refusals");
    let (code, help, _) = ripple(&root, &["refactor", "move", "--help"]);
    assert_eq!(code, 0);
    assert!(
        help.contains("ripple refactor move round_price shop/money.py --apply"),
        "{help}"
    );
}

//! The real binary on real trees: the bundled demo monolith and a repository
//! of hostile files.

mod common;

use std::process::Command;

use serde_json::Value;

fn ripple(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ripple"))
        .args(args)
        .output()
        .expect("run ripple");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn demo() -> String {
    format!("{}/assets/demo", env!("CARGO_MANIFEST_DIR"))
}

fn json(args: &[&str]) -> Value {
    let (code, out, err) = ripple(args);
    assert_eq!(code, 0, "ripple {args:?} failed: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
}

/// The names a `callers`/`callees` document lists at hop 1.
fn first_hop_names(walk: &Value) -> Vec<&str> {
    walk["hops"][0]["decls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect()
}

#[test]
fn blast_radius_of_the_demo_token_validator_spans_packages_and_tests() {
    let demo = demo();
    let b = json(&[
        "--repo",
        &demo,
        "blast",
        "validate_token",
        "--depth",
        "3",
        "--json",
    ]);
    assert_eq!(b["root"]["name"], "shop.auth.tokens.validate_token");
    let direct = b["hops"][0]["counts"]["total"].as_u64().unwrap();
    assert!(direct >= 25, "direct callers: {direct}");
    assert!(b["total"]["total"].as_u64().unwrap() > direct);
    assert!(b["tests"].as_array().unwrap().len() >= 10);
    assert!(b["packages"].as_array().unwrap().len() >= 4);
    // The demo has a CODEOWNERS file: owners of the files in the radius.
    let owners: Vec<&str> = b["owners"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o.as_str().unwrap())
        .collect();
    assert!(owners.contains(&"@acme/identity"), "{owners:?}");

    // The text names the files and tests the JSON lists, cut to a screenful.
    let (code, text, err) = ripple(&["--repo", &demo, "blast", "validate_token"]);
    assert_eq!(code, 0, "{err}");
    let files = b["files"].as_array().unwrap();
    let tests = b["tests"].as_array().unwrap();
    assert!(text.contains("\n  files:\n"), "{text}");
    assert!(text.contains(&format!("\n    {}\n", files[0].as_str().unwrap())));
    let first_test = tests[0]["name"].as_str().unwrap();
    assert!(text.contains(&format!("\n    {first_test}  ")), "{text}");
    assert!(
        text.contains(&format!(
            "… and {} more (--json lists all)",
            tests.len() - 10
        )),
        "{text}"
    );
}

#[test]
fn go_interface_calls_are_possible_edges_and_struct_fields_resolve() {
    let demo = demo();
    let c = json(&["--repo", &demo, "callers", "ValidateToken", "--json"]);
    let names = first_hop_names(&c);
    assert!(
        names.iter().any(|n| n.contains("shipping.Service).Quote")),
        "{names:?}"
    );
    let edges = json(&[
        "--repo",
        &demo,
        "edges",
        "--format",
        "json",
        "--min-confidence",
        "possible",
    ]);
    let obj = edges.as_object().unwrap();
    assert!(
        obj.keys()
            .any(|k| k.starts_with("(*github.com/acme/shipd/internal/store.")),
        "store methods are nodes"
    );
}

#[test]
fn unknown_and_ambiguous_names_exit_2_with_candidates() {
    let demo = demo();
    let (code, _, err) = ripple(&["--repo", &demo, "show", "validate_tokn"]);
    assert_eq!(code, 2);
    assert!(err.contains("validate_token"), "{err}");
    let v = {
        let (code, out, _) = ripple(&["--repo", &demo, "show", "__init__", "--json"]);
        assert_eq!(code, 2);
        serde_json::from_str::<Value>(&out).unwrap()
    };
    assert_eq!(v["error"]["kind"], "ambiguous");
    assert!(v["error"]["candidates"].as_array().unwrap().len() > 1);
}

#[test]
fn an_external_callee_has_callers_and_a_blast_radius() {
    // "Who calls this library function" is the first question of a
    // migration off it.
    let demo = demo();
    let c = json(&["--repo", &demo, "callers", "hashlib.pbkdf2_hmac", "--json"]);
    assert_eq!(c["root"]["name"], "hashlib.pbkdf2_hmac");
    assert_eq!(c["root"]["kind"], "external");
    let names = first_hop_names(&c);
    assert_eq!(
        names,
        [
            "shop.auth.passwords.hash_password",
            "shop.auth.passwords.verify_password"
        ]
    );
    let b = json(&["--repo", &demo, "blast", "pbkdf2_hmac", "--json"]);
    assert!(b["total"]["total"].as_u64().unwrap() > 2);
    assert!(!b["tests"].as_array().unwrap().is_empty());
    let (code, out, _) = ripple(&["--repo", &demo, "show", "json.dumps"]);
    assert_eq!(code, 0);
    assert!(out.contains("outside the repository"), "{out}");
}

#[test]
fn bench_measures_edit_refreshes_in_new_processes_without_touching_the_repo() {
    let demo = demo();
    let before = common::tree_contents(std::path::Path::new(&demo));
    let report = json(&["bench", &demo, "--runs", "1", "--json"]);
    assert_eq!(report["one_file_measured"], "new process");
    assert!(report["declarations"].as_u64().unwrap() > 0);
    for row in [
        "cold_index_ms",
        "no_change_refresh_ms",
        "one_file_changed_ms",
        "one_file_comment_ms",
    ] {
        assert!(report[row].as_f64().unwrap() > 0.0, "{row} is not measured");
    }
    assert!(report["blast_depth3_callers"].as_u64().unwrap() > 0);
    let after = common::tree_contents(std::path::Path::new(&demo));
    assert!(
        before == after,
        "the bench edits a copy, never the repository"
    );
}

#[test]
fn a_missing_path_is_a_clear_error() {
    let (code, _, err) = ripple(&["--repo", "/definitely/not/here", "index"]);
    assert_eq!(code, 1);
    assert!(err.contains("does not exist"), "{err}");
}

#[test]
fn python_chains_thousands_deep_resolve_without_overflowing_the_stack() {
    // Generated tables and benchmarks hold expressions like these (sympy's
    // solver benchmarks: 165 sums of a thousand terms). Resolution walks
    // them recursively; before its nesting was bounded, 6,000 terms
    // overflowed the stack and aborted the process.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let sum = "a +\n        ".repeat(20_000);
    let nested = format!("{}x{}", "g(\n".repeat(20_000), ")".repeat(20_000));
    let source = format!(
        "class B:\n    def __add__(self, other):\n        return self\n\n\n\
         def g(x):\n    return x\n\n\n\
         def f(a, x):\n    total = ({sum}a)\n    deep = ({nested})\n    return total, deep\n\n\n\
         f(B(), 1)\n"
    );
    std::fs::write(root.join("main.py"), source).unwrap();
    let (code, out, err) = ripple(&[
        "--repo",
        root.to_str().unwrap(),
        "edges",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let edges: Value = serde_json::from_str(&out).unwrap();
    let callees: Vec<&str> = edges["main.f"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert_eq!(callees, ["main.B.__add__", "main.g"]);
}

#[test]
fn hostile_files_are_skipped_or_indexed_and_the_run_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("binary.py"), b"\x00\x01\x02 not python").unwrap();
    std::fs::write(
        root.join("latin1.py"),
        b"def caf\xe9():\n    pass\ndef ok():\n    caf()\n",
    )
    .unwrap();
    std::fs::write(root.join("empty.py"), b"").unwrap();
    std::fs::write(
        root.join("broken.py"),
        b"def broken(:\n    pass\ndef fine():\n    pass\n",
    )
    .unwrap();
    std::fs::write(
        root.join("py2.py"),
        b"print 'hello'\nexec 'x = 1'\ndef still_here():\n    pass\n",
    )
    .unwrap();
    let deep = format!("x = {}1{}\n", "(".repeat(3000), ")".repeat(3000));
    std::fs::write(root.join("deep.py"), deep).unwrap();
    let concat = format!(
        "package z\n\nconst s = {}\"end\"\n",
        "\"a\" +\n".repeat(7000)
    );
    std::fs::write(root.join("zipdata.go"), concat).unwrap();
    // Types defined through each other (which Go rejects) behind an
    // interface call, ranged over, copied and called as receivers:
    // tracing what reaches them must end.
    std::fs::write(
        root.join("cycle.go"),
        b"package z

type I interface{ M() }
type A B
type B A
type C []C
          type x struct{}

func (x) M() {}

type y struct{}

func (y) M() {}

          func use(i I) { i.M() }

func run() { var a A; var c C; use(a); use(c); use(x{}) }

type Ch chan Ch
type F func() F

func (f F) Call() F { return f() }

func more(ch Ch, c C, a A) {
	for v := range ch { for w := range v { _ = w } }
	copy(c, c)
	var f F
	f.Call().Call()()
	_ = interface{}(a).(A)
}
",
    )
    .unwrap();
    std::fs::write(root.join("big.py"), vec![b'#'; 3 * 1024 * 1024]).unwrap();
    std::fs::write(
        root.join("gen.go"),
        b"// Code generated by tool. DO NOT EDIT.\npackage z\n",
    )
    .unwrap();
    // A generator run with `go run`, in no build.
    std::fs::write(
        root.join("gen_tables.go"),
        b"//go:build ignore\n\npackage main\n\nfunc main() {}\n",
    )
    .unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(root, root.join("loop")).unwrap();
    let v = json(&["--repo", root.to_str().unwrap(), "index", "--json"]);
    let skipped: Vec<(String, String)> = v["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["path"].as_str().unwrap().to_owned(),
                s["reason"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert!(
        skipped.contains(&("binary.py".into(), "binary".into())),
        "{skipped:?}"
    );
    assert!(
        skipped.contains(&("big.py".into(), "too_large".into())),
        "{skipped:?}"
    );
    // Generated code is indexed (and counted), not skipped.
    assert!(
        !skipped.iter().any(|(path, _)| path == "gen.go"),
        "{skipped:?}"
    );
    assert_eq!(v["generated_files"], 1, "{v}");
    assert!(
        skipped.contains(&("gen_tables.go".into(), "go_build_constraint".into())),
        "{skipped:?}"
    );
    assert!(v["files"].as_u64().unwrap() >= 5);
    assert!(
        v["syntax_errors"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["path"] == "broken.py")
    );
    let (code, _, _) = ripple(&["--repo", root.to_str().unwrap(), "show", "fine"]);
    assert_eq!(code, 0);
    let (code, _, _) = ripple(&["--repo", root.to_str().unwrap(), "show", "still_here"]);
    assert_eq!(code, 0);
    let (code, _, _) = ripple(&["--repo", root.to_str().unwrap(), "callees", "use"]);
    assert_eq!(code, 0);
}

#[test]
fn refresh_reparses_only_what_changed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(
        root.join("a.py"),
        "def a():\n    b()\n\ndef b():\n    pass\n",
    )
    .unwrap();
    std::fs::write(root.join("c.py"), "def c():\n    pass\n").unwrap();
    let first = json(&["--repo", root.to_str().unwrap(), "index", "--json"]);
    assert_eq!(first["parsed"], 2);
    let again = json(&["--repo", root.to_str().unwrap(), "index", "--json"]);
    assert_eq!(again["parsed"], 0);
    std::fs::write(root.join("c.py"), "def c():\n    return 1\n").unwrap();
    let changed = json(&["--repo", root.to_str().unwrap(), "index", "--json"]);
    assert_eq!(changed["parsed"], 1);
    std::fs::remove_file(root.join("a.py")).unwrap();
    let removed = json(&["--repo", root.to_str().unwrap(), "index", "--json"]);
    assert_eq!(removed["removed"], 1);
    assert_eq!(removed["files"], 1);
}

#[test]
fn review_dry_run_prints_one_json_plan_and_a_real_review_needs_a_provider() {
    let demo = demo();
    let plan = json(&["review", &demo, "--dry-run", "--json", "--budget", "4000"]);
    let chunks = plan["chunks"].as_array().unwrap();
    assert!(chunks.len() >= 2);
    for c in chunks {
        assert!(c["tokens"].as_u64().unwrap() <= 4000);
        assert!(!c["files"].as_array().unwrap().is_empty());
        assert!(c["files"][0]["path"].is_string());
        assert!(!c["reason"].as_str().unwrap().is_empty());
    }
    let skipped = plan["skipped"].as_array().unwrap();
    assert!(
        skipped
            .iter()
            .all(|s| s["file"].is_string() && s["reason"].is_string())
    );
    assert!(plan["totals"]["files_reviewed"].as_u64().unwrap() > 50);
    assert_eq!(plan["cost_estimate"]["approximate"], true);

    let (code, out, _) = ripple(&["review", &demo, "--dry-run"]);
    assert_eq!(code, 0);
    assert!(out.contains("chunk    1") && out.contains("why: "), "{out}");
    assert!(out.contains("no model called"), "{out}");

    // A real review needs a provider key: the error names the variable to set.
    let out = Command::new(env!("CARGO_BIN_EXE_ripple"))
        .args(["review", &demo, "--provider", "anthropic"])
        .env_remove("ANTHROPIC_API_KEY")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("ANTHROPIC_API_KEY"), "{err}");
    let (code, _, err) = ripple(&["review", &demo, "--dry-run", "--format", "sarif"]);
    assert_eq!(code, 1);
    assert!(err.contains("no findings"), "{err}");
}

#[test]
fn a_call_through_a_value_set_past_its_cap_is_listed_as_unresolved() {
    // Twelve functions and eight instances flow into one parameter: past
    // the cap of 16 mixed values, the set may hold anything. Keeping some
    // of them would keep whichever came first, so the call draws no edge
    // and is listed among the unresolved with why, and a blast radius
    // through it says it may be a lower bound.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let mut source = String::new();
    for i in 0..12 {
        source.push_str(&format!("def f{i}():\n    return {i}\n\n\n"));
    }
    for i in 0..8 {
        source.push_str(&format!("class C{i}:\n    pass\n\n\n"));
    }
    source.push_str("def use(x):\n    return x()\n\n\n");
    for i in 0..12 {
        source.push_str(&format!("use(f{i})\n"));
    }
    for i in 0..8 {
        source.push_str(&format!("use(C{i}())\n"));
    }
    std::fs::write(root.join("main.py"), source).unwrap();
    let repo = root.to_str().unwrap();
    let listed = json(&["--repo", repo, "unresolved", "--json"]);
    let calls = listed["calls"].as_array().unwrap();
    let site = calls
        .iter()
        .find(|c| c["text"] == "x")
        .unwrap_or_else(|| panic!("x() not listed: {listed}"));
    assert!(
        site["reason"]
            .as_str()
            .unwrap()
            .contains("more values than are kept"),
        "{site}"
    );
    let (code, out, err) = ripple(&["--repo", repo, "edges", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let edges: Value = serde_json::from_str(&out).unwrap();
    assert!(edges["main.use"].as_array().unwrap().is_empty(), "{out}");
}

#[test]
fn a_function_passed_to_code_outside_the_repository_makes_its_blast_radius_a_lower_bound() {
    // `worker` is only ever called by threading and by an executor: its
    // blast radius has no callers, and says where it was handed out.
    // `functools.wraps(fn)` takes a function without calling it, so the
    // decorated `helper` keeps a complete answer.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(
        root.join("main.py"),
        "import functools\nimport threading\n\n\n\
         def worker(n):\n    return n\n\n\n\
         def spawn(pool):\n    threading.Thread(target=worker, args=(1,)).start()\n    pool.submit(worker, 2)\n\n\n\
         def logged(fn):\n    @functools.wraps(fn)\n    def inner(*a):\n        return fn(*a)\n    return inner\n\n\n\
         @logged\ndef helper():\n    return 1\n\n\n\
         def main():\n    return helper()\n",
    )
    .unwrap();
    let repo = root.to_str().unwrap();
    let blast = json(&["--repo", repo, "blast", "worker", "--json"]);
    assert_eq!(blast["lower_bound"], true, "{blast}");
    let sites: Vec<(&str, u64)> = blast["handed_out"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["text"].as_str().unwrap(), h["line"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        sites,
        [("threading.Thread", 10), ("pool.submit", 11)],
        "{blast}"
    );
    let helper = json(&["--repo", repo, "blast", "helper", "--json"]);
    assert_eq!(
        helper["handed_out"].as_array().unwrap().len(),
        0,
        "{helper}"
    );
    let (code, text, err) = ripple(&["--repo", repo, "blast", "worker"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains("passed to code ripple does not follow"),
        "{text}"
    );
}

#[test]
fn a_go_function_passed_to_the_standard_library_is_a_likely_callee_and_listed_as_handed_out() {
    // net/http calls `handler`, sort.Slice calls the literal, t.Run the
    // subtest: the library's frames are not in the graph, so the function
    // that hands each over is its caller, and each blast radius says the
    // library may call it from elsewhere too.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("go.mod"), "module example.com/g1\n\ngo 1.21\n").unwrap();
    std::fs::write(
        root.join("main.go"),
        "package main\n\nimport (\n\t\"net/http\"\n\t\"sort\"\n)\n\n\
         func handler(w http.ResponseWriter, r *http.Request) {}\n\n\
         func byLen(xs []string) {\n\tsort.Slice(xs, func(i, j int) bool { return len(xs[i]) < len(xs[j]) })\n}\n\n\
         func helper() int { return 1 }\n\n\
         func main() {\n\thttp.HandleFunc(\"/\", handler)\n\tbyLen(nil)\n\t_ = helper()\n}\n",
    )
    .unwrap();
    std::fs::write(
        root.join("main_test.go"),
        "package main\n\nimport \"testing\"\n\n\
         func TestHelper(t *testing.T) {\n\tt.Run(\"one\", func(t *testing.T) {\n\t\thelper()\n\t})\n}\n",
    )
    .unwrap();
    let repo = root.to_str().unwrap();
    let callers = json(&["--repo", repo, "callers", "handler", "--json"]);
    let first = &callers["hops"][0]["decls"][0];
    assert_eq!(first["name"], "example.com/g1.main", "{callers}");
    assert_eq!(first["confidence"], "Likely", "{callers}");
    let tests = json(&["--repo", repo, "tests", "helper", "--json"]);
    let names: Vec<&str> = tests["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["example.com/g1.TestHelper"], "{tests}");
    let sites = |name: &str| -> Vec<(String, u64)> {
        let blast = json(&["--repo", repo, "blast", name, "--json"]);
        blast["handed_out"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| {
                (
                    h["text"].as_str().unwrap().to_owned(),
                    h["line"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(sites("handler"), [("http.HandleFunc".to_owned(), 17)]);
    assert_eq!(sites("byLen$1"), [("sort.Slice".to_owned(), 11)]);
    assert!(sites("helper").is_empty());
}

#[test]
fn go_source_tree_packages_are_named_by_their_import_paths() {
    // Go's own `src/go.mod` says `module std`, and its packages are
    // imported as `errors`, `fmt`: named `std/errors`, a call from `fmt`
    // to `errors.New` reached the standard library's external leaf
    // instead of the declaration beside it.
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    for pkg in ["errors", "fmt"] {
        std::fs::create_dir_all(src.join(pkg)).unwrap();
    }
    std::fs::write(src.join("go.mod"), "module std\n\ngo 1.19\n").unwrap();
    std::fs::write(
        src.join("errors/errors.go"),
        "package errors\n\ntype errorString struct{ s string }\n\n\
         func (e *errorString) Error() string { return e.s }\n\n\
         func New(text string) error { return &errorString{text} }\n",
    )
    .unwrap();
    std::fs::write(
        src.join("fmt/errors.go"),
        "package fmt\n\nimport \"errors\"\n\n\
         func Errorf(format string) error {\n\terr := errors.New(format)\n\t_ = err.Error()\n\treturn err\n}\n",
    )
    .unwrap();
    let edges = json(&[
        "--repo",
        dir.path().to_str().unwrap(),
        "edges",
        "--format",
        "json",
    ]);
    assert_eq!(
        edges["fmt.Errorf"],
        serde_json::json!(["(*errors.errorString).Error", "errors.New"])
    );
    assert!(edges.get("std/errors.New").is_none(), "{edges}");
}

#[test]
fn a_blast_radius_shows_call_lines_and_missing_callers_that_follow_comment_edits() {
    // Lines come from the resolved graph, not from each file's facts: a
    // comment added above must move them although the graph is reused.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let body = "def save():\n    return 1\n\n\n\
                def a():\n    x = 1\n    return save()\n\n\n\
                def b(conn):\n    return conn.store.save()\n\n\n\
                def c(conn):\n    return conn.load()\n";
    std::fs::write(root.join("m.py"), body).unwrap();
    let repo = root.to_str().unwrap();
    let lines = |blast: &Value| {
        let hop1 = &blast["hops"][0]["decls"][0];
        let missing: Vec<(String, u64, String)> = blast["possibly_missing_callers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                (
                    m["caller"].as_str().unwrap().to_owned(),
                    m["line"].as_u64().unwrap(),
                    m["text"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        (
            hop1["name"].as_str().unwrap().to_owned(),
            hop1["call_line"].as_u64().unwrap(),
            missing,
        )
    };
    let before = json(&["--repo", repo, "blast", "save", "--json"]);
    assert_eq!(
        lines(&before),
        (
            "m.a".to_owned(),
            7,
            vec![("m.b".to_owned(), 11, "conn.store.save".to_owned())]
        ),
        "{before}"
    );
    std::fs::write(root.join("m.py"), format!("# one\n# two\n{body}")).unwrap();
    let after = json(&["--repo", repo, "blast", "save", "--json"]);
    assert_eq!(
        lines(&after),
        (
            "m.a".to_owned(),
            9,
            vec![("m.b".to_owned(), 13, "conn.store.save".to_owned())]
        ),
        "{after}"
    );
}

#[cfg(unix)]
#[test]
fn index_refuses_a_symlinked_ripple_dir_and_writes_nothing_behind_it() {
    let repo = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(repo.path().join("m.py"), "def f():\n    pass\n").unwrap();
    std::os::unix::fs::symlink(outside.path(), repo.path().join(".ripple")).unwrap();
    let (code, out, err) = ripple(&["--repo", repo.path().to_str().unwrap(), "index"]);
    assert_ne!(code, 0, "{out}");
    assert!(err.contains(".ripple is a symlink"), "{err}");
    assert!(err.contains("remove the link"), "{err}");
    assert_eq!(
        std::fs::read_dir(outside.path()).unwrap().count(),
        0,
        "ripple wrote through the link"
    );

    // A real .ripple whose database is a link is refused the same way.
    std::fs::remove_file(repo.path().join(".ripple")).unwrap();
    std::fs::create_dir(repo.path().join(".ripple")).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("index.db"),
        repo.path().join(".ripple/index.db"),
    )
    .unwrap();
    let (code, _, err) = ripple(&["--repo", repo.path().to_str().unwrap(), "index"]);
    assert_ne!(code, 0);
    assert!(err.contains("index.db is a symlink"), "{err}");
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
}

#[test]
fn unknown_ripple_toml_keys_are_warned_about_once() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("m.py"), "def f():\n    return 1\n").unwrap();
    std::fs::write(
        tmp.path().join("ripple.toml"),
        "[context]\nsimlar = 2\n\n[conventions]\nstable = []\n",
    )
    .unwrap();
    let repo = tmp.path().to_str().unwrap();
    let (code, _, err) = ripple(&["--repo", repo, "context", "f"]);
    assert_eq!(code, 0, "{err}");
    let warning = "ripple.toml: unknown key [context] simlar (known: similar)";
    assert_eq!(err.matches(warning).count(), 1, "{err}");
    // A file with only known keys says nothing.
    std::fs::write(tmp.path().join("ripple.toml"), "[context]\nsimilar = 1\n").unwrap();
    let (code, _, err) = ripple(&["--repo", repo, "context", "f"]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("unknown"), "{err}");
}

#[test]
fn index_json_lists_a_virtual_environment_and_indexes_a_package_named_venv() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("venv")).unwrap();
    std::fs::write(root.join("venv/__init__.py"), "class EnvBuilder: pass\n").unwrap();
    std::fs::create_dir_all(root.join("env/lib")).unwrap();
    std::fs::write(root.join("env/pyvenv.cfg"), "home = /usr/bin\n").unwrap();
    std::fs::write(root.join("env/lib/six.py"), "x = 1\n").unwrap();
    let v = json(&["--repo", root.to_str().unwrap(), "index", "--json"]);
    assert_eq!(v["files"], 1, "{v}");
    let skipped = v["skipped"].as_array().unwrap();
    assert!(
        skipped
            .iter()
            .any(|s| s["path"] == "env/" && s["reason"] == "virtual_env"),
        "{skipped:?}"
    );
    let (code, out, err) = ripple(&["--repo", root.to_str().unwrap(), "show", "EnvBuilder"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("venv/__init__.py"), "{out}");
}

#[test]
fn depth_zero_and_edges_dot_with_json_are_refused_with_a_reason() {
    let demo = demo();
    let (code, _, err) = ripple(&["--repo", &demo, "blast", "validate_token", "--depth", "0"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("starts at 1"), "{err}");
    let (code, out, _) = ripple(&["--repo", &demo, "edges", "--format", "dot", "--json"]);
    assert_eq!(code, 2, "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["error"]["kind"], "usage");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("--format dot"),
        "{v}"
    );
}

#[test]
fn path_with_json_prints_the_overview() {
    let v = json(&[&demo(), "--json"]);
    assert!(v["index"]["files"].as_u64().unwrap() > 10, "{v}");
    let hot = v["hotspots"].as_array().unwrap();
    assert!(!hot.is_empty());
    assert!(hot[0]["callers"].as_u64().unwrap() > 0, "{v}");
    assert!(hot[0]["name"].is_string());
    assert!(v["import_cycles"].is_array());
}

#[test]
fn help_lists_model_dir_only_where_it_is_used_and_explains_every_argument() {
    let help = |args: &[&str]| {
        let (code, out, err) = ripple(args);
        assert_eq!(code, 0, "{err}");
        out
    };
    assert!(!help(&["undo", "--help"]).contains("--model-dir"));
    assert!(!help(&["hook", "--help"]).contains("--model-dir"));
    assert!(help(&["search", "--help"]).contains("--model-dir"));
    assert!(help(&["similar", "--help"]).contains("--model-dir"));
    let context = help(&["context", "--help"]);
    assert!(context.contains("unique dotted suffix"), "{context}");
    assert!(context.contains("12000]"), "{context}");
    assert!(help(&["find", "--help"]).contains("matched fuzzily"));
    assert!(help(&["blast", "--help"]).contains("1: direct callers only"));
    assert!(help(&["migrate", "--help"]).contains("Model id"));
}

#[test]
fn undo_into_a_closed_pipe_ends_quietly() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("demo");
    common::copy_dir(std::path::Path::new(&demo()), &repo);
    let repo = repo.to_str().unwrap();
    let (code, _, err) = ripple(&[
        "--repo",
        repo,
        "refactor",
        "rename",
        "validate_token",
        "check_token",
        "--apply",
    ]);
    assert_eq!(code, 0, "{err}");
    // The reader is gone before ripple writes a byte, as with `| head -0`.
    let mut child = Command::new(env!("CARGO_BIN_EXE_ripple"))
        .args(["--repo", repo, "undo"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run ripple");
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(out.status.code(), Some(0), "{err}");
}

#[test]
fn several_python_targets_known_through_flow_are_likely_and_overrides_reached_through_self_possible()
 {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(
        root.join("shapes.py"),
        "class Base:\n    def run(self):\n        return self.step()\n\n    def step(self):\n        return 0\n\n\
         class Fast(Base):\n    def step(self):\n        return 1\n\n\
         class Circle:\n    def area(self):\n        return 3\n\n\
         class Square:\n    def area(self):\n        return 4\n\n\
         def on_a():\n    return 'a'\n\n\
         def on_b():\n    return 'b'\n\n\
         def measure(big):\n    shape = Circle() if big else Square()\n    return shape.area()\n\n\
         def dispatch(first):\n    handler = on_a if first else on_b\n    return handler()\n",
    )
    .unwrap();
    let repo = root.to_str().unwrap();
    let callees = |name: &str| {
        let doc = json(&["--repo", repo, "callees", name, "--json"]);
        let mut found: Vec<(String, String)> = doc["hops"][0]["decls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                (
                    d["name"].as_str().unwrap().to_owned(),
                    d["confidence"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        found.sort();
        found
    };
    let pair = |n: &str, c: &str| (n.to_owned(), c.to_owned());
    assert_eq!(
        callees("shapes.measure"),
        [
            pair("shapes.Circle.area", "Likely"),
            pair("shapes.Square.area", "Likely"),
        ]
    );
    assert_eq!(
        callees("shapes.dispatch"),
        [pair("shapes.on_a", "Likely"), pair("shapes.on_b", "Likely")]
    );
    assert_eq!(
        callees("shapes.Base.run"),
        [
            pair("shapes.Base.step", "Likely"),
            pair("shapes.Fast.step", "Possible"),
        ]
    );
}

#[test]
fn a_python_call_on_self_with_one_target_is_certain_and_one_on_an_attribute_of_self_likely() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(
        root.join("runner.py"),
        concat!(
            "class Loop:\n",
            "    def tick(self):\n",
            "        return 1\n\n",
            "class Runner:\n",
            "    def __init__(self):\n",
            "        self.loop = Loop()\n\n",
            "    def go(self):\n",
            "        self.helper()\n",
            "        return self.loop.tick()\n\n",
            "    def helper(self):\n",
            "        return 2\n",
        ),
    )
    .unwrap();
    let repo = root.to_str().unwrap();
    let doc = json(&["--repo", repo, "callees", "runner.Runner.go", "--json"]);
    let mut found: Vec<(&str, &str)> = doc["hops"][0]["decls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["name"].as_str().unwrap(),
                d["confidence"].as_str().unwrap(),
            )
        })
        .collect();
    found.sort();
    assert_eq!(
        found,
        [
            ("runner.Loop.tick", "Likely"),
            ("runner.Runner.helper", "Certain")
        ]
    );
}

#[test]
fn implementations_a_singledispatch_call_may_run_are_possible() {
    // Which one runs is decided by the argument's type at run time.
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/python/decorators/singledispatch");
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture.join("main.py"), dir.path().join("main.py")).unwrap();
    let repo = dir.path().to_str().unwrap();
    let doc = json(&["--repo", repo, "callees", "main.show_list", "--json"]);
    let levels: Vec<(&str, &str)> = doc["hops"][0]["decls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["name"].as_str().unwrap(),
                d["confidence"].as_str().unwrap(),
            )
        })
        .filter(|(name, _)| name.starts_with("main."))
        .collect();
    assert_eq!(
        levels,
        [("main.show", "Possible"), ("main._", "Possible")],
        "{doc:#}"
    );
}

//! Review planning on the demo monolith and on fixture repositories: the
//! invariants a plan promises (every chunk within budget by the
//! tokenizer's count of its rendered prompt, every file reviewed exactly
//! once or skipped with a reason, tests with the module they test, parts
//! cut between declarations, most important first) and what the fences,
//! the total budget and `--diff` do.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use ripple::index::{Index, NoProgress};
use ripple::model::{DeclKind, FileId};
use ripple::review::diff::plan_diff;
use ripple::review::filegraph::{self, FileGraph};
use ripple::review::plan::{Mode, Plan, PlanOptions, plan_repository};
use ripple::review::scope::SkipKind;
use ripple::review::units::Lines;
use ripple::tokens::{self, TokenCount};

fn open(root: &Path) -> (tempfile::TempDir, Index) {
    let db = tempfile::tempdir().unwrap();
    let index = Index::open_with(root, Some(&db.path().join("index.db")), &NoProgress).unwrap();
    (db, index)
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(name)
}

fn opts(budget: u64) -> PlanOptions {
    PlanOptions {
        budget: TokenCount(budget),
        total_budget: None,
    }
}

/// The invariants every whole-repository plan must hold.
fn check_invariants(index: &Index, plan: &Plan) {
    // Within budget, by the tokenizer's count of what would be sent.
    for c in &plan.chunks {
        let prompt = plan.prompt(c).unwrap();
        assert_eq!(
            tokens::count(&prompt),
            c.tokens,
            "chunk {} count is not the prompt's",
            c.id
        );
        assert!(c.tokens <= plan.budget, "chunk {} over budget", c.id);
    }
    // Every file: reviewed exactly once (parts tile it, minus skipped
    // ranges), or skipped whole with a reason — never both, never neither.
    let mut shown: BTreeMap<&str, Vec<Lines>> = BTreeMap::new();
    for c in &plan.chunks {
        for f in &c.files {
            shown
                .entry(f.path.as_str())
                .or_default()
                .extend(f.lines.iter().copied());
        }
    }
    let mut skipped_whole: HashSet<&str> = HashSet::new();
    let mut skipped_ranges: HashMap<&str, Vec<Lines>> = HashMap::new();
    for s in &plan.skipped {
        match s.lines {
            None => assert!(
                skipped_whole.insert(s.file.as_str()),
                "{} skipped twice",
                s.file
            ),
            Some((a, b)) => skipped_ranges
                .entry(s.file.as_str())
                .or_default()
                .push(Lines::new(a, b)),
        }
    }
    let all: Vec<String> = index
        .files
        .iter()
        .map(|f| f.path.clone())
        .chain(ripple::inventory::scan(&index.root).other)
        .collect();
    for path in &all {
        let reviewed = shown.get(path.as_str());
        let whole_skip = skipped_whole.contains(path.as_str());
        assert!(
            reviewed.is_some() != whole_skip,
            "{path}: reviewed {reviewed:?}, skipped {whole_skip}"
        );
        if let Some(ranges) = reviewed {
            let bytes = std::fs::read(index.root.join(path)).unwrap();
            let n = ripple::review::units::FileText::from_bytes(&bytes).len();
            let mut covered: Vec<Lines> = ranges.clone();
            covered.extend(skipped_ranges.get(path.as_str()).into_iter().flatten());
            covered.sort();
            let mut next = 1;
            for r in covered {
                assert_eq!(
                    r.start, next,
                    "{path}: gap or overlap before line {}",
                    r.start
                );
                next = r.end + 1;
            }
            assert_eq!(next, n + 1, "{path}: lines after {next} not covered");
        }
    }
    assert_eq!(
        plan.totals.files_inventoried,
        plan.totals.files_reviewed + plan.totals.files_skipped
    );
    // Parts are cut between functions, never inside one.
    for c in &plan.chunks {
        for f in c.files.iter().filter(|f| f.part.is_some()) {
            let facts = &index.files[f.file.index()].facts();
            for r in &f.lines {
                for d in facts
                    .decls
                    .iter()
                    .filter(|d| matches!(d.kind, DeclKind::Function | DeclKind::Method))
                {
                    let (s, e) = (d.span.start_line, d.span.end_line);
                    assert!(
                        !((s < r.start && r.start <= e) || (s <= r.end && r.end < e)),
                        "{} part {r} cuts {}",
                        f.path,
                        d.local_name
                    );
                }
            }
        }
    }
    // A test file and the module it tests share a chunk whenever both fit.
    let graph = FileGraph::build(index);
    let files: Vec<FileId> = (0..index.files.len()).map(FileId::new).collect();
    let chunk_of: HashMap<&str, usize> = plan
        .chunks
        .iter()
        .flat_map(|c| {
            c.files
                .iter()
                .filter(|f| f.part.is_none())
                .map(move |f| (f.path.as_str(), c.id))
        })
        .collect();
    let unit_tokens = |path: &str| -> u64 {
        let c = plan
            .chunks
            .iter()
            .find(|c| c.files.iter().any(|f| f.path == path))
            .unwrap();
        let f = c.files.iter().find(|f| f.path == path).unwrap();
        let text = std::fs::read(index.root.join(path)).unwrap();
        let text = ripple::review::units::FileText::from_bytes(&text);
        tokens::count(&ripple::review::units::render_unit(&text, path, &f.lines)).get()
    };
    for (t, m) in filegraph::test_pairs(index, &graph, &files) {
        let (tp, mp) = (&index.files[t.index()].path, &index.files[m.index()].path);
        let (Some(ct), Some(cm)) = (chunk_of.get(tp.as_str()), chunk_of.get(mp.as_str())) else {
            continue;
        };
        if unit_tokens(tp) + unit_tokens(mp) <= plan.totals.code_room.get() {
            assert_eq!(ct, cm, "{tp} and {mp} fit together but are apart");
        }
    }
    // Most important first.
    for w in plan.chunks.windows(2) {
        assert!(w[0].score >= w[1].score);
    }
}

#[test]
fn the_demo_plan_keeps_every_invariant_at_several_budgets() {
    let (_db, index) = open(&fixture("assets/demo"));
    for budget in [8000, 3000, 1500] {
        let plan = plan_repository(&index, &opts(budget)).unwrap();
        check_invariants(&index, &plan);
        assert_eq!(
            plan.totals.files_reviewed,
            index.files.len() - 1,
            "one empty file"
        );
    }
    let plan = plan_repository(&index, &opts(8000)).unwrap();
    let chunk_with = |p: &str| {
        plan.chunks
            .iter()
            .find(|c| c.files.iter().any(|f| f.path == p))
            .map(|c| c.id)
    };
    assert_eq!(
        chunk_with("internal/auth/token_test.go"),
        chunk_with("internal/auth/token.go")
    );
    assert!(plan.chunks.iter().all(|c| !c.reason.is_empty()));
    assert!(plan.chunks.iter().any(|c| c.context_signatures > 0));
}

#[test]
fn fences_secrets_and_other_languages_are_listed_with_their_reason() {
    let (_db, index) = open(&fixture("tests/fixtures/review/py"));
    let plan = plan_repository(&index, &opts(8000)).unwrap();
    check_invariants(&index, &plan);
    let reason = |p: &str| plan.skipped.iter().find(|s| s.file == p).map(|s| s.reason);
    assert_eq!(reason(".env"), Some(SkipKind::Secret));
    assert_eq!(reason("app/settings_prod.py"), Some(SkipKind::Secret));
    assert_eq!(reason("legacy/old.py"), Some(SkipKind::OffLimits));
    assert_eq!(reason("app/core/vault.py"), Some(SkipKind::OffLimits));
    assert_eq!(reason("README.md"), Some(SkipKind::LanguageNotReviewed));
    assert_eq!(reason("app/__init__.py"), Some(SkipKind::Empty));
    // Each fenced file names the ripple.toml entry that fenced it.
    let detail = |p: &str| {
        plan.skipped
            .iter()
            .find(|s| s.file == p)
            .and_then(|s| s.detail.clone())
    };
    assert_eq!(detail(".env").as_deref(), Some("matches `.env`"));
    assert_eq!(
        detail("app/settings_prod.py").as_deref(),
        Some("matches `app/settings_prod.py`")
    );
    assert_eq!(
        detail("legacy/old.py").as_deref(),
        Some("matches `legacy/**`")
    );
    assert_eq!(
        detail("app/core/vault.py").as_deref(),
        Some("contains off-limits `symbol:app.core.vault.unseal`")
    );
    let sent: String = plan
        .chunks
        .iter()
        .map(|c| plan.prompt(c).unwrap())
        .collect();
    for secret in ["not-a-real-key", "fixture-only", "def unseal", "def old"] {
        assert!(!sent.contains(secret), "{secret} was sent");
    }
    // The tests sit with the modules they test.
    let together = |a: &str, b: &str| {
        plan.chunks
            .iter()
            .any(|c| c.files.iter().any(|f| f.path == a) && c.files.iter().any(|f| f.path == b))
    };
    assert!(together("tests/test_orders.py", "app/core/orders.py"));
    assert!(together("tests/test_money.py", "app/core/money.py"));
}

#[test]
fn a_ripple_toml_migrate_would_reject_stops_the_review_too() {
    // One parser for both: a misspelt key would otherwise send the code it
    // meant to fence off.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("vault.py"), "def unseal():\n    return 1\n").unwrap();
    std::fs::write(
        dir.path().join("ripple.toml"),
        "[conventions]\noff-limits = [\"vault.py\"]\n",
    )
    .unwrap();
    let (_db, index) = open(dir.path());
    let err = plan_repository(&index, &opts(8000))
        .unwrap_err()
        .to_string();
    assert!(err.contains("ripple.toml:2"), "{err}");
    assert!(err.contains("off-limits"), "{err}");
}

#[test]
fn a_file_larger_than_the_budget_is_split_between_declarations() {
    let (_db, index) = open(&fixture("tests/fixtures/review/py"));
    let plan = plan_repository(&index, &opts(1400)).unwrap();
    check_invariants(&index, &plan);
    let parts: Vec<_> = plan
        .chunks
        .iter()
        .flat_map(|c| c.files.iter())
        .filter(|f| f.path == "app/reports.py")
        .collect();
    assert!(parts.len() >= 2, "reports.py should be split: {parts:?}");
    assert!(parts.iter().all(|p| p.part.is_some()));
    assert!(plan.totals.files_split >= 1);
    assert!(
        plan.chunks
            .iter()
            .any(|c| c.reason.contains("split at declaration boundaries"))
    );
}

#[test]
fn a_total_budget_covers_the_most_important_chunks_and_lists_the_rest() {
    let (_db, index) = open(&fixture("assets/demo"));
    let full = plan_repository(&index, &opts(3000)).unwrap();
    let total = full.chunks[0].tokens.get() + full.chunks[1].tokens.get() + 10;
    let plan = plan_repository(
        &index,
        &PlanOptions {
            budget: TokenCount(3000),
            total_budget: Some(TokenCount(total)),
        },
    )
    .unwrap();
    let covered: Vec<bool> = plan.chunks.iter().map(|c| c.covered).collect();
    assert_eq!(&covered[..2], &[true, true]);
    assert!(covered[2..].iter().all(|c| !c), "{covered:?}");
    assert!(plan.totals.tokens_covered.get() <= total);
    assert!(plan.totals.files_not_covered > 0);
}

#[test]
fn the_go_fixture_pairs_tests_by_go_naming() {
    let (_db, index) = open(&fixture("tests/fixtures/review/go"));
    let plan = plan_repository(&index, &opts(8000)).unwrap();
    check_invariants(&index, &plan);
    let c = plan
        .chunks
        .iter()
        .find(|c| {
            c.files
                .iter()
                .any(|f| f.path == "internal/calc/calc_test.go")
        })
        .unwrap();
    assert!(c.files.iter().any(|f| f.path == "internal/calc/calc.go"));
    assert!(
        c.reason
            .contains("internal/calc/calc_test.go tests internal/calc/calc.go")
    );
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn a_diff_review_sends_the_changed_declarations_and_lists_their_callers() {
    let repo = tempfile::tempdir().unwrap();
    copy_tree(&fixture("tests/fixtures/review/py"), repo.path());
    git(repo.path(), &["init", "-q"]);
    git(repo.path(), &["add", "-A"]);
    git(repo.path(), &["commit", "-qm", "base"]);
    let money = repo.path().join("app/core/money.py");
    let text = std::fs::read_to_string(&money).unwrap();
    std::fs::write(
        &money,
        text.replace("int(round(amount * 100))", "int(amount * 100)"),
    )
    .unwrap();
    std::fs::write(repo.path().join("README.md"), "changed\n").unwrap();
    let (_db, index) = open(repo.path());
    let plan = plan_diff(&index, "HEAD", &opts(8000)).unwrap();
    let Mode::Diff {
        changed_files,
        changed_declarations,
        callers_in_blast_radius,
        ..
    } = plan.mode
    else {
        panic!("not a diff plan");
    };
    assert_eq!((changed_files, changed_declarations), (2, 1));
    assert!(callers_in_blast_radius >= 2, "{callers_in_blast_radius}");
    let files: Vec<(&str, &[Lines])> = plan
        .chunks
        .iter()
        .flat_map(|c| {
            c.files
                .iter()
                .map(|f| (f.path.as_str(), f.lines.as_slice()))
        })
        .collect();
    assert_eq!(files, vec![("app/core/money.py", &[Lines::new(4, 5)][..])]);
    assert_eq!(
        plan.skipped
            .iter()
            .map(|s| (s.file.as_str(), s.reason))
            .collect::<Vec<_>>(),
        vec![("README.md", SkipKind::LanguageNotReviewed)]
    );
    let prompt = plan.prompt(&plan.chunks[0]).unwrap();
    assert!(prompt.contains("4|def to_cents(amount):"), "{prompt}");
    assert!(
        !prompt.contains("def from_cents"),
        "unchanged code was sent"
    );
    assert!(
        prompt.contains("app/core/orders.py:8"),
        "caller Order.total missing: {prompt}"
    );
    assert!(prompt.contains("calls to_cents at line"), "{prompt}");
    assert_eq!(tokens::count(&prompt), plan.chunks[0].tokens);
}

#[test]
fn a_diff_outside_git_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.py"), "def f():\n    pass\n").unwrap();
    let (_db, index) = open(dir.path());
    let err = plan_diff(&index, "HEAD", &opts(8000)).unwrap_err();
    assert!(
        err.to_string().contains("not inside a git repository"),
        "{err}"
    );
}

/// The bars on a large repository: `RIPPLE_REVIEW_REPO=PATH cargo test
/// --release --test review_plan -- --ignored --nocapture` (index it first).
#[test]
#[ignore]
fn large_repository_bars() {
    let root = std::env::var("RIPPLE_REVIEW_REPO")
        .unwrap_or_else(|_| "/root/.pyenv/versions/3.11.7/lib/python3.11".to_owned());
    let index = Index::open(Path::new(&root), &NoProgress).unwrap();
    let t = std::time::Instant::now();
    let plan = plan_repository(&index, &opts(8000)).unwrap();
    let planned = t.elapsed();
    check_invariants(&index, &plan);
    println!(
        "planned {} chunks of {} files in {:.2} s; all invariants hold ({:?})",
        plan.chunks.len(),
        plan.totals.files_reviewed,
        planned.as_secs_f64(),
        plan.timings_ms
    );
}

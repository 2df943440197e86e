//! Planning hunks on small repositories in temp dirs: each match rule, the
//! conflicts (ambiguous, overlapping, not found with a nearest region or
//! already applied), new files, and every refusal (outside the repository,
//! off-limits, secrets), plus stable marking from paths and symbols.

use std::fs;
use std::path::Path;

use ripple::conventions::Conventions;
use ripple::edits::{EditStreamParser, Hunk, MatchRule, Resolution, Snapshot, plan, render_hunk};

fn repo(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, content) in files {
        let p = dir.path().join(path);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, content).unwrap();
    }
    dir
}

fn plan_reply(root: &Path, reply: &str) -> Vec<Hunk> {
    let mut parser = EditStreamParser::new();
    let mut blocks = parser.push(reply);
    let summary = parser.finish();
    blocks.extend(summary.final_blocks);
    assert!(summary.discarded.is_empty(), "{:?}", summary.discarded);
    let conventions = Conventions::load(root).unwrap();
    plan(root, &Snapshot::new(), &blocks, &conventions)
}

fn block(path: &str, search: &str, replace: &str) -> String {
    format!("{path}\n```\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n```\n")
}

fn resolved(h: &Hunk) -> (usize, usize, MatchRule, bool, &str) {
    match &h.resolution {
        Resolution::Resolved {
            start_line,
            end_line,
            rule,
            stable,
            replacement,
            ..
        } => (*start_line, *end_line, *rule, *stable, replacement.as_str()),
        other => panic!("expected a resolved hunk, got {other:?}"),
    }
}

fn conflict(h: &Hunk) -> &str {
    match &h.resolution {
        Resolution::Conflict { reason, .. } => reason,
        other => panic!("expected a conflict, got {other:?}"),
    }
}

fn refused(h: &Hunk) -> &str {
    match &h.resolution {
        Resolution::Refused { reason } => reason,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

const USERS: &str = "import db\n\nclass Users:\n    def get(self, id):\n        return db.load(id)\n\n    def all(self):\n        return db.load_all()\n";

#[test]
fn each_match_rule_in_order() {
    let dir = repo(&[("users.py", USERS), ("ws.py", "x = 1   \ny = 2\n")]);
    let reply = [
        block("users.py", "import db\n", "import db\nimport log\n"),
        block("ws.py", "x = 1\n", "x = 10\n"),
        block(
            "users.py",
            "def all(self):\n    return db.load_all()\n",
            "def all(self):\n    return db.load_all(strict=True)\n",
        ),
        block(
            "users.py",
            "\n    def get(self, id):\n        return db.load(id)\n\n\n",
            "    def get(self, id):\n        return db.load(id, strict=True)\n",
        ),
    ]
    .concat();
    let hunks = plan_reply(dir.path(), &reply);
    assert_eq!(
        resolved(&hunks[0]),
        (1, 1, MatchRule::Exact, false, "import db\nimport log\n")
    );
    assert_eq!(
        resolved(&hunks[1]),
        (1, 1, MatchRule::TrailingWhitespace, false, "x = 10\n")
    );
    assert_eq!(
        resolved(&hunks[2]),
        (
            7,
            8,
            MatchRule::Indentation,
            false,
            "    def all(self):\n        return db.load_all(strict=True)\n"
        )
    );
    let (start, end, rule, _, _) = resolved(&hunks[3]);
    assert_eq!((start, end, rule), (4, 5, MatchRule::TrimmedBlankLines));
    assert_eq!(hunks[3].header(), "users.py:4-5 (blank edge lines ignored)");
}

#[test]
fn ambiguous_search_is_a_conflict_naming_every_place() {
    let dir = repo(&[("a.py", "x = 1\ny = 2\nx = 1\n")]);
    let hunks = plan_reply(dir.path(), &block("a.py", "x = 1\n", "x = 3\n"));
    let reason = conflict(&hunks[0]);
    assert!(
        reason.contains("matches 2 places") && reason.contains("lines 1, 3"),
        "{reason}"
    );
}

#[test]
fn overlapping_blocks_reject_the_later_one() {
    let dir = repo(&[("a.py", "a\nb\nc\nd\n")]);
    let reply = [
        block("a.py", "b\nc\n", "B\nC\n"),
        block("a.py", "c\nd\n", "C\nD\n"),
        block("a.py", "a\n", "A\n"),
    ]
    .concat();
    let hunks = plan_reply(dir.path(), &reply);
    assert!(hunks[0].is_resolved());
    assert!(
        conflict(&hunks[1]).contains("overlap block 1"),
        "{}",
        conflict(&hunks[1])
    );
    assert!(hunks[2].is_resolved(), "adjacent ranges do not overlap");
}

#[test]
fn not_found_offers_the_nearest_region_and_never_applies_it() {
    let dir = repo(&[("users.py", USERS)]);
    let hunks = plan_reply(
        dir.path(),
        &block(
            "users.py",
            "    def get(self, ident):\n        return db.load(ident)\n",
            "    def get(self, ident):\n        return db.fetch(ident)\n",
        ),
    );
    let Resolution::Conflict {
        nearest,
        already_applied,
        reason,
    } = &hunks[0].resolution
    else {
        panic!("{:?}", hunks[0].resolution)
    };
    assert!(!already_applied);
    assert!(reason.contains("not found"), "{reason}");
    let (line, lines) = nearest.as_ref().expect("a nearest region");
    assert_eq!(*line, 4);
    assert_eq!(
        lines,
        &["    def get(self, id):", "        return db.load(id)"]
    );
    let shown = render_hunk(&hunks[0]);
    assert!(
        shown.contains("nearest lines in the file, from line 4:"),
        "{shown}"
    );
}

#[test]
fn already_applied_edits_are_recognised() {
    let dir = repo(&[("users.py", USERS)]);
    let hunks = plan_reply(
        dir.path(),
        &block(
            "users.py",
            "        return db.load_everything()\n",
            "        return db.load_all()\n",
        ),
    );
    let Resolution::Conflict {
        already_applied,
        reason,
        ..
    } = &hunks[0].resolution
    else {
        panic!()
    };
    assert!(already_applied);
    assert!(reason.contains("already there"), "{reason}");
}

#[test]
fn empty_search_creates_only_missing_files() {
    let dir = repo(&[("a.py", "x\n")]);
    let reply = [
        block("pkg/new.py", "", "X = 1\n"),
        block("a.py", "", "y\n"),
        block("pkg/new.py", "", "again\n"),
    ]
    .concat();
    let hunks = plan_reply(dir.path(), &reply);
    assert_eq!(
        resolved(&hunks[0]),
        (1, 0, MatchRule::NewFile, false, "X = 1\n")
    );
    assert_eq!(hunks[0].header(), "pkg/new.py (new file)");
    assert!(
        conflict(&hunks[1]).contains("exists"),
        "{}",
        conflict(&hunks[1])
    );
    assert!(
        conflict(&hunks[2]).contains("already creates"),
        "{}",
        conflict(&hunks[2])
    );
    let hunks = plan_reply(dir.path(), &block("missing.py", "x\n", "y\n"));
    assert!(conflict(&hunks[0]).contains("does not exist"));
}

#[test]
fn paths_outside_the_repository_are_refused() {
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("victim.py"), "x = 1\n").unwrap();
    let dir = repo(&[("a.py", "x = 1\n")]);
    let abs = outside.path().join("victim.py");
    let reply = [
        block("../victim.py", "x = 1\n", "x = 2\n"),
        block(&abs.display().to_string(), "x = 1\n", "x = 2\n"),
        block("sub/../../victim.py", "x = 1\n", "x = 2\n"),
        block(".git/config", "", "evil\n"),
    ]
    .concat();
    let hunks = plan_reply(dir.path(), &reply);
    assert!(refused(&hunks[0]).contains(".."));
    assert!(refused(&hunks[1]).contains("absolute"));
    assert!(refused(&hunks[2]).contains(".."));
    assert!(refused(&hunks[3]).contains("internal"));
    assert_eq!(fs::read_to_string(&abs).unwrap(), "x = 1\n");
}

#[cfg(unix)]
#[test]
fn symlinks_escaping_the_root_are_refused() {
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("victim.py"), "x = 1\n").unwrap();
    let dir = repo(&[("a.py", "x = 1\n")]);
    std::os::unix::fs::symlink(outside.path(), dir.path().join("linked")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("victim.py"), dir.path().join("v.py")).unwrap();
    let reply = [
        block("linked/victim.py", "x = 1\n", "x = 2\n"),
        block("v.py", "x = 1\n", "x = 2\n"),
        block("linked/new.py", "", "x\n"),
    ]
    .concat();
    let hunks = plan_reply(dir.path(), &reply);
    for h in &hunks {
        assert!(
            refused(h).contains("outside the repository"),
            "{}",
            refused(h)
        );
    }
}

#[test]
fn off_limits_and_secret_files_are_refused() {
    let dir = repo(&[
        (
            "ripple.toml",
            "[conventions]\noff_limits = [\"legacy/**\", \"symbol:billing.charge\"]\nsecrets = [\"*.vault\"]\n",
        ),
        ("legacy/old.py", "x = 1\n"),
        (
            "billing.py",
            "def charge(amount):\n    return amount\n\n\ndef refund(amount):\n    return -amount\n",
        ),
        (".env", "TOKEN=abc\n"),
        ("conf/prod.vault", "k\n"),
    ]);
    let reply = [
        block("legacy/old.py", "x = 1\n", "x = 2\n"),
        block(".env", "TOKEN=abc\n", "TOKEN=xyz\n"),
        block("conf/prod.vault", "k\n", "j\n"),
        block("certs/new.pem", "", "-----BEGIN-----\n"),
        block(
            "billing.py",
            "    return amount\n",
            "    return amount * 2\n",
        ),
        block(
            "billing.py",
            "    return -amount\n",
            "    return -amount * 2\n",
        ),
    ]
    .concat();
    let hunks = plan_reply(dir.path(), &reply);
    assert!(refused(&hunks[0]).contains("off-limits"));
    for h in &hunks[1..4] {
        assert!(refused(h).contains("secret"), "{}", refused(h));
    }
    assert!(
        refused(&hunks[4]).contains("billing.charge"),
        "{}",
        refused(&hunks[4])
    );
    assert!(hunks[5].is_resolved(), "refund is not off-limits");
}

#[test]
fn stable_paths_and_symbols_are_marked() {
    let dir = repo(&[
        (
            "ripple.toml",
            "[conventions]\nstable = [\"api/**\", \"symbol:auth.validate\", \"symbol:store.DB.Save\"]\n",
        ),
        ("api/v1.py", "def route():\n    pass\n"),
        (
            "app/auth.py",
            "def validate(token):\n    return token\n\n\ndef helper():\n    return 1\n",
        ),
        (
            "store/db.go",
            "package store\n\ntype DB struct{}\n\nfunc (d *DB) Save() error {\n\treturn nil\n}\n\nfunc (d *DB) Load() error {\n\treturn nil\n}\n",
        ),
    ]);
    let reply = [
        block("api/v1.py", "    pass\n", "    return 1\n"),
        block(
            "app/auth.py",
            "    return token\n",
            "    return token.strip()\n",
        ),
        block("app/auth.py", "    return 1\n", "    return 2\n"),
        block(
            "store/db.go",
            "func (d *DB) Save() error {\n",
            "func (d *DB) Save(ctx context.Context) error {\n",
        ),
        block(
            "store/db.go",
            "func (d *DB) Load() error {\n",
            "func (d *DB) Load(ctx context.Context) error {\n",
        ),
        block("api/v2.py", "", "X = 1\n"),
    ]
    .concat();
    let hunks = plan_reply(dir.path(), &reply);
    let stable: Vec<bool> = hunks.iter().map(Hunk::is_stable).collect();
    assert_eq!(stable, [true, true, false, true, false, true]);
    let Resolution::Resolved { symbols, .. } = &hunks[1].resolution else {
        panic!()
    };
    assert_eq!(symbols, &["app.auth.validate"]);
    assert!(
        hunks[0].header().ends_with("(exact, stable)"),
        "{}",
        hunks[0].header()
    );
}

#[test]
fn hunk_ids_are_content_hashes() {
    let dir = repo(&[("a.py", "a\nb\n")]);
    let one = plan_reply(dir.path(), &block("a.py", "a\n", "A\n"));
    let same = plan_reply(dir.path(), &block("./a.py", "a\n", "A\n"));
    let other = plan_reply(dir.path(), &block("a.py", "a\n", "AA\n"));
    assert_eq!(one[0].id, same[0].id);
    assert_ne!(one[0].id, other[0].id);
    assert_eq!(one[0].id.as_str().len(), 16);
}

#[test]
fn the_snapshot_is_what_blocks_resolve_against() {
    let dir = repo(&[("a.py", "new\n")]);
    let mut snapshot = Snapshot::new();
    snapshot.insert("a.py", Some(b"old\n".to_vec()));
    let mut parser = EditStreamParser::new();
    let blocks = parser.push(&block("a.py", "old\n", "older\n"));
    let hunks = plan(dir.path(), &snapshot, &blocks, &Conventions::default());
    assert!(hunks[0].is_resolved());
    // …and applying notices the file moved on since.
    let err = ripple::edits::apply(
        dir.path(),
        &[&hunks[0]],
        &dir.path().join(".ripple/journal"),
    )
    .unwrap_err();
    assert!(err.to_string().contains("changed since"), "{err}");
}

#[test]
fn render_hunk_shows_a_diff_under_a_file_line_header() {
    let dir = repo(&[("users.py", USERS)]);
    let hunks = plan_reply(
        dir.path(),
        &block(
            "users.py",
            "    def all(self):\n        return db.load_all()\n",
            "    def all(self):\n        return db.load_all(strict=True)\n",
        ),
    );
    assert_eq!(
        render_hunk(&hunks[0]),
        "users.py:7-8 (exact)\n@@ -7,2 +7,2 @@\n     def all(self):\n-        return db.load_all()\n+        return db.load_all(strict=True)\n"
    );
}

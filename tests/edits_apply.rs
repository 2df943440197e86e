//! Applying hunks and undoing them on temp-dir repositories: bytes outside the
//! edited lines never change (CRLF, missing final newline, permissions), a
//! failed write leaves every file as it was, a stale file stops the batch, and
//! undo restores the exact previous bytes — or refuses when a file moved on.

use std::fs;
use std::path::{Path, PathBuf};

use ripple::conventions::Conventions;
use ripple::edits::{
    EditError, EditStreamParser, Hunk, Snapshot, apply, batches, default_journal_dir, plan,
    render_patch, syntax_errors_after, undo,
};
use ripple::model::Lang;

struct Repo {
    dir: tempfile::TempDir,
}

impl Repo {
    fn new(files: &[(&str, &[u8])]) -> Repo {
        let dir = tempfile::tempdir().unwrap();
        for (path, content) in files {
            let p = dir.path().join(path);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, content).unwrap();
        }
        Repo { dir }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn journal(&self) -> PathBuf {
        default_journal_dir(self.root())
    }

    fn read(&self, path: &str) -> Vec<u8> {
        fs::read(self.root().join(path)).unwrap()
    }

    fn plan(&self, reply: &str) -> Vec<Hunk> {
        let mut parser = EditStreamParser::new();
        let mut blocks = parser.push(reply);
        blocks.extend(parser.finish().final_blocks);
        let hunks = plan(
            self.root(),
            &Snapshot::new(),
            &blocks,
            &Conventions::load(self.root()).unwrap(),
        );
        for h in &hunks {
            assert!(h.is_resolved(), "{}", h.header());
        }
        hunks
    }

    fn apply(&self, hunks: &[Hunk]) -> Result<ripple::edits::ApplyReport, EditError> {
        let refs: Vec<&Hunk> = hunks.iter().collect();
        apply(self.root(), &refs, &self.journal())
    }
}

fn block(path: &str, search: &str, replace: &str) -> String {
    format!("{path}\n```\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n```\n")
}

#[test]
fn crlf_files_stay_crlf_and_untouched_lines_keep_their_bytes() {
    let before: &[u8] = b"a = 1\r\nb = 2\r\nc = 3\r\n";
    let repo = Repo::new(&[("w.py", before)]);
    let hunks = repo.plan(&block("w.py", "b = 2\n", "b = 20\nb2 = 21\n"));
    repo.apply(&hunks).unwrap();
    assert_eq!(
        repo.read("w.py"),
        b"a = 1\r\nb = 20\r\nb2 = 21\r\nc = 3\r\n"
    );
}

#[test]
fn a_missing_final_newline_stays_missing() {
    let repo = Repo::new(&[("n.py", b"a\nb"), ("m.py", b"a\nb\nc")]);
    let reply = [block("n.py", "b\n", "B\nC\n"), block("m.py", "a\n", "A\n")].concat();
    repo.apply(&repo.plan(&reply)).unwrap();
    assert_eq!(repo.read("n.py"), b"a\nB\nC");
    assert_eq!(repo.read("m.py"), b"A\nb\nc");
}

#[test]
fn several_hunks_in_one_file_apply_bottom_up() {
    let repo = Repo::new(&[("a.py", b"1\n2\n3\n4\n5\n")]);
    let reply = [
        block("a.py", "2\n", "two\ntwo and a half\n"),
        block("a.py", "4\n", ""),
        block("a.py", "5\n", "five\n"),
    ]
    .concat();
    let report = repo.apply(&repo.plan(&reply)).unwrap();
    assert_eq!(repo.read("a.py"), b"1\ntwo\ntwo and a half\n3\nfive\n");
    assert_eq!(report.files.len(), 1);
    assert_eq!(report.files[0].hunks.len(), 3);
}

#[cfg(unix)]
#[test]
fn permissions_are_preserved() {
    use std::os::unix::fs::PermissionsExt;
    let repo = Repo::new(&[("run.sh", b"echo a\n")]);
    fs::set_permissions(
        repo.root().join("run.sh"),
        fs::Permissions::from_mode(0o751),
    )
    .unwrap();
    repo.apply(&repo.plan(&block("run.sh", "echo a\n", "echo b\n")))
        .unwrap();
    let mode = fs::metadata(repo.root().join("run.sh"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o751);
    assert_eq!(repo.read("run.sh"), b"echo b\n");
}

#[test]
fn new_files_and_directories_are_created() {
    let repo = Repo::new(&[("a.py", b"x\n")]);
    let report = repo
        .apply(&repo.plan(&block("pkg/sub/new.py", "", "X = 1\n")))
        .unwrap();
    assert!(report.files[0].created);
    assert_eq!(repo.read("pkg/sub/new.py"), b"X = 1\n");
}

#[test]
fn a_failed_write_leaves_every_file_as_it_was() {
    let repo = Repo::new(&[
        ("a.py", b"a = 1\n"),
        ("b.py", b"b = 1\n"),
        ("c.py", b"c = 1\n"),
    ]);
    let reply = [
        block("a.py", "a = 1\n", "a = 2\n"),
        block("b.py", "b = 1\n", "b = 2\n"),
        block("c.py", "c = 1\n", "c = 2\n"),
        block("new/d.py", "", "d\n"),
    ]
    .concat();
    let hunks = repo.plan(&reply);
    // Files are written in path order: a.py and b.py are written, then
    // c.py fails (read-only), before new/d.py is ever created.
    let c = repo.root().join("c.py");
    let mut perms = fs::metadata(&c).unwrap().permissions();
    perms.set_readonly(true);
    fs::set_permissions(&c, perms).unwrap();
    let err = repo.apply(&hunks).unwrap_err();
    assert!(
        matches!(err, EditError::Write { ref path, restored: 2, .. } if path == "c.py"),
        "{err}"
    );
    assert!(err.to_string().contains("nothing was changed"), "{err}");
    assert_eq!(repo.read("a.py"), b"a = 1\n");
    assert_eq!(repo.read("b.py"), b"b = 1\n");
    assert_eq!(repo.read("c.py"), b"c = 1\n");
    assert!(!repo.root().join("new").exists());
    assert!(
        batches(&repo.journal()).unwrap().is_empty(),
        "a rolled-back batch is not undoable"
    );
    let leftovers: Vec<_> = fs::read_dir(repo.root())
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .filter(|n| n.to_string_lossy().contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_target_turned_into_a_directory_stops_the_batch_before_any_write() {
    let repo = Repo::new(&[("a.py", b"a = 1\n"), ("b.py", b"b = 1\n")]);
    let hunks = repo.plan(
        &[
            block("a.py", "a = 1\n", "a = 2\n"),
            block("b.py", "b = 1\n", "b = 2\n"),
        ]
        .concat(),
    );
    fs::remove_file(repo.root().join("b.py")).unwrap();
    fs::create_dir(repo.root().join("b.py")).unwrap();
    let err = repo.apply(&hunks).unwrap_err();
    assert!(err.to_string().contains("b.py"), "{err}");
    assert_eq!(repo.read("a.py"), b"a = 1\n");
}

#[test]
fn a_file_changed_since_planning_stops_the_batch() {
    let repo = Repo::new(&[("a.py", b"a = 1\n"), ("b.py", b"b = 1\n")]);
    let hunks = repo.plan(
        &[
            block("a.py", "a = 1\n", "a = 2\n"),
            block("b.py", "b = 1\n", "b = 2\n"),
        ]
        .concat(),
    );
    fs::write(repo.root().join("b.py"), "b = 1\n# edited meanwhile\n").unwrap();
    let err = repo.apply(&hunks).unwrap_err();
    assert!(
        matches!(err, EditError::Stale { ref path } if path == "b.py"),
        "{err}"
    );
    assert_eq!(repo.read("a.py"), b"a = 1\n");
}

#[test]
fn conflicts_cannot_be_applied() {
    let repo = Repo::new(&[("a.py", b"a\n")]);
    let mut parser = EditStreamParser::new();
    let blocks = parser.push(&block("a.py", "zzz\n", "y\n"));
    let hunks = plan(
        repo.root(),
        &Snapshot::new(),
        &blocks,
        &Conventions::default(),
    );
    let err = apply(repo.root(), &[&hunks[0]], &repo.journal()).unwrap_err();
    assert!(matches!(err, EditError::NotResolved { .. }), "{err}");
}

#[test]
fn undo_restores_the_exact_previous_bytes_batch_by_batch() {
    let crlf: &[u8] = b"x = 1\r\ny = 2";
    let repo = Repo::new(&[("w.py", crlf), ("a.py", b"a\n")]);
    repo.apply(
        &repo.plan(
            &[
                block("w.py", "y = 2\n", "y = 3\n"),
                block("pkg/new.py", "", "N\n"),
            ]
            .concat(),
        ),
    )
    .unwrap();
    let after_first = repo.read("w.py");
    repo.apply(&repo.plan(&block("a.py", "a\n", "A\n")))
        .unwrap();
    assert_eq!(batches(&repo.journal()).unwrap().len(), 2);

    let second = undo(repo.root(), &repo.journal()).unwrap();
    assert_eq!(second.restored, ["a.py"]);
    assert_eq!(repo.read("a.py"), b"a\n");
    assert_eq!(
        repo.read("w.py"),
        after_first,
        "only the newest batch is undone"
    );

    let first = undo(repo.root(), &repo.journal()).unwrap();
    assert_eq!(
        (first.restored.as_slice(), first.removed.as_slice()),
        (&["w.py".to_owned()][..], &["pkg/new.py".to_owned()][..])
    );
    assert_eq!(repo.read("w.py"), crlf);
    assert!(
        !repo.root().join("pkg").exists(),
        "the directory the batch created is gone"
    );
    assert!(matches!(
        undo(repo.root(), &repo.journal()),
        Err(EditError::NothingToUndo { .. })
    ));
}

#[cfg(unix)]
#[test]
fn undo_restores_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let repo = Repo::new(&[("run.sh", b"echo a\n")]);
    fs::set_permissions(
        repo.root().join("run.sh"),
        fs::Permissions::from_mode(0o700),
    )
    .unwrap();
    repo.apply(&repo.plan(&block("run.sh", "echo a\n", "echo b\n")))
        .unwrap();
    fs::set_permissions(
        repo.root().join("run.sh"),
        fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    undo(repo.root(), &repo.journal()).unwrap();
    let mode = fs::metadata(repo.root().join("run.sh"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(
        (mode & 0o777, repo.read("run.sh")),
        (0o700, b"echo a\n".to_vec())
    );
}

#[test]
fn undo_refuses_when_a_file_changed_since() {
    let repo = Repo::new(&[("a.py", b"a\n"), ("b.py", b"b\n")]);
    repo.apply(&repo.plan(&[block("a.py", "a\n", "A\n"), block("b.py", "b\n", "B\n")].concat()))
        .unwrap();
    fs::write(repo.root().join("b.py"), "B\nmore\n").unwrap();
    let err = undo(repo.root(), &repo.journal()).unwrap_err();
    assert!(
        matches!(err, EditError::UndoStale { ref path, .. } if path == "b.py"),
        "{err}"
    );
    assert!(err.to_string().contains("nothing was restored"), "{err}");
    assert_eq!(
        repo.read("a.py"),
        b"A\n",
        "all or nothing: a.py is not restored either"
    );
    assert_eq!(
        batches(&repo.journal()).unwrap().len(),
        1,
        "the batch stays undoable"
    );
}

#[test]
fn patch_renders_every_file_and_git_applies_it() {
    let files: &[(&str, &[u8])] = &[
        ("a.py", b"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n"),
        ("w.py", b"x\r\ny"),
    ];
    let repo = Repo::new(files);
    let hunks = repo.plan(
        &[
            block("a.py", "2\n", "two\n"),
            block("a.py", "12\n", "twelve\n"),
            block("w.py", "y\n", "Y\n"),
            block("n/new.py", "", "N\n"),
        ]
        .concat(),
    );
    let refs: Vec<&Hunk> = hunks.iter().collect();
    let patch = render_patch(repo.root(), &refs).unwrap();
    assert!(patch.starts_with("diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n@@ -9,4 +9,4 @@\n"), "{patch}");
    assert!(
        patch.contains("--- /dev/null\n+++ b/n/new.py\n@@ -0,0 +1 @@\n+N\n"),
        "{patch}"
    );
    assert!(patch.contains("\\ No newline at end of file"), "{patch}");
    assert_eq!(repo.read("a.py"), files[0].1, "rendering writes nothing");

    // The patch must mean the same edit as applying the hunks.
    let copy = Repo::new(files);
    let git_ok = std::process::Command::new("git")
        .args(["apply", "-"])
        .current_dir(copy.root())
        .stdin(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(patch.as_bytes())?;
            child.wait()
        });
    repo.apply(&hunks).unwrap();
    match git_ok {
        Ok(status) => {
            assert!(status.success(), "git apply failed on:\n{patch}");
            for path in ["a.py", "w.py", "n/new.py"] {
                assert_eq!(copy.read(path), repo.read(path), "{path}");
            }
        }
        Err(e) => eprintln!("git not available, skipping the git apply check: {e}"),
    }
}

#[test]
fn syntax_errors_after_an_edit_are_counted() {
    assert_eq!(
        syntax_errors_after(Lang::Python, b"def f(x):\n    return x\n"),
        0
    );
    assert!(syntax_errors_after(Lang::Python, b"def f(x:\n    return x\n") > 0);
    assert!(syntax_errors_after(Lang::Go, b"package p\nfunc f( {\n") > 0);
}

#[test]
fn a_byte_order_mark_is_kept_and_does_not_hide_the_first_line() {
    let repo = Repo::new(&[("bom.py", "\u{feff}import os\r\nx = 1\r\n".as_bytes())]);
    repo.apply(&repo.plan(&block("bom.py", "import os\n", "import sys\n")))
        .unwrap();
    assert_eq!(
        repo.read("bom.py"),
        "\u{feff}import sys\r\nx = 1\r\n".as_bytes()
    );
}

/// A temp file as a ripple killed mid-write leaves it, owned by `pid`.
fn stray_temp(dir: &Path, name: &str, pid: u32) -> PathBuf {
    let p = dir.join(format!(".{name}.ripple-{pid}-0.tmp"));
    fs::write(&p, "half a file").unwrap();
    p
}

#[cfg(unix)]
#[test]
fn apply_and_undo_sweep_temps_left_by_a_killed_ripple() {
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    let repo = Repo::new(&[("pkg/m.py", b"a = 1\n")]);
    let pkg = repo.root().join("pkg");
    let stray = stray_temp(&pkg, "m.py", dead);
    let live = stray_temp(&pkg, "m.py", std::process::id());
    repo.apply(&repo.plan(&block("pkg/m.py", "a = 1\n", "a = 2\n")))
        .unwrap();
    assert!(!stray.exists(), "apply left a dead process's temp");
    assert!(live.exists(), "a live process's temp was removed");

    let stray = stray_temp(&pkg, "m.py", dead);
    undo(repo.root(), &repo.journal()).unwrap();
    assert_eq!(repo.read("pkg/m.py"), b"a = 1\n");
    assert!(!stray.exists(), "undo left a dead process's temp");
    assert!(live.exists());
}

#[cfg(unix)]
#[test]
fn the_journal_is_never_written_or_read_through_a_symlinked_ripple_dir() {
    let repo = Repo::new(&[("m.py", b"a = 1\n")]);
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), repo.root().join(".ripple")).unwrap();
    let hunks = repo.plan(&block("m.py", "a = 1\n", "a = 2\n"));
    let err = repo.apply(&hunks).unwrap_err();
    assert!(err.to_string().contains("is a symlink"), "{err}");
    assert_eq!(repo.read("m.py"), b"a = 1\n");
    assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0);

    // A journal that a link points at is not undone (nor deleted) either.
    fs::remove_file(repo.root().join(".ripple")).unwrap();
    repo.apply(&hunks).unwrap();
    let moved = outside.path().join("state");
    fs::rename(repo.root().join(".ripple"), &moved).unwrap();
    std::os::unix::fs::symlink(&moved, repo.root().join(".ripple")).unwrap();
    let err = undo(repo.root(), &repo.journal()).unwrap_err();
    assert!(err.to_string().contains("is a symlink"), "{err}");
    assert_eq!(repo.read("m.py"), b"a = 2\n");
    assert_eq!(batches(&moved.join("journal")).unwrap().len(), 1);
}

//! Running the tests that reach a declaration: the graph says which test
//! functions call into it (`ripple tests NAME`), this module turns them into
//! the commands a developer would type — `pytest path::Class::test_fn …`
//! once for Python, `go test -run '^(TestA|TestB)$' ./pkg` once per Go
//! package — and runs them as child processes whose output streams back
//! line by line and which can be cancelled (the whole process group is
//! killed, so a test runner's own workers die with it).
//!
//! The commands come from `[tests]` in `ripple.toml` (see
//! [`crate::conventions::TestCommands`]). A template is split into words
//! like a shell would (quotes, backslashes) but is never handed to a shell:
//! test names are substituted into the words, so a name can never inject a
//! command. `{tests}` as a whole word becomes one argument per test.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::conventions::TestCommands;
use crate::index::Index;
use crate::llm::CancelToken;
use crate::model::Lang;
use crate::resolve::DeclId;

pub const DEFAULT_PYTHON: &str = "pytest {tests}";
pub const DEFAULT_GO: &str = "go test -run '^({names})$' {packages}";

#[derive(Debug, thiserror::Error)]
pub enum TestRunError {
    #[error("[tests] {lang} = {template:?}: {reason}")]
    Template {
        lang: &'static str,
        template: String,
        reason: &'static str,
    },
    #[error("cannot start `{program}`: {source}")]
    Spawn {
        program: String,
        source: std::io::Error,
    },
    #[error("waiting for `{program}`: {source}")]
    Wait {
        program: String,
        source: std::io::Error,
    },
}

/// One command to run: its argument vector and the tests it selects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    pub argv: Vec<String>,
    pub tests: Vec<String>,
}

impl Invocation {
    /// The command as a shell would show it (for the pane's header).
    pub fn display(&self) -> String {
        self.argv
            .iter()
            .map(|a| shell_quote(a))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The test ids that reach `decl`, per language, and the commands to run them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TestPlan {
    pub invocations: Vec<Invocation>,
    /// Test declarations the graph found that no runner can select by name
    /// (helpers and fixtures in test files).
    pub not_selectable: usize,
    /// Every test declaration that reaches the target, at any depth
    /// ([`crate::graph::Graph::tests_reaching`]): the blast radius's
    /// "all depths" count.
    pub reaching: usize,
}

impl TestPlan {
    pub fn test_count(&self) -> usize {
        self.invocations.iter().map(|i| i.tests.len()).sum()
    }
}

/// A reached Go test: `-run` selects it by bare name, per package.
struct GoTest {
    package: String,
    name: String,
}

/// The commands that run every test reaching `decl`.
pub fn plan(
    index: &Index,
    decl: DeclId,
    commands: &TestCommands,
) -> Result<TestPlan, TestRunError> {
    let reaching: Vec<DeclId> = index
        .graph
        .tests_reaching(&index.res, decl, 0)
        .iter()
        .map(|r| r.decl)
        .collect();
    plan_tests(index, &reaching, commands)
}

/// The commands that run exactly `tests` (test declarations).
pub fn plan_tests(
    index: &Index,
    reaching: &[DeclId],
    commands: &TestCommands,
) -> Result<TestPlan, TestRunError> {
    let res = &index.res;
    let mut python: Vec<String> = Vec::new();
    let mut go: Vec<GoTest> = Vec::new();
    let mut not_selectable = 0;
    for &decl in reaching {
        let d = &res.decls[decl];
        let (Some(file), Some(fid)) = (index.file_of(decl), d.file) else {
            continue;
        };
        match file.lang {
            Lang::Python => match pytest_id(&file.path, &res.file_module[fid.index()], &d.name) {
                Some(id) => python.push(id),
                None => not_selectable += 1,
            },
            Lang::Go => match go_test_name(&d.name) {
                Some(name) => go.push(GoTest {
                    package: go_package(&file.path),
                    name: name.to_owned(),
                }),
                None => not_selectable += 1,
            },
        }
    }
    python.sort();
    python.dedup();
    go.sort_by(|a, b| (&a.package, &a.name).cmp(&(&b.package, &b.name)));
    go.dedup_by(|a, b| a.package == b.package && a.name == b.name);

    let mut invocations = Vec::new();
    if !python.is_empty() {
        let template = commands.python.as_deref().unwrap_or(DEFAULT_PYTHON);
        let words = split_words(template).map_err(|reason| TestRunError::Template {
            lang: "python",
            template: template.to_owned(),
            reason,
        })?;
        let names: Vec<String> = python
            .iter()
            .map(|id| id.rsplit("::").next().unwrap_or(id).to_owned())
            .collect();
        let files: Vec<String> = {
            let mut f: Vec<String> = python
                .iter()
                .map(|id| id.split("::").next().unwrap_or(id).to_owned())
                .collect();
            f.dedup();
            f
        };
        invocations.push(Invocation {
            argv: expand(&words, &python, &names, &files),
            tests: python,
        });
    }
    // One `go test` per package: `-run` matches bare names, so one call
    // across packages would also run a same-named test elsewhere.
    let template = commands.go.as_deref().unwrap_or(DEFAULT_GO);
    let mut words = None;
    for chunk in go.chunk_by(|a, b| a.package == b.package) {
        let words =
            match &words {
                Some(w) => w,
                None => words.insert(split_words(template).map_err(|reason| {
                    TestRunError::Template {
                        lang: "go",
                        template: template.to_owned(),
                        reason,
                    }
                })?),
            };
        let names: Vec<String> = chunk.iter().map(|t| t.name.clone()).collect();
        let packages = vec![chunk[0].package.clone()];
        invocations.push(Invocation {
            argv: expand(words, &names, &names, &packages),
            tests: names,
        });
    }
    Ok(TestPlan {
        invocations,
        not_selectable,
        reaching: reaching.len(),
    })
}

/// `tests/test_auth.py::TestLogin::test_ok` for `tests.test_auth.TestLogin.test_ok`;
/// `None` for what pytest would not collect by that name (fixtures, helpers,
/// nested functions).
pub fn pytest_id(path: &str, module: &str, name: &str) -> Option<String> {
    let local = name
        .strip_prefix(module)
        .and_then(|s| s.strip_prefix('.'))
        .unwrap_or(name);
    let parts: Vec<&str> = local.split('.').collect();
    let last = parts.last()?;
    // pytest collects `test*` functions and methods; a method's class must
    // be module-level (one dot).
    if !last.starts_with("test") || parts.len() > 2 || parts.iter().any(|p| p.starts_with('<')) {
        return None;
    }
    Some(format!("{path}::{}", parts.join("::")))
}

/// `TestParse` for `example.com/m/pkg.TestParse`; `None` for benchmarks
/// (`-run` does not run them) and closures.
pub fn go_test_name(name: &str) -> Option<&str> {
    let short = name.rsplit('.').next()?;
    let runnable = ["Test", "Example", "Fuzz"]
        .iter()
        .any(|p| short.starts_with(p));
    (runnable && !short.contains(['$', '#', ')'])).then_some(short)
}

/// `./internal/auth` for `internal/auth/token_test.go` (`.` at the root).
pub fn go_package(path: &str) -> String {
    match path.rsplit_once('/') {
        Some((dir, _)) => format!("./{dir}"),
        None => ".".to_owned(),
    }
}

/// Substitute `{tests}`, `{names}` (a regex alternation of bare names),
/// `{files}` and `{packages}`. A word that is exactly a placeholder becomes
/// one argument per item; inside a longer word the items are joined (by
/// `|` for `{names}`, a space otherwise).
fn expand(words: &[String], tests: &[String], names: &[String], places: &[String]) -> Vec<String> {
    let lists: [(&str, &[String], &str); 4] = [
        ("{tests}", tests, " "),
        ("{names}", names, "|"),
        ("{files}", places, " "),
        ("{packages}", places, " "),
    ];
    let mut argv = Vec::new();
    for w in words {
        if let Some((_, items, _)) = lists.iter().find(|(p, _, _)| w == p) {
            argv.extend(items.iter().cloned());
            continue;
        }
        let mut out = w.clone();
        for (p, items, sep) in &lists {
            if out.contains(p) {
                let joined = if *p == "{names}" {
                    items
                        .iter()
                        .map(|n| regex_escape(n))
                        .collect::<Vec<_>>()
                        .join(sep)
                } else {
                    items.join(sep)
                };
                out = out.replace(p, &joined);
            }
        }
        argv.push(out);
    }
    argv
}

fn regex_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Split a command template into words the way a POSIX shell would
/// (single quotes literal, double quotes with `\` escapes, `\` outside
/// quotes), without expanding anything.
pub fn split_words(s: &str) -> Result<Vec<String>, &'static str> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => cur.push(c),
                        None => return Err("unclosed single quote"),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => cur.push(c),
                            Some(c) => {
                                cur.push('\\');
                                cur.push(c);
                            }
                            None => return Err("unclosed double quote"),
                        },
                        Some(c) => cur.push(c),
                        None => return Err("unclosed double quote"),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(c) => cur.push(c),
                    None => return Err("a trailing backslash"),
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    if words.is_empty() {
        return Err("the command is empty");
    }
    Ok(words)
}

fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@,+%".contains(c))
    {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// What a run reports, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunEvent {
    /// An invocation started as process `pid` (also its process group,
    /// which [`kill_group`] ends).
    Started { command: String, pid: u32 },
    /// A line of its output (stdout and stderr interleaved as they come).
    Line(String),
    /// It exited (`None`: killed by a signal).
    Exited(Option<i32>),
}

/// How a whole run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunOutcome {
    Passed,
    /// The first invocation that failed, and its exit code.
    Failed {
        command: String,
        code: Option<i32>,
    },
    Cancelled,
}

/// How often a running child is checked for cancellation.
const POLL: Duration = Duration::from_millis(20);

/// Run the plan's invocations one after another in `root`, reporting as
/// they go; stop at cancellation (killing the child's process group). A
/// failing invocation does not stop the others: every selected test runs.
pub fn run(
    root: &Path,
    plan: &TestPlan,
    cancel: &CancelToken,
    on_event: &mut dyn FnMut(RunEvent),
) -> Result<RunOutcome, TestRunError> {
    let mut failed = None;
    for inv in &plan.invocations {
        if cancel.is_cancelled() {
            return Ok(RunOutcome::Cancelled);
        }
        match run_one(root, inv, cancel, on_event)? {
            Some(code) => {
                on_event(RunEvent::Exited(code));
                if code != Some(0) && failed.is_none() {
                    failed = Some(RunOutcome::Failed {
                        command: inv.display(),
                        code,
                    });
                }
            }
            None => return Ok(RunOutcome::Cancelled),
        }
    }
    Ok(failed.unwrap_or(RunOutcome::Passed))
}

/// Run one invocation to its end: `Some(exit code)`, or `None` when cancelled.
fn run_one(
    root: &Path,
    inv: &Invocation,
    cancel: &CancelToken,
    on_event: &mut dyn FnMut(RunEvent),
) -> Result<Option<Option<i32>>, TestRunError> {
    let Some(program) = inv.argv.first().cloned() else {
        return Err(TestRunError::Spawn {
            program: String::new(),
            source: std::io::Error::new(std::io::ErrorKind::InvalidInput, "the command is empty"),
        });
    };
    let mut cmd = Command::new(&program);
    cmd.args(&inv.argv[1..])
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // Its own process group, so cancelling also kills what it started.
        cmd.process_group(0);
    }
    let mut child = cmd.spawn().map_err(|source| TestRunError::Spawn {
        program: program.clone(),
        source,
    })?;
    on_event(RunEvent::Started {
        command: inv.display(),
        pid: child.id(),
    });
    let (tx, rx) = mpsc::channel::<String>();
    let readers = [
        child.stdout.take().map(|s| read_lines(s, tx.clone())),
        child.stderr.take().map(|s| read_lines(s, tx.clone())),
    ];
    drop(tx);
    let status = loop {
        for line in rx.try_iter() {
            on_event(RunEvent::Line(line));
        }
        if cancel.is_cancelled() {
            kill(&mut child);
            return Ok(None);
        }
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => {
                if let Ok(line) = rx.recv_timeout(POLL) {
                    on_event(RunEvent::Line(line));
                }
            }
            Err(source) => {
                kill(&mut child);
                return Err(TestRunError::Wait { program, source });
            }
        }
    };
    // The child is gone; its output may still be in the pipes (or held
    // open by a grandchild, which the timeout stops waiting for).
    let deadline = std::time::Instant::now() + Duration::from_secs(1);
    loop {
        match rx.recv_timeout(POLL) {
            Ok(line) => on_event(RunEvent::Line(line)),
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) if std::time::Instant::now() > deadline => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
    }
    drop(readers);
    Ok(Some(status.code()))
}

fn read_lines(
    stream: impl Read + Send + 'static,
    tx: mpsc::Sender<String>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut reader = BufReader::new(stream);
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match reader.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => return,
                Ok(_) => {
                    let line = String::from_utf8_lossy(&buf).trim_end().to_owned();
                    if tx.send(line).is_err() {
                        return;
                    }
                }
            }
        }
    })
}

fn kill(child: &mut Child) {
    kill_group(child.id());
    let _ = child.kill();
    let _ = child.wait();
}

/// Kill the process group a run started (its pid, see [`RunEvent::Started`]):
/// the test runner and whatever it spawned. Through `kill(1)`, because std
/// can only signal the one child.
pub fn kill_group(pid: u32) {
    #[cfg(unix)]
    {
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{pid}")])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
    #[cfg(not(unix))]
    let _ = pid;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pytest_ids_name_functions_and_methods() {
        assert_eq!(
            pytest_id("tests/test_a.py", "tests.test_a", "tests.test_a.test_x").as_deref(),
            Some("tests/test_a.py::test_x")
        );
        assert_eq!(
            pytest_id(
                "tests/test_a.py",
                "tests.test_a",
                "tests.test_a.TestA.test_y"
            )
            .as_deref(),
            Some("tests/test_a.py::TestA::test_y")
        );
        assert_eq!(
            pytest_id(
                "tests/conftest.py",
                "tests.conftest",
                "tests.conftest.client"
            ),
            None
        );
        assert_eq!(
            pytest_id(
                "tests/test_a.py",
                "tests.test_a",
                "tests.test_a.test_x.inner"
            ),
            None
        );
    }

    #[test]
    fn go_names_and_packages() {
        assert_eq!(
            go_test_name("example.com/m/internal/auth.TestParse"),
            Some("TestParse")
        );
        assert_eq!(
            go_test_name("example.com/m/internal/auth.BenchmarkParse"),
            None
        );
        assert_eq!(
            go_test_name("example.com/m/internal/auth.TestParse$1"),
            None
        );
        assert_eq!(go_package("internal/auth/token_test.go"), "./internal/auth");
        assert_eq!(go_package("main_test.go"), ".");
    }

    #[test]
    fn templates_split_like_a_shell_and_substitute_per_word() {
        let words = split_words("sh -c 'echo ran {tests}; exit 1'").unwrap();
        assert_eq!(words, ["sh", "-c", "echo ran {tests}; exit 1"]);
        let tests = vec!["a.py::test_a".to_owned(), "a.py::test_b".to_owned()];
        let names = vec!["test_a".to_owned(), "test_b".to_owned()];
        let files = vec!["a.py".to_owned()];
        assert_eq!(
            expand(&words, &tests, &names, &files),
            ["sh", "-c", "echo ran a.py::test_a a.py::test_b; exit 1"]
        );
        let go = split_words(DEFAULT_GO).unwrap();
        assert_eq!(
            expand(&go, &names, &names, &["./p".to_owned()]),
            ["go", "test", "-run", "^(test_a|test_b)$", "./p"]
        );
        assert_eq!(
            expand(
                &split_words("pytest -q {tests}").unwrap(),
                &tests,
                &names,
                &files
            ),
            ["pytest", "-q", "a.py::test_a", "a.py::test_b"]
        );
        assert!(split_words("echo 'oops").is_err());
        assert!(split_words("   ").is_err());
    }
}

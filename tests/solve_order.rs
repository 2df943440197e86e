//! The graph does not depend on the order resolution visits its
//! constraints: the demo and the fixture repositories, indexed with the
//! constraints swept in reverse and in shuffled orders (and the worklist
//! drained at random), give the same edges, confidences and unresolved
//! call sites as the canonical order; and every value the solve keeps is
//! one its final state derives. An incremental refresh can only promise
//! the cold index's graph if this holds.

mod common;

use std::path::{Path, PathBuf};

use ripple::index::{Index, NoProgress};
use ripple::resolve::{SolveOrder, with_solve_order};

/// The repositories indexed: the demo, the cases written to tangle the
/// solve (`tests/fixtures/solve_order/`), and each Python category of the
/// fixtures as one repository (its cases then reach into one another, as
/// the modules of a real project do; alone, each is too small to show an
/// order).
fn repositories() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = vec![root.join("assets/demo")];
    for parent in ["tests/fixtures/solve_order", "tests/fixtures/python"] {
        let entries = std::fs::read_dir(root.join(parent)).unwrap();
        out.extend(entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()));
    }
    out.sort();
    out
}

/// The graph as text: each edge with its confidence and call site, each
/// unresolved call site with its reason, sorted.
fn graph(dir: &Path, order: SolveOrder) -> Vec<String> {
    let db = tempfile::tempdir().unwrap();
    let index = with_solve_order(order, || {
        Index::open_with(dir, Some(&db.path().join("index.db")), &NoProgress).unwrap()
    });
    let res = &index.res;
    let mut lines: Vec<String> = res
        .edges
        .iter()
        .map(|e| {
            format!(
                "edge {} -> {} {:?} at {}:{}",
                res.decls[e.caller].name, res.decls[e.callee].name, e.confidence, e.file.0, e.call
            )
        })
        .chain(res.unresolved.iter().map(|u| {
            format!(
                "unresolved {} at {}:{}: {}",
                res.decls[u.caller].name, u.file.0, u.call, u.reason
            )
        }))
        .collect();
    lines.sort();
    lines
}

#[test]
fn every_order_gives_the_same_graph() {
    let orders = [
        SolveOrder::Reversed,
        SolveOrder::Shuffled(1),
        SolveOrder::Shuffled(2),
        SolveOrder::Shuffled(3),
    ];
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut failures = Vec::new();
    let repos = repositories();
    assert!(
        repos.len() > 20,
        "fixtures not found under {}",
        root.display()
    );
    for dir in &repos {
        let canonical = graph(dir, SolveOrder::Canonical);
        for order in orders {
            let other = graph(dir, order);
            if other != canonical {
                let gone: Vec<&String> = canonical.iter().filter(|l| !other.contains(l)).collect();
                let new: Vec<&String> = other.iter().filter(|l| !canonical.contains(l)).collect();
                failures.push(format!(
                    "{} in {order:?}:\n  only canonical: {gone:?}\n  only {order:?}: {new:?}",
                    dir.strip_prefix(root).unwrap_or(dir).display()
                ));
                break;
            }
        }
    }
    assert!(
        failures.is_empty(),
        "the graph depends on the solve order:\n{}",
        failures.join("\n")
    );
}

#[test]
fn the_solved_state_derives_every_value_it_holds() {
    // A value no constraint derives from the final state was left by an
    // earlier one: a reading that gave more while the solve was emptier.
    // Another order would not have left it.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut failures = Vec::new();
    for dir in repositories() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        // The binary writes `.ripple/` into the repository it indexes.
        common::copy_dir(&dir, &repo);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_ripple"))
            .arg("--repo")
            .arg(&repo)
            .arg("index")
            .env("RIPPLE_DEBUG_UNSUPPORTED", "1")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        if !stderr.contains("\n0 slots hold values the solved state does not derive")
            && !stderr.starts_with("0 slots hold")
        {
            let listed: Vec<&str> = stderr
                .lines()
                .filter(|l| l.starts_with("unsupported"))
                .collect();
            failures.push(format!(
                "{}: {}",
                dir.strip_prefix(root).unwrap_or(&dir).display(),
                listed.join("\n  ")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "values left over from an earlier state:\n{}",
        failures.join("\n")
    );
}

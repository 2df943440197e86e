//! Call-graph correctness on the fixture repositories: each case under
//! `tests/fixtures/{python,go}/…` has an `expected.json` (callee lists per
//! declaration, the format of `ripple edges --format json`) written by hand
//! from what the program does at run time.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use ripple::index::{Index, NoProgress};

type Graph = BTreeMap<String, BTreeSet<String>>;

fn cases(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        if dir.join("expected.json").exists() {
            out.push(dir);
            continue;
        }
        if let Ok(entries) = std::fs::read_dir(&dir) {
            for e in entries.flatten() {
                if e.path().is_dir() {
                    stack.push(e.path());
                }
            }
        }
    }
    out.sort();
    out
}

fn actual(dir: &Path) -> Graph {
    let db = tempfile::tempdir().unwrap();
    let index = Index::open_with(dir, Some(&db.path().join("index.db")), &NoProgress).unwrap();
    let res = &index.res;
    let mut g = Graph::new();
    for d in &res.decls {
        if d.kind.is_callable() || d.is_external() {
            g.entry(d.name.to_string()).or_default();
        }
    }
    for e in &res.edges {
        g.entry(res.decls[e.caller].name.to_string())
            .or_default()
            .insert(res.decls[e.callee].name.to_string());
    }
    g
}

fn edges(g: &Graph) -> BTreeSet<(String, String)> {
    g.iter()
        .flat_map(|(a, bs)| bs.iter().map(move |b| (a.clone(), b.clone())))
        .collect()
}

#[test]
fn fixture_call_graphs_match_expected_edges() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let gaps_text = std::fs::read_to_string(root.join("KNOWN_GAPS.txt")).unwrap();
    let gaps: BTreeSet<&str> = gaps_text
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .collect();
    let mut failures = Vec::new();
    let mut fixed = Vec::new();
    let (mut tp, mut fp, mut fneg, mut total) = (0usize, 0usize, 0usize, 0usize);
    for lang in ["python", "go"] {
        for dir in cases(&root.join(lang)) {
            total += 1;
            let name = dir
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let expected: Graph =
                serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap())
                    .unwrap();
            let (want, got) = (edges(&expected), edges(&actual(&dir)));
            tp += want.intersection(&got).count();
            fp += got.difference(&want).count();
            fneg += want.difference(&got).count();
            let exact = want == got;
            match (exact, gaps.contains(name.as_str())) {
                (true, true) => fixed.push(name),
                (false, false) => failures.push(format!(
                    "{name}:\n  missing {:?}\n  extra {:?}",
                    want.difference(&got).collect::<Vec<_>>(),
                    got.difference(&want).collect::<Vec<_>>()
                )),
                _ => {}
            }
        }
    }
    eprintln!(
        "{total} fixture cases; edge precision {:.3}, recall {:.3}",
        tp as f64 / (tp + fp).max(1) as f64,
        tp as f64 / (tp + fneg).max(1) as f64
    );
    assert!(total >= 70, "fixtures went missing: only {total} cases");
    assert!(
        fixed.is_empty(),
        "these now match exactly; delete them from KNOWN_GAPS.txt: {fixed:?}"
    );
    assert!(
        failures.is_empty(),
        "call graphs differ from expected:\n{}",
        failures.join("\n")
    );
}

/// Conversions (`(*T)(nil)`, `unsafe.Pointer(p)`, `List[int](xs)`) are not
/// calls, and everything else in these Go fixtures resolves: an unresolved
/// call site here is a false admission of ignorance.
#[test]
fn go_fixtures_with_conversions_leave_no_call_site_unresolved() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/go");
    for case in ["stdimpl", "registry"] {
        let db = tempfile::tempdir().unwrap();
        let index = Index::open_with(
            &root.join(case),
            Some(&db.path().join("index.db")),
            &NoProgress,
        )
        .unwrap();
        let reasons: Vec<&str> = index
            .res
            .unresolved
            .iter()
            .map(|u| u.reason.as_str())
            .collect();
        assert!(reasons.is_empty(), "{case}: {reasons:?}");
    }
}

#[test]
fn reading_a_property_calls_its_getter_assigning_it_its_setter_and_deleting_it_its_deleter() {
    // The getter, the setter and the deleter share a qualified name, so the
    // fixtures' name-level graphs cannot tell them apart: the edges are
    // checked by the line each callee is defined on.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("main.py"),
        "class Order:\n\
         \x20   @property\n\
         \x20   def label(self):\n\
         \x20       return 'order'\n\
         \n\
         \x20   @label.setter\n\
         \x20   def label(self, value):\n\
         \x20       self._label = value\n\
         \n\
         \x20   @label.deleter\n\
         \x20   def label(self):\n\
         \x20       self._label = None\n\
         \n\
         \n\
         def show(order):\n\
         \x20   return order.label\n\
         \n\
         \n\
         def rename(order):\n\
         \x20   order.label = 'new'\n\
         \n\
         \n\
         def forget(order):\n\
         \x20   del order.label\n\
         \n\
         \n\
         def forget_both(order, other):\n\
         \x20   del other.unrelated, order.label\n\
         \n\
         \n\
         show(Order())\n\
         rename(Order())\n\
         forget(Order())\n\
         forget_both(Order(), Order())\n",
    )
    .unwrap();
    let db = tempfile::tempdir().unwrap();
    let index =
        Index::open_with(dir.path(), Some(&db.path().join("index.db")), &NoProgress).unwrap();
    let res = &index.res;
    let mut lines: Vec<(String, u32)> = res
        .edges
        .iter()
        .filter(|e| &*res.decls[e.callee].name == "main.Order.label")
        .map(|e| {
            (
                res.decls[e.caller].name.to_string(),
                res.decls[e.callee].span.start_line,
            )
        })
        .collect();
    lines.sort();
    assert_eq!(
        lines,
        [
            ("main.forget".to_owned(), 11),
            ("main.forget_both".to_owned(), 11),
            ("main.rename".to_owned(), 7),
            ("main.show".to_owned(), 3)
        ]
    );
}

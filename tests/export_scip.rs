//! `ripple export scip`: the index is read back with the `scip` crate and
//! checked against the graph the library builds for the same tree, on the
//! demo and on a small fixture written here. Sourcegraph's `scip` CLI and
//! scip-python check it further when they are installed (the tests that
//! need them say so and pass without them).

mod common;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

use protobuf::Message;
use scip::types::{Document, Index as ScipIndex, Occurrence, SymbolRole};

use ripple::index::{Index, NoProgress};
use ripple::model::Confidence;

const GO_PKG: &str = "github.com/acme/shipd/internal/shipping";

fn ripple(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ripple"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn demo_copy() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    common::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo"),
        &tmp.path().join("demo"),
    );
    tmp
}

/// Export `repo` to `out` with `extra` flags and read the index back.
fn export(repo: &Path, out: &Path, extra: &[&str]) -> ScipIndex {
    let mut args = vec![
        "--repo",
        repo.to_str().unwrap(),
        "export",
        "scip",
        "-o",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let (code, stdout, stderr) = ripple(&args);
    assert_eq!(code, 0, "export failed:\n{stdout}\n{stderr}");
    ScipIndex::parse_from_bytes(&std::fs::read(out).unwrap()).unwrap()
}

const PINNED: &[&str] = &[
    "--project-name",
    "demo",
    "--project-version",
    "1.0",
    "--module-version",
    "v1.2.3",
];

fn is_definition(o: &Occurrence) -> bool {
    o.symbol_roles & SymbolRole::Definition as i32 != 0
}

fn has_role(o: &Occurrence, role: SymbolRole) -> bool {
    o.symbol_roles & role as i32 != 0
}

/// (start line, start column, end line, end column) of a SCIP range.
fn span(range: &[i32]) -> (i32, i32, i32, i32) {
    match range {
        [l, c0, c1] => (*l, *c0, *l, *c1),
        [l0, c0, l1, c1] => (*l0, *c0, *l1, *c1),
        other => panic!("malformed range {other:?}"),
    }
}

fn contains(outer: &[i32], inner: &[i32]) -> bool {
    let (a0, b0, a1, b1) = span(outer);
    let (c0, d0, c1, d1) = span(inner);
    (a0, b0) <= (c0, d0) && (c1, d1) <= (a1, b1)
}

/// The text a range covers in `source`.
fn text_at<'s>(source: &'s str, range: &[i32]) -> &'s str {
    let (l0, c0, l1, c1) = span(range);
    assert_eq!(l0, l1, "a name on one line");
    let line = source.lines().nth(l0 as usize).unwrap();
    &line[c0 as usize..c1 as usize]
}

fn document<'a>(index: &'a ScipIndex, path: &str) -> &'a Document {
    index
        .documents
        .iter()
        .find(|d| d.relative_path == path)
        .unwrap_or_else(|| panic!("no document {path}"))
}

fn definition<'a>(index: &'a ScipIndex, symbol: &str) -> (&'a Document, &'a Occurrence) {
    for d in &index.documents {
        for o in &d.occurrences {
            if o.symbol == symbol && is_definition(o) {
                return (d, o);
            }
        }
    }
    panic!("no definition of {symbol}");
}

fn information<'a>(index: &'a ScipIndex, symbol: &str) -> &'a scip::types::SymbolInformation {
    index
        .documents
        .iter()
        .flat_map(|d| d.symbols.iter())
        .chain(index.external_symbols.iter())
        .find(|s| s.symbol == symbol)
        .unwrap_or_else(|| panic!("no symbol information for {symbol}"))
}

fn implementations(index: &ScipIndex, symbol: &str) -> BTreeSet<String> {
    information(index, symbol)
        .relationships
        .iter()
        .filter(|r| r.is_implementation)
        .map(|r| r.symbol.clone())
        .collect()
}

fn short(name: &str) -> &str {
    let name = name.rsplit_once(").").map_or(name, |(_, m)| m);
    name.rsplit('.').next().unwrap_or(name)
}

/// A reference: (file, zero-based line of the call, callee's short name).
type Reference = (String, i32, String);

/// Every call edge at or above `min` with a call site, from the library's
/// graph: the reference it should give, and the first line of its caller
/// (none when the caller is outside the repository: a library calling
/// back into the repository at a call site written here).
fn graph_references(index: &Index, min: Confidence) -> BTreeMap<Reference, BTreeSet<Option<i32>>> {
    let res = &index.res;
    let mut out: BTreeMap<Reference, BTreeSet<Option<i32>>> = BTreeMap::new();
    for e in res.edges.iter().filter(|e| e.confidence <= min) {
        let callee = &res.decls[e.callee];
        // A lambda or function literal is local to its own file.
        if !callee.is_external()
            && callee.file != Some(e.file)
            && (callee.name.contains('$') || callee.name.contains('<'))
        {
            continue;
        }
        let line = res.call_line(e.file, e.call) as i32 - 1;
        // Calls the language makes with no call site (Go's package init).
        if line < 0 {
            continue;
        }
        let caller = &res.decls[e.caller];
        out.entry((
            index.files[e.file.index()].path.clone(),
            line,
            short(&callee.name).to_owned(),
        ))
        .or_default()
        .insert((!caller.is_external()).then(|| caller.span.start_line as i32 - 1));
    }
    out
}

/// Each reference of the index, with the first lines of the definitions
/// whose enclosing ranges hold it.
fn scip_references(index: &ScipIndex) -> BTreeMap<Reference, BTreeSet<i32>> {
    let global: HashMap<&str, &str> = index
        .documents
        .iter()
        .flat_map(|d| d.symbols.iter())
        .chain(index.external_symbols.iter())
        .filter(|s| !s.symbol.starts_with("local "))
        .map(|s| (s.symbol.as_str(), s.display_name.as_str()))
        .collect();
    let mut out: BTreeMap<Reference, BTreeSet<i32>> = BTreeMap::new();
    for d in &index.documents {
        let local: HashMap<&str, &str> = d
            .symbols
            .iter()
            .filter(|s| s.symbol.starts_with("local "))
            .map(|s| (s.symbol.as_str(), s.display_name.as_str()))
            .collect();
        // A construction refers to the class beside its `__init__`; the
        // graph's edge is to the `__init__`.
        let constructions: BTreeSet<&[i32]> = d
            .occurrences
            .iter()
            .filter(|o| !is_definition(o) && o.symbol.ends_with("#__init__()."))
            .map(|o| o.range.as_slice())
            .collect();
        for r in d.occurrences.iter().filter(|o| !is_definition(o)) {
            if r.symbol.ends_with('#') && constructions.contains(r.range.as_slice()) {
                continue;
            }
            let callee = local
                .get(r.symbol.as_str())
                .or_else(|| global.get(r.symbol.as_str()))
                .unwrap_or_else(|| panic!("{} has no symbol information", r.symbol));
            let holders = d
                .occurrences
                .iter()
                .filter(|o| is_definition(o) && !o.enclosing_range.is_empty())
                .filter(|def| contains(&def.enclosing_range, &r.range))
                .map(|def| span(&def.enclosing_range).0);
            out.entry((
                d.relative_path.clone(),
                span(&r.range).0,
                callee.to_string(),
            ))
            .or_default()
            .extend(holders);
        }
    }
    out
}

/// The index holds a reference for every edge of the graph and no other,
/// each inside its caller's definition.
fn assert_references_match(scip: &ScipIndex, index: &Index, min: Confidence) {
    let expected = graph_references(index, min);
    let found = scip_references(scip);
    assert_same(
        &found.keys().cloned().collect(),
        &expected.keys().cloned().collect(),
    );
    for (reference, callers) in &expected {
        for caller in callers.iter().flatten() {
            assert!(
                found[reference].contains(caller),
                "{reference:?} is not inside its caller's definition (line {})",
                caller + 1
            );
        }
    }
}

/// Equal sets, or a failure listing what only one side has.
fn assert_same<T: Ord + std::fmt::Debug>(ours: &BTreeSet<T>, expected: &BTreeSet<T>) {
    let missing: Vec<&T> = expected.difference(ours).take(20).collect();
    let extra: Vec<&T> = ours.difference(expected).take(20).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "{} expected but not in the index, e.g. {missing:#?}\n{} in the index but not expected, e.g. {extra:#?}",
        expected.difference(ours).count(),
        ours.difference(expected).count()
    );
}

#[test]
fn the_demo_exports_the_graphs_definitions_references_and_metadata() {
    let tmp = demo_copy();
    let repo = tmp.path().join("demo");
    let scip = export(&repo, &tmp.path().join("index.scip"), PINNED);
    let index = Index::open(&repo, &NoProgress).unwrap();

    // Metadata first, naming the tool and the root.
    let meta = scip.metadata.as_ref().unwrap();
    let tool = meta.tool_info.as_ref().unwrap();
    assert_eq!(tool.name, "ripple");
    assert_eq!(tool.version, env!("CARGO_PKG_VERSION"));
    let root = repo.canonicalize().unwrap();
    assert_eq!(meta.project_root, format!("file://{}", root.display()));
    assert_eq!(
        meta.text_document_encoding.enum_value(),
        Ok(scip::types::TextEncoding::UTF8)
    );
    let bytes = std::fs::read(tmp.path().join("index.scip")).unwrap();
    let first = ScipIndex::parse_from_bytes(&bytes[..first_message_len(&bytes)]).unwrap();
    assert!(first.metadata.is_some() && first.documents.is_empty());

    // One document per indexed file, relative and `/`-separated.
    let paths: BTreeSet<&str> = scip
        .documents
        .iter()
        .map(|d| d.relative_path.as_str())
        .collect();
    let files: BTreeSet<&str> = index.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, files);
    for d in &scip.documents {
        assert!(!d.relative_path.starts_with('/') && !d.relative_path.contains('\\'));
        assert_eq!(
            d.position_encoding.enum_value(),
            Ok(scip::types::PositionEncoding::UTF8CodeUnitOffsetFromLineStart)
        );
    }

    // A definition on every declaration's name, inside its enclosing range.
    let definitions: usize = scip
        .documents
        .iter()
        .map(|d| d.occurrences.iter().filter(|o| is_definition(o)).count())
        .sum();
    let repo_decls = index.res.decls.iter().filter(|d| !d.is_external()).count();
    let interface_methods = 1 + 1 + 4; // Clock.Now, EventSink.Emit, Store's four
    assert_eq!(definitions, repo_decls + interface_methods);
    for d in &scip.documents {
        let source = std::fs::read_to_string(repo.join(&d.relative_path)).unwrap();
        for o in d.occurrences.iter().filter(|o| is_definition(o)) {
            if o.enclosing_range.is_empty() {
                continue;
            }
            assert!(contains(&o.enclosing_range, &o.range), "{o:?}");
            let name = &information(&scip, &o.symbol).display_name;
            if span(&o.range).1 != span(&o.range).3 && !o.symbol.ends_with('/') {
                assert_eq!(text_at(&source, &o.range), name, "in {}", d.relative_path);
            }
        }
    }

    // Exact symbols, as scip-go and scip-python spell them.
    let quote = format!("scip-go gomod github.com/acme/shipd v1.2.3 `{GO_PKG}`/Service#Quote().");
    let (doc, def) = definition(&scip, &quote);
    assert_eq!(doc.relative_path, "internal/shipping/service.go");
    let source = std::fs::read_to_string(repo.join(&doc.relative_path)).unwrap();
    assert_eq!(text_at(&source, &def.range), "Quote");
    assert!(
        source
            .lines()
            .nth(span(&def.range).0 as usize)
            .unwrap()
            .starts_with("func (s *Service) Quote(")
    );
    let validate = "scip-python python demo 1.0 `shop.auth.tokens`/validate_token().";
    assert_eq!(
        definition(&scip, validate).0.relative_path,
        "shop/auth/tokens.py"
    );
    let module = "scip-python python demo 1.0 `shop.auth.tokens`/__init__:";
    assert_eq!(definition(&scip, module).1.range, vec![0, 0, 0]);
    for d in &scip.documents {
        for o in &d.occurrences {
            scip::symbol::parse_symbol(&o.symbol).unwrap_or_else(|e| panic!("{}: {e:?}", o.symbol));
        }
    }

    // `App(…)` refers to the `__init__` it runs and to the class it names.
    let app = document(&scip, "shop/api/app.py");
    let source = std::fs::read_to_string(repo.join("shop/api/app.py")).unwrap();
    let constructed: BTreeSet<&str> = app
        .occurrences
        .iter()
        .filter(|o| !is_definition(o) && text_at(&source, &o.range) == "App")
        .map(|o| o.symbol.as_str())
        .collect();
    assert_eq!(
        constructed,
        BTreeSet::from([
            "scip-python python demo 1.0 `shop.api.app`/App#",
            "scip-python python demo 1.0 `shop.api.app`/App#__init__().",
        ])
    );

    // References: every edge of the graph, at its call's line, inside its caller.
    assert_references_match(&scip, &index, Confidence::Possible);

    // Test code carries the Test role; other code does not.
    let test_fn = "scip-go gomod github.com/acme/shipd v1.2.3 `github.com/acme/shipd/cmd/shipd`/TestCheckToken().";
    assert!(has_role(definition(&scip, test_fn).1, SymbolRole::Test));
    assert!(!has_role(definition(&scip, &quote).1, SymbolRole::Test));
    let callers_in_tests = document(&scip, "internal/shipping/service_test.go")
        .occurrences
        .iter()
        .filter(|o| !is_definition(o))
        .collect::<Vec<_>>();
    assert!(!callers_in_tests.is_empty());
    assert!(
        callers_in_tests
            .iter()
            .all(|o| has_role(o, SymbolRole::Test))
    );

    // Every referenced symbol is defined in a document or is an external symbol.
    let defined: BTreeSet<&str> = scip
        .documents
        .iter()
        .flat_map(|d| d.occurrences.iter().filter(|o| is_definition(o)))
        .map(|o| o.symbol.as_str())
        .collect();
    let external: BTreeSet<&str> = scip
        .external_symbols
        .iter()
        .map(|s| s.symbol.as_str())
        .collect();
    for d in &scip.documents {
        for o in d.occurrences.iter().filter(|o| !is_definition(o)) {
            assert!(
                defined.contains(o.symbol.as_str()) || external.contains(o.symbol.as_str()),
                "{} referenced but neither defined nor external",
                o.symbol
            );
        }
    }
    assert!(external.iter().all(|s| !defined.contains(s)));
    assert!(external.contains(
        "scip-go gomod github.com/golang/go/src go1.19 `encoding/json`/Decoder#Decode()."
    ));
    assert!(
        external
            .iter()
            .any(|s| s.starts_with("scip-python python python-stdlib "))
    );
}

/// The length of the first `Index` message of a stream of them: the first
/// field's tag and length.
fn first_message_len(bytes: &[u8]) -> usize {
    assert_eq!(
        bytes[0], 0x0a,
        "the stream starts with Index.metadata (field 1)"
    );
    let mut len = 0usize;
    let mut shift = 0;
    let mut i = 1;
    loop {
        let b = bytes[i];
        len |= ((b & 0x7f) as usize) << shift;
        i += 1;
        if b & 0x80 == 0 {
            break;
        }
        shift += 7;
    }
    i + len
}

#[test]
fn go_implementations_and_python_overrides_are_relationships() {
    let tmp = demo_copy();
    let repo = tmp.path().join("demo");
    let scip = export(&repo, &tmp.path().join("index.scip"), PINNED);
    let go = |s: &str| format!("scip-go gomod github.com/acme/shipd v1.2.3 `{GO_PKG}`/{s}");
    assert_eq!(
        implementations(&scip, &go("SystemClock#")),
        BTreeSet::from([go("Clock#")])
    );
    assert_eq!(
        implementations(&scip, &go("SystemClock#Now().")),
        BTreeSet::from([go("Clock#Now.")])
    );
    let (doc, now) = definition(&scip, &go("Clock#Now."));
    let source = std::fs::read_to_string(repo.join(&doc.relative_path)).unwrap();
    assert_eq!(text_at(&source, &now.range), "Now");
    assert!(implementations(&scip, &go("EventLog#")).contains(&go("EventSink#")));
    assert!(implementations(&scip, &go("EventLog#Emit().")).contains(&go("EventSink#Emit.")));
    // A type missing one of Store's methods does not implement it.
    assert!(!implementations(&scip, &go("EventLog#")).contains(&go("Store#")));

    let py = |s: &str| format!("scip-python python demo 1.0 {s}");
    let email_send = py("`shop.notifications.channels`/EmailChannel#format().");
    assert_eq!(
        implementations(&scip, &email_send),
        BTreeSet::from([py("`shop.notifications.channels`/Channel#format().")])
    );
    assert_eq!(
        implementations(&scip, &py("`shop.notifications.channels`/EmailChannel#")),
        BTreeSet::from([py("`shop.notifications.channels`/Channel#")])
    );
    // Dunder methods are left out, as scip-python leaves them out.
    for d in &scip.documents {
        for s in &d.symbols {
            if s.display_name.starts_with("__") {
                assert!(s.relationships.is_empty(), "{}", s.symbol);
            }
        }
    }
}

#[test]
fn min_confidence_leaves_out_references_and_documentation_says_so() {
    let tmp = demo_copy();
    let repo = tmp.path().join("demo");
    let all = export(&repo, &tmp.path().join("all.scip"), PINNED);
    let mut certain_flags = PINNED.to_vec();
    certain_flags.extend(["--min-confidence", "certain"]);
    let certain = export(&repo, &tmp.path().join("certain.scip"), &certain_flags);
    let index = Index::open(&repo, &NoProgress).unwrap();
    assert_references_match(&certain, &index, Confidence::Certain);
    let expected = graph_references(&index, Confidence::Certain);
    assert!(expected.len() < graph_references(&index, Confidence::Possible).len());
    assert!(scip_references(&all).len() > expected.len());

    // A callee reached only by uncertain edges says how many were left out.
    let res = &index.res;
    let counted = res
        .decl_ids()
        .find(|&d| {
            !res.decls[d].is_external()
                && res
                    .edges
                    .iter()
                    .any(|e| e.callee == d && e.confidence != Confidence::Certain)
        })
        .unwrap();
    let name = short(&res.decls[counted].name);
    let doc_of = |scip: &ScipIndex| {
        scip.documents
            .iter()
            .flat_map(|d| d.symbols.iter())
            .find(|s| {
                s.display_name == name
                    && s.documentation
                        .iter()
                        .any(|l| l.starts_with("ripple call graph:"))
            })
            .map(|s| s.documentation.join("\n"))
            .unwrap()
    };
    assert!(doc_of(&certain).contains("below --min-confidence certain are not references here"));
    assert!(doc_of(&all).contains("References that are not certain:"));
}

/// A repository written for this test: a distribution named in
/// pyproject.toml, a Go module of its own, non-ASCII text before names,
/// an override through a base that does not define the method, and an
/// interface embedding another.
fn fixture() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let write = |path: &str, text: &str| {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write(
        "pyproject.toml",
        "[project]\nname = \"acme.shop\"\nversion = \"2.5.0\"\n",
    );
    write("app/__init__.py", "");
    write(
        "app/shapes.py",
        "class Shape:\n    def area(self):\n        return 0\n\n\nclass Middle(Shape):\n    pass\n\n\nclass Square(Middle):\n    def area(self):\n        return 4\n\n    def __init__(self):\n        self.s = 2\n\n\ndef total():\n    label = \"é—\"; sq = Square(); return sq.area() + len(label)\n",
    );
    write("go.mod", "module example.com/geo\n\ngo 1.21\n");
    write(
        "geo/geo.go",
        "package geo\n\n// Namer names.\ntype Namer interface {\n\tName() string\n}\n\n// Shape has an area and a name.\ntype Shape interface {\n\tNamer\n\tArea(scale int) int\n}\n\ntype Square struct{ side int }\n\nfunc (s Square) Area(scale int) int { return s.side * s.side * scale }\n\nfunc (s *Square) Name() string { return \"□\" }\n\ntype Line struct{}\n\nfunc (Line) Area() int { return 0 }\n\nfunc (Line) Name() string { return \"ł\" }\n\nfunc Describe(s Shape) string { x := \"ü\"; return x + s.Name() }\n",
    );
    tmp
}

#[test]
fn a_fixture_gives_exact_symbols_positions_and_relationships() {
    let tmp = fixture();
    let out = tempfile::tempdir().unwrap();
    let scip = export(
        tmp.path(),
        &out.path().join("index.scip"),
        &["--module-version", "v0.1.0"],
    );

    // pyproject.toml names the distribution; its first dot becomes a slash.
    let py = |s: &str| format!("scip-python python acme/shop 2.5.0 {s}");
    let square_area = py("`app.shapes`/Square#area().");
    assert_eq!(
        implementations(&scip, &square_area),
        BTreeSet::from([py("`app.shapes`/Shape#area().")])
    );
    assert_eq!(
        implementations(&scip, &py("`app.shapes`/Square#")),
        BTreeSet::from([py("`app.shapes`/Middle#")])
    );
    let (_, def) = definition(&scip, &square_area);
    assert_eq!(def.range, vec![10, 8, 12]);
    assert_eq!(def.enclosing_range, vec![10, 4, 11, 16]);
    // `sq.area()` after a two-byte `é` and a three-byte `—`: UTF-8 code units.
    let shapes = document(&scip, "app/shapes.py");
    let line = "    label = \"é—\"; sq = Square(); return sq.area() + len(label)";
    let at = line.find("area").unwrap() as i32;
    let refs: Vec<&Occurrence> = shapes
        .occurrences
        .iter()
        .filter(|o| !is_definition(o) && o.range == vec![18, at, at + 4])
        .collect();
    assert!(!refs.is_empty(), "{:#?}", shapes.occurrences);
    assert!(refs.iter().any(|o| o.symbol == square_area));

    let go = |s: &str| format!("scip-go gomod example.com/geo v0.1.0 `example.com/geo/geo`/{s}");
    // Square has Area(int) and, through its pointer, Name: it implements
    // Shape (with the embedded Namer) and Namer. Line's Area takes no
    // parameter: it implements Namer only.
    assert_eq!(
        implementations(&scip, &go("Square#")),
        BTreeSet::from([go("Namer#"), go("Shape#")])
    );
    assert_eq!(
        implementations(&scip, &go("Square#Area().")),
        BTreeSet::from([go("Shape#Area.")])
    );
    assert_eq!(
        implementations(&scip, &go("Square#Name().")),
        BTreeSet::from([go("Namer#Name.")])
    );
    assert_eq!(
        implementations(&scip, &go("Line#")),
        BTreeSet::from([go("Namer#")])
    );
    let geo = document(&scip, "geo/geo.go");
    let package = geo
        .occurrences
        .iter()
        .find(|o| o.symbol == go("").trim_end() && is_definition(o))
        .expect("the package clause defines the package");
    assert_eq!(package.range, vec![0, 8, 11]);
    // `s.Name()` after `"ü"` (two bytes) in Describe.
    let describe_line = 25;
    let line = "func Describe(s Shape) string { x := \"ü\"; return x + s.Name() }";
    let at = line.find("Name()").unwrap() as i32;
    assert!(
        geo.occurrences
            .iter()
            .any(|o| !is_definition(o) && o.range == vec![describe_line, at, at + 4]),
        "{:#?}",
        geo.occurrences
    );
}

#[test]
fn errors_say_what_to_do_and_leave_no_partial_file() {
    let tmp = fixture();
    let out = tmp.path().join("no/such/dir/index.scip");
    let (code, _, stderr) = ripple(&[
        "--repo",
        tmp.path().to_str().unwrap(),
        "export",
        "scip",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("the directory") && stderr.contains("does not exist; create it"),
        "{stderr}"
    );
    assert!(!out.parent().unwrap().exists());
    let (code, stdout, _) = ripple(&[
        "--repo",
        tmp.path().to_str().unwrap(),
        "--json",
        "export",
        "scip",
        "-o",
        "-",
    ]);
    assert_eq!(code, 2);
    assert!(stdout.contains("\"usage\""), "{stdout}");
}

#[test]
fn stdout_gets_the_same_index_as_a_file() {
    let tmp = fixture();
    let out = tempfile::tempdir().unwrap();
    let file = export(
        tmp.path(),
        &out.path().join("index.scip"),
        &["--module-version", "v1"],
    );
    let piped = Command::new(env!("CARGO_BIN_EXE_ripple"))
        .args([
            "--repo",
            tmp.path().to_str().unwrap(),
            "export",
            "scip",
            "-o",
            "-",
            "--module-version",
            "v1",
        ])
        .output()
        .unwrap();
    assert!(piped.status.success());
    let piped = ScipIndex::parse_from_bytes(&piped.stdout).unwrap();
    assert_eq!(piped.documents, file.documents);
    assert_eq!(piped.external_symbols, file.external_symbols);
}

#[test]
fn the_json_summary_counts_what_the_index_holds() {
    let tmp = fixture();
    let out = tempfile::tempdir().unwrap();
    let path = out.path().join("index.scip");
    let (code, stdout, stderr) = ripple(&[
        "--repo",
        tmp.path().to_str().unwrap(),
        "--json",
        "export",
        "scip",
        "-o",
        path.to_str().unwrap(),
        "--min-confidence",
        "likely",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let summary: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let scip = ScipIndex::parse_from_bytes(&std::fs::read(&path).unwrap()).unwrap();
    let occurrences = scip.documents.iter().flat_map(|d| d.occurrences.iter());
    let definitions = occurrences.clone().filter(|o| is_definition(o)).count();
    let references = occurrences.filter(|o| !is_definition(o)).count();
    assert_eq!(summary["documents"], scip.documents.len());
    assert_eq!(summary["definitions"], definitions);
    assert_eq!(summary["references"], references);
    assert_eq!(summary["external_symbols"], scip.external_symbols.len());
    assert_eq!(summary["bytes"], std::fs::metadata(&path).unwrap().len());
    assert_eq!(summary["min_confidence"], "likely");
    assert_eq!(summary["python_package"], "acme/shop 2.5.0");
}

#[test]
fn odd_files_export_without_failing() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let files: &[(&str, &[u8])] = &[
        (
            "broken.py",
            b"def f(:\n    return g(\n\ndef g():\n    f()\n",
        ),
        (
            "crlf.py",
            b"def a():\r\n    return b()\r\n\r\ndef b():\r\n    return 1\r\n",
        ),
        ("empty.py", b""),
        ("latin1.py", b"# caf\xe9\ndef h():\n    return h()\n"),
        (
            "deep.py",
            &[
                b"x = ".as_slice(),
                &[b'('; 3000],
                b"1",
                &[b')'; 3000],
                b"\n",
            ]
            .concat(),
        ),
        ("go.mod", b"module example.com/odd\n"),
        (
            "odd.go",
            b"package odd\n\ntype I interface {\n\tM(\n}\n\nfunc (t T) M() {}\n",
        ),
    ];
    for (path, bytes) in files {
        std::fs::write(root.join(path), bytes).unwrap();
    }
    let out = tempfile::tempdir().unwrap();
    let scip = export(root, &out.path().join("index.scip"), &[]);
    let crlf = document(&scip, "crlf.py");
    let source = std::fs::read_to_string(root.join("crlf.py")).unwrap();
    let call = crlf
        .occurrences
        .iter()
        .find(|o| !is_definition(o) && o.symbol.ends_with("/b()."))
        .expect("a() calls b()");
    assert_eq!(text_at(&source, &call.range), "b");

    // A file changed after the refresh is written without occurrences and named.
    let index = Index::open(root, &NoProgress).unwrap();
    std::fs::write(root.join("crlf.py"), "def other():\n    pass\n").unwrap();
    let mut bytes = Vec::new();
    let summary = ripple::export::scip::write(
        &index,
        &ripple::export::scip::ScipOptions::default(),
        &mut bytes,
        &NoProgress,
    )
    .unwrap();
    assert_eq!(summary.unreadable, vec!["crlf.py".to_owned()]);
    let scip = ScipIndex::parse_from_bytes(&bytes).unwrap();
    assert!(document(&scip, "crlf.py").occurrences.is_empty());
}

#[test]
fn two_exports_of_the_same_tree_are_byte_identical() {
    let tmp = demo_copy();
    let repo = tmp.path().join("demo");
    let out = tmp.path().join("index.scip");
    export(&repo, &out, PINNED);
    let first = std::fs::read(&out).unwrap();
    export(&repo, &out, PINNED);
    assert!(first == std::fs::read(&out).unwrap());
}

fn on_path(tool: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(tool))
            .find(|p| p.is_file())
    })
}

/// Sourcegraph's `scip` CLI (`go install github.com/sourcegraph/scip/cmd/scip@latest`)
/// lints and prints the demo's index; without it this test only says so.
#[test]
fn scip_cli_lints_and_prints_the_index_when_installed() {
    let Some(scip_cli) = on_path("scip") else {
        eprintln!("skipped: `scip` is not on PATH");
        return;
    };
    let tmp = demo_copy();
    let out = tmp.path().join("index.scip");
    export(&tmp.path().join("demo"), &out, PINNED);
    let lint = Command::new(&scip_cli)
        .arg("lint")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        lint.status.success(),
        "{}",
        String::from_utf8_lossy(&lint.stderr)
    );
    let print = Command::new(&scip_cli)
        .arg("print")
        .arg(&out)
        .output()
        .unwrap();
    assert!(print.status.success());
    assert!(String::from_utf8_lossy(&print.stdout).contains("Service#Quote()."));
}

/// scip-python (`npm install @sourcegraph/scip-python`; found on PATH or
/// through `RIPPLE_SCIP_PYTHON`) indexes the demo's Python: for every
/// function, method and class both define, the symbols are equal.
#[test]
fn python_symbols_equal_scip_pythons_when_installed() {
    let tool = std::env::var_os("RIPPLE_SCIP_PYTHON")
        .map(PathBuf::from)
        .or_else(|| on_path("scip-python"));
    let Some(tool) = tool else {
        eprintln!(
            "skipped: scip-python is not installed (set RIPPLE_SCIP_PYTHON or put it on PATH)"
        );
        return;
    };
    let tmp = demo_copy();
    let repo = tmp.path().join("demo");
    let ours_index = export(&repo, &tmp.path().join("ripple.scip"), PINNED);
    let theirs_path = tmp.path().join("scip-python.scip");
    let run = Command::new(&tool)
        .args([
            "index",
            "--quiet",
            "--project-name",
            "demo",
            "--project-version",
            "1.0",
            "--output",
        ])
        .arg(&theirs_path)
        .current_dir(&repo)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let theirs_index = ScipIndex::parse_from_bytes(&std::fs::read(&theirs_path).unwrap()).unwrap();
    let definitions = |index: &ScipIndex| -> BTreeMap<(String, i32), String> {
        index
            .documents
            .iter()
            .filter(|d| d.relative_path.ends_with(".py"))
            .flat_map(|d| {
                d.occurrences
                    .iter()
                    .filter(|o| {
                        is_definition(o)
                            && (o.symbol.ends_with("().")
                                || o.symbol.ends_with('#')
                                || o.symbol.ends_with("__init__:"))
                    })
                    .map(move |o| {
                        (
                            (d.relative_path.clone(), span(&o.range).0),
                            o.symbol.clone(),
                        )
                    })
            })
            .collect()
    };
    let ours = definitions(&ours_index);
    let theirs = definitions(&theirs_index);
    let mut compared = 0;
    let mut differ = Vec::new();
    for (at, symbol) in &ours {
        if let Some(other) = theirs.get(at) {
            compared += 1;
            if other != symbol {
                differ.push(format!(
                    "{}:{}: ripple {symbol}\n    scip-python {other}",
                    at.0,
                    at.1 + 1
                ));
            }
        }
    }
    assert!(compared > 100, "only {compared} definitions in common");
    assert!(
        differ.is_empty(),
        "{} of {compared} differ:\n{}",
        differ.len(),
        differ.join("\n")
    );

    // Where scip-python says a method implements a base's, so does ripple.
    let implementing = |index: &ScipIndex| -> BTreeMap<String, BTreeSet<String>> {
        index
            .documents
            .iter()
            .flat_map(|d| d.symbols.iter())
            .filter(|s| s.relationships.iter().any(|r| r.is_implementation))
            .map(|s| {
                let targets = s.relationships.iter().filter(|r| r.is_implementation);
                (
                    s.symbol.clone(),
                    targets.map(|r| r.symbol.clone()).collect(),
                )
            })
            .collect()
    };
    let (ours, theirs) = (implementing(&ours_index), implementing(&theirs_index));
    assert!(!theirs.is_empty());
    // ripple relates classes to the repository's bases only.
    let project = "scip-python python demo 1.0 ";
    for (symbol, targets) in &theirs {
        let targets: BTreeSet<String> = targets
            .iter()
            .filter(|t| t.starts_with(project))
            .cloned()
            .collect();
        if !targets.is_empty() {
            assert_eq!(ours.get(symbol), Some(&targets), "{symbol}");
        }
    }
}

//! The graph queries: index, overview, find, show, callers/callees, blast,
//! tests, unresolved and edges, as text or JSON.

use super::*;

/// `index --json`'s document (also the `index` part of the overview's).
pub(super) fn index_doc(index: &Index) -> json::IndexDoc<'_> {
    let s = &index.stats;
    json::IndexDoc {
        root: index.root.display().to_string(),
        files: s.files,
        parsed: s.parsed,
        touched: s.touched,
        reused: s.reused,
        removed: s.removed,
        lines: s.lines,
        declarations: s.declarations,
        edges: s.edges,
        unresolved: s.unresolved,
        skipped: &s.skipped,
        generated_files: s.generated_files,
        other_files: s.other_files,
        syntax_errors: s
            .files_with_syntax_errors
            .iter()
            .map(|(path, errors)| json::PathErrors {
                path,
                errors: *errors,
            })
            .collect(),
        rebuilt: &s.rebuilt,
        graph: &s.graph,
        timings_ms: &s.timings_ms,
    }
}

pub(super) fn cmd_index(index: &Index, json: bool, out: &mut impl Write) -> Result<ExitCode> {
    let s = &index.stats;
    if json {
        print_json(out, &index_doc(index))?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(
        out,
        "indexed {} ({}, {}) in {:.0} ms",
        index.root.display(),
        counted(s.files, "file", "files"),
        counted(s.lines as usize, "line", "lines"),
        s.timings_ms.total
    )?;
    writeln!(
        out,
        "  parsed {} · unchanged {} · removed {}",
        s.parsed, s.reused, s.removed
    )?;
    writeln!(
        out,
        "  {} · {} · {}",
        counted(s.declarations, "declaration", "declarations"),
        counted(s.edges, "call edge", "call edges"),
        counted(
            s.unresolved,
            "unresolved call site",
            "unresolved call sites"
        )
    )?;
    if s.generated_files > 0 {
        writeln!(
            out,
            "  {} generated files in the graph (marked; not reviewed or searched)",
            s.generated_files
        )?;
    }
    match s.graph.action {
        ripple::index::GraphAction::Resolved => {
            let w = &s.graph.work;
            writeln!(
                out,
                "  graph resolved in {:.0} ms ({} Python files, {} constraints, {} worklist steps; {} Go files), because:",
                s.timings_ms.resolve,
                w.python_files,
                w.python_constraints,
                w.python_worklist_steps,
                w.go_files
            )?;
            for why in &s.graph.why {
                writeln!(out, "    {}", ripple::terminal_text::strip(why))?;
            }
        }
        ripple::index::GraphAction::Reused => {
            writeln!(out, "  graph reused: no file changed what resolution reads")?
        }
    }
    if !s.skipped.is_empty() {
        let mut by_reason: std::collections::BTreeMap<_, usize> = Default::default();
        for sk in &s.skipped {
            *by_reason.entry(sk.reason).or_default() += 1;
        }
        let parts: Vec<String> = by_reason
            .iter()
            .map(|(r, n)| format!("{n} {}", r.describe()))
            .collect();
        writeln!(
            out,
            "  skipped {} ({}); `ripple index --json` lists them",
            s.skipped.len(),
            parts.join(", ")
        )?;
    }
    if !s.files_with_syntax_errors.is_empty() {
        writeln!(
            out,
            "  {} files have syntax errors (indexed as far as they parse)",
            s.files_with_syntax_errors.len()
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// What `ripple PATH` prints when it is not in a terminal (or with --json): the index
/// summary and the places to start (the most-called declarations).
pub(super) fn cmd_overview(index: &Index, json: bool, out: &mut impl Write) -> Result<ExitCode> {
    let res = &index.res;
    let mut hot: Vec<(usize, DeclId)> = res
        .decl_ids()
        .filter(|&d| !res.decls[d].is_external() && res.decls[d].kind.is_callable())
        .map(|d| (index.graph.fan_in(res, d), d))
        .filter(|(n, _)| *n > 0)
        .collect();
    hot.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let paths: Vec<&str> = index.files.iter().map(|f| f.path.as_str()).collect();
    let cycles = ripple::graph::Graph::import_cycles(res, &paths);
    if json {
        let doc = json::OverviewDoc {
            index: index_doc(index),
            hotspots: hot
                .iter()
                .take(10)
                .map(|&(callers, d)| json::Hotspot {
                    decl: DeclRef::of(index, d),
                    callers,
                })
                .collect(),
            import_cycles: &cycles,
        };
        print_json(out, &doc)?;
        return Ok(ExitCode::SUCCESS);
    }
    cmd_index(index, false, out)?;
    writeln!(out, "\nhotspots (most direct callers):")?;
    for (n, d) in hot.iter().take(10) {
        let r = DeclRef::of(index, *d);
        writeln!(out, "  {n:>4}  {}  {}", r.name, location(&r))?;
    }
    if !cycles.is_empty() {
        writeln!(out, "\nimport cycles between packages:")?;
        for c in cycles.iter().take(10) {
            writeln!(out, "  {}", c.join(" ↔ "))?;
        }
    }
    if let Some((_, top)) = hot.first() {
        let name = &res.decls[*top].name;
        writeln!(
            out,
            "\nnext: ripple --repo {} blast '{}'",
            index.root.display(),
            name
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

pub(super) fn cmd_find(
    index: &Index,
    query: &str,
    limit: usize,
    json: bool,
    out: &mut impl Write,
) -> Result<ExitCode> {
    if json {
        print_json(out, &find_doc(index, query, limit))?;
        return Ok(ExitCode::SUCCESS);
    }
    let hits = lookup::fuzzy(&index.res, query, limit);
    if hits.is_empty() {
        writeln!(out, "no declarations match `{query}`")?;
    }
    for (d, _) in hits {
        let r = DeclRef::of(index, d);
        writeln!(out, "{:<9} {}  {}", r.kind, r.name, location(&r))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `find --json`'s document.
pub(super) fn find_doc<'q>(
    index: &Index,
    query: &'q str,
    limit: usize,
) -> json::QueryResults<'q, json::FoundDecl> {
    let results = lookup::fuzzy(&index.res, query, limit)
        .into_iter()
        .map(|(d, score)| {
            let r = DeclRef::of(index, d);
            json::FoundDecl {
                name: r.name,
                kind: r.kind,
                file: r.file,
                line: r.line,
                score,
            }
        })
        .collect();
    json::QueryResults { query, results }
}

pub(super) fn cmd_show(
    index: &Index,
    decl: DeclId,
    json: bool,
    out: &mut impl Write,
) -> Result<ExitCode> {
    if json {
        print_json(out, &show_doc(index, decl))?;
        return Ok(ExitCode::SUCCESS);
    }
    let r = DeclRef::of(index, decl);
    let local = index.local_decl(decl);
    let callers =
        index
            .graph
            .neighbours(&index.res, decl, Direction::Callers, Confidence::Possible);
    let callees =
        index
            .graph
            .neighbours(&index.res, decl, Direction::Callees, Confidence::Possible);
    let count = |list: &[(DeclId, Confidence, u32)], c: Confidence| {
        list.iter().filter(|x| x.1 == c).count()
    };
    let d = &index.res.decls[decl];
    writeln!(out, "{} {}", r.kind, r.name)?;
    match &r.file {
        Some(_) => writeln!(out, "  {}–{}", location(&r), d.span.end_line)?,
        None => writeln!(out, "  outside the repository: called from it, not indexed")?,
    }
    if let Some(l) = local {
        writeln!(out, "  {}", l.signature)?;
        if let Some(doc) = &l.doc {
            for line in doc.lines().take(6) {
                writeln!(out, "  │ {line}")?;
            }
        }
    }
    writeln!(
        out,
        "  callers: {} ({} certain, {} likely, {} possible)",
        callers.len(),
        count(&callers, Confidence::Certain),
        count(&callers, Confidence::Likely),
        count(&callers, Confidence::Possible)
    )?;
    writeln!(
        out,
        "  callees: {} ({} certain, {} likely, {} possible)",
        callees.len(),
        count(&callees, Confidence::Certain),
        count(&callees, Confidence::Likely),
        count(&callees, Confidence::Possible)
    )?;
    Ok(ExitCode::SUCCESS)
}

/// `show --json`'s document.
pub(super) fn show_doc(index: &Index, decl: DeclId) -> json::ShowDoc {
    let r = DeclRef::of(index, decl);
    let local = index.local_decl(decl);
    let counts = |dir: Direction| {
        let list = index
            .graph
            .neighbours(&index.res, decl, dir, Confidence::Possible);
        let count = |c: Confidence| list.iter().filter(|x| x.1 == c).count();
        json::EdgeCounts {
            total: list.len(),
            certain: count(Confidence::Certain),
            likely: count(Confidence::Likely),
            possible: count(Confidence::Possible),
        }
    };
    let d = &index.res.decls[decl];
    json::ShowDoc {
        name: r.name,
        kind: r.kind,
        lang: d.lang.name(),
        file: r.file,
        line: r.line,
        end_line: d.span.end_line,
        signature: local.map(|l| l.signature.clone()),
        doc: local.and_then(|l| l.doc.clone()),
        is_test: r.is_test,
        generated: r.generated,
        callers: counts(Direction::Callers),
        callees: counts(Direction::Callees),
    }
}

pub(super) fn cmd_walk(
    index: &Index,
    decl: DeclId,
    dir: Direction,
    depth: u32,
    min: Confidence,
    json: bool,
    out: &mut impl Write,
) -> Result<ExitCode> {
    if json {
        print_json(out, &walk_doc(index, decl, dir, depth, min))?;
        return Ok(ExitCode::SUCCESS);
    }
    let refs = walk_refs(index, decl, dir, depth, min);
    let root = DeclRef::of(index, decl);
    let what = if dir == Direction::Callers {
        "callers"
    } else {
        "callees"
    };
    writeln!(out, "{what} of {} ({})", root.name, heading_location(&root))?;
    if refs.is_empty() {
        writeln!(out, "  none")?;
    }
    let mut last_hop = 0;
    for r in &refs {
        if r.hop != last_hop {
            writeln!(out, "hop {}:", r.hop)?;
            last_hop = r.hop;
        }
        let mark = match r.confidence {
            Confidence::Certain => " ",
            Confidence::Likely => "~",
            Confidence::Possible => "?",
        };
        let test = if r.decl.is_test { " [test]" } else { "" };
        let generated = if r.decl.generated { " [generated]" } else { "" };
        writeln!(
            out,
            "  {mark} {}{test}{generated}  {}",
            r.decl.name,
            location(&r.decl)
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

fn walk_refs(
    index: &Index,
    decl: DeclId,
    dir: Direction,
    depth: u32,
    min: Confidence,
) -> Vec<ReachedRef> {
    index
        .graph
        .traverse(&index.res, decl, dir, depth, min)
        .iter()
        .map(|r| ReachedRef::of(index, r))
        .collect()
}

/// `callers --json`'s and `callees --json`'s document.
pub(super) fn walk_doc(
    index: &Index,
    decl: DeclId,
    dir: Direction,
    depth: u32,
    min: Confidence,
) -> json::WalkDoc {
    let refs = walk_refs(index, decl, dir, depth, min);
    let hops = (1..=refs.iter().map(|r| r.hop).max().unwrap_or(0))
        .map(|hop| json::Hop {
            hop,
            decls: refs.iter().filter(|r| r.hop == hop).cloned().collect(),
        })
        .collect();
    json::WalkDoc {
        root: DeclRef::of(index, decl),
        direction: dir,
        depth,
        hops,
    }
}

pub(super) const FILES_SHOWN: usize = 20;
pub(super) const TESTS_SHOWN: usize = 10;

/// `title:` then up to `cap` items, one per line, and how many were left out.
pub(super) fn write_capped<T>(
    out: &mut impl Write,
    title: &str,
    items: &[T],
    cap: usize,
    line: impl Fn(&T) -> String,
) -> Result<()> {
    if items.is_empty() {
        return Ok(());
    }
    writeln!(out, "  {title}:")?;
    for item in items.iter().take(cap) {
        writeln!(out, "    {}", line(item))?;
    }
    if items.len() > cap {
        writeln!(
            out,
            "    … and {} more (--json lists all)",
            items.len() - cap
        )?;
    }
    Ok(())
}

/// A heading and the first ten rows under it, in a blast radius's
/// lower-bound notes; nothing when there are no rows.
pub(super) fn write_sites(
    out: &mut impl Write,
    heading: String,
    rows: Vec<String>,
) -> std::io::Result<()> {
    if rows.is_empty() {
        return Ok(());
    }
    writeln!(out, "    {heading}")?;
    for row in rows.iter().take(10) {
        writeln!(out, "      {row}")?;
    }
    Ok(())
}

/// `blast --json`'s document: the radius, and the CODEOWNERS owners of its
/// files (who must hear about the change) when the repository has the file.
pub(super) fn blast_doc(index: &Index, decl: DeclId, depth: u32) -> json::BlastDoc {
    let radius = blast::compute(index, decl, depth);
    let owners: Vec<String> = ripple::conventions::Codeowners::load(&index.root)
        .map(|c| {
            c.owners_of_all(radius.files.iter().map(String::as_str))
                .into_iter()
                .collect()
        })
        .unwrap_or_default();
    json::BlastDoc { radius, owners }
}

pub(super) fn cmd_blast(
    index: &Index,
    decl: DeclId,
    depth: u32,
    json: bool,
    out: &mut impl Write,
) -> Result<ExitCode> {
    let doc = blast_doc(index, decl, depth);
    if json {
        print_json(out, &doc)?;
        return Ok(ExitCode::SUCCESS);
    }
    let json::BlastDoc { radius: b, owners } = doc;
    writeln!(
        out,
        "blast radius of {} ({}), depth {}",
        b.root.name,
        heading_location(&b.root),
        depth
    )?;
    for h in &b.hops {
        writeln!(
            out,
            "  hop {}: {:>4} callers  ({} certain, {} likely, {} possible)",
            h.hop, h.counts.total, h.counts.certain, h.counts.likely, h.counts.possible
        )?;
    }
    writeln!(
        out,
        "  total: {:>4} callers  ({} certain, {} likely, {} possible)",
        b.total.total, b.total.certain, b.total.likely, b.total.possible
    )?;
    writeln!(
        out,
        "  {}, {}, tests ≤ depth {}: {} (all depths: {})",
        counted(b.files.len(), "file", "files"),
        counted(b.packages.len(), "package", "packages"),
        depth,
        b.tests.len(),
        b.tests_any_depth
    )?;
    // What a reviewer of the change opens next: the files it reaches and
    // the tests to run, longest lists cut (`--json` has them all).
    write_capped(out, "files", &b.files, FILES_SHOWN, |f| f.clone())?;
    write_capped(out, "tests", &b.tests, TESTS_SHOWN, |t| {
        format!("{}  {}", t.name, location(t))
    })?;
    if !owners.is_empty() {
        writeln!(out, "  owned by {}", owners.join(", "))?;
    }
    if b.lower_bound {
        writeln!(out, "  this is a lower bound:")?;
        write_sites(
            out,
            format!(
                "{} something named like it:",
                counted(
                    b.possibly_missing_callers.len(),
                    "unresolved call site calls",
                    "unresolved call sites call"
                )
            ),
            b.possibly_missing_callers
                .iter()
                .map(|u| format!("{}:{}  {}  ({})", u.file, u.line, u.text, u.reason))
                .collect(),
        )?;
        if b.unresolved_inside > 0 {
            writeln!(
                out,
                "    {} inside the radius could not be resolved (`ripple unresolved {}`)",
                counted(b.unresolved_inside, "call site", "call sites"),
                b.root.name
            )?;
        }
        write_sites(
            out,
            format!(
                "it is passed to code ripple does not follow at {}, which may call it:",
                counted(b.handed_out.len(), "call site", "call sites")
            ),
            b.handed_out
                .iter()
                .map(|h| format!("{}:{}  {}  (in {})", h.file, h.line, h.text, h.caller))
                .collect(),
        )?;
        if b.handed_out_inside > 0 {
            writeln!(
                out,
                "    {} times a function inside the radius is passed to such code",
                b.handed_out_inside
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `tests --json`'s document: the tests reaching DECL at any depth.
pub(super) fn tests_doc(index: &Index, decl: DeclId) -> json::TestsDoc {
    json::TestsDoc {
        root: DeclRef::of(index, decl),
        tests: index
            .graph
            .tests_reaching(&index.res, decl, 0)
            .iter()
            .map(|r| ReachedRef::of(index, r))
            .collect(),
    }
}

pub(super) fn cmd_tests(
    index: &Index,
    decl: DeclId,
    json: bool,
    out: &mut impl Write,
) -> Result<ExitCode> {
    let doc = tests_doc(index, decl);
    if json {
        print_json(out, &doc)?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(
        out,
        "{} {} at any depth",
        counted(doc.tests.len(), "test reaches", "tests reach"),
        doc.root.name
    )?;
    for r in doc.tests {
        writeln!(
            out,
            "  {} (hop {}, {})  {}",
            r.decl.name,
            r.hop,
            r.confidence.name(),
            location(&r.decl)
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

pub(super) fn cmd_unresolved(
    index: &Index,
    decl: Option<DeclId>,
    depth: u32,
    json: bool,
    out: &mut impl Write,
) -> Result<ExitCode> {
    let doc = unresolved_doc(index, decl, depth);
    if json {
        print_json(out, &doc)?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(
        out,
        "{}",
        counted(doc.count, "unresolved call site", "unresolved call sites")
    )?;
    for u in doc.calls {
        writeln!(
            out,
            "  {}:{}  {}  in {}  — {}",
            u.file, u.line, u.text, u.caller, u.reason
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `unresolved --json`'s document: the call sites left unresolved in the
/// repository, or inside DECL's caller radius of `depth` hops.
pub(super) fn unresolved_doc(
    index: &Index,
    decl: Option<DeclId>,
    depth: u32,
) -> json::UnresolvedDoc {
    let scope: Option<std::collections::HashSet<DeclId>> = decl.map(|d| {
        index
            .graph
            .traverse(
                &index.res,
                d,
                Direction::Callers,
                depth,
                Confidence::Possible,
            )
            .into_iter()
            .map(|r| r.decl)
            .chain(std::iter::once(d))
            .collect()
    });
    let list: Vec<blast::UnresolvedRef> = index
        .res
        .unresolved
        .iter()
        .filter(|u| scope.as_ref().is_none_or(|s| s.contains(&u.caller)))
        .map(|u| blast::unresolved_ref(index, u))
        .collect();
    json::UnresolvedDoc {
        scope: decl.map(|d| index.res.decls[d].name.clone()),
        count: list.len(),
        calls: list,
    }
}

pub(super) fn cmd_edges(
    index: &Index,
    format: EdgeFormat,
    min: Confidence,
    out: &mut impl Write,
) -> Result<ExitCode> {
    let res = &index.res;
    let mut map: std::collections::BTreeMap<&str, std::collections::BTreeSet<&str>> =
        Default::default();
    for d in &res.decls {
        if d.kind.is_callable() || d.is_external() {
            map.entry(&*d.name).or_default();
        }
    }
    let mut edges: Vec<(&str, &str, Confidence)> = Vec::new();
    for e in &res.edges {
        if e.confidence > min {
            continue;
        }
        let a = &*res.decls[e.caller].name;
        let b = &*res.decls[e.callee].name;
        map.entry(a).or_default().insert(b);
        map.entry(b).or_default();
        edges.push((a, b, e.confidence));
    }
    edges.sort();
    edges.dedup_by(|x, y| x.0 == y.0 && x.1 == y.1);
    match format {
        EdgeFormat::Json => {
            // Each function with the sorted names it calls (PyCG's format).
            print_json(out, &map)?;
        }
        EdgeFormat::Dot => {
            writeln!(out, "digraph calls {{")?;
            writeln!(out, "  rankdir=LR; node [shape=box, fontname=monospace];")?;
            for (a, b, c) in edges {
                let style = match c {
                    Confidence::Certain => "solid",
                    Confidence::Likely => "dashed",
                    Confidence::Possible => "dotted",
                };
                writeln!(out, "  {:?} -> {:?} [style={style}];", a, b)?;
            }
            writeln!(out, "}}")?;
        }
        EdgeFormat::Mermaid => {
            writeln!(out, "flowchart LR")?;
            let mut ids: std::collections::HashMap<&str, usize> = Default::default();
            for (a, b, c) in &edges {
                let next = ids.len();
                let ia = *ids.entry(a).or_insert(next);
                let next = ids.len();
                let ib = *ids.entry(b).or_insert(next);
                let arrow = match c {
                    Confidence::Certain => "-->",
                    Confidence::Likely => "-.->",
                    Confidence::Possible => "-.->|possible|",
                };
                writeln!(
                    out,
                    "  n{ia}[\"{}\"] {arrow} n{ib}[\"{}\"]",
                    mermaid_escape(a),
                    mermaid_escape(b)
                )?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub(super) fn mermaid_escape(s: &str) -> String {
    s.replace('"', "#quot;")
}

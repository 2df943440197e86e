//! Search by meaning (`search`, `similar`), and the benchmarks (`bench`,
//! `bench-search`).

use super::*;

pub(super) fn bench(path: &std::path::Path, runs: usize, json: bool) -> Result<ExitCode> {
    let report = ripple::bench::run(path, runs.max(1))
        .with_context(|| format!("cannot benchmark {}", path.display()))?;
    if json {
        say!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.to_text());
    }
    Ok(ExitCode::SUCCESS)
}

/// One search result as JSON: where it is, its score, and why it matched.
pub(super) fn hit_json(index: &Index, h: &Hit) -> json::HitDoc {
    let r = DeclRef::of(index, h.decl);
    json::HitDoc {
        name: r.name,
        kind: r.kind,
        file: r.file,
        line: r.line,
        score: round3(h.score),
        why: h
            .matched
            .iter()
            .map(|m| json::Why {
                term: m.term.clone(),
                fields: m.fields.iter().map(|f| f.name()).collect(),
            })
            .collect(),
        cosine: h.cosine.map(round3),
        generated: r.generated,
    }
}

pub(super) fn round3(x: f32) -> f64 {
    (x as f64 * 1000.0).round() / 1000.0
}

/// The search index: lexical, plus the configured embedding provider's
/// vectors (embedding only declarations the index does not hold yet).
pub(super) fn build_search(
    index: &Index,
    model_dir: Option<&std::path::Path>,
    include_generated: bool,
) -> Result<SearchIndex> {
    let opts = CorpusOptions {
        include_generated,
        ..CorpusOptions::default()
    };
    let Some(cfg) = embed_config(index, model_dir)? else {
        return Ok(SearchIndex::build(index, opts));
    };
    let model = ripple::semantic::backend_name(&cfg);
    let embedder = ripple::semantic::embedder(cfg)?;
    let bar = embed_bar();
    let search = SearchIndex::build_hybrid(index, opts, embedder, &bar)
        .with_context(|| format!("cannot embed declarations with {model}"))?;
    if let Some(n) = &search.neural
        && n.stats.embedded > 0
    {
        eprintln!(
            "ripple: embedded {} declarations with {model} ({:.0}% from the cache)",
            n.stats.embedded,
            n.stats.cache_hit_rate * 100.0
        );
    }
    Ok(search)
}

/// The embedding backend: `--model-dir` first, then ripple.toml [search].
pub(super) fn embed_config(
    index: &Index,
    model_dir: Option<&std::path::Path>,
) -> Result<Option<ripple::semantic::config::EmbedConfig>> {
    if let Some(dir) = model_dir {
        return Ok(Some(ripple::semantic::config::local(dir)));
    }
    Ok(ripple::semantic::config::load(&index.root)?)
}

pub(super) fn embed_bar() -> Bar {
    bar_with("{spinner} embedding {pos}/{len} declarations {wide_bar} {eta}")
}

pub(super) fn why_text(h: &Hit) -> String {
    h.matched
        .iter()
        .map(|m| {
            let fields: Vec<&str> = m.fields.iter().map(|f| f.name()).collect();
            format!("{}({})", m.term, fields.join(","))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

pub(super) fn print_hits(index: &Index, hits: &[Hit], out: &mut impl Write) -> Result<()> {
    if hits.is_empty() {
        writeln!(out, "  no match")?;
    }
    for h in hits {
        let r = DeclRef::of(index, h.decl);
        writeln!(out, "{:>7.3}  {}  {}", h.score, r.name, location(&r))?;
        let mut why = why_text(h);
        if let Some(c) = h.cosine {
            why = format!("cosine {c:.3}  {why}");
        }
        writeln!(out, "         {why}")?;
    }
    Ok(())
}

pub(super) fn cmd_search(
    index: &Index,
    search: &SearchIndex,
    query: &str,
    top: usize,
    json: bool,
    out: &mut impl Write,
) -> Result<ExitCode> {
    if json {
        print_json(out, &search_doc(index, search, query, top)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    let hits = search.search(query, top)?;
    print_hits(index, &hits, out)?;
    Ok(ExitCode::SUCCESS)
}

/// `search --json`'s document (one line of `search --stdin`).
pub(super) fn search_doc<'q>(
    index: &Index,
    search: &SearchIndex,
    query: &'q str,
    top: usize,
) -> Result<json::QueryResults<'q, json::HitDoc>> {
    let hits = search.search(query, top)?;
    let results = hits.iter().map(|h| hit_json(index, h)).collect();
    Ok(json::QueryResults { query, results })
}

/// One JSON line per input line, in order, so a caller can zip queries and answers.
pub(super) fn cmd_search_stdin(
    index: &Index,
    search: &SearchIndex,
    top: usize,
    out: &mut impl Write,
) -> Result<ExitCode> {
    for line in std::io::stdin().lines() {
        let query = line.context("cannot read a query from standard input")?;
        let query = query.trim_end_matches('\r');
        write!(
            out,
            "{}",
            compact_json(&search_doc(index, search, query, top)?)
        )?;
        writeln!(out)?;
        out.flush()?;
    }
    Ok(ExitCode::SUCCESS)
}

pub(super) fn cmd_similar(
    index: &Index,
    search: &SearchIndex,
    decl: DeclId,
    top: usize,
    json: bool,
    out: &mut impl Write,
) -> Result<ExitCode> {
    let hits = search.similar(index, decl, top);
    let root = DeclRef::of(index, decl);
    if json {
        let results: Vec<json::HitDoc> = hits.iter().map(|h| hit_json(index, h)).collect();
        print_json(
            out,
            &json::SimilarDoc {
                root: root.clone(),
                results,
            },
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(out, "similar to {} ({})", root.name, location(&root))?;
    print_hits(index, &hits, out)?;
    Ok(ExitCode::SUCCESS)
}

pub(super) fn bench_search(
    path: &std::path::Path,
    db: Option<&std::path::Path>,
    sample: usize,
    neural: bool,
    model_dir: Option<&std::path::Path>,
    json: bool,
) -> Result<ExitCode> {
    let bar = progress_bar();
    let index = Index::open_with(path, db, &bar)
        .with_context(|| format!("cannot index {}", path.display()))?;
    let embedder: Option<Box<dyn ripple::semantic::embed::Embedder>> = if neural {
        let cfg = embed_config(&index, model_dir)?.context(
            "--neural needs an embedding provider: set [search] in ripple.toml or pass --model-dir",
        )?;
        Some(ripple::semantic::embedder(cfg)?)
    } else {
        None
    };
    let report = ripple::semantic::bench::run(&index, sample, embedder, &embed_bar())?;
    if json {
        say!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.to_text());
    }
    Ok(ExitCode::SUCCESS)
}

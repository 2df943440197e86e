//! `ripple bench-search PATH`: search quality on a held-out style set made
//! from the repository itself, the way code-search benchmarks are made.
//! Every docstring is stripped from the indexed text; each documented,
//! non-test function or method whose docstring's first sentence has at
//! least three words gives one query (that sentence), and the answer is
//! that function. Sentences shared by several functions are dropped (no
//! single right answer). Reports recall@1, recall@10, MRR (over the top
//! 100) and the indexing and query speed.

use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;

use super::SearchIndex;
use super::corpus::{self, CorpusOptions};
use super::embed::{EmbedError, Embedder};
use super::terms;
use super::vectors::{EmbedStats, VectorError};
use crate::index::{Index, Progress};
use crate::model::DeclKind;
use crate::resolve::DeclId;

#[derive(Debug, Clone, Serialize)]
pub struct Query {
    pub text: String,
    pub answer: DeclId,
}

#[derive(Debug, Serialize)]
pub struct Report {
    pub ranker: String,
    pub declarations: usize,
    pub candidate_queries: usize,
    pub queries: usize,
    pub recall_at_1: f64,
    pub recall_at_10: f64,
    pub mrr: f64,
    pub index_ms: f64,
    pub declarations_per_second: f64,
    pub query_median_ms: f64,
    pub query_p95_ms: f64,
    /// Up to 10 queries whose answer was not in the top 10, for inspection.
    pub misses: Vec<Miss>,
    /// With a provider: how many vectors came from the cache.
    pub embedding: Option<EmbedStats>,
    pub neural: Option<Box<Report>>,
    pub hybrid: Option<Box<Report>>,
}

#[derive(Debug, Serialize)]
pub struct Miss {
    pub query: String,
    pub answer: String,
    pub rank: Option<usize>,
    pub top: String,
}

/// The first sentence of a docstring, on one line.
pub fn first_sentence(doc: &str) -> String {
    let para = doc.split("\n\n").next().unwrap_or("");
    let flat = para.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.find(". ") {
        Some(p) => flat[..=p].to_owned(),
        None => flat,
    }
}

/// The benchmark queries of a repository, in DeclId order.
pub fn queries(index: &Index) -> Vec<Query> {
    let mut by_text: std::collections::HashMap<String, Vec<DeclId>> = Default::default();
    for (i, d) in index.res.decls.iter().enumerate() {
        if !matches!(d.kind, DeclKind::Function | DeclKind::Method) || d.is_test {
            continue;
        }
        let Some(file) = index.file_of(DeclId::new(i)) else {
            continue;
        };
        if corpus::is_test_path(&file.path) {
            continue;
        }
        let Some(doc) = index
            .local_decl(DeclId::new(i))
            .and_then(|l| l.doc.as_ref())
        else {
            continue;
        };
        let sentence = first_sentence(doc);
        let words = sentence
            .split_whitespace()
            .filter(|w| w.chars().any(char::is_alphabetic))
            .count();
        if words < 3 || terms::terms_of(&sentence).is_empty() {
            continue;
        }
        by_text
            .entry(sentence.to_lowercase())
            .or_default()
            .push(DeclId::new(i));
    }
    let mut out: Vec<Query> = by_text
        .into_iter()
        .filter(|(_, ids)| ids.len() == 1)
        .map(|(_, ids)| {
            let doc = index
                .local_decl(ids[0])
                .and_then(|l| l.doc.as_deref())
                .unwrap_or("");
            Query {
                text: first_sentence(doc),
                answer: ids[0],
            }
        })
        .collect();
    out.sort_by_key(|q| q.answer);
    out
}

/// Every `len / sample`-th query, so a sample spreads over the repository.
pub fn sample(all: &[Query], sample: usize) -> Vec<Query> {
    if sample == 0 || all.len() <= sample {
        return all.to_vec();
    }
    let step = all.len() as f64 / sample as f64;
    (0..sample)
        .map(|i| all[(i as f64 * step) as usize].clone())
        .collect()
}

/// Measure the lexical ranker, and with `embedder` also the neural ranker
/// alone and the fused ranking.
pub fn run(
    index: &Index,
    sample_size: usize,
    embedder: Option<Box<dyn Embedder>>,
    progress: &dyn Progress,
) -> Result<Report, VectorError> {
    let all = queries(index);
    let qs = sample(&all, sample_size);
    let opts = CorpusOptions {
        strip_docstrings: true,
        ..CorpusOptions::default()
    };
    let t = Instant::now();
    let docs = corpus::documents(index, opts);
    let read_ms = t.elapsed().as_secs_f64() * 1000.0;
    tune(index, &docs, &qs);
    let mut search = SearchIndex::from_documents(&docs, read_ms);
    let mut report = evaluate(index, &search, &qs, all.len(), Ranker::Lexical)?;
    if let Some(embedder) = embedder {
        let stats = search
            .attach(index, &docs, embedder, opts, progress)?
            .clone();
        report.neural = Some(Box::new(evaluate(
            index,
            &search,
            &qs,
            all.len(),
            Ranker::Neural,
        )?));
        report.hybrid = Some(Box::new(evaluate(
            index,
            &search,
            &qs,
            all.len(),
            Ranker::Hybrid,
        )?));
        report.embedding = Some(stats);
        dump(index, &search, &qs)?;
        tune_fusion(index, &mut search, &qs)?;
    }
    Ok(report)
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Ranker {
    Lexical,
    Neural,
    Hybrid,
}

pub fn evaluate(
    index: &Index,
    search: &SearchIndex,
    qs: &[Query],
    candidates: usize,
    ranker: Ranker,
) -> Result<Report, EmbedError> {
    let mut times = Vec::with_capacity(qs.len());
    let (mut r1, mut r10, mut mrr) = (0usize, 0usize, 0f64);
    let mut misses = Vec::new();
    // More misses for development: `RIPPLE_BENCH_MISSES=200`.
    let max_misses = std::env::var("RIPPLE_BENCH_MISSES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10);
    for q in qs {
        let t = Instant::now();
        let hits: Vec<DeclId> = match (ranker, &search.neural) {
            (Ranker::Neural, Some(n)) => {
                let v = n.embedder.embed(std::slice::from_ref(&q.text))?;
                n.vectors
                    .nearest(&v[0], 100, None)
                    .into_iter()
                    .map(|x| x.0)
                    .collect()
            }
            (Ranker::Lexical, _) => search
                .lexical
                .search(&q.text, 100)
                .into_iter()
                .map(|h| h.decl)
                .collect(),
            _ => search
                .search(&q.text, 100)?
                .into_iter()
                .map(|h| h.decl)
                .collect(),
        };
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        let rank = hits.iter().position(|&h| h == q.answer);
        if let Some(r) = rank {
            mrr += 1.0 / (r as f64 + 1.0);
            if r == 0 {
                r1 += 1;
            }
            if r < 10 {
                r10 += 1;
            }
        }
        if rank.is_none_or(|r| r >= 10) && misses.len() < max_misses {
            misses.push(Miss {
                query: q.text.clone(),
                answer: index.res.decls[q.answer].name.to_string(),
                rank: rank.map(|r| r + 1),
                top: hits
                    .first()
                    .map(|&h| index.res.decls[h].name.to_string())
                    .unwrap_or_default(),
            });
        }
    }
    times.sort_by(f64::total_cmp);
    let pct = |p: f64| {
        times
            .get(((times.len() as f64 - 1.0) * p).round() as usize)
            .copied()
            .unwrap_or(0.0)
    };
    let n = qs.len().max(1) as f64;
    let s = &search.stats;
    Ok(Report {
        ranker: format!("{ranker:?}").to_lowercase(),
        declarations: s.declarations,
        candidate_queries: candidates,
        queries: qs.len(),
        recall_at_1: r1 as f64 / n,
        recall_at_10: r10 as f64 / n,
        mrr: mrr / n,
        index_ms: s.read_ms + s.index_ms,
        declarations_per_second: s.per_second(),
        query_median_ms: pct(0.5),
        query_p95_ms: pct(0.95),
        misses,
        embedding: None,
        neural: None,
        hybrid: None,
    })
}

impl Report {
    pub fn to_text(&self) -> String {
        let mut s = format!(
            "[{}] {} declarations indexed in {:.0} ms ({:.0}/s)\n\
             {} queries (of {} candidates): recall@1 {:.1}%  recall@10 {:.1}%  MRR {:.3}\n\
             query time: median {:.2} ms, p95 {:.2} ms\n",
            self.ranker,
            self.declarations,
            self.index_ms,
            self.declarations_per_second,
            self.queries,
            self.candidate_queries,
            self.recall_at_1 * 100.0,
            self.recall_at_10 * 100.0,
            self.mrr,
            self.query_median_ms,
            self.query_p95_ms,
        );
        for m in &self.misses {
            s.push_str(&format!(
                "  miss: {:?} → {} (rank {}), top: {}\n",
                m.query,
                m.answer,
                m.rank.map(|r| r.to_string()).unwrap_or("-".into()),
                m.top
            ));
        }
        if let Some(e) = &self.embedding {
            s.push_str(&format!(
                "embeddings: {} declarations, {} from the cache ({:.0}%), {} embedded\n",
                e.declarations,
                e.cached,
                e.cache_hit_rate * 100.0,
                e.embedded
            ));
        }
        for r in [&self.neural, &self.hybrid].into_iter().flatten() {
            s.push_str(&r.to_text());
        }
        s
    }
}

/// An embedder that remembers single texts (the benchmark's queries), so
/// fusion tuning embeds each query once, however many settings it tries.
struct QueryMemo {
    inner: Box<dyn Embedder>,
    memo: std::sync::Mutex<rustc_hash::FxHashMap<String, Vec<f32>>>,
}

/// One embedder shared by several settings.
struct Shared(Arc<dyn Embedder>);

impl Embedder for Shared {
    fn space(&self) -> String {
        self.0.space()
    }

    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.0.embed(texts)
    }
}

/// Stands in for an embedder while it is moved into a [`QueryMemo`].
struct Placeholder;

impl Embedder for Placeholder {
    fn space(&self) -> String {
        String::new()
    }

    fn embed(&self, _: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Err(EmbedError::Local("no embedder".to_owned()))
    }
}

impl Embedder for QueryMemo {
    fn space(&self) -> String {
        self.inner.space()
    }

    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let [text] = texts else {
            return self.inner.embed(texts);
        };
        if let Some(v) = self.memo.lock().ok().and_then(|m| m.get(text).cloned()) {
            return Ok(vec![v]);
        }
        let out = self.inner.embed(texts)?;
        if let (Some(v), Ok(mut m)) = (out.first(), self.memo.lock()) {
            m.insert(text.clone(), v.clone());
        }
        Ok(out)
    }
}

/// Fusion settings for development: `RIPPLE_BENCH_FUSION` holds settings
/// separated by `|`, each `lexical,neural` (score fusion with those
/// weights), `lexical,neural,K` (reciprocal-rank fusion) or
/// `z,lexical,neural[,names[,returns]],depth` (z-scores over each
/// ranker's top `depth`; `names` weighs the names-as-words ranking and
/// `returns` the names-with-returns one, 0 when left out),
/// each evaluated on the same queries (to stderr).
fn tune_fusion(index: &Index, search: &mut SearchIndex, qs: &[Query]) -> Result<(), EmbedError> {
    let spec = std::env::var("RIPPLE_BENCH_FUSION").unwrap_or_default();
    let center = std::env::var("RIPPLE_BENCH_CENTER").unwrap_or_default();
    if spec.is_empty() && center.is_empty() {
        return Ok(());
    }
    let default = search.fusion;
    // Every setting asks for the same query vectors; this runs last, so the
    // reports' query times above still include embedding.
    let mut memo: Option<Arc<dyn Embedder>> = None;
    if let Some(n) = search.neural.as_mut() {
        let inner = std::mem::replace(&mut n.embedder, Box::new(Placeholder));
        let m: Arc<dyn Embedder> = Arc::new(QueryMemo {
            inner,
            memo: std::sync::Mutex::new(rustc_hash::FxHashMap::default()),
        });
        n.embedder = Box::new(Shared(m.clone()));
        memo = Some(m);
    }
    for pair in spec.split('|').filter(|p| !p.is_empty()) {
        let w: Vec<f32> = pair
            .split(',')
            .filter_map(|x| x.trim().parse().ok())
            .collect();
        let z = pair.trim_start().starts_with('z');
        search.fusion = match w[..] {
            [lexical, neural, depth] if z => super::Fusion::ZScores {
                lexical,
                neural,
                names: 0.0,
                returns: 0.0,
                depth: depth as usize,
            },
            [lexical, neural, names, depth] if z => super::Fusion::ZScores {
                lexical,
                neural,
                names,
                returns: 0.0,
                depth: depth as usize,
            },
            [lexical, neural, names, returns, depth] if z => super::Fusion::ZScores {
                lexical,
                neural,
                names,
                returns,
                depth: depth as usize,
            },
            [lexical, neural] => super::Fusion::Scores { lexical, neural },
            [lexical, neural, k] => super::Fusion::Ranks { lexical, neural, k },
            _ => continue,
        };
        let r = evaluate(index, search, qs, qs.len(), Ranker::Hybrid)?;
        eprintln!(
            "fusion {pair}: r@1 {:.1} r@10 {:.1} mrr {:.3}",
            r.recall_at_1 * 100.0,
            r.recall_at_10 * 100.0,
            r.mrr
        );
    }
    search.fusion = default;
    // `RIPPLE_BENCH_CENTER=0.5,1`: the vectors and the query with that share
    // of the declarations' mean vector taken away, normalised again.
    for gamma in center
        .split(',')
        .filter_map(|g| g.trim().parse::<f32>().ok())
    {
        let (Some(n), Some(memo)) = (search.neural.as_mut(), &memo) else {
            break;
        };
        let mean = n.vectors.mean();
        let centered = n.vectors.centered(&mean, gamma);
        let plain = std::mem::replace(&mut n.vectors, centered);
        n.embedder = Box::new(Centered {
            inner: memo.clone(),
            mean,
            gamma,
        });
        for ranker in [Ranker::Neural, Ranker::Hybrid] {
            let r = evaluate(index, search, qs, qs.len(), ranker)?;
            eprintln!(
                "center {gamma} {ranker:?}: r@1 {:.1} r@10 {:.1} mrr {:.3}",
                r.recall_at_1 * 100.0,
                r.recall_at_10 * 100.0,
                r.mrr
            );
        }
        let Some(n) = search.neural.as_mut() else {
            break;
        };
        n.vectors = plain;
        n.embedder = Box::new(Shared(memo.clone()));
    }
    Ok(())
}

/// An embedder whose vectors have a share of a mean vector taken away.
struct Centered {
    inner: Arc<dyn Embedder>,
    mean: Vec<f32>,
    gamma: f32,
}

impl Embedder for Centered {
    fn space(&self) -> String {
        self.inner.space()
    }

    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut out = self.inner.embed(texts)?;
        for v in &mut out {
            for (x, m) in v.iter_mut().zip(&self.mean) {
                *x -= self.gamma * m;
            }
            super::embed::normalize(v);
        }
        Ok(out)
    }
}

/// Development: `RIPPLE_BENCH_DUMP=FILE` writes, per query, the answer,
/// whether the query asks for an action, and each ranker's top 1000 with
/// scores (lexical: score and matched idf share; neural: cosine and the
/// lexical matched share), for studying fusion offline.
fn dump(index: &Index, search: &SearchIndex, qs: &[Query]) -> Result<(), EmbedError> {
    use std::io::Write;
    let (Ok(path), Some(n)) = (std::env::var("RIPPLE_BENCH_DUMP"), &search.neural) else {
        return Ok(());
    };
    let Ok(file) = std::fs::File::create(&path) else {
        return Ok(());
    };
    let mut out = std::io::BufWriter::new(file);
    let lex = &search.lexical;
    for q in qs {
        let terms = lex.query_terms(&q.text);
        let v = n.embedder.embed(std::slice::from_ref(&q.text))?;
        let all: rustc_hash::FxHashMap<DeclId, f32> = n
            .vectors
            .nearest(&v[0], n.vectors.len(), None)
            .into_iter()
            .collect();
        let owner = |d: DeclId| {
            index.res.decls[d]
                .parent
                .and_then(|p| all.get(&p).copied())
                .unwrap_or(-9.0)
        };
        let near = n.vectors.nearest(&v[0], 1000, None);
        let hits = lex.search(&q.text, 1000);
        let _ = writeln!(
            out,
            "Q\t{}\t{}\t{}",
            q.answer,
            lex.is_action(&q.text) as u8,
            terms.len()
        );
        let mut line = String::from("L");
        for h in &hits {
            line.push_str(&format!(
                "\t{} {} {:.3} {}",
                h.decl,
                h.score,
                lex.coverage(h.decl, &terms),
                owner(h.decl)
            ));
        }
        let _ = writeln!(out, "{line}");
        let mut line = String::from("N");
        for (d, c) in &near {
            line.push_str(&format!(
                "\t{} {} {:.3} {}",
                d,
                c,
                lex.coverage(*d, &terms),
                owner(*d)
            ));
        }
        let _ = writeln!(out, "{line}");
        let mut line = String::from("M");
        for (d, c) in n.names.nearest(&v[0], 1000, None) {
            line.push_str(&format!("\t{d} {c}"));
        }
        let _ = writeln!(out, "{line}");
        let mut line = String::from("R");
        for (d, c) in n.returns.nearest(&v[0], 1000, None) {
            line.push_str(&format!("\t{d} {c}"));
        }
        let _ = writeln!(out, "{line}");
    }
    // Each declaration's kind, name, length and file, to study priors.
    if let Ok(file) = std::fs::File::create(format!("{path}.decls")) {
        let mut out = std::io::BufWriter::new(file);
        let docs = corpus::documents(
            index,
            CorpusOptions {
                strip_docstrings: true,
                ..CorpusOptions::default()
            },
        );
        let body_lines: rustc_hash::FxHashMap<DeclId, usize> = docs
            .iter()
            .map(|d| {
                let body = &d.fields[corpus::Field::Body as usize];
                (
                    d.decl,
                    body.lines().filter(|l| !l.trim().is_empty()).count(),
                )
            })
            .collect();
        for (i, d) in index.res.decls.iter().enumerate() {
            let parent = d
                .parent
                .map(|p| format!("{:?}", index.res.decls[p].kind))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "{i}\t{:?}\t{}\t{}\t{}\t{parent}\t{}",
                d.kind,
                d.name,
                d.span.end_line.saturating_sub(d.span.start_line) + 1,
                index
                    .file_of(DeclId::new(i))
                    .map_or("", |f| f.path.as_str()),
                body_lines.get(&DeclId::new(i)).copied().unwrap_or(0),
            );
        }
    }
    Ok(())
}

/// Parameter search for development: `RIPPLE_BENCH_PARAMS` holds configs
/// separated by `|`, each `weights;b;k1;test_prior;name_coverage;prefix;synonyms`
/// (weights and b: one number per field, in [`corpus::Field::ALL`] order;
/// an empty section keeps the default), and each is evaluated on the same
/// queries (to stderr).
fn tune(index: &Index, docs: &[corpus::DocText], qs: &[Query]) {
    let Ok(spec) = std::env::var("RIPPLE_BENCH_PARAMS") else {
        return;
    };
    for config in spec.split('|') {
        let parts: Vec<Vec<f32>> = config
            .split(';')
            .map(|p| p.split(',').filter_map(|x| x.trim().parse().ok()).collect())
            .collect();
        let mut params = super::lexical::Params::default();
        let one = |i: usize| parts.get(i).and_then(|p| p.first()).copied();
        if let Some(w) = parts.first().filter(|w| w.len() == corpus::FIELDS) {
            params.weight.copy_from_slice(w);
        }
        if let Some(b) = parts.get(1).filter(|b| b.len() == corpus::FIELDS) {
            params.b.copy_from_slice(b);
        }
        if let Some(k) = one(2) {
            params.k1 = k;
        }
        if let Some(t) = one(3) {
            params.test_prior = t;
        }
        if let Some(a) = one(4) {
            params.name_coverage = a;
        }
        if let Some(p) = one(5) {
            params.prefix = p;
        }
        if let Some(x) = one(6) {
            params.synonyms = x;
        }
        let search = SearchIndex {
            lexical: std::sync::Arc::new(super::lexical::LexicalIndex::build(docs, params)),
            neural: None,
            fusion: super::FUSION,
            stats: Default::default(),
        };
        if let Ok(r) = evaluate(index, &search, qs, qs.len(), Ranker::Lexical) {
            eprintln!(
                "{config}: r@1 {:.1} r@10 {:.1} mrr {:.3}",
                r.recall_at_1 * 100.0,
                r.recall_at_10 * 100.0,
                r.mrr
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_sentences_stop_at_a_period_or_a_blank_line() {
        assert_eq!(
            first_sentence("Return the sum.  More text.\n\nDetails."),
            "Return the sum."
        );
        assert_eq!(
            first_sentence("Parse a header\nthat spans lines\n\nArgs: x"),
            "Parse a header that spans lines"
        );
        assert_eq!(
            first_sentence("Use os.path.join. Then x."),
            "Use os.path.join."
        );
    }

    #[test]
    fn test_code_is_recognised_by_its_path() {
        assert!(corpus::is_test_path("Lib/test/test_os.py"));
        assert!(corpus::is_test_path("idlelib/idle_test/x.py"));
        assert!(!corpus::is_test_path("email/header.py"));
    }
}

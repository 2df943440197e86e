//! The offline ranker: BM25F over declaration fields.
//!
//! BM25F (Robertson et al., "Simple BM25 extension to multiple weighted
//! fields", 2004) combines a term's frequencies across fields *before* the
//! saturation curve, each field weighted and normalised by its own length,
//! so a term in a short name counts more than the same term once in a long
//! body, and a term repeated in ten fields still saturates like one.
//!
//! The postings store that combined, normalised frequency (computed once
//! at build time) plus a bit per field for "why", so a query only sums
//! `idf × tf / (tf + k1)` over each term's postings: a few milliseconds on
//! 100k declarations.
//!
//! Compound identifiers written as one word (`readline`, `getattr`,
//! `startswith`) are also counted as two parts the repository itself uses
//! on their own, learned from its vocabulary. A query word also looks for
//! the longest repository term it starts with (`async` for "asynchronous")
//! and for the short verbs code uses for it (`get` for "return"), both at a
//! fraction of a word's weight. Two adjacent query words that are adjacent
//! parts of one identifier also count as a pair. Test code is demoted, a
//! query that covers a declaration's whole name lifts it, and a query that
//! begins with a verb (it asks for an action) demotes classes and modules.
//!
//! Tried on the held-out benchmark and left out because they did not help
//! (on CPython's standard library and on rich, click, attrs and requests):
//! pseudo-relevance feedback on names (RM3), dropping language keywords
//! from bodies, docstring filler words as stop words, a coordination
//! factor, word → name associations learned from comments, the BM25+
//! lower bound, propagating scores from the enclosing class or from
//! callees, consonant abbreviations learned from the repository (`msg` for
//! "message"), capping an expansion's idf at its word's, stop words kept
//! inside identifiers, and splitting only compounds whose parts the code
//! also writes apart.

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use super::corpus::{DocText, FIELDS, Field};
use super::terms;
use crate::resolve::DeclId;

/// Field weights and length normalisation, tuned on the benchmark
/// (`ripple bench-search`): the name says most about what code does, then
/// the prose around it, the enclosing class, the callers' names and the
/// signature, then the module path, the body, what it returns (counted
/// twice with the body) and the callees.
#[derive(Debug, Clone, Copy)]
pub struct Params {
    pub weight: [f32; FIELDS],
    pub b: [f32; FIELDS],
    pub k1: f32,
    /// Score factor for declarations in test code: a test names the code it
    /// exercises, so without this it outranks that code for the same words.
    pub test_prior: f32,
    /// Bonus for covering a declaration's whole name: `α × matched / all`
    /// of its name terms. A name is a summary; a query that restates all
    /// of it is about that declaration, not one that merely uses the words.
    pub name_coverage: f32,
    /// Weight of the longest repository term that is a prefix of a query
    /// word (`async` for "asynchronous", `env` for "environment"): code
    /// abbreviates by truncation far more often than any fixed list covers.
    pub prefix: f32,
    /// Weight of the code words for a query word from the built-in
    /// synonym table ([`terms::synonyms`]).
    pub synonyms: f32,
    /// Weight of two adjacent query words that are also adjacent parts of
    /// one identifier (`system id` in `getSystemId`): word order is
    /// evidence the bag of words throws away, and an identifier is a
    /// phrase.
    pub pairs: f32,
    /// Score factor for classes and modules when a query asks for an
    /// action (it begins with a verb): "Create a filter" asks for the code
    /// that creates it, not for the class `Filter`.
    pub container_prior: f32,
    /// Weight of the special method an operator in the query names
    /// (`__add__` for "self + other"; [`terms::operator_words`]).
    pub operators: f32,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            weight: [5.0, 1.5, 2.0, 2.0, 1.0, 2.0, 2.0, 0.5, 1.0, 2.0],
            b: [0.5, 0.5, 0.6, 0.7, 0.75, 0.5, 0.5, 0.5, 0.5, 0.5],
            k1: 2.0,
            test_prior: 0.5,
            name_coverage: 0.3,
            prefix: 0.3,
            synonyms: 0.3,
            pairs: 0.2,
            container_prior: 0.5,
            operators: 1.0,
        }
    }
}

pub type TermId = u32;

/// One query term and what it matched.
#[derive(Debug, Clone, PartialEq)]
pub struct TermMatch {
    pub term: String,
    pub fields: Vec<Field>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub decl: DeclId,
    pub score: f32,
    pub matched: Vec<TermMatch>,
    /// Cosine similarity to the query, when a neural ranker took part.
    pub cosine: Option<f32>,
}

/// An in-memory inverted index over declaration documents.
pub struct LexicalIndex {
    params: Params,
    /// DeclId of each document.
    decls: Vec<DeclId>,
    doc_of_decl: FxHashMap<DeclId, u32>,
    dict: FxHashMap<String, TermId>,
    /// The text of each term, by TermId.
    term_text: Vec<String>,
    /// Parts of one-word compounds (`readline` → `read`, `line`).
    compounds: FxHashMap<TermId, Vec<TermId>>,
    /// Postings of term t: `offsets[t]..offsets[t+1]` into the three arrays
    /// (fields as a bit per field).
    offsets: Vec<u32>,
    post_doc: Vec<u32>,
    post_tf: Vec<f32>,
    post_fields: Vec<u16>,
    /// Score factor of each document.
    prior: Vec<f32>,
    /// Distinct terms in each document's name.
    name_len: Vec<u8>,
    /// Classes, modules and packages.
    is_container: Vec<bool>,
    /// The words this repository begins function names with.
    verbs: FxHashSet<TermId>,
}

/// (term text, field, count) of one document, before interning.
type StringCount = (String, u8, u16);

/// One document as term counts per field, before the corpus statistics exist.
struct Counted {
    /// (term, field, count), sorted by term.
    terms: Vec<(TermId, u8, u16)>,
    lens: [u32; FIELDS],
}

impl LexicalIndex {
    pub fn build(docs: &[DocText], params: Params) -> LexicalIndex {
        // Tokenize in parallel into per-document string counts, then intern
        // sequentially (the dictionary is shared).
        let tokenized: Vec<(Vec<StringCount>, [u32; FIELDS], Option<String>)> = docs
            .par_iter()
            .map(|d| {
                let mut counts: FxHashMap<(String, u8), u16> = FxHashMap::default();
                let mut lens = [0u32; FIELDS];
                let mut first_name: Option<String> = None;
                for f in Field::ALL {
                    // Comments are prose: their word pairs are not names.
                    let pairs = params.pairs > 0.0 && f != Field::Doc;
                    // A name field is one phrase, with the data-model words
                    // of a dunder method after it.
                    let across = f == Field::Name;
                    let mut text = d.fields[f as usize].as_str();
                    // A class's methods are documents of their own; their
                    // signatures would make the class match every word
                    // of every method.
                    if f == Field::Signature
                        && let Some(n) = d.members_from
                    {
                        text = &text[..n];
                    }
                    let mut prev: Option<String> = None;
                    terms::terms_in_words(text, |t, begins| {
                        if f == Field::Name && first_name.is_none() {
                            first_name = Some(t.clone());
                        }
                        lens[f as usize] += 1;
                        if pairs {
                            if let Some(p) = prev.take().filter(|_| across || !begins) {
                                let c = counts.entry((pair(&p, &t), f as u8)).or_default();
                                *c = c.saturating_add(1);
                            }
                            prev = Some(t.clone());
                        }
                        let c = counts.entry((t, f as u8)).or_default();
                        *c = c.saturating_add(1);
                    });
                }
                (
                    counts.into_iter().map(|((t, f), c)| (t, f, c)).collect(),
                    lens,
                    first_name,
                )
            })
            .collect();
        let mut dict: FxHashMap<String, TermId> = FxHashMap::default();
        let mut counted: Vec<Counted> = Vec::with_capacity(docs.len());
        let mut first_names: Vec<Option<String>> = Vec::with_capacity(docs.len());
        for (list, lens, first) in tokenized {
            first_names.push(first);
            let mut terms: Vec<(TermId, u8, u16)> = list
                .into_iter()
                .map(|(t, f, c)| {
                    let next = dict.len() as TermId;
                    (*dict.entry(t).or_insert(next), f, c)
                })
                .collect();
            terms.sort_unstable();
            counted.push(Counted { terms, lens });
        }
        let n_terms = dict.len();
        let mut term_text = vec![String::new(); n_terms];
        for (s, &id) in &dict {
            term_text[id as usize] = s.clone();
        }
        let compounds = compound_parts(&dict, &counted);

        let n = docs.len().max(1) as f32;
        let mut avg = [0f32; FIELDS];
        for c in &counted {
            for (a, len) in avg.iter_mut().zip(c.lens) {
                *a += len as f32;
            }
        }
        for a in &mut avg {
            *a = (*a / n).max(1.0);
        }

        // Combined, normalised frequencies per (doc, term).
        let mut df = vec![0u32; n_terms];
        let per_doc: Vec<Vec<(TermId, f32, u16)>> = counted
            .par_iter()
            .map(|c| {
                let norm: [f32; FIELDS] = std::array::from_fn(|f| {
                    params.weight[f] / (1.0 - params.b[f] + params.b[f] * c.lens[f] as f32 / avg[f])
                });
                let mut out: Vec<(TermId, f32, u16)> = Vec::new();
                let mut add = |t: TermId, w: f32, f: u8| match out.last_mut() {
                    Some(last) if last.0 == t => {
                        last.1 += w;
                        last.2 |= 1 << f;
                    }
                    _ => out.push((t, w, 1 << f)),
                };
                for &(t, f, cnt) in &c.terms {
                    add(t, cnt as f32 * norm[f as usize], f);
                }
                // A compound also counts, at half weight, as its parts.
                let mut extra: Vec<(TermId, f32, u16)> = Vec::new();
                for &(t, f, cnt) in &c.terms {
                    if let Some(parts) = compounds.get(&t) {
                        for &p in parts {
                            extra.push((p, 0.5 * cnt as f32 * norm[f as usize], 1 << f));
                        }
                    }
                }
                if !extra.is_empty() {
                    out.extend(extra);
                    out.sort_unstable_by_key(|x| x.0);
                    out.dedup_by(|a, b| {
                        if a.0 == b.0 {
                            b.1 += a.1;
                            b.2 |= a.2;
                            true
                        } else {
                            false
                        }
                    });
                }
                out
            })
            .collect();
        for d in &per_doc {
            for &(t, _, _) in d {
                df[t as usize] += 1;
            }
        }
        let mut offsets = Vec::with_capacity(n_terms + 1);
        let mut acc = 0u32;
        offsets.push(0);
        for &x in &df {
            acc += x;
            offsets.push(acc);
        }
        let total = acc as usize;
        let mut post_doc = vec![0u32; total];
        let mut post_tf = vec![0f32; total];
        let mut post_fields = vec![0u16; total];
        let mut fill: Vec<u32> = offsets[..n_terms].to_vec();
        for (doc, d) in per_doc.iter().enumerate() {
            for &(t, w, fields) in d {
                let at = fill[t as usize] as usize;
                post_doc[at] = doc as u32;
                post_tf[at] = w;
                post_fields[at] = fields;
                fill[t as usize] += 1;
            }
        }
        let decls: Vec<DeclId> = docs.iter().map(|d| d.decl).collect();
        let doc_of_decl = decls
            .iter()
            .enumerate()
            .map(|(i, &d)| (d, i as u32))
            .collect();
        let prior = docs
            .iter()
            .map(|d| if d.in_tests { params.test_prior } else { 1.0 })
            .collect();
        let verbs = verbs(docs, &first_names, &dict);
        let is_container = docs.iter().map(|d| d.is_container).collect();
        let name_len = counted
            .iter()
            .map(|c| {
                c.terms
                    .iter()
                    .filter(|t| t.1 == Field::Name as u8 && !is_pair(&term_text[t.0 as usize]))
                    .count()
                    .min(255) as u8
            })
            .collect();
        LexicalIndex {
            verbs,
            is_container,
            params,
            prior,
            name_len,
            decls,
            doc_of_decl,
            dict,
            term_text,
            compounds,
            offsets,
            post_doc,
            post_tf,
            post_fields,
        }
    }

    pub fn len(&self) -> usize {
        self.decls.len()
    }

    pub fn is_empty(&self) -> bool {
        self.decls.is_empty()
    }

    pub fn contains(&self, decl: DeclId) -> bool {
        self.doc_of_decl.contains_key(&decl)
    }

    fn df(&self, t: TermId) -> u32 {
        self.offsets[t as usize + 1] - self.offsets[t as usize]
    }

    fn idf(&self, t: TermId) -> f32 {
        let n = self.decls.len() as f32;
        let df = self.df(t) as f32;
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    /// The weighted terms of a prose or code query: each known term once
    /// (repeats add weight), compounds also as their parts.
    pub fn query_terms(&self, query: &str) -> Vec<(TermId, f32)> {
        let mut out: Vec<(TermId, f32)> = Vec::new();
        let mut add = |t: TermId, w: f32| match out.iter_mut().find(|x| x.0 == t) {
            Some(x) => x.1 += w,
            None => out.push((t, w)),
        };
        let p = &self.params;
        if p.operators > 0.0 {
            terms::operator_words(query, |w| {
                if let Some(&id) = self.dict.get(&terms::term(w)) {
                    add(id, p.operators);
                }
            });
        }
        let mut prev: Option<String> = None;
        terms::terms(query, |t| {
            if p.pairs > 0.0 {
                if let Some(&id) = prev.take().and_then(|a| self.dict.get(&pair(&a, &t))) {
                    add(id, p.pairs);
                }
                prev = Some(t.clone());
            }
            if let Some(&id) = self.dict.get(&t) {
                add(id, 1.0);
                if let Some(parts) = self.compounds.get(&id) {
                    for &part in parts {
                        add(part, 0.5);
                    }
                }
            }
            if p.prefix > 0.0
                && let Some(id) = self.prefix_of(&t)
            {
                add(id, p.prefix);
            }
            if p.synonyms > 0.0 {
                for syn in terms::synonyms(&t) {
                    if let Some(&id) = self.dict.get(syn) {
                        add(id, p.synonyms);
                    }
                }
            }
        });
        out
    }

    /// The longest term of at least three letters, used in at least three
    /// declarations, that `word` starts with and is at least two letters
    /// longer than.
    fn prefix_of(&self, word: &str) -> Option<TermId> {
        if word.len() < 5 || !word.bytes().all(|b| b.is_ascii_lowercase()) {
            return None;
        }
        (3..=word.len() - 2).rev().find_map(|cut| {
            let id = *self.dict.get(&word[..cut])?;
            (self.df(id) >= 3).then_some(id)
        })
    }

    /// Whether a query asks for an action: its first word (or a code verb
    /// for it, `get` for "return") is one this repository begins function
    /// names with, as docstrings and questions about what code does
    /// begin ("Return the …", "Parse a …").
    pub fn is_action(&self, query: &str) -> bool {
        let mut first = None;
        terms::terms(query, |t| {
            first.get_or_insert(t);
        });
        let Some(t) = first else {
            return false;
        };
        let verb = |w: &str| self.dict.get(w).is_some_and(|id| self.verbs.contains(id));
        verb(&t) || terms::synonyms(&t).iter().any(|s| verb(s))
    }

    /// Score every document for weighted terms; the best `k` (excluding
    /// `skip`), best first. `action`: the query asks for an action, so
    /// classes and modules are demoted.
    pub fn rank(
        &self,
        query: &[(TermId, f32)],
        k: usize,
        skip: Option<DeclId>,
        action: bool,
    ) -> Vec<(u32, f32)> {
        let mut acc = vec![0f32; self.decls.len()];
        let mut in_name = vec![0u8; self.decls.len()];
        let k1 = self.params.k1;
        for &(t, w) in query {
            let idf = self.idf(t) * w;
            let (a, b) = (
                self.offsets[t as usize] as usize,
                self.offsets[t as usize + 1] as usize,
            );
            for i in a..b {
                let tf = self.post_tf[i];
                let doc = self.post_doc[i] as usize;
                acc[doc] += idf * tf * (k1 + 1.0) / (tf + k1);
                // Only whole query terms count towards covering a name.
                if w >= 1.0 {
                    in_name[doc] = in_name[doc].saturating_add((self.post_fields[i] & 1) as u8);
                }
            }
        }
        if action {
            for (a, _) in acc.iter_mut().zip(&self.is_container).filter(|x| *x.1) {
                *a *= self.params.container_prior;
            }
        }
        let alpha = self.params.name_coverage;
        for (i, a) in acc.iter_mut().enumerate() {
            let cover = match self.name_len[i] {
                0 => 0.0,
                n => (in_name[i] as f32 / n as f32).min(1.0),
            };
            *a *= self.prior[i] * (1.0 + alpha * cover);
        }
        if let Some(s) = skip.and_then(|d| self.doc_of_decl.get(&d)) {
            acc[*s as usize] = 0.0;
        }
        top_k(&acc, k)
    }

    /// Search with prose or code.
    pub fn search(&self, query: &str, k: usize) -> Vec<Hit> {
        let q = self.query_terms(query);
        if q.is_empty() {
            return Vec::new();
        }
        let ranked = self.rank(&q, k, None, self.is_action(query));
        ranked
            .into_iter()
            .map(|(doc, score)| Hit {
                decl: self.decls[doc as usize],
                score,
                matched: self.explain(doc, &q),
                cosine: None,
            })
            .collect()
    }

    /// Which of `query`'s terms a declaration matched, and in which fields.
    pub fn explain_decl(&self, decl: DeclId, query: &[(TermId, f32)]) -> Vec<TermMatch> {
        match self.doc_of_decl.get(&decl) {
            Some(&doc) => self.explain(doc, query),
            None => Vec::new(),
        }
    }

    /// The share of a query's idf-weighted mass a declaration matched
    /// (0 when it is not indexed or the query is empty).
    pub fn coverage(&self, decl: DeclId, query: &[(TermId, f32)]) -> f32 {
        let Some(&doc) = self.doc_of_decl.get(&decl) else {
            return 0.0;
        };
        let (mut hit, mut all) = (0f32, 0f32);
        for &(t, w) in query {
            let m = self.idf(t) * w;
            all += m;
            let (a, b) = (
                self.offsets[t as usize] as usize,
                self.offsets[t as usize + 1] as usize,
            );
            if self.post_doc[a..b].binary_search(&doc).is_ok() {
                hit += m;
            }
        }
        if all > 0.0 { hit / all } else { 0.0 }
    }

    /// Which query terms a document matched, and in which fields.
    fn explain(&self, doc: u32, query: &[(TermId, f32)]) -> Vec<TermMatch> {
        let mut out = Vec::new();
        for &(t, _) in query {
            let (a, b) = (
                self.offsets[t as usize] as usize,
                self.offsets[t as usize + 1] as usize,
            );
            if let Ok(i) = self.post_doc[a..b].binary_search(&doc) {
                let bits = self.post_fields[a + i];
                out.push(TermMatch {
                    term: self.term_text[t as usize].clone(),
                    fields: Field::ALL
                        .into_iter()
                        .filter(|f| bits & (1 << *f as u16) != 0)
                        .collect(),
                });
            }
        }
        out
    }

    /// Declarations most like `doc` (its most distinctive terms as the
    /// query), excluding itself.
    pub fn similar(&self, doc: &DocText, k: usize) -> Vec<Hit> {
        let mut counts: FxHashMap<TermId, f32> = FxHashMap::default();
        for f in [Field::Name, Field::Signature, Field::Doc, Field::Body] {
            terms::terms(&doc.fields[f as usize], |t| {
                if let Some(&id) = self.dict.get(&t) {
                    *counts.entry(id).or_default() += 1.0;
                }
            });
        }
        // tf-idf picks the terms that say what this code is about.
        let mut q: Vec<(TermId, f32)> = counts
            .into_iter()
            .map(|(t, c)| (t, (1.0 + c.ln()) * self.idf(t)))
            .collect();
        q.sort_by(|a, b| b.1.total_cmp(&a.1));
        q.truncate(40);
        let max = q.first().map(|x| x.1).unwrap_or(1.0);
        for x in &mut q {
            x.1 /= max;
        }
        self.rank(&q, k, Some(doc.decl), false)
            .into_iter()
            .map(|(d, score)| Hit {
                decl: self.decls[d as usize],
                score,
                matched: self.explain(d, &q),
                cosine: None,
            })
            .collect()
    }
}

/// Verbs, as a repository uses them: the first words of function names
/// (at least three), more often than of class names (`get`, `parse`, not
/// `http`).
fn verbs(
    docs: &[DocText],
    first_names: &[Option<String>],
    dict: &FxHashMap<String, TermId>,
) -> FxHashSet<TermId> {
    let mut starts: FxHashMap<&str, (u32, u32)> = FxHashMap::default();
    for (d, first) in docs.iter().zip(first_names) {
        if let Some(f) = first {
            let e = starts.entry(f.as_str()).or_default();
            if d.is_container {
                e.1 += 1;
            } else {
                e.0 += 1;
            }
        }
    }
    starts
        .into_iter()
        .filter(|(_, (functions, containers))| *functions >= 3 && functions > containers)
        .filter_map(|(t, _)| dict.get(t).copied())
        .collect()
}

/// The term for two adjacent terms (terms never contain a space).
fn pair(a: &str, b: &str) -> String {
    format!("{a} {b}")
}

fn is_pair(term: &str) -> bool {
    term.contains(' ')
}

/// Indices and scores of the `k` largest positive scores, best first
/// (ties by index, so results are stable).
fn top_k(scores: &[f32], k: usize) -> Vec<(u32, f32)> {
    let mut hits: Vec<(u32, f32)> = scores
        .iter()
        .enumerate()
        .filter(|(_, s)| **s > 0.0)
        .map(|(i, &s)| (i as u32, s))
        .collect();
    let cmp = |a: &(u32, f32), b: &(u32, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if hits.len() > k && k > 0 {
        hits.select_nth_unstable_by(k - 1, cmp);
        hits.truncate(k);
    }
    hits.sort_by(cmp);
    hits.truncate(k);
    hits
}

/// Split one-word compounds into two parts the repository also uses on
/// their own: `readline` → `read` + `line`, `getattr` → `get` + `attr`.
/// Each part must be at least 3 letters and appear in the code (not only
/// in comments) of at least 5 documents, and the split with the rarest
/// weaker part wins. Comments would teach suffixes as words: "able" from
/// prose split `writable` into `writ` + `abl`.
fn compound_parts(
    dict: &FxHashMap<String, TermId>,
    counted: &[Counted],
) -> FxHashMap<TermId, Vec<TermId>> {
    let mut df = vec![0u32; dict.len()];
    for c in counted {
        let mut last = u32::MAX;
        for &(t, f, _) in &c.terms {
            if t != last && f != Field::Doc as u8 {
                df[t as usize] += 1;
                last = t;
            }
        }
    }
    let known = |s: &str| -> Option<TermId> {
        let id = *dict.get(s)?;
        (df[id as usize] >= 5).then_some(id)
    };
    dict.par_iter()
        .filter(|(s, _)| s.len() >= 6 && s.bytes().all(|b| b.is_ascii_lowercase()))
        .filter_map(|(s, &id)| {
            let mut best: Option<(u32, [TermId; 2])> = None;
            for cut in 3..=s.len() - 3 {
                let (a, b) = s.split_at(cut);
                // The right part is a word in its own right: stem it like one.
                let (Some(x), Some(y)) = (known(&terms::term(a)), known(&terms::term(b))) else {
                    continue;
                };
                let strength = df[x as usize].min(df[y as usize]);
                if best.is_none_or(|(s, _)| strength > s) {
                    best = Some((strength, [x, y]));
                }
            }
            best.map(|(_, parts)| (id, parts.to_vec()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(decl: DeclId, name: &str, sig: &str, body: &str) -> DocText {
        DocText {
            decl,
            fields: [
                name.to_owned(),
                "pkg.mod".to_owned(),
                sig.to_owned(),
                String::new(),
                body.to_owned(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
            ],
            in_tests: false,
            ..Default::default()
        }
    }

    fn corpus() -> Vec<DocText> {
        vec![
            doc(
                DeclId(0),
                "parse_auth_header",
                "def parse_auth_header(h)",
                "scheme, _, token = h.partition(' ')",
            ),
            doc(
                DeclId(1),
                "send_mail",
                "def send_mail(to, msg)",
                "smtp.sendmail(to, msg)",
            ),
            doc(
                DeclId(2),
                "render_page",
                "def render_page(tpl)",
                "return tpl.render(headers=None)",
            ),
            doc(
                DeclId(3),
                "read_config",
                "def read_config(path)",
                "return toml.load(open(path))",
            ),
        ]
    }

    #[test]
    fn names_outweigh_bodies_and_inflections_match() {
        let idx = LexicalIndex::build(&corpus(), Params::default());
        let hits = idx.search("where do we parse authentication headers?", 3);
        assert_eq!(hits[0].decl, DeclId(0), "{hits:?}");
        let why = &hits[0].matched;
        assert!(why.iter().any(|m| m.fields.contains(&Field::Name)));
        // render_page only has `headers` in its body: ranked, but below.
        assert!(
            hits.iter()
                .position(|h| h.decl == DeclId(2))
                .is_none_or(|p| p > 0)
        );
    }

    #[test]
    fn abbreviations_in_code_match_words_in_queries() {
        let idx = LexicalIndex::build(&corpus(), Params::default());
        let hits = idx.search("load the configuration file", 1);
        assert_eq!(hits[0].decl, DeclId(3));
        let hits = idx.search("send a message", 1);
        assert_eq!(hits[0].decl, DeclId(1));
    }

    #[test]
    fn unknown_words_give_no_results() {
        let idx = LexicalIndex::build(&corpus(), Params::default());
        assert!(idx.search("zebra quantum", 5).is_empty());
        assert!(idx.search("", 5).is_empty());
    }

    #[test]
    fn truncated_words_and_code_verbs_meet_prose() {
        let mut docs = corpus();
        docs.push(doc(DeclId(4), "get_size", "def get_size(self)", "n = 0"));
        docs.push(doc(DeclId(5), "set_size", "def set_size(self, n)", "pass"));
        for i in 6..9 {
            docs.push(doc(
                DeclId(i),
                "intersect_all",
                "def intersect_all(a)",
                "pass",
            ));
        }
        let idx = LexicalIndex::build(&docs, Params::default());
        // "Return" finds `get`, not `set`.
        assert_eq!(idx.search("Return the size.", 1)[0].decl, DeclId(4));
        // "intersection" finds `intersect`, a prefix the repository uses.
        let hits = idx.search("intersection", 3);
        assert_eq!(hits.len(), 3, "{hits:?}");
        let off = Params {
            prefix: 0.0,
            ..Params::default()
        };
        let idx = LexicalIndex::build(&docs, off);
        assert!(idx.search("intersection", 3).is_empty());
    }

    #[test]
    fn adjacent_words_favour_the_identifier_that_joins_them() {
        let docs = vec![
            // Both words, apart: without pairs the two tie, and ties go
            // to the first document.
            doc(
                DeclId(0),
                "first",
                "def first(self)",
                "return self.system, self.id",
            ),
            // Both words, as one identifier.
            doc(
                DeclId(1),
                "second",
                "def second(self)",
                "return self.system_id",
            ),
        ];
        let off = Params {
            pairs: 0.0,
            ..Params::default()
        };
        let q = "the system id";
        assert_eq!(
            LexicalIndex::build(&docs, off).search(q, 1)[0].decl,
            DeclId(0)
        );
        let idx = LexicalIndex::build(&docs, Params::default());
        assert_eq!(idx.search(q, 1)[0].decl, DeclId(1));
    }

    #[test]
    fn actions_ask_for_functions_and_things_for_classes() {
        let mut docs: Vec<DocText> = (0..3)
            .map(|i| doc(DeclId(i), "parse_x", "def parse_x(s)", "pass"))
            .collect();
        let mut class = doc(
            DeclId(3),
            "FilterChain",
            "class FilterChain:\n    def apply(self)",
            "",
        );
        class.is_container = true;
        class.members_from = Some("class FilterChain:".len());
        docs.push(class);
        docs.push(doc(
            DeclId(4),
            "build",
            "def build(chain)",
            "chain = FilterChain()",
        ));
        let idx = LexicalIndex::build(&docs, Params::default());
        assert!(idx.is_action("Parse the chain."));
        assert!(!idx.is_action("The filter chain."));
        // Methods' signatures belong to the methods, not to their class.
        assert!(idx.search("apply", 5).iter().all(|h| h.decl != DeclId(3)));
        // A question about a thing finds the class at full score; one that
        // asks for an action finds it demoted.
        let off = LexicalIndex::build(
            &docs,
            Params {
                container_prior: 1.0,
                ..Params::default()
            },
        );
        let score = |idx: &LexicalIndex, q: &str| {
            let hits = idx.search(q, 10);
            hits.iter()
                .find(|h| h.decl == DeclId(3))
                .map(|h| h.score)
                .unwrap()
        };
        assert_eq!(score(&idx, "filter chain"), score(&off, "filter chain"));
        let q = "parse a filter chain";
        let prior = Params::default().container_prior;
        assert!((score(&idx, q) - prior * score(&off, q)).abs() < 1e-4);
    }

    #[test]
    fn top_k_is_ordered_and_stable() {
        let s = [0.5, 2.0, 0.0, 2.0, 1.0];
        assert_eq!(top_k(&s, 3), vec![(1, 2.0), (3, 2.0), (4, 1.0)]);
        assert_eq!(top_k(&s, 10).len(), 4);
    }

    #[test]
    fn compounds_split_into_code_words_not_prose_suffixes() {
        let mut docs: Vec<DocText> = (0..6)
            .map(|i| {
                let mut d = doc(DeclId(i), "write", "def write(f)", "pass");
                d.fields[Field::Doc as usize] = "# be able to".to_owned();
                d
            })
            .collect();
        docs.push(doc(DeclId(6), "writable", "def writable(self)", "pass"));
        let idx = LexicalIndex::build(&docs, Params::default());
        assert!(!idx.compounds.contains_key(&idx.dict["writabl"]));
    }

    #[test]
    fn one_word_compounds_split_into_known_parts() {
        let mut docs: Vec<DocText> = (0..6)
            .map(|i| {
                doc(
                    DeclId(i),
                    "read_line",
                    "def read_line(f)",
                    "return f.read()",
                )
            })
            .collect();
        docs.push(doc(DeclId(6), "readline", "def readline(self)", "pass"));
        let idx = LexicalIndex::build(&docs, Params::default());
        let id = idx.dict["readlin"];
        let parts = &idx.compounds[&id];
        assert_eq!(parts.len(), 2);
        let hits = idx.search("readline", 1);
        assert_eq!(hits[0].decl, DeclId(6));
    }
}

//! Neural vectors for declarations: embedded once, stored in the index by
//! the declaration's body hash (with its qualified name, which is part of
//! the embedded text; per embedding space), so a refresh embeds only
//! declarations that are new, changed or renamed. Search is exact brute-force
//! cosine over one contiguous f32 matrix — no approximate index, no server.
//! Results are fused with the lexical ranking by a weighted sum of
//! z-scores (or, for comparison, min-max scores or reciprocal ranks). Each
//! declaration's name as words is embedded too, as a third ranking.

use rustc_hash::FxHashMap;
use serde::Serialize;

use super::corpus::{DocText, Field};
use super::embed::{EmbedError, Embedder};
use crate::index::{Index, IndexError, Progress};
use crate::resolve::DeclId;
use crate::store::Store;

#[derive(Debug, thiserror::Error)]
pub enum VectorError {
    #[error(transparent)]
    Embed(#[from] EmbedError),
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
}

/// Normalised vectors of the searchable declarations, row by row.
pub struct VectorIndex {
    pub dims: usize,
    decls: Vec<DeclId>,
    data: Vec<f32>,
}

/// What a refresh of the vectors did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct EmbedStats {
    pub declarations: usize,
    /// Vectors found in the index (same body, same embedding space).
    pub cached: usize,
    pub embedded: usize,
    pub cache_hit_rate: f64,
}

/// The text a declaration is embedded as: where it lives, its head, its
/// prose and its code.
pub fn embed_text(doc: &DocText) -> String {
    let f = |x: Field| doc.fields[x as usize].trim();
    format!(
        "{} {}\n{}\n{}\n{}",
        f(Field::Path),
        f(Field::Name),
        f(Field::Signature),
        f(Field::Doc),
        f(Field::Body)
    )
}

/// A declaration's name as words, with its owner's, then its parameters'
/// names (`decimal as tuple`, `http connection putheader with header
/// values`, `pydecimal getcontext`): a second, short text, embedded in a
/// space of its own. MiniLM's word pieces split `isdisjoint` or
/// `getSystemId` badly inside code, but read words well; the parameters say
/// what a function works on ("Send a request header line" finds
/// `putheader(header, *values)`): +0.4 recall@10 on the standard library,
/// +0.3 on the pip corpus over the name alone.
pub fn name_text(index: &Index, doc: &DocText) -> String {
    let mut out = name_words(&index.res.decls[doc.decl].name);
    let mut words = Vec::new();
    for name in param_names(&doc.fields[Field::Signature as usize]) {
        super::terms::subtokens(name, |w| words.push(w.to_lowercase()));
    }
    if !words.is_empty() {
        out.push_str(" with ");
        out.push_str(&words.join(" "));
    }
    out
}

/// A declaration's name as words ([`name_text`]) followed by what it
/// returns, as words (`decimal as tuple returns decimal tuple sign digits
/// exp`): a fourth text, embedded in a space of its own. A question says
/// what a function gives back ("Return the …") more often than how:
/// +0.3 recall@10 and recall@1 on the standard library, +0.1 recall@1 on
/// the pip corpus, at 0.2 of a ranking.
pub fn returns_text(index: &Index, doc: &DocText) -> String {
    let mut words: Vec<String> = Vec::new();
    super::terms::subtokens(&doc.fields[Field::Returns as usize], |w| {
        let w = w.to_lowercase();
        if !words.contains(&w) {
            words.push(w);
        }
    });
    format!("{} returns {}", name_text(index, doc), words.join(" "))
}

/// The parameter names of a Python `def` or Go `func` signature, without
/// `self`, `cls` or a Go receiver; commas inside brackets (`Dict[str,
/// int]`, `func(a, b int)`) do not split parameters.
fn param_names(sig: &str) -> Vec<&str> {
    let sig = sig.trim_start();
    let go = sig.starts_with("func");
    let mut rest = sig;
    if go && let Some(after) = sig.strip_prefix("func (") {
        rest = after.split_once(')').map_or("", |(_, r)| r);
    }
    let Some(open) = rest.find('(') else {
        return Vec::new();
    };
    let mut pieces = Vec::new();
    let (mut depth, mut start) = (0usize, open + 1);
    for (i, ch) in rest.char_indices().skip_while(|&(i, _)| i <= open) {
        match ch {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' if depth == 0 => {
                pieces.push(&rest[start..i]);
                break;
            }
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                pieces.push(&rest[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    pieces
        .into_iter()
        .filter_map(|piece| {
            let name = if go {
                piece.split_whitespace().next().unwrap_or("")
            } else {
                piece.split([':', '=']).next().unwrap_or("").trim()
            };
            let name = name.trim_start_matches('*');
            let usable = !name.is_empty() && name != "self" && name != "cls" && name != "/";
            usable.then_some(name)
        })
        .collect()
}

/// The last two parts of a qualified name, split into lowercase words.
fn name_words(qualified: &str) -> String {
    let tail: Vec<&str> = qualified.rsplit('.').take(2).collect();
    let mut words = Vec::new();
    for part in tail.iter().rev() {
        super::terms::subtokens(part, |w| words.push(w.to_lowercase()));
    }
    words.join(" ")
}

/// The text of a declaration to embed.
pub type TextOf = fn(&Index, &DocText) -> String;

/// What a cached vector is stored under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheKey {
    /// The declaration's body hash and qualified name: reading its text
    /// means reading the file, so a refresh checks the cache without it.
    BodyAndName,
    /// The text itself, when it is cheap to make (a name as words): an
    /// edit to the body does not embed the name again.
    Text,
}

impl VectorIndex {
    /// Vectors for `docs` (each embedded as `text` gives it), reusing those
    /// stored under the same body hash in `space_suffix`'s embedding space
    /// and embedding the rest in batches.
    pub fn refresh(
        index: &Index,
        docs: &[DocText],
        embedder: &dyn Embedder,
        space_suffix: &str,
        text: TextOf,
        key: CacheKey,
        progress: &dyn Progress,
    ) -> Result<(VectorIndex, EmbedStats), VectorError> {
        let space = format!("{}{space_suffix}", embedder.space());
        let mut store = Store::open_at(&index.db_path)?;
        let mut known = store.embeddings(&space)?;
        let keys: Vec<u64> = docs
            .iter()
            .map(|doc| match key {
                CacheKey::BodyAndName => {
                    let body = index.local_decl(doc.decl).map(|l| l.body_hash).unwrap_or(0);
                    let name = &index.res.decls[doc.decl].name;
                    crate::model::content_hash(format!("{body:016x} {name}").as_bytes())
                }
                CacheKey::Text => crate::model::content_hash(text(index, doc).as_bytes()),
            })
            .collect();
        let mut seen = rustc_hash::FxHashSet::default();
        let missing: Vec<usize> = (0..docs.len())
            .filter(|&i| !known.contains_key(&keys[i]) && seen.insert(keys[i]))
            .collect();
        let mut stats = EmbedStats {
            declarations: docs.len(),
            cached: docs.len() - missing.len(),
            embedded: 0,
            cache_hit_rate: 0.0,
        };
        progress.start(missing.len());
        // Embed and store chunk by chunk: an interrupted run keeps its work.
        for chunk in missing.chunks(super::embed::BATCH * 4) {
            let texts: Vec<String> = chunk.iter().map(|&i| text(index, &docs[i])).collect();
            let vecs = embedder.embed(&texts)?;
            let rows: Vec<(u64, Vec<f32>)> =
                chunk.iter().zip(vecs).map(|(&i, v)| (keys[i], v)).collect();
            store.put_embeddings(&space, &rows)?;
            for _ in chunk {
                progress.tick();
            }
            stats.embedded += rows.len();
            known.extend(rows);
        }
        progress.finish();
        stats.cache_hit_rate = if docs.is_empty() {
            1.0
        } else {
            stats.cached as f64 / docs.len() as f64
        };
        let dims = known.values().next().map(Vec::len).unwrap_or(0);
        let mut vi = VectorIndex {
            dims,
            decls: Vec::with_capacity(docs.len()),
            data: Vec::with_capacity(docs.len() * dims),
        };
        for (d, k) in docs.iter().zip(&keys) {
            if let Some(v) = known.get(k).filter(|v| v.len() == dims) {
                vi.decls.push(d.decl);
                vi.data.extend_from_slice(v);
            }
        }
        Ok((vi, stats))
    }

    pub fn from_rows(dims: usize, rows: Vec<(DeclId, Vec<f32>)>) -> VectorIndex {
        let mut vi = VectorIndex {
            dims,
            decls: Vec::new(),
            data: Vec::new(),
        };
        for (d, v) in rows.into_iter().filter(|(_, v)| v.len() == dims) {
            vi.decls.push(d);
            vi.data.extend_from_slice(&v);
        }
        vi
    }

    /// The mean of the vectors (not normalised).
    pub fn mean(&self) -> Vec<f32> {
        let mut m = vec![0f32; self.dims];
        for row in self.data.chunks_exact(self.dims.max(1)) {
            for (a, x) in m.iter_mut().zip(row) {
                *a += x;
            }
        }
        let n = self.len().max(1) as f32;
        m.iter_mut().for_each(|a| *a /= n);
        m
    }

    /// The same vectors with `gamma` times `mean` taken away, normalised
    /// again.
    pub fn centered(&self, mean: &[f32], gamma: f32) -> VectorIndex {
        let mut data = self.data.clone();
        for row in data.chunks_exact_mut(self.dims.max(1)) {
            for (x, m) in row.iter_mut().zip(mean) {
                *x -= gamma * m;
            }
            super::embed::normalize(row);
        }
        VectorIndex {
            dims: self.dims,
            decls: self.decls.clone(),
            data,
        }
    }

    pub fn len(&self) -> usize {
        self.decls.len()
    }

    pub fn is_empty(&self) -> bool {
        self.decls.is_empty()
    }

    pub fn vector(&self, decl: DeclId) -> Option<&[f32]> {
        let i = self.decls.iter().position(|&d| d == decl)?;
        Some(&self.data[i * self.dims..(i + 1) * self.dims])
    }

    /// The `k` nearest declarations by cosine (vectors are normalised, so a
    /// dot product), best first.
    pub fn nearest(&self, q: &[f32], k: usize, skip: Option<DeclId>) -> Vec<(DeclId, f32)> {
        if q.len() != self.dims || self.dims == 0 {
            return Vec::new();
        }
        let mut scored: Vec<(DeclId, f32)> = self
            .data
            .chunks_exact(self.dims)
            .zip(&self.decls)
            .filter(|(_, d)| Some(**d) != skip)
            .map(|(row, &d)| (d, dot(row, q)))
            .collect();
        let cmp = |a: &(DeclId, f32), b: &(DeclId, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        if scored.len() > k && k > 0 {
            scored.select_nth_unstable_by(k - 1, cmp);
            scored.truncate(k);
        }
        scored.sort_by(cmp);
        scored.truncate(k);
        scored
    }
}

/// Dot product in eight independent lanes, which the compiler vectorises.
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for i in 0..8 {
            lanes[i] += x[i] * y[i];
        }
    }
    let tail: f32 = ra.iter().zip(rb).map(|(x, y)| x * y).sum();
    lanes.iter().sum::<f32>() + tail
}

/// Reciprocal-rank fusion (Cormack et al., SIGIR 2009): each list adds
/// `weight / (K + rank)`. Ranks, unlike raw BM25 and cosine scores, are on
/// one scale, and a large K keeps one list's top hit from drowning the other.
pub fn fuse(lists: &[(&[DeclId], f32)], k: usize, rrf_k: f32) -> Vec<(DeclId, f32)> {
    const K_MIN: f32 = 1.0;
    let big_k = rrf_k.max(K_MIN);
    let mut acc: FxHashMap<DeclId, f32> = FxHashMap::default();
    for (list, weight) in lists {
        for (rank, &d) in list.iter().enumerate() {
            *acc.entry(d).or_default() += weight / (big_k + rank as f32 + 1.0);
        }
    }
    let mut out: Vec<(DeclId, f32)> = acc.into_iter().collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    out.truncate(k);
    out
}

/// Convex combination of min-max normalised scores (Bruch et al., "An
/// Analysis of Fusion Functions for Hybrid Retrieval", 2023): each list's
/// scores are scaled to [0, 1] over its own candidates, a candidate absent
/// from a list scores 0 there, and the weighted sum ranks. Unlike ranks,
/// this keeps how far a list's top hit stands above the rest.
pub fn fuse_scores(lists: &[(&[(DeclId, f32)], f32)], k: usize) -> Vec<(DeclId, f32)> {
    let mut acc: FxHashMap<DeclId, f32> = FxHashMap::default();
    for (list, weight) in lists {
        let Some(lo) = list.iter().map(|x| x.1).reduce(f32::min) else {
            continue;
        };
        let hi = list.iter().map(|x| x.1).fold(lo, f32::max);
        // One candidate, or all tied: each counts fully.
        let span = hi - lo;
        for &(d, score) in list.iter() {
            let norm = if span > f32::EPSILON {
                (score - lo) / span
            } else {
                1.0
            };
            *acc.entry(d).or_default() += weight * norm;
        }
    }
    let mut out: Vec<(DeclId, f32)> = acc.into_iter().collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    out.truncate(k);
    out
}

/// Sum of z-scores: each list's scores are standardised by its own mean
/// and standard deviation, and a candidate absent from a list takes that
/// list's last (lowest) score. Unlike min-max scaling, where every list's
/// top hit scores 1, a hit far above the rest of its list keeps its lead,
/// and a list whose top is a crowd of near ties counts less.
pub fn fuse_zscores(lists: &[(&[(DeclId, f32)], f32)], k: usize) -> Vec<(DeclId, f32)> {
    let mut acc: FxHashMap<DeclId, f32> = FxHashMap::default();
    // What every candidate gets from the lists it is absent from, added
    // once at the end; each list adds its candidates' lead over that floor.
    let mut floor = 0f32;
    for (list, weight) in lists {
        let Some(last) = list.last().map(|x| x.1) else {
            continue;
        };
        let n = list.len() as f32;
        let mean = list.iter().map(|x| x.1).sum::<f32>() / n;
        let var = list.iter().map(|x| (x.1 - mean).powi(2)).sum::<f32>() / n;
        let sd = if var.sqrt() > f32::EPSILON {
            var.sqrt()
        } else {
            1.0
        };
        floor += weight * (last - mean) / sd;
        for &(d, score) in list.iter() {
            *acc.entry(d).or_default() += weight * (score - last) / sd;
        }
    }
    let mut out: Vec<(DeclId, f32)> = acc.into_iter().map(|(d, s)| (d, s + floor)).collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    out.truncate(k);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn score_fusion_keeps_how_far_ahead_a_hit_is() {
        // Each list ranks 1 and 2 first and second, the other way round, so
        // ranks alone cannot tell them apart; but 1 leads the lexical list
        // by far and trails the neural one by a hair.
        let lexical = [(DeclId(1), 10.0), (DeclId(2), 2.0), (DeclId(3), 1.0)];
        let neural = [(DeclId(2), 0.50), (DeclId(1), 0.49), (DeclId(5), 0.10)];
        let fused = fuse_scores(&[(&lexical, 1.0), (&neural, 1.0)], 3);
        assert_eq!(
            fused.iter().map(|x| x.0.0).collect::<Vec<_>>(),
            vec![1, 2, 3]
        );
        assert!((fused[0].1 - (1.0 + 0.39 / 0.40)).abs() < 1e-5);
        // Agreement still wins over one list's top hit.
        let lexical = [(DeclId(1), 10.0), (DeclId(2), 9.0), (DeclId(3), 1.0)];
        let neural = [(DeclId(4), 0.9), (DeclId(2), 0.85), (DeclId(1), 0.2)];
        let fused = fuse_scores(&[(&lexical, 1.0), (&neural, 1.0)], 2);
        assert_eq!(fused[0].0, DeclId(2));
        // An empty list adds nothing; a list of ties counts each fully.
        let fused = fuse_scores(
            &[(&[], 1.0), (&[(DeclId(7), 0.3), (DeclId(8), 0.3)], 0.5)],
            5,
        );
        assert_eq!(fused, vec![(DeclId(7), 0.5), (DeclId(8), 0.5)]);
    }

    #[test]
    fn names_become_words_with_their_owner() {
        assert_eq!(
            name_words("_pydecimal.Decimal.as_tuple"),
            "decimal as tuple"
        );
        assert_eq!(name_words("xml.sax.getSystemId"), "sax get system id");
        assert_eq!(
            param_names("def putheader(self, header, *values, sep: Dict[str, int] = {}, **kw):"),
            ["header", "values", "sep", "kw"]
        );
        assert_eq!(param_names("def f(cls, /, a, *, b)"), ["a", "b"]);
        assert_eq!(
            param_names(
                "func (s *Server) Handle(w http.ResponseWriter, a, b int, f func(x, y int), rest ...string) error"
            ),
            ["w", "a", "b", "f", "rest"]
        );
        assert_eq!(name_words("os"), "os");
    }

    #[test]
    fn z_score_fusion_keeps_a_clear_lead() {
        // Min-max puts both lists' tops at 1 and their sums tie; here the
        // neural top stands far above a flat list, the lexical top does not.
        let lexical = [
            (DeclId(1), 10.0),
            (DeclId(2), 9.5),
            (DeclId(3), 9.0),
            (DeclId(4), 8.5),
            (DeclId(5), 0.0),
        ];
        let neural = [
            (DeclId(2), 0.9),
            (DeclId(1), 0.3),
            (DeclId(3), 0.3),
            (DeclId(4), 0.3),
            (DeclId(5), 0.3),
        ];
        let fused = fuse_zscores(&[(&lexical, 1.0), (&neural, 1.0)], 5);
        assert_eq!(fused[0].0, DeclId(2));
        // A candidate missing from a list takes that list's lowest score.
        let fused = fuse_zscores(
            &[
                (&[(DeclId(1), 2.0), (DeclId(2), 0.0)], 1.0),
                (&[(DeclId(3), 1.0), (DeclId(2), 0.0)], 1.0),
            ],
            3,
        );
        assert_eq!(fused[0].1, fused[1].1);
        assert!((fused[2].1 - -2.0).abs() < 1e-5, "{fused:?}");
        // Empty lists add nothing; ties do not divide by zero.
        let fused = fuse_zscores(
            &[(&[], 1.0), (&[(DeclId(7), 0.3), (DeclId(8), 0.3)], 1.0)],
            5,
        );
        assert_eq!(fused, vec![(DeclId(7), 0.0), (DeclId(8), 0.0)]);
    }

    #[test]
    fn nearest_is_exact_cosine_order() {
        let mut rows = vec![
            (DeclId(10), vec![1.0, 0.0, 0.0]),
            (DeclId(11), vec![0.6, 0.8, 0.0]),
            (DeclId(12), vec![0.0, 0.0, 1.0]),
        ];
        for r in &mut rows {
            super::super::embed::normalize(&mut r.1);
        }
        let vi = VectorIndex::from_rows(3, rows);
        let got = vi.nearest(&[1.0, 0.0, 0.0], 2, None);
        assert_eq!(got.iter().map(|x| x.0.0).collect::<Vec<_>>(), vec![10, 11]);
        let got = vi.nearest(&[1.0, 0.0, 0.0], 2, Some(DeclId(10)));
        assert_eq!(got[0].0, DeclId(11));
        assert!(vi.nearest(&[1.0], 2, None).is_empty());
    }

    #[test]
    fn dot_handles_lengths_that_are_not_multiples_of_eight() {
        let a: Vec<f32> = (0..19).map(|i| i as f32).collect();
        let want: f32 = a.iter().map(|x| x * x).sum();
        assert_eq!(dot(&a, &a), want);
    }

    #[test]
    fn fusion_rewards_agreement() {
        let lexical = [DeclId(1), DeclId(2), DeclId(3)];
        let neural = [DeclId(3), DeclId(4), DeclId(1)];
        let fused = fuse(&[(&lexical, 1.0), (&neural, 1.0)], 10, 60.0);
        let order: Vec<DeclId> = fused.iter().map(|x| x.0).collect();
        assert_eq!(&order[..2], &[DeclId(1), DeclId(3)]);
        assert_eq!(order.len(), 4);
    }
}

//! Semantic search: find declarations by what they do, not by their name.
//!
//! The unit is the declaration ([`corpus`]): its name, module path,
//! signature, docstring and comments, and body read from the file by its
//! byte span. The offline default is a lexical ranker made for code
//! ([`terms`] splits identifiers into sub-tokens and normalises prose and
//! code to the same terms, [`lexical`] ranks with BM25F). It needs no model
//! and no network, and it is built in memory from the main index on demand
//! (about a second for 75k declarations), so it is never stale.
//!
//! When `ripple.toml` configures an embedding provider ([`config`]), the
//! declarations are also embedded over HTTP ([`embed`]), cached in the
//! index by body hash, searched by exact cosine and fused with the lexical
//! ranking ([`vectors`]), with each declaration's name as words embedded
//! as a third ranking. With the `local-model` feature, a
//! sentence-transformers model directory runs in-process instead
//! ([`local`]); [`embedder`] picks the backend from the configuration.
//!
//! [`bench`] measures recall on a held-out style set made from any Python
//! repository: docstrings stripped, their first sentences as queries.

pub mod bench;
pub mod config;
pub mod corpus;
pub mod embed;
pub mod lexical;
#[cfg(feature = "local-model")]
pub mod local;
pub mod terms;
pub mod vectors;

use std::time::Instant;

use serde::Serialize;

use crate::index::{Index, Progress};
use crate::resolve::DeclId;
use corpus::{CorpusOptions, DocText};
use embed::{EmbedError, Embedder};
use lexical::{Hit, LexicalIndex, Params};
use vectors::{CacheKey, EmbedStats, VectorError, VectorIndex};

#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    #[cfg(feature = "local-model")]
    #[error(transparent)]
    Model(#[from] local::ModelError),
    #[error(
        "the local embedding model needs ripple built with `--features local-model` \
         (this build has no in-process model)"
    )]
    NoLocalModel,
    #[error("the local embedding provider needs a model directory")]
    NoModelDir,
}

/// The embedding backend a configuration names: an HTTP provider, or the
/// local model loaded from its directory.
pub fn embedder(cfg: config::EmbedConfig) -> Result<Box<dyn Embedder>, BackendError> {
    if cfg.provider != config::Provider::Local {
        return Ok(Box::new(embed::HttpEmbedder::new(cfg)));
    }
    let dir = cfg.model_dir.ok_or(BackendError::NoModelDir)?;
    #[cfg(feature = "local-model")]
    {
        Ok(Box::new(local::LocalEmbedder::load(&dir)?))
    }
    #[cfg(not(feature = "local-model"))]
    {
        let _ = dir;
        Err(BackendError::NoLocalModel)
    }
}

/// A short name for the backend a configuration names, for messages.
pub fn backend_name(cfg: &config::EmbedConfig) -> String {
    match (&cfg.provider, &cfg.model_dir) {
        (config::Provider::Local, Some(dir)) => format!("the local model in {}", dir.display()),
        _ => cfg.model.clone(),
    }
}

/// The search index of one repository, with the figures of its build.
pub struct SearchIndex {
    /// Shared, so the explorer can search by words while the neural half
    /// of the same index is still being embedded.
    pub lexical: std::sync::Arc<LexicalIndex>,
    pub neural: Option<Neural>,
    pub stats: BuildStats,
    /// How the lexical and the neural rankings are combined.
    pub fusion: Fusion,
}

/// How a hybrid index combines its two rankings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fusion {
    /// A weighted sum of each ranking's scores, min-max normalised over its
    /// own top 100 ([`vectors::fuse_scores`]).
    Scores { lexical: f32, neural: f32 },
    /// Weighted reciprocal-rank fusion with constant `k` ([`vectors::fuse`]).
    Ranks { lexical: f32, neural: f32, k: f32 },
    /// A weighted sum of z-scores over each ranking's top `depth`
    /// ([`vectors::fuse_zscores`]); `names` weighs a third ranking, the
    /// query's cosine to each declaration's name as words
    /// ([`vectors::name_text`]), and `returns` a fourth, to its name with
    /// what it returns ([`vectors::returns_text`]).
    ZScores {
        lexical: f32,
        neural: f32,
        names: f32,
        returns: f32,
        depth: usize,
    },
}

impl Fusion {
    /// How many candidates each ranker contributes.
    pub fn depth(&self) -> usize {
        match *self {
            Fusion::ZScores { depth, .. } => depth,
            _ => FUSION_DEPTH,
        }
    }
}

/// The neural half of a hybrid index.
pub struct Neural {
    pub vectors: VectorIndex,
    /// The declarations' names as words, embedded in the same model.
    pub names: VectorIndex,
    /// Their names with what they return, as words.
    pub returns: VectorIndex,
    pub embedder: Box<dyn Embedder>,
    pub stats: EmbedStats,
}

/// How the rankings are fused: z-scores over each ranker's top 500, the
/// lexical and neural rankings at equal weight, the names-as-words and
/// names-with-returns rankings lighter. Score fusion keeps how far ahead a
/// confident top hit is, which reciprocal-rank fusion throws away, and
/// z-scores keep it where min-max would give every list's top hit 1. The
/// weights are the best measured by `ripple bench-search` on the standard
/// library and on rich + click + attrs + requests (docs/accuracy.md).
pub const FUSION: Fusion = Fusion::ZScores {
    lexical: 1.0,
    neural: 1.0,
    names: 0.3,
    returns: 0.2,
    depth: 500,
};

/// How many candidates each ranker contributes to score and rank fusion.
const FUSION_DEPTH: usize = 100;

#[derive(Debug, Clone, Default, Serialize)]
pub struct BuildStats {
    pub declarations: usize,
    /// Reading the declarations' text from their files.
    pub read_ms: f64,
    /// Tokenizing and building the inverted index.
    pub index_ms: f64,
}

impl BuildStats {
    pub fn per_second(&self) -> f64 {
        self.declarations as f64 / ((self.read_ms + self.index_ms).max(0.001) / 1000.0)
    }
}

impl SearchIndex {
    pub fn build(index: &Index, opts: CorpusOptions) -> SearchIndex {
        let t = Instant::now();
        let docs = corpus::documents(index, opts);
        let read_ms = t.elapsed().as_secs_f64() * 1000.0;
        SearchIndex::from_documents(&docs, read_ms)
    }

    pub fn from_documents(docs: &[DocText], read_ms: f64) -> SearchIndex {
        let t = Instant::now();
        let lexical = LexicalIndex::build(docs, Params::default());
        SearchIndex {
            lexical: std::sync::Arc::new(lexical),
            neural: None,
            fusion: FUSION,
            stats: BuildStats {
                declarations: docs.len(),
                read_ms,
                index_ms: t.elapsed().as_secs_f64() * 1000.0,
            },
        }
    }

    /// A lexical index plus vectors from `embedder` (embedding only what
    /// the index does not hold yet). `space_suffix` separates variants of
    /// the same declarations (the benchmark's docstring-free text).
    pub fn build_hybrid(
        index: &Index,
        opts: CorpusOptions,
        embedder: Box<dyn Embedder>,
        progress: &dyn Progress,
    ) -> Result<SearchIndex, VectorError> {
        let t = Instant::now();
        let docs = corpus::documents(index, opts);
        let read_ms = t.elapsed().as_secs_f64() * 1000.0;
        let mut search = SearchIndex::from_documents(&docs, read_ms);
        search.attach(index, &docs, embedder, opts, progress)?;
        Ok(search)
    }

    /// The same index without its neural half (sharing the lexical one).
    pub fn lexical_only(&self) -> SearchIndex {
        SearchIndex {
            lexical: self.lexical.clone(),
            neural: None,
            stats: self.stats.clone(),
            fusion: self.fusion,
        }
    }

    /// Add the neural half to an index built from `docs`.
    pub fn attach(
        &mut self,
        index: &Index,
        docs: &[DocText],
        embedder: Box<dyn Embedder>,
        opts: CorpusOptions,
        progress: &dyn Progress,
    ) -> Result<&EmbedStats, VectorError> {
        let suffix = if opts.strip_docstrings { "#nodoc" } else { "" };
        let body = |_: &Index, d: &DocText| vectors::embed_text(d);
        let (vectors, stats) = VectorIndex::refresh(
            index,
            docs,
            &*embedder,
            suffix,
            body,
            CacheKey::BodyAndName,
            progress,
        )?;
        // Names are a few tokens: 17,715 take under two minutes.
        let (names, _) = VectorIndex::refresh(
            index,
            docs,
            &*embedder,
            "#name",
            vectors::name_text,
            CacheKey::Text,
            progress,
        )?;
        let (returns, _) = VectorIndex::refresh(
            index,
            docs,
            &*embedder,
            "#returns",
            vectors::returns_text,
            CacheKey::Text,
            progress,
        )?;
        let neural = self.neural.insert(Neural {
            vectors,
            names,
            returns,
            embedder,
            stats,
        });
        Ok(&neural.stats)
    }

    /// The best `k` declarations for a query: BM25F alone, or fused with
    /// the nearest vectors when a provider is configured.
    pub fn search(&self, query: &str, k: usize) -> Result<Vec<Hit>, EmbedError> {
        let Some(neural) = &self.neural else {
            return Ok(self.lexical.search(query, k));
        };
        let depth = self.fusion.depth().max(k);
        let lexical = self.lexical.search(query, depth);
        let q = neural.embedder.embed(&[query.to_owned()])?;
        let near = neural.vectors.nearest(&q[0], depth, None);
        let (by_name, by_returns) = match self.fusion {
            Fusion::ZScores { names, returns, .. } => {
                let nearest = |space: &VectorIndex, w: f32| {
                    if w > 0.0 {
                        space.nearest(&q[0], depth, None)
                    } else {
                        Vec::new()
                    }
                };
                (
                    nearest(&neural.names, names),
                    nearest(&neural.returns, returns),
                )
            }
            _ => (Vec::new(), Vec::new()),
        };
        let terms = self.lexical.query_terms(query);
        Ok(self.fused(lexical, near, [by_name, by_returns], k, &terms))
    }

    fn fused(
        &self,
        lexical: Vec<Hit>,
        near: Vec<(DeclId, f32)>,
        [by_name, by_returns]: [Vec<(DeclId, f32)>; 2],
        k: usize,
        terms: &[(lexical::TermId, f32)],
    ) -> Vec<Hit> {
        let lex_ids: Vec<DeclId> = lexical.iter().map(|h| h.decl).collect();
        let near_ids: Vec<DeclId> = near.iter().map(|x| x.0).collect();
        let fused = match self.fusion {
            Fusion::Scores {
                lexical: wl,
                neural: wn,
            } => {
                let lex: Vec<(DeclId, f32)> = lexical.iter().map(|h| (h.decl, h.score)).collect();
                vectors::fuse_scores(&[(&lex, wl), (&near, wn)], k)
            }
            Fusion::Ranks {
                lexical: wl,
                neural: wn,
                k: rrf_k,
            } => vectors::fuse(&[(&lex_ids, wl), (&near_ids, wn)], k, rrf_k),
            Fusion::ZScores {
                lexical: wl,
                neural: wn,
                names: wm,
                returns: wr,
                ..
            } => {
                let lex: Vec<(DeclId, f32)> = lexical.iter().map(|h| (h.decl, h.score)).collect();
                vectors::fuse_zscores(
                    &[(&lex, wl), (&near, wn), (&by_name, wm), (&by_returns, wr)],
                    k,
                )
            }
        };
        fused
            .into_iter()
            .map(|(decl, score)| {
                let lex = lexical.iter().find(|h| h.decl == decl);
                let matched = match lex {
                    Some(h) => h.matched.clone(),
                    None => self.lexical.explain_decl(decl, terms),
                };
                Hit {
                    decl,
                    score,
                    matched,
                    cosine: near.iter().find(|x| x.0 == decl).map(|x| x.1),
                }
            })
            .collect()
    }

    /// Declarations most similar to `decl` (duplicates, parallel
    /// implementations); empty when `decl` is not searchable.
    pub fn similar(&self, index: &Index, decl: DeclId, k: usize) -> Vec<Hit> {
        if !self.lexical.contains(decl) {
            return Vec::new();
        }
        let Some(doc) = corpus::document_of(index, decl, CorpusOptions::default()) else {
            return Vec::new();
        };
        let Some(neural) = &self.neural else {
            return self.lexical.similar(&doc, k);
        };
        let depth = self.fusion.depth().max(k);
        let lexical = self.lexical.similar(&doc, depth);
        let near = match neural.vectors.vector(decl) {
            Some(v) => neural.vectors.nearest(v, depth, Some(decl)),
            None => Vec::new(),
        };
        // Names are not compared with names: unmeasured for `similar`.
        self.fused(lexical, near, [Vec::new(), Vec::new()], k, &[])
    }
}

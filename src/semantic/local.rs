//! A sentence-embedding model run in-process on the CPU (feature
//! `local-model`): a directory in the sentence-transformers layout —
//! `config.json` (a BERT encoder), `tokenizer.json`, `model.safetensors`,
//! and `modules.json` naming the pooling (`1_Pooling/config.json`) and
//! whether a `Normalize` step follows — is loaded with candle and run the
//! way sentence-transformers runs it: tokens truncated to
//! `max_seq_length` (`sentence_bert_config.json`), the encoder's last
//! hidden states mean-pooled over the attention mask (or the `[CLS]`
//! state), then L2-normalised. Nothing is ever downloaded: a missing or
//! malformed file is an error that names it.

use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use serde::Deserialize;
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

use super::embed::{EmbedError, Embedder, MAX_CHARS, normalize};

#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error(
        "{dir}: not a sentence-transformers model directory: {file} is missing \
         (expected config.json, tokenizer.json and model.safetensors)"
    )]
    Missing { dir: String, file: &'static str },
    #[error("{path}: {why}")]
    Invalid { path: String, why: String },
    #[error("{path}: unsupported model: {why}")]
    Unsupported { path: String, why: String },
}

/// How token states become one vector (`1_Pooling/config.json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pooling {
    Mean,
    Cls,
}

#[derive(Deserialize)]
struct Module {
    #[serde(default)]
    path: String,
    #[serde(rename = "type", default)]
    kind: String,
}

#[derive(Deserialize, Default)]
struct PoolingConfig {
    #[serde(default)]
    pooling_mode_cls_token: bool,
    #[serde(default)]
    pooling_mode_mean_tokens: bool,
    #[serde(default)]
    pooling_mode_max_tokens: bool,
    #[serde(default)]
    pooling_mode_mean_sqrt_len_tokens: bool,
}

#[derive(Deserialize)]
struct SentenceBertConfig {
    max_seq_length: Option<usize>,
}

#[derive(Deserialize)]
struct ModelType {
    model_type: Option<String>,
    max_position_embeddings: Option<usize>,
}

pub struct LocalEmbedder {
    model: BertModel,
    tokenizer: Tokenizer,
    pooling: Pooling,
    dims: usize,
    space: String,
}

/// Texts per forward pass: large enough to keep the matrix kernels busy,
/// small enough that padding to the longest text wastes little.
const BATCH: usize = 32;

fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T, ModelError> {
    let text = std::fs::read_to_string(path).map_err(|e| ModelError::Invalid {
        path: path.display().to_string(),
        why: e.to_string(),
    })?;
    serde_json::from_str(&text).map_err(|e| ModelError::Invalid {
        path: path.display().to_string(),
        why: e.to_string(),
    })
}

fn require(dir: &Path, file: &'static str) -> Result<PathBuf, ModelError> {
    let p = dir.join(file);
    if p.is_file() {
        Ok(p)
    } else {
        Err(ModelError::Missing {
            dir: dir.display().to_string(),
            file,
        })
    }
}

/// The pooling `modules.json` asks for; a directory without it is a bare
/// transformer, which sentence-transformers mean-pools. Vectors are always
/// L2-normalised afterwards (whether or not a `Normalize` module follows):
/// search ranks by cosine, which normalising does not change.
fn pooling(dir: &Path) -> Result<Pooling, ModelError> {
    let modules_path = dir.join("modules.json");
    if !modules_path.is_file() {
        return Ok(Pooling::Mean);
    }
    let modules: Vec<Module> = read_json(&modules_path)?;
    let Some(pool) = modules.iter().find(|m| m.kind.ends_with("Pooling")) else {
        return Ok(Pooling::Mean);
    };
    let cfg_path = dir.join(&pool.path).join("config.json");
    let cfg: PoolingConfig = if cfg_path.is_file() {
        read_json(&cfg_path)?
    } else {
        PoolingConfig::default()
    };
    let unsupported = |why: &str| ModelError::Unsupported {
        path: cfg_path.display().to_string(),
        why: why.to_owned(),
    };
    if cfg.pooling_mode_max_tokens || cfg.pooling_mode_mean_sqrt_len_tokens {
        return Err(unsupported("only mean or CLS pooling is supported"));
    }
    let pooling = match (cfg.pooling_mode_mean_tokens, cfg.pooling_mode_cls_token) {
        (true, false) => Pooling::Mean,
        (false, true) => Pooling::Cls,
        (false, false) => Pooling::Mean,
        (true, true) => return Err(unsupported("more than one pooling mode")),
    };
    Ok(pooling)
}

impl LocalEmbedder {
    /// Load the model in `dir`; every file is checked before any weight is read.
    pub fn load(dir: &Path) -> Result<LocalEmbedder, ModelError> {
        if !dir.is_dir() {
            return Err(ModelError::Invalid {
                path: dir.display().to_string(),
                why: "not a directory".to_owned(),
            });
        }
        let config_path = require(dir, "config.json")?;
        let tokenizer_path = require(dir, "tokenizer.json")?;
        let weights_path = require(dir, "model.safetensors")?;
        let invalid = |path: &Path, why: String| ModelError::Invalid {
            path: path.display().to_string(),
            why,
        };

        let kind: ModelType = read_json(&config_path)?;
        let model_type = kind.model_type.unwrap_or_default();
        if model_type != "bert" {
            return Err(ModelError::Unsupported {
                path: config_path.display().to_string(),
                why: format!("model_type {model_type:?} (only BERT encoders are supported)"),
            });
        }
        let config: Config = read_json(&config_path)?;
        let pooling = pooling(dir)?;

        let positions = kind.max_position_embeddings.unwrap_or(512);
        let st_path = dir.join("sentence_bert_config.json");
        let max_len = if st_path.is_file() {
            read_json::<SentenceBertConfig>(&st_path)?.max_seq_length
        } else {
            None
        }
        .unwrap_or(positions)
        .min(positions);
        let mut tokenizer = Tokenizer::from_file(&tokenizer_path)
            .map_err(|e| invalid(&tokenizer_path, e.to_string()))?;
        // sentence-transformers truncates to max_seq_length and pads each
        // batch to its longest text, whatever tokenizer.json says.
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: max_len,
                ..Default::default()
            }))
            .map_err(|e| invalid(&tokenizer_path, e.to_string()))?;
        let pad_id = tokenizer.token_to_id("[PAD]").unwrap_or(0);
        tokenizer.with_padding(Some(PaddingParams {
            strategy: PaddingStrategy::BatchLongest,
            pad_id,
            pad_token: "[PAD]".to_owned(),
            ..Default::default()
        }));

        let bytes =
            std::fs::read(&weights_path).map_err(|e| invalid(&weights_path, e.to_string()))?;
        let size = bytes.len();
        let vb = VarBuilder::from_buffered_safetensors(bytes, DType::F32, &Device::Cpu)
            .map_err(|e| invalid(&weights_path, e.to_string()))?;
        let model = BertModel::load(vb, &config).map_err(|e| {
            invalid(
                &weights_path,
                format!("weights do not match config.json: {e}"),
            )
        })?;
        let dims = config.hidden_size;
        let name = dir
            .canonicalize()
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_default();
        Ok(LocalEmbedder {
            model,
            tokenizer,
            pooling,
            dims,
            // The weights' size tells a replaced model apart from the
            // cached vectors of the old one in the same directory.
            space: format!("local:{name}:{size}:{max_len}"),
        })
    }

    pub fn dims(&self) -> usize {
        self.dims
    }

    fn batch(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let err = |e: &dyn std::fmt::Display| EmbedError::Local(e.to_string());
        let inputs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let encodings = self
            .tokenizer
            .encode_batch(inputs, true)
            .map_err(|e| err(&e))?;
        let n = encodings.len();
        let len = encodings.first().map(|e| e.get_ids().len()).unwrap_or(0);
        if n == 0 || len == 0 {
            return Ok(vec![vec![0.0; self.dims]; n]);
        }
        let mut ids = Vec::with_capacity(n * len);
        let mut types = Vec::with_capacity(n * len);
        let mut mask = Vec::with_capacity(n * len);
        for e in &encodings {
            ids.extend_from_slice(e.get_ids());
            types.extend_from_slice(e.get_type_ids());
            mask.extend_from_slice(e.get_attention_mask());
        }
        let dev = &self.model.device;
        let ids = Tensor::from_vec(ids, (n, len), dev).map_err(|e| err(&e))?;
        let types = Tensor::from_vec(types, (n, len), dev).map_err(|e| err(&e))?;
        let mask = Tensor::from_vec(mask, (n, len), dev).map_err(|e| err(&e))?;
        let pooled = (|| -> candle_core::Result<Tensor> {
            let states = self.model.forward(&ids, &types, Some(&mask))?;
            match self.pooling {
                Pooling::Cls => states.narrow(1, 0, 1)?.squeeze(1),
                Pooling::Mean => {
                    let m = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
                    let sum = states.broadcast_mul(&m)?.sum(1)?;
                    let count = m.sum(1)?.clamp(1e-9, f64::MAX)?;
                    sum.broadcast_div(&count)
                }
            }
        })()
        .map_err(|e| err(&e))?;
        let mut out: Vec<Vec<f32>> = pooled.to_vec2().map_err(|e| err(&e))?;
        out.iter_mut().for_each(|v| normalize(v));
        Ok(out)
    }
}

impl Embedder for LocalEmbedder {
    fn space(&self) -> String {
        self.space.clone()
    }

    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        // Sorted by length so each batch pads little; answers go back in
        // input order.
        let clipped: Vec<String> = texts
            .iter()
            .map(|t| t.chars().take(MAX_CHARS).collect())
            .collect();
        let mut order: Vec<usize> = (0..clipped.len()).collect();
        order.sort_by_key(|&i| clipped[i].len());
        let mut out = vec![Vec::new(); clipped.len()];
        for chunk in order.chunks(BATCH) {
            let batch: Vec<String> = chunk.iter().map(|&i| clipped[i].clone()).collect();
            for (&i, v) in chunk.iter().zip(self.batch(&batch)?) {
                out[i] = v;
            }
        }
        Ok(out)
    }
}

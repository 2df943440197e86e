//! Embedding providers over HTTP: OpenAI-compatible `POST /v1/embeddings`
//! (OpenAI, llama.cpp, vLLM, LM Studio, Ollama's compatibility endpoint) and
//! Ollama's native `POST /api/embed`. Inputs go in batches; 429 and 5xx
//! answers and connection failures are retried with backoff, honouring
//! `retry-after`. Vectors come back L2-normalised so cosine similarity is a
//! dot product.

use std::time::Duration;

use serde_json::{Value, json};

use super::config::{EmbedConfig, Provider};

#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    #[error("embedding request to {url} failed: {source}")]
    Http { url: String, source: reqwest::Error },
    #[error("embedding server {url} answered {status}: {body}")]
    Status {
        url: String,
        status: u16,
        body: String,
    },
    #[error("embedding server {url} sent an unexpected answer: {why}")]
    Shape { url: String, why: String },
    #[error("local embedding model failed: {0}")]
    Local(String),
}

/// Something that turns texts into vectors.
pub trait Embedder: Send + Sync {
    /// Stable identity of the vector space (provider, model, dimensions):
    /// vectors from different spaces are never mixed.
    fn space(&self) -> String;
    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError>;
}

pub struct HttpEmbedder {
    cfg: EmbedConfig,
    client: reqwest::blocking::Client,
    /// Attempts per batch (first try included).
    pub attempts: u32,
    /// First backoff; doubles each retry.
    pub backoff: Duration,
}

/// Most servers accept far more, but a batch must also stay under request
/// size limits and each retry resends it.
pub const BATCH: usize = 64;

/// Characters of a declaration sent for embedding: a function's head says
/// most, and small local models stop at 512 tokens anyway.
pub const MAX_CHARS: usize = 2000;

impl HttpEmbedder {
    pub fn new(cfg: EmbedConfig) -> HttpEmbedder {
        let client = reqwest::blocking::Client::builder()
            .timeout(Duration::from_secs(120))
            .connect_timeout(Duration::from_secs(10))
            .build()
            .unwrap_or_else(|_| reqwest::blocking::Client::new());
        HttpEmbedder {
            cfg,
            client,
            attempts: 4,
            backoff: Duration::from_millis(500),
        }
    }

    fn url(&self) -> String {
        let base = &self.cfg.base_url;
        match self.cfg.provider {
            Provider::Ollama => format!("{base}/api/embed"),
            // Accept a base URL given with or without the `/v1` suffix.
            _ if base.ends_with("/v1") => format!("{base}/embeddings"),
            _ => format!("{base}/v1/embeddings"),
        }
    }

    fn body(&self, texts: &[String]) -> Value {
        let mut body = json!({"model": self.cfg.model, "input": texts});
        if self.cfg.provider == Provider::Openai {
            body["encoding_format"] = json!("float");
        }
        if let Some(d) = self.cfg.dimensions {
            body["dimensions"] = json!(d);
        }
        body
    }

    fn once(&self, url: &str, body: &Value) -> Result<Value, (EmbedError, Option<Duration>)> {
        let mut req = self.client.post(url).json(body);
        if let Some(key) = &self.cfg.api_key {
            req = req.bearer_auth(key);
        }
        let resp = req.send().map_err(|source| {
            (
                EmbedError::Http {
                    url: url.to_owned(),
                    source,
                },
                Some(Duration::ZERO),
            )
        })?;
        let status = resp.status();
        let retry_after = resp
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<f64>().ok())
            .map(|s| Duration::from_secs_f64(s.clamp(0.0, 60.0)));
        if !status.is_success() {
            let retryable = status.as_u16() == 429 || status.is_server_error();
            let body = resp.text().unwrap_or_default();
            let err = EmbedError::Status {
                url: url.to_owned(),
                status: status.as_u16(),
                body: body.chars().take(300).collect(),
            };
            return Err((
                err,
                retryable.then_some(retry_after.unwrap_or(Duration::ZERO)),
            ));
        }
        resp.json::<Value>().map_err(|source| {
            (
                EmbedError::Http {
                    url: url.to_owned(),
                    source,
                },
                None,
            )
        })
    }

    fn parse(&self, url: &str, v: &Value, n: usize) -> Result<Vec<Vec<f32>>, EmbedError> {
        let shape = |why: &str| EmbedError::Shape {
            url: url.to_owned(),
            why: why.to_owned(),
        };
        let to_vec = |e: &Value| -> Option<Vec<f32>> {
            e.as_array()?
                .iter()
                .map(|x| x.as_f64().map(|f| f as f32))
                .collect()
        };
        let mut out: Vec<Option<Vec<f32>>> = vec![None; n];
        match self.cfg.provider {
            Provider::Ollama => {
                let list = v["embeddings"]
                    .as_array()
                    .ok_or_else(|| shape("no `embeddings` array"))?;
                for (i, e) in list.iter().enumerate().take(n) {
                    out[i] = to_vec(e);
                }
            }
            _ => {
                let list = v["data"]
                    .as_array()
                    .ok_or_else(|| shape("no `data` array"))?;
                // Results are matched by `index`, not by position.
                for (pos, item) in list.iter().enumerate() {
                    let i = item["index"].as_u64().map(|i| i as usize).unwrap_or(pos);
                    if i < n {
                        out[i] = to_vec(&item["embedding"]);
                    }
                }
            }
        }
        let vecs: Option<Vec<Vec<f32>>> = out.into_iter().collect();
        let mut vecs = vecs.ok_or_else(|| shape("fewer embeddings than inputs"))?;
        let dims = vecs.first().map(Vec::len).unwrap_or(0);
        if dims == 0 || vecs.iter().any(|v| v.len() != dims) {
            return Err(shape("embeddings of different or zero length"));
        }
        for v in &mut vecs {
            normalize(v);
        }
        Ok(vecs)
    }
}

impl Embedder for HttpEmbedder {
    fn space(&self) -> String {
        format!(
            "{:?}:{}:{}",
            self.cfg.provider,
            self.cfg.model,
            self.cfg.dimensions.unwrap_or(0)
        )
        .to_lowercase()
    }

    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let url = self.url();
        let mut all = Vec::with_capacity(texts.len());
        for batch in texts.chunks(BATCH) {
            // Servers reject empty strings.
            let batch: Vec<String> = batch
                .iter()
                .map(|t| {
                    let t: String = t.chars().take(MAX_CHARS).collect();
                    if t.trim().is_empty() {
                        "_".to_owned()
                    } else {
                        t
                    }
                })
                .collect();
            let body = self.body(&batch);
            let mut attempt = 0;
            let value = loop {
                attempt += 1;
                match self.once(&url, &body) {
                    Ok(v) => break v,
                    Err((err, Some(wait))) if attempt < self.attempts => {
                        let backoff = self.backoff * 2u32.pow(attempt - 1);
                        std::thread::sleep(wait.max(backoff));
                        let _ = err;
                    }
                    Err((err, _)) => return Err(err),
                }
            };
            all.extend(self.parse(&url, &value, batch.len())?);
        }
        Ok(all)
    }
}

pub fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        for x in v {
            *x /= norm;
        }
    }
}

//! The `[search]` table of `ripple.toml`: which embedding provider, if any,
//! joins the offline ranker.
//!
//! ```toml
//! [search]
//! provider   = "openai"                    # openai (any /v1/embeddings server) | ollama | local | none
//! model      = "text-embedding-3-small"
//! base_url   = "https://api.openai.com"   # default per provider
//! dimensions = 512                         # optional (text-embedding-3-* and Ollama)
//! model_dir  = "models/all-MiniLM-L6-v2"   # provider = "local": a sentence-transformers directory
//! ```
//!
//! `provider = "local"` runs the model in `model_dir` (relative to the
//! repository root) in-process; it needs no `model` and no key. `ripple
//! --model-dir DIR` and `RIPPLE_SEARCH_MODEL_DIR` select it too.
//!
//! The API key comes from the environment, never from the file:
//! `RIPPLE_SEARCH_API_KEY`, else `OPENAI_API_KEY` for the `openai` provider.
//! `RIPPLE_SEARCH_PROVIDER`, `RIPPLE_SEARCH_MODEL`, `RIPPLE_SEARCH_BASE_URL`
//! override the file.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::conventions::{ConventionsError, RippleToml, SearchTable};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    /// OpenAI's `/v1/embeddings` and every server that speaks it.
    Openai,
    /// Ollama's native `/api/embed`.
    Ollama,
    /// A sentence-transformers model directory run in-process.
    Local,
    None,
}

#[derive(Debug, Clone, PartialEq)]
pub struct EmbedConfig {
    pub provider: Provider,
    pub model: String,
    pub base_url: String,
    pub dimensions: Option<usize>,
    pub api_key: Option<String>,
    /// The model directory of the `local` provider.
    pub model_dir: Option<PathBuf>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error(transparent)]
    File(#[from] ConventionsError),
    #[error("{path}: [search] sets provider = {provider:?} but no model")]
    NoModel { path: String, provider: String },
    #[error("unknown search provider {0:?} (expected openai, ollama, local or none)")]
    UnknownProvider(String),
    #[error(
        "{path}: [search] provider = \"local\" needs model_dir (a sentence-transformers directory)"
    )]
    NoModelDir { path: String },
}

fn parse_provider(s: &str) -> Result<Provider, ConfigError> {
    match s.to_ascii_lowercase().as_str() {
        "openai" => Ok(Provider::Openai),
        "ollama" => Ok(Provider::Ollama),
        "local" => Ok(Provider::Local),
        "none" | "" => Ok(Provider::None),
        other => Err(ConfigError::UnknownProvider(other.to_owned())),
    }
}

/// The embedding configuration of the repository at `root`, `None` when
/// search is offline only (no `[search]` provider).
pub fn load(root: &Path) -> Result<Option<EmbedConfig>, ConfigError> {
    let file = RippleToml::load(root)?;
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let path = root.join(crate::conventions::CONVENTIONS_FILE);
    let mut cfg = from_table(&file.search, &path.display().to_string(), &env)?;
    if let Some(c) = &mut cfg
        && let Some(dir) = &mut c.model_dir
        && dir.is_relative()
    {
        *dir = root.join(&*dir);
    }
    Ok(cfg)
}

/// The configuration for `--model-dir DIR`: the local model in `dir`,
/// whatever the file says.
pub fn local(dir: &Path) -> EmbedConfig {
    EmbedConfig {
        provider: Provider::Local,
        model: String::new(),
        base_url: String::new(),
        dimensions: None,
        api_key: None,
        model_dir: Some(dir.to_path_buf()),
    }
}

/// [`load`] on given file text and environment (for tests).
pub fn from_parts(
    text: &str,
    path: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<EmbedConfig>, ConfigError> {
    let file = RippleToml::parse(text, Path::new(path))?;
    from_table(&file.search, path, env)
}

/// The `[search]` table resolved with the environment.
fn from_table(
    s: &SearchTable,
    path: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<EmbedConfig>, ConfigError> {
    let s = s.clone();
    let model_dir = env("RIPPLE_SEARCH_MODEL_DIR")
        .map(PathBuf::from)
        .or(s.model_dir);
    let provider = match env("RIPPLE_SEARCH_PROVIDER").or(s.provider) {
        Some(p) => parse_provider(&p)?,
        None if model_dir.is_some() => Provider::Local,
        None => Provider::None,
    };
    if provider == Provider::None {
        return Ok(None);
    }
    if provider == Provider::Local {
        let dir = model_dir.ok_or_else(|| ConfigError::NoModelDir {
            path: path.to_owned(),
        })?;
        return Ok(Some(local(&dir)));
    }
    let model = env("RIPPLE_SEARCH_MODEL")
        .or(s.model)
        .ok_or_else(|| ConfigError::NoModel {
            path: path.to_owned(),
            provider: format!("{provider:?}").to_lowercase(),
        })?;
    let base_url = env("RIPPLE_SEARCH_BASE_URL")
        .or(s.base_url)
        .unwrap_or_else(|| match provider {
            Provider::Ollama => "http://127.0.0.1:11434".to_owned(),
            _ => "https://api.openai.com".to_owned(),
        });
    let api_key = env("RIPPLE_SEARCH_API_KEY").or_else(|| match provider {
        Provider::Openai => env("OPENAI_API_KEY"),
        _ => None,
    });
    Ok(Some(EmbedConfig {
        provider,
        model,
        base_url: base_url.trim_end_matches('/').to_owned(),
        dimensions: s.dimensions,
        api_key,
        model_dir: None,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn no_search_table_means_offline() {
        assert_eq!(from_parts("", "ripple.toml", &no_env).unwrap(), None);
        let t = "[conventions]\nstable = []\n";
        assert_eq!(from_parts(t, "ripple.toml", &no_env).unwrap(), None);
    }

    #[test]
    fn a_provider_needs_a_model_and_gets_a_default_url() {
        let t = "[search]\nprovider = \"ollama\"\nmodel = \"nomic-embed-text\"\n";
        let c = from_parts(t, "ripple.toml", &no_env).unwrap().unwrap();
        assert_eq!(c.provider, Provider::Ollama);
        assert_eq!(c.base_url, "http://127.0.0.1:11434");
        let err = from_parts("[search]\nprovider = \"openai\"\n", "ripple.toml", &no_env);
        assert!(matches!(err, Err(ConfigError::NoModel { .. })));
        let err = from_parts("[search]\nprovider = \"magic\"\n", "ripple.toml", &no_env);
        assert!(matches!(err, Err(ConfigError::UnknownProvider(_))));
    }

    #[test]
    fn a_local_model_needs_only_a_directory() {
        let t = "[search]\nprovider = \"local\"\nmodel_dir = \"models/mini\"\n";
        let c = from_parts(t, "ripple.toml", &no_env).unwrap().unwrap();
        assert_eq!(c.provider, Provider::Local);
        assert_eq!(c.model_dir.as_deref(), Some(Path::new("models/mini")));
        let err = from_parts("[search]\nprovider = \"local\"\n", "ripple.toml", &no_env);
        assert!(matches!(err, Err(ConfigError::NoModelDir { .. })));
        let env = |k: &str| (k == "RIPPLE_SEARCH_MODEL_DIR").then(|| "/m".to_owned());
        let c = from_parts("", "ripple.toml", &env).unwrap().unwrap();
        assert_eq!(c.provider, Provider::Local);
    }

    #[test]
    fn the_environment_supplies_the_key_and_overrides_the_file() {
        let t = "[search]\nprovider = \"openai\"\nmodel = \"m\"\nbase_url = \"http://x/\"\ndimensions = 256\n";
        let env = |k: &str| match k {
            "OPENAI_API_KEY" => Some("sk-test".to_owned()),
            "RIPPLE_SEARCH_MODEL" => Some("other".to_owned()),
            _ => None,
        };
        let c = from_parts(t, "ripple.toml", &env).unwrap().unwrap();
        assert_eq!(c.api_key.as_deref(), Some("sk-test"));
        assert_eq!(c.model, "other");
        assert_eq!(c.base_url, "http://x");
        assert_eq!(c.dimensions, Some(256));
    }
}

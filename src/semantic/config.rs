//! The `[search]` table of `ripple.toml`: which embedding provider, if any,
//! joins the offline ranker.
//!
//! ```toml
//! [search]
//! provider   = "openai"                    # openai (any /v1/embeddings server) | ollama | none
//! model      = "text-embedding-3-small"
//! base_url   = "https://api.openai.com"   # default per provider
//! dimensions = 512                         # optional (text-embedding-3-* and Ollama)
//! ```
//!
//! The API key comes from the environment, never from the file:
//! `RIPPLE_SEARCH_API_KEY`, else `OPENAI_API_KEY` for the `openai` provider.
//! `RIPPLE_SEARCH_PROVIDER`, `RIPPLE_SEARCH_MODEL`, `RIPPLE_SEARCH_BASE_URL`
//! override the file.

use std::path::Path;

use serde::Deserialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    /// OpenAI's `/v1/embeddings` and every server that speaks it.
    Openai,
    /// Ollama's native `/api/embed`.
    Ollama,
    None,
}

#[derive(Debug, Clone, PartialEq)]
pub struct EmbedConfig {
    pub provider: Provider,
    pub model: String,
    pub base_url: String,
    pub dimensions: Option<usize>,
    pub api_key: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Parse {
        path: String,
        source: Box<toml::de::Error>,
    },
    #[error("{path}: [search] sets provider = {provider:?} but no model")]
    NoModel { path: String, provider: String },
    #[error("unknown search provider {0:?} (expected openai, ollama or none)")]
    UnknownProvider(String),
}

#[derive(Debug, Default, Deserialize)]
struct File {
    search: Option<Section>,
}

#[derive(Debug, Default, Deserialize)]
struct Section {
    provider: Option<String>,
    model: Option<String>,
    base_url: Option<String>,
    dimensions: Option<usize>,
}

fn parse_provider(s: &str) -> Result<Provider, ConfigError> {
    match s.to_ascii_lowercase().as_str() {
        "openai" => Ok(Provider::Openai),
        "ollama" => Ok(Provider::Ollama),
        "none" | "" => Ok(Provider::None),
        other => Err(ConfigError::UnknownProvider(other.to_owned())),
    }
}

/// The embedding configuration of the repository at `root`, `None` when
/// search is offline only (no `[search]` provider).
pub fn load(root: &Path) -> Result<Option<EmbedConfig>, ConfigError> {
    let path = root.join("ripple.toml");
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(source) => {
            return Err(ConfigError::Read {
                path: path.display().to_string(),
                source,
            });
        }
    };
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    from_parts(&text, &path.display().to_string(), &env)
}

/// [`load`] on given file text and environment (for tests).
pub fn from_parts(
    text: &str,
    path: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<EmbedConfig>, ConfigError> {
    let file: File = toml::from_str(text).map_err(|e| ConfigError::Parse {
        path: path.to_owned(),
        source: Box::new(e),
    })?;
    let s = file.search.unwrap_or_default();
    let provider = match env("RIPPLE_SEARCH_PROVIDER").or(s.provider) {
        Some(p) => parse_provider(&p)?,
        None => Provider::None,
    };
    if provider == Provider::None {
        return Ok(None);
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

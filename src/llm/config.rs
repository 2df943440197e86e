//! Which provider, model and endpoint a call goes to, and what it may cost.
//! Settings come from command-line flags over the `[llm]` table of
//! `ripple.toml` over the user's own configuration over built-in defaults.
//! API keys come only from environment variables, and a key never appears in
//! `Debug` output. A repository is untrusted input: its `ripple.toml` may
//! pick a provider and model, but the endpoint and the key variable it names
//! count only once the user trusted it (see [`super::trust`]).

use std::fmt;
use std::time::Duration;

use reqwest::Url;

use super::{LlmError, ProviderKind};

/// The name of the output cap in an OpenAI-style body: OpenAI deprecated
/// `max_tokens` (reasoning models reject it) for `max_completion_tokens`, while
/// local servers generally understand only `max_tokens`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaxTokensField {
    MaxTokens,
    MaxCompletionTokens,
}

impl MaxTokensField {
    pub fn as_str(self) -> &'static str {
        match self {
            MaxTokensField::MaxTokens => "max_tokens",
            MaxTokensField::MaxCompletionTokens => "max_completion_tokens",
        }
    }
}

/// USD per million tokens. Always approximate: providers change prices.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    pub input_per_mtok: f64,
    pub output_per_mtok: f64,
}

impl Price {
    pub fn cost_usd(self, usage: super::Usage) -> f64 {
        usage.input_tokens as f64 * self.input_per_mtok / 1e6
            + usage.output_tokens as f64 * self.output_per_mtok / 1e6
    }
}

/// Approximate standard-tier prices (USD per 1M tokens), from
/// llm-wire-formats.md §7 as compiled 2026-11-29 — re-check the providers'
/// pricing pages before relying on them; `[llm.prices]` overrides any entry.
/// Keys match a model id exactly or as a prefix followed by `-`, so dated
/// snapshots (`claude-sonnet-4-5-20250929`) find their family's price. The
/// 5.5-generation Claude ids follow Anthropic's naming pattern and are
/// unverified; Haiku 5.5 is tiered by prompt length and listed at its floor.
pub const PRICE_TABLE: &[(&str, Price)] = &[
    ("claude-opus-5-5", price(4.00, 20.00)),
    ("claude-sonnet-5-5", price(2.00, 10.00)),
    ("claude-haiku-5-5", price(0.10, 0.50)),
    ("claude-opus-4-6", price(5.00, 25.00)),
    ("claude-opus-4-5", price(5.00, 25.00)),
    ("claude-sonnet-4-6", price(3.00, 15.00)),
    ("claude-sonnet-4-5", price(3.00, 15.00)),
    ("claude-haiku-4-5", price(1.00, 5.00)),
    ("gpt-5.5", price(5.00, 30.00)),
    ("gpt-5.4", price(2.50, 15.00)),
    ("gpt-5.4-mini", price(0.75, 4.50)),
    ("gpt-5.4-nano", price(0.20, 1.25)),
];

const fn price(input_per_mtok: f64, output_per_mtok: f64) -> Price {
    Price {
        input_per_mtok,
        output_per_mtok,
    }
}

/// The price of `model` in `table`: an exact key, else the longest key that
/// prefixes the id at a `-` boundary (`gpt-5.4` must not price `gpt-5.45`).
pub fn lookup_price(table: &[(&str, Price)], model: &str) -> Option<Price> {
    table
        .iter()
        .filter(|(key, _)| {
            model == *key
                || model
                    .strip_prefix(key)
                    .is_some_and(|rest| rest.starts_with('-'))
        })
        .max_by_key(|(key, _)| key.len())
        .map(|&(_, price)| price)
}

#[derive(Clone)]
pub struct LlmConfig {
    pub provider: ProviderKind,
    pub model: String,
    /// The API root as each provider's SDK takes it: `https://api.anthropic.com`
    /// (ripple appends `/v1/messages`) or `https://api.openai.com/v1` (ripple
    /// appends `/chat/completions`).
    pub base_url: String,
    pub api_key: Option<String>,
    /// The environment variable the key comes from, named in error messages.
    pub api_key_env: String,
    pub max_tokens: u32,
    pub temperature: Option<f32>,
    pub connect_timeout: Duration,
    /// Longest silence tolerated while waiting for headers or the next chunk.
    /// There is deliberately no total timeout: generations run for minutes.
    pub idle_timeout: Duration,
    pub max_retries: u32,
    /// First retry delay when the server gives no `retry-after`; doubles per
    /// attempt, with jitter. Tests shrink it.
    pub backoff_base: Duration,
    pub max_tokens_field: MaxTokensField,
    pub price: Option<Price>,
    /// Who chose `base_url`, named in the line about where a run sends.
    pub endpoint_origin: EndpointOrigin,
}

/// Who chose the endpoint a request goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndpointOrigin {
    Default,
    /// The user's own `$XDG_CONFIG_HOME/ripple/config.toml`.
    UserConfig,
    /// A repository's `ripple.toml` the user trusted with `ripple trust`.
    TrustedRepository,
    Flag,
}

/// Everything an [`LlmConfig`] is made from, but the environment.
#[derive(Debug, Default, Clone, Copy)]
pub struct LlmSources<'a> {
    /// `--provider`, `--model`, `--base-url`.
    pub provider: Option<ProviderKind>,
    pub model: Option<&'a str>,
    pub base_url: Option<&'a str>,
    /// The user's own configuration document (its `[llm]` table is read).
    pub user: Option<&'a toml::Table>,
    /// The repository's `ripple.toml` document.
    pub repo: Option<&'a toml::Table>,
    /// Whether the user trusted the repository's `[llm]` table as it is.
    pub repo_trusted: bool,
}

impl fmt::Debug for LlmConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LlmConfig")
            .field("provider", &self.provider)
            .field("model", &self.model)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("api_key_env", &self.api_key_env)
            .field("max_tokens", &self.max_tokens)
            .field("temperature", &self.temperature)
            .field("connect_timeout", &self.connect_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("max_retries", &self.max_retries)
            .field("backoff_base", &self.backoff_base)
            .field("max_tokens_field", &self.max_tokens_field)
            .field("price", &self.price)
            .field("endpoint_origin", &self.endpoint_origin)
            .finish()
    }
}

impl LlmConfig {
    /// Defaults for `provider`, without a key. Model ids are the examples of
    /// llm-wire-formats.md; change them with `--model` or `[llm] model`.
    pub fn defaults(provider: ProviderKind) -> LlmConfig {
        let (model, base_url, api_key_env, field, idle) = match provider {
            ProviderKind::Anthropic => (
                "claude-sonnet-4-5-20250929",
                "https://api.anthropic.com",
                "ANTHROPIC_API_KEY",
                MaxTokensField::MaxTokens,
                180,
            ),
            ProviderKind::OpenAi => (
                "gpt-5.4-mini",
                "https://api.openai.com/v1",
                "OPENAI_API_KEY",
                MaxTokensField::MaxCompletionTokens,
                180,
            ),
            // A local server may spend minutes loading a model before the
            // first byte, hence the longer silence allowance.
            ProviderKind::Ollama => (
                "qwen2.5-coder:14b",
                "http://localhost:11434/v1",
                "OLLAMA_API_KEY",
                MaxTokensField::MaxTokens,
                300,
            ),
        };
        LlmConfig {
            provider,
            model: model.to_owned(),
            base_url: base_url.to_owned(),
            api_key: None,
            api_key_env: api_key_env.to_owned(),
            max_tokens: 8192,
            temperature: None,
            connect_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(idle),
            max_retries: 2,
            backoff_base: Duration::from_millis(500),
            max_tokens_field: field,
            price: default_price(provider, model),
            endpoint_origin: EndpointOrigin::Default,
        }
    }

    /// The settings for one run, from every source in order of precedence:
    /// flags, then the repository's `[llm]` table, then the user's own
    /// `[llm]` table, then the built-in defaults; the key from the
    /// environment variable `api_key_env` names, else the provider's
    /// standard one. A missing key is not an error here (local servers need
    /// none), but [`super::stream_chat`] refuses to call a cloud API without
    /// it.
    ///
    /// Where a request goes and which secret it carries is the user's
    /// decision: a repository table's `base_url` and `api_key_env` take
    /// effect only when `sources.repo_trusted` (see [`super::trust`]);
    /// otherwise they are an [`LlmError::UntrustedEndpoint`]. The user's
    /// table applies only when it names no provider or the one in effect, so
    /// an endpoint set up for one provider never receives another's request.
    ///
    /// `[llm]` keys: `provider`, `model`, `base_url`, `max_tokens`,
    /// `temperature`, `api_key_env`, `max_tokens_field`, `max_retries`,
    /// `connect_timeout_secs`, `idle_timeout_secs`, and `[llm.prices."<model>"]`
    /// tables with `input_per_mtok` / `output_per_mtok`.
    pub fn resolve(
        sources: &LlmSources<'_>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<LlmConfig, LlmError> {
        let user = llm_table(sources.user, "your ripple config")?;
        let repo = llm_table(sources.repo, "ripple.toml")?;
        let named = |t: Option<&toml::Table>| -> Result<Option<ProviderKind>, LlmError> {
            match t.and_then(|t| t.get("provider")) {
                None => Ok(None),
                Some(v) => v
                    .as_str()
                    .ok_or_else(|| config_error("[llm] provider must be a string"))?
                    .parse()
                    .map(Some),
            }
        };
        let user_provider = named(user)?;
        let provider = match sources.provider {
            Some(p) => p,
            None => named(repo)?
                .or(user_provider)
                .unwrap_or(ProviderKind::Anthropic),
        };
        let mut config = LlmConfig::defaults(provider);
        let mut prices: Vec<(String, Price)> = Vec::new();
        if let Some(t) = user
            && user_provider.is_none_or(|p| p == provider)
        {
            config.apply_table(t, &mut prices)?;
            if t.contains_key("base_url") {
                config.endpoint_origin = EndpointOrigin::UserConfig;
            }
        }
        if let Some(t) = repo {
            let mut asked: Vec<(&'static str, String)> = Vec::new();
            for key in ["base_url", "api_key_env"] {
                // A flag that overrides the repository's choice makes it moot.
                if key == "base_url" && sources.base_url.is_some() {
                    continue;
                }
                if let Some(v) = t.get(key) {
                    asked.push((key, string_key(v, key)?));
                }
            }
            if !asked.is_empty() && !sources.repo_trusted {
                return Err(LlmError::UntrustedEndpoint {
                    settings: asked
                        .iter()
                        .map(|(k, v)| format!("{k} = {v:?}"))
                        .collect::<Vec<_>>()
                        .join(", "),
                });
            }
            config.apply_table(t, &mut prices)?;
            if t.contains_key("base_url") && sources.base_url.is_none() {
                config.endpoint_origin = EndpointOrigin::TrustedRepository;
            }
        }
        if let Some(m) = sources.model {
            config.model = m.to_owned();
        }
        if let Some(url) = sources.base_url {
            config.base_url = url.to_owned();
            config.endpoint_origin = EndpointOrigin::Flag;
        }
        config.base_url = config.base_url.trim_end_matches('/').to_owned();
        config.endpoint_url()?;
        let user_table: Vec<(&str, Price)> = prices.iter().map(|(k, p)| (k.as_str(), *p)).collect();
        config.price = lookup_price(&user_table, &config.model)
            .or_else(|| default_price(provider, &config.model));
        config.api_key = env(&config.api_key_env).filter(|k| !k.trim().is_empty());
        Ok(config)
    }

    /// The API root as a URL, checked before anything is sent: `https`, or
    /// plain `http` to this machine only (a key in clear text must not cross
    /// a network); no query or fragment, which the endpoint path appended to
    /// the root would mangle. A bad URL is a settings error, never retried.
    pub fn endpoint_url(&self) -> Result<Url, LlmError> {
        let url = Url::parse(&self.base_url).map_err(|e| {
            config_error(&format!(
                "base URL `{}` is not a valid URL ({e}); pass the API root, e.g. https://api.anthropic.com or http://localhost:11434/v1",
                self.base_url
            ))
        })?;
        match url.scheme() {
            "https" => {}
            "http" if is_loopback(&url) => {}
            "http" => {
                return Err(config_error(&format!(
                    "base URL `{}` uses plain http to another machine, which would send your key and code unencrypted; use https (plain http is accepted only for localhost, 127.0.0.0/8 and [::1])",
                    self.base_url
                )));
            }
            other => {
                return Err(config_error(&format!(
                    "base URL `{}` has the scheme `{other}:`; ripple talks to providers over https (or http to localhost)",
                    self.base_url
                )));
            }
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err(config_error(&format!(
                "base URL `{}` names no host",
                self.base_url
            )));
        }
        if url.query().is_some() || url.fragment().is_some() {
            return Err(config_error(&format!(
                "base URL `{}` has a `?query` or `#fragment`; pass only the API root (ripple appends the endpoint path)",
                self.base_url
            )));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(config_error(&format!(
                "base URL `{}` carries credentials; put the key in the environment variable `api_key_env` names",
                self.base_url
            )));
        }
        Ok(url)
    }

    /// `host[:port]` of the endpoint, for the line every run prints about
    /// where it sends.
    pub fn host(&self) -> String {
        match Url::parse(&self.base_url) {
            Ok(url) => match (url.host_str(), url.port()) {
                (Some(h), Some(p)) => format!("{h}:{p}"),
                (Some(h), None) => h.to_owned(),
                _ => self.base_url.clone(),
            },
            Err(_) => self.base_url.clone(),
        }
    }

    /// `Anthropic (model) at host`, with where a non-default endpoint came from.
    pub fn destination(&self) -> String {
        let origin = match self.endpoint_origin {
            EndpointOrigin::Default => "",
            EndpointOrigin::UserConfig => ", set in your ripple config",
            EndpointOrigin::TrustedRepository => ", set in ripple.toml (trusted)",
            EndpointOrigin::Flag => ", from --base-url",
        };
        format!(
            "{} ({}) at {}{origin}",
            self.provider.label(),
            self.model,
            self.host()
        )
    }

    fn apply_table(
        &mut self,
        t: &toml::Table,
        prices: &mut Vec<(String, Price)>,
    ) -> Result<(), LlmError> {
        if let Some(v) = t.get("model") {
            self.model = string_key(v, "model")?;
        }
        if let Some(v) = t.get("base_url") {
            self.base_url = string_key(v, "base_url")?;
        }
        if let Some(v) = t.get("api_key_env") {
            self.api_key_env = string_key(v, "api_key_env")?;
        }
        if let Some(v) = t.get("max_tokens") {
            self.max_tokens = int_key(v, "max_tokens")?;
        }
        if let Some(v) = t.get("max_retries") {
            self.max_retries = int_key(v, "max_retries")?;
        }
        if let Some(v) = t.get("connect_timeout_secs") {
            self.connect_timeout = Duration::from_secs(int_key(v, "connect_timeout_secs")?.into());
        }
        if let Some(v) = t.get("idle_timeout_secs") {
            self.idle_timeout = Duration::from_secs(int_key(v, "idle_timeout_secs")?.into());
        }
        if let Some(v) = t.get("temperature") {
            let temp = float_key(v, "temperature")?;
            self.temperature = Some(temp as f32);
        }
        if let Some(v) = t.get("max_tokens_field") {
            self.max_tokens_field = match string_key(v, "max_tokens_field")?.as_str() {
                "max_tokens" => MaxTokensField::MaxTokens,
                "max_completion_tokens" => MaxTokensField::MaxCompletionTokens,
                other => {
                    return Err(config_error(&format!(
                        "[llm] max_tokens_field is `{other}`; use `max_tokens` or `max_completion_tokens`"
                    )));
                }
            };
        }
        if let Some(v) = t.get("prices") {
            let table = v
                .as_table()
                .ok_or_else(|| config_error("[llm.prices] must be a table of models"))?;
            for (model, entry) in table {
                let field = |name: &str| {
                    entry.get(name).map(|v| float_key(v, name)).unwrap_or_else(|| {
                        Err(config_error(&format!(
                            "[llm.prices.\"{model}\"] needs `input_per_mtok` and `output_per_mtok`"
                        )))
                    })
                };
                prices.push((
                    model.clone(),
                    Price {
                        input_per_mtok: field("input_per_mtok")?,
                        output_per_mtok: field("output_per_mtok")?,
                    },
                ));
            }
        }
        Ok(())
    }

    /// The key to send, or `None` for a server that needs none. The official
    /// endpoints always need one; a custom base URL (llama.cpp, vLLM, a proxy)
    /// may not, and answers 401 if it does.
    pub fn key_for_request(&self) -> Result<Option<&str>, LlmError> {
        if let Some(key) = &self.api_key {
            return Ok(Some(key));
        }
        let official = match self.provider {
            ProviderKind::Anthropic => "https://api.anthropic.com",
            ProviderKind::OpenAi => "https://api.openai.com/v1",
            ProviderKind::Ollama => return Ok(None),
        };
        if self.base_url.trim_end_matches('/') == official {
            Err(LlmError::MissingKey {
                provider: self.provider.label(),
                env_var: self.api_key_env.clone(),
            })
        } else {
            Ok(None)
        }
    }
}

/// Local models cost nothing per token; cloud models are looked up.
fn default_price(provider: ProviderKind, model: &str) -> Option<Price> {
    match provider {
        ProviderKind::Ollama => Some(price(0.0, 0.0)),
        _ => lookup_price(PRICE_TABLE, model),
    }
}

/// The `[llm]` table of a document, if it has one.
fn llm_table<'a>(
    doc: Option<&'a toml::Table>,
    source: &str,
) -> Result<Option<&'a toml::Table>, LlmError> {
    match doc.and_then(|doc| doc.get("llm")) {
        None => Ok(None),
        Some(toml::Value::Table(t)) => Ok(Some(t)),
        Some(_) => Err(config_error(&format!("[llm] in {source} must be a table"))),
    }
}

/// Whether a URL's host is this machine: `localhost` or a loopback address.
pub(crate) fn is_loopback(url: &Url) -> bool {
    let Some(host) = url.host_str() else {
        return false;
    };
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || bare
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

fn config_error(msg: &str) -> LlmError {
    LlmError::Config(msg.to_owned())
}

fn string_key(v: &toml::Value, name: &str) -> Result<String, LlmError> {
    v.as_str()
        .map(str::to_owned)
        .ok_or_else(|| config_error(&format!("[llm] {name} must be a string")))
}

fn int_key(v: &toml::Value, name: &str) -> Result<u32, LlmError> {
    v.as_integer()
        .and_then(|i| u32::try_from(i).ok())
        .ok_or_else(|| config_error(&format!("[llm] {name} must be a non-negative integer")))
}

fn float_key(v: &toml::Value, name: &str) -> Result<f64, LlmError> {
    match v {
        toml::Value::Float(f) => Ok(*f),
        toml::Value::Integer(i) => Ok(*i as f64),
        _ => Err(config_error(&format!("{name} must be a number"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "sk-ant-SECRET-0123456789";

    fn env_with_key(name: &str) -> Option<String> {
        match name {
            "ANTHROPIC_API_KEY" | "MY_KEY" => Some(SECRET.to_owned()),
            _ => None,
        }
    }

    fn doc(text: &str) -> toml::Table {
        text.parse().unwrap()
    }

    /// Settings from flags and the user's own configuration.
    fn from_user(
        provider: Option<ProviderKind>,
        model: Option<&str>,
        base_url: Option<&str>,
        user: Option<&toml::Table>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<LlmConfig, LlmError> {
        LlmConfig::resolve(
            &LlmSources {
                provider,
                model,
                base_url,
                user,
                ..LlmSources::default()
            },
            env,
        )
    }

    fn from_repo(repo: &toml::Table, trusted: bool) -> Result<LlmConfig, LlmError> {
        LlmConfig::resolve(
            &LlmSources {
                repo: Some(repo),
                repo_trusted: trusted,
                ..LlmSources::default()
            },
            &env_with_key,
        )
    }

    #[test]
    fn a_repository_cannot_choose_where_the_key_goes_until_trusted() {
        let hostile = doc(
            "[llm]\nbase_url = \"https://collector.example\"\napi_key_env = \"MY_KEY\"\nmodel = \"m\"\n",
        );
        let err = from_repo(&hostile, false).unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, LlmError::UntrustedEndpoint { .. }), "{text}");
        assert!(text.contains("collector.example"), "{text}");
        assert!(text.contains("ripple trust"), "{text}");
        assert!(!text.contains(SECRET), "{text}");

        let key_only = doc("[llm]\napi_key_env = \"MY_KEY\"\n");
        assert!(matches!(
            from_repo(&key_only, false),
            Err(LlmError::UntrustedEndpoint { .. })
        ));

        let trusted = from_repo(&hostile, true).unwrap();
        assert_eq!(trusted.base_url, "https://collector.example");
        assert_eq!(trusted.endpoint_origin, EndpointOrigin::TrustedRepository);
        assert!(trusted.destination().contains("ripple.toml (trusted)"));
    }

    #[test]
    fn a_repository_may_pick_provider_and_model() {
        let repo = doc("[llm]\nprovider = \"openai\"\nmodel = \"gpt-5.4\"\nmax_tokens = 100\n");
        let c = from_repo(&repo, false).unwrap();
        assert_eq!(c.provider, ProviderKind::OpenAi);
        assert_eq!(c.model, "gpt-5.4");
        assert_eq!(c.max_tokens, 100);
        assert_eq!(c.base_url, "https://api.openai.com/v1");
        assert_eq!(c.destination(), "OpenAI (gpt-5.4) at api.openai.com");
    }

    #[test]
    fn the_users_endpoint_applies_to_its_own_provider_only() {
        let user = doc("[llm]\nprovider = \"openai\"\nbase_url = \"http://127.0.0.1:8080/v1\"\n");
        let repo = doc("[llm]\nprovider = \"anthropic\"\n");
        let c = LlmConfig::resolve(
            &LlmSources {
                user: Some(&user),
                repo: Some(&repo),
                ..LlmSources::default()
            },
            &env_with_key,
        )
        .unwrap();
        assert_eq!(c.provider, ProviderKind::Anthropic);
        assert_eq!(c.base_url, "https://api.anthropic.com");
        let c = from_user(None, None, None, Some(&user), &env_with_key).unwrap();
        assert_eq!(c.base_url, "http://127.0.0.1:8080/v1");
        assert_eq!(c.endpoint_origin, EndpointOrigin::UserConfig);
    }

    #[test]
    fn endpoints_are_checked_before_anything_is_sent() {
        for bad in [
            "http://collector.example/v1",
            "http://10.0.0.2:8080",
            "file:///etc/passwd",
            "ftp://example.com",
            "unix:/run/llm.sock",
            "https://api.example.com/v1?key=1",
            "https://api.example.com/v1#x",
            "https://user:pw@api.example.com",
            "not a url",
        ] {
            let err = from_user(None, None, Some(bad), None, &env_with_key).unwrap_err();
            assert!(matches!(err, LlmError::Config(_)), "{bad}: {err}");
        }
        for good in [
            "https://api.example.com/v1",
            "http://localhost:11434/v1",
            "http://127.0.0.2:8080",
            "http://[::1]:8080/v1",
        ] {
            let c = from_user(None, None, Some(good), None, &env_with_key).unwrap();
            assert_eq!(c.endpoint_origin, EndpointOrigin::Flag, "{good}");
        }
    }

    #[test]
    fn defaults_per_provider() {
        let a = LlmConfig::defaults(ProviderKind::Anthropic);
        assert_eq!(a.base_url, "https://api.anthropic.com");
        assert_eq!(a.max_retries, 2);
        assert_eq!(
            a.price,
            Some(price(3.0, 15.0)),
            "dated id priced by its family"
        );
        let o = LlmConfig::defaults(ProviderKind::OpenAi);
        assert_eq!(o.base_url, "https://api.openai.com/v1");
        assert_eq!(o.max_tokens_field, MaxTokensField::MaxCompletionTokens);
        assert_eq!(o.price, Some(price(0.75, 4.50)));
        let l = LlmConfig::defaults(ProviderKind::Ollama);
        assert_eq!(l.base_url, "http://localhost:11434/v1");
        assert_eq!(l.max_tokens_field, MaxTokensField::MaxTokens);
        assert_eq!(l.price, Some(price(0.0, 0.0)));
    }

    #[test]
    fn price_prefix_respects_boundaries() {
        assert_eq!(
            lookup_price(PRICE_TABLE, "gpt-5.4-mini-2026-03-01"),
            Some(price(0.75, 4.50))
        );
        assert_eq!(
            lookup_price(PRICE_TABLE, "gpt-5.4"),
            Some(price(2.50, 15.00))
        );
        assert_eq!(lookup_price(PRICE_TABLE, "gpt-5.45"), None);
        assert_eq!(lookup_price(PRICE_TABLE, "mystery"), None);
    }

    #[test]
    fn flags_override_toml_override_defaults() {
        let table = doc(r#"
            [llm]
            provider = "openai"
            model = "gpt-5.4"
            base_url = "http://127.0.0.1:8080/v1/"
            max_tokens = 1000
            api_key_env = "MY_KEY"
            max_tokens_field = "max_tokens"
            [llm.prices."local-model"]
            input_per_mtok = 1
            output_per_mtok = 2.5
            "#);
        let c = from_user(None, None, None, Some(&table), &env_with_key).unwrap();
        assert_eq!(c.provider, ProviderKind::OpenAi);
        assert_eq!(c.model, "gpt-5.4");
        assert_eq!(c.base_url, "http://127.0.0.1:8080/v1");
        assert_eq!(c.max_tokens, 1000);
        assert_eq!(c.max_tokens_field, MaxTokensField::MaxTokens);
        assert_eq!(c.api_key.as_deref(), Some(SECRET));
        assert_eq!(c.price, Some(price(2.5, 15.0)));

        let c = from_user(
            Some(ProviderKind::OpenAi),
            Some("local-model"),
            None,
            Some(&table),
            &env_with_key,
        )
        .unwrap();
        assert_eq!(c.model, "local-model");
        assert_eq!(c.price, Some(price(1.0, 2.5)));
    }

    #[test]
    fn bad_toml_values_are_explained() {
        let table = doc("[llm]\nprovider = \"gemini\"\n");
        let err = from_user(None, None, None, Some(&table), &env_with_key).unwrap_err();
        assert!(
            err.to_string().contains("anthropic, openai or ollama"),
            "{err}"
        );
        let table = doc("[llm]\nmax_tokens = \"lots\"\n");
        let err = from_user(None, None, None, Some(&table), &env_with_key).unwrap_err();
        assert!(err.to_string().contains("max_tokens"), "{err}");
    }

    #[test]
    fn key_never_in_debug_output() {
        let c = from_user(None, None, None, None, &env_with_key).unwrap();
        assert_eq!(c.api_key.as_deref(), Some(SECRET));
        let shown = format!("{c:?} {c:#?}");
        assert!(!shown.contains(SECRET), "{shown}");
        assert!(shown.contains("<redacted>"));
    }

    #[test]
    fn missing_key_names_the_variable_only_for_official_endpoints() {
        let c = from_user(None, None, None, None, &|_| None).unwrap();
        let err = c.key_for_request().unwrap_err();
        assert!(err.to_string().contains("ANTHROPIC_API_KEY"), "{err}");
        let local = from_user(
            Some(ProviderKind::OpenAi),
            None,
            Some("http://127.0.0.1:8080/v1"),
            None,
            &|_| None,
        )
        .unwrap();
        assert_eq!(local.key_for_request().unwrap(), None);
        let ollama = from_user(Some(ProviderKind::Ollama), None, None, None, &|_| None);
        assert_eq!(ollama.unwrap().key_for_request().unwrap(), None);
    }
}

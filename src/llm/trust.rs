//! Which repositories the user allowed to choose where a model request goes.
//!
//! A cloned repository is untrusted input, and its `ripple.toml` could name
//! any host as `base_url` and any environment variable as `api_key_env`
//! (`GITHUB_TOKEN`, say), which would send that secret and the user's code to
//! whoever wrote the file. So those two keys count only after the user
//! trusts the repository once, the way direnv's `allow` works: `ripple
//! trust` records the repository's path together with a SHA-256 of its
//! `[llm]` table, and any change to the table needs trusting again.
//!
//! The user's own settings live in `$XDG_CONFIG_HOME/ripple/config.toml`
//! (`~/.config/ripple/config.toml`): an `[llm]` table with the same keys as
//! `ripple.toml`'s, always trusted. Trust records are files named by their
//! fingerprint under `$XDG_DATA_HOME/ripple/trust/`
//! (`~/.local/share/ripple/trust/`), each holding the repository path and the
//! table it allowed, so a person can read what they trusted.

use std::path::{Path, PathBuf};

use super::{LlmConfig, LlmError, LlmSources, ProviderKind};

/// `$XDG_CONFIG_HOME/ripple/config.toml`, else `~/.config/ripple/config.toml`.
pub fn user_config_path() -> Option<PathBuf> {
    base_dir("XDG_CONFIG_HOME", ".config").map(|d| d.join("ripple").join("config.toml"))
}

/// Where trust records are kept.
pub fn trust_dir() -> Option<PathBuf> {
    base_dir("XDG_DATA_HOME", ".local/share").map(|d| d.join("ripple").join("trust"))
}

/// An XDG base directory: the variable when it holds an absolute path (the
/// specification says to ignore a relative one), else `$HOME/fallback`.
fn base_dir(var: &str, fallback: &str) -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os(var).map(PathBuf::from)
        && dir.is_absolute()
    {
        return Some(dir);
    }
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .filter(|h| h.is_absolute())
        .map(|h| h.join(fallback))
}

/// The user's configuration document, if the file exists.
pub fn load_user_config() -> Result<Option<toml::Table>, LlmError> {
    let Some(path) = user_config_path() else {
        return Ok(None);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(LlmError::Config(format!(
                "cannot read {}: {e}",
                path.display()
            )));
        }
    };
    text.parse::<toml::Table>().map(Some).map_err(|e| {
        LlmError::Config(format!(
            "{} is not valid TOML: {}",
            path.display(),
            e.message()
        ))
    })
}

/// Whether `llm` (a repository's `[llm]` table) names anything that needs
/// trust: an endpoint or a key variable.
pub fn needs_trust(llm: &toml::Table) -> bool {
    llm.contains_key("base_url") || llm.contains_key("api_key_env")
}

/// SHA-256 over the repository's canonical path and its `[llm]` table as
/// TOML (keys sorted, so formatting and comments do not matter).
pub fn fingerprint(root: &Path, llm: &toml::Table) -> String {
    // A table TOML cannot print must still differ from every other one.
    let table = toml::to_string(llm).unwrap_or_else(|_| format!("{llm:?}"));
    let mut ctx = ring::digest::Context::new(&ring::digest::SHA256);
    ctx.update(root.as_os_str().as_encoded_bytes());
    ctx.update(b"\0");
    ctx.update(table.as_bytes());
    ctx.finish()
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Whether the user trusted `llm` for the repository at `root`.
pub fn is_trusted(root: &Path, llm: &toml::Table) -> bool {
    trust_dir().is_some_and(|dir| dir.join(fingerprint(root, llm)).is_file())
}

/// Record that the user trusts `llm` for the repository at `root`; returns
/// the record's path.
pub fn trust(root: &Path, llm: &toml::Table) -> Result<PathBuf, LlmError> {
    let dir = trust_dir().ok_or_else(|| {
        LlmError::Config(
            "cannot tell where to keep trust records: set HOME or XDG_DATA_HOME".to_owned(),
        )
    })?;
    std::fs::create_dir_all(&dir)
        .map_err(|e| LlmError::Config(format!("cannot create {}: {e}", dir.display())))?;
    let record = dir.join(fingerprint(root, llm));
    let body = format!(
        "{}\n{}",
        root.display(),
        toml::to_string(llm).unwrap_or_default()
    );
    std::fs::write(&record, body)
        .map_err(|e| LlmError::Config(format!("cannot write {}: {e}", record.display())))?;
    Ok(record)
}

/// Remove every trust record for the repository at `root`; returns how many.
pub fn revoke(root: &Path) -> Result<usize, LlmError> {
    let Some(dir) = trust_dir() else {
        return Ok(0);
    };
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => {
            return Err(LlmError::Config(format!(
                "cannot read {}: {e}",
                dir.display()
            )));
        }
    };
    let wanted = root.display().to_string();
    let mut removed = 0;
    for entry in entries.flatten() {
        let path = entry.path();
        let first_line = std::fs::read_to_string(&path)
            .ok()
            .and_then(|t| t.lines().next().map(str::to_owned));
        if first_line.as_deref() == Some(wanted.as_str()) && std::fs::remove_file(&path).is_ok() {
            removed += 1;
        }
    }
    Ok(removed)
}

/// The choices a user made on the command line about the model.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct LlmFlags {
    pub provider: Option<String>,
    pub model: Option<String>,
    pub base_url: Option<String>,
}

/// The settings for a run in the repository at `root` whose `ripple.toml`
/// has the `[llm]` table `repo_llm`: flags, the repository (its endpoint
/// only if trusted), the user's configuration and the environment.
pub fn config_for_repo(
    root: &Path,
    repo_llm: Option<&toml::Table>,
    flags: &LlmFlags,
) -> Result<LlmConfig, LlmError> {
    let user = load_user_config()?;
    let repo_doc = repo_llm.map(|llm| {
        let mut doc = toml::Table::new();
        doc.insert("llm".to_owned(), toml::Value::Table(llm.clone()));
        doc
    });
    let provider = flags
        .provider
        .as_deref()
        .map(str::parse::<ProviderKind>)
        .transpose()?;
    let sources = LlmSources {
        provider,
        model: flags.model.as_deref(),
        base_url: flags.base_url.as_deref(),
        user: user.as_ref(),
        repo: repo_doc.as_ref(),
        repo_trusted: repo_llm.is_some_and(|llm| is_trusted(root, llm)),
    };
    LlmConfig::resolve(&sources, &|name| std::env::var(name).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fingerprint_follows_the_table_and_the_path() {
        let a: toml::Table = "base_url = \"https://a.example\"".parse().unwrap();
        let b: toml::Table = "base_url = \"https://b.example\"".parse().unwrap();
        let reformatted: toml::Table = "base_url   =   \"https://a.example\" # same"
            .parse()
            .unwrap();
        let root = Path::new("/repos/one");
        assert_eq!(fingerprint(root, &a), fingerprint(root, &reformatted));
        assert_ne!(fingerprint(root, &a), fingerprint(root, &b));
        assert_ne!(
            fingerprint(root, &a),
            fingerprint(Path::new("/repos/two"), &a)
        );
        assert_eq!(fingerprint(root, &a).len(), 64);
    }

    #[test]
    fn only_endpoint_and_key_variable_need_trust() {
        let plain: toml::Table = "provider = \"openai\"\nmodel = \"x\"".parse().unwrap();
        assert!(!needs_trust(&plain));
        let key: toml::Table = "api_key_env = \"GITHUB_TOKEN\"".parse().unwrap();
        assert!(needs_trust(&key));
    }
}

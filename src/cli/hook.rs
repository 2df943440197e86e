//! `ripple hook install|uninstall`: the git post-commit hook that refreshes
//! the index, chained with a hook already there.

use super::*;

/// The first line of ripple's post-commit hook, by which it is recognised.
pub(super) const HOOK_MARK: &str = "# ripple: refresh the call-graph index";
/// Where a post-commit hook that was there before ripple's is kept, run
/// by ripple's hook and put back by `hook uninstall`.
pub(super) const CHAINED_HOOK: &str = "post-commit.ripple-chained";

pub(super) fn hook(repo: &std::path::Path, action: HookAction) -> Result<ExitCode> {
    let git_dir = std::process::Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["rev-parse", "--git-path", "hooks"])
        .output()
        .context("cannot run git; the hook needs a git repository")?;
    if !git_dir.status.success() {
        anyhow::bail!(
            "{} is not inside a git repository; `ripple hook` installs a git post-commit hook",
            repo.display()
        );
    }
    let hooks = repo.join(String::from_utf8_lossy(&git_dir.stdout).trim());
    let path = hooks.join("post-commit");
    let chained = hooks.join(CHAINED_HOOK);
    let exe = std::env::current_exe().context("cannot locate the ripple executable")?;
    let refresh = format!(
        "\"{}\" --repo \"$(git rev-parse --show-toplevel)\" index >/dev/null 2>&1 &\n",
        exe.display()
    );
    // A symlink is a hook too (hook managers link theirs): never follow it.
    let present = std::fs::symlink_metadata(&path).is_ok();
    let existing = if present {
        std::fs::read(&path).unwrap_or_default()
    } else {
        Vec::new()
    };
    let ours = String::from_utf8_lossy(&existing).contains(HOOK_MARK);
    match action {
        HookAction::Install => {
            if ours {
                say!(
                    "the ripple post-commit hook is already installed in {}",
                    path.display()
                );
                return Ok(ExitCode::SUCCESS);
            }
            std::fs::create_dir_all(&hooks)
                .with_context(|| format!("cannot create {}", hooks.display()))?;
            // Another hook, in whatever language, is moved aside untouched
            // (bytes and mode) and run first: appending shell to it broke
            // non-shell hooks, and a shell hook that ends in `exit` would
            // never reach the refresh.
            let content = if present {
                if std::fs::symlink_metadata(&chained).is_ok() {
                    anyhow::bail!(
                        "{} already exists; move it away (it is the hook ripple would chain to) and install again",
                        chained.display()
                    );
                }
                std::fs::rename(&path, &chained).with_context(|| {
                    format!("cannot move {} to {}", path.display(), chained.display())
                })?;
                format!(
                    "#!/bin/sh\n{HOOK_MARK}, after the hook that was here before ({CHAINED_HOOK})\n\
                     status=0\n\
                     chained=\"$(dirname \"$0\")/{CHAINED_HOOK}\"\n\
                     if [ -x \"$chained\" ]; then\n    \"$chained\" \"$@\"\n    status=$?\nfi\n\
                     {refresh}exit $status\n"
                )
            } else {
                format!("#!/bin/sh\n{HOOK_MARK}\n{refresh}")
            };
            if let Err(e) = write_hook(&path, &content) {
                if present {
                    let _ = std::fs::rename(&chained, &path);
                }
                return Err(e);
            }
            if present {
                say!(
                    "installed the post-commit hook in {}; it runs the hook that was there first (kept as {})",
                    path.display(),
                    chained.display()
                );
            } else {
                say!("installed the post-commit hook in {}", path.display());
            }
        }
        HookAction::Uninstall => {
            if !ours {
                say!("no ripple hook in {}", path.display());
                return Ok(ExitCode::SUCCESS);
            }
            if std::fs::symlink_metadata(&chained).is_ok() {
                std::fs::rename(&chained, &path).with_context(|| {
                    format!(
                        "cannot move {} back to {}",
                        chained.display(),
                        path.display()
                    )
                })?;
                say!(
                    "removed the ripple hook; {} is the hook that was there before",
                    path.display()
                );
                return Ok(ExitCode::SUCCESS);
            }
            // A hook with ripple's lines appended to the user's own shell.
            let existing = String::from_utf8_lossy(&existing);
            let kept: Vec<&str> = existing
                .lines()
                .filter(|l| !l.starts_with(HOOK_MARK) && !l.ends_with(" index >/dev/null 2>&1 &"))
                .collect();
            let rest = kept.join("\n");
            if rest.trim() == "#!/bin/sh" || rest.trim().is_empty() {
                std::fs::remove_file(&path)?;
            } else {
                std::fs::write(&path, rest + "\n")?;
            }
            say!("removed the ripple hook from {}", path.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Write an executable hook.
pub(super) fn write_hook(path: &std::path::Path, content: &str) -> Result<()> {
    std::fs::write(path, content).with_context(|| format!("cannot write {}", path.display()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
            .with_context(|| format!("cannot make {} executable", path.display()))?;
    }
    Ok(())
}

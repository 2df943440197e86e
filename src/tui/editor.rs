//! `E`: the user's own editor on the place under the cursor. The explorer
//! only asks for it ([`EditRequest`]); the event loop hands the terminal
//! over (cooked mode, main screen, no mouse tracking), runs [`run`] to its
//! end and takes the terminal back, the way lazygit and gitui do it.

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;
use std::process::Command;

/// A file of the repository to open at a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditRequest {
    /// The repository root: the editor's working directory.
    pub root: PathBuf,
    /// Relative to `root`, as the explorer shows it.
    pub path: String,
    /// 1-based.
    pub line: usize,
}

/// The editor the user chose: `$EDITOR`, else `$VISUAL`, else `vi` (an
/// empty value counts as unset, as git reads them).
pub fn choose(editor: Option<OsString>, visual: Option<OsString>) -> OsString {
    [editor, visual]
        .into_iter()
        .flatten()
        .find(|v| !v.is_empty())
        .unwrap_or_else(|| OsString::from("vi"))
}

pub fn from_env() -> OsString {
    choose(std::env::var_os("EDITOR"), std::env::var_os("VISUAL"))
}

/// Run `editor` as `editor +LINE path` (the form vi, vim, nvim, nano,
/// emacs and helix all accept) until it exits. Errors are sentences for
/// the status line.
pub fn run(editor: &OsStr, req: &EditRequest) -> Result<(), String> {
    let shown = editor.to_string_lossy();
    let status = command(editor, req)
        .status()
        .map_err(|e| format!("cannot run the editor `{shown}`: {e}"))?;
    if status.success() {
        return Ok(());
    }
    Err(match status.code() {
        // The shell's own codes for a command it could not find or start.
        Some(127) => format!("editor `{shown}` not found (set $EDITOR)"),
        Some(126) => format!("editor `{shown}` cannot be executed"),
        Some(code) => format!("editor `{shown}` exited with {code}"),
        None => format!("editor `{shown}` was killed by a signal"),
    })
}

/// Through the shell, as git runs `core.editor`: `EDITOR="code -w"` or a
/// quoted path with spaces work as they do in a shell.
#[cfg(unix)]
fn command(editor: &OsStr, req: &EditRequest) -> Command {
    let mut script = editor.to_os_string();
    script.push(" \"$@\"");
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg(script)
        .arg("ripple-editor")
        .arg(format!("+{}", req.line))
        .arg(&req.path)
        .current_dir(&req.root);
    c
}

#[cfg(not(unix))]
fn command(editor: &OsStr, req: &EditRequest) -> Command {
    let editor = editor.to_string_lossy();
    let mut words = editor.split_whitespace();
    let mut c = Command::new(words.next().unwrap_or("vi"));
    c.args(words)
        .arg(format!("+{}", req.line))
        .arg(&req.path)
        .current_dir(&req.root);
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn editor_then_visual_then_vi() {
        let os = |s: &str| Some(OsString::from(s));
        assert_eq!(choose(os("nvim"), os("code -w")), "nvim");
        assert_eq!(choose(None, os("code -w")), "code -w");
        assert_eq!(choose(os(""), os("hx")), "hx");
        assert_eq!(choose(None, None), "vi");
    }

    #[cfg(unix)]
    fn script(dir: &std::path::Path, body: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join("fake editor");
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    #[cfg(unix)]
    #[test]
    fn the_editor_gets_plus_line_then_the_path_in_the_repository() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("args");
        let editor = script(
            dir.path(),
            &format!("printf '%s\\n' \"$PWD\" \"$@\" > '{}'", out.display()),
        );
        // A path with a space, quoted the way a user writes it in $EDITOR.
        let editor = OsString::from(format!("'{}'", editor.display()));
        let req = EditRequest {
            root: dir.path().canonicalize().unwrap(),
            path: "shop/auth/tokens.py".to_owned(),
            line: 42,
        };
        run(&editor, &req).unwrap();
        let args = std::fs::read_to_string(&out).unwrap();
        let cwd = req.root.display();
        assert_eq!(args, format!("{cwd}\n+42\nshop/auth/tokens.py\n"));
    }

    #[cfg(unix)]
    #[test]
    fn a_missing_or_failing_editor_is_a_sentence_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let req = EditRequest {
            root: dir.path().to_path_buf(),
            path: "m.py".to_owned(),
            line: 1,
        };
        let missing = run(OsStr::new("no-such-editor-for-ripple"), &req).unwrap_err();
        assert_eq!(
            missing,
            "editor `no-such-editor-for-ripple` not found (set $EDITOR)"
        );
        let failing = script(dir.path(), "exit 3");
        let failing = OsString::from(format!("'{}'", failing.display()));
        let err = run(&failing, &req).unwrap_err();
        assert!(err.ends_with("exited with 3"), "{err}");
    }
}

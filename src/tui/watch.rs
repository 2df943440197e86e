//! Watching the repository for edits. Only changes that can alter the call
//! graph count (Python and Go sources, `go.mod`, ignore files, removed or
//! renamed directories); the index's own writes under `.ripple/` and anything
//! in hidden directories (`.git`) are ignored, or every refresh would
//! trigger the next.

use std::path::Path;
use std::sync::mpsc::Sender;

use notify::{EventKind, RecursiveMode, Watcher};

use super::Event;

/// Start watching `root`; dropping the watcher stops it.
pub fn watch(root: &Path, events: Sender<Event>) -> notify::Result<notify::RecommendedWatcher> {
    let root_owned = root.to_path_buf();
    let mut watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
        let Ok(ev) = res else { return };
        if matches!(ev.kind, EventKind::Access(_)) {
            return;
        }
        let structural = matches!(
            ev.kind,
            EventKind::Remove(_) | EventKind::Modify(notify::event::ModifyKind::Name(_))
        );
        if ev
            .paths
            .iter()
            .any(|p| relevant(&root_owned, p, structural))
        {
            let _ = events.send(Event::FilesChanged);
        }
    })?;
    watcher.watch(root, RecursiveMode::Recursive)?;
    Ok(watcher)
}

/// Whether a change at `path` can change the index.
pub fn relevant(root: &Path, path: &Path, structural: bool) -> bool {
    let rel = path.strip_prefix(root).unwrap_or(path);
    if rel.components().any(|c| {
        c.as_os_str().to_string_lossy().starts_with('.')
            && c.as_os_str() != ".gitignore"
            && c.as_os_str() != ".rippleignore"
    }) {
        return false;
    }
    let name = rel
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let ext = rel
        .extension()
        .map(|e| e.to_string_lossy())
        .unwrap_or_default();
    matches!(ext.as_ref(), "py" | "go")
        || name == "go.mod"
        || name == ".gitignore"
        || name == ".rippleignore"
        || (structural && ext.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_changes_that_matter_trigger_a_refresh() {
        let root = Path::new("/r");
        assert!(relevant(root, Path::new("/r/shop/a.py"), false));
        assert!(relevant(root, Path::new("/r/internal/x/y.go"), false));
        assert!(relevant(root, Path::new("/r/go.mod"), false));
        assert!(relevant(root, Path::new("/r/.gitignore"), false));
        assert!(relevant(root, Path::new("/r/shop/old_pkg"), true));
        assert!(!relevant(root, Path::new("/r/.ripple/index.db"), false));
        assert!(!relevant(root, Path::new("/r/.git/index"), false));
        assert!(!relevant(root, Path::new("/r/README.md"), false));
        assert!(!relevant(root, Path::new("/r/shop/old_pkg"), false));
    }
}

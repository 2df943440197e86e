//! What `E`, `y` and `Y` act on: the place under the cursor, handed to the
//! user's editor or clipboard. In the source pane that is the call site
//! the user came through (what the pane marks); in the blast pane the row
//! selected in its lists; elsewhere the selected declaration.

use crate::resolve::DeclId;

use super::super::editor::EditRequest;
use super::super::findings;
use super::super::overview::Pick;
use super::super::radius::BlastItem;
use super::{App, Pane, Screen};

/// A declaration, or a line in the repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Place {
    /// Qualified name of the declaration (the one the place is in).
    pub name: String,
    /// Relative to the repository root; else why there is no file.
    pub path: Result<String, &'static str>,
    /// 1-based.
    pub line: usize,
}

impl App {
    fn decl_place(&self, d: DeclId) -> Option<Place> {
        let snap = self.snap.as_ref()?;
        let decl = &snap.index.res.decls[d];
        Some(Place {
            name: snap.name(d).to_owned(),
            path: snap
                .index
                .file_of(d)
                .map(|f| f.path.clone())
                .ok_or("is outside the repository"),
            line: decl.span.start_line as usize,
        })
    }

    /// The call site of the edge that led to the selected tree row.
    fn call_site_place(&self) -> Option<Place> {
        let (snap, tree) = (self.snap.as_ref()?, self.tree.as_ref()?);
        let node = tree.selected();
        let edge = snap.index.res.edges[node.edge? as usize];
        let (path, site) = snap.index.call_site(edge.file, edge.call)?;
        Some(Place {
            name: snap.name(node.decl).to_owned(),
            path: Ok(path.to_owned()),
            line: site.span.start_line as usize,
        })
    }

    pub(super) fn place(&self) -> Option<Place> {
        let snap = self.snap.as_ref()?;
        match self.screen {
            Screen::Overview => match self.overview.pick(snap)? {
                Pick::Decl(d) => self.decl_place(d),
                Pick::Package(_) => None,
            },
            Screen::Explorer => {
                if let Some(item) = self.blast_item() {
                    return self.blast_place(item);
                }
                if self.pane == Pane::Source
                    && let Some(p) = self.call_site_place()
                {
                    return Some(p);
                }
                self.decl_place(self.selected()?)
            }
        }
    }

    fn blast_place(&self, item: BlastItem) -> Option<Place> {
        let snap = self.snap.as_ref()?;
        match item {
            BlastItem::Test(d) => self.decl_place(d),
            BlastItem::Package(p) => Some(Place {
                name: p,
                path: Err("is a package, not a file"),
                line: 0,
            }),
            BlastItem::File(f) => Some(Place {
                name: f.clone(),
                path: Ok(f),
                line: 1,
            }),
            BlastItem::Site { file, line } => Some(Place {
                // The declaration the call is in, as for any other place.
                name: findings::decl_at(snap, &file, line)
                    .map_or_else(|| format!("{file}:{line}"), |d| snap.name(d).to_owned()),
                path: Ok(file),
                line: line as usize,
            }),
        }
    }

    /// `E`: ask the event loop for the editor (it owns the terminal).
    pub(super) fn edit_place(&mut self) {
        let Some(place) = self.place() else {
            self.message = Some("nothing selected to open".to_owned());
            return;
        };
        let path = match place.path {
            Ok(path) => path,
            Err(why) => {
                self.message = Some(format!("{} {why}", place.name));
                return;
            }
        };
        self.edit_request = Some(EditRequest {
            root: self.root_path.clone(),
            path,
            line: place.line.max(1),
        });
    }

    /// `y` (the qualified name) and `Y` (`file:line`).
    pub(super) fn copy_place(&mut self, location: bool) {
        let Some(place) = self.place() else {
            self.message = Some("nothing selected to copy".to_owned());
            return;
        };
        let text = if location {
            match &place.path {
                Ok(path) => format!("{path}:{}", place.line),
                Err(why) => {
                    self.message = Some(format!("{} {why}", place.name));
                    return;
                }
            }
        } else {
            place.name
        };
        self.message = Some(match self.clipboard.copy(&text) {
            Ok(()) => format!("copied {text}"),
            Err(e) => format!("cannot copy: {e}"),
        });
    }

    /// The editor `E` asked for, once: the event loop runs it.
    pub fn take_edit_request(&mut self) -> Option<EditRequest> {
        self.edit_request.take()
    }

    /// Back from the editor: say how it went and re-index (the file may
    /// have changed); the refresh keeps root, expanded rows and selection.
    pub fn edited(&mut self, req: &EditRequest, result: Result<(), String>) {
        self.message = Some(match result {
            Ok(()) => format!("edited {}:{}", req.path, req.line),
            Err(e) => e,
        });
        // The source pane keeps its scroll until the new index arrives and
        // restores the view (reading the file here would lose it).
        self.files.clear();
        if let Some(ix) = &self.indexer {
            ix.refresh();
            self.refreshing = true;
        }
        self.dirty = true;
    }
}

//! The call tree pane: the root declaration and its callers (or callees) as
//! a lazily expanded, collapsible tree. Children are computed only when a
//! node is expanded; a declaration that already appears among a node's
//! ancestors is shown once more, marked as a cycle, and never expands, so
//! recursion and mutual recursion cannot unfold forever.
//!
//! A filter (`f`) hides the rows whose name does not match, except the
//! ancestors of rows that do, so every match stays in its place.

use std::collections::HashMap;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use crate::conventions::Class;
use crate::graph::Direction;
use crate::model::Confidence;
use crate::resolve::DeclId;
use crate::terminal_text::counted;

use super::snapshot::Snapshot;
use super::theme::Theme;

#[derive(Debug, Clone)]
pub struct Node {
    pub decl: DeclId,
    pub parent: Option<usize>,
    /// The edge that links this node to its parent (index into `Resolution::edges`).
    pub edge: Option<u32>,
    /// Confidence of that edge (the root is certain).
    pub confidence: Confidence,
    /// Hops from the root.
    pub depth: u32,
    pub children: Option<Vec<usize>>,
    pub expanded: bool,
    /// Already an ancestor of this node: shown, marked, never expanded.
    pub cycle: bool,
}

pub struct CallTree {
    pub root: DeclId,
    pub dir: Direction,
    pub nodes: Vec<Node>,
    /// Visible nodes, in display order.
    pub rows: Vec<usize>,
    pub cursor: usize,
    pub offset: usize,
    filter: Option<Filter>,
}

/// The active filter and, per node, whether its own name matches.
struct Filter {
    query: String,
    hits: Vec<bool>,
}

fn is_hit(snap: &Snapshot, decl: DeclId, query: &str) -> bool {
    super::fuzzy::score(&snap.display_name(decl), query).is_some()
        || super::fuzzy::score(snap.name(decl), query).is_some()
}

impl CallTree {
    /// A tree rooted at `root` with its first level expanded.
    pub fn new(snap: &Snapshot, root: DeclId, dir: Direction) -> CallTree {
        let mut t = CallTree {
            root,
            dir,
            nodes: vec![Node {
                decl: root,
                parent: None,
                edge: None,
                confidence: Confidence::Certain,
                depth: 0,
                children: None,
                expanded: false,
                cycle: false,
            }],
            rows: vec![0],
            cursor: 0,
            offset: 0,
            filter: None,
        };
        t.expand(snap, 0);
        t
    }

    pub fn selected(&self) -> &Node {
        &self.nodes[self.rows[self.cursor]]
    }

    pub fn selected_index(&self) -> usize {
        self.rows[self.cursor]
    }

    pub fn has_children(&self, snap: &Snapshot, node: usize) -> bool {
        let n = &self.nodes[node];
        !n.cycle && snap.fan(n.decl, self.dir) > 0
    }

    fn is_ancestor(&self, node: usize, decl: DeclId) -> bool {
        let mut cur = Some(node);
        while let Some(i) = cur {
            if self.nodes[i].decl == decl {
                return true;
            }
            cur = self.nodes[i].parent;
        }
        false
    }

    /// Expand `node`, computing its children the first time. Returns false
    /// when there is nothing to expand.
    pub fn expand(&mut self, snap: &Snapshot, node: usize) -> bool {
        if !self.has_children(snap, node) {
            return false;
        }
        if self.nodes[node].children.is_none() {
            let res = &snap.index.res;
            let decl = self.nodes[node].decl;
            let depth = self.nodes[node].depth + 1;
            let mut next = snap
                .index
                .graph
                .neighbours(res, decl, self.dir, Confidence::Possible);
            // Certain first, tests last, then by name: the order a reader scans.
            next.sort_by_cached_key(|&(d, c, _)| (c, res.decls[d].is_test, snap.display_name(d)));
            let mut kids = Vec::with_capacity(next.len());
            for (d, c, e) in next {
                let cycle = self.is_ancestor(node, d);
                kids.push(self.nodes.len());
                self.nodes.push(Node {
                    decl: d,
                    parent: Some(node),
                    edge: Some(e),
                    confidence: c,
                    depth,
                    children: None,
                    expanded: false,
                    cycle,
                });
            }
            if let Some(f) = &mut self.filter {
                let query = f.query.clone();
                f.hits.extend(
                    kids.iter()
                        .map(|&k| is_hit(snap, self.nodes[k].decl, &query)),
                );
            }
            self.nodes[node].children = Some(kids);
        }
        self.nodes[node].expanded = true;
        self.rebuild_rows();
        true
    }

    pub fn collapse(&mut self, node: usize) {
        self.nodes[node].expanded = false;
        let selected = self.selected_index();
        self.rebuild_rows();
        // Keep the cursor on the selected node, or on the collapsed one if
        // the selection disappeared inside it.
        self.cursor = self
            .rows
            .iter()
            .position(|&r| r == selected)
            .or_else(|| self.rows.iter().position(|&r| r == node))
            .unwrap_or(0);
    }

    fn rebuild_rows(&mut self) {
        let mut rows = Vec::with_capacity(self.rows.len());
        let mut stack = vec![0usize];
        while let Some(n) = stack.pop() {
            rows.push(n);
            if self.nodes[n].expanded
                && let Some(kids) = &self.nodes[n].children
            {
                stack.extend(kids.iter().rev());
            }
        }
        if let Some(f) = &self.filter {
            // Preorder reversed: every row is seen before its parent, so a
            // match keeps its whole line of ancestors. The root always stays.
            let mut keep = vec![false; self.nodes.len()];
            for &n in rows.iter().rev() {
                if f.hits[n] {
                    keep[n] = true;
                }
                if keep[n]
                    && let Some(p) = self.nodes[n].parent
                {
                    keep[p] = true;
                }
            }
            keep[0] = true;
            rows.retain(|&n| keep[n]);
        }
        self.rows = rows;
        self.cursor = self.cursor.min(self.rows.len() - 1);
    }

    /// Show only the rows matching `query` and their ancestors (`None` or
    /// an empty query: every row). The selection stays if it is still
    /// shown, else moves to the first match.
    pub fn set_filter(&mut self, snap: &Snapshot, query: Option<&str>) {
        let selected = self.selected_index();
        self.filter = query.filter(|q| !q.trim().is_empty()).map(|q| Filter {
            query: q.to_owned(),
            hits: self.nodes.iter().map(|n| is_hit(snap, n.decl, q)).collect(),
        });
        self.rebuild_rows();
        self.cursor = match self.rows.iter().position(|&r| r == selected) {
            Some(i) => i,
            None => self
                .rows
                .iter()
                .position(|&r| r != 0 && self.filter.as_ref().is_some_and(|f| f.hits[r]))
                .unwrap_or(0),
        };
    }

    pub fn filter(&self) -> Option<&str> {
        self.filter.as_ref().map(|f| f.query.as_str())
    }

    /// Rows whose own name matches the filter.
    pub fn filter_hits(&self) -> usize {
        self.filter.as_ref().map_or(0, |f| {
            self.rows.iter().filter(|&&r| r != 0 && f.hits[r]).count()
        })
    }

    pub fn move_by(&mut self, delta: isize) {
        let last = self.rows.len() as isize - 1;
        self.cursor = (self.cursor as isize + delta).clamp(0, last) as usize;
    }

    pub fn select_node(&mut self, node: usize) {
        if let Some(i) = self.rows.iter().position(|&r| r == node) {
            self.cursor = i;
        }
    }

    /// `l`/→: expand; on an expanded node, go to its first child.
    pub fn expand_selected(&mut self, snap: &Snapshot) {
        let node = self.selected_index();
        if self.nodes[node].expanded {
            if self.nodes[node]
                .children
                .as_ref()
                .is_some_and(|k| !k.is_empty())
            {
                self.move_by(1);
            }
        } else {
            self.expand(snap, node);
        }
    }

    /// `h`/←: collapse; on a collapsed node, go to its parent.
    pub fn collapse_selected(&mut self) {
        let node = self.selected_index();
        if self.nodes[node].expanded && node != 0 {
            self.collapse(node);
        } else if let Some(p) = self.nodes[node].parent {
            self.select_node(p);
        } else if self.nodes[node].expanded {
            self.collapse(node);
        }
    }

    /// Scroll so the cursor is visible in `height` rows.
    pub fn scroll_into_view(&mut self, height: usize) {
        let height = height.max(1);
        if self.cursor < self.offset {
            self.offset = self.cursor;
        } else if self.cursor >= self.offset + height {
            self.offset = self.cursor + 1 - height;
        }
        self.offset = self.offset.min(self.rows.len().saturating_sub(height));
    }

    /// Names from the root down to `node`, to find the same place after a refresh.
    pub fn name_path(&self, snap: &Snapshot, node: usize) -> Vec<String> {
        let mut path = Vec::new();
        let mut cur = Some(node);
        while let Some(i) = cur {
            path.push(snap.name(self.nodes[i].decl).to_owned());
            cur = self.nodes[i].parent;
        }
        path.reverse();
        path
    }

    /// Walk a name path (root first), expanding as needed; the node reached
    /// (the deepest that still exists).
    pub fn follow(&mut self, snap: &Snapshot, path: &[String]) -> usize {
        let mut node = 0;
        for name in path.iter().skip(1) {
            self.expand(snap, node);
            let Some(kids) = &self.nodes[node].children else {
                break;
            };
            match kids
                .iter()
                .find(|&&k| snap.name(self.nodes[k].decl) == name.as_str())
            {
                Some(&k) => node = k,
                None => break,
            }
        }
        node
    }

    /// Every expanded node, as name paths (for keeping the shape across refreshes).
    pub fn expanded_paths(&self, snap: &Snapshot) -> Vec<Vec<String>> {
        // From the nodes, not the rows: a filter may hide expanded ones.
        // A parent is always created before its children.
        (0..self.nodes.len())
            .filter(|&n| {
                let mut cur = Some(n);
                while let Some(i) = cur {
                    if !self.nodes[i].expanded {
                        return false;
                    }
                    cur = self.nodes[i].parent;
                }
                true
            })
            .map(|n| self.name_path(snap, n))
            .collect()
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, view: &TreeView) {
        let theme = view.theme;
        let snap = view.snap;
        let title = format!(
            " {} of {} ",
            match self.dir {
                Direction::Callers => "callers",
                Direction::Callees => "callees",
            },
            snap.display_name(self.root)
        );
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border(view.focused))
            .title(Span::styled(title, theme.title(view.focused)));
        let block = match (view.filter_input, self.filter()) {
            (Some(typing), _) => {
                block.title_bottom(Span::styled(format!(" filter: {typing}▏ "), theme.key()))
            }
            (None, Some(query)) => block.title_bottom(Span::styled(
                format!(
                    " filter: {query} · {} · esc clears ",
                    counted(self.filter_hits(), "match", "matches")
                ),
                theme.key(),
            )),
            (None, None) => block,
        };
        let inner = block.inner(area);
        let height = inner.height as usize;
        let res = &snap.index.res;
        let mut lines = Vec::with_capacity(height);
        for (i, &n) in self.rows.iter().enumerate().skip(self.offset).take(height) {
            let node = &self.nodes[n];
            let d = &res.decls[node.decl];
            let arrow = if node.cycle {
                "↺"
            } else if !self.has_children(snap, n) {
                "·"
            } else if node.expanded {
                "▾"
            } else {
                "▸"
            };
            let hop_style = view
                .hops
                .and_then(|h| h.get(&node.decl))
                .map(|&h| theme.hop(h))
                .unwrap_or_else(|| {
                    if node.depth == 0 {
                        theme.bold()
                    } else {
                        theme.plain()
                    }
                });
            // The name is span NAME_SPAN: the one cut when the row is too wide.
            let mut spans = vec![
                Span::styled(format!("{:>2} ", node.depth), theme.dim()),
                Span::raw("  ".repeat(node.depth as usize)),
                Span::raw(format!("{arrow} ")),
                Span::styled(snap.display_name(node.decl), hop_style),
            ];
            match node.confidence {
                Confidence::Certain => {}
                Confidence::Likely => spans.push(Span::styled(
                    " ~likely",
                    theme.confidence(Confidence::Likely),
                )),
                Confidence::Possible => spans.push(Span::styled(
                    " ?possible",
                    theme.confidence(Confidence::Possible),
                )),
            }
            if d.is_test {
                spans.push(Span::styled(" [test]", theme.test_badge()));
            }
            if snap.index.is_generated(node.decl) {
                spans.push(Span::styled(" [generated]", theme.test_badge()));
            }
            if let Some(class) = snap.class(node.decl) {
                let style = match class {
                    Class::Stable => theme.stable(),
                    Class::Active => theme.warning(),
                    Class::OffLimits => theme.error(),
                };
                spans.push(Span::styled(format!(" [{}]", class.name()), style));
            }
            if !view.changed.is_empty()
                && let Some(file) = snap.index.file_of(node.decl)
                && view.changed.iter().any(|(p, s, e)| {
                    *p == file.path
                        && *s <= d.span.end_line as usize
                        && *e >= d.span.start_line as usize
                })
            {
                spans.push(Span::styled(" ✎ change accepted", theme.accepted()));
            }
            if node.cycle {
                spans.push(Span::styled(" (cycle)", theme.cycle()));
            } else if snap.recursive[node.decl.index()] {
                spans.push(Span::styled(" (recursive)", theme.cycle()));
            }
            if !node.expanded && self.has_children(snap, n) && node.depth > 0 {
                spans.push(Span::styled(
                    format!(" +{}", snap.fan(node.decl, self.dir)),
                    theme.dim(),
                ));
            }
            spans.push(Span::styled(
                format!("  {}", snap.location(node.decl)),
                theme.dim(),
            ));
            fit_row(&mut spans, NAME_SPAN, inner.width as usize);
            let mut line = Line::from(spans);
            if i == self.cursor {
                line = line.patch_style(if view.focused {
                    theme.selected()
                } else {
                    theme.bold()
                });
            }
            lines.push(line);
        }
        frame.render_widget(Paragraph::new(lines).block(block), area);
    }
}

/// Where a row's name is among its spans.
const NAME_SPAN: usize = 3;

/// Make a row fit `width` columns, cutting with an ellipsis so that the
/// badges and the line number stay visible: first the directories of the
/// `file:line` that ends the row (`…/session.py:43`; the source pane's
/// title has the whole path), then the front of the name (`…Gateway.balance`:
/// its last part names the function). Only when the name is down to one
/// character is the end of the row cut.
fn fit_row(spans: &mut [Span<'static>], name: usize, width: usize) {
    let total = |spans: &[Span]| spans.iter().map(Span::width).sum::<usize>();
    if total(spans) <= width {
        return;
    }
    if let Some(location) = spans.last_mut()
        && let Some((_, file)) = location.content.rsplit_once('/')
    {
        location.content = format!("  …/{file}").into();
    }
    let total = total(spans);
    let Some(span) = spans.get_mut(name) else {
        return;
    };
    if total <= width {
        return;
    }
    let excess = total - width;
    let keep = span.width().saturating_sub(excess + 1).max(1);
    let mut tail = Vec::new();
    let mut used = 0;
    for c in span.content.chars().rev() {
        let w = Span::raw(c.to_string()).width();
        if used + w > keep {
            break;
        }
        used += w;
        tail.push(c);
    }
    let cut: String = std::iter::once('…').chain(tail.into_iter().rev()).collect();
    span.content = cut.into();
}

/// What drawing the tree needs besides the tree.
pub struct TreeView<'a> {
    pub snap: &'a Snapshot,
    pub theme: &'a Theme,
    pub focused: bool,
    /// Hop of every declaration inside the blast radius, when computed.
    pub hops: Option<&'a HashMap<DeclId, u32>>,
    /// `(path, first line, last line)` of accepted migration hunks: rows
    /// whose declaration overlaps one are marked.
    pub changed: &'a [(String, usize, usize)],
    /// The filter being typed (`f`), shown under the tree.
    pub filter_input: Option<&'a str>,
}

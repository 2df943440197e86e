//! The blast radius pane: for the root, counts per hop up to the chosen
//! depth and for all hops, certain/likely/possible, the files, packages and
//! tests reaching it, and why the answer may be a lower bound. Computed by
//! [`crate::blast::compute`] on the worker; this module only lays it out.
//! The rows of its lists (tests, packages, files, the call sites that make
//! it a lower bound) carry a [`BlastItem`]: the pane's cursor moves over
//! them and enter, `t`, `E`, `y` act on the one selected.

use std::collections::HashMap;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use crate::blast::{BlastRadius, Counts};
use crate::graph::Direction;
use crate::model::Confidence;
use crate::resolve::DeclId;
use crate::terminal_text::counted;

use super::snapshot::Snapshot;
use super::theme::Theme;

/// What a list row of the pane stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlastItem {
    Test(DeclId),
    Package(String),
    File(String),
    /// A call site (unresolved, or handing the root out).
    Site {
        file: String,
        line: u32,
    },
}

/// One row of the pane.
pub type Row = (Line<'static>, Option<BlastItem>);

pub struct BlastView {
    pub root: DeclId,
    pub depth: u32,
    pub radius: BlastRadius,
    /// Hop of every declaration inside the radius (for colouring tree rows).
    pub hops: HashMap<DeclId, u32>,
    /// Counts with no depth limit, and how many hops that takes.
    pub all: Counts,
    pub all_hops: u32,
}

impl BlastView {
    /// The work the worker does for a (root, depth) request.
    pub fn compute(snap: &Snapshot, root: DeclId, depth: u32) -> BlastView {
        let index = &snap.index;
        let radius = crate::blast::compute(index, root, depth);
        let everything = index.graph.traverse(
            &index.res,
            root,
            Direction::Callers,
            0,
            Confidence::Possible,
        );
        let mut all = Counts::default();
        let mut all_hops = 0;
        let mut hops = HashMap::new();
        for r in &everything {
            all.total += 1;
            match r.confidence {
                Confidence::Certain => all.certain += 1,
                Confidence::Likely => all.likely += 1,
                Confidence::Possible => all.possible += 1,
            }
            all_hops = all_hops.max(r.hop);
            if r.hop <= depth {
                hops.insert(r.decl, r.hop);
            }
        }
        hops.insert(root, 0);
        BlastView {
            root,
            depth,
            radius,
            hops,
            all,
            all_hops,
        }
    }

    pub fn rows(&self, snap: &Snapshot, theme: &Theme) -> Vec<Row> {
        let r = &self.radius;
        let mut out: Vec<Row> = Vec::new();
        let mut push = |line: Line<'static>| out.push((line, None));
        push(Line::from(vec![
            Span::styled(snap.display_name(self.root), theme.bold()),
            Span::styled(format!("  depth {} ", self.depth), theme.plain()),
            Span::styled("(+/-)", theme.dim()),
        ]));
        push(Line::styled(
            format!(
                "{:<8}{:>6}{:>8}{:>7}{:>7}",
                "", "all", "certain", "likely", "poss."
            ),
            theme.dim(),
        ));
        let row = |label: String, c: &Counts| {
            format!(
                "{label:<8}{:>6}{:>8}{:>7}{:>7}",
                c.total, c.certain, c.likely, c.possible
            )
        };
        for h in &r.hops {
            let label = format!("hop {}", h.hop);
            push(Line::styled(row(label, &h.counts), theme.hop(h.hop)));
        }
        if r.hops.is_empty() {
            push(Line::styled("no callers", theme.dim()));
        }
        push(Line::styled(
            row(format!("≤ {}", self.depth), &r.total),
            theme.bold(),
        ));
        push(Line::styled(
            row(format!("any ({})", self.all_hops), &self.all),
            theme.plain(),
        ));
        push(Line::styled("hop 1 = direct · any = no limit", theme.dim()));
        push(Line::raw(""));
        push(Line::from(format!(
            "files {} · packages {}",
            r.files.len(),
            r.packages.len(),
        )));
        push(Line::from(tests_line(r)));
        let site = |file: &str, line: u32, text: &str| {
            (
                Line::styled(format!("    {file}:{line}  {text}"), theme.dim()),
                Some(BlastItem::Site {
                    file: file.to_owned(),
                    line,
                }),
            )
        };
        if r.lower_bound {
            out.push((Line::raw(""), None));
            out.push((
                Line::styled("⚠ a lower bound, because:", theme.warning()),
                None,
            ));
            if r.unresolved_inside > 0 {
                out.push((
                    Line::from(format!(
                        "  {} inside",
                        counted(
                            r.unresolved_inside,
                            "unresolved call site",
                            "unresolved call sites"
                        )
                    )),
                    None,
                ));
                out.push((
                    Line::styled("    the radius may hide more paths", theme.dim()),
                    None,
                ));
            }
            if !r.handed_out.is_empty() {
                out.push((
                    Line::from(format!(
                        "  passed to code ripple does not follow at {} sites:",
                        r.handed_out.len()
                    )),
                    None,
                ));
                for h in r.handed_out.iter().take(12) {
                    out.push(site(&h.file, h.line, &h.text));
                }
            }
            if r.handed_out_inside > 0 {
                out.push((
                    Line::from(format!(
                        "  {} more passed out from inside",
                        r.handed_out_inside
                    )),
                    None,
                ));
            }
            if !r.possibly_missing_callers.is_empty() {
                out.push((
                    Line::from(format!(
                        "  {} unresolved calls are named like `{}`:",
                        r.possibly_missing_callers.len(),
                        crate::blast::short_name(&r.root.name)
                    )),
                    None,
                ));
                for u in r.possibly_missing_callers.iter().take(12) {
                    out.push(site(&u.file, u.line, &u.text));
                }
            }
        }
        let list = |out: &mut Vec<Row>, title: String, items: Vec<(String, BlastItem)>| {
            if items.is_empty() {
                return;
            }
            out.push((Line::raw(""), None));
            out.push((Line::styled(title, theme.bold()), None));
            for (text, item) in items {
                out.push((Line::from(format!("  {text}")), Some(item)));
            }
        };
        list(
            &mut out,
            format!("tests ≤ depth {} ({})", r.depth, r.tests.len()),
            r.tests
                .iter()
                .filter_map(|t| {
                    // A test the snapshot no longer has cannot be selected.
                    let &d = snap.by_name.get(&t.name)?;
                    Some((snap.display_name(d), BlastItem::Test(d)))
                })
                .collect(),
        );
        list(
            &mut out,
            format!("packages ({})", r.packages.len()),
            r.packages
                .iter()
                .map(|p| (p.clone(), BlastItem::Package(p.clone())))
                .collect(),
        );
        list(
            &mut out,
            format!("files ({})", r.files.len()),
            r.files
                .iter()
                .map(|f| (f.clone(), BlastItem::File(f.clone())))
                .collect(),
        );
        out
    }
}

/// The tests that reach the root, within the pane's depth and at any
/// depth (the ones `t` runs), said the same way wherever they are counted.
pub fn tests_line(r: &BlastRadius) -> String {
    format!(
        "tests ≤ depth {}: {} (all depths: {})",
        r.depth,
        r.tests.len(),
        r.tests_any_depth
    )
}

/// Where the pane is scrolled to and which list row is selected.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BlastCursor {
    pub scroll: usize,
    /// Index of the selected row (one with an item), if any.
    pub row: Option<usize>,
}

impl BlastCursor {
    /// Move to the next (`delta` > 0) or previous list row, scrolling it
    /// into the `height` rows shown. Without list rows, scroll instead.
    pub fn step(&mut self, rows: &[Row], delta: isize, height: usize) {
        let items: Vec<usize> = (0..rows.len()).filter(|&i| rows[i].1.is_some()).collect();
        if items.is_empty() {
            self.scroll = (self.scroll as isize + delta).max(0) as usize;
            return;
        }
        let next = match self.row.and_then(|r| items.iter().position(|&i| i == r)) {
            None if delta > 0 => 0,
            None => items.len() - 1,
            Some(at) => (at as isize + delta).clamp(0, items.len() as isize - 1) as usize,
        };
        let row = items[next];
        self.row = Some(row);
        let height = height.max(1);
        if row < self.scroll {
            self.scroll = row;
        } else if row >= self.scroll + height {
            self.scroll = row + 1 - height;
        }
    }

    /// Select the row `i` lines below the first one shown, when it is a list row.
    pub fn click(&mut self, rows: &[Row], i: usize) {
        let row = self.scroll + i;
        if rows.get(row).is_some_and(|r| r.1.is_some()) {
            self.row = Some(row);
        }
    }

    pub fn item<'a>(&self, rows: &'a [Row]) -> Option<&'a BlastItem> {
        rows.get(self.row?)?.1.as_ref()
    }
}

pub fn draw(
    frame: &mut Frame,
    area: Rect,
    view: Option<&BlastView>,
    snap: Option<&Snapshot>,
    cursor: BlastCursor,
    theme: &Theme,
    focused: bool,
) {
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border(focused))
        .title(Span::styled(" blast radius ", theme.title(focused)));
    let scroll = cursor.scroll;
    let lines: Vec<Line> = match (view, snap) {
        (Some(v), Some(s)) => v
            .rows(s, theme)
            .into_iter()
            .enumerate()
            .map(|(i, (line, _))| match cursor.row {
                Some(r) if r == i && focused => line.patch_style(theme.selected()),
                Some(r) if r == i => line.patch_style(theme.bold()),
                _ => line,
            })
            .collect(),
        _ => vec![Line::styled("computing…", theme.dim())],
    };
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .scroll((scroll as u16, 0)),
        area,
    );
}

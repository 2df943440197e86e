//! The blast radius pane: for the root, counts per hop up to the chosen
//! depth and for all hops, certain/likely/possible, the files, packages and
//! tests reaching it, and why the answer may be a lower bound. Computed by
//! [`crate::blast::compute`] on the worker; this module only lays it out.

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

    pub fn lines(&self, snap: &Snapshot, theme: &Theme) -> Vec<Line<'static>> {
        let r = &self.radius;
        let mut out = vec![
            Line::from(vec![
                Span::styled(snap.display_name(self.root), theme.bold()),
                Span::styled(format!("  depth {} ", self.depth), theme.plain()),
                Span::styled("(+/-)", theme.dim()),
            ]),
            Line::styled(
                format!(
                    "{:<8}{:>6}{:>8}{:>7}{:>7}",
                    "", "all", "certain", "likely", "poss."
                ),
                theme.dim(),
            ),
        ];
        let row = |label: String, c: &Counts| {
            format!(
                "{label:<8}{:>6}{:>8}{:>7}{:>7}",
                c.total, c.certain, c.likely, c.possible
            )
        };
        for h in &r.hops {
            let label = format!("hop {}", h.hop);
            out.push(Line::styled(row(label, &h.counts), theme.hop(h.hop)));
        }
        if r.hops.is_empty() {
            out.push(Line::styled("no callers", theme.dim()));
        }
        out.push(Line::styled(
            row(format!("≤ {}", self.depth), &r.total),
            theme.bold(),
        ));
        out.push(Line::styled(
            row(format!("any ({})", self.all_hops), &self.all),
            theme.plain(),
        ));
        out.push(Line::styled("hop 1 = direct · any = no limit", theme.dim()));
        out.push(Line::raw(""));
        out.push(Line::from(format!(
            "files {} · packages {}",
            r.files.len(),
            r.packages.len(),
        )));
        out.push(Line::from(tests_line(r)));
        if r.lower_bound {
            out.push(Line::raw(""));
            out.push(Line::styled("⚠ a lower bound, because:", theme.warning()));
            if r.unresolved_inside > 0 {
                out.push(Line::from(format!(
                    "  {} inside",
                    counted(
                        r.unresolved_inside,
                        "unresolved call site",
                        "unresolved call sites"
                    )
                )));
                out.push(Line::styled(
                    "    the radius may hide more paths",
                    theme.dim(),
                ));
            }
            if !r.handed_out.is_empty() {
                out.push(Line::from(format!(
                    "  passed to code ripple does not follow at {} sites:",
                    r.handed_out.len()
                )));
                for h in r.handed_out.iter().take(12) {
                    out.push(Line::styled(
                        format!("    {}:{}  {}", h.file, h.line, h.text),
                        theme.dim(),
                    ));
                }
            }
            if r.handed_out_inside > 0 {
                out.push(Line::from(format!(
                    "  {} more passed out from inside",
                    r.handed_out_inside
                )));
            }
            if !r.possibly_missing_callers.is_empty() {
                out.push(Line::from(format!(
                    "  {} unresolved calls are named like `{}`:",
                    r.possibly_missing_callers.len(),
                    crate::blast::short_name(&r.root.name)
                )));
                for u in r.possibly_missing_callers.iter().take(12) {
                    out.push(Line::styled(
                        format!("    {}:{}  {}", u.file, u.line, u.text),
                        theme.dim(),
                    ));
                }
            }
        }
        let list = |out: &mut Vec<Line<'static>>, title: String, items: Vec<String>| {
            if items.is_empty() {
                return;
            }
            out.push(Line::raw(""));
            out.push(Line::styled(title, theme.bold()));
            for i in items {
                out.push(Line::from(format!("  {i}")));
            }
        };
        list(
            &mut out,
            format!("tests ≤ depth {} ({})", r.depth, r.tests.len()),
            r.tests
                .iter()
                .map(|t| {
                    snap.by_name
                        .get(&t.name)
                        .map(|&d| snap.display_name(d))
                        .unwrap_or_else(|| t.name.to_string())
                })
                .collect(),
        );
        list(
            &mut out,
            format!("packages ({})", r.packages.len()),
            r.packages.clone(),
        );
        list(
            &mut out,
            format!("files ({})", r.files.len()),
            r.files.clone(),
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

pub fn draw(
    frame: &mut Frame,
    area: Rect,
    view: Option<&BlastView>,
    snap: Option<&Snapshot>,
    scroll: usize,
    theme: &Theme,
    focused: bool,
) {
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border(focused))
        .title(Span::styled(" blast radius ", theme.title(focused)));
    let lines = match (view, snap) {
        (Some(v), Some(s)) => v.lines(s, theme),
        _ => vec![Line::styled("computing…", theme.dim())],
    };
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .scroll((scroll as u16, 0)),
        area,
    );
}

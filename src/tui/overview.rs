//! The overview (start screen and `o`): the repository at a glance, so an
//! unfamiliar codebase has a place to start — packages with size and
//! coupling, hotspots (highest fan-in), entry points (nothing calls them,
//! they call a lot), and import cycles between packages.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use crate::resolve::DeclId;
use crate::terminal_text::counted;

use super::snapshot::Snapshot;
use super::theme::Theme;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Section {
    Packages,
    #[default]
    Hotspots,
    EntryPoints,
}

impl Section {
    const ALL: [Section; 3] = [Section::Packages, Section::Hotspots, Section::EntryPoints];

    fn slot(self) -> usize {
        self as usize
    }

    pub fn next(self, delta: isize) -> Section {
        let i = (self.slot() as isize + delta).rem_euclid(3) as usize;
        Section::ALL[i]
    }
}

/// What enter on the selected overview row leads to.
pub enum Pick {
    Decl(DeclId),
    Package(String),
}

#[derive(Default)]
pub struct OverviewState {
    pub section: Section,
    pub cursor: [usize; 3],
    pub offset: [usize; 3],
}

pub struct Areas {
    pub summary: Rect,
    pub packages: Rect,
    pub hotspots: Rect,
    pub entry_points: Rect,
    pub cycles: Rect,
}

impl Areas {
    pub fn of(main: Rect) -> Areas {
        let [summary, body] =
            Layout::vertical([Constraint::Length(3), Constraint::Min(0)]).areas(main);
        let [left, right] =
            Layout::horizontal([Constraint::Percentage(45), Constraint::Percentage(55)])
                .areas(body);
        let [hotspots, entry_points, cycles] = Layout::vertical([
            Constraint::Percentage(42),
            Constraint::Percentage(42),
            Constraint::Percentage(16),
        ])
        .areas(right);
        Areas {
            summary,
            packages: left,
            hotspots,
            entry_points,
            cycles,
        }
    }

    pub fn of_section(&self, s: Section) -> Rect {
        match s {
            Section::Packages => self.packages,
            Section::Hotspots => self.hotspots,
            Section::EntryPoints => self.entry_points,
        }
    }
}

impl OverviewState {
    pub fn len(snap: &Snapshot, s: Section) -> usize {
        let o = &snap.overview;
        match s {
            Section::Packages => o.packages.len(),
            Section::Hotspots => o.hotspots.len(),
            Section::EntryPoints => o.entry_points.len(),
        }
    }

    pub fn move_by(&mut self, snap: &Snapshot, delta: isize, main: Rect) {
        let s = self.section.slot();
        let len = OverviewState::len(snap, self.section);
        if len == 0 {
            return;
        }
        self.cursor[s] = (self.cursor[s] as isize + delta).clamp(0, len as isize - 1) as usize;
        self.scroll_into_view(main);
    }

    pub fn scroll_into_view(&mut self, main: Rect) {
        let s = self.section.slot();
        let height = list_height(Areas::of(main).of_section(self.section), self.section);
        if self.cursor[s] < self.offset[s] {
            self.offset[s] = self.cursor[s];
        } else if self.cursor[s] >= self.offset[s] + height {
            self.offset[s] = self.cursor[s] + 1 - height;
        }
    }

    pub fn pick(&self, snap: &Snapshot) -> Option<Pick> {
        let o = &snap.overview;
        let i = self.cursor[self.section.slot()];
        match self.section {
            Section::Packages => o.packages.get(i).map(|p| Pick::Package(p.name.clone())),
            Section::Hotspots => o.hotspots.get(i).map(|h| Pick::Decl(h.0)),
            Section::EntryPoints => o.entry_points.get(i).map(|h| Pick::Decl(h.0)),
        }
    }

    /// Select the row under a click; true when it hit a list row.
    pub fn click(&mut self, snap: &Snapshot, main: Rect, col: u16, row: u16) -> bool {
        let areas = Areas::of(main);
        for s in Section::ALL {
            let a = areas.of_section(s);
            if col >= a.x
                && col < a.x + a.width
                && row > a.y + header_rows(s)
                && row < a.y + a.height - 1
            {
                let i = self.offset[s.slot()] + (row - a.y - 1 - header_rows(s)) as usize;
                if i < OverviewState::len(snap, s) {
                    self.section = s;
                    self.cursor[s.slot()] = i;
                    return true;
                }
            }
        }
        false
    }

    pub fn draw(&self, frame: &mut Frame, main: Rect, snap: Option<&Snapshot>, theme: &Theme) {
        let areas = Areas::of(main);
        let Some(snap) = snap else {
            let block = Block::default().borders(Borders::ALL).title(" overview ");
            frame.render_widget(
                Paragraph::new(Line::styled(
                    "indexing the repository… (the status line shows progress)",
                    theme.dim(),
                ))
                .block(block),
                main,
            );
            return;
        };
        let st = &snap.index.stats;
        let summary = Paragraph::new(vec![Line::from(vec![
            Span::styled(
                format!("{} ", super::display_root(&snap.index.root)),
                theme.bold(),
            ),
            Span::raw(format!(
                " {} · {} · {} · {} · {}",
                counted(st.files, "file", "files"),
                counted(st.lines as usize, "line", "lines"),
                counted(st.declarations, "declaration", "declarations"),
                counted(st.edges, "call edge", "call edges"),
                counted(
                    st.unresolved,
                    "unresolved call site",
                    "unresolved call sites"
                )
            )),
        ])])
        .block(
            Block::default()
                .borders(Borders::ALL)
                .border_style(theme.border(false))
                .title(Span::styled(" overview ", theme.title(false))),
        );
        frame.render_widget(summary, areas.summary);
        let o = &snap.overview;

        let packages: Vec<Line> = o
            .packages
            .iter()
            .map(|p| {
                Line::from(format!(
                    "{:>7} {:>5} {:>5} {:>5}  {}",
                    p.lines, p.decls, p.uses, p.used_by, p.label
                ))
            })
            .collect();
        self.list(
            frame,
            areas.packages,
            Section::Packages,
            " packages (enter: find in it) ",
            Some(Line::styled(
                format!(
                    "{:>7} {:>5} {:>5} {:>5}  {}",
                    "lines", "decls", "uses", "used", "package"
                ),
                theme.dim(),
            )),
            packages,
            theme,
        );
        let decl_line = |&(d, n): &(DeclId, u32)| {
            Line::from(vec![
                Span::raw(format!("{n:>5}  ")),
                Span::raw(snap.display_name(d)),
                Span::styled(format!("  {}", snap.location(d)), theme.dim()),
            ])
        };
        self.list(
            frame,
            areas.hotspots,
            Section::Hotspots,
            " hotspots: most callers ",
            None,
            o.hotspots.iter().map(decl_line).collect(),
            theme,
        );
        self.list(
            frame,
            areas.entry_points,
            Section::EntryPoints,
            " entry points: no callers, most callees ",
            None,
            o.entry_points.iter().map(decl_line).collect(),
            theme,
        );
        let cycles: Vec<Line> = if o.import_cycles.is_empty() {
            vec![Line::styled("none found", theme.dim())]
        } else {
            o.import_cycles
                .iter()
                .map(|c| Line::from(format!("↺ {}", c.join(" ↔ "))))
                .collect()
        };
        frame.render_widget(
            Paragraph::new(cycles).wrap(Wrap { trim: true }).block(
                Block::default()
                    .borders(Borders::ALL)
                    .border_style(theme.border(false))
                    .title(Span::styled(" import cycles ", theme.title(false))),
            ),
            areas.cycles,
        );
    }

    #[allow(clippy::too_many_arguments)]
    fn list(
        &self,
        frame: &mut Frame,
        area: Rect,
        s: Section,
        title: &str,
        header: Option<Line<'static>>,
        rows: Vec<Line<'static>>,
        theme: &Theme,
    ) {
        let focused = self.section == s;
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border(focused))
            .title(Span::styled(title.to_owned(), theme.title(focused)));
        let height = list_height(area, s);
        let mut lines: Vec<Line> = header.into_iter().collect();
        if rows.is_empty() {
            lines.push(Line::styled("none", theme.dim()));
        }
        for (i, mut line) in rows
            .into_iter()
            .enumerate()
            .skip(self.offset[s.slot()])
            .take(height)
        {
            if i == self.cursor[s.slot()] {
                line = line.patch_style(if focused {
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

fn header_rows(s: Section) -> u16 {
    (s == Section::Packages) as u16
}

/// List rows inside a section's box (borders and header excluded).
fn list_height(area: Rect, s: Section) -> usize {
    area.height.saturating_sub(2 + header_rows(s)).max(1) as usize
}

//! The findings list (`R`): what the last `ripple review` found, read back
//! from `.ripple/last-review.json`, most severe first. `enter` jumps to the
//! code: the declaration around the finding's line becomes the root and the
//! line is marked in the source pane.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::model::DeclKind;
use crate::resolve::{DeclId, FileId};
use crate::review::{Finding, Severity};

use super::snapshot::Snapshot;
use super::theme::Theme;

pub struct FindingsList {
    pub findings: Vec<Finding>,
    /// Why the list is empty (no review yet, an unreadable report).
    pub empty_note: Option<String>,
    pub cursor: usize,
    pub offset: usize,
}

impl FindingsList {
    /// The last review's findings for the repository at `root`.
    pub fn load(root: &std::path::Path) -> FindingsList {
        let (mut findings, empty_note) = match crate::review::last::load(root) {
            Ok(Some(r)) if r.findings.is_empty() => (
                Vec::new(),
                Some("the last review found nothing".to_owned()),
            ),
            Ok(Some(r)) => (r.findings, None),
            Ok(None) => (
                Vec::new(),
                Some(
                    "no review has been run here yet: `ripple review` saves its findings to .ripple/last-review.json"
                        .to_owned(),
                ),
            ),
            Err(e) => (Vec::new(), Some(e.to_string())),
        };
        findings.sort_by(|a, b| {
            (a.severity, &a.file, a.start_line).cmp(&(b.severity, &b.file, b.start_line))
        });
        FindingsList {
            findings,
            empty_note,
            cursor: 0,
            offset: 0,
        }
    }

    pub fn selected(&self) -> Option<&Finding> {
        self.findings.get(self.cursor)
    }

    pub fn move_by(&mut self, delta: isize, height: usize) {
        let len = self.findings.len();
        super::finder::move_cursor(&mut self.cursor, &mut self.offset, len, delta, height);
    }

    pub fn area(main: Rect) -> Rect {
        super::testrun::TestRun::area(main)
    }

    /// Rows of findings inside the popup.
    pub fn list_height(area: Rect) -> usize {
        area.height.saturating_sub(2) as usize
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        frame.render_widget(Clear, area);
        let mut counts = String::new();
        for s in Severity::ALL {
            let n = self.findings.iter().filter(|f| f.severity == s).count();
            if n > 0 {
                counts.push_str(&format!(" {n} {}", s.name()));
            }
        }
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border(true))
            .title(Span::styled(
                " findings of the last review ",
                theme.title(true),
            ))
            .title_bottom(Span::styled(
                format!(" {} finding(s){counts} ", self.findings.len()),
                theme.dim(),
            ));
        let inner = block.inner(area);
        let mut lines = Vec::new();
        if let Some(note) = &self.empty_note {
            lines.push(Line::styled(note.clone(), theme.warning()));
        }
        let width = self
            .findings
            .iter()
            .map(|f| location(f).chars().count())
            .max()
            .unwrap_or(0)
            .min(50);
        for (i, f) in self
            .findings
            .iter()
            .enumerate()
            .skip(self.offset)
            .take(inner.height as usize)
        {
            let style = match f.severity {
                Severity::Critical | Severity::Major => theme.error(),
                Severity::Minor => theme.warning(),
                Severity::Nit => theme.dim(),
            };
            let mut line = Line::from(vec![
                Span::styled(format!("{:<8} ", f.severity.name()), style),
                Span::styled(format!("{:<width$}  ", location(f)), theme.dim()),
                Span::raw(f.message.lines().next().unwrap_or("").to_owned()),
            ]);
            if i == self.cursor {
                line = line.patch_style(theme.selected());
            }
            lines.push(line);
        }
        frame.render_widget(Paragraph::new(lines).block(block), area);
    }
}

fn location(f: &Finding) -> String {
    format!("{}:{}", f.file, f.start_line)
}

/// The innermost declaration of `path` whose lines hold `line`: a
/// function or method before the class or module around it.
pub fn decl_at(snap: &Snapshot, path: &str, line: u32) -> Option<DeclId> {
    let index = &snap.index;
    let file = FileId::new(index.files.iter().position(|f| f.path == path)?);
    index
        .res
        .decls
        .iter()
        .enumerate()
        .filter(|(_, d)| {
            d.file == Some(file) && d.span.start_line <= line && line <= d.span.end_line
        })
        .min_by_key(|(_, d)| {
            (
                d.kind == DeclKind::Module,
                d.span.end_line.saturating_sub(d.span.start_line),
            )
        })
        .map(|(i, _)| DeclId::new(i))
}

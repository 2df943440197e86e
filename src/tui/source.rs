//! The source pane: the selected declaration in its file, highlighted, with
//! the call site of the edge the user came through marked. The file is read
//! once and kept (a few files are cached); highlighting arrives from the
//! worker for the visible lines only and is drawn when it matches.

use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use crate::model::Lang;

use super::highlight::{Highlights, Kind, line_starts};
use super::theme::Theme;

pub struct FileText {
    pub path: String,
    pub lang: Lang,
    pub text: Arc<str>,
    starts: Vec<usize>,
}

impl FileText {
    pub fn read(root: &Path, path: &str, lang: Lang) -> std::io::Result<FileText> {
        let bytes = crate::inventory::read_regular(root.join(path))?;
        let text: Arc<str> = match String::from_utf8(bytes) {
            Ok(s) => Arc::from(s),
            Err(e) => Arc::from(String::from_utf8_lossy(e.as_bytes()).into_owned()),
        };
        Ok(FileText::new(path, lang, text))
    }

    pub fn new(path: &str, lang: Lang, text: Arc<str>) -> FileText {
        let starts = line_starts(text.as_bytes());
        FileText {
            path: path.to_owned(),
            lang,
            text,
            starts,
        }
    }

    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// Line `i` (0-based) without its line break.
    pub fn line(&self, i: usize) -> &str {
        let Some(&s) = self.starts.get(i) else {
            return "";
        };
        let e = self.starts.get(i + 1).copied().unwrap_or(self.text.len());
        self.text[s..e].trim_end_matches(['\n', '\r'])
    }

    pub fn line_start(&self, i: usize) -> usize {
        self.starts.get(i).copied().unwrap_or(self.text.len())
    }
}

/// The call site to mark: absolute byte range in the shown file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallMark {
    /// 1-based.
    pub line: usize,
    pub bytes: (usize, usize),
}

#[derive(Default)]
pub struct SourceView {
    pub file: Option<Arc<FileText>>,
    pub title: String,
    /// 1-based inclusive lines of the declaration.
    pub decl_lines: (usize, usize),
    pub call: Option<CallMark>,
    /// A line above the code (where a callee is called from, or why nothing shows).
    pub note: Option<String>,
    /// Top visible line, 0-based.
    pub scroll: usize,
    pub highlights: Option<Highlights>,
    /// What the view keeps in sight when the pane changes size.
    anchor: Anchor,
}

/// What a resize scrolls back into view: the declaration (or its marked
/// call site) until the user scrolls away, a marked line, or nothing once
/// the user has chosen where to look.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Anchor {
    #[default]
    Declaration,
    /// A marked line (0-based), kept in the middle.
    Line(usize),
    Free,
}

impl SourceView {
    /// Show a declaration; the view starts a line above it, or further down
    /// if that is what it takes to show the marked call site.
    pub fn show(
        &mut self,
        file: Option<Arc<FileText>>,
        title: String,
        decl_lines: (usize, usize),
        call: Option<CallMark>,
        note: Option<String>,
        height: usize,
    ) {
        self.file = file;
        self.title = title;
        self.decl_lines = decl_lines;
        self.call = call;
        self.note = note;
        self.anchor = Anchor::Declaration;
        self.refit(height);
    }

    /// Scroll back to the anchor for a pane of `height` inner rows (after
    /// a resize, or once something new is shown); a free view is only
    /// kept inside the file.
    pub fn refit(&mut self, height: usize) {
        let height = self.code_height(height);
        match self.anchor {
            Anchor::Declaration => {
                self.scroll = self.home();
                if let Some(c) = self.call
                    && c.line > self.scroll + height
                {
                    self.scroll = c.line.saturating_sub(height / 2);
                }
            }
            Anchor::Line(i) => self.scroll = i.saturating_sub(height / 2),
            Anchor::Free => {}
        }
        self.clamp(height);
    }

    /// The scroll position to remember for this view: `None` while it
    /// follows its anchor (so that a different pane size refits it).
    pub fn free_scroll(&self) -> Option<usize> {
        (self.anchor == Anchor::Free).then_some(self.scroll)
    }

    /// Put back a scroll position the user had chosen.
    pub fn restore_scroll(&mut self, scroll: usize, height: usize) {
        self.scroll = scroll;
        self.anchor = Anchor::Free;
        self.clamp(self.code_height(height));
    }

    /// Mark one line of the shown file (a review finding) with a note
    /// above the code, and scroll it into the middle of the view.
    pub fn mark_line(&mut self, line: usize, note: String, height: usize) {
        let Some(file) = &self.file else { return };
        let i = line
            .saturating_sub(1)
            .min(file.line_count().saturating_sub(1));
        let bytes = (file.line_start(i), file.line_start(i + 1));
        self.call = Some(CallMark { line: i + 1, bytes });
        self.note = Some(note);
        self.anchor = Anchor::Line(i);
        self.refit(height);
    }

    fn home(&self) -> usize {
        self.decl_lines.0.saturating_sub(2)
    }

    /// Rows available for code in a pane of `height` inner rows.
    pub fn code_height(&self, height: usize) -> usize {
        height.saturating_sub(self.note.is_some() as usize).max(1)
    }

    fn clamp(&mut self, height: usize) {
        let lines = self.file.as_ref().map(|f| f.line_count()).unwrap_or(0);
        self.scroll = self.scroll.min(lines.saturating_sub(height.min(lines)));
    }

    pub fn scroll_by(&mut self, delta: isize, height: usize) {
        if delta != 0 {
            self.anchor = Anchor::Free;
        }
        let height = self.code_height(height);
        self.scroll = (self.scroll as isize + delta).max(0) as usize;
        self.clamp(height);
    }

    pub fn scroll_home(&mut self, height: usize) {
        self.scroll = self.home();
        self.anchor = Anchor::Declaration;
        self.clamp(self.code_height(height));
    }

    pub fn scroll_end(&mut self, height: usize) {
        self.anchor = Anchor::Free;
        self.scroll = usize::MAX / 2;
        self.clamp(self.code_height(height));
    }

    pub fn visible(&self, height: usize) -> Range<usize> {
        let lines = self.file.as_ref().map(|f| f.line_count()).unwrap_or(0);
        let start = self.scroll.min(lines);
        start..(start + self.code_height(height)).min(lines)
    }

    /// Lines to ask the highlighter for when the visible ones are not yet
    /// covered: the visible lines plus a screen above and below, so short
    /// scrolls need no new request.
    pub fn highlight_wanted(&self, height: usize) -> Option<Range<usize>> {
        let file = self.file.as_ref()?;
        let vis = self.visible(height);
        if vis.is_empty() {
            return None;
        }
        if self
            .highlights
            .as_ref()
            .is_some_and(|h| h.covers(&file.path, &vis))
        {
            return None;
        }
        let margin = vis.len();
        Some(vis.start.saturating_sub(margin)..(vis.end + margin).min(file.line_count()))
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, theme: &Theme, focused: bool) {
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border(focused))
            .title(Span::styled(
                format!(" {} ", self.title),
                theme.title(focused),
            ));
        let inner = block.inner(area);
        let mut lines: Vec<Line> = Vec::with_capacity(inner.height as usize);
        if let Some(note) = &self.note {
            lines.push(Line::styled(note.clone(), theme.warning()));
        }
        if let Some(file) = &self.file {
            let width = file.line_count().to_string().len();
            for i in self.visible(inner.height as usize) {
                lines.push(self.code_line(file, i, width, theme));
            }
        }
        frame.render_widget(Paragraph::new(lines).block(block), area);
    }

    fn code_line(&self, file: &FileText, i: usize, width: usize, theme: &Theme) -> Line<'static> {
        let n = i + 1;
        let in_decl = n >= self.decl_lines.0 && n <= self.decl_lines.1;
        let on_call = self.call.is_some_and(|c| c.line == n);
        let gutter = if on_call {
            Span::styled("▶", theme.call_site())
        } else if in_decl {
            Span::styled("│", theme.decl_gutter())
        } else {
            Span::raw(" ")
        };
        let mut spans = vec![
            Span::styled(format!("{n:>width$} "), theme.dim()),
            gutter,
            Span::raw(" "),
        ];
        let text = file.line(i);
        let runs = self
            .highlights
            .as_ref()
            .and_then(|h| h.line(&file.path, i))
            .unwrap_or(&[]);
        let mut kinds: Vec<Option<Kind>> = vec![None; text.len()];
        for &(s, e, k) in runs {
            for slot in kinds.iter_mut().take(e as usize).skip(s as usize) {
                *slot = Some(k);
            }
        }
        let line_start = file.line_start(i);
        let marked = |b: usize| {
            self.call
                .is_some_and(|c| line_start + b >= c.bytes.0 && line_start + b < c.bytes.1)
        };
        let style_at = |b: usize| -> Style {
            let mut s = kinds[b].map(|k| theme.syntax(k)).unwrap_or_default();
            if marked(b) {
                s = s.patch(theme.call_site());
            } else if !in_decl {
                s = s.patch(theme.dim());
            }
            s
        };
        let mut start = 0;
        while start < text.len() {
            let style = style_at(start);
            let mut end = start + 1;
            while end < text.len() && (!text.is_char_boundary(end) || style_at(end) == style) {
                end += 1;
            }
            spans.push(Span::styled(text[start..end].replace('\t', "    "), style));
            start = end;
        }
        Line::from(spans)
    }
}

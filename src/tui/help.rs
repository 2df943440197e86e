//! The key-hint bar and the `?` help screen, both generated from
//! [`super::keys::BINDINGS`].

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use super::keys::{self, BINDINGS, Context, HELP_ORDER};
use super::theme::Theme;

/// One line of `key description` pairs for the routing stack, cut to fit.
pub fn hint_bar(contexts: &[Context], width: u16, theme: &Theme) -> Line<'static> {
    let mut spans = Vec::new();
    let mut used = 0usize;
    for b in keys::hints(contexts) {
        let key = b.short_label();
        let text = format!(
            " {}  ",
            b.description.split(" (").next().unwrap_or(b.description)
        );
        let len = key.chars().count() + text.chars().count();
        if used + len > width as usize {
            break;
        }
        used += len;
        spans.push(Span::styled(key, theme.key()));
        spans.push(Span::styled(text, theme.dim()));
    }
    Line::from(spans)
}

/// The bindings of `contexts`, grouped by where they apply.
pub fn help_lines(contexts: &[Context], theme: &Theme) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    for &ctx in contexts {
        if !lines.is_empty() {
            lines.push(Line::raw(""));
        }
        lines.push(Line::styled(ctx.title().to_owned(), theme.title(true)));
        for b in BINDINGS.iter().filter(|b| b.context == ctx) {
            lines.push(Line::from(vec![
                Span::styled(format!("  {:<16}", b.label()), theme.key()),
                Span::raw(b.description),
            ]));
        }
    }
    lines
}

/// Where to split [`HELP_ORDER`] into two columns of about the same height.
fn balanced_split() -> usize {
    let rows = |ctx: &Context| 2 + BINDINGS.iter().filter(|b| b.context == *ctx).count();
    let total: usize = HELP_ORDER.iter().map(rows).sum();
    let mut sum = 0;
    for (i, ctx) in HELP_ORDER.iter().enumerate() {
        sum += rows(ctx);
        if sum * 2 >= total {
            return i + 1;
        }
    }
    HELP_ORDER.len()
}

/// The help screen: a legend, then every binding in two columns when the
/// terminal is wide enough.
pub fn draw(frame: &mut Frame, area: Rect, scroll: usize, theme: &Theme) {
    frame.render_widget(Clear, area);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border(true))
        .title(Span::styled(" help (esc closes) ", theme.title(true)));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let [legend, body] = Layout::vertical([Constraint::Length(3), Constraint::Min(0)]).areas(inner);
    frame.render_widget(
        Paragraph::new(vec![
            Line::styled("ripple explorer: every key", theme.bold()),
            Line::styled(
                "tree rows: hop · name · ~likely/?possible · [test] · [stable]/[active]/[off-limits] (ripple.toml) · ✎ accepted change · (cycle) · +N · file:line",
                theme.dim(),
            ),
            Line::styled("row colour: hop inside the blast radius (red 1, yellow 2, magenta 3, blue 4+)", theme.dim()),
        ]),
        legend,
    );
    let (left, right) = HELP_ORDER.split_at(balanced_split());
    let scroll = (scroll as u16, 0);
    if body.width >= 100 {
        let [l, r] = Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
            .areas(body);
        frame.render_widget(Paragraph::new(help_lines(left, theme)).scroll(scroll), l);
        frame.render_widget(Paragraph::new(help_lines(right, theme)).scroll(scroll), r);
    } else {
        frame.render_widget(
            Paragraph::new(help_lines(HELP_ORDER, theme)).scroll(scroll),
            body,
        );
    }
}

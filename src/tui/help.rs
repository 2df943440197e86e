//! The key-hint bar and the `?` help screen, both generated from
//! [`super::keys::BINDINGS`].

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use super::keys::{self, Action, BINDINGS, Context, HELP_ORDER};
use super::theme::Theme;

/// One line of `key description` pairs for the routing stack, cut to fit.
/// Help and quit end the line whatever the width, when the stack has them:
/// the way to every other key, and the way out, must never be cut.
pub fn hint_bar(contexts: &[Context], width: u16, theme: &Theme) -> Line<'static> {
    let hints = keys::hints(contexts);
    let is_pinned = |b: &&&keys::Binding| matches!(b.action, Action::ShowHelp | Action::Quit);
    let pinned: Vec<&&keys::Binding> = hints.iter().filter(is_pinned).collect();
    let pinned_len: usize = pinned.iter().map(|b| hint_len(b)).sum();
    let room = (width as usize).saturating_sub(pinned_len);
    let mut spans = Vec::new();
    let mut used = 0usize;
    for b in hints.iter().filter(|b| !is_pinned(b)) {
        let len = hint_len(b);
        if used + len > room {
            break;
        }
        used += len;
        push_hint(&mut spans, b, theme);
    }
    for b in pinned {
        if used + hint_len(b) > width as usize {
            break;
        }
        used += hint_len(b);
        push_hint(&mut spans, b, theme);
    }
    Line::from(spans)
}

fn hint_text(b: &keys::Binding) -> String {
    format!(
        " {}  ",
        b.description.split(" (").next().unwrap_or(b.description)
    )
}

fn hint_len(b: &keys::Binding) -> usize {
    b.short_label().chars().count() + hint_text(b).chars().count()
}

fn push_hint(spans: &mut Vec<Span<'static>>, b: &keys::Binding, theme: &Theme) {
    spans.push(Span::styled(b.short_label(), theme.key()));
    spans.push(Span::styled(hint_text(b), theme.dim()));
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
    let [legend, body] = Layout::vertical([Constraint::Length(4), Constraint::Min(0)]).areas(inner);
    frame.render_widget(
        Paragraph::new(vec![
            Line::styled("ripple explorer: every key", theme.bold()),
            Line::styled(
                "tree rows: hop · name · ~likely/?possible · [test] · [stable]/[active]/[off-limits] (ripple.toml) · ✎ accepted change · (cycle) · +N · file:line",
                theme.dim(),
            ),
            Line::styled(
                format!("row colour: hop inside the blast radius ({})", theme.hop_legend()),
                theme.dim(),
            ),
            Line::styled(
                "certain: one known target · ~likely: inferred through flow · ?possible: every implementation, or by name on an unknown receiver (docs/accuracy.md)",
                theme.dim(),
            ),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn text(line: &Line) -> String {
        line.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn help_and_quit_stay_visible_at_any_width() {
        let theme = Theme::no_color();
        for width in [60u16, 80, 120, 200] {
            let line = hint_bar(&[Context::Tree, Context::Global], width, &theme);
            let shown = text(&line);
            assert!(shown.contains("? help"), "{width}: {shown}");
            assert!(shown.contains("q quit"), "{width}: {shown}");
            assert!(shown.chars().count() <= width as usize, "{width}: {shown}");
        }
        let wide = text(&hint_bar(&[Context::Tree, Context::Global], 400, &theme));
        let narrow = text(&hint_bar(&[Context::Tree, Context::Global], 80, &theme));
        assert!(wide.len() > narrow.len(), "other hints fill the rest");
    }

    #[test]
    fn a_context_without_help_pins_nothing() {
        let theme = Theme::no_color();
        let shown = text(&hint_bar(&[Context::Prompt], 200, &theme));
        assert!(!shown.contains("q quit"), "{shown}");
    }
}

//! Colours and emphasis. Only the terminal's named ANSI colours are used, so
//! the user's palette decides the actual shade; selection is reverse video,
//! which works everywhere. Two sets of choices: on a dark background the
//! bright-reading ones (yellow, cyan), on a light one those that stay
//! readable on white (magenta, blue). The background is `RIPPLE_THEME`
//! (`light` or `dark`) when set, else what `COLORFGBG` says (rxvt, Konsole,
//! iTerm2 and others export it), else dark. With `NO_COLOR` set
//! (https://no-color.org) every colour is dropped and only bold, underline
//! and reverse remain, whatever the background.

use ratatui::style::{Color, Modifier, Style};

use crate::model::Confidence;

use super::highlight::Kind;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Background {
    Dark,
    Light,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    pub color: bool,
    pub background: Background,
}

impl Theme {
    pub const fn dark() -> Theme {
        Theme {
            color: true,
            background: Background::Dark,
        }
    }

    pub const fn light() -> Theme {
        Theme {
            color: true,
            background: Background::Light,
        }
    }

    pub const fn no_color() -> Theme {
        Theme {
            color: false,
            background: Background::Dark,
        }
    }

    pub fn from_env() -> Theme {
        let var = |name| std::env::var(name).ok();
        Theme::from_vars(
            var("NO_COLOR").as_deref(),
            var("RIPPLE_THEME").as_deref(),
            var("COLORFGBG").as_deref(),
        )
    }

    /// The theme for these values of `NO_COLOR`, `RIPPLE_THEME` and
    /// `COLORFGBG`. An unknown `RIPPLE_THEME` is passed over, as if unset.
    pub fn from_vars(
        no_color: Option<&str>,
        ripple_theme: Option<&str>,
        colorfgbg: Option<&str>,
    ) -> Theme {
        if no_color.is_some_and(|v| !v.is_empty()) {
            return Theme::no_color();
        }
        let chosen = match ripple_theme
            .map(|v| v.trim().to_ascii_lowercase())
            .as_deref()
        {
            Some("light") => Some(Background::Light),
            Some("dark") => Some(Background::Dark),
            _ => None,
        };
        let background = chosen
            .or_else(|| colorfgbg.and_then(background_of_colorfgbg))
            .unwrap_or(Background::Dark);
        Theme {
            color: true,
            background,
        }
    }

    /// `dark` on a dark background, `light` on a light one.
    fn pick(&self, dark: Color, light: Color) -> Color {
        match self.background {
            Background::Dark => dark,
            Background::Light => light,
        }
    }

    /// Titles, focused borders, keys: what the eye looks for first.
    fn accent(&self) -> Color {
        self.pick(Color::Cyan, Color::Blue)
    }

    /// Warnings and `likely` edges.
    fn caution(&self) -> Color {
        self.pick(Color::Yellow, Color::Magenta)
    }

    /// The hop colours in words, for the help screen's legend.
    pub fn hop_legend(&self) -> &'static str {
        match self.background {
            Background::Dark => "red 1, yellow 2, magenta 3, blue 4+",
            Background::Light => "red 1, magenta 2, blue 3, green 4+",
        }
    }

    fn fg(&self, c: Color) -> Style {
        if self.color {
            Style::new().fg(c)
        } else {
            Style::new()
        }
    }

    pub fn plain(&self) -> Style {
        Style::new()
    }

    pub fn dim(&self) -> Style {
        if self.color {
            Style::new().add_modifier(Modifier::DIM)
        } else {
            Style::new()
        }
    }

    pub fn bold(&self) -> Style {
        Style::new().add_modifier(Modifier::BOLD)
    }

    pub fn title(&self, focused: bool) -> Style {
        if focused {
            self.fg(self.accent()).add_modifier(Modifier::BOLD)
        } else {
            Style::new().add_modifier(Modifier::BOLD)
        }
    }

    pub fn border(&self, focused: bool) -> Style {
        if focused {
            self.fg(self.accent())
        } else {
            self.dim()
        }
    }

    pub fn selected(&self) -> Style {
        Style::new().add_modifier(Modifier::REVERSED)
    }

    /// Tree rows inside the blast radius, by hop: hotter near the root.
    pub fn hop(&self, hop: u32) -> Style {
        let c = match (hop, self.background) {
            (0, _) => return self.bold(),
            (1, _) => Color::Red,
            (2, Background::Dark) => Color::Yellow,
            (3, Background::Dark) => Color::Magenta,
            (_, Background::Dark) => Color::Blue,
            (2, Background::Light) => Color::Magenta,
            (3, Background::Light) => Color::Blue,
            (_, Background::Light) => Color::Green,
        };
        self.fg(c)
    }

    pub fn confidence(&self, c: Confidence) -> Style {
        match c {
            Confidence::Certain => self.plain(),
            Confidence::Likely => self.fg(self.caution()),
            Confidence::Possible => self
                .fg(self.pick(Color::Magenta, Color::Blue))
                .add_modifier(Modifier::ITALIC),
        }
    }

    pub fn test_badge(&self) -> Style {
        self.fg(Color::Green).add_modifier(Modifier::BOLD)
    }

    pub fn cycle(&self) -> Style {
        self.fg(self.accent())
    }

    pub fn warning(&self) -> Style {
        self.fg(self.caution()).add_modifier(Modifier::BOLD)
    }

    pub fn error(&self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }

    /// Lines a hunk adds.
    pub fn diff_add(&self) -> Style {
        self.fg(Color::Green)
    }

    /// Lines a hunk removes.
    pub fn diff_del(&self) -> Style {
        self.fg(Color::Red)
    }

    /// `@@` lines and hunk headers.
    pub fn diff_meta(&self) -> Style {
        self.fg(self.accent())
    }

    /// An accepted hunk, and the tree rows it changes.
    pub fn accepted(&self) -> Style {
        self.fg(Color::Green).add_modifier(Modifier::BOLD)
    }

    /// A stable interface: needs a second confirmation (red, bold even without colour).
    pub fn stable(&self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }

    pub fn key(&self) -> Style {
        self.fg(self.accent()).add_modifier(Modifier::BOLD)
    }

    /// The call site of the edge the user came through.
    pub fn call_site(&self) -> Style {
        Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD)
    }

    /// Gutter mark of the lines that belong to the shown declaration.
    pub fn decl_gutter(&self) -> Style {
        self.fg(self.accent())
    }

    pub fn syntax(&self, kind: Kind) -> Style {
        match kind {
            Kind::Keyword => self.fg(Color::Magenta).add_modifier(Modifier::BOLD),
            Kind::String => self.fg(Color::Green),
            Kind::Comment => self.fg(Color::DarkGray).add_modifier(Modifier::ITALIC),
            Kind::Function => self.fg(Color::Blue),
            Kind::Builtin => self.fg(self.accent()),
            Kind::Type => self.fg(self.accent()),
            Kind::Constant => self.fg(self.pick(Color::Yellow, Color::Red)),
            Kind::Number => self.fg(self.pick(Color::Yellow, Color::Red)),
            Kind::Escape => self.fg(Color::Red),
            Kind::Property | Kind::Variable | Kind::Operator | Kind::Punctuation => self.plain(),
        }
    }
}

/// The background `COLORFGBG` ("fg;bg", or "fg;default;bg") names: the
/// ANSI colours 7 and 9–15 are light, the others dark (vim reads it so).
fn background_of_colorfgbg(value: &str) -> Option<Background> {
    let bg: u8 = value.rsplit(';').next()?.trim().parse().ok()?;
    Some(match bg {
        7 | 9..=15 => Background::Light,
        _ => Background::Dark,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_color_wins_then_ripple_theme_then_colorfgbg_then_dark() {
        let t = Theme::from_vars;
        assert_eq!(t(Some("1"), Some("light"), Some("0;15")), Theme::no_color());
        assert_eq!(
            t(Some(""), None, Some("0;15")),
            Theme::light(),
            "empty NO_COLOR"
        );
        assert_eq!(t(None, Some("light"), Some("15;0")), Theme::light());
        assert_eq!(t(None, Some("DARK"), Some("0;15")), Theme::dark());
        assert_eq!(t(None, Some("solarized"), Some("0;15")), Theme::light());
        assert_eq!(t(None, None, Some("15;0")), Theme::dark());
        assert_eq!(t(None, None, Some("0;default;15")), Theme::light());
        assert_eq!(t(None, None, Some("12;7")), Theme::light());
        assert_eq!(t(None, None, Some("7;8")), Theme::dark());
        assert_eq!(t(None, None, Some("default;default")), Theme::dark());
        assert_eq!(t(None, None, None), Theme::dark());
    }

    #[test]
    fn the_light_theme_keeps_off_colours_that_vanish_on_white() {
        let light = Theme::light();
        let mut styles = vec![
            light.title(true),
            light.border(true),
            light.confidence(Confidence::Likely),
            light.confidence(Confidence::Possible),
            light.cycle(),
            light.warning(),
            light.diff_meta(),
            light.key(),
            light.decl_gutter(),
        ];
        styles.extend((0..6).map(|h| light.hop(h)));
        styles.extend(
            [
                Kind::Keyword,
                Kind::String,
                Kind::Comment,
                Kind::Function,
                Kind::Builtin,
                Kind::Type,
                Kind::Constant,
                Kind::Number,
                Kind::Escape,
            ]
            .map(|k| light.syntax(k)),
        );
        for s in styles {
            assert!(
                !matches!(s.fg, Some(Color::Yellow | Color::Cyan | Color::White)),
                "{s:?}"
            );
        }
        assert_eq!(Theme::dark().key().fg, Some(Color::Cyan));
        assert_eq!(light.key().fg, Some(Color::Blue));
    }
}

//! Colours and emphasis. Only the terminal's named ANSI colours are used, so
//! the user's palette decides the actual shade and the explorer stays readable
//! on light and dark backgrounds alike; selection is reverse video, which works
//! everywhere. With `NO_COLOR` set (https://no-color.org) every colour is
//! dropped and only bold, underline and reverse remain.

use ratatui::style::{Color, Modifier, Style};

use crate::model::Confidence;

use super::highlight::Kind;

#[derive(Debug, Clone, Copy)]
pub struct Theme {
    pub color: bool,
}

impl Theme {
    /// Colour unless `NO_COLOR` is set to a non-empty value.
    pub fn from_env() -> Theme {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Theme { color: !no_color }
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
            self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
        } else {
            Style::new().add_modifier(Modifier::BOLD)
        }
    }

    pub fn border(&self, focused: bool) -> Style {
        if focused {
            self.fg(Color::Cyan)
        } else {
            self.dim()
        }
    }

    pub fn selected(&self) -> Style {
        Style::new().add_modifier(Modifier::REVERSED)
    }

    /// Tree rows inside the blast radius, by hop: hotter near the root.
    pub fn hop(&self, hop: u32) -> Style {
        let c = match hop {
            0 => return self.bold(),
            1 => Color::Red,
            2 => Color::Yellow,
            3 => Color::Magenta,
            _ => Color::Blue,
        };
        self.fg(c)
    }

    pub fn confidence(&self, c: Confidence) -> Style {
        match c {
            Confidence::Certain => self.plain(),
            Confidence::Likely => self.fg(Color::Yellow),
            Confidence::Possible => self.fg(Color::Magenta).add_modifier(Modifier::ITALIC),
        }
    }

    pub fn test_badge(&self) -> Style {
        self.fg(Color::Green).add_modifier(Modifier::BOLD)
    }

    pub fn cycle(&self) -> Style {
        self.fg(Color::Cyan)
    }

    pub fn warning(&self) -> Style {
        self.fg(Color::Yellow).add_modifier(Modifier::BOLD)
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
        self.fg(Color::Cyan)
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
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }

    /// The call site of the edge the user came through.
    pub fn call_site(&self) -> Style {
        Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD)
    }

    /// Gutter mark of the lines that belong to the shown declaration.
    pub fn decl_gutter(&self) -> Style {
        self.fg(Color::Cyan)
    }

    pub fn syntax(&self, kind: Kind) -> Style {
        match kind {
            Kind::Keyword => self.fg(Color::Magenta).add_modifier(Modifier::BOLD),
            Kind::String => self.fg(Color::Green),
            Kind::Comment => self.fg(Color::DarkGray).add_modifier(Modifier::ITALIC),
            Kind::Function => self.fg(Color::Blue),
            Kind::Builtin => self.fg(Color::Cyan),
            Kind::Type => self.fg(Color::Cyan),
            Kind::Constant => self.fg(Color::Yellow),
            Kind::Number => self.fg(Color::Yellow),
            Kind::Escape => self.fg(Color::Red),
            Kind::Property | Kind::Variable | Kind::Operator | Kind::Punctuation => self.plain(),
        }
    }
}

//! Where each pane goes for a terminal size. One pure function, used by
//! drawing and by mouse hit-testing and paging, so they always agree.

use ratatui::layout::{Constraint, Layout, Rect};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Areas {
    pub status: Rect,
    pub main: Rect,
    pub hints: Rect,
    pub tree: Rect,
    pub source: Rect,
    pub blast: Rect,
}

/// Below this width the blast radius goes under the source instead of beside it.
const THREE_COLUMNS: u16 = 110;

pub fn areas(size: Rect) -> Areas {
    let [status, main, hints] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(1),
    ])
    .areas(size);
    let (tree, source, blast) = if main.width >= THREE_COLUMNS {
        let [t, s, b] = Layout::horizontal([
            Constraint::Percentage(34),
            Constraint::Percentage(40),
            Constraint::Percentage(26),
        ])
        .areas(main);
        (t, s, b)
    } else {
        let [t, right] =
            Layout::horizontal([Constraint::Percentage(45), Constraint::Percentage(55)])
                .areas(main);
        let [s, b] =
            Layout::vertical([Constraint::Percentage(60), Constraint::Percentage(40)]).areas(right);
        (t, s, b)
    };
    Areas {
        status,
        main,
        hints,
        tree,
        source,
        blast,
    }
}

/// The main area while a migration is under review: the call tree on the
/// left, the review pane (instead of source and blast radius) on the right.
pub fn review_split(main: Rect) -> (Rect, Rect) {
    let [t, r] =
        Layout::horizontal([Constraint::Percentage(36), Constraint::Percentage(64)]).areas(main);
    (t, r)
}

/// Rows inside a bordered box.
pub fn inner_height(r: Rect) -> usize {
    r.height.saturating_sub(2) as usize
}

pub fn contains(r: Rect, col: u16, row: u16) -> bool {
    col >= r.x && col < r.x + r.width && row >= r.y && row < r.y + r.height
}

//! Progress bars on stderr for long work (indexing, embedding).

use super::*;

pub(super) struct Bar(pub(super) Option<indicatif::ProgressBar>);

impl Progress for Bar {
    fn start(&self, total: usize) {
        if let Some(b) = &self.0 {
            b.set_length(total as u64);
            if total > 200 {
                b.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            }
        }
    }
    fn tick(&self) {
        if let Some(b) = &self.0 {
            b.inc(1);
        }
    }
    fn finish(&self) {
        if let Some(b) = &self.0 {
            b.finish_and_clear();
        }
    }
}

pub(super) fn progress_bar() -> Bar {
    bar_with("{spinner} parsing {pos}/{len} files {wide_bar} {eta}")
}

/// A progress bar on stderr (none when stderr is not a terminal); it stays
/// hidden until `start` says the work is long enough to show.
pub(super) fn bar_with(template: &str) -> Bar {
    if !std::io::stderr().is_terminal() {
        return Bar(None);
    }
    let bar =
        indicatif::ProgressBar::with_draw_target(Some(0), indicatif::ProgressDrawTarget::hidden());
    bar.set_style(
        indicatif::ProgressStyle::with_template(template)
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    Bar(Some(bar))
}

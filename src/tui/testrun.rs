//! The test-run pane (`t`): the tests the graph says reach a declaration,
//! run by [`crate::testrun`] on a thread of its own, their output streaming
//! in. The pane shows the commands, running / passed / failed, and the tail
//! of the output; esc or ctrl-c cancels a run (the child is killed). Like a
//! migration, a run is tagged with a session so a cancelled or replaced
//! run's late lines are dropped.

use std::sync::Arc;
use std::sync::mpsc::Sender;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::llm::CancelToken;
use crate::terminal_text::counted;
use crate::testrun::{self, RunEvent, RunOutcome, TestPlan};

use super::Event;
use super::theme::Theme;

/// Output lines kept per run: the tail is what matters.
const KEEP_LINES: usize = 5_000;

/// Where test runs happen.
pub enum TestRunner {
    /// On a thread of its own, reporting as [`Event::Tests`] (the explorer).
    Thread(Sender<Event>),
    /// To its end on the caller's thread when started (deterministic tests).
    Inline,
}

#[derive(Debug, Clone)]
pub enum TestMsg {
    Run(RunEvent),
    Finished(Result<RunOutcome, String>),
}

/// A message of test run `session`.
#[derive(Debug, Clone)]
pub struct TestUpdate {
    pub session: u64,
    pub msg: TestMsg,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunStatus {
    Running,
    Done(RunOutcome),
    Error(String),
}

pub struct TestRun {
    pub session: u64,
    /// What the tests reach (a display name).
    pub target: String,
    pub plan: TestPlan,
    pub status: RunStatus,
    pub output: Vec<String>,
    /// Manual scroll from the top; `None` follows the tail.
    pub scroll: Option<usize>,
    pub cancel: CancelToken,
    /// The running command's process (group), to kill when the explorer
    /// quits before the run's thread could.
    pid: Option<u32>,
}

impl TestRun {
    pub fn new(session: u64, target: String, plan: TestPlan) -> TestRun {
        TestRun {
            session,
            target,
            plan,
            status: RunStatus::Running,
            output: Vec::new(),
            scroll: None,
            cancel: CancelToken::new(),
            pid: None,
        }
    }

    pub fn is_running(&self) -> bool {
        self.status == RunStatus::Running
    }

    /// Stop the run now, from this thread: the explorer is exiting and
    /// the run's own thread dies with it, before it could kill the child.
    pub fn kill_now(&mut self) {
        self.cancel.cancel();
        if let Some(pid) = self.pid.take() {
            testrun::kill_group(pid);
        }
    }

    pub fn on_msg(&mut self, msg: TestMsg) {
        match msg {
            TestMsg::Run(RunEvent::Started { command, pid }) => {
                self.pid = Some(pid);
                self.push(format!("$ {command}"));
            }
            TestMsg::Run(RunEvent::Line(l)) => self.push(l),
            TestMsg::Run(RunEvent::Exited(code)) => {
                self.pid = None;
                self.push(match code {
                    Some(c) => format!("[exit {c}]"),
                    None => "[killed by a signal]".to_owned(),
                })
            }
            TestMsg::Finished(Ok(outcome)) => {
                self.pid = None;
                self.status = RunStatus::Done(outcome);
            }
            TestMsg::Finished(Err(e)) => self.status = RunStatus::Error(e),
        }
    }

    fn push(&mut self, line: String) {
        if self.output.len() >= KEEP_LINES {
            self.output.drain(..KEEP_LINES / 10);
        }
        self.output.push(expand_tabs(&line));
    }

    /// Scroll by `delta` screen rows of the pane drawn in `area` (a long
    /// line takes as many rows as it wraps to).
    pub fn scroll_by(&mut self, delta: isize, area: Rect) {
        let height = self.output_height(area);
        let max = self.wrapped_rows(output_width(area)).saturating_sub(height);
        let from = self.scroll.unwrap_or(max) as isize;
        let to = (from + delta).clamp(0, max as isize) as usize;
        // Back at the bottom: follow the tail again.
        self.scroll = (to < max).then_some(to);
    }

    /// The pane's area: most of the main area, like the finder.
    pub fn area(main: Rect) -> Rect {
        let w = (main.width * 9 / 10).max(20.min(main.width));
        let h = (main.height * 4 / 5).max(8.min(main.height));
        Rect::new(
            main.x + (main.width - w) / 2,
            main.y + (main.height - h) / 2,
            w,
            h,
        )
    }

    /// Screen rows the whole output takes at `width` columns.
    fn wrapped_rows(&self, width: usize) -> usize {
        self.output.iter().map(|l| wrap(l, width).len()).sum()
    }

    /// Rows of output shown in `area`.
    pub fn output_height(&self, area: Rect) -> usize {
        (area.height as usize).saturating_sub(2 + self.header_len() + 1)
    }

    /// The counts line and the rule under it (each command is echoed
    /// into the output as `$ command` when it starts).
    fn header_len(&self) -> usize {
        1
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        frame.render_widget(Clear, area);
        let (label, style) = match &self.status {
            RunStatus::Running => ("running… (esc cancels)".to_owned(), theme.warning()),
            RunStatus::Done(RunOutcome::Passed) => ("PASSED".to_owned(), theme.accepted()),
            RunStatus::Done(RunOutcome::Failed { code, .. }) => (
                match code {
                    Some(c) => format!("FAILED (exit {c})"),
                    None => "FAILED (killed by a signal)".to_owned(),
                },
                theme.error(),
            ),
            RunStatus::Done(RunOutcome::Cancelled) => ("cancelled".to_owned(), theme.warning()),
            RunStatus::Error(e) => (format!("error: {e}"), theme.error()),
        };
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border(true))
            .title(Span::styled(
                format!(" tests reaching {} ", self.target),
                theme.title(true),
            ))
            .title_bottom(Span::styled(format!(" {label} "), style));
        let inner = block.inner(area);
        frame.render_widget(block, area);
        let mut lines = Vec::new();
        let skipped = if self.plan.not_selectable > 0 {
            format!(
                " ({} in test files run through these)",
                counted(self.plan.not_selectable, "helper", "helpers")
            )
        } else {
            String::new()
        };
        lines.push(Line::from(vec![
            Span::styled(
                format!(
                    "all depths: {} reach it; {} in {}{skipped} · ",
                    counted(self.plan.reaching, "test", "tests"),
                    counted(self.plan.test_count(), "runs", "run"),
                    counted(self.plan.invocations.len(), "command", "commands")
                ),
                theme.dim(),
            ),
            Span::styled(label.clone(), style),
        ]));
        lines.push(Line::styled("─".repeat(inner.width as usize), theme.dim()));
        let height = self.output_height(area);
        let width = output_width(area);
        let max = self.wrapped_rows(width).saturating_sub(height);
        let from = self.scroll.unwrap_or(max).min(max);
        // Test output is read whole (a failing assertion's values, a long
        // path): long lines wrap, in the line's own style.
        let rows = self.output.iter().flat_map(|l| {
            let style = if l.starts_with("$ ") {
                theme.key()
            } else if l.starts_with("[exit 0]") {
                theme.accepted()
            } else if l.starts_with("[exit") || l.starts_with("[killed") {
                theme.error()
            } else {
                theme.plain()
            };
            wrap(l, width).into_iter().map(move |row| (row, style))
        });
        for (row, style) in rows.skip(from).take(height) {
            lines.push(Line::styled(row.to_owned(), style));
        }
        frame.render_widget(Paragraph::new(lines), inner);
    }
}

/// Columns of output inside the pane's borders.
fn output_width(area: Rect) -> usize {
    (area.width as usize).saturating_sub(2).max(1)
}

/// `line` cut into pieces of at most `width` columns (at least one piece,
/// so an empty line keeps its row). Characters are never split: a wide
/// one that would straddle the edge starts the next piece.
fn wrap(line: &str, width: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut used = 0;
    for (i, c) in line.char_indices() {
        let mut buf = [0u8; 4];
        let w = Span::raw(&*c.encode_utf8(&mut buf)).width();
        if used + w > width && i > start {
            out.push(&line[start..i]);
            start = i;
            used = 0;
        }
        used += w;
    }
    out.push(&line[start..]);
    out
}

/// Tabs to spaces at 8-column stops: the terminal would not draw them
/// (`go test` separates its columns with tabs).
fn expand_tabs(line: &str) -> String {
    if !line.contains('\t') {
        return line.to_owned();
    }
    let mut out = String::with_capacity(line.len() + 8);
    let mut col = 0;
    for c in line.chars() {
        if c == '\t' {
            let n = 8 - col % 8;
            out.extend(std::iter::repeat_n(' ', n));
            col += n;
        } else {
            out.push(c);
            col += 1;
        }
    }
    out
}

/// Run `plan` in `root` to its end, reporting through `send`.
pub fn run_tests(
    root: &std::path::Path,
    plan: &TestPlan,
    cancel: &CancelToken,
    send: &mut dyn FnMut(TestMsg),
) {
    let result = testrun::run(root, plan, cancel, &mut |ev| send(TestMsg::Run(ev)));
    send(TestMsg::Finished(result.map_err(|e| e.to_string())));
}

/// Start [`run_tests`] on a thread of its own.
pub fn spawn_tests(
    root: Arc<std::path::Path>,
    plan: TestPlan,
    cancel: CancelToken,
    mut send: impl FnMut(TestMsg) + Send + 'static,
) {
    std::thread::Builder::new()
        .name("ripple-tests".into())
        .spawn(move || run_tests(&root, &plan, &cancel, &mut send))
        .expect("cannot start the test thread");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_wrap_at_the_width_without_splitting_characters() {
        assert_eq!(wrap("abcdefg", 3), ["abc", "def", "g"]);
        assert_eq!(wrap("abc", 3), ["abc"]);
        assert_eq!(wrap("", 3), [""]);
        // Wide characters take two columns: never cut in half.
        assert_eq!(wrap("a漢字b", 3), ["a漢", "字b"]);
    }

    #[test]
    fn go_test_columns_keep_their_tabs_as_spaces() {
        assert_eq!(
            expand_tabs("ok  \tgithub.com/acme/shipd/cmd/shipd\t0.006s"),
            "ok      github.com/acme/shipd/cmd/shipd 0.006s"
        );
    }
}

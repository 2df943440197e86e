//! The explorer: an interactive terminal UI over the call graph (what
//! `ripple PATH` opens in a terminal).
//!
//! Data flow, one direction only (yazi's and gitui's habits):
//! threads — terminal input, the [indexer](indexer) (first index, refreshes),
//! the [watcher](watch), the [worker](jobs) (highlighting, blast radius,
//! finder) — send [`Event`]s into one channel; the loop in [`run`] drains
//! every queued event into [`App::handle`], the only place state changes,
//! then draws once if anything changed. Nothing redraws while idle.
//!
//! Panes: [`tree`] (callers/callees), [`source`], [`radius`] (blast radius),
//! plus the [`overview`], the [`finder`], the migration [`review`], the
//! [`testrun`] output, the [`search`] pane, the review [`findings`], the
//! command [`palette`] and the [`help`], the last two generated from the
//! one key table in [`keys`]. `E` hands the terminal to the user's
//! [`editor`] from the event loop, which owns the terminal.

mod app;
pub mod bench;
mod clipboard;
pub mod editor;
mod finder;
mod findings;
mod fuzzy;
mod help;
mod highlight;
mod indexer;
mod jobs;
pub mod keys;
pub mod layout;
mod overview;
mod palette;
mod radius;
pub mod review;
mod search;
mod snapshot;
mod source;
mod testrun;
mod theme;
mod tree;
mod watch;

use std::io::{self, Stdout};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

pub use app::{App, DEFAULT_DEPTH, Migrator, Screen};
pub use clipboard::Clipboard;
pub use highlight::{HighlightRequest, Highlighter, Highlights, Kind};
pub use indexer::{IndexStatus, Indexed, Indexer};
pub use jobs::{JobResult, Jobs};
pub use review::{Finished, MigrateMsg, MigrateUpdate};
pub use snapshot::{Overview, PackageRow, Snapshot};
pub use testrun::{TestMsg, TestRunner, TestUpdate};
pub use theme::Theme;

use crate::index::{Index, IndexError, NoProgress};

/// Everything that can change the explorer's state.
pub enum Event {
    /// A key, mouse or resize event from the terminal.
    Input(crossterm::event::Event),
    /// Progress of the index being built.
    Progress(IndexStatus),
    /// An index (first or refreshed) is ready, or failed.
    Indexed(Box<Indexed>),
    /// The watcher saw a change that may alter the index.
    FilesChanged,
    /// A worker job finished.
    Job(JobResult),
    /// A running migration reported progress.
    Migrate(Box<MigrateUpdate>),
    /// A test run reported output or ended.
    Tests(Box<TestUpdate>),
    /// SIGTERM, SIGHUP or SIGINT: end as on a quit key, so the terminal
    /// is handed back in the state it was found.
    Terminate(i32),
}

impl Event {
    /// A loaded snapshot, as the indexer would report it.
    pub fn indexed(snap: Arc<Snapshot>) -> Event {
        Event::Indexed(Box::new(Indexed {
            generation: 1,
            result: Ok(snap),
            elapsed: Duration::ZERO,
        }))
    }
}

/// Index `root` synchronously and derive the explorer's snapshot (tests, benchmarks).
pub fn load(root: &Path, db: Option<&Path>) -> Result<Arc<Snapshot>, IndexError> {
    Ok(Arc::new(Snapshot::new(Index::open_with(
        root,
        db,
        &NoProgress,
    )?)))
}

#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    #[error("{} is not a directory", path.display())]
    NotADirectory { path: PathBuf },
    #[error("terminal: {0}")]
    Terminal(#[from] io::Error),
}

/// At most one frame per this interval; events arriving meanwhile are batched.
const FRAME: Duration = Duration::from_millis(10);

/// How the explorer ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// The user quit.
    Quit,
    /// A signal ended it; the process should exit with 128 + the signal.
    Signal(i32),
}

/// Open the explorer on `root` until the user quits or a signal ends it.
/// The first frame is drawn at once; the index is built in the background.
pub fn run(root: &Path, llm: crate::llm::trust::LlmFlags) -> Result<Ended, TuiError> {
    if !root.is_dir() {
        return Err(TuiError::NotADirectory {
            path: root.to_path_buf(),
        });
    }
    let root = root.canonicalize()?;
    let (tx, rx) = mpsc::channel();
    let mut app = App::new(root.clone(), Jobs::spawn(tx.clone()), Theme::from_env());
    app.set_indexer(indexer::Indexer::spawn(root.clone(), None, tx.clone()));
    app.set_migrator(Migrator::Thread(tx.clone()));
    app.set_llm_flags(llm);
    app.set_test_runner(TestRunner::Thread(tx.clone()));
    // Watching is a convenience: without it (inotify limits) the explorer still works.
    let _watcher = watch::watch(&root, tx.clone()).ok();

    let mut terminal = TerminalGuard::enter()?;
    let signalled = Arc::new(AtomicI32::new(0));
    let signals = spawn_signals(tx.clone(), signalled.clone())?;
    let input = Arc::new(InputControl::default());
    spawn_input(tx, input.clone());
    let size = terminal.terminal.size()?;
    app.resize(size.width, size.height);
    let result = event_loop(&mut terminal.terminal, &mut app, &rx, &input);
    app.shutdown();
    input.stop.store(true, Ordering::Relaxed);
    drop(terminal);
    signals.close();
    result.map_err(TuiError::from)?;
    Ok(match signalled.load(Ordering::SeqCst) {
        0 => Ended::Quit,
        sig => Ended::Signal(sig),
    })
}

/// How long the explorer has to wind down after a signal before the
/// signal thread restores the terminal and exits on its own.
const SIGNAL_GRACE: Duration = Duration::from_secs(2);

/// Turn SIGTERM, SIGHUP and SIGINT into [`Event::Terminate`]. Their default
/// action would end the process with the terminal still on the alternate
/// screen, tracking the mouse, the cursor hidden. Should the loop not end
/// within [`SIGNAL_GRACE`] (or a second signal come), the terminal is
/// restored here and the process exits.
fn spawn_signals(
    tx: Sender<Event>,
    signalled: Arc<AtomicI32>,
) -> io::Result<signal_hook::iterator::Handle> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGHUP, SIGINT])?;
    let handle = signals.handle();
    std::thread::Builder::new()
        .name("ripple-signals".into())
        .spawn(move || {
            for sig in signals.forever() {
                if signalled.swap(sig, Ordering::SeqCst) != 0
                    || tx.send(Event::Terminate(sig)).is_err()
                {
                    exit_on_signal(sig);
                }
                std::thread::spawn(move || {
                    std::thread::sleep(SIGNAL_GRACE);
                    exit_on_signal(sig);
                });
            }
        })?;
    Ok(handle)
}

fn exit_on_signal(sig: i32) -> ! {
    restore_terminal();
    std::process::exit(128 + sig);
}

fn event_loop(
    terminal: &mut Terminal<CrosstermBackend<Stdout>>,
    app: &mut App,
    rx: &Receiver<Event>,
    input: &InputControl,
) -> io::Result<()> {
    terminal.draw(|f| app.draw(f))?;
    app.mark_drawn();
    let mut last_draw = Instant::now();
    loop {
        let Ok(event) = rx.recv() else {
            return Ok(());
        };
        app.handle(event);
        // Drain everything queued, and whatever arrives before the next
        // frame is due, then draw once.
        loop {
            for event in rx.try_iter() {
                app.handle(event);
            }
            if app.should_quit() {
                return Ok(());
            }
            let since = last_draw.elapsed();
            if since >= FRAME {
                break;
            }
            match rx.recv_timeout(FRAME - since) {
                Ok(event) => app.handle(event),
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => return Ok(()),
            }
        }
        if app.should_quit() {
            return Ok(());
        }
        if let Some(req) = app.take_edit_request() {
            let result = run_editor(terminal, input, &req)?;
            app.edited(&req, result);
        }
        if app.is_dirty() {
            terminal.draw(|f| app.draw(f))?;
            app.mark_drawn();
            last_draw = Instant::now();
        }
    }
}

/// Hand the terminal to the user's editor and take it back: the editor
/// needs cooked mode, the main screen and no mouse tracking, and the input
/// thread must not read the keys meant for it. The editor's own failure is
/// the `Ok(Err)` for the status line; only a terminal that cannot be taken
/// back is an error here.
fn run_editor(
    terminal: &mut Terminal<CrosstermBackend<Stdout>>,
    input: &InputControl,
    req: &editor::EditRequest,
) -> io::Result<Result<(), String>> {
    input.pause();
    restore_terminal();
    let result = editor::run(&editor::from_env(), req);
    enable_raw_mode()?;
    execute!(io::stdout(), EnterAlternateScreen, EnableMouseCapture)?;
    // The screen under the alternate one is not what ratatui last drew.
    terminal.clear()?;
    input.resume();
    Ok(result)
}

/// Tells the input thread to stop for good, or to stay off the terminal
/// while another program (the editor) reads it.
#[derive(Default)]
struct InputControl {
    stop: AtomicBool,
    pause: AtomicBool,
    /// The thread has seen `pause` and is not polling.
    parked: AtomicBool,
}

impl InputControl {
    /// Return once the input thread is parked (it polls for at most
    /// [`INPUT_POLL`] at a time).
    fn pause(&self) {
        self.pause.store(true, Ordering::SeqCst);
        let deadline = Instant::now() + INPUT_POLL * 5;
        while !self.parked.load(Ordering::SeqCst) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    fn resume(&self) {
        // Cleared here, not only by the thread: a pause right after this
        // one must wait for the thread to park again.
        self.parked.store(false, Ordering::SeqCst);
        self.pause.store(false, Ordering::SeqCst);
    }
}

const INPUT_POLL: Duration = Duration::from_millis(100);

fn spawn_input(tx: Sender<Event>, control: Arc<InputControl>) {
    std::thread::Builder::new()
        .name("ripple-input".into())
        .spawn(move || {
            while !control.stop.load(Ordering::Relaxed) {
                if control.pause.load(Ordering::SeqCst) {
                    control.parked.store(true, Ordering::SeqCst);
                    std::thread::sleep(Duration::from_millis(10));
                    continue;
                }
                control.parked.store(false, Ordering::SeqCst);
                // Poll so the thread notices `stop` and never reads input
                // after the terminal is handed back.
                match crossterm::event::poll(INPUT_POLL) {
                    Ok(true) => match crossterm::event::read() {
                        Ok(ev) => {
                            if tx.send(Event::Input(ev)).is_err() {
                                return;
                            }
                        }
                        Err(_) => return,
                    },
                    Ok(false) => {}
                    Err(_) => return,
                }
            }
        })
        .expect("cannot start the input thread");
}

/// Raw mode, the alternate screen and mouse capture, undone on drop, on
/// error and on panic (the panic hook restores the terminal before the
/// message is printed, so the message is readable).
struct TerminalGuard {
    terminal: Terminal<CrosstermBackend<Stdout>>,
}

impl TerminalGuard {
    fn enter() -> io::Result<TerminalGuard> {
        install_panic_hook();
        enable_raw_mode()?;
        let mut out = io::stdout();
        if let Err(e) = execute!(out, EnterAlternateScreen, EnableMouseCapture) {
            restore_terminal();
            return Err(e);
        }
        match Terminal::new(CrosstermBackend::new(out)) {
            Ok(terminal) => Ok(TerminalGuard { terminal }),
            Err(e) => {
                restore_terminal();
                Err(e)
            }
        }
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore_terminal();
    }
}

fn restore_terminal() {
    let _ = disable_raw_mode();
    let _ = execute!(
        io::stdout(),
        DisableMouseCapture,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
}

fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore_terminal();
        previous(info);
        // A panic on a worker thread would otherwise leave the UI running
        // on a terminal that is no longer in raw mode.
        std::process::exit(101);
    }));
}

/// The repository as the user named it: relative to the working directory
/// when inside it (`assets/demo`), its own name when it is the working
/// directory, else with `~` for the home directory.
/// Shorter than an absolute path, and the same on every checkout.
pub fn display_root(root: &std::path::Path) -> String {
    if let Ok(cwd) = std::env::current_dir()
        && let Ok(cwd) = cwd.canonicalize()
        && let Ok(rel) = root.strip_prefix(&cwd)
    {
        let rel = rel.display().to_string();
        if !rel.is_empty() {
            return rel;
        }
        // Started inside the repository: its name says more than `.`.
        if let Some(name) = root.file_name() {
            return name.to_string_lossy().into_owned();
        }
        return root.display().to_string();
    }
    if let Some(home) = std::env::var_os("HOME").map(std::path::PathBuf::from)
        && let Ok(rel) = root.strip_prefix(&home)
        && !home.as_os_str().is_empty()
    {
        return format!("~/{}", rel.display());
    }
    root.display().to_string()
}

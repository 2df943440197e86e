//! The explorer's state and the only place it changes. [`App::handle`] takes
//! one [`Event`] at a time (input, index ready, files changed, a worker
//! result) and marks the screen dirty; [`App::draw`] only reads. Keys are
//! routed innermost first — help, finder, the focused pane, then global —
//! through the one key table.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::Sender;

use crossterm::event::{Event as Input, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use ratatui_textarea::TextArea;

use crate::edits::{self, EditBlock, HunkId, HunkState, PathOrigin, Resolution};
use crate::graph::Direction;
use crate::llm::CancelToken;
use crate::llm::trust::LlmFlags;
use crate::resolve::DeclId;
use crate::semantic::SearchIndex;
use crate::terminal_text::counted;

mod blast;
mod filter;
mod mouse;
mod place;

use super::Event;
use super::clipboard::Clipboard;
use super::editor::EditRequest;
use super::finder::Finder;
use super::findings::FindingsList;
use super::help;
use super::indexer::{IndexStatus, Indexed, Indexer};
use super::jobs::{Job, JobResult, Jobs};
use super::keys::{Action, Context, action_for};
use super::layout::{self, Areas};
use super::overview::{OverviewState, Pick};
use super::palette::Palette;
use super::radius::{self, BlastCursor, BlastView};
use super::review::{self, MigrateUpdate, Review, Status};
use super::search::{NeuralStatus, SearchKind, SearchPane};
use super::snapshot::Snapshot;
use super::source::{CallMark, FileText, SourceView};
use super::testrun::{self, TestMsg, TestRun, TestRunner, TestUpdate};
use super::theme::Theme;
use super::tree::{CallTree, TreeView};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    Overview,
    Explorer,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    Tree,
    Source,
    Blast,
    /// The migration review (replaces source and blast radius while open).
    Review,
}

impl Pane {
    fn context(self) -> Context {
        match self {
            Pane::Tree => Context::Tree,
            Pane::Source => Context::Source,
            Pane::Blast => Context::Blast,
            Pane::Review => Context::Review,
        }
    }

    fn next(self, delta: isize) -> Pane {
        const ALL: [Pane; 3] = [Pane::Tree, Pane::Source, Pane::Blast];
        let i = ALL.iter().position(|&p| p == self).unwrap_or(0) as isize;
        ALL[(i + delta).rem_euclid(3) as usize]
    }
}

/// Where a migration runs.
pub enum Migrator {
    /// On a thread of its own, reporting as [`Event::Migrate`] (the explorer).
    Thread(Sender<Event>),
    /// To its end on the caller's thread when submitted (deterministic tests).
    Inline,
    /// Not at all: the test drives the review with [`Event::Migrate`].
    Manual,
}

/// The `m` prompt: the change to describe for `target`.
struct Prompt {
    target: DeclId,
    text: TextArea<'static>,
}

/// A hunk's replacement being edited in place.
struct HunkEdit {
    id: HunkId,
    title: String,
    text: TextArea<'static>,
}

pub const DEFAULT_DEPTH: u32 = 3;
const MAX_DEPTH: u32 = 9;
const FILE_CACHE: usize = 8;

/// Everything `[` and `]` bring back, and a refresh keeps. Declarations are
/// held by qualified name, not id: ids change when the index is refreshed
/// between leaving a view and returning to it.
#[derive(Debug, Clone)]
struct ViewState {
    root: String,
    dir: Direction,
    depth: u32,
    /// Name paths (root first) of the expanded nodes.
    expanded: Vec<Vec<String>>,
    /// Name path of the selected node.
    selected: Vec<String>,
    tree_offset: usize,
    /// Where the user scrolled the source to; `None` while it follows the
    /// selected declaration.
    source_scroll: Option<usize>,
    blast_scroll: usize,
    /// The tree's filter (`f`).
    filter: Option<String>,
}

pub struct App {
    root_path: PathBuf,
    theme: Theme,
    size: Rect,
    snap: Option<Arc<Snapshot>>,
    index_status: Option<IndexStatus>,
    index_error: Option<String>,
    refreshing: bool,
    message: Option<String>,
    screen: Screen,
    pane: Pane,
    tree: Option<CallTree>,
    dir: Direction,
    depth: u32,
    blast: Option<BlastView>,
    blast_cursor: BlastCursor,
    blast_generation: u64,
    source: SourceView,
    source_generation: u64,
    files: Vec<Arc<FileText>>,
    finder: Option<Finder>,
    help: Option<usize>,
    back: Vec<ViewState>,
    forward: Vec<ViewState>,
    overview: OverviewState,
    jobs: Jobs,
    indexer: Option<Indexer>,
    review: Option<Review>,
    prompt: Option<Prompt>,
    editor: Option<HunkEdit>,
    migrator: Migrator,
    llm_flags: LlmFlags,
    sessions: u64,
    test_runner: TestRunner,
    tests: Option<TestRun>,
    findings: Option<FindingsList>,
    search: Option<SearchPane>,
    /// The search index and the snapshot it was built from.
    search_index: Option<(Arc<Snapshot>, Arc<SearchIndex>)>,
    /// A search index is being built for the current snapshot.
    search_building: bool,
    /// Where the search index's embedding stands.
    neural: NeuralStatus,
    /// `E` was pressed: the event loop hands the terminal to the editor.
    edit_request: Option<EditRequest>,
    /// Where `y` and `Y` send what they copy.
    clipboard: Clipboard,
    /// The tree filter being typed (`f`).
    filter_input: Option<String>,
    palette: Option<Palette>,
    quit: bool,
    dirty: bool,
}

impl App {
    pub fn new(root_path: PathBuf, jobs: Jobs, theme: Theme) -> App {
        App {
            root_path,
            theme,
            size: Rect::new(0, 0, 80, 24),
            snap: None,
            index_status: Some(IndexStatus::Scanning),
            index_error: None,
            refreshing: false,
            message: None,
            screen: Screen::Overview,
            pane: Pane::Tree,
            tree: None,
            dir: Direction::Callers,
            depth: DEFAULT_DEPTH,
            blast: None,
            blast_cursor: BlastCursor::default(),
            blast_generation: 0,
            source: SourceView::default(),
            source_generation: 0,
            files: Vec::new(),
            finder: None,
            help: None,
            back: Vec::new(),
            forward: Vec::new(),
            overview: OverviewState::default(),
            jobs,
            indexer: None,
            review: None,
            prompt: None,
            editor: None,
            migrator: Migrator::Inline,
            llm_flags: LlmFlags::default(),
            sessions: 0,
            test_runner: TestRunner::Inline,
            tests: None,
            findings: None,
            search: None,
            search_index: None,
            search_building: false,
            neural: NeuralStatus::Off,
            edit_request: None,
            clipboard: Clipboard::terminal(),
            filter_input: None,
            palette: None,
            quit: false,
            dirty: true,
        }
    }

    /// Where file-change refreshes are sent.
    pub fn set_indexer(&mut self, indexer: Indexer) {
        self.indexer = Some(indexer);
    }

    /// How `m` runs migrations (a thread in the explorer, inline by default).
    pub fn set_migrator(&mut self, migrator: Migrator) {
        self.migrator = migrator;
    }

    /// The model choices given on the command line, over `ripple.toml`.
    pub fn set_llm_flags(&mut self, flags: LlmFlags) {
        self.llm_flags = flags;
    }

    /// Where `y` and `Y` write their OSC 52 sequence (the terminal by default).
    pub fn set_clipboard(&mut self, clipboard: Clipboard) {
        self.clipboard = clipboard;
    }

    /// How `t` runs tests (a thread in the explorer, inline by default).
    pub fn set_test_runner(&mut self, runner: TestRunner) {
        self.test_runner = runner;
    }

    /// The session of the current test run, for [`Event::Tests`].
    pub fn test_session(&self) -> Option<u64> {
        self.tests.as_ref().map(|t| t.session)
    }

    /// Whether a test run is still going.
    pub fn tests_running(&self) -> bool {
        self.tests.as_ref().is_some_and(|t| t.is_running())
    }

    /// The session of the migration under review, for [`Event::Migrate`].
    pub fn migration_session(&self) -> Option<u64> {
        self.review.as_ref().map(|r| r.session)
    }

    pub fn should_quit(&self) -> bool {
        self.quit
    }

    /// Before the process exits: stop what runs outside it (a test run's
    /// child processes would otherwise outlive the explorer).
    pub fn shutdown(&mut self) {
        if let Some(t) = &mut self.tests {
            t.kill_now();
        }
        if let Some(r) = &self.review {
            r.cancel.cancel();
        }
    }

    /// Whether something changed since the last [`App::mark_drawn`].
    pub fn is_dirty(&self) -> bool {
        self.dirty
    }

    pub fn mark_drawn(&mut self) {
        self.dirty = false;
    }

    pub fn snapshot(&self) -> Option<&Arc<Snapshot>> {
        self.snap.as_ref()
    }

    pub fn screen(&self) -> Screen {
        self.screen
    }

    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// The declaration the tree cursor is on.
    pub fn selected(&self) -> Option<DeclId> {
        self.tree.as_ref().map(|t| t.selected().decl)
    }

    /// Rows the call tree currently shows (expanded nodes' children included).
    pub fn tree_rows(&self) -> usize {
        self.tree.as_ref().map_or(0, |t| t.rows.len())
    }

    pub fn root(&self) -> Option<DeclId> {
        self.tree.as_ref().map(|t| t.root)
    }

    pub fn resize(&mut self, width: u16, height: u16) {
        self.size = Rect::new(0, 0, width, height);
        self.after_resize();
    }

    fn areas(&self) -> Areas {
        layout::areas(self.size)
    }

    fn tree_height(&self) -> usize {
        layout::inner_height(self.areas().tree)
    }

    fn source_height(&self) -> usize {
        layout::inner_height(self.areas().source)
    }

    pub fn handle(&mut self, event: Event) {
        match event {
            Event::Input(input) => self.on_input(input),
            Event::Progress(status) => {
                if self.snap.is_none() || self.refreshing {
                    self.index_status = Some(status);
                    self.dirty = true;
                }
            }
            Event::Indexed(indexed) => self.on_indexed(*indexed),
            Event::FilesChanged => {
                if let Some(ix) = &self.indexer {
                    ix.refresh();
                    if !self.refreshing {
                        self.refreshing = true;
                        self.dirty = true;
                    }
                }
            }
            Event::Job(result) => self.apply(result),
            Event::Migrate(update) => self.on_migrate(*update),
            Event::Tests(update) => self.on_tests(*update),
            Event::Terminate(_) => self.quit = true,
        }
    }

    fn on_tests(&mut self, update: TestUpdate) {
        if let Some(t) = &mut self.tests
            && t.session == update.session
        {
            t.on_msg(update.msg);
            self.dirty = true;
        }
    }

    fn on_migrate(&mut self, update: MigrateUpdate) {
        if let Some(r) = &mut self.review
            && r.session == update.session
        {
            r.on_msg(update.msg);
            self.dirty = true;
        }
    }

    fn submit(&mut self, job: Job) {
        if let Some(result) = self.jobs.submit(job) {
            self.apply(result);
        }
    }

    fn apply(&mut self, result: JobResult) {
        match result {
            JobResult::Highlighted(h) if h.generation == self.source_generation => {
                self.source.highlights = Some(h);
                self.dirty = true;
            }
            JobResult::Blast { generation, view } if generation == self.blast_generation => {
                // Its rows are another list: the old selection means nothing there.
                self.blast_cursor.row = None;
                self.blast = Some(*view);
                self.dirty = true;
            }
            // Built for a snapshot a refresh has not replaced (else useless).
            JobResult::SearchIndex {
                snap,
                search,
                neural,
            } if self.snap.as_ref().is_some_and(|s| Arc::ptr_eq(s, &snap)) => {
                if let NeuralStatus::Failed(why) = &neural
                    && self.neural != neural
                {
                    self.message = Some(format!("search by words only: {why}"));
                }
                self.neural = neural;
                if let Some(search) = search {
                    self.search_index = Some((snap, search));
                    self.search_building = false;
                    self.run_search();
                }
                self.dirty = true;
            }
            JobResult::Searched { generation, hits } => {
                if let Some(p) = &mut self.search
                    && p.generation == generation
                {
                    p.hits = hits;
                    p.cursor = 0;
                    p.offset = 0;
                    p.pending = false;
                    self.dirty = true;
                }
            }
            JobResult::Found { generation, hits } => {
                if let Some(f) = &mut self.finder
                    && f.generation == generation
                {
                    f.hits = hits;
                    f.cursor = 0;
                    f.offset = 0;
                    f.pending = false;
                    self.dirty = true;
                }
            }
            _ => {}
        }
    }

    // ---- index lifecycle ----

    fn on_indexed(&mut self, indexed: Indexed) {
        self.dirty = true;
        self.refreshing = false;
        self.index_status = None;
        let snap = match indexed.result {
            Ok(s) => s,
            Err(e) => {
                self.index_error = Some(e);
                return;
            }
        };
        self.index_error = None;
        if let Some(reason) = &snap.index.stats.rebuilt {
            self.message = Some(reason.clone());
        }
        if let Some(e) = &snap.conventions_error {
            self.message = Some(format!("ripple.toml ignored: {e}"));
        }
        self.search_index = None;
        self.search_building = false;
        self.neural = NeuralStatus::Off;
        let Some(old) = self.snap.replace(snap.clone()) else {
            return;
        };
        // A refresh: keep the root, the tree's shape and the selection by name.
        self.files.clear();
        if let Some(view) = self.view_state(&old)
            && !self.restore_view(&snap, &view)
        {
            self.tree = None;
            self.message = Some(format!("{} no longer exists", view.root));
            self.screen = Screen::Overview;
            self.blast = None;
        }
        if self.finder.is_some() {
            self.run_finder();
        }
        if self.search.is_some() {
            self.run_search();
        }
    }

    // ---- input routing ----

    fn on_input(&mut self, input: Input) {
        match input {
            Input::Key(key) if key.kind != KeyEventKind::Release => self.on_key(key),
            Input::Mouse(m) => self.on_mouse(m),
            Input::Resize(w, h) => self.resize(w, h),
            _ => {}
        }
    }

    /// The routing stack for the current state, innermost first.
    pub fn contexts(&self) -> Vec<Context> {
        if self.help.is_some() {
            return vec![Context::Help];
        }
        if self.tests.is_some() {
            return vec![Context::TestRun];
        }
        if self.search.is_some() {
            return vec![Context::Search];
        }
        if self.findings.is_some() {
            return vec![Context::Findings];
        }
        if self.finder.is_some() {
            return vec![Context::Finder];
        }
        if self.palette.is_some() {
            return vec![Context::Palette];
        }
        if self.filter_input.is_some() {
            return vec![Context::TreeFilter];
        }
        if self.prompt.is_some() {
            return vec![Context::Prompt];
        }
        if self.editor.is_some() {
            return vec![Context::HunkEditor];
        }
        match self.screen {
            Screen::Overview => vec![Context::Overview, Context::Global],
            Screen::Explorer => vec![self.pane.context(), Context::Global],
        }
    }

    fn on_key(&mut self, key: KeyEvent) {
        let ctrl_c =
            key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl_c {
            // A running test run is cancelled first, like a stream.
            if let Some(t) = &mut self.tests
                && t.is_running()
                && !t.cancel.is_cancelled()
            {
                t.cancel.cancel();
                self.message = Some("cancelling the test run… (ctrl-c again quits)".to_owned());
                self.dirty = true;
                return;
            }
            // A running stream is cancelled first; the next ctrl-c quits.
            if let Some(r) = &mut self.review
                && r.is_running()
                && !r.cancel.is_cancelled()
            {
                r.cancel.cancel();
                self.message = Some("cancelling the migration… (ctrl-c again quits)".to_owned());
                self.dirty = true;
                return;
            }
            self.quit = true;
            return;
        }
        let contexts = self.contexts();
        let action = action_for(&contexts, &key);
        self.message = None;
        self.dirty = true;
        if self.help.is_some() {
            self.on_help(action);
        } else if self.tests.is_some() {
            self.on_test_pane(action);
        } else if self.search.is_some() {
            self.on_search(action, key);
        } else if self.findings.is_some() {
            self.on_findings(action);
        } else if self.finder.is_some() {
            self.on_finder(action, key);
        } else if self.palette.is_some() {
            self.on_palette(action, key);
        } else if self.filter_input.is_some() {
            self.on_filter(action, key);
        } else if self.prompt.is_some() {
            self.on_prompt(action, key);
        } else if self.editor.is_some() {
            self.on_editor(action, key);
        } else if let Some(action) = action {
            self.on_action(action);
        }
    }

    fn on_help(&mut self, action: Option<Action>) {
        let Some(scroll) = &mut self.help else { return };
        match action {
            Some(Action::Close) => self.help = None,
            Some(Action::Down) => *scroll += 1,
            Some(Action::Up) => *scroll = scroll.saturating_sub(1),
            _ => {}
        }
    }

    fn finder_height(&self) -> usize {
        Finder::list_height(Finder::area(self.areas().main))
    }

    fn on_finder(&mut self, action: Option<Action>, key: KeyEvent) {
        let height = self.finder_height();
        let Some(f) = &mut self.finder else { return };
        match action {
            Some(Action::Close) => self.finder = None,
            Some(Action::ClearQuery) => {
                f.query.clear();
                self.run_finder();
            }
            Some(Action::Up) => f.move_by(-1, height),
            Some(Action::Down) => f.move_by(1, height),
            Some(Action::Focus) => {
                // Enter typed faster than the worker answered: the results on
                // screen are for an older query, so answer this one now.
                if f.pending
                    && let Some(snap) = &self.snap
                {
                    f.hits = crate::lookup::fuzzy(&snap.index.res, &f.query, 1);
                    f.cursor = 0;
                    f.pending = false;
                }
                if let Some(d) = f.selected() {
                    self.finder = None;
                    self.set_root(d, true);
                }
            }
            _ => match key.code {
                KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                    f.query.push(c);
                    self.run_finder();
                }
                KeyCode::Backspace => {
                    f.query.pop();
                    self.run_finder();
                }
                _ => {}
            },
        }
    }

    fn palette_height(&self) -> usize {
        Palette::list_height(Palette::area(self.areas().main))
    }

    fn on_palette(&mut self, action: Option<Action>, key: KeyEvent) {
        let height = self.palette_height();
        let Some(p) = &mut self.palette else { return };
        match action {
            Some(Action::Close) => self.palette = None,
            Some(Action::Up) => p.move_by(-1, height),
            Some(Action::Down) => p.move_by(1, height),
            Some(Action::Submit) => {
                let chosen = p.selected();
                self.palette = None;
                if let Some(a) = chosen {
                    self.on_action(a);
                }
            }
            Some(Action::ClearQuery) => {
                p.query.clear();
                p.refilter();
            }
            _ => match key.code {
                KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                    p.query.push(c);
                    p.refilter();
                }
                KeyCode::Backspace => {
                    p.query.pop();
                    p.refilter();
                }
                _ => {}
            },
        }
    }

    fn run_finder(&mut self) {
        let Some(snap) = self.snap.clone() else {
            return;
        };
        let Some(f) = &mut self.finder else { return };
        f.generation += 1;
        f.pending = true;
        let job = Job::Find {
            generation: f.generation,
            snap,
            query: f.query.clone(),
        };
        self.submit(job);
    }

    fn open_finder(&mut self, query: String) {
        self.finder = Some(Finder {
            query,
            ..Finder::default()
        });
        self.run_finder();
    }

    fn on_action(&mut self, action: Action) {
        match (self.screen, action) {
            (_, Action::Quit) => self.quit = true,
            (_, Action::ShowHelp) => self.help = Some(0),
            (_, Action::OpenFinder) => self.open_finder(String::new()),
            (_, Action::ShowOverview) => {
                self.screen = match self.screen {
                    Screen::Overview if self.tree.is_some() => Screen::Explorer,
                    _ => Screen::Overview,
                }
            }
            (_, Action::Back) => self.go_back(),
            (_, Action::Forward) => self.go_forward(),
            (_, Action::ToggleDirection) => self.toggle_direction(),
            (_, Action::DepthUp) => self.set_depth(self.depth + 1),
            (_, Action::DepthDown) => self.set_depth(self.depth.saturating_sub(1)),
            (_, Action::OpenSearch) => self.open_search(SearchKind::Query),
            (_, Action::ShowFindings) => self.open_findings(),
            (_, Action::OpenPalette) => self.palette = Some(Palette::new(&self.contexts())),
            (_, Action::OpenEditor) => self.edit_place(),
            (_, Action::CopyName) => self.copy_place(false),
            (_, Action::CopyLocation) => self.copy_place(true),
            (Screen::Overview, a) => self.on_overview(a),
            (Screen::Explorer, Action::NextPane | Action::PrevPane) if self.review.is_some() => {
                self.pane = match self.pane {
                    Pane::Review => Pane::Tree,
                    _ => Pane::Review,
                }
            }
            (Screen::Explorer, Action::NextPane) => self.pane = self.pane.next(1),
            (Screen::Explorer, Action::PrevPane) => self.pane = self.pane.next(-1),
            (Screen::Explorer, Action::Migrate) => self.open_prompt(),
            (Screen::Explorer, Action::RunTests) => self.run_tests_here(),
            (Screen::Explorer, Action::Similar) => {
                if let Some(d) = self.selected() {
                    self.open_search(SearchKind::Similar(d));
                }
            }
            (Screen::Explorer, a) => match self.pane {
                Pane::Tree => self.on_tree(a),
                Pane::Source => self.on_source(a),
                Pane::Blast => self.on_blast(a),
                Pane::Review => self.on_review(a),
            },
        }
    }

    fn on_overview(&mut self, action: Action) {
        let Some(snap) = self.snap.clone() else {
            return;
        };
        let main = self.areas().main;
        let page = (layout::inner_height(main) / 2).max(1) as isize;
        match action {
            Action::Up => self.overview.move_by(&snap, -1, main),
            Action::Down => self.overview.move_by(&snap, 1, main),
            Action::PageUp => self.overview.move_by(&snap, -page, main),
            Action::PageDown => self.overview.move_by(&snap, page, main),
            Action::NextPane => self.overview.section = self.overview.section.next(1),
            Action::PrevPane => self.overview.section = self.overview.section.next(-1),
            Action::Focus => match self.overview.pick(&snap) {
                Some(Pick::Decl(d)) => self.set_root(d, true),
                Some(Pick::Package(p)) => self.open_finder(format!("{p}.")),
                None => {}
            },
            _ => {}
        }
    }

    fn on_tree(&mut self, action: Action) {
        let Some(snap) = self.snap.clone() else {
            return;
        };
        let height = self.tree_height();
        let Some(tree) = &mut self.tree else { return };
        let before = tree.selected_index();
        let page = height.max(2) as isize - 1;
        match action {
            Action::Up => tree.move_by(-1),
            Action::Down => tree.move_by(1),
            Action::PageUp => tree.move_by(-page),
            Action::PageDown => tree.move_by(page),
            Action::Top => tree.move_by(isize::MIN / 2),
            Action::Bottom => tree.move_by(isize::MAX / 2),
            Action::Expand => tree.expand_selected(&snap),
            Action::Collapse => tree.collapse_selected(),
            Action::Filter => return self.open_filter(),
            Action::ClearFilter => return self.clear_filter(),
            Action::Focus => {
                let d = tree.selected().decl;
                if d != tree.root {
                    self.set_root(d, true);
                }
                return;
            }
            _ => return,
        }
        tree.scroll_into_view(height);
        if tree.selected_index() != before {
            self.sync_source();
        }
    }

    fn on_source(&mut self, action: Action) {
        let h = self.source_height();
        let page = h.max(2) as isize - 1;
        match action {
            Action::Up => self.source.scroll_by(-1, h),
            Action::Down => self.source.scroll_by(1, h),
            Action::PageUp => self.source.scroll_by(-page, h),
            Action::PageDown => self.source.scroll_by(page, h),
            Action::Top => self.source.scroll_home(h),
            Action::Bottom => self.source.scroll_end(h),
            _ => return,
        }
        self.request_highlight();
    }

    fn after_resize(&mut self) {
        self.dirty = true;
        let th = self.tree_height();
        if let Some(t) = &mut self.tree {
            t.scroll_into_view(th);
        }
        let sh = self.source_height();
        self.source.refit(sh);
        self.request_highlight();
        let main = self.areas().main;
        self.overview.scroll_into_view(main);
    }

    // ---- roots, history, depth ----

    fn set_root(&mut self, decl: DeclId, record: bool) {
        let Some(snap) = self.snap.clone() else {
            return;
        };
        if record
            && let Some(t) = &self.tree
            && t.root != decl
            && let Some(view) = self.view_state(&snap)
        {
            self.back.push(view);
            self.forward.clear();
        }
        let same_root = self.tree.as_ref().is_some_and(|t| t.root == decl);
        self.tree = Some(CallTree::new(&snap, decl, self.dir));
        self.screen = Screen::Explorer;
        self.pane = Pane::Tree;
        if !same_root {
            self.blast = None;
            self.blast_cursor = BlastCursor::default();
        }
        self.request_blast();
        self.sync_source();
    }

    /// The explorer's view as it stands, by name in `snap` (the snapshot
    /// the tree was built from).
    fn view_state(&self, snap: &Snapshot) -> Option<ViewState> {
        let tree = self.tree.as_ref()?;
        Some(ViewState {
            root: snap.name(tree.root).to_owned(),
            dir: tree.dir,
            depth: self.depth,
            expanded: tree.expanded_paths(snap),
            selected: tree.name_path(snap, tree.selected_index()),
            tree_offset: tree.offset,
            source_scroll: self.source.free_scroll(),
            blast_scroll: self.blast_cursor.scroll,
            filter: tree.filter().map(str::to_owned),
        })
    }

    /// Rebuild a view in `snap`: the same root, direction, depth, expanded
    /// branches, selection and scroll positions, as far as they still
    /// exist. False when the root itself is gone.
    fn restore_view(&mut self, snap: &Arc<Snapshot>, view: &ViewState) -> bool {
        let Some(&root) = snap.by_name.get(view.root.as_str()) else {
            return false;
        };
        self.dir = view.dir;
        self.depth = view.depth;
        let mut t = CallTree::new(snap, root, view.dir);
        for path in &view.expanded {
            let n = t.follow(snap, path);
            t.expand(snap, n);
        }
        let n = t.follow(snap, &view.selected);
        t.set_filter(snap, view.filter.as_deref());
        t.select_node(n);
        t.offset = view.tree_offset;
        t.scroll_into_view(self.tree_height());
        let same_selection =
            snap.name(t.selected().decl) == view.selected.last().map_or("", |s| s.as_str());
        self.tree = Some(t);
        self.blast_cursor = BlastCursor {
            scroll: view.blast_scroll,
            row: None,
        };
        self.request_blast();
        self.sync_source();
        if same_selection && let Some(scroll) = view.source_scroll {
            self.source.restore_scroll(scroll, self.source_height());
            self.request_highlight();
        }
        true
    }

    fn go_back(&mut self) {
        self.travel(true);
    }

    fn go_forward(&mut self) {
        self.travel(false);
    }

    fn travel(&mut self, back: bool) {
        let Some(snap) = self.snap.clone() else {
            return;
        };
        let here = self.view_state(&snap);
        let old_root = self.root();
        loop {
            let popped = if back {
                self.back.pop()
            } else {
                self.forward.pop()
            };
            let Some(view) = popped else { break };
            // A root deleted since is passed over, as if never visited.
            if self.restore_view(&snap, &view) {
                if self.root() != old_root {
                    self.blast = None;
                }
                self.screen = Screen::Explorer;
                self.pane = Pane::Tree;
                if let Some(here) = here {
                    if back {
                        self.forward.push(here);
                    } else {
                        self.back.push(here);
                    }
                }
                return;
            }
        }
        self.message = Some(if back {
            "no earlier root".to_owned()
        } else {
            "no later root".to_owned()
        });
    }

    fn toggle_direction(&mut self) {
        self.dir = match self.dir {
            Direction::Callers => Direction::Callees,
            Direction::Callees => Direction::Callers,
        };
        if let (Some(snap), Some(t)) = (self.snap.clone(), &self.tree) {
            let root = t.root;
            self.tree = Some(CallTree::new(&snap, root, self.dir));
            self.sync_source();
        }
    }

    fn set_depth(&mut self, depth: u32) {
        let depth = depth.clamp(1, MAX_DEPTH);
        if depth != self.depth {
            self.depth = depth;
            self.request_blast();
        }
    }

    fn request_blast(&mut self) {
        let (Some(snap), Some(t)) = (self.snap.clone(), &self.tree) else {
            return;
        };
        self.blast_generation += 1;
        let job = Job::Blast {
            generation: self.blast_generation,
            snap,
            root: t.root,
            depth: self.depth,
        };
        self.submit(job);
    }

    // ---- source ----

    fn file(&mut self, path: &str, lang: crate::model::Lang) -> Result<Arc<FileText>, String> {
        if let Some(i) = self.files.iter().position(|f| f.path == path) {
            let f = self.files.remove(i);
            self.files.push(f.clone());
            return Ok(f);
        }
        let f = Arc::new(
            FileText::read(&self.root_path, path, lang)
                .map_err(|e| format!("cannot read {path}: {e}"))?,
        );
        if self.files.len() >= FILE_CACHE {
            self.files.remove(0);
        }
        self.files.push(f.clone());
        Ok(f)
    }

    /// Show the selected node's declaration and the call site it came through.
    fn sync_source(&mut self) {
        let (Some(snap), Some(tree)) = (self.snap.clone(), &self.tree) else {
            return;
        };
        let node = tree.selected().clone();
        let parent = node.parent.map(|p| tree.nodes[p].decl);
        let dir = tree.dir;
        let index = &snap.index;
        let d = &index.res.decls[node.decl];
        let height = self.source_height();
        let Some(file) = index.file_of(node.decl) else {
            self.source.show(
                None,
                format!("{} (external)", d.name),
                (0, 0),
                None,
                Some("outside the repository: no source".to_owned()),
                height,
            );
            return;
        };
        let (path, lang) = (file.path.clone(), file.lang);
        let span = d.span;
        let mut call = None;
        let mut note = None;
        if let Some(e) = node.edge {
            let edge = index.res.edges[e as usize];
            if let Some((site_path, site)) = index.call_site(edge.file, edge.call) {
                let here = Some(edge.file) == d.file
                    && site.span.start_line >= span.start_line
                    && site.span.start_line <= span.end_line;
                if here {
                    call = Some(CallMark {
                        line: site.span.start_line as usize,
                        bytes: (site.span.start_byte as usize, site.span.end_byte as usize),
                    });
                } else {
                    let who = parent.map(|p| snap.display_name(p)).unwrap_or_default();
                    let verb = match dir {
                        Direction::Callees => "called from",
                        Direction::Callers => "calls through",
                    };
                    note = Some(format!(
                        "{verb} {who} at {site_path}:{}: {}",
                        site.span.start_line, site.callee_text
                    ));
                }
            }
        }
        let title = format!("{path}:{}-{}", span.start_line, span.end_line);
        let text = match self.file(&path, lang) {
            Ok(t) => Some(t),
            Err(e) => {
                note = Some(e);
                None
            }
        };
        self.source.show(
            text,
            title,
            (span.start_line as usize, span.end_line as usize),
            call,
            note,
            height,
        );
        self.request_highlight();
    }

    fn request_highlight(&mut self) {
        let height = self.source_height();
        let Some(lines) = self.source.highlight_wanted(height) else {
            return;
        };
        let Some(file) = &self.source.file else {
            return;
        };
        self.source_generation += 1;
        let job = Job::Highlight(super::highlight::HighlightRequest {
            generation: self.source_generation,
            path: file.path.clone(),
            lang: file.lang,
            text: file.text.clone(),
            lines,
        });
        self.submit(job);
    }

    // ---- migration: prompt, review, write ----

    fn open_prompt(&mut self) {
        let Some(d) = self.selected() else { return };
        let mut text = TextArea::default();
        text.set_placeholder_text(
            "e.g. add a required `timeout: float` parameter; callers pass settings.TIMEOUT",
        );
        self.prompt = Some(Prompt { target: d, text });
    }

    fn on_prompt(&mut self, action: Option<Action>, key: KeyEvent) {
        let Some(p) = &mut self.prompt else { return };
        match action {
            Some(Action::Close) => self.prompt = None,
            Some(Action::Submit) => {
                let change = p.text.lines().join("\n").trim().to_owned();
                if change.is_empty() {
                    self.message = Some("describe the change first (esc cancels)".to_owned());
                    return;
                }
                let target = p.target;
                self.prompt = None;
                self.start_migration(target, change);
            }
            _ => {
                p.text.input(key);
            }
        }
    }

    fn start_migration(&mut self, target: DeclId, change: String) {
        let Some(snap) = self.snap.clone() else {
            return;
        };
        if let Some(old) = &self.review {
            old.cancel.cancel();
        }
        self.sessions += 1;
        let session = self.sessions;
        let cancel = CancelToken::new();
        self.review = Some(Review::new(
            session,
            snap.display_name(target),
            snap.name(target).to_owned(),
            change.clone(),
            cancel.clone(),
        ));
        self.screen = Screen::Explorer;
        self.pane = Pane::Review;
        match &self.migrator {
            Migrator::Thread(tx) => {
                let tx = tx.clone();
                let flags = self.llm_flags.clone();
                review::spawn_migration(snap, target, change, flags, cancel, move |msg| {
                    let _ = tx.send(Event::Migrate(Box::new(MigrateUpdate { session, msg })));
                });
            }
            Migrator::Inline => {
                let mut msgs = Vec::new();
                review::run_migration(&snap, target, &change, &self.llm_flags, &cancel, &mut |m| {
                    msgs.push(m)
                });
                for msg in msgs {
                    self.on_migrate(MigrateUpdate { session, msg });
                }
            }
            Migrator::Manual => {}
        }
    }

    fn note(&mut self, result: Result<Option<String>, String>) {
        match result {
            Ok(Some(m)) | Err(m) => self.message = Some(m),
            Ok(None) => {}
        }
    }

    fn on_review(&mut self, action: Action) {
        let Some(r) = &mut self.review else { return };
        let current = r.current().map(|h| h.id.clone());
        let decide = |r: &mut Review, state| match &current {
            Some(id) => r.decide(id, state),
            None => Err("no hunk yet".to_owned()),
        };
        let result = match action {
            Action::Down => {
                r.move_cursor(1);
                Ok(None)
            }
            Action::Up => {
                r.move_cursor(-1);
                Ok(None)
            }
            Action::PageDown => {
                r.page(10);
                Ok(None)
            }
            Action::PageUp => {
                r.page(-10);
                Ok(None)
            }
            Action::Accept => decide(r, HunkState::Accepted),
            Action::Reject => decide(r, HunkState::Rejected),
            Action::Skip => decide(r, HunkState::Skipped),
            Action::AcceptFile => r.decide_file(HunkState::Accepted),
            Action::RejectFile => r.decide_file(HunkState::Rejected),
            Action::UndoDecision => r.undo_decision().map(|()| None),
            Action::EditHunk => {
                self.open_editor();
                return;
            }
            Action::WriteAccepted => {
                self.write_accepted();
                return;
            }
            Action::UndoWrite => {
                self.undo_write();
                return;
            }
            Action::Close => {
                r.cancel.cancel();
                self.review = None;
                self.pane = Pane::Tree;
                return;
            }
            _ => return,
        };
        self.note(result);
    }

    fn open_editor(&mut self) {
        let Some(r) = &self.review else { return };
        let Some(h) = r.current() else {
            self.message = Some("no hunk yet".to_owned());
            return;
        };
        if r.written.contains(&h.id) {
            self.message = Some("already written; U undoes the write".to_owned());
            return;
        }
        let replacement = match &h.resolution {
            Resolution::Resolved { replacement, .. } => replacement.clone(),
            _ => h.replace.clone(),
        };
        let lines: Vec<String> = replacement.lines().map(str::to_owned).collect();
        self.editor = Some(HunkEdit {
            id: h.id.clone(),
            title: h.header(),
            text: TextArea::new(lines),
        });
    }

    fn on_editor(&mut self, action: Option<Action>, key: KeyEvent) {
        let Some(ed) = &mut self.editor else { return };
        match action {
            Some(Action::Close) => self.editor = None,
            Some(Action::Submit) => {
                let Some(ed) = self.editor.take() else { return };
                self.replan(ed);
            }
            _ => {
                ed.text.input(key);
            }
        }
    }

    /// Plan the edited replacement against the file as it is now: it can
    /// still conflict, and it gets a new id (its content changed).
    fn replan(&mut self, ed: HunkEdit) {
        let (Some(snap), Some(r)) = (self.snap.clone(), &mut self.review) else {
            return;
        };
        let Some(old) = r.hunks.iter().find(|h| h.id == ed.id) else {
            self.message = Some("that hunk is no longer in the review".to_owned());
            return;
        };
        let root = &snap.index.root;
        let conventions = match crate::conventions::Conventions::load(root) {
            Ok(c) => c,
            Err(e) => {
                self.message = Some(format!("cannot read ripple.toml: {e}"));
                return;
            }
        };
        let mut replace = ed.text.lines().join("\n");
        if !replace.is_empty() {
            replace.push('\n');
        }
        let block = EditBlock {
            index: old.block_index,
            path: old.path.clone(),
            path_origin: PathOrigin::Named,
            search: old.search.clone(),
            replace,
            reply_line: 0,
        };
        let new = edits::Planner::new(root, edits::Snapshot::new(), &conventions)
            .with_pack(r.pack_files.clone(), edits::OutsidePolicy::Review)
            .plan_block(&block);
        let conflict = !new.is_resolved();
        r.replace(&ed.id, new);
        self.message = Some(if conflict {
            "edited hunk re-planned: it conflicts with the file now".to_owned()
        } else {
            "edited hunk re-planned against the file; y accepts it".to_owned()
        });
    }

    fn write_accepted(&mut self) {
        let (Some(snap), Some(r)) = (self.snap.clone(), &mut self.review) else {
            return;
        };
        if r.is_running() {
            self.message =
                Some("the reply is still streaming: wait for it (ctrl-c cancels)".to_owned());
            return;
        }
        if r.truncated() || r.status == Status::Cancelled {
            self.message = Some(
                "the reply was cut short: nothing from it is written (run the migration again)"
                    .to_owned(),
            );
            return;
        }
        let hunks = r.to_write();
        if hunks.is_empty() {
            self.message = Some("no accepted hunk to write (y accepts)".to_owned());
            return;
        }
        let root = &snap.index.root;
        match crate::migrate::apply_accepted(root, &hunks) {
            Ok(crate::migrate::ApplyOutcome {
                report,
                regressions: broken,
            }) => {
                let ids: Vec<HunkId> = hunks.iter().map(|h| h.id.clone()).collect();
                let files: Vec<&str> = report.files.iter().map(|f| f.path.as_str()).collect();
                self.message = Some(if broken.is_empty() {
                    format!(
                        "wrote {} hunk(s) to {} file(s): {} — U undoes",
                        ids.len(),
                        files.len(),
                        files.join(", ")
                    )
                } else {
                    let which: Vec<String> = broken
                        .iter()
                        .map(|b| format!("{} ({} errors, was {})", b.path, b.errors, b.before))
                        .collect();
                    // The warning first: the status line is cut at the width.
                    format!(
                        "SYNTAX ERROR introduced in {} — wrote {} hunk(s); U undoes",
                        which.join(", "),
                        ids.len()
                    )
                });
                r.written = ids;
                r.broken = broken;
                self.refresh_index();
            }
            Err(e) => self.message = Some(format!("nothing written: {e}")),
        }
    }

    fn undo_write(&mut self) {
        let Some(snap) = self.snap.clone() else {
            return;
        };
        let root = &snap.index.root;
        match edits::undo(root, &edits::default_journal_dir(root)) {
            Ok(report) => {
                let mut files = report.restored.clone();
                files.extend(report.removed.iter().cloned());
                self.message = Some(format!("undone: restored {}", files.join(", ")));
                if let Some(r) = &mut self.review {
                    r.written.clear();
                    r.broken.clear();
                }
                self.refresh_index();
            }
            Err(e) => self.message = Some(e.to_string()),
        }
    }

    /// Files were written: re-index (the watcher would too, later) and drop
    /// cached file text.
    fn refresh_index(&mut self) {
        self.files.clear();
        if let Some(ix) = &self.indexer {
            ix.refresh();
            self.refreshing = true;
        }
        self.sync_source();
    }

    // ---- tests: `t` ----

    /// `t`: in the review, the tests reaching the changed function; in the
    /// tree, those reaching the selected declaration.
    fn run_tests_here(&mut self) {
        if self.run_blast_test() {
            return;
        }
        let Some(snap) = self.snap.clone() else {
            return;
        };
        let target = match (&self.review, self.pane) {
            (Some(r), Pane::Review) => match snap.by_name.get(r.target_name.as_str()) {
                Some(&d) => d,
                None => {
                    self.message = Some(format!("{} is no longer in the index", r.target));
                    return;
                }
            },
            _ => match self.selected() {
                Some(d) => d,
                None => return,
            },
        };
        self.start_tests(&snap, target);
    }

    fn start_tests(&mut self, snap: &Arc<Snapshot>, target: DeclId) {
        let index = &snap.index;
        let plan = match crate::testrun::plan(index, target, snap.conventions.test_commands()) {
            Ok(p) => p,
            Err(e) => {
                self.message = Some(e.to_string());
                return;
            }
        };
        let name = snap.display_name(target);
        if plan.invocations.is_empty() {
            self.message = Some(if plan.not_selectable > 0 {
                format!(
                    "no runnable test reaches {name} ({} helper(s) in test files do)",
                    plan.not_selectable
                )
            } else {
                format!("no test reaches {name}")
            });
            return;
        }
        if let Some(old) = &self.tests {
            old.cancel.cancel();
        }
        self.launch_tests(name, plan);
    }

    fn test_pane_area(&self) -> Rect {
        TestRun::area(self.areas().main)
    }

    fn on_test_pane(&mut self, action: Option<Action>) {
        let area = self.test_pane_area();
        let Some(t) = &mut self.tests else { return };
        let height = t.output_height(area);
        let page = height.max(2) as isize - 1;
        match action {
            Some(Action::Close) if t.is_running() => {
                t.cancel.cancel();
                self.message = Some("cancelling the test run…".to_owned());
            }
            Some(Action::Close) => self.tests = None,
            Some(Action::Down) => t.scroll_by(1, area),
            Some(Action::Up) => t.scroll_by(-1, area),
            Some(Action::PageDown) => t.scroll_by(page, area),
            Some(Action::PageUp) => t.scroll_by(-page, area),
            Some(Action::RunTests) if t.is_running() => {
                self.message = Some("the tests are still running (esc cancels)".to_owned());
            }
            Some(Action::RunTests) => {
                // Again means the tests the user just saw, even if a refresh
                // has changed the graph since.
                let plan = t.plan.clone();
                let target = t.target.clone();
                self.launch_tests(target, plan);
            }
            _ => {}
        }
    }

    /// Start `plan` as a new run (a new session: late lines of an older
    /// run are dropped).
    fn launch_tests(&mut self, target: String, plan: crate::testrun::TestPlan) {
        let Some(snap) = self.snap.clone() else {
            return;
        };
        self.sessions += 1;
        let session = self.sessions;
        let run = TestRun::new(session, target, plan.clone());
        let cancel = run.cancel.clone();
        self.tests = Some(run);
        let root: Arc<std::path::Path> = Arc::from(snap.index.root.as_path());
        match &self.test_runner {
            TestRunner::Thread(tx) => {
                let tx = tx.clone();
                testrun::spawn_tests(root, plan, cancel, move |msg| {
                    let _ = tx.send(Event::Tests(Box::new(TestUpdate { session, msg })));
                });
            }
            TestRunner::Inline => {
                let mut msgs: Vec<TestMsg> = Vec::new();
                testrun::run_tests(&root, &plan, &cancel, &mut |m| msgs.push(m));
                for msg in msgs {
                    self.on_tests(TestUpdate { session, msg });
                }
            }
        }
    }

    // ---- search: `s` and `S` ----

    fn open_search(&mut self, kind: SearchKind) {
        if self.snap.is_none() {
            self.message = Some("the index is not ready yet".to_owned());
            return;
        }
        self.search = Some(SearchPane::new(kind));
        self.run_search();
    }

    /// Ask for the pane's results: from the index when it is built for the
    /// current snapshot, else start building it (the answer follows).
    fn run_search(&mut self) {
        let Some(snap) = self.snap.clone() else {
            return;
        };
        let Some(p) = &mut self.search else { return };
        p.generation += 1;
        p.pending = true;
        let search = match &self.search_index {
            Some((built_for, search)) if Arc::ptr_eq(built_for, &snap) => search.clone(),
            _ => {
                if !self.search_building {
                    self.search_building = true;
                    self.submit(super::jobs::Job::BuildSearch { snap });
                }
                return;
            }
        };
        let job = Job::Search {
            generation: p.generation,
            snap,
            search,
            kind: p.kind,
            query: p.query.clone(),
        };
        self.submit(job);
    }

    fn search_height(&self) -> usize {
        SearchPane::list_height(SearchPane::area(self.areas().main))
    }

    fn on_search(&mut self, action: Option<Action>, key: KeyEvent) {
        let height = self.search_height();
        let Some(p) = &mut self.search else { return };
        match action {
            Some(Action::Close) => self.search = None,
            Some(Action::Up) => p.move_by(-1, height),
            Some(Action::Down) => p.move_by(1, height),
            Some(Action::Focus) => {
                if p.pending {
                    self.message = Some("still searching…".to_owned());
                } else if let Some(d) = p.selected() {
                    self.search = None;
                    self.set_root(d, true);
                }
            }
            _ if p.kind != SearchKind::Query => {}
            Some(Action::ClearQuery) => {
                p.query.clear();
                self.run_search();
            }
            _ => match key.code {
                KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                    p.query.push(c);
                    self.run_search();
                }
                KeyCode::Backspace => {
                    p.query.pop();
                    self.run_search();
                }
                _ => {}
            },
        }
    }

    // ---- review findings: `R` ----

    fn open_findings(&mut self) {
        self.findings = Some(FindingsList::load(&self.root_path));
    }

    fn on_findings(&mut self, action: Option<Action>) {
        let height = FindingsList::list_height(FindingsList::area(self.areas().main));
        let Some(list) = &mut self.findings else {
            return;
        };
        match action {
            Some(Action::Close) => self.findings = None,
            Some(Action::Up) => list.move_by(-1, height),
            Some(Action::Down) => list.move_by(1, height),
            Some(Action::Focus) => {
                let Some(f) = list.selected().cloned() else {
                    return;
                };
                let Some(snap) = self.snap.clone() else {
                    self.message = Some("the index is not ready yet".to_owned());
                    return;
                };
                let note = format!(
                    "{}: {}",
                    f.severity.name(),
                    f.message.lines().next().unwrap_or("")
                );
                if self.show_line(&snap, &f.file, f.start_line, note) {
                    self.findings = None;
                }
            }
            _ => {}
        }
    }

    // ---- drawing (reads only) ----

    pub fn draw(&self, frame: &mut Frame) {
        let areas = layout::areas(frame.area());
        let theme = &self.theme;
        frame.render_widget(Paragraph::new(self.status_line()), areas.status);
        match self.screen {
            Screen::Overview => self
                .overview
                .draw(frame, areas.main, self.snap.as_deref(), theme),
            Screen::Explorer => self.draw_explorer(frame, &areas),
        }
        frame.render_widget(
            Paragraph::new(help::hint_bar(&self.contexts(), areas.hints.width, theme)),
            areas.hints,
        );
        if let Some(f) = &self.finder {
            f.draw(frame, Finder::area(areas.main), self.snap.as_deref(), theme);
        }
        if let Some(p) = &self.palette {
            p.draw(frame, Palette::area(areas.main), theme);
        }
        if let Some(p) = &self.prompt {
            let target = self
                .snap
                .as_deref()
                .map(|s| s.display_name(p.target))
                .unwrap_or_default();
            let title = format!(" migrate the callers of {target}: describe the change ");
            draw_textarea(frame, prompt_area(areas.main), &title, &p.text, theme);
        }
        if let Some(ed) = &self.editor {
            let area = layout::review_split(areas.main).1;
            let title = format!(" edit the replacement: {} ", ed.title);
            draw_textarea(frame, area, &title, &ed.text, theme);
        }
        if let Some(list) = &self.findings {
            list.draw(frame, FindingsList::area(areas.main), theme);
        }
        if let Some(p) = &self.search {
            let building = self.search_building && p.pending;
            p.draw(
                frame,
                SearchPane::area(areas.main),
                self.snap.as_deref(),
                building,
                &self.neural,
                theme,
            );
        }
        if let Some(t) = &self.tests {
            t.draw(frame, TestRun::area(areas.main), theme);
        }
        if let Some(scroll) = self.help {
            help::draw(frame, areas.main, scroll, theme);
        }
    }

    fn draw_explorer(&self, frame: &mut Frame, areas: &Areas) {
        let theme = &self.theme;
        let (Some(snap), Some(tree)) = (self.snap.as_deref(), &self.tree) else {
            return;
        };
        let hops = self
            .blast
            .as_ref()
            .filter(|b| b.root == tree.root)
            .map(|b| &b.hops);
        let changed = self
            .review
            .as_ref()
            .map(|r| r.accepted_ranges())
            .unwrap_or_default();
        let view = TreeView {
            snap,
            theme,
            focused: self.pane == Pane::Tree,
            hops,
            changed: &changed,
            filter_input: self.filter_input.as_deref(),
        };
        if let Some(r) = &self.review {
            let (tree_area, review_area) = layout::review_split(areas.main);
            tree.draw(frame, tree_area, &view);
            r.draw(frame, review_area, theme, self.pane == Pane::Review);
            return;
        }
        tree.draw(frame, areas.tree, &view);
        self.source
            .draw(frame, areas.source, theme, self.pane == Pane::Source);
        radius::draw(
            frame,
            areas.blast,
            self.blast.as_ref().filter(|b| b.root == tree.root),
            Some(snap),
            self.blast_cursor,
            theme,
            self.pane == Pane::Blast,
        );
    }

    fn status_line(&self) -> Line<'static> {
        let theme = &self.theme;
        let mut spans = vec![Span::styled(" ripple ", theme.title(true))];
        match &self.snap {
            Some(s) => spans.push(Span::styled(
                format!(
                    "{} · {} · {} ",
                    super::display_root(&s.index.root),
                    counted(s.index.stats.declarations, "declaration", "declarations"),
                    counted(s.index.stats.edges, "edge", "edges")
                ),
                theme.dim(),
            )),
            None => spans.push(Span::styled(
                format!("{} ", self.root_path.display()),
                theme.dim(),
            )),
        }
        if let Some(t) = &self.tree {
            spans.push(Span::raw(format!(
                "· {} · depth {} ",
                match t.dir {
                    Direction::Callers => "callers",
                    Direction::Callees => "callees",
                },
                self.depth
            )));
        }
        if let Some(status) = self.index_status {
            let text = match status {
                IndexStatus::Scanning => "indexing: scanning files…".to_owned(),
                IndexStatus::Parsing { done, total } => {
                    format!("indexing: parsed {done}/{total} files…")
                }
                IndexStatus::Resolving => "indexing: resolving calls…".to_owned(),
            };
            spans.push(Span::styled(text, theme.warning()));
        } else if self.refreshing {
            spans.push(Span::styled("↻ refreshing…", theme.warning()));
        }
        if let Some(e) = &self.index_error {
            spans.push(Span::styled(format!(" error: {e}"), theme.error()));
        }
        if let Some(m) = &self.message {
            spans.push(Span::styled(format!(" {m}"), theme.warning()));
        }
        Line::from(spans)
    }
}

/// The prompt box: centred over the main area, a few lines high.
fn prompt_area(main: Rect) -> Rect {
    let w = (main.width * 4 / 5).max(20).min(main.width);
    let h = 7.min(main.height);
    Rect::new(
        main.x + (main.width - w) / 2,
        main.y + main.height.saturating_sub(h) / 3,
        w,
        h,
    )
}

fn draw_textarea(frame: &mut Frame, area: Rect, title: &str, text: &TextArea, theme: &Theme) {
    frame.render_widget(Clear, area);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border(true))
        .title(Span::styled(title.to_owned(), theme.title(true)));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    frame.render_widget(text, inner);
}

#[cfg(test)]
mod tests {
    use super::super::overview::Section;
    use super::*;

    #[test]
    fn panes_cycle_both_ways() {
        assert_eq!(Pane::Tree.next(1), Pane::Source);
        assert_eq!(Pane::Tree.next(-1), Pane::Blast);
        assert_eq!(Pane::Blast.next(1), Pane::Tree);
        assert_eq!(Section::Packages.next(-1), Section::EntryPoints);
    }
}

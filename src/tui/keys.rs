//! The one key table. Every binding is data with a description; the hint
//! bar, the `?` help screen and the manual's key table (docs/manual.md) are
//! all generated from [`BINDINGS`], so they cannot drift apart (lazygit's habit).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// What a key does. Handlers match on actions, never on raw keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Quit,
    ShowHelp,
    OpenFinder,
    ShowOverview,
    Back,
    Forward,
    ToggleDirection,
    DepthUp,
    DepthDown,
    NextPane,
    PrevPane,
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    Expand,
    Collapse,
    Focus,
    Close,
    /// Open the migrate prompt on the selected declaration.
    Migrate,
    /// Submit the prompt / save the edited replacement.
    Submit,
    Accept,
    Reject,
    EditHunk,
    Skip,
    UndoDecision,
    AcceptFile,
    RejectFile,
    WriteAccepted,
    UndoWrite,
    /// Run the tests that reach the selected (or changed) declaration.
    RunTests,
    /// Open the search pane (by what code does).
    OpenSearch,
    /// List the declarations most similar to the selected one.
    Similar,
    /// List the findings of the last `ripple review`.
    ShowFindings,
    /// Empty a text field (the finder's or the search's query).
    ClearQuery,
    /// Open `$EDITOR` on the selected declaration or call site.
    OpenEditor,
    /// Copy the selected declaration's qualified name (OSC 52).
    CopyName,
    /// Copy the selected place as `file:line` (OSC 52).
    CopyLocation,
    /// Type a filter over the call tree's rows.
    Filter,
    /// Drop the tree's filter: every row again.
    ClearFilter,
    /// The command palette: every action by name.
    OpenPalette,
}

/// Where a binding applies. Routing asks the innermost context first
/// (help, finder, the focused pane) and falls back to [`Context::Global`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    Global,
    Tree,
    Source,
    Blast,
    Overview,
    Finder,
    Help,
    /// The migrate prompt (a text area: other keys type).
    Prompt,
    /// The review pane of a migration.
    Review,
    /// Editing a hunk's replacement in place (a text area).
    HunkEditor,
    /// The output of a test run.
    TestRun,
    /// The search pane (`s`: a text field; `S`: similar declarations).
    Search,
    /// The findings of the last review.
    Findings,
    /// Typing the call tree's filter (`f`).
    TreeFilter,
    /// The command palette (`:`).
    Palette,
}

impl Context {
    pub fn title(self) -> &'static str {
        match self {
            Context::Global => "everywhere",
            Context::Tree => "call tree",
            Context::Source => "source",
            Context::Blast => "blast radius",
            Context::Overview => "overview",
            Context::Finder => "finder",
            Context::Help => "help",
            Context::Prompt => "migrate prompt",
            Context::Review => "migration review",
            Context::HunkEditor => "hunk editor",
            Context::TestRun => "test run",
            Context::Search => "search",
            Context::Findings => "review findings",
            Context::TreeFilter => "tree filter",
            Context::Palette => "command palette",
        }
    }
}

/// A key as the table spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    Char(char),
    Ctrl(char),
    Code(KeyCode),
}

impl Key {
    pub fn label(self) -> String {
        match self {
            Key::Char(' ') => "space".to_owned(),
            Key::Char(c) => c.to_string(),
            Key::Ctrl(c) => format!("ctrl-{c}"),
            Key::Code(code) => match code {
                KeyCode::Up => "↑".to_owned(),
                KeyCode::Down => "↓".to_owned(),
                KeyCode::Left => "←".to_owned(),
                KeyCode::Right => "→".to_owned(),
                KeyCode::Enter => "enter".to_owned(),
                KeyCode::Esc => "esc".to_owned(),
                KeyCode::Tab => "tab".to_owned(),
                KeyCode::BackTab => "shift-tab".to_owned(),
                KeyCode::Backspace => "backspace".to_owned(),
                KeyCode::PageUp => "pgup".to_owned(),
                KeyCode::PageDown => "pgdn".to_owned(),
                KeyCode::Home => "home".to_owned(),
                KeyCode::End => "end".to_owned(),
                other => format!("{other:?}").to_lowercase(),
            },
        }
    }

    fn matches(self, ev: &KeyEvent) -> bool {
        let ctrl = ev.modifiers.contains(KeyModifiers::CONTROL);
        match (self, ev.code) {
            (Key::Char(c), KeyCode::Char(got)) => !ctrl && c == got,
            (Key::Ctrl(c), KeyCode::Char(got)) => ctrl && c.eq_ignore_ascii_case(&got),
            (Key::Code(code), got) => code == got,
            _ => false,
        }
    }
}

pub struct Binding {
    pub context: Context,
    pub keys: &'static [Key],
    pub action: Action,
    pub description: &'static str,
    /// Shown in the hint bar (the rest only on the help screen).
    pub hint: bool,
}

impl Binding {
    pub fn label(&self) -> String {
        self.keys
            .iter()
            .map(|k| k.label())
            .collect::<Vec<_>>()
            .join("/")
    }

    /// The shortest key, for the hint bar.
    pub fn short_label(&self) -> String {
        self.keys.first().map(|k| k.label()).unwrap_or_default()
    }
}

use Action::*;
use Context::*;
use Key::{Char, Code, Ctrl};

const fn bind(
    context: Context,
    keys: &'static [Key],
    action: Action,
    description: &'static str,
    hint: bool,
) -> Binding {
    Binding {
        context,
        keys,
        action,
        description,
        hint,
    }
}

pub const BINDINGS: &[Binding] = &[
    // Contexts with text input or overlays come first in routing, not here.
    bind(
        Finder,
        &[Code(KeyCode::Enter)],
        Focus,
        "make the selected declaration the root",
        true,
    ),
    bind(
        Finder,
        &[Code(KeyCode::Esc)],
        Close,
        "close the finder",
        true,
    ),
    bind(
        Finder,
        &[Code(KeyCode::Up), Ctrl('p')],
        Up,
        "previous result",
        true,
    ),
    bind(
        Finder,
        &[Code(KeyCode::Down), Ctrl('n')],
        Down,
        "next result",
        true,
    ),
    bind(Finder, &[Ctrl('u')], ClearQuery, "clear the query", false),
    bind(
        Palette,
        &[Code(KeyCode::Enter)],
        Submit,
        "run the selected action",
        true,
    ),
    bind(
        Palette,
        &[Code(KeyCode::Esc)],
        Close,
        "close the palette",
        true,
    ),
    bind(
        Palette,
        &[Code(KeyCode::Up), Ctrl('p')],
        Up,
        "previous action",
        true,
    ),
    bind(
        Palette,
        &[Code(KeyCode::Down), Ctrl('n')],
        Down,
        "next action",
        true,
    ),
    bind(Palette, &[Ctrl('u')], ClearQuery, "clear the query", false),
    bind(
        TreeFilter,
        &[Code(KeyCode::Enter)],
        Submit,
        "keep the filter, back to the tree",
        true,
    ),
    bind(
        TreeFilter,
        &[Code(KeyCode::Esc)],
        ClearFilter,
        "clear the filter",
        true,
    ),
    bind(
        TreeFilter,
        &[Code(KeyCode::Up)],
        Up,
        "move up (among the rows shown)",
        true,
    ),
    bind(
        TreeFilter,
        &[Code(KeyCode::Down)],
        Down,
        "move down (among the rows shown)",
        true,
    ),
    bind(
        TreeFilter,
        &[Ctrl('u')],
        ClearQuery,
        "clear the query",
        false,
    ),
    bind(
        Help,
        &[Code(KeyCode::Esc), Char('?'), Char('q')],
        Close,
        "close help",
        true,
    ),
    bind(
        Help,
        &[Char('j'), Code(KeyCode::Down)],
        Down,
        "scroll down",
        false,
    ),
    bind(
        Help,
        &[Char('k'), Code(KeyCode::Up)],
        Up,
        "scroll up",
        false,
    ),
    bind(
        Prompt,
        &[Code(KeyCode::Enter)],
        Submit,
        "start the migration",
        true,
    ),
    bind(Prompt, &[Code(KeyCode::Esc)], Close, "cancel", true),
    bind(
        HunkEditor,
        &[Ctrl('s')],
        Submit,
        "save the replacement (re-planned against the file)",
        true,
    ),
    bind(
        HunkEditor,
        &[Code(KeyCode::Esc)],
        Close,
        "discard the edit",
        true,
    ),
    bind(
        TestRun,
        &[Code(KeyCode::Esc)],
        Close,
        "cancel the run (kills it); when done, close",
        true,
    ),
    bind(
        TestRun,
        &[Char('t')],
        RunTests,
        "run the same tests again",
        true,
    ),
    bind(
        TestRun,
        &[Char('j'), Code(KeyCode::Down)],
        Down,
        "scroll down",
        true,
    ),
    bind(
        TestRun,
        &[Char('k'), Code(KeyCode::Up)],
        Up,
        "scroll up",
        true,
    ),
    bind(
        TestRun,
        &[Code(KeyCode::PageDown), Ctrl('d')],
        PageDown,
        "page down",
        false,
    ),
    bind(
        TestRun,
        &[Code(KeyCode::PageUp), Ctrl('u')],
        PageUp,
        "page up",
        false,
    ),
    bind(
        Search,
        &[Code(KeyCode::Enter)],
        Focus,
        "make the selected result the root",
        true,
    ),
    bind(Search, &[Code(KeyCode::Esc)], Close, "close", true),
    bind(Search, &[Ctrl('u')], ClearQuery, "clear the query", false),
    bind(
        Search,
        &[Code(KeyCode::Up), Ctrl('p')],
        Up,
        "previous result",
        true,
    ),
    bind(
        Search,
        &[Code(KeyCode::Down), Ctrl('n')],
        Down,
        "next result",
        true,
    ),
    bind(
        Findings,
        &[Code(KeyCode::Enter)],
        Focus,
        "jump to the code",
        true,
    ),
    bind(Findings, &[Code(KeyCode::Esc)], Close, "close", true),
    bind(
        Findings,
        &[Char('j'), Code(KeyCode::Down)],
        Down,
        "next finding",
        true,
    ),
    bind(
        Findings,
        &[Char('k'), Code(KeyCode::Up)],
        Up,
        "previous finding",
        true,
    ),
    bind(
        Review,
        &[Char('y')],
        Accept,
        "accept the hunk (stable: twice)",
        true,
    ),
    bind(Review, &[Char('n')], Reject, "reject the hunk", true),
    bind(
        Review,
        &[Char('e')],
        EditHunk,
        "edit the replacement in place",
        true,
    ),
    bind(Review, &[Char('s')], Skip, "skip for now", true),
    bind(
        Review,
        &[Char('u')],
        UndoDecision,
        "undo the last decision",
        true,
    ),
    bind(
        Review,
        &[Char('a')],
        AcceptFile,
        "accept the rest in this file",
        false,
    ),
    bind(
        Review,
        &[Char('d')],
        RejectFile,
        "reject the rest in this file",
        false,
    ),
    bind(
        Review,
        &[Char('w')],
        WriteAccepted,
        "write accepted hunks to disk",
        true,
    ),
    bind(
        Review,
        &[Char('U')],
        UndoWrite,
        "undo the last write (restores the files)",
        true,
    ),
    bind(
        Review,
        &[Char('t')],
        RunTests,
        "run the tests that reach the changed function",
        true,
    ),
    bind(
        Review,
        &[Char('j'), Code(KeyCode::Down)],
        Down,
        "next hunk",
        false,
    ),
    bind(
        Review,
        &[Char('k'), Code(KeyCode::Up)],
        Up,
        "previous hunk",
        false,
    ),
    bind(
        Review,
        &[Code(KeyCode::PageDown), Ctrl('d')],
        PageDown,
        "scroll down",
        false,
    ),
    bind(
        Review,
        &[Code(KeyCode::PageUp), Ctrl('u')],
        PageUp,
        "scroll up",
        false,
    ),
    bind(
        Review,
        &[Code(KeyCode::Esc)],
        Close,
        "close the review (cancels a running stream)",
        true,
    ),
    bind(
        Tree,
        &[Char('m')],
        Migrate,
        "migrate its callers (LLM)",
        true,
    ),
    bind(
        Tree,
        &[Char('t')],
        RunTests,
        "run the tests that reach it",
        true,
    ),
    bind(
        Tree,
        &[Char('S')],
        Similar,
        "declarations most similar to it",
        false,
    ),
    bind(
        Tree,
        &[Char('f')],
        Filter,
        "filter the rows by name (fuzzy)",
        false,
    ),
    bind(
        Tree,
        &[Code(KeyCode::Esc)],
        ClearFilter,
        "clear the filter",
        false,
    ),
    bind(
        Tree,
        &[Char('j'), Code(KeyCode::Down)],
        Down,
        "move down",
        true,
    ),
    bind(Tree, &[Char('k'), Code(KeyCode::Up)], Up, "move up", true),
    bind(
        Tree,
        &[Char('l'), Code(KeyCode::Right)],
        Expand,
        "expand (again: go to first child)",
        true,
    ),
    bind(
        Tree,
        &[Char('h'), Code(KeyCode::Left)],
        Collapse,
        "collapse (again: go to parent)",
        true,
    ),
    bind(
        Tree,
        &[Code(KeyCode::Enter)],
        Focus,
        "make the selected node the root",
        true,
    ),
    bind(
        Tree,
        &[Code(KeyCode::PageDown), Ctrl('d')],
        PageDown,
        "page down",
        false,
    ),
    bind(
        Tree,
        &[Code(KeyCode::PageUp), Ctrl('u')],
        PageUp,
        "page up",
        false,
    ),
    bind(
        Tree,
        &[Char('g'), Code(KeyCode::Home)],
        Top,
        "first row",
        false,
    ),
    bind(
        Tree,
        &[Char('G'), Code(KeyCode::End)],
        Bottom,
        "last row",
        false,
    ),
    bind(
        Source,
        &[Char('j'), Code(KeyCode::Down)],
        Down,
        "scroll down",
        true,
    ),
    bind(
        Source,
        &[Char('k'), Code(KeyCode::Up)],
        Up,
        "scroll up",
        true,
    ),
    bind(
        Source,
        &[Code(KeyCode::PageDown), Ctrl('d')],
        PageDown,
        "page down",
        false,
    ),
    bind(
        Source,
        &[Code(KeyCode::PageUp), Ctrl('u')],
        PageUp,
        "page up",
        false,
    ),
    bind(
        Source,
        &[Char('g'), Code(KeyCode::Home)],
        Top,
        "back to the declaration",
        false,
    ),
    bind(
        Source,
        &[Char('G'), Code(KeyCode::End)],
        Bottom,
        "end of file",
        false,
    ),
    bind(
        Blast,
        &[Char('j'), Code(KeyCode::Down)],
        Down,
        "next row of its lists (no list: scroll)",
        true,
    ),
    bind(
        Blast,
        &[Char('k'), Code(KeyCode::Up)],
        Up,
        "previous row of its lists",
        true,
    ),
    bind(
        Blast,
        &[Code(KeyCode::Enter)],
        Focus,
        "open the row: test as root, call site at its line",
        true,
    ),
    bind(
        Blast,
        &[Char('t')],
        RunTests,
        "on a test: run it alone",
        true,
    ),
    bind(
        Blast,
        &[Code(KeyCode::PageDown), Ctrl('d')],
        PageDown,
        "scroll down",
        false,
    ),
    bind(
        Blast,
        &[Code(KeyCode::PageUp), Ctrl('u')],
        PageUp,
        "scroll up",
        false,
    ),
    bind(
        Blast,
        &[Char('g'), Code(KeyCode::Home)],
        Top,
        "back to the top",
        false,
    ),
    bind(
        Overview,
        &[Char('j'), Code(KeyCode::Down)],
        Down,
        "move down",
        true,
    ),
    bind(
        Overview,
        &[Char('k'), Code(KeyCode::Up)],
        Up,
        "move up",
        true,
    ),
    bind(
        Overview,
        &[Code(KeyCode::Enter)],
        Focus,
        "explore the selected item",
        true,
    ),
    bind(Overview, &[Code(KeyCode::Tab)], NextPane, "next list", true),
    bind(
        Overview,
        &[Code(KeyCode::BackTab)],
        PrevPane,
        "previous list",
        false,
    ),
    bind(
        Global,
        &[Char('/')],
        OpenFinder,
        "find a declaration (fuzzy)",
        true,
    ),
    bind(
        Global,
        &[Char('s')],
        OpenSearch,
        "search declarations by what they do",
        true,
    ),
    bind(
        Global,
        &[Char('R')],
        ShowFindings,
        "findings of the last `ripple review`",
        false,
    ),
    bind(
        Global,
        &[Char('E')],
        OpenEditor,
        "open $EDITOR at its line (source pane: the call site)",
        false,
    ),
    bind(
        Global,
        &[Char('y')],
        CopyName,
        "copy its qualified name (to the terminal's clipboard)",
        false,
    ),
    bind(
        Global,
        &[Char('Y')],
        CopyLocation,
        "copy its file:line",
        false,
    ),
    bind(
        Global,
        &[Char('c')],
        ToggleDirection,
        "toggle callers / callees",
        true,
    ),
    bind(
        Global,
        &[Char('+'), Char('=')],
        DepthUp,
        "blast radius one hop deeper",
        true,
    ),
    bind(
        Global,
        &[Char('-')],
        DepthDown,
        "blast radius one hop shallower",
        true,
    ),
    bind(Global, &[Code(KeyCode::Tab)], NextPane, "next pane", true),
    bind(
        Global,
        &[Code(KeyCode::BackTab)],
        PrevPane,
        "previous pane",
        false,
    ),
    bind(
        Global,
        &[Code(KeyCode::Backspace), Char('[')],
        Back,
        "back to the previous view, as it was",
        false,
    ),
    bind(Global, &[Char(']')], Forward, "forward again", false),
    bind(
        Global,
        &[Char('o')],
        ShowOverview,
        "overview of the repository",
        true,
    ),
    bind(
        Global,
        &[Char(':')],
        OpenPalette,
        "command palette: any action by name",
        true,
    ),
    bind(Global, &[Char('?')], ShowHelp, "help: every key", true),
    bind(
        Global,
        &[Char('q'), Ctrl('c')],
        Quit,
        "quit (ctrl-c cancels a running migration first)",
        true,
    ),
];

/// The action bound to `ev` in the first of `contexts` that binds it.
pub fn action_for(contexts: &[Context], ev: &KeyEvent) -> Option<Action> {
    contexts.iter().find_map(|&ctx| {
        BINDINGS
            .iter()
            .find(|b| b.context == ctx && b.keys.iter().any(|k| k.matches(ev)))
            .map(|b| b.action)
    })
}

/// Bindings shown in the hint bar for this routing stack, innermost first;
/// an action already described by an inner context is not repeated, nor
/// is a binding whose key an inner context takes (it cannot be reached).
pub fn hints(contexts: &[Context]) -> Vec<&'static Binding> {
    let mut out: Vec<&'static Binding> = Vec::new();
    for (i, &ctx) in contexts.iter().enumerate() {
        let inner = &contexts[..i];
        for b in BINDINGS.iter().filter(|b| b.context == ctx && b.hint) {
            let shadowed = b.keys.first().is_some_and(|k| {
                BINDINGS
                    .iter()
                    .any(|o| inner.contains(&o.context) && o.keys.contains(k))
            });
            if !shadowed && !out.iter().any(|o| o.action == b.action) {
                out.push(b);
            }
        }
    }
    out
}

/// Contexts in the order the help screen lists them.
pub const HELP_ORDER: &[Context] = &[
    Global, Tree, TreeFilter, Source, Blast, Overview, Finder, Palette, Help, Prompt, Review,
    HunkEditor, TestRun, Search, Findings,
];

/// The manual's key table in docs/manual.md (tests/tui_keys.rs keeps it in sync).
pub fn markdown_table() -> String {
    let mut s = String::from("| where | keys | action |\n|---|---|---|\n");
    for &ctx in HELP_ORDER {
        for b in BINDINGS.iter().filter(|b| b.context == ctx) {
            let keys = b
                .keys
                .iter()
                .map(|k| format!("`{}`", k.label().replace('|', "\\|")))
                .collect::<Vec<_>>()
                .join(" ");
            s.push_str(&format!(
                "| {} | {} | {} |\n",
                ctx.title(),
                keys,
                b.description
            ));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn inner_contexts_win_and_global_is_the_fallback() {
        let tree = [Tree, Global];
        assert_eq!(action_for(&tree, &key(KeyCode::Char('j'))), Some(Down));
        assert_eq!(action_for(&tree, &key(KeyCode::Char('q'))), Some(Quit));
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(action_for(&tree, &ctrl_c), Some(Quit));
        assert_eq!(
            action_for(&tree, &key(KeyCode::Char('c'))),
            Some(ToggleDirection)
        );
        assert_eq!(action_for(&[Help], &key(KeyCode::Char('q'))), Some(Close));
    }

    #[test]
    fn no_key_is_bound_twice_in_one_context() {
        for a in BINDINGS {
            for b in BINDINGS {
                if std::ptr::eq(a, b) || a.context != b.context {
                    continue;
                }
                for k in a.keys {
                    assert!(!b.keys.contains(k), "{k:?} bound twice in {:?}", a.context);
                }
            }
        }
    }
}

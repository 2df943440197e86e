//! Any sequence of source edits, each followed by the refresh a user's
//! next command runs, leaves the index with the graph a cold index of the
//! same tree has. Random sequences of real kinds of edits (calls added and
//! removed, functions added, removed, renamed and moved, classes, imports
//! and bases, files deleted, syntax broken and mended, comments) are
//! applied to copies of the demo and of the fixture repositories; after
//! each, the refreshed index is compared with a cold one, declaration by
//! declaration, edge by edge, and at the end of each sequence the JSON of
//! `ripple edges` and `ripple unresolved` is compared too.
//!
//! A failure prints the seed, the edits so far and the first lines that
//! differ, and the command that replays it.

#[path = "../common/mod.rs"]
mod common;
mod go;
mod python;

use go::*;
use python::*;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

use ripple::index::{Index, NoProgress};
use ripple::model::Lang;

/// SplitMix64: small, seedable and the same everywhere, so a printed seed
/// replays the same edits.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        if items.is_empty() {
            None
        } else {
            Some(&items[self.below(items.len())])
        }
    }
}

/// A private copy of a repository under edit.
struct Repo {
    root: PathBuf,
    /// The mtime of the next write. The store takes a file whose size and
    /// mtime are unchanged for unchanged, and an edit can keep the size,
    /// so every write moves the mtime past all earlier ones.
    clock: SystemTime,
    /// Numbers the names edits introduce, so none collides with another.
    fresh: u32,
    /// Syntax errors introduced and not yet mended. Their files are left
    /// alone by other edits until then: the outlines below read valid code.
    broken: Vec<Broken>,
    /// Files deleted, with their last content, for an edit to bring back.
    deleted: Vec<(String, Vec<String>)>,
}

struct Broken {
    path: String,
    /// Text only the broken line holds.
    marker: String,
    /// The line it replaced; `None` when the broken line was inserted.
    original: Option<String>,
}

impl Repo {
    fn new(root: PathBuf) -> Repo {
        Repo {
            root,
            clock: SystemTime::now() + Duration::from_secs(10),
            fresh: 0,
            broken: Vec::new(),
            deleted: Vec::new(),
        }
    }

    /// Every Python and Go file, sorted, but those with a pending syntax error.
    fn sources(&self) -> Vec<String> {
        fn walk(dir: &Path, rel: &str, out: &mut Vec<String>) {
            let Ok(entries) = std::fs::read_dir(dir) else {
                return;
            };
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let path = if rel.is_empty() {
                    name.clone()
                } else {
                    format!("{rel}/{name}")
                };
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                if kind.is_dir() {
                    if name != ".ripple" {
                        walk(&entry.path(), &path, out);
                    }
                } else if Lang::from_path(&name).is_some() {
                    out.push(path);
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.root, "", &mut out);
        out.retain(|p| !self.broken.iter().any(|b| &b.path == p));
        out.sort();
        out
    }

    fn sources_in(&self, lang: Lang) -> Vec<String> {
        let mut files = self.sources();
        files.retain(|p| Lang::from_path(p) == Some(lang));
        files
    }

    fn read(&self, rel: &str) -> Vec<String> {
        std::fs::read_to_string(self.root.join(rel))
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    fn write(&mut self, rel: &str, lines: &[String]) {
        let mut text = lines.join("\n");
        text.push('\n');
        let path = self.root.join(rel);
        std::fs::write(&path, text).unwrap();
        self.touch(rel);
    }

    fn touch(&mut self, rel: &str) {
        let file = std::fs::File::options()
            .write(true)
            .open(self.root.join(rel))
            .unwrap();
        file.set_modified(self.clock).unwrap();
        self.clock += Duration::from_secs(1);
    }

    fn fresh(&mut self) -> u32 {
        self.fresh += 1;
        self.fresh
    }
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

fn is_code(line: &str) -> bool {
    let t = line.trim();
    !t.is_empty() && !t.starts_with('#') && !t.starts_with("//")
}

fn identifier(text: &str) -> &str {
    let end = text
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

/// `text` with every whole-word `from` replaced by `to`.
fn replace_word(text: &str, from: &str, to: &str) -> String {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(from) {
        out.push_str(&rest[..at]);
        let before = out.chars().next_back();
        let after = rest[at + from.len()..].chars().next();
        // A quote after the word would make it a string prefix.
        if before.is_some_and(word) || after.is_some_and(|c| word(c) || c == '"' || c == '\'') {
            out.push_str(from);
        } else {
            out.push_str(to);
        }
        rest = &rest[at + from.len()..];
    }
    out.push_str(rest);
    out
}

// ------------------------------------------------------ either language

/// Renames a definition's header: the first `name` after `keyword`.
fn rename_header(line: &str, keyword: &str, name: &str, new: &str) -> Option<String> {
    let at = line.find(keyword)? + keyword.len();
    let rel = line[at..].find(name)?;
    let at = at + rel;
    Some(format!("{}{new}{}", &line[..at], &line[at + name.len()..]))
}

fn rename(repo: &mut Repo, rng: &mut Rng, path: &str, callers: bool) -> Option<String> {
    let lang = Lang::from_path(path)?;
    let n = repo.fresh();
    let (name, header, line) = match lang {
        Lang::Python => {
            let file = PyFile::read(repo, path);
            let funcs: Vec<&PyDef> = file
                .defs
                .iter()
                .filter(|d| !d.is_class && d.name.len() >= 3)
                .collect();
            let f = *rng.pick(&funcs)?;
            (f.name.clone(), f.header, file.lines[f.header].clone())
        }
        Lang::Go => {
            let file = GoFile::read(repo, path);
            let funcs: Vec<&GoFunc> = file.funcs.iter().filter(|f| f.name.len() >= 3).collect();
            let f = *rng.pick(&funcs)?;
            (f.name.clone(), f.header, file.lines[f.header].clone())
        }
    };
    let new = match lang {
        Lang::Python => format!("{name}_r{n}"),
        Lang::Go => format!("{name}R{n}"),
    };
    if !callers {
        let keyword = if lang == Lang::Python {
            "def "
        } else {
            "func "
        };
        let keyword = if lang == Lang::Go && line.starts_with("func (") {
            ") "
        } else {
            keyword
        };
        let mut lines = repo.read(path);
        lines[header] = rename_header(&line, keyword, &name, &new)?;
        repo.write(path, &lines);
        return Some(format!("{path}:{}: rename {name} to {new}", header + 1));
    }
    // A Go name is visible only within its module.
    let module = go_module(repo, path);
    let mut changed = Vec::new();
    for other in repo.sources_in(lang) {
        if lang == Lang::Go && go_module(repo, &other) != module {
            continue;
        }
        let text = std::fs::read_to_string(repo.root.join(&other)).unwrap();
        let renamed = replace_word(&text, &name, &new);
        if renamed != text {
            let lines: Vec<String> = renamed.lines().map(str::to_owned).collect();
            repo.write(&other, &lines);
            changed.push(other);
        }
    }
    Some(format!(
        "rename {name} (defined in {path}) to {new} everywhere: {}",
        changed.join(", ")
    ))
}

/// Deletes a file, renames one, or brings back one deleted before.
fn file_op(repo: &mut Repo, rng: &mut Rng, path: &str) -> Option<String> {
    if !repo.deleted.is_empty() && rng.chance(30) {
        let (old, lines) = repo.deleted.remove(rng.below(repo.deleted.len()));
        if repo.root.join(&old).exists() {
            return None;
        }
        repo.write(&old, &lines);
        return Some(format!("restore {old}"));
    }
    if rng.chance(40) {
        let n = repo.fresh();
        let (stem, ext) = path.rsplit_once('.')?;
        let new = format!("{stem}_{n}.{ext}");
        std::fs::rename(repo.root.join(path), repo.root.join(&new)).unwrap();
        return Some(format!("rename {path} to {new}"));
    }
    if repo.sources().len() < 4 {
        return None;
    }
    let lines = repo.read(path);
    std::fs::remove_file(repo.root.join(path)).unwrap();
    repo.deleted.push((path.to_owned(), lines));
    Some(format!("delete {path}"))
}

/// Breaks the syntax of a file in one line, which a later edit mends.
fn break_syntax(repo: &mut Repo, rng: &mut Rng, path: &str) -> Option<String> {
    let n = repo.fresh();
    let marker = format!("ripple_broken_{n}");
    let mut lines = repo.read(path);
    // (line, replacement, replaced)
    let (at, broken, original) = match Lang::from_path(path)? {
        Lang::Python => {
            let file = PyFile::read(repo, path);
            let f = rng.pick(&file.defs)?.clone();
            let header = lines[f.header].clone();
            match (rng.below(3), f.body) {
                (0, _) if header.contains(')') && !header.contains('#') => {
                    let close = header.rfind(')')?;
                    let line = format!("{}{}  # {marker}", &header[..close], &header[close + 1..]);
                    (f.header, line, Some(header))
                }
                (1, Some(body)) => {
                    let pad = &lines[body][..indent(&lines[body])];
                    (body, format!("{pad}{marker} = ("), None)
                }
                (_, Some(body)) => {
                    let pad = &lines[body][..indent(&lines[body])];
                    (body, format!("{pad}{marker} = \"unterminated"), None)
                }
                _ => return None,
            }
        }
        Lang::Go => {
            let file = GoFile::read(repo, path);
            let f = rng.pick(&file.funcs)?.clone();
            let header = lines[f.header].clone();
            match (rng.below(3), f.body) {
                (0, _) if header.contains(')') && !header.contains("//") => {
                    let close = header.rfind(')')?;
                    let line = format!("{}{}  // {marker}", &header[..close], &header[close + 1..]);
                    (f.header, line, Some(header))
                }
                (1, Some(body)) => (body, format!("\t{marker} := ("), None),
                (_, Some(_)) => (f.end - 1, format!("// {marker}"), Some("}".to_owned())),
                _ => return None,
            }
        }
    };
    let what = format!("{path}:{}: break the syntax: `{}`", at + 1, broken.trim());
    match &original {
        Some(_) => lines[at] = broken,
        None => lines.insert(at, broken),
    }
    repo.write(path, &lines);
    repo.broken.push(Broken {
        path: path.to_owned(),
        marker,
        original,
    });
    Some(what)
}

fn mend_syntax(repo: &mut Repo, rng: &mut Rng) -> Option<String> {
    let b = repo.broken.remove(rng.below(repo.broken.len()));
    let mut lines = repo.read(&b.path);
    let at = lines.iter().position(|l| l.contains(&b.marker))?;
    match &b.original {
        Some(line) => lines[at] = line.clone(),
        None => {
            lines.remove(at);
        }
    }
    repo.write(&b.path, &lines);
    Some(format!("{}:{}: mend the syntax", b.path, at + 1))
}

/// A comment or a blank line added, or a comment changed: nothing
/// resolution reads, though lines below it move.
fn comment(repo: &mut Repo, rng: &mut Rng, path: &str) -> Option<String> {
    let n = repo.fresh();
    let lang = Lang::from_path(path)?;
    let mut lines = repo.read(path);
    let hash = if lang == Lang::Python { "#" } else { "//" };
    // Lines a whole-line comment may go before.
    let open: Vec<usize> = match lang {
        Lang::Python => {
            let starts = py_starts(&lines);
            (0..lines.len()).filter(|&i| starts[i]).collect()
        }
        Lang::Go => {
            let code = go_code(&lines);
            (0..lines.len()).filter(|&i| code[i]).collect()
        }
    };
    let comments: Vec<usize> = open
        .iter()
        .copied()
        .filter(|&i| lines[i].trim_start().starts_with(hash))
        .collect();
    // Comments that change how a file is indexed: marked generated, or
    // left out of every Go build.
    let headers: &[&str] = match lang {
        Lang::Python => &["# @generated"],
        Lang::Go => &[
            "//go:build ignore",
            "// Code generated by ripple. DO NOT EDIT.",
        ],
    };
    let what = match rng.below(5) {
        4 => {
            if headers.contains(&lines.first()?.as_str()) {
                let header = lines.remove(0);
                if lines.first().is_some_and(|l| l.is_empty()) {
                    lines.remove(0);
                }
                format!("{path}: remove `{header}`")
            } else {
                let header = *rng.pick(headers)?;
                lines.splice(0..0, [header.to_owned(), String::new()]);
                format!("{path}: insert `{header}` first")
            }
        }
        0 if !comments.is_empty() => {
            let i = *rng.pick(&comments)?;
            lines[i].push_str(&format!(" (edited {n})"));
            format!("{path}:{}: edit a comment", i + 1)
        }
        1 | 2 => {
            let i = *rng.pick(&open)?;
            lines.insert(i, String::new());
            format!("{path}:{}: insert a blank line", i + 1)
        }
        _ => {
            let i = rng.pick(&open).copied().unwrap_or(0);
            let pad = lines
                .get(i)
                .map(|l| l[..indent(l)].to_owned())
                .unwrap_or_default();
            lines.insert(i, format!("{pad}{hash} note {n}"));
            format!("{path}:{}: insert a comment", i + 1)
        }
    };
    repo.write(path, &lines);
    Some(what)
}

fn touch(repo: &mut Repo, _rng: &mut Rng, path: &str) -> Option<String> {
    repo.touch(path);
    Some(format!("{path}: touch (same content, new mtime)"))
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    AddCall,
    RemoveCall,
    AddFunction,
    RemoveFunction,
    AddClass,
    AddImport,
    Base,
    Rename,
    RenameWithCallers,
    Move,
    FileOp,
    BreakSyntax,
    Comment,
    Touch,
}

/// Each kind of edit with its weight. Kinds that apply to fewer files
/// (bases: Python classes; moves: files with a sibling) weigh more.
const KINDS: &[(Kind, usize)] = &[
    (Kind::AddCall, 6),
    (Kind::RemoveCall, 4),
    (Kind::AddFunction, 3),
    (Kind::RemoveFunction, 3),
    (Kind::AddClass, 2),
    (Kind::AddImport, 3),
    (Kind::Base, 5),
    (Kind::Rename, 2),
    (Kind::RenameWithCallers, 2),
    (Kind::Move, 4),
    (Kind::FileOp, 2),
    (Kind::BreakSyntax, 1),
    (Kind::Comment, 3),
    (Kind::Touch, 1),
];

fn apply(repo: &mut Repo, rng: &mut Rng, kind: Kind, path: &str) -> Option<String> {
    let lang = Lang::from_path(path)?;
    match (kind, lang) {
        (Kind::AddCall, Lang::Python) => py_add_call(repo, rng, path),
        (Kind::AddCall, Lang::Go) => go_add_call(repo, rng, path),
        (Kind::RemoveCall, Lang::Python) => py_remove_call(repo, rng, path),
        (Kind::RemoveCall, Lang::Go) => go_remove_call(repo, rng, path),
        (Kind::AddFunction, Lang::Python) => py_add_function(repo, rng, path),
        (Kind::AddFunction, Lang::Go) => go_add_function(repo, rng, path),
        (Kind::RemoveFunction, Lang::Python) => py_remove_function(repo, rng, path),
        (Kind::RemoveFunction, Lang::Go) => go_remove_function(repo, rng, path),
        (Kind::AddClass, Lang::Python) => py_add_class(repo, rng, path),
        (Kind::AddClass, Lang::Go) => go_add_type(repo, rng, path),
        (Kind::AddImport, Lang::Python) => py_add_import(repo, rng, path),
        (Kind::AddImport, Lang::Go) => go_add_import(repo, rng, path),
        (Kind::Base, Lang::Python) => py_base(repo, rng, path),
        (Kind::Base, Lang::Go) => None,
        (Kind::Rename, _) => rename(repo, rng, path, false),
        (Kind::RenameWithCallers, _) => rename(repo, rng, path, true),
        (Kind::Move, Lang::Python) => py_move(repo, rng, path),
        (Kind::Move, Lang::Go) => go_move(repo, rng, path),
        (Kind::FileOp, _) => file_op(repo, rng, path),
        (Kind::BreakSyntax, _) => break_syntax(repo, rng, path),
        (Kind::Comment, _) => comment(repo, rng, path),
        (Kind::Touch, _) => touch(repo, rng, path),
    }
}

/// One random edit, described.
fn edit(repo: &mut Repo, rng: &mut Rng) -> String {
    if !repo.broken.is_empty()
        && rng.chance(40)
        && let Some(what) = mend_syntax(repo, rng)
    {
        return what;
    }
    let total: usize = KINDS.iter().map(|(_, w)| w).sum();
    for _ in 0..100 {
        let mut roll = rng.below(total);
        let kind = KINDS
            .iter()
            .find(|(_, w)| {
                let hit = roll < *w;
                roll = roll.saturating_sub(*w);
                hit
            })
            .map(|(k, _)| *k)
            .unwrap();
        let files = repo.sources();
        let Some(path) = rng.pick(&files).cloned() else {
            break;
        };
        if let Some(what) = apply(repo, rng, kind, &path) {
            return format!("{kind:?}: {what}");
        }
    }
    "no edit applies".to_owned()
}

// ------------------------------------------------------------ comparing

/// Everything a refresh gives, one fact per line, in the index's own
/// order: files, declarations, edges with their call sites, unresolved
/// calls, imports, functions handed out, and the refresh's totals.
fn render(index: &Index) -> Vec<String> {
    let res = &index.res;
    let path = |f: ripple::model::FileId| index.files[f.index()].path.as_str();
    let site = |f: ripple::model::FileId, call: u32| match index.call_site(f, call) {
        Some((p, c)) => format!(
            "{p}:{} (line {} in the graph) `{}`",
            c.span.start_line,
            res.call_line(f, call),
            c.callee_text
        ),
        None => format!("{}:call {call} (no such call site)", path(f)),
    };
    let mut out = Vec::new();
    for (i, f) in index.files.iter().enumerate() {
        out.push(format!(
            "file {} {:?} hash {:016x} lines {} syntax errors {} generated {} module {:?}",
            f.path,
            f.lang,
            f.hash,
            f.lines,
            f.syntax_errors,
            f.generated,
            res.file_module.get(i)
        ));
    }
    for d in &res.decls {
        out.push(format!(
            "decl {} {:?} {:?} in {} #{} {:?} test {} parent {:?}",
            d.name,
            d.kind,
            d.lang,
            d.file.map_or("(external)", path),
            d.local,
            d.span,
            d.is_test,
            d.parent.map(|p| &*res.decls[p].name),
        ));
    }
    for e in &res.edges {
        out.push(format!(
            "edge {} -> {} {:?} at {}",
            res.decls[e.caller].name,
            res.decls[e.callee].name,
            e.confidence,
            site(e.file, e.call)
        ));
    }
    for u in &res.unresolved {
        out.push(format!(
            "unresolved {} at {}: {} (named {:?})",
            res.decls[u.caller].name,
            site(u.file, u.call),
            u.reason,
            res.unresolved_names.get(u.name as usize)
        ));
    }
    for (from, to) in &res.imports {
        out.push(format!("import {} -> {}", path(*from), path(*to)));
    }
    for h in &res.handed_out {
        out.push(format!(
            "handed out {} by {} at {}",
            res.decls[h.func].name,
            res.decls[h.caller].name,
            site(h.file, h.call)
        ));
    }
    let s = &index.stats;
    out.push(format!(
        "totals: {} files, {} declarations, {} edges, {} unresolved, {} lines, {} generated, syntax errors {:?}, skipped {:?}",
        s.files,
        s.declarations,
        s.edges,
        s.unresolved,
        s.lines,
        s.generated_files,
        s.files_with_syntax_errors,
        s.skipped
    ));
    out
}

/// The first lines that differ, with context, and what each side has
/// that the other lacks; `None` when equal.
fn diff(got: &[String], want: &[String], got_name: &str, want_name: &str) -> Option<String> {
    if got == want {
        return None;
    }
    let first = got
        .iter()
        .zip(want)
        .position(|(a, b)| a != b)
        .unwrap_or(got.len().min(want.len()));
    let mut out = format!("first difference at line {}:\n", first + 1);
    for (name, side) in [(got_name, got), (want_name, want)] {
        out.push_str(&format!("  {name}:\n"));
        for line in side.iter().skip(first.saturating_sub(2)).take(5) {
            out.push_str(&format!("    {line}\n"));
        }
    }
    let got_set: BTreeSet<&String> = got.iter().collect();
    let want_set: BTreeSet<&String> = want.iter().collect();
    for (name, only) in [
        (got_name, got_set.difference(&want_set).collect::<Vec<_>>()),
        (want_name, want_set.difference(&got_set).collect::<Vec<_>>()),
    ] {
        out.push_str(&format!("only in {name} ({} lines):\n", only.len()));
        for line in only.iter().take(20) {
            out.push_str(&format!("    {line}\n"));
        }
    }
    Some(out)
}

/// `ripple edges --format json` and `ripple unresolved --json` of `root`,
/// the root's path masked.
fn cli_graph(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for args in [
        &["edges", "--format", "json"][..],
        &["unresolved", "--json"][..],
    ] {
        let run = Command::new(env!("CARGO_BIN_EXE_ripple"))
            .arg("--repo")
            .arg(root)
            .args(args)
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "ripple {args:?}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        let text = String::from_utf8_lossy(&run.stdout)
            .replace(&*root.canonicalize().unwrap().to_string_lossy(), "<root>")
            .replace(&*root.to_string_lossy(), "<root>");
        out.extend(text.lines().map(str::to_owned));
    }
    out
}

/// Where a repository's copies come from, named relative to the crate.
fn source_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(name)
}

/// Applies `steps` rounds of random edits to a copy of `name`, refreshing
/// after each round and comparing with a cold index; an error describes
/// the first difference.
fn run(name: &str, seed: u64, steps: usize) -> Result<Vec<String>, String> {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    common::copy_dir(&source_dir(name), &root);
    let mut repo = Repo::new(root.clone());
    let mut rng = Rng(seed);
    let invalid = |index: &Index| -> BTreeSet<String> {
        let errors = &index.stats.files_with_syntax_errors;
        errors.iter().map(|(p, _)| p.clone()).collect()
    };
    let invalid_before = invalid(&Index::open(&root, &NoProgress).unwrap());
    let mut log = Vec::new();
    let fail = |log: &[String], step: usize, what: String| {
        format!(
            "{name}, seed {seed}: after step {step} {what}\nedits:\n  {}\nreplay: EDIT_SEQ_REPO={name} EDIT_SEQ_SEED={seed} EDIT_SEQ_STEPS={step} \
             cargo test --test edit_sequences replay -- --ignored --nocapture\n",
            log.join("\n  ")
        )
    };
    for step in 1..=steps {
        // Now and then several edits land before the next command, as
        // after a checkout or a save of many files.
        let edits = if rng.chance(25) { 2 + rng.below(2) } else { 1 };
        for _ in 0..edits {
            let what = edit(&mut repo, &mut rng);
            log.push(format!("{step}. {what}"));
        }
        // What the user's next command runs: a refresh of ROOT/.ripple.
        let refreshed = Index::open(&root, &NoProgress).unwrap();
        let got = render(&refreshed);
        drop(refreshed);
        let cold_db = tmp.path().join(format!("cold-{step}/index.db"));
        std::fs::create_dir_all(cold_db.parent().unwrap()).unwrap();
        let cold = Index::open_with(&root, Some(&cold_db), &NoProgress).unwrap();
        let want = render(&cold);
        // Edits other than the syntax breaks keep code valid, or the
        // sequence tests less than it claims.
        let unexpected: Vec<String> = invalid(&cold)
            .into_iter()
            .filter(|p| !invalid_before.contains(p) && !repo.broken.iter().any(|b| &b.path == p))
            .collect();
        drop(cold);
        if !unexpected.is_empty() {
            return Err(fail(
                &log,
                step,
                format!("an edit meant to keep code valid left syntax errors in {unexpected:?}"),
            ));
        }
        if let Some(d) = diff(&got, &want, "the refreshed index", "a cold index") {
            return Err(fail(
                &log,
                step,
                format!("the refreshed index differs from a cold one:\n{d}"),
            ));
        }
    }
    // The same through the binary, against a cold index of a copy.
    let copy = tmp.path().join("copy");
    common::copy_dir(&root, &copy);
    let got = cli_graph(&root);
    let want = cli_graph(&copy);
    if let Some(d) = diff(&got, &want, "the refreshed repository", "a cold copy") {
        return Err(fail(
            &log,
            steps,
            format!("`ripple edges`/`unresolved` differ from a cold copy's:\n{d}"),
        ));
    }
    Ok(log)
}

/// Runs every (repository, seed), on as many threads as there are cores
/// (a refresh waits on the disk as much as it computes), and fails with
/// every difference found.
fn check(runs: &[(String, u64)], steps: usize) {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..threads.min(runs.len()) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some((name, seed)) = runs.get(i) else {
                        break;
                    };
                    if let Err(failure) = run(name, *seed, steps) {
                        failures.lock().unwrap().push((i, failure));
                    }
                }
            });
        }
    });
    let mut failures = failures.into_inner().unwrap();
    failures.sort();
    assert!(
        failures.is_empty(),
        "{} of {} edit sequences failed:\n\n{}",
        failures.len(),
        runs.len(),
        failures
            .into_iter()
            .map(|(_, f)| f)
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// Each category of the Python fixtures as one repository, and each case
/// written to tangle the solve (sets past their cap, star imports), as
/// `tests/solve_order.rs` has them.
fn python_repositories() -> Vec<String> {
    let mut out = Vec::new();
    for parent in ["tests/fixtures/python", "tests/fixtures/solve_order"] {
        let entries = std::fs::read_dir(source_dir(parent)).unwrap();
        out.extend(
            entries
                .flatten()
                .filter(|e| e.path().is_dir())
                .map(|e| format!("{parent}/{}", e.file_name().to_string_lossy())),
        );
    }
    out.sort();
    out
}

#[test]
fn edit_sequences_on_the_demo() {
    check(
        &[("assets/demo".to_owned(), 1), ("assets/demo".to_owned(), 2)],
        5,
    );
}

#[test]
fn edit_sequences_on_the_python_fixtures() {
    let runs: Vec<(String, u64)> = python_repositories()
        .into_iter()
        .enumerate()
        .map(|(i, name)| (name, 100 + i as u64))
        .collect();
    assert!(runs.len() > 10, "fixtures not found");
    check(&runs, 4);
}

/// The Go fixtures, every module of them in one repository.
#[test]
fn edit_sequences_on_the_go_fixtures() {
    check(
        &[
            ("tests/fixtures/go".to_owned(), 1),
            ("tests/fixtures/go".to_owned(), 2),
        ],
        6,
    );
}

/// Longer and more sequences on every repository:
/// `cargo test --release --test edit_sequences -- --ignored`
/// (`EDIT_SEQ_SOAK=N` runs N seeds per repository, 10 by default).
#[test]
#[ignore]
fn soak() {
    let seeds: u64 = std::env::var("EDIT_SEQ_SOAK")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    let mut names = vec!["assets/demo".to_owned(), "tests/fixtures/go".to_owned()];
    names.extend(python_repositories());
    let runs: Vec<(String, u64)> = names
        .iter()
        .flat_map(|n| (0..seeds).map(move |s| (n.clone(), 1000 + s)))
        .collect();
    check(&runs, 30);
}

/// Replays one sequence a failure printed, listing its edits:
/// `EDIT_SEQ_REPO=assets/demo EDIT_SEQ_SEED=7 EDIT_SEQ_STEPS=5 cargo test
/// --test edit_sequences replay -- --ignored --nocapture`. Without
/// `EDIT_SEQ_REPO` it does nothing, so `-- --ignored` runs the soak alone.
#[test]
#[ignore]
fn replay() {
    let Ok(name) = std::env::var("EDIT_SEQ_REPO") else {
        println!("replay: set EDIT_SEQ_REPO, EDIT_SEQ_SEED and EDIT_SEQ_STEPS");
        return;
    };
    let number = |var: &str| -> u64 {
        let value = std::env::var(var).unwrap_or_else(|_| panic!("set {var}"));
        value
            .parse()
            .unwrap_or_else(|_| panic!("{var}={value}: not a number"))
    };
    let (seed, steps) = (number("EDIT_SEQ_SEED"), number("EDIT_SEQ_STEPS"));
    match run(&name, seed, steps as usize) {
        Ok(log) => println!("no difference after:\n  {}", log.join("\n  ")),
        Err(failure) => panic!("{failure}"),
    }
}

//! Resolution: turning every file's facts into one repository-wide table of
//! declarations with qualified names, and call sites into edges with a
//! [`Confidence`]. It runs over all facts on every load (the facts are
//! cached; this is pure in-memory work), so the graph is always consistent.
//!
//! Out-of-repo callees become external leaf declarations (`os.path.join`,
//! `<builtin>.len`, `fmt.Println`) rather than being dropped; call sites that
//! reach nothing are kept as [`Unresolved`] with a reason.

pub mod go;
mod go_std;
pub mod python;

use rustc_hash::FxHashMap as HashMap;

use serde::{Deserialize, Serialize};

use crate::lang::FileFacts;
use crate::model::{Confidence, DeclKind, Lang, Span};

pub use crate::model::{Decl, DeclId, Edge, FileId};

/// A declaration's index as the language resolvers compute with it: they
/// add file-local indices to a file's base and keep sentinel values past
/// the table's end, so they work on the bare number and the [`Builder`]
/// wraps it in a [`DeclId`] where a [`Decl`], [`Edge`] or [`Unresolved`]
/// is made.
type RawDeclId = u32;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Unresolved {
    pub caller: DeclId,
    pub file: FileId,
    pub call: u32,
    pub reason: String,
    /// The callee's last identifier ([`short_name`] of its text), as an
    /// index into [`Resolution::unresolved_names`]: a blast radius looks
    /// for call sites that may be missing callers by it, and would
    /// otherwise decode the facts of nearly every file to read them.
    pub name: u32,
}

/// A repository function passed, at a call site, to code ripple does not
/// follow: an out-of-repository callable (`threading.Thread(target=f)`,
/// `executor.submit(f)`) or a call that could not be resolved. That code
/// may call it, so its callers through there are not in the graph.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HandedOut {
    pub func: DeclId,
    pub caller: DeclId,
    pub file: FileId,
    pub call: u32,
}

/// A file as resolution sees it.
pub struct SourceFile<'a> {
    pub path: &'a str,
    pub facts: &'a FileFacts,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Resolution {
    #[serde(deserialize_with = "reserved_vec")]
    pub decls: Vec<Decl>,
    /// First global DeclId of each file's decls (they are contiguous).
    pub file_base: Vec<DeclId>,
    #[serde(deserialize_with = "reserved_vec")]
    pub edges: Vec<Edge>,
    pub unresolved: Vec<Unresolved>,
    /// Qualified package/module name of each file.
    pub file_module: Vec<String>,
    /// Imports between modules/packages of the repository (file, imported file).
    pub imports: Vec<(FileId, FileId)>,
    pub handed_out: Vec<HandedOut>,
    /// Per file, the line of each call site (by call index): a radius
    /// shows the line of every edge it follows, and reading them here
    /// spares decoding the display facts of every file it touches.
    pub call_lines: Vec<Box<[u32]>>,
    /// The distinct short callee names of unresolved call sites.
    pub unresolved_names: Vec<Box<str>>,
    /// Call sites whose callees were found by the method's name alone,
    /// their receiver's type being unknown, in (file, call) order.
    pub receiver_unknown: Vec<(FileId, u32)>,
    /// How much work this resolution took; not part of the cached graph.
    #[serde(skip)]
    pub work: ResolveWork,
}

/// What resolving the repository re-did, for a user asking why a refresh
/// was slow.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ResolveWork {
    /// Python files and Go files resolved.
    pub python_files: usize,
    pub go_files: usize,
    /// Flow constraints built from the Python files' facts.
    pub python_constraints: usize,
    /// Constraint evaluations past the first sweep, until the fixpoint.
    pub python_worklist_steps: usize,
    /// Rounds in which a changed class hierarchy re-ran its readers.
    pub python_hierarchy_epochs: usize,
    /// Strata past the first: rounds in which questions a fallback waited
    /// on were answered and their askers ran again.
    pub python_strata: usize,
}

impl Resolution {
    /// Every declaration's id, in table order.
    pub fn decl_ids(&self) -> impl Iterator<Item = DeclId> + use<> {
        (0..self.decls.len()).map(DeclId::new)
    }

    /// The line of call site `call` in file `file` (0 when unknown).
    pub fn call_line(&self, file: FileId, call: u32) -> u32 {
        self.call_lines
            .get(file.index())
            .and_then(|lines| lines.get(call as usize))
            .copied()
            .unwrap_or(0)
    }

    /// The lines of `facts`' call sites, for [`Resolution::call_lines`].
    pub fn lines_of_calls(facts: &FileFacts) -> Box<[u32]> {
        facts.calls.iter().map(|c| c.span.start_line).collect()
    }

    /// Whether the callees of call site `call` in `file` were found by the
    /// method's name alone (see [`Resolution::receiver_unknown`]).
    pub fn is_receiver_unknown(&self, file: FileId, call: u32) -> bool {
        self.receiver_unknown.binary_search(&(file, call)).is_ok()
    }

    /// The unresolved call sites whose callee's last identifier is `short`.
    pub fn unresolved_named<'a>(&'a self, short: &str) -> impl Iterator<Item = &'a Unresolved> {
        let id = self
            .unresolved_names
            .iter()
            .position(|n| &**n == short)
            .map(|i| i as u32);
        self.unresolved.iter().filter(move |u| Some(u.name) == id)
    }
}

/// The last identifier of a name or callee text (`self.repo.save` → `save`).
pub fn short_name(text: &str) -> &str {
    let t = text.trim_end_matches(')');
    t.rsplit(['.', ' ', '(', '*']).next().unwrap_or(t)
}

/// Decoding a cached graph, a vector takes its stated length at once.
/// serde reserves at most 1 MB up front against hostile lengths and then
/// doubles: Go's `src` has 530k edges, and the growth touched twice their
/// memory, fresh pages costing a fault and a zeroing each. A damaged length
/// reserves no more than this many elements before decoding fails.
fn reserved_vec<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    const MAX_RESERVED: usize = 1 << 22;
    struct Seq<T>(std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for Seq<T> {
        type Value = Vec<T>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a sequence")
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(MAX_RESERVED));
            while let Some(x) = seq.next_element()? {
                out.push(x);
            }
            Ok(out)
        }
    }
    d.deserialize_seq(Seq(std::marker::PhantomData))
}

/// Builds the declaration table and collects edges; language resolvers add to it.
pub struct Builder {
    pub res: Resolution,
    externals: HashMap<String, RawDeclId>,
}

impl Builder {
    fn new() -> Self {
        Builder {
            res: Resolution::default(),
            externals: HashMap::default(),
        }
    }

    /// The external leaf node named `name`, created on first use.
    pub fn external(&mut self, name: &str, lang: Lang) -> RawDeclId {
        if let Some(&id) = self.externals.get(name) {
            return id;
        }
        let id = self.res.decls.len() as RawDeclId;
        self.res.decls.push(Decl {
            name: name.into(),
            kind: DeclKind::Function,
            lang,
            file: None,
            local: 0,
            span: Span::default(),
            is_test: false,
            parent: None,
        });
        self.externals.insert(name.to_owned(), id);
        id
    }

    /// Add an edge; the same call site reaching the same callee twice keeps
    /// the most confident reading. Resolvers emit a call site's edges back
    /// to back, so a duplicate can only be among the last few edges: no
    /// repository-wide index is needed (on Go's 480k edges one cost 25 MB).
    pub fn edge(
        &mut self,
        caller: RawDeclId,
        callee: RawDeclId,
        confidence: Confidence,
        file: u32,
        call: u32,
    ) {
        let (caller, callee, file) = (DeclId(caller), DeclId(callee), FileId(file));
        let same_site = self
            .res
            .edges
            .iter_mut()
            .rev()
            .take_while(|e| e.file == file && e.call == call);
        for e in same_site {
            if e.caller == caller && e.callee == callee {
                e.confidence = e.confidence.min(confidence);
                return;
            }
        }
        self.res.edges.push(Edge {
            caller,
            callee,
            confidence,
            file,
            call,
        });
    }

    pub fn handed_out(&mut self, func: RawDeclId, caller: RawDeclId, file: u32, call: u32) {
        self.res.handed_out.push(HandedOut {
            func: DeclId(func),
            caller: DeclId(caller),
            file: FileId(file),
            call,
        });
    }

    /// Call site `call` of `file` was resolved by the method's name alone.
    pub fn receiver_unknown(&mut self, file: u32, call: u32) {
        self.res.receiver_unknown.push((FileId(file), call));
    }

    pub fn unresolved(&mut self, caller: RawDeclId, file: u32, call: u32, reason: String) {
        self.res.unresolved.push(Unresolved {
            caller: DeclId(caller),
            file: FileId(file),
            call,
            reason,
            name: 0,
        });
    }
}

/// A fingerprint of the resolution code: a cached resolution made by other
/// resolvers is never reused.
pub fn resolver_fingerprint() -> u64 {
    const SOURCES: &[&str] = &[
        include_str!("mod.rs"),
        python::SOURCES,
        include_str!("go/mod.rs"),
        include_str!("go/packages.rs"),
        include_str!("go/types.rs"),
        include_str!("go/methods.rs"),
        include_str!("go/values.rs"),
        include_str!("go/flow.rs"),
        include_str!("go/calls.rs"),
        include_str!("go/library.rs"),
        include_str!("go/emit.rs"),
        include_str!("go_std.rs"),
        include_str!("go_std.tsv"),
    ];
    crate::model::content_hash_of(SOURCES) ^ crate::lang::extractor_fingerprint().rotate_left(1)
}

/// The order in which the Python solver first visits its constraints and
/// takes them off its worklist. The graph must not depend on it: the
/// differential tests vary it (and `RIPPLE_DEBUG_SOLVE_ORDER=reverse` or
/// `shuffle:SEED` does from the command line) to show that it does not.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SolveOrder {
    #[default]
    Canonical,
    Reversed,
    Shuffled(u64),
}

impl SolveOrder {
    /// `RIPPLE_DEBUG_SOLVE_ORDER`: `reverse`, `shuffle:SEED`, anything else canonical.
    pub fn from_env() -> SolveOrder {
        let Some(v) = std::env::var_os("RIPPLE_DEBUG_SOLVE_ORDER") else {
            return SolveOrder::Canonical;
        };
        let v = v.to_string_lossy();
        if v == "reverse" {
            SolveOrder::Reversed
        } else if let Some(seed) = v.strip_prefix("shuffle:").and_then(|s| s.parse().ok()) {
            SolveOrder::Shuffled(seed)
        } else {
            SolveOrder::Canonical
        }
    }
}

thread_local! {
    static ORDER_OVERRIDE: std::cell::Cell<Option<SolveOrder>> = const { std::cell::Cell::new(None) };
}

/// Run `f` with every resolution on this thread visiting constraints in
/// `order`: how the differential tests index a repository in several
/// orders through the ordinary [`crate::index::Index`] entry points.
pub fn with_solve_order<T>(order: SolveOrder, f: impl FnOnce() -> T) -> T {
    let previous = ORDER_OVERRIDE.with(|o| o.replace(Some(order)));
    let out = f();
    ORDER_OVERRIDE.with(|o| o.set(previous));
    out
}

/// Resolve a whole repository.
/// `go_modules` lists each `go.mod` as (directory, module path).
pub fn resolve(files: &[SourceFile], go_modules: &[(String, String)]) -> Resolution {
    let order = ORDER_OVERRIDE
        .with(|o| o.get())
        .unwrap_or_else(SolveOrder::from_env);
    resolve_in_order(files, go_modules, order)
}

/// [`resolve`], visiting constraints in `order`.
pub fn resolve_in_order(
    files: &[SourceFile],
    go_modules: &[(String, String)],
    order: SolveOrder,
) -> Resolution {
    let mut b = Builder::new();
    // Qualified names need the whole file set (package roots, go.mod), so
    // they are computed here, not at extraction.
    let py_files: Vec<u32> = (0..files.len() as u32)
        .filter(|&i| files[i as usize].facts.lang == Lang::Python)
        .collect();
    let go_files: Vec<u32> = (0..files.len() as u32)
        .filter(|&i| files[i as usize].facts.lang == Lang::Go)
        .collect();
    b.res.work.python_files = py_files.len();
    b.res.work.go_files = go_files.len();
    let py_modules = python::module_names(files, &py_files);
    let go_packages = go::package_paths(files, &go_files, go_modules);
    b.res.file_module = vec![String::new(); files.len()];
    for (i, f) in files.iter().enumerate() {
        let base = b.res.decls.len() as RawDeclId;
        b.res.file_base.push(DeclId(base));
        let module = match f.facts.lang {
            Lang::Python => py_modules.get(&(i as u32)).cloned().unwrap_or_default(),
            Lang::Go => go_packages.get(&(i as u32)).cloned().unwrap_or_default(),
        };
        for d in &f.facts.decls {
            let name = match f.facts.lang {
                Lang::Python => python::qualified_name(&module, &d.local_name),
                Lang::Go => go::qualified_name(&module, &d.local_name),
            };
            b.res.decls.push(Decl {
                name: name.into(),
                kind: d.kind,
                lang: f.facts.lang,
                file: Some(FileId::new(i)),
                local: b.res.decls.len() as u32 - base,
                span: d.span,
                is_test: d.is_test,
                parent: d.parent.map(|p| DeclId(base + p)),
            });
        }
        b.res.file_module[i] = module;
    }
    crate::memory::trace("resolve (declarations named)");
    python::resolve(&mut b, files, &py_files, order);
    go::resolve(&mut b, files, &go_files);
    b.res.call_lines = files
        .iter()
        .map(|f| Resolution::lines_of_calls(f.facts))
        .collect();
    let mut name_ids: HashMap<&str, u32> = HashMap::default();
    for u in &mut b.res.unresolved {
        let text = files
            .get(u.file.index())
            .and_then(|f| f.facts.calls.get(u.call as usize))
            .map_or("", |c| c.callee_text.as_str());
        let short = short_name(text);
        let next = name_ids.len() as u32;
        u.name = *name_ids.entry(short).or_insert_with(|| {
            b.res.unresolved_names.push(short.into());
            next
        });
    }
    b.res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_site_reaching_a_callee_twice_keeps_one_edge_at_its_surest() {
        let mut b = Builder::new();
        b.edge(1, 2, Confidence::Possible, 0, 7);
        b.edge(1, 3, Confidence::Possible, 0, 7);
        b.edge(1, 2, Confidence::Certain, 0, 7);
        // The same pair from another call site is another edge.
        b.edge(1, 2, Confidence::Likely, 0, 8);
        b.edge(1, 2, Confidence::Possible, 1, 8);
        let edges: Vec<_> = b
            .res
            .edges
            .iter()
            .map(|e| (e.callee.0, e.confidence, e.file.0, e.call))
            .collect();
        assert_eq!(
            edges,
            [
                (2, Confidence::Certain, 0, 7),
                (3, Confidence::Possible, 0, 7),
                (2, Confidence::Likely, 0, 8),
                (2, Confidence::Possible, 1, 8),
            ]
        );
    }
}

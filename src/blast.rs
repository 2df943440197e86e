//! The blast radius of a declaration: everything that reaches it through at
//! most N caller hops, grouped by hop, with the files, packages and tests it
//! touches, certain and possible counted apart — and the reasons the answer
//! may be a lower bound (call sites nobody could resolve that may be callers).

use std::collections::BTreeSet;
use std::sync::Arc;

use serde::Serialize;

use crate::graph::{Direction, Graph, Reached};
use crate::index::Index;
use crate::model::Confidence;
use crate::resolve::{DeclId, FileId};

#[derive(Debug, Clone, Serialize)]
pub struct DeclRef {
    /// Shared with the index (a radius of thousands clones no strings).
    pub name: Arc<str>,
    pub kind: &'static str,
    pub file: Option<Arc<str>>,
    pub line: u32,
    pub is_test: bool,
    /// Declared in generated code; serialized only when true, so records
    /// of hand-written code read as before.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub generated: bool,
}

impl DeclRef {
    pub fn of(index: &Index, decl: DeclId) -> DeclRef {
        Self::sharing_paths(index, decl, &mut Vec::new())
    }

    /// [`DeclRef::of`], its file's path made once per file in `paths`
    /// (by file index) however many declarations of a radius it holds.
    fn sharing_paths(index: &Index, decl: DeclId, paths: &mut Vec<Option<Arc<str>>>) -> DeclRef {
        let d = &index.res.decls[decl];
        let file = d.file.and_then(|f| {
            let i = f.index();
            if paths.len() <= i {
                paths.resize(i + 1, None);
            }
            if paths[i].is_none() {
                paths[i] = Some(index.files.get(i)?.path.as_str().into());
            }
            paths[i].clone()
        });
        DeclRef {
            name: d.name.clone(),
            kind: if d.is_external() {
                "external"
            } else {
                d.kind.name()
            },
            file,
            line: d.span.start_line,
            is_test: d.is_test,
            generated: d
                .file
                .and_then(|f| index.files.get(f.index()))
                .is_some_and(|f| f.generated),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct ReachedRef {
    #[serde(flatten)]
    pub decl: DeclRef,
    pub hop: u32,
    pub confidence: Confidence,
    /// The declaration one hop closer to the root.
    pub via: Arc<str>,
    /// Line of the call that links this declaration to `via`.
    pub call_line: u32,
    /// The call's receiver had no known type: the edge goes to a method
    /// named like the call, one of the few the repository defines.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub receiver_unknown: bool,
}

impl ReachedRef {
    pub fn of(index: &Index, r: &Reached) -> ReachedRef {
        Self::sharing_paths(index, r, &mut Vec::new())
    }

    fn sharing_paths(index: &Index, r: &Reached, paths: &mut Vec<Option<Arc<str>>>) -> ReachedRef {
        let e = &index.res.edges[r.edge as usize];
        let call_line = index.res.call_line(e.file, e.call);
        ReachedRef {
            decl: DeclRef::sharing_paths(index, r.decl, paths),
            hop: r.hop,
            confidence: r.confidence,
            via: index.res.decls[r.via].name.clone(),
            call_line,
            receiver_unknown: index.res.is_receiver_unknown(e.file, e.call),
        }
    }
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Counts {
    pub total: usize,
    pub certain: usize,
    pub likely: usize,
    pub possible: usize,
}

impl Counts {
    fn add(&mut self, c: Confidence) {
        self.total += 1;
        match c {
            Confidence::Certain => self.certain += 1,
            Confidence::Likely => self.likely += 1,
            Confidence::Possible => self.possible += 1,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Hop {
    pub hop: u32,
    pub counts: Counts,
    pub decls: Vec<ReachedRef>,
}

#[derive(Debug, Clone, Serialize)]
pub struct UnresolvedRef {
    pub caller: String,
    pub file: String,
    pub line: u32,
    pub text: String,
    pub reason: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct BlastRadius {
    pub root: DeclRef,
    pub depth: u32,
    pub hops: Vec<Hop>,
    pub total: Counts,
    pub files: Vec<String>,
    pub packages: Vec<String>,
    /// Tests that reach the root within `depth` hops.
    pub tests: Vec<DeclRef>,
    /// Tests that reach it at any depth (what `ripple tests` lists and
    /// the explorer's `t` runs); `tests` is a part of them.
    pub tests_any_depth: usize,
    /// Unresolved call sites whose callee name matches the root's: each may be a missing caller.
    pub possibly_missing_callers: Vec<UnresolvedRef>,
    /// Unresolved call sites inside the radius (they may hide further paths).
    pub unresolved_inside: usize,
    /// Where the root is passed to code ripple does not follow (an
    /// out-of-repository callable such as `threading.Thread(target=…)`, or
    /// an unresolved call): that code may call it, unseen.
    pub handed_out: Vec<HandedOutRef>,
    /// Other functions in the radius passed to such code (their callers
    /// there are not followed either).
    pub handed_out_inside: usize,
    /// True when the answer may be incomplete (see the lists above).
    pub lower_bound: bool,
}

/// A call site that passes a function to code ripple does not follow.
#[derive(Debug, Clone, Serialize)]
pub struct HandedOutRef {
    /// The function that passes it.
    pub caller: String,
    pub file: String,
    pub line: u32,
    /// The callee as written (`threading.Thread`).
    pub text: String,
}

pub fn unresolved_ref(index: &Index, u: &crate::resolve::Unresolved) -> UnresolvedRef {
    let (file, line, text) = site_of(index, u.file, u.call);
    UnresolvedRef {
        caller: index.res.decls[u.caller].name.to_string(),
        file,
        line,
        text,
        reason: u.reason.clone(),
    }
}

/// A call site's path, line and callee text (empty and 0 when the index
/// no longer has it).
fn site_of(index: &Index, file: FileId, call: u32) -> (String, u32, String) {
    index
        .call_site(file, call)
        .map(|(p, c)| (p.to_owned(), c.span.start_line, c.callee_text.clone()))
        .unwrap_or_default()
}

pub use crate::resolve::short_name;

pub fn compute(index: &Index, root: DeclId, depth: u32) -> BlastRadius {
    let res = &index.res;
    let reached = index
        .graph
        .traverse(res, root, Direction::Callers, depth, Confidence::Possible);
    let mut hops: Vec<Hop> = Vec::new();
    let mut total = Counts::default();
    // Files by id first: thousands of callers sit in a few hundred files,
    // and naming each file (and its package) once is most of the work.
    let mut in_files = vec![false; index.files.len()];
    let mut file_ids = Vec::new();
    let mut note_file = |f: FileId| {
        if let Some(seen) = in_files.get_mut(f.index())
            && !*seen
        {
            *seen = true;
            file_ids.push(f);
        }
    };
    if let Some(f) = res.decls[root].file {
        note_file(f);
    }
    // Each hop in (confidence, name) order, ties in the order reached:
    // sorting indices by name rank before anything is built moves no
    // records and compares no strings.
    let mut order: Vec<(u32, Confidence, u32, usize)> = reached
        .iter()
        .enumerate()
        .map(|(i, r)| (r.hop, r.confidence, index.graph.name_rank(res, r.decl), i))
        .collect();
    order.sort_unstable();
    let mut paths = Vec::new();
    for &(hop, _, _, i) in &order {
        let r = &reached[i];
        while hops.len() < hop as usize {
            hops.push(Hop {
                hop: hops.len() as u32 + 1,
                counts: Counts::default(),
                decls: Vec::new(),
            });
        }
        let h = &mut hops[hop as usize - 1];
        h.counts.add(r.confidence);
        total.add(r.confidence);
        let reached_ref = ReachedRef::sharing_paths(index, r, &mut paths);
        let d = &res.decls[r.decl];
        if let Some(f) = d.file {
            note_file(f);
        }
        h.decls.push(reached_ref);
    }
    // Through the one definition of the tests that reach a declaration,
    // so the count within the depth is always a part of the one at any
    // depth; a breadth-first walk reaches the first `depth` hops in the
    // same order with or without a limit.
    let all_tests = index.graph.tests_reaching(res, root, 0);
    let tests: Vec<DeclRef> = all_tests
        .iter()
        .filter(|r| depth == 0 || r.hop <= depth)
        .map(|r| DeclRef::sharing_paths(index, r.decl, &mut paths))
        .collect();
    let mut files = BTreeSet::new();
    let mut packages = BTreeSet::new();
    for f in file_ids {
        let path = &index.files[f.index()].path;
        packages.insert(Graph::package_of_file(res, f, path));
        files.insert(path.clone());
    }
    let mut in_radius = vec![false; res.decls.len()];
    for d in reached.iter().map(|r| r.decl).chain(std::iter::once(root)) {
        if let Some(slot) = in_radius.get_mut(d.index()) {
            *slot = true;
        }
    }
    let in_radius = |d: DeclId| in_radius.get(d.index()).copied().unwrap_or(false);
    let root_short = short_name(&res.decls[root].name).to_owned();
    let mut possibly_missing = Vec::new();
    let mut unresolved_inside = 0;
    for u in &res.unresolved {
        if in_radius(u.caller) {
            unresolved_inside += 1;
        }
    }
    for u in res.unresolved_named(&root_short) {
        possibly_missing.push(unresolved_ref(index, u));
    }
    let mut handed_out = Vec::new();
    let mut handed_out_inside = 0;
    for h in &res.handed_out {
        if h.func == root {
            let (file, line, text) = site_of(index, h.file, h.call);
            handed_out.push(HandedOutRef {
                caller: res.decls[h.caller].name.to_string(),
                file,
                line,
                text,
            });
        } else if in_radius(h.func) {
            handed_out_inside += 1;
        }
    }
    let lower_bound = !possibly_missing.is_empty()
        || unresolved_inside > 0
        || !handed_out.is_empty()
        || handed_out_inside > 0;
    BlastRadius {
        root: DeclRef::of(index, root),
        depth,
        hops,
        total,
        files: files.into_iter().collect(),
        packages: packages.into_iter().collect(),
        tests,
        tests_any_depth: all_tests.len(),
        possibly_missing_callers: possibly_missing,
        unresolved_inside,
        handed_out,
        handed_out_inside,
        lower_bound,
    }
}

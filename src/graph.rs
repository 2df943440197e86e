//! The call graph as adjacency lists over resolved edges, and the questions
//! asked of it: callers and callees to depth N, the blast radius by hop, the
//! tests that reach a declaration, fan-in/fan-out, and package import cycles.

use std::collections::{BTreeSet, HashMap, VecDeque};

use petgraph::graph::DiGraph;
use serde::Serialize;

use crate::model::Confidence;
use crate::resolve::{DeclId, FileId, Resolution};

pub struct Graph {
    /// Edge indices into `Resolution::edges`, by callee.
    callers: Adjacency,
    /// Edge indices by caller.
    callees: Adjacency,
    /// Each declaration's place among all of them sorted by name, made
    /// on first use: lists of thousands are then ordered by comparing
    /// numbers, not long shared prefixes of Go names.
    name_order: std::sync::OnceLock<Vec<u32>>,
}

/// Each declaration's edges as one slice of a shared array: two
/// allocations instead of two per declaration, which on Go's `src` (560k
/// vectors) cost more to build than the rest of loading the cached graph.
struct Adjacency {
    /// `edges[start[d]..start[d + 1]]` are declaration `d`'s.
    start: Vec<u32>,
    edges: Vec<u32>,
}

impl Adjacency {
    /// Edge indices grouped by the declaration at one end (`ends` yields
    /// it for every edge in order), ascending within each group. An end
    /// past the table (a damaged cache) leaves its edge out rather than
    /// indexing out of bounds.
    fn build(n: usize, ends: impl Iterator<Item = usize> + Clone) -> Adjacency {
        let mut start = vec![0u32; n + 1];
        for d in ends.clone().filter(|&d| d < n) {
            start[d + 1] += 1;
        }
        for d in 0..n {
            start[d + 1] += start[d];
        }
        let mut next = start.clone();
        let mut edges = vec![0u32; start[n] as usize];
        for (i, d) in ends.enumerate() {
            if d < n {
                edges[next[d] as usize] = i as u32;
                next[d] += 1;
            }
        }
        Adjacency { start, edges }
    }

    fn get(&self, d: usize) -> Option<&[u32]> {
        let from = *self.start.get(d)? as usize;
        let to = *self.start.get(d + 1)? as usize;
        Some(&self.edges[from..to])
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Callers,
    Callees,
}

/// A declaration reached in a traversal: at which hop, and how sure the best
/// path to it is (a path is as weak as its weakest edge).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Reached {
    pub decl: DeclId,
    pub hop: u32,
    pub confidence: Confidence,
    /// The declaration one hop closer to the root through which it was reached.
    pub via: DeclId,
    /// The edge used from `via` (index into `Resolution::edges`).
    pub edge: u32,
}

impl Graph {
    pub fn build(res: &Resolution) -> Graph {
        let n = res.decls.len();
        Graph {
            callers: Adjacency::build(n, res.edges.iter().map(|e| e.callee.index())),
            callees: Adjacency::build(n, res.edges.iter().map(|e| e.caller.index())),
            name_order: std::sync::OnceLock::new(),
        }
    }

    /// Declaration `d`'s rank in name order (ties by id); `u32::MAX` past
    /// the table.
    pub fn name_rank(&self, res: &Resolution, d: DeclId) -> u32 {
        let order = self.name_order.get_or_init(|| {
            let mut by_name: Vec<u32> = (0..res.decls.len() as u32).collect();
            by_name.sort_unstable_by(|&a, &b| {
                res.decls[a as usize]
                    .name
                    .cmp(&res.decls[b as usize].name)
                    .then(a.cmp(&b))
            });
            let mut rank = vec![0u32; by_name.len()];
            for (r, &d) in by_name.iter().enumerate() {
                rank[d as usize] = r as u32;
            }
            rank
        });
        order.get(d.index()).copied().unwrap_or(u32::MAX)
    }

    pub fn fan_in(&self, res: &Resolution, decl: DeclId) -> usize {
        self.neighbours(res, decl, Direction::Callers, Confidence::Possible)
            .len()
    }

    pub fn fan_out(&self, res: &Resolution, decl: DeclId) -> usize {
        self.neighbours(res, decl, Direction::Callees, Confidence::Possible)
            .len()
    }

    /// Distinct direct neighbours with the best confidence of any edge to them.
    pub fn neighbours(
        &self,
        res: &Resolution,
        decl: DeclId,
        dir: Direction,
        min: Confidence,
    ) -> Vec<(DeclId, Confidence, u32)> {
        let mut out = Vec::new();
        self.neighbours_into(res, decl, dir, min, &mut out, None);
        out
    }

    /// [`Graph::neighbours`] into `out` (cleared first), so a traversal
    /// reuses one buffer instead of allocating one per node. `mark` is
    /// scratch space a traversal keeps between calls, made on the first
    /// long list: `u32::MAX` for every declaration, and so again on return.
    fn neighbours_into(
        &self,
        res: &Resolution,
        decl: DeclId,
        dir: Direction,
        min: Confidence,
        out: &mut Vec<(DeclId, Confidence, u32)>,
        mark: Option<&mut Vec<u32>>,
    ) {
        out.clear();
        let list = match dir {
            Direction::Callers => self.callers.get(decl.index()),
            Direction::Callees => self.callees.get(decl.index()),
        };
        for &ei in list.into_iter().flatten() {
            let e = &res.edges[ei as usize];
            if e.confidence > min {
                continue;
            }
            let other = match dir {
                Direction::Callers => e.caller,
                Direction::Callees => e.callee,
            };
            if other != decl {
                out.push((other, e.confidence, ei));
            }
        }
        // Each neighbour once, by its surest edge (the first of those).
        // A short list is sorted; a long one (the thousands of call sites
        // of a popular function) is deduplicated through `mark` first,
        // which leaves a sort of the distinct callers only.
        match mark {
            Some(mark) if out.len() >= 64 => {
                mark.resize(res.decls.len(), u32::MAX);
                Self::dedup_marked(out, mark);
            }
            _ => {
                out.sort_unstable();
                out.dedup_by_key(|&mut (d, _, _)| d);
            }
        }
        out.sort_unstable_by_key(|&(d, c, _)| (c, d));
    }

    /// Each declaration of `out` once, by its surest edge, in one pass
    /// through `mark` (see [`Graph::neighbours_into`]).
    fn dedup_marked(out: &mut Vec<(DeclId, Confidence, u32)>, mark: &mut [u32]) {
        let mut kept = 0;
        for i in 0..out.len() {
            let (d, c, ei) = out[i];
            match mark.get(d.index()).copied() {
                Some(u32::MAX) => {
                    mark[d.index()] = kept as u32;
                    out[kept] = (d, c, ei);
                    kept += 1;
                }
                Some(at) => {
                    let best = &mut out[at as usize];
                    if (c, ei) < (best.1, best.2) {
                        *best = (d, c, ei);
                    }
                }
                None => {}
            }
        }
        out.truncate(kept);
        for &(d, _, _) in out.iter() {
            mark[d.index()] = u32::MAX;
        }
    }

    /// Breadth-first traversal to `depth` hops (0 = unbounded). The root is not included.
    pub fn traverse(
        &self,
        res: &Resolution,
        root: DeclId,
        dir: Direction,
        depth: u32,
        min: Confidence,
    ) -> Vec<Reached> {
        // Where each declaration sits in `out`, in one array over all of
        // them: on a radius of thousands a hash map was a third of the walk.
        const UNSEEN: u32 = u32::MAX;
        const ROOT: u32 = u32::MAX - 1;
        let mut seen = vec![UNSEEN; res.decls.len().max(root.index() + 1)];
        let slot = |seen: &[u32], d: DeclId| seen.get(d.index()).copied().unwrap_or(ROOT);
        let mut out: Vec<Reached> = Vec::new();
        let mut frontier: VecDeque<(DeclId, Confidence, u32)> = VecDeque::new();
        let mut next_hop = Vec::new();
        let mut mark = Vec::new();
        frontier.push_back((root, Confidence::Certain, 0));
        seen[root.index()] = ROOT;
        while let Some((node, conf, hop)) = frontier.pop_front() {
            if depth != 0 && hop >= depth {
                continue;
            }
            self.neighbours_into(res, node, dir, min, &mut next_hop, Some(&mut mark));
            for &(next, edge_conf, edge) in &next_hop {
                let c = conf.max(edge_conf);
                match slot(&seen, next) {
                    ROOT => continue,
                    UNSEEN => {
                        seen[next.index()] = out.len() as u32;
                        out.push(Reached {
                            decl: next,
                            hop: hop + 1,
                            confidence: c,
                            via: node,
                            edge,
                        });
                        frontier.push_back((next, c, hop + 1));
                    }
                    idx => {
                        // Same hop, stronger path: keep the stronger reading.
                        let r = &mut out[idx as usize];
                        if r.hop == hop + 1 && c < r.confidence {
                            r.confidence = c;
                            r.via = node;
                            r.edge = edge;
                        }
                    }
                }
            }
        }
        // Confidence may improve after a node was expanded; one more pass
        // propagates improvements hop by hop (BFS order is hop order).
        for i in 0..out.len() {
            let r = out[i];
            if r.via != root
                && let vi = slot(&seen, r.via)
                && vi != ROOT
                && vi != UNSEEN
            {
                let via_conf = out[vi as usize].confidence;
                let edge_conf = res.edges[r.edge as usize].confidence;
                out[i].confidence = via_conf.max(edge_conf);
            }
        }
        out
    }

    /// Test declarations that reach `root` through callers within `depth`
    /// hops (0: at any depth), in the order reached. The one definition of
    /// "the tests that reach it": the blast radius counts them within its
    /// depth and at any depth, `t` and `ripple tests` run and list them at
    /// any depth, context packs include them.
    pub fn tests_reaching(&self, res: &Resolution, root: DeclId, depth: u32) -> Vec<Reached> {
        self.traverse(res, root, Direction::Callers, depth, Confidence::Possible)
            .into_iter()
            .filter(|r| res.decls[r.decl].is_test)
            .collect()
    }

    /// Packages (module's package for Python, import path for Go) of every file.
    pub fn package_of_file(res: &Resolution, file: FileId, path: &str) -> String {
        let module = &res.file_module[file.index()];
        if path.ends_with(".go") {
            return module.clone();
        }
        if path.ends_with("__init__.py") {
            return module.clone();
        }
        match module.rsplit_once('.') {
            Some((pkg, _)) => pkg.to_owned(),
            None => module.clone(),
        }
    }

    /// Import cycles between packages: strongly connected components of the
    /// package import graph with more than one package.
    pub fn import_cycles(res: &Resolution, paths: &[&str]) -> Vec<Vec<String>> {
        let mut g: DiGraph<String, ()> = DiGraph::new();
        let mut nodes = HashMap::new();
        let mut node = |g: &mut DiGraph<String, ()>, name: String| {
            *nodes
                .entry(name.clone())
                .or_insert_with(|| g.add_node(name))
        };
        let mut seen = BTreeSet::new();
        for &(from, to) in &res.imports {
            let a = Graph::package_of_file(res, from, paths[from.index()]);
            let b = Graph::package_of_file(res, to, paths[to.index()]);
            if a != b && seen.insert((a.clone(), b.clone())) {
                let na = node(&mut g, a);
                let nb = node(&mut g, b);
                g.add_edge(na, nb, ());
            }
        }
        let mut cycles: Vec<Vec<String>> = petgraph::algo::tarjan_scc(&g)
            .into_iter()
            .filter(|scc| scc.len() > 1)
            .map(|scc| {
                let mut names: Vec<String> = scc.into_iter().map(|n| g[n].clone()).collect();
                names.sort();
                names
            })
            .collect();
        cycles.sort();
        cycles
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{DeclKind, Lang, Span};
    use crate::resolve::{Decl, Edge};

    fn decl(name: &str) -> Decl {
        Decl {
            name: name.into(),
            kind: DeclKind::Function,
            lang: Lang::Go,
            file: Some(FileId(0)),
            local: 0,
            span: Span::default(),
            is_test: false,
            parent: None,
        }
    }

    /// Declaration 0 is called by 1..=n, each from several sites of
    /// mixed confidence, and each caller by one caller of its own.
    fn popular(n: u32) -> Resolution {
        let mut res = Resolution::default();
        for i in 0..=2 * n {
            res.decls.push(decl(&format!("d{:03}", (i * 37) % 1000)));
        }
        let edge = |caller, callee, confidence, call| Edge {
            caller: DeclId(caller),
            callee: DeclId(callee),
            confidence,
            file: FileId(0),
            call,
        };
        for c in 1..=n {
            // Weakest first, so the surest edge is not the first one seen.
            res.edges.push(edge(c, 0, Confidence::Possible, c * 3));
            if c % 2 == 0 {
                res.edges.push(edge(c, 0, Confidence::Certain, c * 3 + 1));
            }
            res.edges.push(edge(c, 0, Confidence::Likely, c * 3 + 2));
            res.edges.push(edge(n + c, c, Confidence::Certain, 0));
        }
        res
    }

    #[test]
    fn a_callee_with_hundreds_of_call_sites_keeps_each_callers_surest_edge() {
        let res = popular(150);
        let graph = Graph::build(&res);
        let direct = graph.neighbours(&res, DeclId(0), Direction::Callers, Confidence::Possible);
        let reached = graph.traverse(&res, DeclId(0), Direction::Callers, 2, Confidence::Possible);
        let hop1: Vec<(DeclId, Confidence, u32)> = reached
            .iter()
            .filter(|r| r.hop == 1)
            .map(|r| (r.decl, r.confidence, r.edge))
            .collect();
        assert_eq!(direct.len(), 150);
        assert_eq!(
            hop1, direct,
            "the traversal's dedup (long lists) and the sort's agree"
        );
        for &(d, c, e) in &direct {
            let want = if d.0 % 2 == 0 {
                Confidence::Certain
            } else {
                Confidence::Likely
            };
            assert_eq!(c, want, "caller {d}");
            assert_eq!(res.edges[e as usize].caller, d);
            assert_eq!(res.edges[e as usize].confidence, want);
        }
        // Surest first, then by declaration.
        assert!(
            direct
                .windows(2)
                .all(|w| (w[0].1, w[0].0) < (w[1].1, w[1].0))
        );
        // The second hop is each caller's own caller, through it.
        let hop2: Vec<&Reached> = reached.iter().filter(|r| r.hop == 2).collect();
        assert_eq!(hop2.len(), 150);
        assert!(hop2.iter().all(|r| r.via.0 + 150 == r.decl.0));
        // Only certain edges: the odd callers are gone, and their callers.
        let certain = graph.traverse(&res, DeclId(0), Direction::Callers, 2, Confidence::Certain);
        assert_eq!(certain.len(), 150);
    }

    #[test]
    fn name_ranks_follow_name_order_and_ties_follow_ids() {
        let mut res = Resolution::default();
        for name in ["b", "a", "c", "a"] {
            res.decls.push(decl(name));
        }
        let graph = Graph::build(&res);
        let ranks: Vec<u32> = (0..4).map(|d| graph.name_rank(&res, DeclId(d))).collect();
        assert_eq!(ranks, vec![2, 0, 3, 1]);
        assert_eq!(graph.name_rank(&res, DeclId(99)), u32::MAX);
    }
}

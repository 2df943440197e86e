//! The call graph as adjacency lists over resolved edges, and the questions
//! asked of it: callers and callees to depth N, the blast radius by hop, the
//! tests that reach a declaration, fan-in/fan-out, and package import cycles.

use std::collections::{BTreeSet, HashMap, VecDeque};

use petgraph::graph::DiGraph;
use serde::Serialize;

use crate::model::Confidence;
use crate::resolve::{DeclId, Resolution};

pub struct Graph {
    /// Edge indices into `Resolution::edges`, by callee.
    callers: Adjacency,
    /// Edge indices by caller.
    callees: Adjacency,
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
            callers: Adjacency::build(n, res.edges.iter().map(|e| e.callee as usize)),
            callees: Adjacency::build(n, res.edges.iter().map(|e| e.caller as usize)),
        }
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
        let list = match dir {
            Direction::Callers => self.callers.get(decl as usize),
            Direction::Callees => self.callees.get(decl as usize),
        };
        let mut out: Vec<(DeclId, Confidence, u32)> = Vec::new();
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
        // Each neighbour once, by its surest edge (the first of those):
        // sorting beats a map per node on a radius of thousands.
        out.sort_unstable();
        out.dedup_by_key(|&mut (d, _, _)| d);
        out.sort_unstable_by_key(|&(d, c, _)| (c, d));
        out
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
        let mut seen: rustc_hash::FxHashMap<DeclId, usize> = rustc_hash::FxHashMap::default();
        let mut out: Vec<Reached> = Vec::new();
        let mut frontier: VecDeque<(DeclId, Confidence, u32)> = VecDeque::new();
        frontier.push_back((root, Confidence::Certain, 0));
        seen.insert(root, usize::MAX);
        while let Some((node, conf, hop)) = frontier.pop_front() {
            if depth != 0 && hop >= depth {
                continue;
            }
            for (next, edge_conf, edge) in self.neighbours(res, node, dir, min) {
                let c = conf.max(edge_conf);
                match seen.get(&next) {
                    Some(&usize::MAX) => continue,
                    Some(&idx) => {
                        // Same hop, stronger path: keep the stronger reading.
                        let r = &mut out[idx];
                        if r.hop == hop + 1 && c < r.confidence {
                            r.confidence = c;
                            r.via = node;
                            r.edge = edge;
                        }
                    }
                    None => {
                        seen.insert(next, out.len());
                        out.push(Reached {
                            decl: next,
                            hop: hop + 1,
                            confidence: c,
                            via: node,
                            edge,
                        });
                        frontier.push_back((next, c, hop + 1));
                    }
                }
            }
        }
        // Confidence may improve after a node was expanded; one more pass
        // propagates improvements hop by hop (BFS order is hop order).
        for i in 0..out.len() {
            let r = out[i];
            if r.via != root
                && let Some(&vi) = seen.get(&r.via)
                && vi != usize::MAX
            {
                let via_conf = out[vi].confidence;
                let edge_conf = res.edges[r.edge as usize].confidence;
                out[i].confidence = via_conf.max(edge_conf);
            }
        }
        out
    }

    /// Test declarations that reach `root` through callers at any depth.
    pub fn tests_reaching(&self, res: &Resolution, root: DeclId) -> Vec<Reached> {
        self.traverse(res, root, Direction::Callers, 0, Confidence::Possible)
            .into_iter()
            .filter(|r| res.decls[r.decl as usize].is_test)
            .collect()
    }

    /// Packages (module's package for Python, import path for Go) of every file.
    pub fn package_of_file(res: &Resolution, file: u32, path: &str) -> String {
        let module = &res.file_module[file as usize];
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
            let a = Graph::package_of_file(res, from, paths[from as usize]);
            let b = Graph::package_of_file(res, to, paths[to as usize]);
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

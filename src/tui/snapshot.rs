//! One loaded index plus what the explorer derives from it once per refresh
//! (off the UI thread): distinct fan-in/fan-out per declaration, which
//! declarations call themselves, a name table to keep the selection across
//! refreshes, and the overview. Everything here is read-only once built and
//! shared with the worker threads through an `Arc`.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::conventions::{Class, Conventions};
use crate::graph::{Direction, Graph};
use crate::index::Index;
use crate::model::DeclKind;
use crate::resolve::{DeclId, FileId};

pub struct Snapshot {
    pub index: Index,
    /// Distinct callers (excluding itself) of each declaration.
    pub fan_in: Vec<u32>,
    /// Distinct callees (excluding itself) of each declaration.
    pub fan_out: Vec<u32>,
    /// Declarations with a call edge to themselves.
    pub recursive: Vec<bool>,
    pub by_name: HashMap<std::sync::Arc<str>, DeclId>,
    pub overview: Overview,
    /// `ripple.toml` as it was when this index was loaded (the defaults
    /// when it is missing or broken; then `conventions_error` says why), so
    /// the badges follow edits to the file on the next refresh.
    pub conventions: Conventions,
    pub conventions_error: Option<String>,
}

#[derive(Debug, Clone, Default)]
pub struct PackageRow {
    pub name: String,
    /// The name as listed: Go import paths lose the prefix all of them share
    /// (`github.com/acme/shipd/internal/auth` → `internal/auth`).
    pub label: String,
    pub files: usize,
    pub lines: u64,
    pub decls: usize,
    /// Other packages this one calls into.
    pub uses: usize,
    /// Other packages that call into this one.
    pub used_by: usize,
}

#[derive(Debug, Clone, Default)]
pub struct Overview {
    pub packages: Vec<PackageRow>,
    /// Highest distinct fan-in first.
    pub hotspots: Vec<(DeclId, u32)>,
    /// Functions nothing calls that call the most (`main`, handlers, CLIs).
    pub entry_points: Vec<(DeclId, u32)>,
    pub import_cycles: Vec<Vec<String>>,
}

const OVERVIEW_ROWS: usize = 30;

impl Snapshot {
    pub fn new(index: Index) -> Snapshot {
        let res = &index.res;
        let n = res.decls.len();
        let mut recursive = vec![false; n];
        let mut pairs: Vec<(DeclId, DeclId)> = Vec::with_capacity(res.edges.len());
        for e in &res.edges {
            if e.caller == e.callee {
                recursive[e.caller.index()] = true;
            } else {
                pairs.push((e.caller, e.callee));
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        let mut fan_in = vec![0u32; n];
        let mut fan_out = vec![0u32; n];
        for &(a, b) in &pairs {
            fan_out[a.index()] += 1;
            fan_in[b.index()] += 1;
        }
        let mut by_name = HashMap::with_capacity(n);
        for (i, d) in res.decls.iter().enumerate() {
            by_name.entry(d.name.clone()).or_insert(DeclId::new(i));
        }
        let overview = overview(&index, &pairs, &fan_in, &fan_out);
        let (conventions, conventions_error) = match Conventions::load(&index.root) {
            Ok(c) => (c, None),
            Err(e) => (Conventions::default(), Some(e.to_string())),
        };
        Snapshot {
            index,
            fan_in,
            fan_out,
            recursive,
            by_name,
            overview,
            conventions,
            conventions_error,
        }
    }

    /// The `ripple.toml` class of a declaration (`stable`, `active`,
    /// `off-limits`), for its badge; external leaves have none.
    pub fn class(&self, decl: DeclId) -> Option<Class> {
        let file = self.index.file_of(decl)?;
        self.conventions
            .class_of_symbol(self.name(decl), &file.path)
    }

    pub fn fan(&self, decl: DeclId, dir: Direction) -> u32 {
        match dir {
            Direction::Callers => self.fan_in[decl.index()],
            Direction::Callees => self.fan_out[decl.index()],
        }
    }

    pub fn name(&self, decl: DeclId) -> &str {
        &self.index.res.decls[decl].name
    }

    /// A declaration's name with its module or import path shortened to the
    /// last segment (`shop.auth.tokens.validate_token` → `tokens.validate_token`,
    /// `(*github.com/acme/shipd/internal/shipping.Service).Quote` →
    /// `(*shipping.Service).Quote`): unique enough beside a file:line.
    pub fn display_name(&self, decl: DeclId) -> String {
        let res = &self.index.res;
        let d = &res.decls[decl];
        let Some(file) = d.file else {
            return d.name.to_string();
        };
        let module = &res.file_module[file.index()];
        if module.is_empty() || *d.name == **module {
            return d.name.to_string();
        }
        let short = module.rsplit(['.', '/']).next().unwrap_or(module);
        d.name.replacen(module.as_str(), short, 1)
    }

    /// `path:line` of a declaration, or `external`.
    pub fn location(&self, decl: DeclId) -> String {
        let d = &self.index.res.decls[decl];
        match self.index.file_of(decl) {
            Some(f) => format!("{}:{}", f.path, d.span.start_line),
            None => "external".to_owned(),
        }
    }
}

fn overview(
    index: &Index,
    pairs: &[(DeclId, DeclId)],
    fan_in: &[u32],
    fan_out: &[u32],
) -> Overview {
    let res = &index.res;
    let file_pkg: Vec<String> = index
        .files
        .iter()
        .enumerate()
        .map(|(i, f)| Graph::package_of_file(res, FileId::new(i), &f.path))
        .collect();
    // Every declaration a file's facts hold is one of the resolution's, so
    // the counts come from there, without decoding any file's facts.
    let mut file_decls = vec![0usize; index.files.len()];
    for d in &res.decls {
        if let Some(slot) = d.file.and_then(|f| file_decls.get_mut(f.index())) {
            *slot += 1;
        }
    }
    let mut packages: BTreeMap<&str, PackageRow> = BTreeMap::new();
    for (i, f) in index.files.iter().enumerate() {
        let row = packages.entry(&file_pkg[i]).or_default();
        row.files += 1;
        row.lines += f.lines as u64;
        row.decls += file_decls[i];
    }
    let mut links: BTreeSet<(&str, &str)> = BTreeSet::new();
    for &(a, b) in pairs {
        let (Some(fa), Some(fb)) = (res.decls[a].file, res.decls[b].file) else {
            continue;
        };
        let (pa, pb) = (&file_pkg[fa.index()], &file_pkg[fb.index()]);
        if pa != pb {
            links.insert((pa, pb));
        }
    }
    for &(a, b) in &links {
        if let Some(r) = packages.get_mut(a) {
            r.uses += 1;
        }
        if let Some(r) = packages.get_mut(b) {
            r.used_by += 1;
        }
    }
    let mut packages: Vec<PackageRow> = packages
        .into_iter()
        .map(|(name, mut row)| {
            row.name = name.to_owned();
            row
        })
        .collect();
    packages.sort_by(|a, b| b.lines.cmp(&a.lines).then(a.name.cmp(&b.name)));
    shorten_import_paths(&mut packages);

    let callable = |d: usize| {
        let decl = &res.decls[d];
        !decl.is_external()
            && matches!(
                decl.kind,
                DeclKind::Function | DeclKind::Method | DeclKind::Closure
            )
    };
    let mut hotspots: Vec<(DeclId, u32)> = (0..res.decls.len())
        .filter(|&d| callable(d) && fan_in[d] > 0)
        .map(|d| (DeclId::new(d), fan_in[d]))
        .collect();
    hotspots.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    hotspots.truncate(OVERVIEW_ROWS);
    // Closures and lambdas are reached through their enclosing function, not
    // entered from outside, so they are not entry points.
    let named = |d: usize| matches!(res.decls[d].kind, DeclKind::Function | DeclKind::Method);
    let mut entry_points: Vec<(DeclId, u32)> = (0..res.decls.len())
        .filter(|&d| {
            callable(d) && named(d) && fan_in[d] == 0 && fan_out[d] > 0 && !res.decls[d].is_test
        })
        .map(|d| (DeclId::new(d), fan_out[d]))
        .collect();
    // `main` first whatever its size: it is where a reader starts.
    entry_points.sort_by(|a, b| {
        let main = |d: DeclId| !res.decls[d].name.ends_with(".main");
        main(a.0)
            .cmp(&main(b.0))
            .then(b.1.cmp(&a.1))
            .then(a.0.cmp(&b.0))
    });
    entry_points.truncate(OVERVIEW_ROWS);
    let paths: Vec<&str> = index.files.iter().map(|f| f.path.as_str()).collect();
    let import_cycles = Graph::import_cycles(res, &paths);
    Overview {
        packages,
        hotspots,
        entry_points,
        import_cycles,
    }
}

fn shorten_import_paths(packages: &mut [PackageRow]) {
    let paths: Vec<&str> = packages
        .iter()
        .map(|p| p.name.as_str())
        .filter(|n| n.contains('/'))
        .collect();
    let mut prefix: &str = paths.first().map_or("", |p| match p.rfind('/') {
        Some(i) => &p[..=i],
        None => "",
    });
    for p in &paths {
        while !prefix.is_empty() && !p.starts_with(prefix) {
            let trimmed = &prefix[..prefix.len() - 1];
            prefix = match trimmed.rfind('/') {
                Some(i) => &prefix[..=i],
                None => "",
            };
        }
    }
    let prefix = prefix.to_owned();
    for p in packages.iter_mut() {
        p.label = match p.name.strip_prefix(&prefix) {
            Some(rest) if p.name.contains('/') && !rest.is_empty() => rest.to_owned(),
            _ => p.name.clone(),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_import_paths_lose_their_shared_prefix_python_names_stay() {
        let row = |n: &str| PackageRow {
            name: n.to_owned(),
            ..PackageRow::default()
        };
        let mut rows = vec![
            row("github.com/acme/shipd/internal/auth"),
            row("github.com/acme/shipd/cmd/shipd"),
            row("shop.auth"),
        ];
        shorten_import_paths(&mut rows);
        let labels: Vec<&str> = rows.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(labels, ["internal/auth", "cmd/shipd", "shop.auth"]);
    }
}

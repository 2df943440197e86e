//! Edits of Go source: function bodies, imports, packages, and the kinds
//! of edit made to them.

use super::*;

/// Per line, whether it begins outside a raw string literal.
pub(super) fn go_code(lines: &[String]) -> Vec<bool> {
    let mut out = Vec::with_capacity(lines.len());
    let mut raw = false;
    for line in lines {
        out.push(!raw);
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if raw {
                raw = c != '`';
                i += 1;
                continue;
            }
            match c {
                '/' if chars.get(i + 1) == Some(&'/') => break,
                '"' | '\'' => {
                    i += 1;
                    while i < chars.len() && chars[i] != c {
                        if chars[i] == '\\' {
                            i += 1;
                        }
                        i += 1;
                    }
                    i += 1;
                }
                '`' => {
                    raw = true;
                    i += 1;
                }
                _ => i += 1,
            }
        }
    }
    out
}

/// A top-level `func` of a Go file, by line index.
#[derive(Clone)]
pub(super) struct GoFunc {
    pub(super) name: String,
    /// The receiver's variable, when named.
    pub(super) recv_var: Option<String>,
    /// The receiver's type name, without `*` and type parameters.
    pub(super) recv_type: Option<String>,
    pub(super) header: usize,
    /// The body's first line; `None` for a one-line function.
    pub(super) body: Option<usize>,
    /// One past the closing brace's line.
    pub(super) end: usize,
}

pub(super) struct GoFile {
    pub(super) lines: Vec<String>,
    pub(super) code: Vec<bool>,
    pub(super) package: String,
    pub(super) funcs: Vec<GoFunc>,
    /// (alias, import path).
    pub(super) imports: Vec<(Option<String>, String)>,
}

impl GoFile {
    pub(super) fn read(repo: &Repo, path: &str) -> GoFile {
        let lines = repo.read(path);
        let code = go_code(&lines);
        let package = lines
            .iter()
            .find_map(|l| l.strip_prefix("package "))
            .map(|p| identifier(p.trim()).to_owned())
            .unwrap_or_default();
        let funcs = go_funcs(&lines, &code);
        let imports = go_imports(&lines);
        GoFile {
            lines,
            code,
            package,
            funcs,
            imports,
        }
    }
}

pub(super) fn go_funcs(lines: &[String], code: &[bool]) -> Vec<GoFunc> {
    let mut out = Vec::new();
    for i in 0..lines.len() {
        let Some(rest) = lines[i].strip_prefix("func ").filter(|_| code[i]) else {
            continue;
        };
        let (recv, rest) = match rest.strip_prefix('(') {
            Some(r) => {
                let Some(close) = r.find(')') else { continue };
                (Some(&r[..close]), r[close + 1..].trim_start())
            }
            None => (None, rest),
        };
        let name = identifier(rest).to_owned();
        if name.is_empty() {
            continue;
        }
        let (recv_var, recv_type) = match recv {
            Some(r) => {
                let parts: Vec<&str> = r.split_whitespace().collect();
                let (var, ty) = match parts.as_slice() {
                    [var, ty] => (Some(var.to_string()), *ty),
                    [ty] => (None, *ty),
                    _ => continue,
                };
                let ty = identifier(ty.trim_start_matches('*')).to_owned();
                (var.filter(|v| v != "_"), Some(ty))
            }
            None => (None, None),
        };
        let Some(open) = go_body_opens(lines, i) else {
            continue;
        };
        let (body, end) = if lines[open].trim_end().ends_with('}') {
            (None, open + 1)
        } else {
            let Some(close) =
                (open + 1..lines.len()).find(|&j| code[j] && lines[j].trim_end() == "}")
            else {
                continue;
            };
            (Some(open + 1).filter(|&b| b < close), close + 1)
        };
        out.push(GoFunc {
            name,
            recv_var,
            recv_type,
            header: i,
            body,
            end,
        });
    }
    out
}

/// The line where the body of the function declared at `header` opens:
/// its first brace outside the signature's brackets that does not open a
/// `struct` or `interface` type (`func config() struct { … } {`).
pub(super) fn go_body_opens(lines: &[String], header: usize) -> Option<usize> {
    let mut depth = 0;
    for (j, line) in lines.iter().enumerate().skip(header) {
        for (at, c) in line.char_indices() {
            match c {
                '{' if depth == 0 => {
                    let before = line[..at].trim_end();
                    if !before.ends_with("struct") && !before.ends_with("interface") {
                        return Some(j);
                    }
                    depth += 1;
                }
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                _ => {}
            }
        }
    }
    None
}

pub(super) fn go_imports(lines: &[String]) -> Vec<(Option<String>, String)> {
    let spec = |s: &str| -> Option<(Option<String>, String)> {
        let s = s.trim();
        let quote = s.find('"')?;
        let path = s[quote + 1..].split('"').next()?.to_owned();
        let alias = s[..quote].trim();
        Some(((!alias.is_empty()).then(|| alias.to_owned()), path))
    };
    let mut out = Vec::new();
    let mut block = false;
    for line in lines {
        let t = line.trim();
        if block {
            if t == ")" {
                block = false;
            } else {
                out.extend(spec(t));
            }
        } else if t == "import (" {
            block = true;
        } else if let Some(s) = t.strip_prefix("import ") {
            out.extend(spec(s));
        }
    }
    out
}

pub(super) fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// The Go module a file belongs to: (its directory, its module path).
pub(super) fn go_module(repo: &Repo, path: &str) -> Option<(String, String)> {
    let mut dir = dir_of(path).to_owned();
    loop {
        let go_mod = repo.root.join(&dir).join("go.mod");
        if let Ok(text) = std::fs::read_to_string(&go_mod) {
            let module = text
                .lines()
                .find_map(|l| l.trim().strip_prefix("module "))?;
            return Some((dir, module.trim().to_owned()));
        }
        if dir.is_empty() {
            return None;
        }
        dir = dir_of(&dir).to_owned();
    }
}

/// The repository's packages: (directory, package name, import path), one
/// per directory, test packages left out.
pub(super) fn go_packages(repo: &Repo) -> Vec<(String, String, String)> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for path in repo.sources_in(Lang::Go) {
        if path.ends_with("_test.go") || !seen.insert(dir_of(&path).to_owned()) {
            continue;
        }
        let Some((mod_dir, module)) = go_module(repo, &path) else {
            continue;
        };
        let dir = dir_of(&path);
        let rel = dir.strip_prefix(mod_dir.as_str()).unwrap_or(dir);
        let rel = rel.trim_start_matches('/');
        let import = if rel.is_empty() {
            module
        } else {
            format!("{module}/{rel}")
        };
        let package = GoFile::read(repo, &path).package;
        out.push((dir.to_owned(), package, import));
    }
    out
}

/// The functions of package `package` in `dir`, from every file of it.
pub(super) fn go_package_funcs(repo: &Repo, dir: &str, package: &str) -> Vec<GoFunc> {
    repo.sources_in(Lang::Go)
        .iter()
        .filter(|p| dir_of(p) == dir)
        .map(|p| GoFile::read(repo, p))
        .filter(|f| f.package == package)
        .flat_map(|f| f.funcs)
        .collect()
}

/// A call, as source text, of some function of the repository from `path`
/// (from inside `from`, when given).
pub(super) fn go_call(
    repo: &Repo,
    rng: &mut Rng,
    path: &str,
    file: &GoFile,
    from: Option<&GoFunc>,
) -> Option<String> {
    let own = go_package_funcs(repo, dir_of(path), &file.package);
    for way in shuffled(rng, vec![0, 1, 2, 3]) {
        match way {
            0 => {
                let funcs: Vec<&GoFunc> = own
                    .iter()
                    .filter(|f| f.recv_type.is_none() && f.name != "init")
                    .collect();
                if let Some(f) = rng.pick(&funcs) {
                    return Some(format!("{}()", f.name));
                }
            }
            1 => {
                let Some(from) = from else { continue };
                let (Some(var), Some(ty)) = (&from.recv_var, &from.recv_type) else {
                    continue;
                };
                let methods: Vec<&GoFunc> = own
                    .iter()
                    .filter(|f| f.recv_type.as_ref() == Some(ty))
                    .collect();
                if let Some(m) = rng.pick(&methods) {
                    return Some(format!("{var}.{}()", m.name));
                }
            }
            2 => {
                let packages = go_packages(repo);
                let mut calls = Vec::new();
                for (alias, import) in &file.imports {
                    for (dir, package, path) in &packages {
                        let name = alias.as_deref().unwrap_or(package);
                        if path != import || name == "_" {
                            continue;
                        }
                        for f in go_package_funcs(repo, dir, package) {
                            if f.recv_type.is_none()
                                && f.name.starts_with(|c: char| c.is_uppercase())
                            {
                                calls.push(if name == "." {
                                    format!("{}()", f.name)
                                } else {
                                    format!("{name}.{}()", f.name)
                                });
                            }
                        }
                    }
                }
                if let Some(call) = rng.pick(&calls) {
                    return Some(call.clone());
                }
            }
            _ => {
                let methods: Vec<&GoFunc> = own.iter().filter(|f| f.recv_type.is_some()).collect();
                if let Some(m) = rng.pick(&methods) {
                    return Some(format!(
                        "(&{}{{}}).{}()",
                        m.recv_type.as_deref().unwrap_or_default(),
                        m.name
                    ));
                }
            }
        }
    }
    None
}

pub(super) fn go_add_call(repo: &mut Repo, rng: &mut Rng, path: &str) -> Option<String> {
    let file = GoFile::read(repo, path);
    let funcs: Vec<&GoFunc> = file.funcs.iter().filter(|f| f.body.is_some()).collect();
    let f = (*rng.pick(&funcs)?).clone();
    let call = go_call(repo, rng, path, &file, Some(&f))?;
    let mut lines = file.lines.clone();
    lines.insert(f.body?, format!("\t{call}"));
    repo.write(path, &lines);
    Some(format!("{path}: call `{call}` from {}", f.name))
}

pub(super) fn go_remove_call(repo: &mut Repo, rng: &mut Rng, path: &str) -> Option<String> {
    let file = GoFile::read(repo, path);
    let balanced = |t: &str| {
        [('(', ')'), ('[', ']'), ('{', '}')]
            .iter()
            .all(|&(o, c)| t.matches(o).count() == t.matches(c).count())
    };
    let candidates: Vec<usize> = (0..file.lines.len())
        .filter(|&i| {
            let t = file.lines[i].trim();
            let prev = file.lines[..i]
                .iter()
                .rev()
                .map(|l| l.trim())
                .find(|l| !l.is_empty() && !l.starts_with("//"))
                .unwrap_or_default();
            file.code[i]
                && t.contains('(')
                && t.ends_with(')')
                && balanced(t)
                && !t.starts_with('}')
                && !t.starts_with("case ")
                && !t.starts_with("//")
                && !t.contains('"')
                && !t.contains('`')
                && prev.ends_with(|c: char| "{});:]".contains(c) || c.is_alphanumeric())
                && file
                    .funcs
                    .iter()
                    .any(|f| f.body.is_some_and(|b| b <= i) && i + 1 < f.end)
        })
        .collect();
    let i = *rng.pick(&candidates)?;
    let mut lines = file.lines.clone();
    let old = lines.remove(i);
    repo.write(path, &lines);
    Some(format!("{path}:{}: remove `{}`", i + 1, old.trim()))
}

pub(super) fn go_add_function(repo: &mut Repo, rng: &mut Rng, path: &str) -> Option<String> {
    let n = repo.fresh();
    let file = GoFile::read(repo, path);
    let call = go_call(repo, rng, path, &file, None)?;
    let func = [
        format!("func rippleFn{n}() {{"),
        format!("\t{call}"),
        "}".to_owned(),
    ];
    if rng.chance(25) {
        let dir = dir_of(path);
        let new = if dir.is_empty() {
            format!("ripple_{n}.go")
        } else {
            format!("{dir}/ripple_{n}.go")
        };
        let mut lines = vec![format!("package {}", file.package), String::new()];
        lines.extend(func);
        repo.write(&new, &lines);
        return Some(format!("new {new}: rippleFn{n} calls `{call}`"));
    }
    let mut lines = file.lines.clone();
    lines.push(String::new());
    lines.extend(func);
    repo.write(path, &lines);
    Some(format!("{path}: add rippleFn{n} calling `{call}`"))
}

pub(super) fn go_remove_function(repo: &mut Repo, rng: &mut Rng, path: &str) -> Option<String> {
    let file = GoFile::read(repo, path);
    let f = rng.pick(&file.funcs)?.clone();
    let mut lines = file.lines.clone();
    lines.drain(f.header..f.end);
    repo.write(path, &lines);
    Some(format!("{path}:{}: remove func {}", f.header + 1, f.name))
}

/// A struct type with one method: named after a method the package
/// already has (so it may implement an interface) or a new one.
pub(super) fn go_add_type(repo: &mut Repo, rng: &mut Rng, path: &str) -> Option<String> {
    let n = repo.fresh();
    let file = GoFile::read(repo, path);
    let methods: Vec<String> = go_package_funcs(repo, dir_of(path), &file.package)
        .into_iter()
        .filter(|f| f.recv_type.is_some())
        .map(|f| f.name)
        .collect();
    let method = match rng.pick(&methods) {
        Some(m) if rng.chance(70) => m.clone(),
        _ => format!("Run{n}"),
    };
    let call = go_call(repo, rng, path, &file, None)?;
    let mut lines = file.lines.clone();
    lines.extend([
        String::new(),
        format!("type RippleType{n} struct{{}}"),
        String::new(),
        format!("func (r *RippleType{n}) {method}() {{"),
        format!("\t{call}"),
        "}".to_owned(),
    ]);
    repo.write(path, &lines);
    Some(format!(
        "{path}: add type RippleType{n} with {method} calling `{call}`"
    ))
}

pub(super) fn go_add_import(repo: &mut Repo, rng: &mut Rng, path: &str) -> Option<String> {
    let file = GoFile::read(repo, path);
    let (_, module) = go_module(repo, path)?;
    let candidates: Vec<String> = go_packages(repo)
        .into_iter()
        .filter(|(dir, package, import)| {
            dir != dir_of(path)
                && package != "main"
                && (import == &module || import.starts_with(&format!("{module}/")))
                && !file.imports.iter().any(|(_, i)| i == import)
        })
        .map(|(_, _, import)| import)
        .collect();
    let import = rng.pick(&candidates)?.clone();
    let mut lines = file.lines.clone();
    if let Some(at) = lines.iter().position(|l| l.trim() == "import (") {
        lines.insert(at + 1, format!("\t\"{import}\""));
    } else if let Some(at) = lines.iter().position(|l| l.starts_with("import ")) {
        lines.insert(at + 1, format!("import \"{import}\""));
    } else {
        let at = lines.iter().position(|l| l.starts_with("package "))?;
        lines.insert(at + 1, format!("import \"{import}\""));
        lines.insert(at + 1, String::new());
    }
    repo.write(path, &lines);
    Some(format!("{path}: import \"{import}\""))
}

pub(super) fn go_move(repo: &mut Repo, rng: &mut Rng, path: &str) -> Option<String> {
    let file = GoFile::read(repo, path);
    let siblings: Vec<String> = repo
        .sources_in(Lang::Go)
        .into_iter()
        .filter(|p| {
            p != path && dir_of(p) == dir_of(path) && GoFile::read(repo, p).package == file.package
        })
        .collect();
    let to = rng.pick(&siblings)?.clone();
    let f = rng.pick(&file.funcs)?.clone();
    let mut lines = file.lines.clone();
    let moved: Vec<String> = lines.drain(f.header..f.end).collect();
    repo.write(path, &lines);
    let mut target = repo.read(&to);
    target.push(String::new());
    target.extend(moved);
    repo.write(&to, &target);
    Some(format!("move func {} from {path} to {to}", f.name))
}

//! Edits of Python source: where statements start, definitions, and the
//! kinds of edit made to them.

use super::*;

/// Per line, whether a statement may begin there: not inside brackets, a
/// triple-quoted string or a backslash continuation.
pub(super) fn py_starts(lines: &[String]) -> Vec<bool> {
    let mut out = Vec::with_capacity(lines.len());
    let mut depth = 0i32;
    let mut triple: Option<char> = None;
    let mut continued = false;
    for line in lines {
        out.push(depth == 0 && triple.is_none() && !continued);
        continued = false;
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if let Some(q) = triple {
                if c == '\\' {
                    i += 2;
                } else if c == q && chars.get(i + 1) == Some(&q) && chars.get(i + 2) == Some(&q) {
                    triple = None;
                    i += 3;
                } else {
                    i += 1;
                }
                continue;
            }
            match c {
                '#' => break,
                '"' | '\'' => {
                    if chars.get(i + 1) == Some(&c) && chars.get(i + 2) == Some(&c) {
                        triple = Some(c);
                        i += 3;
                        continue;
                    }
                    i += 1;
                    while i < chars.len() && chars[i] != c {
                        if chars[i] == '\\' {
                            i += 1;
                        }
                        i += 1;
                    }
                    i += 1;
                }
                '(' | '[' | '{' => {
                    depth += 1;
                    i += 1;
                }
                ')' | ']' | '}' => {
                    depth = (depth - 1).max(0);
                    i += 1;
                }
                '\\' if i + 1 == chars.len() => {
                    continued = true;
                    i += 1;
                }
                _ => i += 1,
            }
        }
    }
    out
}

/// A `def` or `class` of a Python file, by line index.
#[derive(Clone)]
pub(super) struct PyDef {
    pub(super) name: String,
    pub(super) is_class: bool,
    pub(super) indent: usize,
    /// The first decorator, or the header.
    pub(super) first: usize,
    pub(super) header: usize,
    /// The body's first line; `None` when the body sits on the header line.
    pub(super) body: Option<usize>,
    /// One past the last line of the body.
    pub(super) end: usize,
    /// The directly enclosing definition (an index into the outline).
    pub(super) parent: Option<usize>,
}

pub(super) struct PyFile {
    pub(super) lines: Vec<String>,
    pub(super) starts: Vec<bool>,
    pub(super) defs: Vec<PyDef>,
}

impl PyFile {
    pub(super) fn read(repo: &Repo, path: &str) -> PyFile {
        let lines = repo.read(path);
        let starts = py_starts(&lines);
        let defs = py_defs(&lines, &starts);
        PyFile {
            lines,
            starts,
            defs,
        }
    }

    pub(super) fn statement(&self, i: usize) -> bool {
        self.starts[i] && is_code(&self.lines[i])
    }

    pub(super) fn next_statement(&self, from: usize) -> Option<usize> {
        (from..self.lines.len()).find(|&j| self.statement(j))
    }

    pub(super) fn prev_statement(&self, before: usize) -> Option<usize> {
        (0..before).rev().find(|&j| self.statement(j))
    }

    pub(super) fn top_functions(&self) -> Vec<&PyDef> {
        self.defs
            .iter()
            .filter(|d| !d.is_class && d.indent == 0)
            .collect()
    }

    pub(super) fn top_classes(&self) -> Vec<&PyDef> {
        self.defs
            .iter()
            .filter(|d| d.is_class && d.indent == 0)
            .collect()
    }

    pub(super) fn methods_of(&self, class: &str) -> Vec<&PyDef> {
        self.defs
            .iter()
            .filter(|d| {
                !d.is_class
                    && d.parent
                        .is_some_and(|p| self.defs[p].is_class && self.defs[p].name == class)
            })
            .collect()
    }

    /// The class a definition sits directly in.
    pub(super) fn class_of(&self, def: &PyDef) -> Option<&str> {
        let parent = &self.defs[def.parent?];
        parent.is_class.then_some(parent.name.as_str())
    }

    /// Whether removing lines `from..to`, indented by `level`, leaves their
    /// block without a statement.
    pub(super) fn empties_block(&self, from: usize, to: usize, level: usize) -> bool {
        let opens = self.prev_statement(from).is_some_and(|p| {
            self.lines[p].trim_end().ends_with(':') && indent(&self.lines[p]) < level
        });
        let closes = self
            .next_statement(to)
            .is_none_or(|n| indent(&self.lines[n]) < level);
        level > 0 && opens && closes
    }
}

pub(super) fn py_defs(lines: &[String], starts: &[bool]) -> Vec<PyDef> {
    let statement = |j: usize| starts[j] && is_code(&lines[j]);
    let mut defs: Vec<PyDef> = Vec::new();
    for i in 0..lines.len() {
        if !statement(i) {
            continue;
        }
        let t = lines[i].trim_start();
        let (rest, is_class) = if let Some(r) = t.strip_prefix("class ") {
            (r, true)
        } else if let Some(r) = t.strip_prefix("def ") {
            (r, false)
        } else if let Some(r) = t.strip_prefix("async def ") {
            (r, false)
        } else {
            continue;
        };
        let name = identifier(rest.trim_start()).to_owned();
        if name.is_empty() {
            continue;
        }
        let ind = indent(&lines[i]);
        let next = (i + 1..lines.len()).find(|&j| statement(j));
        let body = next.filter(|&j| indent(&lines[j]) > ind);
        let mut end = match body {
            Some(b) => (b + 1..lines.len())
                .find(|&j| statement(j) && indent(&lines[j]) <= ind)
                .unwrap_or(lines.len()),
            None => next.unwrap_or(lines.len()),
        };
        while end > i + 1 && !is_code(&lines[end - 1]) && indent(&lines[end - 1]) <= ind {
            end -= 1;
        }
        let mut first = i;
        while let Some(p) = (0..first).rev().find(|&j| statement(j)) {
            if lines[p].trim_start().starts_with('@') && indent(&lines[p]) == ind {
                first = p;
            } else {
                break;
            }
        }
        let parent = defs
            .iter()
            .rposition(|d| d.indent < ind && d.header < i && i < d.end);
        defs.push(PyDef {
            name,
            is_class,
            indent: ind,
            first,
            header: i,
            body,
            end,
            parent,
        });
    }
    defs
}

/// The module a Python file is, named from its package root (the first
/// ancestor directory without `__init__.py`).
pub(super) fn py_module(root: &Path, rel: &str) -> Option<String> {
    let parts: Vec<&str> = rel.split('/').collect();
    let (file, dirs) = parts.split_last()?;
    let stem = file.strip_suffix(".py")?;
    let mut start = dirs.len();
    while start > 0
        && root
            .join(dirs[..start].join("/"))
            .join("__init__.py")
            .exists()
    {
        start -= 1;
    }
    let mut name: Vec<&str> = dirs[start..].to_vec();
    if stem != "__init__" {
        name.push(stem);
    }
    let name = name.join(".");
    (!name.is_empty() && name.split('.').all(|p| !identifier(p).is_empty())).then_some(name)
}

/// Where an import goes: after any `from __future__` import, else first.
pub(super) fn py_import_at(file: &PyFile) -> usize {
    (0..file.lines.len())
        .rev()
        .find(|&i| file.statement(i) && file.lines[i].starts_with("from __future__"))
        .map_or(0, |i| i + 1)
}

/// `items` shuffled (Fisher–Yates), for trying alternatives in a random order.
pub(super) fn shuffled<T>(rng: &mut Rng, mut items: Vec<T>) -> Vec<T> {
    for i in (1..items.len()).rev() {
        items.swap(i, rng.below(i + 1));
    }
    items
}

/// A call, as source text, of some function of the repository from `path`
/// (from a method of `class` when given), and the import it needs.
pub(super) fn py_call(
    repo: &Repo,
    rng: &mut Rng,
    path: &str,
    file: &PyFile,
    class: Option<&str>,
) -> Option<(String, Option<String>)> {
    for way in shuffled(rng, vec![0, 1, 2, 3]) {
        match way {
            0 => {
                if let Some(f) = rng.pick(&file.top_functions()) {
                    return Some((format!("{}()", f.name), None));
                }
            }
            1 => {
                if let Some(class) = class
                    && let Some(m) = rng.pick(&file.methods_of(class))
                {
                    return Some((format!("self.{}()", m.name), None));
                }
            }
            2 => {
                if let Some(c) = rng.pick(&file.top_classes()) {
                    let methods = file.methods_of(&c.name);
                    return Some(match rng.pick(&methods) {
                        Some(m) if rng.chance(60) => (format!("{}().{}()", c.name, m.name), None),
                        _ => (format!("{}()", c.name), None),
                    });
                }
            }
            _ => {
                let others: Vec<String> = repo
                    .sources_in(Lang::Python)
                    .into_iter()
                    .filter(|p| p != path)
                    .collect();
                let Some(other) = rng.pick(&others) else {
                    continue;
                };
                let Some(module) = py_module(&repo.root, other) else {
                    continue;
                };
                let theirs = PyFile::read(repo, other);
                let functions = theirs.top_functions();
                let Some(f) = rng.pick(&functions) else {
                    continue;
                };
                return Some(if rng.chance(50) {
                    (
                        format!("{module}.{}()", f.name),
                        Some(format!("import {module}")),
                    )
                } else {
                    (
                        format!("{}()", f.name),
                        Some(format!("from {module} import {}", f.name)),
                    )
                });
            }
        }
    }
    None
}

pub(super) fn with_import(import: &Option<String>) -> String {
    import
        .as_ref()
        .map(|i| format!(" (and `{i}`)"))
        .unwrap_or_default()
}

pub(super) fn py_add_call(repo: &mut Repo, rng: &mut Rng, path: &str) -> Option<String> {
    let file = PyFile::read(repo, path);
    let funcs: Vec<&PyDef> = file
        .defs
        .iter()
        .filter(|d| !d.is_class && d.body.is_some())
        .collect();
    let f = (*rng.pick(&funcs)?).clone();
    let (call, import) = py_call(repo, rng, path, &file, file.class_of(&f))?;
    let body = f.body?;
    let mut lines = file.lines.clone();
    let pad = lines[body][..indent(&lines[body])].to_owned();
    lines.insert(body, format!("{pad}{call}"));
    if let Some(import) = &import {
        lines.insert(py_import_at(&file), import.clone());
    }
    repo.write(path, &lines);
    Some(format!(
        "{path}: call `{call}` from {}{}",
        f.name,
        with_import(&import)
    ))
}

/// Single-line statements with a call in a function body whose removal
/// keeps the code valid.
pub(super) fn py_removable_calls(file: &PyFile) -> Vec<usize> {
    let compound = [
        "if ", "elif", "else", "for ", "while ", "with ", "try", "except", "finally", "def ",
        "class ", "async ", "@", "return", "yield", "lambda",
    ];
    (0..file.lines.len())
        .filter(|&i| {
            let t = file.lines[i].trim();
            file.statement(i)
                && (i + 1 == file.lines.len() || file.starts[i + 1])
                && indent(&file.lines[i]) > 0
                && t.contains('(')
                && !t.ends_with(':')
                && !t.ends_with('\\')
                && !compound.iter().any(|k| t.starts_with(k))
                && file
                    .defs
                    .iter()
                    .any(|d| !d.is_class && d.body.is_some_and(|b| b <= i) && i < d.end)
        })
        .collect()
}

pub(super) fn py_remove_call(repo: &mut Repo, rng: &mut Rng, path: &str) -> Option<String> {
    let file = PyFile::read(repo, path);
    let i = *rng.pick(&py_removable_calls(&file))?;
    let mut lines = file.lines.clone();
    let old = lines[i].clone();
    let ind = indent(&old);
    if file.empties_block(i, i + 1, ind) {
        lines[i] = format!("{}pass", &old[..ind]);
    } else {
        lines.remove(i);
    }
    repo.write(path, &lines);
    Some(format!("{path}:{}: remove `{}`", i + 1, old.trim()))
}

pub(super) fn py_add_function(repo: &mut Repo, rng: &mut Rng, path: &str) -> Option<String> {
    let n = repo.fresh();
    let file = PyFile::read(repo, path);
    if rng.chance(25) {
        // A new module beside this one, calling into it.
        let module = py_module(&repo.root, path)?;
        let f = rng.pick(&file.top_functions())?.name.clone();
        let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
        let new = if dir.is_empty() {
            format!("ripple_mod_{n}.py")
        } else {
            format!("{dir}/ripple_mod_{n}.py")
        };
        let lines = [
            format!("from {module} import {f}"),
            String::new(),
            String::new(),
            format!("def ripple_fn_{n}():"),
            format!("    return {f}()"),
        ];
        repo.write(&new, &lines);
        return Some(format!("new {new}: ripple_fn_{n} calls {module}.{f}"));
    }
    let (call, import) = py_call(repo, rng, path, &file, None)?;
    let mut lines = file.lines.clone();
    lines.extend([
        String::new(),
        String::new(),
        format!("def ripple_fn_{n}():"),
        format!("    return {call}"),
    ]);
    if let Some(import) = &import {
        lines.insert(py_import_at(&file), import.clone());
    }
    repo.write(path, &lines);
    Some(format!(
        "{path}: add ripple_fn_{n} calling `{call}`{}",
        with_import(&import)
    ))
}

/// Remove lines `from..to` of a block at `indent`, leaving `pass` if the
/// block would be empty.
pub(super) fn py_cut(file: &PyFile, from: usize, to: usize, ind: usize) -> Vec<String> {
    let mut lines = file.lines.clone();
    let pad = file.lines[from][..indent(&file.lines[from])].to_owned();
    let empties = file.empties_block(from, to, ind);
    lines.drain(from..to);
    if empties {
        lines.insert(from, format!("{pad}pass"));
    }
    lines
}

pub(super) fn py_remove_function(repo: &mut Repo, rng: &mut Rng, path: &str) -> Option<String> {
    let file = PyFile::read(repo, path);
    let funcs: Vec<&PyDef> = file.defs.iter().filter(|d| !d.is_class).collect();
    let f = (*rng.pick(&funcs)?).clone();
    let lines = py_cut(&file, f.first, f.end, f.indent);
    repo.write(path, &lines);
    Some(format!(
        "{path}:{}: remove function {}",
        f.header + 1,
        f.name
    ))
}

pub(super) fn py_add_class(repo: &mut Repo, rng: &mut Rng, path: &str) -> Option<String> {
    let n = repo.fresh();
    let file = PyFile::read(repo, path);
    let name = format!("RippleClass{n}");
    let base = rng.pick(&file.top_classes()).map(|c| c.name.clone());
    let inherited: Vec<String> = base
        .iter()
        .flat_map(|b| file.methods_of(b))
        .map(|m| m.name.clone())
        .collect();
    let (method, call, import) = match rng.pick(&inherited) {
        Some(m) if rng.chance(50) => (m.clone(), format!("super().{m}()"), None),
        _ => {
            let (call, import) = py_call(repo, rng, path, &file, None)?;
            (format!("ripple_method_{n}"), call, import)
        }
    };
    let header = match &base {
        Some(b) => format!("class {name}({b}):"),
        None => format!("class {name}:"),
    };
    let mut lines = file.lines.clone();
    lines.extend([
        String::new(),
        String::new(),
        header.clone(),
        format!("    def {method}(self):"),
        format!("        return {call}"),
    ]);
    if let Some(import) = &import {
        lines.insert(py_import_at(&file), import.clone());
    }
    repo.write(path, &lines);
    Some(format!(
        "{path}: add `{header}` with {method} calling `{call}`{}",
        with_import(&import)
    ))
}

pub(super) fn py_add_import(repo: &mut Repo, rng: &mut Rng, path: &str) -> Option<String> {
    let file = PyFile::read(repo, path);
    let others: Vec<String> = repo
        .sources_in(Lang::Python)
        .into_iter()
        .filter(|p| p != path)
        .collect();
    let other = rng.pick(&others)?.clone();
    let module = py_module(&repo.root, &other)?;
    let theirs = PyFile::read(repo, &other);
    let import = match rng.pick(&theirs.top_functions()) {
        Some(f) if rng.chance(60) => format!("from {module} import {}", f.name),
        _ => format!("import {module}"),
    };
    let mut lines = file.lines.clone();
    lines.insert(py_import_at(&file), import.clone());
    repo.write(path, &lines);
    Some(format!("{path}: add `{import}`"))
}

/// The parts of `text` between top-level commas.
pub(super) fn split_args(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut cur = String::new();
    for c in text.chars() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_owned());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_owned());
    }
    out
}

/// Adds a base to a class or removes one.
pub(super) fn py_base(repo: &mut Repo, rng: &mut Rng, path: &str) -> Option<String> {
    let file = PyFile::read(repo, path);
    let classes: Vec<&PyDef> = file
        .defs
        .iter()
        .filter(|d| {
            let h = file.lines[d.header].trim_end();
            d.is_class && h.ends_with(':') && !h.contains('#')
        })
        .collect();
    let c = (*rng.pick(&classes)?).clone();
    let line = file.lines[c.header].clone();
    let pad = &line[..c.indent];
    let header = line.trim().trim_end_matches(':');
    let args = match header.find('(') {
        Some(open) => split_args(header[open + 1..].strip_suffix(')')?),
        None => Vec::new(),
    };
    let positional: Vec<usize> = (0..args.len())
        .filter(|&i| !args[i].contains('=') && !args[i].starts_with('*'))
        .collect();
    let candidates: Vec<String> = file
        .top_classes()
        .iter()
        .map(|k| k.name.clone())
        .filter(|k| *k != c.name && !args.contains(k))
        .collect();
    let mut args = args.clone();
    let what = if !positional.is_empty() && (candidates.is_empty() || rng.chance(50)) {
        let i = *rng.pick(&positional)?;
        format!("remove base {}", args.remove(i))
    } else {
        let b = rng.pick(&candidates)?.clone();
        let what = format!("add base {b}");
        args.insert(0, b);
        what
    };
    let new = if args.is_empty() {
        format!("{pad}class {}:", c.name)
    } else {
        format!("{pad}class {}({}):", c.name, args.join(", "))
    };
    let mut lines = file.lines.clone();
    lines[c.header] = new.clone();
    repo.write(path, &lines);
    Some(format!("{path}:{}: {what}: `{}`", c.header + 1, new.trim()))
}

pub(super) fn py_move(repo: &mut Repo, rng: &mut Rng, path: &str) -> Option<String> {
    let file = PyFile::read(repo, path);
    let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
    let siblings: Vec<String> = repo
        .sources_in(Lang::Python)
        .into_iter()
        .filter(|p| p != path && p.rsplit_once('/').map_or("", |(d, _)| d) == dir)
        .collect();
    let to = rng.pick(&siblings)?.clone();
    let f = (*rng.pick(&file.top_functions())?).clone();
    let moved: Vec<String> = file.lines[f.first..f.end].to_vec();
    let mut lines = py_cut(&file, f.first, f.end, 0);
    let import = py_module(&repo.root, &to)
        .filter(|_| rng.chance(50))
        .map(|m| format!("from {m} import {}", f.name));
    if let Some(import) = &import {
        let at = py_import_at(&PyFile {
            starts: py_starts(&lines),
            defs: Vec::new(),
            lines: lines.clone(),
        });
        lines.insert(at, import.clone());
    }
    repo.write(path, &lines);
    let mut target = repo.read(&to);
    target.extend([String::new(), String::new()]);
    target.extend(moved);
    repo.write(&to, &target);
    Some(format!(
        "move {} from {path} to {to}{}",
        f.name,
        with_import(&import)
    ))
}

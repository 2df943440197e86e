//! The search unit is the declaration. This module turns each searchable
//! declaration of an [`Index`] into its fields — name, path, signature,
//! doc (docstring, doc comment and the comments in its body) and body
//! (code and string literals) — reading the body from the file by the
//! declaration's byte span.
//!
//! Comments go with the docstring, not the code, because both are prose:
//! that is what keeps undocumented-but-commented code findable by a
//! question in English. A class's body excludes its methods (they are
//! documents of their own) but lists their signatures.

use rayon::prelude::*;

use crate::index::Index;
use crate::model::{DeclKind, Lang};
use crate::resolve::{DeclId, FileId};

/// The fields a declaration is indexed under, in [`Field::ALL`] order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Field {
    Name = 0,
    Path = 1,
    Signature = 2,
    Doc = 3,
    Body = 4,
    /// The enclosing class (or function) of a method or nested function:
    /// `AsyncGenerator` for `AsyncGenerator.asend`. A method's name alone
    /// often says only the verb; its class says what it acts on.
    Owner = 5,
    /// The names of the declarations that call it: how the rest of the
    /// code base refers to what it does (call-graph neighbours).
    Callers = 6,
    /// The declarations it calls, with the class of a called method: what
    /// it is built from, resolved through the call graph, so a call on
    /// `self.sock` also says `socket`.
    Callees = 7,
    /// What it returns: the code after each `return`. A question says
    /// what a function gives back ("Return the …") more often than how.
    Returns = 8,
    /// What the code that calls it names its result: the variable it is
    /// assigned to, the keyword argument it is passed as, the loop variable
    /// or `with … as` name (`checksum = crc32(data)`).
    Uses = 9,
}

/// How many fields a document has.
pub const FIELDS: usize = 10;

impl Field {
    pub const ALL: [Field; FIELDS] = [
        Field::Name,
        Field::Path,
        Field::Signature,
        Field::Doc,
        Field::Body,
        Field::Owner,
        Field::Callers,
        Field::Callees,
        Field::Returns,
        Field::Uses,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Field::Name => "name",
            Field::Path => "path",
            Field::Signature => "signature",
            Field::Doc => "doc",
            Field::Body => "body",
            Field::Owner => "owner",
            Field::Callers => "callers",
            Field::Callees => "callees",
            Field::Returns => "returns",
            Field::Uses => "uses",
        }
    }
}

/// How to read declarations into documents.
#[derive(Debug, Clone, Copy, Default)]
pub struct CorpusOptions {
    /// Leave every docstring out (doc field and body): the held-out setting
    /// of the benchmark, where queries are the removed docstrings.
    pub strip_docstrings: bool,
    /// Make documents of generated code too. Left out by default: a
    /// protobuf stub or a mock outranks the code a reader can change.
    pub include_generated: bool,
}

/// One declaration's text, field by field.
#[derive(Debug, Clone, Default)]
pub struct DocText {
    pub decl: DeclId,
    pub fields: [String; FIELDS],
    /// Declared in test code (a test file or a test function).
    pub in_tests: bool,
    /// A class, module or package: a document that gathers others.
    pub is_container: bool,
    /// Where the members' signatures begin in a class's signature field.
    pub members_from: Option<usize>,
}

/// Whether a file is test code: pytest/unittest conventions, Go's
/// `_test.go`, and test directories such as `idle_test`.
pub fn is_test_path(path: &str) -> bool {
    crate::lang::python::is_test_path(path)
        || path.ends_with("_test.go")
        || path
            .split('/')
            .any(|c| c.ends_with("_test") || c == "testdata")
}

/// Declarations worth a search result: named code, not lambdas or
/// anonymous closures (their text is part of the enclosing function).
pub fn is_searchable(kind: DeclKind) -> bool {
    !matches!(kind, DeclKind::Lambda | DeclKind::Closure)
}

/// The searchable declarations of `index` and their text, in DeclId order.
/// Files are read once each, in parallel.
pub fn documents(index: &Index, opts: CorpusOptions) -> Vec<DocText> {
    let res = &index.res;
    let per_file: Vec<(Vec<DocText>, SiteNames)> = (0..index.files.len())
        .into_par_iter()
        .map(|fi| {
            let base = res.file_base[fi].index();
            let facts = index.files[fi].facts();
            let count = if index.files[fi].generated && !opts.include_generated {
                0
            } else {
                facts.decls.len()
            };
            let ids: Vec<DeclId> = (base..base + count)
                .filter(|&d| is_searchable(res.decls[d].kind))
                .map(DeclId::new)
                .collect();
            if ids.is_empty() && facts.calls.is_empty() {
                return (Vec::new(), Vec::new());
            }
            let source = crate::inventory::read_regular(index.root.join(&index.files[fi].path))
                .unwrap_or_default();
            let names = call_site_names(&facts.calls, &source);
            let docs = ids
                .into_iter()
                .map(|d| document(index, d, &source, opts))
                .collect();
            (docs, names)
        })
        .collect();
    let mut docs = Vec::new();
    let mut site_names = Vec::with_capacity(per_file.len());
    for (d, n) in per_file {
        docs.extend(d);
        site_names.push(n);
    }
    add_callers(index, &mut docs);
    add_site_names(index, &mut docs, &site_names);
    docs
}

/// A file's call sites (by index into its calls) and the names each one's
/// result is given there, space-separated.
type SiteNames = Vec<(u32, String)>;

/// What each call's result is named where it is called: the variables or
/// attributes it is assigned to (`checksum = crc32(data)`, `user, err :=
/// load(id)`), the keyword argument it is passed as (`open(f,
/// encoding=detect(f))`), the loop variables over it or its `with … as`
/// name. How the rest of the code refers to what a function gives back.
fn call_site_names(calls: &[crate::model::CallSite], source: &[u8]) -> SiteNames {
    let mut out = Vec::new();
    let line_of = |from: usize, to: usize| std::str::from_utf8(&source[from..to]).ok();
    for (i, c) in calls.iter().enumerate() {
        let start = (c.span.start_byte as usize).min(source.len());
        let end = (c.span.end_byte as usize).clamp(start, source.len());
        let line_start = source[..start]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
        let line_end = source[end..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(source.len(), |p| end + p);
        let (Some(prefix), Some(after)) = (line_of(line_start, start), line_of(end, line_end))
        else {
            continue;
        };
        let prefix = prefix.trim_end();
        let mut names: Vec<&str> = Vec::new();
        if let Some(alias) = after.trim_start().strip_prefix("as ") {
            names.push(leading_ident(alias.trim_start()));
        } else if let Some(targets) = prefix
            .strip_suffix(" in")
            .and_then(|p| p.trim_start().strip_prefix("for "))
        {
            names.extend(targets.split(',').map(target_name));
        } else if let Some(before) = prefix.strip_suffix('=') {
            // `==`, `<=`, `>=`, `!=` compare; `+=` and `:=` still name it.
            if before.ends_with(['=', '<', '>', '!']) {
                continue;
            }
            let before = before.trim_end_matches([' ', '+', '-', '*', '/', '|', '&', ':']);
            let open = before.chars().fold(0i32, |depth, ch| match ch {
                '(' | '[' | '{' => depth + 1,
                ')' | ']' | '}' => depth - 1,
                _ => depth,
            });
            if open > 0 {
                // Inside a call's parentheses: a keyword argument.
                names.push(trailing_ident(before));
            } else {
                names.extend(before.split(',').map(target_name));
            }
        }
        // `err` and `ok` name how a call went, not what it gives.
        names.retain(|n| {
            n.len() > 1
                && !n.starts_with(|ch: char| ch.is_ascii_digit())
                && *n != "err"
                && *n != "ok"
        });
        if !names.is_empty() {
            out.push((i as u32, names.join(" ")));
        }
    }
    out
}

/// The name an assignment target binds: `total` for `self.total`, `x` for
/// `x: int` or `var x`.
fn target_name(target: &str) -> &str {
    trailing_ident(target.split(':').next().unwrap_or("").trim())
}

fn leading_ident(text: &str) -> &str {
    let end = text
        .find(|ch: char| !(ch.is_alphanumeric() || ch == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

fn trailing_ident(text: &str) -> &str {
    let start = text
        .rfind(|ch: char| !(ch.is_alphanumeric() || ch == '_'))
        .map_or(0, |p| {
            p + text[p..].chars().next().map_or(1, char::len_utf8)
        });
    &text[start..]
}

/// At most this many call-site names name a declaration.
const MAX_SITE_NAMES: usize = 8;

/// Add to each declaration's callers field the names its results are
/// given where it is called ([`call_site_names`]).
fn add_site_names(index: &Index, docs: &mut [DocText], names: &[SiteNames]) {
    let pos: rustc_hash::FxHashMap<DeclId, usize> =
        docs.iter().enumerate().map(|(i, d)| (d.decl, i)).collect();
    let mut count = vec![0u8; docs.len()];
    for e in &index.res.edges {
        let Some(&i) = pos.get(&e.callee) else {
            continue;
        };
        if count[i] as usize >= MAX_SITE_NAMES {
            continue;
        }
        let Some(list) = names.get(e.file.index()) else {
            continue;
        };
        let Ok(k) = list.binary_search_by_key(&e.call, |x| x.0) else {
            continue;
        };
        let field = &mut docs[i].fields[Field::Uses as usize];
        for name in list[k].1.split(' ') {
            if count[i] as usize >= MAX_SITE_NAMES || field.split(' ').any(|n| n == name) {
                continue;
            }
            count[i] += 1;
            field.push(' ');
            field.push_str(name);
        }
    }
}

/// At most this many callers name a declaration: a utility called from
/// everywhere would otherwise take every word in the code base.
const MAX_CALLERS: usize = 8;

/// At most this many callees name a declaration.
const MAX_CALLEES: usize = 16;

/// Fill the callers and callees fields from the call graph's edges, in
/// edge order.
fn add_callers(index: &Index, docs: &mut [DocText]) {
    let pos: rustc_hash::FxHashMap<DeclId, usize> =
        docs.iter().enumerate().map(|(i, d)| (d.decl, i)).collect();
    let mut count = vec![0u8; docs.len()];
    let mut callees = vec![0u8; docs.len()];
    let decls = &index.res.decls;
    for e in &index.res.edges {
        if e.caller == e.callee {
            continue;
        }
        if let Some(&i) = pos.get(&e.caller)
            && (callees[i] as usize) < MAX_CALLEES
        {
            let callee = &decls[e.callee];
            // Methods of builtin containers and strings (`<**PyList**>.append`)
            // say little about what a function does, and took the places
            // of its own callees.
            if callee.name.starts_with("<**") {
                continue;
            }
            let mut name = short_name(&callee.name).to_owned();
            if let Some(p) = callee.parent.map(|p| &decls[p])
                && p.kind.is_type()
            {
                name = format!("{}.{name}", short_name(&p.name));
            }
            let field = &mut docs[i].fields[Field::Callees as usize];
            if !field.split(' ').any(|n| n == name) {
                callees[i] += 1;
                field.push(' ');
                field.push_str(&name);
            }
        }
        let Some(&i) = pos.get(&e.callee) else {
            continue;
        };
        if count[i] as usize >= MAX_CALLERS {
            continue;
        }
        let name = short_name(&index.res.decls[e.caller].name);
        let field = &mut docs[i].fields[Field::Callers as usize];
        if field.split(' ').any(|n| n == name) {
            continue;
        }
        count[i] += 1;
        field.push(' ');
        field.push_str(name);
    }
}

/// The text of one declaration, reading its file.
pub fn document_of(index: &Index, decl: DeclId, opts: CorpusOptions) -> Option<DocText> {
    let f = index.file_of(decl)?;
    let source = crate::inventory::read_regular(index.root.join(&f.path)).ok()?;
    Some(document(index, decl, &source, opts))
}

/// The part of a qualified name after its module: `Class.method`, `Func`.
pub fn short_name(name: &str) -> &str {
    let n = name.trim_end_matches(')');
    n.rsplit(['.', '/']).next().unwrap_or(n)
}

fn document(index: &Index, decl: DeclId, source: &[u8], opts: CorpusOptions) -> DocText {
    let d = &index.res.decls[decl];
    let local = index.local_decl(decl);
    let path = index.file_of(decl).map(|f| f.path.as_str()).unwrap_or("");
    let short = short_name(&d.name);
    let mut doc = DocText {
        decl,
        ..Default::default()
    };
    doc.fields[Field::Name as usize] = short.to_owned();
    if d.lang == Lang::Python
        && let Some(words) = protocol_words(short)
    {
        let name = &mut doc.fields[Field::Name as usize];
        name.push(' ');
        name.push_str(&words);
    }
    doc.in_tests = d.is_test || is_test_path(path);
    doc.is_container = d.kind.is_type() || matches!(d.kind, DeclKind::Module | DeclKind::Package);
    let qualifier = d.name.strip_suffix(short).unwrap_or(&d.name);
    doc.fields[Field::Path as usize] = format!("{qualifier} {}", path.trim_end_matches(".py"));
    if let Some(parent) = d.parent {
        let p = &index.res.decls[parent];
        if !matches!(p.kind, DeclKind::Module | DeclKind::Package) {
            doc.fields[Field::Owner as usize] = short_name(&p.name).to_owned();
        }
    }
    if let Some(l) = local {
        doc.fields[Field::Signature as usize] = code_only(&l.signature, d.lang);
        if !opts.strip_docstrings
            && let Some(text) = &l.doc
        {
            doc.fields[Field::Doc as usize] = text.clone();
        }
    }
    if matches!(d.kind, DeclKind::Module | DeclKind::Package) {
        // A module's body is its whole file: every word would match it.
        return doc;
    }
    let span = d.span;
    let (start, end) = (
        (span.start_byte as usize).min(source.len()),
        (span.end_byte as usize).min(source.len()),
    );
    // A class's methods are documents of their own: cut them out of the
    // class body, keeping their signatures.
    let mut pieces: Vec<(usize, usize)> = vec![(start, end)];
    if d.kind.is_type() {
        doc.members_from = Some(doc.fields[Field::Signature as usize].len());
        let file = &index.files[d.file.map_or(0, FileId::index)];
        let mut holes: Vec<(usize, usize)> = Vec::new();
        for c in &file.facts().decls {
            if c.parent == Some(d.local) && is_searchable(c.kind) {
                holes.push((c.span.start_byte as usize, c.span.end_byte as usize));
                let sig = &mut doc.fields[Field::Signature as usize];
                sig.push('\n');
                sig.push_str(&c.signature);
            }
        }
        holes.sort();
        pieces.clear();
        let mut at = start;
        for (hs, he) in holes {
            if hs > at {
                pieces.push((at, hs.min(end)));
            }
            at = at.max(he);
        }
        if at < end {
            pieces.push((at, end));
        }
    }
    let lang = d.lang;
    for (s, e) in pieces {
        let text = String::from_utf8_lossy(&source[s..e]);
        split_code(&text, lang, |kind, piece| {
            let field = match kind {
                Segment::Code | Segment::String => Field::Body,
                Segment::Comment => Field::Doc,
                // The declaration's own docstring is the doc field already;
                // a nested one belongs to the nested declaration's document.
                Segment::Docstring => return,
            };
            if kind == Segment::Code {
                returned(piece, |r| {
                    let buf = &mut doc.fields[Field::Returns as usize];
                    buf.push(' ');
                    buf.push_str(r);
                });
            }
            let buf = &mut doc.fields[field as usize];
            buf.push(' ');
            buf.push_str(piece);
        });
    }
    doc
}

/// Call `f` with the rest of the line after each `return` keyword in a
/// piece of code (strings are pieces of their own, so they are not in it).
fn returned(code: &str, mut f: impl FnMut(&str)) {
    let b = code.as_bytes();
    let ident = |i: usize| b[i].is_ascii_alphanumeric() || b[i] == b'_';
    let mut from = 0;
    while let Some(p) = code[from..].find("return") {
        let at = from + p;
        let end = at + "return".len();
        from = end;
        if (at > 0 && ident(at - 1)) || (end < b.len() && ident(end)) {
            continue;
        }
        let stop = code[end..].find('\n').map_or(code.len(), |n| end + n);
        f(&code[end..stop]);
        from = stop;
    }
}

/// What Python's data-model methods do, in words (the language reference,
/// "Data model"): `__anext__` never says "asynchronous" or "next item",
/// `__contains__` never says "membership", yet a question does.
const PROTOCOL: &[(&str, &str)] = &[
    ("abs", "absolute value"),
    ("add", "add plus"),
    ("aenter", "asynchronous enter context"),
    ("aexit", "asynchronous exit context"),
    ("aiter", "asynchronous iterate iterator"),
    ("and", "intersection bitwise and"),
    ("anext", "asynchronous next item"),
    ("await", "await awaitable"),
    ("bool", "truth true false"),
    ("bytes", "bytes"),
    ("call", "call"),
    ("class_getitem", "generic alias"),
    ("contains", "contains membership"),
    ("copy", "copy shallow"),
    ("deepcopy", "deep copy"),
    ("del", "finalize destroy"),
    ("delattr", "delete attribute"),
    ("delete", "descriptor delete"),
    ("delitem", "delete item"),
    ("dir", "list attributes"),
    ("enter", "enter context"),
    ("eq", "equal compare"),
    ("exit", "exit context"),
    ("float", "float"),
    ("floordiv", "floor divide"),
    ("format", "format"),
    ("ge", "greater equal compare"),
    ("get", "descriptor get"),
    ("getattr", "get attribute missing"),
    ("getattribute", "get attribute"),
    ("getitem", "get item index key"),
    ("getstate", "pickle state"),
    ("gt", "greater than compare"),
    ("hash", "hash"),
    ("index", "index integer"),
    ("init", "initialize construct"),
    ("init_subclass", "subclass initialize"),
    ("instancecheck", "instance check"),
    ("int", "integer"),
    ("invert", "invert bitwise"),
    ("iter", "iterate iterator"),
    ("le", "less equal compare"),
    ("len", "length size"),
    ("lshift", "shift left"),
    ("lt", "less than compare"),
    ("matmul", "matrix multiply"),
    ("missing", "missing key"),
    ("mod", "modulo remainder"),
    ("mul", "multiply"),
    ("ne", "not equal compare"),
    ("neg", "negate"),
    ("new", "create new instance"),
    ("next", "next item"),
    ("or", "union bitwise or"),
    ("pos", "positive"),
    ("pow", "power"),
    ("reduce", "pickle reduce"),
    ("reduce_ex", "pickle reduce"),
    ("repr", "representation string"),
    ("reversed", "reverse iterate"),
    ("round", "round"),
    ("rshift", "shift right"),
    ("set", "descriptor set"),
    ("set_name", "descriptor name"),
    ("setattr", "set attribute"),
    ("setitem", "set item"),
    ("setstate", "pickle state restore"),
    ("sizeof", "size bytes memory"),
    ("str", "string"),
    ("sub", "subtract minus"),
    ("subclasscheck", "subclass check"),
    ("truediv", "divide"),
    ("xor", "symmetric difference bitwise xor"),
];

/// The words for a Python data-model method (`__eq__`, and the reflected
/// `__radd__` and in-place `__iadd__` forms), `None` for other names.
fn protocol_words(name: &str) -> Option<String> {
    let inner = name.strip_prefix("__")?.strip_suffix("__")?;
    let find = |n: &str| PROTOCOL.binary_search_by(|(k, _)| k.cmp(&n)).ok();
    if let Some(i) = find(inner) {
        return Some(PROTOCOL[i].1.to_owned());
    }
    let (form, base) = match inner.split_at_checked(1)? {
        ("r", base) => ("reflected", base),
        ("i", base) => ("in place", base),
        _ => return None,
    };
    find(base).map(|i| format!("{} {form}", PROTOCOL[i].1))
}

/// A Python signature runs to the first statement of the body, so it can
/// end with the comments above it; those are prose, counted in the doc field.
fn code_only(text: &str, lang: Lang) -> String {
    if !text.contains('#') && !text.contains("//") {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    split_code(text, lang, |kind, piece| {
        if kind != Segment::Comment {
            out.push_str(piece);
        }
    });
    out
}

/// What a stretch of source text is, for routing it to a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Segment {
    Code,
    Comment,
    String,
    /// A string literal standing alone as the first statement of a block
    /// (Python): a docstring, prose rather than data.
    Docstring,
}

/// Split source text into code, comments and string literals, without a
/// parser: the scan is linear and never fails on odd input.
pub fn split_code(text: &str, lang: Lang, mut f: impl FnMut(Segment, &str)) {
    let b = text.as_bytes();
    let n = b.len();
    let mut i = 0;
    let mut code_start = 0;
    // Python: a string opening the first logical line after a line that
    // ends with `:` is a docstring. `depth` tracks brackets so `:` inside
    // annotations and slices does not count.
    let mut depth: i32 = 0;
    let mut after_colon = false;
    let mut line_has_code = false;
    let mut last_code_byte = b'\n';
    macro_rules! flush {
        ($upto:expr) => {
            if $upto > code_start {
                f(Segment::Code, &text[code_start..$upto]);
            }
        };
    }
    while i < n {
        let c = b[i];
        let line_comment = match lang {
            Lang::Python => c == b'#',
            Lang::Go => c == b'/' && b.get(i + 1) == Some(&b'/'),
        };
        if line_comment {
            flush!(i);
            let end = line_end(b, i);
            f(Segment::Comment, &text[i..end]);
            i = end;
            code_start = i;
        } else if lang == Lang::Go && c == b'/' && b.get(i + 1) == Some(&b'*') {
            flush!(i);
            let end = text[i + 2..].find("*/").map(|p| i + 4 + p).unwrap_or(n);
            f(Segment::Comment, &text[i..end]);
            i = end;
            code_start = i;
        } else if c == b'"' || c == b'\'' || (lang == Lang::Go && c == b'`') {
            // Python string prefixes (`r`, `b`, `f`…) stay with the code;
            // one letter is never a term anyway.
            flush!(i);
            let end = string_end(b, i, lang);
            let is_doc = lang == Lang::Python && after_colon && !line_has_code;
            let kind = if is_doc {
                Segment::Docstring
            } else {
                Segment::String
            };
            f(kind, &text[i..end]);
            i = end;
            code_start = i;
            line_has_code = true;
            after_colon = false;
            last_code_byte = b'"';
        } else {
            match c {
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => depth -= 1,
                _ => {}
            }
            if c == b'\n' {
                // A logical line ends at a newline outside brackets.
                if depth <= 0 && line_has_code {
                    after_colon = last_code_byte == b':';
                    line_has_code = false;
                }
            } else if !c.is_ascii_whitespace() && c != b'\\' {
                line_has_code = true;
                last_code_byte = c;
            }
            i += 1;
        }
    }
    flush!(n);
}

fn line_end(b: &[u8], from: usize) -> usize {
    b[from..]
        .iter()
        .position(|&c| c == b'\n')
        .map(|p| from + p)
        .unwrap_or(b.len())
}

/// The end (exclusive) of the string literal opening at `i`.
fn string_end(b: &[u8], i: usize, lang: Lang) -> usize {
    let n = b.len();
    let q = b[i];
    if lang == Lang::Go && q == b'`' {
        return b[i + 1..]
            .iter()
            .position(|&c| c == b'`')
            .map(|p| i + 1 + p + 1)
            .unwrap_or(n);
    }
    let triple = lang == Lang::Python && i + 2 < n && b[i + 1] == q && b[i + 2] == q;
    if triple {
        let mut j = i + 3;
        while j + 2 < n {
            if b[j] == b'\\' {
                j += 2;
                continue;
            }
            if b[j] == q && b[j + 1] == q && b[j + 2] == q {
                return j + 3;
            }
            j += 1;
        }
        return n;
    }
    let mut j = i + 1;
    while j < n {
        match b[j] {
            b'\\' => j += 2,
            b'\n' => return j,
            c if c == q => return j + 1,
            _ => j += 1,
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segments(text: &str, lang: Lang) -> Vec<(Segment, String)> {
        let mut out = Vec::new();
        split_code(text, lang, |k, s| out.push((k, s.trim().to_owned())));
        out.retain(|(_, s)| !s.is_empty());
        out
    }

    #[test]
    fn a_call_is_named_by_what_its_result_is_assigned_or_passed_as() {
        let src = "def f(p):\n    checksum = crc(p)\n    self.total += size(p)\n    \
                   if n == count(p): pass\n    open(p, encoding=detect(p))\n    \
                   for row in rows(p): pass\n    with lock(p) as guard: pass\n    \
                   head, err = split(p)\n    width: int = measure(p)\n    \
                   for key, value in pairs(p): pass\n    return crc(p)\n";
        let facts = crate::lang::extract(Lang::Python, "m.py", src.as_bytes());
        let named: Vec<(String, String)> = call_site_names(&facts.calls, src.as_bytes())
            .into_iter()
            .map(|(i, name)| (facts.calls[i as usize].callee_text.clone(), name))
            .collect();
        let pairs: Vec<(&str, &str)> = named
            .iter()
            .map(|(c, n)| (c.as_str(), n.as_str()))
            .collect();
        assert_eq!(
            pairs,
            [
                ("crc", "checksum"),
                ("size", "total"),
                ("detect", "encoding"),
                ("rows", "row"),
                ("lock", "guard"),
                ("split", "head"),
                ("measure", "width"),
                ("pairs", "key value"),
            ]
        );
    }

    #[test]
    fn a_go_call_is_named_by_its_variables_but_not_by_err() {
        let src = "package m\n\nfunc f(id int) {\n\tuser, err := load(id)\n\t\
                   var cfg = parse(id)\n\tif err := save(user); err != nil {\n\t}\n}\n";
        let facts = crate::lang::extract(Lang::Go, "m.go", src.as_bytes());
        let named: Vec<(String, String)> = call_site_names(&facts.calls, src.as_bytes())
            .into_iter()
            .map(|(i, name)| (facts.calls[i as usize].callee_text.clone(), name))
            .collect();
        assert_eq!(
            named,
            [
                ("load".to_owned(), "user".to_owned()),
                ("parse".to_owned(), "cfg".to_owned())
            ]
        );
    }

    #[test]
    fn python_docstrings_comments_and_strings_are_told_apart() {
        let src = "def f(a: dict[str, int]) -> int:\n    # why\n    \"\"\"Doc.\"\"\"\n    x = 'lit'  # note\n    def g():\n        '''Inner.'''\n    return x\n";
        let segs = segments(src, Lang::Python);
        let kinds = |k: Segment| -> Vec<String> {
            segs.iter()
                .filter(|s| s.0 == k)
                .map(|s| s.1.clone())
                .collect()
        };
        assert_eq!(
            kinds(Segment::Docstring),
            ["\"\"\"Doc.\"\"\"", "'''Inner.'''"]
        );
        assert_eq!(kinds(Segment::Comment), ["# why", "# note"]);
        assert_eq!(kinds(Segment::String), ["'lit'"]);
        assert!(kinds(Segment::Code).iter().any(|c| c.contains("return x")));
    }

    #[test]
    fn returned_code_is_what_follows_return() {
        let mut out = Vec::new();
        let code = "x = returned(a)\n    if x:\n        return x.total + 1\n    return\n";
        returned(code, |r| out.push(r.trim().to_owned()));
        assert_eq!(out, ["x.total + 1", ""]);
    }

    #[test]
    fn data_model_methods_say_what_they_do() {
        let mut sorted = PROTOCOL.to_vec();
        sorted.sort();
        assert_eq!(sorted, PROTOCOL, "sorted for binary search");
        assert_eq!(
            protocol_words("__anext__").as_deref(),
            Some("asynchronous next item")
        );
        assert_eq!(
            protocol_words("__iadd__").as_deref(),
            Some("add plus in place")
        );
        assert_eq!(protocol_words("__private"), None);
        assert_eq!(protocol_words("__x__"), None);
    }

    #[test]
    fn go_comments_and_raw_strings() {
        let src =
            "func F() string {\n\t// line\n\t/* block */\n\treturn `raw // not a comment`\n}\n";
        let segs = segments(src, Lang::Go);
        let comments: Vec<&str> = segs
            .iter()
            .filter(|s| s.0 == Segment::Comment)
            .map(|s| s.1.as_str())
            .collect();
        assert_eq!(comments, ["// line", "/* block */"]);
        assert!(
            segs.iter()
                .any(|s| s.0 == Segment::String && s.1.contains("not a comment"))
        );
    }
}

//! The call graph as a SCIP index (Sourcegraph's code-intelligence
//! format, `scip.proto`), for `ripple export scip`.
//!
//! SCIP has no call edge. A consumer draws call hierarchies from
//! occurrences, so the graph becomes:
//!
//! * a definition occurrence for every declaration, on its name, with the
//!   whole declaration as its `enclosing_range`;
//! * a reference occurrence on the callee's name at every call site whose
//!   edge meets the minimum confidence (one per callee when a call may
//!   reach several);
//! * `is_implementation` relationships for Python classes (to their
//!   bases) and overrides, and for Go interface implementations;
//! * `SymbolRole.Test` on occurrences in test code and `Generated` on
//!   those in generated files;
//! * `external_symbols` for the out-of-repository callees referenced.
//!
//! Symbols follow scip-python's and scip-go's schemes ([`symbols`],
//! [`packages`]), so the index merges with theirs. Positions are UTF-8
//! code units from the line start. The index is written as a sequence of
//! `Index` messages (metadata, then one per document, then the external
//! symbols), which protobuf reads back as one message: the output is
//! streamed and memory stays at one batch of documents.

pub mod packages;
mod symbols;
mod text;

use std::collections::{BTreeMap, HashMap};
use std::io::Write;

use protobuf::{EnumOrUnknown, Message, MessageField};
use rayon::prelude::*;
use scip::types::{
    Document, Index as ScipIndex, Metadata, Occurrence, PositionEncoding, ProtocolVersion,
    Relationship, SymbolInformation, SymbolRole, TextEncoding, ToolInfo, symbol_information::Kind,
};
use serde::Serialize;
use tree_sitter::Node;

use crate::index::{Index, Progress};
use crate::model::{Confidence, DeclKind, Lang, Span};
use crate::refactor::syntax::Parsed;
use crate::resolve::DeclId;

pub use packages::PackageOverrides;
pub use symbols::{GO_MANAGER, GO_SCHEME, PYTHON_MANAGER, PYTHON_SCHEME};

/// What to write.
#[derive(Debug, Clone)]
pub struct ScipOptions {
    /// Call sites whose edge is less sure than this are left out.
    pub min_confidence: Confidence,
    pub packages: PackageOverrides,
    /// The command line, recorded in `tool_info.arguments`.
    pub arguments: Vec<String>,
}

impl Default for ScipOptions {
    fn default() -> Self {
        ScipOptions {
            min_confidence: Confidence::Possible,
            packages: PackageOverrides::default(),
            arguments: Vec::new(),
        }
    }
}

/// What was written.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ScipSummary {
    pub documents: usize,
    pub definitions: usize,
    pub references: usize,
    /// Call edges below the minimum confidence, left out.
    pub left_out: usize,
    /// Call edges that reach a declaration local to another document
    /// (a function literal or lambda called from elsewhere): SCIP cannot
    /// name it there.
    pub unnamed: usize,
    pub relationships: usize,
    pub external_symbols: usize,
    /// Files that could not be read back (changed or removed since the
    /// index was refreshed): written without occurrences.
    pub unreadable: Vec<String>,
    pub bytes: u64,
    /// The package each language's symbols were written under.
    pub python_package: String,
    pub go_module_version: String,
}

#[derive(Debug, thiserror::Error)]
pub enum ScipError {
    #[error("cannot write the SCIP index: {0} (check the output path and free space)")]
    Write(#[source] std::io::Error),
    #[error("cannot encode the SCIP index: {0}")]
    Encode(#[from] protobuf::Error),
}

/// Write the SCIP index of `index` to `out`.
pub fn write(
    index: &Index,
    opts: &ScipOptions,
    out: &mut dyn Write,
    progress: &dyn Progress,
) -> Result<ScipSummary, ScipError> {
    let mut out = CountingWriter {
        inner: out,
        bytes: 0,
    };
    let exporter = Exporter::new(index, opts);
    let mut summary = ScipSummary {
        python_package: format!(
            "{} {}",
            exporter.packages.python_project.name, exporter.packages.python_project.version
        ),
        go_module_version: exporter.packages.go_module_of("").version,
        ..Default::default()
    };
    let metadata = ScipIndex {
        metadata: MessageField::some(Metadata {
            version: EnumOrUnknown::new(ProtocolVersion::UnspecifiedProtocolVersion),
            tool_info: MessageField::some(ToolInfo {
                name: "ripple".to_owned(),
                version: env!("CARGO_PKG_VERSION").to_owned(),
                arguments: opts.arguments.clone(),
                ..Default::default()
            }),
            project_root: project_root_uri(&index.root),
            text_document_encoding: EnumOrUnknown::new(TextEncoding::UTF8),
            ..Default::default()
        }),
        ..Default::default()
    };
    emit(&metadata, &mut out)?;
    let mut order: Vec<usize> = (0..index.files.len()).collect();
    order.sort_by(|a, b| index.files[*a].path.cmp(&index.files[*b].path));
    progress.start(order.len());
    // Documents are built in parallel a batch at a time (reading and
    // parsing each file again is most of the work) and written in path
    // order, so memory stays at one batch.
    let mut described: std::collections::HashSet<String> = Default::default();
    for batch in order.chunks(64) {
        let built: Vec<(Document, ScipSummary)> = batch
            .par_iter()
            .map(|&f| {
                let mut counts = ScipSummary::default();
                let document = exporter.document(f, &mut counts);
                progress.tick();
                (document, counts)
            })
            .collect();
        for (mut document, counts) in built {
            // A name bound at several places (a Go package over its
            // files, a Python function defined twice) is defined at each
            // and described once.
            document
                .symbols
                .retain(|s| s.symbol.starts_with("local ") || described.insert(s.symbol.clone()));
            summary.relationships += document
                .symbols
                .iter()
                .map(|s| s.relationships.len())
                .sum::<usize>();
            summary.documents += 1;
            summary.definitions += counts.definitions;
            summary.references += counts.references;
            summary.left_out += counts.left_out;
            summary.unnamed += counts.unnamed;
            summary.unreadable.extend(counts.unreadable);
            emit(
                &ScipIndex {
                    documents: vec![document],
                    ..Default::default()
                },
                &mut out,
            )?;
        }
    }
    progress.finish();
    let externals = exporter.external_symbols();
    summary.external_symbols = externals.len();
    emit(
        &ScipIndex {
            external_symbols: externals,
            ..Default::default()
        },
        &mut out,
    )?;
    out.flush().map_err(ScipError::Write)?;
    summary.bytes = out.bytes;
    Ok(summary)
}

fn emit(message: &ScipIndex, out: &mut CountingWriter) -> Result<(), ScipError> {
    let bytes = message.write_to_bytes()?;
    out.write_all(&bytes).map_err(ScipError::Write)
}

struct CountingWriter<'a> {
    inner: &'a mut dyn Write,
    bytes: u64,
}

impl Write for CountingWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// `file://` and the absolute root, percent-encoded where a URI needs it.
fn project_root_uri(root: &std::path::Path) -> String {
    let absolute = root
        .canonicalize()
        .unwrap_or_else(|_| root.to_path_buf())
        .to_string_lossy()
        .into_owned();
    let mut uri = String::from("file://");
    for b in absolute.bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            uri.push(b as char);
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri
}

/// Call edges into one callee, counted by confidence: what the symbol's
/// documentation says about how its references were found.
#[derive(Debug, Default, Clone)]
struct CallerCounts {
    by_confidence: [usize; 3],
    /// Kept call sites below `certain`: (confidence, caller, file of the
    /// call, line).
    uncertain: Vec<(Confidence, DeclId, crate::model::FileId, u32)>,
}

fn rank(c: Confidence) -> usize {
    match c {
        Confidence::Certain => 0,
        Confidence::Likely => 1,
        Confidence::Possible => 2,
    }
}

struct Exporter<'a> {
    index: &'a Index,
    min: Confidence,
    packages: packages::Packages,
    paths: Vec<&'a str>,
    /// Global symbol of each declaration (`None`: local to its document).
    symbols: Vec<Option<String>>,
    /// Edges by the file of their call site.
    edges_by_file: Vec<Vec<usize>>,
    callers: HashMap<DeclId, CallerCounts>,
    /// Python: a method → the methods it overrides; a class → its bases.
    overrides: HashMap<DeclId, Vec<DeclId>>,
    go: crate::refactor::go_impls::GoImpls,
    /// External callees referenced by a kept edge, with a calling file.
    externals: std::sync::Mutex<BTreeMap<DeclId, usize>>,
}

impl<'a> Exporter<'a> {
    fn new(index: &'a Index, opts: &ScipOptions) -> Exporter<'a> {
        let res = &index.res;
        let paths: Vec<&str> = index.files.iter().map(|f| f.path.as_str()).collect();
        let go_files: Vec<&str> = index
            .files
            .iter()
            .filter(|f| f.lang == Lang::Go)
            .map(|f| f.path.as_str())
            .collect();
        // Three independent reads of the repository: the package metadata
        // (git, the Python on PATH), Python's class hierarchy and Go's
        // interfaces (both parse files again).
        let ((packages, python), go) = rayon::join(
            || {
                rayon::join(
                    || {
                        let has_python = index.files.iter().any(|f| f.lang == Lang::Python);
                        packages::Packages::discover(
                            &index.root,
                            has_python,
                            &go_files,
                            &opts.packages,
                        )
                    },
                    || crate::refactor::overrides::python_hierarchy(index),
                )
            },
            || crate::refactor::go_impls::find(index),
        );
        let symbols = res
            .decl_ids()
            .map(|d| {
                if res.decls[d].is_external() {
                    None
                } else {
                    symbols::repo_symbol(res, &packages, &paths, d)
                }
            })
            .collect();
        let mut edges_by_file = vec![Vec::new(); index.files.len()];
        let mut callers: HashMap<DeclId, CallerCounts> = HashMap::new();
        for (i, e) in res.edges.iter().enumerate() {
            if let Some(list) = edges_by_file.get_mut(e.file.index()) {
                list.push(i);
            }
            let counts = callers.entry(e.callee).or_default();
            counts.by_confidence[rank(e.confidence)] += 1;
            if e.confidence != Confidence::Certain && e.confidence <= opts.min_confidence {
                counts.uncertain.push((
                    e.confidence,
                    e.caller,
                    e.file,
                    res.call_line(e.file, e.call),
                ));
            }
        }
        let mut overrides: HashMap<DeclId, Vec<DeclId>> = HashMap::new();
        for o in python.overrides {
            overrides.entry(o.method).or_default().push(o.overridden);
        }
        // scip-python relates a class to each base it names, as an
        // implementation; ripple does for the bases in the repository.
        for (class, base) in python.bases {
            overrides.entry(class).or_default().push(base);
        }
        Exporter {
            index,
            min: opts.min_confidence,
            packages,
            paths,
            symbols,
            edges_by_file,
            callers,
            overrides,
            go,
            externals: Default::default(),
        }
    }

    /// The symbol of `d` as seen from file `from`: its global symbol, a
    /// local one when `d` is local to `from`, else none.
    fn symbol_in(&self, d: DeclId, from: usize) -> Option<String> {
        let decl = &self.index.res.decls[d];
        if decl.is_external() {
            return symbols::external_symbol(decl, &self.packages, self.paths.get(from)?);
        }
        if let Some(s) = &self.symbols[d.index()] {
            return Some(s.clone());
        }
        (decl.file.map(|f| f.index()) == Some(from)).then(|| symbols::local(decl.local))
    }

    fn document(&self, f: usize, summary: &mut ScipSummary) -> Document {
        let index = self.index;
        let res = &index.res;
        let file = &index.files[f];
        let mut doc = Document {
            language: match file.lang {
                Lang::Python => "python",
                Lang::Go => "go",
            }
            .to_owned(),
            relative_path: file.path.clone(),
            position_encoding: EnumOrUnknown::new(
                PositionEncoding::UTF8CodeUnitOffsetFromLineStart,
            ),
            ..Default::default()
        };
        // The index holds spans, not text: the file is read again, and
        // only the content that was indexed is used.
        let source = crate::inventory::read_regular(index.root.join(&file.path))
            .ok()
            .filter(|bytes| crate::model::content_hash(bytes) == file.hash);
        let Some(source) = source else {
            summary.unreadable.push(file.path.clone());
            return doc;
        };
        let lines = Lines::new(&source);
        // Most names are found in the text; the file is parsed only for
        // the rest (a callee behind an index or a call's result).
        let tree: std::cell::OnceCell<Option<Parsed>> = std::cell::OnceCell::new();
        let parsed = || {
            tree.get_or_init(|| Parsed::new(file.lang, source.clone()))
                .as_ref()
        };
        let generated = if file.generated {
            SymbolRole::Generated as i32
        } else {
            0
        };
        // All of a test file is test code (fixtures and helpers too), as
        // is a declaration inside a test elsewhere.
        let test_file = match file.lang {
            Lang::Python => crate::lang::python::is_test_path(&file.path),
            Lang::Go => file.path.ends_with("_test.go"),
        };
        let first = res.file_base.get(f).map_or(0, |b| b.index());
        let end = res
            .file_base
            .get(f + 1)
            .map_or(res.decls.len(), |b| b.index());
        let mut occurrences: Vec<Occurrence> = Vec::new();
        for i in first..end {
            let d = DeclId::new(i);
            let decl = &res.decls[d];
            if decl.file.map(|x| x.index()) != Some(f) {
                continue;
            }
            let Some(symbol) = self.symbol_in(d, f) else {
                continue;
            };
            let test = if test_file || self.in_test(d) {
                SymbolRole::Test as i32
            } else {
                0
            };
            let short = short_name(&decl.name);
            let name = text::definition_name(&source, file.lang, decl.kind, decl.span, short)
                .or_else(|| {
                    // Lambdas and function literals have no name to find.
                    if short.contains(['<', '$']) {
                        return None;
                    }
                    definition_name(parsed()?, decl.kind, decl.span, short)
                });
            let range = match (file.lang, decl.kind) {
                // scip-python's module definition: an empty range at the
                // top of the file.
                (Lang::Python, DeclKind::Module | DeclKind::Package) => vec![0, 0, 0],
                _ => lines.range(
                    name.unwrap_or(decl.span.start_byte as usize..decl.span.start_byte as usize),
                ),
            };
            occurrences.push(Occurrence {
                range,
                symbol: symbol.clone(),
                symbol_roles: SymbolRole::Definition as i32 | test | generated,
                enclosing_range: lines
                    .range(decl.span.start_byte as usize..decl.span.end_byte as usize),
                ..Default::default()
            });
            summary.definitions += 1;
            doc.symbols.push(self.symbol_information(d, symbol.clone()));
            // Interface methods are declarations to scip-go, not to
            // ripple: defined here so that implementations point at them.
            if let Some(methods) = self.go.declared.get(&d) {
                for m in methods {
                    let method_symbol = symbols::go_interface_method(&symbol, &m.name);
                    occurrences.push(Occurrence {
                        range: lines.range(m.name_bytes.clone()),
                        symbol: method_symbol.clone(),
                        symbol_roles: SymbolRole::Definition as i32 | test | generated,
                        ..Default::default()
                    });
                    summary.definitions += 1;
                    doc.symbols.push(SymbolInformation {
                        symbol: method_symbol,
                        kind: EnumOrUnknown::new(Kind::Method),
                        display_name: m.name.clone(),
                        enclosing_symbol: symbol.clone(),
                        ..Default::default()
                    });
                }
            }
        }
        let mut seen: std::collections::HashSet<(Vec<i32>, String)> = Default::default();
        for &ei in self.edges_by_file.get(f).map(Vec::as_slice).unwrap_or(&[]) {
            let e = &res.edges[ei];
            if e.confidence > self.min {
                summary.left_out += 1;
                continue;
            }
            let Some(symbol) = self.symbol_in(e.callee, f) else {
                summary.unnamed += 1;
                continue;
            };
            let Some(call) = file.facts().calls.get(e.call as usize) else {
                continue;
            };
            let bytes = text::callee_name(&source, call.span, &call.callee_text)
                .or_else(|| parsed()?.callee_name(call.span))
                .unwrap_or_else(|| first_line(&source, call.span));
            let range = lines.range(bytes.clone());
            if !seen.insert((range.clone(), symbol.clone())) {
                continue;
            }
            // `Shop()` runs `Shop.__init__`, the graph's callee; the name
            // written is the class's, which is what scip-python refers to
            // there. Both are references, so the class's references
            // include the places that construct it.
            let class = self.constructed_class(e.callee, source.get(bytes));
            if let Some(class_symbol) = class.and_then(|c| self.symbol_in(c, f))
                && seen.insert((range.clone(), class_symbol.clone()))
            {
                occurrences.push(Occurrence {
                    range: range.clone(),
                    symbol: class_symbol,
                    symbol_roles: if test_file || self.in_test(e.caller) {
                        SymbolRole::Test as i32
                    } else {
                        0
                    } | generated,
                    ..Default::default()
                });
                summary.references += 1;
            }
            if res.decls[e.callee].is_external() {
                self.externals
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .entry(e.callee)
                    // The first calling file in table order, whichever
                    // thread gets there first.
                    .and_modify(|first| *first = (*first).min(f))
                    .or_insert(f);
            }
            let test = if test_file || self.in_test(e.caller) {
                SymbolRole::Test as i32
            } else {
                0
            };
            occurrences.push(Occurrence {
                range,
                symbol,
                symbol_roles: test | generated,
                ..Default::default()
            });
            summary.references += 1;
        }
        occurrences.sort_by(|a, b| a.range.cmp(&b.range).then(a.symbol.cmp(&b.symbol)));
        doc.occurrences = occurrences;
        doc
    }

    /// The class whose `__init__` `callee` is, when the call names the
    /// class (`Shop(…)`, not `super().__init__(…)`).
    fn constructed_class(&self, callee: DeclId, written: Option<&[u8]>) -> Option<DeclId> {
        let decls = &self.index.res.decls;
        let decl = &decls[callee];
        if decl.lang != Lang::Python || short_name(&decl.name) != "__init__" {
            return None;
        }
        let class = decl.parent.filter(|p| decls[*p].kind == DeclKind::Class)?;
        (written? == short_name(&decls[class].name).as_bytes()).then_some(class)
    }

    /// Whether `d` is a test or declared inside one.
    fn in_test(&self, d: DeclId) -> bool {
        let decls = &self.index.res.decls;
        let mut at = Some(d);
        while let Some(x) = at {
            if decls[x].is_test {
                return true;
            }
            at = decls[x].parent;
        }
        false
    }

    fn symbol_information(&self, d: DeclId, symbol: String) -> SymbolInformation {
        let res = &self.index.res;
        let decl = &res.decls[d];
        let local = self.index.local_decl(d);
        let mut documentation = Vec::new();
        if let Some(l) = local
            && !l.signature.is_empty()
        {
            documentation.push(format!("```{}\n{}\n```", decl.lang.name(), l.signature));
        }
        if let Some(doc) = local.and_then(|l| l.doc.as_deref())
            && !doc.trim().is_empty()
        {
            documentation.push(doc.to_owned());
        }
        if let Some(note) = self.confidence_note(d) {
            documentation.push(note);
        }
        let mut relationships: Vec<Relationship> = Vec::new();
        let mut implements = |target: Option<String>| {
            if let Some(target) = target
                && !relationships.iter().any(|r| r.symbol == target)
            {
                relationships.push(Relationship {
                    symbol: target,
                    is_implementation: true,
                    ..Default::default()
                });
            }
        };
        for &base in self.overrides.get(&d).map(Vec::as_slice).unwrap_or(&[]) {
            implements(self.symbols[base.index()].clone());
        }
        for &iface in self.go.types.get(&d).map(Vec::as_slice).unwrap_or(&[]) {
            implements(self.symbols[iface.index()].clone());
        }
        for (iface, name) in self.go.methods.get(&d).map(Vec::as_slice).unwrap_or(&[]) {
            let declarer = self
                .go
                .declarer
                .get(&(*iface, name.clone()))
                .copied()
                .unwrap_or(*iface);
            implements(
                self.symbols[declarer.index()]
                    .as_deref()
                    .map(|s| symbols::go_interface_method(s, name)),
            );
        }
        let enclosing_symbol = decl
            .parent
            .and_then(|p| self.symbols[p.index()].clone())
            .unwrap_or_default();
        SymbolInformation {
            symbol,
            documentation,
            relationships,
            kind: EnumOrUnknown::new(kind_of(decl.lang, decl.kind)),
            display_name: short_name(&decl.name).to_owned(),
            enclosing_symbol,
            ..Default::default()
        }
    }

    /// How the references to `d` were found, and which were left out.
    fn confidence_note(&self, d: DeclId) -> Option<String> {
        let counts = self.callers.get(&d)?;
        let res = &self.index.res;
        let [certain, likely, possible] = counts.by_confidence;
        let kept: usize = counts
            .by_confidence
            .iter()
            .enumerate()
            .filter(|(i, _)| *i <= rank(self.min))
            .map(|(_, n)| n)
            .sum();
        let left_out = certain + likely + possible - kept;
        let mut note = format!(
            "ripple call graph: {certain} certain, {likely} likely, {possible} possible call edges \
(certain: resolved by scope, import or declared type; likely: through data flow, every value \
known; possible: dynamic dispatch over every implementation, or a guess)."
        );
        if left_out > 0 {
            note.push_str(&format!(
                " {left_out} below --min-confidence {} are not references here.",
                self.min.name()
            ));
        }
        if !counts.uncertain.is_empty() {
            note.push_str(" References that are not certain:");
            let mut listed = counts.uncertain.clone();
            listed.sort();
            for (confidence, caller, file, line) in listed.iter().take(20) {
                let caller = &res.decls[*caller];
                let path = self.paths.get(file.index()).copied().unwrap_or("");
                note.push_str(&format!(
                    "\n- {} from `{}` ({path}:{line})",
                    confidence.name(),
                    caller.name
                ));
            }
            if listed.len() > 20 {
                note.push_str(&format!("\n- and {} more", listed.len() - 20));
            }
        }
        Some(note)
    }

    fn external_symbols(&self) -> Vec<SymbolInformation> {
        let res = &self.index.res;
        self.externals
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .filter_map(|(&d, &from)| {
                let decl = &res.decls[d];
                let symbol = symbols::external_symbol(decl, &self.packages, self.paths.get(from)?)?;
                let mut documentation = vec![format!("`{}` (outside the repository)", decl.name)];
                documentation.extend(self.confidence_note(d));
                Some(SymbolInformation {
                    symbol,
                    documentation,
                    kind: EnumOrUnknown::new(if decl.name.starts_with('(') {
                        Kind::Method
                    } else {
                        Kind::Function
                    }),
                    display_name: short_name(&decl.name).to_owned(),
                    ..Default::default()
                })
            })
            .collect()
    }
}

fn short_name(name: &str) -> &str {
    let name = name.rsplit_once(").").map_or(name, |(_, m)| m);
    name.rsplit('.').next().unwrap_or(name)
}

fn kind_of(lang: Lang, kind: DeclKind) -> Kind {
    match kind {
        DeclKind::Module => Kind::Module,
        DeclKind::Package if lang == Lang::Python => Kind::Module,
        DeclKind::Package => Kind::Package,
        DeclKind::Class => Kind::Class,
        DeclKind::Struct => Kind::Struct,
        DeclKind::Interface => Kind::Interface,
        DeclKind::Type => Kind::Type,
        DeclKind::Function | DeclKind::Lambda | DeclKind::Closure => Kind::Function,
        DeclKind::Method => Kind::Method,
    }
}

/// The identifier a declaration is named by: `def NAME`, `class NAME`,
/// `func (r T) NAME`, `type NAME`, `package NAME`.
fn definition_name(
    parsed: &Parsed,
    kind: DeclKind,
    span: Span,
    short: &str,
) -> Option<std::ops::Range<usize>> {
    let root = parsed.tree.root_node();
    if parsed.lang == Lang::Go && matches!(kind, DeclKind::Package | DeclKind::Module) {
        let mut cursor = root.walk();
        let clause = root
            .named_children(&mut cursor)
            .find(|n| n.kind() == "package_clause")?;
        return clause.named_child(0).map(|n| n.byte_range());
    }
    let mut node =
        root.descendant_for_byte_range(span.start_byte as usize, span.end_byte as usize)?;
    fn named<'t>(n: Node<'t>, source: &[u8], short: &str) -> Option<Node<'t>> {
        n.child_by_field_name("name")
            .filter(|id| &source[id.byte_range()] == short.as_bytes())
    }
    loop {
        match node.kind() {
            "decorated_definition" => {
                node = node.child_by_field_name("definition")?;
                continue;
            }
            "type_declaration" => {
                let mut cursor = node.walk();
                return node
                    .named_children(&mut cursor)
                    .find_map(|c| named(c, &parsed.source, short))
                    .map(|n| n.byte_range());
            }
            _ => {}
        }
        if let Some(id) = named(node, &parsed.source, short) {
            return Some(id.byte_range());
        }
        node = node.parent()?;
        if node.start_byte() < span.start_byte as usize {
            return None;
        }
    }
}

/// The first line of a call the tree names no callee for (an operator,
/// a conversion): a reference needs a place.
fn first_line(source: &[u8], span: Span) -> std::ops::Range<usize> {
    let start = (span.start_byte as usize).min(source.len());
    let end = (span.end_byte as usize).clamp(start, source.len());
    let stop = source[start..end]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(end, |i| start + i);
    start..stop
}

/// Byte offsets to SCIP positions: zero-based lines, UTF-8 code units
/// from the line start.
struct Lines {
    starts: Vec<usize>,
}

impl Lines {
    fn new(source: &[u8]) -> Lines {
        let mut starts = vec![0];
        starts.extend(
            source
                .iter()
                .enumerate()
                .filter(|(_, b)| **b == b'\n')
                .map(|(i, _)| i + 1),
        );
        Lines { starts }
    }

    fn position(&self, byte: usize) -> (i32, i32) {
        let line = self
            .starts
            .partition_point(|&s| s <= byte)
            .saturating_sub(1);
        (line as i32, (byte - self.starts[line]) as i32)
    }

    /// `[line, start, end]` on one line, else `[start line, start, end line, end]`.
    fn range(&self, bytes: std::ops::Range<usize>) -> Vec<i32> {
        let (l0, c0) = self.position(bytes.start);
        let (l1, c1) = self.position(bytes.end.max(bytes.start));
        if l0 == l1 {
            vec![l0, c0, c1]
        } else {
            vec![l0, c0, l1, c1]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf8_code_units_from_the_line_start() {
        let source = "a = 1\nb = \"é\"; f()\n".as_bytes();
        let lines = Lines::new(source);
        let f = source.iter().position(|&b| b == b'f').unwrap();
        // `é` is two bytes: `f`, the tenth character, is code unit 10.
        assert_eq!(lines.range(f..f + 1), vec![1, 10, 11]);
        assert_eq!(lines.range(0..8), vec![0, 0, 1, 2]);
    }

    #[test]
    fn the_project_root_is_a_file_uri() {
        let uri = project_root_uri(std::path::Path::new("/no such/dir"));
        assert_eq!(uri, "file:///no%20such/dir");
    }
}

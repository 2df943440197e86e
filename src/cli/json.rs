//! The JSON documents the commands print, as typed records: one place that
//! says what each `--json` answer holds (docs/manual.md lists the shapes).
//! They are printed through `serde_json::Value`, whose maps sort their keys,
//! so a document's key order is alphabetical whatever the field order here.

use std::sync::Arc;

use serde::Serialize;

use ripple::blast::UnresolvedRef;
use ripple::blast::{BlastRadius, DeclRef, ReachedRef};
use ripple::edits::{ApplyReport, UndoReport};
use ripple::graph::Direction;
use ripple::index::{GraphRefresh, Timings};
use ripple::inventory::Skipped;
use ripple::migrate::MigrateOutcome;

/// `{"error": {"kind", "message"}}`, with the candidates of a name lookup.
#[derive(Serialize)]
pub struct ErrorDoc {
    pub error: ErrorBody,
}

#[derive(Serialize)]
pub struct ErrorBody {
    pub kind: &'static str,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidates: Option<Vec<String>>,
}

/// A file and how many syntax errors it has.
#[derive(Serialize)]
pub struct PathErrors<'a> {
    pub path: &'a str,
    pub errors: u32,
}

/// `ripple index`.
#[derive(Serialize)]
pub struct IndexDoc<'a> {
    pub root: String,
    pub files: usize,
    pub parsed: usize,
    pub touched: usize,
    pub reused: usize,
    pub removed: usize,
    pub lines: u64,
    pub declarations: usize,
    pub edges: usize,
    pub unresolved: usize,
    pub skipped: &'a [Skipped],
    pub generated_files: usize,
    pub other_files: usize,
    pub syntax_errors: Vec<PathErrors<'a>>,
    pub rebuilt: &'a Option<String>,
    pub graph: &'a GraphRefresh,
    pub timings_ms: &'a Timings,
}

/// One declaration found by name, with its match score.
#[derive(Serialize)]
pub struct FoundDecl {
    pub name: Arc<str>,
    pub kind: &'static str,
    pub file: Option<Arc<str>>,
    pub line: u32,
    pub score: i64,
}

/// `ripple find` and the query-and-results answers of `search`.
#[derive(Serialize)]
pub struct QueryResults<'a, T> {
    pub query: &'a str,
    pub results: Vec<T>,
}

/// Callers or callees of a declaration by confidence.
#[derive(Serialize)]
pub struct EdgeCounts {
    pub total: usize,
    pub certain: usize,
    pub likely: usize,
    pub possible: usize,
}

/// `ripple show`.
#[derive(Serialize)]
pub struct ShowDoc {
    pub name: Arc<str>,
    pub kind: &'static str,
    pub lang: &'static str,
    pub file: Option<Arc<str>>,
    pub line: u32,
    pub end_line: u32,
    pub signature: Option<String>,
    pub doc: Option<String>,
    pub is_test: bool,
    /// Present only when true, as on every declaration record.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub generated: bool,
    pub callers: EdgeCounts,
    pub callees: EdgeCounts,
}

/// One hop of a walk: the declarations reached in it.
#[derive(Serialize)]
pub struct Hop {
    pub hop: u32,
    pub decls: Vec<ReachedRef>,
}

/// `ripple callers` and `ripple callees`.
#[derive(Serialize)]
pub struct WalkDoc {
    pub root: DeclRef,
    pub direction: Direction,
    pub depth: u32,
    pub hops: Vec<Hop>,
}

/// `ripple blast`: the radius with the owners of its files.
#[derive(Serialize)]
pub struct BlastDoc {
    #[serde(flatten)]
    pub radius: BlastRadius,
    pub owners: Vec<String>,
}

/// `ripple migrate`: the target, the outcome, and what was written.
#[derive(Serialize)]
pub struct MigrateDoc<'a> {
    pub target: DeclRef,
    pub outcome: &'a MigrateOutcome,
    pub applied: Option<ApplyReport>,
    pub patch: Option<String>,
    pub owners: Vec<String>,
    pub syntax_errors_introduced: Vec<PathErrors<'a>>,
}

/// `ripple refactor rename`: the plan's fields beside the target, the
/// owners of the selected hunks' files and, with `--apply`, what was written.
#[derive(Serialize)]
pub struct RenameDoc<'a> {
    pub target: DeclRef,
    #[serde(flatten)]
    pub plan: &'a ripple::refactor::RenamePlan,
    pub owners: &'a [String],
    pub applied: Option<&'a ApplyReport>,
    pub callers_after: Option<ripple::refactor::CallerCounts>,
}

/// `ripple refactor add-param` / `remove-param` / `reorder-params`: the
/// plan's fields beside the target, the owners of the selected hunks'
/// files and, with `--apply`, what was written.
#[derive(Serialize)]
pub struct SignatureDoc<'a> {
    pub target: DeclRef,
    #[serde(flatten)]
    pub plan: &'a ripple::refactor::signature::SignaturePlan,
    pub owners: &'a [String],
    pub applied: Option<&'a ApplyReport>,
    pub callers_after: Option<ripple::refactor::CallerCounts>,
}

/// `ripple refactor move`: the plan's fields beside the target, the owners
/// of the selected hunks' files and, with `--apply`, what was written.
#[derive(Serialize)]
pub struct MoveDoc<'a> {
    pub target: DeclRef,
    #[serde(flatten)]
    pub plan: &'a ripple::refactor::relocate::MovePlan,
    pub owners: &'a [String],
    pub applied: Option<&'a ApplyReport>,
    pub callers_after: Option<ripple::refactor::CallerCounts>,
}

/// `ripple undo`.
#[derive(Serialize)]
pub struct UndoDoc<'a> {
    pub batch: &'a str,
    pub restored: &'a [String],
    pub removed: &'a [String],
}

impl<'a> UndoDoc<'a> {
    pub fn of(report: &'a UndoReport) -> UndoDoc<'a> {
        UndoDoc {
            batch: &report.batch,
            restored: &report.restored,
            removed: &report.removed,
        }
    }
}

/// `ripple trust --revoke`.
#[derive(Serialize)]
pub struct RevokeDoc {
    pub revoked: usize,
}

/// `ripple trust`.
#[derive(Serialize)]
pub struct TrustDoc {
    pub trusted: bool,
    pub needed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_url: Option<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_key_env: Option<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<String>,
}

/// `ripple tests`.
#[derive(Serialize)]
pub struct TestsDoc {
    pub root: DeclRef,
    pub tests: Vec<ReachedRef>,
}

/// `ripple unresolved`.
#[derive(Serialize)]
pub struct UnresolvedDoc {
    pub scope: Option<Arc<str>>,
    pub count: usize,
    pub calls: Vec<UnresolvedRef>,
}

/// Which query terms matched in which fields of a search result.
#[derive(Serialize)]
pub struct Why {
    pub term: String,
    pub fields: Vec<&'static str>,
}

/// One search result.
#[derive(Serialize)]
pub struct HitDoc {
    pub name: Arc<str>,
    pub kind: &'static str,
    pub file: Option<Arc<str>>,
    pub line: u32,
    pub score: f64,
    pub why: Vec<Why>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cosine: Option<f64>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub generated: bool,
}

/// `ripple similar`.
#[derive(Serialize)]
pub struct SimilarDoc {
    pub root: DeclRef,
    pub results: Vec<HitDoc>,
}

/// One of the overview's most-called declarations.
#[derive(Serialize)]
pub struct Hotspot {
    #[serde(flatten)]
    pub decl: DeclRef,
    /// Distinct direct callers.
    pub callers: usize,
}

/// `ripple PATH --json`: the index, the hotspots and the import cycles.
#[derive(Serialize)]
pub struct OverviewDoc<'a> {
    pub index: IndexDoc<'a>,
    pub hotspots: Vec<Hotspot>,
    pub import_cycles: &'a [Vec<String>],
}

/// `export scip --json`: where the index went and what it holds.
#[derive(Serialize)]
pub struct ExportDoc<'a> {
    pub output: String,
    pub min_confidence: &'static str,
    pub seconds: f64,
    #[serde(flatten)]
    pub summary: &'a ripple::export::scip::ScipSummary,
}

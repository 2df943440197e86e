//! A full review of a fixture repository against an in-process fake model:
//! canned findings, malformed JSON, a truncated reply, a failing chunk and
//! findings that point nowhere; the concurrency limit; and the reports —
//! Markdown, JSON and SARIF validated against the official SARIF 2.1.0 JSON
//! schema, plus the rules between its parts that a schema cannot express.

mod common;

use std::collections::HashSet;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::Value;

use ripple::index::{Index, NoProgress};
use ripple::review::plan::{PlanOptions, plan_repository};
use ripple::review::report::{self, Format};
use ripple::review::runner::{self, ChunkStatus, ModelError, ModelReply, ReviewModel, RunOptions};
use ripple::review::{Plan, Severity};
use ripple::tokens::TokenCount;

/// Replies by what the prompt contains; counts calls in flight.
struct FakeModel {
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
    prompts: Mutex<Vec<String>>,
}

impl FakeModel {
    fn new() -> FakeModel {
        FakeModel {
            in_flight: AtomicUsize::new(0),
            max_in_flight: AtomicUsize::new(0),
            prompts: Mutex::new(Vec::new()),
        }
    }

    fn answer(prompt: &str) -> Result<ModelReply, ModelError> {
        let reply = |text: &str, truncated: bool| {
            Ok(ModelReply {
                text: text.to_owned(),
                input_tokens: ripple::tokens::count(prompt),
                output_tokens: ripple::tokens::count(text),
                truncated,
                cut: None,
            })
        };
        if prompt.contains("### app/core/money.py") {
            // Two real findings (one reported twice), one on a file that is
            // not in the chunk, one on a line that does not exist.
            return reply(
                r#"Sure! Here is the review:
```json
{"findings": [
 {"file": "app/core/money.py", "start_line": 4, "end_line": 5, "severity": "major", "category": "bug",
  "message": "round() then int() loses half-cents on negative amounts", "suggestion": "use Decimal", "confidence": 0.8},
 {"file": "money.py", "start_line": 5, "end_line": 5, "severity": "critical", "category": "bug",
  "message": "negative amounts round the wrong way", "confidence": 0.9},
 {"file": "app/core/other.py", "start_line": 1, "severity": "minor", "category": "bug", "message": "not here"},
 {"file": "app/core/money.py", "start_line": 900, "severity": "minor", "category": "bug", "message": "no such line"},
 {"file": "app/core/money.py", "start_line": 12, "end_line": 13, "severity": "nit", "category": "maintainability",
  "message": "add() returns cents but takes amounts", "confidence": "medium"}
]}
```"#,
                false,
            );
        }
        if let Some(line) = prompt
            .lines()
            .find_map(|l| l.strip_suffix("|def fmt_20(value):"))
        {
            // Cut off after one complete finding.
            return reply(
                &format!(
                    r#"{{"findings": [{{"file": "app/reports.py", "start_line": {line}, "end_line": {line}, "severity": "minor", "category": "performance", "message": "fmt_20 pads with the wrong width", "confidence": 0.4}}, {{"file": "app/reports.py", "start_line": {line}, "severity": "major", "categ"#
                ),
                true,
            );
        }
        if prompt.contains("|def fmt_0(") {
            return reply(
                "{\"findings\": [{\"file\": \"app/reports.py\" \"start_line\": 3}]}",
                false,
            );
        }
        if prompt.contains("|    def render_11(") {
            return reply("I did not find anything worth reporting.", false);
        }
        Err(ModelError::new("HTTP 529 overloaded after 5 retries"))
    }
}

impl ReviewModel for FakeModel {
    fn review(&self, chunk_prompt: &str) -> Result<ModelReply, ModelError> {
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.max_in_flight.fetch_max(now, Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(30));
        self.prompts.lock().unwrap().push(chunk_prompt.to_owned());
        let out = FakeModel::answer(chunk_prompt);
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
        out
    }
}

fn plan(budget: u64) -> (tempfile::TempDir, Index, Plan) {
    let db = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/review/py");
    let index = Index::open_with(&root, Some(&db.path().join("index.db")), &NoProgress).unwrap();
    let plan = plan_repository(
        &index,
        &PlanOptions {
            budget: TokenCount(budget),
            total_budget: None,
        },
    )
    .unwrap();
    (db, index, plan)
}

#[test]
fn a_review_against_a_fake_model_validates_merges_and_reports() {
    // A small budget: several chunks, reports.py in parts.
    let (_db, _index, plan) = plan(1400);
    assert!(plan.chunks.len() >= 4, "{}", plan.chunks.len());
    let model = FakeModel::new();
    let run = runner::run(
        &plan,
        &model,
        &RunOptions {
            concurrency: 2,
            tokens_per_minute: None,
        },
        &NoProgress,
    );
    assert_eq!(model.prompts.lock().unwrap().len(), plan.chunks.len());
    assert!(model.max_in_flight.load(Ordering::SeqCst) <= 2);
    assert_eq!(run.chunks.len(), plan.chunks.len());

    // money.py: the shortened path is accepted, the duplicate merged to
    // the critical reading, the stray file and the missing line dropped.
    let money: Vec<_> = run
        .findings
        .iter()
        .filter(|f| f.file == "app/core/money.py")
        .collect();
    assert_eq!(money.len(), 2, "{money:#?}");
    assert_eq!(money[0].severity, Severity::Critical);
    assert_eq!((money[0].start_line, money[0].end_line), (4, 5));
    assert_eq!(money[0].suggestion.as_deref(), Some("use Decimal"));
    assert_eq!(money[1].severity, Severity::Nit);
    assert!((money[1].confidence - 0.6).abs() < 1e-9);
    assert_eq!(run.merged, 1);
    assert_eq!(run.dropped.unknown_file, 1);
    assert_eq!(run.dropped.bad_line, 1);

    // The truncated reply keeps its complete finding; the cut one is counted.
    assert!(
        run.findings
            .iter()
            .any(|f| f.file == "app/reports.py" && f.message.contains("fmt_20"))
    );
    let statuses: Vec<&ChunkStatus> = run.chunks.iter().map(|c| &c.status).collect();
    assert!(statuses.contains(&&ChunkStatus::Truncated));
    assert!(statuses.contains(&&ChunkStatus::Unreadable));
    assert!(
        statuses
            .iter()
            .any(|s| matches!(s, ChunkStatus::Failed(m) if m.contains("529")))
    );
    // One malformed object in the truncated reply, one in the broken JSON.
    assert_eq!(run.malformed, 2);
    assert!(run.input_tokens.get() > 0 && run.output_tokens.get() > 0);

    let md = report::render(Format::Markdown, &plan, &run);
    assert!(md.contains("## Critical (1)"), "{md}");
    assert!(md.contains("`app/core/money.py:4-5`"), "{md}");
    assert!(
        md.contains("4 | def to_cents(amount):"),
        "code excerpt missing: {md}"
    );
    assert!(md.contains("HTTP 529 overloaded"), "{md}");
    assert!(md.contains("tokens in / out"));

    let json: Value = serde_json::from_str(&report::render(Format::Json, &plan, &run)).unwrap();
    assert_eq!(json["figures"]["findings"]["critical"], 1);
    assert_eq!(json["figures"]["chunks_failed"], 1);
    assert_eq!(
        json["findings"].as_array().unwrap().len(),
        run.findings.len()
    );
    assert!(
        json["skipped"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["reason"] == "secret")
    );

    let sarif: Value = serde_json::from_str(&report::render(Format::Sarif, &plan, &run)).unwrap();
    common::sarif::validate(&sarif);
    check_sarif_links(&sarif);
    // The chunks without a review are in the log too, not only the results.
    let invocation = &sarif["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false);
    let notes: Vec<&str> = invocation["toolExecutionNotifications"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["message"]["text"].as_str().unwrap())
        .collect();
    assert_eq!(notes.len(), 3, "{notes:?}");
    assert!(notes.iter().any(|n| n.contains("HTTP 529 overloaded")));
    assert!(notes.iter().any(|n| n.contains("no readable findings")));
    assert!(notes.iter().any(|n| n.contains("output limit")));
    // The validator does reject what the schema forbids.
    let mut broken = sarif.clone();
    broken["runs"][0]["results"][0]["level"] = "fatal".into();
    assert!(common::sarif::violations(&broken).is_some());
    let mut broken = sarif.clone();
    broken["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] =
        0.into();
    assert!(common::sarif::violations(&broken).is_some());
    let mut broken = sarif.clone();
    broken["runs"][0]["tool"]["driver"]["severity"] = "high".into();
    assert!(common::sarif::violations(&broken).is_some());
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), run.findings.len());
    let critical = results
        .iter()
        .find(|r| r["properties"]["severity"] == "critical")
        .unwrap();
    assert_eq!(critical["level"], "error");
    let uri = critical["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        .as_str()
        .unwrap();
    // Relative to the git work tree, which is what code scanning resolves.
    assert_eq!(uri, "tests/fixtures/review/py/app/core/money.py");
}

#[test]
fn a_token_rate_limit_that_fits_the_plan_never_waits() {
    let (_db, _index, plan) = plan(8000);
    let total: u64 = plan.chunks.iter().map(|c| c.tokens.get()).sum();
    struct Quick;
    impl ReviewModel for Quick {
        fn review(&self, _: &str) -> Result<ModelReply, ModelError> {
            Ok(ModelReply {
                text: "{\"findings\": []}".to_owned(),
                ..ModelReply::default()
            })
        }
    }
    // A limit the whole plan fits in runs without waiting.
    let t = std::time::Instant::now();
    let run = runner::run(
        &plan,
        &Quick,
        &RunOptions {
            concurrency: 4,
            tokens_per_minute: Some(total),
        },
        &NoProgress,
    );
    assert!(t.elapsed() < Duration::from_secs(5));
    assert!(run.chunks.iter().all(|c| c.status == ChunkStatus::Reviewed));
}

/// What SARIF requires between its parts and a JSON schema cannot say:
/// a result's `ruleIndex` points at the rule named by its `ruleId`, rule ids
/// are unique, artifact URIs are relative to the repository (code scanning
/// resolves them there) and regions do not run backwards.
fn check_sarif_links(log: &Value) {
    for run in log["runs"].as_array().unwrap() {
        let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
        let mut ids = HashSet::new();
        for r in rules {
            assert!(ids.insert(r["id"].as_str().unwrap()), "duplicate rule id");
        }
        for res in run["results"].as_array().unwrap() {
            let idx = res["ruleIndex"].as_u64().unwrap() as usize;
            assert_eq!(
                rules[idx]["id"], res["ruleId"],
                "ruleIndex must point at ruleId"
            );
            for loc in res["locations"].as_array().unwrap() {
                let phys = &loc["physicalLocation"];
                let uri = phys["artifactLocation"]["uri"].as_str().unwrap();
                assert!(
                    !uri.starts_with('/') && !uri.contains('\\') && !uri.contains("://"),
                    "{uri}"
                );
                let region = &phys["region"];
                assert!(region["endLine"].as_u64() >= region["startLine"].as_u64());
            }
        }
    }
}

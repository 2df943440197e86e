//! Findings: what the model reports, read tolerantly, checked strictly.
//!
//! Models wrap JSON in prose or fences, rename fields, write severities in
//! their own words and get cut off mid-answer. The parser takes what it
//! can: the reply as one JSON document, else every complete finding object
//! it can find (so a truncated reply still yields its finished findings);
//! an object it cannot read is counted as malformed, never fatal.
//!
//! Validation is strict because a finding the user cannot locate is worse
//! than none: a finding must name a file of its chunk and start on a line
//! the model was shown. Duplicates (the same problem reported twice, or by
//! two chunks that both showed the code) are merged.

use std::collections::{BTreeSet, HashMap};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::plan::Chunk;
use super::units::Lines;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Critical,
    Major,
    Minor,
    Nit,
}

impl Severity {
    pub const ALL: [Severity; 4] = [
        Severity::Critical,
        Severity::Major,
        Severity::Minor,
        Severity::Nit,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Severity::Critical => "critical",
            Severity::Major => "major",
            Severity::Minor => "minor",
            Severity::Nit => "nit",
        }
    }

    /// The model's word for a severity, including common synonyms.
    pub fn parse(s: &str) -> Option<Severity> {
        match s.trim().to_ascii_lowercase().as_str() {
            "critical" | "blocker" | "severe" | "fatal" => Some(Severity::Critical),
            "major" | "high" | "error" | "important" => Some(Severity::Major),
            "minor" | "medium" | "moderate" | "warning" => Some(Severity::Minor),
            "nit" | "nitpick" | "low" | "info" | "trivial" | "style" | "note" => {
                Some(Severity::Nit)
            }
            _ => None,
        }
    }
}

// Deserialize reads back the saved report (`review::last`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    pub file: String,
    pub start_line: u32,
    pub end_line: u32,
    pub severity: Severity,
    #[serde(default)]
    pub category: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<String>,
    /// The model's probability that the problem is real, 0–1.
    #[serde(default)]
    pub confidence: f64,
    /// Chunks (ids) that reported it.
    #[serde(default)]
    pub chunks: Vec<usize>,
}

/// What a reply yielded.
#[derive(Debug, Default)]
pub struct Parsed {
    pub findings: Vec<Finding>,
    /// Finding objects that could not be read (missing file, line or
    /// message, or cut off by truncation).
    pub malformed: usize,
    /// The reply held no JSON findings at all.
    pub unreadable: bool,
}

/// Read a model reply.
pub fn parse_reply(text: &str) -> Parsed {
    let candidates = candidates(text);
    for body in &candidates {
        if let Ok(v) = serde_json::from_str::<Value>(body.trim())
            && let Some(list) = finding_list(v)
        {
            return read(list, 0);
        }
    }
    // Nothing parses whole: take the complete objects of the first candidate
    // that yields any (a truncated reply keeps its finished findings).
    let mut fallback = None;
    for body in &candidates {
        let (list, bad, found) = salvage(body);
        if found && (!list.is_empty() || bad > 0) {
            return read(list, bad);
        }
        if found && fallback.is_none() {
            fallback = Some(read(list, bad));
        }
    }
    fallback.unwrap_or(Parsed {
        unreadable: true,
        ..Parsed::default()
    })
}

fn read(items: Vec<Value>, mut malformed: usize) -> Parsed {
    let mut findings = Vec::new();
    for item in items {
        match finding_of(&item) {
            Some(f) => findings.push(f),
            None => malformed += 1,
        }
    }
    Parsed {
        findings,
        malformed,
        unreadable: false,
    }
}

/// Where the findings may be: every fenced block, then the whole reply.
/// Models quote code in fences before they answer, so blocks naming a
/// `"findings"` key go first.
fn candidates(text: &str) -> Vec<&str> {
    let mut out = fenced_blocks(text);
    out.push(text);
    out.sort_by_key(|b| !b.contains("\"findings\""));
    out
}

/// The insides of the fenced blocks, in order (an unclosed fence — a
/// truncated reply — runs to the end).
fn fenced_blocks(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("```") {
        let after = &rest[open + 3..];
        // Skip the info string (`json`).
        let body_start = after.find('\n').map(|i| i + 1).unwrap_or(after.len());
        let body = &after[body_start..];
        match body.find("```") {
            Some(close) => {
                out.push(&body[..close]);
                rest = &body[close + 3..];
            }
            None => {
                out.push(body);
                break;
            }
        }
    }
    out
}

/// `{"findings": [...]}`, a bare array, or a single finding object.
fn finding_list(v: Value) -> Option<Vec<Value>> {
    match v {
        Value::Array(a) => Some(a),
        Value::Object(mut o) => match o.remove("findings").or_else(|| o.remove("issues")) {
            Some(Value::Array(a)) => Some(a),
            Some(_) => None,
            None if o.contains_key("file") || o.contains_key("message") => {
                Some(vec![Value::Object(o)])
            }
            None => None,
        },
        _ => None,
    }
}

/// Every complete object inside the findings array of a reply that is not
/// valid JSON as a whole. Returns (objects, unreadable objects, whether a
/// findings array was found at all).
fn salvage(text: &str) -> (Vec<Value>, usize, bool) {
    let start = match text.find("\"findings\"") {
        Some(i) => text[i..].find('[').map(|j| i + j),
        None => text.find('['),
    };
    let Some(start) = start else {
        return (Vec::new(), 0, false);
    };
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut bad = 0;
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'{' => match object_end(bytes, i) {
                Some(end) => {
                    match serde_json::from_str::<Value>(&text[i..=end]) {
                        Ok(v) => out.push(v),
                        Err(_) => bad += 1,
                    }
                    i = end + 1;
                }
                None => {
                    // Cut off mid-object: the reply was truncated.
                    bad += 1;
                    break;
                }
            },
            b']' => break,
            _ => i += 1,
        }
    }
    (out, bad, true)
}

/// The index of the `}` closing the object that opens at `open`.
fn object_end(bytes: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, &b) in bytes.iter().enumerate().skip(open) {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

fn text_field(o: &serde_json::Map<String, Value>, names: &[&str]) -> Option<String> {
    names.iter().find_map(|n| match o.get(*n) {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        _ => None,
    })
}

fn number_field(o: &serde_json::Map<String, Value>, names: &[&str]) -> Option<f64> {
    names.iter().find_map(|n| match o.get(*n) {
        Some(Value::Number(x)) => x.as_f64(),
        Some(Value::String(s)) => s.trim().parse().ok(),
        _ => None,
    })
}

/// One finding object, read with the field names and value forms models use.
fn finding_of(v: &Value) -> Option<Finding> {
    let o = v.as_object()?;
    let file = text_field(o, &["file", "path", "filename", "file_path"])?;
    let file = file.trim_start_matches("./").to_owned();
    let (mut start, mut end) = match o.get("lines") {
        Some(Value::String(s)) => {
            let (a, b) = s.split_once('-').unwrap_or((s, s));
            (a.trim().parse().ok(), b.trim().parse().ok())
        }
        Some(Value::Array(a)) => (
            a.first().and_then(Value::as_f64),
            a.get(1).or(a.first()).and_then(Value::as_f64),
        ),
        _ => (None, None),
    };
    if start.is_none() {
        start = number_field(o, &["start_line", "line_start", "line", "start"]);
    }
    if end.is_none() {
        end = number_field(o, &["end_line", "line_end", "end"]).or(start);
    }
    let (start, end) = (start?, end?);
    if !(start >= 1.0 && end >= 1.0) {
        return None;
    }
    let (start, end) = (start.min(end) as u32, start.max(end) as u32);
    let message = text_field(o, &["message", "description", "issue", "title", "problem"])?;
    let severity = text_field(o, &["severity", "level", "priority"])
        .and_then(|s| Severity::parse(&s))
        .unwrap_or(Severity::Minor);
    let category = text_field(o, &["category", "type", "kind"])
        .map(|c| c.to_ascii_lowercase().replace([' ', '_'], "-"))
        .unwrap_or_else(|| "other".to_owned());
    let suggestion = text_field(o, &["suggestion", "fix", "recommendation", "remediation"]);
    let confidence = match o.get("confidence") {
        Some(Value::String(s)) => match s.trim().to_ascii_lowercase().as_str() {
            "high" => 0.9,
            "medium" => 0.6,
            "low" => 0.3,
            other => other.trim_end_matches('%').parse::<f64>().unwrap_or(0.5),
        },
        Some(Value::Number(n)) => n.as_f64().unwrap_or(0.5),
        _ => 0.5,
    };
    // 0–100 is a percentage.
    let confidence = if confidence > 1.0 {
        confidence / 100.0
    } else {
        confidence
    }
    .clamp(0.0, 1.0);
    Some(Finding {
        file,
        start_line: start,
        end_line: end,
        severity,
        category,
        message,
        suggestion,
        confidence,
        chunks: Vec::new(),
    })
}

/// Findings dropped by validation, by cause.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Dropped {
    /// Named a file that is not in the chunk.
    pub unknown_file: usize,
    /// Started on a line the model was not shown (or that does not exist).
    pub bad_line: usize,
}

impl std::ops::AddAssign for Dropped {
    fn add_assign(&mut self, o: Dropped) {
        self.unknown_file += o.unknown_file;
        self.bad_line += o.bad_line;
    }
}

/// Keep the findings that point at code the chunk showed. A path the model
/// shortened is accepted when exactly one file of the chunk ends with it;
/// an end line past the shown range is clipped to it.
pub fn validate(findings: Vec<Finding>, chunk: &Chunk) -> (Vec<Finding>, Dropped) {
    let mut shown: HashMap<&str, Vec<Lines>> = HashMap::new();
    for f in &chunk.files {
        shown
            .entry(f.path.as_str())
            .or_default()
            .extend(f.lines.iter().copied());
    }
    let mut kept = Vec::new();
    let mut dropped = Dropped::default();
    for mut f in findings {
        let path = if shown.contains_key(f.file.as_str()) {
            Some(f.file.clone())
        } else {
            let suffix = format!("/{}", f.file);
            let matches: Vec<&&str> = shown.keys().filter(|p| p.ends_with(&suffix)).collect();
            match matches.as_slice() {
                [one] => Some((**one).to_owned()),
                _ => None,
            }
        };
        let Some(path) = path else {
            dropped.unknown_file += 1;
            continue;
        };
        let Some(range) = shown[path.as_str()]
            .iter()
            .find(|r| r.contains(f.start_line))
        else {
            dropped.bad_line += 1;
            continue;
        };
        f.end_line = f.end_line.min(range.end);
        f.file = path;
        f.chunks = vec![chunk.id];
        kept.push(f);
    }
    (kept, dropped)
}

fn words(s: &str) -> BTreeSet<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() >= 3)
        .map(str::to_ascii_lowercase)
        .collect()
}

/// Whether two findings describe the same problem: same file, lines that
/// overlap (or nearly), and the same category or mostly the same words.
fn same_problem(a: &Finding, b: &Finding) -> bool {
    if a.file != b.file || a.start_line > b.end_line + 2 || b.start_line > a.end_line + 2 {
        return false;
    }
    if a.category == b.category {
        return true;
    }
    let (wa, wb) = (words(&a.message), words(&b.message));
    let common = wa.intersection(&wb).count();
    let union = wa.union(&wb).count().max(1);
    common * 2 >= union
}

/// Merge duplicates, keeping the most severe reading, the highest
/// confidence and the union of lines and chunks. Returns the findings,
/// most severe first, and how many were merged away.
pub fn merge(findings: Vec<Finding>) -> (Vec<Finding>, usize) {
    let mut out: Vec<Finding> = Vec::new();
    let mut merged = 0;
    for f in findings {
        match out.iter_mut().find(|o| same_problem(o, &f)) {
            Some(o) => {
                merged += 1;
                if (f.severity, -f.confidence) < (o.severity, -o.confidence) {
                    o.message = f.message;
                    o.category = f.category;
                    if f.suggestion.is_some() {
                        o.suggestion = f.suggestion;
                    }
                } else if o.suggestion.is_none() {
                    o.suggestion = f.suggestion;
                }
                o.severity = o.severity.min(f.severity);
                o.confidence = o.confidence.max(f.confidence);
                o.start_line = o.start_line.min(f.start_line);
                o.end_line = o.end_line.max(f.end_line);
                o.chunks.extend(f.chunks);
                o.chunks.sort();
                o.chunks.dedup();
            }
            None => out.push(f),
        }
    }
    out.sort_by(|a, b| {
        (a.severity, &a.file, a.start_line)
            .cmp(&(b.severity, &b.file, b.start_line))
            .then(b.confidence.total_cmp(&a.confidence))
    });
    (out, merged)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fenced_json_with_prose_around_it_parses() {
        let reply = "Here is my review.\n```json\n{\"findings\": [{\"file\": \"a.py\", \"start_line\": 3, \"end_line\": 5, \"severity\": \"Major\", \"category\": \"Error Handling\", \"message\": \"swallows errors\", \"suggestion\": \"re-raise\", \"confidence\": 0.8}]}\n```\nThanks!";
        let p = parse_reply(reply);
        assert!(!p.unreadable);
        assert_eq!(p.malformed, 0);
        assert_eq!(p.findings.len(), 1);
        let f = &p.findings[0];
        assert_eq!((f.start_line, f.end_line), (3, 5));
        assert_eq!(f.severity, Severity::Major);
        assert_eq!(f.category, "error-handling");
        assert_eq!(f.suggestion.as_deref(), Some("re-raise"));
    }

    #[test]
    fn findings_after_a_quoted_code_block_are_found() {
        let reply = "`ratio` divides by b:\n```python\nreturn a / b\n```\nso:\n```json\n{\"findings\": [{\"file\": \"a.py\", \"start_line\": 2, \"message\": \"b may be 0\"}]}\n```\n";
        let p = parse_reply(reply);
        assert!(!p.unreadable);
        assert_eq!(p.findings.len(), 1);
        assert_eq!(p.findings[0].message, "b may be 0");
    }

    #[test]
    fn field_synonyms_and_value_forms_are_read() {
        let reply = r#"[{"path": "./b.go", "lines": "9-7", "level": "high", "description": "nil map write", "confidence": 85},
                        {"file": "b.go", "line": "4", "message": "x", "confidence": "low"}]"#;
        let p = parse_reply(reply);
        assert_eq!(p.findings.len(), 2);
        assert_eq!(p.findings[0].file, "b.go");
        assert_eq!((p.findings[0].start_line, p.findings[0].end_line), (7, 9));
        assert_eq!(p.findings[0].severity, Severity::Major);
        assert!((p.findings[0].confidence - 0.85).abs() < 1e-9);
        assert_eq!((p.findings[1].start_line, p.findings[1].end_line), (4, 4));
        assert_eq!(p.findings[1].severity, Severity::Minor);
        assert_eq!(p.findings[1].category, "other");
    }

    #[test]
    fn a_truncated_reply_keeps_its_complete_findings_and_counts_the_cut_one() {
        let reply = "```json\n{\"findings\": [{\"file\": \"a.py\", \"start_line\": 1, \"severity\": \"nit\", \"message\": \"a {brace} in \\\"text\\\"\"}, {\"file\": \"a.py\", \"start_line\": 2, \"mess";
        let p = parse_reply(reply);
        assert!(!p.unreadable);
        assert_eq!(p.findings.len(), 1);
        assert_eq!(p.findings[0].message, "a {brace} in \"text\"");
        assert_eq!(p.malformed, 1);
    }

    #[test]
    fn objects_missing_required_fields_are_malformed_and_prose_is_unreadable() {
        let p = parse_reply(
            r#"{"findings": [{"file": "a.py", "message": "no line"}, {"start_line": 2, "message": "no file"}, 7]}"#,
        );
        assert_eq!(p.findings.len(), 0);
        assert_eq!(p.malformed, 3);
        assert!(!p.unreadable);
        assert!(parse_reply("Looks good to me!").unreadable);
        let empty = parse_reply("{\"findings\": []}");
        assert!(!empty.unreadable && empty.findings.is_empty() && empty.malformed == 0);
    }

    fn finding(file: &str, a: u32, b: u32, sev: Severity, cat: &str, msg: &str) -> Finding {
        Finding {
            file: file.to_owned(),
            start_line: a,
            end_line: b,
            severity: sev,
            category: cat.to_owned(),
            message: msg.to_owned(),
            suggestion: None,
            confidence: 0.5,
            chunks: vec![1],
        }
    }

    #[test]
    fn duplicates_merge_to_the_most_severe_reading() {
        let mut second = finding(
            "a.py",
            11,
            14,
            Severity::Critical,
            "security",
            "token never expires",
        );
        second.chunks = vec![2];
        second.confidence = 0.9;
        let (out, merged) = merge(vec![
            finding(
                "a.py",
                10,
                12,
                Severity::Minor,
                "bug",
                "the token never expires",
            ),
            second,
            finding(
                "a.py",
                40,
                41,
                Severity::Minor,
                "bug",
                "the token never expires",
            ),
            finding("b.py", 10, 12, Severity::Nit, "bug", "other"),
        ]);
        assert_eq!(merged, 1);
        assert_eq!(out.len(), 3);
        assert_eq!(out[0].severity, Severity::Critical);
        assert_eq!((out[0].start_line, out[0].end_line), (10, 14));
        assert_eq!(out[0].chunks, vec![1, 2]);
        assert_eq!(out[0].message, "token never expires");
        assert!((out[0].confidence - 0.9).abs() < 1e-9);
    }
}

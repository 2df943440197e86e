//! Bounded property tests on the parsers that read untrusted input: a
//! model's reply (edit blocks), a server's stream (SSE), any file in a
//! repository (both extractors, including pathologically deep nesting) and
//! the undo journal on disk, which another process or a hostile checkout may
//! have written. Each runs a fixed number of generated cases inside `cargo
//! test`; `PROPTEST_CASES=20000 cargo test --release --test fuzz_inputs` runs
//! a longer campaign.

use std::path::Path;

use proptest::prelude::*;
use ripple::edits::{EditBlock, EditStreamParser, ParseSummary};
use ripple::llm::sse::{SseEvent, SseParser};
use ripple::model::Lang;

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(cases),
        // Shrinking a failure is worth it; a pathological search is not.
        max_shrink_iters: 2000,
        ..ProptestConfig::default()
    }
}

/// Lines that an edit-block reply is made of, malformed orders included.
fn reply_line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("<<<<<<< SEARCH".to_owned()),
        Just("=======".to_owned()),
        Just(">>>>>>> REPLACE".to_owned()),
        Just("```python".to_owned()),
        Just("````".to_owned()),
        Just("```".to_owned()),
        Just("shop/auth/session.py".to_owned()),
        Just("`../outside.py`:".to_owned()),
        Just(String::new()),
        Just("    return x  # é ✓".to_owned()),
        "[ -~]{0,30}",
        "\\PC{0,12}",
    ]
}

fn reply() -> impl Strategy<Value = String> {
    (
        proptest::collection::vec(reply_line(), 0..40),
        prop_oneof![Just("\n"), Just("\r\n")],
        any::<bool>(),
    )
        .prop_map(|(lines, eol, final_eol)| {
            let mut text = lines.join(eol);
            if final_eol {
                text.push_str(eol);
            }
            text
        })
}

/// Split `text` at `cuts` (fractions of its length), on character boundaries.
fn fragments(text: &str, cuts: &[u16]) -> Vec<String> {
    let mut points: Vec<usize> = cuts
        .iter()
        .map(|&c| {
            let mut i = text.len() * c as usize / u16::MAX as usize;
            while !text.is_char_boundary(i) {
                i -= 1;
            }
            i
        })
        .collect();
    points.sort_unstable();
    points.dedup();
    let mut out = Vec::new();
    let mut last = 0;
    for p in points {
        out.push(text[last..p].to_owned());
        last = p;
    }
    out.push(text[last..].to_owned());
    out
}

fn parse_in(pieces: &[String]) -> (Vec<EditBlock>, ParseSummary) {
    let mut parser = EditStreamParser::new();
    let mut blocks = Vec::new();
    for p in pieces {
        blocks.extend(parser.push(p));
    }
    let summary = parser.finish();
    blocks.extend(summary.final_blocks.iter().cloned());
    (blocks, summary)
}

proptest! {
    #![proptest_config(config(400))]

    /// However the network splits a reply, the same blocks, prose and
    /// discarded blocks come out, and every block's line is in the reply.
    #[test]
    fn edit_blocks_do_not_depend_on_how_the_reply_is_split(
        text in reply(),
        cuts in proptest::collection::vec(any::<u16>(), 0..12),
    ) {
        let (whole_blocks, whole) = parse_in(std::slice::from_ref(&text));
        let (split_blocks, split) = parse_in(&fragments(&text, &cuts));
        prop_assert_eq!(&whole_blocks, &split_blocks);
        prop_assert_eq!(&whole.prose, &split.prose);
        prop_assert_eq!(&whole.discarded, &split.discarded);
        prop_assert_eq!(whole.block_count, whole_blocks.len());
        let lines = text.lines().count().max(1);
        for b in &whole_blocks {
            prop_assert!(b.reply_line >= 1 && b.reply_line <= lines, "{:?}", b);
        }
        for d in &whole.discarded {
            prop_assert!(d.reply_line >= 1 && d.reply_line <= lines + 1, "{:?}", d);
        }
    }

    /// An event stream decodes the same whatever its chunking, and no bytes
    /// make the parser panic.
    #[test]
    fn sse_events_do_not_depend_on_chunking(
        parts in proptest::collection::vec(prop_oneof![
            Just(b"data: ".to_vec()),
            Just(b"data:{\"type\":\"x\"}".to_vec()),
            Just(b"event: content_block_delta".to_vec()),
            Just(b"id: 7".to_vec()),
            Just(b": keep-alive".to_vec()),
            Just(b"\n".to_vec()),
            Just(b"\r".to_vec()),
            Just(b"\r\n".to_vec()),
            Just(vec![0xEF, 0xBB, 0xBF]),
            proptest::collection::vec(any::<u8>(), 0..16),
        ], 0..60),
        cuts in proptest::collection::vec(any::<u16>(), 0..16),
    ) {
        let bytes: Vec<u8> = parts.concat();
        let decode = |chunks: &[&[u8]]| -> Vec<SseEvent> {
            let mut parser = SseParser::new();
            let mut out = Vec::new();
            for c in chunks {
                parser.feed(c, &mut out).expect("short lines");
            }
            out
        };
        let whole = decode(&[&bytes]);
        let mut points: Vec<usize> = cuts
            .iter()
            .map(|&c| bytes.len() * c as usize / u16::MAX as usize)
            .collect();
        points.sort_unstable();
        let mut chunks: Vec<&[u8]> = Vec::new();
        let mut last = 0;
        for p in points {
            chunks.push(&bytes[last..p]);
            last = p;
        }
        chunks.push(&bytes[last..]);
        prop_assert_eq!(whole, decode(&chunks));
    }
}

/// Files of the bundled demo, the seeds the extractors' inputs mutate.
fn demo_sources(ext: &str) -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo");
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == ext) {
                out.push(std::fs::read(&path).unwrap());
            }
        }
    }
    out.sort();
    out
}

/// A seed file with bytes overwritten, inserted and deleted.
fn mutated(seeds: Vec<Vec<u8>>) -> impl Strategy<Value = Vec<u8>> {
    let n = seeds.len();
    (
        0..n,
        proptest::collection::vec((any::<u16>(), any::<u8>(), 0u8..3), 0..24),
    )
        .prop_map(move |(i, edits)| {
            let mut bytes = seeds[i].clone();
            for (at, byte, kind) in edits {
                let pos = if bytes.is_empty() {
                    0
                } else {
                    bytes.len() * at as usize / (u16::MAX as usize + 1)
                };
                match kind {
                    0 if pos < bytes.len() => bytes[pos] = byte,
                    1 => bytes.insert(pos, byte),
                    _ if pos < bytes.len() => {
                        bytes.remove(pos);
                    }
                    _ => {}
                }
            }
            bytes
        })
}

proptest! {
    #![proptest_config(config(120))]

    #[test]
    fn the_python_extractor_takes_any_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        ripple::lang::extract(Lang::Python, "pkg/fuzz.py", &bytes);
    }

    #[test]
    fn the_go_extractor_takes_any_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        ripple::lang::extract(Lang::Go, "pkg/fuzz.go", &bytes);
    }

    #[test]
    fn the_python_extractor_takes_damaged_real_files(bytes in mutated(demo_sources("py"))) {
        ripple::lang::extract(Lang::Python, "shop/fuzz.py", &bytes);
    }

    #[test]
    fn the_go_extractor_takes_damaged_real_files(bytes in mutated(demo_sources("go"))) {
        ripple::lang::extract(Lang::Go, "internal/fuzz/fuzz.go", &bytes);
    }
}

/// Nesting far deeper than any person writes: the walks are iterative, so
/// none of these may overflow the stack.
#[test]
fn deeply_nested_input_is_extracted_without_overflowing() {
    const DEPTH: usize = 1500;
    let python = [
        format!("x = {}0{}\n", "(".repeat(DEPTH), ")".repeat(DEPTH)),
        format!("x = {}0{}\n", "[".repeat(DEPTH), "]".repeat(DEPTH)),
        format!("f = {}0\n", "lambda: ".repeat(DEPTH)),
        format!("x = {}\n", "f(".repeat(DEPTH) + &")".repeat(DEPTH)),
        (0..DEPTH / 4)
            .map(|d| format!("{}if x:\n", " ".repeat(d)))
            .collect::<String>()
            + &" ".repeat(DEPTH / 4)
            + "pass\n",
        (0..DEPTH / 4)
            .map(|d| format!("{}def f{d}():\n", " ".repeat(d)))
            .collect::<String>()
            + &" ".repeat(DEPTH / 4)
            + "return g()\n",
    ];
    for src in &python {
        ripple::lang::extract(Lang::Python, "deep.py", src.as_bytes());
    }
    let go = [
        format!(
            "package p\n\nvar x = {}0{}\n",
            "(".repeat(DEPTH),
            ")".repeat(DEPTH)
        ),
        format!(
            "package p\n\nfunc f() {{\n{}g()\n{}}}\n",
            "func() {\n".repeat(DEPTH / 2),
            "}()\n".repeat(DEPTH / 2)
        ),
        format!(
            "package p\n\nvar s = {}\"end\"\n",
            "\"a\" + ".repeat(DEPTH * 2)
        ),
    ];
    for src in &go {
        ripple::lang::extract(Lang::Go, "deep.go", src.as_bytes());
    }
}

/// A journal entry as another process or a hostile checkout could leave it.
fn journal_meta() -> impl Strategy<Value = String> {
    let path = prop_oneof![
        Just("a.py".to_owned()),
        Just("../outside.txt".to_owned()),
        Just("/tmp/ripple-fuzz-absolute.txt".to_owned()),
        Just("sub/../../outside.txt".to_owned()),
        Just(".git/hooks/post-commit".to_owned()),
        Just(String::new()),
        "[a-z./]{1,12}",
    ];
    let blob = prop_oneof![
        Just(None),
        Just(Some("blob-0".to_owned())),
        Just(Some("../../outside.txt".to_owned())),
        Just(Some("/etc/hostname".to_owned())),
    ];
    let file = (
        path,
        blob,
        proptest::option::of(any::<u64>()),
        proptest::option::of(any::<u32>()),
        any::<bool>(),
        proptest::option::of(any::<u64>()),
        proptest::collection::vec("[a-z./]{0,8}", 0..3),
    )
        .prop_map(
            |(path, before_blob, before_hash, mode, readonly, after_hash, created_dirs)| {
                serde_json::json!({
                    "path": path, "before_blob": before_blob, "before_hash": before_hash,
                    "mode": mode, "readonly": readonly, "after_hash": after_hash,
                    "created_dirs": created_dirs,
                })
            },
        );
    (
        prop_oneof![Just(1u32), any::<u32>()],
        proptest::collection::vec(file, 0..4),
        any::<bool>(),
        any::<u16>(),
    )
        .prop_map(|(version, files, truncate, cut)| {
            let text = serde_json::json!({
                "version": version, "batch": "b", "created_unix_ms": 1, "files": files,
            })
            .to_string();
            if truncate {
                text[..text.len() * cut as usize / (u16::MAX as usize + 1)].to_owned()
            } else {
                text
            }
        })
}

proptest! {
    #![proptest_config(config(150))]

    /// Listing and undoing a corrupt or hostile journal returns an error or
    /// restores files inside the repository; it never panics and never
    /// writes outside.
    #[test]
    fn a_hostile_journal_cannot_write_outside_the_repository(meta in journal_meta()) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        let outside = dir.path().join("outside.txt");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(&outside, "outside\n").unwrap();
        std::fs::write(root.join("a.py"), "x = 1\n").unwrap();
        let journal = ripple::edits::default_journal_dir(&root);
        let entry = journal.join("0001-b");
        std::fs::create_dir_all(&entry).unwrap();
        std::fs::write(entry.join("blob-0"), "restored\n").unwrap();
        std::fs::write(entry.join("meta.json"), &meta).unwrap();
        let _ = ripple::edits::batches(&journal);
        let _ = ripple::edits::undo(&root, &journal);
        prop_assert_eq!(std::fs::read_to_string(&outside).unwrap(), "outside\n");
        prop_assert!(!Path::new("/tmp/ripple-fuzz-absolute.txt").exists());
    }
}

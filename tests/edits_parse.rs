//! The edit-block parser on whole replies, fed whole and in fragments cut
//! anywhere: the blocks and the summary must not depend on where the stream
//! was cut.

use ripple::edits::{EditBlock, EditStreamParser, ParseSummary, PathOrigin};

/// A reply using every shape the parser accepts.
const REPLY: &str = r#"I'll update the callers of `load`.

Impact: two callers change.

src/app/users.py
```python
<<<<<<< SEARCH
def get(id):
    return load(id)
=======
def get(id):
    return load(id, strict=True)
>>>>>>> REPLACE
```

And the diff-fenced shape:

```python
src/app/orders.py
<<<<<<< SEARCH
x = load(1)
=======
x = load(1, strict=True)
>>>>>>> REPLACE
<<<<<<< SEARCH
y = load(2)
=======
>>>>>>> REPLACE
```

A markdown file needs a longer fence:

**docs/usage.md**
````markdown
<<<<<<< SEARCH
```python
load(1)
```
=======
```python
load(1, strict=True)
```
>>>>>>> REPLACE
````

A new file:

`src/app/strict.py`:
```
<<<<<<< SEARCH
=======
STRICT = True
>>>>>>> REPLACE
```
Done.
"#;

fn parse_in(fragments: &[&str]) -> (Vec<EditBlock>, ParseSummary) {
    let mut parser = EditStreamParser::new();
    let mut blocks = Vec::new();
    for f in fragments {
        blocks.extend(parser.push(f));
    }
    let summary = parser.finish();
    blocks.extend(summary.final_blocks.iter().cloned());
    (blocks, summary)
}

fn expected_blocks() -> Vec<(&'static str, PathOrigin, &'static str, &'static str)> {
    vec![
        (
            "src/app/users.py",
            PathOrigin::Named,
            "def get(id):\n    return load(id)\n",
            "def get(id):\n    return load(id, strict=True)\n",
        ),
        (
            "src/app/orders.py",
            PathOrigin::Named,
            "x = load(1)\n",
            "x = load(1, strict=True)\n",
        ),
        ("src/app/orders.py", PathOrigin::Reused, "y = load(2)\n", ""),
        (
            "docs/usage.md",
            PathOrigin::Named,
            "```python\nload(1)\n```\n",
            "```python\nload(1, strict=True)\n```\n",
        ),
        (
            "src/app/strict.py",
            PathOrigin::Named,
            "",
            "STRICT = True\n",
        ),
    ]
}

fn check(blocks: &[EditBlock], summary: &ParseSummary) {
    let got: Vec<_> = blocks
        .iter()
        .map(|b| {
            (
                b.path.as_str(),
                b.path_origin,
                b.search.as_str(),
                b.replace.as_str(),
            )
        })
        .collect();
    assert_eq!(got, expected_blocks());
    assert_eq!(
        blocks.iter().map(|b| b.index).collect::<Vec<_>>(),
        [0, 1, 2, 3, 4]
    );
    assert_eq!(summary.block_count, 5);
    assert!(summary.discarded.is_empty(), "{:?}", summary.discarded);
    assert_eq!(
        summary.prose,
        "I'll update the callers of `load`.\n\nImpact: two callers change.\n\n\n\
         And the diff-fenced shape:\n\n\nA markdown file needs a longer fence:\n\n\n\
         A new file:\n\nDone.\n"
    );
}

#[test]
fn whole_reply_at_once() {
    let (blocks, summary) = parse_in(&[REPLY]);
    check(&blocks, &summary);
    assert_eq!(blocks[0].reply_line, 7);
}

#[test]
fn split_once_at_every_position() {
    let cuts: Vec<usize> = (0..=REPLY.len())
        .filter(|&i| REPLY.is_char_boundary(i))
        .collect();
    for cut in cuts {
        let (blocks, summary) = parse_in(&[&REPLY[..cut], &REPLY[cut..]]);
        check(&blocks, &summary);
    }
}

#[test]
fn one_character_at_a_time() {
    let chars: Vec<String> = REPLY.chars().map(String::from).collect();
    let fragments: Vec<&str> = chars.iter().map(String::as_str).collect();
    let (blocks, summary) = parse_in(&fragments);
    check(&blocks, &summary);
}

#[test]
fn pseudo_random_fragment_sizes() {
    // A small LCG keeps the test deterministic without a dependency.
    let mut state = 0x2545_f491_u64;
    for _ in 0..200 {
        let mut fragments = Vec::new();
        let mut at = 0;
        while at < REPLY.len() {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            let mut end = (at + 1 + (state >> 33) as usize % 23).min(REPLY.len());
            while !REPLY.is_char_boundary(end) {
                end += 1;
            }
            fragments.push(&REPLY[at..end]);
            at = end;
        }
        let (blocks, summary) = parse_in(&fragments);
        check(&blocks, &summary);
    }
}

#[test]
fn crlf_replies_parse_like_lf_even_when_cut_between_cr_and_lf() {
    let crlf = REPLY.replace('\n', "\r\n");
    let (blocks, summary) = parse_in(&[&crlf]);
    check(&blocks, &summary);
    for cut in (0..crlf.len()).filter(|&i| crlf.as_bytes()[i] == b'\n') {
        let (blocks, summary) = parse_in(&[&crlf[..cut], &crlf[cut..]]);
        check(&blocks, &summary);
    }
}

#[test]
fn a_block_is_returned_as_soon_as_its_replace_marker_line_ends() {
    let mut parser = EditStreamParser::new();
    assert!(
        parser
            .push("a.py\n```\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPL")
            .is_empty()
    );
    assert!(
        parser.push("ACE").is_empty(),
        "the marker line is not complete yet"
    );
    let blocks = parser.push("\n");
    assert_eq!(blocks.len(), 1);
    assert_eq!(
        (blocks[0].search.as_str(), blocks[0].replace.as_str()),
        ("x\n", "y\n")
    );
    assert!(parser.push("```\n").is_empty());
    assert!(
        parser.finish().prose.is_empty(),
        "the closing fence belongs to the block"
    );
}

#[test]
fn a_final_replace_marker_without_lf_completes_at_finish() {
    let mut parser = EditStreamParser::new();
    assert!(
        parser
            .push("a.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE")
            .is_empty()
    );
    let summary = parser.finish();
    assert_eq!(summary.final_blocks.len(), 1);
    assert_eq!(summary.block_count, 1);
}

#[test]
fn a_truncated_block_is_discarded_and_reported() {
    let (blocks, summary) = parse_in(&["a.py\n```\n<<<<<<< SEARCH\nx\n=======\ny\n"]);
    assert!(blocks.is_empty());
    assert_eq!(summary.discarded.len(), 1);
    let d = &summary.discarded[0];
    assert_eq!((d.reply_line, d.path.as_deref()), (3, Some("a.py")));
    assert!(d.reason.contains("ended before"), "{}", d.reason);
    assert!(
        d.text.contains("<<<<<<< SEARCH\nx\n=======\ny\n"),
        "{}",
        d.text
    );
}

#[test]
fn a_block_missing_its_replace_marker_is_discarded_and_the_next_one_kept() {
    let (blocks, summary) = parse_in(&[
        "a.py\n```\n<<<<<<< SEARCH\nx\n=======\ny\n```\n\nb.py\n```\n<<<<<<< SEARCH\nq\n=======\nr\n>>>>>>> REPLACE\n```\n",
    ]);
    assert_eq!(summary.discarded.len(), 1);
    assert!(
        summary.discarded[0]
            .reason
            .contains("before `>>>>>>> REPLACE`")
    );
    assert_eq!(blocks.len(), 1);
    // The second block's path line was inside the broken block's body.
    assert_eq!(
        (blocks[0].path.as_str(), blocks[0].path_origin),
        ("b.py", PathOrigin::Named)
    );
    assert_eq!(blocks[0].search, "q\n");
}

#[test]
fn a_block_with_no_path_anywhere_is_discarded() {
    let (blocks, summary) =
        parse_in(&["Here you go:\n```\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n"]);
    assert!(blocks.is_empty());
    assert_eq!(summary.discarded.len(), 1);
    assert!(summary.discarded[0].reason.contains("no file path"));
    assert_eq!(summary.prose, "Here you go:\n");
}

#[test]
fn marker_like_lines_of_other_lengths_are_body_text() {
    let (blocks, _) = parse_in(&[
        "doc.rst\n```\n<<<<<<< SEARCH\nTitle\n=====\n=======\nNew title\n=========\n>>>>>>> REPLACE\n```\n",
    ]);
    assert_eq!(blocks.len(), 1);
    assert_eq!(blocks[0].search, "Title\n=====\n");
    assert_eq!(blocks[0].replace, "New title\n=========\n");
}

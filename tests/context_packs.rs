//! Context packs on the demo monolith: what is in, what is cut, and the token accounting.

mod common;

use ripple::context::{self, ItemKind, PackOptions};
use ripple::conventions::RippleToml;
use ripple::index::{Index, NoProgress};
use ripple::tokens::TokenCount;

fn demo() -> (tempfile::TempDir, Index) {
    let db = tempfile::tempdir().unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo");
    let index = Index::open_with(&root, Some(&db.path().join("index.db")), &NoProgress).unwrap();
    (db, index)
}

fn pack(
    index: &Index,
    name: &str,
    budget: u64,
    exclude: &dyn Fn(&str) -> bool,
) -> context::ContextPack {
    pack_with_similar(index, name, budget, exclude, 0)
}

fn pack_with_similar(
    index: &Index,
    name: &str,
    budget: u64,
    exclude: &dyn Fn(&str) -> bool,
    similar: usize,
) -> context::ContextPack {
    let target = ripple::lookup::resolve(&index.res, name).unwrap();
    context::build(
        index,
        target,
        &PackOptions {
            depth: 2,
            budget: TokenCount(budget),
            change: None,
            exclude,
            similar,
        },
    )
}

#[test]
fn a_pack_holds_the_target_its_callers_types_and_tests_within_budget() {
    let (_db, index) = demo();
    let p = pack(&index, "ValidateToken", 8000, &|_| false);
    assert_eq!(p.items[0].kind, ItemKind::Target);
    assert!(p.items[0].text.contains("func ValidateToken("));
    let kinds: Vec<ItemKind> = p.items.iter().map(|i| i.kind).collect();
    assert!(kinds.contains(&ItemKind::DirectCaller));
    assert!(kinds.contains(&ItemKind::Test));
    assert!(
        p.items
            .iter()
            .any(|i| i.kind == ItemKind::Type && i.name.ends_with(".Claims"))
    );
    let sum: TokenCount = p.items.iter().map(|i| i.tokens).sum();
    assert_eq!(sum, p.tokens);
    assert!(p.tokens <= p.budget);
    assert!(p.repo_tokens > p.tokens);
    // Direct callers are sent whole; callers further out as signature + calling line.
    let indirect = p.items.iter().find(|i| i.kind == ItemKind::IndirectCaller);
    if let Some(i) = indirect {
        assert!(i.text.contains("# line"), "{}", i.text);
    }
}

#[test]
fn a_small_budget_cuts_and_lists_what_it_cut() {
    let (_db, index) = demo();
    let big = pack(&index, "validate_token", 100_000, &|_| false);
    let small = pack(&index, "validate_token", 600, &|_| false);
    assert!(small.tokens.0 <= 600 || small.items.len() == 1);
    assert!(!small.cut.is_empty());
    assert_eq!(
        small.items.len() + small.cut.len(),
        big.items.len() + big.cut.len()
    );
    assert!(small.cut.iter().all(|i| i.text.is_empty()));
}

#[test]
fn excluded_files_never_reach_the_pack() {
    let (_db, index) = demo();
    let p = pack(&index, "validate_token", 100_000, &|path: &str| {
        path.starts_with("tests/")
    });
    assert!(
        p.items
            .iter()
            .all(|i| !i.file.as_deref().unwrap_or("").starts_with("tests/"))
    );
    assert!(p.cut.iter().any(|i| i.why.contains("excluded")));
    let text = context::render(&p);
    assert!(!text.contains("def test_"));
}

#[test]
fn the_model_is_told_why_each_declaration_was_left_out() {
    let (_db, index) = demo();
    let off_limits = |path: &str| path.starts_with("tests/");
    let p = pack(&index, "validate_token", 900, &off_limits);
    let excluded = p
        .cut
        .iter()
        .find(|i| i.file.as_deref().is_some_and(off_limits))
        .expect("an off-limits declaration is cut");
    let over_budget = p
        .cut
        .iter()
        .find(|i| !i.file.as_deref().is_some_and(off_limits))
        .expect("a declaration is cut for the budget");
    let text = context::render(&p);
    let (off, budget) = text
        .split_once("## Not shown (token budget)")
        .unwrap_or_else(|| panic!("{text}"));
    let off = off
        .split_once("## Not shown (off-limits")
        .unwrap_or_else(|| panic!("{text}"))
        .1;
    let listed = |section: &str| -> Vec<String> {
        let line = section.lines().nth(1).unwrap_or("");
        let names = line.split_once(": ").map_or("", |(_, n)| n);
        names.split(", ").map(str::to_owned).collect()
    };
    assert!(listed(off).contains(&excluded.name), "{text}");
    assert!(!listed(budget).contains(&excluded.name), "{text}");
    assert!(listed(budget).contains(&over_budget.name), "{text}");
    let v = serde_json::to_value(&p).unwrap();
    let reasons: Vec<&str> = v["cut"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["left_out"].as_str().unwrap())
        .collect();
    assert!(reasons.contains(&"off_limits") && reasons.contains(&"budget"));
}

#[test]
fn similar_declarations_are_offered_on_request_below_every_caller() {
    let (_db, index) = demo();
    let plain = pack(&index, "validate_token", 100_000, &|_| false);
    assert!(plain.items.iter().all(|i| i.kind != ItemKind::Similar));

    let p = pack_with_similar(&index, "validate_token", 100_000, &|_| false, 3);
    let similar: Vec<&context::PackItem> = p
        .items
        .iter()
        .filter(|i| i.kind == ItemKind::Similar)
        .collect();
    assert_eq!(similar.len(), 3, "{:#?}", p.items);
    for s in &similar {
        assert!(s.why.starts_with("similar, score "), "{}", s.why);
        assert!(!s.text.is_empty());
        // Never the target or something already in the pack for another reason.
        assert_ne!(s.name.as_str(), &*p.target.name);
        let same: Vec<_> = p.items.iter().filter(|i| i.name == s.name).collect();
        assert_eq!(same.len(), 1, "{} twice", s.name);
    }
    // Ranked below callers: every caller comes first, and the pack is
    // otherwise the one without similar declarations.
    let last_caller = p
        .items
        .iter()
        .rposition(|i| matches!(i.kind, ItemKind::DirectCaller | ItemKind::IndirectCaller))
        .unwrap();
    let first_similar = p
        .items
        .iter()
        .position(|i| i.kind == ItemKind::Similar)
        .unwrap();
    assert!(first_similar > last_caller);
    assert_eq!(p.items.len(), plain.items.len() + 3);
    assert!(context::render(&p).contains("## Similar declarations"));

    // A budget that holds the callers but not the similar code cuts the
    // similar code first.
    let tight = pack_with_similar(&index, "validate_token", plain.tokens.0, &|_| false, 3);
    assert!(tight.items.iter().all(|i| i.kind != ItemKind::Similar));
    assert_eq!(
        tight
            .cut
            .iter()
            .filter(|i| i.kind == ItemKind::Similar)
            .count(),
        3
    );
}

#[test]
fn ripple_toml_and_the_flag_turn_similar_declarations_on() {
    let parse = |text: &str| RippleToml::parse(text, std::path::Path::new("ripple.toml"));
    assert_eq!(
        parse("[context]\nsimilar = 2\n").unwrap().context.similar,
        2
    );
    assert_eq!(
        parse("[conventions]\nstable = []\n")
            .unwrap()
            .context
            .similar,
        0
    );
    assert!(parse("[context]\nsimilar = \"x\"\n").is_err());

    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("demo");
    common::copy_dir(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo"),
        &repo,
    );
    let run = |args: &[&str]| -> serde_json::Value {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_ripple"))
            .arg("--repo")
            .arg(&repo)
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let similar = |v: &serde_json::Value| {
        v["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["kind"] == "similar")
            .count()
    };
    let args = ["context", "validate_token", "--budget", "100000", "--json"];
    assert_eq!(similar(&run(&args)), 0);
    std::fs::write(repo.join("ripple.toml"), "[context]\nsimilar = 2\n").unwrap();
    assert_eq!(similar(&run(&args)), 2);
    let mut more = args.to_vec();
    more.extend(["--similar", "4"]);
    assert_eq!(similar(&run(&more)), 4);
}

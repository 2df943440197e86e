//! Context packs on the demo monolith: what is in, what is cut, and the token accounting.

use ripple::context::{self, ItemKind, PackOptions};
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
    let target = ripple::lookup::resolve(&index.res, name).unwrap();
    context::build(
        index,
        target,
        &PackOptions {
            depth: 2,
            budget: TokenCount(budget),
            change: None,
            exclude,
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

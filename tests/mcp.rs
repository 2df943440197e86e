//! `ripple mcp` as a coding agent meets it: the MCP SDK's own client runs
//! the built binary as a child process over stdio, on a private copy of the
//! bundled demo, and every tool's answer must be the document the command
//! line prints with `--json` for the same query.

mod common;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation,
    NumberOrString, ProgressNotificationParam, ProgressToken, ProtocolVersion, RequestMetaObject,
};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};

/// The client side: it asks for protocol version 2025-06-18 and keeps the
/// progress notifications it receives.
#[derive(Clone, Default)]
struct Agent {
    progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
}

impl ClientHandler for Agent {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("ripple-tests", "0"),
        )
        .with_protocol_version(ProtocolVersion::V_2025_06_18)
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.lock().unwrap().push(params);
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// A private copy of the demo, with no index yet.
fn demo_copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("demo");
    common::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo"),
        &repo,
    );
    (dir, repo)
}

async fn connect(repo: &Path, agent: Agent) -> RunningService<RoleClient, Agent> {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_ripple"));
    command.arg("--repo").arg(repo).arg("mcp");
    let transport = TokioChildProcess::new(command).expect("start ripple mcp");
    agent.serve(transport).await.expect("MCP handshake")
}

/// What `ripple --repo REPO ARGS --json` prints, and its exit code.
fn cli(repo: &Path, args: &[&str]) -> (i32, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ripple"))
        .arg("--repo")
        .arg(repo)
        .args(args)
        .arg("--json")
        .output()
        .expect("run ripple");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).expect("UTF-8 output"),
    )
}

fn call(tool: &str, arguments: Value) -> CallToolRequestParams {
    let Value::Object(arguments) = arguments else {
        panic!("arguments must be an object")
    };
    CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments)
}

/// The one text block of an answer.
fn text_of(result: &CallToolResult) -> &str {
    assert_eq!(result.content.len(), 1, "one content block: {result:?}");
    match result.content[0].as_text() {
        Some(t) => &t.text,
        None => panic!("a text block, not {:?}", result.content[0]),
    }
}

/// The tool's answer is the command's `--json` document, both as
/// structured content and, byte for byte, as the text block.
fn assert_same_answer(result: &CallToolResult, stdout: &str, what: &str) {
    let expected: Value =
        serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {stdout}"));
    assert_eq!(
        result.structured_content.as_ref(),
        Some(&expected),
        "{what}: structured content differs from the command line's document"
    );
    assert_eq!(
        text_of(result),
        stdout.trim_end_matches('\n'),
        "{what}: text block differs from the command line's output"
    );
}

/// Each tool, its arguments, and the command line that asks the same.
fn queries() -> Vec<(&'static str, Value, Vec<&'static str>)> {
    vec![
        ("find", json!({"query": "vtok"}), vec!["find", "vtok"]),
        (
            "find",
            json!({"query": "quote", "limit": 3}),
            vec!["find", "quote", "--limit", "3"],
        ),
        (
            "show",
            json!({"name": "validate_token"}),
            vec!["show", "validate_token"],
        ),
        (
            "callers",
            json!({"name": "validate_token"}),
            vec!["callers", "validate_token"],
        ),
        (
            "callers",
            json!({"name": "ValidateToken", "depth": 2, "min_confidence": "likely"}),
            vec![
                "callers",
                "ValidateToken",
                "--depth",
                "2",
                "--min-confidence",
                "likely",
            ],
        ),
        (
            "callees",
            json!({"name": "Service.Quote", "depth": 2}),
            vec!["callees", "Service.Quote", "--depth", "2"],
        ),
        (
            "blast",
            json!({"name": "validate_token"}),
            vec!["blast", "validate_token"],
        ),
        (
            "blast",
            json!({"name": "Service.Quote", "depth": 1}),
            vec!["blast", "Service.Quote", "--depth", "1"],
        ),
        (
            "tests",
            json!({"name": "validate_token"}),
            vec!["tests", "validate_token"],
        ),
        ("unresolved", json!({}), vec!["unresolved"]),
        (
            "unresolved",
            json!({"name": "validate_token", "depth": 2}),
            vec!["unresolved", "validate_token", "--depth", "2"],
        ),
        (
            "context",
            json!({"name": "validate_token"}),
            vec!["context", "validate_token"],
        ),
        (
            "context",
            json!({"name": "validate_token", "budget": 3000, "depth": 1,
                   "change": "add a required audience parameter"}),
            vec![
                "context",
                "validate_token",
                "--budget",
                "3000",
                "--depth",
                "1",
                "--change",
                "add a required audience parameter",
            ],
        ),
        (
            "search",
            json!({"query": "verify a token's signature and expiry"}),
            vec!["search", "verify a token's signature and expiry"],
        ),
        (
            "search",
            json!({"query": "shipping quote", "top": 3}),
            vec!["search", "shipping quote", "--top", "3"],
        ),
    ]
}

#[test]
fn every_tool_answers_with_the_command_lines_json_document() {
    let (_dir, repo) = demo_copy();
    let before = common::tree_contents(&repo);
    runtime().block_on(async {
        let client = connect(&repo, Agent::default()).await;
        let info = client.peer_info().expect("the server's initialize result");
        assert_eq!(info.protocol_version, ProtocolVersion::V_2025_06_18);
        assert_eq!(
            info.server_info.as_ref().map(|s| s.name.as_str()),
            Some("ripple")
        );

        let tools = client.list_all_tools().await.expect("tools/list");
        let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        names.sort_unstable();
        assert_eq!(
            names,
            [
                "blast",
                "callees",
                "callers",
                "context",
                "find",
                "search",
                "show",
                "tests",
                "unresolved"
            ]
        );
        for t in &tools {
            let description = t.description.as_deref().unwrap_or_default();
            assert!(
                description.contains("Use it"),
                "{}: the description says when to use the tool: {description}",
                t.name
            );
            if ["callers", "callees", "blast", "tests", "show", "context"]
                .contains(&t.name.as_ref())
            {
                for level in ["`certain`", "`likely`", "`possible`"] {
                    assert!(
                        description.contains(level),
                        "{}: the description explains {level}",
                        t.name
                    );
                }
            }
            assert_eq!(
                t.annotations.as_ref().and_then(|a| a.read_only_hint),
                Some(true),
                "{} is read-only",
                t.name
            );
        }

        for (tool, arguments, args) in queries() {
            let what = format!("{tool} {arguments}");
            let result = client
                .call_tool(call(tool, arguments))
                .await
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(result.is_error, Some(false), "{what}: {result:?}");
            let (code, stdout) = cli(&repo, &args);
            assert_eq!(code, 0, "ripple {args:?}: {stdout}");
            assert_same_answer(&result, &stdout, &what);
        }
        client.cancel().await.unwrap();
    });
    assert!(
        before == common::tree_contents(&repo),
        "only .ripple/ may change"
    );
}

#[test]
fn an_unknown_name_is_a_tool_error_carrying_the_command_lines_message() {
    let (_dir, repo) = demo_copy();
    runtime().block_on(async {
        let client = connect(&repo, Agent::default()).await;
        for tool in ["show", "callers", "blast", "tests", "context"] {
            let result = client
                .call_tool(call(tool, json!({"name": "no_such_function_anywhere"})))
                .await
                .unwrap_or_else(|e| panic!("{tool}: {e}"));
            assert_eq!(result.is_error, Some(true), "{tool}: {result:?}");
            let (code, stdout) = cli(&repo, &[tool, "no_such_function_anywhere"]);
            assert_eq!(code, 2, "the command line's lookup failure");
            assert_same_answer(&result, &stdout, tool);
            let message = &result.structured_content.as_ref().unwrap()["error"]["message"];
            assert_eq!(
                message,
                "no declaration matches `no_such_function_anywhere`"
            );
        }
        // An ambiguous name lists its candidates, as the command line does.
        let result = client
            .call_tool(call("callers", json!({"name": "save"})))
            .await
            .unwrap();
        let (code, stdout) = cli(&repo, &["callers", "save"]);
        assert_eq!(code, 2);
        assert_eq!(result.is_error, Some(true));
        assert_same_answer(&result, &stdout, "ambiguous save");
        client.cancel().await.unwrap();
    });
}

#[test]
fn malformed_calls_are_answered_and_the_server_keeps_serving() {
    let (_dir, repo) = demo_copy();
    runtime().block_on(async {
        let client = connect(&repo, Agent::default()).await;
        // Depth 0 is refused with the command line's words.
        let result = client
            .call_tool(call(
                "callers",
                json!({"name": "validate_token", "depth": 0}),
            ))
            .await
            .unwrap();
        assert_eq!(result.is_error, Some(true));
        let error = &result.structured_content.as_ref().unwrap()["error"];
        assert_eq!(error["kind"], "usage");
        assert!(
            error["message"]
                .as_str()
                .unwrap()
                .contains("starts at 1 (1 = direct callers)"),
            "{error}"
        );
        // Missing and mistyped arguments, an unknown confidence and an
        // unknown tool: errors, never a crash.
        for (tool, arguments) in [
            ("blast", json!({})),
            ("callers", json!({"name": 42})),
            (
                "callees",
                json!({"name": "validate_token", "min_confidence": "sure"}),
            ),
            ("find", json!({"query": "x", "limit": -1})),
            ("no_such_tool", json!({})),
        ] {
            let answer = client.call_tool(call(tool, arguments.clone())).await;
            assert!(
                !answer.is_ok_and(|r| r.is_error != Some(true)),
                "{tool} {arguments}: answered as a success"
            );
        }
        let result = client
            .call_tool(call("show", json!({"name": "validate_token"})))
            .await
            .expect("still serving");
        assert_eq!(result.is_error, Some(false));
        client.cancel().await.unwrap();
    });
}

#[test]
fn the_first_index_reports_progress_to_a_client_that_asks() {
    let (_dir, repo) = demo_copy();
    let agent = Agent::default();
    let progress = Arc::clone(&agent.progress);
    runtime().block_on(async {
        let client = connect(&repo, agent).await;
        // The SDK's client puts a token of its own on every request.
        let token = ProgressToken(NumberOrString::String("first-index".into()));
        let mut params = call("find", json!({"query": "vtok"}));
        params.meta = Some(RequestMetaObject::with_progress_token(token));
        let result = client.call_tool(params).await.unwrap();
        assert_eq!(result.is_error, Some(false));
        // Notifications are handled apart from the answer; give them a moment.
        for _ in 0..50 {
            let done = progress
                .lock()
                .unwrap()
                .last()
                .is_some_and(|p| Some(p.progress) == p.total);
            if done {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        let seen = progress.lock().unwrap().clone();
        assert!(!seen.is_empty(), "no progress notification");
        assert!(
            seen.iter()
                .all(|p| p.progress_token == seen[0].progress_token),
            "one request's token"
        );
        assert!(
            seen.windows(2).all(|w| w[0].progress < w[1].progress),
            "progress only grows: {seen:?}"
        );
        let last = seen.last().unwrap();
        let (_, files) = cli(&repo, &["index"]);
        let files = serde_json::from_str::<Value>(&files).unwrap()["files"]
            .as_f64()
            .unwrap();
        assert_eq!(last.total, Some(files), "every file of the demo");
        assert_eq!(last.progress, files);

        // A refresh with nothing to parse: no notification.
        let before = progress.lock().unwrap().len();
        client
            .call_tool(call("find", json!({"query": "vtok"})))
            .await
            .unwrap();
        assert_eq!(progress.lock().unwrap().len(), before);
        client.cancel().await.unwrap();
    });
}

#[test]
fn a_repository_that_does_not_exist_stops_the_server_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ripple"))
        .arg("--repo")
        .arg(dir.path().join("missing"))
        .arg("mcp")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty(), "nothing on the protocol's stream");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not a directory"), "{err}");
}

#[test]
fn an_edit_between_calls_is_in_the_next_answer() {
    let (_dir, repo) = demo_copy();
    runtime().block_on(async {
        let client = connect(&repo, Agent::default()).await;
        let first = client
            .call_tool(call("callers", json!({"name": "validate_token"})))
            .await
            .unwrap();
        let count = |r: &CallToolResult| {
            r.structured_content.as_ref().unwrap()["hops"][0]["decls"]
                .as_array()
                .unwrap()
                .len()
        };
        let before = count(&first);
        std::fs::write(
            repo.join("shop/extra_caller.py"),
            "from shop.auth.tokens import validate_token\n\n\
             def brand_new_caller(t):\n    return validate_token(t)\n",
        )
        .unwrap();
        let second = client
            .call_tool(call("callers", json!({"name": "validate_token"})))
            .await
            .unwrap();
        assert_eq!(count(&second), before + 1, "the new caller is found");
        client.cancel().await.unwrap();
    });
}

//! A fake LLM provider on 127.0.0.1 for tests: a tiny HTTP/1.1 server over
//! std's `TcpListener` that answers each connection with the next scripted
//! [`Reply`], byte for byte — so a test decides exactly where TCP writes are
//! cut (mid-line, mid-UTF-8 character), how slowly events drip, whether the
//! stream ends cleanly, is cut without its terminal marker, or goes silent.
//! Every request is recorded (method, path, headers, body) so tests can
//! assert what ripple sent. Each reply carries `Connection: close`, so a retry
//! always arrives on a fresh connection and takes the next reply.
//!
//! Concurrent callers (the review runner sends chunks in parallel) cannot
//! rely on arrival order, so [`FakeLlm::routed`] picks the script by what
//! the request body contains instead.

#![allow(dead_code)] // each test binary uses a different part of the helper

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// The literal Anthropic stream of llm-wire-formats.md §1.
pub const ANTHROPIC_STREAM: &str = r###"event: message_start
data: {"type":"message_start","message":{"id":"msg_01Ab9xYz","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1840,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: ping
data: {"type":"ping"}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"## Impact\n3 callers"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" pass a `String`."}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":12}}

event: message_stop
data: {"type":"message_stop"}

"###;

/// The literal Anthropic mid-stream error of §1.
pub const ANTHROPIC_ERROR_EVENT: &str = r#"event: error
data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}

"#;

/// The literal OpenAI stream of llm-wire-formats.md §2.
pub const OPENAI_STREAM: &str = r###"data: {"id":"chatcmpl-9xQ","object":"chat.completion.chunk","created":1764400000,"model":"gpt-5.4-mini","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-9xQ","object":"chat.completion.chunk","created":1764400000,"model":"gpt-5.4-mini","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"content":"## Impact\n3 callers"},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-9xQ","object":"chat.completion.chunk","created":1764400000,"model":"gpt-5.4-mini","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}

data: {"id":"chatcmpl-9xQ","object":"chat.completion.chunk","created":1764400000,"model":"gpt-5.4-mini","system_fingerprint":"fp_1","choices":[],"usage":{"prompt_tokens":1790,"completion_tokens":12,"total_tokens":1802,"prompt_tokens_details":{"cached_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}}

data: [DONE]

"###;

/// An Anthropic Messages stream that says `text` in deltas of `piece`
/// characters and ends with `end_turn`.
pub fn anthropic_stream(text: &str, piece: usize) -> String {
    let mut s = String::from(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-test\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":900,\"output_tokens\":1}}}\n\n",
    );
    let chars: Vec<char> = text.chars().collect();
    for part in chars.chunks(piece.max(1)) {
        let part: String = part.iter().collect();
        let delta = serde_json::json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": part}});
        s.push_str(&format!("event: content_block_delta\ndata: {delta}\n\n"));
    }
    s.push_str("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":50}}\n\n");
    s.push_str("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    s
}

/// An OpenAI Chat Completions stream that says `text` in one delta, then
/// `stop` and `[DONE]`.
pub fn openai_stream(text: &str) -> String {
    let chunk = serde_json::json!({"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
        "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": null}]});
    let end = serde_json::json!({"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]});
    format!("data: {chunk}\n\ndata: {end}\n\ndata: [DONE]\n\n")
}

/// What the server does on one connection.
#[derive(Debug, Clone)]
pub enum Reply {
    /// Read the request, then close without answering (a reset before headers).
    HangUp,
    Respond(Response),
}

#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    /// Wait this long before sending the status line.
    pub head_delay: Duration,
    /// `Transfer-Encoding: chunked` (each write one chunk), as the real APIs
    /// send; otherwise the body is delimited by closing the connection.
    pub chunked: bool,
    pub steps: Vec<Step>,
    pub end: End,
}

#[derive(Debug, Clone)]
pub enum Step {
    Write(Vec<u8>),
    Pause(Duration),
}

#[derive(Debug, Clone, Copy)]
pub enum End {
    /// Finish the body properly (the zero-length chunk when chunked).
    Clean,
    /// Close the socket mid-body: no terminating chunk.
    Abort,
    /// Go silent for this long, then close mid-body.
    Hang(Duration),
}

impl Reply {
    /// A 200 `text/event-stream` with the whole stream in one write.
    pub fn sse(stream: &str) -> Reply {
        Reply::Respond(Response {
            status: 200,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            head_delay: Duration::ZERO,
            chunked: true,
            steps: vec![Step::Write(stream.as_bytes().to_vec())],
            end: End::Clean,
        })
    }

    /// A JSON (or any) body with this status.
    pub fn json(status: u16, body: &str) -> Reply {
        Reply::Respond(Response {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            head_delay: Duration::ZERO,
            chunked: false,
            steps: vec![Step::Write(body.as_bytes().to_vec())],
            end: End::Clean,
        })
    }

    fn response(&mut self) -> &mut Response {
        match self {
            Reply::Respond(r) => r,
            Reply::HangUp => panic!("a hang-up has no response to shape"),
        }
    }

    pub fn header(mut self, name: &str, value: &str) -> Reply {
        self.response().headers.push((name.into(), value.into()));
        self
    }

    /// The body bytes, concatenated.
    fn body(&mut self) -> Vec<u8> {
        let r = self.response();
        let bytes = r
            .steps
            .iter()
            .flat_map(|s| match s {
                Step::Write(b) => b.clone(),
                Step::Pause(_) => Vec::new(),
            })
            .collect();
        r.steps.clear();
        bytes
    }

    /// Re-cut the body into writes of `n` bytes, with a short pause between
    /// them so the client sees them as separate reads.
    pub fn in_pieces(mut self, n: usize) -> Reply {
        let body = self.body();
        let cuts: Vec<usize> = (n..body.len()).step_by(n).collect();
        self.cut_body(&body, &cuts)
    }

    /// Re-cut the body exactly at these byte offsets.
    pub fn cut_at(mut self, cuts: &[usize]) -> Reply {
        let body = self.body();
        self.cut_body(&body, cuts)
    }

    fn cut_body(mut self, body: &[u8], cuts: &[usize]) -> Reply {
        let r = self.response();
        let mut start = 0;
        for &cut in cuts.iter().chain(std::iter::once(&body.len())) {
            if cut > start {
                if start > 0 {
                    r.steps.push(Step::Pause(Duration::from_millis(2)));
                }
                r.steps.push(Step::Write(body[start..cut].to_vec()));
                start = cut;
            }
        }
        self
    }

    /// One write per event (cut after each blank line), `pause` apart.
    pub fn drip(mut self, pause: Duration) -> Reply {
        let body = self.body();
        let text = String::from_utf8(body).expect("drip needs a UTF-8 stream");
        let r = self.response();
        for (i, event) in text.split_inclusive("\n\n").enumerate() {
            if i > 0 {
                r.steps.push(Step::Pause(pause));
            }
            r.steps.push(Step::Write(event.as_bytes().to_vec()));
        }
        self
    }

    pub fn delay_headers(mut self, delay: Duration) -> Reply {
        self.response().head_delay = delay;
        self
    }

    /// Delimit the body by closing the socket instead of chunked encoding.
    pub fn close_delimited(mut self) -> Reply {
        self.response().chunked = false;
        self
    }

    pub fn ending(mut self, end: End) -> Reply {
        self.response().end = end;
        self
    }
}

/// One request as the server received it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    /// Names lower-cased, in arrival order.
    pub headers: Vec<(String, String)>,
    pub body: String,
    /// When the request was read, to check the waits between retries.
    pub at: Instant,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

pub struct FakeLlm {
    port: u16,
    requests: Arc<Mutex<Vec<Recorded>>>,
}

/// Picks the reply to a request; `None` when the script has run out.
type Script = Box<dyn FnMut(&Recorded) -> Option<Reply> + Send>;

impl FakeLlm {
    /// Serve `script`, one reply per connection, in order. Connections beyond
    /// the script get a 599 so a test that retries too often fails loudly.
    pub fn start(script: Vec<Reply>) -> FakeLlm {
        let mut script = VecDeque::from(script);
        FakeLlm::serve_with(Box::new(move |_| script.pop_front()))
    }

    /// Serve each request from the first route whose needle occurs in its
    /// body, taking that route's replies in order. A request no route
    /// matches, or one past its route's script, gets the 599.
    pub fn routed(routes: Vec<(&str, Vec<Reply>)>) -> FakeLlm {
        let mut routes: Vec<(String, VecDeque<Reply>)> = routes
            .into_iter()
            .map(|(needle, replies)| (needle.to_owned(), VecDeque::from(replies)))
            .collect();
        FakeLlm::serve_with(Box::new(move |request| {
            routes
                .iter_mut()
                .find(|(needle, _)| request.body.contains(needle.as_str()))
                .and_then(|(_, replies)| replies.pop_front())
        }))
    }

    fn serve_with(script: Script) -> FakeLlm {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let script = Arc::new(Mutex::new(script));
        let recorded = Arc::clone(&requests);
        thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let recorded = Arc::clone(&recorded);
                let script = Arc::clone(&script);
                thread::spawn(move || serve(stream, &recorded, &script));
            }
        });
        FakeLlm { port, requests }
    }

    /// `http://127.0.0.1:PORT` — Anthropic's API root; add `/v1` for OpenAI's.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }
}

fn serve(stream: TcpStream, recorded: &Mutex<Vec<Recorded>>, script: &Mutex<Script>) {
    let _ = stream.set_nodelay(true);
    let Some(request) = read_request(&stream) else {
        return;
    };
    let reply = (script.lock().unwrap())(&request);
    recorded.lock().unwrap().push(request);
    let reply = reply.unwrap_or_else(|| {
        Reply::json(
            599,
            r#"{"error":{"type":"fake_server","message":"no scripted reply left"}}"#,
        )
    });
    // Write errors mean the client gave up (cancel, timeout): nothing to do.
    let _ = respond(stream, reply);
}

fn read_request(stream: &TcpStream) -> Option<Recorded> {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_owned();
    let path = parts.next()?.to_owned();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).ok()?;
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':')?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
    }
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(Recorded {
        method,
        path,
        headers,
        body: String::from_utf8(body).ok()?,
        at: Instant::now(),
    })
}

fn respond(mut stream: TcpStream, reply: Reply) -> std::io::Result<()> {
    let Reply::Respond(r) = reply else {
        return Ok(()); // dropping the stream closes it unanswered
    };
    thread::sleep(r.head_delay);
    let mut head = format!("HTTP/1.1 {} Fake\r\nconnection: close\r\n", r.status);
    for (name, value) in &r.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if r.chunked {
        head.push_str("transfer-encoding: chunked\r\n");
    } else if matches!(r.end, End::Clean) {
        let length: usize = r
            .steps
            .iter()
            .map(|s| match s {
                Step::Write(b) => b.len(),
                Step::Pause(_) => 0,
            })
            .sum();
        // Error bodies carry a length like real servers; streams that are
        // meant to be cut stay close-delimited.
        if r.status != 200 {
            head.push_str(&format!("content-length: {length}\r\n"));
        }
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    stream.flush()?;
    for step in &r.steps {
        match step {
            Step::Pause(d) => thread::sleep(*d),
            // An empty chunk would end a chunked body.
            Step::Write(bytes) if bytes.is_empty() => {}
            Step::Write(bytes) if r.chunked => {
                stream.write_all(format!("{:x}\r\n", bytes.len()).as_bytes())?;
                stream.write_all(bytes)?;
                stream.write_all(b"\r\n")?;
                stream.flush()?;
            }
            Step::Write(bytes) => {
                stream.write_all(bytes)?;
                stream.flush()?;
            }
        }
    }
    match r.end {
        End::Clean if r.chunked => stream.write_all(b"0\r\n\r\n")?,
        End::Clean | End::Abort => {}
        End::Hang(d) => thread::sleep(d),
    }
    stream.flush()?;
    // Half-close so the client sees EOF at once.
    stream.shutdown(std::net::Shutdown::Both)
}

//! A fake embeddings server on 127.0.0.1 speaking OpenAI's `/v1/embeddings`
//! and Ollama's `/api/embed`, for the search tests: never the network.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

/// A fake embeddings server: each text becomes a hashed bag of its words,
/// so texts that share words are near. The first request is refused with
/// 429 to exercise the retry.
pub struct FakeServer {
    pub port: u16,
    /// Texts embedded so far (queries included).
    pub inputs: Arc<AtomicUsize>,
    pub requests: Arc<AtomicUsize>,
    pub paths: Arc<Mutex<Vec<String>>>,
}

pub fn embed_words(text: &str) -> Vec<f32> {
    let mut v = vec![0f32; 64];
    for t in ripple::semantic::terms::terms_of(text) {
        let h = ripple::model::content_hash(t.as_bytes());
        v[(h % 64) as usize] += 1.0;
    }
    v
}

pub fn fake_server() -> FakeServer {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let inputs = Arc::new(AtomicUsize::new(0));
    let requests = Arc::new(AtomicUsize::new(0));
    let paths = Arc::new(Mutex::new(Vec::new()));
    let (i2, r2, p2) = (inputs.clone(), requests.clone(), paths.clone());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request_line = String::new();
            if reader.read_line(&mut request_line).is_err() {
                continue;
            }
            let mut len = 0usize;
            loop {
                let mut h = String::new();
                reader.read_line(&mut h).unwrap();
                if h.trim().is_empty() {
                    break;
                }
                if let Some(v) = h.to_ascii_lowercase().strip_prefix("content-length:") {
                    len = v.trim().parse().unwrap();
                }
            }
            let mut body = vec![0u8; len];
            reader.read_exact(&mut body).unwrap();
            let n = r2.fetch_add(1, Ordering::SeqCst);
            let path = request_line
                .split_whitespace()
                .nth(1)
                .unwrap_or("")
                .to_owned();
            p2.lock().unwrap().push(path.clone());
            if n == 0 {
                let _ = stream.write_all(
                    b"HTTP/1.1 429 Too Many Requests\r\nretry-after: 0\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                );
                continue;
            }
            let req: Value = serde_json::from_slice(&body).unwrap();
            let texts: Vec<String> = match &req["input"] {
                Value::Array(a) => a.iter().map(|x| x.as_str().unwrap().to_owned()).collect(),
                Value::String(s) => vec![s.clone()],
                _ => vec![],
            };
            i2.fetch_add(texts.len(), Ordering::SeqCst);
            let vecs: Vec<Vec<f32>> = texts.iter().map(|t| embed_words(t)).collect();
            let answer = if path == "/api/embed" {
                json!({"model": req["model"], "embeddings": vecs})
            } else {
                // Out of order on purpose: clients must match by `index`.
                let mut data: Vec<Value> = vecs
                    .iter()
                    .enumerate()
                    .map(|(i, v)| json!({"object": "embedding", "index": i, "embedding": v}))
                    .collect();
                data.reverse();
                json!({"object": "list", "data": data, "model": req["model"]})
            };
            let text = answer.to_string();
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{}",
                text.len(),
                text
            );
        }
    });
    FakeServer {
        port,
        inputs,
        requests,
        paths,
    }
}

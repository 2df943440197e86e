//! Sending chunks to a model: the seam where a provider plugs in, and the
//! runner that drives it — in parallel up to a concurrency limit, under a
//! token-per-minute limit, collecting validated, merged findings and the
//! figures of the run.
//!
//! A provider implements [`ReviewModel`]: one prompt in, one reply out. It
//! owns transport concerns (streaming, retries on 429/5xx, `retry-after`);
//! the runner owns review concerns (which chunks, how fast, what the reply
//! means). A failed or truncated chunk is recorded and the run goes on.
//!
//! Two kinds of incomplete reply are told apart. One that stopped at the
//! model's output limit ended where the model was cut off mid-list: its
//! complete findings stand. One whose stream broke before the provider's
//! terminal marker may have lost anything, even a correction the model was
//! about to make, so nothing from it is used and the chunk counts as failed.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::index::Progress;
use crate::tokens::TokenCount;

use super::findings::{self, Dropped, Finding};
use super::plan::Plan;

/// A model that reviews one chunk. Implementations must be shareable
/// across the runner's worker threads.
pub trait ReviewModel: Sync {
    fn review(&self, chunk_prompt: &str) -> Result<ModelReply, ModelError>;
}

/// One reply, with the provider's own token accounting.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelReply {
    pub text: String,
    pub input_tokens: TokenCount,
    pub output_tokens: TokenCount,
    /// The reply stopped at the model's output limit.
    pub truncated: bool,
    /// Why the stream broke before its terminal marker, if it did.
    pub cut: Option<String>,
}

/// A chunk the provider could not review (after its own retries).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ModelError {
    pub message: String,
}

impl ModelError {
    pub fn new(message: impl Into<String>) -> ModelError {
        ModelError {
            message: message.into(),
        }
    }
}

#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Chunks in flight at once.
    pub concurrency: usize,
    /// Most prompt tokens sent per rolling minute (provider rate limits).
    pub tokens_per_minute: Option<u64>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            concurrency: 4,
            tokens_per_minute: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "status", content = "error")]
pub enum ChunkStatus {
    Reviewed,
    /// Reviewed, but the reply was cut off: its complete findings count.
    Truncated,
    /// The reply held no readable findings.
    Unreadable,
    Failed(String),
}

#[derive(Debug, Clone, Serialize)]
pub struct ChunkOutcome {
    pub chunk: usize,
    #[serde(flatten)]
    pub status: ChunkStatus,
    /// Findings kept after validation (before merging across chunks).
    pub findings: usize,
    pub malformed: usize,
    pub dropped: Dropped,
    pub input_tokens: TokenCount,
    pub output_tokens: TokenCount,
    pub ms: u64,
}

/// Everything a review run produced.
#[derive(Debug, Clone, Serialize)]
pub struct ReviewRun {
    pub findings: Vec<Finding>,
    pub chunks: Vec<ChunkOutcome>,
    pub malformed: usize,
    pub dropped: Dropped,
    /// Duplicates merged into another finding.
    pub merged: usize,
    pub input_tokens: TokenCount,
    pub output_tokens: TokenCount,
    pub wall_ms: u64,
}

impl ReviewRun {
    pub fn count(&self, status: fn(&ChunkStatus) -> bool) -> usize {
        self.chunks.iter().filter(|c| status(&c.status)).count()
    }
}

/// Prompt tokens sent in the last minute, to hold a token-per-minute limit.
pub struct RateLimiter {
    per_minute: u64,
    window: Mutex<VecDeque<(Instant, u64)>>,
}

const MINUTE: Duration = Duration::from_secs(60);

impl RateLimiter {
    pub fn new(per_minute: u64) -> RateLimiter {
        RateLimiter {
            per_minute,
            window: Mutex::new(VecDeque::new()),
        }
    }

    /// How long to wait before sending `tokens` at `now`; `None` to send now.
    /// A request larger than the whole limit goes alone, when the window is
    /// empty, rather than never.
    pub fn wait_needed(
        window: &mut VecDeque<(Instant, u64)>,
        per_minute: u64,
        now: Instant,
        tokens: u64,
    ) -> Option<Duration> {
        while window
            .front()
            .is_some_and(|&(t, _)| now.duration_since(t) >= MINUTE)
        {
            window.pop_front();
        }
        let used: u64 = window.iter().map(|&(_, n)| n).sum();
        if window.is_empty() || used + tokens <= per_minute {
            return None;
        }
        // Wait until enough of the oldest entries leave the window.
        let mut freed = 0;
        for &(t, n) in window.iter() {
            freed += n;
            if used - freed + tokens <= per_minute {
                return Some((t + MINUTE).saturating_duration_since(now));
            }
        }
        window
            .back()
            .map(|&(t, _)| (t + MINUTE).saturating_duration_since(now))
    }

    /// Block until `tokens` may be sent, then record them.
    pub fn acquire(&self, tokens: u64) {
        loop {
            let wait = {
                let mut w = self.window.lock().unwrap_or_else(|e| e.into_inner());
                let now = Instant::now();
                match RateLimiter::wait_needed(&mut w, self.per_minute, now, tokens) {
                    None => {
                        w.push_back((now, tokens));
                        return;
                    }
                    Some(d) => d,
                }
            };
            std::thread::sleep(wait.max(Duration::from_millis(1)));
        }
    }
}

/// Review every covered chunk of `plan` with `model`.
pub fn run(
    plan: &Plan,
    model: &dyn ReviewModel,
    opts: &RunOptions,
    progress: &dyn Progress,
) -> ReviewRun {
    let t0 = Instant::now();
    let todo: Vec<usize> = (0..plan.chunks.len())
        .filter(|&i| plan.chunks[i].covered)
        .collect();
    let limiter = opts.tokens_per_minute.map(RateLimiter::new);
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(ChunkOutcome, Vec<Finding>)>> = Mutex::new(Vec::new());
    progress.start(todo.len());
    std::thread::scope(|s| {
        for _ in 0..opts.concurrency.clamp(1, todo.len().max(1)) {
            s.spawn(|| {
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&ci) = todo.get(k) else { break };
                    let out = review_chunk(plan, ci, model, limiter.as_ref());
                    results.lock().unwrap_or_else(|e| e.into_inner()).push(out);
                    progress.tick();
                }
            });
        }
    });
    progress.finish();
    let mut results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    results.sort_by_key(|(o, _)| o.chunk);
    let mut all = Vec::new();
    let mut chunks = Vec::new();
    let (mut malformed, mut dropped) = (0, Dropped::default());
    let (mut input, mut output) = (TokenCount(0), TokenCount(0));
    for (o, f) in results {
        malformed += o.malformed;
        dropped += o.dropped;
        input += o.input_tokens;
        output += o.output_tokens;
        all.extend(f);
        chunks.push(o);
    }
    let (findings, merged) = findings::merge(all);
    ReviewRun {
        findings,
        chunks,
        malformed,
        dropped,
        merged,
        input_tokens: input,
        output_tokens: output,
        wall_ms: t0.elapsed().as_millis() as u64,
    }
}

fn review_chunk(
    plan: &Plan,
    ci: usize,
    model: &dyn ReviewModel,
    limiter: Option<&RateLimiter>,
) -> (ChunkOutcome, Vec<Finding>) {
    let chunk = &plan.chunks[ci];
    let t = Instant::now();
    let mut out = ChunkOutcome {
        chunk: chunk.id,
        status: ChunkStatus::Reviewed,
        findings: 0,
        malformed: 0,
        dropped: Dropped::default(),
        input_tokens: TokenCount(0),
        output_tokens: TokenCount(0),
        ms: 0,
    };
    let prompt = match plan.prompt(chunk) {
        Ok(p) => p,
        Err(e) => {
            out.status = ChunkStatus::Failed(format!("cannot build the prompt: {e}"));
            return (out, Vec::new());
        }
    };
    if let Some(l) = limiter {
        l.acquire(chunk.tokens.get());
    }
    let reply = model.review(&prompt);
    out.ms = t.elapsed().as_millis() as u64;
    let reply = match reply {
        Ok(r) => r,
        Err(e) => {
            out.status = ChunkStatus::Failed(e.message);
            return (out, Vec::new());
        }
    };
    // Tokens are billed even for a reply that is thrown away.
    out.input_tokens = reply.input_tokens;
    out.output_tokens = reply.output_tokens;
    if let Some(reason) = reply.cut {
        out.status = ChunkStatus::Failed(format!(
            "the reply stream broke before its end marker ({reason}); none of its findings were used"
        ));
        return (out, Vec::new());
    }
    let parsed = findings::parse_reply(&reply.text);
    out.malformed = parsed.malformed;
    let (kept, dropped) = findings::validate(parsed.findings, chunk);
    out.dropped = dropped;
    out.findings = kept.len();
    out.status = if parsed.unreadable {
        ChunkStatus::Unreadable
    } else if reply.truncated {
        ChunkStatus::Truncated
    } else {
        ChunkStatus::Reviewed
    };
    (out, kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_limit_waits_for_the_oldest_tokens_to_leave_the_minute() {
        let t0 = Instant::now();
        let mut w = VecDeque::new();
        assert_eq!(RateLimiter::wait_needed(&mut w, 1000, t0, 600), None);
        w.push_back((t0, 600));
        let t1 = t0 + Duration::from_secs(10);
        assert_eq!(RateLimiter::wait_needed(&mut w, 1000, t1, 300), None);
        w.push_back((t1, 300));
        let t2 = t0 + Duration::from_secs(20);
        // 900 used: 500 more must wait until the first 600 leave at t0+60.
        assert_eq!(
            RateLimiter::wait_needed(&mut w, 1000, t2, 500),
            Some(Duration::from_secs(40))
        );
        // After the minute the window empties and a huge request goes alone.
        let t3 = t0 + Duration::from_secs(75);
        assert_eq!(RateLimiter::wait_needed(&mut w, 1000, t3, 5000), None);
        assert!(w.is_empty());
    }
}

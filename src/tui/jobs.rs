//! Work tied to the selection, done off the UI thread: highlighting the
//! visible source lines, computing the blast radius, running the finder's
//! query. Requests carry a generation; the worker drains its queue and runs
//! only the newest request of each kind (the others are stale because the
//! selection moved on), and the app drops results whose generation is not
//! its current one. Tests run the same jobs inline for deterministic screens.

use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender};

use crate::resolve::DeclId;

use super::Event;
use super::highlight::{HighlightRequest, Highlighter, Highlights};
use super::radius::BlastView;
use super::snapshot::Snapshot;

pub enum Job {
    Highlight(HighlightRequest),
    Blast {
        generation: u64,
        snap: Arc<Snapshot>,
        root: DeclId,
        depth: u32,
    },
    Find {
        generation: u64,
        snap: Arc<Snapshot>,
        query: String,
    },
}

pub enum JobResult {
    Highlighted(Highlights),
    Blast {
        generation: u64,
        view: Box<BlastView>,
    },
    Found {
        generation: u64,
        hits: Vec<(DeclId, i64)>,
    },
}

/// How many finder results are kept.
pub const FINDER_LIMIT: usize = 200;

fn run(job: Job, highlighter: &mut Highlighter) -> JobResult {
    match job {
        Job::Highlight(req) => JobResult::Highlighted(highlighter.highlight(&req)),
        Job::Blast {
            generation,
            snap,
            root,
            depth,
        } => JobResult::Blast {
            generation,
            view: Box::new(BlastView::compute(&snap, root, depth)),
        },
        Job::Find {
            generation,
            snap,
            query,
        } => JobResult::Found {
            generation,
            hits: crate::lookup::fuzzy(&snap.index.res, &query, FINDER_LIMIT),
        },
    }
}

pub enum Jobs {
    /// A worker thread; results come back as [`Event::Job`].
    Thread(Sender<Job>),
    /// Run at once on the caller's thread (tests, benchmarks).
    Inline(Box<Highlighter>),
}

impl Jobs {
    pub fn spawn(events: Sender<Event>) -> Jobs {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("ripple-worker".into())
            .spawn(move || worker(rx, events))
            .expect("cannot start the worker thread");
        Jobs::Thread(tx)
    }

    pub fn inline() -> Jobs {
        Jobs::Inline(Box::default())
    }

    /// Queue a job; inline jobs return their result immediately.
    pub fn submit(&mut self, job: Job) -> Option<JobResult> {
        match self {
            Jobs::Thread(tx) => {
                // A closed worker means the app is shutting down.
                let _ = tx.send(job);
                None
            }
            Jobs::Inline(h) => Some(run(job, h)),
        }
    }
}

fn worker(rx: Receiver<Job>, events: Sender<Event>) {
    let mut highlighter = Highlighter::new();
    while let Ok(first) = rx.recv() {
        // Newest wins, per kind; highlighting first (it is what the eye is on).
        let (mut highlight, mut blast, mut find) = (None, None, None);
        for job in std::iter::once(first).chain(rx.try_iter()) {
            match job {
                Job::Highlight(_) => highlight = Some(job),
                Job::Blast { .. } => blast = Some(job),
                Job::Find { .. } => find = Some(job),
            }
        }
        for job in [highlight, find, blast].into_iter().flatten() {
            if events.send(Event::Job(run(job, &mut highlighter))).is_err() {
                return;
            }
        }
    }
}

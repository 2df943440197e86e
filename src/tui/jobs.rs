//! Work tied to the selection, done off the UI thread: highlighting the
//! visible source lines, computing the blast radius, running the finder's
//! query. Requests carry a generation; the worker drains its queue and runs
//! only the newest request of each kind (the others are stale because the
//! selection moved on), and the app drops results whose generation is not
//! its current one. Tests run the same jobs inline for deterministic screens.

use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender};

use crate::resolve::DeclId;
use crate::semantic::SearchIndex;

use super::Event;
use super::highlight::{HighlightRequest, Highlighter, Highlights};
use super::radius::BlastView;
use super::search::{self, SearchKind};
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
    /// Build the search index of `snap` (on a thread of its own: it reads
    /// every declaration and must not hold up highlighting).
    BuildSearch {
        snap: Arc<Snapshot>,
    },
    Search {
        generation: u64,
        snap: Arc<Snapshot>,
        search: Arc<SearchIndex>,
        kind: SearchKind,
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
    /// The search index of the snapshot it is built from, as it grows:
    /// `search` is the index when there is a new one (by words, then
    /// hybrid), `neural` where its embedding stands.
    SearchIndex {
        snap: Arc<Snapshot>,
        search: Option<Arc<SearchIndex>>,
        neural: search::NeuralStatus,
    },
    Searched {
        generation: u64,
        hits: Vec<(DeclId, f32)>,
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
        Job::BuildSearch { snap } => {
            // Inline, only the outcome matters: the newest index (a failed
            // embedding leaves the one by words) and where embedding ended.
            let outcome = std::sync::Mutex::new((None, search::NeuralStatus::Off));
            search::build_index(&snap, &|r| {
                if let (JobResult::SearchIndex { search, neural, .. }, Ok(mut o)) =
                    (r, outcome.lock())
                {
                    if search.is_some() {
                        o.0 = search;
                    }
                    o.1 = neural;
                }
            });
            let (search, neural) = outcome
                .into_inner()
                .unwrap_or((None, search::NeuralStatus::Off));
            JobResult::SearchIndex {
                snap,
                search,
                neural,
            }
        }
        Job::Search {
            generation,
            snap,
            search,
            kind,
            query,
        } => JobResult::Searched {
            generation,
            hits: search::answer(&snap, &search, kind, &query),
        },
    }
}

pub enum Jobs {
    /// A worker thread; results come back as [`Event::Job`].
    Thread {
        jobs: Sender<Job>,
        events: Sender<Event>,
    },
    /// Run at once on the caller's thread (tests, benchmarks).
    Inline(Box<Highlighter>),
}

impl Jobs {
    pub fn spawn(events: Sender<Event>) -> Jobs {
        let (tx, rx) = std::sync::mpsc::channel();
        let to_app = events.clone();
        std::thread::Builder::new()
            .name("ripple-worker".into())
            .spawn(move || worker(rx, events))
            .expect("cannot start the worker thread");
        Jobs::Thread {
            jobs: tx,
            events: to_app,
        }
    }

    pub fn inline() -> Jobs {
        Jobs::Inline(Box::default())
    }

    /// Queue a job; inline jobs return their result immediately.
    pub fn submit(&mut self, job: Job) -> Option<JobResult> {
        match self {
            Jobs::Thread { events, .. } if matches!(job, Job::BuildSearch { .. }) => {
                let Job::BuildSearch { snap } = job else {
                    return None;
                };
                let events = events.clone();
                let _ = std::thread::Builder::new()
                    .name("ripple-search-index".into())
                    .spawn(move || {
                        search::build_index(&snap, &|r| {
                            let _ = events.send(Event::Job(r));
                        });
                    });
                None
            }
            Jobs::Thread { jobs, .. } => {
                // A closed worker means the app is shutting down.
                let _ = jobs.send(job);
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
        let (mut highlight, mut blast, mut find, mut search) = (None, None, None, None);
        for job in std::iter::once(first).chain(rx.try_iter()) {
            match job {
                Job::Highlight(_) => highlight = Some(job),
                Job::Blast { .. } => blast = Some(job),
                Job::Find { .. } => find = Some(job),
                Job::Search { .. } | Job::BuildSearch { .. } => search = Some(job),
            }
        }
        for job in [highlight, find, search, blast].into_iter().flatten() {
            if events.send(Event::Job(run(job, &mut highlighter))).is_err() {
                return;
            }
        }
    }
}

//! Indexing in the background: the first index when the explorer opens and
//! a refresh whenever the watcher reports changed files. Requests that pile
//! up while an index runs collapse into one (the newest wins), and bursts of
//! file events are debounced, so saving ten files costs one refresh.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender};
use std::time::{Duration, Instant};

use crate::index::{Index, Progress};

use super::Event;
use super::snapshot::Snapshot;

/// How the index is coming along, for the status line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexStatus {
    Scanning,
    Parsing { done: usize, total: usize },
    Resolving,
}

pub struct Indexed {
    pub generation: u64,
    pub result: Result<Arc<Snapshot>, String>,
    pub elapsed: Duration,
}

/// Wait this long after a file event for the rest of the burst.
const DEBOUNCE: Duration = Duration::from_millis(150);

pub struct Indexer {
    tx: Sender<()>,
}

impl Indexer {
    /// Start the thread and the first index of `root` (`db`: where the index
    /// database lives; `None` for `ROOT/.ripple/index.db`).
    pub fn spawn(root: PathBuf, db: Option<PathBuf>, events: Sender<Event>) -> Indexer {
        let (tx, rx) = std::sync::mpsc::channel();
        let _ = tx.send(());
        std::thread::Builder::new()
            .name("ripple-indexer".into())
            // Resolution recurses through nested expressions (bounded, but
            // unoptimised builds use 1-2 MB at the bound, a thread's default).
            .stack_size(16 << 20)
            .spawn(move || run(root, db, rx, events))
            .expect("cannot start the indexer thread");
        Indexer { tx }
    }

    pub fn refresh(&self) {
        let _ = self.tx.send(());
    }
}

fn run(root: PathBuf, db: Option<PathBuf>, rx: Receiver<()>, events: Sender<Event>) {
    let mut generation = 0u64;
    while rx.recv().is_ok() {
        if generation > 0 {
            std::thread::sleep(DEBOUNCE);
        }
        rx.try_iter().for_each(drop);
        generation += 1;
        let t = Instant::now();
        if generation == 1 {
            let _ = events.send(Event::Progress(IndexStatus::Scanning));
        }
        let progress = ChannelProgress {
            events: events.clone(),
            done: AtomicUsize::new(0),
            total: AtomicUsize::new(0),
            // Refreshes stay quiet unless they have real parsing to do.
            quiet: generation > 1,
        };
        let result = Index::open_with(&root, db.as_deref(), &progress)
            .map(|index| Arc::new(Snapshot::new(index)))
            .map_err(|e| e.to_string());
        let done = Event::Indexed(Box::new(Indexed {
            generation,
            result,
            elapsed: t.elapsed(),
        }));
        if events.send(done).is_err() {
            return;
        }
    }
}

struct ChannelProgress {
    events: Sender<Event>,
    done: AtomicUsize,
    total: AtomicUsize,
    quiet: bool,
}

impl ChannelProgress {
    fn loud(&self) -> bool {
        !self.quiet || self.total.load(Ordering::Relaxed) > 50
    }
}

impl Progress for ChannelProgress {
    fn start(&self, total: usize) {
        self.total.store(total, Ordering::Relaxed);
        if self.loud() {
            let _ = self
                .events
                .send(Event::Progress(IndexStatus::Parsing { done: 0, total }));
        }
    }

    fn tick(&self) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        let total = self.total.load(Ordering::Relaxed);
        // About a hundred updates per index, whatever its size.
        if self.loud() && done.is_multiple_of((total / 100).max(1)) {
            let _ = self
                .events
                .send(Event::Progress(IndexStatus::Parsing { done, total }));
        }
    }

    fn finish(&self) {
        if self.loud() {
            let _ = self.events.send(Event::Progress(IndexStatus::Resolving));
        }
    }
}

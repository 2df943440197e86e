//! Questions a fallback waits on, answered only between strata.
//!
//! Some readings fall back when a lookup finds nothing: a decorated name
//! whose decorator returns no callable is the undecorated function. "Finds
//! nothing" is a negation, and the solver only ever adds values: asking it
//! whenever a constraint runs would keep whatever the fallback gave before
//! the lookup filled, so the graph would depend on the order constraints
//! run in. Instead a question is answered once the worklist is empty (a
//! stratum's fixpoint, which is the same whatever the order): the questions
//! still unanswered there are frozen as absent, the constraints that asked
//! them run again, and the solve goes on to the next stratum. Within a
//! stratum the answers do not change, so each stratum is monotone, and the
//! whole solve is order-independent.

use rustc_hash::FxHashSet as HashSet;
use smallvec::SmallVec;

use super::Analysis;
use super::solver::NO_CONSTRAINT;
use super::values::Slot;

/// What the solver asks between strata; each is also a pseudo-slot, whose
/// readers are the constraints that asked it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Question {
    /// Whether the decorator call at this global expression site returns
    /// no callable.
    DecoratorReturnsNothing(u32),
    /// Whether the container at `site` holds nothing under `key`, a key
    /// never written to it: then any of its elements may come out.
    KeyNeverWritten { site: u32, key: u32 },
    /// Whether the classes an `isinstance` test names (at this global
    /// expression site) stand for nothing: then it narrows nothing.
    NarrowingUnknown(u32),
    /// Whether an instance of `class` has no attribute `name` but through
    /// its `__getattr__`.
    AttributeMissing { class: u32, name: u32 },
}

#[derive(Default)]
pub(super) struct Strata {
    /// Per constraint, the questions its latest run asked, and whether the
    /// answer was "nothing" then. A constraint's latest run at the fixpoint
    /// saw its inputs' final values, so these are the stratum's answers.
    asked: Vec<SmallVec<[(u32, bool); 1]>>,
    /// The questions answered "nothing" at an earlier stratum's end, by slot id.
    absent: HashSet<u32>,
    /// Strata completed so far.
    pub(super) count: usize,
}

impl Strata {
    pub(super) fn new(constraints: usize) -> Strata {
        Strata {
            asked: vec![SmallVec::new(); constraints],
            absent: HashSet::default(),
            count: 0,
        }
    }

    /// A constraint starts a run: what it asked before no longer counts.
    pub(super) fn forget(&mut self, constraint: u32) {
        if let Some(asked) = self.asked.get_mut(constraint as usize) {
            asked.clear();
        }
    }
}

impl Analysis<'_> {
    /// Whether the fallback `q` guards may run: `nothing_now` is what the
    /// lookup finds in the running constraint. While solving, only a
    /// question frozen at an earlier stratum's end says yes; once solved
    /// (emitting), the answer is final and is taken as it is.
    pub(super) fn absent(&mut self, q: Question, nothing_now: bool) -> bool {
        let id = self.slots.get_mut().id(Slot::Question(q));
        let current = self.current.get();
        if self.solved || current == NO_CONSTRAINT {
            return nothing_now || self.strata.absent.contains(&id);
        }
        self.slots.get_mut().record(id as usize, current);
        if let Some(asked) = self.strata.asked.get_mut(current as usize)
            && !asked.iter().any(|&(q, _)| q == id)
        {
            asked.push((id, nothing_now));
        }
        self.strata.absent.contains(&id)
    }

    /// The worklist is empty: freeze every question last answered
    /// "nothing" and queue the constraints that asked it. Returns whether
    /// any was, that is whether another stratum begins.
    pub(super) fn close_stratum(&mut self) -> bool {
        let mut fresh: Vec<u32> = self
            .strata
            .asked
            .iter()
            .flat_map(|asked| asked.iter())
            .filter(|&&(id, nothing)| nothing && !self.strata.absent.contains(&id))
            .map(|&(id, _)| id)
            .collect();
        if fresh.is_empty() {
            return false;
        }
        fresh.sort_unstable();
        fresh.dedup();
        self.strata.count += 1;
        for id in fresh {
            self.strata.absent.insert(id);
            self.notify_id(id as usize);
        }
        true
    }
}

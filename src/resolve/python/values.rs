//! The solver's values and slots: what a slot may hold ([`Value`]), the
//! table of slots with the constraints that read each, the interning of
//! names, and the caps past which a value set is full.

use rustc_hash::FxHashMap as HashMap;
use smallvec::SmallVec;

use crate::lang::python::ExprId;
use crate::model::Sym;
use crate::resolve::RawDeclId;

use super::Analysis;
use super::solver::NO_CONSTRAINT;
use super::strata::Question;

/// Global string id (interned across files).
pub(super) type GSym = u32;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Value {
    Func(RawDeclId),
    Class(RawDeclId),
    Instance(RawDeclId),
    /// `self` inside a method of the class: an instance of it or of any subclass.
    Cone(RawDeclId),
    /// `functools.partial(func, a, b)`: calling it calls `func` with its
    /// first `shift` parameters already filled.
    Partial {
        func: RawDeclId,
        shift: u32,
    },
    /// A function reached through an instance or class: the receiver fills the first parameter.
    Bound {
        func: RawDeclId,
        recv: RawDeclId,
        instance: bool,
    },
    /// A module, by its file.
    Module(u32),
    External(GSym),
    Builtin(GSym),
    Container(u32),
    Generator(RawDeclId),
    Super {
        class: RawDeclId,
        func: RawDeclId,
    },
    /// What `zip(a, b, …)` or `enumerate(a)` returns, by the site of the
    /// call's callee (see `Analysis::zip_calls`). Iterating it yields a
    /// [`Value::ZipRow`].
    Zipped(u32),
    /// One tuple of a [`Value::Zipped`]: position `i` holds what iterating
    /// the call's `i`-th argument yields (for `enumerate`, position 1 what
    /// iterating its argument yields, position 0 a count).
    ZipRow(u32),
    /// `d.items()` of the dict at `site`. Iterating it yields (key, value)
    /// pairs; a pair is modelled as the dict itself, so unpacking one
    /// (`for k, v in d.items()`) yields the dict's values.
    Items(u32),
    /// A method of the dict at `site` (`d.get`), whose result comes from
    /// the dict's values.
    DictMethod {
        site: u32,
        name: GSym,
    },
    /// A method of the list, set or tuple at `site` (`xs.append`), named
    /// `<**PyList**>.m`, `<**PySet**>.m` or `<**PyTuple**>.m`; the ones that
    /// add elements add them to the container.
    SeqMethod {
        site: u32,
        name: GSym,
    },
    /// What `map(f, xs)` returns: iterating it yields what `f` returns.
    Mapped(RawDeclId),
    /// `operator.methodcaller("name", …)`: calling it on an object calls
    /// the object's method `name`.
    MethodCaller(GSym),
    /// `xs[offset:…]` of the container at `site`: its position `i` is the
    /// container's `i + offset` ([`UNKNOWN_OFFSET`]: any position).
    Slice {
        site: u32,
        offset: u32,
    },
    /// A value of a builtin type whose methods PyCG names `<**PyStr**>.m`, `<**PyDict**>.m`.
    PyStr,
    PyDict,
    /// More values than a set keeps: anything at all. A set holding it
    /// holds nothing else, and every set it flows into becomes it.
    Top,
    /// Some value of library code: a set that would hold more than
    /// [`MAX_LIBRARY`] external values, strings and dicts holds this
    /// instead of any of them, and keeps its repository values.
    Library,
}

/// A set of values as the solver passes it around: most hold one or two,
/// which then live inline instead of in an allocation of their own.
pub(super) type Vals = SmallVec<[Value; 2]>;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Slot {
    Var(RawDeclId, GSym),
    InstAttr(RawDeclId, GSym),
    Ret(RawDeclId),
    Yield(RawDeclId),
    Elem(u32, GSym),
    /// A question answered between strata (see [`super::strata`]).
    Question(Question),
    /// Read by whatever walked the class's MRO: grows when the bases of a
    /// class in it change.
    Mro(RawDeclId),
    /// Read by whatever asked which classes are below the class: grows
    /// when a class gains or loses it as an ancestor.
    Subclasses(RawDeclId),
    /// What the class statement's base expressions evaluate to, in order:
    /// read along an MRO for a base outside the repository, instead of
    /// evaluating every base expression on every attribute lookup.
    BaseValues(RawDeclId),
}

/// The offset of a slice whose start is not a literal.
pub(super) const UNKNOWN_OFFSET: u32 = u32::MAX;

/// The largest offset a slice of a slice keeps.
pub(super) const MAX_SLICE_OFFSET: u32 = 4;

/// Container element slots without a literal key use this key.
pub(super) const ANY_KEY: GSym = u32::MAX;

/// Pseudo-key whose readers depend on a container's set of keys.
pub(super) const KEYS: GSym = u32::MAX - 1;

/// Pseudo-key of a defaultdict's element slot: what its factory makes.
pub(super) const MISSING_KEY: GSym = u32::MAX - 3;

/// Pseudo-class whose instance-attribute slots stand for "some class gained this attribute".
pub(super) const ANY_CLASS: RawDeclId = u32::MAX;

/// The owner of the attributes `parser.set_defaults(func=…)` gives every
/// namespace `parse_args()` returns (read as `args.func`).
pub(super) const ARGPARSE_DEFAULTS: RawDeclId = u32::MAX - 1;

/// Pseudo-attribute of a class (`Slot::InstAttr(class, RUNTIME)`): the
/// instantiated classes whose MRO contains it, as instances.
pub(super) const RUNTIME: GSym = u32::MAX - 2;

pub(super) const MAX_SET: usize = 16;

/// A constraint whose run reads more slots than this waits for the rest
/// of the worklist (see `Analysis::heavy_worklist`).
pub(super) const HEAVY_READS: u32 = 64;

/// How many values a set takes when all of them are functions or classes
/// (see [`admits`]).
pub(super) const MAX_CALLABLES: usize = 128;

/// How many library values (external names, strings, dicts) a set keeps
/// apart before they become one [`Value::Library`].
pub(super) const MAX_LIBRARY: usize = 8;

pub(super) const MAX_ROUNDS: usize = 40;

pub(super) const MAX_DEPTH: u32 = 48;

/// Evaluations nested in one another, by any path. An optimised build
/// needs under 1 MB of stack at this bound, an unoptimised one under 2.
pub(super) const MAX_NESTING: u32 = 256;

impl<'a> Analysis<'a> {
    pub(super) fn intern(&mut self, s: &str) -> GSym {
        if let Some(&id) = self.string_ids.get(s) {
            return id;
        }
        let id = self.strings.len() as GSym;
        self.strings.push(s.to_owned());
        self.string_ids.insert(s.to_owned(), id);
        id
    }

    pub(super) fn gsym(&self, ci: usize, sym: Sym) -> GSym {
        self.files[ci]
            .syms
            .get(sym as usize)
            .copied()
            .unwrap_or(ANY_KEY)
    }

    /// The tuple (`*args`) or dict (`**kwargs`) that packs a function's
    /// extra arguments.
    pub(super) fn packed_site(&self, decl: RawDeclId, dict: bool) -> u32 {
        self.packed_base
            .saturating_add(decl.saturating_mul(2))
            .saturating_add(u32::from(dict))
            .min(u32::MAX - 2)
    }

    /// Store `vals` under `key` in the container at `site`.
    pub(super) fn add_elem(&mut self, site: u32, key: GSym, vals: &[Value]) {
        if vals.is_empty() {
            return;
        }
        let keys = self.container_keys.entry(site).or_default();
        if !keys.contains(&key) {
            keys.push(key);
            self.notify(Slot::Elem(site, KEYS));
        }
        self.add(Slot::Elem(site, key), vals);
    }

    pub(super) fn gdecl(&self, ci: usize, local: u32) -> RawDeclId {
        self.files[ci].base + local
    }

    pub(super) fn site(&self, ci: usize, expr: ExprId) -> u32 {
        self.files[ci].expr_base + expr
    }

    pub(super) fn py_info(
        &self,
        decl: RawDeclId,
    ) -> Option<(&'a crate::lang::python::PyDeclInfo, usize)> {
        let ci = *self.decl_ctx.get(decl as usize)? as usize;
        if ci == u32::MAX as usize {
            return None;
        }
        let info = self.files[ci]
            .py
            .decl_info
            .get(self.decl_local[decl as usize] as usize)?;
        Some((info, ci))
    }

    /// The slot of the `Var` expression `expr` of file context `ci`.
    pub(super) fn var_slot_id(&mut self, ci: usize, expr: ExprId, scope: u32, name: Sym) -> usize {
        let site = self.site(ci, expr) as usize;
        match self.var_slot_ids.get(site) {
            Some(&id) if id != NO_SLOT => id as usize,
            _ => {
                let slot = Slot::Var(self.gdecl(ci, scope), self.gsym(ci, name));
                let id = self.slots.get_mut().id(slot);
                if let Some(cached) = self.var_slot_ids.get_mut(site) {
                    *cached = id;
                }
                id as usize
            }
        }
    }

    pub(super) fn add(&mut self, slot: Slot, vals: &[Value]) {
        if vals.is_empty() {
            return;
        }
        let id = self.slots.get_mut().id(slot) as usize;
        self.add_id(id, vals);
    }

    pub(super) fn add_id(&mut self, id: usize, vals: &[Value]) {
        if vals.is_empty() {
            return;
        }
        if let Some(shadow) = self.shadow.as_mut() {
            if shadow.len() <= id {
                shadow.resize(id + 1, Vals::new());
            }
            for v in vals {
                insert(&mut shadow[id], *v);
            }
            return;
        }
        let grew_id = {
            let mut table = self.slots.borrow_mut();
            let set = &mut table.vals[id];
            let mut grew = false;
            for v in vals {
                grew |= insert(set, *v);
            }
            grew.then_some(id)
        };
        if let Some(id) = grew_id {
            self.changed = true;
            self.notify_id(id);
        }
    }

    /// Queue every constraint that read `slot`.
    pub(super) fn notify(&mut self, slot: Slot) {
        let id = self.slots.borrow_mut().id(slot) as usize;
        self.notify_id(id);
    }

    pub(super) fn notify_id(&mut self, id: usize) {
        if let Some(writers) = self.writers.as_mut() {
            if writers.len() <= id {
                writers.resize(id + 1, Vec::new());
            }
            let w = &mut writers[id];
            let current = self.current.get();
            if w.last() != Some(&current) && !w.contains(&current) {
                w.push(current);
            }
        }
        let table = self.slots.borrow();
        let Some(readers) = table.readers.get(id) else {
            return;
        };
        for &r in readers {
            if !self.queued[r as usize] {
                self.queued[r as usize] = true;
                if self.heavy[r as usize] {
                    self.heavy_worklist.push(r);
                } else {
                    self.worklist.push(r);
                }
            }
        }
    }

    /// Note that the running constraint walked `class`'s MRO (`subclasses`:
    /// asked what is below it). MRO walks are among the solver's most
    /// frequent reads, so their slot ids are kept by class.
    pub(super) fn touch_class(&mut self, class: RawDeclId, subclasses: bool) {
        let current = self.current.get();
        if current == NO_CONSTRAINT {
            return;
        }
        let cache = &mut self.class_slot_ids[usize::from(subclasses)];
        let mut table = self.slots.borrow_mut();
        let id = match cache.get(class as usize) {
            Some(&id) if id != NO_SLOT => id,
            _ => {
                let slot = if subclasses {
                    Slot::Subclasses(class)
                } else {
                    Slot::Mro(class)
                };
                let id = table.id(slot);
                if let Some(cached) = cache.get_mut(class as usize) {
                    *cached = id;
                }
                id
            }
        };
        table.record(id as usize, current);
    }

    /// Note that the running constraint depends on `slot`.
    pub(super) fn touch(&self, slot: Slot) {
        let mut table = self.slots.borrow_mut();
        let id = table.id(slot) as usize;
        table.record(id, self.current.get());
    }

    pub(super) fn get(&self, slot: Slot) -> Vals {
        let id = self.slots.borrow_mut().id(slot) as usize;
        self.get_id(id)
    }

    /// What `slot` holds, without making it or recording a reader: for
    /// the emit pass, which must not grow the tables looking.
    pub(super) fn peek(&self, slot: Slot) -> Vals {
        let table = self.slots.borrow();
        match table.ids.get(&slot) {
            Some(&id) => table.vals[id as usize].clone(),
            None => Vals::new(),
        }
    }

    /// [`Analysis::get`] added to `out` (each value once), without a copy.
    pub(super) fn read_into(&self, slot: Slot, out: &mut Vals) {
        let mut table = self.slots.borrow_mut();
        let id = table.id(slot) as usize;
        table.record(id, self.current.get());
        for v in &table.vals[id] {
            push_unique(out, *v);
        }
    }

    pub(super) fn get_id(&self, id: usize) -> Vals {
        let mut table = self.slots.borrow_mut();
        table.record(id, self.current.get());
        table.vals[id].clone()
    }
}

/// A `Var` expression whose slot has not been looked up yet.
pub(super) const NO_SLOT: u32 = u32::MAX;

/// Points-to sets and their readers, by dense slot id (one hash lookup per access).
#[derive(Default)]
pub(super) struct SlotTable {
    pub(super) ids: HashMap<Slot, u32>,
    pub(super) vals: Vec<Vals>,
    pub(super) readers: Vec<Vec<u32>>,
    /// Per constraint, the last `dedup_stamp` under which it was seen
    /// while compacting a reader list.
    pub(super) seen: Vec<u32>,
    pub(super) dedup_stamp: u32,
    /// Reads recorded since the running constraint started.
    pub(super) reads: u32,
    /// Set by [`SlotTable::settle`].
    pub(super) settled: bool,
}

impl SlotTable {
    pub(super) fn id(&mut self, slot: Slot) -> u32 {
        let next = self.vals.len() as u32;
        let id = *self.ids.entry(slot).or_insert(next);
        if id == next {
            self.vals.push(Vals::new());
            if !self.settled {
                self.readers.push(Vec::new());
            }
        }
        id
    }

    /// The fixpoint is reached: nothing will be notified again, so the
    /// reader lists (a fifth of the solver's memory) go before emitting
    /// allocates the edges.
    pub(super) fn settle(&mut self) {
        self.settled = true;
        self.readers = Vec::new();
        self.seen = Vec::new();
    }

    pub(super) fn record(&mut self, id: usize, reader: u32) {
        if reader == NO_CONSTRAINT || self.settled {
            return;
        }
        self.reads = self.reads.wrapping_add(1);
        let rs = &mut self.readers[id];
        let seen = if rs.len() <= 8 {
            rs.contains(&reader)
        } else {
            rs.last() == Some(&reader)
        };
        if seen {
            return;
        }
        // Constraints run again record their reads again, so long lists
        // fill with repeats (on sympy, 43M entries for 11M readers).
        // Before a list grows, it drops every repeat after a reader's first
        // entry; notifying it queues the same constraints in the same order.
        if rs.len() >= 16 && rs.len() == rs.capacity() {
            self.dedup_stamp = self.dedup_stamp.wrapping_add(1);
            if self.dedup_stamp == 0 {
                self.seen.fill(0);
                self.dedup_stamp = 1;
            }
            let stamp = self.dedup_stamp;
            let seen = &mut self.seen;
            rs.retain(|&r| {
                let i = r as usize;
                if i >= seen.len() {
                    seen.resize(i + 1, 0);
                }
                std::mem::replace(&mut seen[i], stamp) != stamp
            });
            // Compacting again at the next push would be quadratic.
            if rs.len() > rs.capacity() / 4 * 3 {
                rs.reserve(rs.capacity());
            }
        }
        rs.push(reader);
    }
}

pub(super) fn push_unique(out: &mut Vals, v: Value) {
    insert(out, v);
}

/// Add `v` to `set` as the lattice orders them, and say whether it grew.
/// Past its cap a set becomes [`Value::Top`]; past [`MAX_LIBRARY`]
/// library values, those become [`Value::Library`]. Both absorb what they
/// stand for, so a set only ever moves up, whatever order values come in:
/// a set that kept the first values to arrive would make the graph depend
/// on the order constraints run in.
pub(super) fn insert(set: &mut Vals, v: Value) -> bool {
    if set.first() == Some(&Value::Top) || set.contains(&v) {
        return false;
    }
    if v == Value::Top {
        set.clear();
        set.push(Value::Top);
        return true;
    }
    if is_library(&v) || v == Value::Library {
        if set.contains(&Value::Library) {
            return false;
        }
        if v == Value::Library || set.iter().filter(|x| is_library(x)).count() >= MAX_LIBRARY {
            set.retain(|x| !is_library(x));
            set.push(Value::Library);
        } else {
            set.push(v);
        }
        return true;
    }
    if !admits(set, &v) {
        set.clear();
        set.push(Value::Top);
        return true;
    }
    set.push(v);
    true
}

/// Values of library code, which a set keeps apart from the repository's.
pub(super) fn is_library(v: &Value) -> bool {
    matches!(v, Value::External(_) | Value::PyStr | Value::PyDict)
}

/// Whether a set went past its cap: it may hold anything.
pub(super) fn is_full(set: &[Value]) -> bool {
    set.contains(&Value::Top)
}

pub(super) fn is_callable(v: &Value) -> bool {
    matches!(
        v,
        Value::Func(_) | Value::Bound { .. } | Value::Partial { .. } | Value::Class(_)
    )
}

/// Whether a set takes one more value. Sets are capped to keep the solve
/// cheap where everything flows together (every string a parser
/// touches), but a set of nothing but functions and classes may grow well
/// past that: a dispatch table of thirty handlers called through one
/// subscript must keep an edge to each of them, or the blast radius of
/// the thirtieth would say nobody calls it.
pub(super) fn admits(set: &[Value], v: &Value) -> bool {
    let mut own = set
        .iter()
        .filter(|x| !is_library(x) && **x != Value::Library);
    let len = own.clone().count();
    len < MAX_SET || (len < MAX_CALLABLES && is_callable(v) && own.all(is_callable))
}

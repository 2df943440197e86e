#!/usr/bin/env python3
"""Score ripple's call graph against the calls trace.py saw run.

usage: score.py PAIRS.json EDGES.json [--lib LIB] [--missed N] [-v]
       score.py PAIRS.json --compare EDGES_A.json EDGES_B.json [-v]

EDGES.json is `ripple --repo LIB edges --format json`: each declaration's
qualified name mapped to its callees' names. A traced pair counts when both
its names are keys there (declarations ripple knows); recall is the share
of those pairs that are edges, by how the call came about (see kind()).
--missed N prints the missed calls and generator starts by shape and by
callee module, and the first N of them (LIB, the indexed copy, tells the
modules apart; without it the top-level package is used).
"""
import argparse, collections, json, os, re


# How a traced call came about (trace.py's vias), from most to least explicit.
CALL_OPS = {"CALL", "CALL_FUNCTION_EX"}
IMPORT_VIAS = {"IMPORT_NAME", "IMPORT_FROM", "IMPORT_STAR", "C:__import__"}
KINDS = ("call", "generator", "builtin", "import", "implicit")
WRITTEN = ("call", "generator")  # the kinds a call in the source accounts for


def kind(vias):
    """call: a call expression in the source calls the callee itself (or through
    a builtin that is a type, such as functools.partial, which gives no sign);
    generator: a generator's first run, credited to the function that started
    it (usually the one that called the generator function, not always);
    builtin: a builtin the caller called (isinstance, sorted, getattr, ...)
    called back; import: the import system at work for an import statement;
    implicit: an operator, subscript, attribute hook, with, for, ..."""
    vias = set(vias)
    if vias & CALL_OPS:
        return "call"
    if "generator" in vias:
        return "generator"
    if vias & IMPORT_VIAS:
        return "import"
    if any(v.startswith("C:") for v in vias):
        return "builtin"
    return "implicit"


# Weak reference callbacks: the collector runs them, with whatever frame is
# running as their apparent caller, as it runs __del__.
COLLECTOR_CALLBACKS = {"_weakrefset.WeakSet.__init__._remove", "weakref.WeakKeyDictionary.__init__.remove",
                       "weakref.WeakValueDictionary.__init__.remove", "logging._removeHandlerRef"}


def not_the_librarys(caller, callee, vias):
    """Why a traced call is the tests' doing or the collector's, not the library's."""
    if callee.startswith("unittest.mock.") and not caller.startswith("unittest.mock"):
        return "calls into a mock a test patched in"
    if caller.startswith("unittest.") and not callee.startswith("unittest.") and "CALL" not in vias:
        # assertRaises(exc, f, *args) calling f(*args), assertEqual's ==, assertIn's in, ...
        return "unittest running code under test for a test"
    if callee.endswith(".__del__") or callee in COLLECTOR_CALLBACKS:
        return "finalizers and weakref callbacks"
    return None


def load_pairs(path):
    """{(caller, callee): vias}; rows may be [caller, callee] or [caller, callee, vias]."""
    with open(path) as f:
        text = f.read()
    try:
        rows = json.loads(text)
    except json.JSONDecodeError:  # JSON lines
        rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    return {(r[0], r[1]): r[2] if len(r) > 2 else ["CALL"] for r in rows}


def load_edges(path):
    with open(path) as f:
        graph = json.load(f)
    return graph, {(a, b) for a, bs in graph.items() for b in bs}


def score(pairs, graph, edges):
    known = [p for p in pairs if p[0] in graph and p[1] in graph]
    found = [p for p in known if p in edges]
    return known, found


def modules_of(lib):
    mods = set()
    for d, dirs, files in os.walk(lib):
        dirs[:] = [x for x in dirs if not x.startswith(".")]
        rel = os.path.relpath(d, lib).replace(os.sep, ".")
        for f in files:
            if f.endswith(".py"):
                name = f[:-3] if f != "__init__.py" else ""
                mods.add(".".join(x for x in (rel, name) if x and x != "."))
    return mods


def module_of(name, mods):
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        if ".".join(parts[:i]) in mods:
            return ".".join(parts[:i])
    return parts[0]


def shape(caller, callee, mods):
    """A rough reason a call may be hard to see statically."""
    last = callee.rsplit(".", 1)[-1]
    if last in ("__init__", "__new__", "__init_subclass__", "__set_name__", "__post_init__"):
        return "construction (__init__, __new__, ...)"
    if re.fullmatch(r"__\w+__", last):
        return "other dunder (operator, protocol, attribute hook)"
    if caller in mods:
        return "from module-level code"
    if module_of(callee, mods) == module_of(caller, mods):
        return "same module"
    return "other module"


def summary(pairs, graph, edges):
    """One line per kind of call, then calls written in the source, then all:
    traced pairs, pairs whose names ripple knows, found, recall."""
    groups = [(k, {k}) for k in KINDS] + [("written", set(WRITTEN)), ("all", set(KINDS))]
    lines = []
    for label, ks in groups:
        ps = [p for p, k in pairs.items() if k in ks]
        known, found = score(ps, graph, edges)
        lines.append(f"  {label:10} traced {len(ps):6}  known {len(known):6}  found {len(found):6}"
                     f"  recall {len(found) / max(len(known), 1):.3f}")
    return lines


def report(pairs, path, args):
    graph, edges = load_edges(path)
    unknown = [p for p in sorted(pairs) if p[0] not in graph or p[1] not in graph]
    print(f"{path}: {len(unknown)} pairs with a name ripple "
          f"does not know (caller {sum(p[0] not in graph for p in pairs)}, "
          f"callee {sum(p[1] not in graph for p in pairs)})")
    print("\n".join(summary(pairs, graph, edges)))
    if args.verbose:
        for a, b in unknown[:20]:
            print(f"  unknown: {a}{' (?)' if a not in graph else ''} -> {b}{' (?)' if b not in graph else ''}")
    if args.missed:
        # Only calls written in the source: the others are not ripple's to find.
        mods = modules_of(args.lib) if args.lib else set()
        calls = sorted(p for p, k in pairs.items() if k in WRITTEN)
        known, found = score(calls, graph, edges)
        found = set(found)
        missed = [p for p in known if p not in found]
        print(f"missed written calls {len(missed)} by shape:")
        for s, n in collections.Counter(shape(a, b, mods) for a, b in missed).most_common():
            print(f"  {n:6}  {s}")
        print(f"missed written calls {len(missed)} by callee module (top 15):")
        for m, n in collections.Counter(module_of(b, mods) for a, b in missed).most_common(15):
            print(f"  {n:6}  {m}")
        by_mod = collections.defaultdict(list)
        for a, b in missed[:args.missed]:
            by_mod[module_of(b, mods)].append((a, b))
        print(f"the first {min(args.missed, len(missed))}:")
        for mod, ps in sorted(by_mod.items(), key=lambda kv: -len(kv[1])):
            print(f"{mod} ({len(ps)})")
            for a, b in ps:
                print(f"  {a} -> {b}")


def spread(pairs, n):
    """n of pairs, taking in turn from each caller's top-level package, so that
    one package does not fill the sample."""
    by_pkg = collections.defaultdict(list)
    for p in pairs:
        by_pkg[p[0].split(".")[0]].append(p)
    queues = list(by_pkg.values())
    out = []
    while len(out) < n and any(queues):
        for q in queues:
            if q and len(out) < n:
                out.append(q.pop(0))
    return out


def compare(pairs, pa, pb, verbose):
    (ga, ea), (gb, eb) = load_edges(pa), load_edges(pb)
    for path, g, e in ((pa, ga, ea), (pb, gb, eb)):
        print(path)
        print("\n".join(summary(pairs, g, e)))
    # Over the pairs both know, so a declaration one names differently is no find.
    both = {p: k for p, k in pairs.items() if p[0] in ga and p[1] in ga and p[0] in gb and p[1] in gb}
    for label, mine, other in (("A", ea, eb), ("B", eb, ea)):
        only = sorted(p for p in both if p in mine and p not in other)
        counts = collections.Counter(both[p] for p in only)
        print(f"found by {label} only: {len(only)} ({', '.join(f'{k} {counts[k]}' for k in KINDS)})")
        if verbose:
            for a, b in spread(sorted(only, key=lambda p: both[p] != "call"), 10):
                print(f"  [{both[a, b]}] {a} -> {b}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pairs")
    ap.add_argument("edges", nargs="?")
    ap.add_argument("--compare", nargs=2, metavar=("EDGES_A", "EDGES_B"))
    ap.add_argument("--lib", help="the indexed library copy, to group by module")
    ap.add_argument("--missed", type=int, default=0, metavar="N")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    vias = load_pairs(args.pairs)
    dropped = collections.Counter()
    for p in list(vias):
        why = not_the_librarys(*p, vias[p])
        if why:
            dropped[why] += 1
            del vias[p]
    print(f"{args.pairs}: {len(vias)} pairs; left out: "
          + ", ".join(f"{n} {why}" for why, n in dropped.items()))
    pairs = {p: kind(v) for p, v in vias.items()}  # (caller, callee) -> kind
    if args.compare:
        compare(pairs, *args.compare, args.verbose)
    elif args.edges:
        report(pairs, args.edges, args)
    else:
        ap.error("give EDGES.json or --compare")


if __name__ == "__main__":
    main()

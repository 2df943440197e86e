#!/usr/bin/env python3
"""Run ripple on PyCG's micro-benchmark and compare with its expected graphs.

usage: pycg-micro.py RIPPLE MICRO_BENCHMARK_DIR [-v]

MICRO_BENCHMARK_DIR is the `micro-benchmark/snippets` folder of PyCG's
source (`pip download --no-deps --no-binary :all: pycg==0.0.8`). Each case
is copied to a temporary directory and indexed; ripple's graph is
compared, edge by edge, with `callgraph.json` over the nodes PyCG names
(PyCG leaves out callees it cannot see, such as most of the standard
library). Prints the cases that differ and the totals, then the same
edges split by confidence level: each level's precision (how many of its
edges PyCG expects) and the recall of that level and the ones above it.
"""
import json, os, shutil, subprocess, sys, tempfile

def main():
    args = [a for a in sys.argv[1:] if a != "-v"]
    verbose = "-v" in sys.argv
    ripple, root = args
    cases = sorted(os.path.dirname(os.path.join(d, f))
                   for d, _, fs in os.walk(root) for f in fs if f == "callgraph.json")
    tp = fp = fn = exact = 0
    levels = ["certain", "likely", "possible"]
    # Per level: edges at exactly that level (tp, fp), and expected edges
    # found at that level or above.
    by_level = {l: [0, 0, 0] for l in levels}
    for case in cases:
        want = json.load(open(os.path.join(case, "callgraph.json")))
        with tempfile.TemporaryDirectory() as tmp:
            d = os.path.join(tmp, "c")
            shutil.copytree(case, d)
            at = {}
            for level in levels:
                out = subprocess.run([ripple, "--repo", d, "edges", "--format", "json",
                                      "--min-confidence", level],
                                     capture_output=True, text=True)
                at[level] = json.loads(out.stdout) if out.returncode == 0 else {}
            got = at["possible"]
        w = {(a, b) for a, bs in want.items() for b in bs}
        # Only callers PyCG knows about, and callees it could know about.
        known = set(want) | {b for _, b in w}
        g = {(a, b) for a, bs in got.items() if a in want for b in bs
             if b in known or not b.startswith("<builtin>")}
        g = {(a, b) for a, b in g if b in known}
        tp += len(w & g); fp += len(g - w); fn += len(w - g)
        above = set()
        for level in levels:
            cum = {(a, b) for a, bs in at[level].items() for b in bs if (a, b) in g}
            exactly = cum - above
            by_level[level][0] += len(exactly & w)
            by_level[level][1] += len(exactly - w)
            by_level[level][2] += len(cum & w)
            above = cum
        if w == g:
            exact += 1
        else:
            name = os.path.relpath(case, root)
            print(f"{name}: missing {sorted(w - g)} extra {sorted(g - w)}" if verbose else name)
    p = tp / (tp + fp) if tp + fp else 0
    r = tp / (tp + fn) if tp + fn else 0
    print(f"{exact}/{len(cases)} exact; precision {p:.3f} recall {r:.3f}")
    expected = tp + fn
    for level in levels:
        ltp, lfp, found = by_level[level]
        lp = ltp / (ltp + lfp) if ltp + lfp else 0
        lr = found / expected if expected else 0
        print(f"{level:<9} edges {ltp + lfp:4}  precision {lp:.3f}  recall at this level and above {lr:.3f}")

main()

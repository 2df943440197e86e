#!/usr/bin/env python3
"""Run ripple on PyCG's micro-benchmark and compare with its expected graphs.

usage: pycg-micro.py RIPPLE MICRO_BENCHMARK_DIR [-v]

MICRO_BENCHMARK_DIR is the `micro-benchmark/snippets` folder of PyCG's
source (`pip download --no-deps --no-binary :all: pycg==0.0.8`). Each case
is copied to a temporary directory and indexed; ripple's graph is
compared, edge by edge, with `callgraph.json` over the nodes PyCG names
(PyCG leaves out callees it cannot see, such as most of the standard
library). Prints the cases that differ and the totals.
"""
import json, os, shutil, subprocess, sys, tempfile

def main():
    args = [a for a in sys.argv[1:] if a != "-v"]
    verbose = "-v" in sys.argv
    ripple, root = args
    cases = sorted(os.path.dirname(os.path.join(d, f))
                   for d, _, fs in os.walk(root) for f in fs if f == "callgraph.json")
    tp = fp = fn = exact = 0
    for case in cases:
        want = json.load(open(os.path.join(case, "callgraph.json")))
        with tempfile.TemporaryDirectory() as tmp:
            d = os.path.join(tmp, "c")
            shutil.copytree(case, d)
            out = subprocess.run([ripple, "--repo", d, "edges", "--format", "json"],
                                 capture_output=True, text=True)
            got = json.loads(out.stdout) if out.returncode == 0 else {}
        w = {(a, b) for a, bs in want.items() for b in bs}
        # Only callers PyCG knows about, and callees it could know about.
        known = set(want) | {b for _, b in w}
        g = {(a, b) for a, bs in got.items() if a in want for b in bs
             if b in known or not b.startswith("<builtin>")}
        g = {(a, b) for a, b in g if b in known}
        tp += len(w & g); fp += len(g - w); fn += len(w - g)
        if w == g:
            exact += 1
        else:
            name = os.path.relpath(case, root)
            print(f"{name}: missing {sorted(w - g)} extra {sorted(g - w)}" if verbose else name)
    p = tp / (tp + fp) if tp + fp else 0
    r = tp / (tp + fn) if tp + fn else 0
    print(f"{exact}/{len(cases)} exact; precision {p:.3f} recall {r:.3f}")

main()

#!/usr/bin/env python3
"""How often each confidence level's edges were seen running.

usage: calibrate.py PAIRS.json CERTAIN.json LIKELY.json POSSIBLE.json

The three EDGES files are `ripple --repo LIB edges --format json
--min-confidence LEVEL` for certain, likely and possible: an edge's level is
the highest whose file holds it. Only edges between declarations whose
caller ran under the traced tests count (a caller that never ran says
nothing). For each level this prints the share of those edges the trace saw
as a call, and the same share among edges whose callee ran too (the rest of
the gap is paths the tests did not take, or calls through something the
trace names differently).

A share is a lower bound on precision: the tests run only some of each
function's paths. What calibration asks is the order: certain edges should
be seen more often than likely ones, likely more than possible.
"""
import json, sys


def pairs_of(path):
    with open(path) as f:
        doc = json.load(f)
    return {(caller, callee) for caller, callee, *_ in doc}


def edges_of(path):
    with open(path) as f:
        doc = json.load(f)
    return {(caller, callee) for caller, callees in doc.items() for callee in callees}, set(doc)


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    traced = pairs_of(sys.argv[1])
    ran = {caller for caller, _ in traced} | {callee for _, callee in traced}
    callers_ran = {caller for caller, _ in traced}
    certain, known = edges_of(sys.argv[2])
    likely, _ = edges_of(sys.argv[3])
    possible, _ = edges_of(sys.argv[4])
    levels = [
        ("certain", certain),
        ("likely", likely - certain),
        ("possible", possible - likely),
    ]
    print(f"{'level':9} {'edges':>7} {'seen':>6} {'share':>6}   {'callee ran':>10} {'seen':>6} {'share':>6}")
    for name, edges in levels:
        judged = [(a, b) for a, b in edges if a in callers_ran and b in known]
        seen = sum(1 for e in judged if e in traced)
        both = [e for e in judged if e[1] in ran]
        seen_both = sum(1 for e in both if e in traced)
        share = seen / len(judged) if judged else 0.0
        share_both = seen_both / len(both) if both else 0.0
        print(f"{name:9} {len(judged):7} {seen:6} {share:6.3f}   {len(both):10} {seen_both:6} {share_both:6.3f}")


if __name__ == "__main__":
    main()

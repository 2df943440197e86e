#!/usr/bin/env python3
"""Compare ripple's Go call graph with x/tools' VTA on a module.

usage: go-vta-f1.py [-v] [-test] RIPPLE MODULE_DIR [MODULE_DIR ...]

Needs Debian's golang-go and golang-golang-x-tools (/usr/bin/callgraph).
Each module is copied to a temporary directory (ripple writes .ripple/
there), VTA is run on its non-test packages (`callgraph -algo=vta ./...`),
and both graphs are restricted to the callers VTA reports inside the
module, since VTA sees no test files (unless -test, which passes -test
to callgraph: test packages and their synthetic mains) and ripple
does. Prints precision,
recall and F1 per module, then each confidence level's precision (its
own edges VTA also has) over all modules; with -v, the edges each side
has alone.
"""
import json, os, shutil, subprocess, sys, tempfile

def vta_edges(d, with_tests):
    env = dict(os.environ, GOFLAGS="-buildvcs=false", GOTOOLCHAIN="local", GOPROXY="off", GO111MODULE="on")
    out = subprocess.run(["callgraph", "-algo=vta", "-format={{.Caller}}\t{{.Callee}}"]
                         + (["-test"] if with_tests else []) + ["./..."],
                         cwd=d, env=env, check=True, capture_output=True, text=True).stdout
    return {tuple(l.split("\t")) for l in out.splitlines() if "\t" in l}

def module_path(d):
    for line in open(os.path.join(d, "go.mod")):
        if line.startswith("module "):
            return line.split()[1]
    raise SystemExit(f"{d}: no module line in go.mod")

def in_module(name, mod):
    n = name.lstrip("(*")
    return n == mod or n.startswith(mod + ".") or n.startswith(mod + "/")

def main():
    args = [a for a in sys.argv[1:] if a not in ("-v", "-test")]
    verbose = "-v" in sys.argv
    with_tests = "-test" in sys.argv
    ripple, dirs = args[0], args[1:]
    levels = ["certain", "likely", "possible"]
    by_level = {l: [0, 0] for l in levels}
    for src in dirs:
        with tempfile.TemporaryDirectory() as tmp:
            d = os.path.join(tmp, "m")
            shutil.copytree(src, d, ignore=shutil.ignore_patterns(".ripple"))
            mod = module_path(d)
            vta = {e for e in vta_edges(d, with_tests) if in_module(e[0], mod)}
            callers = {c for c, _ in vta}
            at = {}
            for level in levels:
                graph = json.loads(subprocess.run(
                    [ripple, "--repo", d, "edges", "--format", "json", "--min-confidence", level],
                    check=True, capture_output=True, text=True).stdout)
                at[level] = {(c, t) for c, ts in graph.items() if c in callers for t in ts}
            ours = at["possible"]
            above = set()
            for level in levels:
                exactly = at[level] - above
                by_level[level][0] += len(exactly & vta)
                by_level[level][1] += len(exactly)
                above = at[level]
            tp = len(ours & vta)
            p = tp / len(ours) if ours else 0.0
            r = tp / len(vta) if vta else 0.0
            f1 = 2 * p * r / (p + r) if p + r else 0.0
            print(f"{mod}: vta {len(vta)} ripple {len(ours)} common {tp}  precision {p:.3f} recall {r:.3f} F1 {f1:.3f}")
            if verbose:
                for e in sorted(ours - vta):
                    print("  + " + "\t".join(e))
                for e in sorted(vta - ours):
                    print("  - " + "\t".join(e))
    for level in levels:
        common, edges = by_level[level]
        print(f"{level:<9} edges {edges:5}  in VTA {common:5}  precision {common / edges if edges else 0:.3f}")

main()

#!/usr/bin/env python3
"""Compare ripple's call graph of Go's standard library with x/tools' VTA.

usage: go-std-f1.py [-v] RIPPLE [PACKAGE ...]

Needs Debian's golang-go and golang-golang-x-tools (/usr/bin/callgraph).
The non-test files of `go env GOROOT`/src (without cmd/ and testdata/)
are copied to a temporary directory and indexed by ripple; VTA is run on
`std` (no tests: 76k edges in about 6 s and 0.9 GB). Both graphs are
restricted to the callers VTA reports in each PACKAGE (default: a fixed
sample of packages), and precision, recall and F1 are printed per package
and in total; with -v, the edges each side has alone.

The standard library is a library: a parameter of an exported function
that nothing in it calls may be given anything from outside, so ripple
keeps every implementation there, where VTA (a closed world) finds
nothing. Files ripple skips as generated (`net/http/h2_bundle.go`,
`sort/zsort*.go`) hold callers VTA has and ripple does not; they are
counted ("callers missing"). Files for other platforms are indexed by
ripple, not by VTA.
"""
import json, os, shutil, subprocess, sys, tempfile

SAMPLE = ["bufio", "bytes", "encoding/json", "flag", "fmt", "go/ast", "go/parser",
          "go/printer", "go/types", "io", "net/url", "os", "regexp", "strconv",
          "strings", "text/template", "compress/flate", "archive/zip", "image/png"]

ENV = dict(os.environ, GOFLAGS="-buildvcs=false", GOTOOLCHAIN="local", GOPROXY="off")


def package_of(name):
    n = name.lstrip("(*")
    head, _, tail = n.rpartition("/")
    return (head + "/" if head else "") + tail.split(".")[0]


def main():
    verbose = "-v" in sys.argv
    args = [a for a in sys.argv[1:] if a != "-v"]
    if not args:
        raise SystemExit(__doc__)
    ripple, packages = args[0], args[1:] or SAMPLE
    goroot = subprocess.run(["go", "env", "GOROOT"], env=ENV, check=True,
                            capture_output=True, text=True).stdout.strip()
    src = os.path.join(goroot, "src")
    vta_out = subprocess.run(["callgraph", "-algo=vta", "-format={{.Caller}}\t{{.Callee}}", "std"],
                             cwd=src, env=ENV, check=True, capture_output=True, text=True).stdout
    vta_all = {tuple(l.split("\t")) for l in vta_out.splitlines() if "\t" in l}
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.join(tmp, "src")
        for d, dirs, files in os.walk(src, followlinks=True):
            rel = os.path.relpath(d, src)
            dirs[:] = [x for x in dirs if x != "testdata" and not (rel == "." and x == "cmd")]
            for f in files:
                if f.endswith(".go") and not f.endswith("_test.go"):
                    os.makedirs(os.path.join(root, rel), exist_ok=True)
                    shutil.copyfile(os.path.join(d, f), os.path.join(root, rel, f))
        shutil.copyfile(os.path.join(src, "go.mod"), os.path.join(root, "go.mod"))
        out = subprocess.run([ripple, "--repo", root, "edges", "--format", "json"],
                             check=True, capture_output=True, text=True).stdout
    rip = json.loads(out)
    total = {"vta": 0, "ripple": 0, "common": 0}
    for pkg in packages:
        vta = {(a, b) for a, b in vta_all if package_of(a) == pkg}
        callers = {a for a, _ in vta}
        mine = {(a, b) for a in callers for b in rip.get(a, [])}
        common = vta & mine
        total["vta"] += len(vta)
        total["ripple"] += len(mine)
        total["common"] += len(common)
        p, r = len(common) / max(1, len(mine)), len(common) / max(1, len(vta))
        missing = sum(1 for a in callers if a not in rip)
        print(f"{pkg}: vta {len(vta)} ripple {len(mine)} common {len(common)}  "
              f"precision {p:.3f} recall {r:.3f} F1 {2 * p * r / max(1e-9, p + r):.3f}"
              f"  (callers missing: {missing})")
        if verbose:
            for a, b in sorted(mine - vta):
                print(f"  + {a}\t{b}")
            for a, b in sorted(vta - mine):
                print(f"  - {a}\t{b}")
    p = total["common"] / max(1, total["ripple"])
    r = total["common"] / max(1, total["vta"])
    print(f"total: vta {total['vta']} ripple {total['ripple']} common {total['common']}  "
          f"precision {p:.3f} recall {r:.3f} F1 {2 * p * r / max(1e-9, p + r):.3f}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Compare `ripple refactor rename` with `gopls rename` on golang.org/x/tools.

For each target below, on a fresh copy of the module each time:
  1. `gopls rename -w FILE:LINE:COL NEW`, the changed (file, line) sites from a
     diff of the tree, then `go build ./...` and `go vet` of every package
     whose files spell the old name (vet type-checks test files too);
  2. `ripple refactor rename NAME NEW --json` (selected, unselected and
     check-by-hand sites), then `--apply`, the diff, build and vet again;
  3. the sites of both compared.

Usage:
  python3 tools/rename-vs-gopls.py RIPPLE [--gocode /usr/share/gocode/src]
      [--work /tmp/rename-vs-gopls] [--json OUT] [-v] [TARGET_SUBSTRING ...]
  python3 tools/rename-vs-gopls.py --markdown OUT   # the table and totals of a run

-v prints each differing site with a first guess at its reason (a comment,
testdata, a file excluded by `//go:build ignore`, a method value); `?` is
left to read by hand.

Needs Debian's gopls, golang-go and golang-golang-x-{tools,mod,net,sync,sys,
term,text}-dev and golang-github-yuin-goldmark-dev: the module and its
dependencies are copied from /usr/share/gocode/src and joined with `replace`
directives, so everything runs offline (GOPROXY=off).
"""

import argparse
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import time

MODULE = "golang.org/x/tools"
DEPS = {
    "github.com/yuin/goldmark": "github.com/yuin/goldmark",
    "golang.org/x/mod": "golang.org/x/mod",
    "golang.org/x/net": "golang.org/x/net",
    "golang.org/x/sync": "golang.org/x/sync",
    "golang.org/x/sys": "golang.org/x/sys",
    "golang.org/x/term": "golang.org/x/term",
    "golang.org/x/text": "golang.org/x/text",
}

T = "golang.org/x/tools/"
# (qualified name as ripple spells it, what it is)
TARGETS = [
    # exported functions used from other packages
    (T + "go/ast/astutil.PathEnclosingInterval", "function"),
    (T + "go/ast/astutil.Unparen", "function"),
    (T + "go/ast/astutil.Apply", "function"),
    (T + "go/types/typeutil.StaticCallee", "function"),
    (T + "go/types/typeutil.Callee", "function"),
    (T + "internal/typeparams.CoreType", "function"),
    (T + "internal/typeparams.NamedTypeArgs", "function"),
    (T + "go/ssa/ssautil.AllFunctions", "function"),
    (T + "go/ssa/ssautil.CreateProgram", "function"),
    (T + "go/analysis/passes/internal/analysisutil.Format", "function"),
    (T + "go/buildutil.FakeContext", "function"),
    (T + "internal/testenv.NeedsTool", "function"),
    (T + "go/types/objectpath.For", "function"),
    (T + "internal/event.Error", "function"),
    # methods
    ("(*" + T + "go/ast/inspector.Inspector).Preorder", "method"),
    ("(*" + T + "go/ast/inspector.Inspector).WithStack", "method"),
    ("(*" + T + "go/ssa.Program).FuncValue", "method"),
    ("(*" + T + "go/ssa.Program).ImportedPackage", "method"),
    ("(*" + T + "go/ssa.Program).MethodValue", "method"),
    ("(*" + T + "go/ssa.Function).ValueForExpr", "method"),
    ("(*" + T + "go/ssa.CallCommon).StaticCallee", "method"),
    ("(*" + T + "go/callgraph.Graph).DeleteSyntheticNodes", "method"),
    ("(*" + T + "go/analysis.Pass).ReportRangef", "method"),
    ("(*" + T + "go/types/typeutil.Map).At", "method"),
    ("(*" + T + "go/types/typeutil.MethodSetCache).MethodSet", "method"),
    # methods that implement an interface of the module
    ("(*" + T + "go/ssa.Function).RelString", "method, implements ssa.Member"),
    ("(*" + T + "go/analysis/passes/ctrlflow.noReturn).AFact", "method, implements analysis.Fact"),
    # methods called through embedding (promoted)
    ("(*" + T + "container/intsets.Sparse).TakeMin", "method, promoted through go/pointer.nodeset"),
    ("(*" + T + "container/intsets.Sparse).AppendTo", "method, promoted through go/pointer.nodeset"),
    ("(*" + T + "cmd/splitdwarf/internal/macho.FileTOC).FileSize", "method, promoted through macho.File"),
]

ENV = dict(os.environ, GOFLAGS="-mod=mod", GOPROXY="off", GOTOOLCHAIN="local")


def short(name):
    return re.sub(r"[\w./-]*/", "", name)


def run(cmd, cwd, timeout=900):
    t = time.time()
    p = subprocess.run(cmd, cwd=cwd, env=ENV, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr, time.time() - t


def setup(gocode, work):
    """A pristine module tree with its dependencies, built once."""
    base = os.path.join(work, "base")
    deps = os.path.join(work, "deps")
    if os.path.exists(base):
        return base
    os.makedirs(deps, exist_ok=True)
    lines = ["", "replace ("]
    for mod, rel in DEPS.items():
        dst = os.path.join(deps, rel)
        if not os.path.exists(dst):
            shutil.copytree(os.path.join(gocode, rel), dst)
        lines.append(f"\t{mod} => {dst}")
    lines.append(")")
    shutil.copytree(os.path.join(gocode, MODULE), base + ".tmp")
    with open(os.path.join(base + ".tmp", "go.mod"), "a") as f:
        f.write("\n".join(lines) + "\n")
    # -mod=mod settles go.mod against the replaced versions (gopls wants it settled).
    rc, _, err, _ = run(["go", "list", "-deps", "./..."], base + ".tmp")
    if rc != 0:
        raise SystemExit(f"go list ./... failed in the module copy:\n{err}")
    os.rename(base + ".tmp", base)
    return base


def fresh(base, run_dir):
    # Always the same path, so go's build cache serves the unchanged packages.
    if os.path.exists(run_dir):
        shutil.rmtree(run_dir)
    shutil.copytree(base, run_dir)


def go_files(root):
    out = {}
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if not x.startswith(".")]
        for f in files:
            if f.endswith(".go"):
                p = os.path.join(d, f)
                out[os.path.relpath(p, root)] = p
    return out


def changed_sites(base, tree):
    """(file, line) of every line of `base` that differs in `tree`."""
    sites = set()
    a, b = go_files(base), go_files(tree)
    for rel in sorted(set(a) | set(b)):
        if rel not in a or rel not in b:
            sites.add((rel, 0))
            continue
        old = open(a[rel], "rb").read()
        new = open(b[rel], "rb").read()
        if old == new:
            continue
        ol = old.decode("utf-8", "replace").splitlines()
        nl = new.decode("utf-8", "replace").splitlines()
        for op, i1, i2, _, _ in difflib.SequenceMatcher(None, ol, nl, autojunk=False).get_opcodes():
            if op in ("replace", "delete"):
                sites.update((rel, i + 1) for i in range(i1, i2))
            elif op == "insert":
                sites.add((rel, i1 + 1))
    return sites


def vet_dirs(base, old):
    """Package directories with a non-testdata file spelling `old`."""
    pat = re.compile(rb"\b" + re.escape(old.encode()) + rb"\b")
    dirs = set()
    for rel, p in go_files(base).items():
        if "testdata" in rel.split(os.sep):
            continue
        if pat.search(open(p, "rb").read()):
            dirs.add("./" + os.path.dirname(rel) if os.path.dirname(rel) else ".")
    return sorted(dirs)


def errors(out):
    """go vet / build error lines, without the varying parts."""
    keep = set()
    for line in out.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        keep.add(line.strip())
    return keep


def check(tree, dirs, vet_base):
    rc, _, err, secs = run(["go", "build", "./..."], tree)
    build = "ok" if rc == 0 else "FAIL"
    vrc, vout, verr, vsecs = run(["go", "vet", "-atomic"] + dirs, tree) if dirs else (0, "", "", 0)
    new_errs = errors(vout + verr) - vet_base
    vet = "ok" if not new_errs else "FAIL"
    return build, vet, sorted(errors(err)) + sorted(new_errs), secs + vsecs


def def_position(tree, file, line, old):
    text = open(os.path.join(tree, file), encoding="utf-8").read().splitlines()[line - 1]
    m = re.search(r"^func\s+(\([^)]*\)\s*)?(" + re.escape(old) + r")\b", text)
    if not m:
        raise SystemExit(f"no `func {old}` at {file}:{line}: {text}")
    return m.start(2) + 1


def line_text(base, file, line):
    try:
        return open(os.path.join(base, file), encoding="utf-8").read().splitlines()[line - 1].strip()
    except (OSError, IndexError):
        return ""


def build_tag_ignored(base, file):
    try:
        head = open(os.path.join(base, file), encoding="utf-8").read(2000)
    except OSError:
        return False
    return bool(re.search(r"^//go:build\s+ignore\b", head, re.M))


def classify(base, old, file, line):
    """A first guess at why one side has a site the other has not."""
    if "testdata" in file.split("/"):
        return "testdata (not in the build)"
    if build_tag_ignored(base, file):
        return "file excluded by //go:build ignore"
    text = line_text(base, file, line)
    if text.startswith("//") or text.startswith("*") or text.startswith("/*"):
        return "comment"
    if re.search(r"\b" + re.escape(old) + r"\s*\(", text) is None and re.search(r"\." + re.escape(old) + r"\b", text):
        return "method value or reference (no call)"
    return "?"


def summary(results):
    n = len(results)
    tot = lambda k: sum(r[k] for r in results)
    comments = sum(d["side"].startswith("gopls only") and d["guess"] == "comment"
                   for r in results for d in r["differences"])
    done = [r for r in results if r["gopls_rc"] == 0]
    same_code = sum(all(d["side"].startswith("gopls only") and d["guess"] == "comment"
                        for d in r["differences"]) for r in done)
    clean = lambda rs, s: sum(r[s + "_build"] == "ok" and r[s + "_vet"] == "ok" for r in rs)
    refused = sum(bool(r.get("ripple_refused")) for r in results)
    print(f"{n} targets; gopls renamed {len(done)}, refused {n - len(done)}; ripple refused {refused}")
    print(f"sites: gopls {tot('gopls')} ({comments} in comments), ripple selected {tot('ripple_selected')}, "
          f"both {tot('both')}; ripple unselected {tot('ripple_unselected')}, check by hand {tot('ripple_check_by_hand')} "
          f"({tot('check_by_hand_not_gopls')} not renamed by gopls)")
    print(f"where gopls renamed: same code sites (all but comments) {same_code}/{len(done)}; "
          f"build+vet clean gopls {clean(done, 'gopls')}/{len(done)}, ripple {clean(done, 'ripple')}/{len(done)}")
    applied = [r for r in results if not r.get("ripple_refused")]
    print(f"all targets ripple applied: build+vet clean {clean(applied, 'ripple')}/{len(applied)}")


def markdown(results):
    print("| target | what | gopls | ripple selected | both | gopls only | ripple only "
          "| ripple unselected | check by hand | build+vet after gopls | build+vet after ripple |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    bv = lambda r, s: "ok" if r[s + "_build"] == "ok" and r[s + "_vet"] == "ok" else (
        f"build {r[s + '_build']}, vet {r[s + '_vet']}")
    for r in results:
        g_only = sum(d["side"].startswith("gopls only") for d in r["differences"])
        r_only = sum(d["side"] == "ripple selected only" for d in r["differences"])
        gopls = str(r["gopls"]) if r["gopls_rc"] == 0 else "refused"
        refused = r.get("ripple_refused")
        ripple = "refused" if refused else str(r["ripple_selected"])
        print(f"| `{short(r['target'])}` | {r['what']} | {gopls} | {ripple} | {r['both']} "
              f"| {g_only} | {r_only} | {r['ripple_unselected']} | {r['ripple_check_by_hand']} "
              f"| {bv(r, 'gopls') if r['gopls_rc'] == 0 else '-'} | {'-' if refused else bv(r, 'ripple')} |")
    print()
    for r in results:
        if r["gopls_rc"]:
            print(f"- `{short(r['target'])}`: {' '.join(r['gopls_error'].split())}")
        if r.get("ripple_refused"):
            print(f"- `{short(r['target'])}`: ripple: {' '.join(r['ripple_refused'].split())}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ripple", nargs="?", help="the ripple binary")
    ap.add_argument("only", nargs="*", help="run only targets whose name contains one of these")
    ap.add_argument("--gocode", default="/usr/share/gocode/src")
    ap.add_argument("--work", default="/tmp/rename-vs-gopls")
    ap.add_argument("--json", help="write the per-target results here")
    ap.add_argument("-v", action="store_true", help="print every differing site")
    ap.add_argument("--markdown", metavar="JSON", help="print the table of a --json file and exit")
    a = ap.parse_intermixed_args()
    if a.markdown:
        results = json.load(open(a.markdown))
        markdown(results)
        print()
        return summary(results)
    if not a.ripple:
        ap.error("the ripple binary is required")
    ripple = os.path.abspath(a.ripple)
    work = os.path.abspath(a.work)
    base = setup(a.gocode, work)
    tree = os.path.join(work, "run")

    # Index a pristine copy once to find each target's definition.
    probe = os.path.join(work, "probe")
    if not os.path.exists(probe):
        shutil.copytree(base, probe)
    results = []
    for qname, what in TARGETS:
        if a.only and not any(s in qname for s in a.only):
            continue
        old = qname.rsplit(".", 1)[1]
        new = old + "Rn"
        rc, out, err, _ = run([ripple, "--repo", probe, "find", qname, "--json"], probe)
        hits = [r for r in json.loads(out)["results"] if r["name"] == qname]
        if not hits:
            raise SystemExit(f"{qname}: not found by ripple find")
        file, line = hits[0]["file"], hits[0]["line"]
        col = def_position(base, file, line, old)
        dirs = vet_dirs(base, old)
        r = {"target": qname, "what": what, "new": new, "def": f"{file}:{line}:{col}"}
        print(f"== {short(qname)} → {new}  ({file}:{line}:{col}; {what})", flush=True)

        # Vet of the pristine tree: errors already there are not the rename's.
        fresh(base, tree)
        _, vout, verr, _ = run(["go", "vet", "-atomic"] + dirs, tree) if dirs else (0, "", "", 0)
        vet_base = errors(vout + verr)

        # 1. gopls
        rc, out, err, secs = run(["gopls", "rename", "-w", f"{file}:{line}:{col}", new], tree)
        r["gopls_rc"] = rc
        r["gopls_error"] = err.strip().splitlines()[-1] if rc else ""
        g = changed_sites(base, tree)
        r["gopls_build"], r["gopls_vet"], r["gopls_errors"], _ = check(tree, dirs, vet_base) if rc == 0 else ("-", "-", [], 0)

        # 2. ripple
        fresh(base, tree)
        rc, out, err, _ = run([ripple, "--repo", tree, "refactor", "rename", qname, new, "--json"], tree)
        r["ripple_refused"] = ""
        if rc != 0:
            # A refusal is a JSON error document; anything else is a failure.
            try:
                r["ripple_refused"] = json.loads(out)["error"]["message"]
            except (ValueError, KeyError, TypeError):
                raise SystemExit(f"ripple plan failed ({rc}): {err}{out}")
            sel = unsel = byhand = set()
            r["ripple_rc"] = rc
            r["ripple_written_matches_selected"] = changed_sites(base, tree) == set()
            r["ripple_build"], r["ripple_vet"], r["ripple_errors"] = "-", "-", []
        else:
            plan = json.loads(out)
            sel = {(h["file"], h["line"]) for h in plan["hunks"] if h["selected"]}
            unsel = {(h["file"], h["line"]) for h in plan["hunks"] if not h["selected"]} - sel
            byhand = {(c["file"], c["line"]) for c in plan["check_by_hand"]} - sel - unsel
            rc, out, err, _ = run([ripple, "--repo", tree, "refactor", "rename", qname, new, "--apply", "--json"], tree)
            r["ripple_rc"] = rc
            written = changed_sites(base, tree)
            r["ripple_written_matches_selected"] = written == sel
            r["ripple_build"], r["ripple_vet"], r["ripple_errors"], _ = check(tree, dirs, vet_base)

        # 3. compare
        r["gopls"] = len(g)
        r["ripple_selected"] = len(sel)
        r["ripple_unselected"] = len(unsel)
        r["ripple_check_by_hand"] = len(byhand)
        r["both"] = len(g & sel)
        diffs = []
        for f, l in sorted(g - sel):
            side = "gopls only, ripple unselected" if (f, l) in unsel else (
                "gopls only, ripple check by hand" if (f, l) in byhand else "gopls only")
            diffs.append({"side": side, "file": f, "line": l, "text": line_text(base, f, l), "guess": classify(base, old, f, l)})
        for f, l in sorted(sel - g):
            diffs.append({"side": "ripple selected only", "file": f, "line": l, "text": line_text(base, f, l), "guess": classify(base, old, f, l)})
        for f, l in sorted(unsel - g):
            diffs.append({"side": "ripple unselected only", "file": f, "line": l, "text": line_text(base, f, l), "guess": classify(base, old, f, l)})
        r["check_by_hand_not_gopls"] = len(byhand - g)
        r["differences"] = diffs
        r["agree"] = g == sel
        results.append(r)
        print(f"   gopls {r['gopls']} sites (rc {r['gopls_rc']}, build {r['gopls_build']}, vet {r['gopls_vet']})"
              f"{'  ' + r['gopls_error'] if r['gopls_rc'] else ''}")
        print(f"   ripple {len(sel)} selected, {len(unsel)} unselected, {len(byhand)} check by hand"
              f" (apply rc {r['ripple_rc']}, build {r['ripple_build']}, vet {r['ripple_vet']})")
        print(f"   both {r['both']}, gopls only {len(g - sel)}, ripple only {len(sel - g)}"
              f"{'' if r['ripple_written_matches_selected'] else '  (written ≠ selected!)'}", flush=True)
        if a.v:
            for d in diffs:
                print(f"     {d['side']}: {d['file']}:{d['line']}  [{d['guess']}]  {d['text'][:100]}")
            for e in r["gopls_errors"]:
                print(f"     gopls build/vet: {e[:160]}")
            for e in r["ripple_errors"]:
                print(f"     ripple build/vet: {e[:160]}")

    summary(results)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Compare `ripple refactor rename` with rope's rename on the CPython library.

For each target in TARGETS, on a copy of the library (LIB, e.g.
/usr/lib/python3.11, copied without test/, site-packages, __pycache__ and
the build directories):

- rope: rope.refactor.rename.Rename at the name in the definition's `def`,
  get_changes(NEW) (in_hierarchy=True for a method, docs=False); the lines
  it changes are rope's sites. Occurrences rope is unsure of are recorded
  through its `unsure` callback (which answers no, as rope's default does).
- ripple: `ripple refactor rename NAME NEW --json`; the lines of selected
  hunks, of unselected hunks and of check-by-hand places.

Neither tool writes: rope's get_changes only computes the change set, and
ripple without --apply prints the plan. So one copy serves every target.

Usage (python3 with rope installed, e.g. a venv):
    python3 tools/rename-vs-rope.py RIPPLE LIB [--work DIR] [--json OUT] [-v] [--only NAME]

Prints a table per target and totals; -v lists every differing line with its
text; --json writes everything, the differing lines included.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
import traceback

# (ripple's qualified name, what it is). The new name is the old one plus
# "_renamed" for both tools.
TARGETS = [
    # module-level functions called from several modules
    ("shutil.copyfileobj", "function"),
    ("textwrap.dedent", "function"),
    ("tokenize.detect_encoding", "function"),
    ("email.utils.formatdate", "function"),
    ("inspect.getmodule", "function"),
    ("ast.literal_eval", "function"),
    ("subprocess.list2cmdline", "function"),
    # private helpers
    ("json.decoder.py_scanstring", "private function"),
    ("urllib.parse._splittype", "private function"),
    ("email._header_value_parser.get_fws", "function"),
    ("genericpath._check_arg_types", "private function"),
    ("dataclasses._create_fn", "private function"),
    # methods with overrides in subclasses
    ("logging.Handler.emit", "method, overridden"),
    ("socketserver.TCPServer.server_bind", "method, overridden"),
    ("ast.NodeVisitor.generic_visit", "method, overridden"),
    ("argparse.HelpFormatter._split_lines", "method, overridden"),
    ("queue.Queue._put", "method, overridden"),
    ("xml.sax.handler.ContentHandler.startElement", "method, overridden"),
    ("configparser.Interpolation.before_get", "method, overridden"),
    ("http.server.BaseHTTPRequestHandler.log_message", "method, overridden"),
    ("email.generator.Generator._write_headers", "method, overridden"),
    ("unittest.result.TestResult.addSuccess", "method, overridden"),
    ("asyncio.events.AbstractEventLoop.call_soon", "method, overridden"),
    # methods called through self
    ("cmd.Cmd.emptyline", "method, via self"),
    ("zipfile.ZipFile._extract_member", "method, via self"),
    ("tarfile.TarFile._extract_member", "method, via self"),
    ("difflib.SequenceMatcher.find_longest_match", "method, via self"),
]

IGNORE = ("test", "site-packages", "dist-packages", "__pycache__", "idle_test",
          "config-3.*", "lib-dynload")


def copy_corpus(lib, dest):
    if os.path.exists(dest):
        shutil.rmtree(dest)
    shutil.copytree(lib, dest, ignore=shutil.ignore_patterns(*IGNORE))


def ripple_plan(ripple, corpus, name, new):
    out = subprocess.run(
        [ripple, "--repo", corpus, "refactor", "rename", name, new, "--json"],
        capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"ripple failed on {name}: {out.stderr.strip()}")
    plan = json.loads(out.stdout)
    sel, unsel, cbh = set(), {}, set()
    for h in plan["hunks"]:
        site = (h["file"], h["line"])
        if h["selected"]:
            sel.add(site)
        else:
            unsel[site] = h["confidence"].lower()
    for c in plan["check_by_hand"]:
        cbh.add((c["file"], c["line"]))
    # A line with a selected hunk is selected, whatever else it holds.
    unsel = {s: c for s, c in unsel.items() if s not in sel}
    return plan, sel, unsel, cbh


def rope_rename(corpus, file, line, old, new, method):
    from rope.base.project import Project
    from rope.refactor.rename import Rename

    project = Project(corpus, ropefolder=None,
                      ignored_resources=["*.pyc", "__pycache__", ".ripple"])
    try:
        resource = project.get_resource(file)
        src = resource.read()
        # Lines as both tools count them: split at "\n" only (str.splitlines
        # also splits at form feeds, which the library's files hold).
        lines = src.split("\n")
        start = sum(len(x) + 1 for x in lines[:line - 1])
        m = re.search(r"\bdef\s+(%s)\b" % re.escape(old), lines[line - 1])
        if not m:
            raise SystemExit(f"no `def {old}` at {file}:{line}")
        offset = start + m.start(1)
        unsure = set()

        def on_unsure(occ):
            text = occ.resource.read()
            unsure.add((occ.resource.path, text.count("\n", 0, occ.offset) + 1))
            return False

        changes = Rename(project, resource, offset).get_changes(
            new, in_hierarchy=method, docs=False, unsure=on_unsure)
        sites = set()
        for ch in changes.changes:
            before = ch.old_contents if ch.old_contents is not None else ch.resource.read()
            a, b = before.split("\n"), ch.new_contents.split("\n")
            if len(a) != len(b):
                raise SystemExit(f"rope changed the line count of {ch.resource.path}")
            for i, (x, y) in enumerate(zip(a, b)):
                if x != y:
                    sites.add((ch.resource.path, i + 1))
        return sites, unsure
    finally:
        project.close()


def line_text(corpus, site, cache={}):
    path = os.path.join(corpus, site[0])
    if path not in cache:
        with open(path, encoding="utf-8", errors="replace") as f:
            cache[path] = f.read().split("\n")
    return cache[path][site[1] - 1].strip()


def compare(corpus, name, kind, ripple, verbose):
    old = name.rsplit(".", 1)[1]
    new = old + "_renamed"
    plan, sel, unsel, cbh = ripple_plan(ripple, corpus, name, new)
    method = kind.startswith("method")
    t = time.time()
    try:
        rope, rope_unsure = rope_rename(corpus, plan["target"]["file"], plan["target"]["line"],
                                        old, new, method)
    except Exception as e:  # rope's own failures: reported, left out of the totals
        last = traceback.extract_tb(e.__traceback__)[-1]
        error = f"{type(e).__name__}: {e} ({os.path.basename(last.filename)}:{last.lineno})"
        if verbose:
            print(f"  rope failed: {error}")
        return {"target": name, "kind": kind, "rope_error": error,
                "ripple_selected": len(sel), "ripple_unselected": len(unsel),
                "ripple_check_by_hand": len(cbh)}
    rope_secs = time.time() - t
    both = rope & sel
    rope_only = rope - sel
    row = {
        "target": name,
        "kind": kind,
        "rope_seconds": round(rope_secs, 1),
        "files_rope": len({f for f, _ in rope}),
        "files_ripple": len({f for f, _ in sel}),
        "rope": len(rope),
        "ripple_selected": len(sel),
        "ripple_unselected": len(unsel),
        "ripple_check_by_hand": len(cbh),
        "rope_unsure": len(rope_unsure),
        "both": len(both),
        "rope_only": len(rope_only),
        "rope_only_ripple_unselected": len(rope_only & set(unsel)),
        "rope_only_check_by_hand": len((rope_only - set(unsel)) & cbh),
        "rope_only_absent": len(rope_only - set(unsel) - cbh),
        "ripple_only": len(sel - rope),
        "ripple_unselected_not_rope": len(set(unsel) - rope),
    }
    union = rope | sel
    row["agreement"] = round(len(both) / len(union), 3) if union else 1.0
    diffs = []
    for s in sorted(rope_only):
        where = (f"ripple unselected ({unsel[s]})" if s in unsel
                 else "ripple check by hand" if s in cbh else "not in ripple's plan")
        diffs.append({"side": "rope only", "where": where, "file": s[0], "line": s[1],
                      "text": line_text(corpus, s)})
    for s in sorted(sel - rope):
        where = "rope unsure" if s in rope_unsure else "not in rope's changes"
        diffs.append({"side": "ripple only (selected)", "where": where, "file": s[0],
                      "line": s[1], "text": line_text(corpus, s)})
    for s in sorted(set(unsel) - rope):
        where = "rope unsure" if s in rope_unsure else "not in rope's changes"
        diffs.append({"side": f"ripple only (unselected, {unsel[s]})", "where": where,
                      "file": s[0], "line": s[1], "text": line_text(corpus, s)})
    row["differences"] = diffs
    if verbose:
        for d in diffs:
            print(f"  {d['side']:<34} {d['where']:<28} {d['file']}:{d['line']}  {d['text']}")
    return row


COLUMNS = [
    ("target", "target"), ("files_rope", "files rope"), ("files_ripple", "files ripple"),
    ("rope", "rope"), ("ripple_selected", "ripple"), ("both", "both"),
    ("rope_only", "rope only"), ("rope_only_ripple_unselected", "of which unsel."),
    ("rope_only_check_by_hand", "of which by hand"), ("ripple_only", "ripple only"),
    ("ripple_unselected_not_rope", "unsel. not rope"), ("agreement", "agreement"),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ripple")
    ap.add_argument("lib", help="the library, e.g. /usr/lib/python3.11 (copied, never changed)")
    ap.add_argument("--work", default="/tmp/rope-corpus", help="where the copy goes")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--only", action="append", help="only this target (repeatable)")
    ap.add_argument("-v", action="store_true", help="list the differing lines")
    args = ap.parse_args()

    import rope
    corpus = os.path.join(args.work, "lib")
    copy_corpus(args.lib, corpus)
    n_files = sum(f.endswith(".py") for _, _, fs in os.walk(corpus) for f in fs)
    print(f"corpus: {corpus} ({n_files} .py files); rope {rope.VERSION}; "
          f"python {sys.version.split()[0]}")
    targets = [t for t in TARGETS if not args.only or t[0] in args.only]
    rows = []
    for name, kind in targets:
        if args.v:
            print(name)
        rows.append(compare(corpus, name, kind, args.ripple, args.v))
    print()
    print(" | ".join(h for _, h in COLUMNS))
    for r in rows:
        if "rope_error" in r:
            print(f"{r['target']} | rope failed: {r['rope_error']}")
            continue
        print(" | ".join(str(r[k]) for k, _ in COLUMNS))
    failed = [r for r in rows if "rope_error" in r]
    rows = [r for r in rows if "rope_error" not in r]
    tot = {k: sum(r[k] for r in rows) for k, _ in COLUMNS[1:-1]}
    union = tot["rope"] + tot["ripple_selected"] - tot["both"]
    tot["agreement"] = round(tot["both"] / union, 3) if union else 1.0
    tot["target"] = f"total ({len(rows)})"
    print(" | ".join(str(tot[k]) for k, _ in COLUMNS))
    exact = sum(r["rope_only"] == 0 and r["ripple_only"] == 0 for r in rows)
    print(f"targets where the selected hunks and rope's changes are the same lines: {exact} of {len(rows)}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rope": rope.VERSION, "python": sys.version.split()[0],
                       "files": n_files, "targets": rows, "rope_failed": failed,
                       "total": tot}, f, indent=1)


if __name__ == "__main__":
    main()

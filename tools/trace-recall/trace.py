#!/usr/bin/env python3
"""Record the Python-to-Python calls CPython's own tests make inside its library.

usage: trace.py --lib LIB --out PAIRS.json [--dir DIR] [--timeout S] [-j N] [TEST_MODULE ...]
       trace.py --lib LIB --one TEST_MODULE --out FILE      (one module, in this process)

Each TEST_MODULE (test_json, test_email, ...; by default MODULES) runs in
its own subprocess of this interpreter, under sys.setprofile and
threading.setprofile, with unittest. Each subprocess writes the distinct
(caller, callee) pairs it saw to DIR/TEST_MODULE.json (a temporary
directory by default); they are merged into PAIRS.json, a JSON list of
[caller, callee, vias]. vias says how the call came about: the opcode the
calling frame was at (CALL or CALL_FUNCTION_EX for a call in the source;
IMPORT_NAME, FOR_ITER, BINARY_SUBSCR, LOAD_ATTR, ... for calls the
interpreter makes on the code's behalf), "C:NAME" when a builtin the caller
called (isinstance, sorted, getattr, ...) made the call, or "generator" for
the first run of a generator or coroutine.

Only pairs whose caller and callee both live under LIB, outside its test
packages, are kept; they are named as ripple names them: the dotted module
path from LIB and code.co_qualname without `.<locals>`. A module's own code
is named by the module and a class body by the class; both make calls but
are not callees (imports and class statements are no calls). Lambdas,
comprehensions and generator expressions are not named: their calls are
the function's that defines them.
"""
import argparse, collections, dis, json, os, signal, subprocess, sys, tempfile, time, types

# Code that ripple does not name: a call made in it belongs to the named
# code that defines it.
ANONYMOUS = ("<lambda>", "<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>")
CO_OPTIMIZED = 0x1
RESUMABLE = 0x20 | 0x80 | 0x200  # generator, coroutine, async generator
FIRST_RESUME = bytes((dis.opmap["RESUME"], 0))  # where a generator's first run starts
RETURN_GENERATOR = dis.opmap["RETURN_GENERATOR"]  # where an unstarted generator waits
CACHE = dis.opmap["CACHE"]
GENERATORS = {types.GeneratorType: "gi_frame", types.CoroutineType: "cr_frame",
              types.AsyncGeneratorType: "ag_frame"}
# Test modules that exercise pure-Python library code, each in well under a
# minute here even traced; none needs the network.
MODULES = """
test_argparse test_ast test_calendar test_collections test_configparser test_contextlib
test_copy test_csv test_dataclasses test_datetime test_decimal test_difflib test_dis
test_doctest test_email test_enum test_fnmatch test_fractions test_functools test_getopt
test_gettext test_glob test_graphlib test_html test_http_cookiejar test_http_cookies
test_inspect test_ipaddress test_json test_logging test_mailbox test_minidom test_netrc
test_optparse test_pathlib test_pickle test_plistlib test_pprint test_pydoc test_re
test_shlex test_shutil test_smtplib test_statistics test_string test_tarfile test_tempfile
test_textwrap test_tokenize test_tomllib test_traceback test_typing test_unittest
test_urllib test_urlparse test_wsgiref test_xml_etree test_zipfile test_zoneinfo
""".split()
EXCLUDED_DIRS = ("site-packages", "idlelib/idle_test")


def module_name(lib, filename):
    """The dotted module of a file under lib, or None for files not indexed."""
    if filename.startswith("<frozen "):
        # Frozen modules (os, posixpath, importlib._bootstrap, ...) report no path.
        name = filename[len("<frozen "):-1]
        rel = name.replace(".", "/")
        if not (os.path.isfile(os.path.join(lib, rel + ".py"))
                or os.path.isfile(os.path.join(lib, rel, "__init__.py"))):
            return None
        return name
    if not filename.startswith(lib + os.sep) or not filename.endswith(".py"):
        return None
    rel = filename[len(lib) + 1:-3]
    parts = rel.split(os.sep)
    # `test` anywhere (test/, unittest/test/, ctypes/test/, ...) as the copy
    # ripple indexes leaves it out.
    if "test" in parts or any(rel.startswith(d + "/") for d in EXCLUDED_DIRS):
        return None
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def opname_at(frame):
    """The instruction a frame is at: f_lasti may point at its inline cache."""
    code, i = frame.f_code.co_code, frame.f_lasti
    while i > 0 and code[i] == CACHE:
        i -= 2
    return dis.opname[code[i]]


class Tracer:
    def __init__(self, lib):
        self.lib = os.path.realpath(lib)
        self.kinds = {}       # id(code) -> (kind, name): kind "fn", "module", "class", "through" or None
        self.keep = []        # the code objects behind those ids, so ids stay unique
        self.parent = {}      # id(code) -> the code it is defined in
        self.pairs = set()    # (id(caller code), id(callee code), how it was called)
        self.handed = set()   # ids of unstarted generator frames already credited
        self.in_c = {}        # id(frame) -> the builtin it is calling
        self.rearmed = 0

    def kind(self, code):
        k = self.kinds.get(id(code))
        if k is None:
            k = self.kinds[id(code)] = self.classify(code)
            self.keep.append(code)
            for c in code.co_consts:
                if isinstance(c, types.CodeType):
                    self.parent[id(c)] = code
        return k

    def classify(self, code):
        qual = code.co_qualname
        if qual.endswith(ANONYMOUS):
            return ("through", None)  # wherever it lives: its calls are its definer's
        mod = module_name(self.lib, code.co_filename)
        if mod is None or any(a in qual for a in ANONYMOUS):
            return (None, None)
        if code.co_name == "<module>":
            return ("module", mod)
        name = mod + "." + qual.replace(".<locals>", "")
        # A class body makes calls (ripple names them after the class) but is
        # no callee.
        return ("fn" if code.co_flags & CO_OPTIMIZED else "class", name)

    def caller(self, frame):
        """The named code a frame's calls belong to: a lambda's, comprehension's
        or generator expression's are the function's that defines it (not the
        one running it: a generator expression may be consumed elsewhere)."""
        code = frame.f_code
        while True:
            kind = self.kind(code)[0]
            if kind != "through":
                return code if kind else None
            parent = self.parent.get(id(code))
            while parent is None and frame is not None:
                # The definer ran before tracing started: look for it up the stack.
                frame = frame.f_back
                if frame is not None:
                    self.kind(frame.f_code)
                    parent = self.parent.get(id(code))
            if parent is None:
                return None
            code = parent

    def profile(self, frame, event, arg):
        if event == "call":
            code = frame.f_code
            if self.kind(code)[0] != "fn":
                return  # modules run on import and class bodies are not calls
            if code.co_flags & RESUMABLE:
                # Each resumption of a generator is a 'call'; only its first counts,
                # and not when the function that made it already returned it.
                if code.co_code[frame.f_lasti:frame.f_lasti + 2] != FIRST_RESUME:
                    return
                if id(frame) in self.handed:
                    self.handed.discard(id(frame))
                    return
            back = frame.f_back
            c = back and self.caller(back)
            if c is not None:
                # How the call came about: a builtin the caller called (isinstance,
                # sorted, getattr, ...) calling back, or the instruction the caller
                # is at (CALL, or FOR_ITER, BINARY_SUBSCR, IMPORT_NAME, ...).
                if code.co_flags & RESUMABLE:
                    via = "generator"
                elif id(back) in self.in_c:
                    via = "C:" + self.in_c[id(back)]
                else:
                    via = opname_at(back)
                self.pairs.add((id(c), id(code), via))
        elif event == "c_call":
            # A frame waits on at most one builtin at a time.
            self.in_c[id(frame)] = getattr(arg, "__qualname__", "?")
        elif event == "c_return" or event == "c_exception":
            self.in_c.pop(id(frame), None)
        elif event == "return" and type(arg) in GENERATORS:
            # A generator made and returned unstarted: its caller is the maker,
            # not whoever starts it later.
            f = getattr(arg, GENERATORS[type(arg)])
            if f is None or f.f_code.co_code[f.f_lasti] != RETURN_GENERATOR:
                return
            callee, maker = f.f_code, self.caller(frame)
            if self.kind(callee)[0] == "fn" and maker is not None:
                self.pairs.add((id(maker), id(callee), "generator"))
                self.handed.add(id(f))

    def named_pairs(self):
        name = {i: k[1] for i, k in self.kinds.items()}
        vias = collections.defaultdict(set)
        for a, b, via in self.pairs:
            vias[name[a], name[b]].add(via)
        return {pair: sorted(v) for pair, v in vias.items()}


def write_pairs(path, pairs):
    """A JSON list of [caller, callee, [how it was called, ...]], a pair a line."""
    rows = (json.dumps([a, b, sorted(v)]) for (a, b), v in sorted(pairs.items()))
    with open(path, "w") as f:
        f.write("[\n" + ",\n".join(rows) + "\n]\n")


def run_one(lib, module, out):
    import threading
    tracer = Tracer(lib)
    pid = os.getpid()

    def dump(*_):
        if os.getpid() != pid:  # a forked child of a test
            return
        write_pairs(out + ".tmp", tracer.named_pairs())
        os.replace(out + ".tmp", out)

    def on_term(*_):
        sys.setprofile(None)
        dump()
        os._exit(3)

    signal.signal(signal.SIGTERM, on_term)
    # Installed before unittest and the test module are imported, so the
    # library modules they import are traced from their first line.
    threading.setprofile(tracer.profile)
    sys.setprofile(tracer.profile)
    try:
        import unittest
        from test import support
        # Resource-gated tests (network, cpu, ...) skip, as under regrtest without -u.
        support.use_resources = []

        class Result(unittest.TextTestResult):
            def startTest(self, test):
                # A test that overflows the stack makes CPython drop the profiler.
                if sys.getprofile() != tracer.profile:
                    tracer.rearmed += 1
                    tracer.in_c.clear()
                    sys.setprofile(tracer.profile)
                super().startTest(test)

        suite = unittest.defaultTestLoader.loadTestsFromName("test." + module)
        result = unittest.TextTestRunner(resultclass=Result, verbosity=0).run(suite)
        print(f"{module}: ran {result.testsRun}, failures {len(result.failures)}, "
              f"errors {len(result.errors)}, skipped {len(result.skipped)}, "
              f"profiler re-armed {tracer.rearmed}", file=sys.stderr)
    except BaseException as e:  # a test module that exits or fails to import still counts
        print(f"{module}: stopped by {e!r}", file=sys.stderr)
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
        dump()


def run_all(args):
    outdir = args.dir or tempfile.mkdtemp(prefix="trace-recall-")
    os.makedirs(outdir, exist_ok=True)
    todo, running = list(args.modules or MODULES), []
    merged = collections.defaultdict(set)

    def finish(mod, proc, started, log):
        path = os.path.join(outdir, mod + ".json")
        pairs = json.load(open(path)) if os.path.exists(path) else []
        for caller, callee, vias in pairs:
            merged[caller, callee].update(vias)
        log.close()
        tail = open(log.name).read().strip().splitlines()[-1:] or [""]
        print(f"{mod:24} rc {proc.returncode:4} {time.time() - started:6.0f}s "
              f"{len(pairs):6} pairs | {tail[0][:90]}", flush=True)

    while todo or running:
        while todo and len(running) < args.jobs:
            mod = todo.pop(0)
            log = open(os.path.join(outdir, mod + ".log"), "w")
            cmd = [sys.executable, os.path.abspath(__file__), "--lib", args.lib,
                   "--one", mod, "--out", os.path.join(outdir, mod + ".json")]
            proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, cwd=outdir)
            running.append((mod, proc, time.time(), log))
        time.sleep(0.5)
        for item in list(running):
            mod, proc, started, log = item
            if proc.poll() is None and time.time() - started > args.timeout:
                proc.terminate()  # the child writes what it has on SIGTERM
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
                print(f"{mod}: timed out after {args.timeout}s", flush=True)
            if proc.poll() is not None:
                running.remove(item)
                finish(*item)

    write_pairs(args.out, merged)
    print(f"{len(merged)} distinct pairs -> {args.out} (per module: {outdir})")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lib", default=os.path.dirname(os.__file__),
                   help="library root (default: this interpreter's)")
    p.add_argument("--out", required=True)
    p.add_argument("--one", metavar="TEST_MODULE", help=argparse.SUPPRESS)
    p.add_argument("--dir", help="where per-module pairs and logs go")
    p.add_argument("--timeout", type=float, default=180, help="seconds per test module")
    p.add_argument("-j", "--jobs", type=int, default=1)
    p.add_argument("modules", nargs="*")
    args = p.parse_args()
    if args.one:
        run_one(args.lib, args.one, args.out)
    else:
        run_all(args)


if __name__ == "__main__":
    main()

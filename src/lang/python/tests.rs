//! Unit tests of Python extraction: declarations, calls, scoping and the
//! flow facts of small sources.

use super::expressions::{fstring_prefix, percent_conversions};
use super::{PyCallKind, PyExpr, PyFlow, extract};
use crate::lang::{FileFacts, LangFacts};
use crate::model::DeclKind;

fn facts(src: &str) -> FileFacts {
    extract("main.py", src.as_bytes())
}

fn names(f: &FileFacts) -> Vec<&str> {
    f.decls.iter().map(|d| d.local_name.as_str()).collect()
}

#[test]
fn declarations_nest_like_qualname_and_lambdas_number_per_scope() {
    let f = facts(
        "class A:\n    def m(self):\n        def inner():\n            return lambda: 1\n        return inner\n\nf = lambda x: x\ng = lambda: 2\ndef h():\n    return lambda: 3\n",
    );
    assert_eq!(
        names(&f),
        vec![
            "",
            "A",
            "A.m",
            "A.m.inner",
            "A.m.inner.<lambda1>",
            "<lambda1>",
            "<lambda2>",
            "h",
            "h.<lambda1>"
        ]
    );
    assert_eq!(f.decls[2].kind, DeclKind::Method);
    assert_eq!(f.decls[4].kind, DeclKind::Lambda);
}

#[test]
fn names_resolve_per_legb_and_class_scope_is_skipped() {
    let f = facts("x = 1\nclass C:\n    x = 2\n    def m(self):\n        return x\n");
    let LangFacts::Python(py) = &f.lang_facts else {
        panic!()
    };
    let ret = py.flows.iter().find_map(|fl| match fl {
        PyFlow::Return { value, .. } => Some(*value),
        _ => None,
    });
    let ret = ret.expect("a return flow");
    assert!(matches!(
        py.exprs[ret as usize],
        PyExpr::Var { scope: 0, .. }
    ));
}

#[test]
fn calls_record_caller_text_and_arguments() {
    let f = facts("def f(a, b=2):\n    pass\n\ndef g():\n    f(1, b=g)\n");
    assert_eq!(f.calls.len(), 1);
    assert_eq!(f.calls[0].callee_text, "f");
    assert_eq!(f.decls[f.calls[0].caller as usize].local_name, "g");
    let LangFacts::Python(py) = &f.lang_facts else {
        panic!()
    };
    assert_eq!(py.calls[0].args.len(), 1);
    assert_eq!(py.calls[0].kwargs.len(), 1);
    assert_eq!(py.decl_info[1].params.len(), 2);
}

#[test]
fn syntax_errors_are_counted_and_the_rest_still_extracts() {
    let f = facts("def broken(:\n    pass\ndef ok():\n    return 1\n");
    assert!(f.syntax_errors > 0);
    assert!(names(&f).contains(&"ok"));
}

#[test]
fn calls_inside_f_strings_are_found_and_plain_strings_hold_none() {
    let f = facts(
        "def g():\n    a = f\"{one()} and {two(x)!r:>{width()}}\"\n    b = \"{not_a_call()}\"\n    c = rb'{nor()}' F'{three()}'\n    return a, b, c\n",
    );
    let LangFacts::Python(py) = &f.lang_facts else {
        panic!()
    };
    let mut called = Vec::new();
    let mut formatted = Vec::new();
    for (site, call) in f.calls.iter().zip(&py.calls) {
        match call.kind {
            PyCallKind::Operator { method, .. } => {
                formatted.push((site.callee_text.as_str(), f.sym(method)))
            }
            _ => called.push(site.callee_text.as_str()),
        }
    }
    called.sort();
    assert_eq!(called, vec!["one", "three", "two", "width"]);
    // Each interpolation formats its value (`!r` asks `__repr__`); a
    // width computed inside a format spec is a number, not asked.
    formatted.sort();
    assert_eq!(
        formatted,
        vec![
            ("{one()}", "__format__"),
            ("{three()}", "__format__"),
            ("{two(x)!r:>{width()}}", "__repr__"),
        ]
    );
    assert_eq!(f.syntax_errors, 0);
}

#[test]
fn f_string_prefixes_stop_at_the_first_interpolation() {
    assert_eq!(fstring_prefix("f\"visit_{kind}\""), Some("visit_"));
    assert_eq!(fstring_prefix("rf'do_{x}'"), Some("do_"));
    assert_eq!(fstring_prefix("f\"{kind}_x\""), None);
    assert_eq!(fstring_prefix("f\"a{{b}}\""), None);
    assert_eq!(fstring_prefix("\"visit_{kind}\""), None);
    assert_eq!(fstring_prefix("f\"no interpolation\""), None);
}

#[test]
fn getattr_names_held_in_a_variable_are_keys() {
    let f = facts(
        "class V:\n    def visit(self, node):\n        name = 'visit_' + type(node).__name__\n        return getattr(self, name)(node)\n    def other(self):\n        m = f'on_{self}'\n        n = 'fixed'\n        return getattr(self, m), getattr(self, n)\n",
    );
    let LangFacts::Python(py) = &f.lang_facts else {
        panic!()
    };
    let mut keys: Vec<&str> = f
        .calls
        .iter()
        .zip(&py.calls)
        .filter(|(site, _)| site.callee_text == "getattr")
        .filter_map(|(_, c)| c.key.map(|k| f.sym(k)))
        .collect();
    keys.sort();
    assert_eq!(keys, vec!["fixed", "on_*", "visit_*"]);
}

#[test]
fn percent_formats_list_their_conversions_in_order() {
    assert_eq!(percent_conversions("%-5s: %r %% %.2f%s"), b"srfs");
    assert!(percent_conversions("%(name)s").is_empty());
    assert!(percent_conversions("100%").is_empty());
}

#[test]
fn conditions_and_percent_formatting_imply_conversions() {
    let f = facts(
        "def g(a, b, c):\n    if a:\n        pass\n    while not b.x:\n        pass\n    if a == b:\n        pass\n    assert c, 'msg'\n    return '%s and %r' % (a, b), '{}'.format(c), '%d' % a\n",
    );
    let LangFacts::Python(py) = &f.lang_facts else {
        panic!()
    };
    let mut implied: Vec<(&str, &str)> = f
        .calls
        .iter()
        .zip(&py.calls)
        .filter_map(|(site, call)| match call.kind {
            PyCallKind::Operator { method, .. } if f.sym(method) != "__eq__" => {
                Some((site.callee_text.as_str(), f.sym(method)))
            }
            _ => None,
        })
        .collect();
    implied.sort();
    // `if a == b` asks nothing more of the bool `==` made, and `%d`
    // converts with `__int__`-like rules this does not model.
    assert_eq!(
        implied,
        vec![
            ("'%s and %r' % (a, b)", "__repr__"),
            ("'%s and %r' % (a, b)", "__str__"),
            ("'{}'.format(c)", "__format__"),
            ("a", "__bool__"),
            ("b.x", "__bool__"),
            ("c", "__bool__"),
        ]
    );
}

#[test]
fn a_syntax_error_inside_a_string_is_counted() {
    let f = facts("x = 'unterminated\ny = 1\n");
    assert!(f.syntax_errors > 0);
}

#[test]
fn docstrings_and_signatures() {
    let f = facts(
        "def f(a: int, *args, **kw) -> str:\n    \"\"\"Do it.\n\n    More.\n    \"\"\"\n    return ''\n",
    );
    assert_eq!(f.decls[1].signature, "def f(a: int, *args, **kw) -> str");
    assert_eq!(f.decls[1].doc.as_deref(), Some("Do it.\n\nMore."));
}

#[test]
fn deep_nesting_does_not_overflow() {
    let mut src = String::from("x = ");
    for _ in 0..20000 {
        src.push_str("'a' + ");
    }
    src.push_str("f()\n");
    let f = facts(&src);
    // f() itself, and the `+` whose right operand is its result.
    assert_eq!(f.calls.iter().filter(|c| c.callee_text == "f").count(), 1);
    assert_eq!(f.calls.len(), 2);
}

/// Whether the call written `callee_text` calls a subscript as written
/// (`d["k"]`), or the value a known store forwarded in its place.
fn calls_forwarded_value(src: &str, callee_text: &str) -> Vec<bool> {
    let f = facts(src);
    let LangFacts::Python(py) = &f.lang_facts else {
        unreachable!()
    };
    f.calls
        .iter()
        .zip(py.calls.iter())
        .filter(|(site, c)| site.callee_text == callee_text && c.kind == PyCallKind::Plain)
        .map(|(_, c)| !matches!(py.exprs[c.callee as usize], PyExpr::Subscript { .. }))
        .collect()
}

#[test]
fn a_stored_item_is_read_back_until_something_could_change_it() {
    let read = "d[\"k\"]";
    // Read by the next statement, and by one after a plain assignment
    // or a comment.
    let src = "d = {\"k\": f}\nd[\"k\"] = g\nd[\"k\"]()\n";
    assert_eq!(calls_forwarded_value(src, read), vec![true]);
    let src = "d = {}\nd[\"k\"] = g\nx = 1\n# note\nd[\"k\"]()\n";
    assert_eq!(calls_forwarded_value(src, read), vec![true]);
    // `update` with a literal or keywords stores too.
    let src = "d = {}\nd.update({\"k\": g})\nd[\"k\"]()\nd.update(k=h)\nd[\"k\"]()\n";
    assert_eq!(calls_forwarded_value(src, read), vec![true, true]);
    // The first read's own call may change the dict.
    let src = "d = {}\nd[\"k\"] = g\nd[\"k\"]()\nd[\"k\"]()\n";
    assert_eq!(calls_forwarded_value(src, read), vec![true, false]);
    // Not after a call, a store through another name (an alias), a
    // store under a key that is not constant, a branch, or inside a
    // loop, a lambda or another function.
    for src in [
        "d = {}\nd[\"k\"] = g\nchange(d)\nd[\"k\"]()\n",
        "d = {}\ne = d\nd[\"k\"] = g\ne[\"k\"] = h\nd[\"k\"]()\n",
        "d = {}\nd[\"k\"] = g\nd[key] = h\nd[\"k\"]()\n",
        "d = {}\nd[\"k\"] = g\nif c:\n    d[\"k\"] = h\nd[\"k\"]()\n",
        "d = {}\nd[\"k\"] = g\nfor x in y:\n    d[\"k\"]()\n    d[\"k\"] = h\n",
        "d = {}\nd[\"k\"] = g\nf = lambda: d[\"k\"]()\n",
        "d = {}\nd[\"k\"] = g\ndef f():\n    d[\"k\"]()\n",
        "d = {}\nd[\"k\"] += g\nd[\"k\"]()\n",
    ] {
        let got = calls_forwarded_value(src, read);
        assert!(
            !got.is_empty() && got.iter().all(|f| !f),
            "{src:?}: {got:?}"
        );
    }
}

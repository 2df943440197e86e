//! Unit tests of Go extraction: SSA-style declaration names and the
//! parameters and arguments of generic types.

use super::*;

#[test]
fn ssa_style_names_for_functions_methods_and_closures() {
    let f = extract(
        "svc.go",
        b"package svc\n\ntype S struct{ repo Repo }\n\nfunc (s *S) Run() { f := func() { g := func() {}; g() }; f() }\nfunc (s S) Name() string { return \"\" }\nfunc New() *S { return &S{} }\n",
    );
    let names: Vec<&str> = f.decls.iter().map(|d| d.local_name.as_str()).collect();
    assert_eq!(
        names,
        vec![
            "init",
            "S",
            "(*S).Run",
            "(*S).Run$1",
            "(*S).Run$1$1",
            "(S).Name",
            "New"
        ]
    );
    assert_eq!(f.decls[1].kind, DeclKind::Struct);
    assert_eq!(f.calls.len(), 2);
}

#[test]
fn generic_types_keep_parameters_and_arguments() {
    let f = extract(
        "g.go",
        b"package g\n\ntype List[T any] []T\ntype Cache[K comparable, V any] struct{ m map[K]V }\nfunc (c *Cache[K, V]) Get(k K) V { return c.m[k] }\nvar l = List[Shape]{}\n",
    );
    let crate::lang::LangFacts::Go(go) = &f.lang_facts else {
        panic!("not Go facts");
    };
    let names = |syms: &[Sym]| {
        syms.iter()
            .map(|&s| f.sym(s).to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&go.type_decls[0].params), ["T"]);
    assert_eq!(names(&go.type_decls[1].params), ["K", "V"]);
    assert_eq!(names(&go.funcs[0].recv_params), ["K", "V"]);
    let instantiated: Vec<String> = go
        .type_args
        .iter()
        .map(|(t, args)| {
            let name = |t: TypeId| match &go.types[t as usize] {
                GoType::Named { name, .. } => f.sym(*name).to_owned(),
                other => format!("{other:?}"),
            };
            format!(
                "{}{:?}",
                name(*t),
                args.iter().map(|&a| name(a)).collect::<Vec<_>>()
            )
        })
        .collect();
    assert_eq!(instantiated, ["Cache[\"K\", \"V\"]", "List[\"Shape\"]"]);
}

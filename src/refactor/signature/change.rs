//! The three signature changes as rules: what each does to a definition's
//! parameter list, what it does to one call's arguments, and when a call
//! is left to a person because its arguments cannot be mapped to the
//! parameters from the text alone.

use super::lists::{CommaList, Edit};
use super::params::{ArgKind, Args, Kind, Params};
use crate::model::Lang;

/// A parameter to add, checked: it parses as one named parameter.
#[derive(Debug, Clone)]
pub struct NewParam {
    /// As the definition will read: `leeway: int = 0`, `leeway int`.
    pub text: String,
    pub name: String,
    pub has_default: bool,
    /// What existing calls pass.
    pub pass: Option<String>,
    /// Pass it as `name=EXPR` (Python).
    pub keyword: bool,
}

/// A change to a signature, its inputs checked against the language.
#[derive(Debug, Clone)]
pub enum Change {
    Add(NewParam),
    Remove { name: String, force: bool },
    Reorder { order: Vec<String> },
}

/// What one call needs.
pub(super) enum CallEdit {
    Edits(Vec<Edit>),
    /// The call does not pass what changes.
    Nothing,
    /// Left to a person, and why.
    Hand(String),
}

/// How a call supplies the parameters before its first argument: a call
/// through an instance binds `self` itself; `Class.method(obj, …)` passes
/// it as an argument.
#[derive(Debug, Clone, Copy)]
pub(super) struct CallShape {
    /// Parameters supplied without an argument.
    pub(super) implicit: usize,
}

impl Change {
    /// The definition's new parameter list, or why it cannot have one.
    pub(super) fn definition(
        &self,
        lang: Lang,
        src: &[u8],
        params: &Params,
    ) -> Result<Vec<Edit>, String> {
        match self {
            Change::Add(new) => add_definition(lang, src, params, new),
            Change::Remove { name, .. } => remove_definition(params, name),
            Change::Reorder { order } => reorder_definition(lang, src, params, order),
        }
    }

    /// What one call's arguments need.
    pub(super) fn call(
        &self,
        lang: Lang,
        src: &[u8],
        params: &Params,
        args: &Args,
        shape: CallShape,
    ) -> CallEdit {
        match lang {
            Lang::Python => self.python_call(src, params, args, shape),
            Lang::Go => self.go_call(src, params, args),
        }
    }

    fn python_call(&self, src: &[u8], params: &Params, args: &Args, shape: CallShape) -> CallEdit {
        let splat = "passes `*args` or `**kwargs`: ripple cannot tell which parameters they fill";
        match self {
            Change::Add(new) => {
                let Some(pass) = &new.pass else {
                    return CallEdit::Nothing;
                };
                if args.has_splat() {
                    return CallEdit::Hand(format!(
                        "{splat}; add `{}={pass}` by hand unless they hold `{}`",
                        new.name, new.name
                    ));
                }
                if args.keyword(&new.name).is_some() {
                    return CallEdit::Hand(format!(
                        "already passes `{}=`, which the function did not take: decide by hand which value it gets",
                        new.name
                    ));
                }
                let by_name = CallEdit::Edits(vec![args.list.insert(
                    src,
                    args.list.items.len(),
                    &format!("{}={pass}", new.name),
                )]);
                if new.keyword {
                    return by_name;
                }
                let Some(position) = new_position(params, new.keyword) else {
                    return by_name;
                };
                let filled = args.positional() + shape.implicit;
                match filled.cmp(&position) {
                    std::cmp::Ordering::Equal => {
                        CallEdit::Edits(vec![args.list.insert(src, args.positional(), pass)])
                    }
                    // A parameter before it is defaulted or passed by name:
                    // only its name can reach it.
                    std::cmp::Ordering::Less => by_name,
                    std::cmp::Ordering::Greater => CallEdit::Hand(format!(
                        "passes more positional arguments than the parameters before `{}`: add it by hand",
                        new.name
                    )),
                }
            }
            Change::Remove { name, .. } => {
                let Some(i) = params.find(name) else {
                    return CallEdit::Nothing;
                };
                let q = &params.params[i];
                if q.kind == Kind::VarArgs {
                    if args.has_splat() {
                        return CallEdit::Hand(format!(
                            "{splat}; drop what they pass to `*{name}` by hand"
                        ));
                    }
                    // The positional arguments past the named parameters
                    // were `*args`'s.
                    let first = i.saturating_sub(shape.implicit);
                    let extra: Vec<usize> = (first..args.positional()).collect();
                    if extra.is_empty() {
                        return CallEdit::Nothing;
                    }
                    return CallEdit::Edits(args.list.remove(&extra));
                }
                if q.kind.positional() && i >= shape.implicit {
                    let at = i - shape.implicit;
                    if at < args.positional() {
                        return CallEdit::Edits(args.list.remove(&[at]));
                    }
                }
                if let Some(k) = args.keyword(name) {
                    return CallEdit::Edits(args.list.remove(&[k]));
                }
                if args.has_splat() {
                    return CallEdit::Hand(format!(
                        "{splat}; remove `{name}` from them by hand if they pass it"
                    ));
                }
                CallEdit::Nothing
            }
            Change::Reorder { order } => {
                if args.has_splat() {
                    return CallEdit::Hand(format!("{splat}: reorder its arguments by hand"));
                }
                let Ok(new) = permutation(params, order) else {
                    return CallEdit::Nothing;
                };
                // `Class.method(obj, …)`: the first argument is `self`.
                let offset = params.bound - shape.implicit.min(params.bound);
                let visible = params.visible();
                let positional_params = visible.iter().filter(|q| q.kind.positional()).count();
                let m = args
                    .positional()
                    .saturating_sub(offset)
                    .min(positional_params);
                let mut moved: Vec<usize> = new[..m].to_vec();
                moved.sort_unstable();
                if moved != (0..m).collect::<Vec<_>>() {
                    let names = |js: &mut dyn Iterator<Item = usize>| {
                        js.map(|j| format!("`{}`", visible[j].name))
                            .collect::<Vec<_>>()
                            .join(", ")
                    };
                    return CallEdit::Hand(format!(
                        "passes {} by position; after the reorder those positions take {}: pass its arguments by name first, then reorder",
                        names(&mut (0..m)),
                        names(&mut new[..m].iter().copied()),
                    ));
                }
                let mut item_order: Vec<usize> = (0..args.list.items.len()).collect();
                for j in 0..m {
                    item_order[offset + j] = offset + new[j];
                }
                let edits = args.list.permute(src, &item_order);
                if edits.is_empty() {
                    CallEdit::Nothing
                } else {
                    CallEdit::Edits(edits)
                }
            }
        }
    }

    fn go_call(&self, src: &[u8], params: &Params, args: &Args) -> CallEdit {
        let fixed = params
            .params
            .iter()
            .filter(|q| q.kind != Kind::VarArgs)
            .count();
        let variadic = params.params.len() > fixed;
        let n = args.kinds.len();
        if n < fixed || (!variadic && n != fixed) {
            return CallEdit::Hand(format!(
                "passes {n} argument(s) to {fixed} parameter(s) (a multi-value call, a method expression): change it by hand"
            ));
        }
        match self {
            Change::Add(new) => match &new.pass {
                Some(pass) => CallEdit::Edits(vec![args.list.insert(src, fixed, pass)]),
                None => CallEdit::Nothing,
            },
            Change::Remove { name, .. } => {
                let Some(i) = params.find(name) else {
                    return CallEdit::Nothing;
                };
                if params.params[i].kind == Kind::VarArgs {
                    let rest: Vec<usize> = (fixed..n).collect();
                    if rest.is_empty() {
                        return CallEdit::Nothing;
                    }
                    return CallEdit::Edits(args.list.remove(&rest));
                }
                CallEdit::Edits(args.list.remove(&[i]))
            }
            Change::Reorder { order } => {
                let Ok(new) = permutation(params, order) else {
                    return CallEdit::Nothing;
                };
                if args.kinds.iter().take(fixed).any(|k| *k == ArgKind::Splat) {
                    return CallEdit::Hand("spreads a slice into fixed parameters".to_owned());
                }
                let mut item_order: Vec<usize> = (0..n).collect();
                for (j, &from) in new.iter().enumerate().take(fixed) {
                    item_order[j] = from;
                }
                CallEdit::Edits(args.list.permute(src, &item_order))
            }
        }
    }
}

/// Where a new parameter lands among the positional ones (counting
/// `self`), or `None` when it is keyword-only.
fn new_position(params: &Params, keyword: bool) -> Option<usize> {
    let (at, keyword_only) = add_place(params, keyword);
    (!keyword_only).then(|| params.params.iter().filter(|q| q.item < at).count())
}

/// The item before which a new parameter goes, and whether that place is
/// keyword-only: after `*args` (so extra positional arguments keep landing
/// there) or, passed by name, after a bare `*`; otherwise after the last
/// positional parameter.
fn add_place(params: &Params, keyword: bool) -> (usize, bool) {
    let items = params.list.items.len();
    let var_keywords = params
        .params
        .iter()
        .find(|q| q.kind == Kind::VarKeywords)
        .map(|q| q.item);
    let var_args = params.params.iter().find(|q| q.kind == Kind::VarArgs);
    if var_args.is_some() || (keyword && params.star.is_some()) {
        return (var_keywords.unwrap_or(items), true);
    }
    let first_special = [params.star, var_keywords]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(items);
    (first_special, false)
}

fn add_definition(
    lang: Lang,
    src: &[u8],
    params: &Params,
    new: &NewParam,
) -> Result<Vec<Edit>, String> {
    if params.find(&new.name).is_some() {
        return Err(format!("it already has a parameter `{}`", new.name));
    }
    match lang {
        Lang::Go => {
            let at = params
                .params
                .iter()
                .find(|q| q.kind == Kind::VarArgs)
                .map_or(params.list.items.len(), |q| q.item);
            Ok(vec![params.list.insert(src, at, &new.text)])
        }
        Lang::Python => {
            let positional_calls = new.pass.is_some() && !new.keyword;
            if positional_calls && params.params.iter().any(|q| q.kind == Kind::VarArgs) {
                return Err(
                    "it takes `*args`: an argument appended at its calls would land in `*args` — pass --keyword to pass it by name"
                        .to_owned(),
                );
            }
            let (at, keyword_only) = add_place(params, new.keyword);
            if !new.has_default && !keyword_only {
                let defaulted = params
                    .params
                    .iter()
                    .filter(|q| q.item < at && q.kind.positional())
                    .find(|q| q.has_default);
                // Passed by name, it can be keyword-only, where a parameter
                // without a default may follow one with a default.
                if defaulted.is_some() && new.keyword {
                    return Ok(vec![params.list.insert(
                        src,
                        at,
                        &format!("*, {}", new.text),
                    )]);
                }
                if let Some(d) = defaulted {
                    return Err(format!(
                        "`{}` has no default and would follow `{}`, which has one: give it a default (`{} = …`), or pass it by name with --keyword",
                        new.name, d.name, new.text
                    ));
                }
            }
            Ok(vec![params.list.insert(src, at, &new.text)])
        }
    }
}

fn remove_definition(params: &Params, name: &str) -> Result<Vec<Edit>, String> {
    let Some(i) = params.find(name) else {
        return Err(format!(
            "it has no parameter `{name}`; its parameters are: {}",
            params.names()
        ));
    };
    if i < params.bound {
        return Err(format!(
            "`{name}` is bound by the call (the instance or class): it cannot be removed"
        ));
    }
    let q = &params.params[i];
    if q.kind == Kind::VarKeywords {
        return Err(format!(
            "`**{name}` collects keyword arguments ripple cannot follow: remove it by hand"
        ));
    }
    // `def f(a, *args, b)`: `b` stays keyword-only behind a bare `*`.
    if q.kind == Kind::VarArgs && params.params.iter().any(|p| p.kind == Kind::KeywordOnly) {
        return Ok(vec![(params.list.items[q.item].clone(), "*".to_owned())]);
    }
    if q.group.len() > 1 {
        // `a, b int`: only the name goes.
        let names = CommaList {
            open_end: 0,
            close_start: 0,
            items: q.group.clone(),
        };
        return Ok(names.remove(&[q.in_group]));
    }
    let mut items = vec![q.item];
    let left = |kind: Kind| {
        params
            .params
            .iter()
            .enumerate()
            .any(|(j, p)| j != i && p.kind == kind && j >= params.bound)
    };
    // `def f(a, *)` and `def f(/, b)` do not parse: a separator goes with
    // the last parameter it separated.
    if let Some(star) = params.star
        && q.kind == Kind::KeywordOnly
        && !left(Kind::KeywordOnly)
    {
        items.push(star);
    }
    if let Some(slash) = params.slash
        && q.kind == Kind::PositionalOnly
        && !params
            .params
            .iter()
            .enumerate()
            .any(|(j, p)| j != i && p.kind == Kind::PositionalOnly)
    {
        items.push(slash);
    }
    Ok(params.list.remove(&items))
}

/// `order` as indexes into the visible parameters, checked to be a
/// permutation of them.
pub(super) fn permutation(params: &Params, order: &[String]) -> Result<Vec<usize>, String> {
    let visible = params.visible();
    let mut out = Vec::new();
    for name in order {
        let Some(j) = visible.iter().position(|q| q.name == *name) else {
            return Err(format!(
                "`{name}` is not one of its parameters ({})",
                params.names()
            ));
        };
        if out.contains(&j) {
            return Err(format!("`{name}` is listed twice"));
        }
        out.push(j);
    }
    if let Some(missing) = visible.iter().enumerate().find(|(j, _)| !out.contains(j)) {
        return Err(format!(
            "`{}` is missing: list every parameter once, in the new order ({})",
            missing.1.name,
            params.names()
        ));
    }
    Ok(out)
}

fn reorder_definition(
    lang: Lang,
    src: &[u8],
    params: &Params,
    order: &[String],
) -> Result<Vec<Edit>, String> {
    let new = permutation(params, order)?;
    if new.iter().enumerate().all(|(j, &from)| j == from) {
        return Err("its parameters are already in this order".to_owned());
    }
    let visible = params.visible();
    for (j, &from) in new.iter().enumerate() {
        if visible[j].kind != visible[from].kind {
            return Err(format!(
                "`{}` is {} and `{}` is {}: a reorder keeps each parameter among those of its kind",
                visible[from].name,
                visible[from].kind.name(),
                visible[j].name,
                visible[j].kind.name()
            ));
        }
    }
    let mut defaulted: Option<&str> = None;
    for &from in &new {
        let q = &visible[from];
        if !q.kind.positional() {
            continue;
        }
        match defaulted {
            Some(d) if !q.has_default => {
                return Err(format!(
                    "`{}` has no default and would follow `{d}`, which has one",
                    q.name
                ));
            }
            _ if q.has_default => defaulted = Some(&q.name),
            _ => {}
        }
    }
    if lang == Lang::Go && params.params.iter().any(|q| q.group.len() > 1) {
        // `a, b int` cannot keep its group when its names part: every
        // parameter is written with its own type.
        let text = new
            .iter()
            .map(|&from| format!("{} {}", visible[from].name, visible[from].type_text))
            .collect::<Vec<_>>()
            .join(", ");
        return Ok(vec![(params.list.open_end..params.list.close_start, text)]);
    }
    let mut item_order: Vec<usize> = (0..params.list.items.len()).collect();
    for (j, &from) in new.iter().enumerate() {
        item_order[visible[j].item] = visible[from].item;
    }
    Ok(params.list.permute(src, &item_order))
}

#[cfg(test)]
mod tests {
    use super::super::lists::applied;
    use super::super::params;
    use super::*;
    use crate::model::Span;
    use crate::refactor::syntax::Parsed;

    /// `src` (one `def f` or `func F`) after `change` to its definition.
    fn defined(lang: Lang, src: &str, change: &Change) -> Result<String, String> {
        let p = Parsed::new(lang, src.as_bytes().to_vec()).unwrap();
        let name = if lang == Lang::Go { "F" } else { "f" };
        let span = Span {
            start_byte: 0,
            end_byte: src.len() as u32,
            start_line: 1,
            end_line: 1,
        };
        let ps = params::read(&p, span, name, false).unwrap();
        let edits = change.definition(lang, &p.source, &ps)?;
        Ok(String::from_utf8(applied(&p.source, &edits)).unwrap())
    }

    fn remove(name: &str) -> Change {
        Change::Remove {
            name: name.to_owned(),
            force: true,
        }
    }

    fn add(text: &str, name: &str, default: bool, keyword: bool) -> Change {
        Change::Add(NewParam {
            text: text.to_owned(),
            name: name.to_owned(),
            has_default: default,
            pass: Some("1".to_owned()),
            keyword,
        })
    }

    #[test]
    fn a_separator_goes_with_the_last_parameter_it_separated() {
        let py = |src: &str, c: &Change| defined(Lang::Python, src, c).unwrap();
        assert_eq!(
            py("def f(a, *, b): pass\n", &remove("b")),
            "def f(a): pass\n"
        );
        assert_eq!(
            py("def f(a, *, b, c): pass\n", &remove("b")),
            "def f(a, *, c): pass\n"
        );
        assert_eq!(
            py("def f(a, /, b): pass\n", &remove("a")),
            "def f(b): pass\n"
        );
        assert_eq!(
            py("def f(a, *args, b): pass\n", &remove("b")),
            "def f(a, *args): pass\n"
        );
        assert_eq!(
            py("def f(a, *args, b): pass\n", &remove("args")),
            "def f(a, *, b): pass\n"
        );
        assert_eq!(
            py("def f(a, *args): pass\n", &remove("args")),
            "def f(a): pass\n"
        );
        assert!(defined(Lang::Python, "def f(**kw): pass\n", &remove("kw")).is_err());
    }

    #[test]
    fn a_new_parameter_lands_where_calls_can_reach_it() {
        let py = |src: &str, c: &Change| defined(Lang::Python, src, c);
        assert_eq!(
            py(
                "def f(a, *, b, **kw): pass\n",
                &add("x=0", "x", true, false)
            )
            .unwrap(),
            "def f(a, x=0, *, b, **kw): pass\n"
        );
        assert_eq!(
            py("def f(a, *, b, **kw): pass\n", &add("x=0", "x", true, true)).unwrap(),
            "def f(a, *, b, x=0, **kw): pass\n"
        );
        assert_eq!(
            py("def f(a, *rest): pass\n", &add("x=0", "x", true, true)).unwrap(),
            "def f(a, *rest, x=0): pass\n"
        );
        assert!(py("def f(a, *rest): pass\n", &add("x=0", "x", true, false)).is_err());
        assert!(py("def f(a=1): pass\n", &add("x", "x", false, false)).is_err());
        assert_eq!(
            py("def f(a=1): pass\n", &add("x", "x", false, true)).unwrap(),
            "def f(a=1, *, x): pass\n"
        );
        let go = |src: &str, c: &Change| defined(Lang::Go, src, c).unwrap();
        assert_eq!(
            go(
                "package p\nfunc F(a int, xs ...int) {}\n",
                &add("x int", "x", false, false)
            ),
            "package p\nfunc F(a int, x int, xs ...int) {}\n"
        );
    }

    #[test]
    fn reorders_keep_kinds_and_go_groups_are_written_out() {
        let reorder = |order: &[&str]| Change::Reorder {
            order: order.iter().map(|s| (*s).to_owned()).collect(),
        };
        assert_eq!(
            defined(
                Lang::Python,
                "def f(a, b, *, c, d): pass\n",
                &reorder(&["b", "a", "d", "c"])
            )
            .unwrap(),
            "def f(b, a, *, d, c): pass\n"
        );
        let err = defined(
            Lang::Python,
            "def f(a, *, c): pass\n",
            &reorder(&["c", "a"]),
        )
        .unwrap_err();
        assert!(err.contains("keyword-only"), "{err}");
        assert_eq!(
            defined(
                Lang::Go,
                "package p\nfunc F(a, b int, s string) {}\n",
                &reorder(&["s", "a", "b"])
            )
            .unwrap(),
            "package p\nfunc F(s string, a int, b int) {}\n"
        );
        assert_eq!(
            defined(
                Lang::Go,
                "package p\nfunc F(a int, s string) {}\n",
                &reorder(&["s", "a"])
            )
            .unwrap(),
            "package p\nfunc F(s string, a int) {}\n"
        );
    }
}

package main

// The dynamic types behind the standard library's interfaces, read off its
// SSA form: what a function declared to return an interface really
// returns (`errors.New` gives an *errors.errorString) or which function a
// function-typed result is (`context.WithCancel$1`), and which types the
// library converts to an interface it hands to the repository's code (an
// http.ResponseWriter is a *net/http.response or a *net/http.http2responseWriter).
// Call graphs built over the whole program (x/tools' VTA) name those
// types' methods, never the interface's.

import (
	"fmt"
	"go/types"
	"os"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

// Interfaces converted to from more types than this are left out: a call
// through one (an io.Writer) names the interface's method.
const maxImplementations = 12

// A trace of what a function returns gives up this many calls deep: a
// limit only against runaway recursion, never met in the library (a
// lower one would make answers depend on the order traces run in).
const maxDepth = 64

type dynamic struct {
	// What is stored in each package-level variable (`var EOF = errors.New(…)`).
	stores map[*ssa.Global][]ssa.Value
	memo   map[resultKey][]string
	busy   map[resultKey]bool
	// Traces cut short by recursion so far.
	cuts int
	// The concrete types traces met, by name.
	mentioned map[string]*types.Named
}

type resultKey struct {
	fn  *ssa.Function
	idx int
}

func dynamicLines() []string {
	cfg := &packages.Config{Mode: packages.LoadAllSyntax}
	pkgs, err := packages.Load(cfg, "std")
	if err != nil {
		fmt.Fprintln(os.Stderr, "load std:", err)
		os.Exit(1)
	}
	prog, _ := ssautil.AllPackages(pkgs, 0)
	prog.Build()
	fns := ssautil.AllFunctions(prog)
	d := &dynamic{
		stores:    map[*ssa.Global][]ssa.Value{},
		memo:      map[resultKey][]string{},
		busy:      map[resultKey]bool{},
		mentioned: map[string]*types.Named{},
	}
	conv := map[string]map[string]bool{}
	for fn := range fns {
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				switch in := in.(type) {
				case *ssa.Store:
					if g, ok := in.Addr.(*ssa.Global); ok {
						d.stores[g] = append(d.stores[g], in.Val)
					}
				case *ssa.MakeInterface:
					named, ok := in.Type().(*types.Named)
					if !ok || !public(named.Obj()) {
						continue
					}
					concrete, ok := d.concrete(in.X.Type())
					if !ok {
						continue
					}
					k := typeString(named)
					if conv[k] == nil {
						conv[k] = map[string]bool{}
					}
					conv[k][concrete] = true
				}
			}
		}
	}
	var lines []string
	for iface, set := range conv {
		if len(set) > maxImplementations {
			continue
		}
		lines = append(lines, "C\t"+iface+"\t"+joined(set))
	}
	for _, p := range prog.AllPackages() {
		if !publicPath(p.Pkg.Path()) {
			continue
		}
		for _, m := range p.Members {
			fn, ok := m.(*ssa.Function)
			if !ok || fn.Object() == nil || !fn.Object().Exported() || fn.Signature.Recv() != nil || fn.TypeParams().Len() > 0 {
				continue
			}
			res := fn.Signature.Results()
			for i := 0; i < res.Len(); i++ {
				_, isFunc := res.At(i).Type().Underlying().(*types.Signature)
				if !types.IsInterface(res.At(i).Type()) && !isFunc {
					continue
				}
				ts, ok := d.results(fn, i, 0)
				if !ok || len(ts) == 0 {
					continue
				}
				set := map[string]bool{}
				for _, t := range ts {
					set[t] = true
				}
				lines = append(lines, fmt.Sprintf("R\t%s.%s\t%d\t%s", p.Pkg.Path(), fn.Name(), i, joined(set)))
			}
		}
	}
	// The methods of the unexported types the lines name (a trace that
	// failed may have met others).
	named := map[string]bool{}
	for _, l := range lines {
		cols := strings.Split(l, "\t")
		for _, t := range strings.Split(cols[len(cols)-1], ",") {
			named[strings.TrimPrefix(t, "*")] = true
		}
	}
	for q, t := range d.mentioned {
		if named[q] && !t.Obj().Exported() {
			lines = append(lines, methodLines(q, t)...)
		}
	}
	return lines
}

func publicPath(path string) bool {
	return !strings.Contains(path, "internal") && !strings.HasPrefix(path, "vendor/")
}

func public(obj *types.TypeName) bool {
	return obj.Pkg() != nil && obj.Exported() && publicPath(obj.Pkg().Path())
}

func joined(set map[string]bool) string {
	var ts []string
	for t := range set {
		ts = append(ts, t)
	}
	sort.Strings(ts)
	return strings.Join(ts, ",")
}

// concrete names a package-level named type (or a pointer to one) outside
// internal packages, and records it for its methods.
func (d *dynamic) concrete(t types.Type) (string, bool) {
	base := t
	if p, ok := t.(*types.Pointer); ok {
		base = p.Elem()
	}
	named, ok := base.(*types.Named)
	if !ok || named.TypeArgs().Len() > 0 || types.IsInterface(named) {
		return "", false
	}
	obj := named.Obj()
	if obj.Pkg() == nil || !publicPath(obj.Pkg().Path()) || obj.Parent() != obj.Pkg().Scope() {
		return "", false
	}
	d.mentioned[typeString(named)] = named
	return typeString(t), true
}

// results traces the concrete types `fn`'s idx-th result may hold; false
// when some value could not be traced (a field, a parameter, a map).
// Only answers that hold whatever order functions are visited in are
// remembered: a success not cut short by recursion, or a failure from
// the top with the whole depth to go.
func (d *dynamic) results(fn *ssa.Function, idx int, depth int) ([]string, bool) {
	if depth > maxDepth || len(fn.Blocks) == 0 {
		return nil, false
	}
	k := resultKey{fn, idx}
	if ts, ok := d.memo[k]; ok {
		return ts, ts != nil
	}
	if d.busy[k] {
		// Recursion adds nothing the other returns do not.
		d.cuts++
		return []string{}, true
	}
	d.busy[k] = true
	defer delete(d.busy, k)
	cuts := d.cuts
	var out []string
	for _, b := range fn.Blocks {
		ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok || idx >= len(ret.Results) {
			continue
		}
		ts, ok := d.values(ret.Results[idx], depth, map[ssa.Value]bool{})
		if !ok {
			if depth == 0 && d.cuts == cuts {
				d.memo[k] = nil
			}
			return nil, false
		}
		out = append(out, ts...)
	}
	if out == nil {
		out = []string{}
	}
	if d.cuts == cuts {
		d.memo[k] = out
	}
	return out, true
}

func (d *dynamic) values(v ssa.Value, depth int, seen map[ssa.Value]bool) ([]string, bool) {
	if seen[v] {
		return nil, true
	}
	seen[v] = true
	switch v := v.(type) {
	case *ssa.MakeInterface:
		t, ok := d.concrete(v.X.Type())
		return []string{t}, ok
	case *ssa.MakeClosure:
		// A function value: the closure, by its SSA name.
		if f, ok := v.Fn.(*ssa.Function); ok {
			return []string{f.String()}, true
		}
	case *ssa.Function:
		return []string{v.String()}, true
	case *ssa.ChangeInterface:
		return d.values(v.X, depth, seen)
	case *ssa.ChangeType:
		// `func() {…}` returned as a context.CancelFunc.
		return d.values(v.X, depth, seen)
	case *ssa.Const:
		// nil
		return nil, v.IsNil()
	case *ssa.Phi:
		var out []string
		for _, e := range v.Edges {
			ts, ok := d.values(e, depth, seen)
			if !ok {
				return nil, false
			}
			out = append(out, ts...)
		}
		return out, true
	case *ssa.Call:
		if callee := v.Call.StaticCallee(); callee != nil && callee.Signature.Results().Len() == 1 {
			return d.results(callee, 0, depth+1)
		}
	case *ssa.Extract:
		if call, ok := v.Tuple.(*ssa.Call); ok {
			if callee := call.Call.StaticCallee(); callee != nil {
				return d.results(callee, v.Index, depth+1)
			}
		}
	case *ssa.UnOp:
		if g, ok := v.X.(*ssa.Global); ok && v.Op.String() == "*" {
			var out []string
			for _, s := range d.stores[g] {
				ts, ok := d.values(s, depth, seen)
				if !ok {
					return nil, false
				}
				out = append(out, ts...)
			}
			return out, len(d.stores[g]) > 0
		}
	}
	return nil, false
}

// Command go-std-signatures writes the facts about the Go standard library
// that ripple's Go resolver cannot read from a repository: what exported
// functions, methods and variables return or hold, which methods have
// pointer receivers, struct field types and interface method sets.
//
// Run from this directory with the Go toolchain whose library you want
// (the table in the repository was made with Go 1.19) and x/tools' source
// (Debian's golang-golang-x-tools-dev), in GOPATH mode:
//
//	GO111MODULE=off GOPATH=/usr/share/gocode go run . > ../../src/resolve/go_std.tsv
//
// Lines are tab-separated; types are written with full import paths
// (`*net/http.Request`, `[]reflect.Value`):
//
// Only results, variables and fields of a named type (or error) are kept:
// the resolver follows nothing else.
//
//	F pkg.Func            results (comma-separated)
//	V pkg.Var             type
//	M pkg.Type  * | -     Method  results  N  all-results  [origin]
//	                      (`*` for a pointer receiver; N parameters, and every
//	                      result even of a basic type, to match interface methods;
//	                      a method promoted from an embedded field names the
//	                      type that declares it, whose receiver the `*` is)
//	S pkg.Type  Field     type              (exported struct fields)
//	I pkg.Type  Method/N/results  …         (interface method sets, N parameters)
//	R pkg.Func  idx  T1,T2…                 (the dynamic types behind an interface
//	                                         result, or the functions a function-typed
//	                                         one is, where every return was traced)
//	C pkg.Iface  T1,T2…                     (the types the library converts to an
//	                                         interface, for those with few)
//	P callee  N[+]  pkg.Iface               (a parameter of an interface type with
//	                                         methods, which the library calls on what
//	                                         it is given; `+` for a variadic one)
//
// M lines also describe the unexported types R and C lines name.
package main

import (
	"fmt"
	"go/importer"
	"go/types"
	"os"
	"os/exec"
	"sort"
	"strings"
)

func main() {
	out, err := exec.Command("go", "list", "std").Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "go list std:", err)
		os.Exit(1)
	}
	imp := importer.Default()
	var lines []string
	for _, path := range strings.Fields(string(out)) {
		if strings.Contains(path, "internal") || strings.HasPrefix(path, "vendor/") || path == "unsafe" || path == "builtin" {
			continue
		}
		pkg, err := imp.Import(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "skip", path+":", err)
			continue
		}
		lines = append(lines, describe(pkg)...)
	}
	lines = append(lines, dynamicLines()...)
	sort.Strings(lines)
	var last string
	for _, l := range lines {
		if l != last {
			fmt.Println(l)
		}
		last = l
	}
}

func qualifier(p *types.Package) string { return p.Path() }

// useful reports whether a type can lead the resolver anywhere: a named
// type of some package (its methods and fields), or error. Results and
// fields of basic types are left out of the table.
func useful(types string) bool {
	return strings.Contains(types, ".") || strings.Contains(types, "error")
}

func typeString(t types.Type) string { return types.TypeString(t, qualifier) }

func results(sig *types.Signature) string {
	var rs []string
	for i := 0; i < sig.Results().Len(); i++ {
		rs = append(rs, typeString(sig.Results().At(i).Type()))
	}
	return strings.Join(rs, ",")
}

func describe(pkg *types.Package) []string {
	var lines []string
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		qualified := pkg.Path() + "." + name
		switch o := obj.(type) {
		case *types.Func:
			if rs := results(o.Type().(*types.Signature)); useful(rs) {
				lines = append(lines, "F\t"+qualified+"\t"+rs)
			}
			lines = append(lines, paramLines(qualified, o.Type().(*types.Signature))...)
		case *types.Var:
			if t := typeString(o.Type()); useful(t) {
				lines = append(lines, "V\t"+qualified+"\t"+t)
			}
		case *types.Const:
			// A typed constant (`time.April`, `time.Second`) is a value of
			// its named type for the resolver: `time.April.String()`.
			if _, named := o.Type().(*types.Named); named {
				lines = append(lines, "V\t"+qualified+"\t"+typeString(o.Type()))
			}
		case *types.TypeName:
			named, ok := o.Type().(*types.Named)
			if !ok {
				continue
			}
			if iface, ok := named.Underlying().(*types.Interface); ok {
				var ms []string
				for i := 0; i < iface.NumMethods(); i++ {
					m := iface.Method(i)
					if !m.Exported() {
						continue
					}
					sig := m.Type().(*types.Signature)
					rs := results(sig)
					if !useful(rs) {
						rs = ""
					}
					ms = append(ms, fmt.Sprintf("%s/%d/%s", m.Name(), sig.Params().Len(), rs))
				}
				lines = append(lines, "I\t"+qualified+"\t"+strings.Join(ms, "\t"))
				continue
			}
			lines = append(lines, methodLines(qualified, named)...)
			if st, ok := named.Underlying().(*types.Struct); ok {
				for i := 0; i < st.NumFields(); i++ {
					f := st.Field(i)
					if f.Exported() && useful(typeString(f.Type())) {
						lines = append(lines, "S\t"+qualified+"\t"+f.Name()+"\t"+typeString(f.Type()))
					}
				}
			}
		}
	}
	return lines
}

// methodLines describes the exported methods of a named type, declared
// or promoted (M lines).
func methodLines(qualified string, named *types.Named) []string {
	var lines []string
	for i := 0; i < named.NumMethods(); i++ {
		m := named.Method(i)
		if !m.Exported() {
			continue
		}
		sig := m.Type().(*types.Signature)
		recv := "-"
		if _, ptr := sig.Recv().Type().(*types.Pointer); ptr {
			recv = "*"
		}
		rs := results(sig)
		if !useful(rs) {
			// Kept for the receiver kind, which names the callee.
			rs = ""
		}
		// The parameter count and every result, useful or not: what
		// tells whether the method can implement an interface's.
		shape := fmt.Sprintf("%d\t%s", sig.Params().Len(), results(sig))
		lines = append(lines, "M\t"+qualified+"\t"+recv+"\t"+m.Name()+"\t"+rs+"\t"+shape)
		callee := "(" + qualified + ")." + m.Name()
		if recv == "*" {
			callee = "(*" + qualified + ")." + m.Name()
		}
		lines = append(lines, paramLines(callee, sig)...)
	}
	// Methods promoted from embedded fields (`t.Errorf` on a
	// *testing.T is testing.common's): a call names the method
	// where it is declared, so the line records that type.
	mset := types.NewMethodSet(types.NewPointer(named))
	for i := 0; i < mset.Len(); i++ {
		sel := mset.At(i)
		m := sel.Obj().(*types.Func)
		if len(sel.Index()) == 1 || !m.Exported() {
			continue
		}
		sig := m.Type().(*types.Signature)
		origin := sig.Recv().Type()
		recv := "-"
		if p, ptr := origin.(*types.Pointer); ptr {
			recv = "*"
			origin = p.Elem()
		}
		rs := results(sig)
		if !useful(rs) {
			rs = ""
		}
		shape := fmt.Sprintf("%d\t%s", sig.Params().Len(), results(sig))
		lines = append(lines, "M\t"+qualified+"\t"+recv+"\t"+m.Name()+"\t"+rs+"\t"+shape+"\t"+typeString(origin))
	}
	return lines
}

// paramLines lists the parameters of a function or method (named as the
// resolver names callees) whose type is an interface with methods: the
// library calls those methods on what it is given (`http.Handle`'s
// handler, `sort.Sort`'s data), P lines. A variadic one (`...io.Writer`)
// is marked `+`: it takes every argument from there on.
func paramLines(callee string, sig *types.Signature) []string {
	var lines []string
	params := sig.Params()
	for i := 0; i < params.Len(); i++ {
		t := params.At(i).Type()
		mark := ""
		if sig.Variadic() && i == params.Len()-1 {
			if s, ok := t.(*types.Slice); ok {
				t = s.Elem()
				mark = "+"
			}
		}
		named, ok := t.(*types.Named)
		if !ok || named.Obj().Pkg() == nil {
			continue
		}
		iface, ok := named.Underlying().(*types.Interface)
		if !ok || iface.NumMethods() == 0 {
			continue
		}
		lines = append(lines, fmt.Sprintf("P\t%s\t%d%s\t%s", callee, i, mark, typeString(named)))
	}
	return lines
}

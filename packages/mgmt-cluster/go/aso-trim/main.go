// Command aso-trim keeps, in Azure Service Operator's generated controller registration
// (v2/internal/controllers/controller_resources_gen.go), only the API groups named on its command line, so that the
// ASO controller built from it compiles only those groups' API packages instead of all of them.
//
// The test command runs ASO with --crd-management=none and a --crd-pattern of CAPZ's kinds only
// (packages/mgmt-cluster/src/controllers/managers.ts ASO_CRD_PATTERN): ASO reconciles, converts and validates those
// kinds alone, and every other group's code in the binary is never reached. Dropping those groups changes nothing
// the lane sees and removes most of what the cold build compiles (docs/real-controllers.md#trimmed-aso).
//
// What it drops: every import of github.com/Azure/azure-service-operator/v2/api/<group>/... for another group, every
// statement of the four registration functions (getKnownStorageTypes, getKnownTypes, createScheme,
// getResourceExtensions: one registration, scheme or extension each) that names one of those imports, and every other
// function that names one (the generated index functions). Then every other import the file no longer uses. Pure go/ast: it fails, changing nothing, when the file is not shaped as
// it expects (no import of a kept group, or a group left over).
//
//	aso-trim FILE GROUP...
package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path"
	"strconv"
	"strings"
)

const apiPrefix = "github.com/Azure/azure-service-operator/v2/api/"

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: aso-trim FILE GROUP...")
		os.Exit(2)
	}
	if err := trim(os.Args[1], os.Args[2:]); err != nil {
		fmt.Fprintln(os.Stderr, "aso-trim:", err)
		os.Exit(1)
	}
}

// importName is the name a file refers to an import by: its alias, or the last element of its path.
func importName(spec *ast.ImportSpec) string {
	p, _ := strconv.Unquote(spec.Path.Value)
	if spec.Name != nil {
		return spec.Name.Name
	}
	return path.Base(p)
}

// names reports whether node refers to any of the package names in set (as the X of a selector, pkg.Name).
func names(node ast.Node, set map[string]bool) bool {
	found := false
	ast.Inspect(node, func(n ast.Node) bool {
		if found {
			return false
		}
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && set[id.Name] {
				found = true
				return false
			}
		}
		return true
	})
	return found
}

func trim(file string, groups []string) error {
	keep := map[string]bool{}
	for _, g := range groups {
		keep[g] = true
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.ParseComments)
	if err != nil {
		return err
	}
	dropped := map[string]bool{}
	kept := map[string]bool{}
	for _, spec := range f.Imports {
		p, _ := strconv.Unquote(spec.Path.Value)
		if !strings.HasPrefix(p, apiPrefix) {
			continue
		}
		group := strings.SplitN(strings.TrimPrefix(p, apiPrefix), "/", 2)[0]
		if keep[group] {
			kept[group] = true
		} else {
			dropped[importName(spec)] = true
		}
	}
	for _, g := range groups {
		if !kept[g] {
			return fmt.Errorf("%s imports no package of group %q", file, g)
		}
	}

	// The four registration functions lose the statements that name a dropped group; any other function that names
	// one (the generated index functions) goes whole.
	registrations := map[string]bool{
		"getKnownStorageTypes": false, "getKnownTypes": false, "createScheme": false, "getResourceExtensions": false,
	}
	var decls []ast.Decl
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			decls = append(decls, d)
			continue
		}
		if _, ok := registrations[fn.Name.Name]; ok && fn.Recv == nil {
			registrations[fn.Name.Name] = true
			var body []ast.Stmt
			for _, s := range fn.Body.List {
				if !names(s, dropped) {
					body = append(body, s)
				}
			}
			fn.Body.List = body
		}
		if !names(fn, dropped) {
			decls = append(decls, fn)
		}
	}
	for name, seen := range registrations {
		if !seen {
			return fmt.Errorf("%s has no function %s", file, name)
		}
	}
	f.Decls = decls
	// Comments would otherwise be printed where the dropped code was.
	f.Comments = nil

	// Imports the file still uses, by name (the dropped API groups and whatever only their code needed go).
	used := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				used[id.Name] = true
			}
		}
		return true
	})
	for _, d := range f.Decls {
		gen, ok := d.(*ast.GenDecl)
		if !ok || gen.Tok != token.IMPORT {
			continue
		}
		var specs []ast.Spec
		for _, s := range gen.Specs {
			spec := s.(*ast.ImportSpec)
			name := importName(spec)
			if name == "_" || name == "." || used[name] {
				specs = append(specs, spec)
			}
		}
		gen.Specs = specs
	}
	f.Imports = nil

	var out bytes.Buffer
	if err := format.Node(&out, fset, f); err != nil {
		return err
	}
	left := 0
	for name := range dropped {
		if bytes.Contains(out.Bytes(), []byte(name+".")) {
			left++
		}
	}
	if left > 0 {
		return fmt.Errorf("%d dropped imports are still named in the result", left)
	}
	// Written beside, then renamed: the module cache's files are read-only, and a reader never sees half a file.
	tmp := file + ".trimmed"
	if err := os.WriteFile(tmp, out.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}

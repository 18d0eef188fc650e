// Command kubebuilder-cronjob writes the Go API package of kubebuilder's
// CronJob tutorial from kubebuilder's own sources (a module directory from
// `go mod download`): the scaffold's groupversion_info.go and cronjob_types.go
// templates rendered as `kubebuilder create api --group batch --version v1
// --kind CronJob` renders them, then the edits the tutorial's generator
// (hack/docs/internal/cronjob-tutorial, updateSpec) makes to cronjob_types.go,
// read from its source and replayed. controller-gen then gives the tutorial's
// CRD (test/support/third-party-crds.ts). Nothing of kubebuilder's is copied
// into this repository.
//
// Usage: go run . <kubebuilder module dir> <project dir> <k8s.io/api version>
package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/template"
)

const (
	templatesDir = "pkg/plugins/golang/v4/scaffolds/internal/templates/api"
	tutorialDir  = "hack/docs/internal/cronjob-tutorial"
	typesFile    = "api/v1/cronjob_types.go"
)

func main() {
	if len(os.Args) != 4 {
		fail(fmt.Errorf("usage: kubebuilder-cronjob <kubebuilder module dir> <project dir> <k8s.io/api version>"))
	}
	kubebuilder, project, k8sVersion := os.Args[1], os.Args[2], os.Args[3]
	templates := stringConsts(filepath.Join(kubebuilder, templatesDir))
	data := map[string]any{
		"Boilerplate":     "",
		"SkipApplyConfig": false,
		"Resource": map[string]any{
			"Group": "batch", "QualifiedGroup": "batch.tutorial.kubebuilder.io", "Version": "v1", "Kind": "CronJob", "Plural": "cronjobs",
			"IsRegularPlural": true, "API": map[string]any{"SSA": false, "Namespaced": true},
		},
	}
	write(project, "go.mod", fmt.Sprintf("module tutorial.kubebuilder.io/project\n\ngo 1.24\n\nrequire (\n\tk8s.io/api %s\n\tk8s.io/apimachinery %s\n)\n", k8sVersion, k8sVersion))
	write(project, "api/v1/groupversion_info.go", gofmt(render(templates["groupTemplate"], data)))
	write(project, typesFile, gofmt(render(templates["typesTemplate"], data)))
	replayUpdateSpec(filepath.Join(kubebuilder, tutorialDir), filepath.Join(project, typesFile))
}

// replayUpdateSpec applies each pluginutil.InsertCode and ReplaceInFile call of
// the tutorial's updateSpec that edits cronjob_types.go, in order.
func replayUpdateSpec(dir, file string) {
	consts := stringConsts(dir)
	fset := token.NewFileSet()
	parsed, err := parser.ParseFile(fset, filepath.Join(dir, "generate_cronjob.go"), nil, 0)
	if err != nil {
		fail(err)
	}
	edits := 0
	ast.Inspect(parsed, func(node ast.Node) bool {
		function, ok := node.(*ast.FuncDecl)
		if !ok || function.Name.Name != "updateSpec" {
			return true
		}
		ast.Inspect(function.Body, func(node ast.Node) bool {
			call, ok := node.(*ast.CallExpr)
			if !ok || len(call.Args) != 3 {
				return true
			}
			selector, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || (selector.Sel.Name != "InsertCode" && selector.Sel.Name != "ReplaceInFile") || !mentions(call.Args[0], typesFile) {
				return true
			}
			target, errTarget := evaluate(call.Args[1], consts)
			code, errCode := evaluate(call.Args[2], consts)
			if errTarget != nil || errCode != nil {
				fail(fmt.Errorf("%s: %v %v", fset.Position(call.Pos()), errTarget, errCode))
			}
			edit(file, selector.Sel.Name, target, code)
			edits++
			return false
		})
		return false
	})
	if edits == 0 {
		fail(fmt.Errorf("no edits of %s found in %s/generate_cronjob.go's updateSpec", typesFile, dir))
	}
}

// edit applies one call as pluginutil does; a target it does not find is an
// error, except for the comment-only edits around the license header, which
// an empty boilerplate does not have.
func edit(file, kind, target, code string) {
	contents, err := os.ReadFile(file)
	if err != nil {
		fail(err)
	}
	text := string(contents)
	index := strings.Index(text, target)
	if index == -1 {
		if strings.Contains(target, "limitations under the License.") {
			return
		}
		fail(fmt.Errorf("%s: %q not found in %s", kind, target, file))
	}
	if kind == "InsertCode" {
		text = text[:index+len(target)] + code + text[index+len(target):]
	} else {
		text = strings.ReplaceAll(text, target, code)
	}
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		fail(err)
	}
}

func mentions(expression ast.Expr, text string) bool {
	found := false
	ast.Inspect(expression, func(node ast.Node) bool {
		if literal, ok := node.(*ast.BasicLit); ok && literal.Kind == token.STRING && strings.Contains(literal.Value, text) {
			found = true
		}
		return !found
	})
	return found
}

// stringConsts are the package-level string constants of the Go files in dir
// whose values are string literals joined by +.
func stringConsts(dir string) map[string]string {
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		fail(fmt.Errorf("no Go files in %s", dir))
	}
	consts := map[string]string{}
	for _, file := range files {
		parsed, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			fail(err)
		}
		for _, declaration := range parsed.Decls {
			general, ok := declaration.(*ast.GenDecl)
			if !ok || general.Tok != token.CONST {
				continue
			}
			for _, spec := range general.Specs {
				value := spec.(*ast.ValueSpec)
				for i, name := range value.Names {
					if i < len(value.Values) {
						if text, err := evaluate(value.Values[i], consts); err == nil {
							consts[name.Name] = text
						}
					}
				}
			}
		}
	}
	return consts
}

// evaluate gives the value of a string expression: literals, constants and +.
func evaluate(expression ast.Expr, consts map[string]string) (string, error) {
	switch e := expression.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", fmt.Errorf("not a string: %s", e.Value)
		}
		return strconv.Unquote(e.Value)
	case *ast.Ident:
		if value, ok := consts[e.Name]; ok {
			return value, nil
		}
		return "", fmt.Errorf("unknown constant %s", e.Name)
	case *ast.ParenExpr:
		return evaluate(e.X, consts)
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return "", fmt.Errorf("not a concatenation")
		}
		left, err := evaluate(e.X, consts)
		if err != nil {
			return "", err
		}
		right, err := evaluate(e.Y, consts)
		return left + right, err
	}
	return "", fmt.Errorf("not a string expression")
}

func render(text string, data map[string]any) string {
	parsed, err := template.New("scaffold").Option("missingkey=error").Funcs(template.FuncMap{"lower": strings.ToLower}).Parse(text)
	if err != nil {
		fail(err)
	}
	var out bytes.Buffer
	if err := parsed.Execute(&out, data); err != nil {
		fail(err)
	}
	return out.String()
}

// gofmt formats a rendered template, as kubebuilder's scaffolding does before writing it.
func gofmt(source string) string {
	formatted, err := format.Source([]byte(source))
	if err != nil {
		fail(err)
	}
	return string(formatted)
}

func write(dir, name, content string) {
	file := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		fail(err)
	}
	if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "kubebuilder-cronjob:", err)
	os.Exit(1)
}

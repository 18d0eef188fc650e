//go:build !(js && wasm)

package main

import (
	"bufio"
	"encoding/json"
	"os"
)

// Natively, one request per line on stdin ({"method": …, "request": …}), one answer per line on stdout:
// the same calls as the WebAssembly build, for debugging and for benchmarks against native Go.
// Build it as scripts/build-cel-engine.sh does, with -ldflags=-checklinkname=0 (admit.go links to the
// policy plugins' own compilePolicy): `go build -ldflags=-checklinkname=0 -o /tmp/cel-engine .`
func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		var line struct {
			Method  string          `json:"method"`
			Request json.RawMessage `json:"request"`
		}
		if err := json.Unmarshal(in.Bytes(), &line); err != nil {
			out.Write(encode(failure{Error: err.Error()}))
		} else {
			out.Write(call(line.Method, line.Request))
		}
		out.WriteByte('\n')
		out.Flush()
	}
}

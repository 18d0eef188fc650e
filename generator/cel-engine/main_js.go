//go:build js && wasm

package main

import "syscall/js"

// The loader calls globalThis.shaperCelEngine(method, requestJSON) and gets the answer's JSON text.
func main() {
	js.Global().Set("shaperCelEngine", js.FuncOf(func(_ js.Value, args []js.Value) any {
		return string(call(args[0].String(), []byte(args[1].String())))
	}))
	select {}
}

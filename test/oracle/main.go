// Command shaper-oracle checks what shaper-gen puts on the wire with the
// Kubernetes API machinery's own code, so the tests do not judge the server
// by the server's own idea of the format. It reads newline-delimited JSON
// cases on stdin and writes one JSON result per case to stdout.
//
//	shaper-oracle responses   webhook answers: strict decode, round trip, VerifyAdmissionResponse, patch applied, client-visible Status
//	shaper-oracle invalid     apierrors.NewInvalid's Status for a list of field errors
//	shaper-oracle manifests   a multi-document YAML stream (helm template output), each object strictly decoded into its API type
//	shaper-oracle conversion-responses   ConversionReview answers strictly decoded (apiextensions v1, v1beta1)
//	shaper-oracle convert     the API server's own CR converter calling a conversion webhook: its acceptance checks, restored metadata, errors
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

func main() {
	if len(os.Args) != 2 {
		fail("usage: shaper-oracle responses|invalid|manifests|conversion-responses|convert < input")
	}
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	emit := func(result any) {
		line, err := json.Marshal(result)
		if err != nil {
			fail("encoding a result: %v", err)
		}
		out.Write(append(line, '\n'))
	}
	switch os.Args[1] {
	case "responses":
		eachLine(func(line []byte) { emit(checkResponse(line)) })
	case "invalid":
		eachLine(func(line []byte) { emit(newInvalid(line)) })
	case "manifests":
		data, err := io.ReadAll(os.Stdin)
		if err != nil {
			fail("reading stdin: %v", err)
		}
		for _, result := range checkManifests(data) {
			emit(result)
		}
	case "conversion-responses":
		eachLine(func(line []byte) { emit(checkConversionResponse(line)) })
	case "convert":
		eachLine(func(line []byte) { emit(convertObjects(line)) })
	default:
		fail("unknown mode %q; expected responses, invalid, manifests, conversion-responses or convert", os.Args[1])
	}
}

func eachLine(handle func([]byte)) {
	scanner := bufio.NewScanner(os.Stdin)
	scanner.Buffer(make([]byte, 1<<20), 256<<20)
	for scanner.Scan() {
		if len(scanner.Bytes()) > 0 {
			handle(scanner.Bytes())
		}
	}
	if err := scanner.Err(); err != nil {
		fail("reading stdin: %v", err)
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "shaper-oracle: "+format+"\n", args...)
	os.Exit(2)
}

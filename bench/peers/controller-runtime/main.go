// The controller-runtime peer of the admission benchmark (bench/admission/run.ts):
// the sample's Profile defaulter and validator, and an allow-all validator,
// written as a kubebuilder user writes them and served by controller-runtime's
// webhook.Server.
//
//	controller-runtime-peer --host 127.0.0.1 --port <port> --cert-dir <dir>   (prints "listening <port>" once serving)
package main

import (
	"crypto/tls"
	"flag"
	"fmt"
	"os"
	"time"

	"go.uber.org/zap/zapcore"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

func main() {
	host := flag.String("host", "127.0.0.1", "address to listen on")
	port := flag.Int("port", webhook.DefaultPort, "port to listen on")
	certDir := flag.String("cert-dir", "", "directory holding tls.crt and tls.key")
	flag.Parse()

	// Warn, as the benchmark's `shaper-gen serve` logs.
	ctrl.SetLogger(zap.New(zap.Level(zapcore.WarnLevel)))
	scheme := runtime.NewScheme()
	if err := SchemeBuilder.AddToScheme(scheme); err != nil {
		fail(err)
	}

	server := webhook.NewServer(webhook.Options{
		Host:    *host,
		Port:    *port,
		CertDir: *certDir,
		// kubebuilder's scaffold disables HTTP/2 unless asked (CVE-2023-44487, CVE-2023-39325).
		TLSOpts: []func(*tls.Config){func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} }},
	})
	server.Register("/mutate-profile", admission.WithDefaulter[*Profile](scheme, &ProfileCustomDefaulter{}))
	server.Register("/validate-profile", admission.WithValidator[*Profile](scheme, &ProfileCustomValidator{}))
	server.Register("/validate-allow-all", admission.WithValidator[*Profile](scheme, &AllowAll{}))

	ctx := ctrl.SetupSignalHandler()
	served := make(chan error, 1)
	go func() { served <- server.Start(ctx) }()
	if err := waitUntilServing(server, served); err != nil {
		fail(err)
	}
	fmt.Printf("listening %d\n", *port)
	if err := <-served; err != nil {
		fail(err)
	}
}

func waitUntilServing(server webhook.Server, served <-chan error) error {
	started := server.StartedChecker()
	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case err := <-served:
			return fmt.Errorf("webhook server stopped before serving: %v", err)
		default:
		}
		if started(nil) == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("webhook server not serving after 10 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

// shaper-cert-manager runs cert-manager's own controllers and CA injector,
// from cert-manager's library packages, out of cluster against a kubeconfig.
// It exists because cert-manager's cmd/* modules are not published on the Go
// module proxy; its controllers, issuers and injectors are (in the root
// module). Only what the shaper-webhooks chart needs runs: self-signed and CA
// Issuers, the Certificate lifecycle, CertificateRequest approval and signing,
// and CA injection into webhook configurations. Test harness use only.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sync/errgroup"
	apiext "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	apireg "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	cmscheme "github.com/cert-manager/cert-manager/pkg/api"
	"github.com/cert-manager/cert-manager/pkg/controller"
	"github.com/cert-manager/cert-manager/pkg/controller/cainjector"
	logf "github.com/cert-manager/cert-manager/pkg/logs"

	// Each import registers its controller (or issuer type) with cert-manager's registry.
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/approver"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/ca"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/selfsigned"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/issuing"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/keymanager"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/readiness"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/requestmanager"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/revisionmanager"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/trigger"
	_ "github.com/cert-manager/cert-manager/pkg/controller/clusterissuers"
	_ "github.com/cert-manager/cert-manager/pkg/controller/issuers"
	_ "github.com/cert-manager/cert-manager/pkg/issuer/ca"
	_ "github.com/cert-manager/cert-manager/pkg/issuer/selfsigned"
)

var controllers = []string{
	"issuers", "clusterissuers",
	"certificates-trigger", "certificates-issuing", "certificates-key-manager",
	"certificates-request-manager", "certificates-readiness", "certificates-revision-manager",
	"certificaterequests-approver", "certificaterequests-issuer-selfsigned", "certificaterequests-issuer-ca",
}

func main() {
	// controller-runtime already registers --kubeconfig on the global flag set; use it rather than redefine it.
	if flag.Lookup("kubeconfig") == nil {
		flag.String("kubeconfig", "", "kubeconfig of the cluster")
	}
	clusterResourceNamespace := flag.String("cluster-resource-namespace", "cert-manager", "namespace of ClusterIssuer secrets")
	flag.Parse()
	kubeconfig := flag.Lookup("kubeconfig").Value.String()

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	ctx = logf.NewContext(ctx, logf.Log, "shaper-cert-manager")
	if err := run(ctx, kubeconfig, *clusterResourceNamespace); err != nil {
		fmt.Fprintln(os.Stderr, "shaper-cert-manager:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, kubeconfig, clusterResourceNamespace string) error {
	factory, err := controller.NewContextFactory(ctx, controller.ContextOptions{
		Kubeconfig:         kubeconfig,
		KubernetesAPIQPS:   50,
		KubernetesAPIBurst: 100,
		IssuerOptions:      controller.IssuerOptions{ClusterResourceNamespace: clusterResourceNamespace},
	})
	if err != nil {
		return fmt.Errorf("controller context: %w", err)
	}
	base, err := factory.Build()
	if err != nil {
		return err
	}

	g, ctx := errgroup.WithContext(ctx)
	known := controller.Known()
	for _, name := range controllers {
		constructor, ok := known[name]
		if !ok {
			return fmt.Errorf("cert-manager has no controller %q", name)
		}
		c, err := constructor(factory)
		if err != nil {
			return fmt.Errorf("controller %s: %w", name, err)
		}
		g.Go(func() error { return c.Run(2, ctx) })
	}
	base.SharedInformerFactory.Start(ctx.Done())
	base.KubeSharedInformerFactory.Start(ctx.Done())
	base.HTTP01ResourceMetadataInformersFactory.Start(ctx.Done())

	g.Go(func() error { return runCAInjector(ctx, kubeconfig) })
	return g.Wait()
}

func runCAInjector(ctx context.Context, kubeconfig string) error {
	restConfig, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	// The injector's server-side-apply field manager is derived from the user agent.
	restConfig.UserAgent = "cert-manager-cainjector/shaper-gen-kindenv"
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, cmscheme.AddToScheme, apiext.AddToScheme, apireg.AddToScheme} {
		if err := add(scheme); err != nil {
			return err
		}
	}
	ctrl.SetLogger(logf.Log)
	mgr, err := ctrl.NewManager(restConfig, ctrl.Options{
		Scheme:                 scheme,
		LeaderElection:         false,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	})
	if err != nil {
		return fmt.Errorf("cainjector manager: %w", err)
	}
	if err := cainjector.RegisterAllInjectors(ctx, mgr, cainjector.SetupOptions{
		EnableCertificatesDataSource: true,
		EnabledReconcilersFor: map[string]bool{
			"mutatingwebhookconfiguration":   true,
			"validatingwebhookconfiguration": true,
			// CRDs with a conversion webhook carry inject-ca-from too.
			"customresourcedefinition": true,
		},
	}); err != nil {
		return fmt.Errorf("cainjector: %w", err)
	}
	return mgr.Start(ctx)
}

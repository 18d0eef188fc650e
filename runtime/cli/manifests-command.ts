/** The `shaper-gen manifests` command's flags; the scan and the rendering are @shaper-gen/generator's. */
import { Command } from 'commander';
import type { ManifestsFlags } from './generator-contract.js';
import { withGenerator } from './load-generator.js';

export function manifestsCommand(): Command {
  return new Command('manifests')
    .description("scan @Webhook decorators and generate the chart's webhook configurations and the handlers index")
    .option('-c, --config <file>', 'generator config file (default: ./shaper.yaml if present)')
    .option('--check', 'exit 1 if the committed generated files are stale; write nothing')
    .option('--stdout', 'print the generated files instead of writing them')
    .option('--static <dir>', "write the webhooks and policies as static admission files for kube-apiserver's staticManifestsDir (Kubernetes 1.37) into <dir> instead of the chart")
    .option('--static-url <url>', "with --static: the https URL the API server calls the webhooks at, each webhook's path appended (default: static.url in shaper.yaml)")
    .option('--static-ca-bundle <file>', "with --static: the PEM of the CA that signed the webhook server's certificate (default: static.caBundle in shaper.yaml)")
    .action(async (flags: ManifestsFlags) => {
      process.exitCode = await withGenerator('manifests', (generator) => generator.manifests(flags));
    });
}

/**
 * `shaper-gen create <what>`: adds to a project, as kubebuilder's `create`
 * does. `create api` writes an API type (the group and version's package, the
 * kind's interface) and, on request, a validating and a defaulting webhook for
 * it with their tests; `create conversion` the `@Conversion` class between a
 * kind's versions, with its test; `create types` TypeScript types from CRDs
 * another project owns. The scaffolding is @shaper-gen/generator's.
 */
import { Command, Option } from 'commander';
import type { CreateApiFlags, CreateConversionFlags, CreateTypesFlags } from './generator-contract.js';
import { withGenerator } from './load-generator.js';

export function createCommand(): Command {
  return new Command('create')
    .description(
      'add to the project: an API type with its CRD, and webhooks for it (create api); the conversion between its versions (create conversion); TypeScript types from CRDs another project owns (create types)',
    )
    .addCommand(createApiCommand())
    .addCommand(createConversionCommand())
    .addCommand(createTypesCommand());
}

function createTypesCommand(): Command {
  return new Command('types')
    .summary("TypeScript types from CRDs another project owns (controller-gen's, a release's), kept in step by manifests")
    .description(
      "write TypeScript interfaces for every version of every kind the given CustomResourceDefinitions define, one module per group and version (<out>/<group>/<version>.ts) with GROUP, VERSION and a CachedResource per resource for @Webhook and @ValidatingPolicy rules, and record the CRDs under `types` in shaper.yaml: `shaper-gen manifests` then rewrites the modules when the CRDs change, `manifests --check` fails until it has, and policies on these kinds are type-checked against the CRDs' schemas. Overwrites only modules it wrote.",
    )
    .requiredOption('--from <crds...>', 'CRD YAML files, directories of them (their *.yaml and *.yml) or globs')
    .option('--out <directory>', 'where the modules go (default: src/api)')
    .option('-c, --config <file>', 'generator config file (default: ./shaper.yaml if present)')
    .action(async (flags: CreateTypesFlags) => {
      process.exitCode = await withGenerator('create types', (generator) => generator.createTypes(flags));
    });
}

function createConversionCommand(): Command {
  return new Command('conversion')
    .summary("add the conversion webhook between a kind's versions: a @Conversion class and its round-trip test")
    .description(
      'add the conversion webhook of a kind declared in several versions: a @Conversion class with one { toHub, fromHub } pair per version other than the hub (each copying every field, to be changed where the versions differ) and a test converting through it both ways. `shaper-gen manifests` then points the CRD at it. Never overwrites a file.',
    )
    .requiredOption('--group <group>', "the kind's API group")
    .requiredOption('--kind <Kind>', 'the kind, declared in at least two versions')
    .requiredOption('--hub <version>', 'the version every other converts through (often the newest)')
    .option('-c, --config <file>', 'generator config file (default: ./shaper.yaml if present)')
    .action(async (flags: CreateConversionFlags) => {
      process.exitCode = await withGenerator('create conversion', (generator) => generator.createConversion(flags));
    });
}

function createApiCommand(): Command {
  return new Command('api')
    .summary('add a kind: its API package and interface, from which manifests writes the CRD; optionally webhooks for it')
    .description(
      "add a kind to the project: its group and version's API package (if new) and its interface with spec, status and @shaper: markers, from which `shaper-gen manifests` writes the CRD; optionally a validating and a defaulting webhook with tests. Never overwrites a file.",
    )
    .requiredOption('--group <group>', 'API group, a DNS subdomain with a dot (e.g. webapp.example.com)')
    .requiredOption('--version <version>', 'API version: v1, v1alpha1, v1beta2, …; a kind that exists in other versions gets this one added')
    .requiredOption('--kind <Kind>', 'kind, UpperCamelCase (e.g. CronJob)')
    .option('--plural <plural>', 'resource name (default: the kind in lower case, made plural by English rules)')
    .addOption(new Option('--cluster', 'cluster-scoped (default: namespaced)').conflicts('namespaced'))
    .addOption(new Option('--namespaced', 'namespaced (the default, unless the kind exists as cluster-scoped)'))
    .option('--validator', 'also write a validating webhook for the kind, with its test')
    .option('--defaulter', 'also write a defaulting (mutating) webhook for the kind, with its test')
    .option('--dir <directory>', "the API package's directory (default: the one declaring the group and version, else src/api/<group's first label>/<version>)")
    .option('-c, --config <file>', 'generator config file (default: ./shaper.yaml if present)')
    .action(async (flags: CreateApiFlags) => {
      process.exitCode = await withGenerator('create api', (generator) => generator.createApi(flags));
    });
}

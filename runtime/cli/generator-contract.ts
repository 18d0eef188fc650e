/**
 * The contract between the CLI (in the runtime package) and @shaper-gen/generator:
 * the flags the CLI parses for each generator command, and the commands the
 * generator's entry module exports. The generator's `index.ts` is typed by
 * `GeneratorCommands`, so the compiler checks both sides against this file.
 */

export interface InitFlags {
  name?: string;
  image?: string;
  force?: boolean;
  /** commander's --no-install: false when given. */
  install?: boolean;
}

export interface ManifestsFlags {
  config?: string;
  check?: boolean;
  stdout?: boolean;
  /** Write static admission files (kube-apiserver's staticManifestsDir) into this directory instead of the chart. */
  static?: string;
  /** The webhooks' URL base for --static (else shaper.yaml's static.url). */
  staticUrl?: string;
  /** A PEM file of the CA the API server trusts the webhook server by, for --static (else shaper.yaml's static.caBundle). */
  staticCaBundle?: string;
}

export interface DevFlags {
  config?: string;
  handlers?: string;
  port?: number;
}

export interface CreateApiFlags {
  group: string;
  version: string;
  kind: string;
  plural?: string;
  cluster?: boolean;
  namespaced?: boolean;
  validator?: boolean;
  defaulter?: boolean;
  dir?: string;
  config?: string;
}

export interface CreateConversionFlags {
  group: string;
  kind: string;
  hub: string;
  config?: string;
}

export interface CreateTypesFlags {
  from: string[];
  out?: string;
  config?: string;
}

/** The generator's entry module's default export; each command returns its exit code. */
export interface GeneratorCommands {
  init(dir: string, flags: InitFlags): Promise<number>;
  manifests(flags: ManifestsFlags): Promise<number>;
  dev(flags: DevFlags): Promise<number>;
  createApi(flags: CreateApiFlags): Promise<number>;
  createConversion(flags: CreateConversionFlags): Promise<number>;
  createTypes(flags: CreateTypesFlags): Promise<number>;
}

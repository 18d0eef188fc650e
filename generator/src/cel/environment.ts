/**
 * The CEL environment kube-apiserver compiles admission expressions in
 * (k8s.io/apiserver pkg/admission/plugin/cel): its variables with their types
 * and its function libraries (library.ts), for @marcbachmann/cel-js. Webhook
 * matchConditions and policy expressions share it; a policy's `object` is
 * typed from its resource's schema (schema-types.ts). The library is loaded on
 * first use, so that a generator run without CEL does not pay for it.
 */
import { createRequire } from 'node:module';
import type { Environment } from '@marcbachmann/cel-js';
import { declareKubernetesLibraries, type LibraryMode } from './library.js';

/** cel-go's parser limits (parser.go): nesting depth. */
export const MAX_RECURSION_DEPTH = 250;
/** cel-js limits cel-go does not have, raised out of the way. */
const NO_LIMIT = 10_000_000;

export type CelModule = typeof import('@marcbachmann/cel-js');

let celModule: CelModule | undefined;

export function loadCel(): CelModule {
  // Synchronous require of an ES module (Node ≥ 22.12): loaded on first use only.
  return (celModule ??= createRequire(import.meta.url)('@marcbachmann/cel-js') as CelModule);
}

export interface EnvironmentOptions {
  /** Registers types the variables refer to, before the variables are declared; returns the type of `object` and `oldObject` (default dyn). */
  readonly declare?: (env: Environment) => string | undefined;
  /** `params` is declared (a policy with paramKind; webhooks never have it). */
  readonly params?: boolean;
  /** `authorizer` is declared (every admission expression but a messageExpression). */
  readonly authorizer?: boolean;
  /** Type-check only (default), or also evaluate with local implementations of the libraries. */
  readonly mode?: LibraryMode;
}

/** cel-go's options as the API server sets them, and the Kubernetes libraries; no variables (each use declares its own). */
export function kubernetesCelEnvironment(mode: LibraryMode = 'check'): Environment {
  // Homogeneous literals are checked in validators.ts, which exempts string.format's arguments as cel-go does.
  const env = new (loadCel().Environment)({
    enableOptionalTypes: true,
    homogeneousAggregateLiterals: false,
    limits: { maxDepth: MAX_RECURSION_DEPTH, maxAstNodes: NO_LIMIT, maxListElements: NO_LIMIT, maxMapEntries: NO_LIMIT, maxCallArguments: NO_LIMIT },
  });
  declareKubernetesLibraries(env, mode);
  return env;
}

/** A fresh environment with the API server's admission variables. */
export function admissionEnvironment(options: EnvironmentOptions = {}): Environment {
  const gvk = { group: 'string', version: 'string', kind: 'string' };
  const gvr = { group: 'string', version: 'string', resource: 'string' };
  const env = kubernetesCelEnvironment(options.mode);
  const objectType = options.declare?.(env) ?? 'dyn';
  env.registerVariable('object', objectType).registerVariable('oldObject', objectType);
  if (options.authorizer ?? true) env.registerVariable('authorizer', 'kubernetes.authorization.Authorizer');
  if (options.params) env.registerVariable('params', 'dyn');
  env
    .registerVariable({
      name: 'request',
      schema: {
        kind: gvk,
        resource: gvr,
        subResource: 'string',
        requestKind: gvk,
        requestResource: gvr,
        requestSubResource: 'string',
        name: 'string',
        namespace: 'string',
        operation: 'string',
        userInfo: { username: 'string', uid: 'string', groups: 'list<string>', extra: 'map<string, list<string>>' },
        dryRun: 'bool',
        options: 'dyn',
      },
    })
    .registerVariable({
      name: 'namespaceObject',
      schema: {
        metadata: {
          name: 'string',
          generateName: 'string',
          namespace: 'string',
          labels: 'map<string, string>',
          annotations: 'map<string, string>',
          UID: 'string',
          creationTimestamp: 'google.protobuf.Timestamp',
          deletionGracePeriodSeconds: 'int',
          deletionTimestamp: 'google.protobuf.Timestamp',
          generation: 'int',
          resourceVersion: 'string',
          finalizers: 'list<string>',
        },
        spec: { finalizers: 'list<string>' },
        status: { conditions: 'list<dyn>', phase: 'string' },
      },
    });
  return env;
}

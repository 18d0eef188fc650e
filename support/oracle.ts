/**
 * The wire-format oracle (test/oracle, built by scripts/install-oracle.sh):
 * Kubernetes' own Go types and functions judging what shaper-gen sends.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from './repo-root.js';

const ORACLE_SOURCES = path.join(REPO_ROOT, 'test/oracle');

/** One webhook answer as the API server would receive it. */
export interface ResponseCase {
  /** The HTTP response body, byte for byte. */
  body: string;
  /** The request's uid ('' when the request had none). */
  uid: string;
  mutating: boolean;
  /** The webhook's name in its configuration, as the API server quotes it to clients. */
  webhook: string;
  /** The request's object, to which the API server applies a patch. */
  object?: unknown;
}

export interface OracleStatus {
  metadata: Record<string, never>;
  status?: string;
  message?: string;
  reason?: string;
  details?: { name?: string; group?: string; kind?: string; causes?: { reason?: string; message?: string; field?: string }[] };
  code?: number;
}

export interface ResponseVerdict {
  /** Everything the Go side found wrong: unknown or duplicate keys, values lost in the round trip, VerifyAdmissionResponse errors, undecodable patches. */
  problems: string[];
  apiVersion?: string;
  allowed: boolean;
  warnings?: string[];
  /** The Status a client of the API server receives for a denial (webhookerrors.ToStatusErr). */
  clientStatus?: OracleStatus;
  /** The patch's operations, decoded. */
  patch?: unknown[];
  /** The object after the API server's JSON Patch library applied the patch. */
  patched?: unknown;
}

/** A field error as apimachinery's field.Error holds it. */
export interface GoFieldError {
  type: string;
  field: string;
  value?: unknown;
  detail: string;
}

export interface ManifestVerdict {
  apiVersion: string;
  kind: string;
  name: string;
  problems: string[];
  skipped?: boolean;
}

/**
 * The oracle built from this checkout's test/oracle sources: scripts/install-oracle.sh keys each build by the
 * hash of its sources, so checkouts with different oracles share the cache (the bin/ link is whichever built last).
 */
export function oracleBinary(): string {
  const cache = process.env.SHAPER_GEN_CACHE ?? path.join(os.homedir(), '.cache', 'shaper-gen');
  const binary = path.join(cache, 'tools', `oracle-${oracleSourcesHash()}`, 'shaper-oracle');
  if (!existsSync(binary)) throw new Error(`the wire-format oracle of these sources is not built at ${binary}; run: bash scripts/install-oracle.sh`);
  return binary;
}

/** What install-oracle.sh hashes: go.mod, go.sum, then the .go files in name order. */
function oracleSourcesHash(): string {
  const files = [
    'go.mod',
    'go.sum',
    ...readdirSync(ORACLE_SOURCES)
      .filter((name) => name.endsWith('.go'))
      .sort(),
  ];
  const hash = createHash('sha256');
  for (const file of files) hash.update(readFileSync(path.join(ORACLE_SOURCES, file)));
  return hash.digest('hex').slice(0, 12);
}

function run(mode: string, input: string): unknown[] {
  const out = execFileSync(oracleBinary(), [mode], { input, maxBuffer: 256 * 1024 * 1024 }).toString('utf8');
  return out
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

const ndjson = (items: readonly unknown[]) => items.map((item) => JSON.stringify(item)).join('\n') + '\n';

/** Judges webhook answers, one verdict per case, in order. */
export function judgeResponses(cases: readonly ResponseCase[]): ResponseVerdict[] {
  return run('responses', ndjson(cases)) as ResponseVerdict[];
}

/** apierrors.NewInvalid(kind, name, errors).ErrStatus, computed by apimachinery itself. */
export function newInvalid(kind: { group: string; kind: string }, name: string, errors: readonly GoFieldError[]): OracleStatus {
  return run('invalid', ndjson([{ ...kind, name, errors }]))[0] as OracleStatus;
}

/** Every object of a YAML stream, strictly decoded into its Go API type. */
export function judgeManifests(yamlStream: string): ManifestVerdict[] {
  return run('manifests', yamlStream) as ManifestVerdict[];
}

/** A ConversionReview answer strictly decoded into apiextensions.k8s.io v1 or v1beta1. */
export interface ConversionResponseVerdict {
  /** Unknown or duplicate keys, values lost in the round trip, an apiVersion or kind the API server does not decode. */
  problems: string[];
  apiVersion?: string;
  uid: string;
  /** response.result as the API server reads it. */
  status?: string;
  message?: string;
  convertedObjects: unknown[];
}

/** What the API server would ask of a conversion webhook: its CRD's conversion settings and the objects it converts. */
export interface ConvertCase {
  /** The webhook's URL (clientConfig.url) and the PEM CA bundle that verifies its certificate. */
  url: string;
  caBundle: string;
  group: string;
  kind: string;
  plural: string;
  /** The versions the CRD serves. */
  versions: string[];
  /** The CRD's conversionReviewVersions, in order of preference. */
  conversionReviewVersions: string[];
  desiredAPIVersion: string;
  objects: unknown[];
  /** One list request (the API server sends only the objects not yet in the desired version), or each object alone. */
  list: boolean;
}

export interface ConvertVerdict {
  /** Strict decode problems of every answer the webhook sent. */
  problems: string[];
  /** ConversionReviews the API server sent. */
  requests: number;
  /** The objects as the API server keeps them (metadata restored but for labels and annotations), in input order. */
  converted?: unknown[];
  /** The API server's error when it refused the conversion, as a client reads it in the Status message. */
  error?: string;
}

/** Strictly decodes ConversionReview answers, one verdict per body, in order. */
export function judgeConversionResponses(bodies: readonly string[]): ConversionResponseVerdict[] {
  return run('conversion-responses', ndjson(bodies.map((body) => ({ body })))) as ConversionResponseVerdict[];
}

/** Runs the API server's own CR converter (apiextensions-apiserver) against a conversion webhook, one verdict per case. */
export function convertThroughApiServer(cases: readonly ConvertCase[]): ConvertVerdict[] {
  return run('convert', ndjson(cases)) as ConvertVerdict[];
}

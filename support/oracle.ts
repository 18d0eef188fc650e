/**
 * The wire-format oracle (test/oracle, built by scripts/install-oracle.sh):
 * Kubernetes' own Go types and functions judging what shaper-gen sends.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

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

export function oracleBinary(): string {
  const cache = process.env.SHAPER_GEN_CACHE ?? path.join(os.homedir(), '.cache', 'shaper-gen');
  const binary = path.join(cache, 'bin', 'shaper-oracle');
  if (!existsSync(binary)) throw new Error(`the wire-format oracle is not built at ${binary}; run: bash scripts/install-oracle.sh`);
  return binary;
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

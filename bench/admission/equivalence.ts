/**
 * Before anything is timed: both servers must give the same answer to every
 * case of equivalence-cases.ts, or the comparison would not be like for like.
 *
 * Compared: the uid echoed, allowed, the status code, the whole metav1.Status
 * of a denial (message, reason, details and causes), warnings, and for a
 * patch the object it produces (the operations themselves may differ in
 * order and form: controller-runtime diffs the re-encoded typed object).
 *
 * The one difference removed before comparing, because it is not a
 * difference to the API server: controller-runtime allows with
 * `status: { code: 200 }`, serve allows with no status, which the API
 * server reads as the same thing. Nothing else is excluded.
 */
import https from 'node:https';
import { isDeepStrictEqual } from 'node:util';
import fastJsonPatch from 'fast-json-patch';
import { equivalenceCases, type AdmissionReviewRequest, type EquivalenceCase } from './equivalence-cases.ts';

interface AdmissionResponse {
  uid?: string;
  allowed?: boolean;
  status?: { code?: number; reason?: string; message?: string; details?: { causes?: unknown[] } };
  patch?: string;
  patchType?: string;
  warnings?: string[];
}

export interface Endpoint {
  name: string;
  port: number;
}

interface Answer {
  uid: string | undefined;
  allowed: boolean | undefined;
  code: number | undefined;
  denial: AdmissionResponse['status'] | undefined;
  warnings: string[];
  patched: unknown;
  patchOperations: number;
}

export function postReview(port: number, urlPath: string, review: unknown): Promise<AdmissionResponse> {
  const body = JSON.stringify(review);
  return new Promise((resolve, reject) => {
    const request = https.request(
      {
        host: '127.0.0.1',
        port,
        path: urlPath,
        method: 'POST',
        rejectUnauthorized: false,
        agent: false,
        timeout: 10_000,
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          try {
            const parsed = JSON.parse(text) as { response?: AdmissionResponse };
            if (response.statusCode !== 200 || !parsed.response) throw new Error('no AdmissionReview response');
            resolve(parsed.response);
          } catch {
            reject(new Error(`POST ${urlPath} on port ${port}: HTTP ${response.statusCode}: ${text.slice(0, 500)}`));
          }
        });
      },
    );
    request.on('timeout', () => request.destroy(new Error(`POST ${urlPath} on port ${port}: no answer within 10 s`)));
    request.on('error', reject);
    request.end(body);
  });
}

function answerOf(response: AdmissionResponse, review: AdmissionReviewRequest): Answer {
  const object = review.request.object;
  let patched: unknown = object;
  let patchOperations = 0;
  if (response.patch !== undefined) {
    if (response.patchType !== 'JSONPatch') throw new Error(`patchType ${String(response.patchType)}, expected JSONPatch`);
    const operations = JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8')) as fastJsonPatch.Operation[];
    patchOperations = operations.length;
    patched = fastJsonPatch.applyPatch(structuredClone(object), operations, true, false).newDocument;
  }
  return {
    uid: response.uid,
    allowed: response.allowed,
    // Absent on an allow means 200 to the API server (see the module comment).
    code: response.status?.code ?? (response.allowed ? 200 : undefined),
    denial: response.allowed ? undefined : response.status,
    warnings: response.warnings ?? [],
    patched,
    patchOperations,
  };
}

const MAX_REPORTED_PATHS = 10;
const shown = (value: unknown) => {
  const text = value === undefined ? '(absent)' : JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 200)}… (${text.length} characters)` : text;
};

/** Where two JSON values differ, as `/json/pointer: a vs b` lines (the first few only). */
function pathDifferences(a: unknown, b: unknown, at = ''): string[] {
  if (isDeepStrictEqual(a, b)) return [];
  const bothObjects = typeof a === 'object' && a !== null && typeof b === 'object' && b !== null && Array.isArray(a) === Array.isArray(b);
  if (!bothObjects) return [`${at || '/'}: ${shown(a)} vs ${shown(b)}`];
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  const found: string[] = [];
  for (const key of keys) {
    found.push(...pathDifferences((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${at}/${key}`));
    if (found.length >= MAX_REPORTED_PATHS) break;
  }
  return found.slice(0, MAX_REPORTED_PATHS);
}

/** What the answers are compared on: everything, or (with a server that words its denials differently) all but the Status. */
export type Compared = readonly ('allowed' | 'code' | 'denial' | 'warnings' | 'patched')[];
const EVERYTHING: Compared = ['allowed', 'code', 'denial', 'warnings', 'patched'];

function differences(a: Answer, b: Answer, review: AdmissionReviewRequest, compared: Compared): string[] {
  const found: string[] = [];
  const uid = review.request.uid;
  if (a.uid !== uid || b.uid !== uid) found.push(`uid: expected ${uid}, got ${a.uid} and ${b.uid}`);
  for (const key of compared) {
    for (const difference of pathDifferences(a[key], b[key])) found.push(`${key} ${difference}`);
  }
  return found;
}

function outcome(answer: Answer): string {
  if (answer.allowed) return answer.patchOperations > 0 ? 'allowed, patched' : 'allowed';
  const causes = answer.denial?.details?.causes?.length ?? 0;
  return `denied ${answer.code} ${answer.denial?.reason ?? ''}${causes ? ` (${causes} ${causes === 1 ? 'cause' : 'causes'})` : ''}`;
}

export interface EquivalenceResult {
  cases: number;
  rows: { path: string; name: string; outcome: string; patchOperations: [number, number] }[];
  mismatches: { path: string; name: string; differences: string[] }[];
}

/** Sends every case to both endpoints and compares the answers. */
export async function checkEquivalence(a: Endpoint, b: Endpoint, cases: EquivalenceCase[] = equivalenceCases(), compared: Compared = EVERYTHING): Promise<EquivalenceResult> {
  const result: EquivalenceResult = { cases: cases.length, rows: [], mismatches: [] };
  for (const { name, path, review } of cases) {
    const [answerA, answerB] = (await Promise.all([postReview(a.port, path, review), postReview(b.port, path, review)])).map((response) => answerOf(response, review)) as [Answer, Answer];
    const found = differences(answerA, answerB, review, compared);
    if (found.length > 0) result.mismatches.push({ path, name, differences: found });
    result.rows.push({
      path,
      name,
      outcome: found.length > 0 ? `${outcome(answerA)} / ${outcome(answerB)}` : outcome(answerA),
      patchOperations: [answerA.patchOperations, answerB.patchOperations],
    });
  }
  return result;
}

export function formatEquivalence(result: EquivalenceResult, a: Endpoint, b: Endpoint): string {
  const lines = [
    `| path | case | outcome (both) | patch ops ${a.name} / ${b.name} |`,
    '|---|---|---|---:|',
    ...result.rows.map((row) => `| ${row.path} | ${row.name} | ${row.outcome} | ${row.patchOperations[0]} / ${row.patchOperations[1]} |`),
  ];
  for (const mismatch of result.mismatches) lines.push('', `MISMATCH ${mismatch.path} ${mismatch.name} (${a.name} vs ${b.name}):`, ...mismatch.differences.map((d) => `  ${d}`));
  return lines.join('\n');
}

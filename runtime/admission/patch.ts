/**
 * The JSON Patch (RFC 6902) a mutating webhook answers with: the difference
 * between the object as received and as the defaulter left it.
 */
import fastJsonPatch from 'fast-json-patch';
import type { KubernetesObject } from '../contract.js';

export type PatchOperation = fastJsonPatch.Operation;

/** The operations that turn `original` into `mutated`; empty when nothing changed. */
export function diffObjects(original: KubernetesObject, mutated: KubernetesObject): PatchOperation[] {
  return fastJsonPatch.compare(original, mutated);
}

/** Base64 of the patch document, as AdmissionResponse.patch carries it. */
export function encodePatch(operations: readonly PatchOperation[]): string {
  return Buffer.from(JSON.stringify(operations)).toString('base64');
}

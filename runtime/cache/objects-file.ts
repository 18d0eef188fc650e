/**
 * `serve --dev --objects <file>`: what `ctx.cache` holds when there is no
 * cluster to read, from a YAML file keyed like the test kit's `objects`
 * option: by resource as kubectl names it, each a list of objects.
 *
 *   profiles.shaper.io:
 *     - { apiVersion: shaper.io/v1alpha1, kind: Profile, metadata: { name: gold, namespace: default }, spec: { tier: gold } }
 */
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import type { KubernetesObject } from '../webhook/contract.js';
import { ConfigError, type Problem } from '../problems.js';
import { MemoryObjects } from './memory-objects.js';

export async function readObjectsFile(file: string): Promise<MemoryObjects> {
  const problem = (message: string): never => {
    throw new ConfigError([{ path: [], message: `objects file ${file}: ${message}` } satisfies Problem], 'objects file');
  };
  let text = '';
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    problem((error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message);
  }
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    problem(`not YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) problem('must map resources (e.g. profiles.shaper.io) to lists of objects');
  const objects: Record<string, KubernetesObject[]> = {};
  for (const [resource, list] of Object.entries(document as Record<string, unknown>)) {
    if (!Array.isArray(list)) problem(`${resource} must be a list of objects`);
    (list as unknown[]).forEach((object, index) => {
      const name = (object as KubernetesObject | null)?.metadata?.name;
      if (typeof name !== 'string' || name === '') problem(`${resource}[${index}] needs metadata.name`);
    });
    objects[resource] = list as KubernetesObject[];
  }
  return new MemoryObjects(objects);
}

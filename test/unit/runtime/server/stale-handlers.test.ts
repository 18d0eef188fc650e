import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { staleHandlersWarnings } from '../../../../runtime/server/stale-handlers.js';

let dir: string;
const write = (file: string, content: string, secondsAgo: number) => {
  mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  writeFileSync(path.join(dir, file), content);
  const at = Date.now() / 1000 - secondsAgo;
  utimesSync(path.join(dir, file), at, at);
};

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'shaper-gen-stale-'));
  write('shaper.yaml', 'apiVersion: shaper-gen.io/v1alpha1\nkind: GeneratorConfig\nsources: ["src/**/*.ts"]\nhandlersModule: src/webhooks.generated.ts\n', 100);
  write('src/webhooks.generated.ts', 'export const webhooks = [];\n', 50);
  write('src/hook.ts', '@Webhook({})\nexport class A {}\n', 60);
  write('src/util.ts', 'export const x = 1;\n', 10);
  write('dist/webhooks.generated.js', 'export const webhooks = [];\n', 40);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('serve --dev on stale handlers', () => {
  it('says nothing when the generated and compiled modules are newer than every decorated source', () => {
    expect(staleHandlersWarnings(['dist/webhooks.generated.js'], dir)).toEqual([]);
  });

  it('names a decorated source edited after generation, and a compiled module older than the generated one', () => {
    write('src/hook.ts', '@Webhook({})\nexport class A {}\n', 5);
    write('dist/webhooks.generated.js', 'export const webhooks = [];\n', 70);
    expect(staleHandlersWarnings(['dist/webhooks.generated.js'], dir)).toEqual([
      'src/hook.ts changed after src/webhooks.generated.ts was written: if @Webhook options changed, run shaper-gen manifests and rebuild (shaper-gen dev does both)',
      'dist/webhooks.generated.js is older than src/webhooks.generated.ts: rebuild (npm run build)',
    ]);
  });

  it('says when the handlers module was never generated, and nothing outside a project', () => {
    rmSync(path.join(dir, 'src/webhooks.generated.ts'));
    expect(staleHandlersWarnings([], dir)).toEqual(['src/webhooks.generated.ts does not exist: run shaper-gen manifests (or shaper-gen dev)']);
    rmSync(path.join(dir, 'shaper.yaml'));
    expect(staleHandlersWarnings([], dir)).toEqual([]);
  });
});

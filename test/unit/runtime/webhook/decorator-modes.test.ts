/**
 * The same decorated source, compiled by the real TypeScript compiler with
 * TC39 standard decorators and with `experimentalDecorators`, then executed.
 */
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as shaper from '../../../../runtime/index.js';

type Mode = 'standard' | 'experimental';

function compileAndRun(source: string, mode: Mode): Record<string, unknown> {
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.CommonJS,
      experimentalDecorators: mode === 'experimental',
    },
  });
  // Proves the mode really differs: legacy emit calls __decorate, standard emit __esDecorate.
  expect(outputText).toContain(mode === 'experimental' ? '__decorate(' : '__esDecorate(');
  const exports: Record<string, unknown> = {};
  const require = (specifier: string) => {
    if (specifier !== 'shaper-gen') throw new Error(`unexpected import ${specifier}`);
    return shaper;
  };
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- runs the module TypeScript just compiled, as CommonJS
  new Function('require', 'exports', outputText)(require, exports);
  return exports;
}

const RULES = "[{ groups: ['shaper.io'], versions: ['v1alpha1'], resources: ['profiles'], operations: ['CREATE'] }]";

describe.each<Mode>(['standard', 'experimental'])('@Webhook with %s decorators', (mode) => {
  it('attaches the resolved options to the class, defaults applied', () => {
    const exports = compileAndRun(
      `import { Webhook } from 'shaper-gen';
       @Webhook({ path: '/mutate-profile', mutating: true, rules: ${RULES}, timeoutSeconds: 5 })
       export class ProfileDefaulter { default(obj: any) { obj.spec = {}; } }`,
      mode,
    );
    expect(shaper.webhookOf(exports.ProfileDefaulter)).toMatchObject({
      path: '/mutate-profile',
      mutating: true,
      name: 'mutate-profile.shaper.io',
      timeoutSeconds: 5,
      failurePolicy: 'Fail',
      reinvocationPolicy: 'Never',
    });
    expect(shaper.webhookOf(class Plain {})).toBeUndefined();
  });

  it('rejects invalid options when the class is defined, listing every problem', () => {
    expect(() =>
      compileAndRun(
        `import { Webhook } from 'shaper-gen';
         @Webhook({ path: '/validate-x', mutating: false, rules: [], timeoutSeconds: 60 } as any)
         export class X { validateCreate() {} }`,
        mode,
      ),
    ).toThrow('invalid @Webhook options (/validate-x):\n  rules: rules must list at least one rule\n  timeoutSeconds: timeoutSeconds must be a whole number from 1 to 30, got number 60');
  });

  it('rejects a class that does not implement the handler contract', () => {
    expect(() =>
      compileAndRun(
        `import { Webhook } from 'shaper-gen';
         @Webhook({ path: '/validate-x', mutating: false, rules: ${RULES} })
         export class X { check() {} }`,
        mode,
      ),
    ).toThrow('@Webhook("/validate-x"): validating webhook class X must implement at least one of validateCreate, validateUpdate, validateDelete, validateConnect');
  });
});

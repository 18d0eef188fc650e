/**
 * cel-spec's conformance tests (the "simple" test files, as @bufbuild/cel-spec
 * ships them) and how one is judged, whatever the library: cel-spec's own
 * procedure (tests/simple in cel-spec) parses, type-checks unless the test
 * says disable_check (a checker's refusal fails the test), stops there for
 * check_only, then evaluates with the bindings and compares the result with
 * the expected value, the expected error (any evaluation error: cel-spec does
 * not compare messages) or, for typed_result, the type (and value).
 */
import type { Registry } from '@bufbuild/protobuf';
import type { Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import { getConformanceSuite, type IncrementalTest, type IncrementalTestSuite } from '@bufbuild/cel-spec/testdata/tests.js';
import { CEL_WELL_KNOWN, type Cv, expectedToCv, isCelNative, normalizeTypeText, sameValue, show, typeName } from './values.ts';

/** cel.expr.conformance.test.SimpleTest. */
type SimpleTest = IncrementalTest['original'];

export interface ConformanceTest {
  /** The test file (basic, comparisons, …). */
  readonly file: string;
  /** file/section/name. */
  readonly path: string;
  readonly test: SimpleTest;
}

export function loadTests(): ConformanceTest[] {
  const tests: ConformanceTest[] = [];
  const walk = (suite: IncrementalTestSuite, path: readonly string[]) => {
    for (const test of suite.tests) tests.push({ file: path[0] ?? suite.name, path: [...path, test.name].join('/'), test: test.original });
    for (const child of suite.suites) walk(child, [...path, child.name]);
  };
  walk(getConformanceSuite(), []);
  return tests;
}

/** What an implementation made of a test, before it is compared with cel-spec's expectation. */
export type Answer =
  /** The parser, the checker or the test's declarations were refused. */
  | { readonly stage: 'parse' | 'check' | 'declare'; readonly code: string; readonly message: string }
  /** check_only: the type the checker deduced. */
  | { readonly stage: 'type'; readonly type: string }
  /** A value (and the checked type, when the expression was checked). */
  | { readonly stage: 'value'; readonly value: Cv; readonly type?: string }
  /** The library's own evaluation error. */
  | { readonly stage: 'eval-error'; readonly code: string; readonly message: string; readonly type?: string }
  /** Something not the library's error was thrown, or the result has no CEL meaning. */
  | { readonly stage: 'crash'; readonly code: string; readonly message: string };

export type Status = 'pass' | 'fail' | 'error' | 'skip';

export interface Outcome {
  readonly status: Status;
  /** Why it failed, errored or was skipped, in a few words (counted as categories). */
  readonly category: string;
  /** The expression, what was expected and what came back. */
  readonly detail?: string;
}

type Expectation =
  | { readonly kind: 'value'; readonly value: Cv }
  | { readonly kind: 'error' }
  | { readonly kind: 'type'; readonly type: string; readonly value: Cv | undefined; readonly checkOnly: boolean }
  | { readonly kind: 'unknown' };

function expectation(test: SimpleTest, registry: Registry): Expectation {
  const matcher = test.resultMatcher;
  switch (matcher.case) {
    case undefined:
      return { kind: 'value', value: { k: 'bool', v: true } };
    case 'value':
      return { kind: 'value', value: expectedToCv(matcher.value, registry) };
    case 'evalError':
    case 'anyEvalErrors':
      return { kind: 'error' };
    case 'typedResult': {
      const result = matcher.value.result;
      return { kind: 'type', type: typeName(matcher.value.deducedType), value: result && !test.checkOnly ? expectedToCv(result, registry) : undefined, checkOnly: test.checkOnly };
    }
    case 'unknown':
    case 'anyUnknowns':
      return { kind: 'unknown' };
  }
}

function expected(expect: Expectation): string {
  if (expect.kind === 'value') return show(expect.value);
  if (expect.kind === 'error') return 'an evaluation error';
  if (expect.kind === 'type') return `type ${expect.type}${expect.value ? ` and ${show(expect.value)}` : ''}`;
  return 'unknown';
}

function got(answer: Answer): string {
  switch (answer.stage) {
    case 'value':
      return show(answer.value);
    case 'type':
      return `type ${answer.type}`;
    default:
      return `${answer.stage} ${answer.code}: ${answer.message}`;
  }
}

/** An error message as a category: its code when the library gives one, else its words without the specifics. */
export function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && code !== '') return code;
  const message = error instanceof Error ? error.message : String(error);
  return (
    message
      .split('\n')[0]!
      .replace(/'[^']*'|"[^"]*"|`[^`]*`/g, '…')
      .replace(/\d+/g, 'N')
      .slice(0, 60)
      .trim() || 'unknown'
  );
}

export function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n').find((line) => line.trim() !== '') ?? '').trim().slice(0, 160);
}

function mismatch(expect: Expectation, answer: Answer): Pick<Outcome, 'status' | 'category'> {
  switch (answer.stage) {
    case 'crash':
      return { status: 'error', category: answer.code };
    case 'parse':
    case 'check':
    case 'declare':
      return { status: 'fail', category: `${answer.stage} refused: ${answer.code}` };
    case 'eval-error':
      return { status: 'fail', category: `evaluation error instead of a value: ${answer.code}` };
    case 'type':
      return { status: 'fail', category: 'wrong type' };
    case 'value':
      if (expect.kind === 'error') return { status: 'fail', category: 'a value instead of an error' };
      if (expect.kind === 'type' && answer.type !== undefined && normalizeTypeText(answer.type) !== expect.type) return { status: 'fail', category: 'wrong type' };
      return { status: 'fail', category: expect.kind === 'value' && expect.value.k !== answer.value.k ? `wrong kind of value (${answer.value.k} for ${expect.value.k})` : 'wrong value' };
  }
}

function matches(expect: Expectation, answer: Answer, registry: Registry): boolean {
  if (expect.kind === 'error') return answer.stage === 'eval-error';
  if (expect.kind === 'value') return answer.stage === 'value' && sameValue(expect.value, answer.value, registry);
  if (expect.kind !== 'type') return false;
  const type = answer.stage === 'type' || answer.stage === 'value' ? answer.type : undefined;
  if (type === undefined || normalizeTypeText(type) !== expect.type) return false;
  if (expect.checkOnly || expect.value === undefined) return true;
  return answer.stage === 'value' && sameValue(expect.value, answer.value, registry);
}

/** Runs `answer` unless the test asks for what no implementation here has (partial evaluation), and judges its answer. */
export function judge(item: ConformanceTest, registry: Registry, answer: () => Answer): Outcome {
  const expect = expectation(item.test, registry);
  if (expect.kind === 'unknown') return { status: 'skip', category: 'expects an unknown result (partial evaluation)' };
  if (item.test.disableMacros) return { status: 'skip', category: 'disable_macros (no implementation here can turn macros off)' };
  const result = answer();
  if (matches(expect, result, registry)) return { status: 'pass', category: 'pass' };
  return { ...mismatch(expect, result), detail: `${item.test.expr.replace(/\s+/g, ' ').slice(0, 160)} — expected ${expected(expect)}, got ${got(result)}` };
}

/** The qualified name an identifier or a chain of field selections spells (`a.b.c`), if it is one. */
function qualifiedName(expr: Expr | undefined): string | undefined {
  const kind = expr?.exprKind;
  if (kind?.case === 'identExpr') return kind.value.name;
  if (kind?.case !== 'selectExpr' || kind.value.testOnly) return undefined;
  const operand = qualifiedName(kind.value.operand);
  return operand === undefined ? undefined : `${operand}.${kind.value.field}`;
}

/** The protobuf message or enum `name` resolves to in `container` (CEL's name resolution: innermost scope first). */
function protobufType(name: string, container: string, registry: Registry): string | undefined {
  const bare = name.replace(/^\./, '');
  const scopes = name.startsWith('.') || container === '' ? [''] : container.split('.').map((_, i, parts) => parts.slice(0, parts.length - i).join('.'));
  if (!scopes.includes('')) scopes.push('');
  for (const scope of scopes) {
    const candidate = scope === '' ? bare : `${scope}.${bare}`;
    if (registry.getMessage(candidate) ?? registry.getEnum(candidate)) return candidate;
  }
  return undefined;
}

/** Every node of a parsed expression. */
function* nodes(expr: Expr | undefined): Generator<Expr> {
  if (!expr) return;
  yield expr;
  const kind = expr.exprKind;
  switch (kind.case) {
    case 'selectExpr':
      yield* nodes(kind.value.operand);
      break;
    case 'callExpr':
      yield* nodes(kind.value.target);
      for (const arg of kind.value.args) yield* nodes(arg);
      break;
    case 'listExpr':
      for (const element of kind.value.elements) yield* nodes(element);
      break;
    case 'structExpr':
      for (const entry of kind.value.entries) {
        if (entry.keyKind.case === 'mapKey') yield* nodes(entry.keyKind.value);
        yield* nodes(entry.value);
      }
      break;
    case 'comprehensionExpr':
      for (const part of [kind.value.iterRange, kind.value.accuInit, kind.value.loopCondition, kind.value.loopStep, kind.value.result]) yield* nodes(part);
      break;
    default:
  }
}

function valueNeedsProtobuf(value: { kind: { case: string | undefined; value?: unknown } } | undefined): string | undefined {
  const kind = value?.kind;
  if (kind?.case === 'enumValue') return 'enum';
  if (kind?.case === 'objectValue') {
    const url = (kind.value as { typeUrl: string }).typeUrl;
    const type = url.slice(url.lastIndexOf('/') + 1);
    return isCelNative(type) ? undefined : type;
  }
  if (kind?.case === 'listValue') return (kind.value as { values: never[] }).values.map(valueNeedsProtobuf).find(Boolean);
  if (kind?.case === 'mapValue') return (kind.value as { entries: { value: never }[] }).entries.map((entry) => valueNeedsProtobuf(entry.value)).find(Boolean);
  return undefined;
}

/**
 * Why a library without protobuf messages (cel-js) cannot run this test, or
 * undefined: a variable declared with a message type (durations and
 * timestamps aside), a message bound as a value, a message or enum expected,
 * or an expression that builds a message or names a message or enum type
 * (`TestAllTypes{}`, `GlobalEnum.GAZ`, `google.protobuf.Int64Value`).
 * `parsed` is the expression as @bufbuild/cel's parser reads it.
 */
export function protobufNeed(test: SimpleTest, parsed: Expr | undefined, registry: Registry): string | undefined {
  for (const decl of test.typeEnv) {
    if (decl.declKind.case !== 'ident') continue;
    const type = decl.declKind.value.type;
    if (type?.typeKind.case === 'messageType' && !CEL_WELL_KNOWN.has(type.typeKind.value)) return 'declares a variable of a protobuf message type';
    if (type?.typeKind.case === 'wrapper') return 'declares a variable of a protobuf wrapper type';
  }
  for (const binding of Object.values(test.bindings)) {
    if (binding.kind.case === 'value' && valueNeedsProtobuf(binding.kind.value)) return 'binds a protobuf message or enum value';
  }
  const matcher = test.resultMatcher;
  const result = matcher.case === 'value' ? matcher.value : matcher.case === 'typedResult' ? matcher.value.result : undefined;
  if (valueNeedsProtobuf(result)) return 'expects a protobuf message or enum value';
  if (parsed === undefined) return textualNeed(test.expr, test.container, registry);
  for (const node of nodes(parsed)) {
    if (node.exprKind.case === 'structExpr' && node.exprKind.value.messageName !== '') return 'builds a protobuf message';
    const name = qualifiedName(node);
    const type = name === undefined ? undefined : protobufType(name, test.container, registry);
    if (type !== undefined && !CEL_WELL_KNOWN.has(type)) return 'names a protobuf message or enum type';
  }
  return undefined;
}

/** The same from the text, for an expression @bufbuild/cel cannot parse (optional syntax): every dotted name outside string literals, and whether a `{` follows it. */
function textualNeed(expr: string, container: string, registry: Registry): string | undefined {
  const code = expr.replace(/[rRbB]{0,2}('''[\s\S]*?'''|"""[\s\S]*?"""|'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*")/g, '""');
  for (const match of code.matchAll(/\.?[A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*(\s*\{)?/g)) {
    const parts = match[0].replace(/\{$/, '').replace(/\s+/g, '').split('.');
    const leadingDot = parts[0] === '';
    const names = parts.filter(Boolean).map((_, i, all) => `${leadingDot ? '.' : ''}${all.slice(0, i + 1).join('.')}`);
    const types = names.map((name) => protobufType(name, container, registry)).filter((type) => type !== undefined && !CEL_WELL_KNOWN.has(type));
    if (types.length > 0) return match[1] === undefined ? 'names a protobuf message or enum type' : 'builds a protobuf message';
  }
  return undefined;
}

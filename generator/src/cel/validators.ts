/**
 * What kube-apiserver refuses in a type-checked CEL expression that
 * @marcbachmann/cel-js lets through, found by walking its checked AST: the
 * parser's int and double literal ranges, cel-go's AST validators (duration,
 * timestamp and regex literals, homogeneous aggregate literals, string.format),
 * the regex precompilation of Kubernetes' regex library, functions cel-js has
 * and Kubernetes does not, and calls on a dyn receiver that no overload takes.
 */
import { MESSAGE_MACRO } from './message-construction.js';
import { durationProblem, formatProblem, regexProblem, timestampProblem, unixSecondsProblem, type FormatArgumentKind } from './literals.js';

interface CheckedType {
  readonly name: string;
  readonly kind: string;
  readonly hasPlaceholderType?: boolean;
}
export interface CheckedNode {
  readonly op: string;
  readonly args: unknown;
  readonly start: number;
  readonly end?: number;
  readonly checkedType?: CheckedType;
  /** Set on calls the checker resolved through overloads (not on macros). */
  readonly candidates?: { findFunction(argTypes: readonly CheckedType[], receiverType?: CheckedType | null): unknown };
  readonly argTypes?: readonly CheckedType[];
}

export interface AstProblem {
  readonly offset: number;
  readonly message: string;
}

const MAX_INT64 = (1n << 63n) - 1n;
/** Methods of cel-js's own that neither cel-go nor Kubernetes declares. */
const UNKNOWN_METHODS = new Set(['json', 'hex', 'string', 'base64', 'at']);

/** `objectTypes`: the fields of the object types declared from a schema (schema-types.ts), which `has()` is checked against. */
export function astProblems(root: CheckedNode, source: string, objectTypes: ReadonlyMap<string, Readonly<Record<string, string>>> = new Map()): AstProblem[] {
  const problems: AstProblem[] = [];
  const report = (node: CheckedNode, message: string) => problems.push({ offset: node.start, message });
  walk(root, [], (node, ancestors) => {
    const parent = ancestors.at(-1);
    switch (node.op) {
      case 'value':
        return checkLiteral(node, parent, source, report);
      case 'call':
        if (callName(node) === 'has') checkHasField(node, objectTypes, report);
        return checkCall(node, report);
      case 'rcall':
        return checkMethodCall(node, report);
      case 'list':
      case 'map':
        // The fields of a message construction (message-construction.ts) are no map literal: each has its own type.
        if (node.op === 'map' && parent?.op === 'call' && callName(parent) === MESSAGE_MACRO) return;
        if (!ancestors.some((a) => (a.op === 'call' || a.op === 'rcall') && callName(a) === 'format')) checkHomogeneous(node, report);
    }
  });
  return problems.sort((a, b) => a.offset - b.offset);
}

function walk(node: CheckedNode, ancestors: CheckedNode[], visit: (node: CheckedNode, ancestors: CheckedNode[]) => void): void {
  visit(node, ancestors);
  const inner = [...ancestors, node];
  const descend = (value: unknown): void => {
    if (isNode(value)) walk(value, inner, visit);
    else if (Array.isArray(value)) value.forEach(descend);
  };
  if (node.op !== 'value' && node.op !== 'id') descend(node.args);
}

function isNode(value: unknown): value is CheckedNode {
  return typeof value === 'object' && value !== null && typeof (value as CheckedNode).op === 'string' && 'args' in value;
}

const callName = (node: CheckedNode) => (node.args as [string])[0];
const callArgs = (node: CheckedNode): readonly CheckedNode[] => (node.op === 'rcall' ? (node.args as [string, CheckedNode, CheckedNode[]])[2] : (node.args as [string, CheckedNode[]])[1]);
const literal = (node: CheckedNode | undefined): unknown => (node?.op === 'value' ? node.args : undefined);

function checkLiteral(node: CheckedNode, parent: CheckedNode | undefined, source: string, report: (node: CheckedNode, message: string) => void): void {
  const value = node.args;
  if (typeof value === 'bigint' && value > MAX_INT64) {
    // The grammar reads "-" and the digits as one literal, so -9223372036854775808 is in range; -(…) is not.
    const negated = parent?.op === '-_' && value === MAX_INT64 + 1n && /^-\s*$/.test(source.slice(parent.start, node.start));
    if (!negated) report(node, 'invalid int literal');
  }
  if (typeof value === 'number' && !Number.isFinite(value)) report(node, 'invalid double literal');
}

function checkCall(node: CheckedNode, report: (node: CheckedNode, message: string) => void): void {
  const [first] = callArgs(node);
  const value = literal(first);
  const name = callName(node);
  let problem: string | undefined;
  if (name === 'duration' && typeof value === 'string') problem = durationProblem(value);
  // The validator evaluates the call, and cel-go cannot convert an int to a duration.
  if (name === 'duration' && typeof value === 'bigint') problem = `type conversion error from 'int' to 'google.protobuf.Duration'`;
  if (name === 'timestamp' && typeof value === 'string') problem = timestampProblem(value);
  if (name === 'timestamp' && typeof value === 'bigint') problem = unixSecondsProblem(Number(value));
  // cel-go's regex literal validator looks at the first argument, which for the global form is the string, not the pattern.
  if (name === 'matches' && typeof value === 'string') problem = regexProblem(value);
  if (problem) report(first!, `invalid ${name} argument: ${problem}`);
}

/**
 * cel-go type-checks the field `has()` tests, and the fields before it: on an
 * object type a field it does not declare is a compile error. cel-js checks
 * only the variable, so the path is followed here through the declared types.
 */
function checkHasField(node: CheckedNode, objectTypes: ReadonlyMap<string, Readonly<Record<string, string>>>, report: (node: CheckedNode, message: string) => void): void {
  const selects: CheckedNode[] = [];
  let current = callArgs(node)[0];
  while (current && (current.op === '.' || current.op === '.?')) {
    selects.unshift(current);
    current = (current.args as [CheckedNode, string])[0];
  }
  let type = current?.checkedType?.name;
  for (const select of selects) {
    const fields = type === undefined ? undefined : objectTypes.get(type);
    if (fields === undefined) return;
    const field = (select.args as [CheckedNode, string])[1];
    type = fields[field];
    // At the field's name, where cel-js reports a misspelt field outside has().
    if (type === undefined) return report({ ...select, start: (select.end ?? select.start + field.length) - field.length }, `No such key: ${field}`);
  }
}

// eslint-disable-next-line complexity -- one check per CEL method that Kubernetes' compiler refuses, in its order; to split by method (follow-up)
function checkMethodCall(node: CheckedNode, report: (node: CheckedNode, message: string) => void): void {
  const [name, receiver, args] = node.args as [string, CheckedNode, CheckedNode[]];
  if (UNKNOWN_METHODS.has(name)) return report(node, `undeclared reference to '${name}'`);
  if (name === 'bind' && receiver.op === 'id' && receiver.args === 'cel') return report(receiver, "undeclared reference to 'cel' (cel.bind is not in Kubernetes' CEL environment)");
  const pattern = literal(args[0]);
  if ((name === 'matches' || name === 'find' || name === 'findAll') && typeof pattern === 'string') {
    const problem = regexProblem(pattern);
    if (problem) return report(args[0]!, name === 'matches' ? `invalid matches argument: ${problem}` : problem);
  }
  if (name === 'format' && typeof literal(receiver) === 'string' && args.length === 1 && args[0]!.op === 'list') {
    const elements = args[0]!.args as CheckedNode[];
    const problem = formatProblem(literal(receiver) as string, elements.map(formatKinds));
    if (problem) return report(problem.argument === undefined ? node : elements[problem.argument]!, problem.message);
  }
  const receiverType = receiver.checkedType;
  if (node.candidates && node.argTypes && receiverType?.kind === 'dyn' && !node.candidates.findFunction(node.argTypes, receiverType)) {
    report(node, `found no matching overload for '${name}' applied to 'dyn.(${node.argTypes.map((t) => t.name).join(', ')})'`);
  }
}

function formatKinds(node: CheckedNode): FormatArgumentKind[] {
  const kind = kindOf(node.checkedType);
  if (node.op === 'list') return [kind, ...(node.args as CheckedNode[]).flatMap(formatKinds)];
  if (node.op === 'map') return [kind, ...(node.args as [CheckedNode, CheckedNode][]).flatMap(([k, v]) => [...formatKinds(k), ...formatKinds(v)])];
  return [kind];
}

function kindOf(type: CheckedType | undefined): FormatArgumentKind {
  const name = type?.name ?? 'dyn';
  if (type?.kind === 'list' || type?.kind === 'map' || type?.kind === 'dyn') return type.kind;
  if (name === 'google.protobuf.Timestamp') return 'timestamp';
  if (name === 'google.protobuf.Duration') return 'duration';
  const simple: readonly string[] = ['string', 'int', 'uint', 'double', 'bool', 'bytes', 'type', 'null'];
  return simple.includes(name) ? (name as FormatArgumentKind) : 'other';
}

/** cel.ValidateHomogeneousAggregateLiterals: every element (key, value) of a literal has the first one's type. */
function checkHomogeneous(node: CheckedNode, report: (node: CheckedNode, message: string) => void): void {
  const columns: CheckedNode[][] = node.op === 'list' ? [node.args as CheckedNode[]] : [0, 1].map((i) => (node.args as [CheckedNode, CheckedNode][]).map((entry) => entry[i]!));
  for (const items of columns) {
    const first = items[0]?.checkedType;
    const other = items.find((item) => item.checkedType && first && !item.checkedType.hasPlaceholderType && !first.hasPlaceholderType && item.checkedType.name !== first.name);
    if (other) return report(other, `expected type '${first!.name}' but found '${other.checkedType!.name}'`);
  }
}

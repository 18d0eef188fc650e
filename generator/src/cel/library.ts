/**
 * The CEL environment kube-apiserver compiles webhook matchConditions in,
 * declared for @marcbachmann/cel-js: k8s.io/apiserver pkg/cel/environment
 * (base.go) at the Kubernetes minor the chart targets — cel-go's standard
 * library, optional types, ext.Strings v2, ext.Sets, ext.Lists v3,
 * two-variable comprehensions, and Kubernetes' own libraries (authz, URLs,
 * regex, lists, quantity, IP, CIDR, format, semver; pkg/cel/library).
 *
 * Each overload has the argument and result types the Kubernetes declaration
 * has, so a wrong argument or a non-bool result is refused as the API server
 * refuses it. For type-checking the functions are declarations only; for
 * local evaluation (`shaper-gen/testing`) they run runtime-library.ts's
 * implementations.
 *
 * Over 250 lines on purpose: a declaration table, in the order of the
 * Kubernetes sources it transcribes.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { notLocal, runtimeFunction } from './runtime-library.js';
import type { Node, TypeDeclaration } from './cel-js-internals.js';

interface Context {
  forkWithVariable(name: string, type: TypeDeclaration): Context;
}
interface Checker {
  check(node: Node, ctx: Context): TypeDeclaration;
  getType(name: string): TypeDeclaration;
  createError(code: string, message: string, node: Node): Error;
  readonly registry: {
    getListType(t: TypeDeclaration): TypeDeclaration;
    getMapType(k: TypeDeclaration, v: TypeDeclaration): TypeDeclaration;
    getOptionalType(t: TypeDeclaration): TypeDeclaration;
  };
}
interface MacroCall {
  readonly ast: Node;
  readonly args: readonly Node[];
  readonly receiver: Node;
}

/** The implementation of a declaration that is only type-checked, never run. */
export const checkOnly = (): never => {
  throw new Error('shaper-gen only type-checks CEL expressions');
};

const AUTHZ = 'kubernetes.authorization';
/** cel-go's comparableTypes (ext/lists.go) and Kubernetes' (library/lists.go): what sort, min, max and isSorted take. */
const COMPARABLE = ['int', 'uint', 'double', 'bool', 'google.protobuf.Duration', 'google.protobuf.Timestamp', 'string', 'bytes'];
const SUMMABLE = ['int', 'uint', 'double', 'google.protobuf.Duration'];
const NAMED_FORMATS = [
  'dns1123Label',
  'dns1123Subdomain',
  'dns1035Label',
  'qualifiedName',
  'dns1123LabelPrefix',
  'dns1123SubdomainPrefix',
  'dns1035LabelPrefix',
  'labelValue',
  'uri',
  'uuid',
  'byte',
  'date',
  'datetime',
];

const FUNCTIONS: readonly string[] = [
  // cel-go standard conversions this library lacks.
  'int(uint): int',
  'int(google.protobuf.Duration): int',
  'int(google.protobuf.Timestamp): int',
  'string(google.protobuf.Duration): string',
  'string(google.protobuf.Timestamp): string',
  'duration(google.protobuf.Duration): google.protobuf.Duration',
  'duration(int): google.protobuf.Duration',
  'timestamp(google.protobuf.Timestamp): google.protobuf.Timestamp',
  'matches(string, string): bool',
  // ext.Strings v2 (charAt, indexOf, lastIndexOf, lowerAscii, upperAscii, split, substring, trim and join exist already).
  'string.charAt(int): string',
  'string.replace(string, string): string',
  'string.replace(string, string, int): string',
  'string.format(list<dyn>): string',
  'StringsNamespace.quote(string): string',
  // ext.Sets.
  'SetsNamespace.contains(list<A>, list<A>): bool',
  'SetsNamespace.equivalent(list<A>, list<A>): bool',
  'SetsNamespace.intersects(list<A>, list<A>): bool',
  // ext.Lists v3.
  'list<T>.slice(int, int): list<T>',
  'list<list<T>>.flatten(): list<T>',
  'list<dyn>.flatten(int): list<dyn>',
  'ListsNamespace.range(int): list<int>',
  'list<T>.reverse(): list<T>',
  'list<T>.distinct(): list<T>',
  ...COMPARABLE.map((t) => `list<${t}>.sort(): list<${t}>`),
  // Optional types (cel.OptionalTypes, latest version) beyond of, none, value, hasValue, or, orValue.
  'OptionalNamespace.ofNonZeroValue(A): optional<A>',
  'OptionalNamespace.unwrap(list<optional<A>>): list<A>',
  'list<optional<A>>.unwrapOpt(): list<A>',
  'list<A>.first(): optional<A>',
  'list<A>.last(): optional<A>',
  // Kubernetes lists.
  ...COMPARABLE.flatMap((t) => [`list<${t}>.isSorted(): bool`, `list<${t}>.min(): ${t}`, `list<${t}>.max(): ${t}`]),
  ...SUMMABLE.map((t) => `list<${t}>.sum(): ${t}`),
  'list<A>.indexOf(A): int',
  'list<A>.lastIndexOf(A): int',
  // Kubernetes regex.
  'string.find(string): string',
  'string.findAll(string): list<string>',
  'string.findAll(string, int): list<string>',
  // Kubernetes URLs.
  'url(string): kubernetes.URL',
  'isURL(string): bool',
  ...['getScheme', 'getHost', 'getHostname', 'getPort', 'getEscapedPath'].map((name) => `kubernetes.URL.${name}(): string`),
  'kubernetes.URL.getQuery(): map<string, list<string>>',
  // Kubernetes authz (with the AuthorizeWithSelectors additions).
  `${AUTHZ}.Authorizer.path(string): ${AUTHZ}.PathCheck`,
  `${AUTHZ}.Authorizer.group(string): ${AUTHZ}.GroupCheck`,
  `${AUTHZ}.Authorizer.serviceAccount(string, string): ${AUTHZ}.Authorizer`,
  `${AUTHZ}.GroupCheck.resource(string): ${AUTHZ}.ResourceCheck`,
  ...['subresource', 'namespace', 'name', 'fieldSelector', 'labelSelector'].map((name) => `${AUTHZ}.ResourceCheck.${name}(string): ${AUTHZ}.ResourceCheck`),
  `${AUTHZ}.PathCheck.check(string): ${AUTHZ}.Decision`,
  `${AUTHZ}.ResourceCheck.check(string): ${AUTHZ}.Decision`,
  `${AUTHZ}.Decision.allowed(): bool`,
  `${AUTHZ}.Decision.errored(): bool`,
  `${AUTHZ}.Decision.reason(): string`,
  `${AUTHZ}.Decision.error(): string`,
  // Kubernetes quantity (sign is a global function there, not a method).
  'quantity(string): kubernetes.Quantity',
  'isQuantity(string): bool',
  'sign(kubernetes.Quantity): int',
  'kubernetes.Quantity.isGreaterThan(kubernetes.Quantity): bool',
  'kubernetes.Quantity.isLessThan(kubernetes.Quantity): bool',
  'kubernetes.Quantity.compareTo(kubernetes.Quantity): int',
  'kubernetes.Quantity.asApproximateFloat(): double',
  'kubernetes.Quantity.asInteger(): int',
  'kubernetes.Quantity.isInteger(): bool',
  'kubernetes.Quantity.add(kubernetes.Quantity): kubernetes.Quantity',
  'kubernetes.Quantity.add(int): kubernetes.Quantity',
  'kubernetes.Quantity.sub(kubernetes.Quantity): kubernetes.Quantity',
  'kubernetes.Quantity.sub(int): kubernetes.Quantity',
  // Kubernetes IP and CIDR.
  'ip(string): net.IP',
  'isIP(string): bool',
  'IPNamespace.isCanonical(string): bool',
  'string(net.IP): string',
  'net.IP.family(): int',
  ...['isUnspecified', 'isLoopback', 'isLinkLocalMulticast', 'isLinkLocalUnicast', 'isGlobalUnicast'].map((name) => `net.IP.${name}(): bool`),
  'cidr(string): net.CIDR',
  'isCIDR(string): bool',
  'string(net.CIDR): string',
  'net.CIDR.containsIP(string): bool',
  'net.CIDR.containsIP(net.IP): bool',
  'net.CIDR.containsCIDR(string): bool',
  'net.CIDR.containsCIDR(net.CIDR): bool',
  'net.CIDR.ip(): net.IP',
  'net.CIDR.prefixLength(): int',
  'net.CIDR.masked(): net.CIDR',
  // Kubernetes format.
  'FormatNamespace.named(string): optional<kubernetes.NamedFormat>',
  ...NAMED_FORMATS.map((name) => `FormatNamespace.${name}(): kubernetes.NamedFormat`),
  'kubernetes.NamedFormat.validate(string): optional<list<string>>',
  // Kubernetes semver, version 1.
  'semver(string): kubernetes.Semver',
  'semver(string, bool): kubernetes.Semver',
  'isSemver(string): bool',
  'isSemver(string, bool): bool',
  'kubernetes.Semver.isGreaterThan(kubernetes.Semver): bool',
  'kubernetes.Semver.isLessThan(kubernetes.Semver): bool',
  'kubernetes.Semver.compareTo(kubernetes.Semver): int',
  ...['major', 'minor', 'patch'].map((name) => `kubernetes.Semver.${name}(): int`),
];

const TYPES = [
  'kubernetes.URL',
  'kubernetes.Quantity',
  'kubernetes.Semver',
  'kubernetes.NamedFormat',
  'net.IP',
  'net.CIDR',
  `${AUTHZ}.PathCheck`,
  `${AUTHZ}.GroupCheck`,
  `${AUTHZ}.ResourceCheck`,
  `${AUTHZ}.Decision`,
];
/** Namespaces of qualified function names (`sets.contains`), each a constant of its own type. */
const NAMESPACES = { sets: 'SetsNamespace', strings: 'StringsNamespace', lists: 'ListsNamespace', ip: 'IPNamespace', format: 'FormatNamespace' };

/** `check` declares the functions; `evaluate` also gives them their local implementations. */
export type LibraryMode = 'check' | 'evaluate';

export function declareKubernetesLibraries(env: Environment, mode: LibraryMode = 'check'): void {
  // Custom types without fields refuse any field access, as cel-go does for these opaque types.
  for (const name of TYPES) env.registerType(name, { fields: {} });
  // `authorizer.requestResource` is a variable of its own in Kubernetes; a field here gives it the same type.
  env.registerType(`${AUTHZ}.Authorizer`, { fields: { requestResource: `${AUTHZ}.ResourceCheck` } });
  for (const [constant, type] of Object.entries(NAMESPACES)) {
    // eslint-disable-next-line @typescript-eslint/no-extraneous-class -- cel-js registers a type by its constructor: each namespace needs a class of its own, with nothing in it
    const Namespace = class {};
    Object.defineProperty(Namespace, 'name', { value: type });
    env.registerType(type, Namespace).registerConstant(constant, type, new Namespace());
  }
  for (const signature of FUNCTIONS) env.registerFunction(signature, mode === 'check' ? checkOnly : (runtimeFunction(signature) ?? notLocal(signature)));
  declareMacros(env);
}

function declareMacros(env: Environment): void {
  const macro = (signature: string, typeCheck: (checker: Checker, call: MacroCall, ctx: Context) => TypeDeclaration) =>
    env.registerFunction(signature, ({ ast, args, receiver }: MacroCall) => ({ ast, args, receiver, typeCheck, evaluate: notLocal(signature) }));
  for (const name of ['all', 'exists', 'existsOne', 'exists_one']) {
    macro(`list.${name}(ast, ast, ast): bool`, (checker, call, ctx) => {
      expectBool(checker, call.args[2]!, twoVariables(checker, call, ctx), `${name}(i, v, predicate)`);
      return checker.getType('bool');
    });
  }
  for (const arity of [3, 4]) {
    const params = Array.from({ length: arity }, () => 'ast').join(', ');
    const filtered = (checker: Checker, call: MacroCall, inner: Context, name: string) => {
      if (arity === 4) expectBool(checker, call.args[2]!, inner, `${name} filter`);
      return checker.check(call.args[arity - 1]!, inner);
    };
    macro(`list.transformList(${params}): list<dyn>`, (checker, call, ctx) => checker.registry.getListType(filtered(checker, call, twoVariables(checker, call, ctx), 'transformList')));
    macro(`list.transformMap(${params}): map<dyn, dyn>`, (checker, call, ctx) => {
      const inner = twoVariables(checker, call, ctx);
      return checker.registry.getMapType(iterationTypes(checker, call, ctx)[0], filtered(checker, call, inner, 'transformMap'));
    });
    macro(`list.transformMapEntry(${params}): map<dyn, dyn>`, (checker, call, ctx) => {
      const entry = filtered(checker, call, twoVariables(checker, call, ctx), 'transformMapEntry');
      if (entry.kind !== 'map' && entry.kind !== 'dyn') throw checker.createError('invalid_argument', `transformMapEntry must produce a map, got '${entry.name}'`, call.args[arity - 1]!);
      return entry;
    });
  }
  macro('list.sortBy(ast, ast): list<dyn>', (checker, call, ctx) => {
    const list = checker.check(call.receiver, ctx);
    if (list.kind !== 'list' && list.kind !== 'dyn') throw checker.createError('no_matching_overload', `sortBy needs a list, got '${list.name}'`, call.receiver);
    const key = checker.check(call.args[1]!, ctx.forkWithVariable(variableName(checker, call.args[0]!), list.valueType ?? checker.getType('dyn')));
    if (key.kind !== 'dyn' && !COMPARABLE.includes(key.name)) throw checker.createError('no_matching_overload', `sortBy key must be comparable, got '${key.name}'`, call.args[1]!);
    return list;
  });
  for (const name of ['optMap', 'optFlatMap']) {
    macro(`optional.${name}(ast, ast): optional<dyn>`, (checker, call, ctx) => {
      const optional = checker.check(call.receiver, ctx);
      if (optional.kind !== 'optional' && optional.kind !== 'dyn') throw checker.createError('optional_expected', `${name} receiver must be optional, got '${optional.name}'`, call.receiver);
      const result = checker.check(call.args[1]!, ctx.forkWithVariable(variableName(checker, call.args[0]!), optional.valueType ?? checker.getType('dyn')));
      if (name === 'optMap') return checker.registry.getOptionalType(result);
      if (result.kind !== 'optional' && result.kind !== 'dyn') throw checker.createError('optional_expected', `optFlatMap must produce an optional, got '${result.name}'`, call.args[1]!);
      return result;
    });
  }
}

function variableName(checker: Checker, node: Node): string {
  if (node.op === 'id' && typeof node.args === 'string') return node.args;
  throw checker.createError('invalid_macro_argument', 'argument must be a simple name', node);
}

/** Index and value of a list, key and value of a map (cel-go two-variable comprehensions). */
function iterationTypes(checker: Checker, call: MacroCall, ctx: Context): [TypeDeclaration, TypeDeclaration] {
  const range = checker.check(call.receiver, ctx);
  const dyn = checker.getType('dyn');
  if (range.kind === 'list') return [checker.getType('int'), range.valueType ?? dyn];
  if (range.kind === 'map') return [range.keyType ?? dyn, range.valueType ?? dyn];
  if (range.kind === 'dyn') return [dyn, dyn];
  throw checker.createError('invalid_comprehension_range', `expression of type '${range.name}' cannot be the range of a comprehension (must be list, map, or dynamic)`, call.receiver);
}

function twoVariables(checker: Checker, call: MacroCall, ctx: Context): Context {
  const first = variableName(checker, call.args[0]!);
  const second = variableName(checker, call.args[1]!);
  if (first === second) throw checker.createError('invalid_macro_argument', 'duplicate variable name', call.args[1]!);
  const [firstType, secondType] = iterationTypes(checker, call, ctx);
  return ctx.forkWithVariable(first, firstType).forkWithVariable(second, secondType);
}

function expectBool(checker: Checker, node: Node, ctx: Context, what: string): void {
  const type = checker.check(node, ctx);
  if (type.name !== 'bool' && type.kind !== 'dyn') throw checker.createError('invalid_argument', `${what} must be bool, got '${type.name}'`, node);
}

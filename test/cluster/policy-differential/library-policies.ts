/**
 * One ValidatingAdmissionPolicy per CEL library of the API server's
 * environment, each confined to a namespace of its own, and the ConfigMap
 * data it is evaluated on. A probe is a validation: a boolean check (its
 * error, if any, is in the answer) or, with `expression: 'false'`, a
 * messageExpression that shows a computed value in the message. Most
 * policies bind with Warn, so that every probe's outcome is in the answer's
 * warnings; `quantity-deny` and `authz` bind with Deny, so that decisions,
 * codes, reasons and messages are compared too, and `sets` with Audit as
 * well, so that the audit log's validation_failure annotation is. Values go through
 * `object.data` (strings), so that nothing is folded at compile time.
 */

export const LIBRARY_LABEL = 'policy-test.shaper-gen.io/library';

export interface Probe {
  readonly expression: string;
  readonly message?: string;
  readonly messageExpression?: string;
  readonly reason?: string;
}

export interface LibraryPolicy {
  /** The library, also the namespace's name after `lib-`. */
  readonly library: string;
  readonly validationActions: readonly ('Deny' | 'Warn' | 'Audit')[];
  readonly failurePolicy?: 'Fail' | 'Ignore';
  readonly variables?: readonly { readonly name: string; readonly expression: string }[];
  readonly validations: readonly Probe[];
  readonly auditAnnotations?: readonly { readonly key: string; readonly valueExpression: string }[];
  /** The ConfigMaps' data, one CREATE request each. */
  readonly inputs: readonly Readonly<Record<string, string>>[];
}

/** A probe showing a value: the validation always fails, its message is the value (or the fallback when the value errors). */
const show = (label: string, value: string): Probe => ({ expression: 'false', messageExpression: `'${label}: ' + (${value})`, message: `${label}: error` });
const check = (expression: string): Probe => ({ expression });
const pairs = (keys: readonly [string, string], rows: readonly (readonly [string, string])[]) => rows.map(([a, b]) => ({ [keys[0]]: a, [keys[1]]: b }));
const singles = (key: string, rows: readonly string[]) => rows.map((value) => ({ [key]: value }));

const QUANTITIES: readonly (readonly [string, string])[] = [
  ['1', '2'],
  ['500m', '1'],
  ['1Gi', '1024Mi'],
  ['1.5', '1'],
  ['abc', '1'],
  ['-2', '3'],
  ['9223372036854775807', '1'],
  ['10E18', '1'],
  ['1Ki', '1k'],
  ['0.1', '100m'],
  ['', '1'],
  ['3e3', '2k'],
  ['1Ei', '1'],
  ['2Ti', '1Pi'],
  ['100M', '0.1G'],
  ['12e-1', '1'],
  [' 1', '1'],
  ['1.2.3', '1'],
  ['7', '7'],
  ['-500m', '-1'],
  ['9223372036854775807', '-1'],
];

const quantity: LibraryPolicy = {
  library: 'quantity',
  validationActions: ['Warn'],
  validations: [
    check('isQuantity(object.data.q)'),
    show('integer', "quantity(object.data.q).isInteger() ? string(quantity(object.data.q).asInteger()) : 'fractional'"),
    show('approximate', 'string(quantity(object.data.q).asApproximateFloat())'),
    show('compare', 'string(quantity(object.data.q).compareTo(quantity(object.data.r)))'),
    check("quantity(object.data.q).isLessThan(quantity('1Gi'))"),
    check('quantity(object.data.q).isGreaterThan(quantity(object.data.r))'),
    show('sum', 'string(quantity(object.data.q).add(quantity(object.data.r)).asApproximateFloat())'),
    show('difference', 'string(quantity(object.data.q).sub(1).asApproximateFloat())'),
    show('plus int', 'string(quantity(object.data.q).add(1).isInteger())'),
    check('quantity(object.data.q).asInteger() >= 0'),
    check('quantity(object.data.q) == quantity(object.data.r)'),
  ],
  inputs: pairs(['q', 'r'], QUANTITIES),
};

const quantityDeny: LibraryPolicy = {
  library: 'quantity-deny',
  validationActions: ['Deny'],
  validations: [
    {
      expression: "quantity(object.data.q).isLessThan(quantity('2Gi'))",
      messageExpression: "'memory ' + object.data.q + ' is not below 2Gi'",
      reason: 'Forbidden',
    },
  ],
  auditAnnotations: [{ key: 'memory', valueExpression: 'string(quantity(object.data.q).asApproximateFloat())' }],
  inputs: singles('q', ['1Gi', '2Gi', '3Gi', '2047Mi', 'lots', '1e12', '0']),
};

const IPS: readonly (readonly [string, string])[] = [
  ['10.1.2.3', '10.0.0.0/8'],
  ['192.168.0.1', '10.0.0.0/8'],
  ['::1', '::1/128'],
  ['2001:db8::1', '2001:db8::/32'],
  ['2001:0db8::1', '2001:db8::/32'],
  ['127.0.0.1', '127.0.0.0/8'],
  ['0.0.0.0', '0.0.0.0/0'],
  ['::ffff:1.2.3.4', '::ffff:0:0/96'],
  ['fe80::1', 'fe80::/10'],
  ['224.0.0.1', '224.0.0.0/4'],
  ['01.2.3.4', '1.2.3.0/24'],
  ['1.2.3', '1.2.3.4/33'],
  ['abc', '10.0.0.1/8'],
  ['10.0.0.1%eth0', '10.0.0.0/8'],
  ['ff02::1', 'ff00::/8'],
  ['10.255.255.255', '10.0.0.0/8 '],
  ['8.8.8.8', '8.8.8.0/24'],
  ['', ''],
  ['2001:db8:0:0:0:0:0:1', '2001:db8::/64'],
  ['10.1.2.3', '10.1.2.3/16'],
  ['FE80::A', 'fe80::/64'],
  ['192.168.1.1', '192.168.1.0/24'],
  ['::', '::/0'],
  ['1.2.3.4', '::ffff:1.2.3.0/120'],
  ['169.254.1.1', '169.254.0.0/16'],
];

const network: LibraryPolicy = {
  library: 'network',
  validationActions: ['Warn'],
  validations: [
    check('isIP(object.data.a)'),
    check('isCIDR(object.data.c)'),
    check('ip.isCanonical(object.data.a)'),
    show('ip', 'string(ip(object.data.a))'),
    show('family', 'string(ip(object.data.a).family())'),
    show(
      'kind',
      "[ip(object.data.a).isLoopback(), ip(object.data.a).isUnspecified(), ip(object.data.a).isGlobalUnicast(), ip(object.data.a).isLinkLocalMulticast(), ip(object.data.a).isLinkLocalUnicast()].map(b, b ? 'y' : 'n').join('')",
    ),
    check('cidr(object.data.c).containsIP(object.data.a)'),
    check('cidr(object.data.c).containsIP(ip(object.data.a))'),
    check("cidr(object.data.c).containsCIDR('10.1.0.0/16')"),
    show('masked', 'string(cidr(object.data.c).masked())'),
    show('prefix', 'string(cidr(object.data.c).prefixLength())'),
    show('cidr ip', 'string(cidr(object.data.c).ip())'),
    check('cidr(object.data.c).ip().family() == ip(object.data.a).family()'),
  ],
  inputs: pairs(['a', 'c'], IPS),
};

const url: LibraryPolicy = {
  library: 'url',
  validationActions: ['Warn'],
  validations: [
    check('isURL(object.data.u)'),
    show(
      'parts',
      "url(object.data.u).getScheme() + '|' + url(object.data.u).getHost() + '|' + url(object.data.u).getHostname() + '|' + url(object.data.u).getPort() + '|' + url(object.data.u).getEscapedPath()",
    ),
    show('query', "url(object.data.u).getQuery().transformList(k, v, k + '=' + v.join('&')).sort().join(';')"),
    check("url(object.data.u).getScheme() == 'https'"),
  ],
  inputs: singles('u', [
    'https://example.com',
    'https://example.com:8443/a/b?x=1&x=2&y',
    'http://[::1]:80/p%20q',
    '/relative/path',
    'ftp://user:pass@host/x',
    'example.com',
    'https://EXAMPLE.com/%7Efoo',
    'not a url',
    '',
    'https://example.com/a b',
    'mailto:a@b.c',
    'https://例え.jp/パス',
    'https://example.com?q=a%26b',
    'http://1.2.3.4:99999',
    'https://example.com#frag',
    'https://[2001:db8::1]/',
    'http://host:port/',
    '//example.com/x',
    'https://a.b/c/../d',
    'HTTPS://example.com/',
    'https://example.com:0/',
    'https://user@example.com/?a=%zz',
    'http://example.com/?a=1;b=2',
  ]),
};

const format: LibraryPolicy = {
  library: 'format',
  validationActions: ['Warn'],
  validations: [
    show('label', "format.dns1123Label().validate(object.data.n).orValue(['ok']).join('; ')"),
    show('subdomain', "format.dns1123Subdomain().validate(object.data.n).orValue(['ok']).join('; ')"),
    show('1035', "format.dns1035Label().validate(object.data.n).orValue(['ok']).join('; ')"),
    show('qualified', "format.qualifiedName().validate(object.data.n).orValue(['ok']).join('; ')"),
    show('label value', "format.labelValue().validate(object.data.n).orValue(['ok']).join('; ')"),
    show('uuid', "format.uuid().validate(object.data.n).orValue(['ok']).join('; ')"),
    show('uri', "format.uri().validate(object.data.n).orValue(['ok']).join('; ')"),
    show('date', "format.date().validate(object.data.n).orValue(['ok']).join('; ')"),
    show('datetime', "format.datetime().validate(object.data.n).orValue(['ok']).join('; ')"),
    show('byte', "format.byte().validate(object.data.n).orValue(['ok']).join('; ')"),
    check("format.named(object.data.?f.orValue('dns1123Label')).hasValue()"),
    check("format.named(object.data.?f.orValue('dns1123Label')).value().validate(object.data.n).hasValue()"),
  ],
  inputs: [
    ...singles('n', [
      'web',
      'Web',
      'a-b.c',
      '-a',
      'a'.repeat(64),
      'x/y',
      'example.com/name',
      '123',
      '550e8400-e29b-41d4-a716-446655440000',
      '',
      'a_b',
      'éa',
      '2024-02-30',
      '2024-02-29T10:00:00Z',
      'aGVsbG8=',
      'https://example.com/x',
    ]),
    { n: 'web', f: 'dns1035Label' },
    { n: '1web', f: 'dns1035Label' },
    { n: 'web', f: 'nope' },
    { n: 'x'.repeat(254), f: 'dns1123Subdomain' },
  ],
};

const semver: LibraryPolicy = {
  library: 'semver',
  validationActions: ['Warn'],
  validations: [
    check('isSemver(object.data.v)'),
    check('isSemver(object.data.v, true)'),
    check('semver(object.data.v).isLessThan(semver(object.data.w))'),
    check('semver(object.data.v, true).isGreaterThan(semver(object.data.w, true))'),
    show('parts', "string(semver(object.data.v).major()) + '.' + string(semver(object.data.v).minor()) + '.' + string(semver(object.data.v).patch())"),
    show('compare', 'string(semver(object.data.v, true).compareTo(semver(object.data.w, true)))'),
  ],
  inputs: pairs(
    ['v', 'w'],
    [
      ['1.2.3', '1.2.4'],
      ['v1.2.3', '1.2.3'],
      ['1.2', '1.2.0'],
      ['1.2.3-alpha', '1.2.3'],
      ['1.2.3+build', '1.2.3'],
      ['01.2.3', '1.2.3'],
      ['abc', '1.0.0'],
      ['2.0.0', '10.0.0'],
      ['1.0.0-rc.1', '1.0.0-rc.2'],
      ['1', '1.0.0'],
      ['', '1.0.0'],
      ['1.0.0-alpha.beta', '1.0.0-alpha.1'],
      ['V2.0', 'v2.0.1'],
      ['18446744073709551616.0.0', '1.0.0'],
      ['1.2.3.4', '1.2.3'],
      ['0.0.0', '0.0.0-0'],
      ['1.2.3-01', '1.2.3'],
      ['v01.02.03', '1.2.3'],
      ['1.2.3-beta', '1.2.3-alpha'],
      ['10.20.30', '10.20.3'],
      ['1.0.0+a.b', '1.0.0+c'],
    ],
  ),
};

const regex: LibraryPolicy = {
  library: 'regex',
  validationActions: ['Warn'],
  validations: [
    check('object.data.s.matches(object.data.p)'),
    show('find', 'object.data.s.find(object.data.p)'),
    show('all', "object.data.s.findAll(object.data.p).join(',')"),
    show('two', "object.data.s.findAll(object.data.p, 2).join(',')"),
    check("object.data.s.matches('^[a-z]+$')"),
    check("matches(object.data.s, '\\\\d')"),
  ],
  inputs: pairs(
    ['s', 'p'],
    [
      ['abc123def45', '[0-9]+'],
      ['héllo', '^h.llo$'],
      ['aaa', 'a*?'],
      ['x', '(?=x)'],
      ['a.b', 'a\\.b'],
      ['AbC', '(?i)abc'],
      ['', '^$'],
      ['a1b2c3', '[a-z][0-9]'],
      ['😀x', '^.x$'],
      ['line1\nline2', '^line2$'],
      ['line1\nline2', '(?m)^line2$'],
      ['abc', '['],
      ['αβγ', '\\p{Greek}+'],
      ['ab', 'a{2,1}'],
      ['aaaa', '(a)\\1'],
      ['abcabc', 'b'],
      ['ab', ''],
      ['Straße', '(?i)STRASSE'],
      ['foo bar', '\\bbar'],
      ['aXbXc', 'X(.)'],
      ['ab12', '\\w+'],
      ['tab\there', '\\s'],
    ],
  ),
};

const LISTS = ['1,2,3', '3,1,2', '', '5', '1,1,2,2', '10,-5,7', 'x,1', '9223372036854775807,1', '-9223372036854775808,-1', '2,2,2', '4,3,2,1', ' 1,2', '0,0', '7,3,3,9,1'];

const lists: LibraryPolicy = {
  library: 'lists',
  validationActions: ['Warn'],
  variables: [{ name: 'nums', expression: "object.data.l.split(',').map(x, int(x))" }],
  validations: [
    show('sum', 'string(variables.nums.sum())'),
    show('min', 'string(variables.nums.min())'),
    show('max', 'string(variables.nums.max())'),
    show('index', "string(variables.nums.indexOf(2)) + ',' + string(variables.nums.lastIndexOf(2))"),
    check('variables.nums.isSorted()'),
    show('sorted', "variables.nums.sort().map(x, string(x)).join(',')"),
    show('first', "string(variables.nums.first().orValue(-1)) + ',' + string(variables.nums.last().orValue(-1))"),
    show('flat', "[variables.nums, [9]].flatten().map(x, string(x)).join(',')"),
    show('distinct', "variables.nums.distinct().map(x, string(x)).join(',')"),
    show('range', "lists.range(size(variables.nums)).map(x, string(x)).join(',')"),
    show('slice', "variables.nums.slice(1, 3).map(x, string(x)).join(',')"),
    show('reverse', "variables.nums.reverse().map(x, string(x)).join(',')"),
    show('sortBy', "variables.nums.sortBy(x, -x).map(x, string(x)).join(',')"),
    show('words', "object.data.l.split(',').sort().join('|')"),
  ],
  inputs: singles('l', LISTS),
};

const sets: LibraryPolicy = {
  library: 'sets',
  validationActions: ['Warn', 'Audit'],
  validations: [
    check("sets.contains(object.data.a.split(','), object.data.b.split(','))"),
    check("sets.equivalent(object.data.a.split(','), object.data.b.split(','))"),
    check("sets.intersects(object.data.a.split(','), object.data.b.split(','))"),
    check("sets.contains(object.data.a.split(',').map(x, size(x)), [1])"),
  ],
  inputs: pairs(
    ['a', 'b'],
    [
      ['a,b,c', 'a,b'],
      ['a,b', 'b,a'],
      ['a', 'b'],
      ['', ''],
      ['a,a', 'a'],
      ['x,y', 'y,z'],
      ['ab,c', 'c'],
      ['A', 'a'],
      ['a,b,c', ''],
      ['', 'a'],
      ['😀,b', '😀'],
      ['1,2,3', '3,2,1,1'],
      ['a,b', 'a,b,c'],
      ['x', 'x'],
    ],
  ),
};

const strings: LibraryPolicy = {
  library: 'strings',
  validationActions: ['Warn'],
  validations: [
    show('index', "string(object.data.s.indexOf('b')) + ',' + string(object.data.s.lastIndexOf('b')) + ',' + string(object.data.s.indexOf('b', 2))"),
    show('char', 'object.data.s.charAt(1)'),
    show('sub', 'object.data.s.substring(1, 3)'),
    show('case', "object.data.s.lowerAscii() + '|' + object.data.s.upperAscii()"),
    show('split', "object.data.s.split('b').join('+') + '|' + object.data.s.split('', 3).join('+')"),
    show('replace', "object.data.s.replace('b', 'X', 1) + '|' + object.data.s.replace('', '.')"),
    show('quote', 'strings.quote(object.data.s)'),
    show('format', "'%s has %d chars, %.2f, %x, %o, %b, %e'.format([object.data.s, size(object.data.s), 1.5, size(object.data.s) + 250, 8, 5, 1234.5])"),
    show('trim', "'[' + object.data.s.trim() + ']'"),
    show('size', 'string(size(object.data.s))'),
    show('bytes', 'string(size(bytes(object.data.s)))'),
    check("object.data.s.startsWith('😀') || object.data.s.endsWith('b') || object.data.s.contains('ß')"),
    show('format list', "'%s'.format([object.data.s.split('b')])"),
  ],
  inputs: singles('s', [
    '😀bc',
    'ab',
    'a\u0301b',
    'ß',
    'ΣΑΣ',
    'ﬃb',
    'abc',
    'ÀÉÎ straße',
    '',
    'b',
    'aXbXb',
    '  padded  ',
    '日本語b',
    'ǅungla',
    'İstanbul',
    'a"b\\c',
    'tab\there',
    'é',
    'bb',
    'a😀b😀b',
  ]),
};

const comprehensions: LibraryPolicy = {
  library: 'comprehensions',
  validationActions: ['Warn'],
  validations: [
    check("object.data.all(k, v, size(k) <= 5 && v != '')"),
    check("object.data.exists(k, v, v == 'x')"),
    check("object.data.existsOne(k, v, v == 'x')"),
    show('list', "object.data.transformList(k, v, k + '=' + v).sort().join(',')"),
    show('filtered', "object.data.transformList(k, v, v != 'x', k).sort().join(',')"),
    show('map', "object.data.transformMap(k, v, size(v)).transformList(k, v, k + ':' + string(v)).sort().join(',')"),
    show('entries', "object.data.transformMapEntry(k, v, {v: k}).transformList(k, v, k + ':' + v).sort().join(',')"),
    check("object.data.transformList(k, v, v).all(i, v, i < 5 || v != '')"),
    show('indexed', "[10, 20, 30].transformList(i, v, i * v).map(x, string(x)).join(',')"),
  ],
  inputs: [
    { a: 'x' },
    { a: 'x', b: 'x' },
    { a: 'x', b: 'y' },
    { long_key: 'v' },
    { a: '' },
    { a: '1', b: '2', c: '3' },
    { a: 'y', bb: 'x', ccc: 'z' },
    { k1: 'same', k2: 'same' },
    { x: 'x', y: 'x', z: 'x' },
    { 'a.b': 'c' },
    { A: 'B', b: 'a' },
    { 'x-1': '😀' },
    { abcdef: 'x' },
    { a: 'x', b: '', c: 'x' },
  ],
};

const optionals: LibraryPolicy = {
  library: 'optionals',
  validationActions: ['Warn'],
  validations: [
    show('nonzero', "optional.ofNonZeroValue(object.data.?a.orValue('')).orValue('zero')"),
    show('optMap', "object.data.?a.optMap(x, x + '!').orValue('none')"),
    show('optFlatMap', "object.data.?a.optFlatMap(x, x == '' ? optional.none() : optional.of(x)).orValue('empty')"),
    show('unwrap', "optional.unwrap([object.data.?a, object.data.?b]).join(',')"),
    check('object.data.?a.hasValue()'),
    show('value', 'object.data.?a.value()'),
    show('index', "object.data[?'b'].orValue('no b')"),
    check("{'x': 1}[?object.data.?a.orValue('x')].orValue(0) == 1"),
    show('or', "object.data.?a.or(object.data.?b).orValue('neither')"),
    show('list', "[?object.data.?a, ?object.data.?b].join(',')"),
  ],
  inputs: [{}, { a: 'x' }, { a: '' }, { b: 'y' }, { a: 'x', b: 'y' }, { a: '', b: '' }, { c: 'z' }, { a: 'x', c: 'z' }, { b: '' }, { a: '0' }],
};

const time: LibraryPolicy = {
  library: 'time',
  validationActions: ['Warn'],
  validations: [
    show('timestamp', 'string(timestamp(object.data.t))'),
    check('timestamp(object.data.t).getHours(object.data.z) >= 0'),
    show('hours', 'string(timestamp(object.data.t).getHours(object.data.z))'),
    show(
      'date',
      "[timestamp(object.data.t).getFullYear(object.data.z), timestamp(object.data.t).getMonth(object.data.z), timestamp(object.data.t).getDate(object.data.z), timestamp(object.data.t).getDayOfMonth(), timestamp(object.data.t).getDayOfWeek(object.data.z), timestamp(object.data.t).getDayOfYear(object.data.z), timestamp(object.data.t).getMinutes(object.data.z), timestamp(object.data.t).getMilliseconds()].map(x, string(x)).join(',')",
    ),
    show('duration', 'string(duration(object.data.d))'),
    show(
      'duration parts',
      "[duration(object.data.d).getHours(), duration(object.data.d).getMinutes(), duration(object.data.d).getSeconds(), duration(object.data.d).getMilliseconds()].map(x, string(x)).join(',')",
    ),
    show('shifted', 'string(timestamp(object.data.t) + duration(object.data.d))'),
    show('seconds', 'string(int(timestamp(object.data.t)))'),
    check("timestamp(object.data.t) < timestamp('2030-01-01T00:00:00Z')"),
    show('between', "string(timestamp(object.data.t) - timestamp('2024-01-01T00:00:00Z'))"),
    show('double', 'string(double(duration(object.data.d).getSeconds()) / 60.0)'),
  ],
  inputs: [
    { t: '2024-02-29T23:30:00Z', d: '1h30m', z: 'America/New_York' },
    { t: '2024-01-01T00:00:00+05:30', d: '-90s', z: 'Asia/Kolkata' },
    { t: 'not a time', d: '1h', z: 'UTC' },
    { t: '2024-06-01T12:00:00.123456789Z', d: '1.5h', z: 'Europe/Paris' },
    { t: '2024-06-01T12:00:00Z', d: '1d', z: '+02:00' },
    { t: '9999-12-31T23:59:59Z', d: '1s', z: 'UTC' },
    { t: '2024-06-01T12:00:00Z', d: '300ms', z: 'Invalid/Zone' },
    { t: '0001-01-01T00:00:00Z', d: '-1s', z: 'UTC' },
    { t: '2024-03-10T07:30:00Z', d: '2562047h', z: 'America/Los_Angeles' },
    { t: '2024-03-10T07:30:00Z', d: '2562048h', z: '-08:00' },
    { t: '2024-12-31T23:59:60Z', d: '0s', z: 'UTC' },
    { t: '2024-07-04', d: '1m', z: 'UTC' },
    { t: '2024-10-27T00:30:00Z', d: '1h2m3.5s', z: 'Europe/London' },
    { t: '1970-01-01T00:00:00Z', d: '-1h', z: 'Australia/Lord_Howe' },
    { t: '2024-06-01T12:00:00Z', d: '24h', z: 'Asia/Kathmandu' },
    { t: '2024-06-01T12:00:00Z', d: '-2562047h47m16.854775808s', z: 'UTC' },
    { t: '2024-06-01t12:00:00z', d: '1H', z: 'utc' },
    { t: '2024-02-29T12:00:00-00:00', d: '0.000000001s', z: 'Local' },
  ],
};

const numbers: LibraryPolicy = {
  library: 'numbers',
  validationActions: ['Warn'],
  validations: [
    check('int(object.data.x) > 0'),
    show('sum', 'string(int(object.data.x) + int(object.data.y))'),
    show('product', 'string(int(object.data.x) * 2)'),
    show('negated', 'string(-int(object.data.x))'),
    show('quotient', 'string(int(object.data.x) / int(object.data.y))'),
    show('remainder', 'string(int(object.data.x) % int(object.data.y))'),
    show('uint', 'string(uint(object.data.x))'),
    show('double', 'string(double(object.data.x))'),
    show('to int', 'string(int(double(object.data.x) * 1e10))'),
    check('int(object.data.x) > 0 && int(object.data.y) > 0'),
    check('int(object.data.x) > 0 || int(object.data.y) > 0'),
    check("object.data.x == '1' || int(object.data.y) > 0"),
    check('int(object.data.y) > 0 && false'),
    check('int(object.data.x) > 0 && int(object.data.y) > 0 && object.data.z == "z"'),
    check('!(int(object.data.x) > 0) || object.data.missing == "m"'),
    show('string', 'string(object.data.x.size() > 0 ? bool(object.data.y) : false)'),
  ],
  inputs: pairs(
    ['x', 'y'],
    [
      ['1', '2'],
      ['', '2'],
      ['a', 'b'],
      ['9223372036854775807', '1'],
      ['-9223372036854775808', '-1'],
      ['5', '0'],
      ['1', ''],
      ['-7', '2'],
      ['1e3', 'true'],
      ['0x10', 'TRUE'],
      ['4611686018427387904', '2'],
      ['-1', 'false'],
      ['3.5', '1'],
      ['+5', 't'],
      ['9223372036854775806', '2'],
      ['-9223372036854775807', '-2'],
      ['18446744073709551615', '1'],
      ['007', '3'],
      ['1_000', '1'],
      ['-0', '-0'],
    ],
  ),
};

/** The service account the authorizer is asked about, and what RBAC grants it (authz.test's Role and RoleBinding). */
export const AUTHZ_NAMESPACE = 'lib-authz';
export const AUTHZ_READER = 'reader';

const authz: LibraryPolicy = {
  library: 'authz',
  validationActions: ['Deny'],
  validations: [
    {
      expression: `authorizer.serviceAccount('${AUTHZ_NAMESPACE}', object.data.sa).group(object.data.group).resource(object.data.resource).namespace('${AUTHZ_NAMESPACE}').check(object.data.verb).allowed()`,
      messageExpression: "object.data.sa + ' may not ' + object.data.verb + ' ' + object.data.resource",
      reason: 'Forbidden',
    },
    { expression: "authorizer.requestResource.check('create').allowed()", message: 'the requester may not create the ConfigMap' },
    { expression: "!authorizer.serviceAccount('lib-authz', object.data.sa).group('').resource('secrets').namespace('lib-authz').check('get').allowed()", message: 'may read secrets' },
  ],
  inputs: [
    { sa: AUTHZ_READER, group: '', resource: 'pods', verb: 'get' },
    { sa: AUTHZ_READER, group: '', resource: 'pods', verb: 'list' },
    { sa: AUTHZ_READER, group: '', resource: 'pods', verb: 'delete' },
    { sa: AUTHZ_READER, group: '', resource: 'configmaps', verb: 'get' },
    { sa: 'stranger', group: '', resource: 'pods', verb: 'get' },
    { sa: AUTHZ_READER, group: 'apps', resource: 'deployments', verb: 'get' },
    { sa: AUTHZ_READER, group: 'apps', resource: 'pods', verb: 'get' },
  ],
};

export const LIBRARY_POLICIES: readonly LibraryPolicy[] = [quantity, quantityDeny, network, url, format, semver, regex, lists, sets, strings, comprehensions, optionals, time, numbers, authz];

import { describe, expect, it } from 'vitest';
import { durationProblem, formatProblem, regexProblem, timestampProblem } from '../../../../generator/src/cel/literals.js';

describe("literals checked as Go reads them (kube-apiserver's CEL validators)", () => {
  it('durations: time.ParseDuration, within an int64 of nanoseconds', () => {
    for (const valid of ['0', '1s', '-1.5h', '+2m3s', '1h30m', '300ms', '1us', '1µs', '.5s', '2562047h']) expect(durationProblem(valid), valid).toBeUndefined();
    for (const invalid of ['', '1', '1x', '.s', 's', '1 s', '2562048h', '-']) expect(durationProblem(invalid), invalid).toBeDefined();
  });

  it('timestamps: RFC 3339 with a valid date, years 1 to 9999', () => {
    for (const valid of ['2020-01-01T00:00:00Z', '2020-02-29T23:59:59.123456789+01:00', '0001-01-01T00:00:00Z', '9999-12-31T23:59:59Z']) expect(timestampProblem(valid), valid).toBeUndefined();
    for (const invalid of [
      '2020-02-30T00:00:00Z',
      '2021-02-29T00:00:00Z',
      '2020-01-01t00:00:00z',
      '2020-01-01T24:00:00Z',
      '0000-01-01T00:00:00Z',
      '0001-01-01T00:00:00+01:00',
      '2020-01-01',
      'now',
    ]) {
      expect(timestampProblem(invalid), invalid).toBeDefined();
    }
  });

  it('regexes: RE2 syntax, not JavaScript', () => {
    for (const valid of ['^[a-z]+$', '(?i)abc', '(?P<name>a)', '\\pL+', '[[:alpha:]]+', '\\Qa.b\\E', 'a{1000}', '\\x{41}', '\\012']) expect(regexProblem(valid), valid).toBeUndefined();
    for (const invalid of ['[', 'a(?=b)', '(?<!a)b', '(a)\\1', '\\q', '\\u0041', 'a{1001}', '[[:nope:]]', 'a**']) expect(regexProblem(invalid), invalid).toBeDefined();
  });

  it('string.format: clauses against the kinds of a list literal', () => {
    expect(formatProblem('%s-%d %.2f %x %%', [['string'], ['int'], ['double'], ['bytes']])).toBeUndefined();
    expect(formatProblem('%s', [['list', 'int', 'string']])).toBeUndefined();
    expect(formatProblem('%d', [['string']])).toEqual({ message: 'error during formatting: decimal clause can only be used on integers, was given string', argument: 0 });
    expect(formatProblem('%s %s', [['string']])).toEqual({ message: 'index 1 out of range' });
    expect(formatProblem('%s', [['string'], ['int']])).toEqual({ message: 'too many arguments supplied to string.format (expected 1, got 2)' });
    expect(formatProblem('%q', [['int']])?.message).toBe('could not parse formatting clause: unrecognized formatting clause "q"');
  });
});

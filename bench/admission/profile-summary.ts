/** Summarises a V8 .cpuprofile: self time by module group, and the top functions by self time. */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const GROUPS: [string, (url: string, fn: string) => boolean][] = [
  ['idle', (url, fn) => fn === '(idle)'],
  ['garbage collection', (url, fn) => fn === '(garbage collector)'],
  ['native / unattributed (program)', (url, fn) => fn === '(program)'],
  ['JSON parse/stringify', (url, fn) => url === '' && /^(parse|stringify|JSON\.\w+)$/.test(fn)],
  // JSON.parse is inlined into its caller, so decodeReview's self time is the parse of the review.
  ['JSON parse (decodeReview)', (url, fn) => fn === 'decodeReview'],
  // Socket writes run the TLS encryption (SSL_write) inside these natives.
  ['socket write + TLS encryption (native)', (url, fn) => url === '' && /^(writeUtf8String|writeLatin1String|writeBuffer|writev)$/.test(fn)],
  ['body decode (utf8Slice)', (url, fn) => url === '' && fn === 'utf8Slice'],
  ['TLS (node:tls, _tls_wrap)', (url) => /node:(internal\/)?(tls|_tls|crypto)|_tls_wrap|internal\/tls/.test(url)],
  ['HTTP (node:_http_*)', (url) => /node:(_http|internal\/http|http)/.test(url)],
  ['streams and events', (url) => /node:(internal\/streams|events|internal\/event|stream)/.test(url)],
  ['express / router', (url) => /node_modules\/(express|router|body-parser|finalhandler|send|path-to-regexp|qs|on-finished)/.test(url)],
  ['metrics (prom-client)', (url) => url.includes('node_modules/prom-client') || url.includes('/runtime/server/metrics')],
  ['handler deadline timers', (url) => /node:(internal\/)?timers/.test(url)],
  ['logging (pino)', (url) => /node_modules\/(pino|sonic-boom|thread-stream)/.test(url)],
  ['JSON patch (fast-json-patch)', (url) => url.includes('node_modules/fast-json-patch')],
  ['body reading (runtime/server/body)', (url) => url.includes('/runtime/server/body')],
  // serve runs the bundle (ADR 0014): its chunks hold the runtime and the dependencies it bundles, so the
  // module-based rows above (prom-client, pino, runtime/server/body) only see unbundled code.
  ['shaper-gen runtime and its bundled dependencies (other)', (url) => /\/dist\/(runtime|chunks|package|bin)\//.test(url)],
  ['handlers (sample + bench)', (url) => /\/dist\/(sample|bench)\//.test(url)],
  ['other node_modules', (url) => url.includes('node_modules/')],
  ['node core (other)', (url) => url.startsWith('node:')],
  ['other builtins', () => true],
];

const groupOf = (url: string, fn: string) => GROUPS.find(([, match]) => match(url, fn))![0];

export function summariseProfile(profile: CpuProfile, repo: string, top = 15): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));

  const groups = new Map<string, number>();
  const functions = new Map<string, { us: number; group: string }>();
  let total = 0;
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const group = groupOf(url, functionName);
    if (group === 'idle') continue;
    total += us;
    groups.set(group, (groups.get(group) ?? 0) + us);
    const where = url ? `${url.replace(`file://${repo}/`, '').replace(/^.*node_modules\//, '')}:${lineNumber + 1}` : '(native)';
    const key = `${functionName || '(anonymous)'} ${where}`;
    const entry = functions.get(key) ?? { us: 0, group };
    entry.us += us;
    functions.set(key, entry);
  }
  const pct = (us: number) => ((100 * us) / total).toFixed(1);
  const groupRows = [...groups].sort((a, b) => b[1] - a[1]).map(([group, us]) => `| ${group} | ${(us / 1000).toFixed(0)} | ${pct(us)} |`);
  const functionRows = [...functions]
    .sort((a, b) => b[1].us - a[1].us)
    .slice(0, top)
    .map(([name, { us, group }]) => `| \`${name}\` | ${group} | ${pct(us)} |`);
  return [
    `Busy (non-idle) CPU time: ${(total / 1000).toFixed(0)} ms`,
    '',
    '| group | self ms | % of busy |',
    '|---|---:|---:|',
    ...groupRows,
    '',
    `| top ${top} functions by self time | group | % of busy |`,
    '|---|---|---:|',
    ...functionRows,
  ].join('\n');
}

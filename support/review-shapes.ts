/**
 * Admission reviews of a given size whose bulk is one shape of JSON: the
 * shapes that cost the most heap per byte once decoded (bench/memory measures
 * each), and one of the shape real objects have. Built as text, not as JS
 * values: a 7 MiB body of tiny objects as a value would be the caller's own
 * heap problem.
 */
export const REVIEW_SHAPES: Record<string, (i: number) => string> = {
  'empty objects': () => '{}',
  'empty arrays': () => '[]',
  'nested arrays': () => '[[]]',
  zeros: () => '0',
  'objects with a new key each': (i) => `{"a${i}":0}`,
  'one object of many keys': (i) => `"k${i}":${i}`,
  'env-var-like objects': (i) => `{"name":"V${i}","value":"x","port":${i}}`,
};

/** A Profile review of `bytes` (less a few), its bulk items of `shape` in spec.extra. */
export function shapedReview(uid: string, shape: string, bytes: number): string {
  const item = REVIEW_SHAPES[shape]!;
  const [open, close] = shape === 'one object of many keys' ? ['{', '}'] : ['[', ']'];
  const head = `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"${uid}","kind":{"group":"shaper.io","version":"v1alpha1","kind":"Profile"},"resource":{"group":"shaper.io","version":"v1alpha1","resource":"profiles"},"namespace":"a","operation":"CREATE","userInfo":{"username":"u"},"object":{"apiVersion":"shaper.io/v1alpha1","kind":"Profile","metadata":{"name":"p","namespace":"a"},"spec":{"extra":${open}`;
  const tail = `${close}}}}}`;
  const parts: string[] = [];
  for (let size = head.length + tail.length, i = 0; ; i++) {
    const next = item(i);
    if (size + next.length + 1 > bytes) break;
    parts.push(next);
    size += next.length + 1;
  }
  return head + parts.join(',') + tail;
}

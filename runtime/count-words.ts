/** "1 policy", "2 policies", "0 webhooks": a count with its noun in the number it takes. */
export function countOf(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}

/** "2 webhooks, 1 policy and 1 conversion": the counts that are not 0 (the first always), joined as a sentence does. */
export function listCounts(first: string, ...others: readonly (readonly [count: number, singular: string, plural?: string])[]): string {
  const parts = [first, ...others.filter(([count]) => count > 0).map(([count, singular, plural]) => countOf(count, singular, plural))];
  return parts.length === 1 ? parts[0]! : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)!}`;
}

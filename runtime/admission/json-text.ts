/**
 * Passes over JSON text that materialise nothing, for what must be known
 * before (or instead of) parsing it: how deep it nests, how many values it
 * holds. Strings are skipped with indexOf, so a body of long strings costs
 * little more than its number of values.
 */

/** Index of the quote that closes the string opened at `open` (or the text's length when none does). */
export function closingQuote(text: string, open: number): number {
  let quote = open;
  for (;;) {
    quote = text.indexOf('"', quote + 1);
    if (quote === -1) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return quote;
  }
}

/** Whether objects and arrays nest more than `limit` levels anywhere in `text` (brackets inside strings do not count). */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) i = closingQuote(text, i);
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** Colons (one per object property) and other separators and openers (about one per other value) outside strings. */
export function countValues(text: string): { properties: number; values: number } {
  let properties = 0;
  let values = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) i = closingQuote(text, i);
    else if (c === 0x3a) properties++;
    else if (c === 0x2c || c === 0x7b || c === 0x5b) values++;
  }
  return { properties, values };
}

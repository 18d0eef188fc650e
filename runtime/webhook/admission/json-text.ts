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

/** What decoding a JSON text will build, counted without building it (see measureJson). */
export interface JsonShape {
  readonly objects: number;
  readonly arrays: number;
  /** Values inside arrays. */
  readonly elements: number;
  /** Properties among the first SMALL_OBJECT_PROPERTIES of their object (V8 keeps those in a hidden class). */
  readonly smallObjectProperties: number;
  /** Properties past those: the object is a hash table by then. */
  readonly largeObjectProperties: number;
  /** String values (keys are properties). */
  readonly strings: number;
  /**
   * About how many different keys the small-object properties have: each new one makes V8 create a hidden
   * class when the object is decoded and again when it is copied, which costs far more than its bytes.
   */
  readonly distinctKeys: number;
  /** Whether any character needs two bytes in a JS string (then every string of the text takes twice the heap). */
  readonly twoByte: boolean;
}

export const SMALL_OBJECT_PROPERTIES = 128;
const OBJECT = 1;
const ARRAY = 2;
/**
 * The key bitmap, kept between passes up to 2^20 bits (128 KiB): a new one per review was an off-heap allocation of
 * up to that size for every large body, and counting its bits afterwards cost more than the pass over the text.
 */
const MAX_BITMAP_WORDS_KEPT = 2 ** 20 / 32;
let keptBitmap = new Uint32Array(32);

/** A cleared bitmap of `words` words: the one kept, or a new one past MAX_BITMAP_WORDS_KEPT. */
function clearedBitmap(words: number): Uint32Array {
  if (words > MAX_BITMAP_WORDS_KEPT) return new Uint32Array(words);
  if (keptBitmap.length < words) keptBitmap = new Uint32Array(words);
  else keptBitmap.fill(0, 0, words);
  return keptBitmap;
}

/**
 * One pass over `text` (valid JSON or not) that counts what JSON.parse would build. Strings are skipped with
 * indexOf except for keys of small objects, which are hashed into a bitmap to estimate how many are different
 * (linear counting). Undefined when objects and arrays nest deeper than `maxDepth`.
 */
export function measureJson(text: string, maxDepth: number): JsonShape | undefined {
  const containers = new Uint8Array(maxDepth + 1);
  const propertyCounts = new Uint32Array(maxDepth + 1);
  // At least one bit per character: more than the keys a text can hold, so linear counting stays within a few percent.
  const hashBits = 2 ** Math.max(10, Math.ceil(Math.log2(text.length + 1)));
  const keyHashes = clearedBitmap(hashBits / 32);
  let bitsSet = 0;
  let depth = 0;
  let objects = 0;
  let arrays = 0;
  let elements = 0;
  let smallObjectProperties = 0;
  let largeObjectProperties = 0;
  let strings = 0;
  let hashedKeys = 0;
  let expectingKey = false;
  let arrayJustOpened = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    if (arrayJustOpened) {
      arrayJustOpened = false;
      if (c !== 0x5d) elements++;
    }
    switch (c) {
      case 0x22: {
        const close = closingQuote(text, i);
        if (expectingKey && containers[depth] === OBJECT) {
          expectingKey = false;
          if (propertyCounts[depth]!++ < SMALL_OBJECT_PROPERTIES) {
            smallObjectProperties++;
            hashedKeys++;
            const hash = hashRange(text, i + 1, close) & (hashBits - 1);
            const word = keyHashes[hash >>> 5]!;
            const bit = 1 << (hash & 31);
            if ((word & bit) === 0) {
              keyHashes[hash >>> 5] = word | bit;
              bitsSet++;
            }
          } else largeObjectProperties++;
        } else strings++;
        i = close;
        break;
      }
      case 0x7b:
      case 0x5b:
        if (depth === maxDepth) return undefined;
        depth++;
        containers[depth] = c === 0x7b ? OBJECT : ARRAY;
        propertyCounts[depth] = 0;
        if (c === 0x7b) {
          objects++;
          expectingKey = true;
        } else {
          arrays++;
          arrayJustOpened = true;
        }
        break;
      case 0x7d:
      case 0x5d:
        if (depth > 0) depth--;
        expectingKey = false;
        break;
      case 0x2c:
        if (containers[depth] === OBJECT) expectingKey = true;
        else if (containers[depth] === ARRAY) elements++;
        break;
    }
  }
  return {
    objects,
    arrays,
    elements,
    smallObjectProperties,
    largeObjectProperties,
    strings,
    distinctKeys: Math.min(hashedKeys, estimateDistinct(bitsSet, hashBits)),
    twoByte: /[\u0100-\uffff]/.test(text),
  };
}

/** FNV-1a over the UTF-16 code units of text[start, end). */
function hashRange(text: string, start: number, end: number): number {
  let hash = 0x811c9dc5;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** Linear counting: from the share of bits still clear, how many different values were hashed into the bitmap. */
function estimateDistinct(set: number, bits: number): number {
  return set === bits ? Number.POSITIVE_INFINITY : Math.round(-bits * Math.log((bits - set) / bits));
}

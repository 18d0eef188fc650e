/**
 * The bearer token of a connection: fixed, or read from a file that is
 * re-read once a minute and after a 401, because projected ServiceAccount
 * tokens are rotated on disk (client-go re-reads them the same way).
 */
import { readFileSync } from 'node:fs';

const REREAD_AFTER_MS = 60_000;

export interface TokenSource {
  /** The token to send now. */
  current(): string;
  /** The API server refused the token (401): read it again before the next request. */
  rejected(): void;
}

export function fixedToken(token: string): TokenSource {
  return { current: () => token, rejected: () => undefined };
}

export class TokenFile implements TokenSource {
  private token: string;
  private readAt: number;

  /** Reads the file at once: a missing or empty token file is a configuration error, reported at start. */
  constructor(readonly file: string) {
    this.token = readToken(file);
    this.readAt = Date.now();
  }

  current(): string {
    if (Date.now() - this.readAt >= REREAD_AFTER_MS) {
      this.readAt = Date.now();
      try {
        this.token = readToken(this.file);
      } catch {
        // Mid-rotation (or gone for a moment): keep the last token; a 401 brings the next read forward.
      }
    }
    return this.token;
  }

  rejected(): void {
    this.readAt = 0;
  }
}

function readToken(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read the token file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, { cause: error });
  }
  const token = text.trim();
  if (token === '') throw new Error(`the token file ${file} is empty`);
  return token;
}

/**
 * The Express app behind the webhook port, loaded on first use: Express and
 * its dependencies are about 10 MiB of a server's idle memory, and a server
 * that only answers admission reviews never needs them.
 */
import { createRequire } from 'node:module';
import type { Express } from 'express';

const require = createRequire(import.meta.url);

export function createPlainApp(): Express {
  const express = require('express') as typeof import('express');
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  return app;
}

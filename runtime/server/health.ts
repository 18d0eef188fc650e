/**
 * Liveness and readiness in the style of the Kubernetes API server's own
 * endpoints: `/healthz`, `/readyz`, and `?verbose` for one line per check.
 */
import express, { type Express, type Request, type Response } from 'express';

export interface HealthCheck {
  readonly name: string;
  /** Resolves to an error message when failing, undefined when healthy. */
  readonly run: () => Promise<string | undefined> | string | undefined;
}

export function mountHealthEndpoints(app: Express, liveness: readonly HealthCheck[], readiness: readonly HealthCheck[]): Express {
  app.get('/healthz', (req, res) => void respond(req, res, 'healthz', liveness));
  app.get('/livez', (req, res) => void respond(req, res, 'livez', liveness));
  app.get('/readyz', (req, res) => void respond(req, res, 'readyz', readiness));
  return app;
}

export function createPlainApp(): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  return app;
}

async function respond(req: Request, res: Response, endpoint: string, checks: readonly HealthCheck[]): Promise<void> {
  const results = await Promise.all(
    checks.map(async (check) => {
      try {
        return { name: check.name, failure: await check.run() };
      } catch (error) {
        return { name: check.name, failure: (error as Error).message };
      }
    }),
  );
  const failed = results.filter((result) => result.failure !== undefined);
  const verbose = req.query.verbose !== undefined || failed.length > 0;
  const lines = verbose ? results.map((r) => (r.failure === undefined ? `[+]${r.name} ok` : `[-]${r.name} failed: ${r.failure}`)) : [];
  lines.push(failed.length === 0 ? (verbose ? `${endpoint} check passed` : 'ok') : `${endpoint} check failed`);
  res.status(failed.length === 0 ? 200 : 503).type('text/plain').send(`${lines.join('\n')}\n`);
}

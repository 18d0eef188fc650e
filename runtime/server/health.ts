/**
 * Liveness and readiness in the style of the Kubernetes API server's own
 * endpoints: `/healthz`, `/readyz`, and `?verbose` for one line per check.
 */
export interface HealthCheck {
  readonly name: string;
  /** Resolves to an error message when failing, undefined when healthy. */
  readonly run: () => Promise<string | undefined> | string | undefined;
}

/** Runs the checks; the text lists each one when verbose or failing, as kube-apiserver does. */
export async function evaluateChecks(endpoint: string, checks: readonly HealthCheck[], verbose: boolean): Promise<{ status: number; text: string }> {
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
  const listed = verbose || failed.length > 0;
  const lines = listed ? results.map((r) => (r.failure === undefined ? `[+]${r.name} ok` : `[-]${r.name} failed: ${r.failure}`)) : [];
  lines.push(failed.length === 0 ? (listed ? `${endpoint} check passed` : 'ok') : `${endpoint} check failed`);
  return { status: failed.length === 0 ? 200 : 503, text: `${lines.join('\n')}\n` };
}

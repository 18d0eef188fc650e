/**
 * How the API server reaches the webhooks of static admission files: by URL
 * (static admission has no Services), trusting a CA bundle file's
 * certificates. From `--static-url` / `--static-ca-bundle`, else from the
 * `static` section of shaper.yaml.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from 'shaper-gen/internal/generator';
import { diagnosticIn } from '../diagnostics.js';
import type { GeneratorConfig } from '../config.js';
import { webhookUrlProblem } from './webhook-url.js';

export interface StaticSettings {
  /** Every webhook's URL is this base and the webhook's path. */
  readonly url: string | undefined;
  /** The base64 of the CA bundle file's PEM, as `clientConfig.caBundle` holds it. */
  readonly caBundle: string | undefined;
}

export interface StaticFlags {
  readonly static?: string;
  readonly staticUrl?: string;
  readonly staticCaBundle?: string;
}

/** `--static <dir>`'s output, or undefined without it (then its settings flags are a mistake). */
export function staticOutputOf(config: GeneratorConfig, flags: StaticFlags, cwd: string): { dir: string; settings: StaticSettings } | undefined {
  if (flags.static === undefined) {
    const given = [flags.staticUrl !== undefined && '--static-url', flags.staticCaBundle !== undefined && '--static-ca-bundle'].filter((flag) => flag !== false);
    if (given.length > 0)
      throw new ConfigError(
        given.map((flag) => ({ path: [flag], message: 'is for static admission files: add --static <dir>' })),
        'static admission',
      );
    return undefined;
  }
  return { dir: path.resolve(cwd, flags.static), settings: resolveStaticSettings(config, flags, cwd) };
}

function resolveStaticSettings(config: GeneratorConfig, flags: StaticFlags, cwd: string): StaticSettings {
  const url = flags.staticUrl ?? config.staticAdmission?.url;
  const urlProblem = flags.staticUrl === undefined ? undefined : webhookUrlProblem(flags.staticUrl);
  if (urlProblem) throw new ConfigError([{ path: ['--static-url'], message: `${flags.staticUrl} ${urlProblem}` }], 'static admission');
  const caFile = flags.staticCaBundle !== undefined ? path.resolve(cwd, flags.staticCaBundle) : config.staticAdmission?.caBundle && path.resolve(config.root, config.staticAdmission.caBundle);
  return { url, caBundle: caFile === undefined ? undefined : readCaBundle(caFile) };
}

function readCaBundle(file: string): string {
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(
      [diagnosticIn(file, `cannot read the CA bundle: ${(error as Error).message}; name a PEM file with --static-ca-bundle or static.caBundle in shaper.yaml`)],
      'static admission',
    );
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new ConfigError(
      [diagnosticIn(file, "not a PEM bundle of CA certificates (no -----BEGIN CERTIFICATE-----): name the CA that signed the webhook server's certificate")],
      'static admission',
    );
  }
  return Buffer.from(pem).toString('base64');
}

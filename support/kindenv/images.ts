/**
 * Images for kindEnv's node, built here with buildah (no registry is
 * reachable): the sandbox image and the stand-in Node base come from
 * scripts/install-node-images.sh; an application image is built from a
 * project's own Dockerfile, unchanged but for its NODE_IMAGE build argument.
 * buildah's layer cache makes a rebuild of an unchanged context take seconds.
 */
import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../repo-root.ts';

const run = promisify(execFile);

export interface BaseImages {
  pause: string;
  nodeBase: string;
}

/** Builds (once, cached) and names the sandbox and Node base images. */
export async function baseImages(): Promise<BaseImages> {
  const { stdout } = await run('bash', [path.join(REPO_ROOT, 'scripts/install-node-images.sh')], { maxBuffer: 16 * 1024 * 1024 });
  const [pause, nodeBase] = stdout.trim().split('\n').slice(-2) as [string, string];
  return { pause, nodeBase };
}

export interface BuiltImage {
  repository: string;
  tag: string;
  /** repository:tag */
  name: string;
  /** The image's size as buildah reports it (its layers, uncompressed), e.g. "413 MB". */
  size: string;
  buildSeconds: number;
}

/** `buildah bud` of `contextDir`'s Dockerfile, tagged by the image ID so a changed build is a new tag. */
export async function buildImage(contextDir: string, repository: string, nodeBase: string): Promise<BuiltImage> {
  const started = Date.now();
  const idFile = path.join(os.tmpdir(), `shaper-kindenv-iid-${process.pid}`);
  try {
    await run('buildah', ['bud', '--quiet', '--layers', '--pull-never', '--network', 'host', '--build-arg', `NODE_IMAGE=${nodeBase}`, '--iidfile', idFile, '-f', 'Dockerfile', '.'], {
      cwd: contextDir,
      maxBuffer: 64 * 1024 * 1024,
    }).catch((error: unknown) => {
      // execFile's error carries the child's output.
      const { stdout, stderr, message } = error as { stdout?: string; stderr?: string; message: string };
      throw new Error(`buildah bud in ${contextDir} failed:\n${(stderr || stdout || message).split('\n').slice(-30).join('\n')}`);
    });
    const id = readFileSync(idFile, 'utf8')
      .trim()
      .replace(/^sha256:/, '');
    const tag = id.slice(0, 12);
    await run('buildah', ['tag', id, `${repository}:${tag}`]);
    const { stdout } = await run('buildah', ['images', '--noheading', '--format', '{{.Size}}', `${repository}:${tag}`]);
    return { repository, tag, name: `${repository}:${tag}`, size: stdout.trim(), buildSeconds: (Date.now() - started) / 1000 };
  } finally {
    rmSync(idFile, { force: true });
  }
}

/**
 * `shaper-gen dev`: the inner loop. Generates (manifests), compiles (the
 * project's `npm run build`) and restarts `serve --dev` on the compiled
 * handlers module, then again on every change to a TypeScript source, so a
 * webhook added to a file is served seconds later. Runs until interrupted.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { CLI_PATH, DEFAULT_COMPILED_HANDLERS, type DevFlags } from 'shaper-gen/internal/generator';
import { loadGeneratorConfig } from '../config.js';
import { runManifests } from '../manifests/run-manifests.js';
import { watchSources } from './source-watcher.js';

const SETTLE_MS = 200;

export async function runDev(flags: DevFlags, cwd = process.cwd()): Promise<number> {
  const config = loadGeneratorConfig(flags.config, cwd);
  const handlers = flags.handlers ?? DEFAULT_COMPILED_HANDLERS;
  let server: ChildProcess | undefined;
  let running = Promise.resolve();
  let pending = false;

  const cycle = async () => {
    if ((await runManifests({ config: flags.config }, cwd)) !== 0) {
      say('fix the problems above; waiting for a change');
      return;
    }
    const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd, stdio: 'inherit' });
    if (build.status !== 0) {
      say('the build failed; waiting for a change');
      return;
    }
    await stop(server);
    const args = [CLI_PATH, 'serve', '--dev', '--handlers', handlers, '--health-port', '0', '--metrics-port', '0', ...(flags.port !== undefined ? ['--port', String(flags.port)] : [])];
    server = spawn(process.execPath, args, { cwd, stdio: 'inherit' });
    say('serving; editing a source regenerates, rebuilds and restarts');
  };
  const schedule = () => {
    if (pending) return;
    pending = true;
    setTimeout(() => {
      pending = false;
      running = running.then(cycle, cycle);
    }, SETTLE_MS);
  };

  const generated = path.resolve(config.root, config.handlersModule);
  const watcher = watchSources(config.root, {
    isSource: (file) => /\.(m?ts|tsx)$/.test(file) && file !== generated,
    skipsDirectory: (name) => name === 'node_modules' || name === 'dist' || name.startsWith('.'),
    onChange: schedule,
  });
  schedule();
  await new Promise<void>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve());
  });
  watcher.close();
  await running;
  await stop(server);
  return 0;
}

function say(message: string): void {
  console.log(`shaper-gen dev: ${message}`);
}

function stop(child: ChildProcess | undefined): Promise<void> {
  if (child?.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  });
}

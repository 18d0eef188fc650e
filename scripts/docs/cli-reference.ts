/**
 * docs/reference/cli.md: the `shaper-gen` program's own help, command by
 * command. It runs the CLI from its sources (bin/shaper-gen.ts, through
 * source-hooks.ts), asks for `--help`, and reads the command list from that
 * help (and each command's subcommands from its own), so the page lists exactly
 * the commands and flags commander defines.
 */
import { spawnSync } from 'node:child_process';
import { generatedHeader } from './markdown.ts';

const CLI = 'bin/shaper-gen.ts';

function help(root: string, args: readonly string[]): string {
  const result = spawnSync(process.execPath, ['--no-warnings', '--import', './scripts/docs/source-hooks.ts', CLI, ...args, '--help'], {
    cwd: root,
    encoding: 'utf8',
    // Piped, commander wraps help at 80 columns and writes no colour.
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  if (result.status !== 0) throw new Error(`scripts/docs: shaper-gen ${[...args, '--help'].join(' ')} exited ${result.status}: ${result.stderr}`);
  return result.stdout.trimEnd();
}

/** The command names in a program's help: the first word of each line under "Commands:". */
function commandsOf(text: string): string[] {
  const section = text.split(/^Commands:$/m)[1];
  if (section === undefined) return [];
  return [...section.matchAll(/^ {2}([a-z][\w-]*)/gm)].map((match) => match[1]!).filter((name) => name !== 'help');
}

export function cliPage(root: string): string {
  const top = help(root, []);
  const commands = commandsOf(top);
  if (commands.length === 0) throw new Error(`scripts/docs: no commands in the help of ${CLI}`);
  const out = [
    generatedHeader('CLI reference', ['runtime/cli/', CLI]),
    '',
    'The `shaper-gen` executable comes with the `shaper-gen` package. `serve` runs the admission server; `init`,',
    '`create api`, `manifests` and `dev` run `@shaper-gen/generator`, which must be installed in the project at the same version',
    "(`runtime/cli/load-generator.ts`). Below is each command's `--help`.",
    '',
    '## `shaper-gen`',
    '',
    '```text',
    top,
    '```',
  ];
  for (const command of commands) {
    const text = help(root, [command]);
    out.push('', `## \`shaper-gen ${command}\``, '', '```text', text, '```');
    for (const sub of commandsOf(text)) out.push('', `## \`shaper-gen ${command} ${sub}\``, '', '```text', help(root, [command, sub]), '```');
  }
  return `${out.join('\n')}\n`;
}

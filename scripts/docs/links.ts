/**
 * What `npm run docs:check` holds the hand-written docs to: in README.md,
 * CONTRIBUTING.md and docs/**\/*.md (outside fenced code blocks),
 *
 * - every relative markdown link, `[text](target)` or `[label]: target`,
 *   points to a file or folder of the repository (the part after `#` is not
 *   checked);
 * - every inline code span that is a repository path exists: a span without
 *   spaces that contains "/" and starts with the name of one of the
 *   repository's top-level folders (`runtime/server/drain.ts`,
 *   `charts/shaper-webhooks/`). A trailing `:`, `:line` or `:line:col` is ignored;
 *   a span with `*`, `?` or `{` is a glob that must match at least one file;
 *   one with `<`, `>` or `…` is a pattern for the reader (`charts/<name>/`)
 *   and is not checked. A chart's own path (`templates/_rbac-rules.tpl`,
 *   read inside a project's chart) that the top-level templates/ lacks is
 *   looked for in the sample's chart, the product's chart shape.
 *
 * "The repository" is what git tracks plus untracked files it does not
 * ignore, so a path that exists only in a build (`dist/`) or a cache is not
 * one.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The sample's chart: where a chart-relative path in the docs is found. */
const SAMPLE_CHART = 'charts/shaper-webhooks';

export interface DocsProblem {
  readonly file: string;
  readonly line: number;
  readonly message: string;
}

export interface CheckResult {
  readonly problems: DocsProblem[];
  readonly files: number;
  readonly links: number;
  readonly paths: number;
}

const DOCS = ['README.md', 'CONTRIBUTING.md'];
const FENCE = /^\s*(```|~~~)/;
const INLINE_LINK = /!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;
const REFERENCE_LINK = /^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s|$)/;
const CODE_SPAN = /(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/** Files git tracks or would track (untracked, not ignored); the file system when there is no git. */
export function repositoryFiles(root: string): string[] {
  try {
    const output = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return output.split('\0').filter((file) => file !== '' && existsSync(path.join(root, file)));
  } catch {
    const walk = (dir: string): string[] =>
      readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
        if (['.git', 'node_modules', 'dist'].includes(entry.name)) return [];
        const relative = dir ? `${dir}/${entry.name}` : entry.name;
        return entry.isDirectory() ? walk(relative) : [relative];
      });
    return walk('');
  }
}

/** The markdown files the check reads: README.md, CONTRIBUTING.md, docs/**\/*.md. */
export function docsFiles(files: readonly string[]): string[] {
  return files.filter((file) => DOCS.includes(file) || (file.startsWith('docs/') && file.endsWith('.md'))).sort();
}

function globPattern(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i]!;
    if (char === '*' && glob[i + 1] === '*') {
      source += glob[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += glob[i + 2] === '/' ? 2 : 1;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else if (char === '{') source += '(?:';
    else if (char === '}') source += ')';
    else if (char === ',' && source.includes('(?:')) source += '|';
    else source += char.replace(/[.+^$()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}/?$`);
}

/** Checks the docs among `files` (repository-relative) against the files and folders `files` makes up. */
export function checkDocs(root: string, files: readonly string[] = repositoryFiles(root)): CheckResult {
  const entries = new Set<string>();
  for (const file of files) {
    const parts = file.split('/');
    for (let i = 1; i <= parts.length; i++) entries.add(parts.slice(0, i).join('/'));
  }
  const topFolders = new Set(files.filter((file) => file.includes('/')).map((file) => file.split('/')[0]!));
  const exists = (relative: string) => entries.has(path.posix.normalize(relative).replace(/\/$/, ''));
  const existsInRepositoryOrChart = (relative: string) => exists(relative) || (relative.startsWith('templates/') && exists(path.posix.join(SAMPLE_CHART, relative)));
  const problems: DocsProblem[] = [];
  let links = 0;
  let paths = 0;
  const markdown = docsFiles(files);
  for (const file of markdown) {
    let fenced = false;
    readFileSync(path.join(root, file), 'utf8')
      .split('\n')
      .forEach((text, index) => {
        if (FENCE.test(text)) {
          fenced = !fenced;
          return;
        }
        if (fenced) return;
        const line = index + 1;
        const report = (message: string) => problems.push({ file, line, message });
        const spans = [...text.matchAll(CODE_SPAN)];
        // Links are read from the prose only: a code span shows text, it links nowhere.
        const prose = spans.reduce((rest, span) => rest.slice(0, span.index) + ' '.repeat(span[0].length) + rest.slice(span.index + span[0].length), text);
        const targets = [...prose.matchAll(INLINE_LINK)].map((match) => match[1]!);
        const reference = REFERENCE_LINK.exec(prose);
        if (reference) targets.push(reference[1]!);
        for (const target of targets) {
          if (SCHEME.test(target) || target.startsWith('#')) continue;
          links++;
          const bare = decodeURIComponent(target.replace(/[#?].*$/, ''));
          const resolved = bare.startsWith('/') ? bare.slice(1) : path.posix.join(path.posix.dirname(file), bare);
          if (resolved.startsWith('..') || !exists(resolved)) report(`link to ${target}: no such file or folder in the repository`);
        }
        for (const span of spans) {
          const candidate = span[2]!.trim().replace(/:(\d+(:\d+)?)?$/, '');
          if (/\s/.test(candidate) || !candidate.includes('/') || /[<>…]/.test(candidate)) continue;
          if (!topFolders.has(candidate.split('/')[0]!)) continue;
          paths++;
          if (/[*?{]/.test(candidate)) {
            const pattern = globPattern(candidate);
            if (![...entries].some((entry) => pattern.test(entry))) report(`\`${candidate}\` matches no file in the repository`);
          } else if (!existsInRepositoryOrChart(candidate)) report(`\`${candidate}\`: no such file or folder in the repository`);
        }
      });
  }
  return { problems, files: markdown.length, links, paths };
}

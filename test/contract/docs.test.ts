// The README is a user's guide and the depth lives in docs/: the README stays within 400 lines,
// every relative link of the README and docs/ reaches a file (and, with a #fragment, a heading
// of it, by GitHub's anchors), and every setting src/config.ts reads is documented in a
// configuration table of the README or docs/operations.md.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const README = 'README.md';
const DOCS = 'docs';
const MAX_README_LINES = 400;

const read = (file: string) => readFileSync(file, 'utf8');
const markdownFiles = (): string[] => [README, ...readdirSync(DOCS).filter((name) => name.endsWith('.md')).sort().map((name) => path.join(DOCS, name))];

/** The text outside fenced code blocks and inline code, where a link is a link. */
export function proseOf(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '``');
}

/** GitHub's anchor for a heading's text: lowercased, punctuation dropped, spaces as hyphens. */
export function slugOf(heading: string): string {
  return heading
    .trim()
    .replace(/`/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a Markdown file's headings, repeated ones numbered as GitHub numbers them. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const slug = slugOf(match[1]);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** The relative links (and images) of a Markdown file: its targets, with their fragments. */
export function relativeLinksOf(markdown: string): string[] {
  const targets = [...proseOf(markdown).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1]);
  return targets.filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** Each relative link of `file` that reaches no file, or no heading of the file it names. */
export function brokenLinksOf(file: string): string[] {
  const broken: string[] = [];
  for (const target of relativeLinksOf(read(file))) {
    const [pathPart, fragment] = target.split('#', 2) as [string, string | undefined];
    const resolved = pathPart === '' ? file : path.join(path.dirname(file), decodeURIComponent(pathPart));
    if (!existsSync(resolved)) {
      broken.push(`${file}: ${target} (no file ${resolved})`);
      continue;
    }
    if (fragment === undefined) continue;
    if (!resolved.endsWith('.md') || statSync(resolved).isDirectory()) {
      broken.push(`${file}: ${target} (a fragment of what is not a Markdown file)`);
      continue;
    }
    if (!anchorsOf(read(resolved)).has(decodeURIComponent(fragment).toLowerCase())) broken.push(`${file}: ${target} (no heading #${fragment} in ${resolved})`);
  }
  return broken;
}

/** The environment variables src/config.ts reads: every `CMS_*` name and each name it passes with `env`. */
function settingsRead(): string[] {
  const source = read('src/config.ts');
  const names = new Set<string>([...source.matchAll(/\bCMS_[A-Z0-9_]+\b/g)].map((match) => match[0]));
  for (const match of source.matchAll(/\benv,\s*'([A-Z][A-Z0-9_]*)'/g)) names.add(match[1]);
  return [...names].sort();
}

/** The variables a configuration table of `file` documents: rows that begin with the variable. */
function settingsDocumented(file: string): Set<string> {
  return new Set([...read(file).matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((match) => match[1]));
}

describe('the documentation', () => {
  it(`keeps the README a guide of at most ${MAX_README_LINES} lines`, () => {
    const lines = read(README).replace(/\n$/, '').split('\n').length;
    expect(lines, `README.md has ${lines} lines; move depth to docs/`).toBeLessThanOrEqual(MAX_README_LINES);
  });

  it('links the README to every file of docs/', () => {
    const linked = new Set(relativeLinksOf(read(README)).map((target) => path.normalize(target.split('#')[0])));
    const docs = markdownFiles().filter((file) => file !== README);
    expect(docs.length).toBeGreaterThan(0);
    expect(docs.filter((file) => !linked.has(path.normalize(file)))).toEqual([]);
  });

  it('has no relative link to a missing file or heading, in the README or docs/', () => {
    const files = markdownFiles();
    expect(files.flatMap((file) => relativeLinksOf(read(file))).length).toBeGreaterThan(20);
    expect(files.flatMap(brokenLinksOf)).toEqual([]);
  });

  it('documents every setting src/config.ts reads, in the README or docs/operations.md', () => {
    const read = settingsRead();
    expect(read.length).toBeGreaterThan(30);
    const documented = new Set([...settingsDocumented(README), ...settingsDocumented(path.join(DOCS, 'operations.md'))]);
    expect(read.filter((name) => !documented.has(name))).toEqual([]);
  });
});

describe('the link checker', () => {
  it("finds GitHub's anchors", () => {
    expect([...anchorsOf('# CMS service\n## Signing in (the admin page)\n## Security: what is filtered\n### `npm run bench`\n## Notes\n## Notes\n```\n# not a heading\n```\n')]).toEqual([
      'cms-service',
      'signing-in-the-admin-page',
      'security-what-is-filtered',
      'npm-run-bench',
      'notes',
      'notes-1',
    ]);
  });

  it('reads links and images outside code, and leaves out addresses with a scheme', () => {
    const markdown = '[a](docs/a.md#x) ![b](docs/b.png) [c](https://example.com) `[d](e.md)`\n```\n[f](g.md)\n```\n[h](#top)';
    expect(relativeLinksOf(markdown)).toEqual(['docs/a.md#x', 'docs/b.png', '#top']);
  });
});

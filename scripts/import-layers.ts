// The import graph of src/ against its layers (README, Layout): every import goes to the
// importer's own layer or one below it, and no two folders import each other, directly or round
// a longer circle. `test/contract/import-layers.test.ts` holds `npm test` to it;
// `npm run imports:report` prints the graph's upward imports and folder cycles.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * The layers, lowest first. An entry names a folder or a file directly under `src/`; every
 * source file must fall under one, so a new folder is placed on purpose.
 */
export const LAYERS: readonly (readonly string[])[] = [
  ['config.ts', 'logger.ts', 'shutdown.ts', 'lib', 'types'],
  ['store'],
  ['rest'],
  ['auth'],
  ['registry', 'themes', 'deps.ts'],
  ['resources'],
  ['admin', 'admin-page'],
  ['app.ts', 'service.ts', 'workers.ts', 'event-loop-report.ts', 'main.ts'],
];

/**
 * Circles between resource folders still to be untied (a resource reaching into another's
 * files): the one place they are allowed. A circle passes while every folder in it is in one of
 * these sets, and so does a circle of files within them; a folder newly drawn into a circle, or
 * any circle elsewhere, fails.
 */
export const KNOWN_RESOURCE_CYCLES: readonly (readonly string[])[] = [
  [
    'resources/autosaves',
    'resources/history',
    'resources/menu-items',
    'resources/menus',
    'resources/posts',
    'resources/revisions',
    'resources/settings',
    'resources/templates',
    'resources/users',
  ],
  ['resources/global-styles', 'resources/themes'],
];

export interface SourceImport {
  readonly from: string;
  readonly to: string;
}

export interface ImportGraph {
  readonly files: readonly string[];
  readonly imports: readonly SourceImport[];
}

export interface LayerReport {
  /** Files under no layer. */
  readonly unplaced: readonly string[];
  /** Imports from a lower layer to a higher one. */
  readonly upward: readonly SourceImport[];
  /** Folders importing each other, round any circle: one entry per strongly connected set. */
  readonly cycles: readonly (readonly string[])[];
  /** Files importing each other, round any circle, within a folder or across folders. */
  readonly fileCycles: readonly (readonly string[])[];
  /** The folder and file cycles not covered by KNOWN_RESOURCE_CYCLES. */
  readonly newCycles: readonly (readonly string[])[];
}

function sourceFiles(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) found.push(...sourceFiles(full));
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts')) found.push(full);
  }
  return found;
}

function resolveRelative(importer: string, specifier: string): string | undefined {
  const target = path.resolve(path.dirname(importer), specifier);
  const candidates = [target.replace(/\.js$/, '.ts'), target, `${target}.ts`, path.join(target, 'index.ts')];
  return candidates.find((candidate) => {
    try {
      return statSync(candidate).isFile();
    } catch {
      return false;
    }
  });
}

/** Every relative import (type-only and dynamic ones too) between the `.ts` files under `srcDir`, tests left out. */
export function readImportGraph(srcDir: string): ImportGraph {
  const absolute = sourceFiles(srcDir);
  const relative = (file: string) => path.relative(srcDir, file).split(path.sep).join('/');
  const imports: SourceImport[] = [];
  for (const file of absolute) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = resolveRelative(file, fileName);
      if (target) imports.push({ from: relative(file), to: relative(target) });
    }
  }
  return { files: absolute.map(relative).sort(), imports };
}

/** The layer index of a file (a path relative to `src/`), or undefined when no layer names it. */
export function layerOf(file: string): number | undefined {
  const top = file.split('/')[0];
  const index = LAYERS.findIndex((layer) => layer.includes(top));
  return index < 0 ? undefined : index;
}

/** The folder a file counts in for cycles: its folder under `src/` (under `src/resources/` for a resource), or the file itself when it lies loose in `src/` or `src/resources/`. */
export function folderOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] === 'resources') return parts.length === 2 ? file : parts.slice(0, 2).join('/');
  return parts.length === 1 ? file : parts[0];
}

/**
 * Strongly connected sets of two or more nodes (Tarjan's algorithm), each sorted, largest first,
 * a file's node being `nodeOf(file)`: its folder, or the file itself.
 */
export function cyclesOf(imports: readonly SourceImport[], nodeOf: (file: string) => string): string[][] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of imports) {
    const [a, b] = [nodeOf(from), nodeOf(to)];
    if (!next.has(a)) next.set(a, new Set());
    if (!next.has(b)) next.set(b, new Set());
    if (a !== b) next.get(a)!.add(b);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const sets: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const target of next.get(node)!) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node)!, index.get(target)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const set: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      set.push(member);
    } while (member !== node);
    if (set.length > 1) sets.push(set.sort());
  };
  for (const node of [...next.keys()].sort()) if (!index.has(node)) visit(node);
  return sets.sort((a, b) => b.length - a.length || a[0].localeCompare(b[0]));
}

export function checkLayers(graph: ImportGraph): LayerReport {
  const unplaced = graph.files.filter((file) => layerOf(file) === undefined);
  const upward = graph.imports.filter(({ from, to }) => (layerOf(from) ?? 0) < (layerOf(to) ?? 0));
  const cycles = cyclesOf(graph.imports, folderOf);
  const fileCycles = cyclesOf(graph.imports, (file) => file);
  const isKnown = (cycle: readonly string[]) => KNOWN_RESOURCE_CYCLES.some((known) => cycle.every((node) => known.includes(folderOf(node))));
  const newCycles = [...cycles, ...fileCycles].filter((cycle) => !isKnown(cycle));
  return { unplaced, upward, cycles, fileCycles, newCycles };
}

export function describeReport(report: LayerReport): string {
  const { unplaced, upward, cycles, fileCycles, newCycles } = report;
  const lines = [
    `${upward.length} upward imports, ${cycles.length} folder cycles, ${fileCycles.length} file cycles (${newCycles.length} cycles not among the known ones)`,
  ];
  for (const file of unplaced) lines.push(`  under no layer: ${file}`);
  for (const { from, to } of upward) lines.push(`  upward: ${from} -> ${to}`);
  for (const cycle of cycles) lines.push(`  folder cycle: ${cycle.join(', ')}`);
  for (const cycle of fileCycles) lines.push(`  file cycle: ${cycle.join(', ')}`);
  return lines.join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const srcDir = path.resolve(here, here.includes(`${path.sep}dist${path.sep}`) ? '../../src' : '../src');
  console.log(describeReport(checkLayers(readImportGraph(srcDir))));
}

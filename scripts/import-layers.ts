// The import graph of src/ against its layers (docs/architecture.md, Layers): every import goes to the
// importer's own layer or one below it, no two folders import each other, directly or round a
// longer circle, and a resource folder is entered only through its index.ts.
// `test/contract/import-layers.test.ts` holds `npm test` to it; `npm run imports:report` prints
// the graph's upward imports, cycles and imports of a resource folder's other files.
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
  // The store, by part: the database and its provisioning, query tooling, what processes share
  // besides the log (the site's change token, leases, id claims), the change log, its
  // projections, and the command cycle with reads as of a moment.
  ['store/database'],
  ['store/queries'],
  ['store/coordination'],
  ['store/log'],
  ['store/projections'],
  ['store/history'],
  ['rest'],
  ['auth'],
  ['registry', 'themes', 'deps.ts'],
  ['resources'],
  ['admin', 'admin-page'],
  ['app.ts', 'service.ts', 'workers.ts', 'event-loop-report.ts', 'main.ts'],
];

/**
 * Collections named by a string in more than one folder, with why: each other collection is named
 * only by the folder that owns it, which the others ask through its index.
 */
export const SHARED_COLLECTIONS: ReadonlyMap<string, string> = new Map([
  ['options', 'the site key, which authentication (a layer below resources) keeps among the settings, as WordPress keeps auth_key'],
  ['checkpoints', "one document per keeper, each named by its id: the site's change token, the log's positions, the feed's retention, each projection's checkpoint and the kept lists' reread token"],
]);

export interface SourceImport {
  readonly from: string;
  readonly to: string;
  /** The names the statement imports (a namespace or `export *` counts one); absent where a test builds the graph by hand. */
  readonly names?: number;
}

export interface ImportGraph {
  readonly files: readonly string[];
  readonly imports: readonly SourceImport[];
  /** Each collection named by a string (`db.collection('posts')`), with the folders (as `folderOf` names them) that name it. */
  readonly collections?: ReadonlyMap<string, readonly string[]>;
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
  /** Imports of a resource folder's files other than its `index.ts` from outside the folder. */
  readonly privateImports: readonly SourceImport[];
  /** Collections named by a string in more than one folder: a slice reading or writing another's. */
  readonly sharedCollections: readonly (readonly [string, readonly string[]])[];
  /** Those SHARED_COLLECTIONS does not name. */
  readonly newSharedCollections: readonly (readonly [string, readonly string[]])[];
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

/** How many names each static import or re-export of a file takes, by module specifier (a specifier imported twice: the sum). */
function namesBySpecifier(file: string, text: string): Map<string, number> {
  const names = new Map<string, number>();
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  for (const statement of source.statements) {
    let specifier: ts.Expression | undefined;
    let count = 1;
    if (ts.isImportDeclaration(statement)) {
      specifier = statement.moduleSpecifier;
      const clause = statement.importClause;
      const bindings = clause?.namedBindings;
      count = (clause?.name ? 1 : 0) + (bindings ? (ts.isNamedImports(bindings) ? bindings.elements.length : 1) : 0);
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier) {
      specifier = statement.moduleSpecifier;
      const clause = statement.exportClause;
      count = clause && ts.isNamedExports(clause) ? clause.elements.length : 1;
    }
    if (specifier && ts.isStringLiteral(specifier)) names.set(specifier.text, (names.get(specifier.text) ?? 0) + count);
  }
  return names;
}

const NAMED_COLLECTION = /\.collection(?:<[^>()]*>)?\(\s*(['"`])([\w.]+)\1/g;

/** Every relative import (type-only and dynamic ones too) between the `.ts` files under `srcDir`, tests left out, and the collections they name by string. */
export function readImportGraph(srcDir: string): ImportGraph {
  const absolute = sourceFiles(srcDir);
  const relative = (file: string) => path.relative(srcDir, file).split(path.sep).join('/');
  const imports: SourceImport[] = [];
  const collections = new Map<string, Set<string>>();
  for (const file of absolute) {
    const text = readFileSync(file, 'utf8');
    const { importedFiles } = ts.preProcessFile(text, true, true);
    const names = namesBySpecifier(file, text);
    const counted = new Set<string>();
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = resolveRelative(file, fileName);
      // A dynamic import takes what it destructures later: it counts one name. A file imported by
      // two statements has its names counted on the first.
      const taken = counted.has(fileName) ? 0 : (names.get(fileName) ?? 1);
      counted.add(fileName);
      if (target) imports.push({ from: relative(file), to: relative(target), names: taken });
    }
    for (const [, , collection] of text.matchAll(NAMED_COLLECTION)) {
      (collections.get(collection) ?? collections.set(collection, new Set()).get(collection)!).add(folderOf(relative(file)));
    }
  }
  const sorted = new Map([...collections].sort(([a], [b]) => a.localeCompare(b)).map(([name, folders]) => [name, [...folders].sort()]));
  return { files: absolute.map(relative).sort(), imports, collections: sorted };
}

/** The layer index of a file (a path relative to `src/`), or undefined when no layer names it. */
export function layerOf(file: string): number | undefined {
  const top = folderOf(file).startsWith('store/') ? folderOf(file) : file.split('/')[0];
  const index = LAYERS.findIndex((layer) => layer.includes(top));
  return index < 0 ? undefined : index;
}

/**
 * The folder a file counts in for cycles: its folder under `src/` (under `src/resources/` for a
 * resource, under `src/store/` for a part of the store), or the file itself when it lies loose in
 * `src/` or `src/resources/`.
 */
export function folderOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] === 'resources') return parts.length === 2 ? file : parts.slice(0, 2).join('/');
  if (parts[0] === 'store' && parts.length > 2) return parts.slice(0, 2).join('/');
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

/**
 * Whether `to` is a file inside a resource folder other than its `index.ts`, imported from outside
 * that folder: what a folder shares is what its index exports. Files directly under `resources/`
 * (the manifest type, the errors several resources answer with) are shared by all.
 */
export function isPrivateImport({ from, to }: SourceImport): boolean {
  const parts = to.split('/');
  if (parts[0] !== 'resources' || parts.length < 3) return false;
  return folderOf(from) !== folderOf(to) && parts.slice(2).join('/') !== 'index.ts';
}

export function checkLayers(graph: ImportGraph): LayerReport {
  const unplaced = graph.files.filter((file) => layerOf(file) === undefined);
  const upward = graph.imports.filter(({ from, to }) => (layerOf(from) ?? 0) < (layerOf(to) ?? 0));
  const cycles = cyclesOf(graph.imports, folderOf);
  const fileCycles = cyclesOf(graph.imports, (file) => file);
  const privateImports = graph.imports.filter(isPrivateImport);
  const sharedCollections = [...(graph.collections ?? new Map<string, readonly string[]>())].filter(([, folders]) => folders.length > 1);
  const newSharedCollections = sharedCollections.filter(([collection]) => !SHARED_COLLECTIONS.has(collection));
  return { unplaced, upward, cycles, fileCycles, privateImports, sharedCollections, newSharedCollections };
}

/** Imports by pair of folders: `from -> to`, with their count of statements and names. */
export function importsByFolderPair(imports: readonly SourceImport[]): Map<string, { statements: number; names: number }> {
  const pairs = new Map<string, { statements: number; names: number }>();
  for (const edge of imports) {
    const key = `${folderOf(edge.from)} -> ${folderOf(edge.to)}`;
    const pair = pairs.get(key) ?? pairs.set(key, { statements: 0, names: 0 }).get(key)!;
    pair.statements++;
    pair.names += edge.names ?? 1;
  }
  return new Map([...pairs].sort(([a], [b]) => a.localeCompare(b)));
}

export function describeReport(report: LayerReport): string {
  const { unplaced, upward, cycles, fileCycles, privateImports, sharedCollections } = report;
  const privateNames = privateImports.reduce((total, edge) => total + (edge.names ?? 1), 0);
  const lines = [
    `${upward.length} upward imports, ${cycles.length} folder cycles, ${fileCycles.length} file cycles`,
    `${privateImports.length} imports of another resource folder's files other than its index.ts (${privateNames} names), ${sharedCollections.length} collections named by a string in more than one folder`,
  ];
  for (const file of unplaced) lines.push(`  under no layer: ${file}`);
  for (const { from, to } of upward) lines.push(`  upward: ${from} -> ${to}`);
  for (const cycle of cycles) lines.push(`  folder cycle: ${cycle.join(', ')}`);
  for (const cycle of fileCycles) lines.push(`  file cycle: ${cycle.join(', ')}`);
  for (const [pair, { statements, names }] of importsByFolderPair(privateImports)) lines.push(`  private imports: ${pair}: ${statements} imports, ${names} names`);
  for (const [collection, folders] of sharedCollections) lines.push(`  collection '${collection}' named in: ${folders.join(', ')}`);
  return lines.join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const srcDir = path.resolve(here, here.includes(`${path.sep}dist${path.sep}`) ? '../../src' : '../src');
  console.log(describeReport(checkLayers(readImportGraph(srcDir))));
}

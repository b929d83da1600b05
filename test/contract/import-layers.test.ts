// src/ imports only downward through its layers (README, Layout), no two folders import each
// other, and a resource folder is entered only through its index.ts: an import from a lower layer
// to a higher one, a folder cycle, a file cycle or a new import of another resource folder's other
// files fails here. `npm run imports:report` prints the graph.
import { describe, expect, it } from 'vitest';
import { checkLayers, describeReport, readImportGraph, type ImportGraph } from '../../scripts/import-layers.js';

function graphOf(...edges: [string, string][]): ImportGraph {
  const files = [...new Set(edges.flat())].sort();
  return { files, imports: edges.map(([from, to]) => ({ from, to })) };
}

describe('the import graph of src/', () => {
  it('places every file in a layer, imports nothing from a higher one, has no cycle and enters resource folders through their index.ts', () => {
    const report = checkLayers(readImportGraph('src'));
    const problems = { unplaced: report.unplaced, upward: report.upward, cycles: report.cycles, fileCycles: report.fileCycles, newPrivateImports: report.newPrivateImports };
    expect(problems, describeReport(report)).toEqual({ unplaced: [], upward: [], cycles: [], fileCycles: [], newPrivateImports: [] });
  });

  it("reports an import of a resource folder's file other than its index.ts from outside the folder, not one from inside it nor of a shared file", () => {
    const report = checkLayers(
      graphOf(
        ['resources/media/media.commands.ts', 'resources/posts/post.commands.ts'],
        ['resources/media/media.routes.ts', 'resources/posts/index.ts'],
        ['resources/posts/index.ts', 'resources/posts/post.commands.ts'],
        ['resources/posts/post.input.ts', 'resources/post-errors.ts'],
        ['service.ts', 'resources/users/user.accounts.ts'],
      ),
    );
    expect(report.newPrivateImports).toEqual([
      { from: 'resources/media/media.commands.ts', to: 'resources/posts/post.commands.ts' },
      { from: 'service.ts', to: 'resources/users/user.accounts.ts' },
    ]);
  });

  it('reports an import from a lower layer to a higher one', () => {
    const report = checkLayers(graphOf(['store/kernel.ts', 'rest/errors.ts'], ['lib/site-dates.ts', 'resources/settings/settings.schema.ts']));
    expect(report.upward).toEqual([
      { from: 'store/kernel.ts', to: 'rest/errors.ts' },
      { from: 'lib/site-dates.ts', to: 'resources/settings/settings.schema.ts' },
    ]);
  });

  it('reports a file under no layer', () => {
    expect(checkLayers(graphOf(['webhooks/deliver.ts', 'store/mongo.ts'])).unplaced).toEqual(['webhooks/deliver.ts']);
  });

  it('reports two folders of one layer that import each other, and two files of one folder', () => {
    const report = checkLayers(graphOf(['registry/a.ts', 'themes/b.ts'], ['themes/c.ts', 'registry/d.ts'], ['rest/x.ts', 'rest/y.ts'], ['rest/y.ts', 'rest/x.ts']));
    expect(report.cycles).toEqual([['registry', 'themes']]);
    expect(report.fileCycles).toEqual([['rest/x.ts', 'rest/y.ts']]);
  });

  it('reports resource folders importing each other round a circle, each folder counting as its own', () => {
    const report = checkLayers(
      graphOf(['resources/themes/index.ts', 'resources/global-styles/index.ts'], ['resources/global-styles/b.ts', 'resources/widgets/index.ts'], ['resources/widgets/c.ts', 'resources/themes/index.ts']),
    );
    expect(report.cycles).toEqual([['resources/global-styles', 'resources/themes', 'resources/widgets']]);
    expect(report.fileCycles).toEqual([]);
  });
});

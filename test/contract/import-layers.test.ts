// src/ imports only downward through its layers (docs/architecture.md, Layers), no two folders import each
// other, a resource folder is entered only through its index.ts, and a collection is named only by
// its owner: an import from a lower layer to a higher one, a folder or file cycle, an import of
// another resource folder's other files, or a collection named in a second folder fails here.
// The admin page's own code (admin/src/) has no file cycle either. `npm run imports:report`
// prints the graph of src/.
import { describe, expect, it } from 'vitest';
import { checkLayers, cyclesOf, describeReport, readImportGraph, type ImportGraph } from '../../scripts/import-layers.js';

function graphOf(...edges: [string, string][]): ImportGraph {
  const files = [...new Set(edges.flat())].sort();
  return { files, imports: edges.map(([from, to]) => ({ from, to })) };
}

describe('the import graph of src/', () => {
  it('places every file in a layer, imports nothing from a higher one, has no cycle, enters resource folders through their index.ts and names each collection in one folder', () => {
    const report = checkLayers(readImportGraph('src'));
    const { unplaced, upward, cycles, fileCycles, privateImports, newSharedCollections } = report;
    expect({ unplaced, upward, cycles, fileCycles, privateImports, newSharedCollections }, describeReport(report)).toEqual({
      unplaced: [],
      upward: [],
      cycles: [],
      fileCycles: [],
      privateImports: [],
      newSharedCollections: [],
    });
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
    expect(report.privateImports).toEqual([
      { from: 'resources/media/media.commands.ts', to: 'resources/posts/post.commands.ts' },
      { from: 'service.ts', to: 'resources/users/user.accounts.ts' },
    ]);
  });

  it('reports an import from a lower layer to a higher one', () => {
    const report = checkLayers(graphOf(['store/history/kernel.ts', 'rest/errors.ts'], ['lib/site-dates.ts', 'resources/settings/settings.schema.ts']));
    expect(report.upward).toEqual([
      { from: 'store/history/kernel.ts', to: 'rest/errors.ts' },
      { from: 'lib/site-dates.ts', to: 'resources/settings/settings.schema.ts' },
    ]);
  });

  it("counts each of the store's folders as a layer of its own", () => {
    const report = checkLayers(graphOf(['store/log/change-log.ts', 'store/projections/kept-index.ts'], ['store/projections/projections.ts', 'store/log/change-log.ts']));
    expect(report.upward).toEqual([{ from: 'store/log/change-log.ts', to: 'store/projections/kept-index.ts' }]);
    expect(report.cycles).toEqual([['store/log', 'store/projections']]);
  });

  it('reports a file under no layer', () => {
    expect(checkLayers(graphOf(['webhooks/deliver.ts', 'store/database/mongo.ts'])).unplaced).toEqual(['webhooks/deliver.ts']);
  });

  it('reports two folders of one layer that import each other, and two files of one folder', () => {
    const report = checkLayers(graphOf(['registry/a.ts', 'themes/b.ts'], ['themes/c.ts', 'registry/d.ts'], ['rest/x.ts', 'rest/y.ts'], ['rest/y.ts', 'rest/x.ts']));
    expect(report.cycles).toEqual([['registry', 'themes']]);
    expect(report.fileCycles).toEqual([['rest/x.ts', 'rest/y.ts']]);
  });

  it('reports a collection named in a second folder', () => {
    const graph = { ...graphOf(['resources/users/user.queries.ts', 'store/database/mongo.ts']), collections: new Map([['posts', ['resources/posts', 'resources/users']], ['users', ['resources/users']]]) };
    expect(checkLayers(graph).newSharedCollections).toEqual([['posts', ['resources/posts', 'resources/users']]]);
  });

  it('reports resource folders importing each other round a circle, each folder counting as its own', () => {
    const report = checkLayers(
      graphOf(['resources/themes/index.ts', 'resources/global-styles/index.ts'], ['resources/global-styles/b.ts', 'resources/widgets/index.ts'], ['resources/widgets/c.ts', 'resources/themes/index.ts']),
    );
    expect(report.cycles).toEqual([['resources/global-styles', 'resources/themes', 'resources/widgets']]);
    expect(report.fileCycles).toEqual([]);
  });
});

describe('the import graph of admin/src/', () => {
  it('has no cycle of files', () => {
    expect(cyclesOf(readImportGraph('admin/src').imports, (file) => file)).toEqual([]);
  });
});

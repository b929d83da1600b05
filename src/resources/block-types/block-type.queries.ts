import { type Deps } from '../../deps.js';
import { CORE_BLOCK_TYPES, type BlockJson } from '../../registry/block-types.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { activePluginBlockTypes } from '../plugins/index.js';

/**
 * The block types the site serves, in registration order: the core ones, then those of the
 * active plugins in the order they were installed. A name already served keeps its first
 * definition, as WordPress's registry refuses to register a name twice.
 */
export function servedBlockTypes(req: RestRequest, deps: Deps): Promise<BlockJson[]> {
  return req.memo('block-types', async () => {
    const served = [...CORE_BLOCK_TYPES];
    const names = new Set(served.map((block) => block.name));
    for (const block of await activePluginBlockTypes(deps.store.db)) {
      if (names.has(block.name)) continue;
      names.add(block.name);
      served.push(block);
    }
    return served;
  });
}

export async function findBlockType(req: RestRequest, deps: Deps, name: string): Promise<BlockJson | undefined> {
  return (await servedBlockTypes(req, deps)).find((block) => block.name === name);
}

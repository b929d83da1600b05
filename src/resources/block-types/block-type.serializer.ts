import { type BlockJson } from '../../registry/block-types.js';
import { type Links } from '../../rest/links.js';
import { type RestRequest } from '../../rest/rest-request.js';

/** WordPress's `generate_block_asset_handle`: the handle a `file:` asset of block.json is registered under. */
function assetHandle(blockName: string, field: string, index: number): string {
  let handle: string;
  if (blockName.startsWith('core/')) {
    handle = blockName.replace('core/', 'wp-block-');
    if (field.startsWith('editor')) handle += '-editor';
    if (field.startsWith('view')) handle += '-view';
    if (field.toLowerCase().endsWith('scriptmodule')) handle += '-script-module';
  } else {
    handle = `${blockName.replace('/', '-')}-${field.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
  }
  return index > 0 ? `${handle}-${index + 1}` : handle;
}

/** A block.json asset field as a list of handles: a handle stays as written, a `file:` path becomes its generated handle. */
function handlesOf(block: BlockJson, field: string): string[] {
  const value = block[field];
  if (value === undefined) return [];
  return ([] as string[]).concat(value as string | string[]).map((handle, index) => (handle.startsWith('file:') ? assetHandle(block.name, field, index) : handle));
}

// WordPress adds these to every registered block type's attributes (`WP_Block_Type::GLOBAL_ATTRIBUTES`).
const GLOBAL_ATTRIBUTES = { lock: { type: 'object' }, metadata: { type: 'object' } };

// `blockHooks` positions are camelCase in block.json and snake_case in WordPress's REST answer.
const HOOK_POSITIONS: Record<string, string> = { before: 'before', after: 'after', firstChild: 'first_child', lastChild: 'last_child' };

const or = <T>(value: unknown, fallback: T): T | unknown => (value === undefined ? fallback : value);

/**
 * A block type as WordPress's REST answer shows it: block.json's camelCase fields under their
 * snake_case names, WordPress's defaults for what block.json leaves out, the handles of each asset
 * field, and the deprecated single-handle fields (the first handle, or null) beside them.
 */
export function prepareBlockType(block: BlockJson, req: RestRequest): Record<string, unknown> {
  const handles = {
    editor_script_handles: handlesOf(block, 'editorScript'),
    script_handles: handlesOf(block, 'script'),
    view_script_handles: handlesOf(block, 'viewScript'),
    view_script_module_ids: handlesOf(block, 'viewScriptModule'),
    editor_style_handles: handlesOf(block, 'editorStyle'),
    style_handles: handlesOf(block, 'style'),
    view_style_handles: handlesOf(block, 'viewStyle'),
  };
  const hooks: Record<string, string> = Object.create(null);
  for (const [name, position] of Object.entries((block.blockHooks as Record<string, string> | undefined) ?? {})) hooks[name] = HOOK_POSITIONS[position];
  const isDynamic = typeof block.render === 'string';
  const data: Record<string, unknown> = {
    api_version: or(block.apiVersion, 1),
    title: block.title,
    name: block.name,
    description: or(block.description, ''),
    icon: or(block.icon, null),
    attributes: { ...(block.attributes as Record<string, unknown> | undefined), ...GLOBAL_ATTRIBUTES },
    provides_context: or(block.providesContext, {}),
    uses_context: or(block.usesContext, []),
    selectors: or(block.selectors, {}),
    supports: or(block.supports, {}),
    category: or(block.category, null),
    is_dynamic: isDynamic,
    ...handles,
    styles: or(block.styles, []),
    // WordPress 6.5+ answers its `get_variations()`: a list, empty when none are registered.
    variations: or(block.variations, []),
    textdomain: or(block.textdomain, null),
    parent: or(block.parent, null),
    ancestor: or(block.ancestor, null),
    allowed_blocks: or(block.allowedBlocks, null),
    keywords: or(block.keywords, []),
    example: or(block.example, null),
    block_hooks: hooks,
    editor_script: handles.editor_script_handles[0] ?? null,
    script: handles.script_handles[0] ?? null,
    view_script: handles.view_script_handles[0] ?? null,
    editor_style: handles.editor_style_handles[0] ?? null,
    style: handles.style_handles[0] ?? null,
  };
  if (req.wants('_links')) {
    const [namespace] = block.name.split('/');
    const links: Links = {
      collection: [{ href: req.url('/cms/v2/block-types') }],
      self: [{ href: req.url(`/cms/v2/block-types/${block.name}`) }],
      up: [{ href: req.url(`/cms/v2/block-types/${namespace}`) }],
    };
    if (isDynamic) links['https://api.w.org/render-block'] = [{ href: req.url(`/cms/v2/block-renderer/${block.name}?context=edit`) }];
    data._links = links;
  }
  return data;
}

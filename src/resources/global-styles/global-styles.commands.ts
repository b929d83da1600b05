import { type Deps } from '../../deps.js';
import { defineRestError, ItemTooLarge } from '../../rest/errors.js';
import { globalStylesCollection, type GlobalStylesDoc } from './global-styles.model.js';

export const CustomCssIllegalMarkup = defineRestError('rest_custom_css_illegal_markup', 'Markup is not allowed in CSS.', 400);

export interface GlobalStylesInput {
  styles?: Record<string, unknown>;
  settings?: Record<string, unknown>;
  title?: string | { raw?: string };
}

// MongoDB's document limit is 16 MiB; the two JSON strings must leave room for the rest.
const MAX_STORED_CHARS = 15 * 1024 * 1024;

/** `update_item`: only the top-level keys sent are replaced (no deep merge). */
export async function updateGlobalStyles(deps: Deps, doc: GlobalStylesDoc, input: GlobalStylesInput): Promise<GlobalStylesDoc> {
  const css = input.styles?.css;
  // WordPress's `validate_custom_css`: anything that looks like an opening or closing tag.
  if (typeof css === 'string' && /<\/?\w+/.test(css)) throw new CustomCssIllegalMarkup();
  const changes: Partial<GlobalStylesDoc> = { modified: deps.clock() };
  if (input.styles !== undefined) changes.styles = JSON.stringify(input.styles);
  if (input.settings !== undefined) changes.settings = JSON.stringify(input.settings);
  if (input.title !== undefined) changes.title = typeof input.title === 'string' ? input.title : (input.title.raw ?? doc.title);
  if ((changes.styles ?? doc.styles).length + (changes.settings ?? doc.settings).length > MAX_STORED_CHARS) throw new ItemTooLarge();
  await globalStylesCollection(deps.store.db).updateOne({ _id: doc._id }, { $set: changes });
  return { ...doc, ...changes };
}

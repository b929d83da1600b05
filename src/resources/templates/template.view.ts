import { type Deps } from '../../deps.js';
import { DEFAULT_TEMPLATE_TYPES, templatePartArea } from '../../themes/template-types.js';
import { type TemplateKind, type ThemeTemplateFile } from '../../themes/themes.js';
import { templateId, templatesCollection, type TemplateDoc, type TemplateId } from './template.model.js';

/** `get_post_stati( array( 'internal' => false ) )` as a template may have them. */
export const TEMPLATE_STATUSES = ['publish', 'future', 'draft', 'pending', 'private'] as const;

/** A template as clients see it (WordPress's `WP_Block_Template`): a theme file, or a database record over it. */
export interface TemplateView {
  id: string;
  theme: string;
  slug: string;
  type: TemplateKind;
  source: 'theme' | 'custom';
  origin: string | null;
  content: string;
  title: string;
  description: string;
  status: string;
  cmsId: number;
  hasThemeFile: boolean;
  author: number;
  modified: Date | null;
  isCustom: boolean;
  area?: string;
  postTypes?: readonly string[];
  doc?: TemplateDoc;
}

/** The active theme's file for `slug`, if it has one. */
export function themeFileOf(deps: Deps, kind: TemplateKind, theme: string, slug: string): ThemeTemplateFile | undefined {
  const active = deps.themes.active;
  if (theme !== active.stylesheet) return undefined;
  return (kind === 'cms_template' ? active.templates : active.parts).get(slug);
}

/** `_build_block_template_result_from_file`. */
export function viewOfFile(theme: string, file: ThemeTemplateFile): TemplateView {
  return {
    id: templateId(theme, file.slug),
    theme,
    slug: file.slug,
    type: file.kind,
    source: 'theme',
    origin: null,
    content: file.content,
    title: file.title,
    description: file.description,
    status: 'publish',
    cmsId: 0,
    hasThemeFile: true,
    author: 0,
    modified: null,
    isCustom: file.isCustom,
    ...(file.kind === 'cms_template_part' ? { area: file.area } : {}),
    ...(file.postTypes ? { postTypes: file.postTypes } : {}),
  };
}

/** `_build_block_template_result_from_post`. */
export function viewOfDoc(deps: Deps, doc: TemplateDoc): TemplateView {
  const file = themeFileOf(deps, doc.type, doc.theme, doc.slug);
  return {
    id: templateId(doc.theme, doc.slug),
    theme: doc.theme,
    slug: doc.slug,
    type: doc.type,
    source: 'custom',
    origin: doc.origin,
    content: doc.content,
    title: doc.title,
    description: doc.description,
    status: doc.status,
    cmsId: doc._id,
    hasThemeFile: file !== undefined,
    author: doc.author,
    modified: doc.modified,
    isCustom: file?.isCustom ?? !DEFAULT_TEMPLATE_TYPES.has(doc.slug),
    ...(doc.type === 'cms_template_part' ? { area: templatePartArea(doc.area) } : {}),
    ...(file?.postTypes ? { postTypes: file.postTypes } : {}),
    doc,
  };
}

/** `get_block_template`: the database record (whatever its status, trash included) wins over the active theme's file. */
export async function findTemplate(deps: Deps, kind: TemplateKind, id: TemplateId): Promise<TemplateView | null> {
  const doc = await templatesCollection(deps.store.db).findOne({ theme: id.theme, type: kind, slug: id.slug });
  if (doc) return viewOfDoc(deps, doc);
  const file = themeFileOf(deps, kind, id.theme, id.slug);
  return file ? viewOfFile(id.theme, file) : null;
}

export interface TemplateListQuery {
  wp_id?: number;
  area?: string;
  post_type?: string;
}

// `get_block_templates` reads only these statuses: trashed, pending, future and private records are left out.
const LISTED_STATUSES = new Set(['publish', 'draft', 'auto-draft']);

/** `get_block_templates` for the active theme: its records first, then the files no record shadows. */
export async function listTemplates(deps: Deps, kind: TemplateKind, query: TemplateListQuery): Promise<TemplateView[]> {
  const theme = deps.themes.active;
  const docs = await templatesCollection(deps.store.db).find({ theme: theme.stylesheet, type: kind }).sort({ slug: 1 }).toArray();
  const fits = (view: TemplateView) => {
    if (query.area !== undefined && kind === 'cms_template_part' && view.area !== query.area) return false;
    if (query.post_type !== undefined) {
      if (!view.isCustom) return false;
      if (view.postTypes && !view.postTypes.includes(query.post_type)) return false;
    }
    return true;
  };
  const views = docs
    .filter((doc) => LISTED_STATUSES.has(doc.status) && (query.wp_id === undefined || doc._id === query.wp_id))
    .map((doc) => viewOfDoc(deps, doc))
    .filter(fits);
  if (query.wp_id !== undefined) return views;
  const listed = new Set(views.map((view) => view.slug));
  const files = kind === 'cms_template' ? theme.templates : theme.parts;
  for (const file of files.values()) {
    if (listed.has(file.slug)) continue;
    // Theme files without declared post types are not offered for a post type.
    if (query.post_type !== undefined && !file.postTypes?.includes(query.post_type)) continue;
    const view = viewOfFile(theme.stylesheet, file);
    if (fits(view)) views.push(view);
  }
  return views;
}

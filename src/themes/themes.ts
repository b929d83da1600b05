import fs from 'node:fs';
import path from 'node:path';
import { type ErrorObject, type ValidateFunction } from 'ajv';
import { type Config } from '../config.js';
import { insideFolder, OutsideFolderError } from '../lib/inside-folder.js';
import { validateThemeJson, validateThemeManifest as validateManifest } from './theme-schemas.js';
import { DEFAULT_TEMPLATE_TYPES, templatePartArea, type TemplatePartArea } from './template-types.js';

export type JsonObject = Record<string, unknown>;
export type TemplateKind = 'cms_template' | 'cms_template_part';

/** A `templates/<slug>.html` or `parts/<slug>.html` file of a theme, read at start-up. */
export interface ThemeTemplateFile {
  readonly kind: TemplateKind;
  readonly slug: string;
  readonly title: string;
  readonly description: string;
  readonly content: string;
  /** Template parts only: the area `theme.json`'s `templateParts` gives it. */
  readonly area?: TemplatePartArea;
  /** Templates only: not one of WordPress's default template types (a theme's custom template). */
  readonly isCustom: boolean;
  /** Custom templates: the post types `theme.json`'s `customTemplates` lists for it. */
  readonly postTypes?: readonly string[];
}

/** `register_sidebar`'s arguments. */
export interface SidebarDef {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly class: string;
  readonly before_widget: string;
  readonly after_widget: string;
  readonly before_title: string;
  readonly after_title: string;
}

export interface StyleVariation {
  readonly version: number;
  readonly title: string;
  readonly settings: JsonObject;
  readonly styles: JsonObject;
}

export interface Theme {
  /** The folder's name: WordPress's stylesheet, which identifies the theme. */
  readonly stylesheet: string;
  readonly dir: string;
  readonly name: string;
  readonly description: string;
  readonly version: string;
  readonly author: string;
  readonly authorUri: string;
  readonly themeUri: string;
  readonly requiresCms: string;
  readonly requiresRuntime: string;
  readonly textdomain: string;
  readonly tags: readonly string[];
  /** `register_nav_menus`: location slug -> description. */
  readonly menuLocations: ReadonlyMap<string, string>;
  readonly sidebars: readonly SidebarDef[];
  /** `theme.json`'s `settings` and `styles` (empty objects without one). */
  readonly settings: JsonObject;
  readonly styles: JsonObject;
  readonly themeJsonVersion: number;
  readonly variations: readonly StyleVariation[];
  readonly templates: ReadonlyMap<string, ThemeTemplateFile>;
  readonly parts: ReadonlyMap<string, ThemeTemplateFile>;
  /** A block theme has `templates/index.html` (`wp_is_block_theme`). */
  readonly isBlockTheme: boolean;
}

export interface Themes {
  /** Every theme folder, in name order. */
  readonly all: readonly Theme[];
  /** The theme `CMS_THEME` names. */
  readonly active: Theme;
  find(stylesheet: string): Theme | undefined;
}

/** A theme folder that cannot be used: names the file and what is wrong with it. */
export class ThemeError extends Error {
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(`${file}: ${problem}`);
  }
}

export const MANIFEST_FILE = 'theme-manifest.json';
const THEME_NAME = /^[\w-]+$/;
const TEMPLATE_SLUG = /^[\w-]+$/;

function describe(errors: ErrorObject[] | null | undefined): string {
  const error = errors?.[0];
  if (!error) return 'does not match its schema';
  const where = error.instancePath || '(top level)';
  const extra = error.keyword === 'additionalProperties' ? ` (${String(error.params.additionalProperty)})` : '';
  return `${where} ${error.message ?? 'is invalid'}${extra}`;
}

/** A file of the theme, refused when it lies outside the theme's folder. */
function themeFile(dir: string, relative: string): string {
  const resolved = insideFolder(dir, relative);
  if (resolved instanceof OutsideFolderError) throw new ThemeError(path.join(dir, relative), `is outside the theme folder (${resolved.reason})`);
  return resolved;
}

function readJson(file: string, validate: ValidateFunction, required: boolean): JsonObject | undefined {
  if (!fs.existsSync(file)) {
    if (required) throw new ThemeError(file, 'is missing');
    return undefined;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ThemeError(file, `is not valid JSON (${(error as Error).message})`);
  }
  if (!validate(parsed)) throw new ThemeError(file, describe(validate.errors));
  return parsed as JsonObject;
}

/** The `.html` files of a theme's `templates/` or `parts/` folder, each checked to be inside the theme. */
function htmlFiles(dir: string, folder: string): Map<string, string> {
  const files = new Map<string, string>();
  const folderPath = themeFile(dir, folder);
  if (!fs.existsSync(folderPath)) return files;
  for (const name of fs.readdirSync(folderPath).sort()) {
    if (!name.endsWith('.html')) continue;
    const slug = name.slice(0, -'.html'.length);
    const file = themeFile(dir, `${folder}/${name}`);
    if (!TEMPLATE_SLUG.test(slug)) throw new ThemeError(file, 'has a name that is not a template slug (letters, digits, _ and - only)');
    if (!fs.statSync(file).isFile()) throw new ThemeError(file, 'is not a file');
    files.set(slug, fs.readFileSync(file, 'utf8'));
  }
  return files;
}

const objectOr = (value: unknown): JsonObject => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : {});

function loadTheme(dir: string, stylesheet: string): Theme {
  const manifest = readJson(themeFile(dir, MANIFEST_FILE), validateManifest, true)!;
  const themeJson: JsonObject = readJson(themeFile(dir, 'theme.json'), validateThemeJson, false) ?? { version: 3 };

  const variations: StyleVariation[] = [];
  for (const [slug, text] of jsonFiles(dir, 'styles')) {
    const file = path.join(dir, 'styles', `${slug}.json`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new ThemeError(file, `is not valid JSON (${(error as Error).message})`);
    }
    if (!validateThemeJson(parsed)) throw new ThemeError(file, describe(validateThemeJson.errors));
    const variation = parsed as JsonObject;
    variations.push({
      version: variation.version as number,
      title: typeof variation.title === 'string' ? variation.title : slug,
      settings: objectOr(variation.settings),
      styles: objectOr(variation.styles),
    });
  }

  const partInfo = new Map((themeJson.templateParts as { name: string; title?: string; area?: string }[] | undefined)?.map((part) => [part.name, part]));
  const customInfo = new Map((themeJson.customTemplates as { name: string; title?: string; postTypes?: string[] }[] | undefined)?.map((custom) => [custom.name, custom]));

  const templates = new Map<string, ThemeTemplateFile>();
  for (const [slug, content] of htmlFiles(dir, 'templates')) {
    const known = DEFAULT_TEMPLATE_TYPES.get(slug);
    const custom = customInfo.get(slug);
    templates.set(slug, {
      kind: 'cms_template',
      slug,
      title: custom?.title ?? known?.title ?? slug,
      description: known?.description ?? '',
      content,
      isCustom: !known,
      ...(custom?.postTypes ? { postTypes: custom.postTypes } : {}),
    });
  }
  const parts = new Map<string, ThemeTemplateFile>();
  for (const [slug, content] of htmlFiles(dir, 'parts')) {
    const info = partInfo.get(slug);
    parts.set(slug, { kind: 'cms_template_part', slug, title: info?.title ?? slug, description: '', content, area: templatePartArea(info?.area), isCustom: false });
  }

  const text = (key: string) => (typeof manifest[key] === 'string' ? (manifest[key] as string) : '');
  return {
    stylesheet,
    dir,
    name: text('name'),
    description: text('description'),
    version: text('version'),
    author: text('author'),
    authorUri: text('author_uri'),
    themeUri: text('theme_uri'),
    requiresCms: text('requires_cms'),
    requiresRuntime: text('requires_runtime'),
    textdomain: text('textdomain'),
    tags: (manifest.tags as string[] | undefined) ?? [],
    menuLocations: new Map(Object.entries((manifest.menu_locations as Record<string, string> | undefined) ?? {})),
    sidebars: ((manifest.sidebars as Partial<SidebarDef>[] | undefined) ?? []).map((sidebar) => ({
      id: sidebar.id!,
      name: sidebar.name!,
      description: sidebar.description ?? '',
      class: sidebar.class ?? '',
      before_widget: sidebar.before_widget ?? '<li id="%1$s" class="widget %2$s">',
      after_widget: sidebar.after_widget ?? '</li>\n',
      before_title: sidebar.before_title ?? '<h2 class="widgettitle">',
      after_title: sidebar.after_title ?? '</h2>\n',
    })),
    settings: objectOr(themeJson.settings),
    styles: objectOr(themeJson.styles),
    themeJsonVersion: themeJson.version as number,
    variations,
    templates,
    parts,
    isBlockTheme: templates.has('index'),
  };
}

/** The `.json` files of a theme's folder (style variations), by name without the extension. */
function jsonFiles(dir: string, folder: string): Map<string, string> {
  const files = new Map<string, string>();
  const folderPath = themeFile(dir, folder);
  if (!fs.existsSync(folderPath)) return files;
  for (const name of fs.readdirSync(folderPath).sort()) {
    if (!name.endsWith('.json')) continue;
    files.set(name.slice(0, -'.json'.length), fs.readFileSync(themeFile(dir, `${folder}/${name}`), 'utf8'));
  }
  return files;
}

/**
 * Every theme under `config.themesDir` (one folder each), validated against the schemas the
 * project ships (`schemas/theme.schema.json`, `schemas/theme-manifest.schema.json`), and the active one (`CMS_THEME`). Anything wrong stops start-up with a
 * `ThemeError` naming the file and the problem.
 */
export function loadThemes(config: Pick<Config, 'themesDir' | 'theme'>): Themes {
  const root = config.themesDir;
  if (!fs.existsSync(root) || !fs.statSync(root).isDirectory()) throw new ThemeError(root, 'is not a folder of themes (CMS_THEMES_DIR)');
  const all: Theme[] = [];
  for (const entry of fs.readdirSync(root, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (!entry.isDirectory()) continue;
    const dir = path.join(root, entry.name);
    if (!THEME_NAME.test(entry.name)) throw new ThemeError(dir, 'has a name that is not a theme name (letters, digits, _ and - only)');
    all.push(Object.freeze(loadTheme(dir, entry.name)));
  }
  const find = (stylesheet: string) => all.find((theme) => theme.stylesheet === stylesheet);
  const active = find(config.theme);
  if (!active) throw new ThemeError(path.join(root, config.theme), `is not a theme folder (CMS_THEME=${config.theme})`);
  return Object.freeze({ all: Object.freeze(all), active, find });
}

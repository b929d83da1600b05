import { type Deps } from '../../deps.js';
import { type SidebarDef } from '../../themes/themes.js';
import { INACTIVE_SIDEBAR } from './widget.model.js';

/** The inactive-widgets sidebar: a place to keep widgets, shown nowhere, all its strings empty. */
export const INACTIVE_SIDEBAR_DEF: SidebarDef = Object.freeze({
  id: INACTIVE_SIDEBAR,
  name: 'Inactive widgets',
  description: '',
  class: '',
  before_widget: '',
  after_widget: '',
  before_title: '',
  after_title: '',
});

/** Every sidebar that resolves, in WordPress's stored order: the inactive one, then the active theme's. */
export function knownSidebars(deps: Deps): readonly SidebarDef[] {
  return [INACTIVE_SIDEBAR_DEF, ...deps.themes.active.sidebars];
}

/** A sidebar the active theme registers (not the inactive one). */
export function registeredSidebar(deps: Deps, id: string): SidebarDef | undefined {
  return deps.themes.active.sidebars.find((sidebar) => sidebar.id === id);
}

/** `sprintf( $before_widget, $id, $classname )` as `dynamic_sidebar` calls it: `%1$s`, `%2$s`, `%s` and `%%`. */
export function fillWidgetPlaceholders(template: string, id: string, classname: string): string {
  const args = [id, classname];
  let next = 0;
  return template.replace(/%(?:(\d+)\$)?s|%%/g, (match, position: string | undefined) => {
    if (match === '%%') return '%';
    const index = position === undefined ? next++ : Number(position) - 1;
    return args[index] ?? '';
  });
}

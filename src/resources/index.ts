import { type ResourceManifest } from './manifest.js';
import { usersResource } from './users/index.js';
import { termsResource } from './terms/index.js';
import { menusResource } from './menus/index.js';
import { menuLocationsResource } from './menu-locations/index.js';
import { menuItemsResource } from './menu-items/index.js';
import { applicationPasswordsResource } from './application-passwords/index.js';
import { statusesResource } from './statuses/index.js';
import { typesResource } from './types/index.js';
import { taxonomiesResource } from './taxonomies/index.js';
import { settingsResource } from './settings/index.js';
import { postsResource } from './posts/index.js';
import { mediaResource } from './media/index.js';
import { blockTypesResource } from './block-types/index.js';
import { pluginsResource } from './plugins/index.js';
import { changeLogResource } from './change-log.js';
import { changesResource } from './changes/index.js';
import { themesResource } from './themes/index.js';
import { templatesResource } from './templates/index.js';
import { globalStylesResource } from './global-styles/index.js';
import { widgetTypesResource } from './widget-types/index.js';
import { widgetsResource } from './widgets/index.js';
import { sidebarsResource } from './sidebars/index.js';
import { webhooksResource } from './webhooks/index.js';
import { locksResource } from './locks/index.js';

const served: readonly ResourceManifest[] = [
  usersResource,
  applicationPasswordsResource,
  termsResource,
  menusResource,
  menuLocationsResource,
  menuItemsResource,
  statusesResource,
  typesResource,
  taxonomiesResource,
  settingsResource,
  postsResource,
  mediaResource,
  blockTypesResource,
  pluginsResource,
  themesResource,
  templatesResource,
  globalStylesResource,
  widgetTypesResource,
  widgetsResource,
  sidebarsResource,
  webhooksResource,
  locksResource,
];

/** Every resource the service serves, in the order their routes are registered, the feed of their changes, and the change log they share. */
export const resources: readonly ResourceManifest[] = [...served, changesResource(served), changeLogResource(served)];

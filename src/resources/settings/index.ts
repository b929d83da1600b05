import { type Db } from 'mongodb';
import { gmtOffsetOf, manualOffset } from '../../lib/timezones.js';
import { type ResourceManifest } from '../manifest.js';
import { readSettings } from './settings.queries.js';
import { settingsRoutes } from './settings.routes.js';

export { readSetting, siteTimezone } from './settings.queries.js';

export const settingsResource: ResourceManifest = { routes: settingsRoutes };

/** What the discovery index says of the site, from its settings. */
export interface SiteIdentity {
  title: string;
  description: string;
  timezone_string: string;
  gmt_offset: number;
  site_logo: number;
  site_icon: number;
}

export async function readSiteIdentity(db: Db, siteUrl: string, at: Date): Promise<SiteIdentity> {
  const settings = await readSettings(db, siteUrl);
  const timezone = String(settings.timezone ?? '');
  return {
    title: String(settings.title ?? ''),
    description: String(settings.description ?? ''),
    // WordPress keeps a manual offset in `gmt_offset` and leaves `timezone_string` empty.
    timezone_string: manualOffset(timezone) === undefined ? timezone : '',
    gmt_offset: gmtOffsetOf(timezone, at),
    site_logo: Number(settings.site_logo ?? 0),
    site_icon: Number(settings.site_icon ?? 0),
  };
}

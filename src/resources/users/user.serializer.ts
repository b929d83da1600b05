import { createHash } from 'node:crypto';
import { capabilityMap } from '../../auth/capabilities.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { type UserDoc } from './user.model.js';
import { metaForResponse } from '../../registry/meta.js';

/** WordPress's date format for `registered_date`: RFC 3339 with the offset. */
function registeredDate(date: Date): string {
  return `${date.toISOString().slice(0, 19)}+00:00`;
}

function avatarUrls(email: string): Record<string, string> {
  const hash = createHash('md5').update(email.trim().toLowerCase()).digest('hex');
  return Object.fromEntries([24, 48, 96].map((size) => [String(size), `https://secure.gravatar.com/avatar/${hash}?s=${size}&d=mm&r=g`]));
}

export function prepareUser(doc: UserDoc, req: RestRequest, siteUrl: string): Record<string, unknown> {
  const data: Record<string, unknown> = {
    id: doc._id,
    username: doc.username,
    name: doc.name,
    first_name: doc.first_name,
    last_name: doc.last_name,
    email: doc.email,
    url: doc.url,
    description: doc.description,
    link: `${siteUrl}/?author=${doc._id}`,
    locale: doc.locale || 'en_US',
    nickname: doc.nickname,
    slug: doc.slug,
    registered_date: registeredDate(doc.registered),
    roles: doc.roles,
  };
  if (req.wants('capabilities')) data.capabilities = capabilityMap({ id: doc._id, roles: doc.roles });
  if (req.wants('extra_capabilities')) data.extra_capabilities = Object.fromEntries(doc.roles.map((role) => [role, true]));
  if (req.wants('avatar_urls')) data.avatar_urls = avatarUrls(doc.email);
  if (req.wants('meta')) data.meta = metaForResponse('user', 'user', doc.meta);
  if (req.wants('_links')) {
    data._links = {
      self: [{ href: req.url(`/cms/v2/users/${doc._id}`) }],
      collection: [{ href: req.url('/cms/v2/users') }],
    };
  }
  return data;
}

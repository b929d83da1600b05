// The menu items' fold as a pure function, for the slug: what the events carry is the slug, and
// events stored before items kept one leave a published item its id. No database.
import { describe, expect, it } from 'vitest';
import { type StoredEvent } from '../../store/log/change-log.js';
import { type MenuItemDoc, type MenuItemFields } from './menu-item.model.js';
import { evolveMenuItem } from './menu-item.projection.js';

const ID = 70;
const fields: MenuItemFields = {
  title: 'Contact us', slug: '', type: 'custom', status: 'draft', parent: 0, attrTitle: '', classes: '', xfn: '', description: '', menuOrder: 1,
  object: 'custom', objectId: 0, target: '', url: 'https://example.org/contact', menu: 3, meta: '{}', author: 1,
  date: '2024-05-06T07:08:09.000Z', modified: '2024-05-06T07:08:09.000Z',
};

const event = (seq: number, type: string, data: Record<string, unknown>): StoredEvent => ({
  stream: ID, streamType: 'nav_menu_item', seq, type, at: new Date('2024-05-06T07:08:09Z'), actor: 1, data,
});

/** The item after `events`, folded from nothing. */
const given = (...events: StoredEvent[]): MenuItemDoc | null => events.reduce<MenuItemDoc | null>((doc, next) => evolveMenuItem(doc, next).item, null);

/** What an event stored before menu items kept a slug carries: the fields without it. */
const { slug: _none, ...legacyFields } = fields;

describe('evolveMenuItem: the slug', () => {
  it('is what the created and publishing events carry, and stays through later changes', () => {
    const draft = given(event(1, 'created', { fields }));
    expect(draft?.slug).toBe('');
    const published = given(event(1, 'created', { fields }), event(2, 'updated', { changes: { status: 'publish', slug: 'contact-us' } }));
    expect(published?.slug).toBe('contact-us');
    const retitled = evolveMenuItem(published, event(3, 'updated', { changes: { title: 'Write to us' } })).item;
    expect(retitled).toMatchObject({ title: 'Write to us', slug: 'contact-us' });
  });

  it('given events that carry none: a published item has its id, a draft none until it is published', () => {
    expect(given(event(1, 'created', { fields: { ...legacyFields, status: 'publish' } }))?.slug).toBe(String(ID));
    const draft = given(event(1, 'created', { fields: legacyFields }));
    expect(draft?.slug).toBe('');
    expect(evolveMenuItem(draft, event(2, 'updated', { changes: { status: 'publish' } })).item?.slug).toBe(String(ID));
  });
});

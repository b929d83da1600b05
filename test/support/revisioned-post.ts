// What the revision tests stand on, made afresh for each `describe` that asks (its own users and
// posts), so that no test depends on another describe having run first.
import { beforeAll } from 'vitest';
import { createItem, updateItem } from './http-posts.js';
import { later, type Actor, type TestApp } from './test-app.js';

/** An editor, an author and a contributor of their own (as `usersFor(app, ['editor', 'author', 'contributor'])` makes them). */
export interface Staff {
  editor: Actor;
  author: Actor;
  contributor: Actor;
}

/** The contents of the revisioned post's three updates, in order. */
export const REVISIONED_CONTENTS = ['This content is better.', 'This content is marvelous.', 'This content is fantastic.'];

/**
 * A post "Revisioned" published by the editor with the content "This content is great.", then
 * updated with each of `REVISIONED_CONTENTS`: its revisions, oldest first, are `r1`, `r2`, `r3`.
 * And a page "A page" published by the editor ("Page one.") and updated once ("Page two.").
 */
export interface RevisionedPost extends Staff {
  postId: number;
  pageId: number;
  r1: number;
  r2: number;
  r3: number;
}

export async function createRevisionedPost(app: TestApp): Promise<RevisionedPost> {
  const staff: Staff = { editor: await app.asRole('editor'), author: await app.asRole('author'), contributor: await app.asRole('contributor') };
  const asEditor = { headers: staff.editor.headers };
  const postId = (await createItem(app, { title: 'Revisioned', content: 'This content is great.', status: 'publish' }, asEditor)).id;
  for (const content of REVISIONED_CONTENTS) await updateItem(app, postId, { content }, asEditor);
  const pageId = (await createItem(app, { title: 'A page', content: 'Page one.', status: 'publish' }, { ...asEditor, type: 'page' })).id;
  await updateItem(app, pageId, { content: 'Page two.' }, { ...asEditor, type: 'page' });
  const list = await app.api('GET', `/cms/v2/posts/${postId}/revisions`, { headers: staff.editor.headers });
  const [r3, r2, r1] = list.body.map((revision: { id: number }) => revision.id);
  return { ...staff, postId, pageId, r1, r2, r3 };
}

/** A revisioned post (and page) of the enclosing `describe`, made before its tests. */
export function revisionedPostFor(app: TestApp): RevisionedPost {
  let given: RevisionedPost | undefined;
  beforeAll(async () => {
    given = await createRevisionedPost(app);
  });
  return later('the revisioned post', () => given);
}

import { api } from './api.js';

interface User {
  id: number;
  name: string;
}

const known = new Map<number, string>();
// Ids asked for at once: the users route's largest page.
const PER_REQUEST = 100;

/** Names the signed-in user, whom the users list leaves out when they have published nothing. */
export function rememberName(user: User): void {
  known.set(user.id, user.name);
}

/**
 * Display names of users, asked once each, as a list (`include`): it answers with those the caller
 * may see (as WordPress's does, authors of published posts unless they may list users), where
 * asking for each would be refused, and logged by the browser, for each of the others. One the
 * caller may not see is named by its id.
 */
export async function authorNames(ids: number[]): Promise<Map<number, string>> {
  const missing = [...new Set(ids)].filter((id) => id > 0 && !known.has(id));
  for (let start = 0; start < missing.length; start += PER_REQUEST) {
    const asked = missing.slice(start, start + PER_REQUEST);
    try {
      const { data } = await api<User[]>('users', { query: { include: asked.join(','), per_page: PER_REQUEST, _fields: 'id,name' } });
      for (const user of data) known.set(user.id, user.name);
    } catch {
      // Named by their ids below.
    }
    for (const id of asked) if (!known.has(id)) known.set(id, `User #${id}`);
  }
  return known;
}

export const nameOf = (names: Map<number, string>, id: number) => (id > 0 ? (names.get(id) ?? `User #${id}`) : 'Nobody');

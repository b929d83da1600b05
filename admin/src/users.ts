import { api } from './api.js';

interface User {
  id: number;
  name: string;
}

const known = new Map<number, string>();

/** Display names of users, asked once each; one the caller may not see is named by its id. */
export async function authorNames(ids: number[]): Promise<Map<number, string>> {
  const missing = [...new Set(ids)].filter((id) => id > 0 && !known.has(id));
  await Promise.all(
    missing.map(async (id) => {
      try {
        known.set(id, (await api<User>(`users/${id}`, { query: { _fields: 'id,name' } })).data.name);
      } catch {
        known.set(id, `User #${id}`);
      }
    }),
  );
  return known;
}

export const nameOf = (names: Map<number, string>, id: number) => (id > 0 ? (names.get(id) ?? `User #${id}`) : 'Nobody');

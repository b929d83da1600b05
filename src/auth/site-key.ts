import { randomBytes } from 'node:crypto';
import { type Db } from 'mongodb';
import { isDuplicateKey } from '../store/database/mongo.js';

/**
 * The site's secret key (for keyed hashes of application passwords), made on first use and
 * kept in `options` so every process shares it.
 */
export async function loadSiteKey(db: Db): Promise<string> {
  const options = db.collection<{ _id: string; value: string }>('options');
  const existing = await options.findOne({ _id: 'auth_key' });
  if (existing) return existing.value;
  try {
    await options.insertOne({ _id: 'auth_key', value: randomBytes(32).toString('base64') });
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
  }
  return (await options.findOne({ _id: 'auth_key' }))!.value;
}

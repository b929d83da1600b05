import { type Db } from 'mongodb';
import { type IndexSpec } from '../../store/database/mongo.js';

/** A user as stored in `users`. `meta` is kept as a JSON string: its keys belong to clients. */
export interface UserDoc {
  _id: number;
  username: string;
  email: string;
  passwordHash: string;
  name: string;
  first_name: string;
  last_name: string;
  nickname: string;
  slug: string;
  url: string;
  description: string;
  locale: string;
  roles: string[];
  registered: Date;
  meta: string;
}

/** An application password as stored: only its keyed hash, never the password. */
export interface ApplicationPasswordDoc {
  _id: string;
  user: number;
  name: string;
  app_id: string;
  hash: string;
  created: Date;
  last_used: Date | null;
  last_ip: string | null;
}

export const usersCollection = (db: Db) => db.collection<UserDoc>('users');
export const applicationPasswordsCollection = (db: Db) => db.collection<ApplicationPasswordDoc>('application_passwords');

export const userIndexes: IndexSpec[] = [
  { collection: 'users', key: { username: 1 }, name: 'username_unique', unique: true },
  { collection: 'users', key: { email: 1 }, name: 'email_unique', unique: true },
  { collection: 'users', key: { slug: 1 }, name: 'slug_unique', unique: true },
  { collection: 'users', key: { name: 1, _id: 1 }, name: 'name' },
  { collection: 'users', key: { roles: 1, name: 1, _id: 1 }, name: 'roles_name' },
  { collection: 'application_passwords', key: { user: 1, hash: 1 }, name: 'user_hash' },
  { collection: 'application_passwords', key: { user: 1, created: 1 }, name: 'user_created' },
];

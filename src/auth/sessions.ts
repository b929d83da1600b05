import { createHash, randomBytes } from 'node:crypto';
import { parse as parseCookies } from 'cookie';
import { type Db } from 'mongodb';
import { type IndexSpec } from '../store/database/mongo.js';
import { siteChanges } from '../store/coordination/site-changes.js';
import { type Account, type AccountLookup } from './accounts.js';
import { createNonce, REST_NONCE_ACTION, verifyNonce } from './nonces.js';
import { loadSiteKey } from './site-key.js';

/** The cookie that carries a session's token. */
export const SESSION_COOKIE = 'cms_session';

const DAY_MS = 24 * 60 * 60 * 1000;
/** WordPress's `auth_cookie_expiration`: two days, fourteen when the user asked to be remembered. */
export const SESSION_LIFETIME_MS = 2 * DAY_MS;
export const REMEMBERED_SESSION_LIFETIME_MS = 14 * DAY_MS;

/** How long a session and its user, once read, are trusted without reading them again (as `USER_CACHE_MS`). */
const SESSION_CACHE_MS = 1000;
/** Expired sessions are deleted at most this often by a process, at a sign-in. */
const PRUNE_EVERY_MS = 60_000;

/**
 * A session as stored: keyed by a digest of its token, which only the cookie holds. `pass` is a
 * digest of the password hash it was started under (WordPress's `pass_frag`): a changed password
 * ends it, however the password was changed.
 */
export interface SessionDoc {
  _id: string;
  user: number;
  pass: string;
  created: Date;
  expires: Date;
}

const SESSIONS = 'sessions';
export const sessionIndexes: IndexSpec[] = [
  { collection: SESSIONS, key: { user: 1 }, name: 'user' },
  { collection: SESSIONS, key: { expires: 1 }, name: 'expires' },
];

const sessionsCollection = (db: Db) => db.collection<SessionDoc>(SESSIONS);
const digest = (text: string) => createHash('sha256').update(text).digest('base64url');

/** A live session: its token (from the cookie), the key it is stored under, and its user. */
export interface LiveSession {
  readonly token: string;
  readonly id: string;
  readonly user: Account;
  readonly expires: Date;
}

/** The session cookie's value, if the `Cookie` header carries one (whether it names a session or not). */
export function sessionTokenOf(cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  return parseCookies(cookieHeader)[SESSION_COOKIE];
}

/** Ends every session of a user (a changed password, a deleted account). */
export async function endSessionsOf(db: Db, userId: number): Promise<void> {
  await sessionsCollection(db).deleteMany({ user: userId });
}

/**
 * Server-side sign-in sessions, in the database so that every process sees them and they survive
 * a restart. A process remembers a session it read for a second at most, and forgets it at once
 * when any process announces a write of more than content (`SiteChanges`), a sign-out included.
 */
export function createSessions(db: Db, accounts: AccountLookup, clock: () => Date) {
  const sessions = sessionsCollection(db);
  let siteKey: Promise<string> | undefined;
  const key = () => (siteKey ??= loadSiteKey(db));
  const remembered = new Map<string, { session: LiveSession; fresh: number }>();
  let generation = 0;
  let prunedAt = 0;
  // Only a change of more than content ends a session: a sign-out, a user's new password or deletion.
  siteChanges(db).onChange(() => {
    generation++;
    remembered.clear();
  }, 'site');

  async function find(token: string): Promise<LiveSession | undefined> {
    // Tokens are 43 base64url characters; anything else names no session and is not looked up.
    if (!/^[\w-]{43}$/.test(token)) return undefined;
    const id = digest(token);
    const now = clock();
    const kept = remembered.get(id);
    if (kept && kept.fresh > Date.now()) return kept.session.expires > now ? kept.session : undefined;
    const readIn = generation;
    const doc = await sessions.findOne({ _id: id });
    if (!doc || doc.expires <= now) return undefined;
    const user = await accounts.byId(doc.user);
    if (!user || digest(user.passwordHash) !== doc.pass) return undefined;
    const session = { token, id, user, expires: doc.expires };
    if (readIn === generation) {
      remembered.set(id, { session, fresh: Date.now() + SESSION_CACHE_MS });
      if (remembered.size > 10_000) remembered.delete(remembered.keys().next().value!);
    }
    return session;
  }

  return {
    find,

    /** Starts a session for a user whose password was just checked; its token goes in the cookie. */
    async start(user: Account, remember: boolean): Promise<LiveSession> {
      const now = clock();
      if (now.getTime() - prunedAt > PRUNE_EVERY_MS) {
        prunedAt = now.getTime();
        void sessions.deleteMany({ expires: { $lte: now } }).catch(() => undefined);
      }
      const token = randomBytes(32).toString('base64url');
      const expires = new Date(now.getTime() + (remember ? REMEMBERED_SESSION_LIFETIME_MS : SESSION_LIFETIME_MS));
      const id = digest(token);
      await sessions.insertOne({ _id: id, user: user._id, pass: digest(user.passwordHash), created: now, expires });
      return { token, id, user, expires };
    },

    /** Ends a session: its cookie no longer works anywhere. */
    async end(session: LiveSession): Promise<void> {
      remembered.delete(session.id);
      await sessions.deleteOne({ _id: session.id });
    },

    /** A fresh REST nonce (`wp_create_nonce('wp_rest')`) for a session. */
    async nonce(session: LiveSession): Promise<string> {
      return createNonce(await key(), { action: REST_NONCE_ACTION, userId: session.user._id, token: session.token }, clock());
    },

    async verifyNonce(session: LiveSession, nonce: string): Promise<boolean> {
      return verifyNonce(await key(), nonce, { action: REST_NONCE_ACTION, userId: session.user._id, token: session.token }, clock());
    },
  };
}

export type Sessions = ReturnType<typeof createSessions>;

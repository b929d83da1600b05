import { randomUUID } from 'node:crypto';
import { type Collection, type Db } from 'mongodb';
import { isDuplicateKey } from '../database/mongo.js';

const CHANGED = 'site_changed';

/**
 * How the processes sharing a database keep what they hold in memory (settings, verified users,
 * cached answers) no older than the last write the database acknowledged.
 *
 * Every write answered with success first replaces one token (a document of the small
 * `checkpoints` collection); every request, before it may use anything a process keeps, waits for
 * a read of that token begun after the request arrived, and a token that moved empties every
 * cache registered here. A client that was answered a write, through any process, is therefore
 * never answered from a cache that predates it. Reads of the token are shared: requests arriving
 * while one is under way wait for the next, so there is at most one read in flight per process
 * whatever the load. A random token, not a counter: FerretDB's `$inc` is not atomic, and only a
 * difference matters.
 *
 * A cache that registers here must not keep a value whose computation began before it was last
 * emptied (a generation count does it): such a value may predate the write that emptied it.
 */
export interface SiteChanges {
  /** Resolves once a look at the token begun after this call is done (and the caches emptied if it moved). */
  catchUp(): Promise<void>;
  /**
   * A write was made through this process: empties its caches now and moves the token for the
   * others. `content`: it changed only items and what hangs on them, never the site's users or
   * settings, so what is kept of those stays.
   */
  changed(scope?: ChangeScope): Promise<void>;
  /** Registers what to empty when anything changed, or (`site`) only when more than content did. */
  onChange(forget: () => void, scope?: ListenScope): void;
  /**
   * Shares a number this process hands out (a log position, an id) with the others: each token
   * this process writes carries the highest it has handed out, and each look tells `learn` the
   * highest any process announced. A hint, not a claim (the unique index decides who gets a
   * number): a process writing after another's answered write starts past it instead of losing
   * a race for it.
   */
  shareHighest(name: string, counter: SharedCounter): void;
}

export interface SharedCounter {
  /** The highest this process has handed out, once known. */
  highest(): number | undefined;
  learn(highest: number): void;
}

/** What a write may have changed: anything, or only content (items of the change log, terms, media). */
export type ChangeScope = 'site' | 'content';
/** What a cache is emptied for: any change, or only one of more than content (users, settings). */
export type ListenScope = 'any' | 'site';

const byDatabase = new WeakMap<Db, SiteChanges>();

/** The one `SiteChanges` of a database connection, shared by every cache that connection serves. */
export function siteChanges(db: Db): SiteChanges {
  let changes = byDatabase.get(db);
  if (!changes) {
    changes = tokenChanges(db);
    byDatabase.set(db, changes);
  }
  return changes;
}

/**
 * The token document: `token` moves at every write, `site` only at those that changed more than
 * content. (A process that predates `site` moves only `token`: what the others keep of users and
 * settings then lasts its time limit, a second or two, as for a write made behind their back.)
 */
interface Tokens {
  _id: string;
  token: string;
  site?: string;
  at: Date;
  /** The highest of each shared counter announced (`shareHighest`). */
  highest?: Record<string, number>;
}

/** Writes a new token, with the highest of each shared counter this process has handed out. */
async function writeToken(checkpoints: Collection<Tokens>, scope: ChangeScope, counters: Map<string, SharedCounter>): Promise<void> {
  const token = randomUUID();
  const change = scope === 'site' ? { token, site: token, at: new Date() } : { token, at: new Date() };
  const highest: Record<string, number> = {};
  for (const [name, counter] of counters) {
    const value = counter.highest();
    if (value !== undefined) highest[`highest.${name}`] = value;
  }
  const update = Object.keys(highest).length ? { $set: change, $max: highest } : { $set: change };
  try {
    await checkpoints.updateOne({ _id: CHANGED }, update, { upsert: true });
  } catch (error) {
    // FerretDB does not retry an upsert that lost the race to insert: the document exists now.
    if (!isDuplicateKey(error)) throw error;
    await checkpoints.updateOne({ _id: CHANGED }, update);
  }
}

/** How this process moves the token, and remembers a write whose token the database did not take. */
interface TokenAnnouncer {
  /** Moves the token now. */
  announce(scope: ChangeScope): Promise<void>;
  /** Moves the token for a write this process has finished, sharing announcements with writes finishing meanwhile. */
  afterWrite(scope: ChangeScope): Promise<void>;
  /** A write whose token the database did not take: written before the next look. */
  unannounced(): ChangeScope | undefined;
  /** Remembers that a write's announcement failed. */
  failed(scope: ChangeScope): void;
}

function tokenAnnouncer(checkpoints: Collection<Tokens>, counters: Map<string, SharedCounter>): TokenAnnouncer {
  let unannounced: ChangeScope | undefined;
  let announcing: Promise<void> | undefined;
  let nextAnnouncement: { scope: ChangeScope; done: Promise<void> } | undefined;

  async function announce(scope: ChangeScope): Promise<void> {
    await writeToken(checkpoints, scope, counters);
    // Not taken as seen: another process's token this one overwrote must still empty the caches at the next look.
    if (unannounced === scope || scope === 'site') unannounced = undefined;
  }

  /**
   * Moves the token for every write this process has finished: one announcement under way at a
   * time. One under way may have been sent before a write finished, so that write waits for the
   * next, which every write finishing meanwhile shares: a burst of writes moves the token a few
   * times, not once each.
   */
  function announceAfterWrite(scope: ChangeScope): Promise<void> {
    if (!announcing) {
      announcing = announce(scope).finally(() => (announcing = undefined));
      return announcing;
    }
    if (nextAnnouncement) {
      if (scope === 'site') nextAnnouncement.scope = 'site';
      return nextAnnouncement.done;
    }
    const next: { scope: ChangeScope; done: Promise<void> } = { scope, done: Promise.resolve() };
    next.done = announcing
      .catch(() => undefined)
      .then(() => {
        nextAnnouncement = undefined;
        return announceAfterWrite(next.scope);
      });
    nextAnnouncement = next;
    return next.done;
  }

  return {
    announce,
    afterWrite: announceAfterWrite,
    unannounced: () => unannounced,
    failed(scope) {
      if (unannounced !== 'site') unannounced = scope;
    },
  };
}

function tokenChanges(db: Db): SiteChanges {
  const checkpoints = db.collection<Tokens>('checkpoints');
  const listeners: { forget: () => void; scope: ListenScope }[] = [];
  const counters = new Map<string, SharedCounter>();
  const announcer = tokenAnnouncer(checkpoints, counters);
  // Nothing seen yet: the first look empties whatever start-up filled.
  let seen: { token?: string; site?: string } | undefined;
  let looking: Promise<void> | undefined;
  let nextLook: Promise<void> | undefined;

  const forget = (scope: ChangeScope) => {
    for (const listener of listeners) if (scope === 'site' || listener.scope === 'any') listener.forget();
  };

  async function look(): Promise<void> {
    const unannounced = announcer.unannounced();
    if (unannounced) await announcer.announce(unannounced);
    const found = await checkpoints.findOne({ _id: CHANGED });
    for (const [name, value] of Object.entries(found?.highest ?? {})) if (typeof value === 'number') counters.get(name)?.learn(value);
    const now = { token: found?.token, site: found?.site };
    if (!seen || now.site !== seen.site) forget('site');
    else if (now.token !== seen.token) forget('content');
    seen = now;
  }

  function catchUp(): Promise<void> {
    if (!looking) {
      looking = look().finally(() => (looking = undefined));
      return looking;
    }
    // The look under way may have begun before a write this request was told of: wait for the
    // next. If it fails, the database is not answering: so is this request, without a second wait.
    nextLook ??= looking.then(
      () => {
        nextLook = undefined;
        return catchUp();
      },
      (error: unknown) => {
        nextLook = undefined;
        throw error;
      },
    );
    return nextLook;
  }

  return {
    catchUp,
    async changed(scope = 'site') {
      forget(scope);
      try {
        await announcer.afterWrite(scope);
      } catch {
        // The write is made whatever happens here: the next look announces it before anything else.
        // (Not marked before: a look while the announcement is under way would announce it twice.)
        announcer.failed(scope);
      }
    },
    onChange(forget, scope = 'any') {
      listeners.push({ forget, scope });
    },
    shareHighest(name, counter) {
      counters.set(name, counter);
    },
  };
}

export interface KeptPerDatabase<T> {
  get(db: Db): Promise<T>;
  forget(db: Db): void;
}

/**
 * A value read from a database and kept until anything changes (`SiteChanges`), or at most `ttlMs`
 * for what no write announces (a script's, or a scheduled time coming). The read is kept from the
 * moment it begins, so emptying drops one under way too: nothing read before a change is kept after it.
 */
export function keptPerDatabase<T>(ttlMs: number, read: (db: Db) => Promise<T>, scope: ListenScope = 'any'): KeptPerDatabase<T> {
  const kept = new WeakMap<Db, { value: Promise<T>; until: number }>();
  const watched = new WeakSet<Db>();
  const forget = (db: Db) => kept.delete(db);
  return {
    get(db) {
      const entry = kept.get(db);
      if (entry && entry.until > Date.now()) return entry.value;
      if (!watched.has(db)) {
        watched.add(db);
        siteChanges(db).onChange(() => forget(db), scope);
      }
      const fresh = { value: read(db), until: Date.now() + ttlMs };
      kept.set(db, fresh);
      // A failed read is not kept: the next caller asks again.
      fresh.value.catch(() => kept.get(db) === fresh && kept.delete(db));
      return fresh.value;
    },
    forget,
  };
}

import { createHash } from 'node:crypto';
import { type Db } from 'mongodb';
import { defineRestError } from '../rest/errors.js';
import { ANONYMOUS, type RestUser } from '../rest/rest-request.js';
import { type Account, type AccountLookup } from './accounts.js';
import { type Principal } from './capabilities.js';
import { accountOf, type LoginThrottle } from './login-throttle.js';
import { hashApplicationPassword, verifyPassword } from './passwords.js';
import { sessionTokenOf, type LiveSession, type Sessions } from './sessions.js';
import { loadSiteKey } from './site-key.js';

/** The caller once authenticated: the stored user, with the application password used, if any. */
export interface AuthUser extends RestUser, Principal {
  readonly id: number;
  readonly roles: readonly string[];
  readonly account?: Account;
  readonly applicationPassword?: string;
  /** The sign-in session a cookie-authenticated request runs in. */
  readonly session?: LiveSession;
}

export interface Credentials {
  headers: Record<string, string | undefined>;
  /** The client's address: the peer's, or the one a trusted proxy forwarded (`CMS_TRUSTED_PROXIES`). */
  ip: string;
  /**
   * The request's REST nonce (a `_wpnonce` parameter, else `X-WP-Nonce`), when it sent one: a
   * session cookie authenticates only with one (WordPress's `rest_cookie_check_errors`).
   */
  nonce?: string;
}

export const InvalidUsername = defineRestError(
  'invalid_username',
  'Error: The username is not registered on this site. If you are unsure of your username, try your email address instead.',
  401,
);
export const InvalidEmail = defineRestError('invalid_email', 'Unknown email address. Check again or try your username.', 401);
export const IncorrectPassword = defineRestError('incorrect_password', 'The provided password is an invalid application password.', 401);
export const CookieInvalidNonce = defineRestError('rest_cookie_invalid_nonce', 'Cookie check failed', 403);

const ONE_DAY_MS = 24 * 60 * 60 * 1000;

export interface AuthenticatorOptions {
  db: Db;
  /** Where users and their application passwords are found. */
  accounts: AccountLookup;
  throttle: LoginThrottle;
  clock: () => Date;
  /** How long a verified account password is trusted without hashing it again. */
  cacheMs: number;
  /** Sign-in sessions, whose cookie authenticates a request that carries their nonce. */
  sessions?: Sessions;
}

/**
 * How long a verified account-password header's user is trusted without reading it again: a
 * change of roles, password or profile made through another process is seen within this long
 * (through this process, at once: its user commands call `forget`).
 */
export const USER_CACHE_MS = 1000;

/** The login and password of an HTTP Basic `Authorization` header. */
function basicCredentials(header: string): { login: string; password: string } {
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const login = colon >= 0 ? decoded.slice(0, colon) : decoded;
  const password = colon >= 0 ? decoded.slice(colon + 1) : '';
  return { login, password };
}

/** The account password, under the login throttle: returns the user, or throws what the caller is answered. */
async function checkedAccountPassword(throttle: LoginThrottle, user: Account | null, login: string, password: string, ip: string): Promise<Account> {
  // Claimed (and, while the account is slowed, waited for) before the account password is
  // checked, so that concurrent guesses count exactly; username and email share the user's count.
  const attempt = await throttle.begin(ip, accountOf(user?._id, login));
  if (!user) throw login.includes('@') ? new InvalidEmail() : new InvalidUsername();
  if (password && (await verifyPassword(password, user.passwordHash))) {
    attempt.succeeded();
    return user;
  }
  throw new IncorrectPassword();
}

/**
 * WordPress's `rest_cookie_check_errors`: a session cookie without a nonce is ignored (the
 * request is anonymous); with one, the nonce must be the session's, or the request is refused.
 * The answer carries a fresh nonce, as WordPress sends one in `X-WP-Nonce`.
 */
async function sessionCaller(sessions: Sessions | undefined, credentials: Credentials): Promise<AuthUser | RestUser> {
  const token = sessionTokenOf(credentials.headers.cookie);
  if (!sessions || token === undefined || credentials.nonce === undefined) return ANONYMOUS;
  const session = await sessions.find(token);
  if (!session || !(await sessions.verifyNonce(session, credentials.nonce))) throw new CookieInvalidNonce();
  return { ...principalOf(session.user), session, responseHeaders: { 'X-WP-Nonce': await sessions.nonce(session) } };
}

/** Finds which of a user's application passwords a password is, recording its use (at most daily per address). */
function applicationPasswordMatcher(db: Db, accounts: AccountLookup, clock: () => Date) {
  let siteKey: Promise<string> | undefined;
  return async function matchApplicationPassword(user: Account, password: string, ip: string): Promise<string | undefined> {
    // WordPress strips spaces and other separators, so the grouped form `abcd EFGH ...` works.
    const stripped = password.replace(/[^a-z\d]/gi, '');
    if (stripped.length !== 24) return undefined;
    siteKey ??= loadSiteKey(db);
    const hash = hashApplicationPassword(stripped, await siteKey);
    const match = await accounts.applicationPassword(user._id, hash);
    if (!match) return undefined;
    const now = clock();
    if (!match.last_used || now.getTime() - match.last_used.getTime() >= ONE_DAY_MS || match.last_ip !== ip) {
      await accounts.recordApplicationPasswordUse(match._id, now, ip);
    }
    return match._id;
  };
}

/**
 * HTTP Basic with an application password or the account password (CONTRACT). Account
 * passwords cost a memory-hard hash, so a verified header is remembered briefly, keyed by a
 * digest of the header and bound to the stored hash: a changed password no longer matches.
 */
export function createAuthenticator(options: AuthenticatorOptions) {
  const { db, accounts, throttle, clock } = options;
  const verified = new Map<string, { userId: number; passwordHash: string; until: number; user: Account; fresh: number }>();
  const matchApplicationPassword = applicationPasswordMatcher(db, accounts, clock);
  const checkAccountPassword = (user: Account | null, login: string, password: string, ip: string) =>
    checkedAccountPassword(throttle, user, login, password, ip);

  // Checks of the same credentials from the same address under way: a client's parallel requests
  // share one check, so they make one attempt for the throttle, not one each.
  const checking = new Map<string, Promise<AuthUser | RestUser>>();
  /** Bumped whenever anything changed: a user read before is no longer trusted, nor one being read. */
  let generation = 0;

  async function authenticate(credentials: Credentials): Promise<AuthUser | RestUser> {
    const header = credentials.headers.authorization;
    if (!header || !/^basic /i.test(header)) return sessionCaller(options.sessions, credentials);
    const key = `${generation} ${credentials.ip} ${header}`;
    const pending = checking.get(key);
    if (pending) return pending;
    const check = verify(header, credentials.ip).finally(() => checking.delete(key));
    checking.set(key, check);
    return check;
  }

  async function verify(header: string, ip: string): Promise<AuthUser | RestUser> {
    const { login, password } = basicCredentials(header);
    const cacheKey = createHash('sha256').update(header).digest('base64');
    const cached = verified.get(cacheKey);
    const now = Date.now();
    // The user as read moments ago (see USER_CACHE_MS): no query at all.
    if (cached && cached.fresh > now && cached.until > now) return principalOf(cached.user);
    const readIn = generation;
    const user = await accounts.byLogin(login);
    // A header verified moments ago carries the right password: no lock-out applies to it.
    if (user && cached && cached.userId === user._id && cached.passwordHash === user.passwordHash && cached.until > now) {
      cached.user = user;
      cached.fresh = readIn === generation ? now + USER_CACHE_MS : 0;
      return principalOf(user);
    }
    if (user) {
      // An application password is 24 random characters nobody guesses: checking one needs no
      // throttle, so the owner's clients get in whatever is tried against the account elsewhere.
      const applicationPassword = await matchApplicationPassword(user, password, ip);
      if (applicationPassword) return { ...principalOf(user), applicationPassword };
    }
    const checked = await checkAccountPassword(user, login, password, ip);
    const fresh = readIn === generation ? Date.now() + USER_CACHE_MS : 0;
    verified.set(cacheKey, { userId: checked._id, passwordHash: checked.passwordHash, until: Date.now() + options.cacheMs, user: checked, fresh });
    if (verified.size > 10_000) verified.delete(verified.keys().next().value!);
    return principalOf(checked);
  }

  return {
    authenticate,
    /**
     * An interactive sign-in with the account password (never an application password, as in
     * WordPress), counted by the login throttle exactly as HTTP Basic is.
     */
    async signIn(login: string, password: string, ip: string): Promise<AuthUser> {
      return principalOf(await checkAccountPassword(await accounts.byLogin(login), login, password, ip));
    },
    /** Forgets remembered verifications of a user, after a password change in this process. */
    forget(userId: number): void {
      for (const [key, entry] of verified) if (entry.userId === userId) verified.delete(key);
    },
    /** Something changed, maybe a user: every user is read again before it is trusted (`SiteChanges`). */
    forgetUsers(): void {
      generation++;
      for (const entry of verified.values()) entry.fresh = 0;
    },
  };
}

export function principalOf(user: Account): AuthUser {
  return { id: user._id, roles: user.roles, account: user };
}

export function isAuthUser(user: RestUser): user is AuthUser {
  return user.id > 0 && 'roles' in user;
}


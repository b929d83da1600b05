import express, { type NextFunction, type Request, type Response } from 'express';
import { CookieInvalidNonce } from '../auth/authenticate.js';
import { SESSION_COOKIE, sessionTokenOf, type LiveSession, type Sessions } from '../auth/sessions.js';
import { type Deps } from '../deps.js';
import { clientInput } from '../rest/client-input.js';
import { asRestError, InvalidJson, invalidParams, missingParams, NoRoute, RestError, schemaError } from '../rest/errors.js';
import { bodyError } from '../rest/http/body-parsers.js';
import { type SiteChanges } from '../store/coordination/site-changes.js';
import { asServiceWork } from '../store/queries/service-work.js';
import { NotSignedIn } from './admin.errors.js';

/** Longest login accepted: an email address (RFC 5321's 254 characters). */
export const MAX_LOGIN_LENGTH = 254;
/** Longest password accepted; the password hash reads every character. */
export const MAX_PASSWORD_LENGTH = 4096;
const BODY_LIMIT = '16kb';

export interface SessionRouteOptions {
  /** Keeps every process's caches no older than the last acknowledged write (a sign-out is one). */
  changes: SiteChanges;
}

interface SessionJson {
  user: { id: number; name: string; slug: string };
  nonce: string;
}

/**
 * `/cms-admin/session`: the admin page's sign-in (POST), who is signed in with a fresh nonce (GET;
 * 204 when the browser holds no session), and sign-out (DELETE, with the nonce). A cross-site form cannot send a JSON body without
 * a CORS preflight (which is never granted here), and the cookie is SameSite=Strict.
 */
export function sessionRoutes(deps: Deps, { changes }: SessionRouteOptions): express.Router {
  const { auth, sessions } = deps;
  const router = express.Router();
  const parseJson = express.json({ limit: BODY_LIMIT, strict: true, type: () => true });

  const answer = (session: LiveSession) => sessionAnswer(sessions, session);
  const sessionOf = (req: Request) => requestSession(sessions, req);

  router.use('/session', noStoreWithMethodOverride);

  router.post(
    '/session',
    (req: Request, _res: Response, next: NextFunction) => (req.is('application/json') ? next() : next(new InvalidJson())),
    parseJson,
    handle(async (req, res) => {
      const { username, password, remember } = signInInput(req.body);
      const user = await auth.signIn(username, password, req.ip ?? '');
      const session = await sessions.start(user.account!, remember);
      // As WordPress's `wp_set_auth_cookie`: only a remembered session outlives the browser (a
      // shared computer's user who did not ask to be remembered is signed out by closing it).
      res.cookie(SESSION_COOKIE, session.token, { ...cookieOptions(req), ...(remember ? { expires: session.expires } : {}) });
      res.status(200).json(await answer(session));
    }),
  );

  router.get(
    '/session',
    handle(async (req, res) => {
      // Nobody signed in on this browser is not an error: the page asks before anyone has.
      if (sessionTokenOf(req.headers.cookie) === undefined) {
        res.status(204).end();
        return;
      }
      await changes.catchUp();
      const session = await sessionOf(req);
      if (!session) throw new NotSignedIn();
      res.status(200).json(await answer(session));
    }),
  );

  // What `@wordpress/api-fetch` asks its `nonceEndpoint` for when a nonce went stale: the nonce as text.
  router.get(
    '/session/nonce',
    handle(async (req, res) => {
      await changes.catchUp();
      const session = await sessionOf(req);
      if (!session) throw new NotSignedIn();
      res.status(200).type('text/plain').send(await sessions.nonce(session));
    }),
  );

  router.delete(
    '/session',
    handle(async (req, res) => {
      await changes.catchUp();
      const session = await sessionOf(req);
      if (!session) {
        res.clearCookie(SESSION_COOKIE, cookieOptions(req));
        throw new NotSignedIn();
      }
      const nonce = req.get('X-WP-Nonce');
      if (nonce === undefined || !(await sessions.verifyNonce(session, nonce))) throw new CookieInvalidNonce();
      await sessions.end(session);
      // Every process forgets the session before the client is told it ended.
      await changes.changed();
      res.clearCookie(SESSION_COOKIE, cookieOptions(req));
      res.status(204).end();
    }),
  );

  router.all(['/session', '/session/nonce'], (_req, _res, next) => next(new NoRoute()));

  router.use('/session', sendRefusal);
  return router;
}

async function sessionAnswer(sessions: Sessions, session: LiveSession): Promise<SessionJson> {
  return {
    user: { id: session.user._id, name: session.user.name, slug: session.user.slug },
    nonce: await sessions.nonce(session),
  };
}

/** The live session the request's cookie names, if any. */
async function requestSession(sessions: Sessions, req: Request): Promise<LiveSession | undefined> {
  const token = sessionTokenOf(req.headers.cookie);
  return token === undefined ? undefined : sessions.find(token);
}

const cookieOptions = (req: Request) => ({ httpOnly: true, sameSite: 'strict', path: '/', secure: req.secure }) as const;

function noStoreWithMethodOverride(req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Cache-Control', 'no-store');
  // `@wordpress/api-fetch` sends a DELETE as a POST with this header, as the REST API accepts.
  if (req.method === 'POST' && req.get('X-HTTP-Method-Override')?.toUpperCase() === 'DELETE') req.method = 'DELETE';
  next();
}

/** The router's error handler: the refusal as the API answers it, with `Retry-After` when it says when. */
function sendRefusal(error: unknown, req: Request, res: Response, _next: NextFunction): void {
  const refused = refusalOf(error);
  if (refused.status >= 500) req.log.error({ err: error }, 'admin session request failed');
  const body = refused.toBody();
  const retryAfter = body.data?.retry_after;
  if ((refused.status === 429 || refused.status === 503) && typeof retryAfter === 'number') res.setHeader('Retry-After', String(retryAfter));
  res.status(refused.status).json(body);
}

/** An async route handler run as service work, its errors passed to the router's error handler. */
function handle(run: (req: Request, res: Response) => Promise<void>) {
  return (req: Request, res: Response, next: NextFunction) => {
    asServiceWork('request', () => run(req, res)).catch(next);
  };
}

/** What the client is told: the body parser's 4xx as the API tells them, anything else as `asRestError` says. */
function refusalOf(error: unknown): RestError {
  if (error instanceof RestError) return error;
  const { type, status } = error as { type?: string; status?: number };
  if (type === 'entity.parse.failed') return new InvalidJson();
  if (typeof status === 'number' && status >= 400 && status < 500) return bodyError(error);
  return asRestError(error);
}

/** The sign-in body, checked before anything is read from the database: strings, bounded, without NUL. */
function signInInput(raw: unknown): { username: string; password: string; remember: boolean } {
  const body = clientInput(raw, 'json');
  const missing = ['username', 'password'].filter((name) => body[name] === undefined || body[name] === '');
  if (missing.length) throw missingParams(missing);
  const problems: Record<string, RestError> = Object.create(null);
  const text = (name: string, max: number) => {
    const value = body[name];
    if (typeof value !== 'string') problems[name] = schemaError('rest_invalid_type', `${name} is not of type string.`, name);
    else if (value.length > max) problems[name] = schemaError('rest_too_long', `${name} must be at most ${max} characters long.`, name);
  };
  text('username', MAX_LOGIN_LENGTH);
  text('password', MAX_PASSWORD_LENGTH);
  if (body.remember !== undefined && typeof body.remember !== 'boolean') {
    problems.remember = schemaError('rest_invalid_type', 'remember is not of type boolean.', 'remember');
  }
  if (Object.keys(problems).length) throw invalidParams(problems);
  return { username: body.username as string, password: body.password as string, remember: body.remember === true };
}

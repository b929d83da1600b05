/** The API and the session, as seen from the page: every address is relative to the page's own. */

// The page lives at `{site}/cms-admin/`, so a site under a path prefix works unchanged.
export const API_ROOT = new URL('../cms-json/cms/v2/', window.location.href);
const SESSION = new URL('session', window.location.href);
const FRESH_NONCE = new URL('session/nonce', window.location.href);

let nonce = '';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly data: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export interface ApiResult<T> {
  data: T;
  headers: Headers;
}

export interface RequestOptions {
  method?: string;
  query?: Record<string, string | number | undefined>;
  json?: unknown;
  headers?: Record<string, string>;
  /** Sent even as the page unloads. */
  keepalive?: boolean;
}

/** A new nonce for the session, as api-fetch's nonce middleware asks its `nonceEndpoint`; false when signed out. */
async function refreshNonce(): Promise<boolean> {
  const response = await fetch(FRESH_NONCE, { credentials: 'same-origin' });
  if (!response.ok) return false;
  nonce = (await response.text()).trim();
  return true;
}

async function send<T>(url: URL, options: RequestOptions, retried = false): Promise<ApiResult<T>> {
  for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
  const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
  if (nonce) headers['X-WP-Nonce'] = nonce;
  if (options.json !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(url, {
    method: options.method ?? 'GET',
    credentials: 'same-origin',
    headers,
    body: options.json === undefined ? undefined : JSON.stringify(options.json),
    keepalive: options.keepalive,
  });
  // Cookie-authenticated answers carry a fresh nonce: the newest one is always kept.
  const fresh = response.headers.get('X-WP-Nonce');
  if (fresh) nonce = fresh;
  const text = await response.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (!response.ok) {
    const error = (body ?? {}) as { code?: string; message?: string; data?: Record<string, unknown> };
    // A nonce lasts a day (WordPress's nonce life); a page left open longer gets a new one, once.
    if (!retried && nonce && error.code === 'rest_cookie_invalid_nonce' && (await refreshNonce())) return send<T>(url, options, true);
    throw new ApiError(response.status, error.code ?? 'http_error', error.message ?? `The server answered ${response.status}.`, error.data);
  }
  return { data: body as T, headers: response.headers };
}

/** A request to `/cms-json/cms/v2/<path>`. */
export function api<T>(path: string, options: RequestOptions = {}): Promise<ApiResult<T>> {
  return send<T>(new URL(path.replace(/^\//, ''), API_ROOT), options);
}

export interface SessionUser {
  id: number;
  name: string;
  slug: string;
}

interface SessionAnswer {
  user: SessionUser;
  nonce: string;
}

function signedIn(answer: SessionAnswer): SessionUser {
  nonce = answer.nonce;
  return answer.user;
}

/** The signed-in user, or null (no session: 204; a session that ended: 401). */
export async function currentSession(): Promise<SessionUser | null> {
  try {
    const { data } = await send<SessionAnswer | null>(new URL(SESSION), {});
    return data ? signedIn(data) : null;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}

export async function signIn(username: string, password: string, remember: boolean): Promise<SessionUser> {
  return signedIn((await send<SessionAnswer>(new URL(SESSION), { method: 'POST', json: { username, password, remember } })).data);
}

export async function signOut(): Promise<void> {
  await send(new URL(SESSION), { method: 'DELETE' });
  nonce = '';
}

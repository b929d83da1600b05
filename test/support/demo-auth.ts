import { type Authenticate } from '../../src/app.js';
import { RestError } from '../../src/rest/errors.js';

/**
 * Until the identity resource exists, REST-layer tests name the caller in a header:
 * `X-Demo-User: 2` is user 2, `X-Demo-User: bad` fails authentication.
 */
export const demoAuthenticate: Authenticate = async ({ headers }) => {
  const value = headers['x-demo-user'];
  if (value === undefined) return { id: 0 };
  if (!/^\d+$/.test(value)) throw new RestError('invalid_username', 'Unknown username.', 401);
  return { id: Number(value) };
};

export const asUser = (id: number) => ({ 'X-Demo-User': String(id) });

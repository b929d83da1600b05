import { type Config } from './config.js';
import { type Logger } from './logger.js';
import { type Store } from './store/mongo.js';
import { type Sequences } from './store/sequences.js';
import { type createAuthenticator } from './auth/authenticate.js';
import { type Sessions } from './auth/sessions.js';
import { type Themes } from './themes/themes.js';

/** Everything a handler may use, passed explicitly (no singletons, no `process.env`). */
export interface Deps {
  readonly config: Config;
  readonly store: Store;
  readonly logger: Logger;
  readonly clock: () => Date;
  /** `http://HOST:PORT`, as the site's links are built. */
  readonly siteUrl: string;
  readonly ids: Sequences;
  readonly auth: ReturnType<typeof createAuthenticator>;
  /** The admin page's sign-in sessions. */
  readonly sessions: Sessions;
  /** Every theme folder and the active one, loaded and validated at start-up. */
  readonly themes: Themes;
}

import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('loadConfig', () => {
  it('gives the documented defaults', () => {
    const config = loadConfig({ HOME: '/home/someone' });
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      mongodbUri: undefined,
      dataDir: path.resolve('data'),
      cacheDir: '/home/someone/.cache/cms-service',
      logLevel: 'info',
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it.each([
    [{ PORT: '80a' }, /PORT must be a whole number from 0 to 65535, not "80a"/],
    [{ PORT: '70000' }, /PORT/],
    [{ LOG_LEVEL: 'verbose' }, /LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent/],
    [{ CMS_BODY_LIMIT_BYTES: '0' }, /CMS_BODY_LIMIT_BYTES/],
  ])('refuses %o', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});

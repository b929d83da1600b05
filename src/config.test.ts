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
      bodyLimitBytes: 16 * 1024 * 1024,
      anonymousBodyLimitBytes: 64 * 1024,
      eventLoopReport: undefined,
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it.each([
    [{ PORT: '80a' }, /PORT must be a whole number from 0 to 65535, not "80a"/],
    [{ PORT: '70000' }, /PORT/],
    [{ LOG_LEVEL: 'verbose' }, /LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent/],
    [{ CMS_BODY_LIMIT_BYTES: '0' }, /CMS_BODY_LIMIT_BYTES/],
    [{ CMS_TRUSTED_PROXIES: 'true' }, /CMS_TRUSTED_PROXIES must be a number of proxy hops, or addresses and CIDR ranges .*invalid IP address: true/],
    [{ CMS_TRUSTED_PROXIES: '10.0.0.0/33' }, /CMS_TRUSTED_PROXIES.*invalid range/],
    [{ CMS_TRUSTED_PROXIES: '101' }, /CMS_TRUSTED_PROXIES must be a whole number from 0 to 100/],
    [{ CMS_LOGIN_SLOWDOWN_MS: '0' }, /CMS_LOGIN_SLOWDOWN_MS/],
    [{ CMS_ANONYMOUS_BODY_LIMIT_BYTES: '64k' }, /CMS_ANONYMOUS_BODY_LIMIT_BYTES must be a whole number/],
    [{ MONGODB_URI: 'mongodb://db1,db2,db3/cms?replicaSet=rs0&w=1' }, /MONGODB_URI asks for w=1: .*CMS_ALLOW_WEAK_WRITES=true/],
    [{ MONGODB_URI: 'mongodb://db1/cms?W=2' }, /MONGODB_URI asks for w=2/],
    [{ MONGODB_URI: 'mongodb://db1/cms?readPreference=secondaryPreferred' }, /MONGODB_URI asks for readPreference=secondaryPreferred/],
    [{ MONGODB_URI: 'mongodb://db1/cms?readConcernLevel=local' }, /MONGODB_URI asks for readConcernLevel=local/],
    [{ MONGODB_URI: 'mongodb://db1/cms?readPreference=nearest', CMS_ALLOW_WEAK_WRITES: 'true' }, /readPreference=nearest/],
    [{ MONGODB_URI: 'http://db1/cms' }, /MONGODB_URI is not a MongoDB connection string/],
  ])('refuses %o', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('waits out an election on a replica set by default: a longer database timeout', () => {
    expect(loadConfig({}).databaseTimeoutMs).toBe(5000);
    expect(loadConfig({ MONGODB_URI: 'mongodb://db1/cms' }).databaseTimeoutMs).toBe(5000);
    expect(loadConfig({ MONGODB_URI: 'mongodb://db1,db2,db3/cms?replicaSet=rs0' }).databaseTimeoutMs).toBe(15_000);
    expect(loadConfig({ MONGODB_URI: 'mongodb+srv://cluster0.example.net/cms' }).databaseTimeoutMs).toBe(15_000);
    expect(loadConfig({ MONGODB_URI: 'mongodb://db1/cms?replicaSet=rs0', CMS_DATABASE_TIMEOUT_MS: '3000' }).databaseTimeoutMs).toBe(3000);
  });

  it('takes a database URI that asks for what the service needs, or for weaker writes its operator accepts', () => {
    const uri = 'mongodb://db1,db2,db3/cms?replicaSet=rs0&w=majority&readPreference=primary&readConcernLevel=majority';
    expect(loadConfig({ MONGODB_URI: ` ${uri} ` }).mongodbUri).toBe(uri);
    expect(loadConfig({ MONGODB_URI: 'mongodb://db1/cms?w=1', CMS_ALLOW_WEAK_WRITES: 'true' }).mongodbUri).toBe('mongodb://db1/cms?w=1');
  });

  it('trusts no proxy by default, and takes a hop count or a list of addresses, ranges and names as Express does', () => {
    expect(loadConfig({}).trustedProxies).toEqual([]);
    expect(loadConfig({ CMS_TRUSTED_PROXIES: ' 2 ' }).trustedProxies).toBe(2);
    expect(loadConfig({ CMS_TRUSTED_PROXIES: 'loopback, 10.0.0.0/8,fd00::/8' }).trustedProxies).toEqual(['loopback', '10.0.0.0/8', 'fd00::/8']);
    expect(loadConfig({})).toMatchObject({ loginMaxFailures: 10, loginMaxAddressFailures: 100, loginWindowSeconds: 900, loginSlowdownMs: 1000 });
  });
});

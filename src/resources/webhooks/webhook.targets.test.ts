import http from 'node:http';
import { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send, retryAfterMs } from './webhook.send.js';
import { targetPolicy } from './webhook.targets.js';
import { nextAttemptDelay, RETRY_DELAYS_MS } from './webhook.retry.js';

let server: http.Server;
let port: number;
let requests = 0;
beforeAll(async () => {
  server = http.createServer((_req, res) => {
    requests++;
    res.writeHead(200).end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('the address policy', () => {
  const policy = targetPolicy([]);
  it.each(['127.0.0.1', '10.1.1.1', '172.16.0.1', '192.168.0.1', '169.254.169.254', '0.0.0.0', '100.64.0.1', '::1', '::', 'fe80::1', 'fd12::1', '::ffff:127.0.0.1', '::ffff:a9fe:a9fe', '64:ff9b::a00:1', 'ff02::1', '224.0.0.1'])(
    'refuses %s',
    (address) => expect(policy.refusal(address)).toBeDefined(),
  );
  it.each(['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946', '::ffff:93.184.216.34'])('accepts %s', (address) => expect(policy.refusal(address)).toBeUndefined());
  it('accepts what the operator allows, and only that', () => {
    const allowing = targetPolicy(['127.0.0.1', '10.0.0.0/8']);
    expect(allowing.refusal('127.0.0.1')).toBeUndefined();
    expect(allowing.refusal('10.200.0.1')).toBeUndefined();
    expect(allowing.refusal('127.0.0.2')).toBeDefined();
  });
});

describe('a delivery', () => {
  it('checks the address a name resolves to when it connects (DNS rebinding), not only when the endpoint was saved', async () => {
    const before = requests;
    const refused = await send(`http://localhost:${port}/`, {}, '{}', { policy: targetPolicy([]), timeoutMs: 2000 });
    expect(refused).toMatchObject({ status: null });
    expect(refused.error).toMatch(/^refused: /);
    expect(requests).toBe(before);
    const allowed = await send(`http://localhost:${port}/`, {}, '{}', { policy: targetPolicy(['127.0.0.1', '::1']), timeoutMs: 2000 });
    expect(allowed).toMatchObject({ status: 200, error: null, response: 'ok' });
  });

  it('writes nothing once connected if the deliverer may no longer start it (its lease term ended meanwhile)', async () => {
    const before = requests;
    const policy = targetPolicy(['127.0.0.1']);
    let asked = 0;
    const stale = await send(`http://127.0.0.1:${port}/`, {}, '{}', { policy, timeoutMs: 2000, mayStart: () => (asked++, false) });
    expect(stale).toMatchObject({ status: null, error: expect.stringMatching(/^not sent: /) });
    expect(asked).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(requests).toBe(before);
    const current = await send(`http://127.0.0.1:${port}/`, {}, '{}', { policy, timeoutMs: 2000, mayStart: () => true });
    expect(current).toMatchObject({ status: 200, response: 'ok' });
    expect(requests).toBe(before + 1);
  });

  it.each(['127.0.0.1', '[::ffff:0:7f00:1]', '[64:ff9b::7f00:1]'])('refuses an address in the URL without a lookup: %s', async (host) => {
    const refused = await send(`http://${host}:${port}/`, {}, '{}', { policy: targetPolicy([]), timeoutMs: 2000 });
    expect(refused.error).toMatch(/^refused: /);
  });
});

describe('retries', () => {
  it('span about three days, then stop', () => {
    const total = RETRY_DELAYS_MS.reduce((sum, ms) => sum + ms, 0);
    expect(total / 86_400e3).toBeGreaterThan(2.5);
    expect(total / 86_400e3).toBeLessThan(3.5);
    expect(nextAttemptDelay(RETRY_DELAYS_MS.length + 1, undefined)).toBeNull();
  });
  it('vary each delay by up to a fifth, and wait at least what Retry-After asks', () => {
    expect(nextAttemptDelay(1, undefined, () => 0)).toBe(4000);
    expect(nextAttemptDelay(1, undefined, () => 1)).toBe(6000);
    expect(nextAttemptDelay(1, 60_000, () => 0.5)).toBe(60_000);
    expect(retryAfterMs('120', 0)).toBe(120_000);
    expect(retryAfterMs(new Date(90_000).toUTCString(), 30_000)).toBe(60_000);
    expect(retryAfterMs('soon', 0)).toBeUndefined();
  });
});

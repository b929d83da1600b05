import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.js';

// No address is allowed by the operator here, as on a site that did not set CMS_WEBHOOKS_ALLOW_ADDRESSES.
let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.stop();
});

const create = (url: string) => app.api('POST', '/cms/v2/webhooks', { headers: app.admin, json: { url, active: false } });

/** A Teredo address (RFC 4380) whose client is `client`: the client's address is carried inverted. */
function teredo(client: string): string {
  const inverted = client.split('.').map((octet) => 255 - Number(octet));
  const hex = (high: number, low: number) => ((high << 8) | low).toString(16);
  return `2001:0:4136:e378:8000:63bf:${hex(inverted[0], inverted[1])}:${hex(inverted[2], inverted[3])}`;
}

describe('a webhook target in a form that embeds an IPv4 address', () => {
  it.each([
    ['IPv4-translated (RFC 6145)', '::ffff:0:7f00:1', '127.0.0.1'],
    ['NAT64, the well-known prefix', '64:ff9b::7f00:1', '127.0.0.1'],
    ['NAT64 with the well-known prefix, a private address', '64:ff9b::a00:1', '10.0.0.1'],
    ['6to4', '2002:a9fe:a9fe::1', '169.254.169.254'],
    ['Teredo', teredo('127.0.0.1'), '127.0.0.1'],
  ])('is refused when the address it reaches is: %s', async (_form, address, embedded) => {
    const refused = await create(`http://[${address}]:18399/`);
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.code).toBe('rest_invalid_param');
    expect(refused.body.data.params.url).toContain(`embeds ${embedded}`);
  });
});

describe('a webhook target in a special-purpose range that is not globally reachable', () => {
  it.each([
    ['IPv4-translated (RFC 6145), even of a public address', '::ffff:0:5db8:d822'],
    ['NAT64 for local use (RFC 8215)', '64:ff9b:1::5db8:d822'],
    ['Teredo, even of a public client', teredo('93.184.216.34')],
    ['IETF protocol assignments', '2001:5::1'],
    ['benchmarking (IPv6)', '2001:2::1'],
    ['ORCHID (deprecated)', '2001:10::1'],
    ['the dummy prefix', '100:0:0:1::1'],
    ['documentation (3fff::/20)', '3fff:0:0:1::1'],
    ['SRv6 SIDs', '5f00::1'],
    ['IPv4-compatible (deprecated)', '::5db8:d822'],
    ['outside global unicast', '4000::1'],
    ['the deprecated 6to4 relay anycast', '192.88.99.1'],
  ])('is refused: %s', async (_range, address) => {
    const refused = await create(address.includes(':') ? `http://[${address}]/` : `http://${address}/`);
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.code).toBe('rest_invalid_param');
  });
});

describe('a public webhook target', () => {
  it.each([
    ['IPv4', 'http://93.184.216.34/'],
    ['IPv6', 'http://[2606:2800:220:1:248:1893:25c8:1946]/'],
    ['IPv4-mapped', 'http://[::ffff:93.184.216.34]/'],
    ['NAT64 with the well-known prefix', 'http://[64:ff9b::5db8:d822]/'],
  ])('is accepted: %s', async (_form, url) => {
    const created = await create(url);
    expect(created.status, created.text).toBe(201);
    await app.api('DELETE', `/cms/v2/webhooks/${created.body.id}`, { headers: app.admin, query: { force: true } });
  });
});

import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.js';
let app: TestApp;
beforeAll(async () => { app = await createTestApp(); });
afterAll(async () => { await app?.stop(); });
it('dumps', async () => {
  const r = await app.api('GET', '/', { headers: app.admin });
  writeFileSync('/tmp/probe/index.json', JSON.stringify(r.body, null, 1));
});

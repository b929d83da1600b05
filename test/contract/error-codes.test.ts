// Every code the service can answer with is defined once in the error registry, and the list of
// codes in docs/api.md is that registry: a code added without being listed, or listed and never
// defined, fails here.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { definedErrorCodes, fixedMessageErrors, serverErrorCodes } from '../../src/rest/errors.js';
import '../../src/service.js';
import '../../src/resources/index.js';

async function sourceFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await sourceFiles(full)));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) files.push(full);
  }
  return files;
}

describe('the error registry', () => {
  it('is the list of codes docs/api.md documents', async () => {
    const api = await readFile('docs/api.md', 'utf8');
    const section = api.split('\n## Error codes\n')[1].split(/\n#{1,3} /)[0];
    const documented = [...section.matchAll(/`([a-z_]+)`/g)].map((match) => match[1]).filter((code) => code !== 'defineRestError');
    expect(documented.length).toBeGreaterThan(50);
    expect(new Set(documented)).toEqual(new Set(definedErrorCodes));
  });

  it("keeps 5xx for faults of the service: a client's mistake is a 4xx, even where WordPress answers 500", () => {
    // 501 is the contract's answer to a DELETE without force of what cannot be trashed.
    const faultsOfTheService = ['internal_server_error', 'rest_item_unavailable', 'db_connect_fail', 'maintenance', 'rest_live_requests_full', 'rest_invalid_stored_value', 'rest_trash_not_supported'];
    expect([...serverErrorCodes].sort()).toEqual(faultsOfTheService.sort());
  });

  it('defines each error once: no code is defined twice with the same status and message', () => {
    const definitions = new Map<string, number>();
    for (const { code, status, message } of fixedMessageErrors) {
      const error = `${code} ${status}: ${message}`;
      definitions.set(error, (definitions.get(error) ?? 0) + 1);
    }
    expect([...definitions].filter(([, count]) => count > 1).map(([error]) => error)).toEqual([]);
  });

  it('is the only way errors are made: no inline RestError, no error recognised by its message', async () => {
    const offenders: string[] = [];
    for (const file of [...(await sourceFiles('src')), ...(await sourceFiles('scripts'))]) {
      if (file === path.join('src', 'rest', 'errors.ts')) continue;
      const text = await readFile(file, 'utf8');
      for (const [index, line] of text.split('\n').entries()) {
        if (/new RestError\(|extends RestError\b|definedErrorCodes\.add|\.message\)?\??\.(includes|startsWith|match)\(/.test(line)) offenders.push(`${file}:${index + 1}: ${line.trim()}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});

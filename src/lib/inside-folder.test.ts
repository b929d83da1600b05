import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insideFolder, OutsideFolderError } from './inside-folder.js';

let root: string;
let outside: string;

beforeAll(() => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'inside-folder-'));
  root = path.join(base, 'theme');
  outside = path.join(base, 'secret.html');
  fs.mkdirSync(path.join(root, 'templates'), { recursive: true });
  fs.writeFileSync(path.join(root, 'templates', 'index.html'), 'index');
  fs.writeFileSync(outside, 'secret');
  fs.symlinkSync(outside, path.join(root, 'templates', 'leak.html'));
  fs.symlinkSync(path.join(root, 'templates', 'index.html'), path.join(root, 'templates', 'alias.html'));
});
afterAll(() => fs.rmSync(path.dirname(root), { recursive: true, force: true }));

const reasonOf = (result: string | OutsideFolderError) => (result instanceof OutsideFolderError ? result.reason : result);

describe('insideFolder', () => {
  it('resolves a path inside the folder, existing or not', () => {
    expect(insideFolder(root, 'templates/index.html')).toBe(path.join(root, 'templates', 'index.html'));
    expect(insideFolder(root, 'templates/missing.html')).toBe(path.join(root, 'templates', 'missing.html'));
    expect(insideFolder(root, 'templates/alias.html')).toBe(path.join(root, 'templates', 'alias.html'));
  });

  it('refuses absolute paths, .. segments and symbolic links leading out', () => {
    expect(reasonOf(insideFolder(root, outside))).toBe('absolute');
    expect(reasonOf(insideFolder(root, '../secret.html'))).toBe('parent');
    expect(reasonOf(insideFolder(root, 'templates/../../secret.html'))).toBe('parent');
    expect(reasonOf(insideFolder(root, 'templates\\..\\..\\secret.html'))).toBe('parent');
    expect(reasonOf(insideFolder(root, 'templates/leak.html'))).toBe('symlink');
    expect(String(insideFolder(root, 'templates/leak.html'))).toContain('templates/leak.html');
  });
});

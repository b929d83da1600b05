import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BlockTypeFileError, CORE_BLOCK_TYPES, isCoreBlockType, readBlockFolders } from './block-types.js';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) fs.rmSync(folder, { recursive: true, force: true });
});

function blockFolder(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'blocks-'));
  folders.push(root);
  for (const [relative, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
    fs.writeFileSync(path.join(root, relative), text);
  }
  return root;
}

const failure = (root: string) => {
  try {
    readBlockFolders(root);
  } catch (error) {
    expect(error).toBeInstanceOf(BlockTypeFileError);
    return error as BlockTypeFileError;
  }
  throw new Error('read without complaint');
};

describe('the core block types', () => {
  it('are read from blocks/core, every one valid against the block.json schema, named core/<folder>', () => {
    expect(CORE_BLOCK_TYPES.length).toBeGreaterThanOrEqual(30);
    for (const block of CORE_BLOCK_TYPES) expect(block.name).toMatch(/^core\/[a-z-]+$/);
    expect(isCoreBlockType('core/paragraph')).toBe(true);
    expect(isCoreBlockType('hello-blocks/greeting')).toBe(false);
    expect(Object.isFrozen(CORE_BLOCK_TYPES[0])).toBe(true);
  });
});

describe('reading a folder of block.json files', () => {
  it("reads each folder's block.json in name order", () => {
    const root = blockFolder({
      'b/block.json': JSON.stringify({ name: 'test/b', title: 'B' }),
      'a/block.json': JSON.stringify({ name: 'test/a', title: 'A', render: 'server' }),
    });
    expect(readBlockFolders(root).map((block) => block.name)).toEqual(['test/a', 'test/b']);
  });

  it('stops at a broken file, naming the file and the problem', () => {
    const broken = blockFolder({ 'one/block.json': '{"name": "test/one",' });
    const notJson = failure(broken);
    expect(notJson.file).toBe(path.join(broken, 'one', 'block.json'));
    expect(notJson.message).toContain(`${path.join(broken, 'one', 'block.json')}: is not valid JSON`);

    const noTitle = failure(blockFolder({ 'one/block.json': JSON.stringify({ name: 'test/one' }) }));
    expect(noTitle.problem).toBe("(top level) must have required property 'title'");

    const badAttribute = failure(blockFolder({ 'one/block.json': JSON.stringify({ name: 'test/one', title: 'One', attributes: { size: { type: 'huge' } } }) }));
    expect(badAttribute.problem).toContain('/attributes/size');

    const missing = failure(blockFolder({ 'one/readme.txt': '' }));
    expect(missing.problem).toBe('is missing');

    const twice = failure(blockFolder({ 'a/block.json': JSON.stringify({ name: 'test/a', title: 'A' }), 'b/block.json': JSON.stringify({ name: 'test/a', title: 'B' }) }));
    expect(twice.problem).toContain('declares test/a');

    const escaping = failure(blockFolder({ 'a/block.json': JSON.stringify({ name: 'test/a', title: 'A', editorScript: ['x', 'file:../b/index.js'] }) }));
    expect(escaping.problem).toBe("editorScript names a file outside the block's folder (parent)");
  });
});

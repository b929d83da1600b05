import fs from 'node:fs';
import path from 'node:path';

/** Why a relative path was refused: it names something outside its folder, or names it in a way that could. */
export class OutsideFolderError extends Error {
  constructor(
    readonly root: string,
    readonly relative: string,
    readonly reason: 'absolute' | 'parent' | 'symlink',
  ) {
    const why = { absolute: 'is an absolute path', parent: 'climbs out with ..', symlink: 'leads outside through a symbolic link' }[reason];
    super(`${relative} ${why}; only files inside ${root} are read`);
  }
}

/**
 * The absolute path of `relative` inside `root`, or an `OutsideFolderError`: absolute paths and
 * `..` segments are refused outright, and when the path exists its real location (symbolic links
 * followed) must still be inside the real `root`. A path that does not exist is returned as it
 * would be, for the caller to find missing.
 */
export function insideFolder(root: string, relative: string): string | OutsideFolderError {
  if (path.isAbsolute(relative) || /^[a-zA-Z]:/.test(relative) || relative.includes('\0')) return new OutsideFolderError(root, relative, 'absolute');
  if (relative.split(/[\\/]/).includes('..')) return new OutsideFolderError(root, relative, 'parent');
  const resolved = path.resolve(root, relative);
  let real: string;
  try {
    real = fs.realpathSync(resolved);
  } catch {
    return resolved;
  }
  const realRoot = fs.realpathSync(root);
  if (real !== realRoot && !real.startsWith(realRoot + path.sep)) return new OutsideFolderError(root, relative, 'symlink');
  return resolved;
}

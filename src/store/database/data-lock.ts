import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

/** Another live service keeps its database in this folder. */
export class DataDirInUseError extends Error {}

interface LockRecord {
  /** The service holding the folder. */
  pid: number;
  /** The database process it started there, once it has. */
  databasePid?: number;
}

export interface DataDirLock {
  /** Notes the database process started in the folder, so a successor can wait for it to go. */
  recordDatabase(pid: number): Promise<void>;
  release(): Promise<void>;
}

const LOCK_FILE = 'service.lock';

/**
 * Takes the folder's lock file, so that two services never run a database on the same files.
 * The lock of a service that is gone (killed, so it never released it) is taken over, after
 * its database process has stopped: its watchdog stops it, and a straggler is killed.
 */
export async function lockDataDir(dir: string): Promise<DataDirLock> {
  const lockPath = path.join(dir, LOCK_FILE);
  const write = async (record: LockRecord) => {
    // Written aside and linked into place: the lock never exists half-written, and `link`
    // fails if another service created it first.
    const temp = `${lockPath}.${process.pid}.${randomBytes(4).toString('hex')}`;
    await fs.writeFile(temp, JSON.stringify(record));
    try {
      await fs.link(temp, lockPath);
    } finally {
      await fs.rm(temp, { force: true });
    }
  };

  for (let attempt = 0; ; attempt++) {
    try {
      await write({ pid: process.pid });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 5) throw error;
    }
    const holder = await readLock(lockPath);
    if (holder && holder.pid !== process.pid && isRunning(holder.pid) && (await runsNode(holder.pid))) {
      throw new DataDirInUseError(
        `The database folder ${dir} is in use by another service (process ${holder.pid}): stop it, or give this one another CMS_DATA_DIR.`,
      );
    }
    // Moved aside before it is judged, so that a lock another service has just taken is never removed.
    const aside = `${lockPath}.stale.${process.pid}`;
    try {
      await fs.rename(lockPath, aside);
    } catch {
      continue;
    }
    const stale = await readLock(aside);
    if (stale && stale.pid !== holder?.pid && isRunning(stale.pid)) {
      await fs.link(aside, lockPath).catch(() => {});
      await fs.rm(aside, { force: true });
      continue;
    }
    if (stale?.databasePid) await stopStraggler(stale.databasePid, dir);
    await fs.rm(aside, { force: true });
  }

  let record: LockRecord = { pid: process.pid };
  return {
    async recordDatabase(databasePid) {
      record = { ...record, databasePid };
      const temp = `${lockPath}.${process.pid}.next`;
      await fs.writeFile(temp, JSON.stringify(record));
      await fs.rename(temp, lockPath);
    },
    async release() {
      const holder = await readLock(lockPath);
      if (holder?.pid === process.pid) await fs.rm(lockPath, { force: true });
    },
  };
}

async function readLock(file: string): Promise<LockRecord | undefined> {
  try {
    const record = JSON.parse(await fs.readFile(file, 'utf8')) as LockRecord;
    return Number.isInteger(record.pid) ? record : undefined;
  } catch {
    // Gone, or unreadable: nobody can be shown to hold it.
    return undefined;
  }
}

export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Waits for a dead service's database to stop (its watchdog stops it within moments), then
 * kills it. Where `/proc` tells, only a process that names this folder is touched (the pid may
 * have been reused).
 */
async function stopStraggler(pid: number, dir: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (isRunning(pid) && (await namesFolder(pid, dir))) {
    if (Date.now() > deadline) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        return;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Whether `pid` is a Node.js process, where `/proc` tells (after a reboot, the pid may belong to anything). */
async function runsNode(pid: number): Promise<boolean> {
  try {
    return /node/i.test(await fs.readFile(`/proc/${pid}/cmdline`, 'utf8'));
  } catch {
    return true;
  }
}

async function namesFolder(pid: number, dir: string): Promise<boolean> {
  try {
    return (await fs.readFile(`/proc/${pid}/cmdline`, 'utf8')).includes(dir);
  } catch (error) {
    // No /proc on this system: trust the record. Gone: nothing to wait for.
    return (error as NodeJS.ErrnoException).code !== 'ENOENT' || !(await exists('/proc/self'));
  }
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}

import cluster, { type Worker } from 'node:cluster';
import { type Logger } from './logger.js';
import { type GeneratedAdministrator } from './resources/manifest.js';
import { type Shutdown } from './shutdown.js';

/** What a worker tells the primary once its service answers requests. */
interface ReadyMessage {
  type: 'ready';
  siteUrl: string;
  /** The administrator this worker's start created with a generated password, for the primary to show. */
  generatedAdministrator?: GeneratedAdministrator;
}

const isReady = (message: unknown): message is ReadyMessage =>
  typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'ready';

/** Worker side: says the service is up, so the primary starts the next one. */
export function announceReady(siteUrl: string, generatedAdministrator?: GeneratedAdministrator): void {
  process.send?.({ type: 'ready', siteUrl, generatedAdministrator } satisfies ReadyMessage);
}

export class WorkerStartFailed extends Error {}

export interface Workers {
  readonly siteUrl: string;
  readonly generatedAdministrator?: GeneratedAdministrator;
  /** Sends every worker SIGTERM (each finishes its requests in flight) and waits for all to exit. */
  stop(): Promise<void>;
}

const RESTART_DELAY_MS = 1000;

/**
 * V8 grows a process's young generation up to 16 MiB a semi-space (48 MiB resident) under an
 * allocation burst, and a worker's requests allocate in bursts; 4 MiB kept a worker's peak under
 * load about 20 MiB lower at the same CPU per request. An operator's own setting (in the
 * process's flags or NODE_OPTIONS) wins.
 */
const WORKER_SEMI_SPACE_FLAG = '--max-semi-space-size=4';

/**
 * A worker's old generation grows with its garbage: V8 collects it only when the heap nears its
 * limit, which by default is sized from the machine's memory, so under load a worker's resident
 * size climbs past what it uses. `CMS_WORKER_HEAP_MB` caps it (`--max-old-space-size`), so the
 * garbage is collected sooner; 0 leaves V8's own limit.
 */
export function workerExecArgv(maxOldSpaceMiB: number): string[] {
  const given = (pattern: RegExp) => [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((flag) => pattern.test(flag));
  const flags = [...process.execArgv];
  if (!given(/--max[-_]semi[-_]space[-_]size/)) flags.push(WORKER_SEMI_SPACE_FLAG);
  if (maxOldSpaceMiB > 0 && !given(/--max[-_]old[-_]space[-_]size/)) flags.push(`--max-old-space-size=${maxOldSpaceMiB}`);
  return flags;
}

/**
 * Primary side of `CMS_WORKERS`: forks the service processes one after another, each after the
 * previous one answers, so their start-up (indexes, the first administrator, healing) never runs
 * concurrently. They share the listening socket through node:cluster. A worker that crashes is
 * replaced; its replacement heals what the crash left unprojected, as any start does. One that
 * was stopped (it exits 0 once its own SIGINT or SIGTERM has stopped it) is not: it requests the
 * service's `shutdown`, and nothing is replaced once that is requested, whichever process a
 * stop signal reached first.
 */
export async function startWorkers(
  { count, env, maxOldSpaceMiB }: { count: number; env: Record<string, string>; maxOldSpaceMiB: number },
  logger: Logger,
  shutdown?: Shutdown,
): Promise<Workers> {
  let stopped = false;
  let generatedAdministrator: GeneratedAdministrator | undefined;
  const stopping = () => stopped || (shutdown?.signal.aborted ?? false);
  const live = new Set<Worker>();

  cluster.setupPrimary({ execArgv: workerExecArgv(maxOldSpaceMiB) });
  const fork = () =>
    new Promise<string>((resolve, reject) => {
      const worker = cluster.fork(env);
      live.add(worker);
      let ready = false;
      worker.on('message', (message: unknown) => {
        if (!isReady(message) || ready) return;
        ready = true;
        logger.info({ worker: worker.process.pid }, 'worker ready');
        generatedAdministrator ??= message.generatedAdministrator;
        resolve(message.siteUrl);
      });
      worker.on('exit', (code, signal) => {
        live.delete(worker);
        if (!ready) return reject(new WorkerStartFailed(`a service worker exited during start-up (code ${code}, signal ${signal})`));
        if (stopping()) return;
        if (code === 0 || signal === 'SIGTERM' || signal === 'SIGINT') {
          logger.warn({ worker: worker.process.pid, code, signal }, 'worker was stopped; not replacing it');
          shutdown?.request('a worker stopped');
          return;
        }
        logger.error({ worker: worker.process.pid, code, signal }, 'worker died; starting another');
        setTimeout(replace, RESTART_DELAY_MS).unref();
      });
    });

  const replace = () => {
    if (stopping()) return;
    fork().catch((error: unknown) => {
      logger.error({ err: error }, 'replacement worker failed to start; trying again');
      setTimeout(replace, RESTART_DELAY_MS * 5).unref();
    });
  };

  const stop = async () => {
    stopped = true;
    await Promise.all(
      [...live].map(
        (worker) =>
          new Promise<void>((resolve) => {
            if (worker.isDead()) return resolve();
            worker.once('exit', () => resolve());
            worker.process.kill('SIGTERM');
          }),
      ),
    );
  };

  let siteUrl = '';
  try {
    for (let started = 0; started < count; started++) siteUrl = await fork();
  } catch (error) {
    await stop();
    throw error;
  }
  return { siteUrl, generatedAdministrator, stop };
}

// The service as `npm start` runs it on MONGODB_URI (with CMS_WORKERS processes), counting the
// commands it sends to the database: the benchmark forks it and asks over IPC ('count' ->
// { commands, byKind, peakRssMiB }), summed over the workers, each process's peak RSS listed.
// A kind is the command, its collection and the fields its filter names: `find posts {_id,type}`.
// 'appends' -> { appends }: each event row an `insert` into the log sent since the last asking,
// as [stream, seq, position] (voids left out), so that a benchmark can tell from the log which
// were stored and which lost a race and were sent again.
import cluster, { type Worker } from 'node:cluster';
import { type CommandStartedEvent } from 'mongodb';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { VOID_EVENT } from '../../src/store/log/change-log.js';
import { embeddedPostgresOf } from '../../src/store/database/postgresql.js';
import { announceReady, startWorkers } from '../../src/workers.js';

interface Count {
  commands: number;
  byKind: Record<string, number>;
  peakRssMiB: number[];
}

/** Event rows sent to the log: [stream, seq, position]. */
type AppendAttempt = [number, number, number];

/** The event rows (not voids) an insert into the log sends. */
function appendAttempts(event: CommandStartedEvent): AppendAttempt[] {
  const command = event.command as { insert?: unknown; documents?: { stream?: number; seq?: number; position?: number; type?: string }[] };
  if (event.commandName !== 'insert' || command.insert !== 'events') return [];
  return (command.documents ?? []).filter((row) => row.type !== VOID_EVENT && typeof row.position === 'number').map((row) => [row.stream!, row.seq!, row.position!]);
}

function kindOf(event: CommandStartedEvent): string {
  const command = event.command as Record<string, unknown>;
  const statement = (statements: unknown) => (statements as { q?: unknown }[] | undefined)?.[0]?.q;
  const filter = command.filter ?? statement(command.updates) ?? statement(command.deletes) ?? (command.pipeline as unknown[] | undefined)?.[0] ?? command.query;
  const fields = filter && typeof filter === 'object' ? ` {${Object.keys(filter).join(',')}}` : '';
  return `${event.commandName} ${String(command[event.commandName] ?? '')}${fields}`;
}

const config = loadConfig(process.env);
const logger = createLogger(config.logLevel);
const peakRssMiB = () => process.resourceUsage().maxRSS / 1024;

if (cluster.isPrimary && config.workers > 1) {
  const workers = await startWorkers({ count: config.workers, env: { MONGODB_URI: process.env.MONGODB_URI! }, maxOldSpaceMiB: config.workerHeapMiB }, logger);
  const ask = <T>(worker: Worker, question: string) =>
    new Promise<T>((resolve) => {
      worker.once('message', (message: T) => resolve(message));
      worker.send(question);
    });
  process.on('message', async (message) => {
    if (message === 'appends') {
      const answers = await Promise.all(Object.values(cluster.workers!).map((worker) => ask<{ appends: AppendAttempt[] }>(worker!, 'appends')));
      process.send!({ appends: answers.flatMap((answer) => answer.appends) });
      return;
    }
    if (message !== 'count') return;
    const counts = await Promise.all(Object.values(cluster.workers!).map((worker) => ask<Count>(worker!, 'count')));
    const byKind: Record<string, number> = {};
    for (const count of counts) for (const [kind, n] of Object.entries(count.byKind)) byKind[kind] = (byKind[kind] ?? 0) + n;
    process.send!({
      commands: counts.reduce((sum, count) => sum + count.commands, 0),
      byKind,
      peakRssMiB: [peakRssMiB(), ...counts.flatMap((count) => count.peakRssMiB)],
    } satisfies Count);
  });
  process.on('SIGTERM', () => void workers.stop().then(() => process.exit(0)));
  process.send!({ url: workers.siteUrl });
} else {
  let commands = 0;
  const byKind: Record<string, number> = {};
  let appends: AppendAttempt[] = [];
  const onCommand = (event: CommandStartedEvent) => {
    commands++;
    const kind = kindOf(event);
    byKind[kind] = (byKind[kind] ?? 0) + 1;
    appends.push(...appendAttempts(event));
  };
  // Loaded only here, as `npm start` loads them only in a process that serves: the primary's memory is measured too.
  const [{ resources }, { startService }] = await Promise.all([import('../../src/resources/index.js'), import('../../src/service.js')]);
  // As `npm start`'s workers are told of the embedded PostgreSQL (the bench's database tells it here).
  const service = await startService({ config, logger, resources, databaseUri: process.env.MONGODB_URI!, onCommand, postgres: embeddedPostgresOf(process.env) });
  process.on('message', (message) => {
    if (message === 'count') process.send!({ commands, byKind, peakRssMiB: [peakRssMiB()] } satisfies Count);
    if (message === 'appends') {
      process.send!({ appends });
      appends = [];
    }
  });
  process.on('SIGTERM', () => void service.stop().then(() => process.exit(0)));
  if (cluster.isWorker) announceReady(service.siteUrl);
  else process.send!({ url: service.siteUrl });
}

// The service as `npm start` runs it on MONGODB_URI (with CMS_WORKERS processes), counting the
// commands it sends to the database: the benchmark forks it and asks over IPC ('count' ->
// { commands, peakRssMiB }), summed over the workers, each process's peak RSS listed.
import cluster, { type Worker } from 'node:cluster';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { resources } from '../../src/resources/index.js';
import { startService } from '../../src/service.js';
import { announceReady, startWorkers } from '../../src/workers.js';

interface Count {
  commands: number;
  peakRssMiB: number[];
}

const config = loadConfig(process.env);
const logger = createLogger(config.logLevel);
const peakRssMiB = () => process.resourceUsage().maxRSS / 1024;

if (cluster.isPrimary && config.workers > 1) {
  const workers = await startWorkers(config.workers, { MONGODB_URI: process.env.MONGODB_URI! }, logger);
  const ask = (worker: Worker) =>
    new Promise<Count>((resolve) => {
      worker.once('message', (message: Count) => resolve(message));
      worker.send('count');
    });
  process.on('message', async (message) => {
    if (message !== 'count') return;
    const counts = await Promise.all(Object.values(cluster.workers!).map((worker) => ask(worker!)));
    process.send!({
      commands: counts.reduce((sum, count) => sum + count.commands, 0),
      peakRssMiB: [peakRssMiB(), ...counts.flatMap((count) => count.peakRssMiB)],
    } satisfies Count);
  });
  process.on('SIGTERM', () => void workers.stop().then(() => process.exit(0)));
  process.send!({ url: workers.siteUrl });
} else {
  let commands = 0;
  const service = await startService({ config, logger, resources, databaseUri: process.env.MONGODB_URI!, onCommand: () => void commands++ });
  process.on('message', (message) => {
    if (message === 'count') process.send!({ commands, peakRssMiB: [peakRssMiB()] } satisfies Count);
  });
  process.on('SIGTERM', () => void service.stop().then(() => process.exit(0)));
  if (cluster.isWorker) announceReady(service.siteUrl);
  else process.send!({ url: service.siteUrl });
}

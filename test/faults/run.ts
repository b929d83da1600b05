// The fault suite (`npm run test:faults [-- --rounds 20 --clients 6]`): the service as a process
// with its own embedded FerretDB, killed with SIGKILL during a write load round after round, then
// its database frozen and killed under load, then acknowledgements lost in elections (a proxy in
// front of the database). Prints what it saw and `N passed, N failed`.
import fs from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { databaseFaults } from './database-faults.js';
import { killRounds } from './kill-rounds.js';
import { lostAcknowledgements } from './lost-acknowledgements.js';
import { dataDirs, type Check } from './service.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '20' },
    clients: { type: 'string', default: '6' },
    'skip-database': { type: 'boolean', default: false },
  },
});
const rounds = Number(values.rounds);
const clients = Number(values.clients);
const log = (line: string) => console.log(line);
const started = performance.now();
const checks: Check[] = [];

const kills = await killRounds(rounds, clients, log);
checks.push(...kills.checks);
const count = (outcome: string) => kills.records.filter((r) => r.outcome === outcome).length;
const restarts = [...kills.restartMs].sort((a, b) => a - b);
log('');
log(`kill -9 rounds: ${rounds}, clients: ${clients}`);
log(`  writes sent ${kills.records.length}: acknowledged ${count('acknowledged')}, answered with an error ${count('refused')}, unanswered ${count('unanswered')}`);
log(`  lost (acknowledged, not in the log) ${kills.lost.length}; errors that were committed ${kills.committedErrors.length}; force-deleted content left in the log ${kills.unerased.length}`);
log(`  projection documents differing from a rebuild: ${kills.projectionDifferences} (summed over rounds)`);
if (kills.webhooks) {
  const w = kills.webhooks;
  log(`  webhooks: ${w.events} events, ${w.requests} requests (${w.duplicates} sent again), lost ${w.lost.length}, out of order ${w.outOfOrder.length}`);
}
log(`  restart after kill -9: median ${Math.round(restarts[Math.floor(restarts.length / 2)] ?? 0)} ms, slowest ${Math.round(restarts.at(-1) ?? 0)} ms`);

if (!values['skip-database']) {
  for (const phase of await databaseFaults(log)) checks.push(...phase.checks);
  checks.push(...(await lostAcknowledgements(log)));
}

const failed = checks.filter((c) => c.failures.length > 0);
log('');
for (const failure of failed) {
  log(`FAILED ${failure.name}`);
  for (const line of failure.failures.slice(0, 8)) log(`  ${line}`);
  if (failure.failures.length > 8) log(`  … and ${failure.failures.length - 8} more`);
}
log(`fault suite took ${((performance.now() - started) / 1000).toFixed(0)} s`);
// The services were stopped above, and their databases with them.
for (const dir of dataDirs) await fs.rm(dir, { recursive: true, force: true });
console.log(`${checks.length - failed.length} passed, ${failed.length} failed`);
process.exit(failed.length > 0 ? 1 : 0);

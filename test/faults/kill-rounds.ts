import { type WriteRecord, startWriteLoad } from './load.js';
import { AUTHORIZATION, check, serverErrors, sleep, startService, tempDataDir, withDatabase, type Check } from './service.js';
import { checkLog, compareWithRebuild } from './verify.js';
import { startReceiver } from '../support/webhook-receiver.js';
import { checkDeliveries, createEndpoint, type WebhookFindings } from './webhooks.js';

export interface KillRoundsResult {
  checks: Check[];
  records: WriteRecord[];
  lost: string[];
  committedErrors: string[];
  unerased: string[];
  projectionDifferences: number;
  restartMs: number[];
  webhooks?: WebhookFindings;
}

/**
 * `kill -9` of the service at a random moment of a write load, `rounds` times, restarting it
 * on the same data each time; after each restart, every write is checked against the log, and
 * the projections against a rebuild from it.
 */
export async function killRounds(rounds: number, clients: number, log: (line: string) => void): Promise<KillRoundsResult> {
  const dataDir = await tempDataDir();
  const records: WriteRecord[] = [];
  const checks: Check[] = [];
  const restartMs: number[] = [];
  let projectionDifferences = 0;
  let running = await startService(dataDir);
  // A receiver of every event: each kill -9 may fall in the middle of a delivery.
  const receiver = await startReceiver();
  const webhookStart = await createEndpoint(running.siteUrl, receiver);
  let findings = { lost: [] as string[], committedErrors: [] as string[], unerased: [] as string[] };

  for (let round = 1; round <= rounds; round++) {
    const known = liveItems(records);
    const load = startWriteLoad({ siteUrl: running.siteUrl, authorization: AUTHORIZATION, clients, known, tag: `r${round}` });
    await sleep(500 + Math.random() * 2500);
    // No new writes from here: a write sent after the kill would only meet a closed port.
    load.halt();
    running.service.child.kill('SIGKILL');
    await running.service.exited;
    await load.stop();
    records.push(...load.records);
    // A 500 is a fault of the service, never of the database being killed: say what it logged.
    const internal = load.records.filter((r) => r.status === 500).length;
    const logged = internal ? serverErrors(running.service) : [];

    try {
      running = await startService(dataDir);
    } catch (error) {
      checks.push(check(`round ${round}: the service starts again after kill -9`, [(error as Error).message.split('\n')[0]]));
      break;
    }
    restartMs.push(running.startMs);
    checks.push(check(`round ${round}: the service starts again after kill -9`, []));
    const { differences, found } = await withDatabase(running.databaseUri, async (client) => ({
      found: await checkLog(client.db('cms'), records),
      differences: await compareWithRebuild(client, running.databaseUri, 'cms'),
    }));
    const fresh = (now: string[], before: string[]) => now.filter((line) => !before.includes(line));
    checks.push(check(`round ${round}: every acknowledged write is in the log`, fresh(found.lost, findings.lost)));
    checks.push(check(`round ${round}: no write answered with an error is in the log`, fresh(found.committedErrors, findings.committedErrors)));
    checks.push(check(`round ${round}: no write is answered 500`, logged.map((line) => `logged ${line}`)));
    checks.push(check(`round ${round}: force-deleted content is erased from the log`, fresh(found.unerased, findings.unerased)));
    checks.push(check(`round ${round}: the projections equal a rebuild from the log`, differences));
    projectionDifferences += differences.length;
    findings = found;
    const answered = load.records.filter((r) => r.outcome !== 'unanswered').length;
    log(
      `round ${round}: ${load.records.length} writes (${answered} answered), restart ${Math.round(running.startMs)} ms, ` +
        `lost ${found.lost.length}, committed errors ${found.committedErrors.length}, unerased ${found.unerased.length}, projection differences ${differences.length}`,
    );
  }

  const webhooks = await withDatabase(running.databaseUri, (client) => checkDeliveries(client.db('cms'), receiver, webhookStart));
  checks.push(check('webhooks: every event after the endpoint began reached the receiver, through every kill -9', webhooks.lost));
  checks.push(check("webhooks: no item's versions reached the receiver out of order", webhooks.outOfOrder));
  await receiver.close();

  running.service.child.kill('SIGTERM');
  const code = await running.service.exited;
  checks.push(check('the service stops cleanly on SIGTERM after the rounds', code === 0 ? [] : [`exit code ${code}`]));
  return { checks, records, ...findings, projectionDifferences, restartMs, webhooks };
}

/** Items created (acknowledged) and not acknowledged as force-deleted: what the next round writes to. */
function liveItems(records: readonly WriteRecord[]): number[] {
  const deleted = new Set(records.filter((r) => r.kind === 'delete' && r.outcome === 'acknowledged').map((r) => r.id));
  const created = records.filter((r) => r.kind === 'create' && r.outcome === 'acknowledged' && !deleted.has(r.id));
  // The newest few: the load concentrates on them, so that writes race one another.
  return created.slice(-12).map((r) => r.id!);
}

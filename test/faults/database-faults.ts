import { READ_BACK_TIMEOUTS } from '../../src/store/database/mongo.js';
import { type WriteRecord, startWriteLoad } from './load.js';
import { AUTHORIZATION, check, serverErrors, sleep, startService, tempDataDir, withDatabase, type Check, type Started } from './service.js';
import { checkLog } from './verify.js';
import { startReceiver } from '../support/webhook-receiver.js';
import { checkDeliveries, createEndpoint } from './webhooks.js';

/** The bound the service is given for one database round trip (CMS_DATABASE_TIMEOUT_MS). */
export const DATABASE_TIMEOUT_MS = 3000;
/**
 * How much longer than the bound a 503 may take: a request may wait the bound for a pooled
 * connection that another request frees only just then, and the bound again for its round trip.
 */
const ANSWER_MARGIN_MS = DATABASE_TIMEOUT_MS + 2000;
/**
 * How long a write answered 2xx may take: one sent as the database went away reads back what it
 * wrote once the database answers again, up to READ_BACK_TIMEOUTS database timeouts after it was
 * sent, rather than answer 503 for what may be stored.
 */
const READ_BACK_ANSWER_MS = READ_BACK_TIMEOUTS * DATABASE_TIMEOUT_MS + 2000;
const HEALTH_BOUND_MS = 2000;
const HEALTH_MARGIN_MS = 500;

interface Probe {
  sentAt: number;
  ms: number;
  status: number;
  body?: { code?: string; data?: { status?: number } };
}

export interface FaultPhaseResult {
  name: string;
  checks: Check[];
  records: WriteRecord[];
  slowestAnswerMs: number;
  slowestHealthMs: number;
  recoveryMs: number;
  statuses: Record<string, number>;
}

/**
 * The service's database frozen (SIGSTOP, then SIGCONT) and killed (SIGKILL; the service's
 * supervisor starts it again) under a write load: every request is answered, with 503 in the
 * error shape while the database is away and within the bound; `/readyz` says so within 2 s;
 * and the service serves again afterwards, without being restarted.
 */
export async function databaseFaults(log: (line: string) => void): Promise<FaultPhaseResult[]> {
  const dataDir = await tempDataDir();
  const running = await startService(dataDir, { CMS_DATABASE_TIMEOUT_MS: String(DATABASE_TIMEOUT_MS) });
  const results: FaultPhaseResult[] = [];
  const records: WriteRecord[] = [];
  const known: number[] = [];
  const reported: string[] = [];
  const receiver = await startReceiver();
  const webhookStart = await createEndpoint(running.siteUrl, receiver);
  for (const phase of ['frozen', 'killed'] as const) {
    const result = await phaseOf(phase, running, known, records, reported);
    results.push(result);
    log(
      `database ${phase}: ${result.records.length} writes, answers ${JSON.stringify(result.statuses)}, slowest answer after it went away ${Math.round(result.slowestAnswerMs)} ms ` +
        `(bound ${DATABASE_TIMEOUT_MS} ms), slowest /readyz ${Math.round(result.slowestHealthMs)} ms, recovered ${Math.round(result.recoveryMs)} ms after the database came back`,
    );
  }
  // Deliveries were under way while the database was frozen and killed.
  const webhooks = await withDatabase(running.databaseUri, (client) => checkDeliveries(client.db('cms'), receiver, webhookStart));
  await receiver.close();
  log(`webhooks through the database faults: ${webhooks.events} events, ${webhooks.requests} requests (${webhooks.duplicates} sent again), lost ${webhooks.lost.length}, out of order ${webhooks.outOfOrder.length}`);
  results.push({
    name: 'webhooks',
    checks: [
      check('webhooks: every event reached the receiver through the database frozen and killed', webhooks.lost),
      check("webhooks: no item's versions reached the receiver out of order through the database faults", webhooks.outOfOrder),
    ],
    records: [],
    slowestAnswerMs: 0,
    slowestHealthMs: 0,
    recoveryMs: 0,
    statuses: {},
  });
  running.service.child.kill('SIGTERM');
  await running.service.exited;
  return results;
}

async function phaseOf(
  phase: 'frozen' | 'killed',
  running: Started,
  known: number[],
  all: WriteRecord[],
  reported: string[],
): Promise<FaultPhaseResult> {
  const { siteUrl, service } = running;
  let databasePid = running.databasePid;
  const health: Probe[] = [];
  let probing = true;
  const prober = (async () => {
    while (probing) {
      const sentAt = performance.now();
      const probe = await get(`${siteUrl}/readyz`);
      health.push({ ...probe, sentAt, ms: performance.now() - sentAt });
      await sleep(250);
    }
  })();

  const load = startWriteLoad({ siteUrl, authorization: AUTHORIZATION, clients: 4, known, tag: phase === 'frozen' ? 'f1' : 'k1', requestTimeoutMs: 60_000 });
  await sleep(1500);
  const downAt = performance.now();
  if (phase === 'frozen') {
    process.kill(databasePid, 'SIGSTOP');
    await sleep(2 * DATABASE_TIMEOUT_MS + 1000);
    process.kill(databasePid, 'SIGCONT');
  } else {
    process.kill(databasePid, 'SIGKILL');
    const restarted = await service.waitForLog((line) => line.msg === 'FerretDB started' && line.pid !== databasePid, 30_000);
    databasePid = restarted.pid as number;
    running.databasePid = databasePid;
  }
  const backAt = performance.now();
  const recovered = await recoveredAt(siteUrl, 30_000);
  await sleep(1000);
  await load.stop();
  probing = false;
  await prober;
  all.push(...load.records);
  for (const record of load.records) if (record.kind === 'create' && record.outcome === 'acknowledged') known.push(record.id!);

  const checks: Check[] = [];
  const name = (text: string) => `database ${phase}: ${text}`;
  const during = load.records.filter((r) => r.sentAt >= downAt && r.sentAt < backAt);
  checks.push(check(name('writes sent while it is away are answered, a 5xx only as 503 db_connect_fail'), during
    .filter((r) => r.outcome === 'unanswered' || ((r.status ?? 0) >= 500 && !(r.status === 503 && r.code === 'db_connect_fail')))
    .map((r) => `${r.kind} answered ${r.status ?? 'nothing'} ${r.code ?? ''}`)));
  // Measured from when the database went away (or the write was sent, if later): what came before is ordinary work.
  const waited = (r: WriteRecord) => r.sentAt + r.ms - Math.max(r.sentAt, downAt);
  const boundOf = (r: WriteRecord) => ((r.status ?? 0) >= 200 && (r.status ?? 0) < 300 ? READ_BACK_ANSWER_MS : DATABASE_TIMEOUT_MS + ANSWER_MARGIN_MS);
  checks.push(check(name(`every write is answered within the bound of the database going away (${DATABASE_TIMEOUT_MS} + ${ANSWER_MARGIN_MS} ms; a success read back ${READ_BACK_ANSWER_MS} ms)`), load.records
    .filter((r) => r.sentAt + r.ms > downAt && waited(r) > boundOf(r))
    .map((r) => `${r.kind} answered ${r.status ?? 'nothing'} ${Math.round(waited(r))} ms after the database went away (${Math.round(r.ms)} ms in all)`)));
  checks.push(check(name('no request answers 5xx other than 503'), load.records
    .filter((r) => (r.status ?? 0) >= 500 && r.status !== 503)
    .map((r) => `${r.kind} answered ${r.status} ${r.code}`)
    .concat(load.records.some((r) => (r.status ?? 0) >= 500 && r.status !== 503) ? serverErrors(service).map((e) => `logged ${e}`) : [])));
  checks.push(check(name(`/readyz answers within ${HEALTH_BOUND_MS} ms`), health
    .filter((p) => p.ms > HEALTH_BOUND_MS + HEALTH_MARGIN_MS)
    .map((p) => `took ${Math.round(p.ms)} ms`)));
  // A probe sent once the database has been away longer than the health bound must say so.
  checks.push(check(name('/readyz says 503 while it is away'), health
    .filter((p) => p.sentAt > downAt + HEALTH_BOUND_MS && p.sentAt + p.ms < backAt && p.status !== 503)
    .map((p) => `answered ${p.status}`)));
  checks.push(check(name('/readyz says 200 once it is back'), health.at(-1)?.status === 200 ? [] : [`last answer ${health.at(-1)?.status}`]));
  checks.push(check(name('the service recovers without being restarted'), recovered !== undefined && service.child.exitCode === null ? [] : ['no 200 within 30 s']));
  // The supervisor restarts the database on the port it had: the URI stays valid.
  const found = await withDatabase(running.databaseUri, (client) => checkLog(client.db('cms'), all));
  // The log is checked against every write so far; what an earlier phase reported is not repeated.
  const fresh = (lines: string[]) => lines.filter((line) => !reported.includes(line));
  checks.push(check(name('every acknowledged write is in the log'), fresh(found.lost)));
  checks.push(check(name('no write answered with an error is in the log'), fresh(found.committedErrors)));
  reported.push(...found.lost, ...found.committedErrors);

  const statuses: Record<string, number> = {};
  for (const record of load.records) {
    const key = String(record.status ?? 'unanswered');
    statuses[key] = (statuses[key] ?? 0) + 1;
  }
  return {
    name: phase,
    checks,
    records: load.records,
    slowestAnswerMs: Math.max(0, ...load.records.filter((r) => r.sentAt + r.ms > downAt).map((r) => r.sentAt + r.ms - Math.max(r.sentAt, downAt))),
    slowestHealthMs: Math.max(0, ...health.map((p) => p.ms)),
    recoveryMs: recovered === undefined ? Number.NaN : recovered - backAt,
    statuses,
  };
}

async function get(url: string): Promise<{ status: number; body?: Probe['body'] }> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(30_000) });
    return { status: response.status, body: (await response.json().catch(() => undefined)) as Probe['body'] };
  } catch {
    return { status: 0 };
  }
}

/** When the service first answers a read 200 again. */
async function recoveredAt(siteUrl: string, timeoutMs: number): Promise<number | undefined> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    const response = await fetch(`${siteUrl}/cms-json/cms/v2/posts?per_page=1`, { headers: { Authorization: AUTHORIZATION } }).catch(() => undefined);
    if (response?.status === 200) return performance.now();
    await sleep(100);
  }
  return undefined;
}

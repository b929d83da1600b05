import { MongoClient } from 'mongodb';
import { READ_BACK_TIMEOUTS } from '../../src/store/database/mongo.js';
import { startFaultProxy, type WireCommand } from '../support/fault-proxy.js';
import { startOwnDatabase } from '../support/own-database.js';
import { baseEnv, runService } from '../support/service-process.js';
import { ADMIN_PASSWORD, AUTHORIZATION, check, tempDataDir, type Check } from './service.js';

/** CMS_DATABASE_TIMEOUT_MS here: short, so that a round of election takes a few seconds. */
const TIMEOUT_MS = 1000;
const READ_BACK_MS = READ_BACK_TIMEOUTS * TIMEOUT_MS;
const ROUNDS = 3;

const appendToLog = (command: WireCommand) => command.name === 'insert' && command.collection === 'events';

/**
 * Writes whose append to the change log the database stores but whose acknowledgement is lost,
 * the database then away for a while (an election), through a proxy in front of a database of
 * its own: away for less than the read-back bound, each write is answered 2xx and stored once;
 * away for longer, it is answered 503, and the log is looked at to say whether it was stored.
 */
export async function lostAcknowledgements(log: (line: string) => void): Promise<Check[]> {
  const database = await startOwnDatabase();
  const { hostname, port } = new URL(database.server.uri);
  const proxy = await startFaultProxy({ host: hostname, port: Number(port) });
  const service = runService(
    baseEnv({
      MONGODB_URI: `${proxy.uri}lost_acknowledgements`,
      CMS_DATA_DIR: await tempDataDir(),
      CMS_ADMIN_PASSWORD: ADMIN_PASSWORD,
      CMS_DATABASE_TIMEOUT_MS: String(TIMEOUT_MS),
      CMS_WORKERS: '1',
      LOG_LEVEL: 'info',
    }),
  );
  const direct = new MongoClient(database.server.uri);
  try {
    const siteUrl = (await service.waitForLog((line) => line.msg === 'listening', 120_000)).url as string;
    const events = direct.db('lost_acknowledgements').collection<{ stream: number; type: string }>('events');
    const write = async (path: string, title: string) => {
      const response = await fetch(`${siteUrl}/cms-json/cms/v2/posts${path}`, {
        method: 'POST',
        headers: { Authorization: AUTHORIZATION, 'Content-Type': 'application/json' },
        body: JSON.stringify({ title }),
        signal: AbortSignal.timeout(30_000),
      });
      return { status: response.status, body: (await response.json()) as { id?: number; code?: string } };
    };
    const ready = async () => {
      for (let tries = 0; tries < 100; tries++) {
        if ((await fetch(`${siteUrl}/readyz`).catch(() => undefined))?.status === 200) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const typesOf = async (stream: number) => (await events.find({ stream }).sort({ seq: 1 }).toArray()).map((event) => event.type).join(',');

    const within: string[] = [];
    const item = await write('', 'before the elections');
    for (let round = 0; round < ROUNDS; round++) {
      // Updates, and one create: a create sent again after a wrong 503 would make a second item.
      const creating = round === ROUNDS - 1;
      const lost = proxy.loseReplyTo(appendToLog, { refuseForMs: 2 * TIMEOUT_MS });
      const answer = await write(creating ? '' : `/${item.body.id}`, `election ${round}`);
      await lost;
      const id = creating ? answer.body.id : item.body.id;
      const expected = creating ? 'created' : ['created', ...Array.from({ length: round + 1 }, () => 'updated')].join(',');
      if (answer.status >= 300) within.push(`round ${round}: answered ${answer.status} ${answer.body.code ?? ''}`);
      else if ((await typesOf(id!)) !== expected) within.push(`round ${round}: the log holds ${await typesOf(id!)}, not ${expected}`);
      await ready();
    }

    const lost = proxy.loseReplyTo(appendToLog, { refuseForMs: READ_BACK_MS + 2 * TIMEOUT_MS });
    const past = await write(`/${item.body.id}`, 'a long election');
    await lost;
    await ready();
    const stored = (await typesOf(item.body.id!)).split(',').length === ROUNDS + 1;
    log(
      `acknowledgement lost: ${ROUNDS} writes with the database away ${2 * TIMEOUT_MS} ms (timeout ${TIMEOUT_MS} ms, read-back bound ${READ_BACK_MS} ms), ${ROUNDS - within.length} answered 2xx and stored once; ` +
        `away ${READ_BACK_MS + 2 * TIMEOUT_MS} ms: answered ${past.status} ${past.body.code ?? ''}, ${stored ? 'stored all the same (the bound is past)' : 'not stored'}`,
    );
    return [
      check('acknowledgement lost, the database back within the read-back bound: every write answered 2xx and stored once', within),
      check('acknowledgement lost, the database away past the bound: answered 503 db_connect_fail', past.status === 503 && past.body.code === 'db_connect_fail' ? [] : [`answered ${past.status} ${past.body.code ?? ''}`]),
    ];
  } finally {
    service.child.kill('SIGTERM');
    await service.exited;
    await direct.close();
    await proxy.close();
    await database.stop();
  }
}

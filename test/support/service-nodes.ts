import { ConnectionString } from 'mongodb-connection-string-url';
import { MongoClient, type Db } from 'mongodb';
import { expect, inject } from 'vitest';
import { baseEnv, runService, type ServiceProcess } from './service-process.js';

/** One built service process of a test file, with the address it listens on. */
export interface ServiceNode {
  service: ServiceProcess;
  url: string;
  pid: number;
}

export interface ServiceNodes {
  /** The test file's own database, as the test reads it directly. */
  db: Db;
  /** The nodes started, in order (a killed one stays listed). */
  nodes: ServiceNode[];
  /** Starts one more process on the database and waits until it listens. */
  start(): Promise<ServiceNode>;
  /** A request as the administrator (HTTP Basic) through `node`, expected to succeed; its JSON body. */
  api(node: ServiceNode, method: string, path: string, body?: object): Promise<Record<string, unknown>>;
  /** The newest term of the lease kept in `collection`, as the database holds it. */
  newestTerm(collection: string): Promise<{ _id: number; owner: string } | undefined>;
  /** The node holding that term. */
  holder(collection: string): Promise<ServiceNode>;
  /** Stops every process started (even one that never said it listened, or one paused), drops the database. */
  stop(): Promise<void>;
}

/**
 * Real service processes on one database of the test server, started one after the other (the
 * first makes the administrator, as `npm start`'s first worker does), each with one worker.
 */
export async function startServiceNodes(options: { name: string; password: string; count: number; env?: Record<string, string> }): Promise<ServiceNodes> {
  const uri = new ConnectionString(inject('mongodbUri'));
  uri.pathname = `/${options.name}_${process.pid}`;
  const client = await MongoClient.connect(uri.toString());
  const db = client.db();
  const env = baseEnv({ MONGODB_URI: uri.toString(), CMS_WORKERS: '1', CMS_ADMIN_PASSWORD: options.password, LOG_LEVEL: 'info', ...options.env });
  const admin = { Authorization: `Basic ${Buffer.from(`admin:${options.password}`).toString('base64')}`, 'Content-Type': 'application/json' };
  const started: ServiceProcess[] = [];
  const nodes: ServiceNode[] = [];

  const start = async () => {
    const service = runService(env);
    started.push(service);
    const listening = await service.waitForLog((line) => line.msg === 'listening');
    const node = { service, url: String(listening.url), pid: service.child.pid! };
    nodes.push(node);
    return node;
  };
  for (let n = 0; n < options.count; n++) await start();

  const newestTerm = async (collection: string): Promise<{ _id: number; owner: string } | undefined> => (await db.collection<{ _id: number; owner: string }>(collection).find().sort({ _id: -1 }).limit(1).toArray())[0];

  return {
    db,
    nodes,
    start,
    async api(node, method, path, body) {
      const response = await fetch(`${node.url}/cms-json${path}`, { method, headers: admin, body: body ? JSON.stringify(body) : undefined });
      const json = (await response.json()) as Record<string, unknown>;
      expect(response.status, JSON.stringify(json)).toBeLessThan(300);
      return json;
    },
    newestTerm,
    async holder(collection) {
      await expect.poll(async () => (await newestTerm(collection))?.owner, { timeout: 15_000 }).toBeTruthy();
      const top = (await newestTerm(collection))!;
      const node = nodes.find((each) => top.owner.split(':')[1] === String(each.pid));
      expect(node, top.owner).toBeDefined();
      return node!;
    },
    async stop() {
      for (const service of started) {
        if (service.child.exitCode !== null || service.child.signalCode !== null) continue;
        service.child.kill('SIGCONT');
        service.child.kill('SIGTERM');
        await service.exited;
      }
      await db.dropDatabase();
      await client.close();
    },
  };
}

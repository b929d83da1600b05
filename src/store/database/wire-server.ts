import { type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { MongoClient } from 'mongodb';
import { type PostgresConnection } from './postgresql.js';

/** A MongoDB-compatible server the service talks to over the wire. */
export interface DatabaseServer {
  readonly uri: string;
  /** Said once in the start-up log. */
  readonly description: string;
  /** The database's process, when this service started it. */
  readonly pid?: number;
  /** FerretDB's embedded PostgreSQL, when it keeps the data there: where the index bridge goes (index-bridge.ts). */
  readonly postgres?: PostgresConnection;
  /** Stops the server if this process started it. */
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** Pings until the server answers, giving up when `child` exits or after `timeoutMs`. */
export async function waitForMongo(uri: string, child: ChildProcess, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`exited with code ${child.exitCode}`);
    const client = new MongoClient(uri, { serverSelectionTimeoutMS: 500, directConnection: true });
    try {
      await client.db('admin').command({ ping: 1 });
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    } finally {
      await client.close();
    }
  }
}

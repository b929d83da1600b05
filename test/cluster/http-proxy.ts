import http from 'node:http';
import { type AddressInfo } from 'node:net';
import { sleep } from './processes.js';

/** How often each node's `/readyz` is asked by default, and how long an answer may take. */
const HEALTH_EVERY_MS = 250;
const HEALTH_TIMEOUT_MS = 1000;
/** How long a request waits for a node in service when none is (HAProxy's `timeout queue`), before a 503. */
const QUEUE_TIMEOUT_MS = 30_000;

export interface Backend {
  readonly name: string;
  readonly port: number;
}

export interface HttpProxy {
  readonly url: string;
  /** Requests each backend was sent. */
  readonly sent: Map<string, number>;
  /** Requests answered 503 because no node was in service for the whole queue timeout. */
  readonly queuedOut: () => number;
  close(): Promise<void>;
}

export interface HttpProxyOptions {
  /**
   * `hash`: a write goes to the node its path up to the item's id hashes to (the first five
   * segments, `/cms-json/cms/v2/posts/123`), as `deploy/haproxy.cfg` sends writes, so writes to
   * one item meet on one node; reads still go round robin. Default `round-robin`: every request
   * by turns, so writes to one item race across nodes. `first`: every write to the first node in
   * service (HAProxy's `balance first`), the others taking writes only while it is out.
   */
  writes?: 'hash' | 'round-robin' | 'first';
  /** How often each node's `/readyz` is asked (HAProxy's `inter`): 250 ms unless said, so that scenarios see a node go at once. */
  healthEveryMs?: number;
}

/** The node a write's path hashes to, among `count` (FNV-1a of the path's first five segments). */
export function hashedNode(url: string, count: number): number {
  const path = url.split('?')[0].split('/').slice(0, 6).join('/');
  let hash = 0x811c9dc5;
  for (let i = 0; i < path.length; i++) hash = Math.imul(hash ^ path.charCodeAt(i), 0x01000193) >>> 0;
  return hash % count;
}

/**
 * A small load balancer in front of the nodes, as HAProxy in `deploy/haproxy.cfg` is: round
 * robin (or, for writes, a hash of the path: `HttpProxyOptions`) over the nodes whose `/readyz`
 * answers 200; a request no node could take yet waits for one; a connection a node refuses is
 * tried on the next node (nothing reached it); a request whose node failed once it had it is cut
 * off (the client cannot know what happened, and is not told a made-up status).
 */
export async function startHttpProxy(backends: readonly Backend[], options: HttpProxyOptions = {}): Promise<HttpProxy> {
  const ready = new Map(backends.map((backend) => [backend.name, false]));
  const sent = new Map(backends.map((backend) => [backend.name, 0]));
  let next = 0;
  let closed = false;
  let queuedOut = 0;

  const probe = async (backend: Backend) => {
    while (!closed) {
      const answer = await fetch(`http://127.0.0.1:${backend.port}/readyz`, { signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) }).catch(() => undefined);
      await answer?.body?.cancel().catch(() => {});
      ready.set(backend.name, answer?.status === 200);
      await sleep(options.healthEveryMs ?? HEALTH_EVERY_MS);
    }
  };
  const probes = backends.map((backend) => probe(backend));

  const inService = (backend: Backend, tried: Set<string>) => ready.get(backend.name) && !tried.has(backend.name);
  /**
   * For a write, the node its path hashes to (`writes: 'hash'`) or the first in service
   * (`writes: 'first'`); else the next node in service after the last one chosen; skipping `tried`.
   */
  const choose = (req: http.IncomingMessage, tried: Set<string>): Backend | undefined => {
    const write = !['GET', 'HEAD', 'OPTIONS'].includes(req.method ?? 'GET');
    if (write && options.writes === 'hash') {
      const hashed = backends[hashedNode(req.url ?? '/', backends.length)];
      if (inService(hashed, tried)) return hashed;
    }
    if (write && options.writes === 'first') {
      const first = backends.find((backend) => inService(backend, tried));
      if (first) return first;
    }
    for (let i = 0; i < backends.length; i++) {
      const backend = backends[(next + i) % backends.length];
      if (inService(backend, tried)) {
        next = (next + i + 1) % backends.length;
        return backend;
      }
    }
    return undefined;
  };

  const forward = (backend: Backend, req: http.IncomingMessage, body: Buffer) =>
    new Promise<http.IncomingMessage>((resolve, reject) => {
      // A connection a request of its own: a kept-alive one the node closed meanwhile would fail a request it never saw.
      const outgoing = http.request({ host: '127.0.0.1', port: backend.port, method: req.method, path: req.url, headers: req.headers, agent: false });
      outgoing.once('response', resolve);
      outgoing.once('error', reject);
      outgoing.end(body);
    });

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const tried = new Set<string>();
    const deadline = performance.now() + QUEUE_TIMEOUT_MS;
    for (;;) {
      const backend = choose(req, tried);
      if (!backend) {
        if (performance.now() > deadline) {
          queuedOut++;
          res.writeHead(503, { 'Content-Type': 'application/json' }).end(JSON.stringify({ code: 'proxy_no_node', message: 'No node is in service.', data: { status: 503 } }));
          return;
        }
        tried.clear();
        await sleep(50);
        continue;
      }
      tried.add(backend.name);
      sent.set(backend.name, sent.get(backend.name)! + 1);
      let answer: http.IncomingMessage;
      try {
        answer = await forward(backend, req, body);
      } catch (error) {
        // Refused: the node is not listening (killed, restarting), so it never had the request.
        if ((error as NodeJS.ErrnoException).code === 'ECONNREFUSED') {
          ready.set(backend.name, false);
          continue;
        }
        res.destroy();
        return;
      }
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
      answer.once('error', () => res.destroy());
      answer.once('aborted', () => res.destroy());
      return;
    }
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    sent,
    queuedOut: () => queuedOut,
    async close() {
      closed = true;
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await Promise.all(probes);
    },
  };
}

import { createHmac } from 'node:crypto';
import http from 'node:http';
import { type AddressInfo } from 'node:net';

/** One request a receiver got. */
export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  /** The port the request came from (the sender's end of the connection). */
  remotePort: number;
  /** The parsed body. */
  json: {
    type: string;
    timestamp: string;
    data: {
      position?: number;
      item?: { id: number; type: string; href?: string };
      version?: number;
      webhook?: string;
      scheduled_change?: { id: number; scheduled_by: number; changed_meanwhile: string[] | null };
    };
  };
}

export interface WebhookReceiver {
  url: string;
  received: Received[];
  /** What to answer a request (the default: 204). */
  answer: (request: Received) => { status: number; headers?: Record<string, string>; delayMs?: number };
  /** Resolves once `count` requests matching `match` have come, or rejects after `timeoutMs`. */
  waitFor(match: (request: Received) => boolean, count?: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** A webhook receiver on 127.0.0.1 that records every request. */
export async function startReceiver(): Promise<WebhookReceiver> {
  const received: Received[] = [];
  const waiters = new Set<() => void>();
  const receiver: WebhookReceiver = {
    url: '',
    received,
    answer: () => ({ status: 204 }),
    waitFor: (match, count = 1, timeoutMs = 15_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = received.filter(match);
          if (found.length < count) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`waited ${timeoutMs} ms for ${count} webhook requests; got ${received.filter(match).length} of ${received.length}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const request: Received = {
        id: String(req.headers['webhook-id']),
        timestamp: String(req.headers['webhook-timestamp']),
        signature: String(req.headers['webhook-signature']),
        body,
        remotePort: req.socket.remotePort ?? 0,
        json: JSON.parse(body),
      };
      received.push(request);
      const { status, headers, delayMs } = receiver.answer(request);
      const reply = () => res.writeHead(status, headers).end();
      if (delayMs) setTimeout(reply, delayMs);
      else reply();
      for (const wake of [...waiters]) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}

/** Standard Webhooks' check, written apart from the service's: does any `v1,` signature match? */
export function signatureValid(secret: string, request: Pick<Received, 'id' | 'timestamp' | 'signature' | 'body'>): boolean {
  const expected = createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64'))
    .update(`${request.id}.${request.timestamp}.${request.body}`)
    .digest('base64');
  return request.signature.split(' ').some((part) => part === `v1,${expected}`);
}

import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { checkedLookup, hostOf, RefusedTarget, type TargetPolicy } from './webhook.targets.js';

/** Bytes of a response body kept in the delivery log; the rest is not read. */
export const RESPONSE_KEPT_BYTES = 1024;

export interface SendOutcome {
  status: number | null;
  duration_ms: number;
  error: string | null;
  response: string | null;
  /** The response's `Retry-After`, in milliseconds from now. */
  retryAfterMs?: number;
}

/**
 * POSTs `body` to `url` once, as a webhook: no redirect is followed (its target was never
 * checked), the connection goes only to an address the policy accepts (`checkedLookup`), and the
 * whole exchange is bounded by `timeoutMs` and by `signal` (the service stopping). Nothing is
 * written until the connection is made, and then only if `mayStart` still agrees (the deliverer's
 * term may have ended while the host was looked up and connected to). Node's `http`
 * rather than `fetch`: Node's own fetch cannot be given a lookup without the undici package.
 */
export function send(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: { policy: TargetPolicy; timeoutMs: number; signal?: AbortSignal; now?: () => number; mayStart?: () => boolean },
): Promise<SendOutcome> {
  const started = performance.now();
  const finish = (outcome: Omit<SendOutcome, 'duration_ms'>): SendOutcome => ({ ...outcome, duration_ms: Math.round(performance.now() - started) });
  return new Promise((resolve) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return resolve(finish({ status: null, error: 'not a valid URL', response: null }));
    }
    const host = hostOf(target);
    // An address in the URL is connected to without a lookup: check it here.
    if (net.isIP(host)) {
      const refusal = options.policy.refusal(host);
      if (refusal) return resolve(finish({ status: null, error: `refused: ${refusal}`, response: null }));
    }
    const signals = [AbortSignal.timeout(options.timeoutMs), ...(options.signal ? [options.signal] : [])];
    const client = target.protocol === 'https:' ? https : target.protocol === 'http:' ? http : undefined;
    if (!client) return resolve(finish({ status: null, error: 'the scheme must be http or https', response: null }));
    const request = client.request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
        lookup: checkedLookup(options.policy),
        signal: AbortSignal.any(signals),
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        const done = () => {
          const status = response.statusCode ?? null;
          resolve(finish({ status, error: null, response: Buffer.concat(chunks).toString('utf8'), retryAfterMs: retryAfterMs(response.headers['retry-after'], Date.now()) }));
          response.destroy();
        };
        response.on('data', (chunk: Buffer) => {
          if (kept < RESPONSE_KEPT_BYTES) chunks.push(chunk.subarray(0, RESPONSE_KEPT_BYTES - kept));
          kept += chunk.length;
          if (kept >= RESPONSE_KEPT_BYTES) done();
        });
        response.on('end', done);
        response.on('error', done);
      },
    );
    // The request line, headers and body go out together, once connected, if they still may.
    request.once('socket', (socket) => {
      const write = () => {
        if (options.mayStart && !options.mayStart()) request.destroy(new NotStarted());
        else request.end(body);
      };
      if (socket.connecting) socket.once(target.protocol === 'https:' ? 'secureConnect' : 'connect', write);
      else write();
    });
    request.on('error', (error: Error) => {
      const reason = error instanceof NotStarted ? error.message : error instanceof RefusedTarget ? `refused: ${error.message}` : error.name === 'AbortError' ? (options.signal?.aborted ? 'the service stopped' : `no answer within ${options.timeoutMs} ms`) : error.message;
      resolve(finish({ status: null, error: reason, response: null }));
    });
  });
}

/** The request was not sent: `mayStart` refused once the connection was made. */
class NotStarted extends Error {
  constructor() {
    super('not sent: the delivery lease ended before the connection was made');
  }
}

/** `Retry-After` as seconds or an HTTP date, in milliseconds from `now`; undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now: number): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

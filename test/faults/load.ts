import { randomBytes } from 'node:crypto';

/** What became of one write the load sent. */
export type Outcome = 'acknowledged' | 'refused' | 'unanswered';

export type WriteKind = 'create' | 'update' | 'autosave' | 'trash' | 'delete';

export interface WriteRecord {
  kind: WriteKind;
  /** The item written; for a create, known once acknowledged. */
  id?: number;
  /** A string only this write put into the item (absent for trash and delete). */
  marker?: string;
  outcome: Outcome;
  status?: number;
  code?: string;
  /** When it was sent (`performance.now()`), and milliseconds to the answer (or to the failure). */
  sentAt: number;
  ms: number;
}

export interface LoadOptions {
  siteUrl: string;
  authorization: string;
  clients: number;
  /** Items the load may update or delete, from earlier rounds. */
  known: number[];
  /** Prefix of this load's markers, unique per round. */
  tag: string;
  /** Answers slower than this are abandoned (counted as unanswered). */
  requestTimeoutMs?: number;
}

export interface RunningLoad {
  records: WriteRecord[];
  /** Stops sending new writes (those in flight go on). */
  halt(): void;
  /** Stops sending new writes and waits for those in flight. */
  stop(): Promise<void>;
}

const WEIGHTS: [WriteKind, number][] = [
  ['create', 3],
  ['update', 5],
  ['autosave', 3],
  ['trash', 1],
  ['delete', 1],
];

function pick<T>(items: readonly T[]): T {
  return items[Math.floor(Math.random() * items.length)];
}

function pickKind(): WriteKind {
  let roll = Math.random() * WEIGHTS.reduce((sum, [, weight]) => sum + weight, 0);
  for (const [kind, weight] of WEIGHTS) {
    roll -= weight;
    if (roll < 0) return kind;
  }
  return 'update';
}

/**
 * Several clients writing at once over HTTP, as an editor would: creates, updates, autosaves,
 * trashes and force deletes of the same few items, each write marked so that the log can be
 * searched for it afterwards.
 */
export function startWriteLoad(options: LoadOptions): RunningLoad {
  const records: WriteRecord[] = [];
  const items = [...options.known];
  let stopping = false;
  let counter = 0;
  const api = `${options.siteUrl}/cms-json/cms/v2/posts`;

  async function send(kind: WriteKind, method: string, url: string, body?: unknown, id?: number, marker?: string): Promise<void> {
    const started = performance.now();
    const record: WriteRecord = { kind, id, marker, outcome: 'unanswered', sentAt: started, ms: 0 };
    records.push(record);
    try {
      const response = await fetch(url, {
        method,
        headers: { Authorization: options.authorization, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(options.requestTimeoutMs ?? 30_000),
      });
      const text = await response.text();
      record.status = response.status;
      record.outcome = response.ok ? 'acknowledged' : 'refused';
      const parsed = JSON.parse(text) as { id?: number; code?: string };
      if (response.ok && kind === 'create' && typeof parsed.id === 'number') {
        record.id = parsed.id;
        items.push(parsed.id);
      }
      if (!response.ok) record.code = parsed.code;
    } catch {
      // The connection broke, or the body was cut short: nobody can say whether it happened.
      record.outcome = 'unanswered';
    }
    record.ms = performance.now() - started;
  }

  async function client(): Promise<void> {
    while (!stopping) {
      const kind = items.length === 0 ? 'create' : pickKind();
      const marker = `${options.tag}-${++counter}-${randomBytes(4).toString('hex')}`;
      const id = kind === 'create' ? undefined : pick(items);
      switch (kind) {
        case 'create':
          await send(kind, 'POST', api, { title: `title ${marker}`, content: `<p>${marker}</p>`, status: pick(['draft', 'publish']) }, undefined, marker);
          break;
        case 'update':
          await send(kind, 'POST', `${api}/${id}`, Math.random() < 0.5 ? { title: `title ${marker}` } : { content: `<p>${marker}</p>`, excerpt: marker }, id, marker);
          break;
        case 'autosave':
          await send(kind, 'POST', `${api}/${id}/autosaves`, { title: `autosave ${marker}`, content: `<p>${marker}</p>` }, id, marker);
          break;
        case 'trash':
          await send(kind, 'DELETE', `${api}/${id}`, undefined, id);
          break;
        case 'delete':
          await send(kind, 'DELETE', `${api}/${id}?force=true`, undefined, id);
          break;
      }
    }
  }

  const clients = Array.from({ length: options.clients }, () => client());
  return {
    records,
    halt: () => {
      stopping = true;
    },
    stop: async () => {
      stopping = true;
      await Promise.all(clients);
    },
  };
}

import { type Outcome } from '../faults/load.js';
import { sleep } from './processes.js';

/** A restore of an item's newest revision, and what became of it. */
export interface RestoreRecord {
  id: number;
  outcome: Outcome;
  status?: number;
  code?: string;
  sentAt: number;
  ms: number;
}

export interface RunningRestores {
  records: RestoreRecord[];
  stop(): Promise<void>;
}

/**
 * One client restoring items to their newest revision, beside the write load: a restore is a
 * write whose content comes from the log itself, so it carries no marker of its own and is
 * counted per item (`restored` events) instead.
 */
export function startRestores(siteUrl: string, authorization: string, items: () => number[]): RunningRestores {
  const records: RestoreRecord[] = [];
  let stopping = false;
  const api = `${siteUrl}/cms-json/cms/v2/posts`;
  const headers = { Authorization: authorization, 'Content-Type': 'application/json' };
  const loop = (async () => {
    while (!stopping) {
      const known = items();
      if (known.length === 0) {
        await sleep(200);
        continue;
      }
      const id = known[Math.floor(Math.random() * known.length)];
      const list = await fetch(`${api}/${id}/revisions?per_page=1`, { headers, signal: AbortSignal.timeout(30_000) }).catch(() => undefined);
      const revisions = list?.ok ? ((await list.json().catch(() => [])) as { id: number }[]) : (await list?.body?.cancel(), []);
      if (!revisions[0]) {
        await sleep(100);
        continue;
      }
      const record: RestoreRecord = { id, outcome: 'unanswered', sentAt: performance.now(), ms: 0 };
      records.push(record);
      try {
        const answer = await fetch(`${api}/${id}/revisions/${revisions[0].id}/restore`, { method: 'POST', headers, body: '{}', signal: AbortSignal.timeout(30_000) });
        const body = (await answer.json()) as { code?: string };
        record.status = answer.status;
        record.outcome = answer.ok ? 'acknowledged' : 'refused';
        if (!answer.ok) record.code = body.code;
      } catch {
        record.outcome = 'unanswered';
      }
      record.ms = performance.now() - record.sentAt;
      await sleep(150);
    }
  })();
  return {
    records,
    stop: async () => {
      stopping = true;
      await loop;
    },
  };
}

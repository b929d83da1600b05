/**
 * `npm run bench:scale` under load: autocannon's connections all writing one hot post, then a
 * check from the database that every change answered 2xx is in the log, once, in the order the
 * answers allow, and that the item reads as its last event left it.
 */
import autocannon from 'autocannon';
import { MongoClient } from 'mongodb';
import { type PostAutosaved, type PostChanged } from '../../src/resources/posts/post.events.js';
import { settle, type CountedService } from './service.js';

export interface LoadRow {
  workload: 'update' | 'autosave';
  perSecond: number;
  p50: number;
  p99: number;
  answered2xx: number;
  non2xx: number;
  /** Requests still unanswered when autocannon stopped at the deadline, whose change the service committed after. */
  committedAfterStop: number;
  newEvents: number;
  commandsPerRequest: number;
  /** Every check held; otherwise the run stops with an error. */
  checked: true;
}

interface Sent {
  sentAt: number;
  answeredAt?: number;
  status?: number;
}

/** After a load the quiet window is longer, as one query on a grown site can take seconds. */
const QUIET_AFTER_LOAD_MS = 3000;

const markerOfUpdate = (data: unknown) => (data as PostChanged).changes?.title;
const markerOfAutosave = (data: unknown) => /<p>(load [^<]*)<\/p>/.exec((data as PostAutosaved & { fields?: { content?: string } }).fields?.content ?? '')?.[1];

/**
 * `connections` clients updating (new title each time) or autosaving (new content each time)
 * post `hot` for `seconds`, then the checks. Each request carries a marker, so that each event
 * in the log is tied to the request that made it.
 */
export async function loadHotPost(
  service: CountedService,
  uri: string,
  options: { hot: number; workload: 'update' | 'autosave'; connections: number; seconds: number; headers: Record<string, string>; site: string },
): Promise<LoadRow> {
  const { hot, workload, site } = options;
  const client = new MongoClient(uri);
  const events = client.db().collection<{ stream: number; seq: number; type: string; data: string }>('events');
  try {
    const before = await events.countDocuments({ stream: hot });
    const commandsBefore = await service.commands();
    const sent = new Map<string, Sent>();
    let clock = 0;
    let counter = 0;
    const result = await autocannon({
      url: `${service.url}/cms-json/cms/v2/posts/${hot}${workload === 'autosave' ? '/autosaves' : ''}`,
      method: 'POST',
      headers: options.headers,
      connections: options.connections,
      duration: options.seconds,
      // A queued write on a grown site may wait many seconds; a timeout would resend it.
      timeout: 900,
      initialContext: {},
      requests: [
        {
          setupRequest: (request, context) => {
            const marker = `load ${site} ${workload} ${++counter}`;
            (context as { marker?: string }).marker = marker;
            sent.set(marker, { sentAt: ++clock });
            const body = workload === 'update' ? { title: marker } : { content: `<!-- wp:paragraph -->\n<p>${marker}</p>\n<!-- /wp:paragraph -->` };
            return { ...request, body: JSON.stringify(body) };
          },
          onResponse: (status, _body, context) => {
            const request = sent.get((context as { marker?: string }).marker ?? '');
            if (request) Object.assign(request, { answeredAt: ++clock, status });
          },
        },
      ],
    });
    await settle(service, QUIET_AFTER_LOAD_MS);
    const commands = (await service.commands()) - commandsBefore;

    const stream = await events.find({ stream: hot }).sort({ seq: 1 }).toArray();
    const fail = (what: string): never => {
      throw new Error(`load check (${site}, ${workload}s of post ${hot}): ${what}`);
    };
    stream.forEach((event, i) => event.seq !== i + 1 && fail(`seq ${event.seq} at position ${i + 1}: the stream's seqs are not contiguous`));
    const fresh = stream.slice(before);
    const markerOf = workload === 'update' ? markerOfUpdate : markerOfAutosave;
    const markers = fresh.map((event) => markerOf(JSON.parse(event.data)));
    const committed = new Set<string>();
    let latestSent = 0;
    for (const marker of markers) {
      const request = marker === undefined ? undefined : sent.get(marker);
      if (!request) fail(`an event (${marker}) no request of the load made`);
      if (committed.has(marker!)) fail(`the change of ${marker} is in the log twice`);
      committed.add(marker!);
      if (request!.status !== undefined && request!.status >= 300) fail(`${marker} was answered ${request!.status} yet appended an event`);
      // Reordered: an event after another in the log whose answer came before that other one was even sent.
      if (request!.answeredAt !== undefined && request!.answeredAt < latestSent) fail(`${marker} was answered before an earlier event's request was sent`);
      latestSent = Math.max(latestSent, request!.sentAt);
    }
    const answered = [...sent.entries()].filter(([, request]) => request.status !== undefined && request.status < 300);
    const lost = answered.filter(([marker]) => !committed.has(marker));
    if (lost.length) fail(`${lost.length} changes answered 2xx are not in the log (${lost[0][0]})`);
    const committedAfterStop = [...committed].filter((marker) => sent.get(marker)!.answeredAt === undefined).length;
    if (committedAfterStop > options.connections) fail(`${committedAfterStop} events without an answer, more than the ${options.connections} requests that can be in flight`);
    if (fresh.length !== answered.length + committedAfterStop) fail(`${fresh.length} new events for ${answered.length} changes answered 2xx`);

    await assertReadsAsLastEvent(service.url, options.headers, hot, workload, markers.at(-1), fail);
    if ((await events.countDocuments({ stream: hot })) !== stream.length) fail('events were still being appended after the load settled');
    return {
      workload,
      perSecond: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      answered2xx: answered.length,
      non2xx: result.non2xx + result.errors + result.timeouts,
      committedAfterStop,
      newEvents: fresh.length,
      commandsPerRequest: commands / Math.max(1, [...sent.values()].filter((request) => request.status !== undefined).length + committedAfterStop),
      checked: true,
    };
  } finally {
    await client.close();
  }
}

/** The item (or the caller's autosave of it) read over HTTP shows the last event's change. */
async function assertReadsAsLastEvent(url: string, headers: Record<string, string>, hot: number, workload: 'update' | 'autosave', last: string | undefined, fail: (what: string) => never): Promise<void> {
  if (last === undefined) return;
  if (workload === 'update') {
    const item = (await (await fetch(`${url}/cms-json/cms/v2/posts/${hot}?context=edit`, { headers })).json()) as { title: { raw: string } };
    if (item.title.raw !== last) fail(`the post reads "${item.title.raw}", the last event says "${last}"`);
  } else {
    const autosaves = (await (await fetch(`${url}/cms-json/cms/v2/posts/${hot}/autosaves?context=edit`, { headers })).json()) as { content: { raw: string } }[];
    if (!autosaves.some((autosave) => autosave.content.raw.includes(`<p>${last}</p>`))) fail(`the autosave does not read as the last event (${last}) left it`);
  }
}

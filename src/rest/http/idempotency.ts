import { createHash, randomUUID } from 'node:crypto';
import { type Collection, type Db } from 'mongodb';
import { holdsLongString } from '../../lib/json-text.js';
import { type Logger } from '../../logger.js';
import { isDatabaseUnavailable, isDuplicateKey, readBack, type IndexSpec } from '../../store/database/mongo.js';
import { eventsOfClaim, withWriteClaim, type ClaimedEvent } from '../../store/log/write-claims.js';
import {
  IdempotencyKeyInFlight,
  IdempotencyKeyInvalid,
  IdempotencyKeyReused,
  IdempotencyKeyUnresolved,
  type RestError,
} from '../errors.js';
import { type HeaderValue } from '../rest-response.js';
import { type RestResult } from '../rest-server.js';
import { holdsStreamedList } from '../streamed-list.js';

/**
 * `Idempotency-Key` on writes, as draft-ietf-httpapi-idempotency-key-header and Stripe define it:
 * a POST, PUT, PATCH or DELETE sent again with the key it was first sent with is answered as the
 * first one was, for 24 hours, and changes nothing more.
 *
 * The record lives in the database (`idempotency_keys`), so it holds across nodes and restarts.
 * A request claims its key by inserting the record (a unique `_id`: the caller, method, route and
 * key), runs, then writes its answer into the record; a request that meets the record replays the
 * answer, or is refused while the first is in flight (409) or when it is not the same request
 * (422). Every event the claimed request appends carries the claim (`store/log/write-claims.ts`): the
 * append is the commit point, so when the answer was never recorded (the process died, or the
 * record's acknowledgement was lost), a retry finds what the first request stored there, and
 * answers with that item as it is now rather than running again.
 */

/** Methods a key applies to (after `_method` / `X-HTTP-Method-Override`). */
export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** The draft leaves the length open; Stripe's limit. */
export const MAX_KEY_LENGTH = 255;
/** How long a key's answer is kept (Stripe's 24 hours). */
export const KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;
/**
 * A pending claim not kept alive for this long belongs to a request that stopped (its process
 * died or lost the database): a retry then looks for what it stored. Only the answer a retry gives
 * depends on it, never whether anything is stored twice (a stale claim is never run again).
 */
export const STALE_CLAIM_MS = 60_000;
/** Answers larger than this are kept without their body: status and headers (`Location`) only. */
export const MAX_RECORDED_BODY_BYTES = 1024 * 1024;
/** How often a process sweeps expired records itself, for a database that runs no TTL deletion (FerretDB 1.24). */
const SWEEP_EVERY_MS = 60 * 60 * 1000;
/** The headers an answer is replayed with (Content-Type is always JSON here, and set on sending). */
const RECORDED_HEADERS = /^(location|etag|last-modified|allow|x-wp-.*)$/i;

/** `superseded`: a marker, not a key's record (`supersede`). */
type KeyState = 'pending' | 'done' | 'released' | 'superseded';

interface RecordedAnswer {
  status: number;
  headers: Record<string, string | string[]>;
  /** The body as sent, JSON; absent when it was larger than `MAX_RECORDED_BODY_BYTES` or not JSON. */
  body?: string;
}

interface KeyRecord {
  /** sha256 of the caller, method, route and key: one caller's key never reaches another's answer. */
  _id: string;
  /** The claim of the request running the key (each takeover a new one): what its events carry. */
  claim: string;
  /** `released`: answered with a 5xx, recorded so that a retry may run it again once nothing was found stored. */
  state: KeyState;
  fingerprint: string;
  user: number;
  method: string;
  path: string;
  createdAt: Date;
  /** Refreshed while the claimed request runs (`STALE_CLAIM_MS`). */
  aliveAt: Date;
  /** Past it, the record is as absent (a TTL index deletes it where the database runs them). */
  expiresAt: Date;
  answer?: RecordedAnswer;
}

export const idempotencyIndexes: IndexSpec[] = [
  // MongoDB deletes records once expired; FerretDB 1.24 keeps the index without deleting: expired
  // records are then taken for absent when read, and swept by the service (`sweep`).
  { collection: 'idempotency_keys', key: { expiresAt: 1 }, name: 'expires_at_ttl', expireAfterSeconds: 0 },
];

/** What of a request the key's record is checked against. */
export interface IdempotentRequest {
  key: string;
  user: number;
  method: string;
  /** The normalized route. */
  path: string;
  query: unknown;
  body: unknown;
  files: readonly { fieldname: string; originalname: string; size: number; buffer?: Buffer }[];
  /** For a body the endpoint reads as a stream: the headers that describe it (its bytes are not read here). */
  streamedBody?: Record<string, string | undefined>;
}

/** Answers a stored write again from what it changed: the first event's item as it is now (undefined: it cannot be). */
export type AnswerFromItem = (event: { stream: number; type: string; seq: number }) => Promise<RestResult | undefined>;

export interface IdempotencyOptions {
  clock: () => Date;
  logger: Logger;
  /**
   * Brings a stream's read model up to its log: a request that stopped after its append may have
   * left its item unprojected (a create answered 503), which its retry answers with.
   */
  catchUp?: (event: ClaimedEvent) => Promise<void>;
  staleClaimMs?: number;
}

/** The header's value, or the error that refuses it; undefined when the request carries none. */
export function idempotencyKeyOf(header: string | undefined): string | RestError | undefined {
  if (header === undefined) return undefined;
  if (header.length === 0 || header.length > MAX_KEY_LENGTH) return new IdempotencyKeyInvalid();
  return header;
}

export class IdempotentWrites {
  private readonly keys: Collection<KeyRecord>;
  private readonly staleClaimMs: number;
  private lastSweep = 0;

  constructor(
    private readonly db: Db,
    private readonly options: IdempotencyOptions,
  ) {
    this.keys = db.collection<KeyRecord>('idempotency_keys');
    this.staleClaimMs = options.staleClaimMs ?? STALE_CLAIM_MS;
  }

  /**
   * Serves a write that carries a key: runs it once (`run`) under a claim, or answers as the
   * request that holds the key was answered. `fromItem` answers from what a request whose answer
   * was never recorded stored.
   */
  async serve(request: IdempotentRequest, run: () => Promise<RestResult>, fromItem: AnswerFromItem): Promise<RestResult> {
    const id = sha256(JSON.stringify([request.user, request.method, request.path, request.key]));
    const fingerprint = fingerprintOf(request);
    this.sweep();
    // A record seen expired is deleted, and the claim made again: at most a few rounds.
    for (let round = 0; round < 3; round++) {
      const now = this.options.clock();
      const claim = randomUUID();
      const record: KeyRecord = {
        _id: id,
        claim,
        state: 'pending',
        fingerprint,
        user: request.user,
        method: request.method,
        path: request.path,
        createdAt: now,
        aliveAt: now,
        expiresAt: new Date(now.getTime() + KEY_LIFETIME_MS),
      };
      if (await this.insertClaim(record)) return this.runClaimed(id, claim, run);

      const held = await this.keys.findOne({ _id: id });
      if (!held) continue;
      if (held.expiresAt.getTime() <= now.getTime()) {
        if (await this.supersede(held, claim)) await this.keys.deleteOne({ _id: id, claim: held.claim });
        continue;
      }
      if (held.fingerprint !== fingerprint) return refusal(new IdempotencyKeyReused());
      if (held.state === 'done' && held.answer) return replay(held.answer);
      if (held.state === 'pending' && now.getTime() - held.aliveAt.getTime() < this.staleClaimMs) return refusal(new IdempotencyKeyInFlight());

      // Answered with a 5xx, or left pending by a request that stopped: what did it store?
      const stored = await eventsOfClaim(this.db, held.claim);
      if (stored.length) {
        await this.options.catchUp?.(stored[0]).catch((error: unknown) => this.options.logger.warn({ err: error, stream: stored[0].stream }, 'catching up a claimed item failed'));
        const answer = await fromItem(stored[0]);
        if (!answer) return refusal(new IdempotencyKeyUnresolved({ stream: stored[0].stream }));
        // Recorded, so that every later retry gets this same answer (unless another retry recorded one first).
        await this.keys
          .updateOne({ _id: id, claim: held.claim, state: held.state }, { $set: { state: 'done', answer: recordedAnswer(answer) } })
          .catch((error: unknown) => this.options.logger.warn({ err: error }, 'recording an idempotent answer failed'));
        return replay(recordedAnswer(answer), answer.body);
      }
      // A request left pending may still store something (a process paused, not dead): it is never
      // run a second time; one answered with a 5xx is done, and stored nothing, so it may run again.
      if (held.state === 'pending') return refusal(new IdempotencyKeyUnresolved());
      if (!(await this.supersede(held, claim))) return refusal(new IdempotencyKeyInFlight());
      try {
        await this.keys.updateOne({ _id: id, claim: held.claim }, { $set: { claim, state: 'pending', aliveAt: now } });
      } catch (error) {
        await this.keys.deleteOne({ _id: supersededId(held) }).catch(() => {});
        throw error;
      }
      return this.runClaimed(id, claim, run);
    }
    return refusal(new IdempotencyKeyInFlight());
  }

  /**
   * Whether this request is the one to replace `held`'s claim (an expired record, or a released
   * claim run again): decided by a unique `_id` (a marker derived from the claim replaced), since
   * FerretDB 1.24 applies a conditional update or delete without atomicity, so two retries could
   * otherwise both take the key.
   */
  private async supersede(held: KeyRecord, claim: string): Promise<boolean> {
    try {
      const { fingerprint, user, method, path, createdAt, aliveAt, expiresAt } = held;
      await this.keys.insertOne({ _id: supersededId(held), claim, state: 'superseded', fingerprint, user, method, path, createdAt, aliveAt, expiresAt });
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  /**
   * Inserts the claim; false when the key is held already. An insert whose acknowledgement was
   * lost is read back (within the store's bound): the record found is ours when it holds our claim.
   */
  private async insertClaim(record: KeyRecord): Promise<boolean> {
    const sentAt = performance.now();
    try {
      await this.keys.insertOne(record);
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      if (!isDatabaseUnavailable(error)) throw error;
      const found = await readBack(this.db, sentAt, () => this.keys.findOne({ _id: record._id }));
      if (!found) throw error;
      return found.claim === record.claim;
    }
  }

  private async runClaimed(id: string, claim: string, run: () => Promise<RestResult>): Promise<RestResult> {
    const { logger, clock } = this.options;
    const alive = setInterval(() => {
      this.keys.updateOne({ _id: id, claim, state: 'pending' }, { $set: { aliveAt: clock() } }).catch(() => {});
    }, Math.max(1000, Math.floor(this.staleClaimMs / 4)));
    alive.unref();
    let result: RestResult;
    try {
      result = await withWriteClaim(claim, run);
    } catch (error) {
      clearInterval(alive);
      // Thrown rather than answered (the adapter answers it 500): as a 5xx, the key is released.
      await this.keys.updateOne({ _id: id, claim, state: 'pending' }, { $set: { state: 'released' } }).catch(() => {});
      throw error;
    }
    clearInterval(alive);
    // A 5xx is a fault of the service, not an answer: a retry may run the request again, once it
    // is known to have stored nothing (Stripe records 4xx answers like 2xx ones, and so do we).
    const update = result.status >= 500 ? { state: 'released' as const } : { state: 'done' as const, answer: recordedAnswer(result) };
    try {
      await this.keys.updateOne({ _id: id, claim, state: 'pending' }, { $set: update });
    } catch (error) {
      // The answer still goes out; the claim, left pending, is resolved from its events by a retry.
      logger.warn({ err: error }, 'recording an idempotent answer failed');
    }
    return result;
  }

  /** Deletes expired records, at most once an hour per process, without holding up the request. */
  private sweep(): void {
    const now = this.options.clock().getTime();
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    this.keys
      .deleteMany({ expiresAt: { $lt: new Date(now) } }, { comment: 'full-scan: expired idempotency keys, once an hour per process (FerretDB runs no TTL index)' })
      .catch((error: unknown) => this.options.logger.warn({ err: error }, 'sweeping expired idempotency keys failed'));
  }
}

/** The marker of `held`'s claim replaced, expiring with the record. */
const supersededId = (held: KeyRecord): string => sha256(`${held._id}\n${held.claim}`);

function refusal(error: RestError): RestResult {
  return { status: error.status, headers: {}, body: error.toBody() };
}

/** A recorded answer as it is sent again. */
function replay(answer: RecordedAnswer, body?: unknown): RestResult {
  return {
    status: answer.status,
    headers: { ...answer.headers, 'Idempotent-Replayed': 'true' },
    body: body !== undefined ? body : answer.body !== undefined ? JSON.parse(answer.body) : null,
  };
}

/** What of an answer is kept: status, the headers that describe it, and its JSON body when not too large. */
function recordedAnswer(result: RestResult): RecordedAnswer {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(result.headers)) {
    if (RECORDED_HEADERS.test(name) && value !== undefined) headers[name] = headerValue(value);
  }
  const recorded: RecordedAnswer = { status: result.status, headers };
  // A streamed answer has no whole body to keep; writes do not answer so. One holding a long text
  // (a long post's content) would be serialized whole here, in one step, to be found too large.
  if (result.stream || result.events || holdsStreamedList(result.body) || holdsLongString(result.body)) return recorded;
  const body = JSON.stringify(result.body) ?? 'null';
  if (Buffer.byteLength(body) <= MAX_RECORDED_BODY_BYTES) recorded.body = body;
  return recorded;
}

function headerValue(value: HeaderValue): string | string[] {
  return Array.isArray(value) ? value.map(String) : String(value);
}

/**
 * The request as the draft's fingerprint sees it: method, route, query and a hash of the body.
 * The REST nonce (`_wpnonce`) is a credential, not part of the request: a retry may carry a fresh one.
 */
function fingerprintOf(request: IdempotentRequest): string {
  const body = request.streamedBody
    ? canonical(request.streamedBody)
    : canonical([withoutNonce(request.body), request.files.map((file) => [file.fieldname, file.originalname, file.size, file.buffer ? sha256(file.buffer) : ''])]);
  return sha256(JSON.stringify([request.method, request.path, canonical(withoutNonce(request.query)), sha256(body)]));
}

function withoutNonce(params: unknown): unknown {
  if (typeof params !== 'object' || params === null || !('_wpnonce' in params)) return params;
  const copy: Record<string, unknown> = Object.assign(Object.create(null), params);
  delete copy._wpnonce;
  return copy;
}

/** JSON with every object's keys in order, so that the same parameters give the same text. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (typeof inner !== 'object' || inner === null || Array.isArray(inner) || Buffer.isBuffer(inner)) return inner;
    const sorted: Record<string, unknown> = Object.create(null);
    for (const key of Object.keys(inner).sort()) sorted[key] = (inner as Record<string, unknown>)[key];
    return sorted;
  }) ?? 'null';
}

function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

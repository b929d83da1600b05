import { type Db } from 'mongodb';
import { type Principal } from '../../auth/capabilities.js';
import { type Deps } from '../../deps.js';
import { AnswerBudget } from '../../lib/answer-budget.js';
import { jsonLength } from '../../lib/json-text.js';
import { diffText, type FieldDiff } from '../../lib/text-diff.js';
import { compactLinks, type Links } from '../../rest/links.js';
import { type RestRequest } from '../../rest/rest-request.js';
import { changeLog, GAP_WAIT_MS, type ChangeLog, type StoredEvent } from '../../store/log/change-log.js';
import { type Versioned } from '../../store/history/kernel.js';
import { catchUpStream } from '../../store/projections/projections.js';
import { timelineEntry, type TimelineEntry } from '../history/index.js';
import { isLockEvent } from '../locks/index.js';
import { type ChangeSource } from '../manifest.js';
import { lockChanges } from './changes.locks.js';
import { MAX_PAGE_CHARS, MAX_PAGE_HELD_CHARS, MAX_PAGE_READ_CHARS, MAX_PAGE_WORK_MS, type Include } from './changes.schema.js';

/** One change as the feed answers it. */
export type ChangeJson = { item: number; item_type: string } & TimelineEntry & {
  object?: Record<string, unknown> | null;
  diff?: Record<string, FieldDiff> | null;
  /** A lock event's holder (the user who held it, for `lock.released`), and for `lock.taken_over` the one before. */
  holder?: number;
  previous_holder?: number;
  /** For `lock.lapsed`, when the lock lapsed (GMT). */
  lapses?: string;
};

export interface ChangesQuery {
  since: number;
  limit: number;
  types?: readonly string[];
  subtypes?: readonly string[];
  include: Include;
  /** How long a missing position is waited for before it is voided (`readPositions`). */
  gapWaitMs?: number;
}

export interface ChangesPage {
  changes: ChangeJson[];
  /** The last position the page covers: every position up to it was read, delivered or left out. */
  last: number;
}

/** Every source, by the item type it describes. */
export class ChangeSources {
  private readonly byType = new Map<string, ChangeSource>();

  constructor(sources: readonly ChangeSource[]) {
    for (const source of sources) for (const type of source.itemTypes) this.byType.set(type, source as ChangeSource);
  }

  get itemTypes(): string[] {
    return [...this.byType.keys()];
  }

  of(itemType: string | undefined): ChangeSource | undefined {
    return itemType === undefined ? undefined : this.byType.get(itemType);
  }

  /**
   * The item type of each event: recorded on it, or, for a stream stored before types were
   * recorded, named by its first event as its projection reads it (`legacyStreamType`).
   */
  async typesOf(log: ChangeLog, events: readonly StoredEvent[]): Promise<Map<number, string | undefined>> {
    const types = new Map<number, string | undefined>();
    for (const event of events) if (event.streamType !== undefined) types.set(event.stream, event.streamType);
    const untyped = [...new Set(events.filter((event) => !types.has(event.stream)).map((event) => event.stream))];
    if (!untyped.length) return types;
    const projections = [...new Set([...this.byType.values()].map((source) => source.history.projection))];
    for (const [stream, first] of await log.firstEvents(untyped)) {
      types.set(stream, first.streamType ?? projections.map((projection) => projection.legacyStreamType?.(first)).find((type) => type !== undefined));
    }
    return types;
  }
}

/**
 * Items whose folded state a process keeps for the feed's next page, at most, and the bytes of
 * their texts, counted at two bytes a character (V8's most). Counted in characters against 16 Mi,
 * one longest post (16 MB of content) was kept for good: a sixth of a worker's 96 MiB heap, which
 * an update of such a post then lacked. A state whose texts alone pass the budget is folded again
 * from the log when a page needs it.
 */
const FOLDED_KEPT = 2000;
const FOLDED_KEPT_BYTES = 8 << 20;

interface FoldedState {
  seq: number;
  state: Versioned | null;
  /** About how large the state is: its texts, at two bytes a character. */
  bytes: number;
}

/**
 * The states this process last folded items to, for the feed's next page: the least recently kept
 * goes first once there are FOLDED_KEPT, or their texts pass FOLDED_KEPT_BYTES (2,000 states of
 * long posts held gigabytes).
 */
class FoldedStates {
  private readonly states = new Map<number, FoldedState>();
  private bytes = 0;

  get(stream: number): FoldedState | undefined {
    return this.states.get(stream);
  }

  keep(stream: number, entry: FoldedState): void {
    const previous = this.states.get(stream);
    if ((previous?.seq ?? 0) > entry.seq) return;
    if (previous) {
      this.states.delete(stream);
      this.bytes -= previous.bytes;
    }
    // Too large to keep: the older state is dropped all the same, as the newer one replaced it.
    if (entry.bytes > FOLDED_KEPT_BYTES) return;
    this.states.set(stream, entry);
    this.bytes += entry.bytes;
    while (this.states.size > FOLDED_KEPT || this.bytes > FOLDED_KEPT_BYTES) {
      const [oldest, dropped] = this.states.entries().next().value!;
      this.states.delete(oldest);
      this.bytes -= dropped.bytes;
    }
  }
}

const foldedByDb = new WeakMap<Db, FoldedStates>();

function foldedStatesOf(db: Db): FoldedStates {
  let folded = foldedByDb.get(db);
  if (!folded) foldedByDb.set(db, (folded = new FoldedStates()));
  return folded;
}

// The event types that change nothing a reader of the item sees: another's autosave, a revision's removal.
const PRIVATE_EVENTS = new Set(['revision_deleted']);
const isOwnChange = (event: StoredEvent) => !PRIVATE_EVENTS.has(event.type) && !(event.type === 'autosaved' && !(event.data as { inPlace?: boolean }).inPlace);

/**
 * How long after its append an event its item's read model has not reached is taken for one its
 * command left unprojected (the database away for longer than the command retried), not one still
 * projecting: a page then catches the item up itself. Without it the feed stopped before such an
 * event on every node until the item's next write or a restart. As long as a missing position is
 * waited for (`GAP_WAIT_MS`).
 */
export const PROJECTION_WAIT_MS = GAP_WAIT_MS;

/** What one page knows of an item its events belong to. */
interface ItemLook {
  source: ChangeSource;
  /** The item now without its long fields (`ChangeSource.longFields`), enough to decide on its changes; null once it is gone. */
  current: Versioned | null;
  /** The whole item now, read once `include=item` answers it. */
  whole?: Versioned | null;
  /** Whether the log holds a later event that ended the item (its deletion): the read model is then rightly gone. */
  ended?: Promise<boolean>;
  /** The item around the page's events of it, folded from its log (`ItemStates`), until the page is past them. */
  states?: Promise<ItemStates>;
  /** How many characters of text those states hold. */
  statesChars?: number;
  /** About how many characters the whole item takes in an answer (its stored form's), for `include=item`. */
  chars?: number;
  /** Whether this page caught the item's read model up (`PROJECTION_WAIT_MS`). */
  caughtUp?: boolean;
}

/** An item's states around a page's events of it. */
interface ItemStates {
  /** The item after each of the page's events of it, and before the first (null: not yet, or no more). */
  bySeq: Map<number, Versioned | null>;
  /** Its latest state that was an item, up to the page's last event of it. */
  lastKnown: Versioned | null;
}

/**
 * One page of the feed after `since`, in position order. The log is read by position, a gap-free
 * prefix (`readPositions`); each event is delivered only once its item's read model reached it,
 * so a consumer reading the item right after sees the change: the page ends before the first that
 * has not (its command is still projecting it), and `last` says where the next page starts. A
 * caller sees every change of an item whose history they may read, with its content; anyone
 * else sees only its public changes: those that left it public (its content as it then was, a
 * diff only from a state that was public too), or that withdrew it from the public (without
 * content). Events of types no source describes, and filtered ones, are covered and left out.
 * A page stops adding changes once their diffs and items pass MAX_PAGE_CHARS, or its diffs took
 * MAX_PAGE_WORK_MS (its first change always goes in): `last` then ends before the first change
 * left out, so the next page starts with it and a follower misses nothing. It reads about
 * MAX_PAGE_READ_CHARS of events at most (one at least), ending sooner where they are long, and
 * decodes, folds and answers them in slices, with other requests answered between. It decides on
 * an item from the item without its long fields, reads an item whole only to answer it
 * (`include=item`), and ends before its next change once the states folded for items it is not
 * yet past hold MAX_PAGE_HELD_CHARS of text: what a page holds is bounded by what it reads and
 * answers, not by how many long items its events touch.
 */
export async function readChanges(deps: Deps, sources: ChangeSources, req: RestRequest, query: ChangesQuery): Promise<ChangesPage> {
  const page = await readPage(deps, sources, req, query);
  const lockChange = lockChanges(deps.store.db, page.user, { sourceOf: (itemType) => sources.of(itemType), ...(query.types ? { types: query.types } : {}), ...(query.subtypes ? { subtypes: query.subtypes } : {}) });
  const changes: ChangeJson[] = [];
  let last = page.through;
  let considered = 0;
  for (const event of page.events) {
    await page.budget.slices.pause();
    if (page.budget.spent || (considered > 0 && page.heldChars > MAX_PAGE_HELD_CHARS)) {
      last = event.position! - 1;
      break;
    }
    if (isLockEvent(event)) {
      const change = await considerLock(page, lockChange, event);
      considered++;
      if (change) changes.push(change);
      continue;
    }
    const look = page.looks.get(event.stream);
    if (!look) continue;
    const change = await consider(page, event, look);
    if (change === 'unprojected') {
      last = event.position! - 1;
      break;
    }
    considered++;
    if (change) changes.push(change);
    // Past its last event on the page, an item's states are let go.
    if (event.seq === page.seqsOf.get(event.stream)!.last && look.states) {
      page.heldChars -= look.statesChars ?? 0;
      look.states = undefined;
    }
  }
  await prepareObjects(deps, req, page.objects);
  return { changes: changes.filter((change) => change.position <= last), last };
}

/** A page of the feed as it is read and decided on: its events, each item's look, and what it holds and answers so far. */
interface PageRead {
  readonly deps: Deps;
  readonly log: ChangeLog;
  readonly query: ChangesQuery;
  readonly user: Principal;
  readonly events: StoredEvent[];
  readonly through: number;
  readonly itemTypes: Map<number, string | undefined>;
  /** The page's events of items a source describes (lock events aside). */
  readonly wanted: StoredEvent[];
  readonly looks: Map<number, ItemLook>;
  /** The first and last seq of each item's events on the page. */
  readonly seqsOf: Map<number, { first: number; last: number }>;
  readonly folded: FoldedStates;
  readonly budget: AnswerBudget;
  /** The characters of text the states of items the page is not yet past hold (`statesOf`). */
  heldChars: number;
  /** The changes answered with their item (`include=item`), and the item's look. */
  readonly objects: { change: ChangeJson; look: ItemLook }[];
}

/**
 * Reads the page's events from the log by position (at most `query.limit`, and about
 * MAX_PAGE_READ_CHARS), the types of their items, and each described item now without its long fields.
 */
async function readPage(deps: Deps, sources: ChangeSources, req: RestRequest, query: ChangesQuery): Promise<PageRead> {
  const { db } = deps.store;
  const log = changeLog(db);
  const { events, through } = await log.readPositions(query.since, query.limit, {
    maxBytes: MAX_PAGE_READ_CHARS,
    sideStreams: true,
    ...(query.gapWaitMs !== undefined ? { gapWaitMs: query.gapWaitMs } : {}),
  });
  const looks = new Map<number, ItemLook>();
  const itemTypes = await sources.typesOf(log, events.filter((event) => !isLockEvent(event)));
  const wanted = events.filter((event) => !isLockEvent(event) && sources.of(itemTypes.get(event.stream)) !== undefined);
  await Promise.all(
    [...new Set(wanted.map((event) => event.stream))].map(async (stream) => {
      const source = sources.of(itemTypes.get(stream))!;
      looks.set(stream, { source, current: await source.history.load(db, stream, source.longFields) });
    }),
  );
  const seqsOf = new Map<number, { first: number; last: number }>();
  for (const { stream, seq } of wanted) {
    const seen = seqsOf.get(stream);
    seqsOf.set(stream, seen ? { first: Math.min(seen.first, seq), last: Math.max(seen.last, seq) } : { first: seq, last: seq });
  }
  const budget = new AnswerBudget(MAX_PAGE_CHARS, MAX_PAGE_WORK_MS);
  const user: Principal = req.user;
  return { deps, log, query, user, events, through, itemTypes, wanted, looks, seqsOf, folded: foldedStatesOf(db), budget, heldChars: 0, objects: [] };
}

/** Whether the item's log holds a later event that ended it (its deletion), read once. */
function endedLater(page: PageRead, look: ItemLook, stream: number): Promise<boolean> {
  return (look.ended ??= (async () => {
    const count = await page.log.countStream(stream);
    const [last] = await page.log.readSeqs(stream, count, count);
    return last !== undefined && look.source.history.projection.endsStream.includes(last.type);
  })());
}

/**
 * The item's states around the page's events of it. The page's own events are folded from the
 * page; the log before them is read an event at a time (`foldSeqs`), from the state this process
 * last folded the item to when that is not past the page's first event and no event since erased
 * anything (the item's log then holds nothing after the page's last event, and no event read owes
 * an erasure: an erasure may have blanked what the kept state still holds); else from its first
 * event. A reader at the head, woken by each change, so reads that change rather than the item's
 * whole log, and a page holds the states of its own events, not one per event of the item's log.
 */
function statesOf(page: PageRead, look: ItemLook, stream: number): Promise<ItemStates> {
  return (look.states ??= (async () => {
    const { log, budget } = page;
    const { first: firstSeq, last: lastSeq } = page.seqsOf.get(stream)!;
    const onPage = page.wanted.filter((event) => event.stream === stream);
    const { history } = look.source;
    const kept = page.folded.get(stream);
    const keptUsable = kept !== undefined && kept.state !== null && kept.seq < firstSeq && !onPage.some((event) => event.erasure !== undefined) && !(await log.holds(stream, lastSeq + 1));
    const foldBefore = async (start: { seq: number; state: Versioned | null }) => {
      let { seq, state } = start;
      let lastKnown = state;
      for await (const event of log.foldSeqs(stream, seq + 1, firstSeq - 1, budget.slices)) {
        if (start.seq > 0 && event.erasure !== undefined) return undefined;
        state = history.fold(state, event).state;
        seq = event.seq;
        lastKnown = state ?? lastKnown;
      }
      return { seq, state, lastKnown };
    };
    const before = (keptUsable ? await foldBefore(kept) : undefined) ?? (await foldBefore({ seq: 0, state: null }))!;
    // A log that ends before the page's first event (read while it was erased) leaves the item unknown before it.
    let state = before.seq === firstSeq - 1 ? before.state : null;
    let { lastKnown } = before;
    const bySeq = new Map<number, Versioned | null>([[firstSeq - 1, state]]);
    for (const event of onPage) {
      state = history.fold(state, event).state;
      bySeq.set(event.seq, state);
      lastKnown = state ?? lastKnown;
      await budget.slices.pause();
    }
    if (before.seq === firstSeq - 1 && onPage.length === lastSeq - firstSeq + 1) {
      page.folded.keep(stream, { seq: lastSeq, state, bytes: 2 * textChars(look.source, state) });
    }
    look.statesChars = [...new Set([...bySeq.values(), lastKnown])].reduce((sum, each) => sum + textChars(look.source, each), 0);
    page.heldChars += look.statesChars;
    return { bySeq, lastKnown };
  })());
}

/** A lock event as the caller sees it (`lockChanges`), with its item when `include=item` asks. */
async function considerLock(page: PageRead, lockChange: ReturnType<typeof lockChanges>, event: Parameters<ReturnType<typeof lockChanges>>[0]): Promise<ChangeJson | undefined> {
  const { db } = page.deps.store;
  const seen = await lockChange(event);
  if (!seen) return undefined;
  const change: ChangeJson = seen.change;
  page.budget.add(JSON.stringify(change).length);
  if (page.query.include === 'item') {
    change.object = null;
    const look = (page.looks.get(change.item) ?? { source: seen.look.source, current: seen.look.current }) as ItemLook;
    if (look.whole === undefined) look.whole = await look.source.history.load(db, change.item);
    if (look.whole && look.source.mayRead(page.user, look.whole)) {
      page.objects.push({ change, look });
      page.budget.add((look.chars ??= jsonLength(look.whole)));
    }
  }
  // A lock changes no text.
  if (page.query.include === 'diff') change.diff = null;
  return change;
}

/** The event as the caller sees it: a change, nothing (left out), or `unprojected` (the page ends before it). */
async function consider(page: PageRead, event: StoredEvent, look: ItemLook): Promise<ChangeJson | 'unprojected' | undefined> {
  const { query, budget } = page;
  if (!(await projectedThrough(page, event, look))) return 'unprojected';
  const itemType = page.itemTypes.get(event.stream)!;
  if (query.types && !query.types.includes(itemType)) return undefined;
  if (query.subtypes && !query.subtypes.includes(event.type)) return undefined;
  const seen = await visibilityOf(page, event, look);
  if (!seen) return undefined;
  const { source, current } = look;
  const change: ChangeJson = { item: event.stream, item_type: itemType, ...timelineEntry(event, source.wireNames) };
  if (!seen.full && change.revision !== null) change.revision = null;
  budget.add(JSON.stringify(change).length);
  if (query.include === 'item') {
    change.object = null;
    if (current && look.whole === undefined) look.whole = await source.history.load(page.deps.store.db, event.stream);
    if (look.whole && (seen.full || source.mayRead(page.user, look.whole))) {
      page.objects.push({ change, look });
      budget.add((look.chars ??= jsonLength(look.whole)));
    }
  }
  if (query.include === 'diff') {
    change.diff = null;
    if (seen.showContent) change.diff = await diffChange(budget, source, seen.before, seen.after);
  }
  return change;
}

/**
 * Whether the item's read model reached the event (or the item is gone for good). One that has not
 * after PROJECTION_WAIT_MS is caught up once, and `look.current` read again.
 */
async function projectedThrough(page: PageRead, event: StoredEvent, look: ItemLook): Promise<boolean> {
  const { deps, log } = page;
  const { source } = look;
  let projected = look.current ? look.current.version >= event.seq : await endedLater(page, look, event.stream);
  if (!projected && !look.caughtUp && deps.clock().getTime() - event.at.getTime() >= PROJECTION_WAIT_MS) {
    look.caughtUp = true;
    try {
      await catchUpStream(deps.store.db, log, source.history.projection, event.stream);
      const current = (look.current = await source.history.load(deps.store.db, event.stream, source.longFields));
      projected = current ? current.version >= event.seq : await endedLater(page, look, event.stream);
    } catch (error) {
      deps.logger.warn({ stream: event.stream, seq: event.seq, err: error }, 'catching up an item the change feed waits on failed');
    }
  }
  return projected;
}

/**
 * What the caller may see of the event: all of it (`full`) when they may read the item's history;
 * else only an own change that left the item public (with its content) or withdrew it from the
 * public (without), its diff only from a public state. Undefined when they may see none of it.
 */
async function visibilityOf(
  page: PageRead,
  event: StoredEvent,
  look: ItemLook,
): Promise<{ full: boolean; showContent: boolean; before: Versioned | null; after: Versioned | null } | undefined> {
  const { source, current } = look;
  let full: boolean;
  let before: Versioned | null = null;
  let after: Versioned | null = null;
  if (current) full = source.mayReadHistory(page.user, current);
  else {
    // Gone: its history was for those who could read it before its end.
    const { lastKnown } = await statesOf(page, look, event.stream);
    full = lastKnown !== null && source.mayReadHistory(page.user, lastKnown);
  }
  const needStates = !full || page.query.include === 'diff';
  if (needStates) {
    const { bySeq } = await statesOf(page, look, event.stream);
    before = bySeq.get(event.seq - 1) ?? null;
    after = bySeq.get(event.seq) ?? null;
  }
  let showContent = full;
  if (!full) {
    if (!isOwnChange(event)) return undefined;
    const publicAfter = after !== null && source.isPublic(after);
    const publicBefore = before !== null && source.isPublic(before);
    if (!publicAfter && !publicBefore) return undefined;
    showContent = publicAfter;
    // A diff from a state that was never public would show what it held.
    if (!publicBefore) before = null;
  }
  return { full, showContent, before, after };
}

/** How many characters of text an item's state holds: its diffed fields'. */
function textChars(source: ChangeSource, state: Versioned | null): number {
  return state ? source.diffFields.reduce((sum, field) => sum + source.fieldText(state, field).length, 0) : 0;
}

/** Each text field's diff between two states of an item, counted against the page's budget. */
async function diffChange(budget: AnswerBudget, source: ChangeSource, before: Versioned | null, after: Versioned | null): Promise<Record<string, FieldDiff>> {
  const text = (state: Versioned | null, field: string) => (state ? source.fieldText(state, field) : '');
  const diff: Record<string, FieldDiff> = {};
  for (const field of source.diffFields) {
    const fieldDiff = await budget.work(() => diffText(text(before, field), text(after, field)));
    for (const hunk of fieldDiff.hunks) for (const line of hunk.lines) budget.add(line.length);
    diff[field] = fieldDiff;
  }
  return diff;
}

/** The items of `include=item`, each source's at once, as `GET` answers them in `view` context. */
async function prepareObjects(deps: Deps, req: RestRequest, objects: { change: ChangeJson; look: ItemLook }[]): Promise<void> {
  const bySource = new Map<ChangeSource, Map<number, Versioned>>();
  for (const { look, change } of objects) {
    const items = bySource.get(look.source) ?? new Map<number, Versioned>();
    items.set(change.item, look.whole!);
    bySource.set(look.source, items);
  }
  const prepared = new Map<number, Record<string, unknown>>();
  for (const [source, items] of bySource) {
    const docs = [...items.values()];
    const answers = await source.prepare(docs, req, deps);
    [...items.keys()].forEach((id, index) => prepared.set(id, answers[index]));
  }
  for (const { change } of objects) {
    const object = prepared.get(change.item);
    // Nested in a change, its links are compacted here: the layer compacts only the top level.
    change.object = object ? (object._links ? { ...object, _links: compactLinks(object._links as Links) } : object) : null;
  }
}

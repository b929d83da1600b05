import { api } from './api.js';
import { type HistoryEntry, type Revision } from './model.js';

/** What the item's change log tells of its autosaves, beyond what an autosave row holds. */
export interface AutosaveLog {
  /**
   * The fields each autosave carried: those its saves were sent. An autosave keeps every
   * revisioned field, and one it was not sent is stored empty: comparing or restoring it would
   * read as deleting that field.
   */
  carried: Map<number, string[]>;
  /**
   * Each autosave's later saves of the item (updates and restores, by anyone), oldest first; none
   * for one newer than the item. The log's order, where dates are whole seconds. Absent for an
   * autosave the log shows no save of.
   */
  savedAfter: Map<number, HistoryEntry[]>;
}

// The events that change what the item holds; the others (trash, autosaves) leave its content alone.
const SAVES = new Set(['updated', 'restored']);
const PER_PAGE = 100;

/** Every entry of the item's log, oldest first: an autosave's saves may lie on any page. */
async function wholeHistory(base: string): Promise<HistoryEntry[]> {
  const entries: HistoryEntry[] = [];
  for (let page = 1; ; page++) {
    const { data, headers } = await api<HistoryEntry[]>(`${base}/history`, { query: { per_page: PER_PAGE, page, _fields: 'seq,type,date_gmt,author,fields,revision,redacted' } });
    entries.push(...data);
    if (page >= Number(headers.get('X-WP-TotalPages') ?? 1)) return entries;
  }
}

/**
 * Reads the log for the item's autosaves (only when it has one). Its `autosaved` entries name the
 * fields each save was sent (one logged before the service recorded them names every field, and
 * every field is then compared, as before).
 */
export async function readAutosaveLog(base: string, autosaves: Revision[], fields: readonly string[]): Promise<AutosaveLog> {
  const log: AutosaveLog = { carried: new Map(), savedAfter: new Map() };
  if (!autosaves.length) return log;
  const entries = await wholeHistory(base);
  for (const autosave of autosaves) {
    const saves = entries.filter((entry) => entry.type === 'autosaved' && entry.revision === autosave.id);
    const sent = new Set(saves.flatMap((entry) => entry.fields));
    const carried = fields.filter((field) => sent.has(field));
    log.carried.set(autosave.id, carried.length ? carried : [...fields]);
    const last = saves.at(-1)?.seq;
    if (last !== undefined) log.savedAfter.set(autosave.id, entries.filter((entry) => entry.seq > last && SAVES.has(entry.type)));
  }
  return log;
}

import { structuredPatch, type StructuredPatchHunk } from 'diff';

/** How one text field differs between two states: unified-diff hunks, as revision diffs and the change feed show them. */
export interface FieldDiff {
  changed: boolean;
  hunks: StructuredPatchHunk[];
  /** Present, and false, when the texts differ in too many places to compare (see MAX_DIFF_EDITS). */
  minimal?: false;
  /** Present, and true, when the hunks stop short of the whole difference (see MAX_DIFF_CHARS). */
  truncated?: true;
}

/**
 * How far a line diff may go (jsdiff's `maxEditLength` and `timeout`): Myers's algorithm costs
 * lines x edits, so two long texts that differ throughout kept a process busy for seconds. Past
 * either bound the field is answered as one hunk that removes every line and adds every line,
 * marked `minimal: false`: a true patch, only not the smallest.
 */
export const MAX_DIFF_EDITS = 1000;
const MAX_DIFF_MS = 20;
/**
 * The most characters of hunk lines one field's diff holds. Two texts of 16 MB that differ
 * throughout would otherwise answer 32 MB for one field, and a page of the feed one such diff a
 * change. Past it the field keeps the hunks that fit, the last one cut short where it stops
 * (its counts are those of the lines it keeps, so it stays a true patch of the texts' start),
 * marked `truncated: true`; the whole texts are the revisions themselves.
 */
export const MAX_DIFF_CHARS = 256 * 1024;

/**
 * Line-by-line differences of a text, as unified-diff hunks with three lines of context.
 * jsdiff's "\ No newline at end of file" markers are left out: the texts are fields, not files.
 */
export function diffText(before: string, after: string): FieldDiff {
  if (before === after) return { changed: false, hunks: [] };
  const patch = structuredPatch('before', 'after', before, after, undefined, undefined, { context: 3, maxEditLength: MAX_DIFF_EDITS, timeout: MAX_DIFF_MS });
  if (!patch) return replaceAll(before, after);
  const hunks = patch.hunks.map((hunk) => ({ ...hunk, lines: hunk.lines.filter((line) => !line.startsWith('\\')) }));
  return { changed: true, ...withinChars(hunks) };
}

/** The hunks whose lines fit in MAX_DIFF_CHARS, the one that passes it cut to the lines that fit. */
function withinChars(hunks: StructuredPatchHunk[]): { hunks: StructuredPatchHunk[]; truncated?: true } {
  let left = MAX_DIFF_CHARS;
  const kept: StructuredPatchHunk[] = [];
  for (const hunk of hunks) {
    let count = 0;
    while (count < hunk.lines.length && hunk.lines[count].length <= left) left -= hunk.lines[count++].length;
    if (count === hunk.lines.length) {
      kept.push(hunk);
      continue;
    }
    if (count > 0) kept.push(cutHunk(hunk, hunk.lines.slice(0, count)));
    return { hunks: kept, truncated: true };
  }
  return { hunks: kept };
}

/** A hunk's first lines as a hunk of their own: its counts are the lines it keeps of each text. */
function cutHunk(hunk: StructuredPatchHunk, lines: string[]): StructuredPatchHunk {
  const oldLines = lines.filter((line) => !line.startsWith('+')).length;
  const newLines = lines.filter((line) => !line.startsWith('-')).length;
  return { ...hunk, oldLines, newLines, lines };
}

/**
 * The hunk that turns `before` into `after` line by line without comparing them: every line
 * removed, every line added. Past MAX_DIFF_CHARS it replaces the first lines of `before` by the
 * first lines of `after`, each side given half (and what the other leaves), read no further into
 * either text than that: a true patch of the texts' start, marked `truncated`.
 */
function replaceAll(before: string, after: string): FieldDiff {
  const half = MAX_DIFF_CHARS / 2;
  let removed = leadingLines(before, half);
  let added = leadingLines(after, MAX_DIFF_CHARS - removed.chars);
  if (removed.cut && !added.cut) removed = leadingLines(before, MAX_DIFF_CHARS - added.chars);
  const hunk: StructuredPatchHunk = {
    oldStart: 1,
    oldLines: removed.lines.length,
    newStart: 1,
    newLines: added.lines.length,
    lines: [...removed.lines.map((line) => `-${line}`), ...added.lines.map((line) => `+${line}`)],
  };
  return { changed: true, hunks: [hunk], minimal: false, ...(removed.cut || added.cut ? { truncated: true as const } : {}) };
}

/** A text's first lines whose diff lines (each with its one-character prefix) fit in `chars`, and whether any were left. */
function leadingLines(text: string, chars: number): { lines: string[]; chars: number; cut: boolean } {
  const lines: string[] = [];
  let used = 0;
  let start = 0;
  const end = text.endsWith('\n') ? text.length - 1 : text.length;
  while (text !== '' && start <= end) {
    const next = text.indexOf('\n', start);
    const stop = next === -1 || next > end ? end : next;
    const length = stop - start + 1;
    if (used + length > chars) return { lines, chars: used, cut: true };
    lines.push(text.slice(start, stop));
    used += length;
    start = stop + 1;
  }
  return { lines, chars: used, cut: false };
}

import { diffWords } from 'diff';
import { h } from './dom.js';
import { type Hunk } from './model.js';

/** Words removed and added between two texts, marked up as `del` and `ins`. */
export function wordDiff(before: string, after: string, rendered = false): HTMLElement {
  const out = h('div', { class: rendered ? 'diff-text rendered' : 'diff-text' });
  for (const part of diffWords(before, after)) {
    if (part.added) out.append(h('ins', {}, part.value));
    else if (part.removed) out.append(h('del', {}, part.value));
    else out.append(part.value);
  }
  return out;
}

/**
 * A field's line hunks (from the diff route) with the words that changed marked inside each run
 * of removed and added lines; the lines around them are shown as they are.
 */
export function hunksView(hunks: Hunk[]): HTMLElement {
  const out = h('div', { class: 'hunks' });
  for (const hunk of hunks) {
    const block = h('div', { class: 'hunk' }, h('p', { class: 'hunk-head' }, `Lines ${hunk.oldStart}–${hunk.oldStart + Math.max(hunk.oldLines - 1, 0)} → ${hunk.newStart}–${hunk.newStart + Math.max(hunk.newLines - 1, 0)}`));
    let removed: string[] = [];
    let added: string[] = [];
    const flush = () => {
      if (removed.length || added.length) block.append(wordDiff(removed.join('\n'), added.join('\n')));
      removed = [];
      added = [];
    };
    for (const line of hunk.lines) {
      if (line.startsWith('-')) removed.push(line.slice(1));
      else if (line.startsWith('+')) added.push(line.slice(1));
      else {
        flush();
        block.append(h('div', { class: 'diff-context' }, line.slice(1) || '\u00a0'));
      }
    }
    flush();
    out.append(block);
  }
  return out;
}

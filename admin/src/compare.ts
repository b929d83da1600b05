import { api } from './api.js';
import { announce, formatDateTime, fromGmt, h, replaceContent } from './dom.js';
import { fieldsLeftAlone, revisionContent, type ItemContext } from './item-context.js';
import { fieldLabel, renderedText, sourceText, type Revision, type RevisionDiff } from './model.js';
import { openRestore } from './restore.js';
import { nameOf } from './users.js';
import { hunksView, wordDiff } from './word-diff.js';

type View = 'source' | 'rendered';

interface Comparison {
  diff: RevisionDiff;
  from: Revision;
  to: Revision;
}

// Comparisons asked for or fetched ahead, by item and pair: stepping to a neighbour is instant.
const comparisons = new Map<string, Promise<Comparison>>();

function compare(ctx: ItemContext, from: Revision, to: Revision): Promise<Comparison> {
  const key = `${ctx.base}:${from.id}:${to.id}`;
  let comparison = comparisons.get(key);
  if (!comparison) {
    comparison = Promise.all([
      api<RevisionDiff>(`${ctx.base}/revisions/${to.id}/diff`, { query: { against: from.id } }).then((r) => r.data),
      revisionContent(ctx, from.id),
      revisionContent(ctx, to.id),
    ]).then(([diff, a, b]) => ({ diff, from: a, to: b }));
    comparison.catch(() => comparisons.delete(key));
    comparisons.set(key, comparison);
  }
  return comparison;
}

export function describe(ctx: ItemContext, revision: Revision): string {
  const kind = ctx.autosaveIds.has(revision.id) ? 'Autosave' : 'Revision';
  return `${kind} ${revision.id}, ${formatDateTime(fromGmt(revision.date_gmt))}, by ${nameOf(ctx.names, revision.author)}`;
}

let onCompare: ((event: Event) => void) | undefined;

/** Which two states are compared (indexes into the item's states), and how. */
interface CompareState {
  from: number;
  to: number;
  view: View;
}

/** The states the page's address asks for, or the last two; always an older one then a newer one. */
function initialState(states: readonly Revision[], params: URLSearchParams): CompareState {
  const indexOf = (id: string | null, fallback: number) => {
    const found = states.findIndex((revision) => String(revision.id) === id);
    return found < 0 ? fallback : found;
  };
  let from = indexOf(params.get('from'), states.length - 2);
  let to = indexOf(params.get('to'), states.length - 1);
  if (from >= to) [from, to] = to > 0 ? [to - 1, to] : [0, 1];
  // What a reader sees first; the block markup's source is one click away.
  const view: View = params.get('view') === 'source' ? 'source' : 'rendered';
  return { from, to, view };
}

/** The scrubber's handles, the labels of the states they hold, the step buttons and where the comparison goes. */
function compareControls(states: readonly Revision[], state: CompareState) {
  const range = (id: string, label: string, value: number) =>
    h('input', { type: 'range', id, min: 0, max: states.length - 1, step: 1, value, 'aria-label': label, class: `handle handle-${id}` });
  return {
    fromHandle: range('scrub-from', 'Older state', state.from),
    toHandle: range('scrub-to', 'Newer state', state.to),
    fromLabel: h('p', { class: 'state-label', id: 'from-label' }),
    toLabel: h('p', { class: 'state-label', id: 'to-label' }),
    result: h('div', { class: 'comparison', 'aria-live': 'polite' }),
    previous: h('button', { type: 'button', class: 'button', id: 'step-back' }, '← Previous change'),
    next: h('button', { type: 'button', class: 'button', id: 'step-forward' }, 'Next change →'),
  };
}

type CompareControls = ReturnType<typeof compareControls>;

/** The rendered or source choice; `chosen` is told each change. */
function viewSwitch(current: View, chosen: (view: View) => void): HTMLElement {
  return h(
    'fieldset',
    { class: 'view-switch' },
    h('legend', { class: 'screen-reader-text' }, 'Show'),
    (['rendered', 'source'] as const).map((option) => {
      const input = h('input', { type: 'radio', name: 'view', id: `view-${option}`, value: option, checked: option === current });
      input.addEventListener('change', () => chosen(option));
      return h('span', {}, input, h('label', { for: `view-${option}` }, option === 'source' ? 'Source' : 'Rendered'));
    }),
  );
}

/** Shows which states the handles hold, and whether there is a step to take either way. */
function showLabels(ctx: ItemContext, states: readonly Revision[], state: CompareState, controls: CompareControls): void {
  const { from, to } = state;
  const { fromHandle, toHandle, fromLabel, toLabel, previous, next } = controls;
  fromLabel.textContent = `From: ${describe(ctx, states[from])}`;
  toLabel.textContent = `To: ${describe(ctx, states[to])}`;
  fromHandle.setAttribute('aria-valuetext', describe(ctx, states[from]));
  toHandle.setAttribute('aria-valuetext', describe(ctx, states[to]));
  fromHandle.value = String(from);
  toHandle.value = String(to);
  previous.disabled = from === 0;
  next.disabled = to === states.length - 1;
}

/** The handles never cross: moving one onto the other pushes the other along. */
function moveHandle(states: readonly Revision[], state: CompareState, handle: 'from' | 'to', value: number): void {
  if (handle === 'from') {
    state.from = Math.min(value, states.length - 2);
    if (state.to <= state.from) state.to = state.from + 1;
  } else {
    state.to = Math.max(value, 1);
    if (state.from >= state.to) state.from = state.to - 1;
  }
}

/** Puts the pair and the view in the page's address, so that a reload or a shared link shows them again. */
function rememberInAddress(states: readonly Revision[], state: CompareState): void {
  const url = new URLSearchParams(window.location.search);
  url.set('from', String(states[state.from].id));
  url.set('to', String(states[state.to].id));
  if (state.view === 'source') url.set('view', 'source');
  else url.delete('view');
  window.history.replaceState(null, '', `?${url}`);
}

/** Fetches the comparisons a step or a handle's move would ask for next. */
function compareNeighbours(ctx: ItemContext, states: readonly Revision[], { from, to }: CompareState): void {
  for (const [x, y] of [[from - 1, to - 1], [from + 1, to + 1], [from, to + 1], [from - 1, to]]) {
    if (x >= 0 && y < states.length && x < y) void compare(ctx, states[x], states[y]).catch(() => undefined);
  }
}

/** Two states of the item side by side: picked in the timeline, or with the scrubber's two handles. */
export async function showCompare(section: HTMLElement, ctx: ItemContext, params: URLSearchParams): Promise<void> {
  const states = ctx.revisions;
  if (states.length < 2) {
    replaceContent(section, h('h2', { id: 'compare-heading' }, 'Compare'), h('p', { class: 'muted' }, 'There is nothing to compare yet: the item has fewer than two saved states.'));
    return;
  }
  const state = initialState(states, params);
  const controls = compareControls(states, state);
  const { fromHandle, toHandle, fromLabel, toLabel, result, previous, next } = controls;
  const switcher = viewSwitch(state.view, (view) => {
    state.view = view;
    void update();
  });
  const labels = () => showLabels(ctx, states, state, controls);

  const moved = (handle: 'from' | 'to') => {
    moveHandle(states, state, handle, Number((handle === 'from' ? fromHandle : toHandle).value));
    labels();
  };
  fromHandle.addEventListener('input', () => moved('from'));
  toHandle.addEventListener('input', () => moved('to'));
  fromHandle.addEventListener('change', () => void update());
  toHandle.addEventListener('change', () => void update());
  const step = (by: number) => () => {
    state.from += by;
    state.to += by;
    void update();
  };
  previous.addEventListener('click', step(-1));
  next.addEventListener('click', step(1));

  if (onCompare) document.removeEventListener('compare', onCompare);
  onCompare = (event) => {
    const { from: a, to: b } = (event as CustomEvent<{ from: number; to: number }>).detail;
    state.from = states.findIndex((revision) => revision.id === a);
    state.to = states.findIndex((revision) => revision.id === b);
    void update().then(() => (section.querySelector('h2') as HTMLElement).focus());
  };
  document.addEventListener('compare', onCompare);

  async function update(): Promise<void> {
    labels();
    rememberInAddress(states, state);
    result.setAttribute('aria-busy', 'true');
    const [a, b] = [states[state.from], states[state.to]];
    let comparison;
    try {
      comparison = await compare(ctx, a, b);
    } catch (error) {
      replaceContent(result, h('p', { class: 'notice notice-error', role: 'alert' }, error instanceof Error ? error.message : 'The comparison could not be loaded.'));
      return;
    } finally {
      result.setAttribute('aria-busy', 'false');
    }
    // A later move may have happened while this one was fetched: only the newest is drawn.
    if (states[state.from] !== a || states[state.to] !== b) return;
    replaceContent(result, comparisonView(ctx, comparison, state.view));
    announce(`Comparing ${describe(ctx, a)} with ${describe(ctx, b)}.`);
    compareNeighbours(ctx, states, state);
  }

  replaceContent(
    section,
    h('h2', { id: 'compare-heading', tabindex: -1 }, 'Compare'),
    h('div', { class: 'scrubber' }, h('div', { class: 'track' }), fromHandle, toHandle),
    h('div', { class: 'state-labels' }, fromLabel, toLabel),
    h('div', { class: 'compare-tools' }, previous, next, switcher),
    result,
  );
  await update();
}

function comparisonView(ctx: ItemContext, { diff, from, to }: Comparison, view: View): HTMLElement {
  // A field an autosave on either side did not carry is held empty there, not deleted: unchanged,
  // shown as the other side has it.
  const leftAlone = new Set([...fieldsLeftAlone(ctx, from), ...fieldsLeftAlone(ctx, to)]);
  const shownValue = (name: string) => (fieldsLeftAlone(ctx, to).includes(name) ? from[name] : to[name]);
  const changed = Object.entries(diff.fields).filter(([name, field]) => field.changed && !leftAlone.has(name));
  const unchanged = Object.entries(diff.fields).filter(([name, field]) => !field.changed || leftAlone.has(name));
  const out = h('div', {});
  if (!changed.length) out.append(h('p', { class: 'muted' }, 'These two states do not differ in any field.'));
  for (const [name, field] of changed) {
    const body = view === 'rendered' ? wordDiff(renderedText(from[name]), renderedText(to[name]), true) : hunksView(field.hunks);
    out.append(
      h(
        'section',
        { class: 'field-diff', 'data-field': name },
        h('h3', {}, fieldLabel(name)),
        field.minimal === false ? h('p', { class: 'muted' }, 'Changed throughout: shown line by line, not word by word.') : null,
        field.truncated ? h('p', { class: 'muted' }, 'Too long to show whole: only the start of the difference is shown.') : null,
        body,
      ),
    );
  }
  if (unchanged.length) {
    out.append(
      h(
        'details',
        { class: 'unchanged' },
        h('summary', {}, `${unchanged.length} unchanged field${unchanged.length > 1 ? 's' : ''}: ${unchanged.map(([name]) => fieldLabel(name)).join(', ')}`),
        unchanged.map(([name]) =>
          h(
            'div',
            { class: 'field-same', 'data-field': name },
            h('h3', {}, fieldLabel(name)),
            leftAlone.has(name) ? h('p', { class: 'muted' }, 'Not carried by the autosave: left as it was.') : null,
            h('div', { class: 'diff-text' }, sourceText(shownValue(name)) || '(empty)'),
          ),
        ),
      ),
    );
  }
  out.append(
    h(
      'p',
      { class: 'actions' },
      h('button', { type: 'button', class: 'button button-primary', id: 'restore-to', onclick: () => void openRestore(ctx, to) }, `Restore ${ctx.autosaveIds.has(to.id) ? 'autosave' : 'revision'} ${to.id}…`),
      h('button', { type: 'button', class: 'button', id: 'restore-from', onclick: () => void openRestore(ctx, from) }, `Restore ${ctx.autosaveIds.has(from.id) ? 'autosave' : 'revision'} ${from.id}…`),
    ),
  );
  return out;
}

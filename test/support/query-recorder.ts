import fs from 'node:fs';
import path from 'node:path';
import { BSON, type CommandStartedEvent } from 'mongodb';
import { inject } from 'vitest';
import { shapesOfCommand, sortDocument, type QueryShape } from '../../src/store/queries/query-shapes.js';
import { currentServiceWork } from '../../src/store/queries/service-work.js';

/** A shape and one command that had it (as extended JSON), for `explain` on a real MongoDB. */
export interface RecordedShape {
  shape: QueryShape;
  sample: string;
}

const shapes = new Map<string, RecordedShape>();
const SESSION_FIELDS = new Set(['lsid', '$clusterTime', '$db', 'txnNumber', 'startTransaction', 'autocommit', '$readPreference', 'readConcern', 'writeConcern']);
let written = 0;

/** Notes the shape of every query the service under test sends (the run's index check reads them); a test's own queries are not its. */
export function recordCommand(event: CommandStartedEvent): void {
  if (!currentServiceWork()) return;
  for (const shape of shapesOfCommand(event.commandName, event.command)) {
    const key = JSON.stringify(shape);
    if (shapes.has(key)) continue;
    const sample = Object.fromEntries(
      Object.entries(event.command).filter(([field]) => !SESSION_FIELDS.has(field)).map(([field, value]) => [field, field === 'sort' ? sortDocument(value) : value]),
    );
    shapes.set(key, { shape, sample: BSON.EJSON.stringify(sample, { relaxed: false }) });
  }
}

/** Appends the shapes seen since the last flush to this process's file in the run's folder. */
export function flushQueryShapes(): void {
  const all = [...shapes.values()];
  if (all.length === written) return;
  const lines = all.slice(written).map((shape) => `${JSON.stringify(shape)}\n`).join('');
  fs.appendFileSync(path.join(inject('queryShapesDir'), `${process.pid}.ndjson`), lines);
  written = all.length;
}

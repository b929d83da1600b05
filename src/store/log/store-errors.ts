/**
 * What the store refuses, or cannot do, for a command, in its own terms: the REST layer answers
 * each (`asRestError` in rest/errors.ts), as Emmett's event store throws its own errors and leaves
 * the answer to the caller.
 */
export class StoreError extends Error {}

/** The item's entity tag does not meet the caller's condition (`If-Match`): nothing was written. */
export class PreconditionFailedError extends StoreError {
  constructor() {
    super("the item's entity tag does not match the command's precondition");
  }
}

/** Every attempt lost the race for the item's next seq: nothing was written. */
export class WriteConflictError extends StoreError {
  constructor() {
    super('the item kept changing under the command');
  }
}

/** The item's change log cannot be projected into its read model, so it is not served stale. */
export class ItemUnprojectableError extends StoreError {
  constructor(readonly stream: number) {
    super(`stream ${stream} cannot be projected`);
  }
}

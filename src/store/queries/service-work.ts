import { AsyncLocalStorage } from 'node:async_hooks';

const work = new AsyncLocalStorage<string>();

/**
 * Runs `task` as the service's own work (a request, start-up), so that command monitoring can tell
 * the queries the service sends from those of a test or a script sharing its connection.
 */
export function asServiceWork<T>(kind: string, task: () => T): T {
  return work.run(kind, task);
}

/** What service work the caller is part of, if any. */
export function currentServiceWork(): string | undefined {
  return work.getStore();
}

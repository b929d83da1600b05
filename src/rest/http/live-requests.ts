/**
 * How many requests to live endpoints (`freshness: 'live'`: the change feed, whose long polls and
 * event streams stay open while they wait for news) one process holds open at once, from one client
 * address and from everyone. Each holds a connection and wakes with every change; unbounded, a few
 * hundred of them from one client starved the database connections every other request needs.
 */
export interface LiveRequestLimits {
  /** Open at once from one client address (`CMS_LIVE_REQUESTS_PER_CLIENT`). */
  readonly perClient: number;
  /** Open at once in one process, from everyone (`CMS_LIVE_REQUESTS_PER_PROCESS`). */
  readonly perProcess: number;
}

/** Why a live request was not let in: its client holds its share, or the process holds all it may. */
export type LiveRefusal = 'client' | 'process';

export class LiveRequests {
  private readonly byClient = new Map<string, number>();
  private open = 0;

  constructor(private readonly limits: LiveRequestLimits) {}

  /** Lets a request of `client` in, answering how to let it go (call once it has ended), or why not. */
  enter(client: string): { leave: () => void } | { refused: LiveRefusal } {
    const held = this.byClient.get(client) ?? 0;
    if (held >= this.limits.perClient) return { refused: 'client' };
    if (this.open >= this.limits.perProcess) return { refused: 'process' };
    this.byClient.set(client, held + 1);
    this.open++;
    let left = false;
    return {
      leave: () => {
        if (left) return;
        left = true;
        this.open--;
        const remaining = (this.byClient.get(client) ?? 1) - 1;
        if (remaining > 0) this.byClient.set(client, remaining);
        else this.byClient.delete(client);
      },
    };
  }
}

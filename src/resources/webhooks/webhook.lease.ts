import { type Db } from 'mongodb';
import { workLease } from '../../store/coordination/lease.js';

export { leaseMs, RENEW_EVERY_MS } from '../../store/coordination/lease.js';

/**
 * The right to deliver webhooks (`workLease`), its terms kept in `webhook_leases`: a delivery, at
 * most `timeoutMs` long, starts only while the term covers the whole of it, and every write of
 * delivery state is fenced with the term (`notAfter` in the deliverer).
 */
export const deliveryLease = (db: Db, options: { timeoutMs: number }) => workLease(db, { collection: 'webhook_leases', workMs: options.timeoutMs });

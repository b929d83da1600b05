// One site seeded as bench:scale seeds its grown one, on a fresh embedded database that stays up
// until SIGINT or SIGTERM; prints its URI, so that one step (the timeline export, the service
// under a load) can be timed again and again, before and after a change, on the same data:
//   node dist/scripts/bench/scale-site.js [--posts 10000 --revisions 100000 --events 200000 --probe-revisions 2000]
//   MONGODB_URI=<uri> node dist/scripts/export-timeline.js --format ndjson --out /tmp/timeline.ndjson
import { parseArgs } from 'node:util';
import { psql } from '../../src/store/postgresql.js';
import { seedSite } from './scale-seed.js';
import { benchDatabase } from './service.js';

const { values } = parseArgs({ options: { posts: { type: 'string', default: '10000' }, revisions: { type: 'string', default: '100000' }, events: { type: 'string', default: '200000' }, 'probe-revisions': { type: 'string', default: '2000' } } });
const posts = Number(values.posts);
const probeRevisions = Number(values['probe-revisions']);
const revisionsPerPost = Math.max(0, Number(values.revisions) - probeRevisions) / (posts - 1);
const fillerPerPost = Math.max(0, Number(values.events) - (posts + 50 + Number(values.revisions) + 1)) / (posts - 1);
const { database, uri, stop } = await benchDatabase();
const seeded = await seedSite(uri, { label: 'grown', posts, probeRevisions, revisionsPerPost, fillerPerPost }, { verifyReplay: false });
if (database.postgres) await psql(database.postgres, 'ANALYZE;');
console.log(JSON.stringify({ uri, events: seeded.events, seconds: seeded.seconds }));
process.on('SIGTERM', () => void stop().then(() => process.exit(0)));
process.on('SIGINT', () => void stop().then(() => process.exit(0)));
setInterval(() => {}, 1 << 30);

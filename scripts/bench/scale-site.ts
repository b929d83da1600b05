// One site seeded as bench:scale seeds its grown one, on a fresh embedded database that stays up
// until SIGINT or SIGTERM; prints its URI, so that one step (the timeline export, the service
// under a load) can be timed again and again, before and after a change, on the same data:
//   node dist/scripts/bench/scale-site.js [--posts 10000 --revisions 100000 --events 200000 --probe-revisions 2000]
//   MONGODB_URI=<uri> node dist/scripts/export-timeline.js --format ndjson --out /tmp/timeline.ndjson
import { parseArgs } from 'node:util';
import { psql } from '../../src/store/database/postgresql.js';
import { benchSites, seedSite, SITE_SIZE_OPTIONS } from './scale-seed.js';
import { benchDatabase } from './service.js';

const { values } = parseArgs({ options: SITE_SIZE_OPTIONS });
const [, grown] = benchSites({ posts: Number(values.posts), revisions: Number(values.revisions), events: Number(values.events), probeRevisions: Number(values['probe-revisions']) });
const { database, uri, stop } = await benchDatabase();
const seeded = await seedSite(uri, grown, { verifyReplay: false });
if (database.postgres) await psql(database.postgres, 'ANALYZE;');
console.log(JSON.stringify({ uri, events: seeded.events, seconds: seeded.seconds }));
process.on('SIGTERM', () => void stop().then(() => process.exit(0)));
process.on('SIGINT', () => void stop().then(() => process.exit(0)));
setInterval(() => {}, 1 << 30);

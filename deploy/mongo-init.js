// Initiates the replica set rs0 of docker-compose.yml once, then waits until it has a primary.
// Run again against a set already initiated, it changes nothing and only waits.
const SET = 'rs0';
const MEMBERS = ['mongo1:27017', 'mongo2:27017', 'mongo3:27017'];
const WAIT_MS = 120_000;

function currentStatus() {
  try {
    return rs.status();
  } catch (error) {
    if (error.codeName === 'NotYetInitialized') return null;
    throw error;
  }
}

if (!currentStatus()) {
  try {
    rs.initiate({ _id: SET, members: MEMBERS.map((host, index) => ({ _id: index, host })) });
    print(`replica set ${SET} initiated with ${MEMBERS.join(', ')}`);
  } catch (error) {
    // Another run initiated it between the status and this call.
    if (error.codeName !== 'AlreadyInitialized') throw error;
  }
}

const deadline = Date.now() + WAIT_MS;
for (;;) {
  const primary = currentStatus()?.members.find((member) => member.stateStr === 'PRIMARY');
  if (primary) {
    print(`replica set ${SET}: primary ${primary.name}`);
    break;
  }
  if (Date.now() > deadline) {
    print(`replica set ${SET}: no primary within ${WAIT_MS / 1000} s`);
    quit(1);
  }
  sleep(1000);
}

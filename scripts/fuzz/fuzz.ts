/**
 * `npm run test:fuzz`: schemathesis, at a pinned version in a local virtual environment, against
 * the OpenAPI document of the real service, started as a child process on a fresh embedded
 * database in a temporary folder. Every operation is tested as an anonymous client and as the
 * administrator, in the fuzzing and stateful phases (and coverage, on a long run), with these
 * checks: no server error, statuses, content types, headers and bodies as the document says, and
 * no deleted resource still served.
 *
 *   npm run test:fuzz [-- --examples 80] [--scenarios 200] [--long] [--phases fuzzing,stateful] [--seed N] [--paths REGEX]
 *
 * `--examples` bounds the cases per operation of the fuzzing phase, `--scenarios` the stateful
 * phase's sequences of linked calls; `--paths` fuzzes only the operations whose paths match the
 * regular expression (the slice of the API a change touches); the defaults fit CI (about 10 minutes on two cores). The seed
 * is new on every run, so that each run (CI's included) tries other cases, and is printed with the
 * command that replays the run: `--seed N` with the same sizes. `--long` (or FUZZ_LONG=1) runs
 * every phase, 200 cases per operation and 500 scenarios; FUZZ_EXAMPLES, FUZZ_SCENARIOS,
 * FUZZ_PHASES and FUZZ_SEED set the others. Prints cases and failures by kind, and ends with
 * `N passed, N failed`, counting each operation once per identity; exits 1 on any failure.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freePort } from '../../src/store/database/wire-server.js';
import { ensureSchemathesis, run, SCHEMATHESIS_VERSION, type RunReport } from './schemathesis.js';

const ADMIN_USER = 'admin';
const ADMIN_PASSWORD = 'fuzz-admin-password';
const CHECKS = [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_headers_conformance',
  'response_schema_conformance',
  'no_deleted_resource_served',
];
const HOOKS_DIR = path.resolve('scripts', 'fuzz');
// Whatever the service takes over this, the client gives up and schemathesis reports it.
const REQUEST_TIMEOUT_SECONDS = 30;

const { values: flags } = parseArgs({
  options: {
    examples: { type: 'string' },
    scenarios: { type: 'string' },
    phases: { type: 'string' },
    seed: { type: 'string' },
    paths: { type: 'string' },
    long: { type: 'boolean', default: false },
  },
});
const long = flags.long || process.env.FUZZ_LONG === '1';
// Each case per operation costs the run about 6 s (both identities, two cores): 80 fit CI's time.
const examples = Number(flags.examples ?? process.env.FUZZ_EXAMPLES ?? (long ? 200 : 80));
const scenarios = Number(flags.scenarios ?? process.env.FUZZ_SCENARIOS ?? (long ? 500 : 200));
const phases = flags.phases ?? process.env.FUZZ_PHASES ?? (long ? 'coverage,fuzzing,stateful' : 'fuzzing,stateful');
// A fixed seed tries the same cases on every run and never finds what they miss.
const seed = flags.seed ?? process.env.FUZZ_SEED ?? String(randomInt(2 ** 31));
for (const [name, value] of Object.entries({ examples, scenarios })) {
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer`);
}
if (!/^\d+$/.test(seed)) throw new Error('--seed must be a whole number');
/** The command that runs these cases again. */
const replay = `npm run test:fuzz -- --seed ${seed} --examples ${examples} --scenarios ${scenarios} --phases ${phases}`;

/** What the command line does not carry: written for each run, beside its reports. */
const config = `
# Failing cases are kept and replayed first by the next runs on this machine.
[cache]
directory = ${JSON.stringify(path.resolve('.cache', 'fuzz', 'crashes'))}

[checks.not_a_server_error]
# 501 is WordPress's \`rest_trash_not_supported\`: a DELETE without \`force=true\` of something that
# cannot be trashed. The document lists it for exactly those operations, and
# \`status_code_conformance\` holds every other operation to its own list.
expected-statuses = ["2xx", "3xx", "4xx", "501"]

[phases.stateful.generation]
max-examples = ${scenarios}
`;

interface Service {
  url: string;
  child: ChildProcess;
  stop: () => Promise<void>;
}

/** The built service (`npm start` without its build), with its own embedded database under `dataDir`. */
async function startService(dataDir: string, logFile: string): Promise<Service> {
  const port = await freePort();
  const log = await fs.open(logFile, 'w');
  // Not a database named by the caller's environment: the service's own, embedded one.
  const { MONGODB_URI: _given, ...inherited } = process.env;
  const child = spawn(process.execPath, ['dist/src/main.js'], {
    env: {
      ...inherited,
      HOST: '127.0.0.1',
      PORT: String(port),
      CMS_DATA_DIR: dataDir,
      CMS_ADMIN_USER: ADMIN_USER,
      CMS_ADMIN_PASSWORD: ADMIN_PASSWORD,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', log.fd, log.fd],
  });
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    await log.close();
  };
  // The first start of the day may build the embedded FerretDB first.
  const deadline = Date.now() + 300_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}; see ${logFile}`);
    const ready = await fetch(`${url}/cms-json/openapi.json`).then((r) => r.ok, () => false);
    if (ready) return { url, child, stop };
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the service did not answer within 5 minutes; see ${logFile}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

interface Identity {
  name: string;
  args: string[];
  env: Record<string, string>;
}

// The admin page's sign-in (`/cms-admin/session`) is outside the document, and so outside this run:
// test/api/hostile-input.test.ts sends it hostile bodies, cookies and nonces.
async function identities(service: Service): Promise<Identity[]> {
  const credentials = `${ADMIN_USER}:${ADMIN_PASSWORD}`;
  const me = await fetch(`${service.url}/cms-json/cms/v2/users/me`, {
    headers: { Authorization: `Basic ${Buffer.from(credentials).toString('base64')}` },
  }).then((r) => r.json() as Promise<{ id: number }>);
  return [
    { name: 'anonymous', args: [], env: {} },
    {
      name: 'administrator',
      // Deleting itself would leave the rest of the run without an administrator.
      args: ['--auth', credentials, '--exclude-operation-id', 'deleteCmsV2UsersMe'],
      env: { FUZZ_PROTECTED_USER_ID: String(me.id) },
    },
  ];
}

async function fuzzAs(identity: Identity, service: Service, st: string, reportDir: string): Promise<RunReport> {
  const reportPath = path.join(reportDir, `${identity.name}.json`);
  const { code, output } = await run(
    st,
    [
      '--config-file', path.join(reportDir, 'schemathesis.toml'),
      '--no-color',
      'run', `${service.url}/cms-json/openapi.json`,
      '--phases', phases,
      '--max-examples', String(examples),
      '--seed', seed,
      '--checks', CHECKS.join(','),
      '--workers', '1',
      '--continue-on-failure',
      '--request-timeout', String(REQUEST_TIMEOUT_SECONDS),
      '--report', 'json',
      '--report-json-path', reportPath,
      // Only the operations whose paths match (a slice of the API being worked on).
      ...(flags.paths ? ['--include-path-regex', flags.paths] : []),
      ...identity.args,
    ],
    {
      env: {
        ...process.env,
        PYTHONPATH: HOOKS_DIR,
        SCHEMATHESIS_HOOKS: 'fuzz_hooks',
        FUZZ_KNOWN_LOG: path.join(reportDir, `${identity.name}.known.ndjson`),
        ...identity.env,
      },
      log: path.join(reportDir, `${identity.name}.log`),
    },
  );
  const report = await fs.readFile(reportPath, 'utf8').then((text) => JSON.parse(text) as RunReport, () => undefined);
  if (!report) throw new Error(`schemathesis exited with ${code} and wrote no report:\n${output.slice(-4000)}`);
  return report;
}

/** Failures of scripts/fuzz/known-failures.json that the run met: operation and answer, with how often. */
async function knownFailures(reportDir: string, name: string): Promise<string[]> {
  const text = await fs.readFile(path.join(reportDir, `${name}.known.ndjson`), 'utf8').catch(() => '');
  const counts = new Map<string, number>();
  for (const line of text.split('\n').filter(Boolean)) {
    const { operation, status, code } = JSON.parse(line) as { operation: string; status: number; code: string };
    const key = `${operation} -> ${status} ${code}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([key, count]) => `${key} (${count})`).sort();
}

function summarize(name: string, report: RunReport, known: string[]): { passed: number; failed: number } {
  const failing = new Set(report.failures.flatMap((failure) => failure.operations));
  const errored = report.errors.reduce((sum, error) => sum + error.count, 0);
  const failed = Math.min(report.operations.tested, failing.size + errored);
  console.log(
    `${name}: ${report.operations.tested} operations, ${report.test_cases.generated} cases, ` +
      `${report.test_cases.unique_failures} unique failures, ${errored} errors, ${Math.round(report.running_time)} s`,
  );
  for (const failure of report.failures) {
    console.log(`  ${failure.code} ${failure.title}: ${failure.count} (${failure.operations.join(', ')})`);
  }
  for (const error of report.errors) console.log(`  error: ${error.title}: ${error.count}`);
  if (known.length) console.log(`  known, filed against other parts (scripts/fuzz/known-failures.json):\n    ${known.join('\n    ')}`);
  return { passed: report.operations.tested - failed, failed };
}

async function main(): Promise<number> {
  const st = await ensureSchemathesis();
  const reportDir = path.resolve('.cache', 'fuzz', new Date().toISOString().replace(/[:.]/g, '-'));
  await fs.mkdir(reportDir, { recursive: true });
  await fs.writeFile(path.join(reportDir, 'schemathesis.toml'), config);
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'cms-fuzz-'));
  console.log(`schemathesis ${SCHEMATHESIS_VERSION}: phases ${phases}, ${examples} cases per operation, ${scenarios} stateful scenarios, seed ${seed}`);
  console.log(`replay: ${replay}`);
  const service = await startService(dataDir, path.join(reportDir, 'service.log'));
  const stopOnSignal = () => void service.stop().finally(() => process.exit(130));
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);
  const totals = { passed: 0, failed: 0 };
  try {
    // Both identities at once: each schemathesis process spends most of its time generating cases,
    // on one core, while the service waits for it.
    const runs = (await identities(service)).map(async (identity) => ({ identity, report: await fuzzAs(identity, service, st, reportDir) }));
    for (const { identity, report } of await Promise.all(runs)) {
      const outcome = summarize(identity.name, report, await knownFailures(reportDir, identity.name));
      totals.passed += outcome.passed;
      totals.failed += outcome.failed;
    }
  } finally {
    await service.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
  console.log(`reports and logs: ${path.relative(process.cwd(), reportDir)}`);
  if (totals.failed > 0) console.log(`seed ${seed}; replay: ${replay}`);
  console.log(`${totals.passed} passed, ${totals.failed} failed`);
  return totals.failed > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);

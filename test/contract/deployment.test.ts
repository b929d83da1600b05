// The production topology (docs/operations.md, Running several nodes) as files: nothing runs Docker here, so
// docker-compose.yml is validated against the Compose Specification's JSON Schema, and the facts
// the topology rests on are checked as data: a three-member replica set and its initiation, every
// node's connection string asking for majority writes and reads on the primary, settings the
// service really reads, an image built once from the Dockerfile and run as built under an init.
//
// test/support/compose-spec.json is the Compose Specification's schema/compose-spec.json
// (The Compose Specification, Copyright 2020 The Compose Specification Authors; Apache License
// 2.0, test/support/compose-spec.LICENSE), as the npm package dclint 3.1.0 ships it
// (schemas/compose.schema.json).
import fs from 'node:fs';
import { Ajv } from 'ajv';
import { ConnectionString } from 'mongodb-connection-string-url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { parse as parseYaml } from 'yaml';

/** What a YAML document holds once parsed (YAML 1.2's core schema). */
type YamlValue = string | number | boolean | null | YamlValue[] | { [key: string]: YamlValue };
type Mapping = { [key: string]: YamlValue };
interface Instruction {
  readonly keyword: string;
  readonly args: string;
}

const read = (file: string) => fs.readFileSync(file, 'utf8');
const isMapping = (value: YamlValue | undefined): value is Mapping => typeof value === 'object' && value !== null && !Array.isArray(value);
const mappingOf = (value: YamlValue | undefined): Mapping => (isMapping(value) ? value : {});

function validateCompose(): (file: YamlValue) => string[] {
  // The schema names its draft by an address Ajv does not list (draft-07 without `#`); Ajv's
  // default is draft-07. Not strict: the schema is Compose's, written for Compose's validator.
  const { $schema: _draft, ...schema } = JSON.parse(read('test/support/compose-spec.json')) as Record<string, unknown>;
  const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
  return (file) => (validate(file) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message} ${JSON.stringify(error.params)}`));
}

/** The service's own settings: every name config.ts reads from the environment. */
function settingsTheServiceReads(): Set<string> {
  const source = read('src/config.ts');
  return new Set([...source.matchAll(/\benv(?:\.([A-Z_]+)|, '([A-Z_]+)')/g)].map((match) => match[1] ?? match[2]));
}

/** A node's environment as the container sees it: Compose's `${NAME:-default}` with no NAME set. */
function environmentOf(node: Mapping): Record<string, string> {
  const entries = Object.entries(mappingOf(node.environment)).map(([name, value]) => [name, String(value ?? '').replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1')]);
  return Object.fromEntries(entries);
}

/** A Compose duration (`30s`, `1m30s`, `1500ms`) in milliseconds. */
function durationMs(value: YamlValue | undefined): number {
  const text = String(value ?? '');
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s|us)/g)];
  if (!parts.length || parts.map((part) => part[0]).join('') !== text) throw new Error(`not a duration: ${text}`);
  const unit = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001 } as const;
  return parts.reduce((sum, [, amount, name]) => sum + Number(amount) * unit[name as keyof typeof unit], 0);
}

function commandText(service: Mapping): string {
  return [service.entrypoint, service.command].flat().filter((part) => part !== undefined && part !== null).join(' ');
}

/** Dockerfile instructions by stage, continuation lines joined and comments dropped. */
function dockerfileStages(source: string): Instruction[][] {
  const stages: Instruction[][] = [];
  const logical = source.replace(/\\\r?\n(\s*#.*\r?\n)*/g, ' ').split(/\r?\n/);
  for (const line of logical.map((text) => text.trim()).filter((text) => text && !text.startsWith('#'))) {
    const [, keyword, args] = /^(\S+)\s*(.*)$/.exec(line)!;
    const instruction = { keyword: keyword.toUpperCase(), args };
    if (instruction.keyword === 'FROM') stages.push([]);
    if (instruction.keyword !== 'ARG' || stages.length) stages.at(-1)!.push(instruction);
  }
  return stages;
}

const execForm = (instruction: Instruction | undefined) => (instruction ? (JSON.parse(instruction.args) as string[]) : undefined);

function describeTopology(compose: YamlValue) {
  const services = mappingOf(mappingOf(compose).services);
  const entries = Object.entries(services).map(([name, value]) => [name, mappingOf(value)] as const);
  const members = entries.filter(([, service]) => String(service.image ?? '').startsWith('mongo:') && commandText(service).includes('--replSet'));
  const initiators = entries.filter(([, service]) => /\bmongosh\b/.test(commandText(service)) && service.restart === 'no');
  const nodes = entries.filter(([, service]) => mappingOf(service.environment).MONGODB_URI !== undefined);
  return { services, entries, members, initiators, nodes };
}

describe('docker-compose.yml', () => {
  const compose = parseYaml(read('docker-compose.yml'), { uniqueKeys: true }) as YamlValue;
  const { entries, members, initiators, nodes, services } = describeTopology(compose);

  it('is a valid Compose file by the Compose Specification schema, which refuses what Compose would', () => {
    const validate = validateCompose();
    expect(validate(compose)).toEqual([]);
    // The schema is not vacuous: a misspelt key, a bad dependency condition, a mapping for a command.
    expect(validate({ services: { a: { image: 'x', stop_grace_periode: '30s' } } })).not.toEqual([]);
    expect(validate({ services: { a: { image: 'x', depends_on: { b: { condition: 'service_ready' } } }, b: { image: 'y' } } })).not.toEqual([]);
    expect(validate({ services: { a: { image: 'x', command: { run: 'npm start' } } } })).not.toEqual([]);
  });

  it('runs a MongoDB replica set of three members, each checked for health, and initiates it once', () => {
    expect(members.map(([name]) => name)).toHaveLength(3);
    for (const [, member] of members) {
      expect(commandText(member)).toMatch(/--replSet rs0\b/);
      expect(mappingOf(member.healthcheck).test).toBeDefined();
    }
    expect(initiators).toHaveLength(1);
    const [[, initiator]] = initiators;
    expect(Object.keys(mappingOf(initiator.depends_on)).sort()).toEqual(members.map(([name]) => name).sort());
    for (const dependency of Object.values(mappingOf(initiator.depends_on))) expect(mappingOf(dependency).condition).toBe('service_healthy');
    // The script it runs is mounted from the repository: it initiates rs0 with every member, only when not yet initiated, and waits for a primary.
    const mounts = (initiator.volumes as string[]).map((volume) => volume.split(':'));
    const script = mounts.find(([, target]) => commandText(initiator).includes(target));
    expect(script, 'the initiation script is mounted from the repository').toBeDefined();
    const source = read(script![0]);
    expect(source).toContain('rs.initiate(');
    expect(source).toContain('NotYetInitialized');
    expect(source).toContain("'PRIMARY'");
    for (const [name] of members) expect(source).toContain(`'${name}:27017'`);
  });

  it('gives every service node a connection string to the whole set with majority writes and reads from the primary', () => {
    expect(nodes.length).toBeGreaterThan(0);
    for (const [name, node] of nodes) {
      const uri = new ConnectionString(String(mappingOf(node.environment).MONGODB_URI));
      expect(uri.hosts.sort(), name).toEqual(members.map(([member]) => `${member}:27017`).sort());
      const options = Object.fromEntries(uri.searchParams);
      expect(options, name).toMatchObject({ replicaSet: 'rs0', w: 'majority', readConcernLevel: 'majority', readPreference: 'primary', retryWrites: 'true' });
      expect(mappingOf(mappingOf(node.depends_on)[initiators[0]?.[0] ?? '']).condition, name).toBe('service_completed_successfully');
    }
  });

  it('runs three nodes of the image built from the Dockerfile, as built, behind a proxy, none on a host port', () => {
    const replicas = nodes.reduce((sum, [, node]) => sum + Number(mappingOf(node.deploy).replicas ?? 1), 0);
    expect(replicas).toBe(3);
    for (const [name, node] of nodes) {
      const build = mappingOf(node.build);
      expect({ context: build.context, dockerfile: build.dockerfile ?? 'Dockerfile' }, name).toEqual({ context: '.', dockerfile: 'Dockerfile' });
      expect(node.command, `${name} runs the image's own command`).toBeUndefined();
      expect(node.entrypoint, name).toBeUndefined();
      expect(node.ports, name).toBeUndefined();
    }
    for (const [name, service] of entries) expect(commandText(service), name).not.toMatch(/\bnpm (ci|install|i|run|start)\b|\bnpx\b/);
    const proxies = entries.filter(([, service]) => Array.isArray(service.ports) && service.ports.length);
    expect(proxies.map(([name]) => name)).toEqual(['proxy']);
    const config = (mappingOf(services.proxy).volumes as string[]).map((volume) => volume.split(':')[0]).find((file) => file.endsWith('.cfg'));
    const haproxy = read(config!);
    // Each node is checked on its health route, and the proxy balances over all of them.
    expect(haproxy).toMatch(/http-check send meth GET uri \/readyz/);
    for (const [name] of nodes) expect(haproxy).toMatch(new RegExp(`server-template \\w+ 3 ${name}:8080 check`));
  });

  it("sets only settings the service reads, which it accepts, listening on every interface behind trusted proxies, and stops within Compose's grace", () => {
    const known = settingsTheServiceReads();
    for (const [name, node] of nodes) {
      const environment = mappingOf(node.environment);
      expect(Object.keys(environment).filter((setting) => !known.has(setting)), name).toEqual([]);
      expect(environment, name).toMatchObject({ HOST: '0.0.0.0' });
      for (const setting of ['CMS_TRUSTED_PROXIES', 'CMS_SHUTDOWN_TIMEOUT_MS', 'CMS_DATABASE_TIMEOUT_MS']) expect(environment[setting], `${name} ${setting}`).toBeDefined();
      expect(durationMs(node.stop_grace_period), name).toBeGreaterThan(Number(environment.CMS_SHUTDOWN_TIMEOUT_MS) + Number(environment.CMS_DRAIN_MS ?? 0));
      // The service itself accepts them: its start refuses a URI asking for less than majority.
      const config = loadConfig(environmentOf(node));
      expect(config.mongodbUri, name).toBe(environment.MONGODB_URI);
      expect(config.shutdownTimeoutMs + config.drainMs, name).toBeLessThan(durationMs(node.stop_grace_period));
    }
  });
});

describe('Dockerfile', () => {
  const stages = dockerfileStages(read('Dockerfile'));
  const final = stages.at(-1)!;
  const all = (stage: Instruction[], keyword: string) => stage.filter((instruction) => instruction.keyword === keyword);
  const last = (stage: Instruction[], keyword: string) => all(stage, keyword).at(-1);

  it('builds in one stage and runs, in the last, what was built with production dependencies only', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const buildRuns = stages.slice(0, -1).flatMap((stage) => all(stage, 'RUN').map((run) => run.args));
    expect(buildRuns.join('\n')).toMatch(/\bnpm ci\b/);
    expect(buildRuns.join('\n')).toMatch(/\bnpm run build\b/);
    const finalRuns = all(final, 'RUN').map((run) => run.args).join('\n');
    expect(finalRuns).toMatch(/\bnpm ci --omit=dev\b/);
    expect(finalRuns).not.toMatch(/\bnpm run build\b|\btsc\b/);
    const copies = all(final, 'COPY').map((copy) => copy.args);
    expect(copies.some((copy) => /^--from=\S+ \/app\/dist \.\/dist$/.test(copy))).toBe(true);
    // What the service reads at run time beside dist/: the folders found from package.json's.
    for (const folder of ['blocks', 'schemas', 'themes', 'plugin-directory']) expect(copies, folder).toContain(`${folder} ./${folder}`);
  });

  it('runs node dist/src/main.js under tini as a user other than root, with a health check on /healthz', () => {
    expect(execForm(last(final, 'CMD'))).toEqual(['node', 'dist/src/main.js']);
    expect(execForm(last(final, 'ENTRYPOINT'))).toEqual(['/usr/bin/tini', '--']);
    expect(all(final, 'RUN').map((run) => run.args).join('\n')).toMatch(/apt-get install .*\btini\b/);
    expect(last(final, 'USER')?.args).toMatch(/^(?!root\b|0\b)\S+$/);
    expect(last(final, 'HEALTHCHECK')?.args).toMatch(/\/healthz/);
  });

  it('is built from a context without the checkout\'s dependencies and build output', () => {
    const ignored = read('.dockerignore').split(/\r?\n/).map((line) => line.trim());
    for (const entry of ['node_modules', 'dist', '.git']) expect(ignored).toContain(entry);
  });
});

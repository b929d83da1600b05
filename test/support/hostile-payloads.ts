// Hostile names and values, and how a client sends them (a query string, a form body, raw JSON):
// what test/api/hostile-input.test.ts throws at every parameter the discovery index lists.

/** An argument as the discovery index lists it. */
export interface ArgSpec {
  type?: string | string[];
  items?: { type?: string };
  required?: boolean;
}

export interface Hostile {
  label: string;
  /** The value as JSON text (`1e400` cannot be written by JSON.stringify). */
  json: string;
  /** The value in a query string or form body, as `name[key]=value` pairs. */
  pairs: (name: string) => [string, string][];
  /** Refused with a 400 wherever it is sent, whatever the parameter. */
  refused?: boolean;
}

/** A URL no webhook delivery reaches (a closed port of this machine), and no address check refuses. */
export const CLOSED_PORT_URL = 'http://127.0.0.1:9/hook';

const PROTECTED_PROTOTYPES = { Object: Object.prototype, Array: Array.prototype, Function: Function.prototype, String: String.prototype };
/** The own keys of the prototypes a hostile name could reach, to compare before and after. */
export const prototypeKeys = () => Object.fromEntries(Object.entries(PROTECTED_PROTOTYPES).map(([name, proto]) => [name, Reflect.ownKeys(proto).map(String).sort()]));

/** `name[key][...]=value` pairs, as PHP and qs read them. */
export function flatten(name: string, value: unknown): [string, string][] {
  if (Array.isArray(value)) return value.flatMap((item, i) => flatten(typeof item === 'object' && item !== null ? `${name}[${i}]` : `${name}[]`, item));
  if (typeof value === 'object' && value !== null) return Object.keys(value).flatMap((key) => flatten(`${name}[${key}]`, (value as Record<string, unknown>)[key]));
  return [[name, value === null ? '' : String(value)]];
}

export const encodeKey = (key: string) => encodeURIComponent(key).replace(/%5B/g, '[').replace(/%5D/g, ']');
export const encodePairs = (pairs: [string, string][]) => pairs.map(([key, value]) => `${encodeKey(key)}=${encodeURIComponent(value)}`).join('&');
export const withQuery = (path: string, query: string) => (query ? `${path}?${query}` : path);

function hostile(label: string, json: string, refused = false): Hostile {
  // JSON.parse keeps `__proto__` as an own key, which an object literal would not.
  return { label, json, pairs: (name) => flatten(name, JSON.parse(json)), refused };
}

export const HOSTILE_VALUES: Hostile[] = [
  hostile('{"__proto__":{"polluted":true}}', '{"__proto__":{"polluted":true}}'),
  hostile('{"constructor":{"prototype":{"polluted":true}}}', '{"constructor":{"prototype":{"polluted":true}}}'),
  hostile('{"$gt":""}', '{"$gt":""}'),
  hostile('{"$where":"sleep(100)"}', '{"$where":"sleep(100)"}'),
  hostile('[{"$gt":""}]', '[{"$gt":""}]'),
  hostile('{"a.b":1}', '{"a.b":1}'),
  hostile('"a\\u0000b"', '"a\\u0000b"', true),
  hostile('{"k\\u0000":1}', '{"k\\u0000":1}', true),
];
/** JSON's 1e400 is Infinity once parsed; the guard refuses it wherever it is. */
export const JSON_INFINITY: Hostile = { label: '1e400', json: '1e400', pairs: (name) => [[name, '1e400']], refused: true };

/** Client-chosen top-level names, in a query string or a form body. */
export const HOSTILE_NAMES: [string, string][][] = [
  [['__proto__[force]', '1']],
  [['__proto__[polluted]', '1'], ['__proto__[id]', '1']],
  [['constructor[prototype][force]', '1']],
  [['prototype[force]', '1']],
];
/** The same as whole JSON bodies. */
export const HOSTILE_BODIES = [
  '{"__proto__":{"force":true}}',
  '{"constructor":{"prototype":{"force":true}}}',
  '{"prototype":{"force":true}}',
  '{"__proto__":{"id":1,"polluted":true}}',
];
export const HOSTILE_FIELDS = [
  '_fields=__proto__.force',
  '_fields=constructor.prototype',
  '_fields=__proto__.id',
  '_fields=__proto__',
  '_fields=id,__proto__.polluted',
  '_fields[]=constructor.prototype.polluted',
  '_embed=__proto__',
  '_embed=constructor',
  '_embed=1&_fields=_embedded.__proto__.polluted',
];

export const isNumeric = (arg: ArgSpec) =>
  arg.type === 'integer' || arg.type === 'number' || (arg.type === 'array' && (arg.items?.type === 'integer' || arg.items?.type === 'number'));


let unique = 0;

/** Values for the required arguments an endpoint lists, so a hostile value is the request's only fault. */
export function baseValues(args: Record<string, ArgSpec>, except: string, method: string): Record<string, string | boolean> {
  const n = ++unique;
  const values: Record<string, string | boolean> = Object.create(null);
  const known: Record<string, string | boolean> = {
    username: `hostile_${n}`,
    email: `hostile${n}@example.test`,
    password: 'hostile-password',
    name: `Hostile ${n}`,
    slug: `hostile-${n}`,
    reassign: method === 'DELETE' ? 'false' : false,
    sidebar: 'cms_inactive_widgets',
    // An empty batch (`""` is an empty list in a query string or form), so the other arguments are the fault.
    requests: '',
    url: CLOSED_PORT_URL,
    position: '1',
    // A scheduled change's time: far ahead, so the scheduler never applies what a request left.
    date_gmt: '2099-01-01T00:00:00',
  };
  for (const [name, spec] of Object.entries(args)) {
    if (!spec.required || name === except) continue;
    if (!(name in known)) throw new Error(`no base value for the required argument ${name}`);
    values[name] = known[name];
  }
  return values;
}

export const basePairs = (args: Record<string, ArgSpec>, method: string, except = ''): [string, string][] =>
  Object.entries(baseValues(args, except, method)).map(([key, value]) => [key, String(value)]);

/** Runs `work` over `items`, a few at a time: the answers, not their order, are under test. */
export async function eachLimited<T>(items: readonly T[], work: (item: T) => Promise<void>, limit = 4): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: limit }, async () => {
    while (next < items.length) await work(items[next++]);
  }));
}

// Reads the YAML the deployment files are written in, for the tests that check them; no YAML
// library is among the project's dependencies. It knows a strict subset: block mappings and
// sequences (a sequence may sit at its key's indentation), plain, single- and double-quoted
// scalars, one-line flow sequences of scalars, and comments. Anything else (anchors, aliases,
// tags, block scalars, flow mappings, several documents, tabs) is refused with its line, so a
// file this reader cannot follow fails the test rather than being read differently from Docker.

export type YamlValue = string | number | boolean | null | YamlValue[] | { [key: string]: YamlValue };

interface Line {
  readonly number: number;
  readonly indent: number;
  readonly text: string;
}

export class YamlSubsetError extends Error {
  constructor(line: Line | undefined, message: string) {
    super(line ? `line ${line.number}: ${message}: ${line.text}` : message);
  }
}

export function parseYamlSubset(source: string): YamlValue {
  const lines: Line[] = [];
  source.split(/\r?\n/).forEach((raw, index) => {
    const line = { number: index + 1, indent: raw.length - raw.trimStart().length, text: raw.trim() };
    if (/^[ ]*\t/.test(raw)) throw new YamlSubsetError(line, 'a tab in the indentation');
    if (!line.text || line.text.startsWith('#')) return;
    if (line.text === '---' || line.text === '...') throw new YamlSubsetError(line, 'a document marker');
    lines.push(line);
  });
  if (!lines.length) return null;
  const reader = { lines, next: 0 };
  const value = readBlock(reader, lines[0].indent);
  if (reader.next < lines.length) throw new YamlSubsetError(lines[reader.next], 'unexpected indentation');
  return value;
}

interface Reader {
  readonly lines: Line[];
  next: number;
}

const isItem = (line: Line) => line.text === '-' || line.text.startsWith('- ');
/** `key:` or `key: value`, the key a plain word as Compose writes them. */
const KEY_LINE = /^([A-Za-z0-9_.$/-]+):(?:\s+(.*))?$/;

function readBlock(reader: Reader, indent: number): YamlValue {
  return isItem(reader.lines[reader.next]) ? readSequence(reader, indent) : readMapping(reader, indent);
}

function readSequence(reader: Reader, indent: number): YamlValue[] {
  const items: YamlValue[] = [];
  for (let line = reader.lines[reader.next]; line && line.indent === indent && isItem(line); line = reader.lines[reader.next]) {
    const content = line.text.slice(1).trimStart();
    if (!content) {
      reader.next += 1;
      items.push(readNested(reader, indent, line));
    } else if (KEY_LINE.test(content) && !/^["'[]/.test(content)) {
      // `- key: value` opens a mapping whose keys line up with `key`.
      const keyIndent = line.indent + (line.text.length - content.length);
      reader.lines[reader.next] = { number: line.number, indent: keyIndent, text: content };
      items.push(readMapping(reader, keyIndent));
    } else {
      reader.next += 1;
      items.push(scalar(content, line));
    }
  }
  return items;
}

function readMapping(reader: Reader, indent: number): { [key: string]: YamlValue } {
  const mapping: { [key: string]: YamlValue } = {};
  for (let line = reader.lines[reader.next]; line && line.indent === indent && !isItem(line); line = reader.lines[reader.next]) {
    const match = KEY_LINE.exec(line.text);
    if (!match) throw new YamlSubsetError(line, 'not a `key: value` line');
    const [, key, rest] = match;
    if (Object.hasOwn(mapping, key) || key === '__proto__') throw new YamlSubsetError(line, `a repeated or reserved key "${key}"`);
    reader.next += 1;
    const after = rest === undefined ? '' : stripComment(rest, line);
    if (after) {
      mapping[key] = scalar(after, line);
      continue;
    }
    const following = reader.lines[reader.next];
    // A sequence may sit at its key's own indentation.
    mapping[key] = following && following.indent === indent && isItem(following) ? readSequence(reader, indent) : readNested(reader, indent, line);
  }
  return mapping;
}

/** The block under a line that opened one, or null when nothing is indented under it. */
function readNested(reader: Reader, indent: number, opener: Line): YamlValue {
  const following = reader.lines[reader.next];
  if (!following || following.indent <= indent) return null;
  const value = readBlock(reader, following.indent);
  const after = reader.lines[reader.next];
  if (after && after.indent > indent && after.indent !== following.indent) throw new YamlSubsetError(after, `indentation that matches nothing under line ${opener.number}`);
  return value;
}

function stripComment(text: string, line: Line): string {
  if (text.startsWith('"') || text.startsWith("'") || text.startsWith('[')) return text;
  const comment = text.search(/\s#/);
  if (text.startsWith('#')) throw new YamlSubsetError(line, 'a value that starts with #');
  return (comment < 0 ? text : text.slice(0, comment)).trimEnd();
}

function scalar(raw: string, line: Line): YamlValue {
  const text = stripComment(raw, line);
  if (text.startsWith('[')) return flowSequence(text, line);
  if (text.startsWith('"') || text.startsWith("'")) {
    const { value, end } = quoted(text, 0, line);
    if (!/^\s*(#.*)?$/.test(text.slice(end))) throw new YamlSubsetError(line, 'text after a quoted value');
    return value;
  }
  if (/^[&*!|>{%@`]/.test(text)) throw new YamlSubsetError(line, 'YAML this reader does not know (anchor, alias, tag, block scalar, flow mapping)');
  if (text === 'null' || text === '~') return null;
  if (text === 'true' || text === 'false') return text === 'true';
  if (/^-?(0|[1-9]\d*)(\.\d+)?$/.test(text)) return Number(text);
  if (/:(\s|$)/.test(text)) throw new YamlSubsetError(line, 'a plain value with ": " in it: quote it');
  if (/^(yes|no|on|off)$/i.test(text)) throw new YamlSubsetError(line, `"${text}" is a boolean to some YAML readers: quote it`);
  return text;
}

function flowSequence(text: string, line: Line): string[] {
  const items: string[] = [];
  let at = 1;
  const skipSpaces = () => {
    while (text[at] === ' ') at += 1;
  };
  skipSpaces();
  if (text[at] === ']') return finishFlow(text, at + 1, items, line);
  for (;;) {
    skipSpaces();
    if (text[at] !== '"' && text[at] !== "'") throw new YamlSubsetError(line, 'a flow sequence item that is not quoted');
    const { value, end } = quoted(text, at, line);
    items.push(value);
    at = end;
    skipSpaces();
    if (text[at] === ']') return finishFlow(text, at + 1, items, line);
    if (text[at] !== ',') throw new YamlSubsetError(line, 'a flow sequence without , or ]');
    at += 1;
  }
}

function finishFlow(text: string, end: number, items: string[], line: Line): string[] {
  if (!/^\s*(#.*)?$/.test(text.slice(end))) throw new YamlSubsetError(line, 'text after a flow sequence');
  return items;
}

/** A quoted scalar starting at `start`: single quotes double to escape one; double quotes take JSON's escapes. */
function quoted(text: string, start: number, line: Line): { value: string; end: number } {
  const quote = text[start];
  let at = start + 1;
  while (at < text.length) {
    if (quote === "'" && text[at] === "'" && text[at + 1] === "'") at += 2;
    else if (quote === '"' && text[at] === '\\') at += 2;
    else if (text[at] === quote) break;
    else at += 1;
  }
  if (at >= text.length) throw new YamlSubsetError(line, 'an unclosed quote');
  const body = text.slice(start + 1, at);
  if (quote === "'") return { value: body.replaceAll("''", "'"), end: at + 1 };
  if (/\\[^"\\/bfnrtu]/.test(body)) throw new YamlSubsetError(line, 'an escape JSON does not share with YAML');
  return { value: JSON.parse(`"${body}"`) as string, end: at + 1 };
}

import net from 'node:net';
import { BSON } from 'mongodb';

/**
 * A TCP proxy in front of one database server that speaks MongoDB's wire protocol, for tests of
 * what the service answers when the database fails over: it holds all traffic (an election), loses
 * the reply to one command and then refuses connections for a while (an acknowledgement lost as
 * the primary goes away), answers writes as a stepped-down primary would, or slows commands.
 *
 * Messages are framed by their standard header (int32 length, requestID, responseTo, opCode, all
 * little-endian); only OP_MSG requests are read, so that a rule can name a command. Anything else
 * (the legacy handshake, compressed messages) is forwarded as it is.
 */

/** A command as the proxy reads it from an OP_MSG request's body section. */
export interface WireCommand {
  /** The body's first key: `insert`, `find`, `hello`… */
  readonly name: string;
  /** That key's value: the collection, for commands on one. */
  readonly collection: unknown;
  readonly body: BSON.Document;
}

export type CommandMatch = (command: WireCommand) => boolean;

export interface FaultProxy {
  /** `mongodb://127.0.0.1:<port>/`: the database, through the proxy. */
  readonly uri: string;
  readonly port: number;
  /** Holds every message both ways, and new connections, until `resume`. */
  pause(): void;
  resume(): void;
  /**
   * Forwards the next request `match` accepts, drops its reply, closes every client connection,
   * and then refuses new connections for `refuseForMs` (0: none). Resolves with the command once
   * its reply was lost.
   */
  loseReplyTo(match: CommandMatch, then?: { refuseForMs?: number }): Promise<WireCommand>;
  /** For `ms`, answers every write command with MongoDB's `NotWritablePrimary` error, without forwarding it. */
  refuseWrites(ms: number): void;
  /** Delays each request `match` accepts by `ms` before forwarding it; returns the way to stop. */
  slow(match: CommandMatch, ms: number): () => void;
  close(): Promise<void>;
}

const HEADER_BYTES = 16;
const OP_MSG = 2013;
/** OP_MSG flag bits: a CRC-32C checksum ends the message; the sender expects no reply. */
const CHECKSUM_PRESENT = 1;
const MORE_TO_COME = 2;
/** MongoDB's answer to a write sent to a member that is not (or no longer) primary. */
const NOT_WRITABLE_PRIMARY = { ok: 0, errmsg: 'not primary', code: 10107, codeName: 'NotWritablePrimary' };
const WRITE_COMMANDS = new Set(['insert', 'update', 'delete', 'findAndModify']);

/** Cuts a byte stream into whole messages by their length prefix. */
class Framer {
  private pending: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): Buffer[] {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    const messages: Buffer[] = [];
    while (this.pending.length >= 4) {
      const length = this.pending.readInt32LE(0);
      if (this.pending.length < length) break;
      messages.push(this.pending.subarray(0, length));
      this.pending = this.pending.subarray(length);
    }
    return messages;
  }
}

interface Header {
  requestId: number;
  responseTo: number;
  opCode: number;
}

const headerOf = (message: Buffer): Header => ({ requestId: message.readInt32LE(4), responseTo: message.readInt32LE(8), opCode: message.readInt32LE(12) });

/** The command an OP_MSG request carries in its body section (kind 0), or undefined. */
export function readCommand(message: Buffer): WireCommand | undefined {
  if (headerOf(message).opCode !== OP_MSG) return undefined;
  const flags = message.readUInt32LE(HEADER_BYTES);
  const end = message.length - (flags & CHECKSUM_PRESENT ? 4 : 0);
  let offset = HEADER_BYTES + 4;
  while (offset < end) {
    const kind = message[offset];
    const size = message.readInt32LE(offset + 1);
    if (kind === 0) {
      const body = BSON.deserialize(message.subarray(offset + 1, offset + 1 + size));
      const name = Object.keys(body)[0] ?? '';
      return { name, collection: body[name], body };
    }
    // Kind 1, a document sequence: its size counts itself, its identifier and its documents.
    offset += 1 + size;
  }
  return undefined;
}

/** An OP_MSG reply to `requestId` carrying `body`. */
function replyTo(requestId: number, body: BSON.Document): Buffer {
  const document = Buffer.from(BSON.serialize(body));
  const message = Buffer.alloc(HEADER_BYTES + 4 + 1 + document.length);
  message.writeInt32LE(message.length, 0);
  message.writeInt32LE(0, 4);
  message.writeInt32LE(requestId, 8);
  message.writeInt32LE(OP_MSG, 12);
  message.writeUInt32LE(0, HEADER_BYTES);
  message.writeUInt8(0, HEADER_BYTES + 4);
  document.copy(message, HEADER_BYTES + 5);
  return message;
}

interface LossRule {
  match: CommandMatch;
  refuseForMs: number;
  lost(command: WireCommand): void;
}

/** Starts a proxy on 127.0.0.1 (a free port) to the server at `target` (`host:port`). */
export async function startFaultProxy(target: { host: string; port: number }): Promise<FaultProxy> {
  const connections = new Set<{ client: net.Socket; server: net.Socket }>();
  const timers = new Set<NodeJS.Timeout>();
  let held: Promise<void> | undefined;
  let release = () => {};
  let refusingUntil = 0;
  let refusingWritesUntil = 0;
  let loss: LossRule | undefined;
  const slowRules = new Set<{ match: CommandMatch; ms: number }>();
  let closed = false;

  /** A timer the proxy clears when it closes. */
  const later = (ms: number, run: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      run();
    }, ms);
    timers.add(timer);
  };
  const sleep = (ms: number) => new Promise<void>((resolve) => later(ms, resolve));

  function connect(client: net.Socket): void {
    if (closed || performance.now() < refusingUntil) {
      client.destroy();
      return;
    }
    const server = net.connect(target.port, target.host);
    const connection = { client, server };
    connections.add(connection);
    // What one side sent that the other has not been given yet; each side's messages in order.
    let toServer = Promise.resolve();
    let toClient = Promise.resolve();
    // The requests whose replies are to be lost, with their rule, until the replies come.
    const losing = new Map<number, { rule: LossRule; command: WireCommand }>();
    const end = () => {
      connections.delete(connection);
      client.destroy();
      server.destroy();
    };
    client.on('error', end).on('close', end);
    server.on('error', end).on('close', end);

    const requests = new Framer();
    client.on('data', (chunk: Buffer) => {
      for (const message of requests.push(chunk)) toServer = toServer.then(() => forwardRequest(message));
    });
    const replies = new Framer();
    server.on('data', (chunk: Buffer) => {
      for (const message of replies.push(chunk)) toClient = toClient.then(() => forwardReply(message));
    });

    async function forwardRequest(message: Buffer): Promise<void> {
      await held;
      const command = readCommand(message);
      if (command) {
        for (const rule of slowRules) if (rule.match(command)) await sleep(rule.ms);
        const { requestId } = headerOf(message);
        if (performance.now() < refusingWritesUntil && WRITE_COMMANDS.has(command.name)) {
          if (!(message.readUInt32LE(HEADER_BYTES) & MORE_TO_COME)) client.write(replyTo(requestId, NOT_WRITABLE_PRIMARY));
          return;
        }
        if (loss?.match(command)) {
          const rule = loss;
          loss = undefined;
          losing.set(requestId, { rule, command });
        }
      }
      if (!server.destroyed) server.write(message);
    }

    async function forwardReply(message: Buffer): Promise<void> {
      await held;
      const { responseTo } = headerOf(message);
      const lost = losing.get(responseTo);
      if (lost) {
        // The database did the work; the client never hears of it, and the database goes away.
        losing.delete(responseTo);
        refusingUntil = performance.now() + lost.rule.refuseForMs;
        for (const each of [...connections]) {
          each.client.destroy();
          each.server.destroy();
        }
        lost.rule.lost(lost.command);
        return;
      }
      if (!client.destroyed) client.write(message);
    }
  }

  const listener = net.createServer(connect);
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (listener.address() as net.AddressInfo).port;

  return {
    uri: `mongodb://127.0.0.1:${port}/`,
    port,
    pause() {
      held ??= new Promise<void>((resolve) => {
        release = resolve;
      });
    },
    resume() {
      held = undefined;
      release();
    },
    loseReplyTo(match, then = {}) {
      return new Promise<WireCommand>((resolve) => {
        loss = { match, refuseForMs: then.refuseForMs ?? 0, lost: resolve };
      });
    },
    refuseWrites(ms) {
      refusingWritesUntil = performance.now() + ms;
    },
    slow(match, ms) {
      const rule = { match, ms };
      slowRules.add(rule);
      return () => slowRules.delete(rule);
    },
    async close() {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      held = undefined;
      release();
      for (const { client, server } of connections) {
        client.destroy();
        server.destroy();
      }
      connections.clear();
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    },
  };
}

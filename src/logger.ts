import { pino, type Logger } from 'pino';
import pinoPretty from 'pino-pretty';
import { type LogFormat, type LogLevel } from './config.js';

export type { Logger };

/** Whether the log is read by a person: LOG_FORMAT says so, or, left to `auto`, stdout is a terminal. */
export function logsForPeople(format: LogFormat): boolean {
  return format === 'pretty' || (format === 'auto' && process.stdout.isTTY === true);
}

export function createLogger(level: LogLevel, format: LogFormat = 'json'): Logger {
  const options = {
    level,
    // Credentials never reach the log, whatever a caller passes in.
    redact: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]', 'password', '*.password'],
  };
  if (!logsForPeople(format)) return pino(options);
  // Written at once: a line said before a long synchronous step (building FerretDB) shows before it.
  return pino(options, pinoPretty({ sync: true, colorize: process.stdout.isTTY === true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' }));
}

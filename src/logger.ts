import { pino, type Logger } from 'pino';
import { type LogLevel } from './config.js';

export type { Logger };

export function createLogger(level: LogLevel): Logger {
  return pino({
    level,
    // Credentials never reach the log, whatever a caller passes in.
    redact: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]', 'password', '*.password'],
  });
}

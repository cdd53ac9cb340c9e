import pino, { type Logger } from "pino";

export type { Logger };

/** Paths never written to logs, wherever they appear in a log object. */
export const REDACT_PATHS = [
  "password",
  "*.password",
  "*.*.password",
  "new_password",
  "old_password",
  "*.new_password",
  "*.old_password",
  "api_key",
  "*.api_key",
  "*.*.api_key",
  "key",
  "*.key",
  "apiKey",
  "*.apiKey",
  "authorization",
  "*.authorization",
  "headers.authorization",
  "req.headers.authorization",
];

export function createLogger(
  service: string,
  level = process.env.LOG_LEVEL ?? "info",
  destination?: pino.DestinationStream,
): Logger {
  const options: pino.LoggerOptions = {
    name: service,
    level,
    base: { service },
    redact: { paths: REDACT_PATHS, censor: "[redacted]" },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
}

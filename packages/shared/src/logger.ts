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

const LEVEL_METHODS = new Set(["fatal", "error", "warn", "info", "debug", "trace"]);
const dropped = (): void => undefined;

/**
 * `parent.child(bindings)`, made when first written to. pino serializes a
 * child's bindings (redaction included) as it makes it, and most requests log
 * nothing: a child made for each request was a measurable share of the
 * gateway's and notifications' CPU while they delivered events
 * (docs/adr/0029-lazy-request-loggers.md). A call at a level it does
 * not write returns at once, without making the child.
 */
export function lazyChild(parent: Logger, bindings: pino.Bindings): Logger {
  let child: Logger | undefined;
  const made = () => (child ??= parent.child(bindings));
  return new Proxy(parent, {
    get(target, prop) {
      if (typeof prop === "string" && LEVEL_METHODS.has(prop)) {
        if (!(child ?? target).isLevelEnabled(prop)) return dropped;
        return (...args: unknown[]) => (made()[prop as pino.Level] as (...a: unknown[]) => void)(...args);
      }
      if (prop === "child") return (...args: Parameters<Logger["child"]>) => made().child(...args);
      const logger = made();
      const value: unknown = Reflect.get(logger, prop, logger);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(logger) : value;
    },
    set(_target, prop, value) {
      return Reflect.set(made(), prop, value);
    },
  });
}

/**
 * A request's logger (lazyChild) writes what a pino child would, and is only
 * made when a line is written: a request that logs nothing costs no child.
 */
import { createLogger, lazyChild } from "../src/logger";

function logger(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const parent = createLogger("t", level, { write: (l: string) => void lines.push(JSON.parse(l)) });
  let children = 0;
  const child = parent.child;
  // unbound: pino's children inherit it, and a child's child must be made from the child
  parent.child = function (this: typeof parent, ...args: Parameters<typeof child>) {
    children++;
    return child.apply(this, args);
  } as typeof parent.child;
  return { parent, lines, children: () => children };
}

it("makes no child for lines below the level, nor for being asked whether it can make one", () => {
  const { parent, lines, children } = logger("warn");
  const log = lazyChild(parent, { requestId: "r1" });
  log.debug({ ms: 1 }, "handled");
  log.info("handled");
  // Fastify checks each request's logger has these
  expect(typeof log.child).toBe("function");
  expect(lines).toEqual([]);
  expect(children()).toBe(0);
});

it("writes lines at the level with its bindings, through one child", () => {
  const { parent, lines, children } = logger("info");
  const log = lazyChild(parent, { requestId: "r1", subject: "s.x" });
  log.info({ ms: 2 }, "handled");
  log.warn("slow request");
  expect(lines.map(({ requestId, subject, msg, ms }) => ({ requestId, subject, msg, ms }))).toEqual([
    { requestId: "r1", subject: "s.x", msg: "handled", ms: 2 },
    { requestId: "r1", subject: "s.x", msg: "slow request", ms: undefined },
  ]);
  expect(children()).toBe(1);
});

it("redacts credentials in its bindings and lines", () => {
  const { parent, lines } = logger("info");
  lazyChild(parent, { requestId: "r1", api_key: "k1" }).error({ password: "p1" }, "failed");
  expect(JSON.stringify(lines)).not.toMatch(/k1|p1/);
  expect(lines[0]).toMatchObject({ requestId: "r1", api_key: "[redacted]", password: "[redacted]" });
});

it("gives children carrying both bindings, and follows a level set on it", () => {
  const { parent, lines } = logger("warn");
  const log = lazyChild(parent, { requestId: "r1" });
  log.child({ step: "two" }).warn("x");
  log.level = "debug";
  log.debug("y");
  expect(lines.map(({ requestId, step, msg }) => ({ requestId, step, msg }))).toEqual([
    { requestId: "r1", step: "two", msg: "x" },
    { requestId: "r1", step: undefined, msg: "y" },
  ]);
  expect(parent.level).toBe("warn");
});

/**
 * freePort hands out ports outside the kernel's ephemeral range, which outgoing connections take
 * their local ports from: a server restarted on its port must find it still free.
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { freePort } from "../lib/infra";

const ephemeralLow = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);

it("gives distinct ports below the ephemeral range, each one a server can bind", async () => {
  const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
  expect(new Set(ports).size).toBe(20);
  for (const port of ports) expect(port).toBeLessThan(ephemeralLow);
  const srv = createServer();
  await new Promise<void>((res, rej) => srv.once("error", rej).listen(ports[0], "0.0.0.0", res));
  await new Promise((res) => srv.close(res));
});

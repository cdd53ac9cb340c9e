/**
 * The balancer `npm start -- --instances N` puts on the public port: it takes
 * turns between the gateways, skips one that refuses connections (stopped or
 * restarting), and closes the client's connection only when none accepts.
 */
import { createServer, type Server } from "node:http";
import { freePort } from "../lib/infra";
import { startBalancer, type Balancer } from "../lib/balancer";

/** An HTTP server answering its own name, as a gateway instance stands in for here. */
async function backend(name: string): Promise<{ port: number; server: Server }> {
  const port = await freePort();
  const server = createServer((_req, res) => res.end(name));
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return { port, server };
}
const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

/** One request on a fresh connection (the balancer picks a gateway per connection). */
const ask = async (port: number) =>
  (await fetch(`http://127.0.0.1:${port}/`, { headers: { connection: "close" } })).text();

let balancer: Balancer | undefined;
afterEach(() => balancer?.close());

it("takes turns between the gateways, one per connection", async () => {
  const a = await backend("a");
  const b = await backend("b");
  balancer = await startBalancer({ host: "127.0.0.1", port: 0, backendPorts: [a.port, b.port] });
  const answers = [];
  for (let i = 0; i < 4; i++) answers.push(await ask(balancer.port));
  expect(answers).toEqual(["a", "b", "a", "b"]);
  await Promise.all([close(a.server), close(b.server)]);
});

it("skips a gateway that refuses connections, and uses it again once it listens", async () => {
  const a = await backend("a");
  const b = await backend("b");
  balancer = await startBalancer({ host: "127.0.0.1", port: 0, backendPorts: [a.port, b.port] });
  await close(b.server);
  const answers = [];
  for (let i = 0; i < 4; i++) answers.push(await ask(balancer.port));
  expect(answers).toEqual(["a", "a", "a", "a"]);
  const again = createServer((_req, res) => res.end("b"));
  await new Promise<void>((resolve) => again.listen(b.port, "127.0.0.1", resolve));
  const later = [await ask(balancer.port), await ask(balancer.port)];
  expect(later.sort()).toEqual(["a", "b"]);
  await Promise.all([close(a.server), close(again)]);
});

it("closes the connection when no gateway accepts", async () => {
  const a = await backend("a");
  await close(a.server);
  balancer = await startBalancer({ host: "127.0.0.1", port: 0, backendPorts: [a.port] });
  await expect(ask(balancer.port)).rejects.toThrow();
});

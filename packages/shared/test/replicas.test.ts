/**
 * NATS_STREAM_REPLICAS on a three-node cluster (scripts/lib/infra.ts
 * startNatsCluster, as `npm start -- --nats-cluster 3` runs it): the domain
 * events' stream made by several instances at once has three replicas and a
 * leader, the durable consumers follow it, a KV bucket made with one replica
 * is moved to the configured count, and a client given every node's URL
 * carries on when the node it used is killed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import {
  DOMAIN_EVENTS_STREAM,
  DURABLE_CONSUMERS,
  ensureDomainEventStream,
  ensureStream,
  natsServers,
  settleBucket,
  streamWhenLed,
} from "@teamchat/shared";
import { startNatsCluster, type NatsCluster } from "../../../scripts/lib/infra";

jest.setTimeout(60_000);

let dataDir: string;
let cluster: NatsCluster;
const connections: NatsConnection[] = [];
const open = async () => {
  const nc = await connect({ servers: natsServers(cluster.url), maxReconnectAttempts: -1, reconnectTimeWait: 200 });
  connections.push(nc);
  return nc;
};

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "teamchat-replicas-"));
  cluster = await startNatsCluster({ dataDir, nodes: 3, progress: () => undefined });
});
afterAll(async () => {
  await Promise.all(connections.map((nc) => nc.close()));
  await cluster?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

it("gives the cluster's three URLs as NATS_URL, comma-separated", () => {
  expect(natsServers(cluster.url)).toHaveLength(3);
  expect(natsServers(" nats://a:1, nats://b:2 ,")).toEqual(["nats://a:1", "nats://b:2"]);
});

it("makes the domain events' stream on three replicas, with a leader, when instances start together", async () => {
  const config = { maxAgeSeconds: 3600, maxBytes: 1024 * 1024, replicas: 3 };
  const instances = await Promise.all([open(), open(), open()]);
  await Promise.all(instances.map((nc) => ensureDomainEventStream(nc, config)));
  const jsm = await jetstreamManager(instances[0]!);
  const info = await jsm.streams.info(DOMAIN_EVENTS_STREAM);
  expect(info.config.num_replicas).toBe(3);
  expect(info.cluster?.leader).toMatch(/^nats-[123]$/);
  expect(info.cluster?.replicas).toHaveLength(2);
  for (const consumer of Object.values(DURABLE_CONSUMERS)) {
    const c = await jsm.consumers.info(DOMAIN_EVENTS_STREAM, consumer.name);
    expect(c.cluster?.replicas).toHaveLength(2);
  }
  // a publish is taken at once: the stream has its leader when ensureDomainEventStream returns
  const ack = await jetstream(instances[0]!).publish("events.test.ping", "{}");
  expect(ack.stream).toBe(DOMAIN_EVENTS_STREAM);
});

it("makes a stream when the cluster is electing as the service starts: its requests are asked again until it answers", async () => {
  const nc = await open();
  const used = cluster.nodes.findIndex((n) => n.url.endsWith(`:${nc.info!.port}`));
  const others = [0, 1, 2].filter((i) => i !== used);
  const jsm = await jetstreamManager(nc, { timeout: 1_000 });
  // two of three nodes gone: no JetStream quorum, so the API times out or answers "temporarily unavailable"
  await Promise.all(others.map((i) => cluster.nodes[i]!.kill()));
  const made = ensureStream(jsm, { name: "ELECTION_TEST", subjects: ["election.>"], num_replicas: 3 });
  await new Promise((r) => setTimeout(r, 1_500));
  await Promise.all(others.map((i) => cluster.restartNode(i)));
  await made;
  // the restarted nodes' return can move the leadership once more: waited for, as every service does
  const info = await streamWhenLed(jsm, "ELECTION_TEST");
  expect(info?.config.num_replicas).toBe(3);
  expect(info?.cluster?.leader).toMatch(/^nats-[123]$/);
});

it("moves a KV bucket an earlier start made with one replica to the configured count", async () => {
  const nc = await open();
  await new Kvm(nc).create("replicas_test", { replicas: 1 });
  await settleBucket(await jetstreamManager(nc), "replicas_test", 3);
  const info = await (await jetstreamManager(nc)).streams.info("KV_replicas_test");
  expect(info.config.num_replicas).toBe(3);
});

it("keeps publishing when the node the client used is killed (the stream's leader moves)", async () => {
  const nc = await open();
  const kv = await new Kvm(nc).create("failover_test", { replicas: 3 });
  await kv.put("k", "before");
  const used = cluster.nodes.findIndex((n) => n.url.endsWith(`:${nc.info!.port}`));
  await cluster.nodes[used]!.kill();
  // the bucket's leader may have been on the killed node: NATS elects another within its 4-9 s timeout
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      await kv.put("k", "after");
      break;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  // a bucket's reads are direct gets, which any replica answers: one still catching up after the
  // election may answer the value before for a moment
  const readDeadline = Date.now() + 10_000;
  let value = (await kv.get("k"))?.string();
  while (value !== "after" && Date.now() < readDeadline) {
    await new Promise((r) => setTimeout(r, 250));
    value = (await kv.get("k"))?.string();
  }
  expect(value).toBe("after");
  await cluster.restartNode(used);
});

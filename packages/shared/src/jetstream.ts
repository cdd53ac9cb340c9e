import {
  jetstreamManager,
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamClient,
  type JetStreamManager,
  type StreamConfig,
  type StreamInfo,
} from "@nats-io/jetstream";
import { Kvm, type KV, type KvOptions } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { askAgain } from "./ask-again";
import { isTimeout } from "./bus";

/** How long a replicated stream may take to elect its leader (NATS' election takes a few seconds at worst). */
const LEADER_WAIT_MS = 15_000;
const LEADER_POLL_MS = 200;

const isStreamNotFound = (err: unknown): boolean =>
  err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound;

/** A publish whose expected last sequence was not the stream's (or the subject's): another writer got there first. */
export const isWrongLastSequence = (err: unknown): boolean =>
  err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamWrongLastSequence;

/**
 * The stream's info once it has a leader; null when it does not exist. A
 * replicated stream just created (by this instance or another) refuses
 * publishes ("no responders") and may not answer its info until its nodes
 * have elected a leader; a stream on a single server has one at once.
 */
export async function streamWhenLed(jsm: JetStreamManager, name: string): Promise<StreamInfo | null> {
  const deadline = Date.now() + LEADER_WAIT_MS;
  for (;;) {
    try {
      const info = await jsm.streams.info(name);
      if (!info.cluster || info.cluster.leader) return info;
    } catch (err) {
      if (isStreamNotFound(err)) return null;
      if (Date.now() > deadline) throw err;
    }
    if (Date.now() > deadline) throw new Error(`stream ${name} has no leader after ${LEADER_WAIT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, LEADER_POLL_MS));
  }
}

/**
 * The JetStream manager, without nats.js' account check up front: that check
 * is a request nothing asks again, and a NATS restart during a service's start
 * failed the start on it. The manager's first request (through
 * configureThroughElection or streamWhenLed, which ask again) tells a server
 * without JetStream.
 */
export const streamManager = (nc: NatsConnection): Promise<JetStreamManager> =>
  jetstreamManager(nc, { checkAPI: false });

/** nats-server's JSClusterNoPeersErrF: "no suitable peers for placement". */
const NO_PEERS_FOR_PLACEMENT = 10005;

/**
 * A JetStream API request that got no answer in time, "temporarily
 * unavailable" (503), or "no suitable peers for placement": what a cluster
 * answers while its nodes elect the leader of its JetStream API or of the
 * stream, and while nodes that just (re)started have not yet joined as peers.
 * "JetStream not enabled" too: nats.js' name for a JetStream API nobody
 * answers, as on a server still restarting (one without JetStream fails
 * once the wait is over).
 */
const isElectionPause = (err: unknown): boolean =>
  isTimeout(err) ||
  (err instanceof Error && err.name === "JetStreamNotEnabled") ||
  (err instanceof JetStreamApiError && (err.status === 503 || err.code === NO_PEERS_FOR_PLACEMENT));

/**
 * A request that configures a stream or consumer, asked again while the cluster
 * is electing (up to LEADER_WAIT_MS): the requests are idempotent (a stream or
 * consumer added again with the same configuration is left as it is), and a
 * service that gave up on the first timeout would fail its start.
 */
export const configureThroughElection = <T>(request: () => Promise<T>): Promise<T> =>
  askAgain(request, { passing: isElectionPause, forMs: LEADER_WAIT_MS, everyMs: LEADER_POLL_MS });

/**
 * Creates the stream, or updates its configuration (limits, replicas), and
 * returns once it has a leader. Concurrent calls (every instance of every
 * service as it starts) are harmless.
 */
export async function ensureStream(
  jsm: JetStreamManager,
  config: Partial<StreamConfig> & Pick<StreamConfig, "name">,
): Promise<void> {
  if (await streamWhenLed(jsm, config.name)) {
    await configureThroughElection(() => jsm.streams.update(config.name, config));
  } else {
    await configureThroughElection(() => jsm.streams.add(config)).catch(async (err: unknown) => {
      // another instance created it in between
      if (!(await streamWhenLed(jsm, config.name))) throw err;
    });
  }
  await streamWhenLed(jsm, config.name);
}

/**
 * A KV bucket's stream once it has a leader, on `replicas` nodes: Kvm.create
 * leaves a bucket an earlier start made as it is, so a changed
 * NATS_STREAM_REPLICAS is applied here.
 */
export async function settleBucket(jsm: JetStreamManager, bucket: string, replicas: number): Promise<void> {
  const name = `KV_${bucket}`;
  const info = await streamWhenLed(jsm, name);
  if (info && info.config.num_replicas !== replicas) {
    await configureThroughElection(() => jsm.streams.update(name, { ...info.config, num_replicas: replicas }));
    await streamWhenLed(jsm, name);
  }
}

/** Opens a KV bucket, making it when missing, on `replicas` nodes and with a leader (see settleBucket). */
export async function openBucket(
  js: JetStreamClient,
  bucket: string,
  options: Partial<KvOptions> & { replicas: number },
): Promise<KV> {
  const kv = await configureThroughElection(() => new Kvm(js).create(bucket, options));
  await settleBucket(await js.jetstreamManager(false), bucket, options.replicas);
  return kv;
}

/**
 * configureThroughElection: the stream and bucket set-up every service runs as
 * it starts asks again while a NATS cluster is electing (its JetStream API
 * times out or answers 503) or forming (no peers enough for the replicas
 * yet), and fails at once on any other refusal.
 */
import { TimeoutError } from "@nats-io/nats-core";
import { JetStreamApiError } from "@nats-io/jetstream";
import { configureThroughElection } from "../src/jetstream";

/** A request refused with each of `failures` in turn, then answered "done"; how many times it was asked. */
function flaky(failures: Error[]) {
  let asked = 0;
  return {
    request: async () => {
      const failure = failures[asked++];
      if (failure) throw failure;
      return "done";
    },
    asked: () => asked,
  };
}

const temporarilyUnavailable = () =>
  new JetStreamApiError({ code: 503, err_code: 10008, description: "JetStream system temporarily unavailable" });

it("asks again after a timeout and after 'temporarily unavailable', until answered", async () => {
  const r = flaky([new TimeoutError(), temporarilyUnavailable(), new TimeoutError()]);
  await expect(configureThroughElection(r.request)).resolves.toBe("done");
  expect(r.asked()).toBe(4);
});

it("asks again while a cluster just started has not every node as a peer yet", async () => {
  // what a stream of three replicas gets from a cluster whose nodes are still joining
  const noPeers = new JetStreamApiError({ code: 400, err_code: 10005, description: "no suitable peers for placement" });
  const r = flaky([noPeers, noPeers]);
  await expect(configureThroughElection(r.request)).resolves.toBe("done");
  expect(r.asked()).toBe(3);
});

it("asks again while a restarting server's JetStream API has nobody answering yet", async () => {
  // nats.js' error for an API request with no responders (its class is not exported)
  const notYet = Object.assign(new Error("jetstream is not enabled"), { name: "JetStreamNotEnabled" });
  const r = flaky([notYet]);
  await expect(configureThroughElection(r.request)).resolves.toBe("done");
  expect(r.asked()).toBe(2);
});

it("fails at once on a refusal that asking again cannot change", async () => {
  const refused = new JetStreamApiError({ code: 400, err_code: 10058, description: "stream name already in use" });
  const r = flaky([refused]);
  await expect(configureThroughElection(r.request)).rejects.toBe(refused);
  expect(r.asked()).toBe(1);
});

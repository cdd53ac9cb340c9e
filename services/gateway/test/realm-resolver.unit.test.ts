/**
 * RealmResolver: one question to realm-config per host at a time, whatever the
 * number of requests waiting on it; the answer remembered; a failure shared by
 * the requests that waited for it, and not remembered.
 */
import { ZulipError, type BusClient, type RealmRef } from "@teamchat/shared";
import { RealmResolver } from "../src/realm-resolver";

/** realm-config's side: counts the questions; each one answered when `answer` is called. */
function realmConfigAnswering() {
  const asked: string[] = [];
  const waiting: Array<(outcome: RealmRef | Error) => void> = [];
  const bus = {
    request: (_contract: unknown, params: { host: string }) => {
      asked.push(params.host);
      return new Promise((resolve, reject) =>
        waiting.push((outcome) => (outcome instanceof Error ? reject(outcome) : resolve(outcome))),
      );
    },
  } as unknown as BusClient;
  const answer = (outcome: RealmRef | Error) => waiting.splice(0).forEach((w) => w(outcome));
  return { bus, asked, answer };
}

const zulip = { id: 1, subdomain: "zulip" } as unknown as RealmRef;

it("requests arriving while a host is asked share one question, and the answer is remembered", async () => {
  const { bus, asked, answer } = realmConfigAnswering();
  const resolver = new RealmResolver(bus);
  const waiting = Array.from({ length: 20 }, (_, i) => resolver.resolve("zulip.example.com", `r${i}`));
  await Promise.resolve();
  answer(zulip);
  expect(await Promise.all(waiting)).toEqual(Array.from({ length: 20 }, () => zulip));
  expect(await resolver.resolve("zulip.example.com", "later")).toBe(zulip);
  expect(asked).toEqual(["zulip.example.com"]);
});

it("another host is its own question", async () => {
  const { bus, asked, answer } = realmConfigAnswering();
  const resolver = new RealmResolver(bus);
  const both = Promise.all([resolver.resolve("a.example.com", "r1"), resolver.resolve("b.example.com", "r2")]);
  await Promise.resolve();
  answer(zulip);
  await both;
  expect(asked).toEqual(["a.example.com", "b.example.com"]);
});

it("a failure reaches every waiting request and is asked again next time", async () => {
  const { bus, asked, answer } = realmConfigAnswering();
  const resolver = new RealmResolver(bus);
  const waiting = [resolver.resolve("gone.example.com", "r1"), resolver.resolve("gone.example.com", "r2")];
  await Promise.resolve();
  answer(new ZulipError("BAD_REQUEST", "Invalid subdomain"));
  for (const w of waiting) await expect(w).rejects.toThrow("Invalid subdomain");
  const again = resolver.resolve("gone.example.com", "r3");
  await Promise.resolve();
  answer(zulip);
  expect(await again).toBe(zulip);
  expect(asked).toEqual(["gone.example.com", "gone.example.com"]);
});

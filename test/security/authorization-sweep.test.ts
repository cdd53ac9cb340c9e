/**
 * The authorization sweep: every HTTP operation, tried by every role
 * on objects the caller may not see or change (sweep-table.ts), must answer
 * Zulip's refusal, change nothing, and show no attacker a secret or a real
 * email address, in a reply or in an event.
 */
import { allContracts, identity, messaging, notifications, realmConfig, type Contract } from "@teamchat/shared";
import { isDeepStrictEqual } from "node:util";
import type { ApiResponse } from "@teamchat/shared/src/testing/api";
import { SWEEP, type Expected, type Family } from "./sweep-table";
import {
  ATTACKERS,
  CHANNEL_SECRET,
  ORGANIZATION_SECRET,
  SECRET,
  attackerOf,
  attempt,
  buildWorld,
  registerAttackerQueues,
  scanEvents,
  scanForLeaks,
  withFile,
  type Attacker,
  type World,
} from "./sweep-world";
import { download } from "../support/download";
import type { EventReader } from "../support/events";

let w: World;
let queues: Map<Attacker, EventReader>;
let before: unknown;

/**
 * What the victim and the owner read of everything the sweep attacks: equal
 * before and after the sweep, or an attempt changed something.
 */
async function readState(): Promise<unknown> {
  const { org, users, ids } = w;
  const { victim, owner } = users;
  const withoutQueue = ({ queue_id: _q, last_event_id: _l, ...state }: Record<string, unknown>) => state;
  const [
    messages,
    drafts,
    scheduled,
    snippets,
    alertWords,
    views,
    subscriptions,
    channel,
    bots,
    victimState,
    uploads,
    upload,
  ] = await Promise.all([
    org.call(messaging.getMessages, { anchor: "newest", num_before: 100, num_after: 0 }, victim),
    org.call(messaging.getDrafts, {}, victim),
    org.call(messaging.getScheduledMessages, {}, victim),
    org.call(messaging.getSavedSnippets, {}, victim),
    org.call(messaging.getAlertWords, {}, victim),
    org.call(identity.listNavigationViews, {}, victim),
    org.call(messaging.getSubscriptions, { include_subscribers: true }, victim),
    org.call(messaging.getStreamById, { stream_id: ids.privateChannel }, victim),
    org.call(identity.getBots, {}, victim),
    org.call(
      notifications.registerQueue,
      { fetch_event_types: ["muted_users", "user_topic"], event_types: [] },
      victim,
    ),
    org.call(messaging.listAttachments, {}, victim),
    download(org, victim, ids.upload.url),
  ]);
  const [invites, people, groups, folders, fields, organization, victimQueue] = await Promise.all([
    org.call(identity.getInvites, {}, owner),
    org.call(identity.getUsers, {}, owner),
    org.call(identity.getUserGroups, {}, owner),
    org.call(realmConfig.listChannelFolders, {}, owner),
    org.call(realmConfig.listProfileFields, {}, owner),
    org.call(
      notifications.registerQueue,
      {
        fetch_event_types: [
          "realm",
          "realm_user_settings_defaults",
          "default_streams",
          "realm_linkifiers",
          "realm_playgrounds",
          "realm_emoji",
        ],
        event_types: [],
      },
      owner,
    ),
    org.api(victim).get("/events", { queue_id: ids.victimQueue, last_event_id: -1, dont_block: true }),
  ]);
  return {
    messages: messages.messages,
    drafts,
    scheduled,
    snippets,
    alertWords,
    views,
    subscriptions,
    channel,
    bots,
    victimState: withoutQueue(victimState),
    // (upload_space_used is the organization's: attackers' own uploads add to it)
    attachments: uploads.attachments,
    upload: upload.body.toString(),
    invites,
    // (attackers change their own avatars, set then removed: only the victim's is compared)
    people: people.members.map(({ avatar_url, avatar_version, ...person }) =>
      person.user_id === victim.userId ? { ...person, avatar_url, avatar_version } : person,
    ),
    groups,
    folders,
    fields,
    organization: withoutQueue(organization),
    victimQueueAlive: victimQueue.status,
  };
}

beforeAll(async () => {
  w = await buildWorld();
  queues = await registerAttackerQueues(w);
  // Private activity while the attackers listen: none of it may reach their queues.
  const { org, users, ids } = w;
  await org.call(
    messaging.sendMessage,
    { type: "private", to: [users.confidant.userId], content: `${SECRET} while they listen` },
    users.victim,
  );
  await org.call(
    messaging.sendMessage,
    { type: "stream", to: ids.privateChannel, topic: `${SECRET} live`, content: `${SECRET} live` },
    users.victim,
  );
  await org.call(
    messaging.sendMessage,
    { type: "stream", to: ids.publicChannel, topic: "live", content: `${ORGANIZATION_SECRET} live` },
    users.victim,
  );
  await org.call(
    messaging.editDraft,
    { draft_id: ids.draft, draft: { type: "", to: [], topic: "", content: `${SECRET} edited` } },
    users.victim,
  );
  await org.call(messaging.createSavedSnippet, { title: "live", content: `${SECRET} live snippet` }, users.victim);
  // an upload and its attachment events (Zulip's notify_attachment_update: the uploader's alone)
  const liveFile = new File([`${SECRET} live file`], `${SECRET} live.txt`, { type: "text/plain" });
  const live = await org.call(messaging.uploadFile, withFile({}, liveFile), users.victim);
  await org.call(
    messaging.sendMessage,
    { type: "private", to: [users.confidant.userId], content: `[live](${live.url})` },
    users.victim,
  );
  await org.call(
    messaging.updateStream,
    { stream_id: ids.privateChannel, description: `${CHANNEL_SECRET} new description` },
    users.victim,
  );
  before = await readState();
}, 60_000);

afterAll(async () => {
  await Promise.all([w?.org.stop(), w?.other.stop()]);
});

/** A path with every parameter filled with 1: refused before the parameters are read. */
const anyPath = (contract: Contract) => contract.http!.path.replace(/\{\w+\}/g, "1");

const authenticated = allContracts.filter((c) => c.http?.auth === "user");

it("every HTTP operation has an entry in the sweep's table", () => {
  const covered = new Set(SWEEP.map((e) => e.contract.subject));
  const missing = allContracts.filter((c) => c.http && !covered.has(c.subject)).map((c) => c.subject);
  expect(missing).toEqual([]);
  // An entry without attempts says why nothing of someone else's can be aimed at.
  expect(SWEEP.filter((e) => !e.attempts.length && !e.ownDataOnly).map((e) => e.contract.subject)).toEqual([]);
});

it("a deactivated user, and another organization's credentials, are refused every authenticated operation", async () => {
  const deactivated = w.org.api(w.users.deactivated);
  const foreign = w.org.api(w.other.owner);
  const answers = async (api: typeof deactivated) =>
    Promise.all(
      authenticated.map(async (c) => {
        const res: ApiResponse = await api.request(
          c.http!.method,
          anyPath(c),
          {},
          c.http!.method === "GET" ? "query" : "form",
        );
        return { operation: c.subject, status: res.status, body: res.body };
      }),
    );
  const deactivatedAnswers = await answers(deactivated);
  expect(deactivatedAnswers.filter((a) => a.body.code !== "USER_DEACTIVATED" || a.status !== 401)).toEqual([]);
  expect(deactivatedAnswers[0]!.body).toEqual({
    result: "error",
    code: "USER_DEACTIVATED",
    msg: "Account is deactivated",
  });
  // Keys belong to one organization: another's key is unknown here.
  const foreignAnswers = await answers(foreign);
  expect(foreignAnswers.filter((a) => a.body.code !== "INVALID_API_KEY" || a.status !== 401)).toEqual([]);
  expect(foreignAnswers[0]!.body).toEqual({ result: "error", code: "INVALID_API_KEY", msg: "Invalid API key" });

  const login = await w.org
    .api(null)
    .post("/fetch_api_key", { username: w.users.deactivated.email, password: w.users.deactivated.password });
  expect({ status: login.status, body: login.body }).toEqual({
    status: 401,
    body: { result: "error", code: "USER_DEACTIVATED", msg: "Account is deactivated" },
  });
});

const FAMILIES: Family[] = [
  "channels",
  "subscriptions",
  "messages",
  "flags and topics",
  "personal data",
  "users and bots",
  "groups",
  "invitations",
  "uploads and emoji",
  "organization",
  "events and typing",
];

/** The reply an expectation describes, in the shape of what the attempt got. */
const answerOf = (expected: Exclude<Expected, "skip">) => {
  if (expected === "allowed") return "allowed";
  const { status, ...body } = expected;
  return { status, body: { result: "error", ...body } };
};

describe.each(FAMILIES)("%s", (family) => {
  it("every role gets Zulip's refusal, and no reply shows a secret or a real address", async () => {
    const entries = SWEEP.filter((e) => e.family === family);
    const leaksBefore = w.leaks.length;
    const wrong: string[] = [];
    // the roles attack at once; each tries the family's operations in turn
    await Promise.all(
      ATTACKERS.map(async (attacker) => {
        for (const { contract, attempts } of entries) {
          for (const a of attempts) {
            const expected = a.expect(attacker, w);
            if (expected === "skip") continue;
            const outcome = await attempt(w, attacker, contract, a.params(w, attacker));
            const got = outcome.ok ? "allowed" : { status: outcome.error.status, body: outcome.error.body };
            const want = answerOf(expected);
            if (!isDeepStrictEqual(got, want)) {
              const { method, path } = contract.http!;
              wrong.push(
                `${attacker} ${method} ${path} (${a.aim}): got ${JSON.stringify(got)}, Zulip: ${JSON.stringify(want)}`,
              );
            }
          }
        }
      }),
    );
    expect(wrong).toEqual([]);
    expect(w.leaks.slice(leaksBefore)).toEqual([]);
  });
});

it("the victim's file, downloaded outside /api/v1 (/user_uploads/<path id>), is refused to every attacker", async () => {
  const { url } = w.ids.upload;
  const answers = await Promise.all(
    ATTACKERS.map(async (attacker) => {
      const { org, user } = attackerOf(w, attacker);
      const res = await download(org, user, url);
      const body = res.body.toString();
      scanForLeaks(w, attacker, `GET ${url}`, body, url);
      return { attacker, status: res.status, body };
    }),
  );
  const anonymous = await download(w.org, null, url);
  // Zulip's serve_file: 403 for a file the caller may not see; the outsider's organization has no such file
  expect([...answers, { attacker: "anonymous", status: anonymous.status, body: anonymous.body.toString() }]).toEqual([
    ...ATTACKERS.map((attacker) =>
      attacker === "outsider"
        ? { attacker, status: 404, body: "<p>File not found.</p>" }
        : { attacker, status: 403, body: "<p>You are not authorized to view this file.</p>" },
    ),
    { attacker: "anonymous", status: 403, body: "<p>You are not authorized to view this file.</p>" },
  ]);
  expect(w.leaks).toEqual([]);
  // those the victim wrote to read it
  expect((await download(w.org, w.users.confidant, url)).body.toString()).toBe(`${SECRET} in an uploaded file`);

  // a deactivated user and another organization's key: 401, as for the API
  const refusedCredentials = await Promise.all(
    [w.users.deactivated, w.other.owner].map(async (user) => {
      const res = await download(w.org, user, url);
      return { status: res.status, body: JSON.parse(res.body.toString()) as unknown };
    }),
  );
  expect(refusedCredentials).toEqual([
    { status: 401, body: { result: "error", code: "USER_DEACTIVATED", msg: "Account is deactivated" } },
    { status: 401, body: { result: "error", code: "INVALID_API_KEY", msg: "Invalid API key" } },
  ]);
  // the victim's temporary URL serves the file in their organization only
  const { url: temporary } = (await w.org.api(w.users.victim).get(url)).body as { url: string };
  const elsewhere = await download(w.other, null, temporary);
  expect([elsewhere.status, JSON.parse(elsewhere.body.toString())]).toEqual([
    400,
    { result: "error", code: "BAD_REQUEST", msg: "Invalid token" },
  ]);
});

it("after the sweep: nothing changed, and no attacker's queue heard a secret or a real address", async () => {
  expect(await readState()).toEqual(before);
  await scanEvents(w, queues);
  expect(w.leaks).toEqual([]);
});

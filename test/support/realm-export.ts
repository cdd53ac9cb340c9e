/**
 * Realm exports in tests: an organization with a little of everything an
 * export carries, the export made through the HTTP API, and its tarball read
 * back into its files.
 */
import { gunzipSync } from "node:zlib";
import { extract } from "tar-stream";
import { identity, messaging, realmConfig } from "@teamchat/shared";
import { download } from "./download";
import type { Credentials } from "@teamchat/shared/src/testing/api";
import type { TestOrganization, TestUser } from "./organization";

/** A tarball's files by path, inside its top directory (`realm.json`, `uploads/records.json`...). */
export async function readTarball(gz: Buffer): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  const tar = extract();
  const done = (async () => {
    for await (const entry of tar) {
      const chunks: Buffer[] = [];
      for await (const c of entry) chunks.push(c as Buffer);
      files.set(entry.header.name.replace(/^[^/]+\//, ""), Buffer.concat(chunks));
    }
  })();
  tar.end(gunzipSync(gz));
  await done;
  return files;
}

export const jsonOf = <T = Record<string, unknown[]>>(files: Map<string, Buffer>, name: string): T =>
  JSON.parse(files.get(name)!.toString()) as T;

/**
 * Requests an export as `admin` (or follows the one requested as `requested`),
 * waits until it is no longer pending and returns it with its tarball's files.
 */
export async function exportThroughApi(
  org: TestOrganization,
  admin: Credentials,
  exportType: 1 | 2 = 1,
  requested?: number,
): Promise<{ id: number; exportUrl: string; tarball: Buffer; files: Map<string, Buffer> }> {
  const id = requested ?? (await org.call(messaging.exportRealm, { export_type: exportType }, admin)).id;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const { exports } = await org.call(messaging.getRealmExports, {}, admin);
    const row = exports.find((e) => e.id === id)!;
    if (!row.pending) {
      if (!row.export_url) throw new Error(`export ${id} failed`);
      const got = await download(org, admin, new URL(row.export_url).pathname);
      if (got.status !== 200) throw new Error(`export ${id}: GET ${row.export_url} answered ${got.status}`);
      return { id, exportUrl: row.export_url, tarball: got.body, files: await readTarball(got.body) };
    }
    if (Date.now() > deadline) throw new Error(`export ${id} still pending`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export interface GeneratedOrganization {
  alice: TestUser;
  bob: TestUser;
  admin: TestUser;
  channelIds: number[];
  messageIds: number[];
}

/**
 * Channels (public and private), messages with a topic, an edit and a move,
 * reactions, a star, direct messages, a custom profile field with values,
 * a user group, and an upload linked from a message.
 */
export async function generateOrganization(org: TestOrganization): Promise<GeneratedOrganization> {
  const alice = await org.makeUser("alice", 400, "Alice Anders");
  const bob = await org.makeUser("bob", 400, "Bob Bauer");
  const admin = await org.makeUser("admin", 200, "Ada Admin");
  const owner = org.owner;
  const { id: fieldId } = await org.call(
    realmConfig.createProfileField,
    { name: "Team", hint: "Where you work", field_type: 1 },
    owner,
  );
  await org.call(
    identity.updateUser,
    { user_id: alice.userId, profile_data: [{ id: fieldId, value: "Kernel" }] },
    owner,
  );
  await org.call(
    identity.createUserGroup,
    { name: "reviewers", description: "They review", members: [alice.userId, bob.userId] },
    owner,
  );
  const channelIds = [
    (
      await org.call(
        messaging.createChannel,
        { name: "general talk", subscribers: [alice.userId, bob.userId, admin.userId] },
        owner,
      )
    ).id,
    (
      await org.call(
        messaging.createChannel,
        { name: "hideout", subscribers: [alice.userId, bob.userId], invite_only: true },
        owner,
      )
    ).id,
  ];
  const upload = await org
    .api(alice)
    .post("/user_uploads", { file: new File(["plan: ship it"], "plan.txt", { type: "text/plain" }) }, "multipart");
  const uploadUrl = (upload.body as { url: string }).url;
  const messageIds: number[] = [];
  const send = async (user: TestUser, params: Parameters<typeof org.call<typeof messaging.sendMessage>>[1]) => {
    const { id } = await org.call(messaging.sendMessage, params, user);
    messageIds.push(id);
    return id;
  };
  const first = await send(alice, {
    type: "stream",
    to: "general talk",
    topic: "plans",
    content: "We **ship** on Friday",
  });
  await send(alice, { type: "stream", to: "general talk", topic: "plans", content: `See [the plan](${uploadUrl})` });
  await send(bob, { type: "stream", to: "hideout", topic: "secret", content: "only us" });
  await send(alice, { type: "direct", to: [bob.userId], content: "psst" });
  await send(alice, { type: "direct", to: [bob.userId, admin.userId], content: "a group" });
  await org.call(messaging.updateMessage, { message_id: first, content: "We **ship** on Monday" }, alice);
  await org.call(messaging.updateMessage, { message_id: first, topic: "release plans" }, alice);
  await org.call(messaging.addReaction, { message_id: first, emoji_name: "tada" }, bob);
  await org.call(messaging.addReaction, { message_id: first, emoji_name: "+1" }, admin);
  await org.call(messaging.updateMessageFlags, { messages: [first], op: "add", flag: "starred" }, bob);
  return { alice, bob, admin, channelIds, messageIds };
}

/**
 * `npm run manage -- import-realm`: an organization exported through the HTTP
 * API, imported by the CLI into a new organization and exported again keeps
 * every user, channel, subscription, message (content, rendering, topic, edit
 * history), reaction, flag, custom profile field, group and upload; only the
 * ids differ.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { flagsMask, identity, messaging } from "@teamchat/shared";
import { REPO_ROOT } from "../lib/infra";
import { createOrganization } from "../lib/organization";
import {
  organizationClient,
  testOrganization,
  type TestOrganization,
  type TestUser,
} from "../../test/support/organization";
import { exportThroughApi, generateOrganization, jsonOf } from "../../test/support/realm-export";

type Row = Record<string, unknown>;
type Tables = Record<string, Row[]>;

let org: TestOrganization;
let scratch: string;
beforeAll(async () => {
  org = await testOrganization();
  scratch = await mkdtemp(join(tmpdir(), "import-realm-test-"));
});
afterAll(async () => {
  await org?.stop();
  await rm(scratch, { recursive: true, force: true });
});

/**
 * An export's content with every id replaced by what it names (users by
 * address, channels by name, messages by their order), in a form two exports
 * of the same organization share.
 */
function normalized(files: Map<string, Buffer>) {
  const realm = jsonOf<Tables>(files, "realm.json");
  const messageFiles = [...files.keys()].filter((f) => /^messages-\d+\.json$/.test(f)).sort();
  const messageTables = messageFiles.map((f) => jsonOf<Tables>(files, f));
  const users = new Map([
    ...realm.zerver_userprofile!.map((u) => [u.id as number, u.delivery_email as string] as const),
    ...realm.zerver_userprofile_crossrealm!.map((u) => [u.id as number, "(system bot)"] as const),
  ]);
  const channels = new Map(realm.zerver_stream!.map((c) => [c.id as number, c.name as string]));
  const user = (id: unknown) => users.get(id as number) ?? `(unknown user ${String(id)})`;
  const recipients = new Map(realm.zerver_recipient!.map((r) => [r.id as number, r]));
  const membersOf = (recipient: number) =>
    realm
      .zerver_subscription!.filter((s) => s.recipient === recipient)
      .map((s) => user(s.user_profile))
      .sort();
  const to = (recipient: unknown) => {
    const r = recipients.get(recipient as number)!;
    return r.type === 2 ? `#${channels.get(r.type_id as number)}` : membersOf(r.id as number).join(",");
  };
  const fields = new Map(realm.zerver_customprofilefield!.map((f) => [f.id as number, f.name as string]));
  const messages = messageTables.flatMap((t) => t.zerver_message!).sort((a, b) => (a.id as number) - (b.id as number));
  const order = new Map(messages.map((m, n) => [m.id as number, n]));
  const uploadPath = (html: string) => html.replace(/\/user_uploads\/\d+\//g, "/user_uploads/REALM/");
  const named = (html: string) =>
    uploadPath(html)
      .replace(/data-user-id="(\d+)"/g, (_w, id: string) => `data-user="${user(Number(id))}"`)
      .replace(/data-stream-id="(\d+)"/g, (_w, id: string) => `data-stream="${channels.get(Number(id))}"`)
      .replace(
        /#narrow\/(stream|channel)\/(\d+)-/g,
        (_w, kind: string, id: string) => `#narrow/${kind}/${channels.get(Number(id))}-`,
      );
  const attachments = jsonOf<Tables>(files, "attachment.json");
  const without = (row: Row, ...keys: string[]) =>
    Object.fromEntries(Object.entries(row).filter(([k]) => !["id", "realm", ...keys].includes(k)));
  const groups = new Map(realm.zerver_namedusergroup!.map((g) => [g.usergroup_ptr as number, g.name as string]));
  return {
    users: realm
      .zerver_userprofile!.filter((u) => !u.is_system_bot)
      .map((u) => without(u, "email", "bot_owner", "date_joined"))
      .sort((a, b) => String(a.delivery_email).localeCompare(String(b.delivery_email))),
    // order as a rank: Zulip's order values are ids of the organization's fields
    profileFields: [...realm.zerver_customprofilefield!]
      .sort((a, b) => (a.order as number) - (b.order as number))
      .map((f) => without(f, "order")),
    profileValues: realm
      .zerver_customprofilefieldvalue!.map((v) => ({
        user: user(v.user_profile),
        field: fields.get(v.field as number),
        value: v.value,
        rendered_value: v.rendered_value,
      }))
      .sort((a, b) => a.user.localeCompare(b.user)),
    channels: realm
      .zerver_stream!.map((c) => without(c, "recipient", "creator", "first_message_id", "date_created"))
      .sort((a, b) => String(a.name).localeCompare(String(b.name))),
    subscriptions: realm
      .zerver_subscription!.map((s) => ({
        ...without(s, "user_profile", "recipient"),
        user: user(s.user_profile),
        to: to(s.recipient),
      }))
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    groups: realm.zerver_namedusergroup!.map((g) => ({
      name: g.name,
      description: g.description,
      deactivated: g.deactivated,
      members: realm
        .zerver_usergroupmembership!.filter((m) => m.user_group === g.usergroup_ptr)
        .map((m) => user(m.user_profile))
        .sort(),
      subgroups: realm
        .zerver_groupgroupmembership!.filter((m) => m.supergroup === g.usergroup_ptr)
        .map((m) => groups.get(m.subgroup as number)),
    })),
    messages: messages.map((m) => ({
      sender: user(m.sender),
      to: to(m.recipient),
      topic: m.subject,
      content: uploadPath(m.content as string).replace(
        /(@_?\*\*[^*|]+\|)(\d+)\*\*/g,
        (_w, mention: string, id: string) => `${mention}${user(Number(id))}**`,
      ),
      rendered_content: named(m.rendered_content as string),
      date_sent: m.date_sent,
      last_edit_time: m.last_edit_time,
      edit_history: m.edit_history
        ? (JSON.parse(m.edit_history as string) as Row[]).map((e) => ({
            ...e,
            user_id: user(e.user_id),
            ...(e.prev_rendered_content !== undefined
              ? { prev_rendered_content: named(e.prev_rendered_content as string) }
              : {}),
            ...(e.prev_stream !== undefined ? { prev_stream: channels.get(e.prev_stream as number) } : {}),
            ...(e.stream !== undefined ? { stream: channels.get(e.stream as number) } : {}),
          }))
        : null,
      has_attachment: m.has_attachment,
      has_link: m.has_link,
      has_image: m.has_image,
      type: m.type,
      flags: messageTables
        .flatMap((t) => t.zerver_usermessage!)
        .filter((r) => r.message === m.id)
        .map((r) => `${user(r.user_profile)}:${r.flags_mask as number}`)
        .sort(),
      reactions: realm
        .zerver_reaction!.filter((r) => r.message === m.id)
        .map(
          (r) =>
            `${user(r.user_profile)}:${r.emoji_name as string}:${r.emoji_code as string}:${r.reaction_type as string}`,
        ),
    })),
    uploads: attachments.zerver_attachment!.map((a) => ({
      ...without(a, "path_id", "owner"),
      owner: user(a.owner),
      path: uploadPath(`/user_uploads/${a.path_id as string}`),
      bytes: files.get(`uploads/${a.path_id as string}`)!.toString("base64"),
      messages: attachments
        .zerver_attachment_messages!.filter((l) => l.attachment_id === a.id)
        .map((l) => order.get(l.message_id as number)),
    })),
  };
}

test("export, import through the CLI, export again: the same organization, ids remapped", async () => {
  const g = await generateOrganization(org);
  // a flag of each kind the round trip keeps: Bob's star on an unread message, a mention, an @all mention,
  // channel and direct messages read by their receivers (the senders' own are read), others left unread
  await org.call(
    messaging.sendMessage,
    { type: "stream", to: "general talk", topic: "plans", content: "@**Alice Anders** have a look" },
    g.bob,
  );
  // an @all mention, which the message holds for its receivers: each receiver's row carries it
  await org.call(
    messaging.sendMessage,
    { type: "stream", to: "general talk", topic: "plans", content: "@**all** ship it" },
    g.bob,
  );
  const [first, , , , group] = g.messageIds;
  await org.call(messaging.updateMessageFlags, { messages: [first!], op: "add", flag: "read" }, g.admin);
  await org.call(messaging.updateMessageFlags, { messages: [group!], op: "add", flag: "read" }, g.bob);
  for (const person of [org.owner, g.alice, g.bob, g.admin]) {
    await org.call(identity.updateSettings, { allow_private_data_export: true }, person);
  }
  const exported = await exportThroughApi(org, g.admin, 2);
  const tarball = join(scratch, "export.tar.gz");
  await writeFile(tarball, exported.tarball);

  const subdomain = `${org.subdomain}-imported`;
  const { stdout } = await promisify(execFile)(
    "npx",
    ["tsx", "scripts/manage.ts", "import-realm", tarball, "--subdomain", subdomain],
    { cwd: REPO_ROOT, env: { ...process.env, NATS_URL: process.env.TEST_NATS_URL! } },
  );
  expect(stdout).toContain(`Created organization "${org.realm.name}"`);
  expect(stdout).toMatch(/Users: 4 imported/);
  expect(stdout).toMatch(/Uploads: 1/);

  // the imported owner, with a key the import gave
  const apiKey = /API key: (\S+)/.exec(stdout)![1]!;
  const found = await createOrganization(org.nc, {
    subdomain,
    name: org.realm.name,
    ownerEmail: org.owner.email,
    ownerName: org.owner.fullName,
    ownerPassword: null,
  });
  expect(found.realmCreated).toBe(false);
  const imported = organizationClient({
    baseUrl: org.baseUrl,
    host: found.realm.host,
    subdomain,
    realm: found.realm,
    owner: { ...org.owner, apiKey, userId: found.userId },
    nc: org.nc,
    stop: async () => undefined,
  });
  const second = await exportThroughApi(imported, imported.owner, 2);

  const before = normalized(exported.files);
  const after = normalized(second.files);
  // each receiver's row with their flags (Zulip's UserMessage.flags as flags_mask), the same after the round trip
  const flagsOf = (content: string) => before.messages.find((m) => m.content === content)!.flags;
  const row = (user: TestUser, ...flags: string[]) => `${user.email}:${flagsMask(flags)}`;
  const rows = (...expected: string[]) => expected.sort();
  expect(flagsOf("We **ship** on Monday")).toEqual(
    rows(row(g.admin, "read"), row(g.alice, "read"), row(g.bob, "starred")),
  );
  expect(flagsOf("@**Alice Anders** have a look")).toEqual(
    rows(row(g.admin), row(g.alice, "mentioned"), row(g.bob, "read")),
  );
  expect(flagsOf("@**all** ship it")).toEqual(
    rows(
      row(g.admin, "stream_wildcard_mentioned"),
      row(g.alice, "stream_wildcard_mentioned"),
      row(g.bob, "read", "stream_wildcard_mentioned"),
    ),
  );
  expect(flagsOf("psst")).toEqual(rows(row(g.alice, "read"), row(g.bob)));
  expect(flagsOf("a group")).toEqual(rows(row(g.admin), row(g.alice, "read"), row(g.bob, "read")));
  expect(after.users).toEqual(before.users);
  expect(after.profileFields).toEqual(before.profileFields);
  expect(after.profileValues).toEqual(before.profileValues);
  expect(after.channels).toEqual(before.channels);
  expect(after.subscriptions).toEqual(before.subscriptions);
  expect(after.groups).toEqual(before.groups);
  expect(after.messages).toEqual(before.messages);
  expect(after.uploads).toEqual(before.uploads);
  // the generated organization's content is all there
  expect(before.messages.map((m) => m.content)).toEqual(
    expect.arrayContaining(["We **ship** on Monday", "only us", "psst", "a group"]),
  );
  expect(before.uploads).toHaveLength(1);
}, 120_000);

/**
 * Realm exports (Zulip's views/realm_export.py, actions/realm_export.py and
 * lib/export.py): POST/GET /export/realm, DELETE /export/realm/{id},
 * GET /export/realm/consents, the realm_export and realm_export_consent
 * events, and the tarball in Zulip's layout, served at export_url.
 */
import { flagsMask, identity, messaging } from "@teamchat/shared";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { download } from "../../../test/support/download";
import { EventReader } from "../../../test/support/events";
import { testOrganization, type TestOrganization } from "../../../test/support/organization";
import {
  exportThroughApi,
  generateOrganization,
  jsonOf,
  type GeneratedOrganization,
} from "../../../test/support/realm-export";

let org: TestOrganization;
let g: GeneratedOrganization;
beforeAll(async () => {
  org = await testOrganization();
  g = await generateOrganization(org);
});
afterAll(() => org?.stop());

const MUST_BE_ADMIN = badRequestError("Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");

type Row = Record<string, unknown>;

test("members may not export, list, delete or read consents (Zulip's require_realm_admin)", async () => {
  await expectZulipError(org.call(messaging.exportRealm, {}, g.alice), MUST_BE_ADMIN);
  await expectZulipError(org.call(messaging.getRealmExports, {}, g.alice), MUST_BE_ADMIN);
  await expectZulipError(org.call(messaging.deleteRealmExport, { export_id: 1 }, g.alice), MUST_BE_ADMIN);
  await expectZulipError(org.call(identity.getExportConsents, {}, g.alice), MUST_BE_ADMIN);
});

test("a public export: administrators hear it pending then done, and the tarball holds Zulip's files", async () => {
  const events = await EventReader.register(org.api(g.admin), { event_types: ["realm_export"] });
  const { id, exportUrl, files } = await exportThroughApi(org, g.admin);

  const seen = await events.until((e) => e.some((x) => (x.exports as Row[]).some((r) => r.id === id && !r.pending)));
  const [pending] = seen;
  expect((pending!.exports as Row[]).find((r) => r.id === id)).toEqual({
    id,
    export_time: expect.any(Number),
    acting_user_id: g.admin.userId,
    export_url: null,
    deleted_timestamp: null,
    failed_timestamp: null,
    pending: true,
    export_type: 1,
  });
  const { exports } = await org.call(messaging.getRealmExports, {}, g.admin);
  expect(exports.find((r) => r.id === id)).toEqual({
    id,
    export_time: expect.any(Number),
    acting_user_id: g.admin.userId,
    export_url: exportUrl,
    deleted_timestamp: null,
    failed_timestamp: null,
    pending: false,
    export_type: 1,
  });
  expect(new URL(exportUrl).pathname).toMatch(
    new RegExp(`^/user_uploads/${org.realm.id}/exports/[A-Za-z0-9_-]+/zulip-export-[0-9a-f]+\\.tar\\.gz$`),
  );

  const names = [...files.keys()];
  expect(names.filter((n) => !n.startsWith("uploads/")).sort()).toEqual([
    "attachment.json",
    "messages-000001.json",
    "realm.json",
  ]);
  expect(names.filter((n) => n.startsWith("uploads/")).length).toBe(2);
  const realm = jsonOf<Record<string, Row[]>>(files, "realm.json");
  expect(realm.zerver_realm![0]).toMatchObject({ id: org.realm.id, name: org.realm.name });
  const alice = realm.zerver_userprofile!.find((u) => u.id === g.alice.userId)!;
  expect(alice).toMatchObject({ full_name: "Alice Anders", role: 400, is_active: true, is_bot: false });
  const [field] = realm.zerver_customprofilefield!;
  expect(field).toMatchObject({ name: "Team", hint: "Where you work", field_type: 1 });
  expect(realm.zerver_customprofilefieldvalue).toEqual([
    { id: 1, user_profile: g.alice.userId, field: field!.id, value: "Kernel", rendered_value: "<p>Kernel</p>" },
  ]);
  expect(realm.zerver_stream!.map((s) => s.name).sort()).toEqual(["general talk", "hideout"]);
  expect(realm.zerver_namedusergroup).toEqual([
    expect.objectContaining({ name: "reviewers", description: "They review" }),
  ]);
  expect(realm.zerver_usergroupmembership!.map((m) => m.user_profile).sort()).toEqual(
    [g.alice.userId, g.bob.userId].sort(),
  );
  expect(realm.zerver_reaction!.map((r) => [r.user_profile, r.emoji_name])).toEqual([
    [g.bob.userId, "tada"],
    [g.admin.userId, "+1"],
  ]);

  // a public export: the public channel's messages only
  const { zerver_message, zerver_usermessage } = jsonOf<Record<string, Row[]>>(files, "messages-000001.json");
  const exportedIds = zerver_message!.map((m) => m.id as number);
  expect(exportedIds).toEqual(expect.arrayContaining(g.messageIds.slice(0, 2)));
  for (const id of g.messageIds.slice(2)) expect(exportedIds).not.toContain(id);
  const first = zerver_message!.find((m) => m.id === g.messageIds[0])!;
  expect(first).toMatchObject({
    sender: g.alice.userId,
    subject: "release plans",
    content: "We **ship** on Monday",
    rendered_content: "<p>We <strong>ship</strong> on Monday</p>",
    is_channel_message: true,
  });
  const history = JSON.parse(first.edit_history as string) as Row[];
  expect(history).toEqual([
    expect.objectContaining({ prev_topic: "plans", topic: "release plans" }),
    expect.objectContaining({ prev_content: "We **ship** on Friday" }),
  ]);
  // one row per receiver with their flags (Zulip's UserMessage): Bob starred it unread, Alice sent it (read)
  const rowsOfFirst = zerver_usermessage!.filter((r) => r.message === first.id);
  expect(new Map(rowsOfFirst.map((r) => [r.user_profile, r.flags_mask]))).toEqual(
    new Map([
      [g.alice.userId, flagsMask(["read"])],
      [g.bob.userId, flagsMask(["starred"])],
      [g.admin.userId, flagsMask([])],
    ]),
  );

  const attachments = jsonOf<Record<string, Row[]>>(files, "attachment.json");
  const [attachment] = attachments.zerver_attachment!;
  expect(attachment).toMatchObject({ owner: g.alice.userId, file_name: "plan.txt", size: 13 });
  expect(attachments.zerver_attachment_messages).toEqual([
    { id: 1, attachment_id: attachment!.id, message_id: g.messageIds[1] },
  ]);
  const [record] = jsonOf<Row[]>(files, "uploads/records.json");
  expect(record).toMatchObject({ path: attachment!.path_id, user_profile_id: g.alice.userId, size: 13 });
  expect(files.get(`uploads/${attachment!.path_id as string}`)!.toString()).toBe("plan: ship it");

  // the requester hears from Notification Bot, as in Zulip
  const { messages } = await org.call(
    messaging.getMessages,
    { anchor: "newest", num_before: 1, num_after: 0, narrow: [{ operator: "is", operand: "dm" }] },
    g.admin,
  );
  expect(messages[0]!.content).toContain("Your data export is complete.");

  // the tarball is for administrators only
  expect((await download(org, g.alice, new URL(exportUrl).pathname)).status).toBe(403);
});

test("a full export needs an owner's consent; consents are listed and their changes heard", async () => {
  await expectZulipError(
    org.call(messaging.exportRealm, { export_type: 2 }, g.admin),
    badRequestError(
      "Make sure at least one Organization Owner is consenting to the export or contact the server's administrators for help.",
    ),
  );
  const events = await EventReader.register(org.api(g.admin), { event_types: ["realm_export_consent"] });
  await org.call(identity.updateSettings, { allow_private_data_export: true }, org.owner);
  const [event] = await events.until((e) => e.length >= 1);
  expect(event).toEqual({
    id: expect.any(Number),
    type: "realm_export_consent",
    user_id: org.owner.userId,
    consented: true,
  });
  const { export_consents } = await org.call(identity.getExportConsents, {}, g.admin);
  expect(export_consents).toContainEqual({ user_id: org.owner.userId, consented: true });
  expect(export_consents).toContainEqual({ user_id: g.alice.userId, consented: false });

  // the owner received none of the private messages; once Alice consents, what she received is exported
  await org.call(identity.updateSettings, { allow_private_data_export: true }, g.alice);
  const { files } = await exportThroughApi(org, g.admin, 2);
  const { zerver_message } = jsonOf<Record<string, Row[]>>(files, "messages-000001.json");
  // with Notification Bot's direct messages to Alice
  expect(zerver_message!.map((m) => m.id)).toEqual(expect.arrayContaining(g.messageIds));
  const realm = jsonOf<Record<string, Row[]>>(files, "realm.json");
  const dm = zerver_message!.find((m) => m.content === "psst")!;
  expect(realm.zerver_recipient).toContainEqual({ id: dm.recipient, type: 3, type_id: dm.recipient });
  expect(realm.zerver_huddle).toContainEqual(expect.objectContaining({ recipient: dm.recipient, group_size: 2 }));
});

test("DELETE removes the tarball and keeps the row; Zulip's refusals otherwise", async () => {
  const { id, exportUrl } = await exportThroughApi(org, g.admin);
  const events = await EventReader.register(org.api(g.admin), { event_types: ["realm_export"] });
  await org.call(messaging.deleteRealmExport, { export_id: id }, g.admin);
  const { exports } = await org.call(messaging.getRealmExports, {}, g.admin);
  const row = exports.find((r) => r.id === id)!;
  expect(row).toMatchObject({ export_url: null, pending: false, failed_timestamp: null });
  expect(row.deleted_timestamp).toEqual(expect.any(Number));
  const [event] = await events.until((e) => e.length >= 1);
  expect((event!.exports as Row[]).find((r) => r.id === id)).toEqual(row);
  expect((await download(org, g.admin, new URL(exportUrl).pathname)).status).toBe(404);

  await expectZulipError(
    org.call(messaging.deleteRealmExport, { export_id: id }, g.admin),
    badRequestError("Export already deleted"),
  );
  await expectZulipError(
    org.call(messaging.deleteRealmExport, { export_id: 999_999 }, g.admin),
    badRequestError("Invalid data export ID"),
  );
});

test("at most five exports a week (Zulip's EXPORT_LIMIT)", async () => {
  const { exports } = await org.call(messaging.getRealmExports, {}, g.admin);
  for (let n = exports.length; n < 5; n++) await org.call(messaging.exportRealm, {}, g.admin);
  await expectZulipError(org.call(messaging.exportRealm, {}, g.admin), badRequestError("Exceeded rate limit."));
});

/**
 * `npm run manage -- import-realm PATH --subdomain NAME`: an organization
 * exported by this server or by Zulip (zerver/lib/export.py's layout, a
 * .tar.gz or its unpacked directory) made into a new organization here, as
 * Zulip's zerver/lib/import_realm.py does: every id is given anew by the
 * service that owns the record and the references are remapped. Requests go
 * over the bus, in batches, to the owning services.
 */
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, mkdtemp, open, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import { randomUUID } from "node:crypto";
import type { NatsConnection } from "@nats-io/transport-node";
import { extract } from "tar-stream";
import {
  BusClient,
  FILE_CHUNK_BYTES,
  NOTIFICATION_BOT,
  SYSTEM_BOT_EMAILS,
  Role,
  identity,
  messaging,
  newFileId,
  realmConfig,
  RecipientType,
  flagsOfMask,
  type Actor,
  type CallContext,
  type ExportRow,
  type RealmRef,
  type RoleValue,
} from "@teamchat/shared";

type Row = ExportRow;
type Tables = Record<string, Row[] | undefined>;

/** Messages per import request: each request stays well under NATS' message limit. */
const MESSAGE_BATCH = 100;
const MESSAGE_BATCH_BYTES = 400_000;
const USER_BATCH = 100;

const { PERSONAL, STREAM, DIRECT_MESSAGE_GROUP } = RecipientType;
/** Zulip's CustomProfileField.USER (person picker): its values are user ids, in JSON. */
const USER_FIELD = 6;

export interface ImportResult {
  realm: RealmRef;
  owner: { email: string; userId: number; apiKey: string };
  counts: Record<string, number>;
}

const num = (v: unknown): number => Number(v);
const rows = (t: Tables, name: string): Row[] => t[name] ?? [];

/** The directory holding realm.json: the path itself, or the one directory inside it (Zulip's tarballs have one). */
async function exportRoot(dir: string): Promise<string> {
  const entries = await readdir(dir, { withFileTypes: true });
  if (entries.some((e) => e.isFile() && e.name === "realm.json")) return dir;
  const inner = entries.filter((e) => e.isDirectory());
  if (inner.length === 1) return exportRoot(join(dir, inner[0]!.name));
  throw new Error(`no realm.json in ${dir}`);
}

/** Unpacks a .tar.gz into `into`, entry by entry, to disk. */
async function unpack(tarball: string, into: string): Promise<void> {
  const tar = extract();
  const reading = pipeline(createReadStream(tarball), createGunzip(), tar);
  for await (const entry of tar) {
    const target = resolve(into, entry.header.name);
    if (!target.startsWith(resolve(into) + "/")) throw new Error(`unsafe path in tarball: ${entry.header.name}`);
    if (entry.header.type === "directory") {
      await mkdir(target, { recursive: true });
      entry.resume();
      continue;
    }
    await mkdir(dirname(target), { recursive: true });
    await pipeline(entry, createWriteStream(target));
  }
  await reading;
}

const readJson = async <T>(path: string): Promise<T> => JSON.parse(await readFile(path, "utf8")) as T;

/** Zulip's role, or for older exports its is_realm_admin / is_guest flags. */
const roleOf = (u: Row): RoleValue =>
  (u.role as RoleValue | undefined) ?? (u.is_realm_admin ? Role.ADMINISTRATOR : u.is_guest ? Role.GUEST : Role.MEMBER);

export async function importRealm(
  nc: NatsConnection,
  { path, subdomain, name }: { path: string; subdomain: string; name?: string },
  progress: (line: string) => void,
): Promise<ImportResult> {
  const bus = new BusClient(nc, { timeoutMs: 60_000 });
  const requestId = `import-${randomUUID()}`;
  const scratch = (await stat(path)).isDirectory() ? null : await mkdtemp(join(tmpdir(), "realm-import-"));
  try {
    if (scratch) {
      progress(`Unpacking ${path}`);
      await unpack(path, scratch);
    }
    const root = await exportRoot(scratch ?? path);
    const t = await readJson<Tables>(join(root, "realm.json"));
    const [sourceRealm] = rows(t, "zerver_realm");
    if (!sourceRealm) throw new Error("realm.json has no zerver_realm row");

    const created = await bus.request(
      realmConfig.createRealm,
      { subdomain, name: name ?? String(sourceRealm.name) },
      { realm: null, actor: null, requestId },
    );
    if (!created.created) throw new Error(`an organization already uses the subdomain "${subdomain}"`);
    const realm = created.realm;
    const asRealm: CallContext = { realm, actor: null, requestId };
    progress(`Created organization "${realm.name}" at ${realm.uri}`);

    // users: people first, so that bots' owners have their new ids; system bots become this organization's own
    // a system bot this server does not have posts as Notification Bot
    const systemBot = async (email: unknown) => {
      const known = SYSTEM_BOT_EMAILS.find((e) => e === email) ?? NOTIFICATION_BOT.email;
      return (await bus.request(identity.getSystemBot, { email: known }, asRealm)).user_id;
    };
    const users = new Map<number, number>();
    for (const bot of rows(t, "zerver_userprofile_crossrealm")) users.set(num(bot.id), await systemBot(bot.email));
    const people = rows(t, "zerver_userprofile").filter((u) => !u.is_system_bot);
    for (const u of rows(t, "zerver_userprofile").filter((u) => u.is_system_bot)) {
      users.set(num(u.id), await systemBot(u.delivery_email ?? u.email));
    }
    const ordered = [...people.filter((u) => !u.is_bot), ...people.filter((u) => u.is_bot)];
    for (let i = 0; i < ordered.length; i += USER_BATCH) {
      const batch = ordered.slice(i, i + USER_BATCH);
      const { ids } = await bus.request(
        identity.importUsers,
        {
          users: batch.map((u) => ({
            delivery_email: String(u.delivery_email ?? u.email),
            full_name: String(u.full_name),
            role: roleOf(u),
            is_active: u.is_active !== false,
            is_bot: u.is_bot === true,
            bot_type: (u.bot_type as number | null) ?? null,
            bot_owner: u.bot_owner == null ? null : (users.get(num(u.bot_owner)) ?? null),
            date_joined: num(u.date_joined),
            timezone: String(u.timezone ?? ""),
            can_create_users: u.can_create_users === true,
            can_change_user_emails: u.can_change_user_emails === true,
            settings: u,
          })),
        },
        asRealm,
      );
      batch.forEach((u, n) => users.set(num(u.id), ids[n]!));
    }
    progress(`Users: ${people.length} imported`);

    const ownerRow = people.find((u) => roleOf(u) === Role.OWNER && u.is_active !== false && !u.is_bot);
    if (!ownerRow) throw new Error("the export has no active owner");
    const ownerEmail = String(ownerRow.delivery_email ?? ownerRow.email);
    const owner = await bus.request(
      identity.createOwner,
      { email: ownerEmail, full_name: String(ownerRow.full_name), password: null },
      asRealm,
    );
    const actor: Actor = {
      userId: owner.user_id,
      realmId: realm.id,
      email: ownerEmail,
      deliveryEmail: ownerEmail,
      fullName: String(ownerRow.full_name),
      role: Role.OWNER,
      isBot: false,
    };
    const asOwner: CallContext = { realm, actor, requestId };
    if (sourceRealm.description) {
      await bus.request(realmConfig.updateRealm, { description: String(sourceRealm.description) }, asOwner);
    }

    // custom profile fields, then each user's values (rendered again here, as Zulip renders them on import)
    const fields = new Map<number, { id: number; type: number }>();
    const fieldRows = [...rows(t, "zerver_customprofilefield")].sort((a, b) => num(a.order) - num(b.order));
    for (const f of fieldRows) {
      const fieldData = f.field_data ? (JSON.parse(String(f.field_data)) as Record<string, never>) : null;
      const { id } = await bus.request(
        realmConfig.createProfileField,
        {
          name: String(f.name),
          hint: String(f.hint ?? ""),
          field_type: num(f.field_type),
          field_data: fieldData && Object.keys(fieldData).length ? fieldData : null,
          display_in_profile_summary: f.display_in_profile_summary === true,
          required: f.required === true,
          editable_by_user: f.editable_by_user !== false,
        },
        asOwner,
      );
      fields.set(num(f.id), { id, type: num(f.field_type) });
    }
    const valuesByUser = new Map<number, Array<{ id: number; value: string | number[] }>>();
    for (const v of rows(t, "zerver_customprofilefieldvalue")) {
      const field = fields.get(num(v.field));
      const userId = users.get(num(v.user_profile));
      if (!field || userId === undefined) continue;
      const value =
        field.type === USER_FIELD
          ? (JSON.parse(String(v.value)) as number[]).map((id) => users.get(id)!).filter((id) => id !== undefined)
          : String(v.value);
      valuesByUser.set(userId, [...(valuesByUser.get(userId) ?? []), { id: field.id, value }]);
    }
    for (const [userId, profileData] of valuesByUser) {
      await bus.request(identity.updateUser, { user_id: userId, profile_data: profileData }, asOwner);
    }
    progress(`Custom profile fields: ${fields.size}, with ${valuesByUser.size} users' values`);

    // user groups (system groups are this server's own, made with the organization)
    const groups = new Map<number, number>();
    const named = rows(t, "zerver_namedusergroup").filter((g) => !g.is_system_group);
    const membersOf = (groupId: number) =>
      rows(t, "zerver_usergroupmembership")
        .filter((m) => num(m.user_group) === groupId)
        .map((m) => users.get(num(m.user_profile)))
        .filter((id): id is number => id !== undefined);
    for (const g of named) {
      const oldId = num(g.usergroup_ptr ?? g.id);
      const { group_id } = await bus.request(
        identity.createUserGroup,
        { name: String(g.name), description: String(g.description ?? ""), members: membersOf(oldId) },
        asOwner,
      );
      groups.set(oldId, group_id);
    }
    for (const m of rows(t, "zerver_groupgroupmembership")) {
      const supergroup = groups.get(num(m.supergroup));
      const subgroup = groups.get(num(m.subgroup));
      if (supergroup !== undefined && subgroup !== undefined) {
        await bus.request(identity.updateUserGroupSubgroups, { user_group_id: supergroup, add: [subgroup] }, asOwner);
      }
    }
    for (const g of named.filter((g) => g.deactivated === true)) {
      await bus.request(
        identity.deactivateUserGroup,
        { user_group_id: groups.get(num(g.usergroup_ptr ?? g.id))! },
        asOwner,
      );
    }
    progress(`User groups: ${groups.size}`);

    // channels and subscriptions; a recipient is a channel, a person or a direct message group
    const recipients = new Map(rows(t, "zerver_recipient").map((r) => [num(r.id), r]));
    const subscribersOf = new Map<number, number[]>();
    for (const s of rows(t, "zerver_subscription")) {
      const list = subscribersOf.get(num(s.recipient)) ?? [];
      list.push(num(s.user_profile));
      subscribersOf.set(num(s.recipient), list);
    }
    const defaults = new Set(rows(t, "zerver_defaultstream").map((d) => num(d.stream)));
    const { streams: streamPairs } = await bus.request(
      messaging.importChannels,
      {
        channels: rows(t, "zerver_stream").map((c) => ({
          old_id: num(c.id),
          name: String(c.name),
          description: String(c.description ?? ""),
          rendered_description: String(c.rendered_description ?? ""),
          invite_only: c.invite_only === true,
          is_web_public: c.is_web_public === true,
          history_public_to_subscribers: c.history_public_to_subscribers !== false,
          message_retention_days: (c.message_retention_days as number | null) ?? null,
          topics_policy: typeof c.topics_policy === "string" ? c.topics_policy : "inherit",
          date_created: num(c.date_created),
          creator: c.creator == null ? null : (users.get(num(c.creator)) ?? null),
          is_default: defaults.has(num(c.id)),
          archived: c.deactivated === true,
        })),
        subscriptions: rows(t, "zerver_subscription")
          .filter((s) => recipients.get(num(s.recipient))?.type === STREAM && users.has(num(s.user_profile)))
          .map((s) => ({
            user_id: users.get(num(s.user_profile))!,
            old_stream_id: num(recipients.get(num(s.recipient))!.type_id),
            active: s.active !== false,
            color: String(s.color ?? "#c2c2c2"),
            is_muted: s.is_muted === true || s.in_home_view === false,
            pin_to_top: s.pin_to_top === true,
            desktop_notifications: (s.desktop_notifications as boolean | null) ?? null,
            audible_notifications: (s.audible_notifications as boolean | null) ?? null,
            push_notifications: (s.push_notifications as boolean | null) ?? null,
            email_notifications: (s.email_notifications as boolean | null) ?? null,
            wildcard_mentions_notify: (s.wildcard_mentions_notify as boolean | null) ?? null,
          })),
      },
      asRealm,
    );
    const streams = new Map(streamPairs);
    progress(`Channels: ${streams.size}`);

    // uploads keep their path below the organization's id; links in messages follow
    const attachmentTables = await readJson<Tables>(join(root, "attachment.json")).catch(() => ({}) as Tables);
    const uploads = rows(attachmentTables, "zerver_attachment");
    const newPath = (pathId: string) => `${realm.id}/${pathId.split("/").slice(1).join("/")}`;
    const paths = new Map(uploads.map((a) => [String(a.path_id), newPath(String(a.path_id))]));
    const relink = (html: string) =>
      paths.size === 0
        ? html
        : html.replace(/\/user_uploads\/(\d+\/[^\s)"'<>]+)/g, (whole, p: string) =>
            paths.has(p) ? `/user_uploads/${paths.get(p)}` : whole,
          );
    // Zulip's import_realm fixes the ids rendered messages carry (mentions, channel links) likewise
    const remapped = (map: Map<number, number>, id: string) => String(map.get(Number(id)) ?? id);
    const rerender = (html: string) =>
      relink(html)
        .replace(/data-user-id="(\d+)"/g, (_w, id: string) => `data-user-id="${remapped(users, id)}"`)
        .replace(/data-user-group-id="(\d+)"/g, (_w, id: string) => `data-user-group-id="${remapped(groups, id)}"`)
        .replace(/data-stream-id="(\d+)"/g, (_w, id: string) => `data-stream-id="${remapped(streams, id)}"`)
        .replace(
          /#narrow\/(stream|channel)\/(\d+)-/g,
          (_w, kind: string, id: string) => `#narrow/${kind}/${remapped(streams, id)}-`,
        );

    // messages, file by file, in batches; reactions are in realm.json
    const reactionsOf = new Map<number, Row[]>();
    for (const r of rows(t, "zerver_reaction")) {
      reactionsOf.set(num(r.message), [...(reactionsOf.get(num(r.message)) ?? []), r]);
    }
    const clients = new Map(rows(t, "zerver_client").map((c) => [num(c.id), String(c.name)]));
    const remapHistory = (text: unknown, oldest: boolean) => {
      if (!text) return null;
      const entries = (typeof text === "string" ? JSON.parse(text) : text) as Array<Record<string, unknown>>;
      return (oldest ? entries : [...entries].reverse()).map((e) => ({
        ...e,
        user_id: e.user_id == null ? null : (users.get(num(e.user_id)) ?? null),
        timestamp: num(e.timestamp),
        ...(e.prev_stream !== undefined ? { prev_stream: streams.get(num(e.prev_stream)) } : {}),
        ...(e.stream !== undefined ? { stream: streams.get(num(e.stream)) } : {}),
        ...(e.prev_content !== undefined ? { prev_content: String(e.prev_content) } : {}),
        ...(e.prev_rendered_content !== undefined
          ? { prev_rendered_content: rerender(String(e.prev_rendered_content)) }
          : {}),
      }));
    };
    const messages = new Map<number, number>();
    const messageFiles = (await readdir(root)).filter((f) => /^messages-\d+\.json$/.test(f)).sort();
    for (const file of messageFiles) {
      const m = await readJson<Tables>(join(root, file));
      const flagsOf = new Map<number, Array<{ user_id: number; flags: string[] }>>();
      for (const um of rows(m, "zerver_usermessage")) {
        const userId = users.get(num(um.user_profile));
        if (userId === undefined) continue;
        const flags = Array.isArray(um.flags) ? (um.flags as string[]) : flagsOfMask(num(um.flags_mask));
        flagsOf.set(num(um.message), [...(flagsOf.get(num(um.message)) ?? []), { user_id: userId, flags }]);
      }
      let batch: Row[] = [];
      let batchBytes = 0;
      const send = async () => {
        if (!batch.length) return;
        const { ids } = await bus.request(
          messaging.importMessages,
          { messages: batch.map((row) => importedMessage(row)) },
          asRealm,
        );
        batch.forEach((row, n) => messages.set(num(row.id), ids[n]!));
        batch = [];
        batchBytes = 0;
      };
      const importedMessage = (row: Row) => {
        const recipient = recipients.get(num(row.recipient))!;
        const sender = users.get(num(row.sender))!;
        const type = num(recipient.type);
        const dmUsers =
          type === PERSONAL
            ? [...new Set([sender, users.get(num(recipient.type_id))!])]
            : type === DIRECT_MESSAGE_GROUP
              ? (subscribersOf.get(num(recipient.id)) ?? []).map((u) => users.get(u)!)
              : null;
        return {
          sender,
          stream_id: type === STREAM ? streams.get(num(recipient.type_id))! : null,
          dm_user_ids: dmUsers,
          topic: String(row.subject ?? ""),
          content: relink(String(row.content)).replace(
            /(@_?\*\*[^*|]+\|)(\d+)\*\*/g,
            (_w, mention: string, id: string) => `${mention}${remapped(users, id)}**`,
          ),
          rendered_content: rerender(String(row.rendered_content ?? "")),
          date_sent: Math.round(num(row.date_sent ?? row.pub_date)),
          client: clients.get(num(row.sending_client)) ?? "Internal",
          edit_history: remapHistory(row.edit_history, false),
          last_edit_time: row.last_edit_time == null ? null : Math.round(num(row.last_edit_time)),
          resolve_topic_notification: num(row.type) === 2,
          reactions: (reactionsOf.get(num(row.id)) ?? []).map((r) => ({
            user_id: users.get(num(r.user_profile))!,
            emoji_name: String(r.emoji_name),
            emoji_code: String(r.emoji_code),
            reaction_type: String(r.reaction_type),
          })),
          user_messages: flagsOf.get(num(row.id)) ?? [],
        };
      };
      for (const row of rows(m, "zerver_message")) {
        if (!recipients.has(num(row.recipient)) || !users.has(num(row.sender))) continue;
        batch.push(row);
        batchBytes += String(row.content).length + String(row.rendered_content ?? "").length;
        if (batch.length >= MESSAGE_BATCH || batchBytes >= MESSAGE_BATCH_BYTES) await send();
      }
      await send();
      progress(`Messages: ${messages.size} (${file})`);
    }

    // uploads: the bytes in chunks through messaging's file transfer, then the records
    const records = await readJson<Row[]>(join(root, "uploads", "records.json")).catch(() => [] as Row[]);
    const recordOf = new Map(records.map((r) => [String(r.s3_path ?? r.path), r]));
    const linkRows = rows(attachmentTables, "zerver_attachment_messages");
    let uploaded = 0;
    for (const a of uploads) {
      const pathId = String(a.path_id);
      const record = recordOf.get(pathId);
      const file = join(root, "uploads", String(record?.path ?? pathId));
      const size = (await stat(file)).size;
      const fileId = newFileId();
      const handle = await open(file);
      try {
        for (let n = 0; n * FILE_CHUNK_BYTES < Math.max(size, 1); n++) {
          const buffer = Buffer.alloc(Math.min(FILE_CHUNK_BYTES, size - n * FILE_CHUNK_BYTES));
          await handle.read(buffer, 0, buffer.length, n * FILE_CHUNK_BYTES);
          await bus.request(
            messaging.uploadFiles.putChunk,
            { file_id: fileId, n, data: buffer.toString("base64") },
            asRealm,
          );
        }
      } finally {
        await handle.close();
      }
      const linked = Array.isArray(a.messages)
        ? (a.messages as number[])
        : linkRows.filter((l) => num(l.attachment_id) === num(a.id)).map((l) => num(l.message_id));
      await bus.request(
        messaging.importAttachments,
        {
          attachments: [
            {
              path_id: paths.get(pathId)!,
              file_id: fileId,
              name: String(a.file_name),
              content_type: String(a.content_type ?? record?.content_type ?? "application/octet-stream"),
              size,
              owner: users.get(num(a.owner))!,
              create_time: num(a.create_time),
              message_ids: linked.map((id) => messages.get(id)).filter((id): id is number => id !== undefined),
            },
          ],
        },
        asRealm,
      );
      uploaded++;
    }
    progress(`Uploads: ${uploaded}`);

    return {
      realm,
      owner: { email: ownerEmail, userId: owner.user_id, apiKey: owner.api_key },
      counts: {
        users: people.length,
        channels: streams.size,
        messages: messages.size,
        uploads: uploaded,
        groups: groups.size,
      },
    };
  } finally {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }
}

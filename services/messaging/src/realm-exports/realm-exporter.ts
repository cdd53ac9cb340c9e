import { randomBytes, randomUUID } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdtemp, rm, stat, writeFile, appendFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "pino";
import {
  chunkCount,
  identity,
  messaging,
  newFileId,
  realmConfig,
  RecipientType,
  flagsMask,
  type BusClient,
  type ExportRow,
  type FileStore,
  type HandlerContext,
} from "@teamchat/shared";
import type { MessageDoc } from "../messages/message.schema";
import type { RealmExportDoc } from "./realm-export.schema";
import type { RealmExportRepository } from "./realm-export.repository";
import { TarballWriter } from "./tarball";
import { attachmentRow, channelRow, messageRow, subscriptionRow, type MessagingTables } from "./messaging-tables";

/** Zulip's MESSAGE_BATCH_CHUNK_SIZE: messages per messages-NNNNNN.json file. */
const MESSAGES_PER_FILE = 1000;
/** Users per request to identity (each reply stays under NATS' message limit). */
const USER_PAGE = 200;

export interface ExporterDeps {
  bus: BusClient;
  tables: MessagingTables;
  files: FileStore;
  exports: RealmExportRepository;
}

const json = (data: unknown) => JSON.stringify(data, null, 1);

/** The `realm_id/exports/<random>/zulip-export-<random>.tar.gz` path a finished tarball is served at. */
const exportPathId = (realmId: number) =>
  `${realmId}/exports/${randomBytes(18).toString("base64url")}/zulip-export-${randomBytes(6).toString("hex")}.tar.gz`;

/**
 * Zulip's do_export_realm, written as it is read: realm.json (written last,
 * as Zulip does, with the reactions gathered on the way), messages-NNNNNN.json
 * of MESSAGES_PER_FILE messages each with their user rows, attachment.json,
 * uploads/records.json and every upload's bytes under uploads/<path id>.
 * Messages and uploads pass through a page at a time; reactions wait in a
 * temporary file. The user rows are worked out from the organization's read
 * states and rows, held for the whole export (MessagingTables.userMessageFlags).
 */
export class RealmExporter {
  constructor(
    private readonly deps: ExporterDeps,
    private readonly log: Logger,
  ) {}

  /**
   * One attempt at an export: null when there is nothing to do (deleted, or
   * already done). An abort (the instance stops) throws and leaves the export
   * started, for the next attempt; any other failure marks it failed, as Zulip does.
   */
  async run(exportId: number, realmId: number, signal: AbortSignal): Promise<RealmExportDoc | null> {
    const fileId = newFileId();
    const previous = await this.deps.exports.byId(realmId, exportId);
    const started = await this.deps.exports.start(realmId, exportId, fileId);
    if (!started) return null;
    // a dead instance's partial tarball
    if (previous?.fileId) await this.deps.files.remove(realmId, [previous.fileId]);
    const ctx = this.contextFor(started);
    ctx.log.info({ exportId, attempt: started.attempts }, "realm export started");
    const scratch = await mkdtemp(join(tmpdir(), "realm-export-"));
    const tarball = new TarballWriter(this.deps.files, realmId, fileId);
    try {
      const stats = await this.writeTarball(started, ctx, tarball, scratch, signal);
      await tarball.finish();
      const done = await this.deps.exports.succeed(realmId, exportId, fileId, exportPathId(realmId), tarball.size);
      ctx.log.info({ exportId, size: tarball.size, ...stats }, "realm export done");
      return done;
    } catch (err) {
      tarball.discard();
      if (signal.aborted) throw err;
      ctx.log.error({ err, exportId }, "realm export failed");
      await this.deps.files.remove(realmId, [fileId]);
      return this.deps.exports.fail(realmId, exportId, fileId);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }

  private contextFor(e: RealmExportDoc): HandlerContext {
    const requestId = `realm-export-${e.realmId}-${e.exportId}-${randomUUID()}`;
    return {
      realm: e.realm,
      actor: e.actor,
      requestId,
      log: this.log.child({ requestId, realmId: e.realmId }),
      parked: (wait) => wait,
    };
  }

  private async writeTarball(
    e: RealmExportDoc,
    ctx: HandlerContext,
    tarball: TarballWriter,
    scratch: string,
    signal: AbortSignal,
  ) {
    const { bus, tables } = this.deps;
    const realmId = e.realmId;
    const dir = `zulip-export-${realmId}`;
    const config = await bus.request(realmConfig.exportRealmConfig, {}, ctx);
    const users = await this.users(ctx);
    const groups = await bus.request(identity.exportUserGroups, {}, ctx);
    const consenting = new Set(
      users.zerver_userprofile.filter((u) => u.allow_private_data_export === true).map((u) => u.id as number),
    );

    const channels = await tables.channels(realmId);
    const publicChannels = new Set(channels.filter((c) => !c.inviteOnly).map((c) => c.streamId));
    const recipients: ExportRow[] = channels.map((c) => ({
      id: c.recipientId,
      type: RecipientType.STREAM,
      type_id: c.streamId,
    }));
    const recipientOfChannel = new Map(channels.map((c) => [c.streamId, c.recipientId]));
    let subscriptionId = 0;
    const subscriptions: ExportRow[] = (await tables.subscriptions(realmId))
      .filter((s) => recipientOfChannel.has(s.streamId))
      .map((s) => subscriptionRow(++subscriptionId, recipientOfChannel.get(s.streamId)!, s));
    // a direct message conversation is a group (Zulip's DirectMessageGroup), or with oneself a personal recipient
    const huddles: ExportRow[] = [];
    for (const c of await tables.conversations(realmId)) {
      const self = c.userIds.length === 1;
      recipients.push({
        id: c.recipientId,
        type: self ? RecipientType.PERSONAL : RecipientType.DIRECT_MESSAGE_GROUP,
        type_id: self ? c.userIds[0] : c.recipientId,
      });
      if (!self)
        huddles.push({ id: c.recipientId, huddle_hash: c.key, recipient: c.recipientId, group_size: c.userIds.length });
      for (const userId of c.userIds) subscriptions.push(subscriptionRow(++subscriptionId, c.recipientId, { userId }));
    }

    // Zulip's public export holds only public channels' messages; a full one adds what consenting members received.
    const userMessagesOf = await tables.userMessageFlags(realmId);
    const exported = (m: MessageDoc) =>
      (m.streamId !== null && publicChannels.has(m.streamId)) ||
      (e.type === messaging.ExportType.FULL_WITH_CONSENT && userMessagesOf(m).some((r) => consenting.has(r.userId)));
    const clients = new Map<string, number>();
    const clientId = (name: string) => clients.get(name) ?? clients.set(name, clients.size + 1).get(name)!;
    const reactionsFile = join(scratch, "reactions.json");
    await writeFile(reactionsFile, "");
    let reactionCount = 0;
    let userMessageId = 0;
    let messageCount = 0;
    let fileNumber = 0;
    let batch: MessageDoc[] = [];
    const writeBatch = async () => {
      signal.throwIfAborted();
      if (!batch.length) return;
      const file = {
        zerver_message: batch.map((m) => messageRow(realmId, m, clientId(m.client))),
        zerver_usermessage: batch.flatMap((m) =>
          userMessagesOf(m).map((r) => ({
            id: ++userMessageId,
            user_profile: r.userId,
            message: m.messageId,
            flags_mask: flagsMask(r.flags),
          })),
        ),
      };
      const reactions = batch.flatMap((m) =>
        (m.reactions ?? []).map((r) => ({
          id: ++reactionCount,
          user_profile: r.userId,
          message: m.messageId,
          emoji_name: r.emojiName,
          emoji_code: r.emojiCode,
          reaction_type: r.reactionType,
        })),
      );
      if (reactions.length) {
        await appendFile(reactionsFile, reactions.map((r) => json(r)).join(",\n") + ",\n");
      }
      await tarball.add(`${dir}/messages-${String(++fileNumber).padStart(6, "0")}.json`, json(file));
      messageCount += batch.length;
      batch = [];
    };
    for await (const page of tables.messagePages(realmId)) {
      for (const m of page) {
        if (!exported(m)) continue;
        batch.push(m);
        if (batch.length === MESSAGES_PER_FILE) await writeBatch();
      }
      ctx.log.info({ messages: messageCount + batch.length }, "realm export progress");
    }
    await writeBatch();

    const attachments = await tables.attachments(realmId);
    let attachmentMessageId = 0;
    await tarball.add(
      `${dir}/attachment.json`,
      json({
        zerver_attachment: attachments.map((a) => attachmentRow(realmId, a)),
        zerver_attachment_messages: attachments.flatMap((a) =>
          a.messages.map((m) => ({ id: ++attachmentMessageId, attachment_id: a.attachmentId, message_id: m.id })),
        ),
        zerver_attachment_scheduled_messages: [],
      }),
    );
    const emailOf = new Map(users.zerver_userprofile.map((u) => [u.id as number, u.delivery_email]));
    await tarball.add(
      `${dir}/uploads/records.json`,
      json(
        attachments.map((a) => ({
          path: a.pathId,
          s3_path: a.pathId,
          realm_id: realmId,
          user_profile_id: a.ownerId,
          user_profile_email: emailOf.get(a.ownerId) ?? null,
          content_type: a.contentType,
          last_modified: a.createTime.getTime() / 1000,
          size: a.size,
        })),
      ),
    );
    for (const a of attachments) {
      await tarball.addStream(`${dir}/uploads/${a.pathId}`, a.size, this.chunksOf(realmId, a.fileId, a.size, signal));
    }

    const realmTables = {
      zerver_realm: config.zerver_realm,
      zerver_userprofile: users.zerver_userprofile,
      zerver_userprofile_crossrealm: users.zerver_userprofile_crossrealm,
      zerver_customprofilefield: config.zerver_customprofilefield,
      zerver_customprofilefieldvalue: users.zerver_customprofilefieldvalue,
      zerver_stream: channels.map((c) => channelRow(realmId, c)),
      zerver_defaultstream: channels
        .filter((c) => c.isDefault)
        .map((c, n) => ({ id: n + 1, realm: realmId, stream: c.streamId })),
      zerver_recipient: recipients,
      zerver_subscription: subscriptions,
      zerver_huddle: huddles,
      ...groups,
      zerver_realmemoji: config.zerver_realmemoji,
      zerver_realmfilter: config.zerver_realmfilter,
      zerver_client: [...clients].map(([name, id]) => ({ id, name })),
    };
    await this.addRealmJson(tarball, `${dir}/realm.json`, realmTables, reactionsFile);
    return { messages: messageCount, users: users.zerver_userprofile.length, reactions: reactionCount };
  }

  /** Every page of users with their profile values. */
  private async users(ctx: HandlerContext) {
    const all = {
      zerver_userprofile: [] as ExportRow[],
      zerver_customprofilefieldvalue: [] as ExportRow[],
      zerver_userprofile_crossrealm: [] as ExportRow[],
    };
    for (let after = 0; ;) {
      const page = await this.deps.bus.request(identity.exportUsers, { after_user_id: after, limit: USER_PAGE }, ctx);
      all.zerver_userprofile.push(...page.zerver_userprofile);
      all.zerver_userprofile_crossrealm.push(...page.zerver_userprofile_crossrealm);
      for (const value of page.zerver_customprofilefieldvalue) {
        all.zerver_customprofilefieldvalue.push({ id: all.zerver_customprofilefieldvalue.length + 1, ...value });
      }
      if (page.zerver_userprofile.length < USER_PAGE) return all;
      after = page.zerver_userprofile[page.zerver_userprofile.length - 1]!.id as number;
    }
  }

  private async *chunksOf(realmId: number, fileId: string, size: number, signal: AbortSignal): AsyncGenerator<Buffer> {
    for (let n = 0; n < chunkCount(size); n++) {
      signal.throwIfAborted();
      const chunk = await this.deps.files.readChunk(realmId, fileId, n);
      if (!chunk) throw new Error(`upload ${fileId} has no chunk ${n}`);
      yield chunk;
    }
  }

  /** realm.json with zerver_reaction streamed from the temporary file the message pass wrote. */
  private async addRealmJson(
    tarball: TarballWriter,
    name: string,
    realmTables: Record<string, unknown>,
    reactionsFile: string,
  ): Promise<void> {
    const head = Buffer.from(json(realmTables).replace(/\n}$/, ',\n "zerver_reaction": [\n'));
    const written = (await stat(reactionsFile)).size;
    // the file's rows each end with ",\n"; the last comma is left out
    const reactionBytes = Math.max(0, written - 2);
    const tail = Buffer.from("\n]\n}");
    async function* pieces(): AsyncGenerator<Buffer> {
      yield head;
      if (reactionBytes > 0) {
        for await (const piece of createReadStream(reactionsFile, { end: reactionBytes - 1 })) yield piece as Buffer;
      }
      yield tail;
    }
    await tarball.addStream(name, head.length + reactionBytes + tail.length, pieces());
  }
}

import {
  badRequest,
  identityEvents,
  requireUser,
  type EventPublisher,
  type Handler,
  type identity,
} from "@teamchat/shared";
import type { DeviceRepository } from "../devices/device.repository";

/** POST /register_client_device (Zulip's do_register_device): the new id, and device add to the user. */
export const registerClientDeviceHandler =
  ({
    devices,
    events,
  }: {
    devices: DeviceRepository;
    events: EventPublisher<"identity">;
  }): Handler<typeof identity.registerClientDevice> =>
  async (_params, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const { deviceId } = await devices.insert(realm.id, actor.userId);
    const event = { type: "device" as const, op: "add" as const, device_id: deviceId };
    events.publish(identityEvents.device, { realmId: realm.id, userIds: [actor.userId], event }, ctx.requestId);
    return { device_id: deviceId };
  };

/** POST /remove_client_device (Zulip's do_remove_device): only one's own; device remove to the user. */
export const removeClientDeviceHandler =
  ({
    devices,
    events,
  }: {
    devices: DeviceRepository;
    events: EventPublisher<"identity">;
  }): Handler<typeof identity.removeClientDevice> =>
  async ({ device_id }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    if (!(await devices.remove(realm.id, actor.userId, device_id))) throw badRequest("Invalid `device_id`");
    const event = { type: "device" as const, op: "remove" as const, device_id };
    events.publish(identityEvents.device, { realmId: realm.id, userIds: [actor.userId], event }, ctx.requestId);
    return {};
  };

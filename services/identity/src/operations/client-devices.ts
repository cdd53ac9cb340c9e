import { identity, type BusServer, type EventPublisher } from "@teamchat/shared";
import type { DeviceRepository } from "../devices/device.repository";
import { registerClientDeviceHandler, removeClientDeviceHandler } from "../handlers/client-devices";

/** A user's client devices. */
export function registerClientDeviceOperations(
  server: BusServer,
  {
    devices,
    events,
  }: {
    devices: DeviceRepository;
    events: EventPublisher<"identity">;
  },
): void {
  server
    .handle(identity.registerClientDevice, registerClientDeviceHandler({ devices, events }))
    .handle(identity.removeClientDevice, removeClientDeviceHandler({ devices, events }));
}

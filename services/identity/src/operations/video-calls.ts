import { identity, type BusServer } from "@teamchat/shared";
import { createBigBlueButtonCallHandler, createWebexCallHandler, createZoomCallHandler } from "../handlers/video-calls";
import type { CallSigningKeyRepository } from "../video-calls/call-signing-key.repository";

/** Video call links: BigBlueButton's signed, Zoom's and Webex's. */
export function registerVideoCallOperations(
  server: BusServer,
  {
    signingKeys,
  }: {
    signingKeys: CallSigningKeyRepository;
  },
): void {
  server
    .handle(identity.createBigBlueButtonCall, createBigBlueButtonCallHandler({ signingKeys }))
    .handle(identity.createZoomCall, createZoomCallHandler)
    .handle(identity.createWebexCall, createWebexCallHandler);
}

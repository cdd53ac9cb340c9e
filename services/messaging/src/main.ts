import { runService } from "@teamchat/shared";
import { buildMessaging } from "./app";

runService("messaging", buildMessaging);

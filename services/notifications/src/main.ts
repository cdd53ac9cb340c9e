import { runService } from "@teamchat/shared";
import { buildNotifications } from "./app";

runService("notifications", buildNotifications);

import { identity, registerStateHandler, type BusServer } from "@teamchat/shared";
import type { ApiKeyRepository } from "../api-keys/api-key.repository";
import { botsState } from "../bots/bots.state";
import type { DeviceRepository } from "../devices/device.repository";
import { devicesState, type DeviceLists } from "../devices/devices.state";
import type { NavigationViewRepository } from "../navigation-views/navigation-view.repository";
import { navigationViewsState, type NavigationViewLists } from "../navigation-views/navigation-views.state";
import type { OnboardingStepRepository } from "../onboarding-steps/onboarding-step.repository";
import { onboardingStepsState, type OnboardingStepLists } from "../onboarding-steps/onboarding-steps";
import { presenceState } from "../presence/presence.state";
import type { Presences } from "../presence/presences";
import type { PushDeviceRepository } from "../push-devices/push-device.repository";
import { pushDevicesState, type PushDeviceLists } from "../push-devices/push-devices.state";
import { statusState } from "../status/status.state";
import type { RealmUserDefaults } from "../user-defaults/realm-user-defaults";
import type { UserGroupRepository } from "../user-groups/user-group.repository";
import { userGroupsState, type UserGroupLists } from "../user-groups/user-groups.state";
import type { RealmUserLists } from "../users/realm-user-lists";
import { settingsState } from "../users/settings.state";
import type { UserDirectory } from "../users/user-directory";
import { usersState } from "../users/users.state";

/** register's identity parts, one provider for each. */
export function registerStateOperation(
  server: BusServer,
  {
    users,
    userLists,
    keys,
    presence,
    userDefaults,
    groups,
    groupLists,
    navigationViews,
    viewLists,
    onboardingSteps,
    onboardingLists,
    devices,
    deviceLists,
    pushDevices,
    pushDeviceLists,
  }: {
    users: UserDirectory;
    userLists: RealmUserLists;
    keys: ApiKeyRepository;
    presence: Presences;
    userDefaults: RealmUserDefaults;
    groups: UserGroupRepository;
    groupLists: UserGroupLists;
    navigationViews: NavigationViewRepository;
    viewLists: NavigationViewLists;
    onboardingSteps: OnboardingStepRepository;
    onboardingLists: OnboardingStepLists;
    devices: DeviceRepository;
    deviceLists: DeviceLists;
    pushDevices: PushDeviceRepository;
    pushDeviceLists: PushDeviceLists;
  },
): void {
  server.handle(
    identity.registerState,
    registerStateHandler(identity.registerState, [
      ...usersState({ users, lists: userLists }),
      ...userGroupsState({ groupLists, groups, users }),
      ...botsState({ users, keys }),
      ...presenceState({ presence }),
      ...statusState({ users }),
      ...settingsState({ users, userDefaults }),
      ...navigationViewsState({ navigationViews, viewLists }),
      ...onboardingStepsState({ onboardingSteps, onboardingLists }),
      ...pushDevicesState({ pushDevices, pushDeviceLists }),
      ...devicesState({ devices, deviceLists }),
    ]),
  );
}

@import UIKit;
@import CometChatPushNotificationsSwift;

@interface SettingsScreen : UIViewController
@end

@implementation SettingsScreen

- (void)checkPush {
    [CometChatPushNotifications.shared ensureRingReady:^(PNRingReadiness readiness, PNError *error) {
        if (error == nil && readiness != PNRingReadinessReady) { NSLog(@"Push not ready"); }
    }];
    NSDictionary<NSString *, id> *diagnostics = [CometChatPushNotifications.shared getDiagnostics];
    NSLog(@"%@", diagnostics);
}

- (void)logOut {
    [CometChatPushNotifications.shared unregisterTokensWithCompletion:^(PNError *error) {
        // log out of the Chat SDK here
    }];
}

- (void)viewWillAppear:(BOOL)animated {
    [super viewWillAppear:animated];
    [CometChatPushNotifications.shared setActiveConversationWithUserId:@"cometchat-uid-1"];
}

- (void)viewWillDisappear:(BOOL)animated {
    [super viewWillDisappear:animated];
    [CometChatPushNotifications.shared clearActiveConversation];
}

@end

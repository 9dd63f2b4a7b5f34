@import UIKit;
@import CometChatPushNotificationsSwift;

@interface ConversationSettings : NSObject
@end

@implementation ConversationSettings

- (void)muteBobUntilTomorrow {
    NSDate *tomorrow = [NSDate dateWithTimeIntervalSinceNow:86400];
    [CometChatPushNotifications.shared setConversationMutedWithUserId:@"bob" until:tomorrow
        completion:^(PNNotificationPreferences *preferences, PNError *error) {
            if (error.code == PNErrorCodeNotSupported) { NSLog(@"Needs a self-hosted push service"); }
        }];
    [CometChatPushNotifications.shared setGroupNotificationLevel:PNGroupNotificationLevelMentionsOnly
        groupId:@"climbers" completion:nil];
}

- (void)quietAtNight {
    NSDateComponents *start = [[NSDateComponents alloc] init];
    start.hour = 22;
    NSDateComponents *end = [[NSDateComponents alloc] init];
    end.hour = 7;
    [CometChatPushNotifications.shared setQuietHoursWithStart:start end:end includeCalls:NO completion:nil];
    [CometChatPushNotifications.shared getPreferencesWithCompletion:^(PNNotificationPreferences *preferences, PNError *error) {
        NSLog(@"%lu muted conversations", (unsigned long)preferences.mutes.count);
    }];
}

- (void)didReadConversationWithBob {
    [CometChatPushNotifications.shared markConversationReadWithUserId:@"bob" unreadCount:@3
        completion:^(PNError *error) { if (error != nil) { NSLog(@"%@", error.message); } }];
}

@end

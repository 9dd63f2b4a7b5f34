@import UserNotifications;
@import CometChatPushNotificationsSwift;
@import CometChatPushNotificationsCalls;
#import "CallsDelegate.h"

@implementation CallsDelegate (MissedCalls)

// A tap on a missed call's notification, or its Call back action.
- (void)callBack:(PNMissedCall *)call {
    // Place the call with your calls SDK: to the caller, or to the group for a group call.
    NSString *callee = call.isGroup ? call.receiver : call.callerUid;
    NSLog(@"Call %@ back (%@ call from %@)", callee, call.isVideo ? @"video" : @"audio", call.callerName);
}

@end

@interface MissedCallSettings : NSObject
@end

@implementation MissedCallSettings

// Missed-call notifications are on by default; this configuration turns them off.
+ (PNConfiguration *)configurationWithoutMissedCalls {
    return [[[[PNConfiguration builderWithAppId:@"APP_ID" region:@"REGION"]
        providerId:@"PROVIDER_ID"]
        missedCallNotifications:NO]
        build];
}

// Categories of your own, set after initialize: keep the SDK's (Reply, Call back).
+ (void)addCategory:(UNNotificationCategory *)category {
    NSMutableSet<UNNotificationCategory *> *categories = [CometChatPushNotifications.shared.notificationCategories mutableCopy];
    [categories addObject:category];
    [UNUserNotificationCenter.currentNotificationCenter setNotificationCategories:categories];
}

@end

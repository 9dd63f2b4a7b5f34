@import CometChatPushNotificationsSwift;
@import CometChatPushNotificationsCalls;

@interface CallsDelegate : NSObject <CometChatPushNotificationsCallsDelegate>
@end

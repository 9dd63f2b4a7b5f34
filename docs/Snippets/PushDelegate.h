@import CometChatPushNotificationsSwift;
@import CometChatPushNotificationsChat;

@interface PushDelegate : NSObject <CometChatPushNotificationsChatDelegate>
@end

@import UserNotifications;
@import CometChatPushNotificationsChat;

// Objective-C cannot subclass the Swift base class: subclass UNNotificationServiceExtension and
// hand both calls to a PNNotificationServiceHandler.
@interface NotificationService : UNNotificationServiceExtension
@property (nonatomic, strong) PNNotificationServiceHandler *handler;
@end

@implementation NotificationService

- (void)didReceiveNotificationRequest:(UNNotificationRequest *)request
                   withContentHandler:(void (^)(UNNotificationContent *))contentHandler {
    self.handler = [[PNNotificationServiceHandler alloc] init];
    self.handler.finalizeContent = ^UNMutableNotificationContent *(UNMutableNotificationContent *content) {
        id raw = content.userInfo[@"unreadMessageCount"];
        if ([raw isKindOfClass:[NSNumber class]] || [raw isKindOfClass:[NSString class]]) {
            NSInteger count = [raw integerValue];
            if (count >= 0) { content.badge = @(count); }
        }
        return content;
    };
    [self.handler didReceiveNotificationRequest:request withContentHandler:contentHandler];
}

- (void)serviceExtensionTimeWillExpire {
    [self.handler serviceExtensionTimeWillExpire];
}

@end

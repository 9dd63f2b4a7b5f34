#import "PushDelegate.h"

@implementation PushDelegate
// Chat product: a tapped chat notification.
- (void)navigateToChatForUser:(PNUser *)user { NSLog(@"open the conversation with %@", user.uid); }
- (void)navigateToChatForGroup:(PNGroup *)group { NSLog(@"open the group %@", group.guid); }

// A tapped campaign notification sent from the dashboard (already marked clicked).
- (void)navigateToNotificationsFeed { /* open your notifications screen */ }

// A quick reply that could not be sent (the user also sees a local notification).
- (void)didFailToSendReply:(NSString *)text toNotification:(PNNotificationInfo *)info error:(PNError *)error {
    NSLog(@"Reply not sent: %@", error.message);
}

// A message was edited or deleted: its notification, if still shown, already changed.
- (void)didEditMessage:(PNMessageChange *)change { NSLog(@"edited %@ in %@", change.messageId, change.conversationId); }
- (void)didDeleteMessage:(PNMessageChange *)change { NSLog(@"deleted %@ in %@", change.messageId, change.conversationId); }

// A tap no product recognised.
- (void)didTapNotification:(PNNotificationInfo *)info { NSLog(@"tapped %@", info.rawPayload); }

// Fallback when the matching method above is not implemented.
- (void)navigateToDefaultScreen { }

- (void)onPushTokenRegisteredWithPlatform:(CometChatPushTokenPlatform)platform { }
- (void)onPushTokenRegistrationFailedWithPlatform:(CometChatPushTokenPlatform)platform error:(PNError *)error {
    NSLog(@"Push token not registered: %@", error.message);
}
@end

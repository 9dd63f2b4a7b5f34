// VoIPRegistry.m
@import PushKit;
@import CometChatPushNotificationsCalls;

// An app that owns its PushKit registry (pushKitOwnership: .app) forwards to the Calls product.
@interface VoIPRegistry : NSObject <PKPushRegistryDelegate>
@end

@implementation VoIPRegistry

- (void)pushRegistry:(PKPushRegistry *)registry didUpdatePushCredentials:(PKPushCredentials *)credentials forType:(PKPushType)type {
    [CometChatPushNotificationsCalls.shared handleVoIPToken:credentials.token];
}

- (void)pushRegistry:(PKPushRegistry *)registry didInvalidatePushTokenForType:(PKPushType)type {
    [CometChatPushNotificationsCalls.shared invalidateVoIPToken];
}

// Before iOS 26.4: every VoIP push must be reported, and the product reports each one.
- (void)pushRegistry:(PKPushRegistry *)registry didReceiveIncomingPushWithPayload:(PKPushPayload *)payload forType:(PKPushType)type withCompletionHandler:(void (^)(void))completion {
    [CometChatPushNotificationsCalls.shared handleIncomingVoIPPush:payload.dictionaryPayload completion:completion];
}

// iOS 26.4 and later call this one instead, and say whether the push must be reported.
- (void)pushRegistry:(PKPushRegistry *)registry didReceiveIncomingVoIPPushWithPayload:(PKPushPayload *)payload metadata:(PKVoIPPushMetadata *)metadata withCompletionHandler:(void (^)(void))completion API_AVAILABLE(ios(26.4)) {
    [CometChatPushNotificationsCalls.shared handleIncomingVoIPPush:payload.dictionaryPayload mustReport:metadata.mustReport completion:completion];
}

@end

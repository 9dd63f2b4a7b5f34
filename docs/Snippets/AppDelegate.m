@import UIKit;
@import CometChatPushNotificationsSwift;
#import "PushDelegate.h"

@interface AppDelegate : UIResponder <UIApplicationDelegate>
@property (nonatomic, strong) UIWindow *window;
// The SDK holds its delegate weakly: the app keeps it alive.
@property (nonatomic, strong) PushDelegate *pushDelegate;
@end

@implementation AppDelegate

- (BOOL)application:(UIApplication *)application didFinishLaunchingWithOptions:(NSDictionary *)launchOptions {
    self.pushDelegate = [[PushDelegate alloc] init];
    CometChatPushNotifications.shared.delegate = self.pushDelegate;

    PNConfiguration *config = [[[[PNConfiguration builderWithAppId:@"APP_ID" region:@"REGION"]
        providerId:@"PROVIDER_ID"]
        extensionGroupID:@"group.com.yourcompany.yourapp"]
        build];
    [CometChatPushNotifications.shared initializeWithConfig:config];
    return YES;
}

- (void)application:(UIApplication *)application didRegisterForRemoteNotificationsWithDeviceToken:(NSData *)deviceToken {
    [CometChatPushNotifications.shared registerDeviceToken:deviceToken completion:nil];
}

- (void)application:(UIApplication *)application didFailToRegisterForRemoteNotificationsWithError:(NSError *)error {
    [CometChatPushNotifications.shared handleRegistrationFailure:error];
}

- (void)application:(UIApplication *)application didReceiveRemoteNotification:(NSDictionary *)userInfo
    fetchCompletionHandler:(void (^)(UIBackgroundFetchResult))completionHandler {
    // Complete only when the SDK is done: iOS may suspend the app as soon as this runs.
    [CometChatPushNotifications.shared handleBackgroundNotificationWithUserInfo:userInfo
        completion:^(PNBackgroundFetchResult result) { completionHandler((UIBackgroundFetchResult)result); }];
}

@end

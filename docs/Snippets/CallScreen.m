@import UIKit;
@import CometChatPushNotificationsCalls;

@interface CallScreen : UIViewController
@property (nonatomic, copy) NSString *sessionId;
@end

@implementation CallScreen

// Your in-app incoming-call banner's Decline button.
- (void)declineTapped:(id)sender {
    [CometChatPushNotificationsCalls.shared declineWithSessionId:self.sessionId completion:^(PNError *error) {
        if (error != nil) { NSLog(@"Decline not sent: %@", error.message); }
    }];
}

// Your call screen's hang-up button, or your calls SDK saw the other side leave.
- (void)hangUpTapped:(id)sender {
    [CometChatPushNotificationsCalls.shared reportCallEndedWithSessionId:self.sessionId reason:PNCallEndReasonLocalEnded];
}

// Ask for the microphone at a better moment than launch (requestCallPermissions off).
- (void)askForMicrophone {
    [CometChatPushNotificationsCalls.shared requestCallPermissionsWithCompletion:^(BOOL granted) {
        NSLog(@"microphone %@", granted ? @"allowed" : @"denied");
    }];
    PNIncomingCall *call = CometChatPushNotificationsCalls.shared.activeCall;
    if (call != nil) { NSLog(@"ringing or answered: %@", call.sessionId); }
}

@end

#import "CallsDelegate.h"

@implementation CallsDelegate

- (BOOL)presentCall:(PNIncomingCall *)call {
    // Join call.sessionId with your calls SDK and show your call screen.
    NSLog(@"%@ %@ from %@ (%@)", call.isVideo ? @"Video" : @"Audio", call.sessionId, call.callerName, call.callerUid);
    if (call.isGroup) { NSLog(@"group %@", call.receiver); }
    return YES;
}

- (void)callDidEnd:(PNIncomingCall *)call reason:(PNCallEndReason)reason {
    if (reason == PNCallEndReasonTimedOut) { NSLog(@"missed call from %@", call.callerName); }
}

- (void)callDidChangeHold:(PNIncomingCall *)call onHold:(BOOL)onHold {
    // Pause or resume this call's audio and video in your calls SDK.
    NSLog(@"%@ %@", onHold ? @"holding" : @"resuming", call.sessionId);
}

@end

#if canImport(ObjectiveC)
import Foundation

// The media-session protocol, declared twice: with the Objective-C selectors the app's
// Objective-C implementation answers to where there is Objective-C, and plainly elsewhere
// (`#if` cannot wrap the `@objc` of a requirement). Both declare the same requirements, in the
// same order; `ObjectiveCSurfaceTests` fails when they differ.

/// Lets the app connect its media session while a call rings, so an answered call has audio at
/// once. Set it on ``CometChatPushNotificationsCalls/mediaSession``; the SDK holds it weakly.
/// Every method is called on the main queue.
@objc(PNCallMediaSession)
public protocol PNCallMediaSession: NSObjectProtocol {
    /// A call started ringing: connect to it (without audio) so answering is instant.
    @objc(prepareForCall:) func prepare(for call: IncomingCall)
    /// The call stopped ringing without being answered here: drop what ``prepare(for:)`` made.
    @objc(cancelPreparationForCall:) func cancelPreparation(for call: IncomingCall)
    /// CallKit activated the audio session for `call`: start audio now, not before.
    @objc(audioSessionDidActivateForCall:) func audioSessionDidActivate(for call: IncomingCall)
    /// CallKit deactivated the audio session.
    @objc func audioSessionDidDeactivate()
    /// The user muted or unmuted `call` on the system call screen.
    @objc(setMuted:forCall:) func setMuted(_ muted: Bool, for call: IncomingCall)
}
#else
import Foundation

/// Lets the app connect its media session while a call rings, so an answered call has audio at
/// once. Set it on ``CometChatPushNotificationsCalls/mediaSession``; the SDK holds it weakly.
/// Every method is called on the main queue.
public protocol PNCallMediaSession: AnyObject {
    /// A call started ringing: connect to it (without audio) so answering is instant.
    func prepare(for call: IncomingCall)
    /// The call stopped ringing without being answered here: drop what ``prepare(for:)`` made.
    func cancelPreparation(for call: IncomingCall)
    /// CallKit activated the audio session for `call`: start audio now, not before.
    func audioSessionDidActivate(for call: IncomingCall)
    /// CallKit deactivated the audio session.
    func audioSessionDidDeactivate()
    /// The user muted or unmuted `call` on the system call screen.
    func setMuted(_ muted: Bool, for call: IncomingCall)
}
#endif

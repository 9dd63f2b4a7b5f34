#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What happened to a send request in ``ServiceStore/acceptSend(appId:idempotencyKey:requestHash:jobs:webhooks:response:now:)``.
public enum SendAcceptance: Sendable, Hashable {
    /// New request: the jobs were stored; answer with the given response.
    case accepted(response: Data)
    /// The key was seen with the same request: nothing stored; answer with the first response.
    case replayed(response: Data)
    /// The key was seen with a different request.
    case keyReused
}

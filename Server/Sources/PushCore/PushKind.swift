/// What a push is about; picks the payload shape of Contract/WIRE-CONTRACT.md §4.
public enum PushKind: String, Sendable, Codable, CaseIterable, Hashable {
    /// A chat message, reaction or group action (`type: "chat"`).
    case chat
    /// A call event (`type: "call"`, with `callAction`).
    case call
    /// A campaign (engagement) push (`source: "campaign"`).
    case campaign
    /// A conversation was read on another of the user's devices (`type: "read"`): a
    /// background push (`content-available`, priority 5) that clears its notifications.
    case read
}

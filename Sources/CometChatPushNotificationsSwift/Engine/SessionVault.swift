import Foundation

/// Keeps sessions in the secure store (the keychain on iOS), never in plain storage.
///
/// - the app's own login (`setSession(uid:authToken:)`), restored on the next launch;
/// - the active session with the service's base URL, for the Notification Service Extension.
struct SessionVault: Sendable {
    let secure: PNSecureStore
    /// Told when the store refuses a write (a missing keychain entitlement), so it reaches the
    /// log and the diagnostics instead of silently breaking the extension's receipts.
    var onFailure: @Sendable (PNSecureStoreError) -> Void = { _ in }

    static let appSessionKey = "com.cometchat.push.session.app"
    static let activeSessionKey = "com.cometchat.push.session.active"

    private struct Stored: Codable {
        var uid: String?
        var authToken: String
        var appId: String?
        var baseURL: String?
    }

    var appSession: PNSession? {
        get { decode(Self.appSessionKey).map { PNSession(uid: $0.uid, authToken: $0.authToken) } }
        nonmutating set {
            encode(newValue.map { Stored(uid: $0.uid, authToken: $0.authToken) }, Self.appSessionKey)
        }
    }

    /// Saves what the extension needs to send receipts on the user's behalf.
    func saveActive(_ session: PNSession?, appId: String, baseURL: URL) {
        encode(
            session.map { Stored(uid: $0.uid, authToken: $0.authToken, appId: appId, baseURL: baseURL.absoluteString) },
            Self.activeSessionKey)
    }

    /// The session the app saved for the extension, with the app id and base URL.
    func loadActive() -> (session: PNSession, appId: String, baseURL: URL)? {
        guard let stored = decode(Self.activeSessionKey), let appId = stored.appId,
            let text = stored.baseURL, let url = URL(string: text)
        else { return nil }
        return (PNSession(uid: stored.uid, authToken: stored.authToken), appId, url)
    }

    private func decode(_ key: String) -> Stored? {
        guard let text = secure.secret(forKey: key) else { return nil }
        return try? JSONDecoder().decode(Stored.self, from: Data(text.utf8))
    }

    private func encode(_ value: Stored?, _ key: String) {
        do {
            guard let value, let data = try? JSONEncoder().encode(value) else {
                return try secure.setSecret(nil, forKey: key)
            }
            try secure.setSecret(String(decoding: data, as: UTF8.self), forKey: key)
        } catch {
            onFailure((error as? PNSecureStoreError) ?? PNSecureStoreError(status: 0, message: "\(error)"))
        }
    }
}

import Foundation

/// Who the app's own login signed in, so the next launch opens on the right screen. Only the uid
/// is kept here: the SDK keeps the auth token in the keychain and restores its session itself.
enum SignedInUser {
    private static let key = "ChatAndCallsApp.signedInUID"

    static var uid: String? {
        get { UserDefaults.standard.string(forKey: key) }
        set { UserDefaults.standard.set(newValue, forKey: key) }
    }
}

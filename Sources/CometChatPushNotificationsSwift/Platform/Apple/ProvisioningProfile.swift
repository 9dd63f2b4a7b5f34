#if canImport(UIKit)
import Foundation

/// The APNs environment of this build, from the `aps-environment` entitlement of the provisioning
/// profile embedded in the app (`embedded.mobileprovision`, a signed property list): `development`
/// is the sandbox. App Store and TestFlight builds carry no embedded profile and use production.
enum ProvisioningProfile {
    /// `"sandbox"`, `"production"`, or `nil` when it cannot be told (the Simulator).
    static let apnsEnvironment: String? = {
        #if targetEnvironment(simulator)
        return nil
        #else
        guard let url = Bundle.main.url(forResource: "embedded", withExtension: "mobileprovision") else {
            return "production"  // App Store and TestFlight builds carry no profile
        }
        guard let data = try? Data(contentsOf: url), let environment = entitlement(in: data) else { return nil }
        return environment == "development" ? "sandbox" : "production"
        #endif
    }()

    /// `aps-environment` from the property list inside the profile's signature envelope.
    static func entitlement(in profile: Data) -> String? {
        guard let start = profile.range(of: Data("<?xml".utf8)),
            let end = profile.range(of: Data("</plist>".utf8), in: start.lowerBound..<profile.endIndex)
        else { return nil }
        let plist = profile[start.lowerBound..<end.upperBound]
        guard let root = try? PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any],
            let entitlements = root["Entitlements"] as? [String: Any]
        else { return nil }
        return entitlements["aps-environment"] as? String
    }
}
#endif
